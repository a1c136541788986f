"""The ``transformers`` backend: the same GGUF as ``llamacpp`` (by default SmolLM2-135M-Instruct), dequantized to fp32
and run by PyTorch, many sequences at once.

It exists for what llama-cpp-python's one-sequence API cannot do: decode a batch of rows together, each with its
own sampling parameters, seed and grammar. ``model.generate`` is not used because every row needs its own random
generator (so that a seeded sample does not depend on its batch neighbours), its own llguidance matcher fed with
exactly the token it sampled, and its own stop strings; a short decode loop over the KV cache does all three
directly, and drops finished rows from the cache so that long rows do not make short ones pay.

Reproducibility: a row's seed drives only that row's ``torch.Generator``, and a greedy row uses no randomness, so
the same request gives the same text alone or in any batch *as far as float arithmetic allows*: left padding and
a different batch shape change the order of floating-point sums in the matrix products, so logits can differ in
the last bits; a greedy near-tie or a sampled draw that falls on a probability boundary may then go the other way.
Within one batch composition results are bit-for-bit repeatable.
"""

from __future__ import annotations

import functools
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from corral.decoding import MatcherFactory, RepeatGuard
from corral.registry import backends

from ._bundled import resolve_gguf
from ._checkpoint import adapter_dir, fingerprint, load_checkpoint
from ._gguf_loading import quick_gguf_reads, quiet_progress
from ._protocol import Completion, FinishReason, Likelihood, ModelError, Request, Sampling
from ._threads import default_threads

if TYPE_CHECKING:
    import torch

DEFAULT_BATCH_SIZE = 8


def _no_grad(method):  # type: ignore[no-untyped-def]
    """``torch.inference_mode`` around a method, without importing torch when this module is imported."""

    @functools.wraps(method)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        import torch

        with torch.inference_mode():
            return method(*args, **kwargs)

    return wrapper


@dataclass(eq=False)
class _Row:
    """One sample being decoded: where its completion goes, its prompt, and its decoding state."""

    request: int
    sample: int
    prompt: list[int]
    sampling: Sampling
    max_new: int
    generator: torch.Generator | None
    constrained: bool
    matcher: Any = None  # llguidance.LLMatcher
    guard: RepeatGuard | None = None
    tokens: list[int] = field(default_factory=list)
    text: str | None = None
    finish: FinishReason | None = None
    error: str | None = None

    def fail(self, message: str) -> None:
        self.finish, self.error = "error", message


class TransformersModel:
    """A local model run by transformers/PyTorch on CPU; requests are decoded in left-padded batches.

    ``batch_size`` bounds the rows (samples, not requests) decoded together. ``n_threads`` is PyTorch's thread count
    (default: the CPUs this process may use; decoding is bound by matrix products that scale with cores).

    ``mask_threads`` > 0 computes the batch's grammar masks on an ``llguidance.LLExecutor`` pool of that size; the
    default 0 computes them one row after another on the calling thread. On 2 cores a pool competes with
    PyTorch's threads and measured no faster (3-8 ms per step for 8 rows against 2-4 ms sequentially, each mask a
    few hundred microseconds next to a forward pass of tens of milliseconds), so the pool pays only with spare
    cores and expensive grammars.
    """

    backend = "transformers"

    def __init__(self, model: str = "smollm2", batch_size: int = DEFAULT_BATCH_SIZE, n_threads: int | None = None,
                 mask_threads: int = 0, max_context: int | None = None) -> None:
        from corral.extras import MissingExtra, require

        try:
            torch = require("torch", "hf", "the transformers backend")
            transformers = require("transformers", "hf", "the transformers backend")
        except MissingExtra as exc:
            raise ModelError(str(exc)) from None
        if batch_size < 1:
            raise ModelError(f"batch_size must be >= 1, got {batch_size}")
        self.batch_size = batch_size
        self.mask_threads = mask_threads
        self.n_threads = n_threads or default_threads()
        torch.set_num_threads(self.n_threads)

        directory, files = _locate(model)
        self.path = directory / files["gguf_file"] if files else directory
        self.name = self.path.stem if model.endswith(".gguf") else model
        from ._llamacpp_cpu import cpu_model

        self.runtime = f"torch {torch.__version__}, {self.n_threads} threads, on {cpu_model()}"
        if not files and adapter_dir(directory) is not None:  # a LoRA adapter or a training run: base + adapter
            self._model, self._tokenizer = load_checkpoint(directory, merge=True)
            self.runtime += f", adapter {fingerprint(directory)}"
        else:
            try:
                with quick_gguf_reads(), quiet_progress(transformers):
                    self._tokenizer = transformers.AutoTokenizer.from_pretrained(
                        str(directory), local_files_only=True, **files)
                    self._model = transformers.AutoModelForCausalLM.from_pretrained(
                        str(directory), dtype=torch.float32, local_files_only=True, **files)
            except (OSError, ValueError, RuntimeError, KeyError, NotImplementedError) as exc:
                raise ModelError(f"could not load {self.path} with transformers: {exc}") from None
        self._model.eval()
        if not getattr(self._tokenizer, "chat_template", None):
            raise ModelError(f"{self.path} carries no chat template, so chat requests cannot be rendered")

        config = self._model.config
        self.max_context = max_context or int(getattr(config, "max_position_embeddings", 2048))
        eos = {self._tokenizer.eos_token_id, *_as_list(getattr(self._model.generation_config, "eos_token_id", None))}
        self._eos: frozenset[int] = frozenset(t for t in eos if t is not None)
        if not self._eos:
            raise ModelError(f"{self.path} names no end-of-sequence token; generation could not stop")
        pad = self._tokenizer.pad_token_id
        self._pad: int = pad if pad is not None else min(self._eos)
        self._vocab = len(self._tokenizer)
        self._factory: MatcherFactory | None = None
        self._executor: Any = None

    # ------------------------------------------------------------------------------------------- grammars
    @property
    def masks(self) -> MatcherFactory:
        """The llguidance matcher factory for this tokenizer (built on first constrained request, under a second)."""
        if self._factory is None:
            import llguidance
            import llguidance.hf

            try:
                tokenizer = llguidance.hf.from_tokenizer(self._tokenizer, eos_token=min(self._eos))
            except ValueError as exc:
                raise ModelError(f"llguidance cannot use the tokenizer of {self.path}: {exc}") from None
            self._factory = MatcherFactory(tokenizer, tokenizer.vocab_size)
            if self.mask_threads > 0:
                self._executor = llguidance.LLExecutor(num_threads=self.mask_threads)
        return self._factory

    # ------------------------------------------------------------------------------------------- completion
    def complete(self, requests: Sequence[Request]) -> list[list[Completion]]:
        """Every sample of every request, decoded in batches of rows with similar prompt lengths.

        ``Completion.seconds`` is the wall time of the row's batch (prefill, decoding, masks) divided evenly among
        its rows, so summing ``seconds`` over completions gives the total time spent and
        ``sum(completion_tokens) / sum(seconds)`` is the real throughput.
        """
        if self._model is None:
            raise ModelError(f"model {self.name} is closed")
        rows = [self._row(r, request, j) for r, request in enumerate(requests) for j in range(request.sampling.n)]
        results: list[list[Completion | None]] = [[None] * request.sampling.n for request in requests]
        pending = sorted((row for row in rows if row.finish is None), key=lambda row: len(row.prompt))
        seconds: dict[int, float] = {}
        for start in range(0, len(pending), self.batch_size):
            batch = pending[start:start + self.batch_size]
            started = time.perf_counter()
            try:
                self._decode(batch)
            except RuntimeError as exc:  # a failing forward pass (memory, shapes) fails its rows, loudly
                for row in batch:
                    if row.finish is None:
                        row.fail(f"the forward pass failed: {exc}")
            share = (time.perf_counter() - started) / len(batch)
            seconds.update((id(row), share) for row in batch)
        for row in rows:
            text = row.text if row.text is not None else self._tokenizer.decode(row.tokens, skip_special_tokens=True)
            results[row.request][row.sample] = Completion(
                text=text,
                finish_reason=row.finish or "length",
                prompt_tokens=len(row.prompt),
                completion_tokens=len(row.tokens),
                seconds=seconds.get(id(row), 0.0),
                constrained=row.constrained,
                error=row.error,
            )
        return results  # type: ignore[return-value]

    def _row(self, index: int, request: Request, sample: int) -> _Row:
        import torch

        sampling = request.sampling
        prompt = self._prompt(request)
        generator = None
        if sampling.temperature > 0:
            seed = sampling.seed_for(sample)
            generator = torch.Generator().manual_seed(seed if seed is not None else secrets.randbits(63))
        row = _Row(index, sample, prompt, sampling, min(sampling.max_tokens, self.max_context - len(prompt)),
                   generator, constrained=request.grammar is not None)
        if sampling.repeat_limit:
            row.guard = RepeatGuard(sampling.repeat_limit, self.masks.token_table)
        if row.max_new < 1:
            row.fail(f"the prompt is {len(prompt)} tokens; the model's context is {self.max_context}")
            row.finish = "context"
        elif request.grammar is not None:
            try:
                row.matcher = self.masks.matcher(request.grammar)
            except ValueError as exc:  # GrammarError: this row fails, the others still run
                row.fail(str(exc))
        return row

    def _prompt(self, request: Request) -> list[int]:
        text = self._tokenizer.apply_chat_template(list(request.messages), tokenize=False, add_generation_prompt=True)
        # the template already writes its special tokens; adding BOS again would change the prompt
        return list(self._tokenizer(text, add_special_tokens=False)["input_ids"])

    @_no_grad
    def _decode(self, rows: list[_Row]) -> None:
        """Prefill the left-padded prompts, then one token per live row per step, sharing one KV cache."""
        import torch
        from transformers import DynamicCache

        width = max(len(row.prompt) for row in rows)
        ids = torch.full((len(rows), width), self._pad, dtype=torch.long)
        attention = torch.zeros((len(rows), width), dtype=torch.long)
        for i, row in enumerate(rows):
            ids[i, width - len(row.prompt):] = torch.tensor(row.prompt)
            attention[i, width - len(row.prompt):] = 1
        # positions count real tokens only, so a padded row sees the same positions as it would alone
        positions = (attention.cumsum(-1) - 1).clamp(min=0)
        cache = DynamicCache(config=self._model.config)
        out = self._model(input_ids=ids, attention_mask=attention, position_ids=positions, past_key_values=cache,
                          use_cache=True, logits_to_keep=1)
        live = list(rows)
        following = attention.sum(-1)
        while True:
            logits = out.logits[:, -1, :].float()
            tokens = self._choose(logits, live).tolist()
            keep = [i for i, (row, token) in enumerate(zip(live, tokens, strict=True)) if self._advance(row, token)]
            if not keep:
                return
            if len(keep) < len(live):
                index = torch.tensor(keep)
                cache.batch_select_indices(index)
                attention, following = attention[index], following[index]
                live = [live[i] for i in keep]
                tokens = [tokens[i] for i in keep]
            attention = torch.cat([attention, attention.new_ones((len(live), 1))], dim=1)
            out = self._model(input_ids=torch.tensor(tokens).unsqueeze(1), attention_mask=attention,
                              position_ids=following.unsqueeze(1), past_key_values=cache, use_cache=True)
            following = following + 1

    def _choose(self, logits: torch.Tensor, rows: list[_Row]) -> torch.Tensor:
        """The next token of every row: grammar masks first, then greedy or temperature + top-p sampling."""
        import torch

        if logits.shape[1] > self._vocab:  # the embedding's padding rows are no tokens and cannot be decoded
            logits[:, self._vocab:] = float("-inf")
        constrained = [i for i, row in enumerate(rows) if row.matcher is not None]
        if constrained:
            self._mask(logits, rows, constrained)
        for i, row in enumerate(rows):
            if row.guard is not None:
                _refuse(logits[i], row.guard.refused())
        chosen = logits.argmax(-1)
        sampled = [i for i, row in enumerate(rows) if row.generator is not None]
        if sampled:
            index = torch.tensor(sampled)
            temperature = torch.tensor([rows[i].sampling.temperature for i in sampled]).unsqueeze(1)
            top_p = torch.tensor([rows[i].sampling.top_p for i in sampled]).unsqueeze(1)
            probs = torch.softmax(logits[index] / temperature, dim=-1)
            # a stable sort keeps tied tokens in id order, so a row's draw never depends on sort internals
            probs, order = probs.sort(dim=-1, descending=True, stable=True)
            cumulative = probs.cumsum(-1)
            probs = probs * ((cumulative - probs) < top_p)  # the smallest prefix reaching top_p (never empty)
            cumulative = probs.cumsum(-1)
            # inverse-CDF sampling with one uniform draw from each row's own generator
            draws = torch.cat([torch.rand(1, generator=rows[i].generator) for i in sampled]) * cumulative[:, -1]
            picks = torch.searchsorted(cumulative, draws.unsqueeze(1), right=True)
            picks = torch.minimum(picks, (probs > 0).sum(-1, keepdim=True) - 1)
            chosen[index] = order.gather(-1, picks).squeeze(1)
        return chosen

    def _mask(self, logits: torch.Tensor, rows: list[_Row], constrained: list[int]) -> None:
        """-inf for every token a row's grammar forbids; a row whose grammar allows nothing fails, loudly."""
        import torch

        factory = self.masks
        words = torch.from_numpy(factory.mask_buffer(len(constrained)))
        started = time.perf_counter()
        if self._executor is not None:
            from llguidance.torch import fill_next_token_bitmask_par

            pairs = [(rows[i].matcher, k) for k, i in enumerate(constrained)]
            fill_next_token_bitmask_par(self._executor, pairs, words)
        else:
            for k, i in enumerate(constrained):
                rows[i].matcher.unsafe_compute_mask_ptr(words[k].data_ptr(), words.shape[1] * words.element_size())
        factory.stats.mask_seconds.extend([(time.perf_counter() - started) / len(constrained)] * len(constrained))
        bits = (words.unsqueeze(-1) >> torch.arange(32, dtype=torch.int32)) & 1
        allowed = bits.view(len(constrained), -1).bool()
        vocab = logits.shape[1]
        if allowed.shape[1] < vocab:  # logits past the tokenizer's vocabulary are padding, never tokens
            allowed = torch.nn.functional.pad(allowed, (0, vocab - allowed.shape[1]), value=False)
        allowed = allowed[:, :vocab]
        index = torch.tensor(constrained)
        logits[index] = logits[index].masked_fill(~allowed, float("-inf"))
        for k, i in enumerate(constrained):
            if not allowed[k].any():
                matcher = rows[i].matcher
                rows[i].fail(f"the grammar allows no next token: {matcher.get_error() or matcher.stop_reason()}")
                logits[i] = 0.0  # keeps sampling finite; the row's token is discarded

    def _advance(self, row: _Row, token: int) -> bool:
        """Record a row's new token; whether the row goes on (not EOS, grammar end, stop string or max_tokens)."""
        if row.finish is not None:  # failed while masking: its token is meaningless
            return False
        if token in self._eos:
            row.finish = "stop"
            return False
        row.tokens.append(token)
        if row.guard is not None:
            row.guard.push(token)
        if row.matcher is not None and not row.matcher.consume_token(token):
            row.fail(f"the output left the grammar: {row.matcher.get_error()}")
            return False
        if row.sampling.stop:
            text = self._tokenizer.decode(row.tokens, skip_special_tokens=True)
            cut = min((i for i in (text.find(s) for s in row.sampling.stop if s) if i >= 0), default=-1)
            if cut >= 0:
                row.text, row.finish = text[:cut], "stop"
                return False
        if row.matcher is not None and row.matcher.is_stopped():
            row.finish = "stop"
            return False
        if len(row.tokens) >= row.max_new:
            row.finish = "length"
            return False
        return True

    # ------------------------------------------------------------------------------------------- scoring
    @_no_grad
    def score(self, requests: Sequence[Request], texts: Sequence[str]) -> list[Likelihood | None]:
        """How likely each text is as the reply to its request's chat, with no grammar (``corral.models.Scorer``).

        One forward pass per pair over the rendered chat and the reply's own tokens (no end of turn), keeping logits
        only for the positions that predict a reply token; their log-softmax at the reply's tokens is summed. Pairs
        run one at a time: a scoring pass is short next to generation, and an unpadded row gives the same figure
        alone or in any batch. None where the chat and reply exceed the context.
        """
        import torch

        if self._model is None:
            raise ModelError(f"model {self.name} is closed")
        if len(requests) != len(texts):
            raise ValueError(f"{len(requests)} requests but {len(texts)} texts")
        scores: list[Likelihood | None] = []
        for request, text in zip(requests, texts, strict=True):
            reply = list(self._tokenizer(text, add_special_tokens=False)["input_ids"]) if text else []
            if not reply:
                scores.append(Likelihood(0, 0.0))
                continue
            prompt = self._prompt(request)
            if len(prompt) + len(reply) > self.max_context:
                scores.append(None)
                continue
            ids = torch.tensor([[*prompt, *reply]])
            # the last len(reply) + 1 positions: the one after the prompt predicts reply[0], the final one nothing
            logits = self._model(input_ids=ids, logits_to_keep=len(reply) + 1).logits[0, :-1].double()
            if logits.shape[1] > self._vocab:  # the embedding's padding rows are no tokens
                logits[:, self._vocab:] = float("-inf")
            picked = torch.log_softmax(logits, dim=-1).gather(1, torch.tensor(reply).unsqueeze(1))
            scores.append(Likelihood(len(reply), float(picked.sum())))
        return scores

    def close(self) -> None:
        """Drop the weights (about 1 GB) now rather than when the last reference goes."""
        self._model = None  # type: ignore[assignment]
        self._factory = self._executor = None


def _refuse(logits: torch.Tensor, refused: set[int]) -> None:
    """-inf for the repeat limit's refused tokens of one row, unless none would be left (the grammar wins)."""
    if not refused:
        return
    import torch

    index = torch.tensor(sorted(refused))
    kept = logits[index].clone()
    logits[index] = float("-inf")
    if not torch.isfinite(logits).any():
        logits[index] = kept


def _as_list(value: int | list[int] | None) -> list[int]:
    return [] if value is None else [value] if isinstance(value, int) else list(value)


def _locate(model: str) -> tuple[Path, dict[str, str]]:
    """A model's directory and the ``gguf_file`` argument: a bundled name or .gguf path, or a local HF checkpoint."""
    path = Path(model).expanduser()
    if path.is_dir():
        if not (path / "config.json").is_file() and adapter_dir(path) is None:
            raise ModelError(f"{path} is a directory without config.json or a LoRA adapter, not a transformers "
                             "checkpoint")
        return path, {}
    gguf = resolve_gguf(model)
    return gguf.parent, {"gguf_file": gguf.name}


@backends.register("transformers")
def _transformers(model: str = "smollm2", **options: object) -> TransformersModel:
    return TransformersModel(model, **options)  # type: ignore[arg-type]
