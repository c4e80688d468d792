"""Triton kernels of Liger-Kernel and FlagGems, compiled ahead of time for sm_90a and sm_100a
without a GPU and without importing the libraries (they need PyTorch): each kernel is taken
from its module's source with the Triton helpers it calls, and compiled with a signature and
constexpr values chosen here the way the library's launcher would choose them.

Pointer element types are fp16 for kernels with `tl.dot` (so they use the tensor cores: wgmma
on sm_90a, tcgen05 on sm_100a) and fp32 otherwise.
"""

from __future__ import annotations

import ast
import os
import types
from dataclasses import dataclass, field
from pathlib import Path

ARCHS = {90: "sm_90a", 100: "sm_100a"}
# Scalars that are floating point in the kernels below; every other scalar is an i32.
FLOAT_SCALARS = frozenset({
    "eps", "offset", "gate_multiplier", "softcap", "sum_non_ignore_weight", "weight_sum", "sm_scale",
})


@dataclass(frozen=True)
class Kernel:
    package: str  # the unpacked wheel under the sources directory
    module: str  # path of the module inside it
    name: str
    constexprs: dict = field(default_factory=dict)
    element: str = "fp32"  # pointer element type
    pointers: dict = field(default_factory=dict)  # pointers of another type (labels, indices)
    num_warps: int = 4
    quick: bool = False


KERNELS = (
    Kernel("liger_kernel", "liger_kernel/ops/rms_norm.py", "_rms_norm_forward_kernel",
           {"casting_mode": 0, "elementwise_affine": True, "BLOCK_SIZE": 4096}, quick=True),
    Kernel("liger_kernel", "liger_kernel/ops/layer_norm.py", "_layer_norm_forward_kernel", {"BLOCK_SIZE": 4096}),
    Kernel("liger_kernel", "liger_kernel/ops/swiglu.py", "_swiglu_forward_kernel", {"n_cols": 11008, "BLOCK_SIZE": 16384}),
    Kernel("liger_kernel", "liger_kernel/ops/geglu.py", "_geglu_tanh_forward_kernel", {"n_cols": 11008, "BLOCK_SIZE": 16384}),
    Kernel("liger_kernel", "liger_kernel/ops/cross_entropy.py", "liger_cross_entropy_kernel",
           {"lse_square_scale": 0.0, "label_smoothing": 0.0, "reduction": "mean", "RETURN_Z_LOSS": False,
            "RETURN_TOKEN_ACCURACY": False, "RETURN_PREDICTED_TOKENS": False, "BLOCK_SIZE": 32768,
            "HAS_WEIGHT": False, "HAS_SOFTCAPPING": False, "HAS_GRADIENTS": True}, pointers={"Y_ptr": "*i64"}, num_warps=32),
    Kernel("liger_kernel", "liger_kernel/ops/fused_moe_kernels.py", "_fused_up_proj_swiglu_kernel",
           {"H_dim": 4096, "I_dim": 1408, "stride_x_H": 1, "stride_w_K": 1, "stride_pre_N": 1, "stride_post_N": 1,
            "BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64}, element="fp16", num_warps=8, quick=True),
    Kernel("liger_kernel", "liger_kernel/ops/fused_moe_kernels.py", "_fused_down_proj_kernel",
           {"H_dim": 4096, "I_dim": 1408, "stride_post_I": 1, "stride_w_I": 1, "stride_Y_H": 1,
            "BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64}, element="fp16", num_warps=8),
    Kernel("liger_kernel", "liger_kernel/ops/fused_neighborhood_attention.py", "_fused_neighborhood_attention_qk_kernel",
           {"batch_size": 2, "num_heads": 8, "seq_len": 1024, "head_dim": 64, "scale": 0.125, "kernel_size": 7,
            "dilation": 1, "BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32, "num_stages": 3, "num_warps": 4},
           element="fp16"),
    Kernel("flag_gems", "flag_gems/ops/mm.py", "mm_kernel_general",
           {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, element="fp16", num_warps=8, quick=True),
    Kernel("flag_gems", "flag_gems/ops/bmm.py", "bmm_kernel",
           {"TILE_M": 128, "TILE_N": 128, "TILE_K": 32, "GROUP_M": 8, "DIVISIBLE_M": True, "DIVISIBLE_N": True,
            "DIVISIBLE_K": True}, element="fp16", num_warps=8),
    Kernel("flag_gems", "flag_gems/ops/softmax.py", "softmax_kernel_inner", {"TILE_N": 4096, "ONE_TILE_PER_CTA": True}),
    Kernel("flag_gems", "flag_gems/ops/rms_norm.py", "rms_norm_kernel", {"BLOCK_SIZE": 4096}, pointers={"INV_RMS": "*fp32"}),
)


def build(corpus: Path, sources: dict[str, Path], quick: bool) -> list[tuple[str, str, str, Path]]:
    """Compile the kernels into ``corpus/<package>/<arch>/<kernel>.ptx``; ``sources`` maps each
    package to the directory its wheel is unpacked in. Returns (package, arch, name, path)."""
    # Triton 3.9 warns that its floating-point fusion default will change; keep today's.
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    written = []
    for kernel in KERNELS:
        if quick and not kernel.quick:
            continue
        try:
            function = load_kernel(sources[kernel.package] / kernel.module, kernel.name, sources[kernel.package])
            signature, constexprs = signature_of(function, kernel)
        except (KeyError, SyntaxError, ValueError) as error:
            print(f"{kernel.package}/{kernel.name}: skipped ({error})")
            continue
        for capability, arch in ARCHS.items():
            target = corpus / kernel.package / arch / f"{kernel.name}.ptx"
            if not target.exists():
                try:
                    compiled = triton.compile(
                        ASTSource(fn=function, signature=signature, constexprs=constexprs),
                        target=GPUTarget("cuda", capability, 32),
                        options={"num_warps": kernel.num_warps},
                    )
                except Exception as error:  # noqa: BLE001 - a kernel Triton rejects is reported and skipped
                    print(f"{kernel.package}/{kernel.name} ({arch}): {type(error).__name__}: {str(error).splitlines()[0][:200]}")
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(compiled.asm["ptx"])
            written.append((kernel.package, arch, kernel.name, target))
    return written


def signature_of(function, kernel: Kernel) -> tuple[dict[str, str], dict[str, object]]:
    """Triton types for the kernel's runtime parameters and values for its constexprs."""
    signature: dict[str, str] = {}
    constexprs: dict[str, object] = {}
    for parameter in function.params:
        name = parameter.name
        if parameter.is_constexpr:
            if name not in kernel.constexprs:
                raise ValueError(f"no value for constexpr {name}")
            signature[name] = "constexpr"
            constexprs[name] = kernel.constexprs[name]
        elif name in kernel.pointers:
            signature[name] = kernel.pointers[name]
        elif name.endswith("_ptr") or name in ("A", "B", "C", "O", "X", "Y", "W", "a", "b", "c", "dc",
                                                 "output_ptr", "input_ptr", "cos", "sin", "Out", "attn_mask"):
            signature[name] = f"*{kernel.element}"
        else:
            signature[name] = "fp32" if name in FLOAT_SCALARS else "i32"
    return signature, constexprs


def load_kernel(path: Path, name: str, package_root: Path):
    """The `@triton.jit` function ``name`` of the module at ``path``, executed with only what
    Triton code needs: the module's jit functions, its constant assignments, and its imports
    from Triton (a module's other imports need PyTorch or the library itself)."""
    namespace = _namespace_of(path, package_root)
    function = namespace.get(name)
    if function is None:
        raise KeyError(f"{name} not found in {path.name}")
    return function


def _namespace_of(path: Path, package_root: Path) -> dict:
    import triton
    import triton.language as tl

    tree = ast.parse(path.read_text(), filename=str(path))
    kept: list[ast.stmt] = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and any("jit" in ast.unparse(d) for d in node.decorator_list):
            node.decorator_list = [ast.parse("triton.jit", mode="eval").body]  # autotune, libentry, heuristics: launcher-side
            kept.append(node)
        elif _imports_only_triton(node):
            kept.append(node)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and _is_constant(node.value):
            kept.append(node)
    # Triton reads a kernel's source back from its file (to hash and parse it), so the selection
    # is written beside the unpacked package and executed from there.
    selected = path.with_name(f"{path.stem}.triton_only.py")
    selected.write_text(ast.unparse(ast.Module(body=kept, type_ignores=[])) + "\n")
    from triton.language.extra.cuda import libdevice

    namespace: dict = {"triton": triton, "tl": tl, "__name__": f"third_party_{path.stem}", "__file__": str(selected)}
    # The math functions the libraries import from libdevice behind version checks we dropped.
    namespace.update({name: getattr(libdevice, name) for name in ("tanh", "rsqrt", "erf", "exp", "log", "pow")})
    tle = package_root / "flag_gems" / "utils" / "triton_lang_extension.py"
    if tle.exists() and tle != path:  # FlagGems' `tle.program_id` and friends, as a module of jit functions
        extension = types.ModuleType("triton_lang_extension")
        for key, value in _namespace_of(tle, package_root).items():
            if isinstance(value, triton.runtime.JITFunction):
                setattr(extension, key, value)
        namespace["tle"] = extension
    exec(compile(selected.read_text(), str(selected), "exec"), namespace)  # noqa: S102 - our own selection of the module
    return namespace


def _imports_only_triton(node: ast.stmt) -> bool:
    if isinstance(node, ast.Import):
        return all(alias.name.split(".")[0] == "triton" for alias in node.names)
    if isinstance(node, ast.ImportFrom):
        return (node.module or "").split(".")[0] == "triton"
    if isinstance(node, ast.Try):
        return all(_imports_only_triton(inner) or isinstance(inner, ast.Pass) for inner in node.body)
    return False


def _is_constant(value: ast.expr | None) -> bool:
    if value is None:
        return False
    try:
        ast.literal_eval(value)
        return True
    except ValueError:
        return isinstance(value, ast.Call) and ast.unparse(value.func) == "tl.constexpr"
