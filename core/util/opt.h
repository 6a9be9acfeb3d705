/* opt.h — command-line options as data (after libgit2's src/cli/opt.h):
 * an option is one opt_spec row naming its flag, its argument, its help
 * text and the field it fills, so parsing and the --help text come from the
 * same row and cannot drift apart.
 *
 * A table of rows ends with a row whose name is NULL. A command takes one or
 * more groups: a table, where the table's options struct sits inside the
 * caller's args struct (base), and which of its rows apply (scope: a row
 * applies when its scope is 0 or shares a bit with the group's).
 *
 * Values are written "--opt VALUE" or "--opt=VALUE"; "--" ends the options.
 * Strings stored point into argv (nothing is allocated).
 * Errors: OPT_ERR with what is wrong appended to err, without the command's
 * name (the caller prefixes "aotidbg CMD: "). */
#ifndef AOTIDBG_OPT_H
#define AOTIDBG_OPT_H
#include <stddef.h>
#include <stdint.h>
#include "strbuf.h"

typedef struct opt_spec opt_spec;

/* Stores val (NULL for a flag) into field: 0, or -1 with the message in err
 * ("--timeout needs seconds (0 = never), got 'soon'"). */
typedef int opt_store_fn(const opt_spec *o, const char *val, void *field, strbuf *err);

struct opt_spec {
    const char *name;      /* "--inputs" */
    const char *arg;       /* "SPEC"; NULL: a flag, which takes no value; "[=TOOL]" (starting "[="): the value
                              is optional and only given as --opt=VALUE (store gets NULL without) */
    const char *help;      /* one paragraph, wrapped for --help ('\n' in it is a space) */
    size_t off;            /* offsetof(the table's options struct, the field) */
    opt_store_fn *store;   /* NULL: a flag sets an int field to `value`; an
                              option sets a const char * field to its value */
    int value;             /* what a flag stores (--no-reinstrument: "off") */
    unsigned scope;        /* which commands take it; 0 = every command the table is given to */
};

typedef struct {
    const opt_spec *specs; /* ends with {NULL} */
    size_t base;           /* offsetof(the caller's args struct, the table's options struct) */
    unsigned scope;        /* rows that apply: scope 0, or sharing a bit with this */
    const char *title;     /* heading of the group in --help ("UI options"); NULL: none */
} opt_group;

enum { OPT_OK = 0, OPT_HELP = 1, OPT_ERR = -1 };

/* Parses argv[first..argc): options into args through the groups, other
 * arguments into pos (at most maxpos; one more is an error naming it).
 * OPT_HELP when --help or -h is seen (nothing printed). */
int opt_parse(const opt_group *g, size_t ng, void *args, int argc, char **argv, int first, const char **pos,
              size_t maxpos, size_t *npos, strbuf *err);

/* The rows that apply, one entry each: "  --name ARG" then the help, from
 * column 21 (on the next line when the name is longer), as a paragraph
 * wrapped at spaces to 80 columns. */
void opt_help(strbuf *out, const opt_group *g, size_t ng);

/* The row for name ("--device") among the groups' applying rows, or NULL. */
const opt_spec *opt_find(const opt_group *g, size_t ng, const char *name);

/* Does row o apply to a group of this scope? */
int opt_applies(const opt_spec *o, unsigned scope);

/* A size in bytes: digits with an optional K, M or G suffix (binary, either
 * case: 256M = 256 MiB). 0 with *out set; -1 for garbage, an empty string or
 * a size past 2^63 (nothing printed: the caller names the option). */
int opt_parse_size(const char *s, uint64_t *out);

#endif
