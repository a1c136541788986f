"""The roots of every error Corral raises on purpose, so a caller can catch "any Corral error" or one kind of it.

- ``InputError``: something a user gave is wrong (a constraint, an instances file, a schema, an option, a run
  directory); the message names what and where. It is a ``ValueError``.
- ``GrammarError``: a grammar cannot be built or handed to the engine (``NotExpressible`` below it). A ``ValueError``.
- ``ModelError``: a model cannot be loaded, reached or run on this machine. A ``RuntimeError``.
- ``OutputError``: a file Corral writes cannot be written (a full disk, no permission, a name too long, a
  directory in the way); the message names the path and the system's reason. An ``OSError``.

Each package's own error classes sit below one of these; the built-in bases they had are kept, so existing
``except ValueError`` clauses still catch them.
"""

from __future__ import annotations


class CorralError(Exception):
    """Any error Corral raises on purpose, with a message meant for the user."""


class InputError(CorralError, ValueError):
    """A user's input is wrong; the message names what is wrong and where (field path, line, column)."""


class GrammarError(CorralError, ValueError):
    """A grammar cannot be built, or the engine refuses it."""


class ModelError(CorralError, RuntimeError):
    """A model could not be loaded or reached, or a request cannot be served; the message says which and why."""


class OutputError(CorralError, OSError):
    """A file Corral writes cannot be opened, written, flushed or closed; the message names the path and the
    system's reason (``PATH: cannot write: No space left on device``).

    It stays an ``OSError`` (with the system's ``errno`` and ``strerror``), so that code which catches ``OSError``
    around a write, or asks for ``ENOSPC``, catches it still; ``str()`` is the message alone."""

    def __init__(self, message: str, errno: int | None = None, strerror: str | None = None) -> None:
        super().__init__(message)
        self.errno = errno  # type: ignore[misc]
        self.strerror = strerror  # type: ignore[misc]

    def __str__(self) -> str:  # OSError's own would print "[Errno 28] ..." once errno and strerror are set
        return str(self.args[0]) if self.args else ""
