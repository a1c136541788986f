"""The runner on the real bundled model: resume, extend, config identity, the shared cache, fallbacks, feedback."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from corral.evaluation import EvalSpec, ResponseCache, RunError, SamplingConfig, evaluate, plan_run, read_records
from corral.grammars import NotExpressible
from corral.models import load_model
from corral.tasks import get_task

pytestmark = pytest.mark.model

WORDS = {"structure": ["word01", "word02"]}


class CountingModel:
    """The real model, counting the requests that reach it (the runner must not redo finished work)."""

    def __init__(self, model) -> None:
        self.model, self.backend, self.name, self.requests = model, model.backend, model.name, 0

    def complete(self, requests):
        self.requests += len(requests)
        return self.model.complete(requests)

    def close(self) -> None:  # the fixture owns the model
        pass


@pytest.fixture(scope="module")
def smol():
    model = load_model("smollm2")
    yield model
    model.close()


@pytest.fixture
def counting(smol):
    return CountingModel(smol)


def _keys(run: Path) -> list[tuple[str, int, int]]:
    return [r.key for r in read_records(run)]


def test_rerun_resumes_and_extends_without_redoing_work(tmp_path, counting):
    run, summary = evaluate(EvalSpec(task="collie", where=WORDS, per_group=("structure", 2)), tmp_path / "run",
                            model=counting)
    assert counting.requests == 4 and len(_keys(run)) == 4 and summary.complete
    first = read_records(run)

    evaluate(EvalSpec(task="collie", where=WORDS, per_group=("structure", 2)), run, model=counting)
    assert counting.requests == 4  # nothing left to do

    _, extended = evaluate(EvalSpec(task="collie", where=WORDS, per_group=("structure", 2), samples=2, rounds=1), run,
                           model=counting)
    keys = _keys(run)
    assert len(keys) == len(set(keys))
    assert read_records(run)[:4] == first  # old records untouched
    fresh = counting.requests - 4
    failed_first = sum(1 for r in read_records(run) if r.round == 0 and not r.passed)
    assert fresh == 4 + failed_first  # 4 new first attempts (sample 1), one feedback round per failure
    assert extended.samples == 2 and extended.rounds == 1 and extended.complete
    assert set(extended.pass_at_k) == {"1", "2"}


def test_a_run_dir_from_another_config_is_refused(tmp_path, counting):
    run, _ = evaluate(EvalSpec(task="collie", where=WORDS, limit=1), tmp_path / "run", model=counting)
    with pytest.raises(RunError, match=r"another config.*sampling"):
        evaluate(EvalSpec(task="collie", where=WORDS, limit=1, sampling=SamplingConfig(temperature=0.7)), run,
                 model=counting)
    with pytest.raises(RunError, match=r"another config.*decoding"):
        evaluate(EvalSpec(task="collie", where=WORDS, limit=1, decoding="constrained"), run, model=counting)


def test_bad_out_directories(tmp_path, counting):
    afile = tmp_path / "file.txt"
    afile.write_text("x")
    with pytest.raises(RunError, match="is a file"):
        evaluate(EvalSpec(task="collie", where=WORDS, limit=1), afile, model=counting)
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "notes.txt").write_text("mine")
    with pytest.raises(RunError, match="not empty and is not a run directory"):
        evaluate(EvalSpec(task="collie", where=WORDS, limit=1), tmp_path / "full", model=counting)
    assert counting.requests == 0


def test_a_torn_last_line_is_redone_once(tmp_path, counting):
    run, _ = evaluate(EvalSpec(task="collie", where=WORDS, per_group=("structure", 1)), tmp_path / "run",
                      model=counting)
    lines = (run / "records.jsonl").read_text().splitlines(keepends=True)
    (run / "records.jsonl").write_text(lines[0] + lines[1][: len(lines[1]) // 2])  # killed mid-write
    evaluate(EvalSpec(task="collie", where=WORDS, per_group=("structure", 1)), run, model=counting)
    assert counting.requests == 3 and sorted(_keys(run)) == sorted({k for k in _keys(run)})
    assert len(_keys(run)) == 2


def test_the_response_cache_is_shared_across_runs(tmp_path, counting):
    cache = ResponseCache(tmp_path / "cache.sqlite3")
    first, _ = evaluate(EvalSpec(task="collie", where=WORDS, per_group=("structure", 2)), tmp_path / "a",
                        model=counting, cache=cache)
    assert counting.requests == 4
    second, _ = evaluate(EvalSpec(task="collie", where=WORDS, per_group=("structure", 2)), tmp_path / "b",
                         model=counting, cache=cache)
    assert counting.requests == 4 and cache.hits == 4
    again = read_records(second)
    assert all(r.cached for r in again)
    assert [r.output for r in again] == [r.output for r in read_records(first)]


def test_feedback_rounds_send_the_checkers_feedback_back(tmp_path, counting):
    seen = []
    spec = EvalSpec(task="collie", where={"structure": ["sent01", "word01"]}, per_group=("structure", 2), rounds=2)
    run, summary = evaluate(spec, tmp_path / "run", model=counting,
                            on_progress=lambda done, total, passed: seen.append((done, total)))
    records = {r.key: r for r in read_records(run)}
    assert seen[0] == (0, 4 * 3) and seen[-1] == (len(records), len(records))  # the total shrinks on each pass
    later = [r for r in records.values() if r.round > 0]
    assert later, "SmolLM2 fails sent01's exact character counts; feedback rounds must follow"
    for record in later:
        previous = records[(record.instance, record.sample, record.round - 1)]
        assert not previous.passed
        assert record.messages[: len(previous.messages)] == previous.messages
        assistant, user = record.messages[len(previous.messages):]
        assert assistant == {"role": "assistant", "content": previous.output}
        assert previous.feedback and previous.feedback in user["content"] and user["role"] == "user"
    chains = {(r.instance, r.sample) for r in records.values()}
    for instance, sample in chains:
        rounds = sorted(r.round for r in records.values() if (r.instance, r.sample) == (instance, sample))
        assert rounds == list(range(len(rounds)))
        last = records[(instance, sample, rounds[-1])]
        assert last.passed or rounds[-1] == 2
    assert [row.round for row in summary.by_round] == [0, 1, 2]


def test_constrained_runs_pass_and_inexpressible_instances_fall_back_recorded(tmp_path, counting):
    task = get_task("collie")
    inexpressible = None
    for instance in task.instances():
        try:
            task.grammar(instance)
        except NotExpressible as exc:
            inexpressible = (instance, str(exc))
            break
    assert inexpressible is not None
    expressible = [i for i in task.instances() if i.groups["structure"] == "word01"][:2]
    small = dataclasses.replace(task, instances=lambda: [*expressible, inexpressible[0]])
    # 64 tokens: a word01 answer fits; the passage that falls back to free decoding need not run to 1,200
    spec = EvalSpec(task=small.name, decoding="constrained", sampling=SamplingConfig(max_tokens=64))
    run, summary = evaluate(plan_run(spec, small), tmp_path / "run", model=counting)
    records = {r.instance: r for r in read_records(run)}
    assert all(records[i.id].passed and records[i.id].decoding == "constrained" for i in expressible)
    fallback = records[inexpressible[0].id]
    assert fallback.decoding == "free-fallback" and fallback.fallback_reason == inexpressible[1]
    assert summary.sample_decoding["free-fallback"] == 1 and summary.sample_decoding["constrained"] == 2
    config = json.loads((run / "config.json").read_text())
    assert config["decoding"] == "constrained" and len(config["instances"]) == 3
