/* runner_link_remote.c — the ssh transport (`--remote HOST`): a
 * runner started on the GPU box by the agent at the other end of the
 * connection (remote.h, core/agent). One connection serves every runner of
 * a session: open sends SPAWN, a restart is another SPAWN. In-band: the
 * runner's frames come through unchanged, its stdout/stderr as LOG frames
 * and its end as an EXIT frame (protocol.h), all on the connection's one
 * stream; ssh's own stderr (its warnings, the agent's notes) is recorded as
 * the runner's stderr. Nothing here is a local process: pid stays -1, and
 * pause and kill are SIGNAL frames the agent carries out. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include "fdio.h"
#include "protocol.h"
#include "remote.h"
#include "runner_link.h"

#define KILL_WAIT_S 5

static int send_signal(runner_link *l, uint8_t what)
{
    proto_msg m = {.type = PROTO_SIGNAL};
    m.u.signal.what = what;
    strbuf err = STRBUF_INIT;
    int rc = remote_send(l->remote, &m, &err);
    strbuf_release(&err);
    return rc;
}

static int remote_open_link(runner_link *l, const runner_link_options *o, strbuf *err)
{
    if (!l->remote || !remote_alive(l->remote)) {
        strbuf_addstr(err, "the connection to the remote runner is gone; start aotidbg again");
        return -1;
    }
    proto_msg m = {.type = PROTO_SPAWN};
    m.u.spawn.flags = o->deterministic ? PROTO_SPAWN_DETERMINISTIC : 0;
    if (remote_send(l->remote, &m, err) < 0)
        return -1;
    l->proto_rd = remote_fd(l->remote);   /* for the UI's poll(); reads go through remote_pump */
    l->alive = 1;
    return 0;
}

static int remote_pause(runner_link *l) { return l->alive ? send_signal(l, PROTO_SIGNAL_PAUSE) : -1; }

static int remote_send_frame(runner_link *l, const char *buf, size_t n, strbuf *err)
{
    return remote_send_raw(l->remote, buf, n, err);
}

/* Splits what the connection queued: runner frames to proto, LOG to out,
 * EXIT ends the runner. Returns 1 when EXIT came. */
static int sort_frames(runner_link *l, strbuf *proto, runner_link_out_fn *out, void *ctx, int *status)
{
    strbuf q = STRBUF_INIT;
    remote_take_frames(l->remote, &q);
    int ended = 0;
    for (size_t off = 0; off + 5 <= q.len;) {   /* the connection queues whole frames only */
        const unsigned char *p = (const unsigned char *)q.buf + off;
        size_t n = (size_t)p[0] | (size_t)p[1] << 8 | (size_t)p[2] << 16 | (size_t)p[3] << 24;
        if (p[4] == PROTO_LOG || p[4] == PROTO_EXIT) {
            proto_msg m;
            arena a = ARENA_INIT;
            strbuf e = STRBUF_INIT;
            if (proto_decode(p, n + 4, &m, &a, &e) > 0) {
                if (m.type == PROTO_LOG && out)
                    out(ctx, m.u.log.stream, m.u.log.data ? m.u.log.data : "", m.u.log.ndata);
                else if (m.type == PROTO_EXIT) {   /* a wait status as waitpid would give it */
                    *status = m.u.exit.how ? (int)(m.u.exit.code & 0x7f) : (int)(m.u.exit.code & 0xff) << 8;
                    ended = 1;
                }
            } else if (proto) {   /* let the client's decoder name what is wrong */
                strbuf_add(proto, (const char *)p, n + 4);
            }
            arena_release(&a);
            strbuf_release(&e);
        } else if (proto) {
            strbuf_add(proto, (const char *)p, n + 4);
        }
        off += n + 4;
    }
    strbuf_release(&q);
    return ended;
}

static int remote_pump_link(runner_link *l, int timeout_ms, strbuf *proto, runner_link_out_fn *out, void *ctx,
                            int *status, strbuf *err)
{
    int lost = remote_pump(l->remote, timeout_ms, err) < 0;
    strbuf more = STRBUF_INIT;
    remote_take_stderr(l->remote, &more);
    if (more.len && out)
        out(ctx, 1, more.buf, more.len);
    strbuf_release(&more);
    if (sort_frames(l, proto, out, ctx, status)) {
        l->ended = 1;
        l->end_status = *status;
        return 1;
    }
    return lost ? -1 : 0;
}

/* SIGNAL(KILL), then its EXIT; what it sent meanwhile is dropped. */
static int remote_kill(runner_link *l, int *status)
{
    *status = SIGKILL;   /* the wait status of a runner killed by SIGKILL */
    if (l->ended) {
        *status = l->end_status;
        return 0;
    }
    if (send_signal(l, PROTO_SIGNAL_KILL) < 0)
        return 0;
    strbuf err = STRBUF_INIT;
    for (double end = mono_now_s() + KILL_WAIT_S; mono_now_s() < end;) {
        strbuf_reset(&err);
        int r = remote_pump_link(l, 100, NULL, NULL, NULL, status, &err);
        if (r != 0)
            break;
    }
    strbuf_release(&err);
    return 0;
}

const runner_transport runner_link_remote = {"ssh", remote_open_link, remote_pause, remote_send_frame,
                                             remote_pump_link, remote_kill};
