"""Evaluation: the runner (samples, feedback rounds, free or constrained decoding), resumable run directories,
the shared response cache, metrics (success, pass@k, per round) and reports."""

from ._cache import ResponseCache, default_cache_path
from ._fingerprint import grammar_fingerprint
from ._metrics import pass_at_k, summarize
from ._records import (
    CLOSE_LIMIT,
    CONFIG_FILE,
    MAX_ROUNDS,
    MAX_SAMPLES,
    RunConfig,
    RunError,
    SampleRecord,
    SamplingConfig,
    read_config,
    read_records,
)
from ._rejudge import rejudge
from ._report import write_report
from ._runner import (
    CONSTRAINED_REPEAT_LIMIT,
    default_repeat_limit,
    default_run_dir,
    evaluate,
    plan_config,
    read_runtimes,
)

__all__ = [
    "CLOSE_LIMIT",
    "CONFIG_FILE",
    "CONSTRAINED_REPEAT_LIMIT",
    "MAX_ROUNDS",
    "MAX_SAMPLES",
    "ResponseCache",
    "RunConfig",
    "RunError",
    "SampleRecord",
    "SamplingConfig",
    "default_cache_path",
    "default_repeat_limit",
    "default_run_dir",
    "evaluate",
    "grammar_fingerprint",
    "pass_at_k",
    "plan_config",
    "read_config",
    "read_records",
    "read_runtimes",
    "rejudge",
    "summarize",
    "write_report",
]
