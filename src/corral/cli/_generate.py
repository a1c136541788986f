"""``corral generate``: sample from a model, free or under a grammar, and check outputs against a constraint."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from corral.constraints import Constraint
    from corral.grammars import Grammar


def grammar_from_options(
    constraint: Constraint | None, schema: Path | None, lark: Path | None, regex: str | None
) -> Grammar | None:
    """The one grammar the options ask for (``ValueError`` with a one-line reason if more than one, or bad).

    A schema file is compiled as ``compile_schema(schema, "json")`` does it everywhere else."""
    from corral.grammars import Grammar, compile_constraint, compile_schema

    given = [x is not None for x in (constraint, schema, lark, regex)]
    if sum(given) > 1:
        raise ValueError("give at most one of --constraint, --schema, --lark, --regex")
    if constraint is not None:
        return compile_constraint(constraint)
    if schema is not None:
        return replace(compile_schema(_read_json(schema), "json"), description=f"JSON Schema {schema}")
    if lark is not None:
        return Grammar.lark(_read(lark), description=f"Lark grammar {lark}")
    if regex is not None:
        return Grammar.regex(regex)
    return None


def _read(path: Path) -> str:
    """A grammar file's text: a regular UTF-8 file of at most 64 MiB (``corral.files``), or an ``InputError`` (a
    ``ValueError``) naming it."""
    from corral.files import read_input_text

    return read_input_text(path)


def _read_json(path: Path) -> Any:
    """A schema file's JSON (``corral.files.read_input_json``): malformed, too deep or holding an integer past
    Python's digit limit is an ``InputError`` (a ``ValueError``) naming the file, line and column."""
    from corral.files import read_input_json

    return read_input_json(path)


def completion_json(text: str, finish: str, tokens: int, seconds: float, verdict: dict | None) -> str:
    row = {"text": text, "finish_reason": finish, "completion_tokens": tokens, "seconds": round(seconds, 3)}
    if verdict is not None:
        row["verdict"] = verdict
    return json.dumps(row, ensure_ascii=False)
