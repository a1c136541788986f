"""One model protocol ("complete these chat requests") and its backends: llamacpp, transformers, openai, and a
scripted model for testing Corral's own logic."""

from ._bundled import bundled_gguf, resolve_gguf
from ._checkpoint import adapter_base, adapter_dir, fingerprint, load_checkpoint, plain_checkpoint
from ._embed import embed_texts
from ._llamacpp_cpu import (
    REINSTALL,
    VARIANT_VARIABLE,
    X86_VARIANTS,
    CpuMismatch,
    LlamaBuild,
    Variant,
    backend_environment,
    choose_variant,
    cpu_flags,
    cpu_model,
    inspect_build,
    load_backends,
    variant_files,
)
from ._llamacpp_smc import effective_sample_size, log_normalize, parents_from_counts, systematic_counts
from ._load import load_model, parse_spec
from ._openai import OpenAIModel, parse_retry_after
from ._protocol import (
    MAX_PARTICLES,
    Completion,
    Likelihood,
    Message,
    Model,
    ModelError,
    Request,
    Sampling,
    Scorer,
    score_texts,
)
from ._scripted import ScriptedModel, scripted_tokens
from ._served_reply import HostileReply, json_depth, parse_completion, read_json
from ._threads import (
    THREADS_VARIABLE,
    WINDOW_SECONDS,
    CpuTimes,
    ThreadGovernor,
    choose_threads,
    default_threads,
    thread_policy,
    usable_cpus,
)
from ._transformers import TransformersModel

__all__ = [
    "MAX_PARTICLES",
    "REINSTALL",
    "THREADS_VARIABLE",
    "VARIANT_VARIABLE",
    "WINDOW_SECONDS",
    "X86_VARIANTS",
    "Completion",
    "CpuMismatch",
    "CpuTimes",
    "HostileReply",
    "Likelihood",
    "LlamaBuild",
    "Message",
    "Model",
    "ModelError",
    "OpenAIModel",
    "Request",
    "Sampling",
    "Scorer",
    "ScriptedModel",
    "ThreadGovernor",
    "TransformersModel",
    "Variant",
    "adapter_base",
    "adapter_dir",
    "backend_environment",
    "bundled_gguf",
    "choose_threads",
    "choose_variant",
    "cpu_flags",
    "cpu_model",
    "default_threads",
    "effective_sample_size",
    "embed_texts",
    "fingerprint",
    "inspect_build",
    "json_depth",
    "load_backends",
    "load_checkpoint",
    "load_model",
    "log_normalize",
    "parents_from_counts",
    "parse_completion",
    "parse_retry_after",
    "parse_spec",
    "plain_checkpoint",
    "read_json",
    "resolve_gguf",
    "score_texts",
    "scripted_tokens",
    "systematic_counts",
    "thread_policy",
    "usable_cpus",
    "variant_files",
]
