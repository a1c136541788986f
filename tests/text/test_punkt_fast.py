"""Differential tests: ``punkt_spans`` against nltk's untrained ``PunktSentenceTokenizer().span_tokenize``."""

from __future__ import annotations

import re
import string
import sys
from functools import cache

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from corral.text import _punkt_fast  # the fast Punkt against NLTK's, the library it replaces
from corral.text._punkt_fast import REFERENCE, punkt_spans  # the fast Punkt against NLTK's, the library it replaces
from tests.conftest import collie_texts

nltk_punkt = pytest.importorskip("nltk.tokenize.punkt")
regex = pytest.importorskip("regex")

_NLTK = nltk_punkt.PunktSentenceTokenizer()


def reference(text: str) -> list[tuple[int, int]]:
    return list(_NLTK.span_tokenize(text))


def assert_same(text: str) -> None:
    assert punkt_spans(text) == reference(text), repr(text)


# --------------------------------------------------------------------------------------------------------
# the COLLIE data: whole texts, their stripped paragraphs, and the stripped sentences of those


@cache
def _units(name: str, field: str) -> tuple[str, ...]:
    """Texts, then each paragraph and each sentence as the COLLIE rules strip them (nested segmentation)."""
    units: list[str] = []
    for text in collie_texts(name, field):
        units.append(text)
        for paragraph in text.split("\n\n"):
            paragraph = paragraph.strip().strip(".")
            units.append(paragraph)
            units.extend(paragraph[a:b].strip().strip(".") for a, b in reference(paragraph))
    return tuple(units)


@pytest.mark.parametrize(("name", "field"), [("generations_dev.jsonl", "text"), ("collie_v1.jsonl", "example")])
def test_collie_data(name: str, field: str) -> None:
    units = _units(name, field)
    assert len(units) > 1000
    mismatches = [u for u in units if punkt_spans(u) != reference(u)]
    assert not mismatches, f"{len(mismatches)} mismatches, e.g. {mismatches[0][:300]!r}"


# --------------------------------------------------------------------------------------------------------
# hand-picked cases: every rule and quirk the fast path has to reproduce

CASES = [
    "",
    " ",
    "\n\n \t",
    "no end at all",
    "Hello world.",
    "Hello world.   \n",
    "Mr. Smith went to Washington. He arrived on Tuesday.",
    "The U.S. economy grew. It rose.",
    "J. Smith went. J. may go. Vitamin C. The end.",
    "In 1990. The war ended in 1991. and then 2. So.",
    "1. The first\n2. The second\n3. the third",
    "Wait... what? Really?! Yes!!! OK.",
    "a ?! b",
    " ?! x",
    " ?!x. y",
    "I don't. I won't. I haven’t. He said “yes.” Then left.",
    'He said "yes." Then he left. (Sent1.) Sent2. [Note.] Done.',
    "a . . . b",
    "ab. . . c",
    "3. x.) foo",
    "x.)y. Z",
    "e.g. this, i.e. that, etc. and so on.",
    "Cost $300,000. However, 20%. The 3/40. All 2.86. For 12,000. People",
    "##number##. a ##number##. B",
    "1. ; 1. : 1. , 1. ! J. ; J. ?",
    "word.\x1c next. \x1c\n\x1c",
    "word?\n\x1c",
    "a.\xa0b. c",
    "One.\u2003Two.\u2028Three.\x85Four.",
    "Tab.\tafter.\rCR.\x0bVT.\x0cFF. end",
    "É. Bach. é. bach. ١. two. ²Ⅻ. a. x́. y",
    "Stop.--Go. stop.-- go",
    "Quote.' Next.\" Next.» Next.’ Next.” end",
    '"Hi." "Ho." (A.) [B.] {C.}',
    "End.)",
    ".\n.\n.",
    "?",
    "..",
    "a. \n\n b",
]


@pytest.mark.parametrize("text", CASES)
def test_cases(text: str) -> None:
    assert_same(text)


def test_reference_constant() -> None:
    assert "PunktSentenceTokenizer" in REFERENCE and "untrained" in REFERENCE


# --------------------------------------------------------------------------------------------------------
# property tests

# fmt: off
_ATOMS = [
    "Mr.", "Mrs.", "Dr.", "U.S.", "U.S.A.", "e.g.", "i.e.", "etc.", "No.", "p.m.", "vs.", "J.", "a.", "Q.",
    "3.14", "1.", "12.", "1990.", "2024", "1,000.", "-5.", ".5", ",5", "$5.", "5%.", "3/4.", "a1.", "1a.",
    "...", "..", ". . .", "?!", "!!", "??", "?", "!", ".", '."', ".)", ".'", ".”", ".’", ".»", ".]", ".}",
    "'", '"', "(", ")", "[", "]", "{", "}", "--", "-", ",", ";", ":", "*", "@", "&", "#", "`", "/", "%",
    "’", "‘", "“", "”", "«", "»", "word", "Word", "the", "The", "x", "I", "don't", "don’t", "isn't.",
    "café.", "École", "ñ", "Σ.", "σ", "١٢.", "²", "_.", "ǅ", "İ.", "x\u0301.", "##number##.", "ﬁ.",
]
_SEPARATORS = [
    " ", " ", " ", "", "", "\n", "\n\n", "  ", "\t", " \n ", "\r\n", "\xa0", "\u2003", "\u2028", "\x85",
    "\x1c", "\x1f", "\x0b", "\x0c", "\u3000",
]
# fmt: on
_LETTERS = "aAbBjJxXI19٣²éÉ.?!\"')(][}{*:;@#&`-,_’‘“”«» \n\t\xa0\x1c"

structured_text = st.lists(
    st.tuples(
        st.one_of(st.sampled_from(_ATOMS), st.text(alphabet=_LETTERS, max_size=6)),
        st.sampled_from(_SEPARATORS),
    ),
    max_size=14,
).map(lambda pairs: "".join(a + b for a, b in pairs))


@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(structured_text)
@example("A. \n The end.")
@example("1.  e.g.(")
@example("\xa0 1.\r\nx\x1c!! Word")
def test_structured_text(text: str) -> None:
    assert_same(text)


@settings(max_examples=500, deadline=None)
@given(st.text())
def test_arbitrary_text(text: str) -> None:
    assert_same(text)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from([*_LETTERS, "\u2028", "\x85", "\u3000", "\r"]), max_size=60))
def test_punctuation_soup(text: str) -> None:
    assert_same(text)


# --------------------------------------------------------------------------------------------------------
# the character-class facts the fast path relies on, checked over all of Unicode against ``regex``


@cache
def _all_chars() -> str:
    return "".join(chr(i) for i in range(sys.maxunicode + 1) if not 0xD800 <= i <= 0xDFFF)


def _set(pattern: str, engine=re) -> set[str]:
    return set(engine.findall(pattern, _all_chars()))


def test_whitespace_classes_match_regex() -> None:
    assert _set(rf"[{_punkt_fast._WS}]") == _set(r"\s", regex)
    assert set(_punkt_fast._ASCII_WS) == set(string.whitespace)


def test_non_word_class_matches_nltk() -> None:
    nltk_non_word = nltk_punkt.PunktLanguageVars()._re_non_word_chars
    assert _set(rf"[{_punkt_fast._NW}]") == _set(nltk_non_word, regex)


def test_word_character_assumptions() -> None:
    word = _set(r"\w")  # Python's \w, as the fast pattern's lookbehinds use it
    assert not word & (_set(r"\s", regex) | _set(rf"[{_punkt_fast._NW}]") | set("-.,\x1c\x1d\x1e\x1f"))
    # a Python letter is never a digit for ``regex`` (so a token holding one is not a number) ...
    assert not _set(r"[^\W\d]") & _set(r"\d", regex)
    # ... and a Python alphabetic character is such a letter for both engines (so "é." is an initial and
    # "café." is not a number)
    alphabetic = {c for c in _all_chars() if c.isalpha()}
    assert alphabetic <= _set(r"[^\W\d]") and alphabetic <= _set(r"[^\W\d]", regex)
