// warp_intrinsics.cu -- warp-level primitives.
//
// Exercises: __shfl_sync / _up / _down / _xor (int, float, double, half2,
// 64-bit), width-limited shuffles (the c operand), __ballot_sync,
// __any_sync, __all_sync, __activemask, __match_any_sync / __match_all_sync
// (match.sync), __reduce_add/min/max/and/or/xor_sync (redux.sync),
// __popc / __ffs / __clz / __brev / __fns, __syncwarp with partial masks,
// and a warp-aggregated atomic increment.
//
// corpus-arch: sm_80 sm_100a
// corpus-variants: -G
#include <cuda_fp16.h>

#include <cstdint>

__device__ __forceinline__ float warp_reduce_sum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

__device__ __forceinline__ double warp_reduce_max(double v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = fmax(v, __shfl_down_sync(0xffffffffu, v, o));
  return __shfl_sync(0xffffffffu, v, 0);
}

// Inclusive scan inside each 32-lane warp with shfl.up.
__device__ __forceinline__ int warp_scan(int v) {
  const int lane = threadIdx.x % 32;
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) {
    const int t = __shfl_up_sync(0xffffffffu, v, o);
    if (lane >= o) v += t;
  }
  return v;
}

// One atomic per distinct warp instead of per thread.
__device__ __forceinline__ int warp_aggregated_inc(int* counter) {
  const unsigned mask = __activemask();
  const int leader = __ffs(mask) - 1;
  const int lane = threadIdx.x % 32;
  int base = 0;
  if (lane == leader) base = atomicAdd(counter, __popc(mask));
  base = __shfl_sync(mask, base, leader);
  return base + __popc(mask & ((1u << lane) - 1));
}

__global__ void shuffles_and_votes(const float* __restrict__ f, const double* __restrict__ d,
                                   const int* __restrict__ k, float* __restrict__ out,
                                   int* __restrict__ counter) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x % 32;
  const float s = warp_reduce_sum(f[i]);
  const double m = warp_reduce_max(d[i]);
  const int scan = warp_scan(k[i]);
  // Width-8 shuffles: independent 8-lane segments.
  const float seg = __shfl_sync(0xffffffffu, f[i], 0, 8) + __shfl_down_sync(0xffffffffu, f[i], 1, 8);
  const unsigned long long wide = __shfl_xor_sync(0xffffffffu, static_cast<unsigned long long>(i) << 32 | lane, 4);
  const __half2 h = __shfl_xor_sync(0xffffffffu, __floats2half2_rn(f[i], -f[i]), 2);
  const unsigned ballot = __ballot_sync(0xffffffffu, k[i] > 0);
  const int any = __any_sync(0xffffffffu, k[i] == 42);
  const int all = __all_sync(0xffffffffu, k[i] >= 0);
  int slot = -1;
  if (k[i] & 1) slot = warp_aggregated_inc(counter);
  out[i] = s + static_cast<float>(m) + scan + seg + static_cast<float>(wide & 0xff) +
           __low2float(h) + __popc(ballot) + any + all + slot + __clz(ballot) + __brev(ballot) +
           __fns(ballot, 0, 1);
}

__global__ void match_and_redux(const unsigned* __restrict__ keys, unsigned* __restrict__ out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned key = keys[i];
  const unsigned peers = __match_any_sync(0xffffffffu, key);
  int pred = 0;
  const unsigned all_same = __match_all_sync(0xffffffffu, key >> 4, &pred);
  const unsigned long long key64 = (static_cast<unsigned long long>(key) << 32) | (key >> 3);
  const unsigned peers64 = __match_any_sync(0xffffffffu, key64);
  const unsigned sum = __reduce_add_sync(0xffffffffu, key);
  const unsigned mn = __reduce_min_sync(0xffffffffu, key);
  const int mx = __reduce_max_sync(0xffffffffu, static_cast<int>(key));
  const unsigned a = __reduce_and_sync(0xffffffffu, key);
  const unsigned o = __reduce_or_sync(0xffffffffu, key);
  const unsigned x = __reduce_xor_sync(0xffffffffu, key);
  // Only the lower half-warp takes part in the second round.
  unsigned half = 0;
  if ((threadIdx.x % 32) < 16) {
    __syncwarp(0x0000ffffu);
    half = __reduce_add_sync(0x0000ffffu, key) + __shfl_sync(0x0000ffffu, key, 15);
  }
  out[i] = peers ^ all_same ^ pred ^ peers64 ^ sum ^ mn ^ mx ^ a ^ o ^ x ^ half;
}
