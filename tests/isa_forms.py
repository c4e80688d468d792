"""Systematic ISA cases: every family's qualifier grammar, varied one slot and two slots at a time,
with each required slot dropped, with modifiers of other instructions added, and under every
target and PTX version boundary. ptxas judges each case (tests/isa_cases.py); ptxlint must agree.

Each family starts from forms ptxas accepts (FORMS). The slot values to try come from
`ptxlint.isa.grammar` (the manual's grammar as ptxlint states it) and, for modifiers the grammar
does not list, from every other grammar and a list of common modifiers: a value ptxas accepts
that ptxlint does not know shows up as a false alarm.
"""

from __future__ import annotations

import itertools
from typing import Iterator

from isa_cases import Case, valid_headers
from ptxlint.isa.grammar import all_grammars, grammar_of

# Modifiers that instructions commonly take, beyond those in the grammars.
COMMON_MODIFIERS = (
    "sync", "aligned", "release", "acquire", "relaxed", "acq_rel", "weak", "cta", "cluster", "gpu", "sys",
    "shared", "shared::cta", "shared::cluster", "global", "b16", "b32", "b64", "u32", "s32", "f32", "f16",
    "pack::16b", "unpack::16b", "abs", "NaN", "ftz", "sat", "satfinite", "rn", "trans", "x2", "v2", "v4",
    "noinc", "parity", "multicast::cluster", "level::cache_hint", "cta_group::1", "cta_group::2",
)

# The versions at which some feature appeared, and the targets of the issue, as ptxas knows them
# (ptxas 13.0 does not assemble sm_101*; sm_110a is its successor).
BOUNDARY_VERSIONS = ("7.0", "7.1", "7.3", "7.7", "7.8", "8.0", "8.1", "8.2", "8.3", "8.4", "8.5", "8.6", "8.7", "8.8", "9.0")
BOUNDARY_TARGETS = ("sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_100a", "sm_100f", "sm_103a",
                    "sm_110a", "sm_120", "sm_120a")

# (family, version, target, instruction ptxas accepts)
FORMS: tuple[tuple[str, str, str, str], ...] = (
    ("tcgen05.ld/st", "8.6", "sm_100a", "tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r10, %r11}, [%r1];"),
    ("tcgen05.ld/st", "8.6", "sm_100a", "tcgen05.ld.sync.aligned.16x64b.x1.pack::16b.b32 {%r10}, [%r1];"),
    ("tcgen05.ld/st", "8.6", "sm_100a", "tcgen05.st.sync.aligned.32x32b.x2.b32 [%r1], {%r10, %r11};"),
    ("tcgen05.ld/st", "8.6", "sm_100a", "tcgen05.st.sync.aligned.16x64b.x1.unpack::16b.b32 [%r1], {%r10};"),
    ("tcgen05.ld/st", "8.8", "sm_103a", "tcgen05.ld.red.sync.aligned.32x32b.x2.min.f32 {%f10, %f11}, %f2, [%r1];"),
    ("tcgen05.ld/st", "8.8", "sm_103a", "tcgen05.ld.red.sync.aligned.32x32b.x2.max.abs.NaN.f32 {%f10, %f11}, %f2, [%r1];"),
    ("tcgen05.ld/st", "8.8", "sm_103a", "tcgen05.ld.red.sync.aligned.32x32b.x2.min.u32 {%r10, %r11}, %r2, [%r1];"),
    ("tcgen05.ld/st", "8.6", "sm_100a", "tcgen05.wait::ld.sync.aligned;"),
    ("tcgen05.ld/st", "8.6", "sm_100a", "tcgen05.wait::st.sync.aligned;"),
    ("tcgen05.alloc", "8.6", "sm_100a", "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [smem], 64;"),
    ("tcgen05.alloc", "8.6", "sm_100a", "tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r1, 64;"),
    ("tcgen05.alloc", "8.6", "sm_100a", "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;"),
    ("tcgen05.cp/shift", "8.6", "sm_100a", "tcgen05.cp.cta_group::1.128x256b [%r1], %rd1;"),
    ("tcgen05.cp/shift", "8.6", "sm_100a", "tcgen05.cp.cta_group::1.64x128b.warpx2::02_13 [%r1], %rd1;"),
    ("tcgen05.cp/shift", "8.6", "sm_100a", "tcgen05.cp.cta_group::1.128x256b.b8x16.b6x16_p32 [%r1], %rd1;"),
    ("tcgen05.cp/shift", "8.6", "sm_100a", "tcgen05.shift.cta_group::1.down [%r1];"),
    ("tcgen05.commit/fence", "8.6", "sm_100a", "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [mbar];"),
    ("tcgen05.commit/fence", "8.6", "sm_100a",
     "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [mbar], %h1;"),
    ("tcgen05.commit/fence", "8.6", "sm_100a", "tcgen05.fence::before_thread_sync;"),
    ("tcgen05.commit/fence", "8.6", "sm_100a", "tcgen05.fence::after_thread_sync;"),
    ("elect.sync", "8.0", "sm_90", "elect.sync %r1|%p1, -1;"),
    ("setmaxnreg", "8.0", "sm_90a", "setmaxnreg.inc.sync.aligned.u32 128;"),
    ("setmaxnreg", "8.0", "sm_90a", "setmaxnreg.dec.sync.aligned.u32 64;"),
    ("griddepcontrol", "7.8", "sm_90", "griddepcontrol.wait;"),
    ("griddepcontrol", "7.8", "sm_90", "griddepcontrol.launch_dependents;"),
    ("bar.warp.sync", "7.0", "sm_80", "bar.warp.sync -1;"),
    ("shfl.sync", "7.0", "sm_80", "shfl.sync.idx.b32 %r1, %r2, %r3, 31, -1;"),
    ("shfl.sync", "7.0", "sm_80", "shfl.sync.bfly.b32 %r1|%p1, %r2, 1, 31, -1;"),
    ("vote.sync", "7.0", "sm_80", "vote.sync.ballot.b32 %r1, %p1, -1;"),
    ("vote.sync", "7.0", "sm_80", "vote.sync.any.pred %p2, %p1, -1;"),
    ("match.sync", "7.0", "sm_80", "match.any.sync.b32 %r1, %r2, -1;"),
    ("match.sync", "7.0", "sm_80", "match.all.sync.b64 %r1|%p1, %rd2, -1;"),
    ("redux.sync", "7.0", "sm_80", "redux.sync.add.u32 %r1, %r2, -1;"),
    ("redux.sync", "7.0", "sm_80", "redux.sync.and.b32 %r1, %r2, -1;"),
    ("redux.sync", "8.6", "sm_100a", "redux.sync.min.abs.NaN.f32 %f1, %f2, -1;"),
    ("barrier.cluster", "7.8", "sm_90", "barrier.cluster.arrive.aligned;"),
    ("barrier.cluster", "8.0", "sm_90", "barrier.cluster.arrive.release.aligned;"),
    ("barrier.cluster", "8.0", "sm_90", "barrier.cluster.wait.acquire.aligned;"),
    ("mbarrier", "7.0", "sm_80", "mbarrier.init.shared.b64 [mbar], %r1;"),
    ("mbarrier", "7.0", "sm_80", "mbarrier.inval.shared.b64 [mbar];"),
    ("mbarrier", "7.0", "sm_80", "mbarrier.arrive.shared.b64 %rd1, [mbar];"),
    ("mbarrier", "8.0", "sm_90", "mbarrier.arrive.release.cta.shared::cta.b64 %rd1, [mbar];"),
    ("mbarrier", "8.0", "sm_90", "mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 %rd1, [mbar], %r1;"),
    ("mbarrier", "7.0", "sm_80", "mbarrier.arrive_drop.shared.b64 %rd1, [mbar];"),
    ("mbarrier", "8.0", "sm_90", "mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [mbar], %r1;"),
    ("mbarrier", "8.0", "sm_90", "mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [mbar], %r1;"),
    ("mbarrier", "7.0", "sm_80", "mbarrier.test_wait.shared.b64 %p1, [mbar], %rd1;"),
    ("mbarrier", "7.8", "sm_90", "mbarrier.try_wait.parity.shared::cta.b64 %p1, [mbar], %r1;"),
    ("mbarrier", "8.0", "sm_90", "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 %p1, [mbar], %r1;"),
    ("mbarrier", "7.0", "sm_80", "mbarrier.pending_count.b64 %r1, %rd1;"),
    ("fence.proxy", "7.5", "sm_80", "fence.proxy.alias;"),
    ("fence.proxy", "8.0", "sm_90", "fence.proxy.async;"),
    ("fence.proxy", "8.0", "sm_90", "fence.proxy.async.shared::cta;"),
    ("fence.proxy", "8.3", "sm_90", "fence.proxy.tensormap::generic.release.gpu;"),
    ("fence.proxy", "8.3", "sm_90", "fence.proxy.tensormap::generic.acquire.gpu [%rd1], 128;"),
    ("fence.proxy", "8.0", "sm_90", "fence.mbarrier_init.release.cluster;"),
    ("tensormap", "8.3", "sm_90",
     "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd1], [smem], 128;"),
    ("ldmatrix/stmatrix", "7.0", "sm_80", "ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r2}, [%r1];"),
    ("ldmatrix/stmatrix", "7.0", "sm_80", "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%r2, %r3, %r4, %r5}, [%r1];"),
    ("ldmatrix/stmatrix", "8.6", "sm_100a", "ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 {%r2, %r3}, [%r1];"),
    ("ldmatrix/stmatrix", "8.6", "sm_100a", "ldmatrix.sync.aligned.m8n16.x1.shared.b8x16.b6x16_p32 {%r2}, [%r1];"),
    ("ldmatrix/stmatrix", "7.8", "sm_90", "stmatrix.sync.aligned.m8n8.x2.shared.b16 [%r1], {%r2, %r3};"),
    ("ldmatrix/stmatrix", "8.6", "sm_100a", "stmatrix.sync.aligned.m16n8.x1.trans.shared.b8 [%r1], {%r2};"),
    ("ldmatrix/stmatrix", "7.8", "sm_80", "movmatrix.sync.aligned.m8n8.trans.b16 %r1, %r2;"),
    ("wgmma", "8.0", "sm_90a", "wgmma.fence.sync.aligned;"),
    ("wgmma", "8.0", "sm_90a", "wgmma.commit_group.sync.aligned;"),
    ("wgmma", "8.0", "sm_90a", "wgmma.wait_group.sync.aligned 0;"),
    ("wgmma", "8.0", "sm_90a",
     "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, %p1, 1, 1, 0, 0;"),
    ("wgmma", "8.0", "sm_90a",
     "wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8 {%r1, %r2, %r3, %r4}, %rd1, %rd2, %p1;"),
    ("mma.sync", "7.0", "sm_80",
     "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f5, %f6, %f7, %f8};"),
    ("mma.sync", "7.0", "sm_80",
     "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2}, {%r5}, {%f5, %f6, %f7, %f8};"),
    ("mma.sync", "7.0", "sm_80",
     "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.u8.s32 {%r1, %r2, %r3, %r4}, {%r5, %r6, %r7, %r8}, {%r9, %r10}, {%r11, %r12, %r13, %r14};"),
    ("mma.sync", "7.0", "sm_80", "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%fd1, %fd2}, {%fd3}, {%fd4}, {%fd5, %fd6};"),
    ("mma.sync", "8.4", "sm_89",
     "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f5, %f6, %f7, %f8};"),
    ("mma.sync", "7.1", "sm_80",
     "mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6, %r7, %r8}, {%f5, %f6, %f7, %f8}, %r9, 0;"),
    ("wmma", "7.0", "sm_80", "wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%rd1];"),
    ("wmma", "7.0", "sm_80", "wmma.load.c.sync.aligned.col.m16n16k16.shared.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, [smem];"),
    ("wmma", "7.0", "sm_80", "wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd1], {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8};"),
    ("wmma", "7.0", "sm_80",
     "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, "
     "{%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, {%r9, %r10, %r11, %r12, %r13, %r14, %r15, %r16}, "
     "{%f9, %f10, %f11, %f12, %f13, %f14, %f15, %f16};"),
    ("wmma", "7.0", "sm_80",
     "wmma.mma.sync.aligned.row.col.m16n16k16.s32.s8.s8.s32.satfinite {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, "
     "{%r9, %r10}, {%r11, %r12}, {%r13, %r14, %r15, %r16, %r17, %r18, %r19, %r20};"),
    ("cp.async", "7.0", "sm_80", "cp.async.ca.shared.global [smem], [%rd1], 4;"),
    ("cp.async", "7.4", "sm_80", "cp.async.cg.shared.global.L2::128B [smem], [%rd1], 16;"),
    ("cp.async", "7.4", "sm_80", "cp.async.cg.shared.global.L2::cache_hint [smem], [%rd1], 16, %rd2;"),
    ("cp.async", "7.0", "sm_80", "cp.async.commit_group;"),
    ("cp.async", "7.0", "sm_80", "cp.async.wait_group 0;"),
    ("cp.async", "7.0", "sm_80", "cp.async.wait_all;"),
    ("cp.async", "7.0", "sm_80", "cp.async.mbarrier.arrive.noinc.shared.b64 [mbar];"),
    ("cp.async.bulk", "8.0", "sm_90",
     "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [smem], [%rd1], %r1, [mbar];"),
    ("cp.async.bulk", "8.0", "sm_90", "cp.async.bulk.global.shared::cta.bulk_group [%rd1], [smem], %r1;"),
    ("cp.async.bulk", "8.0", "sm_90", "cp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint [%rd1], [smem], %r1, %rd2;"),
    ("cp.async.bulk", "8.0", "sm_90", "cp.async.bulk.prefetch.L2.global [%rd1], %r1;"),
    ("cp.async.bulk", "8.0", "sm_90", "cp.async.bulk.commit_group;"),
    ("cp.async.bulk", "8.0", "sm_90", "cp.async.bulk.wait_group.read 0;"),
    ("cp.async.bulk.tensor", "8.0", "sm_90",
     "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [smem], [%rd1, {%r1, %r2}], [mbar];"),
    ("cp.async.bulk.tensor", "8.0", "sm_90",
     "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [smem], [%rd1, {%r1, %r2, %r3}], [mbar], %rd2;"),
    ("cp.async.bulk.tensor", "8.0", "sm_90", "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%rd1, {%r1, %r2}], [smem];"),
    ("cp.async.bulk.tensor", "8.0", "sm_90", "cp.async.bulk.prefetch.tensor.2d.L2.global [%rd1, {%r1, %r2}];"),
    ("cp.async.bulk.tensor", "8.6", "sm_100a",
     "cp.async.bulk.tensor.2d.cta_group::2.shared::cluster.global.mbarrier::complete_tx::bytes [smem], [%rd1, {%r1, %r2}], [mbar];"),
    ("st.async", "8.1", "sm_90", "st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%r1], %r2, [%r3];"),
    ("st.async", "8.1", "sm_90", "st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.f32 [%r1], {%f2, %f3}, [%r3];"),
    ("st.async", "8.7", "sm_100", "st.async.release.gpu.global.b32 [%rd1], %r2;"),
    ("barrier.*", "7.0", "sm_80", "barrier.sync 1, 64;"),
    ("barrier.*", "7.0", "sm_80", "barrier.sync.aligned 0;"),
    ("barrier.*", "7.8", "sm_80", "barrier.cta.arrive 1, 64;"),
    ("barrier.*", "7.0", "sm_80", "barrier.red.popc.u32 %r1, 0, %p1;"),
    ("barrier.*", "7.0", "sm_80", "barrier.red.and.pred %p2, 0, %p1;"),
    ("barrier.*", "7.0", "sm_80", "bar.sync 0;"),
    ("barrier.*", "7.0", "sm_80", "bar.arrive 1, 64;"),
    ("barrier.*", "7.0", "sm_80", "bar.red.or.pred %p2, 0, %p1;"),
    ("tensormap", "8.3", "sm_90a", "tensormap.replace.tile.global_address.shared::cta.b1024.b64 [smem], %rd2;"),
    ("tensormap", "8.3", "sm_90a", "tensormap.replace.tile.rank.global.b1024.b32 [%rd1], 2;"),
    ("multimem", "8.1", "sm_90", "multimem.ld_reduce.relaxed.sys.global.add.u32 %r1, [%rd1];"),
    ("multimem", "8.2", "sm_90", "multimem.ld_reduce.relaxed.sys.global.add.acc::f32.v4.f16x2 {%r1, %r2, %r3, %r4}, [%rd1];"),
    ("multimem", "8.1", "sm_90", "multimem.st.relaxed.sys.global.v4.f32 [%rd1], {%f1, %f2, %f3, %f4};"),
    ("multimem", "8.1", "sm_90", "multimem.red.relaxed.sys.global.add.u32 [%rd1], %r1;"),
    ("red/atom", "7.0", "sm_80", "atom.global.add.u32 %r1, [%rd1], %r2;"),
    ("red/atom", "7.0", "sm_80", "atom.relaxed.gpu.global.cas.b32 %r1, [%rd1], %r2, %r3;"),
    ("red/atom", "7.0", "sm_80", "atom.acq_rel.cta.shared.exch.b64 %rd3, [%rd1], %rd2;"),
    ("red/atom", "7.8", "sm_90", "atom.release.cluster.shared::cluster.max.s32 %r1, [%r2], %r3;"),
    ("red/atom", "7.0", "sm_80", "atom.global.add.noftz.f16x2 %r1, [%rd1], %r2;"),
    ("red/atom", "7.0", "sm_80", "red.relaxed.gpu.global.add.s32 [%rd1], %r2;"),
    ("red/atom", "7.0", "sm_80", "red.shared.min.u64 [%r1], %rd2;"),
    ("red/atom", "7.8", "sm_90", "red.release.sys.global.add.f32 [%rd1], %f2;"),
    ("red/atom", "8.1", "sm_90",
     "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%r1], %r2, [%r3];"),
    ("cvt narrow floats", "7.8", "sm_89", "cvt.rn.satfinite.e4m3x2.f32 %h1, %f1, %f2;"),
    ("cvt narrow floats", "7.8", "sm_89", "cvt.rn.satfinite.relu.e5m2x2.f16x2 %h1, %r1;"),
    ("cvt narrow floats", "7.8", "sm_89", "cvt.rn.f16x2.e4m3x2 %r1, %h1;"),
    ("cvt narrow floats", "8.6", "sm_100a", "cvt.rn.satfinite.e2m1x2.f32 %rc1, %f1, %f2;"),
    ("cvt narrow floats", "8.6", "sm_100a", "cvt.rn.satfinite.e3m2x2.f32 %h1, %f1, %f2;"),
    ("cvt narrow floats", "8.6", "sm_100a", "cvt.rz.satfinite.ue8m0x2.f32 %h1, %f1, %f2;"),
    ("cvt narrow floats", "8.6", "sm_100a", "cvt.rn.bf16x2.ue8m0x2 %r1, %h1;"),
    ("ld/st", "7.0", "sm_80", "ld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd1];"),
    ("ld/st", "7.0", "sm_80", "ld.global.nc.L1::no_allocate.v2.f32 {%f1, %f2}, [%rd1];"),
    ("ld/st", "7.4", "sm_80", "ld.global.L2::cache_hint.b32 %r1, [%rd1], %rd2;"),
    ("ld/st", "7.4", "sm_80", "ld.global.L1::evict_last.L2::256B.b32 %r1, [%rd1];"),
    ("ld/st", "7.0", "sm_80", "ld.relaxed.gpu.global.u32 %r1, [%rd1];"),
    ("ld/st", "7.0", "sm_80", "ld.acquire.sys.global.b64 %rd2, [%rd1];"),
    ("ld/st", "7.0", "sm_80", "ld.volatile.shared.u16 %h1, [smem];"),
    ("ld/st", "8.8", "sm_100", "ld.global.v8.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, [%rd1];"),
    ("ld/st", "8.8", "sm_100", "ld.global.L2::evict_last.v4.b64 {%rd2, %rd3, %rd4, %rd5}, [%rd1];"),
    ("ld/st", "7.0", "sm_80", "st.global.v4.f32 [%rd1], {%f1, %f2, %f3, %f4};"),
    ("ld/st", "7.0", "sm_80", "st.release.gpu.global.u32 [%rd1], %r1;"),
    ("ld/st", "7.4", "sm_80", "st.global.L1::no_allocate.b32 [%rd1], %r1;"),
    ("ld/st", "7.0", "sm_80", "st.shared.cs.u64 [smem], %rd1;"),
    ("ld/st", "8.8", "sm_100", "st.global.v8.b32 [%rd1], {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8};"),
    ("wgmma", "8.2", "sm_90a",
     "wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, %r1, 0, %p1, 1, 1, 0, 0;"),
)


# Slots whose values decide the operands' count or register type: varying them makes an operand
# mismatch, which the operand generators of isa_cases.py cover; here they are only dropped.
FIXED_SLOTS: dict[str, frozenset[str]] = {
    "tcgen05.ld": frozenset({"shape", "num"}),
    "tcgen05.st": frozenset({"shape", "num"}),
    "tcgen05.ld.red": frozenset({"shape", "num", "type"}),
    "tcgen05.commit": frozenset({"multicast"}),
    "match": frozenset({"type"}),
    "vote": frozenset({"type"}),
    "redux": frozenset({"type"}),
    "mbarrier.arrive": frozenset({"space", "noComplete"}),
    "mbarrier.arrive_drop": frozenset({"space", "noComplete"}),
    "mbarrier.arrive.expect_tx": frozenset({"space"}),
    "mbarrier.test_wait": frozenset({"parity"}),
    "mbarrier.try_wait": frozenset({"parity"}),
    "fence.proxy.tensormap::generic": frozenset({"sem"}),
    "ldmatrix": frozenset({"shape", "num"}),
    "stmatrix": frozenset({"shape", "num"}),
    "wgmma.mma_async": frozenset({"shape", "type"}),
    "wgmma.mma_async.sp": frozenset({"shape", "type"}),
    "atom": frozenset({"op", "type", "vec", "hint"}),
    "red": frozenset({"type", "vec", "hint"}),
    "red.async": frozenset({"type", "completion", "space"}),
    "cvt": frozenset({"type"}),
    "ld": frozenset({"type", "vec", "hint"}),
    "st": frozenset({"type", "vec", "hint"}),
    "mma": frozenset({"shape", "type"}),
    "mma.sp": frozenset({"shape", "type"}),
    "wmma.load.a": frozenset({"shape", "type"}),
    "wmma.load.c": frozenset({"shape", "type"}),
    "wmma.store.d": frozenset({"shape", "type"}),
    "wmma.mma": frozenset({"shape", "type"}),
    "cp.async": frozenset({"hint", "cache"}),
    "cp.async.bulk": frozenset({"hint", "completion", "dst", "src", "multicast"}),
    "cp.async.bulk.tensor": frozenset({"hint", "dim", "completion", "dst", "src", "multicast", "load_mode"}),
    "cp.async.bulk.prefetch.tensor": frozenset({"dim", "hint", "load_mode"}),
    "st.async": frozenset({"vec", "type", "completion", "space"}),
    "barrier.red": frozenset({"op", "type"}),
    "barrier.cta.red": frozenset({"op", "type"}),
    "bar.red": frozenset({"op", "type"}),
    "tensormap.replace": frozenset({"field", "type", "space"}),
    "multimem.ld_reduce": frozenset({"vec", "type", "op"}),
    "multimem.st": frozenset({"vec", "type"}),
    "multimem.red": frozenset({"vec", "type", "op"}),
}


def _pool() -> tuple[str, ...]:
    values = {value for grammar in all_grammars() for slot in grammar.slots for value in slot.values}
    return tuple(sorted(values | set(COMMON_MODIFIERS)))


def _split(line: str) -> tuple[str, tuple[str, ...], str]:
    opcode, _, operands = line.partition(" ")
    base, *modifiers = opcode.rstrip(";").split(".")
    tail = (" " + operands) if operands else ";"
    return base, tuple(modifiers), tail


def _line(base: str, modifiers: tuple[str, ...], tail: str) -> str:
    return ".".join((base, *modifiers)) + tail


def _variants(base: str, modifiers: tuple[str, ...]) -> Iterator[tuple[str, ...]]:
    """The form with one slot varied, two slots varied, each modifier dropped, each foreign
    modifier added."""
    found = grammar_of(base, modifiers)
    if found is None:
        return
    grammar, words = found
    operation, qualifiers = modifiers[:words], list(modifiers[words:])
    slot_names = [slot.name for slot in grammar.slots]

    def placed(chosen: dict[str, str | None]) -> tuple[str, ...]:
        """The qualifiers with each slot in ``chosen`` set (None: dropped), in slot order."""
        by_slot: dict[str, list[str]] = {}
        loose = []
        for modifier in qualifiers:
            slot = grammar.slot_of(modifier)
            (by_slot.setdefault(slot.name, []) if slot else loose).append(modifier)
        result = []
        for name in slot_names:
            if name in chosen:
                if chosen[name] is not None:
                    result.append(chosen[name])
            else:
                result += by_slot.get(name, [])
        return (*operation, *result, *loose)

    fixed = FIXED_SLOTS.get(grammar.instruction, frozenset())

    def options(slot) -> list[str | None]:
        return [*slot.values[:8], None]

    varied = [slot for slot in grammar.slots if slot.name not in fixed]
    for slot in varied:
        for value in options(slot):
            yield placed({slot.name: value})
    for first, second in itertools.combinations(varied, 2):
        for a, b in itertools.product(options(first)[:5], options(second)[:5]):
            yield placed({first.name: a, second.name: b})
    for index, modifier in enumerate(qualifiers):
        slot = grammar.slot_of(modifier)
        if slot is None or slot.required or slot.name not in fixed:
            yield (*operation, *qualifiers[:index], *qualifiers[index + 1:])
    known = {value for slot in grammar.slots for value in slot.values}
    for foreign in _pool():
        if foreign not in known:
            yield (*operation, foreign, *qualifiers)
            yield (*operation, *qualifiers[:-1], foreign, *qualifiers[-1:]) if qualifiers else (*operation, foreign)


def form_cases() -> Iterator[Case]:
    for family, version, target, line in FORMS:
        base, modifiers, tail = _split(line)
        for header_version, header_target in valid_headers(BOUNDARY_VERSIONS, BOUNDARY_TARGETS):
            yield Case(family, header_version, header_target, line)
        for variant in _variants(base, modifiers):
            yield Case(family, version, target, _line(base, variant, tail))
