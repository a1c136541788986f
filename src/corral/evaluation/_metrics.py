"""The numbers of a run, computed from its records alone, so a summary can always be recomputed from disk.

Success rates are means over instances of each instance's pass rate over its ``n`` samples, and their standard
errors treat the instance as the unit (samples of one instance are not independent evidence), as in COLLIE.
An instance counts only when all its ``n`` first attempts are on disk, so a run that is still going (or was cut
short) reports on the instances it finished and says how many records are missing rather than guessing.

Success counts what the model wrote: a sample passes when the model finished its output and the checker passed it
(``SampleRecord.passed_as_written``). A constrained output cut off at its budget and closed by the runner may pass
the checker too; those passes are counted apart (``success_with_closing``, ``counts.closed_passed``), never in the
headline, since the closing text, not the model, may have supplied what the constraint asked for.

The fluency block (``corral.metrics.fluency``) reads each sample's final answer (its latest round) and the
likelihood of its output under the unconstrained model, where the run has scored it.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from typing import Any, get_args

from corral.verdicts import most_violated

from ._chains import Chain, chains_of
from ._records import RunConfig, SampleDecoding, SampleRecord
from ._summary import Summary


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


def summarize(config: RunConfig, records: Iterable[SampleRecord], runtimes: Sequence[str] = ()) -> Summary:
    """The summary of a run (``Summary``): only records within the config's instances, samples and rounds count;
    ``runtimes`` says where they were computed.

    A record written twice for the same (instance, sample, round), as when a resumed run redoes a sample, counts
    once: the later one wins.
    """
    n, rounds = config.samples, config.rounds
    selected = set(config.instances)
    kept: dict[tuple[str, int, int], SampleRecord] = {}
    for record in records:
        if record.instance in selected and 0 <= record.sample < n and 0 <= record.round <= rounds:
            kept[record.key] = record
    chains = chains_of(kept.values(), config.stop_on_repeat)
    empty = Chain(stop_on_repeat=config.stop_on_repeat)
    first = [record for record in kept.values() if record.round == 0]

    # instances with all n first attempts; their groups come from those records
    done = [i for i in config.instances if n > 0 and all(chains.get((i, s), empty).first for s in range(n))]
    firsts = {i: [chains[i, s].first for s in range(n)] for i in done}
    passed0 = {i: sum(record.passed_as_written for record in firsts[i] if record) for i in done}
    rate0 = {i: passed0[i] / n for i in done}
    rate0_closing = {i: sum(record.passed for record in firsts[i] if record) / n for i in done}
    groups: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for i in done:
        for key, value in chains[i, 0].rounds[0].groups.items():
            groups[key][value].append(i)

    def rounds_of(members: Sequence[str], closing: bool = False) -> list[dict[str, Any]]:
        """Per round: cumulative success over ``members`` (as written; with closed passes when ``closing``): an
        instance's share of samples solved by then, once every sample's outcome is known; and the quality of each
        sample's latest answer."""
        out = []
        for r in range(rounds + 1):
            outcomes = {i: [chains[i, s].solved_by(r, closing) for s in range(n)] for i in members}
            rates = [sum(map(bool, known)) / n for known in outcomes.values() if None not in known]
            latest = [record for i in members for s in range(n) if (record := chains[i, s].latest(r))]
            out.append({"round": r, **mean_se(rates), "quality": aggregate_quality(latest)})
        return out

    def first_of(members: Sequence[str]) -> list[SampleRecord]:
        return [chains[i, s].rounds[0] for i in members for s in range(n)]

    by_round = rounds_of(done)
    final_closing = rounds_of(done, closing=True)[-1]

    complete = all(chains.get((i, s), empty).complete(rounds) for i in config.instances for s in range(n))
    complete = complete and not any(record.finish_reason == "error" for record in kept.values())

    return Summary.model_validate({
        "runtimes": list(runtimes),
        "task": config.task,
        "task_options": dict(config.task_options),
        "extract": config.extract,
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
        "success_with_closing": mean_se([rate0_closing[i] for i in done]),
        "final_success_with_closing": {key: final_closing[key] for key in ("value", "se", "n")},
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
            "closed": sum(record.closed for record in kept.values()),  # truncated, then closed
            "closed_passed": sum(record.closed and record.passed for record in kept.values()),
            "closing_changed_verdict": sum(record.closing_changed_verdict for record in kept.values()),
            # closed records written before the model's own text was judged apart (``written_passed`` unknown)
            "closed_unjudged": sum(record.closed and record.written_passed is None for record in kept.values()),
            "appended_chars": sum(len(record.appended) for record in kept.values()),
            "appended_chars_max": max((len(record.appended) for record in kept.values()), default=0),
            "errors": sum(record.finish_reason == "error" for record in kept.values()),
            "cached": sum(record.cached for record in kept.values()),
            "missing": len(config.instances) * n - len(first),
            "context": sum(record.finish_reason == "context" for record in kept.values()),
            "repeated": sum(record.repeated for record in kept.values()),
            "undecided": sum(record.undecided is not None for record in kept.values()),  # checks past their budget
            "replaced": sum(bool(record.replaced) for record in kept.values()),  # outputs with unencodable text
        },
        "sample_decoding": _decoding_counts(first),
        "tokens": {"prompt": sum(record.prompt_tokens for record in kept.values()),
                   "completion": sum(record.completion_tokens for record in kept.values())},
        "seconds": float(sum(record.seconds for record in kept.values())),
        "quality": aggregate_quality(first),
        "passed_with_zero_quality": _passed_with_zero_quality(first),
        "by_group_quality": {key: {value: aggregate_quality(first_of(members))
                                   for value, members in sorted(groups[key].items())}
                             for key in sorted(groups)},
        "by_group_zero_quality": {key: {value: _passed_with_zero_quality(first_of(members))
                                        for value, members in sorted(groups[key].items())}
                                  for key in sorted(groups)},
        "by_group_round": {key: {value: rounds_of(members) for value, members in sorted(groups[key].items())}
                           for key in sorted(groups)} if rounds else {},
        "fluency": fluency_block([record for chain in chains.values() if (record := chain.final)]),
        "violated_rules": violated_rules(first),
        "by_group_violated_rules": {key: {value: violated_rules(first_of(members), top=5)
                                          for value, members in sorted(groups[key].items())}
                                    for key in sorted(groups)},
        "thinking": thinking_block(list(kept.values())),
    })


def thinking_block(records: Sequence[SampleRecord]) -> dict[str, Any] | None:
    """How long the records' reasoning blocks were and how many never closed (``Summary.thinking``); None when no
    record has a block."""
    blocks = [record for record in records if record.thinking is not None]
    if not blocks:
        return None
    lengths = [len(record.thinking or "") for record in blocks]
    unclosed = sum(record.thinking_closed is False for record in blocks)
    return {"records": len(blocks), "empty": sum(not length for length in lengths), "unclosed": unclosed,
            "unclosed_rate": unclosed / len(blocks), "mean_chars": _mean(lengths), "max_chars": max(lengths),
            "served": sum(record.thinking_served for record in blocks)}


def fluency_block(finals: Sequence[SampleRecord]) -> dict[str, Any]:
    """``corral.metrics.fluency`` over the final records: their answers, and their outputs' likelihoods."""
    from corral.metrics import fluency

    return fluency([record.answer for record in finals],
                   [None if record.likelihood is None else (record.likelihood.tokens, record.likelihood.logprob)
                    for record in finals])


def violated_rules(records: Sequence[SampleRecord], top: int = 10) -> list[dict[str, Any]]:
    """The rules the records' verdicts break most often: rule, how many outputs break it, and that as a share of
    the records (an output that breaks a rule twice counts once)."""
    counted = most_violated(({"violations": record.violations} for record in records), top=top)
    return [{"rule": rule, "count": count, "rate": count / len(records)} for rule, count in counted]


def aggregate_quality(records: Sequence[SampleRecord]) -> dict[str, float]:
    """The records' quality metrics. A plain key (``mcq_accuracy``) is a mean over the records that have it; a key
    ``metric@aggregate:stat`` is a sufficient statistic (``mtt_bleu@bleu:correct_1``), summed over records and
    turned into ``metric`` by the registered aggregate (corpus BLEU, micro F1), as sacrebleu does for BLEU."""
    from corral.registry import lookup, quality_aggregates

    means: dict[str, list[float]] = defaultdict(list)
    sums: dict[tuple[str, str], dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for record in records:
        for key, value in record.quality.items():
            if "@" in key and ":" in key:
                head, stat = key.split(":", 1)
                metric, aggregate = head.split("@", 1)
                sums[metric, aggregate][stat] += value
            else:
                means[key].append(value)
    out = {key: _mean(values) for key, values in means.items()}
    for (metric, aggregate), stats in sums.items():
        out[metric] = float(lookup(quality_aggregates, aggregate, "quality aggregate")(dict(stats)))
    return dict(sorted(out.items()))


def _passed_with_zero_quality(records: Sequence[SampleRecord]) -> dict[str, Any]:
    """How often an output passes the checker yet scores 0 on every quality metric of its record (a checker can
    be gamed: an empty span list or an untranslated copy may pass). Records without quality metrics don't count."""
    scored = [record for record in records if record.passed and record.quality]
    zero = [record for record in scored if all(_record_metric(record, key) == 0 for key in _metric_names(record))]
    return {"passed": len(scored), "zero_quality": len(zero), "rate": len(zero) / len(scored) if scored else 0.0}


def _metric_names(record: SampleRecord) -> set[str]:
    return {key.split("@", 1)[0] if "@" in key else key for key in record.quality}


def _record_metric(record: SampleRecord, metric: str) -> float:
    """One record's value of ``metric`` (its statistics aggregated alone)."""
    return aggregate_quality([record.model_copy(update={"quality": {
        k: v for k, v in record.quality.items() if (k.split("@", 1)[0] if "@" in k else k) == metric}})])[metric]


def _decoding_counts(records: Iterable[SampleRecord]) -> dict[str, int]:
    counts = Counter(record.decoding for record in records)
    return {value: counts[value] for value in get_args(SampleDecoding)}


def _mean(values: Sequence[float]) -> float:
    return float(statistics.fmean(values)) if values else 0.0
