"""The exact GBNF converter against the engine it stands in for: llguidance decides acceptance, and the DFA (which the
GBNF writes out state by state) must agree with it on drawn texts and on texts sampled from the grammar; the GBNF
must be accepted by llama.cpp's own grammar parser."""

from __future__ import annotations

import re
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from corral.grammars import (
    MULTI_LEXEME,
    Grammar,
    NotConvertible,
    accepts,
    random_walk,
    regular_dfa,
    sample,
    to_gbnf,
)

GRAMMARS = {
    "class-repeat": Grammar.regex(r"[a-c]{2,3}x?"),
    "digits": Grammar.regex(r"\d+(\.\d{1,2})?"),
    "unicode-space-word": Grammar.regex(r"\s?\w{1,3}"),
    "dot": Grammar.regex(r"a.{0,3}b"),
    "rust-escape": Grammar.regex(r"\x{85}é[^\n]"),
    "choice": Grammar.lark('start: "yes" | "no" | "maybe"'),
    "optional-lexeme": Grammar.lark('start: T?\nT: "ab" /[0-9]+/'),
    "collie-word": Grammar.lark('start: TEXT\nTEXT: (/[A-Za-z][a-z]*/ & /.{1,20}/ & /.{11,}/)\n'),
    "collie-letters": Grammar.lark(
        'start: TEXT\nTEXT: (/[A-Za-z][a-z]*/ & /.{1,20}/ & (/.{12,12}/ & (/.{3}/ /[oO]/ /.*/) & (/.{7}/ /[sS]/ /.*/)'
        ' & (/.{10}/ /[rR]/ /.*/)))\n'),
    "complement": Grammar.lark('start: T\nT: ~"ab" & /[ab]{0,3}/'),
    "not-contains": Grammar.lark('start: T\nT: /[a-c ]{0,6}/ & ~(/.*/ "ab" /.*/)'),
    "literal-range": Grammar.lark('start: T\nT: ("a".."e")+ "!"'),
    "nested-terminals": Grammar.lark('start: W\nW: A ("-" A){0,2}\nA: /[xy]+/ | "z"'),
    "escapes": Grammar.lark('start: T\nT: "\\"q\\"" | "\\x41\\u00e9" | /[\\]\\-^]+/'),
}

ALPHABET = "abcxyzeo sr-!.0123456789é\"qA]^\n\x85\u2003٣ABCOSR"


@pytest.mark.parametrize("name", GRAMMARS)
def test_dfa_agrees_with_llguidance_on_sampled_texts(name: str) -> None:
    grammar = GRAMMARS[name]
    dfa = regular_dfa(grammar)
    drawn = [sample(grammar, random_walk(seed, stop=0.3), max_bytes=60) for seed in range(40)]
    texts = [t for t in drawn if t is not None]
    assert texts, "the walk found no text"
    for text in texts:
        assert dfa.accepts(text), (name, text)


@pytest.mark.parametrize("name", GRAMMARS)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(alphabet=ALPHABET, max_size=14))
def test_dfa_agrees_with_llguidance_on_drawn_texts(name: str, text: str) -> None:
    grammar = GRAMMARS[name]
    assert _dfa(name).accepts(text) == accepts(grammar, text), (name, text)


_DFAS: dict[str, object] = {}


def _dfa(name: str):  # one DFA per grammar across hypothesis examples
    if name not in _DFAS:
        _DFAS[name] = regular_dfa(GRAMMARS[name])
    return _DFAS[name]


@pytest.mark.parametrize("name", GRAMMARS)
def test_llama_cpp_parses_every_gbnf(name: str) -> None:
    llama_cpp = pytest.importorskip("llama_cpp")
    gbnf = to_gbnf(GRAMMARS[name])
    assert gbnf.text.startswith("root ::= ")
    assert gbnf.states == len(re.findall(r"^\S+ ::=", gbnf.text, re.MULTILINE))
    llama_cpp.LlamaGrammar.from_string(gbnf.text, verbose=False)


def test_the_unicode_classes_are_the_engines() -> None:
    """``\\d`` and ``\\s`` are Rust's Unicode classes: Arabic-Indic digits count, U+001C is not a space (Python's
    ``\\s`` says it is)."""
    dfa = regular_dfa(Grammar.regex(r"\d\s"))
    assert dfa.accepts("٣\u2003") and dfa.accepts("7 ")
    assert not dfa.accepts("7\x1c")
    assert accepts(Grammar.regex(r"\d\s"), "٣\u2003") and not accepts(Grammar.regex(r"\d\s"), "7\x1c")


def test_a_counted_position_is_fast() -> None:
    """"The tenth character is an r": exponential for a minimiser by double reversal, a millisecond here."""
    started = time.monotonic()
    gbnf = to_gbnf(Grammar.regex(r".{10}[rR].*"))
    assert time.monotonic() - started < 2
    assert gbnf.states == 12


@pytest.mark.parametrize(("grammar", "kind"), [
    (Grammar.lark('start: A B\nA: "a"\nB: "b"'), MULTI_LEXEME),
    (Grammar.lark('start: "a" x\nx: "b"'), MULTI_LEXEME),
    (Grammar.lark('start: A*\nA: "a"'), MULTI_LEXEME),
    (Grammar.lark('%ignore " "\nstart: A\nA: "a"'), "lark grammar with directives"),
    (Grammar.regex(r"^a"), "regex feature without an exact GBNF"),
    (Grammar("regex", r"a\b"), "regex feature without an exact GBNF"),
    (Grammar.regex(r"(?i)a"), "regex with flags"),
    (Grammar.regex(r"[[:alpha:]]"), "regex feature without an exact GBNF"),
    (Grammar.regex(r"\p{L}"), "regex feature without an exact GBNF"),
    (Grammar.lark('start: T\nT: /a/i'), "regex with flags"),
    (Grammar.lark('start: "yes"i'), "unsupported Lark syntax"),
    (Grammar.json_schema({"type": "string"}), "a json_schema grammar is not one regular language"),
])
def test_what_has_no_exact_gbnf_is_refused_in_one_line(grammar: Grammar, kind: str) -> None:
    with pytest.raises(NotConvertible) as caught:
        to_gbnf(grammar)
    assert caught.value.kind == kind
    assert "\n" not in str(caught.value)


def test_budgets_refuse_in_one_line() -> None:
    with pytest.raises(NotConvertible, match="over the DFA size budget: more than 50 states"):
        to_gbnf(Grammar.regex(r"[a-z]{100}"), max_states=50)
    with pytest.raises(NotConvertible, match="over the GBNF size budget: more than 100 characters"):
        to_gbnf(Grammar.regex(r"[a-z]{30}"), max_chars=100)
    with pytest.raises(NotConvertible, match="over the GBNF size budget: a 15-character grammar"):
        to_gbnf(Grammar.regex(r"[a-z]{3}[0-9]+x"), max_source=10)
    # a shape that is not one lexeme is named as such, even when the source is also over its budget
    with pytest.raises(NotConvertible, match=MULTI_LEXEME):
        to_gbnf(Grammar.lark('start: A B\nA: "a"\nB: "b"'), max_source=5)


def test_the_time_budget_stops_a_hard_conversion() -> None:
    """"The 41st character from the end is an r" has a DFA of 2^40 states: the construction is stopped in time."""
    started = time.monotonic()
    with pytest.raises(NotConvertible, match=r"over the conversion time budget: more than 0\.5 s"):
        to_gbnf(Grammar.regex(r".*[rR].{40}"), max_states=10**6, seconds=0.5)
    assert time.monotonic() - started < 5


def test_collie_word_instances_convert_and_passages_are_refused() -> None:
    from corral.tasks import get_task

    task = get_task("collie")
    by_structure: dict[str, object] = {}
    for instance in task.instances():
        prefix = instance.id.rsplit("_", 1)[0]
        if prefix in ("english_c01", "english_c02", "english_c03", "wiki_c14", "wiki_c04"):
            by_structure.setdefault(prefix, instance)
    for prefix, instance in by_structure.items():
        grammar = task.grammar(instance)
        if prefix.startswith("english"):
            gbnf = to_gbnf(grammar)
            text = sample(grammar, random_walk(0, stop=0.5), max_bytes=40)
            assert text is not None and regular_dfa(grammar).accepts(text)
            assert gbnf.states < 40
        else:
            with pytest.raises(NotConvertible) as caught:
                to_gbnf(grammar)
            assert caught.value.kind == (MULTI_LEXEME if prefix == "wiki_c14" else "over the GBNF size budget")
