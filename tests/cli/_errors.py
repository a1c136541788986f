"""The one assertion every CLI test makes of bad input: exit 2, one ``error:`` line, no traceback."""

from __future__ import annotations

from typing import Any


def one_line_error(result: Any, *needles: str, stream: str = "output") -> str:
    """The single ``error:`` line of a ``CliRunner`` result that exited 2 (read from ``stream``: ``output``, both
    streams, or ``stderr``), holding every needle; asserts there is no traceback."""
    text = result.stderr if stream == "stderr" else result.output
    assert result.exit_code == 2, result.output
    lines = [line for line in text.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:"), text
    assert "Traceback" not in result.output
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def one_line_stderr_error(result: Any, *needles: str) -> str:
    """``one_line_error`` on standard error alone (a command that also printed progress on standard output)."""
    return one_line_error(result, *needles, stream="stderr")
