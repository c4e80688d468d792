"""FlashInfer (the `flashinfer-python` wheel): LLM-serving kernels, shipped as headers that its
JIT compiles. Each driver calls one of the library's host-side launchers with the types a
serving stack uses, which instantiates the kernels behind it."""

from __future__ import annotations

from pathlib import Path

from nvcc_jobs import NvccJob

# (module name, header, the calls that instantiate it, in the quick tier)
DRIVERS = (
    (
        "merge_states",
        "flashinfer/attention/cascade.cuh",
        "void instantiate(half *v, float *s) { flashinfer::MergeStates<half, half>(v, s, v, s, 2, 128, 32, 128); }",
        True,
    ),
    (
        "sampling",
        "flashinfer/sampling.cuh",
        "void instantiate(float *p, int *o, bool *valid, int *idx) {\n"
        "  flashinfer::sampling::TopKSamplingFromProb<float, int>(p, o, valid, idx, nullptr, 1, 50, 32000, false, nullptr, 0ull, nullptr, 0ull);\n"
        "  flashinfer::sampling::OnlineSoftmax<float>(p, p, 1, 32000, nullptr, 1.0f, nullptr, 0, false);\n"
        "}",
        False,
    ),
)
ARCHS = ("sm_90a", "sm_100a")


def jobs(data: Path, curand_include: Path | None) -> list[NvccJob]:
    """``data``: the wheel's `flashinfer/data` directory (headers, bundled CUTLASS);
    ``curand_include``: where `curand.h` is when nvcc's own include directory lacks it."""
    includes = (data / "include", data / "cutlass" / "include") + ((curand_include,) if curand_include else ())
    return [
        NvccJob("flashinfer", arch, name, f"#include <{header}>\n{calls}\n", includes,
                ("-std=c++17", "--expt-relaxed-constexpr"), quick and arch == "sm_100a")
        for name, header, calls, quick in DRIVERS
        for arch in ARCHS
    ]
