/* textview.h — the read-only text view that covers the panes (kernel source,
 * hunt reports): its text, title, first line shown and last search hit live
 * in the app (view_*); q closes it, / searches it. Grid only. */
#ifndef AOTIDBG_TEXTVIEW_H
#define AOTIDBG_TEXTVIEW_H
#include "app.h"

/* Replaces the view's text (copied) and opens it at line top. */
void textview_open(app *a, const char *title, const char *text, int64_t top);
/* 1 while the view is open (also under help). */
int textview_is_open(const app *a);
int64_t textview_lines(const app *a);
/* Next line (from the current top, in direction dir) holding pat; -1 none. */

#endif
