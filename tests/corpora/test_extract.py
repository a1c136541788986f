"""Extraction from real text: holes filled from the checker's observations, candidates swept, every example passes
its own constraint, seeded bottom-k sampling independent of chunk order."""

from __future__ import annotations

import itertools
import random

import pytest

from corral.corpora import Pipeline, chunks, default_corpus
from corral.corpora._extract import StructureError, extract, fill, parse_structure
from corral.text import segment


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
        assert 10 <= e.values["n"] <= 19 and e.constraint.check(e.example).passed
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
