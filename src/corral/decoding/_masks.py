"""Token masks from a ``Grammar`` with llguidance: compiled matchers (cached by grammar hash) and mask application.

llguidance computes, for the text so far, the set of tokens that keep the output inside the grammar; backends
turn that bitmask into ``-inf`` logits. Compiling is per grammar and per tokenizer, so a prototype matcher is
built once per (tokenizer, grammar hash) and every sequence gets a cheap ``deep_copy`` of it.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np

from corral.grammars import Grammar, GrammarError

_CACHE_SIZE = 512


@dataclass
class MaskStats:
    """Where constrained decoding spends its time: compiles and per-token mask computations (seconds)."""

    compile_seconds: list[float] = field(default_factory=list)
    mask_seconds: list[float] = field(default_factory=list)

    def p50_mask_us(self) -> float:
        return float(np.median(self.mask_seconds) * 1e6) if self.mask_seconds else 0.0


class MatcherFactory:
    """Fresh ``LLMatcher``s for one tokenizer; the compiled prototype of each grammar is cached (LRU)."""

    def __init__(self, tokenizer: object, vocab_size: int) -> None:
        self.tokenizer = tokenizer
        self.vocab_size = vocab_size
        self.stats = MaskStats()
        self._prototypes: OrderedDict[str, object] = OrderedDict()
        self._lock = threading.Lock()

    def matcher(self, grammar: Grammar):  # -> llguidance.LLMatcher
        from llguidance import LLMatcher

        with self._lock:
            proto = self._prototypes.get(grammar.hash)
            if proto is not None:
                self._prototypes.move_to_end(grammar.hash)
        if proto is None:
            started = time.perf_counter()
            proto = LLMatcher(self.tokenizer, grammar.llguidance(), log_level=0)
            self.stats.compile_seconds.append(time.perf_counter() - started)
            if proto.is_error():
                raise GrammarError(f"grammar {grammar.description or grammar.hash} failed to compile: "
                                   f"{proto.get_error().splitlines()[0]}")
            with self._lock:
                self._prototypes[grammar.hash] = proto
                while len(self._prototypes) > _CACHE_SIZE:
                    self._prototypes.popitem(last=False)
        return proto.deep_copy()

    def allowed(self, matcher, words: np.ndarray) -> np.ndarray:
        """The boolean allow-list of the next token (``words`` is a reusable int32 buffer of the mask's size)."""
        started = time.perf_counter()
        matcher.unsafe_compute_mask_ptr(words.ctypes.data, words.nbytes)
        allowed = np.unpackbits(words.view(np.uint8), bitorder="little")[: self.vocab_size].view(np.bool_)
        self.stats.mask_seconds.append(time.perf_counter() - started)
        return allowed

    def forbidden(self, matcher, words: np.ndarray) -> np.ndarray:
        """The boolean list of tokens to forbid next (the complement, unpacked directly: one pass fewer)."""
        started = time.perf_counter()
        matcher.unsafe_compute_mask_ptr(words.ctypes.data, words.nbytes)
        np.invert(words, out=words)
        forbidden = np.unpackbits(words.view(np.uint8), bitorder="little")[: self.vocab_size].view(np.bool_)
        self.stats.mask_seconds.append(time.perf_counter() - started)
        return forbidden

    def mask_buffer(self, rows: int = 1) -> np.ndarray:
        return np.zeros((rows, (self.vocab_size + 31) // 32), dtype=np.int32)


class SequenceMask:
    """A llama-cpp-python logits processor that keeps one sequence inside a grammar.

    It is called with all token ids so far (prompt included) and the next token's logits; it feeds the tokens
    sampled since the last call to the matcher, then sets every disallowed logit to ``-inf``.
    """

    def __init__(self, factory: MatcherFactory, grammar: Grammar) -> None:
        self.factory = factory
        self.matcher = factory.matcher(grammar)
        self._words = factory.mask_buffer()[0]
        self._seen: int | None = None

    def __call__(self, input_ids: np.ndarray, scores: np.ndarray) -> np.ndarray:
        if self._seen is None:
            self._seen = len(input_ids)
        else:
            for token in input_ids[self._seen:]:
                self.matcher.consume_token(int(token))
            self._seen = len(input_ids)
        forbidden = self.factory.forbidden(self.matcher, self._words)
        n = min(len(scores), len(forbidden))
        np.copyto(scores[:n], -np.inf, where=forbidden[:n])
        if len(scores) > n:
            scores[n:] = -np.inf
        return scores

    @property
    def failed(self) -> str | None:
        """The matcher's error, if the sampled tokens ever left the grammar (a bug, never silent)."""
        return self.matcher.get_error() if self.matcher.is_error() else None
