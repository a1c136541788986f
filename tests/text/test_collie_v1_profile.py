"""The collie-v1 profile on Corral's fast tokenizers equals the same rules on nltk itself, unit for unit."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from corral.text import Level, Segmentation, get_profile, segment

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


def test_dev_generations_and_examples_unit_for_unit(dev_generations, collie_rows):
    texts = [r["text"] for r in dev_generations] + [r["example"] for r in collie_rows]
    for text in texts:
        assert_same(text)
        # nested units are the split of the (stripped) parent unit
        for sentence, _, _ in split(text, Level.SENTENCE):
            assert values(split(sentence, Level.WORD)) == values(reference_split(sentence, Level.WORD))
        for paragraph, _, _ in split(text, Level.PARAGRAPH):
            assert values(split(paragraph, Level.SENTENCE)) == values(reference_split(paragraph, Level.SENTENCE))


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


def test_segmentation_caches_and_counts_lazily():
    seg = Segmentation("One two. Three four five.", "collie-v1")
    assert seg.count(Level.WORD) == 5
    assert seg.count(Level.CHAR) == len(seg.text)
    assert seg.units(Level.WORD) is seg.units(Level.WORD)
    sentences = seg.units(Level.SENTENCE)
    assert [v for v, _, _ in seg.units(Level.WORD, sentences[1])] == ["Three", "four", "five"]
    assert seg.units(Level.WORD, sentences[1])[0][1:] == (9, 14)
