"""The induced Lispress grammar and the ``clamp-lispress`` task (``corral.suites.clamp``)."""

from __future__ import annotations

import itertools
import random

from corral.grammars import accepts
from corral.suites.clamp import (
    calflow_split,
    check_lispress,
    clamp_lispress,
    induce_lispress_grammar,
    lispress_quality,
    split_grammar,
)

EXAMPLES = ['(Yield :output (f :a #(String "x")))', '(Yield :output (f :b (g 1L)))',
            "(Yield :output (h [x0 x1]))", '(Yield :output (f :a #(String "y") :c #(Number 2)))']


def test_named_arguments_generalise_in_the_order_the_examples_keep():
    grammar = induce_lispress_grammar(EXAMPLES).grammar
    for program in EXAMPLES:
        assert accepts(grammar, program), program
    assert accepts(grammar, '(Yield :output (f :a #(String "any words") :b (g 22L) :c #(Number 2.5)))')
    assert accepts(grammar, "(Yield :output (f))")  # each named argument is optional
    assert accepts(grammar, "(Yield :output (h [x1 x0 x0]))")  # list items: the slot's values, any count
    for program in ['(Yield :output (f :b (g 1L) :a #(String "x")))',  # out of order
                    "(Yield :output (g 1L))",  # g was never the output's value
                    '(Yield :output (f :a #(Number 2)))',  # a Number was never :a's value
                    '(Yield  :output (f))']:  # not canonical spacing
        assert not accepts(grammar, program), program


def test_a_grammar_accepts_every_program_it_was_induced_from():
    pool = calflow_split("dev-100").examples
    programs = [turn.lispress for turn in random.Random(0).sample(pool, 300)]
    grammar = induce_lispress_grammar(programs).grammar
    assert all(accepts(grammar, program) for program in programs)


def test_the_task_prompts_with_retrieved_examples_and_its_grammar_covers_gold():
    task = clamp_lispress(eval_set="dev-100", shots=3, budget=1500, retriever="bm25", grammar="induced")
    instances = list(itertools.islice(task.instances(), 5))
    assert len(instances) == 5
    for instance in instances:
        assert instance.prompt.count("\nHuman: ") == 4 and instance.prompt.endswith("\nComputer:")  # 3 shots
    grammar = split_grammar("dev-100")
    assert sum(accepts(grammar, instance.target["gold"]) for instance in instances) >= 4


def test_the_checker_judges_well_formedness_and_quality_is_lispress_match():
    task = clamp_lispress(eval_set="dev-100", shots=0, budget=0, retriever="bm25", grammar="benchclamp")
    instance = next(iter(task.instances()))
    gold = instance.target["gold"]
    assert check_lispress(instance, "  " + gold.replace(" ", "  ")).passed
    assert lispress_quality(instance, gold.replace(") ", ")\n ")) == {"exact_match": 1.0, "well_formed": 1.0}
    broken = check_lispress(instance, gold[:-1])
    assert not broken.passed and broken.violations[0].rule == "lispress"
    assert lispress_quality(instance, "(Yield)") == {"exact_match": 0.0, "well_formed": 1.0}


def test_coverage_counts_the_gold_programs_the_induced_grammar_accepts():
    from corral.suites.clamp import lispress_coverage

    found = lispress_coverage("dev-100", limit=30)
    assert (found.dataset, found.part, found.form, found.examples) == ("smcalflow", "dev-100", "lispress", 30)
    assert found.covered >= 28 and found.rate == found.covered / 30
    assert found.reasons == (() if found.covered == 30 else (("grammar", 30 - found.covered),))
