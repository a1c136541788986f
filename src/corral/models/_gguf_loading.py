"""Loading a GGUF with transformers, faster and without drawing on the caller's terminal (both backends'
loaders and the plain-checkpoint conversion use it)."""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def quick_gguf_reads() -> Iterator[None]:
    """Make transformers' GGUF loading about twice as fast, for the duration of one load only.

    transformers parses the whole GGUF once for the tokenizer, once for the config and once for the weights (about
    4 s each here, mostly the 49k-entry vocabulary), and rebuilds gguf's tensor-name map once per module (about
    400 times, 6 s). Both are pure functions of their arguments, so within one load a parsed file is shared and
    the name map memoized; the originals are restored afterwards.
    """
    try:
        import gguf
    except ImportError:
        yield
        return
    original_reader, original_map = gguf.GGUFReader, gguf.get_tensor_name_map
    readers: dict[tuple[str, str], Any] = {}

    def reader(path: str | os.PathLike[str], mode: str = "r") -> Any:
        key = (os.fspath(path), mode)
        if key not in readers:
            readers[key] = original_reader(path, mode)
        return readers[key]

    gguf.GGUFReader, gguf.get_tensor_name_map = reader, functools.lru_cache(maxsize=None)(original_map)
    try:
        yield
    finally:
        gguf.GGUFReader, gguf.get_tensor_name_map = original_reader, original_map


@contextmanager
def quiet_progress(transformers: Any) -> Iterator[None]:
    """No progress bars on stderr while loading: a library call should not draw on the caller's terminal.

    The GGUF dequantization bar is a plain ``tqdm`` that transformers' own switch does not reach, so that module's
    ``tqdm`` is swapped for a disabled one during the load.
    """
    import importlib

    logging = transformers.utils.logging
    enabled = logging.is_progress_bar_enabled()
    logging.disable_progress_bar()
    module = importlib.import_module("transformers.modeling_gguf_pytorch_utils")
    bar = getattr(module, "tqdm", None)
    if bar is not None:
        module.tqdm = functools.partial(bar, disable=True)
    try:
        yield
    finally:
        if bar is not None:
            module.tqdm = bar
        if enabled:
            logging.enable_progress_bar()
