"""From PTX back to the CUDA (or Triton) source it was compiled from.

Compilers that emit line information (nvcc `-lineinfo` or `-G`, Triton) write `.file N "path"`
once and `.loc N line column` before the instructions each source line produced; lowering attaches
the current `.loc` (with its `inlined_at` chain) to every instruction. A diagnostic is mapped by
the instruction whose span contains it, else by the nearest preceding instruction of the same
function that carries a location: the same answer a debugger gives for that address.
"""

from __future__ import annotations

import bisect
import dataclasses
from typing import Iterable

from ptxlint.diagnostics import Diagnostic, SourceFrame
from ptxlint.ir import Function, Instruction, Module, SourceLocation
from ptxlint.source import Span


def attach_origins(module: Module, diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """``diagnostics`` with ``origin`` filled wherever the module's line information allows
    (one that has an origin already keeps it)."""
    diagnostics = list(diagnostics)
    if not module.files or not diagnostics:
        return diagnostics
    index = LocationIndex(module)
    return [
        diagnostic if diagnostic.origin else _with_origin(diagnostic, index.origin(diagnostic.span))
        for diagnostic in diagnostics
    ]


def _with_origin(diagnostic: Diagnostic, origin: tuple[SourceFrame, ...]) -> Diagnostic:
    return dataclasses.replace(diagnostic, origin=origin) if origin else diagnostic


class LocationIndex:
    """Instructions by position, per function, for bisecting a span to its `.loc`."""

    def __init__(self, module: Module) -> None:
        self._files = module.files
        self._functions = sorted(
            (function for function in module.functions if function.instructions), key=lambda f: f.span.start
        )
        self._function_starts = [function.span.start for function in self._functions]
        self._instruction_starts = {
            id(function): [instruction.span.start for instruction in function.instructions]
            for function in self._functions
        }

    def origin(self, span: Span) -> tuple[SourceFrame, ...]:
        instruction = self._instruction_at(span.start)
        if instruction is None or instruction.location is None:
            return ()
        return self.frames(instruction.location)

    def frames(self, location: SourceLocation) -> tuple[SourceFrame, ...]:
        frames = []
        current: SourceLocation | None = location
        while current is not None and len(frames) < 64:  # a malformed chain must not loop forever
            path = self._files.get(current.file, f"<.file {current.file}>")
            frames.append(SourceFrame(path, current.line, current.column))
            current = current.inlined_at
        return tuple(frames)

    def _instruction_at(self, offset: int) -> Instruction | None:
        function = self._function_at(offset)
        if function is None:
            return None
        starts = self._instruction_starts[id(function)]
        position = bisect.bisect_right(starts, offset) - 1
        # The containing instruction, else the nearest one before it that carries a location.
        while position >= 0:
            instruction = function.instructions[position]
            if instruction.location is not None:
                return instruction
            position -= 1
        return None

    def _function_at(self, offset: int) -> Function | None:
        position = bisect.bisect_right(self._function_starts, offset) - 1
        if position < 0:
            return None
        function = self._functions[position]
        return function if offset < function.span.end else None
