"""Parse: a Penn Treebank bracketed tree of the input sentence, e.g. ``(S (NP (DT The) (NN cat)) (VP (VBD sat)))``.

Rules: one well-bracketed tree; its leaves are the sentence's tokens in order; a preterminal (a node over one word)
carries a word-level label; every other node a phrase or clause label; every label legal (function tags such
as ``NP-SBJ`` and indices such as ``NP-1`` are allowed on phrase labels). An outer ``ROOT``/``TOP`` node, or an
unlabelled one, may wrap the tree. The tokens are ``tokens`` (a list of strings, or a string holding one) or else
``sentence`` split at whitespace. The reference returns −1 for any node whose first child is a word, so it
rejects every tree, its own gold example included; ``reference`` mode reproduces that.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from corral.verdicts import Violation

from ._core import FormatChecker, InstanceError, reference_first_line, tick
from ._tagged import string_list

CLAUSE = ("S", "SBAR", "SBARQ", "SINV", "SQ")
PHRASE = ("ADJP", "ADVP", "CONJP", "FRAG", "INTJ", "LST", "NAC", "NP", "NX", "PP", "PRN", "PRT", "QP", "RRC", "UCP",
          "VP", "WHADJP", "WHADVP", "WHNP", "WHPP", "X")
WORD = ("CC", "CD", "DT", "EX", "FW", "IN", "JJ", "JJR", "JJS", "LS", "MD", "NN", "NNS", "NNP", "NNPS", "PDT",
        "POS", "PRP", "PRP$", "RB", "RBR", "RBS", "RP", "SYM", "TO", "UH", "VB", "VBD", "VBG", "VBN", "VBP", "VBZ",
        "WDT", "WP", "WP$", "WRB", "#", "$", "''", "``", ",", "-LRB-", "-RRB-", ".", ":", "-NONE-", "HYPH", "NFP",
        "ADD", "AFX", "GW", "XX")
WRAPPERS = ("", "ROOT", "TOP")


def _tokens(instance: Mapping[str, Any]) -> list[str]:
    if instance.get("tokens") is not None:
        return string_list(instance, "tokens", "parse")
    if instance.get("sentence") is None:
        raise InstanceError(f"parse instance {instance.get('id', '?')}: missing field 'sentence' (the checker needs "
                            "one of sentence, tokens)")
    return str(instance["sentence"]).split()


def _phrase_label(label: str) -> str:
    """``NP-SBJ-1`` → ``NP``; ``-NONE-`` and ``-LRB-`` stay whole."""
    if label.startswith("-"):
        return label
    return label.split("-")[0].split("=")[0]


def strict(instance: Mapping[str, Any], output: str) -> list[Violation]:
    from nltk import Tree  # here, not at the top: importing nltk takes seconds (scikit-learn, pandas, scipy)

    tokens = _tokens(instance)  # first: a malformed instance is its error whatever the output
    answer = output.strip()
    offset = output.find(answer) if answer else 0
    if not answer:
        return [Violation("bracket", "The answer is empty; it must be a bracketed tree.", (0, 0))]
    if not answer.startswith("("):
        return [Violation("bracket", "A tree starts with '(' (e.g. (S (NP (DT The) (NN cat)) ...)); this answer "
                                     f"starts with {answer[:20]!r}.", (offset, offset + 1), "(", answer[:1])]
    depth = 0
    for i, char in enumerate(answer):
        tick()
        depth += (char == "(") - (char == ")")
        if depth < 0:
            return [Violation("bracket", f"A ')' at character {i + 1} closes nothing.", (offset + i, offset + i + 1))]
        # the tree ends at a ')' that closes the first '(' (only spaces can follow it at depth 0 unreported, so
        # what follows is looked at there alone: once per ')' at depth 0, not once per character after it)
        if depth == 0 and char == ")" and answer[i + 1:].strip() and not answer[i + 1:].lstrip().startswith(")"):
            return [Violation("bracket", "Text follows the end of the tree; give one tree only.",
                              (offset + i + 1, offset + len(answer)))]
    if depth > 0:
        return [Violation("bracket", f"{depth} bracket(s) are never closed.", (offset + len(answer), offset +
                                                                                len(answer)), 0, depth)]
    try:
        tree = Tree.fromstring(answer)
    except ValueError as exc:
        return [Violation("bracket", f"The tree cannot be read: {exc}".split("\n")[0], (offset, offset + len(answer)))]
    if isinstance(tree, str):
        return [Violation("bracket", "The answer is a word, not a tree.", (offset, offset + len(answer)))]
    while tree.label() in WRAPPERS and len(tree) == 1 and isinstance(tree[0], Tree):
        tree = tree[0]
    found: list[Violation] = []
    for node in tree.subtrees():
        label = node.label()
        words = [child for child in node if isinstance(child, str)]
        if words and len(node) == 1:
            if label not in WORD:
                found.append(Violation("preterminal", f"({label} {words[0]}) is over a word; its label must be a "
                                                      f"part-of-speech tag such as NN or VBD, not {label!r}.",
                                       None, "a part-of-speech tag", label))
        elif words:
            found.append(Violation("preterminal", f"({label} ...) has words ({' '.join(words[:3])}) directly under "
                                                  "it; each word needs its own (TAG word) node.", None))
        elif _phrase_label(label) not in CLAUSE + PHRASE:
            kind = "a part-of-speech tag" if label in WORD else "not a Penn Treebank label"
            found.append(Violation("label", f"{label!r} labels a phrase but is {kind}; use a phrase or clause label "
                                            "such as NP, VP, PP or S.", None, "a phrase or clause label", label))
    leaves = tree.leaves()
    if leaves != tokens:
        at = next((i for i, (a, b) in enumerate(zip(leaves, tokens, strict=False)) if a != b),
                  min(len(leaves), len(tokens)))
        seen = leaves[at] if at < len(leaves) else "the end"
        want = tokens[at] if at < len(tokens) else "the end"
        found.append(Violation("leaves", f"The tree's words must be the sentence's tokens in order: word {at + 1} "
                                         f"is {seen!r}, the sentence has {want!r}.", None, want, seen))
    return found


def reference(instance: Mapping[str, Any], output: str) -> bool:
    from nltk import Tree

    try:
        tree = Tree.fromstring(reference_first_line(output))
    except ValueError:
        return False
    if any(isinstance(node[0], str) for node in tree.subtrees() if len(node)):
        return False  # the published bug: every node over a word, so every real tree, fails here
    # only a tree with no words gets past the bug; the published checker then compares the leaves with the
    # sentence, so `(S)` fails a sentence that has words
    return tree.leaves() == _tokens(instance)


CHECKER = FormatChecker(
    "parse", {"bracket": "one well-bracketed tree", "leaves": "the sentence's tokens as leaves, in order",
              "preterminal": "a part-of-speech tag over each word", "label": "phrase and clause labels above"},
    (), strict, reference, "Parse: a Penn Treebank constituency tree of the sentence",
    input_fields=("sentence", "tokens"))
