"""Synchronous context-free grammars in BenchCLAMP's ``.scfg`` format: read, trimmed and written as Lark.

``read_scfg`` reads files into rules (``Scfg``: each rule's alternatives on the source and the plan side, as
``Symbol`` sequences; ``ScfgError`` names the file, line and column of anything else); ``scfg_to_lark`` writes one
side as a Lark grammar the engine compiles. ``productive``, ``bound_depth`` and ``fold_lexemes`` rewrite a side's
rules (drop what derives no text, unroll a recursion to a depth, spell whole lexemes where the file spells them a
character at a time); ``regex_escape`` escapes a literal for a one-character regex.
"""

from ._scfg import (
    Alternative,
    Scfg,
    ScfgError,
    Symbol,
    bound_depth,
    fold_lexemes,
    productive,
    read_scfg,
    regex_escape,
    scfg_to_lark,
)

__all__ = ["Alternative", "Scfg", "ScfgError", "Symbol", "bound_depth", "fold_lexemes", "productive", "read_scfg",
           "regex_escape", "scfg_to_lark"]
