"""A JSON Schema in plain English (ConCodeEval's "NL" representation, its Listing 11, made regular).

Rule-based and deterministic: the same schema always reads the same. Every keyword is said, in the schema's own
order (a constraint's position in the text stays comparable across forms), with its exact value: numbers as
Python's ``repr`` (``5.131849487240756``, ``5.0`` and ``5`` stay distinct), strings, property names and enum values
as JSON literals (quoted, escapes spelled out, so a name with a newline or a quote in it is still one line and
unambiguous). Nested schemas are indented bullets. A keyword that applies to one JSON type only is said inline
when the schema has exactly that type, and as "If it is a number, ..." otherwise, since that is what it means.
Keywords Corral does not know are still said ("Also: ... is ...") so nothing is silently dropped.
"""

from __future__ import annotations

import json
from typing import Any

_NOUNS = {"null": "null", "boolean": "a boolean", "integer": "an integer", "number": "a number",
          "string": "a string", "array": "an array", "object": "an object"}
_FAMILY_OF_TYPE = {"integer": "number", "number": "number", "string": "string", "array": "array", "object": "object"}
_FAMILY_NOUNS = {"number": "a number", "string": "a string", "array": "an array", "object": "an object"}
_FAMILY = {
    **dict.fromkeys(("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"), "number"),
    **dict.fromkeys(("minLength", "maxLength", "pattern", "format", "contentEncoding", "contentMediaType",
                     "contentSchema"), "string"),
    **dict.fromkeys(("items", "prefixItems", "additionalItems", "contains", "minContains", "maxContains", "minItems",
                     "maxItems", "uniqueItems", "unevaluatedItems"), "array"),
    **dict.fromkeys(("properties", "required", "additionalProperties", "patternProperties", "propertyNames",
                     "minProperties", "maxProperties", "dependentRequired", "dependentSchemas", "dependencies",
                     "unevaluatedProperties"), "object"),
}
_INLINE = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength",
           "pattern", "format", "minItems", "maxItems", "uniqueItems", "minProperties", "maxProperties", "enum",
           "const")
_SCHEMA_LISTS = {"anyOf": "at least one of these", "oneOf": "exactly one of these", "allOf": "all of these"}


def describe(schema: Any) -> str:
    """``schema`` as English text: one opening sentence, then indented details (one statement a line)."""
    phrase, blocks = _node(schema)
    return "\n".join([f"The value must be {phrase}.", *blocks]) + "\n"


def _node(node: Any) -> tuple[str, list[str]]:
    """(noun phrase for ``node``, lines of details to put under it, not yet indented)."""
    if node is True:
        return "any value", []
    if node is False:
        return "nothing (no value is allowed)", []
    if not isinstance(node, dict):
        return f"the schema {_lit(node)}", []
    types = _types(node.get("type"))
    single = _FAMILY_OF_TYPE.get(types[0]) if types and len(types) == 1 else None
    quals: list[str] = []
    blocks: list[str] = []
    by_family: dict[str, tuple[list[str], list[str]]] = {}
    for kw, value in node.items():
        if kw == "type":
            if types is None:
                blocks.append(f"Also: {_lit(kw)} is {_lit(value)}.")
            continue
        family = _FAMILY.get(kw)
        inline = family is None or family == single
        target_quals, target_blocks = (quals, blocks) if inline else by_family.setdefault(family, ([], []))
        if kw in _INLINE:
            target_quals.append(_qualifier(kw, value))
        else:
            target_blocks.extend(_statement(kw, value, node))
    for family, (family_quals, family_blocks) in by_family.items():
        blocks.extend(_conditional(family, family_quals, family_blocks))
    head = _head(types, node.get("type"))
    return (f"{head} that {_join(quals)}" if quals else head), blocks


def _types(value: Any) -> list[str] | None:
    names = [value] if isinstance(value, str) else value
    if isinstance(names, list) and names and all(isinstance(n, str) and n in _NOUNS for n in names):
        return names
    return None


def _head(types: list[str] | None, raw: Any) -> str:
    if types is None:
        return "any value" if raw is None else "a value"
    return _join([_NOUNS[t] for t in types], "or")


def _conditional(family: str, quals: list[str], blocks: list[str]) -> list[str]:
    """The constraints on one JSON type of a schema that does not have exactly that type."""
    noun = _FAMILY_NOUNS[family]
    said = f"If it is {noun}, it {_join(quals)}" if quals else f"If it is {noun}"
    if not blocks:
        return [said + "."]
    return [said + ":", *_indent(blocks)]


def _qualifier(kw: str, value: Any) -> str:
    """A verb phrase for one inline keyword ("is at least 5")."""
    if kw == "minimum":
        return f"is at least {_num(value)}"
    if kw == "maximum":
        return f"is at most {_num(value)}"
    if kw in ("exclusiveMinimum", "exclusiveMaximum"):
        side, word = ("minimum", "greater") if kw == "exclusiveMinimum" else ("maximum", "less")
        if isinstance(value, bool):  # draft 4: a flag on minimum/maximum
            return f"is strictly {word} than its {side}" if value else f"may equal its {side}"
        return f"is strictly {word} than {_num(value)}"
    if kw == "multipleOf":
        return f"is a multiple of {_num(value)}"
    if kw in ("minLength", "maxLength"):
        return f"has {_bound(kw)} {_count(value, 'character', 'characters')}"
    if kw == "pattern":
        return f"matches the regular expression {_lit(value)}"
    if kw == "format":
        return f"is in the {_lit(value)} format"
    if kw in ("minItems", "maxItems"):
        return f"has {_bound(kw)} {_count(value, 'item', 'items')}"
    if kw in ("minProperties", "maxProperties"):
        return f"has {_bound(kw)} {_count(value, 'property', 'properties')}"
    if kw == "uniqueItems":
        return "has no duplicate items" if value is True else f"may have duplicate items (uniqueItems is {_lit(value)})"
    if kw == "enum":
        if isinstance(value, list):
            return f"is one of these values: {', '.join(_lit(v) for v in value)}" if value else "matches no value"
        return f"is one of the values in {_lit(value)}"
    return f"is exactly {_lit(value)}"  # const


def _statement(kw: str, value: Any, node: dict[str, Any]) -> list[str]:
    """Lines for one structural, annotation or unknown keyword."""
    handler = _STATEMENTS.get(kw)
    if handler is not None:
        return handler(value, node)
    return [f"Also: {_lit(kw)} is {_lit(value)}."]


def _sub(lead: str, schema: Any) -> list[str]:
    """'<lead> <phrase>.' with the subschema's details indented under it."""
    phrase, blocks = _node(schema)
    return [f"{lead} {phrase}.", *_indent(blocks)]


def _items(value: Any, node: dict[str, Any]) -> list[str]:
    if isinstance(value, list):  # draft 4-7 positional form
        return _positional(value)
    return _sub("Each item must be", value)


def _prefix_items(value: Any, node: dict[str, Any]) -> list[str]:
    return _positional(value) if isinstance(value, list) else [f"Also: \"prefixItems\" is {_lit(value)}."]


def _positional(schemas: list[Any]) -> list[str]:
    lines = []
    for index, schema in enumerate(schemas, start=1):
        lines += _sub(f"Item {index} (if present) must be", schema)
    return lines


def _additional_items(value: Any, node: dict[str, Any]) -> list[str]:
    return _sub("Each item after the positional ones must be", value)


def _contains(value: Any, node: dict[str, Any]) -> list[str]:
    low, high = node.get("minContains"), node.get("maxContains")
    count = f"At least {_num(low if low is not None else 1)}"
    if high is not None:
        count += f" and at most {_num(high)}"
    return _sub(f"{count} of its items must be", value)


def _contains_bound(value: Any, node: dict[str, Any]) -> list[str]:
    if "contains" in node:
        return []  # said with contains
    return [f"Also: it has a contains count bound of {_num(value)}, which has no effect without contains."]


def _properties(value: Any, node: dict[str, Any]) -> list[str]:
    if not isinstance(value, dict):
        return [f"Also: \"properties\" is {_lit(value)}."]
    if not value:
        return ["It lists no properties."]
    required = node.get("required") if isinstance(node.get("required"), list) else []
    lines = ["Its properties:"]
    for name, schema in value.items():
        flag = "required" if name in required else "optional"
        phrase, blocks = _node(schema)
        lines.append(f"- {_lit(name)} ({flag}): {phrase}.")
        lines += _indent(blocks)
    return lines


def _required(value: Any, node: dict[str, Any]) -> list[str]:
    if not isinstance(value, list):
        return [f"Also: \"required\" is {_lit(value)}."]
    if not value:
        return ["No property is required."]
    return [f"Required properties: {', '.join(_lit(name) for name in value)}."]


def _additional_properties(value: Any, node: dict[str, Any]) -> list[str]:
    listed = "properties" in node or "patternProperties" in node
    if value is False:
        return ["It must have no other properties." if listed else "It must have no properties."]
    if value is True:
        return ["It may have other properties." if listed else "It may have any properties."]
    return _sub("Any other property must be" if listed else "Every property must be", value)


def _pattern_properties(value: Any, node: dict[str, Any]) -> list[str]:
    if not isinstance(value, dict):
        return [f"Also: \"patternProperties\" is {_lit(value)}."]
    lines = []
    for pattern, schema in value.items():
        lines += _sub(f"Every property whose name matches the regular expression {_lit(pattern)} must be", schema)
    return lines


def _dependent_required(value: Any, node: dict[str, Any]) -> list[str]:
    if not isinstance(value, dict):
        return [f"Also: \"dependentRequired\" is {_lit(value)}."]
    lines = []
    for name, others in value.items():
        if isinstance(others, list):
            needs = _join([_lit(o) for o in others]) if others else "nothing else"
            lines.append(f"If it has the property {_lit(name)}, it must also have {needs}.")
        else:
            lines += _sub(f"If it has the property {_lit(name)}, it must also be", others)
    return lines


def _dependent_schemas(value: Any, node: dict[str, Any]) -> list[str]:
    if not isinstance(value, dict):
        return [f"Also: \"dependentSchemas\" is {_lit(value)}."]
    lines = []
    for name, schema in value.items():
        lines += _sub(f"If it has the property {_lit(name)}, it must also be", schema)
    return lines


def _schema_list(kw: str) -> Any:
    def say(value: Any, node: dict[str, Any]) -> list[str]:
        if not isinstance(value, list):
            return [f"Also: {_lit(kw)} is {_lit(value)}."]
        lines = [f"It must be {_SCHEMA_LISTS[kw]}:"]
        for schema in value:
            phrase, blocks = _node(schema)
            lines += [f"- {phrase}.", *_indent(blocks)]
        return lines

    return say


def _definitions(value: Any, node: dict[str, Any]) -> list[str]:
    if not isinstance(value, dict):
        return [f"Also: definitions are {_lit(value)}."]
    lines = ["Definitions (used by reference):"]
    for name, schema in value.items():
        phrase, blocks = _node(schema)
        lines += [f"- {_lit(name)}: {phrase}.", *_indent(blocks)]
    return lines


def _simple(template: str, sub: bool = False) -> Any:
    def say(value: Any, node: dict[str, Any]) -> list[str]:
        if sub:
            return _sub(template, value)
        return [template.format(_lit(value))]

    return say


_STATEMENTS: dict[str, Any] = {
    "items": _items,
    "prefixItems": _prefix_items,
    "additionalItems": _additional_items,
    "contains": _contains,
    "minContains": _contains_bound,
    "maxContains": _contains_bound,
    "unevaluatedItems": _simple("Every item not covered by the rules above must be", sub=True),
    "properties": _properties,
    "required": _required,
    "additionalProperties": _additional_properties,
    "patternProperties": _pattern_properties,
    "propertyNames": _simple("Every property name must be", sub=True),
    "dependentRequired": _dependent_required,
    "dependentSchemas": _dependent_schemas,
    "dependencies": _dependent_required,
    "unevaluatedProperties": _simple("Every property not covered by the rules above must be", sub=True),
    "anyOf": _schema_list("anyOf"),
    "oneOf": _schema_list("oneOf"),
    "allOf": _schema_list("allOf"),
    "not": _simple("It must not be", sub=True),
    "if": _simple("Condition: it is", sub=True),
    "then": _simple("When the condition holds, it must be", sub=True),
    "else": _simple("When the condition does not hold, it must be", sub=True),
    "$ref": _simple("It must match the schema at {}."),
    "$defs": _definitions,
    "definitions": _definitions,
    "contentEncoding": _simple("Its content is encoded as {}."),
    "contentMediaType": _simple("Its content has the media type {}."),
    "contentSchema": _simple("Its decoded content must be", sub=True),
    "title": _simple("Title: {}."),
    "description": _simple("Description: {}."),
    "default": _simple("Default: {}."),
    "examples": _simple("Examples: {}."),
    "$comment": _simple("Comment: {}."),
    "deprecated": _simple("Deprecated: {}."),
    "readOnly": _simple("Read-only: {}."),
    "writeOnly": _simple("Write-only: {}."),
    "$schema": _simple("It is written in the JSON Schema dialect {}."),
    "$id": _simple("Its identifier is {}."),
    "$anchor": _simple("Its anchor is {}."),
}


def _bound(kw: str) -> str:
    return "at least" if kw.startswith("min") else "at most"


def _count(value: Any, one: str, many: str) -> str:
    return f"{_num(value)} {one if value == 1 and not isinstance(value, bool) else many}"


def _num(value: Any) -> str:
    """A number exactly as Python writes it (repr: the shortest text that reads back as the same float)."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return repr(value)
    return _lit(value)


def _lit(value: Any) -> str:
    """A JSON literal on one line: strings quoted and escaped, floats as repr (what json writes), and every
    character Python does not call printable escaped too (a U+2028 would otherwise break the line)."""
    text = json.dumps(value, ensure_ascii=False)
    return "".join(ch if ch.isprintable() else json.dumps(ch)[1:-1] for ch in text)


def _join(items: list[str], last: str = "and") -> str:
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {last} {items[-1]}"


def _indent(lines: list[str]) -> list[str]:
    return [f"  {line}" for line in lines]
