"""``with_reasoning``: a free, bounded reasoning block, then the answer's grammar, as one llguidance grammar.

The property: a block of thinking free of the close tag and within the bound, followed by an answer, is accepted
exactly when the answer's own grammar accepts the answer; an over-long or unclosed block is refused. For regex,
Lark and JSON-schema grammars, and for a compiled COLLIE grammar.
"""

from __future__ import annotations

import json
from functools import cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from corral.grammars import Grammar, GrammarError, accepts, random_walk, sample, with_reasoning
from corral.text import Reasoning

BOUND = 48
BLOCK = Reasoning(max_chars=BOUND)
PREFILLED = Reasoning(max_chars=BOUND, prefilled=True)

REGEX = Grammar.regex("[a-z]{1,8}( [a-z]{1,8})?")
LARK = Grammar.lark('start: "a" b\nb: /[0-9]+/\n%ignore /[ ]+/\n')
SCHEMA = Grammar.json_schema({"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"],
                              "additionalProperties": False})

thinking = st.text(max_size=BOUND).filter(lambda t: "</think>" not in t)


def answers(grammar: Grammar, drawn: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """Texts of the grammar and others, none starting with whitespace (the separator's) or the open tag."""
    anything = st.text(max_size=16)
    return st.one_of(drawn, anything).filter(lambda a: a == a.lstrip() and not a.startswith("<think>"))


ANSWERS = {
    "regex": (REGEX, answers(REGEX, st.from_regex(r"[a-z]{1,8}( [a-z]{1,8})?", fullmatch=True))),
    "lark": (LARK, answers(LARK, st.from_regex(r"a {0,2}[0-9]{1,4}", fullmatch=True))),
    "json_schema": (SCHEMA, answers(SCHEMA, st.integers().map(lambda n: json.dumps({"a": n}, separators=(",", ":"))))),
}


@pytest.mark.parametrize("kind", sorted(ANSWERS))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_block_then_an_answer_is_accepted_exactly_when_the_answer_is(kind: str, data: st.DataObject) -> None:
    grammar, drawn = ANSWERS[kind]
    wrapped, prefilled = with_reasoning(grammar, BLOCK), with_reasoning(grammar, PREFILLED)
    thought, answer = data.draw(thinking), data.draw(drawn)
    expected = accepts(grammar, answer)
    assert accepts(wrapped, f"<think>{thought}</think>{answer}") == expected
    assert accepts(wrapped, f"<think>{thought}</think>\n\n{answer}") == expected
    assert accepts(prefilled, f"{thought}</think>{answer}") == expected
    assert accepts(wrapped, answer) == expected  # no block: the model answered at once
    assert not accepts(prefilled, answer) or "</think>" in answer  # a pre-filled block must close


@pytest.mark.parametrize("kind", sorted(ANSWERS))
def test_an_over_long_or_unclosed_block_is_refused(kind: str) -> None:
    grammar, _ = ANSWERS[kind]
    answer = {"regex": "ok", "lark": "a 1", "json_schema": '{"a":1}'}[kind]
    wrapped = with_reasoning(grammar, BLOCK)
    assert accepts(wrapped, f"<think>{'x' * BOUND}</think>{answer}")
    assert not accepts(wrapped, f"<think>{'x' * (BOUND + 1)}</think>{answer}")
    assert not accepts(wrapped, f"<think>thinking, and never done {answer}")
    # the block ends at its first close tag: what follows must be an answer
    assert not accepts(wrapped, f"<think>a</think>b</think>{answer}")
    assert not accepts(with_reasoning(grammar, PREFILLED), f"{'x' * (BOUND + 1)}</think>{answer}")


@pytest.mark.parametrize("kind", sorted(ANSWERS))
def test_texts_drawn_from_a_wrapped_grammar_split_into_a_block_and_an_answer(kind: str) -> None:
    grammar, _ = ANSWERS[kind]
    for block in (BLOCK, PREFILLED):  # pre-filled, every text has a block (a random walk seldom opens one)
        wrapped = with_reasoning(grammar, block)
        drawn = [sample(wrapped, random_walk(seed, stop=0.3, close=0.5), strict=True) for seed in range(20)]
        assert all(text is not None for text in drawn)
        for text in drawn:
            thought = block.split(text)
            assert thought.closed and accepts(grammar, thought.answer), text


def test_the_wrapped_grammar_is_another_grammar() -> None:
    wrapped = with_reasoning(REGEX, BLOCK)
    assert wrapped.hash != REGEX.hash != with_reasoning(REGEX, PREFILLED).hash
    assert (wrapped.format, wrapped.source) == (REGEX.format, REGEX.source)  # what a reasoning server is sent
    assert wrapped.to_json()["reasoning"] == BLOCK.to_json()
    assert with_reasoning(REGEX, None) is REGEX and with_reasoning(wrapped, BLOCK) is wrapped
    with pytest.raises(GrammarError, match="already starts with a reasoning block"):
        with_reasoning(wrapped, PREFILLED)


def test_tags_with_regex_characters_are_literal() -> None:
    block = Reasoning("[THINK]", "[/THINK]", max_chars=10)
    wrapped = with_reasoning(REGEX, block)
    assert accepts(wrapped, "[THINK]a.b|c[/THINK]ok")
    assert not accepts(wrapped, "THINK]hm[/THINK]ok") and not accepts(wrapped, "[THINK]hm[/THINKok")


@cache
def _collie():
    from corral.tasks import get_task

    task = get_task("collie")
    instance = next(i for i in task.instances() if i.id == "ccnews_c04_0")  # 82 characters, with a reference
    return task, instance, task.grammar(instance)


@settings(max_examples=25, deadline=None)
@given(thought=thinking)
def test_a_compiled_collie_grammar_takes_a_block_before_its_sentence(thought: str) -> None:
    _, instance, grammar = _collie()
    wrapped = with_reasoning(grammar, BLOCK)
    reference = instance.reference
    assert accepts(grammar, reference) and accepts(wrapped, f"<think>{thought}</think>\n{reference}")
    assert not accepts(wrapped, f"<think>{thought}</think>\n{reference[:-2]}.")  # 81 characters
    assert not accepts(grammar, f"<think>{thought}</think>{reference}")  # unwrapped, the block is refused


def test_sentences_drawn_after_a_collie_block_pass_the_checker() -> None:
    task, instance, grammar = _collie()
    wrapped = with_reasoning(grammar, Reasoning(max_chars=12))
    drawn = [text for seed in range(6) if (text := sample(wrapped, random_walk(seed, stop=0.05), max_bytes=400))]
    assert drawn
    for text in drawn:
        judged = Reasoning(max_chars=12).split(text)
        assert judged.closed and task.verdict(instance, judged.answer).passed, text
