"""Tree-sitter queries for PTX (highlights.scm for editors), shipped as package data."""
