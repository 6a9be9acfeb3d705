/* load.h — a replayed session shown while it loads: the first screen comes
 * from the header and the first events (session_reader, session_read.h),
 * then the UI loop reads the rest in slices of a few tens of milliseconds
 * (load_slice from the loop's tick), the status bar says how far it is
 * (load_status), and keys work all along. Sessions under
 * AOTIDBG_STREAM_BYTES (default 8 MiB) load whole before the first screen,
 * as they always did; so does a headless run before its first frame ends
 * (load_finish from the loop's settle), so golden screens stay whole.
 *
 * An error event that comes with a later slice gives the router the focus,
 * as a session read whole opens on it, while the user has not moved yet.
 *
 * Errors: a file that cannot be read, or whose header or first events are
 * wrong, fails load_open as session_load does (file:line:col on stderr).
 * An error later in the file keeps the events before it on the screen, says
 * so on the message line, and load_close prints it on the way out and
 * makes the exit code 2.
 * Ownership: the app owns its reader (app.loader) and the session (taken
 * from the reader). Threads: one (the UI's). No curses. */
#ifndef AOTIDBG_LOAD_H
#define AOTIDBG_LOAD_H
#include <stddef.h>
#include "app.h"
#include "session_read.h"

/* Opens path: the session (*s, the caller's), and the reader still reading
 * it (*r, NULL when the file is read whole); -1 with the error printed. */
int load_open(const char *path, session **s, session_reader **r);
/* 1 while a->loader has events to read. */
int load_busy(const app *a);
/* Reads for about budget_s seconds; 1 when the screen should show it: the
 * load ended, or 0.2 s passed since the last time it said so. */
int load_slice(app *a, double budget_s);
/* Reads the rest (headless runs, before a frame is printed). */
void load_finish(app *a);
/* "loading 34% of 941 MB (120000 events)" while loading, else NULL. */
const char *load_status(const app *a, char *buf, size_t n);
/* The reader closed; EXIT_USAGE (2) when the load failed (printed), else 0. */
int load_close(app *a);

#endif
