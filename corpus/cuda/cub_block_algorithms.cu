// cub_block_algorithms.cu -- CUB block/warp collectives (library-generated
// PTX from CCCL headers).
//
// Exercises what heavily templated library code produces: cub::BlockReduce
// (raking and warp-reductions algorithms), cub::BlockScan, cub::BlockLoad /
// BlockStore with warp-transpose, cub::BlockRadixSort (many unrolled
// shuffles, bfe, long mangled names), cub::WarpReduce / WarpScan, and
// cub::BlockHistogram with shared atomics.
//
// corpus-arch: sm_80 sm_90a
#include <cub/block/block_histogram.cuh>
#include <cub/block/block_load.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>
#include <cub/warp/warp_reduce.cuh>
#include <cub/warp/warp_scan.cuh>

constexpr int kThreads = 128;
constexpr int kItems = 8;

template <cub::BlockReduceAlgorithm kAlgo>
__global__ void __launch_bounds__(kThreads) block_sum(const float* in, float* out) {
  using Reduce = cub::BlockReduce<float, kThreads, kAlgo>;
  __shared__ typename Reduce::TempStorage tmp;
  float items[kItems];
  cub::LoadDirectBlocked(threadIdx.x, in + blockIdx.x * kThreads * kItems, items);
  const float total = Reduce(tmp).Sum(items);
  if (threadIdx.x == 0) out[blockIdx.x] = total;
}
template __global__ void block_sum<cub::BLOCK_REDUCE_RAKING>(const float*, float*);
template __global__ void block_sum<cub::BLOCK_REDUCE_WARP_REDUCTIONS>(const float*, float*);

__global__ void __launch_bounds__(kThreads) block_scan_compact(const int* in, int* out, int* counts) {
  using Load = cub::BlockLoad<int, kThreads, kItems, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
  using Store = cub::BlockStore<int, kThreads, kItems, cub::BLOCK_STORE_WARP_TRANSPOSE>;
  using Scan = cub::BlockScan<int, kThreads>;
  __shared__ union {
    typename Load::TempStorage load;
    typename Store::TempStorage store;
    typename Scan::TempStorage scan;
  } tmp;
  int items[kItems], flags[kItems], pos[kItems];
  Load(tmp.load).Load(in + blockIdx.x * kThreads * kItems, items);
  __syncthreads();
#pragma unroll
  for (int i = 0; i < kItems; ++i) flags[i] = items[i] > 0;
  int total;
  Scan(tmp.scan).ExclusiveSum(flags, pos, total);
  __syncthreads();
#pragma unroll
  for (int i = 0; i < kItems; ++i) pos[i] = flags[i] ? pos[i] : -1;
  Store(tmp.store).Store(out + blockIdx.x * kThreads * kItems, pos);
  if (threadIdx.x == 0) counts[blockIdx.x] = total;
}

__global__ void __launch_bounds__(kThreads) block_sort_pairs(unsigned* keys, float* values) {
  using Sort = cub::BlockRadixSort<unsigned, kThreads, kItems, float>;
  __shared__ typename Sort::TempStorage tmp;
  unsigned k[kItems];
  float v[kItems];
  cub::LoadDirectStriped<kThreads>(threadIdx.x, keys + blockIdx.x * kThreads * kItems, k);
  cub::LoadDirectStriped<kThreads>(threadIdx.x, values + blockIdx.x * kThreads * kItems, v);
  Sort(tmp).SortDescending(k, v);
  cub::StoreDirectBlocked(threadIdx.x, keys + blockIdx.x * kThreads * kItems, k);
  cub::StoreDirectBlocked(threadIdx.x, values + blockIdx.x * kThreads * kItems, v);
}

__global__ void __launch_bounds__(kThreads) warp_collectives(const double* in, double* out) {
  using WReduce = cub::WarpReduce<double>;
  using WScan = cub::WarpScan<double>;
  __shared__ typename WReduce::TempStorage rtmp[kThreads / 32];
  __shared__ typename WScan::TempStorage stmp[kThreads / 32];
  const int warp = threadIdx.x / 32;
  const double v = in[blockIdx.x * kThreads + threadIdx.x];
  const double m = WReduce(rtmp[warp]).Reduce(v, cuda::maximum<>{});
  double prefix;
  WScan(stmp[warp]).InclusiveSum(v, prefix);
  out[blockIdx.x * kThreads + threadIdx.x] = prefix + m;
}

__global__ void __launch_bounds__(kThreads) byte_histogram(const unsigned char* in, unsigned* hist) {
  using Hist = cub::BlockHistogram<unsigned char, kThreads, kItems, 256, cub::BLOCK_HISTO_ATOMIC>;
  __shared__ typename Hist::TempStorage tmp;
  __shared__ unsigned bins[256];
  unsigned char items[kItems];
  cub::LoadDirectStriped<kThreads>(threadIdx.x, in + blockIdx.x * kThreads * kItems, items);
  Hist(tmp).Histogram(items, bins);
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += kThreads) atomicAdd(&hist[b], bins[b]);
}
