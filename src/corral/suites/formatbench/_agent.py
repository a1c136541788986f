"""Agent (First TextWorld Problems): the answer is one legal action that the game can execute.

An instance is one state of a TextWorld cooking game, recorded offline with TextWorld while its walkthrough was
played (``scripts/formatbench/build_agent.py``), so that evaluation needs no game engine: ``admissible`` lists the
commands the game accepts in that state, ``score`` and ``max_score`` are the game's own score there, and
``next_scores`` maps each admissible command to the game's score after executing it from that state.

Strict rules. ``single``: one command on one line; several lines, an empty answer, or a command wrapped in
other words or characters ("I would go north", "> go north", a quoted command) fail, naming what was seen.
``admissible``: the command (its first non-empty line), with case and runs of whitespace normalised, is one of
``admissible``; the message names up to 5 of the nearest admissible commands.

Reference mode. The reference repository has no Agent checker at all (its ``assert task in [...]`` leaves the
task out). Corral's reference verdict applies the paper's rule ("a legal action that can be executed in the
simulated environment") to what the reference checks for the other tasks, the first line of the first
paragraph: it passes when that line, normalised as above, is an admissible command, whatever follows it.

Quality (``agent_quality``). The paper scores a trace by "the inner score of the game provided by the game
engine ... divided by the maximum score". Per step, Corral applies this to the recorded trace prefix followed by
the model's action: the score after the action over the maximum score. An action the game cannot execute leaves
the score where it was.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from typing import Any

from corral.verdicts import Violation

from ._core import FormatChecker, reference_first_line, tick

MAX_SUGGESTIONS = 5
_SHOWN = 60  # characters of a seen answer quoted in a message
_COMPARED = 200  # characters of an answer compared with the admissible commands for suggestions
_SPACE = re.compile(r"\s+")
_LINE = re.compile(r"[^\n\r\v\f\x1c-\x1e\x85\u2028\u2029]+")


def normalise(command: str) -> str:
    """A command as the game parses it: case folded, runs of whitespace made one space, ends stripped."""
    return _SPACE.sub(" ", str(command)).strip().lower()


def _quote(text: str) -> str:
    return repr(text if len(text) <= _SHOWN else text[:_SHOWN] + "...")


def _admissible(instance: Mapping[str, Any]) -> list[str]:
    return [normalise(command) for command in instance["admissible"]]


def _lines(output: str) -> list[tuple[int, int]]:
    """The (start, end) offsets of the non-empty lines of ``output``, stripped (lines end where
    ``str.splitlines`` ends them)."""
    found = []
    for match in _LINE.finditer(output):
        tick()
        stripped = match.group().strip()
        if stripped:
            start = match.start() + match.group().find(stripped)
            found.append((start, start + len(stripped)))
    return found


def nearest(command: str, admissible: Sequence[str], n: int = MAX_SUGGESTIONS) -> list[str]:
    """Up to ``n`` admissible commands nearest to ``command``: those it contains first (longest first), then
    those sharing the most words with it, then the most similar (difflib's ratio)."""
    command = normalise(command[: _COMPARED * 4])[:_COMPARED]
    words = set(command.split())
    unique = sorted(set(admissible))
    inside = sorted((c for c in unique if c and _find(command, c)), key=lambda c: (-len(c), c))

    def closeness(candidate: str) -> tuple[int, float, str]:
        shared = len(words & set(candidate.split()))
        return -shared, -difflib.SequenceMatcher(None, command, candidate).ratio(), candidate

    rest = sorted((c for c in unique if c not in inside), key=closeness) if command else []
    return [*inside, *rest][:n]


def _find(text: str, command: str) -> re.Match[str] | None:
    return re.search(rf"(?<![a-z0-9]){re.escape(command)}(?![a-z0-9])", text)


def _wrapped(line: str, admissible: Sequence[str]) -> str | None:
    """The admissible command that ``line`` (normalised) wraps in chatter: words or marks before it ("I would
    go north", "> go north", a quote), or punctuation after it ("go north.", "go north, then west"). Words
    after it with no mark between ("open fridge door") make another command, not chatter."""
    for command in sorted((c for c in set(admissible) if c), key=lambda c: (-len(c), c)):
        found = _find(line, command)
        if found is None:
            continue
        before, after = line[: found.start()].strip(), line[found.end():].strip()
        if before or (after and (re.match(r"[^a-z0-9\s]", after) or not re.search(r"[a-z0-9]", after))):
            return command
    return None


def strict(instance: Mapping[str, Any], output: str) -> list[Violation]:
    admissible = _admissible(instance)
    allowed = set(admissible)
    lines = _lines(output)
    if not lines:
        example = "look" if "look" in allowed or not admissible else admissible[0]
        return [Violation("single", f"The answer is empty; write one command, e.g. {example!r}.", (0, 0),
                          "one command on one line", ""),
                Violation("admissible", "An empty command cannot be done here.", (0, 0), None, "")]
    start, end = lines[0]
    line = output[start:end]
    command = normalise(line)
    found = []
    if len(lines) > 1:
        rest = output[lines[1][0]:lines[-1][1]]
        found.append(Violation("single", f"The answer has {len(lines)} lines; write one command on one line, "
                                         f"without {_quote(rest)}.", (lines[1][0], lines[-1][1]),
                               "one command on one line", len(lines)))
    if command in allowed:
        return found
    wrapped = _wrapped(command, admissible)
    if wrapped is not None:
        found.append(Violation("single", f"The answer wraps the command {wrapped!r} in other words "
                                         f"({_quote(line)}); write the command alone.", (start, end), wrapped, line))
    suggestions = nearest(command, admissible)
    hint = f"; try: {', '.join(suggestions)}" if suggestions else ""
    found.append(Violation("admissible", f"{_quote(command)} cannot be done here{hint}.", (start, end),
                           suggestions or None, command))
    return found


def reference(instance: Mapping[str, Any], output: str) -> bool:
    return normalise(reference_first_line(output)) in set(_admissible(instance))


def agent_quality(instance: Mapping[str, Any], answer: str) -> dict[str, float]:
    """The game's score after ``answer`` from the instance's state, over the maximum score.

    ``{"agent_score": next_scores[answer] / max_score}``, with ``answer`` normalised as the checker does; an answer
    that is not an admissible command leaves the score at the instance's ``score``.
    """
    max_score = float(instance["max_score"])
    after = dict(instance["next_scores"]).get(normalise(answer), instance["score"])
    return {"agent_score": float(after) / max_score if max_score else 0.0}


CHECKER = FormatChecker(
    name="agent",
    rules={"single": "one command on one line, nothing around it",
           "admissible": "a command the game can execute in this state"},
    needs=("admissible",), strict=strict, reference=reference,
    description="Agent (First TextWorld Problems): one legal action in a TextWorld cooking game",
)
