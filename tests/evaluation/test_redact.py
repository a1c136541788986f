"""``corral redact``: a copy of a run without its prompts gives the run's summary and report, every message replaced
by the SHA-256 of its text, and refuses to overwrite a run."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from corral.cli import app
from corral.errors import OutputError
from corral.evaluation import read_config, read_records, redact_run, summarize, write_report

RUN = Path(__file__).resolve().parents[2] / "docs/results/clamp-smollm2/cosql/constrained"


def test_a_redacted_run_keeps_its_figures_and_loses_its_prompts(tmp_path: Path) -> None:
    copy = redact_run(RUN, tmp_path / "copy")
    original, redacted = read_records(RUN), read_records(copy)
    assert [r.model_dump(exclude={"messages"}) for r in original] == \
        [r.model_dump(exclude={"messages"}) for r in redacted]
    for before, after in zip(original, redacted, strict=True):
        assert [m["content"] for m in after.messages] == [
            f"[redacted: sha256 {hashlib.sha256(m['content'].encode()).hexdigest()}]" for m in before.messages]
    text = (copy / "records.jsonl").read_text(encoding="utf-8")
    assert "Human:" not in text and "Human:" in (RUN / "records.jsonl").read_text(encoding="utf-8")
    assert summarize(read_config(copy), redacted) == summarize(read_config(RUN), original)
    assert json.loads((copy / "summary.json").read_text()) == json.loads((RUN / "summary.json").read_text())
    mine = write_report([copy], tmp_path / "mine").read_text(encoding="utf-8")
    theirs = write_report([RUN], tmp_path / "theirs").read_text(encoding="utf-8")
    assert mine.replace(str(copy), "RUN") == theirs.replace(str(RUN), "RUN")


def test_redacting_refuses_to_overwrite_and_the_cli_says_so_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(OutputError, match="cannot replace"):
        redact_run(RUN, RUN)
    shutil.copytree(RUN, tmp_path / "run")
    result = CliRunner().invoke(app, ["redact", str(RUN), "--out", str(tmp_path / "run")])
    assert result.exit_code == 2 and "holds a run already" in result.output
    result = CliRunner().invoke(app, ["redact", str(tmp_path / "nothing"), "--out", str(tmp_path / "x")])
    assert result.exit_code == 2 and "not a run directory" in result.output
    result = CliRunner().invoke(app, ["redact", str(RUN), "--out", str(tmp_path / "new")])
    assert result.exit_code == 0 and (tmp_path / "new" / "records.jsonl").is_file()
