// cluster_dsmem.cu -- thread-block clusters and distributed shared memory.
//
// Exercises: cooperative_groups::this_cluster() (cluster.sync ->
// barrier.cluster.arrive / wait, map_shared_rank -> mapa, block_rank,
// num_blocks), hand-written barrier.cluster.arrive.relaxed.aligned /
// barrier.cluster.wait.aligned, elect.sync, the %cluster_* special
// registers, ld/st/atom on .shared::cluster addresses, remote mbarrier
// arrives, __cluster_dims__ and the runtime-cluster-size variant
// (.explicitcluster vs none), and isspacep.shared::cluster.
//
// corpus-arch: sm_90a sm_100a
#include <cooperative_groups.h>

#include "corpus_ptx.cuh"

namespace cg = cooperative_groups;

// Cluster-wide histogram: each CTA bins its slice into the owner CTA's
// shared histogram (bin b lives in CTA b % cluster_size) via DSMEM atomics.
__global__ void __cluster_dims__(4, 1, 1) __launch_bounds__(256)
    cluster_histogram(const int* __restrict__ values, int n, int bins, int* __restrict__ out) {
  extern __shared__ int local_bins[];
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank();
  const unsigned csize = cluster.num_blocks();
  const int per_cta = (bins + csize - 1) / csize;
  for (int b = threadIdx.x; b < per_cta; b += blockDim.x) local_bins[b] = 0;
  cluster.sync();  // every CTA's bins are zeroed before anyone adds remotely
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const int bin = min(max(values[i], 0), bins - 1);
    int* owner = cluster.map_shared_rank(local_bins, bin % csize);
    atomicAdd(owner + bin / csize, 1);
  }
  cluster.sync();  // all remote adds landed before reading / exiting
  for (int b = threadIdx.x; b < per_cta; b += blockDim.x)
    atomicAdd(&out[b * csize + rank], local_bins[b]);
}

// Ring exchange with raw PTX: each CTA reads its neighbour's smem through a
// shared::cluster address, then one elected thread signals the neighbour's
// mbarrier so it knows its buffer may be overwritten.
__global__ void __cluster_dims__(2, 2, 1) ring_exchange_raw(const float* __restrict__ in,
                                                            float* __restrict__ out) {
  __shared__ float buf[256];
  __shared__ uint64_t consumed;
  uint32_t rank, nranks, cid_x, cid_y;
  asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  asm("mov.u32 %0, %%cluster_nctarank;" : "=r"(nranks));
  asm("mov.u32 %0, %%cluster_ctaid.x;" : "=r"(cid_x));
  asm("mov.u32 %0, %%cluster_ctaid.y;" : "=r"(cid_y));
  buf[threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x] + cid_x * 0.5f + cid_y;
  if (threadIdx.x == 0) {
    corpus::mbar_init(&consumed, 1);
    corpus::fence_mbarrier_init();
  }
  corpus::cluster_arrive_relaxed();
  corpus::cluster_wait();

  const uint32_t next = (rank + 1) % nranks;
  uint32_t remote;
  asm("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(corpus::smem_u32(&buf[threadIdx.x])), "r"(next));
  float v;
  asm volatile("ld.shared::cluster.f32 %0, [%1];" : "=f"(v) : "r"(remote) : "memory");
  out[blockIdx.x * 256 + threadIdx.x] = v;

  // Tell the neighbour we are done with its buffer.
  __syncwarp();
  if (threadIdx.x < 32 && corpus::elect_one()) corpus::mbar_arrive_cluster(&consumed, next);
  corpus::mbar_wait(&consumed, 0);
  asm volatile("barrier.cluster.arrive.aligned;\n\tbarrier.cluster.wait.aligned;" ::: "memory");
}

// Cluster size chosen at launch (cudaLaunchKernelEx): no __cluster_dims__.
// Reduces a value across the cluster by writing into rank 0's smem.
__global__ void cluster_reduce_runtime_dims(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ float partial;
  __shared__ float totals[16];
  cg::cluster_group cluster = cg::this_cluster();
  if (threadIdx.x == 0) partial = 0.f;
  __syncthreads();
  atomicAdd(&partial, in[blockIdx.x * blockDim.x + threadIdx.x]);
  cluster.sync();
  if (threadIdx.x == 0) {
    float* root = cluster.map_shared_rank(totals, 0);
    const unsigned r = cluster.block_rank();
    root[r] = partial;
    const bool is_cluster_addr = __isClusterShared(root);
    if (!is_cluster_addr) out[gridDim.x] = -1.f;
  }
  cluster.sync();
  if (cluster.block_rank() == 0 && threadIdx.x == 0) {
    float s = 0.f;
    for (unsigned i = 0; i < cluster.num_blocks(); ++i) s += totals[i];
    out[blockIdx.x / cluster.num_blocks()] = s;
  }
  cluster.sync();
}
