"""The ``default`` segmentation profile: one table per rule, plus properties that hold for any text."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corral.text import _default_profile  # its skip of syntok, checked against syntok (the library it spares)
from corral.text._default_profile import paragraphs, sentences, words  # the profile's spans, level by level

from .._sizes import sized


def units(func, text: str) -> list[str]:
    return [text[a:b] for a, b in func(text)]


def check_spans(text: str, spans: list[tuple[int, int]]) -> None:
    """Valid, ordered, non-overlapping, non-empty, stripped substrings."""
    previous_end = 0
    for span in spans:
        assert isinstance(span, tuple) and len(span) == 2
        start, end = span
        assert isinstance(start, int) and isinstance(end, int)
        assert previous_end <= start < end <= len(text), (span, spans)
        unit = text[start:end]
        assert unit == unit.strip(), repr(unit)
        previous_end = end


# --------------------------------------------------------------------------------------------------
# Paragraph rules
# --------------------------------------------------------------------------------------------------

PARAGRAPH_RULES = {
    "P1 blank line separates": ("One.\n\nTwo.", ["One.", "Two."]),
    "P2 several blank lines are one break": ("One.\n\n\n\nTwo.", ["One.", "Two."]),
    "P3 CRLF blank line": ("One.\r\n\r\nTwo.\r\n", ["One.", "Two."]),
    "P3 old-Mac CR blank line": ("One.\r\rTwo.", ["One.", "Two."]),
    "P4 spaces/tabs-only line is blank": ("One.\n \t \nTwo.", ["One.", "Two."]),
    "P4 no-break-space-only line is blank": ("One.\n\u00a0\nTwo.", ["One.", "Two."]),
    "P5 single newline does not split": ("Line one\nline two.\nThree.", ["Line one\nline two.\nThree."]),
    "P5 single CRLF does not split": ("Line one\r\nline two.", ["Line one\r\nline two."]),
    "P6 paragraphs are stripped": ("  \tOne.  \n\n   Two.\t\n", ["One.", "Two."]),
    "P7 trailing newline: no empty paragraph": ("One.\n", ["One."]),
    "P7 trailing blank lines: no empty paragraph": ("One.\n\n\n \n", ["One."]),
    "P7 leading blank lines: no empty paragraph": ("\n\n\nOne.", ["One."]),
    "P8 whitespace-only text has none": (" \n\t\r\n \n ", []),
    "P8 empty text has none": ("", []),
}


@pytest.mark.parametrize(("text", "expected"), PARAGRAPH_RULES.values(), ids=PARAGRAPH_RULES.keys())
def test_paragraph_rules(text: str, expected: list[str]) -> None:
    assert units(paragraphs, text) == expected


# --------------------------------------------------------------------------------------------------
# Sentence rules
# --------------------------------------------------------------------------------------------------

SENTENCE_RULES = {
    "S1 period + capital ends": ("The cat sat. The dog ran.", ["The cat sat.", "The dog ran."]),
    "S1 ? ! ... + capital end": ("Really? Yes! Wait... Okay then.", ["Really?", "Yes!", "Wait...", "Okay then."]),
    "S1 ?! together": ("What?! No way.", ["What?!", "No way."]),
    "S1 inside a quotation too": (
        '"Do I sing? Oh, I am indifferent. Hark!"',
        ['"Do I sing?', "Oh, I am indifferent.", 'Hark!"'],
    ),
    "S1 ... + lowercase continues": ("I saw it... and then it left.", ["I saw it... and then it left."]),
    "S2 Dr. Mr. Mrs.": (
        "Dr. Smith met Mr. and Mrs. Jones. They talked.",
        ["Dr. Smith met Mr. and Mrs. Jones.", "They talked."],
    ),
    "S2 Mr. before a name": (
        "Mrs. Robinson smiled. Mr. Brown did not.",
        ["Mrs. Robinson smiled.", "Mr. Brown did not."],
    ),
    "S2 Prof. St. vs.": (
        "Prof. Brown lives in St. Louis, not vs. Chicago. Fine.",
        ["Prof. Brown lives in St. Louis, not vs. Chicago.", "Fine."],
    ),
    "S3 U.S. mid-sentence": (
        "She moved to the U.S. in 1990. Then she left.",
        ["She moved to the U.S. in 1990.", "Then she left."],
    ),
    "S3 e.g. i.e.": (
        "Bring tools, e.g. hammers, i.e. heavy ones. Fine.",
        ["Bring tools, e.g. hammers, i.e. heavy ones.", "Fine."],
    ),
    "S3 etc. mid-sentence": (
        "Bring pens, paper, etc. to class. Thanks.",
        ["Bring pens, paper, etc. to class.", "Thanks."],
    ),
    "S3 a.m. / Ph.D. mid-sentence": (
        "At 5 a.m. she got a Ph.D. in Rome. Good.",
        ["At 5 a.m. she got a Ph.D. in Rome.", "Good."],
    ),
    "S3 etc. at the end still ends": ("It was done, etc. The end.", ["It was done, etc.", "The end."]),
    # documented limitation (syntok's): after an abbreviation only a common sentence starter opens a sentence
    "S3 limitation: U.S. + capitalised non-starter": (
        "He lives in the U.S. He likes it.",
        ["He lives in the U.S. He likes it."],
    ),
    "S3 limitation: U.S. + sentence starter": (
        "He lives in the U.S. The weather is nice.",
        ["He lives in the U.S.", "The weather is nice."],
    ),
    "S4 initials": (
        "J. R. R. Tolkien wrote books. He died in 1973.",
        ["J. R. R. Tolkien wrote books.", "He died in 1973."],
    ),
    "S4 single initial": ("A. Lincoln was tall. He spoke.", ["A. Lincoln was tall.", "He spoke."]),
    "S5 decimals": ("Pi is about 3.14 today. Yes.", ["Pi is about 3.14 today.", "Yes."]),
    "S5 decimals before ?": ("What is 3.14? It is pi.", ["What is 3.14?", "It is pi."]),
    "S6 closing straight quote": ('He said "Go." Then he left.', ['He said "Go."', "Then he left."]),
    "S6 closing curly quote": ("He said \u201cGo.\u201d Then he left.", ["He said \u201cGo.\u201d", "Then he left."]),
    "S6 closing single quote": ("He said 'hello.' Then left.", ["He said 'hello.'", "Then left."]),
    "S6 closing bracket": ("(He left.) Then she came.", ["(He left.)", "Then she came."]),
    "S7 quote + lowercase continues": (
        '"Stop!" he shouted. They stopped.',
        ['"Stop!" he shouted.', "They stopped."],
    ),
    "S7 inner question continues": ('He asked "why?" and she shrugged.', ['He asked "why?" and she shrugged.']),
    "S8 never across paragraphs": ("He met Dr.\n\nSmith came.", ["He met Dr.", "Smith came."]),
    "S8 no terminal before the break": ("A title\n\nText here. More.", ["A title", "Text here.", "More."]),
    "S8 single newline is not a break": ("Line one\nline two. Next.", ["Line one\nline two.", "Next."]),
    "S9 semicolon never ends": ("I came; He left. Done.", ["I came; He left.", "Done."]),
    "trimmed": ("   Hello there.    General Kenobi.  ", ["Hello there.", "General Kenobi."]),
    "no terminal at all": ("one sentence without a period", ["one sentence without a period"]),
}


@pytest.mark.parametrize(("text", "expected"), SENTENCE_RULES.values(), ids=SENTENCE_RULES.keys())
def test_sentence_rules(text: str, expected: list[str]) -> None:
    assert units(sentences, text) == expected


SENTENCE_OFFSET_CASES = {
    "non-ASCII, a lone surrogate, a control character that is whitespace": (
        "Ça va? Oui. \u200bZéro\u200b largeur. \ud800 Fin. \x1c Ok.",
        ["Ça va?", "Oui.", "Zéro\u200b largeur.", "\ud800 Fin.", "Ok."],
    ),
    # zero-width spaces are not tokens: between sentences they belong to neither, at the paragraph's
    # edges they stay with its first/last sentence
    "zero-width spaces": ("\u200bHi. \u200b There.\u200b", ["\u200bHi.", "There.\u200b"]),
    "repeated sentences": ("Go. Go. Go.", ["Go.", "Go.", "Go."]),
    "n't is kept as written": ("I didn't. You did.", ["I didn't.", "You did."]),
}


@pytest.mark.parametrize(("text", "expected"), SENTENCE_OFFSET_CASES.values(), ids=SENTENCE_OFFSET_CASES.keys())
def test_sentence_offsets(text: str, expected: list[str]) -> None:
    assert units(sentences, text) == expected


# --------------------------------------------------------------------------------------------------
# Word rules
# --------------------------------------------------------------------------------------------------

WORD_RULES = {
    "W1 contractions and inner apostrophes": (
        "don't it's rock'n'roll O'Neill it\u2019s",
        ["don't", "it's", "rock'n'roll", "O'Neill", "it\u2019s"],
    ),
    "W1 outer apostrophes are not part": ("students' '90s", ["students", "90s"]),
    "W2 inner hyphens": ("well-known e-mail COVID-19", ["well-known", "e-mail", "COVID-19"]),
    "W3 dotted abbreviations keep their period": (
        "U.S. e.g. i.e. Ph.D. a.m. U.S.A.",
        ["U.S.", "e.g.", "i.e.", "Ph.D.", "a.m.", "U.S.A."],
    ),
    "W3 U.S. at the end of a sentence keeps its period": ("He lives in the U.S.", ["He", "lives", "in", "the", "U.S."]),
    "W4 trailing sentence period is dropped": ("That is the end.", ["That", "is", "the", "end"]),
    "W4 single-part abbreviations and initials drop it": (
        "Dr. Who etc. J. R. R. Tolkien",
        ["Dr", "Who", "etc", "J", "R", "R", "Tolkien"],
    ),
    "W5 decimals thousands times": (
        "3.14 1,000 1,000,000.50 10:30 3.",
        ["3.14", "1,000", "1,000,000.50", "10:30", "3"],
    ),
    "W5 comma between words splits": ("red,green", ["red", "green"]),
    "W6 currency attached to a number": ("$5 $5.50 \u20ac20 5\u20ac", ["$5", "$5.50", "\u20ac20", "5\u20ac"]),
    "W6 lone currency sign is not a word": ("$ and \u20ac", ["and"]),
    "W7 percent attached to a number": ("50% 2\u2030 (50 %)", ["50%", "2\u2030", "50"]),
    "W8 C++ and C#": ("C++ C# Notepad++ g++", ["C++", "C#", "Notepad++", "g++"]),
    "W9 quotes are not words": (
        "\"hi\" 'yo' \u201cno\u201d \u2018yes\u2019 \u00aboui\u00bb `x` \" ' \u201c \u00bb",
        ["hi", "yo", "no", "yes", "oui", "x"],
    ),
    "W10 dashes are not words": ("a - b \u2013 c \u2014 d -- e ---", ["a", "b", "c", "d", "e"]),
    "W10 dashes between words split": (
        "well--known 1990\u20132000 yes\u2014no",
        ["well", "known", "1990", "2000", "yes", "no"],
    ),
    "W10 punctuation-only tokens are not words": ("... !? ; : , . () [] & @ * / \\", []),
    "W10 punctuation around words is not part": ("(word), [other]; <x>!", ["word", "other", "x"]),
    "W11 Unicode letters": (
        "na\u00efve Stra\u00dfe \u041c\u043e\u0441\u043a\u0432\u0430 caf\u00e9",
        ["na\u00efve", "Stra\u00dfe", "\u041c\u043e\u0441\u043a\u0432\u0430", "caf\u00e9"],
    ),
    "W11 combining marks stay in the word": (
        "nai\u0308ve \u0939\u093f\u0928\u094d\u0926\u0940",
        ["nai\u0308ve", "\u0939\u093f\u0928\u094d\u0926\u0940"],
    ),
    "W12 Han and Hiragana: one character a word": ("東京は大きい", ["東", "京", "は", "大", "き", "い"]),
    "W12 CJK next to Latin and digits": ("2020年にTokyo", ["2020", "年", "に", "Tokyo"]),
    "W13 Katakana run is one word": ("コンピューターを使う", ["コンピューター", "を", "使", "う"]),
    "W14 emoji are not words": (
        "I \u2764\ufe0f \U0001f355 \U0001f600 1\ufe0f\u20e3 \U0001f44d\U0001f3fd \U0001f1fa\U0001f1f8",
        ["I"],
    ),
    "W14 emoji glued to words": ("hi\U0001f600there", ["hi", "there"]),
}


@pytest.mark.parametrize(("text", "expected"), WORD_RULES.values(), ids=WORD_RULES.keys())
def test_word_rules(text: str, expected: list[str]) -> None:
    assert units(words, text) == expected


# --------------------------------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------------------------------

# Fragments that exercise the rules: terminals, abbreviations, quotes, brackets, blank lines, CJK, emoji,
# whitespace of several kinds, control characters and a lone surrogate.
# fmt: off
FRAGMENTS = [
    "a", "The", "dog", " ", "  ", "\t", "\n", "\n\n", "\r\n", "\r", "\n \n", ".", "!", "?", "...", ";", ",",
    '"', "'", "\u201c", "\u201d", "(", ")", "[", "-", "--", "\u2014", "Dr.", "U.S.", "e.g.", "3.14", "1,000",
    "$5", "50%", "C++", "don't", "J. ", "\u00a0", "\u200b", "\x1c", "\x00", "\ud800", "東京", "コンピュータ",
    "\U0001f600", "\u0301", "\u3002", "\u2029", "\u0085",
]
# fmt: on

texts = st.one_of(
    st.text(),
    st.text(alphabet=st.characters(exclude_categories=())),  # includes surrogates
    st.lists(st.sampled_from(FRAGMENTS), max_size=40).map("".join),
)

ALL = (paragraphs, sentences, words)


@settings(max_examples=300)
@given(texts)
def test_units_are_valid_substrings(text: str) -> None:
    for func in ALL:
        check_spans(text, func(text))


@pytest.mark.parametrize("text", ["", "\ud800", "\udfff\ud800", "a\ud800b. C\udc00d.", "\x00\x1c\x1f", "\u200b"])
def test_never_raises_on_odd_text(text: str) -> None:
    for func in ALL:
        check_spans(text, func(text))


@settings(max_examples=200)
@given(texts)
def test_words_never_contain_whitespace(text: str) -> None:
    for start, end in words(text):
        assert not any(c.isspace() for c in text[start:end])


@settings(max_examples=200)
@given(texts)
def test_sentences_lie_within_paragraphs(text: str) -> None:
    paras = paragraphs(text)
    for start, end in sentences(text):
        assert any(p_start <= start and end <= p_end for p_start, p_end in paras), (start, end, paras)


@settings(max_examples=200)
@given(texts)
def test_paragraph_words_join_to_text_words(text: str) -> None:
    joined = []
    for p_start, p_end in paragraphs(text):
        joined.extend((p_start + a, p_start + b) for a, b in words(text[p_start:p_end]))
    assert joined == words(text)


@settings(max_examples=200)
@given(texts)
def test_paragraph_sentences_join_to_text_sentences(text: str) -> None:
    joined = []
    for p_start, p_end in paragraphs(text):
        joined.extend((p_start + a, p_start + b) for a, b in sentences(text[p_start:p_end]))
    assert joined == sentences(text)


@settings(max_examples=200)
@given(st.text(alphabet=st.characters(exclude_characters=".!?;([{\u3002\uff0e\uff01\uff1f\uff08\uff3b\uff5b")))
def test_paragraph_without_terminal_or_bracket_is_one_sentence_for_syntok_too(text: str) -> None:
    # sentences() skips syntok for such paragraphs; this checks that syntok agrees
    for start, end in paragraphs(text):
        if not _default_profile._MAY_SPLIT.search(text[start:end]):
            assert len(_default_profile._syntok_extents(text[start:end]) or [None]) == 1


def test_long_joined_runs_are_cut_not_crashing() -> None:
    assert units(words, "1," * 150 + "1") == ["1," * 150 + "1"]  # a long legitimate-looking word stays whole
    text = "1," * 2_000_000  # 4 MB without a break: cut into words of at most 201 parts
    spans = words(text)
    check_spans(text, spans)
    assert max(end - start for start, end in spans) <= 2 * 201


def test_megabytes_segment_exactly() -> None:
    """Millions of characters (3 million; full size: 10), split exactly as their repeated block."""
    block = (
        "Dr. Smith moved to the United States in 1990, e.g. to work for a large company in Boston, and he stayed "
        'there for almost twenty years before he finally returned home. He said "Go." Then he left the house '
        "and walked slowly down the long road towards the old harbour, thinking about what the U.S. had given him. "
        "Was it worth 3.14 million dollars, or $5 with 50% off? Nobody knew, and the C++ team didn't mind at all.\n"
        "A second line of the same paragraph \u2014 well-known, naïve and 東京 \u2014 closes it without a full stop\n\n"
    )
    size = sized(3_000_000, 10_000_000)
    text = block * (size // len(block) + 1)
    assert len(text) >= size
    paras = paragraphs(text)
    sents = sentences(text)
    ws = words(text)
    assert len(paras) == text.count("\n\n")
    assert len(sents) == 6 * len(paras)
    assert len(ws) == len(words(block)) * len(paras)
    assert paras[-1][1] == sents[-1][1] == ws[-1][1] == len(text) - 2
