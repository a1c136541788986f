"""Copy grammars (``corral.grammars.copy_tree``, ``copy_sequence``): what they accept is exactly the well-formed
outputs over the input's tokens in order, checked against a reader written here and against the span CFG (the
obvious O(n³) encoding the parametric one replaces)."""

from __future__ import annotations

import itertools
import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from corral.grammars import MAX_COPY_TOKENS as MAX_TOKENS
from corral.grammars import Grammar, GrammarError, accepts, copy_sequence, copy_tree

from .drawing import drawn

LABELS = ("S", "NP", "VP")
TAGS = ("DT", "NN", ".")
TAG_RULE = " | ".join(json.dumps(tag) for tag in TAGS)
WORDS = st.lists(st.sampled_from(["the", "dog", "a", "barks", ".", "é", "x1", "NP", "S"]), min_size=1, max_size=6)


def tree(tokens, labels=LABELS):
    return copy_tree(tokens, labels, rules={"TAG": TAG_RULE})


def read(text: str) -> tuple[str, ...] | None:
    """The leaves of one tree in this grammar's form (labels from LABELS, preterminals ``(TAG word)``), or None
    when the text is not exactly one such tree. Words here never hold a space or a bracket."""
    pieces = re.findall(r"\(|\)| |[^() ]+", text)
    leaves: list[str] = []
    position = 0

    def node() -> bool:
        nonlocal position
        if pieces[position:position + 1] != ["("] or position + 2 >= len(pieces):
            return False
        label, position = pieces[position + 1], position + 2
        if label in TAGS and pieces[position:position + 1] == [" "] and position + 2 < len(pieces) and \
                pieces[position + 2] == ")" and pieces[position + 1] not in "( )":
            leaves.append(pieces[position + 1])
            position += 3
            return True
        if label not in LABELS:
            return False
        children = 0
        while pieces[position:position + 1] == [" "]:
            position += 1
            if not node():
                return False
            children += 1
        if pieces[position:position + 1] != [")"] or not children:
            return False
        position += 1
        return True

    return tuple(leaves) if pieces and node() and position == len(pieces) else None


@st.composite
def trees_over(draw, tokens: list[str]) -> str:
    """A random well-formed tree over ``tokens``: every bracket has a child, labels and tags drawn."""
    def build(lo: int, hi: int, root: bool = False) -> str:
        label = draw(st.sampled_from(LABELS))
        if hi - lo == 1:
            leaf = f"({draw(st.sampled_from(TAGS))} {tokens[lo]})"
            return f"({label} {leaf})" if root or draw(st.booleans()) else leaf
        cuts = sorted(draw(st.sets(st.integers(lo + 1, hi - 1), min_size=1, max_size=hi - lo - 1)))
        bounds = [lo, *cuts, hi]
        return f"({label} " + " ".join(build(a, b) for a, b in itertools.pairwise(bounds)) + ")"
    return build(0, len(tokens), root=True)


def span_cfg(tokens: list[str]) -> Grammar:
    n, lines = len(tokens), [f"start: t_0_{len(tokens)}"]
    for i in range(n):
        for j in range(i + 1, n + 1):
            alternatives = [f'"(" LABEL " " f_{i}_{j} ")"'] + (
                [f'"(" TAG " " {json.dumps(tokens[i])} ")"'] if j == i + 1 else [])
            lines.append(f"t_{i}_{j}: " + " | ".join(alternatives))
            lines.append(f"f_{i}_{j}: " + " | ".join([f"t_{i}_{j}"] + [f't_{i}_{k} " " f_{k}_{j}'
                                                                          for k in range(i + 1, j)]))
    lines += ["LABEL: " + " | ".join(json.dumps(label) for label in LABELS), f"TAG: {TAG_RULE}"]
    return Grammar.lark("\n".join(lines))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tokens=WORDS, seed=st.integers(0, 10**6))
def test_every_text_a_copy_tree_accepts_is_a_tree_over_exactly_the_tokens_in_order(tokens, seed):
    spans = span_cfg(tokens)
    texts = drawn(tree(tokens), seed, stop=0.2, max_bytes=4000)
    for text in texts:
        assert read(text) == tuple(tokens), text
        assert accepts(spans, text), text  # the O(n³) encoding agrees
    assert texts


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), tokens=WORDS)
def test_every_well_formed_tree_over_the_tokens_is_accepted(data, tokens):
    text = data.draw(trees_over(tokens))
    assert read(text) == tuple(tokens)
    assert accepts(tree(tokens), text), text


@settings(max_examples=25, deadline=None)
@given(tokens=WORDS.filter(lambda t: len(t) >= 2), data=st.data())
def test_a_tree_over_other_tokens_is_refused(tokens, data):
    text = data.draw(trees_over(tokens))
    grammar = tree(tokens)
    swapped = tokens[::-1] if tokens[::-1] != tokens else None
    if swapped is not None:
        assert not accepts(tree(swapped), text)
    assert not accepts(tree(tokens[:-1]), text)  # a token too many
    assert not accepts(grammar, text + ")")
    assert not accepts(grammar, text[:-1])


def test_what_a_copy_tree_refuses():
    grammar = tree(["the", "dog"])
    assert accepts(grammar, "(S (NP (DT the) (NN dog)))")
    for text in ("(S (NP) (DT the) (NN dog))",  # an empty bracket
                 "(S (DT the))",  # a token missing
                 "(S (DT dog) (NN the))",  # out of order
                 "(X (DT the) (NN dog))",  # an unknown label
                 "(S (DT the) (NN dog)) (S (DT the))",  # two trees
                 "(S  (DT the) (NN dog))",  # two spaces
                 "(S (DT the) (NN dog) (NN dog))"):  # a token twice
        assert not accepts(grammar, text), text


def test_awkward_tokens_are_copied_as_they_are():
    tokens = ['"', "\\", "#", "(", ")", "é", "日本", "it's", "{token}", "%if", "a b"]
    grammar = tree(tokens)
    assert accepts(grammar, "(S " + " ".join(f"(DT {t})" for t in tokens) + ")")
    assert not accepts(grammar, "(S " + " ".join(f"(DT {t})" for t in tokens[:-1]) + ")")


def test_a_300_word_sentence_builds_and_is_accepted():
    tokens = [f"w{k}" for k in range(300)]
    text = "(S " + " ".join(f"(NP (NN {t}))" for t in tokens) + ")"
    assert accepts(tree(tokens), text)


def test_bad_input_is_a_clear_error():
    with pytest.raises(GrammarError, match="no tokens"):
        tree([])
    with pytest.raises(GrammarError, match="token 2"):
        tree(["a", ""])
    with pytest.raises(GrammarError, match="at most"):
        tree(["a"] * (MAX_TOKENS + 1))
    with pytest.raises(GrammarError, match="TAG"):
        copy_tree(["a"], LABELS)
    with pytest.raises(GrammarError, match="label"):
        copy_tree(["a"], [], rules={"TAG": TAG_RULE})


def test_copy_sequence_writes_one_item_per_token_in_order():
    triples = copy_sequence(["Read", "some", ","], '"(" {token} ", " REL ", " HEAD ")"',
                            rules={"REL": '"root" | "obj" | "punct"', "HEAD": 'TOKEN | "root"'})
    assert accepts(triples, "(Read, root, root) (some, obj, Read) (,, punct, some)")
    for text in ("(Read, root, root) (some, obj, Read)", "(some, obj, Read) (Read, root, root) (,, punct, some)",
                 "(Read, root, root) (some, obj, links) (,, punct, some)",
                 "(Read, nsubj, root) (some, obj, Read) (,, punct, some)"):
        assert not accepts(triples, text), text
    indexed = copy_sequence(["x", "y"], '"(" {index} "-" {token} ")"', separator=",", prefix="[", suffix="]")
    assert accepts(indexed, "[(1-x),(2-y)]")
    assert not accepts(indexed, "[(2-x),(1-y)]")


def test_a_task_can_say_why_its_target_has_no_grammar_in_one_string():
    from corral.grammars import NotExpressible

    error = NotExpressible("no copy grammar for this sentence: nothing to copy")
    assert error.parts == [("the target", "no copy grammar for this sentence: nothing to copy")]
    assert str(error) == "not expressible as a grammar: no copy grammar for this sentence: nothing to copy"


def test_max_depth_bounds_the_nesting():
    shallow = copy_tree(["a"], LABELS, rules={"TAG": TAG_RULE}, max_depth=2)
    assert accepts(shallow, "(S (NP (DT a)))")
    assert not accepts(shallow, "(S (NP (VP (DT a))))")
    with pytest.raises(GrammarError, match="max_depth"):
        copy_tree(["a"], LABELS, rules={"TAG": TAG_RULE}, max_depth=0)
