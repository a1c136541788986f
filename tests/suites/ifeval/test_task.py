"""The shipped IFEval data and the ``ifeval`` task: all 540 prompts parse, bad rows are one-line errors naming the
row, and ``corral eval ifeval`` on the scripted model records both modes and reports IFEval's four accuracies."""

from __future__ import annotations

import gzip
import json
from collections import Counter

import pytest
from typer.testing import CliRunner

from corral.cli import app
from corral.evaluation import EvalSpec, evaluate, plan_run, read_records
from corral.models import ScriptedModel
from corral.suites.ifeval import KINDS, PromptError, exactly_enforced, parse_row, read_prompts
from corral.tasks import get_task, select
from corral.verdicts import Violation


def test_all_540_prompts_and_25_kinds_parse():
    prompts = list(read_prompts())
    assert len(prompts) == 540 and len({p.key for p in prompts}) == 540
    kinds = Counter(i.id for p in prompts for i in p.instructions)
    assert set(kinds) == set(KINDS) and kinds["punctuation:no_comma"] == 66 and kinds["detectable_format:title"] == 37
    assert sum(kinds.values()) == 832


@pytest.mark.parametrize(("row", "message"), [
    ({"key": 7, "prompt": "p", "instruction_id_list": ["nope:x"], "kwargs": [{}]},
     "rows.jsonl:1 (key 7): instruction 1: unknown IFEval instruction 'nope:x'"),
    ({"key": 7, "prompt": "p", "instruction_id_list": ["length_constraints:number_words"], "kwargs": [{}]},
     "rows.jsonl:1 (key 7): instruction 1: length_constraints:number_words: missing argument 'num_words'"),
    ({"key": 7, "prompt": "p", "instruction_id_list": ["punctuation:no_comma"], "kwargs": []},
     "rows.jsonl:1 (key 7): kwargs must be a list with one object per instruction"),
    ({"prompt": "p", "instruction_id_list": ["punctuation:no_comma"]}, "rows.jsonl:1: missing or bad field key"),
])
def test_a_bad_row_is_a_one_line_error_naming_it(tmp_path, row, message):
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps(row) + "\n")
    with pytest.raises(PromptError) as error:
        list(read_prompts(path))
    assert str(error.value).replace(str(tmp_path) + "/", "").startswith(message)
    assert "\n" not in str(error.value)


def test_a_compressed_file_reads_as_the_shipped_one(tmp_path):
    path = tmp_path / "rows.jsonl.gz"
    path.write_bytes(gzip.compress(json.dumps({"key": 1, "prompt": "p", "instruction_id_list": [
        "punctuation:no_comma"], "kwargs": [{}]}).encode()))
    [prompt] = read_prompts(path)
    assert prompt.key == "1" and prompt.instructions[0].id == "punctuation:no_comma"
    assert parse_row({"key": 2, "prompt": "q", "instruction_id_list": ["punctuation:no_comma"]}).instructions


def test_the_task_checks_the_raw_output_and_compiles_what_a_grammar_enforces():
    task = get_task("ifeval")
    assert task.extract == "raw" and task.options == {"mode": "strict"}
    first, *rest = select(task)
    from corral.grammars import NotExpressible

    grammar = task.grammar(first)  # 1000: no commas, 3 highlights, 300+ words: a count beside the shape
    assert grammar.format == "lark" and " & /" in grammar.source
    assert "punctuation:no_comma" in grammar.description
    assert "number_highlighted_sections" in grammar.description and "number_words" in grammar.description
    shape_only = next(i for i in rest if {x.id for x in i.target.instructions} == {"detectable_format:title"})
    assert task.grammar(shape_only).format == "regex"
    sentences_only = next(i for i in rest if {x.id for x in i.target.instructions} == {
        "length_constraints:number_sentences"})
    with pytest.raises(NotExpressible, match="none of this prompt's instructions"):
        task.grammar(sentences_only)
    assert get_task("ifeval", mode="loose").options["mode"] == "loose"


def test_a_run_records_both_modes_and_reports_the_four_accuracies(tmp_path):
    task = get_task("ifeval")
    chosen = select(task, limit=5)
    answers = ["Sure:\n" + "word " * 310, "no commas here at all", "[a]", "x", "Hi, there"]
    run, summary = evaluate(EvalSpec(task="ifeval", model="scripted:s", limit=5), tmp_path / "run",
                            model=ScriptedModel(answers))
    records = read_records(run)
    assert len(records) == 5 and [r.instance for r in records] == [i.id for i in chosen]
    for record in records:
        assert set(record.detail) == {"instructions", "strict", "loose", "prompt_strict", "prompt_loose"}
        assert record.passed == record.detail["prompt_strict"]
        assert not record.passed or not record.violations
    strict = [r.detail["prompt_strict"] for r in records]
    quality = summary.quality
    assert quality["prompt_strict"] == pytest.approx(sum(strict) / 5)
    total = sum(len(r.detail["instructions"]) for r in records)
    assert quality["instruction_strict"] == pytest.approx(sum(sum(r.detail["strict"]) for r in records) / total)
    assert quality["instruction_loose"] >= quality["instruction_strict"]
    assert quality["prompt_loose"] >= quality["prompt_strict"]
    assert records[1].detail["strict"] == [True]  # key 1001: no commas
    exact = [(ok, enforced) for record, instance in zip(records, chosen, strict=True)
             for ok, enforced in zip(record.detail["strict"], exactly_enforced(instance.target), strict=True)]
    assert quality["enforced_strict"] == pytest.approx(sum(ok for ok, e in exact if e) / sum(e for _, e in exact))


def test_corral_eval_ifeval_runs_from_the_command_line(tmp_path, monkeypatch):
    # the command line cannot pass a script: every request gets this answer (no commas, 4 words)
    monkeypatch.setattr(ScriptedModel, "_text", lambda self, request, i: "Here is my answer")
    result = CliRunner().invoke(app, ["eval", "ifeval", "--model", "scripted:s", "--limit", "5", "--out",
                                      str(tmp_path / "run")])
    assert result.exit_code in (0, 1), result.output
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["instances"] == 5 and summary["complete"]
    assert set(summary["quality"]) >= {"prompt_strict", "prompt_loose", "instruction_strict", "instruction_loose"}
    records = read_records(tmp_path / "run")
    assert records[1].detail == {"instructions": ["punctuation:no_comma"], "strict": [True], "loose": [True],
                                 "prompt_strict": True, "prompt_loose": True}


@pytest.mark.model
def test_constrained_outputs_of_the_bundled_model_pass_what_their_grammar_enforces(tmp_path):
    """The grammar reaches the model: every constrained output that finished (or was closed) passes each
    instruction its prompt's grammar enforces. Five prompts: the lowercase alphabet (1019), the repeated request and
    a title (1012), placeholders (1005), a JSON object (1075), the letter t at most once (1130: a count
    intersected with the shape)."""
    import dataclasses

    from corral.evaluation import SamplingConfig
    from corral.suites.ifeval import compile_prompt

    task = get_task("ifeval")
    chosen = [i for i in task.instances() if i.id in {"1019", "1012", "1005", "1075", "1130"}]
    task = dataclasses.replace(task, instances=lambda: chosen)
    run, _ = evaluate(plan_run(EvalSpec(task=task.name, decoding="constrained",
                                        sampling=SamplingConfig(max_tokens=128)), task), tmp_path / "run")
    records = read_records(run)
    assert len(records) == 5 and all(r.decoding == "constrained" for r in records)
    finished = 0
    for record in records:
        prompt = next(i for i in chosen if i.id == record.instance).target
        enforced = [i for i in prompt.instructions if i.id in compile_prompt(prompt.instructions).enforced]
        assert enforced, record.instance
        exact = [i for i, e in zip(prompt.instructions, exactly_enforced(prompt), strict=True) if e]
        if record.finish_reason == "length" and not record.appended:
            continue  # cut off and not closed: the grammar's end was never reached
        finished += 1
        assert record.quality["enforced_strict@ratio:correct"] == record.quality["enforced_strict@ratio:total"] \
            == len(exact)
        for instruction in enforced:
            if instruction.id == "change_case:english_lowercase":
                assert record.output.islower(), record.output[:200]
            else:
                assert not instruction.kind.check(instruction.args, record.output), (instruction.id, record.output)
    assert finished >= 1


def test_judging_an_output_checks_the_prompt_once(request):
    """The quality statistics come from the check's own result: judging a prompt twice (and identifying its
    language twice) per output was half of an IFEval run's checking time. A kind registered for this test counts
    how often it is checked: once in strict mode, and for the eight loose variants when strict fails."""
    import dataclasses

    from corral.suites.ifeval import Instruction, Param, Prompt, judge_prompt, register_kind

    calls: list[str] = []

    @register_kind("test:counted_checks", (Param("word", str),), lambda a: f"Use the word {a['word']}.", "checker",
                   "a test kind", "the word appears")
    def counted(args, response):
        calls.append(response)
        return [] if args["word"] in response else [Violation("test:counted_checks", "missing")]

    request.addfinalizer(lambda: KINDS.pop("test:counted_checks", None))
    task = get_task("ifeval")
    template = next(iter(task.instances()))
    prompt = Prompt("counted", "Say hi.", (Instruction.parse("test:counted_checks", {"word": "hi"}),))
    instance = dataclasses.replace(template, id="counted", prompt=prompt.prompt, target=prompt)
    for text in ("hi there", "hello\nand more\nbye"):
        del calls[:]
        judge_prompt(prompt.instructions, text)
        once = len(calls)
        del calls[:]
        task.judge(instance, text)
        assert len(calls) == once > 0, text
    first = template
    result = task.judge(first, "no commas here *a* *b* *c*")
    assert result.quality["instruction_strict@ratio:total"] == 3.0
    assert result.quality["instruction_strict@ratio:correct"] == 2.0  # no comma, 3 highlights; not 300 words
    # all three are kinds a grammar enforces exactly, and this prompt's grammar enforces them
    assert exactly_enforced(first.target) == (True, True, True)
    assert (result.quality["enforced_strict@ratio:correct"], result.quality["enforced_strict@ratio:total"]) == (2, 3)
    # the case is enforced, the language is not: not exact; the language is never enforced
    lower = next(i for i in task.instances() if i.id == "1019").target
    assert [i.id for i in lower.instructions] == ["change_case:english_lowercase"]
    assert exactly_enforced(lower) == (False,)
