/* pytree.c — leaf names from AOTI's in_spec_ / out_spec_ (pytree.h). */
#include "pytree.h"
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    arena *a;
    strbuf path;
    const char **names;
    size_t n, cap;
    int keyed;          /* some output path holds a key */
    strbuf *err;
} walk_ctx;

/* The keys of a dict-like node: its context is a JSON string holding a list
 * (dict, OrderedDict), or an object whose "dict_context" is one (defaultdict). */
static cJSON *dict_keys(const cJSON *node)
{
    const cJSON *ctx = cJSON_GetObjectItemCaseSensitive(node, "context");
    if (!cJSON_IsString(ctx) || !ctx->valuestring) return NULL;
    cJSON *j = cJSON_Parse(ctx->valuestring);
    if (cJSON_IsObject(j)) {
        cJSON *dc = cJSON_DetachItemFromObjectCaseSensitive(j, "dict_context");
        cJSON_Delete(j);
        j = dc;
    }
    if (!cJSON_IsArray(j)) {
        cJSON_Delete(j);
        return NULL;
    }
    return j;
}

static void add_leaf(walk_ctx *c)
{
    if (c->n == c->cap) {
        size_t nc = c->cap ? c->cap * 2 : 16;
        const char **nn = arena_alloc(c->a, nc * sizeof *nn);
        if (c->n) memcpy(nn, c->names, c->n * sizeof *nn);
        c->names = nn;
        c->cap = nc;
    }
    c->names[c->n++] = arena_strdup(c->a, c->path.buf);
}

static int walk(walk_ctx *c, const cJSON *node, int depth)
{
    if (depth > PYTREE_MAX_DEPTH) {
        strbuf_addf(c->err, "pytree spec nested deeper than %d", PYTREE_MAX_DEPTH);
        return -1;
    }
    if (!cJSON_IsObject(node)) {
        strbuf_addstr(c->err, "pytree spec: a node is not a JSON object");
        return -1;
    }
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(node, "type");
    const cJSON *kids = cJSON_GetObjectItemCaseSensitive(node, "children_spec");
    int nk = cJSON_IsArray(kids) ? cJSON_GetArraySize(kids) : 0;
    if (cJSON_IsNull(type) || !type) {   /* a leaf: one tensor */
        if (c->n >= PYTREE_MAX_LEAVES) {
            strbuf_addf(c->err, "pytree spec has more than %d leaves", PYTREE_MAX_LEAVES);
            return -1;
        }
        add_leaf(c);
        return 0;
    }
    const char *t = cJSON_IsString(type) && type->valuestring ? type->valuestring : "";
    int dictlike = strstr(t, "dict") || strstr(t, "Dict");
    cJSON *keys = dictlike ? dict_keys(node) : NULL;
    size_t base = c->path.len;
    int rc = 0;
    for (int i = 0; i < nk && !rc; i++) {
        const cJSON *k = keys ? cJSON_GetArrayItem(keys, i) : NULL;
        strbuf_setlen(&c->path, base);
        if (cJSON_IsString(k)) {
            strbuf_addf(&c->path, base ? "['%s']" : "%s", k->valuestring);
            c->keyed = 1;
        } else if (cJSON_IsNumber(k)) {
            strbuf_addf(&c->path, "[%lld]", (long long)k->valuedouble);
            c->keyed = 1;
        } else {
            strbuf_addf(&c->path, "[%d]", i);
        }
        rc = walk(c, cJSON_GetArrayItem(kids, i), depth + 1);
    }
    strbuf_setlen(&c->path, base);
    cJSON_Delete(keys);
    return rc;
}

int pytree_leaf_names(arena *a, const char *json, size_t len, pytree_side side, const char ***names, size_t *n,
                      strbuf *err)
{
    *names = NULL;
    *n = 0;
    cJSON *j = cJSON_ParseWithLength(json, len);
    const cJSON *ver = cJSON_GetArrayItem(j, 0), *root = cJSON_GetArrayItem(j, 1);
    if (!cJSON_IsArray(j) || !cJSON_IsNumber(ver) || ver->valuedouble != 1 || !cJSON_IsObject(root)) {
        strbuf_addstr(err, "not a pytree spec this aotidbg reads (expected [1, {type, context, children_spec}])");
        cJSON_Delete(j);
        return -1;
    }
    walk_ctx c = {.a = a, .path = STRBUF_INIT, .err = err};
    int rc;
    const cJSON *kids = cJSON_GetObjectItemCaseSensitive(root, "children_spec");
    if (side == PYTREE_INPUTS && cJSON_IsArray(kids) && cJSON_GetArraySize(kids) == 2) {
        /* (args, kwargs): positional arguments are args[i], keywords their names */
        strbuf_addstr(&c.path, "args");
        rc = walk(&c, cJSON_GetArrayItem(kids, 0), 1);
        strbuf_reset(&c.path);
        if (!rc) rc = walk(&c, cJSON_GetArrayItem(kids, 1), 1);
    } else {
        rc = walk(&c, root, 0);
    }
    strbuf_release(&c.path);
    cJSON_Delete(j);
    if (rc) return -1;
    if (side == PYTREE_OUTPUTS && !c.keyed)
        for (size_t i = 0; i < c.n; i++) c.names[i] = NULL;
    *names = c.names;
    *n = c.n;
    return 0;
}
