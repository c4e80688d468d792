// tcgen05_cta_pair.cu -- 2-SM (CTA pair) Blackwell GEMM, .cta_group::2
// throughout.
//
// Exercises: a 2-CTA cluster (__cluster_dims__ -> .reqnctapercluster) whose
// even CTA issues tcgen05.mma.cta_group::2 (M = 256 spread over both CTAs'
// Tensor Memory), tcgen05.alloc / relinquish_alloc_permit / dealloc with
// .cta_group::2 performed by one warp in each peer CTA,
// tcgen05.commit.cta_group::2 ... .multicast::cluster with a CTA mask,
// TMA loads with .cta_group::2 signalling the leader CTA's mbarrier through a
// mapa-translated shared::cluster address, remote mbarrier arrives,
// barrier.cluster.arrive / wait (relaxed and release/acquire),
// tcgen05.cp.cta_group::2 and tcgen05.shift.cta_group::2, the disable-output-lane
// vector of 8 registers that .cta_group::2 takes, and the epilogue with
// tcgen05.ld at lane offset ((warp_idx % 4) * 32) << 16.
// Warp index: CUTLASS __shfl_sync idiom.
//
// corpus-arch: sm_100a
#include <cuda_bf16.h>

#include "corpus_ptx.cuh"

namespace {

constexpr int kPairM = 256;    // rows per MMA over the CTA pair
constexpr int kCtaM = 128;     // rows held by each CTA
constexpr int kN = 256;        // MMA N; each CTA loads kN / 2 rows of B
constexpr int kBlockK = 64;    // bf16 elements per stage (128 bytes)
constexpr int kStages = 3;
constexpr uint32_t kTmemCols = 256;
constexpr uint32_t kStageBytesPerCta = (kCtaM + kN / 2) * kBlockK * 2;
constexpr uint16_t kPairMask = 0b11;

struct alignas(1024) PairSmem {
  __nv_bfloat16 a[kStages][kCtaM * kBlockK];
  __nv_bfloat16 b[kStages][(kN / 2) * kBlockK];
  uint8_t bias_rows[128 * 32];
  uint64_t full_bar[kStages];   // used in the leader CTA only
  uint64_t empty_bar[kStages];  // in both CTAs (multicast commit)
  uint64_t tmem_full_bar;       // in both CTAs (multicast commit)
  uint64_t epi_done_bar;        // leader: both CTAs' epilogues finished
  uint32_t tmem_base;
};

// ---------------------------------------------- .cta_group::2 TMEM wrappers
__device__ __forceinline__ void tmem_alloc_pair(uint32_t* dst, uint32_t ncols) {
  asm volatile("tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%0], %1;" ::"r"(
                   corpus::smem_u32(dst)),
               "r"(ncols)
               : "memory");
}
__device__ __forceinline__ void tmem_relinquish_pair() {
  asm volatile("tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;" ::: "memory");
}
__device__ __forceinline__ void tmem_dealloc_pair(uint32_t taddr, uint32_t ncols) {
  asm volatile("tcgen05.dealloc.cta_group::2.sync.aligned.b32 %0, %1;" ::"r"(taddr), "r"(ncols)
               : "memory");
}
__device__ __forceinline__ void fence_before() {
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
}
__device__ __forceinline__ void fence_after() {
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
}
__device__ __forceinline__ void commit_pair_multicast(uint64_t* bar, uint16_t mask) {
  asm volatile(
      "tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64"
      " [%0], %1;" ::"r"(corpus::smem_u32(bar)),
      "h"(mask)
      : "memory");
}
__device__ __forceinline__ void umma_pair(uint32_t d, uint64_t a, uint64_t b, uint32_t idesc,
                                          uint32_t acc) {
  asm volatile(
      "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %4, 0;\n\t"
      "tcgen05.mma.cta_group::2.kind::f16 [%0], %1, %2, %3, p;\n\t}" ::"r"(d),
      "l"(a), "l"(b), "r"(idesc), "r"(acc)
      : "memory");
}
// Same MMA with every TMEM lane of both CTAs enabled except those in
// `masked`, as the 8 x 32-bit disable-output-lane vector.
__device__ __forceinline__ void umma_pair_masked(uint32_t d, uint64_t a, uint64_t b,
                                                 uint32_t idesc, const uint32_t (&masked)[8]) {
  asm volatile(
      "tcgen05.mma.cta_group::2.kind::f16 [%0], %1, %2, %3, "
      "{%4, %5, %6, %7, %8, %9, %10, %11}, 1;" ::"r"(d),
      "l"(a), "l"(b), "r"(idesc), "r"(masked[0]), "r"(masked[1]), "r"(masked[2]), "r"(masked[3]),
      "r"(masked[4]), "r"(masked[5]), "r"(masked[6]), "r"(masked[7])
      : "memory");
}

// TMA load whose completion is signalled on the leader CTA's mbarrier.
__device__ __forceinline__ void tma_load_pair(void* dst, const CUtensorMap* map,
                                              uint32_t leader_bar, int32_t c0, int32_t c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.cta_group::2.shared::cluster.global.tile"
      ".mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];" ::"r"(corpus::smem_u32(dst)),
      "l"(map), "r"(leader_bar), "r"(c0), "r"(c1)
      : "memory");
}

__device__ __forceinline__ uint32_t map_to_cta(const void* p, uint32_t rank) {
  uint32_t out;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(out) : "r"(corpus::smem_u32(p)), "r"(rank));
  return out;
}

__device__ __forceinline__ void tmem_ld_32x32b_x32(uint32_t taddr, uint32_t (&r)[32]) {
  asm volatile("tcgen05.ld.sync.aligned.32x32b.x32.b32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, [%32];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7]),
                 "=r"(r[8]), "=r"(r[9]), "=r"(r[10]), "=r"(r[11]), "=r"(r[12]), "=r"(r[13]), "=r"(r[14]), "=r"(r[15]),
                 "=r"(r[16]), "=r"(r[17]), "=r"(r[18]), "=r"(r[19]), "=r"(r[20]), "=r"(r[21]), "=r"(r[22]), "=r"(r[23]),
                 "=r"(r[24]), "=r"(r[25]), "=r"(r[26]), "=r"(r[27]), "=r"(r[28]), "=r"(r[29]), "=r"(r[30]), "=r"(r[31])
               : "r"(taddr));
}

}  // namespace

__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(256, 1)
    gemm_bf16_cta_pair(const __grid_constant__ CUtensorMap tmap_a,
                       const __grid_constant__ CUtensorMap tmap_b, float* __restrict__ c, int n,
                       int k, int valid_rows) {
  extern __shared__ __align__(1024) uint8_t smem_raw[];
  PairSmem& ss = *reinterpret_cast<PairSmem*>(smem_raw);
  const int warp_idx = corpus::warp_idx_uniform();
  const int lane = threadIdx.x % 32;
  const uint32_t rank = corpus::cluster_ctarank();
  const bool is_leader_cta = rank == 0;
  const int pair_m = (blockIdx.x / 2) * kPairM;  // rows of this CTA pair
  const int k_blocks = k / kBlockK;

  if (warp_idx == 0 && corpus::elect_one()) {
    for (int s = 0; s < kStages; ++s) {
      corpus::mbar_init(&ss.full_bar[s], 1);
      corpus::mbar_init(&ss.empty_bar[s], 1);
    }
    corpus::mbar_init(&ss.tmem_full_bar, 1);
    corpus::mbar_init(&ss.epi_done_bar, 2 * 4);  // 4 epilogue warps per CTA
    corpus::fence_mbarrier_init();
  }
  if (warp_idx == 0) {
    tmem_alloc_pair(&ss.tmem_base, kTmemCols);  // one warp in each peer CTA
    tmem_relinquish_pair();
  }
  // Barrier inits and the TMEM address must be visible cluster-wide before
  // the peer CTA signals our barriers.
  fence_before();
  corpus::cluster_arrive_relaxed();
  corpus::cluster_wait();
  fence_after();
  const uint32_t tmem = ss.tmem_base;

  if (warp_idx == 1) {
    // ------------------------------------------ producer (both CTAs)
    if (corpus::elect_one()) {
      for (int kb = 0; kb < k_blocks; ++kb) {
        const int s = kb % kStages;
        corpus::mbar_wait(&ss.empty_bar[s], ((kb / kStages) & 1) ^ 1);
        if (is_leader_cta)
          corpus::mbar_arrive_expect_tx(&ss.full_bar[s], 2 * kStageBytesPerCta);
        const uint32_t leader_full = map_to_cta(&ss.full_bar[s], 0);
        tma_load_pair(ss.a[s], &tmap_a, leader_full, kb * kBlockK, pair_m + rank * kCtaM);
        tma_load_pair(ss.b[s], &tmap_b, leader_full, kb * kBlockK,
                      blockIdx.y * kN + rank * (kN / 2));
      }
    }
  } else if (warp_idx == 0 && is_leader_cta) {
    // ------------------------------------------ MMA (leader CTA only)
    constexpr uint32_t kIdesc = corpus::make_umma_idesc(1, 1, 1, kPairM, kN);
    const bool leader = corpus::elect_one();
    uint32_t masked[8];
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const int first_row = (i / 4) * kCtaM + (i % 4) * 32;  // lanes of CTA i/4
      const int live = valid_rows - pair_m - first_row;
      masked[i] = live >= 32 ? 0u : (live <= 0 ? ~0u : ~((1u << live) - 1u));
    }
    for (int kb = 0; kb < k_blocks; ++kb) {
      const int s = kb % kStages;
      corpus::mbar_wait(&ss.full_bar[s], (kb / kStages) & 1);
      fence_after();
      if (leader) {
        const uint64_t a_desc = corpus::make_umma_desc(ss.a[s], 16, 1024, 2);
        const uint64_t b_desc = corpus::make_umma_desc(ss.b[s], 16, 1024, 2);
#pragma unroll
        for (int kk = 0; kk < kBlockK / 16; ++kk) {
          if (kb == k_blocks - 1 && kk == kBlockK / 16 - 1)
            umma_pair_masked(tmem, a_desc + kk * 2, b_desc + kk * 2, kIdesc, masked);
          else
            umma_pair(tmem, a_desc + kk * 2, b_desc + kk * 2, kIdesc, (kb | kk) != 0);
        }
        // Free the stage in both CTAs.
        commit_pair_multicast(&ss.empty_bar[s], kPairMask);
      }
      __syncwarp();
    }
    if (leader) commit_pair_multicast(&ss.tmem_full_bar, kPairMask);
    __syncwarp();
  } else if (warp_idx >= 4) {
    // ------------------------------------------ epilogue (both CTAs)
    const uint32_t quadrant = warp_idx % 4;
    corpus::mbar_wait(&ss.tmem_full_bar, 0);
    fence_after();
    const int row = pair_m + rank * kCtaM + quadrant * 32 + lane;
    for (int col = 0; col < kN; col += 32) {
      uint32_t v[32];
      tmem_ld_32x32b_x32(tmem + ((quadrant * 32) << 16) + col, v);
      asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
      float4* dst = reinterpret_cast<float4*>(c + static_cast<size_t>(row) * n + blockIdx.y * kN + col);
#pragma unroll
      for (int i = 0; i < 8; ++i)
        dst[i] = make_float4(__uint_as_float(v[4 * i]), __uint_as_float(v[4 * i + 1]),
                             __uint_as_float(v[4 * i + 2]), __uint_as_float(v[4 * i + 3]));
    }
    fence_before();
    __syncwarp();
    if (lane == 0) corpus::mbar_arrive_cluster(&ss.epi_done_bar, 0);
  }

  // Leader CTA: once both epilogues are done, reuse the first 32 columns as
  // a rolling bias window -- copy 128 rows in, shift them down by one lane.
  if (is_leader_cta && warp_idx == 0) {
    corpus::mbar_wait(&ss.epi_done_bar, 0);
    fence_after();
    if (corpus::elect_one()) {
      asm volatile("tcgen05.cp.cta_group::2.128x256b [%0], %1;" ::"r"(tmem),
                   "l"(corpus::make_umma_desc(ss.bias_rows, 128, 256, 0))
                   : "memory");
      asm volatile("tcgen05.shift.cta_group::2.down [%0];" ::"r"(tmem) : "memory");
      commit_pair_multicast(&ss.tmem_full_bar, kPairMask);
    }
    __syncwarp();
  }
  // The second multicast commit completes phase 1 of tmem_full_bar in both CTAs.
  if (warp_idx == 0) corpus::mbar_wait(&ss.tmem_full_bar, 1);

  // Teardown: both CTAs must be done with the pair's TMEM before either
  // warp 0 deallocates.
  fence_before();
  corpus::cluster_arrive();
  corpus::cluster_wait();
  if (warp_idx == 0) {
    fence_after();
    tmem_dealloc_pair(tmem, kTmemCols);
  }
}
