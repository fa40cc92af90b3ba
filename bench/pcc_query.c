/* Query cost (issue 2, benchmark 2): what it costs to ask "is the current
   calling context a known one?" at call depth 10, 20 and 50.

     PCC check      ctxprof_pcc_set_check on the value kept by the annotations
     FP walk        walk the frame-pointer chain, hash the return addresses,
                    look the hash up in the same kind of set (the fastest
                    stack-walking checker)
     backtrace()    glibc's unwinder, the walk alone
     unw_backtrace  libunwind, the walk alone (only in the build with
                    -DWITH_LIBUNWIND, a separate binary: linking libunwind
                    replaces glibc's backtrace)

   Built with frame pointers. Methods alternate in each round; medians. */
#define CTXPROF_IMPLEMENTATION
#include "../ctxprof.h"

#include <execinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#if defined(WITH_LIBUNWIND)
#include <libunwind.h>
#endif

#define QUERIES 20000
#define ROUNDS 9

static ctxprof_pcc_set pcc_set, walk_set;
static uintptr_t stack_top;
static volatile uint64_t sink;

/* Hash of the return addresses on the frame-pointer chain: a rotate-xor
   per frame (off the critical path of the pointer chase), one mix at the
   end, so the walk costs little more than the loads themselves. */
static __attribute__((noinline)) uint64_t fp_walk_hash(void)
{
    uintptr_t *fp = (uintptr_t *)__builtin_frame_address(0);
    uint64_t h = 0;
    while ((uintptr_t)fp < stack_top && fp) {
        h = ((h << 5) | (h >> 59)) ^ fp[1];
        fp = (uintptr_t *)fp[0];
    }
    return ctxprof_mix64(h);
}

enum { M_PCC, M_WALK, M_BT, M_UNW, NMETHODS };
static const char *const method_name[NMETHODS] = {"PCC check", "FP walk+hash+lookup",
                                                  "backtrace()", "unw_backtrace()"};

static double time_method(int m, ctxprof_ctx here)
{
    void *buf[128];
    double t0 = bench_now_ns();
    int i;
    for (i = 0; i < QUERIES; i++) {
        switch (m) {
        case M_PCC:
            sink += (uint64_t)ctxprof_pcc_set_check(&pcc_set, here, CTXPROF_PCC_LOC);
            break;
        case M_WALK:
            sink += (uint64_t)ctxprof_pcc_set_check(&walk_set, (ctxprof_ctx)fp_walk_hash(),
                                                    CTXPROF_PCC_LOC);
            break;
        case M_BT:
            sink += (uint64_t)backtrace(buf, 128);
            break;
#if defined(WITH_LIBUNWIND)
        case M_UNW:
            sink += (uint64_t)unw_backtrace(buf, 128);
            break;
#endif
        default:
            break;
        }
    }
    return (bench_now_ns() - t0) / QUERIES;
}

static double results[NMETHODS];

/* At the bottom of the recursion: train both sets once, then measure. */
static __attribute__((noinline)) void measure(ctxprof_ctx here)
{
    double t[NMETHODS][ROUNDS];
    int r, m;
    ctxprof_pcc_set_check(&pcc_set, here, CTXPROF_PCC_LOC);
    ctxprof_pcc_set_check(&walk_set, (ctxprof_ctx)fp_walk_hash(), CTXPROF_PCC_LOC);
    ctxprof_pcc_set_mode(&pcc_set, CTXPROF_PCC_CHECK);
    ctxprof_pcc_set_mode(&walk_set, CTXPROF_PCC_CHECK);
    for (r = 0; r < ROUNDS; r++)
        for (m = 0; m < NMETHODS; m++)
            t[(m + r) % NMETHODS][r] = time_method((m + r) % NMETHODS, here);
    for (m = 0; m < NMETHODS; m++) {
        qsort(t[m], ROUNDS, sizeof(double), bench_cmp_double);
        results[m] = t[m][ROUNDS / 2];
    }
}

static __attribute__((noinline)) long rec(int depth)
{
    CTXPROF_PCC_FUNC();
    long r = 0;
    if (depth <= 1)
        measure(CTXPROF_PCC_HERE(CTXPROF_PCC_SITE()));
    else
        CTXPROF_PCC_CALL(CTXPROF_PCC_SITE(), r = rec(depth - 1));
    return r + 1;
}

int main(void)
{
    static const int depths[3] = {10, 20, 50};
    ctxprof_pcc_set_desc desc;
    int d, m;
    stack_top = (uintptr_t)__builtin_frame_address(0);
    printf("%s, %d queries x %d rounds per cell, medians (ns/query)\n", __VERSION__, QUERIES,
           ROUNDS);
    printf("| depth | PCC check | FP walk+hash+lookup | backtrace() |");
#if defined(WITH_LIBUNWIND)
    printf(" unw_backtrace() |");
#endif
    printf(" backtrace/PCC | FP walk/PCC |\n|---|---|---|---|");
#if defined(WITH_LIBUNWIND)
    printf("---|");
#endif
    printf("---|---|\n");
    for (d = 0; d < 3; d++) {
        memset(&desc, 0, sizeof desc);
        desc.mode = CTXPROF_PCC_TRAIN;
        ctxprof_pcc_set_init(&pcc_set, &desc);
        ctxprof_pcc_set_init(&walk_set, &desc);
        rec(depths[d]);
        printf("| %d |", depths[d]);
        for (m = 0; m < NMETHODS; m++) {
#if !defined(WITH_LIBUNWIND)
            if (m == M_UNW)
                continue;
#endif
            printf(" %.1f |", results[m]);
        }
        printf(" %.0fx | %.1fx |\n", results[M_BT] / results[M_PCC],
               results[M_WALK] / results[M_PCC]);
        ctxprof_pcc_set_deinit(&pcc_set);
        ctxprof_pcc_set_deinit(&walk_set);
    }
    (void)method_name;
    return 0;
}
