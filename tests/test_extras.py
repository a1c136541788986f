"""A feature whose extra is missing names the extra to install, in the error the CLI prints."""

from __future__ import annotations

import sys

import pytest

from corral.extras import EXTRAS, MissingExtra, install_command, installed_extras, require


def test_a_missing_module_names_its_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch now raises ImportError
    with pytest.raises(MissingExtra, match=r"the transformers backend needs torch, which the \[hf\] extra installs: "
                                           r"pip install 'corral\[hf\]'"):
        require("torch", "hf", "the transformers backend")


def test_an_extra_must_name_the_module() -> None:
    with pytest.raises(ValueError, match="does not install 'numpy'"):
        require("numpy", "hf", "anything")


def test_the_transformers_backend_without_hf_is_a_model_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from corral.models import ModelError, load_model

    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(ModelError, match=r"pip install 'corral\[hf\]'"):
        load_model("transformers:smollm2")


def test_the_ray_engine_without_ray_is_a_corpus_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from corral.corpora import CorpusError, build_ray

    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(CorpusError, match=r"pip install 'corral\[ray\]'"):
        build_ray(None, [])  # type: ignore[arg-type]


def test_installed_extras_reports_every_extra() -> None:
    found = installed_extras()
    assert set(found) == set(EXTRAS) and all(isinstance(v, bool) for v in found.values())
    assert install_command("ray") == "pip install 'corral[ray]'"


def test_the_cli_prints_the_extra_with_its_brackets(monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from corral.cli import app

    monkeypatch.setitem(sys.modules, "torch", None)
    result = CliRunner().invoke(app, ["generate", "Hi", "--model", "transformers:smollm2", "--max-tokens", "2"])
    assert result.exit_code == 2
    assert "which the [hf] extra installs: pip install 'corral[hf]'" in result.stderr
