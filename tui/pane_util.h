/* pane_util.h — what every pane does alike: its frame, the "(empty)" note,
 * word wrapping, moving its cursor and keeping it in view. Grid only. */
#ifndef AOTIDBG_PANE_UTIL_H
#define AOTIDBG_PANE_UTIL_H
#include "model.h"
#include "pane.h"

/* Frame of p->at with the pane's number and title; returns the inner rectangle. */
rect pane_frame(grid *g, const pane *p, int focused, const char *title);
/* Shows why the pane is empty, wrapped, in the inner rectangle. */
void pane_empty(grid *g, rect in, const char *why);
/* How the session's runner ended when it did not end in order, for the
 * panes: "runner died: signal 11 (SIGSEGV)", "runner killed", "runner
 * timed out", "connection to the runner lost"; the line adds where ("... during kernel #2 NAME"). NULL when
 * it ended in order. */
const char *pane_exit_what(const session *s, char *buf, size_t n);
const char *pane_exit_line(const session *s, char *buf, size_t n);
/* Word-wraps text into the box (x, y, w, h); returns the rows used. */
int wrap_text(grid *g, int x, int y, int w, int h, int el, const char *text);
/* Moves p's cursor to row, within 0..nrows-1. */
void pane_goto(pane *p, int64_t row, int64_t nrows);
/* Adjusts p->top so the cursor shows in a page of h rows (and remembers h). */
void pane_scroll_into_view(pane *p, int h);

#endif
