#!/usr/bin/env python3
"""Fuzz the whole ptxlint pipeline: bytes → parse → IR → every rule → every output format.

The target (:func:`check`) fails on anything but diagnostics: an exception anywhere, a rule that
crashed (the driver turns that into a file error, which is still a ptxlint bug), SARIF or JSON
output that is not valid JSON, or human-readable output that carries a control character from
the input (terminal escape injection).

Two engines drive it:

* a deterministic, structure-aware mutator in pure Python (``--engine mutate``, the default):
  it knows PTX is lines, statements, operands, qualifiers and braces, so it reaches the
  analyses instead of stopping at the parser. A fixed ``--seed`` and ``--runs`` give the same
  inputs on every machine: this is what the test suite runs (tests/test_fuzz.py).
* atheris, libFuzzer's coverage-guided engine (``--engine atheris``; ``pip install atheris``),
  seeded with the same corpus and with the structure-aware mutator as its custom mutator.

Seeds: our fixtures (``fixtures/**/*.ptx``), ``tests/fuzz_seeds/*.ptx`` and, with
``--corpus-sample N``, at most N small files of the regression corpus (``~/.cache/ptxlint/corpus``
or ``$PTXLINT_CORPUS_DIR``). Generated and third-party PTX stays in that cache: crashes are written
to ``--crash-dir`` (default ``~/.cache/ptxlint/fuzz-crashes``), minimised, never into the repo.

    scripts/fuzz.py --minutes 30              # long run, structure-aware
    scripts/fuzz.py --runs 20000 --seed 7     # a fixed amount of work
    scripts/fuzz.py --engine atheris --minutes 30 --corpus-sample 200
    scripts/fuzz.py --reproduce crash.ptx     # run one input, print the traceback
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import random
import re
import sys
import time
import traceback
from pathlib import Path
from typing import Callable, Iterator

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

DEFAULT_CRASH_DIR = Path.home() / ".cache" / "ptxlint" / "fuzz-crashes"
MAX_INPUT = 64 * 1024  # bytes; bigger inputs only slow the search down (tests/test_pathological.py covers size)
_SEED_CAP = 48 * 1024  # corpus files larger than this are not sampled
# C0/C1 controls except tab and newline: none may reach human-readable output from the input.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_SGR = re.compile(r"\x1b\[[0-9;]*m")


class FuzzFailure(Exception):
    """The pipeline did something other than report diagnostics. ``kind`` names the bug (what
    minimising must preserve), the message gives the details."""

    def __init__(self, kind: str, detail: str = "") -> None:
        super().__init__(f"{kind}: {detail}" if detail else kind)
        self.kind = kind


# ----------------------------------------------------------------------------- the target


def check(data: bytes, path: str = "fuzz.ptx") -> list:
    """Run ``data`` through the whole pipeline with every rule and every output format. Returns
    the diagnostics; raises (anything) on a bug."""
    from ptxlint.diagnostics import FileResult
    from ptxlint.lint import LintSettings, analyse
    from ptxlint.render import Report, concise, github
    from ptxlint.render import full
    from ptxlint.render import json as json_format
    from ptxlint.render import sarif
    from ptxlint.rules import ALL_RULES
    from ptxlint.source import SourceFile

    source = SourceFile.from_bytes(path, data)
    analysis = analyse(source, LintSettings(rules=ALL_RULES))
    if analysis.crashes:
        raise FuzzFailure(_rule_crash_kind(source), "; ".join(analysis.crashes))
    result = FileResult(path, tuple(analysis.diagnostics), source, suppressed=analysis.suppressed)
    # `--map-to-source` changes the output only when a finding has a `.loc` origin.
    for map_to_source in (False, True) if any(d.origin for d in analysis.diagnostics) else (False,):
        report = Report((result,), rules=ALL_RULES, elapsed=0.0, map_to_source=map_to_source)
        plain, coloured = io.StringIO(), io.StringIO()
        full.render(report, full.console_for(plain, "never"), show_summary=True)
        full.render(report, full.console_for(coloured, "always"), show_summary=True)
        _no_controls("full", plain.getvalue())
        # Colour is decoration only: without rich's own SGR sequences the text is the same, so
        # no escape sequence in the coloured output can have come from the input.
        if _SGR.sub("", coloured.getvalue()) != plain.getvalue():
            raise FuzzFailure("full output differs with colour beyond SGR sequences")
        for name, module in (("concise", concise), ("github", github)):
            buffer = io.StringIO()
            module.render(report, buffer)
            _no_controls(name, buffer.getvalue())
        for name, module in (("json", json_format), ("sarif", sarif)):
            buffer = io.StringIO()
            if module is sarif:
                module.render(report, buffer, source_root=str(ROOT))
            else:
                module.render(report, buffer)
            try:
                json.loads(buffer.getvalue())
            except ValueError as error:
                raise FuzzFailure(f"{name} output is not valid JSON", str(error)) from None
    return analysis.diagnostics


def _rule_crash_kind(source) -> str:  # type: ignore[no-untyped-def]
    """The driver reports a crashing rule in one line; rerun the rules to find where it crashed:
    `IndexError in values_lattice.py:_normalise` (a function, not a line: lines move as code is edited)."""
    from ptxlint.context import ModuleContext
    from ptxlint.lower import lower
    from ptxlint.rules import ALL_RULES

    context = ModuleContext(lower(source))
    for rule in ALL_RULES:
        try:
            with context.running(rule):
                list(rule.check(context))
        except Exception as error:  # noqa: BLE001
            frames = [frame for frame in traceback.extract_tb(error.__traceback__) if "ptxlint" in frame.filename]
            where = f"{Path(frames[-1].filename).name}:{frames[-1].name}" if frames else "?"
            return f"{type(error).__name__} in {where}"
    return "rule crashed"


def _no_controls(name: str, text: str) -> None:
    match = _CONTROL.search(text)
    if match:
        where = text[max(0, match.start() - 40) : match.start() + 10]
        raise FuzzFailure(f"{name} output carries a control character", f"{match.group()!r} in {where!r}")


def signature(error: BaseException) -> str:
    """What identifies a bug: the exception type and the innermost ptxlint frame."""
    frames = [frame for frame in traceback.extract_tb(error.__traceback__) if "ptxlint" in frame.filename]
    where = f"{Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else "?"
    if isinstance(error, FuzzFailure):
        return f"FuzzFailure {error.kind}"
    return f"{type(error).__name__} at {where}"


# ----------------------------------------------------------------------------- seeds


def seed_files(corpus_sample: int = 0, rng: random.Random | None = None) -> list[Path]:
    """Our own PTX (fixtures and tests/fuzz_seeds), plus a capped sample of the corpus cache."""
    own = sorted((ROOT / "fixtures").rglob("*.ptx")) + sorted((ROOT / "tests" / "fuzz_seeds").glob("*.ptx"))
    if corpus_sample <= 0:
        return own
    corpus = Path(os.environ.get("PTXLINT_CORPUS_DIR") or Path.home() / ".cache" / "ptxlint" / "corpus")
    found = sorted(path for path in corpus.rglob("*.ptx") if path.stat().st_size <= _SEED_CAP) if corpus.is_dir() else []
    (rng or random.Random(0)).shuffle(found)
    return own + found[:corpus_sample]


def seeds(corpus_sample: int = 0) -> list[bytes]:
    return [path.read_bytes() for path in seed_files(corpus_sample)]


# ----------------------------------------------------------------------------- mutations

_OPCODES = (
    b"bra", b"bra.uni", b"ret", b"exit", b"trap", b"call", b"bar.sync", b"barrier.sync.aligned", b"bar.warp.sync",
    b"mov.u32", b"add.s32", b"setp.eq.u32", b"ld.global.u32", b"st.shared.b32", b"shfl.sync.bfly.b32",
    b"vote.sync.all.pred", b"tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32",
    b"tcgen05.ld.sync.aligned.32x32b.x2.b32", b"tcgen05.wait::ld.sync.aligned", b"tcgen05.mma.cta_group::2.kind::f16",
    b"tcgen05.dealloc.cta_group::1.sync.aligned.b32", b"wgmma.fence.sync.aligned", b"elect.sync", b"brx.idx",
    b"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", b"cp.async.bulk.tensor.2d", b"fence.proxy.async",
)
_TOKENS = (
    b"{", b"}", b"(", b")", b"[", b"]", b";", b",", b":", b"|", b"::", b".", b"%", b"@", b"!", b"+", b"-", b"<", b">",
    b"%r1", b"%rd1", b"%p1", b"%tid.x", b"%laneid", b"%warpid", b"%r<1000000>", b"LBB0_1", b"LBB0_1:", b"$L__x:",
    b".reg .b32 %r<4>;", b".reg .pred %p<2>;", b".version 9.0", b".target sm_100a", b".target sm_90a, debug",
    b".address_size 64", b".entry k()", b".func f()", b".visible", b".extern", b".weak", b".shared .b8 s[4];",
    b".loc 1 2 3", b".file 1 \"x.cu\"", b"// ptxlint: ignore", b"// ptxlint: file-ignore[PTX002]",
    b"// ptxlint: ignore[PTX101]", b"/*", b"*/", b"\"", b"0x", b"0f3F800000", b"0d", b"1e309", b"-0",
    b"18446744073709551616", b"{%r1, %r2, %r3, %r4}", b".maxntid 32,1,1", b".reqntid 1024", b".pragma \"nounroll\";",
    b"\x1b[31m", b"\x1b]8;;http://x\x07", b"\xff", b"\xc3", b"\xe2\x80\xae", b"\t", b"\r", b"\r\n", b"\x00", b"\x0c",
)
_QUALIFIERS = (
    b".sync", b".aligned", b".cta_group::1", b".cta_group::2", b".x2", b".x128", b".32x32b", b".16x256b", b".b32", b".u64",
    b".pred", b".uni", b".shared::cta", b".global", b".kind::f16", b".kind::mxf8f6f4", b"::ld", b"::st", b".unknown", b"",
)


def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")


def _m_delete_lines(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    start = rng.randrange(len(lines))
    del lines[start : start + rng.choice((1, 1, 1, 2, 5))]
    return b"\n".join(lines)


def _m_duplicate_lines(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    start = rng.randrange(len(lines))
    chunk = lines[start : start + rng.choice((1, 1, 3, 8))]
    where = rng.randrange(len(lines) + 1)
    lines[where:where] = chunk * rng.choice((1, 1, 2, 10))
    return b"\n".join(lines)


def _m_swap_lines(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    first, second = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[first], lines[second] = lines[second], lines[first]
    return b"\n".join(lines)


def _m_truncate(data: bytes, rng: random.Random) -> bytes:
    return data[: rng.randrange(len(data) + 1)]


def _m_insert_token(data: bytes, rng: random.Random) -> bytes:
    where = rng.randrange(len(data) + 1)
    token = rng.choice(_TOKENS)
    pad = rng.choice((b"", b" ", b"\n"))
    return data[:where] + pad + token + pad + data[where:]


def _m_replace_word(data: bytes, rng: random.Random) -> bytes:
    """Corrupt an operand, a register, a label or a number."""
    words = list(re.finditer(rb"[%$A-Za-z_][\w$%.:]*|\d+", data))
    if not words:
        return _m_insert_token(data, rng)
    word = rng.choice(words)
    other = rng.choice(words).group() if rng.random() < 0.5 else rng.choice(_TOKENS + _OPCODES)
    return data[: word.start()] + other + data[word.end() :]


def _m_qualifier(data: bytes, rng: random.Random) -> bytes:
    """Drop, add or swap a `.qualifier` (or `::qualifier`) of an opcode or directive."""
    parts = list(re.finditer(rb"(?:\.|::)[A-Za-z0-9_]+", data))
    if not parts:
        return _m_insert_token(data, rng)
    part = rng.choice(parts)
    replacement = rng.choice(_QUALIFIERS + (part.group() + rng.choice(_QUALIFIERS),))
    return data[: part.start()] + replacement + data[part.end() :]


def _m_opcode(data: bytes, rng: random.Random) -> bytes:
    """Replace the opcode of an instruction line by another, keeping the operands."""
    lines = _lines(data)
    candidates = [i for i, line in enumerate(lines) if re.match(rb"\s*(?:@!?%\w+\s+)?[a-z]", line)]
    if not candidates:
        return _m_insert_token(data, rng)
    index = rng.choice(candidates)
    lines[index] = re.sub(rb"^(\s*(?:@!?%\w+\s+)?)[a-z][\w.:]*", lambda m: m.group(1) + rng.choice(_OPCODES), lines[index], count=1)
    return b"\n".join(lines)


def _m_guard(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    index = rng.randrange(len(lines))
    guard = rng.choice((b"@%p1 ", b"@!%p1 ", b"@%p0 ", b"@%r1 ", b"@ ", b"@!"))
    lines[index] = re.sub(rb"^(\s*)", lambda m: m.group(1) + guard, lines[index], count=1)
    return b"\n".join(lines)


def _m_braces(data: bytes, rng: random.Random) -> bytes:
    """Unbalance or nest scopes."""
    lines = _lines(data)
    index = rng.randrange(len(lines) + 1)
    choice = rng.randrange(4)
    if choice == 0:
        lines.insert(index, b"{")
    elif choice == 1:
        lines.insert(index, b"}")
    elif choice == 2:
        end = rng.randrange(index, len(lines) + 1)
        depth = rng.choice((1, 2, 50))
        lines[index:end] = [b"{" * depth, *lines[index:end], b"}" * depth]
    else:
        braces = [i for i, line in enumerate(lines) if b"{" in line or b"}" in line]
        if braces:
            del lines[rng.choice(braces)]
    return b"\n".join(lines)


def _m_labels(data: bytes, rng: random.Random) -> bytes:
    """Stray labels and branches: duplicate, undefined, at the end, inside nested scopes."""
    lines = _lines(data)
    name = rng.choice((b"L0", b"L1", b"LBB0_1", b"$L__BB0_2", b"k", b"f", b"%r1"))
    snippet = rng.choice((
        name + b":", b"bra " + name + b";", b"@%p1 bra " + name + b";", b"{ " + name + b": }",
        name + b": bra " + name + b";", b"T: .branchtargets " + name + b", L1;", b"brx.idx %r1, T;",
        b"call f;", b"call (%r1), f, (%r2);", b"call k;", b"call.uni %rd1, (), P;",
    ))
    lines.insert(rng.randrange(len(lines) + 1), snippet)
    return b"\n".join(lines)


def _m_function(data: bytes, rng: random.Random) -> bytes:
    """Append or insert a whole (possibly broken) function or kernel."""
    body = rng.choice((
        b".func f()\n{\n\tcall f;\n\tret;\n}\n",
        b".visible .entry k2()\n{\n\t.reg .b32 %r<3>;\n\tmov.u32 %r1, %tid.x;\n\tbar.sync 0;\n\tret;\n}\n",
        b".func (.reg .b32 r) g(.reg .b32 a)\n{\n\tmov.b32 r, a;\n\tret;\n}\n",
        b".entry e(.param .u64 p)\n{\nL: bra L;\n}\n",
        b".func h;\n",
        b".entry\n",
        b".visible .entry k(\n",
    ))
    where = rng.choice((len(data), rng.randrange(len(data) + 1)))
    return data[:where] + b"\n" + body + data[where:]


def _m_vector(data: bytes, rng: random.Random) -> bytes:
    size = rng.choice((0, 1, 3, 5, 129, 1000))
    vector = b"{" + b", ".join(b"%r" + str(i).encode() for i in range(size)) + b"}"
    return _insert_at_random(data, vector, rng)


def _m_random_bytes(data: bytes, rng: random.Random) -> bytes:
    noise = bytes(rng.randrange(256) for _ in range(rng.choice((1, 2, 4, 16))))
    return _insert_at_random(data, noise, rng)


def _m_flip(data: bytes, rng: random.Random) -> bytes:
    if not data:
        return bytes([rng.randrange(256)])
    where = rng.randrange(len(data))
    return data[:where] + bytes([data[where] ^ (1 << rng.randrange(8))]) + data[where + 1 :]


def _m_invalid_utf8(data: bytes, rng: random.Random) -> bytes:
    return _insert_at_random(data, rng.choice((b"\xff", b"\xc3", b"\xe2\x82", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xc0\xaf")), rng)


def _m_splice(data: bytes, rng: random.Random, pool: list[bytes] | None = None) -> bytes:
    if not pool:
        return _m_duplicate_lines(data, rng)
    other = _lines(rng.choice(pool))
    start = rng.randrange(len(other))
    lines = _lines(data)
    where = rng.randrange(len(lines) + 1)
    lines[where:where] = other[start : start + rng.randrange(1, 20)]
    return b"\n".join(lines)


def _insert_at_random(data: bytes, insert: bytes, rng: random.Random) -> bytes:
    where = rng.randrange(len(data) + 1)
    return data[:where] + insert + data[where:]


MUTATIONS: tuple[Callable[[bytes, random.Random], bytes], ...] = (
    _m_delete_lines, _m_duplicate_lines, _m_swap_lines, _m_truncate, _m_insert_token, _m_replace_word,
    _m_replace_word, _m_qualifier, _m_qualifier, _m_opcode, _m_opcode, _m_guard, _m_braces, _m_labels, _m_labels,
    _m_function, _m_vector, _m_random_bytes, _m_flip, _m_invalid_utf8,
)


def mutate(data: bytes, rng: random.Random, pool: list[bytes] | None = None, max_size: int = MAX_INPUT) -> bytes:
    """One to four structure-aware mutations of ``data``, capped at ``max_size`` bytes."""
    for _ in range(rng.choice((1, 1, 2, 3, 4))):
        if pool and rng.random() < 0.08:
            data = _m_splice(data, rng, pool)
        else:
            data = rng.choice(MUTATIONS)(data, rng)
    return data[:max_size]


def truncations(data: bytes) -> Iterator[bytes]:
    """Every prefix of ``data``: what an editor sees while the file is typed."""
    for end in range(len(data) + 1):
        yield data[:end]


# ----------------------------------------------------------------------------- minimising


def minimise(data: bytes, still_fails: Callable[[bytes], bool], deadline: float | None = None) -> bytes:
    """Delta debugging, by lines then by bytes: the smallest input found that still fails the same way."""
    for unit in (b"\n", None):
        pieces: list[bytes] = data.split(b"\n") if unit else [bytes([byte]) for byte in data]
        joiner = unit or b""
        chunk = max(1, len(pieces) // 2)
        while chunk >= 1:
            index = 0
            while index < len(pieces):
                if deadline is not None and time.monotonic() > deadline:
                    return joiner.join(pieces)
                candidate = pieces[:index] + pieces[index + chunk :]
                if candidate and still_fails(joiner.join(candidate)):
                    pieces = candidate
                else:
                    index += chunk
            chunk //= 2
        data = joiner.join(pieces)
    return data


def fails_like(wanted: str) -> Callable[[bytes], bool]:
    def still_fails(data: bytes) -> bool:
        try:
            check(data)
        except Exception as error:  # noqa: BLE001
            return signature(error) == wanted
        return False

    return still_fails


# ----------------------------------------------------------------------------- the mutate engine


class Campaign:
    """A deterministic fuzzing campaign: the seeds, every prefix of the smallest seed, then
    mutations of seeds and of inputs that produced new diagnostics (a cheap proxy for coverage)."""

    def __init__(self, pool: list[bytes], seed: int = 0) -> None:
        self.pool = list(pool)
        self.rng = random.Random(seed)
        self.failures: dict[str, bytes] = {}
        self.executions = 0
        self._seen_outcomes: set[tuple[str, ...]] = set()

    def inputs(self) -> Iterator[bytes]:
        yield from self.pool
        smallest = min(self.pool, key=len) if self.pool else b""
        yield from truncations(smallest)
        while True:
            yield mutate(self.rng.choice(self.pool), self.rng, self.pool)

    def run(self, runs: int | None = None, seconds: float | None = None, log: Callable[[str], None] | None = None) -> None:
        started = time.monotonic()
        report_at = started + 10
        for data in self.inputs():
            if runs is not None and self.executions >= runs:
                break
            if seconds is not None and time.monotonic() - started >= seconds:
                break
            self.one(data)
            if log and time.monotonic() > report_at:
                report_at += 10
                log(f"#{self.executions} in {time.monotonic() - started:.0f}s, pool {len(self.pool)}, failures {len(self.failures)}")

    def one(self, data: bytes) -> None:
        self.executions += 1
        try:
            diagnostics = check(data)
        except Exception as error:  # noqa: BLE001 - every failure is recorded, the campaign goes on
            key = signature(error)
            if key not in self.failures or len(data) < len(self.failures[key]):
                self.failures[key] = data
            return
        # Keep inputs with a new set of findings (codes and message openings) for mutation.
        codes = tuple(sorted({d.code + d.message[:12] for d in diagnostics}))
        if codes not in self._seen_outcomes and len(self.pool) < 4000:
            self._seen_outcomes.add(codes)
            self.pool.append(data)


# ----------------------------------------------------------------------------- atheris


def run_atheris(pool: list[bytes], argv: list[str]) -> None:
    import atheris  # type: ignore[import-not-found]

    with atheris.instrument_imports(include=["ptxlint"]):
        import ptxlint.lint  # noqa: F401
        import ptxlint.render.full  # noqa: F401
        import ptxlint.render.sarif  # noqa: F401

    corpus_dir = Path.home() / ".cache" / "ptxlint" / "fuzz-atheris"
    corpus_dir.mkdir(parents=True, exist_ok=True)
    for data in pool:
        (corpus_dir / hashlib.sha1(data).hexdigest()).write_bytes(data)

    def target(data: bytes) -> None:
        check(data)

    def custom_mutator(data: bytes, max_size: int, seed: int) -> bytes:
        rng = random.Random(seed)
        if rng.random() < 0.25:
            return atheris.Mutate(data, max_size)
        return mutate(data, rng, pool, max_size)

    atheris.Setup([sys.argv[0], *argv, str(corpus_dir)], target, custom_mutator=custom_mutator)
    atheris.Fuzz()


# ----------------------------------------------------------------------------- command line


def _rule_tracebacks(data: bytes) -> None:
    """The driver reports a crashing rule in one line; show where each one crashed."""
    from ptxlint.context import ModuleContext
    from ptxlint.lower import lower
    from ptxlint.rules import ALL_RULES
    from ptxlint.source import SourceFile

    context = ModuleContext(lower(SourceFile.from_bytes("fuzz.ptx", data)))
    for rule in ALL_RULES:
        try:
            with context.running(rule):
                list(rule.check(context))
        except Exception:  # noqa: BLE001
            print(f"--- {rule.code}", file=sys.stderr)
            traceback.print_exc()



def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", choices=("mutate", "atheris"), default="mutate")
    parser.add_argument("--runs", type=int, help="stop after this many executions")
    parser.add_argument("--minutes", type=float, help="stop after this long (default: 1 minute unless --runs)")
    parser.add_argument("--seed", type=int, default=0, help="random seed of the mutate engine (deterministic)")
    parser.add_argument("--corpus-sample", type=int, default=0, metavar="N", help="also seed with N small corpus files")
    parser.add_argument("--crash-dir", type=Path, default=DEFAULT_CRASH_DIR)
    parser.add_argument("--no-minimise", action="store_true")
    parser.add_argument("--reproduce", type=Path, metavar="FILE", help="run one input and print what fails")
    parser.add_argument("atheris_args", nargs="*", help="passed to libFuzzer (after --)")
    args = parser.parse_args(argv)

    if args.reproduce:
        try:
            found = check(args.reproduce.read_bytes(), str(args.reproduce))
        except Exception:  # noqa: BLE001
            traceback.print_exc()
            _rule_tracebacks(args.reproduce.read_bytes())
            return 1
        print(f"ok: {len(found)} diagnostics")
        return 0

    pool = seeds(args.corpus_sample)
    if args.engine == "atheris":
        extra = list(args.atheris_args)
        if args.runs is not None:
            extra.append(f"-runs={args.runs}")
        if args.minutes is not None:
            extra.append(f"-max_total_time={int(args.minutes * 60)}")
        extra.append(f"-seed={args.seed or 1}")
        extra.append(f"-max_len={MAX_INPUT}")
        args.crash_dir.mkdir(parents=True, exist_ok=True)
        extra.append(f"-artifact_prefix={args.crash_dir}/")
        run_atheris(pool, extra)
        return 0

    seconds = args.minutes * 60 if args.minutes is not None else (None if args.runs is not None else 60.0)
    campaign = Campaign(pool, args.seed)
    started = time.monotonic()
    campaign.run(args.runs, seconds, log=lambda line: print(line, file=sys.stderr, flush=True))
    elapsed = time.monotonic() - started
    print(f"{campaign.executions} executions in {elapsed:.1f}s ({campaign.executions / max(elapsed, 1e-9):.0f}/s), "
          f"{len(seeds(args.corpus_sample))} seeds, {len(campaign.failures)} distinct failures")
    for key, data in sorted(campaign.failures.items()):
        if not args.no_minimise:
            data = minimise(data, fails_like(key), deadline=time.monotonic() + 60)
        args.crash_dir.mkdir(parents=True, exist_ok=True)
        name = args.crash_dir / f"crash-{hashlib.sha1(key.encode()).hexdigest()[:10]}.ptx"
        name.write_bytes(data)
        print(f"FAIL {key}\n     {name} ({len(data)} bytes)")
    return 1 if campaign.failures else 0


if __name__ == "__main__":
    sys.exit(main())
