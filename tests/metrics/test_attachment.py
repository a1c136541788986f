"""BenchCLAMP's dependency forms and LAS/UAS: the paper's example, awkward tokens, generated parses, and LAS/UAS
from the written forms against a direct count over UD English EWT's CoNLL-U."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from corral.metrics import (
    attachment_stats,
    read_indexed,
    read_triples,
    round_trip_rate,
    write_indexed,
    write_triples,
)
from corral.registry import lookup, quality_aggregates

EWT = Path("/work/shared/data/ud_english_ewt")
WORDS = ["Read", "some", "of", "the", "following", "links"]
HEADS = [0, 1, 6, 6, 6, 2]
RELATIONS = ["root", "obj", "case", "det", "amod", "nmod"]


def test_the_papers_example_in_both_forms():
    triples = write_triples(WORDS, HEADS, RELATIONS)
    assert triples == "(Read, root, root) (some, obj, Read) (of, case, links) (the, det, links) " \
                      "(following, amod, links) (links, nmod, some)"
    indexed = write_indexed(WORDS, HEADS, RELATIONS)
    assert indexed == "(1-Read, root, 0) (2-some, obj, 1) (3-of, case, 6) (4-the, det, 6) (5-following, amod, 6) " \
                      "(6-links, nmod, 2)"
    assert read_triples(triples, WORDS) == read_indexed(indexed, WORDS) == (HEADS, RELATIONS)
    assert read_triples("\n " + triples + "\n", WORDS) == (HEADS, RELATIONS)  # outer whitespace ignored


def test_awkward_tokens_round_trip():
    words = [",", "(", ")", "'s", "root", "a, b", "(x)"]
    heads = [2, 0, 1, 5, 3, 2, 6]
    relations = ["punct", "root", "dep", "case", "nmod:poss", "appos", "obj"]
    assert read_indexed(write_indexed(words, heads, relations), words) == (heads, relations)
    text = write_triples(words, heads, relations)
    assert text == "(,, punct, () ((, root, root) (), dep, ,) ('s, case, root) (root, nmod:poss, )) " \
                   "(a, b, appos, () ((x), obj, a, b)"
    assert read_triples(text, words) == (heads, relations)
    # a head written root: the root when the relation is root or no other word is root, else the nearest word root
    assert read_triples("(root, nsubj, root) (x, root, root)", ["root", "x"]) == ([0, 0], ["nsubj", "root"])
    assert read_triples("(a, dep, root) (root, root, root)", ["a", "root"]) == ([2, 0], ["dep", "root"])


def test_nearest_mention_with_ties_to_the_earlier_and_never_itself():
    words = ["the", "x", "the", "y", "the"]
    assert read_triples("(the, det, y) (x, dep, the) (the, root, root) (y, dep, the) (the, dep, the)", words) == \
        ([4, 1, 0, 3, 3], ["det", "dep", "root", "dep", "dep"])  # x: 'the' at 1 and 3 tie -> 1; 5: nearest other is 3


def test_malformed_texts_read_as_none():
    good = write_indexed(WORDS, HEADS, RELATIONS)
    bad = [good.replace("(3-of", "(3-off"), good.replace(") (", ")  ("), good.replace("nmod", "nm od"),
           good.replace(", 2)", ", 7)"), good.replace(", 2)", ", 02)"), good + " (7-x, dep, 1)", good[:-1], "", "()"]
    for text in bad:
        assert read_indexed(text, WORDS) is None, text
    triples = write_triples(WORDS, HEADS, RELATIONS)
    for text in (triples.replace("some)", "sum)"), triples.replace("(the,", "(a,"), triples[:-20], "", "(Read)"):
        assert read_triples(text, WORDS) is None, text
    assert read_triples("", []) == ([], []) == read_indexed(" ", [])
    with pytest.raises(ValueError):
        write_triples(["a"], [0], ["has space"])
    with pytest.raises(ValueError):
        write_indexed(["a"], [2], ["root"])


AWKWARD = st.sampled_from([",", "(", ")", "'s", "root", ", ", "a, b", ") (", "(1-x, y, 0)", "0)", " "])
WORD = st.one_of(AWKWARD, st.text(alphabet="ab(), -'0", min_size=1, max_size=5))
RELATION = st.text(alphabet="abcnmod:_", min_size=1, max_size=6)


@st.composite
def parses(draw):
    words = draw(st.lists(WORD, max_size=12))
    heads = draw(st.lists(st.integers(0, len(words)), min_size=len(words), max_size=len(words)))
    relations = draw(st.lists(RELATION, min_size=len(words), max_size=len(words)))
    return words, heads, relations


@given(parses())
def test_indexed_form_round_trips_any_parse(parse):
    words, heads, relations = parse
    assert read_indexed(write_indexed(words, heads, relations), words) == (heads, relations)
    assert read_indexed(write_indexed(words, heads, relations), [*words, "z"]) is None


@given(parses())
def test_triples_form_always_reads_back_with_the_relations(parse):
    words, heads, relations = parse
    back = read_triples(write_triples(words, heads, relations), words)
    assert back is not None and back[1] == relations
    # every head resolves to a word of the same text as the one written (or the root)
    for head, back_head in zip(heads, back[0], strict=True):
        assert (words[head - 1] if head else "root") == (words[back_head - 1] if back_head else "root")


# ------------------------------------------------------------------------------------------------ LAS / UAS
def ewt(split: str) -> list[list[dict]]:
    import conllu

    text = (EWT / f"en_ewt-ud-{split}.conllu").read_text(encoding="utf-8")
    return [[token for token in sentence if isinstance(token["id"], int)] for sentence in conllu.parse(text)]


def test_unreadable_prediction_scores_zero_but_counts_the_gold():
    stats = attachment_stats("dep", read_indexed("not a parse", WORDS), (HEADS, RELATIONS))
    assert stats == {"dep_las@ratio:correct": 0.0, "dep_las@ratio:total": 6.0,
                     "dep_uas@ratio:correct": 0.0, "dep_uas@ratio:total": 6.0}
    assert attachment_stats("dep", ([0], ["root"]), (HEADS, RELATIONS))["dep_uas@ratio:total"] == 6.0


def test_subtypes_are_compared_whole():
    stats = attachment_stats("dep", ([2, 0], ["nmod", "root"]), ([2, 0], ["nmod:poss", "root"]))
    assert (stats["dep_las@ratio:correct"], stats["dep_uas@ratio:correct"]) == (1.0, 2.0)


def test_las_uas_from_the_forms_equal_a_direct_count_over_ewt():
    """Perturbed gold parses of EWT dev, written in both forms and read back, scored by ``attachment_stats`` and the
    registered ``ratio`` aggregate; against counts made straight from the CoNLL-U token lists (multiword-token
    lines and empty nodes skipped)."""
    rng = random.Random(11)
    sentences = [s for s in ewt("dev") if len(s) >= 3][:200]
    relations = sorted({token["deprel"] for sentence in sentences for token in sentence})
    summed = {"indexed": Counter(), "triples": Counter()}
    direct = Counter()
    for sentence in sentences:
        words = [token["form"] for token in sentence]
        gold = ([token["head"] for token in sentence], [token["deprel"] for token in sentence])
        heads, rels = list(gold[0]), list(gold[1])
        for i in range(len(words)):
            if rng.random() < 0.15:
                heads[i] = rng.randint(0, len(words))
            if rng.random() < 0.15:
                rels[i] = rng.choice(relations)
        for token, head, rel in zip(sentence, heads, rels, strict=True):
            direct["uas"] += token["head"] == head
            direct["las"] += token["head"] == head and token["deprel"] == rel
            direct["total"] += 1
        summed["indexed"].update(attachment_stats("d", read_indexed(write_indexed(words, heads, rels), words), gold))
        back = read_triples(write_triples(words, heads, rels), words)
        summed["triples"].update(attachment_stats("d", back, gold))
    aggregate = lookup(quality_aggregates, "ratio", "quality aggregate")

    def score(stats: Counter, kind: str) -> float:
        return aggregate({key.split(":")[1]: value for key, value in stats.items() if key.startswith(f"d_{kind}@")})

    las, uas = direct["las"] / direct["total"], direct["uas"] / direct["total"]
    assert round(score(summed["indexed"], "las"), 4) == round(las, 4)
    assert round(score(summed["indexed"], "uas"), 4) == round(uas, 4)
    assert 0.6 < las < uas < 0.95
    # the lossy form loses a little: a repeated head word read as its nearest mention
    assert uas - 0.05 < score(summed["triples"], "uas") <= uas + 0.05


def test_round_trip_rate_on_ewt_is_near_the_papers_95_7():
    examples = [([t["form"] for t in s], [t["head"] for t in s], [t["deprel"] for t in s]) for s in ewt("test")]
    rate = round_trip_rate(examples)
    assert round(rate, 4) == 0.9576  # BenchCLAMP reports 95.7% on the test set
    assert round_trip_rate([(WORDS, HEADS, RELATIONS)]) == 1.0
    with pytest.raises(ValueError):
        round_trip_rate([])


def test_records_aggregate_to_micro_las_uas_and_bracket_f1():
    """The keys follow ``metric@aggregate:stat``: ``corral.evaluation`` sums them over records and applies the
    registered aggregates (``ratio``, ``micro_f1``)."""
    from corral.evaluation import SampleRecord, aggregate_quality
    from corral.metrics import bracket_stats

    gold = (HEADS, RELATIONS)
    qualities = [attachment_stats("dep", ([0, 1, 6, 6, 6, 1], RELATIONS), gold),  # 5/6 both
                 attachment_stats("dep", None, ([0], ["root"])),  # 0/1
                 attachment_stats("dep", ([2, 0], ["dep", "root"]), ([2, 0], ["nsubj", "root"]))]  # las 1/2, uas 2/2
    qualities[0] |= bracket_stats("con", "(S (NP (NN a)) (VP (VB b)))", "(S (NP (NN a)) (VP (VB b)))")
    qualities[1] |= bracket_stats("con", "(S (NN a) (VP (VB b)))", "(S (NP (NN a)) (VP (VB b)))")
    records = [SampleRecord(instance=str(i), sample=0, round=0, passed=True, score=1.0, messages=[], output="",
                            answer="", quality=quality) for i, quality in enumerate(qualities)]
    assert aggregate_quality(records) == {"dep_las": pytest.approx(6 / 9), "dep_uas": pytest.approx(7 / 9),
                                          "con": pytest.approx(2 * 5 / (2 * 5 + 0 + 1))}
