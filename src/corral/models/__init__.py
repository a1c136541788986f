"""One model protocol ("complete these chat requests") and its backends: llamacpp, transformers, openai, and a
scripted model for testing Corral's own logic."""

from ._bundled import bundled_gguf
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
from ._protocol import Completion, Message, Model, ModelError, Request, Sampling
from ._scripted import ScriptedModel, scripted_tokens
from ._threads import THREADS_VARIABLE, default_threads

__all__ = [
    "REINSTALL",
    "THREADS_VARIABLE",
    "VARIANT_VARIABLE",
    "X86_VARIANTS",
    "Completion",
    "CpuMismatch",
    "LlamaBuild",
    "Message",
    "Model",
    "ModelError",
    "Request",
    "Sampling",
    "ScriptedModel",
    "Variant",
    "backend_environment",
    "bundled_gguf",
    "cpu_flags",
    "cpu_model",
    "default_threads",
    "embed_texts",
    "inspect_build",
    "load_backends",
    "load_model",
    "parse_spec",
    "scripted_tokens",
]
