/* Stress: THREADS worker threads for SECONDS doing everything at once -
   annotated PCC calls, training one context set and checking another, the
   four precise encodings in each thread's own state (decoded at every step,
   hashed into a shared set), HCCT session events through the scope macros
   and an LSS tree per thread, ICPP training through CTXPROF_ICPP_FUNC - while
   an observer thread takes HCCT snapshots and queries the live trees. Then
   every count is checked to add up exactly: nothing lost, nothing counted
   twice, every snapshot consistent. Built with ThreadSanitizer by `make
   stress` (and run by CI).

     stress [SECONDS] [THREADS]      defaults: 10 s, 16 threads

   Prints one line per check and exits non-zero if any fails. Each module adds
   a task: init (single-threaded), step (called in a loop by every thread,
   does a small batch), finish (single-threaded verification, after every
   worker has exited); observe (optional) runs in the observer's loop. */
#define _GNU_SOURCE
#define CTXPROF_IMPLEMENTATION
#include "../ctxprof.h"
#include "../ctxprof_hcct.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 64
static int nthreads = 16;
static int failures;
static int running = 1; /* cleared (atomically) when the workers stop */

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

#define NOINLINE __attribute__((noinline))

/* ==== pcc task ====
   Universe of contexts: index i has value mix64(i). The trained set learns
   whatever the threads touch; the checked set knows [0, KNOWN) and reports
   each touched index in [KNOWN, KNOWN + FRESH) exactly once. A third set
   learns values each inserted exactly once (thread t's n-th is
   mix64(ONCE_BASE + t * 2^32 + n)), so a single lost insert shows: each
   thread finds its own at once, and the count and every value are checked
   at the end. Annotated recursion checks every query value against an
   explicit-state replay. */

#define UNIVERSE 200000
#define KNOWN 100000
#define FRESH 3000
#define ONCE_BASE (1ull << 40)
#define ONCE_PER_STEP 8
static ctxprof_pcc_set train_set, check_set, once_set;
static uint64_t once_made[MAX_THREADS], once_missing[MAX_THREADS];
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
    ctxprof_pcc_set_init(&once_set, &d);
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
    for (k = 0; k < ONCE_PER_STEP; k++) {
        ctxprof_ctx v = (ctxprof_ctx)ctxprof_mix64(ONCE_BASE + ((uint64_t)t << 32) + once_made[t]);
        ctxprof_pcc_set_check(&once_set, v, CTXPROF_PCC_LOC);
        once_made[t]++;
        if (!ctxprof_pcc_set_contains(&once_set, v))
            once_missing[t]++;
    }
    ctxprof_pcc_tls.v = (ctxprof_ctx)t;
    pcc_rec((int)(rnd(seed) % 24), (ctxprof_ctx)t, t);
}

/* The sets only grow while the workers run. */
static size_t pcc_seen_count;
static uint64_t pcc_shrank;
static void pcc_observe(void)
{
    size_t n = ctxprof_pcc_set_count(&train_set);
    if (n < pcc_seen_count)
        pcc_shrank++;
    pcc_seen_count = n;
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
    {
        uint64_t made = 0, missing = 0, n;
        for (t = 0; t < nthreads; t++) {
            missing += once_missing[t];
            for (n = 0; n < once_made[t]; n++)
                missing += !ctxprof_pcc_set_contains(
                    &once_set, (ctxprof_ctx)ctxprof_mix64(ONCE_BASE + ((uint64_t)t << 32) + n));
            made += once_made[t];
        }
        VERIFY(ctxprof_pcc_set_count(&once_set) == made && missing == 0,
               "pcc: %llu values inserted once each, the set holds %llu, %llu missing",
               (unsigned long long)made, (unsigned long long)ctxprof_pcc_set_count(&once_set),
               (unsigned long long)missing);
    }
    VERIFY(bad == 0, "pcc: %llu wrong context values in annotated recursion",
           (unsigned long long)bad);
    VERIFY(pcc_shrank == 0, "pcc: the observer saw the trained set shrink %llu times",
           (unsigned long long)pcc_shrank);
    ctxprof_pcc_set_deinit(&train_set);
    ctxprof_pcc_set_deinit(&check_set);
    ctxprof_pcc_set_deinit(&once_set);
}

/* ==== enc task ====
   The four precise encodings, each in the calling thread's own state (the
   thread-local ctxprof_pcce_tls and ctxprof_val_*_tls a generated header
   uses), kept by real recursive calls over a graph with two complex SCCs.
   At every function entry each encoding is decoded and compared with the
   true path, and the AUTO encoding's hash is trained into a shared set; a
   reference set gets a hash of the true path. Equal contexts in different
   threads must hash equally and distinct ones distinctly: the two sets end
   with the same number of contexts. */

static const char enc_graph_text[] = "ctxprof-callgraph 1\nroot main\n"
                                     "call main a\ncall main b\ncall a c\n"
                                     "call c a\ncall c c\ncall b d\ncall d e\ncall e d\n"
                                     "call e e\ncall b c\ncall d c\n";
#define ENC_DEPTH 12
static ctxprof_graph enc_graph;
static ctxprof_enc_tables enc_tabs[CTXPROF_ENC_NSCHEMES];
static ctxprof_pcc_set enc_set, enc_ref;
static uint64_t enc_visits[MAX_THREADS], enc_wrong[MAX_THREADS];

static void enc_init(void)
{
    ctxprof_pcc_set_desc d;
    ctxprof_error err;
    int s, ok;
    memset(&d, 0, sizeof d);
    d.mode = CTXPROF_PCC_TRAIN;
    ok = ctxprof_graph_init(&enc_graph, NULL) == CTXPROF_OK &&
         ctxprof_graph_parse(&enc_graph, enc_graph_text, sizeof enc_graph_text - 1, "enc") ==
             CTXPROF_OK &&
         ctxprof_graph_finish(&enc_graph) == CTXPROF_OK && enc_graph.n_complex_sccs == 2;
    for (s = 1; ok && s < CTXPROF_ENC_NSCHEMES; s++)
        ok = ctxprof_enc_build(&enc_graph, s, &enc_tabs[s], &err) == CTXPROF_OK;
    ok = ok && ctxprof_pcc_set_init(&enc_set, &d) == CTXPROF_OK &&
         ctxprof_pcc_set_init(&enc_ref, &d) == CTXPROF_OK;
    VERIFY(ok, "enc: graph with %zu complex SCCs, tables of four schemes",
           enc_graph.n_complex_sccs);
    if (!ok)
        exit(1);
}

/* One function activation at `node` reached by path[0 .. depth). */
static NOINLINE void enc_visit(uint32_t node, uint32_t *path, int depth, int t, uint64_t *seed)
{
    uint32_t out[ENC_DEPTH + 1], deg, k, calls;
    int s;
    enc_visits[t]++;
    for (s = 1; s < CTXPROF_ENC_NSCHEMES; s++) {
        ctxprof_enc_view v;
        size_t n = 0;
        ctxprof_enc_query(ctxprof_enc_thread_state(s), enc_tabs[s].acyc_bits, &v);
        if (ctxprof_enc_decode_view(&enc_tabs[s], &v, node, out, ENC_DEPTH + 1, &n, NULL) !=
                CTXPROF_OK ||
            n != (size_t)depth || memcmp(out, path, (size_t)depth * sizeof *path) != 0)
            enc_wrong[t]++;
    }
    ctxprof_pcc_set_check(&enc_set,
                          ctxprof_enc_hash(&ctxprof_val_auto_tls,
                                           enc_tabs[CTXPROF_ENC_AUTO].acyc_bits, node),
                          CTXPROF_PCC_LOC);
    {
        uint64_t key[ENC_DEPTH + 1];
        for (k = 0; k < (uint32_t)depth; k++)
            key[k] = path[k];
        key[depth] = 0xFFFFu + node;
        ctxprof_pcc_set_check(&enc_ref, (ctxprof_ctx)ctxprof_hash_words(key, (size_t)depth + 1),
                              CTXPROF_PCC_LOC);
    }
    deg = enc_graph.out_first[node + 1] - enc_graph.out_first[node];
    if (depth == ENC_DEPTH || deg == 0)
        return;
    calls = (uint32_t)(rnd(seed) % 3);
    for (k = 0; k < calls; k++) {
        uint32_t e = enc_graph.out_edge[enc_graph.out_first[node] + (uint32_t)(rnd(seed) % deg)];
        uint64_t saved[CTXPROF_ENC_NSCHEMES];
        for (s = 1; s < CTXPROF_ENC_NSCHEMES; s++)
            saved[s] = ctxprof_enc_enter(ctxprof_enc_thread_state(s), enc_tabs[s].acyc_bits, &enc_tabs[s].ops[e]);
        path[depth] = e;
        enc_visit(enc_graph.edges[e].callee, path, depth + 1, t, seed);
        for (s = CTXPROF_ENC_NSCHEMES - 1; s >= 1; s--)
            ctxprof_enc_leave(ctxprof_enc_thread_state(s), enc_tabs[s].acyc_bits, &enc_tabs[s].ops[e], saved[s]);
    }
}

static void enc_step(int t, uint64_t *seed)
{
    uint32_t path[ENC_DEPTH];
    enc_visit(enc_graph.root, path, 0, t, seed);
}

static void enc_thread_end(void)
{
    int s;
    for (s = 1; s < CTXPROF_ENC_NSCHEMES; s++)
        ctxprof_enc_deinit(ctxprof_enc_thread_state(s));
}

static void enc_finish(void)
{
    uint64_t visits = 0, wrong = 0;
    ctxprof_pcc_stats a, b;
    int t, s;
    for (t = 0; t < nthreads; t++) {
        visits += enc_visits[t];
        wrong += enc_wrong[t];
    }
    ctxprof_pcc_set_stats(&enc_set, &a);
    ctxprof_pcc_set_stats(&enc_ref, &b);
    VERIFY(wrong == 0 && visits > 0,
           "enc: %llu function entries, 4 schemes decoded at each, %llu wrong",
           (unsigned long long)visits, (unsigned long long)wrong);
    VERIFY(a.queries == visits && b.queries == visits && a.distinct == b.distinct,
           "enc: %llu distinct contexts by the AUTO hash, %llu by the true path",
           (unsigned long long)a.distinct, (unsigned long long)b.distinct);
    for (s = 1; s < CTXPROF_ENC_NSCHEMES; s++)
        ctxprof_enc_tables_free(&enc_tabs[s], NULL);
    ctxprof_graph_deinit(&enc_graph);
    ctxprof_pcc_set_deinit(&enc_set);
    ctxprof_pcc_set_deinit(&enc_ref);
}

/* ==== hcct task ====
   (1) The session, exact CCT mode, routine-only contexts: every worker gets
   its tree on its first CTXPROF_HCCT_SCOPE and has it merged when it exits.
   A context is a chain of the routines hc_0, hc_1, hc_2 of length <= 5,
   numbered idx = 4 * idx(parent) + r + 1; the caller counts the entry in
   hc_expect[idx] before making it, then issues a release fence, so that
   (with the acquire fence the observer issues after a snapshot: the
   pairing ctxprof_hcct.h documents for its relaxed counts) a count a
   snapshot saw is covered by hc_expect read after it, on any CPU, not
   only with x86's store order. The observer's snapshots must be
   well-formed trees whose counts never exceed hc_expect (read after the
   snapshot) and never decrease; the final snapshot must equal hc_expect.
   (2) An LSS tree per worker fed a skewed stream by push/pop, queried by
   the observer while it runs; at the end each query must satisfy the
   guarantees against the worker's exact counts (no hot context missing,
   every estimate within [true, true + err]). */

#define HC_DEPTH 5
#define HC_IDX 4096 /* 4^(HC_DEPTH + 1) */
static uint64_t hc_expect[HC_IDX];

typedef void (*hc_fn)(int depth, unsigned idx, uint64_t *seed);
static hc_fn hc_fns[3];

static void hc_body(int depth, unsigned idx, uint64_t *seed)
{
    int k, n = depth < HC_DEPTH ? (int)(rnd(seed) % 3) : 0;
    for (k = 0; k < n; k++) {
        unsigned r = (unsigned)(rnd(seed) % 3), c = idx * 4 + r + 1;
        __atomic_add_fetch(&hc_expect[c], 1, __ATOMIC_RELAXED);
        __atomic_thread_fence(__ATOMIC_RELEASE); /* before the count (see above) */
        hc_fns[r](depth + 1, c, seed);
    }
}

#define HC_FN(name)                                                                                \
    static NOINLINE void name(int depth, unsigned idx, uint64_t *seed)                             \
    {                                                                                              \
        CTXPROF_HCCT_SCOPE(#name);                                                                 \
        hc_body(depth, idx, seed);                                                                 \
    }
HC_FN(hc_0)
HC_FN(hc_1)
HC_FN(hc_2)

#define LSS_ALPHA 16 /* routines 1..16 */
#define LSS_DEPTH 3
#define LSS_IDX (17 * 17 * 17 + 17 * 17 + 17 + 1)
#define LSS_PHI 0.02
static ctxprof_hcct lss_tree[MAX_THREADS];
static uint32_t *lss_true[MAX_THREADS]; /* exact counts, by context index */
static uint64_t lss_events[MAX_THREADS];

static void hcct_init(void)
{
    ctxprof_hcct_desc d;
    ctxprof_error e;
    int t, ok;
    hc_fns[0] = hc_0;
    hc_fns[1] = hc_1;
    hc_fns[2] = hc_2;
    memset(&d, 0, sizeof d);
    d.mode = CTXPROF_HCCT_CCT;
    d.flags = CTXPROF_HCCT_ROUTINE_ONLY;
    d.max_bytes = (size_t)1 << 20;
    ok = ctxprof_hcct_start(&d, &e) == CTXPROF_OK;
    for (t = 0; ok && t < nthreads; t++) {
        memset(&d, 0, sizeof d);
        d.phi = LSS_PHI;
        d.counters = 64;
        lss_true[t] = (uint32_t *)calloc(LSS_IDX, sizeof(uint32_t));
        ok = lss_true[t] && ctxprof_hcct_init(&lss_tree[t], &d, &e) == CTXPROF_OK;
    }
    VERIFY(ok, "hcct: session and %d LSS trees started", nthreads);
    if (!ok)
        exit(1);
}

static void hcct_step(int t, uint64_t *seed)
{
    unsigned r = (unsigned)(rnd(seed) % 3), c = r + 1, k, i;
    __atomic_add_fetch(&hc_expect[c], 1, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE); /* before the count (see the task's comment) */
    hc_fns[r](1, c, seed);
    /* skewed: routine 1 + (x mod (1 + y mod 16)) favours small ids */
    for (k = 0; k < 32; k++) {
        unsigned depth = 1 + (unsigned)(rnd(seed) % LSS_DEPTH), idx = 0;
        for (i = 0; i < depth; i++) {
            uint64_t x = rnd(seed);
            unsigned routine = 1 + (unsigned)((x >> 8) % (1 + x % LSS_ALPHA));
            idx = idx * 17 + routine;
            ctxprof_hcct_push(&lss_tree[t], routine, 0);
            lss_true[t][idx]++;
            lss_events[t]++;
        }
        for (i = 0; i < depth; i++)
            ctxprof_hcct_pop(&lss_tree[t]);
    }
}

/* Session profile index of a node's context, or -1 if a name is unknown. */
static long hc_index(const ctxprof_hcct_profile *p, size_t i, const long *idx)
{
    const char *nm = ctxprof_hcct_profile_name(p, i);
    long parent = idx[p->nodes[i].parent];
    if (parent < 0 || strncmp(nm, "hc_", 3) != 0 || nm[3] < '0' || nm[3] > '2' || nm[4])
        return -1;
    return parent * 4 + (nm[3] - '0') + 1;
}

static uint64_t hc_snapshots, hc_bad_snapshots, hc_last_total, hc_queries, hc_bad_queries;
static uint64_t hc_stats, hc_bad_stats;
static uint64_t *hc_last; /* the previous snapshot's counts by index */

/* Well-formed: parents before children, depths consistent, index known. */
static int hc_wellformed(const ctxprof_hcct_profile *p, long *idx, int session)
{
    size_t i;
    if (p->n == 0 || p->nodes[0].parent != CTXPROF_HCCT_NONE)
        return 0;
    idx[0] = 0;
    for (i = 1; i < p->n; i++) {
        const ctxprof_hcct_pnode *x = &p->nodes[i];
        if (x->parent >= i || x->depth != p->nodes[x->parent].depth + 1)
            return 0;
        idx[i] = session ? hc_index(p, i, idx) : 0;
        if (idx[i] < 0 || idx[i] >= HC_IDX || x->count < x->err)
            return 0;
    }
    return 1;
}

static void hcct_observe(void)
{
    ctxprof_hcct_profile p;
    ctxprof_error e;
    static long idx[HC_IDX + 16];
    size_t i;
    int t;
    memset(&p, 0, sizeof p);
    if (!hc_last)
        hc_last = (uint64_t *)calloc(HC_IDX, sizeof *hc_last);
    if (ctxprof_hcct_snapshot(-1, &p, &e) == CTXPROF_OK && p.n <= HC_IDX) {
        int bad = !hc_wellformed(&p, idx, 1) || p.total < hc_last_total;
        uint64_t sum = 0, made = 0;
        /* pairs with the workers' release fences: the snapshot read each
           count with a relaxed load of the owner's relaxed store, and every
           increment of hc_expect fenced before that store is now visible */
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        for (i = 1; !bad && i < p.n; i++) {
            uint64_t c = p.nodes[i].count;
            sum += c;
            /* counted before the event, read after the snapshot */
            if (c > __atomic_load_n(&hc_expect[idx[i]], __ATOMIC_RELAXED) || c < hc_last[idx[i]])
                bad = 1;
            hc_last[idx[i]] = c;
        }
        for (i = 0; i < HC_IDX; i++)
            made += __atomic_load_n(&hc_expect[i], __ATOMIC_RELAXED);
        /* every count copied is in the total, every event counted was made */
        if (sum > p.total || p.total > made)
            bad = 1;
        hc_last_total = p.total;
        hc_bad_snapshots += (uint64_t)bad;
    } else {
        hc_bad_snapshots++;
    }
    hc_snapshots++;
    ctxprof_hcct_profile_deinit(&p);
    /* a hot-context query of one live LSS tree */
    t = (int)(hc_snapshots % (uint64_t)nthreads);
    if (ctxprof_hcct_query(&lss_tree[t], 0, &p, &e) == CTXPROF_OK) {
        static long scratch[LSS_IDX];
        int bad = p.n > LSS_IDX || !hc_wellformed(&p, scratch, 0);
        for (i = 1; !bad && i < p.n; i++)
            if ((p.nodes[i].flags & CTXPROF_HCCT_HOT) && p.nodes[i].count <= p.threshold)
                bad = 1;
        hc_bad_queries += (uint64_t)bad;
    } else {
        hc_bad_queries++;
    }
    hc_queries++;
    ctxprof_hcct_profile_deinit(&p);
    /* and its counters, read while it runs (stats_get from any thread) */
    {
        ctxprof_hcct_stats st;
        ctxprof_hcct_stats_get(&lss_tree[t], &st);
        hc_bad_stats += (uint64_t)(st.depth > LSS_DEPTH || st.leaves >= st.nodes ||
                                   st.counters != 64 || st.bytes > st.bytes_bound);
        hc_stats++;
    }
}

/* LSS guarantees for one worker's tree against its exact counts. */
static int lss_verify(int t, uint64_t *missed, uint64_t *out_of_bound)
{
    ctxprof_hcct_profile p;
    ctxprof_error e;
    static long idx[LSS_IDX];
    static unsigned char found[LSS_IDX];
    uint64_t thr;
    size_t i;
    if (ctxprof_hcct_query(&lss_tree[t], LSS_PHI, &p, &e) != CTXPROF_OK)
        return 0;
    memset(found, 0, sizeof found);
    thr = p.threshold;
    idx[0] = 0;
    for (i = 1; i < p.n; i++) {
        const ctxprof_hcct_pnode *x = &p.nodes[i];
        idx[i] = idx[x->parent] * 17 + (long)x->routine;
        if (x->depth > LSS_DEPTH || x->routine < 1 || x->routine > LSS_ALPHA || idx[i] >= LSS_IDX)
            return 0;
        found[idx[i]] = 1;
        if ((x->flags & CTXPROF_HCCT_MONITORED) &&
            (x->count < lss_true[t][idx[i]] || x->count - x->err > lss_true[t][idx[i]]))
            (*out_of_bound)++;
    }
    for (i = 0; i < LSS_IDX; i++)
        if (lss_true[t][i] > thr && !found[i])
            (*missed)++;
    i = p.total == lss_events[t];
    ctxprof_hcct_profile_deinit(&p);
    return (int)i;
}

static void hcct_finish(void)
{
    ctxprof_hcct_profile p;
    ctxprof_error e;
    static long idx[HC_IDX + 16];
    static unsigned char seen[HC_IDX];
    uint64_t expect_total = 0, nonzero = 0, matched = 0, missed = 0, oob = 0;
    size_t i;
    int t, ok, lss_ok = 1;
    ctxprof_hcct_stop();
    ok = ctxprof_hcct_snapshot(-1, &p, &e) == CTXPROF_OK && p.n <= HC_IDX &&
         hc_wellformed(&p, idx, 1);
    for (i = 0; i < HC_IDX; i++) {
        expect_total += hc_expect[i];
        nonzero += hc_expect[i] != 0;
    }
    for (i = 1; ok && i < p.n; i++) {
        if (seen[idx[i]] || p.nodes[i].count != hc_expect[idx[i]])
            ok = 0;
        seen[idx[i]] = 1;
        matched++;
    }
    VERIFY(ok && matched == nonzero && p.total == expect_total && p.events == expect_total &&
               p.threads == (uint32_t)nthreads,
           "hcct: session of %u exited threads: %llu events in %llu contexts, "
           "%llu counted in %llu contexts, all equal: %s",
           (unsigned)p.threads, (unsigned long long)expect_total, (unsigned long long)nonzero,
           (unsigned long long)p.total, (unsigned long long)matched, ok ? "yes" : "no");
    VERIFY(hc_snapshots > 0 && hc_bad_snapshots == 0,
           "hcct: %llu live session snapshots, %llu inconsistent", (unsigned long long)hc_snapshots,
           (unsigned long long)hc_bad_snapshots);
    VERIFY(hc_queries > 0 && hc_bad_queries == 0,
           "hcct: %llu live LSS queries, %llu inconsistent", (unsigned long long)hc_queries,
           (unsigned long long)hc_bad_queries);
    VERIFY(hc_stats > 0 && hc_bad_stats == 0, "hcct: %llu live LSS stats, %llu inconsistent",
           (unsigned long long)hc_stats, (unsigned long long)hc_bad_stats);
    ctxprof_hcct_profile_deinit(&p);
    for (t = 0; t < nthreads; t++) {
        ctxprof_hcct_stats st;
        ctxprof_hcct_stats_get(&lss_tree[t], &st); /* the workers have exited: exact */
        lss_ok &= st.events == lss_events[t] && st.total == lss_events[t] && st.depth == 0;
        lss_ok &= lss_verify(t, &missed, &oob);
        ctxprof_hcct_deinit(&lss_tree[t]);
        free(lss_true[t]);
    }
    VERIFY(lss_ok && missed == 0 && oob == 0,
           "hcct: %d LSS trees: totals exact %s, %llu hot contexts missed, %llu estimates "
           "out of bounds",
           nthreads, lss_ok ? "yes" : "no", (unsigned long long)missed, (unsigned long long)oob);
    ctxprof_hcct_shutdown();
    free(hc_last);
}

/* ==== icpp task ====
   Training through CTXPROF_ICPP_FUNC in every worker: chains of ic_0 and
   ic_1 of length <= 4 below ic_top. Each worker counts its entries per
   chain; the saved path map must hold exactly those counts (summed over the
   heights a chain was seen at). */

#define IC_DEPTH 4
#define IC_IDX 81 /* 3^IC_DEPTH: base-3 digits 1..2 */
static uint64_t ic_expect[MAX_THREADS][IC_IDX];
static char ic_path[4096];

typedef void (*ic_fn)(int depth, unsigned idx, int t, uint64_t *seed);
static ic_fn ic_fns[2];

static void ic_body(int depth, unsigned idx, int t, uint64_t *seed)
{
    int k, n = depth < IC_DEPTH ? (int)(rnd(seed) % 3) : 0;
    for (k = 0; k < n; k++) {
        unsigned r = (unsigned)(rnd(seed) % 2), c = idx * 3 + r + 1;
        ic_expect[t][c]++;
        ic_fns[r](depth + 1, c, t, seed);
    }
}

#define IC_FN(name)                                                                                \
    static NOINLINE void name(int depth, unsigned idx, int t, uint64_t *seed)                      \
    {                                                                                              \
        CTXPROF_ICPP_FUNC(name);                                                                   \
        ic_body(depth, idx, t, seed);                                                              \
    }
IC_FN(ic_0)
IC_FN(ic_1)
IC_FN(ic_top)

static void icpp_init(void)
{
    ctxprof_error e;
    const char *dir = getenv("TMPDIR");
    ic_fns[0] = ic_0;
    ic_fns[1] = ic_1;
    snprintf(ic_path, sizeof ic_path, "%s/ctxprof-stress.%ld.paths", dir && *dir ? dir : "/tmp",
             (long)getpid());
    VERIFY(ctxprof_icpp_train_start(NULL, &e) == CTXPROF_OK, "icpp: training started");
}

static void icpp_step(int t, uint64_t *seed)
{
    ic_expect[t][0]++;
    ic_top(0, 0, t, seed);
}

/* Chain index of a path "ic_top ic_r1 ic_r2 ...", or -1. */
static long ic_index(const ctxprof_icpp_map *m, uint32_t path)
{
    uint32_t f[IC_DEPTH + 2];
    size_t n = ctxprof_icpp_map_path_funcs(m, path, f, IC_DEPTH + 2), i;
    long idx = 0;
    if (n < 1 || n > IC_DEPTH + 1 || strncmp(ctxprof_icpp_map_func_name(m, f[0]), "ic_top", 6))
        return -1;
    for (i = 1; i < n; i++) {
        const char *nm = ctxprof_icpp_map_func_name(m, f[i]);
        if (strncmp(nm, "ic_", 3) != 0 || (nm[3] != '0' && nm[3] != '1'))
            return -1;
        idx = idx * 3 + (nm[3] - '0') + 1;
    }
    return idx;
}

static void icpp_finish(void)
{
    ctxprof_icpp_train_stats st;
    ctxprof_icpp_map m;
    ctxprof_error e;
    uint64_t expect[IC_IDX], got[IC_IDX], total = 0;
    size_t i, other = 0, mismatched = 0;
    int t, ok;
    ctxprof_icpp_train_stop();
    ctxprof_icpp_train_get_stats(&st);
    memset(expect, 0, sizeof expect);
    memset(got, 0, sizeof got);
    for (t = 0; t < nthreads; t++)
        for (i = 0; i < IC_IDX; i++) {
            expect[i] += ic_expect[t][i];
            total += ic_expect[t][i];
        }
    memset(&m, 0, sizeof m);
    ok = ctxprof_icpp_train_save(ic_path, &e) == CTXPROF_OK &&
         ctxprof_icpp_map_load(&m, ic_path, &e) == CTXPROF_OK;
    for (i = 0; ok && i < m.paths; i++) {
        ctxprof_icpp_path_info info;
        long k = ic_index(&m, (uint32_t)i);
        if (k < 0 || ctxprof_icpp_map_path(&m, (uint32_t)i, &info) != CTXPROF_OK) {
            other++;
            continue;
        }
        got[k] += info.count;
    }
    for (i = 0; i < IC_IDX; i++)
        mismatched += got[i] != expect[i];
    VERIFY(ok && other == 0 && mismatched == 0 && st.entries == total && st.dropped_paths == 0 &&
               st.dropped_depth == 0 && st.threads >= (size_t)nthreads,
           "icpp: %zu threads trained %llu entries (made %llu) into %zu paths; "
           "%zu chains miscounted, %zu unknown paths",
           st.threads, (unsigned long long)st.entries, (unsigned long long)total, m.paths,
           mismatched, other);
    ctxprof_icpp_map_deinit(&m);
    ctxprof_icpp_train_reset();
    unlink(ic_path);
}

/* ==== driver ==== */

typedef struct task {
    const char *name;
    void (*init)(void);
    void (*step)(int thread, uint64_t *seed);
    void (*observe)(void);
    void (*finish)(void);
} task;

static const task tasks[] = {
    {"pcc", pcc_init, pcc_step, pcc_observe, pcc_finish},
    {"enc", enc_init, enc_step, NULL, enc_finish},
    {"hcct", hcct_init, hcct_step, hcct_observe, hcct_finish},
    {"icpp", icpp_init, icpp_step, NULL, icpp_finish},
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
    ctxprof_icpp_thread_begin();
    while (now_s() < deadline) {
        for (k = 0; k < NTASKS; k++)
            tasks[k].step(t, &seed);
        steps[t]++;
    }
    enc_thread_end();
    ctxprof_icpp_thread_end();
    return NULL;
}

static uint64_t observations;
static void *observer(void *arg)
{
    size_t k;
    (void)arg;
    while (__atomic_load_n(&running, __ATOMIC_ACQUIRE)) {
        for (k = 0; k < NTASKS; k++)
            if (tasks[k].observe)
                tasks[k].observe();
        observations++;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 10;
    pthread_t th[MAX_THREADS], obs;
    uint64_t total = 0;
    size_t k;
    int t;
    if (argc > 2)
        nthreads = atoi(argv[2]);
    if (nthreads < 1 || nthreads > MAX_THREADS)
        nthreads = 16;
    setvbuf(stdout, NULL, _IOLBF, 0);
    for (k = 0; k < NTASKS; k++)
        tasks[k].init();
    deadline = now_s() + seconds;
    pthread_create(&obs, NULL, observer, NULL);
    for (t = 0; t < nthreads; t++)
        pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
    for (t = 0; t < nthreads; t++) {
        pthread_join(th[t], NULL);
        total += steps[t];
    }
    __atomic_store_n(&running, 0, __ATOMIC_RELEASE);
    pthread_join(obs, NULL);
    printf("stress: %d threads x %.0f s, %llu rounds of every task, %llu observer rounds\n",
           nthreads, seconds, (unsigned long long)total, (unsigned long long)observations);
    for (k = 0; k < NTASKS; k++)
        tasks[k].finish();
    return failures ? 1 : 0;
}
