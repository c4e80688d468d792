"""Configuration: which rules run, at which severity, with which options, for each file.

Read from `[tool.ptxlint]` in a `pyproject.toml` or from the top level of a `ptxlint.toml`; the
file closest to the linted file wins (in one directory `ptxlint.toml` before `pyproject.toml`,
and a `pyproject.toml` without `[tool.ptxlint]` does not count), as in ruff, so a sub-project can
carry its own settings. `--config FILE` uses one file for everything, `--isolated` none.

    [tool.ptxlint]
    select = ["PTX1", "tcgen05-ld-not-waited"]   # codes, names, prefixes or "ALL"
    extend-select = ["PTX103"]
    ignore = ["PTX105"]
    assume-1d-block = false                      # an analysis option (ptxlint.context.Options)
    max-analysis-steps = 0                       # analysis steps per file (0: unlimited)
    time-budget = 120                            # seconds of analysis per file (0: off, the default)
    cuda-arch = ["sm_90a", "sm_100a"]            # what `ptxlint kernel.cu` compiles for
    extend-exclude = ["third_party"]             # what folders yield (ptxlint/discovery.py):
    extend-include = ["*.so"]                    #   include, extend-include, exclude,
    respect-gitignore = true                     #   extend-exclude, respect-gitignore,
    force-exclude = false                        #   force-exclude

    [tool.ptxlint.per-file-ignores]
    "generated/*.ptx" = ["PTX4"]

    [tool.ptxlint.severity]
    PTX103 = "error"

Selection: `select` (default: the rules enabled by default) plus `extend-select`, minus `ignore`,
minus the file's `per-file-ignores`. A selector selects every rule it matches, including rules off
by default. Command-line `--select` replaces `select`; `--extend-select` and `--ignore` add.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import functools
import sys
from dataclasses import field
from pathlib import Path, PurePosixPath
from typing import Any, Iterable, Mapping

from ptxlint.context import Options
from ptxlint.discovery import DEFAULT_EXCLUDE, DEFAULT_INCLUDE, FileSelection, Pattern
from ptxlint.diagnostics import Severity
from ptxlint.records import record
from ptxlint.rules import ALL_RULES, RULES_BY_CODE, RULES_BY_NAME
from ptxlint.rules.base import Rule

CONFIG_NAMES = ("ptxlint.toml", "pyproject.toml")  # in one directory, the first found wins
_LIST_KEYS = ("select", "extend-select", "ignore")
_CUDA_ARCH_KEY = "cuda-arch"
DEFAULT_CUDA_ARCHITECTURES = ("sm_100a",)
_TABLE_KEYS = ("per-file-ignores", "severity")
_PATTERN_KEYS = ("include", "extend-include", "exclude", "extend-exclude")
_FLAG_KEYS = ("respect-gitignore", "force-exclude")
_OPTION_FIELDS = {field.name.replace("_", "-"): field for field in dataclasses.fields(Options)}


class ConfigError(Exception):
    """A configuration the user must fix (exit code 2)."""


@record
class FileConfig:
    """What one configuration file (or none) says, validated but not yet applied."""

    path: Path | None = None
    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    severity: tuple[tuple[str, str], ...] = ()
    options: Mapping[str, Any] = field(default_factory=dict)
    cuda_arch: tuple[str, ...] | None = None
    # File selection (ptxlint/discovery.py): None where the file does not set it.
    patterns: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # include, exclude, extend-…
    respect_gitignore: bool | None = None
    force_exclude: bool | None = None

    @property
    def root(self) -> Path:
        """Where `per-file-ignores` patterns are relative to."""
        return self.path.parent if self.path is not None else Path.cwd()


@record
class CommandLineSelection:
    """The rule selection given on the command line: it replaces (`select`) or adds to the configured one."""

    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()


@record
class ResolvedConfig:
    """A configuration applied to the rule registry."""

    source: Path | None
    codes: frozenset[str]
    severity: Mapping[str, Severity]
    options: Options
    per_file_ignores: tuple[tuple[str, frozenset[str]], ...]
    root: Path
    cuda_arch: tuple[str, ...] = DEFAULT_CUDA_ARCHITECTURES
    file_selection: FileSelection | None = None  # what folders yield; None: the defaults
    force_exclude: bool = False

    def rules_for(self, path: str) -> tuple[Rule, ...]:
        """The selected rules less those `per-file-ignores` turns off for ``path``."""
        ignored = self.ignored_for(path)
        return tuple(rule for rule in ALL_RULES if rule.code in self.codes and rule.code not in ignored)

    def ignored_for(self, path: str) -> frozenset[str]:
        if not self.per_file_ignores:
            return frozenset()
        relative = _relative_posix(path, self.root)
        ignored: set[str] = set()
        for pattern, codes in self.per_file_ignores:
            if _glob_matches(pattern, relative):
                ignored |= codes
        return frozenset(ignored)


# ----------------------------------------------------------------------------- selectors


def expand(selector: str, where: str) -> frozenset[str]:
    """The rule codes one selector names: `ALL`, a code, a name, or a code prefix (`PTX1`)."""
    if selector == "ALL":
        return frozenset(RULES_BY_CODE)
    if selector.upper() in RULES_BY_CODE:
        return frozenset({selector.upper()})
    if selector in RULES_BY_NAME:
        return frozenset({RULES_BY_NAME[selector].code})
    prefixed = frozenset(code for code in RULES_BY_CODE if code.startswith(selector.upper()))
    if prefixed and selector.upper().startswith("PTX"):
        return prefixed
    raise ConfigError(f"{where}: unknown rule or prefix `{selector}`{_suggestion(selector)}")


def _suggestion(selector: str) -> str:
    import difflib  # only for a mistyped selector

    candidates = list(RULES_BY_CODE) + list(RULES_BY_NAME)
    close = difflib.get_close_matches(selector, candidates, n=1, cutoff=0.6)
    return f" (did you mean `{close[0]}`?)" if close else "; `ptxlint rules` lists them"


def _expand_all(selectors: Iterable[str], where: str) -> frozenset[str]:
    codes: frozenset[str] = frozenset()
    for selector in selectors:
        codes |= expand(selector, where)
    return codes


# ----------------------------------------------------------------------------- files


def find_config_file(start: Path) -> Path | None:
    """The configuration file closest to ``start`` (a directory), walking up to the root."""
    return _find_config_in(start.resolve())


@functools.lru_cache(maxsize=None)
def _find_config_in(directory: Path) -> Path | None:
    for name in CONFIG_NAMES:
        candidate = directory / name
        if candidate.is_file() and (name != "pyproject.toml" or _has_ptxlint_table(candidate)):
            return candidate
    return None if directory.parent == directory else _find_config_in(directory.parent)


def _has_ptxlint_table(path: Path) -> bool:
    try:
        return "ptxlint" in _read_toml(path).get("tool", {})
    except ConfigError:
        return True  # report the broken file rather than silently skipping it


def _read_toml(path: Path) -> dict[str, Any]:
    # Imported here: a run without a configuration file (pre-commit's `--isolated`, the Triton
    # hook) never needs a TOML parser.
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on 3.10 only
        import tomli as tomllib
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except OSError as error:
        raise ConfigError(f"{path}: cannot read: {error.strerror or error}") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: invalid TOML: {error}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: invalid TOML: not UTF-8 text") from None


def load(path: Path) -> FileConfig:
    """Read and validate one configuration file; read again once it changed (`--watch` and the
    language server run for hours while it is edited)."""
    try:
        status = path.stat()
        signature: tuple[int, int, int] | None = (status.st_mtime_ns, status.st_size, status.st_ino)
    except OSError:
        signature = None
    return _load(path, signature)


@functools.lru_cache(maxsize=None)
def _load(path: Path, signature: tuple[int, int, int] | None) -> FileConfig:
    data = _read_toml(path)
    if path.name == "pyproject.toml":
        data = data.get("tool", {}).get("ptxlint", {})
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: `tool.ptxlint` must be a table")
    return parse(data, path)


def parse(data: Mapping[str, Any], path: Path | None) -> FileConfig:
    where = str(path) if path else "configuration"
    every = (*_LIST_KEYS, *_TABLE_KEYS, *_OPTION_FIELDS, _CUDA_ARCH_KEY, *_PATTERN_KEYS, *_FLAG_KEYS)
    unknown = sorted(set(data) - set(every))
    if unknown:
        known = ", ".join(sorted(every))
        raise ConfigError(f"{where}: unknown setting `{unknown[0]}` (known: {known})")
    lists = {key: _string_list(data[key], f"{where}: `{key}`") for key in _LIST_KEYS if key in data}
    for key, selectors in lists.items():
        _expand_all(selectors, f"{where}: `{key}`")
    return FileConfig(
        path=path,
        select=lists.get("select"),
        extend_select=lists.get("extend-select", ()),
        ignore=lists.get("ignore", ()),
        per_file_ignores=_per_file_ignores(data.get("per-file-ignores", {}), where),
        severity=_severity_table(data.get("severity", {}), where),
        options=_options(data, where),
        cuda_arch=_architectures(data[_CUDA_ARCH_KEY], where) if _CUDA_ARCH_KEY in data else None,
        patterns={key: _pattern_list(data[key], f"{where}: `{key}`") for key in _PATTERN_KEYS if key in data},
        respect_gitignore=_flag(data, "respect-gitignore", where),
        force_exclude=_flag(data, "force-exclude", where),
    )


def _pattern_list(value: Any, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(item, str) and item for item in value):
        raise ConfigError(f"{where} must be a list of glob patterns such as \"build\" or \"kernels/*.ptx\"")
    return tuple(value)


def _flag(data: Mapping[str, Any], key: str, where: str) -> bool | None:
    if key not in data:
        return None
    if not isinstance(data[key], bool):
        raise ConfigError(f"{where}: `{key}` must be true or false")
    return bool(data[key])


def file_selection(config: FileConfig) -> FileSelection:
    """What folders yield under ``config``: `include` (default: PTX, CUDA C++, fatbins) plus
    `extend-include`, less `exclude` (default: tool and build folders) plus `extend-exclude`,
    patterns with `/` relative to the configuration file's folder."""
    root = str(config.root.resolve())
    patterns = config.patterns

    def rooted(*globs: str) -> tuple[Pattern, ...]:
        return tuple(Pattern(glob, root) for glob in globs)

    return FileSelection(
        include=rooted(*patterns.get("include", DEFAULT_INCLUDE), *patterns.get("extend-include", ())),
        exclude=rooted(*patterns.get("exclude", DEFAULT_EXCLUDE), *patterns.get("extend-exclude", ())),
        respect_gitignore=config.respect_gitignore is not False,
    )


def _architectures(value: Any, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value or not all(isinstance(item, str) and item.startswith("sm_") for item in value):
        raise ConfigError(f"{where}: `{_CUDA_ARCH_KEY}` must be a list of architectures such as \"sm_100a\"")
    return tuple(value)


def _string_list(value: Any, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError(f"{where} must be a list of rule codes or names")
    return tuple(value)


def _per_file_ignores(table: Any, where: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: `per-file-ignores` must be a table of glob = [codes]")
    entries = []
    for pattern, selectors in table.items():
        codes = _string_list(selectors, f"{where}: `per-file-ignores.{pattern}`")
        _expand_all(codes, f"{where}: `per-file-ignores.{pattern}`")
        entries.append((pattern, codes))
    return tuple(entries)


def _severity_table(table: Any, where: str) -> tuple[tuple[str, str], ...]:
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: `severity` must be a table of rule = \"error\"|\"warning\"|\"note\"")
    levels = {severity.value for severity in Severity}
    for selector, level in table.items():
        expand(selector, f"{where}: `severity`")
        if level not in levels:
            raise ConfigError(f"{where}: `severity.{selector}` must be one of {', '.join(sorted(levels))}")
    return tuple(table.items())


def _options(data: Mapping[str, Any], where: str) -> dict[str, Any]:
    options = {}
    for key, option in _OPTION_FIELDS.items():
        if key in data:
            expected = type(option.default)
            value = data[key]
            if expected is float and type(value) is int:  # `time-budget = 60` means 60.0
                value = float(value)
            if type(value) is not expected:
                raise ConfigError(f"{where}: `{key}` must be a {'number' if expected is float else expected.__name__}")
            if expected in (int, float) and not value >= 0:
                raise ConfigError(f"{where}: `{key}` must be zero or more")
            options[option.name] = value
    return options


# ----------------------------------------------------------------------------- resolution


def resolve(config: FileConfig, command_line: CommandLineSelection = CommandLineSelection()) -> ResolvedConfig:
    select = command_line.select if command_line.select is not None else config.select
    if select is None:
        codes = {rule.code for rule in ALL_RULES if rule.enabled_by_default}
    else:
        codes = set(_expand_all(select, "--select" if command_line.select is not None else "`select`"))
    codes |= _expand_all((*config.extend_select, *command_line.extend_select), "`extend-select`")
    codes -= _expand_all((*config.ignore, *command_line.ignore), "`ignore`")
    severity: dict[str, Severity] = {}
    for selector, level in config.severity:
        for code in expand(selector, "`severity`"):
            severity[code] = Severity(level)
    per_file = tuple((pattern, _expand_all(selectors, "per-file-ignores")) for pattern, selectors in config.per_file_ignores)
    return ResolvedConfig(
        source=config.path,
        codes=frozenset(codes),
        severity=severity,
        options=Options(**config.options),
        per_file_ignores=per_file,
        root=config.root,
        cuda_arch=config.cuda_arch or DEFAULT_CUDA_ARCHITECTURES,
        file_selection=file_selection(config),
        force_exclude=bool(config.force_exclude),
    )


class ConfigResolver:
    """Finds and resolves the configuration of each linted file, reading every file once."""

    def __init__(
        self,
        explicit: str | None = None,
        isolated: bool = False,
        command_line: CommandLineSelection = CommandLineSelection(),
    ) -> None:
        self._command_line = command_line
        self._isolated = isolated
        self._explicit = Path(explicit) if explicit else None
        if self._explicit is not None and not self._explicit.is_file():
            raise ConfigError(f"{explicit}: configuration file not found")
        self._resolved: dict[Path | None, ResolvedConfig] = {}

    def for_path(self, path: str) -> ResolvedConfig:
        """The configuration that governs ``path`` (standard input: the current directory's)."""
        directory = Path.cwd() if path == "-" else Path(path).parent
        return self._resolve(self._config_path(directory))

    def for_directory(self, directory: str) -> ResolvedConfig:
        """The configuration that governs the files in ``directory`` (its own file included)."""
        return self._resolve(self._config_path(Path(directory)))

    def _config_path(self, directory: Path) -> Path | None:
        if self._isolated:
            return None
        if self._explicit is not None:
            return self._explicit
        return find_config_file(directory if str(directory) else Path("."))

    def _resolve(self, config_path: Path | None) -> ResolvedConfig:
        if config_path not in self._resolved:
            config = load(config_path) if config_path is not None else FileConfig()
            self._resolved[config_path] = resolve(config, self._command_line)
        return self._resolved[config_path]


def _relative_posix(path: str, root: Path) -> str:
    absolute = Path(path).resolve()
    try:
        return absolute.relative_to(root.resolve()).as_posix()
    except ValueError:
        return absolute.as_posix()


def _glob_matches(pattern: str, relative: str) -> bool:
    """Match like ruff: a pattern with no `/` matches the file name anywhere, else the path."""
    if "/" not in pattern:
        return fnmatch.fnmatchcase(PurePosixPath(relative).name, pattern) or fnmatch.fnmatchcase(relative, pattern)
    return fnmatch.fnmatchcase(relative, pattern) or PurePosixPath(relative).match(pattern)
