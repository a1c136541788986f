"""The shipped ner, parse, mcq and eqa instances (UNER / UD English EWT, GUM): every gold passes the strict checker,
the splits are large enough and disjoint, a rebuild gives the shipped bytes, and the builders' helpers hold."""

from __future__ import annotations

import re
from collections import Counter
from importlib.resources import files
from itertools import pairwise
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nltk import Tree
from scripts.formatbench.build_ud import (
    BUILDERS,
    align,
    entity_spans,
    mcq_input,
    normalise_tree,
    one_line,
    questions,
    read_conllu,
    tag_tokens,
)

from corral.suites.formatbench import CLAUSE, PHRASE, WORD, check_format, encode_rows, load_instances, validate_row

SHARED = Path(__file__).resolve().parents[4] / "shared" / "data"
needs_shared = pytest.mark.skipif(not SHARED.is_dir(), reason="the source treebanks (../shared/data) are absent")
TASKS = ("ner", "parse", "mcq", "eqa")
MINIMUM = {"ner": {"test": 200, "train": 1000, "fewshot": 3}, "parse": {"test": 150, "fewshot": 3},
           "mcq": {"test": 300, "train": 1000, "fewshot": 4}, "eqa": {"test": 200, "train": 500, "fewshot": 3}}


def rows_of(task: str) -> list[dict]:
    return list(load_instances(task, split=None))


def by_source(task: str, source: str) -> dict:
    return next(row for row in rows_of(task) if row["source"] == source)


# --- the shipped rows ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("task", TASKS)
def test_every_row_validates_and_its_gold_passes_strictly(task):
    for row in rows_of(task):
        validate_row(task, row)
        verdict = check_format(task, row, row["gold"])
        assert verdict.passed, (row["id"], verdict.feedback)
        assert row["input"] and row["source"] and "#" in row["source"]


@pytest.mark.parametrize("task", TASKS)
def test_splits_are_large_enough_ids_unique_and_fewshot_apart_from_test(task):
    rows = rows_of(task)
    counts = Counter(row["split"] for row in rows)
    for split, least in MINIMUM[task].items():
        assert counts[split] >= least, (split, counts)
    ids = [row["id"] for row in rows]
    assert len(set(ids)) == len(ids)
    assert all(re.fullmatch(rf"{task}-{row['split']}-\d{{5}}", row["id"]) for row in rows)
    inputs = {split: {row["input"] for row in rows if row["split"] == split} for split in counts}
    assert not inputs["fewshot"] & inputs["test"]
    assert not inputs["fewshot"] & inputs.get("train", set())
    assert len({row["source"] for row in rows}) == len(rows)


def test_ner_rows():
    rows = rows_of("ner")
    test = [row for row in rows if row["split"] == "test"]
    assert 0.6 <= sum(bool(row["entities"]) for row in test) / len(test) < 1  # some sentences have no entity
    assert all(row["tags"] == ["PER", "ORG", "LOC"] for row in rows)
    assert all(len(row["tokens"]) <= 60 and row["text"] == " ".join(row["tokens"]) for row in rows)
    fewshot = [row for row in rows if row["split"] == "fewshot"]
    assert len({label for row in fewshot for label, _ in row["entities"]}) >= 2
    assert all(row["source"].startswith("en_ewt-ud-dev.iob2#") for row in fewshot)
    assert {row["source"].split("#")[0] for row in test} == {"en_ewt-ud-test.iob2"}
    for row in rows:  # the entities are the tagged spans of the gold
        tagged = re.findall(r"<(PER|ORG|LOC)>(.*?)</\1>", row["gold"])
        assert [list(pair) for pair in tagged] == row["entities"]


def test_ner_hand_checked():
    row = by_source("ner", "en_ewt-ud-test.iob2#answers-20111106103415AAqdokn_ans-0012")
    assert row["split"] == "test"
    assert row["gold"] == "The latest spot for a real <ORG>Hackney 's</ORG> is <LOC>Printers ' Row</LOC> :"
    assert row["input"] == "Sentence: The latest spot for a real Hackney 's is Printers ' Row :"
    assert row["entities"] == [["ORG", "Hackney 's"], ["LOC", "Printers ' Row"]]


def test_parse_rows():
    rows = rows_of("parse")
    for row in rows:
        tree = Tree.fromstring(row["gold"])
        assert tree.leaves() == row["tokens"] and row["sentence"] == " ".join(row["tokens"])
        assert 5 <= len(row["tokens"]) <= 25
        assert tree.label() != "ROOT" and "\n" not in row["gold"]
        assert all(node.label() in WORD or node.label() in CLAUSE + PHRASE for node in tree.subtrees())
    assert all(len(row["tokens"]) <= 10 for row in rows if row["split"] == "fewshot")
    test_docs = {row["source"].split("#")[0] for row in rows if row["split"] == "test"}
    assert "GUM_academic_discrimination.ptb" in test_docs
    assert not test_docs & {row["source"].split("#")[0] for row in rows if row["split"] != "test"}


def test_parse_hand_checked():
    row = by_source("parse", "GUM_academic_eegimaa.ptb#23")
    assert row["gold"] == ("(NP (NP (NN Map)) (PP (IN of) (NP (DT the) (ADJP (NNP Eegimaa) (VBG speaking)) "
                           "(NN area))))")
    assert row["input"] == "Sentence: Map of the Eegimaa speaking area"


def test_mcq_rows():
    rows = rows_of("mcq")
    labels = rows[0]["labels"]
    assert labels == sorted(labels) and 45 <= len(labels) <= 52 and {"NN", "VBZ", "-LRB-", "HYPH"} <= set(labels)
    assert all(row["labels"] == labels and row["gold"] in labels for row in rows)
    test = [row for row in rows if row["split"] == "test"]
    counts = Counter(row["gold"] for row in test)
    assert max(counts.values()) <= 0.15 * len(test) and len(counts) >= 30
    assert counts["."] + counts[","] > 0  # some punctuation is kept
    for row in rows:
        sentence, word = row["input"].split("\n")
        words = sentence.removeprefix("Sentence: ").split(" ")
        marked, position = re.fullmatch(r"Word: \[\[(.+)\]\] \(word (\d+)\)", word).groups()
        assert words[int(position) - 1] == marked


def test_mcq_hand_checked():
    source = "en_ewt-ud-test.conllu#weblog-blogspot.com_marketview_20050511222700_ENG_20050511_222700-0003#word4"
    row = by_source("mcq", source)
    assert row["input"] == "Sentence: Google is a nice search engine .\nWord: [[nice]] (word 4)"
    assert row["gold"] == "JJ"
    assert mcq_input(["The", "cat", "sat", "."], 1) == "Sentence: The cat sat .\nWord: [[cat]] (word 2)"


def test_eqa_rows():
    for row in rows_of("eqa"):
        context, answer = row["context"], row["gold"]
        assert context[row["answer_start"]:row["answer_start"] + len(answer)] == answer
        assert row["answers"][0] == answer and all(a in context for a in row["answers"])
        assert row["input"] == f"Passage: {context}\nQuestion: {row['question']}"
        assert row["question"].endswith("?") and row["question"].startswith(("Who or what ", "What "))
        assert row["kind"] in ("subject", "object")
        assert len(context) <= 900


def test_eqa_hand_checked():
    source = "en_ewt-ud-test.conllu#weblog-blogspot.com_grandpasgripes_20060413051000_ENG_20060413_051000-0002"
    row = by_source("eqa", source)
    assert row["question"] == "Who or what doesn't believe the Iranian Government?"
    assert row["answers"] == ["The United States", "United States"]
    assert row["context"].startswith("Iran says it is creating nuclear energy without wanting nuclear weapons.")


# --- rebuilding ------------------------------------------------------------------------------------------------


@needs_shared
@pytest.mark.parametrize("task", TASKS)
def test_rebuild_gives_the_shipped_bytes(task):
    shipped = files("corral.suites.formatbench").joinpath("data", f"{task}.jsonl.gz").read_bytes()
    assert encode_rows(BUILDERS[task](SHARED)) == shipped


# --- the helpers -----------------------------------------------------------------------------------------------

CONLLU = """\
# newdoc id = doc1
# sent_id = doc1-1
# newpar id = doc1-p1
# text = Yesterday, the big company bought three stores in Ohio.
1\tYesterday\tyesterday\tNOUN\tNN\t_\t6\tobl:tmod\t_\tSpaceAfter=No
2\t,\t,\tPUNCT\t,\t_\t6\tpunct\t_\t_
3\tthe\tthe\tDET\tDT\t_\t5\tdet\t_\t_
4\tbig\tbig\tADJ\tJJ\t_\t5\tamod\t_\t_
5\tcompany\tcompany\tNOUN\tNN\t_\t6\tnsubj\t_\t_
6\tbought\tbuy\tVERB\tVBD\t_\t0\troot\t_\t_
7\tthree\tthree\tNUM\tCD\t_\t8\tnummod\t_\t_
8\tstores\tstore\tNOUN\tNNS\t_\t6\tobj\t_\t_
9\tin\tin\tADP\tIN\t_\t10\tcase\t_\t_
10\tOhio\tOhio\tPROPN\tNNP\t_\t8\tnmod\t_\tSpaceAfter=No
11\t.\t.\tPUNCT\t.\t_\t6\tpunct\t_\t_

# sent_id = doc1-2
# text = It's cheap.
1-2\tIt's\t_\t_\t_\t_\t_\t_\t_\tSpaceAfter=No
1\tIt\tit\tPRON\tPRP\t_\t3\tnsubj\t_\t_
2\t's\tbe\tAUX\tVBZ\t_\t3\tcop\t_\t_
3\tcheap\tcheap\tADJ\tJJ\t_\t0\troot\t_\tSpaceAfter=No
3.1\tgone\tgo\tVERB\tVBN\t_\t_\t_\t3:conj\t_
4\t.\t.\tPUNCT\t.\t_\t3\tpunct\t_\t_

"""


def test_conllu_reader_and_questions(tmp_path):
    path = tmp_path / "mini.conllu"
    path.write_text(CONLLU, encoding="utf-8")
    first, second = read_conllu(path)
    assert [w.form for w in second.words] == ["It", "'s", "cheap", "."]  # range and empty-node lines skipped
    assert (second.words[0].start, second.words[1].end) == (0, 4)  # the multiword token's words share its span
    assert first.doc == second.doc == "doc1" and first.par == second.par == "doc1-p1"
    found = questions(first)
    assert [(kind, q, a) for kind, q, a, _ in found] == [
        ("subject", "Who or what bought three stores in Ohio?", "the big company"),
        ("object", "What did the big company buy?", "three stores in Ohio")]  # "in Ohio" modifies "stores"
    assert all(first.text[span[0]:span[1]] == answer for _, _, answer, span in found)
    assert questions(second) == []  # an adjective root with a pronoun subject


def test_ner_helpers_by_hand():
    tags = ["B-PER", "I-PER", "O", "B-LOC", "B-LOC", "I-ORG"]
    assert entity_spans(tags) == [("PER", 0, 2), ("LOC", 3, 4), ("LOC", 4, 5), ("ORG", 5, 6)]
    tokens = ["John", "Smith", "visited", "Paris", "France", "Inc"]
    assert tag_tokens(tokens, entity_spans(tags)) == ("<PER>John Smith</PER> visited <LOC>Paris</LOC> "
                                                      "<LOC>France</LOC> <ORG>Inc</ORG>")


TOKEN = st.text(st.characters(codec="utf-8"), min_size=1, max_size=6).filter(
    lambda token: not any(char.isspace() for char in token))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(TOKEN, st.sampled_from(["", " ", "  ", "\t"])), min_size=1, max_size=12))
def test_align_recovers_every_token(pieces):
    text = "".join(token + gap for token, gap in pieces)
    spans = align(text, [token for token, _ in pieces])
    assert spans is not None
    assert [text[a:b] for a, b in spans] == [token for token, _ in pieces]
    assert all(b <= c for (_, b), (c, _) in pairwise(spans))
    assert align(text + "x", [token for token, _ in pieces]) is None  # text left over


IOB = st.lists(st.sampled_from(["O", "B-PER", "I-PER", "B-ORG", "I-ORG", "B-LOC", "I-LOC"]), min_size=1,
               max_size=15)


@settings(max_examples=200, deadline=None)
@given(IOB)
def test_tagged_gold_passes_the_ner_checker(tags):
    tokens = [f"w{i}" for i in range(len(tags))]
    spans = entity_spans(tags)
    gold = tag_tokens(tokens, spans)
    instance = {"text": " ".join(tokens), "tokens": tokens, "tags": ["PER", "ORG", "LOC"], "gold": gold}
    assert check_format("ner", instance, gold).passed
    assert re.sub(r"</?[A-Z]+>", "", gold) == " ".join(tokens)
    assert sum(b - a for _, a, b in spans) == sum(tag != "O" for tag in tags)


PHRASES = ["NP", "NP-SBJ", "VP", "PP-LOC", "S", "SBAR-ADV", "NP-SBJ-1", "ADJP=2", "S-NOM-SBJ"]
POS = ["NN", "DT", "VBD", "IN", "-LRB-", ",", "."]


def trees():
    leaf = st.builds(lambda tag, word: Tree(tag, [word]), st.sampled_from(POS),
                     st.sampled_from(["the", "cat", "-LRB-", "[", "sat", "on", "x-y"]))
    empty = st.just(Tree("-NONE-", ["*T*-1"]))
    return st.recursive(leaf, lambda kids: st.builds(Tree, st.sampled_from(PHRASES),
                                                     st.lists(kids | empty, min_size=1, max_size=3)), max_leaves=12)


@settings(max_examples=200, deadline=None)
@given(trees())
def test_normalised_tree_round_trips_and_passes_the_parse_checker(tree):
    normal = normalise_tree(Tree("ROOT", [tree]))
    words = [leaf for leaf, tag in tree.pos() if tag != "-NONE-"]
    if normal is None:
        assert not words
        return
    assert normal.leaves() == words
    assert all("-" not in node.label() or node.label() in WORD for node in normal.subtrees())
    line = one_line(normal)
    assert "\n" not in line and Tree.fromstring(line) == normal
    assert normalise_tree(normal) == normal  # idempotent
    verdict = check_format("parse", {"tokens": words, "sentence": " ".join(words)}, line)
    assert verdict.passed, verdict.feedback
