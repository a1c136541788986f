"""BenchCLAMP's two output forms for dependency parses (its §3.1) and labelled / unlabelled attachment scores.

A parse of ``n`` words is ``heads`` (one per word, 1-based word indices, ``0`` for the root, as CoNLL-U's HEAD)
and ``relations`` (one per word, CoNLL-U's DEPREL, subtypes included: ``nmod:poss``).

- Triples form: ``(word, relation, head-word)`` per word in order, joined by single spaces, the root's head
  written ``root``: ``(Read, root, root) (some, obj, Read) (of, case, links)``. It is lossy when a head word occurs
  more than once; reading resolves a head word to its mention closest to the dependent (the dependent itself
  skipped; ties go to the earlier mention), which BenchCLAMP reports round-trips 95.7% of parses.
  A head written ``root`` is the root (0) when the relation is ``root`` or no other word is ``root``; otherwise it
  is the closest other word ``root``.
- Indexed (lossless) form: ``(1-Read, root, 0) (2-some, obj, 1) ...``: 1-based index and word, relation, head
  index.

Words are written as they are, unquoted: a word may hold commas, parentheses or spaces (UD EWT has the tokens ``,``
``(`` ``)``), because reading is driven by the known word sequence: each triple must open with ``(`` and the
expected word (``(i-word`` in the indexed form) followed by ``, ``. A relation is any non-empty run of characters
other than whitespace, commas and parentheses (every UD relation is), so it ends at the next ``, ``; a head is a
number, or one of the sentence's words or ``root``, closed by ``)``. When a word's text makes a split ambiguous,
the reader searches for a reading of the whole text, so a text written by ``write_*`` always reads back. Leading
and trailing whitespace of the whole text is ignored; between triples there is exactly one space.

Scores (``attachment_stats``): micro-averaged over tokens, every token counted, punctuation included, as the
CoNLL 2018 shared task's LAS does; a relation is compared whole (``nmod:poss`` is not ``nmod``); UAS compares
heads only. An unreadable prediction attaches no token correctly and its tokens still count.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence

from corral.registry import quality_aggregates

__all__ = ["ROOT_HEAD", "attachment_stats", "ratio", "read_indexed", "read_triples", "round_trip_rate",
           "write_indexed", "write_triples"]

ROOT_HEAD = "root"
"""The head word written for the root in the triples form."""

RELATION = re.compile(r"[^\s,()]+")
_INDEX = re.compile(r"0|[1-9][0-9]*")

Parse = tuple[list[int], list[str]]
_Heads = Callable[[str, int, int], Iterator[tuple[str, int]]]


def _check(words: Sequence[str], heads: Sequence[int], relations: Sequence[str]) -> None:
    if not len(words) == len(heads) == len(relations):
        raise ValueError(f"{len(words)} words, {len(heads)} heads and {len(relations)} relations")
    for head, relation in zip(heads, relations, strict=True):
        if not 0 <= head <= len(words):
            raise ValueError(f"head {head} is outside 0..{len(words)}")
        if not RELATION.fullmatch(relation):
            raise ValueError(f"relation {relation!r} is empty or holds whitespace, a comma or a parenthesis")


def write_triples(words: Sequence[str], heads: Sequence[int], relations: Sequence[str]) -> str:
    """The triples form of a parse: ``(word, relation, head-word)`` per word, ``root`` as the root's head."""
    _check(words, heads, relations)
    return " ".join(f"({word}, {relation}, {words[head - 1] if head else ROOT_HEAD})"
                    for word, head, relation in zip(words, heads, relations, strict=True))


def write_indexed(words: Sequence[str], heads: Sequence[int], relations: Sequence[str]) -> str:
    """The lossless form of a parse: ``(index-word, relation, head-index)`` per word, 1-based, 0 the root."""
    _check(words, heads, relations)
    return " ".join(f"({i}-{word}, {relation}, {head})"
                    for i, (word, head, relation) in enumerate(zip(words, heads, relations, strict=True), 1))


def _read(text: str, openings: list[str], heads_at: _Heads) -> list[tuple[str, str]] | None:
    """(relation, head text) per word: a depth-first search for a reading of the whole text (states already tried
    are not tried again, so it stays linear unless a word's text is ambiguous)."""
    text = text.strip()
    if not openings:
        return [] if not text else None
    last, tried = len(openings) - 1, set()
    stack: list[tuple[int, int, tuple | None]] = [(0, 0, None)]
    while stack:
        i, at, chain = stack.pop()
        if (i, at) in tried or not text.startswith(openings[i], at):
            continue
        tried.add((i, at))
        relation = RELATION.match(text, at + len(openings[i]))
        if relation is None or not text.startswith(", ", relation.end()):
            continue
        for head, end in heads_at(text, relation.end() + 2, i):
            link = ((relation.group(), head), chain)
            if i == last and end + 1 == len(text):
                found = []
                while link is not None:
                    found.append(link[0])
                    link = link[1]
                return found[::-1]
            if i < last and text.startswith(" ", end + 1):
                stack.append((i + 1, end + 2, link))
    return None


def read_indexed(text: str, words: Sequence[str]) -> Parse | None:
    """(heads, relations) from the indexed form, or None unless the text is that form over exactly ``words``,
    in order, with every head index in 0..len(words)."""
    def heads_at(text: str, at: int, _: int) -> Iterator[tuple[str, int]]:
        index = _INDEX.match(text, at)
        if index and text.startswith(")", index.end()) and int(index.group()) <= len(words):
            yield index.group(), index.end()

    found = _read(text, [f"({i}-{word}, " for i, word in enumerate(words, 1)], heads_at)
    if found is None:
        return None
    return [int(head) for _, head in found], [relation for relation, _ in found]


def read_triples(text: str, words: Sequence[str]) -> Parse | None:
    """(heads, relations) from the triples form, or None unless the text is that form over exactly ``words``, in
    order, each head one of the words or ``root``. Head words resolve as the module doc says."""
    candidates = sorted(set(words) | {ROOT_HEAD}, key=len)

    def heads_at(text: str, at: int, _: int) -> Iterator[tuple[str, int]]:
        for head in candidates:  # longest last, so tried first
            if text.startswith(head + ")", at):
                yield head, at + len(head)

    found = _read(text, [f"({word}, " for word in words], heads_at)
    if found is None:
        return None
    return [_resolve(words, i, head, relation) for i, (relation, head) in enumerate(found)], \
        [relation for relation, _ in found]


def _resolve(words: Sequence[str], i: int, head: str, relation: str) -> int:
    others = [j for j, word in enumerate(words) if word == head and j != i]
    if head == ROOT_HEAD and (relation == ROOT_HEAD or not others):
        return 0
    if not others:
        return i + 1  # the word names itself: a loop, read as written (it scores as a wrong head)
    return min(others, key=lambda j: (abs(j - i), j)) + 1


def round_trip_rate(examples: Iterable[tuple[Sequence[str], Sequence[int], Sequence[str]]]) -> float:
    """The share of (words, heads, relations) parses whose triples form reads back to the same heads and relations
    (BenchCLAMP: 95.7% of UD EWT's test set)."""
    same = total = 0
    for words, heads, relations in examples:
        total += 1
        back = read_triples(write_triples(words, heads, relations), words)
        same += back is not None and back == (list(heads), list(relations))
    if not total:
        raise ValueError("no examples")
    return same / total


def attachment_stats(metric: str, predicted: Parse | None, gold: Parse) -> dict[str, float]:
    """One record's attachment statistics: ``{metric}_las@ratio:correct|total`` and ``{metric}_uas@ratio:...``,
    summed over records into micro LAS and UAS by the ``ratio`` aggregate. ``predicted`` is (heads, relations) or
    None (unreadable, or another number of words): no token correct, every gold token counted."""
    gold_heads, gold_relations = gold
    total = float(len(gold_heads))
    las = uas = 0
    if predicted is not None and len(predicted[0]) == len(gold_heads) == len(predicted[1]):
        for head, relation, gold_head, gold_relation in zip(*predicted, gold_heads, gold_relations, strict=True):
            uas += head == gold_head
            las += head == gold_head and relation == gold_relation
    return {f"{metric}_las@ratio:correct": float(las), f"{metric}_las@ratio:total": total,
            f"{metric}_uas@ratio:correct": float(uas), f"{metric}_uas@ratio:total": total}


@quality_aggregates.register("ratio")
def ratio(stats: dict[str, float]) -> float:
    """Summed ``correct`` over summed ``total`` (micro accuracy: LAS, UAS); 1.0 when there is nothing to count,
    as ``micro_f1`` is when there is nothing to find."""
    total = stats.get("total", 0.0)
    return stats.get("correct", 0.0) / total if total else 1.0


@quality_aggregates.register("all_of")
def all_of(stats: dict[str, float]) -> float:
    """The share of groups whose every item is correct, from ``{group}/correct`` and ``{group}/total`` sums
    (CoSQL's interaction-level accuracy: a dialogue counts when all its turns do); 1.0 with no group."""
    totals = {key[:-len("/total")]: value for key, value in stats.items() if key.endswith("/total")}
    if not totals:
        return 1.0
    return sum(stats.get(f"{group}/correct", 0.0) == total for group, total in totals.items()) / len(totals)


def all_of_stats(metric: str, group: str, correct: bool) -> dict[str, float]:
    """One item's statistics for an ``all_of`` metric: ``{metric}@all_of:{group}/correct`` and ``/total``."""
    return {f"{metric}@all_of:{group}/correct": float(correct), f"{metric}@all_of:{group}/total": 1.0}
