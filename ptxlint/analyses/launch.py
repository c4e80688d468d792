"""What a kernel's launch directives say about its thread block.

`.reqntid x, y, z` fixes the block shape; `.maxntid` bounds it. Lane-collapsing arithmetic on
`%tid.x` (`>> 5` is the warp index) is only valid when the block is one-dimensional or its x
extent is a multiple of 32, so the analyses ask here first.
"""

from __future__ import annotations


from ptxlint.context import Options
from ptxlint.ir import Function
from ptxlint.records import record

WARP_SIZE = 32
WARPGROUP_SIZE = 128


@record
class BlockShape:
    """``x``/``y``/``z`` are exact extents when `.reqntid` gives them, else None. ``max_threads``
    bounds the block size when a directive says so. ``one_dimensional`` is true when y = z = 1 is
    known or assumed (see Options.assume_1d_block)."""

    x: int | None
    y: int | None
    z: int | None
    max_threads: int | None
    one_dimensional: bool
    assumed: bool  # one_dimensional rests on the option, not on a directive

    @property
    def linear_tid_is_tid_x(self) -> bool:
        """Whether `%tid.x` is the linear thread index, so that `%tid.x / 32` is the warp rank."""
        return self.one_dimensional

    @property
    def warp_count(self) -> int | None:
        """The number of warps, when the block size is known or bounded."""
        threads = self.max_threads
        return None if threads is None else (threads + WARP_SIZE - 1) // WARP_SIZE


def block_shape(function: Function, options: Options) -> BlockShape:
    exact = function.directive(".reqntid")
    bound = function.directive(".maxntid")
    directive = exact or bound
    if directive is None or not directive.values:
        return BlockShape(None, None, None, None, options.assume_1d_block, assumed=True)
    extents = list(directive.values) + [1] * (3 - len(directive.values))
    x, y, z = extents[:3]
    threads = x * y * z
    if exact is not None:
        return BlockShape(x, y, z, threads, y == 1 and z == 1, assumed=False)
    # `.maxntid 256, 1, 1` bounds each extent, so y = z = 1 holds for every launch it allows.
    one_dimensional = (y == 1 and z == 1) or options.assume_1d_block
    return BlockShape(None, None, None, threads, one_dimensional, assumed=not (y == 1 and z == 1))
