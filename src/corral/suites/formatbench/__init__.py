"""FormatBench (ReFF): format checkers that return violations with rule, message, span, expected and seen; the
shipped instances of its ten tasks; prompts; quality metrics; and the ``formatbench`` task."""

from . import (  # noqa: F401  (each registers its checker)  # noqa: F401  (each registers builders)
           _agent,
           _ftime,
           _grammars_copy,
           _grammars_simple,
           _grammars_structured,
           _mtt,
           _parse,
           _simple,
           _tagged,
           _xdl,
)
from ._agent import normalise
from ._core import MODES, FormatChecker, InstanceError, check_format, get_checker
from ._instances import load_instances, read_instances_file, shipped_tasks, write_instances
from ._tagged import MAX_LINE, MAX_LINES
from ._task import TASKS, formatbench

__all__ = ["MAX_LINE", "MAX_LINES", "MODES", "TASKS", "FormatChecker", "InstanceError",
           "check_format", "formatbench", "get_checker", "load_instances", "normalise",
           "read_instances_file", "shipped_tasks", "write_instances"]
