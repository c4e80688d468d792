__device__ __forceinline__ unsigned lane_of() {
    unsigned x;
    asm volatile("mov.u32 %0 %%tid.x;" : "=r"(x));
    return x;
}

__global__ void kernel(unsigned *out) {
    out[threadIdx.x] = lane_of();
}
