"""A Markdown report with charts comparing runs, made from the run directories alone.

Summaries are recomputed from each run's records (never from a model, nor from a possibly stale summary.json), and
the Markdown has no timestamps, so the same runs always give the same report.md, byte for byte, and a report can be
regenerated anywhere the run directories are. The charts follow COLLIE: success by structure (its Figure 4),
pass@k, and cumulative success over feedback rounds (its Figure 8).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from corral.files import make_folder, writing
from corral.jsonl import atomic_write

from ._metrics import summarize
from ._records import RunError, read_config, read_records
from ._summary import Counts, Rate, RuleCount, Summary

REPORT_FILE = "report.md"
GROUP_CHART = "success_by_structure.png"
PASS_AT_K_CHART = "pass_at_k.png"
ROUND_CHART = "success_by_round.png"
GROUP_ROUND_CHART = "success_by_round_by_{key}.png"
QUALITY_ROUND_CHART = "quality_by_round_by_{key}.png"


def write_report(runs: Sequence[Path], out: Path, recheck: bool = False) -> Path:
    """Write ``out/report.md`` and its charts comparing ``runs`` (one column or series per run); return its path.

    ``recheck``: judge the stored outputs again with the tasks' current checkers first (``rejudge``); the run
    directories are not changed. Raises RunError, naming the path, for a run directory that is missing or cannot
    be read, and an OutputError, naming the file, for one that cannot be written.
    """
    if not runs:
        raise RunError("no run directories given")
    summaries = [_load(Path(run), recheck) for run in runs]
    labels = run_labels(summaries, runs)
    make_folder(out)  # a file in the way, a name too long: an OutputError naming --out
    charts = _charts(summaries, labels, out)
    path = out / REPORT_FILE
    atomic_write(path, _markdown(summaries, labels, runs, charts))
    return path


def _load(run: Path, recheck: bool = False) -> dict[str, Any]:
    if not run.is_dir():
        raise RunError(f"{run}: no such run directory")
    from ._rejudge import rejudge
    from ._runner import read_runtimes

    config, records = read_config(run), read_records(run)
    if recheck:
        records = rejudge(config, records)
    return summarize(config, records, read_runtimes(run))


def run_labels(summaries: Sequence[Summary], runs: Sequence[Path]) -> list[str]:
    """Each run's config label; runs sharing one are told apart by the task options that differ between them
    (``schema_form=yaml output_form=xml``), then by hash prefix, then by directory name."""
    labels = [s.label for s in summaries]
    options = [s.task_options for s in summaries]
    differing = sorted({k for o in options for k in o if len({json.dumps(p.get(k)) for p in options}) > 1})
    tags = ([" ".join(f"{k}={o.get(k)}" for k in differing) for o in options] if differing else None,
            [s.hash[:8] for s in summaries], [Path(run).name for run in runs],
            [f"#{i}" for i in range(1, len(runs) + 1)])
    for tag in tags:
        if tag is not None:
            labels = [f"{label} [{tag[i]}]" if labels.count(label) > 1 else label for i, label in enumerate(labels)]
    return labels


def _group_key(summaries: Sequence[Summary]) -> str | None:
    """The breakdown the charts and quality tables use: COLLIE's ``structure``, FormatBench's ``task``, else the
    first group by name."""
    keys = sorted({key for s in summaries for key in s.by_group})
    return next((key for key in ("structure", "task") if key in keys), keys[0] if keys else None)


# --- Markdown -----------------------------------------------------------------------------------------------------

def _percent(stat: Rate | None) -> str:
    if not stat or not stat.n:
        return "—"
    return f"{100 * stat.value:.1f}% ± {100 * stat.se:.1f}"


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]], align: str = "-:") -> list[str]:
    """A Markdown table: the first column left-aligned, the others by ``align`` (right by default)."""
    lines = ["| " + " | ".join(_cell(h) for h in header) + " |",
             "|" + "|".join(["---"] + [f"{align[0]}--{align[1]}"] * (len(header) - 1)) + "|"]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return [*lines, ""]


def _cell(value: Any) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ")


def _markdown(summaries: Sequence[Summary], labels: Sequence[str], runs: Sequence[Path],
              charts: dict[str, str]) -> str:
    tasks = list(dict.fromkeys(s.task for s in summaries))
    lines = [f"# Corral report: {', '.join(tasks)}", ""]
    lines += ["## Runs", ""]
    lines += _table(["run", "task", "model", "decoding", "hash", "directory", "complete", "computed with"],
                    [[label, s.task, s.model, s.decoding, f"`{s.hash}`", f"`{run}`",
                      "yes" if s.complete else f"no ({s.counts.missing} first attempts missing)",
                      "; ".join(s.runtimes) or "—"]
                     for label, s, run in zip(labels, summaries, runs, strict=True)], align="--")

    lines += ["## Headline", "",
              "Success is the first attempt's pass rate *as written*: the model finished its output and the checker "
              "passed it (mean over instances of the fraction of samples that pass, ± standard error over "
              "instances); final success counts a sample as solved if it passed as written within the feedback "
              "rounds. A constrained output cut off at its token budget is closed with its grammar's shortest "
              "completion when that adds a few characters at most (the record's `appended`); such an output never "
              "counts as the model's pass, and *with closing* shows the first-attempt rate when closed passes are "
              "counted too.", ""]
    lines += _table(["run", "instances", "samples", "rounds", "success", "final success", "with closing",
                     "mean score", "truncated", "empty", "errors", "free-fallback"],
                    [[label, s.success.n if s.success.n == s.instances
                      else f"{s.success.n} of {s.instances}", s.samples, s.rounds,
                      _percent(s.success), _percent(s.final_success),
                      _percent(s.success_with_closing), f"{s.mean_score:.3f}",
                      _truncated(s.counts), s.counts.empty, s.counts.errors,
                      s.sample_decoding.get("free-fallback", 0)]
                     for label, s in zip(labels, summaries, strict=True)])
    lines += _closing_section(summaries, labels)
    lines += _thinking_section(summaries, labels)

    for key in sorted({key for s in summaries for key in s.by_group}):
        values = sorted({value for s in summaries for value in s.by_group.get(key, {})})
        lines += [f"## Success by {key}", ""]
        lines += _table([key, *labels], [[value, *(_percent(s.by_group.get(key, {}).get(value))
                                                   for s in summaries)] for value in values])
    if GROUP_CHART in charts:
        lines += [f"![{charts[GROUP_CHART]}]({GROUP_CHART})", ""]

    most = max(s.samples for s in summaries)
    lines += ["## pass@k", "", "The unbiased estimate from each instance's first attempts (Chen et al. 2021), "
              "averaged over instances.", ""]
    lines += _table(["k", *labels], [[k, *(f"{100 * s.pass_at_k[str(k)]:.1f}%"
                                           if str(k) in s.pass_at_k and s.success.n else "—"
                                           for s in summaries)] for k in _table_ks(most)])
    lines += [f"![{charts[PASS_AT_K_CHART]}]({PASS_AT_K_CHART})", ""]

    rounds = max(s.rounds for s in summaries)
    lines += ["## Success by feedback round", "",
              "Cumulative: the fraction of samples that passed at or before the round.", ""]
    lines += _table(["round", *labels], [[r, *(_percent(s.by_round[r]) if r < len(s.by_round) else "—"
                                               for s in summaries)] for r in range(rounds + 1)])
    lines += [f"![{charts[ROUND_CHART]}]({ROUND_CHART})", ""]
    lines += _quality_sections(summaries, labels, charts)
    lines += _fluency_section(summaries, labels)
    lines += _violation_sections(summaries, labels)

    lines += ["---", "", "Made by `corral report` from " + ", ".join(f"`{run}`" for run in runs) + "."]
    return "\n".join(lines) + "\n"


def _closing_section(summaries: Sequence[Summary], labels: Sequence[str]) -> list[str]:
    """What the runner wrote after the model: cut-off outputs closed, and the passes that rest on it."""
    if not any(s.counts.closed for s in summaries):
        return []
    lines = ["## Closing", "",
             "Outputs (all rounds) cut off at their token budget; closed ones got the grammar's shortest completion "
             "appended. *Closing changed the verdict* counts closed outputs that pass only with the appended text "
             "(the model's own text fails).", ""]
    rows = [[label, c.truncated, c.closed, c.closed_passed, _changed(c), c.appended_chars, c.appended_chars_max,
             _percent(s.final_success_with_closing)]
            for label, s in zip(labels, summaries, strict=True) for c in (s.counts,)]
    return lines + _table(["run", "cut off", "closed", "closed and passed", "closing changed the verdict",
                           "characters appended", "most in one output", "final success with closing"], rows)


def _changed(counts: Counts) -> str:
    """Closed outputs whose pass rests on the appended text; unknown for records that predate the count."""
    changed = str(counts.closing_changed_verdict)
    unjudged = counts.closed_unjudged
    return f"{changed} ({unjudged} not judged: older records)" if unjudged else changed


def _thinking_section(summaries: Sequence[Summary], labels: Sequence[str]) -> list[str]:
    """How much the model thought before answering, where a run declares a reasoning block (docs/reasoning.md)."""
    if not any(s.thinking for s in summaries):
        return []
    lines = ["## Thinking", "",
             "Outputs (all rounds) with a reasoning block: its length in characters, how many were empty (the model "
             "answered at once), and how many never closed within the block's bound: those have no answer and fail "
             "(rule `reasoning-unclosed`). *Served* blocks were separated by the server's reasoning parser.", ""]
    rows = [[label, t.records, f"{t.mean_chars:,.0f}", f"{t.max_chars:,}", t.empty,
             f"{t.unclosed} ({100 * t.unclosed_rate:.1f}%)", t.served] if (t := s.thinking) else [label, *["—"] * 6]
            for label, s in zip(labels, summaries, strict=True)]
    return lines + _table(["run", "outputs with a block", "mean characters", "most characters", "empty",
                           "never closed", "served"], rows)


def _fluency_section(summaries: Sequence[Summary], labels: Sequence[str]) -> list[str]:
    """Whether the final answers are still language, one row per run (``corral.metrics.fluency``)."""
    blocks = [s.fluency for s in summaries]
    if not any(block.get("outputs") for block in blocks):
        return []
    lines = ["## Fluency", "",
             "Over each sample's final answer. Words are wordfreq's English tokens that contain a letter; a non-word "
             "is one absent from wordfreq's English list (Zipf frequency 0); a triple repeat is one word three "
             "times in a row; distinct-2 is distinct word bigrams over all word bigrams (Li et al. 2016); NLL/token "
             "is the outputs' negative log-likelihood per token under the same model with no grammar (nats; "
             "`(k of n)` when only k outputs could be scored), pooled over tokens, and its mean over outputs "
             "(each output's own NLL/token: a few short junk outputs barely move the pooled figure). See "
             "docs/evaluation.md.", ""]

    def share(value: float | None) -> str:
        return "—" if value is None else f"{100 * value:.1f}%"

    def nll(block: dict[str, Any]) -> str:
        if block.get("nll_per_token") is None:
            return "—"
        text = f"{block['nll_per_token']:.3f}"
        return text if block["scored"] == block["outputs"] else f"{text} ({block['scored']} of {block['outputs']})"

    rows = [[label, block.get("outputs", 0), share(block.get("nonword_share")),
             share(block.get("triple_repeat_share")),
             "—" if block.get("distinct_2") is None else f"{block['distinct_2']:.3f}", nll(block),
             "—" if block.get("mean_nll_per_token") is None else f"{block['mean_nll_per_token']:.3f}"]
            for label, block in zip(labels, blocks, strict=True)]
    return lines + _table(["run", "outputs", "non-word %", "triple-repeat %", "distinct-2", "NLL/token",
                           "mean NLL/token per output"], rows)


def _violation_sections(summaries: Sequence[Summary], labels: Sequence[str]) -> list[str]:
    """The most common violated rules of the first attempts, per run, and per task where a run groups by task."""
    if not any(s.violated_rules for s in summaries):
        return []
    lines = ["## Most violated rules", "",
             "First attempts whose verdict breaks the rule (an output breaking a rule twice counts once).", ""]

    def cell(rules: Sequence[RuleCount], rule: str) -> str:
        found = next((r for r in rules if r.rule == rule), None)
        return f"{found.count} ({100 * found.rate:.0f}%)" if found else "—"

    names = list(dict.fromkeys(r.rule for s in summaries for r in s.violated_rules))
    lines += _table(["rule", *labels], [[f"`{name}`", *(cell(s.violated_rules, name) for s in summaries)]
                                       for name in names])
    per_task = [s.by_group_violated_rules.get("task", {}) for s in summaries]
    tasks = sorted({task for groups in per_task for task in groups})
    if tasks:
        lines += ["### By task", ""]
        lines += _table(["task", *labels],
                        [[task, *("; ".join(f"`{r.rule}` {r.count}" for r in groups.get(task, [])[:3]) or "—"
                                  for groups in per_task)] for task in tasks], align="--")
    return lines


def _fmt(value: float | None, metric: str) -> str:
    if value is None:
        return "—"
    return f"{value:.1f}" if metric.endswith("bleu") else f"{100 * value:.1f}"


def _has_quality(summary: Summary) -> bool:
    """Whether a run's records carry quality metrics (COLLIE's have none: only FFR would be shown)."""
    return bool(summary.quality) or any(metrics for groups in summary.by_group_quality.values()
                                        for metrics in groups.values())


def _quality_sections(summaries: Sequence[Summary], labels: Sequence[str], charts: dict[str, str]) -> list[str]:
    """Format faithfulness and quality side by side per group (ReFF's Tables 4 and 9), when runs have quality
    metrics: a checker can be gamed, so how often a passing output has zero quality is shown too."""
    lines: list[str] = []
    for label, s in zip(labels, summaries, strict=True):
        if not _has_quality(s):
            continue
        key = _group_key([s])
        if key is None:
            continue
        last = s.rounds
        lines += [f"## Format faithfulness and quality by {key}: {label}", "",
                  "FFR is the share of instances whose output passes the checker (round 0: the first answer; "
                  f"round {last}: after up to {last} refinement rounds). Quality is the task's own metric on the "
                  "same answers, scaled by 100 (BLEU as is); `passes, quality 0` counts passing first answers "
                  "whose quality is zero.", ""] if last else [
                  f"## Format faithfulness and quality by {key}: {label}", "",
                  "FFR is the share of instances whose first output passes the checker; quality is the task's "
                  "own metric on the same answers, scaled by 100 (BLEU as is).", ""]
        header = [key, "n", "FFR", "quality"]
        if last:
            header += [f"FFR r{last}", f"quality r{last}"]
        header.append("passes, quality 0")
        rows = []
        for value, stat in sorted(s.by_group.get(key, {}).items()):
            quality = s.by_group_quality.get(key, {}).get(value, {})
            metrics = sorted(quality)
            shown = ", ".join(f"{m} {_fmt(quality[m], m)}" for m in metrics) or "—"
            row = [value, stat.n, f"{100 * stat.value:.1f}", shown]
            if last:
                final = s.by_group_round[key][value][-1]
                row += [f"{100 * final.value:.1f}" if final.n else "—",
                        ", ".join(f"{m} {_fmt(final.quality.get(m), m)}" for m in metrics) or "—"]
            zero = s.by_group_zero_quality.get(key, {}).get(value)
            row.append(f"{zero.zero_quality} of {zero.passed}" if zero and zero.passed else "—")
            rows.append(row)
        lines += _table(header, rows)
        for name in (GROUP_ROUND_CHART.format(key=key), QUALITY_ROUND_CHART.format(key=key)):
            if name in charts:
                lines += [f"![{charts[name]}]({name})", ""]
    return lines


# --- charts -------------------------------------------------------------------------------------------------------

def _charts(summaries: Sequence[Summary], labels: Sequence[str], out: Path) -> dict[str, str]:
    """Draw the charts into ``out``; return their titles by file name.

    Figures are made without pyplot so that no global backend or figure state is touched, and saved without the
    Software tag so that the files depend only on the numbers.
    """
    from matplotlib.figure import Figure

    titles: dict[str, str] = {}
    save: dict[str, Any] = {"dpi": 100, "metadata": {"Software": None}, "bbox_inches": "tight"}

    key = _group_key(summaries)
    if key is not None:
        values = sorted({value for s in summaries for value in s.by_group.get(key, {})})
        fig = Figure(figsize=(max(6.0, 0.6 * len(values) * max(1, len(summaries)) ** 0.5 + 2), 4.5))
        ax = fig.subplots()
        width = 0.8 / len(summaries)
        for j, (label, s) in enumerate(zip(labels, summaries, strict=True)):
            stats = [s.by_group.get(key, {}).get(value) for value in values]
            heights = [100 * st.value if st and st.n else float("nan") for st in stats]
            errors = [100 * st.se if st and st.n else 0.0 for st in stats]
            xs = [i + (j - (len(summaries) - 1) / 2) * width for i in range(len(values))]
            ax.bar(xs, heights, width, yerr=errors, capsize=2, label=label)
        ax.set_xticks(range(len(values)), values, rotation=45, ha="right")
        ax.set_ylim(0, 105)
        ax.set_xlabel(key)
        ax.set_ylabel("success (%)")
        titles[GROUP_CHART] = f"First-attempt success by {key}"
        ax.set_title(titles[GROUP_CHART])
        ax.legend(fontsize="small")
        with writing(out / GROUP_CHART):  # a full disk, no permission: an OutputError naming the chart
            fig.savefig(out / GROUP_CHART, **save)

    curves = []
    for s_ in summaries:
        ks = [int(k) for k in s_.pass_at_k] if s_.success.n else []
        curves.append([(k, 100 * s_.pass_at_k[str(k)]) for k in ks])
    titles[PASS_AT_K_CHART] = "pass@k on the first attempt"
    _line_chart(out / PASS_AT_K_CHART, labels, curves, "k (samples)", "pass@k (%)", titles[PASS_AT_K_CHART], save)
    curves = [[(row.round, 100 * row.value) for row in s_.by_round if row.n] for s_ in summaries]
    titles[ROUND_CHART] = "Success after feedback rounds"
    _line_chart(out / ROUND_CHART, labels, curves, "feedback round", "cumulative success (%)", titles[ROUND_CHART],
                save)
    rounds = [s_ for s_ in summaries if s_.by_group_round]
    if rounds and key is not None and key in rounds[0].by_group_round and _has_quality(rounds[0]):
        per_value = rounds[0].by_group_round[key]  # the first run with rounds: one line per group value
        values = sorted(per_value)
        name = GROUP_ROUND_CHART.format(key=key)
        titles[name] = f"Cumulative success by refinement round, per {key}"
        _line_chart(out / name, values, [[(row.round, 100 * row.value) for row in per_value[v] if row.n]
                                         for v in values], "round", "cumulative success (%)", titles[name], save)
        metrics = {v: sorted(per_value[v][0].quality) for v in values}
        scored = [v for v in values if metrics[v]]
        if scored:
            name = QUALITY_ROUND_CHART.format(key=key)
            titles[name] = f"Quality of the latest answer by round, per {key}"
            curves = [[(row.round, _scaled(row.quality, metrics[v][0])) for row in per_value[v] if row.n]
                      for v in scored]
            _line_chart(out / name, [f"{v} ({metrics[v][0]})" for v in scored], curves, "round",
                        "quality (x100; BLEU as is)", titles[name], save)
    return titles


def _scaled(quality: dict[str, float], metric: str) -> float:
    value = quality.get(metric, float("nan"))
    return value if metric.endswith("bleu") else 100 * value


def _line_chart(path: Path, labels: Sequence[str], curves: Sequence[Sequence[tuple[int, float]]], xlabel: str,
                ylabel: str, title: str, save: dict) -> None:
    """One line per run over integer x (k, or the round), y in percent."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6, 4))
    ax = fig.subplots()
    for label, points in zip(labels, curves, strict=True):
        ax.plot([x for x, _ in points], [y for _, y in points], marker="o", label=label)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_ylim(0, 105)
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.set_title(title)
    ax.legend(fontsize="small")
    with writing(path):
        fig.savefig(path, **save)


def _truncated(counts: Counts) -> str:
    """Outputs cut off at the token budget, and how many of them were closed by the grammar's completion."""
    closed = counts.closed
    return f"{counts.truncated} ({closed} closed)" if closed else str(counts.truncated)


def _table_ks(most: int) -> list[int]:
    """The k of the pass@k table: every k up to 10, then 20, 50, 100, 200, ... and ``most`` itself (the chart shows
    them all)."""
    ks = set(range(1, min(most, 10) + 1)) | {most}
    step = 20
    while step < most:
        ks.add(step)
        step = step * 5 // 2 if str(step).startswith("2") else step * 2
    return sorted(ks)
