"""Corral's exact collie-v1 tokenizers against nltk's, on the COLLIE-v1 dev generations, in one run.

Usage: python benchmarks/tokenizer_throughput.py [--repeat 5] [--data PATH]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path

from nltk.tokenize import NLTKWordTokenizer
from nltk.tokenize.punkt import PunktSentenceTokenizer

from corral.jsonl import iter_jsonl
from corral.text._punkt_fast import punkt_spans
from corral.text._treebank_fast import treebank_tokens

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "collie" / "generations_dev.jsonl"


def best_rate(fn: Callable[[str], object], items: list[str], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for item in items:
            fn(item)
        best = min(best, time.perf_counter() - start)
    return len(items) / best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    args = parser.parse_args()
    texts = [row["text"] for row in iter_jsonl(args.data)]
    punkt, words = PunktSentenceTokenizer(), NLTKWordTokenizer()
    sentences = [s for t in texts for s in punkt.tokenize(t)]
    assert all(punkt_spans(t) == list(punkt.span_tokenize(t)) for t in texts)
    assert all([tok for tok, _, _ in treebank_tokens(s)] == words.tokenize(s) for s in sentences)
    rows = [
        ("untrained Punkt (texts/s)", lambda t: list(punkt.span_tokenize(t)), punkt_spans, texts),
        ("NLTKWordTokenizer (sentences/s)", words.tokenize, treebank_tokens, sentences),
    ]
    for name, reference, fast, items in rows:
        ref, ours = best_rate(reference, items, args.repeat), best_rate(fast, items, args.repeat)
        print(f"{name:34s} nltk {ref:10,.0f}   corral {ours:10,.0f}   {ours / ref:5.1f}x")


if __name__ == "__main__":
    main()
