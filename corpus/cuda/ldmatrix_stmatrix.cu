// ldmatrix_stmatrix.cu -- shared-memory matrix load/store instructions.
//
// Exercises: ldmatrix.sync.aligned.m8n8 .x1/.x2/.x4 with and without .trans
// (.shared and .shared::cta spellings), stmatrix.sync.aligned.m8n8 .x1/.x2/.x4
// (+ .trans) on sm_90a, and on sm_100a additionally the 8-bit forms
// ldmatrix .m16n16 .b8 (.trans), .m8n16 .b8x16.b6x16_p32 / .b4x16_p64
// decompression, and stmatrix .m16n8.trans.b8.  A transpose-through-smem
// kernel uses them as a real data path (B tiles for mma.sync).
//
// corpus-arch: sm_90a sm_100a
#include <cstdint>

namespace {

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

}  // namespace

// Transpose a 16x16 fp16 tile per warp: load rows with ldmatrix, store them
// transposed with stmatrix.trans, read back with ldmatrix.trans.
__global__ void __launch_bounds__(128) transpose_tiles_ldst_matrix(const uint4* __restrict__ src,
                                                                   uint32_t* __restrict__ dst) {
  __shared__ __align__(128) uint16_t tile_in[4][16 * 16];
  __shared__ __align__(128) uint16_t tile_out[4][16 * 16];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  // 16 rows x 32 bytes: each lane copies 16 bytes.
  reinterpret_cast<uint4*>(tile_in[warp])[lane] = src[(blockIdx.x * 4 + warp) * 32 + lane];
  __syncwarp();

  const void* row_ptr = &tile_in[warp][(lane % 16) * 16 + (lane / 16) * 8];
  uint32_t r0, r1, r2, r3;
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
               : "r"(smem_u32(row_ptr)));
  void* out_ptr = &tile_out[warp][(lane % 16) * 16 + (lane / 16) * 8];
  asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(
                   smem_u32(out_ptr)),
               "r"(r0), "r"(r2), "r"(r1), "r"(r3)
               : "memory");
  __syncwarp();
  uint32_t t0, t1;
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared::cta.b16 {%0, %1}, [%2];"
               : "=r"(t0), "=r"(t1)
               : "r"(smem_u32(&tile_out[warp][(lane % 16) * 16])));
  uint32_t s0;
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];"
               : "=r"(s0)
               : "r"(smem_u32(&tile_out[warp][(lane % 8) * 16 + 8])));
  // Narrow stores back into the input tile (reused as scratch).
  asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};" ::"r"(
                   smem_u32(&tile_in[warp][(lane % 8) * 16])),
               "r"(s0)
               : "memory");
  asm volatile("stmatrix.sync.aligned.m8n8.x2.shared::cta.b16 [%0], {%1, %2};" ::"r"(
                   smem_u32(&tile_in[warp][(lane % 16) * 16 + 8])),
               "r"(t0), "r"(t1)
               : "memory");
  __syncwarp();
  const uint32_t* words = reinterpret_cast<const uint32_t*>(tile_in[warp]);
  dst[(blockIdx.x * 4 + warp) * 32 + lane] = t0 ^ t1 ^ s0 ^ words[lane];
}

// Blackwell 8-bit matrix loads: fp8 tiles and packed fp6 / fp4 tiles
// expanded into 8-bit containers on the way to registers.
__global__ void __launch_bounds__(32) ldmatrix_b8_variants(const uint4* __restrict__ src,
                                                           uint32_t* __restrict__ dst) {
#if defined(__CUDA_ARCH_FEAT_SM100_ALL)
  __shared__ __align__(128) uint8_t fp8_tile[16 * 16];
  __shared__ __align__(128) uint8_t packed[16 * 32];
  const int lane = threadIdx.x % 32;
  if (lane < 16) reinterpret_cast<uint4*>(fp8_tile)[lane] = src[lane];
  reinterpret_cast<uint4*>(packed)[lane] = src[16 + lane];
  __syncwarp();
  uint32_t a0, a1, b0, b1, c0, c1, c2, c3;
  asm volatile("ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 {%0, %1}, [%2];"
               : "=r"(a0), "=r"(a1)
               : "r"(smem_u32(&fp8_tile[(lane % 16) * 16])));
  asm volatile("ldmatrix.sync.aligned.m8n16.x2.shared.b8x16.b6x16_p32 {%0, %1}, [%2];"
               : "=r"(b0), "=r"(b1)
               : "r"(smem_u32(&packed[(lane % 16) * 16])));
  asm volatile("ldmatrix.sync.aligned.m16n16.x2.trans.shared.b8x16.b4x16_p64 {%0, %1, %2, %3}, [%4];"
               : "=r"(c0), "=r"(c1), "=r"(c2), "=r"(c3)
               : "r"(smem_u32(&packed[(lane % 16) * 32])));
  __syncwarp();
  asm volatile("stmatrix.sync.aligned.m16n8.x2.trans.shared.b8 [%0], {%1, %2};" ::"r"(
                   smem_u32(&fp8_tile[(lane % 16) * 16])),
               "r"(a0 ^ c0), "r"(a1 ^ c1)
               : "memory");
  __syncwarp();
  dst[lane] = reinterpret_cast<const uint32_t*>(fp8_tile)[lane] ^ b0 ^ b1 ^ c2 ^ c3;
#else
  dst[threadIdx.x] = src[threadIdx.x].x;  // 8-bit ldmatrix forms need sm_100a
#endif
}
