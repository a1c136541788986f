"""``clamp-treedst``: TreeDST dialogue turns to Lispress on Corral's runner, free or constrained by a grammar induced
from the training programs, as BenchCLAMP induces one (``_lispress_grammar``), judged as ``clamp-lispress`` is
(well-formedness checked; Lispress match and ``well_formed`` the quality).

The data is the user's (``-T data=FOLDER``, see ``_treedst``). The prompt is BenchCLAMP's few-shot template: up to
``shots`` training turns retrieved by BM25 over the utterance, best match last, then the turn's utterance alone (as
for SMCalFlow: BenchCLAMP found that more dialogue context hurts few-shot prompting).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache

from corral.grammars import Grammar
from corral.tasks import Task, TaskInstance, TaskOption, register_task

from ._lispress_grammar import induce_lispress_grammar
from ._lispress_task import check_lispress, lispress_quality, render_turn
from ._prompting import check_counts, parse_instance, parse_task, pool_shots, shot_options
from ._treedst import DOWNLOAD, TREEDST_PARTS, treedst_turns

VERSION = "1"


@cache
def treedst_grammar(folder: str) -> Grammar:
    """The grammar induced from the training programs (the same for every turn)."""
    return induce_lispress_grammar(turn.lispress for turn in treedst_turns(folder, "train")).grammar


def _instances(folder: str | None, eval_set: str, shots: int, budget: int, method: str) -> Iterator[TaskInstance]:
    from corral.errors import InputError

    if folder is None:
        raise InputError(f"clamp-treedst needs -T data=FOLDER: {DOWNLOAD}")
    pool, evaluated = treedst_turns(folder, "train"), treedst_turns(folder, eval_set)
    for turn, pairs in pool_shots(pool, evaluated, shots, budget, method, render_turn):
        yield parse_instance(turn.id, turn.utterance, turn.lispress, pairs, {"dataset": "treedst", "split": eval_set},
                             data=folder)


@register_task("clamp-treedst", options=(
    TaskOption("data", str, None, "the folder holding TreeDST's {train,dev,test}_dst.dataflow_dialogues.jsonl "
               "(Lispress; not shipped)"),
    TaskOption("eval_set", str, "test", "test, or dev", choices=TREEDST_PARTS),
    *shot_options(20, "turns from the training file"),
))
def clamp_treedst(data: str | None, eval_set: str, shots: int, budget: int, retriever: str) -> Task:
    """TreeDST turns to Lispress, Lispress match (the data is read when the instances are: a missing folder or file
    is one error then, before any model is loaded)."""
    check_counts("clamp-treedst", shots, budget)
    folder = None if data is None else str(data)
    return parse_task("clamp-treedst", VERSION, lambda: _instances(folder, eval_set, shots, budget, retriever),
                      check_lispress, lambda instance: treedst_grammar(instance.target["data"]), lispress_quality,
                      "BenchCLAMP (Roy et al. 2023) TreeDST turns to Lispress, Lispress match")
