"""The one error type for a schema Corral cannot use (shared by validation, rendering and compiling)."""

from corral.errors import InputError


class SchemaInputError(InputError):
    """A schema Corral cannot use: not a JSON Schema, a bad pattern, or a ``$ref`` it cannot resolve; the
    message is one line naming the schema path and the problem."""
