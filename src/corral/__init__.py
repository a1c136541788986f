"""Corral: constrained text generation with language models.

The same constraint value is checked, rendered, fed back, compiled into a decoding mask and turned into a
reward. The verbs are here; the types live in ``corral.constraints`` and ``corral.text``.
"""

from .constraints import Constraint, check, from_json, parse, render, to_json
from .text import Level, segment
from .verdicts import Verdict, Violation
from .version import __version__

__all__ = ["Constraint", "Level", "Verdict", "Violation", "__version__", "check", "from_json", "parse", "render",
           "segment", "to_json"]
