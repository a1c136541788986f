"""BenchCLAMP's syntactic parsing on Corral's runner: ``clamp-constituency`` (GUM) and ``clamp-dependency`` (UD
English EWT), free or constrained by a grammar built per sentence.

The prompt is the paper's few-shot template (§4.2, after Shin et al.): "Let's translate what a human user says
into what a computer might say.", then ``Human: {input}`` / ``Computer: {output}`` pairs for up to 20 training
examples retrieved by BM25 or, with ``retriever=dense``, by sentence embeddings (best match last, the weakest
dropped first until the examples fit ``budget`` tokens), then the sentence. The checker judges
**well-formedness**: one tree (or one triple per word) over exactly the input's tokens in order, the constraint a
constrained run enforces; the parse's accuracy is the quality: EVALB bracket F1 and exact match for trees, LAS
and UAS for dependencies (``corral.metrics``).

Constrained decoding copies the sentence (``corral.grammars.copy_tree`` / ``copy_sequence``) with the labels,
tags and relations of the whole training part (as the paper derives its grammars from all training data).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from typing import Any

from corral.tasks import Task, TaskInstance, TaskOption, register_task
from corral.verdicts import Verdict, Violation

from ._data import SPLITS, ParseExample, constituent_labels, pos_tags, relations, split, test_subset
from ._prompting import check_counts, count_tokens, parse_instance, parse_task, shot_options

VERSION = "1"
FORMS = ("triples", "indexed")
EVAL_SETS = ("test100", "test", "dev", "train")
MAX_TREE_DEPTH = 40
"""Brackets open at once in a constrained tree: GUM's deepest training tree has 32 above its preterminals."""


# --------------------------------------------------------------------------------------------------- outputs
def target_text(example: ParseExample, form: str) -> str:
    """The gold output: the one-line tree, or the dependency form."""
    from corral.metrics import write_indexed, write_triples

    if example.tree is not None:
        return example.tree
    writer = write_indexed if form == "indexed" else write_triples
    return writer(list(example.words), list(example.heads or ()), list(example.relations or ()))


def render_pair(example: ParseExample, form: str) -> str:
    return f"Human: {' '.join(example.words)}\nComputer: {target_text(example, form)}\n"


# --------------------------------------------------------------------------------------------------- grammars
def _alternatives(values: tuple[str, ...]) -> str:
    return " | ".join(json.dumps(value, ensure_ascii=False) for value in values)


@cache
def _tag_rule() -> str:
    return _alternatives(pos_tags())


@cache
def _relation_rule() -> str:
    return _alternatives(relations())


def tree_grammar(words: tuple[str, ...]) -> Any:
    from corral.grammars import copy_tree

    return copy_tree(words, constituent_labels(), rules={"TAG": _tag_rule()}, max_depth=MAX_TREE_DEPTH,
                     description=f"a constituency tree over {len(words)} words")


def dependency_grammar(words: tuple[str, ...], form: str) -> Any:
    from corral.grammars import copy_sequence

    if form == "indexed":
        heads = _alternatives(tuple(str(k) for k in range(len(words) + 1)))
        return copy_sequence(words, '"(" {index} "-" {token} ", " REL ", " HEAD ")"',
                             rules={"REL": _relation_rule(), "HEAD": heads},
                             description=f"indexed dependency triples over {len(words)} words")
    return copy_sequence(words, '"(" {token} ", " REL ", " HEAD ")"',
                         rules={"REL": _relation_rule(), "HEAD": 'TOKEN | "root"'},
                         description=f"dependency triples over {len(words)} words")


def _grammar(build):
    def grammar(instance: TaskInstance) -> Any:
        from corral.grammars import GrammarError, NotExpressible

        try:
            return build(instance)
        except GrammarError as exc:  # an empty or oversized sentence: this instance decodes freely
            raise NotExpressible(f"no copy grammar for this sentence: {exc}") from None

    return grammar


# --------------------------------------------------------------------------------------------------- checks
def check_tree(instance: TaskInstance, answer: str) -> Verdict[dict[str, Any]]:
    """Well-formed: one bracketed tree whose leaves are the input's words in order."""
    from corral.metrics import read_tree

    words = list(instance.target["words"])
    tree = read_tree(answer) if len(answer) <= 100_000 else None
    if tree is None:
        found = [Violation("tree", "The answer is not one well-formed bracketed tree.", seen=answer[:60])]
    else:
        leaves = [str(leaf) for leaf in tree.leaves()]
        found = [] if leaves == words else [_copy_violation(words, leaves)]
    return Verdict.of(found, detail={"well_formed": not found})


def check_dependency(instance: TaskInstance, answer: str) -> Verdict[dict[str, Any]]:
    """Well-formed: one triple per input word, in order, in the task's form."""
    parsed = _read_dependency(instance, answer)
    found = [] if parsed is not None else [Violation(
        "triples", f"The answer is not one ({instance.target['form']}) triple per word of the input, in order.",
        seen=answer[:60])]
    return Verdict.of(found, detail={"well_formed": parsed is not None})


def _read_dependency(instance: TaskInstance, answer: str) -> tuple[list[int], list[str]] | None:
    from corral.metrics import read_indexed, read_triples

    if len(answer) > 100_000:
        return None
    reader = read_indexed if instance.target["form"] == "indexed" else read_triples
    return reader(answer.strip(), list(instance.target["words"]))


def _copy_violation(words: list[str], leaves: list[str]) -> Violation:
    at = next((k for k, (a, b) in enumerate(zip(words, leaves, strict=False)) if a != b), min(len(words), len(leaves)))
    expected = words[at] if at < len(words) else "no more words"
    seen = leaves[at] if at < len(leaves) else "the tree ends"
    return Violation("copy", f"The tree's words must be the sentence's, in order; word {at + 1} differs.",
                     expected=expected, seen=seen)


def tree_quality(instance: TaskInstance, answer: str) -> dict[str, float]:
    from corral.metrics import bracket_stats, tree_exact_match

    gold = instance.target["gold"]
    return {**bracket_stats("bracket_f1", answer, gold), "exact_match": tree_exact_match(answer, gold),
            "well_formed": float(check_tree(instance, answer).passed)}


def dependency_quality(instance: TaskInstance, answer: str) -> dict[str, float]:
    from corral.metrics import attachment_stats

    gold = (list(instance.target["heads"]), list(instance.target["relations"]))
    parsed = _read_dependency(instance, answer)
    return {**attachment_stats("dep", parsed, gold), "well_formed": float(parsed is not None)}


# --------------------------------------------------------------------------------------------------- tasks
def _declared(dependency: bool) -> tuple[TaskOption, ...]:
    own = (TaskOption("form", str, "triples", "the dependency output form: (word, relation, head-word) triples or "
                      "the lossless (index-word, relation, head-index) form", choices=FORMS),) if dependency else ()
    return (
        TaskOption("split", str, "low-0", "BenchCLAMP's training split the prompts' examples come from",
                   choices=SPLITS),
        TaskOption("eval_set", str, "test100", "what is parsed: the 100-sentence test subset, all of test, the "
                   "split's dev set, or its training sentences (what fine-tuning reads: train_options in "
                   "corral train's trn setting)", choices=EVAL_SETS),
        *shot_options(20, "examples from the split's training sentences"),
        *own,
    )


def _instances(dataset: str, split_name: str, eval_set: str, shots: int, budget: int, form: str,
               retriever_method: str = "bm25") -> Iterator[TaskInstance]:
    from corral.retrieval import Retriever

    chosen = split(dataset, split_name)
    examples = {"test100": test_subset(dataset), "test": chosen.test, "dev": chosen.dev,
                "train": chosen.train}[eval_set]
    retriever = Retriever(chosen.train, retriever_method) if shots > 0 else None
    for example in examples:
        picked = retriever.select(example, k=shots, budget_tokens=budget, count_tokens=count_tokens,
                                  render=lambda e: render_pair(e, form)) if retriever is not None else []
        target: dict[str, Any] = {"words": example.words, "form": form}
        if example.heads is not None:
            target |= {"heads": example.heads, "relations": example.relations}
        yield parse_instance(example.id, " ".join(example.words), target_text(example, form),
                             "".join(render_pair(shot, form) for shot in picked),
                             {"dataset": dataset, "split": split_name, "length": _length_group(len(example.words))},
                             **target)


def _length_group(n: int) -> str:
    return "1-10" if n <= 10 else "11-20" if n <= 20 else "21-40" if n <= 40 else "41+"


@register_task("clamp-constituency", options=_declared(dependency=False))
def clamp_constituency(split: str, eval_set: str, shots: int, budget: int, retriever: str) -> Task:
    """Constituency parsing of GUM sentences (BenchCLAMP's PTB-3 task on openly licensed trees)."""
    check_counts("clamp-constituency", shots, budget)
    return parse_task("clamp-constituency", VERSION,
                      lambda: _instances("gum", split, eval_set, shots, budget, "tree", retriever), check_tree,
                      _grammar(lambda instance: tree_grammar(instance.target["words"])), tree_quality,
                      "BenchCLAMP (Roy et al. 2023) constituency parsing, GUM trees, EVALB bracket F1")


@register_task("clamp-dependency", options=_declared(dependency=True))
def clamp_dependency(split: str, eval_set: str, shots: int, budget: int, retriever: str, form: str) -> Task:
    """Dependency parsing of UD English EWT sentences, in BenchCLAMP's triples or indexed form."""
    check_counts("clamp-dependency", shots, budget)
    return parse_task("clamp-dependency", VERSION,
                      lambda: _instances("ewt", split, eval_set, shots, budget, form, retriever), check_dependency,
                      _grammar(lambda instance: dependency_grammar(instance.target["words"], form)),
                      dependency_quality, "BenchCLAMP (Roy et al. 2023) dependency parsing, UD English EWT, LAS/UAS")
