"""Every error class Corral exports has one root, so a caller can catch any Corral error, or one kind of it."""

from __future__ import annotations

import importlib
import inspect

import pytest

from corral.errors import CorralError, GrammarError, InputError, ModelError

PACKAGES = ["corral.constraints", "corral.grammars", "corral.grammars.constraint", "corral.grammars.scfg",
            "corral.models", "corral.evaluation", "corral.corpora", "corral.retrieval", "corral.schema", "corral.sql",
            "corral.suites.formatbench", "corral.tasks", "corral.text", "corral.extras"]


def _exported_errors() -> list[tuple[str, type[BaseException]]]:
    found = []
    for package in PACKAGES:
        module = importlib.import_module(package)
        for name in getattr(module, "__all__", dir(module)):
            value = getattr(module, name, None)
            if inspect.isclass(value) and issubclass(value, Exception) and value.__module__.startswith("corral"):
                found.append((f"{package}.{name}", value))
    return found


ERRORS = _exported_errors()


def test_there_are_errors_to_check() -> None:
    assert len(ERRORS) >= 10


@pytest.mark.parametrize(("name", "error"), ERRORS, ids=[name for name, _ in ERRORS])
def test_every_exported_error_is_a_corral_error_of_one_kind(name: str, error: type[BaseException]) -> None:
    assert issubclass(error, CorralError), name
    kinds = [kind for kind in (InputError, GrammarError, ModelError) if issubclass(error, kind)]
    assert len(kinds) <= 1, (name, kinds)


def test_the_roots_keep_the_builtin_bases_callers_catch() -> None:
    assert issubclass(InputError, ValueError) and issubclass(GrammarError, ValueError)
    assert issubclass(ModelError, RuntimeError)
    from corral.constraints import ConstraintSyntaxError
    from corral.evaluation import RunError

    assert issubclass(ConstraintSyntaxError, InputError) and issubclass(RunError, InputError)
