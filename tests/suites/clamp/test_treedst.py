"""TreeDST (``clamp-treedst``): Lispress dialogues in the dataflow format read from the user's folder (here small
files written in that format, one gzipped), turns with their context and ``skip`` left out, the grammar induced
from the training programs, coverage, a run scored by Lispress match, and one-line errors."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from corral.cli import app
from corral.errors import InputError
from corral.evaluation import EvalSpec, evaluate, plan_run, read_records
from corral.grammars import accepts
from corral.models import ScriptedModel
from corral.suites.clamp import read_dataflow_dialogues, treedst_coverage, treedst_grammar, treedst_turns
from corral.tasks import get_task

FOLDER = str(Path(__file__).parent / "data" / "treedst")


def test_turns_read_with_their_context_and_skipped_turns_left_out():
    train = treedst_turns(FOLDER, "train")
    assert [t.id for t in train] == ["dst-train-0001_0", "dst-train-0001_1", "dst-train-0002_0", "dst-train-0002_2",
                                     "dst-train-0003_0"]
    revise = train[1]
    assert (revise.utterance, revise.last_user, revise.last_agent) == (
        "make it tomorrow morning", "book a flight to Boston", "Which day?")
    assert train[3].last_user == "ok"  # a skipped turn is still the next one's context
    everything = read_dataflow_dialogues(Path(FOLDER) / "train_dst.dataflow_dialogues.jsonl", skipped=True)
    assert len(everything) == 6 and everything[3].skip
    assert len(treedst_turns(FOLDER, "test")) == 2  # read from the .gz file


def test_the_grammar_induced_from_training_programs_covers_what_it_has_seen():
    grammar = treedst_grammar(FOLDER)
    dev = treedst_turns(FOLDER, "dev")
    assert all(accepts(grammar, turn.lispress) for turn in dev)
    assert not accepts(grammar, "(Yield (Book (Constraint[Flight] :destination (?= #(Location Denver)))))")
    found = treedst_coverage(FOLDER)
    assert (found.examples, found.covered, found.reasons) == (2, 1, (("grammar", 1),))  # Cancel is never seen
    result = CliRunner().invoke(app, ["clamp", "coverage", "--limit", "1", "--part", "dev", "--treedst", FOLDER])
    assert result.exit_code == 0, result.output
    assert "treedst" in result.output


def test_a_run_scores_lispress_match(tmp_path):
    task = get_task("clamp-treedst", data=FOLDER, eval_set="dev", shots=2)
    chosen = list(task.instances())
    assert [i.id for i in chosen] == ["dst-dev-0001_0", "dst-dev-0001_1"]
    assert "Human: book a flight to Boston\nComputer: (Yield (Book" in chosen[0].prompt  # the closest example
    small = dataclasses.replace(task, instances=lambda: chosen)
    answers = ["  " + chosen[0].reference.replace(" ", "  "), "(Yield (Book"]
    run, summary = evaluate(plan_run(EvalSpec(task=small.name, model="scripted:s",
                                              task_options={"data": FOLDER, "eval_set": "dev", "shots": "2"}), small),
                            tmp_path / "run", model=ScriptedModel(answers))
    records = read_records(run)
    assert [r.quality["exact_match"] for r in records] == [1.0, 0.0]
    assert [r.passed for r in records] == [True, False]
    assert summary.quality["well_formed"] == pytest.approx(0.5)


def test_missing_or_broken_data_is_one_line(tmp_path):
    with pytest.raises(InputError, match="needs -T data=FOLDER: TreeDST in Lispress"):
        next(iter(get_task("clamp-treedst").instances()))
    with pytest.raises(InputError, match=r"no train_dst\.dataflow_dialogues\.jsonl"):
        treedst_turns(str(tmp_path), "train")
    result = CliRunner().invoke(app, ["eval", "clamp-treedst", "-T", f"data={tmp_path}", "--limit", "1",
                                      "--out", str(tmp_path / "run")])
    assert result.exit_code == 2
    assert "train_dst.dataflow_dialogues.jsonl" in result.output and "Traceback" not in result.output
    broken = tmp_path / "train_dst.dataflow_dialogues.jsonl"
    turn = {"turn_index": 0, "user_utterance": {"original_text": "hi"}, "skip": False}
    broken.write_text(json.dumps({"dialogue_id": "d", "turns": [turn]}) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"line 1: turns\[0\].lispress: missing"):
        read_dataflow_dialogues(broken)
    broken.write_text('{"dialogue_id": "d", "turns": [\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"jsonl:1:32: malformed JSON"):  # file, line and column
        read_dataflow_dialogues(broken)
