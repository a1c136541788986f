"""Hostile input against every ``corral`` command: no traceback, the documented exit code, no lost records,
bounded time.

Exit codes (``corral.cli._console``): 0 pass, 1 checked and failed, 2 bad input or usage, 3 not decided (a check
past its budget), 4 an incomplete run. The corpus holds what an attacker or an unlucky user hands the CLI: deep
nesting, huge numbers, lone surrogates, NUL, invalid UTF-8, 10 MB lines, broken JSON, symlinks, unwritable
outputs, configs that lie about their size. Each case runs in-process under a watchdog (a hang fails the test
instead of stalling CI); the few that need a real process (bytes in argv, SIGTERM) run one.
"""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from corral.cli import app

runner = CliRunner()
COUNT3 = "count(text, word) == 3"
NESTED_NOT = "not (" * 600 + COUNT3 + ")" * 600
NESTED_JSON = "[" * 100_000 + "]" * 100_000
THREE_DEEP = "all(text, word, all(text, word, all(text, word, count(unit, char) >= 1)))"


@contextmanager
def watchdog(seconds: float) -> Iterator[None]:
    """Fail (not hang) when the block runs past ``seconds``."""

    def expired(signum: int, frame: object) -> None:
        raise TimeoutError(f"ran past {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def invoke(args: list[str], stdin: str | bytes | None = None, seconds: float = 30.0):
    started = time.monotonic()
    with watchdog(seconds):
        result = runner.invoke(app, args, input=stdin)
    elapsed = time.monotonic() - started
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"corral {' '.join(a[:40] for a in args)} raised "
                             f"{type(result.exception).__name__}: {result.exception}")
    assert "Traceback" not in result.output, result.output[-2000:]
    return result, elapsed


def _files(tmp: Path) -> dict[str, str]:
    """The hostile files the cases name, made once per test."""
    (tmp / "nested.json").write_text(NESTED_JSON)
    (tmp / "broken.json").write_text('{"type": "object", "properties": {')
    (tmp / "bytes.json").write_bytes(b'{"type": "str\xff\xfeing"}')
    (tmp / "nul.json").write_text('{"type": "string"}\x00')
    (tmp / "huge-number.json").write_text('{"type": "integer", "maximum": 1' + "0" * 5000 + "}")
    (tmp / "big.json").write_text('{"type": "object", "description": "' + "x" * 10_500_000 + '"}')
    (tmp / "schema.json").write_text('{"type": "object", "properties": {"a": {"type": "string"}}}')
    (tmp / "sample.json").write_text('{"a": "\\ud800"}')
    (tmp / "yaml-bomb.yaml").write_text('a: &a ["x","x","x","x","x","x","x","x","x"]\n' + "".join(
        f'{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},'
        f'*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)}]\n' for i in range(8)))
    (tmp / "entity.xml").write_text('<?xml version="1.0"?><!DOCTYPE r [<!ENTITY e SYSTEM "file:///etc/passwd">]>'
                                    "<r>&e;</r>")
    (tmp / "instances-no-level.jsonl").write_text(json.dumps({"id": "a", "constraint": COUNT3}) + "\n")
    (tmp / "instances-bad.jsonl").write_text('{"id": "a", "constraint": "count(text, word) =="}\n{oops\n')
    (tmp / "a-dir").mkdir()
    (tmp / "dangling").symlink_to(tmp / "missing" / "deeper" / "file")
    lying = tmp / "runs" / "lying"
    lying.mkdir(parents=True)
    (lying / "config.json").write_text(json.dumps({"task": "collie", "task_version": "1", "model": "scripted:s",
                                                   "backend": "scripted", "samples": 1_000_000_000,
                                                   "rounds": 1_000_000_000, "instances": ["x"]}))
    (lying / "records.jsonl").write_text("")
    torn = tmp / "runs" / "bad-records"
    torn.mkdir()
    (torn / "config.json").write_text(json.dumps({"task": "collie", "task_version": "1", "model": "scripted:s",
                                                  "backend": "scripted", "instances": ["x"]}))
    (torn / "records.jsonl").write_text('{"instance": "x"}\n' + NESTED_JSON + "\n" + "\x00garbage\n")
    return {path.name: str(path) for path in tmp.iterdir()}


# (case id, argv with {file} placeholders, stdin, the exit codes allowed, seconds allowed)
CASES: list[tuple[str, list[str], str | bytes | None, set[int], float]] = [
    ("check: 600 nested not", ["check", NESTED_NOT, "a b c"], None, {2}, 15),
    ("check: 100,000 nested not", ["check", "not (" * 100_000 + COUNT3 + ")" * 100_000, "x"], None, {2}, 30),
    ("check: spec past 1 MB", ["check", "count(text, word) == 3 and " * 50_000 + COUNT3, "x"], None, {2}, 30),
    ("check: JSON spec nested 100,000 deep", ["check", '{"kind": "not", "part": ' * 100_000 + "1" + "}" * 100_000,
                                             "x"], None, {2}, 30),
    ("check: JSON spec broken", ["check", '{"kind": "count", ', "x"], None, {2}, 10),
    ("check: huge number", ["check", "count(text, word) == 1" + "0" * 5000, "x"], None, {1, 2}, 10),
    ("check: negative index", ["check", "pos(text, word, -99999999999999999999) == 'a'", "x"], None, {1, 2}, 10),
    ("check: NUL in text", ["check", COUNT3, "a\x00 b c"], None, {0, 1}, 10),
    ("check: NUL in spec", ["check", "count(text, word)\x00 == 3", "x"], None, {2}, 10),
    ("check: lone surrogate in text", ["check", "--json", COUNT3, "a b \ud800"], None, {0, 1}, 10),
    ("check: lone surrogate in spec string", ["check", "pos(text, word, 1) == '\ud800'", "\ud800"], None, {0, 1, 2},
     10),
    ("check: invalid UTF-8 on stdin", ["check", COUNT3, "-"], b"a b \xff\xfe", {0, 1}, 10),
    ("check: 10 MB text on stdin", ["check", COUNT3, "-"], "word " * 2_100_000, {3}, 20),
    ("check: three nested for-eachs", ["check", "--timeout", "2", THREE_DEEP, " ".join(["word"] * 300)], None, {3},
     2 + 5),
    ("check: backtracking regex", ["check", "--timeout", "2", "all(text, word, regex(unit, '^(a|aa)+$'))",
                                   " ".join(["a" * 28 + "b"] * 200)], None, {1, 3}, 2 + 5),
    ("check: unknown profile", ["check", "--profile", "../../etc/passwd", COUNT3, "x"], None, {2}, 10),
    ("check: zero budget", ["check", "--timeout", "0", COUNT3, "x"], None, {2}, 10),
    ("check: batch file missing", ["check", "--batch", "{tmp}/nope.jsonl"], None, {2}, 10),
    ("check: batch is a directory", ["check", "--batch", "{a-dir}"], None, {2}, 10),
    ("check: batch out into a missing folder", ["check", "--batch", "{schema.json}", "--out", "{tmp}/x/y/z.jsonl"],
     None, {2}, 10),
    ("check: batch out is a directory", ["check", "--batch", "{schema.json}", "--out", "{a-dir}"], None, {2}, 10),
    ("check: batch out is a dangling symlink", ["check", "--batch", "{schema.json}", "--out", "{dangling}"], None,
     {2}, 10),
    ("render: nested", ["render", NESTED_NOT], None, {2}, 15),
    ("parse: nested", ["parse", NESTED_NOT], None, {2}, 15),
    ("parse: empty", ["parse", ""], None, {2}, 10),
    ("schema validate: nested sample", ["schema", "validate", "{schema.json}", "{nested.json}"], None, {2}, 20),
    ("schema validate: nested schema", ["schema", "validate", "{nested.json}", "{schema.json}"], None, {2}, 20),
    ("schema validate: broken schema", ["schema", "validate", "{broken.json}", "{schema.json}"], None, {2}, 10),
    ("schema validate: invalid UTF-8 schema", ["schema", "validate", "{bytes.json}", "{schema.json}"], None, {2}, 10),
    ("schema validate: NUL", ["schema", "validate", "{nul.json}", "{schema.json}"], None, {2}, 10),
    ("schema validate: huge number", ["schema", "validate", "{huge-number.json}", "{schema.json}"], None, {0, 1, 2},
     10),
    ("schema validate: 10 MB schema", ["schema", "validate", "{big.json}", "{schema.json}"], None, {2}, 15),
    ("schema validate: surrogate in sample", ["schema", "validate", "{schema.json}", "{sample.json}"], None, {0, 1, 2},
     10),
    ("schema validate: YAML bomb", ["schema", "validate", "{yaml-bomb.yaml}", "{schema.json}"], None, {2}, 15),
    ("schema render: XML entity", ["schema", "render", "{entity.xml}"], None, {2}, 10),
    ("schema render: missing", ["schema", "render", "{tmp}/nope.json"], None, {2}, 10),
    ("schema mutate: nested", ["schema", "mutate", "{schema.json}", "{nested.json}"], None, {2}, 20),
    ("schema gen: out is a file", ["schema", "gen", "--out", "{schema.json}", "--n", "1"], None, {2}, 30),
    ("eval: huge samples", ["eval", "collie", "--model", "scripted:s", "--samples", "1000000000", "--out",
                            "{tmp}/run1"], None, {2}, 30),
    ("eval: out is a file", ["eval", "collie", "--model", "scripted:s", "--limit", "1", "--out", "{schema.json}"],
     None, {2}, 30),
    ("eval: out is a non-run folder", ["eval", "collie", "--model", "scripted:s", "--limit", "1", "--out",
                                       "{tmp}/runs"], None, {2}, 30),
    ("eval: instances file without a level", ["eval", "{instances-no-level.jsonl}", "--model", "scripted:s",
                                              "--out", "{tmp}/run2", "--no-cache"], None, {4}, 30),
    ("eval: bad instances file", ["eval", "{instances-bad.jsonl}", "--model", "scripted:s", "--out", "{tmp}/run3"],
     None, {2}, 30),
    ("eval: unknown model", ["eval", "collie", "--model", "nope:x", "--limit", "1"], None, {2}, 30),
    ("runs: lying config", ["runs", "{tmp}/runs"], None, {0}, 20),
    ("report: lying config", ["report", "{tmp}/runs/lying", "--out", "{tmp}/rep1"], None, {2}, 20),
    ("report: bad records", ["report", "{tmp}/runs/bad-records", "--out", "{tmp}/rep2"], None, {2}, 20),
    ("report: not a run", ["report", "{a-dir}"], None, {2}, 20),
    ("runs: missing", ["runs", "{tmp}/nowhere"], None, {2}, 10),
    ("tasks: unknown", ["tasks", "no-such-task"], None, {2}, 10),
    ("build: missing corpus", ["build", "collie-v1", "--corpus", "{tmp}/nope.jsonl", "--out", "{tmp}/b.jsonl"], None,
     {2}, 30),
    ("collie check: bad generations", ["collie", "check", "--generations", "{nested.json}"], None, {2}, 30),
    ("generate: broken schema", ["generate", "hi", "--schema", "{broken.json}"], None, {2}, 30),
    ("generate: nested constraint", ["generate", "hi", "--constraint", NESTED_NOT], None, {2}, 30),
]


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    tmp = tmp_path_factory.mktemp("hostile")
    found = _files(tmp)
    found["tmp"] = str(tmp)
    return found


def _fill(args: list[str], files: dict[str, str]) -> list[str]:
    out = []
    for arg in args:
        if "{" in arg and len(arg) < 200:
            for name, path in files.items():
                arg = arg.replace("{" + name + "}", path)
        out.append(arg)
    return out


@pytest.mark.parametrize(("case", "args", "stdin", "codes", "seconds"), CASES, ids=[c[0] for c in CASES])
def test_hostile_case(case: str, args: list[str], stdin, codes: set[int], seconds: float,
                      files: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CORRAL_CACHE_DIR", str(Path(files["tmp"]) / "cache"))
    result, elapsed = invoke(_fill(args, files), stdin, seconds + 30)  # the watchdog: a hang, not a slow machine
    assert result.exit_code in codes, f"{case}: exit {result.exit_code}: {result.output[-800:]}"
    assert elapsed <= seconds, f"{case}: took {elapsed:.1f} s (allowed {seconds} s)"
    if result.exit_code == 2:
        errors = [line for line in result.output.splitlines() if line.startswith("error:")]
        assert errors, f"{case}: exit 2 without a one-line 'error:' message: {result.output[-500:]}"


# ------------------------------------------------------------------------------------------------ batches
def _batch_lines() -> list[str | bytes]:
    """One line of each hostile kind; every one must give exactly one record, in order."""
    return [
        json.dumps({"constraint": COUNT3, "text": "a b c"}),
        "{not json",
        NESTED_JSON,
        json.dumps({"constraint": NESTED_NOT, "text": "x"}),
        '{"constraint": "count(text, word) == 1", "text": "\\ud800"}',
        b'{"constraint": "count(text, word) == 1", "text": "caf\xe9"}',
        json.dumps({"constraint": COUNT3, "text": "a\x00b c"}),
        json.dumps([1, 2]),
        json.dumps({"constraint": COUNT3}),
        json.dumps({"constraint": COUNT3, "text": 5}),
        json.dumps({"constraint": THREE_DEEP, "text": " ".join(["w"] * 300)}),
        json.dumps({"constraint": "count(text, word) == 1" + "0" * 400, "text": "x"}),
        json.dumps({"code": "c99", "targets": 1, "text": "x"}),
        json.dumps({"constraint": {"kind": "not", "part": None}, "text": "x"}),
        json.dumps({"constraint": COUNT3, "text": "one two three"}),
    ]


def _write_batch(path: Path, lines: list[str | bytes]) -> None:
    path.write_bytes(b"".join((line if isinstance(line, bytes) else line.encode("utf-8", "surrogatepass")) + b"\n"
                              for line in lines))


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_batch_of_hostile_lines_gives_one_record_per_line_in_order(tmp_path: Path, workers: str,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from corral.evaluation import PARALLEL_FROM_LINES

    lines = _batch_lines()
    if workers == "2":  # the parallel path: as many lines as make it parallel
        lines = lines * (PARALLEL_FROM_LINES // len(lines) + 1)
        lines = [line for i, line in enumerate(lines) if i % len(_batch_lines()) != 10 or i < 20]  # one slow line
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    _write_batch(source, lines)
    result, _ = invoke(["check", "--batch", str(source), "--out", str(out), "--workers", workers, "--timeout", "1"],
                       seconds=120)
    assert result.exit_code == 2
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["line"] for r in records] == list(range(1, len(lines) + 1))
    first = records[:15]
    assert first[0]["passed"] is True and first[14]["passed"] is True
    assert [i for i, r in enumerate(first) if "error" in r] == [1, 2, 3, 7, 8, 9, 12, 13]
    assert "nested" in first[2]["error"] and "nested" in first[3]["error"]
    assert first[4]["replaced"] == 1 and first[5]["replaced"] == 1  # the surrogate and the byte, flagged
    assert first[10]["undecided"] and first[10]["passed"] is False
    assert "passed" in first[6] and first[11]["passed"] is False  # NUL is text; a huge number is a number


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.one_of(st.text(max_size=60), st.binary(max_size=60).map(lambda b: b.decode("latin-1")),
                          st.builds(lambda spec, text: json.dumps({"constraint": spec, "text": text}),
                                    st.text(max_size=40), st.text(max_size=40))), min_size=1, max_size=12))
def test_any_batch_gives_one_record_per_nonblank_line(lines: list[str]) -> None:
    from corral.evaluation import check_lines

    lines = [line.replace("\n", " ").replace("\r", " ") for line in lines]
    encoded = [line.encode("utf-8", "surrogatepass") + b"\n" for line in lines]
    with watchdog(60):
        records = list(check_lines(encoded))
    expected = [i for i, line in enumerate(encoded, start=1) if line.strip()]
    assert [r["line"] for r in records] == expected
    for record in records:
        json.dumps(record).encode("utf-8")  # every record can be written


# ------------------------------------------------------------------------------------------------ runs
def test_eval_exits_4_when_the_run_is_incomplete(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CORRAL_CACHE_DIR", str(tmp_path / "cache"))
    result, _ = invoke(["eval", "collie", "--model", "scripted:s", "--limit", "2", "--out", str(tmp_path / "run")])
    assert result.exit_code == 4, result.output
    assert "incomplete" in result.output


def test_a_corrupt_cache_file_is_reported_and_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "responses.sqlite3").write_bytes(b"this is not a database" * 100)
    monkeypatch.setenv("CORRAL_CACHE_DIR", str(cache))
    result, _ = invoke(["eval", "collie", "--model", "scripted:s", "--limit", "1", "--out", str(tmp_path / "run")])
    assert result.exit_code == 4  # the scripted model has no outputs: incomplete, but no crash
    assert "cannot be used" in result.output


def test_a_poisoned_cache_entry_is_a_miss(tmp_path: Path) -> None:
    from corral.evaluation import ResponseCache
    from corral.models import Completion

    cache = ResponseCache(tmp_path / "c.sqlite3")
    cache.put("k", Completion("fine", "stop"))
    db = sqlite3.connect(tmp_path / "c.sqlite3")
    db.execute("INSERT INTO responses VALUES ('bad', '{\"text\": 5, \"unknown\": 1}')")
    db.execute("INSERT INTO responses VALUES ('worse', 'not json')")
    db.execute("INSERT INTO responses VALUES ('lone', ?)", (json.dumps({"text": "a\ud800", "finish_reason": "stop"}),))
    db.commit()
    assert cache.get("bad") is None and cache.get("worse") is None and cache.skipped == 2
    assert cache.get("k").text == "fine"
    lone = cache.get("lone")
    assert lone.text == "a\ufffd" and lone.replaced == 1  # an entry cached before sanitising reads back clean


def test_bytes_that_are_not_utf8_in_argv_are_replaced_and_flagged() -> None:
    done = subprocess.run([sys.executable, "-m", "corral.cli", "check", COUNT3, b"a b \xff\xfe"], capture_output=True,
                          timeout=120)
    assert done.returncode == 1, done.stderr
    assert b"Traceback" not in done.stderr and b"replaced by U+FFFD" in done.stderr


def test_sigterm_ends_a_check_cleanly() -> None:
    proc = subprocess.Popen([sys.executable, "-m", "corral.cli", "check", "--timeout", "60", THREE_DEEP,
                             " ".join(["w"] * 400)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    time.sleep(8)
    proc.send_signal(signal.SIGTERM)
    _, stderr = proc.communicate(timeout=60)
    assert b"Traceback" not in stderr and proc.returncode != 0


def test_the_check_budget_is_the_check_budget_plus_seconds() -> None:
    """A check past its budget returns within the budget and a few seconds, in a real process."""
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "corral.cli", "check", "--timeout", "3", THREE_DEEP,
                           " ".join(["w"] * 300)], capture_output=True, timeout=120)
    elapsed = time.monotonic() - started
    assert done.returncode == 3 and b"UNDECIDED" in done.stdout
    assert elapsed < 3 + 5 + 10  # the budget, the allowance, the interpreter's start-up

