"""General-quality metrics of the FormatBench tasks (ReFF Appendix A.4), one per task, from (instance, answer).

Each returns the record's metrics as ``corral.evaluation`` stores them: a plain key is averaged over records
(accuracy, SQuAD F1), a ``metric@aggregate:stat`` key is a sufficient statistic summed over records and turned
into a corpus figure by a registered aggregate (micro F1 for NER, Parse and CapSeg; corpus BLEU for MTT), as the
paper's corpus-level numbers are. Metrics never raise on an answer: a malformed one scores what can be read
from it (no entities, no brackets, no breaks).

- MCQ: accuracy (the label is the gold label).
- EQA: SQuAD F1 and exact match with the official normalisation (lower case, no punctuation, no articles
  a/an/the, single spaces), the best over the acceptable answers.
- NER: bag-of-entities F1: (label, text) pairs of the answer against the gold's, counted as multisets.
- Parse: EVALB labelled bracket F1 as ``corral.metrics.bracket_stats`` counts it (COLLINS.prm: root wrapper and
  preterminals left out, ``NP-SBJ-1`` is ``NP``, ADVP = PRT, an answer over other words scores nothing) except
  that punctuation words stay in the spans, as this metric always counted them.
- CapSeg: break F1: each ``<eol>``/``<eob>`` as (the number of words before it, the marker), against the gold.
- MTT: BLEU-4 (sacrebleu's 13a tokenisation and exponential smoothing; ``corral.metrics.BLEU_SIGNATURE``).
- AcroW: first-letter accuracy: the share of the target's letters matched, in order, by the lines' initials.
- FTime: exact match with the gold time expression.
- Agent: the game score after the action over the game's maximum (``corral.suites.formatbench._agent``).
- XDL: none (the paper reports FFR only: there are no references).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from typing import Any

import regex

from corral.metrics import bleu_stats, bracket_stats, f1_stats, normalize_squad, read_tree, squad_f1
from corral.metrics import labelled_brackets as metric_brackets

KEEP_PUNCTUATION: frozenset[str] = frozenset()
"""Parse F1 keeps punctuation words in the spans (its pinned figures count them), unlike EVALB's COLLINS.prm."""

_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9_-]*)>")
_MARK = re.compile(r"<eol>|<eob>")
_LETTER = regex.compile(r"\p{L}|\p{N}")


def mcq_quality(instance: Mapping[str, Any], answer: str) -> dict[str, float]:
    return {"mcq_accuracy": float(answer.strip() == str(instance["gold"]).strip())}


def eqa_quality(instance: Mapping[str, Any], answer: str) -> dict[str, float]:
    answers = [str(a) for a in instance.get("answers") or [instance["gold"]]]
    return {"eqa_f1": max(squad_f1(answer, truth) for truth in answers),
            "eqa_exact": float(any(normalize_squad(answer) == normalize_squad(truth) for truth in answers))}


def tagged_entities(text: str) -> Counter[tuple[str, str]]:
    """The (label, text) pairs of the well-formed ``<L>...</L>`` spans of ``text``; stray tags are ignored."""
    found: Counter[tuple[str, str]] = Counter()
    open_label, start = None, 0
    for match in _TAG.finditer(text):
        closing, label = match.group(1) == "/", match.group(2)
        if not closing:
            open_label, start = label, match.end()
        elif open_label == label:
            inner = " ".join(_TAG.sub(" ", text[start:match.start()]).split())
            if inner:
                found[label, inner] += 1
            open_label = None
        else:
            open_label = None
    return found


def ner_quality(instance: Mapping[str, Any], answer: str) -> dict[str, float]:
    gold = Counter((str(label), " ".join(str(text).split())) for label, text in instance["entities"]) \
        if instance.get("entities") is not None else tagged_entities(str(instance["gold"]))
    return f1_stats("ner_f1", tagged_entities(answer), gold)


def labelled_brackets(tree_text: str) -> Counter[tuple[str, int, int]] | None:
    """EVALB-style brackets of a one-tree answer (``corral.metrics.labelled_brackets`` with punctuation kept in
    the spans), or None when it does not read as one well-formed tree."""
    tree = read_tree(tree_text)
    return None if tree is None else metric_brackets(tree, deleted=KEEP_PUNCTUATION)


def parse_quality(instance: Mapping[str, Any], answer: str) -> dict[str, float]:
    return bracket_stats("parse_f1", answer, str(instance["gold"]), deleted=KEEP_PUNCTUATION)


def breaks(text: str) -> Counter[tuple[int, str]]:
    """Each ``<eol>``/``<eob>`` as (words before it, marker)."""
    found: Counter[tuple[int, str]] = Counter()
    words = 0
    for piece in re.split(r"(<eol>|<eob>)", text):
        if _MARK.fullmatch(piece):
            found[words, piece] += 1
        else:
            words += len(piece.split())
    return found


def capseg_quality(instance: Mapping[str, Any], answer: str) -> dict[str, float]:
    return f1_stats("capseg_f1", breaks(answer), breaks(str(instance["gold"])))


def mtt_quality(instance: Mapping[str, Any], answer: str) -> dict[str, float]:
    return bleu_stats("mtt_bleu", answer, str((instance.get("references") or [instance["gold"]])[0]))


def acrow_quality(instance: Mapping[str, Any], answer: str) -> dict[str, float]:
    from ._simple import _fold

    target = [_fold(ch) for ch in _LETTER.findall(str(instance["target"]))]
    initials = []
    for line in answer.splitlines():
        letter = _LETTER.search(line)
        if letter:
            initials.append(_fold(letter.group(0)))
    hits = sum(a == b for a, b in zip(target, initials, strict=False))
    return {"acrow_letters": hits / len(target) if target else 0.0}


def ftime_quality(instance: Mapping[str, Any], answer: str) -> dict[str, float]:
    return {"ftime_exact": float(answer.strip() == str(instance["gold"]).strip())}
