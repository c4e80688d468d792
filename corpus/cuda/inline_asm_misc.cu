// inline_asm_misc.cu -- assorted hand-written PTX and special registers.
//
// Exercises: scoped { } blocks with local .reg declarations and local labels
// (bra inside a block), predicated execution (@p / @!p), setp + selp, lop3,
// prmt (byte permute), bfe / bfi, shf.l/r .wrap/.clamp, dp4a / dp2a, brev,
// bfind, popc, mul.wide / mad.hi / mad.lo.cc + addc (multi-precision add),
// vote/sync-free special registers (%laneid, %warpid, %smid, %nsmid,
// %lanemask_lt, %globaltimer, %clock64, %envreg), ld.global.nc / .L1::no_allocate
// / .L2::256B variants, st.global.wt / .cs, prefetch / prefetchu,
// discard.global.L2, brx.idx jump table, and mov with a symbolic address.
//
// corpus-arch: sm_80 sm_90a
#include <cstdint>

__device__ uint32_t jump_targets_used;

// 128-bit addition with carry propagation.
__device__ __forceinline__ void add128(uint32_t (&a)[4], const uint32_t (&b)[4]) {
  asm("add.cc.u32 %0, %0, %4;\n\t"
      "addc.cc.u32 %1, %1, %5;\n\t"
      "addc.cc.u32 %2, %2, %6;\n\t"
      "addc.u32 %3, %3, %7;"
      : "+r"(a[0]), "+r"(a[1]), "+r"(a[2]), "+r"(a[3])
      : "r"(b[0]), "r"(b[1]), "r"(b[2]), "r"(b[3]));
}

// Clamped integer saturation with a local predicate and a local label.
__device__ __forceinline__ int clamp_to_byte(int v) {
  int r;
  asm("{\n\t"
      ".reg .pred p_hi, p_lo;\n\t"
      "mov.b32 %0, %1;\n\t"
      "setp.gt.s32 p_hi, %1, 255;\n\t"
      "@!p_hi bra CHECK_LO;\n\t"
      "mov.b32 %0, 255;\n\t"
      "CHECK_LO:\n\t"
      "setp.lt.s32 p_lo, %1, 0;\n\t"
      "@p_lo mov.b32 %0, 0;\n\t"
      "}"
      : "=r"(r)
      : "r"(v));
  return r;
}

__global__ void bit_tricks(const uint32_t* __restrict__ a, const uint32_t* __restrict__ b,
                           uint32_t* __restrict__ out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  uint32_t x, y;
  // Read-only, no-L1-allocate, 256-byte L2 prefetch hints on loads.
  asm("ld.global.nc.L1::no_allocate.L2::256B.u32 %0, [%1];" : "=r"(x) : "l"(a + i));
  asm("ld.global.nc.u32 %0, [%1];" : "=r"(y) : "l"(b + i));
  uint32_t lop, perm, field, ins, rot, clampshift, dp4, dp2, rev, msb, pc;
  asm("lop3.b32 %0, %1, %2, %3, 0x96;" : "=r"(lop) : "r"(x), "r"(y), "r"(x >> 3));  // a^b^c
  asm("prmt.b32 %0, %1, %2, 0x3210;" : "=r"(perm) : "r"(x), "r"(y));
  asm("prmt.b32.f4e %0, %1, %2, %3;" : "=r"(perm) : "r"(perm), "r"(y), "r"(i));
  asm("bfe.u32 %0, %1, 8, 12;" : "=r"(field) : "r"(x));
  asm("bfi.b32 %0, %1, %2, 4, 8;" : "=r"(ins) : "r"(y), "r"(x));
  asm("shf.l.wrap.b32 %0, %1, %2, %3;" : "=r"(rot) : "r"(x), "r"(y), "r"(i & 31));
  asm("shf.r.clamp.b32 %0, %1, %2, %3;" : "=r"(clampshift) : "r"(x), "r"(y), "r"(i));
  asm("dp4a.s32.u32 %0, %1, %2, %3;" : "=r"(dp4) : "r"(x), "r"(y), "r"(lop));
  asm("dp2a.lo.u32.s32 %0, %1, %2, %3;" : "=r"(dp2) : "r"(x), "r"(y), "r"(dp4));
  asm("brev.b32 %0, %1;" : "=r"(rev) : "r"(x));
  asm("bfind.u32 %0, %1;" : "=r"(msb) : "r"(y | 1));
  asm("popc.b32 %0, %1;" : "=r"(pc) : "r"(x ^ y));
  uint64_t wide;
  uint32_t hi;
  asm("mul.wide.u32 %0, %1, %2;" : "=l"(wide) : "r"(x), "r"(y));
  asm("mad.hi.u32 %0, %1, %2, %3;" : "=r"(hi) : "r"(x), "r"(y), "r"(pc));
  uint32_t acc[4] = {x, y, lop, perm};
  const uint32_t inc[4] = {~x, ~y, 1u, 0u};
  add128(acc, inc);
  const uint32_t r = lop ^ perm ^ field ^ ins ^ rot ^ clampshift ^ dp4 ^ dp2 ^ rev ^ msb ^
                     static_cast<uint32_t>(wide >> 7) ^ hi ^ acc[0] ^ acc[3] ^
                     clamp_to_byte(static_cast<int>(x) - 1000);
  asm volatile("st.global.wt.u32 [%0], %1;" ::"l"(out + i), "r"(r) : "memory");
  asm volatile("st.global.cs.u32 [%0], %1;" ::"l"(out + gridDim.x * blockDim.x + i), "r"(acc[1])
               : "memory");
}

__global__ void special_registers(uint64_t* out) {
  uint32_t lane, warp, sm, nsm, lt, env0;
  uint64_t gt, clk;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  asm volatile("mov.u32 %0, %%warpid;" : "=r"(warp));
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  asm volatile("mov.u32 %0, %%nsmid;" : "=r"(nsm));
  asm volatile("mov.u32 %0, %%lanemask_lt;" : "=r"(lt));
  asm volatile("mov.u32 %0, %%envreg0;" : "=r"(env0));
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(gt));
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(clk));
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = (static_cast<uint64_t>(sm) << 48) ^ (static_cast<uint64_t>(nsm) << 40) ^
           (static_cast<uint64_t>(warp) << 32) ^ (lane << 8) ^ lt ^ env0 ^ gt ^ clk;
  asm volatile("prefetch.global.L2 [%0];" ::"l"(out + i + 4096));
  asm volatile("prefetchu.L1 [%0];" ::"l"(out + i + 8192));
  if (lane == 0) asm volatile("discard.global.L2 [%0], 128;" ::"l"(out + 16 * 1024) : "memory");
}

// Indirect branch through a jump table with brx.idx.
__global__ void brx_jump_table(const int* sel, int* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  int r;
  asm volatile(
      "{\n\t"
      ".reg .u32 idx;\n\t"
      "ts: .branchtargets case0, case1, case2, case3;\n\t"
      "and.b32 idx, %1, 3;\n\t"
      "brx.idx idx, ts;\n\t"
      "case0: mov.u32 %0, 10; bra.uni done;\n\t"
      "case1: mov.u32 %0, 20; bra.uni done;\n\t"
      "case2: mov.u32 %0, 30; bra.uni done;\n\t"
      "case3: mov.u32 %0, 40;\n\t"
      "done:\n\t"
      "}"
      : "=r"(r)
      : "r"(sel[i]));
  uint64_t addr;
  asm("mov.u64 %0, jump_targets_used;" : "=l"(addr));
  out[i] = r + static_cast<int>(addr & 1);
  if (i == 0) atomicAdd(&jump_targets_used, 1u);
}
