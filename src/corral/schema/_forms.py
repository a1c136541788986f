"""One JSON Schema, five ways to show it to a model (ConCodeEval's representations): JSON, YAML, typed XML,
Python pydantic and English.

The three data forms are lossless: ``parse_schema(render_schema(s, f), f) == s`` exactly, value types included
(``5`` stays an int, ``5.0`` a float, ``"2024-01-01"`` and ``"yes"`` stay strings), so a benchmark can trust that
every form carries the same constraints. Key order is kept in every form, so a constraint sits at a comparable
position in each text (ConCodeEval found models sensitive to where a constraint appears). The pydantic and
English forms are renderings for readers: ``corral.schema._pydantic`` checks the former against the schema, the
latter names every constraint's exact value.
"""

from __future__ import annotations

import json
from typing import Any, Literal

import yaml

from ._english import describe
from ._parse import json_load, yaml_load
from ._pydantic import to_pydantic
from ._xml import from_xml, to_xml

SchemaForm = Literal["json", "yaml", "xml", "python", "english"]
DataForm = Literal["json", "yaml", "xml"]
FORMS: tuple[SchemaForm, ...] = ("json", "yaml", "xml", "python", "english")
DATA_FORMS: tuple[DataForm, ...] = ("json", "yaml", "xml")
SCHEMA_XML_ROOT = "all"  # ConCodeEval's Listing 10 (dicttoxml's default root)
SAMPLE_XML_ROOT = "root"


class _Dumper(yaml.SafeDumper):
    """The safe dumper without anchors: a schema that reuses one dict object twice must not come out with
    ``&id001``/``*id001`` (Corral's loader refuses aliases, and a model should see the text spelled out)."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


_YAML_BREAKS = ("\x85", "\u2028", "\u2029")


def _represent_str(dumper: yaml.SafeDumper, data: str) -> yaml.ScalarNode:
    """Strings holding a character YAML counts as a line break (NEL, U+2028, U+2029) are double-quoted, where the
    emitter escapes them; plain or single-quoted, PyYAML writes them raw and they read back folded to a space.
    So are strings with Unicode space at either end (U+00A0, U+2003...): YAML keeps them in a plain scalar, but a
    reader that strips the text (``str.strip`` knows them) would lose them from a lone root scalar."""
    style = '"' if any(ch in data for ch in _YAML_BREAKS) or data != data.strip() else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


_Dumper.add_representer(str, _represent_str)


def render_schema(schema: dict[str, Any] | bool, form: SchemaForm) -> str:
    """``schema`` written in ``form``; the JSON, YAML and XML texts read back exactly with ``parse_schema``."""
    if form == "python":
        return to_pydantic(schema)
    if form == "english":
        return describe(schema)
    if form == "xml":
        return _schema_xml(schema)
    return _render_data(schema, form, SCHEMA_XML_ROOT)


def _schema_xml(schema: dict[str, Any]) -> str:
    """Typed XML under ``<all>``, as Listing 10: the root element has no ``type`` attribute where reading it back
    needs none (children that are not all ``<item>`` can only be a dict; an empty schema keeps ``type="dict"``)."""
    text = to_xml(schema, SCHEMA_XML_ROOT)
    typed = f'<{SCHEMA_XML_ROOT} type="dict">'
    if isinstance(schema, dict) and any(key != "item" for key in schema) and typed in text:
        text = text.replace(typed, f"<{SCHEMA_XML_ROOT}>", 1)
    return text


MAX_SCHEMA_CHARS = 5_000_000
"""The longest schema text ``parse_schema`` reads (the largest SchemaStore schema in the shared sample is 2.1 MB)."""


def parse_schema(text: str, form: DataForm) -> dict[str, Any] | bool:
    """The schema a JSON, YAML or typed-XML text holds (the inverse of ``render_schema`` for those forms): an object,
    or one of the boolean schemas ``true`` (every value is valid) and ``false`` (none is), JSON Schemas since draft 6.

    The pydantic and English forms are one-way: there is no parser for them. A text longer than
    ``MAX_SCHEMA_CHARS`` is refused unread (a schema is untrusted input: validating against a 10 MB one took 42 s)."""
    if len(text) > MAX_SCHEMA_CHARS:
        raise ValueError(f"the schema is {len(text):,} characters; the limit is {MAX_SCHEMA_CHARS:,}")
    value = _parse_data(text, form)
    if not isinstance(value, dict | bool):
        raise ValueError(f"the {form.upper()} text holds a {type(value).__name__}, not a schema (an object, or true "
                         f"or false)")
    return value


def render_sample(value: Any, form: DataForm) -> str:
    """A sample (any JSON data) as JSON, YAML or typed XML text, as a validation prompt shows it; the texts read
    back exactly with ``corral.schema._parse.parse_sample``."""
    return _render_data(value, form, SAMPLE_XML_ROOT)


def _render_data(value: Any, form: str, xml_root: str) -> str:
    if form == "json":
        return json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False)
    if form == "yaml":
        return _yaml_dump(value)
    if form == "xml":
        return to_xml(value, xml_root)
    raise ValueError(f"unknown form {form!r}; valid: {', '.join(FORMS)}")


def _parse_data(text: str, form: str) -> Any:
    if form == "json":
        return json_load(text)
    if form == "yaml":
        return yaml_load(text)
    if form == "xml":
        return from_xml(text)
    raise ValueError(f"cannot parse the {form!r} form; parseable: {', '.join(DATA_FORMS)}")


def _yaml_dump(value: Any) -> str:
    """Block style in the data's own key order, unicode as itself, and no line folding (a long pattern or
    description folded over lines is hard to read and easy to misquote)."""
    text = yaml.dump(value, Dumper=_Dumper, sort_keys=False, allow_unicode=True, default_flow_style=False,
                     width=float("inf"))
    # a lone scalar comes out with an explicit document end ("5\n...\n"); drop it where that reads back the same
    if text.endswith("\n...\n") and yaml_load(text[:-4]) == value:
        text = text[:-4]
    return text
