"""The pre-commit hook, run the way users run it: `pre-commit try-repo` from a separate git
repository. The hook fails on a buggy `.ptx` and a buggy `.cu` file (compiled with the test
dependencies' nvcc) and passes once they are fixed. The configuration
README.md shows (a local hook running the installed `ptxlint`) is run as written, too.

try-repo on a dirty checkout includes modified files but not new ones, so the hook repository is
a snapshot of the working tree (tracked and untracked, not ignored files) committed to a
temporary repository: the test checks the code as it is, committed or not.

pre-commit builds a virtualenv and pip-installs ptxlint into it (compiling the grammar), so this
takes about a minute; it is skipped when pre-commit or git is missing.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ptxlint.frontends.toolkit import find_tool

ROOT = Path(__file__).resolve().parent.parent
BROKEN = ".version 9.0\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{\n\t.reg .b32 %r<2>;\n\tmov.u32 %r1 %tid.x;\n\tret;\n}\n"
FIXED = BROKEN.replace("%r1 %tid.x", "%r1, %tid.x")
CUDA_EXAMPLE = ROOT / "examples" / "tmem_alloc_divergent.cu"
CUDA_BUG_LINE = next(
    number for number, line in enumerate(CUDA_EXAMPLE.read_text().splitlines(), 1) if "tcgen05.alloc" in line and "asm" in line
)
CUDA_FIXED = "__global__ void store(int *out) { out[threadIdx.x] = 1; }\n"

pytestmark = pytest.mark.skipif(
    shutil.which("pre-commit") is None or shutil.which("git") is None, reason="pre-commit and git are needed"
)


def git(repository: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repository, check=True, capture_output=True)


def snapshot(destination: Path) -> Path:
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, check=True, capture_output=True, text=True,
    ).stdout
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():
            (destination / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, destination / name)
    git(destination, "init", "-q")
    git(destination, "add", "-A")
    git(destination, "-c", "user.email=t@example.invalid", "-c", "user.name=t", "commit", "-q", "-m", "snapshot")
    return destination


def try_repo(hook_repository: Path, repository: Path, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "NO_COLOR": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    # The hook's own environment has no CUDA wheels: point it at the toolkit these tests use.
    nvcc = find_tool("nvcc")
    assert nvcc is not None, "nvcc not found: install the test extra (pip install -e '.[test]')"
    env.setdefault("CUDA_HOME", str(Path(nvcc).resolve().parent.parent))
    return subprocess.run(
        ["pre-commit", "try-repo", str(hook_repository), "ptxlint", "--all-files", "--color", "never"],
        cwd=repository, env=env, capture_output=True, text=True, timeout=900,
    )


def test_hook_fails_on_a_bug_and_passes_when_fixed(tmp_path: Path) -> None:
    repository = tmp_path / "project"
    repository.mkdir()
    git(repository, "init", "-q")
    git(repository, "config", "user.email", "test@example.invalid")
    git(repository, "config", "user.name", "test")
    kernel = repository / "kernel.ptx"
    kernel.write_text(BROKEN)
    source = repository / "kernel.cu"
    source.write_text(CUDA_EXAMPLE.read_text())
    git(repository, "add", "kernel.ptx", "kernel.cu")
    home = tmp_path / "pre-commit-home"
    hooks = snapshot(tmp_path / "ptxlint")

    failed = try_repo(hooks, repository, home)
    assert failed.returncode != 0, failed.stdout + failed.stderr
    assert "PTX001" in failed.stdout and "kernel.ptx:7:14" in failed.stdout, failed.stdout + failed.stderr
    assert "PTX101" in failed.stdout and f"kernel.cu:{CUDA_BUG_LINE}:" in failed.stdout, failed.stdout + failed.stderr

    kernel.write_text(FIXED)
    source.write_text(CUDA_FIXED)
    git(repository, "add", "kernel.ptx", "kernel.cu")
    passed = try_repo(hooks, repository, home)
    assert passed.returncode == 0, passed.stdout + passed.stderr


def readme_configuration() -> str:
    """The `.pre-commit-config.yaml` of README.md's pre-commit section, as printed there."""
    section = (ROOT / "README.md").read_text().split("### pre-commit", 1)[1]
    match = re.search(r"```yaml\n(.*?)```", section, re.DOTALL)
    assert match, "README.md's pre-commit section has no yaml block"
    return match[1]


def test_readme_configuration_works_as_written(tmp_path: Path) -> None:
    """The README's snippet names no placeholder: copied into a project where ptxlint is installed,
    `pre-commit run` fails on the buggy kernel and passes on the fixed one."""
    configuration = readme_configuration()
    assert "<" not in configuration, configuration
    # The ptxlint these tests run: the script next to this interpreter, else the one on PATH.
    scripts = Path(sys.executable).parent
    if not (scripts / "ptxlint").exists() and shutil.which("ptxlint") is None:
        pytest.skip("the ptxlint script is not installed (pip install -e '.[test]')")
    repository = tmp_path / "project"
    repository.mkdir()
    git(repository, "init", "-q")
    (repository / ".pre-commit-config.yaml").write_text(configuration)
    (repository / "kernel.ptx").write_text(BROKEN)
    git(repository, "add", ".pre-commit-config.yaml", "kernel.ptx")
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"), "NO_COLOR": "1",
           "PATH": str(scripts) + os.pathsep + os.environ.get("PATH", "")}

    def run() -> subprocess.CompletedProcess[str]:
        return subprocess.run(["pre-commit", "run", "--all-files", "--color", "never"], cwd=repository, env=env,
                              capture_output=True, text=True, timeout=300)

    failed = run()
    assert failed.returncode != 0 and "kernel.ptx:7:14" in failed.stdout, failed.stdout + failed.stderr
    (repository / "kernel.ptx").write_text(FIXED)
    git(repository, "add", "kernel.ptx")
    passed = run()
    assert passed.returncode == 0, passed.stdout + passed.stderr
