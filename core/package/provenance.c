/* provenance.c — the package's call table from wrapper.cpp comments and
 * kernel_information.json (see provenance.h). */
#include "provenance.h"
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include "package_sources.h"
#include "compat.h"

/* One kernel_information.json entry. */
typedef struct {
    const char *key;           /* "<kernel>:<N>" */
    size_t name_len;           /* length of <kernel> */
    const cJSON *val;
    int used;
} jentry;

typedef struct {
    session *s;
    jentry *e;                 /* in file order */
    jentry **by_key;           /* sorted by key */
    size_t n;
    size_t skipped;            /* entries of the wrong shape */
} jindex;

static const char *cut_dup(arena *a, const char *s, size_t n)
{
    return arena_strndup(a, s, n > PROV_MAX_STRING ? PROV_MAX_STRING : n);
}

/* "[a, b, , c]" at *p -> the non-empty items; advances past ']'. */
static size_t bracket_list(arena *a, const char **p, const char ***out)
{
    const char *s = *p;
    *out = NULL;
    if (*s != '[')
        return 0;
    const char *end = strchr(s, ']');
    if (!end)
        end = s + strlen(s);
    size_t cap = 0, n = 0;
    const char **v = NULL;
    for (const char *q = s + 1; q < end && n < PROV_MAX_LIST;) {
        while (q < end && *q == ' ')
            q++;
        if (q >= end)
            break;
        const char *c = memchr(q, ',', (size_t)(end - q));
        const char *e = c ? c : end;
        const char *t = e;
        while (t > q && t[-1] == ' ')
            t--;
        if (t > q) {
            v = arena_grow(a, v, n, &cap, sizeof *v, 8);
            v[n++] = cut_dup(a, q, (size_t)(t - q));
        }
        q = c ? c + 1 : end;
    }
    *p = *end ? end + 1 : end;
    *out = v;
    return n;
}

/* "[nodes], Original ATen: [ops]" (the text after "Source Nodes: "). */
/* A copy of n strings in a; NULL when n is 0. */
static const char **strs_dup(arena *a, const char *const *v, size_t n)
{
    if (!n)
        return NULL;
    const char **c = arena_alloc(a, n * sizeof *c);
    for (size_t j = 0; j < n; j++)
        c[j] = arena_strdup(a, v[j]);
    return c;
}

static void parse_nodes_comment(arena *a, const char *text, kernel_call *c)
{
    const char *p = text;
    c->nnodes = bracket_list(a, &p, &c->nodes);
    const char *at = strstr(p, "Original ATen: ");
    if (at) {
        p = at + strlen("Original ATen: ");
        c->naten = bracket_list(a, &p, &c->aten);
    }
}

static size_t json_list(arena *a, const cJSON *obj, const char *key, const char ***out)
{
    *out = NULL;
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!cJSON_IsArray(arr))
        return 0;
    size_t cap = 0, n = 0;
    const char **v = NULL;
    const cJSON *it;
    cJSON_ArrayForEach(it, arr) {
        if (n >= PROV_MAX_LIST)
            break;
        if (!cJSON_IsString(it) || !it->valuestring)
            continue;
        v = arena_grow(a, v, n, &cap, sizeof *v, 8);
        v[n++] = cut_dup(a, it->valuestring, strlen(it->valuestring));
    }
    *out = v;
    return n;
}

static void fill_from_json(arena *a, kernel_call *c, jentry *e)
{
    e->used = 1;
    c->handle = cut_dup(a, e->key, strlen(e->key));
    c->nstack = json_list(a, e->val, "stack_traces", &c->stack);
    c->npre = json_list(a, e->val, "pre_grad_nodes", &c->pre_grad);
    c->npost = json_list(a, e->val, "post_grad_nodes", &c->post_grad);
}

/* The fqn of the weight a graph node names: a constant of that name
 * ("blocks_0_fc_bias" -> "blocks.0.fc.bias"), else, for a weight inductor
 * folded into a kernel (no constant left), "<module>_weight|bias" of a module
 * that has another constant ("head_bias" with "head_weight" -> "head.bias").
 * NULL when it names none. */
static const char *weight_of_node(arena *a, const wrapper_scan *ws, const char *node)
{
    static const char *const kinds[] = {"_weight", "_bias", NULL};
    for (size_t k = 0; k < ws->nconstants; k++)
        if (ws->constants[k].name && !strcmp(ws->constants[k].name, node))
            return ws->constants[k].fqn ? ws->constants[k].fqn : ws->constants[k].name;
    size_t n = strlen(node);
    for (int i = 0; kinds[i]; i++) {
        size_t kl = strlen(kinds[i]);
        if (n <= kl || strcmp(node + n - kl, kinds[i]))
            continue;
        for (size_t k = 0; k < ws->nconstants; k++) {
            const ws_constant *w = &ws->constants[k];
            const char *dot = w->fqn ? strrchr(w->fqn, '.') : NULL;
            size_t pl = n - kl;   /* "head" of "head_bias": the constant must be "head_<param>" */
            if (!dot || !w->name || strncmp(w->name, node, pl) || w->name[pl] != '_' || strchr(w->name + pl + 1, '_'))
                continue;
            return arena_printf(a, "%.*s.%s", (int)(dot - w->fqn), w->fqn, kinds[i] + 1);
        }
    }
    return NULL;
}

/* A call that passes no weight may still compute one: a kernel that copies
 * a bias into its output names it as a graph node (post-grad "head_bias").
 * Those become its weights, as fqns. */
static void weights_from_nodes(arena *a, const wrapper_scan *ws, kernel_call *c)
{
    const char *const *lists[] = {c->post_grad, c->pre_grad, c->nodes};
    const size_t counts[] = {c->npost, c->npre, c->nnodes};
    size_t cap = 0;
    for (int l = 0; l < 3; l++)
        for (size_t i = 0; i < counts[l]; i++) {
            const char *v = weight_of_node(a, ws, lists[l][i]);
            int dup = !v;
            for (size_t j = 0; j < c->nparams && !dup; j++)
                dup = !strcmp(c->params[j], v);
            if (!dup && c->nparams < PROV_MAX_LIST) {
                c->params = arena_grow(a, c->params, c->nparams, &cap, sizeof *c->params, 4);
                c->params[c->nparams++] = arena_strdup(a, v);
            }
        }
}

static int by_key_cmp(const void *x, const void *y)
{
    return strcmp((*(jentry *const *)x)->key, (*(jentry *const *)y)->key);
}

static jentry *find_key(const jindex *ix, const char *key)
{
    size_t lo = 0, hi = ix->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(ix->by_key[mid]->key, key);
        if (!c)
            return ix->by_key[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* The JSON's entries; -1 when it is not an object of objects at all. */
static int index_json(jindex *ix, const cJSON *root, const char *jname, strbuf *err)
{
    if (!cJSON_IsObject(root)) {
        strbuf_addf(err, "%s: not a JSON object of kernel calls (\"<kernel>:<N>\": {...}); provenance from "
                    "wrapper.cpp only", jname);
        return -1;
    }
    size_t n = (size_t)cJSON_GetArraySize(root);
    ix->e = xcalloc(n ? n : 1, sizeof *ix->e);
    ix->by_key = xcalloc(n ? n : 1, sizeof *ix->by_key);
    const cJSON *it;
    cJSON_ArrayForEach(it, root) {
        if (!it->string || !cJSON_IsObject(it)) {
            ix->skipped++;
            continue;
        }
        jentry *e = &ix->e[ix->n];
        e->key = it->string;
        const char *colon = strrchr(it->string, ':');
        e->name_len = colon ? (size_t)(colon - it->string) : strlen(it->string);
        e->val = it;
        ix->by_key[ix->n++] = e;
    }
    qsort(ix->by_key, ix->n, sizeof *ix->by_key, by_key_cmp);
    return 0;
}

/* One row of the table from the wrapper's launch k, with its JSON entry (by
 * handle, else the next unused one of its name from *cursor): 1 when it had one. */
static int call_row(arena *a, const wrapper_scan *ws, jindex *ix, const ws_kernel *k, kernel_call *c, size_t *cursor)
{
    c->kernel = arena_strdup(a, k->name);
    c->line = k->line;
    if (k->source_nodes)
        parse_nodes_comment(a, k->source_nodes, c);
    c->params = strs_dup(a, k->params, c->nparams = k->nparams);
    c->fresh = strs_dup(a, k->fresh, c->nfresh = k->nfresh);
    c->defines = strs_dup(a, k->defines, c->ndefines = k->ndefines);
    c->nbefore = k->nbefore;
    jentry *e = k->handle && ix->n ? find_key(ix, k->handle) : NULL;
    if (e && e->used)
        e = NULL;
    if (!e && k->handle)
        c->handle = cut_dup(a, k->handle, strlen(k->handle));
    for (size_t j = *cursor; !e && !k->handle && j < ix->n; j++) {
        jentry *f = &ix->e[j];
        if (!f->used && f->name_len == strlen(k->name) && !memcmp(f->key, k->name, f->name_len)) {
            e = f;
            *cursor = j + 1;
        }
    }
    if (e)
        fill_from_json(a, c, e);
    if (!c->nparams)
        weights_from_nodes(a, ws, c);
    return e != NULL;
}

int provenance_from_scan(session *s, const wrapper_scan *ws, const char *json, size_t jlen, const char *jname,
                         strbuf *err)
{
    arena *a = &s->arena;
    int rc = 0;
    jindex ix = {.s = s};
    cJSON *root = NULL;
    if (!jname)
        jname = "kernel_information.json";
    if (json && jlen > PROV_MAX_JSON_BYTES) {
        strbuf_addf(err, "%s: %zu bytes, over the %u-byte limit; provenance from wrapper.cpp only", jname, jlen,
                    PROV_MAX_JSON_BYTES);
        json = NULL;
        rc = -1;
    }
    if (json) {
        root = cJSON_ParseWithLength(json, jlen);
        if (!root) {
            const char *at = cJSON_GetErrorPtr();
            strbuf_addf(err, "%s: not valid JSON (near byte %ld); provenance from wrapper.cpp only", jname,
                        at && at >= json && at <= json + jlen ? (long)(at - json) : 0L);
            rc = -1;
        } else if (index_json(&ix, root, jname, err) < 0) {
            rc = -1;
        }
    }
    size_t nws = ws ? ws->nkernels + ws->nunprinted : 0;
    size_t nrows = nws ? nws : ix.n;
    kernel_call *calls = nrows ? arena_alloc(a, nrows * sizeof *calls) : NULL;
    size_t used = 0;
    if (nws) {
        size_t cursor = 0;   /* for rows without a handle: JSON entries in order */
        for (size_t i = 0, pk = 0, pu = 0; i < nrows; i++) {
            /* the printed launches, with the calls the printer does not hook where they come */
            int un = pu < ws->nunprinted && (pk == ws->nkernels || ws->unprinted[pu].after <= pk);
            const ws_kernel *k = un ? &ws->unprinted[pu++] : &ws->kernels[pk++];
            used += call_row(a, ws, &ix, k, &calls[i], &cursor);
        }
    } else {
        for (size_t i = 0; i < nrows; i++) {   /* no wrapper.cpp: the JSON alone */
            calls[i].kernel = cut_dup(a, ix.e[i].key, ix.e[i].name_len);
            fill_from_json(a, &calls[i], &ix.e[i]);
            used++;
        }
    }
    if (ix.skipped && !rc) {
        strbuf_addf(err, "%s: %zu entr%s not of the form \"<kernel>:<N>\": {...}; skipped", jname, ix.skipped,
                    ix.skipped == 1 ? "y" : "ies");
        rc = -1;
    }
    if (nrows) {
        s->prov.calls = calls;
        s->prov.ncalls = nrows;
        s->prov.from = used ? "kernel_information.json" : "wrapper.cpp";
    }
    free(ix.e);
    free(ix.by_key);
    cJSON_Delete(root);
    return rc;
}

int provenance_scan(session *s, const char *wrapper, size_t wlen, const char *json, size_t jlen, const char *jname,
                    strbuf *err)
{
    wrapper_scan ws;
    int have = 0;
    if (wrapper) {
        if (wrapper_scan_text(&ws, wrapper, wlen, err) < 0) {
            wrapper_scan_free(&ws);
            return -1;
        }
        have = 1;
    }
    int rc = provenance_from_scan(s, have ? &ws : NULL, json, jlen, jname, err);
    if (have)
        wrapper_scan_free(&ws);
    return rc;
}

int provenance_load_path(session *s, const char *pkg, strbuf *err)
{
    package_sources src = PACKAGE_SOURCES_INIT;
    int rc = package_sources_read(pkg, NULL, WS_MAX_BYTES, &src, err);
    if (!rc)
        rc = provenance_scan(s, src.wrapper.buf, src.wrapper.len, src.has_kernel_info ? src.kernel_info.buf : NULL,
                             src.kernel_info.len, "kernel_information.json", err);
    package_sources_release(&src);
    return rc;
}
