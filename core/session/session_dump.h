/* session_dump.h — the plain-text rendering of a session (`replay --dump`,
 * tests): deterministic, one fact a line. No errors. */
#ifndef AOTIDBG_SESSION_DUMP_H
#define AOTIDBG_SESSION_DUMP_H
#include <stdio.h>
#include "model.h"

void session_dump(const session *s, FILE *out);

#endif
