"""Grammars of the simple FormatBench tasks (mcq, eqa, ftime, acrow, mtt).

Soundness: texts sampled from each instance's grammar pass the strict checker (except the rules the grammar
leaves to it). Recall: the grammar accepts the shipped gold answers. Exactness where it can be checked outright:
the FTime stamp against the checker's own stamp check, EQA spans against the checker on random passages.
Sampling runs with short free-text bounds (``_short_free_text``): the walk would otherwise fill every line
to its bound, and the structure a text must keep does not depend on the bound.
"""

from __future__ import annotations

import re
import statistics
import time
from collections.abc import Iterator
from contextlib import contextmanager
from unittest.mock import patch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corral.grammars import NotExpressible, accepts
from corral.suites.formatbench import _grammars_simple as simple  # the grammars' pieces, against the checkers'
from corral.suites.formatbench import check_format, format_grammar, get_checker, get_format_task, load_instances
from corral.suites.formatbench._ftime import _stamp as checker_stamp  # the checker's time stamp test, vs the regex

from .soundness import assert_sound

TASKS = ("mcq", "eqa", "ftime", "acrow", "mtt")
PER_INSTANCE = 20


@contextmanager
def _short_free_text() -> Iterator[None]:
    with patch.object(simple, "LINE_CHARS", 12), patch.object(simple, "MTT_CHARS", 12):
        yield


def _spread(task: str, n: int = 20) -> list[dict]:
    """``n`` test instances spread over the test split (FTime: as many of each tag)."""
    rows = list(load_instances(task, "test"))
    if task == "ftime":
        return [row for tag in (1, 2, 3) for row in [r for r in rows if r["tag"] == tag][: n // 3 + 1]]
    return rows[:: max(1, len(rows) // n)][:n]


# ------------------------------------------------------------------------------------------------ soundness
@pytest.mark.parametrize("task", TASKS)
def test_sampled_texts_pass_the_strict_checker(task):
    rows = _spread(task)
    with _short_free_text():
        checked = assert_sound(task, rows, per_instance=PER_INSTANCE)
    assert checked > 0.8 * len(rows) * PER_INSTANCE


@pytest.mark.parametrize("task", ["acrow", "mtt"])
def test_sampled_texts_pass_at_full_length(task):
    rows = _spread(task, 2)
    assert assert_sound(task, rows, per_instance=4) >= 0.8 * len(rows) * 4


def test_open_digits_are_sound():
    with patch.object(simple, "OPEN_DIGITS", True):
        rows = _spread("ftime", 9)
        checked = assert_sound("ftime", rows, per_instance=PER_INSTANCE)
        assert checked > 0.8 * len(rows) * PER_INSTANCE
        assert accepts(format_grammar("ftime", {"tag": 1}).grammar, "20?4??29T1?0000")
    assert not accepts(format_grammar("ftime", {"tag": 1}).grammar, "20?40229T100000")


@pytest.mark.parametrize("task", TASKS)
def test_left_to_checker_is_declared_and_known(task):
    built = format_grammar(task, _spread(task, 1)[0])
    assert built.left_to_checker == get_format_task(task).left_to_checker
    assert set(built.left_to_checker) <= set(get_checker(task).rules)
    assert built.exact == (task != "mtt")


# ------------------------------------------------------------------------------------- recall and build time
@pytest.mark.parametrize(("task", "floor"), [("mcq", 1.0), ("eqa", 1.0), ("ftime", 1.0), ("acrow", 1.0),
                                             ("mtt", 0.8)])
def test_gold_answers_are_accepted(task, floor):
    rows = [row for row in load_instances(task, "test") if check_format(task, row, row["gold"]).passed]
    times, missed = [], []
    for row in rows:
        start = time.perf_counter()
        built = format_grammar(task, row)
        times.append(time.perf_counter() - start)
        if not accepts(built.grammar, row["gold"]):
            missed.append(row["gold"])
    recall = 1 - len(missed) / len(rows)
    times.sort()
    print(f"{task}: gold recall {len(rows) - len(missed)}/{len(rows)} ({recall:.1%}); build "
          f"p50 {1000 * statistics.median(times):.1f} ms, p99 {1000 * times[int(0.99 * (len(times) - 1))]:.1f} ms")
    assert len(rows) > 100
    assert recall >= floor, missed[:5]


# --------------------------------------------------------------------------------------------------- ftime
def test_stamp_regex_is_the_checker_stamp_check():
    """Every digit stamp over all month and day fields, some years, and 29 February of every year: the
    grammar's stamp takes exactly what the checker passes."""
    stamp = re.compile(simple._stamp(False))
    years = ["0000", "1900", "2000", "2023", "2024", "2100"]
    texts = [f"{year}{month:02d}{day:02d}T235959" for year in years for month in range(100) for day in range(100)]
    texts += [f"{year:04d}0229T120000" for year in range(10000)]
    texts += [f"20240115T{h:02d}{m:02d}{s:02d}" for h in range(100) for m in (0, 59, 60, 99) for s in (0, 59, 60)]
    wrong = [t for t in texts if bool(stamp.fullmatch(t)) != (not checker_stamp(t, 0, "time"))]
    assert not wrong, wrong[:5]


@settings(max_examples=60)
@given(st.text(alphabet="0123456789?", min_size=8, max_size=8), st.text(alphabet="0123456789?", min_size=6,
                                                                          max_size=6), st.booleans())
def test_open_digit_stamps_match_the_checker(date, clock, open_digits):
    text = f"{date}T{clock}"
    passes = not checker_stamp(text, 0, "time")
    matched = bool(re.fullmatch(simple._stamp(open_digits), text))
    if open_digits or "?" not in text:
        assert matched == passes, text
    else:
        assert not matched


_REPEATING = (r"\AR-?[0-9]{1,5}/[0-9]{4}(0[1-9]|1[0-2])(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3])[0-5][0-9]{3}"
              r"/P[0-9]{1,5}Y[0-9]M[0-9]{1,3}DT[0-9]H[0-9]M[0-9]S\Z")


@settings(max_examples=30)
@given(st.from_regex(_REPEATING))
def test_repeating_times(text):
    """Accepted texts pass; a passing text is accepted unless its count is not -1 or 0 to 9999, or a field
    of its interval has more than 4 digits."""
    built = format_grammar("ftime", {"tag": 3})
    passes = check_format("ftime", {"tag": 3}, text).passed
    if accepts(built.grammar, text):
        assert passes
    elif passes:
        assert re.match(r"R(-(?!1/)|[0-9]{5})|.*/P[0-9]{5}", text), text
    assert not accepts(format_grammar("ftime", {"tag": 1}).grammar, text)


# ----------------------------------------------------------------------------------------------------- eqa
_PASSAGE = st.text(alphabet=st.one_of(st.sampled_from("ab Zé9 ,.-'\"\\\n\t\u0301\u00a0\u2028"), st.characters(
    codec="utf-8", exclude_categories=("Cs",))), min_size=1, max_size=40)


@settings(max_examples=30)
@given(_PASSAGE, st.lists(st.tuples(st.integers(0, 40), st.integers(0, 40)), min_size=6, max_size=6))
def test_eqa_spans_are_exactly_the_checker_spans(context, cuts):
    instance = {"id": "eqa-random", "context": context}
    try:
        built = format_grammar("eqa", instance)
    except NotExpressible:  # only a passage of spaces has no span
        assert not context.strip()
        return
    assert assert_sound("eqa", [instance], per_instance=5) >= 4
    for a, b in cuts:  # the grammar takes a stripped copied text exactly when the checker passes it
        text = context[min(a, b):max(a, b)]
        if text and text == text.strip():
            assert accepts(built.grammar, text) == check_format("eqa", instance, text).passed, text


def test_eqa_long_passages():
    """At the size limit the grammar still builds (linear: one rule per automaton state), takes the whole passage
    and spans of it; one piece more is refused rather than left to crash the engine."""
    context = " ".join(f"Word{k}, and (more)." for k in range(150))
    context += "!" * (simple.EQA_PIECES - len(simple.passage_pieces(context)))  # one piece each
    assert len(simple.passage_pieces(context)) == simple.EQA_PIECES
    built = format_grammar("eqa", {"context": context})
    assert len(built.grammar.source) < 15 * len(context)
    assert accepts(built.grammar, context)
    assert accepts(built.grammar, "Word7, and (more). Word8")
    assert not accepts(built.grammar, "Word7, and (more). Wor")
    with pytest.raises(NotExpressible, match="1,501 pieces"):
        format_grammar("eqa", {"context": context + "."})


# --------------------------------------------------------------------------------------------- mcq, acrow
@settings(max_examples=20)
@given(st.lists(st.text(min_size=1, max_size=6), min_size=1, max_size=6))
def test_mcq_random_labels(labels):
    instance = {"id": "mcq-random", "labels": labels}
    writable = [label for label in labels if label == label.strip()]
    if not writable:
        with pytest.raises(NotExpressible):
            format_grammar("mcq", instance)
        return
    assert assert_sound("mcq", [instance], per_instance=5) == 5
    assert accepts(format_grammar("mcq", instance).grammar, writable[0])


@settings(max_examples=20)
@given(st.text(alphabet=st.one_of(st.sampled_from("aZ -'ßİǅÉ2\u0301"), st.characters(codec="utf-8",
                                                                                       exclude_categories=("Cs",))),
               max_size=6))
def test_acrow_random_targets(target):
    instance = {"id": "acrow-random", "target": target}
    with _short_free_text():
        assert assert_sound("acrow", [instance], per_instance=5) >= 4
    poem = "\n".join(f"{letter} is here." for letter in simple._LETTER.findall(target))
    grammar = format_grammar("acrow", instance).grammar
    assert accepts(grammar, poem)
    if poem:
        assert accepts(grammar, poem + "\n")
        assert not accepts(grammar, poem + "\nand one more line")


# ----------------------------------------------------------------------------------------------------- mtt
_TERM = st.text(alphabet=st.sampled_from("abcXYZé-' 2ß"), min_size=1, max_size=8)


@settings(max_examples=20)
@given(st.lists(st.tuples(_TERM, _TERM), min_size=0, max_size=5))
def test_mtt_random_terms(pairs):
    terms = dict(pairs)
    instance = {"id": "mtt-random", "src": "Der Satz hat " + " und ".join(terms) + " am Ende.", "terms": terms}
    try:
        built = format_grammar("mtt", instance)
    except NotExpressible:
        return
    with _short_free_text():
        assert assert_sound("mtt", [instance], per_instance=4) >= 3
    wanted = simple.required_terms(instance)
    if len(wanted) <= 4:  # any order: here, the reverse of the source's
        assert accepts(built.grammar, "So, " + " and ".join(reversed(wanted)) + ".")
