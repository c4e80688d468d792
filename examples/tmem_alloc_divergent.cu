// A Blackwell (sm_100a) kernel prologue with a bug ptxas accepts: the tensor-memory allocation
// runs in only half of warp 0. tcgen05.alloc is `.sync.aligned`: all 32 lanes of the warp must
// execute it together, or the kernel hangs or corrupts the allocator's state.
//
//     ptxlint examples/tmem_alloc_divergent.cu          (compiles with nvcc -arch=sm_100a)
#include <cstdint>

__device__ uint32_t smem_address(const void *pointer)
{
    return static_cast<uint32_t>(__cvta_generic_to_shared(pointer));
}

__global__ void accumulate_in_tmem(uint32_t *out)
{
    __shared__ uint32_t tmem_base;
    if (threadIdx.x < 16) {  // bug: should be `threadIdx.x < 32`, the whole of warp 0
        asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 32;" :: "r"(smem_address(&tmem_base)));
        asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;");
    }
    __syncthreads();
    out[threadIdx.x] = tmem_base;
    __syncthreads();
    if (threadIdx.x < 32) {
        asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 32;" :: "r"(tmem_base));
    }
}
