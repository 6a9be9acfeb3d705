/* channel.c — framing over the protocol socket (channel.h). */
#define _GNU_SOURCE
#include "channel.h"
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int chan_fd = -1;
static strbuf out = STRBUF_INIT, in = STRBUF_INIT;
static size_t in_off;                 /* bytes of `in` already decoded */

/* `out` (frames encoded, not yet written) is shared by the model thread, which
 * appends, and the flusher thread, which writes it every CHAN_FLUSH_MS; mu
 * guards it, and is held across the write so that frames keep their order.
 * committed: out's length at the last whole frame, for the fatal-signal flush. */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static atomic_size_t committed;
static atomic_int writing, dying, gone;

/* Frames queued before a write that the model thread does itself. */
#define CHAN_PENDING_MAX (256u << 10)
#define CHAN_FLUSH_MS 10

static int write_all(const char *buf, size_t len)
{
    size_t off = 0;
    while (off < len) {
        ssize_t w = write(chan_fd, buf + off, len - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        off += (size_t)w;
    }
    return 0;
}

static int flush_locked(void)
{
    if (atomic_load(&gone)) return -1;
    if (!out.len) return 0;
    atomic_store(&writing, 1);
    if (atomic_load(&dying)) {   /* the fatal-signal flush writes instead */
        atomic_store(&writing, 0);
        return 0;
    }
    int rc = write_all(out.buf, out.len);
    strbuf_reset(&out);
    atomic_store(&committed, 0);
    atomic_store(&writing, 0);
    if (out.alloc > (4u << 20)) strbuf_release(&out);   /* don't keep a huge TENSOR's buffer */
    if (rc) atomic_store(&gone, 1);
    return rc;
}

static void *flusher(void *arg)
{
    (void)arg;
    struct timespec ts = {0, CHAN_FLUSH_MS * 1000000L};
    for (;;) {
        nanosleep(&ts, NULL);
        if (atomic_load(&dying) || atomic_load(&gone)) return NULL;
        if (!atomic_load(&committed)) continue;   /* nothing queued: no lock */
        pthread_mutex_lock(&mu);
        flush_locked();
        pthread_mutex_unlock(&mu);
    }
}

void chan_open(int fd)
{
    chan_fd = fd;
    pthread_t th;
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    /* a fatal signal sent from outside lands on another thread: its handler waits for our write */
    sigset_t block, old;
    sigemptyset(&block);
    int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGUSR1};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) sigaddset(&block, sigs[i]);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    if (pthread_create(&th, &at, flusher, NULL))   /* then frames go out at the next send, stop or read */
        fprintf(stderr, "aotidbg-runner: no flusher thread; queued launches go out at the next stop or 256 KiB\n");
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&at);
}

void chan_crash_flush(void)
{
    atomic_store(&dying, 1);
    /* a write under way finishes first (at most ~2 s: the peer may not be reading) */
    for (int i = 0; i < 2000 && atomic_load(&writing); i++) {
        struct timespec ts = {0, 1000000L};
        nanosleep(&ts, NULL);
    }
    if (atomic_load(&writing) || atomic_load(&gone)) return;
    size_t n = atomic_load(&committed);
    if (n && out.buf) write_all(out.buf, n);
}

int chan_flush(void)
{
    pthread_mutex_lock(&mu);
    int rc = flush_locked();
    pthread_mutex_unlock(&mu);
    return rc;
}

int chan_send_later(const proto_msg *m)
{
    strbuf err = STRBUF_INIT;
    pthread_mutex_lock(&mu);
    size_t len0 = out.len;
    if (proto_encode(&out, m, &err)) {
        strbuf_setlen(&out, len0);
        pthread_mutex_unlock(&mu);
        fprintf(stderr, "aotidbg-runner: %s\n", err.buf);
        strbuf_release(&err);
        return -1;
    }
    atomic_store(&committed, out.len);
    int rc = out.len >= CHAN_PENDING_MAX ? flush_locked() : atomic_load(&gone) ? -1 : 0;
    pthread_mutex_unlock(&mu);
    return rc;
}

int chan_send(const proto_msg *m)
{
    return chan_send_later(m) ? -1 : chan_flush();
}

int chan_recv(proto_msg *m, arena *a, strbuf *err)
{
    for (;;) {
        long r = proto_decode((unsigned char *)in.buf + in_off, in.len - in_off, m, a, err);
        if (r < 0) return -1;
        if (r > 0) {
            in_off += (size_t)r;
            return 1;
        }
        if (in_off) {                  /* compact before reading more */
            size_t rest = in.len - in_off;
            memmove(in.buf, in.buf + in_off, rest);
            strbuf_setlen(&in, rest);
            in_off = 0;
        }
        if (chan_flush()) return 0;   /* the peer answers what it has seen */
        strbuf_grow(&in, 65536);
        ssize_t n = read(chan_fd, in.buf + in.len, in.alloc - in.len - 1);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return 0;
        strbuf_setlen(&in, in.len + (size_t)n);
    }
}
