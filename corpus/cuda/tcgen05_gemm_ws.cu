// tcgen05_gemm_ws.cu -- Blackwell warp-specialised, persistent BF16 GEMM
// (C = A * B^T, fp32 accumulation in Tensor Memory), .cta_group::1 throughout.
//
// Exercises: tcgen05.alloc / relinquish_alloc_permit / dealloc with the TMEM
// address published through shared memory, tcgen05.mma.kind::f16 with
// shared-memory descriptors, tcgen05.commit to mbarriers, the
// fence::before_thread_sync / after_thread_sync pairs around thread
// synchronisation, tcgen05.ld.32x32b.x32 + tcgen05.wait::ld in the epilogue at
// lane offset ((warp_idx % 4) * 32) << 16, TMA 2-D loads with
// mbarrier::complete_tx::bytes, elect.sync, a 4-stage smem pipeline, a
// double-buffered accumulator, __launch_bounds__ (.maxntid/.minnctapersm) and
// the CUTLASS-style warp-uniform warp index (__shfl_sync of threadIdx.x / 32).
//
// Roles (8 warps): warp 0 = TMEM owner + MMA issuer, warp 1 = TMA producer,
// warps 2-3 idle, warps 4-7 = epilogue (one TMEM lane quadrant each).
//
// corpus-arch: sm_100a
// corpus-variants: -lineinfo
#include <cuda_bf16.h>

#include "corpus_ptx.cuh"
#include "tcgen05_cta1.cuh"

namespace {

using namespace corpus::tc1;

constexpr int kBlockM = 128;
constexpr int kBlockN = 128;
constexpr int kBlockK = 64;  // one 128-byte swizzle atom of bf16 along K
constexpr int kUmmaK = 16;   // K of one kind::f16 MMA
constexpr int kStages = 4;
constexpr int kAccumStages = 2;
constexpr uint32_t kTmemCols = kBlockN * kAccumStages;  // 256 fp32 columns
constexpr uint32_t kTileBytesA = kBlockM * kBlockK * sizeof(__nv_bfloat16);
constexpr uint32_t kTileBytesB = kBlockN * kBlockK * sizeof(__nv_bfloat16);
constexpr int kEpilogueWarpBase = 4;
constexpr int kNumEpilogueWarps = 4;

struct alignas(1024) SharedStorage {
  __nv_bfloat16 a[kStages][kBlockM * kBlockK];
  __nv_bfloat16 b[kStages][kBlockN * kBlockK];
  uint64_t full_bar[kStages];    // TMA -> MMA: stage landed
  uint64_t empty_bar[kStages];   // MMA -> TMA: stage consumed (tcgen05.commit)
  uint64_t tmem_full_bar[kAccumStages];   // MMA -> epilogue
  uint64_t tmem_empty_bar[kAccumStages];  // epilogue -> MMA
  uint32_t tmem_base;            // written by tcgen05.alloc
};

// D[tmem] (+)= A[smem] * B[smem]; `accumulate` selects enable-input-d.
__device__ __forceinline__ void umma_bf16(uint32_t d_tmem, uint64_t a_desc, uint64_t b_desc,
                                          uint32_t idesc, uint32_t accumulate) {
  asm volatile(
      "{\n\t.reg .pred p_acc;\n\t"
      "setp.ne.b32 p_acc, %4, 0;\n\t"
      "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p_acc;\n\t}" ::"r"(d_tmem),
      "l"(a_desc), "l"(b_desc), "r"(idesc), "r"(accumulate)
      : "memory");
}

__device__ __forceinline__ uint32_t pack_bf16x2(uint32_t lo_bits, uint32_t hi_bits) {
  __nv_bfloat162 v = __floats2bfloat162_rn(__uint_as_float(lo_bits), __uint_as_float(hi_bits));
  return *reinterpret_cast<uint32_t*>(&v);
}

}  // namespace

__global__ void __launch_bounds__(256, 1)
    gemm_bf16_tcgen05_ws(const __grid_constant__ CUtensorMap tmap_a,
                         const __grid_constant__ CUtensorMap tmap_b, __nv_bfloat16* __restrict__ c,
                         int m, int n, int k) {
  extern __shared__ __align__(1024) uint8_t smem_raw[];
  SharedStorage& ss = *reinterpret_cast<SharedStorage*>(smem_raw);

  const int warp_idx = corpus::warp_idx_uniform();
  const int lane = threadIdx.x % 32;
  const int tiles_n = n / kBlockN;
  const int num_tiles = (m / kBlockM) * tiles_n;
  const int k_blocks = k / kBlockK;

  // ---- setup: barriers + TMEM allocation (warp 0), descriptor prefetch (warp 1)
  if (warp_idx == 0) {
    if (corpus::elect_one()) {
      for (int s = 0; s < kStages; ++s) {
        corpus::mbar_init(&ss.full_bar[s], 1);
        corpus::mbar_init(&ss.empty_bar[s], 1);
      }
      for (int s = 0; s < kAccumStages; ++s) {
        corpus::mbar_init(&ss.tmem_full_bar[s], 1);
        corpus::mbar_init(&ss.tmem_empty_bar[s], kNumEpilogueWarps);
      }
      corpus::fence_mbarrier_init();
    }
    __syncwarp();
    tmem_alloc(&ss.tmem_base, kTmemCols);  // whole warp, writes the address to smem
    tmem_relinquish_alloc_permit();
  } else if (warp_idx == 1) {
    if (corpus::elect_one()) {
      corpus::tma_prefetch_desc(&tmap_a);
      corpus::tma_prefetch_desc(&tmap_b);
    }
  }
  // Publish the TMEM base address and the initialised barriers to all warps.
  fence_before_thread_sync();
  __syncthreads();
  fence_after_thread_sync();
  const uint32_t tmem_base = ss.tmem_base;

  if (warp_idx == 1) {
    // ------------------------------------------------------ TMA producer
    if (corpus::elect_one()) {
      int stage = 0;
      uint32_t phase = 0;
      for (int tile = blockIdx.x; tile < num_tiles; tile += gridDim.x) {
        const int tile_m = tile / tiles_n;
        const int tile_n = tile % tiles_n;
        for (int kb = 0; kb < k_blocks; ++kb) {
          corpus::mbar_wait(&ss.empty_bar[stage], phase ^ 1);
          corpus::mbar_arrive_expect_tx(&ss.full_bar[stage], kTileBytesA + kTileBytesB);
          corpus::tma_load_2d(ss.a[stage], &tmap_a, &ss.full_bar[stage], kb * kBlockK,
                              tile_m * kBlockM);
          corpus::tma_load_2d(ss.b[stage], &tmap_b, &ss.full_bar[stage], kb * kBlockK,
                              tile_n * kBlockN);
          if (++stage == kStages) {
            stage = 0;
            phase ^= 1;
          }
        }
      }
    }
  } else if (warp_idx == 0) {
    // ------------------------------------------------------ MMA issuer
    constexpr uint32_t kIdesc = corpus::make_umma_idesc(/*F32*/ 1, /*BF16*/ 1, /*BF16*/ 1,
                                                        kBlockM, kBlockN);
    const bool leader = corpus::elect_one();
    int stage = 0;
    uint32_t phase = 0;
    int accum = 0;
    uint32_t accum_phase = 0;
    for (int tile = blockIdx.x; tile < num_tiles; tile += gridDim.x) {
      // Wait until the epilogue has drained this accumulator buffer.
      corpus::mbar_wait(&ss.tmem_empty_bar[accum], accum_phase ^ 1);
      fence_after_thread_sync();
      const uint32_t d_tmem = tmem_base + accum * kBlockN;
      for (int kb = 0; kb < k_blocks; ++kb) {
        corpus::mbar_wait(&ss.full_bar[stage], phase);
        fence_after_thread_sync();
        if (leader) {
          // K-major, 128B-swizzled tiles: 8 rows x 128 B per swizzle atom, so
          // the stride between 8-row groups is 1024 B; stepping K by 16 bf16
          // elements moves the start address by 32 B inside the atom.
          const uint64_t a_desc = corpus::make_umma_desc(ss.a[stage], 16, 1024, 2);
          const uint64_t b_desc = corpus::make_umma_desc(ss.b[stage], 16, 1024, 2);
#pragma unroll
          for (int kk = 0; kk < kBlockK / kUmmaK; ++kk) {
            const uint64_t step = (kk * kUmmaK * sizeof(__nv_bfloat16)) >> 4;
            umma_bf16(d_tmem, a_desc + step, b_desc + step, kIdesc, (kb | kk) != 0);
          }
          commit(&ss.empty_bar[stage]);  // frees the smem stage for TMA
        }
        __syncwarp();
        if (++stage == kStages) {
          stage = 0;
          phase ^= 1;
        }
      }
      if (leader) commit(&ss.tmem_full_bar[accum]);  // accumulator ready
      __syncwarp();
      if (++accum == kAccumStages) {
        accum = 0;
        accum_phase ^= 1;
      }
    }
  } else if (warp_idx >= kEpilogueWarpBase) {
    // ------------------------------------------------------ epilogue
    // A warp may only touch the TMEM lane quadrant (warp_idx % 4) * 32.
    const uint32_t quadrant = warp_idx % 4;
    const uint32_t lane_offset = (quadrant * 32) << 16;
    int accum = 0;
    uint32_t accum_phase = 0;
    for (int tile = blockIdx.x; tile < num_tiles; tile += gridDim.x) {
      const int row = (tile / tiles_n) * kBlockM + quadrant * 32 + lane;
      const int col0 = (tile % tiles_n) * kBlockN;
      corpus::mbar_wait(&ss.tmem_full_bar[accum], accum_phase);
      fence_after_thread_sync();
      const uint32_t tmem_acc = tmem_base + lane_offset + accum * kBlockN;
#pragma unroll 1
      for (int chunk = 0; chunk < kBlockN; chunk += 32) {
        uint32_t v[32];
        tmem_ld_32x32b_x32(tmem_acc + chunk, v);
        wait_ld();
        uint32_t packed[16];
#pragma unroll
        for (int i = 0; i < 16; ++i) packed[i] = pack_bf16x2(v[2 * i], v[2 * i + 1]);
        uint4* dst = reinterpret_cast<uint4*>(c + static_cast<size_t>(row) * n + col0 + chunk);
#pragma unroll
        for (int i = 0; i < 4; ++i)
          dst[i] = make_uint4(packed[4 * i], packed[4 * i + 1], packed[4 * i + 2], packed[4 * i + 3]);
      }
      // Order our TMEM reads before the MMA warp reuses the buffer.
      fence_before_thread_sync();
      __syncwarp();
      if (lane == 0) corpus::mbar_arrive(&ss.tmem_empty_bar[accum]);
      if (++accum == kAccumStages) {
        accum = 0;
        accum_phase ^= 1;
      }
    }
  }

  // ---- teardown: everyone is done with TMEM before warp 0 frees it.
  fence_before_thread_sync();
  __syncthreads();
  if (warp_idx == 0) {
    fence_after_thread_sync();
    tmem_dealloc(tmem_base, kTmemCols);
  }
}
