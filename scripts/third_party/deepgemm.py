"""DeepGEMM (the `sgl-deep-gemm` wheel): hand-written Hopper and Blackwell GEMM kernels in CUDA
with inline PTX, compiled by DeepGEMM at run time from its headers. We instantiate each kernel
template with the kind of parameters its JIT picks (block shapes, swizzles, stages, thread
counts): the values satisfy the kernels' own static assertions."""

from __future__ import annotations

from pathlib import Path

from nvcc_jobs import NvccJob

K, MN = "cute::UMMA::Major::K", "cute::UMMA::Major::MN"
GEMM = "deep_gemm::GemmType::"
BF16, F32, FP8, FP4 = "cutlass::bfloat16_t", "float", "cutlass::float_e4m3_t", "cutlass::float_e2m1_t"
IDENTITY = "deep_gemm::epilogue::operators::Identity"

# (module name, arch, header under deep_gemm/impls, kernel, template arguments, in the quick tier)
KERNELS: tuple[tuple[str, str, str, str, tuple, bool], ...] = (
    ("sm90_bf16_gemm_normal", "sm_90a", "sm90_bf16_gemm", "sm90_bf16_gemm_impl",
     (K, K, 0, 4096, 4096, 1, 128, 128, 64, 128, 128, 128, 5, 128, 256, 1, "false", 132, GEMM + "Normal", "false", BF16), True),
    ("sm90_bf16_gemm_m_grouped_masked", "sm_90a", "sm90_bf16_gemm", "sm90_bf16_gemm_impl",
     (K, K, 0, 4096, 7168, 8, 64, 128, 64, 128, 128, 128, 6, 128, 128, 2, "true", 132, GEMM + "MGroupedMasked", "false", BF16), False),
    ("sm90_bf16_gemm_k_grouped", "sm_90a", "sm90_bf16_gemm", "sm90_bf16_gemm_impl",
     (MN, MN, 4096, 4096, 0, 4, 128, 256, 64, 128, 128, 128, 4, 128, 256, 1, "false", 132, GEMM + "KGroupedContiguous", "true", F32), False),
    ("sm90_fp8_gemm_1d2d_normal", "sm_90a", "sm90_fp8_gemm_1d2d", "sm90_fp8_gemm_1d2d_impl",
     (K, 0, 4096, 7168, 1, 128, 128, 128, 128, 128, 128, 5, 128, 256, 1, "false", 132, GEMM + "Normal", BF16), False),
    ("sm90_fp8_gemm_1d2d_m_grouped_contiguous", "sm_90a", "sm90_fp8_gemm_1d2d", "sm90_fp8_gemm_1d2d_impl",
     (K, 0, 4096, 7168, 4, 128, 160, 128, 128, 64, 64, 5, 128, 256, 2, "true", 132, GEMM + "MGroupedContiguous", BF16), False),
    ("sm90_fp8_gemm_1d1d_normal", "sm_90a", "sm90_fp8_gemm_1d1d", "sm90_fp8_gemm_1d1d_impl",
     (0, 4096, 7168, 1, 128, 128, 128, 128, 128, 5, 128, 256, 1, "false", 132, GEMM + "Normal", F32), False),
    ("sm90_bmn_bnk_mn", "sm_90a", "sm90_bmk_bnk_mn", "sm90_bmn_bnk_mn_gemm_impl", (4096, 4096, 0, 128, 128, 64, 4, 5, 128, 256), False),
    ("sm90_tf32_hc_prenorm_gemm", "sm_90a", "sm90_tf32_hc_prenorm_gemm", "sm90_tf32_hc_prenorm_gemm_impl",
     (24, 4096, 64, 32, 64, 1, 128, 4, 128, 128), True),
    ("sm90_fp8_mqa_logits", "sm_90a", "sm90_fp8_mqa_logits", "sm90_fp8_mqa_logits", (64, 128, 1, 128, 3, 3, 132, 128, 256, F32), False),
    ("smxx_transpose_fp32", "sm_90a", "smxx_layout", "transpose_fp32", (128, 64, 56, 8), False),
    ("sm100_bf16_gemm_normal", "sm_100a", "sm100_bf16_gemm", "sm100_bf16_gemm_impl",
     (K, K, 0, 4096, 4096, 128, 128, 64, 1, 128, 128, 128, 4, 128, 128, 1, "false", 148, 16, "false", "false",
      GEMM + "Normal", "false", BF16, IDENTITY, 100), True),
    ("sm100_bf16_gemm_multicast", "sm_100a", "sm100_bf16_gemm", "sm100_bf16_gemm_impl",
     (K, K, 0, 7168, 4096, 128, 256, 64, 1, 128, 128, 128, 4, 128, 128, 2, "true", 148, 16, "false", "false",
      GEMM + "Normal", "false", BF16, IDENTITY, 100), False),
    ("sm100_bf16_gemm_m_grouped_masked", "sm_100a", "sm100_bf16_gemm", "sm100_bf16_gemm_impl",
     (K, K, 0, 4096, 7168, 128, 128, 64, 8, 128, 128, 128, 4, 128, 128, 1, "false", 148, 16, "false", "false",
      GEMM + "MGroupedMasked", "false", BF16, IDENTITY, 100), False),
    ("sm100_bf16_gemm_k_grouped", "sm_100a", "sm100_bf16_gemm", "sm100_bf16_gemm_impl",
     (MN, MN, 4096, 4096, 0, 128, 128, 64, 4, 128, 128, 128, 4, 128, 128, 1, "false", 148, 128, "false", "false",
      GEMM + "KGroupedContiguous", "true", F32, IDENTITY, 100), False),
    ("sm100_fp8_gemm_1d1d_normal", "sm_100a", "sm100_fp8_fp4_gemm_1d1d", "sm100_fp8_fp4_gemm_1d1d_impl",
     (K, K, 128, 128, 128, 0, 4096, 7168, 128, 128, 128, 1, 128, 128, 128, 4, 2, 128, 128, 1, "false", 148, "false",
      "false", GEMM + "Normal", "false", FP8, FP8, BF16, IDENTITY), False),
    ("sm100_fp8_gemm_1d1d_swap_ab", "sm_100a", "sm100_fp8_fp4_gemm_1d1d", "sm100_fp8_fp4_gemm_1d1d_impl",
     (K, K, 128, 128, 128, 0, 4096, 7168, 128, 128, 128, 1, 128, 128, 128, 4, 2, 128, 128, 2, "false", 148, "true",
      "false", GEMM + "Normal", "false", FP8, FP8, BF16, IDENTITY), False),
    ("sm100_fp4_gemm_1d1d_normal", "sm_100a", "sm100_fp8_fp4_gemm_1d1d", "sm100_fp8_fp4_gemm_1d1d_impl",
     (K, K, 32, 32, 128, 0, 4096, 7168, 128, 128, 256, 1, 128, 128, 128, 4, 2, 128, 128, 1, "false", 148, "false",
      "false", GEMM + "Normal", "false", FP4, FP4, BF16, IDENTITY), False),
    ("sm100_bmn_bnk_mn", "sm_100a", "sm100_bmk_bnk_mn", "sm100_bmn_bnk_mn_gemm_impl", (4096, 4096, 0, 128, 128, 64, 4, 128, 128, 5, 128), False),
    ("sm100_tf32_hc_prenorm_gemm", "sm_100a", "sm100_tf32_hc_prenorm_gemm", "sm100_tf32_hc_prenorm_gemm_impl",
     (24, 4096, 64, 32, 64, 1, 128, 4, 128, 128), False),
    ("smxx_pack_fp32_into_ue8m0", "sm_100a", "smxx_layout", "pack_fp32_into_ue8m0", (1, 128, 64, 4), False),
)


def jobs(package: Path) -> list[NvccJob]:
    """``package``: the unpacked `deep_gemm` directory of the wheel."""
    include = package / "include"
    found = []
    for name, arch, header, kernel, arguments, quick in KERNELS:
        driver = (
            f"#include <deep_gemm/impls/{header}.cuh>\n"
            "// Taking the kernel's address instantiates it for the device compilation.\n"
            f"void *const instantiated = (void *)&deep_gemm::{kernel}<{', '.join(map(str, arguments))}>;\n"
        )
        found.append(
            NvccJob("deepgemm", arch, name, driver, (include,), ("-std=c++20", "--expt-relaxed-constexpr"), quick)
        )
    return found
