"""EVALB labelled brackets: hand-counted cases of each COLLINS.prm rule, generated trees, and a cross-check against
PYEVALB (an independent EVALB in Python) on real GUM trees with perturbed predictions."""

from __future__ import annotations

import random
import re
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from nltk import Tree

from corral.metrics import bracket_stats, labelled_brackets, read_tree, tree_exact_match, tree_words
from corral.registry import lookup, quality_aggregates

GUM = Path("/work/shared/data/gum_const/const")
GOLD = "(ROOT (S (NP-SBJ-1 (DT The) (NN cat)) (VP (VBD sat) (PRT (RP down)) (, ,) (PP (IN on) (NP (DT a) (NN mat)))) " \
       "(. .)))"


def stats(predicted: str, gold: str) -> dict[str, float]:
    return {key.split(":")[1]: value for key, value in bracket_stats("p", predicted, gold).items()}


def f1(summed: dict[str, float]) -> float:
    return lookup(quality_aggregates, "micro_f1", "quality aggregate")(summed)


def test_collins_prm_rules_hand_counted():
    # ROOT gone, the comma and the period deleted (words: The cat sat down on a mat), NP-SBJ-1 -> NP, PRT -> ADVP
    assert labelled_brackets(read_tree(GOLD)) == Counter({("S", 0, 7): 1, ("NP", 0, 2): 1, ("VP", 2, 7): 1,
                                                          ("ADVP", 3, 4): 1, ("PP", 4, 7): 1, ("NP", 5, 7): 1})
    assert tree_words(read_tree(GOLD)) == ["The", "cat", "sat", "down", "on", "a", "mat"]
    # an unlabelled outer bracket and TOP are wrappers too; ADVP matches PRT
    assert labelled_brackets(read_tree("( (S (NP (PRP I)) (VP (VBD went) (ADVP (RB out)))))")) == \
        labelled_brackets(read_tree("(TOP (S (NP (PRP I)) (VP (VBD went) (PRT (RP out)))))"))
    # a bracket over punctuation only is dropped (zero element); a unary chain counts twice (multiset)
    assert labelled_brackets(read_tree("(S (NP (NP (NN it))) (VP (VBZ is)) (FRAG (. .)))")) == \
        Counter({("S", 0, 2): 1, ("NP", 0, 1): 2, ("VP", 1, 2): 1})
    assert labelled_brackets(read_tree("(S (-NONE- *) (NP (NN x)))")) == Counter({("S", 0, 1): 1, ("NP", 0, 1): 1})


def test_unary_duplicates_match_as_a_multiset():
    gold = "(S (NP (NP (NN it))) (VP (VBZ is)))"
    assert stats("(S (NP (NN it)) (VP (VBZ is)))", gold) == {"tp": 3.0, "fp": 0.0, "fn": 1.0}
    assert stats(gold, gold) == {"tp": 4.0, "fp": 0.0, "fn": 0.0}


def test_unreadable_or_other_words_score_zero_but_count_the_gold():
    for bad in ("not a tree", "(S (NP", "(S (NP (DT The) (NN cat))) (S (VP (VBD sat)))", "(S (NP The (NN cat)))",
                "(S (NP (DT The) (NN dog)) (VP (VBD sat) (PRT (RP down)) (PP (IN on) (NP (DT a) (NN mat)))))", ""):
        assert stats(bad, GOLD) == {"tp": 0.0, "fp": 0.0, "fn": 6.0}, bad
        assert tree_exact_match(bad, GOLD) == 0.0
    with pytest.raises(ValueError):
        bracket_stats("p", GOLD, "(S (NP")


def test_exact_match_ignores_what_evalb_ignores():
    assert tree_exact_match(GOLD, GOLD) == 1.0
    # other function tags, PRT written ADVP, punctuation attached elsewhere, no ROOT, pretty-printed
    other = "(S\n  (NP-SBJ (DT The) (NN cat))\n  (VP (VBD sat) (ADVP (RP down))\n" \
            "    (PP (IN on) (NP (DT a) (NN mat))))\n  (, ,) (. .))"
    assert tree_exact_match(other, GOLD) == 1.0
    assert tree_exact_match(GOLD.replace("(PP", "(ADVP"), GOLD) == 0.0


def test_read_tree_rejects_what_is_not_one_tree():
    assert read_tree("(NN cat)") == Tree("NN", ["cat"])
    for text in ("", "cat", "(S (NN a)) extra", "(S (NN a b))", "(S ())", "(S", "(S))", "(" * 500 + ")" * 500):
        assert read_tree(text) is None, text


# ----------------------------------------------------------------------------------------------- generated trees
WORDS = st.text(alphabet="abcXYZ.,'$#&:;!?*", min_size=1, max_size=4)
TAGS = st.sampled_from(["NN", "DT", ",", ".", "``", "''", ":", "-NONE-", "-LRB-", "PRP$"])
LABELS = st.sampled_from(["S", "NP", "NP-SBJ", "VP", "PP-LOC-2", "ADVP", "PRT", "SBAR=1", "ROOT", "TOP"])
TREES = st.recursive(st.builds(lambda tag, word: Tree(tag, [word]), TAGS, WORDS),
                     lambda kids: st.builds(Tree, LABELS, st.lists(kids, min_size=1, max_size=4)), max_leaves=30)


def reference_brackets(tree: Tree) -> Counter:
    """A second count, by tree positions rather than a walk: the words under each phrase node that survive
    deletion, as a span of surviving-word indices."""
    kept = [pos for pos in tree.treepositions() if isinstance(tree[pos], Tree) and len(tree[pos]) == 1
            and isinstance(tree[pos][0], str) and tree[pos].label() not in {",", ".", "``", "''", ":", "-NONE-"}]
    index = {pos: i for i, pos in enumerate(kept)}
    found: Counter = Counter()
    for pos in tree.treepositions():
        node = tree[pos]
        if not isinstance(node, Tree) or (len(node) == 1 and isinstance(node[0], str)):
            continue
        covered = [index[p] for p in kept if p[:len(pos)] == pos]
        label = re.split("[-=]", node.label())[0]
        label = {"PRT": "ADVP"}.get(label, label)
        if covered and label not in {"ROOT", "TOP"}:
            found[label, covered[0], covered[-1] + 1] += 1
    return found


@given(TREES)
def test_generated_trees_read_back_and_count_as_a_second_count(tree):
    for text in (str(tree), tree.pformat(margin=30), " ".join(str(tree).split())):
        assert read_tree(text) == tree
    assert labelled_brackets(tree) == reference_brackets(tree)
    assert stats(str(tree), tree.pformat())["fp"] == 0.0 == stats(str(tree), str(tree))["fn"]
    assert tree_exact_match(str(tree), str(tree)) == 1.0


# --------------------------------------------------------------------------------------------- PYEVALB, on GUM
PUNCT = {",", ".", "``", "''", ":", "-NONE-"}


def gum_trees(count: int) -> list[Tree]:
    found = []
    for path in sorted(GUM.glob("*.ptb")):
        for block in re.split(r"\n\s*\n", path.read_text(encoding="utf-8")):
            if block.strip():
                tree = Tree.fromstring(block)
                if len([t for t in tree.pos() if t[1] not in PUNCT]) >= 4 and len(tree) == 1:
                    found.append(tree)
        if len(found) >= 4 * count:
            break
    return random.Random(7).sample(found, count)


def phrases(tree: Tree) -> list[tuple]:
    return [pos for pos in tree.treepositions() if pos and isinstance(tree[pos], Tree)
            and not (len(tree[pos]) == 1 and isinstance(tree[pos][0], str))]


def perturb(tree: Tree, rng: random.Random) -> Tree:
    """A prediction over the same words: a few relabelled, flattened, grouped or re-attached constituents."""
    tree = tree.copy(deep=True)
    for _ in range(rng.randint(1, 4)):
        nodes = phrases(tree)
        pos = rng.choice(nodes)
        move = rng.choice(["relabel", "flatten", "group", "reattach"])
        if move == "relabel":
            tree[pos].set_label(rng.choice(["NP", "VP", "PP", "S", "ADJP", "PRT", "ADVP-TMP", "SBAR"]))
        elif move == "flatten" and len(pos) > 1:
            parent, i = tree[pos[:-1]], pos[-1]
            parent[i:i + 1] = list(tree[pos])
        elif move == "group" and len(tree[pos]) >= 3:
            i = rng.randrange(len(tree[pos]) - 1)
            tree[pos][i:i + 2] = [Tree(rng.choice(["NP", "XP", "VP"]), list(tree[pos][i:i + 2]))]
        elif move == "reattach" and len(tree[pos]) >= 2 and isinstance(tree[pos][-2], Tree) \
                and not isinstance(tree[pos][-2][0], str):
            last = tree[pos].pop()
            tree[pos][-1].append(last)  # the last child moves down into its left sibling: same words, same order
    return tree


def for_pyevalb(tree: Tree) -> str:
    """The tree under COLLINS.prm's settings written out, for PYEVALB (which applies none): wrapper removed,
    punctuation and traces deleted, empty constituents dropped, labels stripped, PRT as ADVP."""
    def clean(node):
        if len(node) == 1 and isinstance(node[0], str):
            return None if node.label() in PUNCT else Tree(node.label(), [node[0]])
        kids = [k for k in (clean(child) for child in node) if k is not None]
        if not kids:
            return None
        label = re.split("[-=]", node.label())[0]
        return Tree({"PRT": "ADVP"}.get(label, label), kids)

    root = tree
    while root.label() in {"ROOT", "TOP", ""} and len(root) == 1:
        root = root[0]
    return " ".join(str(clean(root)).split())


def has_duplicates(text: str) -> bool:
    return any(n > 1 for n in labelled_brackets(read_tree(text)).values())


def test_bracket_f1_agrees_with_pyevalb_on_gum_trees():
    """PYEVALB differs from COLLINS.prm in what it applies (it deletes nothing, strips no labels, counts the root
    and merges no labels) and in matching: it intersects bracket *sets*, so a duplicated (label, span), a unary
    chain of one label, is matched once where EVALB matches each copy. The trees are handed to it already
    normalised, and pairs with a duplicated bracket are left out of the comparison (the multiset case is
    ``test_unary_duplicates_match_as_a_multiset``)."""
    from PYEVALB import parser, scorer

    rng = random.Random(2024)
    ours, theirs, compared = Counter(), Counter(), 0
    for gold in gum_trees(60):
        predicted = perturb(gold, rng)
        gold_text, predicted_text = gold.pformat(), " ".join(str(predicted).split())
        if has_duplicates(gold_text) or has_duplicates(predicted_text):
            continue
        mine = stats(predicted_text, gold_text)
        result = scorer.Scorer().score_trees(parser.create_from_bracket_string(for_pyevalb(gold)),
                                             parser.create_from_bracket_string(for_pyevalb(predicted)))
        assert (mine["tp"], mine["tp"] + mine["fp"], mine["tp"] + mine["fn"]) == \
            (result.matched_brackets, result.test_brackets, result.gold_brackets)
        theirs_f1 = 2 * result.matched_brackets / (result.test_brackets + result.gold_brackets)
        assert round(f1(mine), 4) == round(theirs_f1, 4)
        ours.update(mine)
        theirs.update({"matched": result.matched_brackets, "test": result.test_brackets,
                       "gold": result.gold_brackets})
        compared += 1
    assert compared >= 20
    corpus = 2 * theirs["matched"] / (theirs["test"] + theirs["gold"])
    assert round(f1(dict(ours)), 4) == round(corpus, 4)
    assert 0.3 < corpus < 0.99  # the perturbations really do change the trees


def test_the_gold_tags_decide_which_words_are_deleted_in_both_trees():
    # a prediction that tags the comma JJ still has it deleted (EVALB reads the gold's tags), so its brackets
    # line up with the gold's instead of scoring nothing
    gold = "(S (NP (NN Yes)) (, ,) (VP (VBZ works)))"
    predicted = "(S (NP (NN Yes)) (ADJP (JJ ,)) (VP (VBZ works)))"
    stats = bracket_stats("f1", predicted, gold)
    assert stats == {"f1@micro_f1:tp": 3.0, "f1@micro_f1:fp": 0.0, "f1@micro_f1:fn": 0.0}
    assert tree_exact_match(predicted, gold) == 1.0
