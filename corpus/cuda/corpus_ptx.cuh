// Shared inline-PTX helpers for the ptxlint regression corpus.
//
// Small wrappers around the PTX instructions that several corpus kernels use
// (shared-memory addresses, elect.sync, mbarriers, TMA, fences, cluster
// barriers, shared-memory matrix descriptors).  Written for this corpus; every
// wrapper is a plain `asm volatile` so the PTX that nvcc emits contains the
// instruction text exactly as a hand-written production kernel would.
//
// Build scripts hash this header into the cache key of every CUDA source, so
// editing it rebuilds the whole CUDA part of the corpus.
#pragma once

#include <cstdint>
#include <cuda.h>  // CUtensorMap (a 128-byte opaque, 64-byte aligned struct)

namespace corpus {

// 32-bit shared-window address of a generic pointer into shared memory.
__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// Warp index that the compiler can prove is warp-uniform: broadcasting lane
// 0's value makes every later branch on it non-divergent (the CUTLASS idiom).
__device__ __forceinline__ int warp_idx_uniform() {
  return __shfl_sync(0xffffffffu, static_cast<int>(threadIdx.x / 32), 0);
}

// elect.sync: true in exactly one active lane of the full warp.
__device__ __forceinline__ bool elect_one() {
  uint32_t is_leader = 0;
  asm volatile(
      "{\n\t.reg .pred p_elect;\n\t"
      "elect.sync _|p_elect, 0xffffffff;\n\t"
      "selp.u32 %0, 1, 0, p_elect;\n\t}"
      : "=r"(is_leader));
  return is_leader != 0;
}

// ---------------------------------------------------------------- mbarrier
__device__ __forceinline__ void mbar_init(uint64_t* bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(bar)), "r"(count)
               : "memory");
}

// Makes mbarrier.init visible to the async proxy (TMA, tcgen05) and to the
// other CTAs of the cluster.
__device__ __forceinline__ void fence_mbarrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

__device__ __forceinline__ void mbar_arrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_u32(bar)) : "memory");
}

__device__ __forceinline__ void mbar_arrive_expect_tx(uint64_t* bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_u32(bar)),
               "r"(bytes)
               : "memory");
}

// Arrive on the barrier at the same offset in another CTA of the cluster.
__device__ __forceinline__ void mbar_arrive_cluster(uint64_t* bar, uint32_t cta_rank) {
  asm volatile(
      "{\n\t.reg .b32 remote_bar;\n\t"
      "mapa.shared::cluster.u32 remote_bar, %0, %1;\n\t"
      "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [remote_bar];\n\t}"
      ::"r"(smem_u32(bar)), "r"(cta_rank)
      : "memory");
}

__device__ __forceinline__ bool mbar_try_wait(uint64_t* bar, uint32_t phase) {
  uint32_t done;
  asm volatile(
      "{\n\t.reg .pred p_done;\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 p_done, [%1], %2;\n\t"
      "selp.u32 %0, 1, 0, p_done;\n\t}"
      : "=r"(done)
      : "r"(smem_u32(bar)), "r"(phase)
      : "memory");
  return done != 0;
}

// Spin until the barrier's phase with the given parity has completed.
__device__ __forceinline__ void mbar_wait(uint64_t* bar, uint32_t phase) {
  while (!mbar_try_wait(bar, phase)) {
  }
}

// ---------------------------------------------------------------- fences
__device__ __forceinline__ void fence_proxy_async_smem() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

// ---------------------------------------------------------------- TMA
__device__ __forceinline__ void tma_prefetch_desc(const CUtensorMap* map) {
  asm volatile("prefetch.tensormap [%0];" ::"l"(map) : "memory");
}

__device__ __forceinline__ void tma_load_2d(void* smem_dst, const CUtensorMap* map,
                                            uint64_t* bar, int32_t c0, int32_t c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4}], [%2];" ::"r"(smem_u32(smem_dst)),
      "l"(map), "r"(smem_u32(bar)), "r"(c0), "r"(c1)
      : "memory");
}

__device__ __forceinline__ void tma_load_2d_multicast(void* smem_dst, const CUtensorMap* map,
                                                      uint64_t* bar, int32_t c0, int32_t c1,
                                                      uint16_t cta_mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      ".multicast::cluster [%0], [%1, {%3, %4}], [%2], %5;" ::"r"(smem_u32(smem_dst)),
      "l"(map), "r"(smem_u32(bar)), "r"(c0), "r"(c1), "h"(cta_mask)
      : "memory");
}

__device__ __forceinline__ void tma_store_2d(const CUtensorMap* map, const void* smem_src,
                                             int32_t c0, int32_t c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%2, %3}], [%1];" ::"l"(
          map),
      "r"(smem_u32(smem_src)), "r"(c0), "r"(c1)
      : "memory");
}

__device__ __forceinline__ void bulk_commit_group() {
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}

template <int N>
__device__ __forceinline__ void bulk_wait_group_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
}

// ---------------------------------------------------------------- clusters
__device__ __forceinline__ void cluster_arrive_relaxed() {
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
}
__device__ __forceinline__ void cluster_arrive() {
  asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
}
__device__ __forceinline__ void cluster_wait() {
  asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
}
__device__ __forceinline__ void cluster_sync() {
  cluster_arrive();
  cluster_wait();
}
__device__ __forceinline__ uint32_t cluster_ctarank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}

// ------------------------------------------------- matrix descriptors
// Hopper (wgmma) shared-memory matrix descriptor: start/LBO/SBO in 16-byte
// units, swizzle mode in bits 62..63 (1 = 128B, 2 = 64B, 3 = 32B).
__device__ __forceinline__ uint64_t make_wgmma_desc(const void* smem, uint32_t lbo_bytes,
                                                    uint32_t sbo_bytes, uint32_t swizzle) {
  uint64_t desc = 0;
  desc |= static_cast<uint64_t>((smem_u32(smem) & 0x3FFFF) >> 4);
  desc |= static_cast<uint64_t>((lbo_bytes >> 4) & 0x3FFF) << 16;
  desc |= static_cast<uint64_t>((sbo_bytes >> 4) & 0x3FFF) << 32;
  desc |= static_cast<uint64_t>(swizzle & 0x3) << 62;
  return desc;
}

// Blackwell (tcgen05/UMMA) shared-memory descriptor: same address fields,
// version 1 in bits 46..47, 3-bit layout type in bits 61..63
// (2 = 128B swizzle, 4 = 64B, 6 = 32B, 0 = interleaved/no swizzle).
__device__ __forceinline__ uint64_t make_umma_desc(const void* smem, uint32_t lbo_bytes,
                                                   uint32_t sbo_bytes, uint32_t layout) {
  uint64_t desc = 0;
  desc |= static_cast<uint64_t>((smem_u32(smem) & 0x3FFFF) >> 4);
  desc |= static_cast<uint64_t>((lbo_bytes >> 4) & 0x3FFF) << 16;
  desc |= static_cast<uint64_t>((sbo_bytes >> 4) & 0x3FFF) << 32;
  desc |= 1ull << 46;
  desc |= static_cast<uint64_t>(layout & 0x7) << 61;
  return desc;
}

// tcgen05 instruction descriptor for kind::f16 / kind::tf32 / kind::f8f6f4 /
// kind::i8: D format in bits 4..5, A/B formats in 7..9 / 10..12, K-major
// operands (transpose bits 15/16 clear), N>>3 in 17..22, M>>4 in 24..28.
__host__ __device__ constexpr uint32_t make_umma_idesc(uint32_t d_fmt, uint32_t a_fmt,
                                                       uint32_t b_fmt, uint32_t m,
                                                       uint32_t n) {
  return (d_fmt << 4) | (a_fmt << 7) | (b_fmt << 10) | ((n >> 3) << 17) | ((m >> 4) << 24);
}

}  // namespace corpus
