"""A new base constraint is one registration: parser, checker, renderer, feedback and JSON pick it up."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import catalogue
import pytest

from corral import from_json, parse, render
from corral.constraints import BaseKind, Call, Expr, Result, Selector, check, register_kind, to_json
from corral.constraints import selection_phrase as selection


def capitalize(sentence: str) -> str:
    return sentence[:1].upper() + sentence[1:]


@dataclass(frozen=True, slots=True)
class Capitalized(Expr):
    """``capitalized(T)``: every word of the selection starts with an upper-case letter."""

    kind: ClassVar[str] = "capitalized"
    of: Selector


def _evaluate(node: Capitalized, ctx) -> Result:
    unit, _ = ctx.resolve(node.of)
    words = ctx.seg.units(__import__("corral").Level.WORD, unit) if unit else []
    lower = [w for w, _, _ in words if not w[:1].isupper()]
    return Result(node, unit is not None and not lower, lower, "capitalised words",
                  tuple((a, b) for w, a, b in words if w in lower))


def _from_call(call: Call) -> Capitalized:
    if len(call.args) != 1 or call.rel is not None:
        raise ValueError("capitalized takes one selection and no relation")
    return Capitalized(call.args[0])


@pytest.fixture
def capitalized_kind():
    kind = register_kind(BaseKind(
        name="capitalized", node=Capitalized, evaluate=_evaluate, to_text=lambda n: f"capitalized({n.of})",
        clause=lambda n, ph: f"every word of {selection(n.of, ph)} is capitalised",
        failure=lambda rs, ph: f"{capitalize(selection(rs[0].constraint.of, ph))} has lower-case words: "
                               f"{', '.join(rs[0].observed)}.",
        from_call=_from_call,
    ))
    yield kind
    catalogue._remove(("corral", "base_constraints", "capitalized"))  # Capitalized nodes exist only here


def test_new_kind_works_everywhere(capitalized_kind):
    c = parse("sentence: capitalized(text) and count(text, word) == 3")
    assert str(c) == "sentence: capitalized(text) and count(text, word) == 3"
    assert from_json(to_json(c)) == c
    assert render(c) == ("Please generate a sentence where every word of the sentence is capitalised, "
                         "with exactly 3 words.")
    assert check(c, "Big Red Dog").passed
    v = check(c, "Big red dog")
    assert not v.passed
    assert v.feedback == "The sentence has lower-case words: red, dog."
    assert v.detail.parts[0].spans == ((4, 7), (8, 11))
    inside = parse("all(text, sentence, capitalized(unit))")
    assert not check(inside, "Big Dog. Small cat.").passed


def test_unknown_kind_lists_registered_ones():
    with pytest.raises(ValueError, match="available: count, match, regex"):
        parse("capitalized(text)")
