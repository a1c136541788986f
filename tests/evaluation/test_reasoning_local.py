"""A local constrained run on the bundled model with a declared reasoning block: the grammar lets the model write a
free block up to its bound, forces the close tag there, and constrains the answer after it (seconds)."""

from __future__ import annotations

from pathlib import Path

import pytest

from corral.evaluation import EvalSpec, SamplingConfig, evaluate, read_records
from corral.grammars import accepts, with_reasoning
from corral.tasks import get_task
from corral.text import Reasoning

pytestmark = pytest.mark.model

# pre-filled, as DeepSeek-R1's template opens the block in the prompt: the output starts inside it and must close it
BLOCK = {"open": "<think>", "close": "</think>", "max_chars": 40, "prefilled": True}


def test_a_local_model_thinks_within_its_bound_then_answers_in_the_grammar(tmp_path: Path) -> None:
    spec = EvalSpec(task="collie", where={"structure": ["word01"]}, limit=1, decoding="constrained", reasoning=BLOCK,
                    sampling=SamplingConfig(max_tokens=48), model_options={"n_threads": 1})
    run, summary = evaluate(spec, tmp_path / "run")
    [record] = read_records(run)
    task = get_task("collie")
    instance = next(i for i in task.instances() if i.id == record.instance)
    # SmolLM2 knows nothing of thinking: it writes text until the bound, where only the close tag is allowed
    assert record.thinking is not None and 0 < len(record.thinking) <= 40 and record.thinking_closed
    assert record.output.startswith(record.thinking + "</think>")
    assert accepts(with_reasoning(task.grammar(instance), Reasoning(**BLOCK)), record.output)
    # the answer after the block is the constrained one: in the instance's grammar, so it passes
    assert record.answer and accepts(task.grammar(instance), record.answer)
    assert record.passed and record.finish_reason == "stop"
    assert summary.thinking is not None and summary.thinking.records == 1 and summary.thinking.unclosed == 0
