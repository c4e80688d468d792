// calls_recursion.cu -- real (non-inlined) device calls.
//
// Exercises: __noinline__ device functions with .func declarations, .param
// passing of scalars, structs by value and returned structs (.param .align
// .b8 arrays), recursion (call to self, needs a stack: .local / %SP / %SPL),
// mutual recursion, function pointers (call through a register with a
// prototype label: "prototype_N : .callprototype"), virtual functions
// (vtables in .global), a device-side lambda, variadic templates, and
// extern "C" linkage names alongside mangled ones.
//
// corpus-arch: sm_80 sm_90a
// corpus-variants: -G -lineinfo
#include <cstdint>

struct Vec3 {
  float x, y, z;
};

struct Ray {
  Vec3 origin, dir;
  int depth;
};

__device__ __noinline__ Vec3 add(Vec3 a, Vec3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }

__device__ __noinline__ Vec3 scale(const Vec3& a, float s) { return {a.x * s, a.y * s, a.z * s}; }

__device__ __noinline__ float dot(Vec3 a, Vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

// Recursive reflection tracer over a fixed plane set (needs a call stack).
__device__ __noinline__ Vec3 trace(Ray r, const float4* planes, int nplanes) {
  if (r.depth <= 0) return {0.f, 0.f, 0.f};
  float best = 1e30f;
  int hit = -1;
  for (int i = 0; i < nplanes; ++i) {
    const Vec3 n{planes[i].x, planes[i].y, planes[i].z};
    const float denom = dot(n, r.dir);
    if (fabsf(denom) < 1e-6f) continue;
    const float t = (planes[i].w - dot(n, r.origin)) / denom;
    if (t > 1e-4f && t < best) {
      best = t;
      hit = i;
    }
  }
  if (hit < 0) return {0.2f, 0.3f, 0.5f};
  const Vec3 n{planes[hit].x, planes[hit].y, planes[hit].z};
  Ray bounce;
  bounce.origin = add(r.origin, scale(r.dir, best));
  bounce.dir = add(r.dir, scale(n, -2.f * dot(n, r.dir)));
  bounce.depth = r.depth - 1;
  return scale(trace(bounce, planes, nplanes), 0.8f);
}

// Mutual recursion.
__device__ __noinline__ bool is_odd(unsigned n);
__device__ __noinline__ bool is_even(unsigned n) { return n == 0 ? true : is_odd(n - 1); }
__device__ __noinline__ bool is_odd(unsigned n) { return n == 0 ? false : is_even(n - 1); }

__device__ __noinline__ uint64_t fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

// Function-pointer dispatch (indirect calls with .callprototype).
using Activation = float (*)(float);
__device__ __noinline__ float relu(float x) { return x > 0.f ? x : 0.f; }
__device__ __noinline__ float gelu_tanh(float x) {
  return 0.5f * x * (1.f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
}
__device__ __noinline__ float silu(float x) { return x / (1.f + __expf(-x)); }
__device__ Activation kActivations[3] = {relu, gelu_tanh, silu};

// Virtual dispatch.
struct Shape {
  __device__ virtual float area() const = 0;
  __device__ virtual ~Shape() {}
};
struct Circle : Shape {
  float r;
  __device__ explicit Circle(float r_) : r(r_) {}
  __device__ float area() const override { return 3.14159265f * r * r; }
};
struct Rect : Shape {
  float w, h;
  __device__ Rect(float w_, float h_) : w(w_), h(h_) {}
  __device__ float area() const override { return w * h; }
};

template <typename... Ts>
__device__ __noinline__ float sum_all(Ts... xs) {
  return (0.f + ... + static_cast<float>(xs));
}

extern "C" __device__ __noinline__ int c_linkage_helper(int a, int b) { return a * 31 + b; }

__global__ void calls_kernel(const float4* planes, int nplanes, const float* x, float* out,
                             int which, uint64_t* fibs) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  Ray r{{0.f, 0.f, 0.f}, {x[i], 1.f, 0.5f}, 4};
  const Vec3 c = trace(r, planes, nplanes);
  const Activation act = kActivations[which % 3];
  float y = act(x[i]);
  Circle circle(x[i]);
  Rect rect(x[i], 2.f);
  const Shape* shapes[2] = {&circle, &rect};
  y += shapes[i & 1]->area();
  auto lerp = [=](float a, float b) { return a + (b - a) * c.y; };
  y += lerp(c.x, c.z) + sum_all(1, 2u, 3.0, 4.f, i);
  y += is_even(static_cast<unsigned>(i % 64)) ? 1.f : 0.f;
  y += static_cast<float>(c_linkage_helper(i, which));
  if (i < 32) fibs[i] = fib(i % 20);
  out[i] = y;
}
