"""Filters and post-processors for chunks, registered by name and composed in order (COLLIE §4.1, B.4).

A *filter* is a predicate that removes chunks with artefacts; a *post-processor* rewrites a chunk's text
(cleanup) before the filters look at it. ``Pipeline`` runs post-processors first, then filters in the given
order, and counts what each filter removed, so that the fraction removed per filter can be reported
(COLLIE Figure 3b). A chunk whose text a post-processor empties is counted as removed by that post-processor.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import cache, cached_property

import regex

from corral.registry import chunk_filters, chunk_processors, lookup
from corral.text import Level

from ._chunks import Chunk

_URL = regex.compile(r"https?://|www\.\w", regex.IGNORECASE)
_CAPTION = regex.compile(r"^\s*(?:figure|fig\.|table|image|photo|caption|source)\s*[\d:.(]", regex.IGNORECASE | regex.M)
_COPYRIGHT = regex.compile(r"©|\(c\)\s*\d{4}|\bcopyright\b|all rights reserved", regex.IGNORECASE)
_SENTENCE_END = regex.compile(r"[.!?][\"'’”)\]]*\s*$")
_WORD = regex.compile(r"\p{L}+")
_MARKDOWN = regex.compile(r"(?m)^\s{0,3}(?:#{1,6}\s+|[*+-]\s+|>\s?)|\*\*|__|`")
_BRACKETS = regex.compile(r"\s*\[[^\[\]\n]{0,200}\]")


@chunk_filters.register("no_pipe")
def no_pipe(text: str) -> bool:
    """Tables and navigation bars leave "|" behind."""
    return "|" not in text


@chunk_filters.register("no_url")
def no_url(text: str) -> bool:
    return _URL.search(text) is None


@chunk_filters.register("no_caption")
def no_caption(text: str) -> bool:
    """Figure and photo captions ("Photo: ...", "Figure 3.") are not prose."""
    return _CAPTION.search(text) is None


@chunk_filters.register("no_copyright")
def no_copyright(text: str) -> bool:
    return _COPYRIGHT.search(text) is None


@chunk_filters.register("real_sentence")
def real_sentence(text: str) -> bool:
    """At least three words and ends like a sentence: headings, list items and fragments do not."""
    return len(_WORD.findall(text)) >= 3 and _SENTENCE_END.search(text) is not None


@chunk_filters.register("no_all_caps_line")
def no_all_caps_line(text: str) -> bool:
    """A line in capitals with at least two words is a heading or a banner ("CHAPTER ONE. LOOMINGS.")."""
    for line in text.splitlines():
        words = _WORD.findall(line)
        if len(words) >= 2 and all(w.isupper() for w in words):
            return False
    return True


@chunk_filters.register("ascii_letters")
def ascii_letters(text: str) -> bool:
    """Only printable ASCII (and newlines): the grammar shape of constrained decoding is ASCII."""
    return all(" " <= c <= "~" or c == "\n" for c in text)


@chunk_filters.register("letters_only")
def letters_only(text: str) -> bool:
    """A word chunk made of letters alone: numbers, dates and tokens like "don't" or "U.S." make poor words."""
    return _WORD.fullmatch(text) is not None


@chunk_processors.register("strip_markdown")
def strip_markdown(text: str) -> str:
    """Heading marks, bullets, quotes, emphasis and code ticks removed; the words stay."""
    return _MARKDOWN.sub("", text).strip()


@chunk_processors.register("strip_brackets")
def strip_brackets(text: str) -> str:
    """Citation marks and editorial notes in square brackets ("[1]", "[citation needed]") removed."""
    return _BRACKETS.sub("", text).strip()


@chunk_processors.register("drop_title_line")
def drop_title_line(text: str) -> str:
    """A first line that does not end like a sentence, followed by more text, is a title: dropped."""
    first, newline, rest = text.partition("\n")
    if newline and rest.strip() and _SENTENCE_END.search(first) is None:
        return rest.strip()
    return text


COLLIE_FILTERS = ("no_pipe", "no_url", "no_caption", "no_copyright", "no_all_caps_line", "real_sentence")
COLLIE_PROCESSORS = ("strip_markdown", "strip_brackets", "drop_title_line")
WORD_FILTERS = ("letters_only",)


def length(min_words: int = 0, max_words: int | None = None, min_chars: int = 0,
           max_chars: int | None = None) -> Callable[[str], bool]:
    """A length filter: words (runs of letters) and characters within bounds."""
    def within(text: str) -> bool:
        words = len(_WORD.findall(text))
        return (min_words <= words and (max_words is None or words <= max_words) and min_chars <= len(text)
                and (max_chars is None or len(text) <= max_chars))
    return within


@dataclass
class FilterReport:
    """How many chunks came in and what each step removed."""

    seen: int = 0
    removed: Counter[str] = field(default_factory=Counter)

    @property
    def kept(self) -> int:
        return self.seen - sum(self.removed.values())

    def fractions(self) -> dict[str, float]:
        """The fraction of incoming chunks each step removed (COLLIE Figure 3b)."""
        return {name: count / self.seen for name, count in sorted(self.removed.items())} if self.seen else {}


@dataclass(frozen=True)
class Pipeline:
    """Post-processors then filters, by registered name or as callables named in ``extra`` (name, predicate)."""

    processors: Sequence[str] = COLLIE_PROCESSORS
    filters: Sequence[str] = COLLIE_FILTERS
    extra: Sequence[tuple[str, Callable[[str], bool]]] = ()

    def __post_init__(self) -> None:
        for name in self.processors:
            lookup(chunk_processors, name, "chunk post-processor")
        for name in self.filters:
            lookup(chunk_filters, name, "chunk filter")

    @cached_property
    def _steps(self) -> tuple[list[tuple[str, Callable[[str], str]]], list[tuple[str, Callable[[str], bool]]]]:
        """The registered functions, looked up once (a registry lookup scans entry points)."""
        return ([(name, chunk_processors.get(name)) for name in self.processors],
                [(name, chunk_filters.get(name)) for name in self.filters] + list(self.extra))

    def run(self, chunks: Iterable[Chunk], report: FilterReport | None = None) -> Iterator[Chunk]:
        report = report if report is not None else FilterReport()
        processors, filters = self._steps
        for chunk in chunks:
            report.seen += 1
            text, dropped_by = chunk.text, None
            for name, process in processors:
                text = process(text)
                if not text.strip():
                    dropped_by = name
                    break
            if dropped_by is None:
                dropped_by = next((name for name, keep in filters if not keep(text)), None)
            if dropped_by is not None:
                report.removed[dropped_by] += 1
                continue
            yield chunk if text == chunk.text else replace(chunk, text=text)


@cache
def default_pipeline(level: Level | str) -> Pipeline:
    """The cleaning each level gets by default: COLLIE's processors and filters for sentences and up; words are
    kept when they are letters alone (a sentence filter would remove every word)."""
    level = level if isinstance(level, Level) else Level.parse(level)
    if level in (Level.WORD, Level.CHAR):
        return Pipeline(processors=(), filters=WORD_FILTERS)
    return Pipeline()
