"""The one-answer formats: MCQ (one legal label), EQA (a span of the passage) and AcroW (an acrostic).

MCQ: the answer is exactly one label of the instance's label set (``labels``); a label in the wrong case is
named with the right one. EQA: a non-empty span of ``context`` that starts and ends on word boundaries (the
reference accepts ``""`` and any substring, a single letter included, case-insensitively). AcroW: the first
letters of the non-empty lines, leading quotes and punctuation skipped, spell the letters of ``target`` ignoring
case, accents, spaces and hyphens (the reference compares the raw first characters with the target, spaces
included, so a target with a space can never pass, nor a line opening with a quote).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from typing import Any

import regex

from corral.verdicts import Violation

from ._core import FormatChecker, reference_first_line, tick

_LETTER = regex.compile(r"\p{L}|\p{N}")


def mcq_strict(instance: Mapping[str, Any], output: str) -> list[Violation]:
    labels = [str(label) for label in instance["labels"]]
    answer = output.strip()
    span = (output.find(answer), output.find(answer) + len(answer)) if answer else (0, 0)
    if not answer:
        return [Violation("label", "The answer is empty; it must be one of the labels.", span)]
    if answer in labels:
        return []
    folded = {label.casefold(): label for label in labels}
    if answer.casefold() in folded:
        right = folded[answer.casefold()]
        return [Violation("label", f"{answer!r} is not a label; labels are case-sensitive: write {right!r}.", span,
                          right, answer)]
    inside = [label for label in labels if regex.search(rf"(?<![\w:]){regex.escape(label)}(?![\w:])", answer)]
    if inside:
        return [Violation("label", f"Answer with the label alone ({inside[0]!r}), without other words.", span,
                          inside[0], answer)]
    return [Violation("label", f"{answer[:60]!r} is not a label. Answer with exactly one of the {len(labels)} "
                               f"labels: {', '.join(labels)}.", span, labels, answer)]


def mcq_reference(instance: Mapping[str, Any], output: str) -> bool:
    return reference_first_line(output).strip() in {str(label) for label in instance["labels"]}


def eqa_strict(instance: Mapping[str, Any], output: str) -> list[Violation]:
    context = str(instance["context"])
    answer = output.strip()
    span = (output.find(answer), output.find(answer) + len(answer)) if answer else (0, 0)
    if not answer:
        return [Violation("nonempty", "The answer is empty; it must be a span copied from the passage.", span)]
    starts = []
    at = context.find(answer)
    while at >= 0:
        tick()
        starts.append(at)
        at = context.find(answer, at + 1)
    if not starts:
        lowered = context.lower().find(answer.lower())
        if lowered >= 0:
            copied = context[lowered:lowered + len(answer)]
            return [Violation("span", f"The passage has {copied!r}; copy it exactly (the case differs).", span,
                              copied, answer)]
        return [_not_in_passage(context, answer, span)]
    for start in starts:
        end = start + len(answer)
        if not _inside_word(context, start) and not _inside_word(context, end):
            return []
    start = starts[0]
    whole = _widen(context, start, start + len(answer))
    return [Violation("boundary", f"{answer!r} cuts a word of the passage; the span must be whole words "
                                  f"(e.g. {whole!r}).", span, whole, answer)]


def _not_in_passage(context: str, answer: str, span: tuple[int, int]) -> Violation:
    """Say how the answer departs from the passage: the longest part of it the passage has and what is added
    around it, so the model knows whether to drop added words or to copy a span instead of paraphrasing."""
    pieces = []
    for match in _PIECE.finditer(answer):
        tick()
        pieces.append(match.span())
    best = (0, 0)
    # the longest run of whole pieces that the passage has (the first such run when several are as long): a
    # window that slides, since a run the passage has holds every shorter run inside it; so each piece is
    # added and dropped once, and a window never grows longer than the passage
    j = 0  # the window is pieces[i:j]
    for i in range(len(pieces)):
        j = max(j, i)
        while j < len(pieces) and pieces[j][1] - pieces[i][0] <= len(context) and \
                answer[pieces[i][0]:pieces[j][1]] in context:
            tick()
            j += 1
        if j > i and pieces[j - 1][1] - pieces[i][0] > best[1] - best[0]:
            best = (pieces[i][0], pieces[j - 1][1])
    if best[1] > best[0]:
        found, before, after = answer[best[0]:best[1]], answer[:best[0]].strip(), answer[best[1]:].strip()
        added = " and ".join(f"{part!r} {where}" for part, where in ((before, "before it"), (after, "after it"))
                             if part)
        return Violation("span", f"The passage has {found!r}, but not with {added}; answer with a span copied "
                                 "word for word, nothing added or changed.", span, found, answer)
    return Violation("span", f"{answer[:60]!r} does not occur in the passage, not even in part; the answer must be "
                             "a span copied from the passage word for word, not a paraphrase.", span, None, answer)


_PIECE = regex.compile(r"\w+|[^\w\s]")


def _inside_word(text: str, at: int) -> bool:
    return 0 < at < len(text) and bool(_LETTER.match(text[at - 1])) and bool(_LETTER.match(text[at]))


def _widen(text: str, start: int, end: int) -> str:
    while start > 0 and _inside_word(text, start):
        start -= 1
    while end < len(text) and _inside_word(text, end):
        end += 1
    return text[start:end]


def eqa_reference(instance: Mapping[str, Any], output: str) -> bool:
    return reference_first_line(output).lower() in str(instance["context"]).lower()


def _fold(letter: str) -> str:
    """A letter without case or accents: an acrostic's É matches E."""
    return "".join(c for c in unicodedata.normalize("NFKD", letter.casefold()) if not unicodedata.combining(c))


def acrow_strict(instance: Mapping[str, Any], output: str) -> list[Violation]:
    target = _LETTER.findall(str(instance["target"]))  # "sea-wind" needs s, e, a, w, i, n, d: no line for "-"
    lines = []
    at = 0
    for raw in output.split("\n"):
        tick()
        if raw.strip():
            letter = _LETTER.search(raw)
            lines.append((letter.group() if letter else "", (at + letter.start(), at + letter.end()) if letter
                          else (at, at + len(raw))))
        at += len(raw) + 1
    found = []
    for i, (want, (got, span)) in enumerate(zip(target, lines, strict=False), start=1):
        if _fold(got) != _fold(want):
            found.append(Violation("letters", f"Line {i} begins with {got or 'no letter'!r}; the acrostic needs "
                                              f"{want!r} there.", span, want, got))
    if len(lines) != len(target):
        word = "".join(target)
        found.append(Violation("lines", f"The poem has {len(lines)} non-empty lines; {word!r} needs {len(target)}, "
                                        "one per letter.", None, len(target), len(lines)))
    return found


def acrow_reference(instance: Mapping[str, Any], output: str) -> bool:
    lines = [line.strip() for line in output.split("\n\n")[0].split("\n") if line.strip()]
    return "".join(line[0] for line in lines).lower() == str(instance["target"]).lower()


MCQ = FormatChecker(
    "mcq", {"label": "exactly one legal label"}, ("labels",), mcq_strict, mcq_reference,
    "MCQ: answer with one label of a fixed set")
EQA = FormatChecker(
    "eqa", {"nonempty": "a non-empty answer", "span": "copied from the passage",
            "boundary": "whole words of the passage"}, ("context",), eqa_strict, eqa_reference,
    "EQA: answer with a span of the passage")
ACROW = FormatChecker(
    "acrow", {"letters": "each line begins with the target's next letter",
              "lines": "one non-empty line per letter"}, ("target",), acrow_strict, acrow_reference,
    "AcroW: an acrostic poem whose first letters spell the target")
