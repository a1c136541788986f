"""Which llama.cpp CPU build is installed, whether it can run on this CPU, and loading its best kernels.

A llama.cpp compiled for instructions the CPU lacks dies with SIGILL in the middle of a run, with no message. So
before a model is loaded Corral works out what the installed build needs:

- the **portable build** (``GGML_BACKEND_DL`` + ``GGML_CPU_ALL_VARIANTS``) ships one CPU backend per instruction-set
  level (``libggml-cpu-haswell.so`` ... ``libggml-cpu-sapphirerapids.so``). Each variant's own
  ``ggml_backend_score()`` reads CPUID and says whether it can run; Corral also asks the kernel (the flags in
  ``/proc/cpuinfo`` are those the OS has enabled: an AVX-512 state the hypervisor does not save is absent there, and
  AMX needs a per-process permission) and loads the best variant that passes both. llama-cpp-python never loads
  backends itself (llama.cpp looks beside the Python executable), so Corral must do it before the first model.
- a **single-variant build** (the default ``GGML_NATIVE`` one, or any fixed flags) is compiled for one set of
  instructions, which its ``ggml_cpu_has_*`` functions report. They are read in a child process, so that a build
  that cannot even be loaded on this CPU kills the child, not Corral.

Instruction-set flags are not the whole story: on a KVM guest of a Sapphire Rapids host the kernel reports AMX
and grants its permission, yet llama.cpp's AMX kernels die there (SIGILL on ``tilezero`` in the AMX variant,
SIGSEGV on ``ldtilecfg`` in a native build; seen on this project's machines). So the variant that passes the
flag checks is also **probed**: a child process loads it and evaluates a few tokens of the bundled model. A
variant whose probe dies is skipped for the next best one. Probe verdicts are cached per variant file, CPU and
kernel (``$CORRAL_CACHE_DIR/llama-cpu.json``), so this costs about a second once.

``CORRAL_LLAMA_CPU=NAME`` forces a variant (to reproduce figures made with it, or to test a lower level).
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import importlib.util
import json
import os
import platform
import signal
import subprocess
import sys
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path

from corral.jsonl import atomic_write
from corral.paths import cache_dir

from ._protocol import ModelError

VARIANT_VARIABLE = "CORRAL_LLAMA_CPU"
LLAMA_CPP_PYTHON = "0.3.36"
PORTABLE_CMAKE_ARGS = "-DGGML_NATIVE=OFF -DGGML_BACKEND_DL=ON -DGGML_CPU_ALL_VARIANTS=ON -DLLAVA_BUILD=OFF"
REINSTALL = (f'CMAKE_ARGS="{PORTABLE_CMAKE_ARGS}" pip install --no-cache-dir --force-reinstall --no-deps '
             f"llama-cpp-python=={LLAMA_CPP_PYTHON}")
"""The command that replaces any llama-cpp-python build with the portable one (pip's wheel cache ignores CMAKE_ARGS,
so without --no-cache-dir a reinstall brings the old build back)."""

_AVX2 = ("sse4_2", "avx", "f16c", "fma", "avx2", "bmi2")
_AVX512 = (*_AVX2, "avx512f", "avx512cd", "avx512vl", "avx512dq", "avx512bw")
X86_VARIANTS: dict[str, tuple[str, ...]] = {
    "x64": (),
    "sse42": ("sse4_2",),
    "sandybridge": ("sse4_2", "avx"),
    "ivybridge": ("sse4_2", "avx", "f16c"),
    "piledriver": ("sse4_2", "avx", "f16c", "fma"),
    "haswell": _AVX2,
    "skylakex": _AVX512,
    "cannonlake": (*_AVX512, "avx512vbmi"),
    "cascadelake": (*_AVX512, "avx512_vnni"),
    "icelake": (*_AVX512, "avx512vbmi", "avx512_vnni"),
    "cooperlake": (*_AVX512, "avx512_vnni", "avx512_bf16"),
    "zen4": (*_AVX512, "avx512vbmi", "avx512_vnni", "avx512_bf16"),
    "alderlake": (*_AVX2, "avx_vnni"),
    "sapphirerapids": (*_AVX512, "avx512vbmi", "avx512_vnni", "avx512_bf16", "amx_tile", "amx_int8"),
}
"""What each x86 variant of ggml's CPU backend is compiled for, as ``/proc/cpuinfo`` names the flags (the list in
ggml's ``src/CMakeLists.txt``, ``ggml_add_cpu_backend_variant``)."""

# ggml_cpu_has_* (compile-time answers of a single-variant build) -> the /proc/cpuinfo flags each one needs
_COMPILED_FEATURES = {
    "sse3": ("pni",), "ssse3": ("ssse3",), "avx": ("avx",), "avx2": ("avx2",), "bmi2": ("bmi2",),
    "f16c": ("f16c",), "fma": ("fma",), "avx_vnni": ("avx_vnni",),
    "avx512": ("avx512f", "avx512cd", "avx512vl", "avx512dq", "avx512bw"), "avx512_vbmi": ("avx512vbmi",),
    "avx512_vnni": ("avx512_vnni",), "avx512_bf16": ("avx512_bf16",), "amx_int8": ("amx_tile", "amx_int8"),
}


class CpuMismatch(ModelError):
    """The installed llama.cpp cannot run on this CPU (it would die with SIGILL)."""


@dataclass(frozen=True)
class Variant:
    """One CPU backend of a portable build: its file, what it needs, and whether it runs here."""

    name: str
    path: Path
    score: int  # ggml_backend_score(): 0 when CPUID lacks what the variant was compiled for
    missing: tuple[str, ...]  # needed flags that this CPU's OS does not report (or AMX permission refused)
    crash: str | None = None  # how its probe died, if it was probed and died
    probed: bool = False  # ran the bundled model in a child process

    @property
    def usable(self) -> bool:
        return self.score > 0 and not self.missing and self.crash is None

    @property
    def status(self) -> str:
        """``runs here``, ``lacks avx512f, ...``, ``crashed with SIGILL when probed``."""
        if self.crash:
            return self.crash
        if self.missing:
            return f"lacks {', '.join(self.missing)}"
        if self.score <= 0:
            return "CPUID lacks what it needs"
        return "runs here (probed)" if self.probed else "fits this CPU's flags"


@dataclass(frozen=True)
class LlamaBuild:
    """The installed llama.cpp as Corral found it."""

    lib_dir: Path
    portable: bool  # CPU backends as loadable variants, chosen at run time
    variants: tuple[Variant, ...] = ()
    chosen: str = ""  # the variant in use (portable) or "single" (a one-variant build)
    compiled_for: tuple[str, ...] = ()  # a single-variant build's instruction sets (ggml_cpu_has_*)

    @property
    def chosen_path(self) -> Path | None:
        """The chosen variant's library (a portable build), else None."""
        return next((v.path for v in self.variants if v.name == self.chosen), None)

    def describe(self) -> str:
        """One line for summaries and reports: ``llama.cpp CPU variant haswell (portable build)``."""
        if self.portable:
            return f"llama.cpp CPU variant {self.chosen} (portable build)"
        return f"llama.cpp single-variant build for {'/'.join(self.compiled_for) or 'baseline x86-64'}"


def cpu_flags() -> frozenset[str]:
    """The instruction-set flags the kernel reports for this CPU (those the OS has enabled), lower case."""
    return _cpu_info()[1]


def cpu_model() -> str:
    """The CPU's model name (``Intel(R) Xeon(R) Processor``, ``AMD EPYC 7B13``), or the machine type."""
    return _cpu_info()[0] or platform.machine()


@cache
def _cpu_info() -> tuple[str, frozenset[str]]:
    name, flags = "", set[str]()
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return "", frozenset()
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        key = key.strip().lower()
        if not sep:
            continue
        if key in ("model name", "cpu model") and not name:
            name = value.strip()
        elif key in ("flags", "features") and not flags:
            flags = set(value.split())
    return name, frozenset(flag.lower() for flag in flags)


def _amx_permitted() -> bool:
    """Whether the kernel lets this process use AMX tile data (Linux asks each process to request it)."""
    if sys.platform != "linux" or platform.machine() != "x86_64":
        return False
    libc = ctypes.CDLL(None, use_errno=True)
    sys_arch_prctl, arch_req_xcomp_perm, xfeature_xtiledata = 158, 0x1023, 18
    return libc.syscall(sys_arch_prctl, arch_req_xcomp_perm, xfeature_xtiledata) == 0


def lib_dir() -> Path:
    """Where llama-cpp-python's shared libraries are (its ``LLAMA_CPP_LIB_PATH`` override included)."""
    override = os.environ.get("LLAMA_CPP_LIB_PATH")
    if override:
        return Path(override)
    spec = importlib.util.find_spec("llama_cpp")
    if spec is None or not spec.submodule_search_locations:
        raise ModelError("the llamacpp backend needs llama-cpp-python; install Corral with the README's command")
    return Path(next(iter(spec.submodule_search_locations))) / "lib"


def variant_files(directory: Path) -> dict[str, Path]:
    """The CPU variants a portable build ships: NAME -> ``libggml-cpu-NAME.so``. ggml installs them into its
    ``bin`` folder, which a wheel puts at the top of site-packages, beside ``llama_cpp``: looked for there when
    the library folder has none."""
    prefix, suffix = "libggml-cpu-", ".so"
    for folder in (directory, directory.parent.parent / "bin"):
        found = sorted(folder.glob(f"{prefix}*{suffix}"))
        if found:
            return {p.name[len(prefix):-len(suffix)]: p for p in found}
    return {}


def _missing(needed: tuple[str, ...], flags: frozenset[str]) -> tuple[str, ...]:
    missing = [flag for flag in needed if flag not in flags]
    if not missing and "amx_int8" in needed and not _amx_permitted():
        missing.append("amx (the kernel refused this process AMX tile state)")
    return tuple(missing)


def _score(path: Path) -> int:
    """The variant's own verdict on this CPU (CPUID). ggml designed every variant to be loadable on any CPU of its
    architecture for exactly this call; nothing else in it runs."""
    try:
        library = ctypes.CDLL(str(path), mode=os.RTLD_LOCAL)
        score = library.ggml_backend_score
    except (OSError, AttributeError):
        return 0
    score.restype = ctypes.c_int
    score.argtypes = []
    return int(score())


def inspect_build(forced: str | None = None) -> LlamaBuild:
    """What the installed llama.cpp needs and which of its variants this CPU runs; raises ``CpuMismatch`` when
    none can run here (or the ``forced`` variant cannot), with the reinstall command."""
    directory = lib_dir()
    forced = forced if forced is not None else (os.environ.get(VARIANT_VARIABLE, "").strip() or None)
    files = variant_files(directory)
    if not files:
        if forced:
            raise CpuMismatch(f"{VARIANT_VARIABLE}={forced}: the installed llama.cpp has no CPU variants to choose "
                              f"from (a single-variant build); unset it, or install the portable build: {REINSTALL}")
        return _single_variant(directory)
    _load_core(directory)
    flags = cpu_flags()
    variants = tuple(Variant(name, path, _score(path), _missing(X86_VARIANTS.get(name, ()), flags))
                     for name, path in files.items())
    while True:
        picked = choose_variant(variants, forced)
        crash = probe(picked.path)
        variants = tuple(replace(v, crash=crash, probed=True) if v is picked else v for v in variants)
        if crash is None:
            return LlamaBuild(directory, True, variants, picked.name)


def choose_variant(variants: tuple[Variant, ...], forced: str | None = None) -> Variant:
    """The forced variant if it runs here, else the highest-scoring one that runs here; ``CpuMismatch`` if none."""
    if forced:
        picked = next((v for v in variants if v.name == forced), None)
        if picked is None:
            raise CpuMismatch(f"{VARIANT_VARIABLE}={forced}: no such CPU variant; this build has "
                              f"{', '.join(v.name for v in variants)}")
        if picked.crash:
            raise CpuMismatch(f"{VARIANT_VARIABLE}={forced}: the {forced} variant {picked.crash} on this CPU "
                              f"({cpu_model()}); unset {VARIANT_VARIABLE} to use the best variant that runs here")
        if not picked.usable:
            lacking = ", ".join(picked.missing) or ", ".join(X86_VARIANTS.get(forced, ())) or "its instruction set"
            raise CpuMismatch(f"{VARIANT_VARIABLE}={forced}: this CPU ({cpu_model()}) lacks {lacking}, which the "
                              f"{forced} variant needs; unset {VARIANT_VARIABLE} to use the best variant this CPU runs")
    else:
        usable = [v for v in variants if v.usable]
        if not usable:
            raise CpuMismatch(f"none of llama.cpp's CPU variants ({', '.join(v.name for v in variants)}) runs on this "
                              f"CPU ({cpu_model()}); reinstall the portable build: {REINSTALL}")
        picked = max(usable, key=lambda v: v.score)
    return picked


def _load_core(directory: Path) -> ctypes.CDLL:
    """libllama, opened from the same file llama-cpp-python opens, so that both get one handle and one ggml.

    A wheel cannot hold symlinks, so ``libggml.so``, ``libggml.so.0`` and ``libggml.so.0.25.3`` are three copies;
    opening one by path beside the one libllama linked (``.so.0``, through its RPATH) gives a second backend
    registry that llama.cpp never reads. ggml's functions are therefore looked up through libllama's handle (dlsym
    searches a library's dependencies), and the variants, which need ``libggml-base.so.0``, find the copy libllama
    already brought in."""
    return ctypes.CDLL(str(directory / "libllama.so"))


_PROBE = """
import ctypes, json, sys
lib = ctypes.CDLL(sys.argv[1])
out = {}
for name in sys.argv[2:]:
    fn = getattr(lib, "ggml_cpu_has_" + name, None)
    if fn is not None:
        fn.restype = ctypes.c_int
        out[name] = fn()
print(json.dumps(out))
"""


def _single_variant(directory: Path) -> LlamaBuild:
    """A build compiled for one instruction set: read what it was compiled for in a child process (so that a
    library this CPU cannot even load kills the child), compare with the CPU, then probe it."""
    library = directory / "libggml-cpu.so"
    if not library.exists():
        return LlamaBuild(directory, False, chosen="single")
    failure, answer = run_child([sys.executable, "-c", _PROBE, str(library), *_COMPILED_FEATURES], timeout=60)
    if failure is not None:
        raise CpuMismatch(f"the installed llama.cpp ({library}) {failure.replace('probed', 'inspected')} on this "
                          f"CPU ({cpu_model()}); reinstall the portable build: {REINSTALL}")
    compiled = tuple(name for name, on in json.loads(answer).items() if on)
    missing = _missing(tuple(flag for name in compiled for flag in _COMPILED_FEATURES[name]), cpu_flags())
    if missing:
        raise CpuMismatch(f"the installed llama.cpp was compiled for {', '.join(missing)}, which this CPU "
                          f"({cpu_model()}) lacks; reinstall the portable build: {REINSTALL}")
    crash = probe(library)
    if crash is not None:
        raise CpuMismatch(f"the installed llama.cpp (compiled for {'/'.join(compiled)}) {crash} on this CPU "
                          f"({cpu_model()}); reinstall the portable build: {REINSTALL}")
    return LlamaBuild(directory, False, chosen="single", compiled_for=compiled)


_PROBE_MODEL = """
import sys
from pathlib import Path
from corral.models import _llamacpp_cpu as cpu
if sys.argv[1] != "-":
    cpu._load_variant(cpu.lib_dir(), Path(sys.argv[1]))
from llama_cpp import Llama
llama = Llama(model_path=sys.argv[2], n_ctx=64, n_threads=int(sys.argv[3]), n_threads_batch=int(sys.argv[3]),
              verbose=False)
llama.eval(llama.tokenize(b"A probe: does every kernel of this build run on this CPU?"))
llama.eval([llama.token_eos()])
print("ok")
"""


def _probe_key(library: Path) -> str:
    stat = library.stat()
    facts = [str(library.resolve()), stat.st_size, stat.st_mtime_ns, cpu_model(), sorted(cpu_flags()),
             platform.release()]
    return hashlib.sha256(json.dumps(facts).encode()).hexdigest()[:24]


def _probe_cache() -> Path:
    return cache_dir() / "llama-cpu.json"


def probe(library: Path) -> str | None:
    """Run the bundled model on ``library`` (a variant, or a single-variant build's ``libggml-cpu.so``) in a child
    process; None if it ran, else how it died ("crashed with SIGILL when probed"). Cached per file, CPU and kernel."""
    key, cache_file = _probe_key(library), _probe_cache()
    try:
        known = json.loads(cache_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        known = {}
    if not isinstance(known, dict):
        known = {}
    if key in known and isinstance(known[key], dict) and "crash" in known[key]:
        return known[key]["crash"]
    from ._bundled import bundled_gguf
    from ._threads import default_threads

    try:
        model = bundled_gguf()
    except ModelError:
        return None  # nothing to probe with: the flag checks stand alone
    variant = "-" if library.name == "libggml-cpu.so" else str(library)
    crash = run_probe([sys.executable, "-c", _PROBE_MODEL, variant, str(model), str(default_threads())])
    known[key] = {"library": str(library), "crash": crash}
    with contextlib.suppress(OSError):  # an unwritable cache only means probing again next time
        atomic_write(cache_file, json.dumps(known, indent=1))
    return crash


def run_probe(command: list[str], timeout: float = 120) -> str | None:
    """Run a probe command; None if it exits 0, else what happened to it, in words."""
    return run_child(command, timeout)[0]


def run_child(command: list[str], timeout: float = 120) -> tuple[str | None, str]:
    """Run a child process that may die on this CPU: (None, its stdout) if it exits 0, else (how it failed, "")."""
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False,
                              env={**os.environ, VARIANT_VARIABLE: ""})
    except subprocess.TimeoutExpired:
        return f"did not finish within {timeout:g} s when probed", ""
    if done.returncode == 0:
        return None, done.stdout
    if done.returncode < 0:
        try:
            name = signal.Signals(-done.returncode).name
        except ValueError:
            name = f"signal {-done.returncode}"
        return f"crashed with {name} when probed", ""
    last = (done.stderr.strip().splitlines() or [""])[-1][:200]
    return f"failed when probed (exit code {done.returncode}: {last})", ""


def _load_variant(directory: Path, variant: Path) -> None:
    """Load one CPU variant into llama.cpp's backend registry (before llama.cpp loads any backend itself)."""
    import logging

    import llama_cpp  # noqa: F401  (its log callback; libllama as llama-cpp-python opens it)

    # llama-cpp-python prints llama.cpp's log lines at levels its logger passes; Llama(verbose=False) sets ERROR
    # later, and ggml's "loaded CPU backend" line would come first
    logging.getLogger("llama-cpp-python").setLevel(logging.ERROR)
    ggml = _load_core(directory)
    ggml.ggml_backend_reg_count.restype = ctypes.c_size_t
    ggml.ggml_backend_load.restype = ctypes.c_void_p
    ggml.ggml_backend_load.argtypes = [ctypes.c_char_p]
    if ggml.ggml_backend_reg_count() == 0 and not ggml.ggml_backend_load(os.fsencode(variant)):
        raise ModelError(f"llama.cpp could not load its CPU backend {variant}")


_loaded: list[LlamaBuild] = []


def load_backends() -> LlamaBuild:
    """Check the build against this CPU and, for a portable build, load the chosen variant into llama.cpp. Once per
    process; call before the first ``llama_cpp.Llama``. Raises ``CpuMismatch`` instead of letting llama.cpp crash."""
    if _loaded:
        return _loaded[0]
    build = inspect_build()
    if build.portable:
        _load_variant(build.lib_dir, build.chosen_path)  # type: ignore[arg-type]
    _loaded.append(build)
    return build


def backend_environment() -> dict[str, str]:
    """Variables for a child process that runs llama.cpp without Corral's loader (``python -m llama_cpp.server``):
    ``GGML_BACKEND_PATH`` names the chosen variant, which llama.cpp loads at start-up."""
    path = inspect_build().chosen_path
    return {"GGML_BACKEND_PATH": str(path)} if path is not None else {}
