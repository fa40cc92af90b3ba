/* zipfwalk: the HCCT benchmark (../shared/workloads/zipfwalk.md), every
   configuration in one process (see hcct_bench.h): uninstrumented, empty
   -finstrument-functions hooks, and the library's hooks with the exact CCT,
   lazy Space Saving, and lazy Space Saving with static bursting. Prints the
   workload's validation values (section 3; the enter events checked
   against the trees' totals), the timing table (with the loop's CPU and
   wall time, section 2; VmRSS as its growth over each configuration's
   run, since they share one process) and the accuracy of the HCCTs
   against the exact CCT of the same run.

   Usage: zipfwalk [--walks S] [--phase] [common options]
   --phase: the phase-change variant (section 4: the permutation multiplier
   becomes 0x85EBCA77 after S/2 walks). Build: make build/bench/zipfwalk. */
#define _GNU_SOURCE
#define CTXPROF_IMPLEMENTATION
#define CTXPROF_HCCT_HOOKS
#include "../ctxprof_hcct.h"
#include "hcct_bench.h"
#include "zipfwalk.h"

void zwi_run(const uint32_t *ranks, size_t n, size_t change, uint64_t mult2, struct zw_state *w);

typedef struct zw_ctx {
    const uint32_t *ranks;
    size_t s, change;
    uint64_t calls, acc;
    hb_bench *b;
} zw_ctx;

static int zw_run(void *arg, int copy, int first)
{
    zw_ctx *z = (zw_ctx *)arg;
    struct zw_state w;
    zw_run_fn run = copy == HB_COPY_PLAIN ? zwp_run : copy == HB_COPY_EMPTY ? zwe_run : zwi_run;
    memset(&w, 0, sizeof w);
    run(z->ranks, z->s, z->change, 0x85EBCA77u, &w);
    if (first) {
        z->calls = w.calls;
        z->acc = w.acc;
        z->b->calls = w.calls + 1; /* the workers and main */
        return 0;
    }
    return w.calls != z->calls || w.acc != z->acc;
}

static size_t zw_count_hot(const ctxprof_hcct_profile *p)
{
    size_t i, k = 0;
    for (i = 1; i < p->n; i++)
        k += (p->nodes[i].flags & CTXPROF_HCCT_HOT) != 0;
    return k;
}

/* Section 3 of the workload: calls, acc, the CCT's size, leaves, depth and
   hot contexts at three thresholds. */
static void zw_validate(const zw_ctx *z, hb_bench *b, int phase)
{
    int full = !phase && z->s == 5000000;
    ctxprof_error e;
    memset(&e, 0, sizeof e);
    printf("\nworker calls %llu, acc %#llx", (unsigned long long)z->calls,
           (unsigned long long)z->acc);
    if (full)
        printf("  [%s]", z->calls == 99680370u && z->acc == 0xd9542f6b2697f142u ? "ok" : "MISMATCH");
    printf("\n");
    {
        /* every enter event (the workers and main) reached the trees: the
           exact CCT's total and the HCCT's total are the events seen */
        uint64_t want = z->calls + 1;
        int ok = !full || want == 99680371u, c;
        printf("enter events including main %llu", (unsigned long long)want);
        for (c = HB_CCT; c <= HB_BURST; c++) {
            const ctxprof_hcct_stats *st = &b->res[c].st;
            if (!b->res[c].have_prof)
                continue;
            printf("; %s: events %llu, tree total %llu", hb_short[c],
                   (unsigned long long)st->events, (unsigned long long)st->total);
            ok &= st->events == want && (c == HB_BURST ? st->total <= want : st->total == want);
        }
        printf("  [%s]\n", ok ? "ok" : "MISMATCH");
    }
    if (b->res[HB_CCT].have_prof) {
        const ctxprof_hcct_stats *st = &b->res[HB_CCT].st;
        printf("exact CCT: %zu nodes (with main and the root), %zu leaves, max depth %zu", st->nodes,
               st->leaves, st->depth_peak);
        if (full)
            printf("  [%s]", st->nodes == 6776430 && st->leaves == 585123 && st->depth_peak == 31
                                 ? "ok"
                                 : "MISMATCH");
        printf("\n");
        if (!phase && b->exact_phi <= 1e-5) {
            static const double phis[3] = {1e-3, 1e-4, 1e-5};
            static const size_t want_hot[3] = {68, 903, 7022}, want_n[3] = {70, 905, 7024};
            int ok = 1, k;
            printf("hot contexts (count > floor(phi N)) and HCCT sizes:");
            for (k = 0; k < 3; k++) {
                ctxprof_hcct_profile p;
                if (ctxprof_hcct_profile_copy(&p, &b->res[HB_CCT].prof, &e) ||
                    ctxprof_hcct_profile_prune(&p, phis[k], &e))
                    hb_die("prune", &e);
                printf(" phi %g: %zu / %zu;", phis[k], zw_count_hot(&p), p.n);
                ok &= zw_count_hot(&p) == want_hot[k] && p.n == want_n[k];
                ctxprof_hcct_profile_deinit(&p);
            }
            if (full)
                printf("  [%s]", ok ? "ok" : "MISMATCH");
            printf("\n");
        }
    }
}

int main(int argc, char **argv)
{
    static hb_bench b;
    zw_ctx z;
    int i, phase = 0;
    memset(&z, 0, sizeof z);
    z.s = 5000000;
    b.rounds = 3;
    b.phi = 1e-4;
    b.eps = 2e-5;
    b.burst_period_us = 20000;
    b.burst_length_us = 2000;
    b.exact_phi = 1e-5 * 0.999; /* below phi - eps, and enough for the 1e-5 validation */
    for (i = 1; i < argc;) {
        i = hb_options(&b, argc, argv, i);
        if (i >= argc)
            break;
        if (strcmp(argv[i], "--walks") == 0 && i + 1 < argc) {
            z.s = (size_t)strtoull(argv[i + 1], NULL, 10);
            i += 2;
        } else if (strcmp(argv[i], "--phase") == 0) {
            phase = 1;
            i++;
        } else {
            fprintf(stderr, "usage: zipfwalk [--walks S] [--phase] %s\n", hb_usage);
            return 2;
        }
    }
    if (b.rounds < 1 || b.rounds > 64 || z.s == 0)
        return 2;
    if (b.exact_phi > b.phi - b.eps)
        b.exact_phi = (b.phi - b.eps) / 2;
    z.change = phase ? z.s / 2 : z.s;
    z.ranks = zw_ranks(z.s, 42);
    z.b = &b;
    b.run = zw_run;
    b.ctx = &z;
    printf("zipfwalk v1%s: S = %zu walks, seed 42, R = 2^20; epsilon %g, phi %g; %d rounds, "
           "medians (min-max) of process CPU time\n",
           phase ? " phase-change variant (multiplier 0x85EBCA77 after S/2)" : "", z.s, b.eps,
           b.phi, b.rounds);
    if (hb_run_all(&b))
        return 1;
    zw_validate(&z, &b, phase);
    hb_table(&b);
    hb_accuracy(&b);
    hb_free(&b);
    free((void *)z.ranks);
    return 0;
}
