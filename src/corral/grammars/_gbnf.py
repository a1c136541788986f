"""Exact GBNF (llama.cpp's grammar format) for grammars whose language is one regular language.

llama.cpp's servers take a grammar only as GBNF (or a JSON Schema they convert themselves). A Corral grammar in
llguidance's Lark dialect or a regex is converted only where the result is *exact*: its minimal DFA
(``_regular.regular_fsm``) written as a right-linear GBNF, one rule per state, each alternative one character
class followed by the next state's rule, so the server enforces the very language llguidance would. Where no exact
DFA exists (several lexemes, anchors, flags), or the DFA or the text is over its budget, ``to_gbnf`` refuses with a
one-line ``NotConvertible`` and the caller leaves that grammar to the checker: an approximate GBNF would enforce a
different language without saying so.

The budget bounds what a server is handed as well as our own work: llama.cpp keeps one parse stack per live
alternative and walks every candidate token through them, so a grammar of many thousand rules slows every step.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from ._dfa import Dfa, Ranges, negate, normalize
from ._grammar import Grammar
from ._regular import NotConvertible, regular_dfa

MAX_GBNF_STATES = 2_000
"""The most DFA states a converted grammar may have (each is one GBNF rule), in its final or any intermediate form."""

MAX_GBNF_CHARS = 200_000
"""The longest GBNF text a conversion may give."""

GBNF_SECONDS = 10.0
"""The time one conversion may take (building the DFA is pure Python; a hard intersection can take long)."""

MAX_GBNF_SOURCE = 20_000
"""The longest grammar source a conversion is tried on. Refusing at once keeps a run's plan fast: the COLLIE-v1
sentence and passage grammars that are one lexeme (structures c04 to c07, 32,000 to 276,000 characters) each need
more than 16,000 states (a DFA step past eight times the default budget), so converting them could only fail, after
the full time budget each."""


@dataclass(frozen=True)
class Gbnf:
    """A grammar's exact GBNF: ``text`` (root rule ``root``) and the number of DFA states it writes out."""

    text: str
    states: int


def to_gbnf(grammar: Grammar, max_states: int = MAX_GBNF_STATES, max_chars: int = MAX_GBNF_CHARS,
            seconds: float = GBNF_SECONDS, max_source: int = MAX_GBNF_SOURCE) -> Gbnf:
    """The exact GBNF of ``grammar``, or ``NotConvertible`` naming why there is none (or which budget it is over).

    Every construction step looks at the clock (the automata code is Corral's own, so it can), which bounds the
    conversion in any thread without a signal; a source longer than ``max_source`` is refused before any work."""
    try:
        dfa = regular_dfa(grammar, max_states=max_states, seconds=seconds, max_source=max_source)
    except RecursionError:
        raise NotConvertible("over the conversion time budget", "the grammar nests too deeply") from None
    return dfa_gbnf(dfa, max_states=max_states, max_chars=max_chars)


def dfa_gbnf(dfa: Dfa, max_states: int = MAX_GBNF_STATES, max_chars: int = MAX_GBNF_CHARS) -> Gbnf:
    """A right-linear GBNF for ``dfa``: rule ``root`` for its initial state, one rule per other live state.

    A state that accepts and has no way on is not a rule: a step into it is the character class alone. A state
    that accepts and goes on wraps its alternatives in ``( ... )?``."""
    live = dfa.live()
    if 0 not in live:
        raise NotConvertible("the grammar accepts no text")
    ends = {s for s in live if s in dfa.finals and not any(t in live for t in dfa.table[s])}
    names: dict[int, str] = {0: "root"}
    order = deque([0])
    rules: list[str] = []
    size = 0
    while order:
        state = order.popleft()
        targets: dict[int, list[tuple[int, int]]] = {}
        for ranges, target in zip(dfa.classes, dfa.table[state], strict=True):
            if target in live:
                targets.setdefault(target, []).extend(ranges)
        alternatives = []
        for target, pairs in sorted(targets.items(), key=lambda item: min(item[1])):
            ranges = normalize(pairs)
            if target in ends:
                alternatives.append(_class(ranges))
                continue
            if target not in names:
                names[target] = f"s{len(names)}"
                order.append(target)
            alternatives.append(f"{_class(ranges)} {names[target]}")
        if len(names) > max_states:
            raise NotConvertible("over the GBNF size budget", f"more than {max_states:,} rules")
        body = " | ".join(alternatives)
        if state in dfa.finals:
            body = f"({body})?" if body else '""'
        rules.append(f"{names[state]} ::= {body}")
        size += len(rules[-1]) + 1
        if size > max_chars:
            raise NotConvertible("over the GBNF size budget", f"more than {max_chars:,} characters")
    return Gbnf("\n".join(rules) + "\n", len(names))


_PLAIN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 !#$%&'()*+,./:;<=>?@_`{|}~")


def _char(point: int) -> str:
    """One code point inside a GBNF class: itself where it is plain ASCII or printable non-ASCII, else an escape."""
    char = chr(point)
    if char in _PLAIN or (point > 0x7F and char.isprintable() and not 0xD800 <= point <= 0xDFFF):
        return char
    if point <= 0xFF:
        return f"\\x{point:02X}"
    if point <= 0xFFFF:
        return f"\\u{point:04X}"
    return f"\\U{point:08X}"


def _class(ranges: Ranges) -> str:
    """A GBNF character class: ``[...]``, or ``[^...]`` where that is shorter."""
    rest = negate(ranges)
    plain = f"[{_ranges(ranges)}]"
    if not rest:
        return plain
    negated = f"[^{_ranges(rest)}]"
    return negated if len(negated) < len(plain) else plain


def _ranges(ranges: Ranges) -> str:
    return "".join(_char(a) if a == b else f"{_char(a)}{_char(b)}" if b == a + 1 else f"{_char(a)}-{_char(b)}"
                   for a, b in ranges)
