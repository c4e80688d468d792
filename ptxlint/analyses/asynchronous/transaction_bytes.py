"""The transaction bytes a thread announces and delivers on each mbarrier: what
`mbarrier.expect_tx` / `mbarrier.arrive.expect_tx` add to the barrier's tx-count, against what the
copies that signal it (`...mbarrier::complete_tx::bytes`) and `mbarrier.complete_tx` take away.

PTX ISA, mbarrier, "Phase Completion of the mbarrier object": a phase completes when its pending arrivals reach zero *and* its tx-count
does. A thread that expects more bytes than it delivers leaves the phase open forever (the
waiters hang); one that delivers more completes the phase early and carries bytes into the next.

The state, per barrier, is the *window* of the thread's current contribution: the constant bytes
expected and delivered since it last waited on an mbarrier (any: a producer waits on the "empty"
barrier before refilling the "full" one), or `UNKNOWN` (a count that is not a constant, a tensor
copy — its size comes from the tensor map —, a multicast, a call). A wait, `ret` or `exit`
closes every window: where the window is known on every path (paths that contributed nothing
do not count: other threads), expected and delivered bytes are compared.

Precision first, so nothing is said about a barrier when:
- its identity is not certain — its operand is a `.shared` symbol plus a constant offset, or one
  register written once (followed through `mov`, `cvta` and constant `add`), else it is unknown
  and the whole function is left alone;
- some thread delivers bytes it did not announce (a window closes with bytes delivered and none
  expected): another thread expects them (one lane announces, every lane copies); and a window
  with bytes announced and none delivered is taken to announce another thread's copies;
- the module can deliver bytes to another CTA's barrier (multicast, `st.async`,
  `cp.async.bulk.shared::cluster.shared::cta` to a barrier not known to be local): this CTA's
  barriers may then receive bytes no instruction of its own delivers;
- a function mixes a register-named barrier with another one (they might be the same).
"""

from __future__ import annotations

import enum
from typing import Final, Literal, NamedTuple

from ptxlint.analyses.registers import Registers, register_of_key
from ptxlint.callgraph import callee_name
from ptxlint.context import ModuleContext
from ptxlint.dataflow import Solution, StatesBefore, solve_forward
from ptxlint.ir import Address, Function, Instruction, Module, Operand, Register, Symbol
from ptxlint.passes import Describe, Pass


class _Unknown(enum.Enum):
    """A window whose bytes are not all constants (an enum member, so that type checkers tell it
    from a :class:`Window` by identity)."""

    UNKNOWN = "unknown"


UNKNOWN: Final = _Unknown.UNKNOWN

_TYPE_BYTES = {f"{kind}{bits}": bits // 8 for kind in "busf" for bits in (8, 16, 32, 64)}

Identity = tuple[str, str, int]  # ("symbol", name, offset) or ("register", scoped key, offset)


class Window(NamedTuple):
    """One thread's contribution to a barrier's current phase."""

    expected: int
    delivered: int
    partial: bool  # some path merged here contributed nothing (another thread's, maybe)
    expects: frozenset[int]  # the `expect_tx` instructions counted
    copies: frozenset[int]  # the copies counted


class Mismatch(NamedTuple):
    """A window that closes with a different number of bytes expected and delivered."""

    barrier: Identity
    expected: int
    delivered: int
    expects: tuple[int, ...]  # the `expect_tx` instructions, in order
    copies: tuple[int, ...]  # the copies, in order
    close: int  # the wait, `ret` or `exit` that closes it

    @property
    def barrier_name(self) -> str:
        """The barrier as the PTX names it: `full+8`, `%r3`."""
        return _identity_name(self.barrier)


def _identity_name(identity: Identity) -> str:
    return register_of_key(identity[1]) + (f"+{identity[2]}" if identity[2] else "")


# ----------------------------------------------------------------------------- instructions


class _Access(NamedTuple):
    kind: str  # "expect", "deliver", "wait", "reset", "opaque"
    barrier: Identity | None  # None: not certain
    bytes: int | None  # None: not a constant (or a tensor copy)
    remote: bool = False  # may deliver to another CTA's barrier


def _is_tx(instruction: Instruction) -> bool:
    modifiers = instruction.opcode.modifiers
    return "mbarrier::complete_tx::bytes" in modifiers


# The opcodes that open, close or interrupt a window whatever their qualifiers (any other
# instruction matters only as a transaction-counting copy, `mbarrier::complete_tx::bytes`).
_CLASSIFIED_BASES = frozenset({"mbarrier", "call", "ret", "exit"})


def classify(instruction: Instruction, names: Registers, index: int) -> _Access | None:
    """What an instruction does to transaction windows, or None (nothing)."""
    base = instruction.opcode.base
    modifiers = instruction.opcode.modifiers
    if base not in _CLASSIFIED_BASES and "mbarrier::complete_tx::bytes" not in modifiers:
        return None  # most instructions: nothing to the windows (checked before any operand is read)
    addresses = [operand for operand in instruction.operands if type(operand) is Address]
    if base == "mbarrier":
        operation = modifiers[0] if modifiers else ""
        if operation in ("try_wait", "test_wait"):
            return _Access("wait", None, None)
        if operation in ("init", "inval"):
            return _Access("reset", _barrier(addresses[0], instruction.scope, names) if addresses else None, None)
        if operation == "expect_tx" or (operation == "arrive" and "expect_tx" in modifiers):
            return _Access("expect", _barrier(addresses[0], instruction.scope, names) if addresses else None, _after(instruction, addresses[0], names) if addresses else None)
        if operation == "complete_tx":
            return _Access("deliver", _barrier(addresses[0], instruction.scope, names) if addresses else None, _after(instruction, addresses[0], names) if addresses else None)
        return None
    if _is_tx(instruction):
        if not addresses:
            return _Access("deliver", None, None, True)
        barrier = _barrier(addresses[-1], instruction.scope, names)
        multicast = any(modifier.startswith("multicast") for modifier in modifiers)
        # A barrier reached through `mapa` (not certain) may be another CTA's; a multicast
        # signals every destination CTA's barrier.
        remote = multicast or barrier is None
        if base == "cp" and "tensor" in modifiers:
            return _Access("deliver", barrier, None, remote)
        if base in ("st", "red"):  # st.async / red.async: the type's size
            vector = next((int(modifier[1:]) for modifier in modifiers if modifier in ("v2", "v4")), 1)
            size = next((_TYPE_BYTES[modifier] for modifier in reversed(modifiers) if modifier in _TYPE_BYTES), None)
            return _Access("deliver", barrier, size * vector if size else None, remote)
        size_operand = instruction.operands[2] if len(instruction.operands) > 2 else None
        return _Access("deliver", barrier, None if multicast else _constant(size_operand, instruction.scope, names), remote)
    if base == "call":
        return _Access("opaque", None, None)
    if base in ("ret", "exit"):
        return _Access("wait", None, None)
    return None


def _after(instruction: Instruction, address: Address, names: Registers) -> int | None:
    """The constant operand right after the barrier address (a byte count)."""
    operands = instruction.operands
    position = next(position for position, operand in enumerate(operands) if operand is address)
    return _constant(operands[position + 1], instruction.scope, names) if position + 1 < len(operands) else None


def _constant(operand: Operand | None, scope: int, names: Registers) -> int | None:
    constant = names.constant(operand, scope)
    return None if constant is None else constant.value


def _barrier(address: Address, scope: int, names: Registers) -> Identity | None:
    """The certain identity of the barrier an address (read at ``scope``) names, or None."""
    base = address.base
    if type(base) is Symbol:
        return ("symbol", base.name, address.offset)
    if type(base) is Register:
        resolved = _register_identity(names.key(base.name, scope), names, 0)
        if resolved is None:
            return None
        kind, name, offset = resolved
        return (kind, name, offset + address.offset)
    return None


def _register_identity(key: str, names: Registers, depth: int) -> Identity | None:
    """The identity of the barrier address register ``key`` (a scoped key) holds."""
    writers = names.writers.get(key, ())
    if len(writers) != 1 or depth > 8:
        return None
    writer = names.instructions[writers[0]]
    if writer.guard is not None:
        return None
    base = writer.opcode.base
    sources = writer.operands[writer.destination_count :]
    if base in ("mov", "cvta") and len(sources) == 1:
        source = sources[0]
        if type(source) is Symbol:
            return ("symbol", source.name, 0)
        if type(source) is Register:
            return _register_identity(names.key(source.name, writer.scope), names, depth + 1) or ("register", key, 0)
        return None
    if base == "add" and len(sources) == 2 and type(sources[0]) is Register:
        offset = _constant(sources[1], writer.scope, names)
        inner = _register_identity(names.key(sources[0].name, writer.scope), names, depth + 1)
        if offset is not None and inner is not None:
            return (inner[0], inner[1], inner[2] + offset)
    if base == "mapa":
        return None  # another CTA's barrier, maybe
    return ("register", key, 0)


# ----------------------------------------------------------------------------- the lattice

_Entry = Window | Literal[_Unknown.UNKNOWN]
_Open = tuple[tuple[Identity, _Entry], ...]  # the open windows, by barrier in order


class _Windows:
    """Per barrier, its window (absent: nothing contributed since the last close) or UNKNOWN.
    ``None`` state: not reached."""

    def __init__(self, accesses: dict[int, _Access]) -> None:
        self.accesses = accesses
        self.mismatches: dict[tuple[int, Identity], Mismatch] = {}  # (close, barrier) → Mismatch, filled by :meth:`close`
        self.shared: set[Identity] = set()  # barriers some thread delivers to without expecting

    def bottom(self) -> _Open | None:
        return None

    def refine(self, source: int, target: int, state: _Open | None) -> _Open | None:
        return state

    def entry(self) -> _Open | None:
        return ()

    def join(self, first: _Open | None, second: _Open | None) -> _Open | None:
        if first is None:
            return second
        if second is None or first == second:
            return first
        left, right = dict(first), dict(second)
        merged: dict[Identity, _Entry] = {}
        for barrier in left.keys() | right.keys():
            a, b = left.get(barrier), right.get(barrier)
            merged[barrier] = _join_window(a, b)
        return _freeze(merged)

    def transfer(self, index: int, instruction: Instruction, state: _Open | None) -> _Open | None:
        access = self.accesses.get(index)
        if access is None or state is None:
            return state
        after = self._apply(index, access, state)
        # A guarded instruction may not execute: both outcomes.
        return after if instruction.guard is None else self.join(state, after)

    def _apply(self, index: int, access: _Access, state: _Open) -> _Open:
        windows = dict(state)
        kind = access.kind
        if kind == "opaque":
            return _freeze({barrier: UNKNOWN for barrier in windows})
        if kind == "wait":
            return ()
        barrier = access.barrier
        if barrier is None:
            # Resetting a barrier that is not certain (one expected or delivered to never is:
            # the function is then not analysed).
            return _freeze(windows)
        if kind == "reset":
            windows.pop(barrier, None)
            return _freeze(windows)
        window = windows.get(barrier)
        if window is UNKNOWN or access.bytes is None or (window is not None and window.partial):
            windows[barrier] = UNKNOWN
            return _freeze(windows)
        window = window or Window(0, 0, False, frozenset(), frozenset())
        if kind == "expect":
            window = window._replace(expected=window.expected + access.bytes, expects=window.expects | {index})
        else:
            window = window._replace(delivered=window.delivered + access.bytes, copies=window.copies | {index})
        windows[barrier] = window
        return _freeze(windows)

    def close(self, index: int, windows: dict[Identity, _Entry]) -> None:
        """Record what the windows open before the closing instruction ``index`` say."""
        for barrier, window in windows.items():
            if window is UNKNOWN:
                continue
            if window.expected == 0 and window.delivered > 0:
                self.shared.add(barrier)
            elif window.delivered > 0 and window.expected != window.delivered:  # none: announced for others
                self.mismatches[(index, barrier)] = Mismatch(
                    barrier, window.expected, window.delivered, tuple(sorted(window.expects)), tuple(sorted(window.copies)), index
                )


def _join_window(a: _Entry | None, b: _Entry | None) -> _Entry:
    if a is UNKNOWN or b is UNKNOWN:
        return UNKNOWN
    if a is None:
        return b._replace(partial=True)  # type: ignore[union-attr]  # not None too: the barrier is open on one side
    if b is None:
        return a._replace(partial=True)
    if (a.expected, a.delivered) != (b.expected, b.delivered):
        return UNKNOWN
    return Window(a.expected, a.delivered, a.partial or b.partial, a.expects | b.expects, a.copies | b.copies)


def _freeze(windows: dict[Identity, _Entry]) -> _Open:
    return tuple(sorted(windows.items(), key=lambda item: item[0]))


# ----------------------------------------------------------------------------- the result


class TransactionFacts:
    """The `tx_bytes` pass's answers on one function: the windows that close unbalanced, on barriers whose
    every contribution the function shows."""

    def __init__(self, mismatches: list[Mismatch], analysis: _Windows | None, solution: Solution[_Open | None] | None) -> None:
        self._mismatches = mismatches
        self._analysis = analysis
        self._solution = solution
        self._state_before = StatesBefore(solution, analysis) if analysis is not None and solution is not None else None

    def mismatches(self) -> list[Mismatch]:
        """Each closing point where the bytes a thread expected on a barrier and those it
        delivered, constant and the same on every path, differ — one per barrier and expect_tx."""
        return self._mismatches

    def describe_before(self, index: int) -> str:
        if self._state_before is None:
            return "-"
        state = self._state_before(index)
        if state is None:
            return "unreachable"
        parts = []
        for barrier, window in state:
            name = _identity_name(barrier)
            parts.append(f"{name}: ?" if window is UNKNOWN else f"{name}: {window.expected}/{window.delivered}")
        return " ".join(parts) or "-"


def _delivers_remotely(context: ModuleContext) -> bool:
    """Whether some instruction of the module may signal another CTA's barrier."""
    for function in context.module.functions:
        if not function.has_body:
            continue
        names = None
        for index, instruction in enumerate(function.instructions):
            if _is_tx(instruction):
                names = names or context.result("registers", function)
                access = classify(instruction, names, index)
                if access is not None and access.remote:
                    return True
    return False


class ModuleTransactions:
    """The `tx_bytes` pass: per function with a body, its :class:`TransactionFacts`."""

    def __init__(self, facts: dict[str, TransactionFacts]) -> None:
        self._facts = facts

    def function(self, function: Function) -> TransactionFacts:
        return self._facts.get(function.name, _NOTHING)


_NOTHING = TransactionFacts([], None, None)


def _run(context: ModuleContext) -> ModuleTransactions:
    module = context.module
    announcing = [
        function
        for function in module.functions
        if function.has_body
        and any(instruction.opcode.base == "mbarrier" and "expect_tx" in instruction.opcode.modifiers for instruction in function.instructions)
    ]
    if not announcing or _delivers_remotely(context):
        return ModuleTransactions({})
    return ModuleTransactions({function.name: _function_facts(context, function) for function in announcing})


def _function_facts(context: ModuleContext, function: Function) -> TransactionFacts:
    names = context.result("registers", function)
    accesses: dict[int, _Access] = {}
    for index, instruction in enumerate(function.instructions):
        access = classify(instruction, names, index)
        if access is not None:
            if access.kind == "opaque" and _quiet_callee(context.module, instruction):
                continue
            accesses[index] = access
    barriers = [access.barrier for access in accesses.values() if access.kind in ("expect", "deliver")]
    identities = {barrier for barrier in barriers if barrier is not None}
    if len(identities) < len(set(barriers)):
        return _NOTHING  # some barrier is not certain
    if any(identity[0] == "register" for identity in identities) and len({identity[:2] for identity in identities}) > 1:
        return _NOTHING  # a register-named barrier may be any of the others
    analysis = _Windows(accesses)
    solution: Solution[_Open | None] = solve_forward(context.result("cfg", function), analysis)
    states = StatesBefore(solution, analysis)
    for index, access in sorted(accesses.items()):
        if access.kind == "wait":
            state = states(index)
            if state is not None:
                analysis.close(index, dict(state))
    found: dict[tuple[Identity, tuple[int, ...]], Mismatch] = {}
    for (_, barrier), mismatch in sorted(analysis.mismatches.items()):
        if barrier not in analysis.shared:
            found.setdefault((barrier, mismatch.expects), mismatch)
    return TransactionFacts(list(found.values()), analysis, solution)


def _quiet_callee(module: Module, instruction: Instruction) -> bool:
    name = callee_name(instruction)
    callee = next((function for function in module.functions if function.name == name and function.has_body), None) if name else None
    return callee is not None and not any(
        other.opcode.base in ("mbarrier", "call") or _is_tx(other) for other in callee.instructions
    )


def _describe(result: ModuleTransactions, function: Function) -> Describe | None:
    """Before each instruction, per barrier with an open window: bytes expected / delivered so
    far (``bar: 4096/2048``), `?` where unknown."""
    facts = result.function(function)
    if facts._analysis is None:
        return None
    return lambda index, instruction: facts.describe_before(index)


PASSES = (
    Pass(
        "tx_bytes",
        "the constant transaction bytes each thread expects and delivers on each mbarrier, per phase window",
        _run,
        requires=("cfg", "registers"),
        printer=_describe,
    ),
)
