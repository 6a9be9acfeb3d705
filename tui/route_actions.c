/* route_actions.c — the router's next steps as actions (see route_actions.h). */
#include "route_actions.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "checklist.h"
#include "cmd_repro.h"
#include "live.h"
#include "pane_inspector.h"
#include "pane_router.h"
#include "protocol.h"
#include "render.h"
#include "screen.h"
#include "textview.h"
#include "view.h"
#include "package.h"
#include "package_sources.h"
#include "source_view.h"
#include "paths.h"
#include "router.h"

#define SOURCE_MAX_BYTES (64u << 20)   /* wrapper.cpp + kernel.cpp read for the view */

/* ---- helpers ---------------------------------------------------------- */

/* The value the selected error's route gives for an action (e.g. the kernel
 * of jump-kernel), or NULL. */
static const char *route_value(app *a, const char *action)
{
    const route_result *rr = pane_router_selected(a);
    for (size_t i = 0; rr && i < rr->nactions; i++)
        if (!strcmp(rr->actions[i].name, action) && rr->actions[i].value)
            return rr->actions[i].value;
    const char *k = rr ? route_result_field(rr, "kernel") : NULL;
    return k;
}

/* ---- the actions ------------------------------------------------------ */


int ra_run_checklist(app *a, const char *arg)
{
    (void)arg;
    /* a replay without rows: run it now when the package is on this machine */
    if (!a->s->nchecks && a->mode != MODE_LIVE && a->s->package.path && access(a->s->package.path, R_OK) == 0) {
        package_t *p = NULL;
        strbuf err = STRBUF_INIT, why = STRBUF_INIT;
        if (package_open(&p, a->s->package.path, &err) == 0) {
            checklist_opts co = {0};
            co.device = a->s->device;
            co.inputs = a->s->ninputs ? a->s->inputs : NULL;
            co.ninputs = a->s->ninputs;
            checklist_gate(p, &co, a->s, &why);
        } else {
            app_message(a, 1, "run-checklist: %s", err.buf);
        }
        package_close(p);
        strbuf_release(&err);
        strbuf_release(&why);
    }
    a->focus = PANE_CHECKLIST;
    view_close_all(a);
    size_t fails = 0, warns = 0;
    int64_t first = -1;
    for (size_t i = 0; i < a->s->nchecks; i++) {
        if (a->s->checks[i].status == CHECK_FAIL && first < 0)
            first = (int64_t)i;
        fails += a->s->checks[i].status == CHECK_FAIL;
        warns += a->s->checks[i].status == CHECK_WARN;
    }
    if (first >= 0)
        pane_goto(&a->panes[PANE_CHECKLIST], first, (int64_t)a->s->nchecks);
    if (!a->s->nchecks)
        app_message(a, 1, "no checklist rows: the package is not at hand (aotidbg check PKG --inputs SPEC)");
    else
        app_message(a, 0, "checklist: %zu rows, %zu FAIL, %zu WARN", a->s->nchecks, fails, warns);
    return AF_HANDLED;
}

int ra_rerun_blocking(app *a, const char *arg)
{
    (void)arg;
    if (a->mode != MODE_LIVE) {
        app_message(a, 0, "replay: rerun live with blocking launches: aotidbg %s%s (CUDA_LAUNCH_BLOCKING=1 is set by "
                          "rerun-blocking there)", a->s->package.path ? a->s->package.path : "PKG.pt2",
                    a->s->ninputs ? " --inputs SPEC" : "");
        return AF_HANDLED;
    }
    if (live_rerun_blocking(a) < 0)
        return AF_FAILED;
    return AF_HANDLED;
}

/* The repro run's notes on the message line; the UI loop draws them. */
static void say_repro_progress(void *ctx, const char *text)
{
    app *a = ctx;
    app_message(a, 0, "repro: %s", text);
}

/* Live: the repro run (cmd_repro.h's, through the run service), with the
 * options of this run that repro takes, started here and pumped by the UI
 * loop (ra_repro_tick); the folder goes into the session when it is done. */
static int live_repro(app *a, const kernel_event *k, const char *dir)
{
    const run_options *g = &a->live->given;
    if (g->remote) {
        app_message(a, 1, "repro: this run is on %s (--remote) and repro runs the package here: run aotidbg repro "
                          "%s --kernel %lld -o DIR there", g->remote, g->package ? g->package : "PKG",
                    (long long)k->index);
        return AF_FAILED;
    }
    if (a->live->repro) {
        app_message(a, 1, "repro: the repro of kernel %lld is still running (Esc or ^C cancels it)",
                    (long long)a->live->repro_kernel);
        return AF_FAILED;
    }
    run_options o;
    run_options_init(&o, RUN_OPT_RUN);
    o.package = g->package;
    o.inputs = g->inputs;
    o.device = g->device;
    o.model = g->model;
    o.timeout_s = g->timeout_s;
    o.force = g->force;
    char spec[32];
    snprintf(spec, sizeof spec, "%lld", (long long)k->index);
    strbuf err = STRBUF_INIT;
    run_say say = {say_repro_progress, a};   /* the repro keeps a copy */
    repro_run *r = NULL;
    int code = repro_run_start(&r, &o, spec, dir, &say, &err);
    if (!r) {
        app_message(a, 1, "repro of kernel %lld %s: %s", (long long)k->index, k->name, err.buf);
        strbuf_release(&err);
        return code == 0 ? AF_HANDLED : AF_FAILED;
    }
    strbuf_release(&err);
    a->live->repro = r;
    a->live->repro_kernel = k->index;
    a->live->repro_seen = 0;
    app_message(a, 0, "repro of kernel %lld %s: running the package to it (Esc or ^C cancels)",
                (long long)k->index, k->name);
    return AF_HANDLED;
}

/* The finished repro run: its folder written (or why not) on the message line. */
static void repro_done(app *a)
{
    repro_run *r = a->live->repro;
    int64_t index = a->live->repro_kernel;
    a->live->repro = NULL;
    strbuf done = STRBUF_INIT, err = STRBUF_INIT;
    int code = repro_run_finish(r, &done, &err);
    if (code == 0) {
        const char *at = strstr(done.buf, " written to "), *nl = strchr(done.buf, '\n');
        if (at && nl && nl > at + 12)
            a->s->repro = arena_strndup(&a->s->arena, at + 12, (size_t)(nl - at - 12));
        for (char *p = done.buf; *p; p++)   /* one line: the command follows the folder */
            if (*p == '\n') *p = ' ';
        app_message(a, 0, "%s", done.buf);
    } else {
        app_message(a, 1, "repro of kernel %lld: %s", (long long)index, err.buf);
    }
    strbuf_release(&done);
    strbuf_release(&err);
}

int ra_repro_tick(app *a, int timeout_ms)
{
    if (!a->live || !a->live->repro)
        return 0;
    live_run *L = a->live;
    if (repro_run_pump(L->repro, timeout_ms)) {
        repro_done(a);
        return 1;
    }
    size_t n = repro_run_kernels(L->repro);
    if (n == L->repro_seen)
        return 0;
    L->repro_seen = n;
    app_message(a, 0, "repro of kernel %lld: running, %zu launch%s so far (Esc or ^C cancels)",
                (long long)L->repro_kernel, n, n == 1 ? "" : "es");
    return 1;
}

int ra_repro_settle(app *a, int timeout_ms)
{
    for (int waited = 0; a->live && a->live->repro; waited += 50) {
        if (waited > timeout_ms)
            return -1;
        ra_repro_tick(a, 50);
    }
    return 0;
}

int ra_repro_cancel(app *a)
{
    if (!a->live || !a->live->repro)
        return 0;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", repro_run_dir(a->live->repro));
    repro_run_cancel(a->live->repro);
    a->live->repro = NULL;
    app_message(a, 0, "repro of kernel %lld cancelled: its runner was ended and %s emptied (its session.yaml "
                      "stays)", (long long)a->live->repro_kernel, dir);
    return 1;
}

int ra_repro_fd(app *a)
{
    return a->live && a->live->repro ? repro_run_fd(a->live->repro) : -1;
}

int ra_repro(app *a, const char *arg)
{
    const kernel_event *k = app_selected_kernel(a);
    if (!k) {
        app_message(a, 1, "repro: select a kernel in the kernel list (3)");
        return AF_FAILED;
    }
    char dir[256];
    snprintf(dir, sizeof dir, "%s", arg && *arg ? arg : "");
    if (!*dir) snprintf(dir, sizeof dir, "repro-k%lld", (long long)k->index);
    if (a->mode == MODE_LIVE && a->live)
        return live_repro(a, k, dir);
    /* replay: no run here, so the command that makes it */
    app_message(a, 0, "repro of kernel %lld %s: aotidbg repro %s%s --kernel %lld -o %s (runs the package to that "
                      "launch and writes it standalone: code, inputs, expected outputs, CMakeLists.txt)",
                (long long)k->index, k->name, a->s->package.path ? a->s->package.path : "PKG.pt2",
                a->s->ninputs ? " --inputs SPEC" : "", (long long)k->index, dir);
    return AF_HANDLED;
}

int ra_rebuild_printer(app *a, const char *arg)
{
    int level = arg && *arg ? atoi(arg) : 1;
    if (level < 1 || level > 3) {
        app_message(a, 1, "rebuild-printer: level 1, 2 or 3");
        return AF_FAILED;
    }
    /* A rebuild needs the user's exported program: say the exact command. */
    app_message(a, 0, "rebuild with the printer at level %d: python3 %s/prepare/aotidbg_prepare.py EXPORTED.pt2 "
                      "-o OUT.pt2 --printer %d (needs the torch.export.save file)", level, aotidbg_data_dir(), level);
    return AF_HANDLED;
}

int ra_jump_kernel(app *a, const char *arg)
{
    const char *want = arg && *arg ? arg : NULL;
    const error_event *e = pane_router_error(a);
    int64_t k = -1;
    if (!want && e && e->kernel_index >= 0)
        k = e->kernel_index;
    if (!want && k < 0)
        want = route_value(a, "jump-kernel");
    if (want) {
        char *end;
        long long v = strtoll(want, &end, 10);
        if (!*end)
            k = v;
        else
            for (size_t i = 0; i < a->s->nkernels && k < 0; i++)
                if (!strcmp(a->s->kernels[i]->u.kernel.name, want))
                    k = (int64_t)i;
    }
    if (k < 0 || (size_t)k >= a->s->nkernels) {
        app_message(a, 1, "jump-kernel: %s%s is not in this run's kernel list", want ? "kernel " : "no kernel",
                    want ? want : " named by the error");
        return AF_FAILED;
    }
    a->focus = PANE_KERNELS;
    a->follow = 0;
    view_close_all(a);
    pane_goto(&a->panes[PANE_KERNELS], k, (int64_t)a->s->nkernels);
    app_broadcast(a, PREQ_KERNEL_SELECTED);
    app_message(a, 0, "kernel %lld: %s", (long long)k, a->s->kernels[k]->u.kernel.name);
    return AF_HANDLED;
}

/* A field of an error event, or NULL. */
static const char *error_field(const error_event *e, const char *key)
{
    for (size_t i = 0; e && i < e->nfields; i++)
        if (!strcmp(e->fields[i].key, key))
            return e->fields[i].value;
    return NULL;
}

/* A field of the selected error, else of its routing. */
static const char *selected_field(app *a, const char *key)
{
    const char *v = error_field(pane_router_error(a), key);
    const route_result *rr = v ? NULL : pane_router_selected(a);
    return v ? v : rr ? route_result_field(rr, key) : NULL;
}

int ra_goto_element(app *a, const char *arg)
{
    (void)arg;
    const error_event *e = pane_router_error(a);
    const char *t = selected_field(a, "index_tensor"), *at = selected_field(a, "index_at");
    const char *v = selected_field(a, "index_value");
    tensor_phase ph = PHASE_BEFORE;   /* the index the kernel was about to read */
    if (!at) {
        t = selected_field(a, "bad_tensor");
        at = selected_field(a, "bad_at");
        v = selected_field(a, "bad_value");
        ph = PHASE_AFTER;   /* the NaN/Inf the kernel wrote */
    }
    const char *ki = selected_field(a, "kernel_index");
    int64_t k = e && e->kernel_index >= 0 ? e->kernel_index : ki ? atoll(ki) : -1;
    const event *ke = session_kernel_event(a->s, k);
    if (!e || !t || !at || !strcmp(at, "?") || !ke) {
        app_message(a, 1, "goto-element: %s", !e ? "no error selected in the router (1)"
                                              : "this error names no element (an index out of bounds or a NaN/Inf "
                                                "traced to one: aotidbg route S.yaml --package PKG)");
        return AF_FAILED;
    }
    size_t pos = 0;
    while (pos < a->s->nkernels && a->s->kernels[pos] != ke)
        pos++;
    a->follow = 0;
    view_close_all(a);
    pane_goto(&a->panes[PANE_KERNELS], (int64_t)pos, (int64_t)a->s->nkernels);
    app_broadcast(a, PREQ_KERNEL_SELECTED);
    strbuf msg = STRBUF_INIT;
    int rc = inspector_goto_element(a, t, ph, at, &msg);
    if (rc < 0) {
        app_message(a, 1, "goto-element: %s", msg.buf);
        strbuf_release(&msg);
        return AF_FAILED;
    }
    a->focus = PANE_INSPECTOR;
    const char *u = ph == PHASE_BEFORE ? selected_field(a, "index_user") : NULL;
    app_message(a, 0, "%s%s%s%s%s = %s (%s of kernel #%lld %s)%s%s", u ? u : "", u ? " (" : "", t, u ? ")" : "", at,
                v ? v : "?", phase_name(ph), (long long)k, ke->u.kernel.name, msg.len ? "; " : "", msg.buf);
    strbuf_release(&msg);
    return AF_HANDLED;
}

/* The first error attributed to kernel index ki, or NULL. */
static const error_event *kernel_error(app *a, int64_t ki)
{
    for (size_t i = 0; ki >= 0 && i < app_errors(a); i++) {
        const error_event *e = &a->s->events[a->err_idx[i]]->u.error;
        if (e->kernel_index == ki)
            return e;
    }
    return NULL;
}

/* What the failing line holds, from an error's fields: the index assert's
 * message; and the kernel.cpp line a CPU error names (0 none). */
static void failing_line(const error_event *e, const route_result *rr, char *text, size_t n, int64_t *line)
{
    const char *tmp = error_field(e, "tmp"), *bound = error_field(e, "bound");
    const char *file = error_field(e, "file"), *ln = error_field(e, "line");
    if (rr) {
        tmp = tmp ? tmp : route_result_field(rr, "tmp");
        bound = bound ? bound : route_result_field(rr, "bound");
        file = file ? file : route_result_field(rr, "file");
        ln = ln ? ln : route_result_field(rr, "line");
    }
    text[0] = 0;
    *line = 0;
    if (tmp && bound)
        snprintf(text, n, "index out of bounds: 0 <= %s < %s", tmp, bound);
    size_t fl = file ? strlen(file) : 0;
    if (ln && fl > 11 && !strcmp(file + fl - 11, ".kernel.cpp"))
        *line = atoll(ln);
}

int ra_open_source(app *a, const char *arg)
{
    const char *name = arg && *arg ? arg : NULL;
    const error_event *e = a->focus == PANE_ROUTER ? pane_router_error(a) : NULL;
    const route_result *rr = e ? pane_router_selected(a) : NULL;
    const kernel_event *k = NULL;
    if (!name && e)
        name = route_value(a, "open-source");
    if (!name && e && e->kernel_index >= 0 && (size_t)e->kernel_index < a->s->nkernels)
        name = a->s->kernels[e->kernel_index]->u.kernel.name;
    if (e && e->kernel_index >= 0 && (size_t)e->kernel_index < a->s->nkernels)
        k = &a->s->kernels[e->kernel_index]->u.kernel;
    if (!name && (k = app_selected_kernel(a)))
        name = k->name;
    if (k && name && strcmp(k->name, name))
        k = NULL;   /* a kernel named by hand: its first launch below */
    for (size_t i = 0; !k && name && i < a->s->nkernels; i++)
        if (!strcmp(a->s->kernels[i]->u.kernel.name, name))
            k = &a->s->kernels[i]->u.kernel;
    if (!e && k)
        e = kernel_error(a, k->index);   /* the kernel that failed: its failing line */
    const char *pkg = a->sources_at ? a->sources_at : a->s->package.path;
    if (!pkg || access(pkg, R_OK) != 0) {
        app_message(a, 1, "open-source: the package is not at hand (%s); the source is its wrapper.cpp/kernel.cpp",
                    pkg ? pkg : "the session names none");
        return AF_FAILED;
    }
    package_sources src = PACKAGE_SOURCES_INIT;
    strbuf err = STRBUF_INIT;
    int rc = AF_FAILED;
    if (package_sources_read(pkg, a->s->package.model, SOURCE_MAX_BYTES, &src, &err) < 0) {
        app_message(a, 1, "open-source: %s", err.buf);
        goto out;
    }
    source_spot sp = {SRC_WRAPPER, 1, 0, 0, "top"};
    char fail[256];
    int64_t fail_line;
    failing_line(e, rr, fail, sizeof fail, &fail_line);
    const kernel_call *kc = k ? session_kernel_call(a->s, k) : NULL;
    int found = name && kernel_source_find(src.wrapper.buf, src.wrapper.len, src.kernel.len ? src.kernel.buf : NULL,
                                           src.kernel.len, name, kc ? kc->line : 0, fail, fail_line, &sp) == 0;
    const strbuf *text = sp.part == SRC_KERNEL ? &src.kernel : &src.wrapper;
    const char *at = sp.part == SRC_KERNEL ? src.kernel_at.buf : src.wrapper_at.buf;
    const char *base = strrchr(at, '/') ? strrchr(at, '/') + 1 : at;
    const char *kind = sp.part == SRC_KERNEL ? "kernel.cpp" : "wrapper.cpp";
    char title[sizeof a->view_title];
    if (found)
        snprintf(title, sizeof title, "source: %s - %s line %lld (%s) - %s", name, kind, (long long)sp.line,
                 sp.what, at);
    else
        snprintf(title, sizeof title, "source: %s - %s", kind, at);
    textview_open(a, title, text->buf, 0);
    a->view_top = sp.line > 3 ? sp.line - 3 : 0;
    a->view_hit = found ? sp.line - 1 : -1;
    if (found) {
        snprintf(a->search, sizeof a->search, "%s", name);
        app_message(a, 0, "%s: %s at line %lld of %s", name, sp.what, (long long)sp.line, base);
    } else if (name) {
        app_message(a, 1, "%s is not named in the package's sources; showing %s", name, base);
    }
    rc = AF_HANDLED;
out:
    package_sources_release(&src);
    strbuf_release(&err);
    return rc;
}

int ra_break_nan(app *a, const char *arg)
{
    (void)arg;
    a->brk.nan = a->brk.nan ? 0 : BREAK_ON_NAN;   /* NaN only: -Inf alone is a mask's (--break-on inf) */
    if (a->mode == MODE_LIVE)
        live_break_nan(a, a->brk.nan);
    app_message(a, 0, "break on NaN: %s%s", a->brk.nan ? "on" : "off",
                a->mode == MODE_LIVE ? "" : " (replay: continue stops at the next kernel with NaN or Inf; -Inf alone is a mask, no stop)");
    return AF_HANDLED;
}
