// tcgen05_block_scale.cu -- block-scaled (MX / NVFP4) tcgen05.mma on sm_100a,
// .cta_group::1 throughout.
//
// Exercises: tcgen05.mma .kind::mxf8f6f4.block_scale.scale_vec::1X,
// .kind::mxf4.block_scale.scale_vec::2X, .kind::mxf4nvf4.block_scale
// .scale_vec::4X and the .block32 / .block16 spellings, with the A/B scale
// factors staged into Tensor Memory by tcgen05.cp.32x128b.warpx4 and
// tcgen05.cp.4x256b, the [scale-A-tmem], [scale-B-tmem] operands,
// tcgen05.commit, tcgen05.ld.16x256b epilogue, TMA loads.  The warp index
// uses the CUTLASS __shfl_sync idiom.
//
// corpus-arch: sm_100a
#include "tcgen05_cta1.cuh"

namespace {

using namespace corpus::tc1;

constexpr int kM = 128;
constexpr int kN = 128;
constexpr int kKBytes = 128;        // data bytes of K per stage (per row)
constexpr uint32_t kAccCols = 128;  // fp32 accumulator columns
constexpr uint32_t kSfaCol = 128;   // scale factors live after the accumulator
constexpr uint32_t kSfbCol = 160;
constexpr uint32_t kTmemCols = 256;

struct alignas(1024) Smem {
  uint8_t a[kM * kKBytes];
  uint8_t b[kN * kKBytes];
  uint8_t sfa[kM * 16];  // up to 16 scale bytes per row per stage
  uint8_t sfb[kN * 16];
  uint64_t load_bar;
  uint64_t mma_bar;
  uint32_t tmem_base;
};

// Block-scaled instruction descriptor: B scale-factor id in bits 4..5,
// A/B formats in 7..9 / 10..12, N>>3 in 17..22, scale type in 23
// (0 = UE4M3, 1 = UE8M0), M>>4 in 24..28, A scale-factor id in 29..30.
__host__ __device__ constexpr uint32_t make_bs_idesc(uint32_t a_fmt, uint32_t b_fmt,
                                                     uint32_t sf_ue8m0, uint32_t sf_id) {
  return (sf_id << 4) | (a_fmt << 7) | (b_fmt << 10) | ((kN >> 3) << 17) | (sf_ue8m0 << 23) |
         ((kM >> 4) << 24) | (sf_id << 29);
}

struct MxFp8 {  // e4m3 x e4m3, one UE8M0 scale per 32 elements
  static constexpr int kMmaK = 32, kElemBits = 8, kSfBytesPerRow = kKBytes / 32;
  __device__ static void mma(uint32_t d, uint64_t a, uint64_t b, uint32_t sfa, uint32_t sfb,
                             uint32_t acc, int kk) {
    const uint32_t idesc = make_bs_idesc(0, 0, 1, kk & 3);
    asm volatile(
        "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %6, 0;\n\t"
        "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X"
        " [%0], %1, %2, %3, [%4], [%5], p;\n\t}" ::"r"(d),
        "l"(a), "l"(b), "r"(idesc), "r"(sfa), "r"(sfb), "r"(acc));
  }
};

struct MxFp4 {  // e2m1 x e2m1, UE8M0 scales, two per 64 elements
  static constexpr int kMmaK = 64, kElemBits = 4, kSfBytesPerRow = kKBytes * 2 / 32;
  __device__ static void mma(uint32_t d, uint64_t a, uint64_t b, uint32_t sfa, uint32_t sfb,
                             uint32_t acc, int kk) {
    const uint32_t idesc = make_bs_idesc(1, 1, 1, (kk & 1) * 2);
    asm volatile(
        "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %6, 0;\n\t"
        "tcgen05.mma.cta_group::1.kind::mxf4.block_scale.scale_vec::2X"
        " [%0], %1, %2, %3, [%4], [%5], p;\n\t}" ::"r"(d),
        "l"(a), "l"(b), "r"(idesc), "r"(sfa), "r"(sfb), "r"(acc));
  }
};

struct NvFp4 {  // e2m1 x e2m1, UE4M3 scale per 16 elements
  static constexpr int kMmaK = 64, kElemBits = 4, kSfBytesPerRow = kKBytes * 2 / 16;
  __device__ static void mma(uint32_t d, uint64_t a, uint64_t b, uint32_t sfa, uint32_t sfb,
                             uint32_t acc, int kk) {
    const uint32_t idesc = make_bs_idesc(1, 1, 0, 0);
    if (kk & 1) {
      asm volatile(
          "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %6, 0;\n\t"
          "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block16"
          " [%0], %1, %2, %3, [%4], [%5], p;\n\t}" ::"r"(d),
          "l"(a), "l"(b), "r"(idesc), "r"(sfa), "r"(sfb), "r"(acc));
    } else {
      asm volatile(
          "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %6, 0;\n\t"
          "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X"
          " [%0], %1, %2, %3, [%4], [%5], p;\n\t}" ::"r"(d),
          "l"(a), "l"(b), "r"(idesc), "r"(sfa), "r"(sfb), "r"(acc));
    }
  }
};

struct MxFp8Block32 {  // same as MxFp8, spelled with .block32
  static constexpr int kMmaK = 32, kElemBits = 8, kSfBytesPerRow = kKBytes / 32;
  __device__ static void mma(uint32_t d, uint64_t a, uint64_t b, uint32_t sfa, uint32_t sfb,
                             uint32_t acc, int kk) {
    const uint32_t idesc = make_bs_idesc(0, 1, 1, kk & 3);
    asm volatile(
        "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %6, 0;\n\t"
        "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.block32"
        " [%0], %1, %2, %3, [%4], [%5], p;\n\t}" ::"r"(d),
        "l"(a), "l"(b), "r"(idesc), "r"(sfa), "r"(sfb), "r"(acc));
  }
};

// Copies 32 rows x 128 bits from smem into each of the 4 lane quadrants.
__device__ __forceinline__ void cp_scale_32x128b_warpx4(uint32_t taddr, uint64_t sdesc) {
  asm volatile("tcgen05.cp.cta_group::1.32x128b.warpx4 [%0], %1;" ::"r"(taddr), "l"(sdesc)
               : "memory");
}
// Copies 4 rows x 256 bits (a small B scale block).
__device__ __forceinline__ void cp_scale_4x256b(uint32_t taddr, uint64_t sdesc) {
  asm volatile("tcgen05.cp.cta_group::1.4x256b [%0], %1;" ::"r"(taddr), "l"(sdesc) : "memory");
}

__device__ __forceinline__ void tmem_ld_16x256b_x8(uint32_t taddr, uint32_t (&r)[32]) {
  asm volatile("tcgen05.ld.sync.aligned.16x256b.x8.b32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, [%32];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7]),
                 "=r"(r[8]), "=r"(r[9]), "=r"(r[10]), "=r"(r[11]), "=r"(r[12]), "=r"(r[13]), "=r"(r[14]), "=r"(r[15]),
                 "=r"(r[16]), "=r"(r[17]), "=r"(r[18]), "=r"(r[19]), "=r"(r[20]), "=r"(r[21]), "=r"(r[22]), "=r"(r[23]),
                 "=r"(r[24]), "=r"(r[25]), "=r"(r[26]), "=r"(r[27]), "=r"(r[28]), "=r"(r[29]), "=r"(r[30]), "=r"(r[31])
               : "r"(taddr));
}

}  // namespace

template <class Kind>
__global__ void __launch_bounds__(128)
    block_scaled_gemm_tile(const __grid_constant__ CUtensorMap tmap_a,
                           const __grid_constant__ CUtensorMap tmap_b,
                           const __grid_constant__ CUtensorMap tmap_sfa,
                           const __grid_constant__ CUtensorMap tmap_sfb, float* out, int k_blocks) {
  extern __shared__ __align__(1024) uint8_t smem_raw[];
  Smem& ss = *reinterpret_cast<Smem*>(smem_raw);
  const int warp_idx = corpus::warp_idx_uniform();

  if (warp_idx == 0 && corpus::elect_one()) {
    corpus::mbar_init(&ss.load_bar, 1);
    corpus::mbar_init(&ss.mma_bar, 1);
    corpus::fence_mbarrier_init();
  }
  const uint32_t tmem = alloc_and_publish(&ss.tmem_base, kTmemCols, warp_idx);

  if (warp_idx == 0) {
    const bool leader = corpus::elect_one();
    for (int kb = 0; kb < k_blocks; ++kb) {
      if (leader) {
        constexpr uint32_t kBytes = (kM + kN) * kKBytes + (kM + kN) * Kind::kSfBytesPerRow;
        corpus::mbar_arrive_expect_tx(&ss.load_bar, kBytes);
        corpus::tma_load_2d(ss.a, &tmap_a, &ss.load_bar, kb * kKBytes, blockIdx.y * kM);
        corpus::tma_load_2d(ss.b, &tmap_b, &ss.load_bar, kb * kKBytes, blockIdx.x * kN);
        corpus::tma_load_2d(ss.sfa, &tmap_sfa, &ss.load_bar, kb * Kind::kSfBytesPerRow,
                            blockIdx.y * kM);
        corpus::tma_load_2d(ss.sfb, &tmap_sfb, &ss.load_bar, kb * Kind::kSfBytesPerRow,
                            blockIdx.x * kN);
      }
      corpus::mbar_wait(&ss.load_bar, kb & 1);
      fence_after_thread_sync();
      if (leader) {
        // Scale factors: smem -> TMEM.  tcgen05.cp and tcgen05.mma issued by
        // the same thread execute in order, so no wait is needed in between.
        cp_scale_32x128b_warpx4(tmem + kSfaCol, corpus::make_umma_desc(ss.sfa, 128, 512, 0));
        cp_scale_32x128b_warpx4(tmem + kSfbCol, corpus::make_umma_desc(ss.sfb, 128, 512, 0));
        if (kb == 0) cp_scale_4x256b(tmem + kSfbCol + 16, corpus::make_umma_desc(ss.sfb, 32, 128, 0));
        const uint64_t a_desc = corpus::make_umma_desc(ss.a, 16, 1024, 2);
        const uint64_t b_desc = corpus::make_umma_desc(ss.b, 16, 1024, 2);
        constexpr int kStepBytes = Kind::kMmaK * Kind::kElemBits / 8;  // 32 B of K per MMA
#pragma unroll
        for (int kk = 0; kk < kKBytes / kStepBytes; ++kk)
          Kind::mma(tmem, a_desc + ((kk * kStepBytes) >> 4), b_desc + ((kk * kStepBytes) >> 4), tmem + kSfaCol, tmem + kSfbCol,
                    (kb | kk) != 0, kk);
        commit(&ss.mma_bar);
      }
      __syncwarp();
      corpus::mbar_wait(&ss.mma_bar, kb & 1);  // smem is single-buffered
    }
  }

  // Epilogue: .16x256b loads -- 16 lanes x 256 bits per .x1, 4 registers.
  corpus::mbar_wait(&ss.mma_bar, (k_blocks - 1) & 1);
  fence_after_thread_sync();
  const uint32_t quadrant = warp_idx % 4;
  const uint32_t lane = threadIdx.x % 32;
  for (uint32_t half = 0; half < 2; ++half) {
    const uint32_t taddr = tmem + ((quadrant * 32 + half * 16) << 16);
    for (uint32_t col = 0; col < kAccCols; col += 64) {
      uint32_t v[32];
      tmem_ld_16x256b_x8(taddr + col, v);
      wait_ld();
      const uint32_t row = blockIdx.y * kM + quadrant * 32 + half * 16 + lane / 4;
      float* dst = out + static_cast<size_t>(row) * gridDim.x * kN + blockIdx.x * kN + col;
#pragma unroll
      for (int i = 0; i < 32; ++i) dst[(lane % 4) * 2 + (i / 2) * 8 + (i % 2)] = __uint_as_float(v[i]);
    }
  }
  release(tmem, kTmemCols, warp_idx);
}

template __global__ void block_scaled_gemm_tile<MxFp8>(const __grid_constant__ CUtensorMap,
                                                       const __grid_constant__ CUtensorMap,
                                                       const __grid_constant__ CUtensorMap,
                                                       const __grid_constant__ CUtensorMap,
                                                       float*, int);
template __global__ void block_scaled_gemm_tile<MxFp4>(const __grid_constant__ CUtensorMap,
                                                       const __grid_constant__ CUtensorMap,
                                                       const __grid_constant__ CUtensorMap,
                                                       const __grid_constant__ CUtensorMap,
                                                       float*, int);
template __global__ void block_scaled_gemm_tile<NvFp4>(const __grid_constant__ CUtensorMap,
                                                       const __grid_constant__ CUtensorMap,
                                                       const __grid_constant__ CUtensorMap,
                                                       const __grid_constant__ CUtensorMap,
                                                       float*, int);
template __global__ void block_scaled_gemm_tile<MxFp8Block32>(
    const __grid_constant__ CUtensorMap, const __grid_constant__ CUtensorMap,
    const __grid_constant__ CUtensorMap, const __grid_constant__ CUtensorMap, float*, int);
