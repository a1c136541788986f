"""Hostile files named to every ``corral`` command that reads or writes one: a FIFO, ``/dev/zero``, a directory, a
symlink loop, a missing file, a name longer than the file system allows, a file past its size cap; for outputs
``/dev/full``, a directory or a file in the way; and run directories whose files are links out of the run, FIFOs,
devices, directories or garbage. Each command answers in bounded time with exit 2 and one ``error:`` line naming the
path (or, for a run's derived files, goes on without them), never a traceback, a hang or endless growth, and never
writes through a link out of a run.

Cases run in-process under the watchdog of ``test_hostile`` (a hang fails the test instead of stalling CI).
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from .test_hostile import invoke

LONG = "x" * 300  # past the 255 bytes a file name may have
SECONDS = 20.0
SCRIPTED = ["--model", "scripted:s"]
EVAL_OPTIONS = ["--no-cache", "--no-report"]


@pytest.fixture(scope="module")
def place(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Good files to pair a hostile one with, and each hostile kind under every suffix the commands look at."""
    root = tmp_path_factory.mktemp("files")
    (root / "schema.json").write_text('{"type": "object", "properties": {"a": {"type": "string"}}}')
    (root / "sample.json").write_text('{"a": "x"}')
    (root / "batch.jsonl").write_text(json.dumps({"constraint": "count(text, word) == 2", "text": "two words"}) + "\n")
    from corral.suites.collie import instances

    first = next(iter(instances()))
    (root / "generations.jsonl").write_text(json.dumps({"code": first.code, "targets": first.targets,
                                                        "text": first.example}) + "\n")
    (root / "in-the-way").write_text("a file where a folder is wanted\n")
    for suffix in (".json", ".jsonl", ".lark"):
        os.mkfifo(root / f"pipe{suffix}")
        (root / f"zero{suffix}").symlink_to("/dev/zero")
        (root / f"folder{suffix}").mkdir()
        (root / f"loop{suffix}").symlink_to(root / f"loop{suffix}")
        with (root / f"huge{suffix}").open("wb") as sparse:
            sparse.truncate(5 * 1024**3)  # 5 GiB of holes: past every cap, and nothing to read
    (root / "empty").mkdir()
    return root


# kind -> (file name before the suffix, what the error line says)
INPUT_KINDS: dict[str, tuple[str, str]] = {
    "fifo": ("pipe", r"not a regular file \(a FIFO\)"),
    "/dev/zero": ("zero", r"not a regular file \(a character device\)"),
    "directory": ("folder", r"not a regular file \(a directory\)"),
    "symlink loop": ("loop", r"Too many levels of symbolic links"),
    "missing": ("absent", r"(?i)no such file"),
    "300-character name": (LONG, r"File name too long"),
    "past the cap": ("huge", r"bytes; the limit is|larger than"),
}

# command -> (argv with {path} for the hostile file, the suffix it is given)
READERS: dict[str, tuple[list[str], str]] = {
    "check --batch": (["check", "--batch", "{path}"], ".jsonl"),
    "check --format --instance JSON": (["check", "--format", "mcq", "--instance", "{path}", "--output", "A"], ".json"),
    "check --format --instance JSONL": (["check", "--format", "mcq", "--instance", "{path}", "--output", "A"],
                                        ".jsonl"),
    "schema validate SCHEMA": (["schema", "validate", "{path}", "{place}/sample.json"], ".json"),
    "schema validate SAMPLE": (["schema", "validate", "{place}/schema.json", "{path}"], ".json"),
    "schema render": (["schema", "render", "{path}"], ".json"),
    "schema mutate": (["schema", "mutate", "{place}/schema.json", "{path}"], ".json"),
    "eval INSTANCES.jsonl": (["eval", "{path}", *SCRIPTED, *EVAL_OPTIONS, "--out", "{tmp}/run"], ".jsonl"),
    "generate --schema": (["generate", "hi", *SCRIPTED, "--schema", "{path}"], ".json"),
    "generate --lark": (["generate", "hi", *SCRIPTED, "--lark", "{path}"], ".lark"),
    "collie check --generations": (["collie", "check", "--generations", "{path}"], ".jsonl"),
    "train sft --config": (["train", "sft", "--config", "{path}"], ".json"),
}


def _fill(args: list[str], **values: Path | str) -> list[str]:
    return [arg.format(**values) for arg in args]


def _one_error_line(result, path: Path | str, pattern: str | None, *, alone: bool = True) -> str:
    """The command's one ``error:`` line, which names ``path`` and matches ``pattern``; with ``alone``, nothing
    else was printed."""
    lines = [line for line in result.output.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("error:")]
    assert result.exit_code == 2, result.output[-1500:]
    assert len(errors) == 1, result.output[-1500:]
    assert not alone or lines == errors, result.output[-1500:]
    assert str(path) in errors[0], errors[0]
    assert pattern is None or re.search(pattern, errors[0]), errors[0]
    return errors[0]


@pytest.mark.parametrize("kind", list(INPUT_KINDS))
@pytest.mark.parametrize("command", list(READERS))
def test_every_command_refuses_a_hostile_input_file_in_one_line(place: Path, tmp_path: Path, command: str,
                                                                kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CORRAL_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)  # a command that writes by default writes here
    args, suffix = READERS[command]
    name, pattern = INPUT_KINDS[kind]
    path = place / f"{name}{suffix}"
    if command == "check --format --instance JSONL" and kind == "past the cap":
        pattern = "larger than 50,000,000 bytes"  # its own, smaller cap, checked first
    result, elapsed = invoke(_fill(args, path=path, place=place, tmp=tmp_path), seconds=SECONDS + 40)
    _one_error_line(result, path, pattern)
    assert elapsed < SECONDS, f"took {elapsed:.1f} s"


@pytest.mark.parametrize(("content", "pattern"), [
    (b"[" * 100_000 + b"]" * 100_000, r":1: JSON nested too deeply to read$"),
    (b'{"id": "a", "constraint": "count(text, word) == 1", "n": ' + b"9" * 5000 + b"}",
     r":1:58: an integer of more than 4,300 digits$"),
    (b'{"id": "a", "constraint": "caf\xe9"}', r":1: not UTF-8 text"),
    (b'{"id": "a", "constraint": "' + b"x" * 10_000_000, None),  # one 10 MB line, cut off: still one line
])
def test_a_hostile_instances_file_is_one_line_naming_its_line(tmp_path: Path, content: bytes, pattern: str | None,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "instances.jsonl"
    path.write_bytes(content + b"\n")
    result, elapsed = invoke(["eval", str(path), *SCRIPTED, *EVAL_OPTIONS, "--out", str(tmp_path / "run")],
                             seconds=SECONDS + 40)
    _one_error_line(result, path, pattern)
    assert elapsed < SECONDS


def test_standard_input_is_capped_like_a_file() -> None:
    """``corral schema render -`` reads at most what a schema file may hold: ``< /dev/zero`` is one line, not a
    process that grows until it is killed (a real process: the stream is the device itself)."""
    import subprocess
    import sys

    with open("/dev/zero", "rb") as zero:
        done = subprocess.run([sys.executable, "-m", "corral.cli", "schema", "render", "-"], stdin=zero,
                              capture_output=True, timeout=120)
    assert done.returncode == 2 and b"Traceback" not in done.stderr
    assert done.stderr.decode().strip() == "error: standard input: more than 67,108,864 bytes"


def test_a_corpus_that_is_not_a_regular_file_is_one_line(place: Path, tmp_path: Path) -> None:
    for name in ("pipe.jsonl", "zero.jsonl", "loop.jsonl", "absent.jsonl"):
        result, elapsed = invoke(["build", "collie-v1", "--corpus", str(place / name), "--out",
                                  str(tmp_path / "b.jsonl")], seconds=SECONDS + 40)
        _one_error_line(result, place / name, None)
        assert elapsed < SECONDS


# ------------------------------------------------------------------------------------------------ outputs

# kind -> (where the output goes, relative to the test's folder or absolute; what the error line says)
FILE_OUTPUTS: dict[str, tuple[str, str]] = {
    "/dev/full": ("/dev/full", "No space left on device"),
    "300-character name": (LONG, "File name too long"),
    "a directory": ("{place}/empty", "Is a directory"),
    "below a file": ("{place}/in-the-way/out.jsonl", "Not a directory"),
    "a FIFO with no reader": ("{place}/pipe.jsonl", "a FIFO with no reader"),
}
FILE_WRITERS: dict[str, list[str]] = {
    "check --batch --out": ["check", "--batch", "{place}/batch.jsonl", "--out", "{out}"],
    "collie check --out": ["collie", "check", "--generations", "{place}/generations.jsonl", "--out", "{out}"],
}


@pytest.mark.parametrize("kind", list(FILE_OUTPUTS))
@pytest.mark.parametrize("command", list(FILE_WRITERS))
def test_an_output_file_that_cannot_be_written_is_one_line(place: Path, tmp_path: Path, command: str,
                                                           kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    where, pattern = FILE_OUTPUTS[kind]
    out = where.format(place=place)
    result, elapsed = invoke(_fill(FILE_WRITERS[command], place=place, out=out), seconds=SECONDS + 40)
    _one_error_line(result, out, pattern, alone=False)  # collie check prints its table of what it checked
    assert elapsed < SECONDS


FOLDER_OUTPUTS: dict[str, tuple[str, str]] = {
    "300-character name": (LONG, "File name too long"),
    "a file in the way": ("{place}/in-the-way", "Not a directory|is a file"),
    "/dev/full": ("/dev/full", "Not a directory|is a file"),
}
FOLDER_WRITERS: dict[str, list[str]] = {
    "schema gen --out": ["schema", "gen", "--n", "1", "--out", "{out}"],
    "report --out": ["report", "{run}", "--out", "{out}"],
    "eval --out": ["eval", "collie", *SCRIPTED, "--limit", "1", *EVAL_OPTIONS, "--out", "{out}"],
}


@pytest.mark.parametrize("kind", list(FOLDER_OUTPUTS))
@pytest.mark.parametrize("command", list(FOLDER_WRITERS))
def test_an_output_folder_that_cannot_be_made_is_one_line(place: Path, base_run: Path, tmp_path: Path,
                                                          command: str, kind: str,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CORRAL_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    where, pattern = FOLDER_OUTPUTS[kind]
    out = where.format(place=place)
    result, elapsed = invoke(_fill(FOLDER_WRITERS[command], out=out, run=base_run), seconds=SECONDS + 40)
    _one_error_line(result, out, pattern, alone=False)
    assert elapsed < SECONDS
    assert Path("/dev/full").is_char_device()  # nothing replaced the device


# ------------------------------------------------------------------------------------------------ run directories


@pytest.fixture(scope="module")
def base_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run directory as ``corral eval`` leaves it (the scripted model has no outputs: an incomplete run, exit 4),
    with every file a run may hold."""
    root = tmp_path_factory.mktemp("runs")
    run = root / "base"
    result, _ = invoke(["eval", "collie", *SCRIPTED, "--limit", "1", *EVAL_OPTIONS, "--out", str(run)], seconds=120)
    assert result.exit_code == 4, result.output
    (run / "likelihoods.jsonl").write_text("")
    assert {"config.json", "records.jsonl", "errors.jsonl", "runtime.json", "summary.json", "run.lock"} <= {
        p.name for p in run.iterdir()}
    return run


def _damaged(base: Path, tmp_path: Path, name: str, kind: str) -> tuple[Path, Path]:
    """A copy of ``base`` with its file ``name`` made ``kind``; and a file outside the run that must stay as it is."""
    run, outside = tmp_path / "run", tmp_path / "outside.txt"
    shutil.copytree(base, run, symlinks=True)
    outside.write_text("precious\n")
    target = run / name
    if target.is_dir() and not target.is_symlink():
        shutil.rmtree(target)
    else:
        target.unlink(missing_ok=True)
    if kind == "link out of the run":
        target.symlink_to(outside)
    elif kind == "fifo":
        os.mkfifo(target)
    elif kind == "/dev/zero":
        target.symlink_to("/dev/zero")
    elif kind == "directory":
        target.mkdir()
    elif kind == "garbage":
        target.write_bytes(b'[[[{"x": \xff\x00')
    elif kind == "wrong type":
        target.write_text('{"runtime": 5}')
    elif kind == "nested 100,000 deep":
        target.write_text("[" * 100_000 + "]" * 100_000)
    elif kind == "5,000-digit integer":
        target.write_text("[" + "9" * 5000 + "]")
    return run, outside


HOSTILE = ["link out of the run", "fifo", "/dev/zero", "directory"]
RUN_FILES = ["config.json", "records.jsonl", "errors.jsonl", "likelihoods.jsonl", "run.lock"]
DERIVED = ["runtime.json", "summary.json"]
CONTENTS = ["garbage", "wrong type", "nested 100,000 deep", "5,000-digit integer"]


def _eval(run: Path) -> list[str]:
    return ["eval", "collie", *SCRIPTED, "--limit", "1", *EVAL_OPTIONS, "--out", str(run)]


@pytest.mark.parametrize("kind", HOSTILE)
@pytest.mark.parametrize("name", RUN_FILES)
def test_eval_refuses_a_run_file_that_is_not_its_own_regular_file(base_run: Path, tmp_path: Path, name: str,
                                                                  kind: str,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CORRAL_CACHE_DIR", str(tmp_path / "cache"))
    run, outside = _damaged(base_run, tmp_path, name, kind)
    result, elapsed = invoke(_eval(run), seconds=SECONDS + 40)
    line = _one_error_line(result, run / name, None, alone=False)
    assert re.search(r"not a regular file|Is a directory", line), line
    assert elapsed < SECONDS
    assert outside.read_text() == "precious\n"


@pytest.mark.parametrize("kind", [*HOSTILE, *CONTENTS])
@pytest.mark.parametrize("name", DERIVED)
def test_eval_rebuilds_a_derived_run_file_it_cannot_use(base_run: Path, tmp_path: Path, name: str, kind: str,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """``runtime.json`` and ``summary.json`` are derived: one that cannot be used is taken for absent and written
    anew (a link replaced, never written through); only a directory in the way stops the run, in one line."""
    monkeypatch.setenv("CORRAL_CACHE_DIR", str(tmp_path / "cache"))
    run, outside = _damaged(base_run, tmp_path, name, kind)
    result, elapsed = invoke(_eval(run), seconds=SECONDS + 40)
    assert elapsed < SECONDS
    assert outside.read_text() == "precious\n"
    if kind == "directory":
        _one_error_line(result, run / name, "Is a directory", alone=False)
        return
    assert result.exit_code == 4, result.output[-1500:]  # incomplete (the scripted model has no outputs), no error
    assert (run / name).is_file() and not (run / name).is_symlink()
    assert json.loads((run / name).read_text())  # written anew


@pytest.mark.parametrize("kind", [*HOSTILE, "garbage"])
@pytest.mark.parametrize("name", ["config.json", "records.jsonl"])
def test_report_refuses_a_run_whose_own_files_are_hostile(base_run: Path, tmp_path: Path, name: str,
                                                          kind: str) -> None:
    run, outside = _damaged(base_run, tmp_path, name, kind)
    result, elapsed = invoke(["report", str(run), "--out", str(tmp_path / "report")], seconds=SECONDS + 40)
    _one_error_line(result, run / name, None)
    assert elapsed < SECONDS and outside.read_text() == "precious\n"


@pytest.mark.parametrize("kind", [*HOSTILE, *CONTENTS])
@pytest.mark.parametrize("name", ["runtime.json", "summary.json", "errors.jsonl"])
def test_report_goes_without_a_derived_file_it_cannot_use(base_run: Path, tmp_path: Path, name: str,
                                                          kind: str) -> None:
    run, outside = _damaged(base_run, tmp_path, name, kind)
    result, elapsed = invoke(["report", str(run), "--out", str(tmp_path / "report")], seconds=SECONDS + 40)
    assert result.exit_code == 0, result.output[-1500:]
    assert (tmp_path / "report" / "report.md").is_file()
    assert elapsed < SECONDS and outside.read_text() == "precious\n"


def test_runs_lists_a_hostile_run_as_an_error_row(base_run: Path, tmp_path: Path) -> None:
    _damaged(base_run, tmp_path, "config.json", "fifo")
    result, elapsed = invoke(["runs", str(tmp_path)], seconds=SECONDS + 40)
    assert result.exit_code == 0 and elapsed < SECONDS, result.output
    _damaged(base_run, tmp_path / "second", "records.jsonl", "/dev/zero")
    result, elapsed = invoke(["runs", str(tmp_path / "second")], seconds=SECONDS + 40)
    assert result.exit_code == 0 and "error" in result.output and elapsed < SECONDS, result.output


# ------------------------------------------------------------------------------------------------ training runs


def test_a_training_run_s_files_are_read_only_as_its_own_regular_files(tmp_path: Path) -> None:
    from corral.errors import InputError
    from corral.training import last_checkpoint, read_steps, resumed_step, trim_log

    run, outside = tmp_path / "train", tmp_path / "outside.jsonl"
    run.mkdir()
    outside.write_text('{"step": 1, "seconds": 1.0}\n')
    (run / "steps.jsonl").symlink_to(outside)
    with pytest.raises(InputError, match=r"steps.jsonl: not a regular file"):
        trim_log(run / "steps.jsonl", 0)
    with pytest.raises(InputError, match=r"steps.jsonl: not a regular file"):
        read_steps(run)
    assert outside.read_text() == '{"step": 1, "seconds": 1.0}\n'
    (run / "steps.jsonl").unlink()
    (run / "steps.jsonl").write_text("\n".join([
        '{"step": 1, "seconds": 2.0}', "[" * 100_000, '{"step": ' + "9" * 5000 + "}", "[1, 2]",
        '{"step": "two"}', '{"step": 2, "seconds": 1e999}', '{"step": 3, "seconds": 3.0}', '{"step": 9']) + "\n")
    assert [row["step"] for row in read_steps(run)] == [1, 2, 3]  # the rows that are steps, garbage left out
    assert trim_log(run / "steps.jsonl", 2) == 2.0  # a step's seconds that are not a finite time do not count
    assert [row["step"] for row in read_steps(run)] == [1]
    checkpoint = run / "checkpoints" / "checkpoint-5"
    checkpoint.mkdir(parents=True)
    os.mkfifo(checkpoint / "trainer_state.json")
    assert last_checkpoint(run) is None  # a FIFO is no state: set aside as incomplete, not waited on
    assert (run / "incomplete-checkpoint-5").is_dir()
    good = run / "checkpoints" / "checkpoint-6"
    good.mkdir()
    (good / "trainer_state.json").write_text('{"global_step": 6}')
    assert resumed_step(last_checkpoint(run)) == 6
