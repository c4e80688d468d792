"""Builds the PTX grammar into the package as the C extension `ptxlint._grammar`.

Everything else about the package lives in pyproject.toml; setuptools needs this file only
because an extension module cannot yet be declared there. The generated parser is committed, so
the build needs a C compiler and nothing else (no node, no tree-sitter CLI).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "ptxlint._grammar",
            sources=["ptxlint/grammar/binding.c", "ptxlint/grammar/src/parser.c"],
            include_dirs=["ptxlint/grammar/src"],
            extra_compile_args=["-std=c11", "-O2"],
        )
    ],
)
