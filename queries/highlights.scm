; Syntax highlighting for PTX, in the capture names tree-sitter editors share
; (Neovim, Helix, Zed): @keyword.directive, @function.builtin, @variable.builtin, ...

(comment) @comment
(preprocessor_line) @keyword.directive
(dwarf_line) @comment

; Module and function directives.
[
  ".version" ".target" ".address_size" ".file" ".loc" ".section" ".alias" ".pragma"
  ".entry" ".func" ".align" ".attribute" ".ptr" ".callprototype" ".calltargets"
  ".branchtargets"
] @keyword.directive
(linkage) @keyword.modifier
(function_directive name: _ @keyword.directive)
"function_name" @keyword
"inlined_at" @keyword

(version_directive version: (version_number) @number.float)
(target_directive target: (identifier) @constant.builtin)

; Declarations: state spaces and types.
(qualifier) @type
(register_range) @number

; Functions and labels.
(function_definition name: (identifier) @function)
(function_declaration name: (identifier) @function)
(label_definition) @label

; Instructions.
(opcode) @function.builtin
(guard "@" @punctuation.special)
(guard negated: _ @operator)
(guard predicate: (identifier) @variable)
(call_instruction operand: (identifier) @function.call)

; Operands.
((identifier) @variable.builtin
  (#match? @variable.builtin "^%(tid|ntid|laneid|warpid|nwarpid|ctaid|nctaid|smid|nsmid|gridid|clock|clock_hi|clock64|lanemask_[a-z]+|cluster[a-z_]*|nclusterid|is_explicit_cluster|globaltimer[a-z_]*|envreg[0-9]+|pm[0-9]+(_64)?|dynamic_smem_size|total_smem_size|aggr_smem_size|reserved_smem_offset_[a-z0-9]+|current_graph_exec)(\\.[xyz])?$"))
((identifier) @constant.builtin
  (#eq? @constant.builtin "WARP_SZ"))
(identifier) @variable
(sink) @variable.builtin
(integer) @number
(float) @number.float
(string) @string

; Operators and punctuation.
[ "+" "-" "*" "/" "%" "<<" ">>" "&" "|" "^" "~" "!" "&&" "||" "==" "!=" "<" "<=" ">" ">=" "?" ":" ] @operator
[ "," ";" ] @punctuation.delimiter
[ "(" ")" "[" "]" "{" "}" ] @punctuation.bracket
