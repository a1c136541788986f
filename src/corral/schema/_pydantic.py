"""A JSON Schema as the Python source of a pydantic v2 model (ConCodeEval's "Python" representation), written by
rules rather than by a model, and checked: ``pydantic_equivalent`` imports the source and compares pydantic's own
``model_json_schema()`` with the original.

What pydantic expresses natively is written natively: ``int``/``float``/``str``/``bool``/``None``, ``list[...]``,
nested models (one class per object, named from its path), ``Literal[...]`` for ``enum``/``const``, ``Field``
bounds (``ge``/``le``/``gt``/``lt``/``multiple_of``/``min_length``/``max_length``/``pattern``), ``set[...]`` for
unique scalar items, ``extra="forbid"``/``"allow"`` and a typed ``__pydantic_extra__`` for ``additionalProperties``,
aliases for property names that are not usable Python names. Everything else stays visible as a comment on the
line it belongs to (``# also: contains {"type": "boolean"}, minContains 1``): a reader sees every constraint, and
``unsupported_keywords`` lists them.

Optional properties get a default (``= None``) without widening their type, as ConCodeEval's Listing 9 does: the
type says what a present value must be, the default says the property may be left out.
"""

from __future__ import annotations

import importlib.util
import json
import keyword
import math
import re
import sys
import tempfile
import uuid
import warnings
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

from ._english import _lit as _json  # a JSON value on one line, non-printable characters escaped (for comments)
from ._walk import _escape

#: keywords pydantic cannot express natively anywhere, and why (they are kept as comments)
PYDANTIC_UNSUPPORTED: Mapping[str, str] = MappingProxyType({
    "contains": "no pydantic type or Field constraint says 'some item must match'",
    "minContains": "goes with contains",
    "maxContains": "goes with contains",
    "prefixItems": "tuple[...] would also fix the length (pydantic adds minItems/maxItems), which prefixItems does not",
    "additionalItems": "goes with the older array form of items (positional schemas), which has no pydantic form",
    "unevaluatedItems": "pydantic has no notion of evaluated items",
    "unevaluatedProperties": "pydantic has no notion of evaluated properties",
    "patternProperties": "a model's extra values share one type; no per-name-pattern types",
    "propertyNames": "a dict key pattern comes out as patternProperties, not as propertyNames",
    "dependentRequired": "pydantic cannot make one field required by the presence of another",
    "dependentSchemas": "pydantic cannot apply a schema by the presence of a field",
    "dependencies": "draft 7's dependentRequired/dependentSchemas",
    "allOf": "no intersection types",
    "anyOf": "kept as written (a union would be lossy beside sibling keywords)",
    "oneOf": "no exclusive union without a discriminator",
    "not": "no negation",
    "if": "no conditional schemas",
    "then": "goes with if",
    "else": "goes with if",
    "$ref": "references are not followed",
    "$defs": "definitions are not followed",
    "definitions": "definitions are not followed",
})

#: keywords pydantic expresses only in some contexts, and when it cannot. Besides these, any type-specific keyword
#: (minimum, minLength, items, properties...) in a schema without "type", or beside an expressible enum/const, or
#: for none of the schema's types, stays a comment: pydantic cannot say "if it is a number, it is at least 5".
PYDANTIC_CONDITIONAL: Mapping[str, str] = MappingProxyType({
    "type": "only the seven JSON type names",
    "enum": "Literal holds only null, booleans, numbers and strings, all of the declared type; not beside const",
    "const": "as enum",
    **dict.fromkeys(("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"),
                    "an integer's bounds and multipleOf must be integers (pydantic refuses 2.5 for an int)"),
    "pattern": "only patterns Python's re compiles (pydantic's engines are Rust regex and Python re)",
    "format": "only date-time, as AwareDatetime (the one format type importable from pydantic itself with an "
              "exact JSON Schema), and not beside minLength/maxLength/pattern",
    "items": "items: false and the older array form have no pydantic form",
    "uniqueItems": "true becomes set[...], which needs hashable items: scalar or Literal item types only",
    "required": "names that are not in properties cannot be required",
    "minProperties": "only on a plain dict (an object without properties)",
    "maxProperties": "only on a plain dict (an object without properties)",
    "default": "only on an optional property (a default makes a pydantic field optional)",
    "examples": "only where a Field can carry it (not on the root model)",
    "false": "the schema false (nothing is valid) has no type to write",
})

_TYPES = ("null", "boolean", "integer", "number", "string", "array", "object")
_NUMERIC = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")
_STRING = ("minLength", "maxLength", "pattern", "format")
_ARRAY = ("items", "minItems", "maxItems", "uniqueItems", "prefixItems", "contains", "minContains", "maxContains",
          "additionalItems", "unevaluatedItems")
_OBJECT = ("properties", "required", "additionalProperties", "minProperties", "maxProperties", "patternProperties",
           "propertyNames", "dependentRequired", "dependentSchemas", "unevaluatedProperties")
_APPLIES: dict[str, tuple[str, ...]] = {"number": _NUMERIC, "integer": _NUMERIC, "string": _STRING,
                                        "array": _ARRAY, "object": _OBJECT}
_TYPED = frozenset(_NUMERIC + _STRING + _ARRAY + _OBJECT)
_ANNOTATIONS = ("title", "description", "default", "examples")
_KNOWN = frozenset(("type", "enum", "const", *_TYPED, *_ANNOTATIONS))
_FIELD_ARG = {"minimum": "ge", "maximum": "le", "exclusiveMinimum": "gt", "exclusiveMaximum": "lt",
              "multipleOf": "multiple_of", "minLength": "min_length", "maxLength": "max_length", "pattern": "pattern",
              "minItems": "min_length", "maxItems": "max_length", "minProperties": "min_length",
              "maxProperties": "max_length"}
_FORMAT_TYPES = {"date-time": "AwareDatetime"}
_SCALAR_TYPES = frozenset(("null", "boolean", "integer", "number", "string"))
_SCALAR_PY = {"null": "None", "boolean": "bool", "integer": "int", "number": "float", "string": "str"}

Role = Literal["root", "required", "optional", "nested"]


# ---------------------------------------------------------------------------------------------------- analysis


def unsupported_keywords(schema: dict[str, Any]) -> list[tuple[str, str]]:
    """(JSON-pointer schema path, keyword) of every keyword ``to_pydantic`` can only keep as a comment, in
    document order. Subschemas under an unsupported keyword are not looked into (the whole keyword is a comment).
    The boolean schema ``false`` is reported as the keyword ``"false"`` at its own path."""
    return [(path, kw) for path, node, role in _positions(schema, "", "root") for kw in _unsupported(node, role)]


def _positions(node: Any, path: str, role: Role) -> Iterator[tuple[str, Any, Role]]:
    """Every subschema position ``to_pydantic`` renders, with its role."""
    yield path, node, role
    if not isinstance(node, dict):
        return
    skip = _unsupported(node, role)
    types = _types(node) if "type" not in skip else None
    if not types or _is_literal(node, skip):
        return
    if "array" in types and "items" not in skip and "items" in node:
        yield from _positions(node["items"], f"{path}/items", "nested")
    if "object" in types:
        properties = node.get("properties")
        if isinstance(properties, dict) and "properties" not in skip:
            required = _required(node)
            for name, sub in properties.items():
                sub_role: Role = "required" if name in required else "optional"
                yield from _positions(sub, f"{path}/properties/{_escape(name)}", sub_role)
        extra = node.get("additionalProperties")
        if isinstance(extra, dict) and "additionalProperties" not in skip:
            yield from _positions(extra, f"{path}/additionalProperties", "nested")


@lru_cache(maxsize=4096)
def _rust_regex_ok(pattern: str) -> bool:
    """Whether pydantic's default engine (Rust regex) compiles ``pattern``; if not, the model needs
    ``regex_engine="python-re"``."""
    from typing import Annotated

    from pydantic import Field, TypeAdapter

    try:
        TypeAdapter(Annotated[str, Field(pattern=pattern)])
    except Exception:
        return False
    return True


@lru_cache(maxsize=4096)
def _python_regex_ok(pattern: str) -> bool:
    try:
        re.compile(pattern)
    except (re.error, RecursionError, OverflowError):
        return False
    return True


def _unsupported(node: Any, role: Role) -> dict[str, str]:
    """keyword → why, for every keyword of ``node`` (at a position with ``role``) that stays a comment."""
    if node is False:
        return {"false": "no value is valid"}
    if not isinstance(node, dict):
        return {}
    out: dict[str, str] = {}
    for kw in node:
        if kw in PYDANTIC_UNSUPPORTED:
            out[kw] = PYDANTIC_UNSUPPORTED[kw]
        elif kw not in _KNOWN:
            out[kw] = "not a keyword pydantic can express"
    types = _types(node)
    if "type" in node and types is None:
        out["type"] = "not one of the seven JSON types"
    out |= _literal_problems(node, types)
    literal = _is_literal(node, out)
    for kw in node:
        if kw in _TYPED and kw not in out:
            problem = _typed_problem(node, kw, types, literal)
            if problem:
                out[kw] = problem
    out |= _annotation_problems(node, role)
    return {kw: out[kw] for kw in sorted(out, key=list(node).index)}  # in the schema's own order


def _literal_problems(node: dict[str, Any], types: list[str] | None) -> dict[str, str]:
    out: dict[str, str] = {}
    if "const" in node:
        if not _literal_ok([node["const"]], types):
            out["const"] = PYDANTIC_CONDITIONAL["const"]
        if "enum" in node:
            out["enum"] = "beside const"
    elif "enum" in node and not (isinstance(node["enum"], list) and node["enum"] and _literal_ok(node["enum"], types)):
        out["enum"] = PYDANTIC_CONDITIONAL["enum"]
    return out


def _is_literal(node: dict[str, Any], out: dict[str, str]) -> bool:
    """Whether the node is written as a Literal (its enum or const is expressible)."""
    return ("const" in node and "const" not in out) or ("enum" in node and "enum" not in out)


def _literal_ok(values: list[Any], types: list[str] | None) -> bool:
    for value in values:
        if not (value is None or isinstance(value, bool | int | str) or (isinstance(value, float) and
                                                                          math.isfinite(value))):
            return False
        if types is not None and not any(_conforms(value, t) for t in types):
            return False
    return True


def _conforms(value: Any, type_: str) -> bool:
    if type_ == "null":
        return value is None
    if type_ == "boolean":
        return isinstance(value, bool)
    if isinstance(value, bool):
        return False
    if type_ == "integer":
        return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    if type_ == "number":
        return isinstance(value, int | float)
    return isinstance(value, {"string": str, "array": list, "object": dict}[type_])


def _typed_problem(node: dict[str, Any], kw: str, types: list[str] | None, literal: bool) -> str | None:
    """Why the type-specific keyword ``kw`` cannot be written natively here, or None when it can."""
    if literal:
        return "beside enum/const (a Literal carries no other constraint)"
    if types is None:
        return "applies to one type only, and the schema has no type"
    applies_to = [t for t in types if kw in _APPLIES.get(t, ())]
    if not applies_to:
        return f"does not apply to the type {'/'.join(types)}"
    value = node[kw]
    if kw in _NUMERIC:
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            return "not a finite number"
        if "integer" in types and isinstance(value, float):
            return PYDANTIC_CONDITIONAL[kw]
        return None
    if kw in ("minProperties", "maxProperties") and _is_model(node):
        return PYDANTIC_CONDITIONAL[kw]
    if kw in ("minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"):
        return None if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else "not a count"
    if kw == "pattern":
        return None if isinstance(value, str) and _python_regex_ok(value) else PYDANTIC_CONDITIONAL["pattern"]
    if kw == "format":
        return None if _format_type(node) else PYDANTIC_CONDITIONAL["format"]
    if kw == "items":
        return None if value is True or isinstance(value, dict) else PYDANTIC_CONDITIONAL["items"]
    if kw == "uniqueItems":
        if value is False:
            return None
        return None if value is True and _hashable_items(node) else PYDANTIC_CONDITIONAL["uniqueItems"]
    if kw == "required":
        if not isinstance(value, list) or not all(isinstance(name, str) for name in value):
            return "not a list of names"
        names = node.get("properties") if _is_model(node) and isinstance(node.get("properties"), dict) else {}
        return None if all(name in names for name in value) else PYDANTIC_CONDITIONAL["required"]
    if kw == "properties":
        return None if isinstance(value, dict) else "not an object"
    if kw == "additionalProperties":
        return None if isinstance(value, bool | dict) else "not a schema"
    return None


def _annotation_problems(node: dict[str, Any], role: Role) -> dict[str, str]:
    out: dict[str, str] = {}
    for kw in ("title", "description"):
        if kw in node and not isinstance(node[kw], str):
            out[kw] = "not a string"
    if "default" in node and (role != "optional" or not _python_literal(node["default"])):
        out["default"] = PYDANTIC_CONDITIONAL["default"]
    if "examples" in node and (not isinstance(node["examples"], list) or not _python_literal(node["examples"])
                               or (role == "root" and _is_model(node))):
        out["examples"] = PYDANTIC_CONDITIONAL["examples"]
    return out


def _python_literal(value: Any) -> bool:
    """Whether ``repr(value)`` is Python source for the same JSON value."""
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(_python_literal(item) for item in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _python_literal(v) for k, v in value.items())
    return value is None or isinstance(value, bool | int | str)


def _types(node: dict[str, Any]) -> list[str] | None:
    """The node's JSON types, or None when it has none (or an invalid one)."""
    value = node.get("type")
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, list) or not names or len(set(map(str, names))) != len(names):
        return None
    return names if all(name in _TYPES for name in names) else None


def _format_type(node: dict[str, Any]) -> str | None:
    if any(kw in node for kw in ("minLength", "maxLength", "pattern")):
        return None
    return _FORMAT_TYPES.get(node["format"]) if isinstance(node.get("format"), str) else None


def _hashable_items(node: dict[str, Any]) -> bool:
    items = node.get("items")
    if not isinstance(items, dict):
        return False
    item_types = _types(items)
    if "const" in items or "enum" in items:
        problems = _literal_problems(items, item_types)
        return not problems and (item_types is None or set(item_types) <= _SCALAR_TYPES)
    return item_types is not None and set(item_types) <= _SCALAR_TYPES


def _is_model(node: dict[str, Any]) -> bool:
    """An object rendered as a class: it names properties, or forbids all others."""
    properties = node.get("properties")
    return (isinstance(properties, dict) and bool(properties)) or node.get("additionalProperties") is False


def _required(node: dict[str, Any]) -> set[str]:
    value = node.get("required")
    return {name for name in value if isinstance(name, str)} if isinstance(value, list) else set()


# ---------------------------------------------------------------------------------------------------- rendering


@dataclass
class _Type:
    """A rendered subschema: the type expression, the Field arguments that go with it, and comment notes."""

    base: str
    kwargs: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def wrapped(self, imports: set[str]) -> str:
        """The type with its Field arguments attached, for a position that is not a field (an item, a branch)."""
        if not self.kwargs:
            return self.base
        imports.update(("Annotated", "Field"))
        return f"Annotated[{self.base}, Field({', '.join(self.kwargs)})]"


@dataclass
class _Class:
    """What one class body needs besides its fields."""

    python_re: bool = False


def to_pydantic(schema: dict[str, Any]) -> str:
    """The Python source of a pydantic v2 model equivalent to ``schema`` on every keyword pydantic can express;
    the root class is ``Schema`` (a ``BaseModel`` for an object with properties, else a ``RootModel``)."""
    return _Builder(schema).source()


_IMPORTS = {"Annotated": "typing", "Any": "typing", "Literal": "typing", "AwareDatetime": "pydantic",
            "BaseModel": "pydantic", "ConfigDict": "pydantic", "Field": "pydantic", "RootModel": "pydantic"}
_BUILTIN_NAMES = ("int", "float", "str", "bool", "list", "set", "dict", "None", "True", "False")


@lru_cache(maxsize=1)
def _reserved_fields() -> frozenset[str]:
    """Names a field must not take: names its class body's annotations use, and BaseModel's attributes."""
    from pydantic import BaseModel

    names = set(_IMPORTS) | set(_BUILTIN_NAMES) | {"Schema"}
    return frozenset(names | {n for n in dir(BaseModel) if not n.startswith("_")})


class _Builder:
    def __init__(self, schema: dict[str, Any]) -> None:
        self.schema = schema
        self.classes: list[str] = []
        self.imports: set[str] = set()
        names = set(_property_names(schema))  # a class must not take a field's name (it would shadow the class)
        self.taken = set(_IMPORTS) | set(_BUILTIN_NAMES) | {"Schema"} | names | {_identifier(n, set()) for n in names}

    def source(self) -> str:
        root = self.schema
        if isinstance(root, dict) and _is_model(root) and "type" not in _unsupported(root, "root") \
                and _types(root) == ["object"]:
            self._model(root, "Schema", "root", ())
        else:
            self._root_model(root)
        lines = []
        for module in ("typing", "pydantic"):
            names = sorted(name for name in self.imports if _IMPORTS[name] == module)
            if names:
                lines.append(f"from {module} import {', '.join(names)}")
        return "\n".join(lines) + "\n\n\n" + "\n\n\n".join(self.classes) + "\n"

    # ---- classes

    def _root_model(self, node: Any) -> None:
        self.imports.add("RootModel")
        owner = _Class()
        rendered = self._node(node, (), "root", owner)
        head = _comment("class Schema(RootModel):", rendered.notes)
        body = self._config(owner, [])
        constraints = f" = Field({', '.join(rendered.kwargs)})" if rendered.kwargs else ""  # no default: required
        self.classes.append("\n".join([head, *body, f"    root: {rendered.base}{constraints}"]))

    def _model(self, node: dict[str, Any], name: str, role: Role, path: tuple[str, ...]) -> None:
        """One BaseModel class (its nested classes are appended first, so every name is defined before use)."""
        self.imports.add("BaseModel")
        owner = _Class()
        notes = [_note(kw, node) for kw in _unsupported(node, role)]
        lines = self._fields(node, owner, path)
        extra = node.get("additionalProperties")
        if isinstance(extra, dict) and extra != {}:
            rendered = self._node(extra, (*path, "extra"), "nested", owner)
            notes += [f"additionalProperties.{note}" for note in rendered.notes]
            lines.append(f"    __pydantic_extra__: dict[str, {rendered.wrapped(self.imports)}]")
        config = ['extra="forbid"'] if extra is False else ['extra="allow"'] if isinstance(extra, bool | dict) else []
        if role == "root" and isinstance(node.get("title"), str):
            config.append(f"title={_py(node['title'])}")
        lines = self._config(owner, config) + lines
        if role == "root" and isinstance(node.get("description"), str):
            lines.insert(0, f"    {_py(node['description'])}")
        self.classes.append("\n".join([_comment(f"class {name}(BaseModel):", notes), *(lines or ["    pass"])]))

    def _config(self, owner: _Class, items: list[str]) -> list[str]:
        if owner.python_re:
            items = [*items, 'regex_engine="python-re"']
        if not items:
            return []
        self.imports.add("ConfigDict")
        return [f"    model_config = ConfigDict({', '.join(items)})"]

    def _fields(self, node: dict[str, Any], owner: _Class, path: tuple[str, ...]) -> list[str]:
        properties = node.get("properties")
        if not isinstance(properties, dict):
            return []
        required, used, lines = _required(node), set(), []
        for key, sub in properties.items():
            role: Role = "required" if key in required else "optional"
            name = _identifier(key, used)
            used.add(name)
            rendered = self._node(sub, (*path, key), role, owner)
            kwargs = list(rendered.kwargs)
            if name != key:
                kwargs.insert(0, f"alias={_py(key)}")
            default = None
            if role == "optional":
                default = _py(sub["default"]) if isinstance(sub, dict) and "default" in sub \
                    and "default" not in _unsupported(sub, role) else "None"
            if kwargs:
                self.imports.add("Field")
                args = ", ".join(([default] if default else []) + kwargs)
                line = f"    {name}: {rendered.base} = Field({args})"
            else:
                line = f"    {name}: {rendered.base}" + (f" = {default}" if default else "")
            lines.append(_comment(line, rendered.notes))
        return lines

    # ---- types

    def _node(self, node: Any, path: tuple[str, ...], role: Role, owner: _Class) -> _Type:
        """The type of the subschema ``node`` at naming path ``path``; nested models become classes."""
        if node is True or node == {}:
            self.imports.add("Any")
            return _Type("Any")
        if not isinstance(node, dict):
            self.imports.add("Any")
            return _Type("Any", notes=["false (no value is valid)" if node is False else f"schema {_json(node)}"])
        skip = _unsupported(node, role)
        kwargs = self._annotations(node, skip)
        types = _types(node) if "type" not in skip else None
        if _is_literal(node, skip):
            self.imports.add("Literal")
            values = [node["const"]] if "const" in node else _dedupe(node["enum"])
            rendered = _Type(f"Literal[{', '.join(_py(v) for v in values)}]")
        elif types is None:
            self.imports.add("Any")
            rendered = _Type("Any")
        else:
            branches = [self._branch(node, t, path, role, owner, skip) for t in types]
            if len(branches) == 1:
                rendered = branches[0]
            else:
                rendered = _Type(" | ".join(b.wrapped(self.imports) for b in branches),
                                 notes=[n for b in branches for n in b.notes])
        if kwargs:
            self.imports.add("Field")
        model_notes = types is not None and "object" in types and _is_model(node) and not _is_literal(node, skip)
        notes = rendered.notes + ([] if model_notes else [_note(kw, node) for kw in skip])
        return _Type(rendered.base, rendered.kwargs + kwargs, notes)

    def _annotations(self, node: dict[str, Any], skip: dict[str, str]) -> list[str]:
        kwargs = []
        for kw in ("title", "description", "examples"):
            if kw in node and kw not in skip:
                kwargs.append(f"{kw}={_py(node[kw])}")
        return kwargs

    def _branch(self, node: dict[str, Any], type_: str, path: tuple[str, ...], role: Role, owner: _Class,
                skip: dict[str, str]) -> _Type:
        kwargs = [f"{_FIELD_ARG[kw]}={_py(node[kw])}" for kw in node  # in the schema's order
                  if kw in _APPLIES.get(type_, ()) and kw not in skip and kw in _FIELD_ARG]
        if kwargs:
            self.imports.add("Field")
        if type_ == "string" and "pattern" in node and "pattern" not in skip and not _rust_regex_ok(node["pattern"]):
            owner.python_re = True
        if type_ == "string" and "format" in node and "format" not in skip:
            base = _FORMAT_TYPES[node["format"]]
            self.imports.add(base)
            return _Type(base, kwargs)
        if type_ in _SCALAR_PY:
            return _Type(_SCALAR_PY[type_], kwargs)
        if type_ == "array":
            return self._array(node, path, owner, skip, kwargs)
        return self._object(node, path, role, owner, skip, kwargs)

    def _array(self, node: dict[str, Any], path: tuple[str, ...], owner: _Class, skip: dict[str, str],
               kwargs: list[str]) -> _Type:
        items = node.get("items", True) if "items" not in skip else True
        rendered = self._node(items, (*path, "item"), "nested", owner)
        container = "set" if node.get("uniqueItems") is True and "uniqueItems" not in skip else "list"
        notes = [f"items.{note}" for note in rendered.notes]
        return _Type(f"{container}[{rendered.wrapped(self.imports)}]", kwargs, notes)

    def _object(self, node: dict[str, Any], path: tuple[str, ...], role: Role, owner: _Class, skip: dict[str, str],
                kwargs: list[str]) -> _Type:
        if _is_model(node):
            name = self._class_name(path)
            self._model(node, name, role, path)
            return _Type(name, kwargs)
        extra = node.get("additionalProperties", True) if "additionalProperties" not in skip else True
        rendered = self._node(extra, (*path, "value"), "nested", owner)
        notes = [f"additionalProperties.{note}" for note in rendered.notes]
        return _Type(f"dict[str, {rendered.wrapped(self.imports)}]", kwargs, notes)

    def _class_name(self, path: tuple[str, ...]) -> str:
        stem = "".join(_camel(part) for part in path) or "Model"
        if stem[0].isdigit():
            stem = "M" + stem
        name, n = stem, 1
        while name in self.taken or keyword.iskeyword(name):
            n += 1
            name = f"{stem}{n}"
        self.taken.add(name)
        return name


def _property_names(node: Any) -> Iterator[str]:
    """Every property name in the schema, so that class names never equal a field's name."""
    if isinstance(node, dict):
        properties = node.get("properties")
        if isinstance(properties, dict):
            yield from properties
        for value in node.values():
            yield from _property_names(value)
    elif isinstance(node, list):
        for value in node:
            yield from _property_names(value)


def _identifier(key: str, used: set[str]) -> str:
    """A Python field name for the property ``key``: itself when usable, else a close spelling (plus an alias)."""
    name = re.sub(r"[^0-9A-Za-z_]", "_", key).lstrip("_")
    if not name or name[0].isdigit():
        name = f"field_{name}" if name else "field"
    if keyword.iskeyword(name) or name in _reserved_fields() or name.startswith("model_"):
        name += "_"
    while name in used:
        name += "_"
    return name


def _camel(part: str) -> str:
    words = re.findall(r"[0-9A-Za-z]+", part)
    return "".join(word[0].upper() + word[1:] for word in words)


def _dedupe(values: list[Any]) -> list[Any]:
    seen, out = set(), []
    for value in values:
        tag = _tag(value)
        if tag not in seen:
            seen.add(tag)
            out.append(value)
    return out


def _py(value: Any) -> str:
    """Python source for a JSON value (strings, numbers, booleans, null, lists, dicts)."""
    return repr(value)


def _note(kw: str, node: Any) -> str:
    if kw == "false":
        return "false (no value is valid)"
    return f"{_json(kw)[1:-1]} {_json(node[kw])}"


def _comment(line: str, notes: list[str]) -> str:
    return f"{line}  # also: {', '.join(notes)}" if notes else line


# ---------------------------------------------------------------------------------------------------- checking


def pydantic_equivalent(schema: dict[str, Any], source: str) -> list[str]:
    """How pydantic's own JSON Schema for the model in ``source`` differs from ``schema`` on the keywords pydantic
    can express (``unsupported_keywords`` are left out of the comparison); an empty list means equivalent.

    This imports ``source`` and so runs it: call it only on text ``to_pydantic`` wrote, never on untrusted text
    (a model's output, a file from elsewhere). Warnings pydantic gives while building the model count as
    differences."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = _import_model(source)
        produced = model.model_json_schema()
    problems = [f"warning: {w.message}" for w in caught]
    expected = _strip(schema, "root")
    return problems + _diff(_canon(expected), _canon(_inline(produced, produced.get("$defs", {}))), "")


def _import_model(source: str) -> Any:
    """The ``Schema`` class of ``source``, imported from a temporary module file (tracebacks show its lines)."""
    name = f"_corral_pydantic_{uuid.uuid4().hex}"
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"{name}.py"
        path.write_text(source, encoding="utf-8")
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
            return module.Schema
        finally:
            sys.modules.pop(name, None)


def _strip(node: Any, role: Role) -> Any:
    """``node`` without the keywords pydantic cannot express (what the model should reproduce)."""
    if node is False:
        return True
    if not isinstance(node, dict):
        return node
    skip = _unsupported(node, role)
    out = {kw: value for kw, value in node.items() if kw not in skip}
    if skip.get("required") == PYDANTIC_CONDITIONAL["required"]:  # the names that are properties are required
        named = node.get("properties") if isinstance(node.get("properties"), dict) else {}
        out["required"] = [name for name in node["required"] if name in named]
    if isinstance(out.get("items"), dict | bool):
        out["items"] = _strip(out["items"], "nested")
    if isinstance(out.get("additionalProperties"), dict):
        out["additionalProperties"] = _strip(out["additionalProperties"], "nested")
    if isinstance(out.get("properties"), dict):
        required = _required(node)
        out["properties"] = {name: _strip(sub, "required" if name in required else "optional")
                             for name, sub in out["properties"].items()}
    return out


def _inline(node: Any, defs: dict[str, Any]) -> Any:
    """pydantic's schema with every ``$ref`` replaced by its definition (siblings of the ``$ref`` win). Only
    subschema positions are looked into: a property may well be called "$ref", and enum values are data."""
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for kw, value in node.items():
        if kw == "$defs":
            continue
        if kw in ("properties", "patternProperties") and isinstance(value, dict):
            out[kw] = {name: _inline(sub, defs) for name, sub in value.items()}
        elif kw in ("anyOf", "oneOf", "allOf", "prefixItems") and isinstance(value, list):
            out[kw] = [_inline(sub, defs) for sub in value]
        elif kw in ("items", "additionalProperties", "propertyNames", "contains", "not"):
            out[kw] = _inline(value, defs)
        else:
            out[kw] = value
    ref = out.pop("$ref", None)
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        target = _inline(defs[ref.removeprefix("#/$defs/")], defs)
        out = {**target, **out}
    return out


def _canon(node: Any) -> Any:
    """A comparable form of a schema: annotations dropped, constraints grouped by the type they apply to,
    enum/const as a set of type-tagged values, no-op keywords dropped, unions of types merged."""
    if node is True or node == {}:
        return {"any": {}}
    if node is False:
        return {"never": True}
    if not isinstance(node, dict):
        return {"value": _tag(node)}
    node = {kw: value for kw, value in node.items() if kw not in _ANNOTATIONS}
    if set(node) == {"anyOf"} and isinstance(node["anyOf"], list):
        return _merge([_canon(branch) for branch in node["anyOf"]])
    if "const" in node or "enum" in node:
        values = [node["const"]] if "const" in node else node["enum"]
        rest = _keywords(node, [kw for kw in node if kw not in ("const", "enum", "type")])
        return {"enum": sorted({_tag(v) for v in values}), **rest}
    types = node.get("type")
    if types is None:
        return {"any": _keywords(node, [kw for kw in node if kw != "type"])}
    groups = {}
    for type_ in [types] if isinstance(types, str) else types:
        groups[type_] = _keywords(node, [kw for kw in node if kw in _APPLIES.get(type_, ())])
    rest = [kw for kw in node if kw != "type" and kw not in _TYPED]
    return {"types": groups, **({"other": _keywords(node, rest)} if rest else {})}


def _keywords(node: dict[str, Any], keywords: list[str]) -> dict[str, Any]:
    out = {}
    for kw in keywords:
        value = _canon_keyword(kw, node[kw])
        if value is not _NOOP:
            out[kw] = value
    return out


_NOOP = object()


def _canon_keyword(kw: str, value: Any) -> Any:
    if kw == "properties" and isinstance(value, dict):
        return {name: _canon(sub) for name, sub in value.items()} or _NOOP
    if kw in ("items", "additionalProperties"):
        canon = _canon(value)
        return _NOOP if canon == {"any": {}} else canon
    if kw == "required" and isinstance(value, list):
        return sorted(set(map(str, value))) or _NOOP
    if kw == "uniqueItems" and value is False:
        return _NOOP
    return _tag(value)


def _merge(branches: list[Any]) -> Any:
    """A union of canonical schemas: one type group per type when no type repeats, else the list as is."""
    if all(set(b) == {"types"} for b in branches):
        merged: dict[str, Any] = {}
        for branch in branches:
            for type_, keywords in branch["types"].items():
                if type_ in merged:
                    return {"anyOf": sorted(map(_tag, branches))}
                merged[type_] = keywords
        return {"types": merged}
    if all(set(b) == {"enum"} for b in branches):
        return {"enum": sorted({tag for b in branches for tag in b["enum"]})}
    return {"anyOf": sorted(map(_tag, branches))}


def _tag(value: Any) -> str:
    """A JSON value as text that tells 5 from 5.0 and 1 from true (JSON text alone does not tell 5.0 from 5 in
    every writer, and Python's == says 1 == True)."""
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, int):
        return f"int:{value}"
    if isinstance(value, float):  # -0.0 is 0.0 (and typing's Literal cache may hand back either)
        return f"float:{value + 0.0!r}"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ",".join(_tag(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(f"{json.dumps(k, ensure_ascii=False)}:{_tag(v)}" for k, v in sorted(value.items())) + "}"
    return repr(value)


def _diff(expected: Any, got: Any, path: str) -> list[str]:
    if isinstance(expected, dict) and isinstance(got, dict):
        out = []
        for key in [*expected, *(k for k in got if k not in expected)]:
            where = f"{path}/{key}"
            if key not in got:
                out.append(f"{where}: missing (expected {_short(expected[key])})")
            elif key not in expected:
                out.append(f"{where}: unexpected {_short(got[key])}")
            else:
                out += _diff(expected[key], got[key], where)
        return out
    if expected != got:
        return [f"{path or '/'}: expected {_short(expected)}, got {_short(got)}"]
    return []


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 200 else text[:197] + "..."
