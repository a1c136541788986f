"""The ``llamacpp`` backend: llama-cpp-python on a GGUF (by default the bundled SmolLM2-135M-Instruct).

The GGUF carries its chat template, which llama-cpp-python applies. Grammars are enforced with llguidance masks
applied as a logits processor (``corral.decoding.SequenceMask``), not with llama.cpp's own grammar sampler,
which costs about half the throughput (see docs/performance.md).
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from pathlib import Path

from corral.decoding import MatcherFactory, SequenceMask
from corral.registry import backends

from ._bundled import resolve_gguf
from ._protocol import Completion, ModelError, Request


class LlamaCppModel:
    """A local GGUF model; requests run one after another (llama.cpp's Python API decodes one sequence)."""

    backend = "llamacpp"

    def __init__(self, model: str = "smollm2", n_ctx: int = 2048, n_threads: int | None = None) -> None:
        try:
            from llama_cpp import Llama
        except ImportError as exc:
            raise ModelError(f"the llamacpp backend needs llama-cpp-python: {exc}") from None
        self.path: Path = resolve_gguf(model)
        self.name = model if not model.endswith(".gguf") else self.path.stem
        threads = n_threads or max(1, os.cpu_count() or 1)
        try:
            self._llama = Llama(model_path=str(self.path), n_ctx=n_ctx, n_threads=threads, n_threads_batch=threads,
                                verbose=False)
        except (ValueError, RuntimeError) as exc:
            raise ModelError(f"could not load {self.path}: {exc}") from None
        self._factory: MatcherFactory | None = None

    @property
    def masks(self) -> MatcherFactory:
        """The llguidance matcher factory for this model's vocabulary (built on first use, about a second)."""
        if self._factory is None:
            from llguidance.llamacpp import lltokenizer_from_vocab

            vocab = self._llama._model.vocab
            self._factory = MatcherFactory(lltokenizer_from_vocab(vocab), self._llama.n_vocab())
        return self._factory

    def complete(self, requests: Sequence[Request]) -> list[list[Completion]]:
        return [[self._sample(request, i) for i in range(request.sampling.n)] for request in requests]

    def _sample(self, request: Request, i: int) -> Completion:
        from llama_cpp import LogitsProcessorList

        sampling = request.sampling
        mask = SequenceMask(self.masks, request.grammar) if request.grammar is not None else None
        started = time.perf_counter()
        # a fresh context per sample: reusing a cached prompt prefix changes the logits' rounding, and with it
        # which token a seeded sampler picks, so the same request would not give the same text
        self._llama.reset()
        out = self._llama.create_chat_completion(
            messages=list(request.messages),  # type: ignore[arg-type]
            temperature=sampling.temperature,
            top_p=sampling.top_p,
            top_k=0,
            min_p=0.0,
            max_tokens=sampling.max_tokens,
            stop=list(sampling.stop) or None,
            seed=sampling.seed_for(i),
            logits_processor=LogitsProcessorList([mask]) if mask is not None else None,
        )
        seconds = time.perf_counter() - started
        choice = out["choices"][0]  # type: ignore[index]
        usage = out["usage"]  # type: ignore[index]
        error = mask.failed if mask is not None else None
        return Completion(
            text=choice["message"]["content"] or "",
            finish_reason="error" if error else ("length" if choice["finish_reason"] == "length" else "stop"),
            prompt_tokens=usage["prompt_tokens"],
            completion_tokens=usage["completion_tokens"],
            seconds=seconds,
            constrained=mask is not None,
            error=f"the output left the grammar: {error}" if error else None,
        )

    def close(self) -> None:
        self._llama.close()


@backends.register("llamacpp")
def _llamacpp(model: str = "smollm2", **options: object) -> LlamaCppModel:
    return LlamaCppModel(model, **options)  # type: ignore[arg-type]
