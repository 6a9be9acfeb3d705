/* session_io.h — session files (YAML, schema v1, man/aotidbg-session.5):
 * the reader, the writer and the dump together, for callers that use them
 * all. Keys: session_keys.h (README.md: adding a key). */
#ifndef AOTIDBG_SESSION_IO_H
#define AOTIDBG_SESSION_IO_H
#include "session_dump.h"
#include "session_read.h"
#include "session_write.h"

#endif
