"""What the bridge tests share: one llama-cpp-python server on the bundled model, one local llama.cpp model, and
Corral's own run of the same instances (the reference every bridge's outputs and verdicts are held against).

The package-scoped fixtures start the server and load the model once for every bridge test (per xdist worker), and
the selection is small (2 COLLIE + 2 FormatBench instances, 16 tokens) so that all of tests/bridges stays within
about a minute of one core.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from corral.evaluation import EvalSpec, SamplingConfig, evaluate, read_records
from corral.models import Model, load_model

from ..models._servers import LlamaServer, served_smollm2, smollm2_gguf

MAX_TOKENS = 16
PLAIN_GREEDY = {"repeat_penalty": 1.0, "top_k": 0, "min_p": 0.0}
"""llama-cpp-python's server samples with repeat_penalty 1.1, top_k 40 and min_p 0.05 unless told otherwise; Corral's
local backend applies none of them, so served requests ask for plain greedy decoding (tests/evaluation/
test_served_run.py shows the two then agree token for token)."""


@dataclass(frozen=True)
class Selection:
    """One task's instances as both Corral and the bridges are given them."""

    task: str
    where: dict[str, list[str]]
    limit: int | str
    options: dict[str, Any]

    @property
    def key(self) -> str:
        return self.task


COLLIE = Selection("collie", {"structure": ["word01", "sent01"]}, "structure=1", {})
FORMATBENCH = Selection("formatbench", {"task": ["mcq"]}, 2, {"shots": 0})
SELECTIONS = (COLLIE, FORMATBENCH)


@dataclass(frozen=True)
class Reference:
    """Corral's runner on one selection: each instance's output and verdict, in order."""

    outputs: dict[str, str]
    passed: dict[str, bool]
    scores: dict[str, float]

    @property
    def pass_rate(self) -> float:
        return sum(self.passed.values()) / len(self.passed)


@pytest.fixture(scope="package")
def llama(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    yield from served_smollm2(tmp_path_factory, n_ctx=2048)


@pytest.fixture(scope="package")
def local_model() -> Iterator[Model]:
    smollm2_gguf()
    model = load_model("smollm2", n_threads=1)
    try:
        yield model
    finally:
        model.close()


@pytest.fixture(scope="package")
def reference(local_model: Model, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Reference]:
    """``corral eval`` of each selection on the local bundled model, greedy, ``MAX_TOKENS`` tokens."""
    made = {}
    for selection in SELECTIONS:
        group, _, number = str(selection.limit).rpartition("=")  # as corral eval --limit reads N or GROUP=N
        count, per_group = (None, (group, int(number))) if group else (int(number), None)
        spec = EvalSpec(task=selection.task, task_options=selection.options, where=selection.where, limit=count,
                        per_group=per_group, sampling=SamplingConfig(max_tokens=MAX_TOKENS))
        run, summary = evaluate(spec, tmp_path_factory.mktemp(selection.task), model=local_model)
        assert summary.complete
        records = sorted(read_records(run), key=lambda r: r.instance)
        made[selection.key] = Reference({r.instance: r.output for r in records},
                                        {r.instance: r.passed for r in records}, {r.instance: r.score for r in records})
    return made
