"""Row-wise numerically stable softmax (one program per row, and a looped
online-softmax variant for rows longer than one block).

Exercises: tl.max / tl.sum reductions (shuffles + shared-memory
reductions across warps), exp2-based exponentials, masked loads with
-inf padding, and a loop-carried running max / sum.
"""

import triton
import triton.language as tl


@triton.jit
def softmax_row(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_stride + cols, mask=mask, other=-float("inf")).to(tl.float32)
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    den = tl.sum(num, axis=0)
    tl.store(out_ptr + row * out_stride + cols, (num / den).to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def softmax_online(out_ptr, in_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    m = tl.full([BLOCK], -float("inf"), tl.float32)
    s = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(in_ptr + row * stride + cols, mask=cols < n_cols, other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m, x)
        s = s * tl.exp(m - m_new) + tl.exp(x - m_new)
        m = m_new
    row_max = tl.max(m, axis=0)
    row_sum = tl.sum(s * tl.exp(m - row_max), axis=0)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(in_ptr + row * stride + cols, mask=mask, other=-float("inf")).to(tl.float32)
        tl.store(out_ptr + row * stride + cols, (tl.exp(x - row_max) / row_sum).to(out_ptr.dtype.element_ty),
                 mask=mask)


CONFIGS = [
    ("softmax_row_fp32", softmax_row,
     {"out_ptr": "*fp32", "in_ptr": "*fp32", "in_stride": "i32", "out_stride": "i32", "n_cols": "i32",
      "BLOCK": "constexpr"},
     {"BLOCK": 1024}, {"num_warps": 4}),
    ("softmax_row_fp16_wide", softmax_row,
     {"out_ptr": "*fp16", "in_ptr": "*fp16", "in_stride": "i32", "out_stride": "i32", "n_cols": "i32",
      "BLOCK": "constexpr"},
     {"BLOCK": 8192}, {"num_warps": 16}),
    ("softmax_online_bf16", softmax_online,
     {"out_ptr": "*bf16", "in_ptr": "*bf16", "stride": "i32", "n_cols": "i32", "BLOCK": "constexpr"},
     {"BLOCK": 2048}, {"num_warps": 8}),
]
