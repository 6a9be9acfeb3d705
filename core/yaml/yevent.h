/* yevent.h — libyaml's event stream with our limits, the one place where
 * aotidbg reads YAML (ytree.h builds a tree on it; session_read.c streams it).
 *
 * Every file we read is untrusted: nesting depth, scalar size and node count
 * are capped, anchors and aliases are refused, a NUL byte in a value is
 * refused. On failure yev_next() returns -1 with the problem in y->msg
 * ("found X, expected Y") and where it is in y->err_mark; the caller adds
 * its file name: yev_line()/yev_col() give the 1-based line:col (libyaml's
 * marks are 0-based). Ownership: yev_release frees the parser and the event.
 * Threads: one stream per thread. */
#ifndef AOTIDBG_YEVENT_H
#define AOTIDBG_YEVENT_H
#include <stddef.h>
#include <yaml.h>
#include "strbuf.h"

typedef struct {
    size_t max_depth;          /* mappings and lists inside each other */
    size_t max_scalar;         /* bytes of one value */
    size_t max_nodes;          /* values, lists and mappings; 0: no cap */
    const char *doc;           /* what the file should be, for "expected ...": "a session file" */
    const char *docs;          /* the plural: "anchors and aliases are not allowed in session files" */
} ylimits;

typedef struct {
    yaml_parser_t p;
    yaml_event_t ev;           /* the current event, after yev_next returned 0 */
    int have;                  /* ev holds an event */
    size_t depth, nodes;
    ylimits lim;
    int syntax;                /* the last error was libyaml's own (bad YAML) */
    yaml_mark_t err_mark;      /* where the last error is */
    strbuf msg;                /* the last error, "found ..., expected ..." */
} yev;

/* Over a string (borrowed until yev_release) or a read handler (libyaml's). */
int yev_init_string(yev *y, const char *text, size_t len, const ylimits *lim);
int yev_init_reader(yev *y, yaml_read_handler_t *read, void *data, const ylimits *lim);
void yev_release(yev *y);
/* The next event into y->ev (the previous one is freed). 0, or -1 with
 * y->msg and y->err_mark set. */
int yev_next(yev *y);

/* 1-based position of a mark. */
static inline size_t yev_line(yaml_mark_t m) { return m.line + 1; }
static inline size_t yev_col(yaml_mark_t m) { return m.column + 1; }
/* What an event is, for "found X": "a mapping", "the value 'abc'", ... */
void yev_describe(const yaml_event_t *e, strbuf *sb);
/* At most 40 characters of s for a message, control characters as '?'. */
void yev_add_shown(strbuf *sb, const char *s);

#endif
