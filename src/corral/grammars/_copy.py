"""Copy grammars: the input's tokens, each exactly once and in order, with structure between them.

Parsing is copying with structure added: a constituency tree's leaves are the sentence's words in order, a
dependency linearisation writes one triple per word in order, a NER or segmentation answer is the input with
tags or markers between its words. Such a grammar is built per input, so it must be cheap to build.

* ``copy_sequence``: one item per token, in order (``(word, REL, HEAD)``), with a separator between items. It is
  linear in the number of tokens: one literal per token.
* ``copy_tree``: bracketed trees whose leaves are the tokens in order. The obvious encoding, a nonterminal per
  span, has O(n³) rules (286 ms to build at 40 words, ``benchmarks/copy_grammar.py``). Here one rule per
  state reads the output left to right and carries the state in llguidance's rule parameter (a 64-bit
  integer, materialised lazily while parsing, ``docs/grammars.md``): which token comes next and how many brackets
  are open. Opening a bracket needs a token left to cover, closing one needs a child before it (``opened``
  holds no child yet), and the output ends when the root closes after the last token. The grammar holds one
  literal per token, so it grows linearly, and nothing in it depends on the tree's shape.

A token is a literal: quotes, backslashes, brackets, ``#`` and any Unicode are copied as they are (the structure
around them is the caller's, and a reader must know where a token ends: ``(X ))`` is a tree over ``)`` only
if the reader reads it so). Token counts are bounded (``MAX_TOKENS``) like every grammar's size.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from ._grammar import Grammar, GrammarError, _sized
from ._regex import lit

MAX_TOKENS = 4096
"""Tokens at most in one copy grammar (a 300-word sentence is far inside; a document is not a sentence)."""
MAX_DEPTH = 120
"""Brackets open at once, at most, in a copied tree (Penn Treebank trees stay under 40)."""
_DEPTH_BITS = 7
_LITERAL = re.compile(r'"(?:[^"\\]|\\.)*"|/(?:[^/\\]|\\.)*/')
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def copy_sequence(tokens: Sequence[str], item: str = "{token}", separator: str = " ", *, prefix: str = "",
                  suffix: str = "", rules: Mapping[str, str] | None = None, description: str = "") -> Grammar:
    """Every output is ``prefix``, then ``item`` once per token in order (``separator`` between two), then
    ``suffix``.

    ``item`` is a Lark expression in which ``{token}`` stands for the token's literal and ``{index}`` for the
    literal of its position from 1 (``'"(" {token} ", " REL ", " HEAD ")"'``); ``rules`` define the names it uses
    (``{"REL": '"nsubj" | "obj"'}``); the rule ``TOKEN``, any of the input's tokens, is always defined, so a
    dependency's head can be one. ``separator``, ``prefix`` and ``suffix`` are literal text.
    """
    words = _tokens(tokens)
    body = f" {lit(separator)} ".join(
        "(" + item.replace("{token}", lit(word)).replace("{index}", lit(str(k))) + ")"
        for k, word in enumerate(words, start=1))
    parts = [p for p in (lit(prefix) if prefix else "", body, lit(suffix) if suffix else "") if p]
    lines = [f"start: {' '.join(parts)}", *_rules(rules, words, item)]
    return _grammar("\n".join(lines), description or f"a copy of {len(words)} tokens in order")


def copy_tree(tokens: Sequence[str], labels: Sequence[str], leaf: str = '"(" TAG " " {token} ")"', *,
              rules: Mapping[str, str] | None = None, max_depth: int = MAX_DEPTH, description: str = "") -> Grammar:
    """Every output is one bracketed tree ``(LABEL child child ...)`` whose leaves are ``tokens`` in order, each
    written as ``leaf`` (a Lark expression with ``{token}``, by default a preterminal ``(TAG word)``: define
    ``TAG`` in ``rules``); children are separated by one space; every bracket has at least one child.

    ``labels`` are the bracket labels allowed (from a treebank's training data, say). Trees nest at most
    ``max_depth`` brackets deep (at most ``MAX_DEPTH``): a bound from the treebank keeps a model that nests
    bracket after bracket within its token budget. A single token's tree may be its leaf alone
    (``(VB Understand)``: a one-word treebank sentence whose root wrapper was removed).
    """
    words = _tokens(tokens)
    if not labels:
        raise GrammarError("a copied tree needs at least one bracket label")
    if "{token}" not in leaf:
        raise GrammarError("a copied tree's leaf must hold {token}")
    if not 1 <= max_depth <= MAX_DEPTH:
        raise GrammarError(f"a copied tree's max_depth must be 1 to {MAX_DEPTH}, not {max_depth}")
    n, pos_bits = len(words), max(1, len(words).bit_length())
    at, depth = f"[0:{pos_bits}]", f"[{pos_bits}:{pos_bits + _DEPTH_BITS}]"
    before, after = leaf.split("{token}", 1)
    before = before.strip() or '""'
    after = after.strip()
    one_deep = 1 << pos_bits  # the parameter once the root is open: next token 0, depth 1
    alone = f" | {before} {lit(words[0])} {after}" if n == 1 else ""  # one token: its leaf alone is a tree
    lines = [
        f'start: "(" LABEL opened::{one_deep}{alone}',
        # opened: a bracket was just opened and has no child yet; rest: after a child
        # the space before a child is its own lexeme in both alternatives: llguidance's lexer is greedy, so a
        # '" ("' here would swallow the '" "' a leaf starts with
        f'opened::_ : " " "(" LABEL opened::incr({depth}) %if and(lt({at}, {n}), lt({depth}, {max_depth}))',
        f'    | " " {before} word::_ %if lt({at}, {n})',  # (no leaf begun past the last token: a dead end)
        f'rest::_ : opened::_\n    | ")" rest::decr({depth}) %if gt({depth}, 1)',
        f'    | ")" %if and(eq({depth}, 1), eq({at}, {n}))',
        "word::_ : " + "\n    | ".join(f"{lit(word)} {after} rest::incr({at}) %if eq({at}, {k})"
                                       for k, word in enumerate(words)),
        "LABEL: " + " | ".join(lit(label) for label in dict.fromkeys(labels)),
        *_rules(rules, words, leaf, known={"LABEL"}),
    ]
    return _grammar("\n".join(lines), description or f"a tree over {n} tokens in order")


def _tokens(tokens: Sequence[str]) -> list[str]:
    words = list(tokens)
    if not words:
        raise GrammarError("nothing to copy: the input has no tokens")
    if len(words) > MAX_TOKENS:
        raise GrammarError(f"the input has {len(words):,} tokens; a copy grammar takes at most {MAX_TOKENS:,}")
    for k, word in enumerate(words):
        if not isinstance(word, str) or not word:
            raise GrammarError(f"token {k + 1} is {word!r}: every token must be non-empty text")
    return words


def _rules(rules: Mapping[str, str] | None, words: list[str], *templates: str,
           known: frozenset[str] | set[str] = frozenset()) -> list[str]:
    """The rule lines: the caller's, and ``TOKEN``; a name a template uses that nothing defines is an error here,
    not when the engine first compiles the grammar mid-run."""
    defined = dict(rules or {})
    used = {template: _names(template) for template in (*templates, *defined.values())}
    if "TOKEN" not in defined and any("TOKEN" in names for names in used.values()):  # (each literal costs time)
        defined["TOKEN"] = " | ".join(lit(word) for word in dict.fromkeys(words))
    for template in templates:
        missing = sorted(used[template] - defined.keys() - known)
        if missing:
            raise GrammarError(f"the copy template {template!r} uses {', '.join(missing)}, which no rule defines")
    return [f"{name}: {body}" for name, body in defined.items()]


def _names(template: str) -> set[str]:
    """The rule names a Lark expression uses (outside its string and regex literals)."""
    return set(_NAME.findall(_LITERAL.sub(" ", template.replace("{token}", " ").replace("{index}", " "))))


def _grammar(source: str, description: str) -> Grammar:
    """A grammar Corral wrote itself: sized, and checked by the engine only when the caller validates it (the
    check costs a second compile, which per-instance grammars cannot afford)."""
    return Grammar("lark", _sized(source, "copy grammar"), description)
