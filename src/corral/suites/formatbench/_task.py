"""The ``formatbench`` task: the ten FormatBench tasks (ReFF) on Corral's shipped, open data, in one task whose
instances are grouped by ``task`` (``corral eval formatbench --where task=ner,capseg``).

Each instance is checked by its task's format checker (``strict`` by default, or ``reference`` to reproduce the
published checker) and scored by its task's quality metric, so every record carries the format verdict and the
quality side by side. Feedback rounds are ReFF's refinement baseline: the checker's messages are fed back with
the previous answer, and a chain also stops when the model repeats an earlier answer or the prompt no longer
fits the model's context (paper D.1); ``--rounds 5`` is the paper's limit.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from corral.tasks import PromptTemplate, Task, TaskInstance, TaskOption, register_task
from corral.verdicts import Verdict

from ._core import MODES, format_grammar, get_format_task
from ._formats import TASKS
from ._instances import load_instances, shipped_tasks
from ._judge import AcrowJudge
from ._prompts import (
    CHAT_FEEDBACK,
    CHAT_FEEDBACK_THOUGHTS,
    TEMPLATES,
    alpaca_prompt,
    alpaca_refinement,
    description,
)

VERSION = "1"
ALPACA_STOP = ("### ", "\nThe answer contains following format error")
"""Where a completion-style answer ends: the model going on to the next example or to a made-up checker reply."""


def _instances(template: str, shots: int) -> Iterator[TaskInstance]:
    shipped = set(shipped_tasks())
    for task in (task for task in TASKS if task in shipped):
        spec = get_format_task(task)
        examples = list(load_instances(task, "fewshot"))[:shots]
        for row in load_instances(task, "test"):
            if template == "alpaca":
                prompt, context = alpaca_prompt(task, row, examples), ()
            else:
                context = ({"role": "system", "content": description(task, row)},)
                for shot in examples:
                    context += ({"role": "user", "content": shot["input"]},
                                {"role": "assistant", "content": shot["gold"]})
                prompt = row["input"]
            yield TaskInstance(id=row["id"], prompt=prompt, target=row,
                               groups={"task": task, "enforcement": spec.enforcement},
                               max_tokens=spec.max_tokens, reference=row.get("gold"),
                               context=context)  # type: ignore[arg-type]


def _grammar(instance: TaskInstance) -> Any:
    """The instance's grammar (``_grammars``); ``NotExpressible`` for a task without one (decoded freely)."""
    return format_grammar(instance.target["task"], instance.target).grammar


OPTIONS = (
    TaskOption("checker_mode", str, "strict", "strict, or reference: the published checker", choices=MODES),
    TaskOption("template", str, "alpaca", "alpaca: the paper's prompt (Figure 6); chat: a system message and "
               "few-shot turns", choices=TEMPLATES),
    TaskOption("thoughts", bool, False, 'refinement with "Thoughts:" (the paper\'s refine*)'),
    TaskOption("shots", int, 3, "few-shot examples per prompt", choices=(0, 1, 2, 3, 4)),
    TaskOption("judge", str, None, "a model spec that rates AcroW poems (off by default)"),
    TaskOption("judge_base_url", str, None, "the judge's OpenAI-compatible server, for judge=openai:NAME"),
)


@register_task("formatbench", options=OPTIONS)
def formatbench(checker_mode: str, template: str, thoughts: bool, shots: int, judge: str | None,
                judge_base_url: str | None) -> Task:
    """FormatBench's ten tasks, with the options in ``OPTIONS``."""

    def check(instance: TaskInstance, answer: str) -> Verdict:
        row: Mapping[str, Any] = instance.target
        return get_format_task(row["task"]).checker.check(row, answer, checker_mode)  # type: ignore[arg-type]

    rater = AcrowJudge(judge, judge_base_url) if judge else None

    def quality(instance: TaskInstance, answer: str) -> dict[str, float]:
        metric = get_format_task(instance.target["task"]).quality
        values = metric(instance.target, answer) if metric is not None else {}
        if rater is not None and instance.target["task"] == "acrow":
            values |= rater.rate(instance.target, answer)
        return values

    if template == "alpaca":
        prompts, stop = PromptTemplate(refinement=alpaca_refinement(thoughts)), ALPACA_STOP
    else:
        prompts, stop = PromptTemplate(feedback=CHAT_FEEDBACK_THOUGHTS if thoughts else CHAT_FEEDBACK), ()
    from corral.metrics import bleu_signature

    return Task(
        name="formatbench",
        version=VERSION,
        # the published checkers read the raw output (their own first-line cut): stripping it first would pass
        # a leading blank line they fail; strict mode judges the answer without surrounding whitespace
        extract="raw" if checker_mode == "reference" else "whole",
        instances=lambda: _instances(template, shots),
        check=check,
        grammar=_grammar,
        template=prompts,
        quality=quality,
        description="FormatBench (ReFF, Yao et al. 2024): ten format tasks on open data, checkers with violations",
        # the declared options are recorded by register_task; a judge's base URL is recorded even when None
        options={"bleu": bleu_signature(), "stop": list(stop),
                 **({"judge": judge, "judge_base_url": judge_base_url} if judge else {})},
        stop_on_repeat=True,
        marker="Corrected Answer:" if thoughts else None,
        stop=stop,
    )
