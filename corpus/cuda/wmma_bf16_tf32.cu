// wmma_bf16_tf32.cu -- nvcuda::wmma with the Ampere bf16 and tf32 types.
//
// Exercises: wmma on __nv_bfloat16 (m16n16k16, m32n8k16) and
// wmma::precision::tf32 (m16n16k8) fragments, __float_to_tf32 conversion of
// loaded fragments (cvt.rna.tf32.f32), double-buffered shared-memory tiles.
//
// corpus-arch: sm_80 sm_100a
#include <cuda_bf16.h>
#include <mma.h>

using namespace nvcuda;

__global__ void __launch_bounds__(64) wmma_bf16_gemm(const __nv_bfloat16* a,
                                                     const __nv_bfloat16* b, float* c, int n,
                                                     int k) {
  __shared__ __align__(32) __nv_bfloat16 sa[2][16 * 16];
  __shared__ __align__(32) __nv_bfloat16 sb[2][16 * 16];
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.f);
  const int warp = threadIdx.x / 32;  // warp 0 loads A, warp 1 loads B
  auto load = [&](int buf, int kk) {
    for (int i = threadIdx.x % 32; i < 256; i += 32) {
      if (warp == 0) sa[buf][i] = a[(blockIdx.x * 16 + i / 16) * k + kk + i % 16];
      else sb[buf][i] = b[(kk + i / 16) * n + blockIdx.y * 16 + i % 16];
    }
  };
  load(0, 0);
  __syncthreads();
  for (int kk = 0, buf = 0; kk < k; kk += 16, buf ^= 1) {
    if (kk + 16 < k) load(buf ^ 1, kk + 16);
    if (warp == 0) {
      wmma::load_matrix_sync(fa, sa[buf], 16);
      wmma::load_matrix_sync(fb, sb[buf], 16);
      wmma::mma_sync(acc, fa, fb, acc);
    }
    __syncthreads();
  }
  if (warp == 0)
    wmma::store_matrix_sync(c + blockIdx.x * 16 * n + blockIdx.y * 16, acc, n, wmma::mem_row_major);
}

__global__ void wmma_bf16_32x8(const __nv_bfloat16* a, const __nv_bfloat16* b, float* c) {
  wmma::fragment<wmma::matrix_a, 32, 8, 16, __nv_bfloat16, wmma::col_major> fa;
  wmma::fragment<wmma::matrix_b, 32, 8, 16, __nv_bfloat16, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 32, 8, 16, float> acc;
  wmma::fill_fragment(acc, 1.f);
  wmma::load_matrix_sync(fa, a + blockIdx.x * 512, 32);
  wmma::load_matrix_sync(fb, b + blockIdx.x * 128, 16);
  wmma::mma_sync(acc, fa, fb, acc);
  wmma::store_matrix_sync(c + blockIdx.x * 256, acc, 8, wmma::mem_col_major);
}

// TF32: fragments are loaded from fp32 memory and rounded to tf32 in place.
__global__ void wmma_tf32_gemm(const float* a, const float* b, float* c, int n, int k) {
  wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc;
  wmma::fill_fragment(acc, 0.f);
  for (int kk = 0; kk < k; kk += 8) {
    wmma::load_matrix_sync(fa, a + blockIdx.x * 16 * k + kk, k);
    wmma::load_matrix_sync(fb, b + blockIdx.y * 16 * k + kk, k);
#pragma unroll
    for (int i = 0; i < fa.num_elements; ++i) fa.x[i] = wmma::__float_to_tf32(fa.x[i]);
#pragma unroll
    for (int i = 0; i < fb.num_elements; ++i) fb.x[i] = wmma::__float_to_tf32(fb.x[i]);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  wmma::store_matrix_sync(c + blockIdx.x * 16 * n + blockIdx.y * 16, acc, n, wmma::mem_row_major);
}
