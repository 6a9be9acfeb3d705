/* app.c — the app's shared state: the error and anomaly indexes, the
 * message line, the kernel selection, requests to the panes (see app.h).
 * No drawing (render.c) and no panes' own state (pane_*.c). */
#define _GNU_SOURCE   /* memmem */
#include "app.h"
#include "compat.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t app_errors(app *a)
{
    if (a->err_scanned > a->s->nevents) {   /* a restart dropped the old events */
        a->err_scanned = a->nerr = a->nmc = a->nan_at = 0;
    }
    for (; a->err_scanned < a->s->nevents; a->err_scanned++) {
        const event *e = a->s->events[a->err_scanned];
        if (e->kind == EV_NAN && !a->nan_at)
            a->nan_at = a->err_scanned + 1;
        if (e->kind == EV_MEMCHECK) {
            ALLOC_GROW(a->mc_idx, a->nmc + 1, a->cap_mc);
            a->mc_idx[a->nmc++] = a->err_scanned;
        }
        if (e->kind != EV_ERROR)
            continue;
        ALLOC_GROW(a->err_idx, a->nerr + 1, a->cap_err);
        a->err_idx[a->nerr++] = a->err_scanned;
    }
    return a->nerr;
}

static int anomalous(const kernel_event *k)
{
    /* -Inf alone is an attention mask's, an Inf the eager program computes too is the model's: no anomaly */
    int own = kernel_nonfinite_own(k, NULL);
    return (k->status == KSTAT_NAN && own && !nonfinite_is_mask(own)) || k->status == KSTAT_ERROR;
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
        ALLOC_GROW(a->anom_idx, a->nanom + 1, a->cap_anom);
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

#define MESSAGES_MAX (64 * 1024)   /* the log keeps its newest lines within this */

/* The message line, as a line of the log (not again when the last line says it). */
static void log_message(app *a)
{
    strbuf *m = &a->messages;
    if (!a->message.len)
        return;
    size_t n = a->message.len, at = m->len;
    if (at && m->buf[at - 1] == '\n') {
        size_t start = at - 1;
        while (start && m->buf[start - 1] != '\n')
            start--;
        if (at - 1 - start == n && !memcmp(m->buf + start, a->message.buf, n))
            return;
    }
    if (m->len + n + 1 > MESSAGES_MAX) {   /* the older half goes, at a line's end */
        const char *cut = memchr(m->buf + m->len / 2, '\n', m->len - m->len / 2);
        size_t drop = cut ? (size_t)(cut - m->buf) + 1 : m->len;
        memmove(m->buf, m->buf + drop, m->len - drop);
        strbuf_setlen(m, m->len - drop);
    }
    for (size_t i = 0; i < n; i++)   /* one line each: a message with a newline in it stays one */
        strbuf_addch(m, a->message.buf[i] == '\n' ? ' ' : a->message.buf[i]);
    strbuf_addch(m, '\n');
}

void app_message(app *a, int is_error, const char *fmt, ...)
{
    strbuf_reset(&a->message);
    va_list ap;
    va_start(ap, fmt);
    strbuf_vaddf(&a->message, fmt, ap);
    va_end(ap);
    a->message_error = is_error;
    log_message(a);
}

int app_take_output(app *a, strbuf *pending)
{
    size_t off = 0;
    int any = 0;
    const char *nl;
    while ((nl = memchr(pending->buf + off, '\n', pending->len - off))) {
        const char *line = pending->buf + off;
        int n = (int)(nl - line);
        off = (size_t)(nl - pending->buf) + 1;
        if (n > 0 && line[n - 1] == '\r')
            n--;
        if (!n)
            continue;
        if (n >= 9 && !memcmp(line, "aotidbg: ", 9))
            line += 9, n -= 9;
        int err = memmem(line, (size_t)n, "error", 5) || memmem(line, (size_t)n, "warning", 7) ||
                  memmem(line, (size_t)n, "failed", 6);
        app_message(a, err, "%.*s", n, line);
        any = 1;
    }
    memmove(pending->buf, pending->buf + off, pending->len - off);
    strbuf_setlen(pending, pending->len - off);
    return any;
}

int app_breaks_at(const app *a, const kernel_event *k)
{
    return k->index == a->brk.kernel || (a->brk.name[0] && !strcmp(k->name, a->brk.name));
}

const kernel_event *app_selected_kernel(app *a)
{
    int64_t c = a->panes[PANE_KERNELS].cursor;
    if (c < 0 || (size_t)c >= a->s->nkernels)
        return NULL;
    return &a->s->kernels[c]->u.kernel;
}

const fold_event *app_selected_fold(const app *a, int64_t *row)
{
    if (!a->fold_sel || a->panes[PANE_KERNELS].cursor != a->fold_cursor)
        return NULL;
    *row = a->fold_row;
    return a->fold_sel;
}

const nan_event *app_nan_event(app *a)
{
    app_errors(a);
    size_t i = a->nan_at;
    if (i && (i > a->s->nevents || a->s->events[i - 1]->kind != EV_NAN)) {   /* the events changed under it */
        a->err_scanned = a->s->nevents + 1;
        app_errors(a);
        i = a->nan_at;
    }
    return i ? &a->s->events[i - 1]->u.nan : NULL;
}

const size_t *app_memchecks(app *a, size_t *n)
{
    app_errors(a);
    *n = a->nmc;
    return a->mc_idx;
}

void app_clamp(app *a)
{
    for (int i = 0; i < PANE__COUNT; i++) {
        pane *p = &a->panes[i];
        int64_t n = p->ops->rows(a, p);
        if (p->cursor >= n)
            p->cursor = n > 0 ? n - 1 : 0;
        if (p->cursor < 0)
            p->cursor = 0;
        if (p->top > p->cursor)
            p->top = p->cursor;
    }
}

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

int app_pane_index(const app *a, const char *name)
{
    for (int i = 0; name && i < PANE__COUNT; i++)
        if (a->panes[i].ops && !strcmp(a->panes[i].ops->name, name))
            return i;
    return -1;
}

void app_broadcast(app *a, pane_request req)
{
    for (int i = 0; i < PANE__COUNT; i++)
        if (a->panes[i].ops && a->panes[i].ops->request)
            a->panes[i].ops->request(a, &a->panes[i], req, NULL);
}

int app_chain(app *a, const char *action, const char *arg)
{
    a->chain_action = action;
    snprintf(a->chain_arg, sizeof a->chain_arg, "%s", arg ? arg : "");
    return AF_CHAIN;
}
