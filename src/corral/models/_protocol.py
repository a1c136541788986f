"""The one model protocol: complete a batch of chat requests, each with sampling parameters and an optional grammar.

Requests and completions are plain frozen values so that a run store can record them and a cache can key on
them; backends are registered by name (``corral.registry.backends``) and know nothing of constraints.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Literal, Protocol, TypedDict, runtime_checkable

from corral.errors import ModelError as ModelError
from corral.text import scrub  # defined with Corral's other error roots; its home stays here

if TYPE_CHECKING:
    from corral.grammars import Grammar

Role = Literal["system", "user", "assistant"]
REPEAT_RULE = 2  # the revision of corral.decoding.RepeatGuard's rule, part of a cached response's key
FinishReason = Literal["stop", "length", "context", "error"]
MAX_PARTICLES = 64  # SMC particles per sample: each holds a sequence (its own KV stream) in the model's context


class Message(TypedDict):
    """One chat turn, in the OpenAI shape every backend understands."""

    role: Role
    content: str


@dataclass(frozen=True)
class Sampling:
    """Sampling parameters shared by every backend.

    ``temperature == 0`` is greedy decoding. ``seed`` makes sampling reproducible on local backends (sample ``i``
    of ``n`` uses ``seed + i``); servers receive it and may honour it. ``repeat_limit`` k > 0 refuses the token
    that would begin copy k + 1 of a block the output just repeated k times in a row (``corral.decoding.
    RepeatGuard``; local backends only).

    ``particles`` K >= 2 decodes a constrained request by sequential Monte Carlo over the grammar (llamacpp
    backend only; ``corral.models._llamacpp_smc``): K partial outputs drawn from the model restricted to what the
    grammar allows, weighted by how much of the model's probability the grammar kept, resampled when the weights
    degenerate, and one finished output drawn by weight: a sample of the model's own distribution given that the
    reply is in the grammar, where masking walks greedily into whatever the mask leaves open. The temperature
    tempers that distribution token by token, as free sampling at the same temperature tempers the model (1: the
    model's own; below 1: the likelier replies the grammar holds), so it must be > 0; top-p would truncate the
    proposal below the target's support, so it must be 1. 0 or 1 is ordinary decoding; a
    request with no grammar ignores it.
    """

    temperature: float = 0.0
    top_p: float = 1.0
    max_tokens: int = 256
    stop: tuple[str, ...] = ()
    seed: int | None = 0
    n: int = 1
    repeat_limit: int = 0
    particles: int = 0

    def __post_init__(self) -> None:
        if not (math.isfinite(self.temperature) and self.temperature >= 0):
            raise ValueError(f"temperature must be a finite number >= 0, got {self.temperature}")
        if not 0 < self.top_p <= 1:  # nan is refused too: it compares false
            raise ValueError(f"top_p must be in (0, 1], got {self.top_p}")
        if self.max_tokens < 1:
            raise ValueError(f"max_tokens must be >= 1, got {self.max_tokens}")
        if self.n < 1:
            raise ValueError(f"n must be >= 1, got {self.n}")
        if self.repeat_limit < 0:
            raise ValueError(f"repeat_limit must be >= 0 (0 is off), got {self.repeat_limit}")
        if not 0 <= self.particles <= MAX_PARTICLES:
            raise ValueError(f"particles must be in 0..{MAX_PARTICLES} (0 or 1: no SMC), got {self.particles}")
        if self.particles >= 2 and self.top_p != 1:
            raise ValueError(f"particles >= 2 (SMC) needs top_p == 1: top-p would cut the proposal below the "
                             f"target's support, got top_p={self.top_p}")
        if self.particles >= 2 and self.temperature == 0:
            raise ValueError("particles >= 2 (SMC) draws each particle's tokens: the temperature must be > 0")
        if isinstance(self.stop, str | list):
            object.__setattr__(self, "stop", (self.stop,) if isinstance(self.stop, str) else tuple(self.stop))

    def seed_for(self, i: int) -> int | None:
        """The seed of the ``i``-th of ``n`` samples."""
        return None if self.seed is None else self.seed + i


@dataclass(frozen=True)
class Request:
    """A chat to complete: messages, sampling, and an optional grammar the output must follow."""

    messages: tuple[Message, ...]
    sampling: Sampling = field(default_factory=Sampling)
    grammar: Grammar | None = None

    def __post_init__(self) -> None:
        if isinstance(self.messages, list):
            object.__setattr__(self, "messages", tuple(self.messages))
        if not self.messages:
            raise ValueError("a request needs at least one message")
        for i, message in enumerate(self.messages):
            if not isinstance(message, dict) or message.get("role") not in ("system", "user", "assistant"):
                raise ValueError(f"messages[{i}] must be a dict with role system, user or assistant")
            if not isinstance(message.get("content"), str):
                raise ValueError(f"messages[{i}].content must be a string")

    @classmethod
    def user(cls, prompt: str, sampling: Sampling | None = None, grammar: Grammar | None = None) -> Request:
        """A one-turn request."""
        return cls(({"role": "user", "content": prompt},), sampling or Sampling(), grammar)

    def key(self, backend: str, model: str) -> str:
        """A stable hash of everything that determines the output (the response cache's key)."""
        sampling = asdict(self.sampling)
        if not sampling["repeat_limit"]:  # added later: off keeps the keys of earlier cached responses
            del sampling["repeat_limit"]
        if sampling["particles"] < 2:  # likewise: 0 and 1 are the decoding that came before particles
            del sampling["particles"]
        data = {
            "backend": backend,
            "model": model,
            "messages": list(self.messages),
            "sampling": sampling,
            "grammar": self.grammar.hash if self.grammar is not None else None,
        }
        if self.sampling.repeat_limit:  # the rule's revision: a changed rule gives other outputs
            data["repeat_rule"] = REPEAT_RULE
        if self.sampling.particles >= 2 and self.sampling.temperature != 1:
            # SMC below or above T 1 once targeted the untempered model; it now targets the tempered one
            data["smc_target"] = "tempered"
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


@dataclass(frozen=True)
class Completion:
    """One sampled output with its accounting.

    ``finish_reason`` is ``stop`` (end of turn, a stop string, or the grammar's end), ``length`` (``max_tokens``
    reached), ``context`` (the prompt leaves no room in the model's context: nothing was generated, and asking
    again cannot help; ``error`` says by how much) or ``error`` (the backend failed for this sample; ``error``
    says why; nothing is lost silently).

    ``likelihood``: the text's ``Likelihood`` under the model with no grammar, where the backend found it while
    decoding (llama.cpp reads the raw logits it already has, before any mask, and keeps the figure only when the
    tokens it wrote are the text's canonical tokens, the ones ``Scorer.score`` would score); None where it did not,
    and the figure is then scored after the run as before. It saves a second forward pass over chat and reply.

    SMC decoding (``Sampling.particles``) adds diagnostics: ``log_evidence``, the log of the particles' mean final
    weight, an estimate of log P(the model's reply, within ``max_tokens``, is in the grammar) (None when no
    particle finished, or without SMC), and ``particles_finished``, how many particles ended by themselves.

    ``reasoning``: the thinking a server's reasoning parser separated from the reply (vLLM's and SGLang's
    ``message.reasoning_content``); ``text`` is then the answer alone. None where the reply had none (a local
    model's thinking, if any, is part of ``text``).
    """

    text: str
    finish_reason: FinishReason
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    constrained: bool = False
    error: str | None = None
    replaced: int = 0  # lone surrogates in the model's text, replaced by U+FFFD where it entered (text.scrub)
    log_evidence: float | None = None  # SMC only (Sampling.particles)
    particles_finished: int = 0  # SMC only
    likelihood: Likelihood | None = None  # found while decoding, where the backend could
    reasoning: str | None = None  # a served reply's separated thinking

    def __post_init__(self) -> None:
        if isinstance(self.likelihood, dict):  # read back from JSON (the response cache)
            object.__setattr__(self, "likelihood", Likelihood(**self.likelihood))
        # every backend's text passes here, and so does a cached one: nothing unencodable reaches a record
        text, replaced = scrub(self.text)
        if replaced:
            object.__setattr__(self, "text", text)
            object.__setattr__(self, "replaced", self.replaced + replaced)
        if self.error is not None:
            object.__setattr__(self, "error", scrub(self.error)[0])
        if self.reasoning is not None:
            thinking, replaced = scrub(self.reasoning)
            object.__setattr__(self, "reasoning", thinking)
            object.__setattr__(self, "replaced", self.replaced + replaced)

    @property
    def tokens_per_second(self) -> float:
        return self.completion_tokens / self.seconds if self.seconds > 0 else 0.0


@dataclass(frozen=True)
class Likelihood:
    """How likely a model finds a text as the assistant's reply to a chat, with no grammar: the text's own tokens
    (``tokens``, its canonical tokenisation; the end-of-turn token is not counted) and the natural-log probability
    of all of them (``logprob``, <= 0).

    Why the canonical tokenisation: a constrained decoder may reach a text through an unusual split of it, and
    what a fluency figure asks is how likely the *text* is, not the path the decoder took.
    """

    tokens: int
    logprob: float

    def __post_init__(self) -> None:
        if self.tokens < 0:
            raise ValueError(f"tokens must be >= 0, got {self.tokens}")

    @property
    def nll_per_token(self) -> float | None:
        """The mean negative log-likelihood per token (nats); None for an empty text."""
        return -self.logprob / self.tokens if self.tokens else None


@runtime_checkable
class Scorer(Protocol):
    """The optional half of the protocol: how likely the model finds each reply, scored without any grammar.

    ``score(requests, texts)`` gives, per pair, the ``Likelihood`` of ``texts[i]`` as the assistant's reply after
    ``requests[i].messages`` (the request's sampling and grammar are ignored), or None where it cannot be scored
    (the chat does not fit the context, or the backend cannot score at all: a served model). Backends that cannot
    score need not define it; ``score_texts`` answers None for them.
    """

    def score(self, requests: Sequence[Request], texts: Sequence[str]) -> list[Likelihood | None]: ...


def score_texts(model: object, requests: Sequence[Request], texts: Sequence[str]) -> list[Likelihood | None]:
    """``model.score(requests, texts)`` when the model scores texts, else None for each."""
    if len(requests) != len(texts):
        raise ValueError(f"{len(requests)} requests but {len(texts)} texts")
    if not isinstance(model, Scorer):
        return [None] * len(texts)
    scores = model.score(requests, texts)
    if len(scores) != len(texts):
        raise ModelError(f"{type(model).__name__}.score gave {len(scores)} scores for {len(texts)} texts")
    return scores


@runtime_checkable
class Model(Protocol):
    """What every backend provides. ``complete`` returns, per request, its ``sampling.n`` completions in order.

    A backend may also say where it computes, as a ``runtime`` string (llama.cpp's CPU variant and the CPU, the
    torch build): greedy outputs differ slightly between instruction sets, so runs record it. A backend may also
    score texts (``Scorer``): the fluency metrics and the ``rerank`` strategy read it through ``score_texts``.
    """

    backend: str
    name: str

    def complete(self, requests: Sequence[Request]) -> list[list[Completion]]: ...

    def close(self) -> None: ...
