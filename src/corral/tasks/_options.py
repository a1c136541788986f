"""Task options as data: each registered task declares the options it takes (name, type, default, help, choices).

``get_task`` validates and converts them through the declaration, ``corral eval TASK -T key=value`` hands them
over as strings, and ``corral tasks TASK`` lists them; the defaults live once, in the declaration. A task is
registered with its options by ``register_task`` (a function registered in ``corral.registry.tasks`` without it
takes no options)::

    @register_task("formatbench", options=(
        TaskOption("checker_mode", str, "strict", "how outputs are checked", choices=("strict", "reference")),
        TaskOption("shots", int, 3, "few-shot examples per prompt", choices=(0, 1, 2, 3, 4)),
    ))
    def formatbench(checker_mode: str, shots: int) -> Task: ...
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from corral.errors import InputError

OPTION_TYPES: dict[type, str] = {bool: "bool", int: "int", float: "float", str: "str", list: "list"}
"""The types an option can have, by the name ``corral tasks`` shows; ``list`` is a list of strings, written
comma-separated on the command line (``a,b``)."""
_TRUE, _FALSE = ("true", "yes", "on", "1"), ("false", "no", "off", "0")
_EXPECTED = {bool: "true or false", int: "an integer", float: "a number", str: "a string",
             list: "comma-separated values"}


class TaskOptionError(InputError):
    """An option a task does not take, or a value an option cannot have; one line naming the option, the value
    and what is valid."""


@dataclass(frozen=True)
class TaskOption:
    """One option of a task.

    Attributes:
        name: the factory's keyword, and what ``-T name=value`` sets.
        type: ``bool``, ``int``, ``float``, ``str`` or ``list`` (of strings; a tuple once parsed).
        default: the value when the option is not given; ``None`` makes the option optional (off unless given).
        help: one line for ``corral tasks TASK``.
        choices: the valid values (each item's, for a list), when they are few.
    """

    name: str
    type: type
    default: Any
    help: str
    choices: tuple[Any, ...] | None = None

    def __post_init__(self) -> None:
        if self.type not in OPTION_TYPES:
            raise TypeError(f"option {self.name!r}: type must be one of {', '.join(OPTION_TYPES.values())}")

    def parse(self, value: Any) -> Any:
        """``value`` as the option's type: a string (as the command line gives it) is converted, a value of the
        type is kept (an int is taken for a float; a list is a tuple), and ``None`` is kept when the default is
        ``None``. Raises TaskOptionError, naming the option, the value and what is valid."""
        if value is None and self.default is None:
            return None
        parsed = self._convert(value)
        if self.choices is not None:
            for item in parsed if self.type is list else (parsed,):
                if item not in self.choices:
                    raise self._error(value, f"one of {', '.join(map(str, self.choices))}")
        return parsed

    def describe(self) -> str:
        """Type, default and choices in a few words: ``int, default 3, one of 0, 1, 2, 3, 4``."""
        default = ("off" if self.default is None else ",".join(self.default) if self.type is list
                   else str(self.default).lower() if self.type is bool else str(self.default))
        text = f"{OPTION_TYPES[self.type]}, default {default or '(empty)'}"
        return text + (f", one of {', '.join(map(str, self.choices))}" if self.choices is not None else "")

    def _convert(self, value: Any) -> Any:
        kind = self.type
        if isinstance(value, str) and kind is not str:
            text = value.strip()
            if kind is bool and text.lower() in _TRUE + _FALSE:
                return text.lower() in _TRUE
            if kind is list:
                return tuple(item.strip() for item in text.split(",") if item.strip())
            try:
                number = int(text) if kind is int else float(text) if kind is float else None
            except ValueError:
                number = None
            if number is not None and math.isfinite(number):
                return number
        elif kind is list:
            if isinstance(value, list | tuple) and all(isinstance(item, str) for item in value):
                return tuple(value)
        elif kind is float:
            if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
                return float(value)
        elif isinstance(value, kind) and not (kind is int and isinstance(value, bool)):
            return value
        raise self._error(value, _EXPECTED[kind])

    def _error(self, value: Any, expected: str) -> TaskOptionError:
        return TaskOptionError(f"bad option {self.name}={value!r}; expected {expected}")


EXTRACT = TaskOption("extract", str, None, "which part of the output is checked (default: the task's own policy)")
"""The option every task takes: its answer-extraction policy, one of the registered ``answer_extractors``."""
