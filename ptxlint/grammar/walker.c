/* The native body walker: lowers a function body's statements into the IR in one pass over the
 * tree, creating the IR objects directly. Included into native.c (it uses its Node type).
 *
 * It mirrors _Lowering.block and _Lowering.instruction in ptxlint/lower.py, which stay the
 * reference: whatever is rare or intricate (declarations, labels, `.loc`, branch-target lists,
 * constant expressions, unusual operands) is handed back to the same Python methods with a
 * native Node, so both paths share those semantics by construction; where such a statement or
 * operand recurs verbatim (a `.loc`, a `-1`), its answer is kept by text. What is done here is
 * the bulk of every real file: instructions, their names, literals, guards, `[r+8]` addresses,
 * brace vectors, `p|q` pairs and `_`. tests/test_native_front_end.py asserts the IR is identical
 * either way. */

/* How the IR's slot classes are filled: the type and the byte offset of each field's slot, in
 * field order, read from the classes' own member descriptors once (configure()). */
#define MAX_FIELDS 16

typedef struct {
    PyTypeObject *type;
    int count;
    Py_ssize_t offsets[MAX_FIELDS];
} Shape;

enum { REGISTER, SPECIAL_REGISTER, SYMBOL, IMMEDIATE, INSTRUCTION, GUARD, ADDRESS, VECTOR, ARGUMENT_LIST, PAIR, SINK, SHAPES };

static struct {
    bool ready;
    Shape shapes[SHAPES];
    PyTypeObject *span;
    PyObject *leaf_constructors[3];  /* lower.py's _new_register, _new_special_register, _new_symbol */
    TSSymbol identifier, opcode, guard, comment, integer, float_, address, vector, argument_list,
        binary_expression, instruction, call_instruction, label_definition, block, variable_declaration,
        loc_directive, branch_targets, pair, sink;
    TSFieldId predicate, negated, left, operator_, right, first, second;
} W;

static PyObject *configure(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *classes, *span, *constructors;
    if (!PyArg_ParseTuple(args, "O!O!O!", &PyTuple_Type, &classes, &PyType_Type, &span, &PyTuple_Type, &constructors)) return NULL;
    if (PyTuple_GET_SIZE(classes) != SHAPES || PyTuple_GET_SIZE(constructors) != 3)
        return PyErr_Format(PyExc_ValueError, "configure: %d classes and 3 constructors expected", SHAPES);
    for (int index = 0; index < SHAPES; index++) {
        PyObject *pair = PyTuple_GET_ITEM(classes, index);  /* (class, field names) */
        PyObject *type = PyTuple_GetItem(pair, 0), *fields = PyTuple_GetItem(pair, 1);
        if (type == NULL || fields == NULL) return NULL;
        if (!PyType_Check(type) || !PyTuple_Check(fields) || PyTuple_GET_SIZE(fields) > MAX_FIELDS)
            return PyErr_Format(PyExc_TypeError, "configure: bad class entry %d", index);
        Shape *shape = &W.shapes[index];
        shape->type = (PyTypeObject *)Py_NewRef(type);
        shape->count = (int)PyTuple_GET_SIZE(fields);
        for (int field = 0; field < shape->count; field++) {
            PyObject *descriptor = PyDict_GetItemWithError(shape->type->tp_dict, PyTuple_GET_ITEM(fields, field));
            if (descriptor == NULL || !Py_IS_TYPE(descriptor, &PyMemberDescr_Type) ||
                ((PyMemberDescrObject *)descriptor)->d_member->type != Py_T_OBJECT_EX)
                return PyErr_Format(PyExc_TypeError, "configure: %R has no object slot %R", type, PyTuple_GET_ITEM(fields, field));
            shape->offsets[field] = ((PyMemberDescrObject *)descriptor)->d_member->offset;
        }
    }
    W.span = (PyTypeObject *)Py_NewRef(span);
    for (int index = 0; index < 3; index++) W.leaf_constructors[index] = Py_NewRef(PyTuple_GET_ITEM(constructors, index));
    const TSLanguage *language = tree_sitter_ptx();
#define KIND(name) ts_language_symbol_for_name(language, name, (uint32_t)strlen(name), true)
#define FIELD(name) ts_language_field_id_for_name(language, name, (uint32_t)strlen(name))
    W.identifier = KIND("identifier"); W.opcode = KIND("opcode"); W.guard = KIND("guard");
    W.comment = KIND("comment"); W.integer = KIND("integer"); W.float_ = KIND("float");
    W.address = KIND("address"); W.vector = KIND("vector"); W.argument_list = KIND("argument_list");
    W.binary_expression = KIND("binary_expression"); W.instruction = KIND("instruction");
    W.call_instruction = KIND("call_instruction"); W.label_definition = KIND("label_definition");
    W.block = KIND("block"); W.variable_declaration = KIND("variable_declaration");
    W.loc_directive = KIND("loc_directive"); W.branch_targets = KIND("branch_targets");
    W.pair = KIND("pair"); W.sink = KIND("sink");
    W.predicate = FIELD("predicate"); W.negated = FIELD("negated"); W.left = FIELD("left");
    W.operator_ = FIELD("operator"); W.right = FIELD("right");
    W.first = FIELD("first"); W.second = FIELD("second");
#undef KIND
#undef FIELD
    W.ready = true;
    Py_RETURN_NONE;
}

/* A new object of a slot class with its fields set, stealing the references to `values`. */
static PyObject *build(int which, PyObject **values) {
    Shape *shape = &W.shapes[which];
    bool complete = true;
    for (int field = 0; field < shape->count; field++) complete &= values[field] != NULL;
    PyObject *object = complete ? shape->type->tp_alloc(shape->type, 0) : NULL;
    for (int field = 0; field < shape->count; field++) {
        if (object != NULL) *(PyObject **)((char *)object + shape->offsets[field]) = values[field];
        else Py_XDECREF(values[field]);
    }
    return object;
}

/* ------------------------------------------------------------------ one walk */

typedef struct {
    TSTreeCursor cursor;  /* reused for listing children: ts_node_child(i) costs O(i) */
    PyObject *lowering, *builder, *tree;
    const char *data;
    Py_ssize_t size;
    const long long *line_starts;
    Py_ssize_t line_count;
    Py_ssize_t line, line_start, next_line_start;  /* the line the last span fell on */
    PyObject *line_number;  /* `line` as an int, shared by every span on it (most of a big IR's ints) */
    PyObject *names, *opcodes, *integers, *floats, *locations, *constants;  /* lowering's caches (new references) */
} Walk;

static void locate(Walk *walk, Py_ssize_t start) {
    if (walk->line_start <= start && start < walk->next_line_start) return;
    Py_ssize_t low = 0, high = walk->line_count;
    while (low < high) {  /* bisect_right */
        Py_ssize_t middle = (low + high) / 2;
        if (start < walk->line_starts[middle]) high = middle;
        else low = middle + 1;
    }
    walk->line = low;
    walk->line_start = low > 0 ? walk->line_starts[low - 1] : 0;
    walk->next_line_start = low < walk->line_count ? walk->line_starts[low] : walk->size + 1;
    Py_XSETREF(walk->line_number, PyLong_FromSsize_t(low));
}

/* The current line's number as a new reference (NULL after a failed allocation). */
static PyObject *line_number(Walk *walk) { return Py_XNewRef(walk->line_number); }

static PyObject *span_of(Walk *walk, Py_ssize_t start, Py_ssize_t end) {
    locate(walk, start);
    PyObject *span = W.span->tp_alloc(W.span, 4);
    if (span == NULL) return NULL;
    PyObject *numbers[4] = {PyLong_FromSsize_t(start), PyLong_FromSsize_t(end), line_number(walk),
                            PyLong_FromSsize_t(start - walk->line_start + 1)};
    bool failed = false;
    for (int index = 0; index < 4; index++) {
        failed |= numbers[index] == NULL;
        PyTuple_SET_ITEM(span, index, numbers[index]);
    }
    if (failed) Py_CLEAR(span);
    return span;
}

static PyObject *node_span_of(Walk *walk, TSNode node) {
    return span_of(walk, ts_node_start_byte(node), ts_node_end_byte(node));
}

/* A leaf operand: its value and its span's start, length, line and column. Steals `value`. */
static PyObject *leaf(Walk *walk, int which, PyObject *value, Py_ssize_t start, Py_ssize_t end) {
    locate(walk, start);
    PyObject *values[5] = {value, PyLong_FromSsize_t(start), PyLong_FromSsize_t(end - start), line_number(walk),
                           PyLong_FromSsize_t(start - walk->line_start + 1)};
    return build(which, values);
}

/* The named children of a node, listed once through the walk's cursor. */
typedef struct {
    TSNode *items;
    uint32_t count;
    TSNode inline_items[16];
} Children;

static int list_named_children(Walk *walk, TSNode node, Children *children) {
    children->items = children->inline_items;
    children->count = 0;
    uint32_t capacity = 16;
    ts_tree_cursor_reset(&walk->cursor, node);
    for (bool more = ts_tree_cursor_goto_first_child(&walk->cursor); more; more = ts_tree_cursor_goto_next_sibling(&walk->cursor)) {
        TSNode child = ts_tree_cursor_current_node(&walk->cursor);
        if (!ts_node_is_named(child)) continue;
        if (children->count == capacity) {
            TSNode *grown = PyMem_Malloc(2 * capacity * sizeof(TSNode));
            if (grown == NULL) {
                if (children->items != children->inline_items) PyMem_Free(children->items);
                PyErr_NoMemory();
                return -1;
            }
            memcpy(grown, children->items, capacity * sizeof(TSNode));
            if (children->items != children->inline_items) PyMem_Free(children->items);
            children->items = grown;
            capacity *= 2;
        }
        children->items[children->count++] = child;
    }
    return 0;
}

static void release_children(Children *children) {
    if (children->items != children->inline_items) PyMem_Free(children->items);
}

static PyObject *token_of(Walk *walk, TSNode node) {
    uint32_t start = ts_node_start_byte(node), end = ts_node_end_byte(node);
    return PyBytes_FromStringAndSize(walk->data + start, end - start);
}

/* `cache.get(token)`, or when absent `lowering.<method>([prefix,] token)` (which fills the cache),
 * as a new reference. The caches never hold None. */
static PyObject *cached(Walk *walk, PyObject *cache, PyObject *token, const char *method, PyObject *prefix) {
    PyObject *known = PyDict_GetItemWithError(cache, token);
    if (known != NULL) return Py_NewRef(known);
    if (PyErr_Occurred()) return NULL;
    return prefix != NULL ? PyObject_CallMethod(walk->lowering, method, "OO", prefix, token)
                          : PyObject_CallMethod(walk->lowering, method, "O", token);
}

/* The Python lowering's answer for one node: `lowering.<method>(node, *more)`. */
static PyObject *in_python(Walk *walk, const char *method, TSNode node, PyObject *more) {
    PyObject *wrapped = wrap_node(node, walk->tree);
    if (wrapped == NULL) return NULL;
    PyObject *result = more != NULL ? PyObject_CallMethod(walk->lowering, method, "OO", wrapped, more)
                                    : PyObject_CallMethod(walk->lowering, method, "O", wrapped);
    Py_DECREF(wrapped);
    return result;
}

/* A register, special register or symbol, classified by lowering's per-function name cache. */
static PyObject *name_operand(Walk *walk, TSNode node) {
    PyObject *token = token_of(walk, node);
    if (token == NULL) return NULL;
    PyObject *known = cached(walk, walk->names, token, "classify", NULL);
    Py_DECREF(token);
    if (known == NULL) return NULL;
    PyObject *text = PyTuple_GetItem(known, 0), *construct = PyTuple_GetItem(known, 1), *result = NULL;
    if (text != NULL && construct != NULL) {
        Py_ssize_t start = ts_node_start_byte(node), end = ts_node_end_byte(node);
        int which = construct == W.leaf_constructors[0] ? REGISTER
                  : construct == W.leaf_constructors[1] ? SPECIAL_REGISTER
                  : construct == W.leaf_constructors[2] ? SYMBOL : -1;
        if (which >= 0) {
            result = leaf(walk, which, Py_NewRef(text), start, end);
        } else {
            locate(walk, start);
            result = PyObject_CallFunction(construct, "Onnnn", text, start, end, walk->line, start - walk->line_start + 1);
        }
    }
    Py_DECREF(known);
    return result;
}

static PyObject *literal_operand(Walk *walk, TSNode node, TSSymbol kind) {
    PyObject *token = token_of(walk, node);
    if (token == NULL) return NULL;
    PyObject *kind_number = PyLong_FromLong(kind);
    PyObject *value = kind_number ? cached(walk, kind == W.integer ? walk->integers : walk->floats, token, "literal", kind_number) : NULL;
    Py_XDECREF(kind_number);
    Py_DECREF(token);
    if (value == NULL) return NULL;
    return leaf(walk, IMMEDIATE, value, ts_node_start_byte(node), ts_node_end_byte(node));
}

/* `[name]`, `[name+8]`, `[name-8]`, `[]`; anything else is the Python lowering's. */
static PyObject *address_operand(Walk *walk, TSNode node) {
    Children children;
    if (list_named_children(walk, node, &children) < 0) return NULL;
    TSNode parts[1];
    uint32_t count = 0;
    for (uint32_t index = 0; index < children.count; index++) {
        if (ts_node_symbol(children.items[index]) == W.comment) continue;
        if (count < 1) parts[count] = children.items[index];
        count++;
    }
    release_children(&children);
    if (count > 1) return in_python(walk, "address", node, NULL);
    PyObject *base, *offset;
    if (count == 0) {
        base = Py_NewRef(Py_None);
        offset = PyLong_FromLong(0);
    } else if (ts_node_symbol(parts[0]) == W.identifier) {
        base = name_operand(walk, parts[0]);
        offset = PyLong_FromLong(0);
    } else if (ts_node_symbol(parts[0]) == W.binary_expression && ts_node_child_count(parts[0]) == 3) {
        TSNode left = ts_node_child(parts[0], 0), operator = ts_node_child(parts[0], 1), right = ts_node_child(parts[0], 2);
        uint32_t sign_start = ts_node_start_byte(operator), sign_length = ts_node_end_byte(operator) - sign_start;
        char sign = sign_length == 1 ? walk->data[sign_start] : 0;
        if (ts_node_symbol(left) != W.identifier || ts_node_symbol(right) != W.integer || (sign != '+' && sign != '-'))
            return in_python(walk, "address", node, NULL);
        PyObject *token = token_of(walk, right), *kind_number = PyLong_FromLong(W.integer);
        PyObject *value = token && kind_number ? cached(walk, walk->integers, token, "literal", kind_number) : NULL;
        Py_XDECREF(token);
        Py_XDECREF(kind_number);
        if (value == NULL) return NULL;
        offset = sign == '+' ? value : PyNumber_Negative(value);
        if (sign == '-') Py_DECREF(value);
        base = name_operand(walk, left);
    } else {
        return in_python(walk, "address", node, NULL);
    }
    PyObject *values[4] = {base, offset, node_span_of(walk, node), PyTuple_New(0)};
    return build(ADDRESS, values);
}

static PyObject *operand(Walk *walk, TSNode node);

/* `{a, b, c}` or a call's `(a, b)`; a nested one is the Python lowering's (it reports it). */
static PyObject *vector_operand(Walk *walk, TSNode node, int which) {
    Children children;
    if (list_named_children(walk, node, &children) < 0) return NULL;
    for (uint32_t index = 0; index < children.count; index++) {
        TSSymbol kind = ts_node_symbol(children.items[index]);
        if (kind == W.vector || kind == W.argument_list) {
            release_children(&children);
            return in_python(walk, "operand", node, NULL);
        }
    }
    PyObject *elements = PyTuple_New(children.count);
    Py_ssize_t filled = 0;
    for (uint32_t index = 0; elements != NULL && index < children.count; index++) {
        TSNode child = children.items[index];
        TSSymbol kind = ts_node_symbol(child);
        if (kind == W.comment) continue;
        PyObject *element = kind == W.identifier ? name_operand(walk, child) : operand(walk, child);
        if (element == NULL) Py_CLEAR(elements);
        else PyTuple_SET_ITEM(elements, filled++, element);
    }
    release_children(&children);
    if (elements != NULL && filled != PyTuple_GET_SIZE(elements) && _PyTuple_Resize(&elements, filled) < 0) return NULL;
    PyObject *values[2] = {elements, node_span_of(walk, node)};
    return build(which, values);
}

/* `p|q`; one with a MISSING half is the Python lowering's. */
static PyObject *pair_operand(Walk *walk, TSNode node) {
    TSNode first = ts_node_child_by_field_id(node, W.first), second = ts_node_child_by_field_id(node, W.second);
    if (ts_node_is_null(first) || ts_node_is_null(second)) return in_python(walk, "operand", node, NULL);
    PyObject *values[3] = {operand(walk, first), NULL, NULL};
    values[1] = values[0] != NULL ? operand(walk, second) : NULL;
    values[2] = values[1] != NULL ? node_span_of(walk, node) : NULL;
    return build(PAIR, values);
}

/* Any other operand (`-1`, `(4*8)`, `!p`) is the Python lowering's; a constant one folds to the
 * same value wherever its text recurs (nvcc writes `-1` thousands of times), so its value is
 * kept by text and only its span is new. */
static PyObject *other_operand(Walk *walk, TSNode node) {
    PyObject *token = token_of(walk, node);
    if (token == NULL) return NULL;
    PyObject *value = PyDict_GetItemWithError(walk->constants, token), *result = NULL;
    if (value != NULL) {
        result = leaf(walk, IMMEDIATE, Py_NewRef(value), ts_node_start_byte(node), ts_node_end_byte(node));
    } else if (!PyErr_Occurred()) {
        result = in_python(walk, "operand", node, NULL);
        if (result != NULL && Py_IS_TYPE(result, W.shapes[IMMEDIATE].type)) {
            value = *(PyObject **)((char *)result + W.shapes[IMMEDIATE].offsets[0]);
            if (PyDict_SetItem(walk->constants, token, value) < 0) Py_CLEAR(result);
        }
    }
    Py_DECREF(token);
    return result;
}

static PyObject *operand(Walk *walk, TSNode node) {
    TSSymbol kind = ts_node_symbol(node);
    if (kind == W.identifier) return name_operand(walk, node);
    if (kind == W.integer || kind == W.float_) return literal_operand(walk, node, kind);
    if (kind == W.address) return address_operand(walk, node);
    if (kind == W.vector) return vector_operand(walk, node, VECTOR);
    if (kind == W.argument_list) return vector_operand(walk, node, ARGUMENT_LIST);
    if (kind == W.pair) return pair_operand(walk, node);
    if (kind == W.sink) {
        PyObject *values[1] = {node_span_of(walk, node)};
        return build(SINK, values);
    }
    return other_operand(walk, node);
}

static PyObject *guard_of(Walk *walk, TSNode node) {
    TSNode predicate = ts_node_child_by_field_id(node, W.predicate);
    if (ts_node_is_null(predicate)) return in_python(walk, "guard", node, NULL);
    bool negated = !ts_node_is_null(ts_node_child_by_field_id(node, W.negated));
    PyObject *values[3] = {name_operand(walk, predicate), PyBool_FromLong(negated), node_span_of(walk, node)};
    return build(GUARD, values);
}

static PyObject *instruction_of(Walk *walk, TSNode node, PyObject *scope, PyObject *location) {
    Py_ssize_t start = ts_node_start_byte(node), end = ts_node_end_byte(node);
    PyObject *guard = Py_NewRef(Py_None), *operands = PyList_New(0);
    if (operands == NULL) goto failed;
    TSNode opcode_node = {0};
    bool has_opcode = false;
    Children children;
    if (list_named_children(walk, node, &children) < 0) goto failed;
    for (uint32_t index = 0; index < children.count; index++) {
        TSNode child = children.items[index];
        TSSymbol kind = ts_node_symbol(child);
        if (kind == W.opcode) {
            opcode_node = child;
            has_opcode = true;
        } else if (kind == W.guard) {
            Py_SETREF(guard, guard_of(walk, child));
            if (guard == NULL) break;
        } else if (kind != W.comment && kind != (TSSymbol)-1)  /* ERROR */ {
            PyObject *element = kind == W.identifier ? name_operand(walk, child) : operand(walk, child);
            if (element == NULL || PyList_Append(operands, element) < 0) {
                Py_XDECREF(element);
                Py_CLEAR(operands);
                break;
            }
            Py_DECREF(element);
        }
    }
    release_children(&children);
    if (guard == NULL || operands == NULL) goto failed;
    Py_ssize_t opcode_start = has_opcode ? ts_node_start_byte(opcode_node) : start;
    Py_ssize_t opcode_end = has_opcode ? ts_node_end_byte(opcode_node) : start;
    PyObject *token = PyBytes_FromStringAndSize(walk->data + opcode_start, opcode_end - opcode_start);
    PyObject *known = token ? cached(walk, walk->opcodes, token, "opcode", NULL) : NULL;
    Py_XDECREF(token);
    if (known == NULL) goto failed;
    PyObject *opcode = PyTuple_GetItem(known, 0);
    Py_ssize_t writes = opcode ? PyLong_AsSsize_t(PyTuple_GetItem(known, 1)) : -1;
    PyObject *base = opcode && !PyErr_Occurred() ? PyObject_GetAttrString(opcode, "base") : NULL;
    if (base == NULL) {
        Py_DECREF(known);
        goto failed;
    }
    Py_ssize_t count = PyList_GET_SIZE(operands);
    if (PyUnicode_Check(base) && PyUnicode_CompareWithASCIIString(base, "call") == 0)
        writes = count > 0 && Py_IS_TYPE(PyList_GET_ITEM(operands, 0), W.shapes[ARGUMENT_LIST].type) ? 1 : 0;
    Py_DECREF(base);
    /* Instruction's slots keep its span as numbers and the opcode's as an offset from it (the
       opcode's length is its text's), unless the opcode starts on a later line (ir.py). */
    locate(walk, start);
    bool opcode_on_line = walk->line_start <= opcode_start && opcode_start < walk->next_line_start;
    PyObject *values[12] = {
        Py_NewRef(opcode), PyList_AsTuple(operands), PyLong_FromSsize_t(writes < count ? writes : count), guard,
        Py_NewRef(scope), Py_NewRef(location), PyLong_FromSsize_t(start), PyLong_FromSsize_t(end - start),
        line_number(walk), PyLong_FromSsize_t(start - walk->line_start + 1), PyLong_FromSsize_t(opcode_start - start),
        opcode_on_line ? Py_NewRef(Py_None) : span_of(walk, opcode_start, opcode_end),
    };
    Py_DECREF(known);
    Py_DECREF(operands);
    return build(INSTRUCTION, values);
failed:
    Py_XDECREF(guard);
    Py_XDECREF(operands);
    return NULL;
}

/* ------------------------------------------------------------------ the body */

typedef struct {
    TSTreeCursor cursor;
    PyObject *scope;
} Level;

static bool refresh_names(Walk *walk) {
    Py_XSETREF(walk->names, PyObject_GetAttrString(walk->lowering, "name_cache"));
    return walk->names != NULL && PyDict_Check(walk->names);
}

static PyObject *open_scope(Walk *walk, PyObject *parent, TSNode node) {
    PyObject *span = node_span_of(walk, node);
    if (span == NULL) return NULL;
    PyObject *scope = PyObject_CallMethod(walk->builder, "open_scope", "OO", parent, span);
    Py_DECREF(span);
    return scope;
}

/* The Python lowering's handling of a whole statement: `lowering.<method>(node, scope, builder)`. */
static PyObject *statement_in_python(Walk *walk, const char *method, TSNode node, PyObject *scope) {
    PyObject *wrapped = wrap_node(node, walk->tree);
    if (wrapped == NULL) return NULL;
    PyObject *result = PyObject_CallMethod(walk->lowering, method, "OOO", wrapped, scope, walk->builder);
    Py_DECREF(wrapped);
    return result;
}

/* One statement of a body at `scope`; a nested block is pushed onto `levels` instead. */
static int statement(Walk *walk, TSNode node, PyObject *scope, PyObject *instructions, PyObject **location) {
    TSSymbol kind = ts_node_symbol(node);
    PyObject *result = NULL;
    if (kind == W.instruction || kind == W.call_instruction) {
        result = instruction_of(walk, node, scope, *location);
        if (result == NULL || PyList_Append(instructions, result) < 0) goto failed;
    } else if (kind == W.label_definition) {
        result = statement_in_python(walk, "label", node, scope);
    } else if (kind == W.variable_declaration) {
        result = statement_in_python(walk, "declare", node, scope);
        if (result != NULL && !refresh_names(walk)) goto failed;
    } else if (kind == W.loc_directive) {
        /* Equal `.loc` text is an equal location (None included), and Triton writes one every
         * few lines, most of them repeats: read each distinct one once. */
        PyObject *token = token_of(walk, node);
        if (token == NULL) goto failed;
        result = PyDict_GetItemWithError(walk->locations, token);
        if (result != NULL) {
            Py_INCREF(result);
        } else if (!PyErr_Occurred()) {
            result = in_python(walk, "location", node, NULL);
            if (result != NULL && PyDict_SetItem(walk->locations, token, result) < 0) Py_CLEAR(result);
        }
        Py_DECREF(token);
        if (result == NULL || PyObject_SetAttrString(walk->builder, "location", result) < 0) goto failed;
        Py_SETREF(*location, Py_NewRef(result));
    } else if (kind == W.branch_targets) {
        PyObject *targets = statement_in_python(walk, "branch_targets", node, scope);
        PyObject *list = targets ? PyObject_GetAttrString(walk->builder, "branch_targets") : NULL;
        result = list && PyList_Append(list, targets) == 0 ? Py_NewRef(Py_None) : NULL;
        Py_XDECREF(list);
        Py_XDECREF(targets);
    } else {
        return 0;
    }
    if (result == NULL) return -1;
    Py_DECREF(result);
    return 0;
failed:
    Py_XDECREF(result);
    return -1;
}

static PyObject *attribute(PyObject *object, const char *name) { return PyObject_GetAttrString(object, name); }

/* lower_block(lowering, builder, body, parent): _Lowering.block for a native node. */
static PyObject *lower_block(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *lowering, *builder, *body, *parent;
    if (!PyArg_ParseTuple(args, "OOO!O", &lowering, &builder, &NodeType, &body, &parent)) return NULL;
    if (!W.ready) return PyErr_Format(PyExc_RuntimeError, "lower_block before configure");
    Walk walk = {.lowering = lowering, .builder = builder, .tree = ((NodeObject *)body)->tree, .line_start = 1, .next_line_start = 0};
    walk.cursor = ts_tree_cursor_new(((NodeObject *)body)->node);
    PyObject *data = attribute(lowering, "data"), *line_offsets = attribute(lowering, "line_starts");
    PyObject *instructions = attribute(builder, "instructions"), *location = attribute(builder, "location");
    walk.opcodes = attribute(lowering, "opcodes");
    walk.integers = attribute(lowering, "integers");
    walk.floats = attribute(lowering, "floats");
    walk.locations = attribute(lowering, "locations");
    walk.constants = attribute(lowering, "constants");
    Py_buffer lines = {0};
    Level *levels = NULL;
    Py_ssize_t depth = 0, capacity = 0;
    PyObject *outcome = NULL;
    if (!data || !line_offsets || !instructions || !location || !walk.opcodes || !walk.integers || !walk.floats || !walk.locations || !walk.constants) goto done;
    if (!PyBytes_Check(data) || !PyList_Check(instructions) || !PyDict_Check(walk.opcodes) || !PyDict_Check(walk.locations) || !PyDict_Check(walk.constants) || !refresh_names(&walk)) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "lower_block: unexpected lowering state");
        goto done;
    }
    if (PyObject_GetBuffer(line_offsets, &lines, PyBUF_SIMPLE) < 0) goto done;
    walk.data = PyBytes_AS_STRING(data);
    walk.size = PyBytes_GET_SIZE(data);
    walk.line_starts = lines.buf;
    walk.line_count = lines.len / (Py_ssize_t)sizeof(long long);
    /* An explicit stack of scopes, so ten thousand nested braces need no C stack. */
    PyObject *scope = open_scope(&walk, parent, ((NodeObject *)body)->node);
    if (scope == NULL) goto done;
    capacity = 16;
    levels = PyMem_Malloc(capacity * sizeof(Level));
    if (levels == NULL) {
        Py_DECREF(scope);
        PyErr_NoMemory();
        goto done;
    }
    levels[depth++] = (Level){ts_tree_cursor_new(((NodeObject *)body)->node), scope};
    bool entered = ts_tree_cursor_goto_first_child(&levels[0].cursor);
    while (depth > 0) {
        Level *level = &levels[depth - 1];
        if (!entered) {
            ts_tree_cursor_delete(&level->cursor);
            Py_DECREF(level->scope);
            depth--;
            entered = depth > 0 && ts_tree_cursor_goto_next_sibling(&levels[depth - 1].cursor);
            continue;
        }
        TSNode node = ts_tree_cursor_current_node(&level->cursor);
        if (ts_node_is_named(node) && ts_node_symbol(node) == W.block) {
            PyObject *inner = open_scope(&walk, level->scope, node);
            if (inner == NULL) goto unwind;
            if (depth == capacity) {
                Level *grown = PyMem_Realloc(levels, 2 * capacity * sizeof(Level));
                if (grown == NULL) {
                    Py_DECREF(inner);
                    PyErr_NoMemory();
                    goto unwind;
                }
                levels = grown;
                capacity *= 2;
            }
            levels[depth++] = (Level){ts_tree_cursor_new(node), inner};
            entered = ts_tree_cursor_goto_first_child(&levels[depth - 1].cursor);
            continue;
        }
        if (ts_node_is_named(node) && statement(&walk, node, level->scope, instructions, &location) < 0) goto unwind;
        entered = ts_tree_cursor_goto_next_sibling(&level->cursor);
    }
    outcome = Py_NewRef(Py_None);
unwind:
    while (depth > 0) {
        depth--;
        ts_tree_cursor_delete(&levels[depth].cursor);
        Py_DECREF(levels[depth].scope);
    }
done:
    ts_tree_cursor_delete(&walk.cursor);
    PyMem_Free(levels);
    if (lines.obj != NULL) PyBuffer_Release(&lines);
    Py_XDECREF(data);
    Py_XDECREF(line_offsets);
    Py_XDECREF(instructions);
    Py_XDECREF(location);
    Py_XDECREF(walk.names);
    Py_XDECREF(walk.opcodes);
    Py_XDECREF(walk.integers);
    Py_XDECREF(walk.floats);
    Py_XDECREF(walk.locations);
    Py_XDECREF(walk.constants);
    Py_XDECREF(walk.line_number);
    return outcome;
}
