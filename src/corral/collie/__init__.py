"""COLLIE-v1 in Corral: the 13 structures, the exact constraint for each data row, and the shipped data."""

from ._data import Instance, instances
from ._structures import BY_CODE, PROFILE, STRUCTURES, Structure, constraint_for, structure

__all__ = ["BY_CODE", "PROFILE", "STRUCTURES", "Instance", "Structure", "constraint_for", "instances", "structure"]
