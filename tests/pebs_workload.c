/* Workload of the perf cross-check (test pebs_perf_crosscheck): a leaf
   function `pebs_wl_hot` in its own section, reached through recursion
   depths 0, 5, 10 and 15 of a function with a fixed-size frame, so the
   stack pointer inside the leaf takes four values spaced by five frames.

     pebs_workload perf     just runs (under `perf record --user-regs=sp,ip`)
     pebs_workload self     samples itself with ctxprof_pebs (software level,
                            100 us) and prints "sp 0x..." per leaf sample

   Built by the test with -O1 -fno-omit-frame-pointer -fno-inline
   -fno-optimize-sibling-calls, so both runs execute the same frames. */
#define _GNU_SOURCE
#define CTXPROF_IMPLEMENTATION
#include "../ctxprof_pebs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const char __start_pebs_wl_sec[], __stop_pebs_wl_sec[];
static volatile unsigned long pebs_wl_sink;

__attribute__((noinline, section("pebs_wl_sec"))) void pebs_wl_hot(long n);
void pebs_wl_hot(long n)
{
    long i;
    for (i = 0; i < n; i++)
        pebs_wl_sink += (unsigned long)i;
}

__attribute__((noinline)) void pebs_wl_rec(int d, long n);
void pebs_wl_rec(int d, long n)
{
    volatile char pad[200];
    pad[0] = (char)d;
    if (d == 0)
        pebs_wl_hot(n);
    else
        pebs_wl_rec(d - 1, n);
    pad[1] = 0; /* keeps the frame and the call non-tail */
}

static void pebs_wl_run(void)
{
    static const int depths[] = {0, 5, 10, 15};
    int k;
    for (k = 0; k < 4; k++)
        pebs_wl_rec(depths[k], 30000000);
}

int main(int argc, char **argv)
{
    static ctxprof_pebs_sample samples[1 << 16];
    ctxprof_pebs pb;
    ctxprof_pebs_desc d;
    const ctxprof_pebs_sample *s;
    size_t n, i;
    if (argc < 2 || strcmp(argv[1], "perf") == 0) {
        pebs_wl_run();
        return 0;
    }
    memset(&d, 0, sizeof d);
    d.level = CTXPROF_PEBS_LEVEL_SW; /* what perf's task-clock:u samples */
    d.period_ns = 100000;
    d.samples = samples;
    d.samples_cap = sizeof samples / sizeof samples[0];
    if (ctxprof_pebs_open(&pb, &d) != CTXPROF_OK || ctxprof_pebs_attach(&pb, 0, 0) != CTXPROF_OK) {
        fprintf(stderr, "pebs_workload: %s\n", ctxprof_error_message(&pb.error));
        return 1;
    }
    pebs_wl_run();
    ctxprof_pebs_close(&pb);
    s = ctxprof_pebs_samples(&pb, &n);
    for (i = 0; i < n; i++)
        if (s[i].ip >= (uintptr_t)__start_pebs_wl_sec && s[i].ip < (uintptr_t)__stop_pebs_wl_sec)
            printf("sp 0x%llx\n", (unsigned long long)s[i].sp);
    return 0;
}
