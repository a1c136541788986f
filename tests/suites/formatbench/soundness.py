"""Shared check for FormatBench grammars: texts sampled from an instance's grammar pass the strict checker.

``assert_sound(task, rows)`` samples ``per_instance`` texts from each row's grammar (Corral's byte-level grammar
sampler, seeded random walks that prefer to close brackets and quotes) and checks each with the task's strict
checker: for an exact grammar every text must pass; otherwise every violation must be of a rule the grammar
says it leaves to the checker.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from corral.grammars import random_walk, sample
from corral.suites.formatbench import check_format, format_grammar


def assert_sound(task: str, rows: Iterable[Mapping[str, Any]], per_instance: int = 20, max_bytes: int = 4000,
                 stop: float = 0.2, close: float = 0.5) -> int:
    """Sample and check; returns how many texts were checked (the caller asserts it is not trivially 0)."""
    checked = 0
    for row in rows:
        built = format_grammar(task, row)
        allowed = set(built.left_to_checker)
        for seed in range(per_instance):
            text = sample(built.grammar, random_walk(seed, stop=stop, close=close), max_bytes=max_bytes)
            if text is None:
                continue
            verdict = check_format(task, row, text)
            broken = {v.rule for v in verdict.violations}
            assert broken <= allowed, (f"{task} {row.get('id')}: grammar text {text[:300]!r} breaks "
                                       f"{sorted(broken - allowed)}: {verdict.feedback[:300]}")
            checked += 1
    return checked
