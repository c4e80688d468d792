// fast_math.cu -- transcendental-heavy code built with -use_fast_math.
//
// Exercises: the approximate instruction forms that -use_fast_math
// selects (ex2.approx.ftz, lg2.approx.ftz, sin/cos.approx, rcp.approx,
// rsqrt.approx, div.full / div.approx, sqrt.approx, .ftz everywhere), the
// intrinsic spellings (__expf, __logf, __sinf, __fdividef, __saturatef,
// __frsqrt_rn), double-precision math that stays precise (div.rn.f64,
// rcp.rn.f64 via libdevice), and tanh.approx / ex2.approx.f16x2 on sm_80.
//
// corpus-arch: sm_80
// corpus-flags: -use_fast_math
#include <cuda_fp16.h>

__global__ void softmax_row_fast(const float* __restrict__ x, float* __restrict__ y, int cols) {
  extern __shared__ float red[];
  const float* row = x + blockIdx.x * cols;
  float m = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, row[c]);
  red[threadIdx.x] = m;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
    __syncthreads();
  }
  m = red[0];
  __syncthreads();
  float sum = 0.f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) sum += expf(row[c] - m);
  red[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
    __syncthreads();
  }
  const float inv = 1.f / red[0];
  for (int c = threadIdx.x; c < cols; c += blockDim.x) y[blockIdx.x * cols + c] = expf(row[c] - m) * inv;
}

__global__ void transcendentals(const float* __restrict__ a, const double* __restrict__ d,
                                const __half2* __restrict__ h, float* __restrict__ out,
                                double* __restrict__ outd, __half2* __restrict__ outh) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float v = a[i];
  float r = sinf(v) * cosf(v) + logf(fabsf(v) + 1.f) + powf(fabsf(v), 0.75f) + sqrtf(fabsf(v));
  r += __expf(v) + __logf(v * v + 1.f) + __sinf(v) + __fdividef(v, r + 1.f) + __saturatef(v);
  r += rsqrtf(v * v + 1.f) + __frsqrt_rn(v * v + 2.f) + tanhf(v) + erff(v) + atan2f(v, r);
  float t;
  asm("tanh.approx.f32 %0, %1;" : "=f"(t) : "f"(v));
  out[i] = r / (v + 3.f) + t;
  outd[i] = d[i] / (d[i] + 1.0) + exp(d[i]) + sqrt(fabs(d[i])) + 1.0 / (d[i] * d[i] + 0.5);
  outh[i] = h2exp(h[i]) + h2log(__habs2(h[i]) + __float2half2_rn(1.f)) + h2rsqrt(__habs2(h[i]) + __float2half2_rn(1.f));
}
