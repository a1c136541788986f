"""The llama.cpp build check: which CPU variant runs here, and a clear error (never SIGILL) when none can.

A CPU without AVX-512 is simulated by replacing the flags the kernel reports (``_cpu_info``): Corral requires a
variant's instruction sets both from CPUID (the variant's own ``ggml_backend_score``) and from the OS, so a CPU
whose OS does not report AVX-512 is, for Corral, a CPU without it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from corral.cli import app
from corral.models import REINSTALL, X86_VARIANTS, CpuMismatch, Variant, choose_variant, inspect_build, variant_files
from corral.models import _llamacpp_cpu as cpu  # the CPU probe and the library folder, replaced by simulations

HASWELL_FLAGS = frozenset(("fpu", "sse", "sse2", "ssse3", "sse4_1", *X86_VARIANTS["haswell"]))
PORTABLE = bool(variant_files(cpu.lib_dir())) if cpu.importlib.util.find_spec("llama_cpp") else False
needs_portable = pytest.mark.skipif(not PORTABLE, reason="llama-cpp-python is not the portable build")


def _variant(name: str, score: int, missing: tuple[str, ...] = ()) -> Variant:
    return Variant(name, Path(f"libggml-cpu-{name}.so"), score, missing)


def test_the_best_usable_variant_wins_and_a_variant_the_os_lacks_is_skipped() -> None:
    variants = (_variant("x64", 1), _variant("haswell", 59), _variant("skylakex", 187, ("avx512f",)),
                _variant("sapphirerapids", 0))
    assert choose_variant(variants).name == "haswell"
    assert choose_variant(variants, "x64").name == "x64"


def test_a_forced_variant_this_cpu_lacks_names_what_is_missing() -> None:
    variants = (_variant("haswell", 59), _variant("skylakex", 0, ("avx512f", "avx512bw")))
    with pytest.raises(CpuMismatch, match=r"CORRAL_LLAMA_CPU=skylakex: .* lacks avx512f, avx512bw"):
        choose_variant(variants, "skylakex")
    with pytest.raises(CpuMismatch, match="no such CPU variant; this build has haswell, skylakex"):
        choose_variant(variants, "zen9")


def test_no_usable_variant_gives_the_reinstall_command() -> None:
    with pytest.raises(CpuMismatch) as caught:
        choose_variant((_variant("haswell", 0),))
    assert REINSTALL in str(caught.value) and "--no-cache-dir" in str(caught.value)


def test_a_probe_that_dies_by_a_signal_is_named() -> None:
    sigill = [sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGILL)"]
    assert cpu.run_probe(sigill) == "crashed with SIGILL when probed"
    assert cpu.run_probe([sys.executable, "-c", "print('ok')"]) is None
    failed = cpu.run_probe([sys.executable, "-c", "raise SystemExit('no model here')"])
    assert failed is not None and "exit code 1: no model here" in failed
    assert cpu.run_child([sys.executable, "-c", "print('{}')"]) == (None, "{}\n")


@needs_portable
def test_a_variant_whose_probe_crashes_gives_way_to_the_next_best(monkeypatch: pytest.MonkeyPatch,
                                                                   unforced: None) -> None:
    real = inspect_build()
    order = sorted((v for v in real.variants if v.score > 0 and not v.missing), key=lambda v: -v.score)
    top, second = order[0], order[1]
    monkeypatch.setattr(cpu, "probe", lambda path: "crashed with SIGILL when probed" if path == top.path else None)
    build = inspect_build()
    assert build.chosen == second.name
    statuses = {v.name: v.status for v in build.variants}
    assert statuses[top.name] == "crashed with SIGILL when probed"
    assert statuses[second.name] == "runs here (probed)"
    with pytest.raises(CpuMismatch, match=f"{top.name} variant crashed with SIGILL when probed"):
        inspect_build(forced=top.name)


def test_cpuinfo_is_read_for_model_and_flags(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    info = tmp_path / "cpuinfo"
    info.write_text("processor\t: 0\nmodel name\t: AMD EPYC 7B13\nflags\t\t: fpu AVX2 fma\n\n"
                    "processor\t: 1\nmodel name\t: AMD EPYC 7B13\nflags\t\t: fpu avx2 fma\n")
    real = Path
    monkeypatch.setattr(cpu, "Path", lambda p: info if p == "/proc/cpuinfo" else real(p))
    cpu._cpu_info.cache_clear()
    try:
        assert cpu._cpu_info() == ("AMD EPYC 7B13", frozenset({"fpu", "avx2", "fma"}))
    finally:
        cpu._cpu_info.cache_clear()


def test_every_x86_variant_needs_at_least_what_the_one_below_it_needs() -> None:
    assert set(X86_VARIANTS["haswell"]) <= set(X86_VARIANTS["skylakex"]) <= set(X86_VARIANTS["sapphirerapids"])
    assert {"avx2", "fma", "f16c"} <= set(X86_VARIANTS["haswell"])


@pytest.fixture
def unforced(monkeypatch: pytest.MonkeyPatch) -> None:
    """The variant Corral would choose itself, whatever CORRAL_LLAMA_CPU the test run was given."""
    monkeypatch.delenv("CORRAL_LLAMA_CPU", raising=False)


@needs_portable
def test_the_installed_portable_build_runs_here_and_lists_its_variants(unforced: None) -> None:
    build = inspect_build()
    assert build.portable and build.variants
    chosen = next(v for v in build.variants if v.name == build.chosen)
    assert chosen.usable
    # no variant that runs here scores higher than the chosen one
    assert all(v.score <= chosen.score for v in build.variants if v.usable)
    assert "haswell" in {v.name for v in build.variants}
    assert inspect_build(forced="haswell").chosen == "haswell"


@needs_portable
def test_a_cpu_without_avx512_gets_haswell_and_cannot_force_skylakex(monkeypatch: pytest.MonkeyPatch,
                                                                     unforced: None) -> None:
    monkeypatch.setattr(cpu, "_cpu_info", lambda: ("Simulated AVX2 CPU", HASWELL_FLAGS))
    build = inspect_build()
    assert build.chosen in ("haswell", "alderlake") or X86_VARIANTS[build.chosen] == ()  # nothing above AVX2
    assert set(X86_VARIANTS[build.chosen]) <= HASWELL_FLAGS
    with pytest.raises(CpuMismatch, match="lacks avx512f"):
        inspect_build(forced="skylakex")


_SIMULATED_CLI = textwrap.dedent("""
    import sys
    from corral.models import _llamacpp_cpu as cpu  # its CPU probe, replaced by a simulated CPU
    flags = frozenset(sys.argv[1].split(","))
    cpu._cpu_info = lambda: ("Simulated AVX2 CPU", flags)
    from corral.cli import main
    sys.argv = ["corral", *sys.argv[2:]]
    main()
""")


@needs_portable
@pytest.mark.parametrize("command", [
    ["generate", "Hi", "--max-tokens", "4"],
    ["eval", "collie", "--limit", "1", "--no-cache", "--no-report"],
])
def test_forcing_a_variant_above_the_cpu_is_one_line_and_exit_2(command: list[str], tmp_path: Path) -> None:
    if command[0] == "eval":
        command = [*command, "--out", str(tmp_path / "run")]
    env = {**os.environ, "CORRAL_LLAMA_CPU": "zen4"}  # a variant the lean build keeps (sapphirerapids it drops)
    done = subprocess.run([sys.executable, "-c", _SIMULATED_CLI, ",".join(HASWELL_FLAGS), *command],
                          capture_output=True, text=True, env=env, timeout=120, check=False)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    error = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(error) == 1 and error[0].startswith("error: CORRAL_LLAMA_CPU=zen4"), done.stderr
    assert "avx512f" in error[0] and "avx512_bf16" in error[0]


@needs_portable
def test_doctor_names_the_variant_in_use(unforced: None) -> None:
    result = CliRunner().invoke(app, ["doctor", "--json"])
    assert result.exit_code == 0, result.output
    facts = json.loads(result.stdout)
    build = inspect_build()
    assert facts["llama_cpp"]["variant"] == build.chosen
    assert facts["llama_cpp"]["variants"][build.chosen] == "runs here (probed)"
    assert len(facts["model"]["sha256"]) == 64 and facts["model"]["bytes"] > 1_000_000
    assert set(facts["extras"]) == {"hf", "ray", "server", "train", "inspect", "lm-eval", "verifiers"}
    assert facts["threads"]["usable_cpus"] >= facts["threads"]["now"] >= 1


@needs_portable
def test_doctor_exits_2_when_the_forced_variant_cannot_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cpu, "_cpu_info", lambda: ("Simulated AVX2 CPU", HASWELL_FLAGS))
    monkeypatch.setenv("CORRAL_LLAMA_CPU", "skylakex")
    result = CliRunner().invoke(app, ["doctor"])
    assert result.exit_code == 2
    assert "lacks avx512f" in result.stderr


@needs_portable
def test_importing_llama_cpp_first_still_loads_the_variant() -> None:
    # the wheel's libggml.so and libggml.so.0 are two files: the variant must go into the ggml libllama uses
    code = ("import llama_cpp\nfrom corral.models import Request, Sampling, load_model\n"
            "[[c]] = load_model('smollm2').complete([Request.user('Hi', Sampling(max_tokens=2))])\n"
            "print(c.completion_tokens)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "2"
