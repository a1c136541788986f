"""``clamp-lispress``: SMCalFlow semantic parsing to Lispress on Corral's runner, free or constrained by
BenchCLAMP's grammar rebuilt from its function signatures (``_calflow_grammar``, the default) or by one induced
from the example pool (``_lispress_grammar``, ``-T grammar=induced``).

The prompt is BenchCLAMP's few-shot template (the same as the syntactic tasks): up to ``shots`` examples from
validation dialogues outside the evaluated split, retrieved by BM25 over the utterance (best match last, the
weakest dropped first to fit ``budget``), then the turn's utterance alone (BenchCLAMP found that more dialogue
context hurts few-shot prompting). The checker judges **well-formedness** (one Lispress program); the quality is
BenchCLAMP's Lispress match (``exact_match``) and ``well_formed``.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache

from corral.grammars import Grammar
from corral.tasks import Task, TaskInstance, TaskOption, register_task

from ._calflow import CALFLOW_SPLITS, CalflowTurn, calflow_split, calflow_training_turns
from ._calflow_grammar import benchclamp_lispress_grammar
from ._lispress import LispressError, lispress_match, read_lispress
from ._lispress_grammar import induce_lispress_grammar
from ._prompting import check_counts, parse_instance, parse_task, pool_shots, reads_as_one, shot_options

VERSION = "1"


def render_turn(turn: CalflowTurn) -> str:
    return f"Human: {turn.utterance}\nComputer: {turn.lispress}\n"


GRAMMARS = ("benchclamp", "induced")


@cache
def split_grammar(name: str) -> Grammar:
    """The Lispress grammar induced from ``name``'s example pool (the same for every turn of the split); for
    ``train``, from the training turns."""
    turns = calflow_training_turns() if name == "train" else calflow_split(name).examples
    return induce_lispress_grammar(turn.lispress for turn in turns).grammar


check_lispress = reads_as_one("lispress", "Lispress program", read_lispress, LispressError)


def lispress_quality(instance: TaskInstance, answer: str) -> dict[str, float]:
    matched = lispress_match(answer, instance.target["gold"])
    try:
        read_lispress(answer)
        well_formed = 1.0
    except LispressError:
        well_formed = 0.0
    return {"exact_match": float(matched), "well_formed": well_formed}


def _instances(eval_set: str, shots: int, budget: int, retriever_method: str) -> Iterator[TaskInstance]:
    if eval_set == "train":  # each training turn's examples are the others
        pool = evaluated = calflow_training_turns()
    else:
        chosen = calflow_split(eval_set)
        pool, evaluated = chosen.examples, chosen.test
    for turn, pairs in pool_shots(pool, evaluated, shots, budget, retriever_method, render_turn):
        yield parse_instance(turn.id, turn.utterance, turn.lispress, pairs, {"dataset": "smcalflow", "split": eval_set},
                             split=eval_set)


@register_task("clamp-lispress", options=(
    TaskOption("eval_set", str, "dev-100", "BenchCLAMP's evaluated SMCalFlow turns, or the training turns (of the "
               "validation dialogues neither split touches: what fine-tuning reads)",
               choices=(*CALFLOW_SPLITS, "train")),
    *shot_options(20, "examples from the pool"),
    TaskOption("grammar", str, "benchclamp", "the constraint: BenchCLAMP's grammar rebuilt from its function "
               "signatures, or one induced from the example pool", choices=GRAMMARS),
))
def clamp_lispress(eval_set: str, shots: int, budget: int, retriever: str, grammar: str) -> Task:
    """SMCalFlow utterances to Lispress programs (BenchCLAMP's SMCalFlow task on the validation dialogues)."""
    check_counts("clamp-lispress", shots, budget)
    chosen = (lambda instance: split_grammar(instance.target["split"])) if grammar == "induced" \
        else (lambda instance: benchclamp_lispress_grammar())
    return parse_task("clamp-lispress", VERSION, lambda: _instances(eval_set, shots, budget, retriever),
                      check_lispress, chosen, lispress_quality,
                      "BenchCLAMP (Roy et al. 2023) SMCalFlow to Lispress, Lispress match")
