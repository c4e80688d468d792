// tcgen05_attention.cu -- Blackwell flash-attention-style forward pass for one
// 128-query tile, .cta_group::1 throughout.
//
// Exercises: S = Q K^T with tcgen05.mma (both operands from smem), the
// softmax warps reading S with tcgen05.ld, writing P (bf16, packed in pairs)
// back to Tensor Memory with tcgen05.st and tcgen05.wait::st, O += P V with the
// A operand taken from TMEM (tcgen05.mma ... [a-tmem]), the O-rescaling
// "correction" step (tcgen05.ld + tcgen05.st on the accumulator), mbarrier
// handshakes between MMA, producer and softmax warps with
// tcgen05.fence::before/after_thread_sync, ex2.approx/max/fma math.
// Warp index: plain threadIdx.x / 32.
//
// corpus-arch: sm_100a
// corpus-variants: -lineinfo
#include <cuda_bf16.h>

#include "tcgen05_cta1.cuh"

namespace {

using namespace corpus::tc1;

constexpr int kTileQ = 128;
constexpr int kTileKV = 128;
constexpr int kHeadDim = 64;
constexpr uint32_t kColS = 0;      // S: 128 fp32 columns
constexpr uint32_t kColP = 128;    // P: 128 bf16 = 64 packed columns
constexpr uint32_t kColO = 256;    // O: 64 fp32 columns
constexpr uint32_t kTmemCols = 512;

struct alignas(1024) AttnSmem {
  __nv_bfloat16 q[kTileQ * kHeadDim];
  __nv_bfloat16 k[2][kTileKV * kHeadDim];
  __nv_bfloat16 v[2][kTileKV * kHeadDim];
  uint64_t q_bar;
  uint64_t kv_full[2];
  uint64_t kv_empty[2];
  uint64_t s_ready;   // MMA -> softmax: S complete
  uint64_t p_ready;   // softmax -> MMA: P written, O corrected
  uint64_t o_ready;   // MMA -> softmax: P V done
  uint32_t tmem_base;
};

__device__ __forceinline__ void tmem_st_32x32b_x16(uint32_t taddr, const uint32_t (&r)[16]) {
  asm volatile("tcgen05.st.sync.aligned.32x32b.x16.b32 [%0], {%1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16};"
               :: "r"(taddr),
                 "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]), "r"(r[6]), "r"(r[7]),
                 "r"(r[8]), "r"(r[9]), "r"(r[10]), "r"(r[11]), "r"(r[12]), "r"(r[13]), "r"(r[14]), "r"(r[15])
               : "memory");
}

__device__ __forceinline__ void tmem_st_32x32b_x32(uint32_t taddr, const uint32_t (&r)[32]) {
  asm volatile("tcgen05.st.sync.aligned.32x32b.x32.b32 [%0], {%1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32};"
               :: "r"(taddr),
                 "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]), "r"(r[6]), "r"(r[7]),
                 "r"(r[8]), "r"(r[9]), "r"(r[10]), "r"(r[11]), "r"(r[12]), "r"(r[13]), "r"(r[14]), "r"(r[15]),
                 "r"(r[16]), "r"(r[17]), "r"(r[18]), "r"(r[19]), "r"(r[20]), "r"(r[21]), "r"(r[22]), "r"(r[23]),
                 "r"(r[24]), "r"(r[25]), "r"(r[26]), "r"(r[27]), "r"(r[28]), "r"(r[29]), "r"(r[30]), "r"(r[31])
               : "memory");
}

__device__ __forceinline__ uint32_t bf16x2_bits(float lo, float hi) {
  __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<uint32_t*>(&v);
}

__device__ __forceinline__ float fast_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

}  // namespace

__global__ void __launch_bounds__(256, 1)
    attention_fwd_tcgen05(const __grid_constant__ CUtensorMap tmap_q,
                          const __grid_constant__ CUtensorMap tmap_k,
                          const __grid_constant__ CUtensorMap tmap_v, __nv_bfloat16* __restrict__ o,
                          int seq_kv, float softmax_scale_log2) {
  extern __shared__ __align__(1024) uint8_t smem_raw[];
  AttnSmem& ss = *reinterpret_cast<AttnSmem*>(smem_raw);
  const uint32_t warp = threadIdx.x / 32;
  const uint32_t lane = threadIdx.x % 32;
  const int q_row0 = blockIdx.x * kTileQ;
  const int head = blockIdx.y;
  const int kv_blocks = seq_kv / kTileKV;

  if (threadIdx.x == 0) {
    corpus::mbar_init(&ss.q_bar, 1);
    for (int s = 0; s < 2; ++s) {
      corpus::mbar_init(&ss.kv_full[s], 1);
      corpus::mbar_init(&ss.kv_empty[s], 1);
    }
    corpus::mbar_init(&ss.s_ready, 1);
    corpus::mbar_init(&ss.p_ready, 4);  // one arrive per softmax warp
    corpus::mbar_init(&ss.o_ready, 1);
    corpus::fence_mbarrier_init();
  }
  const uint32_t tmem = alloc_and_publish(&ss.tmem_base, kTmemCols, warp);

  if (warp == 1) {
    // ---------------------------------------------------------- producer
    if (corpus::elect_one()) {
      corpus::mbar_arrive_expect_tx(&ss.q_bar, sizeof(ss.q));
      corpus::tma_load_2d(ss.q, &tmap_q, &ss.q_bar, head * kHeadDim, q_row0);
      for (int j = 0; j < kv_blocks; ++j) {
        const int s = j & 1;
        corpus::mbar_wait(&ss.kv_empty[s], ((j >> 1) & 1) ^ 1);
        corpus::mbar_arrive_expect_tx(&ss.kv_full[s], sizeof(ss.k[0]) + sizeof(ss.v[0]));
        corpus::tma_load_2d(ss.k[s], &tmap_k, &ss.kv_full[s], head * kHeadDim, j * kTileKV);
        corpus::tma_load_2d(ss.v[s], &tmap_v, &ss.kv_full[s], head * kHeadDim, j * kTileKV);
      }
    }
  } else if (warp == 0) {
    // ---------------------------------------------------------- MMA warp
    constexpr uint32_t kIdescS = corpus::make_umma_idesc(1, 1, 1, kTileQ, kTileKV);
    // P V: A = P (K-major in TMEM), B = V transposed (MN-major, bit 16).
    constexpr uint32_t kIdescO = corpus::make_umma_idesc(1, 1, 1, kTileQ, kHeadDim) | (1u << 16);
    const bool leader = corpus::elect_one();
    corpus::mbar_wait(&ss.q_bar, 0);
    for (int j = 0; j < kv_blocks; ++j) {
      const int s = j & 1;
      corpus::mbar_wait(&ss.kv_full[s], (j >> 1) & 1);
      fence_after_thread_sync();
      if (leader) {
        const uint64_t q_desc = corpus::make_umma_desc(ss.q, 16, 1024, 2);
        const uint64_t k_desc = corpus::make_umma_desc(ss.k[s], 16, 1024, 2);
#pragma unroll
        for (int kk = 0; kk < kHeadDim / 16; ++kk) {
          asm volatile(
              "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %4, 0;\n\t"
              "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n\t}" ::"r"(tmem + kColS),
              "l"(q_desc + kk * 2), "l"(k_desc + kk * 2), "r"(kIdescS), "r"(kk));
        }
        commit(&ss.s_ready);
      }
      __syncwarp();
      // Softmax turns S into P in TMEM and rescales O.
      corpus::mbar_wait(&ss.p_ready, j & 1);
      fence_after_thread_sync();
      if (leader) {
        const uint64_t v_desc = corpus::make_umma_desc(ss.v[s], 8192, 1024, 2);
#pragma unroll
        for (int kk = 0; kk < kTileKV / 16; ++kk) {
          // P columns hold two bf16 each: 16 elements of K = 8 columns.
          asm volatile(
              "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %4, 0;\n\t"
              "tcgen05.mma.cta_group::1.kind::f16 [%0], [%1], %2, %3, p;\n\t}" ::"r"(tmem + kColO),
              "r"(tmem + kColP + kk * 8), "l"(v_desc + kk * 128), "r"(kIdescO),
              "r"(j | kk));
        }
        commit(&ss.kv_empty[s]);
        commit(&ss.o_ready);
      }
      __syncwarp();
    }
  } else if (warp >= 4) {
    // ---------------------------------------------------------- softmax
    const uint32_t quad = ((warp % 4) * 32) << 16;
    float row_max = -INFINITY;
    float row_sum = 0.f;
    for (int j = 0; j < kv_blocks; ++j) {
      corpus::mbar_wait(&ss.s_ready, j & 1);
      fence_after_thread_sync();
      uint32_t s_bits[4][32];
      float block_max = row_max;
#pragma unroll
      for (int c = 0; c < 4; ++c) {
        tmem_ld_32x32b_x32(tmem + quad + kColS + c * 32, s_bits[c]);
      }
      wait_ld();
#pragma unroll
      for (int c = 0; c < 4; ++c)
#pragma unroll
        for (int i = 0; i < 32; ++i) block_max = fmaxf(block_max, __uint_as_float(s_bits[c][i]));
      const float new_max = block_max * softmax_scale_log2;
      const float correction = fast_exp2(row_max * softmax_scale_log2 - new_max);
      row_max = block_max;
      row_sum *= correction;
#pragma unroll
      for (int c = 0; c < 4; ++c) {
        uint32_t p[16];
#pragma unroll
        for (int i = 0; i < 16; ++i) {
          const float e0 = fast_exp2(fmaf(__uint_as_float(s_bits[c][2 * i]), softmax_scale_log2, -new_max));
          const float e1 = fast_exp2(fmaf(__uint_as_float(s_bits[c][2 * i + 1]), softmax_scale_log2, -new_max));
          row_sum += e0 + e1;
          p[i] = bf16x2_bits(e0, e1);
        }
        tmem_st_32x32b_x16(tmem + quad + kColP + c * 16, p);
      }
      // Correction: O *= exp2(old_max - new_max) once P V of block j-1 landed.
      if (j > 0) {
        corpus::mbar_wait(&ss.o_ready, (j - 1) & 1);
        fence_after_thread_sync();
#pragma unroll
        for (int c = 0; c < kHeadDim; c += 32) {
          uint32_t acc[32];
          tmem_ld_32x32b_x32(tmem + quad + kColO + c, acc);
          wait_ld();
#pragma unroll
          for (int i = 0; i < 32; ++i) acc[i] = __float_as_uint(__uint_as_float(acc[i]) * correction);
          tmem_st_32x32b_x32(tmem + quad + kColO + c, acc);
        }
      }
      wait_st();
      fence_before_thread_sync();
      __syncwarp();
      if (lane == 0) corpus::mbar_arrive(&ss.p_ready);
    }
    // Final normalisation and store.
    corpus::mbar_wait(&ss.o_ready, (kv_blocks - 1) & 1);
    fence_after_thread_sync();
    const float inv_sum = 1.f / row_sum;
    __nv_bfloat16* dst =
        o + (static_cast<size_t>(q_row0 + (warp % 4) * 32 + lane) * gridDim.y + head) * kHeadDim;
#pragma unroll
    for (int c = 0; c < kHeadDim; c += 32) {
      uint32_t acc[32];
      tmem_ld_32x32b_x32(tmem + quad + kColO + c, acc);
      wait_ld();
#pragma unroll
      for (int i = 0; i < 16; ++i)
        reinterpret_cast<uint32_t*>(dst + c)[i] = bf16x2_bits(__uint_as_float(acc[2 * i]) * inv_sum,
                                                              __uint_as_float(acc[2 * i + 1]) * inv_sum);
    }
  }
  release(tmem, kTmemCols, warp);
}
