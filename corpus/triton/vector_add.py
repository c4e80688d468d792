"""Elementwise kernels: masked vector add and a fused bias + GELU.

Exercises the simplest Triton lowering: program_id, arange, masked
vectorised loads/stores (ld.global.v4 with predicates), and libdevice /
inline math (tanh, erf) in the fused variant.
"""

import triton
import triton.language as tl


@triton.jit
def vector_add(x_ptr, y_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


@triton.jit
def bias_gelu(x_ptr, bias_ptr, out_ptr, n_rows, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(bias_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    v = x + b
    # tanh-approximation GELU
    inner = 0.7978845608028654 * (v + 0.044715 * v * v * v)
    e = tl.exp(2.0 * inner)
    g = 0.5 * v * (1.0 + (e - 1.0) / (e + 1.0))
    tl.store(out_ptr + row * stride + cols, g.to(out_ptr.dtype.element_ty), mask=mask)


# (name, kernel, signature, constexprs, options)
CONFIGS = [
    ("vector_add_fp32", vector_add,
     {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n_elements": "i32", "BLOCK": "constexpr"},
     {"BLOCK": 1024}, {"num_warps": 4}),
    ("vector_add_fp16", vector_add,
     {"x_ptr": "*fp16", "y_ptr": "*fp16", "out_ptr": "*fp16", "n_elements": "i32", "BLOCK": "constexpr"},
     {"BLOCK": 2048}, {"num_warps": 8}),
    ("bias_gelu_bf16", bias_gelu,
     {"x_ptr": "*bf16", "bias_ptr": "*bf16", "out_ptr": "*bf16", "n_rows": "i32", "n_cols": "i32",
      "stride": "i32", "BLOCK": "constexpr"},
     {"BLOCK": 4096}, {"num_warps": 8}),
]
