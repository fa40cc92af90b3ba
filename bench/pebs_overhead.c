/* Issue 6, benchmark 1: what sampling costs the sampled program, and whose
   cost it is.

   A CPU-bound workload (recursive calls, so the stack pointer moves; the
   same fixed amount of work every run) runs unsampled, sampled by
   ctxprof_pebs at 1, 10 and 50 kHz (one thread, reader-thread mode, the
   default ring; the level this machine has), and sampled by ICPP's timer
   sampler of ctxprof.h (a SIGPROF handler reading PC and SP from the signal
   context, the ICPP paper's "sampling by timer", sec. 6.2), on the thread's
   CPU time and on the wall clock (an exact rate). The timer sampler refuses
   rates above CTXPROF_ICPP_SAMPLER_MAX_HZ (20 kHz): its fastest row runs at
   that limit, not at 50 kHz.

   Cost = process CPU time (user + system of every thread, the reader's
   included) over the unsampled run's. Variants alternate inside each
   round; medians of ROUNDS rounds with min-max. Also samples taken and
   samples lost (the target is zero lost at 10 kHz with the default ring).

   Whose cost: at 50 kHz one sample's cost stands well above the timing
   noise of a shared machine, and is split by measurement, not by
   subtraction of noisy totals alone:
     ctxprof's part   CPU time of the reader thread (its own CPU clock),
                      the only place ctxprof runs while sampling;
     the kernel's     the same event and ring with no reader at all;
     the interrupt    the same event with every sample excluded
                      (exclude_user and exclude_kernel): the timer still
                      interrupts the thread at each period, nothing is
                      written;
     a VM exit        one cpuid instruction, which always exits to the
                      hypervisor (x86).

     pebs_overhead [ROUNDS [WORK]]  (defaults 11 and 24; at least 3 and 1)

   WORK is the number of fib(32) calls per run: `pebs_overhead 3 1` is the
   smoke run of `make test` (a second or two), which fails loudly if a
   variant cannot start (exit 1 and the library's message; 77 when the
   machine has no perf_event at all, which the smoke run counts as a skip). */
#define _GNU_SOURCE
#define CTXPROF_IMPLEMENTATION
#include "../ctxprof_pebs.h"
#include "bench.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* ---- workload ---- */

__attribute__((noinline)) uint64_t pebs_bench_fib(unsigned n);
uint64_t pebs_bench_fib(unsigned n)
{
    return n < 2 ? n : pebs_bench_fib(n - 1) + pebs_bench_fib(n - 2);
}

static volatile uint64_t result;

static int work = 24;      /* fib(32) calls per run */
static double warm_wall_s; /* the warm-up's wall-clock time: sizes the samplers' buffers */

static void workload(void)
{
    int k;
    for (k = 0; k < work; k++)
        result += pebs_bench_fib(32);
}

/* ---- measurement ---- */

static double clock_s(clockid_t c)
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

enum {
    V_NONE,
    V_PEBS1K,
    V_PEBS10K,
    V_PEBS50K,
    V_KERN50K,
    V_IRQ50K,
    V_TIMER1K,
    V_TIMER10K,
    V_WALL1K,
    V_WALL10K,
    V_WALL20K,
    NV
};
static const char *vname[NV] = {"unsampled",         "ctxprof_pebs",     "ctxprof_pebs",
                                "ctxprof_pebs",      "event, no reader", "interrupt only",
                                "ICPP timer (CPU)",  "ICPP timer (CPU)", "ICPP timer (wall)",
                                "ICPP timer (wall)", "ICPP timer (wall)"};
static const char *vrate[NV] = {"-",     "1 kHz",  "10 kHz", "50 kHz", "50 kHz", "50 kHz",
                                "1 kHz", "10 kHz", "1 kHz",  "10 kHz", "20 kHz"};
static const uint64_t vperiod[NV] = {0,       1000000, 100000,  20000,  20000, 20000,
                                     1000000, 100000,  1000000, 100000, 50000};

/* The variants whose period runs on the wall clock (the others: the
   sampled thread's CPU time, or its cycles). */
static int on_wall_clock(int v)
{
    return v == V_WALL1K || v == V_WALL10K || v == V_WALL20K;
}

typedef struct result_row {
    double cpu;        /* process CPU time, s */
    double thread_cpu; /* the sampled thread's CPU time, s */
    double wall;       /* wall-clock time, s */
    double reader_cpu; /* the reader thread's CPU time, s */
    uint64_t samples, lost;
    uint64_t irqs; /* local timer interrupts of the run's CPU during the run */
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

/* Local timer interrupts CPU cpu has taken (/proc/interrupts "LOC:"). */
static uint64_t local_timer_irqs(int cpu)
{
    char line[4096];
    uint64_t n = 0;
    FILE *f = fopen("/proc/interrupts", "r");
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f)) {
        char *p = line, *end;
        int c;
        while (*p == ' ')
            p++;
        if (strncmp(p, "LOC:", 4) != 0)
            continue;
        for (p += 4, c = 0;; p = end, c++) {
            unsigned long long v = strtoull(p, &end, 10);
            if (end == p)
                break;
            if (c == cpu)
                n = v;
        }
    }
    fclose(f);
    return n;
}

/* The timer interrupt alone: the software level's event (task-clock, the
   same period, a mapped ring) with every sample excluded. The thread stays
   on one CPU, whose local timer interrupts are counted. */
static void run_irq(uint64_t period_ns, result_row *r)
{
    struct perf_event_attr a;
    void *map;
    size_t len = (size_t)65 * 4096;
    cpu_set_t all, one;
    int cpu = sched_getcpu(), fd;
    uint64_t irq0;
    double c0, t0;
    sched_getaffinity(0, sizeof all, &all);
    CPU_ZERO(&one);
    CPU_SET((size_t)cpu, &one);
    sched_setaffinity(0, sizeof one, &one);
    irq0 = local_timer_irqs(cpu);
    c0 = cpu_s();
    t0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_TASK_CLOCK;
    a.sample_period = period_ns;
    a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
    a.exclude_user = a.exclude_kernel = a.exclude_hv = 1;
    a.disabled = 1;
    fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, (unsigned long)PERF_FLAG_FD_CLOEXEC);
    map = fd >= 0 ? mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
    if (map == MAP_FAILED) {
        perror("pebs_overhead: task-clock with every sample excluded");
        exit(1);
    }
    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
    workload();
    ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
    r->samples = ((struct perf_event_mmap_page *)map)->data_head; /* bytes: must stay 0 */
    munmap(map, len);
    close(fd);
    r->cpu = cpu_s() - c0;
    r->thread_cpu = clock_s(CLOCK_THREAD_CPUTIME_ID) - t0;
    r->irqs = local_timer_irqs(cpu) - irq0;
    sched_setaffinity(0, sizeof all, &all);
}

static result_row run(int v)
{
    result_row r;
    double c0, t0, w0;
    memset(&r, 0, sizeof r);
    if (v == V_IRQ50K) {
        run_irq(vperiod[v], &r);
        return r;
    }
    if (v == V_PEBS1K || v == V_PEBS10K || v == V_PEBS50K || v == V_KERN50K) {
        ctxprof_pebs pb;
        ctxprof_pebs_desc d;
        ctxprof_pebs_stats st;
        int st_open;
        memset(&d, 0, sizeof d);
        if (v == V_KERN50K) { /* the kernel's part alone: no reader, a ring for the whole run */
            d.mode = CTXPROF_PEBS_MANUAL;
            d.ring_pages = 2048;
        }
        d.period_ns = vperiod[v];
        d.period = 3 * vperiod[v]; /* cycles at ~3 GHz, on machines with a PMU */
        d.on_sample = sum_fn;
        c0 = cpu_s();
        t0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
        w0 = clock_s(CLOCK_MONOTONIC);
        st_open = ctxprof_pebs_open(&pb, &d);
        if (st_open != CTXPROF_OK || ctxprof_pebs_attach(&pb, 0, 0) != CTXPROF_OK) {
            fprintf(stderr, "pebs_overhead: %s\n", ctxprof_error_message(&pb.error));
            exit(st_open == CTXPROF_ERR_UNSUPPORTED ? 77 : 1); /* 77: no perf_event here */
        }
        workload();
        if (v != V_KERN50K) {
            /* everything delivered, then the reader's own CPU clock (close joins it) */
            clockid_t rc;
            ctxprof_pebs_drain(&pb);
            if (pthread_getcpuclockid(pb.impl->reader, &rc) == 0)
                r.reader_cpu = clock_s(rc);
        }
        r.thread_cpu = clock_s(CLOCK_THREAD_CPUTIME_ID) - t0;
        r.wall = clock_s(CLOCK_MONOTONIC) - w0;
        ctxprof_pebs_close(&pb);
        r.cpu = cpu_s() - c0;
        ctxprof_pebs_stats_get(&pb, &st);
        r.samples = st.samples;
        r.lost = st.lost > st.kernel_lost ? st.lost : st.kernel_lost;
        if (v == V_PEBS1K) {
            level_used = pb.level;
            snprintf(explain, sizeof explain, "%s", ctxprof_pebs_explain(&pb));
        }
        return r;
    }
    c0 = cpu_s();
    t0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
    w0 = clock_s(CLOCK_MONOTONIC);
    if (v != V_NONE) {
        ctxprof_icpp_sampler s;
        ctxprof_icpp_sampler_desc sd;
        ctxprof_error err;
        memset(&sd, 0, sizeof sd);
        sd.hz = (unsigned)(1000000000u / vperiod[v]);
        sd.wall = on_wall_clock(v);
        /* zeroed at init, inside the measured time: sized to the run (4x the
           unsampled run's periods), no larger */
        sd.capacity = (size_t)(4.0 * (double)sd.hz * warm_wall_s) + 1024;
        if (ctxprof_icpp_sampler_init(&s, &sd, &err) || ctxprof_icpp_sampler_attach(&s, &err)) {
            fprintf(stderr, "pebs_overhead: %s\n", ctxprof_error_message(&err));
            exit(1);
        }
        workload();
        ctxprof_icpp_sampler_detach(&s);
        r.samples = ctxprof_icpp_sampler_count(&s);
        r.lost = ctxprof_icpp_sampler_dropped(&s);
        ctxprof_icpp_sampler_deinit(&s);
    } else {
        workload();
    }
    r.thread_cpu = clock_s(CLOCK_THREAD_CPUTIME_ID) - t0;
    r.wall = clock_s(CLOCK_MONOTONIC) - w0;
    r.cpu = cpu_s() - c0;
    return r;
}

/* One VM exit and back, in ns: cpuid always exits to the hypervisor
   (VMX and SVM); on bare metal it costs ~100 cycles. 0 off x86. */
static double vm_exit_ns(void)
{
#if defined(__x86_64__) || defined(__i386__)
    double t0 = bench_now_ns();
    int i;
    for (i = 0; i < 2000; i++) {
        unsigned a = 0, b, c, d;
        __asm__ __volatile__("cpuid" : "+a"(a), "=b"(b), "=c"(c), "=d"(d));
    }
    return (bench_now_ns() - t0) / 2000;
#else
    return 0;
#endif
}

/* "  what   median (min-max)", values scaled by scale. */
static void cost_line(const char *what, double *v, int n, double scale)
{
    double m = bench_median(v, n) * scale;
    printf("  %-44s %7.3f (%.3f-%.3f)\n", what, m, v[0] * scale, v[n - 1] * scale);
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 11, r, v;
    result_row *res;
    /* per-round values; bench_median sorts them: [0] and [rounds-1] are min and max */
    double base[64], x[64], y[64], z[64], w[64], hz[64], exitv[64], ratio[64], m, mh;
    if (rounds < 3 || rounds > 64)
        rounds = 11;
    if (argc > 2 && atoi(argv[2]) > 0)
        work = atoi(argv[2]);
    res = (result_row *)calloc((size_t)rounds * NV, sizeof *res);
    if (!res)
        return 1;
    warm_wall_s = run(V_NONE).wall; /* warm-up */
    for (r = 0; r < rounds; r++) {
        for (v = 0; v < NV; v++) {
            int vv = (v + r) % NV; /* rotate the order between rounds */
            res[r * NV + vv] = run(vv);
        }
        exitv[r] = vm_exit_ns();
    }
    for (r = 0; r < rounds; r++)
        base[r] = res[r * NV + V_NONE].cpu;
    printf("sampling overhead, %d rounds (variants alternate), workload %.3f s CPU (median)\n",
           rounds, bench_median(base, rounds));
    printf("ctxprof_pebs level: %s (1 kHz run: %s)\n", ctxprof_pebs_level_name(level_used),
           explain);
    printf("achieved = samples per second of the sampled thread's CPU time (wall-clock timers:\n"
           "of the wall clock) in each run, median (min-max) of the %d rounds\n\n",
           rounds);
    printf("| sampler           | rate   | samples/run | achieved Hz (min-max) | lost | "
           "CPU ratio (min-max)     | ctxprof's reader, %% of the run |\n");
    printf("|-------------------|--------|-------------|-----------------------|------|"
           "-------------------------|--------------------------------|\n");
    for (v = 0; v < NV; v++) {
        uint64_t smp = 0, lost = 0;
        if (v == V_KERN50K || v == V_IRQ50K)
            continue; /* the decomposition below */
        for (r = 0; r < rounds; r++) {
            const result_row *q = &res[r * NV + v];
            x[r] = q->cpu / res[r * NV + V_NONE].cpu; /* ratio to the same round's unsampled */
            y[r] = 100 * q->reader_cpu / res[r * NV + V_NONE].cpu;
            hz[r] = (double)q->samples / (on_wall_clock(v) ? q->wall : q->thread_cpu);
            smp += q->samples;
            lost += q->lost;
        }
        m = bench_median(x, rounds); /* before reading x[0]: it sorts */
        if (v == V_NONE) {
            printf("| %-17s | %-6s | %11s | %21s | %4s | %.4f (%.4f-%.4f) | %30s |\n", vname[v],
                   vrate[v], "-", "-", "-", m, x[0], x[rounds - 1], "-");
            continue;
        }
        mh = bench_median(hz, rounds);
        printf("| %-17s | %-6s | %11llu | %7.0f (%5.0f-%5.0f) | %4llu | %.4f (%.4f-%.4f) | ",
               vname[v], vrate[v], (unsigned long long)(smp / (uint64_t)rounds), mh, hz[0],
               hz[rounds - 1], (unsigned long long)lost, m, x[0], x[rounds - 1]);
        if (v == V_PEBS1K || v == V_PEBS10K || v == V_PEBS50K) {
            m = bench_median(y, rounds);
            printf("%8.4f%% (%.4f-%.4f) |\n", m, y[0], y[rounds - 1]);
        } else {
            printf("%30s |\n", "- (no reader)");
        }
    }
    /* per sample at 50 kHz, each part paired with the unsampled run of its
       round; the interrupt-only run counts one expiry per period of the
       thread's CPU time (checked against the sampled runs: samples/expiries) */
    {
        double expiries[64];
        printf("\ncost of one sample at 50 kHz (us; median, min-max over %d rounds):\n", rounds);
        for (r = 0; r < rounds; r++) {
            const result_row *n0 = &res[r * NV + V_NONE], *p = &res[r * NV + V_PEBS50K];
            const result_row *k = &res[r * NV + V_KERN50K], *q = &res[r * NV + V_IRQ50K];
            x[r] = (p->cpu - n0->cpu) / (double)p->samples * 1e6;
            y[r] = p->reader_cpu / (double)p->samples * 1e6;
            z[r] = (k->cpu - n0->cpu) / (double)k->samples * 1e6;
            expiries[r] = q->thread_cpu / (double)vperiod[V_IRQ50K] * 1e9;
            w[r] = (q->cpu - n0->cpu) / expiries[r] * 1e6;
            ratio[r] = (double)p->samples / (p->thread_cpu / (double)vperiod[V_PEBS50K] * 1e9);
            base[r] = (double)q->irqs / expiries[r];
        }
        cost_line("ctxprof_pebs, all of it (process CPU)", x, rounds, 1);
        cost_line("of which ctxprof's reader thread", y, rounds, 1);
        cost_line("the event and ring without ctxprof (kernel)", z, rounds, 1);
        cost_line("the timer interrupt alone, nothing written", w, rounds, 1);
        cost_line("one VM exit and entry (cpuid)", exitv, rounds, 1e-3);
        for (r = 0; r < rounds; r++) {
            const result_row *wr = &res[r * NV + V_WALL20K];
            x[r] = (wr->cpu - res[r * NV + V_NONE].cpu) / (double)wr->samples * 1e6;
        }
        /* the timer sampler's limit, CTXPROF_ICPP_SAMPLER_MAX_HZ, is below 50 kHz */
        cost_line("ICPP timer (wall, 20 kHz), per signal", x, rounds, 1);
        printf("  (samples per period of thread CPU time in the 50 kHz runs: %.3f;\n"
               "   local timer interrupts per period in the interrupt-only runs: %.3f)\n",
               bench_median(ratio, rounds), bench_median(base, rounds));
    }
    free(res);
    return 0;
}
