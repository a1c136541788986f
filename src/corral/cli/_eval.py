"""``corral eval TASK``: run, resume or extend an evaluation, with a progress bar, and write its report.

The run is an ``EvalSpec``: the flags below, or a spec file (``--config FILE``, YAML or JSON) with the flags given
explicitly laid over its fields, and ``--set KEY=VALUE`` for any field the flags leave out (``strategy=rerank``,
``strategy.k=8``, ``sampling.temperature=0.7``, ``close_limit=0``, ``base_url=...``). The spec checks every value.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from corral.evaluation import MAX_ROUNDS, MAX_SAMPLES, EvalSpec, Summary

from ._console import EXIT_INCOMPLETE, err, out
from ._console import fail as _fail
from ._options import MAX_INSTANCES, Bounds, OutOfBounds, group_values, int_option, task_options


def _set_help() -> str:
    """``--set``'s help: the fields the flags leave out, with the spec's own defaults (written once, there)."""
    from corral.evaluation import RerankStrategy, SamplingConfig, SmcStrategy

    spec, rerank, smc, sampling = EvalSpec(task="-"), RerankStrategy(), SmcStrategy(), SamplingConfig()
    fields = [("strategy", "greedy|rerank|smc"), ("strategy.k", rerank.k), ("strategy.temperature", rerank.temperature),
              ("strategy.particles", smc.particles), ("sampling.temperature", sampling.temperature),
              ("sampling.top_p", sampling.top_p), ("sampling.max_tokens", "N"), ("sampling.seed", sampling.seed),
              ("sampling.repeat_limit", "N"), ("close_limit", spec.close_limit),
              ("compile_seconds", spec.compile_seconds), ("batch_size", "N"),
              ("base_url", "URL"), ("model_options.NAME", "VALUE")]
    shown = ", ".join(f"{key}={value:g}" if isinstance(value, float) else f"{key}={value}" for key, value in fields)
    return (f"Any other spec field, dotted (repeatable; defaults shown): {shown} (docs/evaluation.md). A value is "
            "JSON where it parses as JSON, else text.")


def eval_command(
    task: Annotated[str | None, typer.Argument(help=(
        "A registered task (corral tasks lists them), or an instances file (default: the --config file's).")),
    ] = None,
    config: Annotated[Path | None, typer.Option("--config", help=(
        "An evaluation spec (YAML or JSON); the flags given override its fields."))] = None,
    task_option: Annotated[list[str] | None, typer.Option(
        "-T", "--task-option", metavar="KEY=VALUE",
        help="A task option (repeatable); corral tasks TASK lists them, e.g. -T checker_mode=reference.")] = None,
    model: Annotated[str | None, typer.Option(help=(
        "smollm2 (the default), transformers:smollm2, openai:NAME, or a GGUF."))] = None,
    base_url: Annotated[str | None, typer.Option("--base-url", metavar="URL", help=(
        "The OpenAI-compatible server of an openai:NAME model, e.g. http://127.0.0.1:8000/v1 (default: "
        "$OPENAI_BASE_URL); constrained runs print what it enforces first (docs/serving.md)."))] = None,
    where: Annotated[list[str] | None, typer.Option(
        metavar="GROUP=V1,V2",
        help="Only instances whose group has one of these values: GROUP=V1,V2 (repeatable).")] = None,
    limit: Annotated[list[str] | None, typer.Option(
        metavar="[GROUP=]N",
        help="At most N instances, or GROUP=N: the first N of each group, e.g. structure=3 (after --where; "
             "one of each form).")] = None,
    samples: Annotated[int | None, int_option(low=1, high=MAX_SAMPLES, help=(
        "Samples per instance (pass@k for k <= samples; default 1)."))] = None,
    rounds: Annotated[int | None, int_option(low=0, high=MAX_ROUNDS, help=(
        "Feedback rounds after the first attempt (default 0)."))] = None,
    decoding: Annotated[str | None, typer.Option(help=(
        "free (the default), constrained, or both (two runs, one report)."))] = None,
    reasoning: Annotated[str | None, typer.Option(metavar="auto|OPEN,CLOSE|off", help=(
        "The model thinks first: a reasoning block, its tags from the chat template (auto) or given "
        "(e.g. '<think>,</think>'); checks and grammars apply to the answer after it. Bound it with --set "
        "reasoning.max_chars=N (docs/reasoning.md)."))] = None,
    settings: Annotated[list[str] | None, typer.Option("--set", metavar="KEY=VALUE", help=_set_help())] = None,
    output: Annotated[Path | None, typer.Option("--out", help="Run directory (default under corral-runs/).")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Bypass the shared response cache.")] = False,
    report: Annotated[bool, typer.Option(help="Write report.md and plots when done.")] = True,
) -> None:
    """Evaluate a model on a task. Rerunning the same command resumes it; more --samples or --rounds extend it."""
    from corral.evaluation import ResponseCache, RunError, default_run_dir, evaluate, plan_run, write_report
    from corral.models import ModelError
    from corral.registry import RegistryError
    from corral.tasks import get_task

    spec = spec_of({"task": task, "config": config, "task_option": task_option, "model": model,
                    "base_url": base_url, "where": where,
                    "limit": limit, "samples": samples, "rounds": rounds, "decoding": decoding, "settings": settings,
                    "reasoning": reasoning})
    try:
        the_task = get_task(spec.task, **spec.task_options)
        plans = [plan_run(one, the_task) for one in spec.runs()]  # every run checked before any model loads
        runs = _run_dirs(output, [plan.config for plan in plans], default_run_dir)
        loaded = spec.load_model()
    except (RegistryError, ValueError, ModelError) as exc:
        raise _fail(str(exc)) from None

    cache = None if no_cache else ResponseCache()
    if cache is not None and cache.problem:
        err.print(f"warning: {cache.problem}", highlight=False, soft_wrap=True, markup=False)
    summaries = []
    try:
        for plan, run in zip(plans, runs, strict=True):
            with _progress() as bar:
                lines: list = []  # the bar appears with the first progress, after the run dir was accepted

                def show(done: int, total: int, passed: int, lines=lines, bar=bar, mode=plan.config.decoding) -> None:
                    if not lines:
                        lines.append(bar.add_task(f"{spec.task} {mode}", total=None, rate=""))
                    bar.update(lines[0], completed=done, total=total,
                               rate=f"pass {passed / done:.0%}" if done else "")

                run_dir, summary = evaluate(plan, run, model=loaded, cache=cache, on_progress=show,
                                            on_plan=_show_plan)
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
        where_to = runs[0].parent if len(runs) > 1 else runs[0]
        path = write_report([run for run, _ in summaries], where_to)
        out.print(f"report: {path}")
    if not all(summary.complete for _, summary in summaries):
        raise typer.Exit(EXIT_INCOMPLETE)


def _show_plan(line: str) -> None:
    """A served constrained run's grammar plan, before it generates (what the server enforces, what it cannot)."""
    out.print(f"grammar plan: {line}", highlight=False, soft_wrap=True, markup=False)


def spec_of(params: Mapping[str, Any]) -> EvalSpec:
    """The run's ``EvalSpec`` from the command's parameters (click's, by name): the ``--config`` file's fields, then
    the flags that were given, then each ``--set``; one ``error:`` line naming the file (or ``options``) and the field
    path when it is not a valid spec."""
    from corral.evaluation import SpecError, parse_eval_spec, read_spec_file

    config = params.get("config")
    try:
        data: dict[str, Any] = read_spec_file(config) if config else {}
    except SpecError as exc:
        raise _fail(str(exc)) from None
    options, where = params.get("task_option"), params.get("where")
    flags = {key: params.get(key) for key in ("task", "model", "base_url", "samples", "rounds", "decoding")}
    flags |= {"task_options": task_options(options) if options else None,
              "where": group_values(where) if where else None, **_limits(params.get("limit") or [])}
    data |= {key: value for key, value in flags.items() if value is not None}
    if params.get("reasoning") is not None:
        data["reasoning"] = _reasoning(params["reasoning"])
    for setting in params.get("settings") or []:
        _set(data, setting)
    if not data.get("task"):
        raise _fail("name a task: corral eval TASK, or --config FILE with a task field")
    try:
        return parse_eval_spec(data, str(config) if config else "options")
    except SpecError as exc:
        raise _fail(str(exc)) from None


def _reasoning(value: str) -> str | dict[str, str] | None:
    """``--reasoning``: ``auto``, ``off`` (none, over a config file's), or the tags ``OPEN,CLOSE``."""
    text = value.strip()
    if text.lower() in ("auto", "off", "none"):
        return "auto" if text.lower() == "auto" else None
    open_, sep, close = text.partition(",")
    if not sep or not open_.strip() or not close.strip() or "," in close:
        raise _fail(f"--reasoning {value!r}: write auto, off, or the two tags OPEN,CLOSE, e.g. '<think>,</think>'")
    return {"open": open_.strip(), "close": close.strip()}


def _set(data: dict[str, Any], setting: str) -> None:
    """``--set a.b=VALUE`` into ``data``: the value as JSON where it parses (a number, true, null, a list), else as
    text; a tagged value written as its kind alone (``strategy: rerank``) takes fields as ``{kind: rerank}``."""
    from corral.schema import SampleError, parse_sample

    key, sep, text = setting.partition("=")
    path = key.strip().split(".")
    if not sep or not all(part.strip() for part in path):
        raise _fail(f"--set {setting!r}: write KEY=VALUE, e.g. --set strategy=rerank or --set sampling.temperature=0.7")
    try:
        value = parse_sample(text, "json", extract=False)
    except SampleError:
        value = text
    node = data
    for part in path[:-1]:
        child = node.get(part)
        child = {"kind": child} if isinstance(child, str) else dict(child) if isinstance(child, dict) else {}
        node[part] = node = child
    node[path[-1]] = value


def _limits(values: list[str]) -> dict[str, Any]:
    """``--limit N`` and ``--limit GROUP=N`` (at most one of each): the spec's ``limit`` (the count after the filters)
    and ``per_group`` (the first N of each group), those given."""
    found: dict[str, Any] = {}
    for value in values:
        group, sep, number = value.rpartition("=")
        if not re.fullmatch(r"\s*[0-9]+\s*", number) or not number.strip().lstrip("0") or (sep and not group.strip()):
            raise _fail(f"--limit {value!r}: write N or GROUP=N with N >= 1, e.g. --limit 20 or --limit structure=3")
        try:
            Bounds(int, 1, MAX_INSTANCES).check(number)
        except OutOfBounds as exc:
            raise _fail(f"--limit {'GROUP=' if sep else ''}N {exc}") from None
        field = "per_group" if sep else "limit"
        if field in found:
            raise _fail(f"--limit {value!r}: give at most one --limit N and one --limit GROUP=N")
        found[field] = [group.strip(), int(number)] if sep else int(number)
    return found


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


def _headline(run: Path, summary: Summary) -> None:
    success, final, counts = summary.success, summary.final_success, summary.counts
    text = (f"{summary.label}: {summary.instances} instances, passed as written {success.value:.1%} "
            f"± {success.se:.1%}")
    if summary.rounds:
        text += f", after {summary.rounds} feedback rounds {final.value:.1%}"
    text += f"; truncated {counts.truncated}"
    if counts.closed:
        text += (f" ({counts.closed} closed, {counts.closed_passed} of them passed; final with closing "
                 f"{summary.final_success_with_closing.value:.1%})")
    text += f", empty {counts.empty}"
    if summary.thinking is not None:
        thinking = summary.thinking
        text += (f", thinking {thinking.mean_chars:,.0f} characters on average ({thinking.unclosed} blocks never "
                 f"closed)")
    text += f"; run: {run}"
    out.print(text, highlight=False, soft_wrap=True)
    for runtime in summary.runtimes:
        out.print(f"  computed with {runtime}", highlight=False, soft_wrap=True)
    if not summary.complete:
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
