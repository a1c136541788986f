"""Checking a model's output against a schema in one step: read the sample (JSON, YAML or XML), validate it, and
say what ConCodeEval counts: was it a sample at all (IS), is its root of the schema's type (RTV), and which
keywords it broke where, as feedback a model can act on."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from corral.verdicts import Verdict, Violation

from ._parse import SampleError, SampleFormat, parse_sample
from ._validate import SchemaViolation, validate

MAX_FEEDBACK = 10
"""Feedback names at most this many broken keywords (a model cannot act on a hundred at once)."""
JSON_TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


@dataclass(frozen=True)
class SampleCheck:
    """A sample check's evidence (its verdict's ``detail``): the output's format, why it was not a sample
    (``parse_error``), the validator's own violations (with each keyword's place in the schema), whether the
    root has the schema's type, and the parsed sample."""

    format: str
    parse_error: str | None = None
    schema_violations: tuple[SchemaViolation, ...] = ()
    root_type_ok: bool = True
    sample: Any = field(default=None, compare=False)

    @property
    def parsed(self) -> bool:
        return self.parse_error is None

    @property
    def keywords(self) -> list[str]:
        return sorted({violation.keyword for violation in self.schema_violations})

    def to_json(self) -> dict[str, Any]:
        return {"format": self.format, "parse_error": self.parse_error, "root_type_ok": self.root_type_ok}


def root_type_ok(schema: Any, sample: Any) -> bool:
    """Whether the sample's root is of (one of) the schema's root ``type``s (true when the schema names none)."""
    declared = schema.get("type") if isinstance(schema, dict) else None
    if declared is None:
        return True
    for name in declared if isinstance(declared, list) else [declared]:
        if name == "integer" and not isinstance(sample, bool) and (
                isinstance(sample, int) or (isinstance(sample, float) and sample.is_integer())):
            return True
        if name == "number" and isinstance(sample, int | float) and not isinstance(sample, bool):
            return True
        expected = JSON_TYPES.get(name)
        if expected is not None and isinstance(sample, expected) and not (expected is not bool
                                                                           and isinstance(sample, bool)):
            return True
    return False


def check_sample(schema: Any, output: str, format: SampleFormat, extract: bool = True,
                 **options: Any) -> Verdict[SampleCheck]:
    """Read ``output`` as a ``format`` sample (its fenced block, if any) and validate it against ``schema``: one
    violation per broken keyword (rule: the keyword, path: where in the sample), or one of rule ``parse`` when
    the output is not a sample at all."""
    try:
        sample = parse_sample(output, format, extract=extract)
    except SampleError as exc:
        reason = str(exc).split(": ", 1)[-1]
        message = f"The answer is not a {format.upper()} sample ({reason})."
        return Verdict.of([Violation("parse", message)], feedback=message,
                          detail=SampleCheck(format, parse_error=reason, root_type_ok=False))
    found = tuple(validate(schema, sample, **options))
    violations = [Violation(v.keyword, v.describe(), path=v.path or "/", expected=v.expected, seen=v.seen)
                  for v in found]
    lines = [violation.describe() for violation in found[:MAX_FEEDBACK]]
    more = f" (and {len(found) - MAX_FEEDBACK} more)" if len(found) > MAX_FEEDBACK else ""
    feedback = "The sample breaks the schema: " + "; ".join(lines) + more + "." if found else ""
    return Verdict.of(violations, feedback=feedback,
                      detail=SampleCheck(format, schema_violations=found, root_type_ok=root_type_ok(schema, sample),
                                         sample=sample))
