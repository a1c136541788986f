"""A task is data: instances, a prompt template, a checker, an answer-extraction policy, an optional quality metric.

The evaluation runner knows nothing about a suite beyond this value (inspect_ai's Task = dataset + solver +
scorer): COLLIE, FormatBench and JSON-Schema suites differ only in what they register here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from corral.constraints import DEFAULT_BUDGET, Budget, BudgetExceeded, enforce
from corral.models import Message
from corral.registry import answer_extractors, lookup
from corral.text import Reasoning, Thought
from corral.verdicts import Verdict, Violation


@dataclass(frozen=True)
class TaskInstance:
    """One thing to ask a model.

    Attributes:
        id: unique within the task.
        prompt: the instruction, as the template's ``{prompt}``.
        target: what the checker checks against (a ``Constraint`` for COLLIE), also what a constrained run
            compiles into a grammar.
        groups: breakdown keys for reports and filters, e.g. ``{"structure": "sent02", "source": "wiki"}``.
        max_tokens: a token budget in which a constrained output can finish.
        reference: a known good answer (COLLIE's corpus example), for quality metrics.
        context: turns that precede the prompt for this instance only: a task description as a system message
            and few-shot (user, assistant) pairs, when a suite mixes tasks with different descriptions.
    """

    id: str
    prompt: str
    target: Any
    groups: Mapping[str, str] = field(default_factory=dict)
    max_tokens: int = 256
    reference: str | None = None
    context: tuple[Message, ...] = ()


@dataclass(frozen=True)
class PromptTemplate:
    """The chat a task sends: an optional system message, the instance's own context turns, and a user message
    with ``{prompt}``; and how the next round carries the checker's feedback.

    By default a feedback round continues the chat: the model's answer, then a user turn ``feedback`` (with
    ``{feedback}`` and ``{prompt}``). With ``refinement`` set, each round is one fresh user message instead, built
    from the prompt, the previous answer and its feedback (``{prompt}``, ``{answer}``, ``{feedback}``), as ReFF's
    refinement prompt (Figure 6, right) does.
    """

    user: str = "{prompt}"
    system: str | None = None
    feedback: str = "{feedback} Please try again. The task was: {prompt}"
    refinement: str | None = None

    def messages(self, instance: TaskInstance) -> list[Message]:
        chat: list[Message] = [{"role": "system", "content": self.system}] if self.system else []
        chat += [dict(message) for message in instance.context]  # type: ignore[misc]
        chat.append({"role": "user", "content": self.user.format(prompt=instance.prompt)})
        return chat

    def refinement_messages(self, instance: TaskInstance, answer: str, feedback: str) -> list[Message]:
        if self.refinement is None:
            raise ValueError("this template has no refinement prompt")
        chat: list[Message] = [{"role": "system", "content": self.system}] if self.system else []
        chat.append({"role": "user", "content": self.refinement.format(prompt=instance.prompt, answer=answer,
                                                                        feedback=feedback)})
        return chat

    def feedback_turn(self, instance: TaskInstance, feedback: str) -> Message:
        return {"role": "user", "content": self.feedback.format(feedback=feedback, prompt=instance.prompt)}


CHECKER_ERROR = "checker-error"
"""The rule of the violation recorded when a task's checker raised on an answer (``Task.verdict``)."""

REASONING_UNCLOSED = "reasoning-unclosed"
"""The rule of the violation recorded when an output's reasoning block never closed within its bound: it has no
answer, and nothing of it is checked (``Task.judge``)."""


@dataclass(frozen=True)
class Judged:
    """One output judged by its task (``Task.judge``): the answer the checker saw (the output after the task's
    marker and extraction), the verdict, and the quality metrics (empty when the task has none or none were
    asked for). ``thought``: the output split at its reasoning block, when the task declares one or the server
    separated it (None otherwise)."""

    answer: str
    verdict: Verdict[Any]
    quality: dict[str, float]
    thought: Thought | None = None


@dataclass(frozen=True)
class Task:
    """A registered evaluation task.

    ``grammar(instance)`` compiles the instance's target for constrained decoding and raises
    ``corral.grammars.NotExpressible`` when it cannot (the runner then decodes freely and records why).
    ``options`` are the task's settings that change what a record means (a checker mode, a prompt style); they
    go into the run's identity; a registered task's declared options (``TaskOption``) are recorded there as
    resolved (defaults filled in, ``None`` left out), with what the task adds itself. ``stop_on_repeat`` ends a
    feedback chain when the model repeats an earlier answer (ReFF's refinement). ``marker``: an output's answer
    starts after its last occurrence when present (``"Corrected Answer:"`` after the model's thoughts). ``stop``:
    strings that end generation (a completion-style prompt's next "### Example"); a task that sets them lists them
    in ``options`` so they are in the run's identity. ``reasoning``: the block a reasoning model writes before its
    answer (set by the run or the training mix, which know the model); ``judge`` checks the answer after it.
    """

    name: str
    version: str
    instances: Callable[[], Iterable[TaskInstance]]
    check: Callable[[TaskInstance, str], Verdict[Any]]
    grammar: Callable[[TaskInstance], Any]
    template: PromptTemplate = field(default_factory=PromptTemplate)
    extract: str = "whole"
    quality: Callable[[TaskInstance, str], dict[str, float]] | None = None
    description: str = ""
    options: Mapping[str, Any] = field(default_factory=dict)
    stop_on_repeat: bool = False
    marker: str | None = None
    stop: tuple[str, ...] = ()
    reasoning: Reasoning | None = None

    def answer(self, output: str) -> str:
        """The part of the model's output that is checked: after the last ``marker`` (e.g. "Corrected Answer:")
        when the task sets one and the output has it, then the task's extraction policy."""
        if self.marker and self.marker in output:
            output = output[output.rindex(self.marker) + len(self.marker):]
        return lookup(answer_extractors, self.extract, "answer extractor")(output)

    def judge(self, instance: TaskInstance, output: str, budget: Budget = DEFAULT_BUDGET, *,
              quality: bool = True, thought: Thought | None = None) -> Judged:
        """The one way an output is judged, by the runner, by re-judging a stored run and by a training reward: the
        answer (``answer``), the checker's verdict on it within ``budget`` (``verdict``) and, with ``quality``, the
        task's quality metrics on it.

        With a ``reasoning`` block declared, the output is split first (``Reasoning.split``) and only the text
        after the block is the answer; ``thought`` is an output a server already split (``Thought.served``), which
        is then used as it is (``output`` is ignored). A block that never closed within its bound fails with rule
        ``reasoning-unclosed``, and no check or metric ever reads the thinking."""
        if thought is None and self.reasoning is not None:
            thought = self.reasoning.split(output)
        if thought is not None:
            if thought.answer is None:
                bound = f" within {self.reasoning.max_chars:,} characters" if self.reasoning is not None else ""
                failed = Verdict.of([Violation(REASONING_UNCLOSED, f"the reasoning block never closed{bound}: "
                                                                   f"there is no answer to check")])
                return Judged("", failed, {}, thought)
            output = thought.answer
        answer = self.answer(output)
        verdict = self.verdict(instance, answer, budget)  # first: a task's quality may read what its check found
        measured = self.quality(instance, answer) if quality and self.quality is not None else {}
        return Judged(answer, verdict, measured, thought)

    def verdict(self, instance: TaskInstance, answer: str, budget: Budget = DEFAULT_BUDGET) -> Verdict[Any]:
        """The checker's verdict on ``answer``, within ``budget`` whatever the checker is, and never an exception:

        - an answer longer than ``budget.max_chars`` is not checked, and a checker past the time or memory limit is
          stopped (``corral.constraints.enforce``): both give the undecided verdict (``verdict.undecided`` says
          why), which does not pass. So a schema validation or a parsing metric is bounded like a constraint check;
        - a checker that raises fails this answer, its error recorded as the violation (``checker-error``), so one
          output the checker cannot handle never stops a run or a training step."""
        if len(answer) > budget.max_chars:
            return Verdict.not_decided(f"the output has {len(answer):,} characters; the limit is "
                                       f"{budget.max_chars:,}")
        meter = None
        try:
            with enforce(budget) as meter:
                verdict = self.check(instance, answer)
        except BudgetExceeded as exc:
            return Verdict.not_decided(exc.reason)
        except Exception as exc:  # the checker's bug or an unforeseen input: keep going, keep the evidence
            if meter is not None and meter.exceeded:  # the checker turned the budget's stop into another error
                return Verdict.not_decided(meter.exceeded)
            return Verdict.of([Violation(CHECKER_ERROR, f"the checker failed on this output: "
                                                          f"{type(exc).__name__}: {exc}")])
        return Verdict.not_decided(meter.exceeded) if meter.exceeded else verdict


def select(task: Task, filters: Mapping[str, Sequence[str]] | None = None, limit: int | None = None,
           per_group: tuple[str, int] | None = None) -> list[TaskInstance]:
    """The instances to run, in the task's order.

    ``filters`` keeps instances whose group ``key`` is one of the given values (``{"structure": ["sent02"]}``);
    an unknown key or value is an error naming the valid choices. ``per_group=("structure", 3)`` keeps the first
    3 instances of each structure; ``limit`` keeps the first ``limit`` after that.
    """
    everything = list(task.instances())
    chosen = everything
    for key, wanted in (filters or {}).items():
        present = sorted({inst.groups[key] for inst in everything if key in inst.groups})
        if not present:
            raise _no_groups(task, key, everything)
        unknown = [value for value in wanted if value not in present]
        if unknown:
            raise ValueError(f"unknown {key} {', '.join(map(repr, unknown))} for task {task.name!r}; "
                             f"valid: {', '.join(present)}")
        chosen = [inst for inst in chosen if inst.groups.get(key) in set(wanted)]
    if per_group is not None:
        key, count = per_group
        if not any(key in inst.groups for inst in everything):
            raise _no_groups(task, key, everything)
        taken: dict[str, int] = {}
        kept = []
        for inst in chosen:
            value = inst.groups.get(key, "")
            if taken.get(value, 0) < count:
                taken[value] = taken.get(value, 0) + 1
                kept.append(inst)
        chosen = kept
    if limit is not None:
        chosen = chosen[:limit]
    if not chosen:
        raise ValueError(f"no {task.name} instances match the selection")
    return chosen


def _no_groups(task: Task, key: str, everything: Sequence[TaskInstance]) -> ValueError:
    keys = sorted({k for inst in everything for k in inst.groups})
    return ValueError(f"task {task.name!r} has no {key!r} groups; it has: {', '.join(keys) or 'none'}")


@answer_extractors.register("raw")
def _raw(output: str) -> str:
    return output


@answer_extractors.register("whole")
def _whole(output: str) -> str:
    """The whole output, surrounding whitespace removed: a chat model's trailing newline is not its answer."""
    return output.strip()


@answer_extractors.register("first_line")
def _first_line(output: str) -> str:
    """The first non-empty line."""
    return next((line.strip() for line in output.splitlines() if line.strip()), "")


@answer_extractors.register("first_block")
def _first_block(output: str) -> str:
    """The first line of the first paragraph, as FormatBench's reference checks (so a leading blank line or a
    preamble line such as "Translation:" is what gets checked)."""
    return output.split("\n\n")[0].split("\n")[0].strip()


@answer_extractors.register("fenced")
def _fenced(output: str) -> str:
    """The inside of the first ``` fence (its language tag dropped); the whole output if there is none."""
    start = output.find("```")
    if start < 0:
        return output.strip()
    body_start = output.find("\n", start + 3)
    if body_start < 0:
        return output[start + 3:].strip()
    end = output.find("```", body_start + 1)
    return output[body_start + 1:end if end >= 0 else len(output)].strip()
