"""Grammars for FormatBench's tasks: one builder per task (``FormatTask.grammar``), each returning a
``FormatGrammar``.

The same checker that judges an output steers decoding: each task's builder turns an instance (its labels, its
passage, its input tokens, its terms) into a grammar through Corral's one grammar path (``corral.grammars``).
Where a rule cannot be written exactly, the grammar is a sound over-approximation of the format and
``left_to_checker`` names the checker rules (ids of the task's ``FormatChecker.rules``) it does not enforce.

``exact`` is the claim the soundness tests hold each builder to: every text the grammar accepts passes the strict
checker. A builder may accept less than the checker does (e.g. only the canonical spelling of a label); it must
never accept an output the checker fails unless the rule is listed in ``left_to_checker``.
"""

from __future__ import annotations

from dataclasses import dataclass

from corral.grammars import Grammar


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
