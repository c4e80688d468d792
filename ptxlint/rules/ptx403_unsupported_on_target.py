"""## What it does
Reports an instruction or qualifier that the module's `.target` does not support, and names the
targets that do: `wgmma` off sm_90a, `tcgen05` on a plain `sm_100` or on sm_120, `tcgen05.shift`
on a family (`f`) target, `.kind::i8` on sm_103a, `setmaxnreg` on sm_90. The `a`/`f` rules are
applied as the manual states them: a feature of `sm_100f` is usable on sm_100f, sm_100a, sm_103f
and sm_103a; a feature of `sm_100a` only on sm_100a. Also reports a `.target` name retired by a
rename (`sm_101a` became `sm_110a` in PTX 9.0).

## Why is this bad?
`ptxas` refuses the module (`Feature '.cta_group::1' not supported on .target 'sm_90a'`) without
telling you which targets would take it. A module meant for several GPUs needs to know which
features tie it to one architecture.

## Example
```ptx
.version 8.8
.target sm_100f
.address_size 64
.visible .entry kernel()
{
	.reg .b32 %r<2>;
	tcgen05.shift.cta_group::1.down [%r0];
	ret;
}
```

## Use instead
```ptx
.version 8.8
.target sm_100a
.address_size 64
.visible .entry kernel()
{
	.reg .b32 %r<2>;
	tcgen05.shift.cta_group::1.down [%r0];
	ret;
}
```

## Exceptions
Instructions and qualifiers the ISA table does not list are not judged. With several `.target`
entries, the highest architecture listed is used.
"""

from __future__ import annotations

from typing import Iterable

from ptxlint.context import ModuleContext
from ptxlint.diagnostics import Diagnostic, Severity
from ptxlint.ir import Module
from ptxlint.lazy_imports import lazy_module
from ptxlint.rules.base import Rule

target_gates = lazy_module("ptxlint.analyses.target_gates")
targets = lazy_module("ptxlint.isa.targets")


def check(context: ModuleContext) -> Iterable[Diagnostic]:
    module = context.module
    yield from _retired_targets(module)
    architecture = target_gates.module_architecture(module)
    yield from _unsupported_options(module, architecture)
    if architecture is None:
        return
    for instruction, failures in context.result("target_gates"):
        for failure in failures:
            if failure.is_target_failure:
                yield RULE.diagnostic(
                    target_gates.failure_span(instruction, failure),
                    f"`{failure.gate.feature}` is not supported on .target {architecture.name}",
                    notes=(f"supported on {failure.gate.availability.describe()}",),
                    help="compile for a target that has it (`.target` in PTX, `-arch=` for nvcc), or keep this code out of "
                    "this target's build (`#if` on `__CUDA_ARCH__` or an architecture-feature macro such as "
                    "`__CUDA_ARCH_FEAT_SM100_ALL`)",
                )


def _unsupported_options(module: Module, architecture: targets.Target | None) -> Iterable[Diagnostic]:
    """`map_f64_to_f32` dates from GPUs without double precision (before sm_13)."""
    if architecture is None or architecture.number < 13:
        return
    for target in module.targets:
        if target.name == "map_f64_to_f32":
            yield RULE.diagnostic(
                target.span, f"`map_f64_to_f32` is not supported on {architecture.name}: only targets before sm_13 have it",
                help="remove the option; these targets have native double precision")


def _retired_targets(module: Module) -> Iterable[Diagnostic]:
    if module.version is None:
        return
    for target in module.targets:
        parsed = targets.parse_target(target.name)
        retired = targets.TARGET_RETIRED.get(parsed.name) if parsed else None
        if parsed and retired and module.version >= retired:
            yield RULE.diagnostic(
                target.span,
                f"`{target.name}` does not exist in PTX {targets.format_version(module.version)}: "
                f"it was renamed {targets.renamed_to(parsed)} in PTX {targets.format_version(retired)}",
                help=f"write `.target {targets.renamed_to(parsed)}`",
            )


RULE = Rule(
    code="PTX403",
    name="unsupported-on-target",
    severity=Severity.ERROR,
    summary="An instruction or qualifier the module's .target does not support",
    docs=__doc__ or "",
    check=check,
    requires=("target_gates",),
    tags=("correctness", "isa", "portability"),
    precision="very-high",
    reads_function_bodies=False,
)
