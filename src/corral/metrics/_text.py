"""Text metrics (SQuAD F1, BLEU) and the aggregates that turn per-record sufficient statistics into corpus
figures (micro and macro F1, corpus BLEU), registered in ``corral.registry.quality_aggregates``.

The key convention is described in ``corral.metrics``.
"""

from __future__ import annotations

import re
import string
from collections import Counter

from corral.registry import quality_aggregates

__all__ = ["BLEU_SIGNATURE", "bleu_signature", "bleu_stats", "corpus_bleu", "f1_stats", "macro_f1", "micro_f1",
           "normalize_squad", "squad_f1"]

BLEU_SIGNATURE = "nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:{version}"
_PUNCTUATION = frozenset(string.punctuation)


def normalize_squad(text: str) -> str:
    """SQuAD v1.1's answer normalisation: lower case, punctuation removed, articles removed, spaces collapsed."""
    text = "".join(ch for ch in text.lower() if ch not in _PUNCTUATION)
    text = re.sub(r"\b(a|an|the)\b", " ", text)
    return " ".join(text.split())


def squad_f1(prediction: str, truth: str) -> float:
    """SQuAD's token F1 between two answers, after ``normalize_squad``."""
    predicted, gold = normalize_squad(prediction).split(), normalize_squad(truth).split()
    common = Counter(predicted) & Counter(gold)
    same = sum(common.values())
    if not predicted or not gold:
        return float(predicted == gold)
    if same == 0:
        return 0.0
    precision, recall = same / len(predicted), same / len(gold)
    return 2 * precision * recall / (precision + recall)


def f1_stats(metric: str, predicted: Counter, gold: Counter) -> dict[str, float]:
    """The micro-F1 statistics of one record (multisets compared: entities, brackets, breaks)."""
    tp = sum((predicted & gold).values())
    return {f"{metric}@micro_f1:tp": float(tp), f"{metric}@micro_f1:fp": float(sum(predicted.values()) - tp),
            f"{metric}@micro_f1:fn": float(sum(gold.values()) - tp)}


def bleu_stats(metric: str, hypothesis: str, reference: str) -> dict[str, float]:
    """The BLEU-4 statistics of one record (sacrebleu's 13a tokenisation), summed over records by ``corpus_bleu``."""
    from sacrebleu.metrics.bleu import BLEU

    one = BLEU().corpus_score([" ".join(hypothesis.split())], [[reference]])
    stats = {f"correct_{n + 1}": c for n, c in enumerate(one.counts)}
    stats |= {f"total_{n + 1}": t for n, t in enumerate(one.totals)}
    stats |= {"sys_len": one.sys_len, "ref_len": one.ref_len}
    return {f"{metric}@bleu:{key}": float(value) for key, value in stats.items()}


def bleu_signature() -> str:
    """sacrebleu's signature for the BLEU Corral computes, with the installed version: it goes into a run's
    identity, so a figure is only compared with one computed the same way."""
    import sacrebleu

    return BLEU_SIGNATURE.format(version=sacrebleu.__version__)


@quality_aggregates.register("micro_f1")
def micro_f1(stats: dict[str, float]) -> float:
    """F1 from summed ``tp``, ``fp``, ``fn`` (1.0 when there is nothing to find and nothing was found)."""
    tp, fp, fn = stats.get("tp", 0.0), stats.get("fp", 0.0), stats.get("fn", 0.0)
    if tp + fp + fn == 0:
        return 1.0
    return 2 * tp / (2 * tp + fp + fn)


@quality_aggregates.register("macro_f1")
def macro_f1(stats: dict[str, float]) -> float:
    """The mean over labels of each label's F1, from summed ``tp_L``, ``fp_L``, ``fn_L`` (a label never predicted
    nor present scores 0)."""
    labels = sorted({key.split("_", 1)[1] for key in stats})
    scores = []
    for label in labels:
        tp, fp, fn = (stats.get(f"{kind}_{label}", 0.0) for kind in ("tp", "fp", "fn"))
        scores.append(2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 0.0)
    return sum(scores) / len(scores) if scores else 0.0


@quality_aggregates.register("bleu")
def corpus_bleu(stats: dict[str, float]) -> float:
    """Corpus BLEU-4 from summed n-gram statistics (``correct_1..4``, ``total_1..4``, ``sys_len``, ``ref_len``)
    by sacrebleu's own formula with its default exponential smoothing, on a 0-100 scale."""
    from sacrebleu.metrics.bleu import BLEU

    correct = [int(stats.get(f"correct_{i}", 0)) for i in range(1, 5)]
    total = [int(stats.get(f"total_{i}", 0)) for i in range(1, 5)]
    return float(BLEU.compute_bleu(correct, total, int(stats.get("sys_len", 0)), int(stats.get("ref_len", 0)),
                                   smooth_method="exp").score)
