"""The numeric options of every ``corral`` command, and usage errors as one ``error:`` line.

A numeric option is declared with :func:`int_option` or :func:`float_option`: its value is parsed and checked
while the command line is read, before the command runs (so before any model or file is loaded), and a value
that is not a number, not finite (``nan``, ``inf``) or outside the option's bounds is one line naming the option
and the bounds, exit 2::

    error: --temperature must be a finite number in [0, 2], got nan

:class:`UsageErrors` is the click group class of the ``corral`` app: every usage error click raises for any
command or subcommand (an unknown option, a missing argument, a value of the wrong type, an extra argument)
prints ``error: <message>`` on one line instead of click's boxed panel, and exits 2. The bounds are in
``docs/hostile-input.md``.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import typer
from typer.core import TyperGroup

from corral.evaluation import MAX_INSTANCES as MAX_INSTANCES  # the bounds an EvalSpec holds, shared by every command
from corral.evaluation import MAX_TOKENS as MAX_TOKENS
from corral.evaluation import SEED_MAX
from corral.text import printable

from ._console import EXIT_BAD_INPUT, err, fail, file_errors

MAX_TIMEOUT = 86_400.0
"""--timeout: a day per check."""
MAX_MEMORY_MB = 1_048_576.0
"""--max-memory: 1 TiB."""
WORKERS_MAX = max(64, os.cpu_count() or 1)
"""The most worker processes ``--workers`` starts: 64, or the CPU count where a machine has more. Every worker is
a process of its own, so a large number exhausts memory at once; more is refused, not clamped."""

_INT_TEXT = re.compile(r"[+-]?[0-9]+")
_MAX_DIGITS = 40  # int() of a longer digit string is out of every range here (and past 4,300 digits, an error)
_SHOWN = 40  # the most characters of a bad value an error repeats


class OutOfBounds(ValueError):
    """A value that is not a number of the kind asked for, or outside its bounds; the message says which."""


@dataclass(frozen=True)
class Bounds:
    """What a numeric option takes: whole numbers (``kind`` int) or finite numbers (float) from ``low`` to
    ``high``; ``low_open`` / ``high_open`` leave that end out (``(0, 1]``). Called with the option's text (or its
    default), it returns the number or raises :class:`BoundsError` (a click usage error); :meth:`check` is the
    same check raising :class:`OutOfBounds`, a ``ValueError``, for code that is not a command line."""

    kind: type
    low: float
    high: float
    low_open: bool = False
    high_open: bool = False

    def __post_init__(self) -> None:
        if self.kind not in (int, float) or not (math.isfinite(self.low) and math.isfinite(self.high)):
            raise TypeError(f"bad bounds: {self}")
        if self.low > self.high:
            raise TypeError(f"empty bounds: {self}")

    def interval(self) -> str:
        """The bounds as an interval, ``[1, 64]`` or ``(0, 1]``."""
        low, high = _number(self.low), _number(self.high)
        return f"{'(' if self.low_open else '['}{low}, {high}{')' if self.high_open else ']'}"

    def describe(self) -> str:
        kind = "a whole number" if self.kind is int else "a finite number"
        return f"{kind} in {self.interval()}"

    def check(self, value: Any) -> int | float:
        """``value`` (a number, or its text as typed) as this kind of number, or :class:`OutOfBounds`."""
        number, shown = self._parse(value)
        inside = number is not None and math.isfinite(number) and (
            (self.low < number if self.low_open else self.low <= number)
            and (number < self.high if self.high_open else number <= self.high))
        if not inside:
            raise OutOfBounds(f"must be {self.describe()}, got {shown}")
        assert number is not None
        return number

    def __call__(self, value: Any) -> int | float:
        """typer's parser: the checked number, or a usage error that names the option (:class:`BoundsError`)."""
        try:
            return self.check(value)
        except OutOfBounds as exc:
            raise BoundsError(str(exc)) from None

    def _parse(self, value: Any) -> tuple[int | float | None, str]:
        """The number ``value`` holds (None if it holds none of this kind), and how to show it in an error."""
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            return None, _shown(repr(value))
        if not isinstance(value, str):
            if self.kind is int:
                if isinstance(value, float) and not (math.isfinite(value) and value.is_integer()):
                    return None, _shown(repr(value))
                return int(value), _shown(_number(value))
            try:
                return float(value), _shown(_number(value))
            except OverflowError:  # an int past the largest float
                return math.copysign(math.inf, value), _shown(_number(value))
        text = value.strip()
        if self.kind is int:
            if not _INT_TEXT.fullmatch(text):
                return None, _shown(repr(value))
            if len(text.lstrip("+-")) > _MAX_DIGITS:  # far out of range: no need to convert it
                return math.inf if not text.startswith("-") else -math.inf, _shown(text)
            return int(text), _shown(text)
        try:
            return float(text), _shown(text)
        except ValueError:
            return None, _shown(repr(value))


class BoundsError(typer.BadParameter):
    """A numeric option's value refused while the command line is read. Its message starts with the option's
    name (click attaches the option to the error): ``--temperature must be a finite number in [0, 2], got nan``."""

    def format_message(self) -> str:
        return f"{option_name(self.param) or self.param_hint or 'a value'} {self.message}"


def option_name(param: Any) -> str | None:
    """How the user writes an option: its first long name (``--max-tokens``), else its first name."""
    names = list(getattr(param, "opts", None) or [])
    return next((n for n in names if n.startswith("--")), names[0] if names else None)


def int_option(*names: str, low: int, high: int, help: str | None = None, **options: Any) -> Any:
    """A ``typer.Option`` taking a whole number in ``[low, high]``; the help names the bounds."""
    return _option(Bounds(int, low, high), names, help, options)


def float_option(*names: str, low: float, high: float, low_open: bool = False, high_open: bool = False,
                 help: str | None = None, **options: Any) -> Any:
    """A ``typer.Option`` taking a finite number from ``low`` to ``high`` (``low_open``: ``low`` itself is
    refused); the help names the bounds."""
    return _option(Bounds(float, low, high, low_open, high_open), names, help, options)


def seed_option(help: str | None = None) -> Any:
    """``--seed``: a whole number in ``[0, SEED_MAX]``."""
    return int_option(low=0, high=SEED_MAX, help=help)


def workers_option(help: str | None = None) -> Any:
    """``--workers``: processes, ``[1, WORKERS_MAX]``."""
    return int_option(low=1, high=WORKERS_MAX, help=help)


def _option(bounds: Bounds, names: tuple[str, ...], help: str | None, options: dict[str, Any]) -> Any:
    shown = f"{help + ' ' if help else ''}Range {bounds.interval()}."
    return typer.Option(*names, parser=bounds, help=shown, **options)


def bounds_of(param: Any) -> Bounds | None:
    """The :class:`Bounds` a click parameter was declared with (None for any other parameter)."""
    descriptor = getattr(param, "type_descriptor", None)  # typer >= 0.2x keeps the declaration here
    parser = getattr(getattr(descriptor, "parameter_info", None), "parser", None)
    parser = parser or getattr(getattr(param, "type", None), "func", None)  # older typers: a click FuncParamType
    return parser if isinstance(parser, Bounds) else None


def _number(value: float) -> str:
    """``2`` not ``2.0``, ``0.5``, ``1e-06``, ``nan``."""
    if isinstance(value, int):  # str() of an int past 4,300 digits is an error; such a one is shown by its size
        return str(value) if value.bit_length() <= 256 else f"{'-' if value < 0 else ''}a number past 10**77"
    return str(int(value)) if math.isfinite(value) and value.is_integer() and abs(value) < 1e16 else repr(value)


def _shown(text: str) -> str:
    return text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."


def task_options(values: list[str]) -> dict[str, str]:
    """``-T key=value`` pairs (``eval``, ``train``) as a dict of strings; the task's declaration converts and checks
    them."""
    options: dict[str, str] = {}
    for pair in values:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise fail(f"-T {pair!r}: write KEY=VALUE, e.g. -T checker_mode=reference")
        if key.strip() in options:
            raise fail(f"-T {key.strip()} is given twice")
        options[key.strip()] = value
    return options


def group_values(values: list[str]) -> dict[str, list[str]]:
    """``--where GROUP=V1,V2`` conditions (``eval``, ``train``): each group and its values."""
    filters: dict[str, list[str]] = {}
    for condition in values:
        group, sep, names = condition.partition("=")
        kept = [name.strip() for name in names.split(",") if name.strip()]
        if not sep or not group.strip() or not kept:
            raise fail(f"--where {condition!r}: write GROUP=VALUE[,VALUE...], e.g. enforcement=exact")
        filters[group.strip()] = kept
    return filters


# ------------------------------------------------------------------------------------------------ usage errors


def usage_line(exc: Exception) -> str:
    """A click error as the one line after ``error:``: click's message, controls and line breaks escaped, and for
    a usage error other than a refused value, where the help is (``see 'corral check --help'``)."""
    message = exc.format_message() if hasattr(exc, "format_message") else str(exc)
    message = printable(message).replace("\n", " ").replace("\t", " ").strip().removesuffix(".")
    message = message.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")  # line breaks too
    if message[:1].isupper() and message[1:2].islower():  # click's "No such option", "Missing argument"
        message = message[0].lower() + message[1:]
    ctx = getattr(exc, "ctx", None)
    if isinstance(exc, BoundsError):  # it names the option and its bounds already
        return message
    if ctx is not None and getattr(ctx, "command_path", ""):
        message += f"; see '{printable(ctx.command_path)} --help'"
    return message


# click's own errors (usage errors, bad parameters, file errors) are ClickExceptions; recent typers vendor click,
# so the class is found through the one error class typer exports (BadParameter -> UsageError -> ClickException)
_CLICK_ERROR: type[Exception] = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException")


@contextmanager
def one_line_errors() -> Iterator[None]:
    """Turn a click error raised inside into ``error: ...`` on stderr and exit 2. The help shown for a command
    given no arguments (click's ``NoArgsIsHelpError``, a usage error too) is left to click."""
    try:
        yield
    except Exception as exc:
        if not isinstance(exc, _CLICK_ERROR) or type(exc).__name__ == "NoArgsIsHelpError":
            raise
        err.print("[red]error:[/red] ", end="", highlight=False)
        err.print(usage_line(exc), highlight=False, markup=False, soft_wrap=True, emoji=False)
        raise typer.Exit(EXIT_BAD_INPUT) from None


class UsageErrors(TyperGroup):
    """The ``corral`` app's click group: usage errors of the app and of every command and subcommand under it are
    one line (:func:`one_line_errors`). Reading the command line is ``make_context`` (the app's own options) and
    ``invoke`` (a command's, which click parses inside the group's invoke), so wrapping both covers every command,
    whether run by ``main()`` or in-process by typer's ``CliRunner``."""

    def make_context(self, info_name: str | None, args: list[str], parent: Any = None, **extra: Any) -> Any:
        with one_line_errors():
            return super().make_context(info_name, args, parent=parent, **extra)

    def invoke(self, ctx: Any) -> Any:
        with one_line_errors(), file_errors():  # file_errors: a refused input or a failed write, one line too
            return super().invoke(ctx)
