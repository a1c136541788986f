"""Grammars the decoding layer takes: from a JSON Schema, a Lark grammar, a regex, or a Corral constraint."""

from ._grammar import MAX_GRAMMAR_CHARS, Grammar, GrammarError, GrammarFormat

__all__ = ["MAX_GRAMMAR_CHARS", "Grammar", "GrammarError", "GrammarFormat"]
