/* fmt.h — small text formatters shared by the session writers.
 *
 * Owns: fmt_kv_lines. Writes only to the FILE given; escaping is the
 * caller's (each writer has its own rules), passed in as functions.
 * No errors (stdio errors are checked by the caller on the FILE). */
#ifndef AOTIDBG_FMT_H
#define AOTIDBG_FMT_H

#include <stdio.h>
#include "model.h"

/* How one string is written (escaped, quoted, capped) by a given format. */
typedef void (*fmt_put_fn)(FILE *f, const char *s);

/* One line per pair: <lead><key><sep><value>\n, key and value written
 * through put_key and put_value. */
void fmt_kv_lines(FILE *f, size_t n, const kv_pair *kv, const char *lead, const char *sep,
                  fmt_put_fn put_key, fmt_put_fn put_value);

#endif
