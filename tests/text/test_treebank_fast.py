"""Differential tests: ``treebank_tokens`` against nltk's ``NLTKWordTokenizer().tokenize``."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from functools import cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from corral.text import _treebank_fast  # the fast Treebank tokenizer against NLTK's, the library it replaces
from corral.text._treebank_fast import REFERENCE, treebank_tokens  # the same, against NLTK's
from tests.conftest import collie_texts

nltk_tokenize = pytest.importorskip("nltk.tokenize")
nltk_punkt = pytest.importorskip("nltk.tokenize.punkt")
regex = pytest.importorskip("regex")

_NLTK = nltk_tokenize.NLTKWordTokenizer()
_PUNKT = nltk_punkt.PunktSentenceTokenizer()
_QUOTE_SOURCES = {"``": ('"', "''", "``"), "''": ('"', "''")}


def in_fast_path(sentence: str) -> bool:
    """The domain, by its definition (the module takes a quicker route to the same answer)."""
    return not _treebank_fast._outside(sentence)


_fallbacks: list[str] = []


@pytest.fixture(autouse=True, scope="module")
def _record_fallbacks() -> Iterator[None]:
    original = _treebank_fast._fallback

    def recording(sentence: str, base: int = 0) -> list[tuple[str, int, int]]:
        _fallbacks.append(sentence)
        return original(sentence, base)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_treebank_fast, "_fallback", recording)
        yield


def check(sentence: str) -> list[tuple[str, int, int]]:
    """treebank_tokens(sentence) has nltk's tokens, offsets that point at them, and falls back as it should."""
    calls = len(_fallbacks)
    got = treebank_tokens(sentence)
    assert (len(_fallbacks) > calls) is not in_fast_path(sentence), repr(sentence)
    assert [tok for tok, _, _ in got] == _NLTK.tokenize(sentence), repr(sentence)
    previous_end = 0
    for tok, start, end in got:
        assert previous_end <= start < end <= len(sentence), (sentence, got)
        source = sentence[start:end]
        assert source == tok or source in _QUOTE_SOURCES.get(tok, ()), (sentence, tok, start, end)
        previous_end = end
    # a base moves every offset and nothing else
    assert treebank_tokens(sentence, 17) == [(tok, start + 17, end + 17) for tok, start, end in got], repr(sentence)
    assert _treebank_fast.in_domain(sentence) is in_fast_path(sentence)
    plain = _treebank_fast.plain_tokens(sentence)
    if plain is not None:  # the tokens, a " left as it is
        assert [tok if tok not in ("``", "''") or "'" in sentence else '"' for tok, _, _ in got] == plain, sentence
    if in_fast_path(sentence):
        # The pattern covers every character of the domain: nothing but whitespace is left between tokens;
        # and its ASCII variant cuts ASCII sentences alike.
        parts = _treebank_fast._split(sentence)
        assert all(not gap or gap.isspace() for gap in parts[0::2]), (sentence, parts)
        if sentence.isascii():
            assert _treebank_fast._split_ascii(sentence) == parts, sentence
        # In the domain, the tokens after a space are the sentence's last tokens, offsets included (collie-v1
        # finds a sentence's last word from its end alone on this).
        for cut in [i + 1 for i, char in enumerate(sentence) if char == " "]:
            tail = treebank_tokens(sentence[cut:], cut)
            assert tail == got[len(got) - len(tail):], (sentence, cut, tail)
            # and up to a space and the ASCII letter or digit after it, the tokens before that character are its
            # first tokens (collie-v1 finds a sentence's first word from its start alone on this)
            if sentence[cut : cut + 1].isascii() and sentence[cut : cut + 1].isalnum():
                head = [t for t in treebank_tokens(sentence[: cut + 1]) if t[1] < cut]
                assert head == got[: len(head)], (sentence, cut, head)
    return got


def test_reference() -> None:
    assert REFERENCE == "nltk.tokenize.NLTKWordTokenizer().tokenize, nltk 3.10.4"


def test_offsets() -> None:
    sentence = 'He said, "I can\'t go."'
    assert treebank_tokens(sentence) == [
        ("He", 0, 2),
        ("said", 3, 7),
        (",", 7, 8),
        ("``", 9, 10),
        ("I", 10, 11),
        ("ca", 12, 14),
        ("n't", 14, 17),
        ("go", 18, 20),
        (".", 20, 21),
        ("''", 21, 22),
    ]
    assert treebank_tokens("") == []
    assert treebank_tokens(" \n\t ") == []


# Cases where nltk's substitutions interact (each was checked by hand against nltk 3.10.4).
TRICKY = [
    "x's' y",  # ``([^'])' `` splits the quote first, so ``'s`` goes too
    "x's'\ty",  # ... but only before a space
    "x's'",
    "x's'.",
    "x's',",
    "x's')",
    "cannot'tis",  # the contraction exposes ``'tis``
    "more'n'tis",
    "d'ye know",
    "CANNOT, Gonna, gotta, wanna go, x-wanna, wanna-x, gimme lemme",
    'He said. "',  # the quote after a space is already `` when the final-period rule looks
    'He said."',
    'He said.")',
    "He said.' ",
    "He said. )",
    "He said .",
    ".",
    ". )",
    ",,,5",
    ",,a",
    "a,5 a, 5 a,",
    "a:b 10:30 a: b ::",
    "a---b a----b a--b a-b ---",
    "-'hello 'hello 'sup 's 're 'n rock 'n' roll o'clock '90s",
    "don't DON'T Don'T can't won't I'm I'M you'll YOU'LL they've it's students' James's 'tis 'Twas",
    '\t"x"',
    ' "x"',
    '“"x',
    '("x") ["x"] {"x"} <"x">',
    '""abc',
    ' ""abc',
    "``a'' `a' ```b",
    "a''b a'''",
    "“Hello,” she said. ‘Yes’ – «non» — „ja“ ― ‒",
    "Wait... what.. really.... …",
    "U.S. e.g. Mr. Smith went to D.C.",
    "$5 50% #1 @me a&b x*y a;b a?b! a!?",
    "Résumé naïve café — İstanbul ı ß Ω K",
    "It has an area of 6.7\xa0km² (now 7.5\xa0km²).",
    "emoji 🐾 here. \u0301 combining, \ufe0f selector",
    "bad\x1cseparator, and\x1fanother.",
    "a\u2028b\u3000c\x85d",
]


@pytest.mark.parametrize("sentence", TRICKY)
def test_tricky(sentence: str) -> None:
    check(sentence)
    check(sentence.strip().strip("."))


# --------------------------------------------------------------------------------------------------------
# the COLLIE data: every Punkt sentence, and each one stripped as the COLLIE rules strip it


@cache
def _sentences(name: str, field: str) -> tuple[str, ...]:
    return tuple(sentence for text in collie_texts(name, field) for sentence in _PUNKT.tokenize(text))


@pytest.mark.parametrize(("name", "field"), [("generations_dev.jsonl", "text"), ("collie_v1.jsonl", "example")])
def test_collie_data(name: str, field: str) -> None:
    sentences = _sentences(name, field)
    assert sentences
    for sentence in sentences:
        check(sentence)
        check(sentence.strip().strip("."))


def test_fallback_is_rare_on_collie_generations() -> None:
    sentences = _sentences("generations_dev.jsonl", "text")
    outside = [s for s in sentences if not in_fast_path(s)]
    assert len(outside) <= 0.001 * len(sentences), outside[:20]  # 2 of 12,267 with nltk 3.10.4


def test_fast_path_does_not_call_nltk(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(sentence: str, base: int = 0) -> list[tuple[str, int, int]]:
        raise AssertionError(f"fell back on {sentence!r}")

    monkeypatch.setattr(_treebank_fast, "_fallback", refuse)
    sentence = "“It’s 10:30,” said Mr. O'Brien -- they'd gone (again) to the U.S. for $5... cannot wait!"
    assert treebank_tokens(sentence)[:4] == [("“", 0, 1), ("It", 1, 3), ("’", 3, 4), ("s", 4, 5)]


def test_never_raises_even_when_nltk_does(monkeypatch: pytest.MonkeyPatch) -> None:
    def give_up(sentence: str) -> list[str]:
        raise TimeoutError("nltk gave up")

    monkeypatch.setattr(_treebank_fast, "_nltk_tokenize", give_up)
    assert treebank_tokens("a``b  c") == [("a``b", 0, 4), ("c", 6, 7)]  # outside the domain: best effort
    assert treebank_tokens("a b.") == [("a", 0, 1), ("b", 2, 3), (".", 3, 4)]  # inside: exact as ever


def test_alignment_of_unexpected_words() -> None:
    assert _treebank_fast._align(" ab  cd", ["ab", "``", "zz", "cd"]) == [
        ("ab", 1, 3),
        ("``", 5, 5),
        ("zz", 5, 5),
        ("cd", 5, 7),
    ]


# --------------------------------------------------------------------------------------------------------
# the domain's character table: re and regex agree on every character it lets through


def _classes(engine: object, char: str) -> tuple[bool, ...]:
    return (
        bool(engine.match(r"\w", char)),
        bool(engine.match(r"\s", char)),
        bool(engine.match(r"\d", char)),
        bool(engine.match(r"(?i)[a-z]", char)),
    )


def test_non_ascii_table_is_engine_neutral() -> None:
    allowed = re.compile(f"[{_treebank_fast._NON_ASCII}]")
    special = set("«»“”‘’„\u2012\u2013\u2014\u2015")
    count = 0
    for code in range(0x80, sys.maxunicode + 1):
        char = chr(code)
        if not allowed.match(char):
            continue
        count += 1
        assert char not in special, hex(code)
        word, space, digit, ascii_fold = _classes(re, char)
        assert (word, space, digit, ascii_fold) == _classes(regex, char), hex(code)
        assert not (space or digit or ascii_fold or char.isspace()), hex(code)
        assert not any(c.isascii() for c in char.lower() + char.upper() + char.casefold()), hex(code)
    assert count > 30000


def test_whitespace_is_engine_neutral() -> None:
    # The domain's whitespace is exactly what Python's str, re and regex all call whitespace.
    spaces = set(_treebank_fast._SPACES)
    for code in range(sys.maxunicode + 1):
        char = chr(code)
        everywhere = char.isspace() and bool(re.match(r"\s", char)) and bool(regex.match(r"\s", char))
        assert (char in spaces) == everywhere, hex(code)


# --------------------------------------------------------------------------------------------------------
# generated text: English-like fragments with every construct nltk treats specially, and arbitrary text


def _words(text: str) -> list[str]:
    return text.split()


_FRAGMENTS = [
    # words and contraction pieces
    *_words("the cat Hello World x a I is was tis na more can not ye s t n d N T S"),
    *_words("don't can't won't I'm you'll they've it's 's cannot gonna gotta wanna 'tis 'twas d'ye more'n"),
    *_words("gimme lemme DON'T CANNOT Gonna n't 'll 're 've 'm 'd 'S 'LL 'RE N'T students' James' o'clock"),
    # numbers and abbreviations
    *_words("3.14 1,000 10:30 $5 50% 2,5 1. U.S. e.g. Mr. i.e. etc. D.C."),
    # quotes, brackets, dashes, ellipses, punctuation
    *_words("\" ' ` `` '' “ ” ‘ ’ « » „ ( ) [ ] { } < > - -- --- — – ‒ ― ... .. … .... , ; : ! ? @ # & * . % $"),
    # a little non-ASCII
    *_words("é naïve ß İ ı Ω € 🐾 \u0301"),
]
_WHITESPACE = [" ", " ", " ", " ", "  ", "\t", "\n", "\xa0", "\r\n"]
_ENDINGS = ["", "", ".", ".'", '."', ".)", ". ", '." ', ".\n", "?", ",", ":", "'", "...", ".”"]

_structured = st.builds(
    lambda parts, ending: "".join(parts) + ending,
    st.lists(
        st.one_of(
            st.sampled_from(_FRAGMENTS),
            st.sampled_from(_WHITESPACE),
            st.text(alphabet="abcdeilmnorstvwyNST059", min_size=1, max_size=6),
        ),
        max_size=24,
    ),
    st.sampled_from(_ENDINGS),
)


@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_structured)
def test_structured_text(sentence: str) -> None:
    check(sentence)


@settings(max_examples=500, deadline=None)
@given(st.text())
def test_arbitrary_text(sentence: str) -> None:
    check(sentence)
