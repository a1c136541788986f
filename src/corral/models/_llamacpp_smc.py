"""Sequential Monte Carlo over a grammar for the llamacpp backend (``Sampling.particles`` >= 2).

Why: masked decoding ("locally constrained" sampling: the model's token, or the best one the mask leaves) draws
from a distorted distribution. Where the grammar refuses what the model wants, the mask pushes the output into
whatever stays open, and each forced token is a commitment the model never made: outputs walk into low-probability
dead ends (on COLLIE-v1 the NLL/token of masked outputs is several times that of free decoding). The target here is
the model's own distribution over complete replies given that the reply is in the grammar, p(x | x in G), with
replies longer than ``max_tokens`` left out (and, when a repeat limit is set, replies it refuses). At a temperature
T other than 1 the model is tempered token by token, as free sampling at T tempers it: the target is then
p_T(x | x in G) with p_T(x) = prod_t softmax(logits_t / T)[x_t], so T < 1 asks for the likelier replies the
grammar holds (as T -> 0, the reply whose tokens stray least from the model's own choices) rather than a draw at
the model's own entropy.

How (Lew et al. 2023, "SMC steering"; Loula et al. 2025): K particles, each a partial output with its own
llguidance matcher (and repeat guard), advance one token per step. Particle k draws x_t from the proposal
q_t = softmax(logits / T) restricted to the tokens the grammar allows, and its log weight grows by
log p_T,t(x_t) - log q_t(x_t) = log of the tempered probability mass the grammar kept, whatever token was drawn
(``step_weight``). A particle whose prefix the model finds
unlikely under the grammar thus loses weight, and when the effective sample size of the live particles falls
below half their number they are resampled (systematic resampling): heavy particles are copied over light ones,
each keeping the live particles' mean weight, so the population's total weight, and the estimate it gives, is
unchanged. End of turn is allowed only where the grammar accepts; a particle that draws it is finished and kept
frozen with its weight. At the end one finished particle is drawn in proportion to its weight.

The live particles decode in one llama.cpp batch per step (particles with the same output so far once, the
copy then shared), each in its own stream of the model's ``StreamContext`` (non-unified KV: each particle's
attention covers only its own cells and its logits equal a lone sequence's). The prompt is decoded once for stream
0 and copied to the others; resampling copies a parent's stream onto the child's.

Costs: every particle computes a full llguidance mask every step (the masked path computes one only where the
model's own token is refused), ~0.5 ms per mask on COLLIE grammars against ~20 ms for a decoding step; the
numerics touch one float32 row of logits per particle (no copies kept). llguidance's mask may be narrower than
its grammar (canonical tokenisations of forced text), so the target is over the token paths the mask allows.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace
from typing import Any, Protocol

import numpy as np

from corral.decoding import MatcherFactory, RepeatGuard

from ._llamacpp_streams import StreamContext
from ._protocol import Completion, Request
from ._threads import PACE_TOKENS


class _Host(Protocol):
    """What ``smc_sample`` uses of the llama.cpp model that runs it (``LlamaCppModel``, which imports this module)."""

    _llama: Any

    @property
    def masks(self) -> MatcherFactory: ...

    def _stream_context(self, streams: int, cells: int) -> StreamContext: ...

    def _pace(self) -> None: ...



def log_normalize(log_weights: np.ndarray) -> np.ndarray:
    """Normalised weights (summing to 1) from log weights; -inf entries get 0. All -inf gives uniform weights."""
    w = np.asarray(log_weights, dtype=np.float64)
    top = w.max() if len(w) else -np.inf
    if not np.isfinite(top):
        return np.full(len(w), 1.0 / len(w)) if len(w) else w
    p = np.exp(w - top)
    return p / p.sum()


def effective_sample_size(log_weights: np.ndarray) -> float:
    """Kish's ESS, (sum w)^2 / sum w^2, from log weights: n for equal weights, 1 when one particle has them all,
    0 when every weight is zero."""
    w = np.asarray(log_weights, dtype=np.float64)
    if not len(w) or not np.isfinite(w.max()):
        return 0.0
    p = log_normalize(w)
    return float(1.0 / np.square(p).sum())


def systematic_counts(weights: np.ndarray, u: float) -> np.ndarray:
    """How many copies of each particle systematic resampling keeps: n points u/n, (u+1)/n, ... laid over the
    cumulative normalised ``weights`` (u in [0, 1)). The counts sum to n and each is floor(n w) or ceil(n w): the
    lowest variance of the usual schemes."""
    n = len(weights)
    cumulative = np.cumsum(weights)
    cumulative[-1] = 1.0  # rounding must never leave a point past the end
    points = (u + np.arange(n)) / n  # the last can round to 1.0 (u just under 1): it belongs to the last particle
    return np.bincount(np.minimum(np.searchsorted(cumulative, points, side="right"), n - 1), minlength=n)


def parents_from_counts(counts: np.ndarray) -> np.ndarray:
    """Which particle each slot copies after resampling: a particle that survives keeps its own slot (no copy), and
    its extra copies go to the slots of those that did not survive. Copies then only ever read a survivor's slot and
    write a non-survivor's, so they can be done in any order."""
    n = len(counts)
    parents = np.arange(n)
    free = [j for j in range(n) if counts[j] == 0]
    for j in range(n):
        for _ in range(int(counts[j]) - 1):
            parents[free.pop()] = j
    return parents


@dataclass
class _Particle:
    matcher: object  # llguidance.LLMatcher
    guard: RepeatGuard | None
    tokens: list[int]
    pieces: bytearray  # the output's bytes, kept only when stop strings are watched
    log_weight: float = 0.0
    finished: bool = False  # ended by itself (end of turn or a stop string): frozen, a complete reply
    error: str | None = None  # the grammar allowed nothing, or a token left it: dropped (weight -inf)

    def copy(self) -> _Particle:
        guard = None if self.guard is None else replace(self.guard, text=bytearray(self.guard.text))
        return _Particle(self.matcher.deep_copy(), guard, list(self.tokens),  # type: ignore[attr-defined]
                         bytearray(self.pieces), self.log_weight, self.finished, self.error)

    @property
    def live(self) -> bool:
        return not self.finished and self.error is None


def _logsumexp(values: np.ndarray) -> float:
    top = float(values.max())
    return top + math.log(float(np.exp(values - top).sum()))


def smc_sample(model: _Host, request: Request, prompt: list[int], steps: int, index: int,
               started: float) -> Completion:
    """Sample ``index`` of ``request`` by SMC with ``request.sampling.particles`` particles (see the module)."""
    import llama_cpp

    sampling, grammar = request.sampling, request.grammar
    assert grammar is not None and sampling.particles >= 2
    n, temperature = sampling.particles, sampling.temperature
    seed = sampling.seed_for(index)
    rng = np.random.default_rng(None if seed is None else seed % 2**64)
    factory, llama = model.masks, model._llama
    vocab, n_vocab = llama._model.vocab, llama.n_vocab()
    smc = model._stream_context(n, len(prompt) + steps + 1)
    stops = [s.encode("utf-8") for s in sampling.stop if s]
    words = factory.mask_buffer()[0]
    first = _Particle(factory.matcher(grammar),
                      RepeatGuard(sampling.repeat_limit, factory.token_table) if sampling.repeat_limit else None,
                      [], bytearray())
    particles = [first] + [first.copy() for _ in range(n - 1)]

    first_row = smc.start(prompt, n_vocab)
    for k in range(1, n):
        smc.copy_sequence(0, k)
    rows: dict[int, int] | None = None  # particle -> its row in the last batch (None: the prompt's last logits)

    for step in range(steps):
        if step % PACE_TOKENS == PACE_TOKENS - 1:
            model._pace()
        for k, particle in enumerate(particles):
            if particle.live:
                row = first_row if rows is None else smc.logits(rows[k], n_vocab)
                _advance(particle, row, factory, words, temperature, rng, vocab, stops, llama_cpp)
        live = [k for k, p in enumerate(particles) if p.live]
        if not live or step == steps - 1:
            break
        _resample(particles, live, smc, rng)
        rows = _decode_distinct(particles, live, smc, len(prompt))

    finished = [k for k, p in enumerate(particles) if p.finished and math.isfinite(p.log_weight)]
    evidence = None
    if finished:
        weights = np.array([particles[k].log_weight for k in finished])
        chosen = particles[finished[int(rng.choice(len(finished), p=log_normalize(weights)))]]
        evidence = _logsumexp(weights) - math.log(n)
        finish, error = "stop", None
    else:
        candidates = [p for p in particles if p.error is None] or particles
        chosen = max(candidates, key=lambda p: (len(p.tokens), p.log_weight))
        error = chosen.error
        finish = "error" if error else "length"
    raw = bytes(chosen.pieces) if stops else llama.detokenize(chosen.tokens)
    return Completion(
        text=raw.decode("utf-8", errors="ignore"),
        finish_reason=finish,  # type: ignore[arg-type]
        prompt_tokens=len(prompt),
        completion_tokens=len(chosen.tokens),
        seconds=time.perf_counter() - started,
        constrained=True,
        error=error,
        log_evidence=evidence,
        particles_finished=sum(p.finished for p in particles),
    )


def step_weight(row: np.ndarray, allowed: np.ndarray, temperature: float) -> tuple[np.ndarray, float]:
    """One step of SMC: the proposal's log probabilities over the ``allowed`` token ids (the tempered model
    restricted to them, renormalised) and the log weight increment, log p_T(x) - log q(x) for whichever allowed x is
    drawn: the log of the tempered model's mass on the allowed tokens, log Z_T(allowed) - log Z_T(all). Proposal
    and target are tempered alike, so the increment does not depend on the token."""
    scaled = row.astype(np.float64) / temperature
    kept = scaled[allowed]
    log_kept = _logsumexp(kept)
    return kept - log_kept, log_kept - _logsumexp(scaled)


def _advance(particle: _Particle, row: np.ndarray, factory, words: np.ndarray, temperature: float,
             rng: np.random.Generator, vocab, stops: list[bytes], llama_cpp) -> None:
    """Draw the particle's next token from the proposal, add the incremental log weight, and consume it."""
    started = time.perf_counter()
    allowed = ~factory.forbidden(particle.matcher, words)
    if particle.guard is not None:
        refused = particle.guard.refused()
        if refused:
            index = np.fromiter(refused, dtype=np.int64)
            kept = allowed[index].copy()
            allowed[index] = False
            if not allowed.any():  # the grammar wins over the repeat limit, as in the masked path
                allowed[index] = kept
    ids = np.flatnonzero(allowed)
    factory.stats.constraint_seconds += time.perf_counter() - started
    if not len(ids):
        particle.error = f"the grammar allows no next token: {particle.matcher.get_error() or 'nothing allowed'}"
        particle.log_weight = -math.inf
        return
    log_q, increment = step_weight(row, ids, temperature)
    cumulative = np.cumsum(np.exp(log_q))
    j = min(int(np.searchsorted(cumulative, rng.random() * cumulative[-1], side="right")), len(ids) - 1)
    token = int(ids[j])
    particle.log_weight += increment
    if llama_cpp.llama_vocab_is_eog(vocab, token):
        particle.finished = True
        return
    started = time.perf_counter()
    ok = particle.matcher.consume_token(token)
    factory.stats.constraint_seconds += time.perf_counter() - started
    if not ok:
        particle.error = f"the output left the grammar: {particle.matcher.get_error()}"
        particle.log_weight = -math.inf
        return
    particle.tokens.append(token)
    if particle.guard is not None:
        particle.guard.push(token)
    if stops:
        particle.pieces += factory.token_table.texts[token]
        found = [i for i in (particle.pieces.find(stop) for stop in stops) if i >= 0]
        if found:
            del particle.pieces[min(found):]
            particle.finished = True


def _decode_distinct(particles: list[_Particle], live: list[int], smc: StreamContext, offset: int) -> dict[int, int]:
    """Decode each live particle's last token, once per distinct output: particles with the same tokens (copies
    of one parent after resampling that drew the same token, or several first draws of one token) have the same
    KV state and logits, so one of them is decoded and its sequence copied over the others'. On a CPU a batch
    costs about as much per token as lone steps, so this saves whole tokens of compute where the model is sure
    (a copy of a KV stream is a memcpy). llama.cpp applies queued copies in order, so a copy made here and one
    made by the next resampling from the same slot compose. Returns each live particle's row in the batch."""
    entries: list[tuple[int, int, int, bool]] = []
    rows: dict[int, int] = {}
    first_of: dict[tuple[int, ...], int] = {}
    twins: list[tuple[int, int]] = []
    for k in live:
        tokens = particles[k].tokens
        source = first_of.setdefault(tuple(tokens), k)
        if source != k:
            twins.append((source, k))
            continue
        rows[k] = len(entries)
        entries.append((tokens[-1], offset + len(tokens) - 1, k, True))
    smc.decode(entries)
    for source, k in twins:
        smc.copy_sequence(source, k)
        rows[k] = rows[source]
    return rows


def _resample(particles: list[_Particle], live: list[int], smc: StreamContext, rng: np.random.Generator) -> None:
    """Systematic resampling of the live particles when their ESS is below half their number; each then carries
    their mean weight (finished particles keep theirs: the population's total weight is unchanged)."""
    weights = np.array([particles[k].log_weight for k in live])
    if len(live) < 2 or effective_sample_size(weights) >= len(live) / 2:
        return
    mean = _logsumexp(weights) - math.log(len(live))
    parents = parents_from_counts(systematic_counts(log_normalize(weights), float(rng.random())))
    for slot, parent in enumerate(parents):
        if parent != slot:
            particles[live[slot]] = particles[live[parent]].copy()
            smc.copy_sequence(live[parent], live[slot])
    for k in live:
        particles[k].log_weight = mean
