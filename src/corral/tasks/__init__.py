"""Evaluation tasks: a Task is data (instances, prompt template, checker, answer extraction), registered by name."""

from ._task import PromptTemplate, Task, TaskInstance, get_task, select

__all__ = ["PromptTemplate", "Task", "TaskInstance", "get_task", "select"]
