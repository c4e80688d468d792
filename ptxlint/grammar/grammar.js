/**
 * Tree-sitter grammar for NVIDIA PTX as nvcc, Triton, CuTe DSL and hand-written inline asm emit it.
 *
 * Design notes (the why behind the shape of the tree):
 * - An opcode with all its modifiers is ONE token (`tcgen05.ld.sync.aligned.32x32b.x2.b32`).
 *   Modifiers are dot-separated and never contain a dot themselves (`::` chains stay inside one
 *   modifier), so splitting the token on '.' is exact; one node per instruction head keeps the
 *   tree small, which is what makes lowering a million-line file fast.
 * - A label definition is one token including its colon, so that `DONE:` at the start of a
 *   statement can never be mistaken for an opcode named `DONE`.
 * - Whether an identifier names a register, a label, a function or a variable is decided by
 *   lowering, which knows the declarations; the grammar only knows shapes.
 * - `p|q` destination pairs are a node of their own; constant expressions may still use `|`
 *   inside parentheses.
 * - Debug sections and initializers are parsed (so errors are found) but kept shallow.
 */

const PREC = {
  conditional: 1,
  logical_or: 2,
  logical_and: 3,
  bitwise_or: 4,
  bitwise_xor: 5,
  bitwise_and: 6,
  equality: 7,
  relational: 8,
  shift: 9,
  additive: 10,
  multiplicative: 11,
  unary: 12,
  cast: 13,
};

const commaSep1 = (rule) => seq(rule, repeat(seq(',', rule)));
const commaSep = (rule) => optional(commaSep1(rule));

module.exports = grammar({
  name: 'ptx',

  extras: ($) => [/\s/, $.comment, $.preprocessor_line],

  conflicts: ($) => [],

  // Choices of single symbols, used in every instruction: inlined, they make no node of their own
  // in the tree (a third of an instruction's nodes were these wrappers), and the visible tree is
  // the same.
  inline: ($) => [$._operand, $._expression, $._statement, $._module_item],

  rules: {
    module: ($) => repeat($._module_item),

    _module_item: ($) =>
      choice(
        $.version_directive,
        $.target_directive,
        $.address_size_directive,
        $.file_directive,
        $.loc_directive,
        $.section_directive,
        $.alias_directive,
        $.pragma_directive,
        $.dwarf_line,
        $.variable_declaration,
        $.function_definition,
        $.function_declaration,
      ),

    // ---------------------------------------------------------------- lexical

    comment: (_) =>
      token(choice(seq('//', /[^\n]*/), seq('/*', /[^*]*\*+([^/*][^*]*\*+)*/, '/'))),

    // `#include`, `#line`, ... : PTX may be run through cpp. Treated like a comment.
    preprocessor_line: (_) => token(prec(-1, /#[^\n]*/)),

    // Legacy DWARF lines (deprecated since PTX 2.0): accepted and ignored.
    dwarf_line: (_) => token(/@@DWARF[^\n]*/),

    identifier: (_) => /[A-Za-z][A-Za-z0-9_$]*|[_$%][A-Za-z0-9_$]+/,

    // Registers and special registers may carry a vector component: `%tid.x`, `%v1.w`.
    _operand_name: ($) => alias($.operand_identifier, $.identifier),
    operand_identifier: (_) =>
      token(/([A-Za-z][A-Za-z0-9_$]*|[_$%][A-Za-z0-9_$]+)(\.[xyzwrgba])?/),

    label_definition: (_) => token(/([A-Za-z][A-Za-z0-9_$]*|[_$%][A-Za-z0-9_$]+)[ \t]*:/),

    opcode: (_) =>
      token(/[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z0-9_]+(::[A-Za-z0-9_]+)*)*(::[A-Za-z0-9_]+)*/),

    call_opcode: (_) => token(prec(1, /call(\.uni)?/)),

    // A directive-like word: state spaces, types, vector widths, section names (`.debug_info`).
    qualifier: (_) => token(/\.[A-Za-z_][A-Za-z0-9_]*(::[A-Za-z0-9_]+)*/),

    integer: (_) =>
      token(
        choice(
          /0[xX][0-9a-fA-F]+U?/,
          /0[bB][01]+U?/,
          /0[0-7]*U?/,
          /[1-9][0-9]*U?/,
        ),
      ),

    float: (_) =>
      token(
        choice(
          /0[fF][0-9a-fA-F]{8}/,
          /0[dD][0-9a-fA-F]{16}/,
          /[0-9]+\.[0-9]*([eE][+-]?[0-9]+)?/,
          /\.[0-9]+([eE][+-]?[0-9]+)?/,
          /[0-9]+[eE][+-]?[0-9]+/,
        ),
      ),

    string: (_) => token(seq('"', /([^"\\\n]|\\.)*/, '"')),

    sink: (_) => '_',

    // ---------------------------------------------------------------- module directives

    version_directive: ($) => seq('.version', field('version', alias(/[0-9]+\.[0-9]+/, $.version_number))),

    target_directive: ($) => seq('.target', commaSep1(field('target', $.identifier))),

    address_size_directive: ($) => seq('.address_size', field('size', $.integer)),

    file_directive: ($) =>
      seq(
        '.file',
        field('index', $.integer),
        field('name', $.string),
        optional(seq(',', field('timestamp', $.integer), optional(seq(',', field('size', $.integer))))),
      ),

    loc_directive: ($) =>
      seq(
        '.loc',
        field('file', $.integer),
        field('line', $.integer),
        field('column', $.integer),
        optional(
          seq(
            ',',
            'function_name',
            field('function_name', $._section_expression),
            ',',
            'inlined_at',
            field('inlined_file', $.integer),
            field('inlined_line', $.integer),
            field('inlined_column', $.integer),
          ),
        ),
      ),

    section_directive: ($) =>
      seq(
        '.section',
        field('name', $.qualifier),
        '{',
        repeat(choice($.label_definition, $.section_data)),
        '}',
      ),

    section_data: ($) => seq(field('type', $.qualifier), commaSep1($._section_expression)),

    // Section bodies reference section symbols that look like directives (`.debug_abbrev`).
    _section_expression: ($) => choice($._expression, $.qualifier, $.section_offset),
    section_offset: ($) => prec.left(PREC.additive, seq($.qualifier, choice('+', '-'), $._expression)),

    alias_directive: ($) => seq('.alias', field('alias', $.identifier), ',', field('aliasee', $.identifier), ';'),

    pragma_directive: ($) => seq('.pragma', commaSep1($.string), ';'),

    // ---------------------------------------------------------------- declarations

    _declaration_qualifier: ($) =>
      choice($.qualifier, $.align_clause, $.attribute_clause),

    // Shared by variables and functions so that the parser can defer the choice between them
    // until the token after the linkage (`.entry`/`.func` or a state space).
    _linkages: ($) => repeat1(field('linkage', $.linkage)),

    align_clause: ($) => seq('.align', field('alignment', $.integer)),

    attribute_clause: ($) => seq('.attribute', '(', commaSep1($.attribute), ')'),
    attribute: ($) => seq($.qualifier, optional(seq('(', commaSep($._expression), ')'))),

    variable_declaration: ($) =>
      seq(
        optional($._linkages),
        repeat1($._declaration_qualifier),
        commaSep1(field('declarator', $.declarator)),
        optional(seq('=', field('initializer', $._initializer))),
        ';',
      ),

    declarator: ($) =>
      seq(
        field('name', choice($.identifier, $.sink)),
        optional(choice(field('count', $.register_range), repeat1(field('dimension', $.array_dimension)))),
      ),

    register_range: ($) => seq('<', $.integer, '>'),
    array_dimension: ($) => seq('[', optional($._expression), ']'),

    _initializer: ($) => choice($.initializer_list, $._expression, $.generic_address),
    initializer_list: ($) => seq('{', commaSep($._initializer), optional(','), '}'),
    generic_address: ($) =>
      prec.left(PREC.additive, seq('generic', '(', $.identifier, ')', optional(seq(choice('+', '-'), $._expression)))),

    // ---------------------------------------------------------------- functions

    function_definition: ($) => seq($._function_header, field('body', $.block)),

    function_declaration: ($) => seq($._function_header, ';'),

    _function_header: ($) =>
      seq(
        optional($._linkages),
        field('kind', choice('.entry', '.func')),
        optional(field('attributes', $.attribute_clause)),
        optional(field('returns', $.parameter_list)),
        field('name', $.identifier),
        optional(field('parameters', $.parameter_list)),
        repeat(field('directive', $.function_directive)),
      ),

    linkage: (_) => choice('.visible', '.extern', '.weak', '.common'),

    parameter_list: ($) => seq('(', commaSep($.parameter), ')'),

    parameter: ($) =>
      seq(repeat1(choice($.qualifier, $.align_clause, $.pointer_clause)), field('declarator', $.declarator)),

    // `.ptr .global .align 16` (spaces between the parts may be omitted in real PTX).
    pointer_clause: ($) => prec.right(seq('.ptr', optional($.qualifier), optional($.align_clause))),

    function_directive: ($) =>
      choice(
        seq(field('name', choice('.maxntid', '.reqntid', '.reqnctapercluster')), commaSep1(field('value', $.integer))),
        seq(field('name', choice('.minnctapersm', '.maxnctapersm', '.maxnreg', '.maxclusterrank', '.abi_preserve', '.abi_preserve_control')), field('value', $.integer)),
        field('name', choice('.noreturn', '.explicitcluster', '.blocksareclusters')),
        seq(field('name', '.pragma'), commaSep1($.string), ';'),
      ),

    block: ($) => seq('{', repeat($._statement), '}'),

    _statement: ($) =>
      choice(
        $.label_definition,
        $.instruction,
        $.call_instruction,
        $.variable_declaration,
        $.block,
        $.loc_directive,
        $.pragma_directive,
        $.branch_targets,
        $.call_targets,
        $.call_prototype,
        $.section_directive,
        $.dwarf_line,
      ),

    guard: ($) => seq('@', optional(field('negated', '!')), field('predicate', $._operand_name)),

    instruction: ($) =>
      seq(
        optional(field('guard', $.guard)),
        field('opcode', $.opcode),
        commaSep(field('operand', $._operand)),
        ';',
      ),

    call_instruction: ($) =>
      seq(
        optional(field('guard', $.guard)),
        field('opcode', alias($.call_opcode, $.opcode)),
        commaSep1(field('operand', choice($.argument_list, $._operand_name))),
        ';',
      ),

    argument_list: ($) => seq('(', commaSep(choice($._expression, $.address, $.vector, $.sink)), ')'),

    branch_targets: ($) => seq('.branchtargets', commaSep1($.identifier), ';'),
    call_targets: ($) => seq('.calltargets', commaSep1($.identifier), ';'),
    call_prototype: ($) =>
      seq(
        '.callprototype',
        optional(field('returns', $.parameter_list)),
        $.sink,
        field('parameters', $.parameter_list),
        repeat(field('directive', $.function_directive)),
        ';',
      ),

    // ---------------------------------------------------------------- operands

    _operand: ($) => choice($._expression, $.address, $.vector, $.sink, $.pair),

    pair: ($) =>
      seq(field('first', choice($._operand_name, $.sink, $.vector)), '|', field('second', choice($._operand_name, $.sink))),

    vector: ($) => seq('{', commaSep($._operand), '}'),

    // `[r]`, `[r+4]`, `[sym+-4]`, `[tmap, {x, y}]`, `[tex, sampler, {u, v}]`.
    address: ($) => seq('[', commaSep1(choice($._expression, $.vector)), ']'),

    _expression: ($) =>
      choice(
        $._operand_name,
        $.integer,
        $.float,
        $.unary_expression,
        $.binary_expression,
        $.conditional_expression,
        $.cast_expression,
        $.parenthesized_expression,
      ),

    parenthesized_expression: ($) => seq('(', $._inner_expression, ')'),

    // Inside parentheses `|` is bitwise or and `%` is modulo. At operand level `|` builds a pair,
    // and `%` would turn the missing comma in `mov.u32 %r1 %tid.x` into a valid modulo.
    _inner_expression: ($) => choice($._expression, $.or_expression, $.modulo_expression),
    or_expression: ($) =>
      prec.left(PREC.bitwise_or, seq(field('left', $._inner_expression), field('operator', '|'), field('right', $._inner_expression))),
    modulo_expression: ($) =>
      prec.left(PREC.multiplicative, seq(field('left', $._inner_expression), field('operator', '%'), field('right', $._inner_expression))),

    unary_expression: ($) =>
      prec(PREC.unary, seq(field('operator', choice('-', '+', '!', '~')), field('operand', $._expression))),

    cast_expression: ($) =>
      prec(PREC.cast, seq('(', field('type', choice('.s64', '.u64')), ')', field('operand', $._expression))),

    conditional_expression: ($) =>
      prec.right(PREC.conditional, seq(field('condition', $._expression), '?', field('consequence', $._expression), ':', field('alternative', $._expression))),

    binary_expression: ($) => {
      const table = [
        ['||', PREC.logical_or],
        ['&&', PREC.logical_and],
        ['^', PREC.bitwise_xor],
        ['&', PREC.bitwise_and],
        ['==', PREC.equality],
        ['!=', PREC.equality],
        ['<', PREC.relational],
        ['<=', PREC.relational],
        ['>', PREC.relational],
        ['>=', PREC.relational],
        ['<<', PREC.shift],
        ['>>', PREC.shift],
        ['+', PREC.additive],
        ['-', PREC.additive],
        ['*', PREC.multiplicative],
        ['/', PREC.multiplicative],
      ];
      return choice(
        ...table.map(([operator, precedence]) =>
          prec.left(precedence, seq(field('left', $._expression), field('operator', operator), field('right', $._expression))),
        ),
      );
    },
  },
});
