"""## What it does
Checks each instruction's qualifiers against its grammar: a modifier the instruction does not
take is reported with the values its slot takes (`.unpack::16b` on `tcgen05.ld`, which takes
`.pack::16b`), as is a missing required qualifier (`elect` without `.sync`), a slot filled twice,
a modifier out of the one place ptxas insists on (`setmaxnreg.sync.aligned.inc`), and qualifiers
that exclude or need each other (`.abs` on an integer `tcgen05.ld.red`; `.release` without a
scope on `mbarrier.arrive`). Also reports qualifiers that the manual does not allow together, or
a qualifier a form requires that is missing: `tcgen05.ld.red` with `.x1`; `.16x32bx2` without its immHalfSplitoff operand (or
another shape with one); `.num` too large for the shape (`.16x256b.x64`, `.16x128b.x128`);
`tcgen05.cp` shapes without (or with the wrong) warp multicast; `st.async` weak and release forms
mixed up; `wmma.store` types a shape does not have; scale-input-d with a kind that has no scaling;
`.ashift` with a collector fill or use.

## Why is this bad?
`ptxas` rejects the module with `Illegal modifier` or `Modifier … not allowed`, without saying
what would be right. ptxlint points at the qualifier and names the valid choices.

## Example
```ptx
.version 8.6
.target sm_100a
.address_size 64
.visible .entry kernel()
{
	.reg .b32 %r<2>;
	.reg .b64 %rd<2>;
	tcgen05.cp.cta_group::1.64x128b [%r0], %rd0;
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
	.reg .b32 %r<2>;
	.reg .b64 %rd<2>;
	tcgen05.cp.cta_group::1.64x128b.warpx2::02_13 [%r0], %rd0;
	ret;
}
```

## Exceptions
Only instructions with a grammar in `ptxlint/isa/grammar.py` and combinations ptxlint's ISA
tables state are checked. Where ptxas accepts more than the manual (a missing `.aligned` on
`tcgen05.ld`, most modifier orders), ptxlint follows ptxas: `ptxlint/isa/DISAGREEMENTS.md`.
"""

from __future__ import annotations

from typing import Iterable

from ptxlint.context import ModuleContext
from ptxlint.diagnostics import Diagnostic, Severity
from ptxlint.lazy_imports import lazy_module
from ptxlint.rules.base import Rule
from ptxlint.rules.ptx401_operand_count_mismatch import operand_kinds

grammar = lazy_module("ptxlint.isa.grammar")
qualifiers = lazy_module("ptxlint.isa.qualifiers")
target_gates = lazy_module("ptxlint.analyses.target_gates")


def check(context: ModuleContext) -> Iterable[Diagnostic]:
    architecture = target_gates.module_architecture(context.module)
    target_number = architecture.number if architecture else 0
    for function in context.module.functions:
        for instruction in function.instructions:
            opcode = instruction.opcode
            if opcode.base in grammar.JUDGED_BASES:
                for problem in grammar.grammar_problems(opcode.base, opcode.modifiers, target_number):
                    span = instruction.opcode_span if problem.index is None else instruction.modifier_span(problem.index)
                    yield RULE.diagnostic(span, problem.message, help=problem.help)
            if opcode.base not in qualifiers.JUDGED_BASES:
                continue
            for problem in qualifiers.qualifier_problems(opcode.base, opcode.modifiers, operand_kinds(instruction)):
                span = instruction.opcode_span if problem.index is None else instruction.modifier_span(problem.index)
                yield RULE.diagnostic(span, problem.message, help=problem.help)


RULE = Rule(
    code="PTX402",
    name="invalid-qualifier-combination",
    severity=Severity.ERROR,
    summary="Qualifiers that may not appear together, or a required qualifier that is missing",
    docs=__doc__ or "",
    check=check,
    tags=("correctness", "isa"),
    precision="very-high",
)
