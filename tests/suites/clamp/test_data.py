"""The clamp suite's shipped data (GUM constituency trees, UD English EWT dependency trees): the files load with the
sources' counts, every row is well formed, BenchCLAMP's splits have their sizes and are seeded, the label
inventories come from the training part, and a rebuild from the shared sources gives the shipped bytes."""

from __future__ import annotations

import hashlib
import os
from importlib.resources import files
from pathlib import Path

import pytest
from nltk import Tree
from scripts.build_clamp_data import BUILDERS, encode, ewt_row
from scripts.build_clamp_data import main as build

from corral.suites.clamp import (
    DATASETS,
    SPLITS,
    ParseExample,
    Split,
    constituent_labels,
    load,
    pos_tags,
    relations,
    split,
    tree_labels,
)
from corral.suites.clamp import test_subset as subset_of_test

REPO = Path(__file__).resolve().parents[3]
SHARED = Path(os.environ.get("CORRAL_SHARED_DATA", REPO.parent / "shared" / "data"))
needs_shared = pytest.mark.skipif(not (SHARED / "gum_const").is_dir() or not (SHARED / "ud_english_ewt").is_dir(),
                                  reason="the source treebanks (../shared/data, or $CORRAL_SHARED_DATA) are absent")

COUNTS = {"gum": {"train": 3707, "dev": 438, "test": 491}, "ewt": {"train": 12544, "dev": 2001, "test": 2077}}


# --- the shipped rows ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dataset", DATASETS)
def test_shipped_files_load_with_the_sources_counts(dataset):
    parts = load(dataset)
    assert {part: len(examples) for part, examples in parts.items()} == COUNTS[dataset]
    ids = [example.id for examples in parts.values() for example in examples]
    assert len(set(ids)) == len(ids)
    assert all(isinstance(example, ParseExample) and example.words for example in parts["train"])


def test_the_shipped_files_are_small():
    for name in ("gum_const.jsonl.gz", "ud_ewt.jsonl.gz"):
        assert len(files("corral.suites.clamp").joinpath("data", name).read_bytes()) < 1_500_000


def test_gum_words_are_the_tree_leaves_and_labels_are_plain():
    for examples in load("gum").values():
        for example in examples:
            assert example.heads is None and example.relations is None
            tree = Tree.fromstring(example.tree)
            assert tuple(tree.leaves()) == example.words, example.id
            assert tree.label() not in ("ROOT", "TOP", "")
            assert "\n" not in example.tree and "  " not in example.tree
            for sub in tree.subtrees():
                if not (len(sub) == 1 and isinstance(sub[0], str)):  # a phrase: no function tag, no index
                    assert "-" not in sub.label() and "=" not in sub.label(), (example.id, sub.label())
                    assert all(isinstance(child, Tree) for child in sub), example.id  # words only under tags


def test_gum_ids_name_the_document_and_the_tree():
    first = load("gum")["train"][0]
    assert first.id == "GUM_academic_art-1"
    assert first.words[:2] == ("Aesthetic", "Appreciation")
    assert first.tree.startswith("(NP (NP (JJ Aesthetic) (NN Appreciation))")
    assert {e.id.rsplit("-", 1)[0] for e in load("gum")["test"]} >= {"GUM_academic_discrimination", "GUM_news_nasa"}


def test_ewt_heads_in_range_and_exactly_one_root():
    for examples in load("ewt").values():
        for example in examples:
            n = len(example.words)
            assert example.tree is None
            assert len(example.heads) == len(example.relations) == n, example.id
            assert all(0 <= h <= n for h in example.heads), example.id
            assert example.heads.count(0) == 1, example.id
            assert example.relations[example.heads.index(0)] == "root", example.id


def test_ewt_row_skips_ranges_and_empty_nodes():
    import conllu

    text = ("# sent_id = s1\n# text = It's gone.\n"
            "1-2\tIt's\t_\t_\t_\t_\t_\t_\t_\t_\n"
            "1\tIt\tit\tPRON\tPRP\t_\t3\tnsubj\t_\t_\n"
            "2\t's\tbe\tAUX\tVBZ\t_\t3\taux:pass\t_\t_\n"
            "3\tgone\tgo\tVERB\tVBN\t_\t0\troot\t_\t_\n"
            "3.1\tgone\tgo\tVERB\tVBN\t_\t_\t_\t3:conj\t_\n"
            "4\t.\t.\tPUNCT\t.\t_\t3\tpunct\t_\t_\n\n")
    row = ewt_row(conllu.parse(text)[0], "dev", "x.conllu")
    assert row == {"id": "s1", "part": "dev", "words": ["It", "'s", "gone", "."], "heads": [3, 3, 0, 3],
                   "relations": ["nsubj", "aux:pass", "root", "punct"]}


def test_ewt_known_sentence():
    first = load("ewt")["train"][0]
    assert first.id == "weblog-juancole.com_juancole_20051126063000_ENG_20051126_063000-0001"
    assert first.words[:3] == ("Al", "-", "Zaman")
    assert first.heads[:3] == (0, 3, 1) and first.relations[:3] == ("root", "punct", "flat")


# --- splits ----------------------------------------------------------------------------------------------------

SIZES = {("gum", "low-0"): (500, 50), ("gum", "medium"): (3707, 438), ("gum", "high"): (3707, 438),
         ("ewt", "low-0"): (500, 50), ("ewt", "medium"): (5000, 500), ("ewt", "high"): (12544, 500)}


@pytest.mark.parametrize("dataset", DATASETS)
@pytest.mark.parametrize("name", SPLITS)
def test_splits_have_their_sizes_and_come_from_the_right_parts(dataset, name):
    s = split(dataset, name)
    assert isinstance(s, Split) and s.name == name
    train_size, dev_size = SIZES[(dataset, "low-0" if name.startswith("low") else name)]
    assert (len(s.train), len(s.dev)) == (train_size, dev_size)
    parts = load(dataset)
    assert s.test == parts["test"]
    train_ids, dev_ids, test_ids = ({e.id for e in part} for part in (s.train, s.dev, s.test))
    assert len(train_ids) == len(s.train) and len(dev_ids) == len(s.dev)
    assert train_ids <= {e.id for e in parts["train"]} and dev_ids <= {e.id for e in parts["dev"]}
    assert not (train_ids | dev_ids) & test_ids
    positions = {e.id: i for i, e in enumerate(parts["train"])}
    assert [positions[e.id] for e in s.train] == sorted(positions[e.id] for e in s.train)  # the source order


@pytest.mark.parametrize("dataset", DATASETS)
def test_the_three_low_splits_differ_and_share_one_dev(dataset):
    lows = [split(dataset, f"low-{i}") for i in range(3)]
    trains = [frozenset(e.id for e in s.train) for s in lows]
    assert len(set(trains)) == 3
    assert all(len(a & b) < 250 for a in trains for b in trains if a is not b)  # independent draws of 500
    assert lows[0].dev == lows[1].dev == lows[2].dev
    assert split(dataset, "medium").dev == split(dataset, "high").dev


def test_splits_are_seeded():
    # the same draws after the caches are emptied, and the pinned first ids (a changed seed or sampler shows here)
    before = {(d, n): split(d, n) for d in DATASETS for n in SPLITS}
    subsets = {d: subset_of_test(d) for d in DATASETS}
    split.cache_clear()
    subset_of_test.cache_clear()
    assert before == {(d, n): split(d, n) for d in DATASETS for n in SPLITS}
    assert subsets == {d: subset_of_test(d) for d in DATASETS}
    assert split("ewt", "low-0").train[0].id == "weblog-juancole.com_juancole_20051126063000_ENG_20051126_063000-0010"
    assert split("gum", "low-0").dev[0].id == "GUM_academic_librarians-15"
    assert subset_of_test("gum")[0].id == "GUM_academic_discrimination-4"
    assert _digest(split("ewt", "medium").train) == "b51b28aa71d8b72739a8e88b1b84e7318edcb3590d2ead8797ff501eac839654"
    assert _digest(split("ewt", "low-2").train) == "9ebaa74d73d2440a7a5a29bbdb86580d37600e4de1ea678156b15402432a61ac"


def _digest(examples: tuple[ParseExample, ...]) -> str:
    return hashlib.sha256("\n".join(e.id for e in examples).encode()).hexdigest()


@pytest.mark.parametrize("dataset", DATASETS)
def test_the_test_subset(dataset):
    subset = subset_of_test(dataset)
    assert len(subset) == 100 and len({e.id for e in subset}) == 100
    assert {e.id for e in subset} <= {e.id for e in load(dataset)["test"]}
    assert len(subset_of_test(dataset, 10)) == 10


def test_unknown_names_are_refused():
    with pytest.raises(ValueError, match="dataset"):
        load("ptb")
    with pytest.raises(ValueError, match="split"):
        split("gum", "huge")
    with pytest.raises(ValueError):
        constituent_labels("ewt")
    with pytest.raises(ValueError):
        relations("gum")


# --- label inventories -----------------------------------------------------------------------------------------


def test_label_inventories_come_from_the_whole_training_part():
    phrases, tags = set(constituent_labels()), set(pos_tags())
    assert {"S", "NP", "VP", "PP", "SBAR", "ADJP", "WHNP"} <= phrases
    assert {"NN", "NNP", "VBZ", "-LRB-", "-RRB-", ",", ".", "PRP$", "HYPH"} <= tags
    assert not phrases & tags
    assert all("-" not in label for label in phrases)
    for example in load("gum")["train"]:
        p, t = tree_labels(example.tree)
        assert p <= phrases and t <= tags
    assert constituent_labels() == tuple(sorted(phrases))
    rels = relations()
    assert {"root", "nsubj", "nsubj:pass", "obl:unmarked", "acl:relcl", "punct"} <= set(rels)
    assert rels == tuple(sorted({r for e in load("ewt")["train"] for r in e.relations}))
    assert list(rels) == sorted(rels) and len(rels) == 51


def test_tree_labels_separates_tags_from_phrases():
    assert tree_labels("(S (NP (PRP I)) (VP (VBD saw) (NP (DT a) (NN cat))) (. .))") == (
        {"S", "NP", "VP"}, {"PRP", "VBD", "DT", "NN", "."})


# --- rebuilding ------------------------------------------------------------------------------------------------


@needs_shared
def test_rebuild_gives_the_shipped_bytes(tmp_path):
    build(SHARED, tmp_path)
    for name in BUILDERS:
        shipped = files("corral.suites.clamp").joinpath("data", name).read_bytes()
        assert (tmp_path / name).read_bytes() == shipped, name


def test_encode_is_reproducible():
    rows = [{"id": "a", "words": ["é", "b"]}]
    assert encode(rows) == encode(rows)
    assert encode(rows)[4:8] == b"\0\0\0\0"  # no timestamp in the gzip header
