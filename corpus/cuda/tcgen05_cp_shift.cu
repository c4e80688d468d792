// tcgen05_cp_shift.cu -- shared-memory -> Tensor Memory copies and the TMEM
// row shift on sm_100a, .cta_group::1 throughout.
//
// Exercises: tcgen05.cp in every shape with the multicast each one requires
// (.128x256b, .4x256b, .128x128b, .64x128b.warpx2::02_13,
// .64x128b.warpx2::01_23, .32x128b.warpx4) and the decompressing forms
// (.b8x16.b6x16_p32, .b8x16.b4x16_p64), tcgen05.shift.down, tcgen05.commit
// tracking both, and tcgen05.ld.32x32b readback.  Also the non-tensor bulk
// copy cp.async.bulk.shared::cta.global with an mbarrier.
// Warp index: plain threadIdx.x / 32.
//
// corpus-arch: sm_100a
#include "tcgen05_cta1.cuh"

namespace {

using namespace corpus::tc1;

// Source tiles in smem.  The descriptor layout is "no swizzle"
// (8 rows x 16 B core matrices); each tile has its own region.
struct alignas(1024) StageSmem {
  uint8_t tile_128x256b[128 * 32];
  uint8_t tile_128x128b[128 * 16];
  uint8_t tile_64x128b[64 * 16];
  uint8_t tile_32x128b[32 * 16];
  uint8_t tile_4x256b[4 * 32];
  uint8_t packed_fp6[128 * 24];  // 16 x 6-bit values + 32 bits padding per 128 bits
  uint8_t packed_fp4[128 * 16];  // 16 x 4-bit values + 64 bits padding per 128 bits
  uint64_t load_bar;
  uint64_t cp_bar;
  uint32_t tmem_base;
};

__device__ __forceinline__ void bulk_load(void* dst, const void* src, uint32_t bytes,
                                          uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
          corpus::smem_u32(dst)),
      "l"(src), "r"(bytes), "r"(corpus::smem_u32(bar))
      : "memory");
}

__device__ __forceinline__ uint64_t desc(const void* p, uint32_t lbo, uint32_t sbo) {
  return corpus::make_umma_desc(p, lbo, sbo, /*no swizzle*/ 0);
}

}  // namespace

// TMEM column map: [0,8) 128x256b, [8,12) 128x128b, [12,16) 64x128b 02_13,
// [16,20) 64x128b 01_23, [20,24) 32x128b warpx4, [24,32) 4x256b,
// [32,40) fp6 -> b8x16, [40,48) fp4 -> b8x16, [48,52) fp4 via 128x128b,
// [52,56) fp6 via 64x128b, [56,60) fp4 via 32x128b warpx4, [60,64) fp6 4x256b.
__global__ void __launch_bounds__(128) tmem_stage_tiles(const uint8_t* __restrict__ src,
                                                        uint32_t* __restrict__ out,
                                                        int shift_rows) {
  extern __shared__ __align__(1024) uint8_t smem_raw[];
  StageSmem& ss = *reinterpret_cast<StageSmem*>(smem_raw);
  const uint32_t warp = threadIdx.x / 32;
  if (threadIdx.x == 0) {
    corpus::mbar_init(&ss.load_bar, 1);
    corpus::mbar_init(&ss.cp_bar, 1);
    corpus::fence_mbarrier_init();
  }
  const uint32_t tmem = alloc_and_publish(&ss.tmem_base, 64, warp);

  if (warp == 0) {
    const bool leader = corpus::elect_one();
    if (leader) {
      constexpr uint32_t kBytes = offsetof(StageSmem, load_bar);
      corpus::mbar_arrive_expect_tx(&ss.load_bar, kBytes);
      bulk_load(&ss, src + blockIdx.x * kBytes, kBytes, &ss.load_bar);
    }
    corpus::mbar_wait(&ss.load_bar, 0);
    fence_after_thread_sync();
    if (leader) {
      asm volatile("tcgen05.cp.cta_group::1.128x256b [%0], %1;" ::"r"(tmem),
                   "l"(desc(ss.tile_128x256b, 128, 256)));
      asm volatile("tcgen05.cp.cta_group::1.128x128b [%0], %1;" ::"r"(tmem + 8),
                   "l"(desc(ss.tile_128x128b, 128, 256)));
      // 64 rows: replicated to warps {0,2}/{1,3} or {0,1}/{2,3} lane quadrants.
      asm volatile("tcgen05.cp.cta_group::1.64x128b.warpx2::02_13 [%0], %1;" ::"r"(tmem + 12),
                   "l"(desc(ss.tile_64x128b, 128, 256)));
      asm volatile("tcgen05.cp.cta_group::1.64x128b.warpx2::01_23 [%0], %1;" ::"r"(tmem + 16),
                   "l"(desc(ss.tile_64x128b, 128, 256)));
      // 32 rows broadcast to all four lane quadrants.
      asm volatile("tcgen05.cp.cta_group::1.32x128b.warpx4 [%0], %1;" ::"r"(tmem + 20),
                   "l"(desc(ss.tile_32x128b, 128, 256)));
      asm volatile("tcgen05.cp.cta_group::1.4x256b [%0], %1;" ::"r"(tmem + 24),
                   "l"(desc(ss.tile_4x256b, 32, 128)));
      // Decompress packed 6-bit / 4-bit elements to 8-bit containers.
      asm volatile("tcgen05.cp.cta_group::1.128x256b.b8x16.b6x16_p32 [%0], %1;" ::"r"(tmem + 32),
                   "l"(desc(ss.packed_fp6, 128, 384)));
      asm volatile("tcgen05.cp.cta_group::1.128x256b.b8x16.b4x16_p64 [%0], %1;" ::"r"(tmem + 40),
                   "l"(desc(ss.packed_fp4, 128, 256)));
      asm volatile("tcgen05.cp.cta_group::1.128x128b.b8x16.b4x16_p64 [%0], %1;" ::"r"(tmem + 48),
                   "l"(desc(ss.packed_fp4, 128, 256)));
      asm volatile(
          "tcgen05.cp.cta_group::1.64x128b.warpx2::02_13.b8x16.b6x16_p32 [%0], %1;" ::"r"(
              tmem + 52),
          "l"(desc(ss.packed_fp6, 128, 384)));
      asm volatile("tcgen05.cp.cta_group::1.32x128b.warpx4.b8x16.b4x16_p64 [%0], %1;" ::"r"(
                       tmem + 56),
                   "l"(desc(ss.packed_fp4, 128, 256)));
      asm volatile("tcgen05.cp.cta_group::1.4x256b.b8x16.b6x16_p32 [%0], %1;" ::"r"(tmem + 60),
                   "l"(desc(ss.packed_fp6, 32, 128)));
      commit(&ss.cp_bar);
    }
    __syncwarp();
  }

  // Everyone waits for the copies, then reads its quadrant back.
  corpus::mbar_wait(&ss.cp_bar, 0);
  fence_after_thread_sync();
  const uint32_t quad = tmem + (((warp % 4) * 32) << 16);
  uint32_t* dst = out + (static_cast<size_t>(blockIdx.x) * 128 + threadIdx.x) * 128;
  for (uint32_t col = 0; col < 64; col += 32) {
    uint32_t v[32];
    tmem_ld_32x32b_x32(quad + col, v);
    wait_ld();
#pragma unroll
    for (int i = 0; i < 32; ++i) dst[col + i] = v[i];
  }

  // Shift every row of the first 32 columns down by one lane, `shift_rows`
  // times (a sliding window over rows); the shifts are ordered by commit.
  fence_before_thread_sync();
  __syncthreads();
  if (warp == 0) {
    fence_after_thread_sync();
    const bool leader = corpus::elect_one();
    for (int s = 0; s < shift_rows; ++s) {
      if (leader) {
        asm volatile("tcgen05.shift.cta_group::1.down [%0];" ::"r"(tmem) : "memory");
        commit(&ss.cp_bar);
      }
      __syncwarp();
      corpus::mbar_wait(&ss.cp_bar, (s + 1) & 1);
    }
  }
  fence_before_thread_sync();
  __syncthreads();
  fence_after_thread_sync();
  {
    uint32_t v[32];
    tmem_ld_32x32b_x32(quad, v);
    wait_ld();
#pragma unroll
    for (int i = 0; i < 32; ++i) dst[64 + i] = v[i];
  }
  release(tmem, 64, warp);
}
