"""The one verdict every checker returns: passed, a score in [0, 1], and the violations that explain a failure.

A ``Violation`` says which rule broke, in words a person (or a model, in the next feedback round) can act on,
where (``path``: a field path such as ``/items/2/name``, or the part of a constraint; ``span``: character offsets
in the output), what was expected and what was seen. COLLIE's constraints, FormatBench's format checkers and
JSON Schema samples all give this value, so the runner stores it whole, reports count the most-violated rules,
feedback prompts read ``feedback``, and a reward function reads ``score`` without an adapter per suite.

Explaining a failure in English costs more than deciding it (a COLLIE check is ~30% slower with its feedback), so
a checker may give the explanation as a function that runs on first use (``Verdict.lazy``); the value is the same
either way. ``detail`` keeps the checker's own evidence (COLLIE's result tree, the parsed sample) for callers that
know the checker; it is not part of the verdict's JSON unless it can say itself as JSON.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Generic, NamedTuple, TypeVar

__all__ = ["Explanation", "Verdict", "Violation", "most_violated"]

D = TypeVar("D")


@dataclass(frozen=True)
class Violation:
    """One broken rule: its id, a specific message, where (a character span of the output and/or a field path),
    and the expected and seen values when there are such."""

    rule: str
    message: str
    span: tuple[int, int] | None = None
    expected: Any = None
    seen: Any = None
    path: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"rule": self.rule, "message": self.message}
        if self.path is not None:
            out["path"] = self.path
        if self.span is not None:
            out["span"] = list(self.span)
        if self.expected is not None:
            out["expected"] = _plain(self.expected)
        if self.seen is not None:
            out["seen"] = _plain(self.seen)
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Violation:
        span = data.get("span")
        return cls(str(data["rule"]), str(data.get("message", "")), (int(span[0]), int(span[1])) if span else None,
                   data.get("expected"), data.get("seen"), data.get("path"))


class Explanation(NamedTuple):
    """Why a verdict failed: its violations and the feedback text a model reads ('' when it passed)."""

    violations: tuple[Violation, ...]
    feedback: str


@dataclass(frozen=True)
class Verdict(Generic[D]):
    """A checker's answer for one output.

    Attributes:
        passed: whether the output meets every rule.
        score: a graded signal in [0, 1] (1.0 when passed), e.g. the share of rules met: a reward reads it.
        rules: the rules that were checked (for per-rule rates and the graded score), when the checker knows them.
        detail: the checker's own evidence (``corral.constraints.Checked`` for a constraint, a parsed sample).
        undecided: why the checker could not decide (its budget ran out), or None. An undecided verdict does not
            pass and scores 0, with one violation of rule ``budget``; callers that must tell "failed" from "not
            known" (exit codes, reports) read this.
    """

    passed: bool
    score: float
    rules: tuple[str, ...] = ()
    detail: D | None = field(default=None, compare=False, repr=False)
    explanation: Explanation | Callable[[], Explanation] = field(default=Explanation((), ""), compare=False,
                                                                 repr=False)
    undecided: str | None = None

    @classmethod
    def not_decided(cls, reason: str, *, rules: Sequence[str] = ()) -> Verdict[Any]:
        """The verdict of a check that ran past its budget: not passed, score 0, ``undecided`` = ``reason``."""
        violation = Violation("budget", f"not decided: {reason}")
        return cls(False, 0.0, tuple(rules), None, Explanation((violation,), violation.message), undecided=reason)

    @classmethod
    def of(cls, violations: Iterable[Violation], *, rules: Sequence[str] = (), score: float | None = None,
           feedback: str | None = None, detail: D | None = None) -> Verdict[D]:
        """The verdict of a list of violations: passed when there are none; the score is the share of ``rules``
        no violation breaks unless given; the feedback is the messages, one per line, unless given."""
        found = tuple(violations)
        if score is None:
            broken = {v.rule for v in found}
            score = 1.0 if not found else (sum(rule not in broken for rule in rules) / len(rules) if rules else 0.0)
        text = feedback if feedback is not None else "\n".join(v.message for v in found)
        return cls(not found, score, tuple(rules), detail, Explanation(found, text))

    @classmethod
    def lazy(cls, passed: bool, score: float, explain: Callable[[], Explanation], *, rules: Sequence[str] = (),
             detail: D | None = None) -> Verdict[D]:
        """A verdict whose explanation is computed on first use (only a failed verdict ever calls ``explain``)."""
        explanation = _NOTHING_TO_EXPLAIN if passed else explain
        if cls is not Verdict:
            return cls(passed, score, tuple(rules), detail, explanation)
        # what __init__ makes, made at once: a frozen dataclass's __init__ sets its six fields one call at a time,
        # a tenth of a whole COLLIE check
        verdict = object.__new__(Verdict)
        _set(verdict, "__dict__", {"passed": passed, "score": score, "rules": tuple(rules), "detail": detail,
                                   "explanation": explanation, "undecided": None})
        return verdict

    @cached_property
    def _explained(self) -> Explanation:
        return self.explanation() if callable(self.explanation) else self.explanation

    @property
    def violations(self) -> tuple[Violation, ...]:
        return self._explained.violations

    @property
    def feedback(self) -> str:
        """What a feedback round shows the model ('' when passed)."""
        return self._explained.feedback

    @property
    def violated_rules(self) -> list[str]:
        """The rules broken, each once, in the order of their first violation."""
        return list(dict.fromkeys(v.rule for v in self.violations))

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data: what run records store and ``from_json`` reads back (``detail`` when it has
        ``to_json``)."""
        out: dict[str, Any] = {"passed": self.passed, "score": self.score,
                               "violations": [v.to_json() for v in self.violations], "feedback": self.feedback}
        if self.rules:
            out["rules"] = list(self.rules)
        if self.undecided is not None:
            out["undecided"] = self.undecided
        if hasattr(self.detail, "to_json"):
            out["detail"] = self.detail.to_json()  # type: ignore[union-attr]
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Verdict[dict[str, Any]]:
        violations = tuple(Violation.from_json(v) for v in data.get("violations", ()))
        undecided = data.get("undecided")
        return Verdict(bool(data["passed"]), float(data["score"]), tuple(data.get("rules", ())),
                       data.get("detail"), Explanation(violations, str(data.get("feedback", ""))),
                       undecided=str(undecided) if undecided is not None else None)

    def __bool__(self) -> bool:
        return self.passed


_NOTHING_TO_EXPLAIN = Explanation((), "")
_set = object.__setattr__


def most_violated(verdicts: Iterable[Verdict[Any] | Mapping[str, Any]], top: int | None = None) -> list[
        tuple[str, int]]:
    """(rule, outputs that broke it) for the given verdicts (objects or their JSON), most often broken first; an
    output that breaks a rule twice counts once."""
    counts: Counter[str] = Counter()
    for verdict in verdicts:
        violations = verdict.violations if isinstance(verdict, Verdict) else verdict.get("violations", ())
        counts.update({v.rule if isinstance(v, Violation) else str(v["rule"]) for v in violations})
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:top]


def _plain(value: Any) -> Any:
    """A JSON-safe form of an expected/seen value (tuples as lists, anything unknown as its text)."""
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    return str(value)
