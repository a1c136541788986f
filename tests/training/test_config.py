"""Training configs: validated with field paths, a run directory bound to one config, the held-out split stable
across runs, and checkpoint bookkeeping that survives a crash mid-save."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from corral.training import (
    RunMismatch,
    TaskSpec,
    TrainConfig,
    TrainError,
    build_mix,
    claim_run,
    is_heldout,
    last_checkpoint,
    load_config,
    parse_config,
    rl_rows,
    sft_rows,
    trim_log,
)

COLLIE = {"task": "collie", "where": {"structure": ["word02"]}, "limit": 20}


def test_errors_name_the_field():
    with pytest.raises(TrainError, match=r"tasks\.0\.reward"):
        parse_config({"tasks": [{**COLLIE, "reward": "sometimes"}]})
    with pytest.raises(TrainError, match="beta"):
        parse_config({"tasks": [COLLIE], "beta": 0})
    with pytest.raises(TrainError, match="tasks"):
        parse_config({"tasks": []})
    with pytest.raises(TrainError, match="twice"):
        parse_config({"tasks": [COLLIE, COLLIE]})
    with pytest.raises(TrainError, match="trn-ft"):
        parse_config({"tasks": [COLLIE], "method": "sft", "setting": "trn-ft"})
    with pytest.raises(TrainError, match="colour"):
        parse_config({"tasks": [COLLIE], "colour": "red"})


def test_a_yaml_file_loads_and_a_broken_one_names_itself(tmp_path):
    good = tmp_path / "c.yaml"
    good.write_text("method: sft\ntasks:\n  - task: collie\n    where: {structure: [word02]}\n", encoding="utf-8")
    assert load_config(good).method == "sft"
    bad = tmp_path / "bad.yaml"
    bad.write_text("tasks: [\n", encoding="utf-8")
    with pytest.raises(TrainError, match=r"bad\.yaml: not valid YAML"):
        load_config(bad)
    with pytest.raises(TrainError, match="cannot read"):
        load_config(tmp_path / "missing.json")


@pytest.mark.parametrize(("name", "text", "pattern"), [
    # a billion laughs: nine levels of aliases, each ten of the one before
    ("bomb.yaml", "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 10)}]\n" for i in range(8)),
     r"bomb\.yaml: not valid YAML: line 2, column \d+: aliases \(\*name\) are not allowed$"),
    ("deep.json", "[" * 100_000 + "]" * 100_000, r"deep\.json: not valid JSON: nested deeper than \d+ levels$"),
    ("deep.yaml", "[" * 100_000 + "]" * 100_000, r"deep\.yaml: not valid YAML: line 1, column \d+: nested deeper"),
    ("twice.yaml", "method: sft\nmethod: rl\n", r"twice\.yaml: not valid YAML: line 2, column 1: the key 'method' "
                                                 r"appears twice$"),
])
def test_a_hostile_config_is_one_line_naming_the_file(tmp_path, name, text, pattern):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(TrainError, match=pattern):
        load_config(path)


def test_a_run_directory_belongs_to_one_config(tmp_path):
    config = parse_config({"tasks": [COLLIE]})
    assert claim_run(tmp_path / "run", config) is False
    assert claim_run(tmp_path / "run", config) is True
    # how long and where it trains may change on resume
    assert claim_run(tmp_path / "run", config.model_copy(update={"max_steps": 50, "device": "cpu"})) is True
    with pytest.raises(RunMismatch, match=r"learning_rate: 0\.0001 -> 0\.5"):
        claim_run(tmp_path / "run", config.model_copy(update={"learning_rate": 0.5}))
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("x", encoding="utf-8")
    with pytest.raises(RunMismatch, match="not a training run"):
        claim_run(tmp_path / "other", config)


def test_unknown_tasks_and_groups_are_named():
    with pytest.raises(TrainError, match="nope"):
        build_mix(parse_config({"tasks": [{"task": "nope"}]}))
    with pytest.raises(TrainError, match="word99"):
        build_mix(parse_config({"tasks": [{"task": "collie", "where": {"structure": ["word99"]}}]}))


@given(ids=st.lists(st.text(min_size=1, max_size=12), min_size=1, max_size=30, unique=True),
       share=st.floats(0.05, 0.95))
def test_the_held_out_split_is_a_pure_function_of_task_and_id(ids, share):
    first = [is_heldout("collie", i, share) for i in ids]
    assert first == [is_heldout("collie", i, share) for i in ids]
    # a larger share keeps every instance a smaller one held out
    assert all(is_heldout("collie", i, min(1.0, share + 0.04)) for i, out in zip(ids, first, strict=True) if out)


def test_training_rows_never_hold_a_held_out_instance():
    parts = build_mix(TrainConfig(tasks=[TaskSpec(**COLLIE)], holdout=0.3))
    (part,) = parts
    held = {inst.id for inst in part.heldout}
    assert held and part.train
    assert not held & {row["instance_id"] for row in rl_rows(parts)}
    assert not held & {row["instance_id"] for row in sft_rows(parts)}
    again = build_mix(TrainConfig(tasks=[TaskSpec(**COLLIE)], holdout=0.3, seed=7, method="sft"))
    assert {inst.id for inst in again[0].heldout} == held
    assert all(row["completion"][0]["content"] for row in sft_rows(parts))


def test_an_incomplete_checkpoint_is_set_aside(tmp_path):
    for step in (10, 20):
        folder = tmp_path / "checkpoints" / f"checkpoint-{step}"
        folder.mkdir(parents=True)
        (folder / "trainer_state.json").write_text(json.dumps({"global_step": step}), encoding="utf-8")
    (tmp_path / "checkpoints" / "checkpoint-20" / "trainer_state.json").write_text("{", encoding="utf-8")
    assert last_checkpoint(tmp_path).name == "checkpoint-10"
    assert (tmp_path / "incomplete-checkpoint-20").is_dir()
    assert last_checkpoint(tmp_path / "nothing") is None


def test_a_resume_drops_log_rows_of_steps_it_redoes(tmp_path):
    log = tmp_path / "steps.jsonl"
    log.write_text("".join(json.dumps({"step": s, "seconds": 2.0 * s}) + "\n" for s in range(1, 6)) + '{"step": 6',
                   encoding="utf-8")
    assert trim_log(log, 3) == 6.0
    assert [json.loads(line)["step"] for line in log.read_text(encoding="utf-8").splitlines()] == [1, 2, 3]


def test_the_trn_setting_trains_on_a_task_s_own_training_split_and_never_on_a_held_out_instance():
    """BenchCLAMP's fine-tuned setting: the shipped config trains on the low-0 split's 500 training sentences and
    holds out half of the test subset; a training split that shares ids with the evaluation pool loses exactly the
    held-out ones."""
    config = load_config(Path(__file__).resolve().parents[2] / "docs/results/clamp-smollm2/finetuned/gum-low.yaml")
    (part,) = build_mix(config)
    assert len(part.train) == 500 and {i.id for i in part.train}.isdisjoint(i.id for i in part.heldout)
    assert 30 <= len(part.heldout) <= 70 and all(i.prompt.count("Human: ") == 1 for i in part.train)
    rows = sft_rows([part])
    assert rows[0]["completion"][0]["content"] == part.train[0].reference
    overlapping = parse_config({"method": "sft", "setting": "trn", "holdout": 0.5, "tasks": [{
        "task": "clamp-constituency", "options": {"eval_set": "dev", "shots": "0"},
        "train_options": {"eval_set": "dev"}}]})
    (same,) = build_mix(overlapping)
    assert len(same.train) + len(same.heldout) == 50  # the low split's 50 dev sentences, each on one side
    assert {i.id for i in same.train}.isdisjoint(i.id for i in same.heldout)
