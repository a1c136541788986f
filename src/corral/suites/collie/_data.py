"""The COLLIE-v1 instances shipped with Corral (MIT, see DATA_LICENSES.md), as plain data."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from importlib.resources import files
from typing import Any

from corral.constraints import Constraint
from corral.jsonl import iter_jsonl

from ._structures import BY_CODE, constraint_for

DATA_FILE = "collie_v1.jsonl.gz"


@dataclass(frozen=True)
class Instance:
    """One COLLIE-v1 instance.

    Attributes:
        id: ``{source}_{code}_{i}``.
        source: wiki, ccnews, guten or english.
        code: the data's structure code (c01 ... c14).
        prompt: the reference's rendered instruction.
        targets: the values, as stored.
        example: the corpus text the values were extracted from.
        reference_verdict: the reference checker's verdict on ``example``.
    """

    id: str
    source: str
    code: str
    prompt: str
    targets: Any
    example: str
    reference_verdict: bool

    @property
    def structure(self) -> str:
        """The paper's name of the structure (sent02, ...)."""
        return BY_CODE[self.code].name

    @property
    def constraint(self) -> Constraint:
        return constraint_for(self.code, self.targets)


def instances() -> Iterator[Instance]:
    """All 2,080 COLLIE-v1 instances, in the data's order."""
    for row in iter_jsonl(files("corral.suites.collie").joinpath("data", DATA_FILE)):
        yield Instance(row["id"], row["source"], row["code"], row["prompt"], row["targets"], row["example"],
                       row["collie_verdict_on_example"])
