"""Token masks from a ``Grammar`` with llguidance: compiled matchers (cached by grammar hash) and mask application.

llguidance computes, for the text so far, the set of tokens that keep the output inside the grammar; backends
turn that bitmask into ``-inf`` logits. Compiling is per grammar and per tokenizer, so a prototype matcher is
built once per (tokenizer, grammar hash) and every sequence gets a cheap ``deep_copy`` of it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from corral.grammars import Grammar, GrammarError, MatcherCache, engine_limits

from ._repeats import TokenTable

# Compiled prototypes kept for reuse (samples and feedback rounds of one instance share its grammar). Each holds
# its lexer's state cache, which grows as outputs are decoded: a passage grammar of the natural-English shape grows
# by about 20 MB in its first 40 tokens, so 32 prototypes took the main job to 3.4 GB, and 4 hold it near 0.5 GB
# (measured with 24 COLLIE grammars). Compiling a prototype again costs about 0.07 s (the bundled model's
# vocabulary), so the cache is a batch's worth of grammars, not a run's: a backend that decodes one chain at a time
# (llama.cpp: an instance's rounds, then the next instance) keeps 2, where a sent04 grammar with three required
# words holds about 100 MB once decoded.
_CACHE_SIZE = 8


@dataclass
class MaskStats:
    """Where constrained decoding spends its time: compiles and full mask computations (seconds)."""

    compile_seconds: list[float] = field(default_factory=list)
    mask_seconds: list[float] = field(default_factory=list)
    accepted_tokens: int = 0  # the model's own choice, allowed by the grammar: no mask computed
    masked_tokens: int = 0  # refused, then sampled again under a full mask
    constraint_seconds: float = 0.0  # all time inside SequenceMask: checks, masks, consumes (not compiles)

    def masked_fraction(self) -> float:
        total = self.accepted_tokens + self.masked_tokens
        return self.masked_tokens / total if total else 0.0

    def p50_mask_us(self) -> float:
        return float(np.median(self.mask_seconds) * 1e6) if self.mask_seconds else 0.0


class MatcherFactory:
    """Fresh ``LLMatcher``s for one tokenizer; the compiled prototype of each grammar is cached (LRU)."""

    def __init__(self, tokenizer: object, vocab_size: int, kept: int = _CACHE_SIZE) -> None:
        self.tokenizer = tokenizer
        self.vocab_size = vocab_size
        self.stats = MaskStats()
        self._matchers = MatcherCache(kept=kept)
        self._token_table: TokenTable | None = None

    @property
    def token_table(self) -> TokenTable:
        """Every token's bytes (special tokens empty), for the repeat limit; built on first use (~10 ms)."""
        if self._token_table is None:
            tokenizer = self.tokenizer
            self._token_table = TokenTable(tuple(
                b"" if tokenizer.is_special_token(i) else tokenizer.decode_bytes([i])  # type: ignore[attr-defined]
                for i in range(self.vocab_size)))
        return self._token_table

    def matcher(self, grammar: Grammar):  # -> llguidance.LLMatcher
        return self._matchers.copy(grammar, self._compile)

    def _compile(self, grammar: Grammar):  # -> llguidance.LLMatcher
        from llguidance import LLMatcher

        started = time.perf_counter()
        matcher = LLMatcher(self.tokenizer, grammar.llguidance(), log_level=0, limits=engine_limits())
        self.stats.compile_seconds.append(time.perf_counter() - started)
        if matcher.is_error():
            raise GrammarError(f"grammar {grammar.description or grammar.hash} failed to compile: "
                               f"{matcher.get_error().splitlines()[0]}")
        return matcher

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
    """Keeps one sequence inside a grammar, model's choice first.

    A backend samples the next token as if unconstrained and offers it with ``accept``. Most tokens pass (about
    85% on COLLIE-v1, greedy), and checking one costs ~10 µs against ~450 µs for a full mask over the 49k
    SmolLM2 vocabulary. Only a refused token triggers ``forbid``, which computes the mask, sets every
    disallowed logit to ``-inf``; the backend then samples again and calls ``consume``. llama.cpp's common
    sampler uses the same grammar-first order.

    For greedy decoding and pure temperature sampling, the output is a token the model ranks highest, or draws,
    among those the grammar allows. llguidance's mask can be narrower than what the grammar accepts, because it
    prefers canonical tokenisations of forced text, so the model's own choice of a valid but non-canonical token
    is kept.
    """

    def __init__(self, factory: MatcherFactory, grammar: Grammar) -> None:
        self.factory = factory
        self.matcher = factory.matcher(grammar)
        self._words = factory.mask_buffer()[0]

    def accept(self, token: int) -> bool:
        """Consume the model's own choice if the grammar allows it (the fast path)."""
        started = time.perf_counter()
        ok = self.matcher.try_consume_tokens([token]) == 1
        stats = self.factory.stats
        stats.accepted_tokens += ok
        stats.constraint_seconds += time.perf_counter() - started
        return ok

    def forbid(self, logits: np.ndarray) -> bool:
        """Set every logit the grammar forbids to ``-inf``, in place; False when it allows nothing."""
        started = time.perf_counter()
        forbidden = self.factory.forbidden(self.matcher, self._words)
        n = min(len(logits), len(forbidden))
        np.copyto(logits[:n], -np.inf, where=forbidden[:n])
        if len(logits) > n:
            logits[n:] = -np.inf
        stats = self.factory.stats
        stats.masked_tokens += 1
        stats.constraint_seconds += time.perf_counter() - started
        return not bool(forbidden[:n].all())

    def consume(self, token: int) -> bool:
        """Consume a token sampled under the mask; False (and ``failed`` says why) if it left the grammar."""
        started = time.perf_counter()
        ok = bool(self.matcher.consume_token(token))
        self.factory.stats.constraint_seconds += time.perf_counter() - started
        return ok

    @property
    def failed(self) -> str | None:
        """The matcher's error, if the sequence ever left the grammar (a bug, never silent)."""
        return self.matcher.get_error() if self.matcher.is_error() else None
