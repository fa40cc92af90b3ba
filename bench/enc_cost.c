/* enc_cost: per-call cost of the precise encodings against no
   instrumentation and against PCC, and query cost (read + hash).

     enc_cost time          ns per call, medians of 101 short rounds, variants alternated
                            (after the cross-check below)
     enc_cost query         ns per query (ctxprof_enc_hash) at recursion depths 10, 50
                            (each encoding queried is first decoded and compared)
     enc_cost run V W N     one variant (plain pcc pcce valence hcce auto) of one
                            workload (acyclic fib) N times: for callgrind
     enc_cost time|query --quick
                            one round (query: of 10,000 queries), the smoke
                            run of `make test`: the numbers mean nothing, the
                            cross-checks run as always

   Workloads: "acyclic" calls outer() -> inner() (an acyclic call site whose
   PCCE constant is not zero), "fib" is fib(n) with both recursive calls
   instrumented (cyclic edges: PCCE pushes a 64-bit word, Valence and HCCE
   a ceil(log2 C)-bit code, AUTO a per-target code). The instrumented code
   is in enc_cost_fib.c, the callees here: another TU. The workloads start
   in main's context entered into fib or outer (main's call edge, applied
   once around the loop of calls).

   The cross-check: before timing, each encoding variant runs each workload
   once with a probe in the callees (leaf, inner) that decodes the thread's
   encoding there with the scheme's tables; the paths decoded, in order,
   must be the calls taken (a plain recursion lists fib's), and main's
   context must decode to the empty path after the run. PCC keeps a hash,
   not an encoding: it has nothing to decode. */
#define _GNU_SOURCE
#define CTXPROF_IMPLEMENTATION
#include "enc_cost_ctx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

#include "enc_cost.h"

static volatile int bench_sink;
/* --quick: one round */
static int quick;
static void (*probe)(uint32_t node); /* the cross-check's, at the callees; else NULL */

int inner(int x)
{
    if (probe)
        probe(CTXPROF_NODE(inner));
    return x ^ bench_sink;
}

int leaf(int x)
{
    if (probe)
        probe(CTXPROF_NODE(leaf));
    return x + bench_sink;
}

static const char *const variants[] = {"plain", "pcc", "pcce", "valence", "hcce", "auto"};
static long (*const fibs[])(int) = {fib_plain, fib_pcc, fib_pcce, fib_valence, fib_hcce, fib_auto};
static int (*const outers[])(int) = {outer_plain, outer_pcc,  outer_pcce,
                                     outer_valence, outer_hcce, outer_auto};

/* calls made by fib(n): fib(n) itself plus its recursive calls */
static double fib_calls(int n)
{
    double a = 1, b = 1, c;
    int i;
    for (i = 2; i <= n; i++) {
        c = a + b + 1;
        a = b;
        b = c;
    }
    return b;
}

static double run_one(int v, int fib, long n)
{
    const ctxprof_enc_tables *t = ctxprof_gen_tables(ctxprof_enc_scheme_parse(variants[v]));
    ctxprof_enc *st = t ? ctxprof_enc_thread_state(t->scheme) : NULL;
    const ctxprof_enc_op *entry =
        t ? &t->ops[fib ? CTXPROF_EDGE_ID(main, fib, 0) : CTXPROF_EDGE_ID(main, outer, 0)] : NULL;
    uint64_t saved = st ? ctxprof_enc_enter(st, t->acyc_bits, entry) : 0;
    double t0 = bench_now_ns();
    long i, s = 0;
    if (fib)
        for (i = 0; i < n; i++)
            s += fibs[v](24);
    else
        for (i = 0; i < n; i++)
            s += outers[v]((int)i);
    bench_sink = (int)s;
    t0 = bench_now_ns() - t0;
    if (st)
        ctxprof_enc_leave(st, t->acyc_bits, entry, saved);
    return t0;
}

/* ---- the cross-check ---- */

static const ctxprof_enc_tables *chk_tables;
static ctxprof_enc *chk_state;
static uint64_t chk_fold, chk_paths;
static char chk_error[256];

/* Order-sensitive fold of one path (edge ids, root first) into acc. */
static uint64_t fold_path(uint64_t acc, const uint32_t *path, size_t n)
{
    size_t i;
    acc = ctxprof_mix64(acc ^ n);
    for (i = 0; i < n; i++)
        acc = ctxprof_mix64(acc ^ path[i]);
    return acc;
}

/* Decodes st's encoding in function `node` with t: the path into path[64],
   its length into *n; a status. */
static int decode_now(const ctxprof_enc_tables *t, ctxprof_enc *st, uint32_t node, uint32_t *path,
                      size_t *n, ctxprof_error *err)
{
    ctxprof_enc_view view;
    *n = 0;
    ctxprof_enc_query(st, t->acyc_bits, &view);
    return ctxprof_enc_decode_view(t, &view, node, path, 64, n, err);
}

/* 1 if st's encoding, decoded in function `node` with t, is the path want[0 .. n). */
static int decodes_to(const ctxprof_enc_tables *t, ctxprof_enc *st, uint32_t node,
                      const uint32_t *want, size_t n)
{
    uint32_t path[64];
    size_t got;
    ctxprof_error err;
    return decode_now(t, st, node, path, &got, &err) == CTXPROF_OK && got == n &&
           (n == 0 || memcmp(path, want, n * sizeof *want) == 0);
}

/* The probe: decodes the encoding in function `node` and folds its path in. */
static void chk_probe(uint32_t node)
{
    uint32_t path[64];
    size_t n;
    ctxprof_error err;
    if (decode_now(chk_tables, chk_state, node, path, &n, &err) != CTXPROF_OK && !chk_error[0])
        snprintf(chk_error, sizeof chk_error, "decoding failed: %s", ctxprof_error_message(&err));
    chk_fold = fold_path(chk_fold, path, n);
    chk_paths++;
}

/* The paths to fib(n)'s leaves, in call order, folded like chk_probe's:
   path[0 .. depth) leads to this call. */
static uint64_t fold_fib(int n, uint32_t *path, size_t depth, uint64_t acc)
{
    if (n < 2) {
        path[depth] = CTXPROF_EDGE_ID(fib, leaf, 0);
        return fold_path(acc, path, depth + 1);
    }
    path[depth] = CTXPROF_EDGE_ID(fib, fib, 0);
    acc = fold_fib(n - 1, path, depth + 1, acc);
    path[depth] = CTXPROF_EDGE_ID(fib, fib, 1);
    return fold_fib(n - 2, path, depth + 1, acc);
}

/* Runs the cross-check; 0 when every encoding decoded to the calls taken. */
static int cross_check(void)
{
    enum { ACYCLIC_CALLS = 1000 };
    uint32_t path[64], one[2] = {CTXPROF_EDGE_ID(main, outer, 0), CTXPROF_EDGE_ID(outer, inner, 0)};
    uint64_t expect[2] = {0, 0};
    int v, w, i;
    for (i = 0; i < ACYCLIC_CALLS; i++)
        expect[0] = fold_path(expect[0], one, 2);
    path[0] = CTXPROF_EDGE_ID(main, fib, 0);
    expect[1] = fold_fib(24, path, 1, 0);
    for (v = 0; v < 6; v++) {
        chk_tables = ctxprof_gen_tables(ctxprof_enc_scheme_parse(variants[v]));
        if (!chk_tables)
            continue; /* plain, pcc */
        chk_state = ctxprof_enc_thread_state(chk_tables->scheme);
        for (w = 0; w < 2; w++) {
            chk_fold = chk_paths = 0;
            chk_error[0] = 0;
            probe = chk_probe;
            run_one(v, w, w ? 1 : ACYCLIC_CALLS);
            probe = NULL;
            if (!chk_error[0] && chk_fold != expect[w])
                snprintf(chk_error, sizeof chk_error,
                         "the %llu paths decoded are not the calls taken",
                         (unsigned long long)chk_paths);
            if (!chk_error[0] && !decodes_to(chk_tables, chk_state, CTXPROF_NODE(main), NULL, 0))
                snprintf(chk_error, sizeof chk_error, "main's context is not the root after it");
            if (chk_error[0]) {
                fprintf(stderr, "enc_cost: cross-check failed: %s, %s workload: %s\n", variants[v],
                        w ? "fib" : "acyclic", chk_error);
                return 1;
            }
        }
    }
    printf("cross-check: in pcce, valence, hcce and auto, the encoding decoded at every leaf of "
           "fib(24) and at %d acyclic calls is the path of calls taken\n",
           ACYCLIC_CALLS);
    return 0;
}

static int cmd_time(void)
{
    enum { ROUNDS = 101, NV = 6 };
    int w, rounds = quick ? 1 : ROUNDS;
    if (cross_check() != 0)
        return 1;
    printf("per-call cost, ns per instrumented call: median and min-max of %d rounds (variants "
           "alternated in each round); ratios are medians of the per-round ratios\n",
           rounds);
    printf("%-9s %-8s %9s %13s %9s %9s\n", "workload", "variant", "ns/call", "min-max", "x plain",
           "x pcc");
    for (w = 0; w < 2; w++) {
        double t[NV][ROUNDS], rp[NV][ROUNDS], rc[NV][ROUNDS], calls;
        long n = w ? 2 : 400000; /* about a millisecond per run: most runs are not preempted */
        int v, r;
        calls = w ? fib_calls(24) * (double)n : (double)n;
        for (v = 0; v < NV; v++) /* warm up */
            run_one(v, w, n);
        for (r = 0; r < rounds; r++)
            for (v = 0; v < NV; v++) {
                int u = (v + r) % NV; /* a different order each round */
                t[u][r] = run_one(u, w, n) / calls;
            }
        for (r = 0; r < rounds; r++)
            for (v = 0; v < NV; v++) {
                rp[v][r] = t[v][r] / t[0][r];
                rc[v][r] = t[v][r] / t[1][r];
            }
        for (v = 0; v < NV; v++) {
            double med = bench_median(t[v], rounds);
            printf("%-9s %-8s %9.2f %6.2f-%-6.2f %9.2f %9.2f\n", w ? "fib(24)" : "acyclic",
                   variants[v], med, t[v][0], t[v][rounds - 1], bench_median(rp[v], rounds),
                   bench_median(rc[v], rounds));
        }
    }
    return 0;
}

/* Query cost: the hash of the current encoding (read + hash) at a given
   recursion depth of fib's left edge, per scheme; PCC's query is a read of
   its value (and the set lookup both pay). */
static int cmd_query(void)
{
    static const int depths[] = {10, 50};
    const uint32_t e = CTXPROF_EDGE_ID(fib, fib, 0), e0 = CTXPROF_EDGE_ID(main, fib, 0);
    size_t di;
    uint32_t want[50];
    int rounds = quick ? 1 : 7, nq = quick ? 10000 : 1000000;
    printf("\nquery cost, ns per ctxprof_enc_hash (median of %d rounds of %d), words per "
           "encoding\n",
           rounds, nq);
    printf("%-8s %6s %9s %7s\n", "scheme", "depth", "ns/query", "words");
    for (di = 0; di < 2; di++) {
        int s;
        for (s = CTXPROF_ENC_PCCE; s <= CTXPROF_ENC_AUTO; s++) {
            const ctxprof_enc_tables *t = ctxprof_gen_tables(s);
            ctxprof_enc st;
            ctxprof_enc_view v;
            double med[7];
            int i, r;
            ctxprof_enc_init(&st, NULL);
            ctxprof_enc_enter(&st, t->acyc_bits, &t->ops[e0]);
            for (i = 1; i < depths[di]; i++)
                ctxprof_enc_enter(&st, t->acyc_bits, &t->ops[e]);
            for (i = 0; i < depths[di]; i++)
                want[i] = i ? e : e0;
            if (!decodes_to(t, &st, CTXPROF_NODE(fib), want, (size_t)depths[di])) {
                fprintf(stderr,
                        "enc_cost: cross-check failed: the %s encoding queried at depth %d is "
                        "not main -> fib and %d recursive calls\n",
                        ctxprof_enc_scheme_name(s), depths[di], depths[di] - 1);
                return 1;
            }
            for (r = 0; r < rounds; r++) {
                double t0 = bench_now_ns();
                uint64_t h = 0;
                for (i = 0; i < nq; i++)
                    h += ctxprof_enc_hash(&st, t->acyc_bits, (uint64_t)i & 1);
                med[r] = (bench_now_ns() - t0) / nq;
                bench_sink = (int)h;
            }
            ctxprof_enc_query(&st, t->acyc_bits, &v);
            printf("%-8s %6d %9.2f %7lu\n", ctxprof_enc_scheme_name(s), depths[di],
                   bench_median(med, rounds), (unsigned long)v.n_words);
            ctxprof_enc_deinit(&st);
        }
        {
            volatile uint64_t pv = 12345;
            double med[7];
            int i, r;
            for (r = 0; r < rounds; r++) {
                double t0 = bench_now_ns();
                uint64_t h = 0;
                for (i = 0; i < nq; i++)
                    h += pv;
                med[r] = (bench_now_ns() - t0) / nq;
                bench_sink = (int)h;
            }
            printf("%-8s %6d %9.2f %7d   (PCC: read the value; it is its own hash)\n", "pcc",
                   depths[di], bench_median(med, rounds), 1);
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    quick = argc == 3 && strcmp(argv[2], "--quick") == 0;
    if ((argc == 2 || quick) && strcmp(argv[1], "time") == 0)
        return cmd_time();
    if ((argc == 2 || quick) && strcmp(argv[1], "query") == 0)
        return cmd_query();
    if (argc == 5 && strcmp(argv[1], "run") == 0) {
        int v, fib = strcmp(argv[3], "fib") == 0;
        long n = atol(argv[4]);
        for (v = 0; v < 6; v++)
            if (strcmp(argv[2], variants[v]) == 0) {
                run_one(v, fib, n);
                printf("calls=%.0f\n", fib ? fib_calls(24) * (double)n : (double)n);
                return 0;
            }
    }
    fprintf(stderr, "usage: enc_cost time|query [--quick] | run VARIANT acyclic|fib N\n");
    return 2;
}
