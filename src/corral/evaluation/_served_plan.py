"""The grammar plan of a constrained run on a served model: which instances the server enforces, and how.

A server enforces only what its request fields can carry (``corral.models.route_grammar``): before the first
request, every selected instance's grammar is compiled and routed, and the plan (server kind, one summary line, and
per instance enforced-as or checker-only-with-reason) is stored in the run's config (``RunConfig.grammar_plan``)
and shown to the user. A checker-only instance decodes freely with the reason in its records, exactly as an
instance whose constraint has no grammar: nothing decodes freely unannounced, and nothing is sent that the server
would refuse or enforce as another language.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Sequence
from typing import Any

from corral.grammars import CompileBudget, NotExpressible, with_reasoning, within_budget
from corral.models import Model
from corral.tasks import Task, TaskInstance

PLANNED_BACKENDS = ("openai",)
"""The backends whose grammars travel to a server (the local ones enforce every grammar themselves)."""


def compile_grammar(task: Task, instance: TaskInstance, budget: CompileBudget) -> tuple[Any, str | None]:
    """An instance's grammar (a reasoning block first, free but for its bound, when the task declares one), compiled
    within ``budget``; or None and the reason there is none."""
    try:
        compiled = within_budget(functools.partial(task.grammar, instance), budget)
        return with_reasoning(compiled, task.reasoning), None
    except NotExpressible as exc:
        return None, str(exc)


def plan_served(task: Task, chosen: Sequence[TaskInstance], model: Model,
                grammars: dict[str, tuple[Any, str | None]], budget: CompileBudget) -> dict[str, Any] | None:
    """The plan of ``chosen``'s grammars on ``model``'s server (None: the model enforces grammars itself).

    Fills ``grammars`` (instance id -> grammar, reason) as the runner reads it: a checker-only instance gets no
    grammar and the reason, so it decodes freely and its records say why."""
    planner = getattr(model, "plan_grammar", None)
    kind_of = getattr(model, "server_kind", None)
    if planner is None or kind_of is None:
        return None
    from corral.models import plan_summary

    kind = kind_of()
    routes = []
    no_grammar: Counter[str] = Counter()
    instances: dict[str, dict[str, Any]] = {}
    for instance in chosen:
        if instance.id not in grammars:
            grammars[instance.id] = compile_grammar(task, instance, budget)
        grammar, reason = grammars[instance.id]
        if grammar is None:
            no_grammar["no grammar"] += 1
            instances[instance.id] = {"enforced": False, "via": "", "reason": reason or "no grammar"}
            continue
        route = planner(grammar)
        routes.append(route)
        instances[instance.id] = route.to_json()
        if not route.enforced:
            grammars[instance.id] = (None, f"checker-only on a {kind} server: {route.reason}")
    summary = plan_summary(kind, routes, no_grammar)
    if task.reasoning is not None:  # the server is sent the answer's grammar alone (``Grammar.reasoning`` is local)
        summary += (f"; reasoning block {task.reasoning.open}...{task.reasoning.close}: the grammars constrain the "
                    "answer alone, so the server must keep the block apart (a reasoning parser), or every "
                    "enforced output is an answer without thinking")
    return {"server": kind, "summary": summary, "instances": instances}
