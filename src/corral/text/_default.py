"""The ``default`` profile: what a careful user means by a word, a sentence and a paragraph.

The rules (each with an example) are in ``docs/segmentation.md`` and in ``_default_profile``, which does the
splitting. Matching strips punctuation and whitespace at both ends and ignores case (``casefold``) unless
the constraint asks for case-sensitive comparison.
"""

from __future__ import annotations

import unicodedata

from ._default_profile import paragraphs, sentences, words
from ._profiles import Profile, RawUnit
from ._units import Level


def _substrings(text: str, spans: list[tuple[int, int]]) -> list[RawUnit]:
    return [(text[a:b], a, b) for a, b in spans]


def split(text: str, level: Level) -> list[RawUnit]:
    if level is Level.WORD:
        return _substrings(text, words(text))
    if level is Level.SENTENCE:
        return _substrings(text, sentences(text))
    if level is Level.PARAGRAPH:
        return _substrings(text, paragraphs(text))
    if level is Level.CHAR:
        return [(c, i, i + 1) for i, c in enumerate(text)]
    stripped = text.strip()
    if not stripped:
        return []
    start = len(text) - len(text.lstrip())
    return [(stripped, start, start + len(stripped))]


def _is_edge_noise(char: str) -> bool:
    return char.isspace() or unicodedata.category(char)[0] in "PS"


def normalize(value: str, case_sensitive: bool = False) -> str:
    """Strip punctuation, symbols and whitespace at both ends; casefold unless case-sensitive."""
    start, end = 0, len(value)
    while start < end and _is_edge_noise(value[start]):
        start += 1
    while end > start and _is_edge_noise(value[end - 1]):
        end -= 1
    core = value[start:end] if start < end else value
    return core if case_sensitive else core.casefold()


PROFILE = Profile(
    name="default",
    description=(
        "Careful-user rules: abbreviations do not end sentences, contractions are one word, punctuation is "
        "not a word, blank lines separate paragraphs; case- and punctuation-insensitive matching."
    ),
    split=split,
    normalize=normalize,
)
