"""Bounds on a regular expression from a spec, checked before it is compiled.

The ``regex`` module compiles a counted repeat by copying its body: ``a{1000000}`` takes a third of a gigabyte and
``a{4294967294}`` more memory than a machine has, before any text is looked at. So a spec's pattern is scanned
first (no compiling, no recursion): it may be at most ``MAX_PATTERN_CHARS`` long, and its *size*, the items it
would expand to with every counted repeat (``{m}``, ``{m,}``, ``{m,n}``, ``{,n}``) copied out, at most
``MAX_PATTERN_SIZE``: nested repeats multiply (``(a{1000}){1000}`` is a million), repeats side by side add.
``*``, ``+`` and ``?`` are loops, not copies, and count once. Backtracking is not bounded here; the check's time
budget bounds it (a regex gets the time left as its timeout).

The scan is deliberately coarse (every character, escape or character class counts as one item; an empty group
counts as one), so it may overestimate a pattern's size a little, never underestimate it.
"""

from __future__ import annotations

import re

from corral.errors import InputError

__all__ = ["MAX_PATTERN_CHARS", "MAX_PATTERN_SIZE", "PatternTooLarge", "bound_pattern"]

MAX_PATTERN_CHARS = 2_000
"""The longest pattern a spec may hold."""

MAX_PATTERN_SIZE = 10_000
"""The most items a pattern may expand to, its counted repeats copied out (about 3 MB once compiled)."""

_COUNTED = re.compile(r"\{(\d*)(?:,(\d*))?\}")
_GROUP_PREFIX = re.compile(r"\?(?:P?<(?![=!])[^>]*>|'[^']*'|P=[^)]*|<[=!]|[=!>|]|[-a-zA-Z^]*[:)]?)")
"""What opens a group after its '(': ``?:``, ``?P<name>``, ``?=``, ``?<!``, ``?>``, ``?i:``, ``?i)`` (not counted)."""
_BRACED_ESCAPES = frozenset("pPNx")  # \p{L}, \N{name}, \x{263a}: the braces are the escape's, not a repeat


class PatternTooLarge(InputError):
    """A pattern past a bound; ``at`` is the 0-based offset in the pattern where the bound was passed (an input
    error, and so a ``ValueError``)."""

    def __init__(self, message: str, at: int) -> None:
        super().__init__(message)
        self.at = at


def bound_pattern(pattern: str) -> None:
    """Raise ``PatternTooLarge`` if ``pattern`` is longer than ``MAX_PATTERN_CHARS`` or expands to more than
    ``MAX_PATTERN_SIZE`` items; otherwise return (the pattern may still be invalid: compiling says so)."""
    if len(pattern) > MAX_PATTERN_CHARS:
        raise PatternTooLarge(f"the regular expression is {len(pattern):,} characters long; the limit is "
                              f"{MAX_PATTERN_CHARS:,}", MAX_PATTERN_CHARS)
    # one frame per open group: [size so far, size of the last item (what a quantifier repeats)]
    frames: list[list[int]] = [[0, 0]]
    i, n = 0, len(pattern)
    while i < n:
        char = pattern[i]
        frame = frames[-1]
        if char == "\\":
            end = i + 2
            if i + 1 < n and pattern[i + 1] in _BRACED_ESCAPES and pattern.startswith("{", end):
                close = pattern.find("}", end)
                end = close + 1 if close >= 0 else n
            frame[0] += 1
            frame[1] = 1
            i = end
            continue
        if char == "[":
            i = _class_end(pattern, i)
            frame[0] += 1
            frame[1] = 1
            continue
        if char == "(":
            if pattern.startswith("(?#", i):  # a comment: nothing to count
                close = pattern.find(")", i)
                i = close + 1 if close >= 0 else n
                continue
            prefix = _GROUP_PREFIX.match(pattern, i + 1)
            i = prefix.end() if prefix is not None else i + 1
            if prefix is not None and prefix.group().endswith(")"):  # (?i): flags, not a group
                continue
            frames.append([0, 0])
            continue
        if char == ")" and len(frames) > 1:
            inner = frames.pop()
            size = max(inner[0], 1)
            frames[-1][0] += size
            frames[-1][1] = size
            i += 1
            continue
        if char == "{":
            counted = _COUNTED.match(pattern, i)
            if counted is not None and (counted.group(1) or counted.group(2)):
                # ``{0}`` still compiles its body once
                times = max(int(counted.group(1) or 0), int(counted.group(2) or 0), 1)
                grown = frame[1] * times
                total = frame[0] + grown - frame[1]  # the item once is already counted: copy it out
                if total > MAX_PATTERN_SIZE or _outer_total(frames, total) > MAX_PATTERN_SIZE:
                    raise PatternTooLarge(
                        f"the regular expression's repeat counts multiply out to more than {MAX_PATTERN_SIZE:,} "
                        f"items (at {counted.group()!r}, character {i + 1} of the pattern); the limit is "
                        f"{MAX_PATTERN_SIZE:,}", i)
                frame[0], frame[1] = total, grown
                i = counted.end()
                continue
        if char in "*+?|":  # a loop, a lazy/possessive mark, or an alternative: no copies
            i += 1
            continue
        frame[0] += 1
        frame[1] = 1
        i += 1
    total = frames[-1][0]
    for frame in reversed(frames[:-1]):  # groups left open: the compiler refuses them anyway
        total += frame[0]
    if total > MAX_PATTERN_SIZE:  # the items after the last repeat tipped it over
        raise PatternTooLarge(f"the regular expression's repeat counts multiply out to more than "
                              f"{MAX_PATTERN_SIZE:,} items (at its end); the limit is {MAX_PATTERN_SIZE:,}", n)


def _outer_total(frames: list[list[int]], innermost: int) -> int:
    """A lower bound of the whole pattern's size, given the innermost open group's size now: the sizes of the
    enclosing groups so far plus it (a later repeat of an enclosing group is checked when it comes)."""
    return innermost + sum(frame[0] for frame in frames[:-1])


def _class_end(pattern: str, start: int) -> int:
    """The offset after the character class that opens at ``start`` (``[]a]`` and ``[^]a]`` hold a ']')."""
    i = start + 1
    if pattern.startswith("^", i):
        i += 1
    if pattern.startswith("]", i):
        i += 1
    while i < len(pattern):
        if pattern[i] == "\\":
            i += 2
            continue
        if pattern[i] == "]":
            return i + 1
        i += 1
    return len(pattern)
