"""Instruction kinds from outside IFEval: modules that call ``register_kind``, loaded by name or by file.

Why modules and not kinds written as data: a kind's check is code (IFBench's 58 out-of-domain constraints count
conjunctions, stop-word ratios, palindromes), and Corral never evaluates code found in data. A module is code its
user chose to run, named on the command line (``-T kinds=my_kinds`` or ``-T kinds=path/to/kinds.py``) or
installed as an entry point in the group ``corral_ifeval_kinds`` (loaded at the first unknown instruction id). Each
module is imported once per process (``sys.modules``): naming it again does not register its kinds twice.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import sys
from collections.abc import Iterable
from pathlib import Path

from ._kinds import InstructionError


def load_kind_modules(names: Iterable[str]) -> None:
    """Import each module name or ``.py`` file in ``names`` (a file as a module named after its resolved path, so
    ``sys.modules`` knows it is loaded); one that cannot be found or fails while it runs is an
    ``InstructionError`` naming it."""
    for name in names:
        try:
            if name.endswith(".py"):
                _load_file(Path(name))
            else:
                importlib.import_module(name)
        except InstructionError:
            raise
        except Exception as exc:  # a missing module, a syntax error, a kind registered twice: one line naming it
            raise InstructionError(f"cannot load the IFEval kinds in {name!r}: {type(exc).__name__}: {exc}") from None


def _load_file(path: Path) -> None:
    if not path.is_file():
        raise FileNotFoundError(f"no such file {str(path)!r}")
    digest = hashlib.sha256(str(path.resolve()).encode("utf-8", "surrogatepass")).hexdigest()[:16]
    module_name = f"corral_ifeval_kinds_{digest}"
    if module_name in sys.modules:
        return
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"{str(path)!r} is not a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[module_name]
        raise
