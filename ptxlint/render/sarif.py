"""SARIF 2.1.0, shaped for GitHub code scanning.

- `tool.driver.rules` is the whole rule registry, with the docs as help text, so alerts explain
  themselves; results point at their rule by `ruleId` and `ruleIndex`.
- Regions count UTF-16 code units (`columnKind`), converted from byte spans by `SourceFile`.
- URIs are relative to `%SRCROOT%` (the working directory) where possible, so the log does not
  depend on where the checkout lives.
- `partialFingerprints.primaryLocationLineHash` is computed as the upload action would, so alerts
  keep their identity when lines move.
- Labels become `relatedLocations`, a witness path becomes a `codeFlow`, unreadable inputs become
  `toolExecutionNotifications` (with nvcc's or cuobjdump's own report when one failed: a compile
  error reads as nvcc wrote it) and make `executionSuccessful` false. A partly analysed file gets
  one error-level notification per rule that did not finish on it, with that rule as its
  `associatedRule`: in SARIF's terms (appendix I) the results are then not known to be complete.
- With `--map-to-source`, and for the `.cu` files ptxlint compiles itself, every location is a
  CUDA/Triton line (the finding, its labels, its code flow), texts name what the PTX registers
  are in the source, and the PTX position is a related location only where a file holds it: the
  input, or the file `--keep-ptx` wrote (a module compiled in memory has none). Without it, the
  PTX position is primary and the source line related.
"""

from __future__ import annotations

import json
import os
import urllib.parse
from pathlib import Path
from typing import Any, TextIO

from ptxlint import __version__
from ptxlint.diagnostics import Diagnostic, FileResult, Label, Severity, shown_frame, user_chain
from ptxlint.render import Report, notice, unfinished
from ptxlint.render.fingerprint import line_hashes
from ptxlint.render.grouping import group
from ptxlint.render.json import valid_unicode
from ptxlint.render.locations import Location, frame_location, in_source_terms, ptx_file, ptx_location
from ptxlint.render.names import demangle, mangled_names
from ptxlint.rules.base import Rule

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
SOURCE_ROOT = "%SRCROOT%"
_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "note"}


def render(report: Report, stream: TextIO, source_root: str | None = None) -> None:
    stream.write(valid_unicode(json.dumps(log(report, source_root), indent=2, ensure_ascii=False)) + "\n")


def log(report: Report, source_root: str | None = None) -> dict[str, Any]:
    root = Path(source_root or os.getcwd()).resolve()
    builder = _RunBuilder(report, root)
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [builder.run()]}


def rule_descriptor(rule: Rule) -> dict[str, Any]:
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.section("What it does") or rule.summary},
        "help": {"text": rule.docs.strip(), "markdown": rule.docs.strip()},
        "defaultConfiguration": {"level": _LEVEL[rule.severity], "enabled": rule.enabled_by_default},
        "properties": {"tags": list(rule.tags), "precision": rule.precision},
    }


class _RunBuilder:
    def __init__(self, report: Report, root: Path) -> None:
        self.report = report
        self.root = root
        self.rule_index = {rule.code: index for index, rule in enumerate(report.rules)}
        self._hashes: dict[str, dict[int, str] | None] = {}

    def run(self) -> dict[str, Any]:
        return {
            "tool": {
                "driver": {
                    "name": "ptxlint",
                    "version": __version__,
                    "semanticVersion": __version__,
                    "rules": [rule_descriptor(rule) for rule in self.report.rules],
                }
            },
            "invocations": [self.invocation()],
            "originalUriBaseIds": {SOURCE_ROOT: {"uri": self.root.as_uri() + "/"}},
            "columnKind": "utf16CodeUnits",
            "results": [
                sarif
                for result in self.report.results
                if result.source is not None
                for sarif in self.results_of(result)
            ],
        }

    def invocation(self) -> dict[str, Any]:
        failures = [result for result in self.report.results if result.error is not None]
        return {
            "executionSuccessful": not failures,
            "toolExecutionNotifications": [
                {
                    "level": "error",
                    # what nvcc or cuobjdump printed follows the reason, as they printed it
                    "message": {"text": f"{result.path}: {result.error}" + (f"\n{result.tool_output.rstrip()}" if result.tool_output.strip() else "")},
                    "locations": [{"physicalLocation": {"artifactLocation": self.artifact(_input_of(result.path))}}],
                }
                for result in failures
            ]
            + [
                self.unfinished_rule(result, code)
                for result in self.report.results
                if notice(result) is not None
                for code in unfinished(result)
            ],
        }

    def unfinished_rule(self, result: FileResult, code: str) -> dict[str, Any]:
        """A rule that did not finish on a file (the step limit or time budget ran out). Level
        error: the results may be incomplete. The execution itself succeeded (its findings are
        real), so `executionSuccessful` stays true."""
        rule: dict[str, Any] = {"id": code}
        if code in self.rule_index:
            rule["index"] = self.rule_index[code]
        return {
            "level": "error",
            "message": {"text": f"{result.path}: {code} did not finish: {notice(result)}"},
            "locations": [{"physicalLocation": {"artifactLocation": self.artifact(result.path)}}],
            "associatedRule": rule,
        }

    def results_of(self, result: FileResult) -> list[dict[str, Any]]:
        """One SARIF result per finding; mapped to the source, one per source location and rule,
        the PTX instructions it stands for (template instantiations, unrolled copies) as related
        locations where a file holds them, so a review bot annotates a CUDA/Triton line once."""
        assert result.source is not None
        if not self.report.maps_to_source(result):
            return [self.result(diagnostic, result) for diagnostic in result.diagnostics]
        found = []
        for repeated in group(result.diagnostics, result.source, by_shown_line=True):
            if not repeated.others or not repeated.first.origin:
                found += [self.result(diagnostic, result) for diagnostic in (repeated.first, *repeated.others)]
                continue
            sarif = self.result(repeated.first, result)
            related = [{key: value for key, value in location.items() if key != "id"} for location in sarif.get("relatedLocations", [])]
            if ptx_file(result) is not None:
                related += [
                    {
                        "physicalLocation": self.physical(ptx_location(result, other.span, utf16=True)),
                        "message": {"text": "the same finding at this PTX instruction"},
                    }
                    for other in repeated.others
                ]
            if related:
                sarif["relatedLocations"] = [dict(location, id=number) for number, location in enumerate(related, 1)]
            found.append(sarif)
        return found

    def result(self, diagnostic: Diagnostic, result: FileResult) -> dict[str, Any]:
        """One finding. Shown at its source line (`--map-to-source`, a `.cu` file ptxlint compiled),
        every location is a source line, in the source's terms, and the PTX instruction is related
        only where a file holds it (the input, or what `--keep-ptx` wrote)."""
        assert result.source is not None
        at_source = self.report.maps_to_source(result) and bool(diagnostic.origin)
        terms = diagnostic.source_terms if at_source else ()
        ptx = ptx_location(result, diagnostic.span, utf16=True)
        related = [located for label in diagnostic.labels if (located := self.label(result, label, at_source, terms)) is not None]
        if at_source:
            frame = diagnostic.source_frame
            assert frame is not None
            primary: tuple[Location, bytes | None] = (frame_location(frame), None)
            inner, _ = user_chain(diagnostic.origin, diagnostic.as_written)
            what = "inlined at this line" if diagnostic.as_written else "the code inlined here"
            related += [{"physicalLocation": self.physical(frame_location(frame)), "message": {"text": what}} for frame in inner]
            if ptx_file(result) is not None:
                related.append({"physicalLocation": self.physical(ptx), "message": {"text": "the PTX instruction"}})
        else:
            primary = (ptx, result.source.data)
            if diagnostic.origin:
                message = {"text": self.origin_message(diagnostic, result)}
                related.append({"physicalLocation": self.physical(frame_location(diagnostic.origin[0])), "message": message})
        sarif: dict[str, Any] = {
            "ruleId": diagnostic.code,
            "level": _LEVEL[diagnostic.severity],
            "message": {"text": self.message(diagnostic, terms)},
            "locations": [{"physicalLocation": self.physical(primary[0])}],
        }
        symbols = self.logical_locations(diagnostic)
        if symbols:
            sarif["locations"][0]["logicalLocations"] = symbols
        if diagnostic.code in self.rule_index:
            sarif["ruleIndex"] = self.rule_index[diagnostic.code]
        if related:
            sarif["relatedLocations"] = [dict(location, id=number) for number, location in enumerate(related, 1)]
        if diagnostic.witness:
            flow = self.code_flow(result, diagnostic.witness, at_source, terms)
            if flow is not None:
                sarif["codeFlows"] = [flow]
        fingerprint = self.line_hash(primary[0], primary[1])
        if fingerprint:
            sarif["partialFingerprints"] = {"primaryLocationLineHash": fingerprint}
        return sarif

    def logical_locations(self, diagnostic: Diagnostic) -> list[dict[str, str]]:
        """The C++ functions the message names: demangled, with the mangled name beside it."""
        locations = []
        for mangled in mangled_names(diagnostic.message):
            demangled = demangle(mangled)
            if demangled is not None:
                locations.append({"kind": "function", "fullyQualifiedName": demangled, "decoratedName": mangled})
        return locations

    def message(self, diagnostic: Diagnostic, terms: tuple[tuple[str, str], ...] = ()) -> str:
        parts = [diagnostic.message]
        parts += [f"note: {note}" for note in diagnostic.notes]
        if diagnostic.help:
            parts.append(f"help: {diagnostic.help}")
        return in_source_terms("\n".join(parts), terms)

    def origin_message(self, diagnostic: Diagnostic, result: FileResult) -> str:
        frames = ", inlined at ".join(str(frame) for frame in diagnostic.origin)
        return f"source line: {frames}"

    def label(
        self, result: FileResult, label: Label, at_source: bool = False, terms: tuple[tuple[str, str], ...] = ()
    ) -> dict[str, Any] | None:
        """A label at its source line when the finding is shown there, else at its PTX; None
        when it has no source line and no file holds its PTX."""
        assert result.source is not None
        message = {"text": in_source_terms(label.message, terms)}
        if at_source and label.origin:
            return {"physicalLocation": self.physical(frame_location(shown_frame(label.origin))), "message": message}
        if at_source and ptx_file(result) is None:
            return None
        return {"physicalLocation": self.physical(ptx_location(result, label.span, utf16=True)), "message": message}

    def code_flow(
        self, result: FileResult, witness: tuple[Label, ...], at_source: bool = False, terms: tuple[tuple[str, str], ...] = ()
    ) -> dict[str, Any] | None:
        steps = [
            {"location": located, "importance": "essential" if label.essential else "unimportant"}
            for label in witness
            if (located := self.label(result, label, at_source, terms)) is not None
        ]
        return {"threadFlows": [{"locations": steps}]} if steps else None

    def physical(self, location: Location) -> dict[str, Any]:
        region: dict[str, Any] = {"startLine": location.line}
        if location.known_column:
            region["startColumn"] = location.column
            if (location.end_line, location.end_column) != (location.line, location.column):
                region["endLine"] = location.end_line
                region["endColumn"] = location.end_column
        return {"artifactLocation": self.artifact(location.path), "region": region}

    def line_hash(self, location: Location, data: bytes | None) -> str | None:
        """The fingerprint of the primary line. A mapped CUDA file is read here, if it exists:
        the upload action would hash it too, and both must agree."""
        if location.path not in self._hashes:
            data = data if data is not None else _read_text_file(location.path)
            self._hashes[location.path] = line_hashes(data.decode("utf-8", errors="replace")) if data is not None else None
        hashes = self._hashes[location.path]
        return hashes.get(location.line) if hashes else None

    def artifact(self, path: str) -> dict[str, Any]:
        if path.startswith("<"):  # <stdin>
            return {"uri": urllib.parse.quote(os.fsencode(path))}
        absolute = Path(path).resolve() if not os.path.isabs(path) else Path(os.path.normpath(path))
        try:
            relative = absolute.relative_to(self.root).as_posix()
        except ValueError:
            return {"uri": absolute.as_uri()}
        # fsencode: a file name that is not UTF-8 reaches us with surrogate escapes; quote its bytes.
        return {"uri": urllib.parse.quote(os.fsencode(relative)), "uriBaseId": SOURCE_ROOT}


def _input_of(path: str) -> str:
    """The file a module's name stands for: `kernel.cu` for `kernel.cu[sm_90a]`, where a
    notification must point at a file that exists."""
    if path.endswith("]") and "[" in path:
        stem = path[: path.rindex("[")]
        if os.path.isfile(stem):
            return stem
    return path


def _read_text_file(path: str) -> bytes | None:
    if path.startswith("<"):
        return None
    try:
        with open(path, "rb") as handle:
            return handle.read(64 * 1024 * 1024)
    except OSError:
        return None
