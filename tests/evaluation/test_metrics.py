"""pass@k against hand-computed values and the exact formula; summaries of small hand-built runs."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from corral.evaluation import Rate, RunConfig, SampleRecord, SamplingConfig, ZeroQuality, pass_at_k, summarize


def record(instance: str, sample: int, round_: int, passed: bool, **fields) -> SampleRecord:
    """A record with only what a test sets; the answer is non-blank unless given."""
    fields.setdefault("answer", "some text")
    fields.setdefault("score", 1.0 if passed else 0.0)
    return SampleRecord(instance=instance, sample=sample, round=round_, passed=passed, messages=[],
                        output=fields["answer"], **fields)


# --- pass@k -------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("n", "c", "k", "expected"), [
    (5, 2, 1, 0.4),
    (5, 2, 2, 1 - 3 / 10),  # 1 - C(3, 2) / C(5, 2)
    (10, 3, 5, 1 - 21 / 252),  # 1 - C(7, 5) / C(10, 5)
    (10, 3, 1, 0.3),
    (4, 0, 4, 0.0),  # n = k: no pass means 0 ...
    (4, 1, 4, 1.0),  # ... any pass means 1
    (4, 3, 4, 1.0),
    (1, 0, 1, 0.0),
    (1, 1, 1, 1.0),
    (7, 5, 3, 1.0),  # n - c < k
])
def test_pass_at_k_hand_computed(n, c, k, expected):
    assert pass_at_k(n, c, k) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("k", range(1, 9))
def test_pass_at_k_all_fail_or_all_pass(k):
    assert pass_at_k(8, 0, k) == 0.0
    assert pass_at_k(8, 8, k) == 1.0


@pytest.mark.parametrize(("n", "c", "k"), [(5, 2, 6), (5, 2, 0), (5, 6, 1), (-1, 0, 1), (5, -1, 1), (5, 2, -1),
                                           (0, 0, 1)])
def test_pass_at_k_rejects_invalid_inputs(n, c, k):
    with pytest.raises(ValueError, match="pass_at_k"):
        pass_at_k(n, c, k)


def exact(n: int, c: int, k: int) -> Fraction:
    return 1 - Fraction(math.comb(n - c, k), math.comb(n, k))


@st.composite
def nck(draw):
    n = draw(st.integers(1, 60))
    return n, draw(st.integers(0, n)), draw(st.integers(1, n))


@given(nck())
def test_pass_at_k_is_the_combinatorial_formula(args):
    n, c, k = args
    assert pass_at_k(n, c, k) == pytest.approx(float(exact(n, c, k)), abs=1e-9)


@given(nck())
def test_pass_at_k_is_monotone_in_k_and_c(args):
    n, c, k = args
    value = pass_at_k(n, c, k)
    assert 0.0 <= value <= 1.0
    if k < n:
        assert pass_at_k(n, c, k + 1) >= value
    if c < n:
        assert pass_at_k(n, c + 1, k) >= value


# --- summarize ----------------------------------------------------------------------------------------------------

CONFIG = RunConfig(task="collie", task_version="1", model="m", backend="b", decoding="constrained", samples=2,
                   rounds=1, instances=["a", "b", "c"]).with_hash()
WIKI1 = {"structure": "sent01", "source": "wiki"}
NEWS1 = {"structure": "sent01", "source": "news"}
WIKI2 = {"structure": "para02", "source": "wiki"}


def test_an_smc_runs_label_names_its_temperature_unless_it_is_the_models_own() -> None:
    def label(temperature: float) -> str:
        return RunConfig(task="collie", task_version="1", model="m", backend="llamacpp", decoding="constrained",
                         strategy="smc", particles=4, sampling=SamplingConfig(temperature=temperature)).label

    assert label(0.3) == "m (constrained, smc K=4 T=0.3)"
    assert label(0.0) == label(1.0) == "m (constrained, smc K=4)"  # greedy runs' SMC samples at T 1



def run_records() -> list[SampleRecord]:
    """a: 1 of 2 first attempts pass, the other after feedback; b: none pass first, one after feedback;
    c: both pass first. Plus records outside the run's extent, which must not count."""
    return [
        record("a", 0, 0, True, groups=WIKI1, quality={"fluency": 0.2}, prompt_tokens=10, completion_tokens=5,
               seconds=1.5),
        record("a", 1, 0, False, groups=WIKI1, score=0.5, quality={"fluency": 0.4}, decoding="free-fallback",
               cached=True),
        record("a", 1, 1, True, groups=WIKI1, decoding="constrained", prompt_tokens=20, seconds=0.5),
        record("b", 0, 0, False, groups=NEWS1, answer="  ", finish_reason="length", completion_tokens=7),
        record("b", 0, 1, False, groups=NEWS1),
        record("b", 1, 0, False, groups=NEWS1),
        record("b", 1, 1, True, groups=NEWS1),
        record("c", 0, 0, True, groups=WIKI2),
        record("c", 1, 0, True, groups=WIKI2),
        # outside the run: an unselected instance, a third sample, a second feedback round
        record("z", 0, 0, True, groups={"structure": "other"}),
        record("a", 2, 0, True, groups=WIKI1),
        record("b", 0, 2, True, groups=NEWS1),
    ]


def test_summary_success_and_standard_error_by_hand():
    s = summarize(CONFIG, run_records()).to_json()
    # per-instance first-attempt rates 0.5, 0, 1: mean 0.5, sample std 0.5
    assert s["success"] == pytest.approx({"value": 0.5, "se": 0.5 / math.sqrt(3), "n": 3})
    assert s["pass_at_k"] == pytest.approx({"1": 0.5, "2": 2 / 3})
    assert s["mean_score"] == pytest.approx((1 + 0.5 + 0 + 0 + 1 + 1) / 6)
    assert s["quality"] == pytest.approx({"fluency": 0.3})
    assert (s["task"], s["model"], s["decoding"], s["label"]) == ("collie", "m", "constrained", "m (constrained)")
    assert (s["samples"], s["rounds"], s["instances"], s["hash"]) == (2, 1, 3, CONFIG.hash)
    assert s["complete"] is True


def test_summary_by_group_sorted():
    s = summarize(CONFIG, run_records()).to_json()
    assert list(s["by_group"]) == ["source", "structure"]
    assert list(s["by_group"]["structure"]) == ["para02", "sent01"]
    assert s["by_group"]["structure"]["sent01"] == pytest.approx({"value": 0.25, "se": 0.25, "n": 2})
    assert s["by_group"]["structure"]["para02"] == {"value": 1.0, "se": 0.0, "n": 1}
    assert s["by_group"]["source"]["news"] == {"value": 0.0, "se": 0.0, "n": 1}
    assert s["by_group"]["source"]["wiki"] == pytest.approx({"value": 0.75, "se": 0.25, "n": 2})
    assert "other" not in s["by_group"]["structure"]


def test_summary_by_round_is_cumulative():
    s = summarize(CONFIG, run_records()).to_json()
    assert [row["round"] for row in s["by_round"]] == [0, 1]
    # quality by round: each sample's latest answer; a/1's round-1 answer has no fluency, so only a/0's counts
    assert [row.pop("quality") for row in s["by_round"]] == [pytest.approx({"fluency": 0.3}), {"fluency": 0.2}]
    assert s["by_round"][0] == pytest.approx({"round": 0, "value": 0.5, "se": 0.5 / math.sqrt(3), "n": 3})
    # after feedback: a 2/2, b 1/2, c 2/2 -> rates 1, 0.5, 1
    se = math.sqrt(((1 / 6) ** 2 * 2 + (1 / 3) ** 2) / 2) / math.sqrt(3)
    assert s["by_round"][1] == pytest.approx({"round": 1, "value": 5 / 6, "se": se, "n": 3})
    assert s["final_success"] == pytest.approx({"value": 5 / 6, "se": se, "n": 3})


def test_summary_counts_tokens_and_decoding():
    s = summarize(CONFIG, run_records()).to_json()
    assert s["counts"] == {"records": 9, "empty": 1, "truncated": 1, "errors": 0, "cached": 1, "missing": 0,
                           "context": 0, "repeated": 0, "closed": 0, "undecided": 0, "replaced": 0,
                           "closed_passed": 0, "closing_changed_verdict": 0, "appended_chars": 0,
                           "appended_chars_max": 0, "closed_unjudged": 0}
    assert s["sample_decoding"] == {"free": 5, "constrained": 0, "free-fallback": 1}
    assert s["tokens"] == {"prompt": 30, "completion": 12}
    assert s["seconds"] == pytest.approx(2.0)


def test_missing_first_attempts_exclude_the_instance_and_make_the_run_incomplete():
    records = [r for r in run_records() if r.key != ("c", 1, 0)]
    s = summarize(CONFIG, records).to_json()
    assert s["counts"]["missing"] == 1
    assert s["complete"] is False
    assert s["success"] == pytest.approx({"value": 0.25, "se": 0.25, "n": 2})
    assert "para02" not in s["by_group"]["structure"]


def test_unfinished_feedback_chain_is_incomplete_and_unknown_after_round_0():
    records = [r for r in run_records() if r.key != ("b", 0, 1)]
    s = summarize(CONFIG, records).to_json()
    assert s["counts"]["missing"] == 0
    assert s["complete"] is False
    assert s["success"]["n"] == 3
    s["by_round"][1].pop("quality")
    assert s["by_round"][1] == pytest.approx({"round": 1, "value": 1.0, "se": 0.0, "n": 2})  # b is not known yet


def test_error_records_count_and_make_the_run_incomplete():
    records = [*run_records(), record("c", 1, 0, False, groups=WIKI2, finish_reason="error", error="boom")]
    s = summarize(CONFIG, records).to_json()
    assert s["counts"]["errors"] == 1
    assert s["complete"] is False
    # the later record for (c, 1, 0) replaces the earlier one: c now 1 of 2 with no feedback round yet
    assert s["counts"]["records"] == 9
    assert s["success"]["value"] == pytest.approx((0.5 + 0 + 0.5) / 3)


def test_a_single_instance_has_zero_standard_error_and_no_records_give_zeros():
    one = CONFIG.model_copy(update={"instances": ["c"]})
    assert summarize(one, run_records()).success == Rate(value=1.0, se=0.0, n=1)
    empty = summarize(CONFIG, []).to_json()
    assert empty["success"] == {"value": 0.0, "se": 0.0, "n": 0}
    assert empty["counts"]["missing"] == 6
    assert empty["complete"] is False
    assert empty["by_group"] == {} and empty["quality"] == {}


# --- refinement stops and quality aggregation ----------------------------------------------------------------------

def test_a_repeated_answer_ends_the_chain_only_when_the_run_stops_on_repeats():
    chain = [record("a", 0, 0, False, answer="x"), record("a", 0, 1, False, answer="x", repeated=True)]
    config = RunConfig(task="t", task_version="1", model="m", backend="llamacpp", rounds=3, instances=["a"])
    assert not summarize(config, chain).complete  # rounds 2 and 3 are still due
    stopping = config.model_copy(update={"stop_on_repeat": True})
    s = summarize(stopping, chain).to_json()
    assert s["complete"] and s["counts"]["repeated"] == 1
    assert [row["value"] for row in s["by_round"]] == [0.0, 0.0, 0.0, 0.0]  # known: never solved


def test_a_prompt_beyond_the_context_ends_the_chain():
    chain = [record("a", 0, 0, False), record("a", 0, 1, False, answer="", finish_reason="context")]
    config = RunConfig(task="t", task_version="1", model="m", backend="llamacpp", rounds=5, instances=["a"])
    s = summarize(config, chain).to_json()
    assert s["complete"] and s["counts"]["context"] == 1 and s["final_success"]["value"] == 0.0


def test_new_config_fields_keep_old_hashes_and_change_when_set():
    config = RunConfig(task="t", task_version="1", model="m", backend="llamacpp")
    assert set(config.identity()) == {"task", "task_version", "model", "backend", "base_url", "decoding",
                                      "sampling", "feedback_template"}
    changed = config.model_copy(update={"extract": "first_block"})
    assert changed.with_hash().hash != config.with_hash().hash
    assert changed.identity()["extract"] == "first_block"


def test_quality_means_and_sufficient_statistics():
    from sacrebleu.metrics.bleu import BLEU

    hyps = ["the cat sat on the mat", "a dog barked loudly at night", "it rained"]
    refs = ["the cat sat on a mat", "the dog barked at night", "it was raining all day"]
    records = []
    for i, (hyp, ref) in enumerate(zip(hyps, refs, strict=True)):
        one = BLEU().corpus_score([hyp], [[ref]])
        stats = {f"correct_{n + 1}": c for n, c in enumerate(one.counts)}
        stats |= {f"total_{n + 1}": t for n, t in enumerate(one.totals)}
        stats |= {"sys_len": one.sys_len, "ref_len": one.ref_len}
        quality = {f"mtt_bleu@bleu:{k}": float(v) for k, v in stats.items()}
        quality |= {"acc": float(i == 0), "ner_f1@micro_f1:tp": 1.0, f"ner_f1@micro_f1:f{'np'[i % 2]}": 1.0}
        records.append(record(str(i), 0, 0, True, quality=quality))
    from corral.evaluation import aggregate_quality

    got = aggregate_quality(records)
    assert got["mtt_bleu"] == pytest.approx(BLEU().corpus_score(hyps, [refs]).score)  # corpus, not a mean
    assert got["acc"] == pytest.approx(1 / 3)
    assert got["ner_f1"] == pytest.approx(2 * 3 / (2 * 3 + 1 + 2))  # tp 3, fn 2 (i = 0, 2), fp 1 (i = 1)


def test_passes_with_zero_quality_are_counted():
    records = [record("a", 0, 0, True, quality={"acc": 0.0}), record("b", 0, 0, True, quality={"acc": 1.0}),
               record("c", 0, 0, False, quality={"acc": 0.0}), record("d", 0, 0, True)]
    config = RunConfig(task="t", task_version="1", model="m", backend="llamacpp", instances=list("abcd"))
    assert summarize(config, records).passed_with_zero_quality == ZeroQuality(passed=2, zero_quality=1, rate=0.5)


def test_the_summary_reads_back_from_its_file_and_a_wrong_file_names_the_field(tmp_path):
    from corral.evaluation import RunError, Summary

    summary = summarize(CONFIG, run_records(), ["scripted"])
    path = tmp_path / "summary.json"
    path.write_text(json.dumps(summary.to_json()), encoding="utf-8")
    assert Summary.read(path) == summary and summary.runtimes == ["scripted"]
    broken = summary.to_json() | {"counts": {**summary.to_json()["counts"], "closed": "many"}}
    path.write_text(json.dumps(broken), encoding="utf-8")
    with pytest.raises(RunError, match=r"summary.json: not a run summary: counts.closed: "):
        Summary.read(path)
    path.write_text("{", encoding="utf-8")
    with pytest.raises(RunError, match=r"summary\.json:1:2: malformed JSON"):
        Summary.read(path)
