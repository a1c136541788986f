"""Evaluation: the spec of a run (``EvalSpec``), the runner (samples, feedback rounds, free or constrained decoding),
resumable run directories, the shared response cache, metrics (success, pass@k, per round) and reports."""

from ._batch import PARALLEL_FROM_LINES, check_lines
from ._cache import ResponseCache, default_cache_path
from ._chains import Chain, chains_of
from ._fingerprint import grammar_fingerprint
from ._lock import LOCK_FILE, run_lock
from ._metrics import aggregate_quality, pass_at_k, summarize
from ._records import CONFIG_FILE, LIKELIHOODS_FILE, RunConfig, RunError, SampleRecord, read_config, read_records
from ._redact import redact_run
from ._rejudge import rejudge
from ._report import run_labels, write_report
from ._rerank import RERANK_SEED_STRIDE, choose_candidate
from ._runner import (
    CONSTRAINED_REPEAT_LIMIT,
    RunPlan,
    cache_model_id,
    default_repeat_limit,
    default_run_dir,
    evaluate,
    plan_run,
    read_runtimes,
)
from ._spec import (
    CLOSE_LIMIT,
    MAX_INSTANCES,
    MAX_ROUNDS,
    MAX_SAMPLES,
    MAX_TOKENS,
    SEED_MAX,
    DecodingStrategy,
    EvalSpec,
    GreedyStrategy,
    RerankStrategy,
    SamplingConfig,
    SmcStrategy,
    SpecError,
    load_eval_spec,
    parse_eval_spec,
    read_spec_file,
)
from ._summary import Counts, Rate, RoundRate, RuleCount, Summary, Thinking, Tokens, ZeroQuality

__all__ = [
    "CLOSE_LIMIT",
    "CONFIG_FILE",
    "CONSTRAINED_REPEAT_LIMIT",
    "LIKELIHOODS_FILE",
    "LOCK_FILE",
    "MAX_INSTANCES",
    "MAX_ROUNDS",
    "MAX_SAMPLES",
    "MAX_TOKENS",
    "PARALLEL_FROM_LINES",
    "RERANK_SEED_STRIDE",
    "SEED_MAX",
    "Chain",
    "Counts",
    "DecodingStrategy",
    "EvalSpec",
    "GreedyStrategy",
    "Rate",
    "RerankStrategy",
    "ResponseCache",
    "RoundRate",
    "RuleCount",
    "RunConfig",
    "RunError",
    "RunPlan",
    "SampleRecord",
    "SamplingConfig",
    "SmcStrategy",
    "SpecError",
    "Summary",
    "Thinking",
    "Tokens",
    "ZeroQuality",
    "aggregate_quality",
    "cache_model_id",
    "chains_of",
    "check_lines",
    "choose_candidate",
    "default_cache_path",
    "default_repeat_limit",
    "default_run_dir",
    "evaluate",
    "grammar_fingerprint",
    "load_eval_spec",
    "parse_eval_spec",
    "pass_at_k",
    "plan_run",
    "read_config",
    "read_records",
    "read_runtimes",
    "read_spec_file",
    "redact_run",
    "rejudge",
    "run_labels",
    "run_lock",
    "summarize",
    "write_report",
]
