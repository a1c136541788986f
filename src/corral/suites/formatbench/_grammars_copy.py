"""FormatBench grammars (copy); see _grammars.py.

NER, CapSeg and Parse answers copy their input and add structure, so each instance's grammar is a copy grammar
over the input's tokens (the checker's own source, split at whitespace, so that the text the grammar copies is
the text the checker compares). All three are exact: every text they accept passes the strict checker.

* ``ner``: the tokens in order, one space between two, each entity ``<TAG>word word</TAG>`` around a run of
  tokens with a tag from the instance's set (never nested, never empty, every tag closed); at least one entity
  when the gold marks one (the ``tagged`` rule). State in llguidance's rule parameter: the next token, the open
  tag (0: none) and whether an entity was written.
* ``capseg``: the words in order with `` <eol> `` or `` <eob> `` between two and `` <eob>`` at the end; at most
  ``MAX_LINES`` lines per block and at most ``MAX_LINE`` characters per line, both exact: the parameter holds
  the next word, how many words its line holds before it and the line's number in its block, and word ``k``
  joins the line only when the line from its first word through ``k`` fits (the first word each ``k`` allows
  is computed here, ``line_starts``).
* ``parse``: ``copy_tree`` over the tokens with the phrase and clause labels the checker accepts (bare, no
  function tags or wrappers: less than the checker allows) and a part-of-speech tag over each word.

``copy_sequence`` and ``copy_tree`` cover a sequence of independent items and a bracketed tree; a tag that must
be closed by its own label and a line's running width are state carried from word to word, so NER and CapSeg
write their parametric rules here, in the way ``copy_tree`` does (one rule per state kind, one literal per token,
linear in the input). Literals are separate lexemes where one could begin another (a space, then a marker), since
llguidance's lexer is greedy.

An input no passing answer exists for (a word longer than a line, a token the checker reads as a tag or a
bracket) has no grammar: ``NotExpressible`` with the reason, and the instance is decoded freely.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from corral.grammars import MAX_COPY_TOKENS, Grammar, GrammarError, NotExpressible, copy_sequence, copy_tree, lit

from ._grammars import FormatGrammar
from ._parse import CLAUSE, PHRASE, WORD, _tokens
from ._tagged import _TAG, MAX_LINE, MAX_LINES, _source, allowed_tags

PARSE_MAX_DEPTH = 60
"""Brackets open at once in a parse (the shipped gold trees stay far below; a bound keeps decoding finite)."""
_MARKUP = re.compile(r"<[^<>]*>")  # what CapSeg's checker could read as a marker once breaks widen the spaces
_TREE_BREAKING = re.compile(r"[\s()]")  # a leaf holding one of these cannot be read back as that leaf


def _words(words: Sequence[str], task: str) -> list[str]:
    if not words:
        raise NotExpressible(f"no {task} grammar: the input has no tokens")
    if len(words) > MAX_COPY_TOKENS:
        raise NotExpressible(f"no {task} grammar: the input has {len(words):,} tokens; a copy grammar takes at most "
                             f"{MAX_COPY_TOKENS:,}")
    return list(words)


def _bits(values: int) -> int:
    """Bits for the numbers 0 to ``values``."""
    return max(1, values.bit_length())


def _field(start: int, width: int) -> str:
    return f"[{start}:{start + width}]"


# ------------------------------------------------------------------------------------------------------- ner
def ner_grammar(instance: Mapping[str, Any]) -> FormatGrammar:
    words = _words(_source(instance).split(), "ner")
    if any(_TAG.search(word) for word in words):
        raise NotExpressible("no ner grammar: the input holds text the checker reads as a tag")
    tags = [tag for tag in dict.fromkeys(allowed_tags(instance)) if _TAG.fullmatch(f"<{tag}>")]
    gold = instance.get("gold")
    must_tag = isinstance(gold, str) and _TAG.search(gold) is not None  # the checker's ``tagged`` rule
    if not tags:
        if must_tag:
            raise NotExpressible("no ner grammar: the gold marks entities and no tag of the instance can be written")
        return FormatGrammar(copy_sequence(words, description=f"the {len(words)} input tokens, untagged"))
    return FormatGrammar(Grammar("lark", _ner_source(words, tags, must_tag),
                                 f"the {len(words)} input tokens with {', '.join(tags)} entities"))


def _ner_source(words: list[str], tags: list[str], must_tag: bool) -> str:
    n = len(words)
    pos_bits, tag_bits = _bits(n), _bits(len(tags))
    at, open_tag = _field(0, pos_bits), _field(pos_bits, tag_bits)
    seen = pos_bits + tag_bits  # the bit set once an entity was opened
    keep = ((1 << (seen + 1)) - 1) & ~(((1 << tag_bits) - 1) << pos_bits)  # clears the open tag
    # a unit: a token outside any entity, or an entity's opening tag and its first token (the last token may stay
    # outside only once an entity was written, when the gold asks for one: no dead end at the end)
    plain = f" %if or(bit_set({seen}), lt({at}, {n - 1}))" if must_tag else ""
    unit = [f"word::_{plain}"]
    unit += [f"{lit(f'<{tag}>')} word::bit_or({(j << pos_bits) | (1 << seen)})" for j, tag in enumerate(tags, 1)]
    after = [f'" " unit::_ %if and(eq({open_tag}, 0), lt({at}, {n}))',
             f'"" %if and(eq({open_tag}, 0), eq({at}, {n}))']
    for j, tag in enumerate(tags, 1):
        after.append(f'" " word::_ %if and(eq({open_tag}, {j}), lt({at}, {n}))')
        after.append(f"{lit(f'</{tag}>')} after::bit_and({keep}) %if eq({open_tag}, {j})")
    lines = [
        "start: unit::0",
        "unit::_ : " + "\n    | ".join(unit),
        "word::_ : " + "\n    | ".join(f"{lit(word)} after::incr({at}) %if eq({at}, {k})"
                                       for k, word in enumerate(words)),
        "after::_ : " + "\n    | ".join(after),
    ]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------------- capseg
def capseg_grammar(instance: Mapping[str, Any]) -> FormatGrammar:
    words = _words(str(instance["text"]).split(), "capseg")
    if _MARKUP.search(" ".join(words)):
        raise NotExpressible("no capseg grammar: the input holds text the checker reads as a marker")
    long = next((word for word in words if len(word) > MAX_LINE), None)
    if long is not None:
        raise NotExpressible(f"no capseg grammar: the word {long[:60]!r} is longer than a line ({MAX_LINE} "
                             "characters)")
    return FormatGrammar(Grammar("lark", _capseg_source(words),
                                 f"the {len(words)} input words in blocks of at most {MAX_LINES} lines of at most "
                                 f"{MAX_LINE} characters"))


def line_starts(words: Sequence[str], limit: int = MAX_LINE) -> list[int]:
    """Per word ``k``, the first word a line ending at ``k`` may begin with (words joined by single spaces,
    at most ``limit`` characters)."""
    firsts, first, width = [], 0, -1
    for word in words:
        width += 1 + len(word)
        while width > limit:
            width -= len(words[first]) + 1
            first += 1
        firsts.append(first)
    return firsts


def _capseg_source(words: list[str]) -> str:
    n = len(words)
    pos_bits, count_bits, line_bits = _bits(n), _bits(MAX_LINE), _bits(MAX_LINES - 1)
    at, count = _field(0, pos_bits), _field(pos_bits, count_bits)  # the next word; the words on its line before it
    line = _field(pos_bits + count_bits, line_bits)  # the line's number in its block, from 0
    top = (1 << (pos_bits + count_bits + line_bits)) - 1
    # word k joins a line of ``count`` words when the line from word k - count through k fits; a line's first
    # word always fits (no word is longer than a line)
    word = [f"{lit(text)} after::incr({at}) %if "
            + _all(f"eq({at}, {k})", f"le({count}, {k - start})" if start else "")
            for k, (text, start) in enumerate(zip(words, line_starts(words), strict=True))]
    # the parameter changes by one operation per step: a break numbers its line (``<eol>``: the next line of the
    # block, ``<eob>``: the first), then ``brk`` empties the line's word count. llguidance 1.9.1's grammar
    # optimiser panics (``s.1.is_null() || s.1.is_self_ref()``) on a constant parameter inside a parametric rule
    # and on a parameter passed to a parametric rule of one unconditional alternative (which it inlines): so no
    # constants, and ``brk`` carries a condition (always true there: a word is left)
    lines = [
        "start: word::0",
        "word::_ : " + "\n    | ".join(word),
        f'after::_ : " " next::incr({count}) %if lt({at}, {n})\n    | " " "<eob>" %if eq({at}, {n})',
        f'next::_ : word::_\n    | "<eol>" brk::incr({line}) %if lt({line}, {MAX_LINES - 1})'
        f'\n    | "<eob>" brk::bit_and({top & ~_mask(pos_bits + count_bits, line_bits)})',
        f'brk::_ : " " word::bit_and({top & ~_mask(pos_bits, count_bits)}) %if lt({at}, {n})',
    ]
    return "\n".join(lines)


def _mask(start: int, width: int) -> int:
    return ((1 << width) - 1) << start


def _all(*conditions: str) -> str:
    """The conjunction of the non-empty ``conditions`` (llguidance's ``and`` takes two)."""
    kept = [c for c in conditions if c]
    out = kept[-1]
    for condition in reversed(kept[:-1]):
        out = f"and({condition}, {out})"
    return out


# ----------------------------------------------------------------------------------------------------- parse
def parse_grammar(instance: Mapping[str, Any]) -> FormatGrammar:
    words = _words(_tokens(instance), "parse")
    bad = next((word for word in words if not word or _TREE_BREAKING.search(word)), None)
    if bad is not None:
        raise NotExpressible(f"no parse grammar: the token {bad!r} cannot be a leaf of a bracketed tree")
    try:
        grammar = copy_tree(words, CLAUSE + PHRASE, rules={"TAG": " | ".join(lit(tag) for tag in WORD)},
                            max_depth=PARSE_MAX_DEPTH, description=f"a Penn Treebank tree over {len(words)} tokens")
    except GrammarError as exc:
        raise NotExpressible(f"no parse grammar: {exc}") from None
    return FormatGrammar(grammar)
