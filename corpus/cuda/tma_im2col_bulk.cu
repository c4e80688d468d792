// tma_im2col_bulk.cu -- the less common TMA / bulk-copy forms, hand-written.
//
// Exercises: cp.async.bulk.tensor.{3,4,5}d .im2col loads with im2col offsets,
// .L2::cache_hint operands (createpolicy), cp.async.bulk.prefetch.tensor
// (tile and im2col), cp.async.bulk.prefetch.L2, non-tensor cp.async.bulk
// global->shared, shared->global (.bulk_group) and shared::cta->shared::cluster
// (peer CTA, mbarrier-completed), cp.reduce.async.bulk .add.f32 / .min.u32 /
// .inc.u32 / .and.b32 (non-tensor), multicast non-tensor loads, and on
// sm_100a the .tile::gather4 / .tile::scatter4 forms.
//
// corpus-arch: sm_90a sm_100a
#include "corpus_ptx.cuh"

namespace {

__device__ __forceinline__ uint64_t evict_last_policy() {
  uint64_t p;
  asm volatile("createpolicy.fractional.L2::evict_last.L2::evict_unchanged.b64 %0, 0.5;"
               : "=l"(p));
  return p;
}

}  // namespace

// Implicit-GEMM convolution operand fetch: NHWC activations through im2col.
__global__ void __launch_bounds__(128) conv_im2col_loads(const __grid_constant__ CUtensorMap act3,
                                                         const __grid_constant__ CUtensorMap act4,
                                                         const __grid_constant__ CUtensorMap act5,
                                                         float* out, int n, int h, int w) {
  __shared__ __align__(128) uint8_t buf[3][4096];
  __shared__ uint64_t bar;
  if (threadIdx.x == 0) {
    corpus::mbar_init(&bar, 1);
    corpus::fence_mbarrier_init();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    const uint64_t pol = evict_last_policy();
    asm volatile("cp.async.bulk.prefetch.tensor.4d.L2.global.im2col [%0, {%1, %2, %3, %4}], {%5, %6};" ::"l"(
                     &act4),
                 "r"(0), "r"(w), "r"(h), "r"(n), "h"(static_cast<uint16_t>(1)),
                 "h"(static_cast<uint16_t>(1)));
    asm volatile("cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%0, {%1, %2}];" ::"l"(&act3),
                 "r"(0), "r"(h));
    corpus::mbar_arrive_expect_tx(&bar, sizeof(buf));
    asm volatile(
        "cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes"
        " [%0], [%1, {%2, %3, %4}], [%5], {%6};" ::"r"(corpus::smem_u32(buf[0])),
        "l"(&act3), "r"(0), "r"(w), "r"(n), "r"(corpus::smem_u32(&bar)),
        "h"(static_cast<uint16_t>(0)));
    asm volatile(
        "cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes"
        ".L2::cache_hint [%0], [%1, {%2, %3, %4, %5}], [%6], {%7, %8}, %9;" ::"r"(
            corpus::smem_u32(buf[1])),
        "l"(&act4), "r"(0), "r"(w), "r"(h), "r"(n), "r"(corpus::smem_u32(&bar)),
        "h"(static_cast<uint16_t>(0)), "h"(static_cast<uint16_t>(1)), "l"(pol));
    asm volatile(
        "cp.async.bulk.tensor.5d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes"
        " [%0], [%1, {%2, %3, %4, %5, %6}], [%7], {%8, %9, %10};" ::"r"(corpus::smem_u32(buf[2])),
        "l"(&act5), "r"(0), "r"(w), "r"(h), "r"(1), "r"(n), "r"(corpus::smem_u32(&bar)),
        "h"(static_cast<uint16_t>(0)), "h"(static_cast<uint16_t>(1)),
        "h"(static_cast<uint16_t>(2)));
  }
  corpus::mbar_wait(&bar, 0);
  const float* f = reinterpret_cast<const float*>(buf);
  out[blockIdx.x * blockDim.x + threadIdx.x] = f[threadIdx.x] + f[1024 + threadIdx.x] + f[2048 + threadIdx.x];
}

// Non-tensor bulk copies and bulk reductions on a flat buffer.
__global__ void __launch_bounds__(128) bulk_copy_and_reduce(const float* __restrict__ src,
                                                            float* __restrict__ dst,
                                                            uint32_t* __restrict__ counters,
                                                            int chunk_floats) {
  __shared__ __align__(128) float stage[2048];
  __shared__ __align__(16) uint32_t flags[64];
  __shared__ uint64_t bar;
  const size_t base = static_cast<size_t>(blockIdx.x) * chunk_floats;
  const uint32_t bytes = chunk_floats * sizeof(float);
  if (threadIdx.x == 0) {
    corpus::mbar_init(&bar, 1);
    corpus::fence_mbarrier_init();
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(src + base + chunk_floats),
                 "r"(bytes));
    corpus::mbar_arrive_expect_tx(&bar, bytes);
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint"
        " [%0], [%1], %2, [%3], %4;" ::"r"(corpus::smem_u32(stage)),
        "l"(src + base), "r"(bytes), "r"(corpus::smem_u32(&bar)), "l"(evict_last_policy())
        : "memory");
  }
  __syncthreads();
  corpus::mbar_wait(&bar, 0);
  for (int i = threadIdx.x; i < chunk_floats; i += blockDim.x) stage[i] = stage[i] * 0.5f;
  if (threadIdx.x < 64) flags[threadIdx.x] = threadIdx.x;
  corpus::fence_proxy_async_smem();
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst + base),
                 "r"(corpus::smem_u32(stage)), "r"(bytes)
                 : "memory");
    asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%0], [%1], %2;" ::"l"(
                     dst),
                 "r"(corpus::smem_u32(stage)), "r"(bytes)
                 : "memory");
    asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.min.u32 [%0], [%1], 256;" ::"l"(
                     counters),
                 "r"(corpus::smem_u32(flags))
                 : "memory");
    asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.inc.u32 [%0], [%1], 256;" ::"l"(
                     counters + 64),
                 "r"(corpus::smem_u32(flags))
                 : "memory");
    asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.and.b32 [%0], [%1], 256;" ::"l"(
                     counters + 128),
                 "r"(corpus::smem_u32(flags))
                 : "memory");
    corpus::bulk_commit_group();
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  }
}

// A 2-CTA cluster where CTA 0 pushes its smem chunk into CTA 1 with a
// shared::cta -> shared::cluster bulk copy, and both receive a multicast load.
__global__ void __cluster_dims__(2, 1, 1) bulk_peer_push(const float* __restrict__ src,
                                                         float* __restrict__ out) {
  __shared__ __align__(128) float mine[512];
  __shared__ __align__(128) float from_peer[512];
  __shared__ __align__(128) float shared_in[512];
  __shared__ uint64_t bar;
  const uint32_t rank = corpus::cluster_ctarank();
  if (threadIdx.x == 0) {
    corpus::mbar_init(&bar, 1);
    corpus::fence_mbarrier_init();
  }
  for (int i = threadIdx.x; i < 512; i += blockDim.x) mine[i] = src[blockIdx.x * 512 + i];
  corpus::fence_proxy_async_smem();
  corpus::cluster_sync();
  if (threadIdx.x == 0) {
    // Receiver side expects: peer push (CTA 1 only) + its half of the multicast.
    corpus::mbar_arrive_expect_tx(&bar, (rank == 1 ? sizeof(from_peer) : 0) + sizeof(shared_in));
  }
  corpus::cluster_sync();
  if (threadIdx.x == 0) {
    if (rank == 0) {
      uint32_t peer_dst, peer_bar;
      asm volatile("mapa.shared::cluster.u32 %0, %1, 1;" : "=r"(peer_dst) : "r"(corpus::smem_u32(from_peer)));
      asm volatile("mapa.shared::cluster.u32 %0, %1, 1;" : "=r"(peer_bar) : "r"(corpus::smem_u32(&bar)));
      asm volatile(
          "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
              peer_dst),
          "r"(corpus::smem_u32(mine)), "r"(static_cast<uint32_t>(sizeof(mine))), "r"(peer_bar)
          : "memory");
    }
    // Each CTA loads half of `shared_in` and multicasts it to both.
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
        " [%0], [%1], %2, [%3], %4;" ::"r"(corpus::smem_u32(shared_in + rank * 256)),
        "l"(src + 4096 + rank * 256), "r"(1024u), "r"(corpus::smem_u32(&bar)),
        "h"(static_cast<uint16_t>(0x3))
        : "memory");
  }
  corpus::mbar_wait(&bar, 0);
  const float extra = rank == 1 ? from_peer[threadIdx.x % 512] : 0.f;
  out[blockIdx.x * blockDim.x + threadIdx.x] = shared_in[threadIdx.x % 512] + extra;
  corpus::cluster_sync();
}

#if defined(__CUDA_ARCH_FEAT_SM100_ALL)
// Row gather / scatter of four rows at a time (MoE token routing style).
__global__ void __launch_bounds__(128) gather4_scatter4_rows(const __grid_constant__ CUtensorMap rows,
                                                             const __grid_constant__ CUtensorMap dst_rows,
                                                             const int* __restrict__ index) {
  __shared__ __align__(128) uint8_t buf[4 * 256];
  __shared__ uint64_t bar;
  const int* idx = index + blockIdx.x * 4;
  if (threadIdx.x == 0) {
    corpus::mbar_init(&bar, 1);
    corpus::fence_mbarrier_init();
    corpus::mbar_arrive_expect_tx(&bar, sizeof(buf));
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cta.global.tile::gather4.mbarrier::complete_tx::bytes"
        " [%0], [%1, {%2, %3, %4, %5, %6}], [%7];" ::"r"(corpus::smem_u32(buf)),
        "l"(&rows), "r"(0), "r"(idx[0]), "r"(idx[1]), "r"(idx[2]), "r"(idx[3]),
        "r"(corpus::smem_u32(&bar))
        : "memory");
  }
  __syncthreads();
  corpus::mbar_wait(&bar, 0);
  if (threadIdx.x == 0) {
    asm volatile(
        "cp.async.bulk.tensor.2d.global.shared::cta.tile::scatter4.bulk_group"
        " [%0, {%1, %2, %3, %4, %5}], [%6];" ::"l"(&dst_rows),
        "r"(0), "r"(blockIdx.x * 4), "r"(blockIdx.x * 4 + 1), "r"(blockIdx.x * 4 + 2),
        "r"(blockIdx.x * 4 + 3), "r"(corpus::smem_u32(buf))
        : "memory");
    corpus::bulk_commit_group();
    corpus::bulk_wait_group_read<0>();
  }
}
#endif
