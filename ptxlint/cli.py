"""The `ptxlint` command line. Option parsing and output selection only: the work happens in
`lint`, `config`, `baseline`, the formatting in `render`.

Imports of the linter itself (tree-sitter, rules, rich) happen inside the commands, so that
`ptxlint --version` and `--help` start fast.
"""

from __future__ import annotations

import gc
import os
import sys
import time
from typing import TYPE_CHECKING, Any, Callable, NoReturn, TextIO

import click

from ptxlint import __version__

if TYPE_CHECKING:
    from collections import Counter

    from ptxlint.config import ConfigResolver
    from ptxlint.diagnostics import FileResult
    from ptxlint.discovery import FileSelection, Unlintable
    from ptxlint.lint import LintSettings
    from ptxlint.render import Report
    from ptxlint.source import SourceFile

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
DEFAULT_MAX_FILE_SIZE = 256 * 1024 * 1024  # mirrors ptxlint.lint, which is not imported for --help
_FORMATS = ("full", "concise", "json", "sarif", "github")
_PROGRESS_THRESHOLD = 20  # files; below this a progress bar only flickers
_STAGE_PROGRESS_BYTES = 4 * 1024 * 1024  # a single input this large shows what is being done


class _DefaultToCheck(click.Group):
    """`ptxlint FILE...` means `ptxlint check FILE...`; named subcommands still work."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        # `ptxlint kernel.cu -- -I include -std=c++17`: what follows `--` is for the compiler.
        if "--" in args:
            split = args.index("--")
            args, ctx.meta["ptxlint.compiler_flags"] = args[:split], tuple(args[split + 1 :])
        args = self._command_first(args)
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h", "--version"):
            self._reject_mistyped_command(args)
            args = ["check", *args]
        elif not args:
            args = ["check"]
        return super().parse_args(ctx, args)

    def _first_positional(self, args: list[str]) -> int:
        """The index of the first argument that is neither an option nor an option's value (as
        `check` reads them: `-o FILE`, `--output-format json`), or len(args)."""
        takes_value = {
            name for parameter in self.commands["check"].params if isinstance(parameter, click.Option)
            and not parameter.is_flag and not parameter.count for name in parameter.opts
        }
        position = 0
        while position < len(args) and args[position].startswith("-") and args[position] != "-":
            position += 2 if args[position] in takes_value else 1
        return position

    def _command_first(self, args: list[str]) -> list[str]:
        """`ptxlint -q rules` is `ptxlint rules -q`: options may come before the subcommand."""
        position = self._first_positional(args)
        if 0 < position < len(args) and args[position] in self.commands:
            return [args[position], *args[:position], *args[position + 1 :]]
        return args

    def _reject_mistyped_command(self, args: list[str]) -> None:
        """`ptxlint rulez` is a mistyped subcommand, not a missing file, when no such file exists
        and the word is close to a subcommand's name."""
        position = self._first_positional(args)
        if position >= len(args):
            return
        word = args[position]
        if os.path.lexists(word) or any(character in word for character in "./\\"):
            return
        import difflib  # only for a word that is neither a file nor a subcommand

        close = difflib.get_close_matches(word, [name for name in self.commands if name != "check"], n=1, cutoff=0.6)
        if close:
            _fail(f"unknown command `{word}` (did you mean `ptxlint {close[0]}`?)")


@click.group(cls=_DefaultToCheck, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="ptxlint")
def main() -> None:
    """A linter and static analyzer for NVIDIA PTX.

    \b
    ptxlint kernel.ptx                 lint files (folders: their .ptx, .cu and .fatbin files)
    ptxlint kernel.cu --arch sm_90a    compile CUDA C++ with nvcc and lint its PTX
    ptxlint libkernels.so              lint the PTX embedded in a binary
    ptxlint rules                      list the rules
    ptxlint rule PTX101                explain one rule
    ptxlint server                     the language server, for editors
    ptxlint clean                      empty the results and nvcc caches
    ptxlint dump ir kernel.ptx         show the intermediate representation
    ptxlint dump uniformity kernel.ptx show which values are warp-uniform (any pass: `ptxlint dump`)
    """


# Whether `run` paused the cycle collector for start-up (see `_start_up_finished`).
_collector_paused = False
# Whether the process ends with `os._exit` once the command returns (`run`, not a test's runner).
_ends_with_exit = False


def run() -> NoReturn:
    """The `ptxlint` program: :func:`main`, then the process ends without tearing the interpreter
    down. Freeing every module, class and cache one by one at exit cost a tenth of linting a
    5,000-line kernel; nothing ptxlint opens outlives the command (files, the `-j` worker pool
    and the compilers' scratch directories are closed by their `with` blocks), so only the output
    streams need flushing. An unexpected exception still ends the ordinary way, with its
    traceback.

    Start-up allocates only what lives as long as the process (modules, classes, tables), which
    the cycle collector would walk again and again for nothing: it is paused until the linter is
    loaded."""
    global _collector_paused, _ends_with_exit
    gc.disable()
    _collector_paused = True
    _ends_with_exit = True
    try:
        main()
        code: object = EXIT_CLEAN
    except SystemExit as exit:
        code = exit.code
    if code is not None and not isinstance(code, int):  # `sys.exit("message")`
        print(code, file=sys.stderr)
        code = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (BrokenPipeError, ValueError):  # the reader has gone, or the stream is closed
            pass
    os._exit(code or 0)


def _linting_the_only_module() -> None:
    """Pause the cycle collector for good before the one module of a run is linted in this
    process: the process ends with `os._exit`, so the garbage cycles the analyses leave (with the
    IR they reach: most of a big tcgen05 kernel) need never be walked or freed. The collection
    otherwise run as the file ends took a tenth of the 396k-line CUTLASS FMHA example, and freeing
    the IR a twentieth."""
    if _ends_with_exit:
        gc.disable()
        from ptxlint.lint import keep_analyses_until_exit

        keep_analyses_until_exit()


def _start_up_finished() -> None:
    """Resume the cycle collector `run` paused, with what start-up loaded frozen out of its
    sight: a run over many files needs it between them, and need not walk the modules again."""
    global _collector_paused
    if _collector_paused:
        _collector_paused = False
        gc.freeze()
        gc.enable()


def _selectors(values: tuple[str, ...]) -> tuple[str, ...]:
    """`--select A,B --select C` → (A, B, C)."""
    return tuple(item.strip() for value in values for item in value.split(",") if item.strip())


def _config_options(command):  # type: ignore[no-untyped-def]
    """The options shared by `check` and `rules`: where configuration comes from."""
    command = click.option("--isolated", is_flag=True, help="Ignore every configuration file.")(command)
    command = click.option(
        "--config", "config_file", metavar="FILE", help="Use this ptxlint.toml or pyproject.toml for every file."
    )(command)
    for flag, text in (
        ("--ignore", "Rules to turn off (codes, names or prefixes; comma-separated, repeatable)."),
        ("--extend-select", "Rules to add to the selection."),
        ("--select", "Rules to run instead of the configured selection (ALL: every rule)."),
    ):
        command = click.option(flag, multiple=True, metavar="RULES", help=text)(command)
    return command


def _quiet_option(command):  # type: ignore[no-untyped-def]
    """`-q` is accepted by every subcommand, so that `ptxlint -q rules` works as `ptxlint -q x.ptx` does."""
    return click.option("-q", "--quiet", is_flag=True, help="Print only what was asked for.")(command)


def _listing_format_option(command):  # type: ignore[no-untyped-def]
    return click.option(
        "--output-format", type=click.Choice(["text", "json"]), default="text", show_default=True,
        help="A table for people, or JSON for scripts and editors.",
    )(command)


@main.command()
@click.argument("paths", nargs=-1)
@click.option("--output-format", type=click.Choice(_FORMATS), default="full", show_default=True, help="How findings are printed.")
@click.option("-o", "--output-file", metavar="FILE", help="Write the findings to FILE instead of standard output.")
@click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True)
@_config_options
@click.option("--map-to-source", is_flag=True, help="Report findings at the CUDA/Triton line named by `.loc`.")
@click.option(
    "--arch", "architectures", multiple=True, metavar="SM",
    help="Compile `.cu` inputs for this architecture (repeatable; default: `cuda-arch` in the configuration, else sm_100a).",
)
@click.option(
    "-p", "--compile-commands", metavar="PATH",
    help="Take each `.cu` file's compiler flags from this compile_commands.json (or the folder holding it).",
)
@click.option(
    "--keep-ptx", metavar="DIR",
    help="Write the PTX of each `.cu` or binary input into DIR (kernel.sm_100a.ptx); PTX locations then point there.",
)
@click.option("--show-all-steps", is_flag=True, help="Print every step of a finding's path, not only the branches that decide it.")
@click.option(
    "--no-group", is_flag=True,
    help="Print every finding; by default the terminal shows one per CUDA/Triton line or repeated pattern.",
)
@click.option(
    "--exclude", multiple=True, metavar="PATTERN",
    help="Leave out what folders yield that matches PATTERN, instead of the `exclude` setting (comma-separated, repeatable).",
)
@click.option("--extend-exclude", multiple=True, metavar="PATTERN", help="Leave out these too (comma-separated, repeatable).")
@click.option("--force-exclude", is_flag=True, default=None, help="Apply the excludes to the paths named on the command line too.")
@click.option(
    "--respect-gitignore/--no-respect-gitignore", default=None,
    help="Leave out what .gitignore files ignore (default: `respect-gitignore`, else yes).",
)
@click.option("--baseline", "baseline_file", metavar="FILE", help="Hide the findings recorded in FILE.")
@click.option("--write-baseline", metavar="FILE", help="Record every current finding in FILE and exit 0.")
@click.option(
    "--add-suppressions", is_flag=True,
    help="Write a `ptxlint: ignore[...]` comment for every current finding (on the PTX line, or the .cu/.py line "
    "of compiled inputs) and print how many were added.",
)
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=1, show_default=True, help="Lint in this many processes.")
@click.option(
    "--statistics", is_flag=True,
    help="Print how often each rule fired instead of the findings (a JSON list with --output-format json).",
)
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are findings.")
@click.option("-q", "--quiet", is_flag=True, help="Print findings only: no summary, no progress bar.")
@click.option(
    "--timings", is_flag=True,
    help="Print the CPU time of each stage (parsing, every analysis, every rule) to stderr, summed over the files.",
)
@click.option(
    "--ptxas", "use_ptxas", is_flag=True,
    help="Also run ptxas (PATH, $CUDA_HOME or the NVIDIA wheels) on each PTX module and report its errors "
    "as PTX401–PTX405 findings.",
)
@click.option(
    "--max-file-size",
    type=click.IntRange(min=1),
    default=DEFAULT_MAX_FILE_SIZE,
    show_default=True,
    help="Refuse inputs larger than this many bytes.",
)
@click.option(
    "--max-analysis-steps",
    type=click.IntRange(min=0),
    metavar="STEPS",
    help="Analyse each file for at most this many dataflow steps, then report it as partially analysed "
    "(deterministic; 0: unlimited; default: `max-analysis-steps` in the configuration, else 30,000,000).",
)
@click.option(
    "--time-budget",
    type=click.FloatRange(min=0),
    metavar="SECONDS",
    help="Also stop each file's analysis after this many seconds (0: off; default: `time-budget` in the "
    "configuration, else off; findings then depend on the machine's load).",
)
@click.option(
    "--stdin-filename", metavar="PATH",
    help="Read the file from standard input and lint it as PATH: PATH's configuration and per-file ignores "
    "apply, findings are reported under PATH (for editors; `.cu` text is compiled as PATH would be).",
)
@click.option("--watch", is_flag=True, help="Lint again whenever an input or its configuration changes (polling).")
@click.option("--no-cache", is_flag=True, help="Neither read nor write the results and nvcc caches (`ptxlint clean` empties them).")
@click.option(
    "--cache-dir", metavar="DIR",
    help="Keep the caches here (default: $PTXLINT_CACHE_DIR, else ~/.cache/ptxlint).",
)
def check(
    paths: tuple[str, ...],
    output_format: str,
    output_file: str | None,
    color: str,
    isolated: bool,
    config_file: str | None,
    select: tuple[str, ...],
    extend_select: tuple[str, ...],
    ignore: tuple[str, ...],
    map_to_source: bool,
    architectures: tuple[str, ...],
    compile_commands: str | None,
    keep_ptx: str | None,
    show_all_steps: bool,
    no_group: bool,
    exclude: tuple[str, ...],
    extend_exclude: tuple[str, ...],
    force_exclude: bool | None,
    respect_gitignore: bool | None,
    baseline_file: str | None,
    write_baseline: str | None,
    add_suppressions: bool,
    jobs: int,
    statistics: bool,
    exit_zero: bool,
    quiet: bool,
    timings: bool,
    max_file_size: int,
    max_analysis_steps: int | None,
    time_budget: float | None,
    stdin_filename: str | None,
    watch: bool,
    no_cache: bool,
    cache_dir: str | None,
    use_ptxas: bool = False,
) -> None:
    """Lint PTX files, CUDA C++ files (compiled with nvcc) and the PTX inside binaries.

    Compiler flags for `.cu` files follow `--`: `ptxlint kernel.cu -- -I include -std=c++17`."""
    from ptxlint.render import Report
    from ptxlint.rules import ALL_RULES

    if stdin_filename is not None:
        if paths not in ((), ("-",)):
            raise click.UsageError("--stdin-filename lints standard input: give no other path (or -)")
        if watch:
            raise click.UsageError("--watch needs files to watch, not standard input")
        paths = ("-",)
    if watch:
        if write_baseline:
            raise click.UsageError("--watch and --write-baseline do not go together")
        from ptxlint.watch import watch as watch_inputs

        context = click.get_current_context()
        watch_inputs(paths, config_file, isolated, lambda: context.invoke(check, **{**context.params, "watch": False}), quiet)
    if not paths:
        raise click.UsageError("no input: give one or more PTX, CUDA or binary files, directories, or - for stdin")
    resolver = _resolver(config_file, isolated, select, extend_select, ignore)
    compiler_flags = click.get_current_context().meta.get("ptxlint.compiler_flags", ())
    files = _discover(
        paths, resolver, _selectors(exclude) if exclude else None, _selectors(extend_exclude), force_exclude,
        respect_gitignore,
    )
    if not files and not quiet:  # only --force-exclude leaves nothing: said, then a clean (empty) report
        click.echo("ptxlint: warning: every path given is excluded (--force-exclude); nothing to lint", err=True)
    known = _read_baseline(baseline_file) if baseline_file else None
    started = time.perf_counter()
    ptxas_tool = None
    if use_ptxas:
        from ptxlint.frontends.toolkit import find_tool

        ptxas_tool = find_tool("ptxas")
        if ptxas_tool is None:
            _fail("--ptxas needs `ptxas`, which is not on PATH, in $CUDA_HOME/bin or in this Python's NVIDIA wheels; "
                  "install a CUDA toolkit or run `pip install 'ptxlint[cuda]'`")
    results = _lint_inputs(
        files, resolver, max_file_size, time_budget, jobs, quiet, architectures, compiler_flags, compile_commands,
        timings, max_analysis_steps, keep_ptx, stdin_filename=stdin_filename,
        cache_dir=None if no_cache else _cache_dir(cache_dir), ptxas_tool=ptxas_tool,
    )
    elapsed = time.perf_counter() - started
    if write_baseline:
        _write_baseline(write_baseline, results, quiet, config_file, isolated)
        return
    if known is not None and baseline_file is not None:
        from ptxlint import baseline

        results = baseline.apply(results, known, baseline.project_root(baseline_file, config_file, isolated))
    if add_suppressions:
        _add_suppressions(results, quiet)
    report = Report(
        tuple(results), rules=ALL_RULES, elapsed=elapsed, map_to_source=map_to_source, all_steps=show_all_steps,
        group=not no_group,
    )
    with _output(output_file) as stream:
        _emit(report, output_format, stream, color, statistics, quiet)
    if timings:
        _print_timings(results)
    sys.exit(_exit_code(results, exit_zero))


def _discover(
    paths: tuple[str, ...],
    resolver: ConfigResolver,
    exclude: tuple[str, ...] | None,
    extend_exclude: tuple[str, ...],
    force_exclude: bool | None,
    respect_gitignore: bool | None,
) -> list[str | Unlintable]:
    """The files to lint (ptxlint/discovery.py), under each folder's configuration with the
    command line's `--exclude`, `--extend-exclude` (relative to the working directory) and
    `--[no-]respect-gitignore` over it; `--force-exclude`, else `force-exclude` where ptxlint runs."""
    import dataclasses

    from ptxlint.config import ConfigError
    from ptxlint.discovery import Pattern, default_selection, discover

    here = os.path.abspath(os.curdir)

    def selection_for(directory: str) -> FileSelection:
        try:
            selection = resolver.for_directory(directory).file_selection or default_selection()
        except ConfigError as error:
            _fail(str(error))
        if exclude is not None:
            selection = dataclasses.replace(selection, exclude=tuple(Pattern(glob, here) for glob in exclude))
        if extend_exclude:
            selection = dataclasses.replace(
                selection, exclude=selection.exclude + tuple(Pattern(glob, here) for glob in extend_exclude)
            )
        if respect_gitignore is not None:
            selection = dataclasses.replace(selection, respect_gitignore=respect_gitignore)
        return selection

    if force_exclude is None:
        try:
            force_exclude = resolver.for_directory(here).force_exclude
        except ConfigError as error:
            _fail(str(error))
    return discover(paths, selection_for, force_exclude)


def _lint_inputs(
    files: list[str | Unlintable],
    resolver: ConfigResolver,
    max_file_size: int,
    time_budget: float | None,
    jobs: int,
    quiet: bool,
    architectures: tuple[str, ...],
    compiler_flags: tuple[str, ...],
    compile_commands: str | None,
    timings: bool = False,
    max_analysis_steps: int | None = None,
    keep_ptx: str | None = None,
    stdin_filename: str | None = None,
    cache_dir: str | None = None,
    ptxas_tool: str | None = None,
) -> list[FileResult]:
    """Turn every input into PTX (compiling `.cu` files, extracting binaries' PTX), lint it, and
    return one result per PTX module in input order. A front end that fails (nvcc reports an
    error) prints the tool's own output and leaves an error result: exit code 2."""
    import dataclasses

    from ptxlint.diagnostics import FileResult
    from ptxlint.discovery import Unlintable
    from ptxlint.frontends import (
        CompileOptions, FailedModule, FrontEndError, from_triton_cache, keep_ptx as write_ptx, modules_of,
        needs_front_end,
    )
    from ptxlint.lint import input_size, lint_path, lint_paths
    from ptxlint.source import SourceFile

    _start_up_finished()
    work: list[tuple[str | SourceFile, LintSettings]] = []
    slots: list[FileResult | tuple[int, bool]] = []  # a failure, or (position in work, map to source)
    kept: dict[int, str] = {}  # position in work → the PTX file `--keep-ptx` wrote for it
    taken: set[str] = set()
    for path in files:
        if isinstance(path, Unlintable):
            slots.append(FileResult(path.path, error=path.message))
            continue
        buffer_of = stdin_filename if path == "-" and stdin_filename else None  # `--stdin-filename`
        settings = _settings_for(resolver, buffer_of or path, max_file_size, time_budget, max_analysis_steps)
        if timings:
            settings = dataclasses.replace(settings, timings=True)
        if ptxas_tool:
            settings = dataclasses.replace(settings, ptxas=ptxas_tool)
        if cache_dir is not None:
            settings = dataclasses.replace(settings, cache_dir=cache_dir)
        contents = None  # the text of a `.cu` buffer, compiled as `buffer_of`
        if buffer_of is not None:
            buffered = _stdin_buffer(buffer_of, max_file_size)
            if isinstance(buffered, FileResult):
                slots.append(buffered)
                continue
            if not buffer_of.endswith(".cu"):
                slots.append((len(work), False))
                work.append((buffered, settings))
                continue
            contents = buffered.data
        if buffer_of is None and not needs_front_end(path):
            in_triton_cache = from_triton_cache(path)
            if in_triton_cache:
                _warn_if_stale_triton_source(path)
            slots.append((len(work), in_triton_cache))
            work.append((path, settings))
            continue
        options = CompileOptions(
            architectures or resolver.for_path(buffer_of or path).cuda_arch, tuple(compiler_flags), compile_commands,
            cache_dir,
        )
        try:
            modules = modules_of(buffer_of or path, options, contents)
        except FrontEndError as error:
            if error.output:
                click.echo(error.output.rstrip("\n"), err=True)
            slots.append(FileResult(buffer_of or path, error=str(error), tool_output=error.output))
            continue
        if keep_ptx is not None:
            compiled = [module for module in modules if not isinstance(module, FailedModule)]
            try:
                written = write_ptx(compiled, keep_ptx, taken)
            except OSError as error:
                _fail(f"{keep_ptx}: cannot write the PTX ({error.strerror or error})")
            kept.update(zip(range(len(work), len(work) + len(compiled)), written))
        for module in modules:
            if isinstance(module, FailedModule):  # one architecture of several failed to compile
                if module.error.output:
                    click.echo(module.error.output.rstrip("\n"), err=True)
                slots.append(FileResult(module.path, error=str(module.error), tool_output=module.error.output))
                continue
            slots.append((len(work), module.map_to_source))
            work.append((module.source, settings))
    if len(work) == 1:
        _linting_the_only_module()
    if len(work) == 1 and not quiet and sys.stderr.isatty() and input_size(work[0][0]) >= _STAGE_PROGRESS_BYTES:
        with _stages(work[0][0]) as on_stage:
            linted = [lint_path(*work[0], on_stage=on_stage)]
    else:
        with _progress(len(work), enabled=not quiet) as tick:
            linted = lint_paths(work, processes=jobs, on_done=tick)
    linted = [dataclasses.replace(result, kept_ptx=kept[position]) if position in kept else result for position, result in enumerate(linted)]
    from ptxlint.source_suppressions import unused_findings

    # Unused suppressions in CUDA/Python sources are judged over every module that compiled them.
    return unused_findings([
        slot if isinstance(slot, FileResult)
        else dataclasses.replace(linted[slot[0]], map_to_source=True) if slot[1] else linted[slot[0]]
        for slot in slots
    ])


def _stdin_buffer(path: str, max_file_size: int) -> SourceFile | FileResult:
    """Standard input, named ``path`` (`--stdin-filename`), or the error result of reading it."""
    from ptxlint.diagnostics import FileResult
    from ptxlint.lint import STDIN, read_source
    from ptxlint.source import SourceFile

    try:
        data = read_source(STDIN, max_file_size).data
    except (OSError, ValueError) as error:
        return FileResult(path, error=getattr(error, "strerror", None) or str(error))
    if path.endswith(".py"):
        return FileResult(path, error="a Python file is linted through the PTX Triton compiled from it (lint its cache)")
    return SourceFile.from_bytes(path, data)


def _cache_dir(option: str | None) -> str:
    """Where the caches are: `--cache-dir`, else ptxlint.cache's default (read only when used)."""
    if option is not None:
        return option
    from ptxlint.cache import cache_root

    return str(cache_root())


def _warn_if_stale_triton_source(path: str) -> None:
    from ptxlint.frontends.triton_cache import stale_source_warning
    from ptxlint.render.text import printable

    warning = stale_source_warning(path)
    if warning is not None:
        click.echo(f"ptxlint: warning: {printable(path)}: {printable(warning)}", err=True)


def _print_timings(results: list[FileResult]) -> None:
    from ptxlint.timings import format_table, merge

    totals: dict[str, float] = {}
    linted = [result for result in results if result.timings]
    for result in linted:
        merge(totals, result.timings)
    click.echo(format_table(totals, len(linted)), err=True)


def _resolver(
    config_file: str | None, isolated: bool, select: tuple[str, ...], extend_select: tuple[str, ...], ignore: tuple[str, ...]
) -> ConfigResolver:
    from ptxlint.config import CommandLineSelection, ConfigError, ConfigResolver, FileConfig, resolve

    command_line = CommandLineSelection(
        select=_selectors(select) or None, extend_select=_selectors(extend_select), ignore=_selectors(ignore)
    )
    try:
        resolve(FileConfig(), command_line)  # reject a bad --select before reading any file
        return ConfigResolver(config_file, isolated, command_line)
    except ConfigError as error:
        _fail(str(error))


def _settings_for(
    resolver: ConfigResolver, path: str, max_file_size: int, time_budget: float | None = None,
    max_analysis_steps: int | None = None,
) -> LintSettings:
    from ptxlint.config import ConfigError
    from ptxlint.lint import LintSettings

    try:
        config = resolver.for_path(path)
    except ConfigError as error:
        _fail(str(error))
    return LintSettings(
        rules=config.rules_for(path),
        options=config.options,
        max_file_size=max_file_size,
        severity=config.severity,
        time_budget=time_budget,
        max_analysis_steps=max_analysis_steps,
    )


def _read_baseline(path: str) -> Counter[tuple[str, str, str]]:
    """The findings a baseline file records (its reader, with hashlib and json, loads only here)."""
    from ptxlint import baseline

    try:
        return baseline.read(path)
    except baseline.BaselineError as error:
        _fail(str(error))


def _write_baseline(
    path: str, results: list[FileResult], quiet: bool, config_file: str | None = None, isolated: bool = False
) -> None:
    from ptxlint import baseline

    try:
        count = baseline.write(path, results, baseline.project_root(path, config_file, isolated))
    except baseline.BaselineError as error:
        _fail(str(error))
    if not quiet:
        click.echo(f"ptxlint: recorded {count} finding{'s' if count != 1 else ''} in {path}", err=True)
    sys.exit(EXIT_ERROR if any(result.error for result in results) else EXIT_CLEAN)


def _add_suppressions(results: list[FileResult], quiet: bool) -> NoReturn:
    """Write the suppression comments, say what was done, and exit: 0 when every finding is now
    suppressed, 1 when some could not be (binaries, lines in files that cannot be edited), 2 when
    an input or a file to edit could not be read or written."""
    from ptxlint.add_suppressions import add
    from ptxlint.render.text import printable

    outcome = add(results)
    for error in outcome.errors:
        click.echo(f"ptxlint: error: {printable(error)}", err=True)
    if not quiet:
        files = len(outcome.files)
        click.echo(
            f"ptxlint: added {outcome.added} suppression{'s' if outcome.added != 1 else ''} "
            f"in {files} file{'s' if files != 1 else ''}", err=True,
        )
    for reason, count in sorted(outcome.not_added.items()):
        click.echo(f"ptxlint: {count} finding{'s' if count != 1 else ''} not suppressed: {reason}", err=True)
    if outcome.errors or any(result.error is not None for result in results):
        sys.exit(EXIT_ERROR)
    sys.exit(EXIT_FINDINGS if outcome.not_added else EXIT_CLEAN)


def _emit(report: Report, output_format: str, stream: TextIO, color: str, statistics: bool, quiet: bool) -> None:
    from ptxlint.render import renderer

    if statistics:
        from ptxlint.render import statistics as statistics_format

        if output_format == "json":
            statistics_format.render_json(report, stream)
        else:
            statistics_format.render(report, stream)
        return
    if output_format == "full":
        from ptxlint.render import summary

        if summary.only_a_summary(report):
            if not quiet:
                summary.write(report, stream, summary.use_color(stream, color))
            return
        from ptxlint.render import full

        full.render(report, full.console_for(stream, color), show_summary=not quiet)
    else:
        renderer(output_format).render(report, stream)


def _exit_code(results: list[FileResult], exit_zero: bool) -> int:
    """2 when a file could not be linted; else 1 when there are findings or a file was only
    partially analysed (a check that did not finish did not pass), unless `--exit-zero`."""
    if any(result.error is not None for result in results):
        return EXIT_ERROR
    if exit_zero:
        return EXIT_CLEAN
    failed = any(result.diagnostics or getattr(result, "notice", None) for result in results)
    return EXIT_FINDINGS if failed else EXIT_CLEAN


class _output:
    """Standard output, or the `-o` file (created only once the findings are ready)."""

    def __init__(self, path: str | None) -> None:
        self.path = path
        self.handle: TextIO | None = None

    def __enter__(self) -> TextIO:
        if self.path is None:
            return sys.stdout
        try:
            # surrogateescape: a file name that is not UTF-8 is written back as the bytes it was.
            self.handle = open(self.path, "w", encoding="utf-8", errors="surrogateescape")
        except OSError as error:
            _fail(f"{self.path}: cannot write: {error.strerror or error}")
        return self.handle

    def __exit__(self, *exc: object) -> None:
        if self.handle is not None:
            self.handle.close()


class _progress:
    """A transient progress bar on stderr, when stderr is a terminal and there are many files."""

    def __init__(self, total: int, enabled: bool) -> None:
        self.total = total
        self.enabled = enabled and total >= _PROGRESS_THRESHOLD and sys.stderr.isatty()
        self.bar = None

    def __enter__(self) -> Callable[[], None] | None:
        if not self.enabled:
            return None
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        self.bar = Progress(
            TextColumn("linting"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
            console=Console(stderr=True), transient=True,
        )
        self.bar.__enter__()
        task = self.bar.add_task("lint", total=self.total)
        return lambda: self.bar.advance(task)  # type: ignore[union-attr]

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.__exit__(*exc)


class _stages:
    """A transient status line on stderr naming the stage a single large input is in (parsing,
    then each rule), so a minute-long analysis does not look hung."""

    def __init__(self, source: object) -> None:
        self.name = getattr(source, "path", source)
        self.status = None

    def __enter__(self) -> Callable[[str], None]:
        from rich.console import Console

        self.status = Console(stderr=True).status(f"{self.name}: starting")
        self.status.__enter__()
        return lambda stage: self.status.update(f"{self.name}: {stage}")  # type: ignore[union-attr]

    def __exit__(self, *exc: object) -> None:
        if self.status is not None:
            self.status.__exit__(*exc)


@main.command()
@click.argument("what", required=False, metavar="PASS")
@click.argument("path", required=False)
@_config_options
@click.option("--arch", "architectures", multiple=True, metavar="SM", help="Compile a `.cu` input for this architecture (repeatable).")
@click.option("-p", "--compile-commands", metavar="PATH", help="Take a `.cu` file's compiler flags from this compile_commands.json.")
@_quiet_option
def dump(
    what: str | None, path: str | None, quiet: bool, architectures: tuple[str, ...] = (), compile_commands: str | None = None,
    **configuration: Any,
) -> None:
    """Print what a pass computes for each instruction of PATH (`ir`: the intermediate
    representation). Without arguments, list the passes. PATH is PTX, or a `.cu` file or binary
    as `check` takes them (compiler flags follow `--`); a module per architecture."""
    from ptxlint.passes import load, printable

    if what is None:
        click.echo(f"{'ir':<16}  the intermediate representation, one line per instruction")
        for name in printable():
            click.echo(f"{name:<16}  {load(name).doc}")
        return
    if what != "ir" and what not in printable():
        import difflib  # only for a mistyped pass name

        close = difflib.get_close_matches(what, ["ir", *printable()], n=1, cutoff=0.6)
        hint = f" (did you mean `{close[0]}`?)" if close else "; `ptxlint dump` lists them"
        _fail(f"unknown pass `{what}`{hint}")
    if path is None:
        _fail(f"`ptxlint dump {what}` needs a PTX file")
    from ptxlint.lower import lower

    resolver = _resolver(**configuration)
    sources = _dump_sources(path, resolver, architectures, compile_commands)
    options = resolver.for_path(path).options
    for number, source in enumerate(sources):
        if len(sources) > 1:
            click.echo(f"{'' if number == 0 else chr(10)}// {source.path}")
        module = lower(source)
        if what == "ir":
            from ptxlint.printer import format_module

            click.echo(format_module(module), nl=False)
            continue
        from ptxlint.context import ModuleContext
        from ptxlint.printer import format_pass

        click.echo(format_pass(ModuleContext(module, options, record_every_fact=True), what), nl=False)


def _dump_sources(path: str, resolver: ConfigResolver, architectures: tuple[str, ...], compile_commands: str | None) -> list[SourceFile]:
    """What `ptxlint dump` shows for ``path``: the PTX file, or the modules the front ends make of
    a `.cu` file (one per architecture, with the flags after `--`) or a binary, as `check` does."""
    from ptxlint.frontends import CompileOptions, FrontEndError, modules_of, needs_front_end

    if not needs_front_end(path):
        return [_read_or_fail(path)]
    flags = click.get_current_context().meta.get("ptxlint.compiler_flags", ())
    options = CompileOptions(architectures or resolver.for_path(path).cuda_arch, tuple(flags), compile_commands)
    try:
        return [module.source for module in modules_of(path, options)]
    except FrontEndError as error:
        if error.output:
            click.echo(error.output.rstrip("\n"), err=True)
        _fail(f"{path}: {error}")


def _read_or_fail(path: str) -> SourceFile:
    from ptxlint.lint import read_source

    try:
        return read_source(path)
    except (OSError, ValueError) as error:
        _fail(f"{path}: {getattr(error, 'strerror', None) or error}")


@main.command("rules")
@_config_options
@_listing_format_option
@_quiet_option
def list_rules(
    isolated: bool, config_file: str | None, select: tuple[str, ...], extend_select: tuple[str, ...], ignore: tuple[str, ...],
    output_format: str, quiet: bool,
) -> None:
    """List every rule: code, name, default severity, enabled here (under the configuration that
    governs the current directory), summary."""
    from ptxlint.rules import ALL_RULES

    config = _resolver(config_file, isolated, select, extend_select, ignore).for_path("-")
    if output_format == "json":
        import json

        listing = [
            {**_rule_fields(rule), "severity": config.severity.get(rule.code, rule.severity).value,
             "enabled": rule.code in config.codes}
            for rule in ALL_RULES
        ]
        click.echo(json.dumps(listing, indent=2))
        return
    width = max(len(rule.name) for rule in ALL_RULES)
    if not quiet:
        click.echo(f"{'CODE':<7} {'NAME':<{width}}  {'SEVERITY':<8}  {'ENABLED':<7}  TITLE")
    for rule in ALL_RULES:
        severity = config.severity.get(rule.code, rule.severity).value
        enabled = "yes" if rule.code in config.codes else "no"
        click.echo(f"{rule.code:<7} {rule.name:<{width}}  {severity:<8}  {enabled:<7}  {rule.summary}")


def _rule_fields(rule: Any) -> dict[str, Any]:
    """A rule as JSON (`ptxlint rules` and `ptxlint rule` share the keys)."""
    return {
        "code": rule.code, "name": rule.name, "summary": rule.summary, "severity": rule.severity.value,
        "enabled_by_default": rule.enabled_by_default,
    }


@main.command("rule")
@click.argument("code", required=False)
@click.option("--all", "every", is_flag=True, help="Explain every rule.")
@_listing_format_option
@_quiet_option
def show_rule(code: str | None, every: bool, output_format: str, quiet: bool) -> None:
    """Explain one rule (by code or name), or every rule with --all."""
    from ptxlint.rules import ALL_RULES, RULES_BY_CODE, RULES_BY_NAME

    if every == (code is not None):
        _fail("give one rule (`ptxlint rule PTX101`) or --all")
    if code is None:
        rules = list(ALL_RULES)
    else:
        found = RULES_BY_CODE.get(code.upper()) or RULES_BY_NAME.get(code)
        if found is None:
            _fail(f"unknown rule `{code}`; `ptxlint rules` lists them")
        rules = [found]
    if output_format == "json":
        import json

        documents = [{**_rule_fields(rule), "explanation": rule.docs} for rule in rules]
        click.echo(json.dumps(documents if every else documents[0], indent=2))
        return
    from rich.console import Console
    from rich.markdown import Markdown

    def header(rule: Any) -> str:
        state = "on by default" if rule.enabled_by_default else "off by default (enable with --extend-select)"
        return f"# {rule.code} `{rule.name}`\n\n{rule.summary}. Severity **{rule.severity.value}**, {state}.\n\n"

    text = "\n\n".join(header(rule) + rule.docs for rule in rules)
    if sys.stdout.isatty():
        Console().print(Markdown(text))
        return
    # rich pads every line of Markdown to the console's width; piped, that is trailing spaces.
    console = Console()
    with console.capture() as captured:
        console.print(Markdown(text))
    for line in captured.get().splitlines():
        click.echo(line.rstrip())


@main.command("server")
@_quiet_option
def language_server(quiet: bool) -> None:
    """Run the language server on standard input and output (for editors; needs the `lsp` extra)."""
    try:
        from ptxlint.server import serve
    except ImportError as error:
        _fail(f"the language server needs pygls and lsprotocol: pip install 'ptxlint[lsp]' ({error})")
    _start_up_finished()
    serve()


@main.command("clean")
@click.option("--cache-dir", metavar="DIR", help="The caches' folder (default: $PTXLINT_CACHE_DIR, else ~/.cache/ptxlint).")
@_quiet_option
def clean(cache_dir: str | None, quiet: bool) -> None:
    """Empty the results and nvcc caches (nothing else under the cache folder)."""
    from pathlib import Path

    from ptxlint import cache

    removed = cache.clean(Path(_cache_dir(cache_dir)))
    if not quiet:
        for folder in removed:
            click.echo(f"ptxlint: removed {folder}", err=True)
        if not removed:
            click.echo("ptxlint: no cache to remove", err=True)


def _fail(message: str) -> NoReturn:
    from ptxlint.render.text import printable

    click.echo(f"ptxlint: error: {printable(message)}", err=True)
    sys.exit(EXIT_ERROR)

