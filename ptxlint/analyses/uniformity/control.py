"""Control divergence: which divergent branches enclose each point and how divergent the control
an instruction runs under is, which threads take each edge, and the exits other threads took.
Where the threads a branch splits meet again is the sync dependence's question (``sync.py``).

:class:`ControlDivergence` owns the divergence objects it made (one per cause, so that states
compare by identity), the threads that left each branch and entered each loop with one way
out, and its caches; it asks the data transfer for the values of conditions."""

from __future__ import annotations

from dataclasses import replace

from ptxlint import ir
from ptxlint.analyses.threads.tid_fields import Level, TidBound, TidSet
from ptxlint.analyses.threads.lane_sets import Threads, ThreadSpace
from ptxlint.analyses.uniformity.branches import BranchInfo
from ptxlint.analyses.uniformity.data import DataTransfer
from ptxlint.analyses.uniformity.inputs import FunctionInputs
from ptxlint.analyses.uniformity.lattice import Divergence, Origin, State, join_control, join_exits, subject_text, worse
from ptxlint.analyses.uniformity.sync import Control, SyncDependence


class ControlDivergence:
    """The control-divergence transfer of one function (see the module docstring)."""

    def __init__(self, inputs: FunctionInputs, data: DataTransfer, sync: SyncDependence) -> None:
        self._cfg = inputs.cfg
        self._space = inputs.space
        self._is_kernel = inputs.function.is_kernel
        self._branches = inputs.static.branches
        self._data = data
        self._sync = sync
        self._last_control: Control = ()
        self._last_threads: Threads | None = None
        self._last_worst: Divergence | None = None
        # (branch, level, id(origin), proven) → (origin, its branch divergence, its exit mark)
        self._divergences: dict[tuple[int, Level, int, bool, bool], tuple[Origin | None, Divergence, Divergence]] = {}
        self._worst: dict[int, tuple[Control, Divergence | None]] = {}  # id(control) → (control, its worst divergence)
        self._paths: dict[tuple[Divergence, Threads], Divergence] = {}
        # Loops left by one edge: the threads that entered each (by header), for that edge.
        self._sole_exit_loops = self._cfg.sole_exit_loops if self._space is not None else {}
        self._loop_headers = frozenset(self._sole_exit_loops.values())
        self._loop_entry_threads: dict[int, Threads | None] = {}
        # Where the paths from each branch meet again (its immediate post-dominator), every thread
        # that took the branch has arrived: {meeting block: branch blocks}, and the threads that
        # left each branch block.
        self._meeting_of: dict[int, list[int]] = {}
        if self._space is not None:
            for block, info in self._branches.items():
                if info.post_dominator is not None and info.post_dominator != self._cfg.exit:
                    self._meeting_of.setdefault(info.post_dominator, []).append(block)
        self._threads_leaving: dict[int, Threads | None] = {}

    # --- along edges

    def edge(self, source: int, target: int, state: State) -> tuple[Control, tuple[Divergence, ...], Threads | None]:
        """The enclosing divergent branches, the exit marks and the threads along the edge
        ``source → target``."""
        space = self._space
        if space is not None and source in self._branches:
            self._threads_leaving[source] = state.threads  # for ``entering`` where its paths meet
        control = self._sync.remaining(state.control, source, target)
        exits = state.exits
        info = self._branches.get(source)
        if info is not None and target != info.post_dominator and target in info.live:
            divergence = self._branch_divergence(info, state)
            if divergence is not None:
                if len(info.live) > 1 and not any(entry[1] is divergence for entry in control):
                    control = self._sync.bounded(join_control(control, ((source, divergence),)))
                if info.exits_elsewhere:
                    mark = self._exit_mark(divergence)
                    if not any(entry is mark for entry in exits):
                        exits = join_exits(exits, (mark,))
        threads = state.threads
        if space is None:
            return control, exits, threads
        entered = self._sole_exit_loops.get((source, target))
        if entered is not None and entered in self._loop_entry_threads:
            # Every thread that entered a loop with one way out leaves it here (or never does),
            # however the threads split inside it: a spin on `mbarrier.try_wait` does.
            threads = self._loop_entry_threads[entered]
        elif threads is not None:
            threads = self._edge_threads(space, source, target, info, state)
        if target in self._loop_headers and (source, target) not in self._cfg.back_edges:
            known = self._loop_entry_threads
            known[target] = threads if target not in known else space.join(known[target], threads)
        return control, exits, threads

    def entering(self, block: int, state: State) -> State:
        """The state ``block`` is entered with, knowing that every thread that took a branch whose
        paths meet again here has arrived: nested branches on thread-varying data (an elected
        lane, a bounds check) blur which lanes reach the blocks between, not this one."""
        branches = self._meeting_of.get(block)
        if not branches or state.threads is None or self._space is None:
            return state
        threads = state.threads
        leaving = self._threads_leaving
        for branch in branches:
            if branch in leaving:
                threads = self._space.at_least(threads, leaving[branch])
        if threads is state.threads:
            return state
        return State(state.values, state.control, state.exits, threads)

    def _edge_threads(self, space: ThreadSpace, source: int, target: int, info: BranchInfo | None, state: State) -> Threads | None:
        """The threads that take the edge ``source → target``."""
        threads = state.threads
        if info is not None and not (info.traps and target in info.live):
            instruction = info.instruction
            guard = instruction.guard
            if guard is not None and instruction.opcode.base == "bra":
                value = self._data.predicate_value(guard.predicate, instruction, state)
                if type(value.bits) is TidSet:
                    taken = target == info.taken
                    mask = value.bits.mask if taken != guard.negated else ~value.bits.mask
                    threads = space.restrict(threads, mask)
                elif value.level <= Level.WARP:
                    threads = space.maybe_none(threads)
                elif len(self._cfg.successors(info.block)) > 1:
                    threads = space.some_of(threads, info.index, target == info.taken)
            elif instruction.opcode.base == "brx":
                index = instruction.operands[0] if instruction.operands else None
                if index is None or self._data.operand_value(index, instruction, state).level > Level.WARP:
                    return None
                threads = space.maybe_none(threads)
        if (source, target) in self._cfg.back_edges and space.level(threads) is None:
            # Threads that go round a loop in part of a warp meet the others in a later
            # iteration: the set of threads that ever reach the header says nothing then.
            return None
        return threads

    # --- the control an instruction runs under

    def execution(self, index: int, instruction: ir.Instruction, state: State) -> Divergence | None:
        """The worst of the enclosing divergent branches (as the paths that reach here make
        them) and the instruction's own guard; None when it runs CTA-uniformly."""
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
                    # Among equals, a bounds check on the thread index (`if (i < n)`) names the
                    # cause better than a later branch it made vary (a loop inside it), else the
                    # later branch.
                    if worst is None or worse(divergence, worst) or (
                        divergence.level == worst.level and divergence.proven == worst.proven
                        and (divergence.bounded, divergence.index) > (worst.bounded, worst.index)
                    ):  # fmt: skip
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
        value = self._data.operand_value(guard.predicate, instruction, state)
        if value.level == Level.CTA or (worst is not None and worst.level > value.level):
            return worst
        proven = self._proven_split(value.level, guard.predicate, instruction, state)
        if worst is not None and worst.rank >= (value.level, proven):
            return worst
        bounded = type(value.bits) is TidBound
        return Divergence("guard", value.level, index, guard.span, subject_text(guard.predicate), value.origin, proven, bounded)

    def _proven_split(self, level: Level, predicate: ir.Operand, instruction: ir.Instruction, state: State) -> bool:
        """Whether a warp-level condition provably differs between the warps of one warpgroup:
        its exact `%tid.x` set takes some warps of a warpgroup and not the others."""
        if level != Level.WARP or self._space is None:
            return False
        data = self._data.predicate_value(predicate, instruction, state)
        return type(data.bits) is TidSet and self._space.splits_warpgroup(data.bits.mask)

    def _paths_divergence(self, worst: Divergence, threads: Threads) -> Divergence | None:
        """The enclosing branches split warps, but the paths through them bring whole warps
        here (or every thread): the control is only as divergent as that."""
        space = self._space
        if space is None:
            return worst
        level = space.level(threads)
        if level is None or level >= worst.level:
            return worst
        if level == Level.CTA:
            return None
        key = (worst, threads)
        known = self._paths.get(key)
        if known is None:
            reach = space.describe(threads)
            origin = Origin(worst.span, f"threads with `%tid.x` in {reach} may reach it")
            proven = space.reach_splits_warpgroup(threads)
            known = self._paths[key] = Divergence("paths", level, worst.index, worst.span, worst.subject, origin, proven)
        return known

    # --- exits

    def exit(self, index: int, instruction: ir.Instruction, state: State, execution: Divergence | None) -> State:
        """`exit` or `ret`: the threads that go on past a guarded one, and the exit mark it
        leaves on their paths."""
        guard = instruction.guard
        space = self._space
        if guard is not None and state.threads is not None and space is not None:
            # The threads that go on are those whose guard is false.
            value = self._data.predicate_value(guard.predicate, instruction, state)
            threads: Threads | None
            if type(value.bits) is TidSet:
                mask = ~value.bits.mask if not guard.negated else value.bits.mask
                threads = space.restrict(state.threads, mask)
            elif value.level <= Level.WARP:
                threads = space.maybe_none(state.threads)
            else:
                threads = None
            state = State(state.values, state.control, state.exits, threads)
        leaves_thread = instruction.opcode.base == "exit" or self._is_kernel
        if guard is None or not leaves_thread or execution is None:
            return state  # unguarded: nothing falls through; a `.func` ret returns to the caller
        text = subject_text(guard.predicate)
        mark = Divergence("exit", execution.level, index, instruction.span, text, execution.origin, execution.proven)
        exits = join_exits(state.exits, (mark,))
        return State(state.values, state.control, exits, state.threads)

    # --- branches

    def _branch_divergence(self, info: BranchInfo, state: State) -> Divergence | None:
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
        value = self._data.data_value(condition, instruction, state)
        if value.level == Level.CTA:
            return None
        proven = instruction.guard is not None and self._proven_split(value.level, condition, instruction, state)
        bounded = type(value.bits) is TidBound
        # The same divergence object for the same cause, so states compare by identity.
        key = (info.index, value.level, id(value.origin), proven, bounded)
        known = self._divergences.get(key)
        if known is None or known[0] is not value.origin:
            divergence = Divergence(
                "branch", value.level, info.index, instruction.span, subject_text(condition), value.origin, proven, bounded
            )
            known = self._divergences[key] = (value.origin, divergence, replace(divergence, kind="exit-branch"))
        return known[1]

    def _exit_mark(self, divergence: Divergence) -> Divergence:
        """The exit mark of a branch divergence (made by :meth:`_branch_divergence`)."""
        key = (divergence.index, divergence.level, id(divergence.origin), divergence.proven, divergence.bounded)
        return self._divergences[key][2]
