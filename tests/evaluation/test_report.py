"""The report from run directories on disk, and the ``report`` and ``runs`` commands."""

from __future__ import annotations

from pathlib import Path

import matplotlib.image
import pytest
import typer
from typer.testing import CliRunner

from corral.cli import find_runs, register_report
from corral.evaluation import RunConfig, RunError, SampleRecord, write_report

from .test_metrics import CONFIG, NEWS1, WIKI1, WIKI2, record, run_records

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
CHARTS = ("success_by_structure.png", "pass_at_k.png", "success_by_round.png")


def write_run(path: Path, config: RunConfig, records: list[SampleRecord]) -> Path:
    path.mkdir(parents=True)
    (path / "config.json").write_text(config.model_dump_json(), encoding="utf-8")
    (path / "records.jsonl").write_text("".join(r.model_dump_json() + "\n" for r in records), encoding="utf-8")
    return path


FREE = CONFIG.model_copy(update={"decoding": "free"}).with_hash()


def free_records() -> list[SampleRecord]:
    """a and b pass every first attempt; c passes one of two and never after feedback."""
    return [record("a", 0, 0, True, groups=WIKI1), record("a", 1, 0, True, groups=WIKI1),
            record("b", 0, 0, True, groups=NEWS1), record("b", 1, 0, True, groups=NEWS1),
            record("c", 0, 0, True, groups=WIKI2), record("c", 1, 0, False, groups=WIKI2, finish_reason="length"),
            record("c", 1, 1, False, groups=WIKI2)]


@pytest.fixture
def runs(tmp_path) -> list[Path]:
    return [write_run(tmp_path / "runs" / "constrained", CONFIG, run_records()),
            write_run(tmp_path / "runs" / "free", FREE, free_records())]


def test_report_tables_and_charts(runs, tmp_path):
    path = write_report(runs, tmp_path / "out")
    assert path == tmp_path / "out" / "report.md"
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    assert lines[0] == "# Corral report: collie"
    assert "## Success by structure" in lines and "## Success by source" in lines
    assert "| structure | m (constrained) | m (free) |" in lines
    assert "| para02 | 100.0% ± 0.0 | 50.0% ± 0.0 |" in lines
    assert "| sent01 | 25.0% ± 25.0 | 100.0% ± 0.0 |" in lines
    assert "| 2 | 66.7% | 100.0% |" in lines  # pass@2: every instance of the free run has a pass
    assert "| 1 | 83.3% ± 16.7 | 83.3% ± 16.7 |" in lines  # cumulative success after one feedback round
    headline = next(line for line in lines if line.startswith("| m (free) | 3 |"))
    assert "| 83.3% ± 16.7 | 83.3% ± 16.7 |" in headline and "| 1 | 0 | 0 | 0 |" in headline  # 1 truncated
    for chart in CHARTS:
        assert f"]({chart})" in text
        data = (tmp_path / "out" / chart).read_bytes()
        assert data[:8] == PNG_SIGNATURE
        image = matplotlib.image.imread(tmp_path / "out" / chart)
        assert image.ndim == 3 and image.shape[0] > 100 and image.shape[1] > 100
        assert image.min() < image.max()  # something was drawn
    assert lines[-1].startswith("Made by `corral report` from ")
    assert all(str(run) in lines[-1] for run in runs)


def test_report_is_byte_identical_when_rerun(runs, tmp_path):
    first = write_report(runs, tmp_path / "one").read_bytes()
    again = write_report(runs, tmp_path / "one").read_bytes()
    elsewhere = write_report(runs, tmp_path / "two").read_bytes()
    assert first == again == elsewhere


def test_runs_with_the_same_label_are_told_apart(tmp_path):
    seeded = CONFIG.model_copy(update={"sampling": CONFIG.sampling.model_copy(update={"seed": 1})}).with_hash()
    runs = [write_run(tmp_path / "x", CONFIG, run_records()), write_run(tmp_path / "y", seeded, run_records()),
            write_run(tmp_path / "z", seeded, run_records())]
    text = write_report(runs, tmp_path / "out").read_text(encoding="utf-8")
    columns = f"| structure | m (constrained) [{CONFIG.hash[:8]}] | m (constrained) [{seeded.hash[:8]}] [y] " \
              f"| m (constrained) [{seeded.hash[:8]}] [z] |"
    assert columns in text.splitlines()


def test_missing_run_directory_is_a_run_error_naming_it(runs, tmp_path):
    missing = tmp_path / "nowhere"
    with pytest.raises(RunError, match="nowhere"):
        write_report([runs[0], missing], tmp_path / "out")
    (tmp_path / "empty").mkdir()
    with pytest.raises(RunError, match=r"empty.* config\.json"):
        write_report([tmp_path / "empty"], tmp_path / "out")


# --- the commands -------------------------------------------------------------------------------------------------

app = typer.Typer()
register_report(app)
runner = CliRunner()


def test_report_command_prints_the_report_path(runs, tmp_path):
    result = runner.invoke(app, ["report", str(runs[0])])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == str(runs[0] / "report.md")
    assert (runs[0] / "report.md").is_file()
    result = runner.invoke(app, ["report", *map(str, runs)])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == str(runs[0].parent / "report" / "report.md")
    result = runner.invoke(app, ["report", str(runs[1]), "--out", str(tmp_path / "elsewhere")])
    assert result.stdout.strip() == str(tmp_path / "elsewhere" / "report.md")


def test_report_command_on_a_bad_directory_is_a_one_line_error(tmp_path):
    result = runner.invoke(app, ["report", str(tmp_path / "nowhere")], env={"COLUMNS": "60"})
    assert result.exit_code == 2
    assert result.stderr.startswith("error: ")
    assert "nowhere" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert result.stdout == ""


def test_runs_command_lists_runs_and_shows_broken_ones(runs, tmp_path):
    root = runs[0].parent
    broken = root / "deeper" / "broken"
    broken.mkdir(parents=True)
    (broken / "config.json").write_text("{not json", encoding="utf-8")
    assert find_runs(root) == [runs[0], broken, runs[1]]
    result = runner.invoke(app, ["runs", str(root)], env={"COLUMNS": "400"})  # wide enough for one line a row
    assert result.exit_code == 0, result.output
    rows = {line.split("│")[1].strip(): line for line in result.stdout.splitlines() if line.startswith("│")}
    assert set(rows) == {str(runs[0]), str(runs[1]), str(broken)}
    free = [cell.strip() for cell in rows[str(runs[1])].split("│")[2:-1]]
    assert free == ["collie", "m (free)", "3", "2", "1", "83.3%", "83.3%", "—", "yes"]
    constrained = [cell.strip() for cell in rows[str(runs[0])].split("│")[2:-1]]
    assert constrained[-4:] == ["50.0%", "83.3%", "—", "yes"]
    assert "error: config.json: (top level): Invalid JSON" in rows[str(broken)]


def test_runs_command_on_a_missing_root_is_an_error(tmp_path):
    result = runner.invoke(app, ["runs", str(tmp_path / "nowhere")])
    assert result.exit_code == 2
    assert "error:" in result.output and "nowhere" in result.output


def test_recheck_judges_the_stored_outputs_again(tmp_path):
    """A run whose records carry stale verdicts (a checker fixed since): --recheck reports the current ones."""
    from corral.tasks import get_task

    options = {"schema_form": "json", "output_form": "json", "shots": 0, "schemas": "concode", "n": 3, "seed": 0}
    task = get_task("concode-gen", **options)
    first, second = list(task.instances())[:2]
    config = RunConfig(task="concode-gen", task_version=task.version, model="smollm2", backend="llamacpp",
                       extract="raw", task_options=options, instances=[first.id, second.id]).with_hash()
    valid = first.reference.removeprefix("```json\n").removesuffix("\n```")
    stale = [  # both recorded as failing, quality missing, a derived group since changed: the first is valid
        record(first.id, 0, 0, False).model_copy(update={"output": valid, "answer": valid,
                                                        "groups": {**first.groups, "enforcement": "stale"}}),
        record(second.id, 0, 0, False).model_copy(update={"output": "not JSON", "answer": "not JSON",
                                                         "groups": second.groups}),
    ]
    run = write_run(tmp_path / "run", config, stale)
    plain = (write_report([run], tmp_path / "plain")).read_text(encoding="utf-8")
    rechecked = write_report([run], tmp_path / "rechecked", recheck=True).read_text(encoding="utf-8")
    assert "| 0.0% ± 0.0 |" in plain and "| 50.0% ± 50.0 |" in rechecked, rechecked
    assert "| stale |" in plain and "| stale |" not in rechecked  # groups come from the instances again
    assert "| exact | 2 | 50.0 | parsed 50.0," in rechecked and "parsed" not in plain  # both are exact
    assert (run / "records.jsonl").read_text(encoding="utf-8").count('"passed":false') == 2  # the run is unchanged
    result = runner.invoke(app, ["report", str(run), "--recheck", "--out", str(tmp_path / "cli")])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "cli" / "report.md").read_text(encoding="utf-8") == rechecked.replace(
        str(tmp_path / "rechecked"), str(tmp_path / "cli"))


def test_runs_sharing_a_label_are_told_apart_by_their_differing_task_options():
    from corral.evaluation import Summary, run_labels

    summaries = [Summary.model_construct(label="smollm2 (free)", hash=f"{i}" * 16,
                                         task_options={"n": 10, "output_form": form})
                 for i, form in enumerate(["json", "xml"])] + [
                Summary.model_construct(label="smollm2 (constrained)", hash="c" * 16,
                                        task_options={"n": 10, "output_form": "json"})]
    assert run_labels(summaries, [Path("a"), Path("b"), Path("c")]) == [
        "smollm2 (free) [output_form=json]", "smollm2 (free) [output_form=xml]", "smollm2 (constrained)"]
