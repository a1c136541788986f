"""Checkpoint directories as model specs: a LoRA adapter or a training run is found, routed to the transformers
backend, and fingerprinted by its weights (a retrained adapter is another model to the response cache)."""

from __future__ import annotations

import json

import pytest

from corral.models import ModelError, adapter_base, adapter_dir, fingerprint, parse_spec


def _adapter(folder, base):
    folder.mkdir(parents=True)
    (folder / "adapter_config.json").write_text(json.dumps({"base_model_name_or_path": str(base)}), encoding="utf-8")
    (folder / "adapter_model.safetensors").write_bytes(b"weights-1")
    return folder


def test_an_adapter_or_a_run_directory_is_found(tmp_path):
    base = tmp_path / "base"
    base.mkdir()
    (base / "config.json").write_text("{}", encoding="utf-8")
    run = tmp_path / "run"
    _adapter(run / "adapter", base)
    assert adapter_dir(run) == run / "adapter"
    assert adapter_dir(run / "adapter") == run / "adapter"
    assert adapter_dir(base) is None
    assert adapter_base(run / "adapter") == base
    assert parse_spec(str(run)) == ("transformers", str(run))
    assert parse_spec(str(base)) == ("transformers", str(base))
    assert parse_spec("smollm2") == ("llamacpp", "smollm2")
    empty = tmp_path / "empty"
    empty.mkdir()
    assert parse_spec(str(empty))[0] == "llamacpp"  # not a checkpoint: the default backend says what is wrong


def test_a_missing_base_is_named(tmp_path):
    adapter = _adapter(tmp_path / "a", tmp_path / "gone")
    with pytest.raises(ModelError, match="gone"):
        adapter_base(adapter)


def test_the_fingerprint_follows_the_weights(tmp_path):
    adapter = _adapter(tmp_path / "a", tmp_path)
    first = fingerprint(adapter)
    assert fingerprint(adapter) == first
    (adapter / "adapter_model.safetensors").write_bytes(b"weights-2")
    assert fingerprint(adapter) != first
