"""Control divergence and reconvergence (sync dependence): which divergent branches enclose each
point, where the threads they split meet again, which threads take each edge, and the exits
other threads took. A mixin of :class:`~ptxlint.analyses.uniformity.analysis.UniformityAnalysis`:
the methods here read and write the state the analysis object holds."""

from __future__ import annotations

from dataclasses import replace
from functools import cached_property
from typing import cast

from ptxlint import ir
from ptxlint.analyses.lanes import Level, TidSet
from ptxlint.analyses.threads.lane_sets import Threads
from ptxlint.analyses.uniformity.branches import BranchInfo
from ptxlint.analyses.uniformity.lattice import (
    Divergence,
    Origin,
    State,
    Value,
    at_least,
    join_control,
    join_exits,
    ranks_above,
    subject_text,
    worse,
)
from ptxlint.analyses.uniformity.transfer import Transfer

# Enclosing divergent branches a state tracks one by one (see UniformityAnalysis._bounded).
_MAX_CONTROL = 64
# Control entries are keyed by their branch block; the summary of many (see _bounded) by:
_SUMMARY = -1


class ControlTransfer(Transfer):
    """The control half of the uniformity transfer. ``UniformityAnalysis.__init__`` sets up what
    it shares with the data half: ``function``, ``cfg``, ``space`` (None when warps are unknown),
    the side table ``single`` with the keys ``read`` from it, ``recording``; from the static
    facts ``_branches``, ``_correlated``, ``_ending_at``, ``_liveness`` and ``_key_bits``; and the
    per-run memories: ``_raised``, ``_threads_leaving``, ``_meeting_of``, ``_loop_entry_threads``,
    the loops' ``_sole_exit_loops`` and ``_loop_headers``, the caches ``_divergences``,
    ``_worst``, ``_paths``, ``_correlated_endings`` and the ``_last_*`` triple."""

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
                    control = self._bounded(join_control(control, ((source, divergence),)))
                if info.exits_elsewhere:
                    mark = self._exit_mark(divergence)
                    if not any(entry is mark for entry in exits):
                        exits = join_exits(exits, (mark,))
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

    def _live_values(self, block: int, values: dict[str, Value]) -> dict[str, Value]:
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

    def _bounded(self, control: tuple[tuple[int, Divergence], ...]) -> tuple[tuple[int, Divergence], ...]:
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
        by_ending: dict[int | None, tuple[int, Divergence]] = {}
        kept: list[tuple[int, Divergence]] = []
        for key, divergence in control:
            if key == _SUMMARY:
                summary = divergence
            elif key in correlated:
                kept.append((key, divergence))  # reconverges on its own edges: keep it apart
            else:
                ending = self._branches[key].post_dominator if key in self._branches else None
                current = by_ending.get(ending)
                # The worst; among equals the first branch, so that later ones change nothing.
                if current is None or ranks_above(divergence, current[1]):
                    by_ending[ending] = (key, divergence)
        entries = [entry for entry in by_ending.values() if summary is None or worse(entry[1], summary)]
        if len(kept) + len(entries) + (summary is not None) > _MAX_CONTROL:
            for _, divergence in entries:
                if summary is None or ranks_above(divergence, summary):
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
        endings = cast("list[int]", endings)  # none is None
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
        :func:`correlated_branches`): the edge is one of those (the threads on it saw the
        branch go one way), or it enters the branch's post-dominator without those edges."""
        candidates = self._correlated.get(branch)
        if candidates is None:
            return False
        infeasible: list[tuple[int, int]] = []
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
            known = self._correlated_endings[key] = (removed, self.cfg.post_dominator_without(branch, removed))
        removed, post_dominator = known
        return (source, target) in removed or target == post_dominator

    def _edge_threads(self, source: int, target: int, info: BranchInfo | None, state: State) -> Threads | None:
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

    def _lower_raised(self, raised: dict[str, Value], values: dict[str, Value], level: Level | None) -> dict[str, Value]:
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
            lowered[key] = at_least(data, level, current.origin)
        return lowered

    # --- the control an instruction runs under

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
                    if worst is None or worse(divergence, worst) or (
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
        return Divergence("guard", value.level, index, guard.span, subject_text(guard.predicate), value.origin, proven)

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
        text = subject_text(instruction.guard.predicate)
        mark = Divergence("exit", execution.level, index, instruction.span, text, execution.origin, execution.proven)
        exits = join_exits(state.exits, (mark,))
        return State(state.values, state.control, exits, state.epoch, state.threads)

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
        value = self._data_value(condition, instruction, state)
        if value.level == Level.CTA:
            return None
        proven = instruction.guard is not None and self._proven_split(value.level, condition, instruction, state)
        # The same divergence object for the same cause, so states compare by identity.
        key = (info.index, value.level, id(value.origin), proven)
        known = self._divergences.get(key)
        if known is None or known[0] is not value.origin:
            divergence = Divergence("branch", value.level, info.index, instruction.span, subject_text(condition), value.origin, proven)
            known = self._divergences[key] = (value.origin, divergence, replace(divergence, kind="exit-branch"))
        return known[1]

    def _exit_mark(self, divergence: Divergence) -> Divergence:
        """The exit mark of a branch divergence (made by :meth:`_branch_divergence`)."""
        key = (divergence.index, divergence.level, id(divergence.origin), divergence.proven)
        return self._divergences[key][2]

    # --- recording facts for rules and dumps
