"""How well the grammar's shortest completion closes cut-off outputs: gold programs cut at a random point.

    python benchmarks/close_at_budget.py [--n 100] [--seed 0] [--json OUT]

For ``n`` Spider dev gold queries (under their database's SQLite grammar) and ``n`` SMCalFlow dev-100 gold
programs (under BenchCLAMP's rebuilt Lispress grammar), each cut at a uniformly random byte, this runs
``corral.grammars.shortest_completion`` with its default budgets and prints: how many prefixes were closed, the
search time (p50, p99, max), and the completion's length against the rest of the gold text it replaced (the
gold rest is one completion, so the search's must be no longer). A cut-off model output is harder than a cut
gold program only in how deep it nests; the results pages give those cases.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time

from corral.grammars import Grammar, shortest_completion
from corral.suites.clamp import spider_questions, spider_schemas, sql_grammar
from corral.suites.clamp._calflow import calflow_split
from corral.suites.clamp._calflow_grammar import benchclamp_lispress_grammar


def measure(cases: list[tuple[Grammar, str]], rng: random.Random) -> dict:
    times, closed, shorter, total = [], 0, 0, 0
    for grammar, gold in cases:
        cut = rng.randrange(len(gold) + 1)
        prefix = gold[:cut]
        started = time.perf_counter()
        completion = shortest_completion(grammar, prefix)
        times.append(time.perf_counter() - started)
        total += 1
        if completion is not None:
            closed += 1
            shorter += len(completion.encode()) <= len(gold[cut:].encode())
    times.sort()
    return {"cases": total, "closed": closed, "no_longer_than_gold_rest": shorter,
            "p50_ms": 1000 * statistics.median(times), "p99_ms": 1000 * times[int(0.99 * (len(times) - 1))],
            "max_ms": 1000 * times[-1]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    schemas = spider_schemas()
    questions = rng.sample(spider_questions(), args.n)
    spider = [(sql_grammar(schemas[q.db_id]), q.query) for q in questions]
    lispress_grammar = benchclamp_lispress_grammar("benchclamp")
    turns = calflow_split("dev-100").test[: args.n]
    lispress = [(lispress_grammar, turn.lispress) for turn in turns]
    results = {"spider": measure(spider, rng), "lispress": measure(lispress, rng)}
    for name, row in results.items():
        print(f"{name:9} closed {row['closed']}/{row['cases']}, no longer than the gold rest "
              f"{row['no_longer_than_gold_rest']}/{row['closed']}; search p50 {row['p50_ms']:.1f} ms, "
              f"p99 {row['p99_ms']:.1f} ms, max {row['max_ms']:.1f} ms")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
