"""``cmake/lean-llama.cmake``, the README install's CMake hook, run by the real ``cmake`` on a project laid out as
llama-cpp-python's is at the points the hook touches: a top-level project that forces ``LLAMA_BUILD_COMMON`` on,
then ``project("llama.cpp")``, then ggml's variant functions (the wrapper sets ``GGML_CPU_TAG_NAME`` and calls the
function that builds one variant) with ggml's x86-64 list. CI's install runs the hook on the real sources and
checks the variants it installed (``.ci/run``); these tests pin down its rules where each can be varied.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

HOOK = Path(__file__).resolve().parents[1] / "cmake" / "lean-llama.cmake"
GGML_X86 = ["x64", "sse42", "sandybridge", "ivybridge", "piledriver", "haswell", "skylakex", "cannonlake",
            "cascadelake", "icelake", "cooperlake", "zen4", "alderlake", "sapphirerapids"]
KEPT = ["x64", "sse42", "haswell", "skylakex", "cascadelake", "zen4", "alderlake"]

pytestmark = pytest.mark.skipif(shutil.which("cmake") is None, reason="needs cmake")


def _project(root: Path, arch: str) -> Path:
    (root / "vendor").mkdir(parents=True)
    (root / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.21)\n"
        "project(llama_cpp NONE)\n"
        "option(LLAVA_BUILD \"\" ON)\n"
        'set(LLAMA_BUILD_COMMON ON CACHE BOOL "" FORCE)  # as llama-cpp-python does\n'
        "add_subdirectory(vendor)\n")
    calls = "\n".join(f"ggml_add_cpu_backend_variant({name})" for name in GGML_X86)
    (root / "vendor" / "CMakeLists.txt").write_text(
        'project("llama.cpp" NONE)\n'
        f"set(GGML_SYSTEM_ARCH {arch})\n"
        "function(ggml_add_cpu_backend_variant_impl tag_name)\n"
        '    message(STATUS "built: ${tag_name} avx2=${GGML_AVX2}")\n'
        "endfunction()\n"
        "function(ggml_add_cpu_backend_variant tag_name)\n"
        "    set(GGML_CPU_TAG_NAME ${tag_name})\n"
        "    set(GGML_AVX2 ${tag_name})  # a variable the wrapper sets for the variant, seen by the builder\n"
        "    ggml_add_cpu_backend_variant_impl(${tag_name})\n"
        "endfunction()\n"
        f"{calls}\n"
        'message(STATUS "common: ${LLAMA_BUILD_COMMON}")\n')
    return root


def _configure(tmp_path: Path, *options: str, arch: str = "x86") -> tuple[list[str], str]:
    source = _project(tmp_path / "src", arch)
    result = subprocess.run(["cmake", "-S", str(source), "-B", str(tmp_path / "build"),
                             f"-DCMAKE_PROJECT_INCLUDE={HOOK}", *options],
                            capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    built = re.findall(r"built: (\S+) avx2=(\S+)", result.stdout)
    assert all(name == seen for name, seen in built), built  # each variant still sees its own settings
    common = re.search(r"common: (\S+)", result.stdout)
    assert common
    return [name for name, _ in built], common.group(1)


def test_the_lean_build_keeps_seven_variants_and_drops_common(tmp_path: Path) -> None:
    built, common = _configure(tmp_path, "-DLLAVA_BUILD=OFF")
    assert built == KEPT
    assert common == "OFF"


def test_the_multimodal_library_keeps_common(tmp_path: Path) -> None:
    built, common = _configure(tmp_path, "-DLLAVA_BUILD=ON")
    assert built == KEPT
    assert common == "ON"


def test_a_chosen_list_of_variants_is_built(tmp_path: Path) -> None:
    built, _ = _configure(tmp_path, "-DLLAVA_BUILD=OFF", "-DCORRAL_CPU_VARIANTS=x64;haswell;sapphirerapids")
    assert built == ["x64", "haswell", "sapphirerapids"]


def test_other_architectures_build_every_variant(tmp_path: Path) -> None:
    built, _ = _configure(tmp_path, "-DLLAVA_BUILD=OFF", arch="ARM")
    assert built == GGML_X86
