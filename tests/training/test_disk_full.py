"""A full disk while checkpointing: one clear error naming the checkpoint that is still usable, and the next run
resumes from it (the half-written checkpoint is set aside)."""

from __future__ import annotations

import errno
import json
from importlib.util import find_spec

import pytest

from corral.training import TaskSpec, TrainConfig, TrainError, last_checkpoint, train


@pytest.mark.model
@pytest.mark.slow
@pytest.mark.skipif(find_spec("trl") is None, reason="needs trl")
def test_a_full_disk_while_saving_leaves_the_previous_checkpoint_usable(tmp_path, monkeypatch):
    from transformers import Trainer

    config = TrainConfig(tasks=[TaskSpec(task="collie", where={"structure": ["word01"]}, limit=6, max_tokens=3)],
                         num_generations=2, max_steps=2, save_steps=1, device="cpu")
    run = tmp_path / "run"
    original = Trainer._save_optimizer_and_scheduler

    def fill_disk(self, output_dir):
        if output_dir.endswith("checkpoint-2"):
            raise OSError(errno.ENOSPC, "No space left on device")
        return original(self, output_dir)

    monkeypatch.setattr(Trainer, "_save_optimizer_and_scheduler", fill_disk)
    with pytest.raises(TrainError, match=r"disk filled up.*checkpoint-1.*rerun"):
        train(config, run)
    # the half-written checkpoint (no trainer state) was set aside when the error named the usable one
    assert not (run / "checkpoints" / "checkpoint-2").exists()
    assert not (run / "incomplete-checkpoint-2" / "trainer_state.json").exists()
    assert (run / "incomplete-checkpoint-2").is_dir()

    monkeypatch.setattr(Trainer, "_save_optimizer_and_scheduler", original)
    summary = train(config, run)
    assert summary["steps"] == 2
    steps = [json.loads(line)["step"] for line in (run / "steps.jsonl").read_text(encoding="utf-8").splitlines()]
    assert steps == [1, 2]
    assert last_checkpoint(run).name == "checkpoint-2"
    assert (run / "adapter" / "adapter_config.json").is_file()
