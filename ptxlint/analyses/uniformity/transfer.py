"""What the three halves of the uniformity transfer (``control.py``, ``data.py``, ``calls.py``)
share: the attributes :class:`~ptxlint.analyses.uniformity.analysis.UniformityAnalysis` sets
up, declared once with their types, and, for the type checker only, the methods one half calls
in another. Nothing here exists at run time but the class and its annotations."""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:
    from ptxlint import cfg as cfg_module
    from ptxlint import ir
    from ptxlint.analyses.lanes import LaneModel, Level
    from ptxlint.analyses.registers import Liveness
    from ptxlint.analyses.threads.lane_sets import Threads, ThreadSpace
    from ptxlint.analyses.uniformity.branches import BranchInfo
    from ptxlint.analyses.uniformity.correlation import Correlated
    from ptxlint.analyses.uniformity.facts import InstructionFacts, Summaries
    from ptxlint.analyses.uniformity.lattice import Divergence, Origin, State, Value
    from ptxlint.analyses.uniformity.registers import InvariantRegisters, RegisterNames
    from ptxlint.analyses.uniformity.static import WritePlan
    from ptxlint.analyses.uniformity.thread_index import ThreadIndexArithmetic
    from ptxlint.isa.aligned import Collective
    from ptxlint.source import Span


class Transfer:
    """The analysis of one function, as each half of its transfer sees it (see
    ``UniformityAnalysis.__init__`` for what each attribute holds)."""

    function: ir.Function
    cfg: cfg_module.ControlFlowGraph
    lanes: LaneModel
    summaries: Summaries
    collectives: dict[int, Collective]
    names: RegisterNames
    space: ThreadSpace | None
    thread_index: ThreadIndexArithmetic
    parameters: tuple[Value, ...] | None
    parameter_positions: dict[str, int]
    # The side table of registers written once, the keys read from it, and its epoch.
    single: dict[str, Value]
    single_data: dict[str, Value]
    read: set[str]
    epoch: int
    recording: dict[int, InstructionFacts] | None
    record_everything: bool
    arguments: dict[str, list[Value]]
    argument_data: dict[str, Value]
    returned: Value
    # From the static facts.
    _plans: list[WritePlan]
    _liveness: Liveness | None
    _key_bits: dict[str, int]
    _visited_by_block: Sequence[Sequence[int]]
    _branches: dict[int, BranchInfo]
    _private_local: bool
    _invariant: InvariantRegisters
    _ending_at: dict[int, set[int]]
    _correlated: Correlated
    # Per-run memories and caches.
    _last_control: tuple[tuple[int, Divergence], ...]
    _last_threads: Threads | None
    _last_worst: Divergence | None
    # (branch, level, id(origin), proven) → (origin, its branch divergence, its exit mark)
    _divergences: dict[tuple[int, Level, int, bool], tuple[Origin | None, Divergence, Divergence]]
    _worst: dict[int, tuple[tuple[tuple[int, Divergence], ...], Divergence | None]]
    _specials: dict[int, tuple[ir.SpecialRegister, Value]]
    _origins: dict[tuple[int, str], Origin]
    _raised: dict[int, dict[str, Value]]
    _sole_exit_loops: dict[tuple[int, int], int]
    _loop_headers: frozenset[int]
    _loop_entry_threads: dict[int, Threads | None]
    _meeting_of: dict[int, list[int]]
    _threads_leaving: dict[int, Threads | None]
    _paths: dict[tuple[Divergence, Threads], Divergence]
    _correlated_endings: dict[tuple[int, tuple[tuple[int, int], ...]], tuple[frozenset[tuple[int, int]], int | None]]

    if TYPE_CHECKING:
        # data.py
        def _data_value(self, operand: ir.Operand, instruction: ir.Instruction, state: State) -> Value: ...

        def _operand_value(self, operand: ir.Operand, instruction: ir.Instruction, state: State) -> Value: ...

        def _varying(self, index: int, message: str, span: Span) -> Value: ...

        # calls.py
        def _parameter_value(self, position: int, span: Span, name: str) -> Value: ...

        def _call(
            self, index: int, instruction: ir.Instruction, destinations: Sequence[ir.Operand]
        ) -> list[tuple[ir.Register, Value]]: ...

        # analysis.py
        def _record(
            self, index: int, instruction: ir.Instruction, state: State, execution: Divergence | None,
            results: Sequence[Value],
        ) -> None: ...
