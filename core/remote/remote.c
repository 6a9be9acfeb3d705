/* remote.c — the ssh connection to a remote runner agent (remote.h).
 *
 * ssh gets one end of a socketpair as its stdin and stdout and a pipe as its
 * stderr; it ignores the terminal's ^C (SIGINT is ignored before exec, and
 * OpenSSH keeps an ignored SIGINT ignored), so the front end decides what ^C
 * means, as it does for a local runner. Everything read is split into whole
 * frames: REPLY frames answer remote_call, the rest wait for the runner
 * client in arrival order. */
#define _GNU_SOURCE
#include "private_dir.h"
#include "remote.h"
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <wordexp.h>
#include "fdio.h"
#include "compat.h"

#define PING_EVERY_S   30
#define TAIL_MAX       4096
#define SEND_STALL_S   120     /* a write making no progress this long: the link is dead */

struct remote {
    char *target;
    pid_t pid;                 /* ssh */
    int sock, err_fd;
    strbuf in;                 /* bytes not yet split into frames */
    strbuf queue;              /* whole frames for the runner client */
    strbuf replies;            /* whole REPLY frames */
    strbuf err_tail;           /* ssh's last TAIL_MAX bytes of stderr */
    strbuf err_new;            /* its stderr since remote_take_stderr */
    double last_tx;
    int exit_status;           /* ssh's wait status once reaped; -1 before */
    char *torch_version;
    char *local_dir;           /* remote_local_dir; NULL until asked for */
    double timeout_s;          /* remote_options.timeout_s */
    uint64_t rx_split;         /* stream bytes already split into frames */
    uint64_t nframes;          /* frames received */
    double partial_since;      /* when the frame now in r->in last grew; 0: none */
    size_t partial_len;        /* its bytes then */
};

static int remote_parse_target(const char *target, char *dest, size_t ndest, char *port, size_t nport, strbuf *err)
{
    const char *at = strrchr(target, '@');
    const char *host = at ? at + 1 : target;
    const char *colon = NULL;
    if (*host == '[') {                      /* [IPv6]:PORT */
        const char *close = strchr(host, ']');
        if (!close) {
            strbuf_addf(err, "--remote %s: '[' without ']'", target);
            return -1;
        }
        colon = close[1] == ':' ? close + 1 : NULL;
    } else {
        colon = strrchr(host, ':');
    }
    size_t dl = colon ? (size_t)(colon - target) : strlen(target);
    const char *p = colon ? colon + 1 : "";
    if (!*target || dl == 0 || (at && at == target) || host == target + dl || dl >= ndest || strlen(p) >= nport ||
        (colon && (!*p || strspn(p, "0123456789") != strlen(p) || atoi(p) <= 0 || atoi(p) > 65535)) ||
        target[0] == '-') {
        strbuf_addf(err, "--remote takes [USER@]HOST[:PORT], not '%s'", target);
        return -1;
    }
    memcpy(dest, target, dl);
    dest[dl] = 0;
    if (dest[at ? (size_t)(host - target) : 0] == '[') {
        char *o = dest + (at ? (size_t)(host - target) : 0);
        memmove(o, o + 1, strlen(o));        /* ssh wants the bare address: drop '[' and ']' */
        char *c = strchr(o, ']');
        if (c)
            *c = 0;
    }
    snprintf(port, nport, "%s", p);
    return 0;
}

int remote_target_host(const char *target, char *host, size_t n, strbuf *err)
{
    char dest[1024], port[16];
    if (remote_parse_target(target, dest, sizeof dest, port, sizeof port, err) < 0)
        return -1;
    const char *at = strrchr(dest, '@');
    snprintf(host, n, "%s", at ? at + 1 : dest);
    return 0;
}

/* 'text' quoted for a POSIX shell. */
static void shell_quote(strbuf *o, const char *text)
{
    strbuf_addch(o, '\'');
    for (const char *p = text; *p; p++) {
        if (*p == '\'')
            strbuf_addstr(o, "'\\''");
        else
            strbuf_addch(o, *p);
    }
    strbuf_addch(o, '\'');
}

static void add_stderr(remote *r, const char *buf, size_t n)
{
    strbuf_add(&r->err_tail, buf, n);
    if (r->err_tail.len > TAIL_MAX) {
        size_t cut = r->err_tail.len - TAIL_MAX;
        memmove(r->err_tail.buf, r->err_tail.buf + cut, TAIL_MAX);
        strbuf_setlen(&r->err_tail, TAIL_MAX);
    }
    if (r->err_new.len < (1u << 20))
        strbuf_add(&r->err_new, buf, n);
}

static void read_stderr(remote *r)
{
    char buf[4096];
    while (r->err_fd >= 0) {
        ssize_t n = read(r->err_fd, buf, sizeof buf);
        if (n > 0) {
            add_stderr(r, buf, (size_t)n);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0 || errno != EAGAIN)
            fd_close(&r->err_fd);
        break;
    }
}

/* Waits up to wait_ms for ssh to end; records its status. */
static int reap_ssh(remote *r, int wait_ms)
{
    if (r->pid <= 0)
        return 1;
    double end = mono_now_s() + wait_ms / 1000.0;
    for (;;) {
        int st;
        pid_t w = waitpid(r->pid, &st, WNOHANG);
        if (w == r->pid || (w < 0 && errno != EINTR)) {
            r->exit_status = w == r->pid ? st : 0;
            r->pid = -1;
            read_stderr(r);
            return 1;
        }
        if (mono_now_s() >= end)
            return 0;
        if (r->err_fd >= 0) {
            struct pollfd p = {r->err_fd, POLLIN, 0};
            if (poll(&p, 1, 20) > 0)
                read_stderr(r);
        } else {
            struct timespec ts = {0, 20 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
    }
}

/* ssh's stderr, trimmed, for messages (the last lines only). */
static const char *ssh_words(remote *r)
{
    strbuf *t = &r->err_tail;
    while (t->len && (t->buf[t->len - 1] == '\n' || t->buf[t->len - 1] == '\r' || t->buf[t->len - 1] == ' '))
        strbuf_setlen(t, t->len - 1);
    return t->len ? t->buf : "(ssh said nothing)";
}

/* Why the connection ended, into err. */
static void say_lost(remote *r, strbuf *err)
{
    reap_ssh(r, 3000);
    int st = r->exit_status;
    strbuf_addf(err, "connection to %s lost", r->target);
    if (r->exit_status >= 0 && WIFSIGNALED(st))
        strbuf_addf(err, " (ssh killed by signal %d)", WTERMSIG(st));
    else if (r->exit_status >= 0 && WIFEXITED(st))
        strbuf_addf(err, " (ssh exited with %d)", WEXITSTATUS(st));
    if (r->err_tail.len)
        strbuf_addf(err, ": %s", ssh_words(r));
}

/* Splits r->in into frames. -1 with err on bytes that are not frames. */
static int split_frames(remote *r, strbuf *err)
{
    size_t off = 0;
    while (r->in.len - off >= 5) {
        const unsigned char *p = (const unsigned char *)r->in.buf + off;
        uint32_t n = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
        if (n == 0 || n > PROTO_MAX_FRAME) {
            strbuf_addf(err, "the connection to %s carries something other than the runner protocol at byte %llu "
                        "(frame #%llu: length %u, the most is %u) (", r->target,
                        (unsigned long long)(r->rx_split + off), (unsigned long long)r->nframes, n, PROTO_MAX_FRAME);
            for (size_t i = off; i < r->in.len && i < off + 40; i++) {
                unsigned char c = (unsigned char)r->in.buf[i];
                strbuf_addch(err, c >= 0x20 && c < 0x7f ? (char)c : '.');
            }
            strbuf_addstr(err, "...): does a login script there print to stdout in non-interactive sessions?");
            return -1;
        }
        if (r->in.len - off - 4 < n)
            break;
        strbuf_add(p[4] == PROTO_REPLY ? &r->replies : &r->queue, (const char *)p, (size_t)n + 4);
        off += (size_t)n + 4;
        r->nframes++;
    }
    r->rx_split += off;
    if (r->in.len == off)
        r->partial_since = 0, r->partial_len = 0;
    else if (r->in.len - off != r->partial_len)   /* it grew: the deadline counts from the last byte */
        r->partial_since = mono_now_s(), r->partial_len = r->in.len - off;
    if (off) {
        memmove(r->in.buf, r->in.buf + off, r->in.len - off);
        strbuf_setlen(&r->in, r->in.len - off);
    }
    return 0;
}

/* Reads the socket until it would block. 1 at its end. */
static int read_sock(remote *r)
{
    for (int k = 0; k < 1024 && r->sock >= 0; k++) {
        strbuf_grow(&r->in, 1 << 16);
        ssize_t n = recv(r->sock, r->in.buf + r->in.len, 1 << 16, 0);
        if (n > 0) {
            strbuf_setlen(&r->in, r->in.len + (size_t)n);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0;
        fd_close(&r->sock);
        return 1;
    }
    return 0;
}

int remote_pump(remote *r, int timeout_ms, strbuf *err)
{
    if (r->sock < 0) {
        say_lost(r, err);
        return -1;
    }
    if (mono_now_s() - r->last_tx > PING_EVERY_S) {
        proto_msg ping = {.type = PROTO_PING};
        if (remote_send(r, &ping, err) < 0)
            return -1;
    }
    struct pollfd p[2] = {{r->sock, POLLIN, 0}, {r->err_fd, POLLIN, 0}};
    int n = poll(p, 2, timeout_ms);
    if (n < 0 && errno != EINTR) {
        strbuf_addf(err, "poll: %s", strerror(errno));
        return -1;
    }
    if (p[1].revents)
        read_stderr(r);
    int eof = 0;
    if (p[0].revents)
        eof = read_sock(r);
    if (split_frames(r, err) < 0) {
        fd_close(&r->sock);
        return -1;
    }
    if (eof) {
        say_lost(r, err);
        return -1;
    }
    if (r->timeout_s > 0 && r->partial_since && mono_now_s() - r->partial_since > r->timeout_s) {
        const unsigned char *b = (const unsigned char *)r->in.buf;
        uint32_t n = r->in.len >= 4 ? (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
                                      (uint32_t)b[3] << 24 : 0;
        strbuf_addf(err, "the runner on %s sent %zu bytes of frame #%llu (at byte %llu", r->target, r->in.len,
                    (unsigned long long)r->nframes, (unsigned long long)r->rx_split);
        if (n)
            strbuf_addf(err, ", %u announced", n + 4);
        strbuf_addf(err, ") and nothing more for %g s (--timeout)", r->timeout_s);
        fd_close(&r->sock);
        return -1;
    }
    return 0;
}

int remote_alive(const remote *r) { return r && r->sock >= 0; }
int remote_fd(const remote *r) { return r ? r->sock : -1; }
const char *remote_host(const remote *r) { return r->target; }

void remote_take_frames(remote *r, strbuf *dst)
{
    strbuf_add(dst, r->queue.buf, r->queue.len);
    strbuf_reset(&r->queue);
}

void remote_take_stderr(remote *r, strbuf *dst)
{
    strbuf_add(dst, r->err_new.buf, r->err_new.len);
    strbuf_reset(&r->err_new);
}

int remote_send(remote *r, const proto_msg *m, strbuf *err)
{
    strbuf out = STRBUF_INIT;
    int rc = proto_encode(&out, m, err) < 0 ? -1 : remote_send_raw(r, out.buf, out.len, err);
    strbuf_release(&out);
    return rc;
}

int remote_send_raw(remote *r, const char *buf, size_t len, strbuf *err)
{
    if (r->sock < 0) {
        say_lost(r, err);
        return -1;
    }
    struct { const char *buf; size_t len; } out = {buf, len};
    size_t off = 0;
    double stall = mono_now_s();
    int rc = 0;
    while (off < out.len) {
        ssize_t n = send(r->sock, out.buf + off, out.len - off, MSG_NOSIGNAL);
        if (n > 0) {
            off += (size_t)n;
            stall = mono_now_s();
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && mono_now_s() - stall < SEND_STALL_S) {
            /* Keep reading while we wait, so neither side blocks on a full pipe. */
            struct pollfd p[2] = {{r->sock, POLLOUT | POLLIN, 0}, {r->err_fd, POLLIN, 0}};
            poll(p, 2, 200);
            if (p[1].revents)
                read_stderr(r);
            if ((p[0].revents & POLLIN) && read_sock(r)) {
                say_lost(r, err);
                rc = -1;
                break;
            }
            continue;
        }
        fd_close(&r->sock);
        say_lost(r, err);
        rc = -1;
        break;
    }
    if (!rc && split_frames(r, err) < 0)
        rc = -1;
    r->last_tx = mono_now_s();
    return rc;
}

static int remote_call(remote *r, const proto_msg *req, proto_msg *reply, arena *a, strbuf *err)
{
    if (remote_send(r, req, err) < 0)
        return -1;
    double asked = mono_now_s();
    for (;;) {
        if (r->replies.len >= 4) {
            strbuf derr = STRBUF_INIT;
            long used = proto_decode((const unsigned char *)r->replies.buf, r->replies.len, reply, a, &derr);
            if (used < 0)
                strbuf_addf(err, "the runner on %s answered %s with a malformed reply (%zu bytes, received by "
                            "frame #%llu): %s", r->target, proto_type_name(req->type), r->replies.len,
                            (unsigned long long)r->nframes, derr.buf);
            strbuf_release(&derr);
            if (used < 0)
                return -1;
            memmove(r->replies.buf, r->replies.buf + used, r->replies.len - (size_t)used);
            strbuf_setlen(&r->replies, r->replies.len - (size_t)used);
            if (reply->u.reply.request != (uint8_t)req->type) {
                strbuf_addf(err, "the runner on %s answered %s with a reply to %s", r->target,
                            proto_type_name(req->type), proto_type_name((proto_type)reply->u.reply.request));
                return -1;
            }
            if (!reply->u.reply.ok) {
                strbuf_addf(err, "%s (on %s)", reply->u.reply.text, r->target);
                return -1;
            }
            return 0;
        }
        if (r->timeout_s > 0 && mono_now_s() - asked > r->timeout_s) {
            strbuf_addf(err, "the runner on %s did not answer %s within %g s (--timeout)", r->target,
                        proto_type_name(req->type), r->timeout_s);
            fd_close(&r->sock);
            return -1;
        }
        if (remote_pump(r, 1000, err) < 0)
            return -1;
    }
}

int remote_fread(remote *r, const char *path, uint64_t off, void *buf, size_t len, size_t *got, uint64_t *size,
                 strbuf *err)
{
    proto_msg q = {.type = PROTO_FREAD}, a;
    q.u.fread.path = path;
    q.u.fread.offset = off;
    q.u.fread.len = (uint32_t)(len > PROTO_MAX_DATA ? PROTO_MAX_DATA : len);
    arena ar = ARENA_INIT;
    int rc = remote_call(r, &q, &a, &ar, err);
    if (rc == 0) {
        *got = a.u.reply.ndata <= len ? a.u.reply.ndata : len;
        if (*got)
            memcpy(buf, a.u.reply.data, *got);
        if (size)
            *size = (uint64_t)a.u.reply.value;
    }
    arena_release(&ar);
    return rc;
}

int remote_read_file(remote *r, const char *path, size_t max, strbuf *sb, strbuf *err)
{
    uint64_t size = 0, off = 0;
    char *buf = xmalloc(1 << 20);
    int rc = 0;
    for (;;) {
        size_t got = 0;
        if (remote_fread(r, path, off, buf, 1 << 20, &got, &size, err) < 0) {
            rc = -1;
            break;
        }
        if (size > max) {
            strbuf_addf(err, "%s on %s: %llu bytes, over the %zu-byte limit", path, r->target,
                        (unsigned long long)size, max);
            rc = -1;
            break;
        }
        strbuf_add(sb, buf, got);
        off += got;
        if (!got || off >= size)
            break;
    }
    free(buf);
    return rc;
}

static int text_call(remote *r, proto_msg *q, char **text, strbuf *err)
{
    proto_msg a;
    arena ar = ARENA_INIT;
    int rc = remote_call(r, q, &a, &ar, err);
    if (rc == 0) {
        *text = strdup(a.u.reply.text);
        if (!*text)
            abort();
    }
    arena_release(&ar);
    return rc;
}

int remote_sha256(remote *r, const char *path, char hex[65], strbuf *err)
{
    proto_msg q = {.type = PROTO_SHA256};
    q.u.sha256.path = path;
    char *t = NULL;
    if (text_call(r, &q, &t, err) < 0)
        return -1;
    snprintf(hex, 65, "%s", t);
    free(t);
    return 0;
}

int remote_facts(remote *r, const char *so_path, host_facts *hf, strbuf *err)
{
    proto_msg q = {.type = PROTO_FACTS};
    q.u.facts.path = so_path ? so_path : "";
    char *t = NULL;
    if (text_call(r, &q, &t, err) < 0)
        return -1;
    int rc = host_facts_parse(hf, t, err);
    free(t);
    return rc;
}

int remote_extract(remote *r, const char *pkg_path, const char *prefixes, char **dir, strbuf *err)
{
    proto_msg q = {.type = PROTO_EXTRACT};
    q.u.extract.path = pkg_path;
    q.u.extract.prefixes = prefixes;
    return text_call(r, &q, dir, err);
}

int remote_push(remote *r, const char *local_path, const char *name, char **path,
                void (*progress)(uint64_t sent, uint64_t total, void *ctx), void *ctx, strbuf *err)
{
    int fd = open(local_path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        strbuf_addf(err, "--push %s: %s", local_path, fd < 0 ? strerror(errno) : "not a regular file");
        if (fd >= 0)
            close(fd);
        return -1;
    }
    enum { PIECE = 1 << 20 };
    char *buf = xmalloc(PIECE);
    uint64_t total = (uint64_t)st.st_size, off = 0;
    int rc = 0;
    for (;;) {
        ssize_t n = pread(fd, buf, PIECE, (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            strbuf_addf(err, "--push %s: read failed: %s", local_path, strerror(errno));
            rc = -1;
            break;
        }
        proto_msg m = {.type = PROTO_PUT};
        m.u.put.name = name;
        m.u.put.offset = off;
        m.u.put.data = buf;
        m.u.put.ndata = (uint32_t)n;
        m.u.put.last = n == 0 || off + (uint64_t)n >= total;
        if (m.u.put.last) {
            rc = text_call(r, &m, path, err);
            break;
        }
        if (remote_send(r, &m, err) < 0) {
            rc = -1;
            break;
        }
        off += (uint64_t)n;
        if (progress)
            progress(off, total, ctx);
    }
    if (rc == 0 && progress)
        progress(total, total, ctx);
    free(buf);
    close(fd);
    return rc;
}

/* The ssh command ($AOTIDBG_SSH split like a shell, no expansions, or ssh)
 * into we, and the remote command line into cmd. */
static int ssh_argv(const remote_options *o, wordexp_t *we, strbuf *cmd, strbuf *err)
{
    const char *ssh = getenv("AOTIDBG_SSH");
    if (!ssh || !*ssh)
        ssh = "ssh";
    int w = wordexp(ssh, we, WRDE_NOCMD | WRDE_UNDEF);
    if (w != 0 || we->we_wordc == 0) {
        strbuf_addf(err, "AOTIDBG_SSH='%s' is not a command line (quotes? $(...) is not allowed)", ssh);
        if (w == 0)
            wordfree(we);
        return -1;
    }
    char dest[1024], port[16];
    if (remote_parse_target(o->target, dest, sizeof dest, port, sizeof port, err) < 0) {
        wordfree(we);
        return -1;
    }
    char idle[32];
    snprintf(idle, sizeof idle, "%g", o->idle_s > 0 ? o->idle_s : 300);
    /* R: the runner (found on PATH when given bare); the agent beside it is
     * preferred (it starts without loading libtorch), else R --serve. */
    const char *rp = o->runner_path && *o->runner_path ? o->runner_path : "aotidbg-runner";
    for (const char *const *e = o->env; e && *e; e++) {   /* export NAME='VALUE'; */
        size_t nl = strcspn(*e, "=");
        if (!nl || !(*e)[nl] || strspn(*e, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") != nl ||
            (**e >= '0' && **e <= '9')) {
            strbuf_addf(err, "'%s' is not NAME=VALUE for the remote environment", *e);
            wordfree(we);
            return -1;
        }
        strbuf_addf(cmd, "%.*s=", (int)nl, *e);
        shell_quote(cmd, *e + nl + 1);
        strbuf_addf(cmd, "; export %.*s; ", (int)nl, *e);
    }
    strbuf_addstr(cmd, "R=");
    if (starts_with(rp, "~/")) {   /* the remote home, which quoting would hide from its shell */
        strbuf_addstr(cmd, "\"$HOME\"/");
        rp += 2;
    }
    shell_quote(cmd, rp);
    strbuf_addf(cmd, "; case $R in */*) ;; *) N=$R; R=$(command -v \"$N\") || { echo \"sh: $N: not found\" >&2; "
                     "exit 127; } ;; esac; A=${R%%/*}/aotidbg-agent; if [ -x \"$A\" ] && [ -x \"$R\" ]; then exec \"$A\" "
                     "--serve --runner \"$R\" --idle %s; fi; exec \"$R\" --serve --idle %s", idle, idle);
    return 0;
}

static char **build_argv(const remote_options *o, wordexp_t *we, const char *cmd)
{
    char dest[1024], port[16];
    strbuf e = STRBUF_INIT;
    remote_parse_target(o->target, dest, sizeof dest, port, sizeof port, &e);
    strbuf_release(&e);
    size_t n = we->we_wordc + 16;
    char **argv = xcalloc(n, sizeof *argv);
    size_t k = 0;
    for (size_t i = 0; i < we->we_wordc; i++)
        argv[k++] = xstrdup(we->we_wordv[i]);
    const char *add[] = {"-T", "-o", "ServerAliveInterval=15", "-o", "ServerAliveCountMax=4"};
    for (size_t i = 0; i < sizeof add / sizeof *add; i++)
        argv[k++] = xstrdup(add[i]);
    if (o->batch) {
        argv[k++] = xstrdup("-o");
        argv[k++] = xstrdup("BatchMode=yes");
    }
    if (port[0]) {
        argv[k++] = xstrdup("-p");
        argv[k++] = xstrdup(port);
    }
    argv[k++] = xstrdup("--");
    argv[k++] = xstrdup(dest);
    argv[k++] = xstrdup(cmd);
    argv[k] = NULL;
    return argv;
}

static void free_argv(char **argv)
{
    for (char **a = argv; a && *a; a++)
        free(*a);
    free(argv);
}

/* Why ssh ended before the agent said HELLO. */
static void say_no_hello(remote *r, const remote_options *o, strbuf *err)
{
    reap_ssh(r, 5000);
    const char *rp = o->runner_path && *o->runner_path ? o->runner_path : "aotidbg-runner";
    int st = r->exit_status, code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    const char *words = ssh_words(r);
    const char *build = "build it there (cmake -S aotidbg -B build -DAOTIDBG_RUNNER_ONLY=ON && cmake --build build: "
                        "it needs only a C compiler and torch) and give --remote-runner /path/to/build/aotidbg-runner";
    if (code == 255)
        strbuf_addf(err, "ssh %s failed: %s", r->target, words);
    else if (code == 127)
        strbuf_addf(err, "no runner on %s: '%s' was not found%s; %s (%s)", r->target, rp,
                    strchr(rp, '/') ? "" : " on the PATH of a non-interactive ssh session there", build, words);
    else if (code == 126)
        strbuf_addf(err, "the runner %s on %s cannot be run (%s); %s", rp, r->target, words, build);
    else if (strstr(r->err_tail.buf ? r->err_tail.buf : "", "unknown argument '--serve'"))
        strbuf_addf(err, "the runner %s on %s is too old for --remote (it has no --serve; protocol %d is needed); "
                    "rebuild it there from this tree: %s", rp, r->target, PROTO_VERSION, build);
    else if (WIFSIGNALED(st))
        strbuf_addf(err, "ssh %s was killed by signal %d before the runner answered: %s", r->target, WTERMSIG(st),
                    words);
    else
        strbuf_addf(err, "the runner %s on %s ended (exit %d) before answering: %s", rp, r->target, code, words);
}

int remote_connect(remote **out, const remote_options *o, strbuf *err)
{
    *out = NULL;
    wordexp_t we;
    strbuf cmd = STRBUF_INIT;
    if (ssh_argv(o, &we, &cmd, err) < 0) {
        strbuf_release(&cmd);
        return -1;
    }
    char **argv = build_argv(o, &we, cmd.buf);
    wordfree(&we);
    strbuf_release(&cmd);
    signal(SIGPIPE, SIG_IGN);
    int sv[2], pe[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0 || pipe2(pe, O_CLOEXEC) < 0) {
        strbuf_addf(err, "socketpair/pipe: %s", strerror(errno));
        free_argv(argv);
        return -1;
    }
    pid_t pid = fork();
    if (pid == 0) {
        int s = sv[1], e = pe[1];
        if (s <= 2) s = fcntl(s, F_DUPFD_CLOEXEC, 10);
        if (e <= 2) e = fcntl(e, F_DUPFD_CLOEXEC, 10);
        if (dup2(s, 0) < 0 || dup2(s, 1) < 0 || dup2(e, 2) < 0)
            _exit(127);
        /* ^C is the front end's to interpret, not ssh's (it keeps SIG_IGN). */
        signal(SIGINT, SIG_IGN);
        signal(SIGQUIT, SIG_IGN);
        signal(SIGPIPE, SIG_DFL);
        execvp(argv[0], argv);
        dprintf(2, "aotidbg: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(255);
    }
    close(sv[1]);
    close(pe[1]);
    if (pid < 0) {
        strbuf_addf(err, "fork: %s", strerror(errno));
        close(sv[0]);
        close(pe[0]);
        free_argv(argv);
        return -1;
    }
    free_argv(argv);
    remote *r = xcalloc(1, sizeof *r);
    r->target = xstrdup(o->target);
    r->pid = pid;
    r->sock = sv[0];
    r->err_fd = pe[0];
    r->exit_status = -1;
    r->last_tx = mono_now_s();
    r->timeout_s = o->timeout_s;
    strbuf_init(&r->in, 0);
    strbuf_init(&r->queue, 0);
    strbuf_init(&r->replies, 0);
    strbuf_init(&r->err_tail, 0);
    strbuf_init(&r->err_new, 0);
    fcntl(r->sock, F_SETFL, fcntl(r->sock, F_GETFL) | O_NONBLOCK);
    fcntl(r->err_fd, F_SETFL, fcntl(r->err_fd, F_GETFL) | O_NONBLOCK);
    /* The agent's HELLO comes first, within --timeout (which also covers a
     * password typed on the terminal meanwhile). */
    strbuf perr = STRBUF_INIT;
    double started = mono_now_s();
    while (r->queue.len < 4 || r->queue.len < 4 + ((unsigned char)r->queue.buf[0] |
                                                   (unsigned char)r->queue.buf[1] << 8 |
                                                   (unsigned)(unsigned char)r->queue.buf[2] << 16)) {
        strbuf_reset(&perr);
        if (remote_pump(r, 1000, &perr) < 0) {
            if (r->in.len || r->queue.len || !strstr(perr.buf, "lost"))
                strbuf_add(err, perr.buf, perr.len);
            else
                say_no_hello(r, o, err);
            strbuf_release(&perr);
            remote_close(r);
            return -1;
        }
        if (o->timeout_s > 0 && mono_now_s() - started > o->timeout_s) {
            strbuf_addf(err, "the runner on %s did not say HELLO within %g s (--timeout; %zu bytes came)", o->target,
                        o->timeout_s, r->in.len + r->queue.len);
            strbuf_release(&perr);
            remote_close(r);
            return -1;
        }
    }
    strbuf_release(&perr);
    proto_msg h;
    arena a = ARENA_INIT;
    strbuf derr = STRBUF_INIT;
    long used = proto_decode((const unsigned char *)r->queue.buf, r->queue.len, &h, &a, &derr);
    if (used <= 0)
        strbuf_addf(err, "the runner on %s began with a malformed frame #0 (%zu bytes, type %u): %s", o->target,
                    r->queue.len, r->queue.len > 4 ? (unsigned char)r->queue.buf[4] : 0u, derr.buf);
    strbuf_release(&derr);
    if (used <= 0 || h.type != PROTO_HELLO) {
        if (used > 0)
            strbuf_addf(err, "the runner on %s began with %s instead of HELLO", o->target, proto_type_name(h.type));
        arena_release(&a);
        remote_close(r);
        return -1;
    }
    if (h.u.hello.version != PROTO_VERSION) {
        strbuf_addf(err, "the runner on %s (aotidbg-runner %s) speaks protocol %u, this aotidbg speaks %d: rebuild "
                    "one of them from the other's tree (`aotidbg-runner --version` there says which it is)",
                    o->target, h.u.hello.runner_version, h.u.hello.version, PROTO_VERSION);
        arena_release(&a);
        remote_close(r);
        return -1;
    }
    r->torch_version = xstrdup(h.u.hello.torch_version);
    memmove(r->queue.buf, r->queue.buf + used, r->queue.len - (size_t)used);
    strbuf_setlen(&r->queue, r->queue.len - (size_t)used);
    arena_release(&a);
    *out = r;
    return 0;
}

const char *remote_local_dir(remote *r, strbuf *err)
{
    if (r->local_dir)
        return r->local_dir;
    r->local_dir = private_dir_make("aotidbg-remote", err);   /* also removes a killed run's folders */
    return r->local_dir;
}


void remote_close(remote *r)
{
    if (!r)
        return;
    /* EOF on ssh's stdin ends the session; the agent cleans up after itself. */
    fd_close(&r->sock);
    if (!reap_ssh(r, 5000)) {
        kill(r->pid, SIGTERM);
        if (!reap_ssh(r, 2000)) {
            kill(r->pid, SIGKILL);
            reap_ssh(r, 5000);
        }
    }
    fd_close(&r->err_fd);
    strbuf_release(&r->in);
    strbuf_release(&r->queue);
    strbuf_release(&r->replies);
    strbuf_release(&r->err_tail);
    strbuf_release(&r->err_new);
    if (r->local_dir)
        private_dir_remove(r->local_dir);
    free(r->local_dir);
    free(r->target);
    free(r->torch_version);
    free(r);
}
