"""Extraction from real text: holes filled from the checker's observations, candidates swept, every example passes
its own constraint, seeded bottom-k sampling independent of chunk order."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corral.constraints import check
from corral.corpora import (
    Chunk,
    Pipeline,
    StructureError,
    chunks,
    default_corpus,
    extract,
    fill,
    parse_structure,
    recipe,
)
from corral.text import Level, segment


@pytest.fixture(scope="module")
def sentences():
    docs = list(itertools.islice(default_corpus(), 20))
    return list(Pipeline().run(c for d in docs for c in chunks(d, "sentence", "collie-v1")))


def test_holes_are_typed_by_their_place():
    s = parse_structure("[collie-v1] sentence: count(text, word, ?w) == 0 and count(text, word, sentence) == ?n")
    assert set(s.numbers) == {"n"} and set(s.strings) == {"w"}
    c = fill(s, {"n": 12, "w": "the"})
    assert str(c) == "[collie-v1] sentence: count(text, word, 'the') == 0 and count(text, word, sentence) == 12"
    with pytest.raises(StructureError, match="no holes"):
        parse_structure("sentence: count(text, word) == 3")


def test_values_come_from_the_text_and_every_example_passes(sentences):
    s = parse_structure("[collie-v1] sentence: count(text, word, sentence) == ?n and pos(text, word, 3) == ?w")
    out = extract(s, sentences, ranges={"n": (10, 19)}, per_structure=20, seed=0)
    assert len(out) == 20
    for e in out:
        assert 10 <= e.values["n"] <= 19 and check(e.constraint, e.example).passed
        words = [u.text for u in segment(e.example, "word", "collie-v1")]
        assert words[2] == e.values["w"] and len(words) == e.values["n"]


def test_absent_words_are_swept_over_candidates(sentences):
    s = parse_structure("[collie-v1] sentence: count(text, word, ?w) == 0 and count(text, word, sentence) >= ?n")
    out = extract(s, sentences, ranges={"n": (12, 40)}, candidates={"w": ["the", "and", "of"]}, per_structure=10)
    assert out and {e.values["w"] for e in out} <= {"the", "and", "of"}
    assert all(f" {e.values['w']} " not in f" {e.example.lower()} " for e in out)
    with pytest.raises(StructureError, match=r"\?w cannot be read from text"):
        extract(s, sentences, per_structure=3)


def test_same_seed_same_instances_in_any_chunk_order(sentences):
    s = parse_structure("[collie-v1] sentence: count(text, word, sentence) == ?n")
    first = extract(s, sentences, per_structure=15, seed=7)
    shuffled = list(sentences)
    random.Random(1).shuffle(shuffled)
    assert extract(s, shuffled, per_structure=15, seed=7) == first
    assert extract(s, sentences, per_structure=15, seed=8) != first


def test_bad_ranges_and_unknown_holes():
    s = parse_structure("sentence: count(text, word, sentence) == ?n")
    with pytest.raises(StructureError, match=r"range of \?n is empty: 19\.\.10"):
        extract(s, [], ranges={"n": (19, 10)})
    with pytest.raises(StructureError, match=r"\?m is not a hole"):
        extract(s, [], ranges={"m": (1, 2)})


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=60), st.integers(1, 12), st.integers(0, 5))
def test_bottom_k_of_any_split_merges_to_the_whole(parts, k, seed):
    """The sample of a corpus split into parts, merged, is the sample of the whole: engines may split freely."""
    from corral.corpora import BuildPlan, BuildState, Document, process

    words = ["alpha", "beta", "gamma", "delta"]
    docs = [Document(f"d{i}", " ".join(words[: p + 1]).capitalize() + ". " + "Then it rained hard today. " * (p + 1),
                     "t") for i, p in enumerate(parts)]
    plan = BuildPlan((recipe("[collie-v1] sentence: count(text, word, sentence) == ?n", name="s"),),
                     per_structure=k, seed=seed)
    whole = BuildState.empty(plan)
    process(plan, docs, whole)
    merged = BuildState.empty(plan)
    cuts = sorted({(i * 7 + seed) % len(docs) for i in range(len(parts) % 4)})
    for start, end in zip([0, *cuts], [*cuts, len(docs)], strict=True):
        piece = BuildState.empty(plan)
        process(plan, docs[start:end], piece)
        merged.merge(piece)
    assert merged.samples["s"].items() == whole.samples["s"].items()
    assert merged.chunks == whole.chunks and merged.filters["sentence"].seen == whole.filters["sentence"].seen


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["cat", "river", "stone", "blue", "walks", "under", "a", "the"]), min_size=3,
                max_size=25), st.integers(1, 3))
def test_observed_values_are_the_segmentation_and_the_example_passes(words, position):
    text = " ".join(words).capitalize() + "."
    s = parse_structure("[collie-v1] sentence: count(text, word, sentence) == ?n and "
                        f"pos(text, word, {position}) == ?w")
    chunk = Chunk("doc", 0, Level.SENTENCE, text)
    found = extract(s, [chunk], per_structure=1)
    units = [u.text for u in segment(text, "word", "collie-v1")]
    assert len(found) == 1
    assert found[0].values == {"n": len(units), "w": units[position - 1]}
    assert check(found[0].constraint, text).passed
