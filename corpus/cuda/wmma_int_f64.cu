// wmma_int_f64.cu -- nvcuda::wmma integer, double and sub-byte variants.
//
// Exercises: s8 / u8 fragments with int accumulators (m16n16k16, m32n8k16,
// m8n32k16), the f64 m8n8k4 shape (DMMA), the experimental sub-byte s4 / u4
// (m8n8k32) and b1 (m8n8k128, xor/and popcount) fragments, and saturating
// accumulation (satf).
//
// corpus-arch: sm_80
#include <mma.h>

using namespace nvcuda;

__global__ void wmma_s8_gemm(const signed char* a, const signed char* b, int* c, int n, int k) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, int> acc;
  wmma::fill_fragment(acc, 0);
  for (int kk = 0; kk < k; kk += 16) {
    wmma::load_matrix_sync(fa, a + blockIdx.x * 16 * k + kk, k);
    wmma::load_matrix_sync(fb, b + blockIdx.y * 16 * k + kk, k);
    wmma::mma_sync(acc, fa, fb, acc, /*satf=*/true);
  }
  wmma::store_matrix_sync(c + blockIdx.x * 16 * n + blockIdx.y * 16, acc, n, wmma::mem_row_major);
}

__global__ void wmma_u8_shapes(const unsigned char* a, const unsigned char* b, int* c) {
  wmma::fragment<wmma::matrix_a, 32, 8, 16, unsigned char, wmma::row_major> fa32;
  wmma::fragment<wmma::matrix_b, 32, 8, 16, unsigned char, wmma::col_major> fb32;
  wmma::fragment<wmma::accumulator, 32, 8, 16, int> acc32;
  wmma::fragment<wmma::matrix_a, 8, 32, 16, unsigned char, wmma::row_major> fa8;
  wmma::fragment<wmma::matrix_b, 8, 32, 16, unsigned char, wmma::col_major> fb8;
  wmma::fragment<wmma::accumulator, 8, 32, 16, int> acc8;
  wmma::fill_fragment(acc32, 0);
  wmma::fill_fragment(acc8, 7);
  wmma::load_matrix_sync(fa32, a, 16);
  wmma::load_matrix_sync(fb32, b, 16);
  wmma::mma_sync(acc32, fa32, fb32, acc32);
  wmma::load_matrix_sync(fa8, a + 512, 16);
  wmma::load_matrix_sync(fb8, b + 512, 16);
  wmma::mma_sync(acc8, fa8, fb8, acc8);
  wmma::store_matrix_sync(c, acc32, 8, wmma::mem_row_major);
  wmma::store_matrix_sync(c + 256, acc8, 32, wmma::mem_col_major);
}

// Double-precision DMMA, 8x8x4, one warp per tile.
__global__ void wmma_f64_gemm(const double* a, const double* b, double* c, int n, int k) {
  wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 8, 8, 4, double> acc;
  wmma::fill_fragment(acc, 0.0);
  for (int kk = 0; kk < k; kk += 4) {
    wmma::load_matrix_sync(fa, a + blockIdx.x * 8 * k + kk, k);
    wmma::load_matrix_sync(fb, b + kk * n + blockIdx.y * 8, n);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  wmma::store_matrix_sync(c + blockIdx.x * 8 * n + blockIdx.y * 8, acc, n, wmma::mem_row_major);
}

// Sub-byte types live in wmma::experimental.
__global__ void wmma_subbyte(const void* a4, const void* b4, const void* a1, const void* b1,
                             int* c) {
  using namespace wmma::experimental;
  wmma::fragment<wmma::matrix_a, 8, 8, 32, precision::s4, wmma::row_major> fa_s4;
  wmma::fragment<wmma::matrix_b, 8, 8, 32, precision::s4, wmma::col_major> fb_s4;
  wmma::fragment<wmma::matrix_a, 8, 8, 32, precision::u4, wmma::row_major> fa_u4;
  wmma::fragment<wmma::matrix_b, 8, 8, 32, precision::u4, wmma::col_major> fb_u4;
  wmma::fragment<wmma::accumulator, 8, 8, 32, int> acc4;
  wmma::fragment<wmma::matrix_a, 8, 8, 128, precision::b1, wmma::row_major> fa_b1;
  wmma::fragment<wmma::matrix_b, 8, 8, 128, precision::b1, wmma::col_major> fb_b1;
  wmma::fragment<wmma::accumulator, 8, 8, 128, int> acc1;
  wmma::fill_fragment(acc4, 0);
  wmma::fill_fragment(acc1, 0);
  wmma::load_matrix_sync(fa_s4, a4, 32);
  wmma::load_matrix_sync(fb_s4, b4, 32);
  wmma::mma_sync(acc4, fa_s4, fb_s4, acc4);
  wmma::load_matrix_sync(fa_u4, a4, 32);
  wmma::load_matrix_sync(fb_u4, b4, 32);
  wmma::mma_sync(acc4, fa_u4, fb_u4, acc4);
  wmma::load_matrix_sync(fa_b1, a1, 128);
  wmma::load_matrix_sync(fb_b1, b1, 128);
  wmma::bmma_sync(acc1, fa_b1, fb_b1, acc1, bmmaBitOpXOR);
  wmma::bmma_sync(acc1, fa_b1, fb_b1, acc1, bmmaBitOpAND);
  wmma::store_matrix_sync(c, acc4, 8, wmma::mem_row_major);
  wmma::store_matrix_sync(c + 64, acc1, 8, wmma::mem_row_major);
}
