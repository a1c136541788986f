"""FormatBench quality metrics against hand-computed values and the libraries they follow."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from corral.evaluation import SampleRecord, aggregate_quality
from corral.metrics import normalize_squad, squad_f1
from corral.suites.formatbench import (
    acrow_quality,
    breaks,
    capseg_quality,
    eqa_quality,
    labelled_brackets,
    mcq_quality,
    mtt_quality,
    ner_quality,
    parse_quality,
    tagged_entities,
)


def records(task_quality, instance, answers):
    return [SampleRecord(instance=str(i), sample=0, round=0, passed=True, score=1.0, messages=[], output=a, answer=a,
                         quality=task_quality(instance, a)) for i, a in enumerate(answers)]


def test_squad_normalisation_and_f1_hand_computed():
    assert normalize_squad("The  Cat, sat!") == "cat sat"
    assert normalize_squad("an apple a day") == "apple day"
    assert squad_f1("the cat sat", "cat") == pytest.approx(2 * (1 / 2) * 1 / (1 / 2 + 1))  # p 1/2, r 1
    assert squad_f1("dog", "cat") == 0.0
    assert squad_f1("The", "a") == 1.0  # both normalise to nothing
    q = eqa_quality({"gold": "New York City", "answers": ["New York City", "NYC"]}, "new york")
    assert q["eqa_f1"] == pytest.approx(0.8) and q["eqa_exact"] == 0.0
    assert eqa_quality({"gold": "NYC", "answers": ["New York City", "NYC"]}, "nyc.")["eqa_exact"] == 1.0


def test_mcq_and_acrow():
    assert mcq_quality({"gold": "NN"}, " NN ") == {"mcq_accuracy": 1.0}
    assert mcq_quality({"gold": "NN"}, "nn") == {"mcq_accuracy": 0.0}
    # s e a w i n d against S E A w N I: the first four match, then i/n and n/i do not, d has no line
    assert acrow_quality({"target": "sea-wind"}, "Sun\nÉbb\n'And\nwhy\nNo\nIce") == {"acrow_letters": 4 / 7}


def test_ner_bag_of_entities_micro_f1():
    gold = {"gold": "<PER>Ann Lee</PER> met <PER>Bo</PER> in <LOC>Oslo</LOC> .",
            "entities": [["PER", "Ann Lee"], ["PER", "Bo"], ["LOC", "Oslo"]]}
    assert tagged_entities("<PER>Ann  Lee</PER> x </LOC>y<LOC>z <ORG></ORG>") == {("PER", "Ann Lee"): 1}
    answers = ["<PER>Ann Lee</PER> met <PER>Bo</PER> in <LOC>Oslo</LOC> .",  # tp 3
               "<PER>Ann</PER> Lee met <ORG>Bo</ORG> in <LOC>Oslo</LOC> ."]  # tp 1, fp 2, fn 2
    got = aggregate_quality(records(ner_quality, gold, answers))
    assert got == {"ner_f1": pytest.approx(2 * 4 / (2 * 4 + 2 + 2))}


def test_parse_labelled_brackets_evalb_style():
    gold = "(ROOT (S (NP-SBJ (DT The) (NN cat)) (VP (VBD sat) (PP (IN on) (NP (DT a) (NN mat)))) (. .)))"
    assert labelled_brackets(gold) == {("S", 0, 7): 1, ("NP", 0, 2): 1, ("VP", 2, 6): 1, ("PP", 3, 6): 1,
                                       ("NP", 4, 6): 1}
    flat = "(S (NP (DT The) (NN cat)) (VBD sat) (IN on) (DT a) (NN mat) (. .))"  # 2 of 5 gold, no false ones
    assert aggregate_quality(records(parse_quality, {"gold": gold}, [flat])) == {"parse_f1": pytest.approx(4 / 7)}
    assert labelled_brackets("(S (NP") is None
    assert aggregate_quality(records(parse_quality, {"gold": gold}, ["not a tree"]))["parse_f1"] == 0.0


def test_capseg_break_f1():
    gold = "Call me <eol> Ishmael. <eob> Some years ago <eob>"
    assert breaks(gold) == {(2, "<eol>"): 1, (3, "<eob>"): 1, (6, "<eob>"): 1}
    answer = "Call me Ishmael. <eob> Some years <eol> ago <eob>"  # tp 2 (<eob> at 3 and 6), fp 1, fn 1
    got = aggregate_quality(records(capseg_quality, {"gold": gold}, [answer]))
    assert got == {"capseg_f1": pytest.approx(2 * 2 / (2 * 2 + 1 + 1))}


def test_mtt_corpus_bleu_equals_sacrebleu():
    from sacrebleu.metrics.bleu import BLEU

    pairs = [("The doctor prescribed an analgesic.", "The physician prescribed an analgesic."),
             ("Save the files on the computer", "Save the files on the computer."),
             ("Nothing to see", "The vehicle stopped at the border crossing.")]
    recs = [r for hyp, ref in pairs for r in records(mtt_quality, {"gold": ref}, [hyp])]
    want = BLEU().corpus_score([h for h, _ in pairs], [[r for _, r in pairs]]).score
    assert aggregate_quality(recs)["mtt_bleu"] == pytest.approx(want)


@given(st.text(max_size=400))
def test_metrics_never_raise_on_any_answer(answer):
    instance = {"gold": "(S (NP (NN a)) (VP (VB b)))", "answers": ["a b"], "entities": [["PER", "a"]],
                "target": "ab", "references": ["a b c"]}
    for metric in (mcq_quality, eqa_quality, ner_quality, parse_quality, acrow_quality, mtt_quality):
        values = metric(instance, answer)
        assert all(isinstance(v, float) for v in values.values())
    assert capseg_quality({"gold": "a <eob>"}, answer)
