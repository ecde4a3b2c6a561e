/* Native scanner of Kineto trace events: a JSON array of events straight into columns.
 *
 * Why: in Python, msgspec decodes each event into structs and numpy columns are then built
 * by about twenty passes over them; on 2 cores that was most of a cold analysis (issue 21).
 * This reads the chunk once, in C, and gives the same columns, codes and tables as
 * `decode.build_batch` would, byte for byte.
 *
 * It handles the common case only. Anything unusual (B/E events, a time that is not a
 * plain number, an int beyond int64, a value of an unexpected type, bytes that are not
 * UTF-8, malformed JSON, ...) makes `scan` return None and the Python path reads the chunk:
 * its results and its error messages stay the reference. So this validates what it skips as
 * strictly as msgspec does, and never guesses.
 *
 * Interning follows the Python path's order (categories, names, launch shapes, operator
 * args, collective messages, flow categories; tracks of complete, memory, flow events) so
 * that string and track codes are the same too.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/* ---------- growable arrays ---------- */

typedef struct { const char *p; uint32_t n; uint8_t set; } Str; /* set: present in JSON */

#define VEC(name, T)                                                                  \
    typedef struct { T *a; Py_ssize_t n, cap; } name;                                 \
    static int name##_push(name *v, T x) {                                            \
        if (v->n == v->cap) {                                                         \
            Py_ssize_t cap = v->cap ? v->cap * 2 : 1024;                              \
            T *a = (T *)realloc(v->a, (size_t)cap * sizeof(T));                       \
            if (!a) return -1;                                                        \
            v->a = a; v->cap = cap;                                                   \
        }                                                                             \
        v->a[v->n++] = x;                                                             \
        return 0;                                                                     \
    }

/* A pid or tid: an int or a string. */
typedef struct { int64_t i; Str s; uint8_t is_str; } Id;

/* One event as read; defaults are the Python structs' defaults. */
typedef struct {
    Str ph, cat, name;
    Id pid, tid;
    uint8_t ts_kind; /* 0 absent, 1 ns computed, 2 unusable */
    int64_t ts_ns;
    double dur;
    uint8_t id_kind; /* 0 none/null, 1 int, 2 str */
    int64_t id;
    int64_t ext_id, ext_id_lc, corr, device, stream, regs, smem;
    double bps, occ;
    Str grid, block, input_dims, input_types, concrete_inputs, call_stack;
    Str msg_nelems, msg_dtype, group_size;
    int64_t addr, nbytes, total_allocated, total_reserved, device_type, device_id;
    Str arg_name, labels;
} Ev;

VEC(EvVec, Ev)
VEC(PtrVec, char *)

/* ---------- interning ---------- */

typedef struct { uint64_t h; const char *p; uint32_t n; int32_t code; } Slot;
typedef struct { Slot *slots; Py_ssize_t cap, used; } Table;

/* A key of the shared string table: a decoded string (str) or a raw JSON text (bytes). */
typedef struct { const char *p; uint32_t n; uint8_t raw; } Key;
VEC(KeyVec, Key)
/* A track: its (pid, tid) as typed values. */
typedef struct { Id pid, tid; } Track;
VEC(TrackVec, Track)

static inline uint64_t mix(uint64_t h, uint64_t w) {
    h = (h ^ w) * 0x100000001B3ULL;
    return h ^ (h >> 29);
}

/* A hash of a key from its length and at most 64 of its bytes (its head, middle and
 * tail): keys are compared in full on a match, so this only spreads them, and names of
 * kernels are long. */
static uint64_t hash_bytes(const char *p, uint32_t n, uint64_t seed) {
    uint64_t h = seed ^ ((uint64_t)n * 0x9E3779B97F4A7C15ULL), w;
    if (n <= 64) {
        while (n >= 8) {
            memcpy(&w, p, 8);
            h = mix(h, w);
            p += 8;
            n -= 8;
        }
        w = 0;
        memcpy(&w, p, n);
        h = mix(h, w);
    } else {
        const char *at[8] = {p, p + 8, p + 16, p + n / 2 - 8, p + n / 2, p + n - 24,
                             p + n - 16, p + n - 8};
        for (int i = 0; i < 8; i++) {
            memcpy(&w, at[i], 8);
            h = mix(h, w);
        }
    }
    h ^= h >> 32;
    return h * 0x9E3779B97F4A7C15ULL;
}

static int table_grow(Table *t) {
    Py_ssize_t cap = t->cap ? t->cap * 2 : 1024;
    Slot *slots = (Slot *)malloc((size_t)cap * sizeof(Slot));
    if (!slots) return -1;
    for (Py_ssize_t i = 0; i < cap; i++) slots[i].code = -1;
    for (Py_ssize_t i = 0; i < t->cap; i++) {
        Slot s = t->slots[i];
        if (s.code < 0) continue;
        Py_ssize_t j = (Py_ssize_t)(s.h & (uint64_t)(cap - 1));
        while (slots[j].code >= 0) j = (j + 1) & (cap - 1);
        slots[j] = s;
    }
    free(t->slots);
    t->slots = slots;
    t->cap = cap;
    return 0;
}

/* The slot of key (p, n) in t, or the empty slot where it belongs (code -1). */
static Slot *table_find(Table *t, const char *p, uint32_t n, uint64_t h) {
    Py_ssize_t j = (Py_ssize_t)(h & (uint64_t)(t->cap - 1));
    for (;;) {
        Slot *s = &t->slots[j];
        if (s->code < 0) return s;
        if (s->h == h && s->n == n && memcmp(s->p, p, n) == 0) return s;
        j = (j + 1) & (t->cap - 1);
    }
}

typedef struct {
    Table str_table, raw_table, track_table;
    KeyVec keys;
    TrackVec tracks;
    PtrVec owned; /* memory to free at the end: decoded escapes, composed keys */
    PyObject *kind_fn;
    uint8_t *kind_of_code; /* kind of each string code (only categories of complete events) */
    Py_ssize_t kind_cap;
    int32_t empty_code[2]; /* codes of "" and b"" once interned, else -1 */
} Interner;

static char *own(Interner *in, size_t n) {
    char *p = (char *)malloc(n ? n : 1);
    if (!p) return NULL;
    if (PtrVec_push(&in->owned, p) < 0) { free(p); return NULL; }
    return p;
}

/* Code of a string (raw = 0) or raw text (raw = 1); -2 on error. `copy`: the key's bytes
 * are not in the chunk or an owned buffer and must be copied when new. */
static int32_t intern_key(Interner *in, const char *p, uint32_t n, uint8_t raw, int copy) {
    Table *t = raw ? &in->raw_table : &in->str_table;
    if (n == 0 && in->empty_code[raw] >= 0) return in->empty_code[raw]; /* absent texts */
    if (t->used * 2 >= t->cap && table_grow(t) < 0) return -2;
    uint64_t h = hash_bytes(p, n, raw ? 0x51ED27 : 0x2545F491);
    if (h == 0) h = 1;
    Slot *s = table_find(t, p, n, h);
    if (s->code >= 0) return s->code;
    if (copy) {
        char *q = own(in, n);
        if (!q) return -2;
        memcpy(q, p, n);
        p = q;
    }
    Key k = {p, n, raw};
    int32_t code = (int32_t)in->keys.n;
    if (KeyVec_push(&in->keys, k) < 0) return -2;
    s->h = h; s->p = p; s->n = n; s->code = code;
    t->used++;
    if (n == 0) in->empty_code[raw] = code;
    return code;
}

static int put_id(char *buf, size_t *at, const Id *id) {
    buf[(*at)++] = (char)id->is_str;
    if (id->is_str) {
        memcpy(buf + *at, &id->s.n, 4);
        *at += 4;
        memcpy(buf + *at, id->s.p, id->s.n);
        *at += id->s.n;
    } else {
        memcpy(buf + *at, &id->i, 8);
        *at += 8;
    }
    return 0;
}

static int32_t intern_track(Interner *in, const Id *pid, const Id *tid) {
    Table *t = &in->track_table;
    if (t->used * 2 >= t->cap && table_grow(t) < 0) return -2;
    size_t need = 26 + (pid->is_str ? pid->s.n : 0) + (tid->is_str ? tid->s.n : 0);
    char small[256];
    char *buf = need <= sizeof(small) ? small : (char *)malloc(need);
    if (!buf) return -2;
    size_t n = 0;
    put_id(buf, &n, pid);
    put_id(buf, &n, tid);
    uint64_t h = hash_bytes(buf, (uint32_t)n, 0x7E4C1);
    if (h == 0) h = 1;
    Slot *s = table_find(t, buf, (uint32_t)n, h);
    int32_t code = s->code;
    if (code < 0) {
        char *q = own(in, n);
        Track tr = {*pid, *tid};
        code = (int32_t)in->tracks.n;
        if (!q || TrackVec_push(&in->tracks, tr) < 0) code = -2;
        else {
            memcpy(q, buf, n);
            s->h = h; s->p = q; s->n = (uint32_t)n; s->code = code;
            t->used++;
        }
    }
    if (buf != small) free(buf);
    return code;
}

/* ---------- JSON ---------- */

typedef struct {
    const char *p, *end;
    Interner *in;
} P;

#define WS(c) ((c) == ' ' || (c) == '\n' || (c) == '\r' || (c) == '\t')
static inline void ws(P *s) { while (s->p < s->end && WS(*s->p)) s->p++; }

/* Length of the valid UTF-8 sequence at p (Python's strict rules), 0 if invalid. */
static int utf8_len(const unsigned char *p, const unsigned char *end) {
    unsigned c = p[0];
    if (c < 0xC2) return 0;
    if (c < 0xE0) return (end - p >= 2 && (p[1] & 0xC0) == 0x80) ? 2 : 0;
    if (c < 0xF0) {
        if (end - p < 3 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80) return 0;
        if (c == 0xE0 && p[1] < 0xA0) return 0; /* overlong */
        if (c == 0xED && p[1] >= 0xA0) return 0; /* surrogate */
        return 3;
    }
    if (c < 0xF5) {
        if (end - p < 4 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80 ||
            (p[3] & 0xC0) != 0x80)
            return 0;
        if (c == 0xF0 && p[1] < 0x90) return 0;
        if (c == 0xF4 && p[1] >= 0x90) return 0;
        return 4;
    }
    return 0;
}

static int hex4(const char *p, unsigned *out) {
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
        else return -1;
    }
    *out = v;
    return 0;
}

/* A string at s->p ('"'). `out` (if not NULL) gets its decoded UTF-8 value: a slice of the
 * chunk, or an owned copy when it has escapes. -1: not a string we accept. */
static int string(P *s, Str *out) {
    const char *p = s->p + 1, *end = s->end, *start = p;
    int escaped = 0;
    for (;;) {
        /* Eight plain ASCII bytes at a time: none is '"', '\\', a control or non-ASCII. */
        while (end - p >= 8) {
            uint64_t w;
            memcpy(&w, p, 8);
            const uint64_t ones = 0x0101010101010101ULL, high = 0x8080808080808080ULL;
            uint64_t quote = w ^ (ones * '"'), slash = w ^ (ones * '\\');
            uint64_t special = ((quote - ones) & ~quote) | ((slash - ones) & ~slash) |
                               (w - ones * 0x20) | w;
            if (special & high) break;
            p += 8;
        }
        if (p >= end) return -1;
        unsigned char c = (unsigned char)*p;
        if (c == '"') break;
        if (c == '\\') {
            escaped = 1;
            if (p + 1 >= end) return -1;
            char e = p[1];
            if (e == 'u') {
                unsigned u;
                if (end - p < 6 || hex4(p + 2, &u) < 0) return -1;
                if (u >= 0xD800 && u <= 0xDFFF) return -1; /* surrogates: Python path */
                p += 6;
            } else if (strchr("\"\\/bfnrt", e) && e) {
                p += 2;
            } else {
                return -1;
            }
            continue;
        }
        if (c < 0x20) return -1;
        if (c < 0x80) { p++; continue; }
        int k = utf8_len((const unsigned char *)p, (const unsigned char *)end);
        if (!k) return -1;
        p += k;
    }
    s->p = p + 1;
    if (!out) return 0;
    out->set = 1;
    if (!escaped) {
        out->p = start;
        out->n = (uint32_t)(p - start);
        return 0;
    }
    char *q = own(s->in, (size_t)(p - start));
    if (!q) return -1;
    size_t n = 0;
    for (const char *r = start; r < p;) {
        if (*r != '\\') { q[n++] = *r++; continue; }
        char e = r[1];
        if (e == 'u') {
            unsigned u;
            hex4(r + 2, &u);
            r += 6;
            if (u < 0x80) q[n++] = (char)u;
            else if (u < 0x800) { q[n++] = (char)(0xC0 | (u >> 6)); q[n++] = (char)(0x80 | (u & 0x3F)); }
            else {
                q[n++] = (char)(0xE0 | (u >> 12));
                q[n++] = (char)(0x80 | ((u >> 6) & 0x3F));
                q[n++] = (char)(0x80 | (u & 0x3F));
            }
            continue;
        }
        r += 2;
        switch (e) {
            case 'b': q[n++] = '\b'; break;
            case 'f': q[n++] = '\f'; break;
            case 'n': q[n++] = '\n'; break;
            case 'r': q[n++] = '\r'; break;
            case 't': q[n++] = '\t'; break;
            default: q[n++] = e;
        }
    }
    out->p = q;
    out->n = (uint32_t)n;
    return 0;
}

/* A JSON number at s->p. */
typedef struct {
    const char *start;
    uint32_t len;
    uint8_t is_int, neg, fits; /* fits: an integer within int64 */
    int64_t value;             /* is_int && fits */
} Num;

static inline int is_digit(char c) { return c >= '0' && c <= '9'; }

static int number(P *s, Num *out) {
    const char *p = s->p, *end = s->end;
    out->start = p;
    out->neg = 0;
    out->is_int = 1;
    out->fits = 1;
    if (p < end && *p == '-') { out->neg = 1; p++; }
    if (p >= end || !is_digit(*p)) return -1;
    uint64_t mag = 0;
    if (*p == '0') {
        p++;
    } else {
        while (p < end && is_digit(*p)) {
            unsigned d = (unsigned)(*p - '0');
            if (mag > (UINT64_MAX - d) / 10) out->fits = 0;
            else mag = mag * 10 + d;
            p++;
        }
    }
    if (p < end && *p == '.') {
        out->is_int = 0;
        p++;
        if (p >= end || !is_digit(*p)) return -1;
        while (p < end && is_digit(*p)) p++;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        out->is_int = 0;
        p++;
        if (p < end && (*p == '+' || *p == '-')) p++;
        if (p >= end || !is_digit(*p)) return -1;
        while (p < end && is_digit(*p)) p++;
    }
    out->len = (uint32_t)(p - out->start);
    if (out->is_int && out->fits) {
        if (out->neg ? mag > (uint64_t)INT64_MAX + 1 : mag > (uint64_t)INT64_MAX) out->fits = 0;
        else out->value = out->neg ? (int64_t)(0 - mag) : (int64_t)mag;
    }
    s->p = p;
    return 0;
}

static const double POW10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
                               1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* The correctly rounded double of a JSON number; -1 when it is out of range (msgspec
 * refuses those). Short decimals take Clinger's exact fast path, others Python's own
 * (locale-independent, correctly rounded) parser. */
static int to_double(const Num *num, double *out) {
    const char *p = num->start, *end = p + num->len;
    int neg = 0;
    if (*p == '-') { neg = 1; p++; }
    uint64_t m = 0;
    int digits = 0, frac = 0, plain = 1, seen_dot = 0;
    for (; p < end; p++) {
        if (*p == '.') { seen_dot = 1; continue; }
        if (!is_digit(*p)) { plain = 0; break; }
        if (m == 0 && *p == '0' && !seen_dot) continue;
        if (m || *p != '0') digits++;
        m = m * 10 + (uint64_t)(*p - '0');
        if (seen_dot) frac++;
        if (digits > 15) { plain = 0; break; }
    }
    if (plain && frac <= 22) {
        double v = (double)m / POW10[frac];
        *out = neg ? -v : v;
        return 0;
    }
    char buf[64];
    if (num->len >= sizeof(buf)) return -1;
    memcpy(buf, num->start, num->len);
    buf[num->len] = 0;
    double v = PyOS_string_to_double(buf, NULL, NULL);
    if (v == -1.0 && PyErr_Occurred()) { PyErr_Clear(); return -1; }
    if (isinf(v)) return -1;
    *out = v;
    return 0;
}

/* Microseconds written as a JSON float literal to ns, as `numbers.us_text_to_ns_where`
 * does for plain decimals: 3 decimals, the 4th rounding half up; -1 for anything that is
 * not such a decimal (the Python path then judges it). */
static int float_us_to_ns(const Num *num, int64_t *out) {
    const char *p = num->start, *end = p + num->len;
    if (num->neg || num->len >= 24) return -1;
    int64_t whole = 0;
    int int_digits = 0;
    while (p < end && is_digit(*p)) { whole = whole * 10 + (*p - '0'); int_digits++; p++; if (int_digits > 16) return -1; }
    if (p >= end || *p != '.') return -1; /* an exponent */
    p++;
    int64_t frac = 0;
    int k = 0;
    for (; p < end && is_digit(*p) && k < 3; p++, k++) frac = frac * 10 + (*p - '0');
    for (int j = k; j < 3; j++) frac *= 10;
    if (p < end && is_digit(*p)) { if (*p >= '5') frac += 1; p++; }
    while (p < end && is_digit(*p)) p++;
    if (p != end) return -1;
    if (whole > (INT64_MAX / 1000) - 1) return -1;
    *out = whole * 1000 + frac;
    return 0;
}

static int value(P *s, int depth);

static int literal(P *s, const char *word, size_t n) {
    if ((size_t)(s->end - s->p) < n || memcmp(s->p, word, n) != 0) return -1;
    s->p += n;
    return 0;
}

static int container(P *s, int depth, char close, int keyed) {
    if (depth > 256) return -1;
    s->p++;
    ws(s);
    if (s->p < s->end && *s->p == close) { s->p++; return 0; }
    for (;;) {
        if (keyed) {
            if (s->p >= s->end || *s->p != '"' || string(s, NULL) < 0) return -1;
            ws(s);
            if (s->p >= s->end || *s->p != ':') return -1;
            s->p++;
            ws(s);
        }
        if (value(s, depth + 1) < 0) return -1;
        ws(s);
        if (s->p >= s->end) return -1;
        if (*s->p == ',') { s->p++; ws(s); continue; }
        if (*s->p == close) { s->p++; return 0; }
        return -1;
    }
}

/* Skip one JSON value, validating it. */
static int value(P *s, int depth) {
    if (s->p >= s->end) return -1;
    switch (*s->p) {
        case '"': return string(s, NULL);
        case '{': return container(s, depth, '}', 1);
        case '[': return container(s, depth, ']', 0);
        case 't': return literal(s, "true", 4);
        case 'f': return literal(s, "false", 5);
        case 'n': return literal(s, "null", 4);
        default: {
            Num num;
            return number(s, &num);
        }
    }
}

static int raw(P *s, Str *out) {
    const char *start = s->p;
    if (value(s, 1) < 0) return -1;
    out->p = start;
    out->n = (uint32_t)(s->p - start);
    out->set = 1;
    return 0;
}

static int int_field(P *s, int64_t *out) {
    Num num;
    if (s->p >= s->end || (*s->p != '-' && !is_digit(*s->p))) return -1;
    if (number(s, &num) < 0 || !num.is_int || !num.fits) return -1;
    *out = num.value;
    return 0;
}

static int float_field(P *s, double *out) {
    Num num;
    if (s->p >= s->end || (*s->p != '-' && !is_digit(*s->p))) return -1;
    if (number(s, &num) < 0) return -1;
    if (num.is_int && num.fits) { /* msgspec reads an integer as int, then as float */
        *out = (double)num.value;
        return 0;
    }
    return to_double(&num, out);
}

static int str_field(P *s, Str *out) {
    if (s->p >= s->end || *s->p != '"') return -1;
    return string(s, out);
}

static int id_field(P *s, Id *out) {
    if (s->p < s->end && *s->p == '"') { out->is_str = 1; return string(s, &out->s); }
    out->is_str = 0;
    return int_field(s, &out->i);
}

#define KEY(lit) (k.n == sizeof(lit) - 1 && memcmp(k.p, lit, sizeof(lit) - 1) == 0)

/* `int(text, 0)` for the stream strings AMD writes ("0x0") and decimals; -1 otherwise. */
static int stream_text(Str t, int64_t *out) {
    const char *p = t.p, *end = t.p + t.n;
    int neg = 0;
    if (p < end && *p == '-') { neg = 1; p++; }
    if (p >= end) return -1;
    uint64_t v = 0;
    if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        p += 2;
        for (; p < end; p++) {
            unsigned d;
            char c = *p;
            if (is_digit(c)) d = (unsigned)(c - '0');
            else if (c >= 'a' && c <= 'f') d = (unsigned)(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F') d = (unsigned)(c - 'A' + 10);
            else return -1;
            if (v >> 59) return -1;
            v = v * 16 + d;
        }
    } else {
        if (*p == '0' && end - p > 1) return -1; /* int("07", 0) is an error */
        for (; p < end; p++) {
            if (!is_digit(*p) || v > ((uint64_t)INT64_MAX - 9) / 10) return -1;
            v = v * 10 + (uint64_t)(*p - '0');
        }
    }
    *out = neg ? -(int64_t)v : (int64_t)v;
    return 0;
}

/* as_int of an int: ids below -1 keep their low 63 bits. */
static inline int64_t as_int(int64_t v) { return v < -1 ? (int64_t)((uint64_t)v & (uint64_t)INT64_MAX) : v; }

typedef int (*Member)(P *s, Str k, Ev *e);

/* The members of an object at s->p: each value is handed to `member` with its key. */
static int object(P *s, Member member, Ev *e) {
    if (s->p >= s->end || *s->p != '{') return -1;
    s->p++;
    ws(s);
    if (s->p < s->end && *s->p == '}') { s->p++; return 0; }
    for (;;) {
        Str k = {0};
        if (str_field(s, &k) < 0) return -1;
        ws(s);
        if (s->p >= s->end || *s->p != ':') return -1;
        s->p++;
        ws(s);
        if (member(s, k, e) < 0) return -1;
        ws(s);
        if (s->p >= s->end) return -1;
        if (*s->p == ',') { s->p++; ws(s); continue; }
        if (*s->p == '}') { s->p++; return 0; }
        return -1;
    }
}

/* One member of `args`. */
static int arg_member(P *s, Str k, Ev *e) {
    int r;
    if (KEY("External id")) r = int_field(s, &e->ext_id);
    else if (KEY("external id")) r = int_field(s, &e->ext_id_lc);
    else if (KEY("correlation")) r = int_field(s, &e->corr);
    else if (KEY("device")) r = int_field(s, &e->device);
    else if (KEY("stream")) {
        if (s->p < s->end && *s->p == '"') {
            Str t = {0};
            r = string(s, &t);
            if (r == 0) r = stream_text(t, &e->stream);
        } else {
            r = int_field(s, &e->stream);
        }
        if (r == 0) e->stream = as_int(e->stream);
    }
    else if (KEY("grid")) r = raw(s, &e->grid);
    else if (KEY("block")) r = raw(s, &e->block);
    else if (KEY("registers per thread")) r = int_field(s, &e->regs);
    else if (KEY("shared memory")) r = int_field(s, &e->smem);
    else if (KEY("blocks per SM")) r = float_field(s, &e->bps);
    else if (KEY("est. achieved occupancy %")) r = float_field(s, &e->occ);
    else if (KEY("Input Dims")) r = raw(s, &e->input_dims);
    else if (KEY("Input type")) r = raw(s, &e->input_types);
    else if (KEY("Concrete Inputs")) r = raw(s, &e->concrete_inputs);
    else if (KEY("Call stack")) r = raw(s, &e->call_stack);
    else if (KEY("In msg nelems")) r = raw(s, &e->msg_nelems);
    else if (KEY("dtype")) r = raw(s, &e->msg_dtype);
    else if (KEY("Group size")) r = raw(s, &e->group_size);
    else if (KEY("Addr")) r = int_field(s, &e->addr);
    else if (KEY("Bytes")) r = int_field(s, &e->nbytes);
    else if (KEY("Total Allocated")) r = int_field(s, &e->total_allocated);
    else if (KEY("Total Reserved")) r = int_field(s, &e->total_reserved);
    else if (KEY("Device Type")) r = int_field(s, &e->device_type);
    else if (KEY("Device Id")) r = int_field(s, &e->device_id);
    else if (KEY("name")) r = str_field(s, &e->arg_name);
    else if (KEY("labels")) r = str_field(s, &e->labels);
    else r = value(s, 2);
    return r;
}

static const Ev EV_DEFAULT = {
    .ts_kind = 0, .dur = NAN, .ext_id = -1, .ext_id_lc = -1, .corr = -1, .device = -1,
    .stream = -1, .regs = -1, .smem = -1, .bps = NAN, .occ = NAN, .addr = -1, .nbytes = 0,
    .total_allocated = -1, .total_reserved = -1, .device_type = -1, .device_id = -1,
};

/* A repeated "args" replaces the whole object, as msgspec does. */
static void reset_args(Ev *e) {
    Ev d = EV_DEFAULT;
    d.ph = e->ph; d.cat = e->cat; d.name = e->name; d.pid = e->pid; d.tid = e->tid;
    d.ts_kind = e->ts_kind; d.ts_ns = e->ts_ns; d.dur = e->dur; d.id_kind = e->id_kind;
    d.id = e->id;
    *e = d;
}

/* One member of an event. */
static int event_member(P *s, Str k, Ev *e) {
    int r;
    if (KEY("ph")) r = str_field(s, &e->ph);
    else if (KEY("cat")) r = str_field(s, &e->cat);
    else if (KEY("name")) r = str_field(s, &e->name);
    else if (KEY("pid")) r = id_field(s, &e->pid);
    else if (KEY("tid")) r = id_field(s, &e->tid);
    else if (KEY("ts")) {
        Num num;
        r = -1;
        if (s->p < s->end && (*s->p == '-' || is_digit(*s->p)) && number(s, &num) == 0) {
            r = 0;
            e->ts_kind = 2;
            if (num.is_int) {
                if (num.fits && num.value >= 0 && num.value <= (INT64_C(1) << 62) / 1000) {
                    e->ts_ns = num.value * 1000;
                    e->ts_kind = 1;
                }
            } else if (float_us_to_ns(&num, &e->ts_ns) == 0 &&
                       e->ts_ns <= (INT64_C(1) << 62)) {
                e->ts_kind = 1;
            }
        }
    }
    else if (KEY("dur")) r = float_field(s, &e->dur);
    else if (KEY("id")) {
        if (s->p < s->end && *s->p == 'n') { r = literal(s, "null", 4); e->id_kind = 0; }
        else if (s->p < s->end && *s->p == '"') {
            Str t = {0};
            r = string(s, &t);
            e->id_kind = 2;
        } else { r = int_field(s, &e->id); e->id_kind = 1; }
    }
    else if (KEY("args")) { reset_args(e); r = object(s, arg_member, e); }
    else r = value(s, 1);
    return r;
}

static int event(P *s, Ev *e) {
    *e = EV_DEFAULT;
    return object(s, event_member, e);
}

/* ---------- columns ---------- */

static PyObject *column(Py_ssize_t n, size_t size, void **data) {
    PyObject *b = PyByteArray_FromStringAndSize(NULL, n * (Py_ssize_t)size);
    if (b) *data = PyByteArray_AS_STRING(b);
    return b;
}

/* Put `obj` into dict `d` under `key`, stealing the reference; -1 on error. */
static int put(PyObject *d, const char *key, PyObject *obj) {
    if (!obj) return -1;
    int r = PyDict_SetItemString(d, key, obj);
    Py_DECREF(obj);
    return r;
}

static int is(Str t, const char *lit) {
    size_t n = strlen(lit);
    return t.n == n && memcmp(t.p, lit, n) == 0;
}

static const char *KNOWN_PHASES = "BEXiICbneSTpFstfPONDMVvRc()";

static PyObject *id_text(const Id *id) {
    if (id->is_str) return PyUnicode_DecodeUTF8(id->s.p, id->s.n, "strict");
    return PyUnicode_FromFormat("%lld", (long long)id->i);
}

static PyObject *id_object(const Id *id) {
    if (id->is_str) return PyUnicode_DecodeUTF8(id->s.p, id->s.n, "strict");
    return PyLong_FromLongLong(id->i);
}

static PyObject *str_of(Str t) { return PyUnicode_DecodeUTF8(t.p, t.n, "strict"); }

/* Codes of the `which` raw text of the rows of `evs` where `rows` is set (-1 elsewhere
 * and for absent texts, which are interned as b"" as the Python path does). */
typedef Str (*RawOf)(const Ev *);
#define RAW_OF(f) static Str raw_##f(const Ev *e) { return e->f; }
RAW_OF(grid) RAW_OF(block) RAW_OF(input_dims) RAW_OF(input_types) RAW_OF(concrete_inputs)
RAW_OF(call_stack)

static PyObject *raw_codes(Interner *in, const EvVec *evs, const uint8_t *rows, RawOf of) {
    int32_t *out;
    PyObject *col = column(evs->n, 4, (void **)&out);
    if (!col) return NULL;
    for (Py_ssize_t i = 0; i < evs->n; i++) {
        out[i] = -1;
        if (!rows[i]) continue;
        Str t = of(&evs->a[i]);
        int32_t c = intern_key(in, t.set ? t.p : "", t.set ? t.n : 0, 1, 0);
        if (c == -2) { Py_DECREF(col); return PyErr_NoMemory(); }
        if (t.set && t.n) out[i] = c;
    }
    return col;
}

static PyObject *track_codes(Interner *in, const EvVec *evs) {
    int32_t *out;
    PyObject *col = column(evs->n, 4, (void **)&out);
    if (!col) return NULL;
    for (Py_ssize_t i = 0; i < evs->n; i++) {
        out[i] = intern_track(in, &evs->a[i].pid, &evs->a[i].tid);
        if (out[i] == -2) { Py_DECREF(col); return PyErr_NoMemory(); }
    }
    return col;
}

/* A column of one value per event: `expr` of each `e`. */
#define COLUMN(fn, T, expr)                                              \
    static PyObject *fn(const EvVec *evs) {                              \
        T *out;                                                          \
        PyObject *col = column(evs->n, sizeof(T), (void **)&out);        \
        if (col)                                                         \
            for (Py_ssize_t i = 0; i < evs->n; i++) {                    \
                const Ev *e = &evs->a[i];                                \
                out[i] = (expr);                                         \
            }                                                            \
        return col;                                                      \
    }
COLUMN(ts_column, int64_t, e->ts_ns)
COLUMN(col_ext_id, int64_t, e->ext_id >= 0 ? e->ext_id : e->ext_id_lc)
COLUMN(col_corr, int64_t, e->corr)
COLUMN(col_device, int64_t, e->device)
COLUMN(col_stream, int64_t, e->stream)
COLUMN(col_regs, int64_t, e->regs)
COLUMN(col_smem, int64_t, e->smem)
COLUMN(col_addr, int64_t, e->addr)
COLUMN(col_nbytes, int64_t, e->nbytes)
COLUMN(col_total_allocated, int64_t, e->total_allocated)
COLUMN(col_total_reserved, int64_t, e->total_reserved)
COLUMN(col_device_type, int64_t, e->device_type)
COLUMN(col_device_id, int64_t, e->device_id)
COLUMN(col_flow_id, int64_t, e->id_kind == 1 ? e->id : -1)
COLUMN(col_dur, double, e->dur)
COLUMN(col_bps, double, e->bps)
COLUMN(col_occ, double, e->occ)

/* `[nelems, dtype, group size]` codes of the events with a collective's message size. */
static PyObject *comm_codes(Interner *in, const EvVec *evs) {
    int32_t *out;
    PyObject *col = column(evs->n, 4, (void **)&out);
    if (!col) return NULL;
    for (Py_ssize_t i = 0; i < evs->n; i++) {
        const Ev *e = &evs->a[i];
        out[i] = -1;
        if (!e->msg_nelems.set || !e->msg_nelems.n) continue;
        Str d = e->msg_dtype.set && e->msg_dtype.n ? e->msg_dtype : (Str){"null", 4, 1};
        Str g = e->group_size.set && e->group_size.n ? e->group_size : (Str){"null", 4, 1};
        size_t n = 4 + e->msg_nelems.n + d.n + g.n;
        char *buf = (char *)malloc(n);
        if (!buf) { Py_DECREF(col); return PyErr_NoMemory(); }
        size_t at = 0;
        buf[at++] = '[';
        memcpy(buf + at, e->msg_nelems.p, e->msg_nelems.n); at += e->msg_nelems.n;
        buf[at++] = ',';
        memcpy(buf + at, d.p, d.n); at += d.n;
        buf[at++] = ',';
        memcpy(buf + at, g.p, g.n); at += g.n;
        buf[at++] = ']';
        out[i] = intern_key(in, buf, (uint32_t)at, 1, 1);
        free(buf);
        if (out[i] == -2) { Py_DECREF(col); return PyErr_NoMemory(); }
    }
    return col;
}

/* Codes of a string field; for categories of complete events (`kinds` not NULL) each new
 * code's kind comes from in->kind_fn and the event's kind is written to kinds. */
static PyObject *str_codes(Interner *in, const EvVec *evs, int which, uint8_t *kinds) {
    int32_t *out;
    PyObject *col = column(evs->n, 4, (void **)&out);
    if (!col) return NULL;
    for (Py_ssize_t i = 0; i < evs->n; i++) {
        Str t = which ? evs->a[i].name : evs->a[i].cat;
        int32_t c = intern_key(in, t.set ? t.p : "", t.set ? t.n : 0, 0, 0);
        if (c == -2) { Py_DECREF(col); return PyErr_NoMemory(); }
        out[i] = c;
        if (!kinds) continue;
        if (c >= in->kind_cap) {
            Py_ssize_t cap = in->kind_cap ? in->kind_cap * 2 : 64;
            while (cap <= c) cap *= 2;
            uint8_t *k = (uint8_t *)realloc(in->kind_of_code, (size_t)cap);
            if (!k) { Py_DECREF(col); return PyErr_NoMemory(); }
            memset(k + in->kind_cap, 0xFF, (size_t)(cap - in->kind_cap));
            in->kind_of_code = k;
            in->kind_cap = cap;
        }
        if (in->kind_of_code[c] == 0xFF) {
            PyObject *name = PyUnicode_DecodeUTF8(t.set ? t.p : "", t.set ? t.n : 0, "strict");
            PyObject *kind = name ? PyObject_CallOneArg(in->kind_fn, name) : NULL;
            Py_XDECREF(name);
            long v = kind ? PyLong_AsLong(kind) : -1;
            Py_XDECREF(kind);
            if (v < 0 || v > 254) {
                if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "kind out of range");
                Py_DECREF(col);
                return NULL;
            }
            in->kind_of_code[c] = (uint8_t)v;
        }
        kinds[i] = in->kind_of_code[c];
    }
    return col;
}

typedef struct {
    EvVec complete, memory, flows;
    uint8_t *instant; Py_ssize_t instant_cap;
} Tables;

static void free_all(Interner *in, Tables *t) {
    free(in->str_table.slots); free(in->raw_table.slots); free(in->track_table.slots);
    free(in->keys.a); free(in->tracks.a); free(in->kind_of_code);
    for (Py_ssize_t i = 0; i < in->owned.n; i++) free(in->owned.a[i]);
    free(in->owned.a);
    free(t->complete.a); free(t->memory.a); free(t->flows.a); free(t->instant);
}

static PyObject *complete_columns(Interner *in, Tables *t, const uint8_t *device_mask,
                                  const uint8_t *op_mask, int instant_kind) {
    EvVec *c = &t->complete;
    Py_ssize_t n = c->n;
    PyObject *d = PyDict_New();
    uint8_t *dev = (uint8_t *)calloc((size_t)n + 1, 1), *op = (uint8_t *)calloc((size_t)n + 1, 1);
    if (!d || !dev || !op) goto fail;
    uint8_t *kinds;
    PyObject *kind_col = column(n, 1, (void **)&kinds);
    if (!kind_col) goto fail;
    PyObject *cat = str_codes(in, c, 0, kinds);
    if (put(d, "cat", cat) < 0) { Py_DECREF(kind_col); goto fail; }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (t->instant[i]) kinds[i] = (uint8_t)instant_kind;
        dev[i] = device_mask[kinds[i]];
        op[i] = op_mask[kinds[i]];
    }
    uint8_t *instant;
    PyObject *instant_col = column(n, 1, (void **)&instant);
    if (instant_col && n) memcpy(instant, t->instant, (size_t)n);
    if (put(d, "instant", instant_col) < 0) { Py_DECREF(kind_col); goto fail; }
    if (put(d, "kind", kind_col) < 0 || put(d, "name", str_codes(in, c, 1, NULL)) < 0 ||
        put(d, "start_ns", ts_column(c)) < 0 || put(d, "dur", col_dur(c)) < 0 ||
        put(d, "ext_id", col_ext_id(c)) < 0 || put(d, "corr", col_corr(c)) < 0 ||
        put(d, "device", col_device(c)) < 0 || put(d, "stream", col_stream(c)) < 0 ||
        put(d, "regs", col_regs(c)) < 0 || put(d, "smem", col_smem(c)) < 0 ||
        put(d, "blocks_per_sm", col_bps(c)) < 0 || put(d, "occupancy", col_occ(c)) < 0 ||
        put(d, "grid", raw_codes(in, c, dev, raw_grid)) < 0 ||
        put(d, "block", raw_codes(in, c, dev, raw_block)) < 0 ||
        put(d, "input_dims", raw_codes(in, c, op, raw_input_dims)) < 0 ||
        put(d, "input_types", raw_codes(in, c, op, raw_input_types)) < 0 ||
        put(d, "concrete_inputs", raw_codes(in, c, op, raw_concrete_inputs)) < 0 ||
        put(d, "call_stack", raw_codes(in, c, op, raw_call_stack)) < 0 ||
        put(d, "comm_msg", comm_codes(in, c)) < 0 || put(d, "track", track_codes(in, c)) < 0)
        goto fail;
    free(dev); free(op);
    return d;
fail:
    free(dev); free(op);
    Py_XDECREF(d);
    return NULL;
}

/* Tracks are interned complete, memory, flows; the Python path does so too. Returned
 * separately so the caller can order the dicts; strings: cat/name of complete, then raw,
 * then flow categories (done by the callers in that order). */
static PyObject *memory_columns(Interner *in, EvVec *m) {
    PyObject *d = PyDict_New();
    if (!d) return NULL;
    if (put(d, "ts_ns", ts_column(m)) < 0 || put(d, "track", track_codes(in, m)) < 0 ||
        put(d, "addr", col_addr(m)) < 0 || put(d, "bytes", col_nbytes(m)) < 0 ||
        put(d, "total_allocated", col_total_allocated(m)) < 0 ||
        put(d, "total_reserved", col_total_reserved(m)) < 0 ||
        put(d, "device_type", col_device_type(m)) < 0 ||
        put(d, "device_id", col_device_id(m)) < 0) {
        Py_DECREF(d);
        return NULL;
    }
    return d;
}

static PyObject *flow_columns(Interner *in, EvVec *f) {
    PyObject *d = PyDict_New();
    if (!d) return NULL;
    uint8_t *phase;
    PyObject *ph = column(f->n, 1, (void **)&phase);
    if (ph)
        for (Py_ssize_t i = 0; i < f->n; i++) phase[i] = (uint8_t)f->a[i].ph.p[0];
    if (put(d, "ts_ns", ts_column(f)) < 0 || put(d, "track", track_codes(in, f)) < 0 ||
        put(d, "flow_id", col_flow_id(f)) < 0 || put(d, "phase", ph) < 0 ||
        put(d, "cat", str_codes(in, f, 0, NULL)) < 0) {
        Py_DECREF(d);
        return NULL;
    }
    return d;
}

static PyObject *keys_list(Interner *in) {
    PyObject *l = PyList_New(in->keys.n);
    for (Py_ssize_t i = 0; l && i < in->keys.n; i++) {
        Key k = in->keys.a[i];
        PyObject *o = k.raw ? PyBytes_FromStringAndSize(k.p, k.n)
                            : PyUnicode_DecodeUTF8(k.p, k.n, "strict");
        if (!o) { Py_DECREF(l); return NULL; }
        PyList_SET_ITEM(l, i, o);
    }
    return l;
}

static PyObject *tracks_list(Interner *in) {
    PyObject *l = PyList_New(in->tracks.n);
    for (Py_ssize_t i = 0; l && i < in->tracks.n; i++) {
        PyObject *t = Py_BuildValue("(NN)", id_object(&in->tracks.a[i].pid),
                                    id_object(&in->tracks.a[i].tid));
        if (!t) { Py_DECREF(l); return NULL; }
        PyList_SET_ITEM(l, i, t);
    }
    return l;
}

/* Sort the events into tables; 1 when the chunk needs the Python path, -1 on error. */
static int read_events(P *s, Tables *t, PyObject *metadata, Py_ssize_t *count,
                       Py_ssize_t *unknown) {
    ws(s);
    if (s->p >= s->end || *s->p != '[') return 1;
    s->p++;
    ws(s);
    if (s->p < s->end && *s->p == ']') { s->p++; goto end; }
    for (;;) {
        /* Parsed in place at the end of the complete events (most events are), so that
         * it is copied only when it belongs elsewhere. */
        if (t->complete.n == t->complete.cap) {
            if (EvVec_push(&t->complete, EV_DEFAULT) < 0) { PyErr_NoMemory(); return -1; }
            t->complete.n--;
        }
        Ev *e = &t->complete.a[t->complete.n];
        if (event(s, e) < 0) return 1;
        (*count)++;
        Str ph = e->ph;
        if (is(ph, "X") || ((is(ph, "i") || is(ph, "I")) && !is(e->name, "[memory]"))) {
            if (e->ts_kind != 1) return 1;
            if (t->complete.n == t->instant_cap) {
                Py_ssize_t cap = t->instant_cap ? t->instant_cap * 2 : 1024;
                uint8_t *a = (uint8_t *)realloc(t->instant, (size_t)cap);
                if (!a) { PyErr_NoMemory(); return -1; }
                t->instant = a;
                t->instant_cap = cap;
            }
            t->instant[t->complete.n++] = !is(ph, "X");
        } else if (is(ph, "i") || is(ph, "I")) {
            if (e->ts_kind != 1) return 1;
            if (EvVec_push(&t->memory, *e) < 0) { PyErr_NoMemory(); return -1; }
        } else if (is(ph, "s") || is(ph, "f") || is(ph, "t")) {
            if (e->ts_kind != 1 || e->id_kind == 2) return 1;
            if (EvVec_push(&t->flows, *e) < 0) { PyErr_NoMemory(); return -1; }
        } else if (is(ph, "M")) {
            Str label = e->arg_name.set && e->arg_name.n ? e->arg_name : e->labels;
            if (!label.set) label = (Str){"", 0, 1};
            PyObject *row = Py_BuildValue("(NNNN)", id_text(&e->pid), id_text(&e->tid),
                                          str_of(e->name), str_of(label));
            if (!row || PyList_Append(metadata, row) < 0) { Py_XDECREF(row); return -1; }
            Py_DECREF(row);
        } else if (is(ph, "B") || is(ph, "E")) {
            return 1;
        } else if (ph.n != 1 || !memchr(KNOWN_PHASES, ph.p[0], strlen(KNOWN_PHASES))) {
            (*unknown)++;
        }
        ws(s);
        if (s->p >= s->end) return 1;
        if (*s->p == ',') { s->p++; ws(s); continue; }
        if (*s->p == ']') { s->p++; break; }
        return 1;
    }
end:
    ws(s);
    return s->p == s->end ? 0 : 1;
}

static PyObject *scan(PyObject *self, PyObject *argv) {
    (void)self;
    Py_buffer buf;
    PyObject *kind_fn;
    Py_buffer device_mask, op_mask;
    int instant_kind;
    if (!PyArg_ParseTuple(argv, "y*Oy*y*i", &buf, &kind_fn, &device_mask, &op_mask,
                          &instant_kind))
        return NULL;
    PyObject *result = NULL, *metadata = PyList_New(0);
    Interner in = {0};
    Tables t = {0};
    in.kind_fn = kind_fn;
    in.empty_code[0] = in.empty_code[1] = -1;
    P s = {(const char *)buf.buf, (const char *)buf.buf + buf.len, &in};
    Py_ssize_t count = 0, unknown = 0;
    if (!metadata) goto done;
    if (device_mask.len != 256 || op_mask.len != 256) {
        PyErr_SetString(PyExc_ValueError, "masks must have 256 bytes");
        goto done;
    }
    int r = read_events(&s, &t, metadata, &count, &unknown);
    if (r < 0) goto done;
    if (r > 0) { result = Py_NewRef(Py_None); goto done; }
    PyObject *complete = complete_columns(&in, &t, device_mask.buf, op_mask.buf, instant_kind);
    PyObject *memory = complete ? memory_columns(&in, &t.memory) : NULL;
    PyObject *flows = memory ? flow_columns(&in, &t.flows) : NULL;
    if (flows)
        result = Py_BuildValue("{sNsNsNsNsNsOsnsnsn}", "complete", complete, "memory", memory,
                               "flows", flows, "keys", keys_list(&in), "tracks",
                               tracks_list(&in), "metadata", metadata, "count", count,
                               "unknown", unknown, "timed",
                               t.complete.n + t.memory.n + t.flows.n);
    else {
        Py_XDECREF(complete);
        Py_XDECREF(memory);
    }
done:
    Py_XDECREF(metadata);
    free_all(&in, &t);
    PyBuffer_Release(&buf);
    if (device_mask.buf) PyBuffer_Release(&device_mask);
    if (op_mask.buf) PyBuffer_Release(&op_mask);
    return result;
}

static PyMethodDef METHODS[] = {
    {"scan", scan, METH_VARARGS,
     "scan(data, kind_of_category, device_mask, op_mask, instant_kind) -> dict | None\n\n"
     "Columns of a JSON array of Kineto events, or None when the chunk needs the Python "
     "path (kineto.native)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef MODULE = {PyModuleDef_HEAD_INIT, "_scan", NULL, -1, METHODS, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__scan(void) { return PyModule_Create(&MODULE); }
