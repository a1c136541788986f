"""The ``llamacpp`` backend: llama-cpp-python on a GGUF (by default the bundled SmolLM2-135M-Instruct).

Corral runs its own token loop on llama.cpp instead of ``create_chat_completion``. The prompt is built with the
GGUF's chat template, llama.cpp decodes, and a C sampler chain (greedy, or top-p, temperature and a seeded draw)
picks each token. The samples given in one ``complete`` call are decoded together, up to ``MAX_STREAMS`` at a
time, one KV stream each (``_llamacpp_streams``: a reply is bit for bit the one it would be alone). A grammar is
enforced model-first by ``corral.decoding.SequenceMask``: the sampled token is kept when the grammar allows it,
and only otherwise is the llguidance mask written into llama.cpp's logits and the token drawn again. With
``Sampling.particles`` >= 2 a constrained request is decoded by sequential Monte Carlo instead
(``_llamacpp_smc``: a draw from the model's own distribution given the grammar, one stream per particle). The
Python logits-processor path costs a numpy record array over 49k entries per token, and llama.cpp's own grammar
sampler walks the grammar for every candidate; see docs/performance.md. The Llama object itself only tokenises
and renders chats: its own context is never decoded in.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from corral.decoding import MatcherFactory, RepeatGuard, SequenceMask
from corral.memory import return_freed_memory
from corral.registry import backends

from ._bundled import resolve_gguf
from ._llamacpp_cpu import cpu_model, load_backends
from ._llamacpp_smc import smc_sample
from ._llamacpp_streams import N_BATCH, Segment, StreamContext, padded, shared_segments
from ._protocol import Completion, Likelihood, Message, ModelError, Request, Sampling
from ._threads import PACE_TOKENS, ThreadGovernor

MAX_STREAMS = 8
"""The most replies decoded together: past 8 the gain flattens (the bundled model on 2 cores,
``benchmarks/batched_decoding.py``: 83 tokens/s alone, 148 with 4 streams, 164 with 8, 181 with 16)."""


GRAMMAR_CHARS = 600_000
"""The most grammar text one batch decodes under at once: each grammar's llguidance lexer keeps a state cache that
grows with the grammar and the text decoded (a COLLIE sent04 grammar of 275,000 characters holds about 100 MB by
its end), so a batch of the largest grammars would multiply the run's peak memory."""
PARKED_BYTES = 256 * 2**20
"""The most memory parked streams' cells may take (SmolLM2: 23 kB a token, about 11,000 tokens of chats)."""


class LlamaCppModel:
    """A local GGUF model; the samples of the requests given together are decoded together, in batches."""

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
        self.n_ctx = n_ctx  # the most tokens a chat and its reply may take
        try:
            # the Llama's own context is never decoded in (generation and scoring use ``_streams``): the smallest
            # that keeps llama-cpp-python's batch of 512, not n_ctx cells of KV memory held for nothing
            self._llama = Llama(model_path=str(self.path), n_ctx=N_BATCH, n_threads=threads,
                                n_threads_batch=threads, verbose=False)
        except (ValueError, RuntimeError) as exc:
            raise ModelError(f"could not load {self.path}: {exc}") from None
        self._factory: MatcherFactory | None = None
        # generation, SMC and scoring decode in a context of several KV streams (``_llamacpp_streams``), made on
        # first use and made again larger when a batch needs it
        self._streams: StreamContext | None = None
        # streams' cells parked when their context was replaced or their stream taken, with the call that parked
        # them, to restore where a chat continues them
        self._parked: list[tuple[int, list[Segment], bytes]] = []
        self._calls = 0
        self._chat_template = _chat_template(self._llama, self.path)

    @property
    def masks(self) -> MatcherFactory:
        """The llguidance matcher factory for this model's vocabulary (built on first use, about a second)."""
        if self._factory is None:
            from llguidance.llamacpp import lltokenizer_from_vocab

            vocab = self._llama._model.vocab
            # a batch's replies copy their grammar's prototype when they start, and with several chains a batch, a
            # chain's next round comes after the others': a prototype kept longer than its copies holds its lexer's
            # cache for nothing, so only the last one is kept (the samples of one request share it)
            self._factory = MatcherFactory(lltokenizer_from_vocab(vocab), self._llama.n_vocab(), kept=1)
        return self._factory

    def complete(self, requests: Sequence[Request]) -> list[list[Completion]]:
        """Every sample of every request; those decoded alike (not SMC) are decoded together, several at a time."""
        import llama_cpp

        self._calls += 1
        started: list[list[_Reply | Completion]] = []
        try:
            for request in requests:
                started.append([self._start(request, i) for i in range(request.sampling.n)])
            replies = [reply for samples in started for reply in samples if isinstance(reply, _Reply)]
            for group in self._groups(replies):
                self._decode(group)
        finally:
            for samples in started:
                for reply in samples:
                    if isinstance(reply, _Reply) and reply.chain is not None:
                        llama_cpp.llama_sampler_free(reply.chain)
                        reply.chain = None
            # a chain's next round is in the next call: cells parked before this one are not coming back
            self._parked = [entry for entry in self._parked if entry[0] >= self._calls]
            return_freed_memory()
        return [[reply.completion(self) if isinstance(reply, _Reply) else reply for reply in samples]
                for samples in started]

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

    def _start(self, request: Request, index: int) -> _Reply | Completion:
        """Sample ``index`` of ``request`` made ready to decode, or its completion when there is nothing to decode
        (a prompt that fills the context) or it is decoded some other way (SMC)."""
        started = time.perf_counter()
        sampling = request.sampling
        segments = self.prompt_segments(request.messages)
        prompt = [token for _, tokens in segments for token in tokens]
        room = self.n_ctx - len(prompt)
        if room < 1:
            return Completion(text="", finish_reason="context", prompt_tokens=len(prompt), completion_tokens=0,
                              seconds=time.perf_counter() - started, constrained=request.grammar is not None,
                              error=f"the prompt has {len(prompt)} tokens; the context holds {self.n_ctx}")
        if request.grammar is not None and sampling.particles >= 2:
            return smc_sample(self, request, prompt, min(sampling.max_tokens, room), index, started)
        return _Reply(request, segments, len(prompt), min(sampling.max_tokens, room),
                      _sampler_chain(sampling, sampling.seed_for(index)),
                      SequenceMask(self.masks, request.grammar) if request.grammar is not None else None,
                      RepeatGuard(sampling.repeat_limit, self.masks.token_table) if sampling.repeat_limit else None,
                      [s.encode("utf-8") for s in sampling.stop if s], seconds=time.perf_counter() - started,
                      constrained=request.grammar is not None)

    def _groups(self, replies: Sequence[_Reply]) -> Iterator[list[_Reply]]:
        """The replies in batches, in order: each as many as share the context's cells (n_ctx of them: the KV
        memory of one full-length chat), at most ``MAX_STREAMS``, and whose distinct grammars have at most
        ``GRAMMAR_CHARS`` characters; a reply that needs more gets a batch alone."""
        group: list[_Reply] = []
        for reply in replies:
            widest = padded(max(r.cells for r in [*group, reply]))
            grammars = {r.request.grammar.hash: len(r.request.grammar.source)
                        for r in [*group, reply] if r.request.grammar is not None}
            if group and (len(group) == MAX_STREAMS or (len(group) + 1) * widest > self.n_ctx
                          or sum(grammars.values()) > GRAMMAR_CHARS):
                yield group
                group = []
            group.append(reply)
        if group:
            yield group

    def _decode(self, group: list[_Reply]) -> None:
        """Decode ``group`` together, one llama.cpp call a step for all that are still writing (see
        ``_llamacpp_streams``: each reply's text is the one it would have alone)."""
        import llama_cpp

        context = self._stream_context(len(group), max(r.cells for r in group))
        self._assign(context, group)
        ctx, vocab, n_vocab = context.context.ctx, self._llama._model.vocab, self._llama.n_vocab()
        detokenize = self._llama.detokenize
        try:
            self._pace()
            for reply in group:  # each prompt alone, its first token chosen before the next prompt's logits
                started = time.perf_counter()
                context.evaluate(reply.stream, reply.segments)
                reply.choose(ctx, -1, vocab, n_vocab, detokenize, llama_cpp)
                reply.seconds += time.perf_counter() - started
            live = [r for r in group if r.feed is not None]
            step = 0
            while live:
                step += 1
                if step % PACE_TOKENS == 0:
                    self._pace()
                started = time.perf_counter()
                context.decode([(r.feed, r.prompt + len(r.written), r.stream, True) for r in live])
                for row, reply in enumerate(live):
                    reply.written.append(reply.feed)  # type: ignore[arg-type]
                    reply.feed = None
                    if len(reply.tokens) >= reply.steps:
                        reply.finish = "length"
                    else:
                        reply.choose(ctx, row, vocab, n_vocab, detokenize, llama_cpp)
                share = (time.perf_counter() - started) / len(live)
                for reply in live:
                    reply.seconds += share
                    if reply.feed is None:  # done: its matcher (a grammar's lexer, up to ~100 MB) goes now
                        reply.mask = reply.guard = None
                live = [r for r in live if r.feed is not None]
        except BaseException:
            context.forget()
            raise
        for reply in group:  # what the stream holds now: the chat, then the reply as evaluated
            context.held[reply.stream] = [*reply.segments, (True, tuple(reply.written))]

    def _assign(self, context: StreamContext, group: list[_Reply]) -> None:
        """A stream for each reply: the one that holds most of its chat (a feedback round comes back to the stream
        that wrote its previous round), else a free one, where parked cells its chat continues are restored. A
        stream's cells are parked before another chat overwrites them: the runner may give more chains than
        there are streams, and a chain's next round should not evaluate its last reply again."""
        free = set(range(context.streams))
        for reply in group:
            kept, stream = max(((context.reusable(s, reply.segments), s) for s in free), default=(0, -1))
            if kept:
                reply.stream = stream
                free.discard(stream)
        for reply in group:
            if reply.stream >= 0:
                continue
            reply.stream = stream = min(free, key=lambda s: (bool(context.held[s]), s))
            free.discard(stream)
            self._park(context.park(stream))
            kept, best = max(((shared_segments(segments, reply.segments), i)
                              for i, (_, segments, _) in enumerate(self._parked)), default=(0, -1))
            if kept:
                _, segments, state = self._parked.pop(best)
                context.restore(stream, segments, state)

    def _park(self, parked: list[tuple[list[Segment], bytes]]) -> None:
        """Keep streams' cells for a chat that may come back, the oldest dropped past ``PARKED_BYTES``."""
        self._parked.extend((self._calls, segments, state) for segments, state in parked)
        total = sum(len(state) for _, _, state in self._parked)
        while self._parked and total > PARKED_BYTES:
            total -= len(self._parked.pop(0)[2])

    def _stream_context(self, streams: int, cells: int) -> StreamContext:
        """A context of at least ``streams`` streams of ``cells`` cells: the last one when it is large enough
        (the KV cells in use, not the capacity, shape llama.cpp's attention, so reuse keeps outputs the same); else
        a new one of just that size (llama.cpp clears, and so makes resident, every cell it is given). The old
        context's streams are parked, to be restored where a chat continues them (``one_stream`` moves a state
        between stream counts)."""
        cells = padded(cells)
        old = self._streams
        if old is not None and old.fits(streams, cells):
            return old
        if old is not None:
            self._park(old.park())
            old.close()
            self._streams = None
        try:
            self._streams = StreamContext(self._llama, streams, cells, self.threads)
        except (ValueError, RuntimeError) as exc:
            raise ModelError(f"could not make a context of {streams} streams of {cells} cells: {exc}") from None
        return self._streams

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
        if len(tokens) > self.n_ctx:
            return None
        first, last = len(prompt) - 1, len(tokens) - 1  # logits at position p predict token p + 1
        context = self._stream_context(1, len(tokens))
        stream = min(range(context.streams), key=lambda s: (bool(context.held[s]), s))
        self._park(context.park(stream))  # a chat that stream held may come back for its next round
        context.forget(stream)
        self._pace()
        logprob, n_vocab = 0.0, self._llama.n_vocab()
        # the chat in batches of n_batch, the reply in batches of SCORE_ROWS: llama.cpp's logits buffer grows to
        # the most rows one batch asks for and stays that large (512 rows of 49k logits are 100 MB)
        starts = [*range(0, first, context.n_batch), *range(first, len(tokens), SCORE_ROWS)]
        try:
            for start, end in zip(starts, [*starts[1:], len(tokens)], strict=True):
                chunk = tokens[start:end]
                wanted = [p for p in range(start, start + len(chunk)) if first <= p < last]
                context.decode([(token, start + i, stream, first <= start + i < last)
                                for i, token in enumerate(chunk)])
                if wanted:
                    rows = np.ctypeslib.as_array(llama_cpp.llama_get_logits(context.context.ctx),
                                                 shape=(len(wanted), n_vocab))
                    logprob += _target_logprob(rows, [tokens[p + 1] for p in wanted])
        finally:
            context.forget(stream)
        return Likelihood(len(reply), logprob)

    def _pace(self) -> None:
        """Give llama.cpp as many threads as the governor says the machine has free now (a cheap call). Outputs do
        not depend on it: llama.cpp splits each op's rows among its threads, never one row's sum."""
        import llama_cpp

        threads = self._governor.threads()
        if threads != self.threads:  # the Llama's own context only tokenises and renders chats: it never decodes
            self.threads = threads
            if self._streams is not None:
                llama_cpp.llama_set_n_threads(self._streams.context.ctx, threads, threads)

    def close(self) -> None:
        if self._streams is not None:
            self._streams.close()
            self._streams = None
        self._parked = []
        self._llama.close()


@dataclass
class _Reply:
    """One sample being written: its chat, sampler chain, grammar mask, repeat guard and what it wrote so far."""

    request: Request
    segments: list[Segment]
    prompt: int  # the chat's tokens
    steps: int  # the most tokens it may write
    chain: object  # llama_cpp.llama_sampler_p, freed when the batch is done
    mask: SequenceMask | None
    guard: RepeatGuard | None
    stops: list[bytes]
    seconds: float = 0.0  # its own prompt and choices, and its share of each batched step
    stream: int = -1
    tokens: list[int] = field(default_factory=list)  # written, in order
    written: list[int] = field(default_factory=list)  # evaluated into its stream (all but a stop-cut last one)
    pieces: bytearray = field(default_factory=bytearray)  # the output's bytes, kept only when stop strings are watched
    logprob: float = 0.0  # of the written tokens under the raw logits (no grammar, no temperature): see Completion
    feed: int | None = None  # the token to evaluate next; None once it has finished
    constrained: bool = False
    finish: str = "length"
    error: str | None = None

    @property
    def cells(self) -> int:
        return self.prompt + self.steps + 1

    def choose(self, ctx, row: int, vocab, n_vocab: int, detokenize, llama_cpp) -> None:
        """Pick the next token from output ``row`` of the last batch: the model's own when the grammar and the
        repeat guard allow it, else one drawn again from the logits with what they refuse written out as -inf."""
        if self.steps < 1:
            return
        token = llama_cpp.llama_sampler_sample(self.chain, ctx, row)
        logits = np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(ctx, row), shape=(n_vocab,))
        norm = _log_normaliser(logits)  # before a mask or a refusal writes -inf into the row
        mask, guard = self.mask, self.guard
        refused = guard.refused() if guard is not None else set()
        if token in refused or (mask is not None and not mask.accept(token)):
            if mask is not None and not mask.forbid(logits):
                self.error = f"the grammar allows no next token: {mask.failed or 'nothing allowed'}"
                return
            _refuse(logits, refused)
            token = llama_cpp.llama_sampler_sample(self.chain, ctx, row)
            if mask is not None and not mask.consume(token):
                self.error = f"the output left the grammar: {mask.failed}"
                return
        if llama_cpp.llama_vocab_is_eog(vocab, token):
            self.finish = "stop"
            return
        self.tokens.append(token)
        self.logprob += float(logits[token]) - norm  # a kept token's own logit is never masked
        if guard is not None:
            guard.push(token)
        if self.stops:
            self.pieces += detokenize([token])
            cut = _first_stop(self.pieces, self.stops)
            if cut is not None:
                del self.pieces[cut:]
                self.finish = "stop"
                return
        self.feed = token

    def completion(self, model: LlamaCppModel) -> Completion:
        raw = bytes(self.pieces) if self.stops else model._llama.detokenize(self.tokens)
        text = raw.decode("utf-8", errors="ignore")
        return Completion(
            text=text,
            finish_reason="error" if self.error else self.finish,  # type: ignore[arg-type]
            prompt_tokens=self.prompt,
            completion_tokens=len(self.tokens),
            seconds=self.seconds,
            constrained=self.constrained,
            error=self.error,
            likelihood=None if self.error else model._as_scored(text, self.tokens, self.logprob),
        )


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
