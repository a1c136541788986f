"""Rebuild the shipped FormatBench data: ``python -m scripts.formatbench --shared ../shared/data``.

Every builder is deterministic, so a rebuild from the same sources gives byte-identical files (the tests check
this against the shipped ones). The Agent task needs TextWorld (``pip install textworld==1.7.0``) and is rebuilt
only with ``--agent``: its games are generated offline and played through to record each state's admissible
commands and scores, which takes minutes.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from corral.suites.formatbench import write_instances

DATA = Path(__file__).resolve().parents[2] / "src" / "corral" / "suites" / "formatbench" / "data"


def builders(shared: Path) -> dict[str, Callable[[], list[dict[str, Any]]]]:
    """The task name → a function building its rows, for the tasks made from ``shared`` (and FTime's templates)."""
    from . import build_misc, build_text, build_ud

    made: dict[str, Callable[[], list[dict[str, Any]]]] = {}
    for group in (build_ud.BUILDERS, build_text.BUILDERS):
        made |= {task: (lambda build=build: build(shared)) for task, build in group.items()}
    made["ftime"] = build_misc.build_ftime
    made["xdl"] = lambda: build_misc.build_xdl(shared)
    return made


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shared", type=Path, default=Path("../shared/data"), help="the shared/data folder")
    parser.add_argument("--out", type=Path, default=DATA, help="where to write the .jsonl.gz files")
    parser.add_argument("--tasks", default="", help="only these tasks (comma-separated)")
    parser.add_argument("--agent", action="store_true", help="also rebuild the Agent task (needs textworld)")
    args = parser.parse_args(argv)
    if not args.shared.is_dir():
        parser.error(f"--shared {args.shared}: no such folder")
    wanted = {t for t in args.tasks.split(",") if t}
    args.out.mkdir(parents=True, exist_ok=True)
    for task, build in builders(args.shared).items():
        if not wanted or task in wanted:
            path = write_instances(task, build(), args.out)
            print(f"{path} ({path.stat().st_size:,} bytes)")
    if args.agent or "agent" in wanted:
        from .build_agent import main as build_agent

        build_agent(args.out)


if __name__ == "__main__":
    main()
