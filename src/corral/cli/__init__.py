"""The ``corral`` command. Each subcommand calls one public function; errors are one line and exit 2."""

from __future__ import annotations

import contextlib
import json
import re
import signal
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from corral.constraints import DEFAULT_BUDGET, Budget, check, render, to_json
from corral.grammars import COMPILE_SECONDS, MAX_COMPILE_SECONDS
from corral.jsonl import append_jsonl, dumps
from corral.text import printable, scrub

from ._build import register as register_build
from ._clamp import app as clamp_app
from ._collie import app as collie_app
from ._console import EXIT_BAD_INPUT, EXIT_FAIL, EXIT_PASS, EXIT_UNDECIDED, err, out
from ._console import fail as _fail
from ._constraint import load_spec as _load_spec
from ._doctor import register as register_doctor
from ._eval import register as register_eval
from ._eval import spec_of
from ._generate import grammar_from_options
from ._grammar import app as grammar_app
from ._options import (
    MAX_MEMORY_MB,
    MAX_TIMEOUT,
    MAX_TOKENS,
    SEED_MAX,
    WORKERS_MAX,
    Bounds,
    BoundsError,
    OutOfBounds,
    UsageErrors,
    bounds_of,
    float_option,
    int_option,
    seed_option,
    usage_line,
    workers_option,
)
from ._report import find_runs
from ._report import register as register_report
from ._schema import app as schema_app
from ._tasks import register as register_tasks
from ._train import app as train_app

__all__ = [
    "SEED_MAX",
    "WORKERS_MAX",
    "Bounds",
    "BoundsError",
    "OutOfBounds",
    "app",
    "bounds_of",
    "find_runs",
    "grammar_from_options",
    "main",
    "register_report",
    "spec_of",
    "usage_line",
]

MAX_CHARS = 100_000_000  # --max-chars: 50 times the default (10 million characters segment in about 17 s)
MAX_GENERATE_N = 1_000  # corral generate --n

app = typer.Typer(
    name="corral",
    cls=UsageErrors,  # every usage error of every command is one `error:` line, exit 2
    help="Constrained text generation: specify, render and check constraints.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.add_typer(clamp_app, name="clamp")
app.add_typer(collie_app, name="collie")
app.add_typer(grammar_app, name="grammar")
app.add_typer(schema_app, name="schema")
app.add_typer(train_app, name="train")
register_eval(app)
register_tasks(app)
register_report(app)
register_build(app)
register_doctor(app)


@app.command("check")
def check_command(
    spec: Annotated[str | None, typer.Argument(help="Constraint in the textual form (or JSON).")] = None,
    text: Annotated[str | None, typer.Argument(help="Text to check; '-' reads standard input.")] = None,
    batch: Annotated[Path | None, typer.Option(help="JSONL: one {constraint, text} or COLLIE row per line.")] = None,
    output: Annotated[Path | None, typer.Option("--out", help="Where --batch writes verdicts (else stdout).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the verdict as JSON.")] = False,
    profile: Annotated[str | None, typer.Option(help="Override the constraint's segmentation profile.")] = None,
    workers: Annotated[int | None, workers_option("Processes for --batch (default: all cores).")] = None,
    format_task: Annotated[str | None, typer.Option("--format", help="A FormatBench checker (mcq, ner, ...).")] = None,
    instance: Annotated[Path | None, typer.Option(help="--format's instance (JSON, or JSONL and --id).")] = None,
    ident: Annotated[str | None, typer.Option("--id", help="--format's instance id in a JSONL file.")] = None,
    format_output: Annotated[str | None, typer.Option("--output", help="--format's output ('-': stdin).")] = None,
    mode: Annotated[str, typer.Option(help="--format's mode: strict, or reference (the published one).")] = "strict",
    timeout: Annotated[float, float_option(low=0, high=MAX_TIMEOUT, low_open=True, help=(
        "Seconds one check may take (per line with --batch)."))] = DEFAULT_BUDGET.seconds,
    max_memory: Annotated[float, float_option(low=0, high=MAX_MEMORY_MB, low_open=True, help=(
        "MB of memory one check may add."))] = DEFAULT_BUDGET.memory_mb,
    max_chars: Annotated[int, int_option(low=1, high=MAX_CHARS, help="The longest text checked.")] = (
        DEFAULT_BUDGET.max_chars),
) -> None:
    """Check TEXT against SPEC, or an --output against a --format checker: exit 0 if it passes, 1 if it fails, 2 on
    bad input, 3 if the check ran past its budget (not decided). With --batch: 2 if any line could not be
    checked, else 3 if any check was not decided, else 0."""
    try:
        budget = Budget(seconds=timeout, memory_mb=max_memory, max_chars=max_chars,
                        max_steps=DEFAULT_BUDGET.max_steps)
    except ValueError:
        raise _fail("--timeout, --max-memory and --max-chars must be positive") from None
    if format_task is not None:
        from ._format import check_format_command

        if instance is None or format_output is None:
            raise _fail("--format needs --instance FILE and --output TEXT")
        raise typer.Exit(check_format_command(format_task, instance, format_output, ident, mode, as_json,
                                                budget))
    if batch is not None:
        raise typer.Exit(_check_batch(batch, output, workers, budget))
    if spec is None or text is None:
        raise _fail("give SPEC and TEXT (TEXT may be '-' for standard input), or --batch FILE")
    constraint = _load_spec(spec, profile)
    if text == "-":
        text = sys.stdin.buffer.read(budget.max_chars * 4 + 1).decode("utf-8", errors="replace")
    text, replaced = scrub(text)  # the shell hands bytes that are not UTF-8 over as lone surrogates
    if replaced:
        err.print(f"warning: {replaced} character(s) of TEXT were not UTF-8 and were replaced by U+FFFD",
                  highlight=False, markup=False)
    verdict = check(constraint, text, budget=budget)
    if verdict.undecided is not None:
        if as_json:
            print(dumps(verdict.to_json()))
        else:
            out.print(f"[yellow]UNDECIDED[/yellow]  {escape(verdict.undecided)}", highlight=False, soft_wrap=True)
        raise typer.Exit(EXIT_UNDECIDED)
    if as_json:
        print(dumps(verdict.to_json()))
    else:
        status = "[green]PASS[/green]" if verdict.passed else "[red]FAIL[/red]"
        out.print(f"{status}  score {verdict.score:.2f}  {constraint}", highlight=False, soft_wrap=True)
        for part in verdict.detail.parts:
            mark = "[green]✓[/green]" if part.passed else "[red]✗[/red]"
            seen = json.dumps(part.observed, ensure_ascii=False)
            out.print(f"  {mark} {part.constraint}  expected {part.expected}, observed {seen}", highlight=False,
                      soft_wrap=True)
        if verdict.feedback:
            out.print(verdict.feedback, highlight=False, soft_wrap=True)
    raise typer.Exit(EXIT_PASS if verdict.passed else EXIT_FAIL)


def _check_batch(path: Path, output: Path | None, workers: int | None, budget: Budget) -> int:
    from corral.files import MAX_WHOLE_FILE_BYTES, open_input, open_output

    try:  # a regular file of at most 1 GiB: a FIFO or /dev/zero is refused, not read (an InputError: one line)
        with open_input(path, MAX_WHOLE_FILE_BYTES) as f:
            lines = f.readlines()
    except OSError as exc:
        raise _fail(f"cannot read {path}: {exc.strerror or exc}") from None
    sink = open_output(output) if output else sys.stdout  # every failed write to --out: an OutputError, one line
    try:
        code = _write_verdicts(path, lines, sink, output, workers, budget)
    except BaseException:
        if output:
            with contextlib.suppress(OSError):  # the error in flight is the one to report
                sink.close()
        raise
    if output:
        sink.close()  # the last rows reach the disk here: a full disk is still one line
    return code


def _write_verdicts(path: Path, lines: list[bytes], sink: Any, output: Path | None, workers: int | None,
                    budget: Budget) -> int:
    from corral.errors import OutputError
    from corral.evaluation import PARALLEL_FROM_LINES, check_lines

    bad = undecided = 0
    try:
        for record in check_lines(lines, workers=workers, big=len(lines) >= PARALLEL_FROM_LINES, name=str(path),
                                  budget=budget):
            if "error" in record:
                bad += 1
                err.print("[red]error:[/red] " + escape(record["error"]), highlight=False, soft_wrap=True)
            undecided += "undecided" in record
            append_jsonl(sink, record)
    except OutputError:
        raise
    except OSError as exc:  # standard output closed or full
        raise _fail(f"cannot write {output or 'standard output'}: {exc.strerror or exc}") from None
    return EXIT_BAD_INPUT if bad else EXIT_UNDECIDED if undecided else EXIT_PASS


@app.command("generate")
def generate_command(
    prompt: Annotated[str, typer.Argument(help="The user message.")],
    model: Annotated[str, typer.Option(help="smollm2 | transformers:smollm2 | openai:NAME | path.gguf")] = "smollm2",
    base_url: Annotated[str | None, typer.Option(help="Server URL for openai:NAME.")] = None,
    constraint: Annotated[str | None, typer.Option(help="Constrain (and check) with this constraint.")] = None,
    schema: Annotated[Path | None, typer.Option(help="Constrain to JSON valid against this schema file.")] = None,
    lark: Annotated[Path | None, typer.Option(help="Constrain with this Lark grammar file.")] = None,
    regex: Annotated[str | None, typer.Option(help="Constrain to this regular expression.")] = None,
    n: Annotated[int, int_option(low=1, high=MAX_GENERATE_N, help="Samples.")] = 1,
    temperature: Annotated[float, float_option(low=0, high=2, help="0 is greedy.")] = 0.0,
    top_p: Annotated[float, float_option(low=0, high=1, low_open=True)] = 1.0,
    max_tokens: Annotated[int, int_option(low=1, high=MAX_TOKENS)] = 256,
    seed: Annotated[int, seed_option()] = 0,
    free: Annotated[bool, typer.Option("--free", help="With --constraint: only check, decode freely.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per output.")] = False,
    compile_seconds: Annotated[float, float_option(low=0, high=MAX_COMPILE_SECONDS, low_open=True, help=(
        "Time the grammar's compile may take; past it: exit 2."))] = COMPILE_SECONDS,
) -> None:
    """Generate with a model and print each output (with --constraint, its verdict; exit 1 if any fails)."""
    from corral.grammars import CompileBudget, GrammarError, within_budget
    from corral.models import ModelError, Request, Sampling, load_model

    from ._generate import completion_json, grammar_from_options

    spec = _load_spec(constraint, None) if constraint is not None else None
    try:
        sampling = Sampling(temperature=temperature, top_p=top_p, max_tokens=max_tokens, seed=seed, n=n)
        grammar = within_budget(lambda: grammar_from_options(None if free else spec, schema, lark, regex),
                                CompileBudget(seconds=compile_seconds))
    except (ValueError, GrammarError) as exc:
        raise _fail(str(exc)) from None
    options = {"base_url": base_url} if base_url else {}
    try:
        backend = load_model(model, **options)
        results = backend.complete([Request.user(prompt, sampling, grammar)])[0]
    except (ModelError, GrammarError) as exc:
        raise _fail(str(exc)) from None
    failed = False
    for i, result in enumerate(results):
        verdict = check(spec, result.text) if spec is not None else None
        failed |= verdict is not None and not verdict.passed
        failed |= result.finish_reason == "error"
        if as_json:  # exact text; JSON escapes every control character (_json_line), and no markup or wrapping
            print(_json_line(completion_json(result.text, result.finish_reason, result.completion_tokens,
                                             result.seconds, verdict.to_json() if verdict is not None else None)))
            continue
        out.print(f"[bold]#{i + 1}[/bold] ({result.finish_reason}, {result.completion_tokens} tokens, "
                  f"{result.tokens_per_second:.0f} tok/s)", highlight=False)
        out.print(printable(result.text or result.error or ""), highlight=False, markup=False, emoji=False)
        if verdict is not None:
            feedback = escape(printable(verdict.feedback))
            shown = "[green]PASS[/green]" if verdict.passed else f"[red]FAIL[/red] {feedback}"
            out.print(shown, highlight=False, emoji=False)
    backend.close()
    raise typer.Exit(EXIT_FAIL if failed else EXIT_PASS)


_JSON_UNSAFE = re.compile(r"[\x7f-\x9f\u2028\u2029]")


def _json_line(line: str) -> str:
    """A JSON line with the controls json.dumps leaves raw (DEL, C1, the Unicode line separators) as ``\\uNNNN``:
    the same JSON value, nothing in it for a terminal to act on."""
    return _JSON_UNSAFE.sub(lambda match: f"\\u{ord(match.group()):04x}", line)


@app.command("render")
def render_command(spec: Annotated[str, typer.Argument(help="Constraint in the textual form (or JSON).")]) -> None:
    """Print the English instruction for SPEC."""
    print(render(_load_spec(spec, None)))


@app.command("parse")
def parse_command(spec: Annotated[str, typer.Argument(help="Constraint in the textual form.")]) -> None:
    """Print SPEC's JSON form (and so validate it)."""
    print(json.dumps(to_json(_load_spec(spec, None)), ensure_ascii=False, indent=2))


def main() -> None:
    # SIGTERM (a job scheduler's stop, `timeout`) unwinds like Ctrl-C, so that open files are closed, temporary
    # files removed and resumable runs say where they stopped, instead of dying mid-write
    signal.signal(signal.SIGTERM, _terminated)
    for stream in (sys.stdout, sys.stderr):  # the terminal is a boundary too: what it cannot show is replaced
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="replace")
    app()


def _terminated(signum: int, frame: object) -> None:
    raise KeyboardInterrupt
