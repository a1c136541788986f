"""``Reasoning.split``: where a reasoning model's thinking ends and its answer starts (the one split every checker,
reward and report reads), and ``from_template``: the block a chat template writes."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from corral.text import Reasoning, Thought

THINK = Reasoning()


def test_the_answer_is_what_follows_the_block() -> None:
    assert THINK.split("<think>count the words</think>\n\nFour words are here.") == Thought(
        "count the words", "Four words are here.", True)


def test_leading_whitespace_and_an_empty_block() -> None:
    assert THINK.split("\n  <think>\nhm\n</think>answer") == Thought("\nhm\n", "answer", True)
    assert THINK.split("<think></think>answer") == Thought("", "answer", True)


def test_an_output_without_the_open_tag_skipped_thinking() -> None:
    assert THINK.split("  just the answer") == Thought("", "just the answer", True)
    # without a declared pre-fill, a close tag alone is part of the answer: the grammar reads it the same way
    assert THINK.split("a </think> b") == Thought("", "a </think> b", True)


def test_a_prefilled_block_starts_at_the_first_character() -> None:
    prefilled = Reasoning(prefilled=True)
    assert prefilled.split("\nthe template opened it</think>\n\nanswer") == Thought(
        "\nthe template opened it", "answer", True)
    assert prefilled.split("no close tag at all") == Thought("no close tag at all", None, False)


def test_an_unclosed_block_has_no_answer() -> None:
    assert THINK.split("<think>still thinking when the budget ran out") == Thought(
        "still thinking when the budget ran out", None, False)


def test_a_block_that_closes_past_its_bound_never_closed() -> None:
    bounded = Reasoning(max_chars=5)
    assert bounded.split("<think>12345</think>ok") == Thought("12345", "ok", True)
    assert bounded.split("<think>123456</think>ok").answer is None


def test_the_block_ends_at_the_first_close_tag() -> None:
    assert THINK.split("<think>a</think>b</think>c") == Thought("a", "b</think>c", True)


@given(thinking=st.text(max_size=60).filter(lambda t: "</think>" not in t),
       answer=st.text(max_size=60).filter(lambda a: a == a.lstrip()))
def test_split_inverts_writing_a_block(thinking: str, answer: str) -> None:
    assert THINK.split(f"<think>{thinking}</think>{answer}") == Thought(thinking, answer, True)
    assert Reasoning(prefilled=True).split(f"{thinking}</think>\n{answer}") == Thought(thinking, answer, True)


def test_a_served_block_is_taken_as_the_server_split_it() -> None:
    assert Thought.served("hm", "\nanswer", cut_off=False) == Thought("hm", "answer", True)
    # the parser gives everything to the thinking when the close tag never came
    assert Thought.served("hm, and then", "", cut_off=True) == Thought("hm, and then", None, False)
    assert Thought.served("x" * 11, "answer", cut_off=False, max_chars=10).answer is None


@pytest.mark.parametrize(("open_", "close", "problem"), [
    ("", "</think>", "non-empty"), ("<think>", " </think>", "spaces"), ("<t>", "<t>", "differ"),
    ("<think>", "x" * 65, "limit")])
def test_bad_tags_are_refused_in_one_line(open_: str, close: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem) as caught:
        Reasoning(open_, close)
    assert "\n" not in str(caught.value)


QWEN3_LIKE = ("{%- for message in messages %}{%- if message.role == 'assistant' %}{%- set content = "
              "message.content.split('</think>')[-1] %}{%- endif %}{%- endfor %}{%- if add_generation_prompt %}"
              "{{- '<|im_start|>assistant\\n' }}{%- endif %}")
R1_LIKE = "{% if add_generation_prompt %}{{'<｜Assistant｜><think>\\n'}}{% endif %}{# split on </think> #}"


def test_the_block_a_template_writes() -> None:
    found = Reasoning.from_template(QWEN3_LIKE, "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n")
    assert found == Reasoning("<think>", "</think>", prefilled=False)
    found = Reasoning.from_template(R1_LIKE, "<｜User｜>Hi<｜Assistant｜><think>\n", max_chars=100)
    assert found == Reasoning("<think>", "</think>", 100, prefilled=True)
    assert Reasoning.from_template("[THINK]...[/THINK]", "") == Reasoning("[THINK]", "[/THINK]")
    assert Reasoning.from_template("{{ messages }}", "") is None
