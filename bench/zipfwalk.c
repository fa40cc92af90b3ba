/* zipfwalk: the HCCT benchmark (../shared/workloads/zipfwalk.md) with every
   configuration in one process, alternated over several rounds:

     uninstrumented      the workers compiled without -finstrument-functions
     empty hooks         -finstrument-functions, hooks renamed to empty functions
     exact CCT           ctxprof_hcct through its hooks, CTXPROF_HCCT_CCT
     HCCT                ctxprof_hcct through its hooks, lazy Space Saving
     HCCT + bursting     the same with static bursting (20 ms / 2 ms by default)

   Prints the validation values of the workload (section 3), ns per call,
   CPU ratio against the uninstrumented run (medians of the rounds, process
   CPU time), profiler memory, node counts and the accuracy of the HCCT
   against the exact CCT of the same run.

   Usage: zipfwalk [--walks S] [--rounds R] [--phase] [--eps E] [--phi P]
                   [--burst PERIOD_US:LENGTH_US] [--skip-cct]
   --phase: the phase-change variant (section 4: the permutation multiplier
   becomes 0x85EBCA77 after S/2 walks). Build: make build/bench/zipfwalk. */
#define _GNU_SOURCE
#define CTXPROF_IMPLEMENTATION
#define CTXPROF_HCCT_HOOKS
#include "../ctxprof_hcct.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct zw_state {
    uint64_t q;
    unsigned lvl, D;
    uint64_t acc, calls;
};
typedef void (*zw_run_fn)(const uint32_t *, size_t, size_t, uint64_t, struct zw_state *);
void zwp_run(const uint32_t *ranks, size_t n, size_t change, uint64_t mult2, struct zw_state *w);
void zwi_run(const uint32_t *ranks, size_t n, size_t change, uint64_t mult2, struct zw_state *w);
void zwe_run(const uint32_t *ranks, size_t n, size_t change, uint64_t mult2, struct zw_state *w);

/* The empty hooks of the "empty hooks" copy (symbols renamed by objcopy). */
void zw_empty_enter(void *fn, void *site) __attribute__((noinline, no_instrument_function));
void zw_empty_exit(void *fn, void *site) __attribute__((noinline, no_instrument_function));
void zw_empty_enter(void *fn, void *site)
{
    __asm__ volatile("" ::"r"(fn), "r"(site));
}
void zw_empty_exit(void *fn, void *site)
{
    __asm__ volatile("" ::"r"(fn), "r"(site));
}

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

static double zw_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double zw_wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long zw_rss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "VmRSS:", 6) == 0)
            v = strtol(line + 6, NULL, 10);
    fclose(f);
    return v;
}

static int zw_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

enum { ZW_PLAIN, ZW_EMPTY, ZW_CCT, ZW_LSS, ZW_BURST, ZW_NCONF };
static const char *const zw_short[ZW_NCONF] = {"plain", "empty", "cct", "lss", "burst"};
static const char *const zw_names[ZW_NCONF] = {"uninstrumented", "empty hooks", "exact CCT",
                                               "HCCT (lazy SS)", "HCCT + bursting"};

typedef struct zw_result {
    double cpu[64], wall[64];
    int n;
    ctxprof_hcct_stats st;
    ctxprof_hcct_profile prof; /* LSS / burst: pruned at phi; CCT: pruned at phi_lo */
    int have_prof;
    long rss_kib;
} zw_result;

static void zw_die(const char *what, const ctxprof_error *e)
{
    fprintf(stderr, "zipfwalk: %s: %s\n", what, ctxprof_error_message(e));
    exit(1);
}

static size_t zw_count_hot(const ctxprof_hcct_profile *p)
{
    size_t i, k = 0;
    for (i = 1; i < p->n; i++)
        k += (p->nodes[i].flags & CTXPROF_HCCT_HOT) != 0;
    return k;
}

int main(int argc, char **argv)
{
    size_t s = 5000000, change, i;
    int rounds = 3, phase = 0, skip_cct = 0, round, c;
    const char *only = NULL; /* plain, empty, cct, lss or burst: profile one configuration */
    double eps = 2e-5, phi = 1e-4;
    unsigned bper = 20000, blen = 2000;
    uint32_t *ranks;
    zw_result res[ZW_NCONF];
    uint64_t calls = 0, acc = 0;
    ctxprof_error e;
    memset(&e, 0, sizeof e);
    memset(res, 0, sizeof res);
    for (i = 1; i < (size_t)argc; i++) {
        if (strcmp(argv[i], "--walks") == 0 && i + 1 < (size_t)argc)
            s = (size_t)strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < (size_t)argc)
            rounds = atoi(argv[++i]);
        else if (strcmp(argv[i], "--phase") == 0)
            phase = 1;
        else if (strcmp(argv[i], "--skip-cct") == 0)
            skip_cct = 1;
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < (size_t)argc)
            only = argv[++i];
        else if (strcmp(argv[i], "--eps") == 0 && i + 1 < (size_t)argc)
            eps = atof(argv[++i]);
        else if (strcmp(argv[i], "--phi") == 0 && i + 1 < (size_t)argc)
            phi = atof(argv[++i]);
        else if (strcmp(argv[i], "--burst") == 0 && i + 1 < (size_t)argc &&
                 sscanf(argv[i + 1], "%u:%u", &bper, &blen) == 2)
            i++;
        else {
            fprintf(stderr, "usage: zipfwalk [--walks S] [--rounds R] [--phase] [--eps E] "
                            "[--phi P] [--burst PERIOD_US:LENGTH_US] [--skip-cct]\n");
            return 2;
        }
    }
    if (rounds < 1 || rounds > 64 || s == 0)
        return 2;
    change = phase ? s / 2 : s;
    ranks = zw_ranks(s, 42);
    printf("zipfwalk v1%s: S = %zu walks, seed 42, R = 2^20; epsilon %g, phi %g; "
           "%d rounds, medians (min-max) of process CPU time\n",
           phase ? " phase-change variant (multiplier 0x85EBCA77 after S/2)" : "", s, eps, phi,
           rounds);

    for (round = 0; round < rounds; round++) {
        for (c = 0; c < ZW_NCONF; c++) {
            struct zw_state w;
            ctxprof_hcct t;
            ctxprof_hcct_desc d;
            zw_run_fn run = c == ZW_PLAIN ? zwp_run : c == ZW_EMPTY ? zwe_run : zwi_run;
            double c0, c1, w0, w1;
            if ((c == ZW_CCT && skip_cct) ||
                (only && c != ZW_PLAIN && strcmp(only, zw_short[c]) != 0))
                continue;
            memset(&w, 0, sizeof w);
            memset(&d, 0, sizeof d);
            d.phi = phi;
            d.epsilon = eps;
            if (c == ZW_CCT)
                d.mode = CTXPROF_HCCT_CCT;
            if (c == ZW_BURST) {
                d.burst_period_us = bper;
                d.burst_length_us = blen;
            }
            if (c >= ZW_CCT) {
                if (ctxprof_hcct_init(&t, &d, &e))
                    zw_die("init", &e);
                ctxprof_hcct_bind(&t);
            }
            c0 = zw_cpu();
            w0 = zw_wall();
            run(ranks, s, change, 0x85EBCA77u, &w);
            c1 = zw_cpu();
            w1 = zw_wall();
            if (c >= ZW_CCT)
                ctxprof_hcct_bind(NULL);
            res[c].cpu[res[c].n] = c1 - c0;
            res[c].wall[res[c].n] = w1 - w0;
            res[c].n++;
            if (round == 0 && c == ZW_PLAIN) {
                calls = w.calls;
                acc = w.acc;
            } else if (w.calls != calls || w.acc != acc) {
                printf("MISMATCH: %s computed calls %llu acc %#llx\n", zw_names[c],
                       (unsigned long long)w.calls, (unsigned long long)w.acc);
                return 1;
            }
            if (c >= ZW_CCT && round == 0) {
                double q = c == ZW_CCT ? (phi - eps) / 2 : phi;
                res[c].rss_kib = zw_rss_kib();
                ctxprof_hcct_stats_get(&t, &res[c].st);
                if (ctxprof_hcct_query(&t, c == ZW_CCT && !phase ? 1e-5 * 0.999 : q,
                                       &res[c].prof, &e))
                    zw_die("query", &e);
                if (c == ZW_CCT && !phase && q < 1e-5 * 0.999)
                    zw_die("phi - epsilon below 1e-5 is not supported here", &e);
                res[c].have_prof = 1;
            }
            if (c >= ZW_CCT)
                ctxprof_hcct_deinit(&t);
        }
    }

    if (only) {
        skip_cct = 1;
        for (c = ZW_LSS; c <= ZW_BURST; c++)
            if (!res[c].have_prof) {
                ctxprof_hcct_profile_deinit(&res[c].prof);
                memset(&res[c].prof, 0, sizeof res[c].prof);
            }
    }
    /* validation (section 3) */
    printf("\nworker calls %llu, acc %#llx", (unsigned long long)calls, (unsigned long long)acc);
    if (!phase && s == 5000000)
        printf("  [%s]", calls == 99680370u && acc == 0xd9542f6b2697f142u ? "ok" : "MISMATCH");
    printf("\n");
    if (!skip_cct) {
        const ctxprof_hcct_stats *st = &res[ZW_CCT].st;
        printf("exact CCT: %zu nodes (with main and the root), %zu leaves, max depth %zu", st->nodes,
               st->leaves, st->depth_peak);
        if (!phase && s == 5000000)
            printf("  [%s]", st->nodes == 6776430 && st->leaves == 585123 && st->depth_peak == 31
                                 ? "ok"
                                 : "MISMATCH");
        printf("\n");
        if (!phase) {
            static const double phis[3] = {1e-3, 1e-4, 1e-5};
            static const size_t want_hot[3] = {68, 903, 7022}, want_n[3] = {70, 905, 7024};
            int ok = 1, k;
            printf("hot contexts (count > floor(phi N)) and HCCT sizes:");
            for (k = 0; k < 3; k++) {
                ctxprof_hcct_profile p;
                if (ctxprof_hcct_profile_copy(&p, &res[ZW_CCT].prof, &e) ||
                    ctxprof_hcct_profile_prune(&p, phis[k], &e))
                    zw_die("prune", &e);
                printf(" phi %g: %zu / %zu;", phis[k], zw_count_hot(&p), p.n);
                ok &= zw_count_hot(&p) == want_hot[k] && p.n == want_n[k];
                ctxprof_hcct_profile_deinit(&p);
            }
            printf(s == 5000000 ? "  [%s]\n" : "%.0s\n", ok ? "ok" : "MISMATCH");
        }
    }

    /* the table */
    {
        double base = 0, med[ZW_NCONF], lo[ZW_NCONF], hi[ZW_NCONF];
        printf("\n%-18s %9s %10s %9s %11s %18s %12s\n", "configuration", "ns/call", "+ns/call",
               "CPU ratio", "min-max", "profiler memory", "tree nodes");
        for (c = 0; c < ZW_NCONF; c++) {
            double tmp[64];
            if (!res[c].n)
                continue;
            memcpy(tmp, res[c].cpu, (size_t)res[c].n * sizeof tmp[0]);
            qsort(tmp, (size_t)res[c].n, sizeof tmp[0], zw_cmp_double);
            med[c] = tmp[res[c].n / 2];
            lo[c] = tmp[0];
            hi[c] = tmp[res[c].n - 1];
            if (c == ZW_PLAIN)
                base = med[c];
        }
        for (c = 0; c < ZW_NCONF; c++) {
            double nsc;
            char mem[32] = "-", nodes[32] = "-";
            if (!res[c].n)
                continue;
            nsc = med[c] * 1e9 / (double)(calls + 1);
            if (c >= ZW_CCT) {
                snprintf(mem, sizeof mem, "%.2f MiB", (double)res[c].st.bytes / 1048576.0);
                snprintf(nodes, sizeof nodes, "%zu", res[c].st.nodes_peak);
            }
            printf("%-18s %9.2f %+10.2f %9.2f %5.2f-%-5.2f %18s %12s\n", zw_names[c], nsc,
                   nsc - base * 1e9 / (double)(calls + 1), med[c] / base, lo[c] / base,
                   hi[c] / base, mem, nodes);
        }
    }

    /* accuracy against the exact CCT */
    if (!skip_cct && !only) {
        int k;
        const ctxprof_hcct_profile *ex = &res[ZW_CCT].prof;
        for (k = ZW_LSS; k <= ZW_BURST; k++) {
            ctxprof_hcct_accuracy a;
            const ctxprof_hcct_profile *ap = &res[k].prof;
            if (ctxprof_hcct_profile_compare(ap, ex, phi, &a, &e))
                zw_die("compare", &e);
            printf("\n%s at phi %g: %zu hot contexts (exact); reported %zu, missed %zu, false "
                   "positives %zu, max error %llu (epsilon*N = %.0f), max relative error "
                   "%.2f%%, bound violations %zu; HCCT %zu nodes (exact %zu): %s\n",
                   zw_names[k], phi, a.hot, a.reported, a.missed, a.false_positives,
                   (unsigned long long)a.max_error, eps * (double)ex->total,
                   100.0 * a.max_rel_error, a.bound_violations, a.approx_hcct_nodes,
                   a.exact_hcct_nodes, a.equal ? "equal to the exact HCCT" : "differs");
            printf("stats: unwound %llu unmatched %llu reentrant %llu dropped %llu/%llu\n",
                   (unsigned long long)res[k].st.unwound, (unsigned long long)res[k].st.unmatched,
                   (unsigned long long)res[k].st.reentrant,
                   (unsigned long long)res[k].st.dropped_nodes,
                   (unsigned long long)res[k].st.dropped_depth);
            if (k == ZW_LSS)
                printf("MCCT: %zu nodes at the end, %zu at most = %.3f%% of the CCT (%zu "
                       "nodes); %llu replacements, %llu nodes pruned\n",
                       res[k].st.nodes, res[k].st.nodes_peak,
                       100.0 * (double)res[k].st.nodes_peak / (double)res[ZW_CCT].st.nodes,
                       res[ZW_CCT].st.nodes, (unsigned long long)res[k].st.replaced,
                       (unsigned long long)res[k].st.pruned);
            else
                printf("bursting: %llu of %llu calls sampled (%.2f%%), %llu bursts\n",
                       (unsigned long long)res[k].st.sampled,
                       (unsigned long long)res[k].st.events,
                       100.0 * (double)res[k].st.sampled / (double)res[k].st.events,
                       (unsigned long long)res[k].st.bursts);
        }
    }
    for (c = 0; c < ZW_NCONF; c++)
        if (res[c].have_prof)
            ctxprof_hcct_profile_deinit(&res[c].prof);
    free(ranks);
    return 0;
}
