"""Responses and arguments for the differential test: hypothesis strategies that build texts around each kind's
boundaries (counts one off either way, case, punctuation, markdown, unicode), and hand-made edge cases."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

NOISE = ["the", "cat", "Sat", "ON", "I", "A", "don't", "3.5", "e-mail", "naïve", "Straße", "İstanbul", "中文", "—",
         ",", ".", "!", "?", "...", '"', "'", "*", "**", "***", "******", "-", "\n", "\n\n", " ", " ", " ", "\t",
         "[name]", "[", "]", "<<", ">>", "<<Title>>", "< <x> >", "P.S.", "p. s.", "P.P.S", "Section 1", "SECTION 2",
         "```", "```json", "{}", '{"a": 1}', "[1, 2]", "My answer is yes.", "my answer is no.", "USA", "U.S.",
         "Hello.", "World!", "Is it?", "* point", "- item", "*bold*", "**strong**", "\n* x", "\n- y"]

SENTENCES = {
    "en": ["The weather in the mountains changes quickly, so hikers should always carry a warm jacket.",
           "Our library opens early on weekdays and stays open late during the exam season.",
           "She planted tomatoes and beans in the garden behind the old farmhouse last spring."],
    "de": ["Das Wetter in den Bergen ändert sich schnell, deshalb sollten Wanderer immer eine warme Jacke dabei "
           "haben.", "Unsere Bibliothek öffnet an Wochentagen früh und bleibt während der Prüfungszeit lange offen."],
    "fr": ["Le temps change rapidement en montagne, donc les randonneurs doivent toujours emporter une veste chaude.",
           "Notre bibliothèque ouvre tôt en semaine et reste ouverte tard pendant la période des examens."],
    "it": ["Il tempo in montagna cambia rapidamente, quindi gli escursionisti dovrebbero sempre portare una giacca "
           "calda.", "La nostra biblioteca apre presto nei giorni feriali e resta aperta fino a tardi durante gli "
           "esami."],
    "ru": ["Погода в горах меняется быстро, поэтому туристам всегда стоит брать с собой тёплую куртку.",
           "Наша библиотека открывается рано по будням и работает допоздна во время сессии."],
    "ko": ["산의 날씨는 빠르게 변하기 때문에 등산객은 항상 따뜻한 재킷을 가지고 다녀야 합니다.",
           "우리 도서관은 평일에 일찍 문을 열고 시험 기간에는 늦게까지 운영합니다."],
    "th": ["สภาพอากาศบนภูเขาเปลี่ยนแปลงอย่างรวดเร็ว ดังนั้นนักเดินป่าควรพกเสื้อแจ็คเก็ตที่อบอุ่นติดตัวไว้เสมอ"],
    "ar": ["يتغير الطقس في الجبال بسرعة، لذلك يجب على المتنزهين دائمًا حمل سترة دافئة."],
    "fi": ["Sää vuorilla muuttuu nopeasti, joten retkeilijöiden pitäisi aina kantaa mukanaan lämmin takki."],
    "vi": ["Thời tiết trên núi thay đổi nhanh chóng, vì vậy người đi bộ đường dài nên luôn mang theo áo khoác ấm."],
}
"""Ordinary sentences, clearly of one language each, for the kinds that identify a language: the two identifiers
are compared where a language is plain, not on a few random words (see docs/ifeval.md)."""


def text(extra: list[str], max_size: int = 24) -> st.SearchStrategy[str]:
    """A response made of ``NOISE`` and the kind's own ``extra`` pieces, weighted towards ``extra``."""
    piece = st.one_of(st.sampled_from(extra), st.sampled_from(extra), st.sampled_from(NOISE)) if extra \
        else st.sampled_from(NOISE)
    return st.lists(piece, max_size=max_size).map("".join)


def words(max_words: int = 12) -> st.SearchStrategy[str]:
    """n words (0..max_words) joined by spaces, newlines or punctuation: word counts near small bounds."""
    word = st.sampled_from(["alpha", "Beta", "GAMMA", "don't", "3.5", "naïve", "x_y", "über", "数"])
    sep = st.sampled_from([" ", " ", ", ", ". ", "\n", "\n\n", " *", "-"])
    return st.lists(st.tuples(word, sep), max_size=max_words).map(lambda pairs: "".join(w + s for w, s in pairs))


def sentences(max_sentences: int = 8) -> st.SearchStrategy[str]:
    """Plain sentences (no abbreviations, where the trained and untrained Punkt agree) in varied layouts."""
    sentence = st.sampled_from(["The cat sat on the mat.", "It rained all day!", "Why not?", "We left at noon.",
                                "THE END.", "a quiet street", "He said \"hello.\"", "Wait... Then go.",
                                "Prices rose 3.5 percent.", "* First point.", "1. A list item."])
    sep = st.sampled_from([" ", "  ", "\n", "\n\n", ""])
    return st.lists(st.tuples(sentence, sep), max_size=max_sentences).map(
        lambda pairs: "".join(s + g for s, g in pairs))


def language_text(language: str | None = None) -> st.SearchStrategy[str]:
    """One to three sentences of one language (any when None), in their case, upper case or lower case."""
    langs = [language] if language else sorted(SENTENCES)
    return st.sampled_from(langs).flatmap(lambda lang: st.tuples(
        st.lists(st.sampled_from(SENTENCES[lang]), min_size=1, max_size=3).map(" ".join),
        st.sampled_from(["as is", "upper", "lower"]),
        st.sampled_from(["", "\n", "\n\nThanks.", "Sure:\n", "*"]),
    ).map(lambda t: t[2] + (t[0].upper() if t[1] == "upper" else t[0].lower() if t[1] == "lower" else t[0])))


REL = st.sampled_from(["less than", "at least"])
KEYWORDS = ["cat", "Sat", "river", "naïve", "e-mail", "Straße"]
PROMPT = "Write a short note about rivers."


def kwargs_for(kind: str) -> st.SearchStrategy[dict[str, Any]]:
    """Arguments for ``kind``, small enough that the generated responses fall on both sides of their bounds."""
    small = st.integers(1, 8)
    table: dict[str, st.SearchStrategy[dict[str, Any]]] = {
        "change_case:capital_word_frequency": st.fixed_dictionaries({"capital_frequency": small,
                                                                     "capital_relation": REL}),
        "combination:repeat_prompt": st.just({"prompt_to_repeat": PROMPT}),
        "detectable_content:number_placeholders": st.fixed_dictionaries({"num_placeholders": small}),
        "detectable_content:postscript": st.fixed_dictionaries({"postscript_marker": st.sampled_from(
            ["P.S.", "P.P.S", "Note"])}),
        "detectable_format:multiple_sections": st.fixed_dictionaries({
            "section_spliter": st.sampled_from(["Section", "SECTION", "Day"]), "num_sections": st.integers(1, 4)}),
        "detectable_format:number_bullet_lists": st.fixed_dictionaries({"num_bullets": st.integers(1, 5)}),
        "detectable_format:number_highlighted_sections": st.fixed_dictionaries({"num_highlights": st.integers(1, 4)}),
        "keywords:existence": st.fixed_dictionaries({"keywords": st.lists(st.sampled_from(KEYWORDS), min_size=1,
                                                                          max_size=3)}),
        "keywords:forbidden_words": st.fixed_dictionaries({"forbidden_words": st.lists(
            st.sampled_from(KEYWORDS), min_size=1, max_size=3)}),
        "keywords:frequency": st.fixed_dictionaries({"keyword": st.sampled_from(KEYWORDS), "frequency": st.integers(
            1, 4), "relation": REL}),
        "keywords:letter_frequency": st.fixed_dictionaries({"letter": st.sampled_from(["a", "t", "E", "s", "q"]),
                                                            "let_frequency": st.integers(1, 10), "let_relation": REL}),
        "language:response_language": st.fixed_dictionaries({"language": st.sampled_from(sorted(SENTENCES))}),
        "length_constraints:nth_paragraph_first_word": st.integers(1, 4).flatmap(
            lambda n: st.fixed_dictionaries({"num_paragraphs": st.just(n), "nth_paragraph": st.integers(1, n),
                                             "first_word": st.sampled_from(["alpha", "beta", "Gamma"])})),
        "length_constraints:number_paragraphs": st.fixed_dictionaries({"num_paragraphs": st.integers(1, 4)}),
        "length_constraints:number_sentences": st.fixed_dictionaries({"num_sentences": small, "relation": REL}),
        "length_constraints:number_words": st.fixed_dictionaries({"num_words": st.integers(1, 10), "relation": REL}),
        "startend:end_checker": st.fixed_dictionaries({"end_phrase": st.sampled_from(
            ["Any other questions?", "Peace!", "in India."])}),
    }
    return table.get(kind, st.just({}))


def response_for(kind: str) -> st.SearchStrategy[str]:
    """Responses for ``kind``: its own pieces among the noise."""
    table: dict[str, st.SearchStrategy[str]] = {
        "change_case:capital_word_frequency": text(["HELLO", "WORLD", "Don't", "DON'T", "I'M", "A-B", "U.S.", "ok",
                                                    " ", " ", "\n"]),
        "change_case:english_capital": language_text("en"),
        "change_case:english_lowercase": language_text("en"),
        "combination:repeat_prompt": st.tuples(st.sampled_from(["", " ", "\n", "Sure. ", "write a short note"]),
                                               st.sampled_from([PROMPT, PROMPT.lower(), PROMPT[:-1], PROMPT.upper()]),
                                               text([" answer", "\n"], 4)).map("".join),
        "combination:two_responses": text(["******", "first answer", "second answer", " ", "\n"]),
        "detectable_content:number_placeholders": text(["[a]", "[b c]", "[\n]", "[]", "[[x]]", " ", "\n"]),
        "detectable_content:postscript": text(["P.S.", "p.s.", "P. S.", "P.P.S", "p. p. s", "Note", "NOTE:", "PS",
                                               "\n", " "]),
        "detectable_format:constrained_response": text(["My answer is yes.", "My answer is no.",
                                                        "My answer is maybe.", "My answer is yes", " ", "\n"]),
        "detectable_format:json_format": st.one_of(
            text(["{", "}", '"k"', ":", "1", "[", "]", ",", "```json\n", "\n```", "```", "NaN", "null"]),
            st.sampled_from(['{"a": 1}', '```json\n{"a": [1, 2]}\n```', "```JSON\n[]\n```", "```\n1\n```",
                             '```json```{"a":1}', 'Here:\n{"a": 1}', '{"a": 1}\nDone.', "[1, 2,]"])),
        "detectable_format:multiple_sections": text(["Section 1", "SECTION 2", "Section3", "Day 1", "Day  2",
                                                     "section 4", "Subsection 5", "\n", " ", "text"]),
        "detectable_format:number_bullet_lists": text(["\n* a", "\n- b", "\n  * c", "\n** d", "\n*", "\n-", "\n",
                                                       "* e", "-- f", " "]),
        "detectable_format:number_highlighted_sections": text(["*a*", "**b**", "* *", "*", "**", "\n", " ", "x",
                                                               "***c***"]),
        "detectable_format:title": text(["<<Title>>", "<<>>", "<< >>", "<<a\nb>>", "<<<x>>>", "<", ">", " ", "\n"]),
        "keywords:existence": text([*KEYWORDS, "CAT", "STRASSE", "cats", " ", "\n"]),
        "keywords:forbidden_words": text([*KEYWORDS, "CAT", "cats", "concat", "e-mails", " ", "\n", "_cat"]),
        "keywords:frequency": text([*KEYWORDS, "CAT", "cats", "scatter", " ", "\n"]),
        "keywords:letter_frequency": text(["a", "A", "t", "T", "e", "É", "s", "ß", "q", "Q", " "]),
        "language:response_language": language_text(),
        "length_constraints:nth_paragraph_first_word": text(["alpha", "Beta", "gamma", '"Alpha,', "'beta.", "\n\n",
                                                             "\n", " ", "\n\n\n", "alphabet", "beta!"]),
        "length_constraints:number_paragraphs": text(["para", "***", " *** ", "\n***\n", "****", "\n", " "]),
        "length_constraints:number_sentences": sentences(),
        "length_constraints:number_words": words(),
        "punctuation:no_comma": text([",", "，", "a", " "]),
        "startend:end_checker": text(["Any other questions?", "any other questions?", "Peace!", "in India.",
                                      "India.", '"', " ", "\n", "Peace! "]),
        "startend:quotation": text(['"', "'", "“", "”", "x", " ", "\n"]),
    }
    return table.get(kind, text([]))


def _count(pattern: str, flags: int = 0) -> Any:
    import re

    return lambda response, kwargs: len(re.findall(pattern, response, flags))


COUNTERS: dict[str, tuple[str, Any]] = {
    "length_constraints:number_words": ("num_words", _count(r"\w+")),
    "detectable_content:number_placeholders": ("num_placeholders", _count(r"\[.*?\]")),
    "detectable_format:number_bullet_lists": ("num_bullets", lambda r, k: len(
        __import__("re").findall(r"^\s*[*-]", r, __import__("re").MULTILINE))),
    "keywords:frequency": ("frequency", lambda r, k: r.lower().count(k["keyword"].lower())),
    "keywords:letter_frequency": ("let_frequency", lambda r, k: r.lower().count(k["letter"].lower())),
    "change_case:capital_word_frequency": ("capital_frequency", lambda r, k: sum(w.isupper() for w in r.split())),
    "length_constraints:number_paragraphs": ("num_paragraphs", lambda r, k: r.count("***") + 1),
    "detectable_format:multiple_sections": ("num_sections", lambda r, k: r.count(k["section_spliter"])),
}
"""A rough count of what each counting kind counts (a test-side estimate, not the definition): the generated
bound is set one below, at, or one above it, so that generated cases sit on both sides of the boundary."""
