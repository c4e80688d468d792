"""## What it does
Reports a brace-vector operand whose length differs from what the instruction's shape and
qualifiers require: `tcgen05.ld`/`st` registers for shape × `.num` (Tables 49/50; `.pack::16b`
and `.unpack::16b` do not change the count), the `tcgen05.mma` disable-output-lane mask (4
registers for `.cta_group::1`, 8 for `::2`), `mma` and `wmma` fragments, `ldmatrix`/`stmatrix`
`.x1/.x2/.x4`, `wgmma` accumulators (N/2 per thread, N/4 for `.f16`) and A in registers (4),
`cp.async.bulk.tensor` coordinates (one per dimension) and im2col offsets, and `.v2/.v4` loads
and stores.

Also reports operands of the wrong kind or number (`ptxlint/isa/operands.py`): a register where a
predicate belongs (`elect.sync`'s `d|p`, `mbarrier.try_wait`'s result), a predicate, a
floating-point register or an immediate where an integer register does, the sink `_` where the
result is needed (and a register where only the sink is allowed: `mbarrier.arrive` on
`.shared::cluster`), an immediate where ptxas wants a register, and one operand too many or too few.

## Why is this bad?
`ptxas` rejects the module with `Argument vector size mismatch` or `Arguments mismatch`, naming
neither the expected count nor the operand. ptxlint gives both and points at the operand.

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
Only instructions whose shapes and operand forms ptxlint's ISA tables know are checked; a vector
the table does not size is left alone, and an operand whose kind the text does not show (a
register declared nowhere in sight, a symbol, an expression, a special register) fits any kind.
"""

from __future__ import annotations

from typing import Iterable

from ptxlint.context import ModuleContext
from ptxlint.diagnostics import Diagnostic, Severity
from ptxlint.ir import Address, Function, Immediate, Instruction, Operand, Pair, Register, Sink, Vector
from ptxlint.lazy_imports import lazy_module
from ptxlint.rules.base import Rule

operand_table = lazy_module("ptxlint.isa.operands")
shapes = lazy_module("ptxlint.isa.shapes")


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


# The operand kind letters of `ptxlint.isa.operands`, by a register's declared type.
_REGISTER_KINDS = {
    "pred": "p",
    **{f"{kind}16": "h" for kind in "bsuf"}, "bf16": "h",
    **{f"{kind}32": "b" for kind in "bsu"}, "f32": "r", "f16x2": "r", "bf16x2": "r",
    **{f"{kind}64": "R" for kind in "bsuf"},
}


class _RegisterTypes:
    """The declared type of each register of one function (`%r<100>` declares `%r0` … `%r99`)."""

    def __init__(self, function: Function) -> None:
        self.exact: dict[str, str] = {}
        self.ranges: dict[str, tuple[str, int]] = {}
        self.kinds: dict[str, str] = {}  # each register's kind, found once
        for declaration in function.registers:
            if declaration.vector:
                continue
            if declaration.count:
                self.ranges[declaration.name] = (declaration.type, declaration.count)
            else:
                self.exact[declaration.name] = declaration.type

    def kind(self, register: Register) -> str:
        name = register.name
        known = self.kinds.get(name)
        if known is None:
            known = self.kinds[name] = self._kind(name)
        return known

    def _kind(self, name: str) -> str:
        declared = self.exact.get(name)
        if declared is None:
            stem = name.rstrip("0123456789")
            found = self.ranges.get(stem)
            if found is not None and stem != name and int(name[len(stem):]) < found[1]:
                declared = found[0]
        return _REGISTER_KINDS.get((declared or "").lstrip("."), "?")


def _kind_letter(operand: Operand, registers: _RegisterTypes) -> str:
    if isinstance(operand, Register):
        return registers.kind(operand)
    if isinstance(operand, Vector):
        # "w": every element a 32-bit register; "v": some element known to be another kind;
        # "u": an element whose kind is not known here (fits either)
        elements = {_kind_letter(element, registers) for element in operand.elements}
        if elements <= {"b", "r"}:
            return "w"
        return "u" if elements & {"?", "i"} else "v"
    if isinstance(operand, Address):
        return "a"
    if isinstance(operand, Immediate):
        return "i"
    if isinstance(operand, Sink):
        return "_"
    if isinstance(operand, Pair):
        first, second = _kind_letter(operand.first, registers), _kind_letter(operand.second, registers)
        return "?" if "|" in first + second else f"{first}|{second}"
    return "?"  # a symbol, an expression, a special register, a negated predicate: not known here


def check(context: ModuleContext) -> Iterable[Diagnostic]:
    # What each distinct opcode text expects, looked up once: most instructions expect nothing.
    by_text: dict[str, dict[int, shapes.VectorExpectation]] = {}
    for function in context.module.functions:
        registers: _RegisterTypes | None = None
        for instruction in function.instructions:
            opcode = instruction.opcode
            expected = by_text.get(opcode.text)
            if expected is None:
                expected = by_text[opcode.text] = shapes.expected_vector_lengths(opcode.base, opcode.modifiers)
            if opcode.base in operand_table.JUDGED_BASES:
                registers = registers or _RegisterTypes(function)
                problems = _check_operand_kinds(instruction, registers)
                if problems:
                    yield from problems
                    continue
            if expected:
                yield from _check_instruction(instruction, expected)


def _operand_help(position: int | None) -> str:
    if position is None:
        return "write the operands the PTX ISA lists for this instruction and its qualifiers (`ptxas` rejects this form too)"
    return (
        "give this position the kind of operand the PTX ISA lists (`ptxas` rejects it too); in CUDA's inline `asm()`, "
        "check the constraint letters (`r` a 32-bit register, `l` a 64-bit one) and declare predicates with `.reg .pred`"
    )


def _check_operand_kinds(instruction: Instruction, registers: _RegisterTypes) -> list[Diagnostic]:
    opcode = instruction.opcode
    kinds = tuple(_kind_letter(operand, registers) for operand in instruction.operands)
    found = []
    for problem in operand_table.operand_problems(opcode.base, opcode.modifiers, kinds):
        span = instruction.span if problem.position is None else instruction.operands[problem.position].span
        found.append(RULE.diagnostic(span, problem.message, help=problem.help or _operand_help(problem.position)))
    return found


def _check_instruction(instruction: Instruction, expected_lengths: dict[int, shapes.VectorExpectation]) -> Iterable[Diagnostic]:
    operands = instruction.operands
    for position, expected in expected_lengths.items():
        if not -len(operands) <= position < len(operands):
            continue
        operand: Operand | None = operands[position]
        if expected.in_address:
            operand = operand.extra[0] if isinstance(operand, Address) and len(operand.extra) == 1 else None
        if isinstance(operand, Vector) and not expected.fits(len(operand.elements)):
            yield RULE.diagnostic(
                operand.span,
                f"{expected.what} has {expected.expected()} elements, not {len(operand.elements)}",
                help=f"write {expected.expected()} registers in the braces",
            )


RULE = Rule(
    code="PTX401",
    name="operand-count-mismatch",
    severity=Severity.ERROR,
    summary="An operand of the wrong kind or number, or a vector of the wrong length for the shape and qualifiers",
    docs=__doc__ or "",
    check=check,
    tags=("correctness", "isa"),
    precision="very-high",
)
