"""Predefined special registers (PTX ISA §10) and how uniform their values are.

Levels: "thread" varies per thread, "warp" is equal within a warp, "cta" within a CTA, "cluster"
within a cluster, "grid" across the launch, and "volatile" may change between two reads by the
same thread (never a stable index: `%warpid`, `%smid`, clocks).
"""

from __future__ import annotations

UNIFORMITY: dict[str, str] = {
    "%tid": "thread",
    "%laneid": "thread",
    "%lanemask_eq": "thread",
    "%lanemask_le": "thread",
    "%lanemask_lt": "thread",
    "%lanemask_ge": "thread",
    "%lanemask_gt": "thread",
    "%ntid": "grid",
    "%ctaid": "cta",
    "%nctaid": "grid",
    "%clusterid": "cluster",
    "%nclusterid": "grid",
    "%cluster_ctaid": "cta",
    "%cluster_nctaid": "grid",
    "%cluster_ctarank": "cta",
    "%cluster_nctarank": "grid",
    "%is_explicit_cluster": "grid",
    "%warpid": "volatile",
    "%nwarpid": "grid",
    "%smid": "volatile",
    "%nsmid": "grid",
    "%gridid": "grid",
    "%clock": "volatile",
    "%clock_hi": "volatile",
    "%clock64": "volatile",
    "%globaltimer": "volatile",
    "%globaltimer_lo": "volatile",
    "%globaltimer_hi": "volatile",
    "%dynamic_smem_size": "grid",
    "%total_smem_size": "grid",
    "%aggr_smem_size": "grid",
    "%reserved_smem_offset_begin": "grid",
    "%reserved_smem_offset_end": "grid",
    "%reserved_smem_offset_cap": "grid",
    "%reserved_smem_offset_": "grid",  # %reserved_smem_offset_<2>
    "%envreg": "cta",  # %envreg<32>: "cta-wide or grid-wide"
    "%pm": "volatile",  # %pm0..7 and %pm*_64
    "%current_graph_exec": "grid",
    "WARP_SZ": "grid",
}


# Predefined identifiers that read as constants (PTX ISA, "Predefined Identifiers"): nvcc writes
# CUDA's `warpSize` as `WARP_SZ` (`mov.u32 %r26, WARP_SZ; div.u32 %r1, %r23, %r26;`).
PREDEFINED_CONSTANTS: dict[str, int] = {"WARP_SZ": 32}


def special_register_base(name: str) -> str | None:
    """The table key for a special-register operand (`%tid.x` → `%tid`, `%envreg7` → `%envreg`),
    or None when ``name`` is not a special register."""
    base = name.split(".", 1)[0]
    if base in UNIFORMITY:
        return base
    stripped = base.rstrip("0123456789")
    if stripped != base and stripped in UNIFORMITY:
        return stripped
    if base.startswith("%pm") and base.endswith("_64"):
        return "%pm"
    return None
