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

   Built with frame pointers. Methods alternate in each round; medians.

   A second table prices the check itself by set size: a one-context set
   (always in cache) against a 500,000-context set (an 8 MiB table, probed
   in random order: most lookups miss the caches), each for trained
   contexts and for a never-trained context checked again after its report
   (CHECK mode; 1,000 such contexts, looked up lock-free in both tables).

     pcc_query [--quick]

   --quick: 200 queries per cell and 4,096 per set-size round instead of
   20,000 and 1,048,576, the smoke run of `make test` (a fraction of a
   second; the numbers mean nothing, the checks that every timed check
   found its trained context still run). */
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

static int queries = QUERIES; /* per cell; --quick lowers it */

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
    for (i = 0; i < queries; i++) {
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
    return (bench_now_ns() - t0) / queries;
}

static double results[NMETHODS];

/* A set's checks that missed: new contexts seen in CHECK mode, or dropped. */
static uint64_t missed(const ctxprof_pcc_set *set)
{
    ctxprof_pcc_stats st;
    ctxprof_pcc_set_stats(set, &st);
    return st.new_seen + st.dropped;
}

/* At the bottom of the recursion: round -1 trains both sets through the
   very calls that are timed (the walk hashes the return addresses of
   time_method's call and of fp_walk_hash's, so a check from anywhere else
   is another context), then the timed rounds check. */
static __attribute__((noinline)) void measure(ctxprof_ctx here)
{
    double t[NMETHODS][ROUNDS];
    int r, m;
    for (r = -1; r < ROUNDS; r++) {
        for (m = 0; m < NMETHODS; m++) {
            int k = (m + r + NMETHODS) % NMETHODS;
            double ns = time_method(k, here);
            if (r >= 0)
                t[k][r] = ns;
        }
        if (r < 0) {
            ctxprof_pcc_set_mode(&pcc_set, CTXPROF_PCC_CHECK);
            ctxprof_pcc_set_mode(&walk_set, CTXPROF_PCC_CHECK);
        }
    }
    if (missed(&pcc_set) || missed(&walk_set)) {
        fprintf(stderr,
                "pcc_query: a timed check missed its trained context (PCC %llu, FP walk "
                "%llu new contexts)\n",
                (unsigned long long)missed(&pcc_set), (unsigned long long)missed(&walk_set));
        exit(1);
    }
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

/* ---- the check by set size ---- */

#define BIG_N 500000             /* contexts: 1M slots of 8 bytes, half full */
#define BIG_Q (1u << 20)         /* queries per round, from a precomputed stream */
#define NEW_N 1000               /* never-trained contexts, checked in turn */

static unsigned big_q = BIG_Q; /* --quick lowers it (not below NEW_N) */

static double time_stream(ctxprof_pcc_set *set, const ctxprof_ctx *q, unsigned n)
{
    double t0 = bench_now_ns();
    unsigned i;
    uint64_t sum = 0;
    for (i = 0; i < n; i++)
        sum += (uint64_t)ctxprof_pcc_set_check(set, q[i], CTXPROF_PCC_LOC);
    sink += sum;
    return (bench_now_ns() - t0) / n;
}

static void by_size(void)
{
    static const char *const rows[2] = {"1 context (in cache)",
                                        "500,000 contexts, 8 MiB table, random order"};
    ctxprof_pcc_set_desc desc;
    ctxprof_pcc_stats st;
    ctxprof_ctx *known = (ctxprof_ctx *)malloc(big_q * sizeof *known);
    ctxprof_ctx *fresh = (ctxprof_ctx *)malloc(big_q * sizeof *fresh);
    uint64_t rng = 12345;
    unsigned i, r, k;
    if (!known || !fresh)
        return;
    printf("\ncheck cost by set size (ns/query, medians of %d rounds of %u queries)\n", ROUNDS,
           big_q);
    printf("| set | trained context | never-trained context, reported before |\n|---|---|---|\n");
    for (k = 0; k < 2; k++) {
        size_t n = k ? BIG_N : 1;
        double t[2][ROUNDS];
        memset(&desc, 0, sizeof desc);
        desc.mode = CTXPROF_PCC_TRAIN;
        desc.expected = n;
        ctxprof_pcc_set_init(&pcc_set, &desc);
        for (i = 0; i < n; i++)
            ctxprof_pcc_set_add(&pcc_set, (ctxprof_ctx)ctxprof_mix64(i + 1));
        for (i = 0; i < big_q; i++) {
            rng = ctxprof_mix64(rng);
            known[i] = (ctxprof_ctx)ctxprof_mix64(rng % n + 1);
            fresh[i] = (ctxprof_ctx)ctxprof_mix64(~(uint64_t)(i % NEW_N));
        }
        ctxprof_pcc_set_mode(&pcc_set, CTXPROF_PCC_CHECK);
        for (i = 0; i < NEW_N; i++) /* reported (no callback): remembered */
            ctxprof_pcc_set_check(&pcc_set, fresh[i], CTXPROF_PCC_LOC);
        for (r = 0; r < ROUNDS; r++) {
            t[r % 2][r] = time_stream(&pcc_set, r % 2 ? fresh : known, big_q);
            t[(r + 1) % 2][r] = time_stream(&pcc_set, (r + 1) % 2 ? fresh : known, big_q);
        }
        ctxprof_pcc_set_stats(&pcc_set, &st);
        printf("| %s | %.1f | %.1f |%s\n", rows[k], bench_median(t[0], ROUNDS),
               bench_median(t[1], ROUNDS), st.new_seen == NEW_N ? "" : " (reports dropped!)");
        ctxprof_pcc_set_deinit(&pcc_set);
    }
    free(known);
    free(fresh);
}

int main(int argc, char **argv)
{
    static const int depths[3] = {10, 20, 50};
    ctxprof_pcc_set_desc desc;
    int d, m;
    if (argc == 2 && strcmp(argv[1], "--quick") == 0) {
        queries = 200;
        big_q = 4096;
    } else if (argc > 1) {
        fprintf(stderr, "usage: pcc_query [--quick]\n");
        return 2;
    }
    stack_top = (uintptr_t)__builtin_frame_address(0);
    printf("%s, %d queries x %d rounds per cell, medians (ns/query)\n", __VERSION__, queries,
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
    by_size();
    (void)method_name;
    return 0;
}
