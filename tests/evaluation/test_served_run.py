"""A served run (llama-cpp-python's OpenAI-compatible server on 127.0.0.1, started here) gives the same records as
the local backend for greedy decoding on the same model."""

from __future__ import annotations

import pytest

from corral.evaluation import EvalSpec, SamplingConfig, evaluate, read_records
from corral.models import load_model

from .._sizes import sized
from ..models._servers import served_smollm2

pytestmark = [pytest.mark.model, pytest.mark.server]

SELECTION = {"structure": ["word01", "word03", "sent01", "sent04"]}
# llama-cpp-python's server samples with repeat_penalty 1.1, top_k 40 and min_p 0.05 unless told otherwise; the
# local backend applies none of them, so the served run asks for plain greedy decoding
PLAIN_GREEDY = {"extra_body": {"repeat_penalty": 1.0, "top_k": 0, "min_p": 0.0}}
PER_STRUCTURE = sized(2, 3)
# outputs cut at 32 tokens (the same cut on both sides) keep the two runs short; full size: each instance's budget
SAMPLING = SamplingConfig(max_tokens=sized(32, None))


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from served_smollm2(tmp_path_factory, n_ctx=2048)


def test_served_greedy_run_matches_the_local_run(tmp_path, server):
    local_model = load_model("smollm2", n_threads=1)
    try:
        local, _ = evaluate(EvalSpec(task="collie", where=SELECTION, per_group=("structure", PER_STRUCTURE), rounds=1,
                                     sampling=SAMPLING), tmp_path / "local", model=local_model)
    finally:
        local_model.close()
    served, summary = evaluate(EvalSpec(task="collie", model="openai:smollm2", where=SELECTION,
                                        per_group=("structure", PER_STRUCTURE), rounds=1, sampling=SAMPLING,
                                        base_url=server.url, model_options=PLAIN_GREEDY), tmp_path / "served")
    assert summary.complete
    mine = {r.key: r for r in read_records(local)}
    theirs = {r.key: r for r in read_records(served)}
    assert mine.keys() == theirs.keys() and len(mine) >= 4 * PER_STRUCTURE
    differing = [(k, mine[k].output, theirs[k].output) for k in mine if mine[k].output != theirs[k].output]
    assert not differing
    assert all(mine[k].passed == theirs[k].passed and mine[k].prompt_tokens == theirs[k].prompt_tokens
               for k in mine)
