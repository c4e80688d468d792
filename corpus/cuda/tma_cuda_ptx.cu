// tma_cuda_ptx.cu -- TMA and mbarrier programming through CCCL's <cuda/ptx>
// wrappers instead of hand-written asm.
//
// Exercises the PTX that cuda::ptx emits (its asm strings carry trailing
// "// N." comments): cp.async.bulk.tensor 1d..5d loads into
// .shared::cluster and .shared::cta, multicast loads, tensor stores and
// cp.reduce.async.bulk.tensor (.add / .min / .max), cp.async.bulk.commit_group
// / wait_group.read, mbarrier.init / arrive.expect_tx (release.cta and
// release.cluster) / try_wait.parity, fence.proxy.async.shared::cta,
// fence.mbarrier_init, tensormap.replace + fence.proxy.tensormap::generic on a
// tensor map kept in global memory, getctarank, and on sm_100a
// clusterlaunchcontrol.try_cancel / query_cancel work stealing.
//
// corpus-arch: sm_90a sm_100a
#include <cuda.h>
#include <cuda/ptx>

#include <cstdint>

namespace ptx = cuda::ptx;

namespace {

__device__ __forceinline__ void wait_parity(uint64_t* bar, uint32_t parity) {
  while (!ptx::mbarrier_try_wait_parity(bar, parity)) {
  }
}

}  // namespace

// Loads a tile of every rank (1-D .. 5-D) into smem, reduces it and writes the
// sums back through a 2-D store + reductions.
__global__ void __launch_bounds__(128)
    tma_all_ranks(const __grid_constant__ CUtensorMap map1, const __grid_constant__ CUtensorMap map2,
                  const __grid_constant__ CUtensorMap map3, const __grid_constant__ CUtensorMap map4,
                  const __grid_constant__ CUtensorMap map5, const __grid_constant__ CUtensorMap out2,
                  int i0) {
  __shared__ __align__(128) float tiles[5][1024];
  __shared__ __align__(128) float result[32 * 32];
  __shared__ uint64_t bar;
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(&bar, 1);
    ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar,
                                   sizeof(tiles));
    const int32_t c1[1] = {i0};
    const int32_t c2[2] = {i0, 0};
    const int32_t c3[3] = {i0, 0, 1};
    const int32_t c4[4] = {i0, 0, 1, 2};
    const int32_t c5[5] = {i0, 0, 1, 2, 3};
    ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, tiles[0], &map1, c1, &bar);
    ptx::cp_async_bulk_tensor(ptx::space_shared, ptx::space_global, tiles[1], &map2, c2, &bar);
    ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, tiles[2], &map3, c3, &bar);
    ptx::cp_async_bulk_tensor(ptx::space_shared, ptx::space_global, tiles[3], &map4, c4, &bar);
    ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, tiles[4], &map5, c5, &bar);
  }
  wait_parity(&bar, 0);
  for (int i = threadIdx.x; i < 1024; i += blockDim.x)
    result[i] = tiles[0][i] + tiles[1][i] + tiles[2][i] + tiles[3][i] + tiles[4][i];
  // Generic-proxy smem writes must be visible to the TMA (async proxy).
  ptx::fence_proxy_async(ptx::space_shared);
  __syncthreads();
  if (threadIdx.x == 0) {
    const int32_t c[2] = {i0, static_cast<int32_t>(blockIdx.x) * 32};
    ptx::cp_async_bulk_tensor(ptx::space_global, ptx::space_shared, &out2, c, result);
    ptx::cp_reduce_async_bulk_tensor(ptx::space_global, ptx::space_shared, ptx::op_add, &out2, c,
                                     result);
    ptx::cp_reduce_async_bulk_tensor(ptx::space_global, ptx::space_shared, ptx::op_min, &out2, c,
                                     result);
    ptx::cp_reduce_async_bulk_tensor(ptx::space_global, ptx::space_shared, ptx::op_max, &out2, c,
                                     result);
    ptx::cp_async_bulk_commit_group();
    ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>{});
  }
}

// Cluster of 4 along x: each CTA fetches a quarter of a shared tile and
// multicasts it to all four.
__global__ void __cluster_dims__(4, 1, 1)
    tma_multicast_quarters(const __grid_constant__ CUtensorMap map, float* out) {
  __shared__ __align__(128) float tile[4][256];
  __shared__ uint64_t bar;
  const uint32_t rank = ptx::get_sreg_cluster_ctarank();
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(&bar, 1);
    ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
  }
  ptx::barrier_cluster_arrive(ptx::sem_relaxed);
  ptx::barrier_cluster_wait();
  if (threadIdx.x == 0) {
    ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cluster, ptx::space_shared, &bar,
                                   sizeof(tile));
    const int32_t c[2] = {0, static_cast<int32_t>(rank) * 16};
    ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, tile[rank], &map, c, &bar,
                              static_cast<uint16_t>(0xF));
  }
  wait_parity(&bar, 0);
  float acc = 0.f;
  for (int q = 0; q < 4; ++q) acc += tile[q][threadIdx.x % 256];
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc + static_cast<float>(ptx::getctarank(ptx::space_cluster, &bar));
  ptx::barrier_cluster_arrive();
  ptx::barrier_cluster_wait();
}

// Device-side retargeting of a tensor map (grouped GEMM style): copy the
// template map to a per-CTA global slot, patch its base address and rank,
// then publish it to the async proxy before use.
__global__ void retarget_tensormap(CUtensorMap* slots, const __grid_constant__ CUtensorMap tmpl,
                                   const float* const* bases, float* out) {
  __shared__ __align__(128) CUtensorMap staged;
  __shared__ __align__(128) float tile[256];
  __shared__ uint64_t bar;
  CUtensorMap* mine = &slots[blockIdx.x];
  if (threadIdx.x < 32) {
    if (threadIdx.x == 0) {
      staged = tmpl;
      ptx::tensormap_replace_global_address(ptx::space_shared, &staged, bases[blockIdx.x]);
      ptx::tensormap_replace_rank(ptx::space_shared, &staged, 1u);
    }
    __syncwarp();
    ptx::tensormap_cp_fenceproxy(ptx::sem_release, ptx::scope_gpu, mine, &staged,
                                 ptx::n32_t<128>{});
  }
  if (threadIdx.x == 0) {
    ptx::fence_proxy_tensormap_generic(ptx::sem_acquire, ptx::scope_gpu, mine, ptx::n32_t<128>{});
    ptx::mbarrier_init(&bar, 1);
    ptx::fence_proxy_async(ptx::space_shared);
    ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar,
                                   sizeof(tile));
    const int32_t c[2] = {0, 0};
    ptx::cp_async_bulk_tensor(ptx::space_shared, ptx::space_global, tile, mine, c, &bar);
  }
  __syncthreads();
  wait_parity(&bar, 0);
  out[blockIdx.x * blockDim.x + threadIdx.x] = tile[threadIdx.x % 256];
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 1000
// Blackwell cluster launch control: a persistent-style loop that keeps
// cancelling not-yet-launched CTAs and processes their work itself.
__global__ void clc_work_stealing(float* data, int n) {
  __shared__ __align__(16) uint4 response;
  __shared__ uint64_t bar;
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(&bar, 1);
    ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
  }
  __syncthreads();
  int block = blockIdx.x;
  for (uint32_t phase = 0;; phase ^= 1) {
    const int i = block * blockDim.x + threadIdx.x;
    if (i < n) data[i] = data[i] * 2.f + 1.f;
    if (threadIdx.x == 0) {
      ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar,
                                     sizeof(response));
      ptx::clusterlaunchcontrol_try_cancel(&response, &bar);
    }
    wait_parity(&bar, phase);
    const __int128 resp = *reinterpret_cast<const __int128*>(&response);
    if (!ptx::clusterlaunchcontrol_query_cancel_is_canceled(resp)) break;
    block = ptx::clusterlaunchcontrol_query_cancel_get_first_ctaid_x<int>(resp);
    __syncthreads();
  }
}
#endif
