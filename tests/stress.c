/* Stress: 16 threads for a fixed time doing everything at once - annotated
   calls, training one context set and checking another - and then checking
   that every count adds up exactly: nothing lost, nothing counted twice.
   Built with ThreadSanitizer by `make stress` (and run by CI).

     stress [SECONDS] [THREADS]      defaults: 10 s, 16 threads

   Prints one line per check and exits non-zero if any fails. Each module adds
   a task: init (single-threaded), step (called in a loop by every thread,
   does a small batch), finish (single-threaded verification). */
#define _GNU_SOURCE
#define CTXPROF_IMPLEMENTATION
#include "../ctxprof.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_THREADS 64
static int nthreads = 16;
static int failures;

#define VERIFY(cond, ...)                                                                          \
    do {                                                                                           \
        printf("%s ", (cond) ? "ok  " : "FAIL");                                                   \
        printf(__VA_ARGS__);                                                                       \
        printf("\n");                                                                              \
        if (!(cond))                                                                               \
            failures++;                                                                            \
    } while (0)

static uint64_t rnd(uint64_t *s)
{
    return ctxprof_mix64((*s)++ * 0x9E3779B97F4A7C15u + 1);
}

/* ==== pcc task ====
   Universe of contexts: index i has value mix64(i). The trained set learns
   whatever the threads touch; the checked set knows [0, KNOWN) and reports
   each touched index in [KNOWN, KNOWN + FRESH) exactly once. Annotated
   recursion checks every query value against an explicit-state replay. */

#define UNIVERSE 200000
#define KNOWN 100000
#define FRESH 3000
static ctxprof_pcc_set train_set, check_set;
static unsigned char touched_train[UNIVERSE], touched_check[KNOWN + FRESH];
static unsigned reports[KNOWN + FRESH];
static uint64_t pcc_queries[MAX_THREADS], pcc_bad_values[MAX_THREADS];

static void on_report(void *user, const ctxprof_pcc_report *r)
{
    size_t i;
    (void)user;
    /* mix64 is a bijection: find the index by search over the fresh range */
    for (i = KNOWN; i < KNOWN + FRESH; i++)
        if ((ctxprof_ctx)ctxprof_mix64(i) == r->value) {
            __atomic_add_fetch(&reports[i], 1u, __ATOMIC_RELAXED);
            return;
        }
    __atomic_add_fetch(&reports[0], 1000u, __ATOMIC_RELAXED); /* a known one reported: fail */
}

static void pcc_init(void)
{
    ctxprof_pcc_set_desc d;
    size_t i;
    memset(&d, 0, sizeof d);
    d.mode = CTXPROF_PCC_TRAIN;
    d.expected = 64; /* grow many times under load */
    ctxprof_pcc_set_init(&train_set, &d);
    d.mode = CTXPROF_PCC_TRAIN;
    d.report = on_report;
    d.reports_per_sec = 1000000;
    ctxprof_pcc_set_init(&check_set, &d);
    for (i = 0; i < KNOWN; i++)
        ctxprof_pcc_set_add(&check_set, (ctxprof_ctx)ctxprof_mix64(i));
    ctxprof_pcc_set_mode(&check_set, CTXPROF_PCC_CHECK);
}

static ctxprof_ctx pcc_rec(int depth, ctxprof_ctx expect, int t)
{
    CTXPROF_PCC_FUNC();
    ctxprof_ctx site = (ctxprof_ctx)(1000 + depth * 7 + t);
    if (ctxprof__pcc_here != expect)
        pcc_bad_values[t]++;
    if (depth == 0)
        return CTXPROF_PCC_HERE(site);
    {
        ctxprof_ctx r;
        CTXPROF_PCC_CALL(site, r = pcc_rec(depth - 1, ctxprof_pcc_next(expect, site), t));
        if (ctxprof_pcc_tls.v != expect)
            pcc_bad_values[t]++;
        return r;
    }
}

static void pcc_step(int t, uint64_t *seed)
{
    int k;
    for (k = 0; k < 64; k++) {
        size_t i = (size_t)(rnd(seed) % UNIVERSE), j = (size_t)(rnd(seed) % (KNOWN + FRESH));
        ctxprof_pcc_set_check(&train_set, (ctxprof_ctx)ctxprof_mix64(i), CTXPROF_PCC_LOC);
        __atomic_store_n(&touched_train[i], 1, __ATOMIC_RELAXED);
        ctxprof_pcc_set_check(&check_set, (ctxprof_ctx)ctxprof_mix64(j), CTXPROF_PCC_LOC);
        __atomic_store_n(&touched_check[j], 1, __ATOMIC_RELAXED);
        pcc_queries[t] += 2;
    }
    ctxprof_pcc_tls.v = (ctxprof_ctx)t;
    pcc_rec((int)(rnd(seed) % 24), (ctxprof_ctx)t, t);
}

static void pcc_finish(void)
{
    ctxprof_pcc_stats a, b;
    uint64_t q = 0, bad = 0, trained = 0, fresh = 0, once = 0, wrong = 0;
    size_t i;
    int t;
    for (t = 0; t < nthreads; t++) {
        q += pcc_queries[t];
        bad += pcc_bad_values[t];
    }
    for (i = 0; i < UNIVERSE; i++)
        trained += touched_train[i];
    for (i = 0; i < KNOWN + FRESH; i++) {
        if (i >= KNOWN && touched_check[i]) {
            fresh++;
            once += reports[i] == 1;
        }
        if ((i < KNOWN || !touched_check[i]) && reports[i])
            wrong++;
    }
    ctxprof_pcc_set_stats(&train_set, &a);
    ctxprof_pcc_set_stats(&check_set, &b);
    VERIFY(a.queries + b.queries == q, "pcc: queries counted %llu, made %llu",
           (unsigned long long)(a.queries + b.queries), (unsigned long long)q);
    VERIFY(a.distinct == trained, "pcc: trained set holds %llu contexts, threads touched %llu",
           (unsigned long long)a.distinct, (unsigned long long)trained);
    VERIFY(b.new_seen == fresh && b.reported == fresh && once == fresh && wrong == 0,
           "pcc: %llu new contexts touched, %llu seen, %llu reported, %llu exactly once, "
           "%llu wrong reports",
           (unsigned long long)fresh, (unsigned long long)b.new_seen,
           (unsigned long long)b.reported, (unsigned long long)once, (unsigned long long)wrong);
    VERIFY(bad == 0, "pcc: %llu wrong context values in annotated recursion",
           (unsigned long long)bad);
    ctxprof_pcc_set_deinit(&train_set);
    ctxprof_pcc_set_deinit(&check_set);
}

/* ==== driver ==== */

typedef struct task {
    const char *name;
    void (*init)(void);
    void (*step)(int thread, uint64_t *seed);
    void (*finish)(void);
} task;

static const task tasks[] = {
    {"pcc", pcc_init, pcc_step, pcc_finish},
};
#define NTASKS (sizeof tasks / sizeof tasks[0])

static double deadline;
static uint64_t steps[MAX_THREADS];

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    uint64_t seed = (uint64_t)t * 1000003u + 17;
    size_t k;
    while (now_s() < deadline) {
        for (k = 0; k < NTASKS; k++)
            tasks[k].step(t, &seed);
        steps[t]++;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 10;
    pthread_t th[MAX_THREADS];
    uint64_t total = 0;
    size_t k;
    int t;
    if (argc > 2)
        nthreads = atoi(argv[2]);
    if (nthreads < 1 || nthreads > MAX_THREADS)
        nthreads = 16;
    for (k = 0; k < NTASKS; k++)
        tasks[k].init();
    deadline = now_s() + seconds;
    for (t = 0; t < nthreads; t++)
        pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
    for (t = 0; t < nthreads; t++) {
        pthread_join(th[t], NULL);
        total += steps[t];
    }
    printf("stress: %d threads x %.0f s, %llu rounds of every task\n", nthreads, seconds,
           (unsigned long long)total);
    for (k = 0; k < NTASKS; k++)
        tasks[k].finish();
    return failures ? 1 : 0;
}
