"""`ptxlint dump ir`: a readable listing of the IR, one line per instruction, for debugging the
parser and for bug reports; and `ptxlint dump PASS`: the same listing annotated with what a
pass's printer says of each instruction."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from ptxlint import ir

if TYPE_CHECKING:
    from ptxlint.context import ModuleContext


def format_operand(operand: ir.Operand) -> str:
    kind = type(operand)
    if kind is ir.Register or kind is ir.SpecialRegister or kind is ir.Symbol:
        prefix = {ir.Register: "", ir.SpecialRegister: "special ", ir.Symbol: "symbol "}[kind]
        return prefix + operand.name  # type: ignore[union-attr]
    if kind is ir.Immediate:
        return repr(operand.value)  # type: ignore[union-attr]
    if kind is ir.Address:
        base = format_operand(operand.base) if operand.base is not None else ""  # type: ignore[union-attr]
        offset = f"{operand.offset:+d}" if operand.offset else ""  # type: ignore[union-attr]
        extra = "".join(", " + format_operand(item) for item in operand.extra)  # type: ignore[union-attr]
        return f"[{base}{offset}{extra}]"
    if kind is ir.Vector:
        return "{" + ", ".join(format_operand(item) for item in operand.elements) + "}"  # type: ignore[union-attr]
    if kind is ir.ArgumentList:
        return "(" + ", ".join(format_operand(item) for item in operand.elements) + ")"  # type: ignore[union-attr]
    if kind is ir.Pair:
        return f"{format_operand(operand.first)}|{format_operand(operand.second)}"  # type: ignore[union-attr]
    if kind is ir.Negated:
        return "!" + format_operand(operand.operand)  # type: ignore[union-attr]
    if kind is ir.Sink:
        return "_"
    if kind is ir.Expression:
        return "expr(" + ", ".join(format_operand(name) for name in operand.names) + ")"  # type: ignore[union-attr]
    return "?"


def format_instruction(instruction: ir.Instruction) -> str:
    guard = ""
    if instruction.guard is not None:
        guard = "@" + ("!" if instruction.guard.negated else "") + format_operand(instruction.guard.predicate) + " "
    destinations = ", ".join(format_operand(operand) for operand in instruction.destinations)
    sources = ", ".join(format_operand(operand) for operand in instruction.sources)
    opcode = instruction.opcode
    head = opcode.base + "".join(f" .{modifier}" for modifier in opcode.modifiers)
    arrow = f"{destinations} <- " if destinations else ""
    return f"{guard}{head}  {arrow}{sources}".rstrip()


def format_module(module: ir.Module) -> str:
    out: list[str] = []
    version = f"{module.version[0]}.{module.version[1]}" if module.version else "?"
    targets = ", ".join(target.name for target in module.targets)
    out.append(f"module {module.path}: version {version}, target {targets}, address_size {module.address_size}")
    for index, name in sorted(module.files.items()):
        out.append(f"  file {index}: {name}")
    for variable in module.variables:
        dims = "".join(f"[{'' if d is None else d}]" for d in variable.dimensions)
        out.append(f"  {variable.span.line}: var {variable.space} {variable.type} {variable.name}{dims}")
    for problem in module.syntax_errors:
        out.append(f"  {problem.span.line}:{problem.span.column}: syntax error: {problem.message}")
    for function in module.functions:
        out.append("")
        params = ", ".join(f"{p.space} {p.type} {p.name}" for p in function.parameters)
        returns = ", ".join(f"{p.space} {p.type} {p.name}" for p in function.return_parameters)
        linkage = " ".join(function.linkage)
        header = f"{function.span.line}: {linkage + ' ' if linkage else ''}{function.kind} {function.name}({params})"
        if returns:
            header += f" -> ({returns})"
        if not function.has_body:
            header += " [declaration]"
        out.append(header)
        for directive in function.directives:
            out.append(f"  {directive.name} {', '.join(map(str, directive.values))}".rstrip())
        for register in function.registers:
            count = f"<{register.count}>" if register.count else ""
            out.append(f"  reg {register.type} {register.name}{count} (scope {register.scope})")
        for variable in function.variables:
            out.append(f"  var {variable.space} {variable.type} {variable.name}")
        labels_at: dict[int, list[ir.Label]] = {}
        for label in function.labels:
            labels_at.setdefault(label.index, []).append(label)
        for index, instruction in enumerate(function.instructions):
            for label in labels_at.get(index, ()):
                out.append(f"  {label.name}:  (scope {label.scope})")
            scope = f"  [scope {instruction.scope}]" if instruction.scope else ""
            out.append(f"  {instruction.span.line:>5}  {format_instruction(instruction)}{scope}")
        for label in labels_at.get(len(function.instructions), ()):
            out.append(f"  {label.name}:  (scope {label.scope})")
    return "\n".join(out) + "\n"


def format_annotated(
    module: ir.Module, describer_of: Callable[[ir.Function], Callable[[int, ir.Instruction], str] | None]
) -> str:
    """The listing every `ptxlint dump PASS` prints: each instruction of each function the pass
    covers, as written, followed by what the pass says of it (``describer_of`` returns None for a
    function it does not cover)."""
    lines = [f"module {module.path}"]
    for function in module.functions:
        describe = describer_of(function)
        if describe is None:
            continue
        kind = "entry" if function.is_kernel else "func"
        lines.append("")
        lines.append(f"{function.span.line}: {kind} {function.name}")
        for index, instruction in enumerate(function.instructions):
            text = module.source.data[instruction.span.start : instruction.span.end].decode("utf-8", "replace")
            text = " ".join(text.split())
            lines.append(f"{instruction.span.line:>7}  {text:<60}  {describe(index, instruction)}".rstrip())
    return "\n".join(lines) + "\n"


def pass_describer(context: ModuleContext, name: str) -> Callable[[ir.Function], Callable[[int, ir.Instruction], str] | None]:
    """For each function, how pass ``name``'s printer describes its instructions (None where the
    pass says nothing about the function). The pass runs in ``context`` on first use."""
    from ptxlint.passes import load

    declared = load(name)
    printer = declared.printer
    if printer is None:
        raise ValueError(f"pass `{name}` has no printer")

    def describer_of(function: ir.Function) -> Callable[[int, ir.Instruction], str] | None:
        if not function.has_body:
            return None
        result = context.result(name, function) if declared.per_function else context.result(name)
        return printer(result, function)

    return describer_of


def format_pass(context: ModuleContext, name: str) -> str:
    """`ptxlint dump PASS`: every instruction the pass covers, with what it says of it."""
    return format_annotated(context.module, pass_describer(context, name))
