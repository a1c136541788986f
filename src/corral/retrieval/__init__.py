"""Few-shot example retrieval: the training examples most like an input, best match last, within a token budget.

``Retriever(examples, method)`` indexes anything with an ``id`` and its ``words`` (``Example``) by BM25 (``bm25s``)
or by the bundled model's sentence embeddings (``method="dense"``); ``select`` picks a prompt's examples.
"""

from ._retriever import METHODS, TOKEN_PATTERN, Example, Retriever, render_words

__all__ = ["METHODS", "TOKEN_PATTERN", "Example", "Retriever", "render_words"]
