/* The hash chain's link, sha256(head + canonical), in one call to OpenSSL's SHA-256; and a check that
 * MessagePack bytes are already canonical, so the chain can hash a producer's bytes as they are.
 *
 * link(): the same digest as hashlib.sha256(head + canonical).digest() (replay/engine/chain.py), without hashlib's
 * per-call costs under OpenSSL 3 (a provider context set up, copied and freed for every digest), which
 * made the link the biggest part of replaying an event. Built by tools/compile_engine.py (make install)
 * when OpenSSL's headers are there; replay/engine/chain.py falls back to hashlib without it.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <openssl/sha.h>
#include <stdint.h>
#include <string.h>

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


/* canonical(raw): true when raw is exactly one MessagePack object that is byte for byte what
 * replay.engine.chain.canonical_bytes() gives for the value it decodes to (msgspec's encoder with
 * order="deterministic"): every header in its shortest form, floats as float64, and at every level map
 * keys that are strings in strictly increasing order (UTF-8 byte order is code point order, which is how
 * the encoder sorts them). Anything else (ext types, float32, NaN, non-string keys, nesting deeper than
 * MAX_DEPTH, trailing bytes) answers false, and the caller encodes: false is always safe, true must
 * never be wrong (tests/engine/test_canonical_check.py). The caller has decoded raw already, so its UTF-8 is
 * valid. */
#define MAX_DEPTH 64

typedef struct {
    const unsigned char *p;
    const unsigned char *end;
} cursor;

static uint64_t
big_endian(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v = (v << 8) | p[i];
    return v;
}

/* Reads an unsigned length of n bytes; 0 when the bytes run out. */
static int
read_len(cursor *c, int n, uint64_t *len)
{
    if (c->end - c->p < n)
        return 0;
    *len = big_endian(c->p, n);
    c->p += n;
    return 1;
}

/* Skips len bytes of payload; 0 when they run out. */
static int
skip(cursor *c, uint64_t len)
{
    if ((uint64_t)(c->end - c->p) < len)
        return 0;
    c->p += len;
    return 1;
}

static int check_value(cursor *c, int depth);

/* A map key: a string in its shortest header; sets its bytes. */
static int
read_key(cursor *c, const unsigned char **s, uint64_t *len)
{
    unsigned char b;
    if (c->p >= c->end)
        return 0;
    b = *c->p++;
    if ((b & 0xe0) == 0xa0)
        *len = b & 0x1f;
    else if (b == 0xd9) {
        if (!read_len(c, 1, len) || *len < 32)
            return 0;
    }
    else if (b == 0xda) {
        if (!read_len(c, 2, len) || *len < 256)
            return 0;
    }
    else if (b == 0xdb) {
        if (!read_len(c, 4, len) || *len < 65536)
            return 0;
    }
    else
        return 0;
    *s = c->p;
    return skip(c, *len);
}

static int
check_map(cursor *c, uint64_t n, int depth)
{
    const unsigned char *prev = NULL, *key;
    uint64_t prev_len = 0, len;
    if (n > (uint64_t)(c->end - c->p) / 2)
        return 0; /* each entry takes at least two bytes */
    for (uint64_t i = 0; i < n; i++) {
        if (!read_key(c, &key, &len))
            return 0;
        if (prev != NULL) {
            size_t common = (size_t)(prev_len < len ? prev_len : len);
            int cmp = memcmp(prev, key, common);
            if (cmp > 0 || (cmp == 0 && prev_len >= len))
                return 0; /* out of order, or a repeated key */
        }
        prev = key;
        prev_len = len;
        if (!check_value(c, depth + 1))
            return 0;
    }
    return 1;
}

static int
check_array(cursor *c, uint64_t n, int depth)
{
    if (n > (uint64_t)(c->end - c->p))
        return 0; /* each item takes at least one byte */
    for (uint64_t i = 0; i < n; i++)
        if (!check_value(c, depth + 1))
            return 0;
    return 1;
}

static int
check_value(cursor *c, int depth)
{
    unsigned char b;
    uint64_t v;
    if (depth > MAX_DEPTH || c->p >= c->end)
        return 0;
    b = *c->p++;
    if (b <= 0x7f || b >= 0xe0) /* fixint */
        return 1;
    if ((b & 0xe0) == 0xa0) /* fixstr */
        return skip(c, b & 0x1f);
    if ((b & 0xf0) == 0x90)
        return check_array(c, b & 0x0f, depth);
    if ((b & 0xf0) == 0x80)
        return check_map(c, b & 0x0f, depth);
    switch (b) {
    case 0xc0: /* nil */
    case 0xc2: /* false */
    case 0xc3: /* true */
        return 1;
    /* unsigned integers: only where a shorter form cannot hold them */
    case 0xcc:
        return read_len(c, 1, &v) && v >= 0x80;
    case 0xcd:
        return read_len(c, 2, &v) && v >= 0x100;
    case 0xce:
        return read_len(c, 4, &v) && v >= 0x10000;
    case 0xcf:
        return read_len(c, 8, &v) && v >= 0x100000000ULL;
    /* signed integers: the encoder uses them for negative values only, each below the shorter form */
    case 0xd0:
        return read_len(c, 1, &v) && (int8_t)(uint8_t)v < -32;
    case 0xd1:
        return read_len(c, 2, &v) && (int16_t)(uint16_t)v < -128;
    case 0xd2:
        return read_len(c, 4, &v) && (int32_t)(uint32_t)v < -32768;
    case 0xd3:
        return read_len(c, 8, &v) && (int64_t)v < -2147483648LL;
    case 0xcb: { /* float64, but not NaN (its payload need not survive a round trip) */
        if (!read_len(c, 8, &v))
            return 0;
        return (v & 0x7ff0000000000000ULL) != 0x7ff0000000000000ULL || (v & 0x000fffffffffffffULL) == 0;
    }
    case 0xd9:
        return read_len(c, 1, &v) && v >= 32 && skip(c, v);
    case 0xda:
        return read_len(c, 2, &v) && v >= 256 && skip(c, v);
    case 0xdb:
        return read_len(c, 4, &v) && v >= 65536 && skip(c, v);
    case 0xc4:
        return read_len(c, 1, &v) && skip(c, v);
    case 0xc5:
        return read_len(c, 2, &v) && v >= 256 && skip(c, v);
    case 0xc6:
        return read_len(c, 4, &v) && v >= 65536 && skip(c, v);
    case 0xdc:
        return read_len(c, 2, &v) && v >= 16 && check_array(c, v, depth);
    case 0xdd:
        return read_len(c, 4, &v) && v >= 65536 && check_array(c, v, depth);
    case 0xde:
        return read_len(c, 2, &v) && v >= 16 && check_map(c, v, depth);
    case 0xdf:
        return read_len(c, 4, &v) && v >= 65536 && check_map(c, v, depth);
    default: /* float32, ext types, 0xc1 */
        return 0;
    }
}

static PyObject *
canonical_(PyObject *module, PyObject *raw)
{
    Py_buffer buf;
    cursor c;
    int ok;

    (void)module;
    if (PyObject_GetBuffer(raw, &buf, PyBUF_SIMPLE) < 0)
        return NULL;
    c.p = (const unsigned char *)buf.buf;
    c.end = c.p + buf.len;
    ok = check_value(&c, 0) && c.p == c.end;
    PyBuffer_Release(&buf);
    return PyBool_FromLong(ok);
}

static PyMethodDef methods[] = {
    {"link", (PyCFunction)(void (*)(void))link_, METH_FASTCALL,
     "link(head, canonical) -> sha256(head + canonical), 32 bytes"},
    {"canonical", (PyCFunction)canonical_, METH_O,
     "canonical(raw) -> True when raw is already the canonical MessagePack of what it decodes to"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    "replay.engine._link",
    "The hash chain's link in C (OpenSSL SHA-256), and a check for canonical MessagePack.",
    -1,
    methods,
};

PyMODINIT_FUNC
PyInit__link(void)
{
    return PyModule_Create(&module);
}
