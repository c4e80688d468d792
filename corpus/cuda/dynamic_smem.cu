// dynamic_smem.cu -- dynamic shared memory layouts.
//
// Exercises: extern __shared__ arrays (.extern .shared .align N .b8 name[]),
// carving several typed arrays out of one dynamic allocation with explicit
// alignment, a templated kernel whose dynamic smem element type varies,
// static + dynamic smem in one kernel, bank-conflict-avoiding padding,
// shared-memory atomics and a block-wide tree reduction, %dynamic_smem_size.
//
// corpus-arch: sm_80 sm_90a
// corpus-variants: -G
#include <cuda_fp16.h>

#include <cstdint>

// Transpose through a padded tile (TILE+1 columns avoid bank conflicts).
template <typename T>
__global__ void transpose_padded(const T* __restrict__ in, T* __restrict__ out, int rows, int cols,
                                 int tile) {
  extern __shared__ __align__(16) unsigned char smem_bytes[];
  T* tilebuf = reinterpret_cast<T*>(smem_bytes);
  const int x = blockIdx.x * tile + threadIdx.x, y0 = blockIdx.y * tile;
  for (int j = threadIdx.y; j < tile; j += blockDim.y)
    if (x < cols && y0 + j < rows) tilebuf[j * (tile + 1) + threadIdx.x] = in[(y0 + j) * cols + x];
  __syncthreads();
  const int ox = blockIdx.y * tile + threadIdx.x, oy0 = blockIdx.x * tile;
  for (int j = threadIdx.y; j < tile; j += blockDim.y)
    if (ox < rows && oy0 + j < cols) out[(oy0 + j) * rows + ox] = tilebuf[threadIdx.x * (tile + 1) + j];
}
template __global__ void transpose_padded<float>(const float*, float*, int, int, int);
template __global__ void transpose_padded<__half>(const __half*, __half*, int, int, int);
template __global__ void transpose_padded<double>(const double*, double*, int, int, int);

// Several arrays carved from one dynamic buffer; offsets rounded up so each
// sub-array keeps its natural alignment.
__host__ __device__ constexpr size_t align_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

__global__ void __launch_bounds__(256) histogram_and_stats(const float* __restrict__ in, int n,
                                                           int bins, float lo, float hi,
                                                           unsigned* __restrict__ hist,
                                                           double* __restrict__ stats) {
  extern __shared__ __align__(16) unsigned char smem[];
  __shared__ int block_count;  // static smem next to the dynamic region
  unsigned* s_hist = reinterpret_cast<unsigned*>(smem);
  const size_t off_sum = align_up(bins * sizeof(unsigned), alignof(double));
  double* s_sum = reinterpret_cast<double*>(smem + off_sum);
  const size_t off_min = align_up(off_sum + blockDim.x * sizeof(double), alignof(float));
  float* s_min = reinterpret_cast<float*>(smem + off_min);
  for (int b = threadIdx.x; b < bins; b += blockDim.x) s_hist[b] = 0;
  if (threadIdx.x == 0) block_count = 0;
  __syncthreads();
  double sum = 0.0;
  float mn = INFINITY;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const float v = in[i];
    const int b = min(bins - 1, max(0, static_cast<int>((v - lo) / (hi - lo) * bins)));
    atomicAdd(&s_hist[b], 1u);
    atomicAdd(&block_count, 1);
    sum += v;
    mn = fminf(mn, v);
  }
  s_sum[threadIdx.x] = sum;
  s_min[threadIdx.x] = mn;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (threadIdx.x < stride) {
      s_sum[threadIdx.x] += s_sum[threadIdx.x + stride];
      s_min[threadIdx.x] = fminf(s_min[threadIdx.x], s_min[threadIdx.x + stride]);
    }
    __syncthreads();
  }
  for (int b = threadIdx.x; b < bins; b += blockDim.x) atomicAdd(&hist[b], s_hist[b]);
  if (threadIdx.x == 0) {
    uint32_t dyn_bytes;
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dyn_bytes));
    stats[blockIdx.x * 4 + 0] = s_sum[0];
    stats[blockIdx.x * 4 + 1] = s_min[0];
    stats[blockIdx.x * 4 + 2] = block_count;
    stats[blockIdx.x * 4 + 3] = dyn_bytes;
  }
}
