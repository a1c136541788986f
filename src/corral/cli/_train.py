"""``corral train rl|sft|distill|compare|export``: checker-rewarded RL, the SFT baseline, constrained
self-distillation, the before/after report, and a trained run as a standalone model.

A run's options come from ``--config FILE`` (JSON or YAML, a ``TrainConfig``; the only way to describe a mix of
tasks) and from flags, which override the file's fields; the whole config is saved in the run directory, and
rerunning the same command resumes from the last checkpoint.
"""

from __future__ import annotations

import hashlib
import warnings
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from ._console import err, out
from ._console import fail as _fail
from ._options import MAX_INSTANCES, MAX_TOKENS, float_option, group_values, int_option, seed_option, task_options

app = typer.Typer(help="Train with checker rewards (ReFF's RL on trl), SFT baselines, self-distillation.",
                  no_args_is_help=True)

ConfigOption = Annotated[Path | None, typer.Option("--config", help="A TrainConfig file (JSON or YAML).")]
TaskOption = Annotated[str | None, typer.Option("--task", help="One task to train on (a mix needs --config).")]
TaskOptions = Annotated[list[str] | None, typer.Option("-T", "--task-option", metavar="KEY=VALUE",
                                                       help="A task option (repeatable), as corral eval takes it.")]
WhereOption = Annotated[list[str] | None, typer.Option(metavar="GROUP=V1,V2",
                                                       help="Only instances whose group has one of these values.")]
LimitOption = Annotated[int | None, int_option(low=1, high=MAX_INSTANCES, help=(
    "At most N instances of the task (held-out ones included)."))]
BaseOption = Annotated[str | None, typer.Option(help="smollm2, a GGUF, or a transformers checkpoint.")]
StepsOption = Annotated[int | None, int_option(low=1, high=10_000_000, help=(
    "Optimiser steps (default: --epochs over the data)."))]
EpochsOption = Annotated[float | None, float_option(low=0, high=1_000, low_open=True)]
MinutesOption = Annotated[float | None, float_option(low=0, high=43_200, low_open=True, help=(
    "Stop after this much training time (at most 30 days)."))]
LearningRateOption = Annotated[float | None, float_option(low=0, high=1, low_open=True, help="Learning rate.")]
HoldoutOption = Annotated[float | None, float_option(low=0, high=1, high_open=True, help=(
    "Share of instances never trained on."))]
SeedOption = Annotated[int | None, seed_option()]
DeviceOption = Annotated[str | None, typer.Option(help="auto, cpu or cuda.")]
OutOption = Annotated[Path | None, typer.Option("--out", help="Run directory (rerun to resume).")]


def _common(config: Path | None, task: str | None, task_option: list[str] | None, where: list[str] | None,
            limit: int | None, reward: str | None, quality_metric: str | None, max_tokens: int | None,
            fields: dict[str, Any]) -> Any:
    """The run's config: the file's fields, then the flags that were given."""
    from corral.training import TrainError, load_config, parse_config

    try:
        data: dict[str, Any] = load_config(config).model_dump(mode="json") if config else {}
    except TrainError as exc:
        raise _fail(str(exc)) from None
    spec = {key: value for key, value in {
        "options": task_options(task_option or []), "where": group_values(where or []), "limit": limit,
        "reward": reward, "quality_metric": quality_metric, "max_tokens": max_tokens,
    }.items() if value not in (None, {})}
    if task is not None:
        data["tasks"] = [{"task": task, **spec}]
    elif spec:
        if len(data.get("tasks", [])) != 1:
            raise _fail("task flags (-T, --where, --limit, --reward, ...) need --task, or a config with one task")
        data["tasks"] = [{**data["tasks"][0], **spec}]
    if not data.get("tasks"):
        raise _fail("name a task: --task NAME, or --config FILE with a tasks list")
    data |= {key: value for key, value in fields.items() if value is not None}
    try:
        return parse_config(data, str(config) if config else "options")
    except TrainError as exc:
        raise _fail(str(exc)) from None


def _default_out(config: Any) -> Path:
    digest = hashlib.sha256(repr(sorted(config.identity().items())).encode()).hexdigest()[:8]
    slug = "".join(c if c.isalnum() else "-" for c in config.tasks[0].key)
    return Path("corral-runs") / "train" / f"{config.method}-{slug}-{digest}"


def _run(config: Any, output: Path | None) -> None:
    from corral.extras import MissingExtra
    from corral.models import ModelError
    from corral.training import TrainError, train

    run = output or _default_out(config)
    warnings.filterwarnings("ignore", category=FutureWarning)  # transformers' deprecation notes, once per step
    warnings.filterwarnings("ignore", category=UserWarning, module="trl")
    bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                   TextColumn("{task.fields[info]}"), TimeElapsedColumn(), console=err)
    lines: list[Any] = []  # the bar appears with the first step, after the run directory was accepted

    def show(step: int, total: int, row: dict[str, Any]) -> None:
        if not lines:
            bar.start()
            lines.append(bar.add_task(f"train {config.method}", total=None, info=""))
        if "generating" in row:
            bar.update(lines[0], completed=step, total=total, description=f"generate {row['generating']}",
                       info=f"passed {row['passed']}")
            return
        bar.update(lines[0], description=f"train {config.method}")
        info = f"loss {row['loss']:.3f}" if "loss" in row else ""
        if row.get("reward") is not None:
            info = f"reward {row['reward']:+.2f}"
        if row.get("pass_rate") is not None:
            info += f", pass {row['pass_rate']:.0%}"
        bar.update(lines[0], completed=step, total=total, info=info)

    try:
        summary = train(config, run, on_progress=show)
    except KeyboardInterrupt:
        err.print(f"interrupted: checkpoints are in {run}; rerun the same command to resume")
        raise typer.Exit(130) from None
    except (TrainError, MissingExtra, ModelError, ValueError) as exc:
        raise _fail(str(exc)) from None
    finally:
        if lines:
            bar.stop()
    out.print(f"{config.method}: {summary['steps']} steps; adapter: {run / 'adapter'}; log: {run / 'steps.jsonl'}; "
              f"evaluate with: corral eval TASK --model {run}", highlight=False, soft_wrap=True)


@app.command("rl")
def rl_command(
    config: ConfigOption = None, task: TaskOption = None, task_option: TaskOptions = None, where: WhereOption = None,
    limit: LimitOption = None,
    reward: Annotated[str | None, typer.Option(help="binary (ReFF's +-1), graded (the verdict's score) or gated "
                                                    "(format x quality).")] = None,
    quality_metric: Annotated[str | None, typer.Option(help="The quality value a gated reward reads.")] = None,
    max_tokens: Annotated[int | None, int_option(low=1, high=MAX_TOKENS, help=(
        "The task's completion budget in tokens."))] = None,
    setting: Annotated[str | None, typer.Option(help="ReFF's setting: tst, trn or trn-ft.")] = None,
    algorithm: Annotated[str | None, typer.Option(help="grpo or rloo.")] = None,
    base: BaseOption = None,
    steps: StepsOption = None,
    minutes: MinutesOption = None,
    generations: Annotated[int | None, int_option(low=2, high=1_024, help=(
        "Completions per prompt (the GRPO group)."))] = None,
    prompts_per_step: Annotated[int | None, int_option(low=1, high=4_096, help="Prompts per optimiser step.")] = None,
    lr: LearningRateOption = None,
    beta: Annotated[float | None, float_option(low=0, high=100, low_open=True, help="KL anchor weight.")] = None,
    lora_r: Annotated[int | None, int_option(low=1, high=4_096, help="LoRA rank (default 16).")] = None,
    holdout: HoldoutOption = None,
    seed: SeedOption = None,
    device: DeviceOption = None,
    vllm: Annotated[bool | None, typer.Option("--vllm/--no-vllm", help="Rollouts with vLLM (a GPU).")] = None,
    output: OutOption = None,
) -> None:
    """Reinforce format faithfulness with the task's checker as reward (GRPO or RLOO, LoRA, KL anchor)."""
    cfg = _common(config, task, task_option, where, limit, reward, quality_metric, max_tokens, {
        "method": "rl", "setting": setting, "algorithm": algorithm, "base": base, "max_steps": steps,
        "minutes": minutes, "num_generations": generations, "prompts_per_step": prompts_per_step,
        "learning_rate": lr, "beta": beta, "lora_r": lora_r, "holdout": holdout, "seed": seed, "device": device,
        "vllm": vllm})
    _run(cfg, output)


@app.command("sft")
def sft_command(
    config: ConfigOption = None, task: TaskOption = None, task_option: TaskOptions = None, where: WhereOption = None,
    limit: LimitOption = None, base: BaseOption = None, steps: StepsOption = None, epochs: EpochsOption = None,
    minutes: MinutesOption = None, lr: LearningRateOption = None, holdout: HoldoutOption = None,
    seed: SeedOption = None, device: DeviceOption = None, output: OutOption = None,
) -> None:
    """Fine-tune on the training instances' references, loss on the answer only (the SFT baseline)."""
    cfg = _common(config, task, task_option, where, limit, None, None, None, {
        "method": "sft", "base": base, "max_steps": steps,
        "epochs": epochs, "minutes": minutes, "sft_learning_rate": lr, "holdout": holdout, "seed": seed,
        "device": device})
    _run(cfg, output)


@app.command("distill")
def distill_command(
    config: ConfigOption = None, task: TaskOption = None, task_option: TaskOptions = None, where: WhereOption = None,
    limit: LimitOption = None,
    reward: Annotated[str | None, typer.Option(help="gated also drops passing outputs with quality 0.")] = None,
    samples: Annotated[int | None, int_option(low=1, high=1_000, help=(
        "Constrained samples per training instance."))] = None,
    base: BaseOption = None, steps: StepsOption = None, epochs: EpochsOption = None, minutes: MinutesOption = None,
    lr: LearningRateOption = None, holdout: HoldoutOption = None, seed: SeedOption = None,
    device: DeviceOption = None, output: OutOption = None,
) -> None:
    """Generate with grammar constraints, keep what passes the checker, fine-tune on it."""
    cfg = _common(config, task, task_option, where, limit, reward, None, None, {
        "method": "distill", "base": base, "max_steps": steps,
        "epochs": epochs, "minutes": minutes, "sft_learning_rate": lr, "distill_samples": samples,
        "holdout": holdout, "seed": seed, "device": device})
    _run(cfg, output)


@app.command("compare")
def compare_command(
    runs: Annotated[list[Path], typer.Argument(help="Training run directories of one task mix.")],
    output: Annotated[Path, typer.Option("--out", help="Where the report and its evaluation runs go.")],
    limit: Annotated[int | None, int_option(low=1, high=MAX_INSTANCES, help=(
        "At most N held-out instances per task."))] = None,
    decoding: Annotated[str, typer.Option(help="free, constrained or both.")] = "both",
    base: Annotated[bool, typer.Option(help="Evaluate the base model too (the 'before' column).")] = True,
) -> None:
    """Held-out FFR, quality and reward hacking of the base and each run, free and constrained, as one report."""
    from corral.evaluation import RunError
    from corral.extras import MissingExtra
    from corral.models import ModelError
    from corral.training import TrainError, compare

    modes = {"both": ("free", "constrained")}.get(decoding, (decoding,))
    if any(mode not in ("free", "constrained") for mode in modes):
        raise _fail(f"unknown --decoding {decoding!r}; valid: free, constrained, both")
    warnings.filterwarnings("ignore", category=FutureWarning)
    try:
        path = compare(runs, output, limit=limit, decodings=modes, include_base=base,
                       on_progress=lambda what: err.print(f"evaluating {what}", highlight=False))
    except (TrainError, RunError, MissingExtra, ModelError, ValueError) as exc:
        raise _fail(str(exc)) from None
    out.print(f"report: {path}")


@app.command("export")
def export_command(
    run: Annotated[Path, typer.Argument(help="A training run directory.")],
    output: Annotated[Path | None, typer.Option("--out", help="Where the merged checkpoint goes (run/merged).")] = None,
    gguf: Annotated[bool, typer.Option(help="Also write a GGUF with llama.cpp's converter.")] = False,
) -> None:
    """Merge the run's adapter into its base: a plain checkpoint, and a GGUF where llama.cpp's tools are installed."""
    from corral.training import TrainError, export

    warnings.filterwarnings("ignore", category=FutureWarning)
    try:
        path = export(run, output, gguf=gguf)
    except TrainError as exc:
        raise _fail(str(exc)) from None
    out.print(f"exported: {path}")
