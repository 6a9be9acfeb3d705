/* inputs.c — the inputs spec (YAML) and tensor files (.npy, .safetensors).
 *
 * The spec is read with libyaml's event parser into a small node tree with
 * our own caps (file size, depth, node count, scalar length); anchors, aliases
 * and duplicate keys are refused. The tree is then checked field by field so
 * every message names file:line:col (1-based), what was found and what was
 * expected. Tensor files are untrusted: every header length, offset and size
 * is checked against the file before a byte of data is copied.
 *
 * Errors: 0 / -1 with a message appended to err. Specs live in s->arena. */
#include "inputs.h"
#include "compat.h"
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "paths.h"
#include <stdarg.h>
#include "ytree.h"
#include "tensor_file.h"

/* Every `fill: file` input's file is there, of the kind its name says, and
 * holds the spec's dtype and shape: 0, or -1 with "SPEC:line:col: input N:
 * what" in err (the line of its `file:`). */
static int inputs_check_files(const session *s, const char *spec, strbuf *err);

#define SPEC_MAX_BYTES    (1U << 20)
#define SPEC_MAX_DEPTH    16
#define SPEC_MAX_NODES    200000
#define SPEC_MAX_INPUTS   4096
#define SPEC_MAX_SCALAR   4096
#define MAX_NUMEL         TENSOR_FILE_MAX_NUMEL
#define ST_MAX_HEADER     (100U << 20)


/* ---- the spec as a tree (core/yaml) --------------------------------------- */

typedef ynode node;

typedef struct {
    const char *name;
    strbuf *err;
} ytree_ctx;

static int yfail(ytree_ctx *t, size_t line, size_t col, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int yfail(ytree_ctx *t, size_t line, size_t col, const char *fmt, ...)
{
    strbuf_addf(t->err, "%s:%zu:%zu: ", t->name, line, col);
    va_list ap;
    va_start(ap, fmt);
    strbuf_vaddf(t->err, fmt, ap);
    va_end(ap);
    return -1;
}

/* ---- checking the tree --------------------------------------------------- */

static const char *kind_what(const node *n)
{
    return n->type == Y_MAP ? "a mapping" : n->type == Y_SEQ ? "a list" : "a scalar";
}

static int parse_i64(const char *s, int64_t *out)
{
    if (!*s)
        return -1;
    errno = 0;
    char *end;
    long long v = strtoll(s, &end, 0);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

static int parse_f64(const char *s, double *out)
{
    if (!strcmp(s, ".nan") || !strcmp(s, ".NaN") || !strcmp(s, "nan")) {
        *out = __builtin_nan("");
        return 0;
    }
    if (!strcmp(s, ".inf") || !strcmp(s, "inf") || !strcmp(s, "+.inf")) {
        *out = __builtin_inf();
        return 0;
    }
    if (!strcmp(s, "-.inf") || !strcmp(s, "-inf")) {
        *out = -__builtin_inf();
        return 0;
    }
    if (!*s)
        return -1;
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    if (errno == ERANGE && (v == 0 || v > 1 || v < -1))
        return -1;
    if (*end)
        return -1;
    *out = v;
    return 0;
}

static int device_ok(const char *d)
{
    if (!strcmp(d, "cpu") || !strcmp(d, "cuda"))
        return 1;
    const char *idx;
    if (!skip_prefix(d, "cuda:", &idx) || !*idx)
        return 0;
    size_t n = strlen(idx);
    if (n > 4)
        return 0;
    for (const char *p = idx; *p; p++)
        if (*p < '0' || *p > '9')
            return 0;
    return 1;
}

static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return xstrdup(".");
    if (slash == path)
        return xstrdup("/");
    return xstrndup(path, (size_t)(slash - path));
}

static int check_item(ytree_ctx *t, session *s, const node *it, int idx, const char *specdir, input_spec *in)
{
    char list[DTYPE_LIST_MAX];   /* the dtypes a spec may give, for messages */
    if (it->type != Y_MAP)
        return yfail(t, it->line, it->col, "input %d: found %s, expected a mapping like "
                     "{shape: [2, 3], dtype: float32, fill: randn}", idx, kind_what(it));
    memset(in, 0, sizeof *in);
    in->ndim = -1;
    in->device = "cpu";
    in->fill = FILL_RANDN;
    in->seed = (uint64_t)idx;
    const node *value_node = NULL, *file_node = NULL, *key_node = NULL, *fill_node = NULL, *strides_node = NULL;
    for (size_t i = 0; i < it->n / 2; i++) {
        const node *k = it->items[2 * i], *v = it->items[2 * i + 1];
        const char *key = k->value;
        if (!strcmp(key, "shape")) {
            if (v->type != Y_SEQ)
                return yfail(t, v->line, v->col, "input %d: shape: found %s, expected a list of sizes like [2, 3]",
                             idx, kind_what(v));
            if (v->n > TENSOR_MAX_DIMS)
                return yfail(t, v->line, v->col, "input %d: shape has %zu dims, expected at most %d",
                             idx, v->n, TENSOR_MAX_DIMS);
            uint64_t numel = 1;
            for (size_t d = 0; d < v->n; d++) {
                const node *dn = v->items[d];
                int64_t x;
                if (dn->type != Y_SCALAR || parse_i64(dn->value, &x) < 0 || x < 0)
                    return yfail(t, dn->line, dn->col, "input %d: shape[%zu]: found %s%s%s, expected a "
                                 "non-negative integer", idx, d, dn->type == Y_SCALAR ? "'" : kind_what(dn),
                                 dn->type == Y_SCALAR ? dn->value : "", dn->type == Y_SCALAR ? "'" : "");
                if ((uint64_t)x > MAX_NUMEL || (x && numel > MAX_NUMEL / (uint64_t)x))
                    return yfail(t, dn->line, dn->col, "input %d: shape has more than 2^40 elements; "
                                 "expected a tensor that fits in memory", idx);
                numel *= (uint64_t)x;
                in->shape[d] = x;
            }
            in->ndim = (int)v->n;
        } else if (!strcmp(key, "strides")) {
            if (v->type != Y_SEQ || v->n > TENSOR_MAX_DIMS)
                return yfail(t, v->line, v->col, "input %d: strides: found %s, expected a list of at most %d "
                             "element strides like [3, 1]", idx, kind_what(v), TENSOR_MAX_DIMS);
            for (size_t d = 0; d < v->n; d++) {
                const node *dn = v->items[d];
                int64_t x;
                if (dn->type != Y_SCALAR || parse_i64(dn->value, &x) < 0 || x < 0 || (uint64_t)x > MAX_NUMEL)
                    return yfail(t, dn->line, dn->col, "input %d: strides[%zu]: found %s%s%s, expected a "
                                 "non-negative integer", idx, d, dn->type == Y_SCALAR ? "'" : kind_what(dn),
                                 dn->type == Y_SCALAR ? dn->value : "", dn->type == Y_SCALAR ? "'" : "");
                in->strides[d] = x;
            }
            in->has_strides = (int)v->n + 1;   /* fixed up below, once shape is known */
            strides_node = v;
        } else if (!strcmp(key, "dtype")) {
            const char *c = v->type == Y_SCALAR ? dtype_canonical(v->value) : NULL;
            if (!c)
                return yfail(t, v->line, v->col, "input %d: dtype: found %s%s%s, expected one of %s",
                             idx, v->type == Y_SCALAR ? "'" : kind_what(v), v->type == Y_SCALAR ? v->value : "",
                             v->type == Y_SCALAR ? "'" : "", dtype_spec_list(list, sizeof list));
            in->dtype = c;
        } else if (!strcmp(key, "device")) {
            if (v->type != Y_SCALAR || !device_ok(v->value))
                return yfail(t, v->line, v->col, "input %d: device: found %s%s%s, expected cpu, cuda or cuda:N",
                             idx, v->type == Y_SCALAR ? "'" : kind_what(v), v->type == Y_SCALAR ? v->value : "",
                             v->type == Y_SCALAR ? "'" : "");
            in->device = arena_strdup(&s->arena, v->value);
        } else if (!strcmp(key, "fill")) {
            int f = v->type == Y_SCALAR ? fill_kind_from_name(v->value) : -1;
            if (f < 0)
                return yfail(t, v->line, v->col, "input %d: fill: found %s%s%s, expected one of randn, zeros, "
                             "ones, arange, full, file", idx, v->type == Y_SCALAR ? "'" : kind_what(v),
                             v->type == Y_SCALAR ? v->value : "", v->type == Y_SCALAR ? "'" : "");
            in->fill = (fill_kind)f;
            fill_node = v;
        } else if (!strcmp(key, "seed")) {
            int64_t x;
            if (v->type != Y_SCALAR || parse_i64(v->value, &x) < 0 || x < 0)
                return yfail(t, v->line, v->col, "input %d: seed: found %s%s%s, expected a non-negative integer",
                             idx, v->type == Y_SCALAR ? "'" : kind_what(v), v->type == Y_SCALAR ? v->value : "",
                             v->type == Y_SCALAR ? "'" : "");
            in->seed = (uint64_t)x;
        } else if (!strcmp(key, "value")) {
            if (v->type != Y_SCALAR || parse_f64(v->value, &in->value) < 0)
                return yfail(t, v->line, v->col, "input %d: value: found %s%s%s, expected a number",
                             idx, v->type == Y_SCALAR ? "'" : kind_what(v), v->type == Y_SCALAR ? v->value : "",
                             v->type == Y_SCALAR ? "'" : "");
            value_node = v;
        } else if (!strcmp(key, "file")) {
            if (v->type != Y_SCALAR || !v->value[0])
                return yfail(t, v->line, v->col, "input %d: file: found %s, expected a path to a .npy or "
                             ".safetensors file", idx, kind_what(v));
            if (v->value[0] == '/') {
                in->file = arena_strdup(&s->arena, v->value);
            } else {   /* relative to the spec's folder, not the working directory */
                char *p = path_join(specdir, v->value);
                in->file = arena_strdup(&s->arena, p);
                free(p);
            }
            in->file_line = v->line;
            in->file_col = v->col;
            file_node = v;
        } else if (!strcmp(key, "name")) {
            if (v->type != Y_SCALAR || !v->value[0])
                return yfail(t, v->line, v->col, "input %d: name: found %s, expected the input's name (x, or "
                             "AOTI's arg0_1)", idx, kind_what(v));
            in->name = arena_strdup(&s->arena, v->value);
        } else if (!strcmp(key, "key")) {
            if (v->type != Y_SCALAR)
                return yfail(t, v->line, v->col, "input %d: key: found %s, expected a tensor name", idx,
                             kind_what(v));
            in->key = arena_strdup(&s->arena, v->value);
            key_node = v;
        } else {
            return yfail(t, k->line, k->col, "input %d: unknown field '%s', expected one of name, shape, "
                         "dtype, strides, device, fill, seed, value, file, key", idx, key);
        }
    }
    if (in->ndim < 0)
        return yfail(t, it->line, it->col, "input %d: missing 'shape', expected a list of sizes like [2, 3]", idx);
    if (!in->dtype)
        return yfail(t, it->line, it->col, "input %d: missing 'dtype', expected one of %s", idx,
                     dtype_spec_list(list, sizeof list));
    if (strides_node) {
        if ((int)strides_node->n != in->ndim)
            return yfail(t, strides_node->line, strides_node->col, "input %d: strides has %zu entries, the shape "
                         "has %d dims; expected one stride per dim", idx, strides_node->n, in->ndim);
        in->has_strides = 1;
    }
    if (in->fill == FILL_FULL && !value_node)
        return yfail(t, fill_node->line, fill_node->col, "input %d: fill: full needs 'value: N'", idx);
    if (in->fill != FILL_FULL && value_node)
        return yfail(t, value_node->line, value_node->col, "input %d: 'value' is only used with fill: full "
                     "(this input has fill: %s)", idx, fill_kind_name(in->fill));
    if (in->fill == FILL_FILE && !file_node)
        return yfail(t, fill_node->line, fill_node->col, "input %d: fill: file needs 'file: PATH' (.npy or "
                     ".safetensors)", idx);
    if (in->fill != FILL_FILE && (file_node || key_node)) {
        const node *n = file_node ? file_node : key_node;
        return yfail(t, n->line, n->col, "input %d: '%s' is only used with fill: file", idx,
                     file_node ? "file" : "key");
    }
    return 0;
}

int inputs_parse(session *s, const char *name, const char *text, size_t len, strbuf *err)
{
    if (len > SPEC_MAX_BYTES) {
        strbuf_addf(err, "%s: %zu bytes; an inputs spec is at most %u bytes", name, len, SPEC_MAX_BYTES);
        return -1;
    }
    static const ylimits lim = {SPEC_MAX_DEPTH, SPEC_MAX_SCALAR, SPEC_MAX_NODES, "an inputs spec", "inputs specs"};
    arena tmp = ARENA_INIT;
    ytree_ctx t = {.name = name, .err = err};
    node *root = NULL;
    int rc = -1;
    char *specdir = dir_of(name);
    if (ytree_parse(&tmp, name, text, len, &lim, &root, err) < 0)
        goto out;
    if (!root || root->type != Y_MAP) {
        yfail(&t, root ? root->line : 1, root ? root->col : 1, "found %s, expected a mapping with "
              "'inputs:' (a list of {shape, dtype, device, fill})", root ? kind_what(root) : "an empty file");
        goto out;
    }
    const node *list = NULL;
    for (size_t i = 0; i < root->n / 2; i++) {
        const node *k = root->items[2 * i];
        if (strcmp(k->value, "inputs")) {
            yfail(&t, k->line, k->col, "unknown top-level key '%s', expected 'inputs'", k->value);
            goto out;
        }
        list = root->items[2 * i + 1];
    }
    if (!list) {
        yfail(&t, root->line, root->col, "missing 'inputs:', expected a list of {shape, dtype, device, fill}");
        goto out;
    }
    if (list->type != Y_SEQ) {
        /* `inputs:` with nothing after it is an empty plain scalar: a model with no inputs */
        if (!(list->type == Y_SCALAR && list->plain && !list->value[0])) {
            yfail(&t, list->line, list->col, "inputs: found %s, expected a list of {shape, dtype, device, fill}",
                  kind_what(list));
            goto out;
        }
    }
    size_t n = list->type == Y_SEQ ? list->n : 0;
    if (n > SPEC_MAX_INPUTS) {
        yfail(&t, list->line, list->col, "%zu inputs, expected at most %d", n, SPEC_MAX_INPUTS);
        goto out;
    }
    input_spec *ins = n ? arena_alloc(&s->arena, n * sizeof *ins) : NULL;
    for (size_t i = 0; i < n; i++)
        if (check_item(&t, s, list->items[i], (int)i, specdir, &ins[i]) < 0)
            goto out;
    s->inputs = ins;
    s->ninputs = n;
    rc = 0;
out:
    free(specdir);
    arena_release(&tmp);
    return rc;
}

int inputs_load(session *s, const char *path, strbuf *err)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        strbuf_addf(err, "%s is a folder; --inputs takes an inputs spec file (YAML: inputs: [{shape, dtype, "
                    "device, fill}, ...], see man aotidbg, INPUTS)", path);
        return -1;
    }
    strbuf sb = STRBUF_INIT;
    if (strbuf_read_file(&sb, path, SPEC_MAX_BYTES, err) < 0) {
        strbuf_release(&sb);
        return -1;
    }
    int rc = inputs_parse(s, path, sb.buf, sb.len, err);
    strbuf_release(&sb);
    if (rc == 0)
        rc = inputs_check_files(s, path, err);
    return rc;
}

/* ---- tensor files --------------------------------------------------------- */

/* The .npy header reader and the read/numel helpers live in tensor_file.c,
 * shared with the inspector's .npy reference. */


static int st_read(int fd, uint64_t fsize, const char *file, const char *want_key, file_tensor *ft, strbuf *err)
{
    unsigned char pre[8];
    if (fsize < 8 || tensor_file_read_at(fd, pre, 8, 0) < 0) {
        strbuf_addf(err, "%s: not a .safetensors file (shorter than its 8-byte header length)", file);
        return -1;
    }
    uint64_t hlen = 0;
    for (int i = 7; i >= 0; i--)
        hlen = hlen << 8 | pre[i];
    if (hlen > ST_MAX_HEADER || hlen > fsize - 8) {
        strbuf_addf(err, "%s: .safetensors header length %" PRIu64 " runs past the file (%" PRIu64
                    " bytes) or over %u", file, hlen, fsize, ST_MAX_HEADER);
        return -1;
    }
    char *h = xmalloc(hlen + 1);
    if (tensor_file_read_at(fd, h, hlen, 8) < 0) {
        free(h);
        strbuf_addf(err, "%s: cannot read the .safetensors header", file);
        return -1;
    }
    h[hlen] = 0;
    int rc = -1;
    cJSON *root = cJSON_ParseWithLength(h, hlen);
    if (!root || !cJSON_IsObject(root)) {
        const char *at = cJSON_GetErrorPtr();
        strbuf_addf(err, "%s: the .safetensors header is not a JSON object%s%ld)", file,
                    at && at >= h && at <= h + hlen ? " (near byte " : " (", at && at >= h ? (long)(at - h) + 8 : 8L);
        goto out;
    }
    const cJSON *ent = NULL, *it;
    int ntensors = 0;
    strbuf names = STRBUF_INIT;
    cJSON_ArrayForEach(it, root) {
        if (!it->string || !strcmp(it->string, "__metadata__"))
            continue;
        ntensors++;
        if (names.len < 300)
            strbuf_addf(&names, "%s%s", names.len ? ", " : "", it->string);
        if (want_key && !strcmp(it->string, want_key))
            ent = it;
    }
    if (!want_key) {
        if (ntensors != 1) {
            strbuf_addf(err, "%s holds %d tensors (%s); add 'key: NAME' to pick one", file, ntensors, names.buf);
            strbuf_release(&names);
            goto out;
        }
        cJSON_ArrayForEach(it, root) if (it->string && strcmp(it->string, "__metadata__")) ent = it;
    } else if (!ent) {
        strbuf_addf(err, "%s has no tensor '%s'; it holds: %s", file, want_key, ntensors ? names.buf : "nothing");
        strbuf_release(&names);
        goto out;
    }
    strbuf_release(&names);
    const char *name = ent->string;
    const cJSON *dt = cJSON_GetObjectItemCaseSensitive(ent, "dtype");
    const cJSON *sh = cJSON_GetObjectItemCaseSensitive(ent, "shape");
    const cJSON *off = cJSON_GetObjectItemCaseSensitive(ent, "data_offsets");
    if (!cJSON_IsString(dt) || !(ft->dtype = dtype_from_safetensors(dt->valuestring))) {
        strbuf_addf(err, "%s: tensor '%s': dtype %s%s%s is not supported; expected F32 F16 BF16 F64 I64 I32 I16 "
                    "I8 U8 BOOL C64 C128", file, name, cJSON_IsString(dt) ? "'" : "", cJSON_IsString(dt) ? dt->valuestring
                    : "(missing)", cJSON_IsString(dt) ? "'" : "");
        goto out;
    }
    int nd = cJSON_IsArray(sh) ? cJSON_GetArraySize(sh) : -1;
    if (nd < 0 || nd > TENSOR_MAX_DIMS) {
        strbuf_addf(err, "%s: tensor '%s': shape must be a list of at most %d sizes", file, name, TENSOR_MAX_DIMS);
        goto out;
    }
    ft->ndim = 0;
    cJSON_ArrayForEach(it, sh) {
        double v = it->valuedouble;
        if (!cJSON_IsNumber(it) || v < 0 || v > (double)MAX_NUMEL || v != (double)(int64_t)v) {
            strbuf_addf(err, "%s: tensor '%s': shape[%d] is not a non-negative integer", file, name, ft->ndim);
            goto out;
        }
        ft->shape[ft->ndim++] = (int64_t)v;
    }
    if (!cJSON_IsArray(off) || cJSON_GetArraySize(off) != 2 || !cJSON_IsNumber(cJSON_GetArrayItem(off, 0)) ||
        !cJSON_IsNumber(cJSON_GetArrayItem(off, 1))) {
        strbuf_addf(err, "%s: tensor '%s': data_offsets must be [begin, end]", file, name);
        goto out;
    }
    double b = cJSON_GetArrayItem(off, 0)->valuedouble, e = cJSON_GetArrayItem(off, 1)->valuedouble;
    uint64_t data_len = fsize - 8 - hlen, numel = 0;
    if (b < 0 || e < b || e > (double)data_len || b != (double)(uint64_t)b || e != (double)(uint64_t)e) {
        strbuf_addf(err, "%s: tensor '%s': data_offsets [%.0f, %.0f] fall outside the %" PRIu64
                    "-byte data section", file, name, b, e, data_len);
        goto out;
    }
    if (tensor_file_numel(ft->shape, ft->ndim, &numel) < 0 || (uint64_t)(e - b) != numel * dtype_size(ft->dtype)) {
        strbuf_addf(err, "%s: tensor '%s': data_offsets span %.0f bytes, but shape and dtype need %" PRIu64,
                    file, name, e - b, numel * dtype_size(ft->dtype));
        goto out;
    }
    ft->offset = 8 + hlen + (uint64_t)b;
    ft->nbytes = (uint64_t)(e - b);
    rc = 0;
out:
    cJSON_Delete(root);
    free(h);
    return rc;
}

static void shape_str(strbuf *sb, const int64_t *shape, int ndim)
{
    strbuf_addch(sb, '[');
    for (int i = 0; i < ndim; i++)
        strbuf_addf(sb, "%s%" PRId64, i ? ", " : "", shape[i]);
    strbuf_addch(sb, ']');
}

/* Opens a `fill: file` input's file and checks what it holds against the
 * spec (kind, key, dtype, shape): 0 with *fd open and *ft filled, -1 with
 * err ("input N: ..."). */
static int open_input_file(const input_spec *in, int index, int *fdp, file_tensor *ft, strbuf *err)
{
    *fdp = -1;
    if (!in->file) {
        strbuf_addf(err, "input %d: fill: file without a file", index);
        return -1;
    }
    int fd = open(in->file, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        strbuf_addf(err, "input %d: cannot open %s: %s", index, in->file, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        strbuf_addf(err, "input %d: %s is not a regular file", index, in->file);
        close(fd);
        return -1;
    }
    uint64_t fsize = (uint64_t)st.st_size;
    unsigned char magic[6] = {0};
    int is_npy = fsize >= 6 && tensor_file_read_at(fd, magic, 6, 0) == 0 && skip_prefix_mem((const char *)magic, 6, "\x93NUMPY", NULL, NULL);
    int rc = -1;
    memset(ft, 0, sizeof *ft);
    if (is_npy || ends_with(in->file, ".npy")) {
        if (in->key)
            strbuf_addf(err, "input %d: 'key' is for .safetensors files, and %s is a .npy file", index, in->file);
        else if (npy_read_header(fd, fsize, in->file, ft, err) == 0)
            rc = 0;
    } else if (ends_with(in->file, ".safetensors")) {
        rc = st_read(fd, fsize, in->file, in->key, ft, err);
    } else {
        strbuf_addf(err, "input %d: %s is neither a .npy file nor named *.safetensors", index, in->file);
    }
    if (rc == 0 && strcmp(ft->dtype, in->dtype ? in->dtype : "")) {
        strbuf_addf(err, "input %d: %s holds %s, the spec says dtype %s; fix the spec or convert the file",
                    index, in->file, ft->dtype, in->dtype ? in->dtype : "(none)");
        rc = -1;
    }
    if (rc == 0 && (ft->ndim != in->ndim || memcmp(ft->shape, in->shape, (size_t)ft->ndim * sizeof *ft->shape))) {
        strbuf_addf(err, "input %d: %s has shape ", index, in->file);
        shape_str(err, ft->shape, ft->ndim);
        strbuf_addstr(err, ", the spec says ");
        shape_str(err, in->shape, in->ndim);
        rc = -1;
    }
    if (rc < 0)
        close(fd);
    else
        *fdp = fd;
    return rc;
}

static int inputs_check_files(const session *s, const char *spec, strbuf *err)
{
    for (size_t i = 0; i < s->ninputs; i++) {
        const input_spec *in = &s->inputs[i];
        if (in->fill != FILL_FILE)
            continue;
        int fd;
        file_tensor ft;
        strbuf why = STRBUF_INIT;
        if (open_input_file(in, (int)i, &fd, &ft, &why) < 0) {
            if (in->file_line)
                strbuf_addf(err, "%s:%d:%d: ", spec, in->file_line, in->file_col);
            strbuf_add(err, why.buf, why.len);
            strbuf_release(&why);
            return -1;
        }
        close(fd);
        strbuf_release(&why);
    }
    return 0;
}

int inputs_materialize_file(const input_spec *in, int index, const char *dir, char **raw_path, strbuf *err)
{
    *raw_path = NULL;
    int fd;
    file_tensor ft;
    if (open_input_file(in, index, &fd, &ft, err) < 0)
        return -1;
    int rc = -1, out = -1;
    char *path = NULL;
    strbuf tmp = STRBUF_INIT;
    strbuf_addf(&tmp, "input%d.raw", index);
    path = path_join(dir, tmp.buf);
    out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (out < 0) {
        strbuf_addf(err, "input %d: cannot write %s: %s", index, path, strerror(errno));
        goto done;
    }
    static char buf[1 << 16];
    for (uint64_t done = 0; done < ft.nbytes;) {
        size_t n = ft.nbytes - done < sizeof buf ? (size_t)(ft.nbytes - done) : sizeof buf;
        if (tensor_file_read_at(fd, buf, n, ft.offset + done) < 0) {
            strbuf_addf(err, "input %d: %s: read failed at byte %" PRIu64, index, in->file, ft.offset + done);
            goto done;
        }
        for (size_t w = 0; w < n;) {
            ssize_t r = write(out, buf + w, n - w);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0) {
                strbuf_addf(err, "input %d: writing %s failed: %s", index, path, strerror(errno));
                goto done;
            }
            w += (size_t)r;
        }
        done += n;
    }
    if (close(out) < 0) {
        out = -1;
        strbuf_addf(err, "input %d: writing %s failed: %s", index, path, strerror(errno));
        goto done;
    }
    out = -1;
    *raw_path = path;
    path = NULL;
    rc = 0;
done:
    if (out >= 0)
        close(out);
    if (path && rc < 0)
        unlink(path);
    free(path);
    strbuf_release(&tmp);
    close(fd);
    return rc;
}

/* 1 when names holds no name but positional ones ("args[0]") and no spec input is named by one
 * of those or by an AOTI name: the spec's names can only be labels. */
static int names_are_labels(const session *s, const char *const *names, const char *const *aoti_names, size_t n)
{
    for (size_t j = 0; names && j < n; j++)
        if (names[j] && *names[j] && strncmp(names[j], "args[", 5))
            return 0;
    for (size_t i = 0; i < s->ninputs; i++)
        for (size_t j = 0; j < n; j++)
            if ((aoti_names && aoti_names[j] && !strcmp(aoti_names[j], s->inputs[i].name)) ||
                (names && names[j] && !strcmp(names[j], s->inputs[i].name)))   /* "args[1]" still orders */
                return 0;
    return 1;
}

int inputs_order_by_name(session *s, const char *spec_path, const char *const *names,
                         const char *const *aoti_names, size_t n, int *labels, strbuf *err)
{
    size_t named = 0;
    if (labels)
        *labels = 0;
    for (size_t i = 0; i < s->ninputs; i++)
        named += s->inputs[i].name != NULL;
    if (!named)
        return 0;
    if (named != s->ninputs) {
        strbuf_addf(err, "%s: %zu of %zu inputs have a name: name every input, or none (then they go in model "
                    "order)", spec_path, named, s->ninputs);
        return -1;
    }
    if (names_are_labels(s, names, aoti_names, n)) {
        if (labels)
            *labels = 1;
        return 0;
    }
    input_spec *ordered = arena_alloc(&s->arena, (n ? n : 1) * sizeof *ordered);
    unsigned char *used = xcalloc(n ? n : 1, 1);
    int rc = -1;
    for (size_t i = 0; i < s->ninputs; i++) {
        const char *nm = s->inputs[i].name;
        size_t k = n;
        for (size_t j = 0; j < n && k == n; j++)
            if ((names && names[j] && !strcmp(names[j], nm)) || (aoti_names && aoti_names[j] && !strcmp(aoti_names[j], nm)))
                k = j;
        if (k == n) {
            strbuf_addf(err, "%s: input '%s': the model has no input of that name; it takes", spec_path, nm);
            for (size_t j = 0; j < n; j++)
                strbuf_addf(err, "%s %s", j ? "," : "", names && names[j] && *names[j] ? names[j]
                            : aoti_names && aoti_names[j] ? aoti_names[j] : "?");
            goto out;
        }
        if (used[k]) {
            strbuf_addf(err, "%s: input '%s' is given twice", spec_path, nm);
            goto out;
        }
        used[k] = 1;
        ordered[k] = s->inputs[i];
    }
    for (size_t j = 0; j < n; j++)
        if (!used[j]) {
            strbuf_addf(err, "%s: no input named %s%s%s%s", spec_path,
                        names && names[j] && *names[j] ? names[j] : "", names && names[j] && *names[j] ? " (" : "",
                        aoti_names && aoti_names[j] ? aoti_names[j] : "?", names && names[j] && *names[j] ? ")" : "");
            goto out;
        }
    s->inputs = ordered;
    s->ninputs = n;
    rc = 0;
out:
    free(used);
    return rc;
}
