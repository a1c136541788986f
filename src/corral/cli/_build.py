"""``corral build``: extract constraint instances from a corpus into an instances file, with its statistics."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Annotated

import typer

from ._console import err, out
from ._console import fail as _fail
from ._options import int_option, seed_option, workers_option

MAX_PER_STRUCTURE = 1_000_000
MAX_PASSAGE_PARAGRAPHS = 1_000


def register(app: typer.Typer) -> None:
    app.command("build")(build)


def build(
    suite: Annotated[str | None, typer.Argument(help="A named suite of structures, e.g. collie-v1.")] = None,
    corpus: Annotated[str, typer.Option(help="A .txt/.md/.jsonl file, a folder of them, or 'default'.")] = "default",
    structure: Annotated[list[str] | None, typer.Option(
        help="A structure with ?holes, e.g. \"sentence: count(text, word, sentence) == ?n\", or a suite "
             "structure's name (sent02). Repeatable.")] = None,
    value_range: Annotated[list[str] | None, typer.Option(
        "--range", help="A numeric hole's range, e.g. n=10..19. Repeatable.")] = None,
    candidates: Annotated[list[str] | None, typer.Option(
        help="Values to sweep for a hole, e.g. w=the,and,of, or w=@word for the chunk's own words. Repeatable.")]
    = None,
    where: Annotated[list[str] | None, typer.Option(
        help="A condition chunks must meet that is not part of the instance. Repeatable.")] = None,
    per_structure: Annotated[int, int_option(low=1, high=MAX_PER_STRUCTURE, help=(
        "Instances per structure (a seeded sample)."))] = 100,
    seed: Annotated[int, seed_option("Sampling seed: the same seed gives the same instances.")] = 0,
    output: Annotated[Path | None, typer.Option("--out", help="The instances file (.jsonl).")] = None,
    engine: Annotated[str, typer.Option(help="local, or ray (starts Ray on this machine if none is running).")]
    = "local",
    profile: Annotated[str | None, typer.Option(
        help="Segmentation profile of structures given without one (default, collie-v1).")] = None,
    passage_paragraphs: Annotated[int, int_option(low=1, high=MAX_PASSAGE_PARAGRAPHS, help=(
        "Paragraphs per passage chunk."))] = 3,
    text_field: Annotated[str, typer.Option(help="The text field of JSONL corpora.")] = "text",
    workers: Annotated[int | None, workers_option("CPUs for --engine ray (default: all).")] = None,
) -> None:
    """Build constraint instances from real text: every instance comes with a corpus example that passes it.

    Writes FILE.jsonl (loadable with `corral eval FILE.jsonl`) and FILE.stats.md / .stats.png / .stats.json.
    """
    from corral.corpora import BuildPlan, CorpusError, shards, write_instances
    from corral.corpora import stats_chart as chart
    from corral.corpora import stats_markdown as markdown
    from corral.corpora import stats_summary as summary
    from corral.jsonl import atomic_write as write_atomic

    if engine not in ("local", "ray"):
        raise _fail(f"unknown --engine {engine!r}; valid: local, ray")
    try:
        recipes = _recipes(suite, structure or [], value_range or [], candidates or [], where or [], profile,
                           passage_paragraphs)
        plan = BuildPlan(recipes, per_structure=per_structure, seed=seed, text_field=text_field)
        shard_list = shards(corpus)
    except (ValueError, CorpusError) as exc:
        raise _fail(str(exc)) from None
    output = output or Path(f"{suite or 'instances'}-seed{seed}.jsonl")
    if output.suffix != ".jsonl":
        raise _fail(f"--out must end in .jsonl (it is what `corral eval FILE.jsonl` reads), got {output}")
    try:
        result = _run(plan, shard_list, engine, workers)
    except (ValueError, CorpusError) as exc:  # StructureError is a ValueError
        raise _fail(str(exc)) from None
    except KeyboardInterrupt:
        err.print("interrupted: nothing written")
        raise typer.Exit(130) from None
    for line in result.sources.skipped[:10]:
        err.print(f"[yellow]warning:[/yellow] skipped {line}", highlight=False, soft_wrap=True)
    if len(result.sources.skipped) > 10:
        err.print(f"[yellow]warning:[/yellow] ... {len(result.sources.skipped)} lines skipped in all", highlight=False)
    empty = [name for name, items in result.instances.items() if not items]
    count = write_instances(result, output)
    stem = output.with_suffix("")
    command = "corral build " + shlex.join(sys.argv[2:]) if len(sys.argv) > 1 and sys.argv[1] == "build" else None
    write_atomic(stem.with_suffix(".stats.png"), chart(result))
    write_atomic(stem.with_suffix(".stats.md"), markdown(result, chart=stem.with_suffix(".stats.png").name,
                                                         command=command))
    write_atomic(stem.with_suffix(".stats.json"), json.dumps(summary(result), indent=1, ensure_ascii=False) + "\n")
    parts = ", ".join(f"{name} {len(items)}" for name, items in result.instances.items())
    out.print(f"{count} instances ({parts}) from {sum(result.documents.values())} documents → {output}",
              highlight=False, soft_wrap=True)
    out.print(f"statistics: {stem.with_suffix('.stats.md')}", highlight=False)
    for name in empty:
        err.print(f"[yellow]warning:[/yellow] no chunk of the corpus gives an instance of {name}; widen its "
                  f"--range or --candidates", highlight=False, soft_wrap=True)


def _recipes(suite, structures, ranges, candidates, where, profile, passage_paragraphs):  # type: ignore[no-untyped-def]
    """The recipes the options describe: a suite's (or some of its structures by name) and specs with holes."""
    from corral.corpora import Recipe, recipe
    from corral.registry import build_suites, lookup

    parsed_ranges = dict(_range(r) for r in ranges)
    parsed_candidates = dict(_candidates(c) for c in candidates)
    named = {}
    if suite is not None:
        named = {r.name: r for r in lookup(build_suites, suite, "suite")()}
    elif any(not _is_spec(s) for s in structures):
        named = {r.name: r for r in lookup(build_suites, "collie-v1", "suite")()}
    chosen: list[Recipe] = []
    for number, item in enumerate(structures, start=1):
        if _is_spec(item):
            spec = item if item.lstrip().startswith("[") or profile is None else f"[{profile}] {item}"
            holes = set(_holes(spec))
            chosen.append(recipe(spec, name=f"structure{number}",
                                 ranges={k: v for k, v in parsed_ranges.items() if k in holes},
                                 candidates={k: v for k, v in parsed_candidates.items() if k in holes},
                                 passage_paragraphs=passage_paragraphs, where=tuple(where)))
        elif item in named:
            chosen.append(named[item])
        else:
            raise ValueError(f"unknown structure {item!r}; give a spec with ?holes or one of: {', '.join(named)}")
    if not structures:
        if suite is None:
            raise ValueError("give a suite (corral build collie-v1) or --structure SPEC")
        chosen = list(named.values())
    if suite is not None or any(not _is_spec(s) for s in structures):
        if profile is not None and profile != "collie-v1":
            raise ValueError("the collie-v1 structures use the collie-v1 profile; drop --profile")
        chosen = [_override(r, parsed_ranges, parsed_candidates) if r.name in named else r for r in chosen]
    names_used = {h for r in chosen for s in r.structures for h in s.holes}
    for hole in [*parsed_ranges, *parsed_candidates]:
        if hole not in names_used:
            raise ValueError(f"?{hole} is not a hole of any structure given; holes: "
                             f"{', '.join('?' + h for h in sorted(names_used))}")
    return tuple(chosen)


def _override(recipe, ranges, candidates):  # type: ignore[no-untyped-def]
    """A suite recipe with the user's --range/--candidates for the holes it has."""
    from dataclasses import replace

    holes = {h for s in recipe.structures for h in s.holes}
    return replace(recipe, ranges={**recipe.ranges, **{k: v for k, v in ranges.items() if k in holes}},
                   candidates={**recipe.candidates, **{k: v for k, v in candidates.items() if k in holes}})


def _is_spec(item: str) -> bool:
    return "?" in item or ":" in item


def _holes(spec: str) -> list[str]:
    from corral.corpora import holes

    return holes(spec)


def _range(text: str) -> tuple[str, tuple[int, int]]:
    name, sep, span = text.partition("=")
    low, dots, high = span.partition("..")
    try:
        if not sep or not dots:
            raise ValueError
        bounds = (int(low), int(high))
    except ValueError:
        raise ValueError(f"bad --range {text!r}; write it as NAME=LOW..HIGH, e.g. n=10..19") from None
    if bounds[0] > bounds[1]:
        raise ValueError(f"the range of ?{name.strip().lstrip('?')} is empty: {low}..{high}")
    return name.strip().lstrip("?"), bounds


def _candidates(text: str) -> tuple[str, tuple[str, ...] | str]:
    name, sep, values = text.partition("=")
    if not sep or not values.strip():
        raise ValueError(f"bad --candidates {text!r}; write it as NAME=a,b,c or NAME=@word")
    name = name.strip().lstrip("?")
    if values.strip().startswith("@"):
        return name, values.strip()
    return name, tuple(v.strip() for v in values.split(",") if v.strip())


def _run(plan, shard_list, engine, workers):  # type: ignore[no-untyped-def]
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from corral.corpora import build_local

    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn("shards"),
                  TimeElapsedColumn(), console=err, transient=True) as bar:
        line = bar.add_task(f"build ({engine})", total=len(shard_list))
        advance = lambda shard: bar.advance(line)  # noqa: E731
        if engine == "ray":
            from corral.corpora import build_ray

            return build_ray(plan, shard_list, on_shard=advance, num_cpus=workers)
        return build_local(plan, shard_list, on_shard=advance)
