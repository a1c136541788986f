"""Fluency of generated text: is it still language? Constrained decoding keeps outputs valid, but a grammar can
push a model into non-words (``mybest``) and loops (``ire ire ire ire``); these figures make that visible.

Definitions (one tokenisation for every figure, so that they describe the same words):

- **token**: an item of ``wordfreq.tokenize(text, "en")``: Unicode word segmentation, case-folded, punctuation
  dropped (``"Don't stop!"`` -> ``["don't", "stop"]``; ``"e-mail"`` -> ``["e", "mail"]``).
- **word**: a token that contains at least one letter (``"3rd"`` is a word, ``"2024"`` is not).
- **non-word**: a word whose ``wordfreq.zipf_frequency(word, "en")`` is 0, i.e. absent from wordfreq's English
  list (the ``best`` list: about 320k forms from web, subtitles, news, books, Wikipedia, Reddit and Twitter). That
  list is large, so it holds common misspellings: ``isnt`` (Zipf 3.9) is a word by this measure, ``mybest`` is not.
- ``nonword_share``: non-words / words, pooled over the outputs.
- ``triple_repeat_share``: the share of outputs in which one word is the same token three times in a row (case and
  punctuation between them ignored by the tokenisation; a number between them breaks the run).
- ``distinct_2``: distinct word bigrams / all word bigrams over the outputs (Li et al. 2016), bigrams taken
  within each output's words.
- ``nll_per_token``: summed negative log-likelihood / summed tokens over the scored outputs (nats per token, as a
  corpus perplexity is computed), each output scored by the model with no grammar (``corral.models.Scorer``).
- ``mean_nll_per_token``: the mean over scored outputs of each output's own NLL per token. The pooled figure is
  dominated by long outputs; a few short junk outputs (a constrained decode that wandered) barely move it, while
  the per-output mean weighs every output alike.

Each figure is None when it has nothing to count. wordfreq's data ships inside its wheel: nothing is downloaded.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from typing import Any

__all__ = ["FLUENCY_SIGNATURE", "distinct_n", "fluency", "fluency_signature", "has_triple_repeat", "is_nonword",
           "mean_nll_per_token", "nll_per_token", "nonword_share", "tokens", "triple_repeat_share", "words"]

FLUENCY_SIGNATURE = "tok:wordfreq-en|nonword:zipf0|distinct:2|nll:free-model|wordfreq:{version}"
LANGUAGE = "en"


def tokens(text: str) -> list[str]:
    """wordfreq's English tokens of ``text``: case-folded, punctuation dropped."""
    import wordfreq

    return wordfreq.tokenize(text, LANGUAGE)


def _is_word(token: str) -> bool:
    return any(ch.isalpha() for ch in token)


def words(text: str) -> list[str]:
    """The tokens of ``text`` that contain a letter."""
    return [token for token in tokens(text) if _is_word(token)]


@functools.lru_cache(maxsize=1 << 16)
def is_nonword(word: str) -> bool:
    """Whether ``word`` is absent from wordfreq's English list (Zipf frequency 0)."""
    import wordfreq

    return wordfreq.zipf_frequency(word, LANGUAGE) == 0


def nonword_share(texts: Iterable[str]) -> float | None:
    """Non-words / words over all ``texts``; None without words."""
    counted = [is_nonword(word) for text in texts for word in words(text)]
    return sum(counted) / len(counted) if counted else None


def has_triple_repeat(text: str) -> bool:
    """Whether one word appears three times in a row among ``text``'s tokens."""
    found = tokens(text)
    return any(a == b == c and _is_word(a) for a, b, c in zip(found, found[1:], found[2:], strict=False))


def triple_repeat_share(texts: Sequence[str]) -> float | None:
    """The share of ``texts`` with a triple repeat; None for no texts."""
    return sum(has_triple_repeat(text) for text in texts) / len(texts) if texts else None


def distinct_n(texts: Iterable[str], n: int = 2) -> float | None:
    """Distinct word n-grams / all word n-grams, n-grams taken within each text; None without any n-gram."""
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    grams = [tuple(found[i:i + n]) for text in texts for found in (words(text),) for i in range(len(found) - n + 1)]
    return len(set(grams)) / len(grams) if grams else None


def nll_per_token(scores: Iterable[tuple[int, float] | None]) -> float | None:
    """Summed negative log-likelihood / summed tokens over ``(tokens, logprob)`` pairs (None entries skipped);
    None when no token was scored."""
    kept = [score for score in scores if score is not None and score[0] > 0]
    total = sum(count for count, _ in kept)
    return -sum(logprob for _, logprob in kept) / total if total else None


def fluency(texts: Sequence[str], scores: Sequence[tuple[int, float] | None] = ()) -> dict[str, Any]:
    """The fluency block of a run: the four figures over ``texts`` (one per output) and their ``scores`` (the
    outputs' likelihoods under the model with no grammar, None where unscored), with what they were counted over.
    """
    counted = [words(text) for text in texts]
    scored = [score for score in scores if score is not None]
    return {
        "nonword_share": nonword_share(texts),
        "triple_repeat_share": triple_repeat_share(texts),
        "distinct_2": distinct_n(texts, 2),
        "nll_per_token": nll_per_token(scored),
        "mean_nll_per_token": mean_nll_per_token(scored),
        "outputs": len(texts),
        "words": sum(len(found) for found in counted),
        "scored": len(scored),
        "scored_tokens": sum(count for count, _ in scored),
        "signature": fluency_signature(),
    }


def fluency_signature() -> str:
    """How the figures were computed, with wordfreq's version (its lists change between releases)."""
    from importlib.metadata import version

    return FLUENCY_SIGNATURE.format(version=version("wordfreq"))


def mean_nll_per_token(scores: Iterable[tuple[int, float] | None]) -> float | None:
    """The mean over ``(tokens, logprob)`` pairs (None and empty entries skipped) of each one's NLL per token; None
    when none was scored."""
    kept = [-logprob / count for score in scores if score is not None for count, logprob in (score,) if count > 0]
    return sum(kept) / len(kept) if kept else None
