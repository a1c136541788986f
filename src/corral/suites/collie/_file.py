"""A task from an instances file: what ``corral build`` writes, evaluated with ``corral eval FILE.jsonl``.

Each line holds a constraint in the textual form (with its profile), its rendered prompt, the source example
and its structure and source as groups. The task's version is a hash of the file, so a run directory made from
one file is never resumed with another of the same name.
"""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

from corral.constraints import ConstraintSyntaxError, check, parse, render
from corral.errors import InputError
from corral.files import MAX_WHOLE_FILE_BYTES, read_input_bytes
from corral.jsonl import iter_jsonl
from corral.tasks import Task, TaskInstance, register_task
from corral.text import Level, scrub

from ._task import MAX_TOKENS, _grammar, collie


@register_task("instances-file")
def instances_file_task(path: str | Path) -> Task:
    """The task of an instances file; a missing file or a bad line is an error naming it (and the line)."""
    path = Path(path)
    try:  # a regular file of at most 1 GiB, read once: the bytes hashed are the bytes parsed
        data = read_input_bytes(path, MAX_WHOLE_FILE_BYTES)
    except InputError as exc:  # a FIFO, a device, a directory, past the cap, missing: one line naming it
        raise InputError(f"cannot read instances file {exc}") from None
    rows = list(iter_jsonl(io.BytesIO(data), name=str(path)))  # a bad line: a JsonlError naming file and line
    if not rows:
        raise ValueError(f"instances file {path} has no instances")
    instances = []
    for number, row in enumerate(rows, start=1):
        if not isinstance(row, dict) or not isinstance(row.get("constraint"), str):
            raise ValueError(f"{path}: instance {number}: an instance needs a string field 'constraint'")
        try:
            constraint = parse(_text(row["constraint"]))
        except ConstraintSyntaxError as exc:
            raise ValueError(f"{path}: instance {number}: bad constraint: {exc}") from None
        instances.append(TaskInstance(
            id=_text(row.get("id", number)), prompt=_text(row.get("prompt") or render(constraint)), target=constraint,
            groups={"structure": _text(row.get("structure", "")), "source": _text(row.get("source", ""))},
            max_tokens=MAX_TOKENS.get(constraint.level, MAX_TOKENS[Level.PASSAGE]),  # no level: the whole text
            reference=row.get("example")))
    ids = [inst.id for inst in instances]
    if len(set(ids)) != len(ids):
        raise ValueError(f"instances file {path}: ids repeat ({next(i for i in ids if ids.count(i) > 1)!r})")
    reference = collie()
    return Task(
        name=path.name.removesuffix(".jsonl"),
        version="sha256:" + hashlib.sha256(data).hexdigest()[:16],
        instances=lambda: iter(instances),
        check=lambda instance, answer: check(instance.target, answer),
        grammar=lambda instance: _grammar(instance.target),
        template=reference.template,
        extract=reference.extract,
        description=f"constraint instances from {path}",
    )


def _text(value: object) -> str:
    """A field as text, with every lone surrogate (a JSON escape such as ``"\\ud800"`` decodes to one) replaced by
    U+FFFD: such a character cannot be written as UTF-8, so an id, prompt or constraint holding one would stop the
    run when it writes its config or records."""
    return scrub(str(value))[0]
