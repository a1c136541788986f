"""The Ray engine gives the local engine's output line for line (default corpus, and a JSONL corpus cut into many
byte-range shards), the same filter and chunk counts, one ``on_shard`` call per shard, and a worker's error as
the caller's own exception type and message."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from importlib.util import find_spec

import pytest

from corral.corpora import (
    BuildPlan,
    BuildResult,
    CorpusError,
    StructureError,
    build_local,
    build_ray,
    collie_v1,
    recipe,
    shards,
)

from .._sizes import sized
from ._corpus_files import write_sample_corpus

# found, not imported: every xdist worker collects this module, and only the one that runs it needs Ray (3 s)
pytestmark = [pytest.mark.ray, pytest.mark.skipif(find_spec("ray") is None, reason="needs ray[data]"),
              pytest.mark.filterwarnings("ignore::DeprecationWarning:ray.data.context")]  # Ray's own, on unpickling

LEVELS = ("word02", "sent02", "sent04", "para02", "para05", "pass01")  # word, sentence, paragraph, passage/3 and /4


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    """One local Ray for the module (two CPUs), shut down at the end."""
    import ray

    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield
    if started:
        ray.shutdown()


def plan(seed: int = 0) -> BuildPlan:
    return BuildPlan(tuple(r for r in collie_v1() if r.name in LEVELS), per_structure=20, seed=seed)


@pytest.fixture(scope="module")
def jsonl_corpus(tmp_path_factory):
    """About 220 documents of the default corpus (every 10th) as one JSONL file, with one malformed line."""
    return write_sample_corpus(tmp_path_factory.mktemp("corpus") / "small.jsonl", 10, 150)


def assert_same(local: BuildResult, distributed: BuildResult) -> None:
    assert distributed.lines() == local.lines()
    assert all(len(local.instances[name]) == 20 for name in LEVELS), {k: len(v) for k, v in local.instances.items()}
    assert {k: (r.seen, dict(r.removed)) for k, r in distributed.filters.items()} == \
        {k: (r.seen, dict(r.removed)) for k, r in local.filters.items()}
    assert distributed.chunks == local.chunks and set(local.chunks) == {"word", "sentence", "paragraph",
                                                                        "passage/3", "passage/4"}
    assert distributed.documents == local.documents
    assert distributed.sources == local.sources


def test_default_corpus_ray_equals_local():
    # 3 of its 9 shards, one from each part, each cut to its first third (full size: all, whole)
    shard_list = shards("default")[::sized(4, 1)]
    assert len(shard_list) >= 3
    shard_list = sized([replace(s, end=s.start + (s.end - s.start) // 3, size=s.size // 3) for s in shard_list],
                       shard_list)
    seen = []
    local = build_local(plan(), shard_list)
    distributed = build_ray(plan(), shard_list, on_shard=seen.append, num_cpus=2)
    assert_same(local, distributed)
    assert sorted(seen, key=shard_list.index) == shard_list


def test_many_shards_ray_equals_local_and_the_seed_matters(jsonl_corpus):
    shard_list = shards(jsonl_corpus, target_bytes=35_000)
    assert len(shard_list) >= 10 and all(s.end is not None for s in shard_list)
    seen = []
    local = build_local(plan(), shard_list)
    distributed = build_ray(plan(), shard_list, on_shard=seen.append, num_cpus=2)
    assert_same(local, distributed)
    assert len(seen) == len(shard_list) and set(seen) == set(shard_list)
    assert len(local.sources.skipped) == 1 and ": malformed JSON" in local.sources.skipped[0]
    reseeded = build_ray(plan(seed=1), shard_list, num_cpus=2)
    assert reseeded.lines() != local.lines() and len(reseeded.lines()) == len(local.lines())


def test_no_shards_builds_nothing():
    assert build_ray(plan(), []).lines() == []


def test_corpus_error_in_a_worker_reaches_the_caller_as_itself(tmp_path):
    path = tmp_path / "gone.jsonl"
    path.write_text("".join(json.dumps({"text": f"Sentence number {i} is here."}) + "\n" for i in range(2000)))
    shard_list = shards(path, target_bytes=20_000)
    assert len(shard_list) > 1
    path.unlink()
    with pytest.raises(CorpusError) as caught:
        build_ray(plan(), shard_list, num_cpus=2)
    assert str(caught.value) == f"cannot read {path}: No such file or directory"
    assert any(note.startswith(f"raised in a Ray worker reading {path}") for note in caught.value.__notes__)


def test_a_bad_file_found_by_a_worker_is_named_to_the_caller(tmp_path):
    """The error of a file read in a worker (not UTF-8 here) is the caller's CorpusError, message intact; a
    structure nothing can fill is refused before Ray is asked to do anything."""
    path = tmp_path / "latin1.txt"
    path.write_bytes("Caf\xe9 au lait. Some years ago I went to sea.".encode("latin-1"))
    with pytest.raises(CorpusError, match="^" + re.escape(f"{path}: not UTF-8 text (byte 3)")):
        build_ray(plan(), shards(path), num_cpus=2)
    with pytest.raises(StructureError, match=r"^absent: \?w cannot be read from text"):
        recipe("sentence: count(text, word, ?w) == 0", name="absent")  # ?w needs candidates


def test_the_command_gives_the_same_file_with_either_engine(jsonl_corpus, tmp_path):
    from typer.testing import CliRunner

    from corral.cli import app

    outputs = []
    for engine in ("local", "ray"):
        out = tmp_path / engine / "suite.jsonl"
        result = CliRunner().invoke(app, ["build", "--corpus", str(jsonl_corpus), "--structure", "sent02",
                                          "--structure", "para05", "--per-structure", "8", "--engine", engine,
                                          "--out", str(out)])
        assert result.exit_code == 0, result.output
        outputs.append([out.read_bytes(), out.with_suffix(".stats.md").read_bytes()])
    assert outputs[0] == outputs[1] and outputs[0][0]
