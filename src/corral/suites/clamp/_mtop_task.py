"""``clamp-mtop``: MTOP utterances to decoupled TOP trees on Corral's runner, free or constrained by BenchCLAMP's MTOP
grammar (``_mtop``: intents and slots induced from the training file, slot words copied from the utterance).

The data is the user's (``-T data=FOLDER``). The prompt is BenchCLAMP's few-shot template: up to ``shots`` training
examples retrieved by BM25 over the utterance, best match last. The checker judges well-formedness (one tree); the
quality is BenchCLAMP's ``exact_match`` (the trees written alike), ``intent_match`` (the root intent) and
``well_formed``.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache

from corral.grammars import Grammar
from corral.tasks import Task, TaskInstance, TaskOption, register_task

from ._mtop import (
    DOWNLOAD,
    MTOP_PARTS,
    MtopExample,
    MtopGrammar,
    TopError,
    canonical_top,
    induce_mtop_grammar,
    mtop_examples,
    read_top,
)
from ._prompting import check_counts, parse_instance, parse_task, pool_shots, reads_as_one, shot_options

VERSION = "1"


def render_example(example: MtopExample) -> str:
    return f"Human: {example.utterance}\nComputer: {example.decoupled}\n"


@cache
def mtop_structure(folder: str, language: str) -> MtopGrammar:
    """The intents and slots induced from the training file (shared by every utterance)."""
    return induce_mtop_grammar(example.decoupled for example in mtop_examples(folder, language, "train"))


def mtop_grammar(instance: TaskInstance) -> Grammar:
    target = instance.target
    return mtop_structure(target["data"], target["language"]).for_utterance(target["tokens"], target["utterance"])


check_top = reads_as_one("top", "TOP tree", read_top, TopError)


def top_quality(instance: TaskInstance, answer: str) -> dict[str, float]:
    gold = instance.target["gold"]
    try:
        root = read_top(answer).label
    except TopError:
        root = None
    return {"exact_match": float(canonical_top(answer) == canonical_top(gold)),
            "intent_match": float(root == read_top(gold).label), "well_formed": float(root is not None)}


def _instances(folder: str | None, language: str, eval_set: str, shots: int, budget: int,
               method: str) -> Iterator[TaskInstance]:
    from corral.errors import InputError

    if folder is None:
        raise InputError(f"clamp-mtop needs -T data=FOLDER: {DOWNLOAD}")
    pool, evaluated = mtop_examples(folder, language, "train"), mtop_examples(folder, language, eval_set)
    mtop_structure(folder, language)  # a training file without a tree is refused before any model runs
    for example, pairs in pool_shots(pool, evaluated, shots, budget, method, render_example):
        yield parse_instance(example.id, example.utterance, example.decoupled, pairs,
                             {"dataset": f"mtop-{language}", "split": eval_set, "domain": example.domain},
                             data=folder, language=language, tokens=list(example.tokens), utterance=example.utterance)


@register_task("clamp-mtop", options=(
    TaskOption("data", str, None, "MTOP's unpacked release: the folder holding en/ (or a language folder) with "
               "train.txt, eval.txt and test.txt (not shipped)"),
    TaskOption("language", str, "en", "the language folder (BenchCLAMP benchmarks en)"),
    TaskOption("eval_set", str, "test", "test, or dev (MTOP's eval.txt)", choices=MTOP_PARTS),
    *shot_options(20, "examples from the training file"),
))
def clamp_mtop(data: str | None, language: str, eval_set: str, shots: int, budget: int, retriever: str) -> Task:
    """MTOP utterances to decoupled TOP trees, exact match (the data is read when the instances are: a missing
    folder or file is one error then, before any model is loaded)."""
    check_counts("clamp-mtop", shots, budget)
    folder = None if data is None else str(data)
    return parse_task("clamp-mtop", VERSION, lambda: _instances(folder, language, eval_set, shots, budget, retriever),
                      check_top, mtop_grammar, top_quality,
                      "BenchCLAMP (Roy et al. 2023) MTOP utterances to decoupled TOP trees, exact match")
