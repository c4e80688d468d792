"""The CuTe tutorials shipped with CUTLASS (`examples/cute/tutorial` in the `nvidia-cutlass`
wheel): small, complete GEMMs written to teach the SM80 copies, Hopper's wgmma and Blackwell's
tcgen05 (UMMA, TMA, multicast, 2-SM, epilogue), compiled as they are."""

from __future__ import annotations

from pathlib import Path

from nvcc_jobs import NvccJob

# (file under examples/cute/tutorial, arch, in the quick tier)
TUTORIALS = (
    ("sgemm_sm80.cu", "sm_80", False),
    ("tiled_copy.cu", "sm_80", False),
    ("hopper/wgmma_sm90.cu", "sm_90a", True),
    ("hopper/wgmma_tma_sm90.cu", "sm_90a", False),
    ("blackwell/01_mma_sm100.cu", "sm_100a", True),
    ("blackwell/02_mma_tma_sm100.cu", "sm_100a", False),
    ("blackwell/03_mma_tma_multicast_sm100.cu", "sm_100a", False),
    ("blackwell/04_mma_tma_2sm_sm100.cu", "sm_100a", False),
    ("blackwell/05_mma_tma_epi_sm100.cu", "sm_100a", False),
)


def jobs(cutlass: Path) -> list[NvccJob]:
    """``cutlass``: a CUTLASS source tree (the wheel's `cutlass_library/source`)."""
    tutorial = cutlass / "examples" / "cute" / "tutorial"
    includes = (cutlass / "include", cutlass / "tools" / "util" / "include")
    return [
        NvccJob(
            "cute-tutorials",
            arch,
            Path(path).stem,
            tutorial / path,
            includes + ((tutorial / path).parent,),
            ("-std=c++17", "--expt-relaxed-constexpr", "-DNDEBUG"),
            quick,
        )
        for path, arch, quick in TUTORIALS
    ]
