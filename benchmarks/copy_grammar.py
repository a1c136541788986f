"""Per-instance copy grammars: build time and mask time of ``corral.grammars.copy_tree`` against the span CFG.

    python benchmarks/copy_grammar.py --words 40 --json   # one length; the last line is a JSON object
    python benchmarks/copy_grammar.py [--out docs/results/copy_grammar.png]   # sweep 8..120 words, and a plot

A constituency parser's grammar copies the sentence: its trees' leaves must be the input words in order, so it is
built once per sentence. The compile time measured is what a constrained run pays per instance: the grammar
built, then an llguidance matcher for the bundled SmolLM2 vocabulary (49k tokens). The baseline is the obvious
encoding, a nonterminal per span and per split point (O(n³) rules), built and compiled the same way (up to 40
words: beyond, it takes seconds). Mask time is one full token mask along a random well-formed tree over the
words, tokenized as the model would write it. Words are consecutive words of the bundled public-domain corpus
(Moby-Dick and State of the Union addresses), labels and tags the Penn Treebank's. Both encodings accept the same
trees (``tests/grammars/test_copy.py`` checks it on samples).
"""

from __future__ import annotations

import argparse
import gc
import gzip
import itertools
import json
import random
import sys
import time
from importlib.resources import files

import numpy as np

LABELS = ("S", "NP", "VP", "PP", "ADJP", "ADVP", "SBAR", "WHNP", "PRN", "QP", "UCP", "NX", "FRAG", "SINV", "SQ",
          "CONJP", "INTJ", "LST", "NAC", "PRT", "RRC", "SBARQ", "WHADJP", "WHADVP", "WHPP", "X")
TAGS = ("CC", "CD", "DT", "EX", "FW", "IN", "JJ", "JJR", "JJS", "LS", "MD", "NN", "NNS", "NNP", "NNPS", "PDT", "POS",
        "PRP", "PRP$", "RB", "RBR", "RBS", "RP", "SYM", "TO", "UH", "VB", "VBD", "VBG", "VBN", "VBP", "VBZ", "WDT",
        "WP", "WP$", "WRB", ".", ",", ":", "``", "''", "-LRB-", "-RRB-", "HYPH", "NFP", "ADD", "AFX", "GW", "$")
TAG_RULE = " | ".join(json.dumps(tag) for tag in TAGS)
SWEEP = (8, 15, 25, 40, 60, 80, 120)


def corpus_words() -> list[str]:
    path = files("corral.corpora") / "data" / "public_domain.jsonl.gz"
    with gzip.open(str(path), "rt", encoding="utf-8") as f:
        return [w for line in list(f)[:20] for w in json.loads(line)["text"].split()]


def naive_source(words: list[str]) -> str:
    """The span CFG: ``t_i_j`` a tree over words i..j, ``f_i_j`` its children (O(n³) alternatives)."""
    n, lines = len(words), [f"start: t_0_{len(words)}"]
    for i in range(n):
        for j in range(i + 1, n + 1):
            alternatives = [f'"(" LABEL " " f_{i}_{j} ")"']
            if j == i + 1:
                alternatives.append(f'"(" TAG " " {json.dumps(words[i])} ")"')
            lines.append(f"t_{i}_{j}: " + " | ".join(alternatives))
            lines.append(f"f_{i}_{j}: " + " | ".join([f"t_{i}_{j}"] + [f't_{i}_{k} " " f_{k}_{j}'
                                                                          for k in range(i + 1, j)]))
    lines += ["LABEL: " + " | ".join(json.dumps(label) for label in LABELS), f"TAG: {TAG_RULE}"]
    return "\n".join(lines)


def random_tree(words: list[str], rng: random.Random) -> str:
    """A random well-formed tree over ``words`` (every bracket with at least one child)."""
    def build(lo: int, hi: int) -> str:
        if hi - lo == 1 and rng.random() < 0.7:
            return f"({rng.choice(TAGS)} {words[lo]})"
        cuts = sorted(rng.sample(range(lo + 1, hi), min(hi - lo - 1, rng.randint(1, 3)))) if hi - lo > 1 else []
        bounds = [lo, *cuts, hi]
        return f"({rng.choice(LABELS)} " + " ".join(build(a, b) for a, b in itertools.pairwise(bounds)) + ")"
    return build(0, len(words))


def measure(n: int, repeats: int, naive_repeats: int, tokenizer, buffer: np.ndarray, words: list[str],
            seed: int = 0) -> dict[str, float]:
    from llguidance import LLMatcher

    from corral.grammars import Grammar, copy_tree

    rng = random.Random(seed + n)
    compile_s: list[float] = []
    naive_s: list[float] = []
    mask_s: list[float] = []
    for rep in range(repeats):
        start = rng.randrange(len(words) - n)
        sentence = words[start:start + n]
        gc.collect()
        gc.disable()
        began = time.perf_counter()
        matcher = LLMatcher(tokenizer, copy_tree(sentence, LABELS, rules={"TAG": TAG_RULE}).llguidance(), log_level=0)
        compile_s.append(time.perf_counter() - began)
        if rep < naive_repeats:
            began = time.perf_counter()
            naive = LLMatcher(tokenizer, Grammar("lark", naive_source(sentence)).llguidance(), log_level=0)
            naive_s.append(time.perf_counter() - began)
            if naive.is_error():
                raise SystemExit(f"the span CFG failed at {n} words: {naive.get_error()[:200]}")
        gc.enable()
        if matcher.is_error():
            raise SystemExit(f"the copy grammar failed at {n} words: {matcher.get_error()[:200]}")
        if rep < 5:
            for token in tokenizer.tokenize_str(random_tree(sentence, rng)):
                began = time.perf_counter()
                matcher.unsafe_compute_mask_ptr(buffer.ctypes.data, buffer.nbytes)
                mask_s.append(time.perf_counter() - began)
                if not matcher.consume_token(token):
                    raise SystemExit(f"the copy grammar refused a well-formed tree at {n} words")
    row = {"words": n, "p50_ms": float(np.percentile(compile_s, 50)) * 1e3,
           "p99_ms": float(np.percentile(compile_s, 99)) * 1e3,
           "naive_p50_ms": float(np.percentile(naive_s, 50)) * 1e3 if naive_s else None,
           "mask_p50_us": float(np.percentile(mask_s, 50)) * 1e6, "mask_p99_us": float(np.percentile(mask_s, 99)) * 1e6}
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--words", type=int, default=None, help="One sentence length (default: sweep 8..120).")
    parser.add_argument("--repeats", type=int, default=100)
    parser.add_argument("--json", action="store_true", help="Print the figures as JSON on the last line.")
    parser.add_argument("--out", default="copy_grammar.png", help="The sweep's plot.")
    args = parser.parse_args()

    from corral.models import load_model

    model = load_model("smollm2")
    tokenizer, buffer = model.masks.tokenizer, model.masks.mask_buffer()[0]
    words = corpus_words()
    measure(8, 3, 1, tokenizer, buffer, words)  # warm up: first-call imports are not compile time
    lengths = (args.words,) if args.words else SWEEP
    rows = []
    for n in lengths:
        naive_repeats = 0 if n > 40 else (5 if n > 25 else 20)
        rows.append(measure(n, args.repeats, naive_repeats, tokenizer, buffer, words))
        row = rows[-1]
        naive = f"{row['naive_p50_ms']:.1f} ms" if row["naive_p50_ms"] is not None else "—"
        print(f"{n:4d} words: copy grammar p50 {row['p50_ms']:.2f} ms, p99 {row['p99_ms']:.2f} ms; span CFG p50 "
              f"{naive}; mask p50 {row['mask_p50_us']:.0f} µs, p99 {row['mask_p99_us']:.0f} µs", flush=True)
    model.close()
    if not args.words:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(6, 4))
        ax.plot([r["words"] for r in rows], [r["p50_ms"] for r in rows], marker="o", label="copy_tree (p50)")
        ax.plot([r["words"] for r in rows], [r["p99_ms"] for r in rows], marker=".", label="copy_tree (p99)")
        spans = [r for r in rows if r["naive_p50_ms"] is not None]
        ax.plot([r["words"] for r in spans], [r["naive_p50_ms"] for r in spans], marker="s", label="span CFG (p50)")
        ax.set(xlabel="words in the sentence", ylabel="grammar build + matcher (ms)", yscale="log",
               title="Per-instance tree grammars, SmolLM2 vocabulary")
        ax.legend()
        fig.tight_layout()
        fig.savefig(args.out, dpi=120)
        print(f"plot: {args.out}")
    if args.json:
        print(json.dumps(rows[0] if args.words else rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
