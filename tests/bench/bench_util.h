/* bench_util.h — timing helpers shared by the benchmarks (tests/bench/):
 * a monotonic clock in seconds or milliseconds and a qsort comparator for
 * sorting samples before taking the median. Header-only; no errors. */
#ifndef AOTIDBG_BENCH_UTIL_H
#define AOTIDBG_BENCH_UTIL_H

#include <time.h>

static inline double bench_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline double bench_now_ms(void) { return bench_now_s() * 1e3; }

/* qsort order for doubles, ascending. */
static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

#endif
