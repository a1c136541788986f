"""BM25 few-shot retrieval (``corral.retrieval``), on the clamp suite's examples: the best match comes last, a
token budget is met by dropping the weakest examples first, the query is never its own example, an exact duplicate
is the best match, ties are broken by the examples' order, and anything with an id and words is an example."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corral.retrieval import Example, Retriever, render_words
from corral.suites.clamp import ParseExample, load, split


def words_count(text: str) -> int:
    return len(text.split())


def example(ident: str, sentence: str) -> ParseExample:
    words = tuple(sentence.split())
    return ParseExample(ident, words, tree="(S " + " ".join(f"(X {w})" for w in words) + ")")


TOY = [example("a", "the cat sat on the mat ."), example("b", "a dog barked at the cat ."),
       example("c", "stocks fell sharply on monday ."), example("d", "the cat sat on the mat ."),
       example("e", "the mat was red ."), example("f", "dogs and cats sat together on a mat ."),
       example("g", "nothing in common here ."), example("h", "markets rallied on friday .")]


@cache
def gum_retriever() -> Retriever:
    return Retriever(split("gum", "high").train)


@cache
def ewt_retriever() -> Retriever:
    return Retriever(split("ewt", "high").train)


def test_best_match_last_and_in_score_order():
    retriever = ewt_retriever()
    query = load("ewt")["test"][7]
    chosen = retriever.select(query, k=20)
    assert len(chosen) == 20
    scores = retriever.scores(query.words)
    position = {e.id: i for i, e in enumerate(retriever.examples)}
    got = [float(scores[position[e.id]]) for e in chosen]
    assert got == sorted(got)  # ascending: the best last
    best = float(np.max(scores))
    assert got[-1] == best
    assert len([s for s in scores if s > got[0]]) <= 20  # nothing better was left out


def test_toy_ranking_is_deterministic_and_best_last():
    retriever = Retriever(TOY)
    chosen = retriever.select(["the", "cat", "sat", "on", "the", "mat", "."], k=3)
    assert [e.id for e in chosen][-2:] == ["d", "a"]  # both exact; the earlier one is the best, so last
    assert retriever.select(["the", "cat", "sat", "on", "the", "mat", "."], k=3) == chosen


def test_ties_keep_the_examples_order():
    retriever = Retriever(TOY)
    # no query word is indexed: every score is 0, so the order of the examples decides, best (first) last
    assert [e.id for e in retriever.select(["zzz", "qqq"], k=4)] == ["d", "c", "b", "a"]
    assert [e.id for e in retriever.select([], k=2)] == ["b", "a"]


def test_the_query_is_never_its_own_example():
    retriever = Retriever(TOY)
    assert "a" not in {e.id for e in retriever.select(TOY[0], k=8)}
    assert [e.id for e in retriever.select(TOY[0], k=1)] == ["d"]  # its duplicate, not itself
    assert "d" not in {e.id for e in retriever.select(TOY[0].words, k=8, exclude_id="d")}
    gum = gum_retriever()
    for query in gum.examples[:50]:
        assert query.id not in {e.id for e in gum.select(query, k=20)}


def test_an_exact_duplicate_is_the_best_match():
    retriever = ewt_retriever()
    seen: dict[tuple[str, ...], ParseExample] = {}
    pairs = []
    for e in retriever.examples:
        if e.words in seen and len(e.words) >= 6:
            pairs.append((seen[e.words], e))
        seen.setdefault(e.words, e)
    assert len(pairs) > 50
    for first, second in pairs[:50]:
        chosen = retriever.select(second, k=20)
        assert chosen[-1].words == second.words and chosen[-1].id == first.id  # the earliest duplicate
    # a short duplicate that BM25 alone might not rank first (a longer sentence may share its rare words)
    toy = Retriever([example("x", "yes yes yes ok"), example("y", "ok"), example("z", "yes ok")])
    assert toy.select(["yes", "ok"], k=3)[-1].id == "z"


def test_budget_drops_the_weakest_first():
    retriever = Retriever(TOY)
    everything = retriever.select(TOY[4], k=7)
    sizes = [words_count(render_words(e)) for e in everything]
    budget = sum(sizes[-3:])  # room for exactly the three best
    kept = retriever.select(TOY[4], k=7, budget_tokens=budget, count_tokens=words_count)
    assert kept == everything[-3:]
    assert retriever.select(TOY[4], k=7, budget_tokens=0, count_tokens=words_count) == []
    with pytest.raises(ValueError, match="count_tokens"):
        retriever.select(TOY[4], budget_tokens=10)
    assert retriever.select(TOY[4], k=0) == []


def test_a_custom_render_is_what_is_measured():
    retriever = Retriever(TOY)
    kept = retriever.select(TOY[0], k=5, budget_tokens=3, count_tokens=len, render=lambda e: e.id)
    assert len(kept) == 3


@settings(max_examples=60)
@given(budget=st.integers(min_value=0, max_value=1500), k=st.integers(min_value=0, max_value=25),
       at=st.integers(min_value=0, max_value=490))
def test_the_budget_is_never_exceeded(budget, k, at):
    retriever = gum_retriever()
    query = load("gum")["test"][at]
    full = retriever.select(query, k=k)
    kept = retriever.select(query, k=k, budget_tokens=budget, count_tokens=words_count)
    total = sum(words_count(render_words(e)) for e in kept)
    assert total <= budget
    assert kept == full[len(full) - len(kept):]  # the best ones, the weakest dropped
    if len(kept) < len(full):  # the next weaker one would not have fit
        assert total + words_count(render_words(full[len(full) - len(kept) - 1])) > budget


def test_any_example_with_an_id_and_words_is_retrieved():
    e = load("ewt")["train"][0]
    assert isinstance(e, Example) and not isinstance(e.words, Example)
    assert render_words(e).startswith("Al - Zaman :")
    questions = [Question("q1", ("how", "many", "singers")), Question("q2", ("list", "all", "stadiums"))]
    assert Retriever(questions).select(Question("q3", ("how", "many", "stadiums")), k=1)[0].id in {"q1", "q2"}
    assert Retriever(questions).select(Question("q1", ("how", "many", "singers")), k=2) == [questions[1]]


@dataclass(frozen=True)
class Question:
    id: str
    words: tuple[str, ...]


def test_an_empty_retriever_is_refused():
    with pytest.raises(ValueError):
        Retriever([])


@pytest.mark.model
def test_the_dense_retriever_ranks_by_the_bundled_models_embeddings():
    pool = [example("cat", "the cat sat on the mat ."), example("stocks", "stock markets fell sharply on monday ."),
            example("dup", "a small cat was sitting on a mat ."), example("rain", "heavy rain is expected tomorrow .")]
    dense = Retriever(pool, method="dense")
    chosen = dense.select(["a", "small", "cat", "was", "sitting", "on", "a", "mat", "."], k=3)
    assert [e.id for e in chosen][-1] == "dup"  # the exact duplicate, last (nearest the input)
    assert [e.id for e in chosen][-2] == "cat"  # then the paraphrase, above the unrelated sentences
    scores = dense.scores(["the", "cat", "sat", "on", "the", "mat", "."])
    assert scores[0] == pytest.approx(1.0, abs=1e-4) and scores[0] > scores[1]
    with pytest.raises(ValueError, match="unknown retrieval method"):
        Retriever(pool, method="sparse")
