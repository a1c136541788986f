"""``corral eval TASK``: run, resume or extend an evaluation, with a progress bar, and write its report."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from corral.evaluation import CLOSE_LIMIT, MAX_ROUNDS, MAX_SAMPLES
from corral.models import MAX_PARTICLES

from ._console import EXIT_INCOMPLETE, err, out
from ._console import fail as _fail
from ._options import MAX_INSTANCES, MAX_TOKENS, Bounds, OutOfBounds, float_option, int_option, seed_option

MAX_RERANK_K = 256  # rerank: candidates per sample, each a whole constrained generation
MAX_REPEAT_LIMIT = 1_000
MAX_CLOSE_LIMIT = 10_000


def _names(value: str | None) -> list[str] | None:
    return [v.strip() for v in value.split(",") if v.strip()] if value else None


def eval_command(
    task: Annotated[str, typer.Argument(help="A registered task (corral tasks lists them), or an instances file.")],
    task_option: Annotated[list[str] | None, typer.Option(
        "-T", "--task-option", metavar="KEY=VALUE",
        help="A task option (repeatable); corral tasks TASK lists them, e.g. -T checker_mode=reference.")] = None,
    model: Annotated[str, typer.Option(help="smollm2, transformers:smollm2, openai:NAME, or a GGUF.")] = "smollm2",
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible server for openai:NAME.")] = None,
    where: Annotated[list[str] | None, typer.Option(
        metavar="GROUP=V1,V2",
        help="Only instances whose group has one of these values: GROUP=V1,V2 (repeatable).")] = None,
    limit: Annotated[list[str] | None, typer.Option(
        metavar="[GROUP=]N",
        help="At most N instances, or GROUP=N: the first N of each group, e.g. structure=3 (after --where; "
             "one of each form).")] = None,
    samples: Annotated[int, int_option(low=1, high=MAX_SAMPLES, help=(
        "Samples per instance (pass@k for k <= samples)."))] = 1,
    rounds: Annotated[int, int_option(low=0, high=MAX_ROUNDS, help="Feedback rounds after the first attempt.")] = 0,
    decoding: Annotated[str, typer.Option(help="free, constrained, or both (two runs, one report).")] = "free",
    temperature: Annotated[float, float_option(low=0, high=2, help="0 is greedy.")] = 0.0,
    top_p: Annotated[float, float_option(low=0, high=1, low_open=True)] = 1.0,
    max_tokens: Annotated[int | None, int_option(low=1, high=MAX_TOKENS, help=(
        "Token budget (default: the task's, per instance)."))] = None,
    seed: Annotated[int, seed_option()] = 0,
    repeat_limit: Annotated[int | None, int_option(
        low=0, high=MAX_REPEAT_LIMIT,
        help="Refuse the token that would start copy N+1 of a block just repeated N times in a row "
             "(local models; 0 is off; default: 2 for constrained decoding, off for free decoding).")] = None,
    strategy: Annotated[str, typer.Option(
        help="greedy: one decode per sample with the sampling above; rerank: draw --rerank-k constrained candidates "
             "and keep the one the unconstrained model finds most likely; smc: sequential Monte Carlo with "
             "--particles constrained sequences, a draw from the model's own distribution given the grammar (at "
             "--temperature, or 1 when it is 0; local models). Constrained runs only; with --decoding both, the "
             "free run stays greedy.")] = "greedy",
    rerank_k: Annotated[int, int_option(low=1, high=MAX_RERANK_K, help="rerank: candidates per sample.")] = 4,
    rerank_temperature: Annotated[float, float_option(low=0, high=2, low_open=True, help=(
        "rerank: the candidates' temperature."))] = 0.7,
    particles: Annotated[int, int_option(low=2, high=MAX_PARTICLES, help="smc: particles per sample.")] = 8,
    close_limit: Annotated[int, int_option(
        low=0, high=MAX_CLOSE_LIMIT,
        help="Constrained: the most characters the grammar's shortest completion may add to an output cut off at "
             "its token budget (0: never close). A closed output never counts as passed as written.")] = CLOSE_LIMIT,
    output: Annotated[Path | None, typer.Option("--out", help="Run directory (default under corral-runs/).")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Bypass the shared response cache.")] = False,
    report: Annotated[bool, typer.Option(help="Write report.md and plots when done.")] = True,
) -> None:
    """Evaluate a model on a task. Rerunning the same command resumes it; more --samples or --rounds extend it."""
    from corral.evaluation import (
        ResponseCache,
        RunError,
        SamplingConfig,
        default_run_dir,
        evaluate,
        plan_config,
        write_report,
    )
    from corral.models import ModelError, load_model
    from corral.registry import RegistryError
    from corral.tasks import get_task, select

    modes = {"both": ["free", "constrained"]}.get(decoding, [decoding])
    if any(mode not in ("free", "constrained") for mode in modes):
        raise _fail(f"unknown --decoding {decoding!r}; valid: free, constrained, both")
    if strategy not in ("greedy", "rerank", "smc"):
        raise _fail(f"unknown --strategy {strategy!r}; valid: greedy, rerank, smc")
    if strategy != "greedy" and "constrained" not in modes:
        raise _fail(f"--strategy {strategy} decodes constrained samples: use it with --decoding constrained or both")
    strategies = {mode: strategy if mode == "constrained" else "greedy" for mode in modes}
    rerank = {"rerank_k": rerank_k, "rerank_temperature": rerank_temperature, "particles": particles,
              "close_limit": close_limit}
    filters: dict[str, list[str]] = {}
    for condition in where or []:
        group, sep, values = condition.partition("=")
        if not sep or not group.strip() or not _names(values):
            raise _fail(f"--where {condition!r}: write GROUP=VALUE[,VALUE...], e.g. enforcement=exact")
        filters[group.strip()] = _names(values)  # type: ignore[assignment]
    count, per_group = _limits(limit or [])
    options = _task_options(task_option or [])
    try:
        the_task = get_task(task, **options)
        select(the_task, filters, limit=count, per_group=per_group)
        sampling = SamplingConfig(temperature=temperature, top_p=top_p, max_tokens=max_tokens, seed=seed,
                                  repeat_limit=repeat_limit)
        runs = _run_dirs(output, [plan_config(the_task, model, decoding=m, sampling=sampling,  # type: ignore[arg-type]
                                              base_url=base_url, strategy=strategies[m], **rerank)  # type: ignore[arg-type]
                                  for m in modes], default_run_dir)
        loaded = load_model(model, **({"base_url": base_url} if base_url else {}))
    except (RegistryError, ValueError, ModelError) as exc:
        raise _fail(str(exc)) from None

    cache = None if no_cache else ResponseCache()
    if cache is not None and cache.problem:
        err.print(f"warning: {cache.problem}", highlight=False, soft_wrap=True, markup=False)
    summaries = []
    try:
        for mode, run in zip(modes, runs, strict=True):
            with _progress() as bar:
                lines: list = []  # the bar appears with the first progress, after the run dir was accepted

                def show(done: int, total: int, passed: int, lines=lines, bar=bar, mode=mode) -> None:
                    if not lines:
                        lines.append(bar.add_task(f"{task} {mode}", total=None, rate=""))
                    bar.update(lines[0], completed=done, total=total,
                               rate=f"pass {passed / done:.0%}" if done else "")

                run_dir, summary = evaluate(
                    the_task, model, run, decoding=mode, sampling=sampling,  # type: ignore[arg-type]
                    samples=samples, rounds=rounds, filters=filters, limit=count,
                    per_group=per_group, base_url=base_url,
                    loaded_model=loaded, cache=cache, on_progress=show,
                    strategy=strategies[mode], **rerank)  # type: ignore[arg-type]
            summaries.append((run_dir, summary))
            _headline(run_dir, summary)
    except KeyboardInterrupt:
        err.print(f"interrupted: the records so far are saved in {run}; run the same command to resume")
        raise typer.Exit(130) from None
    except (RunError, ValueError, ModelError) as exc:
        raise _fail(str(exc)) from None
    finally:
        loaded.close()
        if cache is not None:
            cache.close()
    if report:
        where = runs[0].parent if len(runs) > 1 else runs[0]
        path = write_report([run for run, _ in summaries], where)
        out.print(f"report: {path}")
    if not all(summary["complete"] for _, summary in summaries):
        raise typer.Exit(EXIT_INCOMPLETE)


def _task_options(values: list[str]) -> dict[str, str]:
    """``-T key=value`` pairs as a dict of strings; the task's declaration converts and checks them."""
    options: dict[str, str] = {}
    for pair in values:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise _fail(f"-T {pair!r}: write KEY=VALUE, e.g. -T checker_mode=reference")
        if key.strip() in options:
            raise _fail(f"-T {key.strip()} is given twice")
        options[key.strip()] = value
    return options


def _limits(values: list[str]) -> tuple[int | None, tuple[str, int] | None]:
    """``--limit N`` and ``--limit GROUP=N`` (at most one of each): the count after the filters, and the first N of
    each group."""
    count: int | None = None
    per_group: tuple[str, int] | None = None
    for value in values:
        group, sep, number = value.rpartition("=")
        if not re.fullmatch(r"\s*[0-9]+\s*", number) or not number.strip().lstrip("0") or (sep and not group.strip()):
            raise _fail(f"--limit {value!r}: write N or GROUP=N with N >= 1, e.g. --limit 20 or --limit structure=3")
        try:
            Bounds(int, 1, MAX_INSTANCES).check(number)
        except OutOfBounds as exc:
            raise _fail(f"--limit {'GROUP=' if sep else ''}N {exc}") from None
        if (per_group if sep else count) is not None:
            raise _fail(f"--limit {value!r}: give at most one --limit N and one --limit GROUP=N")
        if sep:
            per_group = (group.strip(), int(number))
        else:
            count = int(number)
    return count, per_group


def _run_dirs(output: Path | None, configs, default) -> list[Path]:
    """One run directory per decoding mode: --out itself for one, --out/free and --out/constrained for both."""
    if len(configs) == 1:
        return [output or default(configs[0])]
    if output is None:
        first = default(configs[0])
        output = first.parent / first.name.replace(f"-{configs[0].decoding}-", "-")
    return [output / config.decoding for config in configs]


def _progress() -> Progress:
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), TextColumn("eta"),
                    TimeRemainingColumn(), console=err)


def _headline(run: Path, summary: dict) -> None:
    success, final = summary["success"], summary["final_success"]
    text = (f"{summary['label']}: {summary['instances']} instances, passed as written {success['value']:.1%} "
            f"± {success['se']:.1%}")
    if summary["rounds"]:
        text += f", after {summary['rounds']} feedback rounds {final['value']:.1%}"
    counts = summary["counts"]
    text += f"; truncated {counts['truncated']}"
    if counts.get("closed"):
        with_closing = summary.get("final_success_with_closing", final)["value"]
        text += (f" ({counts['closed']} closed, {counts['closed_passed']} of them passed; final with closing "
                 f"{with_closing:.1%})")
    text += f", empty {counts['empty']}; run: {run}"
    out.print(text, highlight=False, soft_wrap=True)
    for runtime in summary.get("runtimes", []):
        out.print(f"  computed with {runtime}", highlight=False, soft_wrap=True)
    if not summary["complete"]:
        errors = run / "errors.jsonl"
        last = _last_error(errors, run)
        hint = f" (last: {last})" if last else ""
        err.print(f"incomplete: some generations failed and are listed in {errors}{hint}; rerun to retry them",
                  highlight=False, soft_wrap=True, markup=False)


def _last_error(errors: Path, run: Path) -> str:
    """The last error ``errors.jsonl`` records, as one printable line ('' when there is none to read): a hint, so a
    damaged file (garbage, a link out of the run, a FIFO) gives no hint rather than a failure of its own."""
    from corral.jsonl import JsonlError, iter_jsonl
    from corral.text import printable

    last = ""
    try:
        for row in iter_jsonl(errors, torn_tail=True, within=run):
            if isinstance(row.get("error"), str):
                last = row["error"]
    except JsonlError:
        pass
    return printable(last[:500]).replace("\n", " ")


def register(app: typer.Typer) -> None:
    app.command("eval")(eval_command)
