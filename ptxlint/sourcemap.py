"""From PTX back to the CUDA (or Triton) source it was compiled from.

Compilers that emit line information (nvcc `-lineinfo` or `-G`, Triton) write `.file N "path"`
once and `.loc N line column` before the instructions each source line produced; lowering attaches
the current `.loc` (with its `inlined_at` chain) to every instruction. A diagnostic is mapped by
the instruction whose span contains it, else by the nearest preceding instruction of the same
function that carries a location: the same answer a debugger gives for that address.

Every location of a finding is mapped, not only its primary span: labels and the steps of its
path get an ``origin`` too, and the PTX names its texts use get their source terms
(``ptxlint/source_terms.py``), so a finding on PTX ptxlint compiled itself can be shown entirely
at source lines. Frames in files outside the project (the directory of the input and the working
directory) or inside a library's folder under it (CUTLASS, CuTe, CUB, Thrust, the CUDA headers)
are marked ``library``: renderers show the outermost frame of the user's own code first.
"""

from __future__ import annotations

import bisect
import dataclasses
import os
from typing import Iterable, Sequence

from ptxlint import source_terms
from ptxlint.diagnostics import Diagnostic, Label, SourceFrame, shown_frame
from ptxlint.ir import Function, Instruction, Module, SourceLocation
from ptxlint.lower import DebugStrings, InliningSite, inlining_sites
from ptxlint.source import Span

# Folders that hold a library's headers rather than the project's own code.
LIBRARY_FOLDERS = frozenset({
    "cutlass", "cute", "cub", "thrust", "libcudacxx", "cccl", "cuda", "crt", "third_party", "third-party",
    "3rdparty", "external", "_deps", "site-packages", "dist-packages",
})


def attach_origins(module: Module, diagnostics: Iterable[Diagnostic], project: Sequence[str] = ()) -> list[Diagnostic]:
    """``diagnostics`` with ``origin`` filled wherever the module's line information allows, on
    the finding, its labels and its path steps, and the PTX names of its texts in source terms.
    ``project`` lists the folders of the user's own code (see :func:`is_library_file`); without
    it no frame is marked as a library's."""
    diagnostics = list(diagnostics)
    if not module.files or not diagnostics:
        return diagnostics
    index = LocationIndex(module, project)
    return [index.mapped(diagnostic) for diagnostic in diagnostics]


def is_library_file(path: str, project: Sequence[str]) -> bool:
    """Whether ``path`` (as `.file` names it) is a library's rather than the user's: outside every
    folder of ``project``, or below one of them inside a library's folder (`cutlass/`, `cute/`, a
    `third_party/` tree, an installed package). The input's own folder always counts as the
    user's."""
    if not project:
        return False
    absolute = os.path.normpath(os.path.abspath(path))
    for folder in project:
        root = os.path.normpath(os.path.abspath(folder))
        if absolute == root or not absolute.startswith(root.rstrip(os.sep) + os.sep):
            continue
        inside = os.path.relpath(os.path.dirname(absolute), root).split(os.sep)
        return any(part in LIBRARY_FOLDERS for part in inside if part != os.curdir)
    return True


# The rules whose texts speak of values and control flow (convergence, tensor memory, lanes): their
# `%p1` is a condition the reader wrote in C++, and they are shown at the outermost call of the
# user's code. The syntax and ISA rules (PTX0xx, PTX4xx) are about the PTX text itself, which the
# reader wrote as inline asm: quoted as written, shown where it was written.
_SPEAK_OF_VALUES = ("PTX1", "PTX2", "PTX3")


class LocationIndex:
    """Instructions by position, per function, for bisecting a span to its `.loc`."""

    def __init__(self, module: Module, project: Sequence[str] = ()) -> None:
        self._source = module.source
        # Per function, its `.loc … inlined_at` directives by the position they name (file, line,
        # column): their offsets, ascending, and the sites.
        self._sites: dict[int, dict[tuple[int, int, int], tuple[list[int], list[InliningSite]]]] = {}
        self._strings: DebugStrings | None = None  # `$L__info_stringN` → an inlined function's name
        self._definitions: dict[int, dict[str, list[int]]] = {}  # per function: where each register is written
        self._files = module.files
        self._library = {number: is_library_file(path, project) for number, path in module.files.items()}
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
        return self.frames(instruction.location, instruction.span.start)

    def frames(self, location: SourceLocation, offset: int | None = None) -> tuple[SourceFrame, ...]:
        """``location``'s frames, innermost first. With the ``offset`` of the instruction it
        belongs to, a call site that nvcc's `.loc` names without its own `inlined_at` is followed
        further through the nearest earlier `.loc` at that position that has one (nvcc writes
        one level of inlining per directive), and each inlined frame gets the name of its
        function (`function_name`)."""
        frames: list[SourceFrame] = []
        current: SourceLocation | None = location
        site = self._site_before(location, offset + 1) if offset is not None and location.inlined_at is not None else None
        while current is not None and len(frames) < 64:  # a malformed chain must not loop forever
            path = self._files.get(current.file, f"<.file {current.file}>")
            function = self._function_name(site) if site is not None else ""
            frames.append(SourceFrame(path, current.line, current.column, self._library.get(current.file, False), function))
            outer = current.inlined_at
            site = None
            if outer is not None and outer.inlined_at is None and offset is not None:
                site = self._site_before(outer, offset)
                if site is not None:
                    offset, outer = site.offset, site.location
            current = outer
        return tuple(frames)

    def _function_name(self, site: InliningSite) -> str:
        if site.function_label is None:
            return ""
        if self._strings is None:
            self._strings = DebugStrings(self._source)
        return self._strings.get(site.function_label, "")

    def _site_before(self, position: SourceLocation, offset: int) -> InliningSite | None:
        """The last `.loc` before ``offset`` in its function at ``position`` that names where it
        was inlined."""
        function = self._function_at(max(0, offset - 1))
        if function is None:
            return None
        known = self._sites.get(id(function))
        if known is None:
            known = self._sites[id(function)] = {}
            for site in inlining_sites(self._source, function.span.start, function.span.end):  # in text order
                offsets, sites = known.setdefault((site.location.file, site.location.line, site.location.column), ([], []))
                offsets.append(site.offset)
                sites.append(site)
        at = known.get((position.file, position.line, position.column))
        if at is None:
            return None
        offsets, sites = at
        before = bisect.bisect_left(offsets, offset)
        return sites[before - 1] if before else None

    def mapped(self, diagnostic: Diagnostic) -> Diagnostic:
        """``diagnostic`` with every location's origin and its source terms."""
        origin = diagnostic.origin or self.origin(diagnostic.span)  # one set already is kept
        labels = tuple(self._mapped_label(label) for label in diagnostic.labels)
        witness = tuple(self._mapped_label(label) for label in diagnostic.witness)
        changes: dict = {}
        if origin:
            changes["origin"] = origin
        if labels != diagnostic.labels:
            changes["labels"] = labels
        if witness != diagnostic.witness:
            changes["witness"] = witness
        terms = self._terms(diagnostic, origin)
        if terms:
            changes["source_terms"] = terms
        if origin and not diagnostic.code.startswith(_SPEAK_OF_VALUES):
            changes["as_written"] = True
        return dataclasses.replace(diagnostic, **changes) if changes else diagnostic

    def _mapped_label(self, label: Label) -> Label:
        origin = self.origin(label.span)
        return dataclasses.replace(label, origin=origin) if origin else label

    def _terms(self, diagnostic: Diagnostic, origin: tuple[SourceFrame, ...]) -> tuple[tuple[str, str], ...]:
        function = self._function_at(diagnostic.span.start)
        if function is None or not diagnostic.code.startswith(_SPEAK_OF_VALUES):
            return ()
        starts = self._instruction_starts[id(function)]
        index = max(0, bisect.bisect_right(starts, diagnostic.span.start) - 1)
        texts = [diagnostic.message, *diagnostic.notes, *(label.message for label in diagnostic.labels + diagnostic.witness)]
        if diagnostic.help:
            texts.append(diagnostic.help)
        home = shown_frame(origin, diagnostic.as_written).path if origin else None

        def frame_of(instruction: Instruction) -> SourceFrame | None:
            if instruction.location is None:
                return None
            return shown_frame(self.frames(instruction.location, instruction.span.start))

        return source_terms.terms(function, index, texts, frame_of, home, self._definitions)

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
