"""The clamp suite's shipped parsing data, BenchCLAMP's splits and the label inventories.

Two datasets (see DATA_LICENSES.md; ``scripts/build_clamp_data.py`` builds them):

- ``"gum"``: GUM constituency trees of the licence-filtered genres, with GUM's official document split:
  3,707 train, 438 dev and 491 test trees. Each example sets ``tree`` (one line, no ROOT wrapper, no function tags).
- ``"ewt"``: UD English EWT dependency trees: 12,544 train, 2,001 dev and 2,077 test sentences. Each example sets
  ``heads`` (1-based, 0 for the root) and ``relations`` (subtypes kept) over its syntactic words.

Splits, as BenchCLAMP §3.1 (``split``): ``low-0``, ``low-1`` and ``low-2`` are three uniform samples of 500
training examples, each with the same 50-example sample of the dev part; ``medium`` is 5,000 training examples
with 500 dev examples; ``high`` is the whole training part with the medium dev sample. The test set of every split
is the whole test part; ``test_subset`` is the paper's 100-example sample for costly models. Where a part is
smaller than a split asks, the split takes the whole part: GUM's medium split is all 3,707 training trees (as
BenchCLAMP has no separate medium split for Overnight, GUM's medium and high have the same training set) and its
medium dev is all 438 dev trees. Samples are drawn with ``random.Random(seed).sample`` over the part's positions
and returned in the part's order; the seeds are the constants in ``SEEDS``.

Label inventories (``constituent_labels``, ``pos_tags``, ``relations``) come from the whole training part, as
BenchCLAMP §3.2 derives its grammars from all training data, whatever the split.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from importlib.resources import files

from corral.jsonl import iter_jsonl

__all__ = ["DATASETS", "PARTS", "SEEDS", "SPLITS", "ParseExample", "Split", "constituent_labels", "load", "pos_tags",
           "relations", "split", "test_subset"]

DATASETS = ("gum", "ewt")
PARTS = ("train", "dev", "test")
SPLITS = ("low-0", "low-1", "low-2", "medium", "high")
FILES = {"gum": "gum_const.jsonl.gz", "ewt": "ud_ewt.jsonl.gz"}

LOW_TRAIN, LOW_DEV = 500, 50
MEDIUM_TRAIN, MEDIUM_DEV = 5000, 500
TEST_SUBSET = 100

# The seed of each sample; the same for both datasets.
SEEDS = {"low-0": 1000, "low-1": 1001, "low-2": 1002, "medium": 2000, "low-dev": 3000, "medium-dev": 3001,
         "test-subset": 4000}


@dataclass(frozen=True)
class ParseExample:
    """One sentence to parse: constituency rows set ``tree``, dependency rows ``heads`` and ``relations``."""

    id: str
    words: tuple[str, ...]
    tree: str | None = None
    heads: tuple[int, ...] | None = None
    relations: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Split:
    """A BenchCLAMP split: its name and its train, dev and test examples (each in the source's order)."""

    name: str
    train: tuple[ParseExample, ...]
    dev: tuple[ParseExample, ...]
    test: tuple[ParseExample, ...]


def _check_dataset(dataset: str) -> None:
    if dataset not in DATASETS:
        raise ValueError(f"unknown dataset {dataset!r}; expected one of {', '.join(DATASETS)}")


def _example(row: dict) -> ParseExample:
    heads = row.get("heads")
    rels = row.get("relations")
    return ParseExample(row["id"], tuple(row["words"]), row.get("tree"), None if heads is None else tuple(heads),
                        None if rels is None else tuple(rels))


@cache
def load(dataset: str) -> dict[str, tuple[ParseExample, ...]]:
    """The examples of ``dataset`` (``"gum"`` or ``"ewt"``) by part (``train``, ``dev``, ``test``), in source order.

    Cached: every call returns the same dict, which callers must not change."""
    _check_dataset(dataset)
    parts: dict[str, list[ParseExample]] = {part: [] for part in PARTS}
    for row in iter_jsonl(files("corral.suites.clamp").joinpath("data", FILES[dataset])):
        parts[row["part"]].append(_example(row))
    return {part: tuple(examples) for part, examples in parts.items()}


def _sample(examples: tuple[ParseExample, ...], size: int, seed: int) -> tuple[ParseExample, ...]:
    """``size`` examples drawn uniformly with ``seed``, in their original order; all of them when there are no
    more than ``size``."""
    if len(examples) <= size:
        return examples
    picked = sorted(random.Random(seed).sample(range(len(examples)), size))
    return tuple(examples[i] for i in picked)


@cache
def split(dataset: str, name: str) -> Split:
    """BenchCLAMP split ``name`` (``low-0``, ``low-1``, ``low-2``, ``medium``, ``high``) of ``dataset``; see the
    module's docstring for the sizes, and for GUM's medium split, which is its whole training part."""
    _check_dataset(dataset)
    parts = load(dataset)
    train, dev, test = parts["train"], parts["dev"], parts["test"]
    if name in ("low-0", "low-1", "low-2"):
        return Split(name, _sample(train, LOW_TRAIN, SEEDS[name]), _sample(dev, LOW_DEV, SEEDS["low-dev"]), test)
    medium_dev = _sample(dev, MEDIUM_DEV, SEEDS["medium-dev"])
    if name == "medium":
        return Split(name, _sample(train, MEDIUM_TRAIN, SEEDS["medium"]), medium_dev, test)
    if name == "high":
        return Split(name, train, medium_dev, test)
    raise ValueError(f"unknown split {name!r}; expected one of {', '.join(SPLITS)}")


@cache
def test_subset(dataset: str, n: int = TEST_SUBSET) -> tuple[ParseExample, ...]:
    """A seeded sample of ``n`` test examples (BenchCLAMP's 100-example test set for costly models), in source
    order; the same seed for every ``n``."""
    _check_dataset(dataset)
    return _sample(load(dataset)["test"], n, SEEDS["test-subset"])


# --- label inventories -------------------------------------------------------------------------------------------

_PRETERMINAL = re.compile(r"\((\S+) [^()\s]+\)")
_OPEN = re.compile(r"\((\S+)")


def tree_labels(tree: str) -> tuple[set[str], set[str]]:
    """(phrase labels, part-of-speech tags) of a one-line tree: a label is a tag where it covers one word directly
    (``(NN cat)``) and a phrase label elsewhere. Leaves never contain brackets or spaces (the build checks)."""
    tags = set(_PRETERMINAL.findall(tree))
    phrases = set(_OPEN.findall(_PRETERMINAL.sub("", tree)))
    return phrases, tags


def _tree_inventory(trees: Iterable[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    phrases: set[str] = set()
    tags: set[str] = set()
    for tree in trees:
        p, t = tree_labels(tree)
        phrases |= p
        tags |= t
    return tuple(sorted(phrases)), tuple(sorted(tags))


@cache
def _gum_inventory() -> tuple[tuple[str, ...], tuple[str, ...]]:
    return _tree_inventory(example.tree or "" for example in load("gum")["train"])


def constituent_labels(dataset: str = "gum") -> tuple[str, ...]:
    """The phrase labels (``NP``, ``VP``, ...) of the whole training part, sorted; only ``"gum"`` has trees."""
    if dataset != "gum":
        raise ValueError(f"only the gum dataset has constituency trees, not {dataset!r}")
    return _gum_inventory()[0]


def pos_tags(dataset: str = "gum") -> tuple[str, ...]:
    """The part-of-speech tags (preterminal labels) of the whole GUM training part, sorted."""
    if dataset != "gum":
        raise ValueError(f"only the gum dataset has constituency trees, not {dataset!r}")
    return _gum_inventory()[1]


@cache
def relations(dataset: str = "ewt") -> tuple[str, ...]:
    """The dependency relations (subtypes kept, ``root`` included) of the whole EWT training part, sorted."""
    if dataset != "ewt":
        raise ValueError(f"only the ewt dataset has dependency trees, not {dataset!r}")
    return tuple(sorted({rel for example in load("ewt")["train"] for rel in example.relations or ()}))
