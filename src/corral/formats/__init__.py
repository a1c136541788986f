"""Format checkers (FormatBench): each returns violations with rule, message, span, expected and seen."""

from ._core import (
    MODES,
    FormatChecker,
    FormatVerdict,
    InstanceError,
    Violation,
    check_format,
    get_checker,
)

__all__ = ["MODES", "FormatChecker", "FormatVerdict", "InstanceError", "Violation", "check_format", "get_checker"]
