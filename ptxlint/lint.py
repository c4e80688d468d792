"""The driver, readable in one screen: read → parse and lower → run the selected rules →
apply suppressions → sorted diagnostics mapped to their CUDA source. Everything about how inputs are found and read lives here too, because every
kind of bad input must end in a clear message rather than a traceback."""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import os
import re
import stat
import sys
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Mapping, Sequence

from ptxlint import source_suppressions, suppressions
from ptxlint.context import Budget, BudgetExceeded, ModuleContext, Options
from ptxlint.diagnostics import Diagnostic, FileResult, Severity
from ptxlint.lower import lower
from ptxlint.passes import released_after
from ptxlint.records import record
from ptxlint.rules import ALL_RULES
from ptxlint.rules import ptx002_unused_suppression as unused_suppression
from ptxlint.rules.base import Rule
from ptxlint.source import SourceFile
from ptxlint.sourcemap import attach_origins
from ptxlint.timings import Timings, measured

if TYPE_CHECKING:
    from ptxlint.cache import Store

STDIN = "-"
DEFAULT_MAX_FILE_SIZE = 256 * 1024 * 1024  # bytes; larger inputs are refused, not truncated
# The IR and pass results of the files linted so far, kept from being freed, when the process
# ends with `os._exit` after its only file (see `keep_analyses_until_exit`); None otherwise.
_kept_until_exit: list[object] | None = None

_RELEASE_PASSES_FROM = 1 << 20  # bytes of PTX; see `_analyse`

_BINARY_PROBE = 8192  # a NUL byte in the first 8 KiB marks a binary file (cubin, fatbin, ELF)


@record
class LintSettings:
    """What the driver needs to lint a file: the rules, options, size limit and overrides."""

    rules: tuple[Rule, ...] = tuple(rule for rule in ALL_RULES if rule.enabled_by_default)
    options: Options = field(default_factory=Options)
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    severity: Mapping[str, Severity] = field(default_factory=dict)  # per-code overrides
    time_budget: float | None = None  # seconds per file, 0 off; None: options.time_budget
    timings: bool = False  # measure CPU time per stage (`--timings`)
    max_analysis_steps: int | None = None  # steps per file, 0 unlimited; None: options.max_analysis_steps
    cache_dir: str | None = None  # where results are cached (ptxlint/cache.py); None: not cached
    ptxas: str | None = None  # `--ptxas`: the ptxas whose errors to report as PTX401–PTX405

    @property
    def seconds(self) -> float:
        return self.options.time_budget if self.time_budget is None else self.time_budget

    @property
    def steps(self) -> int:
        return self.options.max_analysis_steps if self.max_analysis_steps is None else self.max_analysis_steps

    @property
    def codes(self) -> frozenset[str]:
        return frozenset(rule.code for rule in self.rules)


@record
class Analysis:
    """What linting one source produced, beyond the diagnostics themselves."""

    diagnostics: list[Diagnostic]
    suppressed: int = 0
    crashes: tuple[str, ...] = ()  # rules that raised: a ptxlint bug, reported, never a traceback
    unfinished: tuple[str, ...] = ()  # rules the step limit or time budget stopped or skipped
    notice: str | None = None  # why the analysis is partial, for the user
    timings: tuple[tuple[str, float], ...] = ()  # CPU seconds per stage, with `--timings`
    steps: int = 0  # analysis steps spent (ptxlint/analysis_limits.py)
    # What this module saw of the suppression comments in its CUDA/Python sources; PTX002 for
    # those is decided over every module of a run (source_suppressions.unused_findings).
    source_suppressions: tuple[source_suppressions.Use, ...] = ()


@record(slots=True)
class PartiallyAnalysedResult(FileResult):
    """A file whose analysis the step limit (or the time budget) cut short. Its findings are real
    but may be incomplete; ``notice`` says why and names the rules that did not run to the end,
    ``unfinished`` lists them (in rule order). Renderers show it, the summary never calls the run
    clean, and it makes the exit code 1 (unless `--exit-zero`): a check that did not finish did
    not pass."""

    notice: str = ""
    unfinished: tuple[str, ...] = ()


def read_source(path: str, max_file_size: int = DEFAULT_MAX_FILE_SIZE) -> SourceFile:
    """Read one input. Raises OSError or ValueError with a message fit for the user."""
    if path == STDIN:
        data = sys.stdin.buffer.read(max_file_size + 1)
        display = "<stdin>"
    else:
        status = os.stat(path)
        if not stat.S_ISREG(status.st_mode):
            # Opening a FIFO or a terminal would wait for a writer that may never come.
            raise ValueError(f"not a regular file ({_file_kind(status.st_mode)}); to lint a stream, pipe it to `ptxlint -`")
        size = status.st_size
        if size > max_file_size:
            raise ValueError(f"file is {size:,} bytes, over the {max_file_size:,}-byte limit (--max-file-size)")
        with open(path, "rb") as handle:
            data = handle.read(max_file_size + 1)
        display = path
    if len(data) > max_file_size:
        raise ValueError(f"input is over the {max_file_size:,}-byte limit (--max-file-size)")
    if b"\0" in data[:_BINARY_PROBE]:
        raise ValueError("binary file (it contains NUL bytes), not PTX text")
    return SourceFile.from_bytes(display, data)


def _file_kind(mode: int) -> str:
    for test, kind in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a directory")):
        if test(mode):
            return kind
    return "a special file"


def lint_source(source: SourceFile, settings: LintSettings) -> list[Diagnostic]:
    """The findings on one module, its unused source suppressions included (judged on it alone)."""
    analysis = analyse(source, settings)
    if not analysis.source_suppressions:
        return analysis.diagnostics
    (result,) = source_suppressions.unused_findings(
        [FileResult(source.path, tuple(analysis.diagnostics), source_suppressions=analysis.source_suppressions)]
    )
    return list(result.diagnostics)


def analyse(source: SourceFile, settings: LintSettings, on_stage: Callable[[str], None] | None = None) -> Analysis:
    """Lower, run the rules, apply suppressions, then report the suppressions nothing used
    (PTX002 needs every other rule's findings, so it runs last, here, not as an ordinary rule).

    The cycle collector stays paused until the file's IR and pass results are gone: resumed
    while they were alive, its first collection walked every one of them (a twentieth of the
    run on a big kernel) to find nothing, as they hold no garbage cycles."""
    with _cycle_collector_paused():
        return _analyse(source, settings, on_stage)


def _analyse(source: SourceFile, settings: LintSettings, on_stage: Callable[[str], None] | None) -> Analysis:
    """:func:`analyse`, with the collector paused by the caller: the IR (``module``) and the
    pass results (``context``) die with this frame, before the collector resumes.

    The budget (ptxlint/analysis_limits.py) is cooperative: the dataflow solver spends it, step
    by step, and the driver looks at the time budget between rules. A rule the budget stops is
    named in the notice, and so is every rule skipped because the time had run out; the
    findings made are kept. Past the step limit the later rules still run: those that need the
    solver stop at once, the others (the ISA checks) finish. With the default, a step limit and
    no time budget, where the analysis stops depends only on the input, the rules and the
    options, never on the machine."""
    budget = Budget(settings.steps, settings.seconds)
    found: list[Diagnostic] = []
    crashes: list[str] = []
    unfinished: list[str] = []  # rules stopped or skipped, in rule order
    skipped: list[str] = []  # rules not started: the time budget had run out
    timings = Timings() if settings.timings else None
    with budget.active():
        if on_stage is not None:
            on_stage("parsing")
        with measured(timings, "parse + lower"):
            module = lower(source)
        context = ModuleContext(module, settings.options, budget, timings)
        has_bodies = any(function.has_body for function in module.functions)
        # A big module's pass results go once no later rule needs them. Small modules keep
        # them: knowing which to drop loads every pass declaration, and they weigh little.
        released = (
            released_after([rule.requires for rule in settings.rules]) if len(source.data) >= _RELEASE_PASSES_FROM else None
        )
        for position, rule in enumerate(settings.rules):
            if released is not None and position:
                context.forget(released[position - 1])
            if rule.reads_function_bodies and not has_bodies:
                continue
            if budget.out_of_time:
                unfinished.append(rule.code)
                skipped.append(rule.code)
                continue
            if on_stage is not None:
                on_stage(f"{rule.code} {rule.name}")
            try:
                with measured(timings, rule.code), context.running(rule):
                    found.extend(rule.check(context))
            except BudgetExceeded:
                unfinished.append(rule.code)
            except Exception as error:  # noqa: BLE001 - one broken rule must not hide the others' findings
                crashes.append(f"internal error in {rule.code} ({type(error).__name__}: {error}); please report it")
    if _kept_until_exit is not None:
        _kept_until_exit.append((module, context))
    ptxas_notice = None
    if settings.ptxas is not None:
        from ptxlint.frontends import ptxas  # runs a process: only with `--ptxas`

        with measured(timings, "ptxas"):
            verdict, ptxas_notice = ptxas.check(source, module, settings.ptxas, found)
        found.extend(verdict)
    # Origins first: a comment on a CUDA/Python line suppresses through the finding's `.loc`.
    project = project_folders(source.path)
    with measured(timings, "source map"):
        found = attach_origins(module, found, project)
    with measured(timings, "suppressions"):
        comments = suppressions.parse(source)
        outcome = suppressions.apply(found, comments)
        source_comments = source_suppressions.read(module, source.path)
        in_source = source_suppressions.apply(outcome.kept, source_comments)
        diagnostics = in_source.kept
        report_unused = unused_suppression.RULE.code in settings.codes
        if report_unused and unfinished:
            unfinished.append(unused_suppression.RULE.code)  # unknowable: a skipped rule may have used them
            skipped.append(unused_suppression.RULE.code)
        elif report_unused:
            unused = unused_suppression.report(comments, outcome.used, settings.codes)
            diagnostics.extend(attach_origins(module, suppressions.apply(unused, _file_wide(comments)).kept, project))
        source_uses = source_suppressions.uses(
            module, source_comments, in_source.used, settings.codes, report_unused, bool(unfinished), _file_wide(comments)
        )
    diagnostics = _override_severity(diagnostics, settings.severity)
    if settings.severity:
        source_uses = [
            dataclasses.replace(use, finding=_override_severity([use.finding], settings.severity)[0]) if use.finding else use
            for use in source_uses
        ]
    notice = ptxas_notice
    if unfinished:
        stopped = [code for code in unfinished if code not in skipped]
        notice = f"partially analysed: {budget.exceeded}"
        notice += f"; stopped {', '.join(stopped)}" if stopped else ""
        notice += f"; skipped {', '.join(skipped)}" if skipped else ""
        notice += f"; {ptxas_notice}" if ptxas_notice else ""
    if ptxas_notice:
        unfinished.append("ptxas")  # what was asked for did not run: not a clean result
    return Analysis(
        sorted(diagnostics, key=Diagnostic.sort_key), outcome.suppressed + in_source.suppressed, tuple(crashes),
        tuple(unfinished), notice, timings.items() if timings is not None else (), budget.steps, tuple(source_uses),
    )


def project_folders(path: str) -> tuple[str, ...]:
    """The folders of the user's own code for a linted file: its own folder (for a module a front
    end made, `kernel.cu[sm_100a]`, the input's) and the working directory. Frames of `.loc`
    outside them, or in a library's folder inside them, are a library's (ptxlint/sourcemap.py)."""
    if path.endswith("]") and "[" in path:
        path = path[: path.rindex("[")]
    folders = [os.getcwd()]
    if not path.startswith("<"):
        folders.insert(0, os.path.dirname(os.path.abspath(path)))
    return tuple(folders)


def keep_analyses_until_exit() -> None:
    """Keep each file's IR and pass results instead of freeing them, for a process that ends with
    `os._exit` once its only file is reported: freeing the millions of objects of a big kernel's
    IR one by one took a twentieth of its run, for memory the process gives back at once."""
    global _kept_until_exit
    if _kept_until_exit is None:
        _kept_until_exit = []


@contextlib.contextmanager
def _cycle_collector_paused() -> Iterator[None]:
    """The analyses allocate millions of short-lived objects next to an IR of millions of
    long-lived ones; each full collection the allocations trigger walks the whole IR, for nothing:
    the IR holds no garbage cycles. The collector resumes once the file is done."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _file_wide(comments: list[suppressions.Suppression]) -> list[suppressions.Suppression]:
    """Only `file-ignore[PTX002]` silences PTX002: a line comment cannot vouch for itself."""
    return [comment for comment in comments if comment.whole_file]


def _override_severity(diagnostics: list[Diagnostic], severity: Mapping[str, Severity]) -> list[Diagnostic]:
    if not severity:
        return diagnostics
    return [
        dataclasses.replace(diagnostic, severity=severity[diagnostic.code]) if diagnostic.code in severity else diagnostic
        for diagnostic in diagnostics
    ]


def lint_path(path: str | SourceFile, settings: LintSettings, on_stage: Callable[[str], None] | None = None) -> FileResult:
    """Lint one input: a path to read, or PTX a front end already produced. ``on_stage`` hears
    what the analysis is doing (parsing, then each rule), for a progress display."""
    if isinstance(path, SourceFile):
        source = path
    else:
        try:
            source = read_source(path, settings.max_file_size)
        except (OSError, ValueError) as error:
            reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
            display = "<stdin>" if path == STDIN else path
            return FileResult(display, error=reason)
    cached = _results_cache(source, settings)
    if cached is not None:
        from ptxlint.cache import decode_analysis, encode_analysis

        store, key = cached
        known = decode_analysis(store.load(key))
        if known is not None:
            return _result(source, known)
    analysis = analyse(source, settings, on_stage)
    if cached is not None and not analysis.crashes:
        store.store(key, encode_analysis(analysis))
    return _result(source, analysis)


def _result(source: SourceFile, analysis: Analysis) -> FileResult:
    error = "; ".join(analysis.crashes) or None
    if analysis.notice is not None:
        return PartiallyAnalysedResult(
            source.path, tuple(analysis.diagnostics), source, error=error, suppressed=analysis.suppressed,
            timings=analysis.timings, source_suppressions=analysis.source_suppressions, notice=analysis.notice,
            unfinished=analysis.unfinished,
        )
    return FileResult(
        source.path, tuple(analysis.diagnostics), source, error=error, suppressed=analysis.suppressed,
        timings=analysis.timings, source_suppressions=analysis.source_suppressions,
    )


def _results_cache(source: SourceFile, settings: LintSettings) -> tuple[Store, str] | None:
    """Where the result of linting ``source`` under ``settings`` is cached, and its key
    (ptxlint/cache.py), or None when this run is not cached: no cache asked for, a wall-clock
    budget (the findings would depend on the machine's load), or `--timings` (it measures the
    analysis itself)."""
    if settings.cache_dir is None or settings.seconds or settings.timings or settings.ptxas is not None:
        return None  # `--ptxas`: another program's verdict, not keyed here
    from ptxlint import cache

    severity = ",".join(f"{code}={level.value}" for code, level in sorted(settings.severity.items()))
    return cache.results_store(Path(settings.cache_dir)), cache.key(
        "results", cache.code_digest(), source.data, ",".join(rule.code for rule in settings.rules),
        repr(settings.options), severity, str(settings.steps), _source_files_identity(source),
        # Which frames are the user's and which a library's depends on where the input is.
        "|".join(project_folders(source.path)),
    )


# `.file 1 "kernel.cu"`: the CUDA and Python files whose suppression comments apply to a module.
_FILE_DIRECTIVE = re.compile(rb'^[ \t]*\.file[ \t]+\d+[ \t]+"([^"\n]*)"', re.M)


def _source_files_identity(source: SourceFile) -> str:
    """What the cached result depends on besides the PTX: the files `.file` names, which hold
    suppression comments (source_suppressions), by path, size and modification time."""
    parts = []
    for match in _FILE_DIRECTIVE.finditer(source.data):
        path = source_suppressions.locate(match.group(1).decode("utf-8", "replace"), source.path)
        if path is None:
            continue
        try:
            status = os.stat(path)
        except OSError:
            continue
        parts.append(f"{path}:{status.st_size}:{status.st_mtime_ns}")
    return "|".join(parts)


def notice_of(result: FileResult) -> str | None:
    """The partial-analysis notice of a result, if it has one."""
    return getattr(result, "notice", None) or None


def lint_paths(
    jobs: Sequence[tuple[str | SourceFile, LintSettings]], processes: int = 1, on_done: Callable[[], None] | None = None
) -> list[FileResult]:
    """Lint every (path, settings) pair, in order. With ``processes`` > 1 the files are spread over
    a process pool: parsing and lowering hold the GIL, so threads would not help. Standard input
    is read here, in the parent, since workers cannot share it."""
    if processes <= 1 or len(jobs) < 2 or any(path == STDIN for path, _ in jobs):
        return [_tick(lint_path(path, settings), on_done) for path, settings in jobs]
    from concurrent.futures import ProcessPoolExecutor, as_completed

    # Largest files first, one file per task: a 400,000-line kernel handed out last (or inside a
    # chunk of sixteen) would leave the other workers idle while it finishes.
    order = sorted(range(len(jobs)), key=lambda position: -_size(jobs[position][0]))
    results: list[FileResult | None] = [None] * len(jobs)
    with ProcessPoolExecutor(max_workers=processes) as pool:
        futures = {pool.submit(lint_path, *jobs[position]): position for position in order}
        for future in as_completed(futures):
            results[futures[future]] = _tick(future.result(), on_done)
    return results  # type: ignore[return-value]  # every position is filled


def input_size(path: str | SourceFile) -> int:
    """Bytes of an input (0 when unknown), to order work and decide whether to show progress."""
    return _size(path)


def _size(path: str | SourceFile) -> int:
    if isinstance(path, SourceFile):
        return len(path.data)
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def _tick(result: FileResult, on_done: Callable[[], None] | None) -> FileResult:
    if on_done is not None:
        on_done()
    return result
