"""``corral schema``: gen reloads and validates, render's five forms, validate/mutate exit codes, and one-line
errors (exit 2, no traceback) for every kind of bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from corral.cli import app
from corral.schema import is_valid, parse_schema

from ._errors import one_line_error as _one_line_error

runner = CliRunner()
SCHEMA = {"type": "object", "properties": {"age": {"type": "integer", "minimum": 18},
                                           "email": {"type": "string", "format": "email"}}, "required": ["age"]}


def _write(folder: Path, name: str, content: object) -> str:
    path = folder / name
    path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    return str(path)


@pytest.fixture
def schema_file(tmp_path: Path) -> str:
    return _write(tmp_path, "schema.json", SCHEMA)


def test_gen_writes_reloadable_suite_whose_samples_validate(tmp_path: Path):
    result = runner.invoke(app, ["schema", "gen", "--n", "20", "--seed", "0", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "20 schemas" in result.output and "keyword census" in result.output
    rows = [json.loads(line) for line in (tmp_path / "schemas.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 20 and rows[0]["id"] == "s0001"
    assert set(rows[0]) == {"id", "seed", "schema", "sample", "census", "depth", "size"}
    assert all(is_valid(row["schema"], row["sample"]) for row in rows)
    census = json.loads((tmp_path / "census.json").read_text(encoding="utf-8"))
    assert list(census.values()) == sorted(census.values(), reverse=True)  # most frequent first
    assert sum(census.values()) == sum(row["size"] for row in rows)


def test_gen_knobs_and_bad_keyword(tmp_path: Path):
    result = runner.invoke(app, ["schema", "gen", "--n", "5", "--out", str(tmp_path), "--max-depth", "1",
                                 "--keywords", "type,properties,minimum"])
    assert result.exit_code == 0, result.output
    census = json.loads((tmp_path / "census.json").read_text(encoding="utf-8"))
    assert set(census) <= {"type", "properties", "minimum"}
    _one_line_error(runner.invoke(app, ["schema", "gen", "--n", "2", "--out", str(tmp_path), "--keywords", "bogus"]),
                    "unknown keywords", "bogus")


@pytest.mark.parametrize("form", ["json", "yaml", "xml", "python", "english"])
def test_render_every_form(schema_file: str, form: str):
    result = runner.invoke(app, ["schema", "render", schema_file, "--as", form])
    assert result.exit_code == 0, result.output
    if form in ("json", "yaml", "xml"):
        assert parse_schema(result.output, form) == SCHEMA
    else:
        assert "18" in result.output


def test_render_reads_yaml_xml_and_stdin(tmp_path: Path, schema_file: str):
    for form, suffix in (("yaml", ".yml"), ("xml", ".xml")):
        text = runner.invoke(app, ["schema", "render", schema_file, "--as", form]).output
        path = _write(tmp_path, "schema" + suffix, text)
        result = runner.invoke(app, ["schema", "render", path, "--as", "json"])
        assert result.exit_code == 0 and json.loads(result.output) == SCHEMA, result.output
    result = runner.invoke(app, ["schema", "render", "-", "--as", "english"], input=json.dumps(SCHEMA))
    assert result.exit_code == 0 and "at least 18" in result.output
    _one_line_error(runner.invoke(app, ["schema", "render", schema_file, "--as", "toml"]), "unknown form")


def test_validate_exit_codes_and_json(tmp_path: Path, schema_file: str):
    good = _write(tmp_path, "good.json", {"age": 30, "email": "a@b.c"})
    bad = _write(tmp_path, "bad.json", {"age": 12})
    assert runner.invoke(app, ["schema", "validate", schema_file, good]).exit_code == 0
    result = runner.invoke(app, ["schema", "validate", schema_file, bad])
    assert result.exit_code == 1 and "/age: 12 is less than the minimum of 18" in result.output
    result = runner.invoke(app, ["schema", "validate", schema_file, bad, "--json"])
    assert result.exit_code == 1
    assert [(v["path"], v["keyword"]) for v in json.loads(result.output)] == [("/age", "minimum")]
    result = runner.invoke(app, ["schema", "validate", schema_file, "-"], input='{"age": 20}')
    assert result.exit_code == 0, result.output


def test_validate_sample_format_by_suffix_and_option(tmp_path: Path, schema_file: str):
    yaml_sample = _write(tmp_path, "sample.yaml", "age: 30\n")
    assert runner.invoke(app, ["schema", "validate", schema_file, yaml_sample]).exit_code == 0
    xml_sample = _write(tmp_path, "sample.txt", '<root type="dict"><age type="int">40</age></root>')
    assert runner.invoke(app, ["schema", "validate", schema_file, xml_sample, "--format", "xml"]).exit_code == 0
    _one_line_error(runner.invoke(app, ["schema", "validate", schema_file, yaml_sample, "--format", "json"]),
                    "sample.yaml", "not a JSON sample")


@pytest.mark.parametrize(("content", "needles"), [
    ({"type": "objectx"}, ("schema.json", "type")),
    ({"$ref": "other.json"}, ("schema.json", "unresolvable")),
    ({"properties": {"a": {"minimum": "x"}}}, ("properties/a/minimum",)),
    ('{"type": "object",\n', ("schema.json", "line 2, column 1")),
    ("[1, 2]", ("schema.json", "a list, not a schema")),
])
def test_bad_schema_is_one_line_error(tmp_path: Path, content: object, needles: tuple[str, ...]):
    path = _write(tmp_path, "schema.json", content)
    sample = _write(tmp_path, "sample.json", {"a": 1})
    for command in (["validate", path, sample], ["render", path], ["mutate", path, sample]):
        _one_line_error(runner.invoke(app, ["schema", *command]), *needles)


def test_missing_files_are_one_line_errors(tmp_path: Path, schema_file: str):
    missing = str(tmp_path / "nope.json")
    _one_line_error(runner.invoke(app, ["schema", "render", missing]), "nope.json", "no such file")
    _one_line_error(runner.invoke(app, ["schema", "validate", schema_file, missing]), "nope.json", "no such file")


def test_mutate_breaks_one_keyword(tmp_path: Path, schema_file: str):
    sample = _write(tmp_path, "sample.json", {"age": 30, "email": "a@b.c"})
    result = runner.invoke(app, ["schema", "mutate", schema_file, sample, "--keyword", "minimum"])
    assert result.exit_code == 0, result.output
    assert "keyword: minimum" in result.output and "path: /age" in result.output
    mutated = json.loads(result.output[: result.output.index("keyword:")])
    assert mutated["age"] < 18 and not is_valid(SCHEMA, mutated)


def test_mutate_impossible_unknown_or_invalid_sample(tmp_path: Path, schema_file: str):
    sample = _write(tmp_path, "sample.json", {"age": 30})
    _one_line_error(runner.invoke(app, ["schema", "mutate", schema_file, sample, "--keyword", "uniqueItems"]),
                    "no single change")
    _one_line_error(runner.invoke(app, ["schema", "mutate", schema_file, sample, "--keyword", "oneOf"]),
                    "cannot mutate 'oneOf'")
    invalid = _write(tmp_path, "invalid.json", {"age": 3})
    _one_line_error(runner.invoke(app, ["schema", "mutate", schema_file, invalid]), "not valid")
