"""## What it does
Reports text that is not valid PTX syntax: a statement the parser cannot read, a missing `;`, an
unbalanced brace.

## Why is this bad?
`ptxas` rejects the whole module, usually with a line number but no column. ptxlint reports the
exact place, keeps going, and still checks the rest of the file.

## Example
```ptx
.version 9.0
.target sm_90a
.address_size 64
.visible .entry kernel()
{
	.reg .b32 %r<2>;
	mov.u32 %r1 %tid.x;
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
None: PTX that does not parse cannot be assembled. Preprocessor lines (`#...`) are accepted
and skipped, as `ptxas` does when the file went through cpp.
"""

from __future__ import annotations

from typing import Iterable

from ptxlint.context import ModuleContext
from ptxlint.diagnostics import Diagnostic, Severity
from ptxlint.rules.base import Rule


def check(context: ModuleContext) -> Iterable[Diagnostic]:
    for problem in context.module.syntax_errors:
        yield RULE.diagnostic(problem.span, problem.message, help=_help(problem.message))


def _help(message: str) -> str:
    if message.startswith("missing `.version`"):
        return "begin the module with its `.version`, `.target` and `.address_size` directives"
    if message == "unexpected end of input":
        return "the text ends inside a statement or a `{ }` block: complete or close it"
    if message.startswith("expected `"):
        expected = message[len("expected `") : -1]
        if expected and not expected.replace("_", "").isalnum():
            return f"insert `{expected}` here"
        return f"write the missing {expected.replace('_', ' ')} here"
    return (
        "write the statement as the PTX ISA gives its syntax (`ptxas` rejects it too); in CUDA's inline `asm()`, "
        "each instruction ends with `;` and separates its operands with commas"
    )


RULE = Rule(
    code="PTX001",
    name="syntax-error",
    severity=Severity.ERROR,
    summary="Text that is not valid PTX syntax",
    docs=__doc__ or "",
    check=check,
    tags=("correctness", "syntax"),
    precision="very-high",
    reads_function_bodies=False,
)
