"""BenchCLAMP's ``.scfg`` files read and written as Lark (``corral.grammars.scfg``)."""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corral.errors import InputError
from corral.grammars import Grammar, accepts
from corral.grammars.scfg import Scfg, ScfgError, Symbol, bound_depth, fold_lexemes, read_scfg, scfg_to_lark

SHARED = Path(os.environ.get("CORRAL_SHARED_DATA", Path(__file__).parents[2].parent / "shared" / "data"))


def lark(text: str, side: str = "source", **kw) -> Grammar:
    return Grammar.lark(scfg_to_lark(read_scfg([("g.scfg", text)]), side, **kw))


def test_two_sides_alternatives_repeats_and_nothing():
    text = """
# a comment
start -> "a" x? , "A" x
x -> "b" | "c" , "X"
x -> #e , empty
"""
    source, plan = lark(text, "source"), lark(text, "plan")
    assert [accepts(source, t) for t in ("a", "ab", "ac", "abb", "A")] == [True, True, True, False, False]
    assert [accepts(plan, t) for t in ("AX", "A", "a")] == [True, True, False]


def test_literal_escapes_regexes_and_repeated_literals():
    g = lark('start -> "\\"" /[^"]/* "\\u000B" "ab"+ ws\nws -> " "')
    assert accepts(g, '"xy\x0bab ') and accepts(g, '"\x0babab ')
    assert not accepts(g, '"x"\x0bab ') and not accepts(g, '"\x0b ')


def test_upper_and_lower_case_names_stay_apart():
    g = lark('start -> A a\nA -> "x"\na -> "y"')
    assert accepts(g, "xy") and not accepts(g, "yx")


def test_only_rules_reachable_from_start_are_written_and_extra_adds_alternatives():
    scfg = read_scfg([("g.scfg", 'start -> table\ntable -> "t"\nunused -> undefined_name')])
    source = scfg_to_lark(scfg, extra={"table": [(Symbol("literal", "singer"),)]})
    assert "unused" not in source
    g = Grammar.lark(source)
    assert accepts(g, "t") and accepts(g, "singer") and not accepts(g, "sing")


def test_a_multi_character_literal_beside_single_letters_reads_either_way():
    # one lexeme per character: "na" + "x" must not be taken as an unfinished "name"
    g = lark('start -> "name" | letter letter letter\nletter -> "n" | "a" | "x"')
    assert accepts(g, "name") and accepts(g, "nax")


@pytest.mark.parametrize(("text", "where"), [
    ('start "x"', "g.scfg:1: a rule starts with a name and '->'"),
    ('start -> "x" ; y', "g.scfg:1:14: cannot read"),
    ('start -> ? "x"', "g.scfg:1:10: '?' follows nothing to repeat"),
    ('start -> "a" , "b" , "c"', "g.scfg:1:20: a rule has at most two sides"),
    ('start -> "\\q"', "g.scfg:1:10: the literal"),
    ('\nstart -> other\nother -> missing', "g.scfg:3: 'other' uses 'missing', which no rule defines"),
    ('begin -> "x"', "no rule for its start symbol 'start'"),
])
def test_errors_say_what_and_where(text, where):
    with pytest.raises(ScfgError) as caught:
        scfg_to_lark(read_scfg([("g.scfg", text)]))
    assert isinstance(caught.value, InputError)
    assert where in str(caught.value)


def test_size_limit():
    with pytest.raises(ScfgError, match="characters"):
        read_scfg([("big.scfg", "# " + "x" * 2_000_001)])


# ------------------------------------------------------------------ property: the language is kept exactly
LETTERS = st.text(alphabet="ab", max_size=2)


@st.composite
def finite_grammars(draw):
    """Rules n0..n3 over literals, where n_i uses only n_j with j > i (so the language is finite), each side an
    alternative list; returns the SCFG text and the rules as (literal or name) sequences."""
    rules: dict[str, list[list[tuple[str, str]]]] = {}
    for i in reversed(range(4)):
        later = [f"n{j}" for j in range(i + 1, 4)]
        items = st.one_of(LETTERS.map(lambda s: ("lit", s)), *([st.sampled_from(later).map(lambda n: ("name", n))]
                                                              if later else []))
        rules[f"n{i}"] = draw(st.lists(st.lists(items, max_size=3), min_size=1, max_size=3))
    lines = ["start -> n0"]
    for name, alternatives in rules.items():
        for alternative in alternatives:
            body = " ".join(f'"{text}"' if kind == "lit" else text for kind, text in alternative) or "#e"
            lines.append(f"{name} -> {body} , \"plan\"")
    return "\n".join(lines), rules


def language(rules, name: str) -> set[str]:
    out: set[str] = set()
    for alternative in rules[name]:
        parts = [{text} if kind == "lit" else language(rules, text) for kind, text in alternative]
        out |= {"".join(combo) for combo in itertools.product(*parts)}
    return out


@settings(max_examples=60, deadline=None)
@given(grammar=finite_grammars())
def test_the_converted_grammar_accepts_exactly_the_source_language(grammar):
    text, rules = grammar
    g = lark(text)
    expected = language(rules, "n0")
    for candidate in sorted(expected)[:200]:
        assert accepts(g, candidate), (text, candidate)
    for size in range(7):  # and nothing else, up to six letters
        for letters in itertools.product("ab", repeat=size):
            candidate = "".join(letters)
            assert accepts(g, candidate) == (candidate in expected), (text, candidate)
    assert lark(text, "plan") is not None and accepts(lark(text, "plan"), "plan")


@pytest.mark.skipif(not (SHARED / "smcalflow_benchclamp").is_dir(), reason="the shared data folder is absent")
def test_benchclamp_calflow_files_convert_and_name_what_they_leave_undefined():
    folder = SHARED / "smcalflow_benchclamp" / "calflow_grammar"
    scfg = read_scfg((p.name, p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.scfg")))
    assert len(scfg.plan["dayofweek"]) == 7
    plan = Grammar.lark(scfg_to_lark(scfg, "plan"))  # from start, the files define all they reach
    assert accepts(plan, " (Yield :output (Execute :intension (ChooseCreateEvent :index #(Number 2) :intension "
                         "(refer (ActionIntensionConstraint)))))")
    source = Grammar.lark(scfg_to_lark(scfg, "source"))
    assert accepts(source, " Yes, do the 2 one")
    # the rest leans on rules BenchCLAMP generates from the function types
    with pytest.raises(ScfgError, match=r"fluenter\.scfg:30: 'updatecommitevent' uses 'eventid'"):
        scfg_to_lark(scfg, "plan", start="updatecommitevent")


def _bounded_grammar(text: str, name: str, depth: int) -> Grammar:
    rules = bound_depth(read_scfg([("g.scfg", text)]).source, name, depth)
    return Grammar.lark(scfg_to_lark(Scfg(rules, rules, {})))


def test_bound_depth_cuts_nesting_and_keeps_the_rest():
    text = 'start -> "[" inner "]"\ninner -> "(" inner ")" | "x" | inner "+" inner'
    g = _bounded_grammar(text, "inner", 2)
    assert all(accepts(g, t) for t in ("[x]", "[(x)]", "[((x))]", "[(x)+x]", "[x+x]"))  # each inner counts
    assert not accepts(g, "[(((x)))]") and not accepts(g, "[((x+(x)))]")


@settings(max_examples=30, deadline=None)
@given(depth=st.integers(0, 3), nesting=st.integers(0, 5))
def test_bound_depth_accepts_exactly_up_to_the_depth(depth, nesting):
    g = _bounded_grammar('start -> "(" start ")" | "x"', "start", depth)
    assert accepts(g, "(" * nesting + "x" + ")" * nesting) is (nesting <= depth)


def test_fold_lexemes_keeps_the_language_of_a_word():
    text = 'start -> KW " " KW\nKW -> S E L | "x"+\nS -> "s" | "S"\nE -> "e" | "E"\nL -> "l" | "L"'
    scfg = read_scfg([("g.scfg", text)])
    folded = fold_lexemes(scfg.source, ["KW"])
    assert [s.kind for s in folded["KW"][0]] == ["regex"]
    g = Grammar.lark(scfg_to_lark(Scfg(folded, folded, {})))
    assert all(accepts(g, t) for t in ("sel SEL", "SeL xxx", "x x"))
    assert not accepts(g, "se sel") and not accepts(g, "sell x")
