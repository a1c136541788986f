"""Verdicts per second over the COLLIE-v1 dev generations, one process, best of N rounds run alternately.

Compares, in one run:
  * corral      — the collie-v1 profile as shipped (lazy segmentation, Corral's exact fast tokenizers, the check
                  budget on);
  * reference   — the COLLIE reference checker itself (princeton-nlp/Collie, ``collie.constraints``), on the
                  constraint objects it published in ``data/all_data.dill``, with the tokenizers its verdicts in
                  the shared data were computed with (nltk's untrained Punkt, NLTKWordTokenizer): pass a checkout
                  with ``--reference DIR`` (``git clone https://github.com/princeton-nlp/Collie``); nothing of it
                  is copied into Corral;
  * corral-nltk — Corral's checker on nltk's own tokenizers, segmenting once per text and level.
Each round runs every checker once, in turn, so that a slower moment of a shared machine hits all of them alike.

Usage: python benchmarks/check_throughput.py [--repeat 3] [--data PATH] [--reference DIR]
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
import types
from collections.abc import Callable
from pathlib import Path

from corral.constraints import check
from corral.jsonl import read_jsonl
from corral.suites.collie import constraint_for

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "collie" / "generations_dev.jsonl"


def timed(run: Callable[[], object]) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def reference_checks(checkout: Path, rows: list[dict]) -> Callable[[], list[bool]]:
    """A function running the reference checker on every row (its own constraint object for the row's prompt)."""
    import dill
    from nltk.tokenize import NLTKWordTokenizer
    from nltk.tokenize.punkt import PunktSentenceTokenizer

    if "rich" not in sys.modules:  # the reference imports rich only to print; its checks never do
        try:
            import rich  # noqa: F401
        except ImportError:
            sys.modules["rich"] = types.SimpleNamespace(print=print)  # type: ignore[assignment]
    sys.path.insert(0, str(checkout))
    import collie.constraints as reference

    punkt, words = PunktSentenceTokenizer(), NLTKWordTokenizer()
    # what the shared verdicts were computed with (data/collie/SOURCE.md): nltk's word_tokenize and sent_tokenize
    # with an untrained Punkt, which is what they do without the downloaded punkt model
    reference.sent_tokenize = punkt.tokenize
    reference.word_tokenize = lambda text: [w for s in punkt.tokenize(text) for w in words.tokenize(s)]
    with (checkout / "data" / "all_data.dill").open("rb") as f:
        published = dill.load(f)
    by_prompt = {x["prompt"]: x["constraint"] for examples in published.values() for x in examples}
    pairs = [(by_prompt[r["prompt"]], r["text"], r["targets"]) for r in rows]
    return lambda: [bool(c.check(text, targets)) for c, text, targets in pairs]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--reference", type=Path, help="a checkout of princeton-nlp/Collie")
    args = parser.parse_args()

    rows = read_jsonl(args.data)
    texts = [r["text"] for r in rows]
    constraints = [constraint_for(r["code"], r["targets"]) for r in rows]
    nltk_constraints = [dataclasses.replace(c, profile="collie-v1-nltk") for c in constraints]

    checkers: dict[str, Callable[[], list[bool]]] = {
        "corral": lambda: [check(c, t).passed for c, t in zip(constraints, texts, strict=True)],
        "corral-nltk": lambda: [check(c, t).passed for c, t in zip(nltk_constraints, texts, strict=True)],
    }
    if args.reference is not None:
        checkers["reference"] = reference_checks(args.reference, rows)
    expected = [r["collie_verdict"] for r in rows]
    for name, run in checkers.items():
        agree = sum(a == b for a, b in zip(run(), expected, strict=True))
        print(f"{name:12s} agrees with the published reference verdicts on {agree}/{len(rows)}")

    best = {name: float("inf") for name in checkers}
    for _ in range(args.repeat):
        for name, run in checkers.items():
            best[name] = min(best[name], timed(run))
    rate = {name: len(rows) / seconds for name, seconds in best.items()}
    for name in checkers:
        print(f"{name:12s} {rate[name]:10,.0f} verdicts/s (best of {args.repeat}, {len(rows):,} texts)")
    print(f"ratio corral / corral-nltk : {rate['corral'] / rate['corral-nltk']:6.1f}x")
    if "reference" in rate:
        print(f"ratio corral / reference   : {rate['corral'] / rate['reference']:6.1f}x")
    else:
        print("(pass --reference DIR, a checkout of princeton-nlp/Collie, to time the reference checker too)")


if __name__ == "__main__":
    main()
