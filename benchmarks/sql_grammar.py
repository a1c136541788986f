"""Spider's SQLite grammar under SmolLM2's vocabulary: compile time, token-mask time, and how often llguidance gives
up (``ParserTooComplex``), for the grammar as shipped (lexer rules folded into whole lexemes) against the same
language written a character at a time (BenchCLAMP's SCFG as it is).

    python benchmarks/sql_grammar.py [--every 10] [--json OUT]

Compile time is the first build of a database's grammar and matcher (both are cached after). For every
``every``-th dev question, each grammar is compiled for the question's database and the gold query's
tokens are fed one by one, with a full mask computed before each (what constrained decoding does when the model's
own token is refused). A question counts as failed when the matcher reports an error before the end.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from corral.models import load_model
from corral.suites.clamp import spider_questions, spider_schemas, sql_grammar


def measure(model, questions, lexemes: bool) -> dict:
    factory = model.masks
    llama = model._llama
    schemas = spider_schemas()
    compiles, masks, failed = [], [], 0
    compiled: set[str] = set()
    for question in questions:
        started = time.perf_counter()
        grammar = sql_grammar(schemas[question.db_id], lexemes=lexemes)
        matcher = factory.matcher(grammar)
        if question.db_id not in compiled:  # grammar and matcher are cached per database after the first
            compiles.append(time.perf_counter() - started)
            compiled.add(question.db_id)
        words = factory.mask_buffer()[0]
        for token in llama.tokenize(question.query.encode(), add_bos=False, special=False):
            started = time.perf_counter()
            factory.forbidden(matcher, words)
            masks.append(time.perf_counter() - started)
            if matcher.is_error() or not matcher.consume_token(token):
                failed += 1
                break
    masks.sort()
    return {"questions": len(questions), "failed": failed, "compile_p50_ms": statistics.median(compiles) * 1e3,
            "mask_p50_ms": statistics.median(masks) * 1e3, "mask_p99_ms": masks[int(0.99 * (len(masks) - 1))] * 1e3,
            "masks": len(masks)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--every", type=int, default=10)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    model = load_model("smollm2")
    questions = spider_questions()[:: args.every]
    found = {"lexemes": measure(model, questions, True), "characters": measure(model, questions, False)}
    for name, row in found.items():
        print(f"{name:10}  {row['questions']} questions, failed {row['failed']}, compile p50 "
              f"{row['compile_p50_ms']:.1f} ms, mask p50 {row['mask_p50_ms']:.2f} ms, p99 {row['mask_p99_ms']:.2f} ms "
              f"({row['masks']} masks)")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(found, f, indent=2)


if __name__ == "__main__":
    main()
