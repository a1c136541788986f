"""Seeded synthetic JSON Schemas in the style of ConCodeEval (602 schemas mixing draft 2020-12 constraints).

The paper's generator is not public, so this one approximates what its examples show: mostly object roots with a
handful of properties (booleans, nulls, untyped `{}` and constrained numbers and strings, as in its Listing 7),
some array roots built around `contains`/`minContains` and a few scalar roots (its few-shot examples), nested
two or three levels at most. Every constraint combination is made satisfiable by construction (a known valid
value is placed inside every range first, the bounds are drawn around it), and `generate_schema` still proves it by
drawing a valid sample, so no schema in a suite is contradictory.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any

from ._sample import FORMATS, NoSampleError, multiples, valid_sample, words
from ._walk import keyword_census, schema_depth

#: every keyword the generator can emit (draft 2020-12 names)
ALL_KEYWORDS: frozenset[str] = frozenset(
    {
        "type", "multipleOf", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
        "minLength", "maxLength", "pattern", "format", "enum", "const",
        "items", "prefixItems", "contains", "minContains", "maxContains", "minItems", "maxItems", "uniqueItems",
        "properties", "required", "additionalProperties",
    }
)  # fmt: skip

_SCALARS = ("string", "number", "integer", "boolean", "null")
_CONTAINERS = ("object", "array")

#: (pattern, shortest match, longest match, how many distinct matches, roughly)
PATTERNS: tuple[tuple[str, int, int, float], ...] = (
    ("^[a-z]{3,8}$", 3, 8, math.inf),
    ("^[A-Z][0-9]{2}$", 3, 3, 2600),
    ("^[A-Z]{2}-[0-9]{3,5}$", 6, 8, math.inf),
    ("^[0-9]{3}-[0-9]{4}$", 8, 8, math.inf),
    ("^[a-f0-9]{6,12}$", 6, 12, math.inf),
    ("^[A-Za-z]{2,5}[0-9]{1,3}$", 3, 8, math.inf),
    ("^(red|green|blue|amber)$", 3, 5, 4),
    ("^[a-z]{2,6}_[a-z]{2,6}$", 5, 13, math.inf),
    ("^v[0-9]\\.[0-9]{1,2}$", 4, 5, 110),
    ("^[A-Z][a-z]{1,9}$", 2, 10, math.inf),
)


@dataclass(frozen=True)
class GeneratorConfig:
    """Knobs of the schema generator; the defaults are the ConCodeEval-like preset `CONCODE`.

    Depth counts subschema hops from the root: a root object with scalar properties has depth 1, an array of
    objects inside it depth 3. Rates are probabilities per opportunity (per property, per optional constraint).
    """

    max_depth: int = 3
    min_properties: int = 2
    max_properties: int = 10
    nested_max_properties: int = 4
    root_types: tuple[tuple[str, float], ...] = (
        ("object", 0.62), ("array", 0.2), ("string", 0.07), ("number", 0.05), ("integer", 0.03),
        ("boolean", 0.015), ("null", 0.015),
    )  # fmt: skip
    property_types: tuple[tuple[str, float], ...] = (
        ("boolean", 0.13), ("null", 0.08), ("number", 0.24), ("integer", 0.12), ("string", 0.22),
        ("object", 0.08), ("array", 0.13),
    )  # fmt: skip
    nesting_decay: float = 0.5  # container weights shrink by this factor per level of depth
    keywords: frozenset[str] = ALL_KEYWORDS
    keyword_rate: float = 0.45  # bounds, lengths, multipleOf, minItems, ...: each drawn with this probability
    untyped_rate: float = 0.08  # share of untyped `{}` properties and items
    enum_rate: float = 0.07
    const_rate: float = 0.04
    format_rate: float = 0.2  # of strings
    pattern_rate: float = 0.2  # of strings
    contains_rate: float = 0.4  # of arrays
    prefix_items_rate: float = 0.08  # of arrays without contains
    required_rate: float = 0.4  # per property, when the object has `required`
    max_items: int = 8
    max_min_contains: int = 7

    def __post_init__(self) -> None:
        object.__setattr__(self, "keywords", frozenset(self.keywords))  # accept any iterable of names
        unknown = set(self.keywords) - ALL_KEYWORDS
        if unknown:
            raise ValueError(f"unknown keywords {sorted(unknown)}; the generator knows {sorted(ALL_KEYWORDS)}")
        if not 0 <= self.min_properties <= self.max_properties:
            raise ValueError("need 0 <= min_properties <= max_properties")
        if self.max_depth < 0 or self.max_items < 1:
            raise ValueError("need max_depth >= 0 and max_items >= 1")
        for name, weights in (("root_types", self.root_types), ("property_types", self.property_types)):
            bad = {kind for kind, _ in weights} - set(_SCALARS) - set(_CONTAINERS)
            if bad or not weights or sum(weight for _, weight in weights) <= 0:
                raise ValueError(f"{name}: need positive weights over {_SCALARS + _CONTAINERS}")


CONCODE = GeneratorConfig()


@dataclass(frozen=True)
class GeneratedSchema:
    """One schema of a suite with a valid sample; `size` is the number of keyword occurrences (sum of census)."""

    id: str
    seed: int
    schema: dict[str, Any]
    sample: Any
    census: dict[str, int]
    depth: int
    size: int


class _Builder:
    """Draws one schema; every method returns a fresh dict with `type` first (as the paper's listings)."""

    def __init__(self, rng: random.Random, config: GeneratorConfig) -> None:
        self.rng = rng
        self.config = config

    # ------------------------------------------------------------ choices

    def allowed(self, keyword: str) -> bool:
        return keyword in self.config.keywords

    def on(self, keyword: str, rate: float | None = None) -> bool:
        """Whether to use `keyword` here: allowed by the config, and drawn at `rate`."""
        chance = self.config.keyword_rate if rate is None else rate
        return self.allowed(keyword) and self.rng.random() < chance

    def typed(self, kind: str) -> dict[str, Any]:
        return {"type": kind} if self.allowed("type") else {}

    def pick(self, weights: tuple[tuple[str, float], ...], depth: int) -> str:
        """A kind by weight; containers only where their children still fit under max_depth."""
        nest = depth < self.config.max_depth
        options = [
            (kind, weight * (self.config.nesting_decay**depth if kind in _CONTAINERS else 1))
            for kind, weight in weights
            if nest or kind not in _CONTAINERS
        ]
        options = [(kind, weight) for kind, weight in options if weight > 0]
        if not options:
            return self.rng.choice(_SCALARS)
        kinds, chances = zip(*options, strict=True)
        return self.rng.choices(kinds, chances)[0]

    def scalar_kind(self) -> str:
        """For tuple positions and additionalProperties schemas: a type worth constraining."""
        return self.rng.choice(["string", "number", "integer", "boolean"])

    # ------------------------------------------------------------ schemas

    def root(self) -> dict[str, Any]:
        return self.build(self.pick(self.config.root_types, 0), 0, root=True)

    def child(self, depth: int) -> dict[str, Any]:
        """A property or item schema at `depth`: sometimes untyped `{}` (as in the paper's Listing 7)."""
        if self.rng.random() < self.config.untyped_rate:
            return {}
        return self.build(self.pick(self.config.property_types, depth), depth)

    def build(self, kind: str, depth: int, root: bool = False) -> dict[str, Any]:
        if kind == "object":
            return self.object(depth, root)
        if kind == "array":
            return self.array(depth)
        if kind == "string":
            return self.string()
        if kind in ("number", "integer"):
            return self.number(kind == "integer")
        schema = self.typed(kind)
        if kind == "boolean" and self.on("const", self.config.const_rate):
            schema["const"] = self.rng.random() < 0.5
        return schema

    def number(self, integer: bool) -> dict[str, Any]:
        schema = self.typed("integer" if integer else "number")
        if self.on("enum", self.config.enum_rate):
            schema["enum"] = self.distinct_numbers(integer, self.rng.randint(2, 5))
            return schema
        if self.on("const", self.config.const_rate):
            schema["const"] = self.distinct_numbers(integer, 1)[0]
            return schema
        step = self.step(integer) if self.on("multipleOf") else None
        anchor = self.anchor(integer, step)
        low = self.rng.choice(["minimum", "exclusiveMinimum"])
        high = self.rng.choice(["maximum", "exclusiveMaximum"])
        use_low, use_high = self.on(low), self.on(high)
        if step is not None:
            schema["multipleOf"] = step
        if use_low:
            schema[low] = self.bound(anchor, -1, integer, step)
        if use_high:
            schema[high] = self.bound(anchor, 1, integer, step)
        return schema

    def step(self, integer: bool) -> int | float:
        if integer or self.rng.random() < 0.35:
            return self.rng.choice([2, 3, 4, 5, 5, 10, 25])
        return round(self.rng.uniform(0.5, 20), 2)

    def anchor(self, integer: bool, step: int | float | None) -> int | float:
        """A value the bounds will be drawn around, so the range always holds it; with a step, one jsonschema
        accepts as a multiple (`value / step` integral in floating point)."""
        if step is None:
            return self.rng.randint(-20, 150) if integer else self.rng.uniform(-20, 150)
        while True:
            k = self.rng.randint(1, 25)
            good = [value for value in multiples(k, step, integer) if float(value / step).is_integer()]
            if good:
                return good[0]

    def bound(self, anchor: int | float, side: int, integer: bool, step: int | float | None) -> int | float:
        """A bound on `side` (-1 below, +1 above) strictly beyond the anchor, so exclusive bounds hold too."""
        if integer:
            reach = step * self.rng.randint(1, 3) if step else self.rng.randint(1, 40)
            return anchor + side * self.rng.randint(1, max(1, int(reach)))
        reach = step * self.rng.uniform(0.05, 2.5) if step else self.rng.uniform(0.5, 80)
        return anchor + side * reach

    def distinct_numbers(self, integer: bool, count: int) -> list[int | float]:
        values: list[int | float] = []
        while len(values) < count:
            value = self.rng.randint(-10, 500) if integer else round(self.rng.uniform(-10, 500), 2)
            if value not in values:
                values.append(value)
        return values

    def string(self) -> dict[str, Any]:
        schema = self.typed("string")
        if self.on("enum", self.config.enum_rate):
            schema["enum"] = self.rng.sample(words(), self.rng.randint(2, 5))
        elif self.on("const", self.config.const_rate):
            schema["const"] = self.rng.choice(words())
        elif self.on("format", self.config.format_rate):
            schema["format"] = self.rng.choice(sorted(FORMATS))
        elif self.on("pattern", self.config.pattern_rate):
            self.patterned(schema)
        else:
            shortest = self.rng.randint(1, 12) if self.on("minLength") else None
            if shortest is not None:
                schema["minLength"] = shortest
            if self.on("maxLength"):
                floor = max(shortest or 0, 3)
                schema["maxLength"] = self.rng.randint(floor, floor + 30)
        return schema

    def patterned(self, schema: dict[str, Any]) -> None:
        """A pattern from the library, with length bounds that leave some matching lengths."""
        pattern, shortest, longest, _ = self.rng.choice(PATTERNS)
        schema["pattern"] = pattern
        low = self.rng.randint(max(1, shortest - 2), longest) if self.on("minLength", 0.3) else None
        if low is not None:
            schema["minLength"] = low
        if self.on("maxLength", 0.3):
            schema["maxLength"] = self.rng.randint(max(low or 0, shortest), longest + 3)

    def object(self, depth: int, root: bool) -> dict[str, Any]:
        schema = self.typed("object")
        config = self.config
        if depth < config.max_depth and self.allowed("properties"):
            top = config.max_properties if root else min(config.max_properties, config.nested_max_properties)
            count = self.rng.randint(min(config.min_properties, top), top)
            names = self.rng.sample(words(), count)
            schema["properties"] = {name: self.child(depth + 1) for name in names}
        if self.on("additionalProperties", 0.6):
            roll = self.rng.random()
            if roll < 0.2 and depth < config.max_depth:
                schema["additionalProperties"] = self.build(self.scalar_kind(), depth + 1)
            else:
                schema["additionalProperties"] = roll < 0.6
        if "properties" in schema and self.on("required", 0.75):
            schema["required"] = [name for name in schema["properties"] if self.rng.random() < config.required_rate]
        return schema

    def array(self, depth: int) -> dict[str, Any]:
        schema = self.typed("array")
        nest = depth < self.config.max_depth
        if nest and self.on("contains", self.config.contains_rate):
            self.containing(schema, depth)
        elif nest:
            if self.on("prefixItems", self.config.prefix_items_rate):
                count = self.rng.randint(1, 3)
                schema["prefixItems"] = [self.build(self.scalar_kind(), depth + 1) for _ in range(count)]
            if self.on("items", 0.85):
                schema["items"] = self.child(depth + 1)
        self.lengths(schema)
        return schema

    def containing(self, schema: dict[str, Any], depth: int) -> None:
        """`contains` with a constrained scalar, maybe `items` of the same bare type, and minContains/maxContains."""
        kind = self.rng.choice(["number", "number", "integer", "string", "boolean"])
        inner = self.build(kind, depth + 1)
        if "type" in inner and self.on("items", 0.4):
            schema["items"] = {"type": inner["type"]}
        schema["contains"] = inner
        least = 1
        if self.on("minContains", 0.5):
            least = self.rng.randint(0, self.config.max_min_contains if self.rng.random() < 0.2 else 3)
            schema["minContains"] = least
        if self.on("maxContains", 0.4):
            schema["maxContains"] = self.rng.randint(max(least, 1), max(least, 1) + 3)

    def lengths(self, schema: dict[str, Any]) -> None:
        """minItems/maxItems/uniqueItems that agree with contains counts and with how many distinct values exist."""
        least_matches = schema.get("minContains", 1) if "contains" in schema else 0
        most_matches = schema.get("maxContains")
        shortest = self.rng.randint(0, 3) if self.on("minItems") else None
        if shortest is not None and most_matches is not None:
            shortest = min(shortest, most_matches)  # fillers may all match contains: keep room for them
        if shortest is not None:
            schema["minItems"] = shortest
        if self.on("maxItems"):
            floor = max(shortest or 0, least_matches, most_matches or 0, 1)
            schema["maxItems"] = self.rng.randint(floor, max(floor, self.config.max_items))
        if self.on("uniqueItems", 0.25) and self.distinct_enough(schema, shortest or 0, least_matches):
            schema["uniqueItems"] = True

    def distinct_enough(self, schema: dict[str, Any], shortest: int, least_matches: int) -> bool:
        if "prefixItems" in schema:
            return False
        items = schema.get("items", {})
        need = max(shortest, least_matches) + 1
        if "contains" in schema and capacity(schema["contains"]) < need:
            return False
        return capacity(items) >= need


def capacity(schema: dict[str, Any]) -> float:
    """Roughly how many distinct valid values a generated subschema has (math.inf for plenty); 0 when unknown."""
    if "const" in schema:
        return 1
    if "enum" in schema:
        return len(schema["enum"])
    kind = schema.get("type")
    if kind is None:
        return math.inf if not any(key in schema for key in ("properties", "items", "contains")) else 0
    if kind in ("boolean", "null"):
        return 2 if kind == "boolean" else 1
    if kind == "string":
        limits = [entry[3] for entry in PATTERNS if entry[0] == schema.get("pattern")]
        if limits:
            return limits[0]
        return math.inf if schema.get("maxLength", 3) >= 3 else 20
    if kind in ("number", "integer"):
        return _numeric_capacity(schema, kind == "integer")
    return 0


def _numeric_capacity(schema: dict[str, Any], integer: bool) -> float:
    lows = [schema[key] for key in ("minimum", "exclusiveMinimum") if key in schema]
    highs = [schema[key] for key in ("maximum", "exclusiveMaximum") if key in schema]
    step = schema.get("multipleOf")
    if not lows or not highs or (step is None and not integer):
        return math.inf
    return max(0, (min(highs) - max(lows)) / (step or 1) - 1)


def _draw(seed: int, config: GeneratorConfig) -> tuple[dict[str, Any], Any]:
    """The schema for `seed` and a valid sample proving it satisfiable (redraws in the unlikely other case)."""
    rng = random.Random(seed)
    for _ in range(50):
        schema = _Builder(rng, config).root()
        try:
            return schema, valid_sample(schema, rng)
        except NoSampleError:
            continue
    raise RuntimeError(f"seed {seed}: no satisfiable schema in 50 draws; the config is too tight")


def generate_schema(seed: int, config: GeneratorConfig = CONCODE) -> dict[str, Any]:
    """A satisfiable draft 2020-12 schema, the same for the same seed and config (own `random.Random`)."""
    return _draw(seed, config)[0]


def suite_seed(seed: int, index: int) -> int:
    """Seed of schema `index` in the suite drawn with `seed` (so any schema can be regenerated alone)."""
    return seed * 1_000_000 + index


def generate_one(index: int, seed: int, config: GeneratorConfig = CONCODE) -> GeneratedSchema:
    """Schema `index` (0-based) of suite `seed`, with its sample, census, depth and size."""
    own = suite_seed(seed, index)
    schema, sample = _draw(own, config)
    census = dict(sorted(keyword_census(schema).items()))
    return GeneratedSchema(
        id=f"s{index + 1:04d}",
        seed=own,
        schema=schema,
        sample=sample,
        census=census,
        depth=schema_depth(schema),
        size=sum(census.values()),
    )


def generate_suite(n: int = 602, seed: int = 0, config: GeneratorConfig = CONCODE) -> list[GeneratedSchema]:
    """ConCodeEval-sized suite: `n` schemas with ids s0001..., each regenerable from its own seed."""
    return [generate_one(index, seed, config) for index in range(n)]


def suite_census(suite: list[GeneratedSchema]) -> dict[str, int]:
    """Keyword occurrences over the whole suite, most frequent first."""
    total: dict[str, int] = {}
    for item in suite:
        for keyword, count in item.census.items():
            total[keyword] = total.get(keyword, 0) + count
    return dict(sorted(total.items(), key=lambda pair: (-pair[1], pair[0])))
