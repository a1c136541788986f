"""Minimally invalid samples: a valid sample changed so that exactly one keyword fails.

ConCodeEval's validation task asks "is this sample valid?"; a useful "no" instance is one that breaks a single,
named rule, so a model's answer can be scored per keyword. Every mutation is verified with jsonschema: the new
sample has exactly one error, and its keyword and instance path are the ones recorded.

The recorded `keyword`, `instance_path` and `schema_path` are what jsonschema 4 reports, which differs from the
keyword a mutation aims at in a few places:

* `minContains`: when the number of matching items drops to 0, jsonschema reports `contains`, not `minContains`,
  so with `minContains: 1` the mutation is recorded as `contains`; with `minContains` >= 2 it leaves at least one
  match and is recorded as `minContains`.
* `minContains` / `maxContains` errors carry a schema path ending in `/contains` (jsonschema raises them from the
  `contains` keyword), while their keyword is `minContains` / `maxContains`.
* `additionalProperties` with a schema: the error is the broken keyword inside that schema (say `type`, schema
  path `/additionalProperties/type`, instance path the added property), not `additionalProperties`.
* `required` and `additionalProperties: false` are reported at the object (instance path of the object, not of
  the missing or extra property); the property is named in the description.
"""

from __future__ import annotations

import copy
import json
import math
import random
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from jsonschema import Draft202012Validator
from referencing.exceptions import Unresolvable

from ._errors import SchemaInputError
from ._sample import NoSampleError, Sampler, canonical, multiples, pointer, words

_TYPE_CHECKER = Draft202012Validator.TYPE_CHECKER
_PER_SITE = 40  # candidates tried per (keyword, place) before moving on


@dataclass(frozen=True)
class Mutation:
    """A sample invalid in exactly one keyword, where jsonschema reports it, and a sentence saying what changed."""

    sample: Any
    keyword: str
    instance_path: str
    schema_path: str
    description: str


@dataclass(frozen=True)
class _Site:
    """A place in the sample and the subschema that applies there."""

    instance: tuple[Any, ...]
    schema_path: tuple[Any, ...]
    schema: dict[str, Any]
    value: Any


@dataclass(frozen=True)
class _Candidate:
    sample: Any
    description: str
    keyword: str
    instance: tuple[Any, ...]


# ---------------------------------------------------------------- small helpers


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _replace(base: Any, where: tuple[Any, ...], value: Any) -> Any:
    """A deep copy of `base` with the value at `where` replaced (the input is never changed)."""
    if not where:
        return copy.deepcopy(value)
    out = copy.deepcopy(base)
    node = out
    for token in where[:-1]:
        node = node[token]
    node[where[-1]] = copy.deepcopy(value)
    return out


def _where(instance: tuple[Any, ...]) -> str:
    if not instance:
        return "the root value"
    if len(instance) == 1:
        return f"'{instance[0]}'" if isinstance(instance[0], str) else f"item {instance[0]}"
    return f"the value at {pointer(instance)}"


def _of(instance: tuple[Any, ...]) -> str:
    return f" of {_where(instance)}" if instance else ""


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an array" if isinstance(value, list) else "an object"


def _show(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _compiled(pattern: str) -> re.Pattern[str] | None:
    try:
        return re.compile(pattern)
    except re.error:  # an ECMA-262 regex Python cannot read: leave that keyword alone
        return None


def _matches(pattern: str, text: str) -> bool:
    compiled = _compiled(pattern)
    return compiled is None or compiled.search(text) is not None


def _declared(schema: dict[str, Any]) -> set[str]:
    declared = schema.get("type", [])
    return {declared} if isinstance(declared, str) else set(declared)


def _integer_only(schema: dict[str, Any]) -> bool:
    declared = _declared(schema)
    return "integer" in declared and "number" not in declared


# ---------------------------------------------------------------- the mutator


class _Mutator:
    def __init__(self, schema: Any, sample: Any, rng: random.Random) -> None:
        self.root = schema
        self.base = sample
        self.rng = rng
        self.sampler = Sampler(schema, rng)
        self.validator = self.sampler.validator

    # ------------------------------------------------------------ places

    def sites(self, schema: Any, value: Any, instance: tuple[Any, ...], path: tuple[Any, ...]) -> Iterator[_Site]:
        """Every (place in the sample, subschema) pair, following properties, items, prefixItems,
        additionalProperties schemas and local $refs."""
        if not isinstance(schema, dict):
            return
        yield _Site(instance, path, schema, value)
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith("#"):
            try:
                target = self.sampler.resolve_pointer(ref, pointer(path))
            except NoSampleError:
                target = None
            yield from self.sites(target, value, instance, (*path, "$ref"))
        if isinstance(value, dict):
            yield from self._object_sites(schema, value, instance, path)
        elif isinstance(value, list):
            prefix = schema.get("prefixItems", [])
            items = schema.get("items")
            for index, item in enumerate(value):
                if index < len(prefix):
                    yield from self.sites(prefix[index], item, (*instance, index), (*path, "prefixItems", index))
                elif isinstance(items, dict):
                    yield from self.sites(items, item, (*instance, index), (*path, "items"))

    def _object_sites(
        self, schema: dict[str, Any], value: dict[str, Any], instance: tuple[Any, ...], path: tuple[Any, ...]
    ) -> Iterator[_Site]:
        properties = schema.get("properties", {})
        extra = schema.get("additionalProperties")
        patterns = schema.get("patternProperties", {})
        for name, item in value.items():
            if name in properties:
                yield from self.sites(properties[name], item, (*instance, name), (*path, "properties", name))
            elif isinstance(extra, dict) and not any(_matches(pattern, name) for pattern in patterns):
                yield from self.sites(extra, item, (*instance, name), (*path, "additionalProperties"))

    # ------------------------------------------------------------ search

    def run(self, keyword: str | None) -> Mutation | None:
        targets = [keyword] if keyword is not None else sorted(MUTATORS)
        if not set(targets) <= set(MUTATORS):
            return None
        sites = list(self.sites(self.root, self.base, (), ()))
        by_target = {target: [site for site in sites if target in site.schema] for target in targets}
        order = [target for target in targets if by_target[target]]
        self.rng.shuffle(order)  # keyword first, then place: `type` applies everywhere and would crowd out the rest
        for target in order:
            places = by_target[target]
            self.rng.shuffle(places)
            for site in places:
                found = self.first_valid(MUTATORS[target](self, site, self.base))
                if found is not None:
                    return found
        return None

    def first_valid(self, candidates: Iterator[_Candidate]) -> Mutation | None:
        for count, candidate in enumerate(candidates):
            if count >= _PER_SITE:
                return None
            found = self.verify(candidate)
            if found is not None:
                return found
        return None

    def verify(self, candidate: _Candidate) -> Mutation | None:
        """The candidate as a Mutation if jsonschema finds exactly the one intended error in it. A candidate the
        validator cannot judge (a pattern that times out on it, a ``$ref`` only it reaches that does not resolve)
        is not a mutation: the search goes on with the next one."""
        try:
            errors = list(self.validator.iter_errors(candidate.sample))
        except (SchemaInputError, Unresolvable, RecursionError):
            return None
        if len(errors) != 1:
            return None
        error = errors[0]
        if error.validator != candidate.keyword or tuple(error.absolute_path) != candidate.instance:
            return None
        return Mutation(
            sample=candidate.sample,
            keyword=str(error.validator),
            instance_path=pointer(error.absolute_path),
            schema_path=pointer(error.absolute_schema_path),
            description=candidate.description,
        )

    def candidate(self, base: Any, site: _Site, value: Any, description: str, keyword: str) -> _Candidate:
        return _Candidate(_replace(base, site.instance, value), description, keyword, site.instance)

    # ------------------------------------------------------------ any type

    def type_(self, site: _Site, base: Any) -> Iterator[_Candidate]:
        schema, old = site.schema, site.value
        if "enum" in schema or "const" in schema:
            return  # a value of another type would break those too
        declared = _declared(schema)
        for new in self.other_types(old):
            if any(_TYPE_CHECKER.is_type(new, kind) for kind in declared):
                continue
            text = f"changed {_where(site.instance)} from {_kind(old)} to {_kind(new)}, {_show(new)}"
            yield self.candidate(base, site, new, text, "type")

    def other_types(self, old: Any) -> list[Any]:
        """Values of other types, the confusions a model makes first (52.0 written as "52.0", true as "true")."""
        likely: list[Any] = []
        if isinstance(old, bool | int | float) or old is None:
            likely.append(json.dumps(old))
        if isinstance(old, str):
            likely += [[old], len(old)]
        if _is_number(old) and float(old).is_integer():
            likely.append(old + 0.5)
        if isinstance(old, list | dict):
            likely.append(json.dumps(old))
        rest = [self.rng.choice(words()), 7, 2.5, True, None, [], {}]
        self.rng.shuffle(rest)
        return likely + rest

    def enum(self, site: _Site, base: Any) -> Iterator[_Candidate]:
        allowed = site.schema["enum"]
        if not isinstance(allowed, list):
            return
        for new in self.near(site.value):
            if new not in allowed:
                text = f"set {_where(site.instance)} to {_show(new)}, which is not one of its enum values"
                yield self.candidate(base, site, new, text, "enum")

    def const(self, site: _Site, base: Any) -> Iterator[_Candidate]:
        for new in self.near(site.value):
            if new != site.schema["const"]:
                text = f"set {_where(site.instance)} to {_show(new)} instead of its const {_show(site.schema['const'])}"
                yield self.candidate(base, site, new, text, "const")

    def near(self, old: Any) -> list[Any]:
        """Values of the same type close to `old` (for enum and const)."""
        if isinstance(old, bool):
            return [not old]
        if isinstance(old, int):
            return [old + 1, old - 1, old + 10]
        if isinstance(old, float):
            return [round(old + 1, 2), round(old - 1, 2), round(old * 2 + 1, 2)]
        if isinstance(old, str):
            return [old + "s", old[:-1], old.upper(), self.rng.choice(words())] if old else ["a"]
        if isinstance(old, list):
            return [[*old, old[0]] if old else [None], old[:-1]]
        if isinstance(old, dict):
            return [{**old, self.rng.choice(words()): None}]
        return []

    # ------------------------------------------------------------ numbers

    def bound(self, site: _Site, base: Any, keyword: str) -> Iterator[_Candidate]:
        bound, old = site.schema[keyword], site.value
        if not _is_number(old) or not _is_number(bound):
            return
        below = keyword in ("minimum", "exclusiveMinimum")
        exclusive = keyword.startswith("exclusive")
        words_ = {
            "minimum": "below its minimum",
            "exclusiveMinimum": "not above its exclusiveMinimum",
            "maximum": "above its maximum",
            "exclusiveMaximum": "not below its exclusiveMaximum",
        }
        for new in self.beyond(site.schema, bound, below, exclusive):
            text = f"set {_where(site.instance)} to {_show(new)}, {words_[keyword]} {_show(bound)}"
            yield self.candidate(base, site, new, text, keyword)

    def beyond(self, schema: dict[str, Any], bound: float, below: bool, exclusive: bool) -> list[int | float]:
        """Values just past `bound` (on it, for an exclusive bound) that keep multipleOf and the type."""
        sign = -1 if below else 1
        step = schema.get("multipleOf")
        integer = _integer_only(schema)
        out: list[int | float] = []
        if _is_number(step) and step > 0 and math.isfinite(bound / step):
            start = math.floor(bound / step) if below else math.ceil(bound / step)
            for offset in range(4):
                out += multiples(start + sign * offset, step, integer)
        elif integer or (isinstance(bound, int) and not isinstance(bound, bool)):
            edge = math.floor(bound) if below else math.ceil(bound)
            out += [edge, edge + sign, edge + 2 * sign]
        else:
            out.append(bound)
            for places in (2, 1, 0):
                scale = 10**places
                if math.isfinite(bound * scale):  # a bound near the largest float has no rounder neighbour
                    out.append((math.floor if below else math.ceil)(bound * scale) / scale)
            out += [round(bound + sign * 0.01, 2), bound + sign]
        ok = [value for value in out if (value <= bound if below else value >= bound)]
        return ok if exclusive else [value for value in ok if value != bound]

    def multiple_of(self, site: _Site, base: Any) -> Iterator[_Candidate]:
        step, old = site.schema["multipleOf"], site.value
        if not _is_number(old) or not _is_number(step):
            return
        if _integer_only(site.schema):
            options: list[int | float] = [old + 1, old - 1]
        else:
            decimals = max(2, _places(step))
            options = []
            for delta in (step / 2, -step / 2, step / 3, 0.5, -0.5, 1, -1):
                options += [round(old + delta, decimals), old + delta]
        for new in dict.fromkeys(options):
            text = f"set {_where(site.instance)} to {_show(new)}, not a multiple of {_show(step)}"
            yield self.candidate(base, site, new, text, "multipleOf")

    # ------------------------------------------------------------ strings

    def min_length(self, site: _Site, base: Any) -> Iterator[_Candidate]:
        least, old = site.schema["minLength"], site.value
        if not isinstance(old, str) or not isinstance(least, int) or least < 1:
            return
        target = least - 1
        for new in self.strings_of(site.schema, old, target):
            text = f"shortened {_where(site.instance)} to {_show(new)} ({target} characters, minLength {least})"
            yield self.candidate(base, site, new, text, "minLength")

    def max_length(self, site: _Site, base: Any) -> Iterator[_Candidate]:
        most, old = site.schema["maxLength"], site.value
        if not isinstance(old, str) or not isinstance(most, int):
            return
        target = most + 1
        for new in self.strings_of(site.schema, old, target):
            text = f"lengthened {_where(site.instance)} to {_show(new)} ({target} characters, maxLength {most})"
            yield self.candidate(base, site, new, text, "maxLength")

    def strings_of(self, schema: dict[str, Any], old: str, length: int) -> Iterator[str]:
        """Strings of exactly `length` characters close to `old`, then ones from the schema's pattern."""
        if len(old) >= length:
            yield old[:length]
            yield old[len(old) - length :]
        else:
            pad = old[-1] if old else "a"
            yield old + pad * (length - len(old))
            yield old + self.sampler.text(length - len(old), length - len(old)) if old else "a" * length
        pattern = schema.get("pattern")
        if isinstance(pattern, str) and _compiled(pattern) is not None:
            for _ in range(60):
                try:
                    text = self.sampler.xeger.xeger(pattern)
                except Exception:  # rstr cannot draw from every regex
                    return
                if len(text) == length:
                    yield text

    def pattern(self, site: _Site, base: Any) -> Iterator[_Candidate]:
        pattern, old = site.schema["pattern"], site.value
        if not isinstance(old, str) or not isinstance(pattern, str) or _compiled(pattern) is None:
            return
        places = list(range(len(old)))
        self.rng.shuffle(places)
        for index in places:
            char = old[index]
            for swap in ("7", "A", "-") if char.isalpha() else ("x", "!"):
                if swap == char or swap.lower() == char:
                    continue
                new = old[:index] + swap + old[index + 1 :]
                if re.search(pattern, new) is None:
                    text = f"changed {_where(site.instance)} to {_show(new)}, which does not match {pattern}"
                    yield self.candidate(base, site, new, text, "pattern")
        for new in (old + "!", "!" + old, ""):
            text = f"changed {_where(site.instance)} to {_show(new)}, which does not match {pattern}"
            yield self.candidate(base, site, new, text, "pattern")

    def format(self, site: _Site, base: Any) -> Iterator[_Candidate]:
        fmt, old = site.schema["format"], site.value
        if not isinstance(old, str) or fmt not in BROKEN_FORMATS:
            return
        for new in BROKEN_FORMATS[fmt](old):
            text = f"changed {_where(site.instance)} to {_show(new)}, which is not a valid {fmt}"
            yield self.candidate(base, site, new, text, "format")

    # ------------------------------------------------------------ arrays

    def min_items(self, site: _Site, base: Any) -> Iterator[_Candidate]:
        least, old = site.schema["minItems"], site.value
        if not isinstance(old, list) or not isinstance(least, int) or least < 1:
            return
        keep = least - 1
        drop = len(old) - keep
        options = [old[:keep], old[drop:]]
        for _ in range(6):
            chosen = sorted(self.rng.sample(range(len(old)), keep))
            options.append([old[index] for index in chosen])
        for new in options:
            text = f"removed {drop} item(s) from {_where(site.instance)}, leaving {keep} (minItems {least})"
            yield self.candidate(base, site, new, text, "minItems")

    def max_items(self, site: _Site, base: Any) -> Iterator[_Candidate]:
        most, old = site.schema["maxItems"], site.value
        if not isinstance(old, list) or not isinstance(most, int):
            return
        add = most + 1 - len(old)
        for _ in range(8):
            extra = self.new_items(site.schema, old, add)
            if extra is None:
                continue
            text = f"added {add} item(s) to {_where(site.instance)}, making {most + 1} (maxItems {most})"
            yield self.candidate(base, site, old + extra, text, "maxItems")

    def new_items(self, schema: dict[str, Any], old: list[Any], count: int) -> list[Any] | None:
        """`count` more valid elements (distinct if uniqueItems), drawn from the element schema."""
        out: list[Any] = []
        seen = {canonical(item) for item in old}
        for index in range(len(old), len(old) + count):
            element, where = self.sampler.element_schema(schema, index)
            try:
                value = self.sampler.sample(element, where) if element is not True else self.sampler.any_value()
            except NoSampleError:
                return None
            if schema.get("uniqueItems") and canonical(value) in seen:
                return None
            seen.add(canonical(value))
            out.append(value)
        return out

    def unique_items(self, site: _Site, base: Any) -> Iterator[_Candidate]:
        old = site.value
        if site.schema["uniqueItems"] is not True or not isinstance(old, list) or not old:
            return
        for _ in range(10):
            source = self.rng.randrange(len(old))
            if len(old) >= 2 and self.rng.random() < 0.6:
                target = self.rng.choice([index for index in range(len(old)) if index != source])
                new = [*old]
                new[target] = copy.deepcopy(old[source])
                text = f"replaced item {target} of {_where(site.instance)} by a copy of item {source}"
            else:
                new = [*old, copy.deepcopy(old[source])]
                text = f"appended a copy of item {source} to {_where(site.instance)}"
            yield self.candidate(base, site, new, text + " (uniqueItems)", "uniqueItems")

    def matching(self, schema: dict[str, Any], old: list[Any]) -> list[int]:
        return [index for index, item in enumerate(old) if self.sampler.is_valid(schema["contains"], item)]

    def contains(self, site: _Site, base: Any) -> Iterator[_Candidate]:
        old = site.value
        if not isinstance(old, list) or site.schema.get("minContains", 1) == 0:
            return
        hits = self.matching(site.schema, old)
        yield from self.fewer_matches(site, base, hits, 0, "contains")

    def min_contains(self, site: _Site, base: Any) -> Iterator[_Candidate]:
        least, old = site.schema["minContains"], site.value
        if not isinstance(old, list) or "contains" not in site.schema or not isinstance(least, int) or least < 1:
            return
        hits = self.matching(site.schema, old)
        keyword = "minContains" if least >= 2 else "contains"  # jsonschema says `contains` when none match
        yield from self.fewer_matches(site, base, hits, least - 1, keyword)

    def fewer_matches(self, site: _Site, base: Any, hits: list[int], keep: int, keyword: str) -> Iterator[_Candidate]:
        """Drop, or replace by non-matching items, all but `keep` of the items matching `contains`."""
        old = site.value
        for _ in range(6):
            gone = set(self.rng.sample(hits, len(hits) - keep)) if len(hits) >= keep else set()
            if not gone:
                return
            kept = [item for index, item in enumerate(old) if index not in gone]
            text = f"removed {len(gone)} of the {len(hits)} items{_of(site.instance)} that match its contains schema"
            yield self.candidate(base, site, kept, text + f", leaving {keep}", keyword)
            swapped = self.swap_out(site.schema, old, gone)
            if swapped is not None:
                text = f"changed {len(gone)} of the {len(hits)} items{_of(site.instance)} that match its contains"
                text += f" schema into ones that do not, leaving {keep}"
                yield self.candidate(base, site, swapped, text, keyword)

    def swap_out(self, schema: dict[str, Any], old: list[Any], gone: set[int]) -> list[Any] | None:
        new = [*old]
        for index in gone:
            element, where = self.sampler.element_schema(schema, index)
            for _ in range(10):
                try:
                    value = self.sampler.sample(element, where) if element is not True else self.sampler.any_value()
                except NoSampleError:
                    return None
                if not self.sampler.is_valid(schema["contains"], value):
                    new[index] = value
                    break
            else:
                return None
        return new

    def max_contains(self, site: _Site, base: Any) -> Iterator[_Candidate]:
        most, old = site.schema["maxContains"], site.value
        if not isinstance(old, list) or "contains" not in site.schema or not isinstance(most, int):
            return
        hits = self.matching(site.schema, old)
        misses = [index for index in range(len(old)) if index not in hits]
        for _ in range(6):
            new = self.more_matches(site.schema, old, misses, most + 1 - len(hits))
            if new is not None:
                text = f"made {most + 1} items{_of(site.instance)} match its contains schema (maxContains {most})"
                yield self.candidate(base, site, new, text, "maxContains")

    def more_matches(self, schema: dict[str, Any], old: list[Any], misses: list[int], need: int) -> list[Any] | None:
        """`old` with `need` more items matching contains: non-matching items turned, or new ones appended."""
        new = [*old]
        turn = [index for index in misses if self.rng.random() < 0.5][:need]
        for index in [*turn, *range(len(old), len(old) + need - len(turn))]:
            value = self.match_for(schema, index)
            if value is None:
                return None
            if index < len(new):
                new[index] = value
            else:
                new.append(value)
        return new

    def match_for(self, schema: dict[str, Any], index: int) -> Any:
        element, _ = self.sampler.element_schema(schema, index)
        target = schema["contains"] if element is True else {"allOf": [element, schema["contains"]]}
        try:
            return self.sampler.sample(target, "/contains")
        except NoSampleError:
            return None

    # ------------------------------------------------------------ objects

    def required(self, site: _Site, base: Any) -> Iterator[_Candidate]:
        old = site.value
        if not isinstance(old, dict) or not isinstance(site.schema["required"], list):
            return
        names = [name for name in site.schema["required"] if name in old]
        self.rng.shuffle(names)
        for name in names:
            new = {key: value for key, value in old.items() if key != name}
            text = f"removed the required property '{name}'" + (f" from {_where(site.instance)}" * bool(site.instance))
            yield self.candidate(base, site, new, text, "required")

    def additional_properties(self, site: _Site, base: Any) -> Iterator[_Candidate]:
        extra, old = site.schema["additionalProperties"], site.value
        if not isinstance(old, dict):
            return
        taken = (old, site.schema.get("properties", {}))
        if extra is False:
            for _ in range(4):
                name = self.sampler.fresh_name(*taken)
                value = copy.deepcopy(self.rng.choice(list(old.values()))) if old else self.sampler.any_value()
                text = f"added the property '{name}'" + (f" to {_where(site.instance)}" * bool(site.instance))
                text += ", which additionalProperties: false forbids"
                yield self.candidate(base, site, {**old, name: value}, text, "additionalProperties")
        elif isinstance(extra, dict):
            yield from self.bad_extra(site, base, extra, self.sampler.fresh_name(*taken))

    def bad_extra(self, site: _Site, base: Any, extra: dict[str, Any], name: str) -> Iterator[_Candidate]:
        """Add property `name` with a valid value for the additionalProperties schema, then break one keyword of it."""
        try:
            value = self.sampler.sample(extra, pointer((*site.schema_path, "additionalProperties")))
        except NoSampleError:
            return
        grown = _replace(base, site.instance, {**site.value, name: value})
        inner_sites = self.sites(extra, value, (*site.instance, name), (*site.schema_path, "additionalProperties"))
        plans = [(target, inner) for inner in inner_sites for target in MUTATORS if target in inner.schema]
        self.rng.shuffle(plans)
        for target, inner in plans:
            for candidate in MUTATORS[target](self, inner, grown):
                text = f"added the property '{name}' whose value breaks the additionalProperties schema: "
                yield _Candidate(candidate.sample, text + candidate.description, candidate.keyword, candidate.instance)


# ---------------------------------------------------------------- format breakers


def _swap_part(text: str, start: int, end: int, new: str) -> str:
    return text[:start] + new + text[end:] if len(text) >= end else new


BROKEN_FORMATS: dict[str, Callable[[str], list[str]]] = {
    "date": lambda s: [_swap_part(s, 5, 7, "13"), s.replace("-", "/"), "2023-02-30"],
    "time": lambda s: [s[:8], _swap_part(s, 0, 2, "25"), "12:61:00Z"],
    "date-time": lambda s: [s.replace("T", " ", 1), s[:10], "2023-02-30T10:00:00Z"],
    "email": lambda s: [s.replace("@", "", 1), s.replace("@", " at ", 1), "hchavezexample.org"],
    "idn-email": lambda s: [s.replace("@", "", 1), "hchavezexample.org"],
    "ipv4": lambda s: ["256" + s[s.index(".") :] if "." in s else "256.1.1.1", s + ".1", "1.2.3"],
    "ipv6": lambda s: [s + ":::", s.replace(":", ";", 1), "12345::1"],
    "uuid": lambda s: [s[:-1], s.replace("-", "", 1), "not-a-uuid"],
    "uri": lambda s: [s.split("://", 1)[-1], "://" + s, "not a uri"],
    "uri-reference": lambda s: [s.replace("/", " /", 1), s + " x", "a b"],
    "iri": lambda s: [s.split("://", 1)[-1], "not an iri"],
    "hostname": lambda s: ["-" + s, s.replace(".", "_", 1), "bad_host.com"],
    "idn-hostname": lambda s: ["-" + s, "-bad.com"],
    "duration": lambda s: [s.replace("P", "", 1), s + "X", "PT"],
    "json-pointer": lambda s: [s.lstrip("/"), "a/b"],
    "relative-json-pointer": lambda s: ["/" + s, "-1/a"],
}

_Mutate = Callable[[_Mutator, _Site, Any], Iterator[_Candidate]]

#: keyword -> candidate maker; `mutate(..., keyword=k)` supports exactly these keys
MUTATORS: dict[str, _Mutate] = {
    "type": _Mutator.type_,
    "enum": _Mutator.enum,
    "const": _Mutator.const,
    "minimum": lambda self, site, base: self.bound(site, base, "minimum"),
    "maximum": lambda self, site, base: self.bound(site, base, "maximum"),
    "exclusiveMinimum": lambda self, site, base: self.bound(site, base, "exclusiveMinimum"),
    "exclusiveMaximum": lambda self, site, base: self.bound(site, base, "exclusiveMaximum"),
    "multipleOf": _Mutator.multiple_of,
    "minLength": _Mutator.min_length,
    "maxLength": _Mutator.max_length,
    "pattern": _Mutator.pattern,
    "format": _Mutator.format,
    "minItems": _Mutator.min_items,
    "maxItems": _Mutator.max_items,
    "uniqueItems": _Mutator.unique_items,
    "contains": _Mutator.contains,
    "minContains": _Mutator.min_contains,
    "maxContains": _Mutator.max_contains,
    "required": _Mutator.required,
    "additionalProperties": _Mutator.additional_properties,
}

MUTABLE_KEYWORDS: frozenset[str] = frozenset(MUTATORS)


def mutate(schema: Any, sample: Any, rng: random.Random, keyword: str | None = None) -> Mutation | None:
    """A copy of the valid `sample` that breaks exactly one keyword (`keyword`, or a random one if None).

    Returns None when no such single-keyword change exists for this sample (say, `minItems: 0`, or a keyword
    outside MUTABLE_KEYWORDS), including when every change it tries is one the validator cannot judge (a pattern
    that times out on the changed value). See the module docstring for where jsonschema's reported keyword differs.
    """
    try:
        return _Mutator(schema, sample, rng).run(keyword)
    except (SchemaInputError, Unresolvable):  # the schema's own places cannot be walked (a pattern, a $ref)
        return None


def _places(step: float) -> int:
    """The decimal places ``step`` is written with (``0.25`` has 2, ``1e-300`` has 300), capped where a float has
    no more to give."""
    text = repr(float(step))
    mantissa, _, exponent = text.partition("e")
    places = len(mantissa.split(".")[1]) if "." in mantissa else 0
    return max(0, min(places - int(exponent or 0), 340))
