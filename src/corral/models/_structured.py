"""Structured outputs per server kind: which request fields carry a Corral grammar to each OpenAI-compatible server,
what each server enforces exactly, and what it leaves to the checker.

Servers differ in what they take (``SERVER_KINDS``): vLLM (>= 0.12) ``structured_outputs`` {json, regex, choice,
grammar}; before 0.12 the ``guided_*`` fields; SGLang ``response_format`` json_schema plus ``regex`` and ``ebnf``
(GBNF, its xgrammar backend's format); llama.cpp's servers (llama-server and llama-cpp-python's) a JSON Schema in
``response_format`` and a GBNF ``grammar``; OpenAI-style APIs only ``response_format`` json_schema with
``strict``, for a subset of JSON Schema. ``route_grammar(grammar, kind)`` decides, before anything is sent, how
one grammar travels (``GrammarRoute``): enforced as a JSON Schema, a regex, a choice, a Lark grammar or an exact GBNF
conversion (``corral.grammars.to_gbnf``), or *checker-only* with the reason, in which case the sample decodes
freely and the record says why. Nothing is sent that the server would refuse or enforce as a different language.

``CAPABILITIES`` is the matrix as data (docs/serving.md prints it); ``plan_summary`` is the line a run prints.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Literal

from ._protocol import ModelError

if TYPE_CHECKING:
    from corral.grammars import Grammar

ServerKind = Literal["openai", "vllm", "vllm-legacy", "sglang", "llamacpp"]

SERVER_KINDS: dict[str, str] = {
    "openai": "response_format {type: json_schema, json_schema: {name, schema, strict: true}}: OpenAI's strict subset "
    "of JSON Schema only",
    "vllm": "extra_body structured_outputs {json | regex | choice | grammar} (vLLM >= 0.12; a Lark grammar needs the "
    "server's guidance backend)",
    "vllm-legacy": "extra_body guided_json / guided_regex / guided_choice / guided_grammar (vLLM before 0.12)",
    "sglang": "response_format json_schema; extra_body regex, or ebnf (GBNF, converted exactly where the grammar "
    "allows)",
    "llamacpp": "response_format {type: json_object, schema} (llama-server and llama-cpp-python's server); a GBNF "
    "grammar body field, converted exactly from regex and one-lexeme Lark grammars",
}
"""The server kinds and what each is sent."""

OWNED_BY: dict[str, ServerKind] = {"vllm": "vllm", "sglang": "sglang", "llamacpp": "llamacpp", "me": "llamacpp"}
"""``auto`` reads the server's kind from ``GET /v1/models`` ``owned_by``: vLLM says "vllm", SGLang "sglang",
llama-server "llamacpp", llama-cpp-python's server "me". Anything else is taken for an OpenAI-style API."""

ALIASES: dict[str, ServerKind] = {"json_schema": "openai"}
"""Earlier names of a kind, still accepted (``grammar_mode='json_schema'`` was the OpenAI way)."""

# ------------------------------------------------------------------------------------------- JSON Schema keywords
KEYWORD_FAMILIES: dict[str, tuple[str, ...]] = {
    "types and values": ("type", "enum", "const"),
    "objects": ("properties", "required", "additionalProperties"),
    "object counts and names": ("minProperties", "maxProperties", "patternProperties", "propertyNames",
                                "unevaluatedProperties", "dependentRequired", "dependentSchemas"),
    "arrays": ("items", "minItems", "maxItems"),
    "array contents": ("prefixItems", "uniqueItems", "contains", "minContains", "maxContains", "unevaluatedItems"),
    "strings": ("minLength", "maxLength"),
    "string patterns and formats": ("pattern", "format"),
    "numbers": ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"),
    "composition": ("anyOf", "oneOf", "allOf", "$ref", "$defs", "definitions"),
    "negation and conditionals": ("not", "if", "then", "else"),
}
"""The JSON-Schema keywords Corral's schemas use, grouped as the matrix reports them."""

_ANNOTATIONS = frozenset({"title", "description", "$comment", "$schema", "$id", "default", "examples", "x-guidance",
                          "deprecated", "readOnly", "writeOnly", "contentMediaType", "contentEncoding"})

LLAMACPP_CHECKER_ONLY = frozenset({
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",  # llama-cpp-python's converter: none
    "uniqueItems", "contains", "minContains", "maxContains", "prefixItems", "unevaluatedItems",
    "patternProperties", "propertyNames", "minProperties", "maxProperties", "unevaluatedProperties",
    "dependentRequired", "dependentSchemas", "not", "if", "then", "else", "format",
})
"""Keywords llama.cpp's JSON-Schema-to-GBNF converters skip silently (its grammars/README.md lists them; numeric
bounds only for integers in llama-server and not at all in llama-cpp-python's port; formats beyond date, time and
uuid; ``prefixItems`` is "broken"): a schema holding them is still sent, and these keywords are checked after."""

LLAMACPP_REFUSED = {
    "pattern": "llama.cpp's converter takes only patterns anchored ^...$ in its own regex subset (others fail on the "
    "server)",
    "oneOf": "llama.cpp's converter reads oneOf as anyOf and drops properties next to it",
    "allOf": "llama.cpp's converter merges allOf only for object properties",
}
"""Keywords whose presence would make llama.cpp's converter fail or enforce another language: such a schema is not
sent (checker-only, with this reason)."""

OPENAI_STRICT = frozenset({
    "type", "enum", "const", "properties", "required", "additionalProperties", "items", "minItems", "maxItems",
    "pattern", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "anyOf",
    "$ref", "$defs", "definitions", "title", "description", "$comment",
})
"""The keywords OpenAI's strict mode takes (its Structured Outputs guide, "Supported schemas"); besides, every object
must say ``additionalProperties: false`` and list all its properties as required, and the root must be an object."""

OPENAI_FORMATS = frozenset({"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"})

CAPABILITIES: dict[str, dict[str, str]] = {
    "openai": {"json_schema": "enforced when inside the strict subset (OPENAI_STRICT); otherwise checker-only",
               "regex": "checker-only: no regex field", "lark": "checker-only: no grammar field"},
    "vllm": {"json_schema": "enforced (structured_outputs.json); keywords the backend cannot enforce are checked after",
             "regex": "enforced (structured_outputs.regex)",
             "lark": "enforced (structured_outputs.grammar, llguidance Lark: needs the guidance backend); a choice "
             "of literals goes as structured_outputs.choice"},
    "vllm-legacy": {"json_schema": "enforced (guided_json)", "regex": "enforced (guided_regex)",
                    "lark": "enforced (guided_grammar; guidance backend); a choice of literals as guided_choice"},
    "sglang": {"json_schema": "enforced (response_format json_schema)", "regex": "enforced (regex)",
               "lark": "converted to GBNF (ebnf) where exact: one lexeme, within the budget; otherwise checker-only"},
    "llamacpp": {"json_schema": "enforced (response_format schema); LLAMACPP_CHECKER_ONLY keywords checked after; "
                 "LLAMACPP_REFUSED ones make the schema checker-only",
                 "regex": "converted to GBNF (grammar) where exact, otherwise checker-only",
                 "lark": "converted to GBNF (grammar) where exact: one lexeme, within the budget; otherwise "
                 "checker-only"},
}
"""What each server kind does with each grammar format: the capability matrix."""


@dataclass(frozen=True)
class GrammarRoute:
    """How one grammar travels to one kind of server.

    ``enforced``: the server constrains decoding (``via`` says as what: "JSON Schema", "GBNF", "regex", "Lark",
    "choice"); ``unenforced`` lists JSON-Schema keywords it leaves to the checker. Not enforced: the grammar is
    *checker-only* and ``reason`` says why in one line; the sample decodes freely. ``fields``: the request fields
    (``response_format`` goes at the top level, the rest in the body)."""

    server: str
    enforced: bool
    via: str = ""
    reason: str = ""
    unenforced: tuple[str, ...] = ()
    fields: Mapping[str, Any] = field(default_factory=dict, compare=False)
    gbnf_states: int = 0

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"enforced": self.enforced, "via": self.via}
        if self.reason:
            out["reason"] = self.reason
        if self.unenforced:
            out["unenforced"] = list(self.unenforced)
        if self.gbnf_states:
            out["gbnf_states"] = self.gbnf_states
        return out


def server_kind(mode: str) -> ServerKind:
    """The kind a ``grammar_mode`` names (its old names included); ``ModelError`` for an unknown one."""
    kind = ALIASES.get(mode, mode)
    if kind not in SERVER_KINDS:
        raise ModelError(f"unknown server kind {mode!r}; choose one of auto, {', '.join(SERVER_KINDS)}")
    return kind  # type: ignore[return-value]


def kind_from_owner(owned_by: Iterable[str]) -> ServerKind:
    """The kind the ``owned_by`` values of ``GET /v1/models`` name; ``openai`` when none is known."""
    for owner in owned_by:
        if isinstance(owner, str) and owner.strip().lower() in OWNED_BY:
            return OWNED_BY[owner.strip().lower()]
    return "openai"


def route_grammar(grammar: Grammar, kind: str) -> GrammarRoute:
    """How ``grammar`` travels to a server of ``kind`` (see ``GrammarRoute``); cached per grammar and kind."""
    return _route(grammar, server_kind(kind))


@lru_cache(maxsize=512)
def _route(grammar: Grammar, kind: ServerKind) -> GrammarRoute:
    if grammar.format == "json_schema":
        return _schema_route(grammar, kind)
    choice = _choice(grammar) if kind in ("vllm", "vllm-legacy") else None
    if kind == "vllm":
        if choice is not None:
            return GrammarRoute(kind, True, "choice", fields={"structured_outputs": {"choice": choice}})
        key = "regex" if grammar.format == "regex" else "grammar"
        return GrammarRoute(kind, True, "regex" if key == "regex" else "Lark",
                            fields={"structured_outputs": {key: grammar.source}})
    if kind == "vllm-legacy":
        if choice is not None:
            return GrammarRoute(kind, True, "choice", fields={"guided_choice": choice})
        key = "guided_regex" if grammar.format == "regex" else "guided_grammar"
        return GrammarRoute(kind, True, "regex" if grammar.format == "regex" else "Lark",
                            fields={key: grammar.source})
    if kind == "openai":
        return GrammarRoute(kind, False, reason=f"an OpenAI-style API takes no {grammar.format} grammar "
                            "(JSON Schema only)")
    if kind == "sglang" and grammar.format == "regex":
        return GrammarRoute(kind, True, "regex", fields={"regex": grammar.source})
    from corral.grammars import NotConvertible, to_gbnf

    try:
        gbnf = to_gbnf(grammar)
    except NotConvertible as exc:
        reason = exc.kind if exc.kind.startswith(grammar.format) else f"{grammar.format} grammar: {exc.kind}"
        return GrammarRoute(kind, False, reason=reason, fields={"detail": exc.detail})
    key = "ebnf" if kind == "sglang" else "grammar"
    return GrammarRoute(kind, True, "GBNF", fields={key: gbnf.text}, gbnf_states=gbnf.states)


def _choice(grammar: Grammar) -> list[str] | None:
    """The literals of a grammar that is only a choice among literals (``start: "a" | "b"``), else None."""
    if grammar.format != "lark":
        return None
    lines = [line.strip() for line in grammar.source.strip().splitlines() if line.strip()]
    if not lines or not lines[0].startswith("start:"):
        return None
    body = " ".join([lines[0][len("start:"):], *lines[1:]])
    options = []
    for part in body.split("|"):
        part = part.strip()
        try:
            value = json.loads(part)
        except ValueError:
            return None
        if not isinstance(value, str) or '"' in part[1:-1].replace('\\"', ""):
            return None
        options.append(value)
    return options or None


def _schema_route(grammar: Grammar, kind: ServerKind) -> GrammarRoute:
    schema = {k: v for k, v in grammar.schema.items() if k != "x-guidance"}
    used = _keywords(schema)
    if kind == "openai":
        problem = _strict_problem(schema)
        if problem:
            return GrammarRoute(kind, False, reason=f"outside OpenAI's strict JSON Schema: {problem}")
        body = {"name": f"corral_{grammar.hash}", "schema": schema, "strict": True}
        return GrammarRoute(kind, True, "JSON Schema", fields={"response_format": {"type": "json_schema",
                                                                                   "json_schema": body}})
    if kind == "llamacpp":
        refused = sorted(used & set(LLAMACPP_REFUSED))
        if refused:
            return GrammarRoute(kind, False, reason=f"JSON Schema keyword {refused[0]}: {LLAMACPP_REFUSED[refused[0]]}")
        return GrammarRoute(kind, True, "JSON Schema", unenforced=tuple(sorted(used & LLAMACPP_CHECKER_ONLY)),
                            fields={"response_format": {"type": "json_object", "schema": schema}})
    unenforced = _after(grammar)
    if kind == "sglang":
        body = {"name": f"corral_{grammar.hash}", "schema": schema}
        return GrammarRoute(kind, True, "JSON Schema", unenforced=unenforced,
                            fields={"response_format": {"type": "json_schema", "json_schema": body}})
    key = "guided_json" if kind == "vllm-legacy" else None
    fields = {key: schema} if key else {"structured_outputs": {"json": schema}}
    return GrammarRoute(kind, True, "JSON Schema", unenforced=unenforced, fields=fields)


def _after(grammar: Grammar) -> tuple[str, ...]:
    """The keywords a guidance-style engine leaves to the checker (Corral's own account of llguidance)."""
    from corral.grammars import enforcement

    try:
        return tuple(sorted({keyword for _, keyword, _ in enforcement(grammar.schema, "json").after}))
    except Exception:  # an account that cannot be made leaves the list empty; the checker runs regardless
        return ()


def _keywords(schema: Any) -> set[str]:
    """Every keyword used anywhere in ``schema`` (property names under ``properties`` are not keywords)."""
    found: set[str] = set()
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
            continue
        if not isinstance(node, dict):
            continue
        for key, value in node.items():
            found.add(key)
            if key in ("properties", "$defs", "definitions", "patternProperties", "dependentSchemas"):
                if isinstance(value, dict):
                    stack.extend(value.values())
            elif key not in ("enum", "const", "required", "default", "examples"):
                stack.append(value)
    return found - _ANNOTATIONS


def _strict_problem(schema: dict[str, Any]) -> str:
    """Why ``schema`` is outside OpenAI's strict subset (the first problem found, with its path), or ""."""
    if schema.get("type") != "object" or "anyOf" in schema:
        return "the root must be an object, not anyOf"
    stack: list[tuple[str, Any]] = [("#", schema)]
    while stack:
        path, node = stack.pop()
        if not isinstance(node, dict):
            if node is True or node is False:
                return f"{path}: a boolean schema"
            continue
        for key in node:
            if key not in OPENAI_STRICT:
                return f"{path}: keyword {key}"
        if node.get("format") not in (None, *OPENAI_FORMATS):
            return f"{path}: format {node['format']}"
        types = node.get("type")
        if "properties" in node or types == "object" or (isinstance(types, list) and "object" in types):
            if node.get("additionalProperties") is not False:
                return f"{path}: an object without additionalProperties false"
            if set(node.get("required", [])) != set(node.get("properties", {})):
                return f"{path}: an object whose properties are not all required"
        for key in ("properties", "$defs", "definitions"):
            for name, sub in (node.get(key) or {}).items():
                stack.append((f"{path}/{key}/{name}", sub))
        if isinstance(node.get("items"), dict):
            stack.append((f"{path}/items", node["items"]))
        for n, sub in enumerate(node.get("anyOf") or []):
            stack.append((f"{path}/anyOf/{n}", sub))
    return ""


# ------------------------------------------------------------------------------------------- plans
def plan_summary(kind: str, routes: Iterable[GrammarRoute], no_grammar: Mapping[str, int] | None = None) -> str:
    """One line: ``server llamacpp: 12 instances enforced (GBNF 9, JSON Schema 3), 27 checker-only: lark grammar
    with several lexemes (27)``; ``no_grammar`` counts instances without a grammar at all, by reason."""
    routes = list(routes)
    enforced = Counter(r.via for r in routes if r.enforced)
    checker = Counter(r.reason for r in routes if not r.enforced)
    checker.update(no_grammar or {})
    line = f"server {kind}: {sum(enforced.values())} instance{'s' * (sum(enforced.values()) != 1)} enforced"
    if enforced:
        line += " (" + ", ".join(f"{via} {n}" for via, n in enforced.most_common()) + ")"
    if checker:
        line += f", {sum(checker.values())} checker-only: " + "; ".join(
            f"{reason} ({n})" for reason, n in checker.most_common())
    partial = Counter(k for r in routes if r.enforced for k in r.unenforced)
    if partial:
        line += "; keywords checked after decoding: " + ", ".join(f"{k} ({n})" for k, n in partial.most_common())
    return line
