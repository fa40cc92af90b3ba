/* bench.h - timing helpers shared by the benchmark programs: a monotonic
   clock, the process CPU-time clock and medians. Benchmarks report medians
   of repeated runs and ratios measured in the same run, never a lone time
   (see MEASURING.md). */
#ifndef CTXPROF_BENCH_H_INCLUDED
#define CTXPROF_BENCH_H_INCLUDED

#include <stdlib.h>
#include <time.h>

/* Nanoseconds on the monotonic clock. */
static inline double bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Seconds of CPU time the process has used (all its threads). */
static inline double bench_cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median of v[0..n) (sorts v in place: v[0] and v[n-1] are then min and max). */
static inline double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif
