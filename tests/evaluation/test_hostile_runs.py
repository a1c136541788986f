"""Runs that survive bad outputs and second writers: one writer per run directory, text sanitised where it
enters, configs that cannot make a summary loop for ever, temporary files of killed writes swept."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from corral.evaluation import LOCK_FILE, EvalSpec, RunError, evaluate, plan_run, read_records, run_lock
from corral.jsonl import atomic_write, dumps
from corral.models import Completion, ScriptedModel
from corral.text import scrub

WORDS = {"structure": ["word01"]}


def test_a_second_writer_is_refused_while_the_first_holds_the_run(tmp_path: Path) -> None:
    run = tmp_path / "run"
    holder = subprocess.Popen([sys.executable, "-c", (
        "import sys, time; from pathlib import Path; from corral.evaluation import run_lock\n"
        "with run_lock(Path(sys.argv[1])):\n    print('held', flush=True); time.sleep(60)"), str(run)],
        stdout=subprocess.PIPE)
    try:
        assert holder.stdout.readline().strip() == b"held"
        with pytest.raises(RunError, match=rf"being written by pid {holder.pid} on"):
            evaluate(EvalSpec(task="collie", model="scripted:s", where=WORDS, limit=1), run, model=ScriptedModel(["x"]))
    finally:
        holder.kill()
        holder.wait()
    # the holder died without cleaning up: its lock is stale and taken over
    assert (run / LOCK_FILE).exists()
    _, summary = evaluate(EvalSpec(task="collie", model="scripted:s", where=WORDS, limit=1), run,
                          model=ScriptedModel(["x"]))
    assert summary.complete and len(read_records(run)) == 1


def test_the_lock_is_released_when_the_block_ends(tmp_path: Path) -> None:
    with run_lock(tmp_path / "r"):
        pass
    with run_lock(tmp_path / "r"):
        assert f"pid {os.getpid()}" in (tmp_path / "r" / LOCK_FILE).read_text()


def test_a_lone_surrogate_from_a_model_is_replaced_flagged_and_never_poisons_a_rerun(tmp_path: Path) -> None:
    from corral.evaluation import ResponseCache

    cache = ResponseCache(tmp_path / "cache.sqlite3")
    model = ScriptedModel(["bad \ud800 output"])
    run, _ = evaluate(EvalSpec(task="collie", model="scripted:s", where=WORDS, limit=1), tmp_path / "run", model=model,
                      cache=cache)
    record = read_records(run)[0]
    assert record.output == "bad \ufffd output" and record.replaced == 1
    (run / "records.jsonl").unlink()  # a rerun reads the cached output: clean
    _, again = evaluate(EvalSpec(task="collie", model="scripted:s", where=WORDS, limit=1), run,
                        model=ScriptedModel([]), cache=cache)
    assert again.complete and read_records(run)[0].output == "bad \ufffd output"


def test_a_config_cannot_ask_for_a_billion_samples(tmp_path: Path) -> None:
    from corral.evaluation import read_config

    run = tmp_path / "run"
    run.mkdir()
    (run / "config.json").write_text(json.dumps({"task": "collie", "task_version": "1", "model": "m",
                                                 "backend": "scripted", "samples": 10**9}))
    with pytest.raises(RunError, match="samples"):
        read_config(run)
    with pytest.raises(ValueError, match=r"samples\n  Input should be less than or equal to 10000"):
        EvalSpec(task="collie", model="scripted:s", samples=10**9)  # refused before a run directory is made


def test_the_checker_failing_on_one_output_fails_that_sample_only(tmp_path: Path) -> None:
    from corral.tasks import Task, TaskInstance

    def check(instance, answer):
        if answer == "boom":
            raise RuntimeError("checker bug")
        from corral.verdicts import Verdict

        return Verdict.of([])

    task = Task(name="t", version="1", instances=lambda: iter([TaskInstance(id="a", prompt="p", target=None),
                                                                TaskInstance(id="b", prompt="p", target=None)]),
                check=check, grammar=lambda instance: None)
    run, summary = evaluate(plan_run(EvalSpec(task=task.name, model="scripted:s"), task), tmp_path / "run",
                            model=ScriptedModel(["boom", "fine"]))
    records = {r.instance: r for r in read_records(run)}
    assert not records["a"].passed and "checker bug" in records["a"].violations[0]["message"]
    assert records["b"].passed and summary.complete


def test_text_scrubbing():
    assert scrub("plain") == ("plain", 0)
    assert scrub("a\ud800b\udfff") == ("a\ufffdb\ufffd", 2)
    assert scrub("😀") == ("😀", 0)  # a real astral character is not a surrogate in a Python string
    completion = Completion("x\udc80", "stop", error="e\ud800")
    assert completion.text == "x\ufffd" and completion.replaced == 1 and completion.error == "e\ufffd"


def test_json_lines_with_a_lone_surrogate_are_written_escaped_and_read_back_equal():
    line = dumps({"text": "a\ud800"})
    line.encode("utf-8")
    assert json.loads(line) == {"text": "a\ud800"}


def test_a_killed_writes_temporary_file_is_swept_by_the_next_write(tmp_path: Path) -> None:
    target = tmp_path / "out.jsonl"
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    left = tmp_path / f".out.jsonl.{dead.stdout.strip()}.abc123.tmp"
    left.write_text("half")
    mine = tmp_path / f".out.jsonl.{os.getpid()}.zzz.tmp"  # a live writer's file stays
    mine.write_text("busy")
    atomic_write(target, "done\n")
    assert target.read_text() == "done\n" and not left.exists() and mine.exists()


def test_a_served_model_answering_with_a_lone_surrogate_never_breaks_a_run(tmp_path: Path) -> None:
    """A real HTTP server on 127.0.0.1 sends "\\ud800" in its JSON: the run records it replaced and flagged; a rerun
    from the cache and a run without it both finish (this output used to poison the cache for good)."""
    from corral.evaluation import ResponseCache

    from ..models._servers import ScriptedServer, completion_reply

    options = {"backoff_base": 0.01, "backoff_max": 0.05}
    with ScriptedServer([completion_reply("one \ud800 two")]) as server:
        cache = ResponseCache(tmp_path / "cache.sqlite3")
        run, summary = evaluate(EvalSpec(task="collie", model="openai:m", where=WORDS, limit=1, base_url=server.url,
                                         model_options=options), tmp_path / "run", cache=cache)
        assert summary.complete and server.hits == 1
        record = read_records(run)[0]
        assert record.output == "one \ufffd two" and record.replaced == 1
        again, summary = evaluate(EvalSpec(task="collie", model="openai:m", where=WORDS, limit=1, base_url=server.url,
                                           model_options=options), tmp_path / "again", cache=cache)
        assert summary.complete and server.hits == 1 and read_records(again)[0].cached
        fresh, summary = evaluate(EvalSpec(task="collie", model="openai:m", where=WORDS, limit=1, base_url=server.url,
                                           model_options=options), tmp_path / "fresh")
        assert summary.complete and server.hits == 2 and read_records(fresh)[0].output == "one \ufffd two"
