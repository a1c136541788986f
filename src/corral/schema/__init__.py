"""JSON Schema tasks (ConCodeEval and beyond): generate schemas, show them as JSON, YAML, XML, pydantic or English,
parse a model's sample from JSON, YAML or XML, validate it with every error's path and keyword, and mutate valid
samples into minimally invalid ones.

    suite = generate_suite(602, seed=0)                     # satisfiable schemas, each with a valid sample
    text = render_schema(suite[0].schema, "yaml")           # json, yaml, xml, python (pydantic v2), english
    sample = parse_sample(model_output, "xml")              # from a fenced block or the whole output, safely
    for violation in validate(suite[0].schema, sample):     # path, keyword, expected, seen, message
        print(violation.describe())
    broken = mutate(schema, sample, random.Random(0))       # invalid in exactly one named keyword

docs/schema.md describes the forms, the conventions of the XML and YAML samples, and what is validated how.
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._check import SampleCheck, check_sample
    from ._conformance import ConformanceReport, run_test_suite
    from ._cycles import endless_cycle
    from ._ecma import is_regex
    from ._english import describe
    from ._errors import SchemaInputError
    from ._forms import DATA_FORMS, FORMS, DataForm, SchemaForm, parse_schema, render_sample, render_schema
    from ._generate import (
        ALL_KEYWORDS,
        CONCODE,
        GeneratedSchema,
        GeneratorConfig,
        generate_one,
        generate_schema,
        generate_suite,
        suite_census,
    )
    from ._generate import PATTERNS as GENERATOR_PATTERNS
    from ._mutate import BROKEN_FORMATS, MUTABLE_KEYWORDS, Mutation, mutate
    from ._parse import SAMPLE_FORMATS, SampleError, SampleFormat, extract_block, parse_sample, read_data_file
    from ._pydantic import (
        PYDANTIC_CONDITIONAL,
        PYDANTIC_UNSUPPORTED,
        pydantic_equivalent,
        to_pydantic,
        unsupported_keywords,
    )
    from ._realworld import jsonschemabench, schemastore, schemastore_documents, schemastore_registry
    from ._sample import FORMATS as STRING_FORMATS
    from ._sample import NoSampleError, valid_sample
    from ._sample import pointer as json_pointer
    from ._sample import words as sample_words
    from ._validate import RefProblem, SchemaViolation, check_schema, is_valid, unresolvable_refs, validate
    from ._walk import keyword_census, schema_depth, subschemas

# Names load their module on first use (PEP 562): validation pulls in jsonschema, whose format checkers build a
# parser for RFC 3987 when imported (1.6 s), and every ``corral`` command imports this package for its ``schema``
# subcommands; a command that validates nothing should not wait for that.
_WHERE = {
    "CONCODE": "._generate",
    "ConformanceReport": "._conformance",
    "DATA_FORMS": "._forms",
    "DataForm": "._forms",
    "FORMS": "._forms",
    "GeneratedSchema": "._generate",
    "GeneratorConfig": "._generate",
    "MUTABLE_KEYWORDS": "._mutate",
    "Mutation": "._mutate",
    "NoSampleError": "._sample",
    "PYDANTIC_UNSUPPORTED": "._pydantic",
    "RefProblem": "._validate",
    "SAMPLE_FORMATS": "._parse",
    "SampleCheck": "._check",
    "SampleError": "._parse",
    "SampleFormat": "._parse",
    "SchemaForm": "._forms",
    "SchemaInputError": "._errors",
    "SchemaViolation": "._validate",
    "check_sample": "._check",
    "check_schema": "._validate",
    "describe": "._english",
    "extract_block": "._parse",
    "generate_schema": "._generate",
    "generate_suite": "._generate",
    "is_regex": "._ecma",
    "is_valid": "._validate",
    "jsonschemabench": "._realworld",
    "keyword_census": "._walk",
    "mutate": "._mutate",
    "parse_sample": "._parse",
    "parse_schema": "._forms",
    "pydantic_equivalent": "._pydantic",
    "read_data_file": "._parse",
    "render_sample": "._forms",
    "render_schema": "._forms",
    "run_test_suite": "._conformance",
    "schemastore": "._realworld",
    "schemastore_documents": "._realworld",
    "schemastore_registry": "._realworld",
    "subschemas": "._walk",
    "suite_census": "._generate",
    "to_pydantic": "._pydantic",
    "unresolvable_refs": "._validate",
    "unsupported_keywords": "._pydantic",
    "valid_sample": "._sample",
    "validate": "._validate",
    "ALL_KEYWORDS": "._generate",
    "GENERATOR_PATTERNS": "._generate:PATTERNS",
    "generate_one": "._generate",
    "STRING_FORMATS": "._sample:FORMATS",
    "sample_words": "._sample:words",
    "json_pointer": "._sample:pointer",
    "schema_depth": "._walk",
    "endless_cycle": "._cycles",
    "BROKEN_FORMATS": "._mutate",
    "PYDANTIC_CONDITIONAL": "._pydantic",
}


def __getattr__(name: str) -> object:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    module, _, attribute = where.partition(":")  # "._module:attribute" where the face's name is another
    value = getattr(import_module(module, __name__), attribute or name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


__all__ = [
    "ALL_KEYWORDS",
    "BROKEN_FORMATS",
    "CONCODE",
    "DATA_FORMS",
    "FORMS",
    "GENERATOR_PATTERNS",
    "MUTABLE_KEYWORDS",
    "PYDANTIC_CONDITIONAL",
    "PYDANTIC_UNSUPPORTED",
    "SAMPLE_FORMATS",
    "STRING_FORMATS",
    "ConformanceReport",
    "DataForm",
    "GeneratedSchema",
    "GeneratorConfig",
    "Mutation",
    "NoSampleError",
    "RefProblem",
    "SampleCheck",
    "SampleError",
    "SampleFormat",
    "SchemaForm",
    "SchemaInputError",
    "SchemaViolation",
    "check_sample",
    "check_schema",
    "describe",
    "endless_cycle",
    "extract_block",
    "generate_one",
    "generate_schema",
    "generate_suite",
    "is_regex",
    "is_valid",
    "json_pointer",
    "jsonschemabench",
    "keyword_census",
    "mutate",
    "parse_sample",
    "parse_schema",
    "pydantic_equivalent",
    "read_data_file",
    "render_sample",
    "render_schema",
    "run_test_suite",
    "sample_words",
    "schema_depth",
    "schemastore",
    "schemastore_documents",
    "schemastore_registry",
    "subschemas",
    "suite_census",
    "to_pydantic",
    "unresolvable_refs",
    "unsupported_keywords",
    "valid_sample",
    "validate",
]
