// wgmma_gemm_ws.cu -- Hopper warp-specialised BF16 GEMM with a producer
// warpgroup and two consumer warpgroups, 2-CTA cluster with TMA multicast.
//
// Exercises: wgmma.fence, wgmma.mma_async (m64n128k16 f32.bf16.bf16 with
// shared-memory descriptors, 64-register accumulators), wgmma.commit_group,
// wgmma.wait_group, setmaxnreg.dec / setmaxnreg.inc, TMA loads with
// .multicast::cluster and a CTA mask, mbarrier expect_tx / try_wait.parity,
// remote mbarrier arrive via mapa, barrier.cluster.arrive/wait, named barriers
// (bar.sync id, count), stmatrix.x4 into smem, fence.proxy.async and a TMA
// store with cp.async.bulk.commit_group / wait_group.read.  Uses
// __launch_bounds__ and __cluster_dims__ (.maxntid, .reqnctapercluster).
// Warp index: CUTLASS __shfl_sync idiom.
//
// corpus-arch: sm_90a
// corpus-variants: -lineinfo
#include <cuda_bf16.h>

#include "corpus_ptx.cuh"

namespace {

constexpr int kBlockM = 128;  // two consumer warpgroups x 64 rows
constexpr int kBlockN = 128;
constexpr int kBlockK = 64;
constexpr int kStages = 4;
constexpr int kClusterM = 2;  // CTAs along M share (multicast) the B tile
constexpr uint32_t kBytesA = kBlockM * kBlockK * 2;
constexpr uint32_t kBytesB = kBlockN * kBlockK * 2;

struct alignas(1024) Smem {
  __nv_bfloat16 a[kStages][kBlockM * kBlockK];
  __nv_bfloat16 b[kStages][kBlockN * kBlockK];
  __nv_bfloat16 c[kBlockM * kBlockN];
  uint64_t full_bar[kStages];
  uint64_t empty_bar[kStages];
};

__device__ __forceinline__ void wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}
__device__ __forceinline__ void wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}
template <int N>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}
template <uint32_t kRegs>
__device__ __forceinline__ void setmaxnreg_inc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(kRegs));
}
template <uint32_t kRegs>
__device__ __forceinline__ void setmaxnreg_dec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(kRegs));
}
// Named barrier over the 128 threads of one consumer warpgroup.
__device__ __forceinline__ void warpgroup_barrier(int id) {
  asm volatile("bar.sync %0, 128;" ::"r"(id) : "memory");
}

// Stores four 8x8 b16 matrices (one per lane octet's address).
__device__ __forceinline__ void stmatrix_x4(void* smem, uint32_t r0, uint32_t r1, uint32_t r2,
                                            uint32_t r3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(
                   corpus::smem_u32(smem)),
               "r"(r0), "r"(r1), "r"(r2), "r"(r3)
               : "memory");
}

template <int kTransA = 0, int kTransB = 0>
__device__ __forceinline__ void wgmma_m64n128k16_f32_bf16(float (&d)[64], uint64_t desc_a, uint64_t desc_b,
    uint32_t scale_d) {
  asm volatile(
      "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %66, 0;\n\t"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, p, 1, 1, %67, %68;\n\t}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(kTransA), "n"(kTransB));
}

__device__ __forceinline__ uint32_t pack_bf16(float lo, float hi) {
  __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<uint32_t*>(&v);
}

}  // namespace

__global__ void __cluster_dims__(kClusterM, 1, 1) __launch_bounds__(384, 1)
    gemm_bf16_wgmma_ws(const __grid_constant__ CUtensorMap tmap_a,
                       const __grid_constant__ CUtensorMap tmap_b,
                       const __grid_constant__ CUtensorMap tmap_c, int k) {
  extern __shared__ __align__(1024) uint8_t smem_raw[];
  Smem& ss = *reinterpret_cast<Smem*>(smem_raw);
  const int warp_idx = corpus::warp_idx_uniform();
  const int warpgroup = warp_idx / 4;
  const int lane = threadIdx.x % 32;
  const uint32_t cta_rank = corpus::cluster_ctarank();
  const int m0 = blockIdx.x * kBlockM;
  const int n0 = blockIdx.y * kBlockN;
  const int k_blocks = k / kBlockK;

  if (warp_idx == 0 && corpus::elect_one()) {
    for (int s = 0; s < kStages; ++s) {
      corpus::mbar_init(&ss.full_bar[s], 1);
      // Both consumer warpgroups of both CTAs must release a stage, because
      // the B half we multicast lands in the peer CTA too.
      corpus::mbar_init(&ss.empty_bar[s], 2 * kClusterM);
    }
    corpus::fence_mbarrier_init();
  }
  corpus::cluster_arrive_relaxed();
  corpus::cluster_wait();

  if (warpgroup == 0) {
    // ------------------------------------------------------------ producer
    setmaxnreg_dec<40>();
    if (warp_idx == 0 && corpus::elect_one()) {
      for (int kb = 0; kb < k_blocks; ++kb) {
        const int s = kb % kStages;
        corpus::mbar_wait(&ss.empty_bar[s], ((kb / kStages) & 1) ^ 1);
        corpus::mbar_arrive_expect_tx(&ss.full_bar[s], kBytesA + kBytesB);
        corpus::tma_load_2d(ss.a[s], &tmap_a, &ss.full_bar[s], kb * kBlockK, m0);
        // Each CTA fetches half of B and multicasts it to both CTAs.
        constexpr int kHalfN = kBlockN / kClusterM;
        corpus::tma_load_2d_multicast(ss.b[s] + cta_rank * kHalfN * kBlockK, &tmap_b,
                                      &ss.full_bar[s], kb * kBlockK, n0 + cta_rank * kHalfN,
                                      static_cast<uint16_t>((1u << kClusterM) - 1));
      }
    }
  } else {
    // ------------------------------------------------------------ consumers
    setmaxnreg_inc<232>();
    const int wg_row = (warpgroup - 1) * 64;  // this warpgroup's 64 rows
    float acc[64];
#pragma unroll
    for (int i = 0; i < 64; ++i) acc[i] = 0.f;
    for (int kb = 0; kb < k_blocks; ++kb) {
      const int s = kb % kStages;
      corpus::mbar_wait(&ss.full_bar[s], (kb / kStages) & 1);
      const uint64_t a_desc = corpus::make_wgmma_desc(ss.a[s] + wg_row * kBlockK, 16, 1024, 1);
      const uint64_t b_desc = corpus::make_wgmma_desc(ss.b[s], 16, 1024, 1);
      wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < kBlockK / 16; ++kk)
        wgmma_m64n128k16_f32_bf16(acc, a_desc + kk * 2, b_desc + kk * 2, 1);
      wgmma_commit();
      // Keep one wgmma batch in flight; release the previous stage.
      wgmma_wait<1>();
      if (kb > 0 && warp_idx % 4 == 0 && corpus::elect_one()) {
        const int prev = (kb - 1) % kStages;
        for (uint32_t r = 0; r < kClusterM; ++r) corpus::mbar_arrive_cluster(&ss.empty_bar[prev], r);
      }
    }
    wgmma_wait<0>();
    // Epilogue: registers -> smem (stmatrix) -> global (TMA store).
    const int warp_in_wg = warp_idx % 4;
#pragma unroll
    for (int j = 0; j < kBlockN / 16; ++j) {
      const float* f = &acc[j * 8];
      const int row = wg_row + warp_in_wg * 16 + (lane % 16);
      const int col = j * 16 + (lane / 16) * 8;
      stmatrix_x4(&ss.c[row * kBlockN + col], pack_bf16(f[0], f[1]), pack_bf16(f[2], f[3]),
                  pack_bf16(f[4], f[5]), pack_bf16(f[6], f[7]));
    }
    corpus::fence_proxy_async_smem();
    warpgroup_barrier(warpgroup);
    if (warp_in_wg == 0 && lane == 0) {
      corpus::tma_store_2d(&tmap_c, &ss.c[wg_row * kBlockN], n0, m0 + wg_row);
      corpus::bulk_commit_group();
      corpus::bulk_wait_group_read<0>();
    }
  }
  // No CTA may exit while its peer can still multicast into it.
  corpus::cluster_arrive();
  corpus::cluster_wait();
}
