"""Feedback: English that names only the failed parts, with what was expected and what was seen.

It is what a model reads in the next round, so it is specific ("Sentence 2 has 7 words; it must have at
least 11.") and says each failure once; failed siblings that a kind can merge are said together ("You wrote
a word with 3 'v' characters and 4 'i' characters; it must have exactly 2 and 3.").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from corral.text import Level

from ._english import Phrasing, quantified, selection
from ._kinds import kind_of
from ._nodes import And, ForEach, Not, Or, Quantifier, TextRef
from ._render import clause

if TYPE_CHECKING:
    from ._check import Checked, Result

MAX_UNITS_SHOWN = 5


def feedback(checked: Checked) -> str:
    """The feedback of a whole check: each failed part said once, siblings a kind can merge said together."""
    if checked.result.passed:
        return ""
    return " ".join(messages(checked.result, Phrasing(text_level=checked.constraint.level)))


def part_message(part: Result, text_level: Level | None) -> str:
    """The feedback of one failed part on its own (a violation's message)."""
    return " ".join(messages(part, Phrasing(text_level=text_level)))


def messages(result: Result, ph: Phrasing) -> list[str]:
    """Feedback sentences for a failed result (none for a passed one)."""
    if result.passed:
        return []
    node = result.constraint
    if isinstance(node, And):
        return _siblings([child for child in result.children if not child.passed], ph)
    if isinstance(node, Or):
        options = [" ".join(messages(child, ph)) for child in result.children]
        return ["None of the alternatives holds: " + " Alternatively: ".join(options)]
    if isinstance(node, Not):
        return [f"It must not be the case that {clause(node.part, ph)}, but it is."]
    if isinstance(node, ForEach):
        return [_for_each(result, node, ph)]
    kind = kind_of(node)
    assert kind is not None
    return [kind.failure([result], ph)]


def _siblings(failed: list[Result], ph: Phrasing) -> list[str]:
    """Messages for failed siblings, merging those whose kind gives the same merge key."""
    out: list[str] = []
    groups: dict[object, list[Result]] = {}
    order: list[tuple[Result | None, object]] = []  # (a result said alone, or None and the key of a merged group)
    for result in failed:
        kind = kind_of(result.constraint)
        key = kind.merge_key(result.constraint) if kind and kind.merge_key else None
        if key is None or result.observed is None:
            order.append((result, None))
            continue
        if key not in groups:
            groups[key] = []
            order.append((None, key))
        groups[key].append(result)
    for alone, key in order:
        if alone is not None:
            out.extend(messages(alone, ph))
        else:
            group = groups[key]
            kind = kind_of(group[0].constraint)
            assert kind is not None
            out.append(kind.failure(group, ph))
    return out


def _for_each(result: Result, node: ForEach, ph: Phrasing) -> str:
    if result.observed is None:
        return f"There is no {selection(node.of, ph).removeprefix('the ')}."
    of = "" if isinstance(node.of, TextRef) else f" of {selection(node.of, ph)}"
    subject, is_plural = quantified(node.quantifier, node.k, node.level)
    requirement = clause(node.body, ph.for_unit(node.level, f"{subject}{of}", is_plural))
    if node.quantifier is Quantifier.ALL:
        failing = [child for child in result.children if not child.passed]
        said = []
        for child in failing[:MAX_UNITS_SHOWN]:
            unit_ph = ph.for_unit(node.level, f"{node.level.noun} {child.unit}")
            said.extend(messages(child, unit_ph))
        more = len(failing) - MAX_UNITS_SHOWN
        tail = f" ({more} more {node.level.plural} fail the same way.)" if more > 0 else ""
        return f"Required: {requirement}. " + " ".join(said) + tail
    satisfied = result.observed
    units = len(result.children)
    return (f"Required: {requirement}; but {satisfied} of the {units} "
            f"{node.level.plural if units != 1 else node.level.noun}{of} {'does' if satisfied == 1 else 'do'}.")
