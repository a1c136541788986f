"""Reading a model's sample: JSON, YAML or typed XML text, from a fenced block or the whole output, safely.

A sample is untrusted text, so parsing is bounded and never builds anything but JSON data: JSON refuses NaN,
Infinity and duplicate keys; YAML uses the safe loader without aliases (no "billion laughs"), without the
timestamp resolver (``2024-01-01`` stays the string a JSON Schema ``format: date`` expects) and refuses
duplicate keys; XML goes through defusedxml (``corral.schema._xml``). Text, depth and node counts are limited.
Errors are ``SampleError``: one line with the format, and the line and column where the parser gives them.
"""

from __future__ import annotations

import json
import math
import re
import sys
from pathlib import Path
from typing import Any, ClassVar, Literal

import yaml

from corral.errors import InputError

from ._xml import MAX_DEPTH, XMLDataError, from_xml

SampleFormat = Literal["json", "yaml", "xml"]
SAMPLE_FORMATS: tuple[SampleFormat, ...] = ("json", "yaml", "xml")
MAX_SAMPLE_CHARS = 1_000_000
MAX_NODES = 200_000
_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)(?:```|\Z)", re.S)
_TAGS = {"json": {"json", "jsonc", "json5"}, "yaml": {"yaml", "yml"}, "xml": {"xml"}}


class SampleError(InputError):
    """A sample that cannot be read as data of its format; the message is one line (format, where, what)."""

    def __init__(self, format: str, message: str) -> None:
        article = "an" if format == "xml" else "a"
        super().__init__(f"not {article} {format.upper()} sample: {message}")
        self.format = format


def extract_block(text: str, format: SampleFormat) -> str:
    """The sample inside a model's output: the first fenced block tagged with ``format`` (or untagged, or any
    when no tag fits), else the whole output. An unclosed fence (the model ran out of tokens) counts."""
    blocks = [(tag.lower(), body) for tag, body in _FENCE.findall(text)]
    if not blocks:
        return text.strip()
    for wanted in (_TAGS[format], {""}):
        for tag, body in blocks:
            if tag in wanted:
                return body.strip()
    return blocks[0][1].strip()


def read_data_file(path: Path | str) -> Any:
    """The data of a config file a user wrote (YAML for ``.yaml``/``.yml``, else JSON): a regular UTF-8 file of at
    most 64 MiB (a FIFO or a device is refused, not read), read by the safe readers below (YAML without aliases,
    nesting bounded, no duplicate keys, no nan); an ``InputError`` of one line naming the file otherwise. Training
    configs and evaluation specs are read by it."""
    from corral.files import MAX_DOCUMENT_BYTES, read_input_text

    path = Path(path)
    try:
        text = read_input_text(path, MAX_DOCUMENT_BYTES)
    except InputError as exc:
        raise InputError(f"cannot read {exc}") from None
    form: SampleFormat = "yaml" if path.suffix in (".yaml", ".yml") else "json"
    try:
        return parse_sample(text, form, extract=False)
    except SampleError as exc:
        raise InputError(f"{path}: not valid {form.upper()}: {str(exc).split(': ', 1)[-1]}") from None


def parse_sample(text: str, format: SampleFormat, extract: bool = True) -> Any:
    """The JSON data in ``text`` written as ``format``; with ``extract``, from its fenced block if it has one."""
    if format not in SAMPLE_FORMATS:
        raise ValueError(f"unknown sample format {format!r}; valid: {', '.join(SAMPLE_FORMATS)}")
    if len(text) > MAX_SAMPLE_CHARS:
        raise SampleError(format, f"{len(text):,} characters; the limit is {MAX_SAMPLE_CHARS:,}")
    body = extract_block(text, format) if extract else text
    if not body.strip():
        raise SampleError(format, "the text is empty")
    try:
        if format == "json":
            value = json_load(body)
        elif format == "yaml":
            value = yaml_load(body)
        else:
            try:
                value = from_xml(body)
            except XMLDataError as exc:
                raise SampleError("xml", str(exc)) from None
    except ValueError as exc:  # Python refuses to read an integer longer than its digit limit
        if isinstance(exc, SampleError) or "integer string conversion" not in str(exc):
            raise
        raise SampleError(format, f"a number has more than {sys.get_int_max_str_digits():,} digits") from None
    _check_size(value, format)
    return value


def json_load(text: str) -> Any:
    """Strict JSON: no NaN/Infinity, no duplicate keys, bounded depth."""

    def refuse_constant(name: str) -> Any:
        raise SampleError("json", f"{name} is not JSON")

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        data: dict[str, Any] = {}
        for key, value in items:
            if key in data:
                raise SampleError("json", f"the key {key!r} appears twice in one object")
            data[key] = value
        return data

    def finite(literal: str) -> float:
        value = float(literal)
        if not math.isfinite(value):
            raise SampleError("json", f"{literal[:20]} is beyond a float's range")
        return value

    try:
        return json.loads(text, parse_constant=refuse_constant, parse_float=finite, object_pairs_hook=pairs)
    except json.JSONDecodeError as exc:
        raise SampleError("json", f"line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise SampleError("json", f"nested deeper than {MAX_DEPTH} levels") from None


class _SafeLoader(yaml.SafeLoader):
    """PyYAML's safe loader minus timestamps and aliases, with duplicate keys refused and depth bounded."""

    yaml_implicit_resolvers: ClassVar[dict[Any, Any]] = {
        first: [(tag, pattern) for tag, pattern in resolvers if tag != "tag:yaml.org,2002:timestamp"]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            mark = self.peek_event().start_mark
            raise _Refused(f"line {mark.line + 1}, column {mark.column + 1}: aliases (*name) are not allowed")
        self._depth += 1
        if self._depth > MAX_DEPTH:
            mark = self.peek_event().start_mark
            raise _Refused(f"line {mark.line + 1}, column {mark.column + 1}: nested deeper than {MAX_DEPTH} levels")
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            if isinstance(key, list | dict):
                raise _Refused(f"line {key_node.start_mark.line + 1}: a mapping key must be a scalar")
            if key in seen:
                mark = key_node.start_mark
                raise _Refused(f"line {mark.line + 1}, column {mark.column + 1}: the key {key!r} appears twice")
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


class _Refused(Exception):
    pass


def yaml_load(text: str) -> Any:
    """One YAML document as JSON data (mapping keys become strings as ``json.dumps`` would write them)."""
    try:
        documents = list(yaml.load_all(text, Loader=_SafeLoader))
    except _Refused as exc:
        raise SampleError("yaml", str(exc)) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        raise SampleError("yaml", f"{where}{exc.problem or exc.context}") from None
    except yaml.YAMLError as exc:
        raise SampleError("yaml", str(exc).splitlines()[0]) from None
    if len(documents) != 1:
        raise SampleError("yaml", f"{len(documents)} documents; a sample is one")
    return _as_json_data(documents[0], "")


def _as_json_data(value: Any, where: str) -> Any:
    if isinstance(value, dict):
        return {_json_key(key, where): _as_json_data(item, f"{where}/{key}") for key, item in value.items()}
    if isinstance(value, list):
        return [_as_json_data(item, f"{where}/{i}") for i, item in enumerate(value)]
    if isinstance(value, float) and not math.isfinite(value):
        raise SampleError("yaml", f"{where or '/'}: {value} is not a JSON number")
    if value is None or isinstance(value, str | int | float):
        return value
    raise SampleError("yaml", f"{where or '/'}: a {type(value).__name__} is not JSON data")


def _json_key(key: Any, where: str) -> str:
    if isinstance(key, str):
        return key
    if key is None or isinstance(key, bool | int | float):
        return json.dumps(key)
    raise SampleError("yaml", f"{where or '/'}: a {type(key).__name__} key is not JSON data")


def _check_size(value: Any, format: str) -> None:
    """Bound the node count and depth (a small text can still hold a very wide or deep value)."""
    stack, nodes = [(value, 0)], 0
    while stack:
        item, depth = stack.pop()
        nodes += 1
        if nodes > MAX_NODES:
            raise SampleError(format, f"more than {MAX_NODES:,} values")
        if depth > MAX_DEPTH:
            raise SampleError(format, f"nested deeper than {MAX_DEPTH} levels")
        if isinstance(item, dict):
            stack.extend((child, depth + 1) for child in item.values())
        elif isinstance(item, list):
            stack.extend((child, depth + 1) for child in item)
