/* prof.c — runner time buckets (prof.h). */
#define _GNU_SOURCE
#include "prof.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int on = -1;
static double total[PROF_N];
static unsigned long long calls[PROF_N];
static const char *names[PROF_N] = {"hook", "sync", "describe", "dev_stats", "values_copy",
                                    "host_stats", "send", "eager", "stopped", "run"};

static int prof_on(void)
{
    if (on < 0) {
        const char *v = getenv("AOTIDBG_RUNNER_PROFILE");
        on = v && *v && strcmp(v, "0") != 0;
    }
    return on;
}

double prof_now(void)
{
    if (!prof_on()) return 0;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

void prof_add(prof_bucket b, double since)
{
    if (!prof_on() || b >= PROF_N) return;
    total[b] += prof_now() - since;
    calls[b]++;
}

void prof_reset(void)
{
    memset(total, 0, sizeof total);
    memset(calls, 0, sizeof calls);
}

void prof_report(FILE *f, const char *what, long runs, unsigned long long events)
{
    if (!prof_on()) return;
    if (runs < 1) runs = 1;
    fprintf(f, "aotidbg-runner: profile: %s: %ld run(s), %llu hook event(s); per run:\n", what, runs, events);
    for (int b = 0; b < PROF_N; b++) {
        if (!calls[b]) continue;
        fprintf(f, "aotidbg-runner: profile:   %-12s %12.1f us  %8.1f calls  %9.2f us/call\n", names[b],
                total[b] / runs, (double)calls[b] / runs, total[b] / (double)calls[b]);
    }
}
