/* Zhang–Shasha tree edit distance with unit costs, compiled (skyt_tui.engine.measure._ted).
 *
 * The same algorithm as `tree_edit_distance` in tree_distance.py, which stays the
 * fallback where this module is not built; tests check both give identical
 * distances (and agree with the `zss` and `apted` packages).
 *
 * distance(labels_a, leftmost_a, keyroots_a, labels_b, leftmost_b, keyroots_b) -> int
 *
 * Each argument is a sequence of ints describing one tree in postorder: node
 * labels (any int), each node's leftmost leaf (0 <= leftmost[i] <= i, and
 * leftmost[leftmost[i]] == leftmost[i]), and the keyroots (ascending node indexes).
 * Input is validated before any table is touched: a malformed tree raises
 * ValueError, a table too large for memory MemoryError. The dynamic programme
 * runs without the GIL.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>

typedef struct {
    Py_ssize_t size;
    Py_ssize_t nkeyroots;
    long *labels;
    int32_t *leftmost;
    int32_t *keyroots;
} tree_t;

static void tree_free(tree_t *t) {
    PyMem_Free(t->labels);
    PyMem_Free(t->leftmost);
    PyMem_Free(t->keyroots);
    t->labels = NULL;
    t->leftmost = NULL;
    t->keyroots = NULL;
}

/* Read one int sequence into a freshly allocated array; 0 on success, -1 with an exception set. */
static int read_longs(PyObject *seq_obj, const char *what, long **out, Py_ssize_t *count) {
    PyObject *seq = PySequence_Fast(seq_obj, what);
    if (seq == NULL) {
        return -1;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    long *values = PyMem_Malloc(sizeof(long) * (size_t)(n > 0 ? n : 1));
    if (values == NULL) {
        Py_DECREF(seq);
        PyErr_NoMemory();
        return -1;
    }
    PyObject **items = PySequence_Fast_ITEMS(seq);
    for (Py_ssize_t i = 0; i < n; i++) {
        long v = PyLong_AsLong(items[i]);
        if (v == -1 && PyErr_Occurred()) {
            PyMem_Free(values);
            Py_DECREF(seq);
            return -1;
        }
        values[i] = v;
    }
    Py_DECREF(seq);
    *out = values;
    *count = n;
    return 0;
}

static int read_tree(PyObject *labels, PyObject *leftmost, PyObject *keyroots, tree_t *t) {
    long *lm = NULL, *kr = NULL;
    Py_ssize_t n_lm = 0, n_kr = 0;
    t->labels = NULL;
    t->leftmost = NULL;
    t->keyroots = NULL;
    if (read_longs(labels, "labels must be a sequence of ints", &t->labels, &t->size) < 0) {
        return -1;
    }
    if (read_longs(leftmost, "leftmost must be a sequence of ints", &lm, &n_lm) < 0) {
        goto fail;
    }
    if (read_longs(keyroots, "keyroots must be a sequence of ints", &kr, &n_kr) < 0) {
        goto fail;
    }
    if (n_lm != t->size || t->size > INT32_MAX - 2 || n_kr > t->size) {
        PyErr_SetString(PyExc_ValueError, "tree: labels, leftmost and keyroots do not agree in size");
        goto fail;
    }
    t->leftmost = PyMem_Malloc(sizeof(int32_t) * (size_t)(t->size > 0 ? t->size : 1));
    t->keyroots = PyMem_Malloc(sizeof(int32_t) * (size_t)(n_kr > 0 ? n_kr : 1));
    if (t->leftmost == NULL || t->keyroots == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    for (Py_ssize_t i = 0; i < t->size; i++) {
        if (lm[i] < 0 || lm[i] > i || lm[lm[i]] != lm[i]) {
            PyErr_SetString(PyExc_ValueError, "tree: a leftmost leaf out of order");
            goto fail;
        }
        t->leftmost[i] = (int32_t)lm[i];
    }
    for (Py_ssize_t k = 0; k < n_kr; k++) {
        if (kr[k] < 0 || kr[k] >= t->size || (k > 0 && kr[k] <= kr[k - 1])) {
            PyErr_SetString(PyExc_ValueError, "tree: keyroots not ascending node indexes");
            goto fail;
        }
        t->keyroots[k] = (int32_t)kr[k];
        /* the nodes from a keyroot's leftmost leaf up to it are its subtree: none starts further left */
        for (long ix = lm[kr[k]]; ix <= kr[k]; ix++) {
            if (lm[ix] < lm[kr[k]]) {
                PyErr_SetString(PyExc_ValueError, "tree: a keyroot's nodes are not its subtree");
                goto fail;
            }
        }
    }
    t->nkeyroots = n_kr;
    PyMem_Free(lm);
    PyMem_Free(kr);
    return 0;
fail:
    PyMem_Free(lm);
    PyMem_Free(kr);
    tree_free(t);
    return -1;
}

static inline int32_t min3(int32_t a, int32_t b, int32_t c) {
    int32_t m = a < b ? a : b;
    return m < c ? m : c;
}

/* The Zhang–Shasha programme; td is size_a × size_b, fd (size_a + 1) × (size_b + 1). */
static int32_t zhang_shasha(const tree_t *a, const tree_t *b, int32_t *td, int32_t *fd) {
    const Py_ssize_t m = b->size;
    const Py_ssize_t stride = m + 1;
    const long *la = a->labels, *lb = b->labels;
    const int32_t *lma = a->leftmost, *lmb = b->leftmost;
    for (Py_ssize_t ki = 0; ki < a->nkeyroots; ki++) {
        const Py_ssize_t i = a->keyroots[ki];
        const Py_ssize_t li = lma[i];
        const Py_ssize_t rows = i - li + 2;
        for (Py_ssize_t kj = 0; kj < b->nkeyroots; kj++) {
            const Py_ssize_t j = b->keyroots[kj];
            const Py_ssize_t lj = lmb[j];
            const Py_ssize_t cols = j - lj + 2;
            for (Py_ssize_t y = 0; y < cols; y++) {
                fd[y] = (int32_t)y;
            }
            for (Py_ssize_t x = 1; x < rows; x++) {
                const Py_ssize_t ix = li + x - 1;
                int32_t *row = fd + x * stride;
                const int32_t *above = row - stride;
                const int32_t *td_x = td + ix * m;
                const int32_t *forest_p = fd + (lma[ix] - li) * stride;
                const long label_x = la[ix];
                row[0] = (int32_t)x;
                if (lma[ix] == li) {
                    int32_t *td_w = td + ix * m;
                    for (Py_ssize_t y = 1; y < cols; y++) {
                        const Py_ssize_t jy = lj + y - 1;
                        const Py_ssize_t left = lmb[jy] - lj;
                        int32_t best;
                        if (left == 0) {
                            best = min3(above[y] + 1, row[y - 1] + 1,
                                        above[y - 1] + (label_x != lb[jy]));
                            td_w[jy] = best;
                        } else {
                            best = min3(above[y] + 1, row[y - 1] + 1, forest_p[left] + td_x[jy]);
                        }
                        row[y] = best;
                    }
                } else {
                    for (Py_ssize_t y = 1; y < cols; y++) {
                        const Py_ssize_t jy = lj + y - 1;
                        row[y] = min3(above[y] + 1, row[y - 1] + 1,
                                      forest_p[lmb[jy] - lj] + td_x[jy]);
                    }
                }
            }
        }
    }
    return td[(a->size - 1) * m + (m - 1)];
}

static PyObject *ted_distance(PyObject *self, PyObject *args) {
    PyObject *la, *lma, *kra, *lb, *lmb, *krb;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOOO:distance", &la, &lma, &kra, &lb, &lmb, &krb)) {
        return NULL;
    }
    tree_t a, b;
    if (read_tree(la, lma, kra, &a) < 0) {
        return NULL;
    }
    if (read_tree(lb, lmb, krb, &b) < 0) {
        tree_free(&a);
        return NULL;
    }
    if (a.size == 0 || b.size == 0) {
        Py_ssize_t other = a.size + b.size;
        tree_free(&a);
        tree_free(&b);
        return PyLong_FromSsize_t(other);
    }
    /* the root is the last node in postorder and always a keyroot */
    if (a.nkeyroots == 0 || b.nkeyroots == 0 || a.keyroots[a.nkeyroots - 1] != a.size - 1 ||
        b.keyroots[b.nkeyroots - 1] != b.size - 1 || a.leftmost[a.size - 1] != 0 ||
        b.leftmost[b.size - 1] != 0) {
        tree_free(&a);
        tree_free(&b);
        PyErr_SetString(PyExc_ValueError, "tree: the root is not the last keyroot");
        return NULL;
    }
    size_t na = (size_t)a.size, nb = (size_t)b.size;
    int32_t *td = NULL, *fd = NULL;
    if (na <= SIZE_MAX / sizeof(int32_t) / nb && (na + 1) <= SIZE_MAX / sizeof(int32_t) / (nb + 1)) {
        td = PyMem_RawCalloc(na * nb, sizeof(int32_t)); /* zeroed: never an undefined read */
        fd = PyMem_RawMalloc(sizeof(int32_t) * (na + 1) * (nb + 1));
    }
    if (td == NULL || fd == NULL) {
        PyMem_RawFree(td);
        PyMem_RawFree(fd);
        tree_free(&a);
        tree_free(&b);
        return PyErr_NoMemory();
    }
    int32_t result;
    Py_BEGIN_ALLOW_THREADS
    result = zhang_shasha(&a, &b, td, fd);
    Py_END_ALLOW_THREADS
    PyMem_RawFree(td);
    PyMem_RawFree(fd);
    tree_free(&a);
    tree_free(&b);
    return PyLong_FromLong((long)result);
}

static PyMethodDef ted_methods[] = {
    {"distance", ted_distance, METH_VARARGS,
     "distance(labels_a, leftmost_a, keyroots_a, labels_b, leftmost_b, keyroots_b) -> int\n\n"
     "Zhang-Shasha tree edit distance with unit costs between two postorder trees."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef ted_module = {
    PyModuleDef_HEAD_INIT, "_ted",
    "Compiled Zhang-Shasha tree edit distance (see tree_distance.py).", -1, ted_methods,
};

PyMODINIT_FUNC PyInit__ted(void) { return PyModule_Create(&ted_module); }
