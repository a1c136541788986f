"""The ``collie`` task: all 2,080 COLLIE-v1 instances, their constraints as checkers, filterable by structure and
source.

The prompt is the v1 data's own rendered instruction; the feedback turn reuses COLLIE §5's dialogue ("...
However, you generate ..."), built from the checker's English feedback. Token budgets are sized per generation
level so that a constrained output can always finish (a truncated output is a failure, counted separately).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache

from corral.constraints import check
from corral.tasks import PromptTemplate, Task, TaskInstance, register_task
from corral.text import Level

from ._data import instances
from ._structures import BY_CODE

MAX_TOKENS = {Level.WORD: 24, Level.SENTENCE: 96, Level.PARAGRAPH: 400, Level.PASSAGE: 1200}


def _collie_instances() -> Iterator[TaskInstance]:
    for inst in instances():
        structure = BY_CODE[inst.code]
        yield TaskInstance(id=inst.id, prompt=inst.prompt, target=inst.constraint,
                           groups={"structure": structure.name, "source": inst.source},
                           max_tokens=MAX_TOKENS[structure.level], reference=inst.example)


@lru_cache(maxsize=4096)
def _grammar(constraint):  # -> corral.grammars.Grammar
    from corral.grammars import compile_constraint

    return compile_constraint(constraint)


@register_task("collie")
def collie() -> Task:
    return Task(
        name="collie",
        version="v1",
        instances=_collie_instances,
        check=lambda instance, answer: check(instance.target, answer),
        grammar=lambda instance: _grammar(instance.target),
        template=PromptTemplate(
            feedback="However, your answer does not meet the constraints. {feedback} "
                     "Please try again. Your task is: {prompt}"),
        extract="whole",
        description="COLLIE-v1 (Yao et al. 2023): 2,080 constraint instances over 13 structures, 4 sources",
    )
