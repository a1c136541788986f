"""Shipped CapSeg, AcroW and MTT data: every gold answer passes its strict checker, the splits are large enough
and disjoint, a rebuild from the shared sources gives the shipped bytes, and the two pure pieces (the subtitle
segmenter and the acrostic line picker) hold for arbitrary inputs."""

from __future__ import annotations

import itertools
import os
import re
from collections import Counter
from importlib.resources import files
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from scripts.formatbench.build_text import (
    BUILDERS,
    caption_breaks,
    caption_cost,
    caption_gold,
    mtt_items,
    pick_lines,
    segment_caption,
)

from corral.suites.formatbench import (
    MAX_LINE,
    MTT_WORD,
    check_format,
    data_file,
    encode_rows,
    find_term,
    load_instances,
    validate_row,
)

SHARED = Path(os.environ.get("CORRAL_SHARED_DATA", Path(__file__).resolve().parents[4] / "shared" / "data"))
needs_shared = pytest.mark.skipif(not (SHARED / "pd_text").is_dir(),
                                  reason="the public-domain sources (../shared/data/pd_text) are absent")
TASKS = ("capseg", "acrow", "mtt")
MINIMUM = {"capseg": {"test": 200, "train": 1000, "fewshot": 3}, "acrow": {"test": 150, "fewshot": 3},
           "mtt": {"test": 90, "fewshot": 3}}


def rows(task: str) -> list[dict]:
    return list(load_instances(task, split=None))


def _plain(gold: str) -> str:
    return " ".join(re.sub(r"<eo[lb]>", " ", gold).split())


# ------------------------------------------------------------------------------------------------ every row

@pytest.mark.parametrize("task", TASKS)
def test_every_row_validates_and_its_gold_passes_the_strict_checker(task):
    for row in rows(task):
        validate_row(task, row)
        verdict = check_format(task, row, row["gold"])
        assert verdict.passed, (row["id"], verdict.feedback)


@pytest.mark.parametrize("task", TASKS)
def test_split_sizes_and_ids(task):
    shipped = rows(task)
    counts = Counter(row["split"] for row in shipped)
    for split, least in MINIMUM[task].items():
        assert counts[split] >= least, (split, counts)
    assert counts["fewshot"] == 3
    assert set(counts) <= set(MINIMUM[task])
    ids = [row["id"] for row in shipped]
    assert len(set(ids)) == len(ids)
    for row in shipped:
        assert re.fullmatch(rf"{task}-{row['split']}-\d{{5}}", row["id"]), row["id"]
    file = files("corral.suites.formatbench").joinpath("data", data_file(task))
    assert len(file.read_bytes()) < 1_000_000


# ------------------------------------------------------------------------------------------------ capseg

def test_capseg_splits_share_no_sentence_and_no_document():
    shipped = rows("capseg")
    by_split = {split: {row["text"] for row in shipped if row["split"] == split} for split in MINIMUM["capseg"]}
    assert not by_split["test"] & (by_split["train"] | by_split["fewshot"])
    assert not by_split["train"] & by_split["fewshot"]
    documents = {split: {row["source"].split()[-1].split("#")[0] for row in shipped if row["split"] == split}
                 for split in MINIMUM["capseg"]}
    assert not documents["test"] & (documents["train"] | documents["fewshot"])
    assert len({row["text"] for row in shipped}) == len(shipped)


def test_capseg_rows_are_plain_sentences_and_gold_is_the_documented_segmentation():
    sources = Counter()
    for row in rows("capseg"):
        text = row["text"]
        assert 60 <= len(text) <= 200 and "<" not in text and ">" not in text and "\n" not in text
        assert row["input"] == f"Text: {text}"
        blocks = segment_caption(text)
        assert row["gold"] == caption_gold(blocks) and row["breaks"] == caption_breaks(blocks)
        assert _plain(row["gold"]) == text
        sources[row["source"].split()[-1].split("/")[0]] += 1
    assert sources["moby_dick"] >= 500 and sources["sotu"] >= 500
    fewshot = [row for row in rows("capseg") if row["split"] == "fewshot"]
    assert sorted(row["gold"].count("<eob>") for row in fewshot) == [1, 2, 3]


def test_capseg_gold_examples():
    assert caption_gold(segment_caption("Call me Ishmael.")) == "Call me Ishmael. <eob>"
    text = "The shimmering lake reflected the colors of the setting sun."
    assert caption_gold(segment_caption(text)) == ("The shimmering lake reflected <eol> the colors of the setting "
                                                   "sun. <eob>")
    text = "I think I see his impious end; but feel that I must help him to it."  # the break goes after the ';'
    assert caption_gold(segment_caption(text)) == ("I think I see his impious end; <eol> but feel that I must help "
                                                   "him to it. <eob>")
    with pytest.raises(ValueError):
        segment_caption("a " + "x" * (MAX_LINE + 1))


_WORD_CHARS = st.characters(categories=("L", "N", "P", "S"), exclude_characters="<>")
_CAPTION_WORDS = st.lists(st.text(_WORD_CHARS, min_size=1, max_size=MAX_LINE), min_size=1, max_size=60)


@given(_CAPTION_WORDS)
def test_segmenter_output_always_passes_and_gives_the_sentence_back(words):
    sentence = " ".join(words)
    gold = caption_gold(segment_caption(sentence))
    verdict = check_format("capseg", {"id": "h", "text": sentence}, gold)
    assert verdict.passed, (sentence, gold, verdict.feedback)
    assert check_format("capseg", {"id": "h", "text": sentence}, gold, "reference").passed
    assert _plain(gold) == sentence
    assert gold.endswith(" <eob>")


def _every_segmentation(words: list[str]):
    """Every way to cut ``words`` into blocks of 1 or 2 lines of at most MAX_LINE characters."""
    for gaps in itertools.product((None, "<eol>", "<eob>"), repeat=len(words) - 1):
        blocks = [[[words[0]]]]
        for gap, word in zip(gaps, words[1:], strict=True):
            if gap is None:
                blocks[-1][-1].append(word)
            elif gap == "<eol>":
                blocks[-1].append([word])
            else:
                blocks.append([[word]])
        lines = [[" ".join(line) for line in block] for block in blocks]
        if all(len(block) <= 2 and all(len(line) <= MAX_LINE for line in block) for block in lines):
            yield lines


@given(st.lists(st.sampled_from(["a", "the", "sea,", "whale", "Ahab.", "harpooneer", "of", "and", "to", "I",
                                 "unconditionally", "mast-head;", "whiteness", "(so)"]), min_size=1, max_size=9))
def test_segmenter_finds_the_least_cost_segmentation(words):
    best = min(caption_cost(blocks) for blocks in _every_segmentation(words))
    assert caption_cost(segment_caption(" ".join(words))) == best


# ------------------------------------------------------------------------------------------------ acrow

def test_acrow_targets_and_found_poems():
    shipped = rows("acrow")
    targets = [row["target"] for row in shipped]
    assert len(set(targets)) == len(targets)
    assert sum(" " in row["target"] for row in shipped if row["split"] == "test") >= 10
    assert any(" " in row["target"] for row in shipped if row["split"] == "fewshot")
    lines = [line for row in shipped for line in row["gold"].split("\n")]
    assert len(set(lines)) == len(lines)  # no sentence is used twice, so few-shot and test share none
    for row in shipped:
        target = row["target"]
        assert re.fullmatch(r"[a-z]+( [a-z]+)?", target) and 4 <= len(target.replace(" ", "")) <= 8
        assert row["input"] == f"Word: {target}"
        poem = row["gold"].split("\n")
        assert len(poem) == len(target.replace(" ", ""))
        assert all(15 <= len(line) <= 100 and line[0].lower() == letter
                   for line, letter in zip(poem, target.replace(" ", ""), strict=True))
        assert len(row["source"].split(";")) == len(poem)


_LINE_TAIL = st.text(st.characters(codec="ascii", categories=("L", "N", "P", "Zs")), max_size=30)


@given(st.data(), st.text(st.sampled_from("abcdefghijklmnopqrstuvwxyz"), min_size=1, max_size=8),
       st.booleans())
def test_pick_lines_always_spells_the_target(data, letters, spaced):
    target = f"{letters[:len(letters) // 2]} {letters[len(letters) // 2:]}".strip() if spaced else letters
    pool = {letter: data.draw(st.lists(_LINE_TAIL.map(lambda tail, c=letter: c.upper() + tail),
                                       min_size=len(letters), unique=True))
            for letter in sorted(set(letters))}
    poem = pick_lines(target, pool)
    assert poem is not None and poem == pick_lines(target, pool)  # pure: the same answer every time
    assert all(line in pool[letter] for line, letter in zip(poem, letters, strict=True))
    assert len(set(poem)) == len(poem)
    assert check_format("acrow", {"id": "h", "target": target}, "\n".join(poem)).passed
    assert pick_lines(target, pool, avoid={poem[0]}) != poem


def test_pick_lines_gives_none_when_a_letter_has_no_line_left():
    pool = {"s": ["Sea.", "Sky."], "e": ["East."], "a": ["Ahoy."]}
    assert pick_lines("sea", pool) is not None
    assert pick_lines("seas", pool) == ["Sea.", "East.", "Ahoy.", "Sky."]
    assert pick_lines("sea", pool, avoid={"East."}) is None
    assert pick_lines("sex", pool) is None


# ------------------------------------------------------------------------------------------------ mtt

def test_every_mtt_item_uses_its_terms():
    table = mtt_items()
    items = table["items"]
    assert len({item["id"] for item in items}) == len(items) and set(table["fewshot"]) <= {i["id"] for i in items}
    assert len({item["de"] for item in items}) == len(items)
    assert len({item["domain"] for item in items}) >= 8
    for item in items:
        assert 8 <= len(MTT_WORD.findall(item["de"])) <= 30, item["id"]
        assert 1 <= len(item["terms"]) <= 3, item["id"]
        for de, en in item["terms"].items():
            assert find_term(de, item["de"]) is not None, (item["id"], de)
            assert find_term(en, item["en"]) is not None, (item["id"], en)


def test_mtt_rows_carry_the_reference_and_the_terms():
    for row in rows("mtt"):
        assert row["references"] == [row["gold"]]
        assert row["input"].startswith(f"German: {row['src']}\nTerms: ")
        for de, en in row["terms"].items():
            assert f"{de} → {en}" in row["input"]


# ------------------------------------------------------------------------------------------------ rebuild

@needs_shared
@pytest.mark.parametrize("task", TASKS)
def test_a_rebuild_gives_the_shipped_bytes(task):
    shipped = files("corral.suites.formatbench").joinpath("data", data_file(task)).read_bytes()
    assert encode_rows(BUILDERS[task](SHARED)) == shipped
