/* The native front end, `ptxlint._native`: the PTX grammar parsed by tree-sitter's own C runtime,
 * compiled into this extension (see build_native.py), without py-tree-sitter's per-node objects.
 *
 * `parse(data)` returns an opaque tree (a capsule that frees the tree with it). ptxlint/syntax.py
 * is the only module that imports this one. */
#include <Python.h>

#include <tree_sitter/api.h>

const TSLanguage *tree_sitter_ptx(void);

static const char TREE_CAPSULE[] = "ptxlint._native.Tree";

static void free_tree(PyObject *capsule) {
    TSTree *tree = PyCapsule_GetPointer(capsule, TREE_CAPSULE);
    if (tree != NULL) ts_tree_delete(tree);
}

/* One parser per process, reused: creating a parser allocates its stacks and lexer buffers. The
 * GIL serialises callers, so it is never used by two threads at once. */
static TSParser *shared_parser(void) {
    static TSParser *parser = NULL;
    if (parser == NULL) {
        parser = ts_parser_new();
        if (parser != NULL && !ts_parser_set_language(parser, tree_sitter_ptx())) {
            ts_parser_delete(parser);
            parser = NULL;
        }
    }
    return parser;
}

static PyObject *parse(PyObject *self, PyObject *data) {
    (void)self;
    Py_buffer buffer;
    if (PyObject_GetBuffer(data, &buffer, PyBUF_SIMPLE) < 0) return NULL;
    if ((uint64_t)buffer.len > UINT32_MAX) {  /* tree-sitter's byte offsets are 32-bit */
        PyBuffer_Release(&buffer);
        return PyErr_Format(PyExc_ValueError, "input of %zd bytes is too large to parse", buffer.len);
    }
    TSParser *parser = shared_parser();
    if (parser == NULL) {
        PyBuffer_Release(&buffer);
        return PyErr_Format(PyExc_RuntimeError, "the PTX grammar's ABI is not supported by this runtime");
    }
    TSTree *tree = ts_parser_parse_string(parser, NULL, buffer.buf, (uint32_t)buffer.len);
    PyBuffer_Release(&buffer);
    if (tree == NULL) return PyErr_NoMemory();
    PyObject *capsule = PyCapsule_New(tree, TREE_CAPSULE, free_tree);
    if (capsule == NULL) ts_tree_delete(tree);
    return capsule;
}

static PyObject *has_error(PyObject *self, PyObject *capsule) {
    (void)self;
    TSTree *tree = PyCapsule_GetPointer(capsule, TREE_CAPSULE);
    if (tree == NULL) return NULL;
    return PyBool_FromLong(ts_node_has_error(ts_tree_root_node(tree)));
}

static PyMethodDef methods[] = {
    {"parse", parse, METH_O, "Parse PTX bytes with the compiled-in runtime; return an opaque tree."},
    {"has_error", has_error, METH_O, "Whether a tree from parse() holds ERROR or MISSING nodes."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_native", "PTX parsed by tree-sitter's runtime compiled into ptxlint.", -1,
    methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__native(void) { return PyModule_Create(&module); }
