"""The numbers of a run, computed from its records alone, so a summary can always be recomputed from disk.

Success rates are means over instances of each instance's pass rate over its ``n`` samples, and their standard
errors treat the instance as the unit (samples of one instance are not independent evidence), as in COLLIE.
An instance counts only when all its ``n`` first attempts are on disk, so a run that is still going (or was cut
short) reports on the instances it finished and says how many records are missing rather than guessing.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from typing import Any, get_args

from ._records import RunConfig, SampleDecoding, SampleRecord


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased estimate of pass@k from ``n`` samples of which ``c`` passed (Chen et al. 2021):
    ``1 - C(n - c, k) / C(n, k)``, as a product so that large ``n`` neither overflows nor loses precision."""
    if n < 0 or c < 0 or k < 1:
        raise ValueError(f"pass_at_k needs n >= 0, c >= 0 and k >= 1 (got n={n}, c={c}, k={k})")
    if k > n or c > n:
        raise ValueError(f"pass_at_k needs k <= n and c <= n (got n={n}, c={c}, k={k})")
    if n - c < k:
        return 1.0
    return 1.0 - math.prod(1.0 - k / i for i in range(n - c + 1, n + 1))


def mean_se(rates: Sequence[float]) -> dict[str, Any]:
    """``{"value", "se", "n"}``: the mean of per-instance rates and its standard error (0.0 below two)."""
    n = len(rates)
    value = statistics.fmean(rates) if n else 0.0
    se = statistics.stdev(rates) / math.sqrt(n) if n >= 2 else 0.0
    return {"value": float(value), "se": float(se), "n": n}


def summarize(config: RunConfig, records: Iterable[SampleRecord]) -> dict[str, Any]:
    """The JSON-able summary of a run: only records within the config's instances, samples and rounds count.

    A record written twice for the same (instance, sample, round), as when a resumed run redoes a sample, counts
    once: the later one wins.
    """
    n, rounds = config.samples, config.rounds
    selected = set(config.instances)
    kept: dict[tuple[str, int, int], SampleRecord] = {}
    for record in records:
        if record.instance in selected and 0 <= record.sample < n and 0 <= record.round <= rounds:
            kept[record.key] = record
    chains: dict[tuple[str, int], dict[int, SampleRecord]] = defaultdict(dict)
    for (instance, sample, round_), record in kept.items():
        chains[instance, sample][round_] = record
    first = [record for record in kept.values() if record.round == 0]

    # instances with all n first attempts; their groups come from those records
    done = [i for i in config.instances if n > 0 and all(0 in chains.get((i, s), {}) for s in range(n))]
    passed0 = {i: sum(chains[i, s][0].passed for s in range(n)) for i in done}
    rate0 = {i: passed0[i] / n for i in done}
    groups: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for i in done:
        for key, value in chains[i, 0][0].groups.items():
            groups[key][value].append(i)

    by_round = []
    for r in range(rounds + 1):
        rates = [rate for i in done if (rate := _solved_by(chains, i, n, r)) is not None]
        by_round.append({"round": r, **mean_se(rates)})

    complete = all(_chain_complete(chains.get((i, s), {}), rounds) for i in config.instances for s in range(n))
    complete = complete and not any(record.finish_reason == "error" for record in kept.values())

    quality_keys = sorted({key for record in first for key in record.quality})
    return {
        "task": config.task,
        "model": config.model,
        "decoding": config.decoding,
        "label": config.label,
        "hash": config.hash,
        "samples": n,
        "rounds": rounds,
        "instances": len(config.instances),
        "complete": complete,
        "success": mean_se([rate0[i] for i in done]),
        "final_success": {key: by_round[-1][key] for key in ("value", "se", "n")},
        "mean_score": _mean([record.score for record in first]),
        "by_group": {key: {value: mean_se([rate0[i] for i in members])
                           for value, members in sorted(groups[key].items())}
                     for key in sorted(groups)},
        "pass_at_k": {str(k): _mean([pass_at_k(n, passed0[i], k) for i in done]) for k in range(1, n + 1)},
        "by_round": by_round,
        "counts": {
            "records": len(kept),
            "empty": sum(record.empty for record in kept.values()),
            "truncated": sum(record.truncated for record in kept.values()),
            "errors": sum(record.finish_reason == "error" for record in kept.values()),
            "cached": sum(record.cached for record in kept.values()),
            "missing": len(config.instances) * n - len(first),
        },
        "sample_decoding": _decoding_counts(first),
        "tokens": {"prompt": sum(record.prompt_tokens for record in kept.values()),
                   "completion": sum(record.completion_tokens for record in kept.values())},
        "seconds": float(sum(record.seconds for record in kept.values())),
        "quality": {key: _mean([record.quality[key] for record in first if key in record.quality])
                    for key in quality_keys},
    }


def _solved_by(chains: dict[tuple[str, int], dict[int, SampleRecord]], instance: str, n: int,
               r: int) -> float | None:
    """The fraction of the instance's samples that passed at some round <= r; None while a sample that has not
    passed yet lacks one of those rounds (its outcome by round r is not known)."""
    solved = 0
    for s in range(n):
        chain = chains[instance, s]
        if any(chain[q].passed for q in range(r + 1) if q in chain):
            solved += 1
        elif any(q not in chain for q in range(r + 1)):
            return None
    return solved / n


def _chain_complete(chain: dict[int, SampleRecord], rounds: int) -> bool:
    """Whether a sample's rounds run from 0 until its first pass or the last round."""
    for r in range(rounds + 1):
        if r not in chain:
            return False
        if chain[r].passed:
            return True
    return True


def _decoding_counts(records: Iterable[SampleRecord]) -> dict[str, int]:
    counts = Counter(record.decoding for record in records)
    return {value: counts[value] for value in get_args(SampleDecoding)}


def _mean(values: Sequence[float]) -> float:
    return float(statistics.fmean(values)) if values else 0.0
