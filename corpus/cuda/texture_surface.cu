// texture_surface.cu -- texture and surface objects.
//
// Exercises: tex.1d / tex.2d / tex.3d / tex.a2d (layered) fetches with float
// and integer coordinates (.v4.f32.f32, .v4.s32.s32), tex.level (explicit
// LOD) and tex.grad, tld4 (gather), texture size queries (txq), surface
// loads/stores suld.b / sust.b with .trap / .clamp / .zero, sured, and
// .texref/.surfref-free bindless handles passed as .u64 params.
//
// corpus-arch: sm_80
#include <cuda_runtime.h>

__global__ void sample_textures(cudaTextureObject_t t1d, cudaTextureObject_t t2d,
                                cudaTextureObject_t t3d, cudaTextureObject_t tlayered,
                                cudaTextureObject_t tint, float4* __restrict__ out, int w, int h) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  const float u = (x + 0.5f) / w, v = (y + 0.5f) / h;
  float4 acc = tex1D<float4>(t1d, u);
  const float4 b = tex2D<float4>(t2d, u, v);
  const float4 c = tex3D<float4>(t3d, u, v, 0.5f);
  const float4 d = tex2DLayered<float4>(tlayered, u, v, y & 3);
  const float4 e = tex2DLod<float4>(t2d, u, v, 1.5f);
  const float4 g = tex2DGrad<float4>(t2d, u, v, make_float2(1.f / w, 0.f), make_float2(0.f, 1.f / h));
  const float4 gather = tex2Dgather<float4>(t2d, u, v, 1);
  const int4 iv = tex1Dfetch<int4>(tint, x);
  acc.x += b.x + c.x + d.x + e.x + g.x + gather.x + iv.x;
  acc.y += b.y + c.y + d.y + e.y + g.y + gather.y + iv.y;
  acc.z += b.z + c.z + d.z + e.z + g.z + gather.z + iv.z;
  acc.w += b.w + c.w + d.w + e.w + g.w + gather.w + iv.w;
  int tw;
  asm("txq.width.b32 %0, [%1];" : "=r"(tw) : "l"(t2d));
  acc.w += static_cast<float>(tw);
  out[y * w + x] = acc;
}

// Separable blur written through surfaces, with different boundary modes.
__global__ void surface_blur(cudaSurfaceObject_t src, cudaSurfaceObject_t dst, int w, int h) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float4 sum = make_float4(0.f, 0.f, 0.f, 0.f);
  for (int dx = -2; dx <= 2; ++dx) {
    const float4 p = surf2Dread<float4>(src, (x + dx) * sizeof(float4), y, cudaBoundaryModeClamp);
    sum.x += p.x;
    sum.y += p.y;
    sum.z += p.z;
    sum.w += p.w;
  }
  const uchar4 mask = surf2Dread<uchar4>(src, x * sizeof(uchar4), y, cudaBoundaryModeZero);
  sum.x *= 0.2f * (mask.x ? 1.f : 0.5f);
  surf2Dwrite(sum, dst, x * sizeof(float4), y, cudaBoundaryModeTrap);
  surf1Dwrite(static_cast<unsigned>(x ^ y), dst, x * sizeof(unsigned), cudaBoundaryModeClamp);
  float4 prev;
  asm volatile("suld.b.3d.v4.b32.trap {%0, %1, %2, %3}, [%4, {%5, %6, %7, %7}];"
               : "=f"(prev.x), "=f"(prev.y), "=f"(prev.z), "=f"(prev.w)
               : "l"(src), "r"(x * 16), "r"(y), "r"(0));
  asm volatile("sured.b.add.2d.u32.trap [%0, {%1, %2}], %3;" ::"l"(dst), "r"(x * 4), "r"(y),
               "r"(__float_as_uint(prev.x)));
}
