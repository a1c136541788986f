"""The ``llamacpp`` backend: llama-cpp-python on a GGUF (by default the bundled SmolLM2-135M-Instruct).

Corral runs its own token loop on llama-cpp-python's context instead of ``create_chat_completion``. The prompt
is built with the GGUF's chat template, llama.cpp decodes, and a C sampler chain (greedy, or top-p, temperature
and a seeded draw) picks each token. A grammar is enforced model-first by ``corral.decoding.SequenceMask``: the
sampled token is kept when the grammar allows it, and only otherwise is the llguidance mask written into
llama.cpp's logits and the token drawn again. With ``Sampling.particles`` >= 2 a constrained request is decoded
by sequential Monte Carlo instead (``_llamacpp_smc``: a draw from the model's own distribution given the
grammar, in a context of its own built on first use). The Python logits-processor path costs a numpy record array over
49k entries per token, and llama.cpp's own grammar sampler walks the grammar for every candidate; see
docs/performance.md.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from corral.decoding import MatcherFactory, RepeatGuard, SequenceMask
from corral.registry import backends

from ._bundled import resolve_gguf
from ._llamacpp_cpu import cpu_model, load_backends
from ._llamacpp_smc import PAD as SMC_PAD
from ._llamacpp_smc import SmcContext, smc_sample
from ._protocol import Completion, Likelihood, Message, ModelError, Request, Sampling
from ._threads import PACE_TOKENS, ThreadGovernor

Segment = tuple[bool, tuple[int, ...]]
"""A piece of a chat's prompt: whether it is evaluated a token at a time (an earlier reply), and its tokens."""


class LlamaCppModel:
    """A local GGUF model; requests run one after another (llama.cpp's Python API decodes one sequence)."""

    backend = "llamacpp"

    def __init__(self, model: str = "smollm2", n_ctx: int = 8192, n_threads: int | None = None) -> None:
        self.path: Path = resolve_gguf(model)
        build = load_backends()  # before llama.cpp runs: a build this CPU cannot run is an error, never a SIGILL
        try:
            from llama_cpp import Llama, __version__
        except ImportError as exc:
            raise ModelError(f"the llamacpp backend needs llama-cpp-python: {exc}") from None
        self.runtime = f"{build.describe()}, llama-cpp-python {__version__}, on {cpu_model()}"
        self.name = model if not model.endswith(".gguf") else self.path.stem
        # more threads than free cores makes llama.cpp's per-token barrier wait on descheduled threads: the count
        # follows the cores other processes leave free (``_pace``), unless fixed here or by CORRAL_THREADS
        self._governor = ThreadGovernor(n_threads)
        self.threads = threads = self._governor.threads()
        try:
            self._llama = Llama(model_path=str(self.path), n_ctx=n_ctx, n_threads=threads, n_threads_batch=threads,
                                verbose=False)
        except (ValueError, RuntimeError) as exc:
            raise ModelError(f"could not load {self.path}: {exc}") from None
        self._factory: MatcherFactory | None = None
        self._smc: SmcContext | None = None  # SMC's own context (one KV stream per particle), built on first use
        self._held: list[Segment] = []  # what the context's KV cells hold now, segment by segment (see _evaluate)
        self._chat_template = _chat_template(self._llama, self.path)

    @property
    def masks(self) -> MatcherFactory:
        """The llguidance matcher factory for this model's vocabulary (built on first use, about a second)."""
        if self._factory is None:
            from llguidance.llamacpp import lltokenizer_from_vocab

            vocab = self._llama._model.vocab
            # one chain at a time (the runner's batch size here is 1): two grammars' prototypes are enough
            self._factory = MatcherFactory(lltokenizer_from_vocab(vocab), self._llama.n_vocab(), kept=2)
        return self._factory

    def complete(self, requests: Sequence[Request]) -> list[list[Completion]]:
        return [[self._sample(request, i) for i in range(request.sampling.n)] for request in requests]

    def prompt_tokens(self, messages: Sequence[Message]) -> list[int]:
        """The chat rendered with the GGUF's own template, tokenised with special tokens."""
        return [token for _, tokens in self.prompt_segments(messages) for token in tokens]

    def prompt_segments(self, messages: Sequence[Message]) -> list[Segment]:
        """The chat rendered with the GGUF's own template and tokenised (special tokens parsed) in segments: each
        assistant turn's text on its own, *stepped* (evaluated a token at a time, as a decoder wrote it), and the
        text around them as batches. A chat without an earlier reply is one batch, as it always was.

        Why segments: llama.cpp's kernels round a token's KV cells differently in a batch and alone, so a feedback
        round can continue from the context its previous round left (prompt, then the reply as written) only if a
        fresh context would evaluate the same chat the same way. Evaluating every chat by its segments makes the
        output a function of the chat alone, whichever way its cells were made."""
        rendered = self._chat_template(messages=list(messages))  # type: ignore[arg-type]
        text, spans, cursor = rendered.prompt, [], 0
        for message in messages:
            content = message.get("content") or ""
            if message.get("role") != "assistant" or not content:
                continue
            at = text.find(content, cursor)
            if at < 0:  # a template that rewrites replies: the chat is one batch
                spans = []
                break
            spans.append((at, at + len(content)))
            cursor = at + len(content)
        segments: list[Segment] = []
        start = 0
        for begin, end in [*spans, (len(text), len(text))]:
            for stepped, piece in ((False, text[start:begin]), (True, text[begin:end])):
                if piece:
                    first = not segments
                    tokens = self._llama.tokenize(piece.encode("utf-8"),
                                                  add_bos=first and not rendered.added_special, special=True)
                    segments.append((stepped, tuple(tokens)))
            start = end
        return segments

    def _evaluate(self, segments: Sequence[Segment]) -> None:
        """Make the context hold ``segments`` (batches in one call each, stepped segments a token at a time),
        keeping the longest run of whole segments it already holds: a feedback round's chat begins with the
        previous round's prompt and reply, and only the new turn is evaluated. The last segment is always evaluated
        again, so the logits after it are fresh."""
        held, self._held = self._held, []
        kept = position = 0
        for (stepped, tokens), (was_stepped, had) in zip(segments[:-1], held, strict=False):
            if stepped != was_stepped or (had[:len(tokens)] if stepped else had) != tokens:
                break
            kept, position = kept + 1, position + len(tokens)
            if len(had) != len(tokens):  # a reply the chat holds only a prefix of (a stop string cut it)
                break
        self._llama.n_tokens = position  # eval() drops the cells from here on
        for stepped, tokens in segments[kept:]:
            if stepped:
                for token in tokens:
                    self._llama.eval([token])
            else:
                self._llama.eval(list(tokens))
        self._held = list(segments)

    def _sample(self, request: Request, i: int) -> Completion:
        import llama_cpp

        started = time.perf_counter()
        sampling = request.sampling
        segments = self.prompt_segments(request.messages)
        prompt = [token for _, tokens in segments for token in tokens]
        room = self._llama.n_ctx() - len(prompt)
        if room < 1:
            return Completion(text="", finish_reason="context", prompt_tokens=len(prompt), completion_tokens=0,
                              seconds=time.perf_counter() - started, constrained=request.grammar is not None,
                              error=f"the prompt has {len(prompt)} tokens; the context holds {self._llama.n_ctx()}")
        if request.grammar is not None and sampling.particles >= 2:
            return smc_sample(self, request, prompt, min(sampling.max_tokens, room), i, started)
        mask = SequenceMask(self.masks, request.grammar) if request.grammar is not None else None
        guard = RepeatGuard(sampling.repeat_limit, self.masks.token_table) if sampling.repeat_limit else None
        chain = _sampler_chain(sampling, sampling.seed_for(i))
        ctx, vocab, n_vocab = self._llama._ctx.ctx, self._llama._model.vocab, self._llama.n_vocab()
        tokens: list[int] = []
        finish, error = "length", None
        pieces = bytearray()
        stops = [s.encode("utf-8") for s in sampling.stop if s]
        logprob = 0.0  # of the written tokens under the raw logits (no grammar, no temperature): see Completion
        written: list[int] = []  # the reply's tokens the context holds (evaluated), for the next round's chat
        try:
            # the chat is evaluated by its segments whatever the context held before (a feedback round keeps its
            # previous round's cells), so the same request gives the same text, as from a fresh context
            self._pace()
            self._evaluate(segments)
            for step in range(min(sampling.max_tokens, room)):
                if step % PACE_TOKENS == PACE_TOKENS - 1:
                    self._pace()
                token = llama_cpp.llama_sampler_sample(chain, ctx, -1)
                logits = np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(ctx, -1), shape=(n_vocab,))
                norm = _log_normaliser(logits)  # before a mask or a refusal writes -inf into the row
                refused = guard.refused() if guard is not None else set()
                if token in refused or (mask is not None and not mask.accept(token)):
                    if mask is not None and not mask.forbid(logits):
                        error = f"the grammar allows no next token: {mask.failed or 'nothing allowed'}"
                        break
                    _refuse(logits, refused)
                    token = llama_cpp.llama_sampler_sample(chain, ctx, -1)
                    if mask is not None and not mask.consume(token):
                        error = f"the output left the grammar: {mask.failed}"
                        break
                if llama_cpp.llama_vocab_is_eog(vocab, token):
                    finish = "stop"
                    break
                tokens.append(token)
                logprob += float(logits[token]) - norm  # a kept token's own logit is never masked
                if guard is not None:
                    guard.push(token)
                if stops:
                    pieces += self._llama.detokenize([token])
                    cut = _first_stop(pieces, stops)
                    if cut is not None:
                        del pieces[cut:]
                        finish = "stop"
                        break
                self._llama.eval([token])
                written.append(token)
        finally:
            llama_cpp.llama_sampler_free(chain)
            if self._held:  # None of it if evaluating the chat failed
                self._held.append((True, tuple(written)))
        raw = bytes(pieces) if stops else self._llama.detokenize(tokens)
        text = raw.decode("utf-8", errors="ignore")
        return Completion(
            text=text,
            finish_reason="error" if error else finish,  # type: ignore[arg-type]
            prompt_tokens=len(prompt),
            completion_tokens=len(tokens),
            seconds=time.perf_counter() - started,
            constrained=mask is not None,
            error=error,
            likelihood=None if error else self._as_scored(text, tokens, logprob),
        )

    def _as_scored(self, text: str, tokens: list[int], logprob: float) -> Likelihood | None:
        """The likelihood ``score`` would give ``text``, from what decoding summed, when the tokens written are
        the text's canonical tokens (the ones ``score`` scores); None otherwise (a stop string cut the text, or a
        grammar led the decoder through an unusual split: the text is scored after the run)."""
        if not tokens:
            return Likelihood(0, 0.0)
        canonical = self._llama.tokenize(text.encode("utf-8"), add_bos=False, special=False)
        if canonical != tokens or not np.isfinite(logprob):
            return None
        return Likelihood(len(tokens), logprob)

    def score(self, requests: Sequence[Request], texts: Sequence[str]) -> list[Likelihood | None]:
        """How likely each text is as the reply to its request's chat, with no grammar (``corral.models.Scorer``).

        The chat is rendered as for generation and the reply tokenised on its own (its canonical tokens, no end of
        turn); one forward pass over both asks llama.cpp for logits only at the positions that predict a reply
        token, and their log-softmax at the reply's tokens is summed (float64). None where the chat and reply do
        not fit the context.
        """
        if len(requests) != len(texts):
            raise ValueError(f"{len(requests)} requests but {len(texts)} texts")
        return [self._score(request, text) for request, text in zip(requests, texts, strict=True)]

    def _score(self, request: Request, text: str) -> Likelihood | None:
        import llama_cpp

        reply = self._llama.tokenize(text.encode("utf-8"), add_bos=False, special=False) if text else []
        if not reply:
            return Likelihood(0, 0.0)
        prompt = self.prompt_tokens(request.messages)
        tokens = [*prompt, *reply]
        if len(tokens) > self._llama.n_ctx():
            return None
        first, last = len(prompt) - 1, len(tokens) - 1  # logits at position p predict token p + 1
        ctx, n_vocab, batch = self._llama._ctx, self._llama.n_vocab(), self._llama._batch
        self._llama.reset()  # the next sample starts from a fresh context: the cells scoring leaves are not a chat's
        self._held = []
        ctx.kv_cache_clear()
        self._pace()
        logprob = 0.0
        # the chat in batches of n_batch, the reply in batches of SCORE_ROWS: llama.cpp's logits buffer grows to
        # the most rows one batch asks for and stays that large (512 rows of 49k logits are 100 MB)
        starts = [*range(0, first, self._llama.n_batch), *range(first, len(tokens), SCORE_ROWS)]
        for start, end in zip(starts, [*starts[1:], len(tokens)], strict=True):
            chunk = tokens[start:end]
            wanted = [p for p in range(start, start + len(chunk)) if first <= p < last]
            raw = batch.batch
            raw.n_tokens = len(chunk)
            for i, token in enumerate(chunk):
                raw.token[i], raw.pos[i], raw.n_seq_id[i] = token, start + i, 1
                raw.seq_id[i][0] = 0
                raw.logits[i] = first <= start + i < last
            ctx.decode(batch)
            if wanted:
                rows = np.ctypeslib.as_array(llama_cpp.llama_get_logits(ctx.ctx), shape=(len(wanted), n_vocab))
                logprob += _target_logprob(rows, [tokens[p + 1] for p in wanted])
        self._llama.reset()
        return Likelihood(len(reply), logprob)

    def _pace(self) -> None:
        """Give llama.cpp as many threads as the governor says the machine has free now (a cheap call). Outputs do
        not depend on it: llama.cpp splits each op's rows among its threads, never one row's sum."""
        import llama_cpp

        threads = self._governor.threads()
        if threads != self.threads:
            self.threads = threads
            llama_cpp.llama_set_n_threads(self._llama._ctx.ctx, threads, threads)
            if self._smc is not None:
                llama_cpp.llama_set_n_threads(self._smc.context.ctx, threads, threads)

    def _smc_context(self, particles: int, cells: int) -> SmcContext:
        """A context for ``particles`` sequences of ``cells`` tokens each: the last one when it is large enough
        (the KV cells in use, not the capacity, shape llama.cpp's attention, so reuse keeps outputs the same)."""
        if self._smc is None or not self._smc.fits(particles, cells):
            if self._smc is not None:
                self._smc.close()
                self._smc = None
            try:
                self._smc = SmcContext(self._llama, particles, -(-cells // SMC_PAD) * SMC_PAD, self.threads)
            except (ValueError, RuntimeError) as exc:
                raise ModelError(f"could not make a context for {particles} SMC particles: {exc}") from None
        return self._smc

    def close(self) -> None:
        if self._smc is not None:
            self._smc.close()
            self._smc = None
        self._llama.close()


SCORE_ROWS = 64
"""How many reply tokens one scoring batch asks logits for (64 rows of SmolLM2's 49k logits: 12.6 MB)."""


def _target_logprob(rows: np.ndarray, targets: Sequence[int], block: int = 16) -> float:
    """The summed log-softmax of each row at its target token, computed in float64 a block of rows at a time
    (a float64 copy of 64 rows over 49k tokens would be 25 MB)."""
    total = 0.0
    for start in range(0, len(targets), block):
        part = rows[start:start + block].astype(np.float64)
        top = part.max(axis=1, keepdims=True)
        norm = top[:, 0] + np.log(np.exp(part - top).sum(axis=1))
        picked = part[np.arange(len(part)), np.asarray(targets[start:start + block])]
        total += float((picked - norm).sum())
    return total


def _log_normaliser(logits: np.ndarray) -> float:
    """log(sum(exp(logits))), the log-softmax's normaliser, summed in float64 (about 40 µs over 49k logits)."""
    top = float(logits.max())
    return top + float(np.log(np.exp(logits - top).sum(dtype=np.float64)))


def _refuse(logits: np.ndarray, refused: set[int]) -> None:
    """-inf for the repeat limit's refused tokens, unless that would leave no token at all (the grammar wins)."""
    if not refused:
        return
    index = np.fromiter(refused, dtype=np.int64)
    kept = logits[index].copy()
    logits[index] = -np.inf
    if not np.isfinite(logits).any():
        logits[index] = kept


def _chat_template(llama, path: Path):  # -> llama_chat_format.Jinja2ChatFormatter
    """The GGUF's chat template as llama-cpp-python renders it (sandboxed Jinja)."""
    return chat_formatter(llama._model, path)


def chat_formatter(model, path: Path):  # (llama_cpp._internals.LlamaModel) -> llama_chat_format.Jinja2ChatFormatter
    """The chat template of a loaded GGUF ``model`` (its vocabulary alone is enough) as llama-cpp-python renders it."""
    from llama_cpp import llama_chat_format

    template = model.metadata().get("tokenizer.chat_template")
    if not template:
        raise ModelError(f"{path} has no chat template (tokenizer.chat_template); Corral needs one to build prompts")
    return llama_chat_format.Jinja2ChatFormatter(
        template=template, eos_token=model.token_get_text(model.token_eos()),
        bos_token=model.token_get_text(model.token_bos()) if model.token_bos() != -1 else "")


def _sampler_chain(sampling: Sampling, seed: int | None):  # -> llama_cpp.llama_sampler_p
    """llama.cpp's sampler chain for these parameters: greedy at temperature 0, else top-p, temperature, draw."""
    import llama_cpp

    chain = llama_cpp.llama_sampler_chain_init(llama_cpp.llama_sampler_chain_default_params())
    if sampling.temperature == 0:
        llama_cpp.llama_sampler_chain_add(chain, llama_cpp.llama_sampler_init_greedy())
        return chain
    if sampling.top_p < 1:
        llama_cpp.llama_sampler_chain_add(chain, llama_cpp.llama_sampler_init_top_p(sampling.top_p, 1))
    llama_cpp.llama_sampler_chain_add(chain, llama_cpp.llama_sampler_init_temp(sampling.temperature))
    draw_seed = llama_cpp.LLAMA_DEFAULT_SEED if seed is None else seed & 0xFFFFFFFF
    llama_cpp.llama_sampler_chain_add(chain, llama_cpp.llama_sampler_init_dist(draw_seed))
    return chain


def _first_stop(text: bytearray, stops: list[bytes]) -> int | None:
    """Where the earliest stop string starts in the output so far, if any has appeared."""
    found = [i for i in (text.find(stop) for stop in stops) if i >= 0]
    return min(found) if found else None


@backends.register("llamacpp")
def _llamacpp(model: str = "smollm2", **options: object) -> LlamaCppModel:
    return LlamaCppModel(model, **options)  # type: ignore[arg-type]
