/* session_read.h — loads session files (YAML, schema v1, man/aotidbg-session.5).
 *
 * libyaml's event parser through core/yaml with our limits (depth 64, value
 * and file caps, no anchors/aliases, no duplicate keys, valid UTF-8, no NUL).
 * Errors are "file:line:col: found X, expected Y" (1-based). A file cut off
 * inside the events list loads everything before the cut and sets
 * s->truncated. Keys come from session_keys.h.
 * Ownership: the new session is the caller's (session_free). */
#ifndef AOTIDBG_SESSION_READ_H
#define AOTIDBG_SESSION_READ_H
#include <stddef.h>
#include "model.h"
#include "strbuf.h"

#define SESSION_MAX_FILE_BYTES   (4ULL << 30)
#define SESSION_MAX_SCALAR_BYTES (1U << 20)
#define SESSION_MAX_DEPTH        64

/* Loads path into a new session (*out, caller frees with session_free). */
int session_load(const char *path, session **out, strbuf *err);
int session_load_mem(const char *name, const char *buf, size_t len, session **out, strbuf *err);

#endif
