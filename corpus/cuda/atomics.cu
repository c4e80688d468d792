// atomics.cu -- the atomic and reduction instruction families.
//
// Exercises: atomicAdd on int / unsigned long long / float / double / __half2 /
// __nv_bfloat162, atomicSub / Exch / Min / Max / Inc / Dec / CAS / And / Or /
// Xor, _block and _system scoped variants (atom.cta / atom.sys), red.* (result
// unused), a CAS loop implementing a float atomic max, cuda::atomic_ref with
// explicit memory orders and scopes (ld.acquire / st.release / atom.acq_rel /
// fence.sc), shared-memory atomics, and 128-bit atomicCAS / atomicExch
// (sm_90) plus vector float atomics (red.global.v4.f32, sm_90).
//
// corpus-arch: sm_80 sm_90a
#include <cuda/atomic>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

__device__ float atomic_max_float(float* addr, float value) {
  int* as_int = reinterpret_cast<int*>(addr);
  int old = *as_int;
  while (__int_as_float(old) < value) {
    const int assumed = old;
    old = atomicCAS(as_int, assumed, __float_as_int(value));
    if (old == assumed) break;
  }
  return __int_as_float(old);
}

__global__ void atomic_zoo(int* ints, unsigned* uints, unsigned long long* u64, float* floats,
                           double* doubles, __half2* halves, __nv_bfloat162* bhalves,
                           const float* in, int* sink) {
  __shared__ int s_hist[64];
  __shared__ float s_sum;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float v = in[i];
  if (threadIdx.x < 64) s_hist[threadIdx.x] = 0;
  if (threadIdx.x == 0) s_sum = 0.f;
  __syncthreads();
  atomicAdd(&s_hist[i % 64], 1);
  atomicAdd(&s_sum, v);
  int r = 0;
  r += atomicAdd(&ints[0], 1);
  r += atomicSub(&ints[1], 2);
  r += atomicExch(&ints[2], i);
  r += atomicMin(&ints[3], i);
  r += atomicMax(&ints[4], i);
  r += atomicInc(&uints[0], 1023u);
  r += atomicDec(&uints[1], 1023u);
  r += atomicCAS(&ints[5], i, i + 1);
  r += atomicAnd(&ints[6], ~i);
  r += atomicOr(&ints[7], i);
  r += atomicXor(&ints[8], i);
  r += static_cast<int>(atomicAdd(&u64[0], 1ull));
  r += static_cast<int>(atomicCAS(&u64[1], 0ull, static_cast<unsigned long long>(i)));
  r += static_cast<int>(atomicMax(&u64[2], static_cast<unsigned long long>(i)));
  r += static_cast<int>(atomicAdd(&floats[0], v));
  r += static_cast<int>(atomicAdd(&doubles[0], static_cast<double>(v)));
  r += static_cast<int>(__low2float(atomicAdd(&halves[0], __floats2half2_rn(v, 1.f))));
  r += static_cast<int>(__low2float(atomicAdd(&bhalves[0], __floats2bfloat162_rn(v, 1.f))));
  r += static_cast<int>(atomic_max_float(&floats[1], v));
  // Scoped variants.
  r += atomicAdd_block(&ints[9], 1);
  r += atomicAdd_system(&ints[10], 1);
  r += atomicCAS_system(&ints[11], 0, 1);
  r += atomicExch_block(&ints[12], i);
  // Results discarded -> red.* instructions.
  atomicAdd(&ints[13], 3);
  atomicMin(&uints[2], static_cast<unsigned>(i));
  atomicAdd(&floats[2], v * 2.f);
  __syncthreads();
  if (threadIdx.x == 0) {
    atomicAdd(&floats[3], s_sum);
    for (int b = 0; b < 64; ++b) atomicAdd(&ints[14 + (b % 4)], s_hist[b]);
  }
  sink[i] = r;
}

// cuda::atomic_ref with explicit orders/scopes: a ticket lock and a
// message-passing flag between blocks.
__global__ void atomic_ref_orders(int* lock, int* data, int* flag, int* out) {
  cuda::atomic_ref<int, cuda::thread_scope_device> l(*lock);
  cuda::atomic_ref<int, cuda::thread_scope_system> f(*flag);
  cuda::atomic_ref<int, cuda::thread_scope_block> d(data[blockIdx.x]);
  if (threadIdx.x == 0) {
    int expected = 0;
    while (!l.compare_exchange_weak(expected, 1, cuda::memory_order_acquire,
                                    cuda::memory_order_relaxed))
      expected = 0;
    data[0] += 1;  // critical section
    l.store(0, cuda::memory_order_release);
    if (blockIdx.x == 0) {
      data[1] = 42;
      f.store(1, cuda::memory_order_release);
    } else {
      while (f.load(cuda::memory_order_acquire) == 0) {
      }
      out[blockIdx.x] = data[1];
    }
    cuda::atomic_thread_fence(cuda::memory_order_seq_cst, cuda::thread_scope_device);
  }
  __syncthreads();
  d.fetch_add(threadIdx.x, cuda::memory_order_relaxed);
  d.fetch_max(static_cast<int>(threadIdx.x), cuda::memory_order_acq_rel);
  out[gridDim.x + blockIdx.x * blockDim.x + threadIdx.x] = d.exchange(0, cuda::memory_order_seq_cst);
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
// Hopper additions: 128-bit atomics and vector float reductions.
struct alignas(16) Pair64 {
  unsigned long long lo, hi;
};

__global__ void atomics_sm90(Pair64* pairs, float4* acc4, float2* acc2, const float4* in) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  Pair64 expected = pairs[0];
  Pair64 desired{expected.lo + 1, expected.hi ^ static_cast<unsigned long long>(i)};
  Pair64 old = atomicCAS(&pairs[0], expected, desired);
  Pair64 prev = atomicExch(&pairs[1], old);
  const float4 v = in[i];
  atomicAdd(acc4, v);  // red.global.v4.f32.add
  atomicAdd(acc2, make_float2(v.x + static_cast<float>(prev.lo & 1), v.y));
  asm volatile("red.relaxed.gpu.global.add.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(acc4 + 1),
               "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w)
               : "memory");
}
#endif
