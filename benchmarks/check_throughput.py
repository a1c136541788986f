"""Verdicts per second over the COLLIE-v1 dev generations, one process, best of N.

Compares, in one run:
  * corral      — the collie-v1 profile as shipped (lazy segmentation, Corral's exact fast tokenizers);
  * corral-nltk — the same checker on nltk's own tokenizers (Punkt + NLTKWordTokenizer), segmenting once
                  per text and level: the "segment once" baseline the issue warns is not enough.
The COLLIE reference checker (re-tokenising per sub-constraint) does about 2,150 verdicts/s on this machine
class (figure from the issue, measured the same way); the script prints Corral's ratio to it too.

Usage: python benchmarks/check_throughput.py [--repeat 5] [--data PATH]
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from pathlib import Path

from corral.constraints import check
from corral.jsonl import read_jsonl
from corral.registry import profiles
from corral.suites.collie import constraint_for
from corral.text import _collie_v1, get_profile

REFERENCE_VERDICTS_PER_S = 2150
DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "collie" / "generations_dev.jsonl"


def best_rate(constraints, texts, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for c, t in zip(constraints, texts, strict=True):
            check(c, t)
        best = min(best, time.perf_counter() - start)
    return len(texts) / best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    args = parser.parse_args()

    rows = read_jsonl(args.data)
    texts = [r["text"] for r in rows]
    constraints = [constraint_for(r["code"], r["targets"]) for r in rows]
    agree = sum(check(c, t).passed == r["collie_verdict"] for c, t, r in zip(constraints, texts, rows, strict=True))

    if "collie-v1-nltk" not in profiles:
        profiles.register("collie-v1-nltk", func=dataclasses.replace(
            get_profile("collie-v1"), name="collie-v1-nltk", split=_collie_v1.reference_split))
    nltk_constraints = [dataclasses.replace(c, profile="collie-v1-nltk") for c in constraints]

    fast = best_rate(constraints, texts, args.repeat)
    slow = best_rate(nltk_constraints, texts, max(1, min(args.repeat, 2)))
    print(f"texts: {len(texts)}   agreement with the reference verdicts: {agree}/{len(texts)}")
    print(f"corral (collie-v1, fast tokenizers): {fast:10,.0f} verdicts/s (best of {args.repeat})")
    print(f"corral on nltk tokenizers          : {slow:10,.0f} verdicts/s")
    print(f"ratio corral / corral-on-nltk      : {fast / slow:10.1f}x")
    print(f"ratio corral / COLLIE reference    : {fast / REFERENCE_VERDICTS_PER_S:10.1f}x "
          f"(reference: {REFERENCE_VERDICTS_PER_S:,} verdicts/s on this machine class)")


if __name__ == "__main__":
    main()
