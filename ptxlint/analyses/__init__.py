"""Analyses: each a lattice plus a transfer function on the one dataflow solver, run on demand
through the rule context. Analyses never import rules."""
