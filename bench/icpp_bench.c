/* icpp_bench: ICPP benchmarks (issue 4), each printing a table of ratios.

     icpp_bench cid             CID capture at a query point, 20 frames deep,
                                against a PCC query and glibc backtrace()
     icpp_bench sampler         the timer sampler at 1 kHz against the
                                unsampled run (CPU time and wall clock)
     icpp_bench pad [--ours-only] MAP...
                                the padding searches on path maps: none, the
                                paper's random search uncapped and capped at
                                1.2x stack growth, ours at 1.2x and at the
                                growth the uncapped random search took
     icpp_bench synth KIND SEED PATHS OUT
                                writes a synthetic path map (KIND dag: no
                                recursion; rec: some recursion)
     icpp_bench cid|sampler --quick
                                one round (sampler: of runs of about 5 ms,
                                not 0.2 s), the smoke run of `make test`:
                                the numbers mean nothing, the checks run

   Timed variants alternate within one process over repeated rounds; the
   tables give medians (and min-max). Run by bench/icpp_bench.sh. */
#define CTXPROF_IMPLEMENTATION
#include "../ctxprof.h"

#include <execinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

#define NOINLINE __attribute__((noinline))
#define ROUNDS 11

static int rounds = ROUNDS; /* --quick: 1 */
static int quick;

static int bench_cmp_ns(const void *a, const void *b)
{
    return bench_cmp_double(a, b);
}

/* Median, min and max of v[0..n) (sorts v). */
static void bench_stats(double *v, int n, double *med, double *lo, double *hi)
{
    qsort(v, (size_t)n, sizeof *v, bench_cmp_ns);
    *med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    *lo = v[0];
    *hi = v[n - 1];
}

/* ---- CID capture at a query point --------------------------------------------

   The query points are noinline functions called from the bottom of a
   20-deep recursion (frame pointers on): an empty one (the call itself),
   one that captures the CID (CTXPROF_ICPP_CID: SP, the thread's base, a
   subtraction), the CID plus its candidates in a path map, a PCC query (the
   set lookup of the value its annotations keep; PCC also pays at every
   call on the way, not measured here) and glibc backtrace() of the whole
   stack, the usual way to get a calling context without instrumentation. */

static volatile uintptr_t q_sink;
static volatile ctxprof_icpp_cid q_cid_sink;
static ctxprof_pcc_set q_pcc;
static ctxprof_icpp_map q_map;
static uint32_t q_fid;
static uint64_t q_found; /* candidates found by q_cid_lookup */

NOINLINE static void q_empty(ctxprof_ctx here)
{
    (void)here;
    q_sink = 1;
}

NOINLINE static void q_cid(ctxprof_ctx here)
{
    (void)here;
    q_cid_sink = CTXPROF_ICPP_CID(q_cid);
}

/* Stores its CID like q_cid (q_measure reads the height it sees there) and
   adds up the candidates it finds: every lookup must find q_measure's two. */
NOINLINE static void q_cid_lookup(ctxprof_ctx here)
{
    ctxprof_icpp_cid c = CTXPROF_ICPP_CID(q_cid_lookup);
    const uint32_t *cand;
    (void)here;
    q_cid_sink = c;
    q_found += ctxprof_icpp_map_lookup(&q_map, q_fid, c.height, &cand);
}

NOINLINE static void q_pcc_check(ctxprof_ctx here)
{
    q_sink = (uintptr_t)ctxprof_pcc_set_check(&q_pcc, here, CTXPROF_PCC_LOC);
}

NOINLINE static void q_backtrace(ctxprof_ctx here)
{
    void *buf[64];
    (void)here;
    q_sink = (uintptr_t)backtrace(buf, 64);
}

enum { Q_EMPTY, Q_CID, Q_LOOKUP, Q_PCC, Q_BT, NQ };
static void (*const q_fn[NQ])(ctxprof_ctx) = {q_empty, q_cid, q_cid_lookup, q_pcc_check,
                                              q_backtrace};
static const char *const q_name[NQ] = {"call of an empty query point", "CID capture",
                                       "CID + path map lookup", "PCC query (set check)",
                                       "backtrace() of the whole stack"};
static const int q_calls[NQ] = {2000000, 2000000, 2000000, 2000000, 20000};
static double q_ns[NQ][ROUNDS];
static uint64_t q_cid_height;
static int q_bt_frames;

NOINLINE static void q_measure(ctxprof_ctx here)
{
    int r, k, i;
    /* a map with two candidates for the CID the lookups see (their query
       point's own height, from a lookup in the still empty map) */
    char text[256];
    ctxprof_error err;
    uint64_t h;
    q_cid(here);
    q_cid_height = q_cid_sink.height;
    q_cid_lookup(here);
    h = q_cid_sink.height;
    snprintf(text, sizeof text,
             "ctxprof-paths 1\npath 1 %llu main q_cid_lookup\npath 1 %llu main other "
             "q_cid_lookup\npath 1 %llu main q_cid\n",
             (unsigned long long)h, (unsigned long long)h, (unsigned long long)q_cid_height);
    if (ctxprof_icpp_map_parse(&q_map, text, strlen(text), "bench", &err) != CTXPROF_OK)
        return;
    q_fid = (uint32_t)ctxprof_icpp_map_func(&q_map, "q_cid_lookup");
    q_backtrace(here);
    q_bt_frames = (int)q_sink;
    q_pcc_check(here); /* trains the value */
    ctxprof_pcc_set_mode(&q_pcc, CTXPROF_PCC_CHECK);
    for (r = 0; r < rounds; r++)
        for (k = 0; k < NQ; k++) {
            int q = (k + r) % NQ;
            double t0 = bench_now_ns();
            for (i = 0; i < q_calls[q]; i++)
                q_fn[q](here);
            q_ns[q][r] = (bench_now_ns() - t0) / q_calls[q];
        }
}

NOINLINE static long q_rec(int depth)
{
    CTXPROF_PCC_FUNC();
    long r = 0;
    if (depth <= 1)
        q_measure(CTXPROF_PCC_HERE(CTXPROF_PCC_SITE()));
    else
        CTXPROF_PCC_CALL(CTXPROF_PCC_SITE(), r = q_rec(depth - 1));
    return r + 1;
}

static int cid_table(void)
{
    ctxprof_pcc_set_desc desc;
    double med[NQ], lo[NQ], hi[NQ];
    int q;
    memset(&desc, 0, sizeof desc);
    desc.mode = CTXPROF_PCC_TRAIN;
    if (ctxprof_pcc_set_init(&q_pcc, &desc) != CTXPROF_OK)
        return 1;
    q_rec(20);
    if (q_found != (uint64_t)rounds * (uint64_t)q_calls[Q_LOOKUP] * 2) {
        fprintf(stderr,
                "icpp_bench cid: the path map lookups found %llu candidates, not 2 "
                "per lookup: the timed lookups missed\n",
                (unsigned long long)q_found);
        return 1;
    }
    for (q = 0; q < NQ; q++)
        bench_stats(q_ns[q], rounds, &med[q], &lo[q], &hi[q]);
    printf("Context at a query point 20 frames deep (%s -O2, frame pointers; %d rounds,\n"
           "variants alternating; ns per query, median [min-max]; net = minus the empty\n"
           "call, \"~0\" when within the empty call's min-max spread; x CID = this query's\n"
           "ns over the CID capture's, both with the call of the query point included: the\n"
           "CID's net cost is at the noise floor, no divisor). CID height here: %llu bytes;\n"
           "backtrace() returns %d frames.\n\n",
           __VERSION__, rounds, (unsigned long long)q_cid_height, q_bt_frames);
    printf("| query | ns | net ns | x CID (gross, call included) |\n|---|---|---|---|\n");
    for (q = 0; q < NQ; q++) {
        double net = med[q] - med[Q_EMPTY];
        printf("| %s | %.2f [%.2f-%.2f] |", q_name[q], med[q], lo[q], hi[q]);
        if (q == Q_EMPTY)
            printf(" | |\n");
        else if (net <= hi[Q_EMPTY] - lo[Q_EMPTY] && -net <= hi[Q_EMPTY] - lo[Q_EMPTY])
            printf(" ~0 (%.2f) | %.2f |\n", net, med[q] / med[Q_CID]);
        else
            printf(" %.2f | %.2f |\n", net, med[q] / med[Q_CID]);
    }
    ctxprof_pcc_set_deinit(&q_pcc);
    ctxprof_icpp_map_deinit(&q_map);
    return 0;
}

/* ---- the timer sampler ------------------------------------------------------

   A CPU-bound recursive workload (two functions of different frames
   choosing each other by the bits of a counter, 8 deep, then a leaf that
   computes) runs a fixed amount of work per variant: unsampled; the
   per-thread CPU-time timer at 1 kHz; the wall-clock timer at 1 kHz; the
   same resolving each sample in the handler (map lookup and targeted
   reads); the wall-clock timer at 20 kHz (to see the cost of one sample
   above the noise). Variants alternate in each round; ratios are against
   the unsampled run of the same round. */

static volatile uint64_t w_sink;        /* unsigned: it wraps as it accumulates */
static const ctxprof_icpp_map *w_probe; /* set: w_leaf times resolving itself */
static double w_probe_ns[64];
static uint32_t w_probe_walked[64];
static int w_probe_kind[64];
static int w_nprobe;

/* What the handler does for a sample in w_leaf's body: resolve (pc, sp) on
   the live stack, with targeted reads when the CID is ambiguous. The PC is
   this call's return address, a PC of w_leaf's body where its frame is
   complete (heights come from the CFA rule at the PC: a prologue PC, such as
   w_leaf + 1, gives another height and a MISSING path); sp and fp are
   w_leaf's at the call, which are also its SP and frame at that PC. */
NOINLINE static void w_resolve_here(uintptr_t sp, uintptr_t fp)
{
    ctxprof_icpp_result res;
    uintptr_t pc = (uintptr_t)__builtin_return_address(0);
    double t0 = bench_now_ns();
    int i;
    for (i = 0; i < 1000; i++)
        ctxprof_icpp_resolve(w_probe, pc, sp, ctxprof_icpp_thread_base(), fp, NULL, 64, &res);
    if (w_nprobe < 64) {
        w_probe_ns[w_nprobe] = (bench_now_ns() - t0) / 1000;
        w_probe_kind[w_nprobe] = res.kind;
        w_probe_walked[w_nprobe] = res.walked;
        w_nprobe++;
    }
}

NOINLINE static long w_leaf(uint64_t x)
{
    CTXPROF_ICPP_FUNC(w_leaf);
    int i;
    if (w_probe)
        w_resolve_here(ctxprof_icpp_sp(), (uintptr_t)__builtin_frame_address(0));
    for (i = 0; i < 64; i++)
        x = x * 6364136223846793005u + 1442695040888963407u;
    w_sink += x;
    return (long)(x >> 60);
}

NOINLINE static long w_b(int d, uint64_t bits);

NOINLINE static long w_a(int d, uint64_t bits)
{
    CTXPROF_ICPP_FUNC(w_a);
    if (d == 0)
        return w_leaf(bits);
    return (bits & 1 ? w_a(d - 1, bits >> 1) : w_b(d - 1, bits >> 1)) + 1;
}

NOINLINE static long w_b(int d, uint64_t bits)
{
    CTXPROF_ICPP_FUNC(w_b);
    volatile char pad[48]; /* another frame size than w_a's */
    pad[0] = (char)d;
    if (d == 0)
        return w_leaf(bits + (uint64_t)pad[0]);
    return (bits & 1 ? w_a(d - 1, bits >> 1) : w_b(d - 1, bits >> 1)) + pad[0];
}

NOINLINE static long w_run(long n)
{
    CTXPROF_ICPP_FUNC(w_run);
    long i, r = 0;
    for (i = 0; i < n; i++)
        r += w_a(8, ctxprof_mix64((uint64_t)i));
    return r;
}

static double cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

enum { S_NONE, S_CPU, S_WALL, S_RESOLVE, S_FAST, NS };
static const char *const s_name[NS] = {"unsampled", "timer, thread CPU time, 1 kHz",
                                       "timer, wall clock, 1 kHz",
                                       "timer, wall clock, 1 kHz, resolved in the handler",
                                       "timer, wall clock, 20 kHz"};

static int sampler_table(void)
{
    static double cpu[NS][ROUNDS], wall[NS][ROUNDS], nsamp[NS][ROUNDS], walked[ROUNDS];
    char path[] = "/tmp/icpp_bench_XXXXXX";
    ctxprof_icpp_map map;
    ctxprof_symtab st;
    ctxprof_error err;
    long n = 1;
    int r, k, fd;
    double t0, per;
    memset(&map, 0, sizeof map);
    /* train the workload's path map (hand-written entries), bind it */
    fd = mkstemp(path);
    if (fd < 0)
        return 1;
    close(fd);
    if (ctxprof_icpp_train_start(NULL, &err) != CTXPROF_OK)
        goto fail;
    w_run(4096);
    ctxprof_icpp_train_stop();
    if (ctxprof_icpp_train_save(path, &err) != CTXPROF_OK ||
        ctxprof_icpp_map_load(&map, path, &err) != CTXPROF_OK ||
        ctxprof_symtab_init(&st, &err) != CTXPROF_OK || ctxprof_icpp_map_bind(&map, &st, &err))
        goto fail;
    unlink(path);
    ctxprof_icpp_train_reset();
    w_probe = &map; /* the handler's work, timed in place on 64 trained paths */
    w_run(64);
    w_probe = NULL;
    /* every probe is a trained path at a PC of its body: a probe that does
       not resolve PRECISE would mix fast failures into the median below */
    for (k = 0; k < 64; k++)
        if (k >= w_nprobe || w_probe_kind[k] != CTXPROF_ICPP_PRECISE) {
            fprintf(stderr,
                    "icpp_bench sampler: probe %d of 64 in w_leaf did not resolve PRECISE "
                    "(kind %d): the handler's timing would not be of real resolves\n",
                    k, k < w_nprobe ? w_probe_kind[k] : -1);
            ctxprof_icpp_map_deinit(&map);
            ctxprof_symtab_deinit(&st);
            return 1;
        }
    /* about 0.2 s of work per run (--quick: 5 ms) */
    do {
        n *= 2;
        t0 = bench_now_ns();
        w_run(n);
    } while (bench_now_ns() - t0 < (quick ? 5e6 : 5e7));
    n *= quick ? 1 : 4;
    for (r = 0; r < rounds; r++)
        for (k = 0; k < NS; k++) {
            int v = (k + r) % NS;
            ctxprof_icpp_sampler s;
            ctxprof_icpp_sampler_desc d;
            double c0, w0;
            memset(&d, 0, sizeof d);
            d.hz = v == S_FAST ? 20000 : 1000;
            d.wall = v != S_CPU;
            d.capacity = 1 << 16;
            if (v == S_RESOLVE)
                d.map = &map;
            if (v != S_NONE && (ctxprof_icpp_sampler_init(&s, &d, &err) != CTXPROF_OK ||
                                ctxprof_icpp_sampler_attach(&s, &err) != CTXPROF_OK))
                goto fail;
            c0 = cpu_ns();
            w0 = bench_now_ns();
            w_run(n);
            cpu[v][r] = cpu_ns() - c0;
            wall[v][r] = bench_now_ns() - w0;
            nsamp[v][r] = 0;
            if (v != S_NONE) {
                size_t i, got;
                ctxprof_icpp_sampler_detach(&s);
                got = ctxprof_icpp_sampler_count(&s);
                nsamp[v][r] = (double)got;
                if (v == S_RESOLVE) {
                    double sum = 0;
                    for (i = 0; i < got; i++)
                        sum += s.samples[i].walked;
                    walked[r] = got ? sum / (double)got : 0;
                }
                ctxprof_icpp_sampler_deinit(&s);
            }
        }
    printf("Timer sampler overhead (%s -O2; %ld calls of an 8-deep recursion per run,\n"
           "%d rounds, variants alternating; ratio = this run / the unsampled run of the\n"
           "same round; achieved rate = samples per second of the timer's clock (the\n"
           "thread's CPU time or the wall clock) in each run; median [min-max] of the\n"
           "%d rounds).\n\n",
           __VERSION__, n, rounds, rounds);
    printf("| variant | samples/run | achieved rate, Hz | CPU time ratio | wall time ratio |\n"
           "|---|---|---|---|---|\n");
    for (k = 0; k < NS; k++) {
        double rc[ROUNDS], rw[ROUNDS], sn[ROUNDS], hz[ROUNDS], mc, lc, hc, mw, lw, hw, ms, ls, hs,
            mh, lh, hh;
        for (r = 0; r < rounds; r++) {
            rc[r] = cpu[k][r] / cpu[S_NONE][r];
            rw[r] = wall[k][r] / wall[S_NONE][r];
            sn[r] = nsamp[k][r]; /* a copy: the cost per sample below pairs rounds */
            hz[r] = nsamp[k][r] / ((k == S_CPU ? cpu[k][r] : wall[k][r]) * 1e-9);
        }
        bench_stats(rc, rounds, &mc, &lc, &hc);
        bench_stats(rw, rounds, &mw, &lw, &hw);
        bench_stats(sn, rounds, &ms, &ls, &hs);
        bench_stats(hz, rounds, &mh, &lh, &hh);
        printf("| %s | %.0f | %.0f [%.0f-%.0f] | %.4f [%.3f-%.3f] | %.4f [%.3f-%.3f] |\n",
               s_name[k], ms, mh, lh, hh, mc, lc, hc, mw, lw, hw);
    }
    {
        double d[ROUNDS], lo, hi, wk, wlo, whi, rs, rlo, rhi, fr = 0;
        int precise = 0; /* all of them (checked above) */
        for (r = 0; r < rounds; r++)
            d[r] = (cpu[S_FAST][r] - cpu[S_NONE][r]) / (nsamp[S_FAST][r] > 0 ? nsamp[S_FAST][r] : 1);
        bench_stats(d, rounds, &per, &lo, &hi);
        bench_stats(walked, rounds, &wk, &wlo, &whi);
        for (k = 0; k < w_nprobe; k++)
            if (w_probe_kind[k] == CTXPROF_ICPP_PRECISE) {
                precise++;
                fr += w_probe_walked[k];
            }
        bench_stats(w_probe_ns, w_nprobe, &rs, &rlo, &rhi);
        printf("\nCPU cost of one sample (the 20 kHz run minus the unsampled one, per sample):\n"
               "%.1f us [%.1f-%.1f], %.2f%% of a CPU-bound thread at 1 kHz. The handler's own\n"
               "work is a small part of it: resolving a sample in place (map lookup and\n"
               "targeted reads) takes %.0f ns [%.0f-%.0f] (%d of %d paths of the workload\n"
               "resolved, %.2f frames read on average; %.2f per sample in the handler runs).\n",
               per / 1e3, lo / 1e3, hi / 1e3, per / 1e3 * 1000 / 1e6 * 100, rs, rlo, rhi,
               precise, w_nprobe, precise ? fr / precise : 0, wk);
    }
    ctxprof_icpp_map_deinit(&map);
    ctxprof_symtab_deinit(&st);
    return 0;
fail:
    fprintf(stderr, "icpp_bench sampler: %s\n", ctxprof_error_message(&err));
    unlink(path);
    return 1;
}

/* ---- synthetic path maps ---------------------------------------------------

   A program of F functions with frame sizes drawn like real ones (most
   16..64 bytes, a tail up to 1 KiB), each calling up to 8 later functions
   (a layered DAG: "dag") and, in "rec", also earlier ones now and then
   (recursion). Random walks from main record every distinct call path
   with its height (the sum of the frames on it), as training would. */

static uint64_t syn_rng;

static uint64_t syn_next(void)
{
    return ctxprof_mix64(syn_rng += 0x9E3779B97F4A7C15u);
}

static unsigned syn_frame(void)
{
    static const unsigned units[] = {1, 1, 1, 2, 2, 2, 3, 3, 4, 4, 5, 6, 7, 8, 10, 12, 16, 24, 40, 64};
    return 16u * units[syn_next() % (sizeof units / sizeof units[0])];
}

typedef struct syn_node {
    uint32_t parent, func, count;
    uint64_t height;
} syn_node;

static int synth(const char *kind, uint64_t seed, size_t want, const char *out)
{
    size_t nf = want / 40 + 64, i, nn = 1, tsz = 1, walks = 0;
    int rec = strcmp(kind, "rec") == 0;
    unsigned *frame, *deg, (*callee)[8];
    syn_node *nodes;
    uint32_t *slots, *stack;
    FILE *f;
    if (!rec && strcmp(kind, "dag") != 0) {
        fprintf(stderr, "icpp_bench synth: KIND is dag or rec\n");
        return 2;
    }
    while (tsz < 4 * want + 8)
        tsz *= 2;
    syn_rng = seed;
    frame = (unsigned *)calloc(nf, sizeof *frame);
    deg = (unsigned *)calloc(nf, sizeof *deg);
    callee = (unsigned(*)[8])calloc(nf, sizeof *callee);
    nodes = (syn_node *)calloc(want + 1, sizeof *nodes);
    slots = (uint32_t *)calloc(tsz, sizeof *slots);
    stack = (uint32_t *)calloc(4096, sizeof *stack);
    if (!frame || !deg || !callee || !nodes || !slots || !stack)
        return 1;
    for (i = 0; i < nf; i++) {
        unsigned k;
        frame[i] = syn_frame();
        deg[i] = i + 1 >= nf ? 0 : i == 0 ? 8 : (unsigned)(syn_next() % 9); /* 0..8 callees */
        for (k = 0; k < deg[i]; k++) {
            size_t span = nf / 16 + 2;
            if (rec && syn_next() % 10 == 0) /* an earlier function: recursion */
                callee[i][k] = (unsigned)(syn_next() % (i + 1));
            else { /* a later function, at most nf - 1 */
                size_t to = i + 1 + (size_t)(syn_next() % span);
                callee[i][k] = (unsigned)(to < nf ? to : nf - 1);
            }
        }
    }
    /* node 0: main's path */
    nodes[0].parent = UINT32_MAX;
    nodes[0].func = 0;
    nodes[0].height = frame[0];
    nodes[0].count = 1;
    while (nn < want && walks < 100 * want) {
        uint32_t cur = 0;
        unsigned depth = 1;
        walks++;
        while (depth < 60 && deg[nodes[cur].func] && syn_next() % 100 < 88) {
            unsigned fn = callee[nodes[cur].func][syn_next() % deg[nodes[cur].func]];
            uint64_t key = ((uint64_t)cur << 32) | fn;
            size_t j = (size_t)ctxprof_mix64(key) & (tsz - 1);
            while (slots[j] && !(nodes[slots[j] - 1].parent == cur && nodes[slots[j] - 1].func == fn))
                j = (j + 1) & (tsz - 1);
            if (!slots[j]) {
                if (nn >= want)
                    break;
                nodes[nn].parent = cur;
                nodes[nn].func = fn;
                nodes[nn].height = nodes[cur].height + frame[fn];
                nodes[nn].count = 0;
                slots[j] = (uint32_t)++nn;
            }
            cur = slots[j] - 1;
            nodes[cur].count++;
            depth++;
        }
    }
    f = fopen(out, "w");
    if (!f)
        return 2;
    fprintf(f, "ctxprof-paths 1\n# icpp_bench synth %s %llu %zu: %zu functions, %zu walks\n",
            kind, (unsigned long long)seed, want, nf, walks);
    for (i = 0; i < nn; i++) {
        size_t d = 0;
        uint32_t v = (uint32_t)i;
        while (v != UINT32_MAX && d < 4096) {
            stack[d++] = nodes[v].func;
            v = nodes[v].parent;
        }
        fprintf(f, "path %u %llu", nodes[i].count, (unsigned long long)nodes[i].height);
        while (d)
            fprintf(f, " f%u", stack[--d]);
        fputc('\n', f);
    }
    free(frame);
    free(deg);
    free(callee);
    free(nodes);
    free(slots);
    free(stack);
    return fclose(f) == 0 ? 0 : 2;
}

/* ---- the padding searches ---------------------------------------------------- */

typedef struct pad_row {
    const char *name;
    int search;
    double growth; /* 0: the search's default; < 0: the uncapped random search's */
    int wrap;      /* also call-site wraps (5.2): precise is then precise_after_wrap */
} pad_row;

static int pad_run(const ctxprof_icpp_map *m, const pad_row *row, double growth,
                   ctxprof_icpp_pads *p)
{
    ctxprof_icpp_pad_desc d;
    ctxprof_error err;
    memset(&d, 0, sizeof d);
    d.search = row->search;
    d.max_growth = growth;
    d.wrap = row->wrap;
    if (ctxprof_icpp_pad_compute(m, &d, p, &err) != CTXPROF_OK) {
        fprintf(stderr, "icpp_bench: %s\n", ctxprof_error_message(&err));
        return 1;
    }
    return 0;
}

static int pad_table(int argc, char **argv, int ours_only)
{
    static const pad_row rows[] = {
        {"none", CTXPROF_ICPP_SEARCH_NONE, 0, 0},
        {"random (paper), uncapped", CTXPROF_ICPP_SEARCH_RANDOM, 0, 0},
        {"random (paper), cap 1.2x", CTXPROF_ICPP_SEARCH_RANDOM, 1.2, 0},
        {"ours, cap 1.2x", CTXPROF_ICPP_SEARCH_OURS, 1.2, 0},
        {"ours + wraps (5.2), cap 1.2x", CTXPROF_ICPP_SEARCH_OURS, 1.2, 1},
        {"ours, cap = random's growth", CTXPROF_ICPP_SEARCH_OURS, -1, 0},
    };
    int a;
    printf("Padding search per path map (precise = share of paths with a unique CID;\n"
           "bound = 1 - inseparable; capbound = precise_bound_capped, at most what\n"
           "padding within the row's cap can reach; growth = largest padded height /\n"
           "largest unpadded).\n\n");
    printf("%-22s %-29s %8s %8s %8s %8s %8s %8s\n", "map (paths, bound)", "search", "precise",
           "capbound", "amb<=2", "growth", "seconds", "moves");
    for (a = 0; a < argc; a++) {
        ctxprof_icpp_map m;
        ctxprof_error err;
        double random_growth = 1;
        size_t r;
        const char *base = strrchr(argv[a], '/') ? strrchr(argv[a], '/') + 1 : argv[a];
        memset(&m, 0, sizeof m);
        if (ctxprof_icpp_map_load(&m, argv[a], &err) != CTXPROF_OK) {
            fprintf(stderr, "icpp_bench: %s\n", ctxprof_error_message(&err));
            return 1;
        }
        for (r = 0; r < sizeof rows / sizeof rows[0]; r++) {
            ctxprof_icpp_pads p;
            char label[64];
            double g = rows[r].growth < 0 ? random_growth : rows[r].growth;
            if (ours_only && (rows[r].search == CTXPROF_ICPP_SEARCH_RANDOM || rows[r].growth < 0))
                continue;
            if (pad_run(&m, &rows[r], g, &p))
                return 1;
            if (rows[r].search == CTXPROF_ICPP_SEARCH_RANDOM && rows[r].growth == 0)
                random_growth = p.report.max_stack_growth;
            if (r == 0)
                snprintf(label, sizeof label, "%.14s (%zu, %.3f)", base, m.paths,
                         p.report.precise_bound);
            else
                label[0] = '\0';
            if (rows[r].wrap) /* the bound and amb<=2 are the pads' alone: not shown */
                printf("%-22s %-29s %8.4f %8s %8s %8.3f %8.2f %8lu\n", label, rows[r].name,
                       p.report.precise_after_wrap, "-", "-", p.report.max_stack_growth,
                       p.report.seconds, p.report.moves);
            else
                printf("%-22s %-29s %8.4f %8.4f %8.4f %8.3f %8.2f %8lu\n", label, rows[r].name,
                       p.report.precise_after, p.report.precise_bound_capped,
                       p.report.ambiguity_le2_after, p.report.max_stack_growth,
                       p.report.seconds, p.report.moves);
            ctxprof_icpp_pads_deinit(&p);
        }
        ctxprof_icpp_map_deinit(&m);
        fflush(stdout);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 6 && strcmp(argv[1], "synth") == 0)
        return synth(argv[2], strtoull(argv[3], NULL, 10), (size_t)strtoull(argv[4], NULL, 10),
                     argv[5]);
    if (argc >= 4 && strcmp(argv[1], "pad") == 0 && strcmp(argv[2], "--ours-only") == 0)
        return pad_table(argc - 3, argv + 3, 1);
    if (argc >= 3 && strcmp(argv[1], "pad") == 0)
        return pad_table(argc - 2, argv + 2, 0);
    if (argc == 3 && strcmp(argv[2], "--quick") == 0) {
        quick = 1;
        rounds = 1;
    }
    if ((argc == 2 || quick) && strcmp(argv[1], "cid") == 0)
        return cid_table();
    if ((argc == 2 || quick) && strcmp(argv[1], "sampler") == 0)
        return sampler_table();
    fprintf(stderr, "usage: icpp_bench cid|sampler [--quick] | pad [--ours-only] MAP... |\n"
                    "       icpp_bench synth dag|rec SEED PATHS OUT\n");
    return 2;
}
