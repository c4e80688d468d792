"""Tiled GEMM with tl.dot: grouped program ordering, K loop with software
pipelining (num_stages), fused activation, and an FP8 variant.

On sm_80 this lowers to ldmatrix + mma.sync with cp.async pipelining, on
sm_90 to wgmma with TMA-free async copies, on sm_100 to tcgen05.mma with
Tensor Memory -- the same source covers three MMA generations.
"""

import triton
import triton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                  stride_cm, stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr, ACTIVATION: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    group_size = GROUP_M * num_pid_n
    group = pid // group_size
    first_m = group * GROUP_M
    group_m = min(num_pid_m - first_m, GROUP_M)
    pid_m = first_m + ((pid % group_size) % group_m)
    pid_n = (pid % group_size) // group_m
    offs_m = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_n = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    if ACTIVATION == "leaky_relu":
        acc = tl.where(acc >= 0, acc, 0.01 * acc)
    c = acc.to(c_ptr.dtype.element_ty)
    cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    tl.store(c_ptr + stride_cm * cm[:, None] + stride_cn * cn[None, :], c,
             mask=(cm[:, None] < M) & (cn[None, :] < N))


def _sig(a, b, c):
    return {"a_ptr": a, "b_ptr": b, "c_ptr": c, "M": "i32", "N": "i32", "K": "i32",
            "stride_am": "i32", "stride_ak": "constexpr", "stride_bk": "i32", "stride_bn": "constexpr",
            "stride_cm": "i32", "stride_cn": "constexpr", "BLOCK_M": "constexpr", "BLOCK_N": "constexpr",
            "BLOCK_K": "constexpr", "GROUP_M": "constexpr", "ACTIVATION": "constexpr"}


_UNIT = {"stride_ak": 1, "stride_bn": 1, "stride_cn": 1}

CONFIGS = [
    ("matmul_fp16_128x128x64", matmul_kernel, _sig("*fp16", "*fp16", "*fp16"),
     {**_UNIT, "BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8, "ACTIVATION": ""},
     {"num_warps": 8, "num_stages": 3}),
    ("matmul_bf16_leaky_64x256x32", matmul_kernel, _sig("*bf16", "*bf16", "*fp32"),
     {**_UNIT, "BLOCK_M": 64, "BLOCK_N": 256, "BLOCK_K": 32, "GROUP_M": 8, "ACTIVATION": "leaky_relu"},
     {"num_warps": 4, "num_stages": 4}),
    ("matmul_fp8e4_128x256x128", matmul_kernel, _sig("*fp8e4nv", "*fp8e4nv", "*fp16"),
     {**_UNIT, "BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 128, "GROUP_M": 8, "ACTIVATION": ""},
     {"num_warps": 8, "num_stages": 3, "archs": [90, 100]}),
]
