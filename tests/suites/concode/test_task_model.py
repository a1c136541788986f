"""Schema-constrained SmolLM2 on generated schemas: where every keyword is enforced at decode time, every sample
is valid, in JSON, YAML and XML (a failure here is a compiler bug, not a number to report)."""

from __future__ import annotations

import pytest

from corral.evaluation import evaluate, read_records
from corral.models import load_model
from corral.tasks import get_task

pytestmark = pytest.mark.model

SCHEMAS = 16  # four root types among the first 16 of each form; 50 took 10 CPU minutes


@pytest.fixture(scope="module")
def smol():
    model = load_model("smollm2")
    yield model
    model.close()


@pytest.mark.parametrize("output_form", ["json", "yaml", "xml"])
def test_constrained_samples_are_all_valid_where_every_keyword_is_enforced(smol, tmp_path, output_form):
    task = get_task("concode-gen", output_form=output_form)
    run, _ = evaluate(task, "smollm2", tmp_path / "run", decoding="constrained",
                            filters={"enforcement": ["exact"]}, limit=SCHEMAS, loaded_model=smol)
    records = read_records(run)
    assert len(records) == SCHEMAS and {r.groups["enforcement"] for r in records} == {"exact"}
    assert all(r.decoding == "constrained" for r in records)  # no fallback to free decoding
    failed = [(r.instance, r.feedback, r.answer[:300]) for r in records if not r.passed]
    assert not failed, failed
    assert len({r.groups["root_type"] for r in records}) >= 4  # not only one kind of schema
