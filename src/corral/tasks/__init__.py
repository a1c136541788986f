"""Evaluation tasks: a Task is data (instances, prompt template, checker, answer extraction), registered by name
with the options it declares (``TaskOption``), which ``get_task`` validates and converts."""

from ._options import EXTRACT, TaskFactory, TaskOption, TaskOptionError, register_task
from ._task import PromptTemplate, Task, TaskInstance, get_task, select, task_options

__all__ = [
    "EXTRACT",
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
