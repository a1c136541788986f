"""Real-world schemas shipped with Corral: SchemaStore (687 schemas with 3,164 labelled documents, a real Task 2
set) and a 3,000-schema sample of JSONSchemaBench (Task 1 and the compile benchmark).

What Corral cannot handle is reported with the reason, never skipped silently: a schema that is not valid for its
draft, a ``$ref`` that does not resolve (SchemaStore schemas may ``$ref`` each other by URL; those resolve through
``schemastore_registry``, others do not), a schema malformed where a reference must look.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from corral.jsonl import iter_jsonl

from ._errors import SchemaInputError
from ._validate import check_schema, validate

DATA = Path(__file__).parent / "data"
SCHEMASTORE_HOSTS = ("https://json.schemastore.org/", "https://www.schemastore.org/")


@dataclass(frozen=True)
class StoreDocument:
    file: str
    valid: bool
    source_format: str
    instance: Any


@dataclass(frozen=True)
class StoreSchema:
    name: str
    schema: dict[str, Any]
    documents: tuple[StoreDocument, ...]


@dataclass(frozen=True)
class BenchSchema:
    split: str
    file: str
    schema: Any

    @property
    def id(self) -> str:
        return self.file.removeprefix("data/").removesuffix(".json")


@lru_cache(maxsize=1)
def schemastore() -> tuple[StoreSchema, ...]:
    return tuple(StoreSchema(row["name"], row["schema"], tuple(StoreDocument(**doc) for doc in row["documents"]))
                 for row in iter_jsonl(DATA / "schemastore.jsonl.gz"))


@lru_cache(maxsize=1)
def jsonschemabench() -> tuple[BenchSchema, ...]:
    return tuple(BenchSchema(row["split"], row["file"], row["schema"])
                 for row in iter_jsonl(DATA / "jsonschemabench.jsonl.gz"))


@lru_cache(maxsize=1)
def schemastore_registry() -> Registry:
    """Every shipped SchemaStore schema at its ``json.schemastore.org`` and ``www.schemastore.org`` URLs, so their
    references to each other resolve; a schema the resolver cannot crawl (malformed) is left out."""
    resources = []
    for entry in schemastore():
        resource = Resource.from_contents(entry.schema, default_specification=DRAFT202012)
        try:
            Registry().with_resource("urn:corral:probe", resource).crawl()
        except (AttributeError, TypeError):
            continue
        resources += [(host + entry.name + ".json", resource) for host in SCHEMASTORE_HOSTS]
    return Registry().with_resources(resources).crawl()  # crawled once: later additions crawl only themselves


def problems(schema: Any, registry: Registry | None = None) -> list[str]:
    """Why Corral cannot use ``schema`` (empty: it can): invalid for its draft, or unresolvable references."""
    try:
        check_schema(schema, registry)
    except SchemaInputError as exc:
        return [str(exc)]
    return []


@dataclass(frozen=True)
class LabelledDocument:
    """One SchemaStore document for the validation task, or why it is left out (``excluded``)."""

    schema_name: str
    file: str
    source_format: str
    valid: bool
    instance: Any
    excluded: str | None = None


def schemastore_documents() -> Iterator[LabelledDocument]:
    """SchemaStore's labelled documents, each checked by Corral (ajv-compatible reading, as the labels were made).

    Left out, with the reason: documents of schemas with unresolvable references, and YAML documents whose
    conversion to JSON changed them (the labels were made on YAML 1.2 text, where ``on`` and ``yes`` are
    strings; the shared data was converted with YAML 1.1 rules, which make them booleans): such a document
    disagrees with its label on a boolean."""
    registry = schemastore_registry()
    for entry in schemastore():
        trouble = problems(entry.schema, registry)
        for doc in entry.documents:
            excluded = trouble[0] if trouble else None
            if excluded is None:
                found = validate(entry.schema, doc.instance, registry=registry, compat="ajv")
                if (not found) != doc.valid and doc.source_format == "yaml" and _about_booleans(found, doc):
                    excluded = "YAML 1.1 conversion turned a YAML 1.2 string (on, yes, no) into a boolean"
            yield LabelledDocument(entry.name, doc.file, doc.source_format, doc.valid, doc.instance, excluded)


def _about_booleans(found: list[Any], doc: StoreDocument) -> bool:
    if not found:  # labelled invalid, and Corral finds nothing wrong: a boolean key may have hidden the error
        return _has_boolean(doc.instance)
    return any(isinstance(v.seen, bool) or "'True'" in v.message or "'False'" in v.message for v in found)


def _has_boolean(value: Any) -> bool:
    if isinstance(value, bool):
        return True
    if isinstance(value, dict):
        return any(key in ("True", "False") or _has_boolean(item) for key, item in value.items())
    if isinstance(value, list):
        return any(_has_boolean(item) for item in value)
    return False
