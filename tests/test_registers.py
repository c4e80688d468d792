"""Unit tests for the register model (:class:`ptxlint.analyses.registers.Registers`): a name
at an instruction means the register its innermost enclosing scope declares, sibling inline-asm
blocks that reuse a name hold different registers, and a function without nested declarations
keys each register by its name."""

from __future__ import annotations

from ptxlint.analyses.registers import Registers, register_of_key
from ptxlint.ir import Operand, Register

from test_cfg import function_of

# Two sibling inline-asm blocks each declare `p` and `%q<2>`; the second nests a third block
# that declares `p` again; `%r1` (the function's) is read inside and after them.
_BLOCKS = """
	mov.u32 %r1, %tid.x;
	{
	.reg .pred p;
	.reg .b32 %q<2>;
	setp.eq.u32 p, %r1, 0;
	selp.u32 %q1, 1, 0, p;
	add.u32 %r2, %q1, %r1;
	}
	{
	.reg .pred p;
	.reg .b32 %q<2>;
	setp.ne.u32 p, %r1, 0;
	{
	.reg .pred p;
	setp.lt.u32 p, %r1, 4;
	@p mov.u32 %q1, 2;
	}
	@p add.u32 %r2, %q1, 1;
	}
	ret;
"""


def test_each_block_declaring_a_name_holds_its_own_register() -> None:
    registers = Registers(function_of(_BLOCKS))
    writes = [registers.writes(index) for index in range(len(registers.instructions))]
    first_p, first_q = writes[1][0], writes[2][0]
    second_p, inner_p, second_q = writes[4][0], writes[5][0], writes[6][0]
    assert len({first_p, second_p, inner_p}) == 3 and len({first_q, second_q}) == 2
    assert {register_of_key(key) for key in (first_p, second_p, inner_p)} == {"p"}
    assert registers.reads(6) == (inner_p,)  # the guard of the innermost block's `mov`
    assert registers.reads(7) == (second_q, second_p)  # back in the second block
    assert registers.writers[first_p] == [1] and registers.readers[first_p] == [2]
    assert registers.writers[second_q] == [6] and registers.readers[second_q] == [7]
    # The function's own registers keep their names wherever they are read.
    assert registers.writes(0) == ("%r1",) and registers.readers["%r1"] == [1, 3, 4, 5]
    assert registers.writers["%r2"] == [3, 7]


def test_a_function_without_nested_declarations_keys_registers_by_name() -> None:
    registers = Registers(function_of("\tmov.u32 %r1, %tid.x;\n\tret;"))
    assert registers.keys_are_names and registers.key("%r1", 0) == "%r1" and registers.writes(0) == ("%r1",)
    assert not Registers(function_of(_BLOCKS)).keys_are_names


def test_backward_slice_follows_the_register_of_the_scope() -> None:
    registers = Registers(function_of(_BLOCKS))
    followed, found = registers.backward_slice(registers.reads(7))
    # The second block's `%q1` comes from the innermost block's guarded `mov` only, whose guard
    # is the innermost `p`; not from the first block's `selp`.
    assert 2 not in found and {4, 5, 6} <= found and 0 in found
    assert "%r1" in followed


def test_a_wide_nested_range_is_resolved_without_expanding_it() -> None:
    body = "\t{\n\t.reg .b32 %q<100000000>;\n\tmov.u32 %q99999999, 1;\n\tmov.u32 %r1, %q99999999;\n\t}\n\tret;"
    registers = Registers(function_of(body))
    inner = registers.writes(0)[0]
    assert inner != "%q99999999" and register_of_key(inner) == "%q99999999"
    assert registers.reads(1) == (inner,) and registers.writes(1) == ("%r1",)


def test_a_constant_is_an_immediate_or_a_register_every_mov_sets_alike() -> None:
    registers = Registers(function_of("""
	mov.u32 %r1, -1;
	mov.u32 %r2, %r1;
	mov.u32 %r3, 8;
	@%p1 bra L1;
	mov.u32 %r3, 8;
L1:
	mov.u32 %r4, 4;
	@%p1 bra L2;
	mov.u32 %r4, 16;
L2:
	@%p1 mov.u32 %r5, 7;
	shfl.sync.idx.b32 %r6, %r1, %r2, %r3, %r4;
	add.u32 %r7, %r5, 1;
	ret;
"""))
    shuffle = next(instruction for instruction in registers.instructions if instruction.opcode.base == "shfl")
    add = next(instruction for instruction in registers.instructions if instruction.opcode.base == "add")

    def value(operand: Operand, scope: int) -> int | None:
        found = registers.constant(operand, scope)
        return None if found is None else found.value

    destination, source, lane, clamp, mask = shuffle.operands
    assert value(source, shuffle.scope) == -1  # one mov of an immediate
    assert registers.constant(source, shuffle.scope).set_by == (0,)  # type: ignore[union-attr]
    assert value(lane, shuffle.scope) == -1  # a mov of such a register
    assert value(clamp, shuffle.scope) == 8  # two movs of the same immediate
    assert value(mask, shuffle.scope) is None  # two movs of different ones
    assert value(destination, shuffle.scope) is None  # written by the shuffle itself
    assert value(add.operands[1], add.scope) is None  # a guarded mov may not run
    assert value(add.operands[2], add.scope) == 1  # an immediate



def test_an_address_is_a_variable_plus_a_constant_through_movs_and_adds() -> None:
    """nvcc's local frame: `mov %SPL, __local_depot; add %rd1, %SPL, 0; add %rd44, %rd1, 4`
    points at the depot plus 4; an address that two writes set differently, a register added to
    another register, or a guarded write, points nowhere known."""
    registers = Registers(function_of("""
	.reg .b64 %rd<8>;
	.local .align 8 .b8 depot[16];
	mov.u64 %rd1, depot;
	add.u64 %rd2, %rd1, 0;
	add.s64 %rd3, %rd2, 4;
	add.s64 %rd4, 8, %rd3;
	add.s64 %rd5, %rd3, %rd2;
	mov.u64 %rd6, %rd3;
	@%p1 bra L1;
	mov.u64 %rd6, %rd4;
L1:
	@%p1 mov.u64 %rd7, depot;
	ld.local.u32 %r1, [%rd4];
	ret;
"""))
    load = next(instruction for instruction in registers.instructions if instruction.opcode.base == "ld")
    scope = load.scope

    def place(name: str) -> tuple[str, int] | None:
        return registers.symbol_offset(Register(name, load.span), scope)

    assert place("%rd2") == ("depot", 0)
    assert place("%rd3") == ("depot", 4)
    assert place("%rd4") == ("depot", 12)  # the constant on either side
    assert place("%rd5") is None  # two registers added
    assert place("%rd6") is None  # two writes, two places
    assert place("%rd7") is None  # a guarded write
