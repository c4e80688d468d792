"""Which files a run lints: the command line's paths, folders expanded to the files in them.

A folder yields the files whose names match `include` (PTX, CUDA C++ and fatbins by default),
below it at any depth, sorted, except those that `exclude` (tool and build folders by default)
or a `.gitignore` rules out. A path named on the command line is linted whatever its name and
whatever excludes it, as in ruff, unless `--force-exclude` (`force-exclude = true`) applies the
excludes to it too, which is what a pre-commit hook, handed every staged file, wants.

Patterns are shell globs. One without `/` matches a file or folder name at any depth (`build`,
`*.gen.ptx`); one with `/` matches the path relative to the project root: the folder of the
configuration file that sets it, the working directory for the command line's (`kernels/old/*`).
An excluded folder is not entered.

`.gitignore` files are read as git reads them (through `pathspec`): in every folder walked, and,
inside a git repository, in the folders from its root down to the folder named, with
`.git/info/exclude`. Outside a repository only the `.gitignore` files at or below the folder
named count, so a stray one in a home folder does not hide a project.

Nothing is silently dropped: a path that does not exist, a folder that yields no file and a
folder that cannot be read are each an :class:`Unlintable` entry, which the run reports as an
error for that path while it lints everything else.
"""

from __future__ import annotations

import fnmatch
import os
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable
from ptxlint.records import record

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

STDIN = "-"

# What a folder yields: PTX text, CUDA C++ (compiled with nvcc) and fat binaries (their embedded
# PTX, read with cuobjdump). Headers are not compiled alone; objects, libraries and executables
# are mostly host code and are linted when named (or added with `extend-include`); a cubin holds
# machine code only.
DEFAULT_INCLUDE = ("*.ptx", "*.cu", "*.fatbin")
# Folders of tools, environments and build outputs, as ruff excludes them (and `build`, where
# CMake and setuptools put theirs).
DEFAULT_EXCLUDE = (
    ".bzr", ".direnv", ".eggs", ".git", ".git-rewrite", ".hg", ".ipynb_checkpoints", ".mypy_cache", ".nox",
    ".pants.d", ".pyenv", ".pytest_cache", ".pytype", ".ruff_cache", ".svn", ".tox", ".venv", ".vscode",
    "__pycache__", "__pypackages__", "_build", "buck-out", "build", "dist", "node_modules", "site-packages", "venv",
)


@record
class Pattern:
    """A glob and the folder a pattern with `/` is relative to."""

    glob: str
    root: str  # absolute

    def matches(self, path: str, name: str) -> bool:
        """Whether the absolute ``path`` (whose last component is ``name``) matches."""
        glob = self.glob.rstrip("/")
        if "/" not in glob:
            return fnmatch.fnmatchcase(name, glob)
        if os.path.isabs(glob):
            return fnmatch.fnmatchcase(path, glob)
        relative = os.path.relpath(path, self.root)
        if relative.startswith(os.pardir):
            return False
        return fnmatch.fnmatchcase(Path(relative).as_posix(), glob)


@record
class FileSelection:
    """The file selection settings in force in one folder."""

    include: tuple[Pattern, ...]
    exclude: tuple[Pattern, ...]
    respect_gitignore: bool = True

    def excluded(self, path: str, name: str) -> bool:
        return any(pattern.matches(path, name) for pattern in self.exclude)

    def included(self, path: str, name: str) -> bool:
        return any(pattern.matches(path, name) for pattern in self.include)


def default_selection(root: str | None = None) -> FileSelection:
    """The selection without any configuration, patterns relative to ``root`` (the working
    directory)."""
    base = os.path.abspath(root or os.curdir)
    return FileSelection(
        tuple(Pattern(glob, base) for glob in DEFAULT_INCLUDE), tuple(Pattern(glob, base) for glob in DEFAULT_EXCLUDE)
    )


@record
class Unlintable:
    """A command-line path that yields nothing to lint, or a folder that cannot be read; the run
    reports ``message`` for ``path`` as that input's error."""

    path: str
    message: str


# Asked, for a folder (absolute), which selection settings are in force there.
SelectionFor = Callable[[str], FileSelection]


def discover(paths: Iterable[str], selection_for: SelectionFor, force_exclude: bool = False) -> list[str | Unlintable]:
    """The files to lint, in the order of ``paths``, each folder's files sorted; an
    :class:`Unlintable` where a path yields nothing or a folder cannot be read."""
    found: list[str | Unlintable] = []
    for path in paths:
        if path == STDIN:
            found.append(STDIN)
        elif not os.path.lexists(path):
            found.append(Unlintable(path, "no such file or directory"))
        elif force_exclude and _excluded_by_name(path, selection_for):
            continue
        elif os.path.isdir(path):
            found.extend(_folder(path, selection_for))
        else:
            found.append(path)
    return found


def _excluded_by_name(path: str, selection_for: SelectionFor) -> bool:
    """`--force-exclude`: whether the excludes in force where ``path`` lies rule it or one of its
    folders out. Folders are looked at up to the project root (the configuration's folder, the
    working directory without one) that holds ``path``; outside it, only ``path``'s own name is,
    so that a checkout under a folder named `build` is not excluded whole."""
    given = os.path.abspath(path)  # normalised: no trailing separator
    absolute = os.path.join(os.path.realpath(os.path.dirname(given)), os.path.basename(given))
    selection = selection_for(os.path.dirname(absolute))
    roots = {pattern.root for pattern in selection.exclude}
    holding = [root for root in roots if absolute.startswith(root.rstrip(os.sep) + os.sep)]
    stop = min(holding, key=len) if holding else os.path.dirname(absolute)
    current = absolute
    while current != stop and current != os.path.dirname(current):
        if selection.excluded(current, os.path.basename(current)):
            return True
        current = os.path.dirname(current)
    return False


def _folder(path: str, selection_for: SelectionFor) -> list[str | Unlintable]:
    # Patterns' roots are real paths (the configuration file's folder, the working directory):
    # a folder named through a symbolic link is matched where it really is.
    real = os.path.realpath(path)
    walk = _Walk(selection_for)
    walk.folder(path, real, _ancestor_ignores(real))
    return walk.yielded or [Unlintable(path, walk.nothing_found())]


class _Walk:
    """One folder given on the command line, walked depth-first in sorted order."""

    def __init__(self, selection_for: SelectionFor) -> None:
        self.selection_for = selection_for
        self.yielded: list[str | Unlintable] = []  # in walk order, errors where they occur
        self.excluded = 0
        self.include: tuple[Pattern, ...] = ()

    def folder(self, shown: str, absolute: str, ignores: tuple[_Ignore, ...]) -> None:
        """``shown`` is the path as the user will read it (built on what they typed)."""
        selection = self.selection_for(absolute)
        self.include = self.include or selection.include
        try:
            with os.scandir(absolute) as listing:
                entries = sorted(listing, key=lambda entry: entry.name)
        except OSError as error:
            self.yielded.append(Unlintable(shown, f"cannot read the folder: {error.strerror or error}"))
            return
        if selection.respect_gitignore and any(entry.name == ".gitignore" for entry in entries):
            ignores = (*ignores, *_read_ignore(absolute, os.path.join(absolute, ".gitignore")))
        for entry in entries:
            entry_absolute = os.path.join(absolute, entry.name)
            try:
                is_folder = entry.is_dir(follow_symlinks=False)
            except OSError:
                is_folder = False
            if selection.excluded(entry_absolute, entry.name) or (
                selection.respect_gitignore and _ignored(ignores, entry_absolute, is_folder)
            ):
                self.excluded += 1
                continue
            if is_folder:
                self.folder(os.path.normpath(os.path.join(shown, entry.name)), entry_absolute, ignores)
            elif selection.included(entry_absolute, entry.name):
                entry_shown = os.path.normpath(os.path.join(shown, entry.name))
                if _regular_or_dangling(entry):  # a dangling link's reader reports it
                    self.yielded.append(entry_shown)
                else:  # reading a FIFO would wait for a writer forever
                    self.yielded.append(Unlintable(entry_shown, "not a regular file (a FIFO, socket or device)"))

    def nothing_found(self) -> str:
        kinds = ", ".join(pattern.glob for pattern in self.include) or "nothing"
        message = f"no files to lint in this folder (it includes {kinds})"
        if self.excluded:
            message += f"; {self.excluded} excluded or git-ignored entr{'ies' if self.excluded != 1 else 'y'}"
        return message


def _regular_or_dangling(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_file() or not os.path.exists(entry.path)
    except OSError:
        return True


# ----------------------------------------------------------------------------- .gitignore


@record
class _Ignore:
    """The rules of one ignore file and the folder its patterns are relative to."""

    base: str
    spec: GitIgnoreSpec


def _ignored(ignores: tuple[_Ignore, ...], path: str, is_folder: bool) -> bool:
    """git's answer: the deepest file with a pattern that matches decides (its last match)."""
    for ignore in reversed(ignores):
        relative = Path(os.path.relpath(path, ignore.base)).as_posix()
        if relative.startswith(".."):
            continue
        decision = ignore.spec.check_file(relative + "/" if is_folder else relative).include
        if decision is not None:
            return decision
    return False


def _read_ignore(base: str, file: str) -> tuple[_Ignore, ...]:
    try:
        with open(file, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return ()  # an unreadable .gitignore hides nothing; git does the same
    from pathspec import GitIgnoreSpec

    return (_Ignore(base, GitIgnoreSpec.from_lines(lines)),)


def _ancestor_ignores(folder: str) -> tuple[_Ignore, ...]:
    """The ignore files git applies to ``folder`` besides its own `.gitignore` (read as it is
    walked): inside a repository, `.git/info/exclude` and the `.gitignore` files from the
    repository's root down to ``folder``'s parent; outside one, none."""
    above: list[str] = []  # folder's ancestors, nearest first, up to the repository's root
    current = folder
    while not os.path.exists(os.path.join(current, ".git")):
        parent = os.path.dirname(current)
        if parent == current:
            return ()
        current = parent
        above.append(current)
    repository = current
    ignores: list[_Ignore] = []
    info = os.path.join(repository, ".git", "info", "exclude")
    if os.path.isfile(info):
        ignores.extend(_read_ignore(repository, info))
    for ancestor in reversed(above):
        file = os.path.join(ancestor, ".gitignore")
        if os.path.isfile(file):
            ignores.extend(_read_ignore(ancestor, file))
    return tuple(ignores)
