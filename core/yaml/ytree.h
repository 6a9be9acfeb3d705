/* ytree.h — a small YAML document (routes.yaml, an inputs spec, a theme,
 * keys.yaml) read into a tree over yevent.h, with its limits, duplicate keys
 * refused, and every node's 1-based line:col kept so that the checks that
 * follow can say where a value is wrong. Sessions are streamed instead
 * (session_read.c): they can be gigabytes.
 * Errors: -1 and "NAME:LINE:COL: found X, expected Y" appended to err.
 * Ownership: nodes and strings live in the arena the caller passes. */
#ifndef AOTIDBG_YTREE_H
#define AOTIDBG_YTREE_H
#include <stddef.h>
#include "arena.h"
#include "strbuf.h"
#include "yevent.h"

enum { Y_SCALAR, Y_MAP, Y_SEQ };

typedef struct ynode ynode;
struct ynode {
    int type;                  /* Y_* */
    size_t line, col;          /* 1-based */
    const char *value;         /* Y_SCALAR: NUL-terminated (NUL bytes are refused) */
    int plain;                 /* an unquoted scalar (so "yes" or "1" were meant as words) */
    size_t n, cap;             /* children */
    ynode **items;             /* Y_SEQ: the items; Y_MAP: key at even, its value at the odd after */
};

/* Parses text (one document) into *root (NULL for an empty document).
 * name is for messages. */
int ytree_parse(arena *a, const char *name, const char *text, size_t len, const ylimits *lim, ynode **root,
                strbuf *err);
/* Reads path (at most max_bytes; a directory or a bigger file is an error)
 * and parses it. */
int ytree_load(arena *a, const char *path, size_t max_bytes, const ylimits *lim, ynode **root, strbuf *err);
/* The value of key in a mapping; NULL when absent or map is not one. */
const ynode *ytree_get(const ynode *map, const char *key);

#endif
