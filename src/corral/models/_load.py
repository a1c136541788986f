"""``load_model("transformers:smollm2")``: a model from a ``backend:name`` spec, through the backend registry."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from corral.registry import backends, lookup

from ._checkpoint import adapter_dir
from ._protocol import Model, ModelError

DEFAULT_BACKEND = "llamacpp"


def parse_spec(spec: str) -> tuple[str, str]:
    """``"smollm2"`` -> (llamacpp, smollm2); ``"openai:gpt-4o"`` -> (openai, gpt-4o); a directory (a transformers
    checkpoint, a LoRA adapter or a training run) -> (transformers, the directory)."""
    _register_builtin()
    path = Path(spec).expanduser()
    if path.is_dir() and ((path / "config.json").is_file() or adapter_dir(path) is not None):
        return "transformers", spec
    backend, sep, name = spec.partition(":")
    if sep and backend in backends.get_all():
        if not name:
            raise ModelError(f"model spec {spec!r} names backend {backend!r} but no model after ':'")
        return backend, name
    return DEFAULT_BACKEND, spec


def load_model(spec: str = "smollm2", **options: Any) -> Model:
    """Load a model by spec; ``options`` go to the backend (``base_url`` for ``openai``, ``n_ctx``, ...)."""
    _register_builtin()
    backend, name = parse_spec(spec)
    try:
        factory = lookup(backends, backend, "model backend")
    except Exception as exc:
        raise ModelError(str(exc)) from None
    try:
        return factory(name, **options)
    except TypeError as exc:
        raise ModelError(f"backend {backend!r} does not take these options: {exc}") from None


def _register_builtin() -> None:
    """Import the built-in backends (each registers itself); their heavy libraries load only when used."""
    for module in ("_llamacpp", "_transformers", "_openai", "_scripted"):
        try:
            __import__(f"{__package__}.{module}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__package__}.{module}":
                raise
