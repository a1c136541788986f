"""The YAML writer of schema grammars: block style, as ``corral.schema``'s YAML sample parser reads it.

Layout (every byte fixed by the grammar, so a model can never pad): ``key: value`` lines, nested blocks indented
two more spaces on the following lines, ``- item`` for sequence items (a mapping's first key on the ``- `` line,
``- - x`` for a nested sequence), ``{}`` and ``[]`` for empty containers, one document, an optional final newline.
Scalars: strings always double-quoted with JSON escapes (characters PyYAML would refuse or fold, such as control
characters, U+0085 and U+2028, only as escapes), integers ``-?(0|[1-9][0-9]*)``, floats with a dot and a signed
exponent (PyYAML's YAML 1.1 resolver reads ``1e5`` as a string), ``true``, ``false``, ``null``. Keys are plain
when an identifier that is no YAML 1.1 boolean or null word, double-quoted otherwise (both when plain is safe).
"""

from __future__ import annotations

import re
from itertools import product

from ._emit import FENCE, KEY_CHARS, Emitter, Group
from ._enforcement import refuse
from ._lark import Encoding, lark_string, literal_regex, term
from ._model import Arr, Const, Float, Int, Node, Obj, Str
from ._rx import UNIVERSE, complement, ranges_of

_NAMED = {ord('"'): ('\\"',), ord("\\"): ("\\\\",), ord("/"): ("\\/",), 8: ("\\b",), 12: ("\\f",), 10: ("\\n",),
          13: ("\\r",), 9: ("\\t",)}
_SPECIAL = ranges_of([*range(0x20), *range(0x7F, 0xA0), 0x2028, 0x2029, 0xFEFF, 0xFFFE, 0xFFFF])
"""Characters written only as escapes: PyYAML refuses them raw (non-printable) or folds them (line breaks)."""

YAML_STRINGS = Encoding(
    universe=UNIVERSE,
    raw=complement(ranges_of([*(c for a, b in _SPECIAL for c in range(a, b + 1)), ord('"'), ord("\\")])),
    named=tuple(sorted(_NAMED.items())),
    hex=_SPECIAL,
)
_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_RESERVED = {"y", "n", "yes", "no", "on", "off", "true", "false", "null"}
"""YAML 1.1 words a plain key must not be (case-insensitive; PyYAML reads some as booleans or null)."""
_RESERVED_FORMS = {"".join(chars) for w in _RESERVED for chars in product(*((c.lower(), c.upper()) for c in w))}


def plain_key_ok(name: str) -> bool:
    return bool(_PLAIN_KEY.fullmatch(name)) and name.lower() not in _RESERVED


def yaml_lark(root: Node) -> str:
    """The Lark grammar of YAML documents holding a value of ``root``."""
    emitter = _YamlEmitter()
    start = emitter.top(root)
    if start is None:
        raise refuse("#", "type", "no value of the schema can be written as YAML")
    return emitter.b.source(f'{start} "\\n"?')


def _pad(indent: int) -> str:
    return "\n" + " " * indent


class _YamlEmitter(Emitter):
    encoding = YAML_STRINGS

    # ----------------------------------------------------------------------------------- positions
    def top(self, n: Node) -> str | None:
        return self.value(n, 0, "top")

    def value(self, n: Node, indent: int, where: str) -> str | None:
        """A value of ``n`` after ``key:`` (``where="key"``), after ``- `` or at the top; ``indent``: the
        column of that key or dash (nested blocks go two further)."""
        return self.cached(("value", n, indent, where), lambda: self._value(n, indent, where))

    def _value(self, n: Node, indent: int, where: str) -> str | None:
        space = " " if where == "key" else ""
        inner = indent + 2 if where != "top" else 0
        lead = _pad(inner) if where == "key" else ""
        options: list[str] = []
        for alt in n.alts:
            if isinstance(alt, Obj):
                if alt.can_be_empty:
                    options.append(lark_string(space + "{}"))
                found = self.mapping(alt, inner, lead)
            elif isinstance(alt, Arr):
                if alt.min == 0:
                    options.append(lark_string(space + "[]"))
                found = self.sequence(alt, inner, lead)
            else:
                scalar = self.scalar(alt)
                found = None if scalar is None else (f'" " {scalar}' if space else scalar)
            if found is not None:
                options.append(found)
        return self.b.rule(options) if options else None

    # --------------------------------------------------------------------------------------- scalars
    def scalar(self, alt) -> str | None:
        return self.cached(("scalar", alt), lambda: self._scalar(alt))

    def _scalar(self, alt) -> str | None:
        if isinstance(alt, Const):
            text = const_text(alt.value)
            return None if text is None else lark_string(text)
        if isinstance(alt, Str):
            return self.string_terminal(alt, '"', nonempty=False)
        if isinstance(alt, Int):
            return self.int_symbol(alt)
        if isinstance(alt, Float):
            return self.float_symbol(alt)
        raise TypeError(f"not a scalar: {alt!r}")

    # ------------------------------------------------------------------------------------- mappings
    def mapping(self, obj: Obj, indent: int, lead: str) -> str | None:
        """The non-empty block mapping of ``obj`` at column ``indent``; its first line starts with ``lead``."""
        return self.cached(("map", obj, indent, lead), lambda: self._mapping(obj, indent, lead))

    def _mapping(self, obj: Obj, indent: int, lead: str) -> str | None:
        sep = _pad(indent)
        groups: list[Group] = []
        for prop in obj.props:
            val = self.value(prop.node, indent, "key")
            if val is None:
                if prop.required:
                    return None
                continue
            if FENCE in prop.name:
                if prop.required:
                    return None
                continue
            forms = [f'"{YAML_STRINGS.literal(prop.name)}"'] + ([prop.name] if plain_key_ok(prop.name) else [])
            lead_sym = self.b.rule(f"{lark_string(lead + key + ':')} {val}" for key in forms)
            sep_sym = self.b.rule(f"{lark_string(sep + key + ':')} {val}" for key in forms)
            groups.append(Group(lead_sym, sep_sym, 1 if prop.required else 0, 1))
        extra = self.value(obj.extra, indent, "key") if obj.extra is not None and obj.extra_max > 0 else None

        def end(first: bool) -> str | None:
            if extra is None:
                return None if first or obj.extra_min > 0 else '""'
            return self.extras(obj, first, lambda letter, f: self._extra_entry(obj, letter, lead if f else sep, extra))

        return self.chain(groups, True, end)

    def _extra_entry(self, obj: Obj, letter: str, before: str, val: str) -> str:
        """One extra ``name: value`` line, its name starting with ``letter`` (never a declared or YAML word)."""
        names = {n for n in obj.reserved if n.startswith(letter) and _PLAIN_KEY.fullmatch(n)}
        names |= {w for w in _RESERVED_FORMS if w.startswith(letter)}
        expression = term(literal_regex(before) + letter + f"[A-Za-z0-9_]{{0,{KEY_CHARS}}}:")
        if names:
            taken = "|".join(sorted(map(literal_regex, names)))
            expression += " & ~" + term(f"{literal_regex(before)}(?:{taken}):")
        return f"{self.b.terminal(expression)} {val}"

    # ------------------------------------------------------------------------------------ sequences
    def sequence(self, arr: Arr, indent: int, lead: str) -> str | None:
        """The non-empty block sequence of ``arr`` at column ``indent``; its first line starts with ``lead``."""
        return self.cached(("seq", arr, indent, lead), lambda: self._sequence(arr, indent, lead))

    def _sequence(self, arr: Arr, indent: int, lead: str) -> str | None:
        sep = _pad(indent)

        def item(n: Node, first: bool) -> str | None:
            val = self.value(n, indent, "dash")
            return None if val is None else self.b.rule([f"{lark_string((lead if first else sep) + '- ')} {val}"])

        return self.items(arr, item, True)


def const_text(value) -> str | None:
    """A constant scalar as YAML text."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return yaml_float_text(value)
    encoded = YAML_STRINGS.literal(value)
    return None if encoded is None or FENCE in encoded else f'"{encoded}"'


def yaml_float_text(value: float) -> str:
    """A float as PyYAML's YAML 1.1 resolver reads a float: a dot, and a signed exponent if any."""
    text = repr(float(value))
    if "e" in text:
        mantissa, exponent = text.split("e")
        mantissa += "" if "." in mantissa else ".0"
        return f"{mantissa}e{exponent if exponent[0] in '+-' else '+' + exponent}"
    return text if "." in text else text + ".0"
