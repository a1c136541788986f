"""One model protocol ("complete these chat requests") and its backends: llamacpp, transformers, openai, and a
scripted model for testing Corral's own logic."""

from ._bundled import bundled_gguf, resolve_gguf
from ._checkpoint import adapter_dir, fingerprint, load_checkpoint, plain_checkpoint
from ._embed import embed_texts
from ._llamacpp_cpu import (
    REINSTALL,
    VARIANT_VARIABLE,
    X86_VARIANTS,
    CpuMismatch,
    LlamaBuild,
    Variant,
    backend_environment,
    cpu_flags,
    cpu_model,
    inspect_build,
    load_backends,
)
from ._load import load_model, parse_spec
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
from ._threads import THREADS_VARIABLE, default_threads, thread_policy, usable_cpus

__all__ = [
    "MAX_PARTICLES",
    "REINSTALL",
    "THREADS_VARIABLE",
    "VARIANT_VARIABLE",
    "X86_VARIANTS",
    "Completion",
    "CpuMismatch",
    "Likelihood",
    "LlamaBuild",
    "Message",
    "Model",
    "ModelError",
    "Request",
    "Sampling",
    "Scorer",
    "ScriptedModel",
    "Variant",
    "adapter_dir",
    "backend_environment",
    "bundled_gguf",
    "cpu_flags",
    "cpu_model",
    "default_threads",
    "embed_texts",
    "fingerprint",
    "inspect_build",
    "load_backends",
    "load_checkpoint",
    "load_model",
    "parse_spec",
    "plain_checkpoint",
    "resolve_gguf",
    "score_texts",
    "scripted_tokens",
    "thread_policy",
    "usable_cpus",
]
