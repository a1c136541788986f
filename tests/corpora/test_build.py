"""``corral build``: the collie-v1 suite from the default corpus, reproducible byte for byte, every example
passing its constraint, statistics written, instances loadable as a task; bad input exits 2 and writes nothing."""

from __future__ import annotations

import gzip
import hashlib
import json

import pytest
from typer.testing import CliRunner

from corral.cli import app
from corral.constraints import check, parse, render
from corral.corpora import (
    DEFAULT_DOCUMENTS,
    BuildPlan,
    build_local,
    collie_v1,
    default_corpus,
    read_shard,
    recipe,
    shards,
)
from corral.suites.collie import STRUCTURES
from corral.tasks import get_task, select

from .._sizes import sized
from ._corpus_files import write_sample_corpus

runner = CliRunner()


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The whole collie-v1 suite through the CLI, from every fourth document of the default corpus (15 s; all 13
    structures are there) or, at full size, from the whole default corpus by name (a minute)."""
    folder = tmp_path_factory.mktemp("build")
    out = folder / "v1.jsonl"
    corpus = sized(str(write_sample_corpus(folder / "quarter.jsonl", 4, -1)), "default")
    result = runner.invoke(app, ["build", "collie-v1", "--corpus", corpus, "--seed", "0", "--per-structure", "25",
                                 "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="module")
def small_corpus(tmp_path_factory):
    """Every 8th document of the default corpus as a JSONL file, with one malformed line."""
    return write_sample_corpus(tmp_path_factory.mktemp("corpus") / "small.jsonl", 8, 3)


def test_collie_v1_suite_covers_all_13_structures_and_every_example_passes(built):
    rows = [json.loads(line) for line in built.read_text(encoding="utf-8").splitlines()]
    by_structure = {name: [r for r in rows if r["structure"] == name] for name in STRUCTURES}
    assert set(by_structure) == {r["structure"] for r in rows} and len(by_structure) == 13
    assert all(by_structure[name] for name in STRUCTURES), {k: len(v) for k, v in by_structure.items()}
    assert all(len(v) <= 25 for v in by_structure.values())
    for row in rows:
        constraint = parse(row["constraint"])
        assert constraint.profile == "collie-v1" and check(constraint, row["example"]).passed, row
        assert row["prompt"] == render(constraint)
    assert len({r["id"] for r in rows}) == len(rows)
    stats = built.with_suffix(".stats.md").read_text(encoding="utf-8")
    assert "| pass01 |" in stats and "real_sentence" in stats and "(COLLIE Figure 3b)" in stats
    assert built.with_suffix(".stats.png").read_bytes().startswith(b"\x89PNG")
    summary = json.loads(built.with_suffix(".stats.json").read_text(encoding="utf-8"))
    assert summary["structures"]["sent02"]["instances"] == len(by_structure["sent02"])


def test_instances_file_is_a_task(built):
    task = get_task(str(built))
    assert task.name == "v1" and task.version.startswith("sha256:")
    chosen = select(task, {"structure": ["para05"]}, per_group=("structure", 2))
    assert len(chosen) == 2 and all(i.groups["structure"] == "para05" for i in chosen)
    assert task.check(chosen[0], chosen[0].reference).passed
    assert task.grammar(chosen[0]) is not None


def test_same_command_same_bytes_and_seed_matters(tmp_path):
    # every 32nd document: three builds of it take a quarter of what the shared small corpus would
    corpus = write_sample_corpus(tmp_path / "small.jsonl", 32, 3)
    out = tmp_path / "suite.jsonl"
    files = [out, out.with_suffix(".stats.md"), out.with_suffix(".stats.png"), out.with_suffix(".stats.json")]
    contents = []
    for seed in ("0", "0", "1"):
        result = runner.invoke(app, ["build", "collie-v1", "--corpus", str(corpus), "--per-structure", "10",
                                     "--seed", seed, "--out", str(out)])
        assert result.exit_code == 0, result.output
        contents.append([f.read_bytes() for f in files])
    assert contents[0] == contents[1]
    assert contents[0][0] != contents[2][0]
    assert "small.jsonl:5:2: malformed JSON" in result.stderr  # skipped and counted with its line and column


def test_a_spec_with_holes_ranges_and_candidates(small_corpus, tmp_path):
    out = tmp_path / "absent.jsonl"
    result = runner.invoke(app, [
        "build", "--corpus", str(small_corpus), "--profile", "collie-v1", "--per-structure", "15",
        "--structure", "sentence: count(text, word, sentence) == ?n and count(text, word, ?w) == 0",
        "--range", "n=10..19", "--candidates", "w=the,and,of", "--out", str(out)])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 15
    for row in rows:
        assert 10 <= row["values"]["n"] <= 19 and row["values"]["w"] in {"the", "and", "of"}
        assert check(parse(row["constraint"]), row["example"]).passed


def test_words_of_the_chunk_as_candidates(small_corpus):
    plan = BuildPlan((recipe("[collie-v1] sentence: count(text, word, ?a) > 0 and count(text, word, ?b) > 0",
                             candidates={"a": "@word", "b": "@word"}),), per_structure=10, seed=3)
    result = build_local(plan, shards(small_corpus))
    items = next(iter(result.instances.values()))
    assert len(items) == 10
    for item in items:
        assert item.values["a"] != item.values["b"]
        assert check(item.constraint, item.example).passed


@pytest.mark.parametrize(("args", "message"), [
    (["collie-v1", "--corpus", "/no/such/corpus"], "corpus path /no/such/corpus does not exist"),
    (["--structure", "sentence: count(text, word, ?w) == 0"], "?w cannot be read from text"),
    (["--structure", "sentence: count(text, word, sentence) == ?n", "--range", "n=19..10"],
     "the range of ?n is empty: 19..10"),
    (["--structure", "sentence: count(text, word, sentence) == ?n", "--range", "m=1..3"], "?m is not a hole"),
    (["--structure", "sentence: count(text, word) == 3"], "has no holes"),
    (["--structure", "sentence: count(text, wurd, sentence) == ?n"], "bad structure"),
    (["--structure", "sent99"], "unknown structure 'sent99'"),
    (["nope"], "unknown suite 'nope'"),
    (["collie-v1", "--engine", "spark"], "unknown --engine 'spark'"),
])
def test_bad_input_is_one_line_exit_2_and_nothing_written(args, message, small_corpus, tmp_path):
    out = tmp_path / "out.jsonl"
    out.write_text("previous\n")
    corpus = [] if "--corpus" in args else ["--corpus", str(small_corpus)]
    result = runner.invoke(app, ["build", *args, *corpus, "--out", str(out), "--per-structure", "3"])
    assert result.exit_code == 2, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert lines[-1].startswith("error:") and message in lines[-1], result.stderr
    assert out.read_text() == "previous\n"  # untouched
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.jsonl"]  # no temporary files left behind


def test_unreadable_and_corrupt_files_are_named(tmp_path):
    broken = tmp_path / "broken.jsonl.gz"
    broken.write_bytes(gzip.compress(b'{"text": "One sentence here."}\n')[:-8])
    result = runner.invoke(app, ["build", "--corpus", str(broken), "--structure", "sent02",
                                 "--out", str(tmp_path / "o.jsonl")])
    assert result.exit_code == 2 and f"cannot read {broken}" in result.stderr
    binary = tmp_path / "latin1.txt"
    binary.write_bytes("caf\xe9".encode("latin-1"))
    result = runner.invoke(app, ["build", "--corpus", str(binary), "--structure", "sent02",
                                 "--out", str(tmp_path / "o.jsonl")])
    assert result.exit_code == 2 and "not UTF-8 text (byte 3)" in result.stderr
    assert not (tmp_path / "o.jsonl").exists()


def test_default_corpus_shards_read_back_the_whole_corpus():
    ids = [d.id for shard in shards("default") for d in read_shard(shard)]
    assert len(ids) == DEFAULT_DOCUMENTS == len(set(ids))
    assert ids == [d.id for d in default_corpus()]


def test_byte_range_shards_of_a_large_jsonl_read_back_the_same_documents(small_corpus):
    pieces = shards(small_corpus, target_bytes=100_000)
    assert len(pieces) > 3
    assert [(d.id, d.text) for p in pieces for d in read_shard(p)] == [
        (d.id, d.text) for d in read_shard(shards(small_corpus)[0])]


def test_collie_v1_suite_mirrors_the_reference_structures():
    """Each rebuilt structure has the shape of the v1 data's constraints of the same name: its text with the
    holes as wildcards matches some v1 row's constraint."""
    import re

    from corral.suites.collie import instances

    v1 = {}
    for inst in instances():
        v1.setdefault(inst.structure, []).append(str(inst.constraint))
    for item in collie_v1():
        shapes = []
        for structure in item.structures:
            shape = re.escape(str(structure.template))
            for sentinel in structure.numbers.values():
                shape = shape.replace(str(sentinel), r"-?\d+")
            for sentinel in structure.strings.values():
                shape = shape.replace(re.escape(repr(sentinel)), r"(?:'(?:[^'\\]|\\.)*'|\"[^\"]*\")")
            shapes.append(re.compile(shape))
        assert all(any(s.fullmatch(c) for c in v1[item.name]) for s in shapes), item.name


def test_file_hash_is_the_task_version(built, tmp_path):
    copy = tmp_path / "copy.jsonl"
    copy.write_bytes(built.read_bytes())
    assert get_task(str(copy)).version == "sha256:" + hashlib.sha256(built.read_bytes()).hexdigest()[:16]
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"constraint": "sentence: count(text, word) == 3"}\n{oops\n')
    with pytest.raises(ValueError, match=r"bad.jsonl:2:2: malformed JSON"):
        get_task(str(bad))


def test_where_a_corpus_lives_does_not_change_its_instances(small_corpus, tmp_path):
    moved = tmp_path / "elsewhere" / "small.jsonl"
    moved.parent.mkdir()
    moved.write_bytes(small_corpus.read_bytes())
    plan = BuildPlan(tuple(r for r in collie_v1() if r.name in ("sent02", "para05")), per_structure=5, seed=0)
    assert build_local(plan, shards(small_corpus)).lines() == build_local(plan, shards(moved)).lines()
