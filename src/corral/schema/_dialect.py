"""Which validator a schema gets: its draft's ``jsonschema`` class, adjusted where Corral follows the
specification more closely than the library does.

- ``pattern``, ``patternProperties`` (and the property matching of ``additionalProperties``) and
  ``format: regex`` use ECMA-262 regular expressions (``corral.schema._ecma``), as the specification says.
- A 2020-12 schema may still use draft 7's ``dependencies`` (the specification's optional compatibility).
- Draft 7 asserts ``contentEncoding: base64`` and ``contentMediaType: application/json`` (draft 7 lets an
  implementation do so; 2020-12 makes them annotations, and so does Corral there).
- A schema whose ``$schema`` is a custom meta-schema the registry holds gets only the vocabularies that meta-schema
  lists: without the validation vocabulary, ``minimum``, ``type`` and the rest are not asserted; with the
  format-assertion vocabulary, formats are asserted.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
from collections.abc import Iterator
from fractions import Fraction
from functools import cache
from typing import Any, Literal

from jsonschema import FormatChecker, validators
from jsonschema.exceptions import ValidationError
from jsonschema.protocols import Validator
from referencing import Registry
from referencing.exceptions import Unresolvable

from ._ecma import PatternError, is_regex, search
from ._errors import SchemaInputError

VALIDATION_VOCABULARY = "https://json-schema.org/draft/2020-12/vocab/validation"
FORMAT_ASSERTION_VOCABULARY = "https://json-schema.org/draft/2020-12/vocab/format-assertion"
VALIDATION_KEYWORDS = ("type", "enum", "const", "multipleOf", "maximum", "exclusiveMaximum", "minimum",
                       "exclusiveMinimum", "maxLength", "minLength", "pattern", "maxItems", "minItems",
                       "uniqueItems", "maxContains", "minContains", "maxProperties", "minProperties", "required",
                       "dependentRequired")


Compat = Literal["spec", "ajv"]
"""``spec``: each draft's own keywords. ``ajv``: as ajv (SchemaStore's validator) reads draft 4 and 6 schemas, with
the later drafts' ``const``, ``contains``, ``propertyNames`` and ``if``/``then``/``else`` applied too."""


def validator_class(schema: Any, registry: Registry | None = None, compat: Compat = "spec") -> type[Validator]:
    """The validator class for ``schema``: its draft (2020-12 when it names none), with Corral's adjustments."""
    default = validators.Draft202012Validator
    base = validators.validator_for(schema, default=default) if isinstance(schema, dict) else default
    listed = vocabularies(schema, registry)
    return _adjusted(base, listed is not None and VALIDATION_VOCABULARY not in listed, compat)


def vocabularies(schema: Any, registry: Registry | None) -> frozenset[str] | None:
    """The vocabularies a custom meta-schema (``$schema`` held by ``registry``) lists; None for a standard
    dialect or a meta-schema that lists none."""
    uri = schema.get("$schema") if isinstance(schema, dict) else None
    if registry is None or not isinstance(uri, str) or uri.rstrip("#") in _KNOWN_DIALECTS:
        return None
    try:
        meta = registry.resolver().lookup(uri).contents
    except Unresolvable:
        return None
    listed = meta.get("$vocabulary") if isinstance(meta, dict) else None
    return frozenset(listed) if isinstance(listed, dict) else None


_KNOWN_DIALECTS = {uri.rstrip("#") for uri in validators._META_SCHEMAS}


@cache
def _adjusted(base: type[Validator], without_validation: bool, compat: Compat) -> type[Validator]:
    keywords: dict[str, Any] = {"pattern": _pattern, "patternProperties": _pattern_properties,
                                "additionalProperties": _additional_properties,
                                "multipleOf": _exact_multiple_of(base.VALIDATORS["multipleOf"])}
    if compat == "ajv" and base in (validators.Draft4Validator, validators.Draft6Validator):
        later = validators.Draft7Validator.VALIDATORS
        keywords |= {key: later[key] for key in ("const", "contains", "propertyNames", "if")}
    if base is validators.Draft202012Validator:
        keywords["dependencies"] = validators.Draft7Validator.VALIDATORS["dependencies"]
    if base is validators.Draft7Validator and compat == "spec":  # ajv leaves content to annotation
        keywords |= {"contentEncoding": _content_encoding, "contentMediaType": _content_media_type}
    if without_validation:
        keywords |= dict.fromkeys(VALIDATION_KEYWORDS, _annotation)
    return validators.extend(base, keywords)


@cache
def _exact_multiple_of(original: Any) -> Any:
    """jsonschema's multipleOf, finished exactly where its float arithmetic overflows (an integer too large for a
    float, or an infinite float from a literal such as 1e400): a verdict instead of an exception."""

    def multiple_of(validator: Validator, divisor: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
        try:
            found = list(original(validator, divisor, instance, schema))
        except (OverflowError, ValueError):
            if isinstance(instance, float) and not math.isfinite(instance):
                found = [ValidationError(f"{instance!r} is not a finite number, so not a multiple of {divisor}")]
            elif (Fraction(instance) / Fraction(divisor)).denominator != 1:
                found = [ValidationError(f"{instance!r} is not a multiple of {divisor}")]
            else:
                found = []
        yield from found

    return multiple_of


def _annotation(validator: Validator, value: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    return iter(())


def _pattern(validator: Validator, pattern: str, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if validator.is_type(instance, "string") and not _search(pattern, instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(validator: Validator, patterns: dict[str, Any], instance: Any,
                        schema: Any) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if _search(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_properties(validator: Validator, additional: Any, instance: Any,
                           schema: Any) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    named, patterns = schema.get("properties", {}), schema.get("patternProperties", {})
    extras = [key for key in instance if key not in named and not any(_search(p, key) for p in patterns)]
    if validator.is_type(additional, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], additional, path=extra)
    elif additional is False and extras:
        listed = ", ".join(repr(extra) for extra in sorted(extras))
        yield ValidationError(f"additional properties are not allowed ({listed} unexpected)")


def _content_encoding(validator: Validator, encoding: str, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if validator.is_type(instance, "string") and encoding == "base64" and _base64(instance) is None:
        yield ValidationError(f"{instance[:40]!r} is not base64")


def _content_media_type(validator: Validator, media_type: str, instance: Any,
                        schema: Any) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "string") or media_type != "application/json":
        return
    text = _base64(instance) if schema.get("contentEncoding") == "base64" else instance
    if text is None:
        return  # contentEncoding reports it
    try:
        json.loads(text)
    except (ValueError, UnicodeDecodeError):
        yield ValidationError(f"{instance[:40]!r} is not application/json")


def _base64(text: str) -> str | None:
    try:
        return base64.b64decode(text, validate=True).decode("utf-8", errors="replace")
    except (binascii.Error, ValueError):
        return None


def _search(pattern: str, text: str) -> bool:
    try:
        return search(pattern, text)
    except PatternError as exc:
        raise SchemaInputError(str(exc)) from None


def _format_checker() -> FormatChecker:
    """jsonschema's 2020-12 format checks (a superset of draft 7's, with the same meanings), with ``regex``
    meaning an ECMA-262 regular expression. (``FormatChecker()`` would mix in draft 3's different ``time``.)"""
    checker = FormatChecker(formats=())
    checker.checkers = dict(validators.Draft202012Validator.FORMAT_CHECKER.checkers)
    checker.checks("regex")(lambda value: not isinstance(value, str) or is_regex(value))
    return checker


FORMATS = _format_checker()
