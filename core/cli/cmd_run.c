/* cmd_run.c — `aotidbg run`: the headless run, for CI and remote boxes.
 *
 * The run itself is the run service's (core/run/run_service.h, the same one
 * the live UI uses): package, checklist (a FAIL row refuses the run unless
 * --force), mode, runner, and the session written as events arrive. This
 * file parses the options (run_options.h's table), pumps the run to the end
 * or the first break, ends it on SIGHUP/SIGINT/SIGTERM or when its parent
 * dies (end_state "interrupted (WHY)"; the handlers stay through the final
 * save, so a second signal cannot cut it), and prints a short summary to
 * stderr, saying what the file on disk says. Exit codes: run_service_exit_code (commands.h: 0 ran, 1 failed,
 * 2 bad usage or input), 3 when --eager passed over only part of the kernels. Everything is freed before return; the runner
 * never outlives us. */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>
#include "cmd_ranks.h"
#include "commands.h"
#include "nan_element.h"
#include "model.h"
#include "opt.h"
#include "protocol.h"
#include "route_event.h"
#include "run_options.h"
#include "run_expect.h"
#include "run_service.h"
#include "session_read.h"
#include "compat.h"
#include "weight_diff.h"

#define PARENT_DIED (-1)   /* interrupted: not a signal, the parent went away */
static volatile sig_atomic_t interrupted;
static pid_t parent;   /* at the start: PR_SET_PDEATHSIG's SIGHUP comes with a new parent */
static void on_signal(int sig)
{
    if (!interrupted)   /* the first one says how the run ended */
        interrupted = sig == SIGHUP && getppid() != parent ? PARENT_DIED : sig;
}

/* The signals that end a run; SIGPIPE (a closed stderr) is ignored so that
 * the save still happens. The parent dying sends SIGHUP, and is polled too. */
static const int end_signals[] = {SIGHUP, SIGINT, SIGTERM};
#define NEND (sizeof end_signals / sizeof end_signals[0])

static void catch_end_signals(struct sigaction *old, struct sigaction *old_pipe)
{
    struct sigaction sa = {0};
    sa.sa_handler = on_signal;
    sigfillset(&sa.sa_mask);
    for (size_t i = 0; i < NEND; i++)
        sigaction(end_signals[i], &sa, &old[i]);
    struct sigaction ign = {0};
    ign.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &ign, old_pipe);
    prctl(PR_SET_PDEATHSIG, SIGHUP);
}

/* After the run the parent's death no longer matters. The handlers stay: a signal that comes while
 * the process exits (LeakSanitizer's check at exit takes a while) only sets the flag, and must not
 * end it by a signal after the session said how it ended. */
static void release_signals(void)
{
    prctl(PR_SET_PDEATHSIG, 0);
}

static const char *interrupt_name(int sig)
{
    return sig == PARENT_DIED ? "parent died" : signal_name(sig);
}

/* What the file on disk says when the final save failed: the streamed
 * recording as it was cut ("cut-off", "running"), or why it cannot be read. */
static const char *file_end_state(const char *path, char *buf, size_t n)
{
    session *f = NULL;
    strbuf e = STRBUF_INIT;
    if (session_load(path, &f, &e) < 0)
        snprintf(buf, n, "unreadable");
    else
        snprintf(buf, n, "%s", f->end_state ? f->end_state : "complete");
    session_free(f);
    strbuf_release(&e);
    return buf;
}


/* First line of text, at most max bytes, into a static buffer. */
static const char *first_line(const char *text, size_t max)
{
    static char buf[512];
    if (max >= sizeof buf)
        max = sizeof buf - 1;
    size_t n = strcspn(text, "\n");
    if (n > max)
        n = max;
    memcpy(buf, text, n);
    buf[n] = 0;
    return buf;
}

static const char *kernel_name_at(const session *s, int64_t idx)
{
    const event *e = session_kernel_event(s, idx);
    return e ? e->u.kernel.name : "?";
}

static const char *error_field(const error_event *e, const char *key)
{
    for (size_t i = 0; i < e->nfields; i++)
        if (!strcmp(e->fields[i].key, key))
            return e->fields[i].value;
    return NULL;
}

static const char *error_get(const void *ctx, const char *key) { return error_field(ctx, key); }

/* "  route: ID (input N NAME, dim D = SIZE); the steps: aotidbg route OUT" */
static void print_route(const event *err_ev, const char *out)
{
    const error_event *e = &err_ev->u.error;
    if (!e->route || !strcmp(e->route, "unknown"))
        return;
    fprintf(stderr, "  route: %s", e->route);
    const char *ii = error_field(e, "input_index"), *name = error_field(e, "input"), *dim = error_field(e, "dim"),
               *size = error_field(e, "dim_value");
    if (ii) {
        fprintf(stderr, " (input %s%s%s", ii, name ? " " : "", name ? name : "");
        if (dim)
            fprintf(stderr, ", dim %s%s%s", dim, size ? " = " : "", size ? size : "");
        fputc(')', stderr);
    }
    fprintf(stderr, "; the steps: aotidbg route %s\n", out);
    const char *at = error_field(e, "source_line"), *code = error_field(e, "source_code");
    if (at)   /* the model's line the failing kernel comes from (provenance) */
        fprintf(stderr, "  at %s%s%s\n", at, code ? ": " : "", code ? code : "");
    strbuf el = STRBUF_INIT;
    if (error_field(e, "index_at") && route_element_line(error_get, e, &el))   /* the element behind an index assert */
        fprintf(stderr, "  %s\n", el.buf);
    strbuf_release(&el);
}

/* "4 KiB", "256 MiB", "1536 bytes": the budget as it was most likely given. */
static void put_size(FILE *f, uint64_t n)
{
    static const char *const unit[] = {"bytes", "KiB", "MiB", "GiB"};
    int u = 0;
    while (u < 3 && n && n % 1024 == 0)
        n /= 1024, u++;
    fprintf(f, "%llu %s", (unsigned long long)n, unit[u]);
}

/* One line when the value budget cut any tensor: where it first ran out
 * and how many tensors keep only statistics and a sample. */
static void report_budget(const session *s, uint64_t budget)
{
    size_t ncut = 0;
    const event *first = NULL;
    for (size_t i = 0; i < s->nevents; i++) {
        const event *e = s->events[i];
        size_t n = e->kind == EV_KERNEL ? e->u.kernel.ntensors : e->kind == EV_OUTPUT ? e->u.output.ntensors : 0;
        const tensor_rec *t = e->kind == EV_KERNEL ? e->u.kernel.tensors : e->kind == EV_OUTPUT ? e->u.output.tensors
                                                                                              : NULL;
        for (size_t j = 0; j < n; j++)
            if (t[j].values_budget_cut) {
                ncut++;
                if (!first)
                    first = e;
            }
    }
    if (!ncut)
        return;
    fputs("aotidbg: the value budget (", stderr);
    put_size(stderr, budget);
    if (first->kind == EV_KERNEL)
        fprintf(stderr, ") was used up at kernel #%" PRId64 " (%s)", first->u.kernel.index, first->u.kernel.name);
    else
        fputs(") was used up at the outputs", stderr);
    fprintf(stderr, "; %zu tensor%s keep%s statistics and a sample of %s values (--values-budget)\n", ncut,
            ncut == 1 ? "" : "s", ncut == 1 ? "s" : "", ncut == 1 ? "its" : "their");
}

/* "  NaN first at kernel #6 NAME: buf15[0, 0, 0] = nan (3 NaN, 0 +Inf, 0 -Inf); log at model.py:36: ..." */
static void report_nan(const session *s)
{
    const nan_event *ev = session_nan_event(s);
    const event *ke = ev ? session_kernel_event(s, ev->kernel_index) : NULL;
    if (!ke)
        return;
    uint64_t n[3] = {0, 0, 0};   /* NaN, +Inf, -Inf in what the kernel wrote */
    for (size_t i = 0; i < ke->u.kernel.ntensors; i++) {
        const tensor_rec *t = &ke->u.kernel.tensors[i];
        if (t->phase == PHASE_AFTER && t->has_stats) {
            n[0] += t->stats.nan;
            n[1] += t->stats.posinf;
            n[2] += t->stats.neginf;
        }
    }
    const char *what = n[0] ? "NaN" : n[1] ? "+Inf" : n[2] ? "-Inf" : "NaN/Inf";
    fprintf(stderr, "  %s first at kernel #%lld %s", what, (long long)ev->kernel_index, ke->u.kernel.name);
    if (ke->u.kernel.iteration >= 0)   /* "... iteration 150 of while_loop_body_graph_0" */
        fprintf(stderr, " (iteration %lld of %s)", (long long)ke->u.kernel.iteration,
                ke->u.kernel.branch ? ke->u.kernel.branch : "its loop");
    fprintf(stderr, ": %s%s = %s (%" PRIu64 " NaN, %" PRIu64 " +Inf, %" PRIu64 " -Inf)%s",
            ev->tensor, ev->at ? ev->at : "", ev->value ? ev->value : "nan or inf", n[0], n[1], n[2],
            !n[0] && !n[1] && n[2] ? ": -Inf alone, as an attention mask writes; no NaN" : "");
    if (ev->from && starts_with(ev->from, "input "))
        fprintf(stderr, "; %s", ev->from);
    else if (ev->nops)
        fprintf(stderr, "; %s", ev->ops[0]);
    fputc('\n', stderr);
}

/* "  output0: all 64 of its 64 elements are NaN or Inf (...)", for each output that has any. */
static void report_outputs(const session *s, const char *out)
{
    const event *o = NULL;
    for (size_t i = s->nevents; i-- > 0 && !o;)
        if (s->events[i]->kind == EV_OUTPUT)
            o = s->events[i];
    for (size_t i = 0; o && i < o->u.output.ntensors; i++) {
        const tensor_rec *t = &o->u.output.tensors[i];
        const tensor_stats *st = &t->stats;
        if (!t->has_stats || st->finite == st->numel)
            continue;
        fprintf(stderr, "  %s: %s %" PRIu64 " of its %" PRIu64 " elements are NaN or Inf (nan %" PRIu64
                ", +inf %" PRIu64 ", -inf %" PRIu64 "); aotidbg replay %s --keys hunt-nan finds where they start\n",
                t->name, st->finite ? "" : "all", st->numel - st->finite, st->numel, st->nan, st->posinf,
                st->neginf, out);
    }
}

/* What --eager compared: a kernel is compared when some node of it was
 * checked against an output (close or differs); the others are listed with
 * why. Counts cover the main graph's kernel events. */
typedef struct {
    uint64_t kernels, compared, checks, close, unmatched, unreadable;
    uint64_t before, before_compared;   /* kernels before the departure, and how many were compared */
    uint64_t inherit;                   /* kernels after it that differ too */
    int64_t uncompared[5];              /* the first few not compared */
    size_t nuncompared;
} eager_cover;

static int kernel_compared(const kernel_event *k)
{
    for (size_t j = 0; j < k->neager; j++)
        if (k->eager[j].verdict == EAGER_CLOSE || k->eager[j].verdict == EAGER_DIFFERS)
            return 1;
    return 0;
}

static void eager_coverage(const session *s, const divergence_event *d, eager_cover *c)
{
    memset(c, 0, sizeof *c);
    for (size_t i = 0; i < s->nevents; i++) {
        const event *e = s->events[i];
        if (e->kind != EV_KERNEL || (e->u.kernel.branch && *e->u.kernel.branch))
            continue;
        const kernel_event *k = &e->u.kernel;
        int done = kernel_compared(k), differs = 0;
        c->kernels++;
        c->compared += done;
        if (!done && c->nuncompared < sizeof c->uncompared / sizeof *c->uncompared)
            c->uncompared[c->nuncompared++] = k->index;
        for (size_t j = 0; j < k->neager; j++) {
            eager_verdict v = k->eager[j].verdict;
            c->checks++;
            c->close += v == EAGER_CLOSE;
            c->unmatched += v == EAGER_UNMATCHED;
            c->unreadable += v == EAGER_UNREADABLE;
            differs |= v == EAGER_DIFFERS;
        }
        if (d && k->index < d->kernel_index) {
            c->before++;
            c->before_compared += done;
        } else if (d && k->index > d->kernel_index) {
            c->inherit += differs;
        }
    }
}

/* "kernels 3, 7 and 12 more" : why they were not compared, and how to compare more. */
/* An uncompared launch of a proxy-executor ATen call (aten::cholesky): the package's call
 * table has no row for it (wrapper.cpp calls the proxy executor, naming no kernel), so no
 * graph node is compared with it, provenance or not. */
static int proxy_launch(const session *s, int64_t i)
{
    const event *e = session_kernel_event(s, i);
    return e && e->u.kernel.call < 0 && e->u.kernel.name && !strncmp(e->u.kernel.name, "aten::", 6);
}

static void report_uncompared(const session *s, const eager_cover *c)
{
    uint64_t n = c->kernels - c->compared;
    if (!n)
        return;
    size_t nproxy = 0;
    for (size_t i = 0; i < c->nuncompared; i++)
        if (proxy_launch(s, c->uncompared[i])) {
            fprintf(stderr, "%s %" PRId64 " (%s)", nproxy++ ? "," : "    not compared: proxy-executor call",
                    c->uncompared[i], kernel_name_at(s, c->uncompared[i]));
        }
    if (nproxy)
        fprintf(stderr, ": an ATen op with no C shim, which the package's call table does not list (wrapper.cpp "
                "calls the proxy executor, naming no kernel): no graph node to compare it with\n");
    if (n == nproxy)
        return;
    fprintf(stderr, "    not compared: kernel");
    for (size_t i = 0, k = 0; i < c->nuncompared; i++)
        if (!proxy_launch(s, c->uncompared[i]))
            fprintf(stderr, "%s %" PRId64 " (%s)", k++ ? "," : "", c->uncompared[i], kernel_name_at(s, c->uncompared[i]));
    if (n > c->nuncompared)
        fprintf(stderr, " and %" PRIu64 " more", n - (uint64_t)c->nuncompared);
    if (s->eager.map && !strcmp(s->eager.map, "compiler"))
        fprintf(stderr, ": the compiler's record names no graph node for the buffers they make (partial results "
                "of a reduction, views), or their calls come after the first one where the record differs from "
                "the package\n");
    else
        fprintf(stderr, ": no graph node of theirs is held by an output they write (a node computed inside the "
                "kernel only), or they name none; a package built with provenance names more "
                "(python3 core/prepare/aotidbg_prepare.py %s -o DEBUG.pt2)\n", s->eager.program);
}

/* --eager: the program's weights against the package's, in one line, then
 * each difference (those the departure's lines said already are left out). */
static void report_weights(const session *s, const kernel_call *said)
{
    const weights_cmp *w = &s->eager.weights;
    if (!w->present)
        return;
    strbuf sb = STRBUF_INIT;
    weights_cmp_summary(w, &sb);
    fprintf(stderr, "  weights: %s\n", sb.buf);
    size_t shown = 0;
    for (size_t i = 0; i < w->ndiffs; i++) {
        const weight_diff *d = &w->diffs[i];
        int dup = 0;
        for (size_t j = 0; said && j < said->nparams && !dup; j++)
            dup = !strcmp(said->params[j], d->fqn);
        if (!weight_diff_is_difference(d) || dup)
            continue;
        if (shown++ == 5) {
            fprintf(stderr, "    (more: aotidbg replay --dump)\n");
            break;
        }
        strbuf_reset(&sb);
        weight_diff_describe(d, &sb);
        fprintf(stderr, "    %s\n", sb.buf);
    }
    strbuf_release(&sb);
}

/* The weights a departing kernel reads, each against the package's. */
static void report_read_weights(const session *s, const kernel_call *kc)
{
    const weights_cmp *w = &s->eager.weights;
    if (!w->present || w->not_compared)
        return;
    strbuf sb = STRBUF_INIT;
    for (size_t i = 0; i < kc->nparams; i++) {
        const weight_diff *d = weights_cmp_find(w, kc->params[i]);
        strbuf_reset(&sb);
        if (d)
            weight_diff_describe(d, &sb);
        else if (w->compared)   /* compared and not kept: equal byte for byte */
            strbuf_addf(&sb, "%s equals the package's (byte for byte)", kc->params[i]);
        if (sb.len)
            fprintf(stderr, "    %s\n", sb.buf);
    }
    strbuf_release(&sb);
}

/* --eager: the divergence (kernel, node, element, values, errors, the
 * user's line), or how many outputs stayed within tolerance; what was
 * compared either way. Returns EXIT_PARTIAL when nothing departed but some
 * kernels were not compared, else code. */
static int report_eager(const session *s, const char *out, int code)
{
    if (!s->eager.present)
        return code;
    const divergence_event *d = NULL;
    for (size_t i = 0; i < s->nevents && !d; i++)
        if (s->events[i]->kind == EV_DIVERGENCE)
            d = &s->events[i]->u.divergence;
    eager_cover c;
    eager_coverage(s, d, &c);
    if (d) {
        const eager_check *x = &d->check;
        fprintf(stderr, "  departs from eager at kernel %" PRId64 " (%s): node %s in %s, element %s: got %.9g, "
                "want %.9g\n", d->kernel_index, d->kernel ? d->kernel : "?", x->node, x->tensor ? x->tensor : "?",
                d->index ? d->index : "?", x->got, x->want);
        fprintf(stderr, "    %" PRIu64 " of %" PRIu64 " elements beyond |got - want| <= %g + %g * |want|; max abs "
                "error %.3g, max rel %.3g\n", x->differing, x->compared, x->atol, x->rtol, x->max_abs, x->max_rel);
        if (x->yardstick && !strcmp(x->yardstick, "float64") && x->err64 >= 0)
            fprintf(stderr, "    yardstick float64: its largest error against the float64 reference is %.3g, eager's own "
                    "%.3g (more than eager's rounding allows)\n", x->err64, x->eager_err64);
        else if (x->yardstick)
            fprintf(stderr, "    yardstick %s\n", x->yardstick);
        if (d->where)
            fprintf(stderr, "    at %s%s%s\n", d->where, d->code ? ": " : "", d->code ? d->code : "");
        const event *ke = session_kernel_event(s, d->kernel_index);
        int64_t call = ke ? ke->u.kernel.call : -1;
        const kernel_call *reads = NULL;
        if (call >= 0 && (size_t)call < s->prov.ncalls && s->prov.calls[call].nparams) {
            const kernel_call *kc = reads = &s->prov.calls[call];
            fprintf(stderr, "    it reads");
            for (size_t i = 0; i < kc->nparams; i++)
                fprintf(stderr, "%s %s", i ? "," : "", kc->params[i]);
            fputc('\n', stderr);
            report_read_weights(s, kc);
        }
        if (c.before_compared == c.before)
            fprintf(stderr, "    the %" PRIu64 " kernel%s before it match %s (aotidbg replay %s shows both)\n",
                    c.before, c.before == 1 ? "" : "s", s->eager.program, out);
        else
            fprintf(stderr, "    of the %" PRIu64 " kernels before it, the %" PRIu64 " compared match %s and %" PRIu64
                    " were not compared: the departure may start there (aotidbg replay %s shows both)\n", c.before,
                    c.before_compared, s->eager.program, c.before - c.before_compared, out);
        if (c.inherit)
            fprintf(stderr, "    %" PRIu64 " later kernel%s differ%s too, inheriting its departure\n", c.inherit,
                    c.inherit == 1 ? "" : "s", c.inherit == 1 ? "s" : "");
        fprintf(stderr, "    compared %" PRIu64 " of %" PRIu64 " kernels\n", c.compared, c.kernels);
        report_uncompared(s, &c);
        report_weights(s, reads);
        return code;
    }
    if (!c.compared) {   /* no verdict: nothing was looked at */
        fprintf(stderr, "  eager: compared 0 of %" PRIu64 " kernels: no verdict (no kernel output was compared with "
                "%s)%s%s\n", c.kernels, s->eager.program, s->eager.map_note ? "; " : "",
                s->eager.map_note ? s->eager.map_note : "");
        report_uncompared(s, &c);
        report_weights(s, NULL);
        return code == EXIT_OK ? EXIT_PARTIAL : code;
    }
    fprintf(stderr, "  eager: compared %" PRIu64 " of %" PRIu64 " kernels: no departure from %s in %s; %" PRIu64
            " of %" PRIu64 " checked outputs within tolerance", c.compared, c.kernels, s->eager.program,
            c.compared == c.kernels ? "any of them" : "those compared", c.close, c.checks);
    if (c.unmatched || c.unreadable)
        fprintf(stderr, " (%" PRIu64 " node%s held by no output, %" PRIu64 " unreadable)", c.unmatched,
                c.unmatched == 1 ? "" : "s", c.unreadable);
    fputc('\n', stderr);
    if (s->eager.map)
        fprintf(stderr, "    buffers named by %s%s%s\n", !strcmp(s->eager.map, "compiler")
                ? "the compiler's record, rounding judged against float64 where the tolerance against eager was not met"
                : "node names and shapes", s->eager.map_note ? "; " : "", s->eager.map_note ? s->eager.map_note : "");
    report_uncompared(s, &c);
    report_weights(s, NULL);
    int ran = s->end_state && !strcmp(s->end_state, "complete");
    return ran && c.compared < c.kernels && code == EXIT_OK ? EXIT_PARTIAL : code;
}

/* Names close to a break's kernel name that did run: those that contain it,
 * or that it contains. */
static void suggest_kernels(const session *s, const char *want)
{
    int n = 0;
    for (size_t i = 0; i < s->nkernels && n < 5; i++) {
        const char *k = s->kernels[i]->u.kernel.name;
        if (!strstr(k, want) && !strstr(want, k))
            continue;
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = !strcmp(s->kernels[j]->u.kernel.name, k);
        if (!seen)
            fprintf(stderr, "%s%s", n++ ? ", " : "  did you mean: ", k);
    }
    if (n)
        fputc('\n', stderr);
}

/* --memcheck: the tool's verdict (the session's note) and its first reports, each with what the
 * address hit. */
static void report_memcheck(const session *s, const char *out)
{
    size_t n = 0;
    for (size_t i = 0; i < s->nnotes; i++)
        if (starts_with(s->notes[i], "compute-sanitizer ") || starts_with(s->notes[i], "--memcheck="))
            fprintf(stderr, "  %s\n", s->notes[i]);
    for (size_t i = 0; i < s->nevents; i++) {
        const event *e = s->events[i];
        if (e->kind != EV_MEMCHECK)
            continue;
        const memcheck_event *m = &e->u.memcheck;
        if (n++ == 3) {
            fprintf(stderr, "  (more memcheck events: aotidbg replay %s --dump)\n", out);
            break;
        }
        fprintf(stderr, "  %s: %s", m->tool, m->what);
        if (m->kernel_index >= 0)
            fprintf(stderr, " in kernel %" PRId64 " (%s)", m->kernel_index, m->kernel ? m->kernel : "?");
        if (m->thread)
            fprintf(stderr, ", thread %s block %s", m->thread, m->block ? m->block : "?");
        if (m->count > 1)
            fprintf(stderr, ", %" PRId64 " reports here", m->count);
        fputc('\n', stderr);
        if (m->where)
            fprintf(stderr, "    at %s\n", m->where);
        if (m->address)
            fprintf(stderr, "    address %s: %s\n", m->address, m->hit ? m->hit : "no tensor of the run is known there");
    }
}

/* Prints the human summary to stderr; returns the exit code. on_disk: the
 * end_state the file says when the final save failed, else NULL. */
static int summarize(const session *s, run_service *rs, const char *out, const char *on_disk)
{
    int64_t nk = (int64_t)s->nkernels;
    const event *err_ev = NULL, *exit_ev = NULL;
    int has_output = 0;
    for (size_t i = 0; i < s->nevents; i++) {
        const event *e = s->events[i];
        if (e->kind == EV_ERROR && !err_ev)
            err_ev = e;
        else if (e->kind == EV_RUNNER_EXIT)
            exit_ev = e;
        else if (e->kind == EV_OUTPUT)
            has_output = 1;
    }
    int code = run_service_exit_code(rs);
    const char *end = s->end_state ? s->end_state : "";
    uint64_t fold_iters = 0, folded = session_folded_launches(s, &fold_iters);
    fprintf(stderr, "aotidbg run: %" PRId64 " kernel%s", nk + (int64_t)folded, nk + (int64_t)folded == 1 ? "" : "s");
    if (folded)   /* what the session keeps of them: counts and ranges (aotidbg-session(5), kind: fold) */
        fprintf(stderr, " (%" PRIu64 " of them in %" PRIu64 " repeated while_loop iterations, folded)", folded,
                fold_iters);
    if (run_service_eager_failure(rs)) {
        fprintf(stderr, ", not compared: %s\n", run_service_eager_failure(rs));
    } else if (code == EXIT_USAGE && !run_service_unmatched_break(rs)) {
        fprintf(stderr, ", not run: %s\n", err_ev ? err_ev->u.error.text : "wrong number of inputs");
    } else if (exit_ev && strcmp(exit_ev->u.exit.how, "killed")) {
        const runner_exit_event *x = &exit_ev->u.exit;
        int64_t last = nk ? s->kernels[nk - 1]->u.kernel.index : -1;
        if (!strcmp(x->how, "signal"))
            fprintf(stderr, "; the runner died by signal %d (%s)", x->signal, signal_name(x->signal));
        else if (!strcmp(x->how, "timeout"))
            fprintf(stderr, "; the runner stopped answering and was killed (timeout)");
        else if (!strcmp(x->how, "exited"))
            fprintf(stderr, "; the runner exited with code %d before the model finished", x->exit_code);
        else if (!strcmp(x->how, "lost"))   /* the link went: the kernel's own fate is not known */
            fprintf(stderr, "; the connection to the runner was lost");
        else
            fprintf(stderr, "; the runner was lost (%s)", x->how);
        if (last >= 0)
            fprintf(stderr, " during or after kernel %" PRId64 " (%s)", last, kernel_name_at(s, last));
        fputc('\n', stderr);
        if (err_ev) {
            fprintf(stderr, "  error: %s\n", first_line(err_ev->u.error.text, 300));
            print_route(err_ev, out);
        }
        if (x->stderr_tail) {
            /* the last few lines say most about a crash */
            const char *t = x->stderr_tail, *p = t + strlen(t);
            int lines = 0;
            while (p > t && lines < 6)
                if (*--p == '\n' && p[1])
                    lines++;
            fprintf(stderr, "  runner stderr (tail):\n%s", p == t ? p : p + 1);
            if (t[strlen(t) - 1] != '\n')
                fputc('\n', stderr);
        }
    } else if (run_service_left_at_stop(rs)) {
        int reason = run_service_stop_reason(rs);
        int64_t k = run_service_current_kernel(rs);
        static const char *const why[] = {
            [PROTO_STOP_STEP] = "after a step", [PROTO_STOP_BREAK_INDEX] = "at the index break",
            [PROTO_STOP_BREAK_NAME] = "at the kernel break", [PROTO_STOP_NAN] = "at the first NaN/Inf",
            [PROTO_STOP_ERROR] = "at the first error", [PROTO_STOP_START] = "at the start",
            [PROTO_STOP_PAUSE] = "when paused", [PROTO_STOP_DIVERGE] = "after the first kernel that departs from eager",
        };
        const event *ke = session_kernel_event(s, k);
        fprintf(stderr, "; stopped %s, kernel %" PRId64 " (%s)",
                reason >= 0 && reason <= PROTO_STOP_DIVERGE ? why[reason] : "at a break", k, kernel_name_at(s, k));
        if (ke && ke->u.kernel.iteration >= 0)
            fprintf(stderr, " in iteration %" PRId64 " of %s", ke->u.kernel.iteration,
                    ke->u.kernel.branch ? ke->u.kernel.branch : "its while_loop");
        fputc('\n', stderr);
        if (reason == PROTO_STOP_NAN)
            report_nan(s);
        if (err_ev) {
            fprintf(stderr, "  error: %s\n", first_line(err_ev->u.error.text, 300));
            print_route(err_ev, out);
        }
    } else if (!strcmp(end, "complete") && !on_disk) {
        const char *miss = run_service_unmatched_break(rs);
        fprintf(stderr, "; the model ran to the end%s%s\n", has_output ? " (outputs recorded)" : "",
                run_service_bad_output(rs) ? ", but an output is all NaN/Inf" : "");
        report_nan(s);
        report_outputs(s, out);
        if (miss) {
            fprintf(stderr, "aotidbg run: --break-on %s matched no kernel of the %" PRId64 " that ran (aotidbg "
                    "replay %s --dump lists them)\n", miss, nk, out);
            if (starts_with(miss, "kernel="))
                suggest_kernels(s, miss + 7);
        }
    } else {
        fprintf(stderr, "; the model failed\n");
        if (err_ev) {
            fprintf(stderr, "  error: %s", first_line(err_ev->u.error.text, 300));
            if (err_ev->u.error.kernel_index >= 0)
                fprintf(stderr, " (kernel %" PRId64 ", %s)", err_ev->u.error.kernel_index,
                        kernel_name_at(s, err_ev->u.error.kernel_index));
            fputc('\n', stderr);
            print_route(err_ev, out);
        }
    }
    if (!run_service_eager_failure(rs))
        code = report_eager(s, out, code);
    if (run_service_options(rs)->memcheck)
        report_memcheck(s, out);
    if (on_disk)
        fprintf(stderr, "  session: %s (end_state: %s, as the file says: the final save failed; the run itself "
                "ended %s)\n", out, on_disk, end);
    else
        fprintf(stderr, "  session: %s (end_state: %s)\n", out, end);
    return code;
}

static void say_run(void *ctx, const char *text)
{
    fprintf(stderr, "aotidbg run: %s\n", text);
}

/* One run: one runner (of rank o->rank of a --ranks run, when o->rank >= 0). */
static int run_one(run_options o)
{
    strbuf err = STRBUF_INIT;

    int code = EXIT_USAGE;
    if (run_expect_open(&o, &err) < 0) {
        fprintf(stderr, "aotidbg run: %s\n", err.buf);
        strbuf_release(&err);
        return EXIT_USAGE;
    }
    strbuf expect = STRBUF_INIT;
    int expect_bad = 0;
    session *s = session_new();
    if (o.rank >= 0) {
        s->rank = o.rank;
        s->world_size = o.ranks;
    }
    run_service *rs = NULL;
    run_say sayer = {say_run, NULL};
    struct sigaction old[NEND], old_pipe;
    parent = getppid();
    interrupted = 0;
    catch_end_signals(old, &old_pipe);   /* from the load on: a signal there still saves the session */
    int opened = run_service_open(&rs, &o, RUN_OPT_RUN, s, &sayer, &err);
    if (opened < 0) {
        fprintf(stderr, "aotidbg run: %s\n", err.buf);
        goto out;
    }
    if (opened == RUN_OPEN_GATED) {
        strbuf again = STRBUF_INIT;   /* the hint's command: the same package, inputs, model, device, host */
        strbuf_add_shell_word(&again, o.package);
        run_options_repeat(&o, RUN_OPT_RUN, RUN_OPT_CHECK, &again);
        fprintf(stderr, "aotidbg run: the checklist fails, so the model was not run:\n%s"
                "(aotidbg check %s shows every row; --force runs anyway)\n", run_service_gate_reason(rs), again.buf);
        strbuf_release(&again);
        strbuf_reset(&err);
        if (run_service_finish(rs, &err) < 0)
            fprintf(stderr, "aotidbg run: cannot record the session: %s\n", err.buf);
        code = run_service_exit_code(rs);   /* 2 when only the inputs or a damaged package failed */
        goto out;
    }

    for (;;) {
        if (!interrupted && getppid() != parent)
            interrupted = PARENT_DIED;
        if (interrupted) {
            fprintf(stderr, "aotidbg run: %s; killing the runner\n",
                    interrupted == PARENT_DIED ? "the parent process died" : "interrupted");
            run_service_interrupt(rs, interrupt_name(interrupted));
            break;
        }
        strbuf_reset(&err);
        int ch = run_service_pump(rs, 100, &err);
        if (ch & RUN_WRITE_ERROR)
            fprintf(stderr, "aotidbg run: %s\n", strstr(err.buf, "writing ") ? strstr(err.buf, "writing ") : err.buf);
        runner_state st = run_service_state(rs);
        if (!interrupted && (st == RUNNER_STOPPED || st == RUNNER_FINISHED || st == RUNNER_DEAD ||
                             !run_service_alive(rs)))
            break;
    }
    int stopped_by = interrupted;   /* later signals only wait for the save */
    if (o.expect.n && !stopped_by)   /* before the final save: the verdicts go into the session's notes */
        expect_bad = run_expect_compare(s, &o, &expect);
    strbuf_reset(&err);
    if (run_service_finish(rs, &err) < 0)
        fprintf(stderr, "aotidbg run: %s\n", err.buf);
    char disk[256];   /* a cut file says why, with its last kernel (session_read.h) */
    const char *on_disk = run_service_write_failed(rs) ? file_end_state(o.record, disk, sizeof disk) : NULL;
    if (stopped_by) {
        fprintf(stderr, "aotidbg run: stopped: %s; session: %s (end_state: %s)\n", interrupt_name(stopped_by),
                o.record, on_disk ? on_disk : s->end_state);
        code = EXIT_FAILED;
    } else {
        int64_t want = run_service_model_inputs(rs);
        if (want >= 0 && (size_t)want != s->ninputs && !o.inputs)
            fprintf(stderr, "aotidbg run: this model takes %" PRId64 " input%s; give --inputs SPEC "
                    "(inputs: [{shape, dtype, device, fill}], see aotidbg run --help)\n", want, want == 1 ? "" : "s");
        code = summarize(s, rs, o.record, on_disk);
        if (o.expect.n) {
            fprintf(stderr, "aotidbg run: --expect:\n");
            for (const char *l = expect.buf; *l;) {
                size_t n = strcspn(l, "\n");
                fprintf(stderr, "  %.*s\n", (int)n, l);
                l += n + (l[n] == '\n');
            }
            if (!expect.len)
                fprintf(stderr, "  not compared: the run ended before its outputs\n");
            if ((expect_bad || !expect.len) && code == EXIT_OK)
                code = EXIT_FAILED;
        }
    }
    report_budget(s, o.values_budget);
    if (run_service_write_failed(rs) && code == EXIT_OK)
        code = EXIT_FAILED;
out:
    strbuf_release(&expect);
    run_service_free(rs);
    release_signals();
    session_free(s);
    strbuf_release(&err);
    return code;
}

int cmd_run(const cli_args *a)
{
    run_options o = a->run;
    o.package = a->pos[0];
    if (!o.record)
        return cli_usage_error(a->cmd, "%s", "--record OUT.yaml is required: it is where the session goes");
    if (o.ranks && o.eager)
        return cli_usage_error(a->cmd, "%s", "--ranks runs without an eager reference: it does not take --eager yet");
    if (!o.ranks && o.remote && strchr(o.remote, ','))
        return cli_usage_error(a->cmd, "--remote %s: several hosts go with --ranks N (rank K on the (K mod "
                               "count)th host)", o.remote);
    if (o.ranks)
        return ranks_run(&o, run_one);
    return run_one(o);
}
