"""FormatBench grammars for the one-answer tasks (mcq, eqa, acrow), FTime and MTT; see _grammars.py.

Each builder reads the instance the way its strict checker does (the checker modules' own helpers) and writes
a Lark grammar in llguidance's dialect:

* mcq: one label, exactly as listed (the checker strips the answer, so a label with outer spaces is left out).
* eqa: a span of the passage from a word boundary to a word boundary (``_inside_word``), neither end a space.
  The passage is cut at every boundary into pieces (a run of letters and digits, or one other character); the
  grammar is the suffix automaton of the piece sequence written as one rule per state (at most 2n rules and
  3n literals). A rule per starting piece instead (``s<k>: piece_k | piece_k s<k+1>``) is as small, but its
  parser tracks every occurrence of the span so far at once, and a passage of ~1,000 pieces exceeds
  llguidance's 2,000 items per row before the first byte.
* ftime: the single form ``YYYYMMDDTHHMMSS`` or the repeating form ``Rn/YYYYMMDDTHHMMSS/PnYnMnDTnHnMnS`` as
  the tag asks, with real calendar dates (month lengths, 29 February only in leap years). Digits only:
  ``?`` (an open digit, which the checker allows) is left out unless ``OPEN_DIGITS`` is set, since no
  instance uses it and it would let a model leave every digit open.
* acrow: one line per letter of the target, each starting with that letter (either case) itself.
* mtt: one line holding every target term the source calls for, each as a whole word (its first letter in
  either case), in any order (up to ``MTT_ORDERS`` orders; more terms keep the source's order). Whether the
  line is a translation is left to the checker (rule ``translation``): that needs the words' meaning.

Free text is one line of printable characters, bounded in length (a model within its token budget fits).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from typing import Any

from corral.grammars import Grammar, NotExpressible, lit

from ._grammars import FormatGrammar
from ._mtt import find_term, terms_of
from ._simple import _LETTER, _fold, _inside_word

OPEN_DIGITS = False
"""Whether FTime grammars allow ``?`` for a digit the instruction leaves open (the checker does)."""
LINE_CHARS = 200
"""Characters at most after an acrostic line's first letter (the shipped gold lines reach 100)."""
MTT_CHARS = 200
"""Characters at most of free text before, between or after the terms of a translation (the shipped gold
translations reach 132 in all)."""
MTT_ORDERS = 24
"""Orders of the terms a translation may take, at most: 4 terms in any order; 5 or more in the source's order."""
EQA_PIECES = 1500
"""Pieces (words, other characters) at most in an EQA passage (the shipped passages reach 900 characters, about
350 pieces). The grammar nests one rule per piece, and llguidance walks the nesting recursively: a chain of
about 2,700 rules overflows an 8 MiB thread stack (a segmentation fault, not an error). The parser also allows
2,000 items per row: one per piece an answer may start with, or per piece of the span when it ends."""
NUMBER_DIGITS = 4
"""Digits at most in an FTime repetition count or interval field."""

# one character of free text: no newline, no other control character, no line or paragraph separator
_CHAR = r"[^\x00-\x1f\x7f\x{85}\x{2028}\x{2029}]"
# what may stand right before or after a term: ASCII punctuation or a space, never a letter or digit in any
# Unicode version (the checker's \p{L} and \p{N} come from Python's regex module, the engine's from Rust)
_EDGE = r"[\x20-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e]"
_EDGE_NOT_SPACE = r"[\x21-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e]"
_FIRST = r"[^\s\x00-\x1f\x7f\x{85}\x{2028}\x{2029}]"  # the first character: not a space either


# ------------------------------------------------------------------------------------------------------ mcq
def mcq_grammar(instance: Mapping[str, Any]) -> FormatGrammar:
    """Exactly one of the instance's labels."""
    labels = [label for label in dict.fromkeys(str(label) for label in instance["labels"])
              if label and label == label.strip()]
    if not labels:
        raise NotExpressible("the instance has no label that can be written alone")
    return FormatGrammar(Grammar.lark("start: " + " | ".join(lit(label) for label in labels),
                                      f"one of {len(labels)} labels"))


# ------------------------------------------------------------------------------------------------------ eqa
def passage_pieces(context: str) -> list[str]:
    """The passage cut at every word boundary the checker allows a span to start or end on."""
    cuts = [at for at in range(len(context) + 1) if not _inside_word(context, at)]
    return [context[a:b] for a, b in itertools.pairwise(cuts)]


def _suffix_automaton(symbols: list[str]) -> tuple[list[dict[str, int]], list[str]]:
    """The suffix automaton of a sequence: the smallest deterministic automaton whose paths from state 0 spell
    exactly the sequence's contiguous runs; at most 2n states and 3n transitions. Returns each state's
    transitions and its label: the symbol every transition into it reads (state 0 has none)."""
    moves: list[dict[str, int]] = [{}]
    link, length, label = [-1], [0], [""]
    last = 0
    for symbol in symbols:
        new = len(moves)
        moves.append({})
        link.append(0)
        length.append(length[last] + 1)
        label.append(symbol)
        state = last
        while state != -1 and symbol not in moves[state]:
            moves[state][symbol] = new
            state = link[state]
        if state != -1:
            target = moves[state][symbol]
            if length[state] + 1 == length[target]:
                link[new] = target
            else:  # split the target: the runs that reach it through ``state`` are shorter than its others
                clone = len(moves)
                moves.append(dict(moves[target]))
                link.append(link[target])
                length.append(length[state] + 1)
                label.append(symbol)
                while state != -1 and moves[state].get(symbol) == target:
                    moves[state][symbol] = clone
                    state = link[state]
                link[target] = link[new] = clone
        last = new
    return moves, label


def eqa_grammar(instance: Mapping[str, Any]) -> FormatGrammar:
    """A non-empty span of the passage from a word boundary to a word boundary, starting and ending on a
    character that is not a space (the checker strips the answer).

    The grammar is the suffix automaton of the passage's pieces, one rule per state: deterministic, so the
    parser follows one path whatever the passage repeats, and linear in the passage's length. A span may
    end in a state entered by a piece that is not a space, and starts with such a piece."""
    pieces = passage_pieces(str(instance["context"]))
    if len(pieces) > EQA_PIECES:
        raise NotExpressible(f"the passage has {len(pieces):,} pieces (words and other characters); a grammar "
                             f"takes at most {EQA_PIECES:,}")
    moves, label = _suffix_automaton(pieces)
    ends = [state > 0 and not label[state][0].isspace() for state in range(len(moves))]
    live = list(ends)  # live: an end can be reached
    before: list[list[int]] = [[] for _ in moves]
    for state, out in enumerate(moves):
        for target in out.values():
            before[target].append(state)
    todo = [state for state, end in enumerate(ends) if end]
    while todo:
        for state in before[todo.pop()]:
            if not live[state]:
                live[state] = True
                todo.append(state)
    first = {piece: target for piece, target in moves[0].items() if not piece[0].isspace() and live[target]}
    if not first:
        raise NotExpressible("the passage has no word to answer with")
    lines = ["start: " + " | ".join(f"{lit(piece)} s{target}" for piece, target in first.items())]
    done, todo = set(first.values()), list(first.values())
    while todo:
        state = todo.pop()
        options = [f"{lit(piece)} s{target}" for piece, target in moves[state].items() if live[target]]
        lines.append(f"s{state}: " + " | ".join([*options, '""'] if ends[state] else options))
        for target in moves[state].values():
            if live[target] and target not in done:
                done.add(target)
                todo.append(target)
    return FormatGrammar(Grammar.lark("\n".join(lines), f"a span of a {len(pieces)}-piece passage"))


# ---------------------------------------------------------------------------------------------------- ftime
_MONTH = "(0[1-9]|1[0-2])"
_LEAP = "([0-9][0-9](0[48]|[2468][048]|[13579][26])|([02468][048]|[13579][26])00)"


def _stamp(open_digits: bool) -> str:
    """A regex for YYYYMMDDTHHMMSS that the checker's ``_stamp`` passes: fields in range, the day within its
    month (29 February in leap years; a year with an open digit counts as leap, like the checker's 2000)."""
    day = f"({_MONTH}(0[1-9]|1[0-9]|2[0-8])|(0[13-9]|1[0-2])(29|30)|(0[13578]|1[02])31)"
    year, leap = "[0-9]{4}", _LEAP
    clock = "([01][0-9]|2[0-3])[0-5][0-9][0-5][0-9]"
    if open_digits:
        some = r"(\?[0-9?]|[0-9]\?)"  # a two-digit field with an open digit: not range-checked
        year, leap = r"[0-9?]{4}", rf"({_LEAP}|\?[0-9?]{{3}}|[0-9]\?[0-9?]{{2}}|[0-9]{{2}}\?[0-9?]|[0-9]{{3}}\?)"
        day = f"({day}|{some}(0[1-9]|[12][0-9]|3[01]|{some})|{_MONTH}{some})"
        clock = f"([01][0-9]|2[0-3]|{some})([0-5][0-9]|{some})([0-5][0-9]|{some})"
    return f"({year}{day}|{leap}0229)T{clock}"


def ftime_grammar(instance: Mapping[str, Any]) -> FormatGrammar:
    """The time string the tag asks for: a single trigger (tags 1 and 2) or the repeating form (tag 3)."""
    stamp = _stamp(OPEN_DIGITS)
    if int(instance["tag"]) in (1, 2):
        return FormatGrammar(Grammar.lark(f"start: /{stamp}/", "a single time YYYYMMDDTHHMMSS"))
    n = f"[0-9]{{1,{NUMBER_DIGITS}}}"
    interval = f"P{n}Y{n}M{n}DT{n}H{n}M{n}S"
    return FormatGrammar(Grammar.lark(f"start: /R(-1|{n})\\/{stamp}\\/{interval}/",
                                      "a repeating time Rn/YYYYMMDDTHHMMSS/PnYnMnDTnHnMnS"))


# ---------------------------------------------------------------------------------------------------- acrow
def _initials(letter: str) -> list[str]:
    """The characters a line may begin with for ``letter``: itself and its other case, where the checker sees
    that one character as the same letter."""
    return [c for c in dict.fromkeys((letter, letter.upper(), letter.lower()))
            if len(c) == 1 and _LETTER.fullmatch(c) and _fold(c) == _fold(letter)]


def acrow_grammar(instance: Mapping[str, Any]) -> FormatGrammar:
    """One line per letter of the target, line i beginning with letter i; an optional final newline."""
    letters = _LETTER.findall(str(instance["target"]))
    if not letters:
        return FormatGrammar(Grammar.lark('start: ""', "an empty poem (the target has no letters)"))
    rest = f"/{_CHAR}{{0,{LINE_CHARS}}}/"
    lines = [" | ".join(lit(c) for c in _initials(letter)) for letter in letters]
    body = ' "\\n" '.join(f"({initial}) {rest}" for initial in lines)
    return FormatGrammar(Grammar.lark(f'start: POEM\nPOEM: {body} "\\n"?', f"an acrostic of {len(letters)} lines"))


# ------------------------------------------------------------------------------------------------------ mtt
def _spellings(term: str) -> list[str]:
    """The term with its first letter in either case (the checker's match lets a term open the sentence)."""
    heads = dict.fromkeys((term[:1], term[:1].upper(), term[:1].lower()))
    return [head + term[1:] for head in heads if len(head) == len(term[:1])
            and (match := find_term(term, head + term[1:])) is not None and match.group() == head + term[1:]]


def required_terms(instance: Mapping[str, Any]) -> list[str]:
    """The target terms the checker asks for (those whose source term occurs in the source), in order."""
    source = str(instance["src"])
    found = []
    for src, tgt in terms_of(instance).items():
        match = find_term(src, source)
        if match is not None:
            found.append((match.start(), tgt))
    return list(dict.fromkeys(tgt for _, tgt in sorted(found)))


def mtt_grammar(instance: Mapping[str, Any]) -> FormatGrammar:
    """One line, not starting with a space, holding each required term as a whole word.

    A term stands only next to ASCII punctuation, a space or the line's edge, so no letter can join it. The
    terms may come in any order (English need not follow the German order) up to ``MTT_ORDERS`` orders;
    beyond that, in the source's order. Free text between terms is at most ``MTT_CHARS`` characters a stretch.
    """
    terms = required_terms(instance)
    free = f"{_CHAR}{{0,{MTT_CHARS}}}"
    if not terms:
        return FormatGrammar(Grammar.lark(f"start: LINE\nLINE: /{_FIRST}{free}/", "a one-line translation"),
                             left_to_checker=("translation",))
    spelled = {}
    for term in terms:
        spellings = _spellings(term)
        if not spellings:
            raise NotExpressible(f"the term {term!r} cannot be written as a whole word")
        spelled[term] = "(" + " | ".join(lit(s) for s in spellings) + ")"
    before = f"/({_FIRST}{free}{_EDGE}|{_EDGE_NOT_SPACE})?/"
    between = f"/{_EDGE}({free}{_EDGE})?/"
    after = f"/({_EDGE}{free})?/"
    orders = itertools.permutations(terms) if math.factorial(len(terms)) <= MTT_ORDERS else [terms]
    lines = " | ".join(f"({before} {f' {between} '.join(spelled[t] for t in order)} {after})" for order in orders)
    return FormatGrammar(Grammar.lark(f"start: LINE\nLINE: {lines}", f"a one-line translation with {len(terms)} terms"),
                         left_to_checker=("translation",))
