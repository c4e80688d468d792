"""PTX targets: parsing `.target` names, the `a`/`f` suffix rules, and the PTX ISA version that
introduced each target (PTX ISA §11.1.2 Table 58, §13 release tables).

Three kinds of availability appear in the manual's "Target ISA notes", and a feature lists one or
more of them, each from some PTX version:

- ``sm_90``   — baseline, onion-layered: every target numbered 90 or higher, whatever its suffix.
- ``sm_100f`` — family-specific: the `f` and `a` targets of the same family numbered 100 or
  higher (sm_100f, sm_100a, sm_103f, sm_103a). Plain `sm_103` is not included.
- ``sm_100a`` — architecture-specific: exactly sm_100a.

`compute_XX` is a synonym for `sm_XX`. In PTX 9.0 `sm_101*` was renamed `sm_110*`; both spellings
belong to family 11.
"""

from __future__ import annotations

import re
from ptxlint.records import record

Version = tuple[int, int]

_TARGET = re.compile(r"(?:sm|compute)_(\d+)([af]?)")

# Platform options that may follow the architecture in a `.target` list.
TARGET_OPTIONS = frozenset({"debug", "texmode_unified", "texmode_independent", "map_f64_to_f32"})


@record(order=True)
class Target:
    """An ``sm_NN`` architecture with its suffix (``a``: arch-specific, ``f``: family)."""

    number: int  # 100 for sm_100a
    suffix: str  # "", "a" or "f"

    @property
    def name(self) -> str:
        return f"sm_{self.number}{self.suffix}"

    @property
    def family(self) -> int:
        """Blackwell-and-later family: sm_100/103 → 10, sm_101/110 → 11, sm_120/121 → 12."""
        if self.number == 101:  # renamed sm_110 in PTX 9.0
            return 11
        return self.number // 10


def parse_target(text: str) -> Target | None:
    """`sm_100a`, `compute_90` → Target; platform options and unknown names → None."""
    match = _TARGET.fullmatch(text.strip())
    if not match:
        return None
    return Target(int(match.group(1)), match.group(2))


def architecture_of(targets: tuple[str, ...]) -> Target | None:
    """The architecture a module is compiled for: with several `.target` entries, the highest
    one listed (the module runs only where all of them are supported)."""
    parsed = [target for target in map(parse_target, targets) if target is not None]
    return max(parsed, default=None)


def parse_version(text: str) -> Version:
    major, minor = text.split(".")
    return int(major), int(minor)


def format_version(version: Version) -> str:
    return f"{version[0]}.{version[1]}"


# ----------------------------------------------------------------------------- availability


def supports(availability: str, target: Target) -> bool:
    """Whether ``target`` has a feature documented for ``availability`` (`sm_90`, `sm_100f`,
    `sm_100a`)."""
    required = parse_target(availability)
    assert required is not None, availability
    if required.suffix == "a":
        return target == required
    if required.suffix == "f":
        return target.suffix in ("a", "f") and target.family == required.family and target.number >= required.number
    return target.number >= required.number


# ----------------------------------------------------------------------------- target ↔ version

# The PTX ISA version that introduced each target (§1.2 of the facts digest, checked with ptxas).
# sm_88: the manual's release table says 9.0, ptxas 13.0 accepts it from 7.3 (DISAGREEMENTS.md).
TARGET_INTRODUCED: dict[str, Version] = {
    "sm_50": (4, 0), "sm_52": (4, 1), "sm_53": (4, 2),
    "sm_60": (5, 0), "sm_61": (5, 0), "sm_62": (5, 0),
    "sm_70": (6, 0), "sm_72": (6, 1), "sm_75": (6, 3),
    "sm_80": (7, 0), "sm_86": (7, 1), "sm_87": (7, 4), "sm_88": (7, 3), "sm_89": (7, 8),
    "sm_90": (7, 8), "sm_90a": (8, 0),
    "sm_100": (8, 6), "sm_100a": (8, 6), "sm_100f": (8, 8),
    "sm_101": (8, 6), "sm_101a": (8, 6), "sm_101f": (8, 8),
    "sm_103": (8, 8), "sm_103a": (8, 8), "sm_103f": (8, 8),
    "sm_110": (9, 0), "sm_110a": (9, 0), "sm_110f": (9, 0),
    "sm_120": (8, 7), "sm_120a": (8, 7), "sm_120f": (8, 8),
    "sm_121": (8, 8), "sm_121a": (8, 8), "sm_121f": (8, 8),
}

# The sm_101 names were retired when they became sm_110 (PTX 9.0 no longer lists them).
TARGET_RETIRED: dict[str, Version] = {"sm_101": (9, 0), "sm_101a": (9, 0), "sm_101f": (9, 0)}


def minimum_version_for(target: Target) -> Version | None:
    """The oldest `.version` that knows ``target``; None for a target this table does not know."""
    return TARGET_INTRODUCED.get(target.name)


def renamed_to(target: Target) -> str | None:
    """The current name of a retired target (`sm_101a` → `sm_110a`)."""
    if target.name in TARGET_RETIRED:
        return f"sm_110{target.suffix}"
    return None
