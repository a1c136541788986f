"""COLLIE-v1 in Corral: the 13 structures, the exact constraint for each data row, the shipped data, and the
``collie`` task (plus the task of any instances file ``corral build`` writes)."""

from ._data import Instance, instances
from ._file import instances_file_task
from ._structures import BY_CODE, PROFILE, STRUCTURES, Structure, constraint_for, structure
from ._task import MAX_TOKENS, collie

__all__ = ["BY_CODE", "MAX_TOKENS", "PROFILE", "STRUCTURES", "Instance", "Structure", "collie", "constraint_for",
           "instances", "instances_file_task", "structure"]
