"""Overnight blocks (``clamp-overnight``): SEMPRE's files read from the user's folder, BenchCLAMP's dev split, the
formula simplified, a grammar induced from the pool that covers the test formulas, exact match from a run, and
one-line errors for a missing folder and a broken file."""

from __future__ import annotations

import dataclasses
import gzip

import pytest

from corral.errors import InputError
from corral.evaluation import EvalSpec, evaluate, plan_run, read_records
from corral.grammars import accepts
from corral.models import ScriptedModel
from corral.suites.clamp import overnight_grammar, overnight_split, read_examples, simplify_formula
from corral.tasks import get_task
from tests.conftest import SHARED_DATA

FOLDER = str(SHARED_DATA / "overnight_blocks")

SW = "edu.stanford.nlp.sempre.overnight.SimpleWorld."
EXAMPLES = (
    '(example\n  (utterance "block that is \\"left\\" of block 1")\n  (original "block that is left of block 1")\n'
    f"  (targetFormula\n    (call {SW}listValue (call {SW}filter (call {SW}getProperty (call {SW}singleton en.block) "
    "(string !type)) (string left) (string =) en.block.block1))\n  )\n)\n"
    '(example\n  (utterance "blocks 3 inches tall")\n'
    f"  (targetFormula (call {SW}listValue (number 3 en.inch)))\n)\n"
)


def test_a_file_in_sempres_format_reads_and_simplifies(tmp_path):
    path = tmp_path / "blocks.paraphrases.test.examples.gz"
    path.write_bytes(gzip.compress(EXAMPLES.encode()))
    first, second = read_examples(path, "test")
    assert first.utterance == 'block that is "left" of block 1' and first.id == "overnight-blocks-test-0000"
    assert first.formula == ("(call listValue (call filter (call getProperty (call singleton en.block) (string !type)) "
                             "(string left) (string =) en.block.block1))")
    assert second.formula == "(call listValue (number 3 en.inch))"
    assert simplify_formula("(call  edu.stanford.nlp.sempre.overnight.SimpleWorld.listValue  x)") == \
        "(call listValue x)"


def test_a_broken_file_and_a_missing_folder_are_one_line_each(tmp_path):
    broken = tmp_path / "blocks.paraphrases.test.examples"
    broken.write_text(EXAMPLES.replace("en.block.block1))\n", "en.block.block1\n"), encoding="utf-8")
    with pytest.raises(InputError, match=r"examples: example \d: "):
        read_examples(broken, "test")
    with pytest.raises(InputError, match=r"no such folder.*-T data=FOLDER"):
        overnight_split(str(tmp_path / "absent"), "test")
    with pytest.raises(InputError, match=r"no blocks\.paraphrases\.train\.examples"):
        overnight_split(str(tmp_path), "test")
    with pytest.raises(InputError, match="needs -T data=FOLDER"):
        next(iter(get_task("clamp-overnight").instances()))


def test_benchclamps_dev_split_and_the_induced_grammar_covers_the_test_formulas():
    dev, test = overnight_split(FOLDER, "dev"), overnight_split(FOLDER, "test")
    assert (len(dev.examples), len(dev.evaluated), len(test.evaluated)) == (1197, 399, 399)
    assert dev.examples == test.examples  # one pool: the training set without the dev examples
    assert not {e.id for e in dev.evaluated} & {e.id for e in dev.examples}
    grammar = overnight_grammar(FOLDER)
    covered = sum(accepts(grammar, example.formula) for example in test.evaluated)
    assert covered / len(test.evaluated) >= 0.95


def test_a_run_scores_exact_match_of_the_simplified_formula(tmp_path):
    task = get_task("clamp-overnight", data=FOLDER, shots=2)
    chosen = list(task.instances())[:3]
    small = dataclasses.replace(task, instances=lambda: chosen)
    answers = [chosen[0].reference, "(call listValue en.block", "(call listValue en.block)"]
    run, summary = evaluate(plan_run(EvalSpec(task=small.name, model="scripted:s",
                                              task_options={"data": FOLDER, "shots": "2"}), small),
                            tmp_path / "run", model=ScriptedModel(answers))
    records = read_records(run)
    assert [r.quality["exact_match"] for r in records] == [1.0, 0.0, 0.0]
    assert [r.passed for r in records] == [True, False, True]  # the check is well-formedness
    assert summary.quality["well_formed"] == pytest.approx(2 / 3)
    assert chosen[0].prompt.count("Human: ") == 3  # two examples, then the utterance
