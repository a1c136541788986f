"""The ``ifeval-v1`` profile: IFEval's units (Zhou et al. 2023), for its instruction checkers.

IFEval counts two different things as words, and this profile holds both so that no checker keeps a private idea
of either:

* words (``Level.WORD``): maximal runs of ``\\w`` characters (Unicode), so "don't" is two words and "3.5" two;
  this is what IFEval's word limits count;
* sentences (``Level.SENTENCE``): Punkt sentence boundaries (the untrained Punkt that ``collie-v1`` also uses).
  IFEval uses nltk's *trained English* Punkt, whose parameters are data that nltk downloads at run time and
  Corral does not ship; the two agree except after abbreviations the English model knows ("Dr. Smith" is one
  sentence there, two here). ``docs/ifeval.md`` lists this difference;
* tokens for IFEval's capital-word count are ``collie-v1``'s words (nltk's ``word_tokenize`` per Punkt sentence):
  that profile already reproduces them, so this one does not repeat them;
* paragraphs: ``text.split("\\n\\n")`` (IFEval's own paragraph rule for its first-word check);
* matching compares lowercased strings (IFEval's keyword checks ignore case).
"""

from __future__ import annotations

import re

from ._profiles import Profile, RawUnit
from ._punkt_fast import punkt_spans
from ._units import Level

_WORD = re.compile(r"\w+")


def split(text: str, level: Level) -> list[RawUnit]:
    if level is Level.WORD:
        return [(m.group(), m.start(), m.end()) for m in _WORD.finditer(text)]
    if level is Level.SENTENCE:
        return [(text[a:b], a, b) for a, b in punkt_spans(text)]
    if level is Level.PARAGRAPH:
        units: list[RawUnit] = []
        start = 0
        for part in text.split("\n\n"):
            units.append((part, start, start + len(part)))
            start += len(part) + 2
        return units
    if level is Level.CHAR:
        return [(c, i, i + 1) for i, c in enumerate(text)]
    return [(text, 0, len(text))]


def normalize(value: str, case_sensitive: bool = False) -> str:
    return value if case_sensitive else value.lower()


PROFILE = Profile(
    name="ifeval-v1",
    description=(
        "IFEval's units: words are runs of \\w characters, sentences are Punkt's (untrained), paragraphs are "
        "split at blank lines; lowercase matching."
    ),
    split=split,
    normalize=normalize,
)
