"""The parsing tasks: gold outputs pass the checker and their grammar, what a grammar draws is a well-formed parse
over exactly the sentence, bad sentences get a per-instance answer, and records carry well-formedness and the
parsing metrics (the scripted model replays outputs; the bundled model decodes under the grammars)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from corral.evaluation import EvalSpec, evaluate, plan_run, read_records
from corral.grammars import NotExpressible, accepts, random_walk, sample
from corral.metrics import read_indexed, read_tree, read_triples
from corral.models import ScriptedModel, load_model
from corral.suites.clamp import (
    ParseExample,
    check_dependency,
    check_tree,
    coverage,
    dependency_grammar,
    load,
    target_text,
    tree_grammar,
)
from corral.tasks import TaskInstance, TaskOptionError, get_task

GUM = load("gum")["test"]
EWT = load("ewt")["test"]


def _instance(example: ParseExample, form: str = "triples") -> TaskInstance:
    target = {"words": example.words, "gold": target_text(example, form), "form": form}
    if example.heads is not None:
        target |= {"heads": example.heads, "relations": example.relations}
    return TaskInstance(id=example.id, prompt="", target=target, reference=target["gold"])


@pytest.mark.parametrize("name,options", [("clamp-constituency", {}), ("clamp-dependency", {}),
                                          ("clamp-dependency", {"form": "indexed"})])
def test_gold_outputs_pass_the_checker_and_their_grammar(name, options):
    task = get_task(name, **options)
    instances = list(task.instances())
    assert len(instances) == 100 and len({i.id for i in instances}) == 100  # the test subset
    for instance in instances[:25]:
        assert task.check(instance, instance.reference).passed, instance.id
        assert accepts(task.grammar(instance), instance.reference), instance.id
    assert instances[0].prompt.startswith("Let's translate what a human user says")
    assert instances[0].prompt.endswith("\nComputer:") and instances[0].prompt.count("Human:") > 5


def test_grammar_coverage_of_the_first_gold_outputs():
    for dataset, form in (("gum", "tree"), ("ewt", "triples"), ("ewt", "indexed")):
        found = coverage(dataset, "test", form, limit=40)
        assert found.examples == 40 and found.rate == 1.0, found


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(index=st.integers(0, len(GUM) - 1), seed=st.integers(0, 10**6))
def test_every_tree_a_sentences_grammar_draws_is_over_exactly_its_words(index, seed):
    example = GUM[index]
    if len(example.words) > 30:
        example = ParseExample(example.id, example.words[:30], tree="(S (NN truncated))")
    text = sample(tree_grammar(example.words), random_walk(seed, 0.3), max_bytes=20_000, strict=True)
    if text is not None:
        tree = read_tree(text)
        assert tree is not None and tuple(tree.leaves()) == example.words, text
        assert check_tree(_instance(example), text).passed


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(index=st.integers(0, len(EWT) - 1), seed=st.integers(0, 10**6), form=st.sampled_from(["triples", "indexed"]))
def test_every_dependency_output_a_grammar_draws_reads_back_over_the_words(index, seed, form):
    example = EWT[index]
    text = sample(dependency_grammar(example.words, form), random_walk(seed, 0.3), max_bytes=20_000, strict=True)
    if text is not None:
        reader = read_indexed if form == "indexed" else read_triples
        parsed = reader(text, list(example.words))
        assert parsed is not None and len(parsed[0]) == len(example.words), text
        assert check_dependency(_instance(example, form), text).passed


def test_awkward_empty_and_long_sentences():
    awkward = ParseExample("awkward", ('"', "\\", "(", ")", "#", "日本", "it's", "%if", "root", ","),
                           heads=(0, 1, 1, 1, 1, 1, 1, 1, 1, 1), relations=("root",) + ("dep",) * 9)
    for form in ("triples", "indexed"):
        gold = target_text(awkward, form)
        assert accepts(dependency_grammar(awkward.words, form), gold)
        assert check_dependency(_instance(awkward, form), gold).passed
    tree = "(S " + " ".join(f"(NN {w})" for w in ('"', "\\", "#", "日本", "it's", "%if")) + ")"
    assert accepts(tree_grammar(('"', "\\", "#", "日本", "it's", "%if")), tree)
    long = tuple(f"w{k}" for k in range(300))
    assert accepts(tree_grammar(long), "(S " + " ".join(f"(NN {w})" for w in long) + ")")
    task = get_task("clamp-constituency")
    empty = TaskInstance(id="empty", prompt="", target={"words": (), "gold": "", "form": "tree"})
    with pytest.raises(NotExpressible, match="no tokens"):
        task.grammar(empty)
    verdict = check_tree(_instance(GUM[0]), "(S (NN oops))")
    assert not verdict.passed and verdict.violations[0].rule == "copy"
    assert check_tree(_instance(GUM[0]), "not a tree").violations[0].rule == "tree"


def test_options_are_validated():
    with pytest.raises(TaskOptionError, match="split"):
        get_task("clamp-constituency", split="tiny")
    with pytest.raises(TaskOptionError, match="form"):
        get_task("clamp-dependency", form="conll")
    assert len(list(get_task("clamp-dependency", eval_set="dev").instances())) == 50  # low-0's dev
    assert all(i.prompt.count("Human:") == 1 for i in get_task("clamp-constituency", shots=0).instances())


def test_records_carry_well_formedness_and_the_metrics(tmp_path):
    run, summary = evaluate(EvalSpec(task="clamp-constituency", model="scripted:s", limit=3), tmp_path / "run",
                            model=ScriptedModel(["(S (NN wrong))", "no tree here", "(S (NN wrong))"]))
    records = read_records(run)
    assert len(records) == 3 and not any(r.passed for r in records)
    assert records[0].violations[0]["rule"] == "copy" and records[1].violations[0]["rule"] == "tree"
    assert summary.quality["bracket_f1"] == 0.0 and summary.quality["well_formed"] == 0.0


@pytest.mark.model
def test_constrained_parses_of_the_bundled_model_are_all_well_formed(tmp_path):
    model = load_model("smollm2")
    try:
        for name, options in (("clamp-constituency", {"shots": 1}), ("clamp-dependency", {"shots": 1})):
            task = get_task(name, **options)
            run, _ = evaluate(plan_run(EvalSpec(task=task.name, decoding="constrained", limit=1), task),
                              tmp_path / name, model=model)
            records = read_records(run)
            assert len(records) == 1 and all(r.decoding == "constrained" for r in records)
            assert all(r.passed for r in records), [(r.instance, r.answer[:200]) for r in records]
    finally:
        model.close()
