"""The benchmark suites, one subpackage each: its data loading, checkers, prompts and task registration.

Importing this package registers every built-in task; ``corral.tasks.get_task`` does it on first lookup, through
``corral.registry.BUILTINS``, so the layers below never import a suite.
"""

from . import clamp, collie, concode, formatbench, ifeval

__all__ = ["clamp", "collie", "concode", "formatbench", "ifeval"]
