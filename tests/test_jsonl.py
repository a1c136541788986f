"""corral.jsonl: rows written are the rows read back, plain or gzipped; a bad line names the file, line and column;
a write that fails leaves the old file as it was."""

from __future__ import annotations

import gzip
import io
import json
import re
import zipfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from corral.errors import InputError
from corral.jsonl import (
    JsonlError,
    append_jsonl,
    atomic_write,
    encode_jsonl,
    enumerate_jsonl,
    iter_jsonl,
    parse_line,
    read_jsonl,
    write_jsonl,
)

VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12)
ROWS = st.lists(st.dictionaries(st.text(max_size=8), VALUES, max_size=5), max_size=8)
FIXTURE = settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=60)


@FIXTURE
@given(rows=ROWS, compressed=st.booleans(), sort_keys=st.booleans())
def test_rows_written_are_the_rows_read(tmp_path, rows, compressed, sort_keys):
    path = tmp_path / ("rows.jsonl.gz" if compressed else "rows.jsonl")
    assert write_jsonl(path, iter(rows), sort_keys=sort_keys) == len(rows)
    assert read_jsonl(path) == rows
    assert [number for number, _ in enumerate_jsonl(path)] == list(range(1, len(rows) + 1))


@FIXTURE
@given(rows=ROWS.filter(bool), data=st.data())
def test_a_cut_line_is_an_error_naming_it(tmp_path, rows, data):
    path = tmp_path / "rows.jsonl"
    write_jsonl(path, rows)
    lines = [line + "\n" for line in path.read_text(encoding="utf-8").split("\n")[:-1]]
    bad = data.draw(st.integers(0, len(lines) - 1))
    lines[bad] = lines[bad][: (len(lines[bad]) - 1) // 2] + "\n"  # half an object is never JSON
    path.write_text("".join(lines), encoding="utf-8")
    with pytest.raises(JsonlError, match=rf"^{re.escape(str(path))}:{bad + 1}:\d+: malformed JSON \("):
        read_jsonl(path)


def test_gzip_output_is_reproducible_and_names_no_file(tmp_path):
    rows = [{"b": "é", "a": [1, 2.5, None]}, {"id": 2}]
    first, second = tmp_path / "one.jsonl.gz", tmp_path / "two.jsonl.gz"
    write_jsonl(first, rows, sort_keys=True)
    write_jsonl(second, rows, sort_keys=True)
    data = first.read_bytes()
    assert data == second.read_bytes() == encode_jsonl(rows, sort_keys=True, compress=True)
    assert data[:4] == b"\x1f\x8b\x08\x00" and data[4:8] == b"\0\0\0\0"  # no name, no timestamp
    assert gzip.decompress(data).decode("utf-8") == '{"a": [1, 2.5, null], "b": "é"}\n{"id": 2}\n'
    assert read_jsonl(first) == rows


def test_a_truncated_gzip_file_is_an_error_naming_it(tmp_path):
    path = tmp_path / "rows.jsonl.gz"
    write_jsonl(path, [{"text": "x" * 1000, "n": i} for i in range(200)])
    path.write_bytes(path.read_bytes()[:-40])
    with pytest.raises(JsonlError, match=rf"^{re.escape(str(path))}:\d+: cannot read"):
        read_jsonl(path)


@pytest.mark.parametrize(("text", "options", "message"), [
    ('{"a": 1}\n[1, 2]\n', {}, r"rows.jsonl:2: expected a JSON object, got list"),
    ('{"a": 1}\n\n  {"a": tru}\n', {}, r"rows.jsonl:3:9: malformed JSON \(Expecting value\)"),
    ('{"a": "' + "x" * 50 + '"}\n', {"max_line_chars": 20}, r"rows.jsonl:1: line longer than 20 characters"),
    ('{"a": 1}\n{"a": 2', {}, r"rows.jsonl:2:8: malformed JSON"),
    ('{"a": 1}\n{"a": \r\n', {}, r"rows.jsonl:2:7: malformed JSON \(Expecting value\)"),  # not 3:1
])
def test_error_messages_name_file_line_and_column(tmp_path, text, options, message):
    path = tmp_path / "rows.jsonl"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(JsonlError, match=message) as caught:
        read_jsonl(path, **options)
    assert str(caught.value).startswith(str(path))
    assert isinstance(caught.value, InputError)


def test_unreadable_files_are_errors_naming_them(tmp_path):
    with pytest.raises(JsonlError, match=r"cannot read .*missing.jsonl: No such file or directory"):
        read_jsonl(tmp_path / "missing.jsonl")
    latin = tmp_path / "latin.jsonl"
    latin.write_bytes(b'{"a": 1}\n{"a": "caf\xe9"}\n')
    with pytest.raises(JsonlError, match=r"latin.jsonl:2: not UTF-8 text \(byte 11: invalid continuation byte\)"):
        read_jsonl(latin)


def test_options_and_sources(tmp_path):
    assert read_jsonl(io.StringIO('[1]\n\n"two"\n'), objects=False) == [[1], "two"]
    with pytest.raises(JsonlError, match=r"^upload:1: expected a JSON object"):
        read_jsonl(io.StringIO("3\n"), name="upload")
    archive = tmp_path / "data.zip"
    with zipfile.ZipFile(archive, "w") as zipped:  # a package resource inside a zip is read the same way
        zipped.writestr("data/rows.jsonl.gz", encode_jsonl([{"a": 1}], compress=True))
    assert read_jsonl(zipfile.Path(archive, "data/rows.jsonl.gz")) == [{"a": 1}]
    assert write_jsonl(tmp_path / "empty.jsonl", []) == 0
    assert list(iter_jsonl(str(tmp_path / "empty.jsonl"))) == []  # a str path is a path


def test_parse_line_names_where():
    assert parse_line('{"a": 1}\n', "f", 3) == {"a": 1}
    with pytest.raises(JsonlError, match=r"^f:3:2: malformed JSON"):
        parse_line("{x}", "f", 3)
    assert parse_line("[1]", "f", 3, objects=False) == [1]


def test_a_torn_last_line_is_left_out_only_when_asked(tmp_path):
    path = tmp_path / "records.jsonl"
    path.write_text('{"a": 1}\n{"a": 2}\n{"a": 3, "b', encoding="utf-8")
    assert read_jsonl(path, torn_tail=True) == [{"a": 1}, {"a": 2}]
    with pytest.raises(JsonlError, match=r"records\.jsonl:3:"):
        read_jsonl(path)
    path.write_text('{"a": 1}\n{"a": 2}', encoding="utf-8")  # whole JSON without its newline is read
    assert read_jsonl(path, torn_tail=True) == [{"a": 1}, {"a": 2}]
    path.write_text('{"a": 1\n{"a": 2}\n', encoding="utf-8")  # a bad line before the last is an error
    with pytest.raises(JsonlError, match=r"records\.jsonl:1:"):
        read_jsonl(path, torn_tail=True)


def test_append_flushes_each_row(tmp_path):
    path = tmp_path / "log.jsonl"
    with path.open("a", encoding="utf-8") as stream:
        append_jsonl(stream, {"n": 1, "text": "é"})
        assert path.read_text(encoding="utf-8") == '{"n": 1, "text": "é"}\n'
        append_jsonl(stream, {"n": 2})
        assert read_jsonl(path) == [{"n": 1, "text": "é"}, {"n": 2}]


def _rows_then_failure():
    yield {"n": 1}
    raise RuntimeError("the producer failed")


@pytest.mark.parametrize("name", ["rows.jsonl", "rows.jsonl.gz"])
def test_a_failed_write_leaves_the_old_file_intact(tmp_path, monkeypatch, name):
    path = tmp_path / name
    write_jsonl(path, [{"old": True}])
    before = path.read_bytes()
    with pytest.raises(RuntimeError, match="the producer failed"):
        write_jsonl(path, _rows_then_failure())
    with pytest.raises(TypeError):
        write_jsonl(path, [{"n": 1}, {"n": object()}])

    def refuse(source, target):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("corral.jsonl.os.replace", refuse)
    with pytest.raises(OSError, match="No space left"):
        write_jsonl(path, [{"new": True}])
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == [name]  # no temporary file left behind


def test_atomic_write_creates_folders_and_replaces_whole(tmp_path):
    path = tmp_path / "deep" / "er" / "summary.json"
    atomic_write(path, json.dumps({"a": 1}))
    atomic_write(path, b"{}")
    assert path.read_text(encoding="utf-8") == "{}"
    assert sorted(p.name for p in path.parent.iterdir()) == ["summary.json"]
