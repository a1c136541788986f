"""Differential test: Corral's IFEval checkers against IFEval's own (lm-evaluation-harness 0.4.13, a test oracle
only; ``reference.py`` loads it). For every kind, generated responses around its boundaries and hand-made edge
cases must get the same strict and loose verdicts from both.

Deliberate differences (also in docs/ifeval.md), each kept out of the generated cases for the reason given:

* ``KEYWORDS_LITERAL``: IFEval passes keywords, forbidden words, section words and postscript markers to ``re`` as
  patterns; Corral matches them as text. No argument in IFEval's data has a pattern character.
* ``LETTER_NOT_A_LETTER``: for a ``letter`` that is not one ASCII letter ("#" and "!" in the data) IFEval checks a
  randomly drawn letter instead; Corral counts the character given.
* ``FALSY_ARGUMENTS``: IFEval drops arguments that are 0 or "" and draws random values; Corral takes 0 and refuses
  "" (an error naming the row).
* ``LANGUAGE_ID``: Corral identifies languages with py3langid, IFEval with langdetect (random unless seeded; seeded
  here). langdetect misreads text in capitals ("OUR LIBRARY OPENS EARLY ..." as German), which fails English
  answers to ``english_capital``; py3langid reads them as English. For the three kinds that identify a language,
  the test compares plain sentences of ten languages as written, in capitals and in lowercase, and accepts a
  different verdict only where the two identifiers name different languages for the response (or a loose variant
  of it); every other difference fails.
* ``TRAINED_PUNKT``: IFEval splits sentences with nltk's trained English Punkt, data downloaded at run time;
  Corral uses the untrained Punkt. They differ after abbreviations the English model knows ("Dr. Smith"); the
  generated sentences have none. Without punkt_tab the oracle itself runs on the untrained Punkt (``PUNKT``).
* ``BUDGET``: a response past the check's budget (2,000,000 characters, 10 s) is undecided in Corral; IFEval has no
  limit (and raises on JSON nested past Python's recursion limit).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corral.suites.ifeval import KINDS, Instruction, evaluate_response, identify, loose_variants

from . import cases, reference

REF = reference.load()
pytestmark = pytest.mark.skipif(REF is None, reason="IFEval's reference (lm-eval 0.4.13) is not installed")

DIFFERENCES = ("KEYWORDS_LITERAL", "LETTER_NOT_A_LETTER", "FALSY_ARGUMENTS", "LANGUAGE_ID", "TRAINED_PUNKT", "BUDGET")
EXAMPLES = 40


LANGUAGE_KINDS = {"language:response_language", "change_case:english_capital", "change_case:english_lowercase"}


def _compare(kind: str, kwargs: dict, response: str) -> None:
    """Equal verdicts, or (for a kind that identifies a language) a difference that the two identifiers explain:
    they name different languages for the response or one of its loose variants (``LANGUAGE_ID``)."""
    ours = evaluate_response([Instruction.parse(kind, kwargs)], response)
    theirs = reference.verdicts(REF, 1, cases.PROMPT, [kind], [dict(kwargs)], response)  # type: ignore[arg-type]
    if (list(ours.strict), list(ours.loose)) != theirs and kind in LANGUAGE_KINDS:
        assert _identifiers_disagree(response), (kind, kwargs, response)
        return
    assert (list(ours.strict), list(ours.loose)) == theirs, (kind, kwargs, response)


def _identifiers_disagree(response: str) -> bool:
    import langdetect

    for variant in loose_variants(response):
        if variant.strip():
            try:
                theirs = langdetect.detect(variant)
            except langdetect.LangDetectException:
                theirs = None
            if theirs != identify(variant):
                return True
    return False


def test_the_reference_knows_the_same_25_kinds():
    assert set(REF["instructions_registry"].INSTRUCTION_DICT) == set(KINDS)  # type: ignore[index]
    assert len(KINDS) == 25


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_generated_responses_get_the_reference_verdicts(kind):
    @settings(max_examples=EXAMPLES, database=None)
    @given(cases.kwargs_for(kind), cases.response_for(kind), st.integers(-1, 1))
    def run(kwargs, response, off):
        if kind in cases.COUNTERS:  # the bound one off either side of (a rough count of) what the response has
            name, count = cases.COUNTERS[kind]
            kwargs = {**kwargs, name: max(1, count(response, kwargs) + off)}
        _compare(kind, kwargs, response)

    run()


EDGES = [
    ("punctuation:no_comma", {}, ""), ("punctuation:no_comma", {}, "   "), ("punctuation:no_comma", {}, "a，b"),
    ("detectable_format:title", {}, "<<a>> and <<b>>"), ("detectable_format:title", {}, "<<   >>"),
    ("detectable_format:title", {}, "**<<T>>**"),
    ("startend:quotation", {}, '"'), ("startend:quotation", {}, ' "a" \n'), ("startend:quotation", {}, '*"a"*'),
    ("startend:end_checker", {"end_phrase": "Peace!"}, '"Go in peace!"'),
    ("startend:end_checker", {"end_phrase": "Peace!"}, "Peace!\nThanks for reading."),
    ("combination:two_responses", {}, "a******a"), ("combination:two_responses", {}, "******a******b******"),
    ("combination:two_responses", {}, "a*******b"), ("combination:two_responses", {}, "a************b"),
    ("detectable_format:json_format", {}, '```json```{"a": 1}'), ("detectable_format:json_format", {}, "NaN"),
    ("detectable_format:json_format", {}, "Sure:\n{\"a\": 1}\n"), ("detectable_format:json_format", {}, "**{}**"),
    ("detectable_format:number_bullet_lists", {"num_bullets": 2}, "*\n* b"),
    ("detectable_format:number_bullet_lists", {"num_bullets": 1}, "---"),
    ("detectable_format:number_bullet_lists", {"num_bullets": 2}, "\n\n* a\n\n- b"),
    ("detectable_format:number_highlighted_sections", {"num_highlights": 2}, "***a***"),
    ("detectable_format:number_highlighted_sections", {"num_highlights": 1}, "* *"),
    ("detectable_format:multiple_sections", {"section_spliter": "Section", "num_sections": 2},
     "Subsection 1 Section2"),
    ("length_constraints:number_paragraphs", {"num_paragraphs": 2}, "***a***b***"),
    ("length_constraints:number_paragraphs", {"num_paragraphs": 2}, "a\n***\n\n***\nb"),
    ("length_constraints:number_paragraphs", {"num_paragraphs": 3}, "a****b***c"),
    ("length_constraints:nth_paragraph_first_word", {"num_paragraphs": 2, "nth_paragraph": 2, "first_word": "beta"},
     "alpha\n\n\n\nbeta"),
    ("length_constraints:nth_paragraph_first_word", {"num_paragraphs": 2, "nth_paragraph": 2, "first_word": "beta"},
     "alpha\n\n'\"Beta, yes"),
    ("length_constraints:nth_paragraph_first_word", {"num_paragraphs": 2, "nth_paragraph": 1, "first_word": "it"},
     "It's here.\n\nok"),
    ("length_constraints:number_words", {"num_words": 4, "relation": "less than"}, "don't e-mail 3.5"),
    ("length_constraints:number_words", {"num_words": 3, "relation": "at least"}, "naïve 中文 x_y"),
    ("length_constraints:number_sentences", {"num_sentences": 2, "relation": "at least"}, "One. Two"),
    ("length_constraints:number_sentences", {"num_sentences": 3, "relation": "less than"}, "Go!!! Now?! Yes..."),
    ("detectable_content:postscript", {"postscript_marker": "P.S."}, "maps.s. here"),
    ("detectable_content:postscript", {"postscript_marker": "P.P.S"}, "P.\nP.\nS"),
    ("detectable_content:number_placeholders", {"num_placeholders": 2}, "[a\n] [b] [c"),
    ("keywords:letter_frequency", {"letter": "i", "let_frequency": 2, "let_relation": "at least"}, "İ"),
    ("keywords:existence", {"keywords": ["straße"]}, "STRASSE"), ("keywords:existence", {"keywords": ["ſ"]}, "S"),
    ("keywords:forbidden_words", {"forbidden_words": ["cat"]}, "cat_food concat CAT."),
    ("keywords:frequency", {"keyword": "aa", "frequency": 2, "relation": "at least"}, "aaa"),
    ("change_case:capital_word_frequency", {"capital_frequency": 3, "capital_relation": "at least"},
     "DON'T STOP, U.S.A. OK"),
    ("change_case:english_capital", {}, "123 !!!"), ("change_case:english_lowercase", {}, "123 !!!"),
    ("language:response_language", {"language": "de"}, "12345 ???"),
    ("combination:repeat_prompt", {"prompt_to_repeat": "Say hi.  "}, "  say HI. hi"),
    ("detectable_format:constrained_response", {}, "**My answer is yes.**"),
]


@pytest.mark.parametrize(("kind", "kwargs", "response"), EDGES)
def test_hand_made_edge_cases_get_the_reference_verdicts(kind, kwargs, response):
    _compare(kind, kwargs, response)


def test_every_kind_has_an_edge_case_or_a_generator():
    assert {kind for kind, _, _ in EDGES} | set(KINDS) == set(KINDS)


@settings(max_examples=30, database=None)
@given(st.sampled_from(sorted(cases.SENTENCES)), st.data())
def test_plain_sentences_are_identified_as_the_reference_does(language, data):
    """LANGUAGE_ID: on plain sentences of each language both identifiers name the same language."""
    response = data.draw(cases.language_text(language))
    for kind, kwargs in (("language:response_language", {"language": language}), ("change_case:english_capital", {}),
                         ("change_case:english_lowercase", {})):
        _compare(kind, kwargs, response)
