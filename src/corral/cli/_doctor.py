"""``corral doctor``: what this machine gives Corral, and whether the installed llama.cpp can run on it."""

from __future__ import annotations

import hashlib
import json
import os
import platform
import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Annotated, Any

import typer

from ._console import fail, out


def _version(package: str) -> str:
    try:
        return version(package)
    except PackageNotFoundError:
        return "not installed"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def diagnose() -> tuple[dict[str, Any], str | None]:
    """The facts ``corral doctor`` prints, and the problem that stops the llamacpp backend (None if it can run)."""
    from corral.extras import installed_extras
    from corral.models import (
        VARIANT_VARIABLE,
        X86_VARIANTS,
        ModelError,
        bundled_gguf,
        cpu_flags,
        cpu_model,
        inspect_build,
        thread_policy,
    )
    from corral.version import __version__

    relevant = sorted({flag for needed in X86_VARIANTS.values() for flag in needed})
    flags = cpu_flags()
    facts: dict[str, Any] = {
        "corral": __version__,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpu": {"model": cpu_model(), "machine": platform.machine(),
                "features": [f for f in relevant if f in flags], "lacks": [f for f in relevant if f not in flags]},
        "llama_cpp_python": _version("llama-cpp-python"),
        "extras": installed_extras(),
    }
    problem = None
    try:
        build = inspect_build()
        facts["llama_cpp"] = {
            "libraries": str(build.lib_dir),
            "build": "portable (CPU variants chosen at run time)" if build.portable else "single variant",
            "variant": build.chosen,
            "forced": os.environ.get(VARIANT_VARIABLE) or None,
        }
        if build.portable:
            facts["llama_cpp"]["variants"] = {v.name: v.status for v in build.variants}
        else:
            facts["llama_cpp"]["compiled_for"] = list(build.compiled_for)
    except ModelError as exc:
        problem = str(exc)
        facts["llama_cpp"] = {"problem": problem}
    try:
        gguf = bundled_gguf()
        facts["model"] = {"name": "smollm2", "file": str(gguf), "bytes": gguf.stat().st_size, "sha256": _sha256(gguf)}
    except ModelError as exc:
        facts["model"] = {"problem": str(exc)}
    try:
        facts["threads"] = thread_policy()
    except ModelError as exc:
        facts["threads"] = {"problem": str(exc)}
        problem = problem or str(exc)
    return facts, problem


def doctor_command(
    as_json: Annotated[bool, typer.Option("--json", help="Print the facts as JSON.")] = False,
) -> None:
    """Print the CPU's features, the llama.cpp build and the CPU variant in use, the bundled model file and its
    checksum, the extras installed and the thread count. Exit 2 if the llama.cpp build cannot run on this CPU."""
    facts, problem = diagnose()
    if as_json:
        print(json.dumps(facts, indent=2))
    else:
        for key, value in facts.items():
            if isinstance(value, dict):
                out.print(f"[bold]{key}[/bold]", highlight=False)
                for sub, item in value.items():
                    if item is None:
                        continue
                    shown = ", ".join(item) if isinstance(item, list) else (
                        "; ".join(f"{k}: {v}" for k, v in item.items()) if isinstance(item, dict) else item)
                    out.print(f"  {sub}: {shown}", highlight=False, soft_wrap=True, markup=False)
            else:
                out.print(f"[bold]{key}[/bold]: {value}", highlight=False, soft_wrap=True)
    if problem:
        raise fail(problem)


def register(app: typer.Typer) -> None:
    app.command("doctor")(doctor_command)
