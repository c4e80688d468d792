"""The `ptxlint` command line. Option parsing and output selection only: the work happens in
`lint`, the formatting in `render`."""

from __future__ import annotations

import sys
import time

import click
from rich.console import Console

from ptxlint import __version__
from ptxlint.lint import DEFAULT_MAX_FILE_SIZE, InputError, LintSettings, discover, lint_paths, read_source
from ptxlint.lower import lower
from ptxlint.render import concise, full
from ptxlint.rules import ALL_RULES, RULES_BY_CODE, RULES_BY_NAME

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class _DefaultToCheck(click.Group):
    """`ptxlint FILE...` means `ptxlint check FILE...`; named subcommands still work."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h", "--version"):
            args = ["check", *args]
        elif not args:
            args = ["check"]
        return super().parse_args(ctx, args)


@click.group(cls=_DefaultToCheck, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="ptxlint")
def main() -> None:
    """A linter and static analyzer for NVIDIA PTX.

    \b
    ptxlint kernel.ptx            lint files (directories: every *.ptx below them)
    ptxlint rules                 list the rules
    ptxlint rule PTX101           explain one rule
    ptxlint dump ir kernel.ptx    show the intermediate representation
    """


@main.command()
@click.argument("paths", nargs=-1)
@click.option(
    "--output-format",
    type=click.Choice(["full", "concise"]),
    default="full",
    show_default=True,
    help="How findings are printed.",
)
@click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True)
@click.option(
    "--max-file-size",
    type=click.IntRange(min=1),
    default=DEFAULT_MAX_FILE_SIZE,
    show_default=True,
    help="Refuse inputs larger than this many bytes.",
)
def check(paths: tuple[str, ...], output_format: str, color: str, max_file_size: int) -> None:
    """Lint PTX files."""
    if not paths:
        raise click.UsageError("no input: give one or more PTX files or directories, or - for stdin")
    try:
        files = discover(paths)
    except InputError as error:
        _fail(str(error))
    settings = LintSettings(max_file_size=max_file_size)
    started = time.perf_counter()
    results = list(lint_paths(files, settings))
    elapsed = time.perf_counter() - started
    if output_format == "concise":
        concise.render(results, sys.stdout)
    else:
        full.render(results, _console(color), elapsed)
    if any(result.error is not None for result in results):
        sys.exit(EXIT_ERROR)
    sys.exit(EXIT_FINDINGS if any(result.diagnostics for result in results) else EXIT_CLEAN)


@main.group()
def dump() -> None:
    """Print what ptxlint computes for a file (for debugging and bug reports)."""


@dump.command("ir")
@click.argument("path")
def dump_ir(path: str) -> None:
    """The intermediate representation of PATH."""
    from ptxlint.printer import format_module

    try:
        source = read_source(path)
    except (OSError, ValueError) as error:
        _fail(f"{path}: {getattr(error, 'strerror', None) or error}")
    click.echo(format_module(lower(source)), nl=False)


@main.command("rules")
def list_rules() -> None:
    """List every rule: code, name, default severity, whether it is on by default, summary."""
    for rule in ALL_RULES:
        enabled = "on " if rule.enabled_by_default else "off"
        click.echo(f"{rule.code}  {rule.name:40s} {rule.severity.value:8s} {enabled}  {rule.summary}")


@main.command("rule")
@click.argument("code")
def show_rule(code: str) -> None:
    """Explain one rule (by code or name)."""
    rule = RULES_BY_CODE.get(code.upper()) or RULES_BY_NAME.get(code)
    if rule is None:
        _fail(f"unknown rule `{code}`; `ptxlint rules` lists them")
    from rich.markdown import Markdown

    console = Console()
    console.print(Markdown(f"# {rule.code} `{rule.name}`\n\n{rule.summary}.\n\n{rule.docs}"))


def _console(color: str) -> Console:
    if color == "always":
        return Console(force_terminal=True, highlight=False, soft_wrap=True)
    if color == "never":
        return Console(no_color=True, highlight=False, soft_wrap=True, force_terminal=False)
    return Console(highlight=False, soft_wrap=True)


def _fail(message: str) -> None:
    click.echo(f"ptxlint: error: {message}", err=True)
    sys.exit(EXIT_ERROR)
