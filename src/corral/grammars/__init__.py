"""Grammars the decoding layer takes: from a JSON Schema, a Lark grammar, a regex, or a Corral constraint.

``Grammar.json_schema(...)``, ``Grammar.lark(...)`` and ``Grammar.regex(...)`` wrap and validate a source;
``compile_schema(schema, "json"|"yaml"|"xml")`` compiles a JSON Schema for output in any of the three forms
(``enforcement`` says which keywords the grammar enforces and which are checked after decoding);
``compile_constraint(constraint)`` is Corral's own compiler: every text of its grammar passes the checker, and
what it cannot express is reported per base constraint (``NotExpressible``); ``copy_tree`` and
``copy_sequence`` build per-input grammars that copy the input's tokens in order with structure between them;
``shortest_completion`` closes a cut-off prefix into a sentence of its grammar; ``with_reasoning`` puts a free,
bounded reasoning block (``corral.text.Reasoning``) before any of them.
``within_budget(compile, CompileBudget(...))`` runs any compile under a time and size budget (``NotExpressible``
past it); ``first_rejection``, ``draw``, ``soundness`` and ``grammar_stats`` answer questions about a grammar
without a model (``corral grammar``; docs/grammar-tools.md).
``to_gbnf(grammar)`` writes a regex or one-lexeme Lark grammar as an exact GBNF for llama.cpp-style servers
(``NotConvertible`` where no exact one exists or it is over its budget; ``regular_dfa`` is its DFA).
docs/grammars.md says what the compiled grammars allow.
"""

from ._budget import COMPILE_SECONDS, DEFAULT_COMPILE_BUDGET, MAX_COMPILE_SECONDS, CompileBudget, within_budget
from ._complete import shortest_completion
from ._copy import MAX_TOKENS as MAX_COPY_TOKENS
from ._copy import copy_sequence, copy_tree
from ._dfa import Dfa
from ._gbnf import GBNF_SECONDS, MAX_GBNF_CHARS, MAX_GBNF_SOURCE, MAX_GBNF_STATES, Gbnf, dfa_gbnf, to_gbnf
from ._grammar import (
    MAX_GRAMMAR_CHARS,
    Grammar,
    GrammarError,
    GrammarFormat,
    MatcherCache,
    NotExpressible,
    engine_limits,
    with_reasoning,
)
from ._inspect import (
    GrammarStats,
    Rejection,
    Soundness,
    describe_bytes,
    draw,
    first_rejection,
    grammar_stats,
    soundness,
)
from ._regex import lit
from ._regular import MULTI_LEXEME, NotConvertible, regular_dfa
from ._sample import EOS, accepts, allowed_bytes, byte_matcher, engine_check, random_walk, sample, witness
from .constraint import Limits, compile_constraint
from .schema import Enforcement, compile_schema, enforcement

__all__ = [
    "COMPILE_SECONDS",
    "DEFAULT_COMPILE_BUDGET",
    "EOS",
    "GBNF_SECONDS",
    "MAX_COMPILE_SECONDS",
    "MAX_COPY_TOKENS",
    "MAX_GBNF_CHARS",
    "MAX_GBNF_SOURCE",
    "MAX_GBNF_STATES",
    "MAX_GRAMMAR_CHARS",
    "MULTI_LEXEME",
    "CompileBudget",
    "Dfa",
    "Enforcement",
    "Gbnf",
    "Grammar",
    "GrammarError",
    "GrammarFormat",
    "GrammarStats",
    "Limits",
    "MatcherCache",
    "NotConvertible",
    "NotExpressible",
    "Rejection",
    "Soundness",
    "accepts",
    "allowed_bytes",
    "byte_matcher",
    "compile_constraint",
    "compile_schema",
    "copy_sequence",
    "copy_tree",
    "describe_bytes",
    "dfa_gbnf",
    "draw",
    "enforcement",
    "engine_check",
    "engine_limits",
    "first_rejection",
    "grammar_stats",
    "lit",
    "random_walk",
    "regular_dfa",
    "sample",
    "shortest_completion",
    "soundness",
    "to_gbnf",
    "with_reasoning",
    "within_budget",
    "witness",
]
