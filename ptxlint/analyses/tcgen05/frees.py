"""Which tensor-memory accesses of other warps (or of the peer CTA) nothing orders before a
`tcgen05.dealloc`: the `tcgen05_frees` pass.

A dealloc executed by warps W (from `roles`) frees columns that an access by another warp may
still be using unless something made the freeing thread wait for that warp after its access: a
CTA barrier that waits (`bar.sync`, `bar.red`, `barrier.sync`: every participant arrives before
any leaves) or a wait on an mbarrier the accessing warps arrive on (CUTLASS's
`tmem_deallocation` barrier, DeepGEMM's `tmem_empty`: the other warps arrive after their last
access, the freeing warp waits; see :class:`_Waits`). For a `.cta_group::2` dealloc, MMAs
and copies issued for the pair also write the peer CTA's tensor memory, and only a cluster
barrier or an mbarrier wait (which can be signalled from the peer) orders them; a CTA barrier
does not.

Per dealloc, one backward walk over the CFG collects the region from which the dealloc is
reachable without passing such a wait (a call is taken to wait: its body may). An access races
with the dealloc when it lies in that region (a path runs from it to the dealloc with nothing
that waits), or when a block of the region dominates it and ends in a branch that splits by
warp, sending accessing warps only towards the access and freeing warps into the region: the
warps went their separate ways there, and nothing on the freeing warp's way waits. Only
warps the roles prove are not the freeing ones count: an access the freeing warp makes itself
is ordered by program order (and its completion is PTX202's). An access whose address the warp
values place in another allocation than the dealloc's (another `tcgen05.alloc` slot) is no race
with it.
"""

from __future__ import annotations

from typing import Iterable, NamedTuple

from ptxlint.analyses.path_witness import BranchStep, branch_steps, witness_path
from ptxlint.analyses.threads.lane_sets import ranges
from ptxlint.analyses.threads.branch_sides import BranchTable, all_warps
from ptxlint.analyses.threads.reach import ThreadReach
from ptxlint.analyses.asynchronous.shared_buffers import Buffer, SharedBuffers
from ptxlint.analyses.tcgen05.scan import TensorMemoryScan
from ptxlint.cfg import ControlFlowGraph
from ptxlint.context import ModuleContext
from ptxlint.ir import Address, Function, Instruction
from ptxlint.isa.proxies import is_mbarrier_wait
from ptxlint.isa.tcgen05 import operation
from ptxlint.passes import Describe, Pass

# The tcgen05 operations that read or write allocated columns.
_ACCESSES = frozenset({"ld", "st", "mma", "cp", "shift"})
# Those that, with `.cta_group::2`, also touch the peer CTA's tensor memory.
_PAIR_ACCESSES = frozenset({"mma", "cp", "shift"})


class FreeRace(NamedTuple):
    """An access that nothing orders before a dealloc."""

    dealloc: int
    access: int
    other_warps: int  # the warps that may make the access and do not free (0 for a peer CTA's)
    freeing_warps: int
    peer_cta: bool  # the access is the peer CTA's (`.cta_group::2`), not another warp's
    steps: tuple[BranchStep, ...]  # the branches of a path from the access (or the block it shares with the dealloc) to the dealloc


class TensorMemoryFrees:
    """The `tcgen05_frees` pass on one function: per dealloc, the accesses that may race with it."""

    def __init__(self, races: tuple[FreeRace, ...]) -> None:
        self._races = races

    def races(self) -> tuple[FreeRace, ...]:
        """Every (dealloc, access) pair that may race, by dealloc then access."""
        return self._races

    def races_at(self, dealloc: int) -> tuple[FreeRace, ...]:
        return tuple(race for race in self._races if race.dealloc == dealloc)


_NONE = TensorMemoryFrees(())


def _cta_group(instruction: Instruction) -> int:
    return 2 if "cta_group::2" in instruction.opcode.modifiers else 1


class _Waits:
    """Which instructions make the freeing thread wait for other warps' earlier work: a waiting
    CTA barrier (not for a CTA pair: it does not reach the peer), a cluster barrier wait, a call
    (its body may wait), and an mbarrier wait on a barrier those warps may arrive on
    (`mbarrier.arrive` in any form, `cp.async.mbarrier.arrive`, `tcgen05.commit`): a wait on a
    barrier only others signal (the operands' TMA barrier) orders nothing of theirs. A barrier
    whose identity is unknown, or an arrive on an unknown one, counts for every warp."""

    def __init__(self, function: Function, roles: ThreadReach, buffers: SharedBuffers, barrier_waits: frozenset[int]) -> None:
        instructions = function.instructions
        everyone = roles.everyone
        self._cta_barriers = barrier_waits
        self._always: set[int] = set()
        waits: dict[int, Buffer | None] = {}
        arrivals: dict[tuple[str, int], int] = {}
        unknown_arrivals = 0
        for index, instruction in enumerate(instructions):
            opcode = instruction.opcode
            base = opcode.base
            if base == "call":
                self._always.add(index)
            elif base == "barrier" and opcode.modifiers[:1] == ("cluster",):
                if "wait" in opcode.modifiers:
                    self._always.add(index)
            elif base == "mbarrier" and is_mbarrier_wait(base, opcode.modifiers):
                waits[index] = _barrier_of(instruction, index, buffers)
            elif _arrives(instruction):
                warps = roles.warps_at(index, instruction) if roles.reachable(index) else 0
                buffer = _barrier_of(instruction, index, buffers)
                if buffer is None:
                    unknown_arrivals |= warps
                else:
                    key = (buffer.root, buffer.offset)
                    arrivals[key] = arrivals.get(key, 0) | warps
        # Per mbarrier wait, the warps whose arrivals it may be waiting for.
        self._mbarrier_waits = {
            index: everyone if buffer is None else arrivals.get((buffer.root, buffer.offset), 0) | unknown_arrivals
            for index, buffer in waits.items()
        }

    def at(self, index: int, warps: int, cluster_only: bool) -> bool:
        """Whether instruction ``index`` waits for work of ``warps`` (0: of anyone)."""
        if index in self._always:
            return True
        signalled = self._mbarrier_waits.get(index)
        if signalled is not None:
            return not warps or bool(signalled & warps)
        return not cluster_only and index in self._cta_barriers


def _arrives(instruction: Instruction) -> bool:
    opcode = instruction.opcode
    base, modifiers = opcode.base, opcode.modifiers
    if base == "mbarrier":
        return bool(modifiers) and modifiers[0].startswith("arrive")
    if base == "cp":
        return "mbarrier" in modifiers and "arrive" in modifiers
    return base == "tcgen05" and modifiers[:1] == ("commit",)


def _barrier_of(instruction: Instruction, index: int, buffers: SharedBuffers) -> Buffer | None:
    """The mbarrier an arrive, commit or wait names (its address operand), where known."""
    for operand in instruction.operands:
        if type(operand) is Address:
            return buffers.of_address(operand, index)
    return None


class _Region(NamedTuple):
    """The part of the CFG from which a dealloc is reachable with nothing that waits: per block,
    the first instruction of it inside the region (its whole tail from there); the dealloc's own
    block also as the stretch just before the dealloc."""

    tails: dict[int, int]  # block → first index in the region, for blocks left through their end
    before: int  # first index of the stretch of the dealloc's block before it


def _region(cfg: ControlFlowGraph, waits: _Waits, dealloc: int, warps: int, cluster_only: bool) -> _Region:
    """The region of ``dealloc`` for accesses by ``warps`` (0: the peer CTA's, whatever warp)."""
    blocks = cfg.blocks

    def open_start(block: int, stop: int) -> tuple[int, bool]:
        """The first index of [block start, stop) after the last instruction that waits, and
        whether nothing there waits (the walk goes on to the predecessors)."""
        start = blocks[block].start
        for position in range(stop - 1, start - 1, -1):
            if waits.at(position, warps, cluster_only):
                return position + 1, False
        return start, True

    home = cfg.block_of(dealloc)
    before, onwards = open_start(home, dealloc)
    tails: dict[int, int] = {}
    work = list(cfg.predecessors(home)) if onwards else []
    while work:
        block = work.pop()
        if block in tails or block == cfg.exit or block >= len(blocks):
            continue
        start, onwards = open_start(block, blocks[block].end)
        tails[block] = start
        if onwards:
            work.extend(cfg.predecessors(block))
    return _Region(tails, before)


def _races(context: ModuleContext, function: Function) -> TensorMemoryFrees:
    scan: TensorMemoryScan = context.result("tcgen05_scan")
    instructions = function.instructions
    deallocs: list[int] = []
    accesses: list[int] = []
    for index in scan.instructions(function):
        opcode = instructions[index].opcode
        performed = operation(opcode.base, opcode.modifiers)
        if performed == "dealloc":
            deallocs.append(index)
        elif performed in _ACCESSES:
            accesses.append(index)
    if not deallocs or not accesses:
        return _NONE
    roles: ThreadReach = context.result("roles", function)
    branches: BranchTable = context.result("warp_branches", function)
    cfg: ControlFlowGraph = branches.cfg
    barrier_waits = frozenset(use.index for use in context.result("barriers", function) if use.waits)
    waits = _Waits(function, roles, context.result("shared_buffers", function), barrier_waits)
    accessing = [
        (access, roles.warps_at(access, instructions[access])) for access in accesses if roles.reachable(access)
    ]
    known_slots: dict[int, frozenset[str]] = {}

    def slots(index: int) -> frozenset[str]:
        """Asked only of the pairs that would race otherwise: evaluating addresses costs."""
        if index not in known_slots:
            known_slots[index] = _slots(roles, index, instructions[index])
        return known_slots[index]

    def other_allocation(dealloc: int, access: int) -> bool:
        return bool(slots(dealloc)) and bool(slots(access)) and slots(dealloc).isdisjoint(slots(access))

    found: list[FreeRace] = []
    for dealloc in deallocs:
        freeing = instructions[dealloc]
        if not roles.reachable(dealloc):
            continue
        freeing_warps = roles.warps_at(dealloc, freeing)
        if not freeing_warps:
            continue
        pair = _cta_group(freeing) == 2
        # Regions and role forks per set of accessing warps: which mbarrier waits order an
        # access depends on who arrives there.
        regions: dict[int, tuple[_Region, list[tuple[int, int]]]] = {}
        pair_region = _region(cfg, waits, dealloc, 0, True) if pair else None
        for access, warps in accessing:
            instruction = instructions[access]
            if pair_region is not None and warps and _cta_group(instruction) == 2 and (
                operation(instruction.opcode.base, instruction.opcode.modifiers) in _PAIR_ACCESSES
            ):
                # The peer CTA runs the same code: only a path from the access itself counts.
                origin = _unordered(cfg, pair_region, (), dealloc, access, 0)
                if origin is not None and not other_allocation(dealloc, access):
                    found.append(FreeRace(dealloc, access, 0, freeing_warps, True, _steps(cfg, branches, pair_region, origin, dealloc)))
                    continue
            others = warps & ~freeing_warps
            if others:
                if others not in regions:
                    region = _region(cfg, waits, dealloc, others, False)
                    regions[others] = (region, _forks(cfg, branches, region, dealloc, freeing_warps))
                region, forks = regions[others]
                origin = _unordered(cfg, region, forks, dealloc, access, others)
                if origin is not None and not other_allocation(dealloc, access):
                    found.append(FreeRace(dealloc, access, others, freeing_warps, False, _steps(cfg, branches, region, origin, dealloc)))
    return TensorMemoryFrees(tuple(found)) if found else _NONE


def _slots(roles: ThreadReach, index: int, instruction: Instruction) -> frozenset[str]:
    """The allocations (by the shared-memory slot `tcgen05.alloc` wrote the address to) the TMEM
    address operand of instruction ``index`` may point into, in the warps that execute it; empty
    when some warp's is not known."""
    operand = next((operand for operand in instruction.operands if type(operand) is Address), None)
    if operand is None:
        operand = instruction.operands[0] if instruction.operands else None  # the dealloc's `taddr`
    warps = roles.warps_at(index, instruction)
    if operand is None or not warps:
        return frozenset()
    known = roles.tensor_addresses(index, operand, warps)
    if len(known) != bin(warps).count("1"):
        return frozenset()
    return frozenset(address.slot for _, address in known)


def _forks(cfg: ControlFlowGraph, branches: BranchTable, region: _Region, dealloc: int, freeing: int) -> list[tuple[int, int]]:
    """The role branches of the region: (block, warps that may go in) for each region block whose
    branch sends some freeing warps into the region, keeps other warps out, and from whose inward
    side no path to the dealloc waits (on a path that does, the freeing warp may wait for the
    very warps that took the other side; a loop on both sides that runs no iteration is what
    leaves a wait-free path beside it)."""
    home = cfg.block_of(dealloc)
    if region.before != cfg.blocks[home].start:
        return []
    everyone = all_warps(branches.warp_count)
    forks = []
    free_from: dict[int, bool] = {}
    for block in sorted(region.tails):
        branch = branches.branch(block)
        if branch is None:
            continue
        for inward in cfg.successors(block):
            if inward != home and inward not in region.tails:
                continue
            into = branch.warps_to(inward)
            if not freeing & into or not everyone & ~into:
                continue
            if inward not in free_from:
                free_from[inward] = _every_path_free(cfg, region, inward, home)
            if free_from[inward]:
                forks.append((block, into))
    return forks


def _unordered(cfg: ControlFlowGraph, region: _Region, forks: Iterable[tuple[int, int]], dealloc: int, access: int, others: int) -> int | None:
    """Where the path the witness shows starts, if nothing that waits orders ``access`` before
    ``dealloc`` for the freeing thread: the access itself when a path runs from it to the
    dealloc through the region; else the branch of a role fork (:func:`_forks`) that dominates
    the access and keeps ``others`` (some of the accessing warps) out of the region. None when
    neither, or when the access comes after the dealloc on every path (a use after the free,
    not a race with it)."""
    block = cfg.block_of(access)
    home = cfg.block_of(dealloc)
    if block == home and region.before <= access < dealloc:
        return access
    start = region.tails.get(block)
    if start is not None and access >= start:
        return access
    if (block == home and access > dealloc) or (block != home and cfg.dominates(home, block)):
        return None
    for fork, into in forks:
        if fork != block and others & ~into and cfg.dominates(fork, block):
            return cfg.blocks[fork].end - 1
    return None


def _every_path_free(cfg: ControlFlowGraph, region: _Region, inward: int, home: int) -> bool:
    """Whether no path from block ``inward`` to the dealloc's block waits."""
    towards = cfg.reaching([home])
    blocks = cfg.blocks
    seen = {inward}
    work = [inward]
    while work:
        block = work.pop()
        if block == home:
            continue
        if region.tails.get(block) != blocks[block].start:
            return False
        for successor in cfg.successors(block):
            if successor in towards and successor not in seen:
                seen.add(successor)
                work.append(successor)
    return True


def _steps(cfg: ControlFlowGraph, branches: BranchTable, region: _Region, origin: int, dealloc: int) -> tuple[BranchStep, ...]:
    home = cfg.block_of(dealloc)
    if cfg.block_of(origin) == home and origin < dealloc:
        return ()
    inside = set(region.tails) | {home}
    path = witness_path(cfg, lambda source, target: source in inside and target in inside, origin, home)
    return tuple(branch_steps(cfg, branches, path))


def _describe(frees: TensorMemoryFrees, function: Function) -> Describe | None:
    """At each dealloc: the accesses that may race with it, by the line that issued them and the
    other warps making them (``races ld@36 (warps 1-3)``, ``races mma@289 (peer CTA)``)."""
    races = frees.races()
    if not races:
        return None
    instructions = function.instructions

    def describe(index: int, instruction: Instruction) -> str:
        here = [race for race in races if race.dealloc == index]
        if not here:
            return ""
        parts = []
        for race in here:
            accessing = instructions[race.access]
            who = "peer CTA" if race.peer_cta else f"warps {ranges(race.other_warps)}"
            parts.append(f"{accessing.opcode.modifiers[0]}@{accessing.span.line} ({who})")
        return "races " + " ".join(parts)

    return describe


PASSES = (
    Pass(
        "tcgen05_frees",
        "the tensor-memory accesses of other warps (or the peer CTA) nothing orders before a `tcgen05.dealloc`",
        _races,
        per_function=True,
        requires=("tcgen05_scan", "roles", "warp_branches", "barriers", "shared_buffers"),
        printer=_describe,
    ),
)
