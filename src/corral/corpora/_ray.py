"""The Ray engine: the shards of a corpus read in parallel by Ray Data, their partial builds merged on the driver.

Each shard is one row of a ``ray.data`` dataset; a worker runs ``process`` (the same per-document pipeline as the
local engine) over that shard into a fresh ``BuildState`` and sends it back pickled. The driver merges the states
as they stream in and calls ``on_shard`` once per finished shard, so a progress bar moves while the build runs.

Why the output is the local engine's, byte for byte: every candidate instance has a key hashed from (seed,
recipe, document, chunking, chunk index), never from when or where it was seen, and each recipe keeps the
bottom-k keys. The bottom-k of a union is the bottom-k of the parts' bottom-k, so ``BuildState.merge`` is exact
and its order does not matter; document, chunk and filter counts are sums. The states are still merged in shard
order (one arriving early waits, pickled, for those before it), so that even the order of the skipped-lines
report matches a local run. (Each shard's sample starts empty, so the shards together check more chunks than
one local pass does; what they keep is the same.)

An exception raised in a worker (``CorpusError`` for an unreadable file, ``StructureError`` for a recipe that
cannot be filled, ...) reaches the caller as itself, with the worker's traceback as a note, not as Ray's
``RayTaskError``. Ray is imported only when this engine runs, and started locally (no dashboard, no usage
statistics) unless it is running already.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import pickle
import traceback
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from ._build import BuildPlan, BuildResult, BuildState, process
from ._sources import CorpusError, Shard, read_shard


def build_ray(plan: BuildPlan, shard_list: Sequence[Shard], on_shard: Callable[[Shard], None] | None = None,
              num_cpus: int | None = None) -> BuildResult:
    """Build ``plan`` over ``shard_list`` with Ray Data, one task per shard; the result equals ``build_local``'s.

    ``num_cpus`` is what a Ray started here may use (default: all cores); a running Ray is used as it is."""
    from corral.extras import MissingExtra, require

    try:
        ray = require("ray", "ray", "the Ray build engine")
    except MissingExtra as exc:
        raise CorpusError(str(exc)) from None
    state = BuildState.empty(plan)
    if not shard_list:
        return BuildResult.of(plan, state)
    import pyarrow as pa

    _start_ray(num_cpus)
    from ray.data import DataContext

    context = DataContext.get_current()
    context.enable_progress_bars = False  # Corral draws its own, through on_shard
    context.print_on_execution_start = False
    rows = [{"index": i, **dataclasses.asdict(shard)} for i, shard in enumerate(shard_list)]

    def run(batch: pa.Table) -> pa.Table:
        out: dict[str, list[Any]] = {"index": [], "state": [], "error": []}
        for row in batch.to_pylist():
            out["index"].append(row.pop("index"))
            state_bytes, error_bytes = _process_shard(plan, Shard(**row))
            out["state"].append(state_bytes)
            out["error"].append(error_bytes)
        return pa.table({"index": pa.array(out["index"], pa.int64()), "state": pa.array(out["state"], pa.binary()),
                         "error": pa.array(out["error"], pa.binary())})

    dataset = ray.data.from_items(rows, override_num_blocks=len(rows)).map_batches(
        run, batch_size=1, batch_format="pyarrow", num_cpus=1)
    waiting: dict[int, bytes] = {}  # finished out of order: merged once those before them are
    merged = 0
    with _quiet_console():
        for row in dataset.iter_rows():
            index = int(row["index"])
            if row["error"] is not None:
                raise _unpickle_error(row["error"])
            waiting[index] = row["state"]
            if on_shard is not None:
                on_shard(shard_list[index])
            while merged in waiting:
                state.merge(pickle.loads(waiting.pop(merged)))
                merged += 1
    if merged != len(shard_list):  # pragma: no cover - Ray returned fewer rows than it was given
        raise RuntimeError(f"the Ray engine returned {merged} of {len(shard_list)} shards")
    return BuildResult.of(plan, state)


def _start_ray(num_cpus: int | None) -> None:
    import ray

    if ray.is_initialized():
        return
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # never report usage over the network
    os.environ.setdefault("RAY_ENABLE_UV_RUN_RUNTIME_ENV", "0")  # workers use this interpreter, not a `uv run` env
    ray.init(num_cpus=num_cpus, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True,
             configure_logging=False)


@contextmanager
def _quiet_console() -> Iterator[None]:
    """Ray Data's notes (execution started and finished, progress bars off) stay in its log file, off the terminal."""
    handlers = [h for h in logging.getLogger("ray.data").handlers if isinstance(h, logging.StreamHandler)]
    quiet = _BelowError()
    for handler in handlers:
        handler.addFilter(quiet)
    try:
        yield
    finally:
        for handler in handlers:
            handler.removeFilter(quiet)


class _BelowError(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno >= logging.ERROR


def _process_shard(plan: BuildPlan, shard: Shard) -> tuple[bytes | None, bytes | None]:
    """In a worker: the pickled state of one shard, or the pickled exception that stopped it."""
    state = BuildState.empty(plan)
    try:
        process(plan, read_shard(shard, plan.text_field, state.sources), state)
        return pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL), None
    except Exception as exc:
        where = ("the default corpus" if shard.path == "default" else shard.path) + (
            "" if shard.end is None else f" ({'documents' if shard.path == 'default' else 'bytes'} "
                                         f"{shard.start}..{shard.end})")
        note = f"raised in a Ray worker reading {where}:\n{''.join(traceback.format_exception(exc)).rstrip()}"
        try:
            blob = pickle.dumps(exc, protocol=pickle.HIGHEST_PROTOCOL)
            pickle.loads(blob)  # some exceptions pickle but cannot be rebuilt: check here, not on the driver
        except Exception:
            blob = pickle.dumps(RuntimeError(f"{type(exc).__name__}: {exc}"), protocol=pickle.HIGHEST_PROTOCOL)
        return None, pickle.dumps((blob, note), protocol=pickle.HIGHEST_PROTOCOL)


def _unpickle_error(data: bytes) -> BaseException:
    blob, note = pickle.loads(data)
    error: BaseException = pickle.loads(blob)
    error.add_note(note)
    return error
