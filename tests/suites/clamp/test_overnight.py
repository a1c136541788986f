"""Overnight blocks (``clamp-overnight``): SEMPRE's files read from the user's folder, BenchCLAMP's dev split, the
formula simplified, a grammar induced from the pool that covers the test formulas, exact match from a run, and
one-line errors for a missing folder and a broken file."""

from __future__ import annotations

import dataclasses
import gzip

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from corral.errors import InputError
from corral.evaluation import EvalSpec, evaluate, plan_run, read_records
from corral.grammars import accepts, random_walk, sample
from corral.models import ScriptedModel
from corral.suites.clamp import (
    ExecutionError,
    JavaRandom,
    NameValue,
    NumberValue,
    blocks_world,
    denotation,
    execute,
    overnight_grammar,
    overnight_split,
    read_examples,
    simplify_formula,
)
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
    assert [r.quality["denotation"] for r in records] == [1.0, 0.0, 0.0]  # en.block itself is no answer
    assert [r.passed for r in records] == [True, False, True]  # the check is well-formedness
    assert summary.quality["well_formed"] == pytest.approx(2 / 3)
    assert chosen[0].prompt.count("Human: ") == 3  # two examples, then the utterance


def test_java_random_is_openjdks():
    """Printed by OpenJDK 17's java.util.Random(1): nextInt(2) x8, nextInt(60) x8, nextInt(6) x4, nextDouble(),
    nextInt(1 << 30), nextInt(1000000007)."""
    rng = JavaRandom(1)
    drawn = [rng.next_int(2) for _ in range(8)] + [rng.next_int(60) for _ in range(8)] + \
        [rng.next_int(6) for _ in range(4)]
    assert drawn == [1, 0, 0, 0, 0, 0, 0, 1, 58, 28, 49, 13, 37, 3, 42, 34, 2, 0, 0, 5]
    assert (rng.next_double(), rng.next_int(1 << 30), rng.next_int(1_000_000_007)) == \
        (0.3971743421847056, 373144655, 342179099)


def test_every_gold_formula_executes_in_the_blocks_world():
    world = blocks_world()
    blocks = execute("(call getProperty (call singleton en.block) (string !type))")
    assert len(blocks) == 60 and blocks[:3] == [NameValue("en.block.block1"), NameValue("en.block.block2"),
                                             NameValue("en.block.2")]
    assert world.lookup(NameValue("en.block.block1"), "shape") == [NameValue("en.shape.cube")]  # nextInt(2) drew 1
    dev, test = overnight_split(FOLDER, "dev"), overnight_split(FOLDER, "test")
    formulas = [e.formula for e in (*dev.examples, *dev.evaluated, *test.evaluated)]
    assert len(formulas) == 1995
    values = [denotation(f) for f in formulas]
    assert all(v is not None for v in values)
    assert 0.5 < sum(bool(v) for v in values) / len(values) < 0.95  # most denote something, some nothing


def test_denotations_follow_simpleworlds_semantics():
    red = "(call listValue (call filter (call getProperty (call singleton en.block) (string !type)) (string color) " \
          "(string =) en.color.red))"
    assert denotation(red) == denotation(red.replace("(string =) en.color.red", "(string !=) en.color.green"))
    assert denotation(red) != denotation(red.replace("red", "green"))
    count = "(call listValue (call .size (call getProperty (call singleton en.block) (string !type))))"
    assert denotation(count) == (NumberValue(60.0, "count"),)
    for broken in ("(call listValue (call getProperty (call singleton en.block) (string color)))",  # type check
                   "(call listValue (call explode en.block))",  # no such function
                   "(call listValue (call singleton (call singleton en.block)))",  # a list is not a value
                   "(call listValue (call getProperty en.block.block1 (string colour)))",  # no such property
                   "(call listValue (call superlative (call filter (call getProperty (call singleton en.block) "
                   "(string !type)) (string shape) (string =) en.color.red) (string max) (string height)))",
                   "(call listValue en.block"):
        assert denotation(broken) is None, broken
    blocks = "(call getProperty (call singleton en.block) (string !type))"
    assert denotation(blocks) != denotation(f"(call listValue {blocks})")  # unsorted, and no listValue
    assert sorted(denotation(blocks), key=repr) == sorted(denotation(f"(call listValue {blocks})"), key=repr)
    assert denotation("(call listValue (call .size (call singleton en.block)))") != \
        denotation("(call .size (call singleton en.block))")  # a bare number is not a list of one
    with pytest.raises(ExecutionError, match="Type check failed: color"):
        execute("(call getProperty (call singleton en.block) (string color))")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1))
def test_whatever_the_grammar_allows_executes_or_errors_cleanly(seed):
    text = sample(overnight_grammar(FOLDER), random_walk(seed, stop=0.3, close=0.4), max_bytes=600)
    if text is not None:
        value = denotation(text)  # never raises: an error is None
        assert value is None or isinstance(value, tuple) or not text.startswith("(call listValue ")


def test_denotation_accuracy_credits_another_formula_with_the_same_answer():
    task = get_task("clamp-overnight", data=FOLDER, shots=0)
    instance = next(iter(task.instances()))
    gold = instance.reference
    assert task.quality(instance, gold)["denotation"] == 1.0
    swapped = gold.replace("(call listValue ", "(call listValue (call concat ", 1)
    assert task.quality(instance, swapped)["denotation"] == 0.0  # no longer executes
    value = denotation(gold)
    same = [f for f in (e.formula for e in overnight_split(FOLDER, "test").examples) if f != gold
            and denotation(f) == value]
    if same:  # another formula that denotes the same: right by denotation, wrong by exact match
        judged = task.quality(instance, same[0])
        assert (judged["denotation"], judged["exact_match"]) == (1.0, 0.0)
