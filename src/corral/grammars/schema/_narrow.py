"""Narrowings of a JSON Schema before llguidance compiles it: always, so that what llguidance writes is valid
(``narrowed``); when asked, so that constrained decoding also ends (``bounded``).

llguidance writes an unbounded number with an exponent of any length (``1e999``, past a float's range), lets an
object's extra keys repeat one another, and writes any value where a schema leaves one open. ``narrowed`` takes
its schema: an object listing properties is closed to them (``additionalProperties: false``, as the YAML and XML
grammars write no extra ones either), a number with neither bound nor ``multipleOf`` gets the bounds of the YAML
and XML compilers (15 digits, one shared definition, so llguidance builds its range once), an untyped one is an
integer, and an open value (``{}``, free ``items``, a free object's values) is any value of those kinds with
objects of one key. ``bounded`` also bounds digits past a bound, items, lengths and extra properties: a schema
with no ``maxItems``, ``maximum``, ``maxLength`` lets a small model write until its token budget runs out
(SmolLM2 wrote 500-digit integers, arrays of hundreds of ``null``s and ``"trees:":1.0`` again and again), and a
truncated sample is no sample.

Every change only removes values, so a text of the narrowed schema is valid against the original. None is made
under ``not`` or ``if`` (where removing values adds some) or under ``oneOf`` (a value of two branches, invalid,
could lose one of them); when the schema has any of these, ``$defs`` are left alone too, since a ``$ref`` from
there may reach them. An object is closed only where no other schema applies to the same value (``allOf``,
``anyOf``, ``then``, a ``$ref`` with siblings), so no sibling's property is shut out.
"""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote

from ._enforcement import ASSERTIONS
from ._values import escape_pointer, is_number, json_types

OPEN_NUMBER = 10**15 - 1
"""How far an open side of a number reaches past the other bound (15 digits, as the YAML/XML compilers)."""
OPEN_ITEMS = 6
"""Items (and properties) at most, where the schema gives no maximum, or its minimum if larger."""
OPEN_LENGTH = 64
"""Characters at most in a string with no maxLength (and no pattern, which llguidance would have to intersect)."""
OPEN_KEYS = 1
"""Properties at most in an object that lists none (and needs no more): llguidance does not keep extra keys
distinct, and two extra keys may repeat one, which a JSON parser refuses."""
ANY_DEPTH = 2
"""How deep an unconstrained value (``{}``) may nest once bounded."""
ANY_NAME, NUMBER_NAME, OPEN_NAME = "corral-bounded-any", "corral-number", "corral-open"
"""Where the bounded "any value", the narrowed number and the narrowed open value are kept in ``$defs``, so
that each place refers to one (a copy at each would make llguidance's grammar larger and slower to build)."""
NOTES = frozenset({"title", "description", "$comment", "default", "examples", "deprecated", "readOnly", "writeOnly"})
"""Annotations that neither constrain a value nor change how references resolve (``$id`` does)."""

_TYPES = ("null", "boolean", "integer", "number", "string", "array", "object")
_SETTLED = frozenset({"string", "integer", "boolean", "null"})
_OPEN_VALUE = ["null", "boolean", "integer", "string", "array", "object"]  # every kind but fractions
_DECIDED_ELSEWHERE = frozenset({"const", "enum", "$ref", "allOf", "anyOf", "oneOf", "$dynamicRef"})
_NUMBER_BOUNDS = frozenset({"minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum", "multipleOf"})
_FREE = frozenset({"additionalProperties", "unevaluatedProperties", "patternProperties"})
_OPENERS = ("additionalProperties", "unevaluatedProperties", "patternProperties", "propertyNames", "dependencies")
_COMPOSERS = ("allOf", "anyOf", "oneOf", "$ref", "$dynamicRef", "if", "then", "else", "not", "dependentSchemas")
_NAMING = frozenset({*_OPENERS, "properties", "required", "minProperties", "maxProperties", "dependentRequired"})
_JOINING = ("then", "else", "dependentSchemas")
_NOT_CLOSING = frozenset({*_OPENERS, *_COMPOSERS})
_SCALAR = frozenset({"type", "enum", "const", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
                     "multipleOf", "minLength", "maxLength", "pattern", "format", "minItems", "maxItems",
                     "uniqueItems"})
"""Assertions beside a ``$ref`` that neither name properties nor hold subschemas: they join nothing."""
_LLG_IGNORES = frozenset({"if", "then", "else", "not", "dependentSchemas", "propertyNames", "unevaluatedProperties"})
"""Keywords llguidance ignores (lenient mode): they join nothing in the grammar it builds."""
_VALUES = frozenset({"enum", "const", "default", "examples"})
_PLAIN_NUMBER = frozenset({"type", "format", *NOTES})
_BLOCKING = _NOT_CLOSING - _LLG_IGNORES
"""What keeps an object open as llguidance reads it (keywords it ignores join nothing)."""
_KEPT = ASSERTIONS | {"$defs", "definitions", "$id", "id", "$anchor", "$dynamicAnchor", "$schema", "x-guidance"}
_KIND = {**dict.fromkeys(("properties", "required", "additionalProperties", "patternProperties", "propertyNames",
                          "minProperties", "maxProperties", "dependentRequired", "unevaluatedProperties"), "object"),
         **dict.fromkeys(("items", "prefixItems", "minItems", "maxItems", "uniqueItems", "contains",
                          "unevaluatedItems"), "array"),
         **dict.fromkeys(("minLength", "maxLength", "pattern", "format"), "string"),
         **dict.fromkeys(("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"), "number")}
_BRANCHING = frozenset({"anyOf", "oneOf", "allOf"})
_NAME_ONLY = frozenset({"required", "properties", "not", "type", *_BRANCHING, *NOTES})
"""What a branch may hold and still name no property beyond those listed beside it."""
_KEYS = re.compile(r'"(\$id|id|not|if)":(")?')
_LOCAL_REFS = re.compile(r'"\$ref":"#(/[^"]+)"')
_KEYWORDS = ASSERTIONS | _KEPT | NOTES | {"$ref", "$dynamicRef", "$vocabulary", "$recursiveRef", "$recursiveAnchor"}


# ============================================================================================ always: narrowed
def narrowed(schema: Any, text: str) -> Any:
    """``schema`` (compact text: ``text``) narrowed so that every text llguidance writes for it is valid (see the
    module doc), its annotations left out (llguidance has no use for them). The text tells cheaply what a walk
    would."""
    return _Narrowing(schema, text).result


class _Narrowing:
    def __init__(self, schema: Any, text: str) -> None:
        self.result = schema
        root = {} if schema is True else schema
        defs = root.get("$defs", {}) if isinstance(root, dict) else None
        if not isinstance(defs, dict) or NUMBER_NAME in defs or OPEN_NAME in defs:
            return
        # the text tells cheaply what a walk would (a substring test is quicker than a regex pass)
        seen = {key for key in ("not", "if", "$id", "id") if f'"{key}":' in text}
        keys = _KEYS.findall(text) if "$id" in seen or "id" in seen else []
        own = next((root[k] for k in ("$id", "id") if isinstance(root.get(k), str)), None)
        base = ""  # an inner $id (or draft 4's id) would resolve "#/$defs/..." inside itself: refer to the root's
        if sum(key in ("$id", "id") and bool(quote) for key, quote in keys) > (own is not None):
            if own is None:  # the root gets an id to be named by
                base = "https://corral.invalid/schema.json"
                root = {("id" if "draft-04" in str(root.get("$schema")) else "$id"): base, **root}
            elif "://" in own or own.startswith("urn:"):
                base = own.split("#")[0]
            else:
                return  # (a relative id resolves against a base the engine chooses)
        self.refs = {name: {"$ref": f"{base}#/$defs/{name}"} for name in (NUMBER_NAME, OPEN_NAME)}
        self.used: set[str] = set()
        # A definition is narrowed unless a `not` or `if` refers to it (narrowing under them widens), and closed
        # unless it is reached where another schema applies to the same value; either spreads to what it refers
        # to. Definitions nested deeper than the root's are never closed, and narrowed only if no `not` or `if`
        # occurs at all.
        self.defs, self.defs_closable = not {"not", "if"} & seen, False
        self.joined: set[str] = set()
        self.negated: set[str] = set()
        self.edges: dict[str, set[str]] = {}
        self.current = ""
        self.targets: dict[str, str | None] = {}
        tops = [k for k in ("$defs", "definitions") if isinstance(root.get(k), dict)]
        # A local reference may also reach a schema kept under a word of the author's own (`#/port`,
        # `#/twitter/statuses/args`): that place is narrowed as a definition is, or its numbers stay unbounded.
        self.tops, self.places = tops, _own_places(root, text) if '"$ref":"#/' in text else {}
        out = self.visit({k: v for k, v in root.items() if k not in tops}, True)
        if out is self.refs[OPEN_NAME] or out is self.refs[NUMBER_NAME]:
            out = dict(out)
        out.update(self.definitions(root, tops))
        if self.used:
            out["$defs"] = {**out.get("$defs", {}), **{n: self.shared_schema(n) for n in sorted(self.used)}}
        self.result = out

    def definitions(self, root: dict[str, Any], tops: list[str]) -> dict[str, Any]:
        """The root's definitions, each narrowed as what reaches it allows, until that no longer changes."""
        found: dict[str, Any] = {top: {} for top in tops}
        places = [(top, name, f"#/{escape_pointer(top)}/{escape_pointer(name)}") for top in tops for name in root[top]]
        places += [(None, path, where) for where, path in self.places.items()]
        states: dict[str, str] = {}
        while True:
            joined, negated = self.closure(self.joined), self.closure(self.negated)
            todo = []
            for top, name, where in places:
                state = "kept" if where in negated else "joined" if where in joined else "alone"
                if states.get(where) != state:
                    todo.append((top, name, where, state))
            if not todo:
                return found
            for top, name, where, state in todo:
                states[where], self.current = state, where
                sub = root[top][name] if top is not None else _at(root, name)
                if state == "kept":
                    self.edges[where] = {self.definition(r) for r in _references(sub)} - {None}  # type: ignore[misc]
                    narrowed_sub = sub
                else:
                    narrowed_sub = self.visit(sub, state == "alone")
                if top is None:
                    _put(found, root, name, narrowed_sub)
                else:
                    found[top][name] = narrowed_sub
            self.current = ""

    def definition(self, ref: Any) -> str | None:
        """The root definition a reference reaches (``#/$defs/name``, or an own place such as ``#/port``)."""
        if not isinstance(ref, str):
            return None
        if ref not in self.targets:
            self.targets[ref] = self._definition(ref)
        return self.targets[ref]

    def _definition(self, ref: str) -> str | None:
        pointer = unquote(ref.partition("#")[2])
        parts = pointer.split("/")
        if len(parts) >= 3 and parts[1] in self.tops:
            return f"#/{parts[1]}/{parts[2]}"
        for where in self.places:
            if pointer == where[1:] or pointer.startswith(where[1:] + "/"):
                return where
        return None

    def closure(self, start: set[str]) -> set[str]:
        out, todo = set(start), list(start)
        while todo:
            for target in self.edges.get(todo.pop(), ()):
                if target not in out:
                    out.add(target)
                    todo.append(target)
        return out

    def reached(self, ref: Any, joined: bool) -> None:
        """Note a reference: the definition it reaches, from the one being walked, and whether it is joined."""
        target = self.definition(ref)
        if target is not None:
            self.edges.setdefault(self.current, set()).add(target)
            if joined:
                self.joined.add(target)

    def shared(self, name: str) -> dict[str, Any]:
        self.used.add(name)
        return self.refs[name]

    def shared_schema(self, name: str) -> dict[str, Any]:
        if name == NUMBER_NAME:
            return {"type": "number", "minimum": -1e15, "maximum": 1e15}
        return {"type": _OPEN_VALUE, "items": self.refs[OPEN_NAME], "additionalProperties": self.refs[OPEN_NAME],
                "maxProperties": OPEN_KEYS}

    def visit(self, d: Any, closable: bool) -> Any:
        if not isinstance(d, dict):
            return self.shared(OPEN_NAME) if d is True and closable else d
        declared = d.get("type")
        if declared.__class__ is str:
            if declared in _SETTLED and d.keys().isdisjoint(_PLACES):
                return d  # a string, integer, boolean or null: nothing to narrow
            if declared == "number" and d.keys() <= _PLAIN_NUMBER:
                return self.shared(NUMBER_NAME)  # (the common case, decided as `narrow` would)
        elif len(d) == 1 and "$ref" in d:
            self.reached(d["$ref"], not closable)
            return d
        # llguidance has no use for annotations and unknown words (but a subschema kept under one may be referred to)
        drop = [k for k, v in d.items() if k not in _KEPT and (k in NOTES or not isinstance(v, dict | list))]
        if closable and len(drop) == len(d):
            return self.shared(OPEN_NAME)  # (recursive: llguidance cannot intersect it with another schema)
        if len(drop) == len(d) - 1 and "$ref" in d:
            self.reached(d["$ref"], not closable)
            return {"$ref": d["$ref"]}
        out = dict(d)
        for key in drop:
            del out[key]
        return self.narrow(out, closable)

    def narrow(self, d: dict[str, Any], closable: bool) -> Any:
        """``d`` narrowed; where another schema applies to the same value (not ``closable``), only a plain number
        is, so that llguidance's intersection of the two stays what it was."""
        keys = d.keys()
        if "not" in keys or "if" in keys:
            self.negated.update(r for word in ("not", "if") for r in map(self.definition, _references(d.get(word)))
                                if r is not None)
        if "$ref" in d:
            self.reached(d["$ref"], not closable or _joins(d))
        bare = "allOf" in d and not _effective(d["allOf"])  # (an allOf of if/then pairs, say)
        deciding = keys & _DECIDED_ELSEWHERE
        # branches that only require or constrain listed properties ("one of a or b is required") name no other
        listed_here = d.get("properties") if isinstance(d.get("properties"), dict) else {}
        names_only = bool(deciding and listed_here) and deciding <= _BRANCHING and all(
            _names_only(d[k], listed_here) for k in deciding)
        if deciding and not (bare and deciding == {"allOf"}) and not names_only:
            return _descend(d, self.visit, self.defs, self.defs_closable, closable, True)
        declared = d.get("type")
        if declared is None and len(kind := {_KIND.get(k) for k in keys} - {None}) == 1 and (
                closable or kind == {"object"}) and _surely_satisfiable(d):
            # untyped, but its keywords speak of one kind (`properties`...): only that kind is written, unless
            # that kind could be empty (a required property no value fits) where the schema allows the others
            # (where joined, a kind other schemas may exclude is not assumed)
            declared = d["type"] = kind.pop()
        names = (declared,) if isinstance(declared, str) else declared or _TYPES
        if closable and "array" in names and "items" not in d and "unevaluatedItems" not in d:
            d["items"] = self.shared(OPEN_NAME)
        if closable and "object" in names:
            listed = d.get("properties") if isinstance(d.get("properties"), dict) else {}
            required = d.get("required") if isinstance(d.get("required"), list) else []
            blocking = _BLOCKING if not (bare or names_only) else \
                _BLOCKING - ({"allOf"} if bare else set()) - (deciding if names_only else set())
            if _closes(d, listed, required, blocking):
                d["additionalProperties"] = False
            elif keys.isdisjoint(_FREE):
                d["additionalProperties"] = self.shared(OPEN_NAME)
                if not listed and "maxProperties" not in d:  # llguidance lets two extra keys be equal
                    d["maxProperties"] = max(OPEN_KEYS, _count(d.get("minProperties")), len(required))
            elif "additionalProperties" not in keys and "unevaluatedProperties" not in keys:
                # keys no pattern matches are free beside pattern properties: an open value, not 1e999
                d["additionalProperties"] = self.shared(OPEN_NAME)
        d = _descend(d, self.visit, self.defs, self.defs_closable, closable, True)
        if "number" not in names or not keys.isdisjoint(_NUMBER_BOUNDS):
            return d
        others = [t for t in names if t != "number"]
        plain = keys <= {"type", "format"}
        if plain and not others:  # a plain number: the shared bounded one
            return self.shared(NUMBER_NAME)
        if not closable:  # (a union here would multiply out in llguidance's intersection with the others)
            return d
        if plain:
            rest = {"type": others, **({"format": d["format"]} if "format" in d else {})}
            return {"anyOf": [self.shared(NUMBER_NAME), rest]}
        d["type"] = others if "integer" in others else [*others, "integer"]  # no fractions, so no exponent
        return d


# ============================================================================================= asked: bounded
def bounded(schema: Any) -> Any:
    """A copy of ``schema`` with bounds on every open number, array, object and string (see the module doc)."""
    if not isinstance(schema, dict):
        return schema
    out = copy.deepcopy(schema)
    nested_ids = _has_id(list(schema.values()))
    if nested_ids or ANY_NAME in (schema.get("$defs") or {}):
        anything: dict[str, Any] = bounded_any()  # a "#/..." reference would resolve inside an inner $id
    else:
        root = schema["$id"].split("#")[0] if isinstance(schema.get("$id"), str) else ""
        anything = {"$ref": f"{root}#/$defs/{ANY_NAME}"}
    _bound(out, not _has_unsafe(schema), anything, closable=True, defs_closable=_defs_closable(schema))
    if "$ref" in anything:
        out.setdefault("$defs", {})[ANY_NAME] = bounded_any()
    return out


def bounded_any(depth: int = ANY_DEPTH) -> dict[str, Any]:
    """Any JSON value, nested at most ``depth`` levels, each level bounded."""
    if depth <= 0:
        return {"type": ["null", "boolean", "integer", "number", "string"], "maxLength": OPEN_LENGTH,
                "maximum": OPEN_NUMBER, "minimum": -OPEN_NUMBER}
    inner = bounded_any(depth - 1)
    return {"maxItems": OPEN_ITEMS, "maxProperties": OPEN_KEYS, "maxLength": OPEN_LENGTH,
            "maximum": OPEN_NUMBER, "minimum": -OPEN_NUMBER, "items": inner, "additionalProperties": inner}


def _bound(d: dict[str, Any], defs: bool, anything: dict[str, Any], closable: bool, defs_closable: bool) -> Any:
    """Bound ``d`` in place (and return it). ``closable``: no sibling schema applies to the same value (``allOf``,
    ``anyOf``, ``then`` do), so closing its object to the listed properties cannot contradict one."""

    def visit(sub: Any, closable: bool) -> Any:
        return _bound(sub, defs, anything, closable, defs_closable) if isinstance(sub, dict) else sub

    if "const" in d or "enum" in d or ("$ref" in d and len(d) == 1):
        return _descend(d, visit, defs, defs_closable, closable)
    kinds = _types(d)
    if kinds & {"integer", "number"}:
        lows = [v for v in (_number(d.get("minimum")), _number(d.get("exclusiveMinimum"))) if v is not None]
        highs = [v for v in (_number(d.get("maximum")), _number(d.get("exclusiveMaximum"))) if v is not None]
        if not highs:
            d["maximum"] = max(OPEN_NUMBER, int(max(lows)) + OPEN_NUMBER) if lows else OPEN_NUMBER
        if not lows:
            d["minimum"] = min(-OPEN_NUMBER, int(min(highs)) - OPEN_NUMBER) if highs else -OPEN_NUMBER
    if "array" in kinds:
        if "maxItems" not in d:
            d["maxItems"] = max(OPEN_ITEMS, _count(d.get("minItems")))
        if "items" not in d and "unevaluatedItems" not in d:
            d["items"] = dict(anything)
    if "object" in kinds:
        listed = d.get("properties") if isinstance(d.get("properties"), dict) else {}
        required = d.get("required") if isinstance(d.get("required"), list) else []
        composed = any(k in d for k in ("allOf", "anyOf", "$ref"))
        if "maxProperties" not in d and set(listed) <= set(required) and not composed:
            # llguidance (strict) counts properties only when every listed one is required (merged ones too)
            d["maxProperties"] = max(OPEN_KEYS if not listed else OPEN_ITEMS, _count(d.get("minProperties")),
                                     len(listed), len(required))
        if closable and _closes(d, listed, required):
            # extra properties are where a small model loops ('"trees:":1.0' again and again), and llguidance
            # lets them repeat a key; YAML and XML write none beside listed ones either
            d["additionalProperties"] = False
        if not listed and not any(k in d for k in ("additionalProperties", "unevaluatedProperties",
                                                   "patternProperties")):
            # only for objects that list nothing: beside listed names llguidance must build a regex excluding
            # them, which made compiling JSONSchemaBench about 14 times slower
            d["additionalProperties"] = dict(anything)
    if "string" in kinds and "maxLength" not in d and "pattern" not in d:
        d["maxLength"] = max(OPEN_LENGTH, _count(d.get("minLength")))
    return _descend(d, visit, defs, defs_closable, closable)


# ================================================================================ where narrowing is sound
def _descend(d: dict[str, Any], visit: Callable[[Any, bool], Any], defs: bool, defs_closable: bool,
             closable: bool, one_of: bool = False) -> dict[str, Any]:
    """``d`` with each subschema at a place where narrowing is sound replaced by ``visit(subschema, closable)``.

    ``closable``: whether ``d`` itself is (no sibling schema applies to its value); what ``d`` holds is closable
    where ``d`` is, an ``anyOf`` branch only if ``d`` names no property, a property's value only if no pattern
    property may apply to it, a definition where ``defs_closable``. ``one_of``: ``oneOf`` branches too (for
    llguidance, which reads ``oneOf`` as ``anyOf``). Nothing under ``not`` or ``if`` is visited, nor ``$defs``
    unless ``defs``."""
    for keyword in d.keys() & _PLACES:
        sub = d[keyword]
        if keyword in _MAPS and isinstance(sub, dict) and (defs or keyword in ("properties", "patternProperties")):
            inner = (closable and "patternProperties" not in d if keyword == "properties"
                     else closable and "properties" not in d if keyword == "patternProperties" else defs_closable)
            d[keyword] = {name: visit(s, inner) for name, s in sub.items()}
        elif keyword in _LISTS and isinstance(sub, list) and (one_of or keyword != "oneOf"):
            inner = closable and (keyword == "prefixItems" or not _joins(d)) and (keyword != "allOf" or (
                len(sub) == 1 and not any(k in ASSERTIONS for k in d if k != "allOf")))  # (a reference, in effect)
            d[keyword] = [visit(s, inner) for s in sub]
        elif keyword not in _MAPS and keyword not in _LISTS:
            d[keyword] = visit(sub, closable and keyword not in ("then", "else"))
    return d


_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions"})
_LISTS = frozenset({"prefixItems", "allOf", "anyOf", "oneOf"})
_PLACES = _MAPS | _LISTS | {"items", "additionalProperties", "then", "else", "unevaluatedProperties",
                            "unevaluatedItems", "additionalItems"}


def _closes(d: dict[str, Any], listed: dict[str, Any], required: list[Any],
            blocking: frozenset[str] = _NOT_CLOSING) -> bool:
    """Whether an object listing properties may be closed to them: nothing else names or counts properties,
    and nothing it requires (directly, by ``dependentRequired``, by ``minProperties``) lies outside the list."""
    if not listed or any(not _says_nothing(k, d[k]) for k in d.keys() & blocking):
        return False
    dependent = d.get("dependentRequired") if isinstance(d.get("dependentRequired"), dict) else {}
    needed = {*required, *dependent, *(n for names in dependent.values() if isinstance(names, list) for n in names)}
    least = _count(d.get("minProperties"))
    # llguidance counts properties only when every listed one is required; otherwise (lenient) minProperties
    # counts extra ones, which a closed object has none of
    return needed <= listed.keys() and (least == 0 or (listed.keys() <= set(required) and least <= len(listed)))


def _names_only(branches: Any, listed: dict[str, Any]) -> bool:
    """Whether every branch only requires or constrains properties of ``listed`` (nested the same way), so closing
    the object to ``listed`` leaves each branch satisfiable as it was."""
    if not isinstance(branches, list) or not branches:
        return False
    for branch in branches:
        if not isinstance(branch, dict) or not branch.keys() <= _NAME_ONLY or branch.get("type", "object") != "object":
            return False
        required, named = branch.get("required", []), branch.get("properties", {})
        if not isinstance(required, list) or not isinstance(named, dict):
            return False
        if not set(required) <= listed.keys() or not named.keys() <= listed.keys():
            return False
        if not all(_names_only(branch[k], listed) for k in branch.keys() & _BRANCHING):
            return False
        if "not" in branch and not _names_only([branch["not"]], listed):
            return False
    return True


def _surely_satisfiable(d: Any, depth: int = 3) -> bool:
    """Whether some value surely fits ``d``, judged cheaply (False: perhaps not): bounds in order, every required
    property listed (or extra ones allowed) with a schema surely satisfiable in turn, no ``enum``/``const``
    beside a ``type`` they might miss; a reference or applicator is trusted to its own place."""
    if d is True or d == {}:
        return True
    if not isinstance(d, dict) or depth <= 0 or "not" in d:
        return False
    if "enum" in d or "const" in d:  # a listed value of the declared type, with nothing else asked of it
        values = [d["const"]] if "const" in d else d["enum"] if isinstance(d["enum"], list) else []
        kinds = _types(d) | ({"float"} if "number" in _types(d) else set())
        return (d.keys() - NOTES <= {"enum", "const", "type"} and len(d.keys() & {"enum", "const"}) == 1
                and any(json_types(v) & kinds for v in values))
    if d.get("type") == []:
        return False
    for low, high in (("minLength", "maxLength"), ("minItems", "maxItems"), ("minProperties", "maxProperties")):
        if is_number(d.get(low)) and is_number(d.get(high)) and d[low] > d[high]:
            return False
    lows = [d[k] for k in ("minimum", "exclusiveMinimum") if is_number(d.get(k))]
    highs = [d[k] for k in ("maximum", "exclusiveMaximum") if is_number(d.get(k))]
    if lows and highs:
        low, high = max(lows), min(highs)
        exclusive = "exclusiveMinimum" in d or "exclusiveMaximum" in d
        if low > high or (low == high and exclusive) or (d.get("type") == "integer" and (
                math.ceil(low) > math.floor(high) or (exclusive and math.floor(high) - math.ceil(low) < 2))):
            return False
    listed = d.get("properties") if isinstance(d.get("properties"), dict) else {}
    required = d.get("required") if isinstance(d.get("required"), list) else []
    for name in required:
        if name in listed:
            if not _surely_satisfiable(listed[name], depth - 1):
                return False
        elif d.get("additionalProperties") is False or "patternProperties" in d:
            return False
    if is_number(d.get("maxProperties")) and len(set(required)) > d["maxProperties"]:
        return False
    return "items" not in d or not is_number(d.get("minItems")) or d["minItems"] == 0 or _surely_satisfiable(
        d["items"], depth - 1)


def _says_nothing(keyword: str, value: Any) -> bool:
    """``additionalProperties: true`` (or ``{}``) allows what leaving it out allows."""
    return keyword in ("additionalProperties", "unevaluatedProperties") and value in (True, {})


def _joins(d: dict[str, Any]) -> bool:
    """Whether ``d`` joins two schemas on one value as llguidance reads it: an ``allOf`` of several or beside
    assertions, an ``anyOf`` beside keywords naming properties, a ``$ref`` beside assertions, pattern
    properties beside listed ones (keywords llguidance ignores count for nothing)."""
    keys = d.keys()
    branches = [b for b in d.get("allOf", ()) if _effective([b])]
    if len(branches) > 1 or (branches and any(k in ASSERTIONS and k not in _LLG_IGNORES and k != "allOf"
                                              for k in keys)):
        return True
    return (not keys.isdisjoint(("anyOf", "oneOf")) and not keys.isdisjoint(_NAMING)) or (
        "$ref" in d and any(k in ASSERTIONS and k not in _SCALAR for k in keys if k != "$ref")) or (
        "patternProperties" in d and "properties" in d)


def _effective(branches: Any) -> bool:
    """Whether some of ``branches`` constrains what llguidance writes (``false``, or a keyword it reads)."""
    return not isinstance(branches, list) or any(b is False or (isinstance(b, dict) and any(
        k in ASSERTIONS and k not in _LLG_IGNORES for k in b)) for b in branches)


def _own_places(root: dict[str, Any], text: str) -> dict[str, tuple[str, ...]]:
    """The schemas local references reach under words that are not keywords (``#/port``), by pointer, each with
    its path; a place inside another is left to the outer one."""
    found: dict[str, tuple[str, ...]] = {}
    for pointer in sorted({unquote(p) for p in _LOCAL_REFS.findall(text)}, key=len):
        path = tuple(p.replace("~1", "/").replace("~0", "~") for p in pointer.split("/")[1:])
        if not path or path[0] in _KEYWORDS or any(pointer.startswith(w[1:] + "/") for w in found):
            continue
        if isinstance(_at(root, path), dict):
            found["#" + pointer] = path
    return found


def _at(root: Any, path: tuple[str, ...]) -> Any:
    for part in path:
        if not isinstance(root, dict):
            return None
        root = root.get(part)
    return root


def _put(out: dict[str, Any], root: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    """Set ``value`` at ``path`` in ``out`` (whose containers are the root's until copied here)."""
    head, *rest = path
    if not rest:
        out[head] = value
        return
    out[head] = inner = dict(out.get(head) or root[head])
    _put(inner, root[head], tuple(rest), value)


def _references(schema: Any) -> list[Any]:
    """Every ``$ref`` in ``schema``."""
    if isinstance(schema, dict):
        return [*([schema["$ref"]] if "$ref" in schema else []),
                *(r for k, v in schema.items() if k not in _VALUES for r in _references(v))]
    return [r for v in schema for r in _references(v)] if isinstance(schema, list) else []


def _defs_closable(schema: Any) -> bool:
    """Whether objects under ``$defs`` may be closed: every reference stands alone and no applicator joins
    two schemas on one value (a definition used inside ``allOf`` must not lose its siblings' properties)."""
    if isinstance(schema, dict):
        if any(k in schema for k in _JOINING) or _joins(schema):
            return False
        return all(_defs_closable(v) for k, v in schema.items() if k not in _VALUES)
    if isinstance(schema, list):
        return all(_defs_closable(v) for v in schema)
    return True


def _has_unsafe(schema: Any) -> bool:
    """Whether ``not``, ``if`` or ``oneOf`` occur (then ``bounded`` leaves ``$defs`` alone)."""
    if isinstance(schema, dict):
        return any(k in schema for k in ("not", "if", "oneOf")) or any(_has_unsafe(v) for v in schema.values())
    if isinstance(schema, list):
        return any(_has_unsafe(v) for v in schema)
    return False


def _has_id(value: Any) -> bool:
    if isinstance(value, dict):
        return isinstance(value.get("$id"), str) or any(_has_id(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_id(v) for v in value)
    return False


def _types(d: dict[str, Any]) -> set[str]:
    declared = d.get("type")
    if isinstance(declared, str):
        declared = [declared]
    if not isinstance(declared, list):
        return set(_TYPES)
    found = {t for t in declared if isinstance(t, str)}
    return found | ({"number"} if "integer" in found else set()) | ({"integer"} if "number" in found else set())


def _number(value: Any) -> int | float | None:
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
