"""Hypothesis strategies for the schema-form tests: JSON data and JSON Schemas with awkward keys and strings.

The schemas mix every keyword the forms handle (pydantic-expressible or not) with keys that are Python keywords,
pydantic attribute names, not XML names, or YAML look-alikes ("yes", "null", "2024-01-01"), so that the round
trips and the pydantic rendering meet the cases that break naive writers.
"""

from __future__ import annotations

import json
import re
from typing import Any

from hypothesis import strategies as st

# XML 1.0 cannot hold these characters at all (not even as &#...;), so the typed-XML form cannot either
XML_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")

# ConCodeEval's Listing 7 (appendix A.6), the schema every form's hand-written test starts from
LISTING_7 = {
    "type": "object",
    "properties": {
        "footbaths": {"type": "boolean"},
        "deluded": {"type": "null"},
        "bravadoing": {"type": "number", "exclusiveMaximum": 5.131849487240756},
        "queintise": {},
        "manucodia": {"type": "number"},
        "antagonized": {},
        "outbacker": {"type": "number"},
        "sphenotripsy": {"type": "boolean"},
        "hw": {"type": "null"},
    },
    "additionalProperties": True,
    "required": [],
}

TYPES = ("null", "boolean", "integer", "number", "string", "array", "object")

AWKWARD_KEYS = (
    "type", "class", "None", "int", "str", "list", "model_config", "model_x", "schema", "json", "copy", "dict",
    "validate", "_private", "__dunder__", "foo-bar", "foo_bar", "1st", "", " ", "a b", "日本語", "é", "xml",
    "xmlns", "key", "item", "Item", "Schema", "Field", "Any", "Literal", "Annotated", "yes", "null", "true", "1.0",
    "2024-01-01", "<<", "a\nb", "tab\t", "quote\"'", "&amp;", "<tag>", "a/b", "~0", "root", "properties", "$ref",
    "minimum", "if", "match", "Address", "AddressItem",
)  # fmt: skip
AWKWARD_STRINGS = (
    "yes", "no", "on", "off", "null", "Null", "~", "", "1.0", "5", "0x1F", "1e3", ".inf", "2024-01-01",
    "2024-01-01T00:00:00Z", "12:30:00", "  lead", "trail  ", " ", "a: b", "- x", "#c", "&a", "*b", "!tag", "%p",
    "@x", "`", "'", '"', "\\", "\n", "\t", "é", "😀", "\u2028", "\x85", "\u00a0", "\ufeff", "<![CDATA[x]]>",
    "]]>", "<a>&amp;</a>", "a\nb\n", "---", "...",
)  # fmt: skip
PATTERNS = ("^[a-z]+$", "a", "^\\d{3}-\\d{4}$", "(?=a)b", "(a)\\1", "\\p{L}+", "[", "^$", "x{2,3}", "é+")
FORMATS = ("date-time", "date", "time", "email", "idn-email", "uri", "ipv4", "uuid", "regex", "hostname")

texts = st.text(max_size=8)
strings = st.one_of(st.sampled_from(AWKWARD_STRINGS), texts)
keys = st.one_of(st.sampled_from(AWKWARD_KEYS), st.from_regex(r"[a-z][a-z0-9_]{0,6}", fullmatch=True), texts)
integers = st.one_of(st.integers(-5, 100), st.integers(), st.sampled_from([0, 1, -1, 10**20, -(2**63)]))
floats = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([0.0, -0.0, 5.0, 0.1, 2.66, 5.131849487240756, 1e300, 5e-324, 1e16, 0.08231885995435284]),
)
numbers = st.one_of(integers, floats)
counts = st.integers(0, 12)
scalars = st.one_of(st.none(), st.booleans(), integers, floats, strings)


def json_values(keys_: st.SearchStrategy[str] = keys, strings_: st.SearchStrategy[str] = strings) -> st.SearchStrategy:
    """Any JSON data (the root may be a scalar), nested a few levels."""
    leaves = st.one_of(st.none(), st.booleans(), integers, floats, strings_)
    return st.recursive(
        leaves,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys_, inner, max_size=4),
        max_leaves=12,
    )


def xml_safe(text: str) -> bool:
    """Whether the typed-XML form can hold ``text`` (see XML_ILLEGAL)."""
    return not XML_ILLEGAL.search(text)


@st.composite
def schemas(draw: st.DrawFn, depth: int = 2, root: bool = True) -> dict[str, Any]:
    """A JSON Schema object: a type (one, several or none) and a random selection of keywords, those that apply
    to its types mostly, with subschemas down to ``depth`` levels."""
    type_ = draw(st.one_of(st.sampled_from(TYPES), st.sampled_from(TYPES), st.none(),
                           st.lists(st.sampled_from(TYPES), min_size=2, max_size=3, unique=True)))
    types = [type_] if isinstance(type_, str) else (type_ or [])
    if root and draw(st.booleans()):
        types, type_ = ["object"], "object"
    stray = draw(st.booleans()) and draw(st.booleans())  # now and then a keyword for another type
    pairs: list[tuple[str, Any]] = []
    if type_ is not None:
        pairs.append(("type", type_))
    if "integer" in types or "number" in types or stray:
        pairs += _numeric(draw, integral="number" not in types)
    if "string" in types or stray:
        pairs += _string(draw)
    if "array" in types or stray:
        pairs += _array(draw, depth)
    if "object" in types or stray:
        pairs += _object(draw, depth)
    pairs += _generic(draw, depth)
    order = draw(st.permutations(range(len(pairs))))
    return {pairs[i][0]: pairs[i][1] for i in order}


def _maybe(draw: st.DrawFn, weight: int = 2) -> bool:
    """True about 1 time in ``weight``."""
    return draw(st.integers(1, weight)) == 1


def _numeric(draw: st.DrawFn, integral: bool) -> list[tuple[str, Any]]:
    out = []
    value = integers if integral and not _maybe(draw, 6) else numbers
    for kw in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        if _maybe(draw, 3):
            out.append((kw, draw(value)))
    if _maybe(draw, 3):
        positive = st.integers(1, 50) if integral else st.one_of(st.integers(1, 50), st.floats(0.01, 100))
        out.append(("multipleOf", draw(positive)))
    return out


def _string(draw: st.DrawFn) -> list[tuple[str, Any]]:
    out = []
    for kw in ("minLength", "maxLength"):
        if _maybe(draw, 3):
            out.append((kw, draw(counts)))
    if _maybe(draw, 3):
        out.append(("pattern", draw(st.one_of(st.sampled_from(PATTERNS), strings))))
    if _maybe(draw, 4):
        out.append(("format", draw(st.sampled_from(FORMATS))))
    return out


def _array(draw: st.DrawFn, depth: int) -> list[tuple[str, Any]]:
    out = []
    if depth > 0 and _maybe(draw):
        out.append(("items", draw(_subschema(depth - 1))))
    for kw in ("minItems", "maxItems"):
        if _maybe(draw, 3):
            out.append((kw, draw(counts)))
    if _maybe(draw, 3):
        out.append(("uniqueItems", draw(st.booleans())))
    if depth > 0 and _maybe(draw, 4):
        out.append(("contains", draw(_subschema(depth - 1))))
        for kw in ("minContains", "maxContains"):
            if _maybe(draw):
                out.append((kw, draw(counts)))
    if depth > 0 and _maybe(draw, 8):
        out.append(("prefixItems", draw(st.lists(_subschema(depth - 1), min_size=1, max_size=2))))
    return out


def _object(draw: st.DrawFn, depth: int) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    names: list[str] = []
    if depth > 0 and not _maybe(draw, 4):
        properties = draw(st.dictionaries(keys, _subschema(depth - 1), max_size=4))
        names = list(properties)
        out.append(("properties", properties))
    if _maybe(draw):
        required = draw(st.lists(st.sampled_from(names), unique=True)) if names else []
        if _maybe(draw, 5):
            required.append(draw(keys.filter(lambda k: k not in names)))
        out.append(("required", required))
    if _maybe(draw):
        extra = draw(st.one_of(st.booleans(), _subschema(depth - 1))) if depth > 0 else draw(st.booleans())
        out.append(("additionalProperties", extra))
    for kw in ("minProperties", "maxProperties"):
        if _maybe(draw, 5):
            out.append((kw, draw(counts)))
    if depth > 0 and _maybe(draw, 8):
        out.append(("patternProperties", {draw(st.sampled_from(PATTERNS)): draw(_subschema(0))}))
    if _maybe(draw, 8):
        out.append(("propertyNames", {"maxLength": draw(counts)}))
    if names and _maybe(draw, 8):
        out.append(("dependentRequired", {names[0]: draw(st.lists(keys, max_size=2))}))
    return out


def _generic(draw: st.DrawFn, depth: int) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    if _maybe(draw, 5):
        values = st.one_of(scalars, scalars, st.lists(scalars, max_size=2), st.dictionaries(keys, scalars, max_size=2))
        out.append(("enum", draw(st.lists(values, min_size=1, max_size=4))))
    if _maybe(draw, 8):
        out.append(("const", draw(st.one_of(scalars, st.lists(scalars, max_size=2)))))
    for kw in ("title", "description"):
        if _maybe(draw, 8):
            out.append((kw, draw(strings)))
    if _maybe(draw, 8):
        out.append(("default", draw(json_values())))
    if _maybe(draw, 10):
        out.append(("examples", draw(st.lists(scalars, max_size=2))))
    if _maybe(draw, 12):
        out.append(("$comment", draw(strings)))
    if depth > 0 and _maybe(draw, 12):
        out.append(("anyOf", draw(st.lists(_subschema(depth - 1), min_size=1, max_size=2))))
    if depth > 0 and _maybe(draw, 16):
        out.append(("not", draw(_subschema(depth - 1))))
    return out


def _subschema(depth: int) -> st.SearchStrategy[Any]:
    """A nested schema: mostly objects, sometimes the boolean schemas or {}."""
    return st.one_of(schemas(depth=depth, root=False), schemas(depth=depth, root=False),
                     st.sampled_from([True, False, {}]))


def map_strings(value: Any, change: Any) -> Any:
    """``value`` with every string (keys included) passed through ``change``."""
    if isinstance(value, str):
        return change(value)
    if isinstance(value, list):
        return [map_strings(item, change) for item in value]
    if isinstance(value, dict):
        return {change(k): map_strings(v, change) for k, v in value.items()}
    return value


def tagged(value: Any) -> Any:
    """``value`` with every scalar paired with its type, so == tells 5 from 5.0 and 1 from True."""
    if isinstance(value, dict):
        return ("dict", [(k, tagged(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("list", [tagged(v) for v in value])
    return (type(value).__name__, value)


def json_literal(value: Any) -> str:
    """A JSON literal on one line, as the English and pydantic forms write values: strings quoted and escaped, and
    every character Python does not call printable escaped too."""
    text = json.dumps(value, ensure_ascii=False)
    return "".join(ch if ch.isprintable() else json.dumps(ch)[1:-1] for ch in text)


def number(value: Any) -> str:
    """A number exactly as the English form writes it (repr); anything else as a JSON literal."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return repr(value)
    return json_literal(value)
