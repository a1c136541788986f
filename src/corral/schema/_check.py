"""Checking a model's output against a schema in one step: read the sample (JSON, YAML or XML), validate it, and
say what ConCodeEval counts: was it a sample at all (IS), is its root of the schema's type (RTV), and which
keywords it broke where, as feedback a model can act on."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ._parse import SampleError, SampleFormat, parse_sample
from ._validate import SchemaViolation, validate

JSON_TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


@dataclass(frozen=True)
class SampleVerdict:
    """The verdict on one output: ``parse_error`` when it is not a sample of its format, else the violations."""

    format: str
    parse_error: str | None = None
    violations: tuple[SchemaViolation, ...] = ()
    root_type_ok: bool = True
    sample: Any = field(default=None, compare=False)

    @property
    def parsed(self) -> bool:
        return self.parse_error is None

    @property
    def passed(self) -> bool:
        return self.parsed and not self.violations

    @property
    def score(self) -> float:
        return 1.0 if self.passed else 0.0

    @property
    def keywords(self) -> list[str]:
        return sorted({violation.keyword for violation in self.violations})

    @property
    def feedback(self) -> str:
        if self.parse_error:
            return f"The answer is not a {self.format.upper()} sample ({self.parse_error})."
        if not self.violations:
            return ""
        lines = [violation.describe() for violation in self.violations[:10]]
        more = f" (and {len(self.violations) - 10} more)" if len(self.violations) > 10 else ""
        return "The sample breaks the schema: " + "; ".join(lines) + more + "."

    def to_json(self) -> dict[str, Any]:
        return {"passed": self.passed, "format": self.format, "parse_error": self.parse_error,
                "root_type_ok": self.root_type_ok, "violations": [v.to_json() for v in self.violations]}


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


def check_sample(schema: Any, output: str, format: SampleFormat, extract: bool = True, **options: Any) -> SampleVerdict:
    """Read ``output`` as a ``format`` sample (its fenced block, if any) and validate it against ``schema``."""
    try:
        sample = parse_sample(output, format, extract=extract)
    except SampleError as exc:
        return SampleVerdict(format, parse_error=str(exc).split(": ", 1)[-1], root_type_ok=False)
    return SampleVerdict(format, violations=tuple(validate(schema, sample, **options)),
                         root_type_ok=root_type_ok(schema, sample), sample=sample)
