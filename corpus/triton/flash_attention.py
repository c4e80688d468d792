"""Flash-attention style forward pass (causal and non-causal): Q tile held in
registers, online softmax over K/V blocks, two tl.dot per iteration (QK^T and
PV), exp2 with folded log2(e) scaling and a final normalisation.

This is the most complex Triton kernel in the corpus: on sm_90 it becomes
wgmma with register A operands, on sm_100 tcgen05 with P round-tripping
through Tensor Memory.
"""

import triton
import triton.language as tl


@triton.jit
def attn_fwd(Q, K, V, Out, sm_scale, stride_qz, stride_qh, stride_qm, stride_kz, stride_kh,
             stride_kn, stride_vz, stride_vh, stride_vn, stride_oz, stride_oh, stride_om, H, N_CTX,
             HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
             CAUSAL: tl.constexpr):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_z = off_hz // H
    off_h = off_hz % H
    q_base = Q + off_z * stride_qz + off_h * stride_qh
    k_base = K + off_z * stride_kz + off_h * stride_kh
    v_base = V + off_z * stride_vz + off_h * stride_vh
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(q_base + offs_m[:, None] * stride_qm + offs_d[None, :])
    m_i = tl.full([BLOCK_M], -float("inf"), tl.float32)
    l_i = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], tl.float32)
    qk_scale = sm_scale * 1.44269504
    hi = (start_m + 1) * BLOCK_M if CAUSAL else N_CTX
    for start_n in range(0, hi, BLOCK_N):
        cols = start_n + offs_n
        k = tl.load(k_base + cols[None, :] * stride_kn + offs_d[:, None])
        qk = tl.dot(q, k) * qk_scale
        if CAUSAL:
            qk = tl.where(offs_m[:, None] >= cols[None, :], qk, -1.0e6)
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = tl.load(v_base + cols[:, None] * stride_vn + offs_d[None, :])
        acc = tl.dot(p.to(v.dtype), v, acc)
        m_i = m_ij
    acc = acc / l_i[:, None]
    o_base = Out + off_z * stride_oz + off_h * stride_oh
    tl.store(o_base + offs_m[:, None] * stride_om + offs_d[None, :], acc.to(Out.dtype.element_ty))


_SIG = {"Q": "*fp16", "K": "*fp16", "V": "*fp16", "Out": "*fp16", "sm_scale": "fp32",
        "stride_qz": "i32", "stride_qh": "i32", "stride_qm": "i32", "stride_kz": "i32",
        "stride_kh": "i32", "stride_kn": "i32", "stride_vz": "i32", "stride_vh": "i32",
        "stride_vn": "i32", "stride_oz": "i32", "stride_oh": "i32", "stride_om": "i32", "H": "i32",
        "N_CTX": "i32", "HEAD_DIM": "constexpr", "BLOCK_M": "constexpr", "BLOCK_N": "constexpr",
        "CAUSAL": "constexpr"}

CONFIGS = [
    ("attn_fwd_d64_causal", attn_fwd, _SIG,
     {"HEAD_DIM": 64, "BLOCK_M": 128, "BLOCK_N": 64, "CAUSAL": True}, {"num_warps": 4, "num_stages": 3}),
    ("attn_fwd_d128", attn_fwd, {**_SIG, "Q": "*bf16", "K": "*bf16", "V": "*bf16", "Out": "*bf16"},
     {"HEAD_DIM": 128, "BLOCK_M": 128, "BLOCK_N": 64, "CAUSAL": False}, {"num_warps": 8, "num_stages": 2}),
]
