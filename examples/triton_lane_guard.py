"""A Triton kernel with a bug ptxas accepts, and ptxlint's Triton hook catching it at compile time.

The inline assembly guards `ldmatrix` so that only lanes 0-7 run it, on the belief that only
they supply row addresses for `.x1`. But `ldmatrix` is `.sync.aligned`: every lane of the warp
must execute it together, or the result is undefined.

    python examples/triton_lane_guard.py

compiles the kernel for sm_100 (no GPU needed) with the hook installed and prints the finding at
the line of this file that holds the assembly.
"""

import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget

import ptxlint.triton


@triton.jit
def load_fragment(shared_addresses, out, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    address = tl.load(shared_addresses + offsets)
    fragment = tl.inline_asm_elementwise(
        "{ .reg .pred first_eight; .reg .b32 lane; mov.u32 lane, %laneid; setp.lt.u32 first_eight, lane, 8;"
        " @first_eight ldmatrix.sync.aligned.m8n8.x1.shared.b16 {$0}, [$1]; }",
        "=r,r", [address], dtype=tl.int32, is_pure=True, pack=1,
    )
    tl.store(out + offsets, fragment)


if __name__ == "__main__":
    ptxlint.triton.install()
    source = triton.compiler.ASTSource(
        fn=load_fragment,
        signature={"shared_addresses": "*i32", "out": "*i32", "BLOCK": "constexpr"},
        constexprs={"BLOCK": 128},
    )
    triton.compile(source, target=GPUTarget("cuda", 100, 32))
