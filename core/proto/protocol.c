/* protocol.c — encoder and decoder of the runner protocol (protocol.h), one
 * of each: both walk the field table (protocol_table.h), so no message is
 * written down here.
 *
 * The decoder is the only code that reads bytes from the other process, so it
 * trusts nothing: a cursor with a hard end, every count and string capped
 * before anything is allocated, enums range-checked, and a frame must be
 * filled exactly by its fields. Errors: encode/decode return -1 and append
 * "protocol: <message> at byte N of a <TYPE> frame" to err. */
#include "protocol.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "protocol_table.h"

/* ---- members of any size ----------------------------------------------- */

static uint64_t load_uint(const void *p, size_t size)
{
    uint8_t v1; uint16_t v2; uint32_t v4; uint64_t v8;
    switch (size) {
    case 1: memcpy(&v1, p, 1); return v1;
    case 2: memcpy(&v2, p, 2); return v2;
    case 4: memcpy(&v4, p, 4); return v4;
    default: memcpy(&v8, p, 8); return v8;
    }
}

static void store_uint(void *p, size_t size, uint64_t v)
{
    uint8_t v1 = (uint8_t)v; uint16_t v2 = (uint16_t)v; uint32_t v4 = (uint32_t)v;
    switch (size) {
    case 1: memcpy(p, &v1, 1); return;
    case 2: memcpy(p, &v2, 2); return;
    case 4: memcpy(p, &v4, 4); return;
    default: memcpy(p, &v, 8); return;
    }
}

static int is_set(const char *rec, size_t off)
{
    int v;
    memcpy(&v, rec + off, sizeof v);
    return v != 0;
}

static void *ptr_at(const char *rec, size_t off)
{
    void *p;
    memcpy(&p, rec + off, sizeof p);
    return p;
}

static void set_ptr(char *rec, size_t off, const void *p) { memcpy(rec + off, &p, sizeof p); }

/* ---- encoding ---------------------------------------------------------- */

static void put_u8(strbuf *o, uint8_t v) { strbuf_addch(o, (char)v); }

static void put_u32(strbuf *o, uint32_t v)
{
    unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    strbuf_add(o, b, 4);
}

static void put_u64(strbuf *o, uint64_t v)
{
    unsigned char b[8];
    for (int i = 0; i < 8; i++) b[i] = (unsigned char)(v >> (8 * i));
    strbuf_add(o, b, 8);
}

/* NULL encodes as the empty string. */
static int put_str(strbuf *o, const char *s, const char *what, strbuf *err)
{
    size_t n = s ? strlen(s) : 0;
    if (n > PROTO_MAX_STR) {
        strbuf_addf(err, "protocol: %s is %zu bytes, over the %u-byte limit", what, n, PROTO_MAX_STR);
        return -1;
    }
    put_u32(o, (uint32_t)n);
    strbuf_add(o, s ? s : "", n);
    return 0;
}

static int put_bytes(strbuf *o, const void *d, uint32_t n, const char *what, strbuf *err)
{
    if (n > PROTO_MAX_DATA || (n && !d)) {
        strbuf_addf(err, "protocol: %s is %u bytes, over the %u-byte limit", what, n, PROTO_MAX_DATA);
        return -1;
    }
    put_u32(o, n);
    strbuf_add(o, n ? d : "", n);
    return 0;
}

static int put_dims(strbuf *o, const int64_t *d, int n, const char *what, strbuf *err)
{
    if (n < 0 || n > TENSOR_MAX_DIMS || (n > 0 && !d)) {
        strbuf_addf(err, "protocol: %s has %d dims (at most %d)", what, n, TENSOR_MAX_DIMS);
        return -1;
    }
    put_u32(o, (uint32_t)n);
    for (int i = 0; i < n; i++) put_u64(o, (uint64_t)d[i]);
    return 0;
}

/* str[]: u32 count (at most PROTO_MAX_NAMES) + strs */
static int encode_rows(strbuf *o, const char *rec, const proto_rows *t, strbuf *err);

/* One value of kind U8..STR at p: a member of a record or an item of a column. */
static int put_value(strbuf *o, const proto_field *f, const char *p, strbuf *err)
{
    switch (f->kind) {
    case PF_U8: put_u8(o, (uint8_t)load_uint(p, f->size)); return 0;
    case PF_BOOL: put_u8(o, load_uint(p, f->size) ? 1 : 0); return 0;
    case PF_U32: put_u32(o, (uint32_t)load_uint(p, 4)); return 0;
    case PF_STR: return put_str(o, ptr_at(p, 0), f->what, err);
    default: put_u64(o, load_uint(p, 8)); return 0;   /* U64, I64, F64 (its bits), POS */
    }
}

/* A list of one column of i64/u64/f64 on a little-endian host (tensor values, argument numbers):
 * copied as one block, as the values of a big tensor are the bulk of a run's bytes. */
static int is_bulk(const proto_field *f)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    const proto_field *c = f->sub->rows;
    return (f->flags & PFF_COLUMNS) && f->sub->n == 1 && f->min_item == 8 && (c->kind == PF_I64 || c->kind == PF_U64 || c->kind == PF_F64);
#else
    (void)f;
    return 0;
#endif
}

static int put_list(strbuf *o, const char *rec, const proto_field *f, strbuf *err)
{
    uint64_t n = load_uint(rec + f->cnt, f->cnt_size);
    const proto_rows *s = f->sub;
    int missing = !(f->flags & PFF_COLUMNS) && !ptr_at(rec, f->off);
    for (int j = 0; j < s->n && (f->flags & PFF_COLUMNS); j++) missing |= !ptr_at(rec, s->rows[j].off);
    if (n > f->max || (n && missing)) {
        strbuf_addf(err, "protocol: %llu %s (at most %llu)", (unsigned long long)n, f->what,
                    (unsigned long long)f->max);
        return -1;
    }
    put_u32(o, (uint32_t)n);
    if (is_bulk(f)) {   /* a column of 8-byte numbers: the host's bytes are the wire's */
        strbuf_add(o, n ? ptr_at(rec, s->rows[0].off) : "", (size_t)n * 8);
        return 0;
    }
    for (uint64_t i = 0; i < n; i++) {
        if (!(f->flags & PFF_COLUMNS)) {
            if (encode_rows(o, (const char *)ptr_at(rec, f->off) + i * f->size, s, err)) return -1;
            continue;
        }
        for (int j = 0; j < s->n; j++)
            if (put_value(o, &s->rows[j], (const char *)ptr_at(rec, s->rows[j].off) + i * s->rows[j].size, err))
                return -1;
    }
    return 0;
}

static int put_field(strbuf *o, const char *rec, const proto_field *f, strbuf *err)
{
    const char *p = rec + f->off;
    uint64_t n = f->cnt_size ? load_uint(rec + f->cnt, f->cnt_size) : 0;
    switch (f->kind) {
    case PF_BYTES: return put_bytes(o, ptr_at(p, 0), (uint32_t)n, f->what, err);
    case PF_DIMS:
        return put_dims(o, f->flags & PFF_INLINE ? (const int64_t *)p : ptr_at(p, 0), (int)n, f->what, err);
    case PF_STRUCT: return encode_rows(o, p, f->sub, err);
    case PF_LIST: return put_list(o, rec, f, err);
    case PF_ALIAS: return 0;
    default: return put_value(o, f, p, err);
    }
}

/* A record's rows in order; a row sent only when its PFF_HAS int is set ends it when not. */
static int encode_rows(strbuf *o, const char *rec, const proto_rows *t, strbuf *err)
{
    for (int i = 0; i < t->n; i++) {
        const proto_field *f = &t->rows[i];
        if ((f->flags & PFF_IF) && !is_set(rec, f->cond)) continue;
        if ((f->flags & PFF_HAS) && !is_set(rec, f->has)) break;
        if (put_field(o, rec, f, err)) return -1;
    }
    return 0;
}

static int encode_body(strbuf *o, const proto_msg *m, strbuf *err)
{
    const proto_message *d = proto_message_of(m->type);
    if (!d) {
        strbuf_addf(err, "protocol: cannot encode unknown message type %d", (int)m->type);
        return -1;
    }
    return encode_rows(o, (const char *)m, &d->fields, err);
}

int proto_encode(strbuf *out, const proto_msg *m, strbuf *err)
{
    size_t start = out->len;
    put_u32(out, 0);                     /* length, patched below */
    put_u8(out, (uint8_t)m->type);
    if (encode_body(out, m, err)) {
        strbuf_setlen(out, start);
        return -1;
    }
    size_t n = out->len - start - 4;
    if (n > PROTO_MAX_FRAME) {
        strbuf_setlen(out, start);
        strbuf_addf(err, "protocol: %s frame is %zu bytes, over the %u-byte limit",
                    proto_type_name(m->type), n, PROTO_MAX_FRAME);
        return -1;
    }
    unsigned char *p = (unsigned char *)out->buf + start;
    p[0] = (unsigned char)n; p[1] = (unsigned char)(n >> 8);
    p[2] = (unsigned char)(n >> 16); p[3] = (unsigned char)(n >> 24);
    return 0;
}

/* ---- decoding ---------------------------------------------------------- */

typedef struct {
    const unsigned char *p;   /* frame start (the length field) */
    size_t pos, end;          /* cursor and hard end, offsets from p */
    arena *a;
    strbuf *err;
    proto_type type;
    int failed;
} cursor;

/* Records the first failure only, pointing at byte `at` (where the bad
 * field starts, so the message names its offset, not the one after it). */
static void __attribute__((format(printf, 3, 4))) fail_at(cursor *c, size_t at, const char *fmt, ...)
{
    if (c->failed) return;
    c->failed = 1;
    c->pos = at;
    strbuf_addstr(c->err, "protocol: ");
    va_list ap;
    va_start(ap, fmt);
    strbuf_vaddf(c->err, fmt, ap);
    va_end(ap);
    strbuf_addf(c->err, " at byte %zu of a %s frame", c->pos, proto_type_name(c->type));
}

#define fail(c, ...) fail_at((c), (c)->pos, __VA_ARGS__)

static int need(cursor *c, size_t n, const char *what)
{
    if (c->failed) return -1;
    if (n > c->end - c->pos) {
        fail(c, "%s runs past the end of the frame", what);
        return -1;
    }
    return 0;
}

static uint64_t rd_le(const unsigned char *b, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--) v = (v << 8) | b[i];
    return v;
}

static uint8_t get_u8(cursor *c, const char *what)
{
    if (need(c, 1, what)) return 0;
    return c->p[c->pos++];
}

static uint32_t get_u32(cursor *c, const char *what)
{
    if (need(c, 4, what)) return 0;
    uint32_t v = (uint32_t)rd_le(c->p + c->pos, 4);
    c->pos += 4;
    return v;
}

static uint64_t get_u64(cursor *c, const char *what)
{
    if (need(c, 8, what)) return 0;
    uint64_t v = rd_le(c->p + c->pos, 8);
    c->pos += 8;
    return v;
}

static int64_t get_i64(cursor *c, const char *what) { return (int64_t)get_u64(c, what); }

/* A count of items that follow: refused (0, failed) when over max or when the rest of the frame
 * cannot hold that many items of at least item_bytes each, so no allocation trusts it blindly. */
static uint32_t get_count_max(cursor *c, uint32_t max, size_t item_bytes, const char *what)
{
    size_t at = c->pos;
    uint32_t n = get_u32(c, what);
    if (c->failed) return 0;
    if (n > max || (size_t)n * item_bytes > c->end - c->pos) {
        fail_at(c, at, "%s is over the limit or larger than the frame", what);
        return 0;
    }
    return n;
}

/* Fields appended to a message later: a runner from before them sends none. */
static int at_end(const cursor *c) { return !c->failed && c->pos == c->end; }

/* Strings come back NUL-terminated in the arena, never NULL ("" when empty). */
static const char *get_str(cursor *c, const char *what)
{
    size_t at = c->pos;
    uint32_t n = get_u32(c, what);
    if (c->failed) return "";
    if (n > PROTO_MAX_STR) {
        fail_at(c, at, "%s length %u is over the %u-byte limit", what, n, PROTO_MAX_STR);
        return "";
    }
    if (need(c, n, what)) return "";
    if (memchr(c->p + c->pos, 0, n)) {
        fail(c, "%s holds a NUL byte", what);
        return "";
    }
    char *s = arena_strndup(c->a, (const char *)c->p + c->pos, n);
    c->pos += n;
    return s;
}

/* Bytes stay in the frame's arena copy; *n gets their count. */
static const void *get_bytes(cursor *c, uint32_t *n, const char *what)
{
    size_t at = c->pos;
    *n = get_u32(c, what);
    if (c->failed) return NULL;
    if (*n > PROTO_MAX_DATA) {
        fail_at(c, at, "%s length %u is over the %u-byte limit", what, *n, PROTO_MAX_DATA);
        *n = 0;
        return NULL;
    }
    if (need(c, *n, what)) {
        *n = 0;
        return NULL;
    }
    void *d = *n ? arena_memdup(c->a, c->p + c->pos, *n) : NULL;
    c->pos += *n;
    return d;
}

/* Reads a dims array; returns its count (or -1) and the items in *out (arena). */
static int get_dims(cursor *c, int64_t **out, int64_t *fixed, const char *what)
{
    size_t at = c->pos;
    uint32_t n = get_u32(c, what);
    if (c->failed) return -1;
    if (n > TENSOR_MAX_DIMS) {
        fail_at(c, at, "%s has %u dims (at most %d)", what, n, TENSOR_MAX_DIMS);
        return -1;
    }
    if (need(c, (size_t)n * 8, what)) return -1;
    int64_t *d = fixed;
    if (!d) d = n ? arena_alloc(c->a, n * sizeof *d) : NULL;
    for (uint32_t i = 0; i < n; i++) d[i] = get_i64(c, what);
    if (out) *out = d;
    return (int)n;
}

static uint8_t get_enum(cursor *c, unsigned max, const char *what)
{
    size_t at = c->pos;
    uint8_t v = get_u8(c, what);
    if (!c->failed && v > max) {
        fail_at(c, at, "%s %u is out of range (0..%u)", what, v, max);
    }
    return v;
}

static void decode_rows(cursor *c, char *rec, const proto_rows *t);

static void get_value(cursor *c, const proto_field *f, char *p)
{
    switch (f->kind) {
    case PF_U8: store_uint(p, f->size, get_enum(c, (unsigned)f->max, f->what)); return;
    case PF_BOOL: store_uint(p, f->size, get_enum(c, 1, f->what)); return;
    case PF_U32: store_uint(p, 4, get_u32(c, f->what)); return;
    case PF_STR: set_ptr(p, 0, get_str(c, f->what)); return;
    default: store_uint(p, 8, get_u64(c, f->what)); return;   /* U64, I64, F64, POS */
    }
}

static void get_list(cursor *c, const proto_field *f, char *rec)
{
    const proto_rows *s = f->sub;
    uint32_t n = get_count_max(c, (uint32_t)f->max, f->min_item, f->what);
    if (c->failed || !n) return;
    store_uint(rec + f->cnt, f->cnt_size, n);
    if (!(f->flags & PFF_COLUMNS)) {
        char *items = arena_alloc(c->a, (size_t)n * f->size);
        set_ptr(rec, f->off, items);
        for (uint32_t i = 0; i < n && !c->failed; i++) decode_rows(c, items + i * f->size, s);
        return;
    }
    for (int j = 0; j < s->n; j++) set_ptr(rec, s->rows[j].off, arena_alloc(c->a, (size_t)n * s->rows[j].size));
    if (is_bulk(f)) {   /* the count fits the frame (get_count_max) */
        memcpy(ptr_at(rec, s->rows[0].off), c->p + c->pos, (size_t)n * 8);
        c->pos += (size_t)n * 8;
        return;
    }
    for (uint32_t i = 0; i < n && !c->failed; i++)
        for (int j = 0; j < s->n; j++)
            get_value(c, &s->rows[j], (char *)ptr_at(rec, s->rows[j].off) + i * s->rows[j].size);
}

static void get_field(cursor *c, const proto_field *f, char *rec)
{
    char *p = rec + f->off;
    size_t at = c->pos;
    switch (f->kind) {
    case PF_POS: {
        int64_t v = (int64_t)get_u64(c, f->what);
        if (!c->failed && (v < -1 || (v >= 0 && (uint64_t)v >= load_uint(rec + f->ref, 8))))
            fail_at(c, at, "%s %lld is outside -1..numel-1", f->what, (long long)v);
        store_uint(p, 8, (uint64_t)v);
        return;
    }
    case PF_BYTES: {
        uint32_t n;
        set_ptr(p, 0, get_bytes(c, &n, f->what));
        store_uint(rec + f->cnt, f->cnt_size, n);
        return;
    }
    case PF_DIMS: {
        int inl = f->flags & PFF_INLINE, n = get_dims(c, inl ? NULL : (int64_t **)p, inl ? (int64_t *)p : NULL, f->what);
        int had = (int)load_uint(rec + f->cnt, f->cnt_size);
        if (!c->failed && (f->flags & PFF_SAME) && n != had)
            fail_at(c, at, "%s count %d differs from its shape's %d", f->what, n, had);
        if (n >= 0) store_uint(rec + f->cnt, f->cnt_size, (uint64_t)n);
        return;
    }
    case PF_STRUCT: decode_rows(c, p, f->sub); return;
    case PF_LIST: get_list(c, f, rec); return;
    case PF_ALIAS: set_ptr(p, 0, ptr_at(rec, f->ref)); return;
    default: get_value(c, f, p); return;
    }
}

/* What a row holds when its frame has no bytes for it (PFF_LATER, PFF_IF). */
static void set_default(char *rec, const proto_field *f)
{
    int64_t i = (int64_t)f->dflt;
    if (f->kind == PF_STR) set_ptr(rec, f->off, "");
    else if (f->kind == PF_F64) memcpy(rec + f->off, &f->dflt, 8);
    else if (f->kind == PF_I64 || f->kind == PF_POS) memcpy(rec + f->off, &i, 8);
}

static void decode_rows(cursor *c, char *rec, const proto_rows *t)
{
    for (int i = 0; i < t->n && !c->failed; i++) {
        const proto_field *f = &t->rows[i];
        if ((f->flags & PFF_IF) && !is_set(rec, f->cond)) {
            set_default(rec, f);
        } else if ((f->flags & PFF_LATER) && at_end(c)) {   /* from before this row: the rest too */
            for (; i < t->n; i++) set_default(rec, &t->rows[i]);
        } else {
            get_field(c, f, rec);
            if (f->flags & PFF_HAS) store_uint(rec + f->has, sizeof(int), 1);
        }
    }
}

static void decode_body(cursor *c, proto_msg *m)
{
    const proto_message *d = proto_message_of(m->type);
    if (!d) {
        c->pos = 4;
        fail(c, "unknown message type");
        return;
    }
    decode_rows(c, (char *)m, &d->fields);
}

long proto_decode(const unsigned char *buf, size_t len, proto_msg *m, arena *a, strbuf *err)
{
    memset(m, 0, sizeof *m);
    if (len < 4) return 0;
    uint32_t n = (uint32_t)rd_le(buf, 4);
    if (n == 0 || n > PROTO_MAX_FRAME) {
        strbuf_addf(err, "protocol: frame length %u is %s (the stream is corrupt or not aotidbg's)", n,
                    n == 0 ? "empty" : "over the 64 MiB limit");
        return -1;
    }
    if (len - 4 < n) return 0;
    cursor c = {buf, 5, (size_t)n + 4, a, err, (proto_type)buf[4], 0};
    m->type = c.type;
    decode_body(&c, m);
    if (!c.failed && c.pos != c.end) fail(&c, "trailing bytes after the last field");
    if (c.failed) {
        memset(m, 0, sizeof *m);
        return -1;
    }
    return (long)c.end;
}

const char *proto_type_name(proto_type t)
{
    const proto_message *d = proto_message_of(t);
    return d ? d->name : "unknown";
}
