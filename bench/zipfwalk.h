/* zipfwalk.h: what the zipfwalk benchmarks share (../shared/workloads/
   zipfwalk.md): the workers' state, the type of a copy's phase-2 driver
   (bench/zipfwalk_workers.c, compiled once per copy with its own symbol
   prefix), and phase 1, the Zipf ranks of the walks. */
#ifndef ZIPFWALK_H
#define ZIPFWALK_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct zw_state {
    uint64_t q;
    unsigned lvl, D;
    uint64_t acc, calls;
};
typedef void (*zw_run_fn)(const uint32_t *, size_t, size_t, uint64_t, struct zw_state *);
/* the uninstrumented copy and the one with empty hooks (Makefile) */
void zwp_run(const uint32_t *ranks, size_t n, size_t change, uint64_t mult2, struct zw_state *w);
void zwe_run(const uint32_t *ranks, size_t n, size_t change, uint64_t mult2, struct zw_state *w);

/* splitmix64 as the workload specifies: state += golden, then mix. */
static uint64_t zw_rng;
static uint64_t zw_next(void)
{
    uint64_t z = (zw_rng += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

/* Phase 1: S Zipf(1) ranks over R = 2^20. */
static uint32_t *zw_ranks(size_t s, uint64_t seed)
{
    const size_t r = (size_t)1 << 20;
    double *cdf = (double *)malloc(r * sizeof *cdf), acc = 0, h;
    uint32_t *ranks = (uint32_t *)malloc(s * sizeof *ranks);
    size_t i;
    if (!cdf || !ranks) {
        fprintf(stderr, "zipfwalk: out of memory\n");
        exit(1);
    }
    for (i = 0; i < r; i++) {
        acc += 1.0 / (double)(i + 1);
        cdf[i] = acc;
    }
    h = cdf[r - 1];
    zw_rng = seed;
    for (i = 0; i < s; i++) {
        double x = (double)(zw_next() >> 11) * 0x1p-53 * h;
        size_t lo = 0, hi = r - 1;
        while (lo < hi) {
            size_t m = (lo + hi) >> 1;
            if (x < cdf[m])
                hi = m;
            else
                lo = m + 1;
        }
        ranks[i] = (uint32_t)lo;
    }
    free(cdf);
    return ranks;
}

#endif
