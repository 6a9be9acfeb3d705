/* stderr_tap.c — fd 2 through a pipe: forwarded at once, tail kept (stderr_tap.h). */
#define _GNU_SOURCE
#include "stderr_tap.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct {
    int on;
    int rfd;                 /* the pipe's read end, non-blocking */
    int orig;                /* the stderr we were started with */
    pthread_mutex_t mu;      /* ring, total, and the right to read rfd */
    char ring[STAP_RING];
    uint64_t total;
} T = {.rfd = -1, .orig = -1, .mu = PTHREAD_MUTEX_INITIALIZER};

static void write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return;   /* the front end is gone: keep recording anyway */
        p += w;
        n -= (size_t)w;
    }
}

/* Reads what the pipe holds, forwards it and records it. Caller holds mu. */
static int pump_locked(void)
{
    char buf[4096];
    for (;;) {
        ssize_t n = read(T.rfd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n == 0) return -1;                 /* every writer closed: end the thread */
        if (n < 0) return 0;                   /* EAGAIN: empty */
        write_all(T.orig, buf, (size_t)n);
        for (ssize_t i = 0; i < n; i++) T.ring[(T.total + (uint64_t)i) % STAP_RING] = buf[i];
        T.total += (uint64_t)n;
    }
}

static void *forwarder(void *arg)
{
    (void)arg;
    for (;;) {
        struct pollfd p = {T.rfd, POLLIN, 0};
        if (poll(&p, 1, -1) < 0) {
            if (errno == EINTR) continue;
            return NULL;
        }
        pthread_mutex_lock(&T.mu);
        int r = pump_locked();
        pthread_mutex_unlock(&T.mu);
        if (r < 0) return NULL;
    }
}

/* Dying: pass on what is still in the pipe (read/write only: async-signal-safe), then die as asked. */
static void (*fatal_hook)(void);

void stap_on_fatal(void (*fn)(void)) { fatal_hook = fn; }

static void on_fatal(int sig)
{
    if (fatal_hook) fatal_hook();
    char buf[4096];
    ssize_t n;
    while ((n = read(T.rfd, buf, sizeof buf)) > 0) write_all(T.orig, buf, (size_t)n);
    signal(sig, SIG_DFL);
    raise(sig);
}

int stap_start(void)
{
    if (T.on) return 0;
    int p[2];
    if (pipe2(p, O_CLOEXEC)) return -1;
    int orig = fcntl(2, F_DUPFD_CLOEXEC, 3);
    if (orig < 0) {
        close(p[0]);
        close(p[1]);
        return -1;
    }
    fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK);
    T.rfd = p[0];
    T.orig = orig;
    fflush(stderr);
    if (dup2(p[1], 2) < 0) {
        close(p[0]);
        close(p[1]);
        close(orig);
        return -1;
    }
    close(p[1]);
    pthread_t th;
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    /* Default stack size: glibc carves static TLS out of the thread's stack, and with
     * libtorch_cuda loaded a small stack made pthread_create fail on the H200. */
    if (pthread_create(&th, &at, forwarder, NULL)) {   /* put stderr back */
        dup2(orig, 2);
        close(orig);
        close(p[0]);
        pthread_attr_destroy(&at);
        return -1;
    }
    pthread_attr_destroy(&at);
    T.on = 1;
    atexit(stap_drain);   /* a normal exit must not drop what is still in the pipe */
    int fatal[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
    for (size_t i = 0; i < sizeof fatal / sizeof *fatal; i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fatal;
        sa.sa_flags = SA_RESETHAND | SA_NODEFER;
        sigemptyset(&sa.sa_mask);
        sigaction(fatal[i], &sa, NULL);
    }
    return 0;
}

void stap_drain(void)
{
    if (!T.on) return;
    fflush(stderr);
    pthread_mutex_lock(&T.mu);
    pump_locked();
    pthread_mutex_unlock(&T.mu);
}

uint64_t stap_mark(void)
{
    if (!T.on) return 0;
    stap_drain();
    pthread_mutex_lock(&T.mu);
    uint64_t t = T.total;
    pthread_mutex_unlock(&T.mu);
    return t;
}

static int starts(const char *s, size_t n, const char *pre)
{
    size_t k = strlen(pre);
    return n >= k && !memcmp(s, pre, k);
}

/* Line [s, s+n) with a trailing \r and leading blanks trimmed. */
static const char *trim(const char *s, size_t *n)
{
    while (*n && (*s == ' ' || *s == '\t')) s++, (*n)--;
    while (*n && (s[*n - 1] == '\r' || s[*n - 1] == ' ')) (*n)--;
    return s;
}

int stap_model_error(uint64_t mark, strbuf *out)
{
    if (!T.on) return 0;
    stap_drain();
    char *text = malloc(STAP_RING + 1);
    if (!text) return 0;
    pthread_mutex_lock(&T.mu);
    uint64_t from = mark;
    if (T.total - from > STAP_RING) from = T.total - STAP_RING;
    size_t len = (size_t)(T.total - from);
    for (size_t i = 0; i < len; i++) text[i] = T.ring[(from + i) % STAP_RING];
    pthread_mutex_unlock(&T.mu);
    text[len] = 0;
    /* scan lines; remember the last "Error: " line and the exception lines just before it */
    enum { MAXL = 4 };
    const char *exc[MAXL];
    size_t exc_n[MAXL];
    int nexc = 0;                       /* exception lines since the last Error line */
    const char *err_s = NULL, *last_exc = NULL;
    size_t err_n = 0, last_exc_n = 0;
    const char *found_exc[MAXL];
    size_t found_exc_n[MAXL];
    int nfound = 0;
    for (size_t i = 0; i < len;) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t n = nl ? (size_t)(nl - (text + i)) : len - i;
        const char *s = text + i;
        size_t tn = n;
        s = trim(s, &tn);
        /* torch prefixes it with a log header: "[E1130 03:31:53.312 c_shim_cpu.cpp:594] Exception ..." */
        const char *ex = memmem(s, tn, "Exception in aoti_torch:", 24);
        if (ex) {
            tn -= (size_t)(ex - s);
            s = ex;
            if (nexc == MAXL) {
                memmove(exc, exc + 1, (MAXL - 1) * sizeof *exc);
                memmove(exc_n, exc_n + 1, (MAXL - 1) * sizeof *exc_n);
                nexc--;
            }
            exc[nexc] = s;
            exc_n[nexc++] = tn;
            last_exc = s;
            last_exc_n = tn;
        } else if (starts(s, tn, "Error: ")) {
            err_s = s;
            err_n = tn;
            nfound = nexc;
            memcpy(found_exc, exc, sizeof exc);
            memcpy(found_exc_n, exc_n, sizeof exc_n);
            nexc = 0;
            last_exc = NULL;
        }
        i += n + 1;
    }
    int r = 0;
    if (err_s) {
        for (int k = 0; k < nfound; k++) {
            strbuf_add(out, found_exc[k], found_exc_n[k]);
            strbuf_addch(out, '\n');
        }
        strbuf_add(out, err_s, err_n);
        r = 1;
    } else if (last_exc) {
        strbuf_add(out, last_exc, last_exc_n);
        r = 1;
    }
    free(text);
    return r;
}
