"""The entry points: ``compile_schema`` (a grammar for JSON, YAML or XML output) and ``enforcement`` (what
decoding with it guarantees).

JSON output is llguidance's JSON Schema compiler (``_llguidance``). YAML and XML output are Lark grammars Corral
generates: the schema is lowered to the value language (``_lower``) and written in each output's syntax
(``_yaml``, ``_xml``).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from .._grammar import Grammar, GrammarError, _check_schema
from .._sample import engine_check
from ._enforcement import OUTPUTS, Enforcement, Output, enforcement_of, refuse
from ._llguidance import json_enforcement, json_grammar
from ._lower import lowered
from ._values import compact
from ._xml import xml_lark
from ._yaml import yaml_lark


def compile_schema(schema: dict[str, Any] | bool, output: Output, bounded: bool = False) -> Grammar:
    """A grammar whose texts are ``output`` (json, yaml or xml) values valid against ``schema``.

    Raises ``GrammarError`` for an invalid schema and ``NotExpressible`` (one line: path and keyword) for one
    no grammar can express; see ``enforcement`` for the constraints left to a validator.

    ``bounded``: also bound what the schema leaves open (numbers to 15 digits past a bound, 6 items, 64
    characters), so that a model decoding under a token budget finishes its sample; sound, since it only
    removes values. For JSON it costs compile time (llguidance builds the range regexes), so it is asked for;
    the YAML and XML compilers always bound open integers and arrays, their grammars being built on it.
    """
    _check_output(output)
    if output == "json":
        return json_grammar(schema, canonical(schema), bounds=bounded)
    source = _lark_source(canonical(schema), output)
    # a large schema can give a grammar past the engine's limits (its size, or the fuel its lexer may spend):
    # a refusal that says so, at compile time, not an engine error in the middle of decoding
    try:
        grammar = Grammar.lark(source, description=f"JSON Schema as {output.upper()}")
    except GrammarError as exc:
        raise refuse("#", "(schema)", f"its {output.upper()} grammar is past the grammar engine's limits "
                                      f"({exc})") from None
    problem = engine_check(grammar)
    if problem:
        raise refuse("#", "(schema)", f"its {output.upper()} grammar is past the grammar engine's limits "
                                      f"({problem})")
    return grammar


def enforcement(schema: dict[str, Any] | bool, output: Output, bounded: bool = False) -> Enforcement:
    """Which of ``schema``'s keywords decoding enforces exactly, and which it leaves to a later check (why).

    ``bounded``: for the grammar ``compile_schema(..., bounded=True)`` gives (JSON only: the YAML and XML grammars
    are always bounded); bounds close gaps, an unbounded number's overflowing exponent for one."""
    _check_output(output)
    if output == "json":
        return json_enforcement(schema, canonical(schema), bounded)
    found = lowered(canonical(schema))
    return enforcement_of(found.used, found.after)


def canonical(schema: Any) -> str:
    """The compact text of a schema that passed its meta-schema check (``GrammarError`` otherwise)."""
    if not isinstance(schema, dict | bool):
        raise GrammarError(f"a JSON Schema must be an object or a boolean, not {type(schema).__name__}")
    _check_schema(schema)
    return compact(schema)


def _check_output(output: str) -> None:
    if output not in OUTPUTS:
        raise ValueError(f"unknown output {output!r}; valid: {', '.join(OUTPUTS)}")


@lru_cache(maxsize=256)
def _lark_source(canonical: str, output: Output) -> str:
    found = lowered(canonical).node
    return yaml_lark(found) if output == "yaml" else xml_lark(found)
