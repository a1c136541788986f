"""Extraction at corpus scale: the local and Ray build engines on a generated corpus, against checking every chunk.

    python benchmarks/extract_throughput.py [--gigabytes 1.0] [--baseline-gigabytes 0.05] [--engines local,ray]
                                            [--num-cpus N] [--corpus-dir DIR] [--keep]

The corpus: the default corpus (Moby-Dick, the State of the Union addresses, the COLLIE-v1 passages) written
once as it is, then again and again with the sentences of each paragraph shuffled (seeded) under new ids, until
it holds ``--gigabytes`` (10^9 bytes) of JSONL in files of at most 64 MiB, streamed to disk. ``--corpus-dir``
keeps it there and reuses it on the next run; otherwise it goes in a temporary folder, removed unless ``--keep``.

The plan: one sentence-level recipe, ``count(text, word, sentence) == ?n and pos(text, word, 4) == ?w`` with
?n in 11..19, 100 instances, seed 0. Each engine runs in its own subprocess, so its memory is its own:
  * local    — ``build_local``, every shard in order in one process; peak RSS is the process's ``ru_maxrss``;
  * ray      — ``build_ray``, one Ray Data task per shard on ``--num-cpus`` CPUs; peak RSS is the largest sum,
               sampled every 0.25 s with psutil, over the driver and every process under it (Ray's GCS, raylet
               and workers): what the engine holds in all. Without psutil only the driver's is reported.
  * baseline — COLLIE's reference approach on the first ``--baseline-gigabytes`` of the corpus: every chunk is
               checked against the recipe, then the sample drawn (Corral's engines check a chunk only if its
               seeded key could still enter the bottom-k sample). Written here from the library's pieces; the
               local engine runs on the same slice too, and must give the same instances.
Chunks/s counts the chunks cut, cleaned and filtered (the sentences the recipe reads). Wall seconds are the build
alone; Ray's start-up is reported under the table. Outputs are compared by the SHA-256 of the instance lines.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import itertools
import json
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from corral.corpora import BuildPlan, FilterReport, Shard, chunks, default_corpus, default_pipeline, read_shard, shards
from corral.corpora._build import BuildResult, BuildState, build_local, chunking_label
from corral.corpora._extract import assert_passes, extract_chunk, key_hasher, recipe

SPEC = "[collie-v1] sentence: count(text, word, sentence) == ?n and pos(text, word, 4) == ?w"
FILE_BYTES = 64 * 1024 * 1024
MANIFEST = "corpus.json"
GENERATOR_VERSION = 1  # bump when the generated text changes, so an old --corpus-dir is rebuilt
PARAGRAPH_BREAK = re.compile(r"(\n\s*\n)")
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'A-Z])")


def plan() -> BuildPlan:
    return BuildPlan((recipe(SPEC, name="sent-n-w4", ranges={"n": (11, 19)}),), per_structure=100, seed=0)


# --- the corpus ---------------------------------------------------------------------------------------------

def vary(text: str, rng: random.Random) -> str:
    """The text with the sentences of each paragraph in a new order (paragraph breaks kept)."""
    parts = PARAGRAPH_BREAK.split(text)
    for i in range(0, len(parts), 2):
        sentences = SENTENCE_END.split(parts[i])
        if len(sentences) > 1:
            rng.shuffle(sentences)
            parts[i] = " ".join(sentences)
    return "".join(parts)


def generate(folder: Path, total_bytes: int, seed: int = 0) -> dict[str, Any]:
    """Write the corpus into ``folder`` (see the module docstring) and its manifest; reuse a matching one."""
    manifest_path = folder / MANIFEST
    wanted = {"version": GENERATOR_VERSION, "target_bytes": total_bytes, "seed": seed}
    if manifest_path.exists():
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        if {k: manifest.get(k) for k in wanted} == wanted:
            return manifest
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("part-*.jsonl"):
        old.unlink()
    documents = [(d.id, d.text, str(d.meta.get("source", d.source))) for d in default_corpus()]
    rng = random.Random(seed)
    started = time.perf_counter()
    written = count = files = 0
    out = None
    try:
        for repetition in itertools.count():
            for doc_id, text, source in documents:
                row = {"id": f"{doc_id}#{repetition}", "text": vary(text, rng) if repetition else text,
                       "source": source}
                line = (json.dumps(row, ensure_ascii=False) + "\n").encode("utf-8")
                if out is None or out.tell() + len(line) > FILE_BYTES:
                    if out is not None:
                        out.close()
                    out = (folder / f"part-{files:05d}.jsonl").open("wb")
                    files += 1
                out.write(line)
                written += len(line)
                count += 1
                if written >= total_bytes:
                    break
            if written >= total_bytes:
                break
    finally:
        if out is not None:
            out.close()
    manifest = {**wanted, "bytes": written, "documents": count, "files": files,
                "seconds": round(time.perf_counter() - started, 1)}
    manifest_path.write_text(json.dumps(manifest), encoding="utf-8")
    return manifest


def corpus_shards(folder: Path, total_bytes: int, num_cpus: int) -> list[Shard]:
    """The corpus in shards of at most 64 MiB, smaller for a small corpus so that each CPU gets about four."""
    target = max(1 << 20, min(FILE_BYTES, total_bytes // (4 * num_cpus)))
    return shards(folder, target_bytes=target)


def leading_slice(folder: Path, limit: int) -> list[Shard]:
    """Shards holding the corpus's first ``limit`` bytes or so (whole lines), in corpus order."""
    out: list[Shard] = []
    left = limit
    for file in sorted(folder.glob("part-*.jsonl")):
        size = file.stat().st_size
        if size <= left:
            out.append(Shard(str(file), 0, size, 1, size))
            left -= size
            if left == 0:
                break
            continue
        with file.open("rb") as stream:
            stream.seek(left)
            end = min(size, left + len(stream.readline()))
        out.append(Shard(str(file), 0, end, 1, end))
        break
    return out


# --- the engines, each in a child process -------------------------------------------------------------------

def check_every_chunk(the_plan: BuildPlan, shard_list: list[Shard]) -> BuildResult:
    """The baseline: ``process`` without the bottom-k skip, so every chunk is checked against every recipe."""
    state = BuildState.empty(the_plan)
    groups = [(chunking, chunking_label(chunking), the_plan.pipeline or default_pipeline(chunking[0]), readers)
              for chunking, readers in the_plan.chunkings().items()]
    for shard in shard_list:
        for document in read_shard(shard, the_plan.text_field, state.sources):
            state.documents[str(document.meta.get("source", document.source))] += 1
            for (level, width, profile), label, pipeline, readers in groups:
                report = state.filters.setdefault(label, FilterReport())
                keyed = [(r, alternative, state.samples[r.name],
                          key_hasher(the_plan.seed, r.name, document.id, level, width)) for r, alternative in readers]
                for chunk in pipeline.run(chunks(document, level, profile, width), report):
                    state.chunks[label] += 1
                    for r, alternative, sample, key_of in keyed:
                        found = extract_chunk(r, alternative, chunk, key_of(chunk.index))
                        if found is not None:
                            assert_passes(found)
                            sample.offer(found)
    return BuildResult.of(the_plan, state)


class TreeRss:
    """The largest sum of RSS over this process and all its descendants, sampled in a thread."""

    def __init__(self, every: float = 0.25) -> None:
        import psutil

        self._psutil, self._every, self.peak = psutil, every, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> TreeRss:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def sample(self) -> int:
        me = self._psutil.Process()
        total = 0
        for process in [me, *me.children(recursive=True)]:
            with contextlib.suppress(self._psutil.NoSuchProcess, self._psutil.AccessDenied):  # ended meanwhile
                total += process.memory_info().rss
        return total

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, self.sample())
            self._stop.wait(self._every)


def summary(result: BuildResult, shard_list: list[Shard], seconds: float) -> dict[str, Any]:
    digest = hashlib.sha256("\n".join(result.lines()).encode("utf-8")).hexdigest()
    return {"bytes": sum(s.size for s in shard_list), "documents": result.sources.documents,
            "chunks": sum(result.chunks.values()), "instances": len(result.lines()), "seconds": seconds,
            "sha256": digest, "shards": len(shard_list)}


def child(engine: str, folder: Path, total_bytes: int, num_cpus: int, slice_bytes: int) -> dict[str, Any]:
    the_plan = plan()
    if engine == "baseline":
        shard_list = leading_slice(folder, slice_bytes)
        started = time.perf_counter()
        result = check_every_chunk(the_plan, shard_list)
        out = summary(result, shard_list, time.perf_counter() - started)
        started = time.perf_counter()
        out["local_on_slice"] = summary(build_local(the_plan, shard_list), shard_list, time.perf_counter() - started)
        out["rss_bytes"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        return out
    shard_list = corpus_shards(folder, total_bytes, num_cpus)
    if engine == "local":
        started = time.perf_counter()
        result = build_local(the_plan, shard_list)
        out = summary(result, shard_list, time.perf_counter() - started)
        out["rss_bytes"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        return out
    from corral.corpora._ray import _start_ray, build_ray

    try:
        tree: TreeRss | None = TreeRss()
    except ImportError:
        tree = None
    with tree if tree is not None else contextlib.nullcontext():
        started = time.perf_counter()
        _start_ray(num_cpus)
        startup = time.perf_counter() - started
        started = time.perf_counter()
        result = build_ray(the_plan, shard_list, num_cpus=num_cpus)
        out = summary(result, shard_list, time.perf_counter() - started)
    out["startup"] = startup
    if tree is not None:
        out["rss_bytes"], out["rss_what"] = tree.peak, "tree"
    else:
        out["rss_bytes"], out["rss_what"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024, "driver"
    return out


def run_child(engine: str, args: argparse.Namespace, folder: Path, total_bytes: int) -> dict[str, Any]:
    command = [sys.executable, __file__, "--child", engine, "--corpus-dir", str(folder), "--num-cpus",
               str(args.num_cpus), "--child-bytes", str(total_bytes), "--child-slice",
               str(int(args.baseline_gigabytes * 1e9))]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"the {engine} run failed:\n{done.stderr[-4000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


# --- the table ----------------------------------------------------------------------------------------------

def rows(results: dict[str, dict[str, Any]]) -> Iterator[tuple[str, dict[str, Any]]]:
    for engine in ("local", "ray"):
        if engine in results:
            yield f"{engine} engine", results[engine]
    if "baseline" in results:
        yield "local engine, baseline slice", results["baseline"]["local_on_slice"]
        yield "baseline: every chunk checked", results["baseline"]


def table(results: dict[str, dict[str, Any]]) -> list[str]:
    base = results.get("baseline")
    base_rate = base["chunks"] / base["seconds"] if base else None
    reference = results.get("local", {}).get("sha256")
    lines = ["| run | MB | documents | chunks | wall s | chunks/s | MB/s | × baseline | peak RSS MB | instances "
             "| output |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, r in rows(results):
        rate = r["chunks"] / r["seconds"]
        if name.startswith("baseline"):
            same = "same as local engine on slice" if r["sha256"] == base["local_on_slice"]["sha256"] else "DIFFERS"
        elif name == "local engine, baseline slice":
            same = r["sha256"][:12]
        else:
            same = r["sha256"][:12] + ("" if reference is None or name == "local engine" else
                                       (" (identical)" if r["sha256"] == reference else " (DIFFERS)"))
        rss = r.get("rss_bytes")  # none of its own for the local engine on the slice: it shares the baseline's
        lines.append(f"| {name} | {r['bytes'] / 1e6:,.1f} | {r['documents']:,} | {r['chunks']:,} | {r['seconds']:.1f} "
                     f"| {rate:,.0f} | {r['bytes'] / 1e6 / r['seconds']:.2f} "
                     f"| {f'{rate / base_rate:.1f}x' if base_rate else '—'} "
                     f"| {f'{rss / 2**20:,.0f}' if rss else '—'} | {r['instances']} | {same} |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gigabytes", type=float, default=1.0, help="corpus size, 10^9 bytes (default 1.0)")
    parser.add_argument("--baseline-gigabytes", type=float, default=0.05,
                        help="the slice the every-chunk baseline reads (default 0.05; 0 skips it)")
    parser.add_argument("--engines", default="local,ray", help="comma-separated: local, ray (default both)")
    parser.add_argument("--num-cpus", type=int, default=os.cpu_count() or 1, help="CPUs for Ray (default all)")
    parser.add_argument("--corpus-dir", type=Path, help="generate (or reuse) the corpus here, and keep it")
    parser.add_argument("--keep", action="store_true", help="keep the temporary corpus folder")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--child-bytes", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--child-slice", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.corpus_dir, args.child_bytes, args.num_cpus, args.child_slice)))
        return
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    if unknown := sorted(set(engines) - {"local", "ray"}):
        parser.error(f"unknown engine(s): {', '.join(unknown)} (choose from local, ray)")

    folder = args.corpus_dir or Path(tempfile.mkdtemp(prefix="corral-extract-"))
    try:
        started = time.perf_counter()
        manifest = generate(folder, int(args.gigabytes * 1e9))
        print(f"corpus: {folder}: {manifest['bytes'] / 1e6:,.1f} MB, {manifest['documents']:,} documents in "
              f"{manifest['files']} files (written in {manifest['seconds']:.1f} s; this run "
              f"{time.perf_counter() - started:.1f} s)")
        shard_count = len(corpus_shards(folder, manifest["bytes"], args.num_cpus))
        print(f"plan: {SPEC} with ?n in 11..19, 100 instances, seed 0; {shard_count} shards; "
              f"{args.num_cpus} CPUs for Ray; {os.cpu_count()} cores here\n", flush=True)
        results: dict[str, dict[str, Any]] = {}
        for engine in engines:
            results[engine] = run_child(engine, args, folder, manifest["bytes"])
        if args.baseline_gigabytes > 0:
            results["baseline"] = run_child("baseline", args, folder, manifest["bytes"])
        print("\n".join(table(results)))
        if "ray" in results:
            ray = results["ray"]
            what = ("the driver and all processes under it (GCS, raylet, workers), sampled every 0.25 s"
                    if ray.get("rss_what") == "tree" else "the driver only (psutil is not installed)")
            print(f"\nray: start-up {ray['startup']:.1f} s (not in wall s); peak RSS is {what}.")
        if "baseline" in results:
            print("baseline slice: the corpus's first "
                  f"{results['baseline']['bytes'] / 1e6:,.1f} MB; its peak RSS is of both runs on it, in one process. "
                  "× baseline: chunks/s over the baseline's.")
    finally:
        if args.corpus_dir is None and not args.keep:
            shutil.rmtree(folder, ignore_errors=True)
        elif args.corpus_dir is None:
            print(f"kept: {folder}")


if __name__ == "__main__":
    main()
