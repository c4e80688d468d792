"""Uniformity: over which threads each value is equal, and with which threads each instruction
runs — the facts the convergence rules (PTX101–PTX105) need.

Model (after LLVM's UniformityAnalysis, on PTX registers instead of SSA values):

- **Values.** Each register has a :class:`Value`: a :class:`~ptxlint.analyses.lanes.Level`
  (CTA-uniform ⊑ warpgroup-uniform ⊑ warp-uniform ⊑ thread-varying), optionally an exact
  `%tid.x` bit field (so `%tid.x >> 5` is seen to be warp-uniform), and the :class:`Origin` that
  made it non-uniform (for diagnostic labels). Sources are special registers, atomics, loads from
  varying addresses, per-lane results of matrix instructions, `elect.sync`'s predicate; the
  warp-level primitives (`vote`, `redux`, `match.all`, a broadcasting `shfl.sync.idx`) produce
  warp-uniform values.
- **Control.** A conditional branch whose condition is not CTA-uniform makes every block in its
  influence region (reachable from it before its immediate post-dominator) run with part of the
  threads: the state carries the set of such branches, entered on the branch's out-edges and left
  at its post-dominator. A branch splits the threads that run it as much as the data of its
  condition varies (they all computed it; the control they ran under is already in the state).
  When the branch can split threads only if a CTA-uniform comparison in its `and`/`or`/`not`
  condition holds, edges guarded by a contradicting comparison of the same register are
  infeasible meanwhile: the entry is left on them and at the post-dominator of the graph without
  them (:func:`_correlated_branches`). An instruction runs at the level of the worst enclosing
  branch and its own guard; at warp level, a proven split of a warpgroup (an exact `%tid.x` set
  taking some of its warps) ranks above an unproven one (``Divergence.proven``). Values it writes take that level (sync dependence; a loop with a divergent exit
  covers its whole body, so values carried out of it are divergent — temporal divergence).
- **Paths.** The state also carries which threads reach each point
  (``ptxlint/analyses/reaching_threads.py``): branches on exact `%tid.x` sets narrow it, so a
  block that the paths through lane-splitting branches reach with whole warps (nvcc's jump-threaded
  `if (tid == 0) … if (warp == 0) alloc`) runs at warp level, and a register written under such
  control is lowered back along an edge taken by whole warps. A branch on thread-varying data
  leaves an unknown part of each warp on either side; where its paths meet (``entering``) every
  thread that took it is back, and a loop with one way out is left by every thread that entered
  it, so an elected producer lane does not blur the consumer warps after it.
- **Exits.** A branch that sends part of the threads to an `exit` (or a kernel `ret`), or a
  guarded exit, leaves an exit mark on the paths the other threads take: collectives after it
  run without the exited threads. Branches into `trap` (or a failed `assert`) are ignored: it
  ends the whole grid.
- **Calls.** `.func` parameters are the join over every call site's arguments, computed
  callers-first and iterated with return values to a fixed point; externally visible, recursive
  or address-taken functions get thread-varying parameters.

Everything runs on the one forward solver of ``ptxlint/dataflow.py``. Registers written once
(almost all registers in compiler output) live in a side table instead of the per-instruction
state, which keeps the state small; a global epoch in the state makes the solver revisit the
uses of a side-table entry whose value grew after it was read (loops).

Only functions that contain a collective, or call one that does, are analysed (cheap check
first), and in them only the instructions a collective, a branch, an exit or a call depends on,
through the registers they read (:func:`_relevant_instructions`, a sparse analysis like LLVM's
on def-use chains); ``format_uniformity`` analyses everything.
"""

from __future__ import annotations

from bisect import bisect_right
from functools import cached_property
from dataclasses import dataclass, field, replace
from typing import Callable, Collection, Iterator, Sequence

from ptxlint import cfg as cfg_module
from ptxlint import ir
from ptxlint.analyses.lanes import (
    TID_X,
    Constant,
    Form,
    LaneModel,
    Level,
    Multiple,
    TidBits,
    TidDependence,
    TidSet,
    carried,
    combined,
    dependence_of,
    masked,
    shifted_left,
    shifted_right,
    alignment_of,
    mask,
    power_of_two,
    shift_left,
    shift_right,
    tid_set,
)
from ptxlint.analyses.launch import block_shape
from ptxlint.analyses.reaching_threads import ThreadSpace, Threads
from ptxlint.analyses.registers import RegisterIndex, live_in, register_index
from ptxlint.callgraph import CallGraph, callee_name
from ptxlint.context import ModuleContext, Options
from ptxlint.dataflow import indices_by_block, instruction_states, solve_forward
from ptxlint.isa.aligned import Collective, collective
from ptxlint.isa.special_registers import UNIFORMITY, special_register_base
from ptxlint.isa.types import integer_types
from ptxlint.source import Span

# ----------------------------------------------------------------------------- values


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a value became non-uniform: a span and a fact about it ("`%tid.x` varies per
    thread")."""

    span: Span
    message: str


@dataclass(frozen=True, slots=True)
class Value:
    """``bits`` is the value's exact symbolic form when known: a `%tid.x` bit field, a constant,
    or a uniform multiple of a power of two (the name is kept short: it is read everywhere)."""

    level: Level
    bits: Form | None = None
    origin: Origin | None = None


UNIFORM = Value(Level.CTA)
_FULL_MASKS = frozenset({-1, 0xFFFFFFFF})


def join(first: Value, second: Value) -> Value:
    """The least value above both: the larger level with its origin (the earlier origin on a
    tie, so the result does not depend on visiting order); the bit field survives only when
    both agree."""
    if first is second:
        return first
    bits = first.bits if first.bits == second.bits else None
    if first.level != second.level:
        larger = first if first.level > second.level else second
        return larger if larger.bits == bits else Value(larger.level, bits, larger.origin)
    origin = _earlier(first.origin, second.origin)
    if bits == first.bits and origin == first.origin:
        return first
    return Value(first.level, bits, origin)


def _earlier(first: Origin | None, second: Origin | None) -> Origin | None:
    if first is None or second is None:
        return first or second
    return first if first.span.start <= second.span.start else second


def _at_least(value: Value, level: Level, origin: Origin | None) -> Value:
    """``value`` raised to ``level`` (the level of the control it was computed under)."""
    if value.level >= level:
        return value
    return Value(level, None, origin)


def _with_level(level: Level, origin: Origin | None) -> Value:
    return UNIFORM if level == Level.CTA else Value(level, None, origin)


# ----------------------------------------------------------------------------- divergence


@dataclass(frozen=True, slots=True)
class Divergence:
    """Why an instruction runs with part of the threads: a guard, an enclosing branch, or an
    exit that other threads took. ``span`` points at the guard or branch or exit, ``origin`` at
    the source of its condition."""

    # "guard", "branch", "exit" (an exit instruction some threads executed before), or
    # "exit-branch" (a branch that sent some threads to an exit: the others never passed one)
    kind: str
    level: Level
    index: int  # the instruction: the guarded one, the branch, or the exit (or its branch)
    span: Span
    subject: str  # the condition (`%p1`) or the exit instruction text
    origin: Origin | None
    # At warp level: the condition provably differs between warps of one warpgroup (an exact
    # `%tid.x` set such as `warp & 3 == 0`), not merely "warp-uniform, not proven
    # warpgroup-uniform" (a join, a load, a warp reduction). Warpgroup-aligned instructions are
    # only reported under proven splits (see PTX101's Exceptions).
    proven: bool = False

    @property
    def rank(self) -> tuple[int, bool]:
        """How bad it is: the level, then a proven split before an unproven one."""
        return (self.level, self.proven)


@dataclass(frozen=True, slots=True)
class State:
    """``values``: registers written more than once, by key (never mutated once in a state).
    ``control``: (branch block, divergence) for every divergent branch whose influence region
    we are in. ``exits``: exits some threads may have taken before. ``epoch``: see module doc.
    ``threads``: which threads reach this point (``ptxlint/analyses/reaching_threads.py``), None
    when unknown."""

    values: dict
    control: tuple[tuple[int, Divergence], ...] = ()
    exits: tuple[Divergence, ...] = ()
    epoch: int = 0
    threads: Threads | None = None


_EMPTY_STATE = State({})


# Enclosing divergent branches a state tracks one by one (see UniformityAnalysis._bounded).
_MAX_CONTROL = 64
# Control entries are keyed by their branch block; the summary of many (see _bounded) by:
_SUMMARY = -1


def _join_values(first: dict, second: dict) -> dict:
    """The join of two register maps; ``first`` itself when that is the join (most registers of
    two states are the same objects: only what differs is joined, and copied only then). A
    register absent on one side holds an unknown but uniform-looking value there."""
    joined = None
    shared = 0  # keys of ``second`` that ``first`` has
    for key, value in second.items():
        current = first.get(key)
        if current is not None:
            shared += 1
            if current is value:
                continue
        merged = join(current if current is not None else UNIFORM, value)
        if merged is not current and merged != current:
            if joined is None:
                joined = dict(first)
            joined[key] = merged
    if shared < len(first):
        for key in first.keys() - second.keys():
            current = first[key]
            merged = join(current, UNIFORM)
            if merged is not current and merged != current:
                if joined is None:
                    joined = dict(first)
                joined[key] = merged
    return first if joined is None else joined


def _ranks_above(first: Divergence, second: Divergence) -> bool:
    """``first`` stands for both: worse, or as bad and from an earlier branch (so that a later
    equal branch changes nothing)."""
    return _worse(first, second) or (not _worse(second, first) and first.index < second.index)


def _join_control(first: tuple, second: tuple) -> tuple:
    """The join of two control sets, (branch block, divergence) sorted by block: per block the
    worse divergence. One linear merge; returns ``first`` or ``second`` itself when it already is
    the join, so that states keep comparing by identity."""
    if first is second or not second:
        return first
    if not first:
        return second
    merged = []
    append = merged.append
    keeps_first = keeps_second = True
    i = j = 0
    n, m = len(first), len(second)
    while i < n and j < m:
        a, b = first[i], second[j]
        ka, kb = a[0], b[0]
        if ka == kb:
            if a is b or a[1] is b[1]:
                append(a)
            elif _worse(b[1], a[1]):
                append(b)
                keeps_first = False
            else:  # on a tie, the first side's entry (as before the merge was linear)
                append(a)
                keeps_second = False
            i += 1
            j += 1
        elif ka < kb:
            append(a)
            keeps_second = False
            i += 1
        else:
            append(b)
            keeps_first = False
            j += 1
    if i < n:
        merged.extend(first[i:])
        keeps_second = False
    if j < m:
        merged.extend(second[j:])
        keeps_first = False
    if keeps_first:
        return first
    if keeps_second:
        return second
    return tuple(merged)


def _join_exits(first: tuple, second: tuple) -> tuple:
    """The join of two sets of exit marks sorted by instruction index (see :func:`_join_control`)."""
    if first is second or not second:
        return first
    if not first:
        return second
    merged: dict = {}
    for entry in first + second:
        current = merged.get(entry.index)
        if current is None or _worse(entry, current):
            merged[entry.index] = entry
    result = tuple(sorted(merged.values(), key=lambda entry: entry.index))
    return first if result == first else result


def _worse(first: Divergence, second: Divergence) -> bool:
    """``first`` ranks above ``second``: a larger level, or a proven warpgroup split at the same
    level."""
    return first.level > second.level or (first.level == second.level and first.proven and not second.proven)


# ----------------------------------------------------------------------------- per-function facts


@dataclass(frozen=True, slots=True)
class InstructionFacts:
    """What the analysis knows at one instruction."""

    execution: Divergence | None  # the worst guard or enclosing branch, None when CTA-uniform
    exits: tuple[Divergence, ...]  # exits other threads may have taken before it
    # The join of what it writes: None when it writes no register, or when nothing the rules
    # read depends on it (the analysis then skips computing it; see _relevant_instructions).
    defined: Value | None
    operands: dict[int, Value]  # operands that must be uniform (by position), before it runs

    @property
    def execution_level(self) -> Level:
        return Level.CTA if self.execution is None else self.execution.level


@dataclass(frozen=True, slots=True)
class CalledCollective:
    """A collective a function reaches, directly or through calls, with no divergence of its own
    on the way: what a call site must provide."""

    function: str
    index: int
    instruction: ir.Instruction
    requirement: Collective


@dataclass
class FunctionUniformity:
    function: ir.Function
    cfg: cfg_module.ControlFlowGraph
    facts: dict[int, InstructionFacts]
    collectives: dict[int, Collective]
    called: dict[int, tuple[CalledCollective, ...]]  # call sites reaching collectives
    converged: bool


@dataclass
class ModuleUniformity:
    functions: dict[str, FunctionUniformity] = field(default_factory=dict)


def module_uniformity(context: ModuleContext) -> ModuleUniformity:
    """The analysis of every function that needs it, computed once per module."""
    return context.cached(
        "uniformity",
        lambda: analyze_module(
            context.module,
            context.options,
            graph_of=context.control_flow_graph,
            registers_of=lambda function: register_index(context, function),
        ),
    )


# ----------------------------------------------------------------------------- registers


def _register_of_key(key: str) -> str:
    """The register name of a key of :meth:`_RegisterNames.key` (names never hold an `@`)."""
    return key.split("@", 1)[0]


class _RegisterNames:
    """Resolves a register name at an instruction to its declaration (registers are scoped:
    nvcc declares `.reg .pred p;` inside every inline-asm block) and says which are written more
    than once."""

    def __init__(self, function: ir.Function, visited: Sequence[int]) -> None:
        self._exact: dict[int, set[str]] = {}
        self._ranges: dict[int, dict[str, int]] = {}
        for declaration in function.registers:
            if declaration.count:
                self._ranges.setdefault(declaration.scope, {})[declaration.name] = declaration.count
            else:
                self._exact.setdefault(declaration.scope, set()).add(declaration.name)
        self._scopes = function.scopes
        self._cache: dict[int, dict[str, str]] = {}  # scope → name → key
        self._declaring: dict[str, list[int]] = {}  # name → scopes declaring it, ascending
        self._exact_scopes: dict[str, list[int]] = {}
        self._range_scopes: dict[str, list[tuple[int, int]]] = {}
        for scope, names in self._exact.items():
            for declared_name in names:
                self._exact_scopes.setdefault(declared_name, []).append(scope)
        for scope, counts in self._ranges.items():
            for stem, count in counts.items():
                self._range_scopes.setdefault(stem, []).append((scope, count))
        self.register_parameters = {
            parameter.name: position
            for position, parameter in enumerate(function.parameters)
            if parameter.space == "reg"
        }
        # Every writer of a register a visited instruction reads is visited too, so counting
        # the visited writers is exact for every register the analysis looks at.
        counts: dict[str, int] = {}
        instructions = function.instructions
        for index in visited:
            instruction = instructions[index]
            for operand in instruction.destinations:
                for register in ir.registers_in(operand):
                    key = self.key(register.name, instruction.scope)
                    counts[key] = counts.get(key, 0) + 1
        self.written_more_than_once = frozenset(key for key, count in counts.items() if count > 1)

    def key(self, name: str, scope: int) -> str:
        """The register ``name`` as declared around ``scope``: the name itself when the function
        scope declares it, else `name@N` for the innermost scope N declaring it (see
        :func:`_register_of_key`)."""
        names = self._cache.get(scope)
        if names is None:
            names = self._cache[scope] = {}
        else:
            cached = names.get(name)
            if cached is not None:
                return cached
        declared = self._declaring_scope(name, scope)
        key = name if not declared else f"{name}@{declared}"
        names[name] = key
        return key

    def _declaring_scope(self, name: str, scope: int) -> int:
        """The innermost scope around ``scope`` declaring ``name``: among the (few) scopes that
        declare it, the largest number that encloses ``scope`` (scopes are numbered in pre-order,
        so that is the innermost), without walking the scope chain."""
        candidates = self._declaring.get(name)
        if candidates is None:
            stem = name.rstrip("0123456789")
            number = int(name[len(stem) :]) if stem != name else None
            found = list(self._exact_scopes.get(name, ()))
            if number is not None:
                found.extend(declared for declared, count in self._range_scopes.get(stem, ()) if number < count)
            candidates = self._declaring[name] = sorted(set(found))
        scopes = self._scopes
        # The nearest declaring scope at or before ``scope`` usually encloses it (the block
        # itself, or the function scope); otherwise look further back.
        position = bisect_right(candidates, scope)
        while position:
            position -= 1
            declared = candidates[position]
            if declared == scope or (declared < len(scopes) and scope <= scopes[declared].last_descendant):
                return declared
        return 0


# ----------------------------------------------------------------------------- the analysis

# Results that differ per lane whatever the inputs: per-lane fragments of matrix instructions,
# atomics, and waits that may succeed in some lanes first.
_PER_LANE_BASES = frozenset(
    {"atom", "wmma", "mma", "ldmatrix", "movmatrix", "wgmma", "tex", "tld4", "suld", "txq", "suq", "activemask"}
)
_WARP_RESULT_BASES = frozenset({"vote", "redux"})
_INTEGER_TYPE_PREFIXES = ("u", "s", "b")
_COMPARISONS = {"lt": "lt", "lo": "lt", "le": "le", "ls": "le", "gt": "gt", "hi": "gt", "ge": "ge", "hs": "ge"}
_EQUALITIES = {"eq": "eq", "ne": "ne", **_COMPARISONS}
_PREDICATE_LOGIC = frozenset({"mov", "not", "and", "or", "xor"})
_LANE_ARITHMETIC = frozenset({"mov", "cvt", "shr", "shl", "and", "div", "rem", "mul", "mad", "bfe", "add", "sub", "or", "xor"})
_ZERO = Value(Level.CTA, Constant(0))
_MIRRORED = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le"}


@dataclass(frozen=True)
class _Summaries:
    """What callers and callees tell each other: parameter values per function (None: nothing
    known, thread-varying), return values, and which functions reach collectives."""

    parameters: dict[str, tuple[Value, ...] | None]
    returns: dict[str, Value]
    called: dict[str, tuple[CalledCollective, ...]]
    exiting: frozenset[str] = frozenset()  # functions that may end the calling thread (`exit`)


class _BranchInfo:
    __slots__ = ("block", "index", "instruction", "post_dominator", "live", "exits_elsewhere", "taken", "traps")

    def __init__(self, block, index, instruction, post_dominator, live, exits_elsewhere, taken, traps) -> None:
        self.block = block
        self.index = index
        self.instruction = instruction
        self.post_dominator = post_dominator
        self.live = live  # successors that do not lead straight to an exit or trap
        self.exits_elsewhere = exits_elsewhere  # some successor leads straight to an exit
        self.taken = taken  # the block a `bra` jumps to (the other successor is the fall-through)
        self.traps = traps  # some successor leads straight to a trap


class _Static:
    """What the analysis of one function needs that does not change between the rounds of the
    interprocedural iteration: registers, branches and their post-dominators."""

    __slots__ = (
        "names", "branches", "ending_at", "plans", "private_local", "correlated", "visited_by_block", "invariant",
        "liveness", "key_bits",
    )

    def __init__(
        self,
        function: ir.Function,
        graph: cfg_module.ControlFlowGraph,
        collectives: dict[int, Collective],
        dense: bool,
        registers: RegisterIndex,
    ) -> None:
        instructions = function.instructions
        kinds = [_kind(instruction.opcode) for instruction in instructions]
        self.branches = _find_branches(function, graph, collectives)
        # `.local` memory is per thread; when no generic pointer to it is ever made, only this
        # function's `st.local` write it, so a `ld.local` reads one of the values stored there.
        self.private_local = not any(
            instruction.opcode.base == "cvta" and instruction.opcode.has("local") for instruction in instructions
        )
        if dense:
            visited: Sequence[int] = range(len(instructions))
            valued: Collection[int] = visited
        else:
            relevant, valued = _relevant_instructions(function, kinds, collectives, self.private_local, registers)
            visited = sorted(relevant)
        self.visited_by_block = indices_by_block(graph, visited)
        self.names = names = _RegisterNames(function, visited)
        # Per visited instruction: how its result is computed and the keys of the registers it
        # writes (with whether each is flow-sensitive), so the transfer does no name lookups.
        # An instruction whose result nobody reads writes nothing (``defined`` stays None).
        plans: list = [None] * len(instructions)
        for index in visited:
            plans[index] = _plan(instructions[index], kinds[index], names) if index in valued else (kinds[index], None)
        self.plans = plans
        self.ending_at: dict[int, set[int]] = {}
        for info in self.branches.values():
            if info.post_dominator is not None:
                self.ending_at.setdefault(info.post_dominator, set()).add(info.block)
        self.correlated = _correlated_branches(function, graph, names, self.branches, visited)
        self.invariant = _InvariantRegisters(function, visited, names)
        # Which of the registers the state holds (those written more than once) each block may
        # still read, by name (a superset across scopes), and each such key's bit.
        register_of = {key: _register_of_key(key) for key in names.written_more_than_once}
        self.liveness = live_in(graph, registers, sorted(set(register_of.values())))
        self.key_bits = {key: self.liveness.bits[register] for key, register in register_of.items()}


def _relevant_instructions(
    function: ir.Function, kinds: list[int], collectives: dict[int, Collective], private_local: bool,
    registers: RegisterIndex,
) -> tuple[set[int], set[int]]:
    """The instructions whose transfer can change a fact the rules read, as LLVM's analysis
    follows def-use chains instead of visiting everything, and among them those whose result is
    read (``valued``). Collectives are relevant for their guard and the operands that must be
    uniform; branches, exits, calls and `.param` stores always; every instruction writing a
    register a relevant instruction reads is valued, transitively. Most of a kernel (the math of
    its tiles, the accumulators of its matrix instructions) feeds none of them. Registers are
    related by name across scopes: a superset, never less."""
    instructions = function.instructions
    writers = registers.writers
    local_writers: list[int] = []  # what `ld.local` reads (_LOCAL_KEY): every `st.local`
    relevant: set[int] = set()
    valued: set[int] = set()
    work: list[int] = []
    for index, instruction in enumerate(instructions):
        kind = kinds[index]
        if kind == _STORE_LOCAL:
            local_writers.append(index)
        if kind in _ALWAYS_RELEVANT or instruction.opcode.base in _BRANCHES:
            valued.add(index)
        elif index in collectives:
            relevant.add(index)
        else:
            continue
        work.append(index)
    relevant |= valued
    followed: set[str] = set()
    while work:
        index = work.pop()
        instruction = instructions[index]
        if index in valued:
            read = instruction.sources
        else:
            operands = instruction.operands
            read = tuple(operands[position] for position in collectives[index].uniform_operands if position < len(operands))
        names = [register.name for operand in read for register in ir.registers_in(operand)]
        if instruction.guard is not None:
            names.extend(register.name for register in ir.registers_in(instruction.guard.predicate))
        if private_local and index in valued and instruction.opcode.base in ("ld", "ldu") and instruction.opcode.has("local"):
            names.append(_LOCAL_KEY)
        for name in names:
            if name in followed:
                continue
            followed.add(name)
            for writer in local_writers if name == _LOCAL_KEY else writers.get(name, ()):
                if writer not in valued:
                    valued.add(writer)
                    relevant.add(writer)
                    work.append(writer)
    return relevant, valued


# The widest register: shifting a value this far or further leaves nothing.
_REGISTER_BITS = 64
# Integer operations whose result bits depend on known bits of their operands.
_DEPENDENCE_OPERATIONS = frozenset({"and", "or", "xor", "shl", "shr", "add", "sub", "mul", "mad"})
# Operations whose result is a function of their operands alone (no memory, no lane exchange).
_PURE_OPERATIONS = frozenset(
    {"mov", "add", "sub", "mul", "mad", "shl", "shr", "and", "or", "xor", "not", "neg", "abs", "min", "max",
     "div", "rem", "cvt", "cvta", "selp", "setp", "bfe", "bfi", "prmt"}
)
# Special registers that hold one value for a thread's whole life, the same across its CTA.
_STEADY_SPECIAL_LEVELS = frozenset({"cta", "cluster", "grid"})


class _InvariantRegisters:
    """Registers every write of which computes one CTA-invariant expression: from immediates,
    symbols, kernel parameters and `.const` memory (read-only), the special registers fixed for
    a CTA's life, and registers with the same property (value numbering). Compilers rematerialise
    such values (nvcc reloads kernel parameters inside loops); a thread that skipped a rewrite
    under divergent control still holds the same value, so the rewrite does not make threads
    differ. Asked only about registers written under divergent control, so computed on demand."""

    _MAX_DEPTH = 64  # registers followed through one expression before giving up (not invariant)

    def __init__(self, function: ir.Function, visited: Sequence[int], names: _RegisterNames) -> None:
        self._function = function
        self._visited = visited
        self._names = names
        self._kernel_parameters = (
            frozenset(parameter.name for parameter in function.parameters) if function.is_kernel else frozenset()
        )
        self._writes: dict[str, list[tuple[int, int]]] | None = None
        self._numbers: dict[str, tuple | None] = {}

    def __contains__(self, key: str) -> bool:
        return self.number(key, 0) is not None

    def number(self, key: str, depth: int) -> tuple | None:
        """The value number of ``key``, or None when it is not invariant (or is being computed:
        a register defined through itself is not known to be invariant)."""
        if key in self._numbers:
            return self._numbers[key]
        if depth > self._MAX_DEPTH:
            return None
        self._numbers[key] = None
        writes = self._all_writes().get(key, ())
        number = None
        for index, position in writes:
            this = _value_number(self._function.instructions[index], position, self, depth + 1)
            if this is None or (number is not None and this != number):
                number = None
                break
            number = this
        self._numbers[key] = number
        return number

    def key(self, register: ir.Register, instruction: ir.Instruction) -> str:
        return self._names.key(register.name, instruction.scope)

    @property
    def kernel_parameters(self) -> frozenset[str]:
        return self._kernel_parameters

    def _all_writes(self) -> dict[str, list[tuple[int, int]]]:
        """Register → (instruction, position among its results), over the visited instructions
        (every writer of a register a visited instruction reads is visited)."""
        if self._writes is None:
            writes: dict[str, list[tuple[int, int]]] = {}
            instructions = self._function.instructions
            key = self._names.key
            for index in self._visited:
                instruction = instructions[index]
                position = 0
                for operand in instruction.destinations:
                    for register in ir.registers_in(operand):
                        writes.setdefault(key(register.name, instruction.scope), []).append((index, position))
                        position += 1
            self._writes = writes
        return self._writes


def _value_number(instruction: ir.Instruction, position: int, registers: _InvariantRegisters, depth: int) -> tuple | None:
    """A structural name for the value ``instruction`` writes to its result ``position`` when
    that value is CTA-invariant (equal names, equal values), else None."""
    opcode = instruction.opcode
    sources = instruction.sources
    if opcode.base == "ld" and len(sources) == 1 and type(sources[0]) is ir.Address:
        address = _operand_number(sources[0], instruction, registers, depth)
        if address is None:
            return None
        if opcode.has("const") or (opcode.has("param") and _root_symbol(address) in registers.kernel_parameters):
            return ("ld", opcode.text, address, position)
        return None
    if opcode.base not in _PURE_OPERATIONS:
        return None
    operands = tuple(_operand_number(operand, instruction, registers, depth) for operand in sources)
    if None in operands:
        return None
    if opcode.base == "mov" and len(operands) == 1:
        return operands[0]  # a copy is the value copied
    return (opcode.text, operands, position)


def _operand_number(operand: ir.Operand, instruction: ir.Instruction, registers: _InvariantRegisters, depth: int) -> tuple | None:
    kind = type(operand)
    if kind is ir.Register:
        return registers.number(registers.key(operand, instruction), depth)  # type: ignore[arg-type]
    if kind is ir.Immediate:
        return ("immediate", operand.value)  # type: ignore[union-attr]
    if kind is ir.Symbol:
        return ("symbol", operand.name)  # type: ignore[union-attr]
    if kind is ir.SpecialRegister:
        base = special_register_base(operand.name)  # type: ignore[union-attr]
        return ("special", operand.name) if base is not None and UNIFORMITY[base] in _STEADY_SPECIAL_LEVELS else None  # type: ignore[union-attr]
    if kind is ir.Address and not operand.extra:  # type: ignore[union-attr]
        base = ("none",) if operand.base is None else _operand_number(operand.base, instruction, registers, depth)  # type: ignore[union-attr]
        return None if base is None else ("address", base, operand.offset)  # type: ignore[union-attr]
    return None


def _root_symbol(address: tuple) -> str | None:
    """The symbol an address number is an offset from, if any."""
    base = address[1] if address[0] == "address" else address
    return base[1] if base[0] == "symbol" else None


# How an instruction's result is computed (see UniformityAnalysis._value).
_VARYING, _WARP_RESULT, _LOAD, _BARRIER, _SETP, _PREDICATE, _ARITHMETIC, _SOURCES = range(8)
_ELECT, _SHUFFLE, _CALL, _EXIT, _STORE_PARAMETER, _NOTHING_WRITTEN, _STORE_LOCAL = range(8, 15)
_LOCAL_KEY = "local:"  # the side-table entry for what a function stores to its `.local` memory
_KINDS: dict[str, int] = {}
# Instructions that change the state whatever registers they write (see _relevant_instructions).
_ALWAYS_RELEVANT = frozenset({_EXIT, _CALL, _STORE_PARAMETER})
_BRANCHES = frozenset({"bra", "brx"})


def _kind(opcode: ir.Opcode) -> int:
    known = _KINDS.get(opcode.text)
    if known is not None:
        return known
    base = opcode.base
    if base in ("exit", "ret"):
        kind = _EXIT
    elif base == "st" and opcode.has("param"):
        kind = _STORE_PARAMETER
    elif base == "st" and opcode.has("local"):
        kind = _STORE_LOCAL
    elif base == "elect":
        kind = _ELECT
    elif base == "shfl":
        kind = _SHUFFLE
    elif base == "call":
        kind = _CALL
    elif base in _PER_LANE_BASES or base == "tcgen05" or base == "mbarrier" or (base == "match" and opcode.has("any")):
        kind = _VARYING
    elif base in _WARP_RESULT_BASES or base == "match":
        kind = _WARP_RESULT
    elif base in ("ld", "ldu"):
        kind = _LOAD
    elif base == "bar" or base == "barrier":
        kind = _BARRIER
    elif base == "setp":
        kind = _SETP
    elif base in _PREDICATE_LOGIC and opcode.has("pred"):
        kind = _PREDICATE
    elif base in _LANE_ARITHMETIC:
        kind = _ARITHMETIC
    else:
        kind = _SOURCES
    _KINDS[opcode.text] = kind
    return kind


def _plan(instruction: ir.Instruction, kind: int, names: _RegisterNames) -> tuple[int, tuple[tuple[str, bool], ...]]:
    if not instruction.destination_count or kind in (_ELECT, _SHUFFLE, _CALL, _EXIT):
        return kind, ()
    sensitive = names.written_more_than_once
    keys = []
    for operand in instruction.destinations:
        for register in ir.registers_in(operand):
            key = names.key(register.name, instruction.scope)
            keys.append((key, key in sensitive or key.startswith("param:")))
    return kind, tuple(keys)


def _find_branches(function: ir.Function, graph: cfg_module.ControlFlowGraph, collectives: dict[int, Collective]) -> dict[int, _BranchInfo]:
    """Blocks ending in a branch with more than one way out, with their post-dominator and which
    successors lead straight to an exit (`@p bra EXIT; … EXIT: ret;`) or a trap."""
    dead_ends = _dead_ends(graph, function, collectives)
    post_dominators = graph.immediate_post_dominators
    branches = {}
    for block in graph.blocks:
        if block.end == block.start:
            continue
        last = function.instructions[block.end - 1]
        if last.opcode.base not in ("bra", "brx"):
            continue
        successors = [successor for successor in block.successors if successor != graph.exit]
        if len(successors) < 2:
            continue
        live = frozenset(successor for successor in successors if successor not in dead_ends)
        exits_elsewhere = any(dead_ends.get(successor) == "exit" for successor in successors)
        traps = any(dead_ends.get(successor) == "trap" for successor in successors)
        post_dominator = post_dominators.get(block.index)
        branches[block.index] = _BranchInfo(
            block.index,
            block.end - 1,
            last,
            None if post_dominator == block.index else post_dominator,
            live,
            exits_elsewhere,
            block.successors[0],
            traps,
        )
    return branches


class UniformityAnalysis:
    """The lattice and transfer function for one function (see the module docstring)."""

    def __init__(
        self,
        function: ir.Function,
        graph: cfg_module.ControlFlowGraph,
        lanes: LaneModel,
        summaries: _Summaries,
        collectives: dict[int, Collective],
        static: _Static | None = None,
        thread_spaces: dict[int, ThreadSpace] | None = None,
        keep_dead_registers: bool = False,
    ) -> None:
        """``keep_dead_registers``: never drop a register no later instruction reads from the
        state (slower, and the same facts: what tests compare against)."""
        self.function = function
        self.cfg = graph
        self.lanes = lanes
        self.summaries = summaries
        self.collectives = collectives
        if static is None:
            static = _Static(function, graph, collectives, dense=True, registers=_fresh_register_index(function))
        self.names = static.names
        self._plans = static.plans
        self._liveness = None if keep_dead_registers else static.liveness
        self._key_bits = static.key_bits
        self._visited_by_block = static.visited_by_block
        self._last_control: tuple = ()
        self._last_threads: Threads | None = None
        self._last_worst: Divergence | None = None
        self._divergences: dict[tuple, tuple] = {}
        self._worst: dict[int, tuple] = {}  # id(control) → (control, its worst divergence)
        self._specials: dict[int, tuple[ir.SpecialRegister, Value]] = {}
        self.parameters = summaries.parameters.get(function.name)
        self.parameter_positions = {parameter.name: position for position, parameter in enumerate(function.parameters)}
        self.single: dict[str, Value] = {}
        # The same, before raising to the level of the control they were written under: what a
        # callee sees (it is analysed relative to the threads that entered it).
        self.single_data: dict[str, Value] = {}
        self.read: set[str] = set()
        self.epoch = 0
        self.recording: dict[int, InstructionFacts] | None = None
        self.record_everything = False
        self.arguments: dict[str, list[Value]] = {}
        self.argument_data: dict[str, Value] = {}  # `.param` name → the data value last stored
        self.returned = UNIFORM
        self._origins: dict[tuple[int, str], Origin] = {}
        self._branches = static.branches
        self._private_local = static.private_local
        self._invariant = static.invariant
        self._ending_at = static.ending_at
        # Path facts: which threads reach each block (only when `%tid.x / 32` is the warp rank).
        bound = lanes.x_bound
        self.space = None
        if lanes.warp_bits_ok and bound is not None and bound <= 1024:
            # One per block size and module: its tables depend on nothing else.
            spaces = thread_spaces if thread_spaces is not None else {}
            self.space = spaces.get(bound) or spaces.setdefault(bound, ThreadSpace(bound))
        self._entry = State({}, threads=self.space.everyone) if self.space is not None else _EMPTY_STATE
        # Per block: registers written more than once whose last write in the block was raised to
        # the level of the control it ran under, with the value before the raise (see refine).
        self._raised: dict[int, dict[str, Value]] = {}
        # Loops left by one edge: the threads that entered each (by header), for that edge.
        self._sole_exit_loops = self.cfg.sole_exit_loops if self.space is not None else {}
        self._loop_headers = frozenset(self._sole_exit_loops.values())
        self._loop_entry_threads: dict[int, Threads | None] = {}
        # Where the paths from each branch meet again (its immediate post-dominator), every thread
        # that took the branch has arrived: {meeting block: branch blocks}, and the threads that
        # left each branch block.
        self._meeting_of: dict[int, list[int]] = {}
        if self.space is not None:
            for block, info in self._branches.items():
                if info.post_dominator is not None and info.post_dominator != self.cfg.exit:
                    self._meeting_of.setdefault(info.post_dominator, []).append(block)
        self._threads_leaving: dict[int, Threads | None] = {}
        self._paths: dict[tuple, Divergence] = {}
        self._correlated = static.correlated
        self._correlated_endings: dict[tuple, tuple[frozenset, int | None]] = {}

    # --- lattice

    def instructions_of(self, block: int) -> Sequence[int]:
        """The instructions of ``block`` whose transfer can change a fact anyone reads."""
        return self._visited_by_block[block]

    def bottom(self) -> State:
        return _EMPTY_STATE

    def entry(self) -> State:
        return self._entry

    def join(self, first: State, second: State) -> State:
        if first is second:
            return first
        values = first.values
        if second.values is not values:
            values = _join_values(values, second.values)
        control = self._bounded(_join_control(first.control, second.control))
        exits = _join_exits(first.exits, second.exits)
        threads = first.threads
        if threads is not second.threads and self.space is not None:
            threads = self.space.join(threads, second.threads)
        return State(values, control, exits, max(first.epoch, second.epoch), threads)

    def refine(self, source: int, target: int, state: State) -> State:
        if self.space is not None and source in self._branches:
            self._threads_leaving[source] = state.threads  # for ``entering`` where its paths meet
        control = state.control
        ending = self._ending_at.get(target)
        if ending and control and any(entry[0] in ending for entry in control):
            control = tuple(entry for entry in control if entry[0] not in ending)
        if control and control[0][0] == _SUMMARY and target == self._summary_ending:
            control = control[1:]
        if control and self._correlated and any(entry[0] in self._correlated for entry in control):
            control = tuple(entry for entry in control if not self._reconverged(entry[0], source, target))
        exits = state.exits
        info = self._branches.get(source)
        if info is not None and target != info.post_dominator and target in info.live:
            divergence = self._branch_divergence(info, state)
            if divergence is not None:
                if len(info.live) > 1 and not any(entry[1] is divergence for entry in control):
                    control = self._bounded(_join_control(control, ((source, divergence),)))
                if info.exits_elsewhere:
                    mark = self._exit_mark(divergence)
                    if not any(entry is mark for entry in exits):
                        exits = _join_exits(exits, (mark,))
        values = state.values
        threads = state.threads
        entered = self._sole_exit_loops.get((source, target)) if self.space is not None else None
        if entered is not None and entered in self._loop_entry_threads:
            # Every thread that entered a loop with one way out leaves it here (or never does),
            # however the threads split inside it: a spin on `mbarrier.try_wait` does.
            threads = self._loop_entry_threads[entered]
        elif threads is not None:
            threads = self._edge_threads(source, target, info, state)
        if target in self._loop_headers and (source, target) not in self.cfg.back_edges:
            known = self._loop_entry_threads
            known[target] = threads if target not in known else self.space.join(known[target], threads)  # type: ignore[union-attr]
        if threads is not None:
            raised = self._raised.get(source)
            if raised and threads is not None:
                values = self._lower_raised(raised, values, self.space.level(threads))  # type: ignore[union-attr]
        if values and self._liveness is not None:
            values = self._live_values(target, values)
        if control is state.control and exits is state.exits and values is state.values and threads is state.threads:
            return state
        return State(values, control, exits, state.epoch, threads)

    def entering(self, block: int, state: State) -> State:
        """The state ``block`` is entered with, knowing that every thread that took a branch whose
        paths meet again here has arrived: nested branches on thread-varying data (an elected
        lane, a bounds check) blur which lanes reach the blocks between, not this one."""
        branches = self._meeting_of.get(block)
        if not branches or state.threads is None:
            return state
        threads = state.threads
        leaving = self._threads_leaving
        for branch in branches:
            if branch in leaving:
                threads = self.space.at_least(threads, leaving[branch])  # type: ignore[union-attr]
        if threads is state.threads:
            return state
        return State(state.values, state.control, state.exits, state.epoch, threads)

    def _live_values(self, block: int, values: dict) -> dict:
        """``values`` without the registers that neither ``block`` nor anything after it reads
        before writing them again. nvcc's loop-carried and divergently written registers die a
        few blocks after their last write; kept, they made every join and copy of the state
        scale with the whole function instead of with what is live (a fourteenth of it in
        CUTLASS's FMHA)."""
        live = self._liveness.mask(block)  # type: ignore[union-attr]
        bits = self._key_bits
        if all(live & bits[key] for key in values if key in bits):
            return values
        return {key: value for key, value in values.items() if key not in bits or live & bits[key]}

    def _bounded(self, control: tuple) -> tuple:
        """At most :data:`_MAX_CONTROL` enclosing divergent branches, so that states stay small
        in generated code nesting thousands of them (joins and edges are linear in the set).
        Branches that reconverge at the same block end together: one entry, the worst, stands
        for them all. If that is not enough, the entries fold into a summary as bad as the worst
        of them, which from then on absorbs every entry it outranks, and which ends where every
        branch of the function has reconverged (:meth:`_summary_ending`). That only makes more
        code divergent, never less, and settles at once; real kernels nest a handful of
        divergent branches and never get a summary."""
        if len(control) <= _MAX_CONTROL and not (control and control[0][0] == _SUMMARY):
            return control
        correlated = self._correlated
        summary: Divergence | None = None
        by_ending: dict = {}
        kept = []
        for key, divergence in control:
            if key == _SUMMARY:
                summary = divergence
            elif key in correlated:
                kept.append((key, divergence))  # reconverges on its own edges: keep it apart
            else:
                ending = self._branches[key].post_dominator if key in self._branches else None
                current = by_ending.get(ending)
                # The worst; among equals the first branch, so that later ones change nothing.
                if current is None or _ranks_above(divergence, current[1]):
                    by_ending[ending] = (key, divergence)
        entries = [entry for entry in by_ending.values() if summary is None or _worse(entry[1], summary)]
        if len(kept) + len(entries) + (summary is not None) > _MAX_CONTROL:
            for _, divergence in entries:
                if summary is None or _ranks_above(divergence, summary):
                    summary = divergence
            entries = []
        kept.extend(entries)
        if summary is not None:
            kept.append((_SUMMARY, summary))
        return tuple(sorted(kept, key=lambda entry: entry[0]))

    @cached_property
    def _summary_ending(self) -> int | None:
        """The block where the branches of the function have all reconverged: the nearest
        common post-dominator of their reconvergence points (None if some never reconverge)."""
        endings = [info.post_dominator for info in self._branches.values()]
        if not endings or None in endings:
            return None
        post_dominators = self.cfg.immediate_post_dominators
        common = endings[0]
        for ending in endings[1:]:
            while not self.cfg.post_dominates(common, ending):
                parent = post_dominators.get(common)
                if parent is None or parent == common:
                    return None
                common = parent
        return common

    def _reconverged(self, branch: int, source: int, target: int) -> bool:
        """Whether the threads split by ``branch`` are all back together on the edge ``source →
        target``, given the edges that are infeasible while the branch splits them (see
        :func:`_correlated_branches`): the edge is one of those (the threads on it saw the
        branch go one way), or it enters the branch's post-dominator without those edges."""
        candidates = self._correlated.get(branch)
        if candidates is None:
            return False
        infeasible = []
        for leaf, edges in candidates:
            self.read.add(leaf)
            value = self.single.get(leaf)
            if value is not None and value.level == Level.CTA:
                infeasible.extend(edges)
        if not infeasible:
            return False
        key = (branch, tuple(infeasible))
        known = self._correlated_endings.get(key)
        if known is None:
            removed = frozenset(infeasible)
            known = self._correlated_endings[key] = (removed, _post_dominator_without(self.cfg, branch, removed))
        removed, post_dominator = known
        return (source, target) in removed or target == post_dominator

    def _edge_threads(self, source: int, target: int, info: _BranchInfo | None, state: State) -> Threads | None:
        """The threads that take the edge ``source → target``."""
        threads = state.threads
        space = self.space
        if info is not None and not (info.traps and target in info.live):
            instruction = info.instruction
            guard = instruction.guard
            if guard is not None and instruction.opcode.base == "bra":
                value = self._predicate_value(guard.predicate, instruction, state)
                if type(value.bits) is TidSet:
                    taken = target == info.taken
                    mask = value.bits.mask if taken != guard.negated else ~value.bits.mask
                    threads = space.restrict(threads, mask)  # type: ignore[union-attr]
                elif value.level <= Level.WARP:
                    threads = space.maybe_none(threads)  # type: ignore[union-attr]
                elif len(self.cfg.successors(info.block)) > 1:
                    threads = space.some_of(threads, info.index, target == info.taken)  # type: ignore[union-attr]
            elif instruction.opcode.base == "brx":
                index = instruction.operands[0] if instruction.operands else None
                if index is None or self._operand_value(index, instruction, state).level > Level.WARP:
                    return None
                threads = space.maybe_none(threads)  # type: ignore[union-attr]
        if (source, target) in self.cfg.back_edges and space.level(threads) is None:  # type: ignore[union-attr]
            # Threads that go round a loop in part of a warp meet the others in a later
            # iteration: the set of threads that ever reach the header says nothing then.
            return None
        return threads

    def _predicate_value(self, predicate: ir.Operand, instruction: ir.Instruction, state: State) -> Value:
        """A guard's value, with its exact `%tid.x` set when it has one: the set is a fact about
        each thread that computed it, whatever control it was computed under (a register written
        once is computed by every thread that reads it, in compiler output)."""
        data = self._data_value(predicate, instruction, state)
        if type(data.bits) is TidSet:
            return data
        return self._operand_value(predicate, instruction, state)

    def _lower_raised(self, raised: dict[str, Value], values: dict, level: Level | None) -> dict:
        """Along an edge taken by whole warps, a register the source block wrote under divergent
        control is as uniform as the value written, but for the warps: every thread of each warp
        on the edge wrote it (the raise at the write is for threads that skipped it and meet these
        later, and none of those is in the same warp)."""
        if level is None:
            return values
        lowered = values
        for key, data in raised.items():
            current = values.get(key)
            if current is None or current.level <= max(data.level, level):
                continue
            if lowered is values:
                lowered = dict(values)
            lowered[key] = _at_least(data, level, current.origin)
        return lowered

    # --- transfer

    def transfer(self, index: int, instruction: ir.Instruction, state: State) -> State:
        kind, keys = self._plans[index]
        execution = self._execution(index, instruction, state)
        if kind == _EXIT:
            return self._exit(index, instruction, state, execution)
        if keys:
            value = self._value(kind, index, instruction, state)
            if self.recording is not None:
                self._record(index, instruction, state, execution, (value,))
            return self._write(index, instruction, state, execution, keys, value)
        if kind == _ELECT or kind == _SHUFFLE or kind == _CALL:
            # ``keys`` None: a sparse analysis found nobody reads the results.
            results = self._results(kind, index, instruction, state) if instruction.destination_count and keys is not None else []
            if self.recording is not None:
                self._record(index, instruction, state, execution, [value for _, value in results])
            if kind == _CALL and state.threads is not None and (callee_name(instruction) or "") in self.summaries.exiting:
                state = State(state.values, state.control, state.exits, state.epoch, None)  # it may end some threads
            if not results:
                return state
            sensitive = self.names.written_more_than_once
            key_of = self.names.key
            scope = instruction.scope
            plan = []
            for register, _ in results:
                key = key_of(register.name, scope)
                plan.append((key, key in sensitive or key.startswith("param:")))
            return self._write(index, instruction, state, execution, plan, [value for _, value in results])
        if self.recording is not None:
            self._record(index, instruction, state, execution, ())
        if kind == _STORE_PARAMETER:
            return self._store_parameter(instruction, state, execution)
        if kind == _STORE_LOCAL and keys is not None and self._private_local and len(instruction.operands) >= 2:
            stored = _without_bits(self._operand_value(instruction.operands[1], instruction, state))
            return self._write(index, instruction, state, execution, ((_LOCAL_KEY, False),), stored)
        return state

    def _execution(self, index: int, instruction: ir.Instruction, state: State) -> Divergence | None:
        control = state.control
        if not control:
            worst = None
        elif control is self._last_control and state.threads is self._last_threads:
            worst = self._last_worst
        else:
            worst = None
            known = self._worst.get(id(control))
            if known is not None and known[0] is control:
                worst = known[1]
            else:
                for _, divergence in control:
                    if worst is None or _worse(divergence, worst) or (
                        divergence.level == worst.level and divergence.proven == worst.proven and divergence.index > worst.index
                    ):
                        worst = divergence
                if len(self._worst) > 4096:
                    self._worst.clear()
                self._worst[id(control)] = (control, worst)  # keeps ``control`` alive: the id is its own
            if worst is not None and worst.level > Level.WARP and state.threads is not None:
                worst = self._paths_divergence(worst, state.threads)
            self._last_control, self._last_threads, self._last_worst = control, state.threads, worst
        guard = instruction.guard
        if guard is None:
            return worst
        value = self._operand_value(guard.predicate, instruction, state)
        if value.level == Level.CTA or (worst is not None and worst.level > value.level):
            return worst
        proven = self._proven_split(value.level, guard.predicate, instruction, state)
        if worst is not None and worst.rank >= (value.level, proven):
            return worst
        return Divergence("guard", value.level, index, guard.span, _text(guard.predicate), value.origin, proven)

    def _proven_split(self, level: Level, predicate: ir.Operand, instruction: ir.Instruction, state: State) -> bool:
        """Whether a warp-level condition provably differs between the warps of one warpgroup:
        its exact `%tid.x` set takes some warps of a warpgroup and not the others."""
        if level != Level.WARP or self.space is None:
            return False
        data = self._predicate_value(predicate, instruction, state)
        return type(data.bits) is TidSet and self.space.splits_warpgroup(data.bits.mask)

    def _paths_divergence(self, worst: Divergence, threads: Threads) -> Divergence | None:
        """The enclosing branches split warps, but the paths through them bring whole warps
        here (or every thread): the control is only as divergent as that."""
        level = self.space.level(threads)  # type: ignore[union-attr]
        if level is None or level >= worst.level:
            return worst
        if level == Level.CTA:
            return None
        key = (worst, threads)
        known = self._paths.get(key)
        if known is None:
            reach = self.space.describe(threads)  # type: ignore[union-attr]
            origin = Origin(worst.span, f"threads with `%tid.x` in {reach} may reach it")
            proven = self.space.reach_splits_warpgroup(threads)  # type: ignore[union-attr]
            known = self._paths[key] = Divergence("paths", level, worst.index, worst.span, worst.subject, origin, proven)
        return known

    def _exit(self, index: int, instruction: ir.Instruction, state: State, execution: Divergence | None) -> State:
        if self.recording is not None:
            self._record(index, instruction, state, execution, ())
        guard = instruction.guard
        if guard is not None and state.threads is not None:
            # The threads that go on are those whose guard is false.
            value = self._predicate_value(guard.predicate, instruction, state)
            if type(value.bits) is TidSet:
                mask = ~value.bits.mask if not guard.negated else value.bits.mask
                threads = self.space.restrict(state.threads, mask)  # type: ignore[union-attr]
            elif value.level <= Level.WARP:
                threads = self.space.maybe_none(state.threads)  # type: ignore[union-attr]
            else:
                threads = None
            state = State(state.values, state.control, state.exits, state.epoch, threads)
        leaves_thread = instruction.opcode.base == "exit" or self.function.is_kernel
        if instruction.guard is None or not leaves_thread or execution is None:
            return state  # unguarded: nothing falls through; a `.func` ret returns to the caller
        text = _text(instruction.guard.predicate)
        mark = Divergence("exit", execution.level, index, instruction.span, text, execution.origin, execution.proven)
        exits = _join_exits(state.exits, (mark,))
        return State(state.values, state.control, exits, state.epoch, state.threads)

    def _write(self, index: int, instruction: ir.Instruction, state: State, execution: Divergence | None, keys, written) -> State:
        """Store what an instruction wrote: ``written`` is one value for every key of ``keys``,
        or a list of values aligned with them."""
        values = state.values
        epoch = state.epoch
        single, single_data = self.single, self.single_data
        if type(written) is Value and execution is None and len(keys) == 1 and not keys[0][1]:
            # The common case: one register written once, under uniform control.
            key = keys[0][0]
            previous_data = single_data.get(key)
            if previous_data is not written:
                single_data[key] = written if previous_data is None else join(previous_data, written)
            previous = single.get(key)
            if previous is written:
                return state
            merged = written if previous is None else join(previous, written)
            if merged != previous:
                single[key] = merged
                if key in self.read:
                    self.epoch += 1
                    return State(values, state.control, state.exits, self.epoch, state.threads)
            return state
        guarded = instruction.guard is not None
        invariant = self._invariant
        raised = self._raised.get(self.cfg.block_of(index)) if self.space is not None else None
        last_value = last_raised = None  # results usually share one value: raise it once
        shared = written if type(written) is Value else None
        for position, (key, sensitive) in enumerate(keys):
            value = shared if shared is not None else written[position]
            data_value = value
            # A constant in a register written once is the same in every thread that reads it
            # (each read follows the one write) and in every loop iteration: no raise. Nor for a
            # register every write of which computes one CTA-invariant expression.
            if (
                execution is not None
                and value.level < execution.level  # else the raise changes nothing
                and not (not sensitive and type(value.bits) is Constant)
                and key not in invariant
            ):
                if value is not last_value:
                    last_value, last_raised = value, _at_least(value, execution.level, _control_origin(execution))
                value = last_raised
            if sensitive:
                if self.space is not None:
                    if not guarded and value is not data_value and value.level > data_value.level:
                        if raised is None:
                            raised = self._raised[self.cfg.block_of(index)] = {}
                        raised[key] = data_value
                    elif raised is not None:
                        raised.pop(key, None)
                if guarded:  # threads whose guard is false keep the old value
                    value = join(values.get(key, UNIFORM), value)
                if values.get(key) != value:
                    if values is state.values:
                        values = dict(values)
                    values[key] = value
                continue
            previous_data = single_data.get(key)
            if previous_data is not data_value:
                single_data[key] = data_value if previous_data is None else join(previous_data, data_value)
            previous = single.get(key)
            if previous is value:
                continue
            merged = value if previous is None else join(previous, value)
            if merged != previous:
                single[key] = merged
                if key in self.read:  # someone used the smaller value: make the solver look again
                    self.epoch += 1
                    epoch = self.epoch
        if values is state.values and epoch == state.epoch:
            return state
        return State(values, state.control, state.exits, epoch, state.threads)

    def _store_parameter(self, instruction: ir.Instruction, state: State, execution: Divergence | None) -> State:
        """`st.param [name+offset], value`: call arguments and the return value travel through
        `.param` variables; track them like registers written more than once."""
        target = instruction.operands[0] if instruction.operands else None
        if type(target) is not ir.Address or type(target.base) is not ir.Symbol or len(instruction.operands) < 2:
            return state
        data_value = self._data_value(instruction.operands[1], instruction, state)
        value = self._operand_value(instruction.operands[1], instruction, state)
        if execution is not None:
            value = _at_least(value, execution.level, _control_origin(execution))
        name = target.base.name
        if self.recording is not None:
            self.argument_data[name] = data_value
        if self.recording is not None and not self.function.is_kernel and self._is_return_parameter(name):
            self.returned = join(self.returned, value)
        key = "param:" + name
        if target.offset:  # a later field of an aggregate: a weak update
            value = join(state.values.get(key, UNIFORM), value)
        if state.values.get(key) == value:
            return state
        values = dict(state.values)
        values[key] = value
        return State(values, state.control, state.exits, state.epoch, state.threads)

    def _is_return_parameter(self, name: str) -> bool:
        return any(parameter.name == name for parameter in self.function.return_parameters)

    # --- values of operands

    def _register_value(self, register: ir.Register, instruction: ir.Instruction, state: State) -> Value:
        key = self.names.key(register.name, instruction.scope)
        if key in self.names.written_more_than_once:
            return state.values.get(key, UNIFORM)
        self.read.add(key)
        value = self.single.get(key)
        if value is not None:
            return value
        position = self.names.register_parameters.get(register.name)
        return UNIFORM if position is None else self._parameter_value(position, register.span, register.name)

    def _constant_operand(self, operand: ir.Operand, instruction: ir.Instruction, state: State) -> int | None:
        """The value of an immediate, or of a register known to hold a constant."""
        if type(operand) is ir.Immediate:
            return operand.value if isinstance(operand.value, int) else None
        return _constant(self._operand_value(operand, instruction, state))

    def _data_value(self, operand: ir.Operand, instruction: ir.Instruction, state: State) -> Value:
        """An operand's value without the raise to the control it was written under (registers
        written once; others as they are)."""
        if type(operand) is ir.Register:
            key = self.names.key(operand.name, instruction.scope)
            data_value = self.single_data.get(key)
            if data_value is not None:
                return data_value
        return self._operand_value(operand, instruction, state)

    def _parameter_value(self, position: int, span: Span, name: str) -> Value:
        known = self.parameters
        if known is not None and position < len(known):
            return known[position]
        return Value(Level.THREAD, None, Origin(span, f"parameter `{name}` may differ between threads (not all callers are known)"))

    def _operand_value(self, operand: ir.Operand, instruction: ir.Instruction, state: State) -> Value:
        kind = type(operand)
        if kind is ir.Register:
            return self._register_value(operand, instruction, state)  # type: ignore[arg-type]
        if kind is ir.Immediate:
            value = operand.value  # type: ignore[union-attr]
            return Value(Level.CTA, Constant(value)) if isinstance(value, int) else UNIFORM
        if kind is ir.Symbol or kind is ir.Sink:
            return UNIFORM
        if kind is ir.SpecialRegister:
            known = self._specials.get(id(operand))
            if known is None or known[0] is not operand:
                known = self._specials[id(operand)] = (operand, self._special_value(operand))  # type: ignore[assignment]
            return known[1]
        if kind is ir.Negated:
            return self._operand_value(operand.operand, instruction, state)  # type: ignore[union-attr]
        if kind is ir.Address:
            value = UNIFORM if operand.base is None else self._operand_value(operand.base, instruction, state)  # type: ignore[union-attr]
            for element in operand.extra:  # type: ignore[union-attr]
                value = join(value, self._operand_value(element, instruction, state))
            return _without_bits(value)
        if kind is ir.Pair:
            return _without_bits(
                join(
                    self._operand_value(operand.first, instruction, state),  # type: ignore[union-attr]
                    self._operand_value(operand.second, instruction, state),  # type: ignore[union-attr]
                )
            )
        elements = operand.names if kind is ir.Expression else operand.elements  # type: ignore[union-attr]
        value = UNIFORM
        for element in elements:
            value = join(value, self._operand_value(element, instruction, state))
        return _without_bits(value) if len(elements) != 1 else value

    def _special_value(self, operand: ir.SpecialRegister) -> Value:
        name = operand.name
        base = special_register_base(name)
        level_name = UNIFORMITY.get(base, "thread") if base is not None else "thread"
        if base == "%tid":
            return self._thread_index_value(operand)
        if level_name == "thread":
            return Value(Level.THREAD, None, Origin(operand.span, f"`{name}` varies per thread"))
        if level_name == "volatile":
            message = f"`{name}` may change at any time (it is not a stable index)"
            return Value(Level.THREAD, None, Origin(operand.span, message))
        if name == "%ntid.x" and self.lanes.warp_bits_ok:
            # Blocks are made of whole warps (a partial last warp would break every warp
            # collective anyway), so `ctaid.x * ntid.x + tid.x` keeps the warp bits of tid.x.
            return Value(Level.CTA, Multiple(5))
        if level_name == "warp":
            return Value(Level.WARP, None, Origin(operand.span, f"`{name}` varies between warps"))
        return UNIFORM

    def _thread_index_value(self, operand: ir.SpecialRegister) -> Value:
        component = operand.name.rpartition(".")[2]
        origin = Origin(operand.span, f"`{operand.name}` varies per thread")
        if component == "x":
            return Value(self.lanes.level_of_bits(TID_X), TID_X, origin)
        shape = self.lanes.shape
        if shape.one_dimensional and not shape.assumed:
            return UNIFORM  # y = z = 1: the component is 0
        row = shape.x if component == "y" else (shape.x * shape.y if shape.x and shape.y else None)
        if row is None:
            return Value(Level.THREAD, None, origin)
        group_bits = (row & -row).bit_length() - 1
        return Value(self.lanes.level_of_group_bits(group_bits), None, origin)

    def _sources_value(self, instruction: ir.Instruction, state: State) -> Value:
        value = UNIFORM
        for operand in instruction.sources:
            value = join(value, self._operand_value(operand, instruction, state))
        return _without_bits(value)

    # --- what an instruction writes

    def _results(self, kind: int, index: int, instruction: ir.Instruction, state: State) -> list[tuple[ir.Register, Value]]:
        """What `elect`, `shfl` and `call` write, register by register."""
        destinations = instruction.destinations
        if kind == _ELECT:
            return self._elect(index, instruction, destinations)
        if kind == _SHUFFLE:
            return self._shuffle(index, instruction, state, destinations)
        return self._call(index, instruction, destinations)

    def _value(self, kind: int, index: int, instruction: ir.Instruction, state: State) -> Value:
        """The value an instruction writes to each of its destinations."""
        if kind == _ARITHMETIC:
            return self._arithmetic(instruction, state)
        if kind == _SOURCES:
            return self._sources_value(instruction, state)
        if kind == _LOAD:
            return self._load(index, instruction, state)
        if kind == _SETP:
            return self._compare(instruction, state)
        if kind == _VARYING:
            return self._varying(index, f"the result of `{instruction.opcode.text}` differs between lanes", instruction.opcode_span)
        if kind == _WARP_RESULT:
            return self._warp_result(index, instruction, state)
        if kind == _BARRIER:
            return _with_level(Level.CTA if len(instruction.sources) <= 2 else Level.WARP, None)
        if kind == _PREDICATE:
            if self.space is not None:
                return self._predicate_logic(instruction.opcode.base, instruction, state)
            if instruction.opcode.base in _LANE_ARITHMETIC:
                return self._arithmetic(instruction, state)
        return self._sources_value(instruction, state)

    def _varying(self, index: int, message: str, span: Span) -> Value:
        origin = self._origins.get((index, message))
        if origin is None:
            origin = self._origins[(index, message)] = Origin(span, message)
        return Value(Level.THREAD, None, origin)

    def _warp_result(self, index: int, instruction: ir.Instruction, state: State) -> Value:
        """`vote.sync`, `redux.sync`, `match.all.sync`: equal in every lane of the mask; with a
        full mask, warp-uniform."""
        membermask = instruction.operands[-1] if instruction.operands else None
        if membermask is not None and self._constant_operand(membermask, instruction, state) in _FULL_MASKS:
            return Value(Level.WARP)
        return self._varying(index, f"`{instruction.opcode.text}` with a partial mask differs between lanes", instruction.opcode_span)

    def _elect(self, index: int, instruction: ir.Instruction, destinations) -> list[tuple[ir.Register, Value]]:
        """`elect.sync d|p`: the leader's lane id `d` is warp-uniform, `p` is true in one lane."""
        pair = destinations[0] if destinations else None
        if type(pair) is not ir.Pair:
            return []
        results = []
        if type(pair.first) is ir.Register:
            results.append((pair.first, Value(Level.WARP)))
        if type(pair.second) is ir.Register:
            results.append((pair.second, self._varying(index, "`elect.sync` is true in one lane only", instruction.opcode_span)))
        return results

    def _shuffle(self, index: int, instruction: ir.Instruction, state: State, destinations) -> list:
        """`shfl.sync.mode d|p, a, b, c, mask`. A warp-uniform `a` stays what it is in any mode;
        `idx` with a full mask, uniform lane `b` and no segments (c = 0x1f) broadcasts one lane,
        the CUTLASS/Triton idiom for a uniform warp index."""
        sources = instruction.sources
        destination = destinations[0] if destinations else None
        registers = ir.registers_in(destination) if destination is not None else ()
        if len(sources) < 4 or not registers:
            return [(register, self._sources_value(instruction, state)) for register in registers]
        data, lane, clamp, membermask = sources[:4]
        data_value = self._operand_value(data, instruction, state)
        full = self._constant_operand(membermask, instruction, state) in _FULL_MASKS
        clamp_value = self._constant_operand(clamp, instruction, state)
        lane_value = self._operand_value(lane, instruction, state)
        lane_constant = _constant(lane_value)
        broadcast = (
            full
            and instruction.opcode.has("idx")
            and clamp_value is not None
            and (clamp_value >> 8) & 0x1F == 0
            and lane_value.level <= Level.WARP
            and (lane_constant is None or 0 <= lane_constant <= (clamp_value & 0x1F))
        )
        if full and data_value.level <= Level.WARP:
            value = data_value
        elif broadcast:
            value = Value(Level.WARP)
        else:
            message = f"`{instruction.opcode.text}` reads a different lane in each thread"
            value = self._varying(index, message, instruction.opcode_span)
        results = [(registers[0], value)]
        if len(registers) > 1:
            in_range = Value(Level.WARP) if broadcast else self._varying(index, "the `shfl.sync` in-range predicate differs between lanes", instruction.opcode_span)
            results.append((registers[1], in_range))
        return results

    def _call(self, index: int, instruction: ir.Instruction, destinations) -> list:
        """The return value of a direct call is the callee's summary; record the arguments."""
        callee = callee_name(instruction)
        value = self.summaries.returns.get(callee) if callee is not None else None
        if value is None:
            value = self._varying(index, f"the result of calling `{callee or 'an indirect target'}` may differ between threads", instruction.opcode_span)
        results = []
        for operand in destinations:
            elements = operand.elements if type(operand) is ir.ArgumentList else (operand,)
            for element in elements:
                if type(element) is ir.Register:
                    results.append((element, value))
                elif type(element) is ir.Symbol:
                    results.append((ir.Register("param:" + element.name, element.span), value))
        return results

    def _load(self, index: int, instruction: ir.Instruction, state: State) -> Value:
        """Loads are as uniform as their address, except from `.local` memory; `ld.param` reads
        a kernel parameter (CTA-uniform), a `.func` parameter (the callers' join) or a `.param`
        variable of a call sequence (tracked like a register)."""
        modifiers = instruction.opcode.modifiers
        address = next((operand for operand in instruction.sources if type(operand) is ir.Address), None)
        if any(modifier.startswith("local") for modifier in modifiers):
            if not self._private_local or address is None:
                return self._varying(index, "`.local` memory is private to each thread", instruction.opcode_span)
            # One of the values this function stores to `.local` memory (each thread reads its
            # own copy), from a slot as uniform as the address.
            self.read.add(_LOCAL_KEY)
            stored = self.single.get(_LOCAL_KEY, UNIFORM)
            return _without_bits(join(stored, self._operand_value(address, instruction, state)))
        if address is None:
            return self._sources_value(instruction, state)
        if any(modifier.startswith("param") for modifier in modifiers) and type(address.base) is ir.Symbol:
            name = address.base.name
            if self.function.is_kernel and name in self.parameter_positions:
                return UNIFORM
            position = self.parameter_positions.get(name)
            if position is not None:
                return self._parameter_value(position, address.base.span, name)
            return state.values.get("param:" + name, UNIFORM)
        value = self._operand_value(address, instruction, state)
        if value.level == Level.CTA:
            return UNIFORM
        origin = value.origin or Origin(address.span, "the address differs between threads")
        return Value(value.level, None, origin)

    # --- lane arithmetic

    def _arithmetic(self, instruction: ir.Instruction, state: State) -> Value:
        """Integer `mov`/`cvt`/`add`/`mul`/`mad`/`shr`/`shl`/`and`/`div`/`rem`/`bfe` keep exact
        forms (constants, `%tid.x` bit fields); anything else is the join of the sources."""
        sources = instruction.sources
        opcode = instruction.opcode
        if not sources or not _integer_only(opcode):
            return self._sources_value(instruction, state)
        values = [self._operand_value(operand, instruction, state) for operand in sources]
        if opcode.base in ("mov", "cvt") or not any(type(value.bits) is TidDependence for value in values):
            exact = self._exact(opcode.base, opcode, values)
            if exact is not None:
                return exact
        dependent = self._dependence(opcode, values)
        if dependent is not None:
            return dependent
        fallback = UNIFORM
        for value in values:
            fallback = join(fallback, value)
        return _without_bits(fallback)

    def _exact(self, base: str, opcode: ir.Opcode, values: list[Value]) -> Value | None:
        if base == "mov" or base == "cvt":
            return values[0] if len(values) == 1 else None
        if base in ("add", "sub", "or", "xor") and len(values) == 2:
            return self._add(base, values[0], values[1])
        if base == "mul" and len(values) == 2 and not opcode.has("hi"):
            return self._multiply(values[0], values[1])
        if base == "mad" and len(values) == 3 and not opcode.has("hi"):
            product = self._multiply(values[0], values[1])
            return None if product is None else self._add("add", product, values[2])
        if base == "bfe" and len(values) == 3:
            return self._bit_field_extract(values)
        first = values[0]
        constant = _constant(values[1]) if len(values) == 2 else None
        if base == "shl" and constant is not None and constant >= _REGISTER_BITS:
            return _ZERO  # PTX clamps the shift to the register's width: nothing is left
        if constant is None or first.bits is None:
            return None
        if type(first.bits) is not TidBits:
            return self._uniform_arithmetic(base, first, constant)
        return self._bits_value(base, opcode, first.bits, constant, first)

    def _dependence(self, opcode: ir.Opcode, values: list[Value]) -> Value | None:
        """Bitwise arithmetic on `%tid.x` fields that no single field describes, as the
        `%tid.x` bits each result bit depends on (see :class:`TidDependence`)."""
        base = opcode.base
        if base not in _DEPENDENCE_OPERATIONS or not any(type(value.bits) in (TidBits, TidDependence) for value in values):
            return None
        tid_bits = self.lanes.tid_bits
        dependences = []
        for value in values:
            exact = type(value.bits) in (TidBits, TidDependence)
            dependence = dependence_of(value.bits, tid_bits) if exact or value.level == Level.CTA else None
            if dependence is None:
                return None
            dependences.append(dependence)
        constants = [_constant(value) for value in values]
        types = integer_types(opcode.modifiers)
        width = types[0][0] if types else 32
        if base in ("shl", "shr"):
            amount = constants[1] if len(values) == 2 else None
            if amount is None or not 0 <= amount < width:
                return None
            signed = base == "shr" and opcode.has(f"s{width}")
            result = shifted_left(dependences[0], amount) if base == "shl" else shifted_right(dependences[0], amount, width, signed)
        elif base == "and" and len(values) == 2 and (constants[0] is not None or constants[1] is not None):
            constant, other = (constants[1], dependences[0]) if constants[1] is not None else (constants[0], dependences[1])
            result = masked(other, constant)
        elif base in ("and", "or", "xor"):
            result = dependences[0]
            for dependence in dependences[1:]:
                result = combined(result, dependence)
        else:  # add, sub, mul, mad: carries
            if base in ("mul", "mad") and opcode.has("hi"):
                return None
            result = dependences[0]
            for dependence in dependences[1:]:
                result = combined(result, dependence)
            result = carried(result)
        if result.lowest is None:
            return Value(Level.CTA)
        varying = max(values, key=lambda value: value.level)
        return _at_most(Value(varying.level, result, varying.origin), self.lanes.level_of_dependence(result))

    def _add(self, base: str, first: Value, second: Value) -> Value | None:
        """`a + b`: a field plus a uniform addend stays a field (`ctaid * ntid + tid`); `or` and
        `xor` only with 0, `sub` only of a uniform value from a field."""
        if base != "add" and base != "sub":
            if _constant(second) == 0:
                return first
            return second if _constant(first) == 0 and base != "sub" else None
        sign = -1 if base == "sub" else 1
        if type(first.bits) is not TidBits and type(second.bits) is TidBits and base == "add":
            first, second = second, first
        if type(first.bits) is TidBits:
            if second.level != Level.CTA:
                return None
            bits = first.bits
            constant = _constant(second)
            if constant is not None:
                bits = TidBits(bits.low, bits.high, bits.position, bits.offset + sign * constant, bits.unknown)
            else:
                alignment = alignment_of(second.bits)
                unknown = alignment if bits.unknown is None else min(bits.unknown, alignment)
                bits = TidBits(bits.low, bits.high, bits.position, bits.offset, unknown)
            return Value(first.level, bits, first.origin)
        if first.level != Level.CTA or second.level != Level.CTA:
            return None
        first_constant, second_constant = _constant(first), _constant(second)
        if first_constant is not None and second_constant is not None:
            return Value(Level.CTA, Constant(first_constant + sign * second_constant))
        return _multiple(min(alignment_of(first.bits), alignment_of(second.bits)))

    def _multiply(self, first: Value, second: Value) -> Value | None:
        if type(first.bits) is not TidBits and type(second.bits) is TidBits:
            first, second = second, first
        constant = _constant(second)
        if type(first.bits) is TidBits:
            shift = power_of_two(constant) if constant is not None else None
            return None if shift is None else self._field_value(shift_left(first.bits, shift), first)
        if first.level != Level.CTA or second.level != Level.CTA:
            return None
        first_constant = _constant(first)
        if first_constant is not None and constant is not None:
            return Value(Level.CTA, Constant(first_constant * constant))
        return _multiple(alignment_of(first.bits) + alignment_of(second.bits))

    def _uniform_arithmetic(self, base: str, first: Value, constant: int) -> Value | None:
        """Shifts and masks of constants and aligned uniform values."""
        value = _constant(first)
        if base == "shl" and constant >= 0:
            if value is None:
                return _multiple(alignment_of(first.bits) + constant)
            return Value(Level.CTA, Constant(value << constant))  # constant < 64: see _exact
        if value is None:
            return None
        if base == "shr" and constant >= 0:
            return Value(Level.CTA, Constant(value >> constant))
        if base == "and":
            return Value(Level.CTA, Constant(value & constant))
        return None

    def _bit_field_extract(self, values: list[Value]) -> Value | None:
        """`bfe.u32 d, a, position, length` with constant position and length."""
        position, length = _constant(values[1]), _constant(values[2])
        bits = values[0].bits
        if type(bits) is not TidBits or position is None or length is None or position < 0 or length <= 0:
            return None
        if bits.addend_alignment < position + length and not bits.plain:
            return None
        shifted = shift_right(bits.field_only(), position)
        if shifted is None:
            return _ZERO
        field, _ = mask(shifted, (1 << min(length, _REGISTER_BITS)) - 1)  # a longer field is the whole register
        return self._field_value(field, values[0])

    def _field_value(self, bits: TidBits | None, first: Value) -> Value:
        """The value of an exact field result: uniform when the field is empty."""
        if bits is None:
            return _ZERO
        if bits.position >= _REGISTER_BITS:
            return UNIFORM  # shifted out of any register: only the uniform addend is left
        if self.lanes.is_zero(bits):
            if bits.unknown is None:
                return Value(Level.CTA, Constant(bits.offset))
            return _multiple(bits.addend_alignment)
        return _at_most(Value(first.level, bits, first.origin), self.lanes.level_of_bits(bits))

    def _bits_value(self, base: str, opcode: ir.Opcode, bits: TidBits, constant: int, first: Value) -> Value | None:
        shift = power_of_two(constant)
        unsigned = opcode.has("u32") or opcode.has("u64") or opcode.has("b32") or opcode.has("b64")
        if base == "shr" or (base == "div" and unsigned):
            amount = constant if base == "shr" else shift
            if amount is None or amount < 0 or bits.addend_alignment < amount:
                return None
            return self._field_value(shift_right(bits, amount), first)
        if base == "shl" and constant >= 0:
            return self._field_value(shift_left(bits, constant), first)
        if base == "and" or (base == "rem" and unsigned and shift is not None):
            new_bits, lowest = mask(bits, constant if base == "and" else constant - 1)
            if new_bits is None and lowest is not None:
                return _at_most(_without_bits(first), self.lanes.level_of_bits(TidBits(lowest, None, 0)))
            return self._field_value(new_bits, first)
        return None

    def _predicate_logic(self, base: str, instruction: ir.Instruction, state: State) -> Value:
        """`mov`/`not`/`and`/`or`/`xor` of predicates keep exact `%tid.x` sets."""
        fallback = self._sources_value(instruction, state)
        sources = instruction.sources
        if fallback.level == Level.CTA or not sources or len(sources) > 2:
            return fallback
        masks = []
        for operand in sources:
            value = self._operand_value(operand, instruction, state)
            if type(value.bits) is not TidSet:
                return fallback
            masks.append(value.bits.mask)
        everyone = (1 << self.space.bound) - 1  # type: ignore[union-attr]
        if base == "mov" and len(masks) == 1:
            mask = masks[0]
        elif base == "not" and len(masks) == 1:
            mask = ~masks[0] & everyone
        elif len(masks) == 2:
            first, second = masks
            mask = first & second if base == "and" else first | second if base == "or" else first ^ second
        else:
            return fallback
        return self._tid_set_value(mask, fallback)

    def _tid_set_value(self, mask: int, fallback: Value) -> Value:
        """A predicate true in exactly the threads of ``mask``, at the level its shape allows."""
        space = self.space
        threads = space.restrict(space.everyone, mask)  # type: ignore[union-attr]
        level = space.level(threads)  # type: ignore[union-attr]
        if level is None or level > fallback.level:
            level = fallback.level
        if level == Level.CTA and mask not in (0, (1 << space.bound) - 1):  # type: ignore[union-attr]
            level = Level.WARP  # all of a warp, but not every warp: not CTA-uniform
        return Value(level, TidSet(mask), fallback.origin if level > Level.CTA else None)

    def _compare(self, instruction: ir.Instruction, state: State) -> Value:
        """`setp.cmp p, field, constant`: uniform over every aligned group of threads that the
        threshold does not split (`%tid.x < 128` is the same in a warp, even a warpgroup)."""
        fallback = self._sources_value(instruction, state)
        sources = instruction.sources
        if fallback.level == Level.CTA or len(sources) != 2:
            return fallback
        if self.space is not None and len(instruction.destinations) == 1:
            exact = self._compare_exactly(instruction, state, fallback)
            if exact is not fallback:
                level = min(exact.level, self._compare_level(instruction, state, fallback).level)
                return exact if level == exact.level else Value(level, exact.bits, exact.origin)
        return self._compare_level(instruction, state, fallback)

    def _compare_level(self, instruction: ir.Instruction, state: State, fallback: Value) -> Value:
        sources = instruction.sources
        comparison = next((_COMPARISONS[m] for m in instruction.opcode.modifiers if m in _COMPARISONS), None)
        if comparison is None:
            return fallback
        left, right = sources
        if type(left) is ir.Immediate and type(right) is not ir.Immediate:
            left, right = right, left
            comparison = _MIRRORED[comparison]
        constant = self._constant_operand(right, instruction, state)
        value = self._operand_value(left, instruction, state)
        bits = value.bits
        if constant is None or type(bits) is not TidBits or bits.unknown is not None:
            return fallback
        signed = any(signed for _, signed in integer_types(instruction.opcode.modifiers))
        if bits.offset < 0 and not signed:
            return fallback  # field + offset may wrap around below zero
        # field + offset < constant  ⟺  field < constant - offset
        constant -= bits.offset
        if constant < 0:
            level = Level.CTA  # below every field value (signed) or unreachable after the check above
        else:
            threshold = constant if comparison in ("lt", "ge") else constant + 1
            level = self.lanes.level_of_threshold(bits.field_only(), threshold)
        return _at_most(Value(value.level, None, value.origin), level)

    def _compare_exactly(self, instruction: ir.Instruction, state: State, fallback: Value) -> Value:
        """`setp.cmp p, field, constant` as the exact set of threads in which it is true."""
        comparison = next((_EQUALITIES[m] for m in instruction.opcode.modifiers if m in _EQUALITIES), None)
        if comparison is None:
            return fallback
        left, right = instruction.sources
        if type(left) is ir.Immediate and type(right) is not ir.Immediate:
            left, right = right, left
            comparison = _MIRRORED.get(comparison, comparison)
        constant = self._constant_operand(right, instruction, state)
        bits = self._operand_value(left, instruction, state).bits
        if constant is None or type(bits) is not TidBits:
            return fallback
        types = integer_types(instruction.opcode.modifiers)
        width = types[0][0] if types else 32
        signed = any(signed for _, signed in types)
        constant &= (1 << width) - 1
        if signed and constant >= 1 << (width - 1):
            constant -= 1 << width
        mask = tid_set(bits, comparison, constant, self.space.bound)  # type: ignore[union-attr]
        return fallback if mask is None else self._tid_set_value(mask, fallback)

    # --- branches

    def _branch_divergence(self, info: _BranchInfo, state: State) -> Divergence | None:
        instruction = info.instruction
        if instruction.guard is not None:
            condition: ir.Operand = instruction.guard.predicate
        elif instruction.opcode.base == "brx" and instruction.operands:
            condition = instruction.operands[0]
        else:
            return None
        # The threads that run the branch all computed its condition (a register written once):
        # the control they ran under is already in the state, so the branch splits them only as
        # much as the condition's data varies.
        value = self._data_value(condition, instruction, state)
        if value.level == Level.CTA:
            return None
        proven = instruction.guard is not None and self._proven_split(value.level, condition, instruction, state)
        # The same divergence object for the same cause, so states compare by identity.
        key = (info.index, value.level, id(value.origin), proven)
        known = self._divergences.get(key)
        if known is None or known[0] is not value.origin:
            divergence = Divergence("branch", value.level, info.index, instruction.span, _text(condition), value.origin, proven)
            known = self._divergences[key] = (value.origin, divergence, replace(divergence, kind="exit-branch"))
        return known[1]

    def _exit_mark(self, divergence: Divergence) -> Divergence:
        """The exit mark of a branch divergence (made by :meth:`_branch_divergence`)."""
        key = (divergence.index, divergence.level, id(divergence.origin), divergence.proven)
        return self._divergences[key][2]

    # --- recording facts for rules and dumps

    def _record(self, index: int, instruction: ir.Instruction, state: State, execution, results) -> None:
        requirement = self.collectives.get(index)
        is_call = instruction.opcode.base == "call"
        if is_call:
            self._record_arguments(instruction, state, execution)
        if requirement is None and not is_call and not self.record_everything:
            return
        defined = None
        keys = self._plans[index][1]
        # Not raised when every register it writes is invariant: see _write.
        steady = (
            execution is not None
            and bool(keys)
            and any(value.level < execution.level for value in results)
            and all(key in self._invariant for key, _ in keys)
        )
        for value in results:
            if execution is not None and not steady:
                value = _at_least(value, execution.level, _control_origin(execution))
            defined = value if defined is None else join(defined, value)
        operands: dict[int, Value] = {}
        if requirement is not None:
            for position in requirement.uniform_operands:
                operands[position] = self._operand_value(instruction.operands[position], instruction, state)
        exits = state.exits
        if exits and state.threads is not None:
            # Threads that exited do not reach this point; when whole warps (or every thread)
            # reach it, no warp here is missing some of its threads.
            level = self.space.level(state.threads)  # type: ignore[union-attr]
            if level == Level.CTA:
                exits = ()
            elif level == Level.WARP:
                exits = tuple(mark for mark in exits if mark.level <= Level.WARP)
        self.recording[index] = InstructionFacts(execution, exits, defined, operands)  # type: ignore[index]

    def _record_arguments(self, instruction: ir.Instruction, state: State, execution: Divergence | None) -> None:
        callee = callee_name(instruction)
        if callee is None:
            return
        lists = [operand for operand in instruction.sources if type(operand) is ir.ArgumentList]
        if not lists:
            return
        values = []
        for argument in lists[0].elements:
            if type(argument) is ir.Symbol:
                value = self.argument_data.get(argument.name, UNIFORM)
            else:
                value = self._data_value(argument, instruction, state)
            values.append(value)
        known = self.arguments.get(callee)
        if known is None:
            self.arguments[callee] = values
        else:
            for position, value in enumerate(values[: len(known)]):
                known[position] = join(known[position], value)


def _control_origin(execution: Divergence) -> Origin:
    known = _CONTROL_ORIGINS.get(id(execution))
    if known is None or known[0] is not execution:
        known = _CONTROL_ORIGINS[id(execution)] = (execution, _describe_control(execution))
        if len(_CONTROL_ORIGINS) > 4096:
            _CONTROL_ORIGINS.clear()
            _CONTROL_ORIGINS[id(execution)] = known
    return known[1]


_CONTROL_ORIGINS: dict[int, tuple[Divergence, Origin]] = {}


def _describe_control(execution: Divergence) -> Origin:
    what = "guard" if execution.kind == "guard" else "branch"
    return Origin(execution.span, f"written under a {what} on `{execution.subject}`, which is {execution.level.adjective}")


def _at_most(value: Value, level: Level) -> Value:
    """``value`` lowered to ``level`` (a collapse rule proved it more uniform)."""
    if value.level <= level:
        return value
    if level == Level.CTA and value.bits is None:
        return UNIFORM
    return Value(level, value.bits, value.origin if level > Level.CTA else None)


def _constant(value: Value) -> int | None:
    return value.bits.value if type(value.bits) is Constant else None


def _multiple(bits: int) -> Value:
    return Value(Level.CTA, Multiple(bits)) if bits > 0 else UNIFORM


def _without_bits(value: Value) -> Value:
    return value if value.bits is None else Value(value.level, None, value.origin)


def _integer_only(opcode: ir.Opcode) -> bool:
    known = _INTEGER_ONLY.get(opcode.text)
    if known is None:
        known = _INTEGER_ONLY[opcode.text] = _compute_integer_only(opcode)
    return known


_INTEGER_ONLY: dict[str, bool] = {}


def _compute_integer_only(opcode: ir.Opcode) -> bool:
    types = [modifier for modifier in opcode.modifiers if modifier[:1] in "usbf" and modifier[1:].isdigit()]
    return bool(types) and all(modifier[0] in _INTEGER_TYPE_PREFIXES for modifier in types)


def _text(operand: ir.Operand) -> str:
    if type(operand) in (ir.Register, ir.SpecialRegister, ir.Symbol):
        return operand.name  # type: ignore[union-attr]
    return "the condition"


def _dead_ends(graph: cfg_module.ControlFlowGraph, function: ir.Function, collectives: dict[int, Collective]) -> dict[int, str]:
    """Blocks that end the thread at once ("exit": nothing but branches before an `exit` or a
    kernel `ret`, the shape of nvcc's early return) or end the grid ("trap": a trap with no
    collective on the way). In a `.func`, `ret` returns to the caller: not an end."""
    fates: dict[int, str] = {}
    instructions = function.instructions
    for block_index in reversed(graph.reverse_post_order):
        block = graph.blocks[block_index]
        if block.end == block.start:
            continue
        body = [instructions[index] for index in block.instruction_indices]
        if any(index in collectives for index in block.instruction_indices):
            continue
        last = body[-1]
        only_control = all(instruction.opcode.base in _CONTROL_ONLY for instruction in body)
        own_end = _end_kind(last, function) if last.guard is None else None
        if own_end == "exit" and only_control:
            fates[block_index] = "exit"
            continue
        if own_end == "trap":
            fates[block_index] = "trap"
            continue
        successors = block.successors
        if graph.exit in successors or any(successor not in fates for successor in successors):
            continue
        successor_fates = {fates[successor] for successor in successors}
        if successor_fates == {"trap"}:
            fates[block_index] = "trap"
        elif only_control:
            fates[block_index] = "exit"
    return fates


_CONTROL_ONLY = frozenset({"bra", "exit", "ret"})


def _end_kind(last: ir.Instruction, function: ir.Function) -> str | None:
    base = last.opcode.base
    if base == "exit" or (base == "ret" and function.is_kernel):
        return "exit"
    if cfg_module.ends_grid(last):
        return "trap"
    return None


# ----------------------------------------------------------------------------- correlated conditions


def _correlated_branches(
    function: ir.Function, graph: cfg_module.ControlFlowGraph, names: _RegisterNames, branches, visited: Sequence[int]
) -> dict:
    """Branches whose splitting the threads makes some other edges infeasible: the condition is
    `and`/`or`/`not` of comparisons, a comparison operand that is CTA-uniform must then have one
    value (`%p12 = !(%p5 && warp == 0)` splits threads only when `%p5` is true), and an edge
    guarded by a comparison of the same register with a constant may contradict it (`%p5 = %r4
    <u 2147483520` true, the edge taken when `%r4 <s 0`). Per branch block: (the comparison's
    predicate key, which must be CTA-uniform at run time, the edges it makes infeasible)."""
    instructions = function.instructions
    definitions: dict[str, int] = {}
    repeated = names.written_more_than_once
    for index in visited:  # the definitions of every register a branch condition reads
        instruction = instructions[index]
        for operand in instruction.destinations:
            for register in ir.registers_in(operand):
                key = names.key(register.name, instruction.scope)
                if key not in repeated:
                    definitions[key] = index
    # The constraint each edge of a branch on a comparison puts on the compared register.
    edge_constraints: dict[tuple[str, int], list[tuple[tuple[int, int], list]]] = {}
    for info in branches.values():
        instruction = info.instruction
        guard = instruction.guard
        if guard is None or instruction.opcode.base != "bra" or type(guard.predicate) is not ir.Register:
            continue
        found = _comparison_of(guard.predicate, instruction.scope, names, definitions, instructions)
        if found is None:
            continue
        comparison, flipped = found
        for successor in info.live | {info.taken}:
            if successor == graph.exit:
                continue
            truth = (successor == info.taken) ^ guard.negated ^ flipped
            register, width, intervals = _constraint(comparison, truth)
            edge_constraints.setdefault((register, width), []).append(((info.block, successor), intervals))
    # Many branches on one register (a loop nest on one condition): relating them all would be
    # quadratic; leave them unrelated.
    edge_constraints = {key: edges for key, edges in edge_constraints.items() if len(edges) <= _MAX_RELATED_EDGES}
    if not edge_constraints:
        return {}
    correlated = {}
    for info in branches.values():
        guard = info.instruction.guard
        if guard is None or type(guard.predicate) is not ir.Register:
            continue
        requirements: list[tuple[str, bool]] = []
        key = names.key(guard.predicate.name, info.instruction.scope)
        _requirements(key, True, True, names, definitions, instructions, requirements, 0)
        if not requirements:
            continue
        candidates = []
        for leaf, required in requirements:
            comparison = _comparison_of_key(leaf, names, definitions, instructions)
            if comparison is None:
                continue
            register, width, intervals = _constraint(comparison, required)
            edges = tuple(
                edge
                for edge, others in edge_constraints.get((register, width), ())
                if edge[0] != info.block and _disjoint(intervals, others)
            )
            if edges:
                candidates.append((leaf, edges))
        if candidates:
            correlated[info.block] = tuple(candidates)
    return correlated


def _requirements(key, not_all_false, not_all_true, names, definitions, instructions, found, depth, top=True) -> None:
    """The operands of the `and`/`or`/`not` tree defining predicate ``key`` that must have one
    value in every thread when they are CTA-uniform, given that ``key`` is not false in every
    thread (``not_all_false``) and/or not true in every thread (``not_all_true``)."""
    index = definitions.get(key)
    if index is None or depth > 8:
        return
    instruction = instructions[index]
    base = instruction.opcode.base
    if base == "setp":
        if top:
            return  # the condition itself: it is not CTA-uniform while the branch splits threads
        if not_all_false:
            found.append((key, True))
        if not_all_true:
            found.append((key, False))
        return
    if not instruction.opcode.has("pred") or base not in ("not", "mov", "and", "or"):
        return
    operands = [operand for operand in instruction.sources if type(operand) in (ir.Register, ir.Negated)]
    if len(operands) != len(instruction.sources):
        return
    if base == "not":
        not_all_false, not_all_true = not_all_true, not_all_false
    elif base == "and":
        not_all_true = False  # some operand is not all true: says nothing about each
    elif base == "or":
        not_all_false = False
    if not not_all_false and not not_all_true:
        return
    for operand in operands:
        negated = type(operand) is ir.Negated
        register = operand.operand if negated else operand
        if type(register) is not ir.Register:
            continue
        falsehood, truth = (not_all_true, not_all_false) if negated else (not_all_false, not_all_true)
        still_top = top and base in ("not", "mov")  # still the condition itself
        _requirements(names.key(register.name, instruction.scope), falsehood, truth, names, definitions, instructions, found, depth + 1, still_top)


def _comparison_of(predicate: ir.Register, scope: int, names, definitions, instructions):
    """The comparison defining a predicate through `not`/`mov` (and whether it is negated)."""
    return _comparison_of_key(names.key(predicate.name, scope), names, definitions, instructions, with_flip=True)


def _comparison_of_key(key, names, definitions, instructions, with_flip=False):
    flipped = False
    for _ in range(8):
        index = definitions.get(key)
        if index is None:
            return None
        instruction = instructions[index]
        base = instruction.opcode.base
        if base in ("not", "mov") and instruction.opcode.has("pred") and len(instruction.sources) == 1:
            operand = instruction.sources[0]
            if type(operand) is not ir.Register:
                return None
            flipped ^= base == "not"
            key = names.key(operand.name, instruction.scope)
            continue
        comparison = _comparison(instruction, names, definitions)
        if comparison is None:
            return None
        if with_flip:
            return comparison, flipped
        return comparison if not flipped else None
    return None


_MAX_RELATED_EDGES = 64
_NEGATED_COMPARISONS = {"lt": "ge", "ge": "lt", "le": "gt", "gt": "le", "eq": "ne", "ne": "eq"}


def _comparison(instruction: ir.Instruction, names, definitions):
    """`setp.cmp.type p, r, constant` on a register written once: (register key, comparison,
    constant, signed, width), or None."""
    opcode = instruction.opcode
    if opcode.base != "setp" or len(instruction.sources) != 2 or len(instruction.destinations) != 1:
        return None
    if type(instruction.destinations[0]) is not ir.Register:
        return None
    comparison = next((_EQUALITIES[m] for m in opcode.modifiers if m in _EQUALITIES), None)
    types = integer_types(opcode.modifiers)
    if comparison is None or len(types) != 1:
        return None
    left, right = instruction.sources
    if type(left) is ir.Immediate and type(right) is ir.Register:
        left, right = right, left
        comparison = _MIRRORED.get(comparison, comparison)
    if type(left) is not ir.Register or type(right) is not ir.Immediate or not isinstance(right.value, int):
        return None
    key = names.key(left.name, instruction.scope)
    if key not in definitions:
        return None
    width, signed = types[0]
    # lo/ls/hi/hs are unsigned whatever the type; lt/le/gt/ge follow it.
    signed = signed and not any(m in ("lo", "ls", "hi", "hs") for m in opcode.modifiers)
    return key, comparison, right.value, signed, width


def _constraint(comparison, truth: bool) -> tuple[str, int, list[tuple[int, int]]]:
    """The register's values (as unsigned ``width``-bit numbers) in which the comparison has the
    given truth: up to two intervals."""
    key, operation, constant, signed, width = comparison
    if not truth:
        operation = _NEGATED_COMPARISONS[operation]
    modulus = 1 << width
    constant &= modulus - 1
    if signed:
        low, high = -(modulus >> 1), (modulus >> 1) - 1
        if constant > high:
            constant -= modulus
    else:
        low, high = 0, modulus - 1
    spans = {
        "lt": [(low, constant - 1)],
        "le": [(low, constant)],
        "gt": [(constant + 1, high)],
        "ge": [(constant, high)],
        "eq": [(constant, constant)],
        "ne": [(low, constant - 1), (constant + 1, high)],
    }[operation]
    intervals = []
    for first, last in spans:
        first, last = max(first, low), min(last, high)
        if first > last:
            continue
        if first < 0:  # signed negatives are the top half of the unsigned range
            intervals.append((first + modulus, min(last, -1) + modulus))
            first = 0
        if first <= last:
            intervals.append((first, last))
    return key, width, intervals


def _disjoint(first: list[tuple[int, int]], second: list[tuple[int, int]]) -> bool:
    return all(a_last < b_first or b_last < a_first for a_first, a_last in first for b_first, b_last in second)


def _post_dominator_without(graph: cfg_module.ControlFlowGraph, start: int, removed: frozenset) -> int | None:
    """The immediate post-dominator of ``start`` in the part of the graph reachable from it once
    the ``removed`` edges are taken out (None when the paths do not meet again)."""
    reachable = [start]
    seen = {start}
    successors: dict[int, tuple[int, ...]] = {}
    for node in reachable:
        kept = tuple(successor for successor in graph.successors(node) if (node, successor) not in removed)
        successors[node] = kept
        for successor in kept:
            if successor not in seen:
                seen.add(successor)
                reachable.append(successor)
    everything = frozenset(seen)
    post: dict[int, frozenset] = {node: (frozenset((node,)) if not successors[node] else everything) for node in reachable}
    changed = True
    order = reachable[::-1]
    while changed:
        changed = False
        for node in order:
            kept = successors[node]
            if not kept:
                continue
            meet = frozenset.intersection(*(post[successor] for successor in kept)) | {node}
            if meet != post[node]:
                post[node] = meet
                changed = True
    candidates = post[start] - {start}
    for candidate in candidates:
        if len(post[candidate]) == len(candidates):
            return candidate
    return None


# ----------------------------------------------------------------------------- the module driver

_MAX_ROUNDS = 6


def direct_collectives(function: ir.Function) -> dict[int, Collective]:
    found = {}
    for index, instruction in enumerate(function.instructions):
        requirement = collective(instruction)
        if requirement is not None:
            found[index] = requirement
    return found


def _fresh_register_index(function: ir.Function) -> RegisterIndex:
    return RegisterIndex(function.instructions)


def analyze_module(
    module: ir.Module,
    options: Options,
    everything: bool = False,
    sparse: bool = True,
    graph_of: Callable[[ir.Function], cfg_module.ControlFlowGraph] = cfg_module.build,
    registers_of: Callable[[ir.Function], RegisterIndex] = _fresh_register_index,
    keep_dead_registers: bool = False,
) -> ModuleUniformity:
    """Analyse the functions that need it (all of them when ``everything``), interprocedurally.
    ``sparse`` False visits every instruction even when only some facts are wanted, and
    ``keep_dead_registers`` keeps registers no later instruction reads in the states (the
    references the sparse, trimmed analysis is tested against). ``graph_of`` and
    ``registers_of`` build a function's CFG and register index (a context shares them between
    analyses)."""
    functions = {function.name: function for function in module.functions if function.has_body}
    direct = {name: direct_collectives(function) for name, function in functions.items()}
    if not everything and not any(direct.values()):
        return ModuleUniformity()
    graph = CallGraph(module)
    called = _called_collectives(graph, functions, direct)
    selected = _selected_functions(graph, functions, called, everything)
    order = _callers_first(graph, selected, module)
    conservative = _conservative_functions(module, graph, functions)
    # A function with a caller we do not analyse cannot learn its parameters from the callers.
    conservative.update(name for name in order if any(site.caller not in selected for site in graph.callers.get(name, ())))
    summaries = _Summaries({}, {}, called, _exiting_functions(graph, functions))
    for name in order:
        summaries.parameters[name] = None if name in conservative else ()
    result = ModuleUniformity()
    statics: dict[str, tuple] = {}
    thread_spaces: dict[int, ThreadSpace] = {}
    # A function whose parameters and callees' return values did not change since the last
    # round gives the same result: keep it.
    previous: dict[str, tuple] = {}
    for _ in range(_MAX_ROUNDS):
        previous_parameters = dict(summaries.parameters)
        arguments: dict[str, list[Value]] = {}
        returns: dict[str, Value] = {}
        for name in order:
            # Callers come first, so this round's arguments are complete (Gauss-Seidel).
            if name not in conservative:
                summaries.parameters[name] = tuple(arguments.get(name, ()))
            function = functions[name]
            inputs = (summaries.parameters.get(name), tuple(summaries.returns.get(callee) for callee in graph.callees(name)))
            known = previous.get(name)
            if known is not None and known[0] == inputs:
                analysis, analysed = known[1], known[2]
            else:
                analysis, analysed = _analyze_function(
                    function, options, summaries, direct[name], everything, statics, dense=everything or not sparse,
                    graph_of=graph_of, registers_of=registers_of, thread_spaces=thread_spaces,
                    keep_dead_registers=keep_dead_registers,
                )
                previous[name] = (inputs, analysis, analysed)
            result.functions[name] = analysed
            for callee, values in analysis.arguments.items():
                _merge_arguments(arguments, callee, values)
            if function.return_parameters:
                returns[name] = analysis.returned
        changed = previous_parameters != summaries.parameters or any(
            summaries.returns.get(name) != value for name, value in returns.items()
        )
        summaries.returns.update(returns)
        if not changed:
            break
    return result


def _analyze_function(
    function, options, summaries, collectives, everything, statics=None, dense=True, graph_of=cfg_module.build,
    registers_of=_fresh_register_index, thread_spaces=None, keep_dead_registers=False,
):
    known = statics.get(function.name) if statics is not None else None
    if known is None:
        graph = graph_of(function)
        lanes = LaneModel(block_shape(function, options))
        requirements = dict(collectives)
        calls = {}
        for index, instruction in enumerate(function.instructions):
            if instruction.opcode.base == "call":
                reached = summaries.called.get(callee_name(instruction) or "", ())
                if reached:
                    calls[index] = reached
        known = (graph, lanes, requirements, calls, _Static(function, graph, requirements, dense, registers_of(function)))
        if statics is not None:
            statics[function.name] = known
    graph, lanes, requirements, calls, static = known
    analysis = UniformityAnalysis(function, graph, lanes, summaries, requirements, static, thread_spaces, keep_dead_registers)
    solution = solve_forward(graph, analysis)
    analysis.recording = {}
    analysis.record_everything = everything
    # Replay the blocks whose facts someone reads: collectives, calls, stores of return values.
    for block in graph.reverse_post_order:
        if block in solution.block_entry and (everything or _has_recorded_facts(function, graph.blocks[block], requirements)):
            for _ in instruction_states(solution, analysis, block):
                pass
    facts = analysis.recording
    analysis.recording = None
    return analysis, FunctionUniformity(function, graph, facts, requirements, calls, solution.converged)


def _has_recorded_facts(function: ir.Function, block: cfg_module.Block, requirements: dict[int, Collective]) -> bool:
    instructions = function.instructions
    for index in block.instruction_indices:
        base = instructions[index].opcode.base
        if index in requirements or base == "call" or (base == "st" and function.return_parameters):
            return True
    return False


def _called_collectives(graph: CallGraph, functions, direct) -> dict[str, tuple[CalledCollective, ...]]:
    """For each function, the collectives it reaches (its own and its callees'), at most one
    per kind of requirement, so a call site can be checked like the collective itself."""
    memo: dict[str, tuple[CalledCollective, ...]] = {}
    for name in _callees_first(graph, functions):
        found: dict[tuple, CalledCollective] = {}
        function = functions[name]
        for index, requirement in sorted(direct[name].items()):
            kind = (requirement.scope, requirement.aligned, requirement.thread_count)
            found.setdefault(kind, CalledCollective(name, index, function.instructions[index], requirement))
        for site in graph.call_sites.get(name, ()):
            # Inside a recursive cycle a member not yet summarised contributes nothing: what the
            # cycle reaches is still found through the member that owns it.
            for reached in memo.get(site.callee or "", ()):
                requirement = reached.requirement
                found.setdefault((requirement.scope, requirement.aligned, requirement.thread_count), reached)
        memo[name] = tuple(found.values())
    return memo


def _callees_first(graph: CallGraph, functions) -> list[str]:
    """Every function with a body, each after the functions it calls (post-order; recursion
    broken arbitrarily but deterministically)."""
    order: list[str] = []
    seen: set[str] = set()
    for root in functions:
        if root in seen:
            continue
        seen.add(root)
        stack = [(root, iter(graph.callees(root)))]
        while stack:
            name, children = stack[-1]
            for child in children:
                if child not in seen:
                    seen.add(child)
                    stack.append((child, iter(graph.callees(child))))
                    break
            else:
                stack.pop()
                order.append(name)
    return order


def _exiting_functions(graph: CallGraph, functions) -> frozenset[str]:
    """Functions that contain an `exit` or call one that does."""
    exiting = {name for name, function in functions.items() if any(i.opcode.base == "exit" for i in function.instructions)}
    if not exiting:
        return frozenset()
    return frozenset(name for name in graph.reaching(exiting) if name in functions)


def _selected_functions(graph: CallGraph, functions, called, everything: bool) -> set[str]:
    """Functions that reach a collective, plus what they call (for return values)."""
    if everything:
        return set(functions)
    selected = {name for name, reached in called.items() if reached}
    return selected | set(graph.reachable_from_any(selected))


def _callers_first(graph: CallGraph, selected: set[str], module: ir.Module) -> list[str]:
    """Selected functions, each after its callers where recursion allows (kernels first)."""
    order: list[str] = []
    seen: set[str] = set()
    roots = [function.name for function in module.functions if function.has_body and function.name in selected]
    roots.sort(key=lambda name: not graph.functions[name].is_kernel)
    for root in roots:
        if root in seen:
            continue
        # Reverse post-order of the call graph from the root: callers before callees.
        post: list[str] = []
        stack = [(root, iter(graph.callees(root)))]
        seen.add(root)
        while stack:
            name, children = stack[-1]
            for child in children:
                if child not in seen and child in selected:
                    seen.add(child)
                    stack.append((child, iter(graph.callees(child))))
                    break
            else:
                stack.pop()
                post.append(name)
        order.extend(reversed(post))
    return order


def _conservative_functions(module: ir.Module, graph: CallGraph, functions) -> set[str]:
    """Functions whose parameters we cannot derive from the call sites in this module: kernels
    (their parameters are CTA-uniform anyway), externally visible, recursive, address-taken, or
    never called."""
    taken = set()
    # Only a `.func` can be called with arguments: without one there is nothing to look for.
    callable_functions = {name for name, function in functions.items() if not function.is_kernel}
    for function in functions.values() if callable_functions else ():
        for instruction in function.instructions:
            if instruction.opcode.base == "call":
                continue
            for operand in instruction.sources:
                if type(operand) is ir.Symbol and operand.name in callable_functions:
                    taken.add(operand.name)
    conservative = set()
    for name, function in functions.items():
        visible = any(linkage in (".visible", ".extern", ".weak", ".common") for linkage in function.linkage)
        uncalled = not graph.callers.get(name)
        if function.is_kernel or visible or name in graph.recursive or name in taken or uncalled:
            conservative.add(name)
    return conservative


def _merge_arguments(arguments: dict[str, list[Value]], callee: str, values: list[Value]) -> None:
    known = arguments.get(callee)
    if known is None:
        arguments[callee] = list(values)
        return
    for position, value in enumerate(values):
        if position < len(known):
            known[position] = join(known[position], value)
        else:
            known.append(value)


# ----------------------------------------------------------------------------- dump


def format_uniformity(module: ir.Module, options: Options) -> str:
    """Per instruction: the level of what it defines and the level at which it executes, in
    the annotation syntax the fixtures use (``// uniformity: warp executes: cta``)."""
    result = analyze_module(module, options, everything=True)
    lines = [f"module {module.path}"]
    for function in module.functions:
        analysed = result.functions.get(function.name)
        if analysed is None or analysed.function is not function:
            continue
        kind = "entry" if function.is_kernel else "func"
        lines.append("")
        lines.append(f"{function.span.line}: {kind} {function.name}")
        for index, instruction in enumerate(function.instructions):
            text = module.source.data[instruction.span.start : instruction.span.end].decode("utf-8", "replace")
            text = " ".join(text.split())
            lines.append(f"{instruction.span.line:>7}  {text:<60}  {describe_facts(analysed.facts.get(index))}")
    return "\n".join(lines) + "\n"


def describe_facts(facts: InstructionFacts | None) -> str:
    """``<defined> executes: <level>`` (``-`` when nothing is defined), ``unreachable`` when the
    solver never reached the instruction, ``after-exit`` when threads may have exited before."""
    if facts is None:
        return "unreachable"
    defined = facts.defined.level.short if facts.defined is not None else "-"
    text = f"{defined} executes: {facts.execution_level.short}"
    return text + " after-exit" if facts.exits else text


def iter_function_facts(result: ModuleUniformity) -> Iterator[FunctionUniformity]:
    """Analysed functions in a stable order (by position in the file)."""
    return iter(sorted(result.functions.values(), key=lambda analysed: analysed.function.span.start))
