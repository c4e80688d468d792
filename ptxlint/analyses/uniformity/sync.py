"""Sync dependence: where the threads a divergent branch splits meet again. A branch's
divergence ends at its reconvergence point (its immediate post-dominator), or earlier for a
branch whose split is correlated with a CTA-uniform comparison (``threads/conditions.py``): on the
edges that comparison makes infeasible and at the post-dominator of the graph without them.
Past 64 enclosing divergent branches the control state folds them into a summary that ends where
every branch of the function has reconverged.

:class:`SyncDependence` owns that structure and the endings it computed; it asks the data
transfer whether a correlated comparison is CTA-uniform."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, cast

from ptxlint.analyses.threads.tid_fields import Level
from ptxlint.analyses.uniformity.inputs import FunctionInputs
from ptxlint.analyses.uniformity.lattice import Divergence, ranks_above, worse

if TYPE_CHECKING:
    from ptxlint.analyses.uniformity.data import DataTransfer

# Enclosing divergent branches a state tracks one by one (see SyncDependence.bounded).
_MAX_CONTROL = 64
# Control entries are keyed by their branch block; the summary of many (see bounded) by:
_SUMMARY = -1

Control = tuple[tuple[int, Divergence], ...]


class SyncDependence:
    """Which enclosing divergent branches still split the threads along an edge."""

    def __init__(self, inputs: FunctionInputs, data: DataTransfer) -> None:
        static = inputs.static
        self._cfg = inputs.cfg
        self._branches = static.branches
        self._ending_at = static.ending_at
        self._correlated = static.correlated
        self._data = data
        # Per edge target: the last control seen entering it, and what of it remains.
        self._reconverging: dict[int, tuple[Control, Control]] = {}
        # (branch, the edges infeasible meanwhile) → (those edges, the post-dominator without them)
        self._correlated_endings: dict[tuple[int, tuple[tuple[int, int], ...]], tuple[frozenset[tuple[int, int]], int | None]] = {}

    def remaining(self, control: Control, source: int, target: int) -> Control:
        """The entries of ``control`` (the enclosing divergent branches) whose threads are still
        split on the edge ``source → target``: the others reconverge on it."""
        if not control:
            return control
        # What reconverges at ``target`` depends on the control alone; the solver brings the
        # same control tuple along an edge again and again (only values changed): answer it once.
        known = self._reconverging.get(target)
        if known is not None and known[0] is control:
            control = known[1]
        else:
            entering = control
            ending = self._ending_at.get(target)
            if ending and any(entry[0] in ending for entry in control):
                control = tuple(entry for entry in control if entry[0] not in ending)
            if control and control[0][0] == _SUMMARY and target == self._summary_ending:
                control = control[1:]
            self._reconverging[target] = (entering, control)
        if control and self._correlated and any(entry[0] in self._correlated for entry in control):
            control = tuple(entry for entry in control if not self._reconverged(entry[0], source, target))
        return control

    def bounded(self, control: Control) -> Control:
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
        post_dominators = self._cfg.immediate_post_dominators
        common = endings[0]
        for ending in endings[1:]:
            while not self._cfg.post_dominates(common, ending):
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
            value = self._data.written_once_value(leaf)
            if value is not None and value.level == Level.CTA:
                infeasible.extend(edges)
        if not infeasible:
            return False
        key = (branch, tuple(infeasible))
        known = self._correlated_endings.get(key)
        if known is None:
            removed = frozenset(infeasible)
            known = self._correlated_endings[key] = (removed, self._cfg.post_dominator_without(branch, removed))
        removed, post_dominator = known
        return (source, target) in removed or target == post_dominator
