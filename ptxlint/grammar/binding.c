/* The compiled PTX grammar as a Python extension: `ptxlint._grammar.language()` returns the
 * tree-sitter language as a PyCapsule named "tree_sitter.Language", which is what py-tree-sitter
 * (0.22 and later) accepts in `tree_sitter.Language(...)`. */
#include <Python.h>

typedef struct TSLanguage TSLanguage;
const TSLanguage *tree_sitter_ptx(void);

static PyObject *language(PyObject *self, PyObject *unused) {
    (void)self;
    (void)unused;
    return PyCapsule_New((void *)tree_sitter_ptx(), "tree_sitter.Language", NULL);
}

static PyMethodDef methods[] = {
    {"language", language, METH_NOARGS, "Return the PTX tree-sitter language as a PyCapsule."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_grammar", "The PTX tree-sitter grammar.", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__grammar(void) { return PyModule_Create(&module); }
