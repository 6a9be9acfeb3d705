/* runner_client.c — spawns aotidbg-runner and turns its protocol messages,
 * stdout and stderr into session events (see runner_client.h).
 *
 * The child gets the socketpair's other end as fd 3 and pipes for stdout and
 * stderr; the parent keeps every fd non-blocking and only reads what poll()
 * says is there, so a hung or dead runner never hangs the front end. Whatever
 * the runner does (garbage bytes, a crash mid-frame, silence), the session
 * ends with a runner-exit event saying how, plus the stderr tail.
 *
 * Conversation (protocol.h): HELLO arrives; we send LOAD; on LOADED we check
 * the input count against the spec (a wrong count is reported here, never
 * sent to the model, which would abort), then send the INPUTs, CONTROL, RUN.
 * Errors: 0 / -1 + err. The client borrows the session; it owns the child
 * process, its fds and the folder holding materialised input files. */
#define _GNU_SOURCE   /* pipe2 */
#include "runner_client.h"
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "inputs.h"
#include "paths.h"
#include "protocol.h"
#if defined(__has_include) && __has_include("router.h")
#include "router.h"
#include "triton_trace.h"
#define HAVE_ROUTER 1
#endif


#define LOG_LINE_MAX     4096          /* longer lines are split */
#define LOG_MAX_EVENTS   20000         /* then one "dropped" note */
#define STDERR_TAIL_MAX  4096
#define READ_CHUNK       65536
#define WRITE_TIMEOUT_MS 10000

struct runner_client {
    runner_options o;          /* strings below are malloc'd copies */
    session *s;
    pid_t pid;
    int sock, out_fd, err_fd;
    runner_state state;
    int64_t cur_kernel;
    int stop_reason, done_status;
    int64_t model_inputs;
    int got_hello, got_loaded, exited;
    strbuf rbuf;               /* socket bytes not yet decoded */
    strbuf line[2];            /* partial stdout / stderr line */
    strbuf tail;               /* last STDERR_TAIL_MAX bytes of stderr */
    size_t nlogs, dropped_logs;
    double t_start, t_last;    /* monotonic seconds: spawn (then RUN), last message */
    event *output_ev;          /* the EV_OUTPUT being filled */
    char *tmpdir;              /* materialised FILL_FILE inputs; NULL if none */
    char **raw_paths;          /* per input; NULL entries for non-file fills */
    char **input_names;        /* from LOADED ("arg0_1", ...); n_input_names entries */
    size_t n_input_names;
    values_budget_state vb;    /* values kept so far this run (reset on restart) */
#ifdef HAVE_ROUTER
    router_rules *rules;       /* loaded on the first error; NULL if unavailable */
    int rules_tried;
#endif
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static char *xstrdup(const char *s)
{
    if (!s)
        return NULL;
    char *r = strdup(s);
    if (!r)
        abort();
    return r;
}

static void set_nonblock(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static double ev_time(const runner_client *rc) { return (now_s() - rc->t_start) * 1000.0; }

/* ---- sending ------------------------------------------------------------ */

static int send_msg(runner_client *rc, const proto_msg *m)
{
    if (rc->sock < 0)
        return -1;
    strbuf out = STRBUF_INIT, err = STRBUF_INIT;
    if (proto_encode(&out, m, &err) < 0) {
        event *e = session_add_event(rc->s, EV_ERROR);
        e->t_ms = ev_time(rc);
        e->u.error.text = arena_printf(&rc->s->arena, "aotidbg: cannot encode %s: %s",
                                       proto_type_name(m->type), err.buf);
        strbuf_release(&out);
        strbuf_release(&err);
        return -1;
    }
    strbuf_release(&err);
    size_t off = 0;
    double deadline = now_s() + WRITE_TIMEOUT_MS / 1000.0;
    int rcode = 0;
    while (off < out.len) {
        ssize_t n = send(rc->sock, out.buf + off, out.len - off, MSG_NOSIGNAL);
        if (n > 0) {
            off += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && now_s() < deadline) {
            struct pollfd p = {rc->sock, POLLOUT, 0};
            poll(&p, 1, 100);
            continue;
        }
        rcode = -1;    /* the runner is gone or stuck: the pump records how */
        break;
    }
    strbuf_release(&out);
    return rcode;
}

static int send_control(runner_client *rc, proto_cmd cmd, int64_t arg, const char *name)
{
    proto_msg m = {.type = PROTO_CONTROL};
    m.u.control.cmd = (uint8_t)cmd;
    m.u.control.arg = arg;
    m.u.control.name = name ? name : "";
    m.u.control.break_flags = (uint32_t)rc->o.break_flags;
    return send_msg(rc, &m);
}

/* The first CONTROL: where the options say to stop first. */
static int send_first_control(runner_client *rc)
{
    if (rc->o.break_flags & BREAK_EACH_KERNEL)
        return send_control(rc, PROTO_CMD_STEP, 0, NULL);
    if (rc->o.break_index >= 0)
        return send_control(rc, PROTO_CMD_RUN_TO_INDEX, rc->o.break_index, NULL);
    if (rc->o.break_kernel && rc->o.break_kernel[0])
        return send_control(rc, PROTO_CMD_RUN_TO_NAME, 0, rc->o.break_kernel);
    return send_control(rc, PROTO_CMD_CONTINUE, 0, NULL);
}

static int send_inputs_and_run(runner_client *rc)
{
    session *s = rc->s;
    for (size_t i = 0; i < s->ninputs; i++) {
        proto_msg m = {.type = PROTO_INPUT};
        m.u.input.index = (uint32_t)i;
        m.u.input.spec = s->inputs[i];
        m.u.input.raw_path = rc->raw_paths && rc->raw_paths[i] ? rc->raw_paths[i] : "";
        if (send_msg(rc, &m) < 0)
            return -1;
    }
    if (send_first_control(rc) < 0)
        return -1;
    proto_msg run = {.type = PROTO_RUN};
    if (send_msg(rc, &run) < 0)
        return -1;
    rc->state = RUNNER_RUNNING;
    rc->t_last = rc->t_start = now_s();   /* event times count from RUN, as the runner's do */
    return 0;
}

/* ---- events --------------------------------------------------------------- */

static void free_input_names(runner_client *rc)
{
    for (size_t i = 0; i < rc->n_input_names; i++)
        free(rc->input_names[i]);
    free(rc->input_names);
    rc->input_names = NULL;
    rc->n_input_names = 0;
}

#define ROUTE_LOG_LINES 5000   /* runner output lines routed with an error (the last ones) */

/* A runner error that only points at stderr ("model run failed; see stderr")
 * takes the model's own last `Error: ...` line, when stderr has one. */
static void take_stderr_error_text(runner_client *rc, event *e)
{
    const char *t = e->u.error.text;
    if (!t || (!strstr(t, "see stderr") && !strstr(t, "see the runner's stderr")) || strlen(t) > 200)
        return;
    session *s = rc->s;
    for (size_t i = s->nevents; i-- > 0;) {
        const event *l = s->events[i];
        if (l->kind == EV_LOG && !strcmp(l->u.log.stream, "stderr") && !strncmp(l->u.log.text, "Error: ", 7) &&
            l->u.log.text[7]) {
            e->u.error.text = arena_strdup(&s->arena, l->u.log.text + 7);
            return;
        }
    }
}

#ifdef HAVE_ROUTER
/* What the session fed the input an error names (input_index): its shape,
 * and the runtime size of the dimension behind it (dim), e.g. the size
 * behind a traced ksM bound. */
static void add_runtime_size(const runner_client *rc, route_result *r, const session *s)
{
    const char *ii = route_result_field(r, "input_index"), *dd = route_result_field(r, "dim");
    if (!ii)
        return;
    char *end;
    long i = strtol(ii, &end, 10);
    if (*end || end == ii || i < 0)
        return;
    if ((size_t)i < rc->n_input_names && rc->input_names[i][0] && !route_result_field(r, "input"))
        route_result_set_field(r, "input", rc->input_names[i]);
    if ((size_t)i >= s->ninputs)
        return;
    const input_spec *in = &s->inputs[i];
    strbuf shape = STRBUF_INIT;
    strbuf_addch(&shape, '[');
    for (int k = 0; k < in->ndim; k++)
        strbuf_addf(&shape, "%s%" PRId64, k ? ", " : "", in->shape[k]);
    strbuf_addch(&shape, ']');
    route_result_set_field(r, "input_shape", shape.buf);
    strbuf_release(&shape);
    if (!dd)
        return;
    long d = strtol(dd, &end, 10);
    if (*end || end == dd || d < 0 || d >= in->ndim)
        return;
    char buf[32];
    snprintf(buf, sizeof buf, "%" PRId64, in->shape[d]);
    route_result_set_field(r, "dim_value", buf);
}
#endif

/* Names the error's route (router.h) from its text together with the last
 * ROUTE_LOG_LINES lines of runner output (the router collapses repeats and
 * picks the root cause: a device assert line on stderr beats the generic
 * "device-side assert triggered" of the ERROR frame), resolves an index
 * assert through the package's code (trace_source) and adds the runtime size
 * of the input dimension behind it. Replaces route and fields; without
 * routes.yaml the route stays NULL and the error is still recorded. */
static void route_error(runner_client *rc, event *e)
{
    take_stderr_error_text(rc, e);
#ifndef HAVE_ROUTER
    (void)rc;
    (void)e;
#else
    if (!rc->rules_tried) {
        rc->rules_tried = 1;
        strbuf err = STRBUF_INIT;
        if (router_rules_load_default(&rc->rules, &err) < 0)
            rc->rules = NULL;
        strbuf_release(&err);
    }
    if (!rc->rules)
        return;
    session *s = rc->s;
    size_t first = 0, nlog = 0;
    for (size_t i = s->nevents; i-- > 0;)
        if (s->events[i]->kind == EV_LOG && ++nlog >= ROUTE_LOG_LINES) {
            first = i;
            break;
        }
    router_stream *st = router_stream_new(rc->rules);
    for (size_t i = first; i < s->nevents; i++) {
        const event *l = s->events[i];
        if (l->kind == EV_LOG && l->u.log.text[0]) {
            router_stream_feed(st, l->u.log.text, strlen(l->u.log.text));
            router_stream_feed(st, "\n", 1);
        }
    }
    const char *text = e->u.error.text;
    router_stream_feed(st, text, strlen(text));
    router_stream_feed(st, "\n", 1);
    route_result r;
    memset(&r, 0, sizeof r);
    router_stream_finish(st, &r);
    if (rc->o.trace_source && r.route && !strcmp(r.route, "triton-index-oob")) {
        strbuf err = STRBUF_INIT;
        if (triton_trace_apply_package(&r, rc->o.trace_source, &err) < 0)
            route_result_set_field(&r, "trace_error", err.buf);
        strbuf_release(&err);
    }
    add_runtime_size(rc, &r, s);
    e->u.error.route = arena_strdup(&s->arena, r.route ? r.route : "unknown");
    e->u.error.fields = NULL;
    e->u.error.nfields = 0;
    if (r.nfields) {
        kv_pair *f = arena_alloc(&s->arena, r.nfields * sizeof *f);
        for (size_t i = 0; i < r.nfields; i++) {
            f[i].key = arena_strdup(&s->arena, r.fields[i].key);
            f[i].value = arena_strdup(&s->arena, r.fields[i].value ? r.fields[i].value : "");
        }
        e->u.error.fields = f;
        e->u.error.nfields = r.nfields;
    }
    route_result_release(&r);
#endif
}

/* When the runner is done (DONE, or it ended): route this run's errors again
 * with all of its output, which may have arrived after the ERROR frame. */
static void reroute_errors(runner_client *rc)
{
    session *s = rc->s;
    for (size_t i = 0; i < s->nevents; i++)
        if (s->events[i]->kind == EV_ERROR)
            route_error(rc, s->events[i]);
}

static event *add_error(runner_client *rc, int64_t kernel_index, const char *text)
{
    session *s = rc->s;
    event *e = session_add_event(s, EV_ERROR);
    e->t_ms = ev_time(rc);
    e->u.error.text = arena_strdup(&s->arena, text);
    e->u.error.kernel_index = kernel_index;
    route_error(rc, e);
    return e;
}

static kernel_event *kernel_by_index(runner_client *rc, int64_t idx)
{
    /* Kernels arrive in order, so the last one is nearly always it. */
    session *s = rc->s;
    for (size_t i = s->nkernels; i-- > 0;) {
        if (s->kernels[i]->u.kernel.index == idx)
            return &s->kernels[i]->u.kernel;
        if (s->nkernels - i > 64)
            break;
    }
    for (size_t i = 0; i < s->nkernels; i++)
        if (s->kernels[i]->u.kernel.index == idx)
            return &s->kernels[i]->u.kernel;
    return NULL;
}

size_t values_budget_keep(values_budget_state *b, size_t n)
{
    if (!b->budget || !n)
        return n;
    uint64_t bytes = (uint64_t)n * sizeof(double);
    if (b->used <= b->budget && bytes <= b->budget - b->used) {
        b->used += bytes;
        return n;
    }
    size_t k = n < VALUES_BUDGET_SAMPLE ? n : VALUES_BUDGET_SAMPLE;
    uint64_t kb = (uint64_t)k * sizeof(double), reserve = b->budget / 16;
    if (b->reserve_used <= reserve && kb <= reserve - b->reserve_used) {
        b->reserve_used += kb;
        return k;
    }
    return 0;
}

/* Copies a tensor decoded into scratch memory into the session arena,
 * keeping the values the budget allows (a prefix; statistics untouched). */
static tensor_rec keep_tensor(runner_client *rc, const tensor_rec *src)
{
    arena *a = &rc->s->arena;
    tensor_rec t = *src;
    t.name = arena_strdup(a, src->name);
    t.dtype = arena_strdup(a, src->dtype);
    t.device = arena_strdup(a, src->device);
    int nd = src->ndim > 0 && src->ndim <= TENSOR_MAX_DIMS ? src->ndim : 0;
    t.shape = nd && src->shape ? arena_memdup(a, src->shape, (size_t)nd * sizeof *t.shape) : NULL;
    t.strides = nd && src->strides ? arena_memdup(a, src->strides, (size_t)nd * sizeof *t.strides) : NULL;
    size_t n = src->values ? src->nvalues : 0;
    size_t k = values_budget_keep(&rc->vb, n);
    if (k < n) {
        t.values_budget_cut = 1;
        t.values_complete = 0;
    }
    t.nvalues = k;
    t.values = k ? arena_memdup(a, src->values, k * sizeof *t.values) : NULL;
    return t;
}

/* Appends t to an arena-backed array whose capacity is implied by its length
 * (4, 8, 16, ...), so no capacity field is needed in model.h. */
static void push_tensor(arena *a, size_t *n, tensor_rec **arr, const tensor_rec *t)
{
    size_t len = *n;
    if (len == 0 || (len >= 4 && (len & (len - 1)) == 0)) {
        size_t cap = len ? len * 2 : 4;
        tensor_rec *na = arena_alloc(a, cap * sizeof *na);
        if (len)
            memcpy(na, *arr, len * sizeof *na);
        *arr = na;
    }
    (*arr)[len] = *t;
    *n = len + 1;
}

static void add_log(runner_client *rc, int stream, const char *text, size_t len)
{
    if (rc->nlogs >= LOG_MAX_EVENTS) {
        rc->dropped_logs++;
        return;
    }
    session *s = rc->s;
    event *e = session_add_event(s, EV_LOG);
    e->t_ms = ev_time(rc);
    e->u.log.stream = stream ? "stderr" : "stdout";
    e->u.log.text = arena_strndup(&s->arena, text, len);
    rc->nlogs++;
}

static void flush_dropped(runner_client *rc)
{
    if (!rc->dropped_logs)
        return;
    event *e = session_add_event(rc->s, EV_LOG);
    e->t_ms = ev_time(rc);
    e->u.log.stream = "stderr";
    e->u.log.text = arena_printf(&rc->s->arena, "aotidbg: %zu more runner output lines were not recorded "
                                 "(cap %d)", rc->dropped_logs, LOG_MAX_EVENTS);
    rc->dropped_logs = 0;
}

/* Splits captured bytes into lines; `final` flushes a partial last line. */
static int take_output(runner_client *rc, int stream, const char *buf, size_t n, int final)
{
    strbuf *lb = &rc->line[stream];
    int added = 0;
    if (stream == 1 && n) {
        strbuf_add(&rc->tail, buf, n);
        if (rc->tail.len > STDERR_TAIL_MAX) {
            size_t cut = rc->tail.len - STDERR_TAIL_MAX;
            memmove(rc->tail.buf, rc->tail.buf + cut, STDERR_TAIL_MAX);
            strbuf_setlen(&rc->tail, STDERR_TAIL_MAX);
        }
    }
    for (size_t i = 0; i < n; i++) {
        char c = buf[i];
        if (c == '\n' || lb->len >= LOG_LINE_MAX) {
            size_t l = lb->len;
            if (l && lb->buf[l - 1] == '\r')
                l--;
            add_log(rc, stream, lb->buf, l);
            added++;
            strbuf_reset(lb);
            if (c == '\n')
                continue;
        }
        strbuf_addch(lb, c ? c : '?');
    }
    if (final && lb->len) {
        add_log(rc, stream, lb->buf, lb->len);
        added++;
        strbuf_reset(lb);
    }
    return added;
}

/* Applies one decoded message. Returns events added, -1 on a protocol error. */
static int apply(runner_client *rc, proto_msg *m, strbuf *err)
{
    session *s = rc->s;
    switch (m->type) {
    case PROTO_HELLO:
        rc->got_hello = 1;
        if (m->u.hello.version != PROTO_VERSION) {
            strbuf_addf(err, "runner speaks protocol %u, this aotidbg speaks %d: rebuild both from the same tree",
                        m->u.hello.version, PROTO_VERSION);
            return -1;
        }
        if (m->u.hello.torch_version[0])
            s->torch_version = arena_strdup(&s->arena, m->u.hello.torch_version);
        if (m->u.hello.gpu_name[0])
            s->gpu = m->u.hello.gpu_cc[0] ? arena_printf(&s->arena, "%s (sm_%s)", m->u.hello.gpu_name,
                                                         m->u.hello.gpu_cc)
                                          : arena_strdup(&s->arena, m->u.hello.gpu_name);
        return 0;
    case PROTO_LOADED: {
        rc->got_loaded = 1;
        rc->model_inputs = m->u.loaded.n_inputs;
        free_input_names(rc);
        if (m->u.loaded.n_names) {
            rc->input_names = calloc(m->u.loaded.n_names, sizeof *rc->input_names);
            if (!rc->input_names)
                abort();
            for (uint32_t i = 0; i < m->u.loaded.n_names; i++)
                rc->input_names[i] = xstrdup(m->u.loaded.input_names[i] ? m->u.loaded.input_names[i] : "");
            rc->n_input_names = m->u.loaded.n_names;
        }
        if (m->u.loaded.n_inputs != s->ninputs) {
            strbuf names = STRBUF_INIT;
            for (uint32_t i = 0; i < m->u.loaded.n_names && names.len < 400; i++)
                strbuf_addf(&names, "%s%s", i ? ", " : "", m->u.loaded.input_names[i]);
            add_error(rc, -1, arena_printf(&s->arena, "input count: the inputs spec gives %zu input%s, the model "
                                           "takes %u%s%s%s; give one spec item per model input, in order",
                                           s->ninputs, s->ninputs == 1 ? "" : "s", m->u.loaded.n_inputs,
                                           names.len ? " (" : "", names.buf, names.len ? ")" : ""));
            strbuf_release(&names);
            proto_msg q = {.type = PROTO_QUIT};
            send_msg(rc, &q);
            rc->done_status = 1;
            rc->state = RUNNER_FINISHED;
            return 1;
        }
        send_inputs_and_run(rc);
        return 0;
    }
    case PROTO_KERNEL: {
        if (m->u.kernel.phase == 0) {
            event *e = session_add_event(s, EV_KERNEL);
            e->t_ms = m->u.kernel.t_us >= 0 ? m->u.kernel.t_us / 1000.0 : ev_time(rc);
            kernel_event *k = &e->u.kernel;
            k->index = m->u.kernel.index;
            k->name = arena_strdup(&s->arena, m->u.kernel.name);
            k->type = kernel_type_guess(k->name);
            k->status = KSTAT_PENDING;
            k->source = *m->u.kernel.source ? arena_strdup(&s->arena, m->u.kernel.source)
                                            : s->mode ? s->mode : "printer";
            /* a rebuilt copy's hooks are the printer's own calls, inserted by us */
            if (s->mode && !strcmp(s->mode, "reinstrument") && !strcmp(k->source, "printer"))
                k->source = "reinstrument";
            rc->cur_kernel = k->index;
            return 1;
        }
        kernel_event *k = kernel_by_index(rc, m->u.kernel.index);
        if (!k) {
            strbuf_addf(err, "runner sent 'after' for kernel %" PRId64 " (%s) with no 'before'",
                        m->u.kernel.index, m->u.kernel.name);
            return -1;
        }
        k->status = (kernel_status)m->u.kernel.status;
        k->duration_us = m->u.kernel.duration_us;
        return 0;
    }
    case PROTO_TENSOR: {
        int64_t ki = m->u.tensor.kernel_index;
        if (ki < 0) {
            int added = 0;
            if (!rc->output_ev) {
                rc->output_ev = session_add_event(s, EV_OUTPUT);
                rc->output_ev->t_ms = ev_time(rc);
                added = 1;
            }
            m->u.tensor.t.phase = PHASE_OUTPUT;
            output_event *o = &rc->output_ev->u.output;
            tensor_rec t = keep_tensor(rc, &m->u.tensor.t);
            push_tensor(&s->arena, &o->ntensors, &o->tensors, &t);
            return added;
        }
        kernel_event *k = kernel_by_index(rc, ki);
        if (!k) {
            strbuf_addf(err, "runner sent a tensor for kernel %" PRId64 ", which it never announced", ki);
            return -1;
        }
        tensor_rec t = keep_tensor(rc, &m->u.tensor.t);
        push_tensor(&s->arena, &k->ntensors, &k->tensors, &t);
        return 0;
    }
    case PROTO_STOPPED:
        rc->state = RUNNER_STOPPED;
        rc->cur_kernel = m->u.stopped.kernel_index;
        rc->stop_reason = m->u.stopped.reason;
        return 0;
    case PROTO_ERROR: {
        int64_t ki = m->u.error.kernel_index;
        add_error(rc, ki, m->u.error.text);
        kernel_event *k = ki >= 0 ? kernel_by_index(rc, ki) : NULL;
        if (k && k->status == KSTAT_PENDING)
            k->status = KSTAT_ERROR;
        return 1;
    }
    case PROTO_DONE:
        rc->done_status = (int)m->u.done.status;
        if (rc->done_status != 0)
            reroute_errors(rc);
        rc->state = RUNNER_FINISHED;
        return 0;
    default:
        strbuf_addf(err, "runner sent a %s message, which only the front end sends", proto_type_name(m->type));
        return -1;
    }
}

/* ---- the child ------------------------------------------------------------ */

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

static const char *const det_vars[] = {"CUDA_LAUNCH_BLOCKING", "PYTORCH_NO_CUDA_MEMORY_CACHING",
                                       "AOTI_RUNTIME_CHECK_INPUTS"};

static int spawn(runner_client *rc, strbuf *err)
{
    const char *path = rc->o.runner_path ? rc->o.runner_path : aotidbg_runner_path();
    if (strchr(path, '/') && access(path, X_OK) != 0) {
        strbuf_addf(err, "cannot run the runner %s: %s; build it (cmake --build) or set AOTIDBG_RUNNER",
                    path, strerror(errno));
        return -1;
    }
    int sv[2], po[2], pe[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
        strbuf_addf(err, "socketpair: %s", strerror(errno));
        return -1;
    }
    if (pipe2(po, O_CLOEXEC) < 0 || pipe2(pe, O_CLOEXEC) < 0) {
        strbuf_addf(err, "pipe: %s", strerror(errno));
        close(sv[0]);
        close(sv[1]);
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        strbuf_addf(err, "fork: %s", strerror(errno));
        close(sv[0]); close(sv[1]); close(po[0]); close(po[1]); close(pe[0]); close(pe[1]);
        return -1;
    }
    if (pid == 0) {
        /* Child: only async-signal-safe-ish work before exec. fd 3 must not be
         * one of the pipe ends we still need, so move those above 3 first. */
        int s3 = sv[1], o1 = po[1], e2 = pe[1];
        if (o1 <= 3) o1 = fcntl(o1, F_DUPFD_CLOEXEC, 10);
        if (e2 <= 3) e2 = fcntl(e2, F_DUPFD_CLOEXEC, 10);
        if (s3 != PROTO_FD) {
            if (dup2(s3, PROTO_FD) < 0)
                _exit(127);
        } else {
            fcntl(PROTO_FD, F_SETFD, 0);
        }
        if (dup2(o1, 1) < 0 || dup2(e2, 2) < 0)
            _exit(127);
        int nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (nul >= 0)
            dup2(nul, 0);
        signal(SIGPIPE, SIG_DFL);
        /* The terminal's ^C reaches the whole process group: the front end
         * says what it means (live: pause via SIGUSR1; run: end the runner). */
        signal(SIGINT, SIG_IGN);
        if (rc->o.deterministic)
            for (size_t i = 0; i < sizeof det_vars / sizeof *det_vars; i++)
                setenv(det_vars[i], "1", 1);
        execl(path, "aotidbg-runner", (char *)NULL);
        dprintf(2, "aotidbg: cannot run %s: %s\n", path, strerror(errno));
        _exit(127);
    }
    close(sv[1]);
    close(po[1]);
    close(pe[1]);
    rc->pid = pid;
    rc->sock = sv[0];
    rc->out_fd = po[0];
    rc->err_fd = pe[0];
    set_nonblock(rc->sock);
    set_nonblock(rc->out_fd);
    set_nonblock(rc->err_fd);
    rc->state = RUNNER_STARTING;
    rc->cur_kernel = -1;
    rc->stop_reason = -1;
    rc->done_status = -1;
    rc->model_inputs = -1;
    rc->got_hello = rc->got_loaded = rc->exited = 0;
    rc->output_ev = NULL;
    rc->nlogs = rc->dropped_logs = 0;
    strbuf_reset(&rc->rbuf);
    strbuf_reset(&rc->line[0]);
    strbuf_reset(&rc->line[1]);
    strbuf_reset(&rc->tail);
    rc->t_start = rc->t_last = now_s();

    proto_msg m = {.type = PROTO_LOAD};
    m.u.load.so_path = rc->o.so_path;
    m.u.load.cubin_dir = rc->o.cubin_dir ? rc->o.cubin_dir : "";
    m.u.load.device = rc->o.device ? rc->o.device : "cpu";
    m.u.load.flags = rc->o.blocking ? PROTO_LOAD_BLOCKING : 0;
    m.u.load.max_values = rc->o.max_values;
    send_msg(rc, &m);   /* a runner that died at once is reported by the pump */
    return 0;
}

/* Drains whatever the pipes still hold (the last words before a crash). */
static int drain_pipes(runner_client *rc)
{
    int added = 0;
    char buf[READ_CHUNK];
    for (int st = 0; st < 2; st++) {
        int *fd = st ? &rc->err_fd : &rc->out_fd;
        while (*fd >= 0) {
            ssize_t n = read(*fd, buf, sizeof buf);
            if (n > 0) {
                added += take_output(rc, st, buf, (size_t)n, 0);
                continue;
            }
            if (n < 0 && errno == EINTR)
                continue;
            if (n == 0)
                close_fd(fd);
            break;
        }
        added += take_output(rc, st, "", 0, 1);
    }
    return added;
}

/* Records how the child ended; `how_override` ("timeout", "killed") wins over
 * the wait status. Always leaves the client with no child and no fds. */
static int record_exit(runner_client *rc, int status, const char *how_override)
{
    int added = drain_pipes(rc);
    flush_dropped(rc);
    reroute_errors(rc);
    close_fd(&rc->sock);
    close_fd(&rc->out_fd);
    close_fd(&rc->err_fd);
    rc->pid = -1;
    rc->exited = 1;
    /* After DONE the runner exits on its own (1 when the model failed): that
     * is the orderly end and needs no event. */
    int clean = !how_override && WIFEXITED(status) && rc->state == RUNNER_FINISHED;
    if (clean)
        return added;
    session *s = rc->s;
    event *e = session_add_event(s, EV_RUNNER_EXIT);
    e->t_ms = ev_time(rc);
    runner_exit_event *x = &e->u.exit;
    if (how_override) {
        x->how = how_override;
    } else if (WIFSIGNALED(status)) {
        x->how = "signal";
        x->signal = WTERMSIG(status);
    } else if (WIFEXITED(status)) {
        x->how = "exited";
        x->exit_code = WEXITSTATUS(status);
    } else {
        x->how = "lost";
    }
    x->stderr_tail = rc->tail.len ? arena_strndup(&s->arena, rc->tail.buf, rc->tail.len) : NULL;
    if (rc->state != RUNNER_FINISHED)
        rc->state = RUNNER_DEAD;
    return added + 1;
}

/* Kills and reaps the child (if any) and records `how` unless it already ended. */
static int kill_child(runner_client *rc, const char *how)
{
    if (rc->pid <= 0)
        return 0;
    kill(rc->pid, SIGKILL);
    int status = 0;
    while (waitpid(rc->pid, &status, 0) < 0 && errno == EINTR)
        ;
    return record_exit(rc, status, how);
}

/* After EOF on the socket: give the child a moment to exit, then reap it. */
static int reap(runner_client *rc)
{
    int status = 0;
    for (int i = 0; i < 300; i++) {    /* up to 3 s */
        pid_t r = waitpid(rc->pid, &status, WNOHANG);
        if (r == rc->pid)
            return record_exit(rc, status, NULL);
        if (r < 0 && errno != EINTR)
            return record_exit(rc, 0, "lost");
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    /* It closed the socket but will not leave: it is stuck. */
    return kill_child(rc, rc->state == RUNNER_FINISHED ? "killed" : "lost");
}

/* ---- public API ------------------------------------------------------------ */

static void free_inputs(runner_client *rc)
{
    if (rc->raw_paths) {
        for (size_t i = 0; i < rc->s->ninputs; i++) {
            if (rc->raw_paths[i])
                unlink(rc->raw_paths[i]);
            free(rc->raw_paths[i]);
        }
        free(rc->raw_paths);
        rc->raw_paths = NULL;
    }
    if (rc->tmpdir) {
        rmdir(rc->tmpdir);
        free(rc->tmpdir);
        rc->tmpdir = NULL;
    }
}

static int materialize_inputs(runner_client *rc, strbuf *err)
{
    session *s = rc->s;
    int need = 0;
    for (size_t i = 0; i < s->ninputs; i++)
        need |= s->inputs[i].fill == FILL_FILE;
    if (!need)
        return 0;
    const char *td = getenv("TMPDIR");
    char *tmpl = path_join(td && *td ? td : "/tmp", "aotidbg-inputs-XXXXXX");
    if (!mkdtemp(tmpl)) {
        strbuf_addf(err, "cannot make a folder for input files (%s): %s", tmpl, strerror(errno));
        free(tmpl);
        return -1;
    }
    rc->tmpdir = tmpl;
    rc->raw_paths = calloc(s->ninputs, sizeof *rc->raw_paths);
    if (!rc->raw_paths)
        abort();
    for (size_t i = 0; i < s->ninputs; i++)
        if (s->inputs[i].fill == FILL_FILE &&
            inputs_materialize_file(&s->inputs[i], (int)i, rc->tmpdir, &rc->raw_paths[i], err) < 0)
            return -1;
    return 0;
}

int runner_client_start(runner_client **out, const runner_options *o, session *s, strbuf *err)
{
    *out = NULL;
    if (!o->so_path || !o->so_path[0]) {
        strbuf_addstr(err, "no model .so to run");
        return -1;
    }
    /* A runner dying under us must not kill the front end with SIGPIPE. */
    signal(SIGPIPE, SIG_IGN);
    runner_client *rc = calloc(1, sizeof *rc);
    if (!rc)
        abort();
    rc->o = *o;
    rc->vb.budget = o->values_budget;
    rc->o.so_path = xstrdup(o->so_path);
    rc->o.cubin_dir = xstrdup(o->cubin_dir);
    rc->o.device = xstrdup(o->device ? o->device : "cpu");
    rc->o.runner_path = xstrdup(o->runner_path);
    rc->o.break_kernel = xstrdup(o->break_kernel);
    rc->o.trace_source = xstrdup(o->trace_source);
    rc->s = s;
    rc->pid = -1;
    rc->sock = rc->out_fd = rc->err_fd = -1;
    strbuf_init(&rc->rbuf, 0);
    strbuf_init(&rc->line[0], 0);
    strbuf_init(&rc->line[1], 0);
    strbuf_init(&rc->tail, 0);
    for (size_t i = 0; i < sizeof det_vars / sizeof *det_vars; i++) {
        const char *v = getenv(det_vars[i]);
        session_set_flag(s, det_vars[i], o->deterministic ? "1" : v && *v ? v : "0");
    }
    session_set_flag(s, "blocking", o->blocking ? "1" : "0");
    if (!s->device)
        s->device = arena_strdup(&s->arena, rc->o.device);
    if (!s->mode)
        s->mode = "printer";
    if (materialize_inputs(rc, err) < 0 || spawn(rc, err) < 0) {
        runner_client_free(rc);
        return -1;
    }
    *out = rc;
    return 0;
}

int runner_client_fd(const runner_client *rc) { return rc && rc->pid > 0 ? rc->sock : -1; }
runner_state runner_client_state(const runner_client *rc) { return rc->state; }
int64_t runner_client_current_kernel(const runner_client *rc) { return rc->cur_kernel; }
int runner_client_stop_reason(const runner_client *rc) { return rc->stop_reason; }
int runner_client_done_status(const runner_client *rc) { return rc->done_status; }
int64_t runner_client_model_inputs(const runner_client *rc) { return rc->model_inputs; }
int runner_client_pid(const runner_client *rc) { return rc->pid > 0 ? (int)rc->pid : -1; }

/* Decodes every whole frame in rbuf. */
static int decode_frames(runner_client *rc, strbuf *err)
{
    int added = 0;
    size_t off = 0;
    arena scratch = ARENA_INIT;
    while (off < rc->rbuf.len) {
        const unsigned char *p = (const unsigned char *)rc->rbuf.buf + off;
        size_t avail = rc->rbuf.len - off;
        /* Every frame decodes into scratch memory, released after it is
         * applied: a tensor is copied into the session arena with only the
         * values the budget allows, so a run's memory stays bounded. */
        proto_msg m;
        strbuf derr = STRBUF_INIT;
        long used = proto_decode(p, avail, &m, &scratch, &derr);
        if (used < 0) {
            strbuf_addf(err, "runner protocol error: %s", derr.buf);
            strbuf_release(&derr);
            added = -1;
            break;
        }
        strbuf_release(&derr);
        if (used == 0)
            break;
        off += (size_t)used;
        rc->t_last = now_s();
        int r = apply(rc, &m, err);
        arena_release(&scratch);
        if (r < 0) {
            added = -1;
            break;
        }
        added += r;
    }
    arena_release(&scratch);
    if (added < 0)
        return -1;
    if (off) {
        memmove(rc->rbuf.buf, rc->rbuf.buf + off, rc->rbuf.len - off);
        strbuf_setlen(&rc->rbuf, rc->rbuf.len - off);
    }
    return added;
}

int runner_client_pump(runner_client *rc, int timeout_ms, strbuf *err)
{
    if (!rc || rc->pid <= 0)
        return 0;
    int added = 0;
    int waiting = rc->state == RUNNER_RUNNING || rc->state == RUNNER_STARTING;
    if (waiting && rc->o.timeout_s > 0) {
        double left_ms = (rc->t_last + rc->o.timeout_s - now_s()) * 1000.0;
        if (left_ms <= 0) {
            strbuf_addf(err, "no word from the runner for %g s (timeout)", rc->o.timeout_s);
            kill_child(rc, "timeout");
            return 1;
        }
        if (timeout_ms < 0 || left_ms < timeout_ms)
            timeout_ms = (int)left_ms + 1;
    }
    struct pollfd p[3] = {{rc->sock, POLLIN, 0}, {rc->out_fd, POLLIN, 0}, {rc->err_fd, POLLIN, 0}};
    int n = poll(p, 3, timeout_ms);
    if (n < 0 && errno != EINTR) {
        strbuf_addf(err, "poll: %s", strerror(errno));
        return -1;
    }
    char buf[READ_CHUNK];
    int sock_eof = 0, proto_bad = 0;
    for (int i = 1; i < 3; i++)
        if (p[i].revents & (POLLIN | POLLHUP | POLLERR)) {
            int *fd = i == 1 ? &rc->out_fd : &rc->err_fd;
            for (int k = 0; k < 64 && *fd >= 0; k++) {
                ssize_t r = read(*fd, buf, sizeof buf);
                if (r > 0) {
                    added += take_output(rc, i - 1, buf, (size_t)r, 0);
                    continue;
                }
                if (r < 0 && errno == EINTR)
                    continue;
                if (r == 0) {
                    added += take_output(rc, i - 1, "", 0, 1);
                    close_fd(fd);
                }
                break;
            }
        }
    if (p[0].revents & (POLLIN | POLLHUP | POLLERR)) {
        for (int k = 0; k < 256; k++) {
            ssize_t r = recv(rc->sock, buf, sizeof buf, 0);
            if (r > 0) {
                if (rc->rbuf.len + (size_t)r > (size_t)PROTO_MAX_FRAME + 64) {
                    /* a frame can't be bigger; decode what is whole first */
                    int d = decode_frames(rc, err);
                    if (d < 0) {
                        proto_bad = 1;
                        break;
                    }
                    added += d;
                }
                strbuf_add(&rc->rbuf, buf, (size_t)r);
                continue;
            }
            if (r < 0 && errno == EINTR)
                continue;
            if (r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK))
                sock_eof = 1;
            break;
        }
        if (!proto_bad) {
            int d = decode_frames(rc, err);
            if (d < 0)
                proto_bad = 1;
            else
                added += d;
        }
    }
    if (proto_bad) {
        /* We can't trust anything after a malformed frame: end the runner. */
        added += add_error(rc, -1, err->buf) ? 1 : 0;
        added += kill_child(rc, "killed");
        return -1;
    }
    if (sock_eof) {
        added += reap(rc);
    } else if (rc->pid > 0) {
        int status;
        pid_t r = waitpid(rc->pid, &status, WNOHANG);
        if (r == rc->pid) {
            /* It exited between poll() and here: what it sent last (ERROR,
             * DONE) may still sit in the socket. Read it before judging. */
            for (int k = 0; k < 4096 && rc->sock >= 0; k++) {
                ssize_t n = recv(rc->sock, buf, sizeof buf, MSG_DONTWAIT);
                if (n > 0 && rc->rbuf.len + (size_t)n <= (size_t)PROTO_MAX_FRAME + 64) {
                    strbuf_add(&rc->rbuf, buf, (size_t)n);
                    continue;
                }
                if (n < 0 && errno == EINTR)
                    continue;
                break;
            }
            int d = decode_frames(rc, err);
            if (d > 0)
                added += d;
            else if (d < 0)
                added += add_error(rc, -1, err->buf) ? 1 : 0;
            rc->pid = -1;
            added += record_exit(rc, status, NULL);
        }
    }
    return added;
}

static int resume(runner_client *rc, proto_cmd cmd, int64_t arg, const char *name)
{
    if (!rc || rc->pid <= 0 || rc->state != RUNNER_STOPPED)
        return -1;
    if (send_control(rc, cmd, arg, name) < 0)
        return -1;
    rc->state = RUNNER_RUNNING;
    rc->t_last = now_s();
    return 0;
}

int runner_client_step(runner_client *rc) { return resume(rc, PROTO_CMD_STEP, 0, NULL); }
int runner_client_continue(runner_client *rc) { return resume(rc, PROTO_CMD_CONTINUE, 0, NULL); }
int runner_client_run_to_index(runner_client *rc, int64_t n) { return resume(rc, PROTO_CMD_RUN_TO_INDEX, n, NULL); }
int runner_client_run_to_name(runner_client *rc, const char *name)
{
    return resume(rc, PROTO_CMD_RUN_TO_NAME, 0, name);
}

int runner_client_set_breaks(runner_client *rc, int flags)
{
    if (!rc)
        return -1;
    rc->o.break_flags = flags;   /* travels with the next CONTROL */
    return 0;
}

int runner_client_quit(runner_client *rc, int wait_ms)
{
    if (!rc || rc->pid <= 0)
        return 0;
    proto_msg q = {.type = PROTO_QUIT};
    send_msg(rc, &q);
    double deadline = now_s() + wait_ms / 1000.0;
    strbuf err = STRBUF_INIT;
    runner_state before = rc->state;
    if (before == RUNNER_STOPPED)
        rc->state = RUNNER_FINISHED;   /* leaving at a stop is an orderly end */
    while (rc->pid > 0 && now_s() < deadline) {
        strbuf_reset(&err);
        runner_client_pump(rc, 50, &err);
    }
    strbuf_release(&err);
    if (rc->pid > 0)
        kill_child(rc, "killed");
    return 0;
}

static void stop_child(runner_client *rc)
{
    if (rc->pid > 0) {
        kill(rc->pid, SIGKILL);
        while (waitpid(rc->pid, NULL, 0) < 0 && errno == EINTR)
            ;
        rc->pid = -1;
    }
    close_fd(&rc->sock);
    close_fd(&rc->out_fd);
    close_fd(&rc->err_fd);
}

int runner_client_restart(runner_client *rc, strbuf *err)
{
    if (!rc)
        return -1;
    stop_child(rc);
    /* A fresh run: the old events go (their memory stays in the arena). */
    rc->s->nevents = 0;
    rc->s->nkernels = 0;
    rc->vb.used = rc->vb.reserve_used = 0;
    return spawn(rc, err);
}

void runner_client_free(runner_client *rc)
{
    if (!rc)
        return;
    stop_child(rc);
    free_inputs(rc);
    strbuf_release(&rc->rbuf);
    strbuf_release(&rc->line[0]);
    strbuf_release(&rc->line[1]);
    strbuf_release(&rc->tail);
    free((char *)rc->o.so_path);
    free((char *)rc->o.cubin_dir);
    free((char *)rc->o.device);
    free((char *)rc->o.runner_path);
    free((char *)rc->o.break_kernel);
    free((char *)rc->o.trace_source);
    free_input_names(rc);
#ifdef HAVE_ROUTER
    router_rules_free(rc->rules);
#endif
    free(rc);
}
