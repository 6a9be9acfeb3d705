/* eager_program.c — an exported program read for the runner (eager_program.h). */
#define _GNU_SOURCE
#include "eager_program.h"
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zip.h>
#include "arena.h"
#include "compat.h"
#include "protocol.h"

#define JSON_MAX (256u << 20)   /* bytes of one JSON entry read */
#define STACK_MAX (64u << 10)   /* bytes of one node's stack trace kept */

/* The fx graph's view of a value: a node, or a getitem of a node that returns several. */
typedef struct {
    const char *name;
    const char *op;            /* "view", "add", ...; "getitem" */
    const char *first;         /* the name its first positional argument reads; NULL none */
    const char **ins;          /* the values it reads */
    size_t nins;
    int tensor;                /* holds one tensor (a node of several results does not) */
    const char *stack;         /* its metadata's stack_trace; NULL none */
    int derived;               /* not the graph's: eager_program_without_bias made it */
} fx_value;

typedef struct {
    const char *placeholder, *record, *dtype, *fqn;
    int ndim;
    int64_t shape[TENSOR_MAX_DIMS], strides[TENSOR_MAX_DIMS];
    int64_t storage_offset;
} weight_row;

struct eager_program {
    arena a;
    const char *path;
    proto_msg *nodes;          /* EAGER_NODE frames, in graph order */
    size_t nnodes, capnodes;
    fx_value *vals;
    size_t nvals, capvals;
    /* vals by name, built as eager_program_index asks (the first of a name, as a scan finds it):
     * slots hold index + 1 (0 empty), hcap a power of two; vals[0..nhashed) are in it */
    size_t *slots, hcap, nhashed;
    weight_row *weights;
    size_t nweights, capweights;
    const char **inputs;       /* user-input placeholders, in order */
    size_t ninputs, capinputs;
    const char **outputs;      /* the graph's outputs */
    size_t noutputs, capoutputs;
};

static const char *const view_ops[] = {
    "view", "_unsafe_view", "reshape", "permute", "t", "transpose", "expand", "squeeze", "unsqueeze", "select",
    "slice", "as_strided", "alias", "detach", "view_as", "flatten", "unflatten", "narrow", "split", "chunk",
    "unbind", "diagonal", "movedim", "contiguous", NULL,
};

/* torch/_export/serde/schema.py ScalarType -> our canonical dtype names */
static const struct {
    int serde;
    const char *name;
} dtypes[] = {
    {1, "uint8"}, {2, "int8"}, {3, "int16"}, {4, "int32"}, {5, "int64"}, {6, "float16"}, {7, "float32"},
    {8, "float64"}, {9, "complex32"}, {10, "complex64"}, {11, "complex128"}, {12, "bool"}, {13, "bfloat16"},
    {28, "uint16"}, {29, "float8_e4m3fn"}, {30, "float8_e5m2"}, {31, "float8_e4m3fnuz"}, {32, "float8_e5m2fnuz"},
    {34, "uint32"}, {35, "uint64"},
};

static const char *dtype_name(int serde)
{
    for (size_t i = 0; i < sizeof dtypes / sizeof *dtypes; i++)
        if (dtypes[i].serde == serde)
            return dtypes[i].name;
    return NULL;
}

static int name_ok(const char *n)
{
    if (!n || !*n || strlen(n) > 200 || (n[0] >= '0' && n[0] <= '9'))
        return 0;
    return strspn(n, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == strlen(n);
}

static const cJSON *get(const cJSON *o, const char *k) { return cJSON_GetObjectItemCaseSensitive(o, k); }

/* An Argument union: its one key and value. */
static const char *arg_kind(const cJSON *arg, const cJSON **val)
{
    *val = NULL;
    if (!cJSON_IsObject(arg) || !arg->child)
        return NULL;
    *val = arg->child;
    return arg->child->string;
}

/* ---- reading ------------------------------------------------------------------------ */

typedef struct {
    eager_program *p;
    strbuf *err;
    int weights_only;          /* eager_program_read_weights: the signature and weights only */
} rd;

static int bad(rd *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(rd *r, const char *fmt, ...)
{
    strbuf_addf(r->err, "%s: ", r->p->path);
    va_list ap;
    va_start(ap, fmt);
    strbuf_vaddf(r->err, fmt, ap);
    va_end(ap);
    return -1;
}

static int read_entry(zip_t *z, const char *name, strbuf *sb, rd *r)
{
    zip_stat_t st;
    zip_file_t *f = NULL;
    if (zip_stat(z, name, 0, &st) < 0 || !(st.valid & ZIP_STAT_SIZE) || st.size > JSON_MAX ||
        !(f = zip_fopen(z, name, 0)))
        return bad(r, "%s is missing, unreadable or over %u MiB", name, JSON_MAX >> 20);
    strbuf_grow(sb, (size_t)st.size + 1);
    zip_int64_t n = zip_fread(f, sb->buf, st.size);
    zip_fclose(f);
    if (n < 0 || (zip_uint64_t)n != st.size)
        return bad(r, "%s: short read", name);
    sb->len = (size_t)n;
    sb->buf[n] = 0;
    return 0;
}

/* Entry name parsed into *out; an optional entry that is not there leaves *out NULL. */
static int read_json(zip_t *z, const char *name, int optional, strbuf *text, cJSON **out, rd *r)
{
    *out = NULL;
    if (optional && zip_name_locate(z, name, 0) < 0)
        return 0;
    strbuf_reset(text);
    if (read_entry(z, name, text, r) < 0)
        return -1;
    if (!(*out = cJSON_ParseWithLength(text->buf, text->len)))
        return bad(r, "%s is not JSON cJSON reads (near byte %zu)", name,
                   cJSON_GetErrorPtr() ? (size_t)(cJSON_GetErrorPtr() - text->buf) : (size_t)0);
    return 0;
}

/* A JSON integer that a double holds exactly (INT64 bounds: torch's "to the end" sentinels). */
static int json_int(const cJSON *v, int64_t *out)
{
    if (!cJSON_IsNumber(v) && !cJSON_IsBool(v))
        return -1;
    if (cJSON_IsBool(v)) {
        *out = cJSON_IsTrue(v);
        return 0;
    }
    double d = v->valuedouble;
    if (d >= 9.2e18)
        *out = INT64_MAX;
    else if (d <= -9.2e18)
        *out = INT64_MIN;
    else if (fabs(d) <= 9007199254740992.0 && d == floor(d))
        *out = (int64_t)d;
    else
        return -1;
    return 0;
}

static int json_float(const cJSON *v, double *out)
{
    if (cJSON_IsNumber(v)) {
        *out = v->valuedouble;
        return 0;
    }
    if (cJSON_IsString(v)) {   /* "inf", "-inf", "nan" as some versions write them */
        char *end;
        *out = strtod(v->valuestring, &end);
        return *end || end == v->valuestring ? -1 : 0;
    }
    return -1;
}

/* {"as_int": N} items (sizes, strides: SymInt arguments). */
static int sym_ints(rd *r, const cJSON *arr, int64_t *out, int max, const char *what)
{
    int n = 0;
    const cJSON *it;
    if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) > max)
        return bad(r, "%s is not a list of at most %d sizes", what, max);
    cJSON_ArrayForEach(it, arr)
    {
        const cJSON *v = get(it, "as_int");
        if (!v || json_int(v, &out[n]) < 0)
            return bad(r, "%s holds a symbolic size (symbolic shapes)", what);
        n++;
    }
    return n;
}

static const char *tensor_name(const cJSON *t)
{
    const cJSON *n = get(t, "name");
    return cJSON_IsString(n) && name_ok(n->valuestring) ? n->valuestring : NULL;
}

/* The serialized Argument kinds the runner maps (eager_plan.h); `list`: a JSON list of items. */
static const struct {
    const char *key;
    uint8_t kind, list;
} arg_kinds[] = {
    {"as_none", EAGER_ARG_NONE, 0},
    {"as_tensor", EAGER_ARG_TENSOR, 0},
    {"as_tensors", EAGER_ARG_TENSORS, 1},
    {"as_optional_tensor", EAGER_ARG_OPT_TENSOR, 0},
    {"as_optional_tensors", EAGER_ARG_OPT_TENSORS, 1},
    {"as_int", EAGER_ARG_INT, 0},
    {"as_ints", EAGER_ARG_INTS, 1},
    {"as_bool", EAGER_ARG_BOOL, 0},
    {"as_bools", EAGER_ARG_BOOLS, 1},
    {"as_scalar_type", EAGER_ARG_SCALAR_TYPE, 0},
    {"as_memory_format", EAGER_ARG_MEMORY_FORMAT, 0},
    {"as_layout", EAGER_ARG_LAYOUT, 0},
    {"as_float", EAGER_ARG_FLOAT, 0},
    {"as_floats", EAGER_ARG_FLOATS, 1},
    {"as_string", EAGER_ARG_STRING, 0},
    {"as_strings", EAGER_ARG_STRINGS, 1},
    {"as_device", EAGER_ARG_DEVICE, 0},
};

/* One tensor item: {"name": N}, or for optional ones {"as_tensor": {...}} / {"as_none": ...} ("" = None). */
static const char *tensor_item(const cJSON *it, int optional)
{
    if (optional) {
        const cJSON *tv;
        const char *k = arg_kind(it, &tv);
        if (k && !strcmp(k, "as_none"))
            return "";
        if (!k || strcmp(k, "as_tensor"))
            return NULL;
        it = tv;
    }
    return tensor_name(it);
}

/* One serialized Argument into an EAGER_NODE argument; its tensors appended to the value's reads. */
static int argument(rd *r, const char *node, const char *argname, const cJSON *arg, proto_eager_arg *a, fx_value *v)
{
    eager_program *p = r->p;
    const cJSON *val;
    const char *k = arg_kind(arg, &val);
    a->name = arena_strdup(&p->a, argname);
    a->text = "";
    size_t row = 0, nrows = sizeof arg_kinds / sizeof *arg_kinds;
    while (k && row < nrows && strcmp(arg_kinds[row].key, k))
        row++;
    if (!k || row == nrows)
        return bad(r, "node %s: argument %s is %s%s", node, argname, k ? k : "not an Argument",
                   !k ? "" : strstr(k, "sym") ? " (symbolic shapes)" : !strcmp(k, "as_graph") ? " (a higher-order op)" : "");
    a->kind = arg_kinds[row].kind;
    if (arg_kinds[row].list && !cJSON_IsArray(val))
        return bad(r, "node %s: argument %s (%s) is not a list", node, argname, k);
    int n = arg_kinds[row].list ? cJSON_GetArraySize(val) : 1;
    if (n > 1 << 20)
        return bad(r, "node %s: argument %s is too long", node, argname);
    const cJSON *it = arg_kinds[row].list ? val->child : val;
    switch (a->kind) {
    case EAGER_ARG_NONE:
        return 0;
    case EAGER_ARG_DEVICE: {   /* the runner puts the reference's device there */
        const cJSON *t = get(val, "type");
        a->text = arena_strdup(&p->a, cJSON_IsString(t) ? t->valuestring : "");
        return 0;
    }
    case EAGER_ARG_TENSOR: case EAGER_ARG_TENSORS: case EAGER_ARG_OPT_TENSOR: case EAGER_ARG_OPT_TENSORS: {
        int optional = a->kind == EAGER_ARG_OPT_TENSOR || a->kind == EAGER_ARG_OPT_TENSORS;
        a->nnames = (uint32_t)n;
        a->names = arena_alloc(&p->a, (size_t)(n + 1) * sizeof *a->names);
        const char **grown = arena_alloc(&p->a, (v->nins + (size_t)n + 1) * sizeof *grown);
        if (v->nins)
            memcpy(grown, v->ins, v->nins * sizeof *grown);
        v->ins = grown;
        for (int i = 0; i < n; i++, it = it->next) {
            const char *tn = tensor_item(it, optional);
            if (!tn)
                return bad(r, "node %s: argument %s names no usable tensor", node, argname);
            a->names[i] = *tn ? arena_strdup(&p->a, tn) : "";
            if (*tn)
                v->ins[v->nins++] = a->names[i];
        }
        return 0;
    }
    case EAGER_ARG_FLOAT: case EAGER_ARG_FLOATS:
        a->nfloats = (uint32_t)n;
        a->floats = arena_alloc(&p->a, (size_t)(n + 1) * sizeof *a->floats);
        for (int i = 0; i < n; i++, it = it->next)
            if (json_float(it, &a->floats[i]) < 0)
                return bad(r, "node %s: argument %s (%s) holds a value that is not a number", node, argname, k);
        return 0;
    case EAGER_ARG_STRING: case EAGER_ARG_STRINGS:
        a->names = arena_alloc(&p->a, (size_t)(n + 1) * sizeof *a->names);
        for (int i = 0; i < n; i++, it = it->next) {
            if (!cJSON_IsString(it))
                return bad(r, "node %s: argument %s (%s) holds a value that is not a string", node, argname, k);
            a->names[i] = arena_strdup(&p->a, it->valuestring);
        }
        if (a->kind == EAGER_ARG_STRING)
            a->text = a->names[0];
        else
            a->nnames = (uint32_t)n;
        return 0;
    default:   /* integers: int, bool, scalar type, memory format, layout, and their lists */
        a->nints = (uint32_t)n;
        a->ints = arena_alloc(&p->a, (size_t)(n + 1) * sizeof *a->ints);
        for (int i = 0; i < n; i++, it = it->next)
            if (json_int(it, &a->ints[i]) < 0)
                return bad(r, "node %s: argument %s (%s) holds a value that is not an integer a double holds", node,
                           argname, k);
        return 0;
    }
}

static fx_value *add_value(eager_program *p)
{
    p->vals = arena_grow(&p->a, p->vals, p->nvals, &p->capvals, sizeof *p->vals, 256);
    fx_value *v = &p->vals[p->nvals++];
    memset(v, 0, sizeof *v);
    return v;
}

static int read_node(rd *r, const cJSON *n)
{
    eager_program *p = r->p;
    const cJSON *target = get(n, "target"), *inputs = get(n, "inputs"), *outputs = get(n, "outputs"),
                *name = get(n, "name");
    if (!cJSON_IsString(target) || !cJSON_IsArray(inputs) || !cJSON_IsArray(outputs))
        return bad(r, "a node without target, inputs or outputs (an unknown layout)");
    const char *t = target->valuestring;
    /* torch.ops.<ns>.<op>.<overload>, not torch.ops.higher_order.* */
    char op[128];
    const char *rest = starts_with(t, "torch.ops.") ? t + 10 : NULL, *dot = rest ? strchr(rest, '.') : NULL,
               *dot2 = dot ? strchr(dot + 1, '.') : NULL;
    if (!dot2 || strchr(dot2 + 1, '.') || starts_with(rest, "higher_order.") || (size_t)(dot2 - dot) >= sizeof op)
        return bad(r, "node %s: %s is not an operator overload (a higher-order op or a Python function)",
                   cJSON_IsString(name) ? name->valuestring : "?", t);
    snprintf(op, sizeof op, "%.*s", (int)(dot2 - dot - 1), dot + 1);

    /* the node's name: its own (torch 2.11+), else its one tensor output's */
    const cJSON *o0v = NULL;
    const char *o0 = cJSON_GetArraySize(outputs) == 1 ? arg_kind(outputs->child, &o0v) : NULL;
    const char *nm = cJSON_IsString(name) ? name->valuestring
                     : o0 && !strcmp(o0, "as_tensor") ? tensor_name(o0v) : NULL;
    if (!name_ok(nm))
        return bad(r, "a %s node has no usable name", t);

    p->nodes = arena_grow(&p->a, p->nodes, p->nnodes, &p->capnodes, sizeof *p->nodes, 256);
    proto_msg *m = &p->nodes[p->nnodes++];
    memset(m, 0, sizeof *m);
    m->type = PROTO_EAGER_NODE;
    m->u.eager_node.name = arena_strdup(&p->a, nm);
    m->u.eager_node.target = arena_strdup(&p->a, t);
    fx_value *v = add_value(p);
    v->name = m->u.eager_node.name;
    v->op = arena_strdup(&p->a, op);
    const cJSON *st = get(get(n, "metadata"), "stack_trace");
    if (cJSON_IsString(st) && strlen(st->valuestring) < STACK_MAX)
        v->stack = arena_strdup(&p->a, st->valuestring);

    uint32_t na = (uint32_t)cJSON_GetArraySize(inputs);
    m->u.eager_node.args = arena_alloc(&p->a, (na + 1) * sizeof *m->u.eager_node.args);
    const cJSON *in;
    cJSON_ArrayForEach(in, inputs)
    {
        const cJSON *an = get(in, "name"), *arg = get(in, "arg");
        if (!cJSON_IsString(an) || !arg)
            return bad(r, "node %s: an input without name or arg", nm);
        proto_eager_arg *a = &m->u.eager_node.args[m->u.eager_node.nargs++];
        size_t before = p->vals[p->nvals - 1].nins;
        if (argument(r, nm, an->valuestring, arg, a, &p->vals[p->nvals - 1]) < 0)
            return -1;
        v = &p->vals[p->nvals - 1];
        if (in == inputs->child && a->kind == EAGER_ARG_TENSOR && v->nins > before)
            v->first = v->ins[before];
    }

    /* outputs: one tensor (the node is that value), or several (the node stands for its getitems) */
    uint32_t no = 0;
    const cJSON *out;
    cJSON_ArrayForEach(out, outputs) no += 1 + (uint32_t)cJSON_GetArraySize(get(out, "as_tensors"));
    m->u.eager_node.outs = arena_alloc(&p->a, (no + 1) * sizeof *m->u.eager_node.outs);
    uint32_t ret = 0;
    size_t node_val = p->nvals - 1;
    cJSON_ArrayForEach(out, outputs)
    {
        const cJSON *ov;
        const char *ok = arg_kind(out, &ov);
        if (ok && !strcmp(ok, "as_tensor")) {
            const char *tn = tensor_name(ov);
            if (!tn)
                return bad(r, "node %s: an output without a usable name", nm);
            m->u.eager_node.outs[m->u.eager_node.nouts++] = (proto_eager_out){arena_strdup(&p->a, tn), ret, -1};
        } else if (ok && !strcmp(ok, "as_tensors") && cJSON_IsArray(ov)) {
            const cJSON *t1;
            int64_t e = 0;
            cJSON_ArrayForEach(t1, ov)
            {
                const char *tn = tensor_name(t1);
                if (!tn)
                    return bad(r, "node %s: an output without a usable name", nm);
                m->u.eager_node.outs[m->u.eager_node.nouts++] = (proto_eager_out){arena_strdup(&p->a, tn), ret, e++};
            }
        } else if (!ok || strcmp(ok, "as_none")) {
            return bad(r, "node %s: an output is %s (symbolic values)", nm, ok ? ok : "unknown");
        }
        ret++;
    }
    const proto_eager_out *outs = m->u.eager_node.outs;
    if (m->u.eager_node.nouts == 1 && outs[0].elem < 0 && !strcmp(outs[0].name, nm) && cJSON_GetArraySize(outputs) == 1) {
        p->vals[node_val].tensor = 1;
    } else {
        for (uint32_t i = 0; i < m->u.eager_node.nouts; i++) {
            if (starts_with(outs[i].name, nm) && strstr(outs[i].name, "_unused_"))
                continue;   /* a result nothing reads: the fx graph has no getitem for it */
            fx_value *g = add_value(p);
            g->name = outs[i].name;
            g->op = "getitem";
            g->ins = arena_alloc(&p->a, sizeof *g->ins);
            g->ins[0] = g->first = p->nodes[p->nnodes - 1].u.eager_node.name;
            g->nins = 1;
            g->tensor = 1;
        }
    }
    return 0;
}

/* One weight, buffer or constant from a payload config. */
static int read_weight(rd *r, const char *placeholder, const char *fqn, const cJSON *wcfg, const cJSON *ccfg)
{
    eager_program *p = r->p;
    const char *dir = "data/weights/";
    const cJSON *e = get(wcfg, fqn);
    if (!e) {
        e = get(ccfg, fqn);
        dir = "data/constants/";
    }
    const cJSON *path = get(e, "path_name"), *pickle = get(e, "use_pickle"), *meta = get(e, "tensor_meta");
    if (!e || !cJSON_IsString(path) || !cJSON_IsObject(meta))
        return bad(r, "%s (%s) is not in the weights or constants config", fqn, placeholder);
    if (cJSON_IsTrue(pickle))
        return bad(r, "%s is pickled (a tensor subclass)", fqn);
    if (strchr(path->valuestring, '/') || strstr(path->valuestring, ".."))
        return bad(r, "%s: path_name '%s' is not a plain name", fqn, path->valuestring);
    p->weights = arena_grow(&p->a, p->weights, p->nweights, &p->capweights, sizeof *p->weights, 64);
    weight_row *w = &p->weights[p->nweights++];
    memset(w, 0, sizeof *w);
    w->placeholder = arena_strdup(&p->a, placeholder);
    w->fqn = arena_strdup(&p->a, fqn);
    w->record = arena_printf(&p->a, "%s%s", dir, path->valuestring);
    int64_t dt = -1;
    const cJSON *d = get(meta, "dtype"), *layout = get(meta, "layout");
    if (json_int(d, &dt) < 0 || !(w->dtype = dtype_name((int)dt)))
        return bad(r, "%s: dtype %lld is not one aotidbg knows", fqn, (long long)dt);
    int64_t lay = 7;
    if (layout && (json_int(layout, &lay) < 0 || lay != 7))
        return bad(r, "%s is not a strided tensor (layout %lld)", fqn, (long long)lay);
    int nd = sym_ints(r, get(meta, "sizes"), w->shape, TENSOR_MAX_DIMS, fqn);
    int ns = nd < 0 ? -1 : sym_ints(r, get(meta, "strides"), w->strides, TENSOR_MAX_DIMS, fqn);
    if (nd < 0 || ns < 0)
        return -1;
    if (nd != ns)
        return bad(r, "%s: %d sizes and %d strides", fqn, nd, ns);
    w->ndim = nd;
    const cJSON *so = get(get(meta, "storage_offset"), "as_int");
    if (so && json_int(so, &w->storage_offset) < 0)
        return bad(r, "%s: storage offset is not an integer", fqn);
    return 0;
}

/* A graph input (user input, weight, buffer) as a value: a kernel that only lays one out holds it. */
static void add_placeholder(eager_program *p, const char *name)
{
    fx_value *v = add_value(p);
    v->name = arena_strdup(&p->a, name);
    v->op = "placeholder";
    v->tensor = 1;
}

static int read_signature(rd *r, const cJSON *sig, const cJSON *wcfg, const cJSON *ccfg)
{
    eager_program *p = r->p;
    const cJSON *specs = get(sig, "input_specs"), *s;
    if (!cJSON_IsArray(specs))
        return bad(r, "the signature has no input_specs (an unknown layout)");
    cJSON_ArrayForEach(s, specs)
    {
        const cJSON *v;
        const char *k = arg_kind(s, &v);
        const cJSON *arg = get(v, "arg");
        if (k && !strcmp(k, "user_input")) {
            const cJSON *tv;
            const char *ak = arg_kind(arg, &tv);
            const char *nm = ak && !strcmp(ak, "as_tensor") ? tensor_name(tv) : NULL;
            if (!nm && r->weights_only)
                continue;
            if (!nm)
                return bad(r, "a user input is %s, not a tensor", ak ? ak : "unknown");
            p->inputs = arena_grow(&p->a, p->inputs, p->ninputs, &p->capinputs, sizeof *p->inputs, 8);
            p->inputs[p->ninputs++] = arena_strdup(&p->a, nm);
            add_placeholder(p, nm);
            continue;
        }
        const char *fk = !k ? NULL : !strcmp(k, "parameter") ? "parameter_name" : !strcmp(k, "buffer") ? "buffer_name"
                         : !strcmp(k, "tensor_constant") ? "tensor_constant_name" : NULL;
        const cJSON *fqn = fk ? get(v, fk) : NULL;
        const char *ph = tensor_name(arg);
        if ((!fqn || !cJSON_IsString(fqn) || !ph) && r->weights_only)
            continue;   /* custom objects, tokens, constant inputs: no weight to compare */
        if (!fqn || !cJSON_IsString(fqn) || !ph)
            return bad(r, "an input of kind %s (custom objects, tokens and constant inputs are the Python helper's)",
                       k ? k : "unknown");
        if (read_weight(r, ph, fqn->valuestring, wcfg, ccfg) < 0)
            return -1;
        add_placeholder(p, ph);
    }
    return 0;
}

static int read_program(rd *r, zip_t *z)
{
    eager_program *p = r->p;
    /* the archive's root folder and its model: models/model.json, else the only one */
    const char *root = NULL, *model = NULL;
    char *chosen = NULL;
    zip_int64_t ne = zip_get_num_entries(z, 0);
    int nmodels = 0;
    for (zip_int64_t i = 0; i < ne; i++) {
        const char *n = zip_get_name(z, (zip_uint64_t)i, 0);
        const char *m = n ? strstr(n, "/models/") : NULL;
        if (!m || strchr(m + 8, '/') || !ends_with(m, ".json"))
            continue;
        nmodels++;
        if (!chosen || !strcmp(m + 8, "model.json")) {
            free(chosen);
            chosen = xstrdup(n);
        }
    }
    if (!chosen)
        return bad(r, "no models/*.json (not a torch.export.save archive, or an older layout)");
    if (nmodels > 1 && !ends_with(chosen, "/models/model.json")) {
        free(chosen);
        return bad(r, "%d models and none named 'model'", nmodels);
    }
    char *mark = strstr(chosen, "/models/");
    root = arena_printf(&p->a, "%.*s", (int)(mark - chosen), chosen);
    model = arena_printf(&p->a, "%.*s", (int)(strlen(mark + 8) - 5), mark + 8);
    strbuf text = STRBUF_INIT;
    cJSON *prog = NULL, *wc = NULL, *cc = NULL;
    int rc = -1;
    if (read_json(z, chosen, 0, &text, &prog, r) < 0 ||
        read_json(z, arena_printf(&p->a, "%s/data/weights/%s_weights_config.json", root, model), 1, &text, &wc, r) < 0 ||
        read_json(z, arena_printf(&p->a, "%s/data/constants/%s_constants_config.json", root, model), 1, &text, &cc,
                  r) < 0)
        goto done;
    const cJSON *gm = get(prog, "graph_module"), *g = get(gm, "graph"), *nodes = get(g, "nodes"),
                *outs = get(g, "outputs"), *sym = get(g, "sym_int_values"), *it;
    if (!cJSON_IsArray(nodes) || !cJSON_IsArray(outs)) {
        bad(r, "%s has no graph_module.graph.nodes (an unknown layout)", chosen);
        goto done;
    }
    if (r->weights_only) {   /* the graph is not needed for the weights */
        rc = read_signature(r, get(gm, "signature"), get(wc, "config"), get(cc, "config"));
        goto done;
    }
    if (cJSON_GetArraySize(sym) > 0) {
        bad(r, "the program has symbolic shapes (%d symbolic ints)", cJSON_GetArraySize(sym));
        goto done;
    }
    if (read_signature(r, get(gm, "signature"), get(wc, "config"), get(cc, "config")) < 0)
        goto done;
    cJSON_ArrayForEach(it, nodes) if (read_node(r, it) < 0) goto done;
    cJSON_ArrayForEach(it, outs)
    {
        const cJSON *v;
        const char *k = arg_kind(it, &v);
        const char *nm = k && !strcmp(k, "as_tensor") ? tensor_name(v) : NULL;
        if (!nm)
            continue;
        p->outputs = arena_grow(&p->a, p->outputs, p->noutputs, &p->capoutputs, sizeof *p->outputs, 8);
        p->outputs[p->noutputs++] = arena_strdup(&p->a, nm);
    }
    rc = 0;
done:
    cJSON_Delete(prog);
    cJSON_Delete(wc);
    cJSON_Delete(cc);
    strbuf_release(&text);
    free(chosen);
    return rc;
}

static int read_archive(eager_program **out, const char *path, int weights_only, strbuf *err)
{
    *out = NULL;
    eager_program *p = xcalloc(1, sizeof *p);
    p->path = arena_strdup(&p->a, path);
    rd r = {p, err, weights_only};
    int ze = 0;
    zip_t *z = zip_open(path, ZIP_RDONLY, &ze);
    if (!z) {
        zip_error_t e;
        zip_error_init_with_code(&e, ze);
        strbuf_addf(err, "%s: not a zip archive libzip reads (%s)", path, zip_error_strerror(&e));
        zip_error_fini(&e);
        eager_program_free(p);
        return -1;
    }
    int rc = read_program(&r, z);
    zip_discard(z);
    if (rc < 0) {
        eager_program_free(p);
        return -1;
    }
    *out = p;
    return 0;
}

int eager_program_read(eager_program **out, const char *path, strbuf *err)
{
    return read_archive(out, path, 0, err);
}

int eager_program_read_weights(eager_program **out, const char *path, strbuf *err)
{
    return read_archive(out, path, 1, err);
}

size_t eager_program_nweights(const eager_program *p) { return p->nweights; }

void eager_program_weight(const eager_program *p, size_t i, eager_weight *out)
{
    const weight_row *w = &p->weights[i];
    *out = (eager_weight){w->fqn, w->placeholder, w->record, w->dtype, w->ndim, w->shape, w->strides,
                          w->storage_offset};
}

void eager_program_free(eager_program *p)
{
    if (!p)
        return;
    arena_release(&p->a);
    free(p);
}

/* ---- which values a call writes out (aotidbg_eager.py call_refs) ------------------------ */

static fx_value *find(eager_program *p, const char *name)
{
    long i = eager_program_index(p, name);
    return i < 0 ? NULL : &p->vals[i];
}

size_t eager_program_nvalues(const eager_program *p) { return p->nvals; }

static int in_list(const char *const *l, size_t n, const char *s);

const char *eager_program_value(const eager_program *p, size_t i)
{
    return i < p->nvals && strcmp(p->vals[i].op, "getitem") && strcmp(p->vals[i].op, "placeholder") &&
                   !p->vals[i].derived
               ? p->vals[i].name
               : NULL;
}

size_t eager_program_graph_inputs(const eager_program *p, const char *name, const char **out, size_t max)
{
    long at = eager_program_index(p, name);
    size_t n = 0;
    for (size_t k = 0; at >= 0 && k < p->vals[at].nins && n < max; k++) {
        long in = eager_program_index(p, p->vals[at].ins[k]);
        if (in >= 0 && !strcmp(p->vals[in].op, "placeholder") && !in_list(out, n, p->vals[in].name))
            out[n++] = p->vals[in].name;
    }
    return n;
}

/* ops whose result is their first argument's copy, updated (Inductor copies it, then writes into it) */
static const char *const update_ops[] = {
    "index_put", "index_put_", "index_copy", "index_add", "scatter", "scatter_", "scatter_add", "scatter_add_",
    "scatter_reduce", "slice_scatter", "select_scatter", "diagonal_scatter", "masked_scatter", "copy", "copy_", NULL,
};

const char *eager_program_updated_input(const eager_program *p, const char *name)
{
    long at = eager_program_index(p, name);
    if (at < 0 || !p->vals[at].first)
        return NULL;
    int update = 0;
    for (const char *const *u = update_ops; *u && !update; u++)
        update = !strcmp(*u, p->vals[at].op);
    long in = update ? eager_program_index(p, p->vals[at].first) : -1;
    return in >= 0 && !strcmp(p->vals[in].op, "placeholder") ? p->vals[in].name : NULL;
}

const char *eager_program_stack(const eager_program *p, const char *name)
{
    long i = eager_program_index(p, name);
    return i < 0 ? NULL : p->vals[i].stack;
}

static size_t name_hash(const char *s)
{
    size_t h = 1469598103934665603u;   /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

/* The slot of name: where it is, or the empty one it would go in. */
static size_t *slot_of(const eager_program *p, const char *name)
{
    for (size_t h = name_hash(name) & (p->hcap - 1);; h = (h + 1) & (p->hcap - 1))
        if (!p->slots[h] || !strcmp(p->vals[p->slots[h] - 1].name, name))
            return &p->slots[h];
}

/* Brings the index up to the values there are now (a lookup cache: const to the caller). */
static void index_values(eager_program *p)
{
    if (p->nhashed == p->nvals)
        return;
    if (2 * p->nvals >= p->hcap) {   /* at most half full */
        size_t cap = 64;
        while (cap <= 2 * p->nvals)
            cap *= 2;
        p->slots = arena_alloc(&p->a, cap * sizeof *p->slots);   /* zeroed: empty */
        p->hcap = cap;
        p->nhashed = 0;
    }
    for (; p->nhashed < p->nvals; p->nhashed++) {
        size_t *sl = slot_of(p, p->vals[p->nhashed].name);
        if (!*sl)
            *sl = p->nhashed + 1;
    }
}

long eager_program_index(const eager_program *p, const char *name)
{
    index_values((eager_program *)p);
    size_t at = *slot_of(p, name);
    return at ? (long)(at - 1) : -1;
}

static int in_list(const char *const *l, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(l[i], s))
            return 1;
    return 0;
}

static int reads(const fx_value *u, const char *name) { return in_list(u->ins, u->nins, name); }

typedef struct {
    const char **v;
    size_t n, cap;
} names;

static void add_name(eager_program *p, names *l, const char *s)
{
    l->v = arena_grow(&p->a, l->v, l->n, &l->cap, sizeof *l->v, 8);
    l->v[l->n++] = s;
}

void eager_program_refs(eager_program *p, const char *const *want, size_t n, eager_call_refs *out)
{
    memset(out, 0, sizeof *out);
    names inside = {0}, missing = {0}, refs = {0}, combined = {0};
    for (size_t i = 0; i < n; i++) {
        fx_value *v = find(p, want[i]);
        if (!v)
            add_name(p, &missing, arena_strdup(&p->a, want[i]));
        else if (!in_list(inside.v, inside.n, v->name))
            add_name(p, &inside, v->name);
    }
    /* a node of several results stands for its getitems */
    for (size_t i = 0, n0 = inside.n; i < n0; i++)
        for (size_t j = 0; j < p->nvals; j++)
            if (!strcmp(p->vals[j].op, "getitem") && reads(&p->vals[j], inside.v[i]) &&
                !in_list(inside.v, inside.n, p->vals[j].name))
                add_name(p, &inside, p->vals[j].name);
    /* in graph order: those used outside the call (or by the graph's output) */
    names present = {0};
    for (size_t j = 0; j < p->nvals; j++)
        if (in_list(inside.v, inside.n, p->vals[j].name))
            add_name(p, &present, p->vals[j].name);
    names outv = {0};
    for (size_t i = 0; i < present.n; i++) {
        const char *nm = present.v[i];
        int leaves = in_list(p->outputs, p->noutputs, nm);
        for (size_t j = 0; j < p->nvals && !leaves; j++) {
            const fx_value *u = &p->vals[j];
            leaves = strcmp(u->op, "getitem") && reads(u, nm) && !in_list(inside.v, inside.n, u->name);
        }
        if (leaves)
            add_name(p, &outv, nm);
    }
    if (!outv.n && present.n)
        add_name(p, &outv, present.v[present.n - 1]);
    /* a view: the buffer holds the data it views */
    names extra = {0};
    for (size_t i = 0; i < outv.n; i++) {
        const fx_value *src = find(p, outv.v[i]);
        while (src && src->first && in_list(inside.v, inside.n, src->first)) {
            int is_view = 0;
            for (const char *const *vo = view_ops; *vo; vo++)
                is_view |= !strcmp(*vo, src->op);
            if (!is_view)
                break;
            src = find(p, src->first);
            if (src && !in_list(outv.v, outv.n, src->name) && !in_list(extra.v, extra.n, src->name))
                add_name(p, &extra, src->name);
        }
    }
    for (size_t i = 0; i < outv.n + extra.n; i++) {
        const fx_value *v = find(p, i < outv.n ? outv.v[i] : extra.v[i - outv.n]);
        if (v && v->tensor)
            add_name(p, &refs, v->name);
    }
    for (size_t i = 0; i < inside.n; i++)
        add_name(p, &combined, inside.v[i]);
    for (size_t i = 0; i < present.n; i++) {
        const fx_value *v = find(p, present.v[i]);
        for (size_t k = 0; v && k < v->nins; k++)
            if (!in_list(combined.v, combined.n, v->ins[k]))
                add_name(p, &combined, v->ins[k]);
    }
    *out = (eager_call_refs){refs.v, refs.n, missing.v, missing.n, combined.v, combined.n};
}

const char *eager_program_without_bias(eager_program *p, const char *node)
{
    const fx_value *v = find(p, node);
    if (!v || !v->tensor || v->derived || !strcmp(v->op, "getitem") || !strcmp(v->op, "placeholder"))
        return NULL;
    size_t si = 0;
    while (si < p->nnodes && strcmp(p->nodes[si].u.eager_node.name, node))
        si++;
    if (si == p->nnodes)
        return NULL;
    const __typeof__(p->nodes[0].u.eager_node) *n = &p->nodes[si].u.eager_node;
    uint32_t b = 0;
    while (b < n->nargs && strcmp(n->args[b].name, "bias"))
        b++;
    if (b == n->nargs || n->nouts != 1 || n->outs[0].elem >= 0 ||
        (n->args[b].kind != EAGER_ARG_TENSOR && n->args[b].kind != EAGER_ARG_OPT_TENSOR) || !n->args[b].nnames ||
        !*n->args[b].names[0])
        return NULL;
    const char *bias = n->args[b].names[0];
    strbuf sb = STRBUF_INIT;
    strbuf_addf(&sb, "%s__no_bias", node);
    const fx_value *had = find(p, sb.buf);
    const char *name = had && had->derived ? had->name : had ? NULL : arena_strdup(&p->a, sb.buf);
    strbuf_release(&sb);
    if (had || !name)
        return name;
    /* the same node, its bias None, after the graph's nodes (all its inputs are computed then) */
    p->nodes = arena_grow(&p->a, p->nodes, p->nnodes, &p->capnodes, sizeof *p->nodes, 256);
    const proto_msg *src = &p->nodes[si];   /* after the grow: p->nodes may have moved */
    proto_msg *m = &p->nodes[p->nnodes++];
    *m = *src;
    m->u.eager_node.name = name;
    m->u.eager_node.args = arena_memdup(&p->a, src->u.eager_node.args, src->u.eager_node.nargs * sizeof *m->u.eager_node.args);
    m->u.eager_node.args[b] = (proto_eager_arg){.name = src->u.eager_node.args[b].name, .kind = EAGER_ARG_NONE, .text = ""};
    m->u.eager_node.outs = arena_alloc(&p->a, sizeof *m->u.eager_node.outs);
    m->u.eager_node.outs[0] = (proto_eager_out){name, 0, -1};
    v = find(p, node);
    fx_value copy = *v;
    fx_value *d = add_value(p);
    *d = copy;
    d->name = name;
    d->derived = 1;
    d->ins = arena_alloc(&p->a, (copy.nins + 1) * sizeof *d->ins);
    d->nins = 0;
    for (size_t k = 0; k < copy.nins; k++)
        if (strcmp(copy.ins[k], bias))
            d->ins[d->nins++] = copy.ins[k];
    return name;
}

/* ---- the plan ---------------------------------------------------------------------------- */

static int put(strbuf *plan, const proto_msg *m, strbuf *err) { return proto_encode(plan, m, err); }

int eager_program_write_plan(eager_program *p, const char *path, const char *program, const char *device,
                             int float64, const char *out_dir, const char *const *keep, size_t nkeep,
                             const session *s, char *const *raw, strbuf *err)
{
    if (s->ninputs != p->ninputs) {
        strbuf_addf(err, "%s: the program takes %zu inputs, the spec gives %zu", program, p->ninputs, s->ninputs);
        return -1;
    }
    for (size_t i = 0; i < s->ninputs; i++)
        if (s->inputs[i].has_strides) {
            strbuf_addf(err, "input %zu has strides of its own (the Python helper makes those)", i);
            return -1;
        }
    strbuf plan = STRBUF_INIT;
    proto_msg m = {.type = PROTO_EAGER_RUN};
    m.u.eager_run.program = program;
    m.u.eager_run.device = device;
    m.u.eager_run.float64 = float64 ? 1 : 0;
    m.u.eager_run.out_dir = out_dir;
    m.u.eager_run.keep = (const char **)keep;
    m.u.eager_run.nkeep = (uint32_t)nkeep;
    m.u.eager_run.inputs = p->inputs;
    m.u.eager_run.ninputs = (uint32_t)p->ninputs;
    int rc = put(&plan, &m, err);
    for (size_t i = 0; i < s->ninputs && !rc; i++) {
        memset(&m, 0, sizeof m);
        m.type = PROTO_INPUT;
        m.u.input.index = (uint32_t)i;
        m.u.input.spec = s->inputs[i];
        m.u.input.spec.device = "cpu";   /* the runner moves it to the reference's device */
        m.u.input.spec.file_shown = s->inputs[i].file;
        m.u.input.raw_path = raw && raw[i] ? raw[i] : "";
        rc = put(&plan, &m, err);
    }
    for (size_t i = 0; i < p->nweights && !rc; i++) {
        const weight_row *w = &p->weights[i];
        memset(&m, 0, sizeof m);
        m.type = PROTO_CONSTANT;
        m.u.constant = (__typeof__(m.u.constant)){w->placeholder, w->record, w->dtype, 0, w->ndim,
                                                  (int64_t *)w->shape, (int64_t *)w->strides, w->storage_offset};
        rc = put(&plan, &m, err);
    }
    for (size_t i = 0; i < p->nnodes && !rc; i++)
        rc = put(&plan, &p->nodes[i], err);
    if (!rc) {
        strbuf tmp = STRBUF_INIT;
        strbuf_addf(&tmp, "%s.%d.tmp", path, (int)getpid());
        FILE *f = fopen(tmp.buf, "wb");
        int ok = f && fwrite(plan.buf, 1, plan.len, f) == plan.len;
        if (f && fclose(f))
            ok = 0;
        if (!ok || rename(tmp.buf, path)) {
            strbuf_addf(err, "cannot write %s: %s", path, strerror(errno));
            unlink(tmp.buf);
            rc = -1;
        }
        strbuf_release(&tmp);
    }
    strbuf_release(&plan);
    return rc;
}
