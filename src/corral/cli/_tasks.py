"""``corral tasks [TASK]``: the registered tasks, or one task's options (what ``corral eval TASK -T key=value``
takes), each with its type, default, choices and help."""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated

import typer

from ._console import fail as _fail
from ._console import out


def tasks_command(
    task: Annotated[str | None, typer.Argument(help="A task whose options to list (default: list the tasks).")] = None,
) -> None:
    """List the tasks `corral eval` runs, or TASK's options (set them with `corral eval TASK -T key=value`)."""
    from corral.registry import RegistryError, names
    from corral.registry import tasks as registry
    from corral.tasks import EXTRACT, get_task, task_options

    if task is None:
        listed = [name for name in names(registry) if name != "instances-file"]
        width = max(map(len, listed), default=0)
        for name in listed:
            _say(f"{name:<{width}}  {get_task(name).description}")
        _say("Any FILE.jsonl that `corral build` wrote is a task too. `corral tasks TASK` lists a task's options.")
        return
    try:
        built = get_task(task)
        options = task_options(task)
    except (RegistryError, ValueError) as exc:
        raise _fail(str(exc)) from None
    _say(f"{task}: {built.description}")
    _say(f"options (corral eval {task} -T KEY=VALUE):")
    for option in options:
        if option.name == EXTRACT.name:  # its default is the task's own policy
            option = replace(option, default=built.extract)
        _say(f"  {option.name}  ({option.describe()})")
        _say(f"      {option.help}")


def _say(text: str) -> None:
    out.print(text, markup=False, highlight=False, soft_wrap=True)


def register(app: typer.Typer) -> None:
    app.command("tasks")(tasks_command)
