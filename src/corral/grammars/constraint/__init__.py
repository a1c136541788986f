"""Corral's constraint compiler: a constraint becomes a grammar every text of which passes the checker.

``compile_constraint(constraint)`` builds the grammar (and checks a witness text of it against the constraint's
own checker); ``Limits`` bounds what it leaves open so that every generation ends; what it cannot express is
reported per base constraint (``NotExpressible``). ``lexicon(profile)`` is the lexical shape the grammars write
in, per segmentation profile (``LEXICONS``: all of them).

The modules, from the entry point down: ``_compile`` (paragraphs and passages, built structurally), ``_terms``
(word and sentence scopes as terminal expressions), ``_words`` (a sentence's word facts gathered into one walk
over its chunks), ``_lexicon`` (each profile's words, tokens and sentence ends, as data), ``_limits``.
docs/grammars.md says what the compiled grammars allow.
"""

from .._grammar import NotExpressible
from ._compile import compile_constraint
from ._lexicon import LEXICONS, Lexicon, Token, lexicon
from ._limits import Limits
from ._terms import counts_sentences

__all__ = [
    "LEXICONS",
    "Lexicon",
    "Limits",
    "NotExpressible",
    "Token",
    "compile_constraint",
    "counts_sentences",
    "lexicon",
]
