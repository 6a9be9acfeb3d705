/* ytree.c — YAML to a small tree, with limits (see ytree.h). */
#include "ytree.h"
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#define YT_MAX_FILE  (256u * 1024)
#define YT_MAX_DEPTH 16
#define YT_MAX_NODES 4096
#define YT_MAX_SCALAR 4096

typedef struct {
    yaml_parser_t p;
    const char *name;
    strbuf *err;
    int nodes;
} yctx;

static void *xcalloc(size_t n, size_t sz)
{
    void *p = calloc(n ? n : 1, sz);
    if (!p)
        abort();
    return p;
}

void ytree_free(ynode *n)
{
    if (!n)
        return;
    free(n->str);
    for (size_t i = 0; i < n->n; i++) {
        if (n->keys)
            ytree_free(n->keys[i]);
        ytree_free(n->items[i]);
    }
    free(n->keys);
    free(n->items);
    free(n);
}

static void push(ynode *parent, ynode *key, ynode *val)
{
    /* Grow by one: these documents hold tens of entries. */
    parent->items = realloc(parent->items, (parent->n + 1) * sizeof *parent->items);
    if (!parent->items)
        abort();
    if (parent->type == YT_MAP) {
        parent->keys = realloc(parent->keys, (parent->n + 1) * sizeof *parent->keys);
        if (!parent->keys)
            abort();
        parent->keys[parent->n] = key;
    }
    parent->items[parent->n++] = val;
}

static int fail(yctx *c, const yaml_mark_t *m, const char *msg)
{
    strbuf_addf(c->err, "%s:%zu:%zu: %s", c->name, m->line + 1, m->column + 1, msg);
    return -1;
}

static int next(yctx *c, yaml_event_t *ev)
{
    if (!yaml_parser_parse(&c->p, ev)) {
        strbuf_addf(c->err, "%s:%zu:%zu: %s", c->name, c->p.problem_mark.line + 1,
                    c->p.problem_mark.column + 1, c->p.problem ? c->p.problem : "YAML syntax error");
        if (c->p.context)
            strbuf_addf(c->err, " (%s)", c->p.context);
        return -1;
    }
    return 0;
}

/* Parses one node whose first event is ev (consumed). */
static ynode *parse_node(yctx *c, yaml_event_t *ev, int depth)
{
    if (++c->nodes > YT_MAX_NODES) {
        fail(c, &ev->start_mark, "too many nodes (limit 4096)");
        return NULL;
    }
    if (depth > YT_MAX_DEPTH) {
        fail(c, &ev->start_mark, "nested too deeply (limit 16)");
        return NULL;
    }
    ynode *n = xcalloc(1, sizeof *n);
    n->line = (int)ev->start_mark.line + 1;
    n->col = (int)ev->start_mark.column + 1;
    switch (ev->type) {
    case YAML_ALIAS_EVENT:
        fail(c, &ev->start_mark, "aliases are not allowed here");
        goto bad;
    case YAML_SCALAR_EVENT:
        if (ev->data.scalar.anchor) {
            fail(c, &ev->start_mark, "anchors are not allowed here");
            goto bad;
        }
        if (ev->data.scalar.length > YT_MAX_SCALAR || memchr(ev->data.scalar.value, 0, ev->data.scalar.length)) {
            fail(c, &ev->start_mark, "scalar too long or holds a NUL byte");
            goto bad;
        }
        n->type = YT_SCALAR;
        n->str = strndup((const char *)ev->data.scalar.value, ev->data.scalar.length);
        if (!n->str)
            abort();
        return n;
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT: {
        int is_map = ev->type == YAML_MAPPING_START_EVENT;
        if ((is_map ? ev->data.mapping_start.anchor : ev->data.sequence_start.anchor) != NULL) {
            fail(c, &ev->start_mark, "anchors are not allowed here");
            goto bad;
        }
        n->type = is_map ? YT_MAP : YT_SEQ;
        for (;;) {
            yaml_event_t e;
            if (next(c, &e))
                goto bad;
            if (e.type == YAML_SEQUENCE_END_EVENT || e.type == YAML_MAPPING_END_EVENT) {
                yaml_event_delete(&e);
                return n;
            }
            ynode *key = NULL;
            if (is_map) {
                if (e.type != YAML_SCALAR_EVENT) {
                    fail(c, &e.start_mark, "mapping keys must be plain scalars");
                    yaml_event_delete(&e);
                    goto bad;
                }
                key = parse_node(c, &e, depth + 1);
                yaml_event_delete(&e);
                if (!key)
                    goto bad;
                if (ytree_get(n, key->str)) {
                    strbuf_addf(c->err, "%s:%d:%d: duplicate key '%s'", c->name, key->line, key->col, key->str);
                    ytree_free(key);
                    goto bad;
                }
                if (next(c, &e)) {
                    ytree_free(key);
                    goto bad;
                }
            }
            ynode *val = parse_node(c, &e, depth + 1);
            yaml_event_delete(&e);
            if (!val) {
                ytree_free(key);
                goto bad;
            }
            push(n, key, val);
        }
    }
    default:
        fail(c, &ev->start_mark, "unexpected YAML event");
        goto bad;
    }
bad:
    ytree_free(n);
    return NULL;
}

ynode *ytree_load_mem(const char *name, const char *buf, size_t len, strbuf *err)
{
    if (len > YT_MAX_FILE) {
        strbuf_addf(err, "%s:1:1: file larger than 256 KiB", name);
        return NULL;
    }
    yctx c = {.name = name, .err = err};
    if (!yaml_parser_initialize(&c.p))
        abort();
    yaml_parser_set_input_string(&c.p, (const unsigned char *)buf, len);
    ynode *root = NULL;
    yaml_event_t ev;
    int docs = 0;
    for (;;) {
        if (next(&c, &ev))
            goto out;
        yaml_event_type_t t = ev.type;
        if (t == YAML_STREAM_END_EVENT) {
            yaml_event_delete(&ev);
            break;
        }
        if (t == YAML_STREAM_START_EVENT || t == YAML_DOCUMENT_END_EVENT) {
            yaml_event_delete(&ev);
            continue;
        }
        if (t == YAML_DOCUMENT_START_EVENT) {
            if (++docs > 1) {
                fail(&c, &ev.start_mark, "only one YAML document is allowed");
                yaml_event_delete(&ev);
                goto out;
            }
            yaml_event_delete(&ev);
            continue;
        }
        root = parse_node(&c, &ev, 0);
        yaml_event_delete(&ev);
        if (!root)
            goto out;
    }
    if (!root) {
        strbuf_addf(err, "%s:1:1: empty document", name);
    }
    yaml_parser_delete(&c.p);
    return root;
out:
    ytree_free(root);
    yaml_parser_delete(&c.p);
    return NULL;
}

ynode *ytree_load(const char *path, strbuf *err)
{
    strbuf sb = STRBUF_INIT;
    if (strbuf_read_file(&sb, path, YT_MAX_FILE, err) < 0) {
        strbuf_release(&sb);
        return NULL;
    }
    ynode *n = ytree_load_mem(path, sb.buf, sb.len, err);
    strbuf_release(&sb);
    return n;
}

const ynode *ytree_get(const ynode *n, const char *key)
{
    if (!n || n->type != YT_MAP)
        return NULL;
    for (size_t i = 0; i < n->n; i++)
        if (!strcmp(n->keys[i]->str, key))
            return n->items[i];
    return NULL;
}
