"""shortest_completion: every completion it returns makes a sentence of the grammar, and it is as short as any."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from corral.grammars import EOS, Grammar, accepts, allowed_bytes, byte_matcher, random_walk, sample, shortest_completion

NESTED = Grammar.lark('start: e\ne: "(" e ")" | "x" | e "+" e | "[" e ("," e)* "]"\n')
CALLS = Grammar.lark(
    'start: call\n'
    'call: "(" NAME args ")"\n'
    'args: (" :" KEY " " value)+\n'
    'value: call | NUMBER | STRING\n'
    'NAME: "Yield" | "Find" | "Today"\n'
    'KEY: "date" | "event" | "output"\n'
    'NUMBER: /[0-9]+/\n'
    'STRING: /"[a-z ]*"/\n')
GRAMMARS = [NESTED, CALLS, Grammar.regex(r"(ab|cd)+e{2,3}")]


def _breadth_first_length(grammar: Grammar, prefix: str, longest: int) -> int | None:
    """The length of the shortest completion, by a plain breadth-first walk over every allowed byte (no
    estimate, no pruning): the oracle for the A* search's answer."""
    matcher = byte_matcher(grammar)
    assert matcher.consume_tokens(list(prefix.encode()))
    level = [matcher]
    for size in range(longest + 1):
        if any(m.is_accepting() for m in level):
            return size
        following = []
        for m in level:
            for byte in allowed_bytes(m):
                if byte != EOS:
                    child = m.deep_copy()
                    assert child.consume_token(byte)
                    following.append(child)
        level = following
    return None


def test_closes_nested_brackets_with_the_fewest_bytes():
    assert shortest_completion(NESTED, "((x+(") == "x)))"
    assert shortest_completion(NESTED, "[(x") == ")]"
    assert shortest_completion(NESTED, "(x)") == ""  # already a sentence


def test_a_required_argument_is_filled_in():
    completion = shortest_completion(CALLS, "(Yield :output (Find :date")
    assert completion is not None and accepts(CALLS, "(Yield :output (Find :date" + completion)
    assert len(completion) == len(' 0))')


def test_no_completion_for_text_outside_the_grammar():
    assert shortest_completion(NESTED, "(y") is None
    assert shortest_completion(CALLS, "(Nope") is None


XML = Grammar.lark(
    'start: "<doc>" head body "</doc>"\n'
    'head: "<head>" ITEM+ "</head>"\n'
    'body: "<body>" (step | group)+ "</body>"\n'
    'group: "<a>" (step | group)+ "</a>"\n'
    'step: "<step name=\\"" NAME "\\" what=\\"" NAME "\\"/>"\n'
    'ITEM: "<item>" /[a-z]{4,9}/ "</item>"\n'
    'NAME: /[a-z]{3,12}/\n')


def test_required_content_out_of_the_shortest_search_is_found_greedily():
    """A* counts only what is open, so content the grammar requires (a head, a body, a step's two attributes)
    is a long detour. The greedy search tries ``<a>`` first (its preferred letter) and would nest groups
    forever; its bound on nesting makes it come back and write a step."""
    prefix = "<doc><head>"
    completion = shortest_completion(XML, prefix, max_nodes=200)  # too few paths for A*: the greedy search runs
    assert completion is not None and accepts(XML, prefix + completion)
    assert completion.count("<a>") <= 1 and len(completion) < 120, completion


def test_budgets_bound_the_search():
    deep = "(" * 120
    assert shortest_completion(NESTED, deep, max_bytes=10) is None  # needs 121 bytes
    assert shortest_completion(NESTED, deep) == "x" + ")" * 120


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(which=st.sampled_from(range(len(GRAMMARS))), seed=st.integers(0, 10_000), cut=st.floats(0, 1))
def test_any_prefix_of_a_sentence_is_closed_into_a_sentence(which, seed, cut):
    grammar = GRAMMARS[which]
    text = sample(grammar, random_walk(seed, stop=0.3, close=0.3), max_bytes=200)
    if text is None:
        return
    prefix = text[: int(len(text) * cut)]
    completion = shortest_completion(grammar, prefix)
    assert completion is not None, prefix
    assert accepts(grammar, prefix + completion)
    assert len(completion) <= len(text) - len(prefix)  # the sentence's own rest is one completion


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), cut=st.floats(0, 1))
def test_the_completion_is_as_short_as_brute_force_finds(seed, cut):
    text = sample(NESTED, random_walk(seed, stop=0.4, close=0.4), max_bytes=40)
    if text is None:
        return
    prefix = text[: int(len(text) * cut)]
    completion = shortest_completion(NESTED, prefix)
    assert completion is not None
    if len(completion) <= 6:  # the oracle's walk grows fourfold per byte
        assert len(completion) == _breadth_first_length(NESTED, prefix, len(completion))
