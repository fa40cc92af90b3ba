/* Workload of the perf cross-check (test pebs_perf_crosscheck): a leaf
   function `pebs_wl_hot` in its own section, reached through recursion
   depths 0, 5, 10 and 15 of a function with a fixed-size frame, so the
   stack pointer inside the leaf takes four values spaced by five frames.

     pebs_workload perf     just runs (under `perf record --user-regs=sp,ip`)
     pebs_workload self     samples itself with ctxprof_pebs (software level,
                            100 us) and prints "sp 0x..." per leaf sample
     pebs_workload train MAP          trains ICPP's path map of the paths part
     pebs_workload paths MAP WALK     samples the paths part through the
                            sample -> CID -> path pipeline; prints key=value

   The paths part: a leaf reached through two recursions whose frames have
   the same size (wl_a, wl_b), so each depth gives two paths with one CID;
   wl_b does twice the work. A walk of one frame in the sample's stack copy
   tells them apart; the kernel's callchain is the truth.

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

#if defined(CTXPROF_ICPP_NO_HEIGHT)
/* ---- the paths part ---- */

#if !defined(__GNUC__) && !defined(__clang__)
#error "the paths part uses CTXPROF_ICPP_FUNC's cleanup form"
#endif

__attribute__((noinline)) void wl_leaf(long n);
__attribute__((noinline)) void wl_a(int d, long n);
__attribute__((noinline)) void wl_b(int d, long n);
__attribute__((noinline)) void wl_run(long n);

void wl_leaf(long n)
{
    CTXPROF_ICPP_FUNC(wl_leaf);
    long i;
    for (i = 0; i < n; i++)
        pebs_wl_sink += (unsigned long)i;
}

void wl_a(int d, long n)
{
    CTXPROF_ICPP_FUNC(wl_a);
    volatile char pad[64];
    pad[0] = (char)d;
    if (d)
        wl_a(d - 1, n);
    else
        wl_leaf(n);
    pad[1] = 0;
}

void wl_b(int d, long n)
{
    CTXPROF_ICPP_FUNC(wl_b);
    volatile char pad[64];
    pad[0] = (char)d;
    if (d)
        wl_b(d - 1, n);
    else
        wl_leaf(n);
    pad[1] = 0;
}

void wl_run(long n)
{
    CTXPROF_ICPP_FUNC(wl_run);
    static const int depths[] = {1, 3, 6};
    int k;
    for (k = 0; k < 3; k++) {
        wl_a(depths[k], n);
        wl_b(depths[k], 2 * n);
    }
}

/* Training and sampling call wl_run from the same frame (main's): heights
   are measured from the thread's base, so the frames above wl_run must be
   the same in both runs, as ICPP requires of the binary. The setup and the
   report are separate functions that have returned by then. */
static ctxprof_icpp_map wl_m;
static ctxprof_symtab wl_st;
static ctxprof_pebs_paths wl_pp;
static ctxprof_pebs wl_pb;

static int wl_train_begin(void)
{
    ctxprof_error err;
    if (ctxprof_icpp_train_start(NULL, &err) == CTXPROF_OK)
        return 0;
    fprintf(stderr, "pebs_workload: %s\n", ctxprof_error_message(&err));
    return 1;
}

static int wl_train_end(const char *map)
{
    ctxprof_error err;
    ctxprof_icpp_train_stop();
    if (ctxprof_icpp_train_save(map, &err) == CTXPROF_OK)
        return 0;
    fprintf(stderr, "pebs_workload: %s\n", ctxprof_error_message(&err));
    return 1;
}

static int wl_paths_begin(const char *mapfile, unsigned walk)
{
    ctxprof_pebs_paths_desc pd;
    ctxprof_pebs_desc d;
    ctxprof_error err;
    if (ctxprof_icpp_map_load(&wl_m, mapfile, &err) || ctxprof_symtab_init(&wl_st, &err) ||
        ctxprof_icpp_map_bind(&wl_m, &wl_st, &err))
        goto fail;
    memset(&pd, 0, sizeof pd);
    pd.map = &wl_m;
    pd.max_walk = walk;
    pd.ambiguous = CTXPROF_PEBS_AMBIG_DROP;
    pd.unit_weight = 1;
    if (ctxprof_pebs_paths_init(&wl_pp, &pd, &err))
        goto fail;
    memset(&d, 0, sizeof d);
    d.period_ns = 100000;
    d.period = 300000;
    d.flags = CTXPROF_PEBS_CALLCHAIN;
    d.stack_bytes = 1024;
    d.on_sample = ctxprof_pebs_paths_sample;
    d.user = &wl_pp;
    if (ctxprof_pebs_open(&wl_pb, &d) != CTXPROF_OK ||
        ctxprof_pebs_attach(&wl_pb, 0, 0) != CTXPROF_OK) {
        fprintf(stderr, "pebs_workload: %s\n", ctxprof_error_message(&wl_pb.error));
        return 1;
    }
    return 0;
fail:
    fprintf(stderr, "pebs_workload: %s\n", ctxprof_error_message(&err));
    return 1;
}

static int wl_paths_end(void)
{
    const ctxprof_pebs_paths_stats *p = &wl_pp.st;
    uint64_t wa = 0, wb = 0;
    size_t i;
    ctxprof_pebs_close(&wl_pb);
    for (i = 0; i < wl_m.paths; i++) {
        uint32_t f[64];
        size_t n = ctxprof_icpp_map_path_funcs(&wl_m, (uint32_t)i, f, 64), k;
        int has_a = 0, has_b = 0;
        for (k = 0; k < n && k < 64; k++) {
            const char *nm = ctxprof_icpp_map_func_name(&wl_m, f[k]);
            has_a |= strcmp(nm, "wl_a") == 0;
            has_b |= strcmp(nm, "wl_b") == 0;
        }
        if (has_a)
            wa += wl_pp.path_weight[i];
        if (has_b)
            wb += wl_pp.path_weight[i];
    }
    printf("level=%s\nmap_paths=%zu\nsamples=%llu\nprecise=%llu\nambiguous=%llu\n"
           "missing=%llu\noutside=%llu\nnobase=%llu\nwalked=%llu\nframes=%llu\n"
           "checked=%llu\ncorrect=%llu\nincorrect=%llu\ntruth_in=%llu\nweight_a=%llu\n"
           "weight_b=%llu\n",
           ctxprof_pebs_level_name(wl_pb.level), wl_m.paths, (unsigned long long)p->samples,
           (unsigned long long)p->precise, (unsigned long long)p->ambiguous,
           (unsigned long long)p->missing, (unsigned long long)p->outside,
           (unsigned long long)p->nobase, (unsigned long long)p->walked,
           (unsigned long long)p->frames, (unsigned long long)p->checked,
           (unsigned long long)p->correct, (unsigned long long)p->incorrect,
           (unsigned long long)p->truth_in, (unsigned long long)wa, (unsigned long long)wb);
    ctxprof_pebs_paths_deinit(&wl_pp);
    ctxprof_icpp_map_deinit(&wl_m);
    ctxprof_symtab_deinit(&wl_st);
    return 0;
}
#endif

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
    if (strcmp(argv[1], "train") == 0 || strcmp(argv[1], "paths") == 0) {
#if defined(CTXPROF_ICPP_NO_HEIGHT)
        int train = strcmp(argv[1], "train") == 0;
        if (argc < 3)
            return 2;
        if (train ? wl_train_begin()
                  : wl_paths_begin(argv[2], argc > 3 ? (unsigned)atoi(argv[3]) : 0))
            return 1;
        wl_run(train ? 1000 : 12000000); /* from main's frame in both runs */
        return train ? wl_train_end(argv[2]) : wl_paths_end();
#else
        printf("no-icpp\n");
        return 0;
#endif
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
