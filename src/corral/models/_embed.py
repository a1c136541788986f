"""Sentence embeddings from a local GGUF model through llama.cpp (mean-pooled final hidden states, unit length).

A dense retriever needs an encoder, and Corral downloads nothing at run time: the one encoder always at hand is
the bundled model itself. SmolLM2-135M-Instruct is a language model, not a trained sentence encoder, so its
similarities are rough (near-paraphrases score about 0.96, unrelated sentences about 0.77); they rank a split's
examples by more than shared words, which is what a dense retriever adds to BM25.
"""

from __future__ import annotations

import atexit
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from ._bundled import resolve_gguf
from ._llamacpp_cpu import load_backends
from ._protocol import ModelError
from ._threads import default_threads

MAX_EMBED_CHARS = 4000
"""Characters of one text embedded at most (the rest is cut: a sentence is far shorter)."""


@lru_cache(maxsize=2)
def _encoder(model: str):
    load_backends()  # a build this CPU cannot run is an error, never a SIGILL
    try:
        from llama_cpp import LLAMA_POOLING_TYPE_MEAN, Llama
    except ImportError as exc:
        raise ModelError(f"embeddings need llama-cpp-python: {exc}") from None
    threads = default_threads()
    encoder = Llama(model_path=str(resolve_gguf(model)), embedding=True, pooling_type=LLAMA_POOLING_TYPE_MEAN,
                    n_ctx=2048, n_batch=2048, n_ubatch=2048, n_threads=threads, n_threads_batch=threads,
                    verbose=False)
    _open.append(encoder)
    return encoder


def _close_encoders() -> None:
    """Free the cached encoders while llama.cpp is still loaded (at interpreter exit its bindings go first)."""
    for encoder in list(_open):
        encoder.close()
    _open.clear()
    _encoder.cache_clear()


_open: list = []
atexit.register(_close_encoders)


def embed_texts(texts: Sequence[str], model: str = "smollm2") -> np.ndarray:
    """One unit-length row per text (``float32``), from ``model`` (a bundled name or a GGUF path)."""
    if not texts:
        return np.zeros((0, 0), dtype=np.float32)
    encoder = _encoder(model)
    rows = np.asarray(encoder.embed([text[:MAX_EMBED_CHARS] or " " for text in texts]), dtype=np.float32)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return rows / np.where(norms == 0, 1, norms)
