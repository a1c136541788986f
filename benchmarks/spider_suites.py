"""How well the distilled test suites judge Spider's dev set, and what they cost to build.

    python benchmarks/spider_suites.py [--candidates 60] [--keep 5] [--seed 0] [--jobs 1] [--db world_1 ...]
                                       [--directory DIR] [--json OUT]

Builds the distinguishing set of every dev database (``corral.sql.distinguishing_set``) and
prints, per database and overall: the gold queries; on how many of them the gold returns rows on at least one kept
database and on all of them (and "informative": a value other than NULL or 0, on at least one); the near variants
and the share the kept databases distinguish; how many gold queries are judged correct against their own set (all
should be); the kept databases; the seconds each set took to build (the wall time of the whole run last). The sets
are written under ``--directory`` (a temporary folder by default, removed afterwards).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from pathlib import Path

from corral.sql import CANDIDATES, KEEP, DatabaseSet, distinguishing_set, execution_match
from corral.suites.clamp import spider_questions, spider_schemas


def _summary(suite: DatabaseSet) -> dict:
    golds = suite.golds
    kept = len(suite.paths)
    correct = sum(execution_match(g.query, g.query, suite.paths).correct for g in golds)
    return {"db_id": suite.db_id, "golds": len(golds), "kept": kept,
            "non_empty_any": sum(g.non_empty > 0 for g in golds),
            "non_empty_all": sum(g.non_empty == kept for g in golds),
            "informative_any": sum(g.informative > 0 for g in golds), "variants": suite.variants,
            "distinguished": suite.distinguished, "failed_variants": suite.failed_variants,
            "gold_correct": correct, "seconds": round(suite.seconds, 2),
            "missed": [{"gold": g.query, "variants": list(g.missed)} for g in golds if g.missed]}


def _line(name: str, row: dict) -> str:
    n = row["golds"]
    return (f"{name:<30} {n:>5} {row['non_empty_any'] / n:>7.1%} {row['non_empty_all'] / n:>7.1%} "
            f"{row['informative_any'] / n:>7.1%} {row['variants']:>8} {row['distinguished'] / row['variants']:>7.1%} "
            f"{row['gold_correct']:>5}/{n:<5} {row.get('kept', ''):>4} {row['seconds']:>7.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--candidates", type=int, default=CANDIDATES)
    parser.add_argument("--keep", type=int, default=KEEP)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1, help="databases built side by side (processes)")
    parser.add_argument("--db", nargs="*", help="only these databases")
    parser.add_argument("--directory", type=Path, help="where the sets go (default: a temporary folder)")
    parser.add_argument("--json", type=Path, help="write the numbers (and every missed variant) here")
    args = parser.parse_args()

    queries: dict[str, list[str]] = defaultdict(list)
    for question in spider_questions():
        if not args.db or question.db_id in args.db:
            queries[question.db_id].append(question.query)
    schemas = spider_schemas()
    order = sorted(queries, key=lambda db: -len(queries[db]))
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as scratch:
        build = partial(distinguishing_set, directory=args.directory or Path(scratch), candidates=args.candidates,
                        keep=args.keep, seed=args.seed)
        if args.jobs > 1:
            with ProcessPoolExecutor(args.jobs) as pool:
                suites = list(pool.map(build, [schemas[db] for db in order], [queries[db] for db in order]))
        else:
            suites = [build(schemas[db], queries[db]) for db in order]
        rows = sorted((_summary(suite) for suite in suites), key=lambda row: row["db_id"])
    wall = time.perf_counter() - started
    total = {key: sum(row[key] for row in rows) for key in ("golds", "non_empty_any", "non_empty_all",
                                                             "informative_any", "variants", "distinguished",
                                                             "failed_variants", "gold_correct", "seconds")}
    print(f"{args.candidates} candidates, at most {args.keep} kept, seed {args.seed}, {args.jobs} job(s)")
    print(f"{'database':<30} {'golds':>5} {'rows≥1':>7} {'rows all':>7} {'inform.':>7} {'variants':>8} "
          f"{'distin.':>7} {'gold correct':>11} {'kept':>4} {'seconds':>7}")
    for row in rows:
        print(_line(row["db_id"], row))
    print(_line("all", total))
    print(f"wall time {wall:.1f} s (building, and judging every gold query on its own set); "
          f"{total['failed_variants']} variants left out because they fail to run")
    if args.json:
        args.json.write_text(json.dumps({"candidates": args.candidates, "keep": args.keep, "seed": args.seed,
                                         "jobs": args.jobs, "wall_seconds": round(wall, 2), "total": total,
                                         "databases": rows}, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
