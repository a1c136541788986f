"""Hugging Face ``datasets`` as corpora, from local files only: parquet files and folders written by
``Dataset.save_to_disk``. Parquet streams (``streaming=True``: row groups are read as they are needed), a saved
dataset is memory-mapped Arrow; either way a corpus larger than memory works. The hub is never contacted:
offline mode is switched on before ``datasets`` is imported.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ._document import CorpusError, Document, SourceStats


def is_saved_dataset(path: Path) -> bool:
    """A folder written by ``save_to_disk`` (a Dataset, not a DatasetDict of splits)."""
    return path.is_dir() and (path / "state.json").is_file() and (path / "dataset_info.json").is_file()


def _datasets() -> Any:
    os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from corral.extras import MissingExtra, require

    try:
        datasets = require("datasets", "hf", "reading parquet or saved datasets")
    except MissingExtra as exc:
        raise CorpusError(str(exc)) from None
    datasets.disable_progress_bars()
    return datasets


def hf_documents(path: Path, name: str, text_field: str, stats: SourceStats) -> Iterator[Document]:
    """The rows of a parquet file or a saved dataset as documents; a row without a string ``text_field`` is
    skipped and counted with its row number."""
    datasets = _datasets()
    try:
        if is_saved_dataset(path):
            rows = datasets.load_from_disk(str(path)).to_iterable_dataset()
        else:
            rows = datasets.load_dataset("parquet", data_files=str(path), split="train", streaming=True)
        if text_field not in (rows.column_names or [text_field]):
            raise CorpusError(f"{path}: no column {text_field!r}; columns: {', '.join(rows.column_names)}")
        for number, row in enumerate(rows, start=1):
            text = row.get(text_field)
            if not isinstance(text, str):
                stats.skipped.append(f"{path}:row {number}: no string field {text_field!r}")
                continue
            stats.documents += 1
            meta = {k: v for k, v in row.items() if k != text_field and isinstance(v, str | int | float | bool)}
            yield Document(f"{name}:{row.get('id', number)}", text, name, meta)
    except CorpusError:
        raise
    except (OSError, ValueError, TypeError) as exc:  # unreadable parquet, a folder that is not a dataset
        raise CorpusError(f"cannot read {path} as a dataset: {exc}") from None
