"""Optional parts of Corral and the pip extra that brings each.

The core install checks, renders, builds data, compiles schemas and evaluates the bundled llama.cpp model or a
served one. Heavy libraries are extras, so a feature that needs one says which extra to install instead of
failing on an import deep inside.
"""

from __future__ import annotations

import importlib.util
from types import ModuleType

from corral.errors import CorralError

EXTRAS: dict[str, tuple[str, ...]] = {
    "hf": ("torch", "transformers", "gguf", "accelerate", "datasets"),
    "ray": ("ray",),
    "train": ("trl", "peft", "datasets"),
    "server": ("uvicorn", "fastapi", "sse_starlette", "starlette_context", "pydantic_settings"),
    "inspect": ("inspect_ai",),
    "lm-eval": ("lm_eval",),
    "verifiers": ("verifiers", "datasets"),
}
"""Each extra and the modules it installs (``pip install 'corral[hf]'``); ``all`` is every one of them."""


class MissingExtra(CorralError, ImportError):
    """A feature needs a library that an extra installs."""


def install_command(extra: str) -> str:
    return f"pip install 'corral[{extra}]'"


def require(module: str, extra: str, feature: str) -> ModuleType:
    """Import ``module`` for ``feature``, or raise ``MissingExtra`` naming the extra that brings it."""
    if module not in EXTRAS[extra]:
        raise ValueError(f"extra {extra!r} does not install {module!r}")
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingExtra(f"{feature} needs {module}, which the [{extra}] extra installs: "
                           f"{install_command(extra)} ({exc})") from None


def installed_extras() -> dict[str, bool]:
    """Which extras are complete in this environment (found, not imported)."""
    return {extra: all(importlib.util.find_spec(m) is not None for m in modules) for extra, modules in EXTRAS.items()}
