/* hotfuncs - the shortest useful ctxprof_pebs program: sample every thread
   of a process and print where the time goes, by function and by stack
   height (the ICPP context identifier), with no instrumentation at all.

   Three threads do different work: a hash loop, a recursive sort, and a
   recursion that reaches the same leaf function at three depths. Each sample carries
   (PC, SP); the PC is mapped to its function with ctxprof_symtab, and the
   height above the thread's stack base tells the recursion depths apart.

     hotfuncs [SECS]        (default 1)

   Exit status: 0, 1 on an error, 2 on a usage error, 77 when perf_event
   sampling is not available here (the message says why).

   Build: cc -O2 -fno-omit-frame-pointer hotfuncs.c -lpthread (see the
   Makefile). On a machine without a PMU it says which level it used. */
#define _GNU_SOURCE
#define CTXPROF_IMPLEMENTATION
#include "../../ctxprof_pebs.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

static volatile int stop;
static volatile unsigned long sink;
static ctxprof_pebs pb;

/* Each thread attaches itself: its samples then carry heights above its
   own stack base (a thread attached by id from elsewhere has no base). */
static void attach_me(void)
{
    if (ctxprof_pebs_attach(&pb, 0, 0) != CTXPROF_OK)
        fprintf(stderr, "hotfuncs: %s\n", ctxprof_error_message(&pb.error));
}

NOINLINE static unsigned long hash_block(unsigned long x)
{
    int i;
    for (i = 0; i < 4096; i++)
        x = (x ^ (x >> 13)) * 0x9E3779B97F4A7C15ul + (unsigned long)i;
    return x;
}

NOINLINE static void sort_range(int *a, int lo, int hi)
{
    int i = lo, j = hi, p = a[(lo + hi) / 2];
    while (i <= j) {
        while (a[i] < p)
            i++;
        while (a[j] > p)
            j--;
        if (i <= j) {
            int t = a[i];
            a[i++] = a[j];
            a[j--] = t;
        }
    }
    if (lo < j)
        sort_range(a, lo, j);
    if (i < hi)
        sort_range(a, i, hi);
}

NOINLINE static unsigned long leaf_work(int n)
{
    unsigned long x = (unsigned long)n;
    int i;
    for (i = 0; i < 20000; i++)
        x = x * 6364136223846793005ul + 1442695040888963407ul;
    return x;
}

NOINLINE static unsigned long descend(int depth)
{
    volatile char frame[96]; /* a fixed frame: heights move by its size */
    frame[0] = (char)depth;
    return depth ? descend(depth - 1) + (unsigned long)frame[0] : leaf_work(depth);
}

static void *hasher(void *arg)
{
    unsigned long x = 1;
    (void)arg;
    attach_me();
    while (!stop)
        x = hash_block(x);
    sink += x;
    return NULL;
}

static void *sorter(void *arg)
{
    static int a[1 << 16];
    unsigned s = 7;
    (void)arg;
    attach_me();
    while (!stop) {
        size_t i;
        for (i = 0; i < sizeof a / sizeof a[0]; i++)
            a[i] = (int)((s = s * 1103515245u + 12345u) >> 8);
        sort_range(a, 0, (int)(sizeof a / sizeof a[0]) - 1);
    }
    return NULL;
}

static void *descender(void *arg)
{
    unsigned long x = 0;
    (void)arg;
    attach_me();
    while (!stop)
        x += descend(2) + descend(9) + descend(9) + descend(20);
    sink += x;
    return NULL;
}

/* ---- the report ---- */

typedef struct funcstat {
    uintptr_t func;
    unsigned long n;
} funcstat;

static int by_count(const void *a, const void *b)
{
    const funcstat *x = (const funcstat *)a, *y = (const funcstat *)b;
    return x->n < y->n ? 1 : x->n > y->n ? -1 : (x->func > y->func) - (x->func < y->func);
}

static int by_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    static ctxprof_pebs_sample samples[1 << 16];
    double secs = 1.0;
    pthread_t th[3];
    void *(*fn[3])(void *) = {hasher, sorter, descender};
    ctxprof_pebs_desc d;
    ctxprof_pebs_stats st;
    ctxprof_symtab sy;
    ctxprof_error err;
    const ctxprof_pebs_sample *s;
    struct timespec ts;
    funcstat *f;
    uint64_t *h;
    size_t n, i, k, nf = 0, nh = 0;
    int t, rc;

    if (argc > 1) { /* atof took "-1" and "x" for seconds */
        char *end;
        secs = strtod(argv[1], &end);
        if (argc > 2 || end == argv[1] || *end || !(secs > 0 && secs <= 3600)) {
            fprintf(stderr, "usage: hotfuncs [SECS]  (seconds above 0, at most 3600)\n");
            return 2;
        }
    }
    memset(&d, 0, sizeof d);
    d.period_ns = 250000; /* 4 kHz per thread (software level) */
    d.period = 1000003;   /* ~1M cycles, as ICPP (hardware levels) */
    d.samples = samples;  /* the simplest sink: an array, read after close */
    d.samples_cap = sizeof samples / sizeof samples[0];
    if ((rc = ctxprof_pebs_open(&pb, &d)) != CTXPROF_OK) {
        fprintf(stderr, "hotfuncs: %s\n", ctxprof_error_message(&pb.error));
        fprintf(stderr, "hotfuncs: %s\n", ctxprof_pebs_explain(&pb));
        return rc == CTXPROF_ERR_UNSUPPORTED ? 77 : 1; /* 77: no sampling here (demo.sh) */
    }
    for (t = 0; t < 3; t++)
        if (pthread_create(&th[t], NULL, fn[t], NULL) != 0)
            return 1;
    ts.tv_sec = (time_t)secs;
    ts.tv_nsec = (long)((secs - (double)ts.tv_sec) * 1e9);
    nanosleep(&ts, NULL);
    stop = 1;
    for (t = 0; t < 3; t++)
        pthread_join(th[t], NULL);
    ctxprof_pebs_close(&pb); /* the reader drains every ring a last time */
    ctxprof_pebs_stats_get(&pb, &st);
    s = ctxprof_pebs_samples(&pb, &n);

    printf("level: %s\n", ctxprof_pebs_explain(&pb));
    printf("%zu samples from %llu threads, %llu lost, %llu beyond the array\n", n,
           (unsigned long long)st.threads, (unsigned long long)(st.lost + st.kernel_lost),
           (unsigned long long)st.array_full);
    if (ctxprof_symtab_init(&sy, &err) != CTXPROF_OK) {
        fprintf(stderr, "hotfuncs: %s\n", ctxprof_error_message(&err));
        return 1;
    }
    f = (funcstat *)calloc(n + 1, sizeof *f);
    h = (uint64_t *)calloc(n + 1, sizeof *h);
    if (!f || !h) {
        fprintf(stderr, "hotfuncs: out of memory for %zu samples\n", n);
        free(f);
        free(h);
        ctxprof_symtab_deinit(&sy);
        return 1;
    }
    for (i = 0; i < n; i++) {
        uintptr_t fu = ctxprof_symtab_func(&sy, (uintptr_t)s[i].ip);
        for (k = 0; k < nf && f[k].func != fu; k++)
            ;
        if (k == nf)
            f[nf++].func = fu;
        f[k].n++;
        if (fu == ctxprof_symtab_func(&sy, (uintptr_t)leaf_work + 1) && s[i].height)
            h[nh++] = s[i].height;
    }
    qsort(f, nf, sizeof *f, by_count);
    printf("\nhottest functions:\n");
    for (k = 0; k < nf && k < 8; k++) {
        const char *nm = f[k].func ? ctxprof_symtab_name(&sy, f[k].func) : NULL;
        printf("  %5.1f%%  %s\n", 100.0 * (double)f[k].n / (double)(n ? n : 1),
               nm ? nm : "(unknown)");
    }
    /* leaf_work at three recursion depths of descend: three stack heights */
    qsort(h, nh, sizeof *h, by_u64);
    printf("\nleaf_work by stack height (bytes above the thread's base; descend's frame "
           "separates the depths):\n");
    for (i = 0; i < nh;) {
        size_t j = i;
        while (j < nh && h[j] == h[i])
            j++;
        if ((j - i) * 50 >= nh) /* modes with >= 2% of the samples */
            printf("  height %6llu  %5.1f%% of leaf_work's samples\n", (unsigned long long)h[i],
                   100.0 * (double)(j - i) / (double)nh);
        i = j;
    }
    free(f);
    free(h);
    ctxprof_symtab_deinit(&sy);
    return 0;
}
