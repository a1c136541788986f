"""Remake the results pages under docs/results from the records beside them (no model runs).

Every run directory (a folder with ``config.json`` and ``records.jsonl``) gets its ``summary.json`` rewritten as the
runner writes it (``summarize(config, read_records(run))`` plus ``runtimes``), and every ``report.md`` listed in
``REPORTS`` is remade, charts included, by exactly the ``corral report`` command its README records. A report made
with ``--recheck`` judges the stored outputs again with today's checkers; for those runs the script first writes
the rejudged verdicts back into ``records.jsonl`` (outputs untouched, same order), so that records, summary and
report agree. Records outside a run's config (instances, samples, rounds it does not select) are never counted by
the summary; they are dropped from the file only with ``--drop-outside-config``, and listed otherwise.

``tests/test_results_pages.py`` checks that the stored pages equal what this script makes. Reports that are not
made by ``corral report`` (``train-smollm2``: ``corral train compare`` on training runs that are not kept) are left
alone.

    python scripts/remake_results.py                       # everything under docs/results
    python scripts/remake_results.py --only clamp-smollm2  # the runs and reports below one folder
    python scripts/remake_results.py --drop-outside-config docs/results/formatbench-smollm2/run
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from corral.evaluation import (
    CONFIG_FILE,
    SampleRecord,
    read_config,
    read_records,
    read_runtimes,
    rejudge,
    summarize,
    write_report,
)
from corral.jsonl import atomic_write

ROOT = Path(__file__).resolve().parent.parent
RESULTS = Path("docs/results")  # relative to ROOT: reports name their runs by these relative paths
RECORDS_FILE = "records.jsonl"
SUMMARY_FILE = "summary.json"
LIKELIHOODS_FILE = "likelihoods.jsonl"

_CC = "docs/results/concode-smollm2"
_PAIRS = [f"{sf}-{of}" for sf in ("english", "json", "python", "xml", "yaml") for of in ("json", "xml", "yaml")
          if (sf, of) != ("json", "json")]  # json-json is the 602-schema run; shell glob order below

# Each report page and the command that makes it, as its README records it (run from the repository root).
REPORTS: tuple[str, ...] = (
    "corral report docs/results/collie-smollm2/free docs/results/collie-smollm2/constrained "
    "--out docs/results/collie-smollm2",
    "corral report docs/results/collie-smollm2-main/free docs/results/collie-smollm2-main/constrained "
    "--out docs/results/collie-smollm2-main",
    "corral report docs/results/collie-smollm2-main/constrained docs/results/collie-smollm2-smc/smc "
    "docs/results/collie-smollm2-smc/smc-t03 --out docs/results/collie-smollm2-smc",
    "corral report docs/results/collie-v1-build/runs/free docs/results/collie-v1-build/runs/constrained "
    "--out docs/results/collie-v1-build/runs",
    "corral report docs/results/formatbench-constrained/strict/free docs/results/formatbench-constrained/strict/"
    "constrained docs/results/formatbench-constrained/reference/free docs/results/formatbench-constrained/reference/"
    "constrained --out docs/results/formatbench-constrained",
    "corral report docs/results/formatbench-smollm2/run --out docs/results/formatbench-smollm2",
    "corral report docs/results/ifeval-smollm2/free docs/results/ifeval-smollm2/constrained "
    "--out docs/results/ifeval-smollm2",
    *(f"corral report {'--recheck ' if name in ('constituency', 'dependency') else ''}"
      f"docs/results/clamp-smollm2/{name}/free docs/results/clamp-smollm2/{name}/constrained "
      f"--out docs/results/clamp-smollm2/{name}"
      for name in ("constituency", "dependency", "dependency-indexed", "lispress", "lispress-benchclamp", "spider",
                   "cosql", "overnight")),
    "corral report docs/results/clamp-smollm2/spider-served/free --out docs/results/clamp-smollm2/spider-served",
    f"corral report --recheck {_CC}/json-json/free {_CC}/json-json/constrained --out {_CC}/json-json",
    f"corral report --recheck {' '.join(f'{_CC}/pairs/{p}/free' for p in _PAIRS)} "
    f"{' '.join(f'{_CC}/pairs/{p}/constrained' for p in _PAIRS)} --out {_CC}/pairs",
    f"corral report --recheck {_CC}/val-generated --out {_CC}/val-generated",
    *(f"corral report --recheck {_CC}/{name}/free {_CC}/{name}/constrained --out {_CC}/{name}"
      for name in ("val-schemastore-small", "val-schemastore")),
)

# report.md files made by something other than ``corral report``: not remade here
NOT_CORRAL_REPORT = ("docs/results/train-smollm2/report.md",  # made by corral train compare
                     "docs/results/clamp-smollm2/finetuned/gum-low/report.md",
                     "docs/results/clamp-smollm2/finetuned/smcalflow-500/report.md")


@dataclass(frozen=True)
class ReportCommand:
    runs: tuple[Path, ...]
    out: Path
    recheck: bool

    @classmethod
    def parse(cls, command: str) -> ReportCommand:
        """``corral report [--recheck] RUN... --out DIR`` (paths relative to the repository root)."""
        words = shlex.split(command)
        if words[:2] != ["corral", "report"] or "--out" not in words:
            raise ValueError(f"not a 'corral report RUN... --out DIR' command: {command}")
        at = words.index("--out")
        out, rest = Path(words[at + 1]), words[2:at] + words[at + 2:]
        return cls(tuple(Path(w) for w in rest if w != "--recheck"), out, "--recheck" in rest)

    def write(self, out: Path | None = None) -> Path:
        """Run the command (as ``corral report`` does), writing to ``out`` instead of its ``--out`` if given."""
        return write_report(list(self.runs), out or self.out, recheck=self.recheck)


def report_commands() -> list[ReportCommand]:
    return [ReportCommand.parse(command) for command in REPORTS]


def find_runs(root: Path = RESULTS) -> list[Path]:
    """Every run directory under ``root``: a folder with config.json and records.jsonl."""
    return sorted(path.parent for path in root.rglob(CONFIG_FILE) if (path.parent / RECORDS_FILE).is_file())


def summary_of(run: Path) -> dict:
    """The summary the runner writes for ``run``, recomputed from its records (its stored form)."""
    return summarize(read_config(run), read_records(run), read_runtimes(run)).to_json()


def summary_text(run: Path) -> str:
    """summary.json's text, formatted as the runner writes it."""
    return json.dumps(summary_of(run), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def raw_records(run: Path) -> list[SampleRecord]:
    """The records as written in records.jsonl (likelihoods.jsonl not merged in)."""
    lines = (run / RECORDS_FILE).read_text(encoding="utf-8").splitlines()
    return [SampleRecord.model_validate_json(line) for line in lines if line.strip()]


def write_records(run: Path, records: Sequence[SampleRecord]) -> None:
    atomic_write(run / RECORDS_FILE, "".join(json.dumps(r.model_dump(mode="json"), ensure_ascii=False) + "\n"
                                             for r in records))


def write_back_rejudged(run: Path) -> int:
    """Judge ``run``'s stored outputs again (``rejudge``, as ``corral report --recheck`` does) and write the verdicts
    into its records.jsonl; return how many records changed."""
    records = raw_records(run)
    judged = rejudge(read_config(run), records)
    changed = sum(a != b for a, b in zip(records, judged, strict=True))
    if changed:
        write_records(run, judged)
    return changed


def outside_config(run: Path) -> list[SampleRecord]:
    """Records the run's config does not select (another instance, a sample or round beyond it)."""
    config = read_config(run)
    selected = set(config.instances)
    return [r for r in raw_records(run) if r.instance not in selected or not 0 <= r.sample < config.samples
            or not 0 <= r.round <= config.rounds]


def drop_outside_config(run: Path) -> int:
    """Remove the records (and their likelihood lines) outside ``run``'s config; return how many records."""
    dropped = {r.key for r in outside_config(run)}
    if not dropped:
        return 0
    write_records(run, [r for r in raw_records(run) if r.key not in dropped])
    likelihoods = run / LIKELIHOODS_FILE
    if likelihoods.is_file():
        kept = [line for line in likelihoods.read_text(encoding="utf-8").splitlines(keepends=True)
                if line.strip() and _likelihood_key(line) not in dropped]
        atomic_write(likelihoods, "".join(kept))
    return len(dropped)


def _likelihood_key(line: str) -> tuple[str, int, int]:
    row = json.loads(line)
    return row["instance"], row["sample"], row["round"]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="", help="only the runs and reports below docs/results/ONLY")
    parser.add_argument("--drop-outside-config", nargs="*", default=[], metavar="RUN", type=Path,
                        help="remove these runs' records outside their config's instances, samples and rounds "
                             "(never done otherwise; they never count in a summary)")
    args = parser.parse_args(argv)
    import os

    os.chdir(ROOT)
    scope = RESULTS / args.only if args.only else RESULTS

    def inside(path: Path) -> bool:
        return path == scope or scope in path.parents

    for run in args.drop_outside_config:
        print(f"{run}: dropped {drop_outside_config(run)} records outside its config")
    commands = [c for c in report_commands() if inside(c.out)]
    rechecked = sorted({run for c in commands if c.recheck for run in c.runs})
    for run in rechecked:
        print(f"{run}: {write_back_rejudged(run)} records rejudged and written back")
    for run in find_runs(scope):
        atomic_write(run / SUMMARY_FILE, summary_text(run))
        extra = outside_config(run)
        note = f" ({len(extra)} records outside its config, not counted; --drop-outside-config removes them)" \
            if extra else ""
        print(f"{run}/{SUMMARY_FILE}{note}")
    for command in commands:
        print(command.write())
    listed = {str(c.out / "report.md") for c in report_commands()} | set(NOT_CORRAL_REPORT)
    unlisted = [p for p in sorted(scope.rglob("report.md")) if str(p) not in listed]
    for page in unlisted:
        print(f"warning: {page} has no command in REPORTS; not remade", file=sys.stderr)
    return 1 if unlisted else 0


if __name__ == "__main__":
    sys.exit(main())
