"""The XML writer of schema grammars: typed elements, as ``corral.schema``'s XML sample parser reads them.

``<root type="dict">…</root>``: each value is one element whose ``type`` is dict, list, str, int, float, bool or
null. A dict has one child per key, named by the key when it is an XML name (not starting with "xml"), else
``<key name="…">``; a list has ``<item>`` children. Text escapes ``&``, ``<``, ``>`` (and a carriage return, which
XML would otherwise turn into a newline); characters XML 1.0 cannot hold are never written. Between elements at
most one newline and 40 spaces or tabs; an optional ``<?xml …?>`` line; an optional final newline.
"""

from __future__ import annotations

import re

from ._emit import FENCE, KEY_CHARS, Emitter, Group
from ._enforcement import refuse
from ._lark import Encoding, lark_string, literal_regex, term
from ._model import Arr, Const, Float, Int, Node, Obj, Str
from ._rx import complement, ranges_of, rx_matches, union

_XML_CHARS = union(ranges_of([9, 10, 13]), ((0x20, 0x7E), (0xA0, 0xD7FF), (0xE000, 0xFFFD), (0x10000, 0x10FFFF)))
"""XML 1.0 characters (C1 controls left out too: legal, but nothing a value should hold)."""

XML_TEXT = Encoding(
    universe=_XML_CHARS,
    raw=complement(ranges_of(map(ord, "&<>\r")), _XML_CHARS),
    named=((13, ("&#13;",)), (ord("&"), ("&amp;",)), (ord("<"), ("&lt;",)), (ord(">"), ("&gt;",))),
)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9._-]*")
_IDENTIFIER = re.compile(r"[A-Za-z0-9_]+")
_DECLARATIONS = ('<?xml version="1.0" ?>', '<?xml version="1.0"?>', '<?xml version="1.0" encoding="UTF-8"?>')
_WS = "\\n[ \\t]{0,40}|[ \\t]{1,40}"


def is_xml_name(key: str) -> bool:
    """Whether ``key`` can be an element name as it is (the sample parser's rule)."""
    return bool(_NAME.fullmatch(key)) and not key.lower().startswith("xml")


def attribute(text: str) -> str | None:
    """``text`` as a double-quoted attribute value's content (None if XML cannot hold it)."""
    if FENCE in text:
        return None
    out = []
    for c in text:
        if not any(a <= ord(c) <= b for a, b in _XML_CHARS):
            return None
        out.append({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "\t": "&#9;", "\n": "&#10;",
                    "\r": "&#13;"}.get(c, c))
    return "".join(out)


def xml_lark(root: Node) -> str:
    """The Lark grammar of typed-XML documents holding a value of ``root``."""
    emitter = _XmlEmitter()
    element = emitter.element(root, lark_string("<root"), "root")
    if element is None:
        raise refuse("#", "type", "no value of the schema can be written as XML")
    declaration = emitter.b.rule(lark_string(d + "\n") for d in _DECLARATIONS)
    return emitter.b.source(f'{declaration}? {element} "\\n"?')


class _XmlEmitter(Emitter):
    encoding = XML_TEXT
    xml = True

    def __init__(self) -> None:
        super().__init__()
        self.ws = self.b.terminal(term(_WS))

    def element(self, n: Node, opening: str, close: str) -> str | None:
        """An element holding a value of ``n``: ``opening`` (symbols up to the tag name) then the rest."""
        rest = self.rest(n, close)
        return None if rest is None else self.b.rule([f"{opening} {rest}"])

    def rest(self, n: Node, close: str) -> str | None:
        return self.cached(("rest", n, close), lambda: self._rest(n, close))

    def _rest(self, n: Node, close: str) -> str | None:
        """After the tag name: `` type="…">content</close>`` (or a self-closing form) for each alternative."""
        end = f"</{close}>"
        options: list[str] = []
        for alt in n.alts:
            if isinstance(alt, Const):
                options += self._const(alt.value, end)
            elif isinstance(alt, Str):
                options += self._string(alt, end)
            elif isinstance(alt, Int):
                options += self._typed("int", self.int_symbol(alt), end)
            elif isinstance(alt, Float):
                options += self._typed("float", self.float_symbol(alt), end)
            elif isinstance(alt, Obj):
                options += self._container("dict", self.children(alt), alt.can_be_empty, end)
            elif isinstance(alt, Arr):
                options += self._container("list", self.list_items(alt), alt.min == 0, end)
        return self.b.rule(options) if options else None

    def _const(self, value, end: str) -> list[str]:
        """A constant: the same opening lexeme as a free value of its type, then its text (a longer literal
        would make llguidance's greedy lexer refuse the free values that start like it)."""
        if value is None:
            return [lark_string(' type="null"/>'), f"{_opening('null')} {lark_string(end)}"]
        if isinstance(value, bool):
            return self._typed("bool", lark_string("true" if value else "false"), end)
        if isinstance(value, int):
            return self._typed("int", lark_string(str(value)), end)
        if isinstance(value, float):
            return self._typed("float", lark_string(repr(value)), end)
        text = XML_TEXT.literal(value)
        if text is None or FENCE in text:
            return []
        if not text:
            return [f"{_opening('str')} {lark_string(end)}", lark_string(' type="str"/>')]
        return self._typed("str", lark_string(text), end)

    def _typed(self, kind: str, symbol: str | None, end: str) -> list[str]:
        return [] if symbol is None else [f"{_opening(kind)} {symbol} {lark_string(end)}"]

    def _string(self, alt: Str, end: str) -> list[str]:
        options = self._typed("str", self.string_terminal(alt, "", nonempty=True), end)
        if _empty_ok(alt):
            options += [f"{_opening('str')} {lark_string(end)}", lark_string(' type="str"/>')]
        return options

    def _container(self, kind: str, content: str | None, empty: bool, end: str) -> list[str]:
        options = []
        if content is not None:
            body = f"{content} {self.ws}?" if content != '""' else f"{self.ws}?"
            options.append(f"{_opening(kind)} {body} {lark_string(end)}")
        if empty:
            options.append(lark_string(f' type="{kind}"/>'))
        return options

    # ------------------------------------------------------------------------------------ children
    def children(self, obj: Obj) -> str | None:
        """The child elements of a dict (possibly none), each after optional whitespace."""
        groups: list[Group] = []
        for prop in obj.props:
            if is_xml_name(prop.name) and prop.name != "key":  # "<key" would be a prefix of '<key name="'
                opening, close = lark_string(f"<{prop.name}"), prop.name
            else:
                name = attribute(prop.name)
                opening, close = (lark_string(f'<key name="{name}"'), "key") if name is not None else ("", "")
            element = self.element(prop.node, opening, close) if close else None
            if element is None:
                if prop.required:
                    return None
                continue
            sym = self.b.rule([f"{self.ws}? {element}"])
            groups.append(Group(sym, sym, 1 if prop.required else 0, 1))
        rest = self.rest(obj.extra, "key") if obj.extra is not None and obj.extra_max > 0 else None

        def end(first: bool) -> str | None:
            if rest is None:
                return '""' if obj.extra_min == 0 else None
            return self.extras(obj, False, lambda letter, _: self._extra(obj, letter, rest))

        return self.chain(groups, False, end)

    def _extra(self, obj: Obj, letter: str, rest: str) -> str:
        """``<key name="…"`` for an extra property whose name starts with ``letter``, then its value."""
        taken = sorted(literal_regex(n) for n in obj.reserved if n.startswith(letter) and _IDENTIFIER.fullmatch(n))
        opening = literal_regex('<key name="')
        expression = term(f'{opening}{letter}[A-Za-z0-9_]{{0,{KEY_CHARS}}}"')
        if taken:
            expression += " & ~" + term(f'{opening}(?:{"|".join(taken)})"')
        return f"{self.ws}? {self.b.terminal(expression)} {rest}"

    def list_items(self, arr: Arr) -> str | None:
        def item(n: Node, first: bool) -> str | None:
            element = self.element(n, lark_string("<item"), "item")
            return None if element is None else self.b.rule([f"{self.ws}? {element}"])

        return self.items(arr, item, False)


def _opening(kind: str) -> str:
    """The lexeme `` type="kind">`` (shared by every value of that type, constants included)."""
    return lark_string(f' type="{kind}">')


def _empty_ok(alt: Str) -> bool:
    """Whether the empty string is one of ``alt``'s strings."""
    def holds(s: Str) -> bool:
        return s.min_len == 0 and all(rx_matches(rx, "") for rx in s.include)

    return holds(alt) and not any(holds(ex) for ex in alt.exclude)
