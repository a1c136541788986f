"""Rendering: a constraint as a fluent English instruction, composed from its typed tree.

Each base kind says its own clause (``the 3rd word is 'soft'``); this module composes clauses for
and/or/not/for-each and turns clauses about the whole text into "with ..." phrases, merging siblings that read
better together ("where the 4th, 8th and 11th words are 'a', 'b' and 'c', respectively"; "between 11 and 15
words").
"""

from __future__ import annotations

from corral.text import Level

from ._english import Phrasing, join_and, ordinal, quantified, quote, selection
from ._kinds import kind_of
from ._nodes import And, Constraint, Count, Expr, ForEach, Match, Not, Or, Pos, Rel, TextRef


def render(constraint: Constraint | Expr) -> str:
    """The instruction for ``constraint``.

    Example:
        >>> from corral import parse
        >>> render(parse("sentence: count(text, word, sentence) == 10 and pos(text, word, 3) == 'soft'"))
        "Please generate a sentence with exactly 10 words, where the 3rd word is 'soft'."
    """
    if not isinstance(constraint, Constraint):
        constraint = Constraint(constraint)
    ph = Phrasing(text_level=constraint.level)
    noun = constraint.level.noun if constraint.level else "text"
    requirements = requirement_list(constraint.body, ph)
    note = " Count every character, spaces and punctuation included." if _counts_text_chars(constraint) else ""
    return f"Please generate a {noun} {_join_requirements(requirements)}.{note}"


def _counts_text_chars(constraint: Constraint) -> bool:
    """Whether the characters of a whole sentence or larger are counted (say that spaces count)."""
    if constraint.level is None or constraint.level.rank <= Level.WORD.rank:
        return False
    stack: list[Expr] = [constraint.body]
    while stack:
        node = stack.pop()
        if isinstance(node, Count) and node.level is Level.CHAR and node.string is None and isinstance(
            node.of, TextRef
        ) and node.per in (None, constraint.level):
            return True
        stack.extend(getattr(node, "parts", ()))
    return False


_LEADS = ("with ", "where ", "containing ", "without ", "that ")


def _join_requirements(items: list[str]) -> str:
    """Join phrases, saying a repeated lead once: 'with 10 words and 3 'a' characters, where ...'."""
    runs: list[list[str]] = []
    lead_of_run: list[str] = []
    for item in items:
        lead = next((lead for lead in _LEADS if item.startswith(lead)), "")
        if runs and lead and lead == lead_of_run[-1]:
            runs[-1].append(item[len(lead):])
        else:
            runs.append([item])
            lead_of_run.append(lead)
    return ", ".join(join_and(run) for run in runs)


def requirement_list(node: Expr, ph: Phrasing) -> list[str]:
    """The requirements a node adds to "Please generate a sentence ...", one phrase each."""
    if isinstance(node, And):
        return [phrase for group in _merged(list(node.parts), ph) for phrase in group]
    return [requirement(node, ph)]


def requirement(node: Expr, ph: Phrasing) -> str:
    if isinstance(node, And):
        return _join_requirements(requirement_list(node, ph))
    if isinstance(node, Or | Not):
        return "where " + clause(node, ph)
    if isinstance(node, Count) and isinstance(node.of, TextRef) and (node.per is None or node.per == ph.text_level):
        verb_phrase = clause(node, ph).removeprefix(f"the {ph.text_noun()} ")
        return _as_with(verb_phrase)
    if isinstance(node, Match) and isinstance(node.of, TextRef):
        return "that " + clause(node, ph).removeprefix(f"the {ph.text_noun()} ")
    return "where " + clause(node, ph)


def _as_with(verb_phrase: str) -> str:
    """'has exactly 10 words' → 'with exactly 10 words'; 'contains the word x' → 'containing the word x'."""
    if verb_phrase.startswith("has "):
        return "with " + verb_phrase[4:]
    if verb_phrase.startswith("contains "):
        return "containing " + verb_phrase[9:]
    if verb_phrase.startswith("does not contain "):
        return "without " + verb_phrase[17:]
    return "that " + verb_phrase


def clause(node: Expr, ph: Phrasing) -> str:
    """A clause with its own subject: 'the 3rd word is 'soft'', 'every sentence has at least 3 words'."""
    kind = kind_of(node)
    if kind is not None:
        return kind.clause(node, ph)
    if isinstance(node, And):
        return join_and([clause(part, ph) for part in node.parts])
    if isinstance(node, Or):
        return "either " + " or ".join(clause(part, ph) for part in node.parts)
    if isinstance(node, Not):
        return f"it is not the case that {clause(node.part, ph)}"
    assert isinstance(node, ForEach)
    subject, is_plural = quantified(node.quantifier, node.k, node.level)
    if not isinstance(node.of, TextRef):
        subject = f"{subject} of {selection(node.of, ph)}"
    return clause(node.body, ph.for_unit(node.level, subject, is_plural))


# ------------------------------------------------------------------------------------------------ merges
def _merged(parts: list[Expr], ph: Phrasing) -> list[list[str]]:
    out: list[list[str]] = []
    i = 0
    while i < len(parts):
        for merge in (_merge_between, _merge_positions, _merge_unit_ends, _merge_presence):
            taken, phrase = merge(parts, i, ph)
            if taken:
                out.append([phrase])
                i += taken
                break
        else:
            out.append([requirement(parts[i], ph)])
            i += 1
    return out


def _merge_between(parts: list[Expr], i: int, ph: Phrasing) -> tuple[int, str]:
    """count(..) >= lo and count(..) <= hi on the same units → 'between lo and hi'."""
    if i + 1 >= len(parts):
        return 0, ""
    a, b = parts[i], parts[i + 1]
    if not (isinstance(a, Count) and isinstance(b, Count)) or a.string or b.string:
        return 0, ""
    if (a.of, a.level, a.per) != (b.of, b.level, b.per) or {a.rel, b.rel} != {Rel.GE, Rel.LE}:
        return 0, ""
    lo, hi = (a.value, b.value) if a.rel is Rel.GE else (b.value, a.value)
    if a.per is not None and a.per != ph.text_level and isinstance(a.of, TextRef):
        return 2, f"where every {a.per.noun} has between {lo} and {hi} {a.level.plural}"
    if isinstance(a.of, TextRef):
        return 2, f"with between {lo} and {hi} {a.level.plural}"
    return 2, f"where {selection(a.of, ph)} has between {lo} and {hi} {a.level.plural}"


def _run(parts: list[Expr], i: int, key) -> list[Match]:
    run: list[Match] = []
    first = key(parts[i])
    if first is None:
        return run
    for part in parts[i:]:
        if key(part) != first:
            break
        run.append(part)  # type: ignore[arg-type]
    return run


def _position_key(part: Expr) -> object:
    if isinstance(part, Match) and part.rel is Rel.EQ and isinstance(part.of, Pos) and isinstance(
        part.of.of, TextRef
    ):
        return (part.of.level, part.case_sensitive)
    return None


def _merge_positions(parts: list[Expr], i: int, ph: Phrasing) -> tuple[int, str]:
    """pos(text, word, 4) == a and pos(text, word, 8) == b → 'the 4th and 8th words are a and b, respectively'."""
    run = _run(parts, i, _position_key)
    if len(run) < 2:
        return 0, ""
    level = run[0].of.level  # type: ignore[union-attr]
    places = join_and([selection(m.of, ph).removeprefix("the ").rsplit(" ", 1)[0] for m in run])
    values = join_and([quote(m.value) for m in run])
    return len(run), f"where the {places} {level.plural} are {values}, respectively"


def _unit_end_key(part: Expr) -> object:
    if (isinstance(part, Match) and part.rel is Rel.EQ and isinstance(part.of, Pos)
            and isinstance(part.of.of, Pos) and isinstance(part.of.of.of, TextRef)
            and part.of.index in (1, -1) and part.of.of.index > 0):
        return (part.of.of.level, part.of.level, part.of.index, part.case_sensitive)
    return None


def _merge_unit_ends(parts: list[Expr], i: int, ph: Phrasing) -> tuple[int, str]:
    """The last word of sentence 1 == a, of sentence 2 == b → 'the 1st and 2nd sentences end with ...'."""
    run = _run(parts, i, _unit_end_key)
    if len(run) < 2:
        return 0, ""
    outer, inner, index = run[0].of.of.level, run[0].of.level, run[0].of.index  # type: ignore[union-attr]
    places = join_and([ordinal(m.of.of.index) for m in run])  # type: ignore[union-attr]
    verb = "end" if index == -1 else "begin"
    values = join_and([quote(m.value) for m in run])
    return len(run), f"where the {places} {outer.plural} {verb} with the {inner.plural} {values}, respectively"




def _presence_key(part: Expr) -> object:
    if isinstance(part, Count) and isinstance(part.of, TextRef) and part.string is not None and part.per is None:
        if part.rel is Rel.GT and part.value == 0:
            return (part.level, part.case_sensitive, True)
        if part.rel is Rel.EQ and part.value == 0:
            return (part.level, part.case_sensitive, False)
    return None


def _merge_presence(parts: list[Expr], i: int, ph: Phrasing) -> tuple[int, str]:
    """count(text, word, 'a') > 0 and count(text, word, 'b') > 0 → "containing the words 'a' and 'b'"."""
    run = _run(parts, i, _presence_key)
    if len(run) < 2:
        return 0, ""
    level, _, present = _presence_key(run[0])  # type: ignore[misc]
    values = join_and([quote(c.string) for c in run])  # type: ignore[attr-defined]
    noun = "characters" if level is Level.CHAR else level.plural
    return len(run), f"{'containing' if present else 'without'} the {noun} {values}"
