"""## What it does
Reports an immediate operand outside the range the manual gives: a `tcgen05.alloc` column count
that is not a power of two in 32…512, a `tcgen05.dealloc` count that is not a multiple of 32 in
32…512, a `setmaxnreg` count that is not a multiple of 8 in 24…256, `scale-input-d` outside
0…15, a barrier id above 15, a barrier thread count that is not a multiple of 32.

## Why is this bad?
`ptxas` rejects the module; before it runs, nothing tells you which constant is wrong or what the
allowed values are.

## Example
```ptx
.version 8.0
.target sm_90a
.address_size 64
.visible .entry kernel()
{
	setmaxnreg.inc.sync.aligned.u32 100;
	ret;
}
```

## Use instead
```ptx
.version 8.0
.target sm_90a
.address_size 64
.visible .entry kernel()
{
	setmaxnreg.inc.sync.aligned.u32 104;
	ret;
}
```

## Exceptions
Only immediates are checked; values in registers are not tracked yet.
"""

from __future__ import annotations

from typing import Iterable

from ptxlint.context import ModuleContext
from ptxlint.diagnostics import Diagnostic, Severity
from ptxlint.ir import Immediate
from ptxlint.lazy_imports import lazy_module
from ptxlint.rules.base import Rule
from ptxlint.rules.ptx401_operand_count_mismatch import operand_kinds

isa_values = lazy_module("ptxlint.isa.values")


def check(context: ModuleContext) -> Iterable[Diagnostic]:
    for function in context.module.functions:
        for instruction in function.instructions:
            opcode = instruction.opcode
            if opcode.base not in isa_values.LIMITED_BASES:
                continue
            operands = instruction.operands
            for position, limit in isa_values.value_limits(opcode.base, opcode.modifiers, operand_kinds(instruction)).items():
                if position >= len(operands):
                    continue
                operand = operands[position]
                if isinstance(operand, Immediate) and isinstance(operand.value, int):
                    problem = limit.violation(operand.value)
                    if problem:
                        yield RULE.diagnostic(operand.span, problem, help=_help(limit.nearest(operand.value)))


def _help(nearest: tuple[int, ...]) -> str:
    if len(nearest) == 1:
        return f"the nearest allowed value is {nearest[0]}"
    return f"the nearest allowed values are {nearest[0]} and {nearest[1]}"


RULE = Rule(
    code="PTX405",
    name="operand-value-out-of-range",
    severity=Severity.ERROR,
    summary="An immediate operand outside the range the instruction allows",
    docs=__doc__ or "",
    check=check,
    tags=("correctness", "isa"),
    precision="very-high",
)
