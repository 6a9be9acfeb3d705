/* bench_big_session.c — the first screen of a big session, and its dump.
 *
 * For each size (MB, default 100 and 1000) generates an unfolded session of
 * about that size (timing its final save with and without the index) (kernel events with a before and an after tensor carrying
 * stats, as a 200k-iteration while_loop recorded with folding off writes;
 * session_save in a child process), then on the same file measures:
 *   first screen  load_open (tui/load.h: the header, the first events) +
 *                 app_init + one app_render into a 120x40 grid: what
 *                 `aotidbg replay BIG.yaml` shows before the rest loads;
 *   whole load    session_load: what the first screen waited for before;
 *   rest          the slices after the first screen (load_slice to the end);
 *   dump          session_load + session_dump to /dev/null (`replay --dump` before);
 * and the command line, as a user runs it (build/aotidbg, stdout into a pipe;
 * wall, CPU, peak RSS and when the first byte came):
 *   replay - --dump < BIG.yaml   the whole load (stdin loads whole, as every --dump did);
 *   replay BIG.yaml --dump       read a slice at a time, each slice freed once rendered;
 *   route BIG.yaml               read a slice at a time, keeping the events routing reads (route_load.h);
 *   route BIG.indexed.yaml       the same session saved with the index a run's final save writes
 *                                (route_session_picks), read by it; the two routes must be the same
 *                                (a NaN planted three quarters in: nan-inf), else the bench fails.
 * Prints one line per size, side by side (wall and CPU seconds), then the
 * command lines'. Peak RSS is each child's ru_maxrss.
 *
 * Measured 2026-12-02 on the shared 2-core box (load average ~9, so wall
 * times are 2-3x the CPU times):
 *   100 MB, 131578 events: first screen 0.083 s; whole load 6.59 s, + dump 7.35 s
 *   1 GB, 1315789 events:  first screen 0.091 s; whole load 84.4 s, + dump 94.9 s
 *     (the sliced rest 42.3 s CPU vs 27.5 s for load + dump: two panes scanned
 *     every event each frame; indexed since, 300 MB: 7.0 s CPU sliced vs 8.7 s)
 * The dump read in slices, 2026-12-02 (load average ~3.5; wall / CPU / peak RSS;
 * the text waits for the "events: N" line, so the first byte comes at the end):
 *   100 MB: whole load 8.66 s / 4.0 s / 112 MB; in slices 3.88 s / 3.3 s / 22 MB;
 *           route 4.75 s / 3.0 s / 107 MB
 *   300 MB: whole load 16.7 s / 15.6 s / 324 MB; in slices 14.4 s / 12.6 s / 22 MB;
 *           first byte 12.9 s vs 14.0 s; route 10.3 s / 10.0 s / 300 MB
 * With counts: (every whole save writes it, so the generated file has it),
 * 2026-12-03, the CI suite running beside it on the 2 cores:
 *   100 MB: whole load 4.34 s / 3.9 s / 111 MB, first byte 3.56 s;
 *           in slices 4.01 s / 3.7 s / 6 MB, first byte 0.02 s;
 *           route 2.95 s / 2.9 s / 11 MB
 * With index: and the planted NaN (route reads to the NaN, then back to its
 * producers, then fetches), 2026-12-03, the box quiet (load average 0.4):
 *   100 MB: route in slices 11.91 s / 11.8 s / 11 MB; by the index 0.018 s /
 *           0.02 s / 10 MB (0.2 kB more file), the same route
 *   The final save (CI running beside it): the index's list 0.015 s; the save
 *   with it 2.09 s, 2.64 s, without 2.07 s, 2.16 s, alternated (run one after
 *   the other, the second save paid the first's writeback: 10.5 s vs 1.9 s)
 * Usage: bench_big_session [MB...]
 * (TMPDIR for the files). Exit 0 unless something failed to run. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "actions.h"
#include "app.h"
#include "load.h"
#include "panes.h"
#include "render.h"
#include "route_load.h"
#include "session_io.h"
#include "bench_util.h"

#define BYTES_PER_KERNEL 760.0   /* about what one event below takes in the file */

/* The file at path and, with the index a run's final save writes (route_load.h), at ipath. */
static int generate(const char *path, const char *ipath, long n)
{
    session *s = session_new();
    s->tool_version = AOTIDBG_VERSION;
    s->torch_version = "2.13.0";
    s->host = "bench";
    s->device = "cpu";
    s->printer_level = 1;
    s->mode = "printer";
    s->package = (package_info){"/tmp/bench_loop.pt2", "0123456789abcdef", "model", "cpu", NULL, "avx2"};
    static int64_t shape[2] = {2, 8}, strides[2] = {8, 1};
    srand(1);
    for (long i = 0; i < n; i++) {
        event *e = session_add_event(s, EV_KERNEL);
        e->t_ms = (double)i * 0.0137;
        kernel_event *k = &e->u.kernel;
        k->index = i;
        int body = i % 2;
        k->name = body ? "cpp_fused_add_mul_1" : "cpp_fused_lt_0";
        k->branch = body ? "while_loop_body_graph_0" : "while_loop_cond_graph_0";
        k->iteration = i / 2;
        k->type = KTYPE_CPP;
        k->status = KSTAT_OK;
        k->duration_us = 3.5 + (double)(i % 97) * 0.25;
        k->device_us = -1;
        k->source = "printer";
        k->ntensors = 2;
        k->tensors = arena_alloc(&s->arena, 2 * sizeof(tensor_rec));
        for (int j = 0; j < 2; j++) {
            tensor_rec *t = &k->tensors[j];
            t->name = j ? "buf1" : "arg1_1";
            t->phase = j ? PHASE_AFTER : PHASE_BEFORE;
            t->ndim = 2;
            t->shape = shape;
            t->strides = strides;
            t->dtype = "float32";
            t->device = "cpu";
            t->has_stats = 1;
            double r = (double)rand() / RAND_MAX;
            t->stats = (tensor_stats){16, 16, 0, 0, 0, 0, 0, -r * 3, r * 4, r - 0.5, 1 + r};
            if (j && i == n * 3 / 4 + 1) {   /* a NaN for route to find three quarters in */
                t->stats.nan = 2;
                t->stats.finite = 14;
                k->status = KSTAT_NAN;
            }
        }
    }
    s->end_state = "complete";
    strbuf err = STRBUF_INIT;
    size_t *at, nat;
    double t0 = bench_now_s();
    route_session_picks(s, &at, &nat);
    double t1 = bench_now_s(), with[2], without[2];
    int rc = 0;
    for (int round = 0; round < 2; round++) {   /* alternated: a save pays for the writeback of the one before */
        double a = bench_now_s();
        rc = rc || session_save_indexed(s, ipath, at, nat, &err);
        double b = bench_now_s();
        rc = rc || session_save(s, path, &err);
        with[round] = b - a;
        without[round] = bench_now_s() - b;
    }
    printf("          the final save: the index's list %.3f s (%zu of %zu events listed); the save with the index "
           "%.2f s, %.2f s, without %.2f s, %.2f s (alternated)\n",
           t1 - t0, nat, s->nevents, with[0], with[1], without[0], without[1]);
    fflush(stdout);
    free(at);
    if (rc)
        fprintf(stderr, "bench_big_session: %s\n", err.buf);
    strbuf_release(&err);
    session_free(s);
    return rc;
}

static double rest_s;   /* the sliced load's time after its first screen (in_child's 5th figure) */

/* The first screen, then the rest a slice at a time with a frame after each:
 * out = {first screen s, events on it, slices, events in all}; rest_s. */
static int sliced(const char *path, double *out)
{
    double t0 = bench_now_s();
    session *s;
    session_reader *r;
    if (load_open(path, &s, &r) < 0)
        return -1;
    app a;
    app_init(&a, s, MODE_REPLAY);
    a.owns_session = 1;
    a.loader = r;
    grid g;
    grid_init(&g, 120, 40, 0);
    app_render(&a, &g);
    out[0] = bench_now_s() - t0;
    out[1] = (double)s->nevents;
    t0 = bench_now_s();
    size_t slices = 0;
    while (load_busy(&a)) {   /* the loop's ticks, a frame when the load asks for one */
        if (load_slice(&a, 0.04))
            app_render(&a, &g);
        slices++;
    }
    out[4] = bench_now_s() - t0;
    out[2] = (double)slices;
    out[3] = (double)s->nevents;
    int failed = load_close(&a);
    grid_free(&g);
    app_release(&a);
    return failed ? -1 : 0;
}

/* Before: the whole file, then the screen; and the dump: out = {load s, load + dump s}. */
static int whole(const char *path, double *out)
{
    session *s;
    strbuf err = STRBUF_INIT;
    double t0 = bench_now_s();
    if (session_load(path, &s, &err)) {
        fprintf(stderr, "bench_big_session: %s\n", err.buf);
        return -1;
    }
    out[0] = bench_now_s() - t0;
    FILE *null = fopen("/dev/null", "w");
    session_dump(s, null);
    fclose(null);
    out[1] = bench_now_s() - t0;
    session_free(s);
    strbuf_release(&err);
    return 0;
}

#ifndef AOTIDBG_BINARY_DIR
#define AOTIDBG_BINARY_DIR "build"
#endif

/* `aotidbg ARGS... > pipe` (stdin from in when set), as a user runs it:
 * out = {wall s, s to the first byte on stdout, CPU s, peak RSS MB, MB printed};
 * text (when not NULL) takes the first MB printed. */
static int cli(const char *const *args, const char *in, double *out, strbuf *text)
{
    int fd[2];
    if (pipe(fd))
        return -1;
    double t0 = bench_now_s();
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd[1], 1);
        close(fd[0]);
        close(fd[1]);
        if (in) {
            int i = open(in, O_RDONLY);
            if (i < 0 || dup2(i, 0) < 0)
                _exit(127);
        }
        execv(args[0], (char *const *)args);
        _exit(127);
    }
    close(fd[1]);
    char buf[1 << 16];
    ssize_t n;
    double first = -1, bytes = 0;
    while ((n = read(fd[0], buf, sizeof buf)) > 0) {
        if (first < 0)
            first = bench_now_s() - t0;
        if (text && text->len < (1u << 20))
            strbuf_add(text, buf, (size_t)n);
        bytes += (double)n;
    }
    close(fd[0]);
    int st;
    struct rusage ru;
    if (pid < 0 || wait4(pid, &st, 0, &ru) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
        return -1;
    out[0] = bench_now_s() - t0;
    out[1] = first;
    out[2] = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
    out[3] = (double)ru.ru_maxrss / 1024;   /* KiB on Linux */
    out[4] = bytes / 1e6;
    return 0;
}

/* fn(path, figures) in a child; its figures (up to 5) through a pipe. */
static double child_rss_mb;   /* the last in_child's peak RSS */

static int in_child(const char *path, int (*fn)(const char *, double *), double *out, double *cpu)
{
    int fd[2];
    if (pipe(fd))
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        double v[5] = {0};
        int rc = fn(path, v);
        ssize_t wr = write(fd[1], v, sizeof v);
        _exit(rc || wr != (ssize_t)sizeof v ? 1 : 0);
    }
    close(fd[1]);
    double v[5];
    ssize_t n = read(fd[0], v, sizeof v);
    close(fd[0]);
    int st;
    struct rusage ru;
    if (pid < 0 || wait4(pid, &st, 0, &ru) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) || n != (ssize_t)sizeof v)
        return -1;
    *cpu = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
    child_rss_mb = (double)ru.ru_maxrss / 1024;
    memcpy(out, v, 4 * sizeof *v);
    if (fn == sliced)
        rest_s = v[4];
    return 0;
}

static int one(double mb, const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/bench_big_session_%ld_%.0f.yaml", dir, (long)getpid(), mb);
    char ipath[4200];
    snprintf(ipath, sizeof ipath, "%s.indexed.yaml", path);
    long n = (long)(mb * 1e6 / BYTES_PER_KERNEL);
    pid_t pid = fork();
    if (pid == 0)
        _exit(generate(path, ipath, n) ? 1 : 0);
    int st;
    if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
        return -1;
    struct stat sb;
    stat(path, &sb);
    double file_mb = (double)sb.st_size / 1e6;

    /* each in a fresh process: none inherits the other's warm heap */
    double f[4], w[4], fcpu, wcpu, frss, wrss;
    if (in_child(path, sliced, f, &fcpu))
        return -1;
    frss = child_rss_mb;
    if (in_child(path, whole, w, &wcpu))
        return -1;
    wrss = child_rss_mb;
    /* the command line: --dump of stdin loads whole (as every --dump did before), of a file it streams */
    static const char *bin = AOTIDBG_BINARY_DIR "/aotidbg";
    const char *dump_whole[] = {bin, "replay", "-", "--dump", NULL}, *dump_file[] = {bin, "replay", path, "--dump", NULL};
    const char *route[] = {bin, "route", path, NULL}, *route_ix[] = {bin, "route", ipath, NULL};
    double dw[5], ds[5], rt[5], ri[5];
    strbuf rtext = STRBUF_INIT, itext = STRBUF_INIT;
    int dump_ok = !cli(dump_whole, path, dw, NULL) && !cli(dump_file, NULL, ds, NULL);
    int route_ok = !cli(route, NULL, rt, &rtext) && !cli(route_ix, NULL, ri, &itext);
    struct stat ib;
    double index_kb = stat(ipath, &ib) ? -1 : ((double)ib.st_size - (double)sb.st_size) / 1e3;
    unlink(path);
    unlink(ipath);
    printf("%7.1f MB %9zu events | first screen %6.3f s (%zu events; the rest in %zu slices, %.1f s, "
           "%.1f s CPU in all, peak RSS %.0f MB) | whole load %6.2f s (then the first screen) | whole load + dump %6.2f s, "
           "%.1f s CPU, peak RSS %.0f MB\n",
           file_mb, (size_t)f[3], f[0], (size_t)f[1], (size_t)f[2], rest_s, fcpu, frss, w[0], w[1], wcpu, wrss);
    if (dump_ok)
        printf("          replay --dump (%.0f MB out): whole load (stdin) %6.2f s, %.1f s CPU, peak RSS %.0f MB, "
               "first byte %.2f s | read in slices (file) %6.2f s, %.1f s CPU, peak RSS %.0f MB, first byte %.2f s\n",
               ds[4], dw[0], dw[2], dw[3], dw[1], ds[0], ds[2], ds[3], ds[1]);
    else
        printf("          replay --dump: %s failed to run\n", bin);
    if (route_ok)
        printf("          route, read in slices: %6.2f s, %.1f s CPU, peak RSS %.0f MB | by the index (%.1f kB more "
               "file): %6.3f s, %.2f s CPU, peak RSS %.0f MB | the same route: %s\n",
               rt[0], rt[2], rt[3], index_kb, ri[0], ri[2], ri[3],
               !strcmp(rtext.buf, itext.buf) && strstr(rtext.buf, "nan-inf") ? "yes (nan-inf)" : "NO");
    else
        printf("          route: %s failed to run\n", bin);
    int same = !route_ok || !strcmp(rtext.buf, itext.buf);
    if (!same || getenv("BENCH_SHOW_ROUTE"))
        fprintf(stderr, "--- in slices:\n%s\n--- by the index:\n%s\n", rtext.buf, itext.buf);
    strbuf_release(&rtext);
    strbuf_release(&itext);
    if (!same)
        return -1;
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv)
{
    const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    actions_bind_defaults();
    static const char *dflt[] = {"100", "1000"};
    int n = argc > 1 ? argc - 1 : 2;
    int rc = 0;
    for (int i = 0; i < n; i++)
        if (one(atof(argc > 1 ? argv[i + 1] : dflt[i]), dir) < 0) {
            fprintf(stderr, "bench_big_session: the %s MB session failed\n", argc > 1 ? argv[i + 1] : dflt[i]);
            rc = 1;
        }
    return rc;
}
