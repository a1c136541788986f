"""Where every ``corral`` subcommand prints, and its one way to fail on bad input: one line, exit 2."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import typer
from rich.console import Console
from rich.markup import escape

from corral.errors import InputError, OutputError

out = Console()
err = Console(stderr=True)

EXIT_PASS, EXIT_FAIL, EXIT_BAD_INPUT = 0, 1, 2
EXIT_UNDECIDED = 3  # a check ran past its budget: neither passed nor failed
EXIT_INCOMPLETE = 4  # a run ended with instances missing or errored; rerun the same command to finish it


def fail(message: str) -> typer.Exit:
    """Print ``error: message`` to stderr and return the exit to raise (code 2). The message is printed as it is:
    brackets in it (``[hf]``, ``[collie-v1]``) are text, not rich markup."""
    err.print(f"[red]error:[/red] {escape(message)}", highlight=False, soft_wrap=True)
    return typer.Exit(EXIT_BAD_INPUT)


@contextmanager
def file_errors() -> Iterator[None]:
    """An input refused (``InputError``: a FIFO, a device, a file past its cap, a link out of a run directory) or an
    output that cannot be written (``OutputError``: a full disk, a name too long) that no command caught, as
    ``error: message`` and exit 2. The app's click group wraps every command in it, so none can end such an error
    in a traceback."""
    try:
        yield
    except (InputError, OutputError) as exc:
        raise fail(str(exc)) from None
