/* runner_client.c — the conversation with a runner (see runner_client.h).
 *
 * The link's fds are non-blocking and only read when poll() says there is
 * something, so a hung or dead runner never hangs the front end. Whatever
 * the runner does (garbage bytes, a crash mid-frame, silence), the session
 * ends with a runner-exit event saying how, plus the stderr tail.
 *
 * Conversation (protocol.h): HELLO arrives; we send LOAD; on LOADED we check
 * the input count against the spec (a wrong count is reported here, never
 * sent to the model, which would abort), then send the INPUTs, CONTROL, RUN.
 * Each message then goes to run_record.c, which turns it into events.
 * Errors: 0 / -1 + err. The client borrows the session; it owns the link
 * (the child and its fds), the recorder and the folder holding materialised
 * input files. */
#include "runner_client.h"
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "inputs.h"
#include "paths.h"
#include "private_dir.h"
#include "protocol.h"
#include "remote.h"
#include "compat.h"

#define READ_CHUNK       65536
#define WRITE_TIMEOUT_MS 10000

struct runner_client {
    runner_options o;          /* strings below are malloc'd copies */
    session *s;
    run_record *rec;           /* turns messages into events */
    runner_link link;
    runner_state state;
    int64_t cur_kernel;
    int stop_reason, done_status;
    int64_t model_inputs;
    int got_hello, got_loaded, exited;
    int held;                  /* hold_run, until runner_client_release */
    strbuf rbuf;               /* protocol bytes not yet decoded */
    double t_start, t_last;    /* monotonic seconds: spawn (then RUN), last message */
    int load_sent;             /* LOAD is on its way (load_later holds it back) */
    char *tmpdir;              /* materialised FILL_FILE inputs; NULL if none */
    char **raw_paths;          /* per input; NULL entries for non-file fills */
    int inband_added;          /* events the in-band output callback added (pump_inband) */
    double batch_ms;           /* the event time of the frames decode_frames applies (read once a batch) */
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static char *dup_or_null(const char *s) { return s ? xstrdup(s) : NULL; }

static double ev_time(const runner_client *rc) { return (now_s() - rc->t_start) * 1000.0; }

/* ---- sending ------------------------------------------------------------ */

static int send_msg(runner_client *rc, const proto_msg *m)
{
    if (rc->link.proto_wr < 0 && !(rc->link.t && rc->link.t->send && rc->link.alive))
        return -1;
    strbuf out = STRBUF_INIT, err = STRBUF_INIT;
    if (proto_encode(&out, m, &err) < 0) {
        strbuf msg = STRBUF_INIT;
        strbuf_addf(&msg, "aotidbg: cannot encode %s: %s", proto_type_name(m->type), err.buf);
        run_record_error(rc->rec, -1, msg.buf, ev_time(rc));
        strbuf_release(&msg);
        strbuf_release(&out);
        strbuf_release(&err);
        return -1;
    }
    strbuf_release(&err);
    if (rc->link.t && rc->link.t->send) {   /* in-band (remote): a dead link is reported by the pump */
        strbuf e = STRBUF_INIT;
        int r = rc->link.t->send(&rc->link, out.buf, out.len, &e);
        strbuf_release(&e);
        strbuf_release(&out);
        return r;
    }
    size_t off = 0;
    double deadline = now_s() + WRITE_TIMEOUT_MS / 1000.0;
    int rcode = 0;
    while (off < out.len) {
        ssize_t n = write(rc->link.proto_wr, out.buf + off, out.len - off);
        if (n > 0) {
            off += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && now_s() < deadline) {
            struct pollfd p = {rc->link.proto_wr, POLLOUT, 0};
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

/* The package's launches and their before-tensor counts (provenance rows),
 * so a stop before a kernel comes once its tensors are here; the first frame
 * also carries each subgraph kernel's branch (o.branches, those launched in
 * one place), so the runner counts loop rounds as run_record does. */
static int send_launches(runner_client *rc)
{
    const call_table *p = &rc->s->prov;
    int any = 0;
    for (size_t i = 0; i < p->ncalls && !any; i++)
        any = p->calls[i].nbefore > 0;
    size_t nb = 0;
    const char **bk = xcalloc(rc->o.nbranches + 1, sizeof *bk), **bn = xcalloc(rc->o.nbranches + 1, sizeof *bn);
    for (size_t i = 0; i < rc->o.nbranches && nb < PROTO_MAX_NAMES; i++)
        if (rc->o.branches[i].branch && *rc->o.branches[i].branch) {
            bk[nb] = rc->o.branches[i].kernel;
            bn[nb++] = rc->o.branches[i].branch;
        }
    int rc_sent = 0;
    size_t i = 0;
    do {
        if (!any && !nb)
            break;
        size_t n = !any ? 0 : p->ncalls - i < PROTO_MAX_NAMES ? p->ncalls - i : PROTO_MAX_NAMES;
        const char **k = xcalloc(n, sizeof *k);
        uint32_t *b = xcalloc(n, sizeof *b);
        for (size_t j = 0; j < n; j++) {
            k[j] = p->calls[i + j].kernel;
            b[j] = p->calls[i + j].nbefore > UINT32_MAX ? UINT32_MAX : (uint32_t)p->calls[i + j].nbefore;
        }
        proto_msg m = {.type = PROTO_LAUNCHES};
        m.u.launches.n = (uint32_t)n;
        m.u.launches.kernels = k;
        m.u.launches.before = b;
        if (!i) {
            m.u.launches.nbranches = (uint32_t)nb;
            m.u.launches.branch_kernels = bk;
            m.u.launches.branch_names = bn;
        }
        int sent = send_msg(rc, &m);
        free(k);
        free(b);
        if (sent < 0) {
            rc_sent = -1;
            break;
        }
        i += n;
    } while (any && i < p->ncalls);
    free(bk);
    free(bn);
    return rc_sent;
}

static int send_inputs_and_run(runner_client *rc)
{
    session *s = rc->s;
    if (send_launches(rc) < 0)
        return -1;
    for (size_t i = 0; i < s->ninputs; i++) {
        proto_msg m = {.type = PROTO_INPUT};
        m.u.input.index = (uint32_t)i;
        m.u.input.spec = s->inputs[i];
        m.u.input.spec.file_shown = s->inputs[i].file;   /* the wire's file is raw_path, a copy */
        m.u.input.raw_path = rc->raw_paths && rc->raw_paths[i] ? rc->raw_paths[i] : "";
        if (send_msg(rc, &m) < 0)
            return -1;
    }
    for (size_t i = 0; i < rc->o.npre_run; i++)
        if (send_msg(rc, &rc->o.pre_run[i]) < 0)
            return -1;
    if (rc->o.capture && send_msg(rc, rc->o.capture) < 0)
        return -1;
    for (size_t i = 0; i < rc->o.nconstants; i++) {
        const weight_ref *w = &rc->o.constants[i];
        proto_msg m = {.type = PROTO_CONSTANT};
        m.u.constant.fqn = w->fqn;
        m.u.constant.path = w->path;
        m.u.constant.offset = w->offset;
        m.u.constant.dtype = w->dtype ? w->dtype : "";
        m.u.constant.ndim = w->ndim;
        m.u.constant.shape = (int64_t *)w->shape;
        m.u.constant.strides = (int64_t *)w->strides;
        m.u.constant.storage_offset = w->storage_offset;
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

/* Applies one decoded message: the conversation's part here, the rest to
 * the recorder. Returns events added, -1 on a protocol error. */
static int apply(runner_client *rc, proto_msg *m, strbuf *err)
{
    session *s = rc->s;
    switch (m->type) {
    case PROTO_HELLO:
        rc->got_hello = 1;
        if (rc->o.wrap && m->u.hello.pid > 0 && m->u.hello.pid < INT32_MAX)
            rc->link.inner_pid = (int)m->u.hello.pid;   /* the runner, under the wrapping tool */
        if (m->u.hello.version != PROTO_VERSION) {
            strbuf_addf(err, "runner speaks protocol %u, this aotidbg speaks %d: rebuild both from the same tree",
                        m->u.hello.version, PROTO_VERSION);
            return -1;
        }
        return run_record_message(rc->rec, m, rc->batch_ms, err);
    case PROTO_LOADED: {
        rc->got_loaded = 1;
        rc->model_inputs = m->u.loaded.n_inputs;
        run_record_set_input_names(rc->rec, m->u.loaded.input_names, m->u.loaded.n_names);
        if (m->u.loaded.n_inputs != s->ninputs) {
            strbuf names = STRBUF_INIT, msg = STRBUF_INIT;
            for (uint32_t i = 0; i < m->u.loaded.n_names && names.len < 400; i++)
                strbuf_addf(&names, "%s%s", i ? ", " : "", m->u.loaded.input_names[i]);
            strbuf_addf(&msg, "input count: the inputs spec gives %zu input%s, the model takes %u%s%s%s; give one "
                        "spec item per model input, in order", s->ninputs, s->ninputs == 1 ? "" : "s",
                        m->u.loaded.n_inputs, names.len ? " (" : "", names.buf, names.len ? ")" : "");
            run_record_error(rc->rec, -1, msg.buf, rc->batch_ms);
            strbuf_release(&names);
            strbuf_release(&msg);
            proto_msg q = {.type = PROTO_QUIT};
            send_msg(rc, &q);
            rc->done_status = 1;
            rc->state = RUNNER_FINISHED;
            return 1;
        }
        if (!rc->held)
            send_inputs_and_run(rc);
        return 0;
    }
    case PROTO_COMPARE:
        return run_record_message(rc->rec, m, rc->batch_ms, err);
    case PROTO_KERNEL:
        if (m->u.kernel.phase == 0)
            rc->cur_kernel = m->u.kernel.index;
        return run_record_message(rc->rec, m, rc->batch_ms, err);
    case PROTO_TENSOR:
    case PROTO_ALIAS:
    case PROTO_ERROR:
    case PROTO_WEIGHT_DIFF:
        return run_record_message(rc->rec, m, rc->batch_ms, err);
    case PROTO_STOPPED:
        run_record_stopped(rc->rec);
        rc->state = RUNNER_STOPPED;
        rc->cur_kernel = m->u.stopped.kernel_index;
        rc->stop_reason = m->u.stopped.reason;
        return 0;
    case PROTO_DONE:
        rc->done_status = (int)m->u.done.status;
        rc->state = RUNNER_FINISHED;
        return run_record_message(rc->rec, m, rc->batch_ms, err);
    default:
        strbuf_addf(err, "runner sent a %s message, which only the front end sends", proto_type_name(m->type));
        return -1;
    }
}

/* ---- the child ------------------------------------------------------------ */

/* LOAD, and the load's clock: the timeout counts from here, not from the spawn. */
static void send_load(runner_client *rc)
{
    proto_msg m = {.type = PROTO_LOAD};
    m.u.load.so_path = rc->o.so_path;
    m.u.load.cubin_dir = rc->o.cubin_dir ? rc->o.cubin_dir : "";
    m.u.load.device = rc->o.device ? rc->o.device : "cpu";
    m.u.load.flags = (rc->o.blocking ? PROTO_LOAD_BLOCKING : 0) | (rc->o.alloc ? PROTO_LOAD_ALLOC : 0) |
                        (rc->o.round_stats ? PROTO_LOAD_ROUND_STATS : 0);
    m.u.load.max_values = rc->o.max_values;
    m.u.load.output_values = rc->o.output_values;
    rc->t_last = now_s();
    rc->load_sent = 1;
    send_msg(rc, &m);   /* a runner that died at once is reported by the pump */
}

static int spawn(runner_client *rc, strbuf *err)
{
    runner_link_options lo = {.runner_path = rc->o.runner_path, .deterministic = rc->o.deterministic,
                              .transport = rc->o.transport, .remote = rc->o.remote, .wrap = rc->o.wrap,
                              .env = rc->o.env};
    enum { ENV_MAX = 64 };
    const char *env[ENV_MAX + 1];
    size_t n = 0;
    if (rc->o.first_env) {   /* the first runner only: a restart's is a fresh one without them */
        for (const char *const *v = rc->o.env; v && *v && n < ENV_MAX; v++)
            env[n++] = *v;
        for (const char *const *v = rc->o.first_env; *v && n < ENV_MAX; v++)
            env[n++] = *v;
        env[n] = NULL;
        lo.env = env;
        lo.keep_fd = rc->o.first_fd;
    }
    rc->o.first_env = NULL;
    rc->o.first_fd = 0;
    if (runner_link_open(&rc->link, &lo, err) < 0)
        return -1;
    rc->state = RUNNER_STARTING;
    rc->cur_kernel = -1;
    rc->stop_reason = -1;
    rc->done_status = -1;
    rc->model_inputs = -1;
    rc->got_hello = rc->got_loaded = rc->exited = 0;
    strbuf_reset(&rc->rbuf);
    rc->t_start = rc->t_last = now_s();
    rc->load_sent = 0;
    if (rc->o.so_path)
        send_load(rc);
    return 0;
}

/* Drains whatever the pipes still hold (the last words before a crash). */
static int drain_pipes(runner_client *rc)
{
    int added = 0;
    char buf[READ_CHUNK];
    for (int st = 0; st < 2; st++) {
        int *fd = st ? &rc->link.err_fd : &rc->link.out_fd;
        while (*fd >= 0) {
            ssize_t n = read(*fd, buf, sizeof buf);
            if (n > 0) {
                added += run_record_output(rc->rec, st, buf, (size_t)n, 0, ev_time(rc));
                continue;
            }
            if (n < 0 && errno == EINTR)
                continue;
            if (n == 0)
                runner_link_close_fd(fd);
            break;
        }
        added += run_record_output(rc->rec, st, "", 0, 1, ev_time(rc));
    }
    return added;
}

/* Records how the child ended (it is reaped); `how_override` ("timeout",
 * "killed", "lost") wins over the wait status. Always leaves the client with
 * no child and no fds. */
static int record_exit(runner_client *rc, int status, const char *how_override)
{
    int added = drain_pipes(rc);
    added += run_record_end(rc->rec, ev_time(rc));
    runner_link_close(&rc->link);
    rc->link.pid = -1;
    rc->exited = 1;
    /* After DONE the runner exits on its own (1 when the model failed): that
     * is the orderly end and needs no event. */
    int clean = !how_override && WIFEXITED(status) && rc->state == RUNNER_FINISHED;
    if (clean)
        return added;
    const char *how = "lost";
    int code = 0;
    if (how_override) {
        how = how_override;
    } else if (WIFSIGNALED(status)) {
        how = "signal";
        code = WTERMSIG(status);
    } else if (WIFEXITED(status)) {
        how = "exited";
        code = WEXITSTATUS(status);
    }
    added += run_record_exit(rc->rec, how, code, ev_time(rc));
    if (rc->state != RUNNER_FINISHED)
        rc->state = RUNNER_DEAD;
    return added;
}

/* Kills and reaps the child (if any) and records `how` unless it already ended. */
static int kill_child(runner_client *rc, const char *how)
{
    int status = 0;
    if (runner_link_kill(&rc->link, &status) < 0)
        return 0;
    return record_exit(rc, status, how);
}

/* After EOF on the socket: give the child a moment to exit, then reap it. */
static int reap(runner_client *rc)
{
    int status = 0;
    for (int i = 0; i < 300; i++) {    /* up to 3 s */
        int r = runner_link_try_wait(&rc->link, &status);
        if (r == 0)
            return record_exit(rc, status, NULL);
        if (r == 1)
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
            if (rc->raw_paths[i] && !rc->o.remote)   /* remote ones go with the agent's folder */
                unlink(rc->raw_paths[i]);
            free(rc->raw_paths[i]);
        }
        free(rc->raw_paths);
        rc->raw_paths = NULL;
    }
    if (rc->tmpdir) {
        private_dir_remove(rc->tmpdir);
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
    if (!need) {
        private_dir_sweep("aotidbg-inputs");   /* a killed run's input files go at the next run's start */
        return 0;
    }
    /* $TMPDIR/aotidbg-inputs-XXXXXX, owner-locked: removed by the next run when this one is killed */
    char *tmpl = private_dir_make("aotidbg-inputs", err);
    if (!tmpl) {
        strbuf_addstr(err, " (a folder for input files)");
        return -1;
    }
    rc->tmpdir = tmpl;
    rc->raw_paths = xcalloc(s->ninputs, sizeof *rc->raw_paths);
    for (size_t i = 0; i < s->ninputs; i++) {
        if (s->inputs[i].fill != FILL_FILE)
            continue;
        if (inputs_materialize_file(&s->inputs[i], (int)i, rc->tmpdir, &rc->raw_paths[i], err) < 0)
            return -1;
        if (rc->o.remote) {   /* the runner reads it there: push it, keep no copy here */
            char name[32], *there = NULL;
            snprintf(name, sizeof name, "input%zu.raw", i);
            int r = remote_push(rc->o.remote, rc->raw_paths[i], name, &there, NULL, NULL, err);
            unlink(rc->raw_paths[i]);
            free(rc->raw_paths[i]);
            rc->raw_paths[i] = there;
            if (r < 0)
                return -1;
        }
    }
    return 0;
}

int runner_client_start(runner_client **out, const runner_options *o, session *s, strbuf *err)
{
    *out = NULL;
    if (!o->load_later && (!o->so_path || !o->so_path[0])) {
        strbuf_addstr(err, "no model .so to run");
        return -1;
    }
    runner_client *rc = xcalloc(1, sizeof *rc);
    rc->o = *o;
    rc->o.so_path = o->load_later ? NULL : dup_or_null(o->so_path);
    rc->o.cubin_dir = o->load_later ? NULL : dup_or_null(o->cubin_dir);
    rc->o.device = dup_or_null(o->device ? o->device : "cpu");
    rc->o.runner_path = dup_or_null(o->runner_path);
    rc->o.break_kernel = dup_or_null(o->break_kernel);
    rc->o.trace_source = dup_or_null(o->trace_source);
    rc->s = s;
    rc->held = o->hold_run;
    rc->rec = run_record_new(s, o->trace_source, o->values_budget);
    run_record_set_branches(rc->rec, o->branches, o->nbranches);
    run_record_set_user_names(rc->rec, o->user_names, o->nuser_names);
    rc->link.pid = -1;
    rc->link.proto_rd = rc->link.proto_wr = rc->link.out_fd = rc->link.err_fd = -1;
    strbuf_init(&rc->rbuf, 0);
    for (size_t i = 0; i < 3; i++) {
        const char *v = getenv(runner_det_vars[i]);
        session_set_flag(s, runner_det_vars[i], o->deterministic ? "1" : v && *v ? v : "0");
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

int runner_client_load(runner_client *rc, const char *so_path, const char *cubin_dir, strbuf *err)
{
    if (!so_path || !so_path[0]) {
        strbuf_addstr(err, "no model .so to run");
        return -1;
    }
    if (rc->o.so_path) {
        strbuf_addstr(err, "the runner already has its model");
        return -1;
    }
    rc->o.so_path = dup_or_null(so_path);
    rc->o.cubin_dir = dup_or_null(cubin_dir);
    if (runner_client_alive(rc))
        send_load(rc);   /* else it died meanwhile: the pump says so, and a restart loads */
    return 0;
}

int runner_client_fd(const runner_client *rc) { return rc && runner_link_alive(&rc->link) ? rc->link.proto_rd : -1; }
int runner_client_alive(const runner_client *rc) { return rc && runner_link_alive(&rc->link); }
runner_state runner_client_state(const runner_client *rc) { return rc->state; }
int64_t runner_client_current_kernel(const runner_client *rc) { return rc->cur_kernel; }
int runner_client_stop_reason(const runner_client *rc) { return rc->stop_reason; }
int runner_client_done_status(const runner_client *rc) { return rc->done_status; }
int64_t runner_client_model_inputs(const runner_client *rc) { return rc->model_inputs; }
int runner_client_pid(const runner_client *rc) { return rc->link.pid > 0 ? rc->link.pid : -1; }

/* Decodes every whole frame in rbuf. */
static int decode_frames(runner_client *rc, strbuf *err)
{
    int added = 0;
    size_t off = 0;
    arena scratch = ARENA_INIT;
    double now = now_s();
    while (off < rc->rbuf.len) {
        rc->batch_ms = now > rc->t_start ? (now - rc->t_start) * 1000.0 : 0;   /* t_start moves when RUN goes out */
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
        rc->t_last = now;
        int r = apply(rc, &m, err);
        arena_rewind(&scratch);
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

/* The runner's output, from an in-band transport, into the session. */
static void inband_output(void *ctx, int stream, const char *buf, size_t n)
{
    runner_client *rc = ctx;
    rc->inband_added += run_record_output(rc->rec, stream, buf, n, 0, ev_time(rc));
}

/* The pump of an in-band transport (remote): protocol bytes, output and the
 * runner's end all come from the link's pump; a lost link is the end too. */
static int pump_inband(runner_client *rc, int timeout_ms, strbuf *err)
{
    int status = 0, added = 0;
    strbuf lerr = STRBUF_INIT;
    rc->inband_added = 0;
    int r = rc->link.t->pump(&rc->link, timeout_ms, &rc->rbuf, inband_output, rc, &status, &lerr);
    added += rc->inband_added;
    int d = decode_frames(rc, err);
    if (d < 0) {
        added += run_record_error(rc->rec, -1, err->buf, ev_time(rc));
        added += kill_child(rc, "killed");
        strbuf_release(&lerr);
        return -1;
    }
    added += d;
    if (r == 1 && runner_link_try_wait(&rc->link, &status) == 0) {
        added += run_record_output(rc->rec, 0, "", 0, 1, ev_time(rc)) + run_record_output(rc->rec, 1, "", 0, 1,
                                                                                        ev_time(rc));
        added += record_exit(rc, status, NULL);
    } else if (r < 0 && runner_link_alive(&rc->link)) {   /* the connection is gone, and the runner with it */
        rc->link.alive = 0;
        added += run_record_error(rc->rec, -1, lerr.buf, ev_time(rc));
        added += record_exit(rc, 0, "lost");
        strbuf_addstr(err, lerr.buf);
    }
    strbuf_release(&lerr);
    return added;
}

int runner_client_pump(runner_client *rc, int timeout_ms, strbuf *err)
{
    if (!rc || !runner_link_alive(&rc->link))
        return 0;
    int added = 0;
    /* before LOAD, or held after LOADED, the runner waits for us, not we for it */
    int waiting = (rc->state == RUNNER_RUNNING || (rc->state == RUNNER_STARTING && rc->load_sent)) &&
                  !(rc->held && rc->got_loaded);
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
    if (rc->link.t && rc->link.t->pump)
        return pump_inband(rc, timeout_ms, err);
    struct pollfd p[3] = {{rc->link.proto_rd, POLLIN, 0}, {rc->link.out_fd, POLLIN, 0}, {rc->link.err_fd, POLLIN, 0}};
    int n = poll(p, 3, timeout_ms);
    if (n < 0 && errno != EINTR) {
        strbuf_addf(err, "poll: %s", strerror(errno));
        return -1;
    }
    char buf[READ_CHUNK];
    int sock_eof = 0, proto_bad = 0;
    for (int i = 1; i < 3; i++)
        if (p[i].revents & (POLLIN | POLLHUP | POLLERR)) {
            int *fd = i == 1 ? &rc->link.out_fd : &rc->link.err_fd;
            for (int k = 0; k < 64 && *fd >= 0; k++) {
                ssize_t r = read(*fd, buf, sizeof buf);
                if (r > 0) {
                    added += run_record_output(rc->rec, i - 1, buf, (size_t)r, 0, ev_time(rc));
                    continue;
                }
                if (r < 0 && errno == EINTR)
                    continue;
                if (r == 0) {
                    added += run_record_output(rc->rec, i - 1, "", 0, 1, ev_time(rc));
                    runner_link_close_fd(fd);
                }
                break;
            }
        }
    if (p[0].revents & (POLLIN | POLLHUP | POLLERR)) {
        for (int k = 0; k < 256; k++) {
            ssize_t r = read(rc->link.proto_rd, buf, sizeof buf);
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
        added += run_record_error(rc->rec, -1, err->buf, ev_time(rc));
        added += kill_child(rc, "killed");
        return -1;
    }
    if (sock_eof) {
        added += reap(rc);
    } else if (rc->link.pid > 0) {
        int status;
        int r = runner_link_try_wait(&rc->link, &status);
        if (r >= 0) {
            /* It exited between poll() and here: what it sent last (ERROR,
             * DONE) may still sit in the socket. Read it before judging. */
            for (int k = 0; k < 4096 && rc->link.proto_rd >= 0; k++) {
                ssize_t n = read(rc->link.proto_rd, buf, sizeof buf);
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
                added += run_record_error(rc->rec, -1, err->buf, ev_time(rc));
            added += record_exit(rc, status, r == 1 ? "lost" : NULL);
        }
    }
    return added;
}

static int resume(runner_client *rc, proto_cmd cmd, int64_t arg, const char *name)
{
    if (!rc || !runner_link_alive(&rc->link) || rc->state != RUNNER_STOPPED)
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
    if (!rc || !runner_link_alive(&rc->link))
        return 0;
    proto_msg q = {.type = PROTO_QUIT};
    send_msg(rc, &q);
    double deadline = now_s() + wait_ms / 1000.0;
    strbuf err = STRBUF_INIT;
    runner_state before = rc->state;
    if (before == RUNNER_STOPPED)
        rc->state = RUNNER_FINISHED;   /* leaving at a stop is an orderly end */
    while (runner_link_alive(&rc->link) && (wait_ms < 0 || now_s() < deadline)) {
        strbuf_reset(&err);
        runner_client_pump(rc, 50, &err);
    }
    strbuf_release(&err);
    if (runner_link_alive(&rc->link))
        kill_child(rc, "killed");
    return 0;
}

static void stop_child(runner_client *rc)
{
    runner_link_kill(&rc->link, NULL);
    runner_link_close(&rc->link);
}

int runner_client_pause(runner_client *rc)
{
    if (!rc || !runner_link_alive(&rc->link) || rc->state != RUNNER_RUNNING)
        return -1;
    return runner_link_pause(&rc->link);
}

void runner_client_kill(runner_client *rc, const char *how)
{
    if (rc && runner_link_alive(&rc->link))
        kill_child(rc, how);
}

int runner_client_release(runner_client *rc, const proto_msg *pre_run, size_t n)
{
    if (!rc || !rc->held)
        return -1;
    rc->held = 0;
    rc->o.pre_run = pre_run;
    rc->o.npre_run = n;
    rc->t_last = now_s();   /* the load timeout counts from here */
    if (rc->got_loaded && rc->state == RUNNER_STARTING && runner_client_alive(rc))
        send_inputs_and_run(rc);
    return 0;
}

int runner_client_restart(runner_client *rc, strbuf *err)
{
    if (!rc)
        return -1;
    stop_child(rc);
    run_record_restart(rc->rec);   /* a fresh run: the old events go */
    return spawn(rc, err);
}

void runner_client_free(runner_client *rc)
{
    if (!rc)
        return;
    stop_child(rc);
    free_inputs(rc);
    run_record_free(rc->rec);
    strbuf_release(&rc->rbuf);
    free((char *)rc->o.so_path);
    free((char *)rc->o.cubin_dir);
    free((char *)rc->o.device);
    free((char *)rc->o.runner_path);
    free((char *)rc->o.break_kernel);
    free((char *)rc->o.trace_source);
    free(rc);
}
