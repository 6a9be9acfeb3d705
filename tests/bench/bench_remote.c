/* bench_remote.c — what a step costs over ssh (issue 20): the same package
 * stepped kernel by kernel through a local runner and through a remote one
 * (aotidbg-runner --serve behind ssh), side by side, alternating rounds.
 *
 *   bench_remote PKG SPEC TARGET RUNNER [ROUNDS]
 *
 * TARGET is what --remote takes ($AOTIDBG_SSH sets the ssh command); RUNNER
 * the runner's path there (and here: both ends are this machine). A step is runner_client_step() to the next STOPPED,
 * as the UI's `s` does (the kernel runs, its tensors' statistics come back);
 * restarts between rounds are not counted. Prints the median and p90 of each
 * and the difference of the medians (the target: at most 2 ms). Exit 0, or 2
 * on bad usage, 1 when a run fails. bench_remote.py starts a real sshd for it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_util.h"
#include "inputs.h"
#include "package.h"
#include "remote_package.h"
#include "runner_client.h"

typedef struct {
    const char *name;
    remote *r;
    package_t *pkg;
    host_facts hf;
    runner_client *rc;
    session *s;
    double *samples;
    size_t n;
} side;

static int settle(runner_client *rc)
{
    strbuf err = STRBUF_INIT;
    for (int i = 0; i < 200000; i++) {
        runner_state st = runner_client_state(rc);
        if (st == RUNNER_STOPPED || st == RUNNER_FINISHED || st == RUNNER_DEAD)
            break;
        strbuf_reset(&err);
        if (runner_client_pump(rc, 100, &err) < 0) {
            fprintf(stderr, "pump: %s\n", err.buf);
            strbuf_release(&err);
            return -1;
        }
    }
    strbuf_release(&err);
    return runner_client_state(rc) == RUNNER_DEAD ? -1 : 0;
}

static int open_side(side *sd, const char *pkg_path, const char *spec, const char *target, const char *runner)
{
    strbuf err = STRBUF_INIT;
    sd->s = session_new();
    package_model *m = NULL;
    int rc = -1;
    if (target) {
        remote_cli o = {.target = target, .runner_path = runner};
        if (remote_open(&o, pkg_path, spec, sd->s, &sd->r, &sd->pkg, &err) < 0 ||
            !(m = package_find_model(sd->pkg, NULL, &err)) || remote_prepare_model(sd->r, sd->pkg, m, 0, &sd->hf, &err) < 0)
            goto out;
    } else if (inputs_load(sd->s, spec, &err) < 0 || package_open(&sd->pkg, pkg_path, &err) < 0 ||
               !(m = package_find_model(sd->pkg, NULL, &err)) || package_extract(sd->pkg, m, &err) < 0) {
        goto out;
    }
    runner_options ro = {.so_path = m->so_path, .cubin_dir = m->model_dir, .device = "cpu",
                         .break_flags = BREAK_EACH_KERNEL | BREAK_ON_ERROR, .break_index = -1, .max_values = 64,
                         .remote = sd->r, .runner_path = runner};   /* local: this build's runner */
    if (runner_client_start(&sd->rc, &ro, sd->s, &err) < 0 || settle(sd->rc) < 0)
        goto out;
    rc = 0;
out:
    if (rc < 0)
        fprintf(stderr, "bench_remote: %s: %s\n", sd->name, err.len ? err.buf : "the runner died");
    strbuf_release(&err);
    return rc;
}

/* One round: steps to the end of the model, timing each step that stops at a kernel. */
static int round_of_steps(side *sd, size_t max)
{
    strbuf err = STRBUF_INIT;
    if (sd->n) {   /* a fresh run from the first kernel (not timed) */
        if (runner_client_restart(sd->rc, &err) < 0 || settle(sd->rc) < 0) {
            fprintf(stderr, "bench_remote: %s: restart: %s\n", sd->name, err.buf);
            strbuf_release(&err);
            return -1;
        }
    }
    strbuf_release(&err);
    while (runner_client_state(sd->rc) == RUNNER_STOPPED && sd->n < max) {
        double t0 = bench_now_ms();
        if (runner_client_step(sd->rc) < 0 || settle(sd->rc) < 0)
            return -1;
        if (runner_client_state(sd->rc) == RUNNER_STOPPED)
            sd->samples[sd->n++] = bench_now_ms() - t0;
    }
    return 0;
}

static void report(side *sd)
{
    qsort(sd->samples, sd->n, sizeof *sd->samples, bench_cmp_double);
    printf("%-8s steps %4zu  median %7.3f ms  p90 %7.3f ms  min %7.3f ms\n", sd->name, sd->n,
           sd->samples[sd->n / 2], sd->samples[sd->n * 9 / 10], sd->samples[0]);
}

static void close_side(side *sd)
{
    runner_client_free(sd->rc);
    package_close(sd->pkg);
    remote_close(sd->r);
    host_facts_release(&sd->hf);
    session_free(sd->s);
    free(sd->samples);
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: bench_remote PKG SPEC TARGET RUNNER [ROUNDS]\n");
        return 2;
    }
    int rounds = argc > 5 ? atoi(argv[5]) : 20;
    size_t max = (size_t)rounds * 1000;
    side sides[2] = {{.name = "local"}, {.name = "ssh"}};
    for (int i = 0; i < 2; i++) {
        sides[i].samples = calloc(max, sizeof(double));
        if (open_side(&sides[i], argv[1], argv[2], i ? argv[3] : NULL, argv[4]) < 0)
            return 1;
    }
    for (int r = 0; r < rounds; r++)
        for (int i = 0; i < 2; i++)
            if (round_of_steps(&sides[i], max) < 0) {
                fprintf(stderr, "bench_remote: %s: a run failed\n", sides[i].name);
                return 1;
            }
    printf("a step (runner_client_step to the next stop), %d rounds, alternating:\n", rounds);
    report(&sides[0]);
    report(&sides[1]);
    double d = sides[1].samples[sides[1].n / 2] - sides[0].samples[sides[0].n / 2];
    printf("ssh - local (medians): %+.3f ms (target: at most +2 ms): %s\n", d, d <= 2.0 ? "ok" : "MISSED");
    for (int i = 0; i < 2; i++)
        close_side(&sides[i]);
    return 0;
}
