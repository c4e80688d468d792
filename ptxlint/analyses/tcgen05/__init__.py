"""Tensor memory: which instructions use it (``scan``), the lanes and columns each touches
(``footprint``), the path-sensitive pass of pending `tcgen05.ld`/`st` and live allocations
(``pending``) with its hand-off searches (``hand_offs``), and which accesses by other warps or the
peer CTA nothing orders before a `tcgen05.dealloc` (``frees``)."""
