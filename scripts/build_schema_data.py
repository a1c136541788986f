"""Rebuild the real-world schema data Corral ships, from the shared data folder (byte for byte reproducible).

    python -m scripts.build_schema_data --shared ../shared/data

- ``schemastore.jsonl.gz``: one line per SchemaStore schema, ``{name, schema, documents: [{file, valid,
  source_format, instance}]}`` (the shared file repeats the schema on every document's line; this one does not;
  a byte-order mark left on a document's first key is removed).
- ``jsonschemabench.jsonl.gz``: the JSONSchemaBench sample as it is (``{split, file, schema}``), recompressed.
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from corral.jsonl import atomic_write, iter_jsonl

DATA = Path(__file__).parent / "data"


def _write(path: Path, rows: Iterable[dict[str, Any]]) -> int:
    """Compact lines, gzipped with the file's name in the header: the shipped bytes, which ``write_jsonl`` (spaced
    lines, no name) would not give."""
    lines = [json.dumps(row, ensure_ascii=False, separators=(",", ":")) + "\n" for row in rows]
    buffer = io.BytesIO()
    with gzip.GzipFile(path.name, "wb", 9, buffer, mtime=0) as f:
        f.write("".join(lines).encode("utf-8"))
    atomic_write(path, buffer.getvalue())
    return len(lines)


def schemastore_rows(shared: Path) -> list[dict[str, Any]]:
    by_name: dict[str, dict[str, Any]] = {}
    for row in iter_jsonl(shared / "schemastore" / "schemastore_tests.jsonl.gz"):
        entry = by_name.setdefault(row["schema_name"], {"name": row["schema_name"], "schema": row["schema"],
                                                         "documents": []})
        entry["documents"].append({"file": row["file"], "valid": row["valid"],
                                   "source_format": row["source_format"], "instance": _without_bom(row["instance"])})
    for entry in by_name.values():
        entry["documents"].sort(key=lambda doc: doc["file"])
    return [by_name[name] for name in sorted(by_name)]


def _without_bom(instance: Any) -> Any:
    """A file that starts with a byte-order mark left it on the first key; ajv (the labels' author) never saw it."""
    if isinstance(instance, dict) and instance and next(iter(instance)).startswith("\ufeff"):
        items = list(instance.items())
        return {items[0][0].removeprefix("\ufeff"): items[0][1], **dict(items[1:])}
    return instance


def build(shared: Path, out: Path = DATA) -> dict[str, int]:
    out.mkdir(parents=True, exist_ok=True)
    return {
        "schemastore": _write(out / "schemastore.jsonl.gz", schemastore_rows(shared)),
        "jsonschemabench": _write(out / "jsonschemabench.jsonl.gz",
                                  iter_jsonl(shared / "jsonschemabench" / "jsonschemabench_sample.jsonl.gz")),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, required=True, help="the shared data folder (../shared/data)")
    parser.add_argument("--out", type=Path, default=DATA)
    args = parser.parse_args()
    print(build(args.shared, args.out))


if __name__ == "__main__":
    main()
