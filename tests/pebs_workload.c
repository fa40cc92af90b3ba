/* Workload of the perf cross-check (test pebs_perf_crosscheck): two leaf
   functions in their own sections, `pebs_wl_hot` reached through recursion
   depths 0, 5, 10 and 15 of a function with a fixed-size frame, and
   `pebs_wl_hot2` through depths 2 and 9 of another one, so the stack
   pointer inside each leaf takes one value per depth.

     pebs_workload perf     just runs (under `perf record --user-regs=sp,ip`)
     pebs_workload self     samples itself with ctxprof_pebs (software level,
                            100 us) and prints "sp FUNC 0x..." per leaf sample
                            (both spend a fixed CPU time at each depth)
     pebs_workload train MAP          trains ICPP's path map of the paths part
     pebs_workload paths MAP WALK     samples the paths part through the
                            sample -> CID -> path pipeline; prints key=value
     pebs_workload plain-train MAP TRUTH   trains MAP from callchain samples
                            of the plain part (no hooks), and writes the
                            paths and heights it measures itself to TRUTH
     pebs_workload plain-paths MAP WALK    samples the plain part through
                            the pipeline with MAP, as `paths`
     pebs_workload count [MAP]        counts, with malloc and syscall()
                            interposed, the allocations made while samples
                            are drained (reader thread with three threads,
                            explicit drains, signals; through the paths
                            pipeline when MAP is given) and the
                            perf_event_open calls of probing and attaching

   The paths part: a leaf reached through two recursions whose frames have
   the same size (wl_a, wl_b), so each depth gives two paths with one CID;
   wl_b does twice the work. A walk of one frame in the sample's stack copy
   tells them apart; the kernel's callchain is the truth.

   Built by the test with -O1 -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -fno-inline
   -fno-optimize-sibling-calls, so both runs execute the same frames.

   The sampling modes work until they have the samples the tests need
   (bounded by WL_MAX_ROUNDS), not for a fixed amount of work: how many
   samples a fixed loop yields depends on the machine's speed. */
#define _GNU_SOURCE
#include <features.h> /* __GLIBC__, or not */
#include <stddef.h>
#if !defined(__GLIBC__)
/* Another libc (musl) does not give a replaced allocator its own: count
   the library's allocations through its hooks instead. */
void *wl_malloc(size_t n);
void wl_free(void *p);
#define CTXPROF_MALLOC(sz, ud) ((void)(ud), wl_malloc(sz))
#define CTXPROF_FREE(p, ud) ((void)(ud), wl_free(p))
#endif
#define CTXPROF_IMPLEMENTATION
#include "../ctxprof_pebs.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

extern const char __start_pebs_wl_sec[], __stop_pebs_wl_sec[];
extern const char __start_pebs_wl_sec2[], __stop_pebs_wl_sec2[];
static volatile unsigned long pebs_wl_sink;

__attribute__((noinline, section("pebs_wl_sec"))) void pebs_wl_hot(long n);
void pebs_wl_hot(long n)
{
    long i;
    for (i = 0; i < n; i++)
        pebs_wl_sink += (unsigned long)i;
}

__attribute__((noinline, section("pebs_wl_sec2"))) void pebs_wl_hot2(long n);
void pebs_wl_hot2(long n)
{
    long i;
    for (i = 0; i < n; i++)
        pebs_wl_sink ^= (unsigned long)i;
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

__attribute__((noinline)) void pebs_wl_rec2(int d, long n);
void pebs_wl_rec2(int d, long n)
{
    volatile char pad[120];
    pad[0] = (char)d;
    if (d == 0)
        pebs_wl_hot2(n);
    else
        pebs_wl_rec2(d - 1, n);
    pad[1] = 0;
}

static uint64_t wl_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Each depth for an amount of this thread's CPU time, not of work: at the
   100 us task-clock period of both runs that is ~400 samples per depth of
   pebs_wl_hot and ~800 per depth of pebs_wl_hot2 on any machine (a fixed
   loop count gave 103-116 samples of pebs_wl_hot2 on a fast one). */
#define WL_DEPTH_NS 40000000u
static void pebs_wl_run(void)
{
    static const int depths[] = {0, 5, 10, 15}, depths2[] = {2, 9};
    uint64_t end;
    int k;
    for (k = 0; k < 4; k++)
        for (end = wl_cpu_ns() + WL_DEPTH_NS; wl_cpu_ns() < end;)
            pebs_wl_rec(depths[k], 200000);
    for (k = 0; k < 2; k++)
        for (end = wl_cpu_ns() + 2 * WL_DEPTH_NS; wl_cpu_ns() < end;)
            pebs_wl_rec2(depths2[k], 200000);
}

/* ---- the count mode: allocations and perf_event_open calls ----

   malloc and friends, and syscall(), are defined here: glibc lets a
   program replace its allocator (every allocation, libc's own included,
   comes here), and ctxprof_pebs.h calls syscall() from this translation
   unit. Allocations are counted while wl_counting is set. */
int wl_counting;
unsigned long wl_allocs, wl_opens;

static void wl_count_alloc(void)
{
    if (__atomic_load_n(&wl_counting, __ATOMIC_RELAXED))
        __atomic_fetch_add(&wl_allocs, 1ul, __ATOMIC_RELAXED);
}
#if !defined(__GLIBC__)
void *wl_malloc(size_t n)
{
    wl_count_alloc();
    return malloc(n);
}
void wl_free(void *p)
{
    free(p);
}
#else
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void *__libc_memalign(size_t align, size_t n);
extern void __libc_free(void *p);
void *malloc(size_t n)
{
    wl_count_alloc();
    return __libc_malloc(n);
}
void *calloc(size_t n, size_t size)
{
    wl_count_alloc();
    return __libc_calloc(n, size);
}
void *realloc(void *p, size_t n)
{
    wl_count_alloc();
    return __libc_realloc(p, n);
}
void *memalign(size_t align, size_t n)
{
    wl_count_alloc();
    return __libc_memalign(align, n);
}
void *aligned_alloc(size_t align, size_t n)
{
    wl_count_alloc();
    return __libc_memalign(align, n);
}
int posix_memalign(void **out, size_t align, size_t n)
{
    void *p;
    wl_count_alloc();
    p = __libc_memalign(align, n);
    if (!p)
        return 12; /* ENOMEM */
    *out = p;
    return 0;
}
void free(void *p)
{
    __libc_free(p);
}
#endif

long syscall(long n, ...)
{
    typedef long (*sys_fn)(long, ...);
    static sys_fn real;
    long a[6];
    va_list ap;
    int k;
    va_start(ap, n);
    for (k = 0; k < 6; k++)
        a[k] = va_arg(ap, long);
    va_end(ap);
    if (!real) {
        void *sym = dlsym(RTLD_NEXT, "syscall");
        memcpy(&real, &sym, sizeof real);
    }
    if (n == SYS_perf_event_open)
        __atomic_fetch_add(&wl_opens, 1ul, __ATOMIC_RELAXED);
    return real(n, a[0], a[1], a[2], a[3], a[4], a[5]);
}

static unsigned long wl_load(unsigned long *v)
{
    return __atomic_load_n(v, __ATOMIC_RELAXED);
}

/* At most this many rounds of work while waiting for samples (a round is
   a few milliseconds; a machine that samples at all gets there first). */
#define WL_MAX_ROUNDS 4000

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

/* Samples this thread into sink at 10 kHz, with callchains and stack
   copies (top words: frameless states; frames: walks and callers'
   heights): the paths and plain parts' runs. */
static int wl_sample_start(ctxprof_pebs_sample_fn sink, void *user)
{
    ctxprof_pebs_desc d;
    memset(&d, 0, sizeof d);
    d.period_ns = 100000;
    d.period = 300000;
    d.flags = CTXPROF_PEBS_CALLCHAIN;
    d.stack_bytes = 1024;
    d.on_sample = sink;
    d.user = user;
    if (ctxprof_pebs_open(&wl_pb, &d) == CTXPROF_OK &&
        ctxprof_pebs_attach(&wl_pb, 0, 0) == CTXPROF_OK)
        return 0;
    fprintf(stderr, "pebs_workload: %s\n", ctxprof_error_message(&wl_pb.error));
    return 1;
}

static int wl_paths_begin(const char *mapfile, unsigned walk)
{
    ctxprof_pebs_paths_desc pd;
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
    return wl_sample_start(ctxprof_pebs_paths_sample, &wl_pp);
fail:
    fprintf(stderr, "pebs_workload: %s\n", ctxprof_error_message(&err));
    return 1;
}

/* Samples of the paths part resolved so far (written by the reader). */
static uint64_t wl_paths_in(const ctxprof_pebs_paths *pp)
{
    return __atomic_load_n(&pp->st.precise, __ATOMIC_RELAXED) +
           __atomic_load_n(&pp->st.ambiguous, __ATOMIC_RELAXED) +
           __atomic_load_n(&pp->st.missing, __ATOMIC_RELAXED) +
           __atomic_load_n(&pp->st.ruled_out, __ATOMIC_RELAXED);
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
           "missing=%llu\nruled_out=%llu\noutside=%llu\nnobase=%llu\nwalked=%llu\nframes=%llu\n"
           "checked=%llu\ncorrect=%llu\nincorrect=%llu\ntruth_in=%llu\nweight_a=%llu\n"
           "weight_b=%llu\n",
           ctxprof_pebs_level_name(wl_pb.level), wl_m.paths, (unsigned long long)p->samples,
           (unsigned long long)p->precise, (unsigned long long)p->ambiguous,
           (unsigned long long)p->missing, (unsigned long long)p->ruled_out,
           (unsigned long long)p->outside, (unsigned long long)p->nobase,
           (unsigned long long)p->walked, (unsigned long long)p->frames,
           (unsigned long long)p->checked, (unsigned long long)p->correct,
           (unsigned long long)p->incorrect, (unsigned long long)p->truth_in,
           (unsigned long long)wa, (unsigned long long)wb);
    ctxprof_pebs_paths_deinit(&wl_pp);
    ctxprof_icpp_map_deinit(&wl_m);
    ctxprof_symtab_deinit(&wl_st);
    return 0;
}
#endif

/* ---- the plain part: training without instrumentation ----

   pl_a and pl_b recurse into each other (frames of different sizes) down
   to pl_leaf; every function works in its own body, so each is a sampled
   leaf on its paths. Nothing of ctxprof runs in these functions: the
   sampler's callchains train the map (ctxprof_pebs_train). The truth is
   the program's own: with pl_truth set, each body notes its call path
   (a name stack of its own) and its height, read from its own SP against
   the thread's base, before any sampling; the same code then runs with
   pl_truth clear (the branch does not move the body's SP). */

#if defined(CTXPROF_ICPP_NO_HEIGHT)
static const char *pl_names[64];
static int pl_depth, pl_truth;
static char pl_truth_text[1 << 16];
static size_t pl_truth_len;

static void pl_note(uint64_t height)
{
    char line[1024];
    int k, n = snprintf(line, sizeof line, "path 1 %llu main", (unsigned long long)height);
    for (k = 0; k < pl_depth; k++)
        n += snprintf(line + n, sizeof line - (size_t)n, " %s", pl_names[k]);
    n += snprintf(line + n, sizeof line - (size_t)n, "\n");
    if (!strstr(pl_truth_text, line) && pl_truth_len + (size_t)n < sizeof pl_truth_text) {
        memcpy(pl_truth_text + pl_truth_len, line, (size_t)n + 1);
        pl_truth_len += (size_t)n;
    }
}

#define PL_ENTER(name)                                                                             \
    pl_names[pl_depth++] = name;                                                                   \
    if (pl_truth)                                                                                  \
    pl_note((uint64_t)(ctxprof_icpp_thread_base() - ctxprof_icpp_sp()))
#define PL_WORK(n)                                                                                 \
    do {                                                                                           \
        long i_;                                                                                   \
        for (i_ = 0; i_ < (n); i_++)                                                               \
            pebs_wl_sink += (unsigned long)i_;                                                     \
    } while (0)

__attribute__((noinline)) void pl_leaf(long n);
__attribute__((noinline)) void pl_a(int d, long n);
__attribute__((noinline)) void pl_b(int d, long n);
__attribute__((noinline)) void pl_run(long n);

void pl_leaf(long n)
{
    PL_ENTER("pl_leaf");
    PL_WORK(n);
    pl_depth--;
}

void pl_a(int d, long n)
{
    volatile char pad[48];
    PL_ENTER("pl_a");
    pad[0] = (char)d;
    PL_WORK(n / 2);
    if (d == 0)
        pl_leaf(n);
    else if (d % 3 == 0)
        pl_b(d - 1, n);
    else
        pl_a(d - 1, n);
    pad[1] = 0;
    pl_depth--;
}

void pl_b(int d, long n)
{
    volatile char pad[112];
    PL_ENTER("pl_b");
    pad[0] = (char)d;
    PL_WORK(n / 2);
    if (d == 0)
        pl_leaf(n);
    else if (d % 2 == 0)
        pl_a(d - 1, n);
    else
        pl_b(d - 1, n);
    pad[1] = 0;
    pl_depth--;
}

void pl_run(long n)
{
    PL_ENTER("pl_run");
    pl_a(4, n);
    pl_b(5, n);
    pl_a(2, n);
    pl_depth--;
}

static ctxprof_pebs_train pl_t;

/* Samples this thread with callchains into a training sink (main runs
   pl_run until 4000 samples are used; plain_train_end writes the map and the
   truth). Not named pl_: the test checks every trained path through a pl_
   function against the truth, and samples taken in these two (while the
   sampler closes) are not part of the workload. */
static int plain_train_begin(void)
{
    ctxprof_pebs_train_desc td;
    ctxprof_error err;
    if (ctxprof_symtab_init(&wl_st, &err))
        goto fail;
    memset(&td, 0, sizeof td);
    td.symtab = &wl_st;
    if (ctxprof_pebs_train_init(&pl_t, &td, &err))
        goto fail;
    return wl_sample_start(ctxprof_pebs_train_sample, &pl_t);
fail:
    fprintf(stderr, "pebs_workload: %s\n", ctxprof_error_message(&err));
    return 1;
}

static int plain_train_end(const char *map, const char *truth)
{
    const ctxprof_pebs_train_stats *t = &pl_t.st;
    ctxprof_error err;
    FILE *f;
    int rc = 0;
    ctxprof_pebs_close(&wl_pb);
    if (ctxprof_pebs_train_save(&pl_t, map, &err)) {
        fprintf(stderr, "pebs_workload: %s\n", ctxprof_error_message(&err));
        rc = 1;
    }
    f = fopen(truth, "w");
    if (!f || fprintf(f, "ctxprof-paths 1\n%s", pl_truth_text) < 0 || fclose(f))
        rc = 1;
    printf("level=%s\nsamples=%llu\nused=%llu\nno_chain=%llu\nnobase=%llu\noutside=%llu\n"
           "mismatch=%llu\nframeless=%llu\ntruncated=%llu\nfull=%llu\nunsettled=%llu\n"
           "rare=%llu\n",
           ctxprof_pebs_level_name(wl_pb.level), (unsigned long long)t->samples,
           (unsigned long long)t->used, (unsigned long long)t->no_chain,
           (unsigned long long)t->nobase, (unsigned long long)t->outside,
           (unsigned long long)t->mismatch, (unsigned long long)t->frameless,
           (unsigned long long)t->truncated, (unsigned long long)t->full,
           (unsigned long long)t->unsettled, (unsigned long long)t->rare);
    ctxprof_pebs_train_deinit(&pl_t);
    ctxprof_symtab_deinit(&wl_st);
    return rc;
}
#endif

/* ---- the count mode ---- */

static ctxprof_pebs_sample wl_arr[1 << 14];
static unsigned long wl_seen;
#if defined(CTXPROF_ICPP_NO_HEIGHT)
static ctxprof_pebs_paths *wl_cpp; /* the paths pipeline, when a map is given */
#endif

static void wl_count_fn(void *user, const ctxprof_pebs_sample *s)
{
    (void)user;
    /* sinks are serialized (reader, drain) or on one thread (signals); main reads it */
    __atomic_store_n(&wl_seen, wl_seen + 1, __ATOMIC_RELAXED);
#if defined(CTXPROF_ICPP_NO_HEIGHT)
    if (wl_cpp)
        ctxprof_pebs_paths_sample(wl_cpp, s);
#endif
}

typedef struct wl_thr {
    ctxprof_pebs *pb;
    pthread_barrier_t *bar;
    int rc;
} wl_thr;

static void *wl_thr_main(void *arg)
{
    wl_thr *t = (wl_thr *)arg;
    t->rc = ctxprof_pebs_attach(t->pb, 0, 0);
    pthread_barrier_wait(t->bar); /* attached */
    pthread_barrier_wait(t->bar); /* counting */
    pebs_wl_hot(20000000);
    return NULL; /* the exit: the reader's final drain of this ring (POLLHUP) */
}

static void wl_count_begin(void)
{
    wl_seen = 0;
    __atomic_store_n(&wl_allocs, 0ul, __ATOMIC_RELAXED);
    __atomic_store_n(&wl_counting, 1, __ATOMIC_SEQ_CST);
}

static void wl_count_end(const char *phase, ctxprof_pebs *pb)
{
    ctxprof_pebs_stats st;
    __atomic_store_n(&wl_counting, 0, __ATOMIC_SEQ_CST);
    ctxprof_pebs_stats_get(pb, &st);
    printf("%s_allocs=%lu\n%s_samples=%lu\n%s_lost=%llu\n", phase, wl_load(&wl_allocs), phase,
           wl_seen, phase, (unsigned long long)st.lost);
}

/* Opens a sampler in mode; *opens gets the perf_event_open calls it made. */
static int wl_count_open(ctxprof_pebs *pb, int mode, int paths, unsigned long *opens)
{
    ctxprof_pebs_desc d;
    unsigned long o = wl_load(&wl_opens);
    memset(&d, 0, sizeof d);
    d.mode = mode;
    d.period_ns = 100000;
    d.period = 300000;
    d.on_sample = wl_count_fn;
    d.samples = wl_arr;
    d.samples_cap = sizeof wl_arr / sizeof wl_arr[0];
    if (paths) {
        d.flags = CTXPROF_PEBS_CALLCHAIN;
        d.stack_bytes = 1024;
    }
    if (ctxprof_pebs_open(pb, &d) != CTXPROF_OK) {
        fprintf(stderr, "pebs_workload: %s\n", ctxprof_error_message(&pb->error));
        return 1;
    }
    *opens = wl_load(&wl_opens) - o;
    return 0;
}

/* The reader-thread phase runs around main's call of wl_run (the heights
   of training need main's frame): four threads attached (main and three
   that exit while counted, their rings drained at POLLHUP). */
static ctxprof_pebs wl_cpb;
static pthread_barrier_t wl_bar;
static pthread_t wl_th[3];
static wl_thr wl_t[3];
#if defined(CTXPROF_ICPP_NO_HEIGHT)
static ctxprof_pebs_paths wl_cpp_store;
#endif

static int wl_count_reader_begin(const char *mapfile)
{
    unsigned long probe, o;
    int k;
    /* a positive control: the counting sees libc's own allocations (the
       library's, where only those are counted) */
    wl_count_begin();
#if defined(__GLIBC__)
    fclose(fopen("/dev/null", "r"));
#else
    ctxprof__free(ctxprof__alloc(1, 16, NULL), NULL);
#endif
    __atomic_store_n(&wl_counting, 0, __ATOMIC_SEQ_CST);
    printf("control_allocs=%lu\n", wl_load(&wl_allocs));
#if defined(CTXPROF_ICPP_NO_HEIGHT)
    if (mapfile) {
        ctxprof_pebs_paths_desc pd;
        ctxprof_error err;
        if (ctxprof_icpp_map_load(&wl_m, mapfile, &err) || ctxprof_symtab_init(&wl_st, &err) ||
            ctxprof_icpp_map_bind(&wl_m, &wl_st, &err)) {
            fprintf(stderr, "pebs_workload: %s\n", ctxprof_error_message(&err));
            return 1;
        }
        memset(&pd, 0, sizeof pd);
        pd.map = &wl_m;
        pd.max_walk = CTXPROF_ICPP_FRAMES;
        if (ctxprof_pebs_paths_init(&wl_cpp_store, &pd, &err))
            return 1;
        wl_cpp = &wl_cpp_store;
    }
#endif
    if (wl_count_open(&wl_cpb, CTXPROF_PEBS_READER, mapfile != NULL, &probe))
        return 1;
    printf("level=%s\nprobe_opens=%lu\n", ctxprof_pebs_level_name(wl_cpb.level), probe);
    o = wl_load(&wl_opens);
    if (ctxprof_pebs_attach(&wl_cpb, 0, 0) != CTXPROF_OK)
        return 1;
    pthread_barrier_init(&wl_bar, NULL, 4);
    for (k = 0; k < 3; k++) {
        wl_t[k].pb = &wl_cpb;
        wl_t[k].bar = &wl_bar;
        if (pthread_create(&wl_th[k], NULL, wl_thr_main, &wl_t[k]) != 0)
            return 1;
    }
    pthread_barrier_wait(&wl_bar);
    printf("reader_attach_opens=%lu\n", wl_load(&wl_opens) - o);
    wl_count_begin();
    pthread_barrier_wait(&wl_bar);
    return 0;
}

static int wl_count_rest(void)
{
    ctxprof_pebs *pb = &wl_cpb;
    ctxprof_pebs_stats st;
    unsigned long probe, o;
    struct timespec ms = {0, 1000000};
    int k, waited;
    for (k = 0; k < WL_MAX_ROUNDS && wl_load(&wl_seen) < 800; k++)
        pebs_wl_hot(1000000);
    ctxprof_pebs_drain(pb);
    for (waited = 0; waited < 10000; waited++) { /* the exits reach the reader */
        ctxprof_pebs_stats_get(pb, &st);
        if (st.threads_exited == 3)
            break;
        nanosleep(&ms, NULL);
    }
    ctxprof_pebs_drain(pb);
    wl_count_end("reader", pb);
    printf("reader_exited=%llu\n", (unsigned long long)st.threads_exited);
    for (k = 0; k < 3; k++)
        pthread_join(wl_th[k], NULL);
    ctxprof_pebs_close(pb);
    pthread_barrier_destroy(&wl_bar);
#if defined(CTXPROF_ICPP_NO_HEIGHT)
    if (wl_cpp) {
        const ctxprof_pebs_paths_stats *p = &wl_cpp->st;
        printf("paths_samples=%llu\npaths_resolved=%llu\npaths_walked=%llu\n",
               (unsigned long long)p->samples,
               (unsigned long long)(p->precise + p->ambiguous + p->missing + p->ruled_out),
               (unsigned long long)p->walked);
        wl_cpp = NULL;
        ctxprof_pebs_paths_deinit(&wl_cpp_store);
        ctxprof_icpp_map_deinit(&wl_m);
        ctxprof_symtab_deinit(&wl_st);
    }
#endif
    /* explicit drains on this thread */
    if (wl_count_open(pb, CTXPROF_PEBS_MANUAL, 0, &probe))
        return 1;
    o = wl_load(&wl_opens);
    if (ctxprof_pebs_attach(pb, 0, 0) != CTXPROF_OK)
        return 1;
    printf("manual_attach_opens=%lu\n", wl_load(&wl_opens) - o);
    wl_count_begin();
    for (k = 0; k < WL_MAX_ROUNDS && wl_load(&wl_seen) < 200; k++) {
        pebs_wl_hot(1000000);
        ctxprof_pebs_drain(pb);
    }
    wl_count_end("manual", pb);
    ctxprof_pebs_close(pb);
    /* signals: the handler drains on the sampled thread */
    if (wl_count_open(pb, CTXPROF_PEBS_SIGNAL, 0, &probe))
        return 1;
    if (ctxprof_pebs_attach(pb, 0, 0) != CTXPROF_OK)
        return 1;
    wl_count_begin();
    for (k = 0; k < WL_MAX_ROUNDS && wl_load(&wl_seen) < 200; k++)
        pebs_wl_hot(1000000);
    wl_count_end("signal", pb);
    ctxprof_pebs_close(pb);
    return 0;
}

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
    if (strcmp(argv[1], "count") == 0) {
        if (wl_count_reader_begin(argc > 2 ? argv[2] : NULL))
            return 1;
#if defined(CTXPROF_ICPP_NO_HEIGHT)
        {
            int r; /* from main's frame: trained heights, resolved and walked */
            for (r = 0; argc > 2 && r < WL_MAX_ROUNDS && wl_paths_in(&wl_cpp_store) < 200; r++)
                wl_run(500000);
        }
#endif
        return wl_count_rest();
    }
    if (strcmp(argv[1], "plain-train") == 0 || strcmp(argv[1], "plain-paths") == 0) {
#if defined(CTXPROF_ICPP_NO_HEIGHT)
        int train = strcmp(argv[1], "plain-train") == 0, r;
        if (argc < 4)
            return 2;
        if (train) {
            pl_truth = 1; /* the truth first, unsampled */
            pl_run(1);
            pl_truth = 0;
        }
        if (train ? plain_train_begin() : wl_paths_begin(argv[2], (unsigned)atoi(argv[3])))
            return 1;
        for (r = 0;
             r < WL_MAX_ROUNDS && (train ? __atomic_load_n(&pl_t.st.used, __ATOMIC_RELAXED) < 4000
                                         : wl_paths_in(&wl_pp) < 1000);
             r++)
            pl_run(200000); /* from main's frame in both runs */
        return train ? plain_train_end(argv[2], argv[3]) : wl_paths_end();
#else
        printf("no-icpp\n");
        return 0;
#endif
    }
    if (strcmp(argv[1], "train") == 0 || strcmp(argv[1], "paths") == 0) {
#if defined(CTXPROF_ICPP_NO_HEIGHT)
        int train = strcmp(argv[1], "train") == 0;
        if (argc < 3)
            return 2;
        if (train ? wl_train_begin()
                  : wl_paths_begin(argv[2], argc > 3 ? (unsigned)atoi(argv[3]) : 0))
            return 1;
        if (train) {
            wl_run(1000); /* from main's frame in both runs */
        } else {
            int r;
            for (r = 0; r < WL_MAX_ROUNDS && wl_paths_in(&wl_pp) < 400; r++)
                wl_run(1000000);
        }
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
    for (i = 0; i < n; i++) {
        if (s[i].ip >= (uintptr_t)__start_pebs_wl_sec && s[i].ip < (uintptr_t)__stop_pebs_wl_sec)
            printf("sp pebs_wl_hot 0x%llx\n", (unsigned long long)s[i].sp);
        if (s[i].ip >= (uintptr_t)__start_pebs_wl_sec2 && s[i].ip < (uintptr_t)__stop_pebs_wl_sec2)
            printf("sp pebs_wl_hot2 0x%llx\n", (unsigned long long)s[i].sp);
    }
    return 0;
}
