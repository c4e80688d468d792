// coop_groups.cu -- cooperative groups: tiled partitions, collectives and a
// grid-wide sync.
//
// Exercises: cg::tiled_partition (dynamic and static thread_block_tile<32/16/8/4>),
// tile.shfl / shfl_down / any / all / ballot / match_any, cg::reduce with
// cg::plus / cg::greater / cg::bit_xor, cg::inclusive_scan / exclusive_scan,
// coalesced_threads() / labeled_partition / binary_partition, thread_block
// sync and this_grid().sync() (grid barrier -> the cooperative-launch
// runtime path), and cg::memcpy_async + cg::wait.
//
// corpus-arch: sm_80 sm_90a
// corpus-variants: -G
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>

namespace cg = cooperative_groups;

template <class Tile>
__device__ float tile_sum(const Tile& tile, float v) {
  for (int offset = tile.size() / 2; offset > 0; offset /= 2) v += tile.shfl_down(v, offset);
  return v;
}

// Two-phase reduction with a grid-wide barrier between the phases.
__global__ void grid_sync_reduce(const float* __restrict__ in, float* __restrict__ partials,
                                 float* __restrict__ result, int n) {
  cg::grid_group grid = cg::this_grid();
  cg::thread_block block = cg::this_thread_block();
  auto warp = cg::tiled_partition<32>(block);
  __shared__ float warp_sums[32];
  float v = 0.f;
  for (int i = grid.thread_rank(); i < n; i += grid.size()) v += in[i];
  v = tile_sum(warp, v);
  if (warp.thread_rank() == 0) warp_sums[warp.meta_group_rank()] = v;
  block.sync();
  if (warp.meta_group_rank() == 0) {
    v = warp.thread_rank() < warp.meta_group_size() ? warp_sums[warp.thread_rank()] : 0.f;
    v = cg::reduce(warp, v, cg::plus<float>());
    if (warp.thread_rank() == 0) partials[blockIdx.x] = v;
  }
  grid.sync();
  if (grid.thread_rank() == 0) {
    float total = 0.f;
    for (unsigned b = 0; b < gridDim.x; ++b) total += partials[b];
    *result = total;
  }
}

// Static and dynamic tiles of several widths, scans and votes.
__global__ void tile_collectives(const int* __restrict__ in, int* __restrict__ out) {
  cg::thread_block block = cg::this_thread_block();
  const int v = in[block.group_index().x * block.size() + block.thread_rank()];
  auto t16 = cg::tiled_partition<16>(block);
  auto t8 = cg::tiled_partition<8>(block);
  auto t4 = cg::tiled_partition<4>(t8);
  cg::thread_group dyn = cg::tiled_partition(block, 32);
  const int max16 = cg::reduce(t16, v, cg::greater<int>());
  const int xor8 = cg::reduce(t8, v, cg::bit_xor<int>());
  const int scan4 = cg::inclusive_scan(t4, v);
  const int escan16 = cg::exclusive_scan(t16, v, cg::plus<int>());
  const unsigned ballot = t16.ballot(v > 0);
  const bool any = t8.any(v < 0), all = t8.all(v != 0);
  const unsigned same = t16.match_any(v & 7);
  dyn.sync();
  int r = max16 + xor8 + scan4 + escan16 + __popc(ballot) + any + 2 * all + __popc(same);
  r += t4.shfl(v, 3) + t16.shfl_xor(v, 1) + t8.shfl_up(v, 1);
  out[block.group_index().x * block.size() + block.thread_rank()] = r + dyn.thread_rank();
}

// Divergent groups: coalesced_threads, labeled and binary partitions.
__global__ void divergent_groups(const int* __restrict__ keys, int* __restrict__ out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int key = keys[i];
  int r = 0;
  if (key % 3 == 0) {
    cg::coalesced_group active = cg::coalesced_threads();
    r = active.size() * 100 + active.thread_rank();
    r += cg::reduce(active, key, cg::plus<int>());
  }
  auto warp = cg::tiled_partition<32>(cg::this_thread_block());
  cg::coalesced_group by_key = cg::labeled_partition(warp, key & 3);
  cg::coalesced_group by_sign = cg::binary_partition(warp, key < 0);
  r += by_key.size() + by_sign.thread_rank();
  r += cg::reduce(by_key, 1, cg::plus<int>());
  out[i] = r;
}

// Cooperative-groups async copy into shared memory.
__global__ void cg_memcpy_async_tile(const float4* __restrict__ in, float4* __restrict__ out) {
  __shared__ float4 tile[256];
  cg::thread_block block = cg::this_thread_block();
  cg::memcpy_async(block, tile, in + blockIdx.x * 256, sizeof(tile));
  cg::wait(block);
  const float4 a = tile[threadIdx.x], b = tile[255 - threadIdx.x];
  out[blockIdx.x * 256 + threadIdx.x] = make_float4(a.x + b.w, a.y + b.z, a.z + b.y, a.w + b.x);
}
