"""Labelled bracket scoring of constituency trees with EVALB's standard parameters (``COLLINS.prm``), so a figure
is the one parsing papers report (BenchCLAMP's PTB/GUM metric is EVALB F1).

What is counted, as EVALB does with ``COLLINS.prm``:

- The root wrapper is not a bracket: a node labelled ``ROOT`` or ``TOP`` (``DELETE_LABEL TOP``; GUM and the
  Stanford tools write ``ROOT``) or unlabelled (``( (S ...))``) is left out, its children kept.
- Punctuation preterminals (tags ``''`` ````` ``.`` ``:`` ``,``) and traces (``-NONE-``) are deleted with their
  word before spans are counted (``DELETE_LABEL``), so word indices skip them; a bracket left covering no word is
  dropped (EVALB's "zero element"). Over the same words, the gold tree's tags decide which words are deleted,
  in both trees (a prediction that tags a comma ``JJ`` still has it deleted, as EVALB does); a prediction that
  moved punctuation elsewhere is scored with its own tags if its other words are the gold's.
- Labels are compared after stripping function tags and indices at the first ``-`` or ``=`` (``NP-SBJ-1`` and
  ``NP=2`` are ``NP``); a label starting with ``-`` (``-NONE-``, ``-LRB-``) is kept whole.
- ``ADVP`` and ``PRT`` are one label (``EQ_LABEL ADVP PRT``); both are counted as ``ADVP``.
- Preterminals (part-of-speech tags over one word) are not brackets; tagging accuracy is not computed here.
- Unary chains are kept: every phrase node is a bracket, and equal (label, start, end) brackets are a multiset, each
  gold bracket matching at most one predicted one (EVALB's matching loop).

Where this differs from EVALB: EVALB skips a sentence whose words differ from the gold's ("Length unmatch",
"Words unmatch"); here, as a generated answer must be scored, such a prediction scores like an unreadable
one: nothing matched, nothing predicted, the gold brackets counted as missed. ``CUTOFF_LEN`` (the <=40-word table)
is not applied.
"""

from __future__ import annotations

from collections import Counter
from functools import cache
from typing import TYPE_CHECKING

from ._text import f1_stats

if TYPE_CHECKING:
    from nltk import Tree

__all__ = ["EQUIVALENT_LABELS", "PUNCTUATION_TAGS", "WRAPPER_LABELS", "bracket_stats", "evalb_label",
           "labelled_brackets", "read_tree", "tree_exact_match", "tree_words"]

PUNCTUATION_TAGS = frozenset({"''", "``", ".", ":", ",", "-NONE-"})
"""Preterminal tags deleted with their word before spans are counted (``COLLINS.prm``'s ``DELETE_LABEL``s)."""

WRAPPER_LABELS = frozenset({"", "ROOT", "TOP"})
"""Labels of nodes that are never brackets: the root wrapper."""

EQUIVALENT_LABELS = {"PRT": "ADVP"}
"""Labels counted as another (``EQ_LABEL ADVP PRT``)."""

MAX_DEPTH = 400
"""Deeper bracket strings are not read (no treebank tree comes near; it keeps the walks within Python's stack)."""


def evalb_label(label: str) -> str:
    """A phrase label as EVALB compares it: function tags and indices stripped, equivalent labels merged."""
    if not label.startswith("-"):
        label = label.split("-", 1)[0].split("=", 1)[0]
    return EQUIVALENT_LABELS.get(label, label)


def _depth(text: str) -> int:
    depth = deepest = 0
    for char in text:
        if char == "(":
            depth += 1
            deepest = max(deepest, depth)
        elif char == ")":
            depth -= 1
    return deepest


@cache
def _tree_type() -> type[Tree]:
    """nltk's ``Tree``, imported on first use, not with this module: importing nltk takes seconds (it loads
    scikit-learn, pandas and scipy), which importing ``corral.metrics`` (every suite does) must not cost."""
    from nltk import Tree

    return Tree


def _is_preterminal(node: Tree) -> bool:
    return len(node) == 1 and not isinstance(node[0], _tree_type())


def _well_formed(node: Tree) -> bool:
    """Every node is a preterminal over one word or a phrase over one or more nodes (EVALB rejects a bracket
    mixing words and brackets, or over two words)."""
    if _is_preterminal(node):
        return True
    return len(node) > 0 and all(isinstance(child, _tree_type()) and _well_formed(child) for child in node)


def read_tree(text: str) -> Tree | None:
    """The one tree of a bracket string, one-line or pretty-printed; None when the text is not exactly one
    well-formed tree (unbalanced, text around it, a bare word, a node mixing words and phrases, an empty node)."""
    text = text.strip()
    if not text.startswith("(") or _depth(text) > MAX_DEPTH:
        return None
    tree_type = _tree_type()
    try:
        tree = tree_type.fromstring(text)
    except (ValueError, IndexError):
        return None
    if not isinstance(tree, tree_type) or not _well_formed(tree):
        return None
    return tree


def tree_words(tree: Tree, *, deleted: frozenset[str] = PUNCTUATION_TAGS) -> list[str]:
    """The words scored: the leaves of preterminals whose tag is not in ``deleted``."""
    return [str(node[0]) for node in tree.subtrees(_is_preterminal) if node.label() not in deleted]


def deleted_positions(tree: Tree, *, deleted: frozenset[str] = PUNCTUATION_TAGS) -> frozenset[int]:
    """The positions (among all the tree's words) of the words whose tag is in ``deleted``."""
    return frozenset(k for k, node in enumerate(tree.subtrees(_is_preterminal)) if node.label() in deleted)


def labelled_brackets(tree: Tree, *, deleted: frozenset[str] = PUNCTUATION_TAGS,
                      positions: frozenset[int] | None = None) -> Counter[tuple[str, int, int]]:
    """The (label, start, end) brackets of a tree as EVALB counts them (see the module doc), word indices counted
    over the words not deleted: those at ``positions`` (the gold's, when scoring a prediction), else those the
    tree itself tags as ``deleted``. ``deleted=frozenset()`` keeps punctuation in the spans (FormatBench's)."""
    tree_type = _tree_type()
    found: Counter[tuple[str, int, int]] = Counter()
    skipped = deleted_positions(tree, deleted=deleted) if positions is None else positions
    seen = 0

    def walk(node: Tree | str, start: int) -> int:
        nonlocal seen
        if not isinstance(node, tree_type):
            return start + 1
        if _is_preterminal(node):
            seen += 1
            return start + (seen - 1 not in skipped)
        end = start
        for child in node:
            end = walk(child, end)
        label = evalb_label(str(node.label()))
        if end > start and label not in WRAPPER_LABELS:
            found[label, start, end] += 1
        return end

    walk(tree, 0)
    return found


def _scored(predicted_text: str, gold_text: str, deleted: frozenset[str]) \
        -> tuple[Counter[tuple[str, int, int]] | None, Counter[tuple[str, int, int]]]:
    gold = read_tree(gold_text)
    if gold is None:
        raise ValueError(f"the gold tree cannot be read: {gold_text[:80]!r}")
    predicted = read_tree(predicted_text) if len(predicted_text) <= 100_000 else None
    wanted = labelled_brackets(gold, deleted=deleted)
    if predicted is None:
        return None, wanted
    if tree_words(predicted, deleted=frozenset()) == tree_words(gold, deleted=frozenset()):
        # the same words in the same order: the gold's tags decide what is deleted, in both trees
        return labelled_brackets(predicted, positions=deleted_positions(gold, deleted=deleted)), wanted
    if tree_words(predicted, deleted=deleted) == tree_words(gold, deleted=deleted):
        return labelled_brackets(predicted, deleted=deleted), wanted  # punctuation moved: each tree's own tags
    return None, wanted


def bracket_stats(metric: str, predicted_text: str, gold_text: str, *,
                  deleted: frozenset[str] = PUNCTUATION_TAGS) -> dict[str, float]:
    """One record's labelled bracket statistics, ``metric@micro_f1:tp|fp|fn``, summed over records into corpus
    (micro) F1 as EVALB's summary does. A prediction that is not one tree, or not over the gold's words, scores
    0 matched and 0 predicted with the gold brackets counted; an unreadable gold tree raises ValueError."""
    predicted, gold = _scored(predicted_text, gold_text, deleted)
    return f1_stats(metric, predicted or Counter(), gold)


def tree_exact_match(predicted: str, gold: str, *, deleted: frozenset[str] = PUNCTUATION_TAGS) -> float:
    """1.0 when the prediction reads, is over the gold's words and has exactly the gold's brackets (EVALB's
    "complete match"), else 0.0."""
    found, wanted = _scored(predicted, gold, deleted)
    return float(found is not None and found == wanted)
