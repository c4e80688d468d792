// printf_assert.cu -- device-side printf, assert and traps.
//
// Exercises: vprintf calls with a packed argument buffer (call.uni with a
// declared .extern .func prototype and .param spaces), every printf argument
// kind (int, long long, unsigned, double promoted from float, char*, pointer),
// string constants in .global .b8 arrays, __assertfail from assert(), __trap,
// __brkpt, and __nanosleep in a retry loop.
//
// corpus-arch: sm_80
// corpus-variants: -G -lineinfo
#include <cassert>
#include <cstdio>

struct Particle {
  float x, y, z;
  int id;
};

__device__ void report(const Particle& p, int step) {
  printf("step %d: particle %d at (%f, %f, %f)\n", step, p.id, p.x, p.y, p.z);
}

__global__ void debug_dump(const Particle* particles, int n, int step, const char* tag) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0) printf("[%s] kernel start: n=%d grid=(%u,%u,%u) block=%u\n", tag, n, gridDim.x, gridDim.y, gridDim.z, blockDim.x);
  if (i >= n) return;
  const Particle p = particles[i];
  assert(p.id >= 0 && "particle ids are non-negative");
  if (i % 1024 == 0) report(p, step);
  if (p.x != p.x) {
    printf("NaN position for particle %d (ptr %p, size %llu, hex %#x, char %c)\n", p.id,
           static_cast<const void*>(particles + i), static_cast<unsigned long long>(sizeof(Particle)),
           static_cast<unsigned>(p.id), 'N');
    __trap();
  }
}

__device__ int retries;

__global__ void wait_for_flag(volatile int* flag, long long* elapsed) {
  const long long start = clock64();
  unsigned ns = 32;
  while (*flag == 0) {
    __nanosleep(ns);
    ns = ns < 4096 ? ns * 2 : ns;
    atomicAdd(&retries, 1);
  }
  elapsed[blockIdx.x] = clock64() - start;
  if (elapsed[blockIdx.x] < 0) {
    printf("clock went backwards on block %d: %lld\n", blockIdx.x, elapsed[blockIdx.x]);
    __brkpt();
  }
  assert(retries >= 0);
}
