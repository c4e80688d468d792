// tcgen05_mma_kinds.cu -- one 128xN output tile per CTA for every dense
// tcgen05.mma kind, .cta_group::1 throughout.
//
// Exercises: tcgen05.mma .kind::f16 (bf16 -> f32 and f16 -> f16 accumulate),
// .kind::tf32, .kind::f8f6f4 (e4m3 x e5m2), .kind::i8 (s8 x u8 -> s32), the
// disable-output-lane vector operand and the scale-input-d immediate, M=64 and
// M=128 tiles with N from 64 to 256, tcgen05.commit to an mbarrier, TMA 2-D
// loads, and a templated kernel instantiated explicitly per kind (mangled
// template names in .entry).  Warp index: plain threadIdx.x / 32.
//
// corpus-arch: sm_100a
#include "tcgen05_cta1.cuh"

namespace {

using namespace corpus::tc1;

constexpr int kKBytes = 128;  // K extent per smem stage: one 128B swizzle atom
constexpr int kStages = 2;
constexpr int kMmaKBytes = 32;  // every dense kind consumes 32 bytes of K per MMA

template <int M, int N>
struct alignas(1024) TileSmem {
  uint8_t a[kStages][M * kKBytes];
  uint8_t b[kStages][N * kKBytes];
  uint64_t full_bar[kStages];
  uint64_t empty_bar[kStages];
  uint64_t mma_done;
  uint32_t tmem_base;
};

// Instruction-descriptor format codes (bits 4..5 D, 7..9 A, 10..12 B).
enum : uint32_t { kD_F16 = 0, kD_F32 = 1, kD_S32 = 2 };
enum : uint32_t { kF16 = 0, kBF16 = 1, kTF32 = 2 };
enum : uint32_t { kE4M3 = 0, kE5M2 = 1 };
enum : uint32_t { kU8 = 0, kS8 = 1 };

// Each policy issues one MMA of its kind; `acc` is the enable-input-d flag.
struct Bf16F32 {
  static constexpr int kM = 128, kN = 256;
  using Out = float;
  static constexpr uint32_t kIdesc = corpus::make_umma_idesc(kD_F32, kBF16, kBF16, kM, kN);
  __device__ static void mma(uint32_t d, uint64_t a, uint64_t b, uint32_t acc) {
    asm volatile(
        "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %4, 0;\n\t"
        "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n\t}" ::"r"(d),
        "l"(a), "l"(b), "r"(kIdesc), "r"(acc));
  }
};

struct F16F16 {
  static constexpr int kM = 64, kN = 128;
  using Out = uint32_t;  // packed f16x2 accumulators
  static constexpr uint32_t kIdesc = corpus::make_umma_idesc(kD_F16, kF16, kF16, kM, kN);
  __device__ static void mma(uint32_t d, uint64_t a, uint64_t b, uint32_t acc) {
    asm volatile(
        "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %4, 0;\n\t"
        "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n\t}" ::"r"(d),
        "l"(a), "l"(b), "r"(kIdesc), "r"(acc));
  }
};

struct Tf32 {
  static constexpr int kM = 128, kN = 128;
  using Out = float;
  static constexpr uint32_t kIdesc = corpus::make_umma_idesc(kD_F32, kTF32, kTF32, kM, kN);
  __device__ static void mma(uint32_t d, uint64_t a, uint64_t b, uint32_t acc) {
    asm volatile(
        "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %4, 0;\n\t"
        "tcgen05.mma.cta_group::1.kind::tf32 [%0], %1, %2, %3, p;\n\t}" ::"r"(d),
        "l"(a), "l"(b), "r"(kIdesc), "r"(acc));
  }
};

struct Fp8 {
  static constexpr int kM = 128, kN = 256;
  using Out = float;
  static constexpr uint32_t kIdesc = corpus::make_umma_idesc(kD_F32, kE4M3, kE5M2, kM, kN);
  __device__ static void mma(uint32_t d, uint64_t a, uint64_t b, uint32_t acc) {
    asm volatile(
        "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %4, 0;\n\t"
        "tcgen05.mma.cta_group::1.kind::f8f6f4 [%0], %1, %2, %3, p;\n\t}" ::"r"(d),
        "l"(a), "l"(b), "r"(kIdesc), "r"(acc));
  }
};

struct Int8 {
  static constexpr int kM = 128, kN = 64;
  using Out = int32_t;
  static constexpr uint32_t kIdesc = corpus::make_umma_idesc(kD_S32, kS8, kU8, kM, kN);
  __device__ static void mma(uint32_t d, uint64_t a, uint64_t b, uint32_t acc) {
    asm volatile(
        "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %4, 0;\n\t"
        "tcgen05.mma.cta_group::1.kind::i8 [%0], %1, %2, %3, p;\n\t}" ::"r"(d),
        "l"(a), "l"(b), "r"(kIdesc), "r"(acc));
  }
};

// TMEM allocations are powers of two and at least 32 columns.
__host__ __device__ constexpr uint32_t tmem_cols_for(int n) { return n < 32 ? 32 : n; }

}  // namespace

// C[tile] = A[tile rows, :] * B[tile cols, :]^T for one kind.  4 warps:
// warp 0 owns TMEM and issues MMAs, warp 1 runs TMA, all 4 drain TMEM.
template <class Kind>
__global__ void __launch_bounds__(128)
    umma_tile_kernel(const __grid_constant__ CUtensorMap tmap_a,
                     const __grid_constant__ CUtensorMap tmap_b, typename Kind::Out* out, int ldo,
                     int k_bytes) {
  using Smem = TileSmem<Kind::kM, Kind::kN>;
  constexpr uint32_t kCols = tmem_cols_for(Kind::kN);
  constexpr uint32_t kStageBytes = (Kind::kM + Kind::kN) * kKBytes;
  extern __shared__ __align__(1024) uint8_t smem_raw[];
  Smem& ss = *reinterpret_cast<Smem*>(smem_raw);
  const uint32_t warp = threadIdx.x / 32;
  const uint32_t lane = threadIdx.x % 32;
  const int k_blocks = k_bytes / kKBytes;

  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      corpus::mbar_init(&ss.full_bar[s], 1);
      corpus::mbar_init(&ss.empty_bar[s], 1);
    }
    corpus::mbar_init(&ss.mma_done, 1);
    corpus::fence_mbarrier_init();
  }
  const uint32_t tmem = alloc_and_publish(&ss.tmem_base, kCols, warp);

  if (warp == 1 && corpus::elect_one()) {
    for (int kb = 0; kb < k_blocks; ++kb) {
      const int s = kb % kStages;
      corpus::mbar_wait(&ss.empty_bar[s], ((kb / kStages) & 1) ^ 1);
      corpus::mbar_arrive_expect_tx(&ss.full_bar[s], kStageBytes);
      corpus::tma_load_2d(ss.a[s], &tmap_a, &ss.full_bar[s], kb * kKBytes, blockIdx.y * Kind::kM);
      corpus::tma_load_2d(ss.b[s], &tmap_b, &ss.full_bar[s], kb * kKBytes, blockIdx.x * Kind::kN);
    }
  } else if (warp == 0) {
    const bool leader = corpus::elect_one();
    for (int kb = 0; kb < k_blocks; ++kb) {
      const int s = kb % kStages;
      corpus::mbar_wait(&ss.full_bar[s], (kb / kStages) & 1);
      fence_after_thread_sync();
      if (leader) {
        const uint64_t a_desc = corpus::make_umma_desc(ss.a[s], 16, 1024, 2);
        const uint64_t b_desc = corpus::make_umma_desc(ss.b[s], 16, 1024, 2);
#pragma unroll
        for (int kk = 0; kk < kKBytes / kMmaKBytes; ++kk)
          Kind::mma(tmem, a_desc + ((kk * kMmaKBytes) >> 4), b_desc + ((kk * kMmaKBytes) >> 4),
                    (kb | kk) != 0);
        commit(&ss.empty_bar[s]);
      }
      __syncwarp();
    }
    if (leader) commit(&ss.mma_done);
    __syncwarp();
  }

  // Epilogue: every warp reads its lane quadrant.  With M=64 only the first
  // two quadrants hold results.
  if (warp * 32 < Kind::kM) {
    corpus::mbar_wait(&ss.mma_done, 0);
    fence_after_thread_sync();
    const uint32_t row_addr = tmem + (((warp % 4) * 32) << 16);
    typename Kind::Out* dst =
        out + static_cast<size_t>(blockIdx.y * Kind::kM + warp * 32 + lane) * ldo +
        blockIdx.x * Kind::kN;
#pragma unroll 1
    for (int col = 0; col < Kind::kN; col += 16) {
      uint32_t v[16];
      tmem_ld_32x32b_x16(row_addr + col, v);
      wait_ld();
#pragma unroll
      for (int i = 0; i < 16; ++i) dst[col + i] = *reinterpret_cast<typename Kind::Out*>(&v[i]);
    }
  }
  release(tmem, kCols, warp);
}

template __global__ void umma_tile_kernel<Bf16F32>(const __grid_constant__ CUtensorMap,
                                                   const __grid_constant__ CUtensorMap, float*,
                                                   int, int);
template __global__ void umma_tile_kernel<F16F16>(const __grid_constant__ CUtensorMap,
                                                  const __grid_constant__ CUtensorMap, uint32_t*,
                                                  int, int);
template __global__ void umma_tile_kernel<Tf32>(const __grid_constant__ CUtensorMap,
                                                const __grid_constant__ CUtensorMap, float*, int,
                                                int);
template __global__ void umma_tile_kernel<Fp8>(const __grid_constant__ CUtensorMap,
                                               const __grid_constant__ CUtensorMap, float*, int,
                                               int);
template __global__ void umma_tile_kernel<Int8>(const __grid_constant__ CUtensorMap,
                                                const __grid_constant__ CUtensorMap, int32_t*, int,
                                                int);

// Ragged-M tail tile: rows >= valid_rows are masked with the
// disable-output-lane operand (one bit per TMEM lane, 4 x 32 bits for
// .cta_group::1), and the previous partial sums are rescaled by 2^-1 through
// scale-input-d before accumulation (used by running-max style rescaling).
__global__ void __launch_bounds__(128)
    umma_tail_tile_masked(const __grid_constant__ CUtensorMap tmap_a,
                          const __grid_constant__ CUtensorMap tmap_b, float* out, int valid_rows,
                          int k_bytes) {
  using Smem = TileSmem<128, 128>;
  constexpr uint32_t kIdesc = corpus::make_umma_idesc(kD_F32, kTF32, kTF32, 128, 128);
  extern __shared__ __align__(1024) uint8_t smem_raw[];
  Smem& ss = *reinterpret_cast<Smem*>(smem_raw);
  const uint32_t warp = threadIdx.x / 32;
  const uint32_t lane = threadIdx.x % 32;

  if (threadIdx.x == 0) {
    corpus::mbar_init(&ss.full_bar[0], 1);
    corpus::mbar_init(&ss.mma_done, 1);
    corpus::fence_mbarrier_init();
  }
  const uint32_t tmem = alloc_and_publish(&ss.tmem_base, 128, warp);

  // Lane i of TMEM is disabled when its row is outside the matrix.
  uint32_t mask[4];
#pragma unroll
  for (int w = 0; w < 4; ++w) {
    const int first = w * 32;
    const int live = valid_rows - first;
    mask[w] = live >= 32 ? 0u : (live <= 0 ? 0xffffffffu : ~((1u << live) - 1u));
  }

  if (warp == 0) {
    const bool leader = corpus::elect_one();
    for (int kb = 0; kb < k_bytes / kKBytes; ++kb) {
      if (leader) {
        corpus::mbar_arrive_expect_tx(&ss.full_bar[0], (128 + 128) * kKBytes);
        corpus::tma_load_2d(ss.a[0], &tmap_a, &ss.full_bar[0], kb * kKBytes, blockIdx.y * 128);
        corpus::tma_load_2d(ss.b[0], &tmap_b, &ss.full_bar[0], kb * kKBytes, blockIdx.x * 128);
      }
      corpus::mbar_wait(&ss.full_bar[0], kb & 1);
      fence_after_thread_sync();
      if (leader) {
        const uint64_t a_desc = corpus::make_umma_desc(ss.a[0], 16, 1024, 2);
        const uint64_t b_desc = corpus::make_umma_desc(ss.b[0], 16, 1024, 2);
        for (int kk = 0; kk < kKBytes / kMmaKBytes; ++kk) {
          const uint64_t step = (kk * kMmaKBytes) >> 4;
          if (kb == 0 && kk == 0) {
            asm volatile(
                "tcgen05.mma.cta_group::1.kind::tf32 [%0], %1, %2, %3, {%4, %5, %6, %7}, 0;" ::"r"(
                    tmem),
                "l"(a_desc), "l"(b_desc), "r"(kIdesc), "r"(mask[0]), "r"(mask[1]), "r"(mask[2]),
                "r"(mask[3]));
          } else {
            asm volatile(
                "tcgen05.mma.cta_group::1.kind::tf32 [%0], %1, %2, %3, {%4, %5, %6, %7}, 1, 1;" ::"r"(
                    tmem),
                "l"(a_desc + step), "l"(b_desc + step), "r"(kIdesc), "r"(mask[0]), "r"(mask[1]),
                "r"(mask[2]), "r"(mask[3]));
          }
        }
        // The smem stage is reused next iteration: wait for the MMAs.
        commit(&ss.mma_done);
      }
      __syncwarp();
      corpus::mbar_wait(&ss.mma_done, kb & 1);
    }
  }
  __syncthreads();
  fence_after_thread_sync();
  const int row = blockIdx.y * 128 + warp * 32 + lane;
  if (warp * 32 + lane < valid_rows) {
    uint32_t v[32];
    tmem_ld_32x32b_x32(tmem + (((warp % 4) * 32) << 16), v);
    wait_ld();
#pragma unroll
    for (int i = 0; i < 32; ++i) out[static_cast<size_t>(row) * 128 + i] = __uint_as_float(v[i]);
  }
  release(tmem, 128, warp);
}
