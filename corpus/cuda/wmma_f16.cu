// wmma_f16.cu -- nvcuda::wmma with half-precision inputs.
//
// Exercises: wmma.load.a/b/c, wmma.mma and wmma.store in the three f16
// shapes (m16n16k16, m32n8k16, m8n32k16), row/col layouts, f16 and f32
// accumulators, fill_fragment / per-element fragment access, a K loop over
// a shared-memory tile with __syncthreads, and __launch_bounds__.
//
// corpus-arch: sm_80 sm_90a
// corpus-variants: -G
#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

// One warp per 16x16 output tile; A row-major, B column-major, f32 accumulate.
__global__ void __launch_bounds__(128) wmma_gemm_16x16x16(const half* a, const half* b, float* c,
                                                          int m, int n, int k, float alpha,
                                                          float beta) {
  const int warp_m = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int warp_n = blockIdx.y;
  if (warp_m * 16 >= m || warp_n * 16 >= n) return;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc, cfrag;
  wmma::fill_fragment(acc, 0.0f);
  for (int kk = 0; kk < k; kk += 16) {
    wmma::load_matrix_sync(fa, a + warp_m * 16 * k + kk, k);
    wmma::load_matrix_sync(fb, b + warp_n * 16 * k + kk, k);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  float* ctile = c + warp_m * 16 * n + warp_n * 16;
  wmma::load_matrix_sync(cfrag, ctile, n, wmma::mem_row_major);
  for (int i = 0; i < cfrag.num_elements; ++i) cfrag.x[i] = alpha * acc.x[i] + beta * cfrag.x[i];
  wmma::store_matrix_sync(ctile, cfrag, n, wmma::mem_row_major);
}

// m32n8k16 with a half accumulator; the A tile is staged in shared memory.
__global__ void wmma_gemm_32x8x16_half_acc(const half* a, const half* b, half* c, int k) {
  __shared__ __align__(32) half a_tile[32 * 16];
  wmma::fragment<wmma::matrix_a, 32, 8, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 32, 8, 16, half, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 32, 8, 16, half> acc;
  wmma::fill_fragment(acc, __float2half(0.f));
  for (int kk = 0; kk < k; kk += 16) {
    for (int i = threadIdx.x; i < 32 * 16; i += blockDim.x)
      a_tile[i] = a[blockIdx.x * 32 * k + (i / 16) * k + kk + i % 16];
    __syncthreads();
    wmma::load_matrix_sync(fa, a_tile, 16);
    wmma::load_matrix_sync(fb, b + kk * 8 + blockIdx.y * 8, 8);
    wmma::mma_sync(acc, fa, fb, acc);
    __syncthreads();
  }
  wmma::store_matrix_sync(c + blockIdx.x * 32 * 8, acc, 8, wmma::mem_col_major);
}

// m8n32k16, f32 accumulator, column-major A, applying a ReLU in registers.
__global__ void wmma_gemm_8x32x16_relu(const half* a, const half* b, float* c, int k) {
  wmma::fragment<wmma::matrix_a, 8, 32, 16, half, wmma::col_major> fa;
  wmma::fragment<wmma::matrix_b, 8, 32, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 8, 32, 16, float> acc;
  wmma::fill_fragment(acc, 0.f);
  for (int kk = 0; kk < k; kk += 16) {
    wmma::load_matrix_sync(fa, a + kk * 8, 8);
    wmma::load_matrix_sync(fb, b + blockIdx.x * 32 * k + kk, k);
    wmma::mma_sync(acc, fa, fb, acc);
  }
#pragma unroll
  for (int i = 0; i < acc.num_elements; ++i) acc.x[i] = fmaxf(acc.x[i], 0.f);
  wmma::store_matrix_sync(c + blockIdx.x * 32, acc, gridDim.x * 32, wmma::mem_row_major);
}
