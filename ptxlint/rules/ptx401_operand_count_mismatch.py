"""## What it does
Reports a brace-vector operand whose length differs from what the instruction's shape and
qualifiers require: `tcgen05.ld`/`st` registers for shape × `.num` (Tables 49/50; `.pack::16b`
and `.unpack::16b` do not change the count), the `tcgen05.mma` disable-output-lane mask (4
registers for `.cta_group::1`, 8 for `::2`), `mma` and `wmma` fragments, `ldmatrix`/`stmatrix`
`.x1/.x2/.x4`, `wgmma` accumulators (N/2 per thread, N/4 for `.f16`) and `.v2/.v4` loads and stores.

## Why is this bad?
`ptxas` rejects the module with `Argument vector size mismatch`, naming neither the expected count
nor the operand. ptxlint gives both numbers and points at the vector.

## Example
```ptx
.version 8.6
.target sm_100a
.address_size 64
.visible .entry kernel()
{
	.reg .b32 %r<8>;
	tcgen05.ld.sync.aligned.16x128b.x1.b32 {%r1}, [%r0];
	ret;
}
```

## Use instead
```ptx
.version 8.6
.target sm_100a
.address_size 64
.visible .entry kernel()
{
	.reg .b32 %r<8>;
	tcgen05.ld.sync.aligned.16x128b.x1.b32 {%r1, %r2}, [%r0];
	ret;
}
```

## Exceptions
Only instructions whose shapes ptxlint's ISA table knows are checked; a vector the table does not
size is left alone.
"""

from __future__ import annotations

from typing import Iterable

from ptxlint.context import ModuleContext
from ptxlint.diagnostics import Diagnostic, Severity
from ptxlint.ir import Address, Immediate, Instruction, Operand, Vector
from ptxlint.isa.shapes import VectorExpectation, expected_vector_lengths
from ptxlint.rules.base import Rule


def operand_kind(operand: Operand) -> str:
    """The operand forms the ISA tables distinguish (they know nothing of the IR)."""
    if isinstance(operand, Vector):
        return "vector"
    if isinstance(operand, Address):
        return "address"
    if isinstance(operand, Immediate):
        return "immediate"
    return "other"


def operand_kinds(instruction: Instruction) -> tuple[str, ...]:
    return tuple(operand_kind(operand) for operand in instruction.operands)


def check(context: ModuleContext) -> Iterable[Diagnostic]:
    # What each distinct opcode text expects, looked up once: most instructions expect nothing.
    by_text: dict[str, dict[int, VectorExpectation]] = {}
    for function in context.module.functions:
        for instruction in function.instructions:
            opcode = instruction.opcode
            expected = by_text.get(opcode.text)
            if expected is None:
                expected = by_text[opcode.text] = expected_vector_lengths(opcode.base, opcode.modifiers)
            if expected:
                yield from _check_instruction(instruction, expected)


def _check_instruction(instruction: Instruction, expected_lengths: dict[int, VectorExpectation]) -> Iterable[Diagnostic]:
    operands = instruction.operands
    for position, expected in expected_lengths.items():
        if not -len(operands) <= position < len(operands):
            continue
        operand = operands[position]
        if isinstance(operand, Vector) and len(operand.elements) != expected.count:
            yield RULE.diagnostic(
                operand.span,
                f"{expected.what} has {expected.count} elements, not {len(operand.elements)}",
                help=f"write {expected.count} registers in the braces",
            )


RULE = Rule(
    code="PTX401",
    name="operand-count-mismatch",
    severity=Severity.ERROR,
    summary="A vector operand's length differs from what the shape and qualifiers require",
    docs=__doc__ or "",
    check=check,
    tags=("correctness", "isa"),
    precision="very-high",
)
