"""The ``rerank`` strategy: draw k constrained candidates, keep the one the unconstrained model finds most likely.

Why: a grammar's token masks renormalise the model's distribution one step at a time, so greedy constrained
decoding can commit early to a prefix that only odd continuations can finish (non-words, loops). Sampling several
whole candidates inside the grammar and ranking them by the likelihood the *free* model gives each whole text is
the sample-and-rerank answer to that distortion. Every candidate is decoded under the grammar, so the one kept is
as valid as greedy constrained decoding's output.

Candidate 0 is the sample decoded as the run asks (greedy by default), so the kept output is never less likely
than plain constrained decoding's; candidate ``j`` >= 1 is drawn at the run's ``rerank_temperature`` and ``top_p``
with seed ``base + RERANK_SEED_STRIDE * j``, where ``base`` is the sample's own seed: seeds stay distinct across
samples, rounds and candidates.

Loops are likely text (a small model repeating itself scores well per token), so a candidate with a word repeated
three times in a row is kept only when every candidate has one.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from corral.metrics import has_triple_repeat
from corral.models import Completion, Likelihood, Request

RERANK_SEED_STRIDE = 1_000_003
"""Between the seeds of a sample's candidates: larger than any ``seed + sample + 10007 * round`` span in practice."""


def candidate_requests(request: Request, k: int, temperature: float) -> list[Request]:
    """The ``k`` candidate requests of a constrained ``request``: the request itself, then ``k - 1`` sampled at
    ``temperature`` with distinct seeds (its chat and grammar each time)."""
    if k < 1 or temperature <= 0:
        raise ValueError(f"rerank needs k >= 1 and temperature > 0, got {k} and {temperature}")
    sampling = request.sampling
    base = sampling.seed
    own = dataclasses.replace(request, sampling=dataclasses.replace(sampling, n=1))
    return [own, *(dataclasses.replace(request, sampling=dataclasses.replace(
        sampling, temperature=temperature, n=1, seed=None if base is None else base + RERANK_SEED_STRIDE * j))
        for j in range(1, k))]


def rank_key(completion: Completion, likelihood: Likelihood | None, index: int) -> tuple[int, int, float, int]:
    """How candidates are ordered, best first: complete outputs before those cut off at their budget (a cut text
    is not an answer, and a loop that ran to the budget is often likely), then those without a word repeated
    three times in a row, then the lowest NLL per token (an unscored or empty candidate last), then the earliest
    candidate."""
    nll = likelihood.nll_per_token if likelihood is not None else None
    return (int(completion.finish_reason != "stop"), int(has_triple_repeat(completion.text)),
            float("inf") if nll is None else nll, index)


def choose_candidate(completions: Sequence[Completion], likelihoods: Sequence[Likelihood | None]) -> int:
    """The index of the candidate to keep (``rank_key``'s first); failed candidates are never chosen."""
    if len(completions) != len(likelihoods) or not completions:
        raise ValueError(f"choose needs one likelihood per candidate, got {len(completions)} and {len(likelihoods)}")
    usable = [i for i, completion in enumerate(completions) if completion.finish_reason != "error"]
    if not usable:
        raise ValueError("every candidate failed")
    return min(usable, key=lambda i: rank_key(completions[i], likelihoods[i], i))
