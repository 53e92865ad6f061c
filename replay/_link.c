/* The hash chain's link, sha256(head + canonical), in one call to OpenSSL's SHA-256.
 *
 * The same digest as hashlib.sha256(head + canonical).digest() (replay/chain.py), without hashlib's
 * per-call costs under OpenSSL 3 (a provider context set up, copied and freed for every digest), which
 * made the link the biggest part of replaying an event. Built by tools/compile_engine.py (make install)
 * when OpenSSL's headers are there; replay/chain.py falls back to hashlib without it.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <openssl/sha.h>

static PyObject *
link_(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    Py_buffer head, canonical;
    unsigned char digest[SHA256_DIGEST_LENGTH];
    SHA256_CTX ctx;

    (void)module;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "link(head, canonical) takes 2 arguments");
        return NULL;
    }
    if (PyObject_GetBuffer(args[0], &head, PyBUF_SIMPLE) < 0)
        return NULL;
    if (PyObject_GetBuffer(args[1], &canonical, PyBUF_SIMPLE) < 0) {
        PyBuffer_Release(&head);
        return NULL;
    }
    SHA256_Init(&ctx);
    SHA256_Update(&ctx, head.buf, (size_t)head.len);
    SHA256_Update(&ctx, canonical.buf, (size_t)canonical.len);
    SHA256_Final(digest, &ctx);
    PyBuffer_Release(&head);
    PyBuffer_Release(&canonical);
    return PyBytes_FromStringAndSize((const char *)digest, SHA256_DIGEST_LENGTH);
}

static PyMethodDef methods[] = {
    {"link", (PyCFunction)(void (*)(void))link_, METH_FASTCALL,
     "link(head, canonical) -> sha256(head + canonical), 32 bytes"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "replay._link", "The hash chain's link in C (OpenSSL SHA-256).", -1, methods,
};

PyMODINIT_FUNC
PyInit__link(void)
{
    return PyModule_Create(&module);
}
