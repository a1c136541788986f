"""Registering a task with the options it declares, and building a registered task from options: the one place
that knows both the ``Task`` value and its ``TaskOption`` declarations."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from corral.registry import answer_extractors, lookup, names, tasks

from ._options import EXTRACT, TaskOption, TaskOptionError
from ._task import Task


@dataclass(frozen=True)
class TaskFactory:
    """A registered task: the function that builds it from its options, and the options it declares.

    Calling it validates and converts the options (``TaskOption.parse``), fills in the defaults, builds the task
    and records the values in ``Task.options`` (those not ``None``; what the build recorded itself wins), so they
    go into a run's identity. ``extract`` (``EXTRACT``) is taken by every task and sets ``Task.extract``.
    """

    name: str
    build: Callable[..., Task]
    options: tuple[TaskOption, ...] = ()

    @property
    def accepted(self) -> tuple[TaskOption, ...]:
        """The task's own options, then the ones every task takes (``extract``, its choices the registered
        answer extractors)."""
        return (*self.options, replace(EXTRACT, choices=tuple(names(answer_extractors))))

    def __call__(self, *args: Any, **given: Any) -> Task:
        declared = {option.name: option for option in self.accepted}
        unknown = [key for key in given if key not in declared]
        if unknown:
            raise TaskOptionError(f"task {self.name!r} has no option {', '.join(map(repr, unknown))}; "
                                  f"its options: {', '.join(declared)}")
        values = {}
        for option in declared.values():
            try:
                values[option.name] = option.parse(given[option.name]) if option.name in given else option.default
            except TaskOptionError as exc:
                raise TaskOptionError(f"task {self.name!r}: {exc}") from None
        extract = values.pop(EXTRACT.name)
        task = self.build(*args, **values)
        recorded = {key: value for key, value in values.items() if value is not None} | dict(task.options)
        return replace(task, options=recorded, **({"extract": extract} if extract is not None else {}))


def register_task(name: str, *, options: tuple[TaskOption, ...] = ()) -> Callable[[Callable[..., Task]], TaskFactory]:
    """Register the decorated function as task ``name`` in ``corral.registry.tasks``, taking ``options`` (its
    keyword parameters, with no defaults of their own: the declaration holds them). Returns the ``TaskFactory``."""
    seen = [option.name for option in (*options, EXTRACT)]
    if len(set(seen)) != len(seen):
        raise ValueError(f"task {name!r} declares an option twice: {', '.join(seen)}")

    def register(build: Callable[..., Task]) -> TaskFactory:
        factory = TaskFactory(name, build, tuple(options))
        tasks.register(name, func=factory)
        return factory

    return register


def get_task(name: str, **options: Any) -> Task:
    """The registered task ``name`` or the task of an instances file (``corral build``'s output, ``*.jsonl``), made
    with ``options`` (``get_task("formatbench", checker_mode="reference")``), each validated and converted by the
    task's declaration (a string from the command line becomes the declared type). An unknown name or option, or
    a bad value, is a one-line error listing what exists or what is valid."""
    from_file = name.endswith(".jsonl")
    factory = _factory(name)
    return factory(name, **options) if from_file else factory(**options)


def task_options(name: str) -> tuple[TaskOption, ...]:
    """The options task ``name`` takes (``corral tasks NAME`` lists them): its own, then those every task takes."""
    return _factory(name).accepted


def _factory(name: str) -> TaskFactory:
    from_file = name.endswith(".jsonl")
    factory = lookup(tasks, "instances-file" if from_file else name, "task")
    if not isinstance(factory, TaskFactory):  # a function registered without register_task takes no options
        return TaskFactory(name, factory)
    return replace(factory, name=name) if from_file else factory
