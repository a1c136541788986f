"""Grammars the decoding layer takes: from a JSON Schema, a Lark grammar, a regex, or a Corral constraint.

``Grammar.json_schema(...)``, ``Grammar.lark(...)`` and ``Grammar.regex(...)`` wrap and validate a source;
``compile_schema(schema, "json"|"yaml"|"xml")`` compiles a JSON Schema for output in any of the three forms
(``enforcement`` says which keywords the grammar enforces and which are checked after decoding);
``compile_constraint(constraint)`` is Corral's own compiler: every text of its grammar passes the checker, and
what it cannot express is reported per base constraint (``NotExpressible``); ``copy_tree`` and
``copy_sequence`` build per-input grammars that copy the input's tokens in order with structure between them;
``shortest_completion`` closes a cut-off prefix into a sentence of its grammar.
docs/grammars.md says what the compiled grammars allow.
"""

from ._complete import shortest_completion
from ._copy import MAX_TOKENS as MAX_COPY_TOKENS
from ._copy import copy_sequence, copy_tree
from ._grammar import (
    MAX_GRAMMAR_CHARS,
    Grammar,
    GrammarError,
    GrammarFormat,
    MatcherCache,
    NotExpressible,
    engine_limits,
)
from ._regex import lit
from ._sample import EOS, accepts, allowed_bytes, byte_matcher, engine_check, random_walk, sample, witness
from .constraint import Limits, compile_constraint
from .schema import Enforcement, compile_schema, enforcement

__all__ = [
    "EOS",
    "MAX_COPY_TOKENS",
    "MAX_GRAMMAR_CHARS",
    "Enforcement",
    "Grammar",
    "GrammarError",
    "GrammarFormat",
    "Limits",
    "MatcherCache",
    "NotExpressible",
    "accepts",
    "allowed_bytes",
    "byte_matcher",
    "compile_constraint",
    "compile_schema",
    "copy_sequence",
    "copy_tree",
    "enforcement",
    "engine_check",
    "engine_limits",
    "lit",
    "random_walk",
    "sample",
    "shortest_completion",
    "witness",
]
