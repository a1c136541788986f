"""Evaluation plans: a compiled constraint gives exactly the interpreter's result tree and step count, on any
constraint and text; plans are remade when a kind is registered; very deep constraints are interpreted."""

from __future__ import annotations

import catalogue
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from corral import parse
from corral.constraints import (
    BaseKind,
    Budget,
    Constraint,
    Count,
    Expr,
    Meter,
    Not,
    Rel,
    TextRef,
    check,
    register_kind,
)
from corral.constraints._check import MAX_PLAN_DEPTH, Context, counted_levels, evaluate, plan_for, planned
from corral.suites.collie import constraint_for
from corral.text import Level, Segmentation
from corral.verdicts import Verdict

from .strategies import constraints

any_text = st.text(alphabet=st.characters(codec=None, categories=None), max_size=300)


def both(c: Constraint, text: str) -> tuple[tuple, tuple]:
    """(result, steps) from the interpreter and from the plan, each on a fresh segmentation and meter."""
    out = []
    plan, counted_by_plan = planned(c.body, first=False)  # type: ignore[misc]
    for run, counted in ((lambda ctx: evaluate(c.body, ctx), frozenset()), (plan, counted_by_plan)):
        meter = Meter(Budget.unlimited())
        out.append((run(Context(Segmentation(text, c.profile, counted), c.level, meter)), meter.steps))
    return out[0], out[1]


def test_counted_levels_are_those_only_counted():
    assert counted_levels(parse("count(text, word, sentence) >= 2").body) == {
        Level.CHAR, Level.WORD, Level.PARAGRAPH, Level.PASSAGE}
    assert Level.WORD not in counted_levels(parse("count(text, word) >= 2 and pos(text, word, 2) == 'a'").body)
    assert Level.WORD not in counted_levels(parse("count(text, word, 'a') >= 1").body)
    assert Level.WORD not in counted_levels(parse("not any(text, word, count(unit, char) > 3)").body)
    assert counted_levels(parse("regex(pos(text, sentence, 1), 'a') or count(text, word) == 1").body) == {
        Level.CHAR, Level.WORD, Level.PARAGRAPH, Level.PASSAGE}


@settings(max_examples=400, deadline=None)
@given(constraints, any_text | st.sampled_from(["One two. Three four five.\n\nSix, seven! Eight \"nine\" ten."]))
@example(parse("[collie-v1] all(text, sentence, pos(unit, word, -1) == 'b')"), "A b. C d b. E")
@example(parse("[collie-v1] pos(pos(text, sentence, -1), word, -1) != 'x' and count(text, word) == 2"), "a (b) -- .")
def test_a_plan_gives_the_interpreters_result(c: Constraint, text: str):
    interpreted, planned = both(c, text)
    assert planned == interpreted


def test_plans_on_the_collie_dev_generations(dev_generations):
    for row in dev_generations:
        c = constraint_for(row["code"], row["targets"])
        for text in (row["text"], row["text"].replace(". ", ".\n\n")):
            interpreted, planned = both(c, text)
            assert planned == interpreted, (row["code"], text[:80])


def test_a_constraint_is_evaluated_once_then_planned(dev_generations):
    """The first check of a constraint object runs the interpreter (a plan costs a check or two to make); the next
    ones run its plan. Verdicts, results and feedback are the same either way."""
    rows = [r for r in dev_generations if not r["collie_verdict"]][:200] + dev_generations[:200]
    for row in rows:
        c = constraint_for(row["code"], row["targets"])
        assert planned(c.body) is None and planned(c.body) is not None  # seen, then planned
        first = check(constraint_for(row["code"], row["targets"]), row["text"])  # a new object: interpreted
        again = check(c, row["text"])  # planned
        assert first == again and first.detail == again.detail and first.detail.result == again.detail.result
        assert first.to_json() == again.to_json()


def test_a_plan_is_made_once_per_constraint_and_again_after_a_registration():
    c = parse("count(text, word) >= 2 and pos(text, word, 1) == 'a'")
    plan = plan_for(c.body)
    assert plan_for(c.body) is plan
    assert plan_for(parse(str(c)).body) is not plan  # an equal value is another node: its own plan

    class Shout(Expr):
        __slots__ = ()

    register_kind(BaseKind(name="shout-test", node=Shout, evaluate=lambda n, ctx: None, to_text=lambda n: "shout()",
                           clause=lambda n, ph: "", failure=lambda rs, ph: ""))
    try:
        assert plan_for(c.body) is not plan
    finally:
        catalogue._remove(("corral", "base_constraints", "shout-test"))


def test_a_kind_whose_compile_fails_is_evaluated():
    class Odd(Expr):
        __slots__ = ()

    def evaluate_odd(node, ctx):
        from corral.constraints import Result

        return Result(node, len(ctx.seg.text) % 2 == 1)

    def broken(node):
        raise RuntimeError("no plan")

    register_kind(BaseKind(name="odd-test", node=Odd, evaluate=evaluate_odd, to_text=lambda n: "odd()",
                           clause=lambda n, ph: "", failure=lambda rs, ph: "odd", compile=broken))
    try:
        assert check(Odd(), "abc").passed and not check(Odd(), "ab").passed
    finally:
        catalogue._remove(("corral", "base_constraints", "odd-test"))


def test_deep_constraints_are_interpreted_and_as_before():
    node: Expr = Count(TextRef(), Level.WORD, Rel.GE, 1)
    for _ in range(MAX_PLAN_DEPTH + 5):
        node = Not(node)
    interpreted, planned = both(Constraint(node), "a b")
    assert planned == interpreted
    for _ in range(5000):
        node = Not(node)
    assert check(node, "a b").undecided == "the constraint is nested too deeply to evaluate"


def test_lazy_verdicts_are_the_dataclasss_own():
    explain = list
    for passed in (True, False):
        made = Verdict.lazy(passed, 0.5, explain, rules=["a"], detail="d")
        assert made == Verdict(passed, 0.5, ("a",), "d") and made.detail == "d" and made.undecided is None
        assert vars(made) == vars(Verdict(passed, 0.5, ("a",), "d", made.explanation))


@pytest.mark.parametrize("text", ["", "x", "One. Two three."])
def test_checked_evidence_is_the_dataclasss_own(text):
    from corral.constraints import Checked

    v = check(parse("count(text, word) == 2"), text)
    again = Checked(v.detail.constraint, v.detail.text, v.detail.result, v.detail.parts)
    assert v.detail == again and vars(v.detail) == vars(again)
