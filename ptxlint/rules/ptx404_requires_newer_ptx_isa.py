"""## What it does
Reports an instruction or qualifier that needs a newer `.version` than the module declares
(`elect.sync` needs PTX 8.0, `tcgen05` on sm_100f needs 8.8), and a `.version` too old for the
module's `.target` (sm_100a needs PTX 8.6). Names the minimum version.

## Why is this bad?
`ptxas` rejects the module. Raising `.version` is usually the whole fix, but only if you know
which version introduced the feature on your target.

## Example
```ptx
.version 7.8
.target sm_90
.address_size 64
.visible .entry kernel()
{
	.reg .b32 %r<2>;
	.reg .pred %p<2>;
	elect.sync %r0|%p0, -1;
	ret;
}
```

## Use instead
```ptx
.version 8.0
.target sm_90
.address_size 64
.visible .entry kernel()
{
	.reg .b32 %r<2>;
	.reg .pred %p<2>;
	elect.sync %r0|%p0, -1;
	ret;
}
```

## Exceptions
Instructions and qualifiers the ISA table does not list are not judged. When the target itself
does not have a feature at any version, PTX403 reports it instead.
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
    if module.version is None:
        return
    yield from _targets_newer_than_version(module)
    architecture = target_gates.module_architecture(module)
    if architecture is None:
        return
    declared = targets.format_version(module.version)
    for instruction, failures in context.result("target_gates"):
        for failure in failures:
            if failure.minimum_version is not None:
                needed = targets.format_version(failure.minimum_version)
                yield RULE.diagnostic(
                    target_gates.failure_span(instruction, failure),
                    f"`{failure.gate.feature}` on {architecture.name} requires PTX ISA {needed}; "
                    f"the module declares .version {declared}",
                    help=f"declare `.version {needed}` or later",
                )


def _targets_newer_than_version(module: Module) -> Iterable[Diagnostic]:
    for target in module.targets:
        parsed = targets.parse_target(target.name)
        minimum = targets.minimum_version_for(parsed) if parsed else None
        if minimum is not None and module.version < minimum:
            yield RULE.diagnostic(
                target.span,
                f".target {target.name} requires PTX ISA {targets.format_version(minimum)}; "
                f"the module declares .version {targets.format_version(module.version)}",
                help=f"declare `.version {targets.format_version(minimum)}` or later",
            )


RULE = Rule(
    code="PTX404",
    name="requires-newer-ptx-isa",
    severity=Severity.ERROR,
    summary="A feature or .target that needs a newer .version than the module declares",
    docs=__doc__ or "",
    check=check,
    requires=("target_gates",),
    tags=("correctness", "isa", "portability"),
    precision="very-high",
    reads_function_bodies=False,
)
