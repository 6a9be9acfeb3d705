/* pane_util.c — see pane_util.h. */
#include "pane_util.h"
#include <stdio.h>
#include <string.h>
#include "theme.h"

rect pane_frame(grid *g, const pane *p, int focused, const char *title)
{
    char t[256];
    rect r = p->at;
    snprintf(t, sizeof t, "%d %s", p->index + 1, title);
    grid_box(g, r.x, r.y, r.w, r.h, focused ? EL_BORDER_FOCUS : EL_BORDER, t,
             focused ? EL_TITLE_FOCUS : EL_TITLE);
    return (rect){r.x + 1, r.y + 1, r.w - 2, r.h - 2};
}

const char *pane_exit_what(const session *s, char *buf, size_t n)
{
    const runner_exit_event *x = session_runner_exit(s);
    if (!x)
        return NULL;
    char how[64];
    runner_exit_text(x, how, sizeof how);
    if (!strcmp(how, "killed"))
        snprintf(buf, n, "runner killed");
    else if (!strcmp(how, "timeout"))
        snprintf(buf, n, "runner timed out");
    else if (!strcmp(how, "lost"))   /* the link went, not the kernel: what became of the runner is not known */
        snprintf(buf, n, "connection to the runner lost");
    else
        snprintf(buf, n, "runner died: %s", how);
    return buf;
}

const char *pane_exit_line(const session *s, char *buf, size_t n)
{
    if (!pane_exit_what(s, buf, n))
        return NULL;
    size_t len = strlen(buf);
    int64_t k = session_exit_kernel(s);
    const event *ke = k >= 0 ? session_kernel_event(s, k) : NULL;
    if (ke)
        snprintf(buf + len, n - len, " during kernel #%lld %s", (long long)k, ke->u.kernel.name);
    else
        snprintf(buf + len, n - len, "%s", s->nkernels ? " after the last kernel" : " before any kernel");
    return buf;
}

void pane_empty(grid *g, rect in, const char *why)
{
    wrap_text(g, in.x + 1, in.y, in.w - 2, in.h, EL_DIM, why);
}

int wrap_text(grid *g, int x, int y, int w, int h, int el, const char *text)
{
    int row = 0;
    const char *p = text ? text : "";
    char line[1024];
    while (*p && row < h && w > 0) {
        if (*p == '\n') { p++; row++; continue; }
        /* take up to w columns, break at the last space */
        int cols = 0;
        const char *q = p, *brk = NULL;
        while (*q && *q != '\n' && cols < w) {
            if (*q == ' ')
                brk = q;
            q++;
            while ((*q & 0xc0) == 0x80) q++;
            cols++;
        }
        const char *end = q;
        if (*q && *q != '\n' && *q != ' ' && brk && brk > p)
            end = brk;
        size_t n = (size_t)(end - p);
        if (n >= sizeof line) n = sizeof line - 1;
        memcpy(line, p, n);
        line[n] = 0;
        grid_put(g, x, y + row, w, el, line);
        row++;
        p = end;
        while (*p == ' ') p++;
    }
    return row;
}

void pane_goto(pane *p, int64_t row, int64_t n)
{
    if (row >= n)
        row = n - 1;
    if (row < 0)
        row = 0;
    p->cursor = row;
}

void pane_scroll_into_view(pane *p, int h)
{
    if (h < 1)
        h = 1;
    p->page = h;
    if (p->cursor < p->top)
        p->top = p->cursor;
    if (p->cursor >= p->top + h)
        p->top = p->cursor - h + 1;
    if (p->top < 0)
        p->top = 0;
}
