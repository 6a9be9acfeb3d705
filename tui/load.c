/* load.c — a replayed session shown while it loads (see load.h). */
#include "load.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "compat.h"
#include "commands.h"
#include "fdio.h"

#define STREAM_BYTES_DEFAULT (8u << 20)
#define FIRST_SLICE_S 0.08   /* the first screen's events: this long at most, */
#define FIRST_EVENTS 2048    /* and no more than this many (a screen shows far fewer) */
#define EVENTS_PER_CHECK 256 /* events between looks at the clock */
#define REDRAW_S 0.2         /* a frame while loading at most this often (keys redraw at once) */

static uint64_t stream_bytes(void)
{
    const char *e = getenv("AOTIDBG_STREAM_BYTES");
    char *end;
    unsigned long long v = e && *e ? strtoull(e, &end, 10) : 0;
    return e && *e && !*end ? (uint64_t)v : STREAM_BYTES_DEFAULT;
}

/* Steps r for about budget_s: 1 more to read, 0 done, -1 failed (err). */
static int read_for(session_reader *r, double budget_s, strbuf *err)
{
    double t0 = mono_now_s();
    int rc;
    do
        rc = session_reader_step(r, EVENTS_PER_CHECK, err);
    while (rc == 1 && mono_now_s() - t0 < budget_s);
    return rc;
}

int load_open(const char *path, session **s, session_reader **r)
{
    *s = NULL;
    *r = NULL;
    strbuf err = STRBUF_INIT;
    session_reader *rd;
    if (session_reader_open(path, &rd, &err) < 0) {
        fprintf(stderr, "aotidbg: %s\n", err.buf);
        strbuf_release(&err);
        return -1;
    }
    uint64_t done, total;
    session_reader_progress(rd, &done, &total);
    int rc, big = total > stream_bytes();
    if (big) {
        double t0 = mono_now_s();
        size_t n = 0;
        do
            rc = session_reader_step(rd, EVENTS_PER_CHECK, &err);
        while (rc == 1 && (n += EVENTS_PER_CHECK) < FIRST_EVENTS && mono_now_s() - t0 < FIRST_SLICE_S);
    } else {
        rc = read_for(rd, 1e30, &err);
    }
    if (rc < 0) {   /* wrong early on: no screen, as before */
        fprintf(stderr, "aotidbg: %s\n", err.buf);
        strbuf_release(&err);
        session_reader_close(rd);
        return -1;
    }
    strbuf_release(&err);
    *s = session_reader_take(rd);
    if (rc == 1)
        *r = rd;
    else
        session_reader_close(rd);
    return 0;
}

int load_busy(const app *a) { return a->loader && !session_reader_done(a->loader); }

/* What the slice's end means for the screen. */
static void after_slice(app *a, int rc, strbuf *err)
{
    app_clamp(a);
    /* as app_init does for a session read whole: errors open the router, unless the user has moved on */
    if (!a->load_saw_error && app_errors(a)) {
        a->load_saw_error = 1;
        if (a->focus == PANE_KERNELS && a->follow && a->panes[PANE_KERNELS].cursor == 0 && !a->over && !a->prompt)
            a->focus = PANE_ROUTER;
    }
    if (rc < 0) {
        free(a->load_error);
        a->load_error = xstrdup(err->buf);
        app_message(a, 1, "%s (%zu events before it loaded)", err->buf, a->s->nevents);
    } else if (rc == 0 && a->s->truncated && a->s->nwarnings) {
        app_message(a, 1, "%s", a->s->warnings[a->s->nwarnings - 1]);
    }
}

int load_slice(app *a, double budget_s)
{
    if (!load_busy(a))
        return 0;
    strbuf err = STRBUF_INIT;
    int rc = read_for(a->loader, budget_s, &err);
    after_slice(a, rc, &err);
    strbuf_release(&err);
    double now = mono_now_s();
    if (rc == 1 && now - a->load_drawn < REDRAW_S)
        return 0;   /* a frame costs what the panes look up over the session: not every slice */
    a->load_drawn = now;
    return 1;
}

void load_finish(app *a)
{
    while (load_busy(a))
        load_slice(a, 1e30);
}

const char *load_status(const app *a, char *buf, size_t n)
{
    if (!load_busy(a))
        return NULL;
    uint64_t done, total;
    session_reader_progress(a->loader, &done, &total);
    snprintf(buf, n, "loading %.0f%% of %.0f MB (%zu events)", total ? 100.0 * (double)done / (double)total : 0.0,
             (double)total / 1e6, a->s->nevents);
    return buf;
}

int load_close(app *a)
{
    session_reader_close(a->loader);
    a->loader = NULL;
    if (!a->load_error)
        return 0;
    fprintf(stderr, "aotidbg: %s\n", a->load_error);
    free(a->load_error);
    a->load_error = NULL;
    return EXIT_USAGE;
}
