/* bench_session.c — loading a big session file vs a bare libyaml parse.
 *
 * Generates a session with N kernel events (default 1,000,000; each with a
 * before and an after tensor carrying stats, like a printer-level-1 run),
 * writes it with session_save in a child process (so the generator's memory
 * does not count), then in this process measures, on the same file:
 *   1. a bare libyaml event parse (yaml_parser_parse + yaml_event_delete),
 *   2. session_load,
 * and prints both times, their ratio (target <= 2), the file size and the
 * memory the loaded session holds (RSS growth and arena bytes; target < 2x
 * the file size). Usage: bench_session [N] [DIR]. Prints figures; the exit
 * code is 0 unless something failed to run. */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <yaml.h>
#include "session_io.h"
#include "bench_util.h"

static long rss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmRSS:", 6))
            v = atol(line + 6);
    if (f)
        fclose(f);
    return v;
}

static int generate(const char *path, long n)
{
    session *s = session_new();
    s->tool_version = AOTIDBG_VERSION;
    s->torch_version = "2.13.0";
    s->host = "bench";
    s->device = "cpu";
    s->printer_level = 1;
    s->mode = "printer";
    s->package = (package_info){"/tmp/bench.pt2", "0123456789abcdef", "model", "cpu", NULL, "avx2"};
    static int64_t shape[2] = {64, 128}, strides[2] = {128, 1};
    char name[64];
    srand(1);
    for (long i = 0; i < n; i++) {
        event *e = session_add_event(s, EV_KERNEL);
        e->t_ms = (double)i * 0.0137;
        kernel_event *k = &e->u.kernel;
        snprintf(name, sizeof name, "cpp_fused_add_mul_relu_%ld", i % 500);
        k->name = arena_strdup(&s->arena, name);
        k->type = KTYPE_CPP;
        k->status = KSTAT_OK;
        k->duration_us = 3.5 + (double)(i % 97) * 0.25;
        k->source = "printer";
        k->ntensors = 2;
        k->tensors = arena_alloc(&s->arena, 2 * sizeof(tensor_rec));
        for (int j = 0; j < 2; j++) {
            tensor_rec *t = &k->tensors[j];
            t->name = j ? "buf1" : "buf0";
            t->phase = j ? PHASE_AFTER : PHASE_BEFORE;
            t->ndim = 2;
            t->shape = shape;
            t->strides = strides;
            t->dtype = "float32";
            t->device = "cpu";
            t->has_stats = 1;
            double r = (double)rand() / RAND_MAX;
            t->stats = (tensor_stats){8192, 8192, 0, 0, 0, (uint64_t)(r * 100), 0, -r * 3, r * 4, r - 0.5, 1 + r};
        }
    }
    strbuf err = STRBUF_INIT;
    int rc = session_save(s, path, &err);
    if (rc)
        fprintf(stderr, "bench_session: %s\n", err.buf);
    strbuf_release(&err);
    session_free(s);
    return rc;
}

static int bare_parse(const char *path, size_t *nevents)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    yaml_parser_t p;
    yaml_parser_initialize(&p);
    yaml_parser_set_input_file(&p, f);
    yaml_event_t e;
    size_t n = 0;
    int rc = 0;
    for (;;) {
        if (!yaml_parser_parse(&p, &e)) {
            rc = -1;
            break;
        }
        n++;
        int end = e.type == YAML_STREAM_END_EVENT;
        yaml_event_delete(&e);
        if (end)
            break;
    }
    yaml_parser_delete(&p);
    fclose(f);
    *nevents = n;
    return rc;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    const char *dir = argc > 2 ? argv[2] : (getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    char path[4096];
    snprintf(path, sizeof path, "%s/bench_session_%ld.yaml", dir, (long)getpid());

    double t0 = bench_now_s();
    pid_t pid = fork();
    if (pid == 0)
        _exit(generate(path, n) ? 1 : 0);
    int st;
    if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
        fprintf(stderr, "bench_session: generating %s failed\n", path);
        return 1;
    }
    struct stat sb;
    stat(path, &sb);
    double file_mb = (double)sb.st_size / 1e6;
    printf("generated %ld kernel events: %s, %.1f MB in %.2f s\n", n, path, file_mb, bench_now_s() - t0);

    /* Warm the page cache so both runs read from memory. */
    size_t nev;
    bare_parse(path, &nev);

    t0 = bench_now_s();
    if (bare_parse(path, &nev)) {
        fprintf(stderr, "bench_session: libyaml failed on %s\n", path);
        return 1;
    }
    double t_bare = bench_now_s() - t0;

    malloc_trim(0);
    long rss0 = rss_kib();
    session *s = NULL;
    strbuf err = STRBUF_INIT;
    t0 = bench_now_s();
    int rc = session_load(path, &s, &err);
    double t_load = bench_now_s() - t0;
    long rss1 = rss_kib();
    if (rc) {
        fprintf(stderr, "bench_session: %s\n", err.buf);
        return 1;
    }
    double held_mb = (double)(rss1 - rss0) * 1024 / 1e6;
    printf("bare libyaml parse: %.3f s (%zu YAML events, %.1f MB/s)\n", t_bare, nev, file_mb / t_bare);
    printf("session_load:       %.3f s (%zu events, %zu kernels)\n", t_load, s->nevents, s->nkernels);
    printf("load / bare parse:  %.2fx (target <= 2x)\n", t_load / t_bare);
    printf("memory after load:  RSS +%.1f MB, arena %.1f MB; file %.1f MB; RSS/file %.2fx (target < 2x)\n", held_mb,
           (double)s->arena.total / 1e6, file_mb, held_mb / file_mb);
    session_free(s);
    strbuf_release(&err);
    unlink(path);
    return 0;
}
