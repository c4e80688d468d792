"""The results and nvcc caches: a cached run prints what an uncached run prints, byte for byte, and
anything that could change a result (the file, the settings, an included header) misses."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from ptxlint import cache, lint
from ptxlint.cli import main
from ptxlint.frontends import cuda
from ptxlint.frontends.toolkit import find_tool

ROOT = Path(__file__).resolve().parent.parent
KERNELS = [ROOT / "examples" / "divergent_tcgen05.ptx", *sorted((ROOT / "fixtures" / "tcgen05").glob("*.ptx"))[:6]]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(cache.ENVIRONMENT_VARIABLE, raising=False)
    (tmp_path / "ptxlint.toml").write_text("")
    for kernel in KERNELS:
        shutil.copy(kernel, tmp_path / kernel.name)
    return tmp_path


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["--cache-dir", "cache", "--color", "never", *args])
    return result.exit_code, result.stdout


def _analyses_counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    analysed: list[str] = []
    real = lint.analyse

    def counting(source, settings, on_stage=None):  # type: ignore[no-untyped-def]
        analysed.append(source.path)
        return real(source, settings, on_stage)

    monkeypatch.setattr(lint, "analyse", counting)
    return analysed


@pytest.mark.parametrize("output_format", ["full", "json", "sarif", "concise"])
def test_cached_run_prints_what_an_uncached_run_prints(project: Path, monkeypatch: pytest.MonkeyPatch, output_format: str) -> None:
    names = [kernel.name for kernel in KERNELS]
    arguments = ["--output-format", output_format, "--no-group", *names]
    uncached = invoke("--no-cache", *arguments)
    assert not (project / "cache").exists()
    analysed = _analyses_counted(monkeypatch)
    filled = invoke(*arguments)
    assert len(analysed) == len(names) and (project / "cache" / cache.RESULTS).is_dir()
    hit = invoke(*arguments)
    assert len(analysed) == len(names), "the second run analysed again instead of reading the cache"
    assert uncached[0] == 1 and "PTX" in uncached[1]
    # The summary line of the terminal format says how long the run took; nothing else differs.
    uncached, filled, hit = ((code, re.sub(r" in \d+\.\d\ds\.$", " in TIME.", text, flags=re.M)) for code, text in (uncached, filled, hit))
    assert uncached == filled == hit


def test_changing_the_file_or_the_settings_misses(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    kernel = KERNELS[0].name
    analysed = _analyses_counted(monkeypatch)
    first = invoke("--output-format", "concise", kernel)
    assert invoke("--output-format", "concise", kernel) == first and len(analysed) == 1
    # A rule selected away: another key.
    code = first[1].split(": ")[2].split()[0]
    narrowed = invoke("--output-format", "concise", "--ignore", code, kernel)
    assert len(analysed) == 2 and code not in narrowed[1]
    # A severity override in the configuration: another key, and the output says so.
    (project / "ptxlint.toml").write_text(f'[severity]\n{code} = "warning"\n')
    overridden = invoke("--output-format", "concise", kernel)
    assert len(analysed) == 3 and f": warning: {code}" in overridden[1]
    (project / "ptxlint.toml").write_text("")
    # The file's bytes: another key (a comment that suppresses the first finding).
    line = int(first[1].split(":")[1])
    lines = (project / kernel).read_text().splitlines(keepends=True)
    lines[line - 1] = lines[line - 1].rstrip("\n") + f"  // ptxlint: ignore[{code}]\n"
    (project / kernel).write_text("".join(lines))
    edited = invoke("--output-format", "concise", kernel)
    assert len(analysed) == 4 and f"{kernel}:{line}:" not in edited[1].replace(f"{kernel}:{line}: ", "")
    assert edited != first
    # The analysis step limit is a setting too.
    invoke("--output-format", "concise", "--max-analysis-steps", "5", kernel)
    assert len(analysed) == 5


def test_a_time_budget_or_timings_bypass_the_cache(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    analysed = _analyses_counted(monkeypatch)
    for _ in range(2):
        invoke("--time-budget", "60", KERNELS[0].name)
        invoke("--timings", KERNELS[0].name)
    assert len(analysed) == 4 and not (project / "cache").exists()


def test_clean_removes_the_caches_only(project: Path) -> None:
    invoke(KERNELS[0].name)
    (project / "cache" / "corpus").mkdir()
    result = CliRunner().invoke(main, ["clean", "--cache-dir", "cache"])
    assert result.exit_code == 0 and "removed" in result.stderr
    assert sorted(path.name for path in (project / "cache").iterdir()) == ["corpus"]
    assert "no cache" in CliRunner().invoke(main, ["clean", "--cache-dir", "cache"]).stderr
    assert CliRunner().invoke(main, ["-q", "clean", "--cache-dir", "cache"]).stderr == ""


def test_unreadable_entries_are_misses(project: Path) -> None:
    first = invoke("--output-format", "concise", KERNELS[0].name)
    for entry in (project / "cache").rglob("*"):
        if entry.is_file():
            entry.write_bytes(b"not a pickle")
    assert invoke("--output-format", "concise", KERNELS[0].name) == first


def test_make_dependencies_are_parsed() -> None:
    text = "out.ptx : a.cu \\\n    /usr/include/b.h \\\n    dir\\ with\\ spaces/c.h\n"
    assert cache.parse_make_dependencies(text) == ["a.cu", "/usr/include/b.h", "dir with spaces/c.h"]


KERNEL_CU = '#include "shape.h"\n__global__ void k(int *out) { if (threadIdx.x < LIMIT) __syncthreads(); out[0] = 1; }\n'


@pytest.mark.skipif(find_tool("nvcc") is None, reason="needs nvcc (the test extra installs it)")
def test_nvcc_output_is_reused_until_a_header_changes(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (project / "shape.h").write_text("#define LIMIT 1024\n")
    (project / "k.cu").write_text(KERNEL_CU)
    compiles: list[str] = []
    real = cuda._compile

    def counting(*args):  # type: ignore[no-untyped-def]
        compiles.append(args[1])
        return real(*args)

    monkeypatch.setattr(cuda, "_compile", counting)
    quiet = invoke("--output-format", "concise", "k.cu")
    assert quiet == invoke("--output-format", "concise", "k.cu") and len(compiles) == 1
    assert quiet[0] == 0
    # The header makes the barrier divergent: the cached PTX is stale and must not be used.
    (project / "shape.h").write_text("#define LIMIT 16\n")
    buggy = invoke("--output-format", "concise", "k.cu")
    assert len(compiles) == 2 and buggy[0] == 1 and "PTX102" in buggy[1]
    # Other flags, another architecture: other entries.
    invoke("--output-format", "concise", "k.cu", "--", "-DUNUSED")
    invoke("--output-format", "concise", "--arch", "sm_90a", "k.cu")
    assert len(compiles) == 4
    # An editor's unsaved buffer is compiled from its text, as the file it stands for.
    buffer = CliRunner().invoke(
        main, ["--cache-dir", "cache", "--output-format", "concise", "--stdin-filename", "k.cu"],
        input=KERNEL_CU.replace("threadIdx.x < LIMIT", "threadIdx.x < 1024"),
    )
    assert buffer.exit_code == 0 and len(compiles) == 5
