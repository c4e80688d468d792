"""Builds the PTX grammar and the native front end into the package.

Everything else about the package lives in pyproject.toml; setuptools needs this file only
because an extension module cannot yet be declared there. Two extensions:

* `ptxlint._grammar`: the generated parser as a language for py-tree-sitter. It needs a C compiler
  and nothing else (parser.c is committed), so it is always built.
* `ptxlint._native`: the same parser with tree-sitter's C runtime compiled in, and our own code
  that walks the tree natively. The runtime's source is fetched and hash-checked at build time by
  `build_native.py`; without it this extension is skipped (one line says why) and ptxlint runs on
  the pure-Python path.
"""

import functools
import os
import shutil
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import build_native  # noqa: E402 - the helper beside this file

GRAMMAR = "ptxlint/grammar"
NATIVE = "ptxlint._native"


@functools.cache
def native_runtime() -> build_native.Runtime | None:
    """The runtime's source, or None after saying once why the native extension is skipped."""
    try:
        return build_native.runtime()
    except (build_native.RuntimeUnavailable, OSError) as error:
        print(build_native.unavailable_message(error), file=sys.stderr)
        return None


class BuildWithNativeFrontEnd(build_ext):
    """Adds `ptxlint._native` once its runtime source is at hand, and ships the runtime's
    licences beside it. Resolved when this command is set up, not at import, so that building
    the metadata alone never downloads anything."""

    def finalize_options(self) -> None:
        runtime = native_runtime()
        names = {extension.name for extension in self.distribution.ext_modules}
        if runtime is not None and NATIVE not in names:
            self.distribution.ext_modules.append(
                Extension(
                    NATIVE,
                    sources=[f"{GRAMMAR}/native.c", f"{GRAMMAR}/src/parser.c", str(runtime.source)],
                    include_dirs=[f"{GRAMMAR}/src", *map(str, runtime.include_dirs)],
                    depends=[f"{GRAMMAR}/walker.c"],
                    define_macros=[("_DEFAULT_SOURCE", None), ("PY_SSIZE_T_CLEAN", None)],
                    extra_compile_args=["-std=c11", "-O3", "-fvisibility=hidden"],
                )
            )
        self.licenses = {str(path): shipped for path, shipped in runtime.licenses.items()} if runtime else {}
        super().finalize_options()

    def run(self) -> None:
        super().run()
        package = os.path.dirname(self.get_ext_fullpath(NATIVE))
        for path, shipped in self.licenses.items():
            shutil.copyfile(path, os.path.join(package, shipped))

    def get_outputs(self) -> list[str]:
        package = os.path.dirname(self.get_ext_fullpath(NATIVE))
        shipped = [os.path.join(package, name) for name in getattr(self, "licenses", {}).values()]
        return super().get_outputs() + shipped


setup(
    cmdclass={"build_ext": BuildWithNativeFrontEnd},
    ext_modules=[
        Extension(
            "ptxlint._grammar",
            sources=[f"{GRAMMAR}/binding.c", f"{GRAMMAR}/src/parser.c"],
            include_dirs=[f"{GRAMMAR}/src"],
            extra_compile_args=["-std=c11", "-O2"],
        )
    ],
)
