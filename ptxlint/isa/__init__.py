"""PTX facts as data: which instructions write registers, special registers and their uniformity,
`.aligned` scopes, tcgen05 shapes, operand shapes and target/version gating. Nothing here knows the
IR or the syntax tree; lowering, analyses and rules consult these tables."""
