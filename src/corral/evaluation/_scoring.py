"""Scoring a run's final outputs under the same model with no grammar, once, after generation.

The figure is the ``nll_per_token`` of a run's fluency block: how likely the model itself finds what it wrote
when nothing constrains it. Records are appended and never rewritten, so a likelihood found after a record was
written goes to ``likelihoods.jsonl`` (``LikelihoodLine``: the record's key and a hash of its output), and
``read_records`` puts it back into its record. A run killed while scoring keeps the lines it flushed; the next run
scores only what is still missing, and never scores an output twice.
"""

from __future__ import annotations

from collections.abc import Callable, MutableMapping
from pathlib import Path

from corral.files import open_output
from corral.models import Model, Request, score_texts

from ._chains import chains_of
from ._records import LIKELIHOODS_FILE, LikelihoodLine, RunConfig, SampleRecord, append_likelihoods

Key = tuple[str, int, int]


def final_records(config: RunConfig, done: MutableMapping[Key, SampleRecord]) -> list[SampleRecord]:
    """Each selected sample's latest record within the run's rounds: the output a sample ends with."""
    selected = set(config.instances)
    chains = chains_of(record for record in done.values() if record.instance in selected
                       and record.sample < config.samples and record.round <= config.rounds)
    return [record for key in sorted(chains) if (record := chains[key].final)]


def score_finals(run: Path, config: RunConfig, done: MutableMapping[Key, SampleRecord],
                 the_model: Callable[[], Model], batch_size: int) -> int:
    """Score the final outputs that have no likelihood yet, append their lines and update ``done``; return how
    many were scored. Nothing is scored (and no model loaded) when every final output already has its figure; a
    backend that cannot score (``score_texts`` gives None) leaves them without one."""
    missing = [record for record in final_records(config, done) if record.likelihood is None]
    if not missing:
        return 0
    model = the_model()
    scored = 0
    for start in range(0, len(missing), batch_size):
        batch = missing[start:start + batch_size]
        requests = [Request(tuple(record.messages)) for record in batch]  # type: ignore[arg-type]
        found = score_texts(model, requests, [record.output for record in batch])
        kept = [(record, likelihood) for record, likelihood in zip(batch, found, strict=True) if likelihood is not None]
        if not kept:
            continue
        with open_output(run / LIKELIHOODS_FILE, append=True, within=run) as file:
            append_likelihoods(file, [LikelihoodLine.of(record, likelihood) for record, likelihood in kept])
        for record, likelihood in kept:
            done[record.key] = record.model_copy(update={"likelihood": likelihood})
        scored += len(kept)
    return scored
