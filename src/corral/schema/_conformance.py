"""Running the official JSON-Schema-Test-Suite through Corral's validation path.

The suite's files are arrays of ``{description, schema, tests: [{description, data, valid}]}``; remote
references (``http://localhost:1234/...``) resolve to its ``remotes/`` folder through a registry built here, so
nothing is fetched. Required tests run with formats as annotations (the 2020-12 default the suite expects); the
``optional/format`` tests and draft 7's ``format.json`` assert formats. Where Corral disagrees with the suite, it
is in ``optional/format`` only: jsonschema's format checkers are looser or stricter than the RFCs in places
(docs/schema.md lists them).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referencing import Registry, Resource
from referencing.jsonschema import DRAFT7, DRAFT202012

from ._errors import SchemaInputError
from ._validate import validate

DRAFTS = {"draft2020-12": (DRAFT202012, "https://json-schema.org/draft/2020-12/schema"),
          "draft7": (DRAFT7, "http://json-schema.org/draft-07/schema#")}
REMOTE = "http://localhost:1234/"


@dataclass(frozen=True)
class Disagreement:
    draft: str
    file: str
    group: str
    test: str
    expected: bool
    got: bool | str


@dataclass
class ConformanceReport:
    total: int = 0
    disagreements: list[Disagreement] = field(default_factory=list)

    @property
    def agreed(self) -> int:
        return self.total - len(self.disagreements)

    def by_file(self) -> Counter[str]:
        return Counter(f"{d.draft}/{d.file}" for d in self.disagreements)


def remotes_registry(suite: Path, draft: str) -> Registry:
    """The suite's ``remotes/`` as ``http://localhost:1234/<path>`` resources (default dialect: ``draft``)."""
    specification = DRAFTS[draft][0]
    resources = []
    for path in sorted((suite / "remotes").rglob("*.json")):
        contents = json.loads(path.read_text(encoding="utf-8"))
        uri = REMOTE + path.relative_to(suite / "remotes").as_posix()
        resources.append((uri, Resource.from_contents(contents, default_specification=specification)))
    return Registry().with_resources(resources)


def asserts_formats(draft: str, file: str) -> bool:
    return file.startswith("optional/format/") or (draft == "draft7" and file == "format.json")


def run_test_suite(suite: Path, drafts: tuple[str, ...] = tuple(DRAFTS)) -> ConformanceReport:
    """Every test of the given drafts, validated by Corral; the report lists where the verdict differs."""
    report = ConformanceReport()
    for draft in drafts:
        registry = remotes_registry(suite, draft)
        folder = suite / "tests" / draft
        for path in sorted(folder.rglob("*.json")):
            file = path.relative_to(folder).as_posix()
            for group in json.loads(path.read_text(encoding="utf-8")):
                schema = _with_dialect(group["schema"], draft)
                for test in group["tests"]:
                    report.total += 1
                    got = _verdict(schema, test["data"], asserts_formats(draft, file), registry)
                    if got != test["valid"]:
                        report.disagreements.append(
                            Disagreement(draft, file, group["description"], test["description"], test["valid"], got))
    return report


def _with_dialect(schema: Any, draft: str) -> Any:
    """A suite schema names no ``$schema`` when it is of the folder's draft; say so, as the suite's README asks."""
    if isinstance(schema, dict) and "$schema" not in schema:
        return {"$schema": DRAFTS[draft][1], **schema}
    return schema


def _verdict(schema: Any, data: Any, formats: bool, registry: Registry) -> bool | str:
    try:
        return not validate(schema, data, assert_formats=formats, registry=registry)
    except SchemaInputError as exc:
        return f"error: {exc}"
