"""Grammars for FormatBench's tasks: one builder per task, registered here, each returning a ``FormatGrammar``.

The same checker that judges an output steers decoding: each task's builder turns an instance (its labels, its
passage, its input tokens, its terms) into a grammar through Corral's one grammar path (``corral.grammars``).
Where a rule cannot be written exactly, the grammar is a sound over-approximation of the format and
``left_to_checker`` names the checker rules (ids of the task's ``FormatChecker.rules``) it does not enforce.

``exact`` is the claim the soundness tests hold each builder to: every text the grammar accepts passes the strict
checker. A builder may accept less than the checker does (e.g. only the canonical spelling of a label); it must
never accept an output the checker fails unless the rule is listed in ``left_to_checker``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from corral.grammars import Grammar, NotExpressible


@dataclass(frozen=True)
class FormatGrammar:
    """A task instance's grammar and what it leaves to the checker (empty: every accepted text passes)."""

    grammar: Grammar
    left_to_checker: tuple[str, ...] = ()

    @property
    def exact(self) -> bool:
        return not self.left_to_checker

    @property
    def enforcement(self) -> str:
        """The instance's ``enforcement`` group: ``exact``, or ``partial: RULE, RULE`` (the rules left)."""
        return "exact" if self.exact else "partial: " + ", ".join(self.left_to_checker)


Builder = Callable[[Mapping[str, Any]], FormatGrammar]
BUILDERS: dict[str, Builder] = {}
LEFT_TO_CHECKER: dict[str, tuple[str, ...]] = {}
"""Per task, the rules its grammar leaves to the checker, known without building a grammar (for groups)."""


def grammar_builder(task: str, left_to_checker: tuple[str, ...] = ()) -> Callable[[Builder], Builder]:
    """Register ``task``'s builder; ``left_to_checker`` must match what the builder's grammars return."""

    def register(builder: Builder) -> Builder:
        BUILDERS[task] = builder
        LEFT_TO_CHECKER[task] = left_to_checker
        return builder

    return register


def format_grammar(task: str, instance: Mapping[str, Any]) -> FormatGrammar:
    """The grammar of one instance of ``task``; ``NotExpressible`` (with the reason) when it has none."""
    builder = BUILDERS.get(task)
    if builder is None:
        raise NotExpressible(f"no grammar for the {task} format; decoded freely")
    return builder(instance)


def enforcement_of(task: str) -> str:
    """What a task's grammars enforce, as the ``enforcement`` group value (``none`` without a grammar)."""
    if task not in BUILDERS:
        return "none"
    left = LEFT_TO_CHECKER[task]
    return "exact" if not left else "partial: " + ", ".join(left)
