/* The hash chain's link, sha256(head + canonical), in one call to OpenSSL's SHA-256; a check that
 * MessagePack bytes are already canonical, so the chain can hash a producer's bytes as they are; and where
 * the messages of a MessagePack event file end, so each is replayed from its own bytes; and the events'
 * timestamps checked, a chunk of them at a time.
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

/* True when s[0:n] is UTF-8 as Python's strict decoder reads it: no overlong forms, no surrogates, nothing
 * above U+10FFFF. */
static int
utf8_ok(const unsigned char *s, uint64_t n)
{
    const unsigned char *end = s + n;
    while (s < end) {
        unsigned char c = *s;
        if (c < 0x80) {
            s++;
            continue;
        }
        if (c >= 0xc2 && c <= 0xdf) {
            if (end - s < 2 || (s[1] & 0xc0) != 0x80)
                return 0;
            s += 2;
        }
        else if (c >= 0xe0 && c <= 0xef) {
            if (end - s < 3 || (s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80)
                return 0;
            if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] > 0x9f))
                return 0; /* overlong, or a surrogate */
            s += 3;
        }
        else if (c >= 0xf0 && c <= 0xf4) {
            if (end - s < 4 || (s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 || (s[3] & 0xc0) != 0x80)
                return 0;
            if ((c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] > 0x8f))
                return 0; /* overlong, or above U+10FFFF */
            s += 4;
        }
        else
            return 0;
    }
    return 1;
}

/* frames(data, start, limit) -> list[bytes]: the messages of a MessagePack stream (objects one after
 * the other, as a .msgpack event file holds them) from byte `start`, at most `limit` of them, each as bytes
 * of its own (what Game.apply_msgpack takes). It only finds where each message ends: the decoders check
 * what is inside (span() below also checks its strings' UTF-8, which a decoder skipping the fields it
 * does not know leaves unread). It stops at the end of the data, or before a message that runs past it or
 * holds the never-used byte 0xc1 (span: or a string that is not UTF-8): the caller reads from there with a
 * full decoder, for its error. Iterative (no recursion, whatever the nesting); a count of items still to
 * skip that exceeds the bytes left stops it. */
/* What message_end checks of the strings it skips: nothing (frames), that they are UTF-8 (span, as one
 * pass when one of them is not ASCII, for most are). */
#define NO_CHECK 0
#define ASCII_OR_CHECK 1
#define UTF8_CHECK 2

static Py_ssize_t
message_end(const unsigned char *p, const unsigned char *end, int strings)
{
    const unsigned char *q = p;
    uint64_t pending = 1; /* objects still to skip */
    unsigned char high = 0; /* strings == ASCII_OR_CHECK: every string byte or-ed together */
    while (pending > 0) {
        unsigned char b;
        uint64_t payload = 0, items = 0, len;
        int n = 0;
        if (q >= end)
            return -1;
        b = *q++;
        pending--;
        if (b <= 0x7f || b >= 0xe0 || b == 0xc0 || b == 0xc2 || b == 0xc3)
            continue;
        if ((b & 0xe0) == 0xa0)
            payload = b & 0x1f;
        else if ((b & 0xf0) == 0x90)
            items = b & 0x0f;
        else if ((b & 0xf0) == 0x80)
            items = 2 * (uint64_t)(b & 0x0f);
        else {
            switch (b) {
            case 0xc4: case 0xd9: n = 1; break;           /* bin 8, str 8 */
            case 0xc5: case 0xda: n = 2; break;           /* bin 16, str 16 */
            case 0xc6: case 0xdb: n = 4; break;           /* bin 32, str 32 */
            case 0xc7: n = 1; payload = 1; break;         /* ext 8: length, type, data */
            case 0xc8: n = 2; payload = 1; break;
            case 0xc9: n = 4; payload = 1; break;
            case 0xca: payload = 4; break;                /* float 32 */
            case 0xcb: payload = 8; break;                /* float 64 */
            case 0xcc: case 0xd0: payload = 1; break;     /* (u)int 8 */
            case 0xcd: case 0xd1: payload = 2; break;
            case 0xce: case 0xd2: payload = 4; break;
            case 0xcf: case 0xd3: payload = 8; break;
            case 0xd4: payload = 2; break;                /* fixext 1, 2, 4, 8, 16: type + data */
            case 0xd5: payload = 3; break;
            case 0xd6: payload = 5; break;
            case 0xd7: payload = 9; break;
            case 0xd8: payload = 17; break;
            case 0xdc: case 0xde: n = 2; break;           /* array 16, map 16 */
            case 0xdd: case 0xdf: n = 4; break;           /* array 32, map 32 */
            default: return -1;                           /* 0xc1 */
            }
            if (n > 0) {
                if (end - q < n)
                    return -1;
                len = big_endian(q, n);
                q += n;
                if (b == 0xdc || b == 0xdd)
                    items = len;
                else if (b == 0xde || b == 0xdf)
                    items = 2 * len;
                else
                    payload += len;
            }
        }
        if (payload > (uint64_t)(end - q))
            return -1;
        /* strings must be UTF-8 (the decoders skip fields they do not know without reading them) */
        if (strings && ((b & 0xe0) == 0xa0 || b == 0xd9 || b == 0xda || b == 0xdb)) {
            if (strings == UTF8_CHECK) {
                if (!utf8_ok(q, payload))
                    return -1;
            }
            else
                for (uint64_t i = 0; i < payload; i++) /* no branch per byte */
                    high |= q[i];
        }
        q += payload;
        pending += items;
        if (pending > (uint64_t)(end - q))
            return -1; /* every object takes at least one byte */
    }
    if (high & 0x80 && message_end(p, end, UTF8_CHECK) < 0)
        return -1; /* a string that is not ASCII: read them all again, checking their UTF-8 */
    return q - p;
}

/* The arguments of frames() and span(): data, start, limit. */
static int
stream_args(PyObject *const *args, Py_ssize_t nargs, const char *name, Py_buffer *buf, Py_ssize_t *start,
            Py_ssize_t *limit)
{
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "%s(data, start, limit) takes 3 arguments", name);
        return 0;
    }
    *start = PyLong_AsSsize_t(args[1]);
    if (*start == -1 && PyErr_Occurred())
        return 0;
    *limit = PyLong_AsSsize_t(args[2]);
    if (*limit == -1 && PyErr_Occurred())
        return 0;
    if (PyObject_GetBuffer(args[0], buf, PyBUF_SIMPLE) < 0)
        return 0;
    if (*start < 0 || *start > buf->len || *limit < 0) {
        PyBuffer_Release(buf);
        PyErr_Format(PyExc_ValueError, "%s: start or limit out of range", name);
        return 0;
    }
    return 1;
}

static PyObject *
frames_(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    Py_buffer buf;
    Py_ssize_t start, limit, size;
    PyObject *out;
    const unsigned char *p, *end;

    (void)module;
    if (!stream_args(args, nargs, "frames", &buf, &start, &limit))
        return NULL;
    out = PyList_New(0);
    if (out == NULL) {
        PyBuffer_Release(&buf);
        return NULL;
    }
    p = (const unsigned char *)buf.buf + start;
    end = (const unsigned char *)buf.buf + buf.len;
    while (limit-- > 0 && p < end) {
        PyObject *frame;
        size = message_end(p, end, NO_CHECK);
        if (size < 0)
            break;
        frame = PyBytes_FromStringAndSize((const char *)p, size);
        if (frame == NULL || PyList_Append(out, frame) < 0) {
            Py_XDECREF(frame);
            Py_DECREF(out);
            PyBuffer_Release(&buf);
            return NULL;
        }
        Py_DECREF(frame);
        p += size;
    }
    PyBuffer_Release(&buf);
    return out;
}

/* span(data, start, limit) -> (count, end): how many whole messages (at most limit) follow `start`, their
 * strings UTF-8, and the byte just past the last one: the check pass reads them as one array, without a
 * bytes object each. */
static PyObject *
span_(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    Py_buffer buf;
    Py_ssize_t start, limit, size, count = 0;
    const unsigned char *p, *end;

    (void)module;
    if (!stream_args(args, nargs, "span", &buf, &start, &limit))
        return NULL;
    p = (const unsigned char *)buf.buf + start;
    end = (const unsigned char *)buf.buf + buf.len;
    while (count < limit && p < end) {
        size = message_end(p, end, ASCII_OR_CHECK);
        if (size < 0)
            break;
        p += size;
        count++;
    }
    PyBuffer_Release(&buf);
    return Py_BuildValue("(nn)", count, (Py_ssize_t)(p - (const unsigned char *)buf.buf));
}

/* timestamps(values) -> the index of the first value that is not None and not a valid `timestamp` of
 * schemas/events.schema.json, or -1 when all are. Valid means what the schema's two checks say together
 * (tests/engine/test_validate_fast.py compares them): its pattern
 *   ^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2})$
 * and fastjsonschema's "date-time" format: a real calendar date (the Gregorian leap years), hours 00-23,
 * minutes 00-59, seconds 00-60, offset hours 00-23 and minutes 00-59. ASCII only, the whole string ("$"
 * and "\Z" both mean its very end there: fastjsonschema rewrites "$"). One call checks a whole chunk of
 * events' `at` values, where the two regular expressions cost more than decoding the event. */
static int
digits(const unsigned char *s, int n, int *value)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return 0;
        v = v * 10 + (s[i] - '0');
    }
    *value = v;
    return 1;
}

static int
timestamp_ok(const unsigned char *s, Py_ssize_t n)
{
    int year, month, day, hour, minute, second, days, cc, yy;
    const unsigned char *p, *end = s + n;
    static const int month_days[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (n < 20 || !digits(s, 4, &year) || s[4] != '-' || !digits(s + 5, 2, &month) || s[7] != '-' ||
        !digits(s + 8, 2, &day) || (s[10] != 'T' && s[10] != 't') || !digits(s + 11, 2, &hour) ||
        s[13] != ':' || !digits(s + 14, 2, &minute) || s[16] != ':' || !digits(s + 17, 2, &second))
        return 0;
    if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 60)
        return 0;
    days = month_days[month - 1];
    if (month == 2) {
        cc = year / 100;
        yy = year % 100;
        if (!((yy != 0 && yy % 4 == 0) || (yy == 0 && cc % 4 == 0)))
            days = 28;
    }
    if (day > days)
        return 0;
    p = s + 19;
    if (p < end && *p == '.') {
        const unsigned char *frac = ++p;
        while (p < end && *p >= '0' && *p <= '9')
            p++;
        if (p == frac)
            return 0;
    }
    if (p < end && (*p == 'Z' || *p == 'z'))
        return p + 1 == end;
    if (end - p == 6 && (*p == '+' || *p == '-') && digits(p + 1, 2, &hour) && p[3] == ':' &&
        digits(p + 4, 2, &minute))
        return hour <= 23 && minute <= 59;
    return 0;
}

static PyObject *
timestamps_(PyObject *module, PyObject *values)
{
    Py_ssize_t n, i, size;
    (void)module;
    if (!PyList_Check(values)) {
        PyErr_SetString(PyExc_TypeError, "timestamps(values) takes a list");
        return NULL;
    }
    n = PyList_GET_SIZE(values);
    for (i = 0; i < n; i++) {
        PyObject *value = PyList_GET_ITEM(values, i);
        const char *text;
        if (value == Py_None)
            continue;
        if (!PyUnicode_CheckExact(value) || !PyUnicode_IS_ASCII(value))
            return PyLong_FromSsize_t(i);
        text = PyUnicode_AsUTF8AndSize(value, &size);
        if (text == NULL)
            return NULL;
        if (!timestamp_ok((const unsigned char *)text, size))
            return PyLong_FromSsize_t(i);
    }
    return PyLong_FromLong(-1);
}

static PyMethodDef methods[] = {
    {"link", (PyCFunction)(void (*)(void))link_, METH_FASTCALL,
     "link(head, canonical) -> sha256(head + canonical), 32 bytes"},
    {"canonical", (PyCFunction)canonical_, METH_O,
     "canonical(raw) -> True when raw is already the canonical MessagePack of what it decodes to"},
    {"frames", (PyCFunction)(void (*)(void))frames_, METH_FASTCALL,
     "frames(data, start, limit) -> the next (at most limit) whole messages of a MessagePack stream"},
    {"span", (PyCFunction)(void (*)(void))span_, METH_FASTCALL,
     "span(data, start, limit) -> (count, end) of the next whole messages, their strings UTF-8"},
    {"timestamps", (PyCFunction)timestamps_, METH_O,
     "timestamps(values) -> index of the first value neither None nor a valid event timestamp, or -1"},
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
