"""Schema-to-grammar compile time, mask time and coverage on JSONSchemaBench's 3,000 real schemas, in one run.

    python benchmarks/schema_compile.py [--n 3000] [--steps 16] [--samples 2] [--out FILE.json]

For JSON output it compares Corral's path (``compile_schema(schema, "json")``, then an llguidance matcher for the
bundled SmolLM2 vocabulary) with the same engine used directly (``LLMatcher.grammar_from_json_schema`` on the
schema, then the matcher): compile p50/p99 and the ratio of total compile time, and the time of one full token
mask (p50/p99) over ``--steps`` tokens of a seeded random walk through both matchers (the same tokens, where
both allow them). The two are timed alternately, schema by schema, so machine noise hits both alike, with the
garbage collector paused while they run (as ``timeit`` does).

Coverage is reported as JSONSchemaBench does, separately:
* declared: the schema compiles (no error, no refusal);
* empirical: it compiles, some text is drawn, and every text drawn from the grammar parses and validates against
  the schema with Corral's validator. The texts come from ``--samples`` byte-level random walks
  (``corral.grammars.sample``) and one more that takes a closing quote or bracket half the time it may: a
  uniform byte closes a string about once in 200, so on schemas with many required strings the plain walks
  ran past 4,000 bytes and drew nothing (84 of 3,000 schemas);
* compliance: empirical / declared, over the schemas the validator can judge (it cannot judge one with an
  unresolvable ``$ref`` or a pattern its ECMA-262 engine refuses: such schemas are counted apart).
For the engine used directly, declared = llguidance accepts the schema (strict mode, as JSONSchemaBench ran it),
and empirical coverage uses the same walks. YAML and XML (Corral's own compiler) get compile times and coverage
the same way. Schemas whose validation itself fails (an unresolvable ``$ref``) are counted apart.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import sys
import time
from typing import Any

import numpy as np


def _percentile(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) if values else float("nan")


def _masks(matcher, words: np.ndarray, steps: int, seed: int) -> list[float]:
    """Seconds per full mask over a seeded random walk of ``steps`` tokens."""
    rng = random.Random(seed)
    times: list[float] = []
    for _ in range(steps):
        started = time.perf_counter()
        matcher.unsafe_compute_mask_ptr(words.ctypes.data, words.nbytes)
        times.append(time.perf_counter() - started)
        allowed = np.flatnonzero(np.unpackbits(words.view(np.uint8), bitorder="little"))
        if matcher.is_error() or len(allowed) == 0:
            break
        token = int(allowed[rng.randrange(len(allowed))])
        if matcher.is_stopped() or not matcher.consume_token(token) or matcher.is_stopped():
            break
    return times


def _empirical(schema: Any, grammar, output: str, samples: int, seed: int) -> bool | None:
    """True if every drawn text is a valid sample; None if no text could be drawn within the byte budget.
    Raises ``SchemaInputError`` where the validator cannot judge a drawn text (a pattern it cannot compile)."""
    from corral.grammars import random_walk, sample
    from corral.schema import SchemaInputError, parse_sample
    from corral.schema._validate import is_valid

    drawn = 0
    walks = [random_walk(seed + k, 0.1 + 0.2 * k) for k in range(samples)]
    walks.append(random_walk(seed + samples, 0.3, close=0.5))  # short values, as a model writes them
    for walk in walks:
        try:
            text = sample(grammar, walk, max_bytes=4000)
        except ValueError:
            return False
        if text is None:
            continue
        drawn += 1
        try:
            value = parse_sample(text, output, extract=False)  # type: ignore[arg-type]
        except ValueError:
            return False
        try:
            if not is_valid(schema, value):
                return False
        except SchemaInputError:
            raise
        except ValueError:
            return False
    return True if drawn else None


def _miss(misses: dict[str, dict[str, list[str]]], path: str, ident: str, schema: Any, output: str) -> None:
    """File a drawn text that fails validation under ``exact`` (every keyword enforced while decoding: a compiler
    bug) or ``after`` (a keyword the enforcement report leaves to the validator: expected)."""
    from corral.grammars import enforcement

    sound = enforcement(schema, output).sound  # type: ignore[arg-type]
    misses[path]["exact" if sound else "after"].append(ident)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=3000)
    parser.add_argument("--steps", type=int, default=16)
    parser.add_argument("--samples", type=int, default=2)
    parser.add_argument("--out", default=None, help="Also write the figures as JSON here.")
    args = parser.parse_args()

    from llguidance import LLMatcher

    from corral.grammars import GrammarError, compile_schema
    from corral.grammars.schema._plan import json_plan  # noqa: F401  (imported before timing)
    from corral.models import load_model
    from corral.schema import SchemaInputError
    from corral.schema._realworld import jsonschemabench

    model = load_model("smollm2")
    factory = model.masks
    tokenizer, words = factory.tokenizer, factory.mask_buffer()[0]
    schemas = jsonschemabench()[: args.n]
    for output in ("json", "yaml", "xml"):  # warm up: first-call imports are not compile time
        LLMatcher(tokenizer, compile_schema({"type": "integer"}, output).llguidance(), log_level=0)

    compile_s: dict[str, list[float]] = {"direct": [], "corral": [], "yaml": [], "xml": []}
    mask_s: dict[str, list[float]] = {"direct": [], "corral": []}
    declared = {k: 0 for k in ("direct", "corral", "yaml", "xml")}
    empirical = {k: 0 for k in ("direct", "corral", "yaml", "xml")}
    undrawn = {k: 0 for k in ("direct", "corral", "yaml", "xml")}
    judged = {k: 0 for k in ("direct", "corral", "yaml", "xml")}  # declared, and the validator can judge it
    pair_total = {"direct": 0.0, "corral": 0.0}
    unvalidatable = 0
    refusals: dict[str, int] = {}
    misses: dict[str, dict[str, list[str]]] = {k: {"exact": [], "after": []} for k in ("corral", "yaml", "xml")}
    for i, bench in enumerate(schemas):
        schema = bench.schema
        order = ("direct", "corral") if i % 2 == 0 else ("corral", "direct")
        compiled: dict[str, Any] = {}
        seconds: dict[str, float] = {}
        gc.collect()
        gc.disable()  # as timeit does: a collection of the benchmark's own garbage is no one's compile time
        for path in order:
            started = time.perf_counter()
            try:
                if path == "direct":
                    source = LLMatcher.grammar_from_json_schema(json.dumps(schema),
                                                                defaults={"whitespace_flexible": False})
                    grammar = None
                else:
                    grammar = compile_schema(schema, "json")
                    source = grammar.llguidance()
                matcher = LLMatcher(tokenizer, source, log_level=0)
                ok = not matcher.is_error()
            except (GrammarError, ValueError, RecursionError) as exc:
                ok, matcher, grammar = False, None, None
                if path == "corral":
                    reason = str(exc).split(":")[0][:60]
                    refusals[reason] = refusals.get(reason, 0) + 1
            seconds[path] = time.perf_counter() - started
            if ok:
                compiled[path] = (matcher, grammar, source)
        gc.enable()
        for path, (matcher, _, _) in compiled.items():
            compile_s[path].append(seconds[path])
            declared[path] += 1
            mask_s[path].extend(_masks(matcher, words, args.steps, seed=i))
        if len(compiled) == 2:  # the ratio over schemas both compile
            pair_total["direct"] += seconds["direct"]
            pair_total["corral"] += seconds["corral"]
        from corral.grammars import Grammar

        walks = {path: grammar if grammar is not None else Grammar("json_schema", json.dumps(schema), "direct")
                 for path, (_, grammar, _source) in compiled.items()}
        for output in ("yaml", "xml"):
            started = time.perf_counter()
            try:
                walks[output] = compile_schema(schema, output)  # type: ignore[arg-type]
            except (GrammarError, ValueError, RecursionError):
                continue
            compile_s[output].append(time.perf_counter() - started)
            declared[output] += 1
        try:  # a schema the validator cannot judge (an unresolvable $ref, a pattern it cannot compile) counts apart
            from corral.schema._validate import is_valid

            is_valid(schema, None)
            verdicts = {path: _empirical(schema, walked, "json" if path in ("direct", "corral") else path,
                                         args.samples, seed=i) for path, walked in walks.items()}
        except (SchemaInputError, RecursionError, ValueError):
            unvalidatable += 1
            continue
        for path, verdict in verdicts.items():
            judged[path] += 1
            empirical[path] += verdict is True
            undrawn[path] += verdict is None
            if verdict is False and path != "direct":
                _miss(misses, path, bench.id, schema, "json" if path == "corral" else path)
        if (i + 1) % 250 == 0:
            print(f"{i + 1}/{len(schemas)} schemas", file=sys.stderr, flush=True)
    model.close()

    n = len(schemas)
    figures: dict[str, Any] = {"schemas": n, "unvalidatable": unvalidatable, "paths": {},
                               "compile_ratio_corral_over_direct": pair_total["corral"] / pair_total["direct"],
                               "corral_refusals": dict(sorted(refusals.items(), key=lambda kv: -kv[1]))}
    print(f"JSONSchemaBench, {n} schemas ({unvalidatable} whose own validation fails, e.g. unresolvable $ref)")
    print("| path | compile p50 | compile p99 | mask p50 | mask p99 | declared | empirical | compliance |")
    print("|---|---|---|---|---|---|---|---|")
    names = {"direct": "JSON: llguidance directly", "corral": "JSON: Corral compile_schema",
             "yaml": "YAML: Corral compile_schema", "xml": "XML: Corral compile_schema"}
    for path, name in names.items():
        c, m = compile_s[path], mask_s.get(path, [])
        row = {"compile_p50_ms": _percentile(c, 50) * 1e3, "compile_p99_ms": _percentile(c, 99) * 1e3,
               "mask_p50_us": _percentile(m, 50) * 1e6 if m else None,
               "mask_p99_us": _percentile(m, 99) * 1e6 if m else None,
               "declared": declared[path] / n, "empirical": empirical[path] / n,
               "compliance": empirical[path] / judged[path] if judged[path] else 0.0,
               "no_text_drawn": undrawn[path]}
        figures["paths"][path] = row
        mask = f"{row['mask_p50_us']:.0f} µs | {row['mask_p99_us']:.0f} µs" if m else "— | —"
        print(f"| {name} | {row['compile_p50_ms']:.2f} ms | {row['compile_p99_ms']:.2f} ms | {mask} | "
              f"{row['declared']:.1%} | {row['empirical']:.1%} | {row['compliance']:.1%} |")
    print(f"total compile time, Corral / direct, over schemas both compile: "
          f"{figures['compile_ratio_corral_over_direct']:.3f}")
    figures["misses"] = misses
    for path, split in misses.items():
        print(f"{names[path]}: texts failing validation on {len(split['after'])} schemas with keywords checked "
              f"after, {len(split['exact'])} with every keyword exact {split['exact'][:10]}")
    if refusals:
        print("Corral's JSON refusals:", ", ".join(f"{k} ({v})" for k, v in list(refusals.items())[:8]))
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(figures, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
