"""Where every ``corral`` subcommand prints, and its one way to fail on bad input: one line, exit 2."""

from __future__ import annotations

import typer
from rich.console import Console
from rich.markup import escape

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
