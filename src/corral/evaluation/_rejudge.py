"""Judging a stored run again: the outputs kept, the task's current checker and quality metrics applied.

For a run made before a fix to a checker or a metric (``corral report --recheck``). No model runs, and the run
directory is not changed: the report is made from the judged copies. An output is judged exactly as the runner
judges it while decoding, by ``Task.judge``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from corral.tasks import get_task, task_options
from corral.text import Reasoning, Thought

from ._records import RunConfig, RunError, SampleRecord


def rejudge(config: RunConfig, records: Iterable[SampleRecord]) -> list[SampleRecord]:
    """The records judged again by the task's current checker and quality metrics, with the outputs kept: the
    verdict (passed, score, violations, detail, feedback, undecided), quality and the instance's groups (which may
    be derived, such as ``enforcement``) are recomputed. A feedback round's prompt still holds the feedback the
    model was given then.

    Raises RunError when the task cannot be rebuilt from ``config`` or no longer has a recorded instance.
    """
    try:
        declared = {option.name for option in task_options(config.task)}  # not what the task adds (bleu, stop)
        task = get_task(config.task, **{key: value for key, value in config.task_options.items() if key in declared},
                        extract=config.extract)
    except (ValueError, KeyError) as exc:
        raise RunError(f"cannot rebuild task {config.task!r} to judge again: {exc}") from None
    block = config.reasoning.block() if config.reasoning is not None else None
    task = dataclasses.replace(task, reasoning=block)  # the block the run resolved, its tags stored: no model read
    instances = {instance.id: instance for instance in task.instances()}
    judged = []
    for record in records:
        instance = instances.get(record.instance)
        if instance is None:
            raise RunError(f"cannot judge {record.instance!r} again: task {config.task!r} no longer has it")
        fresh = task.judge(instance, record.output, thought=_served(record, record.output, block))
        verdict = SampleRecord.judged(fresh.verdict, instance=record.instance, sample=record.sample,
                                      round=record.round, messages=record.messages, output=record.output,
                                      answer=fresh.answer)
        written = record.output[:len(record.output) - len(record.appended)]
        thought = fresh.thought
        judged.append(record.model_copy(update={
            **verdict.model_dump(include={"passed", "score", "violations", "detail", "feedback", "undecided"}),
            "written_passed": (task.judge(instance, written, quality=False,
                                          thought=_served(record, written, block)).verdict.passed
                               if record.appended else None),
            "answer": fresh.answer,
            "groups": dict(instance.groups),
            "quality": fresh.quality,
            "thinking": thought.thinking if thought else None,
            "thinking_closed": thought.closed if thought else None}))
    return judged


def _served(record: SampleRecord, answer: str, block: Reasoning | None) -> Thought | None:
    """A served record's thought, as the runner made it (``answer``: its output, or the part the model wrote)."""
    if not record.thinking_served or record.thinking is None:
        return None
    return Thought.served(record.thinking, answer, cut_off=record.finish_reason == "length",
                          max_chars=block.max_chars if block is not None else None)
