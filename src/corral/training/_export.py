"""A trained run as a standalone model: the adapter merged into its base (a plain checkpoint), and a GGUF when
llama.cpp's converter is installed (for ``corral eval --model FILE.gguf`` on the llama.cpp backend)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from ._config import TrainError
from ._run import save_whole

CONVERTER = "convert_hf_to_gguf.py"
CONVERTER_VARIABLE = "CORRAL_GGUF_CONVERTER"


def merge(run: Path, target: Path) -> Path:
    """``run``'s base with its adapter merged in, saved as a plain checkpoint at ``target``."""
    from corral.models import ModelError, adapter_dir, load_checkpoint

    if adapter_dir(run) is None:
        raise TrainError(f"{run} holds no trained adapter (train it first, or point at its directory)")
    try:
        model, tokenizer = load_checkpoint(run, merge=True)
    except ModelError as exc:
        raise TrainError(str(exc)) from None
    return save_whole(model, tokenizer, target)


def export(run: Path, out: Path | None = None, *, gguf: bool = False, outtype: str = "f16") -> Path:
    """Merge ``run``'s adapter into its base at ``out`` (default ``run/merged``); with ``gguf``, also convert it
    with llama.cpp's ``convert_hf_to_gguf.py`` (``$CORRAL_GGUF_CONVERTER`` or on PATH) to ``out/model.gguf``.
    Returns the checkpoint directory, or the GGUF file."""
    target = merge(run, out or run / "merged")
    if not gguf:
        return target
    converter = os.environ.get(CONVERTER_VARIABLE) or shutil.which(CONVERTER)
    if not converter or not Path(converter).is_file():
        raise TrainError(f"the merged checkpoint is in {target}; a GGUF needs llama.cpp's {CONVERTER} (clone "
                         f"llama.cpp and set {CONVERTER_VARIABLE} to the script's path)")
    result = target / "model.gguf"
    done = subprocess.run([sys.executable, converter, str(target), "--outfile", str(result), "--outtype", outtype],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0 or not result.is_file():
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        raise TrainError(f"{CONVERTER} failed (exit {done.returncode}): {tail[0]}")
    return result
