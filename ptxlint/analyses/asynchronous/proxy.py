"""The asynchronous shared-memory state of a thread along its paths: what it wrote through the
generic proxy and has not fenced for the async proxy, which asynchronous copies into shared
memory it started and has not waited for, which bulk copies out of shared memory may still be
reading their source, and which `mbarrier.init`s the async proxy cannot see yet.

The state is a :class:`Payload` per path class of a
:class:`~ptxlint.analyses.path_sensitive.PathSensitiveAnalysis` holding the function's
:class:`_Classification`, which steps payloads (the engine of the tensor-memory
pass: guards split classes, correlated branches prune infeasible paths). What each instruction
does comes from :mod:`ptxlint.isa.proxies`; which buffer it touches from the `shared_buffers`
pass, and only accesses to a known buffer are followed (where the buffer is unknown the rules
assume no conflict).

Generic writes go through three stages, because `fence.proxy.async` must be executed by the
*writing* thread after its write and before the hand-off that lets the issuing thread go on:
written (no fence yet), handed off unfenced (a barrier or arrive passed first; a later fence by
this thread no longer orders it for the threads it was handed to), and fenced after the hand-off
(fine only once handed off again).

The result, :class:`AsyncProxyFacts`, answers the PTX501–504 questions per instruction; the
solver stays in here. A function with no asynchronous shared-memory operation is not solved.
"""

from __future__ import annotations

from typing import Callable, Iterable, NamedTuple, Sequence

from ptxlint.analyses.path_sensitive import PathSensitiveAnalysis, PathState, Screen, join_groups
from ptxlint.analyses.path_witness import BranchStep, branch_steps, witness_path
from ptxlint.analyses.asynchronous.shared_buffers import Buffer, SharedBuffers
from ptxlint.analyses.threads.branch_sides import BranchTable
from ptxlint.analyses.threads.lane_sets import ranges
from ptxlint.analyses.threads.reach import ThreadReach
from ptxlint.context import ModuleContext
from ptxlint.dataflow import Solution, StatesBefore, solve_forward
from ptxlint.ir import Address, Function, Immediate, Instruction, Register
from ptxlint.isa import proxies
from ptxlint.isa.barriers import cta_barrier_of, is_cluster_barrier
from ptxlint.isa.hand_offs import HAND_OFF_BASES, hand_off
from ptxlint.isa.proxies import Access
from ptxlint.passes import Describe, Pass

# More committed groups than this are not told apart: the oldest two merge.
_MAX_GROUPS = 8

Groups = tuple[frozenset[int], ...]  # committed groups of copies, oldest first


class Payload(NamedTuple):
    """What one path class tracks (instruction indices throughout)."""

    unfenced: frozenset[int] = frozenset()  # generic writes not followed by a proxy fence
    handed_off: frozenset[int] = frozenset()  # generic writes a hand-off published before any fence
    fenced_late: frozenset[int] = frozenset()  # handed-off writes fenced since, not handed off again
    loads: frozenset[int] = frozenset()  # copies into shared memory whose mbarrier was not waited on
    cp_groups: Groups = ()  # committed `cp.async` groups not retired
    cp_open: frozenset[int] = frozenset()  # `cp.async` not committed yet
    stores: Groups = ()  # committed bulk groups of copies reading shared memory
    stores_open: frozenset[int] = frozenset()  # such copies not committed yet
    unwaited: frozenset[int] = frozenset()  # copies above with no wait of their kind since issued
    inits: frozenset[int] = frozenset()  # `mbarrier.init` with no fence since
    inits_cta: frozenset[int] = frozenset()  # `mbarrier.init` fenced by a proxy fence only (enough in the CTA)


_NOTHING = Payload()


class WriteHazard(NamedTuple):
    """A generic write the async proxy may not see."""

    write: int
    handed_off: bool  # published by a hand-off before the writing thread fenced it


class CopyHazard(NamedTuple):
    """An asynchronous copy not known complete where its buffer is used."""

    copy: int
    waited: bool  # some wait of the copy's kind came after it (on another barrier or group)


class _Classification:
    """What each instruction of a function is to the analysis (kind, buffer, barrier), which of
    them can change a payload, and how (:meth:`step`): the
    :class:`~ptxlint.analyses.path_sensitive.PathPayloads` of both the path-insensitive screen
    and the path-sensitive analysis."""

    def __init__(self, function: Function, buffers: SharedBuffers) -> None:
        self.function = function
        self.buffers = buffers
        instructions = function.instructions
        in_kernel = function.kind == "entry"
        self.kinds: dict[int, str] = {}  # index → what the instruction is to this analysis
        self.buffer_of: dict[int, Buffer] = {}  # the shared-memory buffer it writes, reads or signals
        self.barrier_of: dict[int, Buffer] = {}  # a copy's mbarrier
        self.also_reads: dict[int, list[Buffer]] = {}  # an MMA's other operand buffers (B after A)
        for index, instruction in enumerate(instructions):
            if instruction.opcode.base not in _FOLLOWED_BASES:
                continue
            kind = _kind(instruction, in_kernel)
            if kind is None:
                continue
            buffer = self._buffer(kind, index, instruction)
            if kind == _LOAD and buffer is None:
                # A copy into memory ptxlint cannot name still signals its barrier.
                kind, buffer = _USE_BARRIER, self._buffer(_USE_BARRIER, index, instruction)
            if kind in _NEEDS_BUFFER and buffer is None:
                continue  # unknown buffer: no conflict is assumed, nothing to follow
            self.kinds[index] = kind
            if buffer is not None:
                self.buffer_of[index] = buffer
            if kind == _ASYNC_READ and instruction.opcode.base != "cp":
                self.also_reads[index] = _async_sources(buffers, index, instruction)[1:]
            if kind == _LOAD:
                barrier = _last_address(instruction)
                known = buffers.of_address(barrier, index) if barrier is not None else None
                if known is not None:
                    self.barrier_of[index] = known
        # Bytes a generic store writes and a bulk copy reads, where the instruction fixes them.
        self.extent: dict[int, int] = {}
        for index, kind in self.kinds.items():
            size = _extent(function.instructions[index], kind)
            if size is not None:
                self.extent[index] = size
        # The barriers every thread of the CTA meets (`bar.sync 0`, `barrier.sync` without a
        # count, the cluster barrier's wait): an `mbarrier.init` one thread made before one is
        # every thread's after it.
        self.cta_barriers = frozenset(
            index for index, kind in self.kinds.items()
            if kind == _HAND_OFF and _meets_every_thread(function.instructions[index])
        )
        self.changing = self._relevant_changes()
        # The accesses at most one thread makes (`roles`), set before the path-sensitive
        # solve; the screen leaves it empty (more hazards, never fewer).
        self.lone: frozenset[int] = frozenset()

    def _relevant_changes(self) -> frozenset[int]:
        """The instructions whose step can matter to some question. Reads only ask. A generic
        write matters only if some async-proxy read names its buffer (or a store's: then it may
        overwrite a store's source); a copy only if some use names its address exactly; an
        `mbarrier.init` only if a copy signals that barrier. Hand-offs, fences, waits and
        commits matter only when something they move is followed. A kernel's scratch writes and
        its many loads of other buffers never enter a payload, and a function where nothing is
        left is not solved."""
        kinds, buffers = self.kinds, self.buffer_of
        async_reads = [buffers[index] for index, kind in kinds.items() if kind in (_ASYNC_READ, _STORE)]
        async_reads.extend(buffer for more in self.also_reads.values() for buffer in more)
        read_by_async = {(buffer.root, buffer.offset) for buffer in async_reads}
        sized_reads = [
            (buffers[index], self.extent[index])
            for index, kind in kinds.items() if kind in (_ASYNC_READ, _STORE) and index in self.extent
        ]
        used_exactly = {buffers[index] for index, kind in kinds.items() if kind in (_READ, _ASYNC_READ)}
        used_exactly.update(buffer for more in self.also_reads.values() for buffer in more)
        stores = {buffers[index] for index, kind in kinds.items() if kind == _STORE}
        written_exactly = {buffers[index] for index, kind in kinds.items() if kind in (_WRITE, _HAND_OFF_WRITE)}
        signalled = {(barrier.root, barrier.offset) for barrier in self.barrier_of.values()}
        signalled.update((buffers[index].root, buffers[index].offset) for index, kind in kinds.items() if kind == _USE_BARRIER)
        loaded = {(buffers[index].root, buffers[index].offset) for index, kind in kinds.items() if kind == _LOAD}
        copied_into = {buffers[index] for index, kind in kinds.items() if kind in (_LOAD, _CP_ASYNC)}
        kept: set[int] = set()
        for index, kind in kinds.items():
            buffer = buffers.get(index)
            if kind in (_ASYNC_READ, _USE_BARRIER):
                continue
            if buffer is None:
                pass  # a hand-off, fence, wait or commit: the kinds below all have a buffer
            elif kind == _READ:
                # A generic read matters only to a copy that may overwrite what it reads (PTX502).
                if (buffer.root, buffer.offset) not in loaded:
                    continue
            elif kind in (_WRITE, _HAND_OFF_WRITE):
                key = (buffer.root, buffer.offset)
                inside = any(buffer.overlaps(self.extent.get(index), read, size) for read, size in sized_reads)
                if key not in read_by_async and key not in loaded and buffer not in stores and not inside:
                    if kind == _WRITE:
                        continue
                    kinds[index] = _HAND_OFF  # an atomic still hands over what was written before
            elif kind in (_LOAD, _CP_ASYNC):
                if buffer not in used_exactly and (buffer.root, buffer.offset) not in read_by_async:
                    continue
            elif kind == _STORE:
                if buffer not in written_exactly and buffer not in copied_into:
                    continue
            elif kind == _INIT:
                if (buffer.root, buffer.offset) not in signalled:
                    continue
            kept.add(index)
        writes = any(kinds[index] in (_WRITE, _HAND_OFF_WRITE, _READ) for index in kept)
        inits = any(kinds[index] == _INIT for index in kept)
        copies = any(kinds[index] in (_LOAD, _CP_ASYNC, _STORE) for index in kept)
        if not (writes or inits or copies):
            return frozenset()
        needed = set()
        for index in kept:
            kind = kinds[index]
            if kind == _HAND_OFF and not writes and not (inits and index in self.cta_barriers):
                continue
            if kind == _FENCE and not (writes or inits):
                continue
            if kind == _INIT_FENCE and not inits:
                continue
            if kind in _GROUP_KINDS and not copies:
                continue
            if kind == _WAIT_BARRIER and not copies:
                continue
            needed.add(index)
        return frozenset(needed)

    def _buffer(self, kind: str, index: int, instruction: Instruction) -> Buffer | None:
        if kind in (_WRITE, _READ, _LOAD, _CP_ASYNC, _INIT, _WAIT_BARRIER):
            address = _first_address(instruction)
            return self.buffers.of_address(address, index) if address is not None else None
        if kind == _USE_BARRIER:
            address = _last_address(instruction)
            return self.buffers.of_address(address, index) if address is not None else None
        if kind in (_ASYNC_READ, _STORE):
            return _async_source(self.buffers, index, instruction)
        return None

    def _hand_off(self, payload: Payload) -> Payload:
        """A hand-off publishes this thread's unfenced accesses to the threads it lets go on:
        from then on the accessing thread's own fence no longer orders them for those threads.
        An access only one thread of the CTA makes (``lone``) stays its own: the path that
        reaches it again is that thread's, and its fence orders what it did."""
        if not (payload.unfenced or payload.fenced_late):
            return payload
        published = payload.unfenced - self.lone if self.lone else payload.unfenced
        return payload._replace(
            unfenced=payload.unfenced - published, handed_off=payload.handed_off | published, fenced_late=frozenset()
        )

    def step(self, index: int, instruction: Instruction, payload: Payload) -> Payload:
        kind = self.kinds[index]
        if kind == _CALL:
            return _NOTHING  # a callee may fence and wait for everything: assume it does
        if kind == _HAND_OFF_WRITE:  # an atomic on shared memory: publishes, then writes
            payload = self._hand_off(payload)
            return payload._replace(unfenced=payload.unfenced | {index})
        if kind == _WRITE or kind == _READ:
            return payload._replace(unfenced=payload.unfenced | {index})
        if kind == _HAND_OFF:
            return self._hand_off(payload)
        if kind == _FENCE:
            return payload._replace(
                unfenced=frozenset(),
                handed_off=frozenset(),
                fenced_late=payload.fenced_late | payload.handed_off,
                inits=frozenset(),
                inits_cta=payload.inits_cta | payload.inits,
            )
        if kind == _INIT_FENCE:
            return payload._replace(inits=frozenset(), inits_cta=frozenset())
        if kind == _INIT:
            return payload._replace(inits=payload.inits | {index})
        if kind == _LOAD:
            return self._overwritten(index, payload)._replace(loads=payload.loads | {index}, unwaited=payload.unwaited | {index})
        if kind == _CP_ASYNC:
            return payload._replace(cp_open=payload.cp_open | {index}, unwaited=payload.unwaited | {index})
        if kind == _STORE:
            return payload._replace(stores_open=payload.stores_open | {index}, unwaited=payload.unwaited | {index})
        if kind == _WAIT_BARRIER:
            return self._barrier_waited(index, payload)
        if kind == _CP_ARRIVE:  # cp.async.mbarrier.arrive: the barrier now tracks them
            copies = payload.cp_open.union(*payload.cp_groups)
            return payload._replace(loads=payload.loads | copies, cp_groups=(), cp_open=frozenset())
        if kind in (proxies.CP_ASYNC_COMMIT, proxies.BULK_COMMIT):
            return _committed(payload, kind == proxies.BULK_COMMIT)
        if kind in (proxies.CP_ASYNC_WAIT, proxies.BULK_WAIT, proxies.CP_ASYNC_WAIT_ALL):
            return _group_waited(payload, kind, _wait_count(instruction))
        return payload

    def _overwritten(self, index: int, payload: Payload) -> Payload:
        """A copy into a buffer supersedes the generic writes to it: what the async proxy reads
        there next is the copy's data."""
        buffer = self.buffer_of[index]
        def kept(writes: frozenset[int]) -> frozenset[int]:
            return frozenset(write for write in writes if not self.buffer_of[write].same(buffer))
        if not (payload.unfenced or payload.handed_off or payload.fenced_late):
            return payload
        return payload._replace(unfenced=kept(payload.unfenced), handed_off=kept(payload.handed_off), fenced_late=kept(payload.fenced_late))

    def _barrier_waited(self, index: int, payload: Payload) -> Payload:
        """A wait on an mbarrier completes the copies signalling it (any copy, when either
        barrier is unknown); every copy into shared memory has now seen a wait."""
        barrier = self.buffer_of.get(index)
        loads = frozenset(
            load for load in payload.loads
            if barrier is not None and load in self.barrier_of and not self.barrier_of[load].same(barrier)
        )
        unwaited = payload.unwaited - payload.loads
        if loads == payload.loads and unwaited == payload.unwaited:
            return payload
        return payload._replace(loads=loads, unwaited=unwaited)

    # -- as the path-sensitive analysis's PathPayloads

    def initial_payload(self) -> Payload:
        return _NOTHING

    def changing_instructions(self) -> frozenset[int]:
        return self.changing

    def observing_instructions(self) -> frozenset[int]:
        return frozenset()

    def observe(self, index: int, instruction: Instruction, payload: Payload) -> Payload:
        return payload

    def meeting_instructions(self) -> frozenset[int]:
        return self.cta_barriers

    def meet(self, payloads: Sequence[Payload]) -> Sequence[Payload] | None:
        """At a barrier every thread of the CTA meets, the `mbarrier.init`s some thread made
        unfenced before it are every path's: a producer warp that never ran the init still
        signals the barrier it initialised."""
        inits = frozenset().union(*(payload.inits for payload in payloads))
        inits_cta = frozenset().union(*(payload.inits_cta for payload in payloads))
        if not inits and not inits_cta:
            return None
        return [payload._replace(inits=payload.inits | inits, inits_cta=payload.inits_cta | inits_cta) for payload in payloads]

    def collapse(self, payloads: Iterable[Payload]) -> Payload:
        payloads = list(payloads)

        def union(field: str) -> frozenset[int]:
            return frozenset().union(*(getattr(payload, field) for payload in payloads))

        return Payload(
            union("unfenced"), union("handed_off"), union("fenced_late"), union("loads"),
            (frozenset().union(*(frozenset().union(*payload.cp_groups) for payload in payloads)),),
            union("cp_open"),
            (frozenset().union(*(frozenset().union(*payload.stores) for payload in payloads)),),
            union("stores_open"), union("unwaited"), union("inits"), union("inits_cta"),
        )

    def covers(self, summary: Payload, payload: Payload) -> bool:
        return all(
            # zip pairs each field with the same field: groups with groups, a set with a set.
            frozenset().union(*mine) <= frozenset().union(*theirs) if isinstance(mine, tuple) else mine <= theirs  # type: ignore[arg-type,operator]
            for mine, theirs in zip(payload, summary)
        )


def _join_payloads(first: Payload, second: Payload) -> Payload:
    """Field by field: groups joined from the newest back, sets united."""
    # zip pairs each field with the same field: groups with groups, a set with a set.
    return Payload(*(  # type: ignore[arg-type]
        join_groups(mine, theirs) if isinstance(mine, tuple) else mine | theirs for mine, theirs in zip(first, second)  # type: ignore[arg-type,operator]
    ))


# What an instruction is to the analysis.
_WRITE, _HAND_OFF_WRITE, _READ, _ASYNC_READ, _LOAD, _CP_ASYNC, _STORE = "write", "atomic", "read", "async read", "load", "cp.async", "store"

_HAND_OFF, _FENCE, _INIT_FENCE, _INIT, _WAIT_BARRIER, _USE_BARRIER, _CP_ARRIVE, _CALL = (
    "hand-off", "fence", "init fence", "init", "barrier wait", "barrier use", "cp.async arrive", "call",
)
_GROUP_KINDS = frozenset({proxies.CP_ASYNC_COMMIT, proxies.BULK_COMMIT, proxies.CP_ASYNC_WAIT, proxies.BULK_WAIT, proxies.CP_ASYNC_WAIT_ALL, _CP_ARRIVE})
# The opcode bases of the instructions the analysis follows (shared-memory accesses, fences,
# calls and every hand-off): the rest (arithmetic, moves, comparisons, most of a kernel) are not
# classified at all.
_FOLLOWED_BASES = frozenset({"call", "fence", "stmatrix", "ld", "ldmatrix", "wgmma"}) | HAND_OFF_BASES
# Kinds followed only with a known buffer.
_NEEDS_BUFFER = frozenset({_WRITE, _HAND_OFF_WRITE, _READ, _ASYNC_READ, _LOAD, _CP_ASYNC, _STORE, _INIT, _USE_BARRIER})


def _kind(instruction: Instruction, in_kernel: bool) -> str | None:
    opcode = instruction.opcode
    base, modifiers = opcode.base, opcode.modifiers
    if base == "call":
        return _CALL
    group = proxies.group_instruction(base, modifiers)
    if group is not None:
        return group
    if base == "cp" and "mbarrier" in modifiers and "arrive" in modifiers:
        return _CP_ARRIVE
    if proxies.is_proxy_fence(base, modifiers):
        return _FENCE
    if proxies.is_mbarrier_init_fence(base, modifiers):
        return _INIT_FENCE
    if proxies.is_mbarrier_init(base, modifiers):
        return _INIT
    if proxies.is_mbarrier_wait(base, modifiers):
        return _WAIT_BARRIER
    shared = proxies.access(base, modifiers)
    if shared is Access.GENERIC_WRITE:
        return _HAND_OFF_WRITE if hand_off(base, modifiers, in_kernel) is not None else _WRITE
    if shared is Access.GENERIC_READ:
        return _READ
    if shared is Access.ASYNC_READ:
        return _STORE if proxies.completes_in_bulk_group(base, modifiers) else _ASYNC_READ
    if shared is Access.ASYNC_LOAD:
        return _LOAD
    if shared is Access.CP_ASYNC:
        return _CP_ASYNC
    if proxies.uses_barrier_from_async_proxy(base, modifiers):
        return _USE_BARRIER
    if hand_off(base, modifiers, in_kernel) is not None:
        return _HAND_OFF
    return None


_TYPE_BYTES = {"8": 1, "16": 2, "32": 4, "64": 8, "128": 16}


def _extent(instruction: Instruction, kind: str) -> int | None:
    """The bytes a generic store writes (its type times its vector width) or a non-tensor bulk
    copy from shared memory reads (its constant size operand); None where not fixed here."""
    modifiers = instruction.opcode.modifiers
    if kind == _WRITE and instruction.opcode.base == "st":
        width = next((int(modifier[1:]) for modifier in modifiers if modifier in ("v2", "v4", "v8")), 1)
        bits = next((modifier[1:] for modifier in reversed(modifiers) if modifier[:1] in "bsuf" and modifier[1:] in _TYPE_BYTES), None)
        return width * _TYPE_BYTES[bits] if bits is not None else None
    if kind in (_STORE, _ASYNC_READ) and instruction.opcode.base == "cp" and "tensor" not in modifiers:
        operands = instruction.operands
        size = operands[2] if len(operands) > 2 else None
        return size.value if type(size) is Immediate and type(size.value) is int else None
    return None


def _meets_every_thread(instruction: Instruction) -> bool:
    """A barrier all the CTA's threads meet: `bar.sync`/`barrier.sync` with no thread count
    (`bar.sync 0`, `__syncthreads()`), or the cluster barrier (its arrive: what an init must
    come before)."""
    base, modifiers = instruction.opcode.base, instruction.opcode.modifiers
    if is_cluster_barrier(base, modifiers):
        return "arrive" in modifiers
    barrier = cta_barrier_of(instruction)
    return barrier is not None and barrier.operation == "sync" and barrier.identifier is not None and barrier.whole_cta




def _committed(payload: Payload, bulk: bool) -> Payload:
    groups, open_ = (payload.stores, payload.stores_open) if bulk else (payload.cp_groups, payload.cp_open)
    groups = groups + (open_,)
    if len(groups) > _MAX_GROUPS:
        groups = (groups[0] | groups[1],) + groups[2:]
    if bulk:
        return payload._replace(stores=groups, stores_open=frozenset())
    return payload._replace(cp_groups=groups, cp_open=frozenset())


def _group_waited(payload: Payload, kind: str, count: int | None) -> Payload:
    """`wait_group N` retires every committed group but the N most recent (all of them and the
    uncommitted copies too for `cp.async.wait_all`); an unknown N retires nothing, but counts as
    a wait."""
    bulk = kind == proxies.BULK_WAIT
    groups = payload.stores if bulk else payload.cp_groups
    open_ = payload.stores_open if bulk else payload.cp_open
    if kind == proxies.CP_ASYNC_WAIT_ALL:
        kept, open_ = (), frozenset()
    elif count is None:
        kept = groups
    else:
        kept = groups[len(groups) - count:] if 0 < count < len(groups) else (groups if count else ())
    everything = open_.union(*groups)
    unwaited = payload.unwaited - everything
    if bulk:
        return payload._replace(stores=kept, unwaited=unwaited)
    return payload._replace(cp_groups=kept, cp_open=open_, unwaited=unwaited)


def _wait_count(instruction: Instruction) -> int | None:
    for operand in instruction.operands:
        if type(operand) is Immediate and type(operand.value) is int:
            return operand.value
    return None


def _first_address(instruction: Instruction) -> Address | None:
    for operand in instruction.operands:
        if type(operand) is Address:
            return operand
    return None


def _last_address(instruction: Instruction) -> Address | None:
    for operand in reversed(instruction.operands):
        if type(operand) is Address:
            return operand
    return None


def _async_source(buffers: SharedBuffers, index: int, instruction: Instruction) -> Buffer | None:
    """The shared memory an async-proxy read reads: a bulk copy's source address (its second
    operand), or the first matrix descriptor of `wgmma`/`tcgen05` with a known buffer."""
    found = _async_sources(buffers, index, instruction)
    return found[0] if found else None


def _async_sources(buffers: SharedBuffers, index: int, instruction: Instruction) -> list[Buffer]:
    """Every buffer an async-proxy read reads (`wgmma` reads A and B)."""
    operands = instruction.operands
    if instruction.opcode.base == "cp":
        buffer = buffers.of_address(operands[1], index) if len(operands) > 1 and type(operands[1]) is Address else None
        return [buffer] if buffer is not None else []
    found = []
    for operand in operands[instruction.destination_count:]:
        if type(operand) is Register:
            buffer = buffers.of_descriptor(operand, index)
            if buffer is not None:
                found.append(buffer)
    return found


# ----------------------------------------------------------------------------- the result


class AsyncProxyFacts:
    """The `async_proxy` pass on one function, as answers to the PTX501–504 questions."""

    def __init__(
        self,
        classification: _Classification | None = None,
        branches: BranchTable | None = None,
        analysis: PathSensitiveAnalysis[Payload] | None = None,
        solution: Solution[PathState[Payload]] | None = None,
    ) -> None:
        """No ``classification``: nothing asynchronous to follow. No ``analysis``: the screen
        found no hazard, so every question's answer is none."""
        self._classes = classification
        self._branches = branches
        self._analysis = analysis
        self._solution = solution
        self._state_before = StatesBefore(solution, analysis) if analysis is not None and solution is not None else None
        self._roles: ThreadReach | None = None  # which threads execute what, where there are findings

    def who(self, index: int) -> str | None:
        """Which threads execute instruction ``index``, for the rules' labels: "one thread of
        warp 3", "warps 4-7"; None where every warp may, or nothing is known."""
        roles = self._roles
        if roles is None or self._classes is None:
            return None
        warps = roles.warps_at(index, self._classes.function.instructions[index])
        if not warps or warps == roles.everyone:
            return None
        if roles.alone(index):
            return f"one thread of warp {ranges(warps)}"
        return f"warp {ranges(warps)}" if warps & (warps - 1) == 0 else f"warps {ranges(warps)}"

    def instructions(self, *kinds: str) -> list[int]:
        """The indices of the instructions of the given kinds (``"async read"``, ``"read"``,
        ``"write"``, ``"barrier use"``, …) whose buffer is known, in order."""
        classes = self._classes
        if self._analysis is None or classes is None:
            return []  # nothing to follow, or nothing the screen found a hazard for
        return sorted(index for index, kind in classes.kinds.items() if kind in kinds)

    def kind(self, index: int) -> str | None:
        return self._classes.kinds.get(index) if self._classes is not None else None

    def buffer(self, index: int) -> Buffer | None:
        return self._classes.buffer_of.get(index) if self._classes is not None else None

    def buffer_written(self, index: int) -> Buffer | None:
        """The buffer a generic write, copy or `mbarrier.init` at ``index`` writes."""
        return self.buffer(index)

    def barrier(self, index: int) -> Buffer | None:
        """The mbarrier instruction ``index`` signals: a copy's, or a `tcgen05.commit`'s."""
        if self._classes is None:
            return None
        if self._classes.kinds.get(index) == _LOAD:
            return self._classes.barrier_of.get(index)
        return self._classes.buffer_of.get(index) if self._classes.kinds.get(index) == _USE_BARRIER else None

    def unfenced_writes(self, index: int) -> list[WriteHazard]:
        """The generic writes to the buffer instruction ``index`` reads through the async proxy
        that the async proxy may not see there: not followed by a proxy fence in the writing
        thread before the hand-off, or at all."""
        buffer = self.buffer(index)
        if self._classes is None or buffer is None:
            return []
        read = [buffer, *self._classes.also_reads.get(index, ())]
        return self._unfenced(index, read, (_WRITE, _HAND_OFF_WRITE))

    def unfenced_accesses(self, index: int) -> list[WriteHazard]:
        """The generic reads and writes of the buffer the copy at ``index`` writes through the
        async proxy that no proxy fence orders before it: none in the accessing thread before
        the hand-off that releases the buffer, and none in the copying thread after it."""
        buffer = self.buffer(index)
        if buffer is None:
            return []
        return self._unfenced(index, [buffer], (_READ, _WRITE, _HAND_OFF_WRITE), fence_after_hand_off=True)

    def _unfenced(
        self, index: int, buffers: list[Buffer], kinds: tuple[str, ...], fence_after_hand_off: bool = False
    ) -> list[WriteHazard]:
        """``fence_after_hand_off``: a fence the thread executes after the hand-off and before
        ``index`` orders the accesses handed to it (for a copy that overwrites what others read:
        the barrier orders their reads before the fence, which orders them before the copy)."""
        classes = self._classes
        if classes is None:
            return []

        reach = classes.extent.get(index)
        read_from = classes.buffer_of.get(index)

        def conflicts(access: int) -> bool:
            if classes.kinds[access] not in kinds:
                return False
            written = classes.buffer_of[access]
            if any(written.same(buffer) for buffer in buffers):
                return True
            return read_from is not None and written.overlaps(classes.extent.get(access), read_from, reach)

        found: dict[int, bool] = {}
        for payload in self._payloads(index):
            for access in payload.unfenced:
                if conflicts(access):
                    found.setdefault(access, False)
            for access in payload.handed_off if fence_after_hand_off else payload.handed_off | payload.fenced_late:
                if conflicts(access):
                    found[access] = True
        return [WriteHazard(access, handed_off) for access, handed_off in sorted(found.items())]

    def incomplete_copies(self, index: int) -> list[CopyHazard]:
        """The copies into the address instruction ``index`` reads that are not known complete
        there on *any* path (a wait skipped on some path only is not reported: the skip is
        usually correlated with the use, in ways the path conditions cannot see): the same
        address expression (a different stage picked by the same counter cannot be told from
        this one), never waited for since, or, for a constant address, not retired by the waits
        since."""
        return self._on_every_path(index, lambda payload: payload.loads.union(payload.cp_open, *payload.cp_groups))

    def unfinished_store_sources(self, index: int) -> list[CopyHazard]:
        """The bulk copies still reading the address instruction ``index`` writes, on every path
        there (never waited for, or, with a constant address, not retired by the waits since)."""
        return self._on_every_path(index, lambda payload: payload.stores_open.union(*payload.stores))

    def _on_every_path(self, index: int, pending: Callable[[Payload], frozenset[int]]) -> list[CopyHazard]:
        classes, buffer = self._classes, self.buffer(index)
        if classes is None or buffer is None:
            return []
        found: dict[int, bool] | None = None
        for payload in self._payloads(index):
            here: dict[int, bool] = {}
            for copy in pending(payload):
                other = classes.buffer_of[copy]
                if not other.identical(buffer):
                    continue
                if copy in payload.unwaited:
                    here[copy] = False
                elif other.exact:
                    here[copy] = True
            if found is None:
                found = here
            else:
                found = {copy: waited or here[copy] for copy, waited in found.items() if copy in here}
            if not found:
                return []
        return [CopyHazard(copy, waited) for copy, waited in sorted((found or {}).items())]

    def unfenced_inits(self, index: int, across_ctas: bool) -> list[int]:
        """The `mbarrier.init`s of the barrier instruction ``index`` signals through the async
        proxy that no fence made visible to it (``across_ctas``: no `fence.mbarrier_init`; a
        proxy fence is enough within the CTA)."""
        classes, buffer = self._classes, self.barrier(index)
        if classes is None or buffer is None:
            return []
        found: set[int] = set()
        for payload in self._payloads(index):
            for init in payload.inits | (payload.inits_cta if across_ctas else frozenset()):
                if classes.buffer_of[init].same(buffer):
                    found.add(init)
        return sorted(found)

    def witness(self, origin: int, index: int, *carried: str) -> list[BranchStep]:
        """The branches of a feasible path from ``origin`` to instruction ``index`` along which
        ``origin`` stays in one of the payload fields ``carried``."""
        analysis, solution, branches = self._analysis, self._solution, self._branches
        if analysis is None or solution is None or branches is None:
            return []  # no path classes: nothing was found to explain
        graph = solution.cfg
        if graph.block_of(origin) == graph.block_of(index) and origin < index:
            return []

        def carries(source: int, target: int) -> bool:
            state = solution.block_exit.get(source)
            if not state:
                return False
            return any(
                origin in _field(payload, name) for payload, _ in analysis.refine(source, target, state) for name in carried
            )

        path = witness_path(graph, carries, origin, graph.block_of(index))
        return branch_steps(graph, branches, path)

    def has_hazard(self) -> bool:
        """Whether any question has an answer: what the screen asks of itself."""
        classes = self._classes
        if classes is None:
            return False
        for index, kind in classes.kinds.items():
            if kind in (_ASYNC_READ, _STORE) and self.unfenced_writes(index):
                return True
            if kind == _LOAD and self.unfenced_accesses(index):
                return True
            if kind in (_LOAD, _USE_BARRIER) and self.unfenced_inits(index, True):
                return True
            if kind in (_READ, _ASYNC_READ) and self.incomplete_copies(index):
                return True
            if kind in (_WRITE, _HAND_OFF_WRITE, _LOAD, _CP_ASYNC) and self.unfinished_store_sources(index):
                return True
        return False

    def reachable(self, index: int) -> bool:
        return self._state_before is not None and self._state_before(index) is not None

    def _payloads(self, index: int) -> list[Payload]:
        analysis, classes = self._analysis, self._classes
        if self._state_before is None or analysis is None or classes is None:
            return []
        state = self._state_before(index)
        if not state:
            return []
        instruction = classes.function.instructions[index]
        return [payload for payload, _ in analysis.assume_guard(index, instruction, state)]


class _ScreenFacts(AsyncProxyFacts):
    """The questions asked of the screen's solution (one payload per point, no witnesses)."""

    def __init__(self, classification: _Classification, screen: Screen[Payload], solution: Solution[Payload | None]) -> None:
        super().__init__(classification)
        self._screen_before = StatesBefore(solution, screen)

    def reachable(self, index: int) -> bool:
        return self._screen_before(index) is not None

    def _payloads(self, index: int) -> list[Payload]:
        state = self._screen_before(index)
        return [state] if state else []  # the one joined payload


def _field(payload: Payload, name: str) -> frozenset[int]:
    value = getattr(payload, name)
    return frozenset().union(*value) if isinstance(value, tuple) else value


def _run(context: ModuleContext, function: Function) -> AsyncProxyFacts:
    if not context.result("async_scan").starts_async_work(function):
        return AsyncProxyFacts()
    classification = _Classification(function, context.result("shared_buffers", function))
    if not classification.changing:
        return AsyncProxyFacts()
    graph = context.result("cfg", function)
    screen = Screen(graph, classification, _join_payloads)
    screened = _ScreenFacts(classification, screen, solve_forward(graph, screen))
    if not screened.has_hazard():
        return screened  # its questions answer nothing; its states still print
    roles = context.result("roles", function)
    classification.lone = frozenset(
        index for index, kind in classification.kinds.items() if kind in (_WRITE, _HAND_OFF_WRITE, _READ) and roles.alone(index)
    )
    branches: BranchTable = context.result("warp_branches", function)
    analysis = PathSensitiveAnalysis(branches, classification)
    facts = AsyncProxyFacts(classification, branches, analysis, solve_forward(branches.cfg, analysis))
    facts._roles = roles
    return facts


def _describe(facts: AsyncProxyFacts, function: Function) -> Describe | None:
    """Before each instruction, over every path class (over all paths at once where the screen
    found no hazard): unfenced generic accesses, copies in flight and unfenced inits, by line
    (``unfenced @12 handed-off @14 loads @20``)."""
    if facts._classes is None:
        return None
    instructions = function.instructions

    def describe(index: int, instruction: Instruction) -> str:
        if not facts.reachable(index):
            return "unreachable"
        payloads = facts._payloads(index)
        parts = []
        for name in ("unfenced", "handed_off", "fenced_late", "loads", "cp_groups", "cp_open", "stores", "stores_open", "inits", "inits_cta"):
            found = sorted({at for payload in payloads for at in _field(payload, name)})
            if found:
                parts.append(name.replace("_", "-") + " " + " ".join(f"@{instructions[at].span.line}" for at in found))
        return " ".join(parts) or "-"

    return describe


PASSES = (
    Pass(
        "async_proxy",
        "shared memory written without a proxy fence, asynchronous copies not waited for and unfenced `mbarrier.init`s, per path",
        _run,
        per_function=True,
        requires=("async_scan", "cfg", "warp_branches", "shared_buffers", "roles"),
        printer=_describe,
    ),
)
