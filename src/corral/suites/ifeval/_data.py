"""IFEval's prompts: the 540 rows shipped in ``data/input_data.jsonl.gz`` (Apache-2.0, see DATA_LICENSES.md), each
read into a ``Prompt`` whose instructions are parsed and validated once.

A row is ``{"key", "prompt", "instruction_id_list", "kwargs"}``, the two lists matched by index. A bad row (an
unknown instruction id, a missing or ill-typed argument, lists of different lengths) is a ``PromptError`` in one
line naming the file, the line, the row's key and the problem; nothing is drawn at random to fill a gap.
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from corral.errors import InputError
from corral.files import MAX_WHOLE_FILE_BYTES, read_input_bytes
from corral.jsonl import enumerate_jsonl

from ._kinds import Instruction, InstructionError

SHIPPED = "input_data.jsonl.gz"


class PromptError(InputError):
    """A row of IFEval data that cannot be read; the message names the row."""


@dataclass(frozen=True)
class Prompt:
    """One IFEval prompt: its key (IFEval's id), the prompt text and its instructions, in the data's order."""

    key: str
    prompt: str
    instructions: tuple[Instruction, ...]


def parse_row(row: Any, where: str = "row") -> Prompt:
    """A ``Prompt`` from one row of IFEval data; ``where`` names the row in errors (``file:line``)."""
    if not isinstance(row, Mapping):
        raise PromptError(f"{where}: an IFEval row must be a JSON object, got {type(row).__name__}")
    key = row.get("key")
    name = f"{where} (key {key})" if key is not None else where
    ids, kwargs, prompt = row.get("instruction_id_list"), row.get("kwargs"), row.get("prompt")
    if key is None or not isinstance(prompt, str) or not isinstance(ids, list) or not ids:
        missing = [field for field, ok in (("key", key is not None), ("prompt", isinstance(prompt, str)),
                                           ("instruction_id_list", isinstance(ids, list) and bool(ids))) if not ok]
        raise PromptError(f"{name}: missing or bad field {', '.join(missing)}")
    if kwargs is None:
        kwargs = [{} for _ in ids]
    if not isinstance(kwargs, list) or len(kwargs) != len(ids):
        raise PromptError(f"{name}: kwargs must be a list with one object per instruction ({len(ids)})")
    instructions = []
    for index, (id, args) in enumerate(zip(ids, kwargs, strict=True)):
        if not isinstance(id, str) or not (args is None or isinstance(args, Mapping)):
            raise PromptError(f"{name}: instruction {index + 1} must be an id string with an argument object")
        try:
            instructions.append(Instruction.parse(id, args))
        except InstructionError as exc:
            raise PromptError(f"{name}: instruction {index + 1}: {exc}") from None
    return Prompt(str(key), prompt, tuple(instructions))


def read_prompt_file(path: str | Path) -> tuple[list[Prompt], str]:
    """Every prompt of an IFEval-format file (a regular file of at most 1 GiB, read once) and the SHA-256 of its
    bytes, the version of a task over it. A bad row, an empty file or a key given twice is a ``PromptError``
    naming the file (and the line)."""
    try:
        data = read_input_bytes(path, MAX_WHOLE_FILE_BYTES)
    except InputError as exc:
        raise PromptError(f"cannot read prompts file {exc}") from None
    name = str(path)
    prompts = [parse_row(row, f"{name}:{number}")
               for number, row in enumerate_jsonl(io.BytesIO(data), name=name)]
    if not prompts:
        raise PromptError(f"{name}: no prompts")
    seen: set[str] = set()
    for prompt in prompts:
        if prompt.key in seen:
            raise PromptError(f"{name}: the key {prompt.key} is given twice")
        seen.add(prompt.key)
    return prompts, hashlib.sha256(data).hexdigest()


def read_prompts(path: str | Path | None = None) -> Iterator[Prompt]:
    """The prompts of an IFEval JSON Lines file (``.gz`` read compressed), or of the shipped data when ``path`` is
    None. Read through ``corral.jsonl`` (its size and line limits); a bad row stops with its ``PromptError``."""
    source = resources.files("corral.suites.ifeval").joinpath("data", SHIPPED) if path is None else Path(path)
    name = f"corral/suites/ifeval/data/{SHIPPED}" if path is None else str(path)
    for number, row in enumerate_jsonl(source, name=name):
        yield parse_row(row, f"{name}:{number}")
