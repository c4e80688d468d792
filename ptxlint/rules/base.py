"""What a rule is: a small value with a stable code, a kebab-case name of the pattern it finds,
a default severity, its documentation and a check function.

Each rule lives in its own module under ``ptxlint/rules/``. The module docstring is the rule's
documentation, in the sections What it does / Why is this bad? / Example / Use instead /
Exceptions, with the example and its fix in ```ptx fenced blocks (a meta-test lints both).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Callable, Iterable

from ptxlint.diagnostics import Diagnostic, Label, Severity
from ptxlint.records import record
from ptxlint.source import Span

if TYPE_CHECKING:
    from ptxlint.context import ModuleContext

DOC_SECTIONS = ("What it does", "Why is this bad?", "Example", "Use instead", "Exceptions")


@record
class Rule:
    """One rule: its permanent code and name, severity, one-line summary, documentation and check."""

    code: str
    name: str
    severity: Severity
    summary: str
    docs: str
    check: Callable[[ModuleContext], Iterable[Diagnostic]]
    enabled_by_default: bool = True
    # The passes the check reads through ``context.result`` (see ``ptxlint/passes.py``).
    requires: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    precision: str = "high"  # SARIF: very-high, high, medium, low
    # Whether the check looks only inside function bodies: then a module without any (an empty
    # file, declarations only) has nothing for it, and the driver neither runs it nor loads the
    # passes and tables it would ask for (most of a tiny file's lint is start-up).
    reads_function_bodies: bool = True

    def diagnostic(
        self,
        span: Span,
        message: str,
        *,
        labels: Iterable[Label] = (),
        notes: Iterable[str] = (),
        help: str | None = None,
        witness: Iterable[Label] = (),
    ) -> Diagnostic:
        return Diagnostic(
            code=self.code,
            name=self.name,
            severity=self.severity,
            message=message,
            span=span,
            labels=tuple(labels),
            notes=tuple(notes),
            help=help,
            witness=tuple(witness),
        )

    def section(self, title: str) -> str:
        """One section of the docs, without its heading."""
        match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", self.docs, re.M | re.S)
        return match.group(1).strip() if match else ""

    def examples(self) -> tuple[str, str]:
        """The PTX of the docs' Example and Use instead sections."""

        def code(section: str) -> str:
            match = re.search(r"```ptx\n(.*?)```", self.section(section), re.S)
            return match.group(1) if match else ""

        return code("Example"), code("Use instead")
