/* Issue 6, benchmark 1: what sampling costs the sampled program.

   A CPU-bound workload (recursive calls, so the stack pointer moves; the
   same fixed amount of work every run) runs unsampled, sampled by
   ctxprof_pebs at 1 kHz and 10 kHz (one thread, reader-thread mode, the
   default ring; the level this machine has), and sampled by a timer with
   a SIGPROF handler that copies PC and SP from the signal context (the
   ICPP paper's "sampling by timer", sec. 6.2, the PMU-less alternative) at
   the same rates: ICPP's sampler of ctxprof.h (thread CPU time, and wall
   clock for an exact rate) when the build has it, else a minimal one here.

   Cost = process CPU time (user + system of every thread, the reader's
   included) over the unsampled run's, and wall time likewise. Variants
   alternate inside each round; medians of ROUNDS rounds with min-max.
   Also: samples taken and samples lost (the target is zero lost at 10 kHz
   with the default ring), and the cost of one sample measured at 50 kHz,
   where it stands well above the timing noise of a shared machine; the
   overhead at a rate f is f times it. A CPU-time timer fires from the
   scheduler tick: it cannot sample faster than CONFIG_HZ, whatever it is
   asked for (see its samples/run).

     pebs_overhead [ROUNDS]        (default 11) */
#define _GNU_SOURCE
#define CTXPROF_IMPLEMENTATION
#include "../ctxprof_pebs.h"
#include "bench.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

/* ---- workload ---- */

__attribute__((noinline)) uint64_t pebs_bench_fib(unsigned n);
uint64_t pebs_bench_fib(unsigned n)
{
    return n < 2 ? n : pebs_bench_fib(n - 1) + pebs_bench_fib(n - 2);
}

static volatile uint64_t result;

static void workload(void)
{
    int k;
    for (k = 0; k < 24; k++)
        result += pebs_bench_fib(32);
}

/* ---- timer + SIGPROF sampler ---- */

typedef struct tsample {
    uint64_t pc, sp;
} tsample;
#define TMAX (1u << 16)
static tsample tbuf[TMAX];
static size_t tlen;

static void prof_handler(int sig, siginfo_t *si, void *ucv)
{
    ucontext_t *uc = (ucontext_t *)ucv;
    size_t k = __atomic_fetch_add(&tlen, (size_t)1, __ATOMIC_RELAXED);
    (void)sig;
    (void)si;
    if (k < TMAX) {
#if defined(__x86_64__)
        tbuf[k].pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
        tbuf[k].sp = (uint64_t)uc->uc_mcontext.gregs[REG_RSP];
#elif defined(__aarch64__)
        tbuf[k].pc = (uint64_t)uc->uc_mcontext.pc;
        tbuf[k].sp = (uint64_t)uc->uc_mcontext.sp;
#else
        (void)uc;
#endif
    }
}

static timer_t timer_start(uint64_t period_ns)
{
    struct sigevent sev;
    struct itimerspec its;
    struct sigaction sa;
    timer_t t;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = prof_handler;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGPROF, &sa, NULL);
    memset(&sev, 0, sizeof sev);
    sev.sigev_notify = SIGEV_THREAD_ID;
    sev.sigev_signo = SIGPROF;
    sev._sigev_un._tid = (int)syscall(SYS_gettid);
    if (timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &t) != 0) {
        perror("timer_create");
        exit(1);
    }
    its.it_interval.tv_sec = (time_t)(period_ns / 1000000000u);
    its.it_interval.tv_nsec = (long)(period_ns % 1000000000u);
    its.it_value = its.it_interval;
    timer_settime(t, 0, &its, NULL);
    return t;
}

/* ---- measurement ---- */

static double now_s(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

#if defined(CTXPROF_ICPP_NO_HEIGHT)
#define HAVE_ICPP_SAMPLER 1
enum {
    V_NONE,
    V_PEBS1K,
    V_PEBS10K,
    V_PEBS50K,
    V_KERN50K,
    V_TIMER1K,
    V_TIMER10K,
    V_WALL1K,
    V_WALL10K,
    V_WALL50K,
    NV
};
static const char *vname[NV] = {"unsampled",        "ctxprof_pebs",      "ctxprof_pebs",
                                "ctxprof_pebs",     "event, no reader",  "ICPP timer (CPU)",
                                "ICPP timer (CPU)", "ICPP timer (wall)", "ICPP timer (wall)",
                                "ICPP timer (wall)"};
static const char *vrate[NV] = {"-",     "1 kHz",  "10 kHz", "50 kHz", "50 kHz",
                                "1 kHz", "10 kHz", "1 kHz",  "10 kHz", "50 kHz"};
static const uint64_t vperiod[NV] = {0,       1000000, 100000,  20000,  20000,
                                     1000000, 100000,  1000000, 100000, 20000};
#else
enum { V_NONE, V_PEBS1K, V_PEBS10K, V_PEBS50K, V_KERN50K, V_TIMER1K, V_TIMER10K, NV };
static const char *vname[NV] = {"unsampled",      "ctxprof_pebs",     "ctxprof_pebs",
                                "ctxprof_pebs",   "event, no reader", "timer + SIGPROF",
                                "timer + SIGPROF"};
static const char *vrate[NV] = {"-", "1 kHz", "10 kHz", "50 kHz", "50 kHz", "1 kHz", "10 kHz"};
static const uint64_t vperiod[NV] = {0, 1000000, 100000, 20000, 20000, 1000000, 100000};
#endif

typedef struct result_row {
    double cpu, wall;
    uint64_t samples, lost;
} result_row;

static int level_used;
static char explain[800];

/* A sink that touches each sample, so the drain is not optimized away. */
static volatile uint64_t sink_sum;
static void sum_fn(void *user, const ctxprof_pebs_sample *s)
{
    (void)user;
    sink_sum += s->ip ^ s->sp;
}

static result_row run(int v)
{
    result_row r;
    ctxprof_pebs pb;
    ctxprof_pebs_stats st;
    timer_t t = 0;
    double c0, w0;
    memset(&r, 0, sizeof r);
    tlen = 0;
    if (v == V_PEBS1K || v == V_PEBS10K || v == V_PEBS50K || v == V_KERN50K) {
        ctxprof_pebs_desc d;
        memset(&d, 0, sizeof d);
        if (v == V_KERN50K) { /* the kernel's part alone: no reader, a ring for the whole run */
            d.mode = CTXPROF_PEBS_MANUAL;
            d.ring_pages = 2048;
        }
        d.period_ns = vperiod[v];
        d.period = 3 * vperiod[v]; /* cycles at ~3 GHz, on machines with a PMU */
        d.on_sample = sum_fn;
        c0 = cpu_s();
        w0 = now_s(CLOCK_MONOTONIC);
        if (ctxprof_pebs_open(&pb, &d) != CTXPROF_OK ||
            ctxprof_pebs_attach(&pb, 0, 0) != CTXPROF_OK) {
            fprintf(stderr, "pebs_overhead: %s\n", ctxprof_error_message(&pb.error));
            exit(1);
        }
        workload();
        ctxprof_pebs_close(&pb);
        r.cpu = cpu_s() - c0;
        r.wall = now_s(CLOCK_MONOTONIC) - w0;
        ctxprof_pebs_stats_get(&pb, &st);
        r.samples = st.samples;
        r.lost = st.lost > st.kernel_lost ? st.lost : st.kernel_lost;
        level_used = pb.level;
        snprintf(explain, sizeof explain, "%s", ctxprof_pebs_explain(&pb));
        return r;
    }
#if defined(HAVE_ICPP_SAMPLER)
    if (v != V_NONE) {
        ctxprof_icpp_sampler s;
        ctxprof_icpp_sampler_desc sd;
        ctxprof_error err;
        memset(&sd, 0, sizeof sd);
        sd.hz = (unsigned)(1000000000u / vperiod[v]);
        sd.wall = v == V_WALL1K || v == V_WALL10K || v == V_WALL50K;
        sd.capacity = v == V_WALL50K ? 1u << 19 : 1u << 14; /* zeroed at init: sized to the run */
        c0 = cpu_s();
        w0 = now_s(CLOCK_MONOTONIC);
        if (ctxprof_icpp_sampler_init(&s, &sd, &err) || ctxprof_icpp_sampler_attach(&s, &err)) {
            fprintf(stderr, "pebs_overhead: %s\n", ctxprof_error_message(&err));
            exit(1);
        }
        workload();
        ctxprof_icpp_sampler_detach(&s);
        r.cpu = cpu_s() - c0;
        r.wall = now_s(CLOCK_MONOTONIC) - w0;
        r.samples = ctxprof_icpp_sampler_count(&s);
        r.lost = ctxprof_icpp_sampler_dropped(&s);
        ctxprof_icpp_sampler_deinit(&s);
        return r;
    }
#endif
    c0 = cpu_s();
    w0 = now_s(CLOCK_MONOTONIC);
    if (v == V_TIMER1K || v == V_TIMER10K)
        t = timer_start(vperiod[v]);
    workload();
    if (t)
        timer_delete(t);
    r.cpu = cpu_s() - c0;
    r.wall = now_s(CLOCK_MONOTONIC) - w0;
    r.samples = v == V_NONE ? 0 : tlen;
    return r;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 11, r, v;
    result_row *res;
    double base_cpu[64], base_wall[64];
    if (rounds < 3 || rounds > 64)
        rounds = 11;
    res = (result_row *)calloc((size_t)rounds * NV, sizeof *res);
    if (!res)
        return 1;
    run(V_NONE); /* warm-up */
    for (r = 0; r < rounds; r++)
        for (v = 0; v < NV; v++) {
            int vv = (v + r) % NV; /* rotate the order between rounds */
            res[r * NV + vv] = run(vv);
        }
    for (r = 0; r < rounds; r++) {
        base_cpu[r] = res[r * NV + V_NONE].cpu;
        base_wall[r] = res[r * NV + V_NONE].wall;
    }
    qsort(base_cpu, (size_t)rounds, sizeof(double), bench_cmp_double);
    qsort(base_wall, (size_t)rounds, sizeof(double), bench_cmp_double);
    printf("sampling overhead, %d rounds (variants alternate), workload %.3f s CPU (median)\n",
           rounds, base_cpu[rounds / 2]);
    printf("ctxprof_pebs level: %s (%s)\n\n", ctxprof_pebs_level_name(level_used), explain);
    printf("| sampler           | rate   | samples/run | lost | CPU ratio (min-max)     | "
           "wall ratio |\n");
    printf("|-------------------|--------|-------------|------|-------------------------|"
           "------------|\n");
    for (v = 0; v < NV; v++) {
        double cr[64], wr[64];
        uint64_t smp = 0, lost = 0;
        for (r = 0; r < rounds; r++) {
            const result_row *x = &res[r * NV + v];
            /* ratio to the unsampled run of the same round */
            cr[r] = x->cpu / res[r * NV + V_NONE].cpu;
            wr[r] = x->wall / res[r * NV + V_NONE].wall;
            smp += x->samples;
            lost += x->lost;
        }
        qsort(cr, (size_t)rounds, sizeof(double), bench_cmp_double);
        qsort(wr, (size_t)rounds, sizeof(double), bench_cmp_double);
        if (v == V_NONE)
            printf("| %-17s | %-6s | %11s | %4s | %.4f (%.4f-%.4f) | %10.4f |\n", vname[v],
                   vrate[v], "-", "-", cr[rounds / 2], cr[0], cr[rounds - 1], wr[rounds / 2]);
        else
            printf("| %-17s | %-6s | %11llu | %4llu | %.4f (%.4f-%.4f) | %10.4f |\n", vname[v],
                   vrate[v], (unsigned long long)(smp / (uint64_t)rounds), (unsigned long long)lost,
                   cr[rounds / 2], cr[0], cr[rounds - 1], wr[rounds / 2]);
    }
    /* cost per sample from the 50 kHz runs: (CPU - unsampled CPU) / samples,
       paired per round; the overhead at rate f is then f times that. The
       run without a reader gives the kernel's (and hypervisor's) part. */
    {
        double c[64], k[64], cm, km;
        for (r = 0; r < rounds; r++) {
            const result_row *x = &res[r * NV + V_PEBS50K], *y = &res[r * NV + V_KERN50K];
            c[r] = x->samples ? (x->cpu - res[r * NV + V_NONE].cpu) / (double)x->samples : 0;
            k[r] = y->samples ? (y->cpu - res[r * NV + V_NONE].cpu) / (double)y->samples : 0;
        }
        qsort(c, (size_t)rounds, sizeof(double), bench_cmp_double);
        qsort(k, (size_t)rounds, sizeof(double), bench_cmp_double);
        cm = c[rounds / 2];
        km = k[rounds / 2];
        printf("\ncost per sample (50 kHz runs, median, min-max):\n");
        printf("  ctxprof_pebs, everything       %6.2f us (%.2f-%.2f): %.3f%% at 1 kHz, "
               "%.2f%% at 10 kHz\n",
               cm * 1e6, c[0] * 1e6, c[rounds - 1] * 1e6, cm * 1e3 * 100, cm * 1e4 * 100);
        printf("  kernel part (event, no reader) %6.2f us (%.2f-%.2f)\n", km * 1e6, k[0] * 1e6,
               k[rounds - 1] * 1e6);
        printf("  ctxprof's part (difference)    %6.2f us\n", (cm - km) * 1e6);
#if defined(HAVE_ICPP_SAMPLER)
        for (r = 0; r < rounds; r++) {
            const result_row *x = &res[r * NV + V_WALL50K];
            c[r] = x->samples ? (x->cpu - res[r * NV + V_NONE].cpu) / (double)x->samples : 0;
        }
        qsort(c, (size_t)rounds, sizeof(double), bench_cmp_double);
        printf("  ICPP timer (wall), a signal per sample %6.2f us (%.2f-%.2f)\n",
               c[rounds / 2] * 1e6, c[0] * 1e6, c[rounds - 1] * 1e6);
#endif
    }
    free(res);
    return 0;
}
