"""Few-shot example selection, as BenchCLAMP §4.1: for each input, the 20 most similar training examples by BM25,
put in the prompt with the best match last (nearest the input), within a token budget (the paper's prompts are
limited to 1,500 tokens). An example is anything with an ``id`` and its ``words`` (``Example``).

``method="bm25"`` (the default) ranks by BM25 (``bm25s``). ``method="dense"`` ranks by the cosine of sentence
embeddings, as the paper's other retriever (SentenceT5) does; Corral downloads no encoder at run time, so they are
the bundled model's own mean-pooled states (``corral.models.embed_texts``): rough, and slow to build (about 0.13 s
a sentence on 2 busy cores: a minute for a 500-example low split, half an hour for EWT's whole training part).

Similarity is computed over the examples' words: lowercased, split into runs of letters and digits
(``bm25s.tokenize`` with the pattern ``\\w+``, so punctuation is ignored and one-letter words such as "I" and "a"
are kept), no stop words removed (function words matter to syntax) and no stemming, scored with bm25s's default
BM25 (Lucene variant, k1 = 1.5, b = 0.75). Ranking is deterministic: an example with exactly the query's words
ranks first, then higher scores, then earlier examples (their position in the list given to ``Retriever``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Generic, Protocol, TypeVar, runtime_checkable

import numpy as np

__all__ = ["METHODS", "TOKEN_PATTERN", "Example", "Retriever", "render_words"]

METHODS = ("bm25", "dense")

TOKEN_PATTERN = r"(?u)\w+"


def _tokenize(texts: list[str], ids: bool):
    import bm25s  # here, not at the top: it loads scipy, and every suite imports this module

    return bm25s.tokenize(texts, lower=True, token_pattern=TOKEN_PATTERN, stopwords=None, return_ids=ids,
                          show_progress=False)


@runtime_checkable
class Example(Protocol):
    """What a retriever ranks: an example's ``id`` and its ``words`` (what similarity compares)."""

    @property
    def id(self) -> str: ...

    @property
    def words(self) -> tuple[str, ...]: ...


E = TypeVar("E", bound=Example)


def render_words(example: Example) -> str:
    """The rendering used to measure an example when the caller gives none: its words on one line. A task should
    pass the rendering its prompt really uses."""
    return f"{' '.join(example.words)}\n"


class Retriever(Generic[E]):
    """A BM25 index over ``examples`` (a split's training examples), built once and queried per input.

    Over EWT's 12,544 training sentences (the ``high`` split) building takes about 0.3 s and a query (k = 20)
    about 2 ms on one CPU core; over a 500-example low split a query takes about 0.2 ms.
    """

    def __init__(self, examples: Sequence[E], method: str = "bm25") -> None:
        self.examples: tuple[E, ...] = tuple(examples)
        if not self.examples:
            raise ValueError("a Retriever needs at least one example")
        if method not in METHODS:
            raise ValueError(f"unknown retrieval method {method!r}; valid: {', '.join(METHODS)}")
        self.method = method
        self._same_words: dict[tuple[str, ...], list[int]] = {}
        for i, example in enumerate(self.examples):
            self._same_words.setdefault(example.words, []).append(i)
        if method == "dense":
            from corral.models import embed_texts

            self._vectors = embed_texts([" ".join(example.words) for example in self.examples])
            return
        import bm25s

        corpus = _tokenize([" ".join(example.words) for example in self.examples], ids=True)
        self._bm25 = bm25s.BM25()
        self._bm25.index(corpus, show_progress=False)
        self._vocab: dict[str, int] = dict(self._bm25.vocab_dict)

    def scores(self, query_words: Sequence[str]) -> np.ndarray:
        """The score of every example for a query: BM25 (0 for all when no query word is in the index), or the
        cosine of the embeddings."""
        if self.method == "dense":
            from corral.models import embed_texts

            return self._vectors @ embed_texts([" ".join(query_words)])[0]
        tokens = _tokenize([" ".join(query_words)], ids=False)[0]
        ids = [self._vocab[token] for token in tokens if token in self._vocab]
        if not ids:
            return np.zeros(len(self.examples), dtype=np.float32)
        return np.asarray(self._bm25.get_scores(ids))

    def ranked(self, query_words: Sequence[str], k: int, exclude_id: str | None = None) -> list[int]:
        """Positions of the ``k`` best examples, best first (see the module's docstring for the order), leaving out
        every example whose id is ``exclude_id``."""
        if k <= 0:
            return []
        query_words = tuple(query_words)
        order = np.argsort(-self.scores(query_words), kind="stable")  # ties: the earlier example first
        exact = self._same_words.get(query_words, [])
        out: list[int] = []
        seen: set[int] = set()
        for i in [*exact, *(int(i) for i in order)]:
            if i in seen or self.examples[i].id == exclude_id:
                continue
            seen.add(i)
            out.append(i)
            if len(out) == k:
                break
        return out

    def select(self, query: Example | Sequence[str], k: int = 20, budget_tokens: int | None = None,
               count_tokens: Callable[[str], int] | None = None,
               render: Callable[[E], str] = render_words,
               exclude_id: str | None = None) -> list[E]:
        """The few-shot examples for ``query`` (an example, or its words), **best match last**.

        Up to ``k`` examples are retrieved; with ``budget_tokens``, the weakest are dropped one by one until the
        rendered examples fit, i.e. ``sum(count_tokens(render(e)) for e in result) <= budget_tokens`` (so the
        result may be empty). The budget is for the examples alone: the caller leaves room for the instructions,
        the input and the output. An example with the query's id (``query.id`` or ``exclude_id``) is never
        returned, so a training example can be its own query.
        """
        if isinstance(query, Example):
            words: Sequence[str] = query.words
            exclude_id = query.id if exclude_id is None else exclude_id
        else:
            words = query
        chosen = [self.examples[i] for i in self.ranked(words, k, exclude_id)]
        if budget_tokens is not None:
            if count_tokens is None:
                raise ValueError("budget_tokens needs count_tokens")
            sizes = [count_tokens(render(example)) for example in chosen]
            total = sum(sizes)
            while chosen and total > budget_tokens:
                chosen.pop()
                total -= sizes.pop()
        chosen.reverse()
        return chosen
