// fp8_conversions.cu -- low-precision number formats and conversions.
//
// Exercises: cvt to/from e4m3x2 / e5m2x2 (.satfinite, .relu), f16x2 / bf16x2
// packing, cvt.rna.tf32.f32, the cuda_fp8 / cuda_fp6 / cuda_fp4 types
// (__nv_fp8x4_e4m3, __nv_fp6x2_e2m3, __nv_fp4x4_e2m1), and on sm_100a the
// e2m1x2 / e2m3x2 / e3m2x2 / ue8m0x2 cvt forms plus cvt.rs (stochastic
// rounding with a random-bits operand), mixed-precision fma / min / max
// on f16x2 and bf16x2 (.ftz .sat .relu .NaN .xorsign.abs).
//
// corpus-arch: sm_90a sm_100a
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp4.h>
#include <cuda_fp6.h>
#include <cuda_fp8.h>

#include <cstdint>

// Per-tensor-scaled FP8 quantisation of a float4 stream.
__global__ void quantize_fp8(const float4* __restrict__ in, float scale,
                             __nv_fp8x4_e4m3* __restrict__ e4m3, __nv_fp8x4_e5m2* __restrict__ e5m2,
                             uint16_t* __restrict__ raw) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float4 v = in[i];
  v.x *= scale;
  v.y *= scale;
  v.z *= scale;
  v.w *= scale;
  e4m3[i] = __nv_fp8x4_e4m3(v);
  e5m2[i] = __nv_fp8x4_e5m2(v);
  uint16_t packed;
  asm("cvt.rn.satfinite.relu.e4m3x2.f32 %0, %1, %2;" : "=h"(packed) : "f"(v.x), "f"(v.y));
  uint32_t halves;
  asm("cvt.rn.f16x2.e5m2x2 %0, %1;" : "=r"(halves) : "h"(packed));
  uint16_t packed2;
  asm("cvt.rn.satfinite.e5m2x2.f16x2 %0, %1;" : "=h"(packed2) : "r"(halves));
  raw[i] = packed ^ packed2;
}

__global__ void packed_half_math(const __half2* a, const __half2* b, const __nv_bfloat162* c,
                                 const __nv_bfloat162* d, __half2* oh, __nv_bfloat162* ob,
                                 uint32_t* otf) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  __half2 h = __hfma2_relu(a[i], b[i], a[i]);
  h = __hmax2_nan(h, __hmin2(a[i], b[i]));
  h = __hfma2_sat(h, a[i], b[i]);
  __nv_bfloat162 bf = __hfma2(c[i], d[i], c[i]);
  bf = __hmax2(bf, __habs2(d[i]));
  uint32_t hx;
  asm("fma.rn.ftz.relu.f16x2 %0, %1, %2, %3;" : "=r"(hx) : "r"(*reinterpret_cast<const uint32_t*>(&a[i])),
      "r"(*reinterpret_cast<const uint32_t*>(&b[i])), "r"(*reinterpret_cast<uint32_t*>(&h)));
  uint32_t mx;
  asm("max.xorsign.abs.bf16x2 %0, %1, %2;" : "=r"(mx) : "r"(*reinterpret_cast<const uint32_t*>(&c[i])),
      "r"(*reinterpret_cast<const uint32_t*>(&d[i])));
  uint32_t tf;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(tf) : "f"(__low2float(h)));
  oh[i] = h;
  ob[i] = bf;
  otf[i] = tf ^ hx ^ mx;
}

__global__ void narrow_types(const float* __restrict__ in, __nv_fp6x2_e2m3* __restrict__ fp6,
                             __nv_fp4x4_e2m1* __restrict__ fp4, __nv_fp8_e8m0* __restrict__ scale) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float2 two = make_float2(in[4 * i], in[4 * i + 1]);
  const float4 four = make_float4(in[4 * i], in[4 * i + 1], in[4 * i + 2], in[4 * i + 3]);
  fp6[i] = __nv_fp6x2_e2m3(two);
  fp4[i] = __nv_fp4x4_e2m1(four);
  scale[i] = __nv_fp8_e8m0(fabsf(four.x) + 1.f);
}

#if defined(__CUDA_ARCH_FEAT_SM100_ALL)
// Blackwell-only conversion forms.
__global__ void blackwell_cvt_forms(const float* __restrict__ in, const uint32_t* __restrict__ rbits,
                                    uint32_t* __restrict__ out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float a = in[2 * i], b = in[2 * i + 1];
  uint16_t e2m3, e3m2, ue8;
  uint32_t r;
  asm("{\n\t.reg .b8 fp4;\n\t"
      "cvt.rn.satfinite.e2m1x2.f32 fp4, %1, %2;\n\t"
      "cvt.u32.u8 %0, fp4;\n\t}"
      : "=r"(r)
      : "f"(a), "f"(b));
  asm("cvt.rn.satfinite.e2m3x2.f32 %0, %1, %2;" : "=h"(e2m3) : "f"(a), "f"(b));
  asm("cvt.rn.satfinite.e3m2x2.f32 %0, %1, %2;" : "=h"(e3m2) : "f"(a), "f"(b));
  asm("cvt.rz.satfinite.ue8m0x2.f32 %0, %1, %2;" : "=h"(ue8) : "f"(a), "f"(b));
  uint32_t sr;
  asm("cvt.rs.satfinite.bf16x2.f32 %0, %1, %2, %3;" : "=r"(sr) : "f"(a), "f"(b), "r"(rbits[i]));
  uint32_t f16x2;
  asm("cvt.rn.f16x2.e2m3x2 %0, %1;" : "=r"(f16x2) : "h"(e2m3));
  out[i] = r ^ e2m3 ^ (e3m2 << 16) ^ ue8 ^ sr ^ f16x2;
}
#endif
