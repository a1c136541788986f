"""``corral schema``: generate a schema suite, render a schema in any of the five forms, validate and mutate samples.

Every command reads untrusted files, so every way a file can be wrong (missing, not JSON, not a JSON Schema, an
unresolvable ``$ref``, a sample in another format) ends in one ``error:`` line naming the file and exit code 2.
"""

from __future__ import annotations

import json
import random
import sys
from dataclasses import asdict, replace
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from corral import schema as js  # its names load their modules when first used (validation loads jsonschema)
from corral.constraints import DEFAULT_BUDGET, Budget, BudgetExceeded, enforce
from corral.errors import OutputError
from corral.jsonl import atomic_write, write_jsonl
from corral.schema import DATA_FORMS, FORMS

from ._console import EXIT_FAIL, EXIT_PASS, EXIT_UNDECIDED, fail, out
from ._options import MAX_MEMORY_MB, MAX_TIMEOUT, float_option, int_option, seed_option

MAX_SUITE = 100_000  # schema gen --n
MAX_DEPTH = 64  # schema gen --max-depth: subschema hops from the root

app = typer.Typer(help="JSON Schema tasks: generate, render, validate and mutate.", no_args_is_help=True)

_SUFFIX_FORMATS = {".json": "json", ".yaml": "yaml", ".yml": "yaml", ".xml": "xml"}


# ------------------------------------------------------------------------------------------------ reading input


def _read_text(source: str) -> str:
    """The text of a file, or of standard input for ``-``; a missing or unreadable file is a one-line error."""
    from corral.errors import InputError
    from corral.files import MAX_DOCUMENT_BYTES, read_input_text

    if source == "-":  # as much as a file may hold, and no more: `< /dev/zero` is refused, not read for ever
        data = sys.stdin.buffer.read(MAX_DOCUMENT_BYTES + 1)
        if len(data) > MAX_DOCUMENT_BYTES:
            raise fail(f"standard input: more than {MAX_DOCUMENT_BYTES:,} bytes")
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise fail(f"standard input: not UTF-8 text ({exc.reason} at byte {exc.start})") from None

    try:  # regular files only, at most 64 MiB: a FIFO or /dev/zero is refused, not read
        return read_input_text(source)
    except InputError as exc:
        raise fail(str(exc)) from None


def _suffix_format(source: str) -> str | None:
    """The data format a path's suffix names (None for stdin or an unknown suffix)."""
    return None if source == "-" else _SUFFIX_FORMATS.get(Path(source).suffix.lower())


def _load_schema(source: str) -> dict[str, Any]:
    """A checked JSON Schema from a JSON, YAML or typed-XML file (by suffix; stdin is JSON).

    The schema is checked here, before any use, so a bad keyword value or a dangling ``$ref`` is reported once
    with its path instead of surfacing later as a validator's stack trace."""
    text = _read_text(source)
    form = _suffix_format(source) or "json"
    try:
        schema: Any = js.parse_schema(text, form)  # type: ignore[arg-type]
    except js.SampleError as exc:  # the loaders speak of samples; here the text is a schema
        raise fail(f"{source}: {str(exc).replace('sample', 'schema', 1)}") from None
    except ValueError as exc:
        raise fail(f"{source}: {exc}") from None
    try:
        js.check_schema(schema)
    except js.SchemaInputError as exc:
        raise fail(f"{source}: {exc}") from None
    return schema


def _load_sample(source: str, format: str | None) -> Any:
    """The sample in ``source`` read as ``format`` (default: by suffix, else JSON)."""
    chosen = format or _suffix_format(source) or "json"
    if chosen not in js.SAMPLE_FORMATS:
        raise fail(f"unknown sample format {chosen!r}; valid: {', '.join(js.SAMPLE_FORMATS)}")
    try:
        return js.parse_sample(_read_text(source), chosen)  # type: ignore[arg-type]
    except js.SampleError as exc:
        raise fail(f"{source}: {exc}") from None


def _validate(schema: dict[str, Any], sample: Any, source: str, seconds: float = DEFAULT_BUDGET.seconds,
              memory_mb: float = DEFAULT_BUDGET.memory_mb) -> list[Any]:
    """Violations, with a schema problem found only while validating (a pattern that times out) as a one-liner.

    Validation runs under the check budget (``corral.constraints.enforce``): jsonschema's own work can be quadratic
    in the sample (``uniqueItems`` over 8,000 objects took 95 s), so past ``seconds`` or ``memory_mb`` the command
    prints ``UNDECIDED`` with the reason and exits 3, as ``corral check`` does."""
    try:
        with enforce(Budget(seconds=seconds, memory_mb=memory_mb)) as meter:
            violations = js.validate(schema, sample)
    except js.SchemaInputError as exc:
        raise fail(f"{source}: {exc}") from None
    except BudgetExceeded as exc:
        _undecided(exc.reason)
    if meter.exceeded:
        _undecided(meter.exceeded)
    return violations


def _undecided(reason: str) -> None:
    out.print(f"[yellow]UNDECIDED[/yellow]  {escape(reason)}", highlight=False, soft_wrap=True)  # as `corral check`
    raise typer.Exit(EXIT_UNDECIDED)


# ------------------------------------------------------------------------------------------------ commands


@app.command("gen")
def gen_command(
    output: Annotated[Path, typer.Option("--out", help="Folder for schemas.jsonl and census.json.")],
    n: Annotated[int, int_option(low=1, high=MAX_SUITE, help="How many schemas.")] = 602,
    seed: Annotated[int, seed_option("Suite seed; schema i has its own seed derived from it.")] = 0,
    max_depth: Annotated[int | None, int_option(low=0, high=MAX_DEPTH, help=(
        "Deepest nesting (subschema hops from the root)."))] = None,
    keywords: Annotated[str | None, typer.Option(help="Comma-separated keywords the generator may use.")] = None,
) -> None:
    """Generate a satisfiable schema suite, each schema with a valid sample, and print its census."""
    config = _config(max_depth, keywords)
    suite = js.generate_suite(n, seed, config)
    census = js.suite_census(suite)
    try:
        write_jsonl(output / "schemas.jsonl", (asdict(item) for item in suite))
        atomic_write(output / "census.json", json.dumps(census, indent=2) + "\n")
    except OutputError as exc:  # it names the file that could not be written
        raise fail(str(exc)) from None
    except OSError as exc:
        raise fail(f"{output}: cannot write: {exc.strerror}") from None
    _print_summary(suite, census, output)


def _config(max_depth: int | None, keywords: str | None) -> Any:
    """CONCODE with the given knobs replaced; a bad knob (unknown keyword, negative depth) is a one-line error."""
    changes: dict[str, Any] = {}
    if max_depth is not None:
        changes["max_depth"] = max_depth
    if keywords is not None:
        changes["keywords"] = frozenset(k.strip() for k in keywords.split(",") if k.strip())
    try:
        return replace(js.CONCODE, **changes)
    except ValueError as exc:
        raise fail(str(exc)) from None


def _print_summary(suite: list[Any], census: dict[str, int], output: Path) -> None:
    roots: dict[str, int] = {}
    for item in suite:
        kind = item.schema.get("type", "untyped") if isinstance(item.schema, dict) else "boolean schema"
        roots[str(kind)] = roots.get(str(kind), 0) + 1
    out.print(f"{len(suite)} schemas written to {output / 'schemas.jsonl'}", highlight=False)
    table = Table(title="root types")
    table.add_column("type")
    table.add_column("schemas", justify="right")
    for kind, count in sorted(roots.items(), key=lambda pair: (-pair[1], pair[0])):
        table.add_row(kind, str(count))
    out.print(table)
    table = Table(title="keyword census")
    table.add_column("keyword")
    table.add_column("occurrences", justify="right")
    for keyword, count in census.items():
        table.add_row(keyword, str(count))
    out.print(table)


@app.command("render")
def render_command(
    schema: Annotated[str, typer.Argument(help="Schema file (.json, .yaml/.yml, .xml) or '-' for JSON on stdin.")],
    form: Annotated[str, typer.Option("--as", help=f"One of {', '.join(FORMS)}.")] = "json",
) -> None:
    """Print SCHEMA in one of the five forms (json, yaml, xml, python, english)."""
    if form not in FORMS:
        raise fail(f"unknown form {form!r}; valid: {', '.join(FORMS)}")
    loaded = _load_schema(schema)
    try:
        text = js.render_schema(loaded, form)  # type: ignore[arg-type]
    except (js.SchemaInputError, ValueError) as exc:
        raise fail(f"{schema}: {exc}") from None
    print(text.rstrip("\n"))


@app.command("validate")
def validate_command(
    schema: Annotated[str, typer.Argument(help="Schema file (.json, .yaml/.yml, .xml) or '-'.")],
    sample: Annotated[str, typer.Argument(help="Sample file or '-' for stdin.")],
    format: Annotated[str | None, typer.Option(help=f"Sample format: {', '.join(DATA_FORMS)} (default: suffix).")]
    = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the violations as a JSON list.")] = False,
    timeout: Annotated[float, float_option(low=0, high=MAX_TIMEOUT, low_open=True, help=(
        "Seconds the validation may take."))] = DEFAULT_BUDGET.seconds,
    max_memory: Annotated[float, float_option(low=0, high=MAX_MEMORY_MB, low_open=True, help=(
        "MB of memory the validation may add."))] = DEFAULT_BUDGET.memory_mb,
) -> None:
    """Validate SAMPLE against SCHEMA: exit 0 if valid, 1 if not, 2 on bad input, 3 if the validation ran past its
    budget (not decided)."""
    if schema == "-" and sample == "-":
        raise fail("only one of SCHEMA and SAMPLE can be '-'")
    loaded = _load_schema(schema)
    data = _load_sample(sample, format)
    violations = _validate(loaded, data, schema, timeout, max_memory)
    if as_json:
        print(json.dumps([v.to_json() for v in violations], ensure_ascii=False, indent=2))
    elif violations:
        for violation in violations:
            out.print(violation.describe(), highlight=False, markup=False, soft_wrap=True)
    else:
        out.print("[green]valid[/green]", highlight=False)
    raise typer.Exit(EXIT_FAIL if violations else EXIT_PASS)


@app.command("mutate")
def mutate_command(
    schema: Annotated[str, typer.Argument(help="Schema file (.json, .yaml/.yml, .xml) or '-'.")],
    sample: Annotated[str, typer.Argument(help="A valid sample (file or '-').")],
    keyword: Annotated[str | None, typer.Option(help="Break this keyword (default: a random one).")] = None,
    seed: Annotated[int, seed_option("Seed for the choice of keyword, place and value.")] = 0,
    format: Annotated[str | None, typer.Option(help=f"Sample format: {', '.join(DATA_FORMS)} (default: suffix).")]
    = None,
) -> None:
    """Print a copy of the valid SAMPLE that breaks exactly one keyword of SCHEMA, and what was broken."""
    if schema == "-" and sample == "-":
        raise fail("only one of SCHEMA and SAMPLE can be '-'")
    if keyword is not None and keyword not in js.MUTABLE_KEYWORDS:
        raise fail(f"cannot mutate {keyword!r}; mutable keywords: {', '.join(sorted(js.MUTABLE_KEYWORDS))}")
    loaded = _load_schema(schema)
    data = _load_sample(sample, format)
    if violations := _validate(loaded, data, schema):
        raise fail(f"{sample}: the sample is not valid ({violations[0].describe()}); mutate needs a valid one")
    mutation = js.mutate(loaded, data, random.Random(seed), keyword)
    if mutation is None:
        which = f"the keyword {keyword!r}" if keyword else "any keyword"
        raise fail(f"{sample}: no single change to the sample breaks {which} of the schema")
    print(json.dumps(mutation.sample, ensure_ascii=False, indent=2))
    out.print(f"keyword: {mutation.keyword}\npath: {mutation.instance_path or '/'}\n"
              f"schema path: {mutation.schema_path}\ndescription: {mutation.description}",
              highlight=False, markup=False, soft_wrap=True)
