"""One model protocol ("complete these chat requests") and its backends: llamacpp, transformers, openai."""

from ._bundled import bundled_gguf
from ._load import load_model, parse_spec
from ._protocol import Completion, Message, Model, ModelError, Request, Sampling

__all__ = [
    "Completion",
    "Message",
    "Model",
    "ModelError",
    "Request",
    "Sampling",
    "bundled_gguf",
    "load_model",
    "parse_spec",
]
