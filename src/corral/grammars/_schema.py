"""Compile a JSON Schema into a grammar for JSON, YAML or XML output, and say what decoding enforces.

JSON output is llguidance's own JSON Schema compiler (``Grammar.json_schema``); ``enforcement(schema, "json")``
reports what that compiler ignores or enforces unsoundly (found by probing it, see docs/schema-grammars.md).
YAML and XML output are Lark grammars Corral generates: the schema is *lowered* to a small value language (this
module: ``Node`` of alternatives ``Const``, ``Str``, ``Int``, ``Float``, ``Obj``, ``Arr``) and each output writes
that language in its own syntax (``_schema_yaml``, ``_schema_xml``).

Soundness is the rule: every text the grammar accepts parses (``corral.schema``'s sample parsers) to a value
valid against the schema, unless ``enforcement(...).after`` lists a constraint decoding leaves unchecked. To get
there the lowering may *narrow* (fixed property order, no extra properties unless ``additionalProperties`` is a
schema, ``if``/``then`` taken as both, bounded digits): narrowing never admits an invalid value. A schema that
cannot be lowered at all raises ``NotExpressible`` naming the schema path and keyword.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache
from itertools import product
from typing import Any, Literal

from ._compile import NotExpressible
from ._grammar import Grammar, GrammarError, _check_schema
from ._schema_bounds import NOTES, bounded
from ._schema_json_plan import (
    JSON_FORMATS_EXACT,
    JSON_FORMATS_UNSOUND,
    JSON_IGNORED,
    JsonPlan,
    compact,
    json_plan,
    llg_error,
)

Output = Literal["json", "yaml", "xml"]
OUTPUTS: tuple[Output, ...] = ("json", "yaml", "xml")

ANY_DEPTH = 2
"""How deep an untyped value (``{}``, a free ``items`` or ``additionalProperties``) may nest in YAML and XML."""
MAX_COMBINATIONS = 256
"""``allOf`` over ``anyOf`` branches multiplies out; beyond this many alternatives a schema is refused."""
MAX_NESTING = 64
MULTIPLES = 500
MAX_EXCLUDED = 40
"""A fractional ``multipleOf`` is enumerated: this many multiples at most (from a bound, or -100 to 400 times)."""
MAX_UNIQUE_VALUES = 60
"""``uniqueItems`` is exact when the items are at most this many constants (one bit each in a parametric rule)."""
KEY_CHARS = 31
"""Extra property names (``additionalProperties``) are identifiers of at most 1 + this many characters."""

ANNOTATIONS = frozenset({
    "$schema", "$id", "$anchor", "$dynamicAnchor", "$comment", "$defs", "definitions", "$vocabulary", "title",
    "description", "default", "examples", "deprecated", "readOnly", "writeOnly", "contentEncoding",
    "contentMediaType", "contentSchema",
})  # fmt: skip
"""Keywords that never make a value invalid (2020-12): neither enforced nor reported."""

ASSERTIONS = frozenset({
    "type", "enum", "const", "properties", "required", "additionalProperties", "patternProperties",
    "propertyNames", "minProperties", "maxProperties", "dependentRequired", "dependentSchemas", "dependencies",
    "unevaluatedProperties", "items", "prefixItems", "additionalItems", "contains", "minContains",
    "maxContains", "minItems", "maxItems", "uniqueItems", "unevaluatedItems", "minLength", "maxLength",
    "pattern", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "$ref",
    "$dynamicRef", "allOf", "anyOf", "oneOf", "not", "if", "then", "else",
})  # fmt: skip
"""The keywords ``enforcement`` classifies (every draft 2020-12 keyword that can reject a value)."""


@dataclass(frozen=True)
class Enforcement:
    """What decoding with ``compile_schema(schema, output)`` guarantees.

    ``exact``: the schema's keywords every accepted text satisfies. ``after``: ``(schema path, keyword, reason)``
    for each constraint only a validator after decoding can check (the path is a JSON pointer fragment such as
    ``#/properties/tags``; the keyword may be an implied one, e.g. ``additionalProperties`` left at its default).
    A text accepted by the grammar is valid whenever ``after`` is empty.
    """

    exact: tuple[str, ...]
    after: tuple[tuple[str, str, str], ...]

    @property
    def sound(self) -> bool:
        return not self.after


# ================================================================================================== public API
def compile_schema(schema: dict[str, Any] | bool, output: Output, bounded: bool = False) -> Grammar:
    """A grammar whose texts are ``output`` (json, yaml or xml) values valid against ``schema``.

    Raises ``GrammarError`` for an invalid schema and ``NotExpressible`` (one line: path and keyword) for one
    no grammar can express; see ``enforcement`` for the constraints left to a validator.

    ``bounded``: also bound what the schema leaves open (numbers to 15 digits past a bound, 6 items, 64
    characters), so that a model decoding under a token budget finishes its sample; sound, since it only
    removes values. For JSON it costs compile time (llguidance builds the range regexes), so it is asked for;
    the YAML and XML compilers always bound open integers and arrays, their grammars being built on it.
    """
    _check_output(output)
    if output == "json":
        return json_grammar(schema, bounds=bounded)
    return Grammar.lark(_lark_source(_canonical(schema), output), description=f"JSON Schema as {output.upper()}")


def enforcement(schema: dict[str, Any] | bool, output: Output, bounded: bool = False) -> Enforcement:
    """Which of ``schema``'s keywords decoding enforces exactly, and which it leaves to a later check (why).

    ``bounded``: for the grammar ``compile_schema(..., bounded=True)`` gives (JSON only: the YAML and XML grammars
    are always bounded); bounds close gaps, an unbounded number's overflowing exponent for one."""
    _check_output(output)
    if output == "json":
        return json_enforcement(schema, bounded)
    lowered = _lowered(_canonical(schema), output)
    return _enforcement_of(lowered.used, lowered.after)


def _check_output(output: str) -> None:
    if output not in OUTPUTS:
        raise ValueError(f"unknown output {output!r}; valid: {', '.join(OUTPUTS)}")


def _canonical(schema: Any) -> str:
    if not isinstance(schema, dict | bool):
        raise GrammarError(f"a JSON Schema must be an object or a boolean, not {type(schema).__name__}")
    _check_schema(schema)
    return compact(schema)


def _enforcement_of(used: Iterable[str], after: Iterable[tuple[str, str, str]]) -> Enforcement:
    after = tuple(sorted(set(after)))
    late = {keyword for _, keyword, _ in after}
    return Enforcement(tuple(sorted(set(used) - late)), after)


@lru_cache(maxsize=256)
def _lark_source(canonical: str, output: Output) -> str:
    lowered = _lowered(canonical, output)
    if output == "yaml":
        from ._schema_yaml import yaml_lark

        return yaml_lark(lowered.node)
    from ._schema_xml import xml_lark

    return xml_lark(lowered.node)


@dataclass(frozen=True)
class Lowered:
    node: Node
    used: frozenset[str]
    after: tuple[tuple[str, str, str], ...]


@lru_cache(maxsize=256)
def _lowered(canonical: str, output: Output) -> Lowered:
    schema = json.loads(canonical)
    lowerer = _Lowerer(schema)
    node = lowerer.lower(schema, "#", ANY_DEPTH)
    if not node.alts:
        raise _refuse("#", "type", "no value satisfies the schema (as far as the grammar can tell)")
    after = tuple((path, keyword, reason) for (path, keyword), reason in lowerer.after.items())
    return Lowered(node, frozenset(lowerer.used), after)


def _refuse(path: str, keyword: str, reason: str) -> NotExpressible:
    return NotExpressible([(f"{keyword} at {path}", reason)])


# ============================================================================================ JSON output
def json_grammar(schema: Any, bounds: bool = False) -> Grammar:
    """llguidance's grammar for the plan's schema (``_schema_json_plan``); with ``bounds``, first narrowed so
    decoding ends (``_schema_bounds``), falling back to the plan's own schema if llguidance refuses the narrowed
    one. The bounded path compiles to check (it is for decoding under a budget, where a refusal must be known
    before the first token); the plain one leaves llguidance's own refusals to the grammar's first compile."""
    plan = json_plan(_canonical(schema))
    if bounds:
        try:
            return Grammar.json_schema(bounded(plan.schema), description="JSON Schema (bounded)")
        except GrammarError:
            pass
        if not plan.compiled and (error := llg_error(plan.source)) is not None:
            raise _refuse("#", "(schema)", f"llguidance refuses it: {error}")
    # the schema passed its meta-schema check in _canonical: Grammar.json_schema would check it again
    return Grammar("json_schema", plan.source, "JSON Schema")


def json_enforcement(schema: Any, bounds: bool = False) -> Enforcement:
    """Each keyword as llguidance's compiler treats it (see ``JSON_IGNORED`` and the format tables)."""
    plan = json_plan(_canonical(schema))
    lowerer = _Lowerer(schema)
    used: set[str] = set()
    after: list[tuple[str, str, str]] = []
    decoded = bounded(plan.schema) if bounds else schema
    # what decoding sees at each place: bounds close objects and give open arrays items of their own
    shapes = {path: d for d, path in walk_schemas({} if decoded is True else decoded)}
    overflowing = {path for path, d in shapes.items() if _overflows(d)}
    for d, path in walk_schemas({} if schema is True else schema):
        used.update(k for k in d if k in ASSERTIONS)
        for keyword, reason in _json_gaps(d, path, plan, lowerer, shapes.get(path, d)):
            after.append((path, keyword, reason))
        if path in overflowing:
            after.append((path, "type", "llguidance lets an unbounded number take an exponent past a float's range "
                                        "(1e999), which the sample parser refuses"))
    return _enforcement_of(used, after)


def _overflows(d: dict[str, Any]) -> bool:
    """Whether llguidance may write a number here with an exponent that overflows a float: it writes exponents
    only for a number with no bound and no ``multipleOf`` (probed)."""
    if not _may_be_fractional(d) or "multipleOf" in d:
        return False
    bounded_here = any(_is_number(d.get(k)) for k in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"))
    delegated = any(k in d for k in ("$ref", "allOf", "anyOf", "oneOf")) and "type" not in d
    return not bounded_here and not delegated


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _json_gaps(d: dict[str, Any], path: str, plan: JsonPlan, lowerer: _Lowerer,
               shape: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """The keywords of ``d`` decoding leaves unchecked; ``shape`` is ``d`` as decoding gets it (bounded or not)."""
    for keyword, reason in JSON_IGNORED.items():
        if keyword in d and not (keyword == "uniqueItems" and d[keyword] is False):
            yield keyword, reason
    gone = {keyword for where, keyword in plan.dropped if where == path}
    for keyword in sorted(gone):
        yield keyword, "llguidance cannot compile this value, so decoding drops it"
    if isinstance(d.get("pattern"), str) and "pattern" not in gone:
        risk = json_pattern_risk(d["pattern"])
        if risk:
            yield "pattern", risk
    fmt = d.get("format")
    if isinstance(fmt, str) and fmt in checked_formats() and fmt not in JSON_FORMATS_EXACT:
        yield "format", JSON_FORMATS_UNSOUND.get(fmt, f"llguidance does not know format {fmt!r} (lenient mode)")
    if "multipleOf" in d and "multipleOf" not in gone and Fraction(d["multipleOf"]).denominator != 1:
        yield "multipleOf", "not an integer: jsonschema's floating-point division decides"
    if _may_be_fractional(d):
        for keyword in ("exclusiveMinimum", "exclusiveMaximum"):
            if keyword in d and keyword not in gone:
                yield keyword, "a decimal just inside the bound can round onto it as a float"
    if "oneOf" in d and not plan.strict and not lowerer._disjoint(d["oneOf"]):
        yield "oneOf", "lenient mode turns oneOf into anyOf and the branches may overlap"
    if not plan.strict and "maxProperties" in d and not set(d.get("properties", {})) <= set(d.get("required", ())):
        # lenient mode counts only the extra properties (so minProperties holds, narrowly; maxProperties not)
        yield "maxProperties", "llguidance counts only extra properties when some listed ones are optional"
    if _open_object(shape):
        yield "additionalProperties", "llguidance lets an extra property repeat a key, which a JSON parser refuses"
    if _open_items(shape):
        yield "items", "items left open may be objects, and llguidance lets an object repeat a key"


def _open_items(d: dict[str, Any]) -> bool:
    """Whether an array here may hold any value (no ``items``), so possibly an object with a repeated key."""
    if "array" not in _declared_types(d) or "const" in d or "enum" in d or d.get("maxItems") == 0:
        return False
    if "items" in d or "unevaluatedItems" in d:
        return False  # bounded items ("any value", bounded) hold objects of one key at most
    delegated = any(k in d for k in ("$ref", "allOf", "anyOf", "oneOf")) and "type" not in d
    return not delegated


def _declared_types(d: dict[str, Any]) -> set[str]:
    declared = d.get("type")
    if declared is None:
        return set(TYPES)
    return set().union(*(_TYPE_SETS[t] for t in ([declared] if isinstance(declared, str) else declared)))


def _may_be_fractional(d: dict[str, Any]) -> bool:
    return "float" in _declared_types(d) and "const" not in d and "enum" not in d


def _open_object(d: dict[str, Any]) -> bool:
    """Whether llguidance may write an object with keys beyond ``properties`` here (so possibly repeated)."""
    if "object" not in _declared_types(d) or "const" in d or "enum" in d or d.get("additionalProperties") is False:
        return False
    if _is_number(d.get("maxProperties")) and d["maxProperties"] <= 1:
        return False  # one key cannot repeat
    delegated = any(k in d for k in ("$ref", "allOf", "anyOf", "oneOf")) and "type" not in d
    return not delegated


def json_pattern_risk(pattern: str) -> str | None:
    """Why llguidance's reading of ``pattern`` may accept strings the validators refuse (None: it is safe)."""
    try:
        pattern_rx(pattern)
    except Unsupported as exc:
        return f"not checked against the validators' regex engines: {exc}"
    sre = _sre()
    if _has_op(sre.parse(pattern).data, sre, negated_category=True):
        return ("llguidance's \\s (it takes U+0085), \\D, \\W, \\S (or a negated class with \\d, \\w, \\s) differ "
                "from ECMA-262's")
    if _has_op(sre.parse(pattern).data, sre, any_char=True):
        return "llguidance's '.' matches \\r, which ECMA-262's does not"
    return None


def _risky_category(name: str) -> bool:
    """A negated class escape, or ``\\s``: llguidance's takes U+0085 (NEL), which ECMA-262's does not."""
    return "NOT" in name or "SPACE" in name


def _has_op(items, sre, negated_category: bool = False, any_char: bool = False) -> bool:
    for op, av in items:
        if any_char and op is sre.ANY:
            return True
        if negated_category and op is sre.IN:
            negate = bool(av) and av[0][0] is sre.NEGATE
            for sub_op, sub_av in av:
                if sub_op is sre.CATEGORY and (negate or _risky_category(_name(sub_av))):
                    return True
        if negated_category and op is sre.CATEGORY and _risky_category(_name(av)):
            return True
        subs = []
        if op is sre.BRANCH:
            subs = [b.data for b in av[1]]
        elif op is sre.SUBPATTERN:
            subs = [av[3].data]
        elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT):
            subs = [av[2].data]
        if any(_has_op(sub, sre, negated_category, any_char) for sub in subs):
            return True
    return False


# ========================================================================================= the value language
@dataclass(frozen=True)
class Node:
    """A union of alternatives (empty: no value fits)."""

    alts: tuple[Alt, ...]


@dataclass(frozen=True, eq=False)
class Const:
    """One JSON scalar, written literally (equal only to the same value of the same type: False != 0.0).

    ``partial``: one of a window of values standing for more (a fractional ``multipleOf``), so excluding these
    values would not exclude them all.
    """

    value: str | int | float | bool | None
    partial: bool = False

    def _key(self) -> tuple[str, Any]:
        return type(self.value).__name__, self.value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Const) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())


@dataclass(frozen=True)
class Str:
    """Strings of ``min_len..max_len`` code points matching every ``include`` language and none of ``exclude``.

    Languages are ``Rx`` over decoded characters; each output encodes them (escapes, entities) itself. ``outer``
    holds supersets of the ``include`` languages (None when some has none, e.g. a format), which is what
    excluding this alternative from another needs.
    """

    min_len: int = 0
    max_len: int | None = None
    include: tuple[Rx, ...] = ()
    exclude: tuple[Str, ...] = ()
    outer: tuple[Rx, ...] | None = ()


@dataclass(frozen=True)
class Int:
    """Integers written ``-?(0|[1-9][0-9]*)`` in ``lo..hi`` (None: unbounded), multiples of ``mult``, outside
    each ``exclude`` range."""

    lo: int | None = None
    hi: int | None = None
    mult: int | None = None
    exclude: tuple[tuple[int | None, int | None], ...] = ()
    last_digit: int | None = None


@dataclass(frozen=True)
class Float:
    """Numbers written with a fraction (``1.5``; XML may omit it) whose text lies in ``lo..hi`` as a decimal.

    The bounds are already moved to the nearest floats inside the schema's bounds, so the parsed float is valid
    whatever its rounding. ``exclude`` ranges are outer bounds (every text that could parse into them);
    ``nonint`` forbids integral values (1.0 is an integer to JSON Schema; so does a text whose fraction a float
    cannot hold, hence at most 15 significant digits); ``exponent`` allows ``1.5e+10``;
    ``last_digit`` and ``digits`` (significant digits, at most 15 so distinct texts are distinct floats) make
    buckets of distinct values for ``uniqueItems``.
    """

    lo: Decimal | None = None
    hi: Decimal | None = None
    exclude: tuple[tuple[Decimal | None, Decimal | None], ...] = ()
    nonint: bool = False
    exponent: bool = False
    last_digit: int | None = None
    digits: int | None = None


@dataclass(frozen=True)
class Prop:
    name: str
    node: Node
    required: bool


@dataclass(frozen=True)
class Obj:
    """Declared properties in this order, then ``extra_min..extra_max`` extra properties of ``extra``.

    Extra names are identifiers with distinct first letters (so no key repeats) and none of ``reserved``.
    ``free``: the schema put no constraint on objects (so excluding it excludes every object).
    """

    props: tuple[Prop, ...] = ()
    extra: Node | None = None
    extra_min: int = 0
    extra_max: int = 52
    reserved: frozenset[str] = frozenset()
    free: bool = False

    @property
    def can_be_empty(self) -> bool:
        return self.extra_min == 0 and not any(p.required for p in self.props)


@dataclass(frozen=True)
class Arr:
    """``prefix`` items, then ``tail`` items (None: none), ``min..max`` items in all.

    With ``hit``, the first ``hit_min..hit_max`` tail items match ``contains`` (``hit``) and the rest are
    ``miss`` items (``tail`` minus ``contains``) when ``hit_max`` is set, else ``tail`` items. With ``unique``,
    the items come from these alternatives, at most one each, and no two alternatives share a value (constants,
    or buckets such as "integers ending in 7"); the first ``unique_hits`` of them match ``contains``.
    """

    prefix: tuple[Node, ...] = ()
    tail: Node | None = None
    min: int = 0
    max: int | None = None
    hit: Node | None = None
    hit_min: int = 0
    hit_max: int | None = None
    miss: Node | None = None
    unique: tuple[Alt, ...] | None = None
    unique_hits: int = 0
    free: bool = False


Alt = Const | Str | Int | Float | Obj | Arr
EMPTY = Node(())


def node(alts: Iterable[Alt]) -> Node:
    return Node(tuple(dict.fromkeys(alts)))


# ============================================================================ decoded-character languages (Rx)
# An Rx is a regular language over decoded characters, as nested tuples (hashable, so alternatives dedupe):
#   ("set", ranges)  ("seq", (rx, ...))  ("alt", (rx, ...))  ("rep", rx, lo, hi|None)
# ranges: sorted disjoint inclusive code point ranges.
Ranges = tuple[tuple[int, int], ...]
Rx = tuple[Any, ...]
UNIVERSE: Ranges = ((0, 0xD7FF), (0xE000, 0x10FFFF))
ASCII: Ranges = ((0, 0x7F),)


def ranges_of(points: Iterable[int]) -> Ranges:
    out: list[list[int]] = []
    for p in sorted(set(points)):
        if out and out[-1][1] + 1 == p:
            out[-1][1] = p
        else:
            out.append([p, p])
    return tuple((a, b) for a, b in out)


def union(*sets: Ranges) -> Ranges:
    spans = sorted(r for s in sets for r in s)
    out: list[list[int]] = []
    for a, b in spans:
        if out and a <= out[-1][1] + 1:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return tuple((a, b) for a, b in out)


def complement(s: Ranges, within: Ranges = UNIVERSE) -> Ranges:
    out: list[tuple[int, int]] = []
    for lo, hi in within:
        start = lo
        for a, b in s:
            if b < start or a > hi:
                continue
            if a > start:
                out.append((start, a - 1))
            start = max(start, b + 1)
        if start <= hi:
            out.append((start, hi))
    return tuple(out)


def intersect(a: Ranges, b: Ranges) -> Ranges:
    return complement(union(complement(a), complement(b)))


def rx_set(s: Ranges) -> Rx:
    return ("set", s)


def rx_seq(*items: Rx) -> Rx:
    return ("seq", tuple(items))


def rx_literal(text: str) -> Rx:
    return rx_seq(*(rx_set(((ord(c), ord(c)),)) for c in text))


ANY_CHAR = rx_set(UNIVERSE)
ANY_TEXT: Rx = ("rep", ANY_CHAR, 0, None)


class Unsupported(Exception):
    """A construct this compiler does not translate (the caller reports it with a path and keyword)."""


def _category_sets() -> dict[str, tuple[Ranges, Ranges]]:
    """Each class escape as (inner, outer): inner ⊆ what Python's ``re`` and ECMA-262 both match, outer ⊇ both.

    Inside ASCII both engines agree except for \\x1c-\\x1f, which Python calls space and ECMA-262 does not;
    outside ASCII they disagree (Unicode digits, letters, spaces), so inner stays in ASCII and outer takes all.
    """
    non_ascii = complement(ASCII)
    digit = ranges_of(range(0x30, 0x3A))
    word = ranges_of([*range(0x30, 0x3A), *range(0x41, 0x5B), *range(0x61, 0x7B), 0x5F])
    space_both = ranges_of([9, 10, 11, 12, 13, 32])
    space_any = union(space_both, ((0x1C, 0x1F),))
    return {
        "CATEGORY_DIGIT": (digit, union(digit, non_ascii)),
        "CATEGORY_WORD": (word, union(word, non_ascii)),
        "CATEGORY_SPACE": (space_both, union(space_any, non_ascii)),
        "CATEGORY_NOT_DIGIT": (complement(digit, ASCII), complement(digit)),
        "CATEGORY_NOT_WORD": (complement(word, ASCII), complement(word)),
        "CATEGORY_NOT_SPACE": (complement(space_any, ASCII), complement(space_both)),
    }


_CATEGORIES = _category_sets()
_DOT_INNER = complement(ranges_of([10, 13, 0x2028, 0x2029]))  # ECMA-262's '.' also stops at \r, U+2028/9
_DOT_OUTER = complement(ranges_of([10]))


def _sre():
    try:
        import re._parser as sre_parse  # the parser of the engine jsonschema validates patterns with
    except ImportError:  # pragma: no cover - Python < 3.11
        import sre_parse  # type: ignore[no-redef]
    return sre_parse


_BAD_SYNTAX = re.compile(r"\(\?P|\(\?[a-zA-Z-]+[:)]|\\[AZzbBpPGk]|\{,|\[:|\\[0-7]{1,3}")
"""Pattern syntax that Python's ``re`` and ECMA-262 read differently (or only one reads): refused."""


@lru_cache(maxsize=1024)
def _ecma_checked(pattern: str, path: str, keyword: str) -> None:
    """Refuse a pattern Corral's validator cannot read (ECMA-262, unicode mode), as validation would: a grammar
    built from Python's more forgiving reading (``]`` as a literal) would give samples no validator judges."""
    from corral.schema._ecma import is_regex

    if not is_regex(pattern):
        raise _refuse(path, keyword, f"{pattern[:60]!r} is not an ECMA-262 regular expression")


def pattern_rx(pattern: str, outer: bool = False) -> Rx:
    """The strings a JSON Schema ``pattern`` matches anywhere, over decoded characters.

    ``outer=False`` gives a subset of what both Python's ``re`` (jsonschema) and ECMA-262 accept (for
    generating); ``outer=True`` a superset (for excluding). Raises ``Unsupported`` for look-around,
    back-references, flags, ``\\b`` and syntax the two engines read differently.
    """
    if _BAD_SYNTAX.search(pattern):
        raise Unsupported("uses syntax Python's re and ECMA-262 read differently (flags, \\A, \\Z, \\b, {,n}, ...)")
    sre = _sre()
    try:
        parsed = sre.parse(pattern)
    except re.error as exc:
        raise Unsupported(f"not a regular expression Python can read: {exc}") from None
    if parsed.state.flags & (re.IGNORECASE | re.MULTILINE | re.LOCALE | re.DOTALL):
        raise Unsupported("inline flags are not supported")
    return _search(list(parsed.data), sre, outer)


def _name(constant: Any) -> str:
    """The name of one of ``re``'s parser constants (``CATEGORY_DIGIT``)."""
    return getattr(constant, "name", str(constant))


def _search(items: list, sre, outer: bool) -> Rx:
    """Unanchored search: strip leading ``^`` and trailing ``$`` (per branch); anchors elsewhere are refused."""
    if len(items) == 1 and items[0][0] is sre.BRANCH:
        return ("alt", tuple(_search(list(b.data), sre, outer) for b in items[0][1][1]))
    if len(items) == 1 and items[0][0] is sre.SUBPATTERN and not items[0][1][1] and not items[0][1][2]:
        return _search(list(items[0][1][3].data), sre, outer)
    start = end = False
    while items and items[0] == (sre.AT, sre.AT_BEGINNING):
        items, start = items[1:], True
    ends = (sre.AT_END, sre.AT_END_STRING)
    end_newline = False
    while items and items[-1][0] is sre.AT and items[-1][1] in ends:
        end_newline = end_newline or items[-1][1] is sre.AT_END
        items, end = items[:-1], True
    body = [_rx(op, av, sre, outer) for op, av in items]
    if not start:
        body.insert(0, ANY_TEXT)
    if not end:
        body.append(ANY_TEXT)
    elif outer and end_newline:  # Python's '$' also matches before a final newline
        body.append(("rep", rx_literal("\n"), 0, 1))
    return ("seq", tuple(body))


def _rx(op, av, sre, outer: bool) -> Rx:
    pick = 1 if outer else 0
    if op is sre.LITERAL:
        return rx_set(((av, av),))
    if op is sre.NOT_LITERAL:
        return rx_set(complement(((av, av),)))
    if op is sre.ANY:
        return rx_set(_DOT_OUTER if outer else _DOT_INNER)
    if op is sre.IN:
        return rx_set(_class(av, sre, outer))
    if op is sre.CATEGORY:
        return rx_set(_CATEGORIES[_name(av)][pick])
    if op is sre.BRANCH:
        return ("alt", tuple(rx_seq(*(_rx(o, a, sre, outer) for o, a in b.data)) for b in av[1]))
    if op is sre.SUBPATTERN:
        if av[1] or av[2]:
            raise Unsupported("inline flags are not supported")
        return rx_seq(*(_rx(o, a, sre, outer) for o, a in av[3].data))
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT):
        lo, hi, sub = av
        inner = rx_seq(*(_rx(o, a, sre, outer) for o, a in sub.data))
        return ("rep", inner, lo, None if hi == sre.MAXREPEAT else hi)
    if op is sre.AT:
        raise Unsupported("anchors (^, $) are supported only at the start and end")
    raise Unsupported(f"{str(op).lower()} (look-around, back-references, ...) has no regular equivalent")


def _class(items, sre, outer: bool) -> Ranges:
    negate = bool(items) and items[0][0] is sre.NEGATE
    members = items[1:] if negate else items
    # a negated class takes the complement of the other bound of its categories
    pick = (0 if negate else 1) if outer else (1 if negate else 0)
    parts: list[Ranges] = []
    for op, av in members:
        if op is sre.LITERAL:
            parts.append(((av, av),))
        elif op is sre.RANGE:
            parts.append(((av[0], av[1]),))
        elif op is sre.CATEGORY:
            parts.append(_CATEGORIES[_name(av)][pick])
        else:
            raise Unsupported(f"character class item {op} is not supported")
    s = union(*parts)
    return complement(s) if negate else s


# ================================================================================= formats as decoded regexes
def _leap_years() -> str:
    leap = "(?:0[48]|[2468][048]|[13579][26])"
    return f"(?:[0-9]{{2}}{leap}|{leap}00)"


def _formats() -> dict[str, str]:
    """Python regexes (full match) for formats; each accepts only strings jsonschema's checker accepts."""
    year = "(?:000[1-9]|00[1-9][0-9]|0[1-9][0-9]{2}|[1-9][0-9]{3})"
    month_day = ("(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)"
                 "|02-(?:0[1-9]|1[0-9]|2[0-8]))")
    date = f"(?:{year}-{month_day}|{_leap_years()}-02-29)"
    hour, minute = "(?:[01][0-9]|2[0-3])", "[0-5][0-9]"
    time = f"{hour}:{minute}:{minute}(?:\\.[0-9]{{1,9}})?(?:Z|[+-]{hour}:{minute})"
    label = "[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
    host = f"{label}(?:\\.{label}){{0,2}}"  # at most 3 labels: never over the 253-character limit
    short = "[a-z0-9](?:[a-z0-9-]{0,14}[a-z0-9])?"
    octet = "(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])"
    pchar = "[A-Za-z0-9._~!$&'()*+,;=:@-]"
    uri = (f"[a-z][a-z0-9+.-]{{0,15}}://{short}(?:\\.{short}){{0,3}}(?::[0-9]{{1,5}})?"
           f"(?:/{pchar}{{0,32}}){{0,8}}(?:\\?(?:{pchar}|[/?]){{0,64}})?(?:#(?:{pchar}|[/?]){{0,32}})?")
    email = f"[A-Za-z0-9](?:[A-Za-z0-9._+-]{{0,30}}[A-Za-z0-9])?@{short}(?:\\.{short}){{0,2}}\\.[a-z]{{2,8}}"
    idn_label = "[a-z0-9]{1,20}(?:-[a-z0-9]{1,20}){0,2}"
    pointer = "(?:/(?:[A-Za-z0-9_.-]|~[01]){0,16}){0,6}"
    n = "[0-9]{1,4}"
    day = f"(?:{n}Y(?:{n}M)?(?:{n}D)?|{n}M(?:{n}D)?|{n}D)"
    clock = f"T(?:{n}H(?:{n}M)?(?:{n}S)?|{n}M(?:{n}S)?|{n}S)"
    return {
        "date": date,
        "time": time,
        "date-time": f"{date}T{time}",
        "email": email,
        "idn-email": email,
        "ipv4": f"{octet}(?:\\.{octet}){{3}}",
        "ipv6": _ipv6(),
        "uuid": "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}",
        "hostname": host,
        "idn-hostname": f"{idn_label}(?:\\.{idn_label}){{0,2}}",
        "uri": uri,
        "uri-reference": uri,
        "iri": uri,
        "iri-reference": uri,
        "json-pointer": pointer,
        # jsonschema refuses a digit after a 0 anywhere in the number ("100"), not only a leading zero
        "relative-json-pointer": f"(?:0|[1-9]{{1,3}}0?)(?:#|{pointer})",
        "duration": f"P(?:{day}(?:{clock})?|{clock}|{n}W)",
        "uri-template": "[A-Za-z0-9/._~:-]{0,32}",
        "regex": "[A-Za-z0-9_]{0,32}",
    }


def _ipv6() -> str:
    h = "[0-9a-fA-F]{1,4}"

    def groups(n: int) -> str:
        return "" if n == 0 else h if n == 1 else f"(?:{h}:){{{n - 1}}}{h}"

    forms = [groups(8)] + [f"{groups(k)}::{groups(j)}" for k in range(8) for j in range(8 - k)]
    return "(?:" + "|".join(forms) + ")"


FORMAT_PATTERNS = _formats()


@lru_cache(maxsize=64)
def format_rx(name: str) -> Rx:
    sre = _sre()
    return rx_seq(*(_rx(op, av, sre, False) for op, av in sre.parse(FORMAT_PATTERNS[name]).data))


@lru_cache(maxsize=1)
def checked_formats() -> frozenset[str]:
    """Formats jsonschema's format checker asserts (others are annotations: nothing to enforce)."""
    from jsonschema import Draft202012Validator

    return frozenset(Draft202012Validator.FORMAT_CHECKER.checkers)


# ============================================================================================ number bounds
def int_bounds(pieces: list[tuple[str, Any]]) -> tuple[int | None, int | None]:
    """The integer range of minimum/maximum/exclusive* keywords (any number type), exactly."""
    lo: int | None = None
    hi: int | None = None
    for keyword, value in pieces:
        v = Fraction(value)
        if keyword == "minimum":
            lo = _max(lo, math.ceil(v))
        elif keyword == "exclusiveMinimum":
            lo = _max(lo, math.floor(v) + 1)
        elif keyword == "maximum":
            hi = _min(hi, math.floor(v))
        elif keyword == "exclusiveMaximum":
            hi = _min(hi, math.ceil(v) - 1)
    return lo, hi


def float_bounds(pieces: list[tuple[str, Any]]) -> tuple[Decimal | None, Decimal | None] | None:
    """Decimal text bounds whose every text parses to a float within the schema's bounds (None: none fits).

    Rounding to the nearest float is monotonic, so a text at most ``repr(f)`` parses to at most ``f``: the bound
    becomes the largest float not above the maximum (below it when exclusive), likewise for the minimum.
    """
    lo: Decimal | None = None
    hi: Decimal | None = None
    for keyword, value in pieces:
        strict = keyword.startswith("exclusive")
        if keyword in ("minimum", "exclusiveMinimum"):
            f = _float_at_least(Fraction(value), strict)
            if f is None:
                return None
            lo = _max(lo, Decimal(repr(f)))
        else:
            f = _float_at_most(Fraction(value), strict)
            if f is None:
                return None
            hi = _min(hi, Decimal(repr(f)))
    if lo is not None and hi is not None and lo > hi:
        return None
    return lo, hi


def _float_at_least(bound: Fraction, strict: bool) -> float | None:
    try:
        f = float(bound)
    except OverflowError:
        return None if bound > 0 else -math.inf
    while math.isfinite(f) and (Fraction(f) < bound or (strict and Fraction(f) == bound)):
        f = math.nextafter(f, math.inf)
    return f if math.isfinite(f) else None


def _float_at_most(bound: Fraction, strict: bool) -> float | None:
    f = _float_at_least(-bound, strict)
    return None if f is None else -f


def outer_float_range(pieces: list[tuple[str, Any]]) -> tuple[Decimal | None, Decimal | None]:
    """Decimal bounds holding every text whose float satisfies the bounds (for excluding those values)."""
    lo: Decimal | None = None
    hi: Decimal | None = None
    for keyword, value in pieces:
        strict = keyword.startswith("exclusive")
        if keyword in ("minimum", "exclusiveMinimum"):
            f = _float_at_least(Fraction(value), strict)
            lo = _max(lo, _down(math.nextafter(f, -math.inf)) if f is not None else Decimal(10) ** 400)
        else:
            f = _float_at_most(Fraction(value), strict)
            hi = _min(hi, _up(math.nextafter(f, math.inf)) if f is not None else -Decimal(10) ** 400)
    return lo, hi


def _max(a, b):
    return b if a is None else max(a, b)


def _min(a, b):
    return b if a is None else min(a, b)


# ======================================================================================= number text regexes
def uint_range(lo: int, hi: int | None) -> str:
    """Rust regex for the canonical decimal naturals in ``lo..hi`` (``hi`` None: unbounded), one flat union
    (llguidance allows at most 250 nested groups, and bounds may have hundreds of digits)."""
    parts = []
    width = len(str(lo))
    top = len(str(hi)) if hi is not None else width
    for n in range(width, top + 1):
        a = max(lo, 0 if n == 1 else 10 ** (n - 1))
        b = 10**n - 1 if hi is None or n < top else hi
        if a <= b:
            parts += _fixed(str(a).zfill(n), str(b).zfill(n))
    if hi is None:
        parts.append(f"[1-9][0-9]{{{top},}}")
    return "(?:" + "|".join(parts) + ")" if parts else ""


def _fixed(a: str, b: str) -> list[str]:
    """Digit strings of this width between ``a`` and ``b``, as regexes without groups (prefix, class, any)."""
    if not a:
        return [""]
    if a[0] == b[0]:
        return [a[0] + rest for rest in _fixed(a[1:], b[1:])]
    n = len(a) - 1
    tail = f"[0-9]{{{n}}}" if n else ""
    if a[1:] == "0" * n and b[1:] == "9" * n:
        return [f"[{a[0]}-{b[0]}]{tail}"]
    parts = [a[0] + rest for rest in _fixed(a[1:], "9" * n)]
    if int(a[0]) + 1 <= int(b[0]) - 1:
        parts.append(f"[{int(a[0]) + 1}-{int(b[0]) - 1}]{tail}")
    return parts + [b[0] + rest for rest in _fixed("0" * n, b[1:])]


def multiple_regex(k: int) -> str | None:
    """Integer texts that are multiples of ``k`` when ``k`` divides 1000 (the last three digits decide)."""
    if 1000 % k:
        return None
    width = next(j for j in range(4) if 10**j % k == 0)
    if width == 0:
        return "-?[0-9]+"
    endings = [str(n).zfill(width) for n in range(0, 10**width, k)]
    short = [str(n) for n in range(0, 10 ** (width - 1), k)]
    return f"-?(?:[0-9]*(?:{'|'.join(endings)})|{'|'.join(short)})"


def int_regex(lo: int | None, hi: int | None) -> str | None:
    """Canonical integer texts (no ``-0``, no leading zeros) in ``lo..hi``; None if the range is empty."""
    if lo is not None and hi is not None and lo > hi:
        return None
    parts = []
    if hi is None or hi >= 0:
        parts.append(uint_range(max(lo or 0, 0), hi))
    if lo is None or lo < 0:
        top = None if lo is None else -lo
        parts.append("-" + uint_range(max(1, -hi if hi is not None and hi < 0 else 1), top))
    return "(?:" + "|".join(parts) + ")"


UDEC = "(?:0|[1-9][0-9]*)(?:\\.[0-9]+)?"


def _split(d: Decimal) -> tuple[str, str]:
    text = format(d, "f")
    whole, _, frac = text.partition(".")
    return whole, frac.rstrip("0")


def udec_ge(d: Decimal) -> str:
    """Unsigned decimal texts (``UDEC``) with a value of at least ``d`` (``d >= 0``)."""
    whole, frac = _split(d)
    greater = uint_range(int(whole) + 1, None) + "(?:\\.[0-9]+)?"
    if not frac:
        same = whole + "(?:\\.[0-9]+)?"
    else:
        options = [re.escape(frac) + "[0-9]*"]
        options += [frac[:k] + f"[{int(frac[k]) + 1}-9][0-9]*" for k in range(len(frac)) if frac[k] != "9"]
        same = whole + "\\.(?:" + "|".join(options) + ")"
    return f"(?:{greater}|{same})"


def udec_le(d: Decimal) -> str:
    """Unsigned decimal texts with a value of at most ``d`` (``d >= 0``)."""
    whole, frac = _split(d)
    parts = []
    if int(whole) > 0:
        parts.append(uint_range(0, int(whole) - 1) + "(?:\\.[0-9]+)?")
    if not frac:
        parts.append(whole + "(?:\\.0+)?")
    else:
        options = ["0+"] + [frac[:k] + "0*" for k in range(1, len(frac) + 1)]
        options += [frac[:k] + f"[0-{int(frac[k]) - 1}][0-9]*" for k in range(len(frac)) if frac[k] != "0"]
        parts.append(whole + "(?:\\.(?:" + "|".join(options) + "))?")
    return "(?:" + "|".join(parts) + ")"


def dec_range(lo: Decimal | None, hi: Decimal | None) -> list[str] | None:
    """Signed decimal texts in ``lo..hi``: Lark terminal expressions (intersections of regexes) to unite."""
    if lo is not None and hi is not None and lo > hi:
        return None
    options = []
    if hi is None or hi >= 0:
        parts = [UDEC]
        if lo is not None and lo > 0:
            parts.append(udec_ge(lo))
        if hi is not None:
            parts.append(udec_le(hi))
        options.append(" & ".join(term(p) for p in parts))
    if lo is None or lo < 0:
        parts = [UDEC]
        if hi is not None and hi < 0:
            parts.append(udec_ge(-hi))
        if lo is not None:
            parts.append(udec_le(-lo))
        # no negative zero: its value would escape an exclusion written for 0
        options.append(" & ".join(term("-" + p) for p in parts) + " & ~" + term("-0(?:\\.0+)?"))
    return options


# ================================================================================================= lowering
_Piece = tuple[dict[str, Any], str]
Flat = tuple[_Piece, ...]
TYPES = ("null", "boolean", "object", "array", "integer", "float", "string")
_TYPE_SETS = {"null": {"null"}, "boolean": {"boolean"}, "object": {"object"}, "array": {"array"},
              "integer": {"integer"}, "number": {"integer", "float"}, "string": {"string"}}
_EXPANDED = ("$ref", "allOf", "anyOf", "oneOf", "not", "if", "then", "else", "$dynamicRef")
_OBJECT_KEYWORDS = ("properties", "required", "additionalProperties", "patternProperties", "propertyNames",
                    "minProperties", "maxProperties", "dependentRequired", "dependentSchemas", "dependencies",
                    "unevaluatedProperties")
_ARRAY_KEYWORDS = ("items", "prefixItems", "contains", "minContains", "maxContains", "minItems", "maxItems",
                   "uniqueItems", "unevaluatedItems", "additionalItems")
_STRING_KEYWORDS = ("minLength", "maxLength", "pattern", "format")
_NUMBER_KEYWORDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")


def _conjunction(flat: Flat) -> dict[str, Any]:
    """One alternative of a schema's expansion as a schema itself. A value valid against it is valid against
    the whole schema, and checking it costs what the alternative costs, not what the whole does (a 540 kB
    SchemaStore schema spent ~2 ms per enum value validating against every branch of its ``anyOf``)."""
    return {"allOf": [{"not": d["_not"]} if "_not" in d else d for d, _ in flat]}


def escape_pointer(token: Any) -> str:
    return str(token).replace("~", "~0").replace("/", "~1")


class _Lowerer:
    """Lowers a schema to ``Node``s, recording every used keyword and every constraint left for later."""

    def __init__(self, root: Any) -> None:
        from jsonschema import Draft202012Validator

        self.root = root
        self.validator = Draft202012Validator(root, format_checker=Draft202012Validator.FORMAT_CHECKER)
        self.after: dict[tuple[str, str], str] = {}
        self.used: set[str] = set()
        self.active: list[int] = []  # reference targets whose values are being lowered (recursion check)
        self.expanding: list[int] = []  # reference targets being expanded right now
        self.depth = 0
        self.lowered: dict[tuple[tuple[int, ...], int], tuple[list[tuple[Any, str]], Node]] = {}

    # --------------------------------------------------------------------------------------- bookkeeping
    def note(self, path: str, keyword: str, reason: str) -> None:
        self.after.setdefault((path, keyword), reason)

    def valid(self, schema: Any, value: Any) -> bool:
        return self.validator.evolve(schema=schema).is_valid(value)

    # ------------------------------------------------------------------------------------------- entry
    def lower(self, schema: Any, path: str, budget: int) -> Node:
        return self.lower_all([(schema, path)], budget)

    def lower_all(self, schemas: list[tuple[Any, str]], budget: int) -> Node:
        """The values valid against every schema in ``schemas`` (``allOf``).

        A conjunction lowered once is reused: large schemas reach the same definitions through many
        ``anyOf`` branches and properties. Reuse is sound because a finite lowering of a subschema is finite
        wherever it appears; only refusals (a reference back to an enclosing one) depend on the context, and
        those are never stored. The schemas are kept with the node so that their ids stay theirs.
        """
        key = (tuple(id(self._referenced(schema)) for schema, _ in schemas), budget)
        if key in self.lowered:
            return self.lowered[key][1]
        found = self._lower_all(schemas, budget)
        self.lowered[key] = (schemas, found)
        return found

    def _referenced(self, schema: Any) -> Any:
        """The target of a schema that only refers to another one (so that its uses share one lowering)."""
        seen = 0
        while (isinstance(schema, dict) and isinstance(schema.get("$ref"), str) and schema["$ref"].startswith("#/")
               and set(schema) - {"$ref"} <= NOTES and seen < MAX_NESTING):
            try:
                schema, _ = self._resolve(schema["$ref"], "#")
            except NotExpressible:
                break
            seen += 1
        return schema

    def _lower_all(self, schemas: list[tuple[Any, str]], budget: int) -> Node:
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise _refuse(schemas[0][1], "$ref", f"nested deeper than {MAX_NESTING} levels")
        refs: list[int] = []
        try:
            flats = [()]
            for schema, path in schemas:
                flats = self._product(flats, self.expand(schema, path, refs), path)
            self.active.extend(refs)
            alts: list[Alt] = []
            for flat in flats:
                alts.extend(self.lower_flat(flat, budget))
            return node(alts)
        finally:
            del self.active[len(self.active) - len(refs):]
            self.depth -= 1

    def _product(self, left: list[Flat], right: list[Flat], path: str) -> list[Flat]:
        out = [a + b for a, b in product(left, right)]
        if len(out) > MAX_COMBINATIONS:
            raise _refuse(path, "anyOf", f"more than {MAX_COMBINATIONS} combinations of alternatives")
        return out

    # ----------------------------------------------------------------------------------------- expand
    def expand(self, schema: Any, path: str, refs: list[int]) -> list[Flat]:
        """``schema`` as alternatives, each a conjunction of keyword dicts without applicators left."""
        if schema is True:
            return [()]
        if schema is False:
            return []
        self.used.update(k for k in schema if k in ASSERTIONS)
        base = {k: v for k, v in schema.items() if k not in _EXPANDED}
        flats: list[Flat] = [((base, path),)]
        if "$dynamicRef" in schema:
            raise _refuse(path, "$dynamicRef", "dynamic references are not supported")
        if "$ref" in schema:
            target, where = self._resolve(schema["$ref"], path)
            if id(target) in self.active or id(target) in self.expanding:
                raise _refuse(path, "$ref", "recursive references have no finite YAML or XML grammar")
            refs.append(id(target))
            self.expanding.append(id(target))
            try:
                flats = self._product(flats, self.expand(target, where, refs), path)
            finally:
                self.expanding.pop()
        for i, sub in enumerate(schema.get("allOf", ())):
            flats = self._product(flats, self.expand(sub, f"{path}/allOf/{i}", refs), path)
        for keyword in ("anyOf", "oneOf"):
            if keyword in schema:
                branches = [self.expand(sub, f"{path}/{keyword}/{i}", refs) for i, sub in enumerate(schema[keyword])]
                if keyword == "oneOf" and not self._disjoint(schema["oneOf"]):
                    self.note(path, "oneOf", "branches may overlap: decoding enforces anyOf")
                flats = self._product(flats, [f for b in branches for f in b], path)
        if "if" in schema and ("then" in schema or "else" in schema):
            # narrowing: a value valid against both `if` and `then` is valid (`else` is never taken)
            flats = self._product(flats, self.expand(schema["if"], f"{path}/if", refs), path)
            flats = self._product(flats, self.expand(schema.get("then", True), f"{path}/then", refs), path)
        if "not" in schema:
            flats = [(*f, ({"_not": schema["not"]}, f"{path}/not")) for f in flats]
        return flats

    def _resolve(self, ref: str, path: str) -> tuple[Any, str]:
        if ref.startswith("#/") or ref == "#":
            target: Any = self.root
            for token in ref[2:].split("/") if ref != "#" else ():
                token = token.replace("~1", "/").replace("~0", "~")
                try:
                    target = target[int(token)] if isinstance(target, list) else target[token]
                except (KeyError, IndexError, ValueError, TypeError):
                    raise _refuse(path, "$ref", f"{ref!r} does not resolve in this schema") from None
            return target, ref
        try:
            return self.validator._resolver.lookup(ref).contents, ref  # anchors and $id-relative references
        except Exception:  # referencing raises several kinds; any means "not local"
            raise _refuse(path, "$ref", f"{ref!r} is not a reference inside this schema") from None

    def _disjoint(self, branches: list[Any]) -> bool:
        """Whether no value can match two ``oneOf`` branches (then ``anyOf`` is the same)."""
        kinds = [self._types_of(b) for b in branches]
        finite = [self._values_of(b) for b in branches]
        for i in range(len(branches)):
            for j in range(i + 1, len(branches)):
                if not (kinds[i] & kinds[j]):
                    continue
                for a, b in ((i, j), (j, i)):
                    if finite[a] is not None and not any(self.valid(branches[b], v) for v in finite[a]):
                        break
                else:
                    if not self._discriminated(branches[i], branches[j]):
                        return False
        return True

    def _types_of(self, schema: Any) -> set[str]:
        if not isinstance(schema, dict):
            return set(TYPES) if schema else set()
        kinds = set(TYPES)
        declared = schema.get("type")
        if declared is not None:
            kinds = set().union(*(_TYPE_SETS[t] for t in ([declared] if isinstance(declared, str) else declared)))
        for sub in schema.get("allOf", ()):
            kinds &= self._types_of(sub)
        if "anyOf" in schema or "oneOf" in schema:
            kinds &= set().union(*(self._types_of(s) for s in schema.get("anyOf", schema.get("oneOf", []))))
        if "const" in schema or "enum" in schema:
            values = [schema["const"]] if "const" in schema else schema["enum"]
            kinds &= {t for v in values for t in _json_types(v)}
        return kinds

    def _values_of(self, schema: Any) -> list[Any] | None:
        if isinstance(schema, dict) and "const" in schema:
            return [schema["const"]]
        if isinstance(schema, dict) and "enum" in schema:
            return list(schema["enum"])
        return None

    def _discriminated(self, a: Any, b: Any) -> bool:
        """Two object schemas that require one property with disjoint constant values."""
        if not isinstance(a, dict) or not isinstance(b, dict):
            return False
        for name in set(a.get("required", ())) & set(b.get("required", ())):
            va = self._values_of(a.get("properties", {}).get(name))
            vb = self._values_of(b.get("properties", {}).get(name))
            if va is not None and vb is not None and not any(_json_equal(x, y) for x in va for y in vb):
                return True
        return False

    # ------------------------------------------------------------------------------------- lower_flat
    def lower_flat(self, flat: Flat, budget: int) -> list[Alt]:
        """The alternatives of one conjunction of keyword dicts."""
        flat = self._dependent_schemas(flat)
        if flat is None:
            return []
        if isinstance(flat, list):  # a required trigger brought its schema in: several conjunctions
            return [alt for f in flat for alt in self.lower_flat(f, budget)]
        finite = [(d["const"],) if "const" in d else tuple(d["enum"]) for d, _ in flat if "const" in d or "enum" in d]
        if finite:
            values = _dedupe_values(finite[0])
            conjunction = _conjunction(flat)
            return [alt for v in values if self.valid(conjunction, v) for alt in self.const_alts(v)]
        types = self._types(flat)
        alts: list[Alt] = []
        if "null" in types:
            alts.append(Const(None))
        if "boolean" in types:
            alts += [Const(True), Const(False)]
        if "string" in types:
            alts += self._string(flat)
        if "integer" in types or "float" in types:
            alts += self._numbers(flat, "integer" in types, "float" in types)
        if "object" in types:
            alts += self._object(flat, budget)
        if "array" in types:
            alts += self._array(flat, budget)
        for d, path in flat:
            if "_not" in d:
                alts = self._negate(alts, d["_not"], path, budget)
        return alts

    def _types(self, flat: Flat) -> set[str]:
        kinds = set(TYPES)
        for d, _ in flat:
            declared = d.get("type")
            if declared is not None:
                names = [declared] if isinstance(declared, str) else declared
                kinds &= set().union(*(_TYPE_SETS[t] for t in names))
        return kinds

    def const_alts(self, value: Any) -> list[Alt]:
        if isinstance(value, dict):
            props = tuple(Prop(k, node(self.const_alts(v)), True) for k, v in value.items())
            return [Obj(props=props, extra=None, extra_max=0)]
        if isinstance(value, list):
            items = tuple(node(self.const_alts(v)) for v in value)
            return [Arr(prefix=items, tail=None, min=len(items), max=len(items))]
        return [Const(value)]

    # ------------------------------------------------------------------------------------------ strings
    def _string(self, flat: Flat) -> list[Alt]:
        lo, hi = 0, None
        include: list[Rx] = []
        outer: list[Rx] | None = []
        for d, path in flat:
            lo = max(lo, d.get("minLength", 0))
            if "maxLength" in d:
                hi = _min(hi, d["maxLength"])
            if "pattern" in d:
                _ecma_checked(d["pattern"], path, "pattern")
                try:
                    include.append(pattern_rx(d["pattern"]))
                    if outer is not None:
                        outer.append(pattern_rx(d["pattern"], outer=True))
                except Unsupported as exc:
                    self.note(path, "pattern", str(exc))
            if "format" in d:
                fmt = d["format"]
                if fmt in FORMAT_PATTERNS:
                    include.append(format_rx(fmt))
                    outer = None
                elif fmt in checked_formats():
                    self.note(path, "format", f"no regular expression for format {fmt!r}")
        if hi is not None and lo > hi:
            return []
        return [Str(lo, hi, tuple(dict.fromkeys(include)), (), None if outer is None else tuple(outer))]

    # ------------------------------------------------------------------------------------------ numbers
    def _multiples(self, step: Fraction, bounds: list[tuple[str, Any]], flat: Flat) -> list[Const]:
        """A window of multiples of a fractional ``multipleOf`` (narrowing), each checked by the validator:
        whether ``x / step`` is integral in floating point decides, so no regular expression is exact. Each
        multiple is tried as the short decimal a person writes (94 × 9.81 = 922.14) and as float products."""
        lows = [Fraction(v) / step for k, v in bounds if k in ("minimum", "exclusiveMinimum")]
        highs = [Fraction(v) / step for k, v in bounds if k in ("maximum", "exclusiveMaximum")]
        lo = math.floor(max(lows)) if lows else None
        hi = math.ceil(min(highs)) if highs else None
        complete = lo is not None and hi is not None and hi - lo <= MULTIPLES
        if lo is None:
            lo = hi - MULTIPLES if hi is not None else -MULTIPLES // 5  # mostly positive: what values tend to be
        if hi is None or hi - lo > MULTIPLES:
            hi = lo + MULTIPLES
        decimal_step = Decimal(repr(float(step)))
        conjunction = _conjunction(flat)
        values: list[int | float] = []
        for k in range(lo, hi + 1):
            for v in {float(decimal_step * k), float(k * step), k * float(step)}:
                if math.isfinite(v) and self.valid(conjunction, v):
                    values.append(v)
        return [Const(v, partial=not complete) for v in _dedupe_values(values)]

    def _numbers(self, flat: Flat, integers: bool, floats: bool) -> list[Alt]:
        bounds = [(k, d[k]) for d, _ in flat for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")
                  if k in d and not isinstance(d[k], bool)]
        mult = 1
        whole_multiple = False  # any integral multipleOf, 1 included: then only integers are written
        for d, _ in flat:
            if "multipleOf" in d:
                m = Fraction(d["multipleOf"])
                if m.denominator == 1:
                    mult = math.lcm(mult, int(m))
                    whole_multiple = True
        alts: list[Alt] = []
        if integers:
            lo, hi = int_bounds(bounds)
            if lo is None or hi is None or lo <= hi:
                alts.append(Int(lo, hi, mult if mult > 1 else None))
        fractional = [Fraction(d["multipleOf"]) for d, _ in flat
                      if "multipleOf" in d and Fraction(d["multipleOf"]).denominator != 1]
        if fractional:
            return self._multiples(fractional[0], bounds, flat)
        if floats and not whole_multiple:
            found = float_bounds(bounds)
            if found is not None:
                lo_d, hi_d = found
                alts.append(Float(lo_d, hi_d, nonint=not integers, exponent=not bounds and integers))
        return alts

    # ------------------------------------------------------------------------------------------ objects
    def _dependent_schemas(self, flat: Flat) -> Flat | list[Flat] | None:
        """Bring in the ``dependentSchemas`` whose trigger is required; other triggers are never written."""
        required = {n for d, _ in flat for n in d.get("required", ())}
        for index, (d, path) in enumerate(flat):
            hits = [(n, s) for n, s in _schema_dependencies(d).items() if n in required]
            if not hits:
                continue
            rest = dict(d)
            rest["dependentSchemas"] = {n: s for n, s in d.get("dependentSchemas", {}).items() if n not in required}
            rest["dependencies"] = {n: s for n, s in d.get("dependencies", {}).items()
                                    if n not in required or isinstance(s, list)}
            flats: list[Flat] = [(*flat[:index], (rest, path), *flat[index + 1:])]
            for name, sub in hits:
                where = f"{path}/dependentSchemas/{escape_pointer(name)}"
                flats = self._product(flats, self.expand(sub, where, []), where)
            return flats
        return flat

    def _object(self, flat: Flat, budget: int) -> list[Alt]:
        pieces = [(d, p) for d, p in flat if any(k in d for k in _OBJECT_KEYWORDS)]
        for d, path in pieces:
            for keyword in ("unevaluatedProperties",):
                if keyword in d and d[keyword] is not True and d[keyword] != {}:
                    self.note(path, keyword, "not enforced (it depends on which subschemas evaluated a property)")
        required = [n for d, _ in pieces for n in d.get("required", ())]
        dependent = self._dependent_required(pieces)
        names = list(dict.fromkeys([n for d, _ in pieces for n in d.get("properties", {})] + required
                                   + [n for deps in dependent.values() for n in deps]))
        required_set = set(required)
        dropped = {n for d, _ in pieces for n in _schema_dependencies(d) if n not in required_set}
        changed = True
        while changed:  # dependentRequired: a required trigger makes its dependents required
            changed = False
            for trigger, deps in dependent.items():
                if trigger in required_set and not set(deps) <= required_set:
                    required_set |= set(deps)
                    changed = True
        dropped |= {t for t, deps in dependent.items() if t not in required_set and not set(deps) <= required_set}
        props: list[Prop] = []
        for name in names:
            if name in dropped and name not in required_set:
                continue
            child = self._property(pieces, name)
            if not child.alts or not self._name_ok(pieces, name):
                if name in required_set:
                    return []
                continue
            props.append(Prop(name, child, name in required_set))
        extra, reserved = self._extras(pieces, names, props, dependent, dropped, budget)
        return self._counted(pieces, props, extra, reserved, free=not pieces)

    def _dependent_required(self, pieces: list[_Piece]) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for d, _ in pieces:
            for trigger, deps in d.get("dependentRequired", {}).items():
                out.setdefault(trigger, []).extend(deps)
            for trigger, deps in d.get("dependencies", {}).items():
                if isinstance(deps, list):
                    out.setdefault(trigger, []).extend(deps)
        return out

    def _property(self, pieces: list[_Piece], name: str) -> Node:
        schemas: list[tuple[Any, str]] = []
        for d, path in pieces:
            named = d.get("properties", {})
            hit = name in named
            if hit:
                schemas.append((named[name], f"{path}/properties/{escape_pointer(name)}"))
            for pattern, sub in d.get("patternProperties", {}).items():
                if self._matches(pattern, name, path):
                    schemas.append((sub, f"{path}/patternProperties/{escape_pointer(pattern)}"))
                    hit = True
            if not hit and "additionalProperties" in d:
                schemas.append((d["additionalProperties"], f"{path}/additionalProperties"))
        return self.lower_all(schemas, ANY_DEPTH) if schemas else self.lower(True, "#", ANY_DEPTH)

    def _matches(self, pattern: str, name: str, path: str) -> bool:
        _ecma_checked(pattern, path, "patternProperties")
        try:
            inner, outer = pattern_rx(pattern), pattern_rx(pattern, outer=True)
        except Unsupported as exc:
            raise _refuse(path, "patternProperties", str(exc)) from None
        found = rx_matches(inner, name)
        if found != rx_matches(outer, name):
            raise _refuse(path, "patternProperties", f"whether {name!r} matches {pattern!r} depends on the engine")
        return found

    def _name_ok(self, pieces: list[_Piece], name: str) -> bool:
        return all(self.valid(d["propertyNames"], name) for d, _ in pieces if "propertyNames" in d)

    def _extras(self, pieces: list[_Piece], names: list[str], props: list[Prop], dependent: dict[str, list[str]],
                dropped: set[str], budget: int) -> tuple[Node | None, frozenset[str]]:
        """The schema of extra properties (None: none are written) and the names they must avoid."""
        reserved = frozenset(names) | frozenset(dependent) | dropped
        if any("patternProperties" in d or "propertyNames" in d for d, _ in pieces):
            return None, reserved  # narrowing: extra names would have to avoid or obey the patterns
        explicit = [(d["additionalProperties"], f"{p}/additionalProperties") for d, p in pieces
                    if "additionalProperties" in d and d["additionalProperties"] is not True]
        if explicit:
            extra = self.lower_all(explicit, ANY_DEPTH)
        elif names or budget <= 0:
            return None, reserved  # narrowing: additionalProperties true writes no extra property
        else:
            extra = self.lower(True, "#", budget - 1)
        return (extra if extra.alts else None), reserved

    def _counted(self, pieces: list[_Piece], props: list[Prop], extra: Node | None, reserved: frozenset[str],
                 free: bool) -> list[Alt]:
        """Apply minProperties/maxProperties by narrowing: make optional properties required, or drop them."""
        low = max([d["minProperties"] for d, _ in pieces if "minProperties" in d], default=0)
        high = min([d["maxProperties"] for d, _ in pieces if "maxProperties" in d], default=None)
        count = sum(p.required for p in props)
        out: list[Prop] = []
        for p in props:
            if not p.required and count < low:
                p, count = Prop(p.name, p.node, True), count + 1
            out.append(p)
        if high is not None:
            if count > high:
                return []
            kept, room = [], high - count
            for p in out:
                if p.required or room > 0:
                    kept.append(p)
                    room -= 0 if p.required else 1
            out, extra_max = kept, room
        else:
            extra_max = 52
        extra_min = max(0, low - len(out))
        if extra is None:
            extra_max = 0
        if extra_min > min(extra_max, 52):
            return []
        return [Obj(tuple(out), extra if extra_max else None, extra_min, min(extra_max, 52), reserved, free)]

    # ------------------------------------------------------------------------------------------- arrays
    def _array(self, flat: Flat, budget: int) -> list[Alt]:
        pieces = [(d, p) for d, p in flat if any(k in d for k in _ARRAY_KEYWORDS)]
        for d, path in pieces:
            for keyword in ("unevaluatedItems", "additionalItems"):
                if keyword in d and d[keyword] is not True and d[keyword] != {}:
                    self.note(path, keyword, "not enforced")
        low = max([d["minItems"] for d, _ in pieces if "minItems" in d], default=0)
        high = min([d["maxItems"] for d, _ in pieces if "maxItems" in d], default=None)
        length = max([len(d.get("prefixItems", ())) for d, _ in pieces], default=0)
        prefix: list[Node] = []
        for i in range(length):
            schemas, closed = self._position(pieces, i)
            child = EMPTY if closed else self.lower_all(schemas, ANY_DEPTH)
            if not child.alts:
                high = _min(high, i)
                break
            prefix.append(child)
        schemas, closed = self._position(pieces, length)
        if closed:
            tail = None
        elif schemas:
            tail = self.lower_all(schemas, ANY_DEPTH)
        else:
            tail = self.lower(True, "#", budget - 1) if budget > 0 else None
        if tail is not None and not tail.alts:
            tail = None
        if tail is None:
            high = _min(high, len(prefix))
        if high is not None and low > high:
            return []
        if high is not None and high < len(prefix):  # maxItems cuts the prefix short
            prefix, tail = prefix[:high], None
        arr = Arr(tuple(prefix), tail, low, high, free=not pieces)
        arr = self._contains(arr, pieces)
        if arr is not None:
            arr = self._unique(arr, pieces)
        return [] if arr is None else [arr]

    def _position(self, pieces: list[_Piece], i: int) -> tuple[list[tuple[Any, str]], bool]:
        """The schemas item ``i`` must match, and whether some piece forbids an item there."""
        schemas: list[tuple[Any, str]] = []
        closed = False
        for d, path in pieces:
            prefix = d.get("prefixItems", ())
            if i < len(prefix):
                schemas.append((prefix[i], f"{path}/prefixItems/{i}"))
            elif "items" in d:
                if d["items"] is False:
                    closed = True
                else:
                    schemas.append((d["items"], f"{path}/items"))
        return schemas, closed

    def _contains(self, arr: Arr, pieces: list[_Piece]) -> Arr | None:
        """``contains``: the first tail items match it; with ``maxContains`` the others are excluded from it."""
        spec = [(d, p) for d, p in pieces if "contains" in d]
        if not spec:
            return arr
        if len(spec) > 1:
            raise _refuse(spec[1][1], "contains", "several contains in one schema are not supported")
        d, path = spec[0]
        least = d.get("minContains", 1)
        most = d.get("maxContains")
        if most is not None and least > most:
            return None
        capacity = None if arr.max is None else arr.max - len(arr.prefix)
        if most is not None and capacity is not None and capacity + len(arr.prefix) <= most:
            most = None  # never reachable
        if least == 0 and most is None:
            return arr
        if arr.tail is None or (capacity is not None and capacity < least):
            self.note(path, "contains", "only tail items can match contains; here there is no room for them")
            return arr
        tail_schemas, _ = self._position(pieces, len(arr.prefix))
        hit = self.lower_all([*tail_schemas, (d["contains"], f"{path}/contains")], ANY_DEPTH)
        if not hit.alts:
            return None if least > 0 else arr
        miss = None
        prefix = arr.prefix
        if most is not None:
            try:
                c_node = self.lower(d["contains"], f"{path}/contains", ANY_DEPTH)
                miss = exclude(arr.tail, c_node, d["contains"], self)
                prefix = tuple(exclude(p, c_node, d["contains"], self) for p in arr.prefix)
            except Unsupported as exc:
                self.note(path, "maxContains", f"cannot exclude contains matches: {exc}")
                most, miss, prefix = None, None, arr.prefix
        if any(not p.alts for p in prefix):  # the tail (and its hits) cannot be reached
            cut = next(i for i, p in enumerate(prefix) if not p.alts)
            return Arr(prefix[:cut], None, arr.min, cut) if least == 0 and arr.min <= cut else None
        low = max(arr.min, len(prefix) + least)
        if arr.max is not None and low > arr.max:
            return None
        rest = None if miss is None or not miss.alts else miss
        return Arr(prefix, arr.tail, low, arr.max, hit, least, most, rest)

    def _unique(self, arr: Arr, pieces: list[_Piece]) -> Arr | None:
        """``uniqueItems``: exact for arrays of at most one item or of a small set of constants, else later."""
        spec = [(d, p) for d, p in pieces if d.get("uniqueItems") is True]
        if not spec:
            return arr
        path = spec[0][1]
        if arr.max is not None and arr.max <= 1:
            return arr
        values = self._finite(arr)
        if values is None:
            buckets = _buckets(arr) if not arr.prefix and arr.hit is None and arr.tail is not None else None
            if buckets is None:
                self.note(path, "uniqueItems", "items are not constants or scalars this compiler can keep apart")
                return arr
            values = [], buckets
        hits, misses = values
        count = len(hits) + len(misses)
        low = max(arr.min, arr.hit_min)
        high = min(count, max(low, OPEN_ITEMS)) if arr.max is None else min(arr.max, count)
        if low > high or len(hits) < arr.hit_min:
            return None
        return Arr((), Node(tuple(hits + misses)), low, high, hit_min=arr.hit_min,
                   hit_max=arr.hit_max, unique=tuple(hits + misses), unique_hits=len(hits))

    def _finite(self, arr: Arr) -> tuple[list[Alt], list[Alt]] | None:
        """The tail's constants split into contains hits and misses, if the array is a prefix-free set of them."""
        if arr.prefix or arr.tail is None or not all(isinstance(a, Const) for a in arr.tail.alts):
            return None
        consts = [a for a in arr.tail.alts if isinstance(a, Const)]
        consts = [Const(v) for v in _dedupe_values([c.value for c in consts])]
        if len(consts) > MAX_UNIQUE_VALUES:
            return None
        if arr.hit is None:
            return [], consts
        if any(not isinstance(a, Const) for a in arr.hit.alts):
            return None
        hit_keys = {_value_key(a.value) for a in arr.hit.alts if isinstance(a, Const)}
        hits = [c for c in consts if _value_key(c.value) in hit_keys]
        return hits, [c for c in consts if _value_key(c.value) not in hit_keys]

    # --------------------------------------------------------------------------------------------- not
    def _negate(self, alts: list[Alt], schema: Any, path: str, budget: int) -> list[Alt]:
        if isinstance(schema, dict) and set(schema) <= {"required"} | ANNOTATIONS:
            forbid = set(schema.get("required", ()))
            if not forbid:
                return []
            out: list[Alt] = []
            for alt in alts:
                if isinstance(alt, Obj):
                    if forbid <= {p.name for p in alt.props if p.required}:
                        continue  # not(required) asks that one of them be missing
                    alt = Obj(tuple(p for p in alt.props if not (p.name in forbid and not p.required)), alt.extra,
                              alt.extra_min, alt.extra_max, alt.reserved | forbid)
                out.append(alt)
            return out
        try:
            c_node = self.lower(schema, path, budget)
            return list(exclude(node(alts), c_node, schema, self).alts)
        except Unsupported as exc:
            raise _refuse(path, "not", str(exc)) from None


def _buckets(arr: Arr) -> list[Alt] | None:
    """The tail's alternatives split so that no two can hold the same value: constants, integers by last digit,
    fractions by last digit, strings by first character (containers dropped); None if that cannot be done
    within 64 buckets."""
    assert arr.tail is not None
    consts = [a for a in arr.tail.alts if isinstance(a, Const)]
    out: list[Alt] = [Const(v) for v in _dedupe_values([c.value for c in consts])]
    strings: list[Str] = []
    kinds: set[type] = set()
    scalars = [a for a in arr.tail.alts if not isinstance(a, Obj | Arr)]
    if not scalars:
        return None
    for alt in scalars:  # narrowing: containers are left out
        if isinstance(alt, Const):
            continue
        if type(alt) in kinds - {Str} or (isinstance(alt, Int) and alt.mult and multiple_regex(alt.mult) is None):
            return None
        kinds.add(type(alt))
        reduced: Alt | None = alt
        try:
            for c in out:
                reduced = _subtract(reduced, c) if reduced is not None else None
        except Unsupported:
            return None
        if isinstance(reduced, Int):
            out += [replace(reduced, last_digit=d) for d in range(10)]
        elif isinstance(reduced, Float):
            out += [replace(reduced, nonint=True, exponent=False, last_digit=d, digits=15) for d in range(1, 10)]
        elif isinstance(reduced, Str):
            strings.append(reduced)
    if strings:
        room = 64 - len(out) - 1
        firsts = [ord(c) for c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"][:max(room, 0)]
        if len(firsts) < len(strings):
            return None
        out.append(replace(strings[0], max_len=0))
        for i, c in enumerate(firsts):
            first = strings[i % len(strings)]
            out.append(replace(first, include=(*first.include, rx_seq(rx_set(((c, c),)), ANY_TEXT)), outer=None))
    return out if len(out) <= 64 else None


# ============================================================================================ exclusion (¬C)
def exclude(target: Node, c_node: Node, c_schema: Any, lowerer: _Lowerer) -> Node:
    """``target`` minus the values valid against ``c_schema`` (lowered: ``c_node``), soundly or ``Unsupported``.

    Constants are tested with the validator; other alternatives subtract outer bounds of ``c_node``'s languages.
    ``c_node`` must then be exact (not narrowed): only constants, plain strings, plain numbers qualify.
    """
    out: list[Alt] = []
    for alt in target.alts:
        if isinstance(alt, Const):
            if not lowerer.valid(c_schema, alt.value):
                out.append(alt)
            continue
        reduced: Alt | None = alt
        for c in c_node.alts:
            reduced = _subtract(reduced, c) if reduced is not None else None
        if reduced is not None:
            out.append(reduced)
    return node(out)


def _subtract(alt: Alt, c: Alt) -> Alt | None:
    if isinstance(c, Const) and c.partial:
        raise Unsupported("the excluded multipleOf has unbounded multiples")
    if isinstance(alt, Obj | Arr):
        if isinstance(c, type(alt)):
            if c.free:
                return None
            raise Unsupported("cannot exclude object or array constraints")
        return alt
    if isinstance(alt, Str):
        if isinstance(c, Const) and isinstance(c.value, str):
            n = len(c.value)
            return _str_minus(alt, Str(n, n, (rx_literal(c.value),)))
        if isinstance(c, Str):
            if c.outer is None or c.exclude:
                raise Unsupported("cannot exclude formats")
            if c.min_len == 0 and c.max_len is None and not c.outer:
                return None
            return _str_minus(alt, Str(c.min_len, c.max_len, c.outer))
        return alt
    if isinstance(alt, Int):
        if isinstance(c, Const) and _is_number(c.value):
            v = Fraction(c.value)
            return _int_minus(alt, (int(v), int(v))) if v.denominator == 1 else alt
        if isinstance(c, Int):
            if c.mult is not None or c.exclude:
                raise Unsupported("cannot exclude multipleOf")
            return _int_minus(alt, (c.lo, c.hi))
        return alt
    if isinstance(alt, Float):
        if isinstance(c, Const) and _is_number(c.value):
            f = float(c.value)
            return _float_minus(alt, (_down(math.nextafter(f, -math.inf)), _up(math.nextafter(f, math.inf))))
        if isinstance(c, Int):
            return Float(alt.lo, alt.hi, alt.exclude, True, False)
        if isinstance(c, Float):
            if c.exclude or c.nonint:
                raise Unsupported("cannot exclude a number set with exclusions")
            return _float_minus(alt, _float_outer(c))
        return alt
    return alt


def _str_minus(alt: Str, gone: Str) -> Str:
    return Str(alt.min_len, alt.max_len, alt.include, (*alt.exclude, gone), alt.outer if not alt.exclude else None)


def _int_minus(alt: Int, span: tuple[int | None, int | None]) -> Int | None:
    lo, hi = span
    if (lo is None or alt.lo is None or lo <= alt.lo) and (hi is None or alt.hi is None or hi >= alt.hi):
        return None
    if alt.mult is not None and multiple_regex(alt.mult) is None:
        raise Unsupported("cannot exclude values from a multipleOf range")
    return replace(alt, exclude=(*alt.exclude, span))


def _float_minus(alt: Float, span: tuple[Decimal | None, Decimal | None]) -> Float | None:
    if len(alt.exclude) >= MAX_EXCLUDED:
        raise Unsupported(f"more than {MAX_EXCLUDED} number ranges to exclude")
    lo, hi = span
    if (lo is None or (alt.lo is not None and lo <= alt.lo)) and (hi is None or (alt.hi is not None and hi >= alt.hi)):
        return None
    return Float(alt.lo, alt.hi, (*alt.exclude, span), alt.nonint, False)


def _float_outer(c: Float) -> tuple[Decimal | None, Decimal | None]:
    """Outer bounds of a Float alternative: one float step beyond its (already rounding-safe) bounds."""
    lo = None if c.lo is None else _down(math.nextafter(float(c.lo), -math.inf))
    hi = None if c.hi is None else _up(math.nextafter(float(c.hi), math.inf))
    return lo, hi


def _down(f: float) -> Decimal:
    """A short decimal at most ``f`` (17 significant digits, rounded toward minus infinity)."""
    return _short(f, "ROUND_FLOOR")


def _up(f: float) -> Decimal:
    return _short(f, "ROUND_CEILING")


def _short(f: float, rounding: str) -> Decimal:
    exact = Decimal(f)
    if exact == 0:
        return exact
    places = 17 - exact.adjusted() - 1
    return exact.quantize(Decimal(1).scaleb(-places), rounding=rounding)


# ================================================================================================ emission
def class_regex(s: Ranges) -> str:
    """A Rust regex character class for ``s`` (every non-alphanumeric character as ``\\x{...}``)."""
    def one(c: int) -> str:
        return chr(c) if chr(c).isascii() and chr(c).isalnum() else f"\\x{{{c:X}}}"

    if len(s) == 1 and s[0][0] == s[0][1]:
        return one(s[0][0])
    return "[" + "".join(one(a) if a == b else f"{one(a)}-{one(b)}" for a, b in s) + "]"


def literal_regex(text: str) -> str:
    return "".join(class_regex(((ord(c), ord(c)),)) for c in text)


def _hex_regex(points: Iterable[int], canonical: bool) -> str | None:
    """``\\uXXXX`` for each of ``points`` (BMP), as a compact regex; both hex cases unless ``canonical``."""
    groups: dict[int, list[int]] = {}
    for p in points:
        groups.setdefault(p >> 4, []).append(p & 15)
    if not groups:
        return None

    def digit_class(values: Iterable[int]) -> str:
        chars = set()
        for v in values:
            chars.add(f"{v:x}")
            if not canonical:
                chars.add(f"{v:X}")
        return class_regex(ranges_of(ord(c) for c in chars))

    options = []
    for high, lows in sorted(groups.items()):
        prefix = "".join(digit_class([int(h, 16)]) for h in f"{high:03x}")
        options.append(prefix + digit_class(lows))
    return "\\x{5C}u(?:" + "|".join(options) + ")"


@dataclass(frozen=True)
class Encoding:
    """How an output writes a string's characters: ``raw`` ones as themselves, others by their escapes.

    ``named``: the escapes of single characters (the first is canonical); ``hex``: characters that may also be
    written ``\\uXXXX`` (canonical for those without a named escape and not raw). Characters outside
    ``universe`` cannot be written at all.
    """

    universe: Ranges
    raw: Ranges
    named: tuple[tuple[int, tuple[str, ...]], ...] = ()
    hex: Ranges = ()

    def is_raw(self, c: int) -> bool:
        return any(a <= c <= b for a, b in self.raw)

    def canonical(self, c: int) -> str | None:
        if not any(a <= c <= b for a, b in self.universe):
            return None
        if self.is_raw(c):
            return chr(c)
        for point, forms in self.named:
            if point == c:
                return forms[0]
        return f"\\u{c:04x}" if any(a <= c <= b for a, b in self.hex) else None

    def literal(self, text: str) -> str | None:
        parts = [self.canonical(ord(c)) for c in text]
        return None if any(p is None for p in parts) else "".join(parts)  # type: ignore[arg-type]

    def char_regex(self, s: Ranges, canonical: bool = False) -> str | None:
        """A regex for the encodings of the characters in ``s`` (None: none can be written)."""
        s = intersect(s, self.universe)
        options = []
        raw = intersect(s, self.raw)
        if raw:
            options.append(class_regex(raw))
        named_points = set()
        for point, forms in self.named:
            if any(a <= point <= b for a, b in s):
                named_points.add(point)
                if not (canonical and self.is_raw(point)):
                    options += [literal_regex(f) for f in (forms[:1] if canonical else forms)]
        hexed = [c for a, b in intersect(s, self.hex) for c in range(a, b + 1)
                 if not (canonical and (c in named_points or self.is_raw(c)))]
        found = _hex_regex(hexed, canonical)
        if found:
            options.append(found)
        if not options:
            return None
        return options[0] if len(options) == 1 else "(?:" + "|".join(options) + ")"

    def rx_regex(self, rx: Rx, canonical: bool = False) -> str | None:
        """A regex for the encodings of the strings of ``rx`` (None: the language is empty here)."""
        kind = rx[0]
        if kind == "set":
            return self.char_regex(rx[1], canonical)
        if kind == "seq":
            parts = [self.rx_regex(item, canonical) for item in rx[1]]
            return None if any(p is None for p in parts) else "".join(parts)  # type: ignore[arg-type]
        if kind == "alt":
            parts = [p for p in (self.rx_regex(item, canonical) for item in rx[1]) if p is not None]
            return ("(?:" + "|".join(parts) + ")") if parts else None
        _, item, lo, hi = rx
        inner = self.rx_regex(item, canonical)
        if inner is None:
            return "" if lo == 0 else None
        return f"(?:{inner}){_count(lo, hi)}"


def _count(lo: int, hi: int | None) -> str:
    if hi is None:
        return "*" if lo == 0 else "+" if lo == 1 else f"{{{lo},}}"
    if lo == hi:
        return "" if lo == 1 else f"{{{lo}}}"
    return "?" if (lo, hi) == (0, 1) else f"{{{lo},{hi}}}"


def lark_string(text: str) -> str:
    """A Lark string literal."""
    return json.dumps(text, ensure_ascii=False)


def term(regex: str) -> str:
    """A Lark regex terminal (``/`` escaped; ``//`` would end the line as a comment, so empty is ``(?:)``)."""
    return "/" + (regex.replace("/", "\\/") or "(?:)") + "/"


class LarkBuilder:
    """Collects rules and terminals (deduplicated by body) and writes the Lark source."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.names: dict[tuple[str, str], str] = {}

    def _add(self, kind: str, body: str, make) -> str:
        key = (kind, body)
        if key not in self.names:
            name = make(len(self.names))
            self.names[key] = name
            self.lines.append(body.replace("\0", name))
        return self.names[key]

    def rule(self, options: Iterable[str]) -> str:
        """A rule whose alternatives are ``options`` (Lark expressions; ``""`` is the empty string)."""
        body = " | ".join(dict.fromkeys(options))
        return self._add("rule", f"\0: {body}", lambda n: f"r{n}")

    def terminal(self, expression: str) -> str:
        return self._add("terminal", f"\0: {expression}", lambda n: f"T{n}")

    def parametric(self, options: Iterable[str]) -> str:
        """A parametric rule: ``\\0`` in ``options`` stands for the rule's own name."""
        body = "\n    | ".join(options)
        return self._add("param", f"\0::_ : {body}", lambda n: f"p{n}")

    def source(self, start: str) -> str:
        return "\n".join(['%llguidance {}', f"start: {start}", *self.lines]) + "\n"


@lru_cache(maxsize=4096)
def terminal_has_text(expression: str) -> bool:
    """Whether some text matches a Lark terminal expression (regexes with ``&`` and ``~``), as llguidance's
    lexer decides it: a grammar of that terminal alone must let a first byte (or the end) through. When the
    engine gives up (its lexer fuel), the terminal counts as empty: leaving it out only narrows."""
    from ._sample import EOS, _allowed, _matcher

    try:
        matcher = _matcher(Grammar.lark(f"start: T\nT: {expression}\n"))
    except (ValueError, GrammarError):
        return False
    allowed = _allowed(matcher)
    if matcher.is_error():
        return False
    return allowed != [EOS] or matcher.is_accepting()


def repeat(symbol: str, lo: int, hi: int | None) -> str:
    if hi == 0:
        return '""'
    return f"{symbol}{_count(lo, hi)}" if (lo, hi) != (1, 1) else symbol


@dataclass(frozen=True)
class Group:
    """``lo..hi`` items in a row; the first item of a block is written with ``lead``, the others with ``sep``."""

    lead: str
    sep: str
    lo: int
    hi: int | None


def _and(*conditions: str) -> str:
    conditions = tuple(c for c in conditions if c)
    if not conditions:
        return ""
    out = conditions[-1]
    for c in reversed(conditions[:-1]):
        out = f"and({c}, {out})"
    return out


def _if(expression: str, condition: str) -> str:
    return f"{expression} %if {condition}" if condition else expression


FENCE = "```"
"""Text YAML and XML output never contains: the sample parser reads it as the start of a fenced block."""
OPEN_INT_DIGITS = 15
"""An integer with no bound on a side gets at most this many digits past the other bound (sound narrowing: a
small model otherwise writes digits until its token budget ends)."""
OPEN_ITEMS = 6
"""An array with no maxItems gets at most this many items (or minItems, if more), an object at most this many
extra properties, for the same reason."""
OPEN_LENGTH = 64
"""A string with no maxLength and no pattern or format gets at most this many characters (or minLength)."""
OPEN_PLACES = 6
"""Digits after the point in a number whose bounds need no more (a model repeats 8s until the budget ends)."""

LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
"""First letters of extra property names: one bit each, so no two extra names are equal."""


class Emitter:
    """What the YAML and XML writers share: scalar terminals, item chains, extra-key and unique-set rules."""

    encoding: Encoding
    xml: bool = False

    def __init__(self) -> None:
        self.b = LarkBuilder()
        self.memo: dict[Any, str | None] = {}

    def cached(self, key: Any, make) -> str | None:
        if key not in self.memo:
            self.memo[key] = make()
        return self.memo[key]

    # ------------------------------------------------------------------------------------- scalars
    def written(self, expression: str) -> str | None:
        """A terminal for ``expression``, or None if no text matches it: an intersection can be empty (a bucket
        "integers ending in 1" under multipleOf 4), and an empty terminal after an opening tag is a dead end
        where decoding can only stop, mid-sample."""
        return self.b.terminal(expression) if terminal_has_text(expression) else None

    def string_terminal(self, alt: Str, quote: str, nonempty: bool) -> str | None:
        """One terminal for the strings of ``alt`` (with ``quote`` around them), or None if none can be written."""
        enc = self.encoding
        char = enc.char_regex(UNIVERSE)
        lo = max(alt.min_len, 1 if nonempty else 0)
        if alt.max_len is not None and lo > alt.max_len:
            return None
        hi = alt.max_len if alt.max_len is not None or alt.include else max(lo, OPEN_LENGTH)
        parts = [f"(?:{char}){_count(lo, hi)}" if (lo, hi) != (0, None) else f"(?:{char})*"]
        for rx in alt.include:
            found = enc.rx_regex(rx)
            if found is None:
                return None
            parts.append(found)
        if alt.exclude:
            parts.append(f"(?:{enc.char_regex(UNIVERSE, canonical=True)})*")
        expression = " & ".join(term(quote + p + quote) for p in parts)
        # never three backticks: corral.schema's sample parser would take them for a code fence
        gone = [term(f"{quote}(?s:.*)```(?s:.*){quote}")]
        for ex in alt.exclude:
            inner = [f"(?:{char}){_count(ex.min_len, ex.max_len)}"] + [enc.rx_regex(rx) for rx in ex.include]
            if all(p is not None for p in inner):
                gone.append(" & ".join(term(quote + p + quote) for p in inner))  # type: ignore[operator]
        if gone:
            expression += " & ~(" + " | ".join(gone) + ")"
        return self.written(expression)

    def int_symbol(self, alt: Int) -> str | None:
        if alt.mult is not None and multiple_regex(alt.mult) is None:
            # llguidance's own integer rule; it builds 64-bit ranges only, so the range is clamped (narrowing)
            lo, hi = _max(alt.lo, -(2**62)), _min(alt.hi, 2**62)
            if not _has_multiple(lo, hi, alt.mult):
                return None
            schema: dict[str, Any] = {"type": "integer", "multipleOf": alt.mult, "minimum": lo, "maximum": hi}
            return self.b.rule([f"%json {json.dumps(schema)}"])
        span = 10**OPEN_INT_DIGITS - 1
        lo = alt.lo if alt.lo is not None else min(-span, (alt.hi if alt.hi is not None else 0) - span)
        hi = alt.hi if alt.hi is not None else max(span, lo + span)
        found = int_regex(lo, hi)
        if found is None:
            return None
        expression = term(found)
        if alt.mult is not None:
            expression += " & " + term(multiple_regex(alt.mult) or "")
        if alt.last_digit is not None:
            expression += " & " + term(f"-?[0-9]*{alt.last_digit}")
        gone = [term(r) for r in (int_regex(lo, hi) for lo, hi in alt.exclude) if r is not None]
        if gone:
            expression = f"{expression} & ~({' | '.join(gone)})"
        return self.written(expression)

    def float_symbol(self, alt: Float) -> str | None:
        bounds = [abs(b) for b in (alt.lo, alt.hi) if b is not None]
        digits = max([16] + [len(_split(b)[0]) + 1 for b in bounds])
        places = max([OPEN_PLACES] + [len(_split(b)[1]) + 2 for b in bounds])  # room between tiny bounds
        frac = f"\\.[0-9]{{1,{places}}}"
        form = f"-?(?:0|[1-9][0-9]{{0,{digits}}})" + (frac if not self.xml else f"(?:{frac})?")
        if alt.exponent:
            form += "(?:[eE][-+]?[0-9]{1,2})?" if self.xml else "(?:[eE][-+][0-9]{1,2})?"
        options = dec_range(alt.lo, alt.hi)
        if options is None:
            return None
        parts = [term(form)]
        if alt.lo is not None or alt.hi is not None:
            parts.append("(" + " | ".join(options) + ")")
        if alt.nonint:
            parts.append(term("-?[0-9]+\\.[0-9]*[1-9][0-9]*"))
        if alt.last_digit is not None:
            parts.append(term(f"-?[0-9]+\\.[0-9]*{alt.last_digit}"))
        if alt.digits is not None or alt.nonint:
            # 15 significant digits: a text with a nonzero fraction then parses to a non-integral float
            # (81920529963145849.5 would parse to an integer)
            parts.append(term(f"-?[0-9.]{{2,{min(alt.digits or 15, 15) + 1}}}"))
        expression = " & ".join(parts)
        gone = [" | ".join(found) for found in (dec_range(lo, hi) for lo, hi in alt.exclude) if found]
        if gone:
            expression += " & ~(" + " | ".join(f"({g})" for g in gone) + ")"
        return self.written(expression)

    # --------------------------------------------------------------------------------------- chains
    def chain(self, groups: list[Group], first: bool, end) -> str | None:
        """Groups in order, each ``lo..hi`` times; ``first``: nothing written yet (so at least one item must
        come, written with its ``lead``). ``end(first)`` is what follows the last group (None: impossible)."""
        memo: dict[tuple[int, bool], str | None] = {}

        def at(i: int, first: bool) -> str | None:
            if (i, first) in memo:
                return memo[(i, first)]
            if i == len(groups):
                found = end(first)
            else:
                g = groups[i]
                options = []
                if g.lo == 0:
                    rest = at(i + 1, first)
                    if rest is not None:
                        options.append(rest)
                if g.hi is None or g.hi >= 1:
                    rest = at(i + 1, False)
                    if rest is not None:
                        if first:
                            more = repeat(g.sep, max(g.lo - 1, 0), None if g.hi is None else g.hi - 1)
                            head = g.lead if more == '""' else f"{g.lead} {more}"
                        else:
                            head = repeat(g.sep, max(g.lo, 1), g.hi)
                        options.append(head if rest == '""' else f"{head} {rest}")
                found = self.b.rule(options) if options else None
            memo[(i, first)] = found
            return found

        return at(0, first)

    def extras(self, obj: Obj, first: bool, entry) -> str | None:
        """Extra properties, distinct by first letter: ``entry(letter, first)`` writes one (None: impossible)."""
        count = "[0:52]"
        most = min(obj.extra_max, max(obj.extra_min, OPEN_ITEMS))
        rest = [_if('""', f"bit_count_ge({count}, {obj.extra_min})" if obj.extra_min > 0 else "")]
        heads: list[str] = []
        for k, letter in enumerate(LETTERS):
            sym = entry(letter, False)
            if sym is None:
                continue
            room = f"bit_count_lt({count}, {most})" if most < 52 else ""
            rest.append(_if(f"{sym} \0::set_bit({k})", _and(f"bit_clear({k})", room)))
            if first:
                heads.append(f"{entry(letter, True)} \0::{hex(1 << k)}")
        name = self.b.parametric(rest)
        if not first:
            return f"{name}::0x0"
        if not heads or most < 1:
            return None
        return self.b.rule(h.replace("\0", name) for h in heads)

    def unique(self, arr: Arr, item, first: bool) -> str | None:
        """A set of distinct constants (bit k: value k used); the first ``unique_hits`` values match contains."""
        values = arr.unique or ()
        n, h = len(values), arr.unique_hits
        low = max(arr.min, 1 if first else 0)
        high = min(n, max(low, OPEN_ITEMS)) if arr.max is None else min(arr.max, n)
        if low > high:
            return None
        everything, hits = f"[0:{n}]", f"[0:{h}]"
        end = _and(f"bit_count_ge({everything}, {low})" if low else "",
                   f"bit_count_ge({hits}, {arr.hit_min})" if h and arr.hit_min else "")
        options = [_if('""', end)]
        for k, value in enumerate(values):
            cond = _and(f"bit_clear({k})", f"bit_count_lt({everything}, {high})" if high < n else "",
                        f"bit_count_lt({hits}, {arr.hit_max})" if k < h and arr.hit_max is not None else "")
            lead, sep = item(value, True), item(value, False)
            if sep is None:
                continue  # an empty bucket
            if lead == sep:
                options.append(_if(f"{sep} \0::set_bit({k})", cond))
                continue
            if lead is not None and first:
                options.append(_if(f"{lead} \0::set_bit({k})", _and(cond, f"is_zeros({everything})")))
            if sep is not None:
                sep_cond = _and(cond, f"not(is_zeros({everything}))") if first else cond
                options.append(_if(f"{sep} \0::set_bit({k})", sep_cond))
        return f"{self.b.parametric(options)}::0x0"

    def items(self, arr: Arr, item, first: bool) -> str | None:
        """The items of ``arr``: ``item(node, first)`` writes one item of ``node`` (None: impossible)."""
        if arr.unique is not None:
            return self.unique(arr, lambda value, f: item(Node((value,)), f), first)
        p = len(arr.prefix)

        def from_position(i: int, first: bool) -> str | None:
            if i == p:
                return self.tail(arr, item, first)
            options = []
            head, rest = item(arr.prefix[i], first), from_position(i + 1, False)
            if head is not None and rest is not None:
                options.append(head if rest == '""' else f"{head} {rest}")
            if i >= arr.min and not first:
                options.append('""')
            return self.b.rule(options) if options else None

        return from_position(0, first)

    def tail(self, arr: Arr, item, first: bool) -> str | None:
        """The items after the prefix: plain tail items, or contains hits first and then the rest."""
        p = len(arr.prefix)
        lo = max(0, arr.min - p)
        hi = max(lo, arr.hit_min, OPEN_ITEMS - p) if arr.max is None else arr.max - p

        def end(first: bool) -> str | None:
            return None if first else '""'

        if arr.tail is None or hi == 0:
            return end(first) if lo == 0 else None
        if arr.hit is None:
            plans = [[(arr.tail, lo, hi)]]
        elif arr.hit_max is None:
            rest_hi = None if hi is None else hi - arr.hit_min
            plans = [[(arr.hit, arr.hit_min, arr.hit_min), (arr.tail, max(0, lo - arr.hit_min), rest_hi)]]
        else:
            top = arr.hit_max if hi is None else min(arr.hit_max, hi)
            plans = [[(arr.hit, h, h), (arr.miss or EMPTY, max(0, lo - h), None if hi is None else hi - h)]
                     for h in range(arr.hit_min, top + 1)]
        options = []
        for plan in plans:
            groups: list[Group] = []
            for n, a, b in plan:
                sep = item(n, False) if n.alts else None
                if sep is None or b == 0:
                    if a > 0:
                        break
                    continue
                groups.append(Group(item(n, True) if first else sep, sep, a, b))
            else:
                found = self.chain(groups, first, end)
                if found is not None:
                    options.append(found)
        return self.b.rule(options) if options else None


def _has_multiple(lo: int, hi: int, mult: int) -> bool:
    return -(-lo // mult) * mult <= hi


def yaml_float_text(value: float) -> str:
    """A float as PyYAML's YAML 1.1 resolver reads a float: a dot, and a signed exponent if any."""
    text = repr(float(value))
    if "e" in text:
        mantissa, exponent = text.split("e")
        mantissa += "" if "." in mantissa else ".0"
        return f"{mantissa}e{exponent if exponent[0] in '+-' else '+' + exponent}"
    return text if "." in text else text + ".0"


# ======================================================================================== value utilities
def _schema_dependencies(d: dict[str, Any]) -> dict[str, Any]:
    """``dependentSchemas`` plus draft 7's ``dependencies`` whose values are schemas."""
    found = dict(d.get("dependentSchemas", {}))
    found.update({k: v for k, v in d.get("dependencies", {}).items() if not isinstance(v, list)})
    return found


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _json_types(value: Any) -> set[str]:
    if value is None:
        return {"null"}
    if isinstance(value, bool):
        return {"boolean"}
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        return {"integer", "float"}
    if isinstance(value, float):
        return {"float"}
    if isinstance(value, str):
        return {"string"}
    return {"array"} if isinstance(value, list) else {"object"}


def _value_key(value: Any) -> Any:
    """A key equal for values JSON Schema calls equal (1 == 1.0, but true != 1)."""
    if isinstance(value, bool) or value is None:
        return ("const", value)
    if _is_number(value):
        return ("number", Fraction(value))
    if isinstance(value, str):
        return ("string", value)
    if isinstance(value, list):
        return ("array", tuple(_value_key(v) for v in value))
    return ("object", tuple(sorted((k, _value_key(v)) for k, v in value.items())))


def _json_equal(a: Any, b: Any) -> bool:
    return _value_key(a) == _value_key(b)


def _dedupe_values(values: Iterable[Any]) -> list[Any]:
    seen: dict[Any, Any] = {}
    for v in values:
        seen.setdefault(_value_key(v), v)
    return list(seen.values())


def rx_matches(rx: Rx, text: str) -> bool:
    """Whether ``text`` is in the language of ``rx`` (a small backtracking matcher over positions)."""
    return len(text) in _ends(rx, text, 0)


def _ends(rx: Rx, text: str, start: int) -> frozenset[int]:
    kind = rx[0]
    if kind == "set":
        if start < len(text) and any(a <= ord(text[start]) <= b for a, b in rx[1]):
            return frozenset({start + 1})
        return frozenset()
    if kind == "seq":
        points = frozenset({start})
        for item in rx[1]:
            points = frozenset(e for p in points for e in _ends(item, text, p))
        return points
    if kind == "alt":
        return frozenset(e for item in rx[1] for e in _ends(item, text, start))
    _, item, lo, hi = rx
    reached, frontier, count = set(), {start}, 0
    if lo == 0:
        reached.add(start)
    while frontier and (hi is None or count < hi):
        count += 1
        frontier = {e for p in frontier for e in _ends(item, text, p)} - (reached if count > lo else set())
        if count >= lo:
            reached |= frontier
    return frozenset(reached)


def walk_schemas(schema: Any, path: str = "#") -> Iterator[tuple[dict[str, Any], str]]:
    """Every schema object inside ``schema`` (``$defs`` included) with its path."""
    if not isinstance(schema, dict):
        return
    yield schema, path
    for keyword in ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas"):
        for name, sub in schema.get(keyword, {}).items() if isinstance(schema.get(keyword), dict) else ():
            yield from walk_schemas(sub, f"{path}/{keyword}/{escape_pointer(name)}")
    for keyword in ("items", "additionalProperties", "contains", "not", "if", "then", "else", "propertyNames",
                    "unevaluatedProperties", "unevaluatedItems", "additionalItems"):
        if keyword in schema:
            yield from walk_schemas(schema[keyword], f"{path}/{keyword}")
    for keyword in ("prefixItems", "allOf", "anyOf", "oneOf"):
        for i, sub in enumerate(schema.get(keyword, ())):
            yield from walk_schemas(sub, f"{path}/{keyword}/{i}")
    if isinstance(schema.get("dependencies"), dict):
        for name, sub in schema["dependencies"].items():
            yield from walk_schemas(sub, f"{path}/dependencies/{escape_pointer(name)}")


__all__ = ["Enforcement", "NotExpressible", "compile_schema", "enforcement"]
