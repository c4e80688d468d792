// hopper_async_misc.cu -- Hopper-era synchronisation and async primitives.
//
// Exercises: programmatic dependent launch (griddepcontrol.wait /
// griddepcontrol.launch_dependents via cudaGridDependencySynchronize /
// cudaTriggerProgrammaticLaunchCompletion), st.async and red.async to a peer
// CTA's shared memory completing on its mbarrier, mbarrier.expect_tx /
// complete_tx, mbarrier.try_wait with a suspend-time hint, mbarrier.arrive
// with a count, mbarrier.pending_count, fence.acq_rel.cluster,
// fence.proxy.alias, ld.acquire / st.release / ld.relaxed at cluster and gpu
// scope, multimem.ld_reduce / multimem.st / multimem.red on multicast
// addresses, and stack-free sleep (nanosleep) backoff.
//
// corpus-arch: sm_90a sm_100a
#include "corpus_ptx.cuh"

// Producer half of a PDL pair: signal dependents early, keep working.
__global__ void pdl_producer(const float* __restrict__ in, float* __restrict__ mid, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float v = i < n ? in[i] * 2.f : 0.f;
  cudaTriggerProgrammaticLaunchCompletion();  // griddepcontrol.launch_dependents
  if (i < n) mid[i] = v;
}

// Consumer half: prologue overlaps the producer, then waits for its memory.
__global__ void pdl_consumer(const float* __restrict__ mid, const float* __restrict__ bias,
                             float* __restrict__ out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float b = i < n ? bias[i] : 0.f;  // independent of the producer
  cudaGridDependencySynchronize();        // griddepcontrol.wait
  if (i < n) out[i] = mid[i] + b;
}

// Each CTA of a 2-CTA cluster pushes values into the peer's smem with
// st.async / red.async; completion is tracked in bytes on the peer's barrier.
__global__ void __cluster_dims__(2, 1, 1) async_peer_stores(const uint32_t* __restrict__ in,
                                                            uint32_t* __restrict__ out) {
  __shared__ __align__(16) uint32_t inbox[256];
  __shared__ __align__(8) uint64_t counter;
  __shared__ uint64_t bar;
  const uint32_t rank = corpus::cluster_ctarank(), peer = rank ^ 1;
  if (threadIdx.x == 0) {
    corpus::mbar_init(&bar, 1);
    counter = 0;
    corpus::fence_mbarrier_init();
  }
  inbox[threadIdx.x] = 0;
  corpus::cluster_sync();
  if (threadIdx.x == 0) {
    // 256 x 4-byte st.async + 8-byte red.async = bytes expected from the peer.
    asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(
                     corpus::smem_u32(&bar)),
                 "r"(256u * 4u + 8u)
                 : "memory");
    corpus::mbar_arrive(&bar);
  }
  corpus::cluster_sync();
  uint32_t remote_slot, remote_bar, remote_counter;
  asm("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote_slot) : "r"(corpus::smem_u32(&inbox[threadIdx.x])), "r"(peer));
  asm("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote_bar) : "r"(corpus::smem_u32(&bar)), "r"(peer));
  asm("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote_counter) : "r"(corpus::smem_u32(&counter)), "r"(peer));
  asm volatile(
      "st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], %1, [%2];" ::"r"(remote_slot),
      "r"(in[blockIdx.x * 256 + threadIdx.x]), "r"(remote_bar)
      : "memory");
  if (threadIdx.x == 0) {
    asm volatile(
        "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u64 [%0], %1, [%2];" ::"r"(
            remote_counter),
        "l"(1ull), "r"(remote_bar)
        : "memory");
  }
  // Wait with a suspend-time hint (ns) instead of a hot spin.
  uint32_t done = 0;
  while (!done) {
    asm volatile(
        "{\n\t.reg .pred p;\n\t"
        "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], 0, %2;\n\t"
        "selp.u32 %0, 1, 0, p;\n\t}"
        : "=r"(done)
        : "r"(corpus::smem_u32(&bar)), "r"(1000000u)
        : "memory");
  }
  out[blockIdx.x * 256 + threadIdx.x] = inbox[threadIdx.x] + static_cast<uint32_t>(counter);
  corpus::cluster_sync();
}

// Flag-based handoff across a cluster and a gpu-scope counter with explicit
// acquire/release loads and stores and arrive-with-count.
__global__ void __cluster_dims__(2, 1, 1) scoped_memory_ops(int* __restrict__ flag,
                                                            int* __restrict__ data,
                                                            int* __restrict__ out) {
  __shared__ uint64_t bar;
  if (threadIdx.x == 0) {
    corpus::mbar_init(&bar, blockDim.x / 32);
    corpus::fence_mbarrier_init();
  }
  __syncthreads();
  if (threadIdx.x % 32 == 0) {
    uint64_t state;
    asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 %0, [%1], 1;"
                 : "=l"(state)
                 : "r"(corpus::smem_u32(&bar))
                 : "memory");
    uint32_t pending;
    asm volatile("mbarrier.pending_count.b64 %0, %1;" : "=r"(pending) : "l"(state));
    out[blockIdx.x * blockDim.x + threadIdx.x] = pending;
  }
  corpus::mbar_wait(&bar, 0);
  if (threadIdx.x == 0) {
    if (blockIdx.x == 0) {
      asm volatile("st.relaxed.gpu.global.s32 [%0], %1;" ::"l"(data), "r"(123) : "memory");
      asm volatile("fence.acq_rel.cluster;" ::: "memory");
      asm volatile("st.release.gpu.global.s32 [%0], 1;" ::"l"(flag) : "memory");
    } else {
      int f = 0;
      while (f == 0) {
        asm volatile("ld.acquire.gpu.global.s32 %0, [%1];" : "=r"(f) : "l"(flag) : "memory");
        if (f == 0) __nanosleep(100);
      }
      int v;
      asm volatile("ld.relaxed.cluster.global.s32 %0, [%1];" : "=r"(v) : "l"(data) : "memory");
      out[0] = v;
    }
    asm volatile("fence.proxy.alias;" ::: "memory");
  }
}

// NVLink-SHARP style multimem ops on a multicast object address.
__global__ void multimem_allreduce(float* __restrict__ mc_ptr, float* __restrict__ local, int n) {
  const int i = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
  if (i + 3 >= n) return;
  float4 sum;
  asm volatile("multimem.ld_reduce.relaxed.sys.global.add.v4.f32 {%0, %1, %2, %3}, [%4];"
               : "=f"(sum.x), "=f"(sum.y), "=f"(sum.z), "=f"(sum.w)
               : "l"(mc_ptr + i)
               : "memory");
  asm volatile("multimem.st.relaxed.sys.global.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(mc_ptr + i),
               "f"(sum.x), "f"(sum.y), "f"(sum.z), "f"(sum.w)
               : "memory");
  asm volatile("multimem.red.relaxed.sys.global.add.f32 [%0], %1;" ::"l"(mc_ptr + n), "f"(sum.x)
               : "memory");
  local[i] = sum.x + sum.y + sum.z + sum.w;
}
