/* hcct_bench.h: the driver shared by the HCCT benchmarks (zipfwalk,
   cparse_bench). A benchmark supplies a function that runs its workload
   once with one of three copies of its code (uninstrumented; compiled with
   -finstrument-functions and the library's hooks; the same with the hook
   symbols renamed to empty functions). The driver runs every configuration
   in the same process, alternating them over the rounds:

     uninstrumented | empty hooks | exact CCT | HCCT (lazy SS) | HCCT + bursting

   and prints, from process CPU time: ns per call (median of the rounds),
   the overhead per call, the CPU ratio to the uninstrumented run (median
   and min-max), the loop's CPU and wall time (medians), how much VmRSS grew
   from before the configuration's tree was made to the end of its loop
   (first round; VmRSS itself would charge each configuration with what
   the earlier ones left resident in the process), profiler memory (the
   library's own count) and tree nodes; then the accuracy of both HCCT
   configurations against the exact CCT of the same run. Include it in
   the TU that defines CTXPROF_IMPLEMENTATION and CTXPROF_HCCT_HOOKS. */
#ifndef HCCT_BENCH_H
#define HCCT_BENCH_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "bench.h"

enum { HB_PLAIN, HB_EMPTY, HB_CCT, HB_LSS, HB_BURST, HB_NCONF };
static const char *const hb_short[HB_NCONF] = {"plain", "empty", "cct", "lss", "burst"};
static const char *const hb_names[HB_NCONF] = {"uninstrumented", "empty hooks", "exact CCT",
                                               "HCCT (lazy SS)", "HCCT + bursting"};

/* Which copy of the workload a run uses. */
enum { HB_COPY_PLAIN, HB_COPY_EMPTY, HB_COPY_HOOKS };

typedef struct hb_result {
    double cpu[64], wall[64];
    int n;
    long rss0_kb, rss_kb;      /* VmRSS before the tree and at the end of the loop, first round */
    ctxprof_hcct_stats st;     /* first round */
    ctxprof_hcct_profile prof; /* first round: HCCT at phi; the CCT pruned below phi - eps */
    int have_prof;
} hb_result;

typedef struct hb_bench {
    int rounds;
    double phi, eps;
    unsigned burst_period_us, burst_length_us;
    int skip_cct;
    const char *only; /* one profiled configuration (with the uninstrumented one) */
    double exact_phi; /* the exact CCT's profile is pruned at this (<= phi - eps) */
    /* runs the workload once; returns 0, or nonzero when its result differs */
    int (*run)(void *ctx, int copy, int first);
    void *ctx;
    uint64_t calls; /* instrumented calls per run (for ns per call); set by run */
    hb_result res[HB_NCONF];
} hb_bench;

static double hb_wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* VmRSS of the process in KiB (-1 if unknown). */
static long hb_rss_kb(void)
{
    char line[256];
    long kb = -1;
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "VmRSS:", 6) == 0) {
            kb = strtol(line + 6, NULL, 10);
            break;
        }
    fclose(f);
    return kb;
}

/* VmRSS in KiB (-1 if unknown) before a configuration's run, its
   baseline: first the memory that earlier runs freed goes back to the OS
   (glibc keeps it resident, and this run's allocations could reuse it
   without growing VmRSS). */
static long hb_rss_base_kb(void)
{
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
    return hb_rss_kb();
}

static void hb_die(const char *what, const ctxprof_error *e)
{
    fprintf(stderr, "bench: %s: %s\n", what, ctxprof_error_message(e));
    exit(1);
}

/* Parses the options common to the benchmarks; returns the index of the
   first other argument, or -1 on a bad option. */
static int hb_options(hb_bench *b, int argc, char **argv, int i)
{
    for (; i < argc; i++) {
        if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc)
            b->rounds = atoi(argv[++i]);
        else if (strcmp(argv[i], "--eps") == 0 && i + 1 < argc)
            b->eps = atof(argv[++i]);
        else if (strcmp(argv[i], "--phi") == 0 && i + 1 < argc)
            b->phi = atof(argv[++i]);
        else if (strcmp(argv[i], "--skip-cct") == 0)
            b->skip_cct = 1;
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
            b->only = argv[++i];
        else if (strcmp(argv[i], "--burst") == 0 && i + 1 < argc &&
                 sscanf(argv[i + 1], "%u:%u", &b->burst_period_us, &b->burst_length_us) == 2)
            i++;
        else
            return i;
    }
    return i;
}

static const char hb_usage[] = "[--rounds R] [--phi P] [--eps E] [--burst PERIOD_US:LENGTH_US] "
                               "[--skip-cct] [--only plain|empty|cct|lss|burst]";

/* Runs every configuration, rounds times; returns nonzero on a result
   mismatch between configurations. */
static int hb_run_all(hb_bench *b)
{
    int round, c;
    ctxprof_error e;
    memset(&e, 0, sizeof e);
    if (b->exact_phi <= 0)
        b->exact_phi = (b->phi - b->eps) / 2;
    if (b->only)
        b->skip_cct = strcmp(b->only, "cct") != 0;
    for (round = 0; round < b->rounds; round++) {
        for (c = 0; c < HB_NCONF; c++) {
            ctxprof_hcct t;
            ctxprof_hcct_desc d;
            double c0, c1, w0, w1;
            int bad;
            if ((c == HB_CCT && b->skip_cct) ||
                (b->only && c != HB_PLAIN && strcmp(b->only, hb_short[c]) != 0))
                continue;
            if (round == 0)
                b->res[c].rss0_kb = hb_rss_base_kb();
            memset(&t, 0, sizeof t); /* deinit is harmless on the copies without a tree */
            memset(&d, 0, sizeof d);
            d.phi = b->phi;
            d.epsilon = b->eps;
            d.flags = CTXPROF_HCCT_CODE_ADDRESSES;
            if (c == HB_CCT)
                d.mode = CTXPROF_HCCT_CCT;
            if (c == HB_BURST) {
                d.burst_period_us = b->burst_period_us;
                d.burst_length_us = b->burst_length_us;
            }
            if (c >= HB_CCT) {
                if (ctxprof_hcct_init(&t, &d, &e))
                    hb_die("init", &e);
                ctxprof_hcct_bind(&t);
            }
            w0 = hb_wall();
            c0 = bench_cpu_s();
            bad = b->run(b->ctx,
                         c == HB_PLAIN ? HB_COPY_PLAIN : c == HB_EMPTY ? HB_COPY_EMPTY : HB_COPY_HOOKS,
                         round == 0 && c == HB_PLAIN);
            c1 = bench_cpu_s();
            w1 = hb_wall();
            if (round == 0)
                b->res[c].rss_kb = hb_rss_kb(); /* the tree still allocated */
            if (c >= HB_CCT)
                ctxprof_hcct_bind(NULL);
            if (bad) {
                printf("MISMATCH: the %s run computed another result\n", hb_names[c]);
                ctxprof_hcct_deinit(&t);
                return 1;
            }
            b->res[c].wall[b->res[c].n] = w1 - w0;
            b->res[c].cpu[b->res[c].n++] = c1 - c0;
            if (c >= HB_CCT && round == 0) {
                ctxprof_hcct_stats_get(&t, &b->res[c].st);
                if (ctxprof_hcct_query(&t, c == HB_CCT ? b->exact_phi : b->phi, &b->res[c].prof,
                                       &e))
                    hb_die("query", &e);
                b->res[c].have_prof = 1;
            }
            ctxprof_hcct_deinit(&t);
        }
    }
    return 0;
}

static void hb_table(hb_bench *b)
{
    double base = 0, med[HB_NCONF], lo[HB_NCONF], hi[HB_NCONF], wmed[HB_NCONF];
    double per = (double)b->calls;
    int c;
    for (c = 0; c < HB_NCONF; c++) {
        double tmp[64];
        if (!b->res[c].n)
            continue;
        memcpy(tmp, b->res[c].cpu, (size_t)b->res[c].n * sizeof tmp[0]);
        med[c] = bench_median(tmp, b->res[c].n); /* sorts tmp: min and max at its ends */
        lo[c] = tmp[0];
        hi[c] = tmp[b->res[c].n - 1];
        memcpy(tmp, b->res[c].wall, (size_t)b->res[c].n * sizeof tmp[0]);
        wmed[c] = bench_median(tmp, b->res[c].n);
        if (c == HB_PLAIN)
            base = med[c];
    }
    printf("\n+VmRSS: what VmRSS grew by from before the configuration's tree was made to the end "
           "of its loop, first round (VmRSS before the first run: %.1f MiB)\n",
           (double)b->res[HB_PLAIN].rss0_kb / 1024.0);
    printf("%-18s %9s %10s %9s %11s %8s %8s %10s %16s %12s\n", "configuration", "ns/call",
           "+ns/call", "CPU ratio", "min-max", "CPU s", "wall s", "+VmRSS", "profiler memory",
           "tree nodes");
    for (c = 0; c < HB_NCONF; c++) {
        char mem[32] = "-", nodes[32] = "-", rss[32] = "?";
        double nsc;
        if (!b->res[c].n)
            continue;
        nsc = med[c] * 1e9 / per;
        if (c >= HB_CCT) {
            snprintf(mem, sizeof mem, "%.2f MiB", (double)b->res[c].st.bytes / 1048576.0);
            snprintf(nodes, sizeof nodes, "%zu", b->res[c].st.nodes_peak);
        }
        if (b->res[c].rss0_kb >= 0 && b->res[c].rss_kb >= 0)
            snprintf(rss, sizeof rss, "%+.1f MiB",
                     (double)(b->res[c].rss_kb - b->res[c].rss0_kb) / 1024.0);
        printf("%-18s %9.2f %+10.2f %9.2f %5.2f-%-5.2f %8.3f %8.3f %10s %16s %12s\n", hb_names[c],
               nsc, nsc - base * 1e9 / per, med[c] / base, lo[c] / base, hi[c] / base, med[c],
               wmed[c], rss, mem, nodes);
    }
}

/* What bursting sampled (also without the exact CCT). */
static void hb_burst_line(const hb_bench *b)
{
    const hb_result *r = &b->res[HB_BURST];
    printf("bursting %u us every %u us: %llu of %llu calls sampled (%.2f%%) in %llu bursts; counts "
           "scaled by %.2f\n",
           b->burst_length_us, b->burst_period_us, (unsigned long long)r->st.sampled,
           (unsigned long long)r->st.events,
           r->st.events ? 100.0 * (double)r->st.sampled / (double)r->st.events : 0.0,
           (unsigned long long)r->st.bursts,
           r->st.sampled ? (double)r->st.events / (double)r->st.sampled : 0.0);
}

/* The accuracy of the two HCCT configurations against the exact CCT. */
static void hb_accuracy(hb_bench *b)
{
    const ctxprof_hcct_profile *ex = &b->res[HB_CCT].prof;
    ctxprof_error e;
    int k;
    memset(&e, 0, sizeof e);
    if (!b->res[HB_CCT].have_prof) {
        if (b->res[HB_BURST].have_prof) {
            printf("\n");
            hb_burst_line(b);
        }
        return;
    }
    for (k = HB_LSS; k <= HB_BURST; k++) {
        ctxprof_hcct_accuracy a;
        const hb_result *r = &b->res[k];
        if (!r->have_prof)
            continue;
        if (ctxprof_hcct_profile_compare(&r->prof, ex, b->phi, &a, &e))
            hb_die("compare", &e);
        printf("\n%s at phi %g: %zu hot contexts (exact); reported %zu, missed %zu, false "
               "positives %zu, max error %llu (epsilon*N = %.0f), max relative error %.2f%%, "
               "bound violations %zu; HCCT %zu nodes (exact %zu): %s\n",
               hb_names[k], b->phi, a.hot, a.reported, a.missed, a.false_positives,
               (unsigned long long)a.max_error, b->eps * (double)ex->total,
               100.0 * a.max_rel_error, a.bound_violations, a.approx_hcct_nodes,
               a.exact_hcct_nodes, a.equal ? "equal to the exact HCCT" : "differs");
        if (k == HB_LSS)
            printf("MCCT: %zu nodes at the end, %zu at most = %.3f%% of the CCT (%zu nodes); "
                   "%llu replacements (%.1f%% of the calls), %llu nodes pruned, %llu queue "
                   "rescans\n",
                   r->st.nodes, r->st.nodes_peak,
                   100.0 * (double)r->st.nodes_peak / (double)b->res[HB_CCT].st.nodes,
                   b->res[HB_CCT].st.nodes, (unsigned long long)r->st.replaced,
                   100.0 * (double)r->st.replaced / (double)b->calls,
                   (unsigned long long)r->st.pruned, (unsigned long long)r->st.rescans);
        else
            hb_burst_line(b);
    }
}

static void hb_free(hb_bench *b)
{
    int c;
    for (c = 0; c < HB_NCONF; c++)
        if (b->res[c].have_prof)
            ctxprof_hcct_profile_deinit(&b->res[c].prof);
}

#include "hb_empty.h"

#endif
