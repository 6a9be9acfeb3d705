/* session_copy.h — an event copied into another session, whole.
 *
 * The copy walks the key tables of session_keys.c, so a new key is copied
 * with no change here: every string, list, map and tensor shape an event
 * points at is duplicated into dst's arena, so the copy outlives the
 * session (or the reader's slice) it came from.
 * Ownership: the copy is dst's (appended to dst->events, and to dst->kernels
 * for a kernel event, keeping its index). Errors: none (allocation failure
 * aborts, as every arena allocation does). Threads: dst is written. */
#ifndef AOTIDBG_SESSION_COPY_H
#define AOTIDBG_SESSION_COPY_H
#include "model.h"

event *session_copy_event(session *dst, const event *src);

#endif
