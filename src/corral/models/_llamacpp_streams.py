"""A llama.cpp context of several KV streams: the llamacpp backend decodes a batch of replies, or SMC's particles,
one token per stream per llama.cpp call.

Why one call for several sequences: on a CPU a step of the bundled 135M model for four sequences costs about 2.2
times a step for one (the weights are read once per call), so a batch of replies decoded together writes 1.8x (4
streams) to 2.0x (8) the tokens per second of one at a time (2-core Xeon, ``benchmarks/batched_decoding.py``).

Why it changes no output: the KV cache is not unified (``kv_unified = False``): each stream attends over its own
cells only, laid out as a lone sequence's would be, and llama.cpp computes each token's row of every matrix
product on its own. A stream's logits are therefore bit for bit those of the same chat decoded alone, whatever the
other streams hold (held to it by ``tests/models/test_llamacpp_batching.py``), so a run's records do not depend on
its batch size.

A stream remembers the chat segments its cells hold (``held``): a feedback round's chat begins with the previous
round's prompt and reply, and only the new turn is evaluated when the chain comes back to the stream that wrote
its last round. When a batch needs a larger context, the streams' states are parked (``llama_state_seq_get_data``,
a copy of their cells) and restored into the new one, so the held prefixes survive the rebuild (a reply held
only as its tokens would have to be evaluated again a token at a time, as long as writing it).
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence

import numpy as np

Segment = tuple[bool, tuple[int, ...]]
"""A piece of a chat's prompt: whether it is evaluated a token at a time (an earlier reply), and its tokens."""

PAD = 256
"""Each stream holds the prompt and the reply's budget, rounded up to this many cells."""
N_BATCH = 512
"""Tokens per llama.cpp call when a prompt is evaluated: llama-cpp-python's default, which every earlier release
evaluated prompts with (a prompt's chunks shape its rounding, so it stays fixed whatever the model was loaded with)."""


def padded(cells: int) -> int:
    return -(-cells // PAD) * PAD


def shared_segments(held: Sequence[Segment], segments: Sequence[Segment]) -> int:
    """How many of a chat's ``segments`` (all but the last, which is always evaluated again, so that the logits
    after it are fresh) cells holding ``held`` already hold whole."""
    kept = 0
    for (stepped, tokens), (was_stepped, had) in zip(segments[:-1], held, strict=False):
        if stepped != was_stepped or (had[:len(tokens)] if stepped else had) != tokens:
            break
        kept += 1
        if len(had) != len(tokens):  # a reply the chat holds only a prefix of (a stop string cut it)
            break
    return kept


STATE_HEAD = 8
"""llama.cpp's state of one sequence (0.3.36's llama.cpp) is 8 bytes, the KV cache's stream count (uint32), then
one block per stream: its cell count (uint32), then the cells. Only the sequence's own stream has cells, and
llama.cpp reads a state only into a context of as many streams; ``one_stream`` and ``in_streams`` move a state
between stream counts, checking the layout (anything else: None, and the chat is evaluated again)."""


def one_stream(state: bytes, streams: int, stream: int) -> bytes | None:
    """Stream ``stream``'s state from a context of ``streams`` streams, as a one-stream context's; None when the
    bytes are not laid out as ``STATE_HEAD`` says."""
    before, after = 4 * stream, 4 * (streams - 1 - stream)
    body = STATE_HEAD + 4
    if (len(state) < body + before + after + 4 or int.from_bytes(state[STATE_HEAD:body], "little") != streams
            or any(state[body:body + before]) or any(state[len(state) - after:])):
        return None
    return state[:STATE_HEAD] + (1).to_bytes(4, "little") + state[body + before:len(state) - after]


def in_streams(state: bytes, streams: int) -> bytes:
    """A one-stream state (``one_stream``) as a context of ``streams`` streams reads it."""
    return state[:STATE_HEAD] + streams.to_bytes(4, "little") + state[STATE_HEAD + 4:] + bytes(4 * (streams - 1))


class StreamContext:
    """A llama.cpp context with ``streams`` KV streams of ``cells`` cells each, and a batch filled by hand."""

    def __init__(self, llama, streams: int, cells: int, threads: int, *, flash_attention: bool = False) -> None:
        """``llama``: a ``llama_cpp.Llama``; ``flash_attention`` only for measuring it (Corral decodes without)."""
        import llama_cpp
        from llama_cpp import _internals

        params = llama_cpp.llama_context_params()
        ctypes.memmove(ctypes.byref(params), ctypes.byref(llama.context_params), ctypes.sizeof(params))
        params.n_ctx = streams * cells
        params.n_seq_max = streams
        params.kv_unified = False  # each stream attends over its own cells; logits equal a lone sequence's
        # attention without flash attention, whatever llama.cpp's default (AUTO takes it on a CPU too): with it, a
        # stream past 256 cells gets other logits from 1 and from 2 threads, and ``_pace`` changes the count while a
        # run decodes (benchmarks/lookup_decoding.py, docs/performance.md)
        params.flash_attn_type = (llama_cpp.LLAMA_FLASH_ATTN_TYPE_ENABLED if flash_attention
                                  else llama_cpp.LLAMA_FLASH_ATTN_TYPE_DISABLED)
        params.n_batch = params.n_ubatch = max(N_BATCH, streams)
        params.n_threads = params.n_threads_batch = threads  # the model's count now (it may have changed since)
        self.streams, self.cells = streams, cells
        self.context = _internals.LlamaContext(model=llama._model, params=params, verbose=False)
        self.memory = llama_cpp.llama_get_memory(self.context.ctx)
        self.n_batch = int(params.n_batch)
        self.batch = _internals.LlamaBatch(n_tokens=self.n_batch, embd=0, n_seq_max=1, verbose=False)
        self.held: list[list[Segment]] = [[] for _ in range(streams)]  # what each stream's cells hold
        self._prompt: tuple[int, ...] = ()  # SMC's last prompt: its KV state (stream 0) and its last logits
        self._state: ctypes.Array | None = None
        self._row: np.ndarray | None = None

    def fits(self, streams: int, cells: int) -> bool:
        return self.streams >= streams and self.cells >= cells

    def decode(self, entries: Sequence[tuple[int, int, int, bool]]) -> None:
        """One llama.cpp batch of (token, position, stream, wants logits) entries."""
        raw = self.batch.batch
        raw.n_tokens = len(entries)
        for i, (token, pos, seq, logits) in enumerate(entries):
            raw.token[i], raw.pos[i], raw.n_seq_id[i] = token, pos, 1
            raw.seq_id[i][0] = seq
            raw.logits[i] = logits
        self.context.decode(self.batch)

    def logits(self, i: int, n_vocab: int) -> np.ndarray:
        """Row ``i`` of the last batch's outputs (-1: the last), a view valid until the next decode."""
        import llama_cpp

        return np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(self.context.ctx, i), shape=(n_vocab,))

    # ------------------------------------------------------------------------------------------ chats, by segments
    def reusable(self, stream: int, segments: Sequence[Segment]) -> int:
        """How many of ``segments`` the stream holds whole (``shared_segments``)."""
        return shared_segments(self.held[stream], segments)

    def evaluate(self, stream: int, segments: Sequence[Segment]) -> None:
        """Make the stream hold ``segments`` (batches in chunks of ``n_batch``, stepped segments a token at a
        time), keeping the whole segments it already holds; the logits after the last token are at row -1."""
        import llama_cpp

        kept = self.reusable(stream, segments)
        position = sum(len(tokens) for _, tokens in segments[:kept])
        self.held[stream] = []
        llama_cpp.llama_memory_seq_rm(self.memory, stream, position, -1)
        for stepped, tokens in segments[kept:]:
            size = 1 if stepped else self.n_batch
            for start in range(0, len(tokens), size):
                chunk = tokens[start:start + size]
                self.decode([(token, position + i, stream, i == len(chunk) - 1) for i, token in enumerate(chunk)])
                position += len(chunk)
        self.held[stream] = list(segments)

    def forget(self, stream: int | None = None) -> None:
        """Clear one stream (None: all of them) and what it was said to hold."""
        import llama_cpp

        for s in range(self.streams) if stream is None else (stream,):
            llama_cpp.llama_memory_seq_rm(self.memory, s, -1, -1)
            self.held[s] = []

    def park(self, stream: int | None = None) -> list[tuple[list[Segment], bytes]]:
        """The held segments of a stream (None: of each) with a copy of its cells (in one-stream form:
        ``one_stream``), to restore into this or another context; a state not in the form this module knows is
        left out."""
        import llama_cpp

        parked = []
        for s in range(self.streams) if stream is None else (stream,):
            segments = self.held[s]
            if not segments:
                continue
            size = llama_cpp.llama_state_seq_get_size(self.context.ctx, s)
            state = (ctypes.c_uint8 * size)()
            if llama_cpp.llama_state_seq_get_data(self.context.ctx, state, size, s) == size:
                alone = one_stream(bytes(state), self.streams, s)
                if alone is not None:
                    parked.append((segments, alone))
        return parked

    def restore(self, stream: int, segments: list[Segment], parked: bytes) -> bool:
        """Put parked cells into an empty ``stream``: laid out as decoding left them, with the same bytes."""
        import llama_cpp

        self.forget(stream)
        state = in_streams(parked, self.streams)
        buffer = (ctypes.c_uint8 * len(state)).from_buffer_copy(state)
        if not llama_cpp.llama_state_seq_set_data(self.context.ctx, buffer, len(state), stream):
            self.forget(stream)
            return False
        self.held[stream] = segments
        return True

    # ------------------------------------------------------------------------------------------------------ SMC
    def start(self, prompt: list[int], n_vocab: int) -> np.ndarray:
        """An empty context holding ``prompt`` in stream 0; the logits after it (a copy).

        The prompt's KV state is kept and restored when the next request has the same prompt (a request's n
        samples, a feedback round's retries): restoring into a cleared context lays the cells out as decoding
        would, with the same bytes, so every later logit is the same as after a fresh decode and the same request
        gives the same output whatever ran before it. A prompt costs about 15 decoding steps of one particle."""
        import llama_cpp

        llama_cpp.llama_memory_clear(self.memory, True)
        self.held = [[] for _ in range(self.streams)]
        key = tuple(prompt)
        if key == self._prompt and self._state is not None and self._row is not None:
            if llama_cpp.llama_state_seq_set_data(self.context.ctx, self._state, len(self._state), 0):
                return self._row
            llama_cpp.llama_memory_clear(self.memory, True)
        for start in range(0, len(prompt), self.n_batch):
            chunk = prompt[start:start + self.n_batch]
            self.decode([(token, start + i, 0, start + i == len(prompt) - 1) for i, token in enumerate(chunk)])
        self._row = self.logits(-1, n_vocab).copy()
        size = llama_cpp.llama_state_seq_get_size(self.context.ctx, 0)
        state = (ctypes.c_uint8 * size)()
        kept = llama_cpp.llama_state_seq_get_data(self.context.ctx, state, size, 0) == size
        self._prompt, self._state = (key, state) if kept else ((), None)
        return self._row

    def copy_sequence(self, source: int, target: int) -> None:
        import llama_cpp

        llama_cpp.llama_memory_seq_rm(self.memory, target, -1, -1)
        llama_cpp.llama_memory_seq_cp(self.memory, source, target, -1, -1)

    def close(self) -> None:
        self.batch.close()
        self.context.close()
