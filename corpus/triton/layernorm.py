"""LayerNorm forward (with mean / rstd outputs) and the fused backward
pass for dX plus partial dW / dB accumulated under a spin lock.

Exercises: two-pass reductions, tl.math.rsqrt, tl.atomic_cas / tl.atomic_xchg
spin locks (atom.global.cas / exch in PTX), loops over column blocks.
"""

import triton
import triton.language as tl


@triton.jit
def layernorm_fwd(x_ptr, y_ptr, w_ptr, b_ptr, mean_ptr, rstd_ptr, stride, n_cols, eps,
                  BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x_ptr += row * stride
    y_ptr += row * stride
    acc = tl.zeros([BLOCK], tl.float32)
    for off in range(0, n_cols, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
    mean = tl.sum(acc, axis=0) / n_cols
    var_acc = tl.zeros([BLOCK], tl.float32)
    for off in range(0, n_cols, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
        d = tl.where(cols < n_cols, x - mean, 0.0)
        var_acc += d * d
    rstd = tl.math.rsqrt(tl.sum(var_acc, axis=0) / n_cols + eps)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)
    for off in range(0, n_cols, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        mask = cols < n_cols
        w = tl.load(w_ptr + cols, mask=mask)
        b = tl.load(b_ptr + cols, mask=mask)
        x = tl.load(x_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(y_ptr + cols, ((x - mean) * rstd * w + b).to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def layernorm_bwd_dx_fused(dx_ptr, dy_ptr, dw_ptr, db_ptr, x_ptr, w_ptr, mean_ptr, rstd_ptr,
                           lock_ptr, stride, n_cols, GROUP: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0).to(tl.float32)
    dy = tl.load(dy_ptr + row * stride + cols, mask=mask, other=0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=mask).to(tl.float32)
    mean = tl.load(mean_ptr + row)
    rstd = tl.load(rstd_ptr + row)
    xhat = tl.where(mask, (x - mean) * rstd, 0.0)
    wdy = tl.where(mask, w * dy, 0.0)
    c1 = tl.sum(xhat * wdy, axis=0) / n_cols
    c2 = tl.sum(wdy, axis=0) / n_cols
    dx = (wdy - (xhat * c1 + c2)) * rstd
    tl.store(dx_ptr + row * stride + cols, dx.to(dx_ptr.dtype.element_ty), mask=mask)
    # Accumulate partial dW/dB into one of GROUP buffers under a lock.
    group = row % GROUP
    lock = lock_ptr + group
    count = lock_ptr + GROUP + group
    while tl.atomic_cas(lock, 0, 1) == 1:
        pass
    first = tl.load(count) == 0
    pdw = (dy * xhat).to(dw_ptr.dtype.element_ty)
    pdb = dy.to(db_ptr.dtype.element_ty)
    if first:
        tl.atomic_xchg(count, 1)
    else:
        pdw += tl.load(dw_ptr + group * n_cols + cols, mask=mask)
        pdb += tl.load(db_ptr + group * n_cols + cols, mask=mask)
    tl.store(dw_ptr + group * n_cols + cols, pdw, mask=mask)
    tl.store(db_ptr + group * n_cols + cols, pdb, mask=mask)
    tl.debug_barrier()
    tl.atomic_xchg(lock, 0)


CONFIGS = [
    ("layernorm_fwd_fp16", layernorm_fwd,
     {"x_ptr": "*fp16", "y_ptr": "*fp16", "w_ptr": "*fp16", "b_ptr": "*fp16", "mean_ptr": "*fp32",
      "rstd_ptr": "*fp32", "stride": "i32", "n_cols": "i32", "eps": "fp32", "BLOCK": "constexpr"},
     {"BLOCK": 1024}, {"num_warps": 8}),
    ("layernorm_bwd_dx_fused_fp16", layernorm_bwd_dx_fused,
     {"dx_ptr": "*fp16", "dy_ptr": "*fp16", "dw_ptr": "*fp16", "db_ptr": "*fp16", "x_ptr": "*fp16",
      "w_ptr": "*fp16", "mean_ptr": "*fp32", "rstd_ptr": "*fp32", "lock_ptr": "*i32", "stride": "i32",
      "n_cols": "i32", "GROUP": "constexpr", "BLOCK": "constexpr"},
     {"GROUP": 64, "BLOCK": 1024}, {"num_warps": 8}),
]
