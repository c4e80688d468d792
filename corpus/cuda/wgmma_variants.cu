// wgmma_variants.cu -- one-warpgroup Hopper kernels covering the wgmma
// shape / type matrix.
//
// Exercises: wgmma.mma_async with N = 8, 64, 128, 256 (4 to 128 accumulator
// registers), .f32.bf16.bf16 with transpose immediates, .f32.f16.f16,
// .f16.f16.f16 (packed half accumulators), .f32.tf32.tf32 (k8),
// .f32.e4m3.e5m2 (k32), .s32.s8.s8 and .s32.u8.s8.satfinite (k32), the
// register-A (RS) form, wgmma.mma_async.sp with metadata and selector,
// wgmma.fence / commit_group / wait_group; operands staged with cp.async
// 16-byte copies + cp.async.wait_all.  Warp index: plain threadIdx.x / 32.
//
// corpus-arch: sm_90a
#include <cuda_fp16.h>

#include "corpus_ptx.cuh"

namespace {

__device__ __forceinline__ void wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}
__device__ __forceinline__ void wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}
__device__ __forceinline__ void wgmma_wait_all() {
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
}

template <int kTransA = 0, int kTransB = 0>
__device__ __forceinline__ void wgmma_m64n8k16_f32_bf16(float (&d)[4], uint64_t desc_a, uint64_t desc_b,
    uint32_t scale_d) {
  asm volatile(
      "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %6, 0;\n\t"
      "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 "
      "{%0, %1, %2, %3}, %4, %5, p, 1, 1, %7, %8;\n\t}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(kTransA), "n"(kTransB));
}

template <int kTransA = 0, int kTransB = 0>
__device__ __forceinline__ void wgmma_m64n256k16_f32_f16(float (&d)[128], uint64_t desc_a, uint64_t desc_b,
    uint32_t scale_d) {
  asm volatile(
      "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %130, 0;\n\t"
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, %128, %129, p, 1, 1, %131, %132;\n\t}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
        "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
        "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
        "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
        "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
        "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
        "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
        "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
        "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
      : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(kTransA), "n"(kTransB));
}

template <int kTransA = 0, int kTransB = 0>
__device__ __forceinline__ void wgmma_m64n64k16_f16_f16(uint32_t (&d)[16], uint64_t desc_a, uint64_t desc_b,
    uint32_t scale_d) {
  asm volatile(
      "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %18, 0;\n\t"
      "wgmma.mma_async.sync.aligned.m64n64k16.f16.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, %16, %17, p, 1, 1, %19, %20;\n\t}"
      : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]),
        "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15])
      : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(kTransA), "n"(kTransB));
}

template <int kTransA = 0, int kTransB = 0>
__device__ __forceinline__ void wgmma_m64n128k8_f32_tf32(float (&d)[64], uint64_t desc_a, uint64_t desc_b,
    uint32_t scale_d) {
  asm volatile(
      "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %66, 0;\n\t"
      "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, p, 1, 1;\n\t}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "l"(desc_a), "l"(desc_b), "r"(scale_d));
}

template <int kTransA = 0, int kTransB = 0>
__device__ __forceinline__ void wgmma_m64n128k32_f32_e4m3_e5m2(float (&d)[64], uint64_t desc_a, uint64_t desc_b,
    uint32_t scale_d) {
  asm volatile(
      "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %66, 0;\n\t"
      "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e5m2 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, p, 1, 1;\n\t}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "l"(desc_a), "l"(desc_b), "r"(scale_d));
}

template <int kTransA = 0, int kTransB = 0>
__device__ __forceinline__ void wgmma_m64n64k32_s32_s8(int (&d)[32], uint64_t desc_a, uint64_t desc_b,
    uint32_t scale_d) {
  asm volatile(
      "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %34, 0;\n\t"
      "wgmma.mma_async.sync.aligned.m64n64k32.s32.s8.s8 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, p;\n\t}"
      : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]),
        "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]),
        "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]),
        "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31])
      : "l"(desc_a), "l"(desc_b), "r"(scale_d));
}

template <int kTransA = 0, int kTransB = 0>
__device__ __forceinline__ void wgmma_m64n32k32_s32_u8_s8_sat(int (&d)[16], uint64_t desc_a, uint64_t desc_b,
    uint32_t scale_d) {
  asm volatile(
      "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %18, 0;\n\t"
      "wgmma.mma_async.sync.aligned.m64n32k32.s32.u8.s8.satfinite "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, %16, %17, p;\n\t}"
      : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]),
        "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15])
      : "l"(desc_a), "l"(desc_b), "r"(scale_d));
}

__device__ __forceinline__ void wgmma_rs_m64n128k16_f32_f16(float (&d)[64], const uint32_t (&a)[4],
    uint64_t desc_b, uint32_t scale_d) {
  asm volatile(
      "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %69, 0;\n\t"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, {%64, %65, %66, %67}, %68, p, 1, 1, 1;\n\t}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d));
}

// Structured-sparse A: metadata register + thread-group selector immediate.
__device__ __forceinline__ void wgmma_sp_m64n64k32_f32_f16(float (&d)[32], uint64_t desc_a,
                                                           uint64_t desc_b, uint32_t meta) {
  asm volatile(
      "wgmma.mma_async.sp.sync.aligned.m64n64k32.f32.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
      "%32, %33, %34, 0, 1, 1, 1, 0, 0;"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
        "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]),
        "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(desc_a), "l"(desc_b), "r"(meta));
}

// Copies `bytes` (multiple of 16 * 128) from global into smem with the whole
// warpgroup, 16 bytes per cp.async.
__device__ __forceinline__ void stage(void* smem, const void* gmem, int bytes) {
  for (int off = threadIdx.x * 16; off < bytes; off += 128 * 16) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(
                     corpus::smem_u32(static_cast<char*>(smem) + off)),
                 "l"(static_cast<const char*>(gmem) + off)
                 : "memory");
  }
  asm volatile("cp.async.wait_all;" ::: "memory");
  __syncthreads();
  corpus::fence_proxy_async_smem();  // generic-proxy writes -> async proxy reads
}

template <class T, int N>
__device__ __forceinline__ void store_frag(T* out, const T (&d)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) out[i * 128 + threadIdx.x] = d[i];
}

}  // namespace

__global__ void __launch_bounds__(128) wgmma_bf16_n8_transposed(const void* a, const void* b,
                                                                float* out) {
  __shared__ __align__(128) uint8_t sa[64 * 32], sb[8 * 32];
  stage(sa, a, sizeof(sa));
  stage(sb, b, sizeof(sb));
  float d[4] = {};
  wgmma_fence();
  wgmma_m64n8k16_f32_bf16<1, 1>(d, corpus::make_wgmma_desc(sa, 128, 256, 0),
                                corpus::make_wgmma_desc(sb, 128, 256, 0), 0);
  wgmma_commit();
  wgmma_wait_all();
  store_frag(out, d);
}

__global__ void __launch_bounds__(128) wgmma_f16_n256(const void* a, const void* b, float* out,
                                                      int k_steps) {
  __shared__ __align__(1024) uint8_t sa[64 * 64 * 2];
  __shared__ __align__(1024) uint8_t sb[256 * 64 * 2];
  float d[128] = {};
  for (int ks = 0; ks < k_steps; ++ks) {
    stage(sa, static_cast<const char*>(a) + ks * sizeof(sa), sizeof(sa));
    stage(sb, static_cast<const char*>(b) + ks * sizeof(sb), sizeof(sb));
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < 4; ++kk)
      wgmma_m64n256k16_f32_f16(d, corpus::make_wgmma_desc(sa, 16, 1024, 1) + kk * 2,
                               corpus::make_wgmma_desc(sb, 16, 1024, 1) + kk * 2, 1);
    wgmma_commit();
    wgmma_wait_all();
    __syncthreads();
  }
  store_frag(out, d);
}

__global__ void __launch_bounds__(128) wgmma_f16_accumulate_in_f16(const void* a, const void* b,
                                                                   uint32_t* out) {
  __shared__ __align__(512) uint8_t sa[64 * 32 * 2], sb[64 * 32 * 2];
  stage(sa, a, sizeof(sa));
  stage(sb, b, sizeof(sb));
  uint32_t d[16] = {};
  wgmma_fence();
  wgmma_m64n64k16_f16_f16(d, corpus::make_wgmma_desc(sa, 16, 512, 2),
                          corpus::make_wgmma_desc(sb, 16, 512, 2), 0);
  wgmma_m64n64k16_f16_f16(d, corpus::make_wgmma_desc(sa, 16, 512, 2) + 2,
                          corpus::make_wgmma_desc(sb, 16, 512, 2) + 2, 1);
  wgmma_commit();
  wgmma_wait_all();
  store_frag(out, d);
}

__global__ void __launch_bounds__(128) wgmma_tf32_fp8_int8(const void* a, const void* b,
                                                           float* out_f, int* out_i) {
  __shared__ __align__(1024) uint8_t sa[64 * 128], sb[128 * 128];
  stage(sa, a, sizeof(sa));
  stage(sb, b, sizeof(sb));
  const uint64_t da = corpus::make_wgmma_desc(sa, 16, 1024, 1);
  const uint64_t db = corpus::make_wgmma_desc(sb, 16, 1024, 1);
  float tf[64] = {}, f8[64] = {};
  int i8[32] = {}, sat[16] = {};
  wgmma_fence();
#pragma unroll
  for (int kk = 0; kk < 4; ++kk) {
    wgmma_m64n128k8_f32_tf32(tf, da + kk * 2, db + kk * 2, kk);
    wgmma_m64n128k32_f32_e4m3_e5m2(f8, da + kk * 2, db + kk * 2, kk);
    wgmma_m64n64k32_s32_s8(i8, da + kk * 2, db + kk * 2, kk);
    wgmma_m64n32k32_s32_u8_s8_sat(sat, da + kk * 2, db + kk * 2, kk);
  }
  wgmma_commit();
  wgmma_wait_all();
  store_frag(out_f, tf);
  store_frag(out_f + 64 * 128, f8);
  store_frag(out_i, i8);
  store_frag(out_i + 32 * 128, sat);
}

// A from registers: each thread loads its m64k16 fragment (4 x f16x2)
// directly, B comes from smem.
__global__ void __launch_bounds__(128) wgmma_register_a(const uint32_t* a_frags, const void* b,
                                                        float* out) {
  __shared__ __align__(1024) uint8_t sb[128 * 64 * 2];
  stage(sb, b, sizeof(sb));
  float d[64] = {};
  // All A fragments are in registers before the wgmma sequence starts, so
  // no register is written while an async wgmma may still read it.
  uint32_t frag[4][4];
#pragma unroll
  for (int kk = 0; kk < 4; ++kk)
#pragma unroll
    for (int i = 0; i < 4; ++i) frag[kk][i] = a_frags[(kk * 4 + i) * 128 + threadIdx.x];
  wgmma_fence();
#pragma unroll
  for (int kk = 0; kk < 4; ++kk)
    wgmma_rs_m64n128k16_f32_f16(d, frag[kk], corpus::make_wgmma_desc(sb, 16, 1024, 1) + kk * 2, kk);
  wgmma_commit();
  wgmma_wait_all();
  store_frag(out, d);
}

__global__ void __launch_bounds__(128) wgmma_sparse_a(const void* a, const void* b,
                                                      const uint32_t* meta, float* out) {
  __shared__ __align__(1024) uint8_t sa[64 * 32 * 2], sb[64 * 64 * 2];
  stage(sa, a, sizeof(sa));
  stage(sb, b, sizeof(sb));
  float d[32] = {};
  wgmma_fence();
  wgmma_sp_m64n64k32_f32_f16(d, corpus::make_wgmma_desc(sa, 16, 512, 2),
                             corpus::make_wgmma_desc(sb, 16, 1024, 1), meta[threadIdx.x]);
  wgmma_commit();
  wgmma_wait_all();
  store_frag(out, d);
}
