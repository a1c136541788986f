"""Statistics of a built suite, as in COLLIE Figure 3: instances per structure and source with their value
spread (3a), what each filter removed (3b), and mean example length per source (3c).

Made from the ``BuildResult`` alone, with no timestamps, so the same build gives the same Markdown and PNG,
byte for byte.
"""

from __future__ import annotations

import io
import statistics
from collections import Counter
from collections.abc import Sequence
from typing import Any

from ._build import BuildResult
from ._extract import Extracted


def summary(result: BuildResult) -> dict[str, Any]:
    """The numbers behind the table and chart, as plain data (also written as JSON by the CLI)."""
    structures = {}
    for name, items in result.instances.items():
        structures[name] = {
            "instances": len(items),
            "by_source": dict(sorted(Counter(i.source for i in items).items())),
            "values": _values(items),
            "mean_words": _mean([_words(i.example) for i in items]),
            "mean_chars": _mean([len(i.example) for i in items]),
        }
    sources = sorted({i.source for items in result.instances.values() for i in items})
    lengths = {source: {name: _mean([_words(i.example) for i in items if i.source == source])
                        for name, items in result.instances.items()} for source in sources}
    return {
        "structures": structures,
        "sources": {"documents": result.documents, "skipped_lines": len(result.sources.skipped)},
        "mean_words_by_source": lengths,
        "filters": {label: {"chunks": report.seen, "kept": report.kept, "removed": report.fractions()}
                    for label, report in result.filters.items()},
    }


def _values(items: Sequence[Extracted]) -> dict[str, str]:
    """Each hole's spread: numbers as min–max with the median, strings as the number of distinct values and the
    commonest ones."""
    holes: dict[str, list[Any]] = {}
    for item in items:
        for hole, value in item.values.items():
            holes.setdefault(hole, []).append(value)
    out = {}
    for hole, values in holes.items():
        if all(isinstance(v, int) for v in values):
            out[hole] = f"{min(values)}–{max(values)} (median {statistics.median(values):g})"
        else:
            common = ", ".join(repr(_short(str(v))) for v, _ in Counter(values).most_common(3))
            out[hole] = f"{len(set(values))} distinct ({common})"
    return out


def _short(text: str, width: int = 32) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _words(text: str) -> int:
    return len(text.split())


def _mean(values: Sequence[float]) -> float | None:
    return round(statistics.fmean(values), 1) if values else None


def markdown(result: BuildResult, chart: str | None = None, command: str | None = None) -> str:
    """The statistics as Markdown tables (and a link to the chart)."""
    data = summary(result)
    sources = sorted({s for st in data["structures"].values() for s in st["by_source"]})
    lines = ["# Built instances", ""]
    if command:
        lines += [f"Made by `{command}`.", ""]
    lines += [f"Seed {result.plan.seed}, at most {result.plan.per_structure} instances per structure; "
              f"{sum(result.documents.values())} documents read"
              + (f", {len(result.sources.skipped)} lines skipped" if result.sources.skipped else "") + ".", ""]
    lines += ["## Instances per structure (COLLIE Figure 3a)", ""]
    lines += _table(["structure", "instances", *sources, "mean words", "values"],
                    [[name, st["instances"], *(st["by_source"].get(s, 0) for s in sources),
                      _num(st["mean_words"]), "; ".join(f"?{h}: {v}" for h, v in st["values"].items())]
                     for name, st in data["structures"].items()])
    lines += ["## Mean example length in words, by source (COLLIE Figure 3c)", ""]
    lines += _table(["structure", *sources], [[name, *(_num(data["mean_words_by_source"][s][name]) for s in sources)]
                                              for name in data["structures"]])
    steps = sorted({step for f in data["filters"].values() for step in f["removed"]})
    lines += ["## Removed by each filter and post-processor (COLLIE Figure 3b)", "",
              "The share of chunks at each level that a step removed (a post-processor removes a chunk it empties).",
              ""]
    lines += _table(["chunks", "count", *steps, "kept"],
                    [[label, f["chunks"], *(f"{100 * f['removed'].get(step, 0):.2f}%" for step in steps),
                      f"{100 * f['kept'] / f['chunks']:.1f}%" if f["chunks"] else "—"]
                     for label, f in data["filters"].items()])
    if result.sources.skipped:
        lines += ["## Skipped input lines", "", *(f"- {line}" for line in result.sources.skipped[:20])]
        if len(result.sources.skipped) > 20:
            lines.append(f"- ... and {len(result.sources.skipped) - 20} more")
        lines.append("")
    if chart:
        lines += [f"![instances, lengths and filters]({chart})", ""]
    return "\n".join(lines)


def _num(value: float | None) -> str:
    return "—" if value is None else f"{value:g}"


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[str]:
    cell = lambda v: str(v).replace("|", "\\|").replace("\n", " ")  # noqa: E731
    out = ["| " + " | ".join(map(cell, header)) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(map(cell, row)) + " |" for row in rows]
    return [*out, ""]


def chart(result: BuildResult) -> bytes:
    """A PNG with three panels: instances per structure by source, mean example words by source, and the share
    each filter removed per level. Drawn without pyplot and saved without the Software tag (reproducible)."""
    from matplotlib.figure import Figure

    data = summary(result)
    keys = list(data["structures"])
    names = [_short(name, 24) for name in keys]
    sources = sorted({s for st in data["structures"].values() for s in st["by_source"]})
    fig = Figure(figsize=(15, 4.5))
    counts, lengths, removed = fig.subplots(1, 3)
    bottom = [0] * len(names)
    for source in sources:
        heights = [data["structures"][n]["by_source"].get(source, 0) for n in keys]
        counts.bar(names, heights, bottom=bottom, label=source)
        bottom = [b + h for b, h in zip(bottom, heights, strict=True)]
    counts.set_title("Instances per structure")
    counts.legend(fontsize="small")
    width = 0.8 / max(1, len(sources))
    for j, source in enumerate(sources):
        heights = [data["mean_words_by_source"][source][n] or 0 for n in keys]
        lengths.bar([i + (j - (len(sources) - 1) / 2) * width for i in range(len(names))], heights, width,
                    label=source)
    lengths.set_xticks(range(len(names)), names)
    lengths.set_yscale("log")
    lengths.set_title("Mean example length (words)")
    labels = list(data["filters"])
    steps = sorted({step for f in data["filters"].values() for step in f["removed"]})
    width = 0.8 / max(1, len(labels))
    for j, label in enumerate(labels):
        heights = [100 * data["filters"][label]["removed"].get(step, 0) for step in steps]
        removed.bar([i + (j - (len(labels) - 1) / 2) * width for i in range(len(steps))], heights, width, label=label)
    removed.set_xticks(range(len(steps)), steps)
    removed.set_ylabel("% of chunks removed")
    removed.set_title("Removed by each filter")
    removed.legend(fontsize="small")
    for ax in (counts, lengths, removed):
        ax.tick_params(axis="x", labelrotation=60, labelsize="small")
    out = io.BytesIO()
    fig.savefig(out, format="png", dpi=90, metadata={"Software": None}, bbox_inches="tight")
    return out.getvalue()
