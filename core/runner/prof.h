/* prof.h — where the runner's time goes, under AOTIDBG_RUNNER_PROFILE=1.
 *
 * Buckets of wall time (µs, CLOCK_MONOTONIC) summed over a run or a bench,
 * printed on stderr by prof_report. When the variable is unset, the
 * calls do nothing and read no clock. Process-global, one model thread. */
#ifndef AOTIDBG_PROF_H
#define AOTIDBG_PROF_H
#include <stdio.h>

typedef enum {
    PROF_HOOK,          /* whole printer-hook calls (everything below happens inside) */
    PROF_SYNC,          /* blocking-mode cudaDeviceSynchronize + error check */
    PROF_DESCRIBE,      /* shape/strides/dtype/device queries */
    PROF_DEV_STATS,     /* the device statistics library (includes its stream sync) */
    PROF_VALUES_COPY,   /* device -> host copies (values sample, or host statistics) */
    PROF_HOST_STATS,    /* statistics/values over host memory */
    PROF_SEND,          /* encoding and writing frames */
    PROF_EAGER,         /* after-tensors compared with the eager reference (eager_refs.h) */
    PROF_STOPPED,       /* blocked waiting for the front end at a stop */
    PROF_RUN,           /* AOTInductorModelContainerRun, hooks included */
    PROF_N
} prof_bucket;

double prof_now(void);                 /* µs; 0 when profiling is off */
void prof_add(prof_bucket b, double since);   /* adds prof_now() - since; no-op when off */
void prof_reset(void);
/* One block of "aotidbg-runner: profile: <bucket> <total us> <calls> <us/call>" lines. */
void prof_report(FILE *f, const char *what, long runs, unsigned long long events);

#endif
