"""The llamacpp backend decodes the samples it is given together, one KV stream each: every reply must be the one
it would be alone (text, finish, token counts, likelihood, bit for bit), a feedback round must come back to the
stream that holds its chat, and a context made larger must keep what its streams held."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from corral.grammars import Grammar
from corral.models import Completion, Request, Sampling, load_model
from corral.models import _llamacpp as llamacpp_module
from corral.models._llamacpp import MAX_STREAMS, _Reply
from corral.models._llamacpp_streams import StreamContext, in_streams, one_stream, padded, shared_segments

pytestmark = pytest.mark.model

FEEDBACK = {"role": "user", "content": "Say it again in other words."}


@pytest.fixture(scope="module")
def model():
    loaded = load_model("smollm2", n_ctx=4096)
    yield loaded
    loaded.close()


def _seen(out: Completion) -> tuple:
    return out.text, out.finish_reason, out.prompt_tokens, out.completion_tokens, out.error, out.likelihood


def _mixed() -> list[Request]:
    """Free, masked (with the repeat guard), stop strings, seeded draws, a one-token budget."""
    return [
        Request.user("Describe the sea in one sentence.", Sampling(max_tokens=40)),
        Request.user("Name a colour.", Sampling(max_tokens=30, repeat_limit=2),
                     grammar=Grammar.regex("[A-Z][a-z]+ is a colou?r[.]")),
        Request.user("Count from 1 to 10.", Sampling(max_tokens=40, stop=("5",))),
        Request.user("Write a word.", Sampling(temperature=1.0, max_tokens=12, seed=7, n=3)),
        Request.user("Tell me a long story about a fox.", Sampling(max_tokens=64)),
        Request.user("Say one word.", Sampling(max_tokens=1)),
        Request.user("Write JSON with a name.", Sampling(max_tokens=48),
                     grammar=Grammar.regex('\\{"name": "[A-Za-z ]{1,20}"\\}')),
    ]


def test_replies_decoded_together_are_the_replies_decoded_alone(model):
    requests = _mixed()
    together = model.complete(requests)
    alone = [model.complete([request])[0] for request in requests]
    assert [[_seen(c) for c in samples] for samples in together] == [[_seen(c) for c in samples] for samples in alone]
    assert together[5][0].completion_tokens == 1 and together[5][0].finish_reason == "length"
    assert together[2][0].finish_reason == "stop" and "5" not in together[2][0].text
    assert len({c.text for c in together[3]}) >= 2  # three seeds, three draws


def test_the_order_of_a_batch_does_not_change_a_reply(model):
    requests = _mixed()
    forward = model.complete(requests)
    backward = model.complete(requests[::-1])[::-1]
    assert [[_seen(c) for c in s] for s in forward] == [[_seen(c) for c in s] for s in backward]


def _no_streams(model) -> None:
    """The model as loaded: no stream context yet (whatever tests ran before on this worker)."""
    if model._streams is not None:
        model._streams.close()
        model._streams = None
    model._parked.clear()


def _counting(monkeypatch) -> list[int]:
    evaluated: list[int] = []
    inner = StreamContext.decode
    monkeypatch.setattr(StreamContext, "decode",
                        lambda self, entries: (evaluated.append(len(entries)), inner(self, entries))[1])
    return evaluated


def _second_rounds(model, firsts: list[list[dict]], max_tokens: int) -> list[Request]:
    replies = model.complete([Request(tuple(chat), Sampling(max_tokens=24)) for chat in firsts])
    return [Request((*chat, {"role": "assistant", "content": reply.text}, FEEDBACK), Sampling(max_tokens=max_tokens))
            for chat, [reply] in zip(firsts, replies, strict=True)]


FIRSTS = [[{"role": "user", "content": f"Describe {thing} in one sentence."}]
          for thing in ("the sea", "a forest", "snow")]


def test_feedback_rounds_come_back_to_the_streams_that_hold_their_chats(model, monkeypatch):
    seconds = _second_rounds(model, FIRSTS, 24)
    evaluated = _counting(monkeypatch)
    continued = model.complete(seconds[::-1])[::-1]  # another order: each still finds its own stream
    new_turns = sum(len(model.prompt_segments(r.messages)[-1][1]) for r in seconds)
    assert sum(evaluated) == new_turns + sum(c.completion_tokens for [c] in continued)
    model._streams.forget()
    fresh = model.complete(seconds)
    assert [_seen(c) for [c] in continued] == [_seen(c) for [c] in fresh]


def test_a_larger_context_keeps_what_the_streams_held(model, monkeypatch):
    _no_streams(model)
    seconds = _second_rounds(model, FIRSTS, 24)
    small = model._streams
    # the last two chains' next rounds no longer fit: a context of two streams, restored from one of three
    wide = [Request(r.messages, Sampling(max_tokens=small.cells * 3)) for r in seconds[1:]]
    evaluated = _counting(monkeypatch)
    continued = model.complete(wide)
    assert model._streams is not small and model._streams.cells > small.cells
    assert small.streams == 3 and model._streams.streams == 2  # states moved between stream counts
    new_turns = sum(len(model.prompt_segments(r.messages)[-1][1]) for r in wide)
    assert sum(evaluated) == new_turns + sum(c.completion_tokens for [c] in continued)  # parked, then restored
    model._streams.forget()
    assert [_seen(c) for [c] in continued] == [_seen(c) for [c] in model.complete(wide)]


def test_a_chain_whose_stream_was_taken_comes_back_to_its_parked_cells(model, monkeypatch):
    """Three chains and room for two streams: the third chain's first round takes the first chain's stream,
    whose cells are parked, and the first chain's next round is restored from them, not evaluated again."""
    _no_streams(model)
    wide = Sampling(max_tokens=1400)  # 1,536 cells a stream: two fit n_ctx 4,096
    firsts = model.complete([Request(tuple(chat), wide) for chat in FIRSTS])
    assert model._streams.streams == 2
    seconds = [Request((*chat, {"role": "assistant", "content": reply.text}, FEEDBACK), wide)
               for chat, [reply] in zip(FIRSTS, firsts, strict=True)]
    evaluated = _counting(monkeypatch)
    continued = model.complete(seconds)
    new_turns = sum(len(model.prompt_segments(r.messages)[-1][1]) for r in seconds)
    assert sum(evaluated) == new_turns + sum(c.completion_tokens for [c] in continued)
    model._streams.forget()
    assert [_seen(c) for [c] in continued] == [_seen(c) for [c] in model.complete(seconds)]


def _reply(cells: int, grammar: Grammar | None = None) -> _Reply:
    return _Reply(Request.user("x", grammar=grammar), [], prompt=cells - 1, steps=0, chain=None, mask=None,
                  guard=None, stops=[])


@pytest.mark.parametrize("cells", [[300] * 20, [100, 3000, 100, 100, 2000, 2000, 100], [5000, 10], [1] * 3])
def test_batches_share_the_contexts_cells_in_order(model, cells):
    replies = [_reply(c) for c in cells]
    groups = list(model._groups(replies))
    assert [r for g in groups for r in g] == replies
    for group in groups:
        assert 1 <= len(group) <= MAX_STREAMS
        assert len(group) == 1 or len(group) * padded(max(r.cells for r in group)) <= model.n_ctx


def test_batches_hold_few_large_grammars_at_once(model, monkeypatch):
    big = [Grammar.regex(f"{word}+ and ({word}|[0-9])*") for word in ("alpha", "bravo", "charlie", "delta")]
    monkeypatch.setattr(llamacpp_module, "GRAMMAR_CHARS", 2 * max(len(g.source) for g in big) + 1)
    small = Grammar.regex("[a-z]")
    replies = [_reply(10, big[0]), _reply(10, big[0]), _reply(10, small), _reply(10, big[1]), _reply(10, big[2]),
               _reply(10, big[3]), _reply(10)]
    groups = list(model._groups(replies))
    assert [r for g in groups for r in g] == replies
    for group in groups:
        distinct = {r.request.grammar.hash: len(r.request.grammar.source) for r in group if r.request.grammar}
        assert len(group) == 1 or sum(distinct.values()) <= llamacpp_module.GRAMMAR_CHARS
    # one grammar twice counts once, a small one fits beside two large ones, a third large one starts a batch
    assert [len(group) for group in groups] == [4, 3]


def test_shared_segments_counts_whole_segments_of_the_chat_before_its_last():
    chat = [(False, (1, 2, 3)), (True, (4, 5)), (False, (6,))]
    assert shared_segments([], chat) == 0
    assert shared_segments(chat, chat) == 2
    assert shared_segments([(False, (1, 2, 3)), (True, (4, 5, 9))], chat) == 2  # a reply cut by a stop string
    assert shared_segments([(False, (1, 2, 3)), (True, (4,))], chat) == 1  # holds less of the reply than the chat
    assert shared_segments([(False, (1, 2))], chat) == 0
    assert shared_segments([(True, (1, 2, 3))], chat) == 0


@given(streams=st.integers(1, 12), data=st.data(), cells=st.binary(min_size=1, max_size=64))
def test_a_parked_state_moves_between_stream_counts(streams, data, cells):
    """The one-stream form of a stream's state, and back into any stream count: llama.cpp's layout (head, stream
    count, one cell-count block per stream, only the sequence's own with cells)."""
    stream = data.draw(st.integers(0, streams - 1))
    head, block = b"\xd8\x3c\x14\xaf\0\0\0\0", (len(cells)).to_bytes(4, "little") + cells
    state = head + streams.to_bytes(4, "little") + bytes(4 * stream) + block + bytes(4 * (streams - 1 - stream))
    alone = one_stream(state, streams, stream)
    assert alone == head + (1).to_bytes(4, "little") + block
    target = data.draw(st.integers(1, 12))
    assert in_streams(alone, target) == head + target.to_bytes(4, "little") + block + bytes(4 * (target - 1))
    assert one_stream(in_streams(alone, target), target, 0) == alone
    if streams > 1:  # cells in another stream's block, or a wrong stream count: not a layout this module knows
        assert one_stream(state, streams, (stream + 1) % streams) is None
        assert one_stream(state, streams + 1, stream) is None


def test_a_stream_past_256_cells_has_the_same_logits_at_one_and_two_threads(model):
    # the thread count changes while a run decodes (``_pace``), so it must not change a logit. llama.cpp's flash
    # attention splits a stream's cells among threads once it holds more than 256 (with it, every row of this test
    # from the 257th cell on differs): the stream context decodes without it, whatever llama.cpp's default. Few
    # steps: beside another busy xdist worker, two threads wait on each other at every op
    import numpy as np

    llama, n_vocab = model._llama, model._llama.n_vocab()
    story = " ".join(["The cat walked along the river in Paris and watched the boats go by."] * 14)
    prompt = model.prompt_tokens([{"role": "user", "content": f"Go on with this story: {story}"}])
    assert 240 < len(prompt) < 256
    rows = {}
    for threads in (1, 2):
        context = StreamContext(llama, 1, 512, threads)
        try:
            context.evaluate(0, [(False, tuple(prompt))])
            seen, position = [context.logits(-1, n_vocab).copy()], len(prompt)
            while position < 266:  # ten cells past 256
                context.decode([(int(seen[-1].argmax()), position, 0, True)])
                position += 1
                seen.append(context.logits(-1, n_vocab).copy())
        finally:
            context.close()
        rows[threads] = seen
    assert len(rows[1]) == len(rows[2]) == 266 - len(prompt) + 1
    assert all(np.array_equal(one, two) for one, two in zip(rows[1], rows[2], strict=True))
