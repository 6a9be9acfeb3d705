/* agent.c — the remote agent (`aotidbg-agent --serve`, or `aotidbg-runner
 * --serve`): the GPU box's end of `aotidbg --remote`.
 *
 * Started on the GPU box through ssh, it speaks the protocol (protocol.h,
 * "Remote") on its stdin and stdout for one front-end session: it answers
 * the front end's questions about the package and the box (FREAD, SHA256,
 * FACTS, EXTRACT, PUT), and on SPAWN starts a model runner as its child,
 * exactly as the local front end would (socket on fd 3, pipes for stdout and
 * stderr), relaying whole frames both ways, the child's output as LOG and its
 * end as EXIT. A restart is another SPAWN on the same connection: the
 * package is extracted once per session.
 *
 * Lifetime: the agent ends when its stdin closes (ssh went away), when
 * nothing arrived for its idle limit (--idle S; the front end PINGs), or on
 * SIGTERM/SIGHUP/SIGINT; it then kills its runner (which also dies with it
 * through PR_SET_PDEATHSIG, should the agent be killed outright) and removes
 * its private folder. No model runner outlives the connection.
 *
 * It does not load libtorch (aotidbg-agent is a small program beside the
 * runner; starting it costs milliseconds, not the second libtorch takes), so
 * the runner it spawns, and `RUNNER --check-so` for FACTS, are the only
 * processes that do.
 *
 * Single-threaded: one poll() loop. Writes to stdout are whole frames, so
 * the agent's own frames never land inside a relayed one. Requests are
 * answered in order; SHA256 and FACTS block the loop while they run (they
 * come before a run, when nothing else flows). */
#define _GNU_SOURCE
#include "private_dir.h"
#include "agent.h"
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "fdio.h"
#include "host_facts.h"
#include "paths.h"
#include "proto_spawn.h"
#include "protocol.h"
#include "zipread.h"
#include "compat.h"

#define AGENT_IDLE_DEFAULT_S 300
#define READ_CHUNK (1 << 16)

static volatile sig_atomic_t quit_sig;
static void on_quit(int sig) { quit_sig = sig; }

static struct {
    int in, out;                 /* the front end (ssh's stdin / stdout) */
    strbuf inbuf;
    double idle_s, last_rx;
    char dir[1024];              /* private folder; "" until needed */
    /* the spawned runner */
    pid_t pid;
    int sock, cout, cerr;
    strbuf cbuf;                 /* its frames not yet whole */
    /* FREAD's open file, kept between ranges */
    char rpath[PATH_MAX];
    int rfd;
    /* last EXTRACT */
    char xpath[PATH_MAX], xdir[PATH_MAX];
    unsigned nextract;
    /* PUT errors are reported with the last piece */
    strbuf put_err;
    const char *runner;          /* the runner it spawns */
} A = {.in = -1, .out = -1, .pid = -1, .sock = -1, .cout = -1, .cerr = -1, .rfd = -1};

/* Sends one of the agent's own frames; the front end gone means we go too. */
static void send_frame(const proto_msg *m)
{
    strbuf b = STRBUF_INIT, err = STRBUF_INIT;
    if (proto_encode(&b, m, &err) < 0)
        fprintf(stderr, "aotidbg-agent: %s\n", err.buf);
    else if (fd_write_all(A.out, b.buf, b.len) < 0)
        quit_sig = SIGPIPE;
    strbuf_release(&b);
    strbuf_release(&err);
}

static void reply(uint8_t req, int ok, int64_t value, const char *text, const void *data, uint32_t n)
{
    proto_msg m = {.type = PROTO_REPLY};
    m.u.reply.request = req;
    m.u.reply.ok = (uint8_t)ok;
    m.u.reply.value = value;
    m.u.reply.text = text;
    m.u.reply.data = data;
    m.u.reply.ndata = n;
    send_frame(&m);
}

static void reply_err(uint8_t req, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void reply_err(uint8_t req, const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    reply(req, 0, -1, buf, NULL, 0);
}

static int make_dir(strbuf *err)
{
    if (A.dir[0])
        return 0;
    char *dir = private_dir_make("aotidbg-remote", err);   /* also removes a killed agent's folders */
    if (!dir || strlen(dir) >= sizeof A.dir) {
        if (dir)
            strbuf_addf(err, "the private folder's path is too long: %s", dir);
        strbuf_addstr(err, " (on this box)");
        private_dir_remove(dir);
        free(dir);
        return -1;
    }
    memcpy(A.dir, dir, strlen(dir) + 1);
    free(dir);
    return 0;
}


/* ---- the runner child -------------------------------------------------- */

static void send_log(int stream, const char *data, size_t n)
{
    proto_msg m = {.type = PROTO_LOG};
    m.u.log.stream = (uint8_t)stream;
    while (n) {
        size_t k = n < PROTO_MAX_DATA ? n : PROTO_MAX_DATA;
        m.u.log.data = data;
        m.u.log.ndata = (uint32_t)k;
        send_frame(&m);
        data += k;
        n -= k;
    }
}

/* Forwards every whole frame the runner sent; returns -1 on a corrupt length. */
static int relay_child_frames(void)
{
    size_t off = 0;
    while (A.cbuf.len - off >= 4) {
        const unsigned char *p = (const unsigned char *)A.cbuf.buf + off;
        uint32_t n = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
        if (n == 0 || n > PROTO_MAX_FRAME)
            return -1;
        if (A.cbuf.len - off - 4 < n)
            break;
        if (fd_write_all(A.out, (const char *)p, (size_t)n + 4) < 0)
            quit_sig = SIGPIPE;
        off += (size_t)n + 4;
    }
    if (off) {
        memmove(A.cbuf.buf, A.cbuf.buf + off, A.cbuf.len - off);
        strbuf_setlen(&A.cbuf, A.cbuf.len - off);
    }
    return 0;
}

/* Reads what one of the runner's fds holds; 1 at its end. */
static int drain_child_fd(int *fd, int which, int wait_ms)
{
    char buf[READ_CHUNK];
    for (int k = 0; k < 256 && *fd >= 0; k++) {
        ssize_t r = read(*fd, buf, sizeof buf);
        if (r > 0) {
            if (which == 0) {
                strbuf_add(&A.cbuf, buf, (size_t)r);
                if (relay_child_frames() < 0) {
                    fprintf(stderr, "aotidbg-agent: the runner sent a corrupt frame; killing it\n");
                    if (A.pid > 0)
                        kill(A.pid, SIGKILL);
                    fd_close(fd);
                    return 1;
                }
            } else {
                send_log(which - 1, buf, (size_t)r);
            }
            continue;
        }
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && errno == EAGAIN && wait_ms > 0) {
            struct pollfd pf = {*fd, POLLIN, 0};
            if (poll(&pf, 1, wait_ms) > 0)
                continue;
        }
        if (r == 0 || (r < 0 && errno != EAGAIN)) {
            fd_close(fd);
            return 1;
        }
        break;
    }
    return 0;
}

/* The runner ended (status from waitpid): its last words, then EXIT. */
static void child_ended(int status)
{
    drain_child_fd(&A.sock, 0, 200);
    drain_child_fd(&A.cout, 1, 200);
    drain_child_fd(&A.cerr, 2, 200);
    fd_close(&A.sock);
    fd_close(&A.cout);
    fd_close(&A.cerr);
    strbuf_reset(&A.cbuf);
    A.pid = -1;
    proto_msg m = {.type = PROTO_EXIT};
    m.u.exit.how = WIFSIGNALED(status) ? 1 : 0;
    m.u.exit.code = WIFSIGNALED(status) ? WTERMSIG(status) : WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    send_frame(&m);
}

static void kill_child(void)
{
    if (A.pid <= 0)
        return;
    kill(A.pid, SIGKILL);
    int st = 0;
    while (waitpid(A.pid, &st, 0) < 0 && errno == EINTR)
        ;
    child_ended(st);
}

static void spawn_child(uint32_t flags)
{
    kill_child();
    proto_spawn_options so = {.set_one = flags & PROTO_SPAWN_DETERMINISTIC ? host_env_names : NULL,
                              .die_with_parent = 1};   /* no runner outlives the agent */
    proto_child c;
    strbuf err = STRBUF_INIT;
    if (proto_spawn_runner(A.runner, &so, &c, &err) < 0) {
        strbuf msg = STRBUF_INIT;
        strbuf_addf(&msg, "aotidbg-agent: cannot start a runner: %s\n", err.buf);
        send_log(1, msg.buf, msg.len);
        strbuf_release(&msg);
        proto_msg m = {.type = PROTO_EXIT};
        m.u.exit.code = 127;
        send_frame(&m);
    } else {
        A.pid = c.pid;
        A.sock = c.sock;
        A.cout = c.out;
        A.cerr = c.err;
        strbuf_reset(&A.cbuf);
    }
    strbuf_release(&err);
}

/* ---- requests ------------------------------------------------------------ */

static void do_fread(const proto_msg *m)
{
    const char *path = m->u.fread.path;
    if (A.rfd < 0 || strcmp(A.rpath, path)) {
        fd_close(&A.rfd);
        A.rfd = open(path, O_RDONLY | O_CLOEXEC);
        if (A.rfd < 0) {
            reply_err(PROTO_FREAD, "%s: %s", path, strerror(errno));
            return;
        }
        snprintf(A.rpath, sizeof A.rpath, "%s", path);
    }
    struct stat st;
    if (fstat(A.rfd, &st) < 0 || !S_ISREG(st.st_mode)) {
        reply_err(PROTO_FREAD, "%s: not a regular file", path);
        fd_close(&A.rfd);
        return;
    }
    uint64_t size = (uint64_t)st.st_size, off = m->u.fread.offset;
    size_t len = m->u.fread.len > PROTO_MAX_DATA ? PROTO_MAX_DATA : m->u.fread.len;
    if (off > size)
        off = size;
    if (len > size - off)
        len = (size_t)(size - off);
    char *buf = xmalloc(len ? len : 1);
    size_t got = 0;
    while (got < len) {
        ssize_t r = pread(A.rfd, buf + got, len - got, (off_t)(off + got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    if (got < len)
        reply_err(PROTO_FREAD, "%s: read failed at byte %llu", path, (unsigned long long)(off + got));
    else
        reply(PROTO_FREAD, 1, (int64_t)size, "", buf, (uint32_t)got);
    free(buf);
}

/* Runs argv with stdout into out (capped); returns the exit status or -1. */
static int run_capture(char *const argv[], strbuf *out, size_t cap)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) < 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(p[1], 1);
        int nul = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (nul >= 0) {
            dup2(nul, 0);
            dup2(nul, 2);
        }
        execvp(argv[0], argv);
        _exit(127);
    }
    close(p[1]);
    if (pid < 0) {
        close(p[0]);
        return -1;
    }
    char buf[4096];
    for (;;) {
        ssize_t r = read(p[0], buf, sizeof buf);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        if (out->len < cap)
            strbuf_add(out, buf, (size_t)r);
    }
    close(p[0]);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The package's hash by coreutils' sha256sum (on every Linux box). */
static void do_sha256(const proto_msg *m)
{
    strbuf out = STRBUF_INIT;
    char *argv[] = {"sha256sum", "--", (char *)m->u.sha256.path, NULL};
    int st = run_capture(argv, &out, 1 << 16);
    size_t hex = strspn(out.buf, "0123456789abcdef");
    if (st != 0 || hex != 64)
        reply_err(PROTO_SHA256, "sha256sum %s failed (exit %d)%s", m->u.sha256.path, st,
                  st == 127 ? ": no sha256sum on PATH" : "");
    else {
        out.buf[64] = 0;
        reply(PROTO_SHA256, 1, 0, out.buf, NULL, 0);
    }
    strbuf_release(&out);
}

static void do_facts(const proto_msg *m)
{
    host_facts hf;
    const char *so = m->u.facts.path;
    strbuf so_out = STRBUF_INIT;
    int so_st = 0;
    if (so[0]) {   /* a fresh process loads it, so nothing of the model stays in the agent */
        char *argv[] = {(char *)A.runner, "--check-so", (char *)so, NULL};
        so_st = run_capture(argv, &so_out, 4096);
    }
    host_facts_probe(&hf);
    snprintf(hf.runner, sizeof hf.runner, "%s, protocol %d", A.runner, PROTO_VERSION);
    if (so[0]) {
        hf.so_checked = 1;
        while (so_out.len && (so_out.buf[so_out.len - 1] == '\n'))
            strbuf_setlen(&so_out, so_out.len - 1);
        if (so_st != 0)
            snprintf(hf.so_error, sizeof hf.so_error, "%s", so_out.len ? so_out.buf : "the loader failed");
    }
    strbuf t = STRBUF_INIT;
    host_facts_format(&hf, &t);
    reply(PROTO_FACTS, 1, 0, t.buf, NULL, 0);
    strbuf_release(&t);
    strbuf_release(&so_out);
    host_facts_release(&hf);
}

static void do_extract(const proto_msg *m)
{
    strbuf err = STRBUF_INIT;
    const char *path = m->u.extract.path;
    char *pre = xstrdup(m->u.extract.prefixes);
    const char *list[64];
    size_t n = 0;
    for (char *t = strtok(pre, "\n"); t && n < 64; t = strtok(NULL, "\n"))
        list[n++] = t;
    const char *slash = n ? strchr(list[0], '/') : NULL;
    size_t strip = slash ? (size_t)(slash - list[0]) + 1 : 0;
    zipread z;
    size_t nfiles = 0;
    if (!n || !strip) {
        reply_err(PROTO_EXTRACT, "EXTRACT needs prefixes under the archive's root folder");
        goto out;
    }
    if (make_dir(&err) < 0) {
        reply_err(PROTO_EXTRACT, "%s", err.buf);
        goto out;
    }
    if (!A.xdir[0] || strcmp(A.xpath, path)) {   /* a new package: a new folder */
        snprintf(A.xdir, sizeof A.xdir, "%s/pkg%u", A.dir, ++A.nextract);
        snprintf(A.xpath, sizeof A.xpath, "%s", path);
        if (mkdir(A.xdir, 0700) < 0 && errno != EEXIST) {
            reply_err(PROTO_EXTRACT, "%s: %s", A.xdir, strerror(errno));
            A.xdir[0] = 0;
            goto out;
        }
    }
    if (zr_open(&z, path, &err) < 0) {
        reply_err(PROTO_EXTRACT, "%s", err.buf);
        goto out;
    }
    if (zr_extract(&z, list, n, strip, A.xdir, &nfiles, &err) < 0)
        reply_err(PROTO_EXTRACT, "%s", err.buf);
    else
        reply(PROTO_EXTRACT, 1, (int64_t)nfiles, A.xdir, NULL, 0);
    zr_close(&z);
out:
    free(pre);
    strbuf_release(&err);
}

static void do_put(const proto_msg *m)
{
    const char *name = m->u.put.name;
    char path[PATH_MAX] = "";
    if (!A.put_err.len) {
        if (strchr(name, '/') || path_unsafe_entry(name))
            strbuf_addf(&A.put_err, "PUT: '%s' is not a plain file name", name);
        else if (make_dir(&A.put_err) == 0) {
            snprintf(path, sizeof path, "%s/push", A.dir);
            if (mkdir(path, 0700) < 0 && errno != EEXIST)
                strbuf_addf(&A.put_err, "%s: %s", path, strerror(errno));
            snprintf(path, sizeof path, "%s/push/%s", A.dir, name);
        }
    }
    if (!A.put_err.len) {
        int fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | (m->u.put.offset ? 0 : O_TRUNC), 0600);
        ssize_t w = -1;
        if (fd >= 0) {
            w = pwrite(fd, m->u.put.data, m->u.put.ndata, (off_t)m->u.put.offset);
            if (close(fd) < 0)
                w = -1;
        }
        if (w != (ssize_t)m->u.put.ndata)
            strbuf_addf(&A.put_err, "writing %s: %s", path, strerror(errno));
    }
    if (!m->u.put.last)
        return;
    if (A.put_err.len)
        reply_err(PROTO_PUT, "%s", A.put_err.buf);
    else
        reply(PROTO_PUT, 1, 0, path, NULL, 0);
    strbuf_reset(&A.put_err);
}

/* Handles whole frames from the front end; -1 on garbage. */
static int take_input(void)
{
    size_t off = 0;
    int rc = 0;
    while (A.inbuf.len - off >= 5) {
        const unsigned char *p = (const unsigned char *)A.inbuf.buf + off;
        uint32_t n = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
        if (n == 0 || n > PROTO_MAX_FRAME) {
            fprintf(stderr, "aotidbg-agent: corrupt frame from the front end (length %u)\n", n);
            rc = -1;
            break;
        }
        if (A.inbuf.len - off - 4 < n)
            break;
        uint8_t type = p[4];
        if (type >= PROTO_LOAD && type < PROTO_FREAD) {       /* for the runner (16..31: CONSTANT, REFERENCE, LAUNCHES too) */
            if (A.sock >= 0 && fd_write_all(A.sock, (const char *)p, (size_t)n + 4) < 0)
                fd_close(&A.sock);   /* it died; its EXIT is on the way */
        } else {
            proto_msg m;
            arena a = ARENA_INIT;
            strbuf err = STRBUF_INIT;
            if (proto_decode(p, (size_t)n + 4, &m, &a, &err) < 0) {
                fprintf(stderr, "aotidbg-agent: %s\n", err.buf);
                rc = -1;
            } else {
                switch (m.type) {
                case PROTO_FREAD: do_fread(&m); break;
                case PROTO_SHA256: do_sha256(&m); break;
                case PROTO_FACTS: do_facts(&m); break;
                case PROTO_EXTRACT: do_extract(&m); break;
                case PROTO_PUT: do_put(&m); break;
                case PROTO_SPAWN: spawn_child(m.u.spawn.flags); break;
                case PROTO_SIGNAL:
                    if (A.pid > 0)
                        kill(A.pid, m.u.signal.what == PROTO_SIGNAL_KILL ? SIGKILL : SIGUSR1);
                    break;
                case PROTO_PING: break;
                default:
                    fprintf(stderr, "aotidbg-agent: unexpected %s from the front end\n",
                            proto_type_name(m.type));
                    rc = -1;
                }
            }
            arena_release(&a);
            strbuf_release(&err);
            if (rc < 0)
                break;
        }
        off += (size_t)n + 4;
    }
    if (off) {
        memmove(A.inbuf.buf, A.inbuf.buf + off, A.inbuf.len - off);
        strbuf_setlen(&A.inbuf, A.inbuf.len - off);
    }
    return rc;
}

static void agent_cleanup(void)
{
    kill_child();
    fd_close(&A.rfd);
    if (A.dir[0])
        private_dir_remove(A.dir);
    A.dir[0] = 0;
}

int agent_main(int argc, char **argv, const char *runner, const char *torch_version)
{
    A.idle_s = AGENT_IDLE_DEFAULT_S;
    A.runner = runner;
    for (int i = 0; i < argc; i++) {
        char *end;
        if (!strcmp(argv[i], "--runner") && i + 1 < argc) {
            A.runner = argv[++i];
        } else if (!strcmp(argv[i], "--idle") && i + 1 < argc) {
            A.idle_s = strtod(argv[++i], &end);
            if (*end || !(A.idle_s > 0)) {
                fprintf(stderr, "aotidbg-agent: --idle needs seconds > 0, got '%s'\n", argv[i]);
                return 2;
            }
        } else {
            fprintf(stderr, "aotidbg-agent: unknown argument '%s'\n", argv[i]);
            return 2;
        }
    }
    if (!A.runner || access(A.runner, X_OK) != 0) {
        fprintf(stderr, "aotidbg-agent: the runner %s cannot be run: %s\n", A.runner ? A.runner : "(none: give --runner)",
                A.runner ? strerror(errno) : "");
        return 127;
    }
    /* The protocol owns stdin/stdout; stray prints (libraries, us) go to stderr. */
    A.in = fcntl(0, F_DUPFD_CLOEXEC, 10);
    A.out = fcntl(1, F_DUPFD_CLOEXEC, 10);
    if (A.in < 0 || A.out < 0) {
        fprintf(stderr, "aotidbg-agent: stdin/stdout are not open\n");
        return 2;
    }
    int nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (nul >= 0)
        dup2(nul, 0);
    dup2(2, 1);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_quit;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    strbuf_init(&A.inbuf, 0);
    strbuf_init(&A.cbuf, 0);
    strbuf_init(&A.put_err, 0);

    proto_msg hello = {.type = PROTO_HELLO};
    hello.u.hello.version = PROTO_VERSION;
    hello.u.hello.runner_version = AOTIDBG_VERSION;
    hello.u.hello.torch_version = torch_version;   /* "" from aotidbg-agent: the runner's HELLO says */
    hello.u.hello.pid = getpid();
    hello.u.hello.cuda_device_count = -1;   /* FACTS says; the spawned runner's HELLO too */
    hello.u.hello.gpu_peak_gbps = -1;
    send_frame(&hello);

    int code = 0;
    A.last_rx = mono_now_s();
    while (!quit_sig) {
        struct pollfd p[4] = {{A.in, POLLIN, 0}, {A.sock, POLLIN, 0}, {A.cout, POLLIN, 0}, {A.cerr, POLLIN, 0}};
        int r = poll(p, 4, A.pid > 0 ? 100 : 1000);
        if (r < 0 && errno != EINTR)
            break;
        if (p[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            strbuf_grow(&A.inbuf, READ_CHUNK);
            ssize_t n = read(A.in, A.inbuf.buf + A.inbuf.len, READ_CHUNK);
            if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
                break;                      /* the connection is gone */
            if (n > 0) {
                strbuf_setlen(&A.inbuf, A.inbuf.len + (size_t)n);
                A.last_rx = mono_now_s();
                if (take_input() < 0) {
                    code = 2;
                    break;
                }
            }
        }
        if (p[1].revents & (POLLIN | POLLHUP | POLLERR))
            drain_child_fd(&A.sock, 0, 0);
        if (p[2].revents & (POLLIN | POLLHUP | POLLERR))
            drain_child_fd(&A.cout, 1, 0);
        if (p[3].revents & (POLLIN | POLLHUP | POLLERR))
            drain_child_fd(&A.cerr, 2, 0);
        if (A.pid > 0) {
            int st;
            if (waitpid(A.pid, &st, WNOHANG) == A.pid)
                child_ended(st);
        }
        if (mono_now_s() - A.last_rx > A.idle_s) {
            fprintf(stderr, "aotidbg-agent: nothing from the front end for %g s; leaving\n", A.idle_s);
            code = 1;
            break;
        }
    }
    agent_cleanup();
    return code;
}
