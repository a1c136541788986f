"""Agent (First TextWorld Problems): one admissible command passes; each rule, broken, fails with its message;
the reference-mode verdicts; no output makes the checker raise; the quality metric reads the precomputed game
scores; every shipped row is sound; and rebuilding one game with TextWorld gives the shipped rows."""

from __future__ import annotations

import importlib.util
import itertools
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import corral.suites.formatbench as formatbench
from corral.suites.formatbench import (
    AGENT_CHECKER,
    AGENT_SUGGESTIONS,
    InstanceError,
    agent_quality,
    check_format,
    data_file,
    get_checker,
    load_instances,
    nearest_commands,
    validate_row,
)

ADMISSIBLE = ["close fridge", "cook carrot with stove", "drop carrot", "eat carrot", "examine cookbook",
              "go north", "go west", "inventory", "look", "open fridge", "open oven", "prepare meal",
              "take knife from counter", "take red onion from fridge"]
NEXT = {command: 2 for command in ADMISSIBLE} | {"take red onion from fridge": 3, "cook carrot with stove": 3}
INSTANCE = {"id": "agent-x", "admissible": ADMISSIBLE, "score": 2, "max_score": 8, "next_scores": NEXT,
            "gold": "take red onion from fridge"}


def strict(output, **fields):
    return check_format("agent", {**INSTANCE, **fields}, output)


def reference(output):
    return check_format("agent", INSTANCE, output, "reference").passed


def rules(output):
    return [v.rule for v in strict(output).violations]


# ------------------------------------------------------------------------------------------------ strict
@pytest.mark.parametrize("output", ["take red onion from fridge", "Take Red Onion from FRIDGE",
                                    "  take   red onion\tfrom fridge \n", "\ngo north\n\n", "LOOK"])
def test_admissible_commands_pass(output):
    verdict = strict(output)
    assert verdict.passed and verdict.score == 1.0 and verdict.feedback == ""


@pytest.mark.parametrize(("output", "message"), [
    ("open fridge door", "'open fridge door' cannot be done here; try: open fridge"),
    ("dance", "'dance' cannot be done here"),
    ("go south", "'go south' cannot be done here; try: go north, go west"),
    ("take the knife", "try: take knife from counter"),
    ("go north\nlook", "The answer has 2 lines; write one command on one line, without 'look'."),
    ("go north\n\nI went north because the kitchen is there.", "The answer has 2 lines"),
    ("go north\rlook", "The answer has 2 lines"),
    ("go north\u2028look\nexamine cookbook", "The answer has 3 lines"),
    ("I would go north", "The answer wraps the command 'go north' in other words ('I would go north'); write "
                         "the command alone."),
    ("> go north", "wraps the command 'go north'"),
    ("`open fridge`", "wraps the command 'open fridge'"),
    ("go north.", "wraps the command 'go north'"),
    ("Go north, then west", "wraps the command 'go north' in other words ('Go north, then west')"),
    ("go north to the kitchen", "'go north to the kitchen' cannot be done here; try: go north"),
    ("Answer: take red onion from fridge.", "wraps the command 'take red onion from fridge'"),
    ("", "The answer is empty; write one command"),
    ("  \n \n", "The answer is empty"),
])
def test_rules_fail_with_their_message(output, message):
    verdict = strict(output)
    assert not verdict.passed and 0.0 <= verdict.score < 1.0
    assert message in verdict.feedback


def test_violations_name_rule_span_expected_and_seen():
    door = strict("  open fridge door").violations
    assert [(v.rule, v.span, v.seen) for v in door] == [("admissible", (2, 18), "open fridge door")]
    assert door[0].expected[0] == "open fridge" and len(door[0].expected) <= AGENT_SUGGESTIONS
    lines = strict("go north\nlook\n").violations
    assert [(v.rule, v.span, v.seen) for v in lines] == [("single", (9, 13), 2)]
    assert strict("go north\nlook").score == 0.5  # the first line is a legal command
    assert rules("I would go north") == ["single", "admissible"] and strict("I would go north").score == 0.0
    assert rules("open fridge door") == ["admissible"] and strict("open fridge door").score == 0.5
    assert rules("") == ["single", "admissible"]


def test_at_most_five_suggestions_nearest_first():
    message = strict("examine the fridge").feedback
    suggestions = message.split("try: ")[1].rstrip(".").split(", ")
    assert len(suggestions) == 5 and set(suggestions) <= set(ADMISSIBLE)
    assert "examine cookbook" in suggestions
    assert nearest_commands("I would go north", ADMISSIBLE)[0] == "go north"
    assert nearest_commands("", []) == []


def test_reference_mode_checks_the_first_line_of_the_first_paragraph():
    assert reference("go north") and reference("Go  North") and reference("go north\nlook")
    assert reference("go north\n\nI go north to find the kitchen.")
    assert not reference("I would go north") and not reference("\ngo north") and not reference("")
    assert not reference("open fridge door")
    assert not strict("go north\n\nbecause").passed  # strict wants the command alone


def test_checker_is_registered_and_needs_the_admissible_commands():
    checker = get_checker("agent")
    assert checker is AGENT_CHECKER and checker.needs == ("admissible",)
    assert set(checker.rules) == {"single", "admissible"}
    with pytest.raises(InstanceError, match="agent instance agent-x: missing field 'admissible'"):
        check_format("agent", {"id": "agent-x"}, "go north")


@settings(max_examples=200, deadline=None)
@given(output=st.text(max_size=300) | st.sampled_from(["\x00", "\r\n", "go north\r\n", "(", "[", "\\", "*"])
       | st.builds(lambda c, junk: junk + c + junk, st.sampled_from(ADMISSIBLE), st.text(max_size=20)))
def test_never_raises_and_verdicts_are_consistent(output):
    for mode in ("strict", "reference"):
        verdict = check_format("agent", INSTANCE, output, mode)
        assert verdict.passed == (verdict.score == 1.0)
        assert "internal" not in {v.rule for v in verdict.violations}
    assert 0.0 <= agent_quality(INSTANCE, output)["agent_score"] <= 1.0


@pytest.mark.parametrize("output", ["go north " * 200_000, "x" * 1_000_000, "\n" * 100_000 + "look",
                                    "go north\n" * 50_000, "é" * 300_000])
def test_huge_outputs_are_checked_quickly(output):
    start = time.perf_counter()
    for mode in ("strict", "reference"):
        verdict = check_format("agent", INSTANCE, output, mode)
        assert "internal" not in {v.rule for v in verdict.violations}
        assert all(len(v.message) < 400 for v in verdict.violations)
    agent_quality(INSTANCE, output)
    assert time.perf_counter() - start < 60  # a hang guard, generous for a loaded machine


# ------------------------------------------------------------------------------------------------ quality
def test_quality_is_the_game_score_after_the_action_over_the_maximum():
    assert agent_quality(INSTANCE, "take red onion from fridge") == {"agent_score": 3 / 8}
    assert agent_quality(INSTANCE, " Cook  Carrot with STOVE\n") == {"agent_score": 3 / 8}
    assert agent_quality(INSTANCE, "look") == {"agent_score": 2 / 8}
    assert agent_quality(INSTANCE, "fly to the moon") == {"agent_score": 2 / 8}  # stays put
    assert agent_quality({**INSTANCE, "max_score": 0}, "look") == {"agent_score": 0.0}


# ------------------------------------------------------------------------------------------------ shipped
@pytest.fixture(scope="module")
def shipped():
    return list(load_instances("agent", None))


def test_shipped_counts_splits_and_size(shipped):
    splits = {name: [row for row in shipped if row["split"] == name] for name in ("test", "train", "fewshot")}
    assert len(splits["test"]) >= 150 and len(splits["train"]) >= 300 and len(splits["fewshot"]) == 3
    games = {name: {row["game"] for row in rows} for name, rows in splits.items()}
    assert not games["test"] & games["train"] and not games["fewshot"] & (games["test"] | games["train"])
    assert len(games["test"]) >= 8 and len(games["train"]) >= 16
    path = Path(formatbench.__file__).parent / "data" / data_file("agent")
    assert path.stat().st_size < 1_500_000
    assert len({row["id"] for row in shipped}) == len(shipped)


def test_every_shipped_row_is_sound(shipped):
    for row in shipped:
        validate_row("agent", row)
        assert row["gold"] in row["admissible"] and row["admissible"] == sorted(set(row["admissible"]))
        assert check_format("agent", row, row["gold"]).passed, row["id"]
        assert check_format("agent", row, row["gold"], "reference").passed, row["id"]
        assert set(row["next_scores"]) == set(row["admissible"])
        assert 0 <= row["score"] <= row["max_score"] and row["max_score"] > 0
        stay = row["score"] / row["max_score"]
        assert agent_quality(row, row["gold"])["agent_score"] >= stay
        assert agent_quality(row, "xyzzy")["agent_score"] == stay
        assert row["input"].endswith("What do you do next? Answer with one command.")
        assert "Admissible commands:" not in row["input"]
        assert all(f"- {command}\n" in row["input_with_choices"] for command in row["admissible"])
        assert len(row["history"]) == min(row["step"], 3)


def test_shipped_games_reach_the_maximum_score(shipped):
    """Along each game's walkthrough the score never falls, and its last command wins the maximum score."""
    by_game: dict[str, list[dict]] = {}
    for row in shipped:
        if row["split"] != "fewshot":
            by_game.setdefault(row["game"], []).append(row)
    for rows in by_game.values():
        rows.sort(key=lambda row: row["step"])
        assert [row["step"] for row in rows] == list(range(len(rows)))
        assert all(a["next_scores"][a["gold"]] == b["score"] for a, b in itertools.pairwise(rows))
        assert rows[-1]["next_scores"][rows[-1]["gold"]] == rows[-1]["max_score"]


# ------------------------------------------------------------------------------------------------ rebuild
@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("textworld") is None, reason="needs textworld (pip install "
                                                                         "textworld==1.7.0)")
def test_rebuilding_one_game_gives_the_shipped_rows(tmp_path, shipped):
    from scripts.formatbench.build_agent import GAMES, game_rows

    spec = min((s for s in GAMES if s.split == "train"), key=lambda s: (s.recipe, s.go, s.seed))
    rows = game_rows(spec, tmp_path)
    assert rows and rows == sorted((row for row in shipped if row["game"] == spec.name), key=lambda r: r["id"])


def test_the_builder_says_in_one_line_when_textworld_is_missing(monkeypatch, tmp_path):
    from scripts.formatbench.build_agent import main

    monkeypatch.setitem(sys.modules, "textworld", None)  # import textworld now raises ImportError
    with pytest.raises(SystemExit, match=r"^building the Agent instances needs TextWorld: pip install "
                                         r"textworld==1\.7\.0$"):
        main(tmp_path)
    assert not (tmp_path / "agent.jsonl.gz").exists()
