/* ytree.h — small YAML documents (themes, key bindings) read into a tree
 * with libyaml's event parser.
 *
 * Limits (these files are user input): 256 KiB file, depth 16, 4096 nodes,
 * 4 KiB scalars; anchors, aliases, tags on collections and duplicate keys are
 * rejected. Every node keeps its 1-based line:col so callers can say where a
 * value is wrong. Errors: NULL result and "file:line:col: message" in err.
 * Ownership: ytree_load returns a tree freed with ytree_free. */
#ifndef AOTIDBG_YTREE_H
#define AOTIDBG_YTREE_H
#include <stddef.h>
#include "strbuf.h"

typedef enum { YT_SCALAR, YT_SEQ, YT_MAP } ytype;

typedef struct ynode {
    ytype type;
    int line, col;                 /* 1-based */
    char *str;                     /* YT_SCALAR */
    size_t n;                      /* children (seq items, or map pairs) */
    struct ynode **keys;           /* YT_MAP: n scalar keys */
    struct ynode **items;          /* YT_SEQ items or YT_MAP values */
} ynode;

ynode *ytree_load(const char *path, strbuf *err);
ynode *ytree_load_mem(const char *name, const char *buf, size_t len, strbuf *err);
void ytree_free(ynode *n);
/* Map lookup by key; NULL when absent or n is not a map. */
const ynode *ytree_get(const ynode *n, const char *key);

#endif
