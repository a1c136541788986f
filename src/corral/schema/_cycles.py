"""Reference cycles that never reach into the data: schemas whose validation cannot end.

``{"$ref": "#"}``, two definitions that ``$ref`` each other, or ``{"allOf": [{"$ref": "#"}]}`` send a validator from
a schema back to the same schema *at the same place in the data*: it recurses until Python's stack runs out.
JSON Schema 2020-12 (core, section 9.4.1) says a schema must not run into such a loop and leaves the behaviour
undefined, so Corral refuses a schema whose root enters one, with the cycle named, before validating anything.

The check follows only the keywords that apply a subschema to the same instance (``$ref``, ``$dynamicRef``,
``$recursiveRef``, ``allOf``, ``anyOf``, ``oneOf``, ``not``, ``if``, ``then``, ``else``, ``dependentSchemas``,
the schema values of ``dependencies``). A cycle that passes through ``properties``, ``items`` or any other keyword
that descends into the data is ordinary recursion (a tree's ``children``), and ends with the data. References are
resolved within the document: a fragment (``#``, ``#/json/pointer``, ``#anchor``) against the nearest enclosing
``$id``; references to other documents are not followed (validation guards against what this misses).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

__all__ = ["endless_cycle"]

_IN_PLACE_ONE = ("not", "if", "then", "else")
_IN_PLACE_LIST = ("allOf", "anyOf", "oneOf")
_IN_PLACE_MAP = ("dependentSchemas", "dependencies")
_REFS = ("$ref", "$dynamicRef", "$recursiveRef")
_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies")
"""Keywords whose values map names to subschemas."""
_NO_SCHEMA = ("enum", "const", "examples", "default", "required")
"""Keywords whose values are data, never subschemas: a walk that looks for ``$id`` and anchors skips them."""


def endless_cycle(schema: Any) -> list[str]:
    """The JSON pointers of a cycle of same-place subschemas that the root enters whatever the data (first repeated
    at the end), or [] if there is none.

    Only cycles the root reaches in place count: a cycle behind ``properties`` is entered only by data that has that
    property (SchemaStore's ``cloudify`` schema has one in a definition few documents reach), and validation reports
    it in one line when the data does (``ENDLESS`` in ``_validate``)."""
    nodes, anchors, roots = _index(schema)
    edges = {path: _edges(node, path, nodes, anchors, roots) for path, node in nodes.items()}
    state: dict[str, int] = {}  # 1: on the current path, 2: finished
    for start in [""] if "" in nodes else []:
        if start in state:
            continue
        path: list[str] = [start]
        pending: list[list[str]] = [list(edges[start])]
        state[start] = 1
        while path:
            if not pending[-1]:
                state[path.pop()] = 2
                pending.pop()
                continue
            nxt = pending[-1].pop()
            if state.get(nxt) == 1:
                return [*path[path.index(nxt):], nxt]
            if nxt not in state:
                state[nxt] = 1
                path.append(nxt)
                pending.append(list(edges[nxt]))
    return []


def _index(schema: Any) -> tuple[dict[str, dict[str, Any]], dict[tuple[str, str], str], dict[str, str]]:
    """Every object subschema by JSON pointer, anchors by (resource, name), and each subschema's resource (the
    pointer of its nearest enclosing ``$id``, "" for the document)."""
    nodes: dict[str, dict[str, Any]] = {}
    anchors: dict[tuple[str, str], str] = {}
    roots: dict[str, str] = {}
    stack: list[tuple[Any, str, str, bool]] = [(schema, "", "", False)]  # (value, pointer, resource, a map?)
    while stack:
        node, path, resource, is_map = stack.pop()
        if isinstance(node, list):
            stack.extend((item, f"{path}/{i}", resource, False) for i, item in enumerate(node))
            continue
        if not isinstance(node, dict):
            continue
        if is_map:  # names to schemas ("properties", "$defs"): the values are the schemas
            stack.extend((value, f"{path}/{_escape(key)}", resource, False) for key, value in node.items())
            continue
        own_id = node.get("$id") if isinstance(node.get("$id"), str) else None
        if own_id is not None and own_id.startswith("#"):  # draft 6/7: a plain-name fragment names an anchor
            anchors[(resource, own_id[1:])] = path
        elif own_id:
            resource = path
        if isinstance(node.get("$anchor"), str):
            anchors[(resource, node["$anchor"])] = path
        nodes[path] = node
        roots[path] = resource
        for key, value in node.items():
            if key not in _NO_SCHEMA and isinstance(value, dict | list):
                stack.append((value, f"{path}/{_escape(key)}", resource, key in _MAPS))
    return nodes, anchors, roots


def _edges(node: dict[str, Any], path: str, nodes: dict[str, Any], anchors: dict[tuple[str, str], str],
           roots: dict[str, str]) -> list[str]:
    out: list[str] = []
    for key in _IN_PLACE_ONE:
        if isinstance(node.get(key), dict):
            out.append(f"{path}/{key}")
    for key in _IN_PLACE_LIST:
        if isinstance(node.get(key), list):
            out += [f"{path}/{key}/{i}" for i, item in enumerate(node[key]) if isinstance(item, dict)]
    for key in _IN_PLACE_MAP:
        if isinstance(node.get(key), dict):
            out += [f"{path}/{key}/{_escape(name)}" for name, value in node[key].items() if isinstance(value, dict)]
    for key in _REFS:
        ref = node.get(key)
        if isinstance(ref, str) and ref.startswith("#"):
            target = _resolve(ref[1:], roots[path], anchors)
            if target is not None and target in nodes:
                out.append(target)
    return [edge for edge in out if edge in nodes]


def _resolve(fragment: str, resource: str, anchors: dict[tuple[str, str], str]) -> str | None:
    """The pointer a fragment names within ``resource``: '' is its root, '/a/b' a JSON pointer below it, 'name' an
    anchor."""
    fragment = unquote(fragment)
    if not fragment or fragment.startswith("/"):
        return resource + fragment
    return anchors.get((resource, fragment))


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")
