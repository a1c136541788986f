"""Would prompt-lookup speculation speed up the main job's looping passages without changing an output?

    python benchmarks/lookup_decoding.py [--tokens 300] [--instances wiki_c14_1,wiki_c14_0] [--draft 8]

Greedy outputs of the bundled model copy their prompt and loop (the README main job's passages repeat blocks of 66
to 300 bytes to their 1,200-token budget). A draft read from the chat itself (the tokens that followed the last
occurrence of the output's last three tokens) can be checked in one llama.cpp call for all its tokens; the output
stays the model's own only if the logits of a token evaluated in a batch are bit for bit those of the same token
evaluated alone, since every later choice (the mask, the repeat guard, a seeded draw) reads them.

Two measurements, each in a context of one KV stream as the llamacpp backend makes (``_llamacpp_streams``):

1. identity: the logits of ``--tokens`` greedy tokens evaluated one at a time, against the same tokens evaluated
   in batches of 2, 4 and 8, for llama.cpp's attention without and with flash attention, at 1 and 2 threads;
2. speed: greedy decoding of COLLIE passage prompts one token a call, against drafts of up to ``--draft`` tokens
   checked a batch a call (flash attention on, where batches of one stream are exact at one thread), and whether
   the two wrote the same tokens.

Nothing here is used by Corral; the results are in docs/performance.md.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from corral.models import load_model
from corral.models._llamacpp_streams import StreamContext
from corral.suites.collie import instances

CHAT = "<|im_start|>user\n{}<|im_end|>\n<|im_start|>assistant\n"


def chat_tokens(llama, text: str) -> list[int]:
    return llama.tokenize(CHAT.format(text).encode("utf-8"), add_bos=False, special=True)


def context(model, flash: bool, threads: int) -> StreamContext:
    return StreamContext(model._llama, 1, 4096, threads, flash_attention=flash)


def logits_in_batches(ctx: StreamContext, prompt: list[int], tokens: list[int], size: int, n_vocab: int) -> list:
    ctx.forget()
    ctx.evaluate(0, [(False, tuple(prompt))])
    rows, position = [ctx.logits(-1, n_vocab).copy()], len(prompt)
    for start in range(0, len(tokens), size):
        chunk = tokens[start:start + size]
        ctx.decode([(token, position + i, 0, True) for i, token in enumerate(chunk)])
        rows += [ctx.logits(i, n_vocab).copy() for i in range(len(chunk))]
        position += len(chunk)
    return rows


def greedy(ctx: StreamContext, prompt: list[int], n: int, n_vocab: int, is_end) -> list[int]:
    ctx.forget()
    ctx.evaluate(0, [(False, tuple(prompt))])
    row, out, position = ctx.logits(-1, n_vocab), [], len(prompt)
    while len(out) < n:
        token = int(row.argmax())
        if is_end(token):
            break
        out.append(token)
        ctx.decode([(token, position, 0, True)])
        position += 1
        row = ctx.logits(-1, n_vocab)
    return out


class Lookup:
    """The tokens that followed the latest earlier occurrence of the history's last ``n`` tokens (3, else 2)."""

    def __init__(self, tokens: list[int]) -> None:
        self.history: list[int] = []
        self.seen: dict[tuple[int, ...], int] = {}
        for token in tokens:
            self.push(token)

    def push(self, token: int) -> None:
        end = len(self.history)  # the n-grams ending before the newest token: a lookup never finds itself
        for n in (2, 3):
            if end >= n:
                self.seen[tuple(self.history[end - n:end])] = end
        self.history.append(token)

    def draft(self, most: int) -> list[int]:
        for n in (3, 2):
            found = self.seen.get(tuple(self.history[-n:])) if len(self.history) >= n else None
            if found is not None:
                return self.history[found:found + most]
        return []


def speculative(ctx: StreamContext, prompt: list[int], n: int, most: int, n_vocab: int, is_end) -> tuple[list, int]:
    import llama_cpp

    ctx.forget()
    ctx.evaluate(0, [(False, tuple(prompt))])
    token, out, position, calls, lookup = int(ctx.logits(-1, n_vocab).argmax()), [], len(prompt), 0, Lookup(prompt)
    while not is_end(token):
        out.append(token)
        lookup.push(token)
        if len(out) >= n:
            break
        draft = lookup.draft(min(most, n - len(out)))
        feed = [token, *draft]
        ctx.decode([(t, position + i, 0, True) for i, t in enumerate(feed)])
        calls += 1
        kept, token = 0, None
        for i in range(len(feed)):
            chosen = int(ctx.logits(i, n_vocab).argmax())
            if i < len(draft) and chosen == draft[i] and not is_end(chosen) and len(out) < n:
                out.append(chosen)
                lookup.push(chosen)
                kept += 1
                continue
            token = chosen
            break
        position += 1 + kept
        llama_cpp.llama_memory_seq_rm(ctx.memory, 0, position, -1)  # the refused draft's cells
        if token is None or len(out) >= n:
            break
    return out, calls


def main() -> None:
    import llama_cpp

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tokens", type=int, default=300, help="tokens compared in the identity check")
    parser.add_argument("--instances", default="wiki_c14_1,wiki_c14_0", help="COLLIE instances timed")
    parser.add_argument("--max-tokens", type=int, default=1200)
    parser.add_argument("--draft", type=int, default=8)
    args = parser.parse_args()

    model = load_model("smollm2")
    llama, n_vocab = model._llama, model._llama.n_vocab()
    vocab = llama._model.vocab

    def is_end(token: int) -> bool:
        return bool(llama_cpp.llama_vocab_is_eog(vocab, token))

    prompt = chat_tokens(llama, "Write a long story about a cat who lives in Paris.")
    for flash in (False, True):
        for threads in (1, 2):
            ctx = context(model, flash, threads)
            tokens = greedy(ctx, prompt, args.tokens, n_vocab, lambda _: False)
            alone = logits_in_batches(ctx, prompt, tokens, 1, n_vocab)
            for size in (2, 4, 8):
                rows = logits_in_batches(ctx, prompt, tokens, size, n_vocab)
                same = sum(bool(np.array_equal(a, b)) for a, b in zip(alone, rows, strict=True))
                worst = max(float(np.abs(a - b).max()) for a, b in zip(alone, rows, strict=True))
                print(f"identity: flash attention {'on ' if flash else 'off'}, {threads} thread(s), batches of "
                      f"{size}: {same}/{len(rows)} rows bit for bit, largest difference {worst:.3g}", flush=True)
            ctx.close()

    wanted = set(args.instances.split(","))
    ctx = context(model, True, 1)
    for inst in instances():
        if inst.id not in wanted:
            continue
        prompt = chat_tokens(llama, inst.prompt)
        started = time.perf_counter()
        reference = greedy(ctx, prompt, args.max_tokens, n_vocab, is_end)
        one = time.perf_counter() - started
        started = time.perf_counter()
        drafted, calls = speculative(ctx, prompt, args.max_tokens, args.draft, n_vocab, is_end)
        two = time.perf_counter() - started
        print(f"speed: {inst.id}: {len(reference)} tokens, one a call {one:.1f} s, drafts of up to {args.draft} "
              f"{two:.1f} s in {calls} calls ({one / two:.2f}x), same tokens: {reference == drafted}", flush=True)
    ctx.close()
    model.close()


if __name__ == "__main__":
    main()
