"""A copy of a run without its prompts, to publish results on data that is not yours to redistribute.

A run's records hold the chat each output answered, and a few-shot prompt holds many of the dataset's examples. The
figures of a run (its summary, its report, pass rates, quality) are computed from the outputs, verdicts and quality
values alone, so a copy whose records hold, in place of each message, the SHA-256 of its text gives the same
summary and report, and anyone holding the data can check that a prompt is the one the run sent. Everything else of
the run is copied as it is (the model's outputs are the run's own).
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path
from typing import Any

from corral.errors import OutputError
from corral.files import make_folder
from corral.jsonl import JsonlError, enumerate_jsonl, write_jsonl

from ._lock import LOCK_FILE
from ._records import CONFIG_FILE, RECORDS_FILE, RunError

__all__ = ["REDACTED", "redact_run"]

REDACTED = "[redacted: sha256 {digest}]"
"""What stands in a redacted message's content."""


def _redacted(message: dict[str, Any]) -> dict[str, Any]:
    text = message.get("content", "")
    digest = hashlib.sha256(str(text).encode("utf-8")).hexdigest()
    return {**message, "content": REDACTED.format(digest=digest)}


def redact_run(run: Path, out: Path) -> Path:
    """Copy ``run`` to ``out`` with every record's messages replaced by their hashes; returns ``out``. A run that
    does not read is a ``RunError`` naming it; ``out`` must not be ``run`` or hold a run already."""
    if not (run / CONFIG_FILE).is_file():
        raise RunError(f"{run} is not a run directory: it has no {CONFIG_FILE}")
    if out.resolve() == run.resolve():
        raise OutputError(f"{out}: a redacted copy cannot replace the run it is made from")
    if (out / CONFIG_FILE).exists():
        raise OutputError(f"{out} holds a run already; redact into a new folder")
    try:
        rows = [row for _, row in enumerate_jsonl(run / RECORDS_FILE, torn_tail=True, within=run)]
    except JsonlError as exc:
        raise RunError(str(exc)) from None
    make_folder(out)
    for item in sorted(run.iterdir()):
        if item.name in (RECORDS_FILE, LOCK_FILE) or not item.is_file() or item.is_symlink():
            continue
        shutil.copyfile(item, out / item.name)
    write_jsonl(out / RECORDS_FILE, ({**row, "messages": [_redacted(m) for m in row.get("messages", [])]}
                                     for row in rows))
    return out
