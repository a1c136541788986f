"""The JSON form: plain data that round-trips (``from_json(to_json(c)) == c``), with errors naming the path.

    {"level": "sentence", "profile": "default",
     "body": {"kind": "and", "parts": [
        {"kind": "count", "of": "text", "level": "word", "rel": "==", "value": 10},
        {"kind": "match", "of": {"kind": "pos", "of": "text", "level": "word", "index": 3},
         "rel": "==", "value": "soft"}]}}

Selectors are ``"text"``, ``"unit"`` or ``{"kind": "pos", "of": ..., "level": ..., "index": ...}``; a node's
``kind`` is ``and``/``or``/``not``/``foreach`` or a registered base constraint's name; its other keys are the
node's fields (optional ones may be left out).
"""

from __future__ import annotations

import dataclasses
import types
import typing
from enum import Enum
from functools import cache
from typing import Any

from corral.errors import InputError
from corral.registry import RegistryError
from corral.text import Level

from ._kinds import get_kind, kind_of
from ._nodes import TEXT, UNIT, And, Constraint, Expr, ForEach, Not, Or, Pos, Quantifier, Rel, TextRef, UnitRef

FORMAT = "corral.constraint.v1"
_COMPOSITIONS: dict[str, type] = {"and": And, "or": Or, "not": Not, "foreach": ForEach}


class ConstraintJSONError(InputError):
    """Bad JSON constraint data; ``path`` locates the field, e.g. ``body.parts[1].level``."""

    def __init__(self, path: str, message: str) -> None:
        self.path, self.reason = path, message
        super().__init__(f"{path}: {message}")


# -------------------------------------------------------------------------------------------- encoding
def to_json(node: Constraint | Expr) -> dict[str, Any]:
    if isinstance(node, Constraint):
        data: dict[str, Any] = {"format": FORMAT}
        if node.level is not None:
            data["level"] = node.level.value
        data["profile"] = node.profile
        data["body"] = _encode_node(node.body)
        return data
    return _encode_node(node)


def _encode_node(node: Expr) -> dict[str, Any]:
    kind = kind_of(node)
    data: dict[str, Any] = {"kind": kind.name if kind else node.kind}
    for f in dataclasses.fields(node):  # type: ignore[arg-type]
        value = getattr(node, f.name)
        if f.default is not dataclasses.MISSING and value == f.default:
            continue
        data[f.name] = _encode_value(value)
    return data


def _encode_value(value: Any) -> Any:
    if isinstance(value, TextRef):
        return "text"
    if isinstance(value, UnitRef):
        return "unit"
    if isinstance(value, Pos):
        return {"kind": "pos", "of": _encode_value(value.of), "level": value.level.value, "index": value.index}
    if isinstance(value, Expr):
        return _encode_node(value)
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, tuple):
        return [_encode_value(v) for v in value]
    return value


# -------------------------------------------------------------------------------------------- decoding
_MAX_PATH_STEPS = 200


def from_json(data: Any) -> Constraint:
    """The Constraint that ``data`` describes (a bare node is accepted as the body)."""
    if not isinstance(data, dict):
        raise ConstraintJSONError("$", f"expected an object, got {_type(data)}")
    if "body" not in data:
        return Constraint(_decode_node(data, "$"))
    unknown = set(data) - {"format", "level", "profile", "body"}
    if unknown:
        raise ConstraintJSONError("$", f"unknown keys {sorted(unknown)}")
    if data.get("format", FORMAT) != FORMAT:
        raise ConstraintJSONError("format", f"expected {FORMAT!r}, got {data['format']!r}")
    level = _decode_level(data["level"], "level") if data.get("level") is not None else None
    profile = data.get("profile", "default")
    if not isinstance(profile, str):
        raise ConstraintJSONError("profile", f"expected a profile name, got {_type(profile)}")
    from corral.text import get_profile

    try:
        get_profile(profile)
    except RegistryError as exc:
        raise ConstraintJSONError("profile", str(exc)) from None
    return Constraint(_decode_node(data["body"], "body"), level, profile)


def _decode_node(data: Any, path: str) -> Expr:
    if path.count(".") > _MAX_PATH_STEPS:  # each level of nesting adds a step or two to the path
        raise ConstraintJSONError(path[:60] + "...", "nested too deeply (at most 100 levels)")
    if not isinstance(data, dict):
        raise ConstraintJSONError(path, f"expected a constraint object, got {_type(data)}")
    name = data.get("kind")
    if not isinstance(name, str):
        raise ConstraintJSONError(f"{path}.kind", "missing or not a string")
    cls = _COMPOSITIONS.get(name)
    if cls is None:
        try:
            cls = get_kind(name).node
        except RegistryError as exc:
            raise ConstraintJSONError(f"{path}.kind", str(exc)) from None
    hints = _hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = set(data) - set(fields) - {"kind"}
    if unknown:
        raise ConstraintJSONError(path, f"unknown keys {sorted(unknown)} for {name}")
    kwargs = {}
    for field_name, f in fields.items():
        if field_name not in data:
            if f.default is dataclasses.MISSING:
                raise ConstraintJSONError(f"{path}.{field_name}", "missing")
            continue
        kwargs[field_name] = _decode_value(data[field_name], hints[field_name], f"{path}.{field_name}")
    try:
        return cls(**kwargs)
    except (ValueError, TypeError) as exc:
        raise ConstraintJSONError(path, str(exc)) from None


@cache
def _hints(cls: type) -> dict[str, Any]:
    from . import _nodes

    return typing.get_type_hints(cls, vars(_nodes))


def _decode_value(value: Any, hint: Any, path: str) -> Any:
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if hint is Expr:
        return _decode_node(value, path)
    if origin is tuple:
        if not isinstance(value, list):
            raise ConstraintJSONError(path, f"expected a list, got {_type(value)}")
        return tuple(_decode_value(v, args[0], f"{path}[{i}]") for i, v in enumerate(value))
    if origin in (typing.Union, types.UnionType):
        if set(args) >= {TextRef, UnitRef, Pos}:
            return _decode_selector(value, path)
        if type(None) in args:
            if value is None:
                return None
            (inner,) = [a for a in args if a is not type(None)]
            return _decode_value(value, inner, path)
    if hint is Level:
        return _decode_level(value, path)
    if hint in (Rel, Quantifier):
        try:
            return hint(value)
        except ValueError:
            choices = ", ".join(v.value for v in hint)
            raise ConstraintJSONError(path, f"expected one of {choices}, got {value!r}") from None
    if hint is bool:
        if not isinstance(value, bool):
            raise ConstraintJSONError(path, f"expected true or false, got {_type(value)}")
        return value
    if hint is int:
        if not isinstance(value, int) or isinstance(value, bool):
            raise ConstraintJSONError(path, f"expected a whole number, got {_type(value)}")
        return value
    if hint is str:
        if not isinstance(value, str):
            raise ConstraintJSONError(path, f"expected a string, got {_type(value)}")
        return value
    raise ConstraintJSONError(path, f"cannot decode a field of type {hint}")


def _decode_selector(value: Any, path: str) -> TextRef | UnitRef | Pos:
    if value == "text":
        return TEXT
    if value == "unit":
        return UNIT
    if not isinstance(value, dict) or value.get("kind") != "pos":
        raise ConstraintJSONError(path, f"expected \"text\", \"unit\" or a pos object, got {value!r:.60}")
    unknown = set(value) - {"kind", "of", "level", "index"}
    if unknown:
        raise ConstraintJSONError(path, f"unknown keys {sorted(unknown)} for pos")
    for key in ("of", "level", "index"):
        if key not in value:
            raise ConstraintJSONError(f"{path}.{key}", "missing")
    of = _decode_selector(value["of"], f"{path}.of")
    level = _decode_level(value["level"], f"{path}.level")
    index = _decode_value(value["index"], int, f"{path}.index")
    try:
        return Pos(of, level, index)
    except ValueError as exc:
        raise ConstraintJSONError(f"{path}.index", str(exc)) from None


def _decode_level(value: Any, path: str) -> Level:
    if not isinstance(value, str):
        raise ConstraintJSONError(path, f"expected a level name, got {_type(value)}")
    try:
        return Level.parse(value)
    except ValueError as exc:
        raise ConstraintJSONError(path, str(exc)) from None


def _type(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", int: "a number",
            float: "a number", type(None): "null"}.get(type(value), type(value).__name__)
