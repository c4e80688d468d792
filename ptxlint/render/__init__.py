"""Renderers: one output format per module. They know diagnostics and source text, never PTX."""
