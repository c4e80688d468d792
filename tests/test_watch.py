"""`ptxlint --watch`: a report, a change, the next report; Ctrl-C ends it with exit code 0."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from ptxlint.frontends.toolkit import find_tool
from ptxlint.watch import snapshot

BROKEN = ".version 9.0\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{\n\t.reg .b32 %r<2>;\n\tmov.u32 %r1 %tid.x;\n\tret;\n}\n"
CLEAN = BROKEN.replace("%r1 %tid.x", "%r1, %tid.x")


class _Lines:
    """The merged output of a process, line by line, waited for with a deadline (never a sleep)."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._read, args=(process,), daemon=True).start()

    def _read(self, process: subprocess.Popen[str]) -> None:
        assert process.stdout is not None
        for line in process.stdout:
            self.lines.put(line.rstrip("\n"))

    def until(self, text: str, timeout: float = 60) -> list[str]:
        """The lines up to and including the first that contains ``text``."""
        deadline = time.monotonic() + timeout
        read: list[str] = []
        while True:
            line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            read.append(line)
            self.seen.append(line)
            if text in line:
                return read


def test_watch_lints_again_after_a_change(tmp_path: Path) -> None:
    (tmp_path / "ptxlint.toml").write_text("")
    kernel = tmp_path / "k.ptx"
    kernel.write_text(BROKEN)
    environment = {**os.environ, "PTXLINT_WATCH_INTERVAL": "0.05", "PTXLINT_CACHE_DIR": str(tmp_path / "cache")}
    process = subprocess.Popen(
        [sys.executable, "-m", "ptxlint", "--watch", "--output-format", "concise", "k.ptx"],
        cwd=tmp_path, env=environment, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    try:
        output = _Lines(process)
        first = output.until("watching for changes")
        assert "k.ptx:7:14: error: PTX001 cannot parse `%tid.x`" in first
        kernel.write_text(CLEAN)
        second = output.until("watching for changes")
        assert second[0] == "ptxlint: change detected, linting again"
        assert not any("PTX001" in line for line in second)
        # The configuration is watched too: a severity override shows in the next report.
        kernel.write_text(BROKEN)
        output.until("watching for changes")
        (tmp_path / "ptxlint.toml").write_text('[severity]\nPTX001 = "warning"\n')
        fourth = output.until("watching for changes")
        assert "k.ptx:7:14: warning: PTX001 cannot parse `%tid.x`" in fourth
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=60) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def _watch(tmp_path: Path, *arguments: str) -> subprocess.Popen[str]:
    environment = {**os.environ, "PTXLINT_WATCH_INTERVAL": "0.05", "PTXLINT_CACHE_DIR": str(tmp_path / "cache")}
    return subprocess.Popen(
        [sys.executable, "-m", "ptxlint", "--watch", "--output-format", "concise", *arguments],
        cwd=tmp_path, env=environment, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )


@pytest.mark.skipif(find_tool("nvcc") is None, reason="needs nvcc (the test extra installs it)")
def test_watch_sees_the_headers_a_cu_file_includes(tmp_path: Path) -> None:
    (tmp_path / "ptxlint.toml").write_text("")
    (tmp_path / "include").mkdir()
    header = tmp_path / "include" / "shape.h"
    header.write_text("#define LIMIT 1024\n")
    (tmp_path / "k.cu").write_text('#include "shape.h"\n__global__ void k(int *out) {\n  if (threadIdx.x < LIMIT) __syncthreads();\n  out[0] = 1;\n}\n')
    process = _watch(tmp_path, "k.cu", "--", "-I", "include")
    try:
        output = _Lines(process)
        first = output.until("watching for changes", timeout=300)
        assert not any("PTX102" in line for line in first), first
        header.write_text("#define LIMIT 16\n")
        second = output.until("watching for changes", timeout=300)
        assert any(line.startswith("k.cu:3:") and "PTX102" in line for line in second), second
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=60) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_snapshot_sees_new_changed_and_removed_files(tmp_path: Path) -> None:
    (tmp_path / "a.ptx").write_text("x")
    before = snapshot([str(tmp_path)])
    assert snapshot([str(tmp_path)]) == before
    (tmp_path / "b.ptx").write_text("y")
    added = snapshot([str(tmp_path)])
    assert added != before
    (tmp_path / "a.ptx").write_text("xx")
    assert snapshot([str(tmp_path)]) != added
    assert snapshot([str(tmp_path / "gone.ptx")]) == ((str(tmp_path / "gone.ptx"), None),)
