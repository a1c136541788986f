"""The ``scripted`` backend: a model that replays outputs it was given, for testing Corral's own logic.

The runner's resume, extension, feedback rounds, pass@k, caching and reports do not depend on what a model says,
only on how a backend behaves: it answers every sample of every request in order, stops at a stop string, stops
at ``max_tokens``, and reports token counts. This backend behaves that way around a script, so tests of that
logic run in milliseconds; tests of real generation use the bundled model.

A "token" here is a run of non-space characters with the spaces before it (``" cat"``): a stand-in that makes
``max_tokens`` cut text at word boundaries, as small budgets do with real tokenizers.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from corral.registry import backends

from ._protocol import Completion, Likelihood, Request

Script = Sequence[str] | Callable[[Request, int], str]
"""Outputs in the order they are asked for, or a function of (request, sample index) that returns one."""

ScriptedScores = Callable[[Request, str], Likelihood | None]
"""How likely a reply is after a request's chat, as the test wants the runner to see it."""

_TOKEN = re.compile(r"\s*\S+|\s+")


def scripted_tokens(text: str) -> list[str]:
    """The scripted model's tokens of ``text``; they join back to ``text`` exactly."""
    return _TOKEN.findall(text)


class ScriptedModel:
    """Replays a script; ``requests`` records every request it was sent, in order.

    ``scores`` answers ``score`` (the ``Scorer`` half of the protocol) for tests of the runner's use of likelihoods;
    without it every text scores None, as on a backend that cannot score.
    """

    backend = "scripted"

    def __init__(self, script: Script = (), name: str = "scripted", scores: ScriptedScores | None = None) -> None:
        self.name = name
        self._scores = scores
        self.runtime = "scripted outputs (no model)"
        self.requests: list[Request] = []
        self._script = script
        self._next = 0

    def complete(self, requests: Sequence[Request]) -> list[list[Completion]]:
        answers = []
        for request in requests:
            self.requests.append(request)
            answers.append([self._sample(request, i) for i in range(request.sampling.n)])
        return answers

    def _text(self, request: Request, i: int) -> str | None:
        if callable(self._script):
            return self._script(request, i)
        if self._next >= len(self._script):
            return None
        self._next += 1
        return self._script[self._next - 1]

    def _sample(self, request: Request, i: int) -> Completion:
        prompt = sum(len(scripted_tokens(message["content"])) for message in request.messages)
        text = self._text(request, i)
        if text is None:
            return Completion(text="", finish_reason="error", prompt_tokens=prompt,
                              constrained=request.grammar is not None,
                              error=f"the script has no output left ({len(self._script)} given)")  # type: ignore[arg-type]
        out, finish, used = "", "length", 0
        stops = [s for s in request.sampling.stop if s]
        for token in scripted_tokens(text):
            if used == request.sampling.max_tokens:
                break
            out += token
            used += 1
            cut = min((found for found in (out.find(s) for s in stops) if found >= 0), default=-1)
            if cut >= 0:
                out, finish = out[:cut], "stop"
                break
        else:
            finish = "stop"
        return Completion(text=out, finish_reason=finish, prompt_tokens=prompt,  # type: ignore[arg-type]
                          completion_tokens=used, constrained=request.grammar is not None)

    def score(self, requests: Sequence[Request], texts: Sequence[str]) -> list[Likelihood | None]:
        if len(requests) != len(texts):
            raise ValueError(f"{len(requests)} requests but {len(texts)} texts")
        return [self._scores(r, t) if self._scores else None for r, t in zip(requests, texts, strict=True)]

    def close(self) -> None:
        pass


@backends.register("scripted")
def _scripted(model: str = "scripted", script: Script = (), scores: ScriptedScores | None = None,
              **options: object) -> ScriptedModel:
    if options:
        raise TypeError(f"unexpected options {sorted(options)}")
    return ScriptedModel(script, name=model, scores=scores)
