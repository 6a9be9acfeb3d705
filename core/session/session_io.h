/* session_io.h — session files (YAML, schema v1, man/aotidbg-session.5).
 *
 * Reader: libyaml's event parser with our limits (depth 64, scalar and file
 * caps, no anchors/aliases, no duplicate keys, valid UTF-8, no NUL). Errors
 * are "file:line:col: found X, expected Y" (1-based). A file cut off inside
 * the events list loads everything before the cut and sets s->truncated.
 *
 * Writer: the header is written at open; each event is appended and flushed
 * as it happens (on disk within 100 ms); session_writer_finish() rewrites
 * the whole session to PATH.tmp and renames it over PATH.
 * Keys: all three walk the tables of session_keys.h (README.md: adding a key).
 * Ownership: a session_writer borrows the session; the caller frees both. */
#ifndef AOTIDBG_SESSION_IO_H
#define AOTIDBG_SESSION_IO_H
#include <stdio.h>
#include "model.h"
#include "strbuf.h"

#define SESSION_MAX_FILE_BYTES   (4ULL << 30)
#define SESSION_MAX_SCALAR_BYTES (1U << 20)
#define SESSION_MAX_DEPTH        64

/* Loads path into a new session (*out, caller frees with session_free). */
int session_load(const char *path, session **out, strbuf *err);
int session_load_mem(const char *name, const char *buf, size_t len, session **out, strbuf *err);

/* Writes the whole session as YAML to f. */
int session_write(const session *s, FILE *f, strbuf *err);
/* Whole-file save: PATH.tmp then rename. */
int session_save(const session *s, const char *path, strbuf *err);

typedef struct session_writer session_writer;
int session_writer_open(session_writer **w, const char *path, const session *s, strbuf *err);
/* Appends s->events[from..] not yet written; flushes. */
int session_writer_sync(session_writer *w, strbuf *err);
/* Final save (tmp + rename) and close; frees w. */
int session_writer_finish(session_writer *w, strbuf *err);
/* Flushes and closes without the final rewrite (signal paths); frees w. */
void session_writer_close(session_writer *w);

/* Plain-text rendering for `replay --dump` and tests; deterministic. */
void session_dump(const session *s, FILE *out);

#endif
