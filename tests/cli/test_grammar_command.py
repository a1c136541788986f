"""``corral grammar accepts|sample|complete|stats|soundness`` on every grammar source (a regex, a Lark file, a
JSON Schema file, a constraint, suite instances), their ``--json`` forms, exit codes, and one-line errors (exit 2,
no traceback) for bad input and for a compile past its budget (here and in ``corral generate``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from corral.cli import app
from corral.grammars import Grammar, first_rejection

from ._errors import one_line_error as _one_line_error

runner = CliRunner()
LIST = r"[a-z]{3,5}(,[0-9]+)*"
TWO_WORDS = "sentence: count(text, word) == 2"
COLLIE = ["--task", "collie", "--instance", "english_c02_0"]  # word: 12 letters, o 4th, s 8th, r 11th


def _invoke(*args: str):
    return runner.invoke(app, ["grammar", *args])


def _json(result) -> dict:
    lines = [line for line in result.stdout.splitlines() if line.strip()]
    assert len(lines) == 1, result.output
    return json.loads(lines[0])


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    lark = tmp_path / "nested.lark"
    lark.write_text('start: "(" start ")" | "x"\n', encoding="utf-8")
    schema = tmp_path / "object.json"
    schema.write_text(json.dumps({"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"],
                                  "additionalProperties": False}), encoding="utf-8")
    text = tmp_path / "text.txt"
    text.write_text("((x)", encoding="utf-8")
    return {"lark": str(lark), "schema": str(schema), "text": str(text)}


# ------------------------------------------------------------------------------------------------ accepts
def test_accepts_a_regex_and_says_where_a_text_leaves_it():
    accepted = _invoke("accepts", "abc,12", "--regex", LIST)
    assert accepted.exit_code == 0 and "ACCEPTED" in accepted.output
    rejected = _invoke("accepts", "abcdef", "--regex", LIST)
    assert rejected.exit_code == 1
    assert '"f" at byte 5 (line 1, column 6) is not allowed; expected "," or the end of the text' in rejected.output
    row = _json(_invoke("accepts", "abcdef", "--regex", LIST, "--json"))
    assert row["accepted"] is False and row["rejection"]["offset"] == 5 and row["rejection"]["byte"] == ord("f")
    assert row["rejection"]["allowed"] == [[44, 44]] and row["rejection"]["end_allowed"] is True


def test_accepts_a_lark_file_and_a_text_file(files):
    row = _json(_invoke("accepts", "--file", files["text"], "--lark", files["lark"], "--json"))
    assert row["accepted"] is False
    assert row["rejection"]["ended"] and row["rejection"]["offset"] == 4 and row["rejection"]["allowed"] == [[41, 41]]
    assert _invoke("accepts", "((x))", "--lark", files["lark"]).exit_code == 0


def test_accepts_a_schema_file(files):
    result = _invoke("accepts", '{"a":x}', "--schema", files["schema"], "--json")
    assert result.exit_code == 1
    rejection = _json(result)["rejection"]
    assert rejection["offset"] == 5 and rejection["allowed"] == [[45, 45], [48, 57]]  # "-" or a digit
    assert _invoke("accepts", '{"a":-3}', "--schema", files["schema"]).exit_code == 0


def test_accepts_a_constraint():
    result = _invoke("accepts", "Ab cd ef.", "--constraint", TWO_WORDS, "--json")
    assert result.exit_code == 1 and _json(result)["rejection"]["offset"] == 5
    assert _invoke("accepts", "Ab cd.", "--constraint", TWO_WORDS).exit_code == 0


def test_accepts_suite_instances():
    result = _invoke("accepts", "abcdefghijkl", *COLLIE, "--json")
    assert result.exit_code == 1
    row = _json(result)
    assert row["grammar"] == "collie instance english_c02_0"
    assert row["rejection"]["offset"] == 3 and row["rejection"]["allowed"] == [[ord("o"), ord("o")]]
    assert _invoke("accepts", "vasopressors", *COLLIE).exit_code == 0  # the instance's own example
    mcq = ["--task", "formatbench", "--instance", "mcq-test-00000"]  # one Penn Treebank tag
    assert _invoke("accepts", "JJ", *mcq).exit_code == 0
    early = _json(_invoke("accepts", "E", *mcq, "--json"))["rejection"]
    assert early["ended"] and early["allowed"] == [[ord("X"), ord("X")]]


def test_task_options_reach_the_task():
    assert _invoke("accepts", "JJ", "--task", "formatbench", "--instance", "mcq-test-00000",
                   "-T", "checker_mode=reference").exit_code == 0
    _one_line_error(_invoke("accepts", "JJ", "--task", "formatbench", "--instance", "mcq-test-00000",
                            "-T", "no_such_option=1"), "no_such_option")


# ------------------------------------------------------------------------------------------------ sample
def test_sample_is_seeded_and_every_text_is_accepted(files):
    for source in (["--regex", LIST], ["--lark", files["lark"]], ["--schema", files["schema"]], COLLIE,
                   ["--constraint", TWO_WORDS]):
        first = _invoke("sample", "--n", "4", "--seed", "7", *source, "--json")
        again = _invoke("sample", "--n", "4", "--seed", "7", *source, "--json")
        assert first.exit_code == 0, first.output
        texts = _json(first)["texts"]
        assert texts == _json(again)["texts"] and len(texts) == 4
        assert all(_invoke("accepts", text, *source).exit_code == 0 for text in texts), (source, texts)
    shown = _invoke("sample", "--n", "2", "--regex", LIST)
    assert shown.exit_code == 0 and "#1" in shown.output and "#2" in shown.output


def test_sample_says_when_walks_ran_long():
    result = _invoke("sample", "--n", "2", "--regex", "a{50}", "--max-bytes", "10")
    assert result.exit_code == 1 and "0 of 2 texts drawn" in result.output


# ------------------------------------------------------------------------------------------------ complete
def test_complete_closes_a_prefix_into_an_accepted_text(files):
    row = _json(_invoke("complete", "((", "--lark", files["lark"], "--json"))
    assert row["completion"] == "x))" and row["text"] == "((x))" and row["outside"] is None
    grammar = Grammar.lark(Path(files["lark"]).read_text(encoding="utf-8"))
    assert first_rejection(grammar, row["text"]) is None
    collie = _json(_invoke("complete", "smo", *COLLIE, "--json"))
    assert collie["text"].startswith("smo") and _invoke("accepts", collie["text"], *COLLIE).exit_code == 0
    shown = _invoke("complete", "abc,", "--regex", LIST)
    assert shown.exit_code == 0 and 'text: "abc,0"' in shown.output


def test_complete_says_when_the_prefix_already_left_the_grammar(files):
    result = _invoke("complete", "(y", "--lark", files["lark"])
    assert result.exit_code == 1 and "OUTSIDE" in result.output and '"y" at byte 1' in result.output
    row = _json(_invoke("complete", "(y", "--lark", files["lark"], "--json"))
    assert row["completion"] is None and row["outside"]["offset"] == 1


# ------------------------------------------------------------------------------------------------ stats
def test_stats_report_compile_engine_and_fuel(files):
    row = _json(_invoke("stats", "--constraint", TWO_WORDS, "--json"))
    assert row["format"] == "lark" and row["rules"] >= 1 and row["terminals"] >= 1
    assert row["compile_seconds"] > 0 and row["matcher_seconds"] > 0
    assert 0 < row["lexer_fuel"] < row["lexer_fuel_limit"] and row["step_fuel_max"] < row["step_fuel_limit"]
    schema = _json(_invoke("stats", "--schema", files["schema"], "--json"))
    assert schema["format"] == "json_schema" and schema["rules"] is None
    shown = _invoke("stats", *COLLIE)
    assert shown.exit_code == 0 and "lexer fuel" in shown.output and "matcher build" in shown.output


# ------------------------------------------------------------------------------------------------ soundness
def test_soundness_of_a_constraint_and_of_suite_instances(files):
    result = _invoke("soundness", "--constraint", TWO_WORDS, "--n", "15", "--seed", "3")
    assert result.exit_code == 0 and "SOUND  15 of 15" in result.output
    row = _json(_invoke("soundness", *COLLIE, "--n", "10", "--json"))
    assert row["sound"] and row["passed"] == row["drawn"] == 10 and row["failures"] == []
    schema = _json(_invoke("soundness", "--schema", files["schema"], "--n", "10", "--json"))
    assert schema["sound"] and schema["passed"] == 10


# ------------------------------------------------------------------------------------------------ bad input
@pytest.mark.parametrize(("args", "needles"), [
    (["accepts", "x", "--regex", "[a-"], ["invalid regex"]),
    (["accepts", "x"], ["exactly one grammar source"]),
    (["accepts", "x", "--regex", "a", "--constraint", TWO_WORDS], ["exactly one grammar source", "--regex"]),
    (["accepts", "x", "--task", "collie"], ["--task and --instance go together"]),
    (["accepts", "x", "--task", "no-such-task", "--instance", "1"], ["no-such-task"]),
    (["accepts", "x", "--task", "collie", "--instance", "nope"], ["no instance 'nope'"]),
    (["accepts", "x", "--lark", "/nonexistent/g.lark"], ["/nonexistent/g.lark"]),
    (["accepts", "--regex", "a"], ["TEXT or --file"]),
    (["accepts", "x", "--regex", "a", "-T", "k=v"], ["-T sets an option of --task"]),
    (["sample", "--constraint", "paragraph: count(text, word) == 50"], ["not expressible", "count(text, word)"]),
    (["soundness", "--regex", "a"], ["needs a checker"]),
    (["sample", "--regex", "a", "--n", "0"], ["--n"]),
    (["stats", "--regex", "a", "--compile-seconds", "0"], ["--compile-seconds"]),
])
def test_bad_input_is_one_line_and_exit_2(args, needles):
    _one_line_error(_invoke(*args), *needles)


def test_a_bad_schema_file_is_one_line(tmp_path: Path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"type": "object", "properties": {"a": {"type": 7}}}', encoding="utf-8")
    _one_line_error(_invoke("accepts", "{}", "--schema", str(bad)), "properties/a/type")
    broken = tmp_path / "broken.json"
    broken.write_text("{", encoding="utf-8")
    _one_line_error(_invoke("stats", "--schema", str(broken)), "broken.json")


# ------------------------------------------------------------------------------------------------ the budget
@pytest.mark.parametrize("command", [["accepts", "Ab cd."], ["sample"], ["complete", "Ab"], ["stats"],
                                     ["soundness"]])
def test_a_compile_past_its_budget_exits_2_naming_the_budget(command):
    _one_line_error(_invoke(*command, "--constraint", TWO_WORDS, "--compile-seconds", "1e-9"),
                    "budget of 1e-09 s", "compile_seconds")
    _one_line_error(_invoke(*command, *COLLIE, "--compile-seconds", "1e-9"), "compile_seconds")


def test_generate_refuses_a_compile_past_its_budget_before_loading_a_model():
    result = runner.invoke(app, ["generate", "hi", "--regex", "a+", "--compile-seconds", "1e-9"])
    _one_line_error(result, "budget of 1e-09 s", "compile_seconds")
