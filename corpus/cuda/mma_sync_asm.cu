// mma_sync_asm.cu -- warp-level mma.sync written as inline PTX, with
// ldmatrix feeding the fragments.
//
// Exercises: mma.sync.aligned m16n8k16 (f16 and bf16 -> f32, f16 -> f16),
// m16n8k8 (tf32 and f16), m16n8k32 (s8/u8 -> s32, with .satfinite),
// m16n8k64 (s4), m8n8k4 (f64), m16n8k256 b1 (.xor.popc / .and.popc),
// the sparse form mma.sp::ordered_metadata m16n8k32, and
// ldmatrix.sync.aligned.m8n8.x4 / .x2.trans feeding a 64x64 CTA tile loop
// with cp.async.cg + commit/wait_group double buffering.
//
// corpus-arch: sm_80 sm_90a
#include <cstdint>

namespace {

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_u32(p)));
}
__device__ __forceinline__ void ldmatrix_x2_trans(uint32_t (&r)[2], const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
               : "=r"(r[0]), "=r"(r[1])
               : "r"(smem_u32(p)));
}

__device__ __forceinline__ void mma_f16_f32(float (&d)[4], const uint32_t (&a)[4],
                                            const uint32_t (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

__device__ __forceinline__ void mma_bf16_f32(float (&d)[4], const uint32_t (&a)[4],
                                             const uint32_t (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

__device__ __forceinline__ void mma_f16_f16(uint32_t (&d)[2], const uint32_t (&a)[4],
                                            const uint32_t (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0, %1}, {%2, %3, %4, %5}, {%6, %7}, "
      "{%0, %1};"
      : "+r"(d[0]), "+r"(d[1])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

__device__ __forceinline__ void mma_tf32(float (&d)[4], const uint32_t (&a)[4],
                                         const uint32_t (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

__device__ __forceinline__ void mma_f16_k8(float (&d)[4], const uint32_t (&a)[2], uint32_t b) {
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, "
      "{%0, %1, %2, %3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(b));
}

__device__ __forceinline__ void mma_s8(int (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.u8.s32 {%0, %1, %2, %3}, "
      "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
      : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

__device__ __forceinline__ void mma_s4(int (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};"
      : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

__device__ __forceinline__ void mma_b1(int (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.xor.popc {%0, %1, %2, %3}, "
      "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n\t"
      "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc {%0, %1, %2, %3}, "
      "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
      : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

__device__ __forceinline__ void mma_f64(double (&d)[2], double a, double b) {
  asm volatile(
      "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
      : "+d"(d[0]), "+d"(d[1])
      : "d"(a), "d"(b));
}

// 2:4 sparse A: 2 metadata bits per kept element, selector 0.
__device__ __forceinline__ void mma_sp_f16(float (&d)[4], const uint32_t (&a)[4],
                                           const uint32_t (&b)[4], uint32_t meta) {
  asm volatile(
      "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
      "{%4, %5, %6, %7}, {%8, %9, %10, %11}, {%0, %1, %2, %3}, %12, 0x0;"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(b[2]), "r"(b[3]),
        "r"(meta));
}

__device__ __forceinline__ void cp_async_16(void* smem, const void* gmem) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(smem_u32(smem)), "l"(gmem));
}

}  // namespace

// 64x64 output tile per CTA (4 warps, 2x2), K step 32, f16 inputs, f32
// accumulators, double-buffered smem filled with cp.async.
__global__ void __launch_bounds__(128) hgemm_mma_sync(const uint16_t* a, const uint16_t* b,
                                                      float* c, int n, int k) {
  constexpr int kTile = 64, kK = 32;
  __shared__ __align__(128) uint16_t sa[2][kTile * kK];
  __shared__ __align__(128) uint16_t sb[2][kK * kTile];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int wm = (warp / 2) * 32, wn = (warp % 2) * 32;
  float acc[2][4][4] = {};

  auto load_stage = [&](int buf, int k0) {
    for (int i = threadIdx.x; i < kTile * kK / 8; i += 128) {
      const int r = i / (kK / 8), cc = (i % (kK / 8)) * 8;
      cp_async_16(&sa[buf][r * kK + cc], a + (blockIdx.y * kTile + r) * k + k0 + cc);
      const int rb = i / (kTile / 8), cb = (i % (kTile / 8)) * 8;
      cp_async_16(&sb[buf][rb * kTile + cb], b + (k0 + rb) * n + blockIdx.x * kTile + cb);
    }
    asm volatile("cp.async.commit_group;");
  };

  load_stage(0, 0);
  for (int k0 = 0, buf = 0; k0 < k; k0 += kK, buf ^= 1) {
    if (k0 + kK < k) {
      load_stage(buf ^ 1, k0 + kK);
      asm volatile("cp.async.wait_group 1;" ::: "memory");
    } else {
      asm volatile("cp.async.wait_group 0;" ::: "memory");
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kK; kk += 16) {
      uint32_t af[2][4], bf[4][2];
#pragma unroll
      for (int mi = 0; mi < 2; ++mi)
        ldmatrix_x4(af[mi], &sa[buf][(wm + mi * 16 + lane % 16) * kK + kk + (lane / 16) * 8]);
#pragma unroll
      for (int ni = 0; ni < 4; ++ni)
        ldmatrix_x2_trans(bf[ni], &sb[buf][(kk + lane % 16) * kTile + wn + ni * 8]);
#pragma unroll
      for (int mi = 0; mi < 2; ++mi)
#pragma unroll
        for (int ni = 0; ni < 4; ++ni) mma_f16_f32(acc[mi][ni], af[mi], bf[ni]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int mi = 0; mi < 2; ++mi)
#pragma unroll
    for (int ni = 0; ni < 4; ++ni) {
      const int row = blockIdx.y * kTile + wm + mi * 16 + lane / 4;
      const int col = blockIdx.x * kTile + wn + ni * 8 + (lane % 4) * 2;
      *reinterpret_cast<float2*>(&c[row * n + col]) = make_float2(acc[mi][ni][0], acc[mi][ni][1]);
      *reinterpret_cast<float2*>(&c[(row + 8) * n + col]) =
          make_float2(acc[mi][ni][2], acc[mi][ni][3]);
    }
}

// Every other mma.sync type/shape on register fragments read from global.
__global__ void mma_sync_type_matrix(const uint32_t* frags, const double* dsrc, float* outf,
                                     int* outi, double* outd, uint32_t* outh) {
  const int lane = threadIdx.x % 32;
  uint32_t a[4], b[4], a2[2];
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    a[i] = frags[i * 32 + lane];
    b[i] = frags[(4 + i) * 32 + lane];
  }
  a2[0] = a[0];
  a2[1] = a[3];
  const uint32_t b2[2] = {b[0], b[1]};
  float fbf[4] = {}, ftf[4] = {}, fk8[4] = {}, fsp[4] = {};
  int is8[4] = {}, is4[4] = {}, ib1[4] = {};
  uint32_t h[2] = {};
  double dd[2] = {};
  mma_bf16_f32(fbf, a, b2);
  mma_tf32(ftf, a, b2);
  mma_f16_k8(fk8, a2, b[2]);
  mma_f16_f16(h, a, b2);
  mma_s8(is8, a, b2);
  mma_s4(is4, a, b2);
  mma_b1(ib1, a, b2);
  mma_f64(dd, dsrc[lane], dsrc[32 + lane]);
  mma_sp_f16(fsp, a, b, frags[8 * 32 + lane]);
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    outf[(i * 4 + 0) * 32 + lane] = fbf[i];
    outf[(i * 4 + 1) * 32 + lane] = ftf[i];
    outf[(i * 4 + 2) * 32 + lane] = fk8[i];
    outf[(i * 4 + 3) * 32 + lane] = fsp[i];
    outi[(i * 3 + 0) * 32 + lane] = is8[i];
    outi[(i * 3 + 1) * 32 + lane] = is4[i];
    outi[(i * 3 + 2) * 32 + lane] = ib1[i];
  }
  outd[lane] = dd[0];
  outd[32 + lane] = dd[1];
  outh[lane] = h[0] ^ h[1];
}
