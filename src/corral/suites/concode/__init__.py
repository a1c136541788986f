"""ConCodeEval (JSON Schema): write a sample that satisfies a schema, or say whether a sample does, for every
schema form and output form. The schema machinery itself (forms, validation, samples) is ``corral.schema``."""

from ._task import OUTPUT_FORMS, SCHEMA_FORMS, concode_gen, concode_val, locality, schema_size

__all__ = [
    "OUTPUT_FORMS",
    "SCHEMA_FORMS",
    "concode_gen",
    "concode_val",
    "locality",
    "schema_size",
]
