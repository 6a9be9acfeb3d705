#include "model.h"
#include "compat.h"
#include "strbuf.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

session *session_new(void)
{
    session *s = xcalloc(1, sizeof *s);
    s->format_major = SESSION_FORMAT_MAJOR;
    s->format_minor = SESSION_FORMAT_MINOR;
    s->printer_level = -1;
    s->hidden_kernels = -1;
    s->gpu_peak_gbps = -1;
    s->rank = s->world_size = -1;
    s->counts.events = s->counts.kernels = -1;
    return s;
}

void session_free(session *s)
{
    if (!s)
        return;
    free(s->events);
    free(s->kernels);
    free(s->warnings);
    arena_release(&s->arena);
    free(s);
}

/* Grows a malloc'd array of elem-sized items to hold one more. */
static void *grow(void *p, size_t *cap, size_t len, size_t elem)
{
    if (len < *cap)
        return p;
    size_t ncap = *cap ? *cap * 2 : 16;
    void *q = xrealloc(p, ncap * elem);
    *cap = ncap;
    return q;
}

event *session_add_event(session *s, event_kind kind)
{
    event *e = arena_alloc(&s->arena, sizeof *e);
    e->kind = kind;
    e->t_ms = -1;
    e->rank = s->rank;
    if (kind == EV_KERNEL) {
        e->u.kernel.duration_us = -1;
        e->u.kernel.device_us = -1;
        e->u.kernel.index = (int64_t)s->nkernels;
        e->u.kernel.call = -1;
        e->u.kernel.iteration = -1;
        s->kernels = grow(s->kernels, &s->cap_kernels, s->nkernels, sizeof *s->kernels);
        s->kernels[s->nkernels++] = e;
    } else if (kind == EV_ERROR) {
        e->u.error.kernel_index = -1;
    } else if (kind == EV_DIVERGENCE) {
        e->u.divergence.kernel_index = -1;
    } else if (kind == EV_FOLD) {
        e->u.fold.from = e->u.fold.to = e->u.fold.first_kernel = e->u.fold.last_kernel = -1;
        e->u.fold.end_ms = e->u.fold.duration_us = -1;
    } else if (kind == EV_MEMCHECK) {
        e->u.memcheck.kernel_index = e->u.memcheck.size = e->u.memcheck.distance = -1;
    }
    s->events = grow(s->events, &s->cap_events, s->nevents, sizeof *s->events);
    s->events[s->nevents++] = e;
    return e;
}

void session_set_events(session *s, event *const *ev, size_t n)
{
    s->nevents = s->nkernels = 0;
    for (size_t i = 0; i < n; i++) {
        s->events = grow(s->events, &s->cap_events, s->nevents, sizeof *s->events);
        s->events[s->nevents++] = ev[i];
        if (ev[i]->kind == EV_KERNEL) {
            s->kernels = grow(s->kernels, &s->cap_kernels, s->nkernels, sizeof *s->kernels);
            s->kernels[s->nkernels++] = ev[i];
        }
    }
}

void session_add_warning(session *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char buf[512];
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    s->warnings = grow(s->warnings, &s->cap_warnings, s->nwarnings, sizeof *s->warnings);
    s->warnings[s->nwarnings++] = arena_strdup(&s->arena, buf);
}

void session_add_note(session *s, const char *text)
{
    s->notes = arena_grow(&s->arena, s->notes, s->nnotes, &s->cap_notes, sizeof *s->notes, 16);
    s->notes[s->nnotes++] = arena_strdup(&s->arena, text);
}

void session_add_bookmark(session *s, int64_t event_index, const char *note)
{
    s->bookmarks = arena_grow(&s->arena, s->bookmarks, s->nbookmarks, &s->cap_bookmarks, sizeof *s->bookmarks, 16);
    bookmark *b = &s->bookmarks[s->nbookmarks++];
    b->event_index = event_index;
    b->note = arena_strdup(&s->arena, note ? note : "");
}

void session_set_flag(session *s, const char *key, const char *value)
{
    for (size_t i = 0; i < s->nflags; i++)
        if (!strcmp(s->flags[i].key, key)) {
            s->flags[i].value = arena_strdup(&s->arena, value);
            return;
        }
    /* Flags are few and set once: copy into a fresh arena array. */
    kv_pair *n = arena_alloc(&s->arena, (s->nflags + 1) * sizeof *n);
    if (s->nflags)
        memcpy(n, s->flags, s->nflags * sizeof *n);
    n[s->nflags].key = arena_strdup(&s->arena, key);
    n[s->nflags].value = arena_strdup(&s->arena, value);
    s->flags = n;
    s->nflags++;
}

static int name_index(const char *const *names, int n, const char *s)
{
    if (!s)
        return -1;
    for (int i = 0; i < n; i++)
        if (names[i] && !strcmp(names[i], s))
            return i;
    return -1;
}

#define NAMES(fn_name, fn_from, type, ...)                                  \
    static const char *const fn_name##_table[] = {__VA_ARGS__};             \
    enum { fn_name##_n = sizeof fn_name##_table / sizeof *fn_name##_table }; \
    const char *fn_name(type v)                                             \
    {                                                                       \
        return (int)v >= 0 && (int)v < fn_name##_n ? fn_name##_table[v] : "?"; \
    }                                                                       \
    int fn_from(const char *s) { return name_index(fn_name##_table, fn_name##_n, s); }

NAMES(event_kind_name, event_kind_from_name, event_kind, "kernel", "error", "output", "runner-exit", "log",
      "divergence", "nan", "memcheck", "fold")
NAMES(kernel_type_name, kernel_type_from_name, kernel_type, "unknown", "triton", "cpp", "extern")
NAMES(kernel_status_name, kernel_status_from_name, kernel_status, "pending", "ok", "nan", "error")
NAMES(phase_name, phase_from_name, tensor_phase, "before", "after", "output")
NAMES(check_status_name, check_status_from_name, check_status, "PASS", "WARN", "FAIL", "INFO")
NAMES(eager_verdict_name, eager_verdict_from_name, eager_verdict, "close", "differs", "unmatched", "unreadable")
NAMES(fill_kind_name, fill_kind_from_name, fill_kind, "randn", "zeros", "ones", "arange", "full", "file", "randint")

kernel_type kernel_type_guess(const char *name)
{
    if (!name)
        return KTYPE_UNKNOWN;
    if (starts_with(name, "triton_") || starts_with(name, "call_triton_"))
        return KTYPE_TRITON;
    if (starts_with(name, "cpp_"))
        return KTYPE_CPP;
    /* Fallback ATen calls show up as aoti_torch_<dev>_<op> or as C++ names (at::_ops::...::call). */
    if (starts_with(name, "aoti_torch_") || strstr(name, "::"))
        return KTYPE_EXTERN;
    return KTYPE_UNKNOWN;
}

const event *session_kernel_event(const session *s, int64_t i)
{
    if (i < 0)
        return NULL;
    if ((size_t)i < s->nkernels && s->kernels[i]->u.kernel.index == i)
        return s->kernels[i];
    size_t lo = 0, hi = s->nkernels;   /* folded sessions skip indices: the kernels are in index order */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int64_t x = s->kernels[mid]->u.kernel.index;
        if (x == i)
            return s->kernels[mid];
        if (x < i)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t k = 0; k < s->nkernels; k++)
        if (s->kernels[k]->u.kernel.index == i)
            return s->kernels[k];
    return NULL;
}

int64_t session_kernel_count(const session *s) { return (int64_t)s->nkernels; }

uint64_t session_folded_launches(const session *s, uint64_t *iterations)
{
    uint64_t n = 0, it = 0;
    for (size_t i = 0; i < s->nevents; i++)
        if (s->events[i]->kind == EV_FOLD) {
            const fold_event *f = &s->events[i]->u.fold;
            n += f->launches;
            it += f->to >= f->from ? (uint64_t)(f->to - f->from + 1) : 0;
        }
    if (iterations)
        *iterations = it;
    return n;
}

/* How far back session_match_call looks for the last matched launch. */
#define MATCH_LOOKBACK 64

int64_t session_match_call(const session *s, int64_t pos, const char *name)
{
    if (!name || !s->prov.ncalls)
        return -1;
    if (pos > (int64_t)s->nkernels)
        pos = (int64_t)s->nkernels;
    size_t from = 0;
    for (int64_t i = pos - 1; i >= 0 && i >= pos - MATCH_LOOKBACK; i--) {
        int64_t c = s->kernels[i]->u.kernel.call;
        if (c >= 0 && (size_t)c < s->prov.ncalls) {
            from = (size_t)c + 1;
            break;
        }
    }
    for (size_t k = 0; k < s->prov.ncalls; k++) {
        size_t i = (from + k) % s->prov.ncalls;   /* wraps: a second run of the model starts over */
        if (s->prov.calls[i].kernel && !strcmp(s->prov.calls[i].kernel, name))
            return (int64_t)i;
    }
    return -1;
}

const kernel_call *session_kernel_call(const session *s, const kernel_event *k)
{
    if (!k || k->call < 0 || (size_t)k->call >= s->prov.ncalls)
        return NULL;
    return &s->prov.calls[k->call];
}

int64_t session_call_of_node(const session *s, const char *node)
{
    for (size_t i = 0; node && i < s->prov.ncalls; i++)
        for (size_t j = 0; j < s->prov.calls[i].npost; j++)
            if (!strcmp(s->prov.calls[i].post_grad[j], node))
                return (int64_t)i;
    return -1;
}

int tensor_uninitialised(const session *s, const kernel_event *k, const tensor_rec *t)
{
    const kernel_call *c = t->phase == PHASE_BEFORE ? session_kernel_call(s, k) : NULL;
    for (size_t i = 0; c && i < c->nfresh; i++)
        if (!strcmp(c->fresh[i], t->name))
            return 1;
    return 0;
}

int dtype_lanes(const char *dtype)
{
    return dtype && (!strcmp(dtype, "complex64") || !strcmp(dtype, "complex128") || !strcmp(dtype, "complex32")) ? 2 : 1;
}

size_t tensor_values_elems(const tensor_rec *t)
{
    return t->values ? t->nvalues / (size_t)dtype_lanes(t->dtype) : 0;
}

int tensor_unflatten(const tensor_rec *t, int64_t flat, int64_t *idx)
{
    if (flat < 0)
        return -1;
    for (int d = t->ndim - 1; d >= 0; d--) {
        int64_t n = t->shape[d];
        if (n <= 0)
            return -1;
        idx[d] = flat % n;
        flat /= n;
    }
    return flat == 0 ? 0 : -1;
}

const runner_exit_event *session_runner_exit(const session *s)
{
    /* it comes after the last kernel: the scan stops there (the panes ask every frame) */
    for (size_t i = s->nevents; i-- > 0 && s->events[i]->kind != EV_KERNEL;)
        if (s->events[i]->kind == EV_RUNNER_EXIT)
            return &s->events[i]->u.exit;
    return NULL;
}

int64_t session_exit_kernel(const session *s)
{
    if (!session_runner_exit(s) || !s->nkernels)
        return -1;
    const kernel_event *k = &s->kernels[s->nkernels - 1]->u.kernel;
    return k->status == KSTAT_PENDING ? k->index : -1;
}

const char *session_end_state(const session *s, char *buf, size_t n)
{
    const runner_exit_event *x = session_runner_exit(s);
    if (x && (!x->how || strcmp(x->how, "killed")) && (!s->end_state || !strcmp(s->end_state, "complete")))
        return runner_exit_text(x, buf, n);
    return s->end_state ? s->end_state : "complete";
}

const char *signal_name(int sig)
{
    static const struct { int sig; const char *name; } names[] = {
        {1, "SIGHUP"}, {2, "SIGINT"}, {3, "SIGQUIT"}, {4, "SIGILL"}, {5, "SIGTRAP"}, {6, "SIGABRT"},
        {7, "SIGBUS"}, {8, "SIGFPE"}, {9, "SIGKILL"}, {10, "SIGUSR1"}, {11, "SIGSEGV"}, {12, "SIGUSR2"},
        {13, "SIGPIPE"}, {14, "SIGALRM"}, {15, "SIGTERM"}, {24, "SIGXCPU"}, {25, "SIGXFSZ"}, {31, "SIGSYS"},
    };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (names[i].sig == sig)
            return names[i].name;
    return "a signal";
}

const char *runner_exit_text(const runner_exit_event *x, char *buf, size_t n)
{
    const char *how = x->how ? x->how : "lost";
    if (!strcmp(how, "signal"))
        snprintf(buf, n, "signal %d (%s)", x->signal, signal_name(x->signal));
    else if (!strcmp(how, "exited"))
        snprintf(buf, n, "exited %d", x->exit_code);
    else
        snprintf(buf, n, "%s", how);
    return buf;
}

int tensor_inf_is_eagers(const kernel_event *k, const tensor_rec *t)
{
    if (t->phase != PHASE_AFTER || !t->has_stats || t->stats.nan || !(t->stats.posinf || t->stats.neginf))
        return 0;
    for (size_t i = 0; i < k->neager; i++)
        if (k->eager[i].verdict == EAGER_CLOSE && k->eager[i].tensor && !strcmp(k->eager[i].tensor, t->name))
            return 1;
    return 0;
}

int kernel_nonfinite_own(const kernel_event *k, int *eagers)
{
    int held = 0, theirs = 0;
    for (size_t i = 0; i < k->ntensors; i++) {
        const tensor_rec *t = &k->tensors[i];
        if (t->phase != PHASE_AFTER || !t->has_stats)
            continue;
        int f = (t->stats.nan ? NONFIN_NAN : 0) | (t->stats.posinf ? NONFIN_POSINF : 0) |
                (t->stats.neginf ? NONFIN_NEGINF : 0);
        if (f && tensor_inf_is_eagers(k, t))
            theirs |= f;
        else
            held |= f;
    }
    if (eagers)
        *eagers = theirs;
    return held;
}

int session_mark_collective(session *s, kernel_event *k, const char *group)
{
    const char *op = k->name ? strstr(k->name, "_c10d_functional_") : NULL;
    if (!op || s->world_size < 1)
        return 0;
    op += strlen("_c10d_functional_");
    size_t n = strlen(op);
    while (n && op[n - 1] == '_')   /* the in-place form: all_reduce_ */
        n--;
    k->collective = arena_printf(&s->arena, "%.*s", (int)n, op);
    k->group = arena_strdup(&s->arena, group);
    strbuf p = STRBUF_INIT;
    for (int r = 0; r < s->world_size; r++)
        strbuf_addf(&p, "%s%d", r ? "," : "", r);
    k->participants = arena_strdup(&s->arena, p.buf);
    strbuf_release(&p);
    return 1;
}
