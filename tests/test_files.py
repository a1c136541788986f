"""Input files a user names: regular files only, opened without blocking, capped in size; each refusal one line
naming the path, from the library and from every command that reads such a file."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from corral.cli import app
from corral.errors import InputError
from corral.files import open_input, read_input_text
from corral.jsonl import JsonlError, parse_line, read_jsonl

from .cli.test_hostile import watchdog

runner = CliRunner()


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return path


def _kinds(tmp_path: Path, fifo: Path) -> dict[str, tuple[Path, str]]:
    return {"fifo": (fifo, "a FIFO"), "device": (Path("/dev/zero"), "a character device"),
            "directory": (tmp_path, "a directory")}


@pytest.mark.parametrize("kind", ["fifo", "device", "directory"])
def test_what_is_not_a_regular_file_is_refused_at_once(tmp_path, fifo, kind):
    path, named = _kinds(tmp_path, fifo)[kind]
    with watchdog(10), pytest.raises(InputError, match=f"{path}: not a regular file \\({named}\\)"):
        open_input(path)
    with watchdog(10), pytest.raises(JsonlError, match="not a regular file"):
        read_jsonl(path)


def test_a_missing_file_a_loop_and_a_file_past_the_cap(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        open_input(tmp_path / "absent.json")
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    with pytest.raises(InputError, match="cannot read"):
        open_input(loop)
    big = tmp_path / "big.json"
    big.write_bytes(b" " * 101)
    with pytest.raises(InputError, match="101 bytes; the limit is 100"):
        open_input(big, max_bytes=100)
    assert open_input(big, max_bytes=101).read() == b" " * 101


def test_text_is_utf8_or_named_by_offset(tmp_path):
    path = tmp_path / "s.json"
    path.write_bytes(b'{"a": "\xff"}')
    with pytest.raises(InputError, match=r"not UTF-8 text .* at byte 7"):
        read_input_text(path)
    path.write_text('{"a": "é"}', encoding="utf-8")
    assert read_input_text(path) == '{"a": "é"}'


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 6000))
def test_an_integer_of_any_length_is_a_value_or_one_line(digits):
    line = '{"n": ' + "7" * digits + "}"
    try:
        row = parse_line(line, "f.jsonl", 4)
    except JsonlError as exc:
        assert digits > 4300 and str(exc) == "f.jsonl:4: an integer of more than 4,300 digits"
    else:
        assert digits <= 4300 and row["n"] == int("7" * digits)


@pytest.mark.parametrize("kind", ["fifo", "device", "directory"])
@pytest.mark.parametrize("command", [["check", "--batch", "{}"], ["schema", "validate", "{}", "{}"],
                                     ["schema", "render", "{}"]])
def test_every_command_that_reads_a_file_refuses_it_in_one_line(tmp_path, fifo, kind, command):
    path, named = _kinds(tmp_path, fifo)[kind]
    with watchdog(20):
        result = runner.invoke(app, [part.format(path) for part in command])
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert lines == [f"error: {path}: not a regular file ({named})"], result.output


def test_a_regular_batch_file_is_still_read(tmp_path):
    batch = tmp_path / "b.jsonl"
    batch.write_text(json.dumps({"constraint": "count(text, word) == 2", "text": "two words"}) + "\n")
    result = runner.invoke(app, ["check", "--batch", str(batch)])
    assert result.exit_code == 0 and '"passed": true' in result.output
