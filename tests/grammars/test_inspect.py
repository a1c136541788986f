"""Questions about a grammar without a model (``corral.grammars._inspect``) and the compile budget
(``corral.grammars._budget``): where a text leaves a grammar and what was allowed there, on a regex, a Lark grammar, a
JSON Schema, a constraint and suite instances; seeded draws; soundness; the engine's figures; and compiles held to a
time and a size budget, in the main thread (the interval timer) and in another (the ticking witness search)."""

from __future__ import annotations

import contextlib
import math
import re
import threading
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from corral.constraints import check, parse
from corral.grammars import (
    EOS,
    MAX_GRAMMAR_CHARS,
    CompileBudget,
    Grammar,
    NotExpressible,
    accepts,
    allowed_bytes,
    byte_matcher,
    compile_constraint,
    compile_schema,
    describe_bytes,
    draw,
    first_rejection,
    grammar_stats,
    soundness,
    within_budget,
)
from corral.grammars._budget import tick

LIST = Grammar.regex(r"[a-z]{3,5}(,[0-9]+)*")
NESTED = Grammar.lark('start: "(" start ")" | "x"\n')
OBJECT = compile_schema({"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"],
                         "additionalProperties": False}, "json")
TWO_WORDS = parse("sentence: count(text, word) == 2")


# ------------------------------------------------------------------------------------------ where a text leaves
@pytest.mark.parametrize(("grammar", "text", "offset", "byte", "allowed", "end"), [
    (LIST, "abcdef", 5, "f", ",", True),  # five letters, then only a comma or the end
    (LIST, "ab1", 2, "1", "abcdefghijklmnopqrstuvwxyz", False),
    (LIST, "ab", 2, None, "abcdefghijklmnopqrstuvwxyz", False),  # the text ends too early
    (LIST, "abc,", 4, None, "0123456789", False),
    (NESTED, "(y", 1, "y", "(x", False),
    (NESTED, "((x)", 4, None, ")", False),
    (NESTED, "(x))", 3, ")", "", True),
    (OBJECT, '{"a":x}', 5, "x", "-0123456789", False),
    (OBJECT, '{"b":1}', 2, "b", "a", False),
    (OBJECT, '{"a":12', 7, None, "0123456789}", False),
])
def test_where_a_text_leaves_the_grammar_and_what_was_allowed(grammar, text, offset, byte, allowed, end):
    found = first_rejection(grammar, text)
    assert found is not None
    assert found.offset == offset and found.line == 1 and found.column == offset + 1
    assert found.byte == (None if byte is None else ord(byte)) and found.ended == (byte is None)
    assert found.allowed == tuple(sorted(allowed.encode())) and found.end_allowed is end
    assert "\n" not in found.reason() and f"byte {offset}" in found.reason()


@pytest.mark.parametrize(("grammar", "text"), [(LIST, "abc"), (LIST, "abc,12,0"), (NESTED, "((x))"),
                                               (OBJECT, '{"a":-3}')])
def test_an_accepted_text_has_no_rejection(grammar, text):
    assert first_rejection(grammar, text) is None and accepts(grammar, text)


def test_a_constraint_grammar_refuses_the_third_word_at_its_space():
    grammar = compile_constraint(TWO_WORDS)
    found = first_rejection(grammar, "Ab cd ef.")
    assert found is not None and (found.offset, found.byte) == (5, ord(" "))
    assert {ord("."), ord("a")} <= set(found.allowed) and ord(" ") not in found.allowed
    assert first_rejection(grammar, "Ab cd.") is None
    ended = first_rejection(grammar, "Ab")
    assert ended is not None and ended.ended and ord(" ") in ended.allowed


def test_lines_and_columns_count_characters():
    grammar = Grammar.regex("(é+\n)*é+")
    found = first_rejection(grammar, "éé\néx")
    assert found is not None
    assert (found.offset, found.line, found.column) == (7, 2, 2)  # é is two bytes; x is the 2nd character of line 2
    cut = first_rejection(Grammar.regex("é+"), "éè")  # è shares é's first byte: the refused byte is its second
    assert cut is not None and (cut.offset, cut.column) == (3, 2) and cut.byte == 0xA8


def test_what_was_allowed_reads_as_ranges():
    assert describe_bytes(b"abcdefz,", True) == '",", "a"-"f", "z" or the end of the text'
    assert describe_bytes([ord("\n"), 0xC3], False) == '"\\n" or \\xc3'
    assert describe_bytes([], False).startswith("nothing")
    assert describe_bytes(range(0, 256, 2)).endswith("116 more ranges")
    found = first_rejection(LIST, "abcdef")
    assert found is not None and found.to_json()["allowed"] == [[44, 44]]
    assert found.to_json()["expected"] == '"," or the end of the text'


def test_suite_instances_reject_where_their_grammars_stop():
    from corral.tasks import get_task

    task = get_task("formatbench")
    mcq = next(inst for inst in task.instances() if inst.id == "mcq-test-00000")  # a tag from a fixed list
    grammar = task.grammar(mcq)
    found = first_rejection(grammar, "(JJ)")
    assert found is not None and (found.offset, found.byte) == (0, ord("("))
    assert set(b"ACJNPV$") <= set(found.allowed) and not found.end_allowed
    early = first_rejection(grammar, "E")
    assert early is not None and early.ended and early.allowed == (ord("X"),)  # EX is the only tag after E
    assert first_rejection(grammar, "JJ") is None


def test_a_collie_instance_rejects_a_byte_after_its_own_text():
    from corral.tasks import get_task

    task = get_task("collie")
    instance = next(inst for inst in task.instances() if inst.groups.get("structure") == "word01")
    grammar = task.grammar(instance)
    text = draw(grammar, 1, seed=0)[0]
    assert first_rejection(grammar, text) is None
    found = first_rejection(grammar, text + "\x00")
    assert found is not None and found.offset == len(text.encode()) and found.byte == 0 and found.end_allowed


# a small regex language: literals, classes, alternation and repetition, read alike by Rust's regex and Python's re
_ATOMS = st.sampled_from(["a", "b", "c", "[ab]", "[a-c]", "[^a]", "(a|bc)", "(ab|b)", "é"])


@st.composite
def _regexes(draw_: st.DrawFn) -> str:
    parts = []
    for atom in draw_(st.lists(_ATOMS, min_size=1, max_size=4)):
        parts.append(atom + draw_(st.sampled_from(["", "*", "+", "?", "{1,2}", "{2}"])))
    body = "".join(parts)
    return body if not draw_(st.booleans()) else f"{body}|{draw_(_ATOMS)}"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pattern=_regexes(), text=st.text(alphabet="abcé d", max_size=8))
def test_where_a_text_leaves_is_consistent_with_the_engine_and_with_re(pattern, text):
    """The prefix before the offset is viable (the engine takes all of it), the byte at the offset is neither
    allowed nor taken, every allowed byte is taken, and the whole text is accepted exactly when Python's ``re``
    matches it whole."""
    grammar = Grammar.regex(pattern)
    found = first_rejection(grammar, text)
    assert (found is None) == (re.fullmatch(pattern, text) is not None), (pattern, text, found)
    if found is None:
        return
    data = text.encode()
    matcher = byte_matcher(grammar)
    assert matcher.try_consume_tokens(list(data[:found.offset])) == found.offset and not matcher.is_error()
    allowed = allowed_bytes(matcher)
    assert tuple(b for b in allowed if b != EOS) == found.allowed
    assert (EOS in allowed and matcher.is_accepting()) == found.end_allowed
    if found.byte is not None:
        assert found.byte == data[found.offset] and found.byte not in allowed
        assert matcher.try_consume_tokens([found.byte]) == 0
    else:
        assert found.offset == len(data) and not matcher.is_accepting()
    for b in found.allowed[:5]:
        copy = matcher.deep_copy()
        assert copy.try_consume_tokens([b]) == 1


# ------------------------------------------------------------------------------------------ drawing and soundness
def test_draws_are_seeded_and_every_draw_is_accepted():
    first = draw(LIST, 6, seed=3)
    assert first == draw(LIST, 6, seed=3) and len(first) == 6
    assert draw(LIST, 3, seed=3) == first[:3]  # the first k of n are the draw of k
    assert first != draw(LIST, 6, seed=4)
    assert all(first_rejection(LIST, text) is None for text in first)
    assert all(accepts(OBJECT, text) for text in draw(OBJECT, 5, seed=1))


def test_a_walk_past_its_length_gives_no_text():
    assert draw(Grammar.regex("a{50}"), 3, seed=0, max_bytes=10) == []


def test_every_text_drawn_from_a_compiled_constraint_passes_its_checker():
    found = soundness(compile_constraint(TWO_WORDS), lambda text: check(TWO_WORDS, text), 25, seed=0)
    assert found.sound and found.passed == len(found.texts) == 25
    assert found.to_json()["failures"] == []


def test_soundness_reports_the_texts_a_checker_fails():
    three_letters = parse("word: count(text, char) == 3")
    found = soundness(LIST, lambda text: check(three_letters, text), 12, seed=2)
    assert not found.sound and found.failures
    assert all(len(text) != 3 and reason for text, reason in found.failures)
    assert found.passed == sum(len(text) == 3 for text in found.texts)


# ------------------------------------------------------------------------------------------ the engine's figures
def test_stats_measure_the_compile_the_matcher_and_the_lexer_fuel():
    stats = grammar_stats(lambda: compile_constraint(TWO_WORDS))
    assert stats.format == "lark" and stats.rules is not None and stats.rules >= 1
    assert stats.terminals is not None and stats.terminals >= 1
    assert stats.compile_seconds > 0 and stats.matcher_seconds > 0
    assert stats.lexer_fuel is not None and 0 < stats.lexer_fuel < stats.lexer_fuel_limit
    assert stats.step_fuel_max is not None and stats.step_fuel_max < stats.step_fuel_limit
    assert stats.drawn_bytes and stats.engine_error is None
    plain = grammar_stats(lambda: LIST)
    assert plain.rules is None and plain.terminals is None and plain.source_chars == len(LIST.source)
    assert set(plain.to_json()) >= {"compile_seconds", "matcher_seconds", "lexer_fuel", "step_fuel_max"}


# ------------------------------------------------------------------------------------------ the compile budget
def _spin() -> Grammar:
    while True:
        pass


def test_a_compile_past_its_time_is_one_line_naming_the_budget():
    started = time.monotonic()
    with pytest.raises(NotExpressible) as caught:
        within_budget(_spin, CompileBudget(seconds=0.2))
    assert time.monotonic() - started < 2
    message = str(caught.value)
    assert "\n" not in message and "budget of 0.2 s" in message and "compile_seconds" in message


def test_a_compile_that_catches_the_stop_is_refused_all_the_same():
    def stubborn() -> Grammar:
        deadline = time.monotonic() + 0.5
        while time.monotonic() < deadline:
            with contextlib.suppress(Exception):  # a compile that swallows every error, the budget's stop included
                time.sleep(0.01)
        return LIST

    with pytest.raises(NotExpressible, match="compile_seconds"):
        within_budget(stubborn, CompileBudget(seconds=0.1))


def test_a_real_compile_past_a_tiny_budget_is_refused():
    with pytest.raises(NotExpressible, match=r"budget of 1e-09 s \(compile_seconds\)"):
        within_budget(lambda: compile_constraint(TWO_WORDS), CompileBudget(seconds=1e-9))
    assert within_budget(lambda: compile_constraint(TWO_WORDS)).format == "lark"


def test_off_the_main_thread_a_ticking_loop_stops_and_a_late_compile_is_refused():
    results: dict[str, BaseException | None] = {}

    def ticking() -> Grammar:
        while True:
            tick()

    def late() -> Grammar:
        time.sleep(0.3)
        return LIST

    def run(name, compile) -> None:
        try:
            within_budget(compile, CompileBudget(seconds=0.1))
            results[name] = None
        except BaseException as exc:
            results[name] = exc

    threads = [threading.Thread(target=run, args=args) for args in (("ticking", ticking), ("late", late))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert all(isinstance(results[name], NotExpressible) for name in ("ticking", "late")), results
    assert all("compile_seconds" in str(results[name]) for name in results)


def test_off_the_main_thread_a_real_witness_search_stops_at_the_budget():
    """Sentences of 560 words or more: the compiler's witness search runs for seconds before it refuses (about 7 s
    here alone, 24 s for the COLLIE-v1 instance it comes from); in a thread, where no timer runs, its ticks stop it
    at the budget."""
    long_sentences = parse("paragraph: count(text, sentence, paragraph) >= 3 and count(text, word, sentence) >= 560")
    found: list[BaseException | float] = []

    def run() -> None:
        started = time.monotonic()
        try:
            within_budget(lambda: compile_constraint(long_sentences), CompileBudget(seconds=1.0))
        except NotExpressible as exc:
            found.append(exc)
        found.append(time.monotonic() - started)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(60)
    assert "budget of 1 s (compile_seconds)" in str(found[0]) and found[1] < 4, found


def test_a_grammar_past_its_size_is_refused_and_its_own_errors_pass_through():
    with pytest.raises(NotExpressible, match=r"past its budget of 10 \(max_chars\)"):
        within_budget(lambda: Grammar.regex("a" * 50), CompileBudget(max_chars=10))
    with pytest.raises(NotExpressible, match="sentence count over a whole passage"):  # its own reason, in time
        within_budget(lambda: compile_constraint(parse("passage: count(text, sentence) == 7 and "
                                                       "count(text, word, sentence) <= 9")))


@pytest.mark.parametrize("fields", [{"seconds": 0}, {"seconds": -1}, {"seconds": math.nan}, {"seconds": 4000},
                                    {"max_chars": 0}, {"max_chars": MAX_GRAMMAR_CHARS + 1}])
def test_a_budget_out_of_bounds_is_refused(fields):
    with pytest.raises(ValueError, match="a compile's"):
        CompileBudget(**fields)
