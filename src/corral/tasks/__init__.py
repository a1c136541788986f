"""Evaluation tasks: a Task is data (instances, prompt template, checker, answer extraction), registered by name
with the options it declares (``TaskOption``), which ``get_task`` validates and converts."""

from ._options import EXTRACT, TaskOption, TaskOptionError
from ._registration import TaskFactory, get_task, register_task, task_options
from ._task import CHECKER_ERROR, Judged, PromptTemplate, Task, TaskInstance, select

__all__ = [
    "CHECKER_ERROR",
    "EXTRACT",
    "Judged",
    "PromptTemplate",
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
