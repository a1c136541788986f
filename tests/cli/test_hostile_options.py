"""Hostile options and usage errors, generated from the app itself: every command and subcommand of ``corral``
(``typer.main.get_command(app)``, walked through its groups) and every numeric option of each.

Each numeric option is fed ``nan``, ``inf``, ``-inf``, ``-1``, ``10**18`` and a word; each command an unknown
option, each required argument or option left out, and one positional argument too many. Every case must end in
exit 2 with exactly one line, ``error: ...`` on stderr naming the option, no traceback, and at once: the command
line is refused before the command runs, so before any model or file is loaded. A numeric option added without
bounds (``corral.cli._options.int_option`` / ``float_option``) fails ``test_every_numeric_option_is_bounded``.
The validators themselves are checked with hypothesis at the end.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest
import typer
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from corral.cli import SEED_MAX, WORKERS_MAX, Bounds, BoundsError, OutOfBounds, app, bounds_of, usage_line

from .test_hostile import watchdog

runner = CliRunner()
ROOT = typer.main.get_command(app)
BAD_NUMBERS = ["nan", "inf", "-inf", "-1", str(10**18), "lots"]
FAST = 10.0  # seconds a refused command line may take (a busy 2-core machine; it takes milliseconds)


def _walk(command: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    """(path, click command) for the app, every group and every command under it."""
    yield path, command
    for name, sub in (getattr(command, "commands", None) or {}).items():
        yield from _walk(sub, (*path, name))


COMMANDS = list(_walk(ROOT))
LEAVES = [(path, command) for path, command in COMMANDS if not getattr(command, "commands", None)]


def _numeric(param: Any) -> bool:
    descriptor = getattr(param, "type_descriptor", None)
    return getattr(descriptor, "annotation", None) in (int, float) and not getattr(param, "is_flag", False)


def _name(param: Any) -> str:
    """How the user writes a parameter: an option's long name, an argument's name."""
    if param.param_type_name == "option":
        return next((o for o in param.opts if o.startswith("--")), param.opts[0])
    return param.name


def _filled(command: Any, leave_out: Any = None) -> list[str]:
    """Values for every required parameter of ``command`` but ``leave_out`` (and, arguments being positional, those
    after it): arguments first, then options."""
    arguments = [p for p in command.params if p.param_type_name == "argument" and p.required]
    if leave_out in arguments:
        arguments = arguments[:arguments.index(leave_out)]
    options = [p for p in command.params if p.param_type_name == "option" and p.required and p is not leave_out]
    return [*(f"arg-{p.name}" for p in arguments), *(x for p in options for x in (_name(p), f"value-{p.name}"))]


def _id(path: tuple[str, ...]) -> str:
    return " ".join(path) or "corral"


NUMERIC = [(path, command, param) for path, command in LEAVES for param in command.params if _numeric(param)]
NUMERIC_CASES = [pytest.param(path, command, param, bad, id=f"{_id(path)} {_name(param)} {bad}")
                 for path, command, param in NUMERIC for bad in BAD_NUMBERS]


def _refused(args: list[str]) -> str:
    """Run ``corral ARGS`` in-process; assert the usage-error contract and return the one error line."""
    started = time.monotonic()
    with watchdog(60):
        result = runner.invoke(app, args)
    elapsed = time.monotonic() - started
    shown = f"corral {' '.join(args)}: exit {result.exit_code}\n{result.output[-2000:]}"
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"{shown}\nraised {type(result.exception).__name__}: {result.exception}")
    assert result.exit_code == 2, shown
    assert "Traceback" not in result.output, shown
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), shown
    assert result.stdout == "", shown  # the error is on stderr
    assert "╭" not in lines[0] and "Usage:" not in lines[0], shown
    assert elapsed < FAST, f"{shown}\ntook {elapsed:.1f} s"
    return lines[0]


# ------------------------------------------------------------------------------------------------ the app's shape


def test_the_walk_finds_every_command():
    names = {_id(path) for path, _ in LEAVES}
    assert {"check", "generate", "eval", "render", "parse", "schema gen", "train rl", "clamp coverage",
            "collie check", "build", "report", "runs", "tasks", "doctor", "train export"} <= names
    assert len(NUMERIC) >= 40  # check, generate, eval, train, schema, clamp, build


@pytest.mark.parametrize(("path", "command", "param"), [pytest.param(*case, id=f"{_id(case[0])} {_name(case[2])}")
                                                       for case in NUMERIC])
def test_every_numeric_option_is_bounded(path, command, param):
    bounds = bounds_of(param)
    assert bounds is not None, f"corral {_id(path)} {_name(param)}: declare it with int_option/float_option"
    assert bounds.low >= 0 and bounds.high < 10**18
    if param.default is not None:  # the default passes its own bounds
        assert bounds.check(param.default) == param.default
    assert bounds.interval() in (param.help or "")  # the help names the bounds


def test_workers_and_seeds_have_the_documented_bounds():
    workers = [bounds_of(p) for _, _, p in NUMERIC if p.name == "workers"]
    seeds = [bounds_of(p) for _, _, p in NUMERIC if p.name == "seed"]
    assert workers and all(b == Bounds(int, 1, WORKERS_MAX) for b in workers)
    assert seeds and all(b == Bounds(int, 0, SEED_MAX) for b in seeds)
    assert WORKERS_MAX >= 64


# ------------------------------------------------------------------------------------------------ numeric options


@pytest.mark.parametrize(("path", "command", "param", "bad"), NUMERIC_CASES)
def test_a_bad_number_is_one_line_naming_the_option(path, command, param, bad):
    line = _refused([*path, *_filled(command), _name(param), bad])
    bounds = bounds_of(param)
    assert line.startswith(f"error: {_name(param)} must be "), line
    assert bounds is not None and bounds.interval() in line, line
    number = bad.lstrip("-").isdigit() or (bounds.kind is float and bad != "lots")
    assert line.endswith(f"got {bad}" if number else f"got '{bad}'"), line


def test_the_example_from_the_docs():
    assert _refused(["generate", "hi", "--temperature", "nan"]) == (
        "error: --temperature must be a finite number in [0, 2], got nan")
    assert _refused(["check", "--batch", "x.jsonl", "--workers", "100000"]) == (
        f"error: --workers must be a whole number in [1, {WORKERS_MAX}], got 100000")


@pytest.mark.parametrize("value", ["1e3", "1.5", "0x10", "1_000", "١٢", "", " ", "--", "1" * 5000, "\x1b[2J"])
def test_whole_numbers_are_plain_digits(value):
    line = _refused(["generate", "hi", "--n", value])
    assert line.startswith("error: --n must be a whole number in [1, "), line
    assert len(line) < 200 and "\x1b" not in line


def test_eval_limit_counts_are_bounded():
    line = _refused(["eval", "collie", "--limit", str(10**18)])
    assert "--limit" in line and "[1, 10000000]" in line
    line = _refused(["eval", "collie", "--limit", "structure=" + "9" * 5000])
    assert "--limit" in line and len(line) < 300


# ------------------------------------------------------------------------------------------------ usage errors


@pytest.mark.parametrize(("path", "command"), [pytest.param(p, c, id=_id(p)) for p, c in COMMANDS])
def test_an_unknown_option_is_one_line(path, command):
    line = _refused([*path, "--no-such-option"])
    assert "no such option: --no-such-option" in line, line
    assert f"see '{' '.join(('corral', *path))} --help'" in line, line


REQUIRED = [pytest.param(path, command, param, id=f"{_id(path)} {_name(param)}")
            for path, command in LEAVES for param in command.params if param.required]


@pytest.mark.parametrize(("path", "command", "param"), REQUIRED)
def test_a_missing_argument_or_option_is_one_line(path, command, param):
    line = _refused([*path, *_filled(command, leave_out=param)])
    kind = "argument" if param.param_type_name == "argument" else "option"
    assert f"missing {kind} '{_name(param)}'" in line, line


FIXED = [pytest.param(path, command, id=_id(path)) for path, command in LEAVES
         if all(p.nargs != -1 for p in command.params if p.param_type_name == "argument")]


@pytest.mark.parametrize(("path", "command"), FIXED)
def test_an_extra_argument_is_one_line(path, command):
    arguments = [p for p in command.params if p.param_type_name == "argument"]
    extra = [f"arg{i}" for i in range(len(arguments) + 1)]
    line = _refused([*path, *_filled(command, leave_out=None)[len([a for a in arguments if a.required]):], *extra])
    assert "unexpected extra argument" in line and f"arg{len(arguments)}" in line, line


def test_an_option_without_its_value_and_an_unknown_command():
    assert "requires an argument" in _refused(["check", "--max-chars"])
    assert "no such command 'nosuch'" in _refused(["nosuch"])
    assert "no such command" in _refused(["schema", "nosuch"])


def test_help_is_still_help():
    for args in (["--help"], ["check", "--help"], ["schema", "gen", "--help"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 0 and "Usage" in result.output and "error:" not in result.output
    bare = runner.invoke(app, [])  # no arguments: the app's help, as before
    assert "Usage" in bare.output and "error:" not in bare.output


def test_control_characters_in_an_unknown_option_are_escaped():
    line = _refused(["check", "--\x1b[2J\nx"])
    assert "\x1b" not in line and "\\x1b" in line


# ------------------------------------------------------------------------------------------------ lone surrogates


def test_an_instances_file_with_lone_surrogates_runs(tmp_path, monkeypatch):
    """A JSON escape such as "\\ud800" decodes to a lone surrogate, which cannot be written as UTF-8: in an id it
    stopped the run when it wrote config.json. Ids, prompts and constraints are scrubbed to U+FFFD when read."""
    monkeypatch.setenv("CORRAL_CACHE_DIR", str(tmp_path / "cache"))
    instances = tmp_path / "surrogates.jsonl"
    instances.write_text('{"id": "\\ud800", "constraint": "pos(text, word, 1) == \'\\udfff\'", "prompt": "\\ud800"}\n'
                         '{"id": "b", "constraint": "count(text, word) == 1"}\n', encoding="utf-8")
    with watchdog(60):
        result = runner.invoke(app, ["eval", str(instances), "--model", "scripted:s", "--no-report",
                                     "--out", str(tmp_path / "run")])
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code == 4, result.output  # the scripted model has no outputs: an incomplete run, not a crash
    assert "\ufffd" in (tmp_path / "run" / "config.json").read_text(encoding="utf-8")
    twins = tmp_path / "twins.jsonl"
    twins.write_text('{"id": "\\ud800", "constraint": "count(text, word) == 1"}\n'
                     '{"id": "\\udfff", "constraint": "count(text, word) == 1"}\n', encoding="utf-8")
    assert "ids repeat" in _refused(["eval", str(twins), "--model", "scripted:s", "--out", str(tmp_path / "run2")])


@pytest.mark.parametrize("row", [
    '{"id": 1, "code": "c04", "targets": ["\\ud800", 2], "text": "a"}',
    '{"id": 1, "code": ["c04"], "targets": 1, "text": "a"}',
    '{"id": "\\ud800", "code": "word01", "targets": 3, "text": "a"}',
    '{"id": 1, "code": "c01", "targets": [3], "text": 7}',
])
def test_collie_generations_with_bad_codes_or_targets_are_one_line(tmp_path, row):
    generations = tmp_path / "generations.jsonl"
    generations.write_text(row + "\n", encoding="utf-8")
    line = _refused(["collie", "check", "--generations", str(generations)])
    assert str(generations) in line and "row" in line


# ------------------------------------------------------------------------------------------------ the validators


def _inside(bounds: Bounds, x: float) -> bool:
    low_ok = bounds.low < x if bounds.low_open else bounds.low <= x
    high_ok = x < bounds.high if bounds.high_open else x <= bounds.high
    return math.isfinite(x) and low_ok and high_ok


finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False)


@st.composite
def float_bounds(draw: Any) -> Bounds:
    low, high = sorted((draw(finite), draw(finite)))
    low_open, high_open = draw(st.booleans()), draw(st.booleans())
    return Bounds(float, low, high, low_open, high_open)


@st.composite
def int_bounds(draw: Any) -> Bounds:
    low, high = sorted((draw(st.integers(-(10**6), 10**6)), draw(st.integers(-(10**6), 10**6))))
    return Bounds(int, low, high)


@given(int_bounds(), st.integers(-(10**30), 10**30))
def test_whole_numbers_pass_exactly_when_inside(bounds, x):
    for given_as in (x, str(x), f" {x} ", f"+{x}" if x >= 0 else str(x)):
        if bounds.low <= x <= bounds.high:
            value = bounds.check(given_as)
            assert value == x and type(value) is int
        else:
            with pytest.raises(OutOfBounds, match=r"^must be a whole number in \["):
                bounds.check(given_as)


@given(float_bounds(), st.floats(allow_nan=True, allow_infinity=True) | finite)
def test_numbers_pass_exactly_when_finite_and_inside(bounds, x):
    for given_as in (x, repr(x), str(x).upper()):
        if _inside(bounds, x):
            assert bounds.check(given_as) == x
        else:
            with pytest.raises(OutOfBounds) as refused:
                bounds.check(given_as)
            assert str(refused.value).startswith(f"must be a finite number in {bounds.interval()}, got ")


@given(st.one_of(int_bounds(), float_bounds()), st.one_of(st.text(), st.none(), st.booleans(), st.lists(st.integers()),
                                                          st.floats(), st.integers()))
def test_any_value_is_a_number_or_one_short_line(bounds, value):
    try:
        number = bounds.check(value)
    except OutOfBounds as exc:
        message = str(exc)
        assert message.startswith("must be ") and "\n" not in message and len(message) < 160
        with pytest.raises(BoundsError) as as_option:  # the parser typer calls: a click usage error
            bounds(value)
        assert as_option.value.message == message
    else:
        assert isinstance(number, bounds.kind) and _inside(bounds, float(number))
        assert bounds(value) == number


@given(st.from_regex(r"[a-z][a-z0-9-]{0,20}", fullmatch=True), st.text(max_size=200))
def test_a_refused_value_names_its_option(name, message):
    error = BoundsError(message)
    error.param = SimpleNamespace(opts=[f"-{name[:1]}", f"--{name}"])  # click attaches the option it reads
    assert error.format_message() == f"--{name} {message}"
    assert "\n" not in usage_line(error)


def test_bounds_are_checked_when_declared():
    for bad in ((int, 2, 1), (float, 0, math.inf), (float, math.nan, 1), (str, 0, 1)):
        with pytest.raises(TypeError):
            Bounds(*bad)
    assert Bounds(float, 0, 2).interval() == "[0, 2]" and Bounds(float, 0, 1, True).interval() == "(0, 1]"
    assert Bounds(float, 0, 1, False, True).interval() == "[0, 1)"
    assert Bounds(float, 0.5, 1e-3 + 1).interval() == "[0.5, 1.001]"
