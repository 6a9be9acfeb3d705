/* term_escape.h — untrusted text made safe for a terminal: package metadata,
 * zip entry names, session fields, log text. Control bytes (C0 but newline
 * and tab, DEL, the UTF-8 C1 range U+0080..U+009F) and bytes that are not
 * valid UTF-8 become visible escapes (\x1b, \r, \u009B), so no escape
 * sequence, carriage return or backspace from a file reaches the screen; all
 * other text, UTF-8 included, is kept as it is.
 *
 *   term_escape(&out, s, strlen(s), 1);   // "a\x1b[2Jb" -> "a\\x1b[2Jb"
 *   term_guard_stdio();                   // every later print to stdout and stderr goes through it
 *
 * The command-line commands (info, check, route, run, replay --dump) call
 * term_guard_stdio() first, so every print of theirs is escaped in one place;
 * the UI guards stderr alone (term_guard_stderr), and the screen's grid
 * (tui/grid.c) does the same for the panes.
 * Errors: term_guard_stdio returns -1 when a stream cannot be wrapped (the
 * stream is left as it was). Not thread-safe against other users of stdio's
 * stdout/stderr pointers while it installs. */
#ifndef AOTIDBG_TERM_ESCAPE_H
#define AOTIDBG_TERM_ESCAPE_H
#include <stddef.h>
#include <stdint.h>
#include "strbuf.h"

/* The UTF-8 sequence at p (n bytes left): its length when valid and
 * complete (*cp its code point), 0 when invalid, -1 when valid so far but cut
 * at n. */
int utf8_next(const unsigned char *p, size_t n, uint32_t *cp);

/* Appends s[0..n) escaped to out; returns the bytes used. Unless final, a
 * UTF-8 sequence cut at the end of s is left unused (it may complete with
 * the next piece); final escapes it as invalid. */
size_t term_escape(strbuf *out, const char *s, size_t n, int final);
/* Replaces stdout and stderr by streams that escape what is written through
 * them to fds 1 and 2 (stdout keeps its buffering: lines on a terminal;
 * stderr by line). 0, or -1. */
int term_guard_stdio(void);
/* stderr alone, for the full-screen UI: the screen writes its own escapes to
 * stdout (its grid escapes what the panes show). 0, or -1. */
int term_guard_stderr(void);

#endif
