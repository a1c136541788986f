# A leaner build of llama-cpp-python for Corral, handed to CMake as -DCMAKE_PROJECT_INCLUDE=<this file>.
#
# Why: llama-cpp-python's source build with GGML_CPU_ALL_VARIANTS compiles ggml's CPU backend 14 times (one per
# x86-64 instruction-set level, a list written into ggml's CMakeLists with no option to choose) and llama.cpp's
# "common" library (chat templates, argument parsing, an HTTP client: for llama.cpp's own programs), which the Python
# package forces on and never loads. On 2 cores they are most of the install. This file keeps every x86-64 CPU
# supported and drops:
#   - llama.cpp's common library (LLAMA_BUILD_COMMON), unless LLAVA_BUILD is on (the multimodal library needs it);
#   - seven CPU variants whose CPUs a kept variant serves: sandybridge, ivybridge, piledriver (AVX without AVX2,
#     CPUs of 2011-2013: they get sse42), cannonlake (one laptop line: skylakex), cooperlake (one server line:
#     cascadelake), icelake (cascadelake's instructions plus AVX512-VBMI: the two decode the bundled model at the
#     same rate, docs/install.md; Ice Lake and Tiger Lake CPUs get cascadelake) and
#     sapphirerapids (its AMX kernels die in the VMs such CPUs mostly run in, where Corral skips them anyway; every
#     other instruction it uses is in zen4, which those CPUs then get).
# Kept: x64 (any x86-64 CPU), sse42, haswell (AVX2), skylakex, cascadelake, zen4 (AVX-512 levels) and alderlake
# (AVX-VNNI). To build another set, also pass -DCORRAL_CPU_VARIANTS="x64;sse42;haswell;..." (names as in
# ggml/src/CMakeLists.txt); to build everything, leave this file out of CMAKE_ARGS.
#
# How: CMake includes this file at every project() call. At llama.cpp's it turns the common library off again (the
# Python package's CMakeLists forces it on just before). At ggml's it watches the variable that ggml sets before
# building each variant and, the first time, wraps ggml's function that builds one variant so that variants outside
# the kept list are skipped (CMake keeps an overridden command reachable under its name with a leading underscore).
# Nothing here changes how a kept variant is compiled, and on a CPU that is not x86-64 (ARM, POWER) every variant is
# built as before.

if (PROJECT_NAME STREQUAL "llama.cpp" AND NOT LLAVA_BUILD)
    set(LLAMA_BUILD_COMMON OFF CACHE BOOL "llama: build common utils library (off: Corral's lean build)" FORCE)
endif()

get_property(corral_watching GLOBAL PROPERTY CORRAL_CPU_WATCH)
if (corral_watching)
    return()
endif()
set_property(GLOBAL PROPERTY CORRAL_CPU_WATCH TRUE)

if (NOT DEFINED CORRAL_CPU_VARIANTS)
    set(CORRAL_CPU_VARIANTS x64 sse42 haswell skylakex cascadelake zen4 alderlake)
endif()
set_property(GLOBAL PROPERTY CORRAL_CPU_VARIANTS "${CORRAL_CPU_VARIANTS}")

function(corral_gate_cpu_variants variable access value)
    if (NOT access STREQUAL "MODIFIED_ACCESS")
        return()
    endif()
    get_property(installed GLOBAL PROPERTY CORRAL_CPU_GATE)
    if (installed)
        return()
    endif()
    set_property(GLOBAL PROPERTY CORRAL_CPU_GATE TRUE)
    function(ggml_add_cpu_backend_variant_impl tag_name)
        get_property(kept GLOBAL PROPERTY CORRAL_CPU_VARIANTS)
        if (GGML_SYSTEM_ARCH STREQUAL "x86" AND tag_name AND NOT tag_name IN_LIST kept)  # other CPUs: all built
            message(STATUS "corral: CPU variant ${tag_name} not built (CORRAL_CPU_VARIANTS: ${kept})")
            return()
        endif()
        _ggml_add_cpu_backend_variant_impl(${tag_name})
    endfunction()
endfunction()

variable_watch(GGML_CPU_TAG_NAME corral_gate_cpu_variants)
