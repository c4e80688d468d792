// cp_async_pipeline.cu -- Ampere asynchronous global->shared copies.
//
// Exercises: cp.async.ca / .cg with 4-, 8- and 16-byte sizes, the src-size
// (zero-fill) operand, the .L2::128B / .L2::256B prefetch hints and an
// L2 cache-policy operand (createpolicy), cp.async.commit_group,
// cp.async.wait_group N, cp.async.wait_all, cp.async.mbarrier.arrive.noinc,
// the __pipeline_memcpy_async primitives and cuda::memcpy_async with a
// cuda::pipeline (producer/consumer, multi-stage), and cuda::barrier.
//
// corpus-arch: sm_80
// corpus-variants: -lineinfo
#include <cooperative_groups.h>
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cuda_pipeline.h>

#include <cstdint>

namespace cg = cooperative_groups;

// The __shared__ pipeline/barrier objects are initialised explicitly (init /
// make_pipeline), so their trivial-looking constructors are fine to skip.
#pragma nv_diag_suppress static_var_with_dynamic_init

namespace {

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

}  // namespace

// 3-stage ring of 16-byte cp.async.cg copies with explicit groups; rows past
// `n` are zero-filled through the src-size operand.
__global__ void __launch_bounds__(256) row_sum_cp_async(const float4* __restrict__ in,
                                                        float* __restrict__ out, int rows,
                                                        int n_vec) {
  constexpr int kStages = 3;
  __shared__ __align__(16) float4 ring[kStages][256];
  uint64_t policy;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
  float sum = 0.f;
  auto issue = [&](int stage, int row) {
    const int col = threadIdx.x;
    const bool valid = row < rows && col < n_vec;
    const float4* src = in + (valid ? static_cast<size_t>(row) * n_vec + col : 0);
    asm volatile(
        "cp.async.cg.shared.global.L2::cache_hint.L2::128B [%0], [%1], 16, %2, %3;" ::"r"(
            smem_u32(&ring[stage][threadIdx.x])),
        "l"(src), "r"(valid ? 16 : 0), "l"(policy)
        : "memory");
    asm volatile("cp.async.commit_group;" ::: "memory");
  };
  int row = blockIdx.x;
  for (int s = 0; s < kStages - 1; ++s) issue(s, row + s * gridDim.x);
  for (int it = 0; row < rows; ++it, row += gridDim.x) {
    issue((it + kStages - 1) % kStages, row + (kStages - 1) * gridDim.x);
    asm volatile("cp.async.wait_group %0;" ::"n"(kStages - 1) : "memory");
    __syncthreads();
    const float4 v = ring[it % kStages][threadIdx.x];
    sum += v.x + v.y + v.z + v.w;
    __syncthreads();
  }
  asm volatile("cp.async.wait_all;" ::: "memory");
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

// Small-granularity copies (4 and 8 bytes, .ca = cache at all levels) that
// complete on an mbarrier instead of a group.
__global__ void gather_small_cp_async(const uint32_t* __restrict__ words,
                                      const uint2* __restrict__ pairs, const int* __restrict__ idx,
                                      uint32_t* __restrict__ out) {
  __shared__ __align__(8) uint32_t w_s[128];
  __shared__ __align__(8) uint2 p_s[128];
  __shared__ uint64_t bar;
  if (threadIdx.x == 0)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(&bar)), "r"(blockDim.x));
  __syncthreads();
  const int j = idx[blockIdx.x * blockDim.x + threadIdx.x];
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(smem_u32(&w_s[threadIdx.x])),
               "l"(words + j));
  asm volatile("cp.async.ca.shared.global.L2::256B [%0], [%1], 8;" ::"r"(
                   smem_u32(&p_s[threadIdx.x])),
               "l"(pairs + j));
  // The barrier's pending count is not incremented: every thread's arrive
  // counts towards the blockDim.x expected at init.
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(smem_u32(&bar)));
  uint32_t done = 0;
  while (!done) {
    asm volatile(
        "{\n\t.reg .pred p;\n\tmbarrier.test_wait.parity.shared::cta.b64 p, [%1], 0;\n\t"
        "selp.u32 %0, 1, 0, p;\n\t}"
        : "=r"(done)
        : "r"(smem_u32(&bar))
        : "memory");
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] =
      w_s[(threadIdx.x + 1) % blockDim.x] ^ p_s[threadIdx.x].x ^ p_s[threadIdx.x].y;
}

// The CUDA pipeline primitives (__pipeline_*), 2 stages, 8-byte elements.
__global__ void saxpy_pipeline_primitives(const double* __restrict__ x, double* __restrict__ y,
                                          double a, int n) {
  __shared__ double xs[2][128];
  const int base = blockIdx.x * 128 * 8;
  __pipeline_memcpy_async(&xs[0][threadIdx.x], &x[base + threadIdx.x], sizeof(double));
  __pipeline_commit();
  for (int chunk = 0; chunk < 8; ++chunk) {
    if (chunk + 1 < 8) {
      const int g = base + (chunk + 1) * 128 + threadIdx.x;
      __pipeline_memcpy_async(&xs[(chunk + 1) & 1][threadIdx.x], &x[g < n ? g : 0],
                              sizeof(double), g < n ? 0 : sizeof(double));
    }
    __pipeline_commit();
    __pipeline_wait_prior(1);
    const int g = base + chunk * 128 + threadIdx.x;
    if (g < n) y[g] += a * xs[chunk & 1][threadIdx.x];
    __syncthreads();
  }
}

// cuda::pipeline with a producer/consumer split and cuda::memcpy_async of
// whole tiles (cooperative group copies lower to cp.async too).
__global__ void tile_scale_cuda_pipeline(const float* __restrict__ in, float* __restrict__ out,
                                         int tiles, float scale) {
  constexpr int kStages = 2, kTile = 512;
  __shared__ __align__(16) float buf[kStages][kTile];
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, kStages> state;
  auto block = cg::this_thread_block();
  auto pipe = cuda::make_pipeline(block, &state);
  for (int t = blockIdx.x, fetch = blockIdx.x, i = 0; t < tiles; t += gridDim.x, ++i) {
    for (; fetch < tiles && fetch < t + kStages * gridDim.x; fetch += gridDim.x) {
      pipe.producer_acquire();
      const int slot = ((fetch - blockIdx.x) / gridDim.x) % kStages;
      cuda::memcpy_async(block, buf[slot], in + static_cast<size_t>(fetch) * kTile,
                         cuda::aligned_size_t<16>(sizeof(float) * kTile), pipe);
      pipe.producer_commit();
    }
    pipe.consumer_wait();
    const int slot = i % kStages;
    for (int e = threadIdx.x; e < kTile; e += blockDim.x)
      out[static_cast<size_t>(t) * kTile + e] = buf[slot][e] * scale;
    pipe.consumer_release();
  }
}

// cuda::barrier-completed memcpy_async (lowers to cp.async + mbarrier ops).
__global__ void stencil_with_cuda_barrier(const float* __restrict__ in, float* __restrict__ out,
                                          int n) {
  __shared__ __align__(16) float halo[256 + 2];
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  auto block = cg::this_thread_block();
  if (block.thread_rank() == 0) init(&bar, block.size());
  block.sync();
  const int base = blockIdx.x * 256;
  cuda::memcpy_async(block, halo, in + base, sizeof(float) * (256 + 2), bar);
  bar.arrive_and_wait();
  const int i = threadIdx.x;
  if (base + i + 2 < n) out[base + i] = 0.25f * halo[i] + 0.5f * halo[i + 1] + 0.25f * halo[i + 2];
}
