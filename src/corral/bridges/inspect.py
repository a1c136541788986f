"""Corral tasks in inspect_ai: a registered task as an inspect ``Task``, and Corral's checker as an inspect scorer.

So a team that runs its evaluations with inspect (its logs, its viewer, its providers) gets Corral's benchmarks and
verdicts without a second harness. The dataset holds Corral's own instances with Corral's own chat (system message,
few-shot turns, user prompt); the solver generates once with the instance's token budget; the scorer judges the
output through ``Task.judge``, the same call ``corral eval`` makes, so the verdict in inspect's log is the verdict
Corral's run would record for that output::

    inspect eval corral/corral_task -T task=collie -T where=structure=word01 -T limit=4 \\
        --model openai-api/llamacpp/smollm2      # LLAMACPP_BASE_URL=http://127.0.0.1:8000/v1 LLAMACPP_API_KEY=none

``corral/corral_task`` is found through the ``inspect_ai`` entry point Corral's package declares (installed with
the ``inspect`` extra: ``pip install 'corral[inspect]'``). A JSON-Schema task (``concode-gen``) can have its schema
enforced by the server: ``structured="response_schema"`` sends it as inspect's ``ResponseSchema`` (OpenAI's
``response_format`` json_schema: OpenAI, vLLM; inspect's ``JSONSchema`` keeps a subset of the keywords, no
``$ref``), ``structured="llamacpp"`` sends it whole as llama-cpp-python's ``response_format`` ``{type: json_object,
schema}`` in the request body (its server answers 500 to OpenAI's form). The checker decides either way.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from corral.extras import require

require("inspect_ai", "inspect", "corral.bridges.inspect")

from inspect_ai import Task as InspectTask
from inspect_ai import task as inspect_task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    ResponseSchema,
)
from inspect_ai.scorer import CORRECT, INCORRECT, Score, Scorer, Target, accuracy, scorer, stderr
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import JSONSchema

from corral.grammars import NotExpressible
from corral.tasks import Task, TaskInstance

from ._select import Where, built_task, choose, explanation, options_key

Structured = Literal["off", "response_schema", "llamacpp"]
"""How a JSON-Schema task's schema reaches the server: not at all, as inspect's ``ResponseSchema``, or in
llama-cpp-python's own ``response_format`` field."""
ScoreValue = Literal["passed", "score"]
"""What a ``Score``'s value is: CORRECT/INCORRECT from ``verdict.passed``, or the verdict's graded score in [0, 1]."""

INSTANCE_KEY = "corral_instance"
"""The sample metadata key holding the Corral instance id (the scorer finds the instance by it)."""


def chat_messages(messages: Sequence[Mapping[str, str]]) -> list[ChatMessage]:
    """Corral's chat (``PromptTemplate.messages``) as inspect's messages, turn for turn."""
    kinds = {"system": ChatMessageSystem, "user": ChatMessageUser, "assistant": ChatMessageAssistant}
    return [kinds[message["role"]](content=message["content"]) for message in messages]


def instance_schema(task: Task, instance: TaskInstance) -> dict[str, Any] | None:
    """The JSON Schema the instance's answer must follow, when its grammar is one (else None)."""
    try:
        grammar = task.grammar(instance)
    except NotExpressible:
        return None
    return grammar.schema if getattr(grammar, "format", None) == "json_schema" else None


def sample(task: Task, instance: TaskInstance, *, max_tokens: int | None = None,
           structured: Structured = "off") -> Sample:
    """One Corral instance as an inspect ``Sample``: Corral's chat as input, the reference (if any) as target, and
    what the solver and scorer need in the metadata (instance id, groups, token budget, the schema)."""
    metadata: dict[str, Any] = {INSTANCE_KEY: instance.id, "groups": dict(instance.groups),
                                "max_tokens": max_tokens or instance.max_tokens}
    if structured != "off":
        schema = instance_schema(task, instance)
        if schema is not None:
            metadata["json_schema"] = schema
    return Sample(id=instance.id, input=chat_messages(task.template.messages(instance)),
                  target=instance.reference or "", metadata=metadata)


@solver
def corral_generate(stop: Sequence[str] = (), structured: Structured = "off",
                    extra_body: Mapping[str, Any] | None = None) -> Solver:
    """Generate once with the sample's token budget (``metadata["max_tokens"]``) and the task's stop strings, as
    Corral's runner asks; a sample carrying a JSON Schema has it enforced as ``structured`` says.

    ``extra_body`` is sent with every request (a server's own sampling fields, e.g. llama.cpp's
    ``repeat_penalty``); a per-sample ``extra_body`` replaces inspect's run-level one, so with
    ``structured="llamacpp"`` give such fields here.
    """

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        config: dict[str, Any] = {"max_tokens": int(state.metadata["max_tokens"])}
        if stop:
            config["stop_seqs"] = list(stop)
        body = dict(extra_body or {})
        schema = state.metadata.get("json_schema")
        if schema is not None and structured == "response_schema":
            config["response_schema"] = ResponseSchema(name=_schema_name(state.sample_id),
                                                       json_schema=JSONSchema.model_validate(schema))
        elif schema is not None and structured == "llamacpp":
            body["response_format"] = {"type": "json_object", "schema": schema}
        if body:
            config["extra_body"] = body
        return await generate(state, **config)

    return solve


@scorer(metrics=[accuracy(), stderr()])
def corral_checker(task: str, options: Mapping[str, Any] | None = None, value: ScoreValue = "passed") -> Scorer:
    """Corral's checker as an inspect scorer: the output judged by ``Task.judge`` (answer extraction, the checker
    within its budget, quality metrics).

    The ``Score`` carries CORRECT/INCORRECT (or, with ``value="score"``, the verdict's graded score), the checked
    answer, the violations' messages as the explanation, and as metadata the verdict (passed, score, undecided,
    violations) and the task's quality metrics. The task is rebuilt from ``task`` and ``options`` (plain values, as
    inspect records a scorer's arguments) and the instance found by the sample's ``corral_instance`` metadata.
    """
    if value not in ("passed", "score"):
        raise ValueError(f"value must be 'passed' or 'score', not {value!r}")

    async def score(state: TaskState, target: Target) -> Score:
        built = built_task(task, options)
        instance = _instance(task, options or {}, built, str(state.metadata[INSTANCE_KEY]))
        judged = built.judge(instance, state.output.completion)
        verdict = judged.verdict
        messages = [violation.message for violation in verdict.violations] or (
            [f"undecided: {verdict.undecided}"] if verdict.undecided else [])
        return Score(
            value=(CORRECT if verdict.passed else INCORRECT) if value == "passed" else float(verdict.score),
            answer=judged.answer,
            explanation=explanation(messages, verdict.passed),
            metadata={"passed": verdict.passed, "score": verdict.score, "undecided": verdict.undecided,
                      "violations": [violation.to_json() for violation in verdict.violations],
                      "quality": dict(judged.quality)},
        )

    return score


@inspect_task
def corral_task(task: str = "collie", where: Where = None, limit: int | str | None = None,
                max_tokens: int | None = None, structured: Structured = "off", value: ScoreValue = "passed",
                extra_body: dict[str, Any] | None = None, **options: Any) -> InspectTask:
    """A registered Corral task as an inspect ``Task``: ``inspect eval corral/corral_task -T task=formatbench
    -T checker_mode=reference -T where=task=mcq -T limit=4``.

    Args:
        task: a registered Corral task (``corral tasks``).
        where: instance filters, as ``corral eval --where`` (``structure=word01,sent01``) or a mapping.
        limit: N instances, or ``GROUP=N`` (the first N of each group), as ``corral eval --limit``.
        max_tokens: every sample's token budget (default: each instance's own, as ``corral eval``).
        structured: how a JSON-Schema task's schema reaches the server (``Structured``).
        value: the ``Score`` value, ``passed`` (CORRECT/INCORRECT) or the graded ``score``.
        extra_body: fields sent with every request (see ``corral_generate``).
        **options: the Corral task's own options (``-T checker_mode=reference``), validated by its declaration.

    Returns:
        An inspect Task named after the Corral task, with Corral's version and options in its metadata.
    """
    chosen = choose(task, options, where, limit)
    built = chosen.task
    known = _INDEXES.setdefault(options_key(task, options), {})  # the scorer finds these without a second listing
    known.update({inst.id: inst for inst in chosen.instances})
    dataset = MemoryDataset([sample(built, inst, max_tokens=max_tokens, structured=structured)
                             for inst in chosen.instances], name=built.name)
    return InspectTask(
        dataset=dataset,
        solver=corral_generate(stop=list(built.stop), structured=structured, extra_body=extra_body),
        scorer=corral_checker(task, options or None, value),
        name=built.name,
        version=built.version,
        metadata={"corral_task": built.name, "corral_version": built.version, "corral_options": dict(built.options)},
    )


_INDEXES: dict[str, dict[str, TaskInstance]] = {}
"""Instances by id, per task and options: those ``corral_task`` chose, then (for a sample of a log made elsewhere)
the task's whole listing."""


def _instance(name: str, options: Mapping[str, Any], built: Task, instance_id: str) -> TaskInstance:
    known = _INDEXES.setdefault(options_key(name, options), {})
    if instance_id not in known:
        known.update({inst.id: inst for inst in built.instances()})
    try:
        return known[instance_id]
    except KeyError:
        raise KeyError(f"task {name!r} has no instance {instance_id!r}") from None


def _schema_name(sample_id: int | str) -> str:
    """A ``ResponseSchema`` name: letters, digits, ``_`` and ``-``, at most 64 characters."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", f"corral_{sample_id}")[:64]


__all__ = [
    "INSTANCE_KEY",
    "ScoreValue",
    "Structured",
    "chat_messages",
    "corral_checker",
    "corral_generate",
    "corral_task",
    "instance_schema",
    "sample",
]
