/* session_dump.h — the plain-text rendering of a session (`replay --dump`,
 * tests): deterministic, one fact a line. No errors. */
#ifndef AOTIDBG_SESSION_DUMP_H
#define AOTIDBG_SESSION_DUMP_H
#include <stdio.h>
#include "model.h"

void session_dump(const session *s, FILE *out);

/* session_dump in parts, for a dump printed while the file is read
 * (session_reader_forget): the top-level keys before the events with the
 * "events: N (K kernels)" line (nevents, nkernels: the file's counts), each
 * event's block (i: its index in the file), then the keys after the events
 * (none in format 1.x: events is the last key). session_dump(s) prints
 * head(s, s->nevents, s->nkernels), every event, tail(s). */
void session_dump_head(const session *s, size_t nevents, size_t nkernels, FILE *out);
void session_dump_event(const session *s, size_t i, const event *e, FILE *out);
void session_dump_tail(const session *s, FILE *out);

#endif
