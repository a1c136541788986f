"""Small pieces of English shared by instructions and feedback: ordinals, plurals, names of selections."""

from __future__ import annotations

from dataclasses import dataclass, replace

from corral.text import Level

from ._nodes import Pos, Quantifier, Rel, Selector, TextRef, UnitRef


def ordinal(n: int) -> str:
    """1 → '1st', 22 → '22nd', 13 → '13th'."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def position(index: int) -> str:
    """A 1-based or negative index as an English position: '3rd', 'last', 'second-to-last', '3rd-to-last'."""
    if index > 0:
        return ordinal(index)
    if index == -1:
        return "last"
    if index == -2:
        return "second-to-last"
    return f"{ordinal(-index)}-to-last"


def plural(n: int, noun: str, plural_form: str | None = None) -> str:
    """'1 word', '2 words', '0 words'."""
    return f"{n} {noun if n == 1 else (plural_form or noun + 's')}"


def quote(value: str) -> str:
    """A string value as shown to people: single quotes unless it contains one."""
    return f'"{value}"' if "'" in value and '"' not in value else f"'{value}'"


def join_and(items: list[str], conj: str = "and") -> str:
    if len(items) <= 1:
        return "".join(items)
    if len(items) == 2:
        return f"{items[0]} {conj} {items[1]}"
    return f"{', '.join(items[:-1])}, {conj} {items[-1]}"


NUMERIC_BOUND = {
    Rel.EQ: "exactly",
    Rel.NE: "a number other than",
    Rel.LT: "fewer than",
    Rel.GT: "more than",
    Rel.LE: "at most",
    Rel.GE: "at least",
}


def bound(rel: Rel, value: int) -> str:
    """'exactly 10', 'at least 3', ..."""
    return f"{NUMERIC_BOUND[rel]} {value}"


@dataclass(frozen=True)
class Phrasing:
    """What English needs to know about where a constraint sits.

    ``text_level`` is the generation level (what ``text`` is called); ``unit_name`` names the unit a for-each
    binds: "each sentence" in instructions, "sentence 2" in feedback about one unit.
    """

    text_level: Level | None = None
    unit_level: Level | None = None
    unit_name: str | None = None
    unit_plural: bool = False

    def text_noun(self) -> str:
        return self.text_level.noun if self.text_level else "text"

    def for_unit(self, level: Level, name: str, is_plural: bool = False) -> Phrasing:
        return replace(self, unit_level=level, unit_name=name, unit_plural=is_plural)


def quantified(quantifier: Quantifier, k: int | None, level: Level) -> tuple[str, bool]:
    """The subject for a for-each: ('every sentence', False), ('at least 2 sentences', True), ..."""
    if quantifier is Quantifier.ALL:
        return f"every {level.noun}", False
    if quantifier is Quantifier.ANY:
        return f"at least one {level.noun}", False
    word = {"at_least": "at least", "at_most": "at most", "exactly": "exactly"}[quantifier.value]
    assert k is not None
    return f"{word} {plural(k, level.noun, level.plural)}", k != 1


def selection(selector: Selector, ph: Phrasing) -> str:
    """A noun phrase for what a selector picks: 'the sentence', 'the 3rd word', 'the last word of sentence 2'."""
    if isinstance(selector, TextRef):
        return f"the {ph.text_noun()}"
    if isinstance(selector, UnitRef):
        return ph.unit_name or "the unit"
    assert isinstance(selector, Pos)
    head = f"the {position(selector.index)} {selector.level.noun}"
    if isinstance(selector.of, TextRef):
        return head
    return f"{head} of {selection(selector.of, ph)}"


def is_plural_subject(selector: Selector, ph: Phrasing) -> bool:
    return isinstance(selector, UnitRef) and ph.unit_plural


def capitalize(sentence: str) -> str:
    return sentence[:1].upper() + sentence[1:]
