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
from corral.tasks import PromptTemplate, Task, TaskInstance, TaskOption, register_task

from ._lispress_grammar import induce_lispress_grammar
from ._lispress_task import check_lispress, lispress_quality, render_turn
from ._prompting import INSTRUCTION, check_counts, max_tokens, pool_shots
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
        yield TaskInstance(
            id=turn.id, prompt=f"{INSTRUCTION}\n\n{pairs}Human: {turn.utterance}\nComputer:",
            target={"gold": turn.lispress, "data": folder},
            groups={"dataset": "treedst", "split": eval_set},
            max_tokens=max_tokens(turn.lispress), reference=turn.lispress)


@register_task("clamp-treedst", options=(
    TaskOption("data", str, None, "the folder holding TreeDST's {train,dev,test}_dst.dataflow_dialogues.jsonl "
               "(Lispress; not shipped)"),
    TaskOption("eval_set", str, "test", "test, or dev", choices=TREEDST_PARTS),
    TaskOption("shots", int, 20, "few-shot turns from the training file, retrieved by BM25 (at most; the budget may "
               "drop some)"),
    TaskOption("budget", int, 1500, "prompt tokens the examples may take (estimated as characters / 3)"),
    TaskOption("retriever", str, "bm25", "how examples are ranked: BM25, or the bundled model's sentence "
               "embeddings (slow)", choices=("bm25", "dense")),
))
def clamp_treedst(data: str | None, eval_set: str, shots: int, budget: int, retriever: str) -> Task:
    """TreeDST turns to Lispress, Lispress match (the data is read when the instances are: a missing folder or file
    is one error then, before any model is loaded)."""
    check_counts("clamp-treedst", shots, budget)
    folder = None if data is None else str(data)
    return Task(
        name="clamp-treedst", version=VERSION,
        instances=lambda: _instances(folder, eval_set, shots, budget, retriever),
        check=check_lispress, grammar=lambda instance: treedst_grammar(instance.target["data"]),
        template=PromptTemplate(), extract="first_line", quality=lispress_quality, stop=("\nHuman:",),
        options={"stop": ["\nHuman:"]},
        description="BenchCLAMP (Roy et al. 2023) TreeDST turns to Lispress, Lispress match",
    )
