"""Random valid instances of a JSON Schema (draft 2020-12), verified with jsonschema.

ConCodeEval's validation task needs samples "of different lengths and constraints" for every schema, so the
sampler draws optional properties and array lengths at random instead of emitting one canonical instance. It is
exact for everything `corral.schema._generate` produces and best effort for local `$ref`, `allOf`, `anyOf` and
`oneOf`; every value it returns has been validated, and when it cannot find one it says where (`NoSampleError`).
"""

from __future__ import annotations

import copy
import functools
import ipaddress
import json
import math
import random
import re
import uuid
from collections.abc import Callable
from importlib.resources import files
from typing import Any

import rstr

from corral.errors import InputError
from corral.jsonl import iter_jsonl

from ._dialect import FORMATS as FORMAT_CHECKS
from ._dialect import validator_class
from ._walk import KEYWORDS, _escape

_TRIES = 25  # draws per subschema before giving up: generated schemas need one or two, hard ones a dozen
_MINIMAL_DEPTH = 8  # below this many nested draws (recursive $ref), leave out everything optional
_MAX_DEPTH = 40


class NoSampleError(InputError):
    """No valid instance was found for the subschema named in the message."""


@functools.lru_cache(maxsize=1)
def words() -> tuple[str, ...]:
    """Sorted distinct English words (4-14 lowercase letters) from the corpora shipped with corral.

    Property names and sample text come from here so they read like ConCodeEval's ("footbaths", "deluded") while
    staying deterministic and offline. Words used 6 to 40 times keep the list to a few thousand ordinary but not
    trivial words; JSON Schema keyword names are dropped so that a property never looks like a keyword.
    """
    counts: dict[str, int] = {}
    token = re.compile(r"[^\W\d_]+")
    data = files("corral.corpora").joinpath("data")
    for entry in sorted(data.iterdir(), key=lambda item: item.name):
        if not entry.name.endswith(".jsonl.gz"):
            continue
        for row in iter_jsonl(entry):
            for word in token.findall(row.get("text", "")):
                counts[word] = counts.get(word, 0) + 1
    lowered = {key.lower() for key in KEYWORDS}
    return tuple(
        sorted(
            word
            for word, count in counts.items()
            if 6 <= count <= 40
            and 4 <= len(word) <= 14
            and word.isascii()
            and word.isalpha()
            and word.islower()
            and word not in lowered
        )
    )


_SHORT_WORDS = {1: ("a",), 2: ("an", "of", "to", "in", "on", "by"), 3: ("the", "and", "for", "but", "not")}


@functools.lru_cache(maxsize=16)
def _words_of_length(length: int) -> tuple[str, ...]:
    return _SHORT_WORDS.get(length) or tuple(word for word in words() if len(word) == length) or ("a" * length,)


# ---------------------------------------------------------------- formats


def _date(rng: random.Random) -> str:
    return f"{rng.randint(1990, 2030):04d}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"


def _time(rng: random.Random) -> str:
    offset = rng.choice(["Z", "Z", "+01:00", "-05:00", "+05:30"])
    return f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}{offset}"


def _host(rng: random.Random) -> str:
    return f"{rng.choice(words())}.{rng.choice(words())}.{rng.choice(['com', 'org', 'net', 'io'])}"


def _ipv6(rng: random.Random) -> str:
    return str(ipaddress.IPv6Address(rng.getrandbits(128) & ~((1 << rng.choice([0, 32, 64])) - 1)))


#: valid-value makers for the formats that jsonschema's FORMAT_CHECKER asserts with the installed extras
FORMATS: dict[str, Callable[[random.Random], str]] = {
    "date": _date,
    "time": _time,
    "date-time": lambda rng: f"{_date(rng)}T{_time(rng)}",
    "email": lambda rng: f"{rng.choice(words())}@{_host(rng)}",
    "idn-email": lambda rng: f"{rng.choice(words())}@{_host(rng)}",
    "ipv4": lambda rng: ".".join(str(rng.randint(0, 255)) for _ in range(4)),
    "ipv6": _ipv6,
    "uuid": lambda rng: str(uuid.UUID(int=rng.getrandbits(128), version=4)),
    "uri": lambda rng: f"https://{_host(rng)}/{rng.choice(words())}",
    "uri-reference": lambda rng: f"../{rng.choice(words())}/{rng.choice(words())}",
    "iri": lambda rng: f"https://{_host(rng)}/{rng.choice(words())}",
    "hostname": _host,
    "idn-hostname": _host,
    "duration": lambda rng: f"P{rng.randint(1, 30)}DT{rng.randint(1, 23)}H",
    "json-pointer": lambda rng: f"/{rng.choice(words())}/{rng.randint(0, 9)}",
    "relative-json-pointer": lambda rng: f"{rng.randint(0, 3)}/{rng.choice(words())}",
}


# ---------------------------------------------------------------- helpers


def pointer(tokens: tuple[Any, ...] | list[Any]) -> str:
    """JSON pointer (RFC 6901) of a path given as keys and indexes."""
    return "".join("/" + _escape(str(token)) for token in tokens)


def canonical(value: Any) -> str:
    """A key equal for values that `uniqueItems` treats as equal (1 == 1.0, but true != 1)."""
    return json.dumps(_normalized(value), sort_keys=True, default=repr)


def _normalized(value: Any) -> Any:
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, list):
        return [_normalized(each) for each in value]
    if isinstance(value, dict):
        return {key: _normalized(each) for key, each in value.items()}
    return value


def _types(schema: dict[str, Any]) -> list[str]:
    """Declared types, or the ones implied by the keywords present (an untyped `{}` allows every scalar)."""
    declared = schema.get("type")
    if isinstance(declared, str):
        return [declared]
    if isinstance(declared, list) and declared:
        return list(declared)
    implied = [
        ("object", ("properties", "required", "additionalProperties", "patternProperties", "minProperties")),
        ("array", ("items", "prefixItems", "contains", "minItems", "maxItems", "uniqueItems")),
        ("string", ("pattern", "minLength", "maxLength", "format")),
        ("number", ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")),
    ]
    found = [name for name, keys in implied if any(key in schema for key in keys)]
    return found or ["string", "number", "integer", "boolean", "null"]


def _merge(left: dict[str, Any], right: dict[str, Any]) -> dict[str, Any]:
    """Best-effort conjunction of two schemas (for allOf and for a branch of anyOf/oneOf with its siblings)."""
    out = dict(left)
    for key, value in right.items():
        if key not in out:
            out[key] = value
        elif key == "properties":
            merged = dict(out[key])
            for name, sub in value.items():
                merged[name] = {"allOf": [merged[name], sub]} if name in merged else sub
            out[key] = merged
        elif key == "required":
            out[key] = list(dict.fromkeys([*out[key], *value]))
        elif key in ("minimum", "exclusiveMinimum", "minLength", "minItems", "minContains", "minProperties"):
            out[key] = max(out[key], value)
        elif key in ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxContains", "maxProperties"):
            out[key] = min(out[key], value)
        elif key == "type":
            left_types = {out[key]} if isinstance(out[key], str) else set(out[key])
            right_types = {value} if isinstance(value, str) else set(value)
            if "number" in left_types:
                left_types.add("integer")
            if "number" in right_types:
                right_types.add("integer")
            out[key] = sorted(left_types & right_types)
        elif isinstance(value, dict) and isinstance(out[key], dict):
            out[key] = {"allOf": [out[key], value]}
        else:
            out[key] = value
    return out


class _Retry(Exception):
    """This draw went wrong; draw again."""


class Sampler:
    """Draws valid values for the subschemas of one root schema (so that local `$ref`s resolve)."""

    def __init__(self, root: Any, rng: random.Random, optional_rate: float = 0.6) -> None:
        self.root = root
        self.rng = rng
        self.optional_rate = optional_rate
        self.xeger = rstr.Rstr(rng)
        self.validator = validator_class(root)(root, format_checker=FORMAT_CHECKS)  # Corral's validation path
        self._validators: dict[int, tuple[Any, Any]] = {}

    # ------------------------------------------------------------ validation

    def is_valid(self, schema: Any, value: Any) -> bool:
        """Validate against a subschema of the root, keeping the root's resolver for `$ref`."""
        cached = self._validators.get(id(schema))
        if cached is None or cached[0] is not schema:
            cached = (schema, self.validator.evolve(schema=schema))  # holding schema keeps its id unique
            self._validators[id(schema)] = cached
        return cached[1].is_valid(value)

    # ------------------------------------------------------------ entry point

    def sample(self, schema: Any, path: str = "", depth: int = 0) -> Any:
        """A valid value for `schema` (found at schema path `path`), or NoSampleError."""
        if depth > _MAX_DEPTH:
            raise NoSampleError(f"{path or '/'}: nesting too deep (recursive $ref without a way out?)")
        for _ in range(_TRIES):
            try:
                value = self._draw(schema, path, depth)
            except _Retry:
                continue
            if self.is_valid(schema, value):
                return value
        raise NoSampleError(f"{path or '/'}: no valid value found in {_TRIES} draws for {_short(schema)}")

    def any_value(self) -> Any:
        """A small scalar of a random type, as the paper's untyped properties hold."""
        kind = self.rng.choice(["string", "string", "number", "integer", "boolean", "null"])
        return self._typed(_SCALARS[kind], kind, "", 0)

    # ------------------------------------------------------------ dispatch

    def _draw(self, schema: Any, path: str, depth: int) -> Any:
        if schema is True or schema == {}:
            return self.any_value()
        if schema is False:
            raise NoSampleError(f"{path or '/'}: the schema is false, nothing is valid")
        if not isinstance(schema, dict):
            raise NoSampleError(f"{path or '/'}: not a schema: {schema!r}")
        if "$ref" in schema:
            return self._draw_ref(schema, path, depth)
        if "allOf" in schema:
            rest = {key: value for key, value in schema.items() if key != "allOf"}
            merged = rest
            for part in schema["allOf"]:
                merged = _merge(merged, self._resolved(part, path))
            return self._draw(merged, path + "/allOf", depth + 1)
        for key in ("anyOf", "oneOf"):
            if key in schema:
                rest = {name: value for name, value in schema.items() if name != key}
                index = self.rng.randrange(len(schema[key]))
                branch = self._resolved(schema[key][index], path)
                if branch is False:
                    raise _Retry
                merged = _merge(rest, branch) if isinstance(branch, dict) else rest
                try:
                    return self._draw(merged, f"{path}/{key}/{index}", depth + 1)
                except NoSampleError:
                    raise _Retry from None  # another branch may do
        if "enum" in schema:
            choices = [value for value in schema["enum"] if self.is_valid(schema, value)]
            if not choices:
                raise NoSampleError(f"{path or '/'}: no enum value satisfies the other keywords")
            return copy.deepcopy(self.rng.choice(choices))
        if "const" in schema:
            return copy.deepcopy(schema["const"])
        types = _types(schema)
        kind = self.rng.choice(types)
        if kind == "number" and "integer" not in types and self.rng.random() < 0.1:
            kind = "integer"  # integers are numbers too; sometimes draw one
        return self._typed(schema, kind, path, depth)

    def _typed(self, schema: dict[str, Any], kind: str, path: str, depth: int) -> Any:
        if kind == "object":
            return self._object(schema, path, depth)
        if kind == "array":
            return self._array(schema, path, depth)
        if kind == "string":
            return self._string(schema, path)
        if kind in ("number", "integer"):
            return self._number(schema, path, integer=kind == "integer")
        if kind == "boolean":
            return self.rng.random() < 0.5
        if kind == "null":
            return None
        raise NoSampleError(f"{path or '/'}: unknown type {kind!r}")

    # ------------------------------------------------------------ $ref

    def resolve_pointer(self, ref: str, path: str) -> Any:
        if not ref.startswith("#"):
            raise NoSampleError(f"{path or '/'}: only local $ref are followed, not {ref!r}")
        node = self.root
        for token in ref[1:].split("/")[1:] if ref != "#" else []:
            token = token.replace("~1", "/").replace("~0", "~")
            try:
                node = node[int(token)] if isinstance(node, list) else node[token]
            except (KeyError, IndexError, ValueError, TypeError):
                raise NoSampleError(f"{path or '/'}: $ref {ref!r} does not resolve") from None
        return node

    def _resolved(self, schema: Any, path: str) -> Any:
        """The schema with a lone local `$ref` replaced by its target (siblings merged in)."""
        if isinstance(schema, dict) and "$ref" in schema:
            target = self.resolve_pointer(schema["$ref"], path)
            rest = {key: value for key, value in schema.items() if key != "$ref"}
            return _merge(target, rest) if isinstance(target, dict) and rest else target
        return schema

    def _draw_ref(self, schema: dict[str, Any], path: str, depth: int) -> Any:
        target = self.resolve_pointer(schema["$ref"], path)
        rest = {key: value for key, value in schema.items() if key != "$ref" and key in KEYWORDS}
        if rest and isinstance(target, dict):
            return self._draw(_merge(target, rest), path + "/$ref", depth + 1)
        return self.sample(target, path + "/$ref", depth + 1)

    # ------------------------------------------------------------ scalars

    def _number(self, schema: dict[str, Any], path: str, integer: bool) -> int | float:
        low, high = _bounds(schema)
        step = schema.get("multipleOf")
        if step:
            return self._multiple(schema, low, high, step, integer)
        if integer:
            first = math.floor(low) + 1 if _strict_low(schema, low) else math.ceil(low)
            last = math.ceil(high) - 1 if _strict_high(schema, high) else math.floor(high)
            if first > last:
                raise _Retry
            return self.rng.randint(first, last)
        value = self.rng.uniform(low, high)
        candidates = [float(round(value))] if self.rng.random() < 0.15 else []
        candidates += [round(value, 2), round(value, 4), value, (low + high) / 2]
        for candidate in candidates:
            if self.is_valid(schema, candidate):
                return candidate
        raise _Retry

    def _multiple(self, schema: dict[str, Any], low: float, high: float, step: float, integer: bool) -> int | float:
        """A multiple of `step` inside the bounds that jsonschema's float check accepts (`value / step` integral)."""
        first = math.ceil(low / step)
        last = math.floor(high / step)
        if first > last:
            raise _Retry
        for _ in range(12):
            k = self.rng.randint(first, last)
            for candidate in multiples(k, step, integer):
                if self.is_valid(schema, candidate):
                    return candidate
        raise _Retry

    def _string(self, schema: dict[str, Any], path: str) -> str:
        shortest = schema.get("minLength", 0)
        longest = schema.get("maxLength")
        fmt = schema.get("format")
        pattern = schema.get("pattern")
        if pattern is not None:
            for _ in range(30):
                try:
                    text = self.xeger.xeger(pattern)
                except Exception as exc:  # rstr cannot draw from every regex (lookarounds, ECMA-only syntax)
                    raise NoSampleError(f"{path or '/'}: cannot draw a string for pattern {pattern!r}: {exc}") from None
                if shortest <= len(text) and (longest is None or len(text) <= longest):
                    return text
            raise _Retry
        if fmt in FORMATS:
            return FORMATS[fmt](self.rng)
        return self.text(shortest, longest)

    def text(self, shortest: int = 0, longest: int | None = None) -> str:
        """A few whole words ("officiis tellus. illum modi") of a random length within the bounds.

        The last word is picked to fill the remaining room exactly, so no word is cut.
        """
        top = longest if longest is not None else shortest + 40
        target = self.rng.randint(shortest, max(shortest, top))
        text = ""
        while len(text) < target:
            room = target - len(text) - (1 if text else 0)
            if room <= 0:  # one character left: end the sentence
                text += "."
                continue
            word = self.rng.choice(_words_of_length(room) if room <= 14 else words())
            if len(word) < room - 1 and self.rng.random() < 0.12:
                word += "."
            text = f"{text} {word}" if text else word
        return text

    # ------------------------------------------------------------ objects

    def _object(self, schema: dict[str, Any], path: str, depth: int) -> dict[str, Any]:
        minimal = depth >= _MINIMAL_DEPTH
        properties = schema.get("properties", {})
        required = set(schema.get("required", []))
        extra_schema = schema.get("additionalProperties", True)
        out: dict[str, Any] = {}
        for name, sub in properties.items():
            if name in required or (not minimal and self.rng.random() < self.optional_rate):
                out[name] = self.sample(sub, f"{path}/properties/{_escape(name)}", depth + 1)
        for name in sorted(required - set(properties)):
            out[name] = self.sample(extra_schema, f"{path}/additionalProperties", depth + 1)
        self._fill_minimum(schema, out, path, depth)
        if not minimal and "patternProperties" not in schema and "propertyNames" not in schema:
            self._add_extras(schema, out, path, depth)
        return out

    def _fill_minimum(self, schema: dict[str, Any], out: dict[str, Any], path: str, depth: int) -> None:
        properties = schema.get("properties", {})
        missing = [name for name in properties if name not in out]
        self.rng.shuffle(missing)
        while len(out) < schema.get("minProperties", 0) and missing:
            name = missing.pop()
            out[name] = self.sample(properties[name], f"{path}/properties/{_escape(name)}", depth + 1)

    def _add_extras(self, schema: dict[str, Any], out: dict[str, Any], path: str, depth: int) -> None:
        """Add properties the schema does not name when additionalProperties allows (as a model might)."""
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict) and extra:
            count = self.rng.choice([0, 1, 1, 2])
        elif extra is True:
            count = 1 if self.rng.random() < 0.2 else 0
        else:
            count = 0
        room = schema.get("maxProperties", len(out) + count) - len(out)
        for _ in range(min(count, room)):
            name = self.fresh_name(out, schema.get("properties", {}))
            where = f"{path}/additionalProperties"
            out[name] = self.any_value() if extra is True else self.sample(extra, where, depth + 1)

    def fresh_name(self, *taken: Any) -> str:
        """A word not used as a key in any of `taken`."""
        while True:
            name = self.rng.choice(words())
            if not any(name in each for each in taken):
                return name

    # ------------------------------------------------------------ arrays

    def _array(self, schema: dict[str, Any], path: str, depth: int) -> list[Any]:
        minimal = depth >= _MINIMAL_DEPTH
        prefix = schema.get("prefixItems", [])
        items = schema.get("items", True)
        if isinstance(items, list):  # draft 4-2019 tuple form
            prefix, items = items, schema.get("additionalItems", True)
        contains = schema.get("contains")
        low_n = schema.get("minItems", 0)
        high_n = schema.get("maxItems")
        matches = self._match_count(schema, high_n, minimal) if contains is not None else 0
        low_n = max(low_n, matches)
        top = low_n if minimal else low_n + 4
        if high_n is not None:
            top = min(top, high_n)
        if items is False:
            top = min(top, len(prefix))
        if top < low_n:
            raise NoSampleError(f"{path or '/'}: needs {low_n} items but at most {top} are allowed")
        least = low_n
        if prefix and not minimal and self.rng.random() < 0.8:
            least = max(low_n, min(len(prefix), top))  # usually fill the tuple positions
        count = self.rng.randint(least, top)
        places = set(self.rng.sample(range(count), matches))
        return self._fill(schema, path, depth, count, places, low_n)

    def _match_count(self, schema: dict[str, Any], high_n: int | None, minimal: bool) -> int:
        least = schema.get("minContains", 1)
        most = schema.get("maxContains", least if minimal else least + 2)
        if high_n is not None:
            most = min(most, high_n)
        return self.rng.randint(least, max(least, most))

    def _fill(
        self, schema: dict[str, Any], path: str, depth: int, count: int, places: set[int], low_n: int
    ) -> list[Any]:
        unique = schema.get("uniqueItems", False)
        seen: set[str] = set()
        out: list[Any] = []
        for index in range(count):
            value = self._element(schema, path, depth, index, index in places, seen if unique else None)
            if value is _NONE:
                if len(out) >= low_n and index not in places:
                    break  # no more distinct values: stop, the array is long enough
                raise _Retry
            seen.add(canonical(value))
            out.append(value)
        return out

    def element_schema(self, schema: dict[str, Any], index: int) -> tuple[Any, str]:
        """The subschema that item `index` of an array must satisfy, and its relative schema path."""
        prefix = schema.get("prefixItems", [])
        items = schema.get("items", True)
        if isinstance(items, list):
            prefix, items = items, schema.get("additionalItems", True)
            return (prefix[index], f"/items/{index}") if index < len(prefix) else (items, "/additionalItems")
        return (prefix[index], f"/prefixItems/{index}") if index < len(prefix) else (items, "/items")

    def _element(
        self, schema: dict[str, Any], path: str, depth: int, index: int, match: bool, seen: set[str] | None
    ) -> Any:
        """Draw element `index`: one matching `contains` if `match`, otherwise one that does not (maxContains)."""
        element, where = self.element_schema(schema, index)
        contains = schema.get("contains")
        avoid = contains is not None and not match and "maxContains" in schema
        for _ in range(_TRIES):
            if match:
                target = contains if element is True or element == {} else {"allOf": [element, contains]}
                value = self.sample(target, f"{path}/contains", depth + 1)
            elif element is True or element == {}:
                value = self.any_value()
            else:
                value = self.sample(element, path + where, depth + 1)
            if avoid and self.is_valid(contains, value):
                continue
            if seen is not None and canonical(value) in seen:
                continue
            return value
        return _NONE


_NONE = object()
_SCALARS = {kind: {"type": kind} for kind in ("string", "number", "integer", "boolean", "null")}


def multiples(k: int, step: float, integer: bool = False) -> list[int | float]:
    """Readable spellings of k * step, shortest first: the one jsonschema accepts is checked by the caller."""
    exact = k * step
    if isinstance(step, int) and not isinstance(step, bool):
        return [exact]
    out: list[int | float] = []
    if float(exact).is_integer() or integer:
        out.append(round(exact))
    decimals = _decimals(step)
    for places in range(decimals, decimals + 8):
        out.append(round(exact, places))
    out.append(exact)
    return list(dict.fromkeys(out))


def _decimals(value: float) -> int:
    text = repr(float(value))
    return len(text.split(".")[1]) if "." in text and "e" not in text else 0


def _bounds(schema: dict[str, Any]) -> tuple[float, float]:
    """The closed interval the numeric keywords leave open, widened to a default window when unbounded.

    Exclusive bounds are kept as bounds here; candidates on them are rejected by validation.
    """
    lows = [schema[key] for key in ("minimum", "exclusiveMinimum") if _is_number(schema.get(key))]
    highs = [schema[key] for key in ("maximum", "exclusiveMaximum") if _is_number(schema.get(key))]
    low = max(lows) if lows else None
    high = min(highs) if highs else None
    step = schema.get("multipleOf") or 1
    if low is None and high is None:
        return 0, max(1000, 20 * step)
    if low is None:
        return high - max(100, abs(high), 20 * step), high
    if high is None:
        return low, low + max(100, abs(low), 20 * step)
    return low, high


def _strict_low(schema: dict[str, Any], low: float) -> bool:
    return _is_number(schema.get("exclusiveMinimum")) and schema["exclusiveMinimum"] == low


def _strict_high(schema: dict[str, Any], high: float) -> bool:
    return _is_number(schema.get("exclusiveMaximum")) and schema["exclusiveMaximum"] == high


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _short(schema: Any) -> str:
    text = json.dumps(schema, default=repr)
    return text if len(text) <= 80 else text[:77] + "..."


def valid_sample(schema: Any, rng: random.Random) -> Any:
    """A random instance valid against `schema` (checked by Corral's validator: ECMA-262 patterns, formats on).

    Raises NoSampleError with the schema path of the subschema that could not be satisfied.
    """
    sampler = Sampler(schema, rng)
    try:
        value = sampler.sample(schema)
    except re.error as exc:  # jsonschema compiles the schema's regexes while validating
        raise NoSampleError(f"/: the schema has a regex Python cannot compile: {exc}") from None
    if not sampler.validator.is_valid(value):  # sample() validated already; this guards the contract
        raise NoSampleError(f"/: the drawn value {_short(value)} is invalid")
    return value
