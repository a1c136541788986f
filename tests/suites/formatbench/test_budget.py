"""Every FormatBench checker runs under a ``Budget``: hostile outputs (a megabyte of text, 100,000 open brackets,
a megabyte of one character, deep balanced nesting, tag floods) give a verdict within seconds, undecided or
failed, never a traceback; an output past ``max_chars`` is refused before any work."""

from __future__ import annotations

import time

import pytest

from corral.constraints import Budget
from corral.suites.formatbench import TASKS, FormatChecker, check_format, get_checker, load_instances
from corral.verdicts import Violation

N = 100_000
SMALL = Budget(seconds=1)


def _instance(task: str) -> dict:
    return next(load_instances(task, "test"))


HOSTILE = {
    "text": lambda gold: ("lorem ipsum dolor sit amet, " * 40_000)[:1_000_000],
    "parens": lambda gold: "(" * N,
    "brackets": lambda gold: "[" * N,
    "braces": lambda gold: "{" * N,
    "one_char": lambda gold: "a" * 1_000_000,
    "balanced": lambda gold: "(S " * N + "x" + ")" * N,
    "gold_repeated": lambda gold: (gold + "\n") * max(1, 1_000_000 // (len(gold) + 1)),
    "tags": lambda gold: "<PER>" * N + "</LOC>" * N,
    "xml": lambda gold: "<XDL><Synthesis><Procedure>" + "<Repeat>" * N + "</Repeat>" * N +
                        "</Procedure></Synthesis></XDL>",
}


@pytest.mark.parametrize("mode", ["strict", "reference"])
@pytest.mark.parametrize("kind", sorted(HOSTILE))
@pytest.mark.parametrize("task", TASKS)
def test_hostile_outputs_end_quickly_without_passing(task, kind, mode):
    instance = _instance(task)
    output = HOSTILE[kind](instance.get("gold") or "x")
    started = time.monotonic()
    verdict = check_format(task, instance, output, mode, budget=SMALL)
    elapsed = time.monotonic() - started
    assert elapsed < 5.0, f"{task}/{kind}/{mode} took {elapsed:.1f} s"
    if kind != "gold_repeated":  # the reference checkers read the first line only: a repeated gold may pass
        assert not verdict.passed
    if verdict.undecided is not None:
        assert not verdict.passed and verdict.score == 0.0 and verdict.violated_rules == ["budget"]


@pytest.mark.parametrize("task", TASKS)
def test_an_output_past_max_chars_is_refused_before_any_work(task):
    instance = _instance(task)
    verdict = check_format(task, instance, "x" * 101, budget=Budget(max_chars=100))
    assert verdict.undecided == "the output is 101 characters; the limit is 100"
    assert not verdict.passed and verdict.score == 0.0
    assert verdict.to_json()["undecided"] == verdict.undecided
    assert check_format(task, instance, "x" * 100, budget=Budget(max_chars=100)).undecided is None


def test_a_check_past_its_deadline_is_undecided():
    instance = _instance("eqa")  # the answer is looked for in the passage piece by piece: long for a long answer
    output = "the " * 20 + "zebra " * 150_000
    started = time.monotonic()
    verdict = check_format("eqa", instance, output, budget=Budget(seconds=0.05))
    assert time.monotonic() - started < 3.0
    assert verdict.undecided is not None and "0.05 s" in verdict.undecided
    assert verdict.feedback.startswith("not decided")
    assert check_format("eqa", instance, output).undecided is None  # the default budget decides it


def test_the_budget_ends_with_the_check():
    """A check's meter does not outlive it: ``tick`` outside a check counts against nothing, however often."""
    from corral.suites.formatbench import tick

    check_format("eqa", _instance("eqa"), "x", budget=Budget(seconds=0.0001, max_steps=10))
    for _ in range(100_000):
        tick()


def _recursive(instance, output: str) -> list[Violation]:
    def depth(at: int) -> int:
        return 1 + depth(at + 1) if at < len(output) and output[at] == "(" else 0

    return [Violation("bracket", "too deep")] if depth(0) > 10 else []


DEEP = FormatChecker("deep", {"bracket": "balanced"}, (), _recursive, lambda instance, output: True)


def test_a_checker_that_recurses_too_deep_is_undecided_not_a_traceback():
    verdict = DEEP.check({}, "(" * 100_000)
    assert verdict.undecided == "the output is nested too deeply to check"
    assert not verdict.passed and verdict.violated_rules == ["budget"]
    assert DEEP.check({}, "((").passed


def test_a_checker_bug_is_still_an_internal_violation():
    def broken(instance, output):
        raise KeyError("oops")

    verdict = FormatChecker("broken", {"x": "x"}, (), broken, broken).check({}, "x")
    assert verdict.undecided is None and verdict.violated_rules == ["internal"]


def test_checks_of_ordinary_outputs_are_unchanged():
    for task in TASKS:
        instance = _instance(task)
        gold = instance.get("gold")
        if gold is not None:
            assert get_checker(task).check(instance, gold, budget=SMALL).passed, task


def test_eqa_names_the_longest_part_of_the_answer_the_passage_has():
    instance = _instance("eqa")
    piece = " ".join(instance["context"].split()[2:6])
    verdict = check_format("eqa", instance, f"zzqx {piece} qqzx")
    assert verdict.violated_rules == ["span"]
    assert verdict.violations[0].expected == piece


def test_the_cli_exits_3_for_an_undecided_format_check(tmp_path):
    import json

    from typer.testing import CliRunner

    from corral.cli import app

    path = tmp_path / "instance.json"
    path.write_text(json.dumps(_instance("mcq")), encoding="utf-8")
    args = ["check", "--format", "mcq", "--instance", str(path), "--output", "A" * 50, "--max-chars", "10"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 3 and "UNDECIDED" in result.output and "the limit is 10" in result.output
    result = CliRunner().invoke(app, [*args, "--json"])
    assert result.exit_code == 3 and json.loads(result.output)["undecided"].endswith("the limit is 10")
