/* app.c — app state, layout and the chrome around the panes: tabs, status
 * bar, message/prompt line, narration box, help and "too small" screens.
 * Renders into a grid only (see app.h); no curses here. */
#include "app.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "actions.h"
#include "route_actions.h"

#define MIN_W 40
#define MIN_H 10

void app_init(app *a, session *s, app_mode mode)
{
    memset(a, 0, sizeof *a);
    a->s = s;
    a->mode = mode;
    const pane_ops *ops[PANE__COUNT] = {&pane_router_ops, &pane_checklist_ops, &pane_kernels_ops, &pane_inspector_ops};
    for (int i = 0; i < PANE__COUNT; i++)
        a->panes[i].ops = ops[i];
    a->focus = PANE_KERNELS;
    a->search_pane = -1;
    a->follow = 1;
    a->break_kernel = -1;
    strbuf_init(&a->input, 0);
    strbuf_init(&a->message, 0);
    strbuf_init(&a->view, 0);
    a->view_hit = -1;
    theme_default(&a->th);
    a->min_w = MIN_W;
    a->min_h = MIN_H;
    /* Open on what matters: a session with errors starts in the router. */
    if (app_errors(a))
        a->focus = PANE_ROUTER;
}

size_t app_errors(app *a)
{
    if (a->err_scanned > a->s->nevents)   /* a restart dropped the old events */
        a->err_scanned = a->nerr = 0;
    for (; a->err_scanned < a->s->nevents; a->err_scanned++) {
        if (a->s->events[a->err_scanned]->kind != EV_ERROR)
            continue;
        if (a->nerr == a->cap_err) {
            a->cap_err = a->cap_err ? a->cap_err * 2 : 16;
            a->err_idx = realloc(a->err_idx, a->cap_err * sizeof *a->err_idx);
            if (!a->err_idx)
                abort();
        }
        a->err_idx[a->nerr++] = a->err_scanned;
    }
    return a->nerr;
}

static int anomalous(const kernel_event *k)
{
    return k->status == KSTAT_NAN || k->status == KSTAT_ERROR;
}

int64_t app_next_anomaly(app *a, int64_t after)
{
    size_t nk = a->s->nkernels;
    if (a->anom_scanned > nk)   /* a restart dropped the old kernels */
        a->anom_scanned = a->nanom = 0;
    for (; a->anom_scanned < nk; a->anom_scanned++) {
        const kernel_event *k = &a->s->kernels[a->anom_scanned]->u.kernel;
        if (k->status == KSTAT_PENDING)
            break;   /* may still change: scanned live below */
        if (!anomalous(k))
            continue;
        if (a->nanom == a->cap_anom) {
            a->cap_anom = a->cap_anom ? a->cap_anom * 2 : 16;
            a->anom_idx = realloc(a->anom_idx, a->cap_anom * sizeof *a->anom_idx);
            if (!a->anom_idx)
                abort();
        }
        a->anom_idx[a->nanom++] = (int64_t)a->anom_scanned;
    }
    size_t lo = 0, hi = a->nanom;   /* first indexed anomaly > after */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (a->anom_idx[mid] <= after) lo = mid + 1; else hi = mid;
    }
    if (lo < a->nanom)
        return a->anom_idx[lo];
    for (size_t i = a->anom_scanned > (size_t)(after + 1) ? a->anom_scanned : (size_t)(after + 1); i < nk; i++)
        if (anomalous(&a->s->kernels[i]->u.kernel))
            return (int64_t)i;
    return -1;
}

void app_release(app *a)
{
    pane_router_release();
    free(a->anom_idx);
    a->anom_idx = NULL;
    free(a->err_idx);
    a->err_idx = NULL;
    strbuf_release(&a->input);
    strbuf_release(&a->message);
    strbuf_release(&a->view);
    session_free(a->ref);
    a->ref = NULL;
    inspector_npy_release(a);
    if (a->owns_session)
        session_free(a->s);
    a->s = NULL;
}

void app_message(app *a, int is_error, const char *fmt, ...)
{
    strbuf_reset(&a->message);
    va_list ap;
    va_start(ap, fmt);
    strbuf_vaddf(&a->message, fmt, ap);
    va_end(ap);
    a->message_error = is_error;
}

const kernel_event *app_selected_kernel(app *a)
{
    int64_t c = a->panes[PANE_KERNELS].cursor;
    if (c < 0 || (size_t)c >= a->s->nkernels)
        return NULL;
    return &a->s->kernels[c]->u.kernel;
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

void app_clamp(app *a)
{
    for (int i = 0; i < PANE__COUNT; i++) {
        pane *p = &a->panes[i];
        int64_t n = p->ops->rows(a);
        if (p->cursor >= n)
            p->cursor = n > 0 ? n - 1 : 0;
        if (p->cursor < 0)
            p->cursor = 0;
        if (p->top > p->cursor)
            p->top = p->cursor;
    }
}

void fmt_shape(strbuf *sb, int ndim, const int64_t *v)
{
    strbuf_addch(sb, '[');
    for (int i = 0; i < ndim && v; i++)
        strbuf_addf(sb, "%s%lld", i ? ", " : "", (long long)v[i]);
    strbuf_addch(sb, ']');
}

void fmt_double(char *buf, size_t n, double v)
{
    if (isnan(v))
        snprintf(buf, n, "nan");
    else if (isinf(v))
        snprintf(buf, n, v > 0 ? "inf" : "-inf");
    else
        snprintf(buf, n, "%.4g", v);
}

/* ---- chrome ----------------------------------------------------------- */

const char *app_mode_limits(const char *mode)
{
    if (!mode)
        return "";
    if (!strcmp(mode, "interpose"))
        return "no tensor values";
    if (!strcmp(mode, "reinstrument"))
        return "rebuilt copy";
    if (!strcmp(mode, "none"))
        return "no kernels seen";
    return "";
}

static const char *mode_name(app_mode m)
{
    return m == MODE_LIVE ? "LIVE" : m == MODE_TUTORIAL ? "TUTORIAL" : "REPLAY";
}

static const char *base_name(const char *p)
{
    if (!p)
        return "-";
    const char *s = strrchr(p, '/');
    return s && s[1] ? s + 1 : p;
}

static void render_status(app *a, grid *g, int y)
{
    grid_fill(g, 0, y, g->w, 1, ' ', EL_STATUS);
    char mode[16];
    snprintf(mode, sizeof mode, " %s ", mode_name(a->mode));
    int x = grid_put(g, 0, y, g->w, EL_STATUS_MODE, mode);
    const session *s = a->s;
    const char *pkg = s->package.path ? s->package.path : a->source;
    const char *dev = s->device ? s->device : s->package.device_key ? s->package.device_key : "-";
    const kernel_event *k = app_selected_kernel(a);
    char kbuf[64] = "";
    if (k)
        snprintf(kbuf, sizeof kbuf, " | k %lld/%zu", (long long)k->index, s->nkernels);
    char line[512], mbuf[80] = "";
    const char *lim = app_mode_limits(s->mode);
    if (s->mode)   /* the run's mode, and what it cannot see */
        snprintf(mbuf, sizeof mbuf, " %s%s%s |", s->mode, *lim ? ": " : "", lim);
    snprintf(line, sizeof line, " %s | %s |%s %s%s", base_name(pkg), dev, mbuf, runner_state_text(a), kbuf);
    x += grid_put(g, x, y, g->w - x, EL_STATUS, line);
    const char *hints = a->mode == MODE_LIVE ? "s step c cont r restart ? help q quit"
                        : a->narration_on    ? "Enter next ? help q quit"
                                             : "s step c cont / search ? help q quit";
    int hl = (int)strlen(hints);
    if (g->w - x > hl + 2)
        grid_put(g, g->w - hl - 1, y, hl, EL_STATUS, hints);
}

const char *runner_state_text(app *a);   /* live.c */

static void render_bottom(app *a, grid *g, int y)
{
    if (a->prompt) {
        char p[2] = {(char)a->prompt, 0};
        int x = grid_put(g, 0, y, g->w, EL_CMDLINE, p);
        /* show the tail of a long line so the cursor end stays visible */
        const char *t = a->input.buf;
        int cols = utf8_columns(t);
        while (cols > g->w - 2 && *t) {
            t++;
            while ((*t & 0xc0) == 0x80) t++;
            cols--;
        }
        x += grid_put(g, x, y, g->w - x, EL_CMDLINE, t);
        grid_set(g, x, y, '_', EL_CMDLINE);
    } else if (a->message.len) {
        grid_put(g, 0, y, g->w, a->message_error ? EL_ERROR : EL_NORMAL, a->message.buf);
    }
}

/* Word-wraps text into the box; returns rows used. */
int wrap_text(grid *g, int x, int y, int w, int h, int el, const char *text);
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

static int render_narration(app *a, grid *g, int y, int h)
{
    if (!a->narration_on || !a->s->nnarration)
        return 0;
    const narration_step *st = &a->s->narration[a->step < a->s->nnarration ? a->step : 0];
    grid_fill(g, 0, y, g->w, h, ' ', EL_NARRATION);
    char title[256];
    snprintf(title, sizeof title, "walkthrough: %s  step %zu/%zu", a->s->title ? a->s->title : "",
             a->step + 1, a->s->nnarration);
    grid_box(g, 0, y, g->w, h, EL_NARRATION, title, EL_NARRATION);
    int used = wrap_text(g, 2, y + 1, g->w - 4, h - 3, EL_NARRATION, st->text);
    (void)used;
    char hint[160];
    if (a->narration_waiting) {
        int i = actions_find(a->narration_waiting);
        strbuf kb = STRBUF_INIT;
        if (i >= 0)
            actions_keys_text((size_t)i, &kb);
        snprintf(hint, sizeof hint, "> do: %s%s%s%s", a->narration_waiting, kb.len ? " (key " : "", kb.buf, kb.len ? ")" : "");
        strbuf_release(&kb);
    } else if (a->step + 1 < a->s->nnarration) {
        snprintf(hint, sizeof hint, "> Enter: next step   Backspace: back");
    } else {
        snprintf(hint, sizeof hint, "> last step: q quits");
    }
    grid_put(g, 2, y + h - 2, g->w - 4, EL_NARRATION, hint);
    return h;
}

static void render_help(app *a, grid *g, rect r)
{
    grid_box(g, r.x, r.y, r.w, r.h, EL_BORDER_FOCUS, "help: keys and actions (q or ? closes)", EL_TITLE_FOCUS);
    strbuf t = STRBUF_INIT;
    strbuf_addstr(&t, "KEYS         ACTION [ARG]           WHAT IT DOES\n");
    actions_help_text(&t);
    strbuf_addstr(&t, "\nEvery action also works as :ACTION [ARG], in --keys and --script.\n");
    int y = 0, line = 0;
    const char *p = t.buf;
    if (a->help_top > 0) {
        int64_t total = 0;
        for (const char *q = p; *q; q++) total += *q == '\n';
        if (a->help_top > total - (r.h - 2))
            a->help_top = total - (r.h - 2) > 0 ? total - (r.h - 2) : 0;
    }
    while (*p && y < r.h - 2) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        if (line >= a->help_top) {
            char buf[512];
            if (n >= sizeof buf) n = sizeof buf - 1;
            memcpy(buf, p, n);
            buf[n] = 0;
            grid_put(g, r.x + 1, r.y + 1 + y, r.w - 2, line == 0 ? EL_HEADER : EL_NORMAL, buf);
            y++;
        }
        line++;
        p = nl ? nl + 1 : p + n;
    }
    strbuf_release(&t);
}

static void render_pane(app *a, grid *g, int i, rect r)
{
    if (r.w < 4 || r.h < 3)
        return;
    a->panes[i].ops->render(a, g, r, a->focus == i);
}

static void render_tabs(app *a, grid *g, int y)
{
    int x = 0;
    for (int i = 0; i < PANE__COUNT && x < g->w; i++) {
        char t[32];
        snprintf(t, sizeof t, "%d %s", i + 1, a->panes[i].ops->name);
        x += grid_put(g, x, y, g->w - x, a->focus == i ? EL_SELECTED : EL_DIM, t);
        x += grid_put(g, x, y, g->w - x, EL_NORMAL, " ");
    }
}

void app_render(app *a, grid *g)
{
    grid_clear(g, EL_NORMAL);
    int w = g->w, h = g->h;
    if (w < a->min_w || h < a->min_h) {
        /* one message, wrapped to whatever width there is */
        char msg[120];
        snprintf(msg, sizeof msg, "terminal too small (need %dx%d, have %dx%d); q quits", a->min_w, a->min_h, w, h);
        wrap_text(g, 0, 0, w, h, EL_ERROR, msg);
        return;
    }
    render_status(a, g, h - 2);
    render_bottom(a, g, h - 1);
    int area_h = h - 2;
    if (a->narration_on && a->s->nnarration) {
        int nh = h >= 30 ? 7 : 6;
        if (area_h - nh >= 6) {
            area_h -= nh;
            render_narration(a, g, area_h, nh);
        }
    }
    rect full = {0, 0, w, area_h};
    if (a->help) {
        render_help(a, g, full);
        return;
    }
    if (a->view_on) {
        textview_render(a, g, full);
        return;
    }
    int compact = w < 80 || area_h < 16;
    if (a->zoom) {
        render_pane(a, g, a->focus, full);
        return;
    }
    if (compact) {
        render_tabs(a, g, 0);
        render_pane(a, g, a->focus, (rect){0, 1, w, area_h - 1});
        return;
    }
    if (w >= 120) {
        int top = area_h * 2 / 3, lw = w * 11 / 20;
        render_pane(a, g, PANE_KERNELS, (rect){0, 0, lw, top});
        render_pane(a, g, PANE_INSPECTOR, (rect){lw, 0, w - lw, top});
        render_pane(a, g, PANE_ROUTER, (rect){0, top, w / 2, area_h - top});
        render_pane(a, g, PANE_CHECKLIST, (rect){w / 2, top, w - w / 2, area_h - top});
    } else {
        int kh = area_h * 2 / 5, ih = area_h * 7 / 20;
        render_pane(a, g, PANE_KERNELS, (rect){0, 0, w, kh});
        render_pane(a, g, PANE_INSPECTOR, (rect){0, kh, w, ih});
        render_pane(a, g, PANE_ROUTER, (rect){0, kh + ih, w / 2, area_h - kh - ih});
        render_pane(a, g, PANE_CHECKLIST, (rect){w / 2, kh + ih, w - w / 2, area_h - kh - ih});
    }
}
