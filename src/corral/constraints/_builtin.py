"""The built-in base constraints: ``count`` and ``match`` (COLLIE's Eq. 3) and ``regex`` (Corral's).

Each is registered as a ``BaseKind``; nothing outside this module knows their details.
"""

from __future__ import annotations

import operator
from collections.abc import Callable

from corral.text import Level

from ._budget import BudgetExceeded
from ._check import Context, Result, compile_selector
from ._english import (
    Phrasing,
    bound,
    capitalize,
    is_plural_subject,
    join_and,
    plural,
    quote,
    selection,
)
from ._kinds import BaseKind, Call, register_kind
from ._nodes import Count, Match, Pos, Regex, Rel, Selector, TextRef, UnitRef
from ._strings import encode_string

_HOLDS: dict[Rel, Callable[[int, int], bool]] = {
    Rel.EQ: operator.eq,
    Rel.NE: operator.ne,
    Rel.LT: operator.lt,
    Rel.GT: operator.gt,
    Rel.LE: operator.le,
    Rel.GE: operator.ge,
}

_CASE = " case-sensitive"


# ------------------------------------------------------------------------------------------------ count
def _count_in(node: Count, unit: tuple[str, int, int], ctx: Context) -> int:
    if node.string is None:
        return ctx.seg.count(node.level, unit)
    target = ctx.normalize(node.string, node.case_sensitive)
    return ctx.normalized(node.level, unit, node.case_sensitive).count(target)


def _evaluate_count(node: Count, ctx: Context) -> Result:
    parent, parent_level = ctx.resolve(node.of)
    expected = bound(node.rel, node.value)
    if parent is None:
        return Result(node, False, None, expected)
    holds = _HOLDS[node.rel]
    if node.per is not None and node.per != parent_level:
        units = ctx.seg.units(node.per, parent)
        counts = tuple(_count_in(node, unit, ctx) for unit in units)
        failing = tuple((units[i][1], units[i][2]) for i, n in enumerate(counts) if not holds(n, node.value))
        return Result(node, not failing, counts, expected, failing)
    n = _count_in(node, parent, ctx)
    return Result(node, holds(n, node.value), n, expected, ((parent[1], parent[2]),))


_STRING, _CHARS, _UNITS = 0, 1, 2  # what a count counts: strings among the units, characters, units


def _compile_count(node: Count) -> Callable[[Context], Result]:
    """``_evaluate_count`` with the node's constants worked out once (default arguments: no closure cells)."""
    selector = compile_selector(node.of)

    def evaluate(ctx: Context, node: Count = node, of: Callable = selector,
                 expected: str = bound(node.rel, node.value), holds: Callable[[int, int], bool] = _HOLDS[node.rel],
                 what: int = _STRING if node.string is not None else _CHARS if node.level is Level.CHAR else _UNITS,
                 new: Callable = tuple.__new__) -> Result:
        parent, parent_level = of(ctx)
        if parent is None:
            return new(Result, (node, False, None, expected, (), (), None))
        level, value = node.level, node.value
        if what == _STRING:
            target = ctx.seg.profile.normalize(node.string, node.case_sensitive)
        if node.per is not None and node.per != parent_level:
            units = ctx.seg.units(node.per, parent)
            if what == _CHARS:
                counts = tuple([len(unit[0]) for unit in units])
            elif what == _UNITS:
                count = ctx.seg.count
                counts = tuple([count(level, unit) for unit in units])
            else:
                normalized = ctx.normalized
                counts = tuple([normalized(level, unit, node.case_sensitive).count(target) for unit in units])
            failing = tuple((units[i][1], units[i][2]) for i, n in enumerate(counts) if not holds(n, value))
            return new(Result, (node, not failing, counts, expected, failing, (), None))
        if what == _CHARS:
            n = len(parent[0])
        elif what == _UNITS:
            n = ctx.seg.count(level, parent)
        else:
            n = ctx.normalized(level, parent, node.case_sensitive).count(target)
        return new(Result, (node, holds(n, value), n, expected, ((parent[1], parent[2]),), (), None))

    return evaluate


def _count_text(node: Count) -> str:
    args = [str(node.of), node.level.value]
    if node.string is not None:
        args.append(encode_string(node.string))
    elif node.per is not None:
        args.append(node.per.value)
    case = _CASE if node.case_sensitive else ""
    return f"count({', '.join(args)}) {node.rel.value} {node.value}{case}"


def _count_from_call(call: Call) -> Count:
    args = call.args
    if not 2 <= len(args) <= 3:
        raise ValueError("count takes (text, level) or (text, level, 'string' | per_level)")
    of, level = args[0], args[1]
    if not isinstance(of, TextRef | UnitRef | Pos):
        raise ValueError("count's first argument must be text, unit or pos(...)")
    if not isinstance(level, Level):
        raise ValueError("count's second argument must be a level")
    string = per = None
    if len(args) == 3:
        if isinstance(args[2], Level):
            per = args[2]
        elif isinstance(args[2], str):
            string = args[2]
        else:
            raise ValueError("count's third argument must be a quoted string or a level")
    if call.rel is None or not isinstance(call.value, int):
        raise ValueError("count must be compared with a whole number, e.g. count(text, word) == 10")
    return Count(of, level, call.rel, call.value, string=string, per=per, case_sensitive=call.case_sensitive)


def _units_phrase(node: Count, n: int | str) -> str:
    """'10 words', "3 'v' characters", "the word 'the' 2 times"."""
    if node.string is None:
        return f"{n} {node.level.noun if n == 1 else node.level.plural}"
    if node.level is Level.CHAR:
        return f"{n} {quote(node.string)} {'character' if n == 1 else 'characters'}"
    return f"the {node.level.noun} {quote(node.string)} {n} {'time' if n == 1 else 'times'}"


def _presence(node: Count) -> str | None:
    """'contain'/'not contain' for counts that only ask whether a string occurs."""
    if node.string is None:
        return None
    if (node.rel is Rel.EQ and node.value == 0) or (node.rel is Rel.LT and node.value == 1) or (
        node.rel is Rel.LE and node.value == 0
    ):
        return "absent"
    if (node.rel is Rel.GT and node.value == 0) or (node.rel is Rel.GE and node.value == 1) or (
        node.rel is Rel.NE and node.value == 0
    ):
        return "present"
    return None


def _count_requirement(node: Count, plural_subject: bool) -> str:
    """The predicate: 'has exactly 10 words', 'does not use the word 'the'', 'have at least 2 sentences'."""
    has = "have" if plural_subject else "has"
    presence = _presence(node)
    thing = f"the {node.level.noun} {quote(node.string)}" if node.string is not None else ""
    if node.level is Level.CHAR and node.string is not None:
        thing = f"the character {quote(node.string)}"
    if presence == "present":
        return f"{'contain' if plural_subject else 'contains'} {thing}"
    if presence == "absent":
        return f"{'do' if plural_subject else 'does'} not contain {thing}"
    if node.string is None:
        noun = node.level.noun if node.value == 1 else node.level.plural
        return f"{has} {bound(node.rel, node.value)} {noun}"
    if node.level is Level.CHAR:
        noun = "character" if node.value == 1 else "characters"
        return f"{has} {bound(node.rel, node.value)} {quote(node.string)} {noun}"
    return f"{'contain' if plural_subject else 'contains'} {thing} {bound(node.rel, node.value)} " + (
        "time" if node.value == 1 else "times"
    )


def _count_clause(node: Count, ph: Phrasing) -> str:
    if node.per is not None and node.per != _level_of(node.of, ph):
        of = "" if isinstance(node.of, TextRef) else f" of {selection(node.of, ph)}"
        return f"every {node.per.noun}{of} {_count_requirement(node, False)}"
    return f"{selection(node.of, ph)} {_count_requirement(node, is_plural_subject(node.of, ph))}"


def _level_of(selector: Selector, ph: Phrasing) -> Level | None:
    if isinstance(selector, TextRef):
        return ph.text_level
    if isinstance(selector, UnitRef):
        return ph.unit_level
    return selector.level


def _count_failure(results: list[Result], ph: Phrasing) -> str:
    first: Count = results[0].constraint  # type: ignore[assignment]
    if results[0].observed is None:
        return f"There is no {selection(first.of, ph).removeprefix('the ')}; it must exist and " + (
            f"{_count_requirement(first, True)}."
        )
    if first.per is not None and first.per != _level_of(first.of, ph):
        return _per_unit_failure(results[0], ph)
    seen = join_and([_units_phrase(r.constraint, r.observed) for r in results])  # type: ignore[arg-type]
    presence = _presence(first)
    if presence == "absent":
        used = join_and([f"{quote(r.constraint.string)} ({plural(r.observed, 'time')})"  # type: ignore[attr-defined]
                         for r in results])
        noun = _noun_for(first, len(results))
        lead = (f"You wrote a {ph.text_noun()} containing" if isinstance(first.of, TextRef) and ph.text_level
                else f"{capitalize(selection(first.of, ph))} contains")
        return f"{lead} the {noun} {used}; it must not contain {'it' if len(results) == 1 else 'them'}."
    elif presence == "present" and all(r.observed == 0 for r in results):
        words = join_and([quote(r.constraint.string) for r in results])  # type: ignore[attr-defined]
        noun = _noun_for(first, len(results))
        lead = f"You wrote a {ph.text_noun()}" if isinstance(first.of, TextRef) and ph.text_level else (
            capitalize(selection(first.of, ph)))
        verb = "without" if lead.startswith("You wrote") else "does not contain"
        return f"{lead} {verb} the {noun} {words}; it must contain {'it' if len(results) == 1 else 'them'}."
    else:
        values = join_and([str(r.constraint.value) for r in results])  # type: ignore[attr-defined]
        word = bound(first.rel, 0).rsplit(" ", 1)[0]
        must = f"it must have {word} {values}"
    if isinstance(first.of, TextRef):
        if ph.text_level is not None:
            return f"You wrote a {ph.text_level.noun} with {seen}; {must}."
        return f"Your text has {seen}; {must}."
    return f"{capitalize(selection(first.of, ph))} has {seen}; {must}."


def _noun_for(node: Count, how_many: int) -> str:
    if node.level is Level.CHAR:
        return "character" if how_many == 1 else "characters"
    return node.level.noun if how_many == 1 else node.level.plural


def _per_unit_failure(result: Result, ph: Phrasing) -> str:
    node: Count = result.constraint  # type: ignore[assignment]
    per = node.per
    assert per is not None
    counts: tuple[int, ...] = result.observed
    holds = _HOLDS[node.rel]
    bad = [(i, n) for i, n in enumerate(counts, start=1) if not holds(n, node.value)]
    of = "" if isinstance(node.of, TextRef) else f" of {selection(node.of, ph)}"
    shown = [f"{per.noun} {i} has {_units_phrase(node, n)}" for i, n in bad[:6]]
    if len(bad) > 6:
        more = len(bad) - 6
        shown.append(f"{more} more {per.plural} fail" if more > 1 else f"1 more {per.noun} fails")
    return f"Every {per.noun}{of} must {_count_requirement(node, True)}, but {join_and(shown)}."


def _count_merge_key(node: Count) -> object:
    if node.string is None or node.per is not None:
        return None
    return ("count", node.of, node.level, node.rel, _presence(node))


# ------------------------------------------------------------------------------------------------ match
def _compare(rel: Rel, seen: str, target: str) -> bool:
    if rel is Rel.EQ:
        return seen == target
    if rel is Rel.NE:
        return seen != target
    if rel is Rel.CONTAINS:
        return target in seen
    if rel is Rel.STARTSWITH:
        return seen.startswith(target)
    return seen.endswith(target)


def _evaluate_match(node: Match, ctx: Context) -> Result:
    unit, _ = ctx.resolve(node.of)
    if unit is None:
        return Result(node, node.rel is Rel.NE, None, quote(node.value))
    seen = ctx.normalize(unit[0], node.case_sensitive)
    target = ctx.normalize(node.value, node.case_sensitive)
    return Result(node, _compare(node.rel, seen, target), unit[0], quote(node.value), ((unit[1], unit[2]),))


def _compile_match(node: Match) -> Callable[[Context], Result]:
    """``_evaluate_match`` with the node's constants worked out once (default arguments: no closure cells)."""
    selector = compile_selector(node.of)

    def evaluate(ctx: Context, node: Match = node, of: Callable = selector,
                 expected: str = quote(node.value), new: Callable = tuple.__new__) -> Result:
        unit = of(ctx)[0]
        if unit is None:
            return new(Result, (node, node.rel is Rel.NE, None, expected, (), (), None))
        normalize = ctx.seg.profile.normalize
        seen = normalize(unit[0], node.case_sensitive)
        return new(Result, (node, _compare(node.rel, seen, normalize(node.value, node.case_sensitive)), unit[0],
                            expected, ((unit[1], unit[2]),), (), None))

    return evaluate


def _match_text(node: Match) -> str:
    case = _CASE if node.case_sensitive else ""
    return f"{node.of} {node.rel.value} {encode_string(node.value)}{case}"


_MATCH_VERB = {
    Rel.EQ: ("is", "are", "be"),
    Rel.NE: ("is not", "are not", "not be"),
    Rel.CONTAINS: ("contains", "contain", "contain"),
    Rel.STARTSWITH: ("starts with", "start with", "start with"),
    Rel.ENDSWITH: ("ends with", "end with", "end with"),
}


def _match_clause(node: Match, ph: Phrasing) -> str:
    singular, plural_verb, _ = _MATCH_VERB[node.rel]
    verb = plural_verb if is_plural_subject(node.of, ph) else singular
    return f"{selection(node.of, ph)} {verb} {quote(node.value)}"


def _match_failure(results: list[Result], ph: Phrasing) -> str:
    result = results[0]
    node: Match = result.constraint  # type: ignore[assignment]
    must = _MATCH_VERB[node.rel][2]
    what = selection(node.of, ph)
    if result.observed is None:
        return f"There is no {what.removeprefix('the ')}; it must {must} {quote(node.value)}."
    return f"{capitalize(what)} is {quote(_clip(result.observed))}; it must {must} {quote(node.value)}."


def _clip(value: str, limit: int = 80) -> str:
    return value if len(value) <= limit else value[: limit - 1] + "…"


# ------------------------------------------------------------------------------------------------ regex
def _evaluate_regex(node: Regex, ctx: Context) -> Result:
    import regex

    unit, _ = ctx.resolve(node.of)
    if unit is None:
        return Result(node, False, None, f"a match of /{node.pattern}/")
    left = ctx.meter.seconds_left()
    try:  # one deadline for the whole check: a regex over many units shares it
        found = regex.search(node.pattern, unit[0], timeout=left if left != float("inf") else None)
    except TimeoutError:
        raise BudgetExceeded(f"/{_clip(node.pattern, 40)}/ took more than the check's time budget") from None
    spans = ((unit[1] + found.start(), unit[1] + found.end()),) if found else ()
    return Result(node, found is not None, found.group(0) if found else unit[0], f"a match of /{node.pattern}/",
                  spans)


def _regex_from_call(call: Call) -> Regex:
    if len(call.args) != 2 or not isinstance(call.args[0], TextRef | UnitRef | Pos) or not isinstance(
        call.args[1], str
    ):
        raise ValueError("regex takes (text | unit | pos(...), 'pattern')")
    if call.rel is not None:
        raise ValueError("regex(...) is a condition by itself; it takes no relation")
    return Regex(call.args[0], call.args[1])


def _regex_failure(results: list[Result], ph: Phrasing) -> str:
    node: Regex = results[0].constraint  # type: ignore[assignment]
    what = selection(node.of, ph)
    if results[0].observed is None:
        return f"There is no {what.removeprefix('the ')}; it must match the pattern /{node.pattern}/."
    return f"{capitalize(what)} does not match the pattern /{node.pattern}/."


register_kind(BaseKind(
    name="count", node=Count, evaluate=_evaluate_count, to_text=_count_text, clause=_count_clause,
    failure=_count_failure, from_call=_count_from_call, merge_key=_count_merge_key, compile=_compile_count,
))
register_kind(BaseKind(
    name="match", node=Match, evaluate=_evaluate_match, to_text=_match_text, clause=_match_clause,
    failure=_match_failure, compile=_compile_match,
))
register_kind(BaseKind(
    name="regex", node=Regex, evaluate=_evaluate_regex, to_text=lambda n: f"regex({n.of}, "
    f"{encode_string(n.pattern)})", clause=lambda n, ph: f"{selection(n.of, ph)} matches the pattern "
    f"/{n.pattern}/", failure=_regex_failure, from_call=_regex_from_call,
))

