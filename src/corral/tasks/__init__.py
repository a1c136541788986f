"""Evaluation tasks: a Task is data (instances, prompt template, checker, answer extraction), registered by name
with the options it declares (``TaskOption``), which ``get_task`` validates and converts. ``ReasoningSpec``
declares the reasoning block a model writes before its answer (``Task.reasoning`` once resolved)."""

from ._options import EXTRACT, TaskOption, TaskOptionError
from ._reasoning import ReasoningSpec
from ._registration import TaskFactory, get_task, register_task, task_options
from ._task import CHECKER_ERROR, REASONING_UNCLOSED, Judged, PromptTemplate, Task, TaskInstance, select

__all__ = [
    "CHECKER_ERROR",
    "EXTRACT",
    "REASONING_UNCLOSED",
    "Judged",
    "PromptTemplate",
    "ReasoningSpec",
    "Task",
    "TaskFactory",
    "TaskInstance",
    "TaskOption",
    "TaskOptionError",
    "get_task",
    "register_task",
    "select",
    "task_options",
]
