/* ytree.c — see ytree.h. */
#include "ytree.h"
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

/* "a mapping", "a list", "a value": what a node is, for messages. */
static const char *ytree_what(const ynode *n);

typedef struct {
    yev y;
    arena *a;
    const char *name;
    strbuf *err;
} tctx;

static int fail_at(tctx *c, size_t line, size_t col, const char *msg)
{
    strbuf_addf(c->err, "%s:%zu:%zu: %s", c->name, line, col, msg);
    return -1;
}

static int next(tctx *c)
{
    if (yev_next(&c->y))
        return fail_at(c, yev_line(c->y.err_mark), yev_col(c->y.err_mark), c->y.msg.buf);
    return 0;
}

/* One node from the current event; consumes its children. */
static int node(tctx *c, ynode **out)
{
    yaml_event_t *e = &c->y.ev;
    ynode *n = arena_alloc(c->a, sizeof *n);
    n->line = yev_line(e->start_mark);
    n->col = yev_col(e->start_mark);
    *out = n;
    if (e->type == YAML_SCALAR_EVENT) {
        n->type = Y_SCALAR;
        n->value = arena_strndup(c->a, (const char *)e->data.scalar.value, e->data.scalar.length);
        n->plain = e->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
        return 0;
    }
    if (e->type != YAML_SEQUENCE_START_EVENT && e->type != YAML_MAPPING_START_EVENT) {
        strbuf d = STRBUF_INIT;
        yev_describe(e, &d);
        strbuf_addstr(&d, ", expected a value");
        int rc = fail_at(c, n->line, n->col, "found ");
        strbuf_addstr(c->err, d.buf);
        strbuf_release(&d);
        return rc;
    }
    int is_map = e->type == YAML_MAPPING_START_EVENT;
    yaml_event_type_t end = is_map ? YAML_MAPPING_END_EVENT : YAML_SEQUENCE_END_EVENT;
    n->type = is_map ? Y_MAP : Y_SEQ;
    for (;;) {
        if (next(c))
            return -1;
        if (c->y.ev.type == end)
            return 0;
        ynode *kid;
        if (node(c, &kid))
            return -1;
        if (is_map && n->n % 2 == 0) {
            char msg[200];
            if (kid->type != Y_SCALAR) {
                snprintf(msg, sizeof msg, "found %s as a key, expected a plain key", ytree_what(kid));
                return fail_at(c, kid->line, kid->col, msg);
            }
            for (size_t k = 0; k < n->n; k += 2)
                if (!strcmp(n->items[k]->value, kid->value)) {
                    snprintf(msg, sizeof msg, "duplicate key '%.64s' (first at line %zu), expected each key once",
                             kid->value, n->items[k]->line);
                    return fail_at(c, kid->line, kid->col, msg);
                }
        }
        n->items = arena_grow(c->a, n->items, n->n, &n->cap, sizeof *n->items, 8);
        n->items[n->n++] = kid;
    }
}

int ytree_parse(arena *a, const char *name, const char *text, size_t len, const ylimits *lim, ynode **root,
                strbuf *err)
{
    tctx c = {.a = a, .name = name, .err = err};
    *root = NULL;
    if (yev_init_string(&c.y, text, len, lim)) {
        strbuf_addf(err, "%s: out of memory", name);
        return -1;
    }
    int rc = -1, docs = 0;
    for (;;) {
        if (next(&c))
            break;
        yaml_event_type_t t = c.y.ev.type;
        if (t == YAML_STREAM_END_EVENT) {
            rc = 0;
            break;
        }
        if (t == YAML_DOCUMENT_START_EVENT && docs++) {
            fail_at(&c, yev_line(c.y.ev.start_mark), yev_col(c.y.ev.start_mark),
                    "found a second YAML document, expected one");
            break;
        }
        if ((t == YAML_SEQUENCE_START_EVENT || t == YAML_MAPPING_START_EVENT || t == YAML_SCALAR_EVENT) &&
            node(&c, root))
            break;
    }
    yev_release(&c.y);
    if (rc)
        *root = NULL;
    return rc;
}

int ytree_load(arena *a, const char *path, size_t max_bytes, const ylimits *lim, ynode **root, strbuf *err)
{
    *root = NULL;
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        strbuf_addf(err, "%s: is a directory, expected %s", path, lim->doc);
        return -1;
    }
    strbuf text = STRBUF_INIT;
    if (strbuf_read_file(&text, path, max_bytes, err) < 0) {
        strbuf_release(&text);
        return -1;
    }
    int rc = ytree_parse(a, path, text.buf, text.len, lim, root, err);
    strbuf_release(&text);
    return rc;
}

const ynode *ytree_get(const ynode *map, const char *key)
{
    if (!map || map->type != Y_MAP)
        return NULL;
    for (size_t i = 0; i + 1 < map->n; i += 2)
        if (!strcmp(map->items[i]->value, key))
            return map->items[i + 1];
    return NULL;
}

static const char *ytree_what(const ynode *n)
{
    return n->type == Y_MAP ? "a mapping" : n->type == Y_SEQ ? "a list" : "a value";
}
