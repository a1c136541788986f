"""Validating a sample against a JSON Schema, with every error's place, keyword, expected value and seen value.

``jsonschema`` does the validating (Draft 2020-12 unless the schema's ``$schema`` names another draft); Corral
adds what a benchmark and a feedback loop need: a flat, serializable list of violations, a one-line error for a
schema that is not a JSON Schema, and an up-front list of ``$ref``s it cannot resolve (Corral never fetches a
schema from the network: a remote ``$ref`` resolves only through a registry the caller passes).

Formats are asserted by default: a schema author who writes ``format: email`` means it, and ConCodeEval counts
``format`` among its constraints. ``assert_formats=False`` gives the specification's default for 2020-12
(``format`` is an annotation), which the official test suite expects of its required tests.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from contextlib import suppress
from dataclasses import dataclass
from functools import lru_cache
from typing import Any
from urllib.parse import urljoin

from jsonschema import exceptions
from jsonschema.protocols import Validator
from referencing import Registry, Resource
from referencing.exceptions import Unresolvable
from referencing.jsonschema import DRAFT202012, specification_with

from ._cycles import endless_cycle
from ._dialect import FORMAT_ASSERTION_VOCABULARY, FORMATS, Compat, validator_class, vocabularies
from ._errors import SchemaInputError

ENDLESS = ("validating this sample nests deeper than Python allows: the schema's references or conditions recurse "
           "without end (or nearly so) here")
"""The error for a schema whose evaluation recursed past Python's limit where ``check_schema`` saw no plain cycle
(a cycle through another resource's ``$id``, or a chain thousands of conditions long)."""

MAX_ERRORS = 100
"""A sample that breaks more rules than this is reported with the first ``MAX_ERRORS`` violations."""
_SHOWN = 80


@dataclass(frozen=True)
class SchemaViolation:
    """One broken rule: where in the sample (a JSON pointer, "" = the root), which keyword, what it asks,
    what the sample has there, and where the keyword is in the schema (a JSON pointer)."""

    path: str
    keyword: str
    expected: Any
    seen: Any
    message: str
    schema_path: str

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "keyword": self.keyword, "expected": self.expected, "seen": self.seen,
                "message": self.message, "schema_path": self.schema_path}

    def describe(self) -> str:
        """A feedback line: '/age: minimum 18 violated; seen 12'."""
        return f"{self.path or '/'}: {self.message}"


@dataclass(frozen=True)
class RefProblem:
    """A ``$ref`` that does not resolve: where it is in the schema, what it says, and why."""

    schema_path: str
    ref: str
    reason: str

    def describe(self) -> str:
        return f"unresolvable $ref {self.ref!r} at {self.schema_path or '/'}: {self.reason}"


def _hash(path: str) -> str:
    """A JSON pointer as a URI fragment ('#/$defs/a'; '#' for the root)."""
    return "#" + path


def pointer(parts: Any) -> str:
    """A JSON pointer (RFC 6901) from path parts; "" is the root."""
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in parts)




def check_schema(schema: Any, registry: Registry | None = None) -> None:
    """Raise ``SchemaInputError`` if ``schema`` is not a valid schema of its draft or has an unresolvable
    ``$ref``; the message names the path ("invalid JSON Schema at properties/age/minimum: 'x' is not of type
    'number'")."""
    if not isinstance(schema, dict | bool):
        raise SchemaInputError(f"a JSON Schema is an object or a boolean, not {type(schema).__name__}")
    try:
        validator_class(schema).check_schema(schema, format_checker=FORMATS)  # ECMA-262 `pattern`s
    except exceptions.SchemaError as exc:
        where = "/".join(str(p) for p in exc.absolute_path) or "(root)"
        message = exc.message.splitlines()[0][:200]
        raise SchemaInputError(f"invalid JSON Schema at {where}: {message}") from None
    problems = unresolvable_refs(schema, registry)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise SchemaInputError(problems[0].describe() + more)
    cycle = endless_cycle(schema)
    if cycle:
        raise SchemaInputError(f"the schema refers back to itself without reaching into the data: "
                               f"{' -> '.join(_hash(p) for p in cycle)} (validation would never end)")


def validate(schema: Any, sample: Any, assert_formats: bool = True, registry: Registry | None = None,
             compat: Compat = "spec") -> list[SchemaViolation]:
    """Every rule of ``schema`` that ``sample`` breaks (empty: valid), in the sample's document order.

    The schema is expected to be valid (``check_schema``); a ``$ref`` reached during validation that does not
    resolve raises ``SchemaInputError``. ``compat="ajv"`` reads schemas as ajv does (SchemaStore's labels come
    from ajv): draft 4/6 schemas also get later drafts' ``const``, ``contains``, ``propertyNames`` and
    ``if``; a draft 7 root's ``$id`` beside ``$ref`` still sets the base URI."""
    validator = _validator(schema, assert_formats, registry, compat)
    found: list[SchemaViolation] = []
    try:
        for error in validator.iter_errors(sample):
            found.append(_violation(error))
            if len(found) >= MAX_ERRORS:
                break
    except Unresolvable as exc:
        raise SchemaInputError(f"unresolvable $ref: {exc}") from None
    except (AttributeError, TypeError) as exc:  # referencing crawling a malformed subschema
        raise SchemaInputError(f"a malformed subschema stopped $ref resolution ({exc})") from None
    except RecursionError:
        raise SchemaInputError(ENDLESS) from None
    return sorted(found, key=lambda v: (v.path, v.schema_path))


def is_valid(schema: Any, sample: Any, assert_formats: bool = True, registry: Registry | None = None,
             compat: Compat = "spec") -> bool:
    validator = _validator(schema, assert_formats, registry, compat)
    try:
        return validator.is_valid(sample)
    except Unresolvable as exc:
        raise SchemaInputError(f"unresolvable $ref: {exc}") from None
    except RecursionError:
        raise SchemaInputError(ENDLESS) from None


def _validator(schema: Any, assert_formats: bool, registry: Registry | None, compat: Compat = "spec") -> Validator:
    if registry is None and not _ajv_base(schema, compat):
        return _cached_validator(json.dumps(schema, sort_keys=True), assert_formats, compat)
    if registry is None:
        return _registry_validator(schema, assert_formats, Registry(), compat)
    # with a registry, building a validator merges the registry into jsonschema's own (every resource copied): the
    # cost of validating one small sample against a schema of SchemaStore's registry, 20 ms. Keyed on the registry
    # object (kept in the entry, so its id is never reused while the entry lives), a task's many samples share it.
    key = (json.dumps(schema, sort_keys=True), assert_formats, compat, id(registry))
    hit = _REGISTRY_VALIDATORS.get(key)
    if hit is not None and hit[0] is registry:
        _REGISTRY_VALIDATORS.move_to_end(key)
        return hit[1]
    validator = _registry_validator(schema, assert_formats, registry, compat)
    _REGISTRY_VALIDATORS[key] = (registry, validator)
    if len(_REGISTRY_VALIDATORS) > _REGISTRY_CACHE_SIZE:
        _REGISTRY_VALIDATORS.popitem(last=False)
    return validator


_REGISTRY_CACHE_SIZE = 64
_REGISTRY_VALIDATORS: OrderedDict[tuple[str, bool, str, int], tuple[Registry, Validator]] = OrderedDict()


def _registry_validator(schema: Any, assert_formats: bool, registry: Registry, compat: Compat) -> Validator:
    if _ajv_base(schema, compat):
        # draft 7 and earlier ignore every sibling of $ref, $id included, so the schema's own relative references
        # have no base; ajv keeps the $id. Reach the schema through its $id to give them that base.
        registry = registry.with_resource(schema["$id"], Resource.from_contents(schema))
        schema = {**({"$schema": schema["$schema"]} if "$schema" in schema else {}), "$ref": schema["$id"]}
    cls = validator_class(schema, registry, compat)
    assert_formats = assert_formats or FORMAT_ASSERTION_VOCABULARY in (vocabularies(schema, registry) or ())
    return cls(schema, registry=registry, format_checker=FORMATS if assert_formats else None)


def _ajv_base(schema: Any, compat: Compat) -> bool:
    return compat == "ajv" and isinstance(schema, dict) and isinstance(schema.get("$id"), str) and "$ref" in schema


@lru_cache(maxsize=256)
def _cached_validator(canonical: str, assert_formats: bool, compat: Compat) -> Validator:
    """Validators keyed on the schema's canonical text: a task validates many outputs against one schema."""
    schema = json.loads(canonical)
    cls = validator_class(schema, compat=compat)
    return cls(schema, format_checker=FORMATS if assert_formats else None)


def _violation(error: exceptions.ValidationError) -> SchemaViolation:
    if error.validator is None:  # the boolean schema false: jsonschema names no keyword
        return SchemaViolation(path=pointer(error.absolute_path), keyword="false", expected=False,
                               seen=_shown(error.instance), message="the schema here is false: no value is valid",
                               schema_path=pointer(error.absolute_schema_path))
    return SchemaViolation(
        path=pointer(error.absolute_path),
        keyword=str(error.validator),
        expected=_shown(error.validator_value),
        seen=_shown(error.instance),
        message=_short(error.message),
        schema_path=pointer(error.absolute_schema_path),
    )


def _shown(value: Any) -> Any:
    """Scalars as they are; containers as JSON text cut to a readable length (feedback, records)."""
    if value is None or isinstance(value, bool | int | float):
        return value
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


def _short(message: str) -> str:
    line = message.splitlines()[0] if message else ""
    return line if len(line) <= 300 else line[:299] + "…"


# ------------------------------------------------------------------------------------------- $ref resolution
_ONE = ("additionalProperties", "additionalItems", "contains", "propertyNames", "not", "if", "then", "else",
        "unevaluatedItems", "unevaluatedProperties", "contentSchema", "items")
_MANY = ("allOf", "anyOf", "oneOf", "prefixItems", "items")
_NAMED = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies")
_BASE = "urn:corral:schema"


def unresolvable_refs(schema: Any, registry: Registry | None = None) -> list[RefProblem]:
    """Every ``$ref`` (and ``$dynamicRef``) in ``schema`` that cannot be resolved, with its schema path.

    Resolution follows ``$id`` changes of the base URI, anchors and JSON pointers, as the validator does; a
    remote reference resolves only if ``registry`` holds it."""
    if not isinstance(schema, dict):
        return []
    specification = specification_with(schema.get("$schema", ""), default=DRAFT202012) \
        if isinstance(schema.get("$schema", ""), str) else DRAFT202012
    root = Resource(contents=schema, specification=specification)
    base = urljoin(_BASE, schema.get("$id", "")) if isinstance(schema.get("$id"), str) else _BASE
    full = (registry or Registry()).with_resource(base, root)
    with suppress(AttributeError, TypeError):  # a malformed subschema (a list where a schema belongs) stops it
        full = full.crawl()
    problems: list[RefProblem] = []
    _walk_refs(schema, full.resolver(base_uri=base), specification, (), problems)
    return problems


def _walk_refs(node: Any, resolver: Any, specification: Any, path: tuple[str, ...],
               problems: list[RefProblem]) -> None:
    if not isinstance(node, dict):
        return
    if path:
        resolver = resolver.in_subresource(Resource(contents=node, specification=specification))
    for key in ("$ref", "$dynamicRef"):
        ref = node.get(key)
        if isinstance(ref, str):
            try:
                resolver.lookup(ref)
            except Unresolvable as exc:
                problems.append(RefProblem(pointer(path), ref, _reason(ref, exc)))
            except (AttributeError, TypeError):  # the registry crawled into a malformed schema
                problems.append(RefProblem(pointer(path), ref, "a schema on the way is malformed"))
    for key in _ONE:
        if isinstance(node.get(key), dict):
            _walk_refs(node[key], resolver, specification, (*path, key), problems)
    for key in _MANY:
        if isinstance(node.get(key), list):
            for i, child in enumerate(node[key]):
                _walk_refs(child, resolver, specification, (*path, key, str(i)), problems)
    for key in _NAMED:
        if isinstance(node.get(key), dict):
            for name, child in node[key].items():
                _walk_refs(child, resolver, specification, (*path, key, name), problems)


def _reason(ref: str, exc: Unresolvable) -> str:
    kind = type(exc).__name__
    if kind == "PointerToNowhere":
        return "its JSON pointer leads nowhere in the schema"
    if kind == "NoSuchAnchor":
        return "no such anchor"
    if "://" in ref or ref.startswith("urn:") or not ref.startswith("#"):
        return "a schema Corral does not have (it never fetches remote schemas)"
    return "not found"
