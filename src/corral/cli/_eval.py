"""``corral eval TASK``: run, resume or extend an evaluation, with a progress bar, and write its report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from ._console import err, out
from ._console import fail as _fail


def _names(value: str | None) -> list[str] | None:
    return [v.strip() for v in value.split(",") if v.strip()] if value else None


def eval_command(
    task: Annotated[str, typer.Argument(help="A registered task, e.g. collie.")],
    model: Annotated[str, typer.Option(help="smollm2, transformers:smollm2, openai:NAME, or a GGUF.")] = "smollm2",
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible server for openai:NAME.")] = None,
    structures: Annotated[str | None, typer.Option(help="Only these structures (comma-separated).")] = None,
    sources: Annotated[str | None, typer.Option(help="Only these sources (comma-separated).")] = None,
    per_structure: Annotated[int | None, typer.Option(help="The first N instances of each structure.")] = None,
    tasks: Annotated[str | None, typer.Option(help="formatbench: only these tasks (comma-separated).")] = None,
    per_task: Annotated[int | None, typer.Option(help="formatbench: the first N instances of each task.")] = None,
    extract: Annotated[str | None, typer.Option(
        help="Answer extraction: whole, first_line, first_block, fenced, raw (default: the task's).")] = None,
    checker_mode: Annotated[str | None, typer.Option(help="formatbench: strict (default) or reference.")] = None,
    template: Annotated[str | None, typer.Option(help="formatbench: alpaca (default, the paper's) or chat.")] = None,
    thoughts: Annotated[bool | None, typer.Option(
        "--thoughts/--no-thoughts", help="formatbench: refinement with thoughts (refine*).")] = None,
    shots: Annotated[int | None, typer.Option(
        help="formatbench: few-shot examples (0-4, default 3); concode-gen 0-3, concode-val 0-2 (default 0).")] = None,
    judge: Annotated[str | None, typer.Option(help="formatbench: a model that rates AcroW poems (off).")] = None,
    judge_base_url: Annotated[str | None, typer.Option(help="formatbench: the judge's server (openai:NAME).")] = None,
    schema_form: Annotated[str | None, typer.Option(
        help="concode-*: how the schema is shown: json, yaml, xml, python, english.")] = None,
    output_form: Annotated[str | None, typer.Option(help="concode-*: the sample's form: json, yaml, xml.")] = None,
    schemas: Annotated[str | None, typer.Option(
        help="concode-*: concode (generated), jsonschemabench (gen) or schemastore (val).")] = None,
    n_schemas: Annotated[int | None, typer.Option(help="concode-*: how many schemas (default 602).")] = None,
    suite_seed: Annotated[int | None, typer.Option(help="concode-*: the generated suite's seed (default 0).")] = None,
    where: Annotated[list[str] | None, typer.Option(
        help="Only instances whose group has one of these values: GROUP=V1,V2 (repeatable).")] = None,
    limit: Annotated[int | None, typer.Option(help="At most N instances (after the filters).")] = None,
    samples: Annotated[int, typer.Option(help="Samples per instance (pass@k for k <= samples).")] = 1,
    rounds: Annotated[int, typer.Option(help="Feedback rounds after the first attempt.")] = 0,
    constrained: Annotated[bool, typer.Option(help="Constrained decoding (same as --decoding constrained).")] = False,
    decoding: Annotated[str, typer.Option(help="free, constrained, or both (two runs, one report).")] = "free",
    temperature: Annotated[float, typer.Option(help="0 is greedy.")] = 0.0,
    top_p: Annotated[float, typer.Option()] = 1.0,
    max_tokens: Annotated[int | None, typer.Option(help="Token budget (default: the task's, per instance).")] = None,
    seed: Annotated[int, typer.Option()] = 0,
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

    modes = ["constrained"] if constrained else {"both": ["free", "constrained"]}.get(decoding, [decoding])
    if any(mode not in ("free", "constrained") for mode in modes):
        raise _fail(f"unknown --decoding {decoding!r}; valid: free, constrained, both")
    filters = {k: v for k, v in (("structure", _names(structures)), ("source", _names(sources)),
                                 ("task", _names(tasks))) if v}
    for condition in where or []:
        group, sep, values = condition.partition("=")
        if not sep or not group.strip() or not _names(values):
            raise _fail(f"--where {condition!r}: write GROUP=VALUE[,VALUE...], e.g. enforcement=exact")
        filters[group.strip()] = _names(values)  # type: ignore[assignment]
    if per_structure and per_task:
        raise _fail("give --per-structure or --per-task, not both")
    per_group = ("structure", per_structure) if per_structure else ("task", per_task) if per_task else None
    options = {key: value for key, value in (("checker_mode", checker_mode), ("template", template),
                                             ("thoughts", thoughts), ("shots", shots), ("judge", judge),
                                             ("judge_base_url", judge_base_url), ("schema_form", schema_form),
                                             ("output_form", output_form), ("schemas", schemas), ("n", n_schemas),
                                             ("seed", suite_seed)) if value is not None}
    try:
        the_task = get_task(task, **options)
        if extract is not None:
            from dataclasses import replace

            from corral.registry import answer_extractors, lookup

            lookup(answer_extractors, extract, "answer extractor")
            the_task = replace(the_task, extract=extract)
        select(the_task, filters, limit=limit, per_group=per_group)
        sampling = SamplingConfig(temperature=temperature, top_p=top_p, max_tokens=max_tokens, seed=seed)
        runs = _run_dirs(output, [plan_config(the_task, model, decoding=m, sampling=sampling,  # type: ignore[arg-type]
                                              base_url=base_url) for m in modes], default_run_dir)
        loaded = load_model(model, **({"base_url": base_url} if base_url else {}))
    except (RegistryError, ValueError, ModelError) as exc:
        raise _fail(str(exc)) from None

    cache = None if no_cache else ResponseCache()
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
                    samples=samples, rounds=rounds, filters=filters, limit=limit,
                    per_group=per_group, base_url=base_url,
                    loaded_model=loaded, cache=cache, on_progress=show)
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
    text = (f"{summary['label']}: {summary['instances']} instances, success {success['value']:.1%} "
            f"± {success['se']:.1%}")
    if summary["rounds"]:
        text += f", after {summary['rounds']} feedback rounds {final['value']:.1%}"
    counts = summary["counts"]
    text += f"; truncated {counts['truncated']}, empty {counts['empty']}; run: {run}"
    out.print(text, highlight=False, soft_wrap=True)
    for runtime in summary.get("runtimes", []):
        out.print(f"  computed with {runtime}", highlight=False, soft_wrap=True)
    if not summary["complete"]:
        errors = run / "errors.jsonl"
        last = errors.read_text(encoding="utf-8").splitlines()[-1] if errors.exists() else ""
        hint = f" (last: {json.loads(last)['error']})" if last else ""
        err.print(f"incomplete: some generations failed and are listed in {errors}{hint}; rerun to retry them",
                  highlight=False, soft_wrap=True)


def register(app: typer.Typer) -> None:
    app.command("eval")(eval_command)
