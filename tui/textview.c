/* textview.c — the read-only text view over the panes (see textview.h). */
#include "textview.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "theme.h"
#include "view.h"
#include "compat.h"

static const view_ops text_view;   /* at the end: its functions come first */

void textview_open(app *a, const char *title, const char *text, int64_t top)
{
    strbuf_reset(&a->view);
    strbuf_addstr(&a->view, text ? text : "");
    snprintf(a->view_title, sizeof a->view_title, "%s", title);
    view_close_all(a);
    view_open(a, &text_view);
    a->view_src[0] = 0;
    a->view_top = top < 0 ? 0 : top;
    a->view_hit = -1;
}

int textview_is_open(const app *a) { return a->over == &text_view || a->over_under == &text_view; }

int64_t textview_lines(const app *a)
{
    int64_t n = 0;
    for (size_t i = 0; i < a->view.len; i++)
        n += a->view.buf[i] == '\n';
    return n + (a->view.len && a->view.buf[a->view.len - 1] != '\n');
}

/* Start of line `line` in the view's text, or NULL past the end. */
static const char *line_at(const app *a, int64_t line)
{
    const char *p = a->view.buf;
    if (!p)
        return NULL;
    for (int64_t i = 0; i < line; i++) {
        p = strchr(p, '\n');
        if (!p)
            return NULL;
        p++;
    }
    return *p ? p : NULL;
}

static int64_t textview_find(const app *a, const char *pat, int dir, int include_top)
{
    int64_t n = textview_lines(a);
    if (!pat || !*pat || n == 0)
        return -1;
    /* an index of line starts keeps a long file's search linear */
    const char **starts = xmalloc((size_t)n * sizeof *starts);
    const char *p = a->view.buf;
    for (int64_t i = 0; i < n; i++) {
        starts[i] = p;
        const char *nl = strchr(p, '\n');
        p = nl ? nl + 1 : p + strlen(p);
    }
    int64_t from = a->view_hit >= 0 ? a->view_hit : a->view_top;
    int64_t found = -1;
    for (int64_t k = include_top ? 0 : 1; k <= n; k++) {
        int64_t i = ((from + dir * k) % n + n) % n;
        size_t len = strcspn(starts[i], "\n");
        const char *hit = strstr(starts[i], pat);
        if (hit && hit < starts[i] + len) {
            found = i;
            break;
        }
    }
    free(starts);
    return found;
}

static void textview_render(app *a, grid *g, rect r)
{
    char title[220];
    int64_t n = textview_lines(a);
    snprintf(title, sizeof title, "%s  (%lld lines; / search, n next, q closes)", a->view_title, (long long)n);
    grid_box(g, r.x, r.y, r.w, r.h, EL_BORDER_FOCUS, title, EL_TITLE_FOCUS);
    int h = r.h - 2;
    if (a->view_top > n - h)
        a->view_top = n - h > 0 ? n - h : 0;
    if (a->view_top < 0)
        a->view_top = 0;
    const char *p = line_at(a, a->view_top);
    char buf[1024];
    for (int y = 0; y < h && p; y++) {
        int64_t ln = a->view_top + y;
        size_t len = strcspn(p, "\n");
        size_t c = len < sizeof buf - 1 ? len : sizeof buf - 1;
        memcpy(buf, p, c);
        buf[c] = 0;
        for (size_t i = 0; i < c; i++)   /* untrusted text: no control bytes reach the terminal */
            if (buf[i] == '\t') buf[i] = ' ';
            else if ((unsigned char)buf[i] < 32 || buf[i] == 127) buf[i] = '?';
        int x = grid_printf(g, r.x + 1, r.y + 1 + y, 7, EL_DIM, "%6lld ", (long long)ln + 1);
        int el = ln == a->view_hit ? EL_MATCH : EL_NORMAL;
        grid_put(g, r.x + 1 + x, r.y + 1 + y, r.w - 2 - x, el, buf);
        p = p[len] && p[len + 1] ? p + len + 1 : NULL;
    }
}


/* ---- as a view (view.h) ---------------------------------------------------- */

static void text_scroll(app *a, int64_t d)
{
    int64_t n = textview_lines(a);
    a->view_top = d > n - a->view_top ? n : a->view_top + d;
    if (a->view_top < 0)
        a->view_top = 0;
}

static int64_t text_top(const app *a) { return a->view_top; }

static int text_find(app *a, int dir, int include_top)
{
    int64_t line = textview_find(a, a->search, dir, include_top);
    if (line < 0) {
        app_message(a, 1, "not found: %s", a->search);
        return AF_HANDLED | AF_FAILED;
    }
    a->view_hit = line;
    a->view_top = line > 2 ? line - 2 : 0;
    app_message(a, 0, "/%s: line %lld", a->search, (long long)line + 1);
    return AF_HANDLED;
}

static const view_ops text_view = {"text", textview_render, text_scroll, text_top, text_find, 1, 0};
