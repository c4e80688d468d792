"""What the nvcc-built recipes of the third-party corpus produce: one job per PTX module."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class NvccJob:
    """Compile one translation unit to PTX. ``source`` is either a file of the unpacked package or
    the text of a small driver we generate (it includes the project's headers and instantiates
    their kernels: header-only and JIT-compiled libraries ship templates, not translation units)."""

    project: str
    arch: str
    name: str
    source: Path | str
    include_dirs: tuple[Path, ...] = ()
    flags: tuple[str, ...] = ()
    quick: bool = False  # part of the small tier CI builds
    notes: dict[str, str] = field(default_factory=dict)

    @property
    def stem(self) -> str:
        return f"{self.project}/{self.arch}/{self.name}"
