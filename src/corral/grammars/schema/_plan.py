"""What Corral hands llguidance's JSON Schema compiler, decided without compiling when the schema text allows.

llguidance refuses, in its default strict mode, any schema using a keyword it does not implement (``JSON_IGNORED``)
or a format it does not know; told to be lenient, it ignores them (and ``enforcement`` reports them as checked
after decoding). It also refuses some *values* even when lenient: a pattern its regex parser cannot read, a
``multipleOf`` with too many digits, a float range it cannot build; those values are dropped from the decoding
schema and reported.

Deciding this by asking llguidance costs a full compile (about half of what building the matcher costs), so the
plan is read off the schema's compact text instead: a scan for the keywords, the formats, and every pattern and
number in the text. Only a schema with a value the scan cannot vouch for (an unusual regex, a long or exponent
number) is compiled here to find what to drop. The scan is conservative: a keyword name seen anywhere (even in
an unused ``$defs`` entry) makes the plan lenient, never the other way round. tests/grammars/test_json_plan.py
checks it against llguidance's own verdict on every schema Corral ships and on hypothesis-drawn values.

Refusals no scan foresees (a cyclic ``$ref`` with sibling keywords, overlapping ``patternProperties``, an
unsatisfiable ``allOf``) surface when the grammar is compiled: ``Grammar.validate()`` or the first matcher.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ._enforcement import refuse
from ._values import compact, walk_schemas

# What llguidance 1.9.1's JSON Schema compiler does with each keyword, found by probing it (the probe tests in
# tests/grammars/test_schema_grammars.py keep this table honest): it rejects the keywords below unless told to be
# lenient (``uniqueItems: false`` included), and lenient mode then ignores them.
JSON_IGNORED = {
    "uniqueItems": "llguidance ignores it (lenient mode)",
    "contains": "llguidance ignores it (lenient mode)",
    "minContains": "llguidance ignores it (lenient mode)",
    "maxContains": "llguidance ignores it (lenient mode)",
    "not": "llguidance ignores it (lenient mode)",
    "if": "llguidance ignores if/then/else (lenient mode)",
    "then": "llguidance ignores if/then/else (lenient mode)",
    "else": "llguidance ignores if/then/else (lenient mode)",
    "dependentRequired": "llguidance ignores it (lenient mode)",
    "dependentSchemas": "llguidance ignores it (lenient mode)",
    "dependencies": "llguidance ignores it (lenient mode)",
    "propertyNames": "llguidance ignores it (lenient mode)",
    "unevaluatedProperties": "llguidance ignores it (lenient mode)",
    "unevaluatedItems": "llguidance ignores it (lenient mode)",
    "$dynamicRef": "llguidance ignores it (lenient mode)",
}
JSON_FORMATS_EXACT = frozenset({"email", "ipv4", "ipv6", "uuid", "uri", "duration"})
JSON_FORMATS_UNSOUND = {
    "date": "llguidance accepts days a month does not have (2023-02-29) and year 0000",
    "time": "llguidance accepts second 60 (a leap second), which jsonschema refuses",
    "date-time": "llguidance accepts second 60 (a leap second), which jsonschema refuses",
    "hostname": "llguidance does not limit a hostname to 253 characters",
}
LLG_FORMATS = JSON_FORMATS_EXACT | set(JSON_FORMATS_UNSOUND)

DROPPABLE = ("pattern", "multipleOf", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")
"""Keywords whose value llguidance may refuse on its own: such a value is dropped and reported."""


@dataclass(frozen=True)
class JsonPlan:
    """The schema text handed to llguidance: the caller's, made lenient when llguidance would refuse a keyword,
    minus the values it cannot compile even then (``dropped``: path and keyword of each). ``compiled``: whether
    llguidance has compiled it already (only when a value had to be tried)."""

    source: str
    strict: bool
    dropped: tuple[tuple[str, str], ...] = ()
    compiled: bool = False

    @property
    def schema(self) -> Any:
        return json.loads(self.source)

    def applied_to(self, schema: Any) -> Any:
        """The plan's schema as a value, made from the planned ``schema`` itself where the plan drops nothing."""
        return self.schema if self.dropped else schema if self.strict else _lenient(schema)


@lru_cache(maxsize=256)
def json_plan(text: str) -> JsonPlan:
    """The plan for the schema whose ``compact`` text is ``text``."""
    strict = scan(text)
    if strict is None:
        return _compiled_plan(text)
    return JsonPlan(text, True) if strict else JsonPlan(_lenient_text(text), False)


# ------------------------------------------------------------------------------------------------- the scan
LENIENT_WHEN = (*JSON_IGNORED, "oneOf", "minProperties", "maxProperties")
"""Keywords that may need lenient mode: the ignored ones, a oneOf llguidance cannot prove exclusive (lenient
reads it as anyOf), min/maxProperties with optional properties (lenient counts only the extra ones)."""
_NUMBERS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")
_WATCHED = re.compile('"(' + "|".join(re.escape(k) for k in (*LENIENT_WHEN, *_NUMBERS, "pattern", "format")) + ')":')
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')
_NUMBER = re.compile(r"-?[0-9][-+.eE0-9]*")
_PLAIN_NUMBER = re.compile(r"-?[0-9]{1,12}(?:\.[0-9]{1,6})?")
_PLAIN_INTEGER = re.compile(r"[0-9]{1,9}")  # llguidance keeps a multiple in 32 bits
"""Bounds and multiples llguidance always builds (hypothesis checks both in the plan tests); a fractional
``multipleOf`` is tried, as llguidance reads it through its float (8.38 has 16 digits there)."""


def scan(text: str) -> bool | None:
    """True: strict mode compiles; False: lenient mode is needed; None: a value llguidance refuses on its own is
    in the text (found by trying, once per value, each number and pattern the scan cannot vouch for).

    One pass over the keys of interest; a key whose value is not of the keyword's kind (a property named
    ``pattern``, say) is skipped, except that a lenient keyword counts wherever its name is a key."""
    lenient = False
    for found in _WATCHED.finditer(text):
        keyword, at = found.group(1), found.end()
        if keyword in _NUMBERS:
            number = _NUMBER.match(text, at)
            plain = _PLAIN_INTEGER if keyword == "multipleOf" else _PLAIN_NUMBER
            if number and not plain.fullmatch(number[0]) and not _value_compiles(keyword, number[0]):
                return None
        elif keyword in ("pattern", "format"):
            string = _STRING.match(text, at)
            if string is None:
                continue
            if keyword == "format":
                lenient = lenient or json.loads(string[0]) not in LLG_FORMATS
            elif not plain_pattern(json.loads(string[0])) and not _value_compiles("pattern", string[1]):
                return None
        else:
            lenient = True
    return not lenient


@lru_cache(maxsize=4096)
def _value_compiles(keyword: str, literal: str) -> bool:
    """Whether llguidance compiles this keyword's value (a number's text, or a pattern as the inside of a JSON
    string) in a schema of its own, for either numeric type."""
    if keyword == "pattern":
        return llg_error(f'{{"type":"string","pattern":"{literal}"}}') is None
    return all(llg_error(f'{{"type":"{kind}","{keyword}":{literal}}}') is None for kind in ("number", "integer"))


_PLAIN_ESCAPE = re.compile(r"\\(?:[dDwWsS.\\/\-\[\]{}()*+?^$|nrtf]|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|[pP]\{[A-Za-z_]+\})")
_CLASS_ITEM = r"(?:[^\\\[\]]|" + _PLAIN_ESCAPE.pattern + ")"
_CLASS = re.compile(r"\[\^?+(?:\]|" + _CLASS_ITEM + ")" + _CLASS_ITEM + r"*\]")  # not empty; a leading ] is literal
_COUNT = re.compile(r"\{([0-9]{1,4})(?:(,)([0-9]{0,4}))?\}")


def plain_pattern(pattern: str) -> bool:
    r"""Whether llguidance's regex parser surely reads ``pattern``: well-formed, anchors only where they anchor
    the whole pattern or a top-level alternative (and no group holding one repeated), groups only plain or
    ``(?:``, the common escapes, classes without ranges across escapes; no lookaround, back-reference, word
    boundary or ``\c``. False means "try it"."""
    i, end = 0, len(pattern)
    groups: list[bool] = []  # per open group: whether it holds an anchor
    previous = "start"  # start, open, alt, atom, closed (a group), anchored (a group holding an anchor), other
    while i < end:
        c = pattern[i]
        if c == "\\":
            found = _PLAIN_ESCAPE.match(pattern, i)
            if found is None:
                return False
            i, previous = found.end(), "atom"
        elif c == "[":
            found = _CLASS.match(pattern, i)
            if found is None or not _plain_class(found[0]):
                return False
            i, previous = found.end(), "atom"
        elif c in "*+?{":
            if previous not in ("atom", "closed"):
                return False
            count = _COUNT.match(pattern, i) if c == "{" else None
            if c == "{" and (count is None or (count[3] and int(count[3]) < int(count[1]))):
                return False
            i = count.end() if count else i + 1
            i += pattern.startswith("?", i)  # lazy
            previous = "other"
        elif c == "(":
            if pattern.startswith("(?", i) and not pattern.startswith("(?:", i):
                return False
            groups.append(False)
            i, previous = i + (3 if pattern.startswith("(?:", i) else 1), "open"
        elif c == ")":
            if not groups:
                return False
            i, previous = i + 1, "anchored" if groups.pop() else "closed"
        elif c == "|":
            i, previous = i + 1, "alt"
        elif c in "^$":
            whole = (_OPENING.fullmatch(pattern, 0, i) or (previous == "alt" and not groups)) if c == "^" else (
                _CLOSING.fullmatch(pattern, i + 1) or (not groups and pattern.startswith("|", i + 1)))
            if not whole:
                return False
            groups = [True] * len(groups)
            i, previous = i + 1, "other"
        elif c in "]}":
            return False
        else:
            i, previous = i + 1, "atom"
    return not groups


def _plain_class(text: str) -> bool:
    r"""A class whose ranges join two plain characters in order (``[a-z]``, not ``[z-a]`` or ``[\d-z]``)."""
    body = text[1:-1].removeprefix("^")
    for k in range(1, len(body) - 1):
        if body[k] == "-" and body[k - 1] != "\\":
            left, right = body[k - 1], body[k + 1]
            if right == "\\" or (k >= 2 and body[k - 2] == "\\") or left > right:
                return False
    return True


_OPENING = re.compile(r"(?:\((?:\?:)?)*")
_CLOSING = re.compile(r"\)*")


# -------------------------------------------------------------------------------------- asking llguidance
def llg_error(schema_text: str) -> str | None:
    """llguidance's first error line for this schema text, or None if it compiles (no tokenizer needed)."""
    from llguidance import LLMatcher

    try:
        grammar = LLMatcher.grammar_from_json_schema(schema_text, defaults={"whitespace_flexible": False})
        is_error, messages = LLMatcher.validate_grammar_with_warnings(grammar)
    except ValueError as exc:
        return str(exc).strip().splitlines()[0]
    return (messages[0].strip().splitlines() or ["rejected"])[0] if is_error else None


def _lenient(schema: Any) -> Any:
    if not isinstance(schema, dict):
        return schema
    options = schema.get("x-guidance", {})
    return {**schema, "x-guidance": {**(options if isinstance(options, dict) else {}), "lenient": True}}


def _lenient_text(text: str) -> str:
    """``_lenient`` on the text itself when the root is an object without options (a JSON round trip costs
    more than the rest of the plan)."""
    if text.startswith("{") and '"x-guidance":' not in text:
        return '{"x-guidance":{"lenient":true}' + ("}" if text == "{}" else "," + text[1:])
    return compact(_lenient(json.loads(text)))


def _compiled_plan(text: str) -> JsonPlan:
    """The plan found by compiling: strict if llguidance takes the schema, else lenient, else lenient with each
    value llguidance refuses on its own dropped. Raises ``NotExpressible`` if it refuses even that."""
    if llg_error(text) is None:
        return JsonPlan(text, True, compiled=True)
    if llg_error(_lenient_text(text)) is None:
        return JsonPlan(_lenient_text(text), False, compiled=True)
    lenient = _lenient(json.loads(text))
    dropped = []
    for d, path in walk_schemas(lenient):
        for keyword in DROPPABLE:
            if keyword in d and llg_error(compact(_alone(d, keyword))) is not None:
                del d[keyword]
                dropped.append((path, keyword))
    error = llg_error(compact(lenient))
    if error is not None:
        raise refuse("#", "(schema)", f"llguidance refuses it: {error}")
    return JsonPlan(compact(lenient), False, tuple(dropped), compiled=True)


def _alone(d: dict[str, Any], keyword: str) -> dict[str, Any]:
    """``keyword`` of ``d`` in a schema of its own (with ``d``'s type, which some keywords need)."""
    kind = "string" if keyword == "pattern" else "integer" if d.get("type") == "integer" else "number"
    return {"type": kind, keyword: d[keyword]}
