"""IFEval's word, letter, case and language kinds: keywords that must appear (or must not, or so often), a letter's
frequency, no commas, capitalised words, all capitals or all lowercase in English, and the response's language.

Keywords are matched as literal text, ignoring case (IFEval passes them to ``re`` as patterns; no keyword in its
data has a pattern character, and a literal match is what its prompts ask for).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable

from corral.text import Level, get_profile
from corral.verdicts import Violation

from ._kinds import RELATIONS, Args, Param, count_message, first_span, meets, register_kind, relation_text, tick
from ._language import LANGUAGES, identify, language_name


def _occurrences(keyword: str, response: str) -> list[re.Match[str]]:
    out = []
    for match in re.finditer(re.escape(keyword), response, flags=re.IGNORECASE):
        tick()
        out.append(match)
    return out


@register_kind("keywords:existence", (Param("keywords", list),),
      lambda a: f"Include the keywords {', '.join(a['keywords'])} in the response.",
      "grammar", "each keyword somewhere in the text (any case): an intersection of regular languages",
      "every keyword appears (as text, any case)")
def existence(args: Args, response: str) -> list[Violation]:
    missing = [word for word in args["keywords"] if re.search(re.escape(word), response, flags=re.IGNORECASE) is None]
    if not missing:
        return []
    return [Violation("keywords:existence", f"The response lacks the keyword{'s' if len(missing) > 1 else ''} "
                                            f"{', '.join(map(repr, missing))}; use each at least once.",
                      None, list(args["keywords"]), missing)]


@register_kind("keywords:forbidden_words", (Param("forbidden_words", list),),
      lambda a: f"Do not include the keywords {', '.join(a['forbidden_words'])} in the response.",
      "grammar", "a finite set of whole words excluded (any case): a regular language",
      "none of the words appears as a whole word (any case)")
def forbidden_words(args: Args, response: str) -> list[Violation]:
    found = []
    for word in sorted(set(args["forbidden_words"])):
        tick()
        match = re.search(r"\b" + re.escape(word) + r"\b", response, flags=re.IGNORECASE)
        if match is not None:
            found.append(Violation("keywords:forbidden_words", f"The response uses the forbidden word "
                                                               f"{match.group()!r}; leave it out (in any case).",
                                   match.span(), f"no {word!r}", match.group()))
    return found


@register_kind(
    "keywords:frequency", (Param("keyword", str), Param("frequency", int), Param("relation", str, RELATIONS)),
    lambda a: f"In your response, the word {a['keyword']} should appear "
              f"{relation_text(a['relation'], a['frequency'], 'time')}.",
    "grammar", "occurrences of a fixed string counted against a bound: a regular language",
    "occurrences of the keyword (as text, any case) counted against a bound")
def frequency(args: Args, response: str) -> list[Violation]:
    keyword = args["keyword"].strip()
    count = len(_occurrences(keyword, response))
    if meets(count, args["relation"], args["frequency"]):
        return []
    return [Violation("keywords:frequency",
                      count_message(args["relation"], args["frequency"], count, "time").replace(
                          "The response has", f"The keyword {keyword!r} appears"),
                      None, f"{args['relation']} {args['frequency']}", count)]


@register_kind("keywords:letter_frequency",
      (Param("letter", str), Param("let_frequency", int), Param("let_relation", str, RELATIONS)),
      lambda a: f"In your response, the letter {a['letter']} should appear "
                f"{relation_text(a['let_relation'], a['let_frequency'], 'time')}.",
      "grammar", "occurrences of one character (either case) counted against a bound: a regular language",
      "occurrences of the letter (either case) counted against a bound")
def letter_frequency(args: Args, response: str) -> list[Violation]:
    letter = args["letter"].strip().lower()
    tick()
    count = Counter(response.lower())[letter]
    if meets(count, args["let_relation"], args["let_frequency"]):
        return []
    return [Violation("keywords:letter_frequency",
                      count_message(args["let_relation"], args["let_frequency"], count, "time").replace(
                          "The response has", f"The letter {letter!r} appears"),
                      None, f"{args['let_relation']} {args['let_frequency']}", count)]


@register_kind("punctuation:no_comma", (),
      lambda a: "Do not use any commas in your entire response.",
      "grammar", "a forbidden character: a regular language",
      "no ',' anywhere", forbids={","})
def no_comma(args: Args, response: str) -> list[Violation]:
    count = response.count(",")
    if not count:
        return []
    span = first_span(response, ",")
    before = response[max(0, span[0] - 30):span[0]] if span else ""
    return [Violation("punctuation:no_comma", f"The response has {count} comma{'s' if count > 1 else ''} (the first "
                                              f"after {before!r}); use none: rephrase or use other punctuation.",
                      span, 0, count)]


@register_kind("change_case:capital_word_frequency",
      (Param("capital_frequency", int), Param("capital_relation", str, RELATIONS)),
      lambda a: "In your response, words in all capital letters should appear "
                f"{relation_text(a['capital_relation'], a['capital_frequency'], 'time')}.",
      "partial", "a grammar can bound all-capital words, but IFEval's tokens (nltk's word_tokenize) split "
      "contractions and punctuation by rules a grammar only approximates",
      "tokens (nltk word_tokenize) in all capitals counted against a bound")
def capital_word_frequency(args: Args, response: str) -> list[Violation]:
    tick()
    count = sum(1 for value, _, _ in get_profile("collie-v1").split(response, Level.WORD) if value.isupper())
    relation, want = args["capital_relation"], args["capital_frequency"]
    if meets(count, relation, want):
        return []
    return [Violation("change_case:capital_word_frequency",
                      count_message(relation, want, count, "word").replace("words;", "words in all capitals;")
                      .replace("word;", "word in all capitals;"), None, f"{relation} {want}", count)]


def _case_violation(rule: str, response: str, wrong: str, fold: Callable[[str], str]) -> Violation:
    """The first letter in the wrong case, or that the response has no cased letter at all."""
    found = next((m for m in re.finditer(r"[^\W\d_]", response) if m.group() != fold(m.group())), None)
    want = "capital letters" if wrong == "lowercase" else "lowercase"
    if found is None:
        return Violation(rule, f"The response has no letters; write it in English, in {want}.", None, want,
                         response[:40])
    return Violation(rule, f"The response has {wrong} letters (the first: {found.group()!r}); write everything in "
                           f"{want}.", found.span(), want, found.group())


def _english(rule: str, response: str) -> list[Violation]:
    code = identify(response)
    if code is None or code == "en":
        return []
    return [Violation(rule, f"The response does not read as English (it reads as {language_name(code)}); write it "
                            "in English.", None, "en", code)]


@register_kind("change_case:english_capital", (),
      lambda a: "Your entire response should be in English, and in all capital letters.",
      "partial", "a grammar can forbid lowercase letters, but whether the text is English takes a language "
      "identifier", "no lowercase letter (str.isupper) and identified as English")
def english_capital(args: Args, response: str) -> list[Violation]:
    if not response.isupper():
        return [_case_violation("change_case:english_capital", response, "lowercase", str.upper)]
    return _english("change_case:english_capital", response)


@register_kind("change_case:english_lowercase", (),
      lambda a: "Your entire response should be in English, and in all lowercase letters. No capital letters are "
                "allowed.",
      "partial", "a grammar can forbid capital letters, but whether the text is English takes a language "
      "identifier", "no capital letter (str.islower) and identified as English")
def english_lowercase(args: Args, response: str) -> list[Violation]:
    if not response.islower():
        return [_case_violation("change_case:english_lowercase", response, "capital", str.lower)]
    return _english("change_case:english_lowercase", response)


@register_kind("language:response_language", (Param("language", str, tuple(LANGUAGES)),),
      lambda a: f"Your entire response should be in {language_name(a['language'])}; no other language is allowed.",
      "checker", "the language of a text is a statistical judgement (py3langid's model), not a grammar",
      "identified as the language (py3langid)")
def response_language(args: Args, response: str) -> list[Violation]:
    want = args["language"]
    code = identify(response)
    if code is None or code == want:
        return []
    return [Violation("language:response_language", f"The response reads as {language_name(code)}; write all of "
                                                    f"it in {language_name(want)}.", None, want, code)]
