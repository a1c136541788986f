"""BenchCLAMP's SMCalFlow grammar rebuilt from its own sources: the Lispress (plan) side, as a Corral grammar.

BenchCLAMP's CalFlow grammar (``domains/calflow/write_data.py`` and ``grammar.py`` in
``microsoft/semantic_parsing_with_constrained_lm``, §3.2 of the paper) is a synchronous grammar from a canonical
English utterance to Lispress: rules generated from the function signatures of ``types.csv`` and
``specialTypes.csv``, plus the hand-written ``.scfg`` files (enums, entities, quoted strings, "fluenter" shortcuts).
A model writes the plan side, so that is the side built here, the way ``induce_grammar`` builds it:

- one nonterminal per type, named as BenchCLAMP names it (``Constraint[Event]`` is ``constraint_event_``: lower
  case, each bracket an underscore), which is how the hand-written rules refer to the generated ones;
- a **function** row ``name,Return,arg: Type,...`` gives ``Return -> (name :arg Type ...)`` when ``name`` starts
  with an upper-case letter (named arguments, every one written, in the row's order) and ``(name Type ...)``
  otherwise (positional: ``?=``, ``refer``, ``andConstraint``). Optional arguments are separate rows
  (``EventAttendance`` has four);
- a **getter** ``Type.field`` gives ``(:field Type)``, and ``item`` gives ``(:item Dynamic)``;
- the **setters** ``Setter:Constraint[Event].subject`` (``specialTypes.csv``) give the record constructor
  ``(Constraint[Event] :subject … :start …)``: any of the type's fields, in any order, each any number of times,
  none at all included (BenchCLAMP's ``…_args`` recursion);
- **enums** (``#PersonName``, the weather properties) make a type known but give no rule: their values come from
  the ``.scfg`` files (``#(PersonName "…")``, ``#(DayOfWeek "MONDAY")``, ``#(WeatherProp "…")``);
- functions taking a type nothing produces are dropped until none is left (BenchCLAMP's ``remove_unused_types``).

Generic types: there are none to treat. ``types.csv`` lists every function once per instantiation seen in
SMCalFlow (``refer`` 23 times, ``?=`` 19 times, ``AlwaysTrueConstraint`` per type), so every nonterminal is a
ground type and the grammar's size is that of the files: no type variable is expanded, and nothing lets
``Constraint[T]`` stand for a ``T`` the files do not pair it with (sound, and as complete as the files).

Plan-side strings carry a leading space before each item (``" (Yield" " :output" unit ")"``), so the plan text of
``start`` is a space then canonical Lispress (one space between items, none inside brackets). The start rule here
is the grammar's derivative by that first space (each nonterminal a text can start with gets a copy without its
leading space; every other rule is shared), so the texts are exactly canonical Lispress. The gold programs here
(SMCalFlow 2.0 in the older form CLAMP used) have no ``let``, ``lambda`` or ``^Type`` annotations, and neither has
the grammar. What is changed from BenchCLAMP's files, and why:

- ``quoted`` (string contents) is one regex: one or more characters other than ``"``, ``\\`` and control
  characters, or the escapes ``\\"`` and ``\\\\``. BenchCLAMP's allows a bare backslash (``"a\\"`` does not read
  back) and control characters (not canonical), and no escaped quote, which one gold program has.
- ``(:item …)`` in ``fluenter.scfg`` lacks the leading space the other rules have (``:output(:item`` would not be
  canonical); it is added.
- ``AlwaysTrueConstraint[Constraint[List[Attendee]]`` in ``specialTypes.csv`` lacks its last bracket; it is added.
- Repeated alternatives (``entities.scfg`` and ``enum_wrappers.scfg`` share rules) are kept once; an alternative
  using a nonterminal that derives nothing would be dropped (none does).
- ``numbers="any"`` lets ``#(Number …)`` hold any unsigned decimal (``#(Number 100)``, ``#(Number 82019)``); the
  default, ``numbers="benchclamp"``, keeps the files' list (0–60, 90, halves to 9.5, years 2018–2024 and 2030).

What stays approximate is BenchCLAMP's own: setters allow repeated fields, and ``fluenter.scfg`` adds a few fixed
programs. A program is covered only if every function it calls, with its exact argument names and order, has a row
for the types it is used at. ``types.csv`` lists the signatures SMCalFlow's programs use (it looks drawn from the
data, validation turns included), so it covers nearly all of them: all of dev-100 and dev-200, and all but 17
(``numbers="any"``) or 26 (the default) of the 13,499 validation turns not flagged ``skip``. Those 17 use functions
the files lack (``and``, ``minBy``, ``inKilometersPerHour``, ``update``), ``(getIntraSalient
(Constraint[Constraint[DateTime]]))`` (the files type ``Constraint[Constraint[T]]`` as
``Constraint[CalflowIntension[Constraint[T]]]``), ``#(AttendeeType "Optional")`` (no values), ``do`` with more than
two steps, a top-level expression that is not ``Unit``, or a function at a type the files do not pair it with.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib.resources import files

from corral.grammars import Grammar
from corral.grammars.scfg import Alternative, Scfg, Symbol, productive, read_scfg, scfg_to_lark
from corral.jsonl import iter_jsonl

__all__ = ["BENCHCLAMP_GRAMMAR_FILE", "NUMBER_CHOICES", "benchclamp_lispress_grammar",
           "benchclamp_lispress_lark", "benchclamp_plan_rules", "prune_unused", "read_signatures", "signature_rules",
           "type_nonterminal", "without_leading_space"]

BENCHCLAMP_GRAMMAR_FILE = "benchclamp_calflow_grammar.jsonl.gz"
QUOTED = r'"([^"\\\x00-\x1f]|\\["\\])+"'
"""A canonical, non-empty Lispress string (what ``quoted`` writes on the plan side here)."""
ANY_NUMBER = r"(0|[1-9][0-9]*)(\.[0-9]+)?"
"""``number_entity`` with ``numbers="any"`` (after the plan side's leading space): an unsigned decimal."""
NUMBER_CHOICES = ("benchclamp", "any")
_FIXED_NAMES = {"AlwaysTrueConstraint[Constraint[List[Attendee]]": "AlwaysTrueConstraint[Constraint[List[Attendee]]]"}


def type_nonterminal(type_name: str) -> str:
    """BenchCLAMP's nonterminal for a type: ``Constraint[List[Attendee]]`` is ``constraint_list_attendee__``."""
    return type_name.strip().lower().replace("[", "_").replace("]", "_")


@dataclass(frozen=True)
class _Function:
    name: str
    args: tuple[tuple[str, str], ...]
    """(argument name, type) in the row's order."""
    named: bool


@dataclass(frozen=True)
class _Getter:
    object_type: str
    field: str


@dataclass(frozen=True)
class _Setter:
    type: str
    args: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class _Enum:
    name: str


_Typed = _Function | _Getter | _Setter | _Enum


@cache
def _sources() -> dict[str, str]:
    rows = iter_jsonl(files("corral.suites.clamp").joinpath("data", BENCHCLAMP_GRAMMAR_FILE))
    return {row["file"]: row["text"] for row in rows}


def _is_getter(name: str) -> bool:
    """BenchCLAMP's ``is_getter``: ``Event.start`` is a getter, ``Path.apply`` and ``List.Nil`` are functions."""
    return "." in name and not name.endswith(("apply", "construct", "?")) and name != "List.Nil"


def read_signatures(texts: Iterable[str]) -> dict[str, list[_Typed]]:
    """What produces each type, from ``types.csv``-style texts (BenchCLAMP's ``read_function_types``)."""
    types: dict[str, list[_Typed]] = {}
    setters: dict[str, dict[str, str]] = {}
    for text in texts:
        for row in csv.reader(io.StringIO(text)):
            if len(row) < 2:
                continue
            name, result, rest = _FIXED_NAMES.get(row[0], row[0]), row[1].strip(), [r for r in row[2:] if r]
            if name.startswith("Setter:"):
                field, kind = rest[-1].split(":")
                setters.setdefault(result, {})[field.strip()] = kind.strip()
                continue
            if _is_getter(name):
                object_type, field = name.split(".")
                typed: _Typed = _Getter(object_type, field)
            elif name == "item":  # the getter that does not know its object's type
                typed = _Getter(rest[0].split(":")[1].strip(), "item")
            elif (result.startswith("Lambda") and name != "Lambda.construct") or name.startswith("#"):
                typed = _Enum(name.lstrip("#"))
            else:
                args = tuple((a.split(":")[0].strip(), a.split(":")[1].strip()) for a in rest)
                typed = _Function(name, args, named=name[0].isupper())
            if typed not in types.setdefault(result, []):
                types[result].append(typed)
    for result, fields in setters.items():
        types.setdefault(result, []).append(_Setter(result, tuple(fields.items())))
    return types


def prune_unused(types: Mapping[str, Sequence[_Typed]]) -> dict[str, list[_Typed]]:
    """BenchCLAMP's ``remove_unused_types``, to a fixed point: a function or getter needing a type that nothing
    produces goes (and a type left with no producer with it); a setter loses such fields."""
    kept = {t: list(fs) for t, fs in types.items()}
    changed = True
    while changed:
        changed = False
        for t in list(kept):
            new: list[_Typed] = []
            for f in kept[t]:
                if isinstance(f, _Function) and any(kind not in kept for _, kind in f.args):
                    continue
                if isinstance(f, _Getter) and f.object_type not in kept:
                    continue
                if isinstance(f, _Setter):
                    f = _Setter(f.type, tuple((n, k) for n, k in f.args if k in kept))
                new.append(f)
            changed |= new != kept[t]
            if new:
                kept[t] = new
            else:
                del kept[t]
    return kept


def _lit(text: str) -> Symbol:
    return Symbol("literal", text)


def _name(text: str) -> Symbol:
    return Symbol("name", text)


def signature_rules(types: Mapping[str, Sequence[_Typed]]) -> dict[str, list[Alternative]]:
    """The plan side of BenchCLAMP's ``induce_grammar`` (leading spaces included), by nonterminal."""
    rules: dict[str, list[Alternative]] = {}

    def add(lhs: str, alternative: Sequence[Symbol]) -> None:
        rules.setdefault(lhs, [])
        if tuple(alternative) not in rules[lhs]:
            rules[lhs].append(tuple(alternative))

    for t, producers in types.items():
        lhs = type_nonterminal(t)
        for f in producers:
            if isinstance(f, _Function):
                body: list[Symbol] = [_lit(f" ({f.name}")]
                for arg, kind in f.args:
                    body += [_lit(f" :{arg}"), _name(type_nonterminal(kind))] if f.named else \
                        [_name(type_nonterminal(kind))]
                add(lhs, [*body, _lit(")")])
            elif isinstance(f, _Getter):
                add(lhs, [_lit(f" (:{f.field}"), _name(type_nonterminal(f.object_type)), _lit(")")])
            elif isinstance(f, _Setter):
                args = f"{lhs}_{type_nonterminal(f.type)}_args"
                for arg, kind in f.args:
                    add(args, [_lit(f" :{arg}"), _name(type_nonterminal(kind)), _name(args)])
                add(args, [])
                add(lhs, [_lit(f" ({f.type}"), _name(args), _lit(")")])
    return rules


def benchclamp_plan_rules(numbers: str = "benchclamp") -> dict[str, list[Alternative]]:
    """Every plan-side rule (generated and hand-written), as BenchCLAMP writes them, with the changes the module
    doc lists; ``start`` derives a space and then canonical Lispress."""
    if numbers not in NUMBER_CHOICES:
        raise ValueError(f"numbers is one of {', '.join(NUMBER_CHOICES)}, not {numbers!r}")
    sources = _sources()
    rules = signature_rules(prune_unused(read_signatures(
        sources[f"calflow_data/{name}"] for name in ("types.csv", "specialTypes.csv"))))
    scfg = read_scfg((file, text) for file, text in sources.items() if file.endswith(".scfg"))
    for lhs, alternatives in scfg.plan.items():
        for alternative in alternatives:
            first = alternative[0] if alternative else None
            if first is not None and first.kind == "literal" and first.text.startswith("("):
                alternative = (_lit(" " + first.text), *alternative[1:])  # (:item …) in fluenter.scfg
            if alternative not in rules.setdefault(lhs, []):
                rules[lhs].append(alternative)
    rules["quoted"] = [(Symbol("regex", QUOTED),)]
    if numbers == "any":
        rules["number_entity"] = [(_lit(" "), Symbol("regex", ANY_NUMBER))]
    for unused in ("nonquoteplus", "nonquotestar"):
        rules.pop(unused, None)
    return productive(rules)


def _nullable(rules: Mapping[str, Sequence[Alternative]]) -> set[str]:
    found: set[str] = set()
    changed = True
    while changed:
        changed = False
        for lhs, alternatives in rules.items():
            if lhs not in found and any(all(_empty_ok(s, found) for s in a) for a in alternatives):
                found.add(lhs)
                changed = True
    return found


def _empty_ok(symbol: Symbol, nullable: set[str]) -> bool:
    if symbol.repeat in ("?", "*"):
        return True
    return (symbol.kind == "literal" and not symbol.text) or (symbol.kind == "name" and symbol.text in nullable)


def without_leading_space(rules: Mapping[str, Sequence[Alternative]], start: str,
                          prefix: str = "nsp_") -> tuple[dict[str, list[Alternative]], str]:
    """The rules plus, for ``start`` and each nonterminal its texts can begin with, a ``prefix``-named copy whose
    texts are the original's that begin with a space, less that space (the derivative by " "); returns the rules
    and the copy of ``start``. A regex is taken to match one character or nothing that starts with a space (true
    of these rules: ``[^"]``, ``QUOTED``, ``ANY_NUMBER``). Used on ``start``, whose plan text is a space and then
    the program, it leaves the program."""
    out = {lhs: list(alternatives) for lhs, alternatives in rules.items()}
    nullable = _nullable(rules)
    taken = set(out)
    copies: dict[str, str] = {}
    todo: list[str] = []

    def copy_of(name: str) -> str:
        if name not in copies:
            candidate = prefix + name
            while candidate in taken:
                candidate = "_" + candidate
            copies[name] = candidate
            taken.add(candidate)
            todo.append(name)
        return copies[name]

    def derive(alternative: Alternative) -> list[Alternative]:
        found: list[Alternative] = []
        for k, symbol in enumerate(alternative):
            rest = alternative[k + 1:]
            again = (Symbol(symbol.kind, symbol.text, "*"),) if symbol.repeat in ("*", "+") else ()
            if symbol.kind == "literal" and symbol.text:
                if symbol.repeat and len(symbol.text) > 1:
                    raise ValueError(f"cannot strip a space from a repeated literal {symbol.text!r}")
                if symbol.text[0] == " ":
                    tail = (_lit(symbol.text[1:]),) if len(symbol.text) > 1 else ()
                    found.append((*tail, *again, *rest))
            elif symbol.kind == "regex" and re.fullmatch(symbol.text, " "):  # (a one-character class)
                found.append((*again, *rest))
            elif symbol.kind == "name":
                found.append((_name(copy_of(symbol.text)), *again, *rest))
            if not _empty_ok(symbol, nullable):
                break
        return found

    first = copy_of(start)
    while todo:
        name = todo.pop()
        out[copies[name]] = [d for alternative in rules[name] for d in derive(alternative)]
    return productive(out), first


_PIECE = re.compile(r'[^ ()"]+|.', re.DOTALL)


@cache
def benchclamp_lispress_lark(numbers: str = "benchclamp") -> str:
    """The grammar's Lark source (see the module doc): canonical Lispress, no leading space.

    Literals are written a Lispress piece at a time (a name such as ``Constraint[Event]`` or ``:output`` whole,
    each space, bracket and quote alone): a name always ends at one of those characters, so the engine's greedy
    lexer never has to take back a name, and the grammar compiles and matches several times faster than one
    written a character at a time (``scfg_to_lark``'s default, which the SQL grammar needs)."""
    rules, start = without_leading_space(benchclamp_plan_rules(numbers), "start")
    return scfg_to_lark(Scfg(rules, rules, {}), "plan", start=start, split=_PIECE.findall)


@cache
def benchclamp_lispress_grammar(numbers: str = "benchclamp") -> Grammar:
    """BenchCLAMP's SMCalFlow grammar, Lispress side, from ``types.csv``, ``specialTypes.csv`` and the ``.scfg``
    files (cached per ``numbers``, one of ``NUMBER_CHOICES``)."""
    return Grammar.lark(benchclamp_lispress_lark(numbers),
                        description=f"BenchCLAMP SMCalFlow grammar, Lispress side (numbers={numbers})")
