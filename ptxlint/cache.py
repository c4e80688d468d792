"""The content-keyed caches of the inner loop: lint results, and the PTX nvcc made of `.cu` files.

Both live under one folder: `$PTXLINT_CACHE_DIR`, else `$XDG_CACHE_HOME/ptxlint`, else
`~/.cache/ptxlint`. Outside the project, because every key is the content itself: the same file
linted from two checkouts is one entry, nothing needs adding to `.gitignore`, and a read-only
checkout still gets a cache. `ptxlint clean` removes the two folders below and nothing else (the
test corpora share the parent folder).

- `results/`: what linting one PTX text produced. Key: ptxlint's version and a digest of its own
  files (names, sizes, modification times: a development checkout changes rules without changing
  the version), the file's bytes and
  the settings that shape the analysis (the rules in order, after selection and per-file
  ignores; the analysis options; severity overrides; the step limit). The path is not in the key:
  nothing the analysis computes depends on it, and the result is reported under the path it is
  asked for. Not cached: runs with a wall-clock budget (their findings depend on the machine's
  load), `--timings` runs (they measure the analysis), files a rule crashed on.
- `nvcc-ptx/`: the PTX nvcc produced for one `.cu` file and architecture. Key: nvcc's version
  text, the source's path and bytes, the architecture, the flags and the directory nvcc ran in;
  the entry also records every file the compile read (nvcc's `-MD` list: headers, system headers
  included) with a digest of its contents, and is used only while all of them still read the
  same. A header found through another include path is not noticed when the include path itself
  did not change but a new file appeared earlier on it (a new header shadowing an old one):
  `--no-cache` or `ptxlint clean` then.

A cache hit gives what the analysis would give, byte for byte (tested); an entry that cannot be
read is a miss. Entries are JSON (`encode_analysis` names every field it keeps; nothing is
unpickled or evaluated, so a cache folder others can write can at worst make findings wrong,
never run code), written atomically: a temporary file renamed into place.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

from ptxlint import __version__

try:  # CPython's own BLAKE2, without the OpenSSL library `import hashlib` loads: a few ms of every start-up
    from _blake2 import blake2b
except ImportError:  # an interpreter that has BLAKE2 only through hashlib
    from hashlib import blake2b

if TYPE_CHECKING:
    from ptxlint.diagnostics import Diagnostic, Label, SourceFrame
    from ptxlint.lint import Analysis

ENVIRONMENT_VARIABLE = "PTXLINT_CACHE_DIR"
RESULTS = "results"
NVCC_PTX = "nvcc-ptx"
_FORMAT = b"1"  # bump when what an entry holds changes shape

_code_digest: str | None = None


def cache_root() -> Path:
    """The folder holding both caches."""
    explicit = os.environ.get(ENVIRONMENT_VARIABLE)
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "ptxlint"


def code_digest() -> str:
    """A digest of ptxlint's own code (the name, size and modification time of every `.py` file
    and native extension of the package), so that a changed rule never reads results its previous
    version cached, while a release's version alone would not change. Stat calls only: start-up
    counts for the small files a pre-commit hook lints."""
    global _code_digest
    if _code_digest is None:
        digest = blake2b(__version__.encode(), digest_size=16)
        package = Path(__file__).resolve().parent
        for folder, subfolders, files in os.walk(package):
            subfolders[:] = sorted(name for name in subfolders if name != "__pycache__")
            for name in sorted(files):
                if name.endswith((".py", ".so", ".pyd")):
                    path = os.path.join(folder, name)
                    status = os.stat(path)
                    digest.update(f"{os.path.relpath(path, package)}\0{status.st_size}\0{status.st_mtime_ns}\0".encode())
        _code_digest = digest.hexdigest()
    return _code_digest


def key(*parts: bytes | str) -> str:
    """A digest of ``parts``, each delimited by its length (no two part lists share a key)."""
    digest = blake2b(_FORMAT, digest_size=20)
    for part in parts:
        data = part.encode("utf-8", "surrogateescape") if isinstance(part, str) else part
        digest.update(len(data).to_bytes(8, "little"))
        digest.update(data)
    return digest.hexdigest()


def file_digest(path: str) -> str | None:
    """The digest of a file's contents, or None when it cannot be read."""
    try:
        with open(path, "rb") as handle:
            return blake2b(handle.read(), digest_size=16).hexdigest()
    except OSError:
        return None


class Store:
    """One cache folder: JSON values by key. Failures to read or write are misses, never
    errors: a cache must not be the reason a run fails."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _path(self, entry: str) -> Path:
        return self.folder / entry[:2] / entry

    def load(self, entry: str) -> Any:
        try:
            with open(self._path(entry), "rb") as handle:
                return json.loads(handle.read())
        except (OSError, ValueError):  # missing, truncated, not JSON: a miss
            return None

    def store(self, entry: str, value: Any) -> None:
        path = self._path(entry)
        import tempfile

        try:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
            try:
                with os.fdopen(handle, "w", encoding="utf-8") as stream:
                    json.dump(value, stream, ensure_ascii=True, separators=(",", ":"))
                os.replace(temporary, path)
            except BaseException:
                os.unlink(temporary)
                raise
        except OSError:
            pass  # a full disk or a read-only home: run uncached


def results_store(root: Path | None = None) -> Store:
    return Store((root or cache_root()) / RESULTS)


def nvcc_store(root: Path | None = None) -> Store:
    return Store((root or cache_root()) / NVCC_PTX)


def clean(root: Path | None = None) -> list[Path]:
    """Remove both caches; return the folders removed."""
    import shutil

    removed = []
    for name in (RESULTS, NVCC_PTX):
        folder = (root or cache_root()) / name
        if folder.exists():
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed


def dependencies_unchanged(recorded: Iterable[tuple[str, str | None]]) -> bool:
    """Whether every (path, digest) recorded for a compile still reads the same."""
    return all(file_digest(path) == digest for path, digest in recorded)


def parse_make_dependencies(text: str) -> list[str]:
    """The prerequisites of a Makefile rule as nvcc `-MD` writes it (`out : a.cu \\ b.h`)."""
    body = text.replace("\\\n", " ")
    _, _, prerequisites = body.partition(": ")
    paths, current = [], []
    escaped = False
    for character in prerequisites:
        if escaped:
            current.append(character)
            escaped = False
        elif character == "\\":
            escaped = True
        elif character.isspace():
            if current:
                paths.append("".join(current))
                current = []
        else:
            current.append(character)
    if current:
        paths.append("".join(current))
    return paths


# --------------------------------------------------------------------------- what entries hold

def encode_analysis(analysis: Analysis) -> dict[str, Any]:
    """What a results entry keeps of an analysis: every field a report reads (not its timings)."""
    return {
        "diagnostics": [_encode_diagnostic(diagnostic) for diagnostic in analysis.diagnostics],
        "suppressed": analysis.suppressed,
        "unfinished": list(analysis.unfinished),
        "notice": analysis.notice,
        # What the module saw of the suppression comments in its CUDA/Python sources: whether
        # each is unused is decided over the whole run, cached or not.
        "source_suppressions": [
            [list(use.key), use.status, None if use.finding is None else _encode_diagnostic(use.finding)]
            for use in analysis.source_suppressions
        ],
    }


def decode_analysis(value: Any) -> Analysis | None:
    """The analysis an entry holds, or None when it is not one (another version's shape: a miss)."""
    from ptxlint.lint import Analysis
    from ptxlint.source_suppressions import Use

    try:
        return Analysis(
            [_decode_diagnostic(item) for item in value["diagnostics"]], int(value["suppressed"]),
            unfinished=tuple(str(code) for code in value["unfinished"]),
            notice=None if value["notice"] is None else str(value["notice"]),
            source_suppressions=tuple(
                Use((str(key[0]), int(key[1]), int(key[2])), str(status), None if finding is None else _decode_diagnostic(finding))
                for key, status, finding in value["source_suppressions"]
            ),
        )
    except (KeyError, TypeError, ValueError):
        return None


def _encode_diagnostic(diagnostic: Diagnostic) -> dict[str, Any]:
    return {
        "code": diagnostic.code, "name": diagnostic.name, "severity": diagnostic.severity.value,
        "message": diagnostic.message, "span": list(diagnostic.span),
        "labels": [_encode_label(label) for label in diagnostic.labels], "notes": list(diagnostic.notes),
        "help": diagnostic.help, "witness": [_encode_label(label) for label in diagnostic.witness],
        "origin": [_encode_frame(frame) for frame in diagnostic.origin],
        "source_terms": [list(term) for term in diagnostic.source_terms],
        "as_written": diagnostic.as_written,
    }


def _encode_label(label: Label) -> list[Any]:
    return [list(label.span), label.message, label.essential, label.also_affected, [_encode_frame(frame) for frame in label.origin]]


def _encode_frame(frame: SourceFrame) -> list[Any]:
    return [frame.path, frame.line, frame.column, frame.library, frame.function]


def _decode_frame(value: list[Any]) -> SourceFrame:
    from ptxlint.diagnostics import SourceFrame

    path, line, column, library, function = value
    return SourceFrame(str(path), int(line), int(column), bool(library), str(function))


def _decode_diagnostic(value: dict[str, Any]) -> Diagnostic:
    from ptxlint.diagnostics import Diagnostic, Severity

    return Diagnostic(
        code=str(value["code"]), name=str(value["name"]), severity=Severity(value["severity"]),
        message=str(value["message"]), span=_decode_span(value["span"]),
        labels=tuple(_decode_label(label) for label in value["labels"]),
        notes=tuple(str(note) for note in value["notes"]),
        help=None if value["help"] is None else str(value["help"]),
        witness=tuple(_decode_label(label) for label in value["witness"]),
        origin=tuple(_decode_frame(frame) for frame in value["origin"]),
        source_terms=tuple((str(name), str(term)) for name, term in value["source_terms"]),
        as_written=bool(value["as_written"]),
    )


def _decode_label(value: list[Any]) -> Label:
    from ptxlint.diagnostics import Label

    span, message, essential, also_affected, origin = value
    return Label(
        _decode_span(span), str(message), bool(essential), bool(also_affected), tuple(_decode_frame(frame) for frame in origin)
    )


def _decode_span(value: list[Any]) -> Any:
    from ptxlint.source import Span

    start, end, line, column = (int(number) for number in value)
    return Span(start, end, line, column)
