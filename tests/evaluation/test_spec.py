"""``EvalSpec``: a run as one value. Any valid spec survives JSON and YAML unchanged; a bad value is refused with
the path of its field; the spec a file describes is the one the flags describe; and a spec plans the very config
(and run hash) that earlier releases stored, so the runs under docs/results still resume."""

from __future__ import annotations

import json
import math
import re
import tempfile
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from corral.evaluation import (
    MAX_ROUNDS,
    MAX_SAMPLES,
    EvalSpec,
    GreedyStrategy,
    RerankStrategy,
    SamplingConfig,
    SmcStrategy,
    SpecError,
    load_eval_spec,
    parse_eval_spec,
    plan_run,
    read_config,
)
from corral.models import MAX_PARTICLES

ROOT = Path(__file__).resolve().parents[2]
MAIN_JOB = ROOT / "docs" / "examples" / "main-job.yaml"

names = st.text(st.characters(categories=("L", "N", "P", "S", "Zs")), min_size=1, max_size=12)
scalars = st.one_of(st.none(), st.booleans(), st.integers(-(2**63), 2**63), names,
                    st.floats(allow_nan=False, allow_infinity=False))
json_values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(names, inner, max_size=3), max_leaves=6)
strategies = st.one_of(
    st.builds(GreedyStrategy),
    st.builds(RerankStrategy, k=st.integers(1, 256), temperature=st.floats(0, 2, exclude_min=True)),
    st.builds(SmcStrategy, particles=st.integers(2, MAX_PARTICLES)))
samplings = st.builds(SamplingConfig, temperature=st.floats(0, 2), top_p=st.floats(0, 1, exclude_min=True),
                      max_tokens=st.none() | st.integers(1, 131_072), seed=st.integers(0, 2**32 - 1),
                      repeat_limit=st.none() | st.integers(0, 1_000))


@st.composite
def specs(draw: st.DrawFn) -> EvalSpec:
    decoding = draw(st.sampled_from(["free", "constrained", "both"]))
    return EvalSpec(
        task=draw(names), task_options=draw(st.dictionaries(names, names, max_size=3)), model=draw(names),
        base_url=draw(st.none() | names), model_options=draw(st.dictionaries(names, json_values, max_size=3)),
        where=draw(st.dictionaries(names, st.lists(names, min_size=1, max_size=3), max_size=2)),
        limit=draw(st.none() | st.integers(1, 10_000_000)),
        per_group=draw(st.none() | st.tuples(names, st.integers(1, 10_000_000))), decoding=decoding,
        strategy=draw(strategies) if decoding != "free" else GreedyStrategy(), sampling=draw(samplings),
        samples=draw(st.integers(1, MAX_SAMPLES)), rounds=draw(st.integers(0, MAX_ROUNDS)),
        batch_size=draw(st.none() | st.integers(1, 4_096)), close_limit=draw(st.integers(0, 10_000)))


@settings(max_examples=150, deadline=None)
@given(specs())
def test_any_valid_spec_round_trips_through_json_and_yaml(spec: EvalSpec) -> None:
    assert EvalSpec.model_validate_json(spec.model_dump_json()) == spec
    data = spec.model_dump(mode="json")
    with tempfile.TemporaryDirectory() as folder:  # through the files corral eval --config reads
        (Path(folder) / "spec.json").write_text(json.dumps(data), encoding="utf-8")
        (Path(folder) / "spec.yaml").write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
        assert load_eval_spec(Path(folder) / "spec.json") == spec
        assert load_eval_spec(Path(folder) / "spec.yaml") == spec


@pytest.mark.parametrize(("fields", "message"), [
    ({"sampling": {"temperature": math.nan}}, "spec: sampling.temperature: Input should be a finite number"),
    ({"sampling": {"temperature": math.inf}}, "spec: sampling.temperature: Input should be a finite number"),
    ({"sampling": {"temperature": 2.5}}, "spec: sampling.temperature: Input should be less than or equal to 2"),
    ({"sampling": {"top_p": 0}}, "spec: sampling.top_p: Input should be greater than 0, got 0"),
    ({"sampling": {"seed": 2**32}}, "spec: sampling.seed: Input should be less than or equal to 4294967295"),
    ({"sampling": {"max_tokens": 0}}, "spec: sampling.max_tokens: Input should be greater than or equal to 1"),
    ({"samples": 0}, "spec: samples: Input should be greater than or equal to 1, got 0"),
    ({"rounds": 101}, "spec: rounds: Input should be less than or equal to 100, got 101"),
    ({"decoding": "constrained", "strategy": {"kind": "rerank", "k": 0}},
     "spec: strategy.k: Input should be greater than or equal to 1, got 0"),
    ({"decoding": "constrained", "strategy": {"kind": "rerank", "temperature": math.inf}},
     "spec: strategy.temperature: Input should be a finite number"),
    ({"decoding": "constrained", "strategy": {"kind": "smc", "particles": 1}},
     "spec: strategy.particles: Input should be greater than or equal to 2, got 1"),
    ({"decoding": "constrained", "strategy": {"kind": "smc", "k": 4}}, "spec: strategy.k: Extra inputs are not"),
    ({"decoding": "constrained", "strategy": "best"}, "spec: strategy: Input tag 'best' found using 'kind' does not"),
    ({"strategy": "rerank"}, "spec: (top level): strategy 'rerank' decodes constrained samples; use it with decoding"),
    ({"decoding": "sideways"}, "spec: decoding: Input should be 'free', 'constrained' or 'both', got 'sideways'"),
    ({"close_limit": -1}, "spec: close_limit: Input should be greater than or equal to 0, got -1"),
    ({"limit": 0}, "spec: limit: Input should be greater than or equal to 1, got 0"),
    ({"per_group": ["structure", 0]}, "spec: per_group.1: Input should be greater than or equal to 1, got 0"),
    ({"where": {"structure": []}}, "spec: where.structure: List should have at least 1 item"),
    ({"model_options": {"n_ctx": math.nan}}, "spec: model_options.n_ctx"),
    ({"model_options": {"extra_body": {"top_k": math.inf}}}, "spec: model_options.extra_body"),
    ({"batch_size": 0}, "spec: batch_size: Input should be greater than or equal to 1, got 0"),
    ({"temperature": 0.5}, "spec: temperature: Extra inputs are not permitted"),
])
def test_a_bad_value_is_refused_with_its_field_path(fields: dict, message: str) -> None:
    with pytest.raises(SpecError) as caught:
        parse_eval_spec({"task": "collie", **fields})
    assert str(caught.value).startswith(message), str(caught.value)
    assert "\n" not in str(caught.value)


def test_defaults_are_the_spec_s_and_both_is_two_runs() -> None:
    spec = EvalSpec(task="collie", decoding="both", strategy="rerank", task_options={"shots": 3, "strict": True})
    assert spec.task_options == {"shots": "3", "strict": "true"}  # as -T gives them
    assert spec.strategy == RerankStrategy() and (spec.strategy.k, spec.strategy.temperature) == (4, 0.7)
    free, constrained = spec.runs()
    assert (free.decoding, free.strategy) == ("free", GreedyStrategy())
    assert (constrained.decoding, constrained.strategy) == ("constrained", RerankStrategy())
    with pytest.raises(ValueError, match="two runs"):
        plan_run(spec)


def _readme_command() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.search(r"&& corral eval ([^\n`]+)", readme).group(1).split()  # type: ignore[union-attr]


def test_the_main_job_file_is_the_readme_s_main_job() -> None:
    import typer

    from corral.cli import app, spec_of

    command = typer.main.get_command(app).commands["eval"]  # type: ignore[attr-defined]
    args = _readme_command()
    assert args == ["collie", "--limit", "structure=3", "--decoding", "both", "--rounds", "2"]
    from_flags = spec_of(command.make_context("eval", args).params)
    from_file = spec_of(command.make_context("eval", ["--config", str(MAIN_JOB)]).params)
    assert from_file == from_flags == load_eval_spec(MAIN_JOB)
    assert from_file == EvalSpec(task="collie", per_group=("structure", 3), decoding="both", rounds=2)


@pytest.mark.parametrize("decoding", ["free", "constrained"])
def test_the_main_job_plans_the_config_its_stored_runs_hold(decoding: str) -> None:
    """The README's main job, planned from its spec file, is the run stored in docs/results: the same config field
    for field (the instances included); a constrained run's hash also names the grammar compiler, which changes
    whenever the grammar sources do, so only the free run's hash is compared whole."""
    stored = read_config(ROOT / "docs" / "results" / "collie-smollm2-main" / decoding)
    [planned] = [plan.config for spec in load_eval_spec(MAIN_JOB).runs() if spec.decoding == decoding
                 for plan in [plan_run(spec)]]
    moving = {"corral_version", "grammar_fingerprint", "hash"}
    assert planned.model_dump(exclude=moving) == stored.model_dump(exclude=moving)
    if decoding == "free":
        assert planned.hash == stored.hash
