"""Lowering objects: properties in a fixed order, required ones and dependencies, extra properties, counts.

A mixin of ``Lowerer`` (``_lower``): it calls back ``lower``, ``lower_all``, ``expand``, ``combine``,
``valid`` and ``note``. Narrowings: properties keep the schema's order, extra properties are written only where
``additionalProperties`` is a schema (or nothing is listed), a dependency whose trigger is not required drops the
trigger, and min/maxProperties make optional properties required or drop them.
"""

from __future__ import annotations

from typing import Any

from ._enforcement import Unsupported, refuse
from ._model import ANY_DEPTH, Alt, Flat, Node, Obj, Piece, Prop
from ._rx import ecma_checked, pattern_rx, rx_matches
from ._values import escape_pointer, schema_dependencies

_OBJECT_KEYWORDS = ("properties", "required", "additionalProperties", "patternProperties", "propertyNames",
                    "minProperties", "maxProperties", "dependentRequired", "dependentSchemas", "dependencies",
                    "unevaluatedProperties")


class ObjectLowering:
    def dependent_schemas(self, flat: Flat) -> Flat | list[Flat] | None:
        """Bring in the ``dependentSchemas`` whose trigger is required; other triggers are never written."""
        required = {n for d, _ in flat for n in d.get("required", ())}
        for index, (d, path) in enumerate(flat):
            hits = [(n, s) for n, s in schema_dependencies(d).items() if n in required]
            if not hits:
                continue
            rest = dict(d)
            rest["dependentSchemas"] = {n: s for n, s in d.get("dependentSchemas", {}).items() if n not in required}
            rest["dependencies"] = {n: s for n, s in d.get("dependencies", {}).items()
                                    if n not in required or isinstance(s, list)}
            flats: list[Flat] = [(*flat[:index], (rest, path), *flat[index + 1:])]
            for name, sub in hits:
                where = f"{path}/dependentSchemas/{escape_pointer(name)}"
                flats = self.combine(flats, self.expand(sub, where, []), where)
            return flats
        return flat

    def objects(self, flat: Flat, budget: int) -> list[Alt]:
        pieces = [(d, p) for d, p in flat if any(k in d for k in _OBJECT_KEYWORDS)]
        for d, path in pieces:
            for keyword in ("unevaluatedProperties",):
                if keyword in d and d[keyword] is not True and d[keyword] != {}:
                    self.note(path, keyword, "not enforced (it depends on which subschemas evaluated a property)")
        required = [n for d, _ in pieces for n in d.get("required", ())]
        dependent = self._dependent_required(pieces)
        names = list(dict.fromkeys([n for d, _ in pieces for n in d.get("properties", {})] + required
                                   + [n for deps in dependent.values() for n in deps]))
        required_set = set(required)
        dropped = {n for d, _ in pieces for n in schema_dependencies(d) if n not in required_set}
        changed = True
        while changed:  # dependentRequired: a required trigger makes its dependents required
            changed = False
            for trigger, deps in dependent.items():
                if trigger in required_set and not set(deps) <= required_set:
                    required_set |= set(deps)
                    changed = True
        dropped |= {t for t, deps in dependent.items() if t not in required_set and not set(deps) <= required_set}
        props: list[Prop] = []
        for name in names:
            if name in dropped and name not in required_set:
                continue
            child = self._property(pieces, name)
            if not child.alts or not self._name_ok(pieces, name):
                if name in required_set:
                    return []
                continue
            props.append(Prop(name, child, name in required_set))
        extra, reserved = self._extras(pieces, names, props, dependent, dropped, budget)
        return self._counted(pieces, props, extra, reserved, free=not pieces)

    def _dependent_required(self, pieces: list[Piece]) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for d, _ in pieces:
            for trigger, deps in d.get("dependentRequired", {}).items():
                out.setdefault(trigger, []).extend(deps)
            for trigger, deps in d.get("dependencies", {}).items():
                if isinstance(deps, list):
                    out.setdefault(trigger, []).extend(deps)
        return out

    def _property(self, pieces: list[Piece], name: str) -> Node:
        schemas: list[tuple[Any, str]] = []
        for d, path in pieces:
            named = d.get("properties", {})
            hit = name in named
            if hit:
                schemas.append((named[name], f"{path}/properties/{escape_pointer(name)}"))
            for pattern, sub in d.get("patternProperties", {}).items():
                if self._matches(pattern, name, path):
                    schemas.append((sub, f"{path}/patternProperties/{escape_pointer(pattern)}"))
                    hit = True
            if not hit and "additionalProperties" in d:
                schemas.append((d["additionalProperties"], f"{path}/additionalProperties"))
        return self.lower_all(schemas, ANY_DEPTH) if schemas else self.lower(True, "#", ANY_DEPTH)

    def _matches(self, pattern: str, name: str, path: str) -> bool:
        ecma_checked(pattern, path, "patternProperties")
        try:
            inner, outer = pattern_rx(pattern), pattern_rx(pattern, outer=True)
        except Unsupported as exc:
            raise refuse(path, "patternProperties", str(exc)) from None
        found = rx_matches(inner, name)
        if found != rx_matches(outer, name):
            raise refuse(path, "patternProperties", f"whether {name!r} matches {pattern!r} depends on the engine")
        return found

    def _name_ok(self, pieces: list[Piece], name: str) -> bool:
        return all(self.valid(d["propertyNames"], name) for d, _ in pieces if "propertyNames" in d)

    def _extras(self, pieces: list[Piece], names: list[str], props: list[Prop], dependent: dict[str, list[str]],
                dropped: set[str], budget: int) -> tuple[Node | None, frozenset[str]]:
        """The schema of extra properties (None: none are written) and the names they must avoid."""
        reserved = frozenset(names) | frozenset(dependent) | dropped
        if any("patternProperties" in d or "propertyNames" in d for d, _ in pieces):
            return None, reserved  # narrowing: extra names would have to avoid or obey the patterns
        explicit = [(d["additionalProperties"], f"{p}/additionalProperties") for d, p in pieces
                    if "additionalProperties" in d and d["additionalProperties"] is not True]
        if explicit:
            extra = self.lower_all(explicit, ANY_DEPTH)
        elif names or budget <= 0:
            return None, reserved  # narrowing: additionalProperties true writes no extra property
        else:
            extra = self.lower(True, "#", budget - 1)
        return (extra if extra.alts else None), reserved

    def _counted(self, pieces: list[Piece], props: list[Prop], extra: Node | None, reserved: frozenset[str],
                 free: bool) -> list[Alt]:
        """Apply minProperties/maxProperties by narrowing: make optional properties required, or drop them."""
        low = max([d["minProperties"] for d, _ in pieces if "minProperties" in d], default=0)
        high = min([d["maxProperties"] for d, _ in pieces if "maxProperties" in d], default=None)
        count = sum(p.required for p in props)
        out: list[Prop] = []
        for p in props:
            if not p.required and count < low:
                p, count = Prop(p.name, p.node, True), count + 1
            out.append(p)
        if high is not None:
            if count > high:
                return []
            kept, room = [], high - count
            for p in out:
                if p.required or room > 0:
                    kept.append(p)
                    room -= 0 if p.required else 1
            out, extra_max = kept, room
        else:
            extra_max = 52
        extra_min = max(0, low - len(out))
        if extra is None:
            extra_max = 0
        if extra_min > min(extra_max, 52):
            return []
        return [Obj(tuple(out), extra if extra_max else None, extra_min, min(extra_max, 52), reserved, free)]
