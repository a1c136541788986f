"""What compiled a constrained run's grammars, as one short hash: the run's identity and the response cache hold it.

A constrained output is the model's text under a mask, and the mask is the grammar compiler's work: the same task,
model and sampling give other outputs once the shape of a word or a sentence changes. Two runs of one config made
by two compilers must not share a run directory (a resumed run would mix their outputs) nor a cache entry.

The fingerprint hashes Corral's version, the mask engine's version (llguidance) and the source files that shape a
grammar: the grammar compiler (``corral.grammars``), the segmentation it follows (``corral.text``), the constraint
algebra it compiles (``corral.constraints``), the masks (``corral.decoding``) and the package of the task's own
grammar function (a suite's grammars). Hashing sources, not behaviour, may call two equal compilers different (a
docstring changed): the cost is a recomputed run, never a mixed one.
"""

from __future__ import annotations

import hashlib
from functools import cache
from importlib import metadata
from pathlib import Path

import corral

_CORE = ("grammars", "text", "constraints", "decoding")
_ROOT = Path(corral.__file__).resolve().parent


def grammar_fingerprint(grammar_module: str | None = None, *, root: Path | None = None) -> str:
    """16 hex digits naming what compiles a constrained run's grammars; ``grammar_module`` is the module of the
    task's grammar function (``task.grammar.__module__``), whose package is hashed too when it is Corral's.
    ``root``: the ``corral`` source tree to hash (None: the installed one, each package hashed once a process;
    another tree is read afresh on every call)."""
    from corral.version import __version__

    base = _ROOT if root is None else Path(root)
    packages = list(_CORE)
    if grammar_module and grammar_module.startswith("corral."):
        parts = grammar_module.split(".")[1:]
        package = base.joinpath(*parts[:-1]) if len(parts) > 1 else base
        if package.is_dir() and package != base:
            packages.append(str(package.relative_to(base)))
    digest = hashlib.sha256()
    digest.update(f"corral {__version__}\nllguidance {_version('llguidance')}\n".encode())
    for package in sorted(set(packages)):
        digest.update((_sources_hash(package) if root is None else _hash_sources(base, package)).encode())
    return digest.hexdigest()[:16]


@cache
def _sources_hash(package: str) -> str:
    """The hash of a package's ``.py`` files under the installed ``corral``."""
    return _hash_sources(_ROOT, package)


def _hash_sources(base: Path, package: str) -> str:
    """The hash of a package's ``.py`` files under ``base`` (names and bytes, in a stable order)."""
    digest = hashlib.sha256()
    for path in sorted((base / package).rglob("*.py")):
        digest.update(path.relative_to(base).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _version(distribution: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "absent"
