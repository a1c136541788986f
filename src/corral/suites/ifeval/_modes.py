"""IFEval's two ways of judging a response, strict and loose, and its prompt-level and instruction-level results.

Strict: each instruction is checked against the response as written (a blank response follows none). Loose: an
instruction is followed when any of eight variants of the response passes it: the response; it with its first line
removed, its last line removed, or both; and each of those four with every ``*`` removed (the variants with lines
removed are stripped of surrounding whitespace). Loose mode forgives a preamble ("Sure, here is ...:"), a closing
remark and markdown emphasis, so it is an upper bound on strict.

A prompt is followed (prompt level) when all its instructions are; instruction level counts each instruction.
``judge_prompt`` gives both modes at once as one ``Verdict`` (passed = the chosen mode's prompt-level result) whose
``detail`` is the per-instruction ``IFEvalResult``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from corral.constraints import DEFAULT_BUDGET, Budget, BudgetExceeded
from corral.verdicts import Verdict, Violation

from ._kinds import Instruction, blank, metered, tick

Mode = Literal["strict", "loose"]
MODES: tuple[Mode, ...] = ("strict", "loose")


def loose_variants(response: str) -> list[str]:
    """The eight responses loose mode tries, in IFEval's order: as is, without ``*``, without the first line, the
    last line, both, and those three without ``*``."""
    lines = response.split("\n")
    first = "\n".join(lines[1:]).strip()
    last = "\n".join(lines[:-1]).strip()
    both = "\n".join(lines[1:-1]).strip()
    return [response, response.replace("*", ""), first, last, both,
            first.replace("*", ""), last.replace("*", ""), both.replace("*", "")]


def follows(instruction: Instruction, response: str) -> bool:
    """IFEval's strict test of one instruction: the response is not blank and the check finds nothing."""
    return bool(response.strip()) and not instruction.violations(response)


def follows_loosely(instruction: Instruction, response: str) -> bool:
    """IFEval's loose test: some variant of the response (``loose_variants``) follows the instruction."""
    for variant in loose_variants(response):
        tick()
        if follows(instruction, variant):
            return True
    return False


@dataclass(frozen=True)
class IFEvalResult:
    """Per instruction of one prompt: its id, and whether it was followed strictly and loosely."""

    ids: tuple[str, ...]
    strict: tuple[bool, ...]
    loose: tuple[bool, ...]

    @property
    def prompt_strict(self) -> bool:
        return all(self.strict)

    @property
    def prompt_loose(self) -> bool:
        return all(self.loose)

    def to_json(self) -> dict[str, Any]:
        return {"instructions": list(self.ids), "strict": list(self.strict), "loose": list(self.loose),
                "prompt_strict": self.prompt_strict, "prompt_loose": self.prompt_loose}

    def quality(self) -> dict[str, float]:
        """The run's accuracy statistics: prompt level as a 0/1 mean, instruction level as summed correct/total
        (``corral.evaluation`` sums ``metric@ratio:stat`` keys over records, so the summary is IFEval's
        instruction-level accuracy, not a mean of per-prompt shares)."""
        n = float(len(self.ids))
        return {"prompt_strict": float(self.prompt_strict), "prompt_loose": float(self.prompt_loose),
                "instruction_strict@ratio:correct": float(sum(self.strict)), "instruction_strict@ratio:total": n,
                "instruction_loose@ratio:correct": float(sum(self.loose)), "instruction_loose@ratio:total": n}


def evaluate_response(instructions: Sequence[Instruction], response: str) -> IFEvalResult:
    """Both modes' per-instruction results (no budget: see ``judge_prompt``)."""
    strict = tuple(follows(instruction, response) for instruction in instructions)
    loose = tuple(ok or follows_loosely(instruction, response) for instruction, ok in zip(instructions, strict,
                                                                                          strict=True))
    return IFEvalResult(tuple(i.id for i in instructions), strict, loose)


def judge_prompt(instructions: Sequence[Instruction], response: str, mode: Mode = "strict",
                 budget: Budget = DEFAULT_BUDGET) -> Verdict[IFEvalResult]:
    """The verdict on a response to a prompt with ``instructions``: passed when every instruction is followed in
    ``mode``; score the share followed in that mode; violations those of the strict check (what to fix, whichever
    mode decides); detail the ``IFEvalResult`` of both modes. Undecided past ``budget``."""
    if mode not in MODES:
        raise ValueError(f"unknown IFEval mode {mode!r}; valid: {', '.join(MODES)}")
    rules = tuple(i.id for i in instructions)
    if len(response) > budget.max_chars:
        return Verdict.not_decided(f"the response is {len(response):,} characters; the limit is "
                                   f"{budget.max_chars:,}", rules=rules)

    def work() -> tuple[IFEvalResult, list[Violation]]:
        result = evaluate_response(instructions, response)
        found: list[Violation] = []
        followed = result.strict if mode == "strict" else result.loose
        for instruction, ok in zip(instructions, followed, strict=True):
            if not ok:  # what to fix: the strict check's violations (loose mode forgives, it does not explain)
                found += blank(instruction.id, response) or instruction.violations(response) or [
                    Violation(instruction.id, f"The response does not follow {instruction.id}: "
                                              f"{instruction.render()}")]
        return result, found

    try:
        result, found = metered(budget, work)
    except BudgetExceeded as exc:
        return Verdict.not_decided(exc.reason, rules=rules)
    except RecursionError:
        return Verdict.not_decided("the response is nested too deeply to check", rules=rules)
    except Exception as exc:  # a checker must not raise on a response: report it as the prompt's failure
        return Verdict.of([Violation("internal", f"The IFEval checker could not check this response "
                                                 f"({type(exc).__name__}: {exc}).")], rules=rules, score=0.0)
    followed = result.strict if mode == "strict" else result.loose
    score = sum(followed) / len(followed) if followed else 1.0
    return Verdict.of(found, rules=rules, score=score, detail=result)
