/* hcct: the hot calling context tree (lazy Space Saving) against the exact
   CCT, the exact CCT against an independent path map, the lazy queue
   against a brute-force minimum, pruning invariants after every event,
   shadow-stack recovery (longjmp, alloca, depth bound, 100,000-deep
   recursion), bursting, threads and the session, the -finstrument-functions
   hooks in a compiled program, and every output format. Included by
   test_main.c. */

#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <sys/stat.h>

#include "hcct_same.h"

/* ---- helpers ---- */

static ctxprof_hcct_desc hcct_desc_lss(double phi, double eps)
{
    ctxprof_hcct_desc d;
    memset(&d, 0, sizeof d);
    d.phi = phi;
    d.epsilon = eps;
    return d;
}

static ctxprof_hcct_desc hcct_desc_cct(void)
{
    ctxprof_hcct_desc d;
    memset(&d, 0, sizeof d);
    d.mode = CTXPROF_HCCT_CCT;
    d.max_bytes = (size_t)64 << 20;
    return d;
}

static uint32_t hcct_parent(const ctxprof_hcct *t, uint32_t v)
{
    return t->aux ? t->aux[v].parent : t->par[v];
}

/* Structural invariants of a live tree; returns the number of violations
   (each reported through CHECK). Checks: the tree is connected from the
   root with consistent parent links, free nodes are exactly the free list,
   the live count, monitored nodes = used, only the current context may be
   an unmonitored leaf, the lazy queue invariant, every error bound <= the
   minimum count (so no victim was ever taken above the minimum), the
   frames form a path (then a run on "[dropped]"), and N when
   expected_total is not UINT64_MAX. */
static int hcct_check(const ctxprof_hcct *t, uint64_t expected_total)
{
    const ctxprof_hcct_node *n = t->nodes;
    uint32_t nn = t->n_nodes, i, v, cursor = 0, *stack;
    unsigned char *seen = (unsigned char *)calloc(nn, 1);
    size_t live = 0, monitored = 0, nfree = 0, sp = 0;
    uint64_t total = 0, mn = UINT64_MAX;
    int bad = ctxprof_test_failed;
    const ctxprof_hcct_frame *f;
    stack = (uint32_t *)malloc((size_t)nn * sizeof *stack);
    if (!seen || !stack) {
        free(seen);
        free(stack);
        CHECK(!"out of memory in hcct_check");
        return 1;
    }
    /* the current context: the deepest tracked frame not on "[dropped]" */
    for (f = t->top; f > t->frames && (f->node == 0 || f->node == 2); f--)
        ;
    cursor = f->node;
    /* traversal from the root */
    stack[sp++] = 1;
    seen[1] = 1;
    while (sp) {
        uint32_t x = stack[--sp], c;
        live++;
        if (n[x].count >> 63) {
            uint64_t cv = n[x].count & ~((uint64_t)1 << 63);
            monitored++;
            total += cv;
            if (cv < mn)
                mn = cv;
        } else if (x > 2 && n[x].child == 0 && x != cursor) { /* [dropped] stays */
            CHECK(!"an unmonitored leaf that is not the current context");
        }
        for (c = n[x].child; c; c = n[c].sibling) {
            if (c >= nn || seen[c]) {
                CHECK(!"child link out of range or node reached twice");
                break;
            }
            CHECK_EQ(hcct_parent(t, c), x);
            seen[c] = 1;
            stack[sp++] = c;
        }
    }
    {
        /* stats_get counts the nodes in the tree from the parent links */
        ctxprof_hcct_stats st;
        ctxprof_hcct_stats_get(t, &st);
        CHECK_EQ(live, st.nodes);
        CHECK_LE(live, st.nodes_peak);
    }
    for (v = t->free_head; v && nfree <= nn; v = n[v].sibling) {
        CHECK_EQ(hcct_parent(t, v), 0xFFFFFFFEu);
        CHECK(!seen[v]);
        nfree++;
    }
    /* node 0 is a dummy; node 2 ([dropped]) is reserved until first used */
    CHECK_EQ(nfree + live + 1 + (hcct_parent(t, 2) == 0xFFFFFFFEu), nn);
    for (i = 2; i < nn; i++)
        if (!seen[i])
            CHECK_EQ(hcct_parent(t, i), 0xFFFFFFFEu);
    if (t->aux) {
        uint32_t b;
        CHECK_EQ(monitored, t->used);
        /* errors: the value of the minimum when the node was taken in */
        for (i = 1; i < nn; i++)
            if (seen[i] && (n[i].count >> 63)) {
                CHECK_LE(t->aux[i].err, mn);
                CHECK_LE(t->aux[i].err, n[i].count & ~((uint64_t)1 << 63));
            }
        /* lazy queue: listed nodes are monitored, listed once, with a count
           at least their bucket's value; unlisted ones are >= qend */
        /* radix mode: every monitored node is listed, in a bucket at most
           that of its count */
        if ((t->used == t->nslots && t->qend > 0) || t->qradix) {
            unsigned char *listed = (unsigned char *)calloc(nn, 1);
            size_t blocks = 0;
            if (t->used == t->nslots)
                CHECK_LE(t->qbase, mn);
            for (b = 0; listed && b < CTXPROF__HCCT_W; b++) {
                uint64_t val = t->qbase + ((b - t->qbase) & (CTXPROF__HCCT_W - 1));
                uint32_t s = t->qhead[b];
                size_t k = 0;
                blocks++;
                while (s != t->qtail[b] && k <= nn) {
                    v = t->qslot[s++];
                    k++;
                    CHECK(v < nn && seen[v] && (n[v].count >> 63));
                    if (v >= nn)
                        break;
                    CHECK(!listed[v]);
                    listed[v] = 1;
                    if (t->qradix) {
                        CHECK_GE(n[v].count & ~((uint64_t)1 << 63), t->qbase);
                        CHECK_GE(ctxprof__hcct_q_rbucket(t, n[v].count & ~((uint64_t)1 << 63)), b);
                    } else {
                        CHECK_GE(n[v].count & ~((uint64_t)1 << 63), val);
                    }
                    if (s % CTXPROF__HCCT_QB == CTXPROF__HCCT_QB - 1) { /* the next block */
                        s = t->qslot[s] * CTXPROF__HCCT_QB;
                        blocks++;
                    }
                }
            }
            /* the blocks in use and the free ones are all the blocks */
            for (v = t->qfree; v != t->qblocks && blocks <= t->qblocks;
                 v = t->qslot[v * CTXPROF__HCCT_QB + CTXPROF__HCCT_QB - 1])
                blocks++;
            CHECK_EQ(blocks, t->qblocks);
            for (i = 1; listed && i < nn; i++)
                if (seen[i] && (n[i].count >> 63) && !listed[i])
                    CHECK(!t->qradix && (n[i].count & ~((uint64_t)1 << 63)) >= t->qend);
            free(listed);
        }
    }
    if (expected_total != UINT64_MAX)
        CHECK_EQ(total, expected_total);
    /* the frames form a path from the root, then maybe a run on
       "[dropped]"; every node of a frame is in the tree */
    for (f = t->frames + 1; f <= t->top; f++) {
        if (f->node == 0)
            continue;
        CHECK(f[-1].node != 0);
        CHECK(f->node < nn && seen[f->node]);
        if (f->node >= nn)
            break;
        if (f->node == 2)
            CHECK_EQ(hcct_parent(t, 2), 1);
        else
            CHECK_EQ(hcct_parent(t, f->node), f[-1].node);
    }
    free(seen);
    free(stack);
    return ctxprof_test_failed - bad;
}

/* A skewed event stream: walks from the root whose routines follow a
   Zipf-like law (rank r with probability ~ 1/r over 1..100), depths 1..8;
   phase != 0 shifts the routine ids so that a new set becomes hot. */
typedef struct hcct_gen {
    uint64_t seed;
    unsigned phase;
    int sites;
} hcct_gen;

static uintptr_t hcct_zipf(uint64_t *s)
{
    double u = (double)(ctxprof_test_rand(s) >> 11) / 9007199254740992.0;
    return (uintptr_t)(1.0 / (u * 0.99 + 0.01));
}

/* Runs one walk on both trees (b may be NULL); returns the enters. */
static unsigned hcct_walk(hcct_gen *g, ctxprof_hcct *a, ctxprof_hcct *b)
{
    unsigned d = 1 + (unsigned)(ctxprof_test_rand(&g->seed) % 8), k;
    for (k = 0; k < d; k++) {
        uintptr_t r = hcct_zipf(&g->seed) + 1000u * g->phase;
        uintptr_t s = g->sites ? (uintptr_t)(ctxprof_test_rand(&g->seed) % 3) : 0;
        ctxprof_hcct_push(a, r, s);
        if (b)
            ctxprof_hcct_push(b, r, s);
    }
    for (k = 0; k < d; k++) {
        ctxprof_hcct_pop(a);
        if (b)
            ctxprof_hcct_pop(b);
    }
    return d;
}

/* The guarantees of SPE'16 sec. 3.2 for an LSS tree against the exact CCT
   of the same stream: no false negatives, every count within [true, true +
   epsilon*N] with its error bound, the absent bound. Returns false
   positives through *fp. */
static void hcct_guarantees(ctxprof_hcct *lss, ctxprof_hcct *cct, double phi, size_t *fp)
{
    ctxprof_hcct_profile pa, pf, pe;
    ctxprof_hcct_accuracy acc;
    ctxprof_error e;
    size_t i;
    memset(&e, 0, sizeof e);
    REQUIRE(ctxprof_hcct_query(lss, phi, &pa, &e) == CTXPROF_OK);
    REQUIRE(ctxprof_hcct_query(lss, -1, &pf, &e) == CTXPROF_OK);
    REQUIRE(ctxprof_hcct_query(cct, -1, &pe, &e) == CTXPROF_OK);
    CHECK_EQ(pa.total, pe.total);
    REQUIRE(ctxprof_hcct_profile_compare(&pa, &pe, phi, &acc, &e) == CTXPROF_OK);
    CHECK_EQ(acc.missed, 0);
    CHECK_EQ(acc.bound_violations, 0);
    CHECK_EQ(acc.unknown, 0);
    CHECK_LE((double)acc.max_error, lss->desc.epsilon * (double)pe.total);
    if (fp)
        *fp = acc.false_positives;
    /* at most 1/phi contexts can have count > phi N: false positives are
       bounded by that, and here they are few */
    CHECK_LE(acc.reported, (size_t)(1.0 / phi) + 1);
    CHECK_LE(acc.false_positives, acc.hot / 4 + 2);
    if (getenv("HCCT_TEST_VERBOSE"))
        fprintf(stderr, "  hot %zu reported %zu fp %zu max error %llu\n", acc.hot, acc.reported,
                acc.false_positives, (unsigned long long)acc.max_error);
    /* every node of the whole MCCT: true in [count - err, count], err <=
       absent <= epsilon * N, and contexts absent from it are below absent */
    REQUIRE(ctxprof_hcct_profile_compare(&pf, &pe, phi, &acc, &e) == CTXPROF_OK);
    CHECK_EQ(acc.bound_violations, 0);
    CHECK_LE((double)pf.absent, lss->desc.epsilon * (double)pf.total);
    for (i = 1; i < pf.n; i++)
        CHECK_LE(pf.nodes[i].err, pf.absent);
    {
        /* exact contexts missing from the MCCT have true count <= absent */
        ctxprof__hcct_ix ix;
        uint32_t *map = (uint32_t *)malloc(pe.n * sizeof *map);
        memset(&ix, 0, sizeof ix);
        REQUIRE(map && ctxprof__hcct_index(&pf, &ix, 0) == CTXPROF_OK);
        map[0] = 0;
        for (i = 1; i < pe.n; i++) {
            uint32_t pp = map[pe.nodes[i].parent];
            map[i] = pp == CTXPROF_HCCT_NONE
                         ? CTXPROF_HCCT_NONE
                         : ctxprof__hcct_find(&pf, &ix, pp, &pe, (uint32_t)i, 0);
            if (map[i] == CTXPROF_HCCT_NONE)
                CHECK_LE(pe.nodes[i].count, pf.absent);
        }
        ctxprof__hcct_ix_free(&ix);
        free(map);
    }
    ctxprof_hcct_profile_deinit(&pa);
    ctxprof_hcct_profile_deinit(&pf);
    ctxprof_hcct_profile_deinit(&pe);
}

/* ---- descriptors and errors ---- */

static void hcct_init_errors(void)
{
    ctxprof_hcct t;
    ctxprof_hcct_desc d;
    ctxprof_error e;
    memset(&e, 0, sizeof e);
    d = hcct_desc_lss(1.5, 0);
    CHECK_EQ(ctxprof_hcct_init(&t, &d, &e), CTXPROF_ERR_INVAL);
    CHECK_CONTAINS(e.detail, "phi");
    ctxprof_hcct_deinit(&t);
    d = hcct_desc_lss(1e-3, 1e-2);
    CHECK_EQ(ctxprof_hcct_init(&t, &d, &e), CTXPROF_ERR_INVAL);
    CHECK_CONTAINS(e.detail, "epsilon");
    d = hcct_desc_lss(1e-3, 1e-4);
    d.burst_period_us = 100;
    d.burst_length_us = 200;
    CHECK_EQ(ctxprof_hcct_init(&t, &d, &e), CTXPROF_ERR_INVAL);
    CHECK_CONTAINS(e.detail, "bursting");
    d = hcct_desc_lss(1e-3, 1e-4);
    d.max_bytes = 1000; /* room for fewer nodes than counters */
    CHECK_EQ(ctxprof_hcct_init(&t, &d, &e), CTXPROF_ERR_RANGE);
    CHECK_CONTAINS(e.detail, "max_bytes");
    d = hcct_desc_lss(0.5, 0);
    d.counters = (size_t)1 << 31;
    CHECK_EQ(ctxprof_hcct_init(&t, &d, &e), CTXPROF_ERR_RANGE);
    d = hcct_desc_lss(0, 0);
    d.mode = 7;
    CHECK_EQ(ctxprof_hcct_init(&t, &d, &e), CTXPROF_ERR_INVAL);
    /* the exact tree has no counters: any phi will do */
    d = hcct_desc_cct();
    d.phi = 1e-12;
    CHECK_EQ(ctxprof_hcct_init(&t, &d, &e), CTXPROF_OK);
    ctxprof_hcct_deinit(&t);
    /* defaults: phi 1e-4, epsilon phi/5, |M| = 1/epsilon */
    REQUIRE(ctxprof_hcct_init(&t, NULL, &e) == CTXPROF_OK);
    CHECK_NEAR(t.desc.phi, 1e-4, 1e-12);
    CHECK_NEAR(t.desc.epsilon, 2e-5, 1e-12);
    CHECK_EQ(t.nslots, 50000);
    ctxprof_hcct_deinit(&t);
    ctxprof_hcct_deinit(&t); /* twice is harmless */
}

/* ---- misuse: what a program gets wrong is reported, and never crashes ---- */

/* The cases below run in a forked child, where a crash is the failure:
   HCCT_EXPECT records the line of each check passed, so that a crash
   names the last one, and the failing check's text. */
typedef struct hcct_misuse {
    int line;   /* the last check passed, or the one that failed */
    int failed; /* a check failed (why: its text) */
    char why[240];
} hcct_misuse;

static hcct_misuse *hcct_mu_r;

#define HCCT_EXPECT(c)                                                                             \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            hcct_mu_r->failed = 1;                                                                 \
            hcct_mu_r->line = __LINE__;                                                            \
            snprintf(hcct_mu_r->why, sizeof hcct_mu_r->why, "%s", #c);                             \
            return 1;                                                                              \
        }                                                                                          \
        hcct_mu_r->line = __LINE__;                                                                \
    } while (0)

static void hcct_misuse_run(int (*body)(void *arg, void *shared), void *arg)
{
    hcct_misuse *r = (hcct_misuse *)ctxprof_test_shared(sizeof *r);
    int sig = 0, rc;
    REQUIRE(r != NULL);
    rc = ctxprof_test_child(body, arg, r, 120, &sig);
    if (rc != 0 || sig != 0)
        fprintf(stderr, "  child: %s %d; line %d%s%s\n", sig ? "killed by signal" : "returned",
                sig ? sig : rc, r->line, r->failed ? " failed: " : " was the last check passed",
                r->why);
    CHECK_EQ(sig, 0);
    CHECK_EQ(rc, 0);
    munmap(r, sizeof *r);
}

static const ctxprof_hcct_routine hcct_mu_a = {"A", "t.c", 1}, hcct_mu_b = {"B", "t.c", 2};
#define HCCT_MU_A ((uintptr_t)&hcct_mu_a | CTXPROF_HCCT_NAMED)
#define HCCT_MU_B ((uintptr_t)&hcct_mu_b | CTXPROF_HCCT_NAMED)

__attribute__((noinline)) static int hcct_mu_scoped(int x)
{
    CTXPROF_HCCT_SCOPE("scoped");
    return x + 1;
}

/* The deinit of the calling thread's bound tree unbinds it: the next
   instrumented call found the zeroed tree bound and crashed, and so did
   the end of a scope opened before the deinit. */
static int hcct_deinit_bound_child(void *arg, void *shared)
{
    ctxprof_hcct t;
    ctxprof_hcct_profile p;
    ctxprof_error e;
    (void)arg;
    hcct_mu_r = (hcct_misuse *)shared;
    memset(&e, 0, sizeof e);
    HCCT_EXPECT(ctxprof_hcct_init(&t, NULL, &e) == CTXPROF_OK);
    HCCT_EXPECT(ctxprof_hcct_bind(&t) == NULL);
    HCCT_EXPECT(hcct_mu_scoped(1) == 2);
    HCCT_EXPECT(ctxprof_hcct_query(&t, -1, &p, &e) == CTXPROF_OK);
    HCCT_EXPECT(p.total == 1);
    ctxprof_hcct_profile_deinit(&p);
    ctxprof_hcct_deinit(&t);
    HCCT_EXPECT(hcct_mu_scoped(2) == 3); /* outside any tree */
    HCCT_EXPECT(ctxprof_hcct_bind(NULL) == NULL);
    /* a scope open across the deinit of its tree */
    HCCT_EXPECT(ctxprof_hcct_init(&t, NULL, &e) == CTXPROF_OK);
    HCCT_EXPECT(ctxprof_hcct_bind(&t) == NULL);
    {
        CTXPROF_HCCT_SCOPE("open");
        ctxprof_hcct_deinit(&t);
    }
    HCCT_EXPECT(ctxprof_hcct_bind(NULL) == NULL);
    HCCT_EXPECT(hcct_mu_scoped(3) == 4);
    return 0;
}

/* With a session running: after the deinit of a tree bound over the
   thread's session tree (or bind(NULL)), the thread's events go to that
   session tree again (before, they found the freed tree; bind(NULL) made
   the thread a second session tree); and deinit leaves a session's tree
   alone. */
static int hcct_deinit_session_child(void *arg, void *shared)
{
    ctxprof_hcct own, *mine;
    ctxprof_hcct_profile p;
    ctxprof_hcct_desc d = hcct_desc_lss(0.01, 0);
    ctxprof_error e;
    size_t heap;
    (void)arg;
    hcct_mu_r = (hcct_misuse *)shared;
    memset(&e, 0, sizeof e);
    heap = ctxprof_test_heap_bytes();
    HCCT_EXPECT(ctxprof_hcct_start(&d, &e) == CTXPROF_OK);
    hcct_mu_scoped(1); /* the thread's session tree: 1 */
    mine = ctxprof_hcct_thread();
    HCCT_EXPECT(mine != NULL);
    HCCT_EXPECT(ctxprof_hcct_init(&own, NULL, &e) == CTXPROF_OK);
    HCCT_EXPECT(ctxprof_hcct_bind(&own) == mine);
    hcct_mu_scoped(2); /* own tree */
    ctxprof_hcct_deinit(&own);
    hcct_mu_scoped(3); /* the session tree again: 2 */
    HCCT_EXPECT(ctxprof_hcct_thread() == mine);
    ctxprof_hcct_deinit(mine); /* not the caller's to free */
    hcct_mu_scoped(4);         /* 3 */
    HCCT_EXPECT(ctxprof_hcct_init(&own, NULL, &e) == CTXPROF_OK);
    HCCT_EXPECT(ctxprof_hcct_bind(&own) == mine);
    hcct_mu_scoped(5); /* own tree */
    HCCT_EXPECT(ctxprof_hcct_bind(NULL) == &own);
    hcct_mu_scoped(6); /* 4 */
    HCCT_EXPECT(ctxprof_hcct_thread() == mine);
    ctxprof_hcct_deinit(&own);
    HCCT_EXPECT(ctxprof_hcct_snapshot(-1, &p, &e) == CTXPROF_OK);
    HCCT_EXPECT(p.threads == 1);
    HCCT_EXPECT(p.total == 4);
    ctxprof_hcct_profile_deinit(&p);
    /* the shutdown frees the thread's session tree (3.5 MB reserved) while
       a tree of its own is bound */
    HCCT_EXPECT(ctxprof_hcct_init(&own, NULL, &e) == CTXPROF_OK);
    HCCT_EXPECT(ctxprof_hcct_bind(&own) == mine);
    ctxprof_hcct_shutdown();
    HCCT_EXPECT(ctxprof_hcct_bind(NULL) == &own);
    ctxprof_hcct_deinit(&own);
    HCCT_EXPECT(heap == SIZE_MAX || ctxprof_test_heap_bytes() < heap + ((size_t)1 << 20));
    return 0;
}

static void hcct_deinit_bound(void)
{
    hcct_misuse_run(hcct_deinit_bound_child, NULL);
    hcct_misuse_run(hcct_deinit_session_child, NULL);
}

/* init refuses a live tree (a second init leaked it: 41 MB); it takes a
   zeroed, deinitialized, failed or never used one. */
static int hcct_init_live_child(void *arg, void *shared)
{
    ctxprof_hcct t, g;
    ctxprof_hcct_profile p;
    ctxprof_hcct_desc d = hcct_desc_lss(0.01, 0);
    ctxprof_error e;
    size_t heap;
    (void)arg;
    hcct_mu_r = (hcct_misuse *)shared;
    memset(&e, 0, sizeof e);
    HCCT_EXPECT(ctxprof_hcct_init(&t, NULL, &e) == CTXPROF_OK);
    ctxprof_hcct_push(&t, HCCT_MU_A, 0);
    ctxprof_hcct_pop(&t);
    heap = ctxprof_test_heap_bytes();
    HCCT_EXPECT(ctxprof_hcct_init(&t, &d, &e) == CTXPROF_ERR_INVAL);
    HCCT_EXPECT(strstr(e.detail, "initialized tree") != NULL);
    HCCT_EXPECT(ctxprof_hcct_init(&t, NULL, NULL) == CTXPROF_ERR_INVAL);
    HCCT_EXPECT(heap == SIZE_MAX || ctxprof_test_heap_bytes() <= heap + 4096);
    /* untouched: its descriptor and its count */
    HCCT_EXPECT(t.desc.phi == 1e-4);
    HCCT_EXPECT(ctxprof_hcct_query(&t, -1, &p, &e) == CTXPROF_OK);
    HCCT_EXPECT(p.total == 1);
    ctxprof_hcct_profile_deinit(&p);
    ctxprof_hcct_deinit(&t);
    HCCT_EXPECT(ctxprof_hcct_init(&t, &d, &e) == CTXPROF_OK); /* deinitialized */
    ctxprof_hcct_deinit(&t);
    d.phi = 2;
    HCCT_EXPECT(ctxprof_hcct_init(&t, &d, &e) == CTXPROF_ERR_INVAL);
    HCCT_EXPECT(ctxprof_hcct_init(&t, NULL, &e) == CTXPROF_OK); /* failed */
    ctxprof_hcct_deinit(&t);
    memset(&g, 0xA5, sizeof g); /* never used: whatever the storage held */
    HCCT_EXPECT(ctxprof_hcct_init(&g, NULL, &e) == CTXPROF_OK);
    ctxprof_hcct_deinit(&g);
    memset(&g, 0, sizeof g);
    HCCT_EXPECT(ctxprof_hcct_init(&g, NULL, &e) == CTXPROF_OK); /* zeroed */
    ctxprof_hcct_deinit(&g);
    return 0;
}

static void hcct_init_live(void)
{
    hcct_misuse_run(hcct_init_live_child, NULL);
}

/* Every function with an error record clears it first: a success leaves
   no earlier error in it. */
static void hcct_mu_stale(ctxprof_error *e)
{
    e->status = CTXPROF_ERR_CORRUPT;
    e->sys_errno = 5;
    snprintf(e->detail, sizeof e->detail, "an earlier error");
}
#define HCCT_MU_CLEARED(e) ((e).status == 0 && (e).sys_errno == 0 && (e).detail[0] == '\0')

static int hcct_error_cleared_child(void *arg, void *shared)
{
    const char *path = (const char *)arg;
    ctxprof_hcct t;
    ctxprof_hcct_profile p, q, r, s;
    ctxprof_hcct_accuracy acc;
    ctxprof_hcct_desc d = hcct_desc_lss(0.01, 0);
    ctxprof_error e;
    char *txt;
    size_t len;
    hcct_mu_r = (hcct_misuse *)shared;
    hcct_mu_stale(&e);
    HCCT_EXPECT(ctxprof_hcct_init(&t, &d, &e) == CTXPROF_OK && HCCT_MU_CLEARED(e));
    ctxprof_hcct_push(&t, HCCT_MU_A, 0);
    ctxprof_hcct_push(&t, HCCT_MU_B, 0);
    ctxprof_hcct_pop(&t);
    ctxprof_hcct_pop(&t);
    hcct_mu_stale(&e);
    HCCT_EXPECT(ctxprof_hcct_query(&t, -1, &p, &e) == CTXPROF_OK && HCCT_MU_CLEARED(e));
    hcct_mu_stale(&e);
    HCCT_EXPECT(ctxprof_hcct_profile_copy(&q, &p, &e) == CTXPROF_OK && HCCT_MU_CLEARED(e));
    hcct_mu_stale(&e);
    HCCT_EXPECT(ctxprof_hcct_profile_merge(&q, &p, 0, &e) == CTXPROF_OK && HCCT_MU_CLEARED(e));
    hcct_mu_stale(&e);
    HCCT_EXPECT(ctxprof_hcct_profile_prune(&q, 0.5, &e) == CTXPROF_OK && HCCT_MU_CLEARED(e));
    hcct_mu_stale(&e);
    HCCT_EXPECT(ctxprof_hcct_profile_compare(&p, &p, 0.5, &acc, &e) == CTXPROF_OK &&
                HCCT_MU_CLEARED(e));
    hcct_mu_stale(&e);
    HCCT_EXPECT(ctxprof_hcct_profile_format(&p, NULL, &txt, &len, &e) == CTXPROF_OK &&
                HCCT_MU_CLEARED(e));
    ctxprof_hcct_text_free(&p, txt);
    hcct_mu_stale(&e);
    HCCT_EXPECT(ctxprof_hcct_profile_write(
                    &p, path, &(ctxprof_hcct_write_desc){CTXPROF_HCCT_BINARY, 0, 0, 0, 0},
                    &e) == CTXPROF_OK &&
                HCCT_MU_CLEARED(e));
    hcct_mu_stale(&e);
    HCCT_EXPECT(ctxprof_hcct_profile_read(&r, path, NULL, &e) == CTXPROF_OK && HCCT_MU_CLEARED(e));
    hcct_mu_stale(&e);
    HCCT_EXPECT(ctxprof_hcct_start(&d, &e) == CTXPROF_OK && HCCT_MU_CLEARED(e));
    hcct_mu_stale(&e);
    HCCT_EXPECT(ctxprof_hcct_snapshot(-1, &s, &e) == CTXPROF_OK && HCCT_MU_CLEARED(e));
    ctxprof_hcct_shutdown();
    ctxprof_hcct_profile_deinit(&p);
    ctxprof_hcct_profile_deinit(&q);
    ctxprof_hcct_profile_deinit(&r);
    ctxprof_hcct_profile_deinit(&s);
    ctxprof_hcct_deinit(&t);
    return 0;
}

static void hcct_error_cleared(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/hcct-cleared.hcct", ctxprof_test_tmpdir());
    hcct_misuse_run(hcct_error_cleared_child, path);
}

/* NULL arguments of the cold-path functions (init's crashed): CTXPROF_ERR_INVAL;
   a zeroed profile pruned stays empty. */
static int hcct_null_args_child(void *arg, void *shared)
{
    const char *path = (const char *)arg;
    static const uintptr_t rs[] = {1, 2};
    ctxprof_hcct t;
    ctxprof_hcct_profile p, z;
    ctxprof_hcct_accuracy acc;
    ctxprof_hcct_stats st;
    ctxprof_error e;
    char *txt;
    size_t len;
    hcct_mu_r = (hcct_misuse *)shared;
    memset(&e, 0, sizeof e);
    memset(&z, 0, sizeof z);
    HCCT_EXPECT(ctxprof_hcct_init(NULL, NULL, &e) == CTXPROF_ERR_INVAL);
    HCCT_EXPECT(strstr(e.detail, "NULL tree") != NULL);
    HCCT_EXPECT(ctxprof_hcct_init(&t, NULL, &e) == CTXPROF_OK);
    ctxprof_hcct_push(&t, HCCT_MU_A, 0);
    ctxprof_hcct_pop(&t);
    HCCT_EXPECT(ctxprof_hcct_query(&t, 0, NULL, &e) == CTXPROF_ERR_INVAL);
    HCCT_EXPECT(ctxprof_hcct_query(NULL, 0, &p, &e) == CTXPROF_ERR_INVAL);
    HCCT_EXPECT(ctxprof_hcct_query(&t, -1, &p, &e) == CTXPROF_OK);
    HCCT_EXPECT(ctxprof_hcct_profile_write(NULL, path, NULL, &e) == CTXPROF_ERR_INVAL);
    HCCT_EXPECT(ctxprof_hcct_profile_write(&p, NULL, NULL, &e) == CTXPROF_ERR_INVAL);
    HCCT_EXPECT(ctxprof_hcct_profile_format(NULL, NULL, &txt, &len, &e) == CTXPROF_ERR_INVAL);
    HCCT_EXPECT(ctxprof_hcct_profile_format(&p, NULL, NULL, &len, &e) == CTXPROF_ERR_INVAL);
    HCCT_EXPECT(ctxprof_hcct_profile_format(&p, NULL, &txt, NULL, &e) == CTXPROF_ERR_INVAL);
    HCCT_EXPECT(ctxprof_hcct_profile_read(NULL, path, NULL, &e) == CTXPROF_ERR_INVAL);
    HCCT_EXPECT(ctxprof_hcct_profile_read(&z, NULL, NULL, &e) == CTXPROF_ERR_INVAL);
    HCCT_EXPECT(ctxprof_hcct_profile_merge(NULL, &p, 0, &e) == CTXPROF_ERR_INVAL);
    HCCT_EXPECT(ctxprof_hcct_profile_merge(&z, NULL, 0, &e) == CTXPROF_ERR_INVAL);
    HCCT_EXPECT(ctxprof_hcct_profile_copy(NULL, &p, &e) == CTXPROF_ERR_INVAL);
    HCCT_EXPECT(ctxprof_hcct_profile_copy(&z, NULL, &e) == CTXPROF_ERR_INVAL);
    HCCT_EXPECT(ctxprof_hcct_profile_compare(NULL, &p, 0.5, &acc, &e) == CTXPROF_ERR_INVAL);
    HCCT_EXPECT(ctxprof_hcct_profile_compare(&p, NULL, 0.5, &acc, &e) == CTXPROF_ERR_INVAL);
    HCCT_EXPECT(ctxprof_hcct_profile_compare(&p, &p, 0.5, NULL, &e) == CTXPROF_ERR_INVAL);
    HCCT_EXPECT(ctxprof_hcct_profile_prune(NULL, 0.5, &e) == CTXPROF_ERR_INVAL);
    HCCT_EXPECT(ctxprof_hcct_profile_prune(&z, 0.5, &e) == CTXPROF_OK && z.n == 0);
    HCCT_EXPECT(ctxprof_hcct_snapshot(0, NULL, &e) == CTXPROF_ERR_INVAL);
    HCCT_EXPECT(strcmp(ctxprof_hcct_profile_name(NULL, 0), "?") == 0);
    memset(&st, 0xFF, sizeof st);
    ctxprof_hcct_stats_get(NULL, &st);
    HCCT_EXPECT(st.events == 0 && st.nodes == 0 && st.bytes == 0);
    ctxprof_hcct_stats_get(&t, NULL);
    ctxprof_hcct_add(NULL, 1);
    ctxprof_hcct_add_path(NULL, rs, NULL, 2, 1);
    ctxprof_hcct_text_free(NULL, NULL);
    ctxprof_hcct_profile_deinit(NULL);
    ctxprof_hcct_deinit(NULL);
    HCCT_EXPECT(ctxprof_hcct_bind(NULL) == NULL);
    ctxprof_hcct_profile_deinit(&p);
    ctxprof_hcct_deinit(&t);
    return 0;
}

static void hcct_null_args(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/hcct-null.txt", ctxprof_test_tmpdir());
    hcct_misuse_run(hcct_null_args_child, path);
}

/* Messages say what is wrong: a query without an output profile said
   "query of an uninitialized tree", a NULL profile "empty profile". */
static void hcct_error_messages(void)
{
    ctxprof_hcct t, z;
    ctxprof_hcct_profile p, zp;
    ctxprof_error e;
    char path[512];
    memset(&e, 0, sizeof e);
    memset(&z, 0, sizeof z);
    memset(&zp, 0, sizeof zp);
    snprintf(path, sizeof path, "%s/hcct-messages.txt", ctxprof_test_tmpdir());
    REQUIRE(ctxprof_hcct_init(&t, NULL, &e) == CTXPROF_OK);
    CHECK_EQ(ctxprof_hcct_query(&t, 0, NULL, &e), CTXPROF_ERR_INVAL);
    CHECK_CONTAINS(e.detail, "without an output profile");
    CHECK(strstr(e.detail, "uninitialized") == NULL);
    CHECK_EQ(ctxprof_hcct_query(NULL, 0, &p, &e), CTXPROF_ERR_INVAL);
    CHECK_CONTAINS(e.detail, "NULL tree");
    CHECK_EQ(ctxprof_hcct_query(&z, 0, &p, &e), CTXPROF_ERR_INVAL);
    CHECK_CONTAINS(e.detail, "uninitialized tree");
    CHECK_EQ(ctxprof_hcct_profile_write(NULL, path, NULL, &e), CTXPROF_ERR_INVAL);
    CHECK_CONTAINS(e.detail, "NULL profile");
    CHECK(strstr(e.detail, "empty") == NULL);
    CHECK_EQ(ctxprof_hcct_profile_write(&zp, path, NULL, &e), CTXPROF_ERR_INVAL);
    CHECK_CONTAINS(e.detail, "empty profile");
    ctxprof_hcct_deinit(&t);
}

/* A zeroed tree (never initialized, or deinitialized): every function but
   exit survives it (push read its top frame: NULL); bind binds none. */
static int hcct_zeroed_tree_child(void *arg, void *shared)
{
    static const uintptr_t rs[] = {1, 2};
    ctxprof_hcct z, t;
    ctxprof_hcct_profile p;
    ctxprof_hcct_stats st;
    ctxprof_error e;
    int round;
    (void)arg;
    hcct_mu_r = (hcct_misuse *)shared;
    memset(&e, 0, sizeof e);
    memset(&z, 0, sizeof z);
    HCCT_EXPECT(ctxprof_hcct_init(&t, NULL, &e) == CTXPROF_OK);
    ctxprof_hcct_push(&t, HCCT_MU_A, 0);
    ctxprof_hcct_pop(&t);
    ctxprof_hcct_deinit(&t);
    for (round = 0; round < 2; round++) {
        ctxprof_hcct *x = round == 0 ? &z : &t; /* zeroed, then deinitialized */
        static const ctxprof_hcct zero;
        ctxprof_hcct_push(x, HCCT_MU_A, 0);
        ctxprof_hcct_push(x, HCCT_MU_B, 7);
        ctxprof_hcct_add(x, 5);
        ctxprof_hcct_pop(x);
        ctxprof_hcct_pop(x);
        ctxprof_hcct_pop(x); /* one too many */
        ctxprof_hcct_add_path(x, rs, NULL, 2, 3);
        HCCT_EXPECT(memcmp(x, &zero, sizeof zero) == 0); /* untouched so far */
        ctxprof_hcct_enter(x, HCCT_MU_A, 0, 4096);
        ctxprof_hcct_enter(x, HCCT_MU_B, 0, 2048);
        ctxprof_hcct_add_path(x, rs, NULL, 2, 3);
        HCCT_EXPECT(x->frames == NULL && x->nodes == NULL);
        memset(&st, 0xFF, sizeof st);
        ctxprof_hcct_stats_get(x, &st);
        HCCT_EXPECT(st.events == 0 && st.nodes == 0 && st.depth == 0 && st.bytes == 0);
        HCCT_EXPECT(ctxprof_hcct_query(x, 0, &p, &e) == CTXPROF_ERR_INVAL);
        HCCT_EXPECT(strstr(e.detail, "uninitialized") != NULL);
        HCCT_EXPECT(ctxprof_hcct_bind(x) == NULL); /* binds none */
        HCCT_EXPECT(hcct_mu_scoped(1) == 2);
        HCCT_EXPECT(ctxprof_hcct_bind(NULL) == NULL);
        ctxprof_hcct_deinit(x);
        HCCT_EXPECT(ctxprof_hcct_init(x, NULL, &e) == CTXPROF_OK);
        ctxprof_hcct_deinit(x);
    }
    return 0;
}

static void hcct_zeroed_tree(void)
{
    hcct_misuse_run(hcct_zeroed_tree_child, NULL);
}

/* ctxprof_hcct_profile_write without a descriptor: the extension's format,
   as CTXPROF_HCCT's out= (it wrote text into x.svg); text without one, or
   for another one. */
static void hcct_write_by_extension(void)
{
    static const struct {
        const char *name, *has, *lacks;
    } cases[] = {
        {"x.svg", "<svg", "# ctxprof hcct"},
        {"x.json", "\"nodes\"", "# ctxprof hcct"},
        {"x.folded", "A;B 1\n", "# ctxprof hcct"},
        {"x.collapsed", "A;B 1\n", "# ctxprof hcct"},
        {"x.txt", "# ctxprof hcct: ", "<svg"},
        {"x", "# ctxprof hcct: ", "<svg"},
        {"x.out", "# ctxprof hcct: ", "<svg"},
        {"d.svg/x", "# ctxprof hcct: ", "<svg"}, /* a directory's dot is not one */
    };
    const char *dir = ctxprof_test_tmpdir();
    ctxprof_hcct t;
    ctxprof_hcct_profile p, q;
    ctxprof_error e;
    char path[600], *txt;
    size_t i, len;
    memset(&e, 0, sizeof e);
    REQUIRE(ctxprof_hcct_init(&t, NULL, &e) == CTXPROF_OK);
    ctxprof_hcct_push(&t, HCCT_MU_A, 0);
    ctxprof_hcct_push(&t, HCCT_MU_B, 0);
    ctxprof_hcct_pop(&t);
    ctxprof_hcct_pop(&t);
    REQUIRE(ctxprof_hcct_query(&t, -1, &p, &e) == CTXPROF_OK);
    snprintf(path, sizeof path, "%s/d.svg", dir);
    REQUIRE(mkdir(path, 0700) == 0 || errno == EEXIST);
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, cases[i].name);
        CHECK_EQ(ctxprof_hcct_profile_write(&p, path, NULL, &e), CTXPROF_OK);
        REQUIRE(ctxprof__read_file(path, &txt, &len, NULL, &e) == CTXPROF_OK);
        if (!strstr(txt, cases[i].has) || strstr(txt, cases[i].lacks))
            fprintf(stderr, "  %s: %.60s\n", cases[i].name, txt);
        CHECK_CONTAINS(txt, cases[i].has);
        CHECK(strstr(txt, cases[i].lacks) == NULL);
        ctxprof__free(txt, NULL);
    }
    /* binary: read back the same */
    snprintf(path, sizeof path, "%s/x.hcct", dir);
    CHECK_EQ(ctxprof_hcct_profile_write(&p, path, NULL, &e), CTXPROF_OK);
    REQUIRE(ctxprof_hcct_profile_read(&q, path, NULL, &e) == CTXPROF_OK);
    CHECK(hcct_same_profile(&p, &q));
    ctxprof_hcct_profile_deinit(&q);
    ctxprof_hcct_profile_deinit(&p);
    ctxprof_hcct_deinit(&t);
}

/* ---- the lazy priority queue against a brute-force minimum ---- */

/* A reference lazy queue with the same rules as the library's (W FIFO
   buckets of the values in [base, end), stale entries moved when met, a
   rescan in the given order when the window is used up), written the
   simplest way: buckets are lists linked through next[]. The library keeps
   its buckets in blocks and prefetches ahead; its victims must be the same. */
typedef struct hcct_refq {
    uint32_t head[CTXPROF__HCCT_W], tail[CTXPROF__HCCT_W], *next;
    uint64_t base, end;
} hcct_refq;

static void hcct_refq_push(hcct_refq *q, uint32_t x, uint64_t value)
{
    uint32_t b = (uint32_t)(value % CTXPROF__HCCT_W);
    if (value >= q->end)
        return;
    q->next[x] = CTXPROF_HCCT_NONE;
    if (q->head[b] == CTXPROF_HCCT_NONE)
        q->head[b] = x;
    else
        q->next[q->tail[b]] = x;
    q->tail[b] = x;
}

static uint32_t hcct_refq_pop(hcct_refq *q, const ctxprof_hcct *t, const uint32_t *ids, uint32_t k)
{
    const uint64_t mask = ~((uint64_t)1 << 63);
    for (;;) {
        uint32_t b, x, i;
        while (q->base < q->end && q->head[q->base % CTXPROF__HCCT_W] == CTXPROF_HCCT_NONE)
            q->base++;
        if (q->base >= q->end) { /* rescan, in the tree's post-order (ids[]) */
            uint64_t m = UINT64_MAX;
            for (i = 0; i < k; i++)
                if ((t->nodes[ids[i]].count & mask) < m)
                    m = t->nodes[ids[i]].count & mask;
            for (b = 0; b < CTXPROF__HCCT_W; b++)
                q->head[b] = CTXPROF_HCCT_NONE;
            q->base = m;
            q->end = m + CTXPROF__HCCT_W;
            for (i = 0; i < k; i++)
                hcct_refq_push(q, ids[i], t->nodes[ids[i]].count & mask);
            continue;
        }
        b = (uint32_t)(q->base % CTXPROF__HCCT_W);
        x = q->head[b];
        q->head[b] = q->next[x];
        if ((t->nodes[x].count & mask) == q->base)
            return x;
        hcct_refq_push(q, x, t->nodes[x].count & mask);
    }
}

static void hcct_lazy_queue(void)
{
    static const uint32_t sizes[] = {1, 2, 7, 64, 300, 2000};
    uint64_t seed = 11;
    size_t si;
    int radix;
    for (si = 0; si < 2 * sizeof sizes / sizeof sizes[0]; si++) {
        uint32_t k = sizes[si / 2], i;
        ctxprof_hcct t;
        ctxprof_hcct_desc d = hcct_desc_lss(0.5, 0);
        ctxprof_error e;
        uint32_t *ids = (uint32_t *)malloc(k * sizeof *ids);
        hcct_refq ref;
        int op;
        radix = (int)(si % 2);
        memset(&e, 0, sizeof e);
        d.counters = k;
        REQUIRE(ids && ctxprof_hcct_init(&t, &d, &e) == CTXPROF_OK);
        /* k monitored nodes under the root, random initial counts */
        for (i = 0; i < k; i++) {
            uintptr_t r = 100 + i;
            ctxprof_hcct_add_path(&t, &r, NULL, 1, 1 + ctxprof_test_rand(&seed) % 50);
        }
        for (i = 0, ids[0] = t.nodes[1].child; i + 1 < k; i++)
            ids[i + 1] = t.nodes[ids[i]].sibling;
        REQUIRE_EQ(t.used, k);
        /* weights other than 1 switched the queue to radix mode; the window
           is tested by going back to it: the library lists nothing until M
           is full, and the first pop rescans */
        if (!radix) {
            ctxprof__hcct_q_reset(&t);
            t.qradix = 0;
            t.qbase = t.qend = 0;
        } else if (!t.qradix) {
            ctxprof__hcct_q_radix(&t);
        }
        t.st.rescans = 0;
        memset(&ref, 0, sizeof ref);
        ref.next = (uint32_t *)malloc(t.n_nodes * sizeof *ref.next);
        REQUIRE(ref.next != NULL);
        for (i = 0; i < CTXPROF__HCCT_W; i++)
            ref.head[i] = CTXPROF_HCCT_NONE;
        for (op = 0; op < 40000; op++) {
            uint64_t r = ctxprof_test_rand(&seed), w;
            uint32_t x = ids[r % k];
            /* weights: mostly small, sometimes past the window (radix: up to
               2^40); a tenth of the runs uses unit weights, so that buckets
               grow long */
            w = (r >> 20) % 16 == 0 ? 1 + (r >> 40) % 1000 : 1 + (r >> 40) % 3;
            if (radix && (r >> 24) % 8 == 0)
                w = 1 + (r >> 24) % ((uint64_t)1 << 40);
            if (op % 10000 < 1000)
                w = 1;
            if ((r >> 8) % 3 == 0) { /* an increment, as by the fast path */
                t.nodes[x].count += w;
            } else { /* find-min, then the slot takes a new item at min + w */
                uint64_t bmin = UINT64_MAX;
                uint32_t y = ctxprof__hcct_q_pop_min(&t);
                for (i = 0; i < k; i++)
                    if ((t.nodes[ids[i]].count & ~((uint64_t)1 << 63)) < bmin)
                        bmin = t.nodes[ids[i]].count & ~((uint64_t)1 << 63);
                CHECK_EQ(t.nodes[y].count & ~((uint64_t)1 << 63), bmin);
                CHECK_EQ(t.qbase, bmin);
                if (!radix) /* the same victim as the reference */
                    CHECK_EQ(y, hcct_refq_pop(&ref, &t, ids, k));
                t.nodes[y].count += w;
                ctxprof__hcct_q_push(&t, y, t.nodes[y].count & ~((uint64_t)1 << 63));
                if (!radix)
                    hcct_refq_push(&ref, y, t.nodes[y].count & ~((uint64_t)1 << 63));
            }
            if (op % 5000 == 0)
                hcct_check(&t, UINT64_MAX);
            if (ctxprof_test_failed)
                break;
        }
        if (radix)
            CHECK_EQ(t.st.rescans, 0); /* never: every monitored node is listed */
        else
            CHECK(t.st.rescans >= 1);
        free(ref.next);
        free(ids);
        ctxprof_hcct_deinit(&t);
    }
}

/* ---- LSS against the exact CCT ---- */

/* Profiles a and b hold the same contexts with the same counts, errors and
   flags (node order may differ). */
static void hcct_same_contexts(const ctxprof_hcct_profile *a, const ctxprof_hcct_profile *b)
{
    ctxprof__hcct_ix ix;
    uint32_t *map = (uint32_t *)malloc((a->n + 1) * sizeof *map);
    size_t i;
    memset(&ix, 0, sizeof ix);
    CHECK_EQ(a->n, b->n);
    CHECK_EQ(a->total, b->total);
    CHECK_EQ(a->absent, b->absent);
    REQUIRE(map && ctxprof__hcct_index(b, &ix, 0) == CTXPROF_OK);
    map[0] = 0;
    for (i = 1; i < a->n; i++) { /* parents come first */
        uint32_t pp = map[a->nodes[i].parent], j;
        j = pp == CTXPROF_HCCT_NONE ? CTXPROF_HCCT_NONE
                                    : ctxprof__hcct_find(b, &ix, pp, a, (uint32_t)i, 0);
        map[i] = j;
        CHECK(j != CTXPROF_HCCT_NONE);
        if (j == CTXPROF_HCCT_NONE)
            break;
        CHECK_EQ(a->nodes[i].count, b->nodes[j].count);
        CHECK_EQ(a->nodes[i].err, b->nodes[j].err);
        CHECK_EQ(a->nodes[i].flags, b->nodes[j].flags);
    }
    ctxprof__hcct_ix_free(&ix);
    free(map);
}

/* The replacement path of enter events (victim first, written out for
   speed, the queue prefetching ahead) against the general Space Saving
   update (create the node, then evict the minimum): the same stream must
   give the same MCCT, counts, errors and statistics at every check. */
static void hcct_replace_equivalence(void)
{
    static const size_t counters[] = {16, 200};
    size_t k;
    for (k = 0; k < sizeof counters / sizeof counters[0]; k++) {
        ctxprof_hcct a, b;
        ctxprof_hcct_desc d = hcct_desc_lss(0.5, 0);
        ctxprof_error e;
        hcct_gen g = {7 + k, 0, 1};
        uint64_t n = 0;
        int w;
        memset(&e, 0, sizeof e);
        d.counters = counters[k];
        REQUIRE(ctxprof_hcct_init(&a, &d, &e) == CTXPROF_OK);
        REQUIRE(ctxprof_hcct_init(&b, &d, &e) == CTXPROF_OK);
        for (w = 0; w < 30000; w++) {
            unsigned dep = 1 + (unsigned)(ctxprof_test_rand(&g.seed) % 8), j;
            if (w == 15000)
                g.phase = 1; /* a new hot set */
            for (j = 0; j < dep; j++) {
                uintptr_t r = hcct_zipf(&g.seed) + 1000u * g.phase;
                uintptr_t s = (uintptr_t)(ctxprof_test_rand(&g.seed) % 3);
                b.lean = 0; /* b takes the general path */
                ctxprof_hcct_push(&a, r, s);
                ctxprof_hcct_push(&b, r, s);
                n++;
            }
            for (j = 0; j < dep; j++) {
                ctxprof_hcct_pop(&a);
                ctxprof_hcct_pop(&b);
            }
            if (w % 3000 == 2999) {
                ctxprof_hcct_profile pa, pb;
                REQUIRE(ctxprof_hcct_query(&a, -1, &pa, &e) == CTXPROF_OK);
                REQUIRE(ctxprof_hcct_query(&b, -1, &pb, &e) == CTXPROF_OK);
                hcct_same_contexts(&pa, &pb);
                ctxprof_hcct_profile_deinit(&pa);
                ctxprof_hcct_profile_deinit(&pb);
                hcct_check(&a, n);
                hcct_check(&b, n);
                CHECK_EQ(a.st.replaced, b.st.replaced);
                CHECK_EQ(a.st.pruned, b.st.pruned);
                CHECK_EQ(a.st.rescans, b.st.rescans);
                if (ctxprof_test_failed)
                    break;
            }
        }
        CHECK(a.st.replaced > 20000 && a.st.rescans >= 2); /* the stream did stress M */
        ctxprof_hcct_deinit(&a);
        ctxprof_hcct_deinit(&b);
    }
}

static void hcct_ss_skewed(void)
{
    static const double eps[] = {1e-2, 2e-3, 5e-4};
    size_t k;
    for (k = 0; k < sizeof eps / sizeof eps[0]; k++) {
        ctxprof_hcct a, b;
        ctxprof_hcct_desc da = hcct_desc_lss(4 * eps[k], eps[k]), db = hcct_desc_cct();
        ctxprof_error e;
        hcct_gen g = {k + 1, 0, (int)k & 1};
        uint64_t n = 0;
        int w;
        size_t fp = 0;
        memset(&e, 0, sizeof e);
        REQUIRE(ctxprof_hcct_init(&a, &da, &e) == CTXPROF_OK);
        REQUIRE(ctxprof_hcct_init(&b, &db, &e) == CTXPROF_OK);
        for (w = 0; w < 40000; w++) {
            n += hcct_walk(&g, &a, &b);
            if (w % 8000 == 7999) {
                hcct_check(&a, n);
                hcct_check(&b, n);
                hcct_guarantees(&a, &b, 4 * eps[k], &fp);
            }
        }
        CHECK(a.st.replaced > 1000); /* the stream did stress M */
        CHECK_LE(a.st.nodes_peak, 8 * a.nslots);
        {
            ctxprof_hcct_stats st;
            ctxprof_hcct_stats_get(&a, &st);
            CHECK_EQ(st.events, n);
            CHECK_EQ(st.total, n);
            CHECK_LE(st.bytes, st.bytes_bound);
        }
        ctxprof_hcct_deinit(&a);
        ctxprof_hcct_deinit(&b);
        if (ctxprof_test_failed)
            return;
    }
}

/* A new hot set halfway: the contexts of the second half must all be
   found although M is full of the first half's. */
static void hcct_ss_phase_change(void)
{
    ctxprof_hcct a, b;
    ctxprof_hcct_desc da = hcct_desc_lss(1e-2, 1e-3), db = hcct_desc_cct();
    ctxprof_error e;
    hcct_gen g = {99, 0, 1};
    ctxprof_hcct_profile p;
    size_t i, late = 0;
    int w;
    memset(&e, 0, sizeof e);
    REQUIRE(ctxprof_hcct_init(&a, &da, &e) == CTXPROF_OK);
    REQUIRE(ctxprof_hcct_init(&b, &db, &e) == CTXPROF_OK);
    for (w = 0; w < 60000; w++) {
        g.phase = w >= 30000;
        hcct_walk(&g, &a, &b);
    }
    hcct_guarantees(&a, &b, 1e-2, NULL);
    REQUIRE(ctxprof_hcct_query(&a, 1e-2, &p, &e) == CTXPROF_OK);
    for (i = 1; i < p.n; i++)
        late += (p.nodes[i].flags & CTXPROF_HCCT_HOT) && p.nodes[i].routine >= 1000;
    CHECK(late > 0); /* the second phase's hot contexts are there */
    ctxprof_hcct_profile_deinit(&p);
    hcct_check(&a, UINT64_MAX);
    ctxprof_hcct_deinit(&a);
    ctxprof_hcct_deinit(&b);
}

/* Adversarial orders: round robin over |M| + 1 cold contexts around one
   hot context (every cold event evicts); all counts tied; a hot context
   that only appears in the second half; deep unique chains (many
   unmonitored ancestors). */
static void hcct_ss_adversarial(void)
{
    int scenario;
    for (scenario = 0; scenario < 4; scenario++) {
        ctxprof_hcct a, b;
        ctxprof_hcct_desc da = hcct_desc_lss(0.05, 0.01), db = hcct_desc_cct();
        ctxprof_error e;
        uint64_t s = 5 + (uint64_t)scenario, n = 0;
        int i, k;
        memset(&e, 0, sizeof e);
        REQUIRE(ctxprof_hcct_init(&a, &da, &e) == CTXPROF_OK);
        REQUIRE(ctxprof_hcct_init(&b, &db, &e) == CTXPROF_OK);
        for (i = 0; i < 30000; i++) {
            uintptr_t path[12];
            int d = 2;
            path[0] = 1;
            switch (scenario) {
            case 0: /* round robin over 101 contexts, a hot one every third event */
                path[1] = i % 3 == 0 ? 7 : 100 + (uintptr_t)((i / 3) % 101);
                break;
            case 1: /* all tied */
                path[1] = 100 + (uintptr_t)(i % 150);
                break;
            case 2: /* distinct contexts, then a late hot one */
                path[1] = i < 15000 ? 1000 + (uintptr_t)i : (i % 4 ? 7 : 2000 + (uintptr_t)i);
                break;
            default: /* deep unique chains under a few hot prefixes */
                d = 12;
                path[1] = 1 + (uintptr_t)(i % 3);
                for (k = 2; k < d; k++)
                    path[k] = (uintptr_t)(ctxprof_test_rand(&s) % 50);
                break;
            }
            for (k = 0; k < d; k++) {
                ctxprof_hcct_push(&a, path[k], 0);
                ctxprof_hcct_push(&b, path[k], 0);
            }
            for (k = 0; k < d; k++) {
                ctxprof_hcct_pop(&a);
                ctxprof_hcct_pop(&b);
            }
            n += (uint64_t)d;
            if (i % 5000 == 4999)
                CHECK_EQ(hcct_check(&a, n), 0);
        }
        hcct_guarantees(&a, &b, 0.05, NULL);
        ctxprof_hcct_deinit(&a);
        ctxprof_hcct_deinit(&b);
        if (ctxprof_test_failed)
            return;
    }
}

/* The tree after every single event, with a tiny M so that most events
   replace and prune. */
static void hcct_prune_every_event(void)
{
    ctxprof_hcct a;
    ctxprof_hcct_desc d = hcct_desc_lss(0.5, 0);
    ctxprof_error e;
    uint64_t s = 3, n = 0;
    int i, depth = 0;
    memset(&e, 0, sizeof e);
    d.counters = 16;
    REQUIRE(ctxprof_hcct_init(&a, &d, &e) == CTXPROF_OK);
    for (i = 0; i < 40000; i++) {
        uint64_t r = ctxprof_test_rand(&s);
        if (depth < 10 && (r % 5 < 3 || depth == 0)) {
            ctxprof_hcct_push(&a, hcct_zipf(&s) % 9, r >> 62);
            depth++;
            n++;
        } else {
            ctxprof_hcct_pop(&a);
            depth--;
        }
        if (hcct_check(&a, n))
            break;
    }
    CHECK(a.st.pruned > 1000);
    ctxprof_hcct_deinit(&a);
}

/* The exact CCT against an independent map from whole paths to counts. */
typedef struct hcct_pathmap {
    uint64_t *key;
    uint64_t *val;
    size_t mask, n;
} hcct_pathmap;

static void hcct_pathmap_add(hcct_pathmap *m, uint64_t h)
{
    size_t i = (size_t)h & m->mask;
    while (m->key[i] && m->key[i] != h)
        i = (i + 1) & m->mask;
    if (!m->key[i]) {
        m->key[i] = h;
        m->n++;
    }
    m->val[i]++;
}

static uint64_t hcct_pathmap_get(const hcct_pathmap *m, uint64_t h)
{
    size_t i = (size_t)h & m->mask;
    while (m->key[i] && m->key[i] != h)
        i = (i + 1) & m->mask;
    return m->key[i] ? m->val[i] : 0;
}

static void hcct_exact_cct(void)
{
    ctxprof_hcct b;
    ctxprof_hcct_desc db = hcct_desc_cct();
    ctxprof_hcct_profile p;
    ctxprof_error e;
    hcct_pathmap m;
    uint64_t s = 17, stack[64], *ph;
    size_t i, depth = 0;
    memset(&e, 0, sizeof e);
    m.mask = (1u << 18) - 1;
    m.n = 0;
    m.key = (uint64_t *)calloc(m.mask + 1, sizeof *m.key);
    m.val = (uint64_t *)calloc(m.mask + 1, sizeof *m.val);
    REQUIRE(m.key && m.val && ctxprof_hcct_init(&b, &db, &e) == CTXPROF_OK);
    stack[0] = 0x1234;
    for (i = 0; i < 200000; i++) {
        uint64_t r = ctxprof_test_rand(&s);
        if (depth < 40 && (r % 7 < 4 || depth == 0)) {
            uintptr_t rt = hcct_zipf(&s) % 17, site = (uintptr_t)(r >> 60) % 3;
            ctxprof_hcct_push(&b, rt, site);
            stack[depth + 1] = ctxprof_mix64(stack[depth] ^ ((uint64_t)rt * 7 + site)) | 1;
            depth++;
            hcct_pathmap_add(&m, stack[depth]);
        } else {
            ctxprof_hcct_pop(&b);
            depth--;
        }
    }
    REQUIRE(ctxprof_hcct_query(&b, -1, &p, &e) == CTXPROF_OK);
    CHECK_EQ(p.n - 1, m.n); /* one node per distinct path, plus the root */
    ph = (uint64_t *)malloc(p.n * sizeof *ph);
    REQUIRE(ph != NULL);
    ph[0] = 0x1234;
    for (i = 1; i < p.n; i++) {
        ph[i] = ctxprof_mix64(ph[p.nodes[i].parent] ^
                              ((uint64_t)p.nodes[i].routine * 7 + p.nodes[i].site)) |
                1;
        CHECK_EQ(p.nodes[i].count, hcct_pathmap_get(&m, ph[i]));
        CHECK_EQ(p.nodes[i].err, 0);
        CHECK(p.nodes[i].flags & CTXPROF_HCCT_MONITORED);
        if (ctxprof_test_failed)
            break;
    }
    hcct_check(&b, UINT64_MAX);
    free(ph);
    free(m.key);
    free(m.val);
    ctxprof_hcct_profile_deinit(&p);
    ctxprof_hcct_deinit(&b);
}

/* Weighted updates: add() on the current context and add_path(), LSS
   against CCT with the same weights (N = total weight). */
static void hcct_weighted(void)
{
    ctxprof_hcct a, b;
    ctxprof_hcct_desc da = hcct_desc_lss(2e-2, 2e-3), db = hcct_desc_cct();
    ctxprof_error e;
    uint64_t s = 23, total = 0;
    int i, k;
    memset(&e, 0, sizeof e);
    da.metric = db.metric = CTXPROF_HCCT_NANOSECONDS;
    REQUIRE(ctxprof_hcct_init(&a, &da, &e) == CTXPROF_OK);
    REQUIRE(ctxprof_hcct_init(&b, &db, &e) == CTXPROF_OK);
    CHECK_EQ(a.unit, 0);
    for (i = 0; i < 30000; i++) {
        uintptr_t path[6], sites[6];
        uint64_t w = 1 + ctxprof_test_rand(&s) % 1000;
        int d = 1 + (int)(ctxprof_test_rand(&s) % 6);
        for (k = 0; k < d; k++) {
            path[k] = hcct_zipf(&s);
            sites[k] = (uintptr_t)k;
        }
        if (i % 2) {
            ctxprof_hcct_add_path(&a, path, sites, (size_t)d, w);
            ctxprof_hcct_add_path(&b, path, sites, (size_t)d, w);
        } else { /* the same through enters and add() */
            for (k = 0; k < d; k++) {
                ctxprof_hcct_push(&a, path[k], sites[k]);
                ctxprof_hcct_push(&b, path[k], sites[k]);
            }
            ctxprof_hcct_add(&a, w);
            ctxprof_hcct_add(&b, w);
            for (k = 0; k < d; k++) {
                ctxprof_hcct_pop(&a);
                ctxprof_hcct_pop(&b);
            }
        }
        total += w;
    }
    hcct_check(&a, total);
    hcct_check(&b, total);
    hcct_guarantees(&a, &b, 2e-2, NULL);
    ctxprof_hcct_deinit(&a);
    ctxprof_hcct_deinit(&b);
}

/* A node bound too small for the stream: the events it keeps out go to
   "[dropped]", and a context they hide (here a hot one) is still covered
   by absent, in both modes, pruned or not. */
static void hcct_absent_with_drops(void)
{
    int mode, i, k;
    for (mode = 0; mode < 2; mode++) {
        ctxprof_hcct t;
        ctxprof_hcct_desc d = mode ? hcct_desc_cct() : hcct_desc_lss(0.2, 0);
        ctxprof_hcct_profile p;
        ctxprof_error e;
        const ctxprof_hcct_pnode *x;
        double phi;
        size_t j;
        memset(&e, 0, sizeof e);
        d.counters = mode ? 0 : 8;
        d.max_bytes = 16 * (size_t)CTXPROF__HCCT_NODE_BYTES(!mode);
        REQUIRE(ctxprof_hcct_init(&t, &d, &e) == CTXPROF_OK);
        for (i = 0; i < 12; i++)
            ctxprof_hcct_push(&t, (uintptr_t)(10 + i), 0);
        for (k = 0; k < 12; k++) {
            ctxprof_hcct_push(&t, (uintptr_t)(50 + k), 0);
            ctxprof_hcct_pop(&t);
        }
        for (k = 0; k < 1000; k++) {
            ctxprof_hcct_push(&t, 99, 0);
            ctxprof_hcct_pop(&t);
        }
        for (i = 0; i < 12; i++)
            ctxprof_hcct_pop(&t);
        for (phi = -1; phi < 0.5; phi += 1.2) { /* unpruned, then at 0.2 */
            REQUIRE(ctxprof_hcct_query(&t, phi, &p, &e) == CTXPROF_OK);
            CHECK(p.dropped > 0);
            for (x = NULL, j = 1; j < p.n; j++) /* the hot context: 10 > ... > 21 > 99 */
                if (p.nodes[j].routine == 99 && p.nodes[j].depth == 13)
                    x = &p.nodes[j];
            CHECK((x != NULL && x->count >= 1000) || p.absent >= 1000);
            ctxprof_hcct_profile_deinit(&p);
        }
        ctxprof_hcct_deinit(&t);
    }
}

/* Weights of 2^63 and more saturate at 2^63 - 1 (the count's top bit is
   the monitored flag), in both modes, through add_path and add. */
static void hcct_weight_saturates(void)
{
    int mode, via;
    for (mode = 0; mode < 2; mode++)
        for (via = 0; via < 2; via++) {
            ctxprof_hcct t;
            ctxprof_hcct_desc d = mode ? hcct_desc_cct() : hcct_desc_lss(0.01, 0);
            ctxprof_hcct_profile p;
            ctxprof_error e;
            static const uintptr_t path[] = {7, 8};
            const ctxprof_hcct_pnode *x;
            memset(&e, 0, sizeof e);
            d.metric = CTXPROF_HCCT_BYTES;
            REQUIRE(ctxprof_hcct_init(&t, &d, &e) == CTXPROF_OK);
            if (via) {
                ctxprof_hcct_push(&t, 7, 0);
                ctxprof_hcct_push(&t, 8, 0);
                ctxprof_hcct_add(&t, ((uint64_t)1 << 63) + 5);
                ctxprof_hcct_pop(&t);
                ctxprof_hcct_pop(&t);
            } else {
                ctxprof_hcct_add_path(&t, path, NULL, 2, ((uint64_t)1 << 63) + 5);
            }
            REQUIRE(ctxprof_hcct_query(&t, -1, &p, &e) == CTXPROF_OK);
            x = &p.nodes[p.n - 1];
            CHECK_EQ(x->routine, 8);
            CHECK_EQ(x->count, ((uint64_t)1 << 63) - 1);
            CHECK_EQ(p.total, ((uint64_t)1 << 63) - 1);
            ctxprof_hcct_profile_deinit(&p);
            ctxprof_hcct_deinit(&t);
        }
}

/* N saturates at 2^63 - 1 like the counts it sums (here 5 * 2^62). */
static void hcct_total_saturates(void)
{
    int mode;
    for (mode = 0; mode < 2; mode++) {
        ctxprof_hcct t;
        ctxprof_hcct_desc d = mode ? hcct_desc_cct() : hcct_desc_lss(0.1, 0.01);
        ctxprof_hcct_stats st;
        ctxprof_hcct_profile p;
        ctxprof_error e;
        uintptr_t r;
        memset(&e, 0, sizeof e);
        d.metric = CTXPROF_HCCT_NANOSECONDS;
        REQUIRE(ctxprof_hcct_init(&t, &d, &e) == CTXPROF_OK);
        for (r = 1; r <= 5; r++)
            ctxprof_hcct_add_path(&t, &r, NULL, 1, (uint64_t)1 << 62);
        ctxprof_hcct_stats_get(&t, &st);
        CHECK_EQ(st.total, ((uint64_t)1 << 63) - 1);
        REQUIRE(ctxprof_hcct_query(&t, 0.5, &p, &e) == CTXPROF_OK);
        CHECK_EQ(p.total, ((uint64_t)1 << 63) - 1);
        CHECK_EQ(p.threshold, (uint64_t)1 << 62);
        ctxprof_hcct_profile_deinit(&p);
        ctxprof_hcct_deinit(&t);
    }
}

/* Large weights (nanoseconds, cycles, samples): new counts land far from
   the minimum, and a window of W count values would be used up after a
   few replacements, each followed by a walk of the whole tree. The queue
   must stay amortized: at most one full rescan (the switch to radix mode),
   whatever the weights, while the bounds hold against the exact CCT. Both
   through add_path on a calls tree and through add() on a nanoseconds one. */
static void hcct_weighted_large(void)
{
    int metric;
    for (metric = 0; metric < 2; metric++) {
        ctxprof_hcct a, b;
        ctxprof_hcct_desc da = hcct_desc_lss(0.01, 0), db = hcct_desc_cct();
        ctxprof_error e;
        uint64_t s = 29 + (uint64_t)metric, total = 0;
        int i, k;
        memset(&e, 0, sizeof e);
        da.counters = 2000;
        da.metric = db.metric = metric ? CTXPROF_HCCT_NANOSECONDS : CTXPROF_HCCT_CALLS;
        REQUIRE(ctxprof_hcct_init(&a, &da, &e) == CTXPROF_OK);
        REQUIRE(ctxprof_hcct_init(&b, &db, &e) == CTXPROF_OK);
        for (i = 0; i < 150000; i++) {
            uintptr_t path[5];
            uint64_t w = 1 + ctxprof_test_rand(&s) % 1000000;
            int d = 1 + (int)(ctxprof_test_rand(&s) % 5);
            for (k = 0; k < d; k++)
                path[k] = hcct_zipf(&s) + (uintptr_t)(ctxprof_test_rand(&s) % 4) * 1000;
            if (!metric) {
                ctxprof_hcct_add_path(&a, path, NULL, (size_t)d, w);
                ctxprof_hcct_add_path(&b, path, NULL, (size_t)d, w);
            } else {
                for (k = 0; k < d; k++) {
                    ctxprof_hcct_push(&a, path[k], 0);
                    ctxprof_hcct_push(&b, path[k], 0);
                }
                ctxprof_hcct_add(&a, w);
                ctxprof_hcct_add(&b, w);
                for (k = 0; k < d; k++) {
                    ctxprof_hcct_pop(&a);
                    ctxprof_hcct_pop(&b);
                }
            }
            total += w;
            if (i % 50000 == 49999)
                hcct_check(&a, total); /* errors <= the brute-force minimum */
        }
        if (getenv("HCCT_TEST_VERBOSE"))
            fprintf(stderr, "  %llu replacements, %llu rescans\n",
                    (unsigned long long)a.st.replaced, (unsigned long long)a.st.rescans);
        CHECK(a.st.replaced > 50000);
        CHECK_LE(a.st.rescans, 1);
        hcct_guarantees(&a, &b, 0.01, NULL);
        ctxprof_hcct_deinit(&a);
        ctxprof_hcct_deinit(&b);
        if (ctxprof_test_failed)
            return;
    }
}

/* ---- shadow stack ---- */

/* Recovery by stack address, with explicit addresses: a longjmp back into
   A skips B and C; a sibling call at the same address replaces the dead
   frame; an inlined callee (same address, same call site) does not. */
static void hcct_longjmp_explicit(void)
{
    ctxprof_hcct t;
    ctxprof_hcct_desc d = hcct_desc_cct();
    ctxprof_hcct_profile p;
    ctxprof_error e;
    ctxprof_hcct_stats st;
    memset(&e, 0, sizeof e);
    REQUIRE(ctxprof_hcct_init(&t, &d, &e) == CTXPROF_OK);
    ctxprof_hcct_enter(&t, 'A', 1, 1000);
    ctxprof_hcct_enter(&t, 'B', 2, 900);
    ctxprof_hcct_enter(&t, 'C', 3, 800);
    /* longjmp into A; A calls D: same address as B, another call site */
    ctxprof_hcct_enter(&t, 'D', 4, 900);
    CHECK_EQ(t.top - t.frames, 2);
    CHECK_EQ(t.top[-1].routine, 'A');
    ctxprof_hcct_exit(&t, 'D', 900);
    /* B again from the same site: a fresh frame, not a child of the old B */
    ctxprof_hcct_enter(&t, 'B', 2, 900);
    ctxprof_hcct_enter(&t, 'C', 3, 800);
    ctxprof_hcct_enter(&t, 'E', 5, 700);
    /* longjmp into B, which calls B again from the same site */
    ctxprof_hcct_enter(&t, 'B', 2, 800);
    CHECK_EQ(t.top - t.frames, 3); /* A B B */
    ctxprof_hcct_exit(&t, 'B', 800);
    /* an inlined callee of B: same address, same call site as B */
    ctxprof_hcct_enter(&t, 'I', 2, 900);
    CHECK_EQ(t.top - t.frames, 3);
    CHECK_EQ(t.top[-1].routine, 'B');
    ctxprof_hcct_exit(&t, 'I', 900);
    /* alloca: B exits with a lower stack address */
    ctxprof_hcct_exit(&t, 'B', 850);
    ctxprof_hcct_exit(&t, 'A', 1000);
    CHECK(t.top == t.frames);
    ctxprof_hcct_exit(&t, 'A', 1000); /* nothing left: ignored */
    ctxprof_hcct_stats_get(&t, &st);
    CHECK_EQ(st.unwound, 4); /* B, C (first jump), C, E (second) */
    CHECK_EQ(st.unmatched, 1);
    REQUIRE(ctxprof_hcct_query(&t, -1, &p, &e) == CTXPROF_OK);
    {
        /* A: 1; A>B: 2; A>B>C: 2; A>D: 1; A>B>C>E: 1; A>B>B: 1; A>B>I: 1 */
        char *txt;
        size_t len;
        REQUIRE(ctxprof_hcct_profile_format(&p, &(ctxprof_hcct_write_desc){CTXPROF_HCCT_COLLAPSED, 0, 0, 0, 0},
                                            &txt, &len, &e) == CTXPROF_OK);
        CHECK_CONTAINS(txt, "0x41 1\n");
        CHECK_CONTAINS(txt, "0x41;0x42 2\n");
        CHECK_CONTAINS(txt, "0x41;0x42;0x43 2\n");
        CHECK_CONTAINS(txt, "0x41;0x44 1\n");
        CHECK_CONTAINS(txt, "0x41;0x42;0x43;0x45 1\n");
        CHECK_CONTAINS(txt, "0x41;0x42;0x42 1\n");
        CHECK_CONTAINS(txt, "0x41;0x42;0x49 1\n");
        CHECK_EQ(p.n, 8);
        ctxprof_hcct_text_free(&p, txt);
    }
    ctxprof_hcct_profile_deinit(&p);
    ctxprof_hcct_deinit(&t);
}

/* Real longjmps out of instrumented functions (hand-written macros, stack
   addresses from the frames): a loop that sets a jump buffer, recurses 20
   deep, jumps back and calls a leaf. */
static jmp_buf hcct_jb;
static volatile int hcct_lj_go = 1;

static __attribute__((noinline)) void hcct_lj_deep(int k)
{
    CTXPROF_HCCT_SCOPE("deep");
    if (k == 0) {
        if (hcct_lj_go)
            longjmp(hcct_jb, 1);
        return;
    }
    hcct_lj_deep(k - 1);
    __asm__ volatile("");
}

static __attribute__((noinline)) void hcct_lj_leaf(void)
{
    CTXPROF_HCCT_SCOPE("leaf");
    __asm__ volatile("");
}

static __attribute__((noinline)) void hcct_lj_top(void)
{
    volatile int i;
    CTXPROF_HCCT_SCOPE("top");
    for (i = 0; i < 100; i++) {
        if (setjmp(hcct_jb) == 0)
            hcct_lj_deep(20);
        hcct_lj_leaf();
    }
}

static const ctxprof_hcct_pnode *hcct_find_path(const ctxprof_hcct_profile *p, const char *const *names,
                                                size_t n)
{
    uint32_t x = 0;
    size_t k;
    for (k = 0; k < n; k++) {
        uint32_t c;
        for (c = p->nodes[x].child; c; c = p->nodes[c].sibling)
            if (strcmp(ctxprof_hcct_profile_name(p, c), names[k]) == 0)
                break;
        if (!c)
            return NULL;
        x = c;
    }
    return &p->nodes[x];
}

static void hcct_longjmp_real(void)
{
    ctxprof_hcct t;
    ctxprof_hcct_desc d = hcct_desc_cct();
    ctxprof_hcct_profile p;
    ctxprof_error e;
    static const char *const leaf[] = {"top", "leaf"}, *const deep[] = {"top", "deep"};
    const ctxprof_hcct_pnode *x;
    memset(&e, 0, sizeof e);
    d.flags = CTXPROF_HCCT_ROUTINE_ONLY;
    REQUIRE(ctxprof_hcct_init(&t, &d, &e) == CTXPROF_OK);
    ctxprof_hcct_bind(&t);
    hcct_lj_top();
    ctxprof_hcct_bind(NULL);
    CHECK(t.top == t.frames); /* nothing left on the shadow stack */
    CHECK(t.st.unwound >= 100 * 21 - 21);
    REQUIRE(ctxprof_hcct_query(&t, -1, &p, &e) == CTXPROF_OK);
    x = hcct_find_path(&p, leaf, 2);
    REQUIRE(x != NULL); /* the leaf is under top, not under a dead deep */
    CHECK_EQ(x->count, 100);
    x = hcct_find_path(&p, deep, 2);
    REQUIRE(x != NULL);
    CHECK_EQ(x->count, 100);
    CHECK_EQ(p.nodes[0].child != 0, 1);
    CHECK_EQ(p.n, 2 + 21 + 1); /* root, top, 21 deep levels, leaf */
    hcct_check(&t, 1 + 100 * 22);
    ctxprof_hcct_profile_deinit(&p);
    ctxprof_hcct_deinit(&t);
}

/* max_depth: frames beyond the bound are counted and never pushed; every
   exit still matches. */
static void hcct_depth_bound(void)
{
    ctxprof_hcct t;
    ctxprof_hcct_desc d = hcct_desc_cct();
    ctxprof_error e;
    ctxprof_hcct_stats st;
    int i;
    memset(&e, 0, sizeof e);
    d.max_depth = 64;
    REQUIRE(ctxprof_hcct_init(&t, &d, &e) == CTXPROF_OK);
    for (i = 0; i < 1000; i++)
        ctxprof_hcct_push(&t, (uintptr_t)(i % 5), 0);
    ctxprof_hcct_stats_get(&t, &st);
    CHECK_EQ(st.depth, 1000);
    CHECK_EQ(st.dropped_depth, 1000 - 63);
    CHECK_EQ(st.nodes, 64);
    for (i = 0; i < 1000; i++)
        ctxprof_hcct_pop(&t);
    ctxprof_hcct_stats_get(&t, &st);
    CHECK_EQ(st.depth, 0);
    CHECK_EQ(st.unmatched, 0);
    ctxprof_hcct_push(&t, 1, 0); /* still usable */
    ctxprof_hcct_pop(&t);
    CHECK(t.top == t.frames);
    /* with stack addresses, and a longjmp out of the region beyond the bound */
    for (i = 0; i < 200; i++)
        ctxprof_hcct_enter(&t, 9, 0, 100000 - (uintptr_t)i * 16);
    ctxprof_hcct_enter(&t, 10, 1, 100000 - 16); /* back at depth 2 */
    CHECK_EQ(t.excess, 0);
    CHECK_EQ(t.top - t.frames, 2);
    ctxprof_hcct_exit(&t, 10, 100000 - 16);
    ctxprof_hcct_exit(&t, 9, 100000);
    CHECK(t.top == t.frames);
    hcct_check(&t, UINT64_MAX);
    ctxprof_hcct_deinit(&t);
}

/* 100,000-deep recursion with explicit events, exact and LSS: the frame
   array grows, the tree is a 100,000-node chain, queries and outputs stay
   bounded. */
static void hcct_deep_explicit(void)
{
    int mode;
    for (mode = 0; mode < 2; mode++) {
        ctxprof_hcct t;
        ctxprof_hcct_desc d = mode ? hcct_desc_cct() : hcct_desc_lss(0.01, 0.001);
        ctxprof_hcct_profile p;
        ctxprof_error e;
        ctxprof_hcct_stats st;
        char *txt;
        size_t len;
        int i, r;
        memset(&e, 0, sizeof e);
        if (!mode) /* the current path is always in the tree: room for 100,000 nodes */
            d.max_bytes = 150000 * CTXPROF__HCCT_NODE_BYTES(1);
        REQUIRE(ctxprof_hcct_init(&t, &d, &e) == CTXPROF_OK);
        for (r = 0; r < 2; r++) {
            for (i = 0; i < 100000; i++)
                ctxprof_hcct_push(&t, 42, 0);
            for (i = 0; i < 100000; i++)
                ctxprof_hcct_pop(&t);
        }
        ctxprof_hcct_stats_get(&t, &st);
        CHECK_EQ(st.depth_peak, 100000);
        CHECK_EQ(st.dropped_depth, 0);
        CHECK_EQ(st.total, 200000);
        if (mode)
            CHECK_EQ(st.nodes, 100001);
        REQUIRE(ctxprof_hcct_query(&t, -1, &p, &e) == CTXPROF_OK);
        REQUIRE(ctxprof_hcct_profile_format(&p, NULL, &txt, &len, &e) == CTXPROF_OK);
        CHECK_LE(len, 200000); /* folded after max_depth (1024) */
        CHECK_CONTAINS(txt, "deeper contexts not shown");
        ctxprof_hcct_text_free(&p, txt);
        REQUIRE(ctxprof_hcct_profile_format(
                    &p, &(ctxprof_hcct_write_desc){CTXPROF_HCCT_COLLAPSED, 0, 0, 0, 0}, &txt,
                    &len, &e) == CTXPROF_OK);
        CHECK_LE(len, 12000000);
        CHECK_CONTAINS(txt, ";[deeper] ");
        ctxprof_hcct_text_free(&p, txt);
        REQUIRE(ctxprof_hcct_profile_format(
                    &p, &(ctxprof_hcct_write_desc){CTXPROF_HCCT_SVG, 0, 0, 0, 0}, &txt, &len,
                    &e) == CTXPROF_OK);
        ctxprof_hcct_text_free(&p, txt);
        hcct_check(&t, 200000);
        ctxprof_hcct_profile_deinit(&p);
        ctxprof_hcct_deinit(&t);
    }
}

/* 100,000-deep real recursion through the macros, on a thread with a big
   stack. */
static __attribute__((noinline)) unsigned long hcct_recurse(unsigned long k)
{
    CTXPROF_HCCT_SCOPE("recurse");
    if (k == 0)
        return 0;
    return 1 + hcct_recurse(k - 1);
}

static void *hcct_deep_thread(void *arg)
{
    ctxprof_hcct *t = (ctxprof_hcct *)arg;
    ctxprof_hcct_bind(t);
    if (hcct_recurse(99999) != 99999)
        t->st.bursts = 12345; /* flags a wrong result to the test */
    ctxprof_hcct_bind(NULL);
    return NULL;
}

static void hcct_deep_real(void)
{
    ctxprof_hcct t;
    ctxprof_hcct_desc d = hcct_desc_cct();
    ctxprof_error e;
    ctxprof_hcct_stats st;
    pthread_attr_t at;
    pthread_t th;
    memset(&e, 0, sizeof e);
    REQUIRE(ctxprof_hcct_init(&t, &d, &e) == CTXPROF_OK);
    pthread_attr_init(&at);
    pthread_attr_setstacksize(&at, (size_t)1 << 30);
    REQUIRE(pthread_create(&th, &at, hcct_deep_thread, &t) == 0);
    pthread_join(th, NULL);
    pthread_attr_destroy(&at);
    ctxprof_hcct_stats_get(&t, &st);
    CHECK(st.bursts != 12345);
    CHECK_EQ(st.depth_peak, 100000);
    CHECK_EQ(st.depth, 0);
    CHECK_EQ(st.nodes, 100001);
    CHECK_EQ(st.total, 100000);
    CHECK_EQ(st.unwound + st.unmatched, 0);
    ctxprof_hcct_deinit(&t);
}

/* The node bound: contexts beyond it are counted as dropped, nothing
   breaks, memory stays within the bound. */
static void hcct_node_bound(void)
{
    int mode;
    for (mode = 0; mode < 2; mode++) {
        ctxprof_hcct t;
        ctxprof_hcct_desc d = mode ? hcct_desc_cct() : hcct_desc_lss(0.5, 0);
        ctxprof_error e;
        ctxprof_hcct_stats st;
        uint64_t s = 77;
        int i, k;
        memset(&e, 0, sizeof e);
        if (mode) {
            d.max_bytes = 300 * CTXPROF__HCCT_NODE_BYTES(0);
        } else {
            d.counters = 64;
            d.max_bytes = 67 * CTXPROF__HCCT_NODE_BYTES(1); /* M and 1 path: tight */
        }
        REQUIRE(ctxprof_hcct_init(&t, &d, &e) == CTXPROF_OK);
        for (i = 0; i < 5000; i++) {
            for (k = 0; k < 6; k++)
                ctxprof_hcct_push(&t, (uintptr_t)(ctxprof_test_rand(&s) % 40), 0);
            for (k = 0; k < 6; k++)
                ctxprof_hcct_pop(&t);
        }
        ctxprof_hcct_stats_get(&t, &st);
        if (mode)
            CHECK(st.dropped_nodes > 0);
        CHECK_EQ(st.total, st.events); /* dropped events are counted on [dropped] */
        if (mode) {
            ctxprof_hcct_profile p;
            static const char *const dp[] = {"[dropped: node bound]"};
            const ctxprof_hcct_pnode *x;
            REQUIRE(ctxprof_hcct_query(&t, -1, &p, &e) == CTXPROF_OK);
            x = hcct_find_path(&p, dp, 1);
            REQUIRE(x != NULL);
            CHECK_EQ(x->count, st.dropped_nodes);
            ctxprof_hcct_profile_deinit(&p);
        }
        CHECK_LE(st.nodes_peak + 1, t.max_nodes);
        CHECK_LE(st.bytes, st.bytes_bound);
        CHECK(t.top == t.frames);
        hcct_check(&t, UINT64_MAX);
        ctxprof_hcct_deinit(&t);
    }
}

/* An enter that finds no node goes to "[dropped]", and that frame becomes
   the top: the nodes of the live frames below it must survive the Space
   Saving replacements that count the dropped events (the deepest of them
   is a leaf). 16 nodes and 2 counters, checked after every event. */
static void hcct_drop_live_frames(void)
{
    static const int seq[] = {3, 5, 5, 1, 5, 5, 0, 3, 4, 2, 3, 3, 3, 1, 2, 1}; /* 0: pop */
    ctxprof_hcct t;
    ctxprof_hcct_desc d = hcct_desc_lss(0.5, 0);
    ctxprof_error e;
    uint64_t s = 12345, n = 0;
    size_t i;
    int depth = 0;
    memset(&e, 0, sizeof e);
    d.counters = 2;
    d.max_bytes = 16 * (size_t)CTXPROF__HCCT_NODE_BYTES(1);
    REQUIRE(ctxprof_hcct_init(&t, &d, &e) == CTXPROF_OK);
    for (i = 0; i < 20000; i++) {
        uint64_t r = ctxprof_test_rand(&s);
        int push = i < sizeof seq / sizeof *seq ? seq[i] != 0 : (r % 2 && depth < 15) || !depth;
        if (push) {
            uintptr_t x = i < sizeof seq / sizeof *seq ? (uintptr_t)seq[i] : 1 + (r >> 8) % 5;
            ctxprof_hcct_push(&t, x, 0);
            depth++;
            n++;
        } else {
            ctxprof_hcct_pop(&t);
            depth--;
        }
        if (hcct_check(&t, n))
            break;
    }
    CHECK(t.st.dropped_nodes > 0);
    ctxprof_hcct_deinit(&t);
}

/* Tiny node bounds and few counters, against the exact CCT of the same
   stream of frames, weights and samples' paths (add_path, which builds a
   path while the frames hold another): most events replace, prune or
   drop; the tree stays consistent
   after every event, and the bounds hold with the dropped weight D (a
   context's events counted on "[dropped]" are missing from its count):
   count - err <= true <= count + D, and a context left out has true <=
   absent. */
static void hcct_node_bound_random(void)
{
    int seed;
    size_t drops = 0;
    for (seed = 1; seed <= 100 && !ctxprof_test_failed; seed++) {
        ctxprof_hcct a, b;
        ctxprof_hcct_desc d = hcct_desc_lss(0.5, 0), dc = hcct_desc_cct();
        ctxprof_hcct_profile pa, pe;
        ctxprof__hcct_ix ix;
        ctxprof_error e;
        uint64_t s = 0x9E3779B97F4A7C15ull * (uint64_t)seed, n = 0, dw = 0, prev = 0;
        uint32_t *map;
        unsigned nr;
        size_t maxn, j;
        int i, depth = 0;
        memset(&e, 0, sizeof e);
        maxn = 16 + ctxprof_test_rand(&s) % 24;
        d.counters = 2 + ctxprof_test_rand(&s) % 7;
        d.max_bytes = maxn * CTXPROF__HCCT_NODE_BYTES(1);
        nr = 2 + (unsigned)(ctxprof_test_rand(&s) % 6);
        REQUIRE(ctxprof_hcct_init(&a, &d, &e) == CTXPROF_OK);
        REQUIRE(ctxprof_hcct_init(&b, &dc, &e) == CTXPROF_OK);
        for (i = 0; i < 3000; i++) {
            uint64_t r = ctxprof_test_rand(&s), w = 1 + (r >> 40) % 3;
            unsigned op = (unsigned)(r % 16);
            if (op < 8 && depth < 12) {
                uintptr_t x = 1 + (uintptr_t)((r >> 8) % nr), site = (uintptr_t)(r >> 20) % 2;
                ctxprof_hcct_push(&a, x, site);
                ctxprof_hcct_push(&b, x, site);
                depth++;
                n++;
                w = 1;
            } else if (op < 9) {
                if (a.top->node == 2)
                    dw += w; /* counted on "[dropped]" */
                ctxprof_hcct_add(&a, w);
                ctxprof_hcct_add(&b, w);
                n += w;
            } else if (op < 11) { /* a sample's path (add_path), besides the frames */
                uintptr_t path[6], sites[6];
                size_t k, len = 1 + (size_t)((r >> 8) % 6);
                for (k = 0; k < len; k++) {
                    path[k] = 1 + (uintptr_t)(ctxprof_test_rand(&s) % nr);
                    sites[k] = (uintptr_t)(r >> (20 + k)) % 2;
                }
                ctxprof_hcct_add_path(&a, path, r & 1 ? sites : NULL, len, w);
                ctxprof_hcct_add_path(&b, path, r & 1 ? sites : NULL, len, w);
                n += w;
            } else if (depth > 0) {
                ctxprof_hcct_pop(&a);
                ctxprof_hcct_pop(&b);
                depth--;
            }
            dw += (a.st.dropped_nodes - prev) * w;
            prev = a.st.dropped_nodes;
            if (hcct_check(&a, n))
                break;
        }
        drops += a.st.dropped_nodes > 0;
        REQUIRE(ctxprof_hcct_query(&a, -1, &pa, &e) == CTXPROF_OK);
        REQUIRE(ctxprof_hcct_query(&b, -1, &pe, &e) == CTXPROF_OK);
        CHECK_EQ(pa.total, n);
        CHECK_EQ(pe.total, n);
        memset(&ix, 0, sizeof ix);
        map = (uint32_t *)malloc(pe.n * sizeof *map);
        REQUIRE(map && ctxprof__hcct_index(&pa, &ix, 0) == CTXPROF_OK);
        map[0] = 0;
        for (j = 1; j < pe.n; j++) {
            const ctxprof_hcct_pnode *x = &pe.nodes[j], *y;
            uint32_t pp = map[x->parent];
            map[j] = pp == CTXPROF_HCCT_NONE
                         ? CTXPROF_HCCT_NONE
                         : ctxprof__hcct_find(&pa, &ix, pp, &pe, (uint32_t)j, 0);
            if (map[j] == CTXPROF_HCCT_NONE) {
                CHECK_LE(x->count, pa.absent);
                continue;
            }
            y = &pa.nodes[map[j]];
            CHECK_LE(y->count - y->err, x->count);
            CHECK_LE(x->count, y->count + dw);
        }
        ctxprof__hcct_ix_free(&ix);
        free(map);
        ctxprof_hcct_profile_deinit(&pa);
        ctxprof_hcct_profile_deinit(&pe);
        ctxprof_hcct_deinit(&a);
        ctxprof_hcct_deinit(&b);
    }
    CHECK_GE(drops, 50); /* seeds that reached the bound */
}

/* add_path at the node bound: the victim (B) was the only child of the
   unmonitored parent (A) of the path's new context (A -> D); pruning it
   must spare A, whose node would otherwise come back from the free list
   as its own child. */
static void hcct_add_path_bound(void)
{
    ctxprof_hcct t;
    ctxprof_hcct_desc d = hcct_desc_lss(0.5, 0);
    ctxprof_hcct_profile p;
    ctxprof_error e;
    const uintptr_t ab[2] = {0xA, 0xB}, ad[2] = {0xA, 0xD};
    uintptr_t c[11];
    size_t i;
    const ctxprof_hcct_pnode *x = NULL;
    memset(&e, 0, sizeof e);
    d.counters = 2;
    d.max_bytes = 16 * (size_t)CTXPROF__HCCT_NODE_BYTES(1);
    REQUIRE(ctxprof_hcct_init(&t, &d, &e) == CTXPROF_OK);
    ctxprof_hcct_add_path(&t, ab, NULL, 2, 1); /* A (unmonitored) -> B (1) */
    for (i = 0; i < 11; i++)
        c[i] = 0xC0 + i;
    ctxprof_hcct_add_path(&t, c, NULL, 11, 100); /* the node bound is reached */
    ctxprof_hcct_add_path(&t, ad, NULL, 2, 5);   /* B is the minimum */
    hcct_check(&t, 106);
    REQUIRE(ctxprof_hcct_query(&t, -1, &p, &e) == CTXPROF_OK);
    for (i = 1; i < p.n; i++)
        if (p.nodes[i].routine == 0xD && p.nodes[i].depth == 2 &&
            p.nodes[p.nodes[i].parent].routine == 0xA)
            x = &p.nodes[i];
    REQUIRE(x != NULL);
    CHECK_EQ(x->count, 6); /* the minimum, 1, plus 5 */
    CHECK_EQ(x->err, 1);
    ctxprof_hcct_profile_deinit(&p);
    ctxprof_hcct_push(&t, 0xF, 0);
    ctxprof_hcct_pop(&t);
    hcct_check(&t, 107);
    ctxprof_hcct_deinit(&t);
}

/* Events that interrupt the profiler (a signal handler) are dropped and
   counted, and change nothing. */
static void hcct_reentry(void)
{
    ctxprof_hcct t;
    ctxprof_hcct_desc d = hcct_desc_lss(0.1, 0.01);
    ctxprof_error e;
    ctxprof_hcct_stats st;
    size_t live;
    ctxprof_hcct_frame *top;
    memset(&e, 0, sizeof e);
    REQUIRE(ctxprof_hcct_init(&t, &d, &e) == CTXPROF_OK);
    ctxprof_hcct_push(&t, 1, 0);
    ctxprof_hcct_stats_get(&t, &st);
    live = st.nodes;
    top = t.top;
    t.busy = 1;
    t.countdown = CTXPROF__HCCT_CD_BUSY; /* as a slow path leaves it */
    ctxprof_hcct_enter(&t, 2, 0, 10);
    ctxprof_hcct_exit(&t, 2, 10);
    ctxprof_hcct_add(&t, 5);
    ctxprof_hcct_add_path(&t, (const uintptr_t[]){1, 2}, NULL, 2, 3);
    CHECK_EQ(t.st.reentrant, 4);
    CHECK(t.top == top);
    ctxprof_hcct_stats_get(&t, &st);
    CHECK_EQ(st.nodes, live);
    t.busy = 0;
    t.countdown = 100;
    ctxprof_hcct_pop(&t);
    hcct_check(&t, 1);
    ctxprof_hcct_deinit(&t);
}

/* Static bursting with a driven clock: only events inside bursts are
   counted, a burst starts at the right node (the contexts are rebuilt from
   the shadow stack), and counts are scaled by events / sampled. */
static uint64_t hcct_fake_ns;
static uint64_t hcct_fake_clock(void)
{
    return hcct_fake_ns;
}

static void hcct_bursting(void)
{
    int mode;
    for (mode = 0; mode < 2; mode++) {
        ctxprof_hcct t;
        ctxprof_hcct_desc d = mode ? hcct_desc_cct() : hcct_desc_lss(0.01, 0.001);
        ctxprof_hcct_profile p;
        ctxprof_error e;
        ctxprof_hcct_stats st;
        static const char *const path[] = {"0x1", "0x2", "0x3", "0x4"};
        const ctxprof_hcct_pnode *x;
        size_t i;
        int k;
        memset(&e, 0, sizeof e);
        d.burst_period_us = 1000;
        d.burst_length_us = 100;
        ctxprof__hcct_clock = hcct_fake_clock;
        hcct_fake_ns = 5000000;
        REQUIRE(ctxprof_hcct_init(&t, &d, &e) == CTXPROF_OK);
        /* a deep prefix stays on the stack for the whole run */
        ctxprof_hcct_push(&t, 1, 0);
        ctxprof_hcct_push(&t, 2, 0);
        ctxprof_hcct_push(&t, 3, 0);
        for (i = 0; i < 400000; i++) { /* 1 us per call: 10% in bursts */
            ctxprof_hcct_push(&t, i % 4 ? 4 : 5, 0);
            ctxprof_hcct_pop(&t);
            hcct_fake_ns += 1000;
        }
        for (k = 0; k < 3; k++)
            ctxprof_hcct_pop(&t);
        ctxprof__hcct_clock = ctxprof__hcct_now_ns;
        ctxprof_hcct_stats_get(&t, &st);
        CHECK_EQ(st.events, 400003);
        CHECK(st.bursts >= 350 && st.bursts <= 450);
        CHECK_NEAR((double)st.sampled / (double)st.events, 0.10, 0.03);
        REQUIRE(ctxprof_hcct_query(&t, -1, &p, &e) == CTXPROF_OK);
        CHECK(p.flags & CTXPROF_HCCT_SCALED);
        x = hcct_find_path(&p, path, 4);
        REQUIRE(x != NULL); /* 4 was counted under 1 > 2 > 3 */
        CHECK_NEAR((double)x->count, 300000.0, 300000.0 * 0.1);
        /* nothing was attached anywhere else: every node is on that path */
        for (i = 1; i < p.n; i++) {
            const char *nm = ctxprof_hcct_profile_name(&p, i);
            unsigned dd = p.nodes[i].depth;
            CHECK((dd <= 3 && nm[2] - '0' == (int)dd) || (dd == 4 && (nm[2] == '4' || nm[2] == '5')));
        }
        { /* the text says that scaled counts are estimates, not bounds */
            char *txt = NULL;
            size_t len = 0;
            REQUIRE(ctxprof_hcct_profile_format(&p, NULL, &txt, &len, &e) == CTXPROF_OK);
            CHECK_CONTAINS(txt, "# count: an estimate");
            CHECK(strstr(txt, "upper bound") == NULL);
            ctxprof_hcct_text_free(&p, txt);
        }
        hcct_check(&t, UINT64_MAX);
        ctxprof_hcct_profile_deinit(&p);
        ctxprof_hcct_deinit(&t);
    }
}

/* ---- profiles and output ---- */

static const ctxprof_hcct_routine hcct_r_main = {"main", "t.c", 1};
static const ctxprof_hcct_routine hcct_r_parse = {"parse;expr", "t.c", 2};
static const ctxprof_hcct_routine hcct_r_lex = {"lex <&>", "t.c", 3};
#define HCCT_ID(r) ((uintptr_t)&(r) | CTXPROF_HCCT_NAMED)

/* main: 1; main > parse;expr: 3; main > parse;expr > lex <&>: 6; main > lex: 2 */
static void hcct_small_tree(ctxprof_hcct *t)
{
    int i, k;
    ctxprof_hcct_push(t, HCCT_ID(hcct_r_main), 0);
    for (i = 0; i < 3; i++) {
        ctxprof_hcct_push(t, HCCT_ID(hcct_r_parse), 0);
        for (k = 0; k < 2; k++) {
            ctxprof_hcct_push(t, HCCT_ID(hcct_r_lex), 0);
            ctxprof_hcct_pop(t);
        }
        ctxprof_hcct_pop(t);
    }
    for (i = 0; i < 2; i++) {
        ctxprof_hcct_push(t, HCCT_ID(hcct_r_lex), 0);
        ctxprof_hcct_pop(t);
    }
    ctxprof_hcct_pop(t);
}

static char *hcct_fmt(const ctxprof_hcct_profile *p, int format)
{
    ctxprof_hcct_write_desc d;
    ctxprof_error e;
    char *txt = NULL;
    size_t len;
    memset(&d, 0, sizeof d);
    memset(&e, 0, sizeof e);
    d.format = format;
    d.title = "small <test>";
    if (ctxprof_hcct_profile_format(p, &d, &txt, &len, &e) != CTXPROF_OK)
        return NULL;
    if (strlen(txt) != len && format != CTXPROF_HCCT_BINARY) {
        ctxprof_hcct_text_free(p, txt);
        return NULL;
    }
    return txt;
}

/* XML that a parser accepts, as far as the flame graph goes: every '<'
   opens a tag, every '&' an entity, tags nest. */
static int hcct_xml_ok(const char *x)
{
    static const char *const ents[] = {"&amp;", "&lt;", "&gt;", "&quot;"};
    int depth = 0;
    for (; *x; x++) {
        if (*x == '&') {
            size_t k, ok = 0;
            for (k = 0; k < 4; k++)
                ok |= strncmp(x, ents[k], strlen(ents[k])) == 0;
            if (!ok)
                return 0;
        } else if (*x == '<') {
            const char *e = strchr(x, '>');
            if (!e || !(x[1] == '/' || x[1] == '?' || (x[1] >= 'a' && x[1] <= 'z')))
                return 0;
            if (memchr(x + 1, '<', (size_t)(e - x - 1)))
                return 0;
            if (x[1] == '/')
                depth--;
            else if (x[1] != '?' && e[-1] != '/')
                depth++;
            if (depth < 0)
                return 0;
            x = e;
        }
    }
    return depth == 0;
}

static void hcct_outputs(void)
{
    ctxprof_hcct t;
    ctxprof_hcct_desc d = hcct_desc_cct();
    ctxprof_hcct_profile p;
    ctxprof_error e;
    char *txt;
    memset(&e, 0, sizeof e);
    REQUIRE(ctxprof_hcct_init(&t, &d, &e) == CTXPROF_OK);
    hcct_small_tree(&t);
    REQUIRE(ctxprof_hcct_query(&t, -1, &p, &e) == CTXPROF_OK);
    CHECK_EQ(p.total, 12);
    CHECK_EQ(p.n, 5);
    /* text: counts, percentages, errors, indentation by depth */
    txt = hcct_fmt(&p, CTXPROF_HCCT_TEXT);
    REQUIRE(txt != NULL);
    CHECK_CONTAINS(txt, "exact calling context tree");
    CHECK_CONTAINS(txt, "total 12 calls");
    CHECK_CONTAINS(txt, "              1            0   8.3333    main\n");
    CHECK_CONTAINS(txt, "              6            0  50.0000        lex <&>\n");
    CHECK_CONTAINS(txt, "              2            0  16.6667      lex <&>\n");
    /* children by decreasing count: parse (3) before lex (2) */
    CHECK(strstr(txt, "    parse;expr") < strstr(txt, "    lex <&>\n"));
    ctxprof_hcct_text_free(&p, txt);
    /* collapsed: self counts, ';' inside names replaced */
    txt = hcct_fmt(&p, CTXPROF_HCCT_COLLAPSED);
    REQUIRE(txt != NULL);
    CHECK_STR(txt, "main 1\nmain;parse:expr 3\nmain;parse:expr;lex <&> 6\nmain;lex <&> 2\n");
    ctxprof_hcct_text_free(&p, txt);
    /* JSON: flat nodes with parents, escaped names */
    txt = hcct_fmt(&p, CTXPROF_HCCT_JSON);
    REQUIRE(txt != NULL);
    CHECK_CONTAINS(txt, "\"format\":\"ctxprof-hcct\"");
    CHECK_CONTAINS(txt, "\"mode\":\"cct\"");
    CHECK_CONTAINS(txt, "\"total\":12");
    CHECK_CONTAINS(txt, "{\"id\":0,\"parent\":-1,\"name\":\"<root>\"");
    CHECK_CONTAINS(txt, "\"name\":\"lex <&>\",\"count\":6,\"err\":0,\"monitored\":true");
    {
        int depth = 0, mind = 0;
        const char *c;
        for (c = txt; *c; c++) {
            depth += (*c == '{' || *c == '[') - (*c == '}' || *c == ']');
            if (depth < mind)
                mind = depth;
        }
        CHECK_EQ(depth, 0);
        CHECK_EQ(mind, 0);
    }
    ctxprof_hcct_text_free(&p, txt);
    /* SVG: one titled rectangle per node, escaped */
    txt = hcct_fmt(&p, CTXPROF_HCCT_SVG);
    REQUIRE(txt != NULL);
    CHECK(strncmp(txt, "<?xml", 5) == 0);
    CHECK_CONTAINS(txt, "</svg>\n");
    CHECK_CONTAINS(txt, "small &lt;test&gt;");
    CHECK_CONTAINS(txt, "<title>lex &lt;&amp;&gt; (6 calls, 50.00%, err 0)</title>");
    CHECK_CONTAINS(txt, "<title>parse;expr (3 calls, 75.00%, err 0)</title>");
    CHECK(strstr(txt, "<lex") == NULL);
    CHECK(hcct_xml_ok(txt));
    {
        size_t rects = 0;
        const char *c;
        for (c = txt; (c = strstr(c, "<rect fill")) != NULL; c++)
            rects++;
        CHECK_EQ(rects, 5);
    }
    ctxprof_hcct_text_free(&p, txt);
    /* top: hottest first, whole paths */
    txt = hcct_fmt(&p, CTXPROF_HCCT_TOP);
    REQUIRE(txt != NULL);
    CHECK_CONTAINS(txt, "  main > parse;expr > lex <&>\n");
    CHECK(strstr(txt, "parse;expr > lex") < strstr(txt, "main > lex"));
    ctxprof_hcct_text_free(&p, txt);
    /* the header counts the contexts listed: top's 2, the 1 within depth 1 */
    {
        ctxprof_hcct_write_desc wd;
        size_t len, rows = 0, k;
        char want[64];
        const char *c;
        memset(&wd, 0, sizeof wd);
        for (k = 0; k < 2; k++) {
            wd.format = k ? CTXPROF_HCCT_TEXT : CTXPROF_HCCT_TOP;
            wd.top = 2;
            wd.max_depth = 1;
            REQUIRE(ctxprof_hcct_profile_format(&p, &wd, &txt, &len, &e) == CTXPROF_OK);
            for (c = txt, rows = 0; *c; c = strchr(c, '\n') + 1) { /* the contexts' lines */
                const char *end = strchr(c, '\n');
                REQUIRE(end != NULL);
                rows += *c != '#' && !(end - c > 5 && memcmp(end - 5, "  all", 5) == 0) &&
                        !memmem(c, (size_t)(end - c), "deeper", 6);
            }
            snprintf(want, sizeof want, ", %zu of %zu contexts shown\n", rows, p.n - 1);
            CHECK_EQ(rows, k ? 1 : 2);
            CHECK_CONTAINS(txt, want);
            ctxprof_hcct_text_free(&p, txt);
        }
    }
    /* prune keeps hot nodes and their ancestors */
    REQUIRE(ctxprof_hcct_profile_prune(&p, 0.4, &e) == CTXPROF_OK); /* > 4.8 */
    CHECK_EQ(p.n, 4); /* root, main, parse (ancestor), lex (6) */
    CHECK_EQ(p.threshold, 4);
    CHECK(p.nodes[3].flags & CTXPROF_HCCT_HOT);
    CHECK(!(p.nodes[2].flags & CTXPROF_HCCT_HOT));
    CHECK_EQ(ctxprof_hcct_profile_prune(&p, 1.5, &e), CTXPROF_ERR_INVAL);
    ctxprof_hcct_profile_deinit(&p);
    ctxprof_hcct_deinit(&t);
}

static char *txt_unused;
static size_t len_unused;

/* Whether s is UTF-8 (RFC 3629), of characters XML 1.0 allows if xml. */
static int hcct_utf8_ok(const char *s, int xml)
{
    const unsigned char *u = (const unsigned char *)s;
    while (*u) {
        uint32_t c, lo;
        int n, i;
        if (*u < 0x80) {
            if (xml && *u < 0x20 && *u != '\t' && *u != '\n' && *u != '\r')
                return 0;
            u++;
            continue;
        }
        n = *u >= 0xF0 ? 4 : *u >= 0xE0 ? 3 : *u >= 0xC0 ? 2 : 0;
        if (n == 0 || *u > 0xF4)
            return 0;
        c = *u & (0x7Fu >> n);
        for (i = 1; i < n; i++) {
            if ((u[i] & 0xC0) != 0x80)
                return 0;
            c = c << 6 | (u[i] & 0x3Fu);
        }
        lo = n == 2 ? 0x80 : n == 3 ? 0x800 : 0x10000;
        if (c < lo || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF) ||
            (xml && (c == 0xFFFE || c == 0xFFFF)))
            return 0;
        u += n;
    }
    return 1;
}

static char hcct_utf8_long[5001]; /* 2500 x U+00E9, 2 bytes each */
static const char *const hcct_utf8_names[] = {"ok e\xcc\x81\xe2\x82\xac\xf0\x9f\x98\x80",
                                              "bad\xff\xfe",
                                              "\x80lead",
                                              "cut\xe2\x82",
                                              "over\xc0\xaf",
                                              "sur\xed\xa0\x80",
                                              "non\xef\xbf\xbf",
                                              "ctl\x01",
                                              hcct_utf8_long};

static const char *hcct_utf8_namer(void *u, uintptr_t r, char *buf, size_t cap)
{
    (void)u;
    (void)buf;
    (void)cap;
    return hcct_utf8_names[r - 1];
}

/* Names that are not UTF-8 (or not allowed in XML) make well-formed JSON
   and SVG: invalid bytes become U+FFFD, and the SVG cuts long names and
   titles between characters, never inside one. */
static void hcct_names_utf8(void)
{
    ctxprof_hcct t;
    ctxprof_hcct_desc d = hcct_desc_cct();
    ctxprof_hcct_write_desc wd;
    ctxprof_hcct_profile p;
    ctxprof_error e;
    char title[901], *txt = NULL, *want;
    size_t i, len, nn = sizeof hcct_utf8_names / sizeof *hcct_utf8_names;
    int f;
    memset(&e, 0, sizeof e);
    for (i = 0; i < 2500; i++)
        memcpy(hcct_utf8_long + 2 * i, "\xc3\xa9", 2);
    for (i = 0; i < 300; i++)
        memcpy(title + 3 * i, "\xe2\x82\xac", 3); /* 300 x U+20AC */
    title[900] = '\0';
    d.namer = hcct_utf8_namer;
    REQUIRE(ctxprof_hcct_init(&t, &d, &e) == CTXPROF_OK);
    for (i = 0; i < nn; i++) {
        ctxprof_hcct_push(&t, i + 1, 0);
        ctxprof_hcct_pop(&t);
    }
    REQUIRE(ctxprof_hcct_query(&t, -1, &p, &e) == CTXPROF_OK);
    want = (char *)malloc(2000 * 2 + 3);
    REQUIRE(want != NULL);
    for (f = 0; f < 2; f++) {
        memset(&wd, 0, sizeof wd);
        wd.format = f ? CTXPROF_HCCT_SVG : CTXPROF_HCCT_JSON;
        wd.title = title;
        REQUIRE(ctxprof_hcct_profile_format(&p, &wd, &txt, &len, &e) == CTXPROF_OK);
        CHECK(hcct_utf8_ok(txt, f));
        CHECK_CONTAINS(txt, "ok e\xcc\x81\xe2\x82\xac\xf0\x9f\x98\x80");
        CHECK_CONTAINS(txt, "bad\xef\xbf\xbd\xef\xbf\xbd");
        CHECK_CONTAINS(txt, "\xef\xbf\xbdlead");
        CHECK_CONTAINS(txt, "cut\xef\xbf\xbd\xef\xbf\xbd");
        CHECK_CONTAINS(txt, "over\xef\xbf\xbd\xef\xbf\xbd");
        CHECK_CONTAINS(txt, "sur\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
        if (f) {
            CHECK_CONTAINS(txt, "non\xef\xbf\xbd");
            /* cut after 200 characters of the title and 2000 of a name */
            memcpy(want, title, 600);
            strcpy(want + 600, "..");
            CHECK_CONTAINS(txt, want);
            memcpy(want, hcct_utf8_long, 4000);
            strcpy(want + 4000, "..");
            CHECK_CONTAINS(txt, want);
        } else {
            CHECK_CONTAINS(txt, "non\xef\xbf\xbf");
            CHECK_CONTAINS(txt, hcct_utf8_long);
        }
        ctxprof_hcct_text_free(&p, txt);
    }
    free(want);
    ctxprof_hcct_profile_deinit(&p);
    ctxprof_hcct_deinit(&t);
}

static const char *hcct_odd_namer(void *u, uintptr_t r, char *buf, size_t cap)
{
    (void)u;
    (void)buf;
    (void)cap;
    return r == 1 ? "" : "<root>";
}

/* A namer's empty name and a name "<root>" (the root's, name 0) would be
   written to files that the reader refuses: they become "?" and
   "[<root>]", and every format writes them. */
static void hcct_names_odd(void)
{
    ctxprof_hcct t;
    ctxprof_hcct_desc d = hcct_desc_cct();
    ctxprof_hcct_profile p, q;
    ctxprof_error e;
    char path[512], *txt;
    int f;
    memset(&e, 0, sizeof e);
    d.namer = hcct_odd_namer;
    REQUIRE(ctxprof_hcct_init(&t, &d, &e) == CTXPROF_OK);
    ctxprof_hcct_push(&t, 1, 0);
    ctxprof_hcct_push(&t, 2, 0);
    ctxprof_hcct_pop(&t);
    ctxprof_hcct_pop(&t);
    REQUIRE(ctxprof_hcct_query(&t, -1, &p, &e) == CTXPROF_OK);
    REQUIRE_EQ(p.n, 3);
    CHECK_STR(ctxprof_hcct_profile_name(&p, 1), "?");
    CHECK_STR(ctxprof_hcct_profile_name(&p, 2), "[<root>]");
    CHECK_NE(p.nodes[2].name, 0);
    for (f = CTXPROF_HCCT_TEXT; f <= CTXPROF_HCCT_TOP; f++) {
        txt = hcct_fmt(&p, f);
        CHECK(txt != NULL);
        if (txt)
            ctxprof_hcct_text_free(&p, txt);
    }
    snprintf(path, sizeof path, "%s/hcct-odd.bin", ctxprof_test_tmpdir());
    REQUIRE(ctxprof_hcct_profile_write(&p, path,
                                       &(ctxprof_hcct_write_desc){CTXPROF_HCCT_BINARY, 0, 0, 0, 0},
                                       &e) == CTXPROF_OK);
    memset(&q, 0, sizeof q);
    CHECK_EQ(ctxprof_hcct_profile_read(&q, path, NULL, &e), CTXPROF_OK);
    if (q.n == 3) {
        CHECK_STR(ctxprof_hcct_profile_name(&q, 1), "?");
        CHECK_STR(ctxprof_hcct_profile_name(&q, 2), "[<root>]");
    }
    remove(path);
    ctxprof_hcct_profile_deinit(&q);
    ctxprof_hcct_profile_deinit(&p);
    ctxprof_hcct_deinit(&t);
}

/* Every format on an approximate profile (unmonitored ancestors, error
   bounds, the [other contexts] share, bursting flags). */
static void hcct_outputs_lss(void)
{
    ctxprof_hcct t;
    ctxprof_hcct_desc d = hcct_desc_lss(0.05, 0.01);
    ctxprof_hcct_profile p;
    ctxprof_error e;
    hcct_gen g = {4, 0, 1};
    size_t i, unmon = 0;
    int w, f;
    memset(&e, 0, sizeof e);
    REQUIRE(ctxprof_hcct_init(&t, &d, &e) == CTXPROF_OK);
    for (w = 0; w < 20000; w++)
        hcct_walk(&g, &t, NULL);
    REQUIRE(ctxprof_hcct_query(&t, -1, &p, &e) == CTXPROF_OK);
    for (i = 1; i < p.n; i++)
        unmon += !(p.nodes[i].flags & CTXPROF_HCCT_MONITORED);
    CHECK(unmon > 0);
    for (f = CTXPROF_HCCT_TEXT; f <= CTXPROF_HCCT_TOP; f++) {
        char *txt = hcct_fmt(&p, f);
        REQUIRE(txt != NULL);
        if (f == CTXPROF_HCCT_SVG) {
            CHECK(hcct_xml_ok(txt));
            CHECK_CONTAINS(txt, "not monitored)</title>");
        }
        if (f == CTXPROF_HCCT_TEXT) {
            CHECK_CONTAINS(txt, "(not monitored)");
            CHECK_CONTAINS(txt, "lazy Space Saving, 100 counters (epsilon 0.01)");
        }
        ctxprof_hcct_text_free(&p, txt);
    }
    REQUIRE(ctxprof_hcct_profile_prune(&p, 0.05, &e) == CTXPROF_OK);
    {
        char *txt = hcct_fmt(&p, CTXPROF_HCCT_SVG);
        REQUIRE(txt != NULL);
        CHECK(hcct_xml_ok(txt));
        CHECK_CONTAINS(txt, "[other contexts]");
        ctxprof_hcct_text_free(&p, txt);
    }
    CHECK_EQ(ctxprof_hcct_profile_format(&p, &(ctxprof_hcct_write_desc){99, 0, 0, 0, 0}, &txt_unused,
                                         &len_unused, &e),
             CTXPROF_ERR_INVAL);
    ctxprof_hcct_profile_deinit(&p);
    ctxprof_hcct_deinit(&t);
}

/* The binary format: everything survives a round trip; truncated,
   corrupted, foreign and inconsistent files are refused and the target
   profile is left alone. */
static void hcct_binary_roundtrip(void)
{
    ctxprof_hcct t;
    ctxprof_hcct_desc d = hcct_desc_lss(0.01, 0.002);
    ctxprof_hcct_profile p, q, keep;
    ctxprof_error e;
    hcct_gen g = {8, 0, 1};
    char path[512], bad[512], *buf;
    size_t len, cut;
    int w;
    FILE *f;
    memset(&e, 0, sizeof e);
    REQUIRE(ctxprof_hcct_init(&t, &d, &e) == CTXPROF_OK);
    for (w = 0; w < 20000; w++)
        hcct_walk(&g, &t, NULL);
    REQUIRE(ctxprof_hcct_query(&t, 0.01, &p, &e) == CTXPROF_OK);
    CHECK(p.n > 5);
    p.lost_threads = 3; /* as a session's profile may say */
    p.reentrant = 5;
    snprintf(path, sizeof path, "%s/hcct.bin", ctxprof_test_tmpdir());
    snprintf(bad, sizeof bad, "%s/hcct-bad.bin", ctxprof_test_tmpdir());
    REQUIRE(ctxprof_hcct_profile_write(&p, path, &(ctxprof_hcct_write_desc){CTXPROF_HCCT_BINARY, 0, 0, 0, 0},
                                       &e) == CTXPROF_OK);
    REQUIRE(ctxprof_hcct_profile_read(&q, path, NULL, &e) == CTXPROF_OK);
    CHECK(hcct_same_profile(&p, &q));
    /* the text of the copy is the same text */
    {
        char *x = hcct_fmt(&p, CTXPROF_HCCT_TEXT), *y = hcct_fmt(&q, CTXPROF_HCCT_TEXT);
        CHECK(x && y && strcmp(x, y) == 0);
        ctxprof_hcct_text_free(&p, x);
        ctxprof_hcct_text_free(&q, y);
    }
    REQUIRE(ctxprof_hcct_profile_format(&p, &(ctxprof_hcct_write_desc){CTXPROF_HCCT_BINARY, 0, 0, 0, 0},
                                        &buf, &len, &e) == CTXPROF_OK);
    keep = q; /* q must stay as it is through every failed read */
    /* truncations */
    for (cut = 0; cut < len; cut += len / 7 + 1) {
        f = fopen(bad, "wb");
        REQUIRE(f != NULL);
        fwrite(buf, 1, cut, f);
        fclose(f);
        CHECK_EQ(ctxprof_hcct_profile_read(&q, bad, NULL, &e), CTXPROF_ERR_CORRUPT);
        CHECK(q.nodes == keep.nodes && q.n == keep.n);
    }
    /* a flipped byte in the payload: checksum */
    buf[len - 3] ^= 0x10;
    f = fopen(bad, "wb");
    REQUIRE(f != NULL);
    fwrite(buf, 1, len, f);
    fclose(f);
    CHECK_EQ(ctxprof_hcct_profile_read(&q, bad, NULL, &e), CTXPROF_ERR_CORRUPT);
    CHECK_CONTAINS(e.detail, "checksum");
    buf[len - 3] ^= 0x10;
    /* another kind of ctxprof file */
    {
        uint64_t params[4] = {1, 64, 0, 0};
        ctxprof__blob_seal((unsigned char *)buf, CTXPROF__KIND_PCC_SET, params,
                           len - CTXPROF__BLOB_HDR);
        f = fopen(bad, "wb");
        REQUIRE(f != NULL);
        fwrite(buf, 1, len, f);
        fclose(f);
        CHECK_EQ(ctxprof_hcct_profile_read(&q, bad, NULL, &e), CTXPROF_ERR_MISMATCH);
        CHECK_CONTAINS(e.detail, "kind");
    }
    /* a well-sealed file whose second node names a later parent */
    {
        uint64_t params[4] = {CTXPROF__HCCT_BIN_VERSION, sizeof(uintptr_t) * 8, 0, 0};
        size_t nn = p.n, off = len - nn * 56 + 56 + 32;
        ctxprof__put64((unsigned char *)buf + off, 3);
        ctxprof__blob_seal((unsigned char *)buf, CTXPROF__KIND_HCCT_PROFILE, params,
                           len - CTXPROF__BLOB_HDR);
        f = fopen(bad, "wb");
        REQUIRE(f != NULL);
        fwrite(buf, 1, len, f);
        fclose(f);
        CHECK_EQ(ctxprof_hcct_profile_read(&q, bad, NULL, &e), CTXPROF_ERR_CORRUPT);
        CHECK_CONTAINS(e.detail, "node 1 is inconsistent");
    }
    /* a version 1 file (16 header words, no reentrant count) still reads */
    {
        uint64_t params[4] = {1, sizeof(uintptr_t) * 8, 0, 0};
        size_t hdr = CTXPROF__BLOB_HDR + 16 * 8;
        ctxprof_hcct_profile v1;
        ctxprof_hcct_text_free(&p, buf);
        REQUIRE_EQ(ctxprof_hcct_profile_format(
                       &p, &(ctxprof_hcct_write_desc){CTXPROF_HCCT_BINARY, 0, 0, 0, 0}, &buf,
                       &len, &e),
                   CTXPROF_OK);
        memmove(buf + hdr, buf + hdr + 8, len - hdr - 8);
        ctxprof__blob_seal((unsigned char *)buf, CTXPROF__KIND_HCCT_PROFILE, params,
                           len - 8 - CTXPROF__BLOB_HDR);
        f = fopen(bad, "wb");
        REQUIRE(f != NULL);
        fwrite(buf, 1, len - 8, f);
        fclose(f);
        REQUIRE_EQ(ctxprof_hcct_profile_read(&v1, bad, NULL, &e), CTXPROF_OK);
        CHECK_EQ(v1.reentrant, 0);
        v1.reentrant = p.reentrant;
        CHECK(hcct_same_profile(&p, &v1));
        ctxprof_hcct_profile_deinit(&v1);
        /* and version 3 does not */
        params[0] = 3;
        ctxprof__blob_seal((unsigned char *)buf, CTXPROF__KIND_HCCT_PROFILE, params,
                           len - 8 - CTXPROF__BLOB_HDR);
        f = fopen(bad, "wb");
        REQUIRE(f != NULL);
        fwrite(buf, 1, len - 8, f);
        fclose(f);
        CHECK_EQ(ctxprof_hcct_profile_read(&q, bad, NULL, &e), CTXPROF_ERR_MISMATCH);
        CHECK_CONTAINS(e.detail, "version 3");
    }
    CHECK_EQ(ctxprof_hcct_profile_read(&q, "/nonexistent/x.hcct", NULL, &e), CTXPROF_ERR_SYS);
    CHECK(q.nodes == keep.nodes);
    CHECK(hcct_same_profile(&p, &q));
    ctxprof_hcct_text_free(&p, buf);
    ctxprof_hcct_profile_deinit(&p);
    ctxprof_hcct_profile_deinit(&q);
    ctxprof_hcct_deinit(&t);
}

/* Writes a sealed binary profile of the 17 header words hdr and the
   nodes: the root and two nodes named "f" and "g". */
static void hcct_image_write(const char *path, const uint64_t hdr[17], const uint64_t nodes[3][7])
{
    static const char *const names[] = {"f", "g"};
    uint64_t params[4] = {CTXPROF__HCCT_BIN_VERSION, sizeof(uintptr_t) * 8, 0, 0};
    unsigned char img[CTXPROF__BLOB_HDR + 17 * 8 + 2 * 9 + 3 * 56];
    size_t off = CTXPROF__BLOB_HDR, i, k;
    FILE *f;
    for (i = 0; i < 17; i++, off += 8)
        ctxprof__put64(img + off, hdr[i]);
    for (i = 0; i < 2; i++) {
        ctxprof__put64(img + off, 1);
        img[off + 8] = (unsigned char)names[i][0];
        off += 9;
    }
    for (k = 0; k < 3; k++)
        for (i = 0; i < 7; i++, off += 8)
            ctxprof__put64(img + off, nodes[k][i]);
    ctxprof__blob_seal(img, CTXPROF__KIND_HCCT_PROFILE, params, off - CTXPROF__BLOB_HDR);
    f = fopen(path, "wb");
    REQUIRE(f != NULL);
    REQUIRE_EQ(fwrite(img, 1, off, f), off);
    fclose(f);
}

/* A sealed binary profile of the root and two children of the root, each
   {routine, site, name}, for the reader's sibling checks; the header says
   flags (CTXPROF_HCCT_BY_NAME or 0). */
static void hcct_two_children_file(const char *path, uint64_t flags, const uint64_t a[3],
                                   const uint64_t b[3])
{
    uint64_t hdr[17] = {3, 3, 200, 0, 0, 0, 0, 0, 0, 0, 0, CTXPROF_HCCT_CCT, 0, 0, 1, 0, 0};
    uint64_t nodes[3][7] = {{0, 0, 0, 0, CTXPROF_HCCT_NONE, 0, CTXPROF_HCCT_IS_ROOT | 1}};
    size_t k;
    hdr[13] = flags;
    for (k = 0; k < 2; k++) {
        const uint64_t *x = k ? b : a;
        uint64_t nd[7] = {100, 0, x[0], x[1], 0, x[2], CTXPROF_HCCT_MONITORED};
        memcpy(nodes[k + 1], nd, sizeof nd);
    }
    hcct_image_write(path, hdr, (const uint64_t(*)[7])nodes);
}

/* Siblings are distinct contexts (merge and compare find one node per
   context): a file with two siblings of one routine and call site - or,
   merged by name, of one name - is refused and leaves the output alone;
   siblings of one name from two sites, or (merged by name) of one routine
   and site under two names, are fine. */
static void hcct_read_duplicate_siblings(void)
{
    static const uint64_t f1[3] = {0x1000, 0x2000, 1}, f2[3] = {0x1100, 0x2100, 1},
                          g1[3] = {0x1000, 0x2000, 2};
    ctxprof_hcct_profile q, keep;
    ctxprof_hcct_accuracy acc;
    ctxprof_error e;
    char path[512];
    memset(&e, 0, sizeof e);
    memset(&q, 0x5A, sizeof q);
    keep = q;
    snprintf(path, sizeof path, "%s/hcct-dup.bin", ctxprof_test_tmpdir());
    /* the fuzz review's input: the same context twice, 100 + 100 */
    hcct_two_children_file(path, 0, f1, f1);
    CHECK_EQ(ctxprof_hcct_profile_read(&q, path, NULL, &e), CTXPROF_ERR_CORRUPT);
    CHECK_CONTAINS(e.detail, "node 2 repeats its sibling 1 (same routine and call site");
    CHECK(memcmp(&q, &keep, sizeof q) == 0);
    if (memcmp(&q, &keep, sizeof q) != 0 && q.n == 3) { /* what the duplicate did */
        REQUIRE_EQ(ctxprof_hcct_profile_compare(&q, &q, 0.01, &acc, &e), CTXPROF_OK);
        CHECK_EQ(acc.missed, 0);
        ctxprof_hcct_profile_deinit(&q);
        q = keep;
    }
    /* merged by name: one name twice, whatever the routines */
    hcct_two_children_file(path, CTXPROF_HCCT_BY_NAME, f1, f2);
    memset(&e, 0, sizeof e);
    CHECK_EQ(ctxprof_hcct_profile_read(&q, path, NULL, &e), CTXPROF_ERR_CORRUPT);
    CHECK_CONTAINS(e.detail, "node 2 repeats its sibling 1 (same name under node 0)");
    CHECK(memcmp(&q, &keep, sizeof q) == 0);
    if (memcmp(&q, &keep, sizeof q) != 0 && q.n == 3) {
        ctxprof_hcct_profile_deinit(&q);
        q = keep;
    }
    /* one name from two sites: two contexts */
    hcct_two_children_file(path, 0, f1, f2);
    REQUIRE_EQ(ctxprof_hcct_profile_read(&q, path, NULL, &e), CTXPROF_OK);
    REQUIRE_EQ(q.n, 3);
    REQUIRE_EQ(ctxprof_hcct_profile_compare(&q, &q, 0.01, &acc, &e), CTXPROF_OK);
    CHECK_EQ(acc.missed, 0);
    CHECK_EQ(acc.hot, 2);
    ctxprof_hcct_profile_deinit(&q);
    /* merged by name, routine and site ids of two runs: two names, one
       (routine, site); compare and merge go by name */
    hcct_two_children_file(path, CTXPROF_HCCT_BY_NAME, f1, g1);
    REQUIRE_EQ(ctxprof_hcct_profile_read(&q, path, NULL, &e), CTXPROF_OK);
    REQUIRE_EQ(q.n, 3);
    REQUIRE_EQ(ctxprof_hcct_profile_compare(&q, &q, 0.01, &acc, &e), CTXPROF_OK);
    CHECK_EQ(acc.missed, 0);
    CHECK_EQ(acc.hot, 2);
    {
        ctxprof_hcct_profile c;
        size_t i;
        REQUIRE_EQ(ctxprof_hcct_profile_copy(&c, &q, &e), CTXPROF_OK);
        REQUIRE_EQ(ctxprof_hcct_profile_merge(&c, &q, 0, &e), CTXPROF_OK);
        CHECK_EQ(c.n, 3);
        CHECK_EQ(c.total, 400);
        for (i = 1; i < c.n; i++)
            CHECK_EQ(c.nodes[i].count, 200);
        ctxprof_hcct_profile_deinit(&c);
    }
    ctxprof_hcct_profile_deinit(&q);
}

static int hcct_siblings_unique(const ctxprof_hcct_profile *p, int by_name)
{
    size_t i;
    uint32_t c, d;
    for (i = 0; i < p->n; i++)
        for (c = p->nodes[i].child; c; c = p->nodes[c].sibling)
            for (d = p->nodes[c].sibling; d; d = p->nodes[d].sibling)
                if (by_name ? strcmp(ctxprof_hcct_profile_name(p, c),
                                     ctxprof_hcct_profile_name(p, d)) == 0
                            : p->nodes[c].routine == p->nodes[d].routine &&
                                  p->nodes[c].site == p->nodes[d].site)
                    return 0;
    return 1;
}

static const char *hcct_run2_namer(void *u, uintptr_t r, char *buf, size_t cap)
{
    (void)u;
    snprintf(buf, cap, "s%llx", (unsigned long long)(r & 0xF)); /* routines 0x1N: one name */
    return buf;
}

/* Profiles the library writes pass the reader's sibling check: a tree with
   many siblings (one routine from many sites, many routines from one), a
   merge of two of its threads, a merge by name of two runs whose routine
   ids name other routines (two names on one id), and that merged again
   without the flag (still by name: no name twice among siblings). Each
   reads back as written, compares with itself missing nothing and merges
   into its copy doubling every count. */
static void hcct_roundtrip_siblings(void)
{
    ctxprof_hcct t1, t2;
    ctxprof_hcct_desc d = hcct_desc_cct(), d2 = hcct_desc_cct();
    ctxprof_hcct_profile p[5], back, c;
    ctxprof_hcct_accuracy acc;
    ctxprof_error e;
    char path[512];
    size_t i, k;
    uintptr_t r;
    int rc;
    memset(&e, 0, sizeof e);
    d2.namer = hcct_run2_namer;
    REQUIRE_EQ(ctxprof_hcct_init(&t1, &d, &e), CTXPROF_OK);
    REQUIRE_EQ(ctxprof_hcct_init(&t2, &d2, &e), CTXPROF_OK);
    for (k = 0; k < 3; k++) {
        ctxprof_hcct *t = k == 2 ? &t2 : &t1;
        ctxprof_hcct_push(t, 0x10, 0);
        for (r = 0; r < 300; r++) { /* 0x20 from 100 sites, 200 routines from one */
            ctxprof_hcct_push(t, r < 100 ? 0x20 : 0x100 + r, r < 100 ? 0x5000 + r : 0x6000);
            ctxprof_hcct_push(t, 0x11 + (r % 3), 0x7000);
            ctxprof_hcct_pop(t);
            ctxprof_hcct_pop(t);
        }
        ctxprof_hcct_pop(t);
        if (k == 0)
            REQUIRE_EQ(ctxprof_hcct_query(&t1, -1, &p[0], &e), CTXPROF_OK);
    }
    REQUIRE_EQ(ctxprof_hcct_query(&t1, -1, &p[1], &e), CTXPROF_OK);
    REQUIRE_EQ(ctxprof_hcct_query(&t2, -1, &c, &e), CTXPROF_OK);
    CHECK_GE(p[0].n, 600);
    REQUIRE_EQ(ctxprof_hcct_profile_merge(&p[1], &p[0], 0, &e), CTXPROF_OK); /* threads */
    CHECK_EQ(p[1].n, p[0].n);
    memset(&p[2], 0, sizeof p[2]);
    REQUIRE_EQ(ctxprof_hcct_profile_merge(&p[2], &p[0], CTXPROF_HCCT_BY_NAME, &e), CTXPROF_OK);
    REQUIRE_EQ(ctxprof_hcct_profile_merge(&p[2], &c, CTXPROF_HCCT_BY_NAME, &e), CTXPROF_OK);
    CHECK(!hcct_siblings_unique(&p[2], 0)); /* 0x10 under the root: "0x10" and "s0" */
    REQUIRE_EQ(ctxprof_hcct_profile_copy(&p[3], &p[2], &e), CTXPROF_OK);
    REQUIRE_EQ(ctxprof_hcct_profile_merge(&p[3], &c, 0, &e), CTXPROF_OK);
    CHECK(p[3].flags & CTXPROF_HCCT_BY_NAME);
    CHECK_EQ(p[3].n, p[2].n);
    memset(&p[4], 0, sizeof p[4]); /* an accumulator takes src's kind */
    REQUIRE_EQ(ctxprof_hcct_profile_merge(&p[4], &p[2], 0, &e), CTXPROF_OK);
    CHECK(p[4].flags & CTXPROF_HCCT_BY_NAME);
    CHECK_EQ(p[4].n, p[2].n);
    ctxprof_hcct_profile_deinit(&c);
    snprintf(path, sizeof path, "%s/hcct-siblings.bin", ctxprof_test_tmpdir());
    for (k = 0; k < 5; k++) {
        int by_name = (p[k].flags & CTXPROF_HCCT_BY_NAME) != 0;
        CHECK(hcct_siblings_unique(&p[k], by_name));
        REQUIRE_EQ(
            ctxprof_hcct_profile_write(
                &p[k], path, &(ctxprof_hcct_write_desc){CTXPROF_HCCT_BINARY, 0, 0, 0, 0}, &e),
            CTXPROF_OK);
        memset(&e, 0, sizeof e);
        rc = ctxprof_hcct_profile_read(&back, path, NULL, &e);
        CHECK_EQ(rc, CTXPROF_OK);
        if (rc != CTXPROF_OK) {
            printf("  profile %zu: %s\n", k, e.detail);
            continue;
        }
        CHECK(hcct_same_profile(&p[k], &back));
        REQUIRE_EQ(ctxprof_hcct_profile_compare(&back, &p[k], 0.001, &acc, &e), CTXPROF_OK);
        CHECK_EQ(acc.missed, 0);
        CHECK_EQ(acc.unknown, 0);
        CHECK_GE(acc.hot, 5);
        REQUIRE_EQ(ctxprof_hcct_profile_merge(&back, &p[k], 0, &e), CTXPROF_OK);
        CHECK_EQ(back.n, p[k].n);
        for (i = 0; i < back.n && i < p[k].n; i++)
            CHECK_EQ(back.nodes[i].count, 2 * p[k].nodes[i].count);
        ctxprof_hcct_profile_deinit(&back);
    }
    for (k = 0; k < 5; k++)
        ctxprof_hcct_profile_deinit(&p[k]);
    ctxprof_hcct_deinit(&t1);
    ctxprof_hcct_deinit(&t2);
}

/* A reader that reads whole files takes /dev/zero until memory runs out:
   the header comes first, and its announced size must be the file's. In a
   child under an address-space limit (as tests/test_pcc.c runs the tool
   on /dev/zero), so that a regression fails instead of eating the machine;
   the child reports, the parent checks. */
typedef struct hcct_read_result {
    int zero_rc, trail_rc, huge_rc, pipe_rc, good_rc, ok;
    char zero_msg[256], trail_msg[256], huge_msg[256], pipe_msg[256];
} hcct_read_result;

static int hcct_read_child(void *arg, void *shared)
{
    hcct_read_result *r = (hcct_read_result *)shared;
    const char *path = (const char *)arg;
    char trail[600], huge[600];
    ctxprof_hcct_profile q;
    ctxprof_error e;
    unsigned char *img;
    size_t len;
    FILE *f;
    int fds[2];
    pid_t w;
    if (!ctxprof_test_under_valgrind()) {
#if !defined(CTXPROF_TEST_SANITIZED)
        struct rlimit rl;
        rl.rlim_cur = rl.rlim_max = (rlim_t)1 << 30; /* far above what the reads need */
        if (setrlimit(RLIMIT_AS, &rl) != 0)
            return 1;
#endif
    }
    memset(&q, 0, sizeof q);
    memset(&e, 0, sizeof e);
    r->zero_rc = ctxprof_hcct_profile_read(&q, "/dev/zero", NULL, &e);
    snprintf(r->zero_msg, sizeof r->zero_msg, "%s", e.detail);
    /* a good file with one byte after it */
    img = ctxprof_test_slurp(path, &len);
    if (!img)
        return 2;
    snprintf(trail, sizeof trail, "%s.trail", path);
    snprintf(huge, sizeof huge, "%s.huge", path);
    f = fopen(trail, "wb");
    if (!f || fwrite(img, 1, len, f) != len || fputc('x', f) == EOF || fclose(f) != 0)
        return 3;
    r->trail_rc = ctxprof_hcct_profile_read(&q, trail, NULL, &e);
    snprintf(r->trail_msg, sizeof r->trail_msg, "%s", e.detail);
    /* a header announcing 1 TiB over the same small file */
    ctxprof__put64(img + 48, (uint64_t)1 << 40);
    f = fopen(huge, "wb");
    if (!f || fwrite(img, 1, len, f) != len || fclose(f) != 0)
        return 4;
    r->huge_rc = ctxprof_hcct_profile_read(&q, huge, NULL, &e);
    snprintf(r->huge_msg, sizeof r->huge_msg, "%s", e.detail);
    ctxprof__put64(img + 48, (uint64_t)(len - CTXPROF__BLOB_HDR));
    /* from a pipe ("-"): the good file, then zeros without end */
    if (pipe(fds) != 0)
        return 5;
    w = fork();
    if (w == 0) {
        static const unsigned char zeros[4096];
        close(fds[0]);
        if (ctxprof__write_all(fds[1], img, len) == 0)
            while (ctxprof__write_all(fds[1], zeros, sizeof zeros) == 0)
                ;
        _exit(0);
    }
    close(fds[1]);
    if (w < 0 || dup2(fds[0], 0) < 0)
        return 6;
    close(fds[0]);
    r->pipe_rc = ctxprof_hcct_profile_read(&q, "-", NULL, &e);
    snprintf(r->pipe_msg, sizeof r->pipe_msg, "%s", e.detail);
    close(0);
    waitpid(w, NULL, 0);
    /* and the file itself still reads */
    r->good_rc = ctxprof_hcct_profile_read(&q, path, NULL, &e);
    if (r->good_rc == CTXPROF_OK)
        ctxprof_hcct_profile_deinit(&q);
    free(img);
    r->ok = 1;
    return 0;
}

static void hcct_read_bounded(void)
{
    ctxprof_hcct t;
    ctxprof_hcct_desc d = hcct_desc_lss(0.01, 0.002);
    ctxprof_hcct_profile p;
    ctxprof_error e;
    hcct_gen g = {8, 0, 1};
    hcct_read_result *r;
    char path[512];
    int w;
    memset(&e, 0, sizeof e);
    REQUIRE(ctxprof_hcct_init(&t, &d, &e) == CTXPROF_OK);
    for (w = 0; w < 2000; w++)
        hcct_walk(&g, &t, NULL);
    REQUIRE(ctxprof_hcct_query(&t, 0.01, &p, &e) == CTXPROF_OK);
    snprintf(path, sizeof path, "%s/hcct-bounded.bin", ctxprof_test_tmpdir());
    REQUIRE(ctxprof_hcct_profile_write(&p, path,
                                       &(ctxprof_hcct_write_desc){CTXPROF_HCCT_BINARY, 0, 0, 0, 0},
                                       &e) == CTXPROF_OK);
    ctxprof_hcct_profile_deinit(&p);
    ctxprof_hcct_deinit(&t);
    r = (hcct_read_result *)ctxprof_test_in_child(hcct_read_child, path, sizeof *r);
    REQUIRE(r != NULL);
    CHECK(r->ok);
    CHECK_EQ(r->zero_rc, CTXPROF_ERR_CORRUPT);
    CHECK_CONTAINS(r->zero_msg, "/dev/zero: not a ctxprof file (bad magic)");
    CHECK_EQ(r->trail_rc, CTXPROF_ERR_CORRUPT);
    CHECK_CONTAINS(r->trail_msg, "header says");
    CHECK_CONTAINS(r->trail_msg, "(data after it)");
    CHECK_EQ(r->huge_rc, CTXPROF_ERR_CORRUPT);
    CHECK_CONTAINS(r->huge_msg, "header says 1099511627776 (truncated?)");
    CHECK_EQ(r->pipe_rc, CTXPROF_ERR_CORRUPT);
    CHECK_CONTAINS(r->pipe_msg, "-: payload is at least");
    CHECK_CONTAINS(r->pipe_msg, "(data after it)");
    CHECK_EQ(r->good_rc, CTXPROF_OK);
    munmap(r, sizeof *r);
}

/* Merging: exact profiles add up to the exact profile of both streams;
   approximate ones keep the guarantees over the union. */
/* Merging into a zeroed profile (an accumulator) gives the source; a
   zeroed source adds nothing; by name, one routine called from two sites
   is one context, in dst as in src. */
static void hcct_merge_edges(void)
{
    static const ctxprof_hcct_routine rf = {"f", "t.c", 1}, rg = {"g", "t.c", 2};
    const uintptr_t f = (uintptr_t)&rf | CTXPROF_HCCT_NAMED, g = (uintptr_t)&rg | CTXPROF_HCCT_NAMED;
    static const char *const pf[] = {"f"}, *const pfg[] = {"f", "g"};
    ctxprof_hcct t;
    ctxprof_hcct_desc d = hcct_desc_cct();
    ctxprof_hcct_profile p, acc, zero, q;
    const ctxprof_hcct_pnode *x;
    ctxprof_error e;
    size_t i;
    int k;
    memset(&e, 0, sizeof e);
    memset(&zero, 0, sizeof zero);
    REQUIRE(ctxprof_hcct_init(&t, &d, &e) == CTXPROF_OK);
    for (k = 0; k < 15; k++) { /* f from two sites, 10 and 5 times, calling g */
        ctxprof_hcct_push(&t, f, k < 10 ? 0x100 : 0x200);
        ctxprof_hcct_push(&t, g, 0x300);
        ctxprof_hcct_pop(&t);
        ctxprof_hcct_pop(&t);
    }
    REQUIRE(ctxprof_hcct_query(&t, -1, &p, &e) == CTXPROF_OK);
    CHECK_EQ(p.n, 5);
    memset(&acc, 0, sizeof acc);
    REQUIRE(ctxprof_hcct_profile_merge(&acc, &p, 0, &e) == CTXPROF_OK);
    REQUIRE_EQ(acc.n, p.n);
    for (i = 0; i < p.n; i++) {
        CHECK_EQ(acc.nodes[i].routine, p.nodes[i].routine);
        CHECK_EQ(acc.nodes[i].site, p.nodes[i].site);
        CHECK_EQ(acc.nodes[i].count, p.nodes[i].count);
        CHECK_EQ(acc.nodes[i].parent, p.nodes[i].parent);
        CHECK_STR(ctxprof_hcct_profile_name(&acc, i), ctxprof_hcct_profile_name(&p, i));
    }
    CHECK_EQ(acc.total, 30);
    REQUIRE(ctxprof_hcct_profile_merge(&acc, &zero, 0, &e) == CTXPROF_OK);
    CHECK_EQ(acc.total, 30);
    REQUIRE(ctxprof_hcct_profile_copy(&q, &zero, &e) == CTXPROF_OK);
    CHECK_EQ(q.n, 0);
    /* by name: p + p, f once with all its calls, g under it */
    REQUIRE(ctxprof_hcct_profile_merge(&acc, &p, CTXPROF_HCCT_BY_NAME, &e) == CTXPROF_OK);
    CHECK_EQ(acc.n, 3);
    x = hcct_find_path(&acc, pf, 1);
    CHECK(x != NULL && x->count == 30 && x->err == 0);
    x = hcct_find_path(&acc, pfg, 2);
    CHECK(x != NULL && x->count == 30);
    CHECK_EQ(acc.total, 60);
    ctxprof_hcct_profile_deinit(&acc);
    ctxprof_hcct_profile_deinit(&p);
    ctxprof_hcct_deinit(&t);
}

static void hcct_merge(void)
{
    ctxprof_hcct a1, a2, b1, b2, ball;
    ctxprof_hcct_desc da = hcct_desc_lss(0.02, 0.004), db = hcct_desc_cct();
    ctxprof_hcct_profile pa, pb, q1, q2, pall;
    ctxprof_hcct_accuracy acc;
    ctxprof_error e;
    hcct_gen g1 = {31, 0, 1}, g2 = {32, 1, 1};
    int w;
    memset(&e, 0, sizeof e);
    REQUIRE(ctxprof_hcct_init(&a1, &da, &e) == CTXPROF_OK);
    REQUIRE(ctxprof_hcct_init(&a2, &da, &e) == CTXPROF_OK);
    REQUIRE(ctxprof_hcct_init(&b1, &db, &e) == CTXPROF_OK);
    REQUIRE(ctxprof_hcct_init(&b2, &db, &e) == CTXPROF_OK);
    REQUIRE(ctxprof_hcct_init(&ball, &db, &e) == CTXPROF_OK);
    for (w = 0; w < 20000; w++) {
        hcct_gen h1 = g1, h2 = g2;
        hcct_walk(&g1, &a1, &b1);
        hcct_walk(&h1, &ball, NULL);
        if (w % 2) { /* the second stream is shorter and half new */
            hcct_walk(&g2, &a2, &b2);
            hcct_walk(&h2, &ball, NULL);
        }
    }
    /* exact + exact == exact of the union */
    REQUIRE(ctxprof_hcct_query(&b1, -1, &pb, &e) == CTXPROF_OK);
    REQUIRE(ctxprof_hcct_query(&b2, -1, &q2, &e) == CTXPROF_OK);
    REQUIRE(ctxprof_hcct_query(&ball, -1, &pall, &e) == CTXPROF_OK);
    REQUIRE(ctxprof_hcct_profile_merge(&pb, &q2, 0, &e) == CTXPROF_OK);
    CHECK_EQ(pb.total, pall.total);
    CHECK_EQ(pb.n, pall.n);
    CHECK_EQ(pb.threads, 2);
    REQUIRE(ctxprof_hcct_profile_compare(&pb, &pall, 0.01, &acc, &e) == CTXPROF_OK);
    CHECK_EQ(acc.unknown, 0);
    CHECK_EQ(acc.max_error, 0);
    CHECK(acc.equal);
    ctxprof_hcct_profile_deinit(&q2);
    /* approximate: merged bounds hold for every context of the union */
    REQUIRE(ctxprof_hcct_query(&a1, -1, &pa, &e) == CTXPROF_OK);
    REQUIRE(ctxprof_hcct_query(&a2, -1, &q1, &e) == CTXPROF_OK);
    REQUIRE(ctxprof_hcct_profile_merge(&pa, &q1, 0, &e) == CTXPROF_OK);
    CHECK_EQ(pa.total, pall.total);
    REQUIRE(ctxprof_hcct_profile_compare(&pa, &pall, 0.02, &acc, &e) == CTXPROF_OK);
    CHECK_EQ(acc.missed, 0);
    CHECK_EQ(acc.bound_violations, 0);
    CHECK_LE((double)pa.absent, 0.004 * (double)pa.total + 1);
    REQUIRE(ctxprof_hcct_profile_prune(&pa, 0.02, &e) == CTXPROF_OK);
    REQUIRE(ctxprof_hcct_profile_compare(&pa, &pall, 0.02, &acc, &e) == CTXPROF_OK);
    CHECK_EQ(acc.missed, 0);
    /* by name (profiles of other runs): metric mismatch is refused */
    q1.metric = CTXPROF_HCCT_BYTES;
    CHECK_EQ(ctxprof_hcct_profile_merge(&pa, &q1, CTXPROF_HCCT_BY_NAME, &e), CTXPROF_ERR_MISMATCH);
    q1.metric = CTXPROF_HCCT_CALLS;
    REQUIRE(ctxprof_hcct_profile_merge(&pa, &q1, CTXPROF_HCCT_BY_NAME, &e) == CTXPROF_OK);
    CHECK(pa.flags & CTXPROF_HCCT_BY_NAME);
    ctxprof_hcct_profile_deinit(&pa);
    ctxprof_hcct_profile_deinit(&q1);
    ctxprof_hcct_profile_deinit(&pb);
    ctxprof_hcct_profile_deinit(&pall);
    ctxprof_hcct_deinit(&a1);
    ctxprof_hcct_deinit(&a2);
    ctxprof_hcct_deinit(&b1);
    ctxprof_hcct_deinit(&b2);
    ctxprof_hcct_deinit(&ball);
}

/* Pruned profiles: what they leave out is bounded by absent (the
   threshold, not only the minimum counter), and merging pruned profiles
   keeps every bound against the exact CCT of both streams. */
static void hcct_merge_pruned(void)
{
    ctxprof_hcct a1, a2, ball;
    ctxprof_hcct_desc da = hcct_desc_lss(0.005, 0.001), db = hcct_desc_cct();
    ctxprof_hcct_profile p1, p2, pall, full;
    ctxprof_hcct_accuracy acc;
    ctxprof_error e;
    hcct_gen g1 = {41, 0, 1}, g2 = {42, 1, 1};
    char *txt, want[64];
    int w;
    memset(&e, 0, sizeof e);
    REQUIRE(ctxprof_hcct_init(&a1, &da, &e) == CTXPROF_OK);
    REQUIRE(ctxprof_hcct_init(&a2, &da, &e) == CTXPROF_OK);
    REQUIRE(ctxprof_hcct_init(&ball, &db, &e) == CTXPROF_OK);
    for (w = 0; w < 30000; w++) {
        hcct_gen h1 = g1, h2 = g2;
        hcct_walk(&g1, &a1, NULL);
        hcct_walk(&h1, &ball, NULL);
        g2.phase = w % 3 == 0; /* the second stream shares half of its hot set */
        h2.phase = g2.phase;
        hcct_walk(&g2, &a2, NULL);
        hcct_walk(&h2, &ball, NULL);
    }
    REQUIRE(ctxprof_hcct_query(&ball, -1, &pall, &e) == CTXPROF_OK);
    /* a pruned query, and a full one pruned afterwards */
    REQUIRE(ctxprof_hcct_query(&a1, 0.005, &p1, &e) == CTXPROF_OK);
    REQUIRE(ctxprof_hcct_query(&a2, -1, &full, &e) == CTXPROF_OK);
    REQUIRE(ctxprof_hcct_profile_copy(&p2, &full, &e) == CTXPROF_OK);
    REQUIRE(ctxprof_hcct_profile_prune(&p2, 0.005, &e) == CTXPROF_OK);
    CHECK_GE(p1.absent, p1.threshold);
    CHECK_GE(p2.absent, p2.threshold);
    CHECK_GE(p2.absent, full.absent);
    txt = hcct_fmt(&p2, CTXPROF_HCCT_TEXT);
    REQUIRE(txt != NULL);
    snprintf(want, sizeof want, "contexts not shown: count <= %llu",
             (unsigned long long)p2.threshold);
    CHECK_CONTAINS(txt, want);
    ctxprof_hcct_text_free(&p2, txt);
    REQUIRE(ctxprof_hcct_profile_merge(&p1, &p2, 0, &e) == CTXPROF_OK);
    CHECK_EQ(p1.total, pall.total);
    REQUIRE(ctxprof_hcct_profile_compare(&p1, &pall, 0.005, &acc, &e) == CTXPROF_OK);
    CHECK_EQ(acc.missed, 0);
    CHECK_EQ(acc.bound_violations, 0);
    CHECK_EQ(acc.unknown, 0);
    CHECK(acc.hot >= 5);
    if (getenv("HCCT_TEST_VERBOSE"))
        fprintf(stderr, "  hot %zu, absent %llu\n", acc.hot, (unsigned long long)p1.absent);
    /* a profile from before absent covered the threshold: merge still does */
    p2.absent = full.absent;
    ctxprof_hcct_profile_deinit(&full);
    REQUIRE(ctxprof_hcct_query(&a1, 0.005, &full, &e) == CTXPROF_OK);
    REQUIRE(ctxprof_hcct_profile_merge(&full, &p2, 0, &e) == CTXPROF_OK);
    REQUIRE(ctxprof_hcct_profile_compare(&full, &pall, 0.005, &acc, &e) == CTXPROF_OK);
    CHECK_EQ(acc.missed, 0);
    CHECK_EQ(acc.bound_violations, 0);
    ctxprof_hcct_profile_deinit(&p1);
    ctxprof_hcct_profile_deinit(&p2);
    ctxprof_hcct_profile_deinit(&full);
    ctxprof_hcct_profile_deinit(&pall);
    ctxprof_hcct_deinit(&a1);
    ctxprof_hcct_deinit(&a2);
    ctxprof_hcct_deinit(&ball);
}

/* ---- many profiles merged: against a reference merge ---- */

/* The merge as documented, done the slow way (a linear search per node:
   small profiles only): a context is (routine, site) under its merged
   parent; dst's nodes keep their order, src's new ones follow in its
   order; a context missing on one side counts that side's absent bound. */
typedef struct hcct_ref {
    ctxprof_hcct_pnode *nd;
    char **names;
    size_t n;
    uint64_t total, absent;
    uint32_t threads;
} hcct_ref;

static uint64_t hcct_ref_sat(uint64_t a, uint64_t b)
{
    return b > UINT64_MAX - a ? UINT64_MAX : a + b;
}

static void hcct_ref_free(hcct_ref *r)
{
    size_t i;
    for (i = 0; i < r->n; i++)
        free(r->names[i]);
    free(r->names);
    free(r->nd);
    memset(r, 0, sizeof *r);
}

static int hcct_ref_merge(hcct_ref *r, const ctxprof_hcct_profile *s)
{
    size_t n0, i, j;
    uint32_t *map = (uint32_t *)malloc(s->n * sizeof *map);
    unsigned char *hit;
    uint64_t dabs = r->absent, sabs = (s->flags & CTXPROF_HCCT_PRUNED) && s->threshold > s->absent
                                          ? s->threshold
                                          : s->absent;
    if (r->n == 0) { /* a zeroed accumulator: the root */
        r->nd = (ctxprof_hcct_pnode *)calloc(1, sizeof *r->nd);
        r->names = (char **)calloc(1, sizeof *r->names);
        if (!r->nd || !r->names || !(r->names[0] = strdup("<root>")))
            return -1;
        r->nd[0].parent = CTXPROF_HCCT_NONE;
        r->nd[0].flags = CTXPROF_HCCT_IS_ROOT;
        r->n = 1;
    }
    n0 = r->n;
    hit = (unsigned char *)calloc(n0, 1);
    r->nd = (ctxprof_hcct_pnode *)realloc(r->nd, (r->n + s->n) * sizeof *r->nd);
    r->names = (char **)realloc(r->names, (r->n + s->n) * sizeof *r->names);
    if (!map || !hit || !r->nd || !r->names)
        return -1;
    map[0] = 0;
    for (i = 1; i < s->n; i++) {
        const ctxprof_hcct_pnode *x = &s->nodes[i];
        uint32_t pd = map[x->parent];
        for (j = 1; j < r->n; j++)
            if (r->nd[j].parent == pd && r->nd[j].routine == x->routine && r->nd[j].site == x->site)
                break;
        if (j == r->n) {
            r->nd[j] = *x;
            r->nd[j].parent = pd;
            r->nd[j].count = hcct_ref_sat(x->count, dabs);
            r->nd[j].err = hcct_ref_sat(x->err, dabs);
            r->nd[j].flags &= ~(uint32_t)CTXPROF_HCCT_HOT;
            if (!(r->names[j] = strdup(ctxprof_hcct_profile_name(s, i))))
                return -1;
            r->n++;
        } else {
            r->nd[j].count = hcct_ref_sat(r->nd[j].count, x->count);
            r->nd[j].err = hcct_ref_sat(r->nd[j].err, x->err);
            r->nd[j].flags |= x->flags & (uint32_t)CTXPROF_HCCT_MONITORED;
            if (j < n0)
                hit[j] = 1;
        }
        map[i] = (uint32_t)j;
    }
    for (j = 1; j < n0; j++)
        if (!hit[j]) {
            r->nd[j].count = hcct_ref_sat(r->nd[j].count, sabs);
            r->nd[j].err = hcct_ref_sat(r->nd[j].err, sabs);
        }
    for (j = 1; j < r->n; j++)
        r->nd[j].flags &= ~(uint32_t)CTXPROF_HCCT_HOT;
    r->nd[0].count = hcct_ref_sat(r->nd[0].count, s->nodes[0].count);
    r->nd[0].err = hcct_ref_sat(r->nd[0].err, s->nodes[0].err);
    r->nd[0].flags |= s->nodes[0].flags & (uint32_t)CTXPROF_HCCT_MONITORED;
    r->total = hcct_ref_sat(r->total, s->total);
    r->absent = hcct_ref_sat(dabs, sabs);
    r->threads += s->threads;
    free(map);
    free(hit);
    return 0;
}

/* p against the reference: the same contexts with the same counts, error
   bounds and flags (same_order: node for node, names included), depths
   right, and every node's children listed once each by decreasing count. */
static void hcct_ref_check(const ctxprof_hcct_profile *p, const hcct_ref *r, int same_order)
{
    size_t i, j, bad = 0, badorder = 0;
    uint32_t *map = (uint32_t *)malloc(p->n * sizeof *map), *nkids, *seen;
    REQUIRE_EQ(p->n, r->n);
    CHECK_EQ(p->total, r->total);
    CHECK_EQ(p->absent, r->absent);
    CHECK_EQ(p->threads, r->threads);
    nkids = (uint32_t *)calloc(p->n, sizeof *nkids);
    seen = (uint32_t *)calloc(p->n, sizeof *seen);
    REQUIRE(map && nkids && seen);
    map[0] = 0;
    for (i = 0; i < p->n; i++) {
        const ctxprof_hcct_pnode *x = &p->nodes[i], *y;
        if (i == 0) {
            j = 0;
        } else if (same_order) {
            j = i;
            if (x->parent != r->nd[i].parent ||
                strcmp(ctxprof_hcct_profile_name(p, i), r->names[i]) != 0)
                bad++;
        } else {
            for (j = 1; j < r->n; j++)
                if (r->nd[j].parent == map[x->parent] && r->nd[j].routine == x->routine &&
                    r->nd[j].site == x->site)
                    break;
            if (j == r->n) {
                bad++;
                j = 0;
            }
        }
        map[i] = (uint32_t)j;
        y = &r->nd[j];
        if (x->count != y->count || x->err != y->err || x->flags != y->flags ||
            x->routine != y->routine || x->site != y->site ||
            (i && x->depth != p->nodes[x->parent].depth + 1))
            bad++;
        if (i)
            nkids[x->parent]++;
    }
    for (i = 0; i < p->n; i++) {
        uint32_t c, k = 0;
        for (c = p->nodes[i].child; c; c = p->nodes[c].sibling, k++) {
            if (c >= p->n || p->nodes[c].parent != i || seen[c]++) {
                badorder++;
                break;
            }
            if (p->nodes[c].sibling && p->nodes[p->nodes[c].sibling].count > p->nodes[c].count)
                badorder++;
        }
        if (k != nkids[i])
            badorder++;
    }
    CHECK_EQ(bad, 0);
    CHECK_EQ(badorder, 0);
    free(map);
    free(nkids);
    free(seen);
}

/* A walk of steps enters and exits of routines 0..fan-1 (+ base) up to
   depth 7: profiles of one seed share contexts with those of others. */
static void hcct_many_walk(ctxprof_hcct *t, unsigned seed, long steps, unsigned fan, uintptr_t base)
{
    long i, dep = 0;
    for (i = 0; i < steps; i++) {
        seed = seed * 1103515245u + 12345u;
        if (dep < 7 && (dep == 0 || (seed >> 16) % 3)) {
            ctxprof_hcct_push(t, base + 16 * ((seed >> 8) % fan), (seed >> 20) % 2);
            dep++;
        } else {
            ctxprof_hcct_pop(t);
            dep--;
        }
    }
    while (dep-- > 0)
        ctxprof_hcct_pop(t);
}

/* Twelve profiles (LSS ones with absent bounds, exact ones, a pruned one)
   merged one after the other into one: node for node what the reference
   merge gives. */
static void hcct_merge_many(void)
{
    enum { K = 12 };
    ctxprof_hcct_profile acc, p;
    hcct_ref r;
    ctxprof_error e;
    int k;
    memset(&acc, 0, sizeof acc);
    memset(&r, 0, sizeof r);
    memset(&e, 0, sizeof e);
    for (k = 0; k < K; k++) {
        ctxprof_hcct t;
        ctxprof_hcct_desc d = k % 2 ? hcct_desc_cct() : hcct_desc_lss(0.05, 0.01);
        memset(&t, 0, sizeof t);
        REQUIRE_EQ(ctxprof_hcct_init(&t, &d, &e), CTXPROF_OK);
        hcct_many_walk(&t, (unsigned)k + 1, 3000 + 500 * k, 4 + (unsigned)k % 3, 0x1000);
        REQUIRE_EQ(ctxprof_hcct_query(&t, -1, &p, &e), CTXPROF_OK);
        ctxprof_hcct_deinit(&t);
        if (k == 5)
            REQUIRE_EQ(ctxprof_hcct_profile_prune(&p, 0.002, &e), CTXPROF_OK);
        REQUIRE_EQ(hcct_ref_merge(&r, &p), 0);
        REQUIRE_EQ(ctxprof_hcct_profile_merge(&acc, &p, 0, &e), CTXPROF_OK);
        ctxprof_hcct_profile_deinit(&p);
        hcct_ref_check(&acc, &r, 1);
    }
    CHECK(r.absent > 0);
    CHECK(r.n > 1000);
    ctxprof_hcct_profile_deinit(&acc);
    hcct_ref_free(&r);
}

/* A session's threads, their trees merged by a live snapshot (LSS: with
   absent bounds) and, in CCT, by the exits of half of them then a
   snapshot: the contexts, counts, bounds and flags of the reference merge
   of each thread's own query. */
typedef struct hcct_many_arg {
    unsigned k;
    ctxprof_hcct_profile p;
    pthread_barrier_t *b;
    int rc;
} hcct_many_arg;

static void *hcct_many_thread(void *arg)
{
    hcct_many_arg *a = (hcct_many_arg *)arg;
    ctxprof_hcct *t = ctxprof_hcct_thread();
    ctxprof_error e;
    a->rc = -1;
    if (!t)
        return NULL;
    hcct_many_walk(t, a->k + 1, 4000 + 300 * (long)a->k, 4 + a->k % 3, 0x1000);
    a->rc = ctxprof_hcct_query(t, -1, &a->p, &e);
    if (a->b) {
        pthread_barrier_wait(a->b); /* the snapshot */
        pthread_barrier_wait(a->b);
    }
    return NULL;
}

static void hcct_session_merge_many(void)
{
    enum { T = 8 };
    int mode;
    for (mode = 0; mode < 2; mode++) {
        ctxprof_hcct_desc d = mode ? hcct_desc_cct() : hcct_desc_lss(0.05, 0.01);
        hcct_many_arg a[T];
        pthread_t th[T];
        pthread_barrier_t b;
        ctxprof_hcct_profile q;
        hcct_ref r;
        ctxprof_error e;
        unsigned k, exited = mode ? T / 2 : 0;
        memset(&e, 0, sizeof e);
        memset(&r, 0, sizeof r);
        memset(a, 0, sizeof a);
        REQUIRE_EQ(ctxprof_hcct_start(&d, &e), CTXPROF_OK);
        REQUIRE_EQ(pthread_barrier_init(&b, NULL, T - exited + 1), 0);
        for (k = 0; k < T; k++) {
            a[k].k = k;
            a[k].b = k < exited ? NULL : &b;
            REQUIRE_EQ(pthread_create(&th[k], NULL, hcct_many_thread, &a[k]), 0);
            if (k < exited) /* exits (its tree merged) before the next starts */
                pthread_join(th[k], NULL);
        }
        pthread_barrier_wait(&b);
        memset(&q, 0, sizeof q);
        CHECK_EQ(ctxprof_hcct_snapshot(-1, &q, &e), CTXPROF_OK);
        pthread_barrier_wait(&b);
        for (k = exited; k < T; k++)
            pthread_join(th[k], NULL);
        for (k = 0; k < T; k++) {
            CHECK_EQ(a[k].rc, CTXPROF_OK);
            if (a[k].rc == CTXPROF_OK)
                CHECK_EQ(hcct_ref_merge(&r, &a[k].p), 0);
            ctxprof_hcct_profile_deinit(&a[k].p);
        }
        CHECK(mode || r.absent > 0);
        if (q.n)
            hcct_ref_check(&q, &r, 0);
        ctxprof_hcct_profile_deinit(&q);
        hcct_ref_free(&r);
        pthread_barrier_destroy(&b);
        ctxprof_hcct_shutdown();
    }
}

/* Compiles prog (C source) as NAME in the test directory against these
   headers, runs it and reads its standard output into *txt (free with
   ctxprof__free): 1; 0 when the compiler is missing (the caller skips),
   -1 after a failed check. */
static int hcct_run_prog(const char *name, const char *prog, char **txt, size_t *len)
{
    const char *dir = ctxprof_test_tmpdir();
    char src[600], exe[600], out[600], cwd[4096];
    ctxprof_error e;
    memset(&e, 0, sizeof e);
    CTXPROF_TEST_CMP(getcwd(cwd, sizeof cwd) != NULL, ==, 1, return -1);
    snprintf(src, sizeof src, "%s/%s.c", dir, name);
    snprintf(exe, sizeof exe, "%s/%s", dir, name);
    snprintf(out, sizeof out, "%s/%s.out", dir, name);
    CTXPROF_TEST_CMP(ctxprof_test_put(src, prog), ==, 0, return -1);
    if (ctxprof_test_sh("%s -std=gnu11 -O1 -I%s %s -o %s -lpthread -ldl", CTXPROF_TEST_CC, cwd, src,
                        exe) != 0)
        return 0;
    CTXPROF_TEST_CMP(ctxprof_test_sh("%s > %s", exe, out), ==, 0, return -1);
    CTXPROF_TEST_CMP(ctxprof__read_file(out, txt, len, NULL, &e), ==, CTXPROF_OK, return -1);
    return 1;
}

/* Merging a session's threads costs O(their nodes): the program below
   counts the bytes that a live snapshot, then the exits of the threads,
   request from the allocator in CCT sessions of 4 and of 16 threads, each
   thread with contexts of its own. Per node of the result, 16 threads must
   not cost more than 4 do (by 1.5x): merges that copied and indexed all
   merged so far made it grow with the thread count (3x here). */
static const char hcct_linear_prog[] =
    "#include <stddef.h>\n"
    "#include <stdint.h>\n"
    "#include <stdlib.h>\n"
    "static int armed;\n"
    "static unsigned long long bytes;\n"
    "static void *t_malloc(size_t n)\n"
    "{\n"
    "    if (__atomic_load_n(&armed, __ATOMIC_ACQUIRE))\n"
    "        __atomic_fetch_add(&bytes, (unsigned long long)n, __ATOMIC_RELAXED);\n"
    "    return malloc(n);\n"
    "}\n"
    "#define CTXPROF_MALLOC(sz, ud) ((void)(ud), t_malloc(sz))\n"
    "#define CTXPROF_FREE(p, ud) ((void)(ud), free(p))\n"
    "#define CTXPROF_IMPLEMENTATION\n"
    "#include \"ctxprof_hcct.h\"\n"
    "#include <pthread.h>\n"
    "#include <stdio.h>\n"
    "#include <string.h>\n"
    "static pthread_barrier_t b;\n"
    "static void *body(void *arg)\n"
    "{\n"
    "    ctxprof_hcct *t = ctxprof_hcct_thread();\n"
    "    uintptr_t k = (uintptr_t)arg;\n"
    "    unsigned s = (unsigned)k + 1;\n"
    "    long i, dep = 0;\n"
    "    for (i = 0; t && i < 20000; i++) {\n"
    "        s = s * 1103515245u + 12345u;\n"
    "        if (dep < 9 && (dep == 0 || (s >> 16) % 3)) {\n"
    "            ctxprof_hcct_push(t, 0x1000 + 0x100000 * k + 16 * ((s >> 8) % 5), 0);\n"
    "            dep++;\n"
    "        } else {\n"
    "            ctxprof_hcct_pop(t);\n"
    "            dep--;\n"
    "        }\n"
    "    }\n"
    "    while (t && dep-- > 0) ctxprof_hcct_pop(t);\n"
    "    pthread_barrier_wait(&b);\n"
    "    pthread_barrier_wait(&b);\n"
    "    return NULL;\n"
    "}\n"
    "int main(void)\n"
    "{\n"
    "    unsigned T, k;\n"
    "    for (T = 4; T <= 16; T *= 4) {\n"
    "        ctxprof_hcct_desc d; ctxprof_hcct_profile p; ctxprof_error e;\n"
    "        pthread_t th[16];\n"
    "        unsigned long long snap, ex;\n"
    "        memset(&d, 0, sizeof d); memset(&e, 0, sizeof e); memset(&p, 0, sizeof p);\n"
    "        d.mode = CTXPROF_HCCT_CCT;\n"
    "        if (ctxprof_hcct_start(&d, &e)) { puts(e.detail); return 1; }\n"
    "        pthread_barrier_init(&b, NULL, T + 1);\n"
    "        for (k = 0; k < T; k++)\n"
    "            if (pthread_create(&th[k], NULL, body, (void *)(uintptr_t)k)) return 2;\n"
    "        pthread_barrier_wait(&b);\n"
    "        bytes = 0; __atomic_store_n(&armed, 1, __ATOMIC_RELEASE);\n"
    "        if (ctxprof_hcct_snapshot(-1, &p, &e)) { puts(e.detail); return 3; }\n"
    "        __atomic_store_n(&armed, 0, __ATOMIC_RELEASE); snap = bytes;\n"
    "        ctxprof_hcct_profile_deinit(&p);\n"
    "        bytes = 0; __atomic_store_n(&armed, 1, __ATOMIC_RELEASE);\n"
    "        pthread_barrier_wait(&b);\n"
    "        for (k = 0; k < T; k++) pthread_join(th[k], NULL);\n"
    "        __atomic_store_n(&armed, 0, __ATOMIC_RELEASE); ex = bytes;\n"
    "        if (ctxprof_hcct_snapshot(-1, &p, &e)) { puts(e.detail); return 4; }\n"
    "        printf(\"threads %u nodes %zu snapshot %llu exits %llu\\n\", T, p.n, snap, ex);\n"
    "        ctxprof_hcct_profile_deinit(&p);\n"
    "        pthread_barrier_destroy(&b);\n"
    "        ctxprof_hcct_shutdown();\n"
    "    }\n"
    "    return 0;\n"
    "}\n";

static void hcct_session_merge_linear(void)
{
    char *txt = NULL, *line;
    size_t len;
    double per[2][2] = {{0, 0}, {0, 0}};
    int runs = 0, ran = hcct_run_prog("merge_linear", hcct_linear_prog, &txt, &len);
    if (ran == 0)
        SKIP("cannot compile the merge cost program");
    REQUIRE(ran > 0);
    for (line = txt; (line = strstr(line, "threads ")) != NULL && runs < 2; line++) {
        unsigned th;
        size_t n;
        unsigned long long snap, ex;
        if (sscanf(line, "threads %u nodes %zu snapshot %llu exits %llu", &th, &n, &snap, &ex) !=
                4 ||
            n == 0)
            break;
        per[runs][0] = (double)snap / (double)n;
        per[runs][1] = (double)ex / (double)n;
        printf("  hcct: %u threads, %zu nodes: %.0f bytes per node allocated by the snapshot, "
               "%.0f by the exits\n",
               th, n, per[runs][0], per[runs][1]);
        runs++;
    }
    REQUIRE_EQ(runs, 2);
    CHECK_LE(per[1][0], 1.5 * per[0][0]);
    CHECK_LE(per[1][1], 1.5 * per[0][1]);
    ctxprof__free(txt, NULL);
}

/* compare itself: a miss, a count below the true one, a count above the
   true one by more than its error, and a context left out above absent,
   each planted in a correct profile, are reported. */
static void hcct_compare_negative(void)
{
    ctxprof_hcct a, b;
    ctxprof_hcct_desc da = hcct_desc_lss(0.01, 0.002), db = hcct_desc_cct();
    ctxprof_hcct_profile pa, pe, q;
    ctxprof_hcct_accuracy acc;
    ctxprof_error e;
    hcct_gen g = {51, 0, 1};
    size_t i, hot = 0;
    int w;
    memset(&e, 0, sizeof e);
    REQUIRE(ctxprof_hcct_init(&a, &da, &e) == CTXPROF_OK);
    REQUIRE(ctxprof_hcct_init(&b, &db, &e) == CTXPROF_OK);
    for (w = 0; w < 20000; w++)
        hcct_walk(&g, &a, &b);
    REQUIRE(ctxprof_hcct_query(&a, -1, &pa, &e) == CTXPROF_OK);
    REQUIRE(ctxprof_hcct_query(&b, -1, &pe, &e) == CTXPROF_OK);
    REQUIRE(ctxprof_hcct_profile_compare(&pa, &pe, 0.01, &acc, &e) == CTXPROF_OK);
    REQUIRE_EQ(acc.missed, 0); /* correct as it is */
    REQUIRE_EQ(acc.bound_violations, 0);
    for (i = 1; i < pa.n; i++) /* a hot monitored context with an exact count */
        if ((pa.nodes[i].flags & CTXPROF_HCCT_MONITORED) && pa.nodes[i].err == 0 &&
            pa.nodes[i].count > pa.total / 100) {
            hot = i;
            break;
        }
    REQUIRE(hot != 0);
    /* a count below the true count */
    REQUIRE(ctxprof_hcct_profile_copy(&q, &pa, &e) == CTXPROF_OK);
    q.nodes[hot].count--;
    REQUIRE(ctxprof_hcct_profile_compare(&q, &pe, 0.01, &acc, &e) == CTXPROF_OK);
    CHECK_EQ(acc.bound_violations, 1);
    CHECK_EQ(acc.missed, 0);
    /* above the true count by more than the error */
    q.nodes[hot].count += 2;
    REQUIRE(ctxprof_hcct_profile_compare(&q, &pe, 0.01, &acc, &e) == CTXPROF_OK);
    CHECK_EQ(acc.bound_violations, 1);
    CHECK_EQ(acc.max_error, 1);
    q.nodes[hot].err = 1; /* now within its bound */
    REQUIRE(ctxprof_hcct_profile_compare(&q, &pe, 0.01, &acc, &e) == CTXPROF_OK);
    CHECK_EQ(acc.bound_violations, 0);
    /* a miss: the hot context renamed away (it is left out, above absent,
       and an unknown one appears; so are its descendants) */
    q.nodes[hot].routine ^= 0x5555;
    REQUIRE(ctxprof_hcct_profile_compare(&q, &pe, 0.01, &acc, &e) == CTXPROF_OK);
    CHECK_GE(acc.missed, 1);
    CHECK_GE(acc.bound_violations, 1);
    CHECK_GE(acc.unknown, 1);
    CHECK(!acc.equal);
    ctxprof_hcct_profile_deinit(&q);
    /* a pruned profile whose absent forgot the threshold (cut contexts
       above it); an unmonitored node below its true count */
    REQUIRE(ctxprof_hcct_profile_copy(&q, &pa, &e) == CTXPROF_OK);
    REQUIRE(ctxprof_hcct_profile_prune(&q, 0.05, &e) == CTXPROF_OK);
    REQUIRE(ctxprof_hcct_profile_compare(&q, &pe, 0.01, &acc, &e) == CTXPROF_OK);
    CHECK(acc.missed > 0); /* compared below the pruning threshold */
    CHECK_EQ(acc.bound_violations, 0);
    q.absent = 0;
    q.flags &= ~(unsigned)CTXPROF_HCCT_PRUNED;
    REQUIRE(ctxprof_hcct_profile_compare(&q, &pe, 0.01, &acc, &e) == CTXPROF_OK);
    CHECK(acc.bound_violations >= acc.missed);
    for (i = 1; i < q.n; i++)
        if (!(q.nodes[i].flags & CTXPROF_HCCT_MONITORED))
            break;
    if (i < q.n) {
        size_t before = acc.bound_violations;
        q.nodes[i].count = q.nodes[i].err = 0;
        REQUIRE(ctxprof_hcct_profile_compare(&q, &pe, 0.01, &acc, &e) == CTXPROF_OK);
        CHECK_EQ(acc.bound_violations, before + 1);
    }
    ctxprof_hcct_profile_deinit(&q);
    ctxprof_hcct_profile_deinit(&pa);
    ctxprof_hcct_profile_deinit(&pe);
    ctxprof_hcct_deinit(&a);
    ctxprof_hcct_deinit(&b);
}

/* ---- threads ---- */

/* Queries from another thread while the owner runs, with a tiny M so that
   nodes are evicted, freed and reused all the time: every copy is a tree
   (parents first), every path in it is a path of the workload (a routine
   below the first level carries a tag of its caller: a node reused for
   another context read half before and half after would show), the hot
   context is always there and its count never decreases. */
typedef struct hcct_runner {
    ctxprof_hcct t;
    int stop;
    uint64_t walks;
} hcct_runner;

/* The routine called by caller with choice c: the caller's tag above c. */
static uintptr_t hcct_tagged(uintptr_t caller, unsigned c)
{
    return (uintptr_t)(((ctxprof_mix64((uint64_t)caller) & 0xFFFF) << 8) | c);
}

static void *hcct_run_stream(void *arg)
{
    hcct_runner *r = (hcct_runner *)arg;
    uint64_t seed = 77;
    while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
        unsigned d = 1 + (unsigned)(ctxprof_test_rand(&seed) % 8), k;
        uintptr_t rt = 1;
        ctxprof_hcct_push(&r->t, 1, 0); /* half of all events */
        for (k = 0; k < d; k++) {
            rt = hcct_tagged(rt, (unsigned)hcct_zipf(&seed));
            ctxprof_hcct_push(&r->t, rt, 0);
        }
        for (k = 0; k <= d; k++)
            ctxprof_hcct_pop(&r->t);
        __atomic_store_n(&r->walks, r->walks + 1, __ATOMIC_RELEASE);
    }
    return NULL;
}

static void hcct_query_concurrent(void)
{
    hcct_runner r;
    ctxprof_hcct_desc d = hcct_desc_lss(0.1, 0);
    ctxprof_error e;
    pthread_t th;
    uint64_t last = 0;
    size_t nodes = 0, impossible = 0;
    int q;
    memset(&e, 0, sizeof e);
    memset(&r, 0, sizeof r);
    d.counters = 64;
    REQUIRE(ctxprof_hcct_init(&r.t, &d, &e) == CTXPROF_OK);
    REQUIRE(pthread_create(&th, NULL, hcct_run_stream, &r) == 0);
    while (__atomic_load_n(&r.walks, __ATOMIC_ACQUIRE) < 100)
        sched_yield();
    /* until the owner has run a while: the copies race with its updates
       only when both threads run at once */
    for (q = 0; q < 1000 || (__atomic_load_n(&r.walks, __ATOMIC_ACQUIRE) < 300000 && q < 1000000);
         q++) {
        ctxprof_hcct_profile p;
        size_t i;
        uint32_t c;
        if (ctxprof_hcct_query(&r.t, q % 4 == 3 ? 0.1 : -1, &p, &e) != CTXPROF_OK) {
            CHECK(!"query failed");
            break;
        }
        for (i = 1; i < p.n; i++) {
            const ctxprof_hcct_pnode *x = &p.nodes[i];
            CHECK_LT(x->parent, i);
            if (x->parent == 0 ? x->routine != 1
                               : x->routine != hcct_tagged(p.nodes[x->parent].routine,
                                                           (unsigned)(x->routine & 0xFF)))
                impossible++;
        }
        nodes += p.n - 1;
        /* the hot context: monitored since the first walk (its count is
           more than N/|M|), so exact in every copy */
        for (c = p.nodes[0].child; c && p.nodes[c].routine != 1; c = p.nodes[c].sibling)
            ;
        CHECK(c != 0);
        if (c) {
            CHECK(p.nodes[c].flags & CTXPROF_HCCT_MONITORED);
            CHECK_GE(p.nodes[c].count, last);
            last = p.nodes[c].count;
        }
        ctxprof_hcct_profile_deinit(&p);
        if (ctxprof_test_failed)
            break;
    }
    __atomic_store_n(&r.stop, 1, __ATOMIC_RELEASE);
    pthread_join(th, NULL);
    if (impossible || getenv("HCCT_TEST_VERBOSE"))
        fprintf(stderr, "  %zu of %zu nodes copied were impossible paths; %llu walks, %llu "
                "replacements\n", impossible, nodes, (unsigned long long)r.walks,
                (unsigned long long)r.t.st.replaced);
    CHECK_EQ(impossible, 0);
    CHECK(r.walks > 0);
    hcct_check(&r.t, UINT64_MAX);
    ctxprof_hcct_deinit(&r.t);
}

/* The session: threads get trees on their first event, exited threads
   are merged, the merged counts are exact (CCT mode). */
static __attribute__((noinline)) void hcct_t_inner(void)
{
    CTXPROF_HCCT_SCOPE("inner");
    __asm__ volatile("");
}

static __attribute__((noinline)) void hcct_t_outer(void)
{
    CTXPROF_HCCT_SCOPE("outer");
    hcct_t_inner();
    hcct_t_inner();
}

static void *hcct_t_body(void *arg)
{
    int i, n = (int)(intptr_t)arg;
    for (i = 0; i < n; i++)
        hcct_t_outer();
    return NULL;
}

static void hcct_session_threads(void)
{
    ctxprof_hcct_desc d = hcct_desc_cct();
    ctxprof_hcct_profile p;
    ctxprof_error e;
    pthread_t th[4];
    static const char *const outer[] = {"outer"}, *const inner[] = {"outer", "inner"};
    const ctxprof_hcct_pnode *x;
    int i;
    memset(&e, 0, sizeof e);
    d.flags = CTXPROF_HCCT_ROUTINE_ONLY;
    CHECK_EQ(ctxprof_hcct_snapshot(0, &p, &e), CTXPROF_ERR_INVAL); /* not started */
    { /* a bound too small for the counters fails at start, not in each thread */
        ctxprof_hcct_desc small = hcct_desc_lss(1e-3, 1e-4);
        small.max_bytes = 1000;
        CHECK_EQ(ctxprof_hcct_start(&small, &e), CTXPROF_ERR_RANGE);
        CHECK_CONTAINS(e.detail, "max_bytes");
    }
    REQUIRE(ctxprof_hcct_start(&d, &e) == CTXPROF_OK);
    CHECK_EQ(ctxprof_hcct_start(&d, &e), CTXPROF_ERR_INVAL);
    for (i = 0; i < 4; i++)
        REQUIRE(pthread_create(&th[i], NULL, hcct_t_body, (void *)(intptr_t)(1000 * (i + 1))) == 0);
    /* a snapshot while they run */
    REQUIRE(ctxprof_hcct_snapshot(-1, &p, &e) == CTXPROF_OK);
    for (i = 1; i < (int)p.n; i++)
        CHECK_LT(p.nodes[i].parent, (uint32_t)i);
    ctxprof_hcct_profile_deinit(&p);
    for (i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
    hcct_t_body((void *)(intptr_t)7); /* this thread too */
    REQUIRE(ctxprof_hcct_snapshot(-1, &p, &e) == CTXPROF_OK);
    CHECK_EQ(p.threads, 5);
    x = hcct_find_path(&p, outer, 1);
    REQUIRE(x != NULL);
    CHECK_EQ(x->count, 10007);
    x = hcct_find_path(&p, inner, 2);
    REQUIRE(x != NULL);
    CHECK_EQ(x->count, 20014);
    CHECK_EQ(p.total, 30021);
    ctxprof_hcct_profile_deinit(&p);
    /* stopped: no more counts; resumed: counts again */
    ctxprof_hcct_stop();
    for (i = 0; i < 70000; i++) /* past a tick, which applies the stop */
        hcct_t_inner();
    REQUIRE(ctxprof_hcct_snapshot(-1, &p, &e) == CTXPROF_OK);
    CHECK_LE(p.total, 30021 + 65536 + 1);
    {
        uint64_t frozen = p.total;
        ctxprof_hcct_profile_deinit(&p);
        for (i = 0; i < 1000; i++)
            hcct_t_inner();
        REQUIRE(ctxprof_hcct_snapshot(-1, &p, &e) == CTXPROF_OK);
        CHECK_EQ(p.total, frozen);
        ctxprof_hcct_profile_deinit(&p);
    }
    REQUIRE(ctxprof_hcct_start(NULL, &e) == CTXPROF_OK);
    for (i = 0; i < 140000; i++)
        hcct_t_inner();
    REQUIRE(ctxprof_hcct_snapshot(-1, &p, &e) == CTXPROF_OK);
    CHECK(p.total > 30021 + 65536);
    ctxprof_hcct_profile_deinit(&p);
    ctxprof_hcct_shutdown();
    CHECK(ctxprof_hcct_thread() == NULL);
}

/* Shutdown while a pool thread is parked inside instrumented code, and a
   new session: the thread returns through its scope (its old tree was
   freed by the shutdown: a use after free) and runs again, counted in the
   new session once its next tick has let the old tree go. */
typedef struct hcct_parked {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int phase; /* 1 parked, 2 go on, 3 done */
} hcct_parked;

static void hcct_park_set(hcct_parked *k, int phase)
{
    pthread_mutex_lock(&k->mu);
    k->phase = phase;
    pthread_cond_broadcast(&k->cv);
    pthread_mutex_unlock(&k->mu);
}

static void hcct_park_wait(hcct_parked *k, int phase)
{
    pthread_mutex_lock(&k->mu);
    while (k->phase < phase)
        pthread_cond_wait(&k->cv, &k->mu);
    pthread_mutex_unlock(&k->mu);
}

static void *hcct_parked_body(void *arg)
{
    hcct_parked *k = (hcct_parked *)arg;
    int i;
    {
        CTXPROF_HCCT_SCOPE("pool");
        hcct_t_body((void *)(intptr_t)10);
        hcct_park_set(k, 1);
        hcct_park_wait(k, 2);
        hcct_t_body((void *)(intptr_t)100);
    }
    for (i = 0; i < 70000; i++) /* past a tick, which lets the old tree go */
        hcct_t_inner();
    hcct_t_body((void *)(intptr_t)50);
    hcct_park_set(k, 3);
    return NULL;
}

static void hcct_session_shutdown_parked(void)
{
    ctxprof_hcct_desc d = hcct_desc_cct();
    ctxprof_hcct_profile p;
    ctxprof_error e;
    hcct_parked k;
    pthread_t th;
    static const char *const inner[] = {"inner"}, *const outer[] = {"outer"};
    const ctxprof_hcct_pnode *x;
    memset(&e, 0, sizeof e);
    memset(&k, 0, sizeof k);
    pthread_mutex_init(&k.mu, NULL);
    pthread_cond_init(&k.cv, NULL);
    d.flags = CTXPROF_HCCT_ROUTINE_ONLY;
    REQUIRE(ctxprof_hcct_start(&d, &e) == CTXPROF_OK);
    REQUIRE(pthread_create(&th, NULL, hcct_parked_body, &k) == 0);
    hcct_park_wait(&k, 1);
    ctxprof_hcct_shutdown();
    REQUIRE(ctxprof_hcct_start(&d, &e) == CTXPROF_OK);
    hcct_park_set(&k, 2);
    hcct_park_wait(&k, 3);
    REQUIRE(ctxprof_hcct_snapshot(-1, &p, &e) == CTXPROF_OK);
    /* the enters after the restart go to the old tree until its next tick
       (within 65536 of them) lets it go, with that enter; what follows
       counts in a new tree: the last 50 outers, and inners at its root */
    x = hcct_find_path(&p, outer, 1);
    REQUIRE(x != NULL);
    CHECK_EQ(x->count, 50);
    x = hcct_find_path(&p, inner, 1);
    REQUIRE(x != NULL);
    CHECK_GE(x->count, 70000 + 300 - 65536);
    CHECK_LT(x->count, 70000);
    ctxprof_hcct_profile_deinit(&p);
    pthread_join(th, NULL);
    ctxprof_hcct_shutdown();
    pthread_cond_destroy(&k.cv);
    pthread_mutex_destroy(&k.mu);
}

/* An instrumented signal handler that interrupts a thread without a tree
   while it holds the session's lock (a snapshot): the handler's events
   are dropped; it attached, which locked the lock again and hung. In a
   forked child under an alarm. */
static int hcct_usr1_seen;

static void hcct_on_usr1(int sig)
{
    (void)sig;
    hcct_t_inner();
    __atomic_store_n(&hcct_usr1_seen, 1, __ATOMIC_RELEASE);
}

/* a new thread each round, so the handler's first event has no tree */
static void *hcct_snapshotter(void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&hcct_usr1_seen, __ATOMIC_ACQUIRE)) {
        ctxprof_hcct_profile p;
        if (ctxprof_hcct_snapshot(-1, &p, NULL) == CTXPROF_OK)
            ctxprof_hcct_profile_deinit(&p);
    }
    return NULL;
}

static int hcct_signal_in_lock_child(void *arg, void *shared)
{
    ctxprof_hcct_desc d = hcct_desc_cct();
    pthread_t th;
    int round;
    uintptr_t k;
    struct sigaction sa;
    (void)arg;
    (void)shared;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = hcct_on_usr1;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGUSR1, &sa, NULL) != 0 || ctxprof_hcct_start(&d, NULL) != CTXPROF_OK)
        return 1;
    {
        ctxprof_hcct *t = ctxprof_hcct_thread(); /* a tree that takes a while to copy */
        for (k = 1; k <= 20000; k++) {
            ctxprof_hcct_push(t, k, 0);
            ctxprof_hcct_pop(t);
        }
    }
    for (round = 0; round < 50; round++) {
        __atomic_store_n(&hcct_usr1_seen, 0, __ATOMIC_RELEASE);
        if (pthread_create(&th, NULL, hcct_snapshotter, NULL) != 0)
            return 2;
        while (!__atomic_load_n(&hcct_usr1_seen, __ATOMIC_ACQUIRE)) {
            pthread_kill(th, SIGUSR1);
            usleep(200);
        }
        pthread_join(th, NULL);
    }
    ctxprof_hcct_shutdown();
    return 0;
}

static void hcct_session_signal_in_lock(void)
{
    /* 120 s: a hang never ends, and the 50 rounds of snapshots take 2 s of
       CPU under ASan, 13-18 s of wall time on a loaded machine */
    int sig, rc = ctxprof_test_child(hcct_signal_in_lock_child, NULL, NULL, 120, &sig);
    CHECK_EQ(sig, 0);
    CHECK_EQ(rc, 0);
}

/* An instrumented signal handler in a thread without a tree, which it
   interrupted inside malloc (uninstrumented code): attaching would call
   malloc again and deadlock on its lock. The handler's events are
   dropped, and counted in the snapshot's reentrant. In a forked child
   under an alarm. */
typedef struct hcct_sigmalloc_result {
    uint64_t handled, reentrant;
    uint32_t threads;
} hcct_sigmalloc_result;

#define HCCT_SIGMALLOC_ALTSTACK (64u * 1024u)
static uint64_t hcct_sigmalloc_handled;
static int hcct_sigmalloc_running;

static void hcct_sigmalloc_handler(int sig)
{
    (void)sig;
    hcct_t_inner();
    __atomic_add_fetch(&hcct_sigmalloc_handled, 1, __ATOMIC_RELEASE);
}

/* mallocs until its signal was handled; arg: a stack of at least
   SIGSTKSZ bytes to handle it on (sigaltstack), or NULL */
static void *hcct_sigmalloc_body(void *arg)
{
    uint64_t before = __atomic_load_n(&hcct_sigmalloc_handled, __ATOMIC_ACQUIRE);
    size_t i;
    stack_t ss, old; /* old: the sanitizers' own, which they unmap at thread exit */
    if (arg) {
        memset(&ss, 0, sizeof ss);
        ss.ss_sp = arg;
        ss.ss_size = HCCT_SIGMALLOC_ALTSTACK;
        if (sigaltstack(&ss, &old) != 0)
            return arg; /* the child fails */
    }
    __atomic_store_n(&hcct_sigmalloc_running, 1, __ATOMIC_RELEASE);
    for (i = 0; __atomic_load_n(&hcct_sigmalloc_handled, __ATOMIC_ACQUIRE) == before; i++) {
        void *volatile p = malloc(40000 + (i & 7) * 1000); /* beyond the tcache: locked */
        free(p);
    }
    if (arg && sigaltstack(&old, NULL) != 0)
        return arg;
    return NULL;
}

/* arg: the sigaction flags (SA_ONSTACK: each thread handles the signal on
   an alternate stack; SA_NODEFER, with an empty sa_mask, would leave no
   signal blocked in the handler, which ctxprof__hcct_in_handler cannot see
   then: not tested) */
static int hcct_sigmalloc_child(void *arg, void *shared)
{
    hcct_sigmalloc_result *r = (hcct_sigmalloc_result *)shared;
    ctxprof_hcct_desc d = hcct_desc_lss(0, 0);
    ctxprof_hcct_profile p;
    struct sigaction sa;
    int i, flags = *(const int *)arg;
    void *alt = flags & SA_ONSTACK ? malloc(HCCT_SIGMALLOC_ALTSTACK) : NULL;
    if ((flags & SA_ONSTACK) && !alt)
        return 1;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = hcct_sigmalloc_handler;
    sa.sa_flags = flags;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGUSR1, &sa, NULL) != 0 || ctxprof_hcct_start(&d, NULL) != CTXPROF_OK)
        return 1;
    for (i = 0; i < 100; i++) {
        pthread_t th;
        void *ret = NULL;
        __atomic_store_n(&hcct_sigmalloc_running, 0, __ATOMIC_RELEASE);
        if (pthread_create(&th, NULL, hcct_sigmalloc_body, alt) != 0)
            return 2;
        while (!__atomic_load_n(&hcct_sigmalloc_running, __ATOMIC_ACQUIRE))
            sched_yield();
        usleep(100);
        pthread_kill(th, SIGUSR1);
        pthread_join(th, &ret);
        if (ret)
            return 4; /* sigaltstack failed */
    }
    free(alt);
    if (ctxprof_hcct_snapshot(-1, &p, NULL) != CTXPROF_OK)
        return 3;
    r->handled = __atomic_load_n(&hcct_sigmalloc_handled, __ATOMIC_ACQUIRE);
    r->reentrant = p.reentrant;
    r->threads = p.threads;
    ctxprof_hcct_profile_deinit(&p);
    ctxprof_hcct_shutdown();
    return 0;
}

static void hcct_sigmalloc_check(int flags)
{
    hcct_sigmalloc_result *r = (hcct_sigmalloc_result *)ctxprof_test_shared(sizeof *r);
    int sig, rc;
    REQUIRE(r != NULL);
    rc = ctxprof_test_child(hcct_sigmalloc_child, &flags, r, 20, &sig);
    CHECK_EQ(sig, 0); /* SIGALRM: the deadlock */
    CHECK_EQ(rc, 0);
    if (rc == 0) {
        CHECK_EQ(r->handled, 100);
        CHECK_EQ(r->reentrant, 100); /* every handler event, none recorded */
        CHECK_EQ(r->threads, 0);
    }
    munmap(r, sizeof *r);
}

static void hcct_session_signal_in_malloc(void)
{
    hcct_sigmalloc_check(0);
}

/* the same, each handler on its thread's alternate signal stack: the
   signal frame lies there, apart from the interrupted stack */
static void hcct_session_signal_in_malloc_altstack(void)
{
    hcct_sigmalloc_check(SA_ONSTACK);
}

/* A shutdown leaves a running thread its tree, which signals then
   interrupt: the handler's events that interrupt the thread's fast path
   are dropped, and only the thread itself, outside the profiler, frees
   the tree (a handler's slow path freed it under the interrupted fast
   path's writes: a use after free, seen by AddressSanitizer). In a
   forked child, so that a crash is a failure. */
static int hcct_bury_stop;

static __attribute__((noinline)) int hcct_bury_leaf(int x)
{
    CTXPROF_HCCT_SCOPE("leaf");
    return x + 1;
}

static __attribute__((noinline)) int hcct_bury_mid(int x)
{
    CTXPROF_HCCT_SCOPE("mid");
    return hcct_bury_leaf(x) + hcct_bury_leaf(x + 1);
}

static void hcct_bury_handler(int sig)
{
    (void)sig;
    hcct_t_inner();
}

static void *hcct_bury_body(void *arg)
{
    volatile int acc = 0;
    (void)arg;
    while (!__atomic_load_n(&hcct_bury_stop, __ATOMIC_ACQUIRE))
        acc = hcct_bury_mid(acc & 0xffff); /* (no overflow) */
    return NULL;
}

static int hcct_bury_child(void *arg, void *shared)
{
    ctxprof_hcct_desc d = hcct_desc_cct();
    struct sigaction sa;
    pthread_t th;
    int i, k;
    (void)arg;
    (void)shared;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = hcct_bury_handler;
    sigemptyset(&sa.sa_mask);
    d.max_bytes = (size_t)16 << 20;
    if (sigaction(SIGUSR1, &sa, NULL) != 0 || ctxprof_hcct_start(&d, NULL) != CTXPROF_OK ||
        pthread_create(&th, NULL, hcct_bury_body, NULL) != 0)
        return 1;
    for (i = 0; i < 1500; i++) {
        usleep(200);
        ctxprof_hcct_shutdown(); /* the thread's tree is left to it */
        for (k = 0; k < 20; k++)
            pthread_kill(th, SIGUSR1);
        if (ctxprof_hcct_start(&d, NULL) != CTXPROF_OK)
            return 2;
    }
    __atomic_store_n(&hcct_bury_stop, 1, __ATOMIC_RELEASE);
    pthread_join(th, NULL);
    ctxprof_hcct_shutdown();
    return 0;
}

static void hcct_session_shutdown_signals(void)
{
    int sig, rc = ctxprof_test_child(hcct_bury_child, NULL, NULL, 60, &sig);
    CHECK_EQ(sig, 0);
    CHECK_EQ(rc, 0);
}

/* Threads alive at a shutdown that exit with no further event: their
   trees, left to them, are freed at their exit (they leaked, 42 MB each
   with the defaults), so start/shutdown cycles do not grow the memory. */
static pthread_barrier_t hcct_left_barrier;

static void *hcct_left_body(void *arg)
{
    (void)arg;
    hcct_t_inner(); /* attaches */
    pthread_barrier_wait(&hcct_left_barrier); /* the shutdown */
    pthread_barrier_wait(&hcct_left_barrier);
    return NULL; /* no event since */
}

static size_t hcct_left_count(void)
{
    const ctxprof_hcct *t;
    size_t n = 0;
    pthread_mutex_lock(&ctxprof__hcct_mu);
    for (t = ctxprof__hcct_left; t; t = t->next_thread)
        n++;
    pthread_mutex_unlock(&ctxprof__hcct_mu);
    return n;
}

static void hcct_session_shutdown_exit(void)
{
    ctxprof_hcct_desc d = hcct_desc_lss(0, 0);
    size_t left = hcct_left_count(), heap = 0;
    int i;
    d.max_bytes = (size_t)8 << 20;
    REQUIRE_EQ(pthread_barrier_init(&hcct_left_barrier, NULL, 2), 0);
    for (i = 0; i < 10; i++) {
        pthread_t th;
        REQUIRE(ctxprof_hcct_start(&d, NULL) == CTXPROF_OK);
        REQUIRE(pthread_create(&th, NULL, hcct_left_body, NULL) == 0);
        pthread_barrier_wait(&hcct_left_barrier);
        ctxprof_hcct_shutdown();
        CHECK_EQ(hcct_left_count(), left + 1);
        pthread_barrier_wait(&hcct_left_barrier);
        pthread_join(th, NULL);
        CHECK_EQ(hcct_left_count(), left);
        if (i == 0) /* glibc's thread arena and its first tree's pages are kept */
            heap = ctxprof_test_heap_bytes();
    }
    CHECK_HEAP_GREW_AT_MOST(heap, (size_t)1 << 20); /* 9 trees of 8 MB leaked */
    pthread_barrier_destroy(&hcct_left_barrier);
}

/* fork() while another thread names code addresses of a plain tree, with
   no session ever started (tests/data/hcct_fork_symbols.c): fork waits
   for the symbols' mutex, which the child's query hung on when a thread
   of the parent held it (the fork handlers were registered by
   ctxprof_hcct_start only). */
static void hcct_fork_symbols(void)
{
    const char *dir = ctxprof_test_tmpdir();
    char out[600], *txt = NULL;
    size_t len;
    PLAIN_BUILD_ONLY();
    REQUIRE_EQ(ctxprof_test_sh("%s -std=gnu11 -O0 -I. tests/data/hcct_fork_symbols.c -o "
                               "%s/hcct_fork_symbols -lpthread -ldl -lrt",
                               CTXPROF_TEST_CC, dir),
               0);
    REQUIRE_EQ(ctxprof_test_sh("%s/hcct_fork_symbols > %s/fork_symbols.out", dir, dir), 0);
    snprintf(out, sizeof out, "%s/fork_symbols.out", dir);
    REQUIRE(ctxprof__read_file(out, &txt, &len, NULL, NULL) == CTXPROF_OK);
    CHECK_CONTAINS(txt, "child ok\n");
    ctxprof__free(txt, NULL);
}

/* Routine descriptors that the profile names at snapshot time: one on the
   heap is read as it is; one in a library that dlclose unloaded is not
   read (it crashed the snapshot) and shows as "[unloaded 0x...]". */
static void hcct_names_unloaded(void)
{
    const char *d = ctxprof_test_tmpdir();
    char src[600], so[600];
    ctxprof_hcct t;
    ctxprof_hcct_desc desc = hcct_desc_cct();
    ctxprof_hcct_profile p;
    ctxprof_hcct_routine *heap;
    uintptr_t (*get)(void);
    uintptr_t in_lib;
    void *h;
    int i, unloaded = 0, named = 0;
    FILE *f;
    ctxprof__mapping mp;
    PLAIN_BUILD_ONLY();
    snprintf(src, sizeof src, "%s/plug.c", d);
    snprintf(so, sizeof so, "%s/libplug.so", d);
    f = fopen(src, "w");
    REQUIRE(f);
    fputs("#include <stdint.h>\n"
          "struct r { const char *name, *file; int line; };\n"
          "static const struct r plug_routine = {\"plug_work\", \"plug.c\", 3};\n"
          "uintptr_t plug_routine_id(void) { return (uintptr_t)&plug_routine; }\n",
          f);
    fclose(f);
    REQUIRE_EQ(ctxprof_test_sh("%s -O2 -shared -fPIC %s -o %s", CTXPROF_TEST_CC, src, so), 0);
    h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    REQUIRE(h != NULL);
    *(void **)&get = dlsym(h, "plug_routine_id");
    REQUIRE(get != NULL);
    in_lib = get();
    heap = (ctxprof_hcct_routine *)malloc(sizeof *heap);
    REQUIRE(heap != NULL);
    heap->name = strdup("heap_work");
    heap->file = "x.c";
    heap->line = 1;
    REQUIRE_EQ(ctxprof_hcct_init(&t, &desc, NULL), CTXPROF_OK);
    ctxprof_hcct_push(&t, in_lib | CTXPROF_HCCT_NAMED, 0);
    ctxprof_hcct_pop(&t);
    ctxprof_hcct_push(&t, (uintptr_t)heap | CTXPROF_HCCT_NAMED, 0);
    ctxprof_hcct_pop(&t);
    REQUIRE_EQ(dlclose(h), 0);
    REQUIRE_EQ(ctxprof_hcct_query(&t, -1, &p, NULL), CTXPROF_OK);
    for (i = 1; i < (int)p.n; i++) {
        const char *nm = ctxprof_hcct_profile_name(&p, p.nodes[i].name);
        unloaded += strncmp(nm, "[unloaded 0x", 12) == 0;
        named += strcmp(nm, "heap_work") == 0 || strcmp(nm, "plug_work") == 0;
    }
    if (ctxprof__mapping_at(in_lib, &mp, NULL, 0)) { /* musl's dlclose keeps it: still named */
        CHECK_EQ(unloaded, 0);
        CHECK_EQ(named, 2);
    } else {
        CHECK_EQ(unloaded, 1);
        CHECK_EQ(named, 1);
    }
    ctxprof_hcct_profile_deinit(&p);
    ctxprof_hcct_deinit(&t);
    free((void *)heap->name);
    free(heap);
}

/* Thread churn in an LSS session: many threads, each with a shared hot
   set and cold contexts of its own, exit one after the other. The merged
   profile of the exited threads stays about |M| nodes (it kept every
   thread's whole tree), and against the exact CCT of all the streams
   nothing hot is lost and every bound holds, absent included. */
static void hcct_churn_stream(ctxprof_hcct *t, unsigned id)
{
    uint64_t s = 1000 + id;
    int w;
    for (w = 0; w < 2000; w++) {
        unsigned d = 1 + (unsigned)(ctxprof_test_rand(&s) % 4), k;
        for (k = 0; k < d; k++) {
            uint64_t r = ctxprof_test_rand(&s);
            uintptr_t rt = k == 0 || r % 2 ? hcct_zipf(&s) : 100000 + (uintptr_t)id * 64 + (r >> 8) % 64;
            ctxprof_hcct_push(t, rt, 0);
        }
        for (k = 0; k < d; k++)
            ctxprof_hcct_pop(t);
    }
}

static void *hcct_churn_body(void *arg)
{
    ctxprof_hcct *t = ctxprof_hcct_thread();
    if (t)
        hcct_churn_stream(t, (unsigned)(uintptr_t)arg);
    return NULL;
}

static const char *hcct_hex_namer(void *u, uintptr_t r, char *buf, size_t cap)
{
    (void)u;
    snprintf(buf, cap, "r%llx", (unsigned long long)r);
    return buf;
}

static void hcct_session_churn(void)
{
    ctxprof_hcct_desc d = hcct_desc_lss(0.01, 0), db = hcct_desc_cct();
    ctxprof_hcct ref;
    ctxprof_hcct_profile p, pe;
    ctxprof_hcct_accuracy acc;
    ctxprof_error e;
    unsigned i;
    size_t retired;
    memset(&e, 0, sizeof e);
    d.counters = 200;
    d.namer = hcct_hex_namer;
    REQUIRE(ctxprof_hcct_init(&ref, &db, &e) == CTXPROF_OK);
    REQUIRE(ctxprof_hcct_start(&d, &e) == CTXPROF_OK);
    for (i = 0; i < 60; i++) {
        pthread_t th;
        REQUIRE(pthread_create(&th, NULL, hcct_churn_body, (void *)(uintptr_t)i) == 0);
        pthread_join(th, NULL);
        hcct_churn_stream(&ref, i);
    }
    pthread_mutex_lock(&ctxprof__hcct_mu);
    retired = ctxprof__hcct_have_retired ? ctxprof__hcct_retired.p.n : 0;
    pthread_mutex_unlock(&ctxprof__hcct_mu);
    REQUIRE(ctxprof_hcct_snapshot(-1, &p, &e) == CTXPROF_OK);
    REQUIRE(ctxprof_hcct_query(&ref, -1, &pe, &e) == CTXPROF_OK);
    if (getenv("HCCT_TEST_VERBOSE"))
        fprintf(stderr, "  retired profile: %zu nodes; exact CCT %zu; absent %llu of %llu\n",
                retired, pe.n, (unsigned long long)p.absent, (unsigned long long)p.total);
    CHECK_EQ(p.threads, 60);
    CHECK_EQ(p.total, pe.total);
    CHECK_LE(retired, 5 * d.counters); /* |M| and their ancestors (depth <= 4) */
    REQUIRE(ctxprof_hcct_profile_compare(&p, &pe, 0.01, &acc, &e) == CTXPROF_OK);
    CHECK_EQ(acc.missed, 0);
    CHECK_EQ(acc.bound_violations, 0);
    CHECK_EQ(acc.unknown, 0);
    CHECK(acc.hot >= 5);
    ctxprof_hcct_profile_deinit(&p);
    REQUIRE(ctxprof_hcct_snapshot(0.01, &p, &e) == CTXPROF_OK);
    REQUIRE(ctxprof_hcct_profile_compare(&p, &pe, 0.01, &acc, &e) == CTXPROF_OK);
    CHECK_EQ(acc.missed, 0);
    CHECK_EQ(acc.bound_violations, 0);
    ctxprof_hcct_profile_deinit(&p);
    ctxprof_hcct_profile_deinit(&pe);
    ctxprof_hcct_shutdown();
    ctxprof_hcct_deinit(&ref);
}

/* Strict overcommit: the exact CCT reserves 1.25 GiB per thread, which an
   address-space limit (as vm.overcommit_memory = 2 would) refuses. The
   threads go unprofiled, and the profile says so. In a forked child, since
   the limit stays. */
typedef struct hcct_lost_result {
    uint32_t lost, threads;
    int text_ok, ok;
} hcct_lost_result;

static void *hcct_lost_body(void *arg)
{
    ctxprof_hcct *t = ctxprof_hcct_thread();
    (void)arg;
    if (t) { /* not expected: the tree fit after all */
        ctxprof_hcct_push(t, 1, 0);
        ctxprof_hcct_pop(t);
    }
    return NULL;
}

static int hcct_lost_child(void *arg, void *shared)
{
    hcct_lost_result *r = (hcct_lost_result *)shared;
    ctxprof_hcct_desc d = hcct_desc_cct();
    ctxprof_hcct_profile p;
    ctxprof_error e;
    struct rlimit rl;
    char line[256];
    long vm_kb = 0;
    FILE *f = fopen("/proc/self/status", "r");
    char *txt;
    int i;
    (void)arg;
    memset(&e, 0, sizeof e);
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "VmSize:", 7) == 0)
            vm_kb = strtol(line + 7, NULL, 10);
    if (f)
        fclose(f);
    if (vm_kb <= 0)
        return 1;
    /* room for thread stacks and the profile, not for 1.25 GiB */
    rl.rlim_cur = rl.rlim_max = ((rlim_t)vm_kb << 10) + ((rlim_t)512 << 20);
    if (setrlimit(RLIMIT_AS, &rl) != 0)
        return 2;
    d.max_bytes = 0; /* the default reservation */
    if (ctxprof_hcct_start(&d, &e) != CTXPROF_OK)
        return 3;
    for (i = 0; i < 2; i++) {
        pthread_t th;
        if (pthread_create(&th, NULL, hcct_lost_body, NULL) != 0)
            return 4;
        pthread_join(th, NULL);
    }
    if (ctxprof_hcct_snapshot(-1, &p, &e) != CTXPROF_OK)
        return 5;
    r->lost = p.lost_threads;
    r->threads = p.threads;
    txt = hcct_fmt(&p, CTXPROF_HCCT_TEXT);
    r->text_ok = txt && strstr(txt, "# 2 threads not profiled: no memory for a tree") != NULL;
    ctxprof_hcct_text_free(&p, txt);
    ctxprof_hcct_profile_deinit(&p);
    ctxprof_hcct_shutdown();
    r->ok = 1;
    return 0;
}

static void hcct_session_lost(void)
{
    hcct_lost_result *r;
#if defined(CTXPROF_TEST_SANITIZED)
    SKIP("an address-space limit and a sanitizer's shadow memory do not mix");
#endif
    if (ctxprof_test_under_valgrind())
        SKIP("valgrind does not apply RLIMIT_AS to the program's mappings");
    r = (hcct_lost_result *)ctxprof_test_in_child(hcct_lost_child, NULL, sizeof *r);
    REQUIRE(r != NULL);
    CHECK(r->ok);
    CHECK_EQ(r->lost, 2);
    CHECK_EQ(r->threads, 0);
    CHECK(r->text_ok);
    munmap(r, sizeof *r);
}

/* A program profiled without annotations: compiled with
   -finstrument-functions (gcc -O2 tail-calls the exit hook), its threads
   created with pthread_create and no special flags, the session started
   in main and, in a second run, by the CTXPROF_HCCT variable. */
static const char hcct_prog_impl[] =
    "#define _GNU_SOURCE\n"
    "#define CTXPROF_IMPLEMENTATION\n"
    "#define CTXPROF_HCCT_HOOKS\n"
    "#include \"ctxprof_hcct.h\"\n";

static const char hcct_prog_main[] =
    "#include \"ctxprof_hcct.h\"\n"
    "#include <pthread.h>\n"
    "#include <stdio.h>\n"
    "#include <stdlib.h>\n"
    "#include <string.h>\n"
    "__attribute__((noinline)) int g(int x) { return x * 3 + 1; }\n"
    "__attribute__((noinline)) int f(int x) { return g(x) + g(x + 1); }\n"
    "static volatile int sink, ten = 10;\n"
    "static void *body(void *a) { int i; for (i = 0; i < 1000; i++) sink += f(i); return a; }\n"
    "int main(int argc, char **argv);\n"
    "__attribute__((no_instrument_function))\n"
    "static const char *namer(void *u, uintptr_t r, char *b, size_t c)\n"
    "{ (void)u; (void)b; (void)c; return r == (uintptr_t)f ? \"f\" : r == (uintptr_t)g ? \"g\" :\n"
    "  r == (uintptr_t)body ? \"body\" : r == (uintptr_t)main ? \"main\" : NULL; }\n"
    "int main(int argc, char **argv)\n"
    "{\n"
    "    pthread_t th[3]; int i; ctxprof_error e; ctxprof_hcct_profile p;\n"
    "    ctxprof_hcct_desc d; ctxprof_hcct_write_desc w;\n"
    "    memset(&e, 0, sizeof e); memset(&d, 0, sizeof d); memset(&w, 0, sizeof w);\n"
    "    if (argc > 2) {\n"
    "        d.mode = CTXPROF_HCCT_CCT; d.namer = namer;\n"
    "        if (ctxprof_hcct_start(&d, &e)) { puts(e.detail); return 1; }\n"
    "    }\n"
    "    for (i = 0; i < 3; i++) pthread_create(&th[i], NULL, body, NULL);\n"
    "    for (i = 0; i < 3; i++) pthread_join(th[i], NULL);\n"
    "    for (i = 0; i < ten; i++) sink += f(i); /* one call site: not unrolled */\n"
    "    if (argc > 2) {\n"
    "        w.format = CTXPROF_HCCT_COLLAPSED;\n"
    "        if (ctxprof_hcct_snapshot(-1, &p, &e) || ctxprof_hcct_profile_write(&p, argv[1], &w, &e))\n"
    "            { puts(e.detail); return 1; }\n"
    "        printf(\"threads %u\\n\", (unsigned)p.threads);\n"
    "        ctxprof_hcct_profile_deinit(&p);\n"
    "    }\n"
    "    return 0;\n"
    "}\n";


static int hcct_count_lines(const char *text, const char *line)
{
    size_t n = strlen(line);
    int k = 0;
    const char *c = text;
    while (*c) {
        const char *e = strchr(c, '\n');
        size_t l = e ? (size_t)(e - c) : strlen(c);
        k += l == n && strncmp(c, line, n) == 0;
        c += l + (e != NULL);
    }
    return k;
}

/* Builds SOURCE, a program compiled with -finstrument-functions against
   the library's hooks (hcct_prog_impl, compiled once per test run), as the
   test directory's NAME (its path in exe); 0, or -1 if it cannot be built. */
static int hcct_hooks_build(const char *name, const char *source, char *exe, size_t cap)
{
    const char *dir = ctxprof_test_tmpdir();
    char impl[600], mainc[600], cwd[4096];
    if (!getcwd(cwd, sizeof cwd))
        return -1;
    snprintf(impl, sizeof impl, "%s/hooks_impl.c", dir);
    snprintf(mainc, sizeof mainc, "%s/%s.c", dir, name);
    snprintf(exe, cap, "%s/%s", dir, name);
    if (ctxprof_test_put(mainc, source) != 0 ||
        (access(impl, R_OK) != 0 && ctxprof_test_put(impl, hcct_prog_impl) != 0))
        return -1;
    return ctxprof_test_sh("{ [ -f %s.o ] || %s -std=gnu11 -O2 -I%s -c %s -o %s.o; } && %s "
                           "-std=gnu11 -O2 -finstrument-functions -I%s %s %s.o -o %s -lpthread",
                           impl, CTXPROF_TEST_CC, cwd, impl, impl, CTXPROF_TEST_CC, cwd, mainc,
                           impl, exe) == 0
               ? 0
               : -1;
}

/* Builds NAME from SOURCE (hcct_hooks_build), runs it and reads what it
   printed into *txt (ctxprof__free it); 1 when it cannot be built. */
static int hcct_hooks_output(const char *name, const char *source, char **txt)
{
    char exe[600], out[700];
    size_t len;
    *txt = NULL;
    if (hcct_hooks_build(name, source, exe, sizeof exe) != 0)
        return 1;
    snprintf(out, sizeof out, "%s.out", exe);
    if (ctxprof_test_sh("%s > %s", exe, out) != 0)
        return -1;
    return ctxprof__read_file(out, txt, &len, NULL, NULL) == CTXPROF_OK ? 0 : -1;
}

/* The session's state is stored under the lock and read without it by a
   thread's first event (attach): both must be atomic accesses. A program
   whose thread enters while main starts, stops and resumes the session,
   under ThreadSanitizer (skipped where it cannot be built or run). */
static const char hcct_state_prog[] =
    "#define CTXPROF_IMPLEMENTATION\n"
    "#include \"ctxprof_hcct.h\"\n"
    "#include <pthread.h>\n"
    "#include <unistd.h>\n"
    "static int quit;\n"
    "__attribute__((noinline)) static void work(void) { CTXPROF_HCCT_SCOPE(\"work\"); }\n"
    "static void *worker(void *a) {\n"
    "    (void)a;\n"
    "    while (!__atomic_load_n(&quit, __ATOMIC_RELAXED)) work();\n"
    "    return NULL;\n"
    "}\n"
    "int main(void) {\n"
    "    ctxprof_error e = {0};\n"
    "    ctxprof_hcct_desc d = {0};\n"
    "    pthread_t th;\n"
    "    d.mode = CTXPROF_HCCT_CCT;\n"
    "    d.max_bytes = 1 << 20;\n"
    "    pthread_create(&th, NULL, worker, NULL);\n"
    "    usleep(2000);\n"
    "    if (ctxprof_hcct_start(&d, &e)) return 2;\n"
    "    usleep(2000);\n"
    "    ctxprof_hcct_stop();\n"
    "    usleep(2000);\n"
    "    if (ctxprof_hcct_start(NULL, &e)) return 2;\n"
    "    usleep(2000);\n"
    "    __atomic_store_n(&quit, 1, __ATOMIC_RELAXED);\n"
    "    pthread_join(th, NULL);\n"
    "    ctxprof_hcct_shutdown();\n"
    "    return 0;\n"
    "}\n";

static void hcct_session_state_race(void)
{
    const char *dir = ctxprof_test_tmpdir();
    char src[600], exe[600], cwd[4096];
    int rc;
    REQUIRE(getcwd(cwd, sizeof cwd) != NULL);
    snprintf(src, sizeof src, "%s/state_race.c", dir);
    snprintf(exe, sizeof exe, "%s/state_race", dir);
    REQUIRE(ctxprof_test_put(src, hcct_state_prog) == 0);
    if (ctxprof_test_sh("%s -std=gnu11 -O1 -g -fsanitize=thread -I%s %s -o %s -lpthread -ldl "
                        "2> %s.err",
                        CTXPROF_TEST_CC, cwd, src, exe, exe) != 0)
        SKIP("cannot build with -fsanitize=thread");
    rc = ctxprof_test_sh("TSAN_OPTIONS=halt_on_error=1:exitcode=66 %s 2> %s.log", exe, exe);
    if (rc != 0 && rc != 66)
        SKIP("ThreadSanitizer cannot run here");
    CHECK_EQ(rc, 0); /* 66: a data race reported (in state_race.log) */
}

/* A thread's exit when memory runs out: the program below fails the k-th
   allocation that the exiting thread makes after its events (the pthread
   key destructor's copy, merge and reduction of its tree), for every k
   until none fails, in LSS and CCT sessions of two threads. Each run must
   account for both threads (merged, or counted in lost_threads), with a
   total of exactly the merged threads' events, and say so in the text. */
static const char hcct_oom_prog[] =
    "#define _GNU_SOURCE\n"
    "#include <stddef.h>\n"
    "#include <stdint.h>\n"
    "#include <stdlib.h>\n"
    "static int armed, fail_at, nalloc;\n"
    "static void *t_malloc(size_t n)\n"
    "{\n"
    "    if (__atomic_load_n(&armed, __ATOMIC_ACQUIRE) && nalloc++ == fail_at) return NULL;\n"
    "    return malloc(n);\n"
    "}\n"
    "#define CTXPROF_MALLOC(sz, ud) ((void)(ud), t_malloc(sz))\n"
    "#define CTXPROF_FREE(p, ud) ((void)(ud), free(p))\n"
    "#define CTXPROF_IMPLEMENTATION\n"
    "#include \"ctxprof_hcct.h\"\n"
    "#include <pthread.h>\n"
    "#include <stdio.h>\n"
    "#include <string.h>\n"
    "static const char *namer(void *u, uintptr_t r, char *b, size_t c)\n"
    "{ (void)u; snprintf(b, c, \"r%u\", (unsigned)r); return b; }\n"
    "static void *body(void *arg)\n"
    "{\n"
    "    ctxprof_hcct *t = ctxprof_hcct_thread();\n"
    "    uintptr_t k = (uintptr_t)arg, i;\n"
    "    if (!t) return NULL;\n"
    "    for (i = 0; i < 1000; i++) {\n"
    "        ctxprof_hcct_push(t, 1 + i % 7, 0);\n"
    "        ctxprof_hcct_push(t, 10 + i % 13 + k, 0);\n"
    "        ctxprof_hcct_pop(t);\n"
    "        ctxprof_hcct_pop(t);\n"
    "    }\n"
    "    if (k) { nalloc = 0; __atomic_store_n(&armed, 1, __ATOMIC_RELEASE); }\n"
    "    return NULL;\n"
    "}\n"
    "int main(void)\n"
    "{\n"
    "    int mode, k;\n"
    "    for (mode = 0; mode < 2; mode++)\n"
    "        for (k = 0; k < 100000; k++) {\n"
    "            ctxprof_hcct_desc d; ctxprof_hcct_profile p; ctxprof_error e;\n"
    "            ctxprof_hcct_write_desc w; char *txt = NULL; size_t len = 0;\n"
    "            pthread_t th; uintptr_t j;\n"
    "            memset(&d, 0, sizeof d); memset(&e, 0, sizeof e); memset(&w, 0, sizeof w);\n"
    "            d.mode = mode; d.counters = 8; d.namer = namer;\n"
    "            d.max_bytes = (size_t)1 << 20;\n"
    "            if (ctxprof_hcct_start(&d, &e)) { puts(e.detail); return 1; }\n"
    "            fail_at = k;\n"
    "            for (j = 0; j < 2; j++) {\n"
    "                if (pthread_create(&th, NULL, body, (void *)j)) return 2;\n"
    "                pthread_join(th, NULL);\n"
    "            }\n"
    "            __atomic_store_n(&armed, 0, __ATOMIC_RELEASE);\n"
    "            if (ctxprof_hcct_snapshot(-1, &p, &e) ||\n"
    "                ctxprof_hcct_profile_format(&p, &w, &txt, &len, &e))\n"
    "                { puts(e.detail); return 3; }\n"
    "            printf(\"run %d %d threads %u lost %u total %llu said %d\\n\", mode, k,\n"
    "                   (unsigned)p.threads, (unsigned)p.lost_threads,\n"
    "                   (unsigned long long)p.total,\n"
    "                   strstr(txt, \"1 thread not profiled\") != NULL);\n"
    "            ctxprof_hcct_text_free(&p, txt);\n"
    "            ctxprof_hcct_profile_deinit(&p);\n"
    "            ctxprof_hcct_shutdown();\n"
    "            if (nalloc <= k) break; /* nothing failed: every allocation was tried */\n"
    "        }\n"
    "    puts(\"end\");\n"
    "    return 0;\n"
    "}\n";

static void hcct_session_exit_oom(void)
{
    char *txt = NULL, *line;
    size_t len;
    unsigned runs[2] = {0, 0}, lost[2] = {0, 0}, bad = 0;
    int ran = hcct_run_prog("oom_exit", hcct_oom_prog, &txt, &len);
    if (ran == 0)
        SKIP("cannot compile the out-of-memory program");
    REQUIRE(ran > 0);
    CHECK_CONTAINS(txt, "\nend\n");
    for (line = txt; (line = strstr(line, "run ")) != NULL; line++) {
        int mode, k, said;
        unsigned th, lo;
        unsigned long long total;
        if (sscanf(line, "run %d %d threads %u lost %u total %llu said %d", &mode, &k, &th, &lo,
                   &total, &said) != 6 ||
            mode < 0 || mode > 1) {
            bad++;
            continue;
        }
        runs[mode]++;
        lost[mode] += lo;
        /* both threads accounted for, the total only the merged ones' */
        if (th + lo != 2 || lo > 1 || total != 2000ull * th || said != (lo == 1))
            bad++;
    }
    CHECK_EQ(bad, 0);
    /* allocations were failed in the copy and in the merge of each mode
       (and, in LSS, in the reduction, which loses nothing) */
    CHECK(runs[0] > 3 && lost[0] >= 2 && lost[0] < runs[0]);
    CHECK(runs[1] > 3 && lost[1] >= 2 && lost[1] < runs[1]);
    ctxprof__free(txt, NULL);
}

static void hcct_hooks_program(void)
{
    const char *dir = ctxprof_test_tmpdir();
    char exe[600], out[600];
    char *txt = NULL;
    size_t len;
    ctxprof_error e;
    memset(&e, 0, sizeof e);
    snprintf(out, sizeof out, "%s/hooks.folded", dir);
    if (hcct_hooks_build("hooks_prog", hcct_prog_main, exe, sizeof exe) != 0)
        SKIP("cannot compile the hooks program");
    REQUIRE(ctxprof_test_sh("%s %s session > %s.log", exe, out, out) == 0);
    REQUIRE(ctxprof__read_file(out, &txt, &len, NULL, &e) == CTXPROF_OK);
    /* 3 threads x 1000 calls of f, which calls g from two call sites (two
       contexts), and main's 10 calls (main itself was entered before it
       started the session) */
    CHECK_EQ(hcct_count_lines(txt, "body 3"), 1);
    CHECK_EQ(hcct_count_lines(txt, "body;f 3000"), 1);
    CHECK_EQ(hcct_count_lines(txt, "body;f;g 3000"), 2);
    CHECK_EQ(hcct_count_lines(txt, "f 10"), 1);
    CHECK_EQ(hcct_count_lines(txt, "f;g 10"), 2);
    CHECK(strstr(txt, "main") == NULL);
    ctxprof__free(txt, NULL);
    {
        char logp[700];
        snprintf(logp, sizeof logp, "%s.log", out);
        REQUIRE(ctxprof__read_file(logp, &txt, &len, NULL, &e) == CTXPROF_OK);
        CHECK_CONTAINS(txt, "threads 4\n");
        ctxprof__free(txt, NULL);
    }
    /* the environment variable: a text profile at exit, with the totals */
    snprintf(out, sizeof out, "%s/hooks-env.txt", dir);
    REQUIRE(ctxprof_test_sh("CTXPROF_HCCT=out=%s,mode=cct %s", out, exe) == 0);
    REQUIRE(ctxprof__read_file(out, &txt, &len, NULL, &e) == CTXPROF_OK);
    CHECK_CONTAINS(txt, "total 9034 calls"); /* 3 + 3*3000 + 1 + 30 */
    CHECK_CONTAINS(txt, "4 threads");
    /* names from the program's symbols */
    CHECK_CONTAINS(txt, "  main\n");
    CHECK_CONTAINS(txt, "  body\n");
    CHECK_CONTAINS(txt, "      f\n");
    ctxprof__free(txt, NULL);
    /* a bad option is reported, the program still runs */
    REQUIRE(ctxprof_test_sh("CTXPROF_HCCT=bogus=1 %s 2> %s.err", exe, out) == 0);
    {
        char errp[700];
        snprintf(errp, sizeof errp, "%s.err", out);
        REQUIRE(ctxprof__read_file(errp, &txt, &len, NULL, &e) == CTXPROF_OK);
        CHECK_CONTAINS(txt, "ctxprof: CTXPROF_HCCT: bad option 'bogus=1'");
        ctxprof__free(txt, NULL);
    }
    /* so is an output format it does not know (a directory's dot is not one) */
    REQUIRE(ctxprof_test_sh("CTXPROF_HCCT=out=%s/p.xyz %s 2> %s.err", dir, exe, out) == 0);
    {
        char errp[700];
        snprintf(errp, sizeof errp, "%s.err", out);
        REQUIRE(ctxprof__read_file(errp, &txt, &len, NULL, &e) == CTXPROF_OK);
        CHECK_CONTAINS(txt, "p.xyz: unknown format '.xyz'");
        ctxprof__free(txt, NULL);
    }
    snprintf(out, sizeof out, "%s/d.x/prof", dir);
    REQUIRE(ctxprof_test_sh("mkdir -p %s/d.x && CTXPROF_HCCT=out=%s %s", dir, out, exe) == 0);
    REQUIRE(ctxprof__read_file(out, &txt, &len, NULL, &e) == CTXPROF_OK);
    CHECK_CONTAINS(txt, "# ctxprof hcct: "); /* text */
    ctxprof__free(txt, NULL);
}

/* README's tree of one's own under the hooks: init, bind, work, query and
   deinit in main, compiled with -finstrument-functions. The deinit of the
   bound tree left it bound: the next call, or main's own exit hook,
   crashed. With the tree local to main, deinit also keeps main's exit
   hook off it after main's locals are gone. */
static const char hcct_prog_own[] =
    "#include \"ctxprof_hcct.h\"\n"
    "#include <stdio.h>\n"
    "#include <string.h>\n"
    "__attribute__((noinline)) static long fib(int n)\n"
    "{ return n < 2 ? n : fib(n - 1) + fib(n - 2); }\n"
    "int main(int argc, char **argv)\n"
    "{\n"
    "    static ctxprof_hcct st;\n"
    "    ctxprof_hcct at, *t = argc > 1 && strcmp(argv[1], \"auto\") == 0 ? &at : &st;\n"
    "    ctxprof_hcct_profile p;\n"
    "    ctxprof_error e;\n"
    "    long r;\n"
    "    memset(&e, 0, sizeof e);\n"
    "    if (ctxprof_hcct_init(t, NULL, &e) != CTXPROF_OK) return 2;\n"
    "    ctxprof_hcct_bind(t);\n"
    "    r = fib(15);\n"
    "    if (ctxprof_hcct_query(t, -1, &p, &e) != CTXPROF_OK) return 3;\n"
    "    printf(\"counted %d\\n\", p.total > 0);\n"
    "    ctxprof_hcct_profile_deinit(&p);\n"
    "    ctxprof_hcct_deinit(t);\n"
    "    r += fib(5);\n"
    "    printf(\"bound %d\\n\", ctxprof_hcct_bind(NULL) != NULL);\n"
    "    return r == 615 ? 0 : 4;\n"
    "}\n";

static void hcct_hooks_own_tree(void)
{
    char exe[600], out[700], *txt;
    size_t len;
    ctxprof_error e;
    int k;
    PLAIN_BUILD_ONLY();
    memset(&e, 0, sizeof e);
    if (hcct_hooks_build("hooks_own", hcct_prog_own, exe, sizeof exe) != 0)
        SKIP("cannot compile the hooks program");
    for (k = 0; k < 2; k++) {
        const char *mode = k ? "auto" : "static";
        snprintf(out, sizeof out, "%s.%s.out", exe, mode);
        CHECK_EQ(ctxprof_test_sh("%s %s > %s", exe, mode, out), 0);
        REQUIRE(ctxprof__read_file(out, &txt, &len, NULL, &e) == CTXPROF_OK);
        CHECK_STR(txt, "counted 1\nbound 0\n");
        ctxprof__free(txt, NULL);
    }
}

/* For the programs below: the child of profile node x named name, or 0. */
#define HCCT_PROG_CHILD                                                                            \
    "__attribute__((no_instrument_function))\n"                                                    \
    "static unsigned child(const ctxprof_hcct_profile *p, unsigned x, const char *name)\n"          \
    "{ unsigned c; for (c = p->nodes[x].child; c; c = p->nodes[c].sibling)\n"                      \
    "  if (!strcmp(ctxprof_hcct_profile_name(p, c), name)) return c; return 0; }\n"

/* The hooks in a program compiled with -finstrument-functions (gcc -O2
   tail-calls the exit hook): longjmp out of 21 nested calls, 100 times,
   then a call from the frame jumped to; recursion 100,000 deep on a thread
   with a big stack. The program checks its own profile and prints what it
   found. */
static const char hcct_prog_jmp[] =
    "#include \"ctxprof_hcct.h\"\n"
    "#include <pthread.h>\n"
    "#include <setjmp.h>\n"
    "#include <stdio.h>\n"
    "#include <string.h>\n"
    "static jmp_buf jb;\n"
    "static volatile int sink;\n"
    "__attribute__((noinline)) void deep(int k) { if (k == 0) longjmp(jb, 1); deep(k - 1); sink++; }\n"
    "__attribute__((noinline)) void leaf(void) { sink++; }\n"
    "__attribute__((noinline)) void top(void)\n"
    "{ volatile int i; for (i = 0; i < 100; i++) { if (setjmp(jb) == 0) deep(20); leaf(); } }\n"
    "__attribute__((noinline)) unsigned long rec(unsigned long k)\n"
    "{ if (k == 0) return 0; return 1 + rec(k - 1); }\n"
    "static ctxprof_hcct_stats rst;\n"
    "static void *big(void *a)\n"
    "{ sink += (int)rec(100000); ctxprof_hcct_stats_get(ctxprof_hcct_thread(), &rst); return a; }\n"
    "__attribute__((no_instrument_function))\n"
    "static const char *namer(void *u, uintptr_t r, char *b, size_t c)\n"
    "{ (void)u; (void)b; (void)c; return r == (uintptr_t)deep ? \"deep\" : r == (uintptr_t)leaf ?\n"
    "  \"leaf\" : r == (uintptr_t)top ? \"top\" : r == (uintptr_t)rec ? \"rec\" : r == (uintptr_t)big\n"
    "  ? \"big\" : NULL; }\n"
    HCCT_PROG_CHILD
    "int main(void)\n"
    "{\n"
    "    ctxprof_error e; ctxprof_hcct_desc d; ctxprof_hcct_profile p; ctxprof_hcct_stats st;\n"
    "    pthread_t th; pthread_attr_t at; unsigned x, n, bad = 0;\n"
    "    memset(&e, 0, sizeof e); memset(&d, 0, sizeof d);\n"
    "    d.mode = CTXPROF_HCCT_CCT; d.namer = namer; d.flags = CTXPROF_HCCT_ROUTINE_ONLY;\n"
    "    if (ctxprof_hcct_start(&d, &e)) { puts(e.detail); return 1; }\n"
    "    top();\n"
    "    ctxprof_hcct_stats_get(ctxprof_hcct_thread(), &st);\n"
    "    printf(\"jmp: depth %zu unwound %llu unmatched %llu\\n\", st.depth,\n"
    "           (unsigned long long)st.unwound, (unsigned long long)st.unmatched);\n"
    "    pthread_attr_init(&at); pthread_attr_setstacksize(&at, (size_t)256 << 20);\n"
    "    if (pthread_create(&th, &at, big, NULL)) return 1;\n"
    "    pthread_join(th, NULL);\n"
    "    printf(\"rec: peak %zu depth %zu unwound %llu unmatched %llu dropped %llu\\n\",\n"
    "           rst.depth_peak, rst.depth, (unsigned long long)rst.unwound,\n"
    "           (unsigned long long)rst.unmatched, (unsigned long long)rst.dropped_depth);\n"
    "    if (ctxprof_hcct_snapshot(-1, &p, &e)) { puts(e.detail); return 1; }\n"
    "    x = child(&p, 0, \"top\");\n"
    "    printf(\"top %llu leaf %llu\", (unsigned long long)(x ? p.nodes[x].count : 0),\n"
    "           (unsigned long long)(x && child(&p, x, \"leaf\") ? p.nodes[child(&p, x, \"leaf\")].count : 0));\n"
    "    for (n = 0; x && (x = child(&p, x, \"deep\")) != 0; n++) bad += p.nodes[x].count != 100;\n"
    "    printf(\" deep levels %u bad %u\", n, bad);\n"
    "    x = child(&p, 0, \"big\"); bad = 0;\n"
    "    for (n = 0; x && (x = child(&p, x, \"rec\")) != 0; n++) bad += p.nodes[x].count != 1;\n"
    "    printf(\" rec levels %u bad %u total %llu nodes %zu\\n\", n, bad,\n"
    "           (unsigned long long)p.total, p.n);\n"
    "    ctxprof_hcct_profile_deinit(&p);\n"
    "    return 0;\n"
    "}\n";

static void hcct_hooks_longjmp_deep(void)
{
    char *txt = NULL;
    int rc = hcct_hooks_output("hooks2_prog", hcct_prog_jmp, &txt);
    if (rc > 0)
        SKIP("cannot compile the hooks program");
    REQUIRE(rc == 0);
    /* each longjmp skips 21 frames; they are discarded at the next call
       (leaf) from top, so the shadow stack ends empty and no exit misses */
    CHECK_CONTAINS(txt, "jmp: depth 0 unwound 2100 unmatched 0\n");
    /* big's frame is still on the stack after rec returns */
    CHECK_CONTAINS(txt, "rec: peak 100002 depth 1 unwound 0 unmatched 0 dropped 0\n");
    /* top once, leaf 100 times under top (not under a dead deep), 21
       levels of deep 100 times each; 100,001 levels of rec once each */
    CHECK_CONTAINS(txt, "top 1 leaf 100 deep levels 21 bad 0 rec levels 100001 bad 0 "
                        "total 102203 nodes 100026\n");
    ctxprof__free(txt, NULL);
}

/* Recursion that the compiler inlines into itself (gcc -O2 does, for a
   small static function): each inlined copy calls the hooks from its own
   place in the same machine frame, with the outer call's site. Such a
   copy nests; a new call at the same place (after a longjmp out of the
   recursion) replaces the dead frame. The program checks the calls per
   recursion depth against a plain recursion that counts them. */
static const char hcct_prog_inl[] =
    "#include \"ctxprof_hcct.h\"\n"
    "#include <setjmp.h>\n"
    "#include <stdio.h>\n"
    "#include <string.h>\n"
    "static volatile int sink;\n"
    "static jmp_buf jb;\n"
    "static unsigned leaves, trigger;\n"
    "static int fib(int n) { if (n < 2) { sink++; return n; } return fib(n - 1) + fib(n - 2); }\n"
    "static int fibj(int n)\n"
    "{ if (n < 2) { if (++leaves == trigger) longjmp(jb, 1); return n; }\n"
    "  return fibj(n - 1) + fibj(n - 2); }\n"
    "__attribute__((noinline)) void run(void) { sink += fib(16); }\n"
    "__attribute__((noinline)) void jumps(void)\n"
    "{ volatile int i; for (i = 0; i < 50; i++) { trigger = leaves + 1 + (unsigned)(i * 7) % 89;\n"
    "  if (setjmp(jb) == 0) sink += fibj(10); } }\n"
    "__attribute__((no_instrument_function))\n"
    "static void expect(int n, int d, unsigned long *c)\n"
    "{ c[d]++; if (n >= 2) { expect(n - 1, d + 1, c); expect(n - 2, d + 1, c); } }\n"
    "__attribute__((no_instrument_function))\n"
    "static const char *namer(void *u, uintptr_t r, char *b, size_t c)\n"
    "{ (void)u; (void)b; (void)c; return r == (uintptr_t)fib ? \"fib\" : r == (uintptr_t)fibj ?\n"
    "  \"fibj\" : r == (uintptr_t)run ? \"run\" : r == (uintptr_t)jumps ? \"jumps\" : NULL; }\n"
    HCCT_PROG_CHILD
    "int main(void)\n"
    "{\n"
    "    ctxprof_error e; ctxprof_hcct_desc d; ctxprof_hcct_profile p; ctxprof_hcct_stats st;\n"
    "    unsigned long want[32]; unsigned x, n, bad = 0;\n"
    "    memset(&e, 0, sizeof e); memset(&d, 0, sizeof d); memset(want, 0, sizeof want);\n"
    "    d.mode = CTXPROF_HCCT_CCT; d.namer = namer; d.flags = CTXPROF_HCCT_ROUTINE_ONLY;\n"
    "    if (ctxprof_hcct_start(&d, &e)) { puts(e.detail); return 1; }\n"
    "    run();\n"
    "    jumps();\n"
    "    ctxprof_hcct_stats_get(ctxprof_hcct_thread(), &st);\n"
    "    printf(\"depth %zu unmatched %llu\", st.depth, (unsigned long long)st.unmatched);\n"
    "    if (ctxprof_hcct_snapshot(-1, &p, &e)) { puts(e.detail); return 1; }\n"
    "    expect(16, 0, want);\n"
    "    x = child(&p, 0, \"run\");\n"
    "    for (n = 0; x && (x = child(&p, x, \"fib\")) != 0; n++) bad += p.nodes[x].count != want[n];\n"
    "    printf(\" fib levels %u bad %u\", n, bad);\n"
    "    x = child(&p, 0, \"jumps\");\n"
    "    x = x ? child(&p, x, \"fibj\") : 0;\n"
    "    printf(\" fibj %llu\\n\", (unsigned long long)(x ? p.nodes[x].count : 0));\n"
    "    ctxprof_hcct_profile_deinit(&p);\n"
    "    return 0;\n"
    "}\n";

static void hcct_hooks_inline_recursion(void)
{
    char *txt = NULL;
    int rc = hcct_hooks_output("hooks3_prog", hcct_prog_inl, &txt);
    if (rc > 0)
        SKIP("cannot compile the hooks program");
    REQUIRE(rc == 0);
    /* fib(16) called once: 16 levels, each with its calls; fibj called 50
       times from jumps, whatever its longjmps skipped */
    CHECK_CONTAINS(txt, "depth 0 unmatched 0 fib levels 16 bad 0 fibj 50\n");
    ctxprof__free(txt, NULL);
}

/* A C++ program (tests/data/hcct_cxx.cpp, built with the C++ compiler of
   this configuration) profiled whole with the hooks: the collapsed stacks
   name a member function and a template instance as C++ source spells
   them, not as their symbols (_ZN2ns6Widget4workEi). */
static void hcct_hooks_cxx(void)
{
    const char *d = ctxprof_test_tmpdir();
    const char *cxx = strstr(CTXPROF_TEST_CC, "clang") ? "clang++" : "g++";
    char exe[600], out[700], *txt;
    size_t len;
    PLAIN_BUILD_ONLY();
    REQUIRE_EQ(hcct_hooks_build("hooks_cxx_unused", "int main(void) { return 0; }\n", exe,
                                sizeof exe),
               0); /* the hooks' implementation object, hooks_impl.c.o */
    snprintf(exe, sizeof exe, "%s/hooks_cxx", d);
    snprintf(out, sizeof out, "%s/hooks_cxx.folded", d);
    REQUIRE_EQ(ctxprof_test_sh("%s -O2 -finstrument-functions tests/data/hcct_cxx.cpp "
                               "%s/hooks_impl.c.o -o %s -lpthread && CTXPROF_HCCT=out=%s %s > "
                               "/dev/null",
                               cxx, d, exe, out, exe),
               0);
    REQUIRE_EQ(ctxprof__read_file(out, &txt, &len, NULL, NULL), CTXPROF_OK);
    CHECK_CONTAINS(txt, "main;ns::Widget::work(int) 1000\n");
    CHECK_CONTAINS(txt, "main;long twice<long>(long) 1000\n");
    ctxprof__free(txt, NULL);
}

/* fork() while threads come and go (each exiting thread merges its tree
   under the session's lock): every child writes its profile at exit
   (CTXPROF_HCCT with %p) and none waits forever for a lock that a thread
   of the parent held at the fork. */
static const char hcct_prog_fork[] =
    "#include <pthread.h>\n"
    "#include <signal.h>\n"
    "#include <stdio.h>\n"
    "#include <stdlib.h>\n"
    "#include <sys/wait.h>\n"
    "#include <unistd.h>\n"
    "__attribute__((noinline)) int w(int x) { return x + 1; }\n"
    "static void *body(void *a) { int s = 0, i; for (i = 0; i < 50; i++) s += w(i);\n"
    "  return (void *)(long)s; }\n"
    "static void *spawner(void *a)\n"
    "{ for (;;) { pthread_t t; pthread_create(&t, 0, body, 0); pthread_join(t, 0); } return a; }\n"
    "int main(void)\n"
    "{\n"
    "    pthread_t s1, s2; int k, hung = 0;\n"
    "    pthread_create(&s1, 0, spawner, 0); pthread_create(&s2, 0, spawner, 0);\n"
    "    for (k = 0; k < 60; k++) {\n"
    "        int st, t, done = 0; pid_t p = fork();\n"
    "        if (p == 0) { w(1); exit(0); }\n"
    "        for (t = 0; t < 2000 && !done; t++) {\n"
    "            if (waitpid(p, &st, WNOHANG) == p) done = 1; else usleep(1000); }\n"
    "        if (!done) { hung++; kill(p, SIGKILL); waitpid(p, &st, 0); }\n"
    "    }\n"
    "    printf(\"hung %d\\n\", hung); fflush(stdout);\n"
    "    _exit(0);\n"
    "}\n";

static void hcct_hooks_fork(void)
{
    const char *dir = ctxprof_test_tmpdir();
    char exe[600], out[600];
    char *txt = NULL;
    size_t len;
    ctxprof_error e;
    memset(&e, 0, sizeof e);
    snprintf(out, sizeof out, "%s/hooks4.out", dir);
    if (hcct_hooks_build("hooks4_prog", hcct_prog_fork, exe, sizeof exe) != 0)
        SKIP("cannot compile the hooks program");
    REQUIRE(ctxprof_test_sh("mkdir -p %s/fork && CTXPROF_HCCT=out=%s/fork/f.%%p.folded %s > %s &&"
                            " ls %s/fork | wc -l >> %s",
                            dir, dir, exe, out, dir, out) == 0);
    REQUIRE(ctxprof__read_file(out, &txt, &len, NULL, &e) == CTXPROF_OK);
    CHECK_CONTAINS(txt, "hung 0\n60\n"); /* 60 children, each with its profile */
    ctxprof__free(txt, NULL);
}

/* Hand-written instrumentation: names from the macros, the portable form. */
static __attribute__((noinline)) int hcct_m_leaf(int x)
{
    CTXPROF_HCCT_ENTER(s, "m_leaf");
    x = x * 2;
    CTXPROF_HCCT_EXIT(s);
    return x;
}

static __attribute__((noinline)) int hcct_m_mid(int x)
{
    CTXPROF_HCCT_SCOPE("m_mid");
    return hcct_m_leaf(x) + hcct_m_leaf(x + 1);
}

static void hcct_macros(void)
{
    ctxprof_hcct t;
    ctxprof_hcct_desc d = hcct_desc_cct();
    ctxprof_hcct_profile p;
    ctxprof_error e;
    static const char *const path[] = {"m_mid", "m_leaf"};
    const ctxprof_hcct_pnode *x;
    int i, s = 0;
    memset(&e, 0, sizeof e);
    d.flags = CTXPROF_HCCT_ROUTINE_ONLY;
    REQUIRE(ctxprof_hcct_init(&t, &d, &e) == CTXPROF_OK);
    CHECK(ctxprof_hcct_bind(&t) == NULL);
    for (i = 0; i < 50; i++)
        s += hcct_m_mid(i);
    CHECK(ctxprof_hcct_bind(NULL) == &t);
    CHECK_EQ(s, 5000);
    hcct_m_mid(1); /* unbound: no effect, no crash */
    REQUIRE(ctxprof_hcct_query(&t, -1, &p, &e) == CTXPROF_OK);
    x = hcct_find_path(&p, path, 2);
    REQUIRE(x != NULL);
    CHECK_EQ(x->count, 100);
    CHECK_EQ(p.nodes[p.nodes[0].child].count, 50);
    CHECK(t.top == t.frames);
    ctxprof_hcct_profile_deinit(&p);
    ctxprof_hcct_deinit(&t);
}

/* Entries at one stack address and call site, as from callees inlined into
   one machine frame (macros pass their scope variable as the entry point):
   the same routine from another scope nests (recursion inlined into
   itself); the same scope again is a new call after a longjmp, which
   discards the frames from it up; an exit finds its frame under inlined
   callees that a longjmp left. */
static void hcct_same_frame(void)
{
    static const ctxprof_hcct_routine rr = {"r", __FILE__, __LINE__};
    static const ctxprof_hcct_routine rq = {"q", __FILE__, __LINE__};
    static const char *const rrr[] = {"r", "r", "r"}, *const rrq[] = {"r", "r", "q"};
    static const char *const rq_[] = {"r", "q"};
    const uintptr_t r = (uintptr_t)&rr | CTXPROF_HCCT_NAMED, q = (uintptr_t)&rq | CTXPROF_HCCT_NAMED;
    const uintptr_t sp = (uintptr_t)__builtin_frame_address(0) - 4096, site = 0x1000;
    ctxprof_hcct t;
    ctxprof_hcct_desc d = hcct_desc_cct();
    ctxprof_hcct_profile p;
    ctxprof_hcct_stats st;
    ctxprof_hcct_scope s[4];
    ctxprof_error e;
    const ctxprof_hcct_pnode *x;
    memset(&e, 0, sizeof e);
    d.flags = CTXPROF_HCCT_ROUTINE_ONLY;
    REQUIRE(ctxprof_hcct_init(&t, &d, &e) == CTXPROF_OK);
    ctxprof_hcct_bind(&t);
    /* r, with r inlined into it twice over */
    ctxprof_hcct_scope_begin(&s[0], r, site, sp);
    ctxprof_hcct_scope_begin(&s[1], r, site, sp);
    ctxprof_hcct_scope_begin(&s[2], r, site, sp);
    ctxprof_hcct_scope_end(&s[2]);
    ctxprof_hcct_scope_end(&s[1]);
    ctxprof_hcct_scope_end(&s[0]);
    /* r > r (inlined) > q (a real call), then s[1] again after a longjmp */
    ctxprof_hcct_scope_begin(&s[0], r, site, sp);
    ctxprof_hcct_scope_begin(&s[1], r, site, sp);
    ctxprof_hcct_scope_begin(&s[3], q, site + 8, sp - 64);
    ctxprof_hcct_scope_begin(&s[1], r, site, sp);
    ctxprof_hcct_scope_end(&s[1]);
    /* q inlined into r, left by a longjmp; then r exits */
    ctxprof_hcct_scope_begin(&s[2], q, site, sp);
    ctxprof_hcct_scope_end(&s[0]);
    ctxprof_hcct_bind(NULL);
    ctxprof_hcct_stats_get(&t, &st);
    CHECK_EQ(st.depth, 0);
    CHECK_EQ(st.unmatched, 0);
    CHECK_EQ(st.unwound, 3); /* q and the first s[1] at the re-entry, the inlined q at r's exit */
    REQUIRE(ctxprof_hcct_query(&t, -1, &p, &e) == CTXPROF_OK);
    CHECK_EQ(p.total, 8);
    x = hcct_find_path(&p, rrr, 1);
    CHECK(x != NULL && x->count == 2);
    x = hcct_find_path(&p, rrr, 2);
    CHECK(x != NULL && x->count == 3);
    x = hcct_find_path(&p, rrr, 3);
    CHECK(x != NULL && x->count == 1);
    x = hcct_find_path(&p, rrq, 3);
    CHECK(x != NULL && x->count == 1);
    x = hcct_find_path(&p, rq_, 2);
    CHECK(x != NULL && x->count == 1);
    ctxprof_hcct_profile_deinit(&p);
    ctxprof_hcct_deinit(&t);
}

/* ---- robustness: file faults, bounds under all-new contexts, signals ---- */

typedef struct hcct_fault_out {
    const ctxprof_hcct_profile *p;
    int format;
} hcct_fault_out;

static int hcct_fault_write(void *arg, const char *path, char *msg, size_t cap)
{
    const hcct_fault_out *o = (const hcct_fault_out *)arg;
    ctxprof_hcct_write_desc d;
    ctxprof_error e;
    memset(&d, 0, sizeof d);
    memset(&e, 0, sizeof e);
    d.format = o->format;
    return ctxprof_test_saved(ctxprof_hcct_profile_write(o->p, path, &d, &e), e.detail, msg, cap);
}

/* The exact profile of `contexts` contexts two deep (routines 1..7 over 1..). */
static int hcct_fault_profile(ctxprof_hcct_profile *p, int contexts)
{
    ctxprof_hcct t;
    ctxprof_hcct_desc d = hcct_desc_cct();
    ctxprof_error e;
    int i, rc;
    memset(&e, 0, sizeof e);
    if (ctxprof_hcct_init(&t, &d, &e) != CTXPROF_OK)
        return -1;
    for (i = 0; i < contexts; i++) {
        ctxprof_hcct_push(&t, (uintptr_t)(1 + i % 7), 0);
        ctxprof_hcct_push(&t, (uintptr_t)(100 + i), 0);
        ctxprof_hcct_pop(&t);
        ctxprof_hcct_pop(&t);
    }
    rc = ctxprof_hcct_query(&t, -1, p, &e);
    ctxprof_hcct_deinit(&t);
    return rc;
}

/* Writing a profile over an existing one, binary and text: cut at every
   byte offset, on a full disk, into /dev/full. Every failure says why and
   the old profile stays whole (the binary one still reads back). */
static void hcct_robust_files(void)
{
    ctxprof_hcct_profile small, big, back;
    hcct_fault_out o;
    ctxprof_error e;
    char path[512], fs[512];
    const char *d = ctxprof_test_tmpdir();
    size_t cut = 0;
    unsigned full;
    int k;
    static const int formats[] = {CTXPROF_HCCT_BINARY, CTXPROF_HCCT_TEXT};
    memset(&e, 0, sizeof e);
    memset(&back, 0, sizeof back);
    snprintf(path, sizeof path, "%s/fault.hcct", d);
    snprintf(fs, sizeof fs, "%s/fault-fs", d);
    REQUIRE_EQ(hcct_fault_profile(&small, 5), CTXPROF_OK);
    REQUIRE_EQ(hcct_fault_profile(&big, 150), CTXPROF_OK);
    for (k = 0; k < 2; k++) {
        o.format = formats[k];
        o.p = &small;
        REQUIRE_EQ(hcct_fault_write(&o, path, e.detail, sizeof e.detail), CTXPROF_OK);
        o.p = &big;
        cut += ctxprof_test_torn_writes(path, hcct_fault_write, &o);
    }
    /* a full disk under a binary profile; it still reads back */
    o.format = CTXPROF_HCCT_BINARY;
    o.p = &small;
    REQUIRE_EQ(hcct_fault_write(&o, path, e.detail, sizeof e.detail), CTXPROF_OK);
    o.p = &big;
    full = ctxprof_test_disk_full(fs, path, hcct_fault_write, &o);
    printf("  hcct: profile writes cut at %zu offsets, %u saves refused by a full disk\n", cut,
           full);
    REQUIRE_EQ(ctxprof_hcct_profile_read(&back, path, NULL, &e), CTXPROF_OK);
    CHECK_EQ(back.n, small.n);
    CHECK_EQ(back.total, small.total);
    CHECK_EQ(hcct_fault_write(&o, "/dev/full", e.detail, sizeof e.detail), CTXPROF_ERR_SYS);
    CHECK_CONTAINS(e.detail, strerror(ENOSPC));
    ctxprof_hcct_profile_deinit(&back);
    ctxprof_hcct_profile_deinit(&small);
    ctxprof_hcct_profile_deinit(&big);
}

/* Adversarial streams where almost every event is a new context, deeper
   than max_depth: the node memory stays within max_bytes (nothing is
   allocated after init but shadow-stack frames), frames past max_depth and
   contexts past the node bound are counted exactly, and the loss shows in
   the profile. */
static void hcct_robust_bounds(void)
{
    int mode;
    for (mode = 0; mode < 2; mode++) {
        ctxprof_hcct t;
        ctxprof_hcct_desc d = mode ? hcct_desc_cct() : hcct_desc_lss(0.01, 0);
        ctxprof_hcct_stats st;
        ctxprof_hcct_profile p;
        ctxprof_error e;
        uint64_t rng = 5, events = 0, deep = 0;
        uintptr_t next_id = 1;
        size_t heap;
        int i, k;
        memset(&e, 0, sizeof e);
        d.counters = mode ? 0 : 256;
        /* CCT: 2000 nodes; LSS: |M| + 3 + 100, less than |M| plus a deep path */
        d.max_bytes = mode ? 2000 * (size_t)36 : (256 + 3 + 100) * (size_t)48;
        d.max_depth = 200;
        REQUIRE(ctxprof_hcct_init(&t, &d, &e) == CTXPROF_OK);
        heap = ctxprof_test_heap_bytes();
        for (i = 0; i < 3000; i++) {
            int depth = 1 + (int)(ctxprof_test_rand(&rng) % 300);
            for (k = 0; k < depth; k++)
                ctxprof_hcct_push(&t, next_id++, 0); /* never seen before */
            events += (uint64_t)depth;
            deep += depth > 199 ? (uint64_t)(depth - 199) : 0;
            for (k = 0; k < depth; k++)
                ctxprof_hcct_pop(&t);
        }
        ctxprof_hcct_stats_get(&t, &st);
        CHECK_EQ(st.events, events);
        CHECK_EQ(st.dropped_depth, deep);
        CHECK_EQ(st.total + st.dropped_depth, events);
        CHECK(st.dropped_nodes > 0);
        CHECK_LE(st.nodes_peak + 1, t.max_nodes);
        CHECK_LE(st.bytes, st.bytes_bound);
        CHECK_EQ(st.depth, 0);
        CHECK_EQ(st.unmatched, 0);
        /* node storage was reserved at init; only frames grow (to max_depth) */
        CHECK_HEAP_GREW_AT_MOST(heap, 200 * sizeof(ctxprof_hcct_frame) + 4096);
        REQUIRE(ctxprof_hcct_query(&t, -1, &p, &e) == CTXPROF_OK);
        CHECK_EQ(p.dropped, st.dropped_nodes + st.dropped_depth);
        {
            static const char *const dp[] = {"[dropped: node bound]"};
            const ctxprof_hcct_pnode *x = hcct_find_path(&p, dp, 1);
            CHECK(x != NULL);
            if (x && mode)
                CHECK_EQ(x->count, st.dropped_nodes);
        }
        printf("  hcct %s: %llu events, %llu new contexts past the node bound, %llu frames "
               "past max_depth; %zu bytes of %zu\n",
               mode ? "cct" : "lss", (unsigned long long)events,
               (unsigned long long)st.dropped_nodes, (unsigned long long)st.dropped_depth,
               st.bytes, st.bytes_bound);
        ctxprof_hcct_profile_deinit(&p);
        ctxprof_hcct_deinit(&t);
    }
}

/* A storm of queued real-time signals whose handler records events on the
   same tree the interrupted code is updating, while that code also calls
   malloc and stdio. The handler's events are counted, or dropped and
   counted when they interrupt the profiler's slow path: the totals add up
   exactly and nothing deadlocks (a forked child under an alarm). */
typedef struct hcct_storm {
    uint64_t handled, sent, refused, main_events, total, reentrant, unmatched, depth;
    uint64_t prof_reentrant; /* what the tree's profile says */
    int ok, text_says;       /* its text output names the dropped events */
} hcct_storm;

static ctxprof_hcct *hcct_storm_tree;
static uint64_t hcct_storm_handled;

/* An instrumented handler: enter and exit at its own frame address, as the
   hooks and CTXPROF_HCCT_SCOPE do. */
static void hcct_storm_handler(int sig)
{
    uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
    (void)sig;
    /* hooks' events and explicit ones, by turns (the signal is blocked
       while its handler runs) */
    if (__atomic_load_n(&hcct_storm_handled, __ATOMIC_ACQUIRE) % 2) {
        ctxprof_hcct_enter(hcct_storm_tree, 999, 0, sp);
        ctxprof_hcct_exit(hcct_storm_tree, 999, sp);
    } else {
        ctxprof_hcct_push(hcct_storm_tree, 998, 0);
        ctxprof_hcct_pop(hcct_storm_tree);
    }
    __atomic_add_fetch(&hcct_storm_handled, 1, __ATOMIC_RELEASE);
}

static int hcct_storm_child(void *arg, void *shared)
{
    hcct_storm *r = (hcct_storm *)shared;
    ctxprof_hcct t;
    ctxprof_hcct_desc d = hcct_desc_lss(0.05, 0);
    ctxprof_hcct_stats st;
    ctxprof_error e;
    ctxprof_test_storm storm;
    pthread_t th;
    struct sigaction sa;
    FILE *null = fopen("/dev/null", "w");
    uint64_t rng = 3;
    char line[128];
    (void)arg;
    memset(&e, 0, sizeof e);
    memset(&storm, 0, sizeof storm);
    d.counters = 32; /* replacements and pruning: slow paths all the time */
    if (!null || ctxprof_hcct_init(&t, &d, &e) != CTXPROF_OK)
        return 1;
    hcct_storm_tree = &t;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = hcct_storm_handler;
    sigemptyset(&sa.sa_mask);
    storm.signo = SIGRTMIN + 3;
    storm.n = CTXPROF_TEST_STORM_SIGNALS;
    storm.ntargets = 1;
    storm.targets[0] = pthread_self();
    storm.handled = &hcct_storm_handled;
    if (sigaction(storm.signo, &sa, NULL) != 0 ||
        pthread_create(&th, NULL, ctxprof_test_storm_run, &storm) != 0)
        return 2;
    while (!__atomic_load_n(&storm.done, __ATOMIC_ACQUIRE) || r->main_events < 100000) {
        void *m = malloc(16 + ctxprof_test_rand(&rng) % 4096);
        ctxprof_hcct_push(&t, (uintptr_t)(1 + ctxprof_test_rand(&rng) % 200), 0);
        ctxprof_hcct_push(&t, (uintptr_t)(1 + ctxprof_test_rand(&rng) % 50), 0);
        snprintf(line, sizeof line, "%p %llu\n", m, (unsigned long long)r->main_events);
        fputs(line, null);
        ctxprof_hcct_pop(&t);
        ctxprof_hcct_pop(&t);
        free(m);
        r->main_events += 2;
    }
    pthread_join(th, NULL);
    getpid(); /* a system call: every signal still pending is handled on return */
    fclose(null);
    ctxprof_hcct_stats_get(&t, &st);
    r->handled = __atomic_load_n(&hcct_storm_handled, __ATOMIC_ACQUIRE);
    r->sent = storm.sent[0];
    r->refused = storm.refused;
    r->total = st.total;
    r->reentrant = st.reentrant;
    r->unmatched = st.unmatched;
    r->depth = st.depth;
    r->ok = hcct_check(&t, st.total) == 0;
    {
        ctxprof_hcct_profile p;
        char *txt, want[96];
        if (ctxprof_hcct_query(&t, 0, &p, &e) != CTXPROF_OK)
            return 3;
        r->prof_reentrant = p.reentrant;
        txt = hcct_fmt(&p, CTXPROF_HCCT_TEXT);
        snprintf(want, sizeof want, "# %llu events dropped: signal handlers interrupted",
                 (unsigned long long)st.reentrant);
        r->text_says = txt && (st.reentrant ? strstr(txt, want) != NULL
                                            : strstr(txt, "events dropped: signal") == NULL);
        ctxprof_hcct_text_free(&p, txt);
        ctxprof_hcct_profile_deinit(&p);
    }
    ctxprof_hcct_deinit(&t);
    return 0;
}

static void hcct_robust_signals(void)
{
    hcct_storm *r = (hcct_storm *)ctxprof_test_in_child(hcct_storm_child, NULL, sizeof *r);
    REQUIRE(r != NULL);
    CHECK_EQ(r->handled, r->sent);
    CHECK_GE(r->sent, 1000);
    CHECK_EQ(r->reentrant % 2, 0); /* a handler's push and pop are dropped together */
    CHECK_EQ(r->total, r->main_events + r->handled - r->reentrant / 2);
    CHECK_EQ(r->unmatched, 0);
    CHECK_EQ(r->depth, 0);
    CHECK(r->ok);
    CHECK_EQ(r->prof_reentrant, r->reentrant);
    CHECK(r->text_says);
    printf("  hcct: %llu signals handled (%llu refused by a full queue), %llu handler events "
           "dropped as re-entrant, %llu main events\n",
           (unsigned long long)r->handled, (unsigned long long)r->refused,
           (unsigned long long)r->reentrant / 2, (unsigned long long)r->main_events);
    munmap(r, sizeof *r);
}

/* A sealed binary profile: the root and two children f and g of the root
   (count 100, error 0, monitored), with one field changed: node (1 or 2)
   word (0 count .. 6 flags) = value, or header word hw = value (node 0). */
static void hcct_crafted_file(const char *path, size_t node, size_t word, uint64_t value)
{
    uint64_t hdr[17] = {3, 3, 200, 0, 0, 0, 0, 0, 0, 0, 0, CTXPROF_HCCT_CCT, 0, 0, 1, 0, 0};
    uint64_t nodes[3][7] = {{0, 0, 0, 0, CTXPROF_HCCT_NONE, 0, CTXPROF_HCCT_IS_ROOT | 1},
                            {100, 0, 0x1000, 0x2000, 0, 1, CTXPROF_HCCT_MONITORED},
                            {100, 0, 0x1100, 0x2100, 0, 2, CTXPROF_HCCT_MONITORED}};
    if (node)
        nodes[node][word] = value;
    else
        hdr[word] = value;
    hcct_image_write(path, hdr, (const uint64_t(*)[7])nodes);
}

/* Each node and header field the reader checks, one at a time, just past
   its bound (refused as corrupt, the output untouched) and at it (read). */
static void hcct_read_field_bounds(void)
{
    static const struct {
        size_t node, word;
        uint64_t bad, good;
        const char *why;
    } cases[] = {
        {1, 1, 101, 100, "node 1 is inconsistent"},          /* error above the count */
        {2, 1, 101, 100, "node 2 is inconsistent"},
        {1, 4, 1, 0, "node 1 is inconsistent (parent 1,"},   /* its own parent */
        {2, 4, 2, 1, "node 2 is inconsistent (parent 2,"},   /* its own parent; 1 is fine */
        {2, 4, 3, 0, "node 2 is inconsistent (parent 3,"},   /* a later node */
        {1, 6, 8 | CTXPROF_HCCT_MONITORED, 7 & ~(uint64_t)CTXPROF_HCCT_IS_ROOT,
         "node 1 is inconsistent"},                          /* an unknown flag */
        {1, 6, 1ull << 32 | CTXPROF_HCCT_MONITORED, 0, "node 1 is inconsistent"},
        {0, 11, CTXPROF_HCCT_CCT + 1, CTXPROF_HCCT_LSS, "bad mode, metric or flags"},
        {0, 11, 1ull << 32, CTXPROF_HCCT_CCT, "bad mode, metric or flags"},
        {0, 12, CTXPROF_HCCT_OTHER + 1, CTXPROF_HCCT_OTHER, "bad mode, metric or flags"},
        {0, 13, 8, 7 & ~(uint64_t)CTXPROF_HCCT_BY_NAME, "bad mode, metric or flags"},
    };
    char path[512];
    size_t c;
    snprintf(path, sizeof path, "%s/fields.hcct", ctxprof_test_tmpdir());
    for (c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        ctxprof_hcct_profile q;
        ctxprof_error e;
        memset(&q, 0, sizeof q);
        memset(&e, 0, sizeof e);
        hcct_crafted_file(path, cases[c].node, cases[c].word, cases[c].bad);
        CHECK_EQ(ctxprof_hcct_profile_read(&q, path, NULL, &e), CTXPROF_ERR_CORRUPT);
        CHECK_CONTAINS(e.detail, cases[c].why);
        CHECK(q.nodes == NULL && q.n == 0);
        ctxprof_hcct_profile_deinit(&q);
        hcct_crafted_file(path, cases[c].node, cases[c].word, cases[c].good);
        if (ctxprof_hcct_profile_read(&q, path, NULL, &e) != CTXPROF_OK) {
            fprintf(stderr, "case %zu: %s\n", c, e.detail);
            CHECK(0);
            continue;
        }
        CHECK_EQ(q.n, 3);
        if (cases[c].node && q.n == 3) {
            const ctxprof_hcct_pnode *x = &q.nodes[cases[c].node];
            uint64_t got = cases[c].word == 1 ? x->err : cases[c].word == 4 ? x->parent : x->flags;
            CHECK_EQ(got, cases[c].good);
        } else if (cases[c].word == 11) {
            CHECK_EQ((uint64_t)q.mode, cases[c].good);
        } else if (cases[c].word == 12) {
            CHECK_EQ((uint64_t)q.metric, cases[c].good);
        } else {
            CHECK_EQ((uint64_t)q.flags, cases[c].good);
        }
        ctxprof_hcct_profile_deinit(&q);
    }
}

/* The CTXPROF_HCCT option parser (ctxprof__hcct_auto_parse, compiled only
   with CTXPROF_HCCT_HOOKS, so in a program of its own): each key with valid
   and invalid values. The program reads one option string a line and
   prints what the parser made of it. */
static const char hcct_opts_prog[] =
    "#define _GNU_SOURCE\n"
    "#define CTXPROF_IMPLEMENTATION\n"
    "#define CTXPROF_HCCT_HOOKS\n"
    "#include \"ctxprof_hcct.h\"\n"
    "#include <stdio.h>\n"
    "int main(void)\n"
    "{\n"
    "    char line[4096];\n"
    "    while (fgets(line, sizeof line, stdin)) {\n"
    "        ctxprof_hcct_desc d, c;\n"
    "        ctxprof_error e, ef;\n"
    "        int rc, fill;\n"
    "        line[strcspn(line, \"\\n\")] = 0;\n"
    "        memset(&d, 0, sizeof d);\n"
    "        memset(&e, 0, sizeof e);\n"
    "        memset(&ef, 0, sizeof ef);\n"
    "        rc = ctxprof__hcct_auto_parse(line, &d, &e);\n"
    "        c = d;\n"
    "        fill = ctxprof__hcct_desc_fill(&c, &ef);\n"
    "        printf(\"%d %d %.17g %.17g %zu %zu %zu %u %u %u %d %d %s|%s\\n\", rc, d.mode, d.phi,\n"
    "               d.epsilon, d.counters, d.max_depth, d.max_bytes, d.flags, d.burst_period_us,\n"
    "               d.burst_length_us, fill, ctxprof__hcct_auto_fmt, ctxprof__hcct_auto_out,\n"
    "               e.detail);\n"
    "    }\n"
    "    return 0;\n"
    "}\n";

static void hcct_env_options(void)
{
    /* what each string must give: parse status, then (when parsed) the
       descriptor's fields (0 = left alone), for burst whether the tree
       takes it, and the output file's format */
    static const struct {
        const char *opt;
        int rc, mode;
        double phi, eps;
        size_t counters, depth, mem;
        unsigned flags, per, len;
        int fill_ok, fmt; /* fill_ok: -1 not checked */
        const char *why;  /* the message, for a refusal */
    } cases[] = {
        {"mode=lss", 0, CTXPROF_HCCT_LSS, 0, 0, 0, 0, 0, 0, 0, 0, -1, CTXPROF_HCCT_TEXT, 0},
        {"mode=cct", 0, CTXPROF_HCCT_CCT, 0, 0, 0, 0, 0, 0, 0, 0, -1, CTXPROF_HCCT_TEXT, 0},
        {"mode=CCT", CTXPROF_ERR_PARSE, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, "bad option 'mode=CCT'"},
        {"phi=0.25", 0, 0, 0.25, 0, 0, 0, 0, 0, 0, 0, -1, CTXPROF_HCCT_TEXT, 0},
        {"phi=1e-4", 0, 0, 1e-4, 0, 0, 0, 0, 0, 0, 0, -1, CTXPROF_HCCT_TEXT, 0},
        {"phi=", CTXPROF_ERR_PARSE, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, "bad option 'phi='"},
        {"phi=x", CTXPROF_ERR_PARSE, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, "bad option 'phi=x'"},
        {"phi=0.1x", CTXPROF_ERR_PARSE, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, "bad option"},
        {"phi=-0.5", CTXPROF_ERR_PARSE, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, "bad option"},
        {"phi=nan", CTXPROF_ERR_PARSE, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, "bad option"},
        {"eps=0.001", 0, 0, 0, 0.001, 0, 0, 0, 0, 0, 0, -1, CTXPROF_HCCT_TEXT, 0},
        {"eps=inf", CTXPROF_ERR_PARSE, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, "bad option 'eps=inf'"},
        {"eps=", CTXPROF_ERR_PARSE, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, "bad option"},
        {"counters=1", 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, -1, CTXPROF_HCCT_TEXT, 0},
        {"counters=1e3", 0, 0, 0, 0, 1000, 0, 0, 0, 0, 0, -1, CTXPROF_HCCT_TEXT, 0},
        /* whole numbers only: 2.9 was once taken as 2 */
        {"counters=2.9", CTXPROF_ERR_PARSE, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0,
         "bad option 'counters=2.9' (a whole number, 1 or more)"},
        {"counters=0", CTXPROF_ERR_PARSE, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, "'counters=0'"},
        {"counters=0.5", CTXPROF_ERR_PARSE, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, "bad option"},
        {"counters=1e20", CTXPROF_ERR_PARSE, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, "bad option"},
        {"depth=2", 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, -1, CTXPROF_HCCT_TEXT, 0},
        {"depth=1000", 0, 0, 0, 0, 0, 1000, 0, 0, 0, 0, -1, CTXPROF_HCCT_TEXT, 0},
        {"depth=1", CTXPROF_ERR_PARSE, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, "'depth=1'"},
        {"depth=1.99", CTXPROF_ERR_PARSE, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, "bad option"},
        {"depth=two", CTXPROF_ERR_PARSE, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, "bad option"},
        {"depth=2.5", CTXPROF_ERR_PARSE, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0,
         "bad option 'depth=2.5' (a whole number, 2 or more)"},
        {"depth=1e3", 0, 0, 0, 0, 0, 1000, 0, 0, 0, 0, -1, CTXPROF_HCCT_TEXT, 0},
        {"depth=-3", CTXPROF_ERR_PARSE, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, "'depth=-3'"},
        {"depth=1e20", CTXPROF_ERR_PARSE, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, "'depth=1e20'"},
        /* digits are exact (a double would round this one), and beyond
           2^64 refused, not wrapped; the tree names the number given */
        {"counters=9007199254740993", 0, 0, 0, 0, 9007199254740993u, 0, 0, 0, 0, 0, 0,
         CTXPROF_HCCT_TEXT, 0},
        {"depth=18446744073709551617", CTXPROF_ERR_PARSE, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0,
         "'depth=18446744073709551617'"},
        {"counters=1e16", CTXPROF_ERR_PARSE, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, "'counters=1e16'"},
        {"mem=1", 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, -1, CTXPROF_HCCT_TEXT, 0},
        {"mem=1048576", 0, 0, 0, 0, 0, 0, 1048576, 0, 0, 0, -1, CTXPROF_HCCT_TEXT, 0},
        {"mem=0", CTXPROF_ERR_PARSE, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, "'mem=0'"},
        {"mem=-1", CTXPROF_ERR_PARSE, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, "bad option 'mem=-1'"},
        {"mem=0.5e6", 0, 0, 0, 0, 0, 0, 500000, 0, 0, 0, -1, CTXPROF_HCCT_TEXT, 0},
        {"mem=1.5", CTXPROF_ERR_PARSE, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, "'mem=1.5'"},
        {"sites=0", 0, 0, 0, 0, 0, 0, 0, CTXPROF_HCCT_ROUTINE_ONLY, 0, 0, -1, CTXPROF_HCCT_TEXT,
         0},
        {"sites=1", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, CTXPROF_HCCT_TEXT, 0},
        {"sites=0,sites=1", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, CTXPROF_HCCT_TEXT, 0},
        {"sites=1,sites=0", 0, 0, 0, 0, 0, 0, 0, CTXPROF_HCCT_ROUTINE_ONLY, 0, 0, -1,
         CTXPROF_HCCT_TEXT, 0},
        {"sites=2", CTXPROF_ERR_PARSE, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, "'sites=2'"},
        {"sites=00", CTXPROF_ERR_PARSE, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, "'sites=00'"},
        {"sites=", CTXPROF_ERR_PARSE, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, "bad option"},
        {"burst=100:50", 0, 0, 0, 0, 0, 0, 0, 0, 100, 50, 1, CTXPROF_HCCT_TEXT, 0},
        {"burst=100:100", 0, 0, 0, 0, 0, 0, 0, 0, 100, 100, 1, CTXPROF_HCCT_TEXT, 0},
        {"burst=4294967295:1", 0, 0, 0, 0, 0, 0, 0, 0, 4294967295u, 1, 1, CTXPROF_HCCT_TEXT, 0},
        {"burst=0:0", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, CTXPROF_HCCT_TEXT, 0}, /* none */
        /* refused with what was written: a length beyond the period once
           came back as "length (101 us)", -1 or 2^32 wrapped */
        {"burst=100:4294967396", CTXPROF_ERR_PARSE, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0,
         "got '100:4294967396'"},
        {"burst=100:101", CTXPROF_ERR_PARSE, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0,
         "0 < LENGTH_US <= PERIOD_US <= 4294967295, got '100:101'"},
        {"burst=10:-1", CTXPROF_ERR_PARSE, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, "got '10:-1'"},
        {"burst=-10:1", CTXPROF_ERR_PARSE, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, "got '-10:1'"},
        {"burst=4294967295:4294967296", CTXPROF_ERR_PARSE, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0,
         "got '4294967295:4294967296'"},
        {"burst=18446744073709551626:5", CTXPROF_ERR_PARSE, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0,
         "got '18446744073709551626:5'"},
        {"burst=0:5", CTXPROF_ERR_PARSE, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, "got '0:5'"},
        {"burst=10:0", CTXPROF_ERR_PARSE, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, "got '10:0'"},
        {"burst=+10:5", CTXPROF_ERR_PARSE, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, "got '+10:5'"},
        {"burst= 10:5", CTXPROF_ERR_PARSE, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, "got ' 10:5'"},
        {"burst=10:5:1", CTXPROF_ERR_PARSE, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, "got '10:5:1'"},
        {"burst=4294967296:1", CTXPROF_ERR_PARSE, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0,
         "got '4294967296:1'"},
        {"burst=4294967297:1", CTXPROF_ERR_PARSE, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0,
         "got '4294967297:1'"},
        {"burst=100", CTXPROF_ERR_PARSE, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, "got '100'"},
        {"burst=100:50x", CTXPROF_ERR_PARSE, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, "got '100:50x'"},
        {"burst=a:b", CTXPROF_ERR_PARSE, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, "got 'a:b'"},
        {"burst=", CTXPROF_ERR_PARSE, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, "got ''"},
        {"out=p.svg", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, CTXPROF_HCCT_SVG, 0},
        {"out=p.json", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, CTXPROF_HCCT_JSON, 0},
        {"out=p.folded", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, CTXPROF_HCCT_COLLAPSED, 0},
        {"out=p.collapsed", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, CTXPROF_HCCT_COLLAPSED, 0},
        {"out=p.hcct", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, CTXPROF_HCCT_BINARY, 0},
        {"out=p.txt", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, CTXPROF_HCCT_TEXT, 0},
        {"out=d.svg/p", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, CTXPROF_HCCT_TEXT, 0},
        {"out=p.pdf", CTXPROF_ERR_PARSE, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0,
         "out=p.pdf: unknown format '.pdf'"},
        {"phi", CTXPROF_ERR_PARSE, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, "'phi' is not key=value"},
        {"bogus=1", CTXPROF_ERR_PARSE, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, "bad option 'bogus=1'"},
        {"mode=cct,phi=0.5,eps=0.125,counters=7,depth=9,mem=100,sites=0,burst=10:5,out=q.json",
         0, CTXPROF_HCCT_CCT, 0.5, 0.125, 7, 9, 100, CTXPROF_HCCT_ROUTINE_ONLY, 10, 5, -1,
         CTXPROF_HCCT_JSON, 0},
        {"phi=0.1,phi=0.2", 0, 0, 0.2, 0, 0, 0, 0, 0, 0, 0, -1, CTXPROF_HCCT_TEXT, 0},
    };
    const char *d = ctxprof_test_tmpdir();
    char src[600], exe[600], in[600], out[600], cwd[4096];
    FILE *f;
    size_t c, n = sizeof cases / sizeof cases[0];
    char line[4096];
    REQUIRE(getcwd(cwd, sizeof cwd) != NULL);
    snprintf(src, sizeof src, "%s/hcct_opts.c", d);
    snprintf(exe, sizeof exe, "%s/hcct_opts", d);
    snprintf(in, sizeof in, "%s/hcct_opts.in", d);
    snprintf(out, sizeof out, "%s/hcct_opts.out", d);
    REQUIRE_EQ(ctxprof_test_put(src, hcct_opts_prog), 0);
    REQUIRE((f = fopen(in, "w")) != NULL);
    for (c = 0; c < n; c++)
        fprintf(f, "%s\n", cases[c].opt);
    REQUIRE_EQ(fclose(f), 0);
    REQUIRE_EQ(ctxprof_test_sh("%s -std=gnu11 -O0 -I%s %s -o %s -lpthread", CTXPROF_TEST_CC, cwd,
                               src, exe),
               0);
    REQUIRE_EQ(ctxprof_test_sh("env -u CTXPROF_HCCT %s < %s > %s", exe, in, out), 0);
    REQUIRE((f = fopen(out, "r")) != NULL);
    for (c = 0; c < n && fgets(line, sizeof line, f); c++) {
        int rc, mode, fill, fmt, fails = ctxprof_test_failed;
        double phi, eps;
        size_t counters, depth, mem;
        unsigned flags, per, len;
        char *bar = strchr(line, '|');
        line[strcspn(line, "\n")] = 0;
        if (sscanf(line, "%d %d %lf %lf %zu %zu %zu %u %u %u %d %d", &rc, &mode, &phi, &eps,
                   &counters, &depth, &mem, &flags, &per, &len, &fill, &fmt) != 12 || !bar) {
            CHECK(0);
            break;
        }
        CHECK_EQ(rc, cases[c].rc);
        if (cases[c].rc) {
            CHECK_CONTAINS(bar + 1, cases[c].why);
        } else {
            CHECK_STR(bar + 1, "");
            CHECK_EQ(mode, cases[c].mode);
            CHECK_EQ(phi, cases[c].phi);
            CHECK_EQ(eps, cases[c].eps);
            CHECK_EQ(counters, cases[c].counters);
            CHECK_EQ(depth, cases[c].depth);
            CHECK_EQ(mem, cases[c].mem);
            CHECK_EQ(flags, cases[c].flags);
            CHECK_EQ(per, cases[c].per);
            CHECK_EQ(len, cases[c].len);
            CHECK_EQ(fmt, cases[c].fmt);
            if (cases[c].fill_ok >= 0)
                CHECK_EQ(fill == 0, cases[c].fill_ok);
        }
        if (ctxprof_test_failed != fails)
            fprintf(stderr, "  for CTXPROF_HCCT=%s: %s\n", cases[c].opt, line);
    }
    CHECK_EQ(c, n);
    fclose(f);
}

static const ctxprof_test_case ctxprof_tests_hcct[] = {
    {"hcct_init_errors", hcct_init_errors},
    {"hcct_init_live", hcct_init_live},
    {"hcct_deinit_bound", hcct_deinit_bound},
    {"hcct_error_cleared", hcct_error_cleared},
    {"hcct_null_args", hcct_null_args},
    {"hcct_error_messages", hcct_error_messages},
    {"hcct_zeroed_tree", hcct_zeroed_tree},
    {"hcct_write_by_extension", hcct_write_by_extension},
    {"hcct_lazy_queue", hcct_lazy_queue},
    {"hcct_ss_skewed", hcct_ss_skewed},
    {"hcct_ss_phase_change", hcct_ss_phase_change},
    {"hcct_ss_adversarial", hcct_ss_adversarial},
    {"hcct_prune_every_event", hcct_prune_every_event},
    {"hcct_replace_equivalence", hcct_replace_equivalence},
    {"hcct_exact_cct", hcct_exact_cct},
    {"hcct_weighted", hcct_weighted},
    {"hcct_weighted_large", hcct_weighted_large},
    {"hcct_weight_saturates", hcct_weight_saturates},
    {"hcct_total_saturates", hcct_total_saturates},
    {"hcct_absent_with_drops", hcct_absent_with_drops},
    {"hcct_longjmp_explicit", hcct_longjmp_explicit},
    {"hcct_longjmp_real", hcct_longjmp_real},
    {"hcct_depth_bound", hcct_depth_bound},
    {"hcct_deep_explicit", hcct_deep_explicit},
    {"hcct_deep_real", hcct_deep_real},
    {"hcct_node_bound", hcct_node_bound},
    {"hcct_drop_live_frames", hcct_drop_live_frames},
    {"hcct_node_bound_random", hcct_node_bound_random},
    {"hcct_add_path_bound", hcct_add_path_bound},
    {"hcct_reentry", hcct_reentry},
    {"hcct_bursting", hcct_bursting},
    {"hcct_outputs", hcct_outputs},
    {"hcct_names_utf8", hcct_names_utf8},
    {"hcct_names_odd", hcct_names_odd},
    {"hcct_outputs_lss", hcct_outputs_lss},
    {"hcct_binary_roundtrip", hcct_binary_roundtrip},
    {"hcct_read_bounded", hcct_read_bounded},
    {"hcct_read_duplicate_siblings", hcct_read_duplicate_siblings},
    {"hcct_roundtrip_siblings", hcct_roundtrip_siblings},
    {"hcct_merge", hcct_merge},
    {"hcct_merge_edges", hcct_merge_edges},
    {"hcct_merge_pruned", hcct_merge_pruned},
    {"hcct_merge_many", hcct_merge_many},
    {"hcct_session_merge_many", hcct_session_merge_many},
    {"hcct_session_merge_linear", hcct_session_merge_linear},
    {"hcct_compare_negative", hcct_compare_negative},
    {"hcct_query_concurrent", hcct_query_concurrent},
    {"hcct_session_threads", hcct_session_threads},
    {"hcct_session_shutdown_parked", hcct_session_shutdown_parked},
    {"hcct_session_signal_in_lock", hcct_session_signal_in_lock},
    {"hcct_session_signal_in_malloc", hcct_session_signal_in_malloc},
    {"hcct_session_signal_in_malloc_altstack", hcct_session_signal_in_malloc_altstack},
    {"hcct_session_shutdown_signals", hcct_session_shutdown_signals},
    {"hcct_session_shutdown_exit", hcct_session_shutdown_exit},
    {"hcct_fork_symbols", hcct_fork_symbols},
    {"hcct_names_unloaded", hcct_names_unloaded},
    {"hcct_session_churn", hcct_session_churn},
    {"hcct_session_lost", hcct_session_lost},
    {"hcct_session_exit_oom", hcct_session_exit_oom},
    {"hcct_session_state_race", hcct_session_state_race},
    {"hcct_hooks_program", hcct_hooks_program},
    {"hcct_hooks_own_tree", hcct_hooks_own_tree},
    {"hcct_hooks_longjmp_deep", hcct_hooks_longjmp_deep},
    {"hcct_hooks_inline_recursion", hcct_hooks_inline_recursion},
    {"hcct_hooks_fork", hcct_hooks_fork},
    {"hcct_hooks_cxx", hcct_hooks_cxx},
    {"hcct_macros", hcct_macros},
    {"hcct_same_frame", hcct_same_frame},
    {"hcct_robust_files", hcct_robust_files},
    {"hcct_robust_bounds", hcct_robust_bounds},
    {"hcct_robust_signals", hcct_robust_signals},
    {"hcct_read_field_bounds", hcct_read_field_bounds},
    {"hcct_env_options", hcct_env_options},
    {0, 0}};
