"""Corral's registries: one namespace per kind of pluggable part.

Parts (segmentation profiles, base constraints, later tasks, checkers, metrics and backends) are added by
registering them under a name, never by editing an if-chain. Other packages can contribute entries through
the ``corral_<kind>`` entry-point groups (catalogue's convention), without Corral importing them.

Names are versioned where behaviour may change (``collie-v1``): a changed behaviour gets a new name so old
specs and runs still resolve to what produced them.
"""

from __future__ import annotations

import importlib
from typing import Any

import catalogue

__all__ = [
    "RegistryError",
    "answer_extractors",
    "backends",
    "base_constraints",
    "chunk_filters",
    "chunk_processors",
    "lookup",
    "names",
    "profiles",
    "quality_aggregates",
    "tasks",
]

RegistryError = catalogue.RegistryError

profiles = catalogue.create("corral", "profiles", entry_points=True)
"""Segmentation profiles (``corral.text.Profile`` values), e.g. ``default`` and ``collie-v1``."""

base_constraints = catalogue.create("corral", "base_constraints", entry_points=True)
"""Base constraint kinds (``corral.constraints.BaseKind`` values), e.g. ``count``, ``match``, ``regex``."""

backends = catalogue.create("corral", "backends", entry_points=True)
"""Model backends, ``name -> (model_name, **options) -> corral.models.Model``: llamacpp, transformers, openai."""

tasks = catalogue.create("corral", "tasks", entry_points=True)
"""Evaluation tasks, ``name -> corral.tasks.TaskFactory`` (``register_task``: the factory and its declared options):
collie, formatbench, concode-gen, concode-val, clamp-constituency, clamp-dependency, clamp-lispress."""

answer_extractors = catalogue.create("corral", "answer_extractors", entry_points=True)
"""Answer-extraction policies, ``name -> (output: str) -> str``: what part of a model's output is checked."""

chunk_filters = catalogue.create("corral", "chunk_filters", entry_points=True)
"""Corpus chunk filters, ``name -> (text) -> bool`` (keep): no_pipe, no_url, real_sentence, ..."""

chunk_processors = catalogue.create("corral", "chunk_processors", entry_points=True)
"""Corpus chunk post-processors, ``name -> (text) -> text``: strip_markdown, strip_brackets, drop_title_line."""

#: Named suites of extraction recipes for ``corral build NAME`` (``collie-v1``): callables returning the recipes.
build_suites = catalogue.create("corral", "build_suites", entry_points=True)

#: How summed per-record statistics become a corpus metric (``micro_f1``, ``macro_f1``, ``bleu``, ``ratio``;
#: the ``corral.metrics`` package); see ``corral.evaluation.aggregate_quality``.
quality_aggregates = catalogue.create("corral", "quality_aggregates", entry_points=True)

#: FormatBench's tasks, ``name -> corral.suites.formatbench.FormatTask`` (checker, grammar, quality, prompt): mcq, eqa,
#: ner, parse, capseg, ...
format_tasks = catalogue.create("corral", "format_tasks", entry_points=True)


#: The module that registers each registry's built-in entries, imported on first lookup. Naming it here (a string,
#: not an import) keeps the registries at the bottom of the package: a lower layer can look up a task or a checker
#: without importing the suites above it, as entry points let other packages do.
BUILTINS: dict[str, tuple[str, ...]] = {
    "profiles": ("corral.text",),
    "base_constraints": ("corral.constraints",),
    "backends": ("corral.models",),
    "tasks": ("corral.suites",),
    "answer_extractors": ("corral.tasks",),
    "chunk_filters": ("corral.corpora",),
    "chunk_processors": ("corral.corpora",),
    "build_suites": ("corral.corpora",),
    "quality_aggregates": ("corral.metrics",),
    "format_tasks": ("corral.suites.formatbench",),
}


def names(registry: catalogue.Registry) -> list[str]:
    """Every registered name, built-ins included, sorted."""
    _load_builtins(registry)
    return sorted(registry.get_all())


def lookup(registry: catalogue.Registry, name: str, what: str) -> Any:
    """Get ``name`` from ``registry`` or raise a one-line error listing the names that exist."""
    if name not in registry:
        _load_builtins(registry)
    if name in registry:
        return registry.get(name)
    available = ", ".join(names(registry)) or "none"
    raise RegistryError(f"unknown {what} {name!r}; available: {available}")


def _load_builtins(registry: catalogue.Registry) -> None:
    for module in BUILTINS.get(registry.namespace[-1], ()):
        importlib.import_module(module)
