"""Formats that mark up the input text: NER (entity tags) and CapSeg (subtitle breaks).

NER: ``<PER>John Smith</PER> lives in <LOC>Paris</LOC> .`` Tags come from the instance's set (``tags``,
default PER/ORG/LOC/MISC), every open tag is closed, tags neither overlap nor nest, no entity is empty, and the
text with the tags removed is the source (``text``, or ``tokens`` joined by spaces) up to whitespace. The
reference only counts open against close tags per label, so untagged text, ``</PER>x<PER>`` and empty tags
pass. List fields (``tokens``, ``tags``) are lists of strings or a string holding one (JSON, or a Python list
literal as a table export writes it: read as data, never run).

An output with no tag at all is a violation when the instance's gold answer has entities (the format asks for
them to be marked); without gold, no tags is a valid answer.

CapSeg (Figure 5 of the paper): the source sentence with ``<eol>`` (line break) and ``<eob>`` (block break)
inserted, nothing else changed; at most 2 lines per block, at most 42 characters per line, and the text ends
with ``<eob>``. The reference also passes an answer without a final ``<eob>`` and leading empty blocks.
"""

from __future__ import annotations

import ast
import json
import re
from collections import Counter
from collections.abc import Mapping
from typing import Any

from corral.verdicts import Violation

from ._core import FormatChecker, InstanceError, reference_first_line, tick

DEFAULT_TAGS = ("PER", "ORG", "LOC", "MISC")
_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9_-]*)>")
_SPACE = re.compile(r"\s+")
MAX_LINE, MAX_LINES = 42, 2


def string_list(instance: Mapping[str, Any], name: str, task: str) -> list[str]:
    """Field ``name`` as a list of strings: a list (numbers are written as text), or a string holding one as JSON
    or as a Python list literal (``"['What', 'is']"``, read by ``ast.literal_eval``: data only, never code)."""
    value = instance[name]
    if isinstance(value, str):
        text = value.strip()
        try:
            value = json.loads(text)
        except ValueError:
            try:
                value = ast.literal_eval(text) if text.startswith("[") else None
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                value = None
    if not isinstance(value, list | tuple) or not all(isinstance(item, str | int | float) and not
                                                     isinstance(item, bool) for item in value):
        raise InstanceError(f"{task} instance {instance.get('id', '?')}: field {name!r} must be a list of strings "
                            f"(or a string holding one), not {str(instance[name])[:60]!r}")
    return [str(item) for item in value]


def _source(instance: Mapping[str, Any]) -> str:
    if instance.get("tokens") is not None:
        return " ".join(string_list(instance, "tokens", "ner"))
    if instance.get("text") is None:
        raise InstanceError(f"ner instance {instance.get('id', '?')}: missing field 'text' (the checker needs one "
                            "of text, tokens)")
    return str(instance["text"])


def allowed_tags(instance: Mapping[str, Any]) -> tuple[str, ...]:
    """The instance's entity tags (``tags``, a list or a string holding one), or the default set."""
    if not instance.get("tags"):
        return DEFAULT_TAGS
    return tuple(string_list(instance, "tags", "ner")) or DEFAULT_TAGS


def _first_difference(a: str, b: str) -> int:
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return i
    return min(len(a), len(b))


def _text_matches(source: str, plain: str, what: str) -> list[Violation]:
    want, got = _SPACE.sub(" ", source).strip(), _SPACE.sub(" ", plain).strip()
    if want == got:
        return []
    at = _first_difference(want, got)
    return [Violation("text", f"Without the {what}, the text must be the input unchanged; it differs at "
                              f"{got[max(0, at - 15):at + 15]!r} (expected {want[max(0, at - 15):at + 15]!r}).",
                      None, want[max(0, at - 15):at + 15], got[max(0, at - 15):at + 15])]


def ner_strict(instance: Mapping[str, Any], output: str) -> list[Violation]:
    allowed = allowed_tags(instance)
    found: list[Violation] = []
    stack: list[tuple[str, int, int]] = []  # the open tags: label, start of the tag, end of the tag
    open_labels: Counter[str] = Counter()  # how many of each label the stack holds
    plain, last = [], 0
    for match in _TAG.finditer(output):
        tick()
        closing, label = match.group(1) == "/", match.group(2)
        plain.append(output[last:match.start()])
        last = match.end()
        span = (match.start(), match.end())
        if label not in allowed:
            found.append(Violation("label", f"{match.group()} is not an entity tag; use {', '.join(allowed)}.",
                                   span, list(allowed), label))
            continue
        if not closing:
            if stack:
                found.append(Violation("nesting", f"<{label}> opens inside <{stack[-1][0]}>; close "
                                                  f"</{stack[-1][0]}> first: entities must not overlap or nest.",
                                       span, f"</{stack[-1][0]}>", f"<{label}>"))
            stack.append((label, *span))
            open_labels[label] += 1
            continue
        if not stack:
            found.append(Violation("closed", f"</{label}> closes no open tag; remove it, or open <{label}> before "
                                             "the entity's first word.", span, None, f"</{label}>"))
        elif stack[-1][0] == label:
            opened = stack.pop()
            open_labels[label] -= 1
            if not output[opened[2]:match.start()].strip():
                found.append(Violation("empty", f"<{label}></{label}> marks no text; put the entity's words "
                                                "between them or remove both.", (opened[1], match.end())))
        elif open_labels[label]:
            inner = stack[-1][0]  # the innermost open tag, not ``label`` (that one is not on top)
            found.append(Violation("nesting", f"</{label}> closes <{label}> while <{inner}> inside it is still "
                                              f"open; close </{inner}> first: entities must not overlap.",
                                   span, f"</{inner}>", f"</{label}>"))
            while True:
                popped = stack.pop()[0]
                open_labels[popped] -= 1
                if popped == label:
                    break
        else:
            found.append(Violation("nesting", f"</{label}> does not match the open <{stack[-1][0]}>; close it with "
                                              f"</{stack[-1][0]}>.", span, f"</{stack[-1][0]}>", f"</{label}>"))
            open_labels[stack.pop()[0]] -= 1
    for label, start, end in stack:
        found.append(Violation("closed", f"<{label}> is never closed; write </{label}> after the entity's last "
                                         "word.", (start, end), f"</{label}>"))
    plain.append(output[last:])
    gold = instance.get("gold")
    if not _TAG.search(output) and isinstance(gold, str) and _TAG.search(gold):
        found.append(Violation("tagged", f"The answer marks no entity; mark each one with "
                                         f"{', '.join(f'<{t}>' for t in allowed)} and its closing tag.", None))
    return found + _text_matches(_source(instance), "".join(plain), "tags")


def ner_reference(instance: Mapping[str, Any], output: str) -> bool:
    answer = reference_first_line(output)
    for label in DEFAULT_TAGS:
        if answer.count(f"<{label}>") != answer.count(f"</{label}>"):
            return False
        answer = answer.replace(f"<{label}>", "").replace(f"</{label}>", "")
    return answer.replace(" ", "") == _source(instance).replace(" ", "")


def capseg_strict(instance: Mapping[str, Any], output: str) -> list[Violation]:
    answer = output.strip()
    offset = output.find(answer) if answer else 0
    found: list[Violation] = []
    if "\n" in answer:
        at = offset + answer.index("\n")
        found.append(Violation("markers", "Use <eol> and <eob> for breaks, not new lines.", (at, at + 1)))
    plain = re.sub(r"<eo[lb]>", " ", answer)
    other = re.search(r"<[^<>]{1,20}>", plain)
    if other:
        found.append(Violation("markers", f"{other.group()} is not a break marker; only <eol> and <eob> are.",
                               None, "<eol> or <eob>", other.group()))
    found += _text_matches(str(instance["text"]), plain, "<eol> and <eob> markers")
    if not answer.endswith("<eob>"):
        found.append(Violation("end", "The text must end with <eob>.", (offset + len(answer), offset + len(answer)),
                               "<eob>", answer[-10:]))
    position = offset
    blocks = answer.split("<eob>")
    if answer.endswith("<eob>"):
        blocks.pop()  # the empty piece after the final <eob>
    for b, block in enumerate(blocks, start=1):
        tick()
        lines = block.split("<eol>")
        if not block.strip():
            found.append(Violation("block", f"Block {b} is empty.", (position, position + len(block))))
        if len(lines) > MAX_LINES:
            found.append(Violation("lines", f"Block {b} has {len(lines)} lines; the limit is {MAX_LINES}.",
                                   (position, position + len(block)), MAX_LINES, len(lines)))
        at = position
        for n, line in enumerate(lines, start=1):
            tick()
            if block.strip() and not line.strip():
                found.append(Violation("block", f"Block {b}, line {n} is empty; put <eol> only between two lines "
                                                "of text.", (at, at + len(line))))
            if len(line.strip()) > MAX_LINE:
                found.append(Violation("length", f"Block {b}, line {n} has {len(line.strip())} characters; the "
                                                 f"limit is {MAX_LINE}.", (at, at + len(line)), MAX_LINE,
                                       len(line.strip())))
            at += len(line) + len("<eol>")
        position += len(block) + len("<eob>")
    return found


def capseg_reference(instance: Mapping[str, Any], output: str) -> bool:
    answer = reference_first_line(output)
    squeezed = answer.replace("<eol>", "").replace("<eob>", "").replace(" ", "")
    if squeezed != str(instance["text"]).replace(" ", ""):
        return False
    for block in answer.split("<eob>"):
        lines = block.split("<eol>")
        if len(lines) > MAX_LINES or any(len(line.strip()) > MAX_LINE for line in lines):
            return False
    return True


NER = FormatChecker(
    "ner", {"label": "tags from the allowed set", "closed": "every tag opened and closed",
            "nesting": "no overlapping or nested entities", "empty": "no empty entity",
            "text": "the input text unchanged", "tagged": "entities marked when the text has some"}, (),
    ner_strict, ner_reference,
    "NER: the input with entities marked by tags", input_fields=("text", "tokens"))
CAPSEG = FormatChecker(
    "capseg", {"markers": "only <eol> and <eob> added", "text": "the input text unchanged",
               "lines": "at most 2 lines per block", "length": "at most 42 characters per line",
               "block": "no empty block", "end": "ends with <eob>"}, ("text",), capseg_strict, capseg_reference,
    "CapSeg: subtitle blocks and lines marked in a sentence")
