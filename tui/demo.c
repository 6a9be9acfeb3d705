/* demo.c — compiling the bundled demo model on first use (see demo.h). */
#define _GNU_SOURCE
#include "demo.h"
#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "actions.h"
#include "loop.h"
#include "paths.h"
#include "screen.h"
#include "compat.h"

static int readable(const char *p) { return access(p, R_OK) == 0; }

int demo_locate(demo_paths *d, strbuf *err)
{
    memset(d, 0, sizeof *d);
    const char *dd = aotidbg_data_dir();
    d->src = path_join(dd, "prepare/demo_model.py");      /* installed */
    if (!readable(d->src)) {
        free(d->src);
        d->src = path_join(dd, "core/prepare/demo_model.py");   /* source tree */
    }
    if (!readable(d->src)) {
        strbuf_addf(err, "the demo model's source is not installed (looked for %s/prepare/demo_model.py and "
                         "%s/core/prepare/demo_model.py); reinstall aotidbg or set AOTIDBG_DATA_DIR",
                    dd, dd);
        demo_paths_free(d);
        return -1;
    }
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (xdg && *xdg)
        d->dir = path_join(xdg, "aotidbg/demo");
    else if (home && *home)
        d->dir = path_join(home, ".cache/aotidbg/demo");
    else
        d->dir = xstrdup("/tmp/aotidbg-demo");
    d->pkg = path_join(d->dir, "demo.pt2");
    d->inputs = path_join(d->dir, "demo.inputs.yaml");
    if (!d->dir || !d->pkg || !d->inputs)
        abort();
    return 0;
}

void demo_paths_free(demo_paths *d)
{
    free(d->src);
    free(d->dir);
    free(d->pkg);
    free(d->inputs);
    memset(d, 0, sizeof *d);
}

int demo_ready(const demo_paths *d)
{
    return d->pkg && readable(d->pkg) && readable(d->inputs);
}

/* mkdir -p for the cache folder. */
static int make_dirs(const char *path, strbuf *err)
{
    char p[4096];
    snprintf(p, sizeof p, "%s", path);
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = 0;
        if (mkdir(p, 0755) < 0 && errno != EEXIST) {
            strbuf_addf(err, "cannot create %s: %s", p, strerror(errno));
            return -1;
        }
        *s = '/';
    }
    if (mkdir(p, 0755) < 0 && errno != EEXIST) {
        strbuf_addf(err, "cannot create %s: %s", p, strerror(errno));
        return -1;
    }
    return 0;
}

static const char *python(void)
{
    const char *py = getenv("AOTIDBG_PYTHON");
    return py && *py ? py : "python3";
}

static int demo_build_start(demo_build *b, const demo_paths *d, strbuf *err)
{
    memset(b, 0, sizeof *b);
    b->pid = -1;
    b->fd = b->log_fd = -1;
    strbuf_init(&b->why, 0);
    if (make_dirs(d->dir, err) < 0)
        return -1;
    char *log = path_join(d->dir, "build.log");
    b->log_fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    free(log);
    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC) < 0) {
        strbuf_addf(err, "pipe: %s", strerror(errno));
        return -1;
    }
    clock_gettime(CLOCK_MONOTONIC, &b->t0);
    pid_t pid = fork();
    if (pid < 0) {
        strbuf_addf(err, "fork: %s", strerror(errno));
        close(pfd[0]);
        close(pfd[1]);
        return -1;
    }
    if (pid == 0) {
        setpgid(0, 0);   /* its own group: a cancel also ends the compiler children */
        int nul = open("/dev/null", O_RDONLY);
        if (nul >= 0)
            dup2(nul, 0);
        dup2(pfd[1], 1);
        dup2(pfd[1], 2);
        execlp(python(), python(), d->src, d->dir, (char *)NULL);
        dprintf(2, "cannot start %s: %s\n", python(), strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid);
    close(pfd[1]);
    fcntl(pfd[0], F_SETFL, fcntl(pfd[0], F_GETFL) | O_NONBLOCK);
    b->pid = pid;
    b->fd = pfd[0];
    snprintf(b->line, sizeof b->line, "starting %s", python());
    return 0;
}

static void take_output(demo_build *b, const char *buf, size_t n)
{
    if (b->log_fd >= 0 && write(b->log_fd, buf, n) < 0) {
        close(b->log_fd);   /* a full disk must not stop the build */
        b->log_fd = -1;
    }
    for (size_t i = 0; i < n; i++) {
        char c = buf[i];
        if (c == '\n' || c == '\r') {
            if (b->plen) {
                b->partial[b->plen] = 0;
                snprintf(b->line, sizeof b->line, "%s", b->partial);
            }
            b->plen = 0;
        } else if (b->plen + 1 < sizeof b->partial) {
            b->partial[b->plen++] = (c >= 32 && c < 127) || (unsigned char)c >= 128 ? c : '?';
        }
    }
}

static double demo_build_elapsed(const demo_build *b)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - b->t0.tv_sec) + (double)(t.tv_nsec - b->t0.tv_nsec) / 1e9;
}

static void finish(demo_build *b, int status)
{
    b->done = 1;
    b->pid = -1;
    if (b->plen) {
        b->partial[b->plen] = 0;
        snprintf(b->line, sizeof b->line, "%s", b->partial);
        b->plen = 0;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        b->ok = 1;
        return;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        strbuf_addf(&b->why, "%s was not found (set AOTIDBG_PYTHON or put python3 on PATH): the demo model is "
                             "compiled on first use with python3 and torch", python());
    else if (WIFEXITED(status) && WEXITSTATUS(status) == 3)
        strbuf_addf(&b->why, "torch is missing for %s: %s", python(), b->line);
    else if (WIFEXITED(status))
        strbuf_addf(&b->why, "compiling the demo model failed (exit %d): %s", WEXITSTATUS(status), b->line);
    else
        strbuf_addf(&b->why, "compiling the demo model ended by signal %d", WTERMSIG(status));
}

static int demo_build_poll(demo_build *b, int timeout_ms)
{
    if (b->done)
        return b->ok ? 1 : -1;
    if (b->fd >= 0) {
        struct pollfd p = {b->fd, POLLIN, 0};
        if (poll(&p, 1, timeout_ms) > 0) {
            char buf[4096];
            ssize_t n;
            while ((n = read(b->fd, buf, sizeof buf)) > 0)
                take_output(b, buf, (size_t)n);
            if (n == 0) {
                close(b->fd);
                b->fd = -1;
            }
        }
    } else if (timeout_ms > 0) {
        poll(NULL, 0, timeout_ms > 50 ? 50 : timeout_ms);
    }
    int status;
    if (b->pid > 0 && waitpid(b->pid, &status, WNOHANG) == b->pid)
        finish(b, status);
    return b->done ? (b->ok ? 1 : -1) : 0;
}

static void demo_build_cancel(demo_build *b)
{
    if (b->pid > 0) {
        kill(-b->pid, SIGTERM);
        int status;
        for (int i = 0; i < 40 && waitpid(b->pid, &status, WNOHANG) == 0; i++)
            usleep(25000);
        if (waitpid(b->pid, &status, WNOHANG) == 0) {
            kill(-b->pid, SIGKILL);
            waitpid(b->pid, &status, 0);
        }
        b->pid = -1;
        b->done = 1;
        strbuf_reset(&b->why);
        strbuf_addstr(&b->why, "the demo build was cancelled");
    }
}

static void demo_build_release(demo_build *b)
{
    demo_build_cancel(b);
    if (b->fd >= 0)
        close(b->fd);
    if (b->log_fd >= 0)
        close(b->log_fd);
    b->fd = b->log_fd = -1;
    strbuf_release(&b->why);
}

static void demo_render(const demo_build *b, grid *g)
{
    static const char spin_utf8[] = "|/-\\";
    grid_clear(g, EL_NORMAL);
    double t = demo_build_elapsed(b);
    if (g->w < 20 || g->h < 6) {
        grid_printf(g, 0, 0, g->w, EL_NORMAL, "compiling demo %.0fs", t);
        return;
    }
    grid_box(g, 0, 0, g->w, g->h - 1, EL_BORDER_FOCUS, "aotidbg: preparing the demo model", EL_TITLE_FOCUS);
    char sp = spin_utf8[(int)(t * 4) % 4];
    grid_printf(g, 2, 2, g->w - 4, EL_HEADER, "%c compiling the bundled CPU model with AOTInductor: %.0f s", sp, t);
    grid_put(g, 2, 3, g->w - 4, EL_DIM, "This happens once; the package is cached for the next time.");
    grid_printf(g, 2, 5, g->w - 4, EL_NORMAL, "%s", b->line);
    grid_fill(g, 0, g->h - 1, g->w, 1, ' ', EL_STATUS);
    grid_put(g, 0, g->h - 1, g->w, EL_STATUS, " q cancels");
}

/* ---- the build's progress as a screen of the loop (loop.h) ---------------- */

typedef struct {
    demo_build *b;
    int result;      /* demo_build_poll's: 1 built, -1 failed, 0 still going */
    int cancelled;
} demo_screen;

static void demo_screen_render(void *ctx, grid *g) { demo_render(((demo_screen *)ctx)->b, g); }

/* The quit key (the action table's, keys.yaml's) or Esc cancels. */
static int demo_screen_key(void *ctx, int key)
{
    demo_screen *ds = ctx;
    if (key == 27 || actions_for_key(key) == actions_find("quit")) {
        ds->cancelled = 1;
        return LOOP_QUIT;
    }
    return 0;
}

static int demo_screen_fd(void *ctx) { return ((demo_screen *)ctx)->b->fd; }

static int demo_screen_tick(void *ctx)
{
    demo_screen *ds = ctx;
    ds->result = demo_build_poll(ds->b, 0);
    return ds->result ? LOOP_QUIT : LOOP_REDRAW;   /* the clock moves: redraw */
}

static int demo_screen_interrupt(void *ctx)
{
    ((demo_screen *)ctx)->cancelled = 1;
    return LOOP_QUIT;
}

/* The terminal shows the progress until the build ends or is cancelled. */
static int progress_on_screen(demo_build *b, int ascii, int *cancelled)
{
    demo_screen ds = {b, 0, 0};
    loop_screen sc = {.ctx = &ds, .render = demo_screen_render, .key = demo_screen_key, .fd = demo_screen_fd,
                      .tick = demo_screen_tick, .interrupt = demo_screen_interrupt, .quit_key_action = -1};
    grid g;
    int w, h;
    screen_size(&w, &h);
    grid_init(&g, w, h, ascii);
    if (loop_run(&sc, &g))   /* SIGTERM, or the terminal went away */
        ds.cancelled = 1;
    grid_free(&g);
    *cancelled = ds.cancelled;
    return ds.result;
}

/* No terminal: a line on stderr when the build says something new, or every 10 s. */
static int progress_on_stderr(demo_build *b, int *cancelled)
{
    int r, last_sec = -1;
    char last_line[256] = "";
    while ((r = demo_build_poll(b, 100)) == 0) {
        if (screen_sig_term) {
            *cancelled = 1;
            break;
        }
        int sec = (int)demo_build_elapsed(b);
        if (strcmp(last_line, b->line) || sec / 10 != last_sec / 10) {
            fprintf(stderr, "aotidbg: [%3d s] %s\n", sec, b->line);
            snprintf(last_line, sizeof last_line, "%s", b->line);
            last_sec = sec;
        }
    }
    return r;
}

int demo_prepare(const demo_paths *d, int interactive, int ascii, strbuf *err)
{
    if (demo_ready(d))
        return 0;
    demo_build b;
    if (demo_build_start(&b, d, err) < 0) {
        demo_build_release(&b);
        return -1;
    }
    int cancelled = 0;
    int r = interactive ? progress_on_screen(&b, ascii, &cancelled) : progress_on_stderr(&b, &cancelled);
    if (interactive)
        screen_sig_int = 0;
    if (cancelled)
        demo_build_cancel(&b);
    int rc = 0;
    if (r != 1 || !demo_ready(d)) {
        strbuf_addstr(err, b.why.len ? b.why.buf : "the demo build did not produce its package");
        if (!cancelled)
            strbuf_addf(err, " (log: %s/build.log)", d->dir);
        rc = -1;
    }
    demo_build_release(&b);
    return rc;
}
