"""Fluency in runs: final outputs scored once after generation, the summary's fluency block, the report's table, and
the rerank strategy's choice. The runner's own logic on the scripted model; one end-to-end run on the real model."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from corral.evaluation import (
    LIKELIHOODS_FILE,
    RERANK_SEED_STRIDE,
    EvalSpec,
    RunError,
    RunPlan,
    evaluate,
    plan_run,
    read_records,
    write_report,
)
from corral.evaluation import choose_candidate as choose
from corral.grammars import Grammar
from corral.models import Completion, Likelihood, Request, ScriptedModel
from corral.tasks import Task, TaskInstance, get_task
from corral.verdicts import Verdict, Violation

NLL = {"mybest mybest": 6.0, "the cat sat": 1.5, "ire ire ire ire": 0.2, "a dog ran": 1.0, "no good": 3.0,
       "fixed it": 2.0}
CANDIDATES = ["mybest mybest", "the cat sat", "ire ire ire ire", "a dog ran"]


def _likelihood(request: Request, text: str) -> Likelihood:
    tokens = len(text.split())
    return Likelihood(tokens, -NLL.get(text, 5.0) * tokens)


class Counting(ScriptedModel):
    """Counts the texts it is asked to score."""

    def __init__(self, script) -> None:
        super().__init__(script, scores=_likelihood)
        self.scored: list[str] = []

    def score(self, requests, texts):
        self.scored += texts
        return super().score(requests, texts)


def _plan(task: Task, **fields: Any) -> RunPlan:
    """The run ``fields`` describe on ``task``, a task made here (not registered)."""
    return plan_run(EvalSpec(task=task.name, **fields), task)


def _task(passing: str = "") -> Task:
    """Two instances with a budget of 3 tokens and a grammar (the scripted model does not enforce it); an answer
    passes when it contains ``passing``."""

    def check(instance, answer):
        return Verdict.of([] if passing in answer else [Violation("has", f"no {passing!r}")])

    return Task(name="words", version="1", check=check, grammar=lambda instance: Grammar.regex("[a-z ]+"),
                instances=lambda: [TaskInstance("a", "Say words.", None, max_tokens=3),
                                   TaskInstance("b", "Say words.", None, max_tokens=3)])


def _by_candidate(request: Request, i: int) -> str:
    """Candidate j of any sample (its seed is the sample's + j * stride) says CANDIDATES[j]."""
    return CANDIDATES[request.sampling.seed // RERANK_SEED_STRIDE]


# ----------------------------------------------------------------------------------------------- rerank

def test_rerank_keeps_the_most_likely_complete_candidate(tmp_path: Path) -> None:
    model = ScriptedModel(_by_candidate, scores=_likelihood)
    run, summary = evaluate(_plan(_task(), model="scripted:s", decoding="constrained", samples=2,
                                  strategy={"kind": "rerank", "k": 4}), tmp_path / "run", model=model)
    records = read_records(run)
    assert len(records) == 4 and len(model.requests) == 16
    assert all(r.grammar is not None and r.sampling.n == 1 for r in model.requests)
    # candidate 0 is the sample as the run decodes it (greedy), the others are drawn at the rerank temperature
    assert sorted(r.sampling.temperature for r in model.requests) == [0.0] * 4 + [0.7] * 12
    seeds = [r.sampling.seed for r in model.requests]
    assert len(set(seeds)) == 8  # two instances share seeds (as greedy samples do); samples and candidates do not
    for record in records:
        # "ire ire ire ire" is likelier still, but it was cut off at the 3-token budget: complete candidates first
        assert record.rerank is not None and record.rerank.chosen == 3 and record.output == "a dog ran"
        candidates = record.rerank.candidates
        assert [c.seed for c in candidates] == [record.sample + j * RERANK_SEED_STRIDE for j in range(4)]
        assert candidates[2].finish_reason == "length" and candidates[2].text == "ire ire ire"
        assert record.likelihood == candidates[3].likelihood == _likelihood(None, "a dog ran")
        assert record.seconds >= sum(c.seconds for c in candidates)
    assert not (run / LIKELIHOODS_FILE).exists()  # the kept candidates' figures are in their records
    assert summary.fluency["nll_per_token"] == pytest.approx(1.0)
    assert summary.label == "scripted:s (constrained, rerank k=4)"


def test_choose_ranks_complete_then_likely_then_first_and_never_a_failure() -> None:
    def done(finish: str = "stop") -> Completion:
        return Completion(text="x", finish_reason=finish)  # type: ignore[arg-type]

    assert choose([done(), done()], [Likelihood(2, -4.0), Likelihood(2, -2.0)]) == 1
    assert choose([done(), done()], [Likelihood(2, -2.0), Likelihood(4, -4.0)]) == 0  # a tie: the earlier one
    assert choose([done("length"), done()], [Likelihood(2, -0.1), Likelihood(2, -9.0)]) == 1
    assert choose([done(), done()], [None, Likelihood(1, -9.0)]) == 1
    assert choose([done("error"), done()], [Likelihood(2, -0.1), Likelihood(2, -9.0)]) == 1

    with pytest.raises(ValueError, match="every candidate failed"):
        choose([done("error")], [None])

def test_choose_prefers_a_candidate_without_a_loop() -> None:
    """A small model finds its own loops likely: a candidate repeating a word three times in a row is kept only
    when every candidate does."""
    loop = Completion(text="the sea sea sea is calm", finish_reason="stop")
    plain = Completion(text="the sea is calm today", finish_reason="stop")
    assert choose([loop, plain], [Likelihood(6, -1.0), Likelihood(5, -4.0)]) == 1
    assert choose([loop, loop], [Likelihood(6, -3.0), Likelihood(6, -1.0)]) == 1


def test_rerank_needs_a_model_that_scores(tmp_path: Path) -> None:
    with pytest.raises(RunError, match="needs a model that scores texts"):
        evaluate(_plan(_task(), model="scripted:s", decoding="constrained", strategy="rerank"), tmp_path / "run",
                 model=ScriptedModel(_by_candidate))


def test_rerank_is_for_constrained_runs_and_changes_the_run_identity() -> None:
    task = _task()
    greedy = _plan(task, model="scripted:s", decoding="constrained").config
    rerank = _plan(task, model="scripted:s", decoding="constrained", strategy="rerank").config
    assert "strategy" not in greedy.identity()  # runs made before strategies keep their hash
    assert rerank.hash != greedy.hash
    assert rerank.identity()["rerank_k"] == 4 and rerank.identity()["rerank_temperature"] == 0.7
    two = _plan(task, model="scripted:s", decoding="constrained", strategy={"kind": "rerank", "k": 2}).config
    assert two.hash != rerank.hash
    with pytest.raises(ValueError, match="use it with decoding 'constrained'"):
        _plan(task, model="scripted:s", decoding="free", strategy="rerank")
    with pytest.raises(ValueError, match="greater than or equal to 1"):
        _plan(task, model="scripted:s", decoding="constrained", strategy={"kind": "rerank", "k": 0})


# ----------------------------------------------------------------------------------------------- final scores

def _replies(request: Request, i: int) -> str:  # a wrong answer first, then "fixed it" after feedback
    return "no good" if len(request.messages) == 1 else "fixed it"


def test_final_outputs_are_scored_once_and_a_resumed_run_keeps_their_scores(tmp_path: Path) -> None:
    task, model = _task(passing="fixed"), Counting(_replies)
    run, summary = evaluate(plan_run(EvalSpec(task=task.name, model="scripted:s"), task), tmp_path / "run", model=model)
    assert model.scored == ["no good", "no good"]
    assert len((run / LIKELIHOODS_FILE).read_text().splitlines()) == 2
    assert all(r.likelihood == _likelihood(None, "no good") for r in read_records(run))
    assert summary.fluency["nll_per_token"] == pytest.approx(3.0) and summary.fluency["scored"] == 2

    evaluate(plan_run(EvalSpec(task=task.name, model="scripted:s"), task), run, model=model)
    assert model.scored == ["no good", "no good"]  # nothing new to score

    _, extended = evaluate(plan_run(EvalSpec(task=task.name, model="scripted:s", rounds=1), task), run, model=model)
    assert model.scored[2:] == ["fixed it", "fixed it"]  # only the new final outputs
    assert extended.fluency["nll_per_token"] == pytest.approx(2.0)  # the final answers are round 1's
    by_key = {r.key: r for r in read_records(run)}
    assert by_key["a", 0, 0].likelihood is not None and by_key["a", 0, 1].likelihood is not None


def test_a_torn_likelihood_line_is_dropped_and_scored_again(tmp_path: Path) -> None:
    task, model = _task(), Counting(_replies)
    run, _ = evaluate(plan_run(EvalSpec(task=task.name, model="scripted:s"), task), tmp_path / "run", model=model)
    path = run / LIKELIHOODS_FILE
    whole, torn = path.read_text().splitlines()
    path.write_text(whole + "\n" + torn[: len(torn) // 2])  # killed while writing the second line
    assert sum(r.likelihood is not None for r in read_records(run)) == 1
    _, summary = evaluate(plan_run(EvalSpec(task=task.name, model="scripted:s"), task), run, model=model)
    assert len(model.scored) == 3 and summary.fluency["scored"] == 2
    assert len(path.read_text().splitlines()) == 2


def test_a_likelihood_never_lends_itself_to_another_output(tmp_path: Path) -> None:
    task, model = _task(), Counting(_replies)
    run, _ = evaluate(plan_run(EvalSpec(task=task.name, model="scripted:s"), task), tmp_path / "run", model=model)
    records = (run / "records.jsonl").read_text().replace('"output": "no good"', '"output": "other"', 1)
    (run / "records.jsonl").write_text(records)
    assert [r.likelihood is None for r in read_records(run)] == [True, False]


def test_a_model_that_cannot_score_leaves_the_figure_empty(tmp_path: Path) -> None:
    run, summary = evaluate(_plan(_task(), model="scripted:s"), tmp_path / "run", model=ScriptedModel(_replies))
    assert not (run / LIKELIHOODS_FILE).exists()
    assert summary.fluency["nll_per_token"] is None and summary.fluency["words"] == 4


# ----------------------------------------------------------------------------------------------- the report

def test_the_report_has_a_fluency_table_with_a_row_per_run(tmp_path: Path) -> None:
    scored, _ = evaluate(_plan(_task(), model="scripted:s"), tmp_path / "free", model=Counting(_replies))
    reranked, _ = evaluate(_plan(_task(), model="scripted:s", decoding="constrained", strategy="rerank"),
                           tmp_path / "rerank", model=ScriptedModel(_by_candidate, scores=_likelihood))
    unscored, _ = evaluate(_plan(_task(), model="scripted:t"), tmp_path / "unscored", model=ScriptedModel(
        ["mybest mybest mybest", "the cat"]))
    lines = write_report([scored, reranked, unscored], tmp_path / "out").read_text().splitlines()
    table = lines[lines.index("## Fluency") + 4:]
    assert table[0] == ("| run | outputs | non-word % | triple-repeat % | distinct-2 | NLL/token | "
                        "mean NLL/token per output |")
    assert table[2] == "| scripted:s (free) | 2 | 0.0% | 0.0% | 0.500 | 3.000 | 3.000 |"
    assert table[3] == "| scripted:s (constrained, rerank k=4) | 2 | 0.0% | 0.0% | 0.500 | 1.000 | 1.000 |"
    assert table[4] == "| scripted:t (free) | 2 | 60.0% | 50.0% | 0.667 | — | — |"


def test_the_mean_over_outputs_sees_a_short_junk_output_that_pooling_hides() -> None:
    from corral.metrics import mean_nll_per_token, nll_per_token

    scores = [(100, -50.0), (4, -20.0), None, (0, 0.0)]  # a long fluent output, a short junk one
    assert nll_per_token(scores) == pytest.approx(70 / 104)
    assert mean_nll_per_token(scores) == pytest.approx((0.5 + 5.0) / 2)
    assert mean_nll_per_token([None]) is None


# ----------------------------------------------------------------------------------------------- the real model

@pytest.mark.model
def test_rerank_on_the_bundled_model_stays_valid_and_keeps_the_likeliest_candidate(tmp_path: Path) -> None:
    from corral.models import load_model

    task = get_task("collie")
    chosen = [next(i for i in task.instances() if i.groups["structure"] == structure) for structure in
              ("word01", "sent01")]
    small = dataclasses.replace(task, instances=lambda: chosen)
    model = load_model("smollm2")
    try:
        greedy, greedy_summary = evaluate(plan_run(EvalSpec(task=small.name, decoding="constrained"), small),
                                          tmp_path / "greedy", model=model)
        rerank = EvalSpec(task=small.name, decoding="constrained", strategy={"kind": "rerank", "k": 3})
        run, summary = evaluate(plan_run(rerank, small), tmp_path / "rerank", model=model)
    finally:
        model.close()
    for record in read_records(run):
        assert record.passed and record.decoding == "constrained"
        candidates = record.rerank.candidates
        assert len(candidates) == 3 and len({c.seed for c in candidates}) == 3
        complete = [j for j, c in enumerate(candidates) if c.finish_reason == "stop"] or range(3)
        best = min(complete, key=lambda j: candidates[j].likelihood.nll_per_token or float("inf"))
        assert record.rerank.chosen == best and record.output.startswith(candidates[best].text)
    assert all(r.likelihood is not None and r.passed for r in read_records(greedy))
    for block in (greedy_summary.fluency, summary.fluency):
        assert block["scored"] == block["outputs"] == 2 and 0 < block["nll_per_token"] < 20
