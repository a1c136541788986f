"""The bounds a compiled constraint's grammar adds so that every generation ends."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    """Upper bounds the compiled grammar adds so that every generation ends (a small model left free to write
    "and" forever would hit ``max_tokens`` instead). Each bound is raised to fit the constraint's own numbers
    (a sentence that must have 60 words may have up to 60 + ``slack``)."""

    word_chars: int = 20
    sentence_words: int = 100
    paragraph_sentences: int = 12
    passage_paragraphs: int = 6
    slack: int = 2

    def fit(self, largest: int) -> Limits:
        raise_to = largest + self.slack
        return Limits(max(self.word_chars, raise_to), max(self.sentence_words, raise_to),
                      max(self.paragraph_sentences, raise_to), max(self.passage_paragraphs, raise_to), self.slack)
