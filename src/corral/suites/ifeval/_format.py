"""IFEval's format and content kinds: JSON, a title, sections, bullets, highlights, a fixed answer, two responses,
placeholders, a postscript, quotation marks, an ending, and repeating the request first.

Each check reads the response the way IFEval defines the instruction (the patterns are IFEval's definitions, e.g.
a bullet is a line starting with ``*`` or ``-``), and says in its message what to change.
"""

from __future__ import annotations

import json
import re

from corral.verdicts import Violation

from ._kinds import Args, Param, first_span, register_kind, tick

OPTIONS = ("My answer is yes.", "My answer is no.", "My answer is maybe.")
"""The answers ``detectable_format:constrained_response`` allows (IFEval's three)."""
SEPARATOR = "******"
"""What separates the two answers of ``combination:two_responses``."""

_TITLE = re.compile(r"<<[^\n]+>>")
_STAR_BULLET = re.compile(r"^\s*\*[^\*].*$", re.MULTILINE)
_DASH_BULLET = re.compile(r"^\s*-.*$", re.MULTILINE)
_HIGHLIGHT = re.compile(r"\*[^\n\*]*\*")
_BOLD = re.compile(r"\*\*[^\n\*]*\*\*")
_PLACEHOLDER = re.compile(r"\[.*?\]")
_FENCES = ("```json", "```Json", "```JSON", "```")


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _matches(response: str, *patterns: re.Pattern[str]) -> int:
    """How many times the patterns match in ``response`` (each match ticks the check's budget)."""
    count = 0
    for pattern in patterns:
        for _ in pattern.finditer(response):
            tick()
            count += 1
    return count


@register_kind("detectable_format:json_format", (),
      lambda a: "Write your entire response as JSON; you may wrap it in markdown ``` fences.",
      "grammar", "JSON is a context-free language (optionally inside ``` fences)",
      "the whole response parses as JSON, ``` fences allowed")
def json_format(args: Args, response: str) -> list[Violation]:
    body = response.strip()
    for fence in _FENCES:  # each in turn, as IFEval does ("```json" then a bare "```" is also removed)
        body = body.removeprefix(fence)
    body = body.removesuffix("```").strip()
    try:
        json.loads(body)
    except ValueError as exc:
        return [Violation("detectable_format:json_format", f"The response is not valid JSON ({exc}); write only "
                                                           "a JSON value, with nothing before or after it.",
                          None, "JSON", body[:80])]
    return []


@register_kind("detectable_format:title", (),
      lambda a: "Your answer must contain a title wrapped in double angular brackets, such as <<poem of joy>>.",
      "grammar", "a title is <<...>> on one line: a regular pattern",
      "a non-empty <<title>> on one line")
def title(args: Args, response: str) -> list[Violation]:
    for match in _TITLE.finditer(response):
        tick()
        if match.group().lstrip("<").rstrip(">").strip():
            return []
    return [Violation("detectable_format:title", "The response has no title: add one line with a title in double "
                                                "angular brackets, such as <<My Title>>.", None, "<<title>>", None)]


@register_kind("detectable_format:multiple_sections", (Param("section_spliter", str), Param("num_sections", int)),
      lambda a: f"Your response must have {a['num_sections']} sections. Mark the beginning of each section with "
                f"{a['section_spliter']} X, such as: {a['section_spliter']} 1.",
      "grammar", "section markers (the word and a number) counted: a regular pattern",
      "at least n section markers '<word> <number>'")
def multiple_sections(args: Args, response: str) -> list[Violation]:
    word, want = args["section_spliter"].strip(), args["num_sections"]
    count = _matches(response, re.compile(r"\s?" + re.escape(word) + r"\s?\d+\s?"))
    if count >= want:
        return []
    return [Violation("detectable_format:multiple_sections",
                      f"The response has {_plural(count, 'section')} marked '{word} <number>'; it needs at least "
                      f"{want}. Begin each section with '{word} 1', '{word} 2', ... (case matters).",
                      None, want, count)]


@register_kind("detectable_format:number_bullet_lists", (Param("num_bullets", int),),
      lambda a: f"Your answer must contain exactly {_plural(a['num_bullets'], 'bullet point')}, in markdown: "
                "each on its own line starting with '* '.",
      "grammar", "bullet lines (starting with * or -) counted exactly: a regular pattern",
      "exactly n lines starting with * (not **) or -")
def number_bullet_lists(args: Args, response: str) -> list[Violation]:
    want = args["num_bullets"]
    count = _matches(response, _STAR_BULLET, _DASH_BULLET)
    if count == want:
        return []
    fix = "Remove bullets, or write the extra points as prose (every line starting with * or - counts)." \
        if count > want else f"Add {want - count} more line{'s' if want - count != 1 else ''} starting with '* '."
    return [Violation("detectable_format:number_bullet_lists",
                      f"The response has {_plural(count, 'bullet point')}; it needs exactly {want}. {fix}",
                      None, want, count)]


@register_kind("detectable_format:number_highlighted_sections", (Param("num_highlights", int),),
      lambda a: f"Highlight at least {_plural(a['num_highlights'], 'section')} of your answer with markdown, "
                "such as *highlighted section*.",
      "grammar", "highlights (*text* on one line) counted: a regular pattern",
      "at least n non-empty *highlights* (each **bold** counts too)")
def number_highlighted_sections(args: Args, response: str) -> list[Violation]:
    want = args["num_highlights"]
    count = 0
    for match in _HIGHLIGHT.finditer(response):
        tick()
        count += bool(match.group().strip("*").strip())
    for match in _BOLD.finditer(response):
        tick()
        count += bool(match.group()[2:-2].strip())
    if count >= want:
        return []
    return [Violation("detectable_format:number_highlighted_sections",
                      f"The response has {_plural(count, 'highlighted section')}; it needs at least {want}. Wrap "
                      "text in single asterisks on one line, such as *a highlighted part*.", None, want, count)]


@register_kind("detectable_format:constrained_response", (),
      lambda a: f"Answer with one of the following options: {', '.join(repr(o) for o in OPTIONS)}.",
      "grammar", "a choice among three fixed strings (within free text) is regular",
      "contains one of 'My answer is yes.', 'My answer is no.', 'My answer is maybe.'")
def constrained_response(args: Args, response: str) -> list[Violation]:
    body = response.strip()
    if any(option in body for option in OPTIONS):
        return []
    return [Violation("detectable_format:constrained_response",
                      f"The response uses none of the allowed answers; write exactly one of {', '.join(OPTIONS)} "
                      "(with the capital M and the full stop).", None, list(OPTIONS), body[:80])]


@register_kind("combination:two_responses", (),
      lambda a: f"Give two different responses, separated by six asterisks: {SEPARATOR}. Separate only the "
                "responses that way.",
      "partial", "a grammar can force two non-empty parts around ******, but not that they differ",
      "two non-empty, different answers separated by ******")
def two_responses(args: Args, response: str) -> list[Violation]:
    rule = "combination:two_responses"
    parts = response.split(SEPARATOR)
    kept = []
    for index, part in enumerate(parts):
        tick()
        if part.strip():
            kept.append(part.strip())
        elif 0 < index < len(parts) - 1:
            return [Violation(rule, f"Part {index + 1} between {SEPARATOR} separators is empty; write exactly two "
                                    f"responses with one {SEPARATOR} between them.", None, 2, None)]
    if len(kept) != 2:
        return [Violation(rule, f"The response has {_plural(len(kept), 'part')} separated by {SEPARATOR}; it needs "
                                f"exactly two responses with one {SEPARATOR} between them.", None, 2, len(kept))]
    if kept[0] == kept[1]:
        return [Violation(rule, "The two responses are the same; make them different.", None, "different", kept[0])]
    return []


@register_kind("detectable_content:number_placeholders", (Param("num_placeholders", int),),
      lambda a: f"The response must contain at least {_plural(a['num_placeholders'], 'placeholder')} in square "
                "brackets, such as [address].",
      "grammar", "placeholders ([...] on one line) counted: a regular pattern",
      "at least n [placeholders] (on one line each)")
def number_placeholders(args: Args, response: str) -> list[Violation]:
    want = args["num_placeholders"]
    count = _matches(response, _PLACEHOLDER)
    if count >= want:
        return []
    return [Violation("detectable_content:number_placeholders",
                      f"The response has {_plural(count, 'placeholder')} in square brackets; it needs at least "
                      f"{want}. Add placeholders such as [name] or [date].", None, want, count)]


def postscript_pattern(marker: str) -> re.Pattern[str]:
    """What IFEval accepts as the postscript marker, searched anywhere in the lowercased response: ``P.S.`` as
    ``p.s.`` with an optional space after the first dot, ``P.P.S`` likewise at each dot, any other marker as
    itself."""
    if marker == "P.P.S":
        return re.compile(r"p\.\s?p\.\s?s")
    if marker == "P.S.":
        return re.compile(r"p\.\s?s\.")
    return re.compile(re.escape(marker.lower()))


@register_kind("detectable_content:postscript", (Param("postscript_marker", str),),
      lambda a: f"At the end of your response, add a postscript starting with {a['postscript_marker']}",
      "grammar", "a fixed marker somewhere in the text: a regular pattern",
      "contains the postscript marker (any case)")
def postscript(args: Args, response: str) -> list[Violation]:
    marker = args["postscript_marker"].strip()
    if postscript_pattern(marker).search(response.lower()):
        return []
    return [Violation("detectable_content:postscript",
                      f"The response has no postscript: end it with a line starting with {marker}", None, marker,
                      None)]


@register_kind("startend:quotation", (),
      lambda a: "Wrap your entire response with double quotation marks.",
      "grammar", "a text between two \" characters: a regular pattern",
      'the response (stripped) begins and ends with "')
def quotation(args: Args, response: str) -> list[Violation]:
    body = response.strip()
    if len(body) > 1 and body[0] == '"' and body[-1] == '"':
        return []
    where = "begin" if body[:1] != '"' else "end"
    return [Violation("startend:quotation", f"The response does not {where} with a double quotation mark (\"); wrap "
                                            "the whole response in double quotation marks.", None, '"..."',
                      (body[:1] + body[-1:]) if body else "")]


@register_kind("startend:end_checker", (Param("end_phrase", str),),
      lambda a: f"Finish your response with this exact phrase: {a['end_phrase']} No other words should follow it.",
      "grammar", "a fixed ending (case aside): a regular pattern",
      "ends with the phrase (any case; surrounding whitespace and \" ignored)")
def end_checker(args: Args, response: str) -> list[Violation]:
    phrase = args["end_phrase"].strip()
    body = response.strip().strip('"')
    if body.lower().endswith(phrase.lower()):
        return []
    tail = body[-max(len(phrase), 20):]
    at = body.lower().rfind(phrase.lower())
    hint = " Nothing may follow it." if at >= 0 else ""
    return [Violation("startend:end_checker", f"The response must end with the exact phrase {phrase!r}; it ends "
                                              f"with {tail!r}.{hint}", None, phrase, tail)]


@register_kind("combination:repeat_prompt", (Param("prompt_to_repeat", str),),
      lambda a: "First repeat the request word for word without change, then give your answer (do not say "
                "anything before repeating the request; the request to repeat does not include this sentence).",
      "grammar", "a fixed prefix (the request, case aside) then free text: a per-instance copy grammar",
      "begins with the request, word for word (any case)")
def repeat_prompt(args: Args, response: str) -> list[Violation]:
    request = args["prompt_to_repeat"].strip()
    body = response.strip()
    if body.lower().startswith(request.lower()):
        return []
    same = 0
    for a, b in zip(body.lower(), request.lower(), strict=False):
        if a != b:
            break
        same += 1
    where = "at its start" if same == 0 else f"after {body[:same][-30:]!r}"
    return [Violation("combination:repeat_prompt", f"The response must begin by repeating the request word for "
                                                   f"word; it departs from it {where}. Begin with: {request[:200]!r}",
                      first_span(response, body[same:same + 1]) if body[same:] else None, request, body[:len(request)])]
