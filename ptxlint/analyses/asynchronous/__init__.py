"""Asynchronous shared-memory work: the gate of functions that start any (``scan``), which buffer
an address names (``shared_buffers``), the path-sensitive pass of proxy fences and copies in
flight (``proxy``), `wgmma` groups and their registers (``wgmma_groups``, ``wgmma_operands``) and
mbarrier transaction bytes (``transaction_bytes``)."""
