"""The constrained path on a FormatBench instance of every task, with the bundled model.

Each instance decodes under its own grammar (no fallback). The budget is cut to 24 tokens, well below what an XDL
document or a long parse needs, so the runner's closing of cut-off outputs is exercised too: an exact grammar's
output passes the strict checker whether the model finished it or the grammar's completion did, and a partial
grammar's output breaks only the rules it leaves to the checker. A cut-off output whose completion is longer than
the run's close limit (a parse must still copy the rest of its sentence) is left as the model wrote it: cut off,
failing, and never a pass as written.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corral.evaluation import CLOSE_LIMIT, EvalSpec, SamplingConfig, evaluate, plan_run, read_records
from corral.suites.formatbench import TASKS, get_format_task
from corral.tasks import get_task

pytestmark = pytest.mark.model


def test_every_task_decodes_under_its_own_grammar_and_passes_what_it_enforces(tmp_path: Path) -> None:
    task = get_task("formatbench", shots=0)
    run, summary = evaluate(plan_run(EvalSpec(task=task.name, decoding="constrained", per_group=("task", 1),
                                              sampling=SamplingConfig(max_tokens=24)), task), tmp_path / "run")
    records = read_records(run)
    assert sorted(record.groups["task"] for record in records) == sorted(TASKS)
    for record in records:
        name = record.groups["task"]
        assert record.decoding == "constrained", (name, record.fallback_reason)
        if record.finish_reason == "length":
            assert not record.passed_as_written, (name, record.output)
            if not record.appended:  # its completion is over the close limit: the model's text is judged as it is
                assert not record.passed and record.written_passed is None, (name, record.output)
                continue
            assert len(record.appended) <= CLOSE_LIMIT, (name, record.appended)
        broken = {violation["rule"] for violation in record.violations}
        assert broken <= set(get_format_task(name).left_to_checker), (name, record.output, record.feedback)
    assert summary.counts.errors == 0
