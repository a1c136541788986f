"""Typed XML: Corral's one way to write JSON data (a schema or a sample) as XML, and to read it back.

XML has no numbers, booleans, nulls or lists, so each element says what it holds in a ``type`` attribute, as the
``dicttoxml`` convention that ConCodeEval's XML schemas use (its Listing 10)::

    <root type="dict">
      <name type="str">Ada</name>
      <tags type="list">
        <item type="int">1</item>
      </tags>
      <key name="not a name" type="null"/>
    </root>

Types: dict, list, str, int, float, bool, null. A dict key that is not a usable XML name becomes
``<key name="...">``; list elements are ``<item>``. Parsing is safe (defusedxml: no DTDs, no entity expansion)
and bounded (size and depth). A model may leave ``type`` out: such an element is read as a dict (children),
a list (every child is ``<item>``), or a scalar (a JSON number, true, false or null literal, else the text).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any
from xml.etree.ElementTree import Element

from corral.errors import InputError

TYPES = ("dict", "list", "str", "int", "float", "bool", "null")
MAX_XML_CHARS = 1_000_000
MAX_DEPTH = 64
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9._-]*$")
_NUMBER = re.compile(r"^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?$")


class XMLDataError(InputError):
    """The XML text is not typed XML data; the message names the element path and the problem."""


def is_xml_name(key: str) -> bool:
    """Whether ``key`` can be an element name as it is (names starting with "xml" are reserved by XML)."""
    return bool(_NAME.match(key)) and not key.lower().startswith("xml")


def to_xml(value: Any, root: str = "root", declaration: bool = True) -> str:
    """``value`` (JSON data) as typed XML under the element ``root``, children indented by two spaces."""
    lines = ['<?xml version="1.0" ?>'] if declaration else []
    _write(root, value, 0, lines, name_attr=None)
    return "\n".join(lines) + "\n"


def _type_of(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        if not math.isfinite(value):
            raise XMLDataError(f"{value!r} is not a JSON number")
        return "float"
    if isinstance(value, str):
        return "str"
    if isinstance(value, list | tuple):
        return "list"
    if isinstance(value, dict):
        return "dict"
    raise XMLDataError(f"{type(value).__name__} is not JSON data")


_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _escape(text: str, attribute: bool = False) -> str:
    """XML text for ``text``: markup escaped, and carriage returns (and, in attributes, newlines and tabs) as
    character references, which XML parsers would otherwise normalise away."""
    bad = _NOT_XML.search(text)
    if bad:
        raise XMLDataError(f"the character U+{ord(bad.group()):04X} cannot be written in XML 1.0")
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\r", "&#13;")
    if attribute:
        text = text.replace('"', "&quot;").replace("\n", "&#10;").replace("\t", "&#9;")
    return text


def _write(tag: str, value: Any, depth: int, lines: list[str], name_attr: str | None) -> None:
    kind = _type_of(value)
    pad = "  " * depth
    attrs = (f' name="{_escape(name_attr, True)}"' if name_attr is not None else "") + f' type="{kind}"'
    if kind in ("dict", "list"):
        if not value:
            lines.append(f"{pad}<{tag}{attrs}/>")
            return
        lines.append(f"{pad}<{tag}{attrs}>")
        if kind == "dict":
            for key, item in value.items():
                if not isinstance(key, str):
                    raise XMLDataError(f"dict key {key!r} is not a string")
                if is_xml_name(key):
                    _write(key, item, depth + 1, lines, None)
                else:
                    _write("key", item, depth + 1, lines, key)
        else:
            for item in value:
                _write("item", item, depth + 1, lines, None)
        lines.append(f"{pad}</{tag}>")
        return
    if kind == "null":
        lines.append(f"{pad}<{tag}{attrs}/>")
        return
    if kind == "bool":
        text = "true" if value else "false"
    elif kind == "float":
        text = json.dumps(value)
    else:
        text = _escape(str(value))
    lines.append(f"{pad}<{tag}{attrs}>{text}</{tag}>")


def from_xml(text: str) -> Any:
    """The JSON data a typed-XML document holds (its root element's name is not part of the data)."""
    from defusedxml import DefusedXmlException
    from defusedxml.ElementTree import ParseError, fromstring

    if len(text) > MAX_XML_CHARS:
        raise XMLDataError(f"the XML is {len(text):,} characters; the limit is {MAX_XML_CHARS:,}")
    try:
        root = fromstring(text.strip())
    except ParseError as exc:
        line, column = exc.position
        raise XMLDataError(f"not well-formed XML at line {line}, column {column + 1}") from None
    except DefusedXmlException as exc:
        raise XMLDataError(f"refused XML: {exc}") from None
    return _read(root, f"/{root.tag}", 0)


def _read(element: Element, where: str, depth: int) -> Any:
    if depth > MAX_DEPTH:
        raise XMLDataError(f"{where}: nested deeper than {MAX_DEPTH} elements")
    kind = element.get("type")
    children = list(element)
    text = element.text or ""
    if kind is None:
        kind = ("list" if all(child.tag == "item" for child in children) else "dict") if children else None
    if kind is not None and kind not in TYPES:
        raise XMLDataError(f'{where}: unknown type="{kind}"; valid: {", ".join(TYPES)}')
    if kind in ("dict", "list"):
        stray = [t for t in [text, *(child.tail or "" for child in children)] if t.strip()]
        if stray:
            raise XMLDataError(f"{where}: text {stray[0].strip()[:40]!r} between the elements of a {kind}")
        if kind == "list":
            return [_read(child, f"{where}/{i}", depth + 1) for i, child in enumerate(children)]
        data: dict[str, Any] = {}
        for child in children:
            key = child.get("name", child.tag) if child.tag == "key" else child.tag
            if key in data:
                raise XMLDataError(f"{where}: the key {key!r} appears twice")
            data[key] = _read(child, f"{where}/{key}", depth + 1)
        return data
    if children:
        raise XMLDataError(f'{where}: a type="{kind}" element has child elements')
    if kind is None:
        return _infer(text.strip())
    if kind == "str":
        return text
    literal = text.strip()
    if kind == "null":
        if literal:
            raise XMLDataError(f'{where}: a type="null" element holds text {literal[:40]!r}')
        return None
    if kind == "bool":
        if literal not in ("true", "false"):
            raise XMLDataError(f"{where}: a bool is true or false, not {literal[:40]!r}")
        return literal == "true"
    if not _NUMBER.match(literal) or (kind == "int" and not re.fullmatch(r"-?[0-9]+", literal)):
        raise XMLDataError(f"{where}: {literal[:40]!r} is not an {kind}" if kind == "int"
                           else f"{where}: {literal[:40]!r} is not a float")
    number = int(literal) if kind == "int" else float(literal)
    if isinstance(number, float) and not math.isfinite(number):
        raise XMLDataError(f"{where}: {literal[:40]!r} is out of range")
    return number


def _infer(literal: str) -> Any:
    if literal in ("true", "false"):
        return literal == "true"
    if literal == "null":
        return None
    if _NUMBER.match(literal):
        number = json.loads(literal)
        return number if not isinstance(number, float) or math.isfinite(number) else literal
    return literal
