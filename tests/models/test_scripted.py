"""The scripted backend behaves as a backend must: order, stop strings, budgets, usage, and a clear end."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from corral.grammars import Grammar
from corral.models import Request, Sampling, ScriptedModel, load_model, scripted_tokens


def test_outputs_are_replayed_in_order_across_requests_and_samples() -> None:
    model = ScriptedModel(["a", "b", "c"])
    answers = model.complete([Request.user("x", Sampling(n=2)), Request.user("y")])
    assert [[c.text for c in a] for a in answers] == [["a", "b"], ["c"]]
    assert [r.messages[0]["content"] for r in model.requests] == ["x", "y"]


def test_stop_strings_cut_and_budgets_truncate() -> None:
    model = ScriptedModel(["one two. three four", "one two three four five"])
    [[stopped], [cut]] = model.complete([Request.user("p", Sampling(stop=(".",))),
                                         Request.user("p", Sampling(max_tokens=3))])
    assert (stopped.text, stopped.finish_reason, stopped.completion_tokens) == ("one two", "stop", 2)
    assert (cut.text, cut.finish_reason, cut.completion_tokens) == ("one two three", "length", 3)


def test_usage_grammar_flag_and_exhaustion() -> None:
    model = ScriptedModel(["yes"])
    [[first]] = model.complete([Request.user("is it two words", grammar=Grammar.regex("yes|no"))])
    assert first.prompt_tokens == 4 and first.completion_tokens == 1 and first.constrained
    [[second]] = model.complete([Request.user("again")])
    assert second.finish_reason == "error" and "no output left (1 given)" in (second.error or "")


def test_a_function_script_and_the_registry() -> None:
    model = load_model("scripted:echo", script=lambda request, i: f"{request.messages[-1]['content']} {i}")
    assert model.backend == "scripted" and model.name == "echo"
    [answers] = model.complete([Request.user("hi", Sampling(n=2))])
    assert [c.text for c in answers] == ["hi 0", "hi 1"]


@given(st.text(alphabet=st.sampled_from("ab .\n"), max_size=40), st.integers(1, 12))
def test_tokens_join_back_and_a_budget_keeps_a_prefix(text: str, budget: int) -> None:
    assert "".join(scripted_tokens(text)) == text
    [[out]] = ScriptedModel([text]).complete([Request.user("p", Sampling(max_tokens=budget))])
    assert text.startswith(out.text) and out.completion_tokens <= budget
    assert (out.finish_reason == "length") == (len(scripted_tokens(text)) > budget)
