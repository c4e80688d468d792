#include <cstdint>

__device__ __forceinline__ void lane_barrier() {
    __syncwarp();
}

__global__ void kernel(uint32_t *out, int n)
{
    unsigned lane = threadIdx.x % 32;
    if (lane < 16) {
        lane_barrier();
    }
    for (int i = 0; i < n; ++i) {
        out[i] = lane;
    }
}
