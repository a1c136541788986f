"""Quality metrics shared by the suites: small functions with fixed definitions, and the aggregates that turn
per-record sufficient statistics into corpus figures (as sacrebleu does for BLEU).

A record's quality is a dict. A plain key (``mcq_accuracy``) is averaged over records; a key
``metric@aggregate:stat`` (``ner_f1@micro_f1:tp``) is a statistic summed over records and handed to the registered
aggregate ``aggregate`` (``corral.evaluation.aggregate_quality``). Every figure is on a 0-1 scale except BLEU,
which keeps sacrebleu's 0-100.

- ``_text``: SQuAD F1, BLEU, and the ``micro_f1``, ``macro_f1`` and ``bleu`` aggregates.
- ``_brackets``: EVALB labelled bracket F1 (COLLINS.prm) for constituency trees, micro-averaged by ``micro_f1``.
- ``_attachment``: the BenchCLAMP dependency output forms and LAS/UAS, micro-averaged by the ``ratio`` aggregate;
  the ``all_of`` aggregate (the share of groups, such as CoSQL's dialogues, whose every item is correct).
- ``_fluency``: whether outputs are still language (non-word share, triple repeats, distinct-2, NLL per token
  under the unconstrained model). These are figures of a whole run, not of a task, so they are no quality key:
  every run summary carries them as its ``fluency`` block (``corral.evaluation.summarize``).

Importing this package registers every aggregate: ``corral.registry`` imports it lazily on the first lookup.
"""

from __future__ import annotations

from ._attachment import (
    ROOT_HEAD,
    all_of,
    all_of_stats,
    attachment_stats,
    ratio,
    read_indexed,
    read_triples,
    round_trip_rate,
    write_indexed,
    write_triples,
)
from ._brackets import (
    EQUIVALENT_LABELS,
    PUNCTUATION_TAGS,
    WRAPPER_LABELS,
    bracket_stats,
    evalb_label,
    labelled_brackets,
    read_tree,
    tree_exact_match,
    tree_words,
)
from ._fluency import (
    FLUENCY_SIGNATURE,
    distinct_n,
    fluency,
    fluency_signature,
    has_triple_repeat,
    is_nonword,
    mean_nll_per_token,
    nll_per_token,
    nonword_share,
    triple_repeat_share,
    words,
)
from ._text import (
    BLEU_SIGNATURE,
    bleu_signature,
    bleu_stats,
    corpus_bleu,
    f1_stats,
    macro_f1,
    micro_f1,
    normalize_squad,
    squad_f1,
)

__all__ = [
    "BLEU_SIGNATURE",
    "EQUIVALENT_LABELS",
    "FLUENCY_SIGNATURE",
    "PUNCTUATION_TAGS",
    "ROOT_HEAD",
    "WRAPPER_LABELS",
    "all_of",
    "all_of_stats",
    "attachment_stats",
    "bleu_signature",
    "bleu_stats",
    "bracket_stats",
    "corpus_bleu",
    "distinct_n",
    "evalb_label",
    "f1_stats",
    "fluency",
    "fluency_signature",
    "has_triple_repeat",
    "is_nonword",
    "labelled_brackets",
    "macro_f1",
    "mean_nll_per_token",
    "micro_f1",
    "nll_per_token",
    "nonword_share",
    "normalize_squad",
    "ratio",
    "read_indexed",
    "read_tree",
    "read_triples",
    "round_trip_rate",
    "squad_f1",
    "tree_exact_match",
    "tree_words",
    "triple_repeat_share",
    "words",
    "write_indexed",
    "write_triples",
]
