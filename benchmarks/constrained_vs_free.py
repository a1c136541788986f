"""Checker pass rates with and without the compiled grammar, on the same prompts, bundled SmolLM2 (llamacpp).

    python benchmarks/constrained_vs_free.py [--per-structure 4]

The prompts are the COLLIE-v1 instances' own instructions (the first compilable instances of each structure,
as in tests/models/test_llamacpp_backend.py) and five JSON Schemas; greedy decoding.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import jsonschema

from corral.grammars import compile_schema
from corral.models import Request, Sampling, load_model

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "models"))
from test_llamacpp_backend import MAX_TOKENS, SCHEMAS, _collie_cases

from corral.constraints import check


def _valid(text: str, schema: dict) -> bool:
    try:
        jsonschema.validate(json.loads(text), schema)
    except (ValueError, jsonschema.ValidationError):
        return False
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--per-structure", type=int, default=4)
    args = parser.parse_args()
    model = load_model("smollm2", n_ctx=4096)
    cases = _collie_cases(args.per_structure)
    rows = []
    for mode in ("free", "constrained"):
        requests = [Request.user(inst.prompt, Sampling(max_tokens=MAX_TOKENS[c.level]),
                                 grammar=g if mode == "constrained" else None) for inst, c, g in cases]
        results = model.complete(requests)
        passed = sum(check(c, out.text).passed for (_, c, _), [out] in zip(cases, results, strict=True))
        schema_requests = [Request.user(f"Reply with JSON for this schema: {json.dumps(s)}",
                                        Sampling(max_tokens=160),
                                        grammar=None if mode == "free" else compile_schema(s, "json"))
                           for s in SCHEMAS]
        schema_results = model.complete(schema_requests)
        valid = sum(_valid(out.text, s) for s, [out] in zip(SCHEMAS, schema_results, strict=True))
        rows.append((mode, passed, len(cases), valid, len(SCHEMAS)))
    print("| decoding | COLLIE-v1 checker pass | JSON Schema valid |\n|---|---|---|")
    for mode, passed, total, valid, schemas in rows:
        print(f"| {mode} | {passed}/{total} ({passed / total:.0%}) | {valid}/{schemas} ({valid / schemas:.0%}) |")


if __name__ == "__main__":
    main()
