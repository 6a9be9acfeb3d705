/* session_read.h — loads session files (YAML, schema v1, man/aotidbg-session.5).
 *
 * libyaml's event parser through core/yaml with our limits (depth 64, value
 * and file caps, no anchors/aliases, no duplicate keys, valid UTF-8, no NUL).
 * Errors are "file:line:col: found X, expected Y" (1-based). A file cut off
 * inside the events list loads everything before the cut and sets
 * s->truncated. A file read from a path whose end_state says "running"
 * while no aotidbg holds PATH.lock (its writer was killed before its final
 * save) loads whole, with end_state "cut-off: ..." naming the last kernel
 * seen and when the file was last written, and a warning; from memory it
 * stays "running". Keys come from session_keys.h.
 * Ownership: the new session is the caller's (session_free). */
#ifndef AOTIDBG_SESSION_READ_H
#define AOTIDBG_SESSION_READ_H
#include <stddef.h>
#include <stdint.h>
#include "model.h"
#include "strbuf.h"

#define SESSION_MAX_FILE_BYTES   (4ULL << 30)
#define SESSION_MAX_SCALAR_BYTES (1U << 20)
#define SESSION_MAX_DEPTH        64

/* Loads path into a new session (*out, caller frees with session_free). */
int session_load(const char *path, session **out, strbuf *err);
int session_load_mem(const char *name, const char *buf, size_t len, session **out, strbuf *err);

/* The same parse a slice at a time, so that a screen shows a big session at
 * once and a dump prints as it reads: session_reader_open reads the header
 * (every top-level key before `events:`; the writer puts events last) and
 * stops at the first event; each session_reader_step reads at most
 * max_events more into the reader's session, which grows as a live run's
 * does (events appended; nothing already read moves or changes, except the
 * events, kernels and warnings arrays, which may be reallocated).
 *   open: 0 and *out, or -1 with err (nothing to close) when the file cannot
 *         be read or its header is wrong. A file whose header is all there is
 *         (cut off before the events) opens done.
 *   step: 1 more to read; 0 the file is read (a file cut off inside the
 *         events list ends here too, as session_load: s->truncated, what came
 *         before kept); -1 failed, with err ("file:line:col: found X,
 *         expected Y"), the events before the failure kept. Once done, step
 *         returns the same answer again without reading.
 * Keys after `events:` (hand-written files) arrive with the last step.
 * Ownership: the reader owns its session until session_reader_take (then
 * the caller frees it with session_free, after or before closing the
 * reader); close frees the reader and a session not taken. Threads: one. */
typedef struct session_reader session_reader;
int session_reader_open(const char *path, session_reader **out, strbuf *err);
int session_reader_step(session_reader *r, size_t max_events, strbuf *err);
int session_reader_done(const session_reader *r);
session *session_reader_take(session_reader *r);
/* Frees the events read so far, when the caller is done with them (a dump
 * printed them): s->events and s->kernels are emptied and their memory
 * released, so that a reader stepped to the end holds one step's events at a
 * time. Reading goes on as before: later kernels' default indexes, the
 * checks of bookmarks against the event count, the cut-off warning and the
 * end_state a runner-exit gives count the freed events too; warnings stay.
 * session_reader_forgotten says how many events and kernels were freed (add
 * them to s->nevents, s->nkernels for the file's counts). 0 done; -1 and
 * nothing freed after session_reader_take, or once the file is read (the
 * last step's events stay for the caller, with the session). */
int session_reader_forget(session_reader *r);
/* The session being read, still the reader's (NULL once taken). */
const session *session_reader_session(const session_reader *r);
void session_reader_forgotten(const session_reader *r, size_t *nevents, size_t *nkernels);
/* Bytes read so far and the file's size (done when it is not a regular file). */
void session_reader_progress(const session_reader *r, uint64_t *done, uint64_t *total);
void session_reader_close(session_reader *r);   /* NULL is fine */

#endif
