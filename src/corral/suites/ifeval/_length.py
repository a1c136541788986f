"""IFEval's length kinds: words, sentences, paragraphs separated by ``***``, and the first word of the nth of the
paragraphs separated by blank lines.

Words and sentences come from the ``ifeval-v1`` segmentation profile (``corral.text``), the one place that says
what IFEval counts as a word (a run of ``\\w``) and a sentence (Punkt's boundaries).
"""

from __future__ import annotations

import re

from corral.text import Level, get_profile
from corral.verdicts import Violation

from ._kinds import RELATIONS, Args, Param, count_message, meets, register_kind, relation_text, tick

_RELATION = Param("relation", str, RELATIONS)
_DIVIDER = re.compile(r"\s?\*\*\*\s?")
FIRST_WORD_ENDS = ".,?!'\""
"""Where the first word of a paragraph ends: IFEval reads it up to the first of these characters."""


def _units(response: str, level: Level) -> int:
    tick()
    return len(get_profile("ifeval-v1").split(response, level))


@register_kind("length_constraints:number_words", (Param("num_words", int), _RELATION),
      lambda a: f"Answer with {relation_text(a['relation'], a['num_words'], 'word')}.",
      "grammar", "a word is a run of \\w characters, so a bounded count of them is a regular language",
      "words (runs of \\w) counted against a bound")
def number_words(args: Args, response: str) -> list[Violation]:
    count = _units(response, Level.WORD)
    if meets(count, args["relation"], args["num_words"]):
        return []
    return [Violation("length_constraints:number_words",
                      count_message(args["relation"], args["num_words"], count, "word"),
                      None, f"{args['relation']} {args['num_words']}", count)]


@register_kind("length_constraints:number_sentences", (Param("num_sentences", int), _RELATION),
      lambda a: f"Your response should contain {relation_text(a['relation'], a['num_sentences'], 'sentence')}.",
      "partial", "a grammar can bound the sentence-ending punctuation, but Punkt's boundaries depend on "
      "abbreviation and capitalisation statistics that no grammar holds",
      "sentences (Punkt) counted against a bound")
def number_sentences(args: Args, response: str) -> list[Violation]:
    count = _units(response, Level.SENTENCE)
    if meets(count, args["relation"], args["num_sentences"]):
        return []
    return [Violation("length_constraints:number_sentences",
                      count_message(args["relation"], args["num_sentences"], count, "sentence"),
                      None, f"{args['relation']} {args['num_sentences']}", count)]


@register_kind("length_constraints:number_paragraphs", (Param("num_paragraphs", int),),
      lambda a: f"Write exactly {a['num_paragraphs']} paragraph{'s' if a['num_paragraphs'] != 1 else ''}, "
                "separated from each other by the markdown divider ***.",
      "grammar", "paragraphs are the text between *** dividers: an exact count of non-empty pieces is regular",
      "pieces between *** dividers, exactly n, none empty inside")
def number_paragraphs(args: Args, response: str) -> list[Violation]:
    rule, want = "length_constraints:number_paragraphs", args["num_paragraphs"]
    pieces = _DIVIDER.split(response)
    count = len(pieces)
    for index, piece in enumerate(pieces):
        tick()
        if not piece.strip():
            if 0 < index < len(pieces) - 1:
                return [Violation(rule, f"Paragraph {index + 1} is empty: two *** dividers follow each other "
                                        "with nothing between them; put text between dividers or drop one.",
                                  None, want, None)]
            count -= 1  # a divider at the very start or end opens no paragraph
    if count == want:
        return []
    hint = "Separate paragraphs with *** (a blank line alone does not count)." if count == 1 else \
        f"Use {want - 1} *** divider{'s' if want != 2 else ''} between {want} paragraphs."
    return [Violation(rule, f"The response has {count} paragraph{'s' if count != 1 else ''} separated by ***; "
                            f"it needs exactly {want}. {hint}", None, want, count)]


def first_word(paragraph: str) -> str:
    """IFEval's first word of a paragraph: its first whitespace-separated token, leading quotes dropped, read up
    to the first of ``.,?!'"``, lowercased."""
    words = paragraph.split()
    if not words:
        return ""
    word = words[0].lstrip("'").lstrip('"')
    for at, char in enumerate(word):
        if char in FIRST_WORD_ENDS:
            return word[:at].lower()
    return word.lower()


@register_kind("length_constraints:nth_paragraph_first_word",
      (Param("num_paragraphs", int), Param("nth_paragraph", int), Param("first_word", str)),
      lambda a: f"Write exactly {a['num_paragraphs']} paragraphs, separated from each other by one blank line "
                f"(two newlines). Paragraph {a['nth_paragraph']} must start with the word {a['first_word']}.",
      "grammar", "paragraphs split at blank lines and a fixed first word are regular",
      "paragraphs split at blank lines, exactly n, and the nth begins with a given word")
def nth_paragraph_first_word(args: Args, response: str) -> list[Violation]:
    rule = "length_constraints:nth_paragraph_first_word"
    want, nth, word = args["num_paragraphs"], args["nth_paragraph"], args["first_word"].lower()
    pieces = response.split("\n\n")
    count = sum(1 for piece in pieces if piece.strip())
    found = []
    if count != want:
        found.append(Violation(rule, f"The response has {count} paragraph{'s' if count != 1 else ''} separated "
                                     f"by blank lines; it needs exactly {want}.", None, want, count))
    # IFEval reads the nth piece of the split, counting empty pieces, but only when n is within the count of
    # non-empty ones
    paragraph = pieces[nth - 1].strip() if 0 < nth <= count else ""
    if not paragraph:
        found.append(Violation(rule, f"There is no paragraph {nth} to begin with {word!r}: write at least {nth} "
                                     "paragraphs separated by single blank lines.", None, word, None))
        return found
    seen = first_word(paragraph)
    if seen != word:
        start = response.find(paragraph)
        found.append(Violation(rule, f"Paragraph {nth} begins with {seen!r}; it must begin with the word {word!r}.",
                               (start, start + len(paragraph.split()[0])) if start >= 0 else None, word, seen))
    return found
