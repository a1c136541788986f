"""FormatBench's copy grammars (NER, CapSeg, Parse) and the ``tokens`` form of the NER and Parse instances.

Each grammar is exact: texts drawn from it pass the strict checker (``assert_sound``), it accepts every shipped
gold answer, and on small inputs, among all texts in the grammar's own layout (its spacing, its markup), it
accepts exactly those the checker passes.
"""

from __future__ import annotations

import itertools
import json
import random

import pytest

from corral.grammars import EOS, NotExpressible, accepts, sample
from corral.suites.formatbench import (
    MAX_LINE,
    InstanceError,
    check_format,
    format_grammar,
    get_format_task,
    line_starts,
    load_instances,
)

from .soundness import assert_sound

TASKS = ("ner", "capseg", "parse")


@pytest.fixture(scope="module")
def shipped():
    return {task: list(load_instances(task, "test")) for task in TASKS}


# ----------------------------------------------------------------------------------------- shipped instances
@pytest.mark.parametrize("task", TASKS)
def test_sound_on_shipped(task, shipped):
    assert get_format_task(task).enforcement == "exact"
    rows = shipped[task][:: len(shipped[task]) // 20][:20]  # 20 spread over the split
    assert assert_sound(task, rows, per_instance=20) >= 18 * 20


@pytest.mark.parametrize("task", TASKS)
def test_gold_accepted(task, shipped):
    """Recall: every shipped test gold that passes the strict checker is a text of its grammar (all do: 500 NER,
    300 CapSeg, 263 Parse)."""
    rows = [row for row in shipped[task] if check_format(task, row, row["gold"]).passed]
    assert len(rows) == len(shipped[task])
    rejected = [row["id"] for row in rows if not accepts(format_grammar(task, row).grammar, row["gold"])]
    assert not rejected, rejected[:5]


def _wordy(seed: int, breaks: float = 0.1):
    """A walk that rarely breaks a line (``<`` starts every marker and tag), so lines run to the length limit."""
    rng = random.Random(seed)

    def choose(allowed: list[int]) -> int:
        others = [b for b in allowed if b != EOS] or allowed
        plain = [b for b in others if b != ord("<")]
        if plain and (len(plain) == len(others) or rng.random() > breaks):
            return rng.choice(plain)
        return rng.choice(others)

    return choose


def test_capseg_long_lines_sound(shipped):
    """Drawn with few breaks, lines reach the 42-character limit and none passes it."""
    longest = 0
    for row in shipped["capseg"][:15]:
        grammar = format_grammar("capseg", row).grammar
        for seed in range(4):
            text = sample(grammar, _wordy(seed), max_bytes=4000, strict=True)
            assert text is not None
            verdict = check_format("capseg", row, text)
            assert verdict.passed, (text, verdict.feedback)
            lines = [line.strip() for block in text.split("<eob>") for line in block.split("<eol>")]
            longest = max(longest, *map(len, lines))
    assert longest >= MAX_LINE - 2


# ------------------------------------------------------------------------------- exact on small inputs, both ways
CAPSEG_WORDS = ["Sometimes", "we", "need", "twelve-letter", "words", "extraordinarily", "long-winded"]


def test_capseg_exact_in_its_layout():
    """All 3^6 ways to put nothing, <eol> or <eob> between seven words: the grammar accepts exactly the texts
    the checker passes (351; 33 break the line limit, 352 the two lines per block)."""
    row = {"id": "c", "text": " ".join(CAPSEG_WORDS)}
    grammar = format_grammar("capseg", row).grammar
    passed = 0
    for seps in itertools.product((" ", " <eol> ", " <eob> "), repeat=len(CAPSEG_WORDS) - 1):
        text = CAPSEG_WORDS[0] + "".join(s + w for s, w in zip(seps, CAPSEG_WORDS[1:], strict=True)) + " <eob>"
        verdict = check_format("capseg", row, text)
        assert accepts(grammar, text) == verdict.passed, (text, verdict.feedback)
        passed += verdict.passed
    assert passed == 351


def test_capseg_line_limit_at_the_edge():
    words = ["a" * 20, "b" * 21, "c"]  # 20 + 1 + 21 = 42 characters: one line; with "c", 44
    row = {"id": "c", "text": " ".join(words)}
    grammar = format_grammar("capseg", row).grammar
    assert line_starts(words) == [0, 0, 1]
    assert accepts(grammar, f"{words[0]} {words[1]} <eol> c <eob>")
    assert not accepts(grammar, f"{words[0]} {words[1]} c <eob>")
    assert not accepts(grammar, f"{words[0]} <eol> {words[1]} <eol> c <eob>")  # three lines in a block
    assert accepts(grammar, f"{words[0]} <eol> {words[1]} <eob> c <eob>")
    assert not accepts(grammar, f"{words[0]} {words[1]} <eol> c")  # no final <eob>


def _ner_texts(words, tags):
    """Every text in the NER grammar's layout: runs of tokens, each plain or one entity, one space between."""
    def go(k):
        if k == len(words):
            yield []
            return
        for end in range(k + 1, len(words) + 1):
            run = " ".join(words[k:end])
            for rest in go(end):
                for tag in tags:
                    yield [f"<{tag}>{run}</{tag}>", *rest]
                if end == k + 1:
                    yield [run, *rest]
    for units in go(0):
        yield " ".join(units)


@pytest.mark.parametrize("gold", ["<PER>John Smith</PER> lives in Paris .", "John Smith lives in Paris .", None])
def test_ner_exact_in_its_layout(gold):
    """All taggings of five tokens with two tags: accepted exactly when the checker passes them (with gold
    entities, an untagged answer fails)."""
    row = {"id": "n", "text": "John Smith lives in Paris", "tags": ["PER", "LOC"], "gold": gold}
    grammar = format_grammar("ner", row).grammar
    texts = list(_ner_texts(row["text"].split(), ["PER", "LOC"]))
    assert len(texts) > 200
    for text in texts:
        verdict = check_format("ner", row, text)
        assert accepts(grammar, text) == verdict.passed, (text, verdict.feedback)
    for text in ("<PER>John <LOC>Smith</LOC></PER> lives in Paris", "<ORG>John</ORG> Smith lives in Paris",
                 "<PER></PER> John Smith lives in Paris", "<PER>John Smith</LOC> lives in Paris"):
        assert not accepts(grammar, text) and not check_format("ner", row, text).passed


def test_one_token_inputs():
    ner = format_grammar("ner", {"id": "n", "text": "Paris", "gold": "<LOC>Paris</LOC>"}).grammar
    assert accepts(ner, "<LOC>Paris</LOC>") and accepts(ner, "<MISC>Paris</MISC>") and not accepts(ner, "Paris")
    capseg = format_grammar("capseg", {"id": "c", "text": "Hello."}).grammar
    assert accepts(capseg, "Hello. <eob>") and not accepts(capseg, "Hello. <eol> <eob>")
    parse = format_grammar("parse", {"id": "p", "sentence": "Hello"}).grammar
    assert accepts(parse, "(UH Hello)") and accepts(parse, "(INTJ (UH Hello))") and not accepts(parse, "(S Hello)")


@pytest.mark.parametrize(("task", "row", "reason"), [
    ("ner", {"id": "n", "text": "see <b> here"}, "reads as a tag"),
    ("ner", {"id": "n", "text": "John", "tags": ["B:PER"], "gold": "<PER>John</PER>"}, "no tag"),
    ("ner", {"id": "n", "text": "  "}, "no tokens"),
    ("capseg", {"id": "c", "text": "a " + "x" * (MAX_LINE + 1)}, "longer than a line"),
    ("capseg", {"id": "c", "text": "a <i> b"}, "reads as a marker"),
    ("parse", {"id": "p", "tokens": ["a", "(b)"]}, "cannot be a leaf"),
    ("parse", {"id": "p", "tokens": ["New York", "."]}, "cannot be a leaf"),
])
def test_inputs_without_a_passing_answer(task, row, reason):
    with pytest.raises(NotExpressible, match=reason):
        format_grammar(task, row)


def test_ner_without_usable_tags_copies_the_text():
    row = {"id": "n", "text": "John lives here", "tags": ["B:PER"], "gold": "John lives here"}
    grammar = format_grammar("ner", row).grammar
    assert accepts(grammar, "John lives here") and check_format("ner", row, "John lives here").passed


# ------------------------------------------------------------------------------------------- the tokens form
NER_TOKENS = ["John", "Smith", "lives", "in", "Paris", "."]
NER_GOLD = "<PER>John Smith</PER> lives in <LOC>Paris</LOC> ."
PARSE_TOKENS = ["The", "cat", "sat", "."]
PARSE_GOLD = "(S (NP (DT The) (NN cat)) (VP (VBD sat)) (. .))"


def _forms(tokens):
    """A list, a JSON string and a Python list literal (what a table export writes)."""
    return [tokens, json.dumps(tokens), repr(tokens)]


@pytest.mark.parametrize("tokens", _forms(NER_TOKENS))
def test_ner_tokens_only(tokens):
    row = {"id": "n", "tokens": tokens, "gold": NER_GOLD}
    assert check_format("ner", row, NER_GOLD).passed
    assert check_format("ner", row, NER_GOLD, "reference").passed
    assert "the text must be the input unchanged" in check_format("ner", row, NER_GOLD.replace("Smith", "Smyth")
                                                                 ).feedback
    assert "marks no entity" in check_format("ner", row, " ".join(NER_TOKENS)).feedback
    grammar = format_grammar("ner", row).grammar
    assert accepts(grammar, NER_GOLD) and not accepts(grammar, " ".join(NER_TOKENS))
    assert assert_sound("ner", [row], per_instance=10) >= 8


def test_ner_tags_as_a_string():
    row = {"id": "n", "tokens": json.dumps(NER_TOKENS), "tags": "['PER', 'LOC']", "gold": NER_GOLD}
    assert check_format("ner", row, NER_GOLD).passed
    assert "<ORG> is not an entity tag; use PER, LOC." in check_format("ner", row, NER_GOLD.replace(
        "LOC", "ORG")).feedback
    assert not accepts(format_grammar("ner", row).grammar, NER_GOLD.replace("LOC", "ORG"))


@pytest.mark.parametrize("tokens", _forms(PARSE_TOKENS))
def test_parse_tokens_only(tokens):
    row = {"id": "p", "tokens": tokens}
    assert check_format("parse", row, PARSE_GOLD).passed
    assert "word 2 is 'dog', the sentence has 'cat'" in check_format("parse", row, PARSE_GOLD.replace("cat", "dog")
                                                                     ).feedback
    assert "labels a phrase" in check_format("parse", row, PARSE_GOLD.replace("(S ", "(NN ")).feedback
    grammar = format_grammar("parse", row).grammar
    assert accepts(grammar, PARSE_GOLD) and not accepts(grammar, PARSE_GOLD.replace("cat", "dog"))
    assert assert_sound("parse", [row], per_instance=10) >= 8


def test_tokens_win_over_the_text():
    """With both, the checker reads ``tokens`` (the shipped rows hold both, equal); so does the grammar."""
    row = {"id": "p", "sentence": "A cat sat .", "tokens": PARSE_TOKENS}
    assert check_format("parse", row, PARSE_GOLD).passed and accepts(format_grammar("parse", row).grammar,
                                                                      PARSE_GOLD)


@pytest.mark.parametrize(("task", "fields"), [("ner", "text, tokens"), ("parse", "sentence, tokens")])
def test_input_missing_or_malformed(task, fields):
    with pytest.raises(InstanceError, match=f"{task} instance x1: missing field .* needs one of {fields}"):
        check_format(task, {"id": "x1", "gold": "a"}, "a")
    for bad in ("The cat sat .", "['The', 'cat'", "[1, [2]]", '{"a": 1}'):
        with pytest.raises(InstanceError, match=f"{task} instance x2: field 'tokens' must be a list of strings"):
            check_format(task, {"id": "x2", "tokens": bad}, "(S (NN a))")
