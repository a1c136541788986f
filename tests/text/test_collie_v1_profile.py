"""The collie-v1 profile on Corral's fast tokenizers equals the same rules on nltk itself, unit for unit."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from corral.text import Level, Segmentation, get_profile, segment
from corral.text._collie_v1 import _one_sentence
from corral.text._punkt_fast import punkt_spans

LEVELS = [Level.CHAR, Level.WORD, Level.SENTENCE, Level.PARAGRAPH, Level.PASSAGE]
PROFILE = get_profile("collie-v1")
split = PROFILE.split
reference_split = get_profile("collie-v1-nltk").split  # the same rules on nltk, the library the fast path replaces


def values(units):
    return [v for v, _, _ in units]


def assert_same(text: str) -> None:
    for level in LEVELS:
        fast = split(text, level)
        assert values(fast) == values(reference_split(text, level)), (level, text[:200])
        for value, start, end in fast:
            assert 0 <= start <= end <= len(text)
            if level is not Level.WORD:
                assert text[start:end] == value
        # split_at: the same units with offsets from a base (a unit's units, without moving them afterwards)
        assert PROFILE.split_at(text, level, 11) == [(v, a + 11, b + 11) for v, a, b in fast], (level, text[:200])
    if _one_sentence(text):  # the shortcuts' premise: Punkt would give the text back whole
        assert punkt_spans(text) == [(0, len(text))], text[:200]
    assert_last_word(text)
    for sentence, _, _ in split(text, Level.SENTENCE):
        assert_last_word(sentence)


def assert_last_word(text: str, base: int = 3) -> bool:
    """unit_at finds the first and the last word from the ends of the text alone, or declines; either way they are
    the split's. True when it took the shortcut to the last word."""
    words = PROFILE.split_at(text, Level.WORD, base)
    assert PROFILE.count_of(text, Level.WORD) in (NotImplemented, len(words)), text[:200]
    first = PROFILE.unit_at(text, Level.WORD, 0, base)
    assert first is NotImplemented or first == (words[0] if words else None), text[:200]
    found = PROFILE.unit_at(text, Level.WORD, -1, base)
    if found is NotImplemented:
        return False
    assert found == (words[-1] if words else None), text[:200]
    return True


def test_dev_generations_and_examples_unit_for_unit(dev_generations, collie_rows):
    texts = [r["text"] for r in dev_generations] + [r["example"] for r in collie_rows]
    shortcuts = sentences = 0
    for text in texts:
        assert_same(text)
        # nested units are the split of the (stripped) parent unit
        for sentence, _, _ in split(text, Level.SENTENCE):
            assert values(split(sentence, Level.WORD)) == values(reference_split(sentence, Level.WORD))
            shortcuts += assert_last_word(sentence)
            sentences += 1
        for paragraph, _, _ in split(text, Level.PARAGRAPH):
            assert values(split(paragraph, Level.SENTENCE)) == values(reference_split(paragraph, Level.SENTENCE))
    assert shortcuts > 0.9 * sentences  # the last word of a sentence is nearly always found from its end


def test_reference_rules():
    text = 'Mr. Smith said "don\'t..." -- twice.\n\nThen he left. '
    assert values(split(text, Level.SENTENCE)) == ["Mr", 'Smith said "don\'t..." -- twice', "Then he left"]
    assert values(split(text, Level.WORD)) == ["Mr", "Smith", "said", "``", "do", "n't", "", "''", "--", "twice",
                                               "Then", "he", "left"]
    assert values(split(text, Level.PARAGRAPH)) == ['Mr. Smith said "don\'t..." -- twice', "Then he left"]
    assert values(split("a\n\n\n\nb", Level.PARAGRAPH)) == ["a", "", "b"]
    assert len(split("a b.", Level.CHAR)) == 4 and values(split("a b.", Level.CHAR))[1] == ""


def test_word_offsets_point_at_the_source():
    text = 'He said "hi" to Dr. No.'
    words = segment(text, "word", "collie-v1")
    assert [(w.text, text[w.start:w.end]) for w in words][:5] == [
        ("He", "He"), ("said", "said"), ("``", '"'), ("hi", "hi"), ("''", '"')]


hard_text = st.lists(st.sampled_from([
    "Mr.", "Dr.", "U.S.", "e.g.", "etc.", "J.", "3.14", "1.", "...", "?!", ".\"", ".)", ".'", "“quoted”", "don't",
    "can't", "cannot", "gonna", "(a)", "--", "—", "A", "the", "end.", "Hello", "world", "\n\n", "\n", "  ", "\t",
    "naïve", "東京", "'", '"', "`", "$5", "50%", "a,b", "10:30", "x;y",
]), max_size=40).map(" ".join)


@settings(max_examples=300)
@given(hard_text)
def test_hard_text_unit_for_unit(text):
    assert_same(text)


@settings(max_examples=200)
@given(st.text(max_size=200))
def test_any_text_unit_for_unit(text):
    assert_same(text)


def test_last_word_shortcut():
    unit_at = PROFILE.unit_at
    assert unit_at("Then he left", Level.WORD, -1, 5) == ("left", 13, 17)
    assert unit_at("Did he leave?", Level.WORD, -1, 0) == ("leave", 7, 12)  # a final mark: Punkt gives it whole
    assert unit_at("He left!?", Level.WORD, -1, 0) is NotImplemented
    assert unit_at('He said "no" (twice) --', Level.WORD, -1, 0) == ("--", 21, 23)  # not in string.punctuation
    assert unit_at("He said \"no\" (twice)", Level.WORD, -1, 0) == ("twice", 14, 19)
    assert unit_at("Dr. No", Level.WORD, -1, 0) is NotImplemented  # Punkt might split it: the whole split
    assert unit_at("a ``b", Level.WORD, -1, 0) is NotImplemented  # outside the fast tokenizer's domain
    assert unit_at("-;(", Level.WORD, -1, 0) is None  # no word at all
    assert unit_at("Then he left", Level.WORD, 1, 0) is NotImplemented
    assert unit_at("- ; , a", Level.WORD, -1, 0) == ("a", 6, 7)
    assert unit_at("a - ; ,", Level.WORD, -1, 0) is NotImplemented  # no word after the last space: the split
    assert unit_at("Then he left", Level.WORD, 0, 5) == ("Then", 5, 9)
    assert unit_at("(Then) he left", Level.WORD, 0, 0) == ("Then", 1, 5)
    assert unit_at("(“Then” he left", Level.WORD, 0, 0) == ("“", 1, 2)  # curly quotes are words
    assert unit_at("Then. he left", Level.WORD, 0, 0) is NotImplemented
    assert unit_at("- - he left", Level.WORD, 0, 0) == ("he", 4, 6)
    assert unit_at("Then -", Level.WORD, 0, 0) is NotImplemented  # no space before a letter or digit
    seg = Segmentation("Then he left. We ran far", "collie-v1")
    first, second = seg.units(Level.SENTENCE)
    assert seg.unit(Level.WORD, second, -1) == ("far", 21, 24) == seg.units(Level.WORD, second)[-1]
    assert seg.unit(Level.WORD, first, 0) == ("Then", 0, 4) and seg.unit(Level.WORD, first, 5) is None
    assert seg.unit(Level.WORD, first, -4) is None


def test_counting_words_without_building_them():
    count_of = PROFILE.count_of
    text = 'He said "no" (twice) -- ok'
    assert count_of(text, Level.WORD) == 8 == len(split(text, Level.WORD))  # " makes words, ( ) do not, -- does
    assert count_of("I can't go", Level.WORD) is NotImplemented  # a clitic: the split
    assert count_of("We gonna go", Level.WORD) is NotImplemented  # a contraction: the split
    assert count_of("Dr. No", Level.WORD) is NotImplemented  # Punkt might split it
    assert count_of("a ``b", Level.WORD) is NotImplemented  # outside the fast tokenizer's domain
    assert count_of("a b", Level.SENTENCE) is NotImplemented
    seg = Segmentation("One two three. Four five", "collie-v1", counted=frozenset({Level.WORD}))
    first, second = seg.units(Level.SENTENCE)
    assert seg.count(Level.WORD, second) == 2 and seg.count(Level.WORD, first) == 3
    assert (Level.WORD, second) not in seg._cache  # counted, not split


def test_segmentation_caches_and_counts_lazily():
    seg = Segmentation("One two. Three four five.", "collie-v1")
    assert seg.count(Level.WORD) == 5
    assert seg.count(Level.CHAR) == len(seg.text)
    assert seg.units(Level.WORD) is seg.units(Level.WORD)
    sentences = seg.units(Level.SENTENCE)
    assert [v for v, _, _ in seg.units(Level.WORD, sentences[1])] == ["Three", "four", "five"]
    assert seg.units(Level.WORD, sentences[1])[0][1:] == (9, 14)
