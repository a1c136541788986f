"""``Grammar``: the one value the decoding layer takes, whatever it was built from.

A grammar is data (its format and source text), hashable and serializable, so it can key a compile cache and a
response cache and travel to a server. It is validated when built: a bad schema names the field path, a bad
Lark grammar or regex names line and column, all in one line.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any, Literal

from corral.errors import GrammarError as GrammarError  # defined with Corral's other error roots
from corral.text import Reasoning

from ._thinking import with_thinking

GrammarFormat = Literal["lark", "json_schema", "regex"]


class NotExpressible(GrammarError):
    """No grammar for this target. ``parts`` pairs each base constraint (in the textual form) that has none with
    the reason; a task's own target (a sentence, a schema) gives the reason alone, as one string."""

    def __init__(self, parts: list[tuple[str, str]] | str) -> None:
        if isinstance(parts, str):
            self.parts = [("the target", parts)]
            super().__init__(f"not expressible as a grammar: {parts}")
            return
        self.parts = parts
        listed = "; ".join(f"{expr}: {reason}" for expr, reason in parts)
        super().__init__(f"not expressible as a grammar: {listed}")


MAX_GRAMMAR_CHARS = 1_000_000
"""Grammars are untrusted input too: beyond this size they are refused rather than compiled."""

LEXER_FUEL = 50_000_000
"""The engine's budget for building a grammar's lexer (llguidance's default is 1,000,000, about 20 ms).

Compiled constraints count words along chunks and characters along a sentence; deciding whether such an
expression (or an intersection of two) is empty costs more than the default allows. The budget is a bound, not
a cost: common grammars use a small part of it."""

STEP_FUEL = 20_000_000
"""The budget of one mask computation (default 200,000): a character count over a sentence of the natural
shape constructs a few hundred thousand lexer expressions the first time through (later steps reuse them). A
step that needs more is an error, never a hang."""


def engine_limits():  # -> llguidance.LLParserLimits
    """The limits every matcher Corral makes is given (see ``LEXER_FUEL``)."""
    from llguidance import LLParserLimits

    return LLParserLimits(initial_lexer_fuel=LEXER_FUEL, step_lexer_fuel=STEP_FUEL)


class MatcherCache:
    """Compiled llguidance matchers of the last few grammars; each caller gets a ``deep_copy`` of one.

    Building an ``LLMatcher`` parses and compiles the grammar's text again, where copying a compiled prototype costs
    next to nothing: the decoder wants a matcher per sequence and a constraint's compile checks it with several.
    A prototype is keyed by the grammar's hash and the engine limits (a grammar compiled under other limits is
    another matcher); few are kept, as a prototype's lexer cache grows with its copies' use.
    """

    def __init__(self, kept: int) -> None:
        self.kept = kept
        self._prototypes: OrderedDict[tuple[str, int, int], Any] = OrderedDict()
        self._lock = threading.Lock()

    def copy(self, grammar: Grammar, compile: Callable[[Grammar], Any]) -> Any:  # -> llguidance.LLMatcher
        """A fresh matcher of ``grammar``; ``compile`` makes the prototype when none is kept (it may raise)."""
        key = (grammar.hash, LEXER_FUEL, STEP_FUEL)
        with self._lock:
            proto = self._prototypes.get(key)
            if proto is not None:
                self._prototypes.move_to_end(key)
        if proto is None:
            proto = compile(grammar)
            with self._lock:
                self._prototypes[key] = proto
                while len(self._prototypes) > self.kept:
                    self._prototypes.popitem(last=False)
        return proto.deep_copy()

    def drop(self, grammar: Grammar) -> None:
        """Let go of ``grammar``'s prototype (its lexer cache can be 100 MB), when no caller will copy it soon."""
        with self._lock:
            for key in [key for key in self._prototypes if key[0] == grammar.hash]:
                del self._prototypes[key]


@dataclass(frozen=True)
class Grammar:
    """A grammar in llguidance's Lark dialect, a JSON Schema, or a regex; ``description`` says where it came from.

    Build with ``Grammar.lark``, ``Grammar.json_schema``, ``Grammar.regex`` or ``corral.grammars.compile``
    (a Corral constraint); each validates its input.
    """

    format: GrammarFormat
    source: str
    description: str = ""
    hints: tuple[str, ...] = ()
    """Words and sentences a text of the grammar is likely to need (a compiled constraint's own strings): a
    search for a witness or for the completion of a cut-off output tries them whole before spelling bytes."""
    reasoning: Reasoning | None = None
    """A reasoning block the output starts with (``with_reasoning``): free but for its bound, then the text this
    grammar describes. ``format`` and ``source`` stay the answer's, for a server that parses the block itself."""

    @cached_property
    def hash(self) -> str:
        """A short stable digest of format and source (the compile and response caches key on it), and of the
        reasoning block when there is one."""
        block = "" if self.reasoning is None else "\0" + json.dumps(self.reasoning.to_json(), sort_keys=True)
        return hashlib.sha256(f"{self.format}\0{self.source}{block}".encode()).hexdigest()[:16]

    @property
    def schema(self) -> dict[str, Any]:
        """The JSON Schema of a ``json_schema`` grammar."""
        if self.format != "json_schema":
            raise GrammarError(f"a {self.format} grammar has no JSON Schema")
        return json.loads(self.source)

    def llguidance(self) -> str:
        """The grammar as llguidance's serialized form (what ``LLMatcher`` takes), after its reasoning block if
        it has one."""
        answer = self._answer_llguidance()
        return answer if self.reasoning is None else with_thinking(answer, self.reasoning)

    def _answer_llguidance(self) -> str:
        from llguidance import LLMatcher

        if self.format == "lark":
            return LLMatcher.grammar_from_lark(self.source)
        if self.format == "regex":
            return LLMatcher.grammar_from_regex(self.source)
        # compact JSON: free whitespace lets a small model pad with newlines until max_tokens
        wrapped = _with_compact_json(self.source)
        if wrapped is not None:
            return wrapped
        return LLMatcher.grammar_from_json_schema(self.source, defaults={"whitespace_flexible": False})

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"format": self.format, "source": self.source, "description": self.description}
        if self.reasoning is not None:
            data["reasoning"] = self.reasoning.to_json()
        return data

    # ------------------------------------------------------------------------------------------- builders
    @classmethod
    def lark(cls, source: str, description: str = "Lark grammar") -> Grammar:
        """A grammar in llguidance's Lark dialect (``start`` rule, ``/regex/`` terminals, ``x{m,n}``, ``&``, ``~``)."""
        grammar = cls("lark", _sized(source, "Lark grammar"), description)
        grammar.validate()
        return grammar

    @classmethod
    def regex(cls, pattern: str, description: str = "") -> Grammar:
        """The whole output must match ``pattern`` (Rust ``regex`` syntax, anchored at both ends)."""
        grammar = cls("regex", _sized(pattern, "regex"), description or f"regex {pattern!r:.60}")
        grammar.validate()
        return grammar

    @classmethod
    def json_schema(cls, schema: dict[str, Any] | str, description: str = "JSON Schema") -> Grammar:
        """The output must be JSON valid against ``schema`` (checked as a Draft 2020-12 schema first)."""
        if isinstance(schema, str):
            try:
                schema = json.loads(_sized(schema, "JSON Schema"))
            except json.JSONDecodeError as exc:
                where = f"line {exc.lineno}, column {exc.colno}"
                raise GrammarError(f"JSON Schema is not JSON: {where}: {exc.msg}") from None
        if not isinstance(schema, dict | bool):
            raise GrammarError(f"a JSON Schema must be an object or a boolean, not {type(schema).__name__}")
        _check_schema(schema)
        if schema is False:
            raise GrammarError("the JSON Schema false allows no value: there is nothing to generate")
        if schema is True:  # any JSON value; the engine wants an object schema
            schema = {}
        # compact, in its own key order: llguidance writes properties in the order the schema lists them
        grammar = cls("json_schema", json.dumps(schema, separators=(",", ":")), description)
        grammar.validate()
        return grammar

    def validate(self) -> None:
        """Raise ``GrammarError`` (one line, with line and column where the engine gives them) if invalid."""
        from llguidance import LLMatcher

        try:
            is_error, messages = LLMatcher.validate_grammar_with_warnings(self.llguidance())
        except ValueError as exc:
            raise GrammarError(f"invalid {_NAMES[self.format]}: {_one_line(str(exc))}") from None
        if is_error:
            message = _one_line(messages[0] if messages else "")
            if self.format != "lark":  # positions refer to the engine's wrapper, not to the user's text
                message = re.sub(r"^line \d+, column \d+: ", "", message)
            raise GrammarError(f"invalid {_NAMES[self.format]}: {message}")


def with_reasoning(grammar: Grammar, reasoning: Reasoning | None) -> Grammar:
    """``grammar`` after a reasoning block: the block free but for its bound (``reasoning.max_chars`` characters,
    never its close tag before its end), then a text of ``grammar`` (``corral.grammars._thinking`` says how), so a
    reasoning model can think before it answers under constrained decoding. None: ``grammar`` as it is. The
    grammar's ``format`` and ``source`` stay the answer's: a server whose reasoning parser applies structured
    outputs only after the block takes them unchanged; a local engine compiles ``llguidance()``, the whole."""
    if reasoning is None or grammar.reasoning == reasoning:
        return grammar
    if grammar.reasoning is not None:
        raise GrammarError(f"this grammar already starts with a reasoning block ({grammar.reasoning.open}"
                           f"...{grammar.reasoning.close}); wrap the answer's grammar once")
    where = "the output's start" if reasoning.prefilled else reasoning.open
    described = (f"{grammar.description} (after a reasoning block from {where} to {reasoning.close}, at most "
                 f"{reasoning.max_chars:,} characters)")
    wrapped = replace(grammar, reasoning=reasoning, description=described)
    wrapped.validate()
    return wrapped


_NAMES = {"lark": "Lark grammar", "regex": "regex", "json_schema": "JSON Schema"}
_WHERE = re.compile(r"^(?:at )?(\d+)\((\d+)\):\s*")


def _one_line(message: str) -> str:
    """llguidance's 'at 1(8): unknown name ...' plus a source excerpt, as 'line 1, column 8: unknown name ...'."""
    first = message.strip().splitlines()[0] if message.strip() else "rejected by the grammar engine"
    found = _WHERE.match(first)
    if found:
        first = f"line {found[1]}, column {found[2]}: {first[found.end():]}"
    if first.endswith("regex parse error:"):
        detail = [line.strip() for line in message.splitlines() if line.strip().startswith("error:")]
        first += " " + (detail[0] if detail else "")
    return first


_COMPACT = '{"x-guidance":{"whitespace_flexible":false'
_LENIENT = '{"x-guidance":{"lenient":true}'


def _with_compact_json(source: str) -> str | None:
    """llguidance's grammar for the JSON Schema text ``source`` with compact JSON, written here when the schema
    is an object whose only ``x-guidance`` is Corral's own leading ``{"lenient":true}``: the option goes into the
    text as ``grammar_from_json_schema(source, defaults=...)`` would merge it, which parses and rewrites the
    whole schema to do so (a fifth of a large schema's compile). None: ask llguidance."""
    if not source.startswith("{"):
        return None
    guided = source.count('"x-guidance"')
    if guided == 0:
        rest = source[1:].lstrip()
        body = _COMPACT + ("}}" if rest.startswith("}") else "}," + source[1:])
    elif guided == 1 and source.startswith(_LENIENT):
        body = _COMPACT + ',"lenient":true' + source[len(_LENIENT) - 1:]
    else:
        return None
    return '{"grammars":[{"json_schema":' + body + "}]}"


def _sized(text: str, what: str) -> str:
    if not isinstance(text, str):
        raise GrammarError(f"a {what} must be text, not {type(text).__name__}")
    if len(text) > MAX_GRAMMAR_CHARS:
        raise GrammarError(f"{what} is {len(text):,} characters; the limit is {MAX_GRAMMAR_CHARS:,}")
    return text


def _check_schema(schema: dict[str, Any] | bool) -> None:
    """Raise ``GrammarError`` naming the path if ``schema`` breaks its dialect's meta-schema.

    jsonschema-rs decides first (about 75 times faster, which keeps compile_schema's JSON path within a few
    percent of llguidance alone); only a schema it refuses goes to jsonschema, whose verdict is final and whose
    message names the path. The two differ on 18 of 5,071 shipped and test-suite schemas, all accepted by
    jsonschema-rs: ECMA-262 patterns Python's ``re`` cannot read (``(?<name>…)``, ``\\p{Letter}``, ``\\cC``),
    which JSON Schema allows, and two lenient string formats (tests/grammars/test_meta_check.py).
    """
    import jsonschema_rs

    try:
        if jsonschema_rs.meta.is_valid(schema):
            return
    except Exception:  # an unknown $schema, say: jsonschema decides
        pass
    _check_schema_slowly(schema)


def _check_schema_slowly(schema: dict[str, Any] | bool) -> None:
    from jsonschema import Draft202012Validator, exceptions, validators

    cls = validators.validator_for(schema, default=Draft202012Validator) if isinstance(schema, dict) else None
    cls = cls or Draft202012Validator
    try:
        cls.check_schema(schema)
    except exceptions.SchemaError as exc:
        path = "/".join(str(p) for p in exc.absolute_path) or "(root)"
        raise GrammarError(f"invalid JSON Schema at {path}: {_one_line(exc.message)}") from None
