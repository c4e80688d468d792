"""A value computed from the thread index, seen thread by thread and warp by warp.

Both families ask the same question of such a value: in which threads does a comparison of it
hold? Uniformity keeps the answer as the exact set of threads (a
:class:`~ptxlint.analyses.threads.tid_fields.TidSet`, for `%tid.x` fields); the per-warp values
analysis keeps what each warp sees of it (for its thread-index chains). :func:`threads_where`
computes the set, once, for either kind of value; the per-warp views are projections of a set
or of the value itself: a warp sees a comparison true when the set holds all its lanes, false
when it holds none, and no single truth when it splits them (:func:`warp_truths`); a value is
one per warp when the lanes of every warp agree on it (:func:`warp_entries`).

Threads are numbered by the linear thread index; warp ``w`` holds threads ``32w`` to ``32w +
31``, of which those below ``thread_count`` exist (at least the first: a block has a thread in
each of its warps).
"""

from __future__ import annotations

from typing import Callable, TypeVar

from ptxlint.analyses.launch import WARP_SIZE

_Entry = TypeVar("_Entry")


def threads_where(value_at: Callable[[int], int | None], test: Callable[[int], object], bound: int) -> int | None:
    """The set (bit t for thread t) of the threads below ``bound`` whose value passes ``test``,
    or None when some thread's value is unknown (``value_at`` gives None)."""
    threads = 0
    for thread in range(bound):
        value = value_at(thread)
        if value is None:
            return None
        if test(value):
            threads |= 1 << thread
    return threads


def thread_bound(warp_count: int, thread_count: int) -> int:
    """How many threads, from 0, the per-warp views read: those that exist, and the first of
    every warp."""
    return max(thread_count, WARP_SIZE * (warp_count - 1) + 1) if warp_count else 0


def warp_truths(threads: int, warp_count: int, thread_count: int) -> tuple[bool | None, ...]:
    """Per warp, whether a predicate true in exactly ``threads`` holds in all its lanes (True),
    in none (False) or in some (None)."""
    truths: list[bool | None] = []
    for warp in range(warp_count):
        start = warp * WARP_SIZE
        lanes = (1 << max(1, min(WARP_SIZE, thread_count - start))) - 1
        inside = threads >> start & lanes
        truths.append(True if inside == lanes else False if inside == 0 else None)
    return tuple(truths)


def warp_entries(value_at: Callable[[int], _Entry | None], warp_count: int, thread_count: int) -> tuple[_Entry, ...] | None:
    """Per warp, the value every lane of it has, or None when some warp's lanes differ or a value
    is unknown."""
    entries: list[_Entry] = []
    for warp in range(warp_count):
        start = warp * WARP_SIZE
        first = value_at(start)
        if first is None:
            return None
        for thread in range(start + 1, min(start + WARP_SIZE, thread_count)):
            if value_at(thread) != first:
                return None
        entries.append(first)
    return tuple(entries)
