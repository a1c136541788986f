"""A constraint given on the command line (``corral check``, ``generate``, ``grammar``): its textual form or its
JSON, read into a ``Constraint`` or refused with one error (exit 2)."""

from __future__ import annotations

import json

from corral.constraints import Constraint, ConstraintJSONError, ConstraintSyntaxError, parse
from corral.registry import RegistryError
from corral.text import scrub

from ._console import fail


def load_spec(spec: str, profile: str | None) -> Constraint:
    """``spec`` (the textual form, or JSON when it starts with ``{``) as a constraint, with ``profile`` (a
    segmentation profile's name) in place of its own when given."""
    spec = scrub(spec)[0]  # bytes that are not UTF-8 reach argv as lone surrogates
    try:
        if spec.lstrip().startswith("{"):
            from corral.constraints import from_json

            constraint = from_json(json.loads(spec))
        else:
            constraint = parse(spec)
        if profile is not None:
            from dataclasses import replace

            from corral.text import get_profile

            get_profile(profile)
            constraint = replace(constraint, profile=profile)
        return constraint
    except ConstraintSyntaxError as exc:
        pointer = " " * (exc.column - 1) + "^" if exc.line == 1 and len(exc.spec) < 200 else ""
        detail = f"\n  {exc.spec}\n  {pointer}" if pointer else ""
        raise fail(f"bad constraint: {exc}{detail}") from None
    except (ConstraintJSONError, json.JSONDecodeError, RegistryError, ValueError) as exc:
        raise fail(f"bad constraint: {exc}") from None
    except RecursionError:
        raise fail("bad constraint: nested too deeply (at most 100 levels)") from None
