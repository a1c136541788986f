"""corral.files: input files are regular files only, opened without blocking, capped in size and (in a run
directory) never reached through a link; JSON read from them is bounded in depth and integer length; every failed
write is one OutputError naming the path. Real files, FIFOs and devices throughout: nothing of the OS is mocked."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from corral.errors import CorralError, InputError, OutputError
from corral.files import (
    MAX_JSON_DEPTH,
    integer_too_long_at,
    open_input,
    open_output,
    open_regular,
    parse_json,
    read_input_bytes,
    read_input_json,
    read_input_text,
    writing,
)
from corral.jsonl import JsonlError, atomic_write, parse_line, read_jsonl

from .cli.test_hostile import watchdog

LONG_NAME = "x" * 300  # past the 255 bytes a file name may have: ENAMETOOLONG
FIXTURE = settings(suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None, max_examples=40)


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return path


def _kinds(tmp_path: Path, fifo: Path) -> dict[str, tuple[Path, str]]:
    return {"fifo": (fifo, "a FIFO"), "device": (Path("/dev/zero"), "a character device"),
            "directory": (tmp_path, "a directory")}


# ------------------------------------------------------------------------------------------------ what is opened


@pytest.mark.parametrize("kind", ["fifo", "device", "directory"])
def test_what_is_not_a_regular_file_is_refused_at_once(tmp_path, fifo, kind):
    path, named = _kinds(tmp_path, fifo)[kind]
    message = f"^{path}: not a regular file \\({named}\\)$"
    with watchdog(10):  # a FIFO would block a plain open() for ever; /dev/zero would be read for ever
        with pytest.raises(InputError, match=message):
            open_input(path)
        with pytest.raises(InputError, match=message):
            read_input_text(path)
        with pytest.raises(InputError, match=message):
            read_input_json(path)
        with pytest.raises(JsonlError, match=r"not a regular file"):
            read_jsonl(path)


def test_a_missing_file_a_loop_a_long_name_and_a_file_past_the_cap(tmp_path):
    with pytest.raises(InputError, match=r"absent.json: no such file$"):
        open_input(tmp_path / "absent.json")
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    with pytest.raises(InputError, match=r"loop: cannot read: Too many levels of symbolic links$"):
        open_input(loop)
    with pytest.raises(InputError, match=f"{LONG_NAME}: cannot read: File name too long$"):
        open_input(tmp_path / LONG_NAME)
    big = tmp_path / "big.json"
    big.write_bytes(b" " * 101)
    with pytest.raises(InputError, match=r"101 bytes; the limit is 100$"):
        open_input(big, max_bytes=100)
    with pytest.raises(InputError, match=r"101 bytes; the limit is 100$"):
        read_input_bytes(big, max_bytes=100)
    with open_input(big, max_bytes=101) as stream:
        assert stream.read() == b" " * 101
    with open_input(big, max_bytes=None) as stream:  # no cap: a streamed file such as a corpus
        assert len(stream.read()) == 101


def test_a_sparse_file_past_the_cap_is_refused_unread(tmp_path):
    huge = tmp_path / "huge.jsonl"
    with huge.open("wb") as stream:
        stream.truncate(5 * 1024**3)  # 5 GiB of holes: its size is known at once, nothing is read
    with watchdog(10), pytest.raises(JsonlError, match=r"5,368,709,120 bytes; the limit is 4,294,967,296$"):
        read_jsonl(huge)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_a_file_without_read_permission_names_the_reason(tmp_path):
    secret = tmp_path / "secret.json"
    secret.write_text("{}")
    secret.chmod(0)
    with pytest.raises(InputError, match=r"secret.json: cannot read: Permission denied$"):
        open_input(secret)


def test_within_a_folder_no_link_is_followed_and_nothing_outside_is_reached(tmp_path):
    run, outside = tmp_path / "run", tmp_path / "outside.json"
    run.mkdir()
    outside.write_text('{"secret": 1}')
    (run / "config.json").write_text('{"mine": 1}')
    assert read_input_json(run / "config.json", within=run) == {"mine": 1}
    (run / "leaves.json").symlink_to(outside)
    (run / "stays.json").symlink_to(run / "config.json")  # a link is refused even when it stays inside
    (run / "dangling.json").symlink_to(run / "nowhere")
    (run / "zero.json").symlink_to("/dev/zero")
    for name in ("leaves.json", "stays.json", "dangling.json", "zero.json"):
        with watchdog(10), pytest.raises(InputError, match=f"{name}: not a regular file \\(a symbolic link; "):
            read_input_json(run / name, within=run)
    (run / "sub").symlink_to(tmp_path)  # a folder on the way that leads out
    with pytest.raises(InputError, match=r"outside .*run"):
        open_input(run / "sub" / "outside.json", within=run)
    assert read_input_json(run / "leaves.json") == {"secret": 1}  # without ``within``, a user's link is followed


def test_a_descriptor_for_a_lock_is_a_regular_file_of_the_folder(tmp_path, fifo):
    descriptor = open_regular(tmp_path / "run.lock", os.O_RDWR | os.O_CREAT, within=tmp_path, output=True)
    os.close(descriptor)
    with pytest.raises(OutputError, match=r"not a regular file \(a FIFO\)"):
        open_regular(fifo, os.O_RDWR, within=tmp_path, output=True)
    (tmp_path / "link.lock").symlink_to(tmp_path / "run.lock")
    with pytest.raises(OutputError, match=r"a symbolic link"):
        open_regular(tmp_path / "link.lock", os.O_RDWR | os.O_CREAT, within=tmp_path, output=True)


# ------------------------------------------------------------------------------------------------ text and JSON


def test_text_is_utf8_or_named_by_line_and_offset(tmp_path):
    path = tmp_path / "s.json"
    path.write_bytes(b'{\n"a": "\xff"}')
    with pytest.raises(InputError, match=r"s.json:2: not UTF-8 text \(invalid start byte at byte 8\)$"):
        read_input_text(path)
    path.write_text('{"a": "é"}', encoding="utf-8")
    assert read_input_text(path) == '{"a": "é"}'


def test_json_errors_name_the_file_the_line_and_the_column(tmp_path):
    path = tmp_path / "s.json"
    path.write_text('{\n  "a": [1,\n  2,, 3]}')
    with pytest.raises(InputError, match=r"s.json:3:5: malformed JSON \(Expecting value\)$"):
        read_input_json(path)
    path.write_text('{\n  "text": "' + "9" * 5000 + '",\n  "n": -' + "7" * 5000 + "}")
    with pytest.raises(InputError, match=r"s.json:3:8: an integer of more than 4,300 digits$"):
        read_input_json(path)
    path.write_text("[" * 100_000 + "]" * 100_000)  # past the interpreter's recursion limit
    with pytest.raises(InputError, match=f"s.json: JSON nested more than {MAX_JSON_DEPTH} deep$"):
        read_input_json(path)
    path.write_text('{"a": ' * 300 + "1" + "}" * 300)  # below it, but past the bound
    with pytest.raises(InputError, match=f"s.json: JSON nested more than {MAX_JSON_DEPTH} deep$"):
        read_input_json(path)
    assert read_input_json(path, max_depth=300)["a"]["a"]["a"] is not None


@FIXTURE
@given(depth=st.integers(0, 3000), kind=st.sampled_from(["[", '{"k": ']))
def test_any_nesting_is_a_value_or_one_line(depth, kind):
    text = kind * depth + "0" + ("]" if kind == "[" else "}") * depth
    try:
        value = parse_json(text, "f.json")
    except InputError as exc:
        assert depth > MAX_JSON_DEPTH and str(exc) == f"f.json: JSON nested more than {MAX_JSON_DEPTH} deep"
    else:
        assert depth <= MAX_JSON_DEPTH
        for _ in range(depth):
            value = value[0] if kind == "[" else value["k"]
        assert value == 0


@FIXTURE
@given(digits=st.integers(1, 6000), before=st.integers(0, 3), sign=st.sampled_from(["", "-"]),
       in_string=st.booleans())
def test_an_integer_of_any_length_is_a_value_or_one_line_naming_where(digits, before, sign, in_string):
    number = sign + "7" * digits
    lines = [f'"pad{i}": "{"9" * 4400 if in_string else "x"}",' for i in range(before)]
    text = "{\n" + "\n".join(lines) + ("\n" if lines else "") + f'"n": {number}\n}}'
    try:
        value = parse_json(text, "f.json")
    except InputError as exc:
        assert digits > 4300
        assert str(exc) == f"f.json:{before + 2}:6: an integer of more than 4,300 digits"
        assert integer_too_long_at(text) == (before + 2, 6)
    else:
        assert digits <= 4300 and value["n"] == int(number)


@FIXTURE
@given(digits=st.integers(1, 6000))
def test_a_json_line_with_an_integer_of_any_length_is_a_row_or_one_line(digits):
    line = '{"n": ' + "7" * digits + "}"
    try:
        row = parse_line(line, "f.jsonl", 4)
    except JsonlError as exc:
        assert digits > 4300 and str(exc) == "f.jsonl:4:7: an integer of more than 4,300 digits"
    else:
        assert digits <= 4300 and row["n"] == int("7" * digits)


VALUES = st.recursive(st.none() | st.booleans() | st.integers() | st.text(),
                      lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner,
                                                                                   max_size=4), max_leaves=20)


@FIXTURE
@given(value=VALUES)
def test_json_written_is_json_read(tmp_path, value):
    path = tmp_path / "v.json"
    path.write_text(json.dumps(value, ensure_ascii=False), encoding="utf-8")
    assert read_input_json(path) == value


def test_a_line_past_the_cap_is_refused_before_it_is_held_whole(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_bytes(b'{"a": 1}\n{"b": "' + b"x" * 1_000_000)  # no newline: read only cap + 1 bytes far
    with pytest.raises(JsonlError, match=r"rows.jsonl:2: line longer than 1,000 characters$"):
        read_jsonl(path, max_line_chars=1_000)
    assert read_jsonl(path, max_line_chars=2_000_000, torn_tail=True) == [{"a": 1}]


# ------------------------------------------------------------------------------------------------ writing


def test_output_error_is_an_oserror_and_a_corral_error_with_the_message_alone():
    exc = OutputError("out.jsonl: cannot write: No space left on device", errno.ENOSPC, "No space left on device")
    assert isinstance(exc, OSError) and isinstance(exc, CorralError) and not isinstance(exc, InputError)
    assert str(exc) == "out.jsonl: cannot write: No space left on device" and exc.errno == errno.ENOSPC


def test_a_full_disk_is_one_error_naming_the_file():
    with (watchdog(10), pytest.raises(OutputError, match=r"^/dev/full: cannot write: No space left on device$"),
          open_output("/dev/full") as stream):
        stream.write("row\n")
    stream = open_output("/dev/full")
    stream.write("x")  # buffered: the error comes with the flush
    with pytest.raises(OutputError, match=r"^/dev/full: cannot write: No space left"):
        stream.flush()
    with pytest.raises(OutputError, match=r"^/dev/full: cannot write: No space left"):
        stream.close()
    assert stream.closed


@pytest.mark.parametrize(("target", "reason"), [(LONG_NAME, "File name too long"), ("folder", "Is a directory"),
                                                ("file/below", "Not a directory")])
def test_an_output_the_system_refuses_is_one_error_naming_it(tmp_path, target, reason):
    (tmp_path / "folder").mkdir()
    (tmp_path / "file").write_text("x")
    path = tmp_path / target
    with pytest.raises(OutputError, match=f"^{path}: cannot write: {reason}$"):
        open_output(path)
    with pytest.raises(OutputError, match=f"^{path}: cannot write: {reason}$"):
        atomic_write(path, "data")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file", "folder"]  # no temporary file left behind
    assert not list((tmp_path / "folder").iterdir())


def test_a_fifo_without_a_reader_is_refused_at_once(fifo):
    with watchdog(10), pytest.raises(OutputError, match=r"pipe: cannot write: a FIFO with no reader$"):
        open_output(fifo)


def test_a_run_file_is_appended_to_only_as_a_regular_file_of_the_run(tmp_path):
    run, outside = tmp_path / "run", tmp_path / "outside.jsonl"
    run.mkdir()
    outside.write_text("precious\n")
    with open_output(run / "records.jsonl", append=True, within=run) as stream:
        stream.write("1\n")
    with open_output(run / "records.jsonl", append=True, within=run) as stream:
        stream.write("2\n")
    assert (run / "records.jsonl").read_text() == "1\n2\n"
    (run / "errors.jsonl").symlink_to(outside)
    with pytest.raises(OutputError, match=r"errors.jsonl: not a regular file \(a symbolic link"):
        open_output(run / "errors.jsonl", append=True, within=run)
    os.mkfifo(run / "likelihoods.jsonl")
    with watchdog(10), pytest.raises(OutputError, match=r"likelihoods.jsonl: not a regular file \(a FIFO\)$"):
        open_output(run / "likelihoods.jsonl", append=True, within=run)
    assert outside.read_text() == "precious\n"


def test_atomic_write_replaces_a_link_and_never_writes_through_it(tmp_path):
    outside = tmp_path / "outside.json"
    outside.write_text("precious")
    link = tmp_path / "summary.json"
    link.symlink_to(outside)
    atomic_write(link, "{}")
    assert not link.is_symlink() and link.read_text() == "{}" and outside.read_text() == "precious"


def test_a_long_target_name_does_not_make_its_temporary_too_long(tmp_path):
    path = tmp_path / ("n" * 250)  # a name that fits; with the pid and a suffix the temporary's would not
    atomic_write(path, "data")
    assert path.read_text() == "data" and [p.name for p in tmp_path.iterdir()] == [path.name]


def test_writing_names_the_path_for_any_oserror_in_the_block(tmp_path):
    with pytest.raises(OutputError, match=r"^chart.png: cannot write: No space left on device$"), writing("chart.png"):
        raise OSError(errno.ENOSPC, "No space left on device")
