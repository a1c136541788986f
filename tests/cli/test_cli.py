"""The ``corral`` command: exit codes 0 pass / 1 fail / 2 bad input, stdin, batch with bad lines, render."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from corral.cli import app
from corral.evaluation import check_lines

runner = CliRunner()
SPEC = "sentence: count(text, word) == 3 and pos(text, word, 2) == 'big'"


def test_check_exit_codes_and_output():
    ok = runner.invoke(app, ["check", SPEC, "A big dog."])
    assert ok.exit_code == 0, ok.output
    assert "PASS" in ok.output
    bad = runner.invoke(app, ["check", SPEC, "A small dog."])
    assert bad.exit_code == 1
    assert "The 2nd word is 'small'; it must be 'big'." in bad.output


def test_check_reads_stdin_and_prints_json():
    result = runner.invoke(app, ["check", "--json", SPEC, "-"], input="A big dog.")
    assert result.exit_code == 0
    data = json.loads(result.output)
    assert data["passed"] is True and data["score"] == 1.0 and len(data["detail"]["parts"]) == 2


def test_stdin_with_invalid_utf8_is_checked_not_crashed():
    result = runner.invoke(app, ["check", "count(text, word) == 2", "-"], input=b"caf\xe9 ok")
    assert result.exit_code == 0, result.output


def test_malformed_spec_is_one_line_error_with_column():
    result = runner.invoke(app, ["check", "count(text, wrd) == 3", "x"])
    assert result.exit_code == 2
    assert "line 1, column 13: unexpected 'wrd'" in result.output
    result = runner.invoke(app, ["check", "count(text, word) == 3", "x", "--profile", "nope"])
    assert result.exit_code == 2
    assert "unknown segmentation profile 'nope'" in result.output


def test_render_and_parse_commands():
    result = runner.invoke(app, ["render", SPEC])
    assert result.output.strip() == "Please generate a sentence with exactly 3 words, where the 2nd word is 'big'."
    result = runner.invoke(app, ["parse", SPEC])
    assert json.loads(result.output)["level"] == "sentence"


def test_batch_checks_good_lines_and_reports_bad_ones(tmp_path):
    rows = [
        json.dumps({"constraint": SPEC, "text": "A big dog."}),
        "{not json",
        json.dumps({"constraint": "count(text, wrd) == 1", "text": "x"}),
        json.dumps({"code": "c04", "targets": 10, "text": "Short one.", "id": "row4"}),
        json.dumps({"constraint": {"kind": "count", "of": "text", "level": "word", "rel": ">=", "value": 1},
                    "text": "words here"}),
        json.dumps({"constraint": SPEC}),
    ]
    source = tmp_path / "rows.jsonl"
    source.write_text("\n".join(rows) + "\n")
    out = tmp_path / "verdicts.jsonl"
    result = runner.invoke(app, ["check", "--batch", str(source), "--out", str(out)])
    assert result.exit_code == 2
    assert "rows.jsonl:2:2: malformed JSON" in result.output
    assert "rows.jsonl:3: bad constraint at column 13: unexpected 'wrd'" in result.output
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["line"] for r in records] == [1, 2, 3, 4, 5, 6]
    assert records[0]["passed"] is True
    assert records[3] == {**records[3], "id": "row4", "passed": True}
    assert records[4]["passed"] is True
    assert "error" in records[1] and "error" in records[2] and "error" in records[5]


def test_batch_parallel_equals_serial(dev_generations):
    lines = [json.dumps({"code": r["code"], "targets": r["targets"], "text": r["text"]})
             for r in dev_generations[:600]]
    serial = list(check_lines(lines, workers=1))
    parallel = list(check_lines(lines, workers=2, big=True))
    assert serial == parallel
    assert [r["passed"] for r in serial] == [r["collie_verdict"] for r in dev_generations[:600]]


def test_collie_check_main_job():
    result = runner.invoke(app, ["collie", "check", "--structures", "sent02,para05"])
    assert result.exit_code == 0, result.output
    assert "100.0" in result.output and "sent02" in result.output and "para05" in result.output
    bad = runner.invoke(app, ["collie", "check", "--structures", "sent99"])
    assert bad.exit_code == 2


def test_generate_schema_is_compiled_as_compile_schema_compiles_it(tmp_path):
    from corral.cli import grammar_from_options
    from corral.grammars import compile_schema

    schema = {"type": "object", "properties": {"n": {"type": "number"}}, "required": ["n"]}
    path = tmp_path / "s.json"
    path.write_text(json.dumps(schema, indent=2), encoding="utf-8")
    grammar = grammar_from_options(None, path, None, None)
    assert (grammar.format, grammar.source) == (compile_schema(schema, "json").format,
                                                compile_schema(schema, "json").source)
    assert str(path) in grammar.description


def test_generate_with_a_schema_file_that_is_not_json_names_file_line_and_column(tmp_path):
    import pytest

    from corral.cli import grammar_from_options

    path = tmp_path / "bad.json"
    path.write_text('{\n  "type": "object",\n  "properties": {,}\n}', encoding="utf-8")
    with pytest.raises(ValueError, match="malformed JSON") as caught:
        grammar_from_options(None, path, None, None)
    assert str(caught.value).startswith(f"{path}:3:18: malformed JSON (") and "\n" not in str(caught.value)
    assert runner.invoke(app, ["generate", "hi", "--schema", str(path)]).exit_code == 2


def test_the_cli_imports_jsonschema_only_for_schema_work():
    """jsonschema builds an RFC 3987 parser when imported (1.6 s); a command that validates nothing must not wait."""
    import subprocess
    import sys

    probe = ("import sys, corral.cli, corral.schema; assert 'jsonschema' not in sys.modules, 'loaded at start'; "
             "corral.schema.validate({'type': 'integer'}, 3); assert 'jsonschema' in sys.modules")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
