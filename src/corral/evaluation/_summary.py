"""A run's summary as a typed value: what ``summarize`` computes, ``evaluate`` returns, the report reads and
``summary.json`` stores.

Why typed: the summary was a dict of some thirty keys read by string in the runner, the report, the command line and
the benchmarks, so a misspelt key was a ``KeyError`` at the end of an hour's run, or a silent ``.get`` default.
Each field is named and documented once here; ``to_json`` is the stored form (the same keys as the dict had), and
``Summary.read`` reads it back, refusing a file that does not hold one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from corral.errors import InputError
from corral.files import read_input_json


class _Value(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Rate(_Value):
    """A mean of per-instance rates (``value``) with its standard error over the ``n`` instances."""

    value: float
    se: float
    n: int


class RoundRate(Rate):
    """Cumulative success at or before ``round``, and the quality of each sample's latest answer then."""

    round: int
    quality: dict[str, float]


class Counts(_Value):
    """How many records (every round) were of each kind: what the headline's rates do not show."""

    records: int
    empty: int
    truncated: int
    closed: int
    """Cut off at the token budget, then closed with the grammar's shortest completion."""
    closed_passed: int
    closing_changed_verdict: int
    """Closed outputs that pass only with the appended text."""
    closed_unjudged: int
    """Closed records written before the model's own text was judged apart (``written_passed`` unknown)."""
    appended_chars: int
    appended_chars_max: int
    errors: int
    cached: int
    missing: int
    """First attempts not yet written (an incomplete run)."""
    context: int
    repeated: int
    undecided: int
    """Checks that ran past their budget."""
    replaced: int
    """Outputs with text that could not be encoded."""


class Tokens(_Value):
    prompt: int
    completion: int


class Thinking(_Value):
    """The reasoning blocks of a run's records (every round), where the run declares one or its server separated
    one: how long the thinking was and how often the block never closed within its bound (such an output has no
    answer and fails)."""

    records: int
    """Records with a block (an empty one included)."""
    empty: int
    """Blocks with no thinking: the model answered at once, or wrote an empty block."""
    unclosed: int
    unclosed_rate: float
    """``unclosed`` as a share of ``records``."""
    mean_chars: float
    """Characters of thinking, per record with a block."""
    max_chars: int
    served: int
    """Blocks the server separated from the answer (``reasoning_content``)."""


class ZeroQuality(_Value):
    """Passing first answers, and how many of them score 0 on every quality metric (a checker can be gamed)."""

    passed: int
    zero_quality: int
    rate: float


class RuleCount(_Value):
    """A rule first attempts break: how many outputs, and that as a share of them."""

    rule: str
    count: int
    rate: float


class Summary(_Value):
    """One run's figures. Success counts what the model wrote (``passed_as_written``); ``*_with_closing`` counts
    closed passes too. ``by_group*`` maps a group key (``structure``) to each of its values' figures."""

    task: str
    task_options: dict[str, Any]
    extract: str
    model: str
    decoding: str
    label: str
    hash: str
    samples: int
    rounds: int
    instances: int
    complete: bool
    success: Rate
    final_success: Rate
    success_with_closing: Rate
    final_success_with_closing: Rate
    mean_score: float
    by_group: dict[str, dict[str, Rate]]
    pass_at_k: dict[str, float]
    by_round: list[RoundRate]
    counts: Counts
    sample_decoding: dict[str, int]
    """First attempts by how they were decoded (constrained, free-fallback, ...)."""
    tokens: Tokens
    seconds: float
    quality: dict[str, float]
    passed_with_zero_quality: ZeroQuality
    by_group_quality: dict[str, dict[str, dict[str, float]]]
    by_group_zero_quality: dict[str, dict[str, ZeroQuality]]
    by_group_round: dict[str, dict[str, list[RoundRate]]]
    fluency: dict[str, Any]
    """``corral.metrics.fluency`` over each sample's final answer."""
    violated_rules: list[RuleCount]
    by_group_violated_rules: dict[str, dict[str, list[RuleCount]]]
    runtimes: list[str] = []
    """Where the run's records were computed (CPU variant, backend version, processor), one line per distinct one."""
    thinking: Thinking | None = None
    """The reasoning blocks, when any record has one (None: no block declared or separated)."""

    def to_json(self) -> dict[str, Any]:
        # a run without reasoning blocks writes no ``thinking`` key: its summary.json reads as it did before blocks
        return self.model_dump(mode="json", exclude={"thinking"} if self.thinking is None else None)

    @classmethod
    def read(cls, path: Path) -> Summary:
        """The summary stored at ``path`` (a run's ``summary.json``); a ``RunError`` naming the file and the field
        when it holds something else."""
        from ._records import RunError

        try:
            return cls.model_validate(read_input_json(path))
        except InputError as exc:
            raise RunError(str(exc)) from None
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(part) for part in first["loc"]) or "(top level)"
            raise RunError(f"{path}: not a run summary: {where}: {first['msg']}") from None
