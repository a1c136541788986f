"""``corral grammar``: try a grammar without a model. Does it accept a text (and where does the text leave it), what
does it generate, how does it close a prefix, what does it cost, and does everything it generates pass the checker.

The grammar comes from exactly one source: ``--constraint``, ``--schema``, ``--lark``, ``--regex`` (as ``corral
generate`` takes them) or ``--task T --instance ID`` (a suite instance's own grammar, with ``-T`` task options as
``corral eval`` takes them). Each compile runs under its budget (``--compile-seconds``); the work itself is the
public functions of ``corral.grammars`` (``first_rejection``, ``draw``, ``shortest_completion``, ``grammar_stats``,
``soundness``). ``--json`` prints one JSON object for scripts.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from corral.grammars import COMPILE_SECONDS, MAX_COMPILE_SECONDS

from ._console import EXIT_FAIL, EXIT_PASS, EXIT_UNDECIDED, fail, out
from ._options import float_option, int_option, seed_option, task_options

if TYPE_CHECKING:
    from corral.grammars import CompileBudget, Grammar, Rejection
    from corral.verdicts import Verdict

T = TypeVar("T")

app = typer.Typer(help="Try a grammar without a model: accepts, sample, complete, stats, soundness.",
                  no_args_is_help=True)

MAX_DRAWN = 10_000
"""The most texts ``sample`` and ``soundness`` draw in one command."""
MAX_DRAWN_BYTES = 1_000_000
"""The longest text one walk may write (``--max-bytes``)."""
DRAWN_BYTES = 2_000

# the grammar's source: the same options on every subcommand
Constraint_ = Annotated[str | None, typer.Option("--constraint", help="A constraint (textual form or JSON).")]
Schema_ = Annotated[Path | None, typer.Option("--schema", help="A JSON Schema file (JSON output).")]
Lark_ = Annotated[Path | None, typer.Option("--lark", help="A Lark grammar file (llguidance's dialect).")]
Regex_ = Annotated[str | None, typer.Option("--regex", help="A regular expression the whole text must match.")]
Task_ = Annotated[str | None, typer.Option("--task", help="A task (corral tasks lists them), with --instance.")]
Instance_ = Annotated[str | None, typer.Option("--instance", help="The id of --task's instance.")]
TaskOption_ = Annotated[list[str] | None, typer.Option(
    "-T", "--task-option", metavar="KEY=VALUE", help="A task option for --task (repeatable), as corral eval takes.")]
Json_ = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]


Seconds_ = Annotated[float | None, float_option(
    "--compile-seconds", low=0, high=MAX_COMPILE_SECONDS, low_open=True,
    help=f"Time the grammar's compile may take (default {COMPILE_SECONDS:g}); past it: exit 2.")]


@dataclass(frozen=True)
class _Source:
    """Where a grammar comes from: ``build`` makes it, ``checker`` judges a text (None: the source has none, a Lark
    grammar or a regex being its own definition), ``name`` says which it is."""

    build: Callable[[], Grammar | None]
    checker: Callable[[str], Verdict[Any]] | None
    name: str


def _source(constraint: str | None, schema: Path | None, lark: Path | None, regex: str | None, task: str | None,
            instance: str | None, task_option: list[str] | None) -> _Source:
    """The one grammar source the options name; a wrong combination is one line and exit 2."""
    given = [name for name, value in (("--constraint", constraint), ("--schema", schema), ("--lark", lark),
                                      ("--regex", regex), ("--task", task)) if value is not None]
    if len(given) != 1:
        got = f" (got {', '.join(given)})" if given else ""
        raise fail(f"give exactly one grammar source: --constraint, --schema, --lark, --regex or --task with "
                   f"--instance{got}")
    if (task is None) != (instance is None):
        raise fail("--task and --instance go together")
    if task_option and task is None:
        raise fail("-T sets an option of --task")
    if task is not None and instance is not None:
        return _task_source(task, instance, task_option or [])
    from ._generate import grammar_from_options

    checker: Callable[[str], Verdict[Any]] | None = None
    spec = None
    if constraint is not None:
        from corral.constraints import check

        from ._constraint import load_spec

        spec = load_spec(constraint, None)
        checker = partial(check, spec)
        name = f"constraint {spec}"
    elif schema is not None:
        checker = _schema_checker(schema)
        name = f"JSON Schema {schema}"
    else:
        name = f"Lark grammar {lark}" if lark is not None else f"regex {regex!r}"

    def build() -> Grammar | None:
        return grammar_from_options(spec, schema, lark, regex)

    return _Source(build, checker, name)


def _schema_checker(path: Path) -> Callable[[str], Verdict[Any]]:
    """A text as JSON valid against the schema in ``path`` (``corral.schema.check_sample``; the file is read when
    first needed, after the compile has read it)."""
    from corral.schema import check_sample

    from ._generate import _read_json

    schema: list[Any] = []

    def checker(text: str) -> Verdict[Any]:
        if not schema:
            schema.append(_read_json(path))
        return check_sample(schema[0], text, "json", extract=False)

    return checker


def _task_source(name: str, ident: str, options: list[str]) -> _Source:
    """A task instance's own grammar (``task.grammar(instance)``) and its judging (``task.judge``: the answer the
    task extracts, checked as a run checks it)."""
    from corral.registry import RegistryError
    from corral.tasks import get_task

    try:
        task = get_task(name, **task_options(options))
        found = next((inst for inst in task.instances() if inst.id == ident), None)
    except (RegistryError, ValueError) as exc:
        raise fail(_first_line(exc)) from None
    if found is None:
        raise fail(f"task {name!r} has no instance {ident!r}")
    instance = found

    def checker(text: str) -> Verdict[Any]:
        return task.judge(instance, text, quality=False).verdict

    return _Source(partial(task.grammar, instance), checker, f"{name} instance {ident}")


def _guarded(compile: Callable[[], T]) -> T:
    """``compile()``, with a grammar that cannot be made (``NotExpressible``, past its budget too), an unreadable
    file or a bad option as one line and exit 2."""
    from corral.grammars import GrammarError

    try:
        return compile()
    except (GrammarError, ValueError) as exc:
        raise fail(_first_line(exc)) from None


def _grammar(source: _Source, seconds: float | None) -> Grammar:
    """The source's grammar, compiled within ``--compile-seconds``."""
    from corral.grammars import within_budget

    grammar = _guarded(lambda: within_budget(source.build, _budget(seconds)))
    if grammar is None:
        raise fail(f"{source.name} gives no grammar")
    return grammar


def _budget(seconds: float | None) -> CompileBudget:
    from corral.grammars import CompileBudget

    return CompileBudget() if seconds is None else CompileBudget(seconds=seconds)


def _first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def _print_json(row: dict[str, Any]) -> None:
    # ASCII only: every control and separator character escaped, nothing for a terminal to act on; the same JSON
    print(json.dumps(row, ensure_ascii=True))


def _say(text: str) -> None:
    from corral.text import printable

    out.print(printable(text), markup=False, highlight=False, soft_wrap=True, emoji=False)


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def _rejection_lines(rejection: Rejection, data: bytes) -> list[str]:
    before = data[max(0, rejection.offset - 40):rejection.offset].decode("utf-8", errors="replace")
    lines = [f"  {rejection.reason()}"]
    if before:
        lines.append(f"  after: {json.dumps(before, ensure_ascii=False)}")
    return lines


# ------------------------------------------------------------------------------------------------ commands
@app.command("accepts")
def accepts_command(
    text: Annotated[str | None, typer.Argument(help="The text ('-' reads standard input).")] = None,
    file: Annotated[Path | None, typer.Option("--file", help="Read the text from this file instead.")] = None,
    constraint: Constraint_ = None, schema: Schema_ = None, lark: Lark_ = None, regex: Regex_ = None,
    task: Task_ = None, instance: Instance_ = None, task_option: TaskOption_ = None, compile_seconds: Seconds_ = None,
    as_json: Json_ = False,
) -> None:
    """Does the grammar accept TEXT? If not, the byte (line, column) where the text leaves it and what the grammar
    allowed there. Exit 0 accepted, 1 rejected, 2 bad input."""
    from corral.grammars import first_rejection

    body = _text(text, file)
    source = _source(constraint, schema, lark, regex, task, instance, task_option)
    grammar = _grammar(source, compile_seconds)
    rejection = first_rejection(grammar, body)
    data = body.encode("utf-8")
    if as_json:
        _print_json({"accepted": rejection is None, "bytes": len(data), "grammar": source.name,
                     "rejection": rejection.to_json() if rejection is not None else None})
    elif rejection is None:
        out.print(f"[green]ACCEPTED[/green]  {len(data)} bytes", highlight=False)
    else:
        out.print("[red]REJECTED[/red]", highlight=False)
        for line in _rejection_lines(rejection, data):
            _say(line)
    raise typer.Exit(EXIT_PASS if rejection is None else EXIT_FAIL)


def _text(text: str | None, file: Path | None) -> str:
    import sys

    from corral.files import read_input_text
    from corral.text import scrub

    if (text is None) == (file is None):
        raise fail("give the TEXT or --file FILE (not both)")
    if file is not None:
        try:
            return read_input_text(file)
        except (OSError, ValueError) as exc:
            raise fail(str(exc)) from None
    if text == "-":
        return sys.stdin.read()
    return scrub(text)[0]  # type: ignore[arg-type]


@app.command("sample")
def sample_command(
    n: Annotated[int, int_option("--n", low=1, high=MAX_DRAWN, help="How many texts.")] = 5,
    seed: Annotated[int, seed_option("The walks' seed: the same seed draws the same texts.")] = 0,
    max_bytes: Annotated[int, int_option("--max-bytes", low=1, high=MAX_DRAWN_BYTES, help=(
        "The longest text a walk may write; a longer walk gives none."))] = DRAWN_BYTES,
    constraint: Constraint_ = None, schema: Schema_ = None, lark: Lark_ = None, regex: Regex_ = None,
    task: Task_ = None, instance: Instance_ = None, task_option: TaskOption_ = None, compile_seconds: Seconds_ = None,
    as_json: Json_ = False,
) -> None:
    """Draw N texts from the grammar by seeded random walks over its bytes (no model). Exit 1 if fewer than N were
    drawn (walks past --max-bytes)."""
    from corral.grammars import draw

    source = _source(constraint, schema, lark, regex, task, instance, task_option)
    grammar = _grammar(source, compile_seconds)
    texts = draw(grammar, n, seed, max_bytes)
    if as_json:
        _print_json({"grammar": source.name, "n": n, "seed": seed, "texts": texts})
    else:
        for i, drawn in enumerate(texts):
            out.print(f"[bold]#{i + 1}[/bold]", highlight=False)
            _say(drawn)
        if len(texts) < n:
            _say(f"{len(texts)} of {n} texts drawn: the other walks ran past --max-bytes {max_bytes}")
    raise typer.Exit(EXIT_PASS if len(texts) == n else EXIT_FAIL)


@app.command("complete")
def complete_command(
    prefix: Annotated[str, typer.Argument(help="The start of a text.")],
    constraint: Constraint_ = None, schema: Schema_ = None, lark: Lark_ = None, regex: Regex_ = None,
    task: Task_ = None, instance: Instance_ = None, task_option: TaskOption_ = None, compile_seconds: Seconds_ = None,
    as_json: Json_ = False,
) -> None:
    """The shortest text that completes PREFIX into a text of the grammar. Exit 0 found, 1 if PREFIX already left
    the grammar (where, as accepts says), 3 if the search ran out of its budget."""
    from corral.grammars import first_rejection, shortest_completion
    from corral.text import scrub

    prefix = scrub(prefix)[0]
    source = _source(constraint, schema, lark, regex, task, instance, task_option)
    grammar = _grammar(source, compile_seconds)
    rejection = first_rejection(grammar, prefix)
    outside = rejection is not None and not rejection.ended
    completion = None if outside else shortest_completion(grammar, prefix)
    if as_json:
        _print_json({"grammar": source.name, "prefix": prefix, "completion": completion,
                     "text": None if completion is None else prefix + completion,
                     "outside": rejection.to_json() if outside and rejection is not None else None})
    elif outside and rejection is not None:
        out.print("[red]OUTSIDE[/red]  the prefix already left the grammar", highlight=False)
        for line in _rejection_lines(rejection, prefix.encode("utf-8")):
            _say(line)
    elif completion is None:
        out.print("[yellow]NOT FOUND[/yellow]  no completion within the search's budget", highlight=False)
    else:
        _say(f"completion: {json.dumps(completion, ensure_ascii=False)}")
        _say(f"text: {json.dumps(prefix + completion, ensure_ascii=False)}")
    raise typer.Exit(EXIT_FAIL if outside else EXIT_UNDECIDED if completion is None else EXIT_PASS)


@app.command("stats")
def stats_command(
    seed: Annotated[int, seed_option("The seed of the text along which step fuel is measured.")] = 0,
    constraint: Constraint_ = None, schema: Schema_ = None, lark: Lark_ = None, regex: Regex_ = None,
    task: Task_ = None, instance: Instance_ = None, task_option: TaskOption_ = None, compile_seconds: Seconds_ = None,
    as_json: Json_ = False,
) -> None:
    """What the grammar costs: Corral's compile time and the engine's matcher build, its size, Lark rules and
    terminals, and the lexer fuel llguidance spent (at the start, and at its costliest step along a drawn text)."""
    from corral.grammars import grammar_stats

    source = _source(constraint, schema, lark, regex, task, instance, task_option)
    stats = _guarded(lambda: grammar_stats(source.build, _budget(compile_seconds), seed))
    row = stats.to_json()
    if as_json:
        _print_json({"grammar": source.name, **row})
        raise typer.Exit(EXIT_PASS)
    _say(f"grammar: {source.name} ({stats.format})")
    _say(f"source: {stats.source_chars:,} characters; engine form: {stats.engine_chars:,} characters")
    if stats.rules is not None:
        _say(f"Lark: {_count(stats.rules, 'rule')}, {_count(stats.terminals or 0, 'terminal')}")
    _say(f"compile: {stats.compile_seconds * 1000:.1f} ms (Corral); matcher build: "
         f"{stats.matcher_seconds * 1000:.1f} ms (llguidance)")
    if stats.lexer_fuel is not None:
        _say(f"lexer fuel: {stats.lexer_fuel:,} at the start (limit {stats.lexer_fuel_limit:,})")
    if stats.step_fuel_max is not None:
        _say(f"step fuel: at most {stats.step_fuel_max:,} per mask along a drawn text of {stats.drawn_bytes:,} "
             f"bytes (limit {stats.step_fuel_limit:,})")
    if stats.engine_error:
        _say(f"engine: {stats.engine_error}")
    raise typer.Exit(EXIT_PASS)


@app.command("soundness")
def soundness_command(
    n: Annotated[int, int_option("--n", low=1, high=MAX_DRAWN, help="How many texts to draw and check.")] = 20,
    seed: Annotated[int, seed_option("The walks' seed.")] = 0,
    max_bytes: Annotated[int, int_option("--max-bytes", low=1, high=MAX_DRAWN_BYTES, help=(
        "The longest text a walk may write; a longer walk gives none."))] = DRAWN_BYTES,
    constraint: Constraint_ = None, schema: Schema_ = None, lark: Lark_ = None, regex: Regex_ = None,
    task: Task_ = None, instance: Instance_ = None, task_option: TaskOption_ = None, compile_seconds: Seconds_ = None,
    as_json: Json_ = False,
) -> None:
    """Draw N texts from the grammar and check each with the source's checker (the constraint, the schema, the
    task's judging): every text the grammar accepts should pass. Exit 1 if any fails."""
    from corral.grammars import soundness

    if lark is not None or regex is not None:
        raise fail("soundness needs a checker: --constraint, --schema or --task with --instance (a Lark grammar or a "
                   "regex is its own definition)")
    source = _source(constraint, schema, lark, regex, task, instance, task_option)
    grammar = _grammar(source, compile_seconds)
    assert source.checker is not None
    found = soundness(grammar, source.checker, n, seed, max_bytes)
    if as_json:
        _print_json({"grammar": source.name, "n": n, "seed": seed, **found.to_json()})
    else:
        status = "[green]SOUND[/green]" if found.sound else "[red]UNSOUND[/red]"
        out.print(f"{status}  {found.passed} of {len(found.texts)} drawn texts pass the checker", highlight=False)
        if len(found.texts) < n:
            _say(f"{len(found.texts)} of {n} texts drawn: the other walks ran past --max-bytes {max_bytes}")
        for text, reason in found.failures:
            _say(f"  FAIL {json.dumps(text, ensure_ascii=False)}")
            _say(f"       {reason}")
    raise typer.Exit(EXIT_PASS if found.sound else EXIT_FAIL)

