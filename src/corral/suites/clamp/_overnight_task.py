"""``clamp-overnight``: Overnight blocks (utterance to lambda-DCS) on Corral's runner, free or constrained by a grammar
induced from the example pool's formulas, as BenchCLAMP induces one (``_lispress_grammar``: formulas are
s-expressions, so the same induction serves).

The data is the user's (``-T data=FOLDER``, see ``_overnight``). The prompt is BenchCLAMP's few-shot template: up
to ``shots`` pool examples retrieved by BM25 over the utterance, best match last. The checker judges
well-formedness (one s-expression); the quality is ``denotation`` (BenchCLAMP's figure: the answer executes, in
SEMPRE's blocks world rebuilt by ``_simpleworld``, to what the gold formula does), ``exact_match`` of the
simplified canonical formula, and ``well_formed``.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache

from corral.grammars import Grammar
from corral.tasks import Task, TaskInstance, TaskOption, register_task

from ._lispress_grammar import induce_lispress_grammar
from ._lispress_task import check_lispress, lispress_quality
from ._overnight import OVERNIGHT_PARTS, PREFIX, OvernightExample, overnight_split
from ._prompting import check_counts, parse_instance, parse_task, pool_shots, shot_options
from ._simpleworld import denotation

VERSION = "2"


def render_example(example: OvernightExample) -> str:
    return f"Human: {example.utterance}\nComputer: {example.formula}\n"


@cache
def overnight_grammar(folder: str) -> Grammar:
    """The grammar induced from the pool's formulas (the same for dev and test: the pool is the same)."""
    return induce_lispress_grammar(example.formula for example in overnight_split(folder, "test").examples).grammar


def overnight_quality(instance: TaskInstance, answer: str) -> dict[str, float]:
    """``denotation`` (the answer denotes what the gold formula does; an answer that fails to execute never does),
    then Lispress-style ``exact_match`` and ``well_formed``."""
    gold = _gold_denotation(instance.target["gold"])
    predicted = denotation(answer.replace(PREFIX, ""))
    right = gold is not None and predicted is not None and predicted == gold
    return {"denotation": float(right), **lispress_quality(instance, answer)}


@cache
def _gold_denotation(formula: str) -> object:
    return denotation(formula)


def _instances(folder: str | None, eval_set: str, shots: int, budget: int, method: str) -> Iterator[TaskInstance]:
    from corral.errors import InputError

    if folder is None:
        raise InputError("clamp-overnight needs -T data=FOLDER: the folder with Overnight's "
                         "blocks.paraphrases.train.examples and .test.examples (SEMPRE's format, not shipped)")
    chosen = overnight_split(folder, eval_set)
    for example, pairs in pool_shots(chosen.examples, chosen.evaluated, shots, budget, method, render_example):
        yield parse_instance(example.id, example.utterance, example.formula, pairs,
                             {"dataset": "overnight-blocks", "split": eval_set}, data=folder)


@register_task("clamp-overnight", options=(
    TaskOption("data", str, None, "the folder holding Overnight's blocks.paraphrases.{train,test}.examples (SEMPRE's "
               "format; not shipped: the data states no licence)"),
    TaskOption("eval_set", str, "test", "test, or BenchCLAMP's dev (held out of the training set)",
               choices=OVERNIGHT_PARTS),
    *shot_options(20, "examples from the pool"),
))
def clamp_overnight(data: str | None, eval_set: str, shots: int, budget: int, retriever: str) -> Task:
    """Overnight blocks utterances to simplified lambda-DCS formulas, denotation accuracy (the data read when the
    instances are: a missing folder or file is one error then, before any model is loaded)."""
    check_counts("clamp-overnight", shots, budget)
    folder = None if data is None else str(data)
    return parse_task("clamp-overnight", VERSION, lambda: _instances(folder, eval_set, shots, budget, retriever),
                      check_lispress, lambda instance: overnight_grammar(instance.target["data"]), overnight_quality,
                      "BenchCLAMP (Roy et al. 2023) Overnight blocks to lambda-DCS, denotation accuracy")
