"""## What it does
Reports a `// ptxlint: ignore[...]` or `// ptxlint: file-ignore[...]` comment, or one code inside
it, that suppresses nothing: the rule it names found nothing there, is not enabled, or does not
exist. The same comments in the CUDA C++ or Python source the PTX was compiled from (found through
`.loc`) are reported at their source line when no module of the run used them and some module
compiled code from the lines they cover.

## Why is this bad?
A suppression outlives the finding it was written for. Once the code is fixed or moved, the
comment stays behind and silently hides the next real bug on that line. Reporting it keeps every
suppression deliberate.

## Example
```ptx
.version 9.0
.target sm_90a
.address_size 64
.visible .entry kernel()
{
	.reg .b32 %r<2>;
	mov.u32 %r1, %tid.x;  // ptxlint: ignore[PTX001]
	ret;
}
```

## Use instead
```ptx
.version 9.0
.target sm_90a
.address_size 64
.visible .entry kernel()
{
	.reg .b32 %r<2>;
	mov.u32 %r1, %tid.x;
	ret;
}
```

## Exceptions
A suppression of a rule that is not enabled for the file is reported too, because it cannot
suppress anything under the current configuration; select the rule, or delete the comment. To
keep such comments on purpose (a file linted under several configurations), ignore PTX002 for
that file in `per-file-ignores`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Collection, Iterable, Iterator

from ptxlint.context import ModuleContext
from ptxlint.diagnostics import Diagnostic, Severity
from ptxlint.rules.base import Rule

if TYPE_CHECKING:  # the driver owns suppressions; importing them here would be circular
    from ptxlint.source import Span
    from ptxlint.suppressions import SuppressedCode, Suppression


def check(context: ModuleContext) -> Iterable[Diagnostic]:
    """Nothing to see in the module alone: whether a suppression was used is known only after
    every other rule ran, so the driver calls :func:`report` at the end instead."""
    return ()


def report(
    suppressions: list[Suppression], used: Collection[tuple[int, str | None]], enabled: Collection[str]
) -> Iterator[Diagnostic]:
    """PTX002 findings for the suppressions of one file, given which (suppression, code) pairs
    hid a finding and which rule codes ran."""
    for index, suppression in enumerate(suppressions):
        if not suppression.codes:
            if (index, None) not in used:
                yield unused(suppression.span, None, enabled)
            continue
        for entry in suppression.codes:
            if entry.code is None or entry.code not in enabled or (index, entry.code) not in used:
                yield unused(entry.span, entry, enabled)


def unused(span: Span, entry: SuppressedCode | None, enabled: Collection[str]) -> Diagnostic:
    """The finding for one unused entry (None: a bare `ignore`), with what to do about it."""
    if entry is None:
        return RULE.diagnostic(span, "unused suppression: no finding to ignore here", help="remove the comment")
    if entry.code is None:
        return RULE.diagnostic(
            span, f"unused suppression: unknown rule `{entry.written}`",
            help="write a rule code or name that `ptxlint rules` lists, or remove it",
        )
    if entry.code not in enabled:
        return RULE.diagnostic(
            span, f"unused suppression: `{entry.code}` is not enabled",
            help=f"select `{entry.code}` (`extend-select` in the configuration), or remove it from the comment",
        )
    return RULE.diagnostic(
        span, f"unused suppression: no `{entry.code}` finding to ignore here",
        help=f"remove `{entry.code}` from the comment (the whole comment if it names nothing else)",
    )


RULE = Rule(
    code="PTX002",
    name="unused-suppression",
    severity=Severity.WARNING,
    summary="A suppression comment that suppresses nothing",
    docs=__doc__ or "",
    check=check,
    tags=("maintainability", "suppression"),
    precision="very-high",
    reads_function_bodies=False,
)
