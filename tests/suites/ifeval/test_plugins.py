"""Kinds from outside IFEval: the worked example (``docs/examples/ifbench_kinds.py``) registers IFBench-style kinds,
a prompts file in IFEval's format uses them beside IFEval's own, a grammar enforces the one that forbids characters,
and every way a plug-in or its data can be wrong is one line naming it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from corral.evaluation import EvalSpec, evaluate, read_records
from corral.grammars import Grammar, accepts
from corral.models import ScriptedModel
from corral.suites.ifeval import (
    KINDS,
    PLUGIN_GROUP,
    InstructionError,
    PromptError,
    compile_prompt,
    load_kind_modules,
    read_prompt_file,
    register_kind,
)
from corral.tasks import get_task

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "docs" / "examples" / "ifbench_kinds.py"
PROMPTS = ROOT / "docs" / "examples" / "ifbench-prompts.jsonl"
OUR_IDS = ("count:word_count_range", "count:numbers", "format:no_whitespace")


@pytest.fixture(autouse=True)
def registry():
    """Each test starts from IFEval's own kinds and leaves them so (other tests count IFEval's 25)."""
    kinds, modules = dict(KINDS), set(sys.modules)
    yield
    KINDS.clear()
    KINDS.update(kinds)
    for name in set(sys.modules) - modules:
        del sys.modules[name]


def _task():
    return get_task("ifeval", data=str(PROMPTS), kinds=[str(EXAMPLE)])


def test_the_example_registers_its_kinds_and_the_data_uses_them_beside_ifevals_own():
    assert not set(OUR_IDS) & set(KINDS)
    task = _task()
    assert set(OUR_IDS) <= set(KINDS)
    assert task.version.startswith("1+sha256:") and task.options["kinds"] == (str(EXAMPLE),)
    instances = {i.id: i for i in task.instances()}
    assert list(instances) == ["ood-1", "ood-2", "ood-3", "ood-4", "ood-5"]
    # 20.0 and 80.0 (as a table export writes integers) are read as 20 and 80; the null key is ignored
    assert instances["ood-5"].target.instructions[0].args == {"min_words": 20, "max_words": 80}
    mars = instances["ood-2"]
    assert task.check(mars, "Mars has 2 moons and a 687 day year and 1 tall volcano").passed
    verdict = task.check(mars, "Mars has 2 moons, and a 687 day year.")
    assert not verdict.passed and {v.rule for v in verdict.violations} >= {"count:numbers", "punctuation:no_comma"}
    assert any("has 2 numbers (2, 687); it needs exactly 3" in v.message for v in verdict.violations)
    words = task.check(instances["ood-1"], "Dawn. " * 10)
    assert not words.passed and "has 10 words; it needs 40 to 60: add at least 30" in words.violations[0].message
    assert task.check(instances["ood-1"], "Dawn. " * 50).passed
    # the same file named again (a second task) registers nothing twice
    assert _task().version == task.version


def test_the_grammar_enforces_a_kind_that_forbids_characters():
    task = _task()
    instances = {i.id: i for i in task.instances()}
    compiled = compile_prompt(instances["ood-4"].target.instructions)
    assert compiled.enforced == ("format:no_whitespace", "change_case:english_lowercase") and not compiled.left
    assert task.grammar(instances["ood-3"]).format == "regex"
    left = dict(compile_prompt(instances["ood-2"].target.instructions).left)
    assert "left to the checker in this example" in left["count:numbers"]


@given(st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E) | st.just("\n"), max_size=40),
       st.integers(0, 40))
def test_no_whitespace_grammar_accepts_exactly_the_texts_its_checker_passes(text, at):
    load_kind_modules([str(EXAMPLE)])
    instructions = read_prompt_file(PROMPTS)[0][2].instructions  # ood-3: no whitespace
    grammar = Grammar.regex(compile_prompt(instructions).pattern)
    kind = KINDS["format:no_whitespace"]
    passes = not kind.check({}, text)
    assert accepts(grammar, text) == passes
    stripped = "".join(c for c in text if not c.isspace())
    assert accepts(grammar, stripped) and not kind.check({}, stripped)
    spaced = stripped[:at] + " " + stripped[at:]
    assert not accepts(grammar, spaced) and kind.check({}, spaced)


def test_a_run_over_the_data_records_the_plugins_verdicts(tmp_path):
    answers = ["Dawn. " * 45, "Mars has 2 moons and 1 volcano and 3 names", "#FreshBread", "ride on", "Blue. P.S. ok"]
    spec = EvalSpec(task="ifeval", task_options={"data": str(PROMPTS), "kinds": [str(EXAMPLE)]}, model="scripted:s")
    run, summary = evaluate(spec, tmp_path / "run", model=ScriptedModel(answers))
    records = {r.instance: r for r in read_records(run)}
    assert [records[k].passed for k in ("ood-1", "ood-2", "ood-3", "ood-4")] == [True, True, True, False]
    assert records["ood-4"].violations[0]["rule"] == "format:no_whitespace"
    assert summary.quality["instruction_strict"] == pytest.approx(
        sum(sum(r.detail["strict"]) for r in records.values()) / 8)


def test_unknown_kinds_and_broken_plugins_are_one_line_naming_them(tmp_path):
    with pytest.raises(PromptError, match=r"ifbench-prompts.jsonl:1 \(key ood-1\): instruction 1: unknown IFEval "
                                          r"instruction 'count:word_count_range'; known: .* \(a kind from elsewhere "
                                          r"is registered by a plug-in first: -T kinds="):
        get_task("ifeval", data=str(PROMPTS))
    broken = tmp_path / "broken.py"
    broken.write_text("def oops(:\n")
    with pytest.raises(InstructionError, match=r"cannot load the IFEval kinds in '.*broken.py': SyntaxError"):
        load_kind_modules([str(broken)])
    with pytest.raises(InstructionError, match=r"'no_such_module_xyz': ModuleNotFoundError"):
        load_kind_modules(["no_such_module_xyz"])
    with pytest.raises(InstructionError, match="no such file"):
        load_kind_modules([str(tmp_path / "absent.py")])
    twice = tmp_path / "twice.py"
    twice.write_text("from corral.suites.ifeval import register_kind\n"
                     "register_kind('punctuation:no_comma', (), lambda a: '', 'checker', '', '')(lambda a, r: [])\n")
    with pytest.raises(InstructionError, match="'punctuation:no_comma' is registered twice"):
        load_kind_modules([str(twice)])
    with pytest.raises(ValueError, match="registered twice"):
        register_kind("punctuation:no_comma", (), lambda a: "", "checker", "", "")(lambda a, r: [])


def test_an_installed_plugin_is_found_by_its_entry_point(tmp_path, monkeypatch):
    """A package that names its kinds module in the entry-point group needs no option: the first unknown id loads
    it (a real distribution's metadata on sys.path, as pip would leave it)."""
    (tmp_path / "my_kinds.py").write_text(EXAMPLE.read_text())
    info = tmp_path / "my_kinds-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: my-kinds\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[{PLUGIN_GROUP}]\nifbench = my_kinds\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    task = get_task("ifeval", data=str(PROMPTS))
    assert set(OUR_IDS) <= set(KINDS) and len(list(task.instances())) == 5


@pytest.mark.parametrize(("content", "message"), [
    ("", "no prompts"),
    ('{"key": 1, "prompt": "p", "instruction_id_list": ["punctuation:no_comma"], "kwargs": [{}]}\n' * 2,
     "the key 1 is given twice"),
    ('{"key": 1, "prompt": "p", "instruction_id_list": ["punctuation:no_comma"], "kwargs": [{"x": 1}]}\n',
     r"p.jsonl:1 \(key 1\): instruction 1: punctuation:no_comma: unknown argument x"),
    ('{"key": 1, "prompt": "p", "instruction_id_list": ["length_constraints:number_words"], '
     '"kwargs": [{"num_words": 2.5, "relation": "at least"}]}\n', "num_words=2.5 is not a whole number"),
])
def test_a_bad_prompts_file_is_one_line_naming_it(tmp_path, content, message):
    path = tmp_path / "p.jsonl"
    path.write_text(content)
    with pytest.raises(PromptError, match=message):
        get_task("ifeval", data=str(path))
    with pytest.raises(PromptError, match="cannot read prompts file"):
        get_task("ifeval", data=str(tmp_path))
