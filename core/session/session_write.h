/* session_write.h — writes session files (YAML, schema v1).
 *
 * The streaming writer writes the header at open; each event is appended
 * and flushed as it happens (on disk within 100 ms); session_writer_finish()
 * rewrites the whole session to a new PATH.tmp-RANDOM (O_EXCL: never
 * through a planted link) and renames it over PATH. The writer holds
 * PATH.lock (flock, with its pid) from open to close: a second writer to
 * PATH fails at open, naming the holder. A session already at PATH is kept
 * until the final save: the stream goes to PATH.part meanwhile. Whatever
 * is written reads back (session_read.h). Keys come from session_keys.h.
 * Errors: 0/-1 with a message in err.
 * Ownership: a session_writer borrows the session; the caller frees both. */
#ifndef AOTIDBG_SESSION_WRITE_H
#define AOTIDBG_SESSION_WRITE_H
#include <stdio.h>
#include "model.h"
#include "strbuf.h"

/* Writes the whole session as YAML to f. */
int session_write(const session *s, FILE *f, strbuf *err);
/* The same with an index: key (model.h event_index) giving where the lines
 * of events index[0..nindex) begin (event numbers, ascending: a list out of
 * order or range is cut there), for `route` (route_load.h makes the list).
 * The key is written with zeros and its numbers rewritten in place after
 * the events, so f must be seekable; when it is not, or the rewrite fails,
 * the file has no index, or one of zeros that no reader trusts. */
int session_write_indexed(const session *s, FILE *f, const size_t *index, size_t nindex, strbuf *err);
/* Whole-file save: PATH.tmp-RANDOM (created O_EXCL) then rename. */
int session_save(const session *s, const char *path, strbuf *err);
int session_save_indexed(const session *s, const char *path, const size_t *index, size_t nindex, strbuf *err);

typedef struct session_writer session_writer;
int session_writer_open(session_writer **w, const char *path, const session *s, strbuf *err);
/* Appends s->events[from..] not yet written; flushes. */
int session_writer_sync(session_writer *w, strbuf *err);
/* Final save (tmp + rename, with index as session_write_indexed's) and
 * close; frees w. */
int session_writer_finish(session_writer *w, const size_t *index, size_t nindex, strbuf *err);
/* Flushes and closes without the final rewrite (signal paths); frees w. */
void session_writer_close(session_writer *w);

#endif
