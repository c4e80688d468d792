"""`ptxlint server`: the Language Server Protocol over standard input and output, for editors.

Built on pygls (the protocol, its JSON-RPC and the open documents) and lsprotocol (the types);
install them with the `lsp` extra. What it does:

- **Diagnostics** when a document is opened and saved, from the editor's text (not the file on
  disk): `.ptx` is linted as it is; `.cu` is compiled with nvcc as the file would be (its folder
  first on the include path; its flags from the nearest `compile_commands.json` that lists it,
  found as clangd finds one; architectures from the configuration's `cuda-arch`), findings at the
  `.cu` lines, nvcc's own errors as diagnostics too; a Triton `.py` file shows the findings of the
  kernels Triton compiled from it, read from Triton's cache (`TRITON_CACHE_DIR`, else
  `~/.triton/cache`), unless an entry is stale (the file changed since: then a note says so).
  Labels, notes and help become related information. The configuration that governs the
  document's path applies (`ptxlint.toml` / `[tool.ptxlint]`, per-file ignores included), as on
  the command line, and saving a `ptxlint.toml` or `pyproject.toml` in the editor lints every
  document again; the results and nvcc caches (ptxlint/cache.py) make saving an unchanged file
  cheap.
- **Code actions** on a `.ptx` finding: suppress it on its line (`// ptxlint: ignore[CODE]`
  appended, or the code added to the line's existing suppression) or in the whole file
  (`// ptxlint: file-ignore[CODE]` as the first line), with the semantics of
  ptxlint/suppressions.py.
- **Hover** over a finding, or over a rule code anywhere (a suppression comment): the rule's name,
  summary and what it does.

Documents are linted one at a time, in the order they were opened or saved, on a thread of their
own: the analyses (and tree-sitter's allocator, which the native front end sets for a parse) are
not for two threads at once, and the thread that reads messages keeps answering hover and code
actions meanwhile. A result is published only if no newer lint of its document was asked for
since; a lint still waiting when a newer one is asked for is skipped.
"""

from __future__ import annotations

import asyncio
import os
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from ptxlint import __version__
from ptxlint.diagnostics import Diagnostic, FileResult, Severity
from ptxlint.records import record
from ptxlint.source import SourceFile

SOURCE = "ptxlint"
_RULE_CODE = re.compile(r"PTX\d{3}")
_SUPPRESSION = re.compile(r"//[ \t]*ptxlint:[ \t]*ignore[ \t]*\[(?P<codes>[^\]\n]*)\]")
_NVCC_MESSAGE = re.compile(r"^(?P<file>.+?)\((?P<line>\d+)\): (?P<kind>error|warning|catastrophic error)[^:]*: (?P<message>.*)$", re.M)
_SEVERITY = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.NOTE: types.DiagnosticSeverity.Information,
}


@record
class Published:
    """One diagnostic sent for a document, with the finding it came from (None: a message of
    ptxlint's own, such as a compile error), for code actions and hover."""

    diagnostic: types.Diagnostic
    finding: Diagnostic | None


class PtxlintServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("ptxlint", __version__)
        self.published: dict[str, list[Published]] = {}
        self.linter = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ptxlint-lint")
        self.requests: dict[str, int] = {}  # per document, how many lints were asked for

    def ask(self, uri: str) -> int:
        """A new request to lint ``uri`` (or to forget it): earlier ones' results are obsolete."""
        self.requests[uri] = self.requests.get(uri, 0) + 1
        return self.requests[uri]

    def current(self, uri: str, request: int) -> bool:
        return self.requests.get(uri) == request


server = PtxlintServer()


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
async def _did_open(ls: PtxlintServer, params: types.DidOpenTextDocumentParams) -> None:
    from ptxlint.config import CONFIG_NAMES

    if params.text_document.uri.rsplit("/", 1)[-1] not in CONFIG_NAMES:
        await _lint_and_publish(ls, params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))
async def _did_save(ls: PtxlintServer, params: types.DidSaveTextDocumentParams) -> None:
    from ptxlint.config import CONFIG_NAMES

    uri = params.text_document.uri
    linting = []
    if uri.rsplit("/", 1)[-1] in CONFIG_NAMES:
        # A configuration saved in the editor may govern every document linted so far.
        linting = [_lint_and_publish(ls, linted) for linted in list(ls.published)]
    if uri.endswith((".ptx", ".cu", ".py")) or uri in ls.published:
        linting.append(_lint_and_publish(ls, uri))
    await asyncio.gather(*linting)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def _did_close(ls: PtxlintServer, params: types.DidCloseTextDocumentParams) -> None:
    ls.ask(params.text_document.uri)  # a lint under way for it publishes nothing
    ls.published.pop(params.text_document.uri, None)
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[]))


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix])
)
def _code_action(ls: PtxlintServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    uri = params.text_document.uri
    if not uri.endswith(".ptx"):
        return []  # suppression comments are read in PTX
    lines = ls.workspace.get_text_document(uri).source.splitlines()
    actions: list[types.CodeAction] = []
    offered: set[str] = set()  # two findings of one rule on one line get one action
    for published in ls.published.get(uri, []):
        if published.finding is None or not _overlaps(published.diagnostic.range, params.range):
            continue
        code, line = published.finding.code, published.diagnostic.range.start.line
        choices = [(f"Suppress {code} in this file", _file_suppression(code))]
        if code != "PTX002":  # only a file-wide comment silences an unused suppression
            choices.insert(0, (f"Suppress {code} on line {line + 1}", _line_suppression(lines, line, code)))
        for title, edit in choices:
            if title in offered:
                continue
            offered.add(title)
            actions.append(types.CodeAction(
                title=title, kind=types.CodeActionKind.QuickFix, diagnostics=[published.diagnostic],
                edit=types.WorkspaceEdit(changes={uri: [edit]}),
            ))
    return actions


@server.feature(types.TEXT_DOCUMENT_HOVER)
def _hover(ls: PtxlintServer, params: types.HoverParams) -> types.Hover | None:
    from ptxlint.rules import RULES_BY_CODE

    position = params.position
    codes = [
        published.finding.code for published in ls.published.get(params.text_document.uri, [])
        if published.finding is not None and _contains(published.diagnostic.range, position)
    ]
    lines = ls.workspace.get_text_document(params.text_document.uri).source.splitlines()
    if position.line < len(lines):
        for match in _RULE_CODE.finditer(lines[position.line]):
            if match.start() <= position.character <= match.end():
                codes.append(match.group())
    rules = [RULES_BY_CODE[code] for code in dict.fromkeys(codes) if code in RULES_BY_CODE]
    if not rules:
        return None
    text = "\n\n---\n\n".join(
        f"**{rule.code}** `{rule.name}` ({rule.severity.value})\n\n{rule.summary}.\n\n{rule.section('What it does')}\n\n"
        f"`ptxlint rule {rule.code}` explains it."
        for rule in rules
    )
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text))


# --------------------------------------------------------------------------- linting a document

async def _lint_and_publish(ls: PtxlintServer, uri: str) -> None:
    document = ls.workspace.get_text_document(uri)
    # An unsaved, unnamed buffer (`untitled:`) has no path: it is PTX under the working
    # directory's configuration.
    path = document.path if uri.startswith("file:") else uri
    text = document.source.encode("utf-8", "surrogateescape")
    request = ls.ask(uri)

    def lint() -> list[Published] | None:
        return lint_document(path, text, uri) if ls.current(uri, request) else None

    published = await asyncio.get_running_loop().run_in_executor(ls.linter, lint)
    if published is None or not ls.current(uri, request):
        return
    ls.published[uri] = published
    ls.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(uri=uri, diagnostics=[item.diagnostic for item in published], version=document.version)
    )


def lint_document(path: str, text: bytes, uri: str | None = None) -> list[Published]:
    """The diagnostics of a document at ``path`` (known to the editor as ``uri``) whose text is
    ``text``."""
    from ptxlint.config import CommandLineSelection, ConfigError, ConfigResolver

    try:
        config = ConfigResolver(None, False, CommandLineSelection()).for_path(path)
    except ConfigError as error:
        return [_message(f"ptxlint configuration: {error}", types.DiagnosticSeverity.Error)]
    from ptxlint.cache import cache_root
    from ptxlint.lint import LintSettings

    settings = LintSettings(
        rules=config.rules_for(path), options=config.options, severity=config.severity, cache_dir=str(cache_root())
    )
    uri = uri or Path(path).resolve().as_uri()
    if path.endswith(".cu"):
        return _lint_cuda(path, text, settings, config.cuda_arch, uri)
    if path.endswith(".py"):
        return _lint_triton_kernels(path, text, settings, uri)
    return _lint_ptx(path, text, settings, uri)


def _lint_ptx(path: str, text: bytes, settings: object, uri: str) -> list[Published]:
    from ptxlint.lint import lint_path

    if b"\0" in text[:8192]:
        return [_message("binary file, not PTX text", types.DiagnosticSeverity.Error)]
    source = SourceFile.from_bytes(path, text)
    result = lint_path(source, settings)  # type: ignore[arg-type]
    published = [_from_ptx(finding, source, uri) for finding in result.diagnostics]
    return published + _result_messages(result)


def _lint_cuda(path: str, text: bytes, settings: object, architectures: tuple[str, ...], uri: str) -> list[Published]:
    import dataclasses

    from ptxlint.frontends import CompileOptions, FrontEndError, modules_of
    from ptxlint.lint import lint_path

    cache_dir = getattr(settings, "cache_dir", None)
    database = _compilation_database(path)
    try:
        modules = modules_of(path, CompileOptions(architectures, (), database, cache_dir), contents=text)
    except FrontEndError as error:
        return _nvcc_messages(path, error)
    lines = text.decode("utf-8", "replace").splitlines()
    published: dict[tuple[int, str, str], Published] = {}  # one per line, rule and message over architectures
    for module in modules:
        result = dataclasses.replace(lint_path(module.source, settings), map_to_source=True)  # type: ignore[arg-type]
        for finding in result.diagnostics:
            item = _from_mapped(finding, module.source, path, uri, lines)
            published.setdefault((item.diagnostic.range.start.line, finding.code, finding.message), item)
        for item in _result_messages(result):
            published.setdefault((0, "", item.diagnostic.message), item)
    return list(published.values())


def _compilation_database(path: str) -> str | None:
    """The `compile_commands.json` with an entry for ``path``, looked for as clangd does: in the
    file's folder and each one above it, and in a `build/` folder beside each."""
    from ptxlint.frontends import FrontEndError
    from ptxlint.frontends.cuda import find_compile_command

    for folder in Path(path).resolve().parents:
        for candidate in (folder / "compile_commands.json", folder / "build" / "compile_commands.json"):
            if candidate.is_file():
                try:
                    if find_compile_command(str(candidate), path) is not None:
                        return str(candidate)
                except FrontEndError:
                    continue  # unreadable: look further up
    return None


def _lint_triton_kernels(path: str, text: bytes, settings: object, uri: str) -> list[Published]:
    """The findings of every kernel in Triton's cache compiled from ``path``, at its lines."""
    from ptxlint.frontends.triton_cache import stale_source_warning
    from ptxlint.lint import lint_path

    wanted = os.path.realpath(path)
    lines = text.decode("utf-8", "replace").splitlines()
    published: list[Published] = []
    for ptx in _triton_entries_of(wanted):
        warning = stale_source_warning(str(ptx))
        if warning is not None:
            published.append(_message(f"{ptx.stem}: not linted: {warning}; run the kernel again", types.DiagnosticSeverity.Information))
            continue
        result = lint_path(str(ptx), settings)  # type: ignore[arg-type]
        for finding in result.diagnostics:
            if finding.origin and os.path.realpath(finding.origin[0].path) == wanted:
                published.append(_from_mapped(finding, result.source, path, uri, lines))  # type: ignore[arg-type]
    return published


def _triton_entries_of(python_file: str) -> list[Path]:
    cache = Path(os.environ.get("TRITON_CACHE_DIR") or Path.home() / ".triton" / "cache")
    found = []
    for group in sorted(cache.glob("*/__grp__*.json")):
        kernel = group.name[len("__grp__"):-len(".json")]
        ptx = group.parent / f"{kernel}.ptx"
        try:
            with open(group.parent / f"{kernel}.source", "rb") as handle:
                head = handle.read(4096)
        except OSError:
            continue
        match = re.match(rb'#loc\s*=\s*loc\("(?P<file>[^"]+)"', head)
        if match and ptx.is_file() and os.path.realpath(os.fsdecode(match.group("file"))) == python_file:
            found.append(ptx)
    return found


# --------------------------------------------------------------------------- conversions

def _range(source: SourceFile, line: int, byte_column: int, end_line: int, end_byte_column: int) -> types.Range:
    return types.Range(
        start=types.Position(line=line - 1, character=source.utf16_column(line, byte_column) - 1),
        end=types.Position(line=end_line - 1, character=source.utf16_column(end_line, end_byte_column) - 1),
    )


def _span_range(source: SourceFile, span: object) -> types.Range:
    end_line, end_column = source.end(span)  # type: ignore[arg-type]
    end_line = min(end_line, source.line_count)
    return _range(source, span.line, span.column, end_line, end_column)  # type: ignore[attr-defined]


def _line_range(lines: list[str], line: int, column: int) -> types.Range:
    """A `.loc` position (1-based line, column 0 when unknown) to the end of its line."""
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    start = len(text[: max(column - 1, 0)].encode("utf-16-le")) // 2 if column else len(text) - len(text.lstrip())
    end = len(text.encode("utf-16-le")) // 2
    return types.Range(start=types.Position(line=max(line - 1, 0), character=start), end=types.Position(line=max(line - 1, 0), character=max(end, start)))


def _from_ptx(finding: Diagnostic, source: SourceFile, uri: str) -> Published:
    primary = _span_range(source, finding.span)
    related = [
        types.DiagnosticRelatedInformation(location=types.Location(uri=uri, range=_span_range(source, label.span)), message=label.message)
        for label in finding.labels
    ]
    related += _notes(finding, types.Location(uri=uri, range=primary))
    return Published(_diagnostic(finding, primary, related), finding)


def _from_mapped(finding: Diagnostic, source: SourceFile, path: str, uri: str, lines: list[str]) -> Published:
    """A finding in PTX compiled from the document, at the document line its `.loc` names (or the
    first line, naming the file, when it came from a header)."""
    frame = finding.origin[0] if finding.origin else None
    here = frame is not None and os.path.realpath(frame.path) == os.path.realpath(path)
    primary = _line_range(lines, frame.line, frame.column) if here else _line_range(lines, 1, 0)  # type: ignore[union-attr]
    message = None if here or frame is None else f"{finding.message} (in {frame})"
    related = []
    for label in finding.labels:
        ptx_line = source.line_text(label.span.line).strip()
        related.append(types.DiagnosticRelatedInformation(
            location=types.Location(uri=uri, range=primary), message=f"{label.message} (PTX: `{ptx_line}`)",
        ))
    related += _notes(finding, types.Location(uri=uri, range=primary))
    return Published(_diagnostic(finding, primary, related, message), finding)


def _notes(finding: Diagnostic, location: types.Location) -> list[types.DiagnosticRelatedInformation]:
    texts = [*(f"note: {note}" for note in finding.notes), *([f"help: {finding.help}"] if finding.help else [])]
    return [types.DiagnosticRelatedInformation(location=location, message=text) for text in texts]


def _diagnostic(
    finding: Diagnostic, primary: types.Range, related: list[types.DiagnosticRelatedInformation], message: str | None = None
) -> types.Diagnostic:
    return types.Diagnostic(
        range=primary, message=message or finding.message, severity=_SEVERITY[finding.severity], code=finding.code,
        source=SOURCE, related_information=related or None,
        code_description=None, data={"name": finding.name},
    )


def _message(text: str, severity: types.DiagnosticSeverity, line: int = 0) -> Published:
    position = types.Position(line=line, character=0)
    return Published(types.Diagnostic(range=types.Range(start=position, end=position), message=text, severity=severity, source=SOURCE), None)


def _result_messages(result: FileResult) -> list[Published]:
    messages = []
    if result.error is not None:
        messages.append(_message(result.error, types.DiagnosticSeverity.Error))
    notice = getattr(result, "notice", None)
    if notice:
        messages.append(_message(notice, types.DiagnosticSeverity.Warning))
    return messages


def _nvcc_messages(path: str, error: Exception) -> list[Published]:
    """nvcc's errors in the document as diagnostics at their lines; the rest in one message."""
    output = getattr(error, "output", "")
    name = os.path.basename(path)
    published = []
    for match in _NVCC_MESSAGE.finditer(output):
        if os.path.basename(match.group("file")) == name:
            severity = types.DiagnosticSeverity.Warning if match.group("kind") == "warning" else types.DiagnosticSeverity.Error
            published.append(_message(f"nvcc: {match.group('message')}", severity, int(match.group("line")) - 1))
    if not published:
        published.append(_message(f"{error}\n{output}".strip(), types.DiagnosticSeverity.Error))
    return published


# --------------------------------------------------------------------------- suppressions

def _line_suppression(lines: list[str], line: int, code: str) -> types.TextEdit:
    """Append `// ptxlint: ignore[CODE]` to ``line`` (0-based), or add CODE to the suppression the
    line already carries: a comment trailing code covers its own line (ptxlint/suppressions.py)."""
    text = lines[line] if line < len(lines) else ""
    existing = _SUPPRESSION.search(text)
    if existing is not None:
        inside = existing.group("codes")
        at = _utf16(text[: existing.end("codes")])
        insertion = f", {code}" if inside.strip() else code
        position = types.Position(line=line, character=at)
        return types.TextEdit(range=types.Range(start=position, end=position), new_text=insertion)
    end = types.Position(line=line, character=_utf16(text))
    return types.TextEdit(range=types.Range(start=end, end=end), new_text=f"  // ptxlint: ignore[{code}]")


def _file_suppression(code: str) -> types.TextEdit:
    start = types.Position(line=0, character=0)
    return types.TextEdit(range=types.Range(start=start, end=start), new_text=f"// ptxlint: file-ignore[{code}]\n")


def _utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def _overlaps(a: types.Range, b: types.Range) -> bool:
    return not (_before(a.end, b.start) or _before(b.end, a.start))


def _contains(span: types.Range, position: types.Position) -> bool:
    return not _before(position, span.start) and not _before(span.end, position)


def _before(a: types.Position, b: types.Position) -> bool:
    return (a.line, a.character) < (b.line, b.character)


def serve() -> None:
    """Speak the protocol on standard input and output until the client says exit."""
    server.start_io()
