/* zw_layout: how much the placement of the code alone moves what the hooks
   cost. zipfwalk's workers (bench/zipfwalk_workers.c) are linked in
   ZWL_COPIES identical copies compiled with -finstrument-functions and the
   library's hooks, beside an uninstrumented copy and one with empty hooks:
   the copies differ only in their addresses. Each round runs every copy on
   the same chunk of walks (200,000 walks, about 4 M calls), in a random
   order, so that the VM's drift, which moves whole runs by 10%, falls on
   all of them alike. The table gives each copy's median CPU-time ratio to
   the uninstrumented run of the same round, for two trees:

     gap  bursting whose first burst (1 ms at the start) is its last: the
          always-on shadow stack between bursts, alone
     lss  lazy Space Saving, epsilon 2e-5, one tree per copy

   Usage: zw_layout [--rounds R] [--walks-per-round W]
   Build: make build/bench/zw_layout. */
#define _GNU_SOURCE
#define CTXPROF_IMPLEMENTATION
#define CTXPROF_HCCT_HOOKS
#include "../ctxprof_hcct.h"
#include "bench.h"
#include "hb_empty.h"
#include "zipfwalk.h"

#include <string.h>

#define ZWL_COPIES 6
#define ZWL_MAX_ROUNDS 1000

#define ZWL_DECL(k)                                                                                \
    void zwl##k##_run(const uint32_t *ranks, size_t n, size_t change, uint64_t mult2,              \
                      struct zw_state *w)
ZWL_DECL(0);
ZWL_DECL(1);
ZWL_DECL(2);
ZWL_DECL(3);
ZWL_DECL(4);
ZWL_DECL(5);

enum { ZWL_PLAIN, ZWL_EMPTY, ZWL_FIRST, ZWL_N = ZWL_FIRST + ZWL_COPIES };
static const zw_run_fn zwl_runs[ZWL_N] = {zwp_run,  zwe_run,  zwl0_run, zwl1_run,
                                          zwl2_run, zwl3_run, zwl4_run, zwl5_run};

/* Runs every round; t[c][r] is copy c's CPU time in round r. Returns
   nonzero when a copy's result differs from the uninstrumented one's. */
static int zwl_measure(const uint32_t *ranks, size_t s, size_t chunk, int rounds, int lss,
                       double t[ZWL_N][ZWL_MAX_ROUNDS])
{
    static ctxprof_hcct trees[ZWL_COPIES];
    ctxprof_hcct_desc d;
    ctxprof_error e;
    int c, r, bad = 0;
    memset(&d, 0, sizeof d);
    d.phi = 1e-4;
    d.epsilon = 2e-5;
    d.flags = CTXPROF_HCCT_CODE_ADDRESSES;
    if (!lss) {
        d.burst_period_us = UINT32_MAX;
        d.burst_length_us = 1000;
    }
    for (c = ZWL_FIRST; c < ZWL_N; c++)
        if (ctxprof_hcct_init(&trees[c - ZWL_FIRST], &d, &e)) {
            fprintf(stderr, "zw_layout: %s\n", e.detail);
            exit(1);
        }
    for (r = 0; r < rounds; r++) {
        const uint32_t *chunk_ranks = ranks + (size_t)r % (s / chunk) * chunk;
        int order[ZWL_N], i;
        uint64_t calls = 0, acc = 0;
        for (i = 0; i < ZWL_N; i++)
            order[i] = i;
        for (i = ZWL_N - 1; i > 0; i--) { /* Fisher-Yates on the workload's RNG */
            int j = (int)(zw_next() % (uint64_t)(i + 1)), x = order[i];
            order[i] = order[j];
            order[j] = x;
        }
        for (i = 0; i < ZWL_N; i++) {
            struct zw_state w;
            double c0;
            c = order[i];
            memset(&w, 0, sizeof w);
            ctxprof_hcct_bind(c >= ZWL_FIRST ? &trees[c - ZWL_FIRST] : NULL);
            c0 = bench_cpu_s();
            zwl_runs[c](chunk_ranks, chunk, chunk, 0x85EBCA77u, &w);
            t[c][r] = bench_cpu_s() - c0;
            ctxprof_hcct_bind(NULL);
            if (i > 0 && (w.calls != calls || w.acc != acc))
                bad = 1;
            calls = w.calls;
            acc = w.acc;
        }
    }
    for (c = ZWL_FIRST; c < ZWL_N; c++)
        ctxprof_hcct_deinit(&trees[c - ZWL_FIRST]);
    return bad;
}

int main(int argc, char **argv)
{
    static double t[ZWL_N][ZWL_MAX_ROUNDS];
    size_t chunk = 200000, s = 5000000;
    int rounds = 30, i, lss;
    uint32_t *ranks;
    for (i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--rounds") == 0)
            rounds = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--walks-per-round") == 0)
            chunk = (size_t)atol(argv[i + 1]);
        else
            break;
    }
    if (i < argc || rounds < 1 || rounds > ZWL_MAX_ROUNDS || chunk < 1 || chunk > s) {
        fprintf(stderr, "usage: zw_layout [--rounds 1..%d] [--walks-per-round 1..%zu]\n",
                ZWL_MAX_ROUNDS, s);
        return 2;
    }
    ranks = zw_ranks(s, 42);
    printf("zw_layout: %d identical copies of zipfwalk's workers with the library's hooks;\n"
           "%d rounds of %zu walks, every copy in each round in a random order; CPU time\n"
           "ratio to the uninstrumented copy of the same round: medians (empty hooks\n"
           "with quartiles), and the spread between the fastest and slowest copy\n\n",
           ZWL_COPIES, rounds, chunk);
    printf("%-5s %-21s", "tree", "empty hooks");
    for (i = 0; i < ZWL_COPIES; i++)
        printf(" copy %d", i + 1);
    printf("  spread\n");
    for (lss = 0; lss <= 1; lss++) {
        double med[ZWL_N], lo = 1e9, hi = 0;
        int c, r;
        if (zwl_measure(ranks, s, chunk, rounds, lss, t)) {
            fprintf(stderr, "zw_layout: a copy computed another result\n");
            return 1;
        }
        printf("%-5s", lss ? "lss" : "gap");
        for (c = ZWL_EMPTY; c < ZWL_N; c++) {
            double v[ZWL_MAX_ROUNDS];
            for (r = 0; r < rounds; r++)
                v[r] = t[c][r] / t[ZWL_PLAIN][r];
            med[c] = bench_median(v, rounds);
            if (c == ZWL_EMPTY) {
                printf(" %.3f [%.3f-%.3f]", med[c], v[rounds / 4], v[3 * rounds / 4]);
                continue;
            }
            lo = med[c] < lo ? med[c] : lo;
            hi = med[c] > hi ? med[c] : hi;
            printf(" %6.3f", med[c]);
        }
        printf("  %.3f\n", hi - lo);
    }
    free(ranks);
    return 0;
}
