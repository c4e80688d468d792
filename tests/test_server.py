"""`ptxlint server`, driven end to end over stdio by pygls's language client, as an editor would:
initialize, open documents, read the published diagnostics, ask for code actions and hover,
save an edit, shut down."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest

pytest.importorskip("pygls", reason="the language server needs the lsp extra (the test extra includes it)")

from lsprotocol import types  # noqa: E402
from pygls.lsp.client import LanguageClient  # noqa: E402

from ptxlint.frontends.toolkit import find_tool  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE_PTX = (ROOT / "examples" / "divergent_tcgen05.ptx").read_text()
EXAMPLE_CU = ROOT / "examples" / "tmem_alloc_divergent.cu"
TIMEOUT = 120  # seconds for one answer: a .cu document is compiled by nvcc first


class Editor:
    """The client side: what an editor sends, and the diagnostics the server published."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.client = LanguageClient("test-editor", "1")
        self.diagnostics: dict[str, list[types.Diagnostic]] = {}
        self.arrived: asyncio.Queue[str] = asyncio.Queue()
        self.versions: dict[str, int] = {}

        self.history: list[tuple[str, int | None]] = []  # (uri, version) of every publication

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def published(params: types.PublishDiagnosticsParams) -> None:
            self.history.append((params.uri, params.version))
            self.diagnostics[params.uri] = params.diagnostics
            self.arrived.put_nowait(params.uri)

    async def start(self, environment: dict[str, str]) -> None:
        await self.client.start_io(sys.executable, "-m", "ptxlint", "server", env=environment, cwd=str(self.root))
        result = await asyncio.wait_for(self.client.initialize_async(types.InitializeParams(
            capabilities=types.ClientCapabilities(), root_uri=self.root.as_uri(), process_id=os.getpid(),
        )), TIMEOUT)
        capabilities = result.capabilities
        assert capabilities.hover_provider and capabilities.code_action_provider
        self.client.initialized(types.InitializedParams())

    async def published_for(self, uri: str) -> list[types.Diagnostic]:
        while True:
            if await asyncio.wait_for(self.arrived.get(), TIMEOUT) == uri:
                return self.diagnostics[uri]

    async def open(self, name: str, text: str, language: str = "ptx") -> tuple[str, list[types.Diagnostic]]:
        uri = (self.root / name).as_uri()
        self.versions[uri] = 1
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id=language, version=1, text=text)
        ))
        return uri, await self.published_for(uri)

    async def edit_and_save(self, uri: str, text: str) -> list[types.Diagnostic]:
        self.versions[uri] += 1
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=self.versions[uri]),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        ))
        self.client.text_document_did_save(types.DidSaveTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=uri)
        ))
        return await self.published_for(uri)

    async def stop(self) -> int:
        await asyncio.wait_for(self.client.shutdown_async(None), TIMEOUT)
        self.client.exit(None)
        assert self.client._server is not None
        code = await asyncio.wait_for(self.client._server.wait(), TIMEOUT)
        await self.client.stop()
        return code


def _apply(text: str, edit: types.TextEdit) -> str:
    lines = text.splitlines(keepends=True)

    def offset(position: types.Position) -> int:
        return sum(len(line) for line in lines[: position.line]) + position.character  # ASCII text

    return text[: offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end):]


def _environment(root: Path) -> dict[str, str]:
    return {**os.environ, "PTXLINT_CACHE_DIR": str(root / "cache"), "TRITON_CACHE_DIR": str(root / "triton-cache")}


def test_ptx_diagnostics_code_actions_hover(tmp_path: Path) -> None:
    (tmp_path / "ptxlint.toml").write_text("")
    (tmp_path / "generated").mkdir()
    (tmp_path / "generated" / "ptxlint.toml").write_text('[severity]\nPTX101 = "warning"\n[per-file-ignores]\n"skip_*.ptx" = ["PTX1"]\n')

    async def session() -> None:
        editor = Editor(tmp_path)
        await editor.start(_environment(tmp_path))
        # Not on disk at all: the buffer's text is what is linted.
        uri, diagnostics = await editor.open("kernel.ptx", EXAMPLE_PTX)
        divergent = next(d for d in diagnostics if d.code == "PTX101")
        assert divergent.source == "ptxlint" and divergent.severity == types.DiagnosticSeverity.Error
        assert EXAMPLE_PTX.splitlines()[divergent.range.start.line].lstrip().startswith("@%p1 tcgen05.ld")
        assert divergent.related_information and any("varies per thread" in info.message for info in divergent.related_information)
        assert all(info.location.uri == uri for info in divergent.related_information)

        hover = await asyncio.wait_for(editor.client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=divergent.range.start,
        )), TIMEOUT)
        assert hover is not None and "divergent-aligned-instruction" in hover.contents.value

        actions = await asyncio.wait_for(editor.client.text_document_code_action_async(types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri), range=divergent.range,
            context=types.CodeActionContext(diagnostics=[divergent]),
        )), TIMEOUT)
        titles = [action.title for action in actions]
        line_title = f"Suppress PTX101 on line {divergent.range.start.line + 1}"
        assert titles == [line_title, "Suppress PTX101 in this file"]
        from ptxlint.server import lint_document

        file_wide = _apply(EXAMPLE_PTX, actions[1].edit.changes[uri][0])
        assert file_wide.startswith("// ptxlint: file-ignore[PTX101]\n")
        assert "PTX101" not in [item.diagnostic.code for item in lint_document(str(tmp_path / "kernel.ptx"), file_wide.encode())]
        line_action = actions[titles.index(line_title)]
        edit = line_action.edit.changes[uri][0]
        suppressed = _apply(EXAMPLE_PTX, edit)
        assert suppressed.splitlines()[divergent.range.start.line].endswith("// ptxlint: ignore[PTX101]")
        after = await editor.edit_and_save(uri, suppressed)
        # Suppressed, and the comment is used (no PTX002): the syntax agrees with suppressions.py.
        assert [d.code for d in after] == [d.code for d in diagnostics if d is not divergent]

        hover = await editor.client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=divergent.range.start.line, character=len(suppressed.splitlines()[divergent.range.start.line]) - 3),
        ))
        assert hover is not None and "PTX101" in hover.contents.value  # a code inside a suppression comment

        # The configuration of the document's own folder applies.
        _, configured = await editor.open("generated/kernel.ptx", EXAMPLE_PTX)
        assert [(d.code, d.severity) for d in configured if d.code == "PTX101"] == [("PTX101", types.DiagnosticSeverity.Warning)]
        _, ignored = await editor.open("generated/skip_kernel.ptx", EXAMPLE_PTX)
        assert "PTX101" not in [d.code for d in ignored]

        # Saving a configuration in the editor lints the open documents again under it.
        configuration = tmp_path / "generated" / "ptxlint.toml"
        config_uri = configuration.as_uri()
        editor.versions[config_uri] = 1
        editor.client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
            uri=config_uri, language_id="toml", version=1, text=configuration.read_text(),
        )))
        configuration.write_text('[severity]\nPTX101 = "note"\n')
        editor.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=config_uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=configuration.read_text())],
        ))
        editor.client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=config_uri)))
        noted = await editor.published_for((tmp_path / "generated" / "kernel.ptx").as_uri())
        assert [(d.code, d.severity) for d in noted if d.code == "PTX101"] == [("PTX101", types.DiagnosticSeverity.Information)]

        assert await editor.stop() == 0

    asyncio.run(session())


def test_existing_suppression_is_extended() -> None:
    from ptxlint.server import _line_suppression

    lines = ["\tbar.sync 0;  // ptxlint: ignore[PTX102]", "\tret;"]
    edit = _line_suppression(lines, 0, "PTX101")
    assert _apply("\n".join(lines), edit).splitlines()[0] == "\tbar.sync 0;  // ptxlint: ignore[PTX102, PTX101]"
    assert _apply("\n".join(lines), _line_suppression(lines, 1, "PTX104")).splitlines()[1] == "\tret;  // ptxlint: ignore[PTX104]"


@pytest.mark.skipif(find_tool("nvcc") is None, reason="needs nvcc (the test extra installs it)")
def test_cuda_buffer_is_compiled_and_mapped(tmp_path: Path) -> None:
    (tmp_path / "ptxlint.toml").write_text("")
    text = EXAMPLE_CU.read_text()
    bug_line = next(number for number, line in enumerate(text.splitlines()) if "tcgen05.alloc" in line and "asm" in line)

    async def session() -> None:
        editor = Editor(tmp_path)
        await editor.start(_environment(tmp_path))
        uri, diagnostics = await editor.open("kernel.cu", text, "cuda")
        assert [(d.code, d.range.start.line) for d in diagnostics if d.code == "PTX101"] == [("PTX101", bug_line)]
        broken = await editor.edit_and_save(uri, text + "\nthis is not C++;\n")
        assert broken and broken[0].message.startswith("nvcc: ") and broken[0].range.start.line == len(text.splitlines()) + 1
        # A project whose headers only its compilation database finds (clangd's places for it).
        (tmp_path / "project" / "include").mkdir(parents=True)
        (tmp_path / "project" / "include" / "shape.h").write_text("#define LIMIT 16\n")
        (tmp_path / "project" / "build").mkdir()
        (tmp_path / "project" / "build" / "compile_commands.json").write_text(json.dumps([{
            "directory": str(tmp_path / "project"), "file": "src/k.cu",
            "arguments": ["nvcc", "-I", "include", "-c", "src/k.cu", "-o", "k.o"],
        }]))
        (tmp_path / "project" / "src").mkdir()
        project_text = '#include "shape.h"\n__global__ void k(int *out) {\n  if (threadIdx.x < LIMIT) __syncthreads();\n  out[0] = 1;\n}\n'
        (tmp_path / "project" / "src" / "k.cu").write_text(project_text)
        _, found = await editor.open("project/src/k.cu", project_text, "cuda")
        assert [(d.code, d.range.start.line) for d in found] == [("PTX102", 2)]
        assert await editor.stop() == 0

    asyncio.run(session())


def test_triton_python_file_shows_its_cached_kernels(tmp_path: Path) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from test_cli_commands import _triton_cache_entry

    (tmp_path / "ptxlint.toml").write_text("")
    python_file, _ = _triton_cache_entry(tmp_path)
    (tmp_path / "cache").rename(tmp_path / "triton-cache")

    async def session() -> None:
        editor = Editor(tmp_path)
        await editor.start(_environment(tmp_path))
        uri, diagnostics = await editor.open("kernel.py", python_file.read_text(), "python")
        assert [(d.code, d.range.start.line) for d in diagnostics] == [("PTX001", 3)]
        # Edited above the kernel and saved: the cached PTX no longer matches; it says so.
        python_file.write_text("# moved\n" + python_file.read_text())
        stale = await editor.edit_and_save(uri, python_file.read_text())
        assert len(stale) == 1 and "no longer defines `k`" in stale[0].message
        assert await editor.stop() == 0

    asyncio.run(session())


def test_unnamed_buffer_is_linted_as_ptx(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ptxlint.server import lint_document

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PTXLINT_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "ptxlint.toml").write_text("")
    published = lint_document("untitled:Untitled-1", EXAMPLE_PTX.encode(), "untitled:Untitled-1")
    codes = [item.diagnostic.code for item in published]
    assert "PTX101" in codes
    assert all(info.location.uri == "untitled:Untitled-1" for item in published for info in item.diagnostic.related_information or ())


def test_server_without_pygls_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    from ptxlint.cli import main

    monkeypatch.delitem(sys.modules, "ptxlint.server", raising=False)
    monkeypatch.setitem(sys.modules, "pygls.lsp.server", None)  # what an install without the extra gives
    result = CliRunner().invoke(main, ["server"])
    assert result.exit_code == 2 and "pip install 'ptxlint[lsp]'" in result.stderr


def test_a_newer_edit_wins(tmp_path: Path) -> None:
    """Edits saved in quick succession: whatever was linted in between, what is published last is
    the last text, and no publication goes back to an older version."""
    (tmp_path / "ptxlint.toml").write_text("")
    clean = EXAMPLE_PTX.replace("@%p1 tcgen05.ld", "tcgen05.ld")

    async def session() -> None:
        editor = Editor(tmp_path)
        await editor.start(_environment(tmp_path))
        uri = (tmp_path / "kernel.ptx").as_uri()
        editor.versions[uri] = 1
        editor.client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="ptx", version=1, text=EXAMPLE_PTX)
        ))
        for version, text in ((2, EXAMPLE_PTX + "\n"), (3, clean)):
            editor.client.text_document_did_change(types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            ))
            editor.client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri)))
        while (uri, 3) not in editor.history:
            await editor.published_for(uri)
        assert "PTX101" not in [d.code for d in editor.diagnostics[uri]]
        assert await editor.stop() == 0
        versions = [version for published, version in editor.history if published == uri]
        assert versions == sorted(versions) and versions[-1] == 3

    asyncio.run(session())
