"""TreeDST in Lispress (Cheng et al. 2020, converted by Platanios et al. 2021): dialogue turns and their programs, read
from the user's copy (not shipped: the files are too large to fetch here), in SMCalFlow 2.0's dataflow format.

A folder holds ``train_dst.dataflow_dialogues.jsonl``, ``dev_dst...`` and ``test_dst...`` (gzipped or not, as
BenchCLAMP's setup names them): one dialogue per line, ``{"dialogue_id", "turns": [{"turn_index", "user_utterance":
{"original_text"}, "agent_utterance": {"original_text"}, "lispress", "skip"}]}``. Each turn becomes a
``CalflowTurn`` (the context BenchCLAMP gives a model: the previous turn's user and agent utterances), so TreeDST is
judged as SMCalFlow is (Lispress match). Turns flagged ``skip`` are left out.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from corral.errors import InputError
from corral.jsonl import enumerate_jsonl

from ._calflow import CalflowTurn

__all__ = ["TREEDST_PARTS", "read_dataflow_dialogues", "treedst_turns"]

TREEDST_PARTS = ("dev", "test")
FILES = {part: f"{part}_dst.dataflow_dialogues.jsonl" for part in ("train", *TREEDST_PARTS)}
DOWNLOAD = ("TreeDST in Lispress (train_dst, dev_dst and test_dst .dataflow_dialogues.jsonl, from the "
            "microsoft/task_oriented_dialogue_as_dataflow_synthesis release or BenchCLAMP's raw data): put them in "
            "one folder and pass -T data=FOLDER")


def _text(turn: dict[str, Any], side: str) -> str:
    value = turn.get(side) or {}
    text = value.get("original_text", "") if isinstance(value, dict) else ""
    return text if isinstance(text, str) else ""


def read_dataflow_dialogues(path: Path, skipped: bool = False) -> tuple[CalflowTurn, ...]:
    """Every turn of a dataflow dialogues file (``skipped``: also those flagged ``skip``); an ``InputError`` names the
    file, line and field that does not read."""
    turns: list[CalflowTurn] = []
    for number, dialogue in enumerate_jsonl(path):
        where = f"{path}: line {number}"
        name, items = dialogue.get("dialogue_id"), dialogue.get("turns")
        if not isinstance(name, str) or not isinstance(items, list):
            raise InputError(f"{where}: a dialogue needs a string dialogue_id and a list of turns")
        last_user = last_agent = ""
        for k, turn in enumerate(items):
            if not isinstance(turn, dict) or not isinstance(turn.get("lispress"), str):
                raise InputError(f"{where}: turns[{k}].lispress: missing or not a string")
            index = turn.get("turn_index", k)
            utterance = _text(turn, "user_utterance")
            if not utterance:
                raise InputError(f"{where}: turns[{k}].user_utterance.original_text: missing or empty")
            if skipped or not turn.get("skip"):
                turns.append(CalflowTurn(f"{name}_{index}", utterance, last_user, last_agent, turn["lispress"],
                                         bool(turn.get("skip"))))
            last_user, last_agent = utterance, _text(turn, "agent_utterance")
    return tuple(turns)


@cache
def treedst_turns(folder: str, part: str) -> tuple[CalflowTurn, ...]:
    """``train``, ``dev`` or ``test`` turns (``skip`` ones left out)."""
    if part not in FILES:
        raise InputError(f"unknown TreeDST part {part!r}; valid: {', '.join(TREEDST_PARTS)}")
    root = Path(folder)
    if not root.is_dir():
        raise InputError(f"{root}: no such folder; clamp-treedst reads {DOWNLOAD}")
    for name in (FILES[part], FILES[part] + ".gz"):
        if (root / name).is_file():
            return read_dataflow_dialogues(root / name)
    raise InputError(f"{root}: no {FILES[part]}(.gz); clamp-treedst reads {DOWNLOAD}")
