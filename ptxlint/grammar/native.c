/* The native front end, `ptxlint._native`: the PTX grammar parsed by tree-sitter's own C runtime,
 * compiled into this extension (see build_native.py), without py-tree-sitter's per-node objects.
 *
 * `parse(data)` returns an opaque tree (a capsule that frees the tree with it). ptxlint/syntax.py
 * is the only module that imports this one. */
#include <Python.h>

#include <stdbool.h>
#include <stdlib.h>

#include <string.h>

#include <structmember.h>
#include <tree_sitter/api.h>

#ifndef Py_T_OBJECT_EX
#define Py_T_OBJECT_EX T_OBJECT_EX
#endif

const TSLanguage *tree_sitter_ptx(void);

static const char TREE_CAPSULE[] = "ptxlint._native.Tree";

/* ------------------------------------------------------------------ the parse arena
 *
 * Everything tree-sitter allocates while parsing one input (the parser, its stacks, the tree)
 * comes from one arena: bump allocation, a free that does nothing, and the whole tree released
 * in a few calls when lowering is done with it. Walking a big tree to free its millions of
 * subtrees one by one cost a sixth of parse + lower; the space the parser frees on the way is
 * a few percent of the tree (an array grown in place when it is the newest block, as it nearly
 * always is). Outside a parse, and for any block not from the arena, the C library serves. */

typedef struct Chunk {
    struct Chunk *previous;
    char *next, *end;  /* the free space left in this chunk */
} Chunk;

typedef struct {
    Chunk *newest;
    size_t next_size;  /* of the next chunk: doubling, so a big tree needs few of them */
} Arena;

enum { ALIGNMENT = 16, HEADER = 16, FIRST_CHUNK = 1 << 22, LARGEST_CHUNK = 1 << 28 };

/* The arena of the parse under way on this thread, if any. */
static _Thread_local Arena *active_arena = NULL;

static Chunk *chunk_holding(Arena *arena, const void *pointer) {
    for (Chunk *chunk = arena->newest; chunk != NULL; chunk = chunk->previous)
        if ((const char *)(chunk + 1) <= (const char *)pointer && (const char *)pointer < chunk->end) return chunk;
    return NULL;
}

static void *arena_allocate(Arena *arena, size_t size) {
    size_t needed = HEADER + ((size + ALIGNMENT - 1) & ~(size_t)(ALIGNMENT - 1));
    Chunk *chunk = arena->newest;
    if (chunk == NULL || (size_t)(chunk->end - chunk->next) < needed) {
        size_t chunk_size = arena->next_size;
        while (chunk_size < needed + sizeof(Chunk)) chunk_size *= 2;
        chunk = malloc(chunk_size);
        if (chunk == NULL) return NULL;
        chunk->previous = arena->newest;
        chunk->next = (char *)chunk + ((sizeof(Chunk) + ALIGNMENT - 1) & ~(size_t)(ALIGNMENT - 1));
        chunk->end = (char *)chunk + chunk_size;
        arena->newest = chunk;
        if (arena->next_size < LARGEST_CHUNK) arena->next_size *= 2;
    }
    char *block = chunk->next + HEADER;
    *(size_t *)(block - HEADER) = size;
    chunk->next += needed;
    return block;
}

static void arena_release(Arena *arena) {
    for (Chunk *chunk = arena->newest; chunk != NULL;) {
        Chunk *previous = chunk->previous;
        free(chunk);
        chunk = previous;
    }
    free(arena);
}

static void *parse_malloc(size_t size) {
    void *block = active_arena != NULL ? arena_allocate(active_arena, size) : NULL;
    return block != NULL ? block : malloc(size);
}

static void *parse_calloc(size_t count, size_t size) {
    if (active_arena == NULL || (size != 0 && count > SIZE_MAX / size)) return calloc(count, size);
    void *block = parse_malloc(count * size);
    if (block != NULL) memset(block, 0, count * size);
    return block;
}

static void *parse_realloc(void *pointer, size_t size) {
    Chunk *chunk = pointer != NULL && active_arena != NULL ? chunk_holding(active_arena, pointer) : NULL;
    if (chunk == NULL) return realloc(pointer, size);
    size_t old_size = *(size_t *)((char *)pointer - HEADER);
    size_t old_end = (old_size + ALIGNMENT - 1) & ~(size_t)(ALIGNMENT - 1);
    size_t new_end = (size + ALIGNMENT - 1) & ~(size_t)(ALIGNMENT - 1);
    if ((char *)pointer + old_end == chunk->next && new_end <= old_end + (size_t)(chunk->end - chunk->next)) {
        chunk->next = (char *)pointer + new_end;  /* the newest block grows (or shrinks) in place */
        *(size_t *)((char *)pointer - HEADER) = size;
        return pointer;
    }
    void *moved = parse_malloc(size);
    if (moved != NULL) memcpy(moved, pointer, old_size < size ? old_size : size);
    return moved;
}

static void parse_free(void *pointer) {
    if (pointer != NULL && (active_arena == NULL || chunk_holding(active_arena, pointer) == NULL)) free(pointer);
}

/* A tree and the arena it lives in, owned by a capsule. */
static void free_tree(PyObject *capsule) {
    Arena *arena = PyCapsule_GetContext(capsule);
    if (arena != NULL) arena_release(arena);
}

/* Read `ranges`, a tuple of (start_byte, end_byte, start_row, start_column, end_row, end_column)
 * tuples, into a new array (NULL with a Python error set when one is malformed). */
static TSRange *ranges_of(PyObject *ranges, Py_ssize_t count) {
    TSRange *read = PyMem_Calloc((size_t)count, sizeof(TSRange));
    if (read == NULL) return (TSRange *)PyErr_NoMemory();
    for (Py_ssize_t index = 0; index < count; index++) {
        TSRange *range = &read[index];
        if (!PyArg_ParseTuple(PyTuple_GET_ITEM(ranges, index), "IIIIII", &range->start_byte, &range->end_byte,
                              &range->start_point.row, &range->start_point.column, &range->end_point.row,
                              &range->end_point.column)) {
            PyMem_Free(read);
            return NULL;
        }
    }
    return read;
}

/* parse(data, included=()): with `included`, only those byte ranges are parsed (positions stay
 * those of `data`); syntax.py leaves out the bodies of large initializers this way. */
static PyObject *parse(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *data, *ranges = NULL;
    if (!PyArg_ParseTuple(args, "O|O!", &data, &PyTuple_Type, &ranges)) return NULL;
    Py_ssize_t count = ranges == NULL ? 0 : PyTuple_GET_SIZE(ranges);
    Py_buffer buffer;
    if (PyObject_GetBuffer(data, &buffer, PyBUF_SIMPLE) < 0) return NULL;
    if ((uint64_t)buffer.len > UINT32_MAX) {  /* tree-sitter's byte offsets are 32-bit */
        PyBuffer_Release(&buffer);
        return PyErr_Format(PyExc_ValueError, "input of %zd bytes is too large to parse", buffer.len);
    }
    TSRange *included = NULL;
    if (count > 0 && (included = ranges_of(ranges, count)) == NULL) {
        PyBuffer_Release(&buffer);
        return NULL;
    }
    Arena *arena = calloc(1, sizeof(Arena));
    if (arena == NULL) {
        PyMem_Free(included);
        PyBuffer_Release(&buffer);
        return PyErr_NoMemory();
    }
    arena->next_size = FIRST_CHUNK;
    /* A parser per parse, in the arena with its tree: nothing it keeps outlives the parse. */
    active_arena = arena;
    TSParser *parser = ts_parser_new();
    PyObject *problem = NULL;
    const char *explanation = NULL;
    TSTree *tree = NULL;
    if (parser == NULL || !ts_parser_set_language(parser, tree_sitter_ptx()))
        problem = PyExc_RuntimeError, explanation = "the PTX grammar's ABI is not supported by this runtime";
    else if (included != NULL && !ts_parser_set_included_ranges(parser, included, (uint32_t)count))
        problem = PyExc_ValueError, explanation = "included ranges must be ordered and not overlap";
    else
        tree = ts_parser_parse_string(parser, NULL, buffer.buf, (uint32_t)buffer.len);
    if (parser != NULL) ts_parser_delete(parser);
    active_arena = NULL;
    PyMem_Free(included);
    PyBuffer_Release(&buffer);
    PyObject *capsule = tree != NULL ? PyCapsule_New(tree, TREE_CAPSULE, free_tree) : NULL;
    if (capsule == NULL || PyCapsule_SetContext(capsule, arena) < 0) {
        Py_XDECREF(capsule);
        arena_release(arena);
        if (problem != NULL) return PyErr_Format(problem, "%s", explanation);
        return PyErr_Occurred() ? NULL : PyErr_NoMemory();
    }
    return capsule;
}

static PyObject *has_error(PyObject *self, PyObject *capsule) {
    (void)self;
    TSTree *tree = PyCapsule_GetPointer(capsule, TREE_CAPSULE);
    if (tree == NULL) return NULL;
    return PyBool_FromLong(ts_node_has_error(ts_tree_root_node(tree)));
}

/* The tree as tree-sitter's S-expression: the same text py-tree-sitter gives for str(root_node),
 * which is how the tests prove the compiled-in runtime parses exactly as py-tree-sitter does. */
static PyObject *sexp(PyObject *self, PyObject *capsule) {
    (void)self;
    TSTree *tree = PyCapsule_GetPointer(capsule, TREE_CAPSULE);
    if (tree == NULL) return NULL;
    char *text = ts_node_string(ts_tree_root_node(tree));
    if (text == NULL) return PyErr_NoMemory();
    PyObject *result = PyUnicode_FromString(text);
    free(text);
    return result;
}

/* ------------------------------------------------------------------ nodes
 *
 * A Node is one TSNode plus a reference to the capsule that owns its tree. It answers the few
 * questions lowering asks of a node, with the meaning py-tree-sitter gives them, so the Python
 * lowering runs unchanged on either front end. */

typedef struct {
    PyObject_HEAD
    TSNode node;
    PyObject *tree;
} NodeObject;

static PyTypeObject NodeType;

static PyObject *wrap_node(TSNode node, PyObject *tree) {
    NodeObject *object = PyObject_New(NodeObject, &NodeType);
    if (object == NULL) return NULL;
    object->node = node;
    object->tree = Py_NewRef(tree);
    return (PyObject *)object;
}

static PyObject *wrap_or_none(TSNode node, PyObject *tree) {
    if (ts_node_is_null(node)) Py_RETURN_NONE;
    return wrap_node(node, tree);
}

static void node_dealloc(PyObject *self) {
    Py_DECREF(((NodeObject *)self)->tree);
    PyObject_Free(self);
}

#define NODE(self) (((NodeObject *)(self))->node)

static PyObject *node_kind_id(PyObject *self, void *unused) { (void)unused; return PyLong_FromLong(ts_node_symbol(NODE(self))); }
static PyObject *node_start_byte(PyObject *self, void *unused) { (void)unused; return PyLong_FromUnsignedLong(ts_node_start_byte(NODE(self))); }
static PyObject *node_end_byte(PyObject *self, void *unused) { (void)unused; return PyLong_FromUnsignedLong(ts_node_end_byte(NODE(self))); }
static PyObject *node_type(PyObject *self, void *unused) { (void)unused; return PyUnicode_FromString(ts_node_type(NODE(self))); }
static PyObject *node_id(PyObject *self, void *unused) { (void)unused; return PyLong_FromVoidPtr((void *)NODE(self).id); }
static PyObject *node_is_missing(PyObject *self, void *unused) { (void)unused; return PyBool_FromLong(ts_node_is_missing(NODE(self))); }
static PyObject *node_is_error(PyObject *self, void *unused) { (void)unused; return PyBool_FromLong(ts_node_is_error(NODE(self))); }
static PyObject *node_has_error(PyObject *self, void *unused) { (void)unused; return PyBool_FromLong(ts_node_has_error(NODE(self))); }
static PyObject *node_is_named(PyObject *self, void *unused) { (void)unused; return PyBool_FromLong(ts_node_is_named(NODE(self))); }
static PyObject *node_child_count(PyObject *self, void *unused) { (void)unused; return PyLong_FromUnsignedLong(ts_node_child_count(NODE(self))); }

/* The children in order, all of them or only the named ones, or only those under one field. */
static PyObject *children_where(PyObject *self, bool named_only, TSFieldId field) {
    PyObject *result = PyList_New(0);
    if (result == NULL) return NULL;
    TSTreeCursor cursor = ts_tree_cursor_new(NODE(self));
    for (bool more = ts_tree_cursor_goto_first_child(&cursor); more; more = ts_tree_cursor_goto_next_sibling(&cursor)) {
        if (field != 0 && ts_tree_cursor_current_field_id(&cursor) != field) continue;
        TSNode child = ts_tree_cursor_current_node(&cursor);
        if (named_only && !ts_node_is_named(child)) continue;
        PyObject *wrapped = wrap_node(child, ((NodeObject *)self)->tree);
        if (wrapped == NULL || PyList_Append(result, wrapped) < 0) {
            Py_XDECREF(wrapped);
            Py_DECREF(result);
            ts_tree_cursor_delete(&cursor);
            return NULL;
        }
        Py_DECREF(wrapped);
    }
    ts_tree_cursor_delete(&cursor);
    return result;
}

static PyObject *node_children(PyObject *self, void *unused) { (void)unused; return children_where(self, false, 0); }
static PyObject *node_named_children(PyObject *self, void *unused) { (void)unused; return children_where(self, true, 0); }

static PyObject *node_child(PyObject *self, PyObject *index) {
    long position = PyLong_AsLong(index);
    if (position == -1 && PyErr_Occurred()) return NULL;
    if (position < 0 || (uint32_t)position >= ts_node_child_count(NODE(self))) Py_RETURN_NONE;
    return wrap_or_none(ts_node_child(NODE(self), (uint32_t)position), ((NodeObject *)self)->tree);
}

static PyObject *node_child_by_field_name(PyObject *self, PyObject *name) {
    Py_ssize_t length;
    const char *text = PyUnicode_AsUTF8AndSize(name, &length);
    if (text == NULL) return NULL;
    return wrap_or_none(ts_node_child_by_field_name(NODE(self), text, (uint32_t)length), ((NodeObject *)self)->tree);
}

static PyObject *node_children_by_field_name(PyObject *self, PyObject *name) {
    Py_ssize_t length;
    const char *text = PyUnicode_AsUTF8AndSize(name, &length);
    if (text == NULL) return NULL;
    TSFieldId field = ts_language_field_id_for_name(tree_sitter_ptx(), text, (uint32_t)length);
    if (field == 0) return PyList_New(0);
    return children_where(self, false, field);
}

static PyGetSetDef node_getset[] = {
    {"kind_id", node_kind_id, NULL, NULL, NULL},
    {"start_byte", node_start_byte, NULL, NULL, NULL},
    {"end_byte", node_end_byte, NULL, NULL, NULL},
    {"type", node_type, NULL, NULL, NULL},
    {"id", node_id, NULL, NULL, NULL},
    {"is_missing", node_is_missing, NULL, NULL, NULL},
    {"is_error", node_is_error, NULL, NULL, NULL},
    {"has_error", node_has_error, NULL, NULL, NULL},
    {"is_named", node_is_named, NULL, NULL, NULL},
    {"child_count", node_child_count, NULL, NULL, NULL},
    {"children", node_children, NULL, NULL, NULL},
    {"named_children", node_named_children, NULL, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef node_methods[] = {
    {"child", node_child, METH_O, NULL},
    {"child_by_field_name", node_child_by_field_name, METH_O, NULL},
    {"children_by_field_name", node_children_by_field_name, METH_O, NULL},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject NodeType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "ptxlint._native.Node",
    .tp_basicsize = sizeof(NodeObject),
    .tp_dealloc = node_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A node of a tree from parse(), read the way py-tree-sitter's nodes are.",
    .tp_getset = node_getset,
    .tp_methods = node_methods,
};

#include "walker.c"

static PyObject *root(PyObject *self, PyObject *capsule) {
    (void)self;
    TSTree *tree = PyCapsule_GetPointer(capsule, TREE_CAPSULE);
    if (tree == NULL) return NULL;
    return wrap_node(ts_tree_root_node(tree), capsule);
}

static PyMethodDef methods[] = {
    {"parse", parse, METH_VARARGS, "Parse PTX bytes (only the included ranges, when given) with the compiled-in runtime; return an opaque tree."},
    {"has_error", has_error, METH_O, "Whether a tree from parse() holds ERROR or MISSING nodes."},
    {"sexp", sexp, METH_O, "The S-expression of a tree from parse()."},
    {"root", root, METH_O, "The root Node of a tree from parse()."},
    {"configure", configure, METH_VARARGS, "Tell the walker the IR's classes (once per process)."},
    {"lower_block", lower_block, METH_VARARGS, "Lower a function body: _Lowering.block for a native Node."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_native", "PTX parsed by tree-sitter's runtime compiled into ptxlint.", -1,
    methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__native(void) {
    if (PyType_Ready(&NodeType) < 0) return NULL;
    ts_set_allocator(parse_malloc, parse_calloc, parse_realloc, parse_free);
    PyObject *result = PyModule_Create(&module);
    if (result != NULL && PyModule_AddObjectRef(result, "Node", (PyObject *)&NodeType) < 0) Py_CLEAR(result);
    return result;
}
