"""Texts drawn from a grammar without a model: over a byte-level vocabulary, guided by llguidance's masks.

Used to verify compiled grammars (a witness must pass the checker) and by the property tests that sample many
texts from a grammar. Every byte is a token, so the walk can produce any string of the grammar.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import ClassVar

import numpy as np

from ._budget import tick
from ._grammar import Grammar, MatcherCache, engine_limits

EOS = 256


class _Bytes:
    """The smallest tokenizer llguidance accepts: 256 byte tokens and an end-of-sequence token."""

    eos_token_id = EOS
    bos_token_id = None
    tokens: ClassVar[list[bytes]] = [bytes([i]) for i in range(256)] + [b"\xff<eos>"]
    special_token_ids: ClassVar[list[int]] = [EOS]

    def __call__(self, data: bytes) -> list[int]:
        return list(data)


@lru_cache(maxsize=1)
def byte_tokenizer():  # -> llguidance.LLTokenizer
    import llguidance

    return llguidance.LLTokenizer(llguidance.TokenizerWrapper(_Bytes()))


# compiling a constraint checks its grammar with about six fresh matchers (the engine check, the witness candidates,
# the searches): copies of the last two grammars' prototypes (half of compile_constraint's time on COLLIE-v1)
_MATCHERS = MatcherCache(kept=2)


def _compile_bytes(grammar: Grammar):  # -> llguidance.LLMatcher
    from llguidance import LLMatcher

    matcher = LLMatcher(byte_tokenizer(), grammar.llguidance(), log_level=0, limits=engine_limits())
    if matcher.is_error():
        raise ValueError(matcher.get_error())
    return matcher


def byte_matcher(grammar: Grammar):  # -> llguidance.LLMatcher
    """A fresh byte-level matcher of ``grammar``."""
    return _MATCHERS.copy(grammar, _compile_bytes)


def release(grammar: Grammar) -> None:
    """Drop ``grammar``'s byte-level prototype: a compiled constraint's checks are done, and what decodes it next
    is a model's matcher, not this one (a sent04 grammar with three words kept about 100 MB here)."""
    _MATCHERS.drop(grammar)


def engine_check(grammar: Grammar) -> str | None:
    """The engine's complaint about ``grammar`` (e.g. lexer fuel exhausted on a hard intersection), if any."""
    try:
        matcher = byte_matcher(grammar)
    except ValueError as exc:
        return str(exc).splitlines()[0]
    matcher.compute_bitmask()
    return matcher.get_error().splitlines()[0] if matcher.is_error() else None


def allowed_bytes(matcher) -> list[int]:
    """The byte tokens (and ``EOS``) a byte-level matcher allows next."""
    return _allowed_in(matcher.compute_bitmask())


def _allowed_in(bitmask: bytes) -> list[int]:
    """The byte tokens (and ``EOS``) a byte-level bitmask allows."""
    mask = np.frombuffer(bitmask, dtype=np.uint8)
    return np.flatnonzero(np.unpackbits(mask, bitorder="little")[: EOS + 1]).tolist()


def accepts(grammar: Grammar, text: str) -> bool:
    """Whether ``text`` is a complete sentence of ``grammar``."""
    matcher = byte_matcher(grammar)
    return matcher.consume_tokens(list(text.encode())) and matcher.is_accepting()


_LETTERS = [ord(c) for c in "etaoinshrdlu"]


def _preference(text: bytes, after_chunk: bool = False) -> list[int]:
    """Bytes to try first: end as soon as allowed, words of about three letters, sentences of about five words;
    after a period a space (a period may also join the parts of one word, ``U.S``), after a space a letter."""
    run = len(text) - len(text.rstrip(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"))
    letters = [_LETTERS[(len(text) + i) % len(_LETTERS)] for i in range(len(_LETTERS))]
    capitals = [c - 32 for c in letters]
    if text[-1:] in (b".", b"!", b"?"):
        return [EOS, ord(" "), ord("\n"), *capitals, *letters]
    if text[-1:] in (b" ", b"\n", b""):
        return [*letters, *capitals]
    if run < 3 and not after_chunk:
        return [EOS, *letters, ord("."), ord(" "), ord("\n")]
    sentence = text[max(text.rfind(b"."), text.rfind(b"\n")) + 1:]
    if sentence.count(b" ") >= 4:
        return [EOS, ord("."), ord(" "), ord("\n"), *letters]
    return [EOS, ord(" "), ord("."), ord("\n"), *letters]


_PLAIN_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ ,.\n") | {EOS}


def witness(grammar: Grammar, hints: tuple[str, ...] = (), budget: int = 20_000, max_bytes: int = 4_000) -> str | None:
    """A text of ``grammar`` (depth-first, backtracking on dead ends), or None if none was found in ``budget``.

    ``hints`` are strings worth trying whole at each step (the constraint's own words and sentences): a
    byte-by-byte search would almost never spell a required word. The search first keeps to letters, spaces,
    commas, periods and line breaks, where a grammar of natural text has the fewest dead ends, and only then
    tries every byte.
    """
    for candidate in _candidates(hints):
        if accepts(grammar, candidate):
            return candidate
    found = _search(grammar, hints, budget // 2, max_bytes, _PLAIN_BYTES)
    return found if found is not None else _search(grammar, hints, budget // 2, max_bytes, None)


def _candidates(hints: tuple[str, ...]) -> list[str]:
    """Sentences made of the hints' words, tried whole before any search (a text that must hold several given
    words is found at once)."""
    words: dict[str, str] = {}
    for hint in hints:
        if hint and " " not in hint and hint.strip(".") == hint:
            words.setdefault(hint.lower(), hint)
    if not words:
        return []
    body = " ".join(words.values())
    first = body[:1].upper() + body[1:]
    return [f"{first}.", f"The {body} thing.", f"{first} thing."]


def _search(grammar: Grammar, hints: tuple[str, ...], budget: int, max_bytes: int,
            alphabet: frozenset[int] | None) -> str | None:
    matcher = byte_matcher(grammar)
    chunks = [h.encode() for h in dict.fromkeys(hints) if h]
    out = bytearray()
    stack: list[list[bytes | int]] = []  # per step: the options not tried yet
    taken: list[int] = []  # bytes consumed per step
    steps = 0
    while steps < budget:
        steps += 1
        tick()  # a compile's witness search counts against the compile's budget
        if len(stack) == len(taken):
            every = set(allowed_bytes(matcher))
            allowed = every & alphabet if alphabet is not None else every
            at_start = not out or not chr(out[-1]).isalpha()
            # a word hint once per sentence (each sentence of a paragraph may need the same word), a sentence hint
            # once in the text
            sentence = out[max(out.rfind(b". "), out.rfind(b"! "), out.rfind(b"? "), out.rfind(b"\n")) + 1:]
            first = [c for c in chunks if at_start and c[0] in every and c not in (out if b" " in c else sentence)]
            after_chunk = bool(taken) and taken[-1] > 1
            order = [b for b in _preference(bytes(out), after_chunk) if b in allowed]
            order += sorted(allowed.difference(order))
            if len(out) >= max_bytes:
                order = [EOS] if EOS in allowed else []
            stack.append([*first, *order])
        options = stack[-1]
        if not options:
            stack.pop()
            if not taken:
                return None
            n = taken.pop()
            del out[len(out) - n:]
            matcher.rollback(n)
            stack[-1].pop(0)
            continue
        option = options[0]
        if option == EOS:
            if matcher.is_accepting():
                return out.decode("utf-8", errors="replace")
            options.pop(0)
            continue
        data = bytes([option]) if isinstance(option, int) else option
        n = matcher.try_consume_tokens(list(data))
        if n < len(data):
            if n:
                matcher.rollback(n)
            options.pop(0)
            continue
        out += data
        taken.append(len(data))
    return None


def random_walk(seed: int, stop: float = 0.2, close: float = 0.0,
                closers: bytes = b'"]})') -> Callable[[list[int]], int]:
    """A ``choose`` for ``sample``: a seeded random byte that ends with probability ``stop`` whenever the grammar
    allows the end (so drawn values vary in size).

    ``close``: the probability of taking one of ``closers`` (a quote, a bracket) whenever the grammar allows one.
    A uniform byte ends a JSON string about once in 200 bytes, so a schema with many required strings drew
    texts of 10,000 bytes; a model writes short values, and so does this walk with ``close`` at 0.5."""
    import random

    rng = random.Random(seed)

    def choose(allowed: list[int]) -> int:
        if EOS in allowed and rng.random() < stop:
            return EOS
        others = [a for a in allowed if a != EOS] or allowed
        if close:
            ending = [a for a in others if a < EOS and a in closers]
            if ending and rng.random() < close:
                return rng.choice(ending)
        return rng.choice(others)

    return choose


def sample(grammar: Grammar, choose: Callable[[list[int]], int], max_bytes: int = 2_000,
           strict: bool = False) -> str | None:
    """A random text of ``grammar``: ``choose`` picks the next byte among the allowed (``EOS`` = 256 ends).

    Returns None if the walk reaches ``max_bytes`` first (the caller decides whether that matters), or reaches
    a dead end: a prefix the grammar allows but cannot complete. ``strict`` raises ``ValueError`` on a dead
    end instead, since for a compiled grammar it is a bug (decoding there can only stop mid-text).
    """
    matcher = byte_matcher(grammar)
    out = bytearray()
    while len(out) < max_bytes:
        allowed = allowed_bytes(matcher)
        if not allowed or (allowed == [EOS] and not matcher.is_accepting()):
            if strict:
                raise ValueError(f"dead end after {out.decode('utf-8', errors='replace')!r}")
            return None
        token = choose(allowed)
        if token == EOS:
            if matcher.is_accepting():
                return out.decode("utf-8", errors="replace")
            if strict:
                raise ValueError(f"end allowed but not accepting after {out.decode('utf-8', errors='replace')!r}")
            return None
        if not matcher.consume_token(token):
            if strict:
                raise ValueError(f"allowed byte {token} refused after {out.decode('utf-8', errors='replace')!r}")
            return None
        out.append(token)
    return None
