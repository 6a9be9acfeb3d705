/* protocol.c — encoder and decoder of the runner protocol (protocol.h).
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

static void put_i64(strbuf *o, int64_t v) { put_u64(o, (uint64_t)v); }

static void put_f64(strbuf *o, double d)
{
    uint64_t v;
    memcpy(&v, &d, 8);
    put_u64(o, v);
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
    for (int i = 0; i < n; i++) put_i64(o, d[i]);
    return 0;
}

/* str[]: u32 count (at most PROTO_MAX_NAMES) + strs */
static int put_strs(strbuf *o, const char *const *v, uint32_t n, const char *what, strbuf *err)
{
    if (n > PROTO_MAX_NAMES || (n && !v)) {
        strbuf_addf(err, "protocol: %u %s (at most %u)", n, what, PROTO_MAX_NAMES);
        return -1;
    }
    put_u32(o, n);
    for (uint32_t i = 0; i < n; i++)
        if (put_str(o, v[i], what, err)) return -1;
    return 0;
}

/* i64[] / f64[]: u32 count (at most PROTO_MAX_VALUES) + items */
static int put_nums(strbuf *o, const int64_t *iv, const double *fv, uint32_t n, const char *what, strbuf *err)
{
    if (n > PROTO_MAX_VALUES || (n && !iv && !fv)) {
        strbuf_addf(err, "protocol: %u %s (at most %u)", n, what, PROTO_MAX_VALUES);
        return -1;
    }
    put_u32(o, n);
    for (uint32_t i = 0; i < n; i++) {
        if (iv) put_i64(o, iv[i]);
        else put_f64(o, fv[i]);
    }
    return 0;
}

static int put_tensor(strbuf *o, const tensor_rec *t, strbuf *err)
{
    if (put_str(o, t->name, "tensor name", err) || put_str(o, t->dtype, "tensor dtype", err) ||
        put_str(o, t->device, "tensor device", err) ||
        put_dims(o, t->shape, t->ndim, "tensor shape", err) ||
        put_dims(o, t->strides, t->ndim, "tensor strides", err))
        return -1;
    put_u8(o, t->has_stats ? 1 : 0);
    if (t->has_stats) {
        const tensor_stats *s = &t->stats;
        put_u64(o, s->numel); put_u64(o, s->finite); put_u64(o, s->nan); put_u64(o, s->posinf);
        put_u64(o, s->neginf); put_u64(o, s->zeros); put_u64(o, s->subnormal);
        put_f64(o, s->min); put_f64(o, s->max); put_f64(o, s->mean); put_f64(o, s->std);
    }
    if (t->nvalues > PROTO_MAX_VALUES || (t->nvalues && !t->values)) {
        strbuf_addf(err, "protocol: tensor %s carries %zu values (at most %u)",
                    t->name ? t->name : "?", t->nvalues, PROTO_MAX_VALUES);
        return -1;
    }
    put_u32(o, (uint32_t)t->nvalues);
    for (size_t i = 0; i < t->nvalues; i++) put_f64(o, t->values[i]);
    put_u8(o, t->values_complete ? 1 : 0);
    if (t->has_stats && (t->stats.has_at || t->has_alloc)) {   /* appended: only a frame that carries them has them */
        put_i64(o, t->stats.has_at ? t->stats.at.min : -1);
        put_i64(o, t->stats.has_at ? t->stats.at.max : -1);
        put_i64(o, t->stats.has_at ? t->stats.at.nonfinite : -1);
    }
    if (t->has_alloc) {   /* appended after the positions */
        put_u64(o, t->alloc.data);
        put_u64(o, t->alloc.base);
        put_u64(o, t->alloc.bytes);
    }
    return 0;
}

static int put_check(strbuf *o, const eager_check *c, strbuf *err)
{
    if (put_str(o, c->node, "node name", err) || put_str(o, c->tensor, "tensor name", err))
        return -1;
    put_u8(o, (uint8_t)c->verdict);
    put_u64(o, c->compared); put_u64(o, c->differing); put_i64(o, c->first);
    put_f64(o, c->got); put_f64(o, c->want); put_f64(o, c->max_abs); put_f64(o, c->max_rel);
    put_i64(o, c->max_at);
    put_f64(o, c->atol); put_f64(o, c->rtol);
    return put_str(o, c->note, "check note", err);
}

static int encode_body(strbuf *o, const proto_msg *m, strbuf *err)
{
    switch (m->type) {
    case PROTO_HELLO:
        put_u32(o, m->u.hello.version);
        if (put_str(o, m->u.hello.runner_version, "runner version", err) ||
            put_str(o, m->u.hello.torch_version, "torch version", err))
            return -1;
        put_i64(o, m->u.hello.pid);
        put_i64(o, m->u.hello.cuda_device_count);
        return put_str(o, m->u.hello.gpu_name, "gpu name", err) ||
               put_str(o, m->u.hello.gpu_cc, "gpu compute capability", err) ? -1 : 0;
    case PROTO_LOADED:
        put_u32(o, m->u.loaded.n_inputs);
        put_u32(o, m->u.loaded.n_outputs);
        return put_strs(o, m->u.loaded.input_names, m->u.loaded.n_names, "input names", err);
    case PROTO_KERNEL:
        put_i64(o, m->u.kernel.index);
        if (put_str(o, m->u.kernel.name, "kernel name", err)) return -1;
        put_u8(o, m->u.kernel.phase);
        put_u8(o, m->u.kernel.status);
        put_f64(o, m->u.kernel.t_us);
        put_f64(o, m->u.kernel.duration_us);
        if (put_str(o, m->u.kernel.source ? m->u.kernel.source : "", "kernel source", err)) return -1;
        if (put_str(o, m->u.kernel.branch ? m->u.kernel.branch : "", "kernel branch", err)) return -1;
        put_f64(o, m->u.kernel.device_us);
        if (put_str(o, m->u.kernel.device_note ? m->u.kernel.device_note : "", "device note", err)) return -1;
        return 0;
    case PROTO_TENSOR:
        put_i64(o, m->u.tensor.kernel_index);
        put_u8(o, (uint8_t)m->u.tensor.t.phase);
        return put_tensor(o, &m->u.tensor.t, err);
    case PROTO_STOPPED:
        put_i64(o, m->u.stopped.kernel_index);
        put_u8(o, m->u.stopped.phase);
        put_u8(o, m->u.stopped.reason);
        return 0;
    case PROTO_ERROR:
        put_i64(o, m->u.error.kernel_index);
        return put_str(o, m->u.error.text, "error text", err);
    case PROTO_DONE:
        put_i64(o, m->u.done.status);
        return 0;
    case PROTO_COMPARE:
        put_i64(o, m->u.compare.kernel_index);
        return put_check(o, &m->u.compare.c, err);
    case PROTO_ALIAS:
        put_u32(o, m->u.alias.output);
        return put_str(o, m->u.alias.of, "alias", err);
    case PROTO_LOAD:
        if (put_str(o, m->u.load.so_path, "so path", err) ||
            put_str(o, m->u.load.cubin_dir, "cubin dir", err) ||
            put_str(o, m->u.load.device, "device", err))
            return -1;
        put_u32(o, m->u.load.flags);
        put_u64(o, m->u.load.max_values);
        return 0;
    case PROTO_INPUT: {
        const input_spec *s = &m->u.input.spec;
        put_u32(o, m->u.input.index);
        if (put_str(o, s->dtype, "input dtype", err) || put_str(o, s->device, "input device", err) ||
            put_dims(o, s->shape, s->ndim, "input shape", err))
            return -1;
        put_u8(o, (uint8_t)s->fill);
        put_u64(o, s->seed);
        put_f64(o, s->value);
        return put_str(o, m->u.input.raw_path, "input raw path", err);
    }
    case PROTO_CONTROL:
        put_u8(o, m->u.control.cmd);
        put_i64(o, m->u.control.arg);
        if (put_str(o, m->u.control.name, "control kernel name", err)) return -1;
        put_u32(o, m->u.control.break_flags);
        return 0;
    case PROTO_CONSTANT:
        if (put_str(o, m->u.constant.fqn, "constant name", err) || put_str(o, m->u.constant.path, "constant file", err))
            return -1;
        put_u64(o, m->u.constant.offset);
        if (put_str(o, m->u.constant.dtype, "constant dtype", err) ||
            put_dims(o, m->u.constant.shape, m->u.constant.ndim, "constant shape", err) ||
            put_dims(o, m->u.constant.strides, m->u.constant.ndim, "constant strides", err))
            return -1;
        put_i64(o, m->u.constant.storage_offset);
        return 0;
    case PROTO_REFERENCE:
        if (put_str(o, m->u.reference.kernel, "reference kernel", err)) return -1;
        put_u32(o, m->u.reference.occurrence);
        if (put_str(o, m->u.reference.node, "reference node", err) ||
            put_str(o, m->u.reference.path, "reference file", err))
            return -1;
        put_u64(o, m->u.reference.offset);
        if (put_str(o, m->u.reference.dtype, "reference dtype", err) ||
            put_dims(o, m->u.reference.shape, m->u.reference.ndim, "reference shape", err))
            return -1;
        put_f64(o, m->u.reference.atol);
        put_f64(o, m->u.reference.rtol);
        put_f64(o, m->u.reference.scale);
        return 0;
    case PROTO_LAUNCHES:
        if (m->u.launches.n > PROTO_MAX_NAMES || (m->u.launches.n && (!m->u.launches.kernels || !m->u.launches.before))) {
            strbuf_addf(err, "protocol: %u launches in one message (at most %u)", m->u.launches.n, PROTO_MAX_NAMES);
            return -1;
        }
        put_u32(o, m->u.launches.n);
        for (uint32_t i = 0; i < m->u.launches.n; i++) {
            if (put_str(o, m->u.launches.kernels[i], "launch kernel name", err)) return -1;
            put_u32(o, m->u.launches.before[i]);
        }
        return 0;
    case PROTO_EAGER_RUN:
        if (put_str(o, m->u.eager_run.program, "eager program", err) ||
            put_str(o, m->u.eager_run.device, "eager device", err))
            return -1;
        put_u8(o, m->u.eager_run.float64 ? 1 : 0);
        if (put_str(o, m->u.eager_run.out_dir, "eager folder", err) ||
            put_strs(o, m->u.eager_run.keep, m->u.eager_run.nkeep, "eager values kept", err) ||
            put_strs(o, m->u.eager_run.inputs, m->u.eager_run.ninputs, "eager inputs", err))
            return -1;
        return 0;
    case PROTO_EAGER_NODE: {
        const typeof(m->u.eager_node) *e = &m->u.eager_node;
        if (e->nargs > PROTO_MAX_NAMES || e->nouts > PROTO_MAX_NAMES || (e->nargs && !e->args) ||
            (e->nouts && !e->outs)) {
            strbuf_addf(err, "protocol: node %s has %u arguments and %u outputs (at most %u)", e->name ? e->name : "",
                        e->nargs, e->nouts, PROTO_MAX_NAMES);
            return -1;
        }
        if (put_str(o, e->name, "node name", err) || put_str(o, e->target, "node target", err)) return -1;
        put_u32(o, e->nargs);
        for (uint32_t i = 0; i < e->nargs; i++) {
            const proto_eager_arg *a = &e->args[i];
            if (put_str(o, a->name, "argument name", err)) return -1;
            put_u8(o, a->kind);
            if (put_strs(o, a->names, a->nnames, "argument tensors", err) ||
                put_nums(o, a->ints, NULL, a->nints, "argument ints", err) ||
                put_nums(o, NULL, a->floats, a->nfloats, "argument floats", err) ||
                put_str(o, a->text, "argument text", err))
                return -1;
        }
        put_u32(o, e->nouts);
        for (uint32_t i = 0; i < e->nouts; i++) {
            if (put_str(o, e->outs[i].name, "output name", err)) return -1;
            put_u32(o, e->outs[i].ret);
            put_i64(o, e->outs[i].elem);
        }
        return 0;
    }
    case PROTO_RUN:
    case PROTO_QUIT:
    case PROTO_PING:
        return 0;
    case PROTO_FREAD:
        if (put_str(o, m->u.fread.path, "path", err)) return -1;
        put_u64(o, m->u.fread.offset);
        put_u32(o, m->u.fread.len);
        return 0;
    case PROTO_SHA256:
    case PROTO_FACTS:
        return put_str(o, m->u.sha256.path, "path", err);
    case PROTO_EXTRACT:
        return put_str(o, m->u.extract.path, "path", err) || put_str(o, m->u.extract.prefixes, "prefixes", err)
               ? -1 : 0;
    case PROTO_PUT:
        if (put_str(o, m->u.put.name, "name", err)) return -1;
        put_u64(o, m->u.put.offset);
        if (put_bytes(o, m->u.put.data, m->u.put.ndata, "PUT data", err)) return -1;
        put_u8(o, m->u.put.last ? 1 : 0);
        return 0;
    case PROTO_SPAWN:
        put_u32(o, m->u.spawn.flags);
        return 0;
    case PROTO_SIGNAL:
        put_u8(o, m->u.signal.what);
        return 0;
    case PROTO_REPLY:
        put_u8(o, m->u.reply.request);
        put_u8(o, m->u.reply.ok ? 1 : 0);
        put_i64(o, m->u.reply.value);
        return put_str(o, m->u.reply.text, "reply text", err) ||
               put_bytes(o, m->u.reply.data, m->u.reply.ndata, "reply data", err) ? -1 : 0;
    case PROTO_LOG:
        put_u8(o, m->u.log.stream);
        return put_bytes(o, m->u.log.data, m->u.log.ndata, "log data", err);
    case PROTO_EXIT:
        put_u8(o, m->u.exit.how);
        put_i64(o, m->u.exit.code);
        return 0;
    }
    strbuf_addf(err, "protocol: cannot encode unknown message type %d", (int)m->type);
    return -1;
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

/* The same, at most PROTO_MAX_NAMES (names, launches, arguments). */
static uint32_t get_count(cursor *c, size_t item_bytes, const char *what)
{
    return get_count_max(c, PROTO_MAX_NAMES, item_bytes, what);
}

/* Fields appended to a message later: a runner from before them sends none. */
static int at_end(const cursor *c) { return !c->failed && c->pos == c->end; }

static double get_f64(cursor *c, const char *what)
{
    uint64_t v = get_u64(c, what);
    double d;
    memcpy(&d, &v, 8);
    return d;
}

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

/* str[]: a count (a string is at least its length field), then the strings. */
static const char **get_strs(cursor *c, uint32_t *n, const char *what)
{
    *n = get_count(c, 4, what);
    const char **v = *n ? arena_alloc(c->a, *n * sizeof *v) : NULL;
    for (uint32_t i = 0; i < *n && !c->failed; i++) v[i] = get_str(c, what);
    return v;
}

static int64_t *get_i64s(cursor *c, uint32_t *n, const char *what)
{
    *n = get_count_max(c, PROTO_MAX_VALUES, 8, what);
    int64_t *v = *n ? arena_alloc(c->a, *n * sizeof *v) : NULL;
    for (uint32_t i = 0; i < *n; i++) v[i] = get_i64(c, what);
    return v;
}

static double *get_f64s(cursor *c, uint32_t *n, const char *what)
{
    *n = get_count_max(c, PROTO_MAX_VALUES, 8, what);
    double *v = *n ? arena_alloc(c->a, *n * sizeof *v) : NULL;
    for (uint32_t i = 0; i < *n; i++) v[i] = get_f64(c, what);
    return v;
}

static void get_tensor(cursor *c, tensor_rec *t)
{
    t->name = get_str(c, "tensor name");
    t->dtype = get_str(c, "tensor dtype");
    t->device = get_str(c, "tensor device");
    int nd = get_dims(c, &t->shape, NULL, "tensor shape");
    size_t at = c->pos;
    int ns = get_dims(c, &t->strides, NULL, "tensor strides");
    if (c->failed) return;
    if (nd != ns) {
        fail_at(c, at, "tensor strides count differs from its shape's");
        return;
    }
    t->ndim = nd;
    t->has_stats = get_enum(c, 1, "has_stats flag");
    if (t->has_stats) {
        tensor_stats *s = &t->stats;
        s->numel = get_u64(c, "stats"); s->finite = get_u64(c, "stats"); s->nan = get_u64(c, "stats");
        s->posinf = get_u64(c, "stats"); s->neginf = get_u64(c, "stats"); s->zeros = get_u64(c, "stats");
        s->subnormal = get_u64(c, "stats");
        s->min = get_f64(c, "stats"); s->max = get_f64(c, "stats");
        s->mean = get_f64(c, "stats"); s->std = get_f64(c, "stats");
    }
    at = c->pos;
    uint32_t nv = get_u32(c, "values count");
    if (c->failed) return;
    if (nv > PROTO_MAX_VALUES) {
        fail_at(c, at, "values count is over the limit");
        return;
    }
    if (need(c, (size_t)nv * 8, "values")) return;
    t->nvalues = nv;
    t->values = nv ? arena_alloc(c->a, (size_t)nv * sizeof(double)) : NULL;
    for (uint32_t i = 0; i < nv; i++) t->values[i] = get_f64(c, "values");
    t->values_complete = get_enum(c, 1, "values_complete flag");
    t->stats.at.min = t->stats.at.max = t->stats.at.nonfinite = -1;
    if (c->failed || c->pos == c->end)
        return;   /* appended fields: an older runner sends no positions */
    if (t->has_stats) {
        int64_t *pos[3] = {&t->stats.at.min, &t->stats.at.max, &t->stats.at.nonfinite};
        for (int i = 0; i < 3; i++) {
            size_t p = c->pos;
            *pos[i] = get_i64(c, "stats position");
            if (!c->failed && (*pos[i] < -1 || (*pos[i] >= 0 && (uint64_t)*pos[i] >= t->stats.numel))) {
                fail_at(c, p, "stats position %lld is outside -1..numel-1", (long long)*pos[i]);
                return;
            }
        }
        t->stats.has_at = !c->failed;
    }
    if (c->failed || c->pos == c->end)
        return;   /* appended later still: where the elements sit */
    t->alloc.data = get_u64(c, "data pointer");
    t->alloc.base = get_u64(c, "storage address");
    at = c->pos;
    t->alloc.bytes = get_u64(c, "storage size");
    if (!c->failed && t->alloc.base + t->alloc.bytes < t->alloc.base) {
        fail_at(c, at, "storage size %llu runs past the end of the address space",
                (unsigned long long)t->alloc.bytes);
        return;
    }
    t->has_alloc = !c->failed;
}

static void get_check(cursor *c, eager_check *k)
{
    k->node = get_str(c, "node name");
    k->tensor = get_str(c, "tensor name");
    k->verdict = (eager_verdict)get_enum(c, EAGER_UNREADABLE, "verdict");
    k->compared = get_u64(c, "compared");
    k->differing = get_u64(c, "differing");
    k->first = get_i64(c, "first index");
    k->got = get_f64(c, "got");
    k->want = get_f64(c, "want");
    k->max_abs = get_f64(c, "max_abs");
    k->max_rel = get_f64(c, "max_rel");
    k->max_at = get_i64(c, "max_at");
    k->atol = get_f64(c, "atol");
    k->rtol = get_f64(c, "rtol");
    k->note = get_str(c, "check note");
}

static void decode_body(cursor *c, proto_msg *m)
{
    switch (m->type) {
    case PROTO_HELLO:
        m->u.hello.version = get_u32(c, "version");
        m->u.hello.runner_version = get_str(c, "runner version");
        m->u.hello.torch_version = get_str(c, "torch version");
        m->u.hello.pid = get_i64(c, "pid");
        m->u.hello.cuda_device_count = get_i64(c, "cuda device count");
        m->u.hello.gpu_name = get_str(c, "gpu name");
        m->u.hello.gpu_cc = get_str(c, "gpu compute capability");
        return;
    case PROTO_LOADED: {
        m->u.loaded.n_inputs = get_u32(c, "n_inputs");
        m->u.loaded.n_outputs = get_u32(c, "n_outputs");
        m->u.loaded.input_names = get_strs(c, &m->u.loaded.n_names, "input name");
        return;
    }
    case PROTO_KERNEL:
        m->u.kernel.index = get_i64(c, "kernel index");
        m->u.kernel.name = get_str(c, "kernel name");
        m->u.kernel.phase = get_enum(c, 1, "kernel phase");
        m->u.kernel.status = get_enum(c, KSTAT_ERROR, "kernel status");
        m->u.kernel.t_us = get_f64(c, "t_us");
        m->u.kernel.duration_us = get_f64(c, "duration_us");
        m->u.kernel.source = at_end(c) ? "" : get_str(c, "kernel source");
        m->u.kernel.branch = at_end(c) ? "" : get_str(c, "kernel branch");
        m->u.kernel.device_us = at_end(c) ? -1 : get_f64(c, "device_us");
        m->u.kernel.device_note = at_end(c) ? "" : get_str(c, "device note");
        return;
    case PROTO_TENSOR:
        m->u.tensor.kernel_index = get_i64(c, "kernel index");
        m->u.tensor.t.phase = (tensor_phase)get_enum(c, PHASE_OUTPUT, "tensor phase");
        get_tensor(c, &m->u.tensor.t);
        return;
    case PROTO_STOPPED:
        m->u.stopped.kernel_index = get_i64(c, "kernel index");
        m->u.stopped.phase = get_enum(c, 1, "stop phase");
        m->u.stopped.reason = get_enum(c, PROTO_STOP_DIVERGE, "stop reason");
        return;
    case PROTO_ERROR:
        m->u.error.kernel_index = get_i64(c, "kernel index");
        m->u.error.text = get_str(c, "error text");
        return;
    case PROTO_DONE:
        m->u.done.status = get_i64(c, "status");
        return;
    case PROTO_COMPARE:
        m->u.compare.kernel_index = get_i64(c, "kernel index");
        get_check(c, &m->u.compare.c);
        return;
    case PROTO_ALIAS:
        m->u.alias.output = get_u32(c, "alias output");
        m->u.alias.of = get_str(c, "alias of");
        return;
    case PROTO_LOAD:
        m->u.load.so_path = get_str(c, "so path");
        m->u.load.cubin_dir = get_str(c, "cubin dir");
        m->u.load.device = get_str(c, "device");
        m->u.load.flags = get_u32(c, "flags");
        m->u.load.max_values = get_u64(c, "max_values");
        return;
    case PROTO_INPUT: {
        input_spec *s = &m->u.input.spec;
        m->u.input.index = get_u32(c, "input index");
        s->dtype = get_str(c, "input dtype");
        s->device = get_str(c, "input device");
        int nd = get_dims(c, NULL, s->shape, "input shape");
        s->ndim = nd < 0 ? 0 : nd;
        s->fill = (fill_kind)get_enum(c, FILL_FILE, "fill kind");
        s->seed = get_u64(c, "seed");
        s->value = get_f64(c, "value");
        m->u.input.raw_path = get_str(c, "raw path");
        s->file = m->u.input.raw_path;
        return;
    }
    case PROTO_CONTROL:
        m->u.control.cmd = get_enum(c, PROTO_CMD_RUN_TO_NAME, "control command");
        m->u.control.arg = get_i64(c, "control argument");
        m->u.control.name = get_str(c, "control kernel name");
        m->u.control.break_flags = get_u32(c, "break flags");
        return;
    case PROTO_CONSTANT: {
        m->u.constant.fqn = get_str(c, "constant name");
        m->u.constant.path = get_str(c, "constant file");
        m->u.constant.offset = get_u64(c, "constant offset");
        m->u.constant.dtype = get_str(c, "constant dtype");
        int nd = get_dims(c, &m->u.constant.shape, NULL, "constant shape");
        size_t at = c->pos;
        int ns = get_dims(c, &m->u.constant.strides, NULL, "constant strides");
        if (!c->failed && ns != nd) fail_at(c, at, "constant strides has %d entries, shape %d", ns, nd);
        m->u.constant.ndim = nd < 0 ? 0 : nd;
        m->u.constant.storage_offset = get_i64(c, "constant storage offset");
        return;
    }
    case PROTO_REFERENCE: {
        m->u.reference.kernel = get_str(c, "reference kernel");
        m->u.reference.occurrence = get_u32(c, "reference occurrence");
        m->u.reference.node = get_str(c, "reference node");
        m->u.reference.path = get_str(c, "reference file");
        m->u.reference.offset = get_u64(c, "reference offset");
        m->u.reference.dtype = get_str(c, "reference dtype");
        int nd = get_dims(c, &m->u.reference.shape, NULL, "reference shape");
        m->u.reference.ndim = nd < 0 ? 0 : nd;
        m->u.reference.atol = get_f64(c, "atol");
        m->u.reference.rtol = get_f64(c, "rtol");
        m->u.reference.scale = get_f64(c, "scale");
        return;
    }
    case PROTO_LAUNCHES: {
        uint32_t n = get_count(c, 8, "launch count");   /* a launch is at least 8 bytes */
        if (c->failed) return;
        const char **k = n ? arena_alloc(c->a, n * sizeof *k) : NULL;
        uint32_t *b = n ? arena_alloc(c->a, n * sizeof *b) : NULL;
        for (uint32_t i = 0; i < n && !c->failed; i++) {
            k[i] = get_str(c, "launch kernel name");
            b[i] = get_u32(c, "launch before count");
        }
        m->u.launches.n = n;
        m->u.launches.kernels = k;
        m->u.launches.before = b;
        return;
    }
    case PROTO_EAGER_RUN:
        m->u.eager_run.program = get_str(c, "eager program");
        m->u.eager_run.device = get_str(c, "eager device");
        m->u.eager_run.float64 = get_enum(c, 1, "float64 flag");
        m->u.eager_run.out_dir = get_str(c, "eager folder");
        m->u.eager_run.keep = get_strs(c, &m->u.eager_run.nkeep, "eager values kept");
        m->u.eager_run.inputs = get_strs(c, &m->u.eager_run.ninputs, "eager inputs");
        return;
    case PROTO_EAGER_NODE: {
        m->u.eager_node.name = get_str(c, "node name");
        m->u.eager_node.target = get_str(c, "node target");
        uint32_t na = get_count(c, 4 + 1 + 4 * 4, "argument");
        proto_eager_arg *args = na ? arena_alloc(c->a, na * sizeof *args) : NULL;
        for (uint32_t i = 0; i < na && !c->failed; i++) {
            proto_eager_arg *a = &args[i];
            a->name = get_str(c, "argument name");
            a->kind = get_enum(c, EAGER_ARG_LAST, "argument kind");
            a->names = get_strs(c, &a->nnames, "argument tensors");
            a->ints = get_i64s(c, &a->nints, "argument ints");
            a->floats = get_f64s(c, &a->nfloats, "argument floats");
            a->text = get_str(c, "argument text");
        }
        uint32_t no = get_count(c, 4 + 4 + 8, "output");
        proto_eager_out *outs = no ? arena_alloc(c->a, no * sizeof *outs) : NULL;
        for (uint32_t i = 0; i < no && !c->failed; i++) {
            outs[i].name = get_str(c, "output name");
            outs[i].ret = get_u32(c, "output return");
            outs[i].elem = get_i64(c, "output element");
        }
        m->u.eager_node.nargs = c->failed ? 0 : na;
        m->u.eager_node.args = args;
        m->u.eager_node.nouts = c->failed ? 0 : no;
        m->u.eager_node.outs = outs;
        return;
    }
    case PROTO_RUN:
    case PROTO_QUIT:
    case PROTO_PING:
        return;
    case PROTO_FREAD:
        m->u.fread.path = get_str(c, "path");
        m->u.fread.offset = get_u64(c, "offset");
        m->u.fread.len = get_u32(c, "length");
        return;
    case PROTO_SHA256:
    case PROTO_FACTS:
        m->u.sha256.path = get_str(c, "path");
        return;
    case PROTO_EXTRACT:
        m->u.extract.path = get_str(c, "path");
        m->u.extract.prefixes = get_str(c, "prefixes");
        return;
    case PROTO_PUT:
        m->u.put.name = get_str(c, "name");
        m->u.put.offset = get_u64(c, "offset");
        m->u.put.data = get_bytes(c, &m->u.put.ndata, "PUT data");
        m->u.put.last = get_enum(c, 1, "last flag");
        return;
    case PROTO_SPAWN:
        m->u.spawn.flags = get_u32(c, "spawn flags");
        return;
    case PROTO_SIGNAL:
        m->u.signal.what = get_enum(c, PROTO_SIGNAL_KILL, "signal");
        return;
    case PROTO_REPLY:
        m->u.reply.request = get_u8(c, "request type");
        m->u.reply.ok = get_enum(c, 1, "ok flag");
        m->u.reply.value = get_i64(c, "value");
        m->u.reply.text = get_str(c, "reply text");
        m->u.reply.data = get_bytes(c, &m->u.reply.ndata, "reply data");
        return;
    case PROTO_LOG:
        m->u.log.stream = get_enum(c, 1, "log stream");
        m->u.log.data = get_bytes(c, &m->u.log.ndata, "log data");
        return;
    case PROTO_EXIT:
        m->u.exit.how = get_enum(c, 1, "exit kind");
        m->u.exit.code = get_i64(c, "exit code");
        return;
    }
    c->pos = 4;
    fail(c, "unknown message type");
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
    switch (t) {
    case PROTO_HELLO: return "HELLO";
    case PROTO_LOADED: return "LOADED";
    case PROTO_KERNEL: return "KERNEL";
    case PROTO_TENSOR: return "TENSOR";
    case PROTO_STOPPED: return "STOPPED";
    case PROTO_ERROR: return "ERROR";
    case PROTO_DONE: return "DONE";
    case PROTO_COMPARE: return "COMPARE";
    case PROTO_REFERENCE: return "REFERENCE";
    case PROTO_ALIAS: return "ALIAS";
    case PROTO_LOAD: return "LOAD";
    case PROTO_INPUT: return "INPUT";
    case PROTO_CONTROL: return "CONTROL";
    case PROTO_RUN: return "RUN";
    case PROTO_QUIT: return "QUIT";
    case PROTO_CONSTANT: return "CONSTANT";
    case PROTO_LAUNCHES: return "LAUNCHES";
    case PROTO_EAGER_RUN: return "EAGER_RUN";
    case PROTO_EAGER_NODE: return "EAGER_NODE";
    case PROTO_FREAD: return "FREAD";
    case PROTO_SHA256: return "SHA256";
    case PROTO_FACTS: return "FACTS";
    case PROTO_EXTRACT: return "EXTRACT";
    case PROTO_PUT: return "PUT";
    case PROTO_SPAWN: return "SPAWN";
    case PROTO_SIGNAL: return "SIGNAL";
    case PROTO_PING: return "PING";
    case PROTO_REPLY: return "REPLY";
    case PROTO_LOG: return "LOG";
    case PROTO_EXIT: return "EXIT";
    }
    return "unknown";
}
