"""Model checkpoints for transformers: the bundled GGUF saved once as a plain checkpoint (what trl and peft can
train), and checkpoints that carry a LoRA adapter (what ``corral train`` writes) loaded with their base.

A LoRA adapter directory holds ``adapter_config.json`` and names its base (``base_model_name_or_path``); a
training run directory holds one in ``adapter/``. Either loads as base + adapter, merged for decoding.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path
from typing import Any

from corral.paths import cache_dir

from ._bundled import resolve_gguf
from ._gguf_loading import quick_gguf_reads, quiet_progress
from ._protocol import ModelError

ADAPTER_CONFIG = "adapter_config.json"


def adapter_dir(path: Path) -> Path | None:
    """The LoRA adapter in ``path`` (itself, or a training run's ``adapter/``), or None."""
    for candidate in (path, path / "adapter"):
        if (candidate / ADAPTER_CONFIG).is_file():
            return candidate
    return None


def adapter_base(adapter: Path) -> Path:
    """The base checkpoint an adapter was trained on, as its config names it."""
    import json

    try:
        named = json.loads((adapter / ADAPTER_CONFIG).read_text(encoding="utf-8"))["base_model_name_or_path"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ModelError(f"{adapter / ADAPTER_CONFIG} does not name its base model ({exc})") from None
    base = Path(str(named))
    if not (base / "config.json").is_file():
        raise ModelError(f"the adapter in {adapter} was trained on {base}, which is gone; rebuild that base with "
                         "corral train (it is converted again from the GGUF) or retrain")
    return base


def plain_checkpoint(model: str = "smollm2") -> Path:
    """A plain fp32 transformers checkpoint of ``model`` (a bundled name or a .gguf path, converted once and cached
    by the file's content; a checkpoint directory is returned as it is).

    transformers loads a GGUF dequantized but still marked as quantized, and trl and peft refuse such a model;
    the saved copy has the same weights without the mark."""
    path = Path(model).expanduser()
    if path.is_dir():
        if not (path / "config.json").is_file():
            raise ModelError(f"{model!r} is a directory without config.json, not a transformers checkpoint")
        return path
    gguf = resolve_gguf(model)
    target = cache_dir() / "checkpoints" / f"{gguf.stem}-{_file_digest(gguf)[:12]}"
    if not _complete(target):
        _convert(gguf, target)
    return target


def fingerprint(path: Path) -> str:
    """A short content hash of a checkpoint or adapter directory's weights: a retrained adapter at the same path
    is another model to the response cache."""
    digest = hashlib.sha256()
    for weights in sorted(path.rglob("*.safetensors")):
        digest.update(weights.name.encode())
        digest.update(_file_digest(weights).encode())
    return digest.hexdigest()[:16]


def load_checkpoint(path: Path, *, merge: bool = True, dtype: Any = None) -> tuple[Any, Any]:
    """(model, tokenizer) from a checkpoint directory, or from an adapter (or run) directory with its base; the
    adapter merged into the weights when ``merge`` (decoding), kept separate otherwise (more training)."""
    import torch
    import transformers

    adapter = adapter_dir(path)
    base = adapter_base(adapter) if adapter is not None else path
    try:
        tokenizer = transformers.AutoTokenizer.from_pretrained(str(adapter or base), local_files_only=True)
        model = transformers.AutoModelForCausalLM.from_pretrained(str(base), dtype=dtype or torch.float32,
                                                                  local_files_only=True)
    except (OSError, ValueError, RuntimeError, KeyError) as exc:
        raise ModelError(f"could not load {base} with transformers: {exc}") from None
    if adapter is not None:
        from corral.extras import MissingExtra, require

        try:
            peft = require("peft", "train", "a LoRA adapter")
        except MissingExtra as exc:
            raise ModelError(str(exc)) from None
        model = peft.PeftModel.from_pretrained(model, str(adapter), is_trainable=not merge)
        if merge:
            model = model.merge_and_unload()
    return model, tokenizer


def _file_digest(path: Path) -> str:
    """A content hash of a large file from its size and 64 sampled 4 KB blocks (a GGUF is hundreds of MB)."""
    size = path.stat().st_size
    digest = hashlib.sha256(str(size).encode())
    with path.open("rb") as handle:
        for offset in range(0, max(size, 1), max(1, size // 64)):
            handle.seek(offset)
            digest.update(handle.read(4096))
    return digest.hexdigest()


def _convert(gguf: Path, target: Path) -> None:
    """Load the GGUF dequantized and save the weights, without the quantization mark, as a checkpoint."""
    import torch
    import transformers

    with quick_gguf_reads(), quiet_progress(transformers):
        tokenizer = transformers.AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name,
                                                               local_files_only=True)
        loaded = transformers.AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name,
                                                                  dtype=torch.float32, local_files_only=True)
    config = loaded.config
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    plain = transformers.AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    plain.load_state_dict(loaded.state_dict(), strict=True)
    plain.generation_config = loaded.generation_config
    # another process may convert the same file at the same time: each writes its own copy, the first rename wins
    partial = target.with_name(f"{target.name}.partial-{os.getpid()}")
    shutil.rmtree(partial, ignore_errors=True)
    plain.save_pretrained(partial)
    tokenizer.save_pretrained(partial)
    if _complete(target):
        shutil.rmtree(partial, ignore_errors=True)
        return
    shutil.rmtree(target, ignore_errors=True)  # an incomplete copy from an interrupted conversion
    try:
        partial.rename(target)
    except OSError:
        if not _complete(target):
            raise
        shutil.rmtree(partial, ignore_errors=True)


def _complete(target: Path) -> bool:
    return (target / "config.json").is_file() and (target / "model.safetensors").is_file()
