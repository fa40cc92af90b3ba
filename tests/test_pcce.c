/* PCCE and the shared precise-encoding run time: the paper's Figure 1,
   exhaustive enumeration of acyclic contexts, random-walk roundtrips on
   generated graphs (all four schemes), 64-bit overflow, the bit stack
   against a reference, limits, query and hash, threads, decoder errors.
   The helpers here (pcce_*) are shared by test_valence.c and test_gen.c. */

#include <pthread.h>

/* Parses text into a finished graph; 0 on success. */
static int pcce_graph_text(ctxprof_graph *g, const char *text)
{
    if (ctxprof_graph_init(g, NULL) != CTXPROF_OK)
        return -1;
    if (ctxprof_graph_parse(g, text, strlen(text), "test") != CTXPROF_OK ||
        ctxprof_graph_finish(g) != CTXPROF_OK) {
        fprintf(stderr, "graph: %s\n", ctxprof_graph_last_error(g));
        return -1;
    }
    return 0;
}

static int pcce_graph_file(ctxprof_graph *g, const char *path)
{
    if (ctxprof_graph_init(g, NULL) != CTXPROF_OK)
        return -1;
    if (ctxprof_graph_load(g, path) != CTXPROF_OK || ctxprof_graph_finish(g) != CTXPROF_OK) {
        fprintf(stderr, "graph: %s\n", ctxprof_graph_last_error(g));
        return -1;
    }
    return 0;
}

static uint32_t pcce_node(const ctxprof_graph *g, const char *name)
{
    long id = ctxprof_graph_find(g, name);
    return id < 0 ? UINT32_MAX : (uint32_t)id;
}

/* The edge caller -> callee with this site index. */
static uint32_t pcce_edge(const ctxprof_graph *g, const char *a, const char *b, uint32_t site)
{
    size_t e;
    for (e = 0; e < g->n_edges; e++)
        if (strcmp(g->nodes[g->edges[e].caller].name, a) == 0 &&
            strcmp(g->nodes[g->edges[e].callee].name, b) == 0 && g->edges[e].site == site)
            return (uint32_t)e;
    return UINT32_MAX;
}

/* A random graph: a spanning tree from f0 (so every node is reachable),
   extra edges that go "down" (acyclic) or, with probability cyc_pct, in
   any direction (recursion, self calls), and n_scc planted cycles. */
static void pcce_random_graph(ctxprof_graph *g, unsigned n, unsigned m, unsigned cyc_pct,
                              uint64_t seed)
{
    char a[32], b[32], l[32];
    unsigned i;
    uint64_t r = seed;
    ctxprof_graph_init(g, NULL);
    ctxprof_graph_set_root(g, "f0");
    ctxprof_graph_add_node(g, "f0", 0);
    for (i = 1; i < n; i++) {
        unsigned p = (unsigned)(ctxprof_test_rand(&r) % i);
        snprintf(a, sizeof a, "f%u", p);
        snprintf(b, sizeof b, "f%u", i);
        ctxprof_graph_add_edge(g, a, b, NULL);
    }
    for (i = n - 1; i < m; i++) {
        unsigned x = (unsigned)(ctxprof_test_rand(&r) % n), y = (unsigned)(ctxprof_test_rand(&r) % n);
        if (ctxprof_test_rand(&r) % 100 >= cyc_pct && x > y) {
            unsigned t = x;
            x = y;
            y = t;
        }
        if (x == y && ctxprof_test_rand(&r) % 100 >= cyc_pct)
            continue;
        snprintf(a, sizeof a, "f%u", x);
        snprintf(b, sizeof b, "f%u", y);
        snprintf(l, sizeof l, "s%u", i);
        ctxprof_graph_add_edge(g, a, b, l);
    }
    if (ctxprof_graph_finish(g) != CTXPROF_OK)
        fprintf(stderr, "random graph: %s\n", ctxprof_graph_last_error(g));
}

/* Decodes st (taken in node) with t and compares with the expected path. */
static int pcce_decodes_to(const ctxprof_enc_tables *t, ctxprof_enc *st, uint32_t node,
                           const uint32_t *path, size_t n)
{
    ctxprof_enc_view v;
    uint32_t out[512];
    size_t got = 0;
    ctxprof_error err;
    ctxprof_enc_query(st, t->acyc_bits, &v);
    if (ctxprof_enc_decode(t, v.words, v.n_bits, node, out, 512, &got, &err) != CTXPROF_OK) {
        fprintf(stderr, "  %s decode: %s\n", ctxprof_enc_scheme_name(t->scheme), err.detail);
        return 0;
    }
    return got == n && memcmp(out, path, n * sizeof *path) == 0;
}

/* Enters path[0..n) on st (saved[] for the leave), or leaves it again. */
static void pcce_enter_path(const ctxprof_enc_tables *t, ctxprof_enc *st, const uint32_t *path,
                            size_t n, uint64_t *saved)
{
    size_t i;
    for (i = 0; i < n; i++)
        saved[i] = ctxprof_enc_enter(st, t->acyc_bits, &t->ops[path[i]]);
}

static void pcce_leave_path(const ctxprof_enc_tables *t, ctxprof_enc *st, const uint32_t *path,
                            size_t n, const uint64_t *saved)
{
    while (n-- > 0)
        ctxprof_enc_leave(st, t->acyc_bits, &t->ops[path[n]], saved[n]);
}

/* Runs the library's random-walk check and requires 100% decoding. */
static void pcce_check_all(const ctxprof_graph *g, uint64_t walks, uint32_t depth, uint64_t seed,
                           ctxprof_enc_check_result *r)
{
    ctxprof_enc_check_desc d;
    ctxprof_error err;
    int s;
    memset(&d, 0, sizeof d);
    d.walks = walks;
    d.depth = depth;
    d.seed = seed;
    d.full_depth = depth; /* decode every step */
    err.detail[0] = '\0';
    CHECK_EQ(ctxprof_enc_check(g, &d, r, &err), CTXPROF_OK);
    CHECK(r->steps > 0);
    CHECK_EQ(r->checked, r->steps);
    for (s = 1; s < CTXPROF_ENC_NSCHEMES; s++)
        CHECK_EQ(r->decoded[s], r->steps);
    if (r->failure[0])
        fprintf(stderr, "  %s\n", r->failure);
}

/* Figure 1: numCC and En values the paper's text gives. */
static void pcce_paper_figure1(void)
{
    ctxprof_graph g;
    ctxprof_enc_tables t;
    ctxprof_error err;
    ctxprof_enc st;
    uint32_t I, path[3];
    uint64_t saved[3];
    REQUIRE(pcce_graph_file(&g, "tests/data/fig1.txt") == 0);
    REQUIRE_EQ(ctxprof_enc_build(&g, CTXPROF_ENC_PCCE, &t, &err), CTXPROF_OK);
    I = pcce_node(&g, "I");
    CHECK_EQ(t.num_cc[t.num_of_node[pcce_node(&g, "F")]], 4);
    CHECK_EQ(t.num_cc[t.num_of_node[pcce_node(&g, "G")]], 3);
    CHECK_EQ(t.num_cc[t.num_of_node[I]], 8);
    CHECK_EQ(t.ops[pcce_edge(&g, "J", "I", 0)].add, 7); /* "id += 7" on JI */
    CHECK_EQ(t.ops[pcce_edge(&g, "G", "I", 0)].add, 4);
    CHECK_EQ(t.ops[pcce_edge(&g, "F", "I", 0)].add, 0);
    /* AB, BD and D^1F need no instrumentation; D^2F adds numCC(D) = 2 */
    CHECK_EQ(t.ops[pcce_edge(&g, "A", "B", 0)].add, 0);
    CHECK_EQ(t.ops[pcce_edge(&g, "B", "D", 0)].add, 0);
    CHECK_EQ(t.ops[pcce_edge(&g, "D", "F", 0)].add, 0);
    CHECK_EQ(t.ops[pcce_edge(&g, "D", "F", 1)].add, 2);
    CHECK_EQ(t.acyc_bits, 64);
    /* A -> J -> I gives id 7 and decodes back */
    ctxprof_enc_init(&st, NULL);
    path[0] = pcce_edge(&g, "A", "J", 0);
    path[1] = pcce_edge(&g, "J", "I", 0);
    pcce_enter_path(&t, &st, path, 2, saved);
    CHECK_EQ(st.acyc[0], 7);
    CHECK(pcce_decodes_to(&t, &st, I, path, 2));
    pcce_leave_path(&t, &st, path, 2, saved);
    CHECK_EQ(st.acyc[0], 0);
    CHECK(pcce_decodes_to(&t, &st, pcce_node(&g, "A"), path, 0));
    {
        /* decoding I: values 0-3 come from FI, 4-6 from GI, 7 from JI */
        uint64_t words[1];
        uint32_t out[8];
        size_t n;
        for (words[0] = 0; words[0] < 8; words[0]++) {
            REQUIRE_EQ(ctxprof_enc_decode(&t, words, 64, I, out, 8, &n, &err), CTXPROF_OK);
            REQUIRE(n >= 1);
            CHECK_STR(t.node_names[t.edge_caller[out[n - 1]]],
                      words[0] < 4 ? "F" : words[0] < 7 ? "G" : "J");
        }
        CHECK_EQ(ctxprof_enc_decode(&t, words, 64, I, out, 8, &n, &err), CTXPROF_ERR_CORRUPT);
    }
    ctxprof_enc_deinit(&st);
    ctxprof_enc_tables_free(&t, NULL);
    ctxprof_graph_deinit(&g);
}

/* Every acyclic context of small DAGs, by depth-first enumeration through
   the run-time ops: every scheme decodes every context, and PCCE's ids at a
   node are exactly 0 .. numCC - 1 (a bijection: nothing wasted). */
typedef struct pcce_enum {
    const ctxprof_graph *g;
    ctxprof_enc_tables t[CTXPROF_ENC_NSCHEMES];
    ctxprof_enc st[CTXPROF_ENC_NSCHEMES];
    uint32_t path[64];
    unsigned char *seen; /* per node: PCCE ids seen, numCC bits each */
    size_t *seen_off;
    uint64_t contexts, ok;
    int bad_id;
} pcce_enum;

static void pcce_enum_visit(pcce_enum *E, uint32_t node, size_t d)
{
    const ctxprof_graph *g = E->g;
    uint32_t i;
    int s;
    E->contexts++;
    for (s = 1; s < CTXPROF_ENC_NSCHEMES; s++)
        if (pcce_decodes_to(&E->t[s], &E->st[s], node, E->path, d))
            E->ok++;
    {
        uint64_t id = E->st[CTXPROF_ENC_PCCE].acyc[0];
        uint64_t cc = E->t[CTXPROF_ENC_PCCE].num_cc[node];
        if (id >= cc || E->seen[E->seen_off[node] + id])
            E->bad_id = 1;
        else
            E->seen[E->seen_off[node] + id] = 1;
    }
    if (d + 1 >= sizeof E->path / sizeof E->path[0])
        return;
    for (i = g->out_first[node]; i < g->out_first[node + 1]; i++) {
        uint32_t e = g->out_edge[i];
        uint64_t saved[CTXPROF_ENC_NSCHEMES];
        for (s = 1; s < CTXPROF_ENC_NSCHEMES; s++)
            saved[s] = ctxprof_enc_enter(&E->st[s], E->t[s].acyc_bits, &E->t[s].ops[e]);
        E->path[d] = e;
        pcce_enum_visit(E, g->edges[e].callee, d + 1);
        for (s = 1; s < CTXPROF_ENC_NSCHEMES; s++)
            ctxprof_enc_leave(&E->st[s], E->t[s].acyc_bits, &E->t[s].ops[e], saved[s]);
    }
}

static void pcce_exhaustive_dags(void)
{
    uint64_t seed;
    for (seed = 1; seed <= 12; seed++) {
        ctxprof_graph g;
        pcce_enum E;
        ctxprof_error err;
        size_t v, total = 0;
        int s;
        pcce_random_graph(&g, 6 + (unsigned)seed % 7, 10 + 2 * (unsigned)seed, 0, seed);
        REQUIRE(g.finished);
        REQUIRE_EQ(g.n_cyclic_edges, 0);
        memset(&E, 0, sizeof E);
        E.g = &g;
        for (s = 1; s < CTXPROF_ENC_NSCHEMES; s++) {
            REQUIRE_EQ(ctxprof_enc_build(&g, s, &E.t[s], &err), CTXPROF_OK);
            ctxprof_enc_init(&E.st[s], NULL);
        }
        E.seen_off = (size_t *)calloc(g.n_nodes + 1, sizeof *E.seen_off);
        for (v = 0; v < g.n_nodes; v++) {
            E.seen_off[v] = total;
            total += (size_t)E.t[CTXPROF_ENC_PCCE].num_cc[v];
        }
        REQUIRE(total < 2000000);
        E.seen = (unsigned char *)calloc(total + 1, 1);
        pcce_enum_visit(&E, g.root, 0);
        CHECK_EQ(E.ok, 4 * E.contexts);
        CHECK(!E.bad_id);
        CHECK_EQ(E.contexts, total); /* every id of every node was reached */
        for (s = 1; s < CTXPROF_ENC_NSCHEMES; s++) {
            CHECK_EQ(E.st[s].acyc[0], 0); /* leave undid every enter */
            CHECK_EQ(E.st[s].n, 0);
            ctxprof_enc_deinit(&E.st[s]);
            ctxprof_enc_tables_free(&E.t[s], NULL);
        }
        free(E.seen);
        free(E.seen_off);
        ctxprof_graph_deinit(&g);
    }
}

/* Random walks decode at every step for all four schemes, on random DAGs
   and graphs with several complex SCCs, from a handful to thousands of
   nodes. */
static void pcce_roundtrip_random(void)
{
    static const struct {
        unsigned n, m, cyc;
    } shapes[] = {{3, 4, 50},   {5, 12, 40},    {12, 30, 20},    {40, 120, 10}, {100, 400, 30},
                  {300, 900, 5}, {1000, 4000, 3}, {3000, 9000, 2}, {60, 60, 0},   {2, 2, 100}};
    size_t i, complex = 0, dags = 0;
    for (i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        ctxprof_graph g;
        ctxprof_enc_check_result r;
        pcce_random_graph(&g, shapes[i].n, shapes[i].m, shapes[i].cyc, 100 + i);
        REQUIRE(g.finished);
        pcce_check_all(&g, shapes[i].n > 1000 ? 30 : 120, 48, i, &r);
        complex += g.n_complex_sccs;
        dags += g.n_complex_sccs == 0;
        ctxprof_graph_deinit(&g);
    }
    CHECK(complex >= 10); /* the shapes cover recursion ... */
    CHECK(dags >= 1);     /* ... and DAGs */
}

/* Every simple-path context (no function twice) of small recursive
   graphs, enumerated depth first through the run-time ops, decodes in
   every scheme: these paths cross cyclic edges (stack codes, pushed ids)
   as well as acyclic ones, and the decoder must tell apart all of them. */
typedef struct pcce_simple {
    const ctxprof_graph *g;
    ctxprof_enc_tables t[CTXPROF_ENC_NSCHEMES];
    ctxprof_enc st[CTXPROF_ENC_NSCHEMES];
    uint32_t path[64];
    unsigned char on_path[64];
    uint64_t contexts, ok, cyclic_paths;
} pcce_simple;

static void pcce_simple_visit(pcce_simple *E, uint32_t node, size_t d, int crossed)
{
    const ctxprof_graph *g = E->g;
    uint32_t i;
    int s;
    E->contexts++;
    E->cyclic_paths += (uint64_t)crossed;
    for (s = 1; s < CTXPROF_ENC_NSCHEMES; s++)
        if (pcce_decodes_to(&E->t[s], &E->st[s], node, E->path, d))
            E->ok++;
    if (E->contexts > 400000)
        return; /* a graph too dense for this test: the caller fails */
    E->on_path[node] = 1;
    for (i = g->out_first[node]; i < g->out_first[node + 1]; i++) {
        uint32_t e = g->out_edge[i], w = g->edges[e].callee;
        uint64_t saved[CTXPROF_ENC_NSCHEMES];
        if (E->on_path[w])
            continue;
        for (s = 1; s < CTXPROF_ENC_NSCHEMES; s++)
            saved[s] = ctxprof_enc_enter(&E->st[s], E->t[s].acyc_bits, &E->t[s].ops[e]);
        E->path[d] = e;
        pcce_simple_visit(E, w, d + 1,
                          crossed || (g->edges[e].flags & CTXPROF_GRAPH_EDGE_CYCLIC) != 0);
        for (s = 1; s < CTXPROF_ENC_NSCHEMES; s++)
            ctxprof_enc_leave(&E->st[s], E->t[s].acyc_bits, &E->t[s].ops[e], saved[s]);
    }
    E->on_path[node] = 0;
}

static void pcce_exhaustive_recursive(void)
{
    static const char *const texts[] = {
        /* mutual recursion with two entries and a self call */
        "ctxprof-callgraph 1\nroot main\ncall main a\ncall main b\ncall a b\ncall b a\n"
        "call a a\ncall b c\ncall a c site=x\ncall a c site=y\n",
        /* a ring of six entered at three places, with chords */
        "ctxprof-callgraph 1\nroot main\ncall main r0\ncall main r2\ncall main r4\n"
        "call r0 r1\ncall r1 r2\ncall r2 r3\ncall r3 r4\ncall r4 r5\ncall r5 r0\n"
        "call r1 r4\ncall r3 r0\ncall r5 leaf\ncall r2 leaf\n",
        /* two complex components in a row, the second entered from both */
        "ctxprof-callgraph 1\nroot main\ncall main p\ncall p q\ncall q p\ncall q q\n"
        "call p s\ncall q t\ncall s t\ncall t s\ncall main t\ncall t u\ncall s u\n",
    };
    size_t k, total = 0, cyclic = 0;
    for (k = 0; k < sizeof texts / sizeof texts[0] + 1 + 6; k++) {
        ctxprof_graph g;
        pcce_simple E;
        ctxprof_error err;
        int s;
        if (k < sizeof texts / sizeof texts[0]) {
            REQUIRE(pcce_graph_text(&g, texts[k]) == 0);
        } else if (k == sizeof texts / sizeof texts[0]) {
            REQUIRE(pcce_graph_file(&g, "tests/data/fig3.txt") == 0);
        } else {
            unsigned r = (unsigned)(k - sizeof texts / sizeof texts[0]);
            pcce_random_graph(&g, 8 + 2 * r, 20 + 6 * r, 35, 500 + r);
            REQUIRE(g.finished);
        }
        REQUIRE(g.n_nodes <= 64);
        memset(&E, 0, sizeof E);
        E.g = &g;
        for (s = 1; s < CTXPROF_ENC_NSCHEMES; s++) {
            REQUIRE_EQ(ctxprof_enc_build(&g, s, &E.t[s], &err), CTXPROF_OK);
            ctxprof_enc_init(&E.st[s], NULL);
        }
        pcce_simple_visit(&E, g.root, 0, 0);
        CHECK(E.contexts <= 400000);
        CHECK_EQ(E.ok, 4 * E.contexts);
        if (E.ok != 4 * E.contexts)
            fprintf(stderr, "  graph %zu: %llu of %llu decodes, %llu cross cyclic edges\n", k,
                    (unsigned long long)E.ok, (unsigned long long)(4 * E.contexts),
                    (unsigned long long)E.cyclic_paths);
        total += E.contexts;
        cyclic += E.cyclic_paths;
        for (s = 1; s < CTXPROF_ENC_NSCHEMES; s++) {
            CHECK_EQ(E.st[s].acyc[0], 0);
            CHECK_EQ(E.st[s].n, 0);
            CHECK_EQ(E.st[s].depth, 0);
            ctxprof_enc_deinit(&E.st[s]);
            ctxprof_enc_tables_free(&E.t[s], NULL);
        }
        ctxprof_graph_deinit(&g);
    }
    CHECK(cyclic >= 100); /* many of them cross cyclic edges */
    CHECK(total >= 1000);
}

/* A graph with `k` planted complex SCCs: cluster c is a ring of `size`
   functions (c<c>_0 -> c<c>_1 -> ... -> c<c>_0) with random chords, self
   calls and second call sites; clusters are entered only from earlier
   ones (so they stay apart: exactly k complex SCCs), and every member may
   call a leaf of its own (acyclic parts). */
static void pcce_cluster_graph(ctxprof_graph *g, unsigned k, unsigned size, uint64_t seed)
{
    char a[48], b[48], l[32];
    unsigned c, j, x;
    uint64_t r = seed;
    ctxprof_graph_init(g, NULL);
    ctxprof_graph_set_root(g, "main");
    ctxprof_graph_add_edge(g, "main", "c0_0", NULL);
    for (c = 0; c < k; c++) {
        for (j = 0; j < size; j++) {
            snprintf(a, sizeof a, "c%u_%u", c, j);
            snprintf(b, sizeof b, "c%u_%u", c, (j + 1) % size);
            ctxprof_graph_add_edge(g, a, b, NULL);
            if (ctxprof_test_rand(&r) % 3 == 0) { /* a chord or a self call */
                snprintf(b, sizeof b, "c%u_%u", c, (unsigned)(ctxprof_test_rand(&r) % size));
                ctxprof_graph_add_edge(g, a, b, "chord");
            }
            if (ctxprof_test_rand(&r) % 5 == 0) { /* a second site for the same call */
                snprintf(b, sizeof b, "c%u_%u", c, (j + 1) % size);
                ctxprof_graph_add_edge(g, a, b, "again");
            }
            if (ctxprof_test_rand(&r) % 2 == 0) { /* a leaf */
                snprintf(b, sizeof b, "leaf%u_%u", c, j);
                ctxprof_graph_add_edge(g, a, b, NULL);
            }
        }
        for (x = 0; c > 0 && x < 3; x++) { /* entries from earlier clusters */
            unsigned from = (unsigned)(ctxprof_test_rand(&r) % c);
            snprintf(a, sizeof a, "c%u_%u", from, (unsigned)(ctxprof_test_rand(&r) % size));
            snprintf(b, sizeof b, "c%u_%u", c, (unsigned)(ctxprof_test_rand(&r) % size));
            snprintf(l, sizeof l, "e%u", x);
            ctxprof_graph_add_edge(g, a, b, l);
        }
    }
    if (ctxprof_graph_finish(g) != CTXPROF_OK)
        fprintf(stderr, "cluster graph: %s\n", ctxprof_graph_last_error(g));
}

/* Decodes st taken in node with t into a heap buffer; 1 if the result is
   path[0..n). */
static int pcce_decodes_to_long(const ctxprof_enc_tables *t, ctxprof_enc *st, uint32_t node,
                                const uint32_t *path, size_t n)
{
    ctxprof_enc_view v;
    uint32_t *out = (uint32_t *)malloc((n + 1) * sizeof *out);
    size_t got = 0;
    ctxprof_error err;
    int ok;
    ctxprof_enc_query(st, t->acyc_bits, &v);
    ok = out && ctxprof_enc_decode_view(t, &v, node, out, n + 1, &got, &err) == CTXPROF_OK &&
         got == n && memcmp(out, path, n * sizeof *path) == 0;
    free(out);
    return ok;
}

/* Random call/return walks driven by the test itself (its own true path,
   independent of ctxprof_enc_check) on graphs with 2 to 60 planted
   complex SCCs, from a handful of functions to about 4,500: every step
   decodes to the path in every scheme. Then recursion 20,000 calls deep
   decodes at the bottom and on the way back. */
static void pcce_walks_many_sccs(void)
{
    static const unsigned shapes[][2] = {{2, 3}, {5, 4}, {12, 10}, {40, 25}, {60, 50}};
    size_t i;
    for (i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        ctxprof_graph g;
        ctxprof_enc_tables t[CTXPROF_ENC_NSCHEMES];
        ctxprof_enc st[CTXPROF_ENC_NSCHEMES];
        ctxprof_error err;
        uint32_t path[400], node;
        uint64_t saved[400][CTXPROF_ENC_NSCHEMES], rng = 900 + i, steps = 0, good = 0;
        size_t d = 0, walk;
        int s;
        pcce_cluster_graph(&g, shapes[i][0], shapes[i][1], 40 + i);
        REQUIRE(g.finished);
        CHECK_EQ(g.n_complex_sccs, shapes[i][0]);
        for (s = 1; s < CTXPROF_ENC_NSCHEMES; s++) {
            REQUIRE_EQ(ctxprof_enc_build(&g, s, &t[s], &err), CTXPROF_OK);
            ctxprof_enc_init(&st[s], NULL);
        }
        for (walk = 0; walk < 40; walk++) {
            unsigned budget = 700; /* steps before the walk unwinds to the root */
            node = g.root;
            d = 0;
            do {
                uint32_t deg = g.out_first[node + 1] - g.out_first[node];
                uint64_t r = ctxprof_test_rand(&rng);
                if (budget > 0)
                    budget--;
                if (deg && budget && d < 400 && (d == 0 || r % 100 < 58)) {
                    uint32_t e = g.out_edge[g.out_first[node] + (uint32_t)((r >> 8) % deg)];
                    for (s = 1; s < CTXPROF_ENC_NSCHEMES; s++)
                        saved[d][s] = ctxprof_enc_enter(&st[s], t[s].acyc_bits, &t[s].ops[e]);
                    path[d++] = e;
                    node = g.edges[e].callee;
                } else {
                    uint32_t e = path[--d];
                    for (s = 1; s < CTXPROF_ENC_NSCHEMES; s++)
                        ctxprof_enc_leave(&st[s], t[s].acyc_bits, &t[s].ops[e], saved[d][s]);
                    node = g.edges[e].caller;
                }
                steps++;
                for (s = 1; s < CTXPROF_ENC_NSCHEMES; s++)
                    good += (uint64_t)pcce_decodes_to_long(&t[s], &st[s], node, path, d);
            } while (d > 0 || budget > 0);
        }
        CHECK_EQ(good, 4 * steps);
        CHECK(steps >= 40 * 700); /* 700 steps per walk, then the way back */
        if (i == sizeof shapes / sizeof shapes[0] - 1) {
            /* deep recursion around the first ring: 20,000 calls */
            uint32_t ring = UINT32_MAX, e0 = g.out_edge[g.out_first[g.root]];
            uint32_t *deep = (uint32_t *)malloc(20001 * sizeof *deep);
            uint64_t *dsaved = (uint64_t *)malloc(20001 * CTXPROF_ENC_NSCHEMES * sizeof *dsaved);
            size_t k;
            REQUIRE(deep && dsaved);
            for (k = g.out_first[g.edges[e0].callee]; k < g.out_first[g.edges[e0].callee + 1]; k++)
                if (g.edges[g.out_edge[k]].flags & CTXPROF_GRAPH_EDGE_CYCLIC)
                    ring = g.out_edge[k];
            REQUIRE(ring != UINT32_MAX);
            deep[0] = e0;
            node = g.edges[e0].callee;
            for (k = 0; k < 20001; k++) {
                uint32_t e = k == 0 ? e0 : UINT32_MAX, j;
                if (k > 0) /* a cyclic edge out of the current ring member */
                    for (j = g.out_first[node]; j < g.out_first[node + 1]; j++)
                        if (g.edges[g.out_edge[j]].flags & CTXPROF_GRAPH_EDGE_CYCLIC)
                            e = g.out_edge[j];
                REQUIRE(e != UINT32_MAX);
                deep[k] = e;
                for (s = 1; s < CTXPROF_ENC_NSCHEMES; s++)
                    dsaved[k * CTXPROF_ENC_NSCHEMES + (size_t)s] =
                        ctxprof_enc_enter(&st[s], t[s].acyc_bits, &t[s].ops[e]);
                node = g.edges[e].callee;
            }
            for (s = 1; s < CTXPROF_ENC_NSCHEMES; s++) {
                CHECK(pcce_decodes_to_long(&t[s], &st[s], node, deep, 20001));
                CHECK_EQ(st[s].dropped, 0);
            }
            for (k = 20001; k-- > 0;) {
                for (s = 1; s < CTXPROF_ENC_NSCHEMES; s++)
                    ctxprof_enc_leave(&st[s], t[s].acyc_bits, &t[s].ops[deep[k]],
                                      dsaved[k * CTXPROF_ENC_NSCHEMES + (size_t)s]);
                node = g.edges[deep[k]].caller;
                if (k % 5000 == 1)
                    for (s = 1; s < CTXPROF_ENC_NSCHEMES; s++)
                        CHECK(pcce_decodes_to_long(&t[s], &st[s], node, deep, k));
            }
            for (s = 1; s < CTXPROF_ENC_NSCHEMES; s++) {
                CHECK_EQ(st[s].n, 0);
                CHECK_EQ(st[s].depth, 0);
                CHECK_EQ(st[s].acyc[0], 0);
            }
            free(deep);
            free(dsaved);
        }
        for (s = 1; s < CTXPROF_ENC_NSCHEMES; s++) {
            ctxprof_enc_deinit(&st[s]);
            ctxprof_enc_tables_free(&t[s], NULL);
        }
        ctxprof_graph_deinit(&g);
    }
}

/* Layers of two functions, each calling both of the next layer: layer i
   has 2^i contexts. 64 layers fit a 64-bit id; 65 (2^64 contexts, more
   than the 2^64 - 1 an id counts) do not; 80 layers with a recursive call
   back to main neither. */
static void pcce_overflow(void)
{
    static const unsigned layers[] = {64, 65, 80};
    size_t k;
    for (k = 0; k < 3; k++) {
        ctxprof_graph g;
        ctxprof_enc_stats s;
        ctxprof_enc_check_result r;
        ctxprof_error err;
        char a[16], b[16];
        unsigned i, x, y;
        ctxprof_graph_init(&g, NULL);
        for (i = 0; i < layers[k]; i++)
            for (x = 0; x < 2; x++)
                for (y = 0; y < 2; y++) {
                    snprintf(a, sizeof a, i ? "%c%u" : "main", 'a' + x, i - 1);
                    snprintf(b, sizeof b, "%c%u", 'a' + y, i);
                    if (i || x == 0)
                        ctxprof_graph_add_edge(&g, a, b, NULL);
                }
        if (k == 2)
            ctxprof_graph_add_edge(&g, "b79", "main", NULL);
        REQUIRE_EQ(ctxprof_graph_finish(&g), CTXPROF_OK);
        REQUIRE_EQ(ctxprof_enc_stats_compute(&g, &s, &err), CTXPROF_OK);
        /* bits(numCC - 1): 2^63 contexts need 63 bits, 2^64 need 64; with
           the back edge main has a second (dummy) context: 2^80 */
        CHECK_EQ(s.pcce_bits, k == 2 ? 80 : layers[k] - 1);
        if (k == 0)
            CHECK_EQ(s.pcce_push_edges, 0);
        else
            CHECK(s.pcce_push_edges > 0); /* cut into push edges */
        if (k < 2) {
            CHECK_EQ(s.hcce_bits, layers[k] - 1);
            CHECK_EQ(s.valence_bits, layers[k] - 1); /* one edge-code bit per layer */
            CHECK_EQ(s.hcce_push_edges, k == 0 ? 0 : s.hcce_push_edges);
            CHECK(k == 0 || s.hcce_push_edges > 0);
            CHECK(s.auto_bits <= 64);
        }
        pcce_check_all(&g, 60, 100, k, &r);
        ctxprof_graph_deinit(&g);
    }
}

/* The bit stack against a reference bit string: random widths 0..64,
   pushes and pops, with several acyclic bases (the stack shares the last
   acyclic word), checking the query's words and bit count every step. */
static void pcce_bitstack_reference(void)
{
    static const uint32_t bases[] = {0, 1, 7, 63, 64, 65, 130};
    size_t bi;
    for (bi = 0; bi < sizeof bases / sizeof bases[0]; bi++) {
        uint32_t base = bases[bi], widths[3000];
        unsigned char ref[3000 * 64 + 200]; /* the logical bit string */
        uint64_t rng = 77 + base, nref = 0, i;
        size_t depth = 0, step;
        ctxprof_enc st;
        ctxprof_enc_init(&st, NULL);
        for (i = 0; i * 64 < base; i++) /* an acyclic part: a pattern in its bits */
            st.acyc[i] = (0x5A5A5A5A5A5A5A5Au ^ i) &
                         (base - i * 64 >= 64 ? ~0ull : (1ull << (base - i * 64)) - 1);
        for (nref = 0; nref < base; nref++)
            ref[nref] = (unsigned char)(st.acyc[nref / 64] >> (nref % 64) & 1);
        for (step = 0; step < 6000; step++) {
            ctxprof_enc_view v;
            uint64_t bad = 0;
            int push = depth == 0 || (depth < 3000 && ctxprof_test_rand(&rng) % 100 < 55);
            if (push) {
                uint32_t k = (uint32_t)(ctxprof_test_rand(&rng) % 66);
                uint64_t val = ctxprof_test_rand(&rng);
                if (k > 64)
                    k = 64;
                val = k == 64 ? val : val & ((1ull << k) - 1);
                ctxprof_enc_push(&st, base, k, val);
                for (i = 0; i < k; i++) /* appended high bit first */
                    ref[nref++] = (unsigned char)(val >> (k - 1 - i) & 1);
                widths[depth++] = k;
            } else {
                uint32_t k = widths[--depth];
                ctxprof_enc_pop(&st, base, k);
                nref -= k;
            }
            ctxprof_enc_query(&st, base, &v);
            CHECK_EQ(v.n_bits, nref);
            CHECK(!v.truncated);
            /* decode the layout: acyclic bits, then the stack read back */
            for (i = 0; i < base; i++)
                if ((v.words[i / 64] >> (i % 64) & 1) != ref[i])
                    bad++;
            {
                ctxprof__stk S;
                uint64_t p;
                S.w = v.words;
                S.a = base / 64;
                S.r = base % 64;
                S.R = nref - base;
                S.top = S.R;
                for (p = S.R; p > 0; p--)
                    if (ctxprof__stk_pop(&S, 1) != ref[base + p - 1])
                        bad++;
            }
            CHECK_EQ(bad, 0);
            if (bad)
                break;
        }
        ctxprof_enc_deinit(&st);
    }
}

/* A stack limit: pushes beyond it are counted, the query says truncated,
   and after returning below the limit the encoding decodes again; at every
   depth on the way back, a view either decodes to the true path or says
   truncated (a word lost at the limit comes back as zeros). Also with
   limits of 1 to 3 words, where no stack memory may be kept at all. */
static void pcce_stack_limit(void)
{
    ctxprof_graph g;
    ctxprof_enc_tables t;
    ctxprof_error err;
    ctxprof_enc st;
    ctxprof_enc_desc d;
    ctxprof_enc_view v;
    uint32_t path[600], out[600], e_rec, e_entry;
    uint64_t saved[600];
    size_t i, n;
    int s;
    REQUIRE(pcce_graph_text(&g, "ctxprof-callgraph 1\nroot main\ncall main f\ncall f f\n") == 0);
    e_entry = pcce_edge(&g, "main", "f", 0);
    e_rec = pcce_edge(&g, "f", "f", 0);
    path[0] = e_entry; /* main > f > f > ... */
    for (i = 1; i < 600; i++)
        path[i] = e_rec;
    for (s = 1; s < CTXPROF_ENC_NSCHEMES; s++) {
        unsigned lim;
        REQUIRE_EQ(ctxprof_enc_build(&g, s, &t, &err), CTXPROF_OK);
        for (lim = 1; lim <= 3; lim++) {
            size_t bad = 0;
            memset(&d, 0, sizeof d);
            d.max_words = lim;
            ctxprof_enc_init(&st, &d);
            pcce_enter_path(&t, &st, path, 300, saved);
            for (i = 300; i-- > 1;) {
                ctxprof_enc_query(&st, t.acyc_bits, &v);
                if (v.truncated ? ctxprof_enc_decode_view(&t, &v, pcce_node(&g, "f"), out, 600,
                                                          &n, &err) != CTXPROF_ERR_RANGE
                                : !pcce_decodes_to(&t, &st, pcce_node(&g, "f"), path, i + 1))
                    bad++;
                ctxprof_enc_leave(&st, t.acyc_bits, &t.ops[e_rec], saved[i]);
            }
            CHECK_EQ(bad, 0);
            ctxprof_enc_leave(&st, t.acyc_bits, &t.ops[e_entry], saved[0]);
            ctxprof_enc_deinit(&st);
        }
        memset(&d, 0, sizeof d);
        d.max_words = 4;
        ctxprof_enc_init(&st, &d);
        pcce_enter_path(&t, &st, path, 600, saved);
        ctxprof_enc_query(&st, t.acyc_bits, &v);
        CHECK(v.truncated); /* every scheme spends >= 1 bit per recursive call */
        CHECK(v.n_bits >= 599);
        /* 4 of the stack's words are kept, every other one is counted */
        CHECK_EQ(st.dropped, (v.n_bits + 63) / 64 - t.acyc_bits / 64 - 4);
        if (s == CTXPROF_ENC_PCCE) /* one 64-bit word per recursive call */
            CHECK_EQ(st.dropped, 599 - 4);
        CHECK_EQ(ctxprof_enc_decode_view(&t, &v, pcce_node(&g, "f"), out, 600, &n, &err),
                 CTXPROF_ERR_RANGE);
        CHECK_CONTAINS(err.detail, "truncated");
        CHECK(st.capw <= 4 + t.acyc_words);
        for (i = 600; i-- > 1;) {
            ctxprof_enc_leave(&st, t.acyc_bits, &t.ops[e_rec], saved[i]);
            if (i == 3)
                CHECK(pcce_decodes_to(&t, &st, pcce_node(&g, "f"), path, 3));
        }
        ctxprof_enc_leave(&st, t.acyc_bits, &t.ops[e_entry], saved[0]);
        CHECK_EQ(st.n, 0);
        CHECK_EQ(st.depth, 0);
        ctxprof_enc_deinit(&st);
        ctxprof_enc_tables_free(&t, NULL);
    }
    ctxprof_graph_deinit(&g);
}

/* Equal contexts give equal words and hashes whatever the history; the
   hash separates contexts and query points and works as a PCC context
   value in a context set. */
static void pcce_query_hash(void)
{
    ctxprof_graph g;
    ctxprof_enc_tables t;
    ctxprof_error err;
    ctxprof_enc a, b;
    ctxprof_enc_view va, vb;
    uint32_t e_mf, e_ff, e_fg, e_mg;
    int s;
    REQUIRE(pcce_graph_text(&g, "ctxprof-callgraph 1\nroot main\ncall main f\ncall f f\n"
                                "call f g\ncall main g\ncall g f\n") == 0);
    e_mf = pcce_edge(&g, "main", "f", 0);
    e_ff = pcce_edge(&g, "f", "f", 0);
    e_fg = pcce_edge(&g, "f", "g", 0);
    e_mg = pcce_edge(&g, "main", "g", 0);
    for (s = 1; s < CTXPROF_ENC_NSCHEMES; s++) {
        uint64_t x[8], y[4];
        ctxprof_ctx ha, hb;
        size_t i;
        REQUIRE_EQ(ctxprof_enc_build(&g, s, &t, &err), CTXPROF_OK);
        ctxprof_enc_init(&a, NULL);
        ctxprof_enc_init(&b, NULL);
        /* a: main f f f g, after a detour f f f f f f ... and back */
        x[0] = ctxprof_enc_enter(&a, t.acyc_bits, &t.ops[e_mf]);
        for (i = 1; i < 8; i++)
            x[i] = ctxprof_enc_enter(&a, t.acyc_bits, &t.ops[e_ff]);
        for (i = 7; i >= 3; i--)
            ctxprof_enc_leave(&a, t.acyc_bits, &t.ops[e_ff], x[i]);
        x[3] = ctxprof_enc_enter(&a, t.acyc_bits, &t.ops[e_fg]);
        /* b: the same path directly */
        y[0] = ctxprof_enc_enter(&b, t.acyc_bits, &t.ops[e_mf]);
        y[1] = ctxprof_enc_enter(&b, t.acyc_bits, &t.ops[e_ff]);
        y[2] = ctxprof_enc_enter(&b, t.acyc_bits, &t.ops[e_ff]);
        y[3] = ctxprof_enc_enter(&b, t.acyc_bits, &t.ops[e_fg]);
        ctxprof_enc_query(&a, t.acyc_bits, &va);
        ctxprof_enc_query(&b, t.acyc_bits, &vb);
        CHECK_EQ(va.n_bits, vb.n_bits);
        REQUIRE_EQ(va.n_words, vb.n_words);
        CHECK(memcmp(va.words, vb.words, va.n_words * 8) == 0);
        /* the query point's node as the site, as the header recommends */
        ha = ctxprof_enc_hash(&a, t.acyc_bits, pcce_node(&g, "g"));
        hb = ctxprof_enc_hash(&b, t.acyc_bits, pcce_node(&g, "g"));
        CHECK_EQ(ha, hb);
        CHECK_NE(ha, ctxprof_enc_hash(&a, t.acyc_bits, 99)); /* another query point */
        ctxprof_enc_leave(&b, t.acyc_bits, &t.ops[e_fg], y[3]);
        CHECK_NE(ha, ctxprof_enc_hash(&b, t.acyc_bits, pcce_node(&g, "f")));
        ctxprof_enc_leave(&b, t.acyc_bits, &t.ops[e_ff], y[2]);
        ctxprof_enc_leave(&b, t.acyc_bits, &t.ops[e_ff], y[1]);
        ctxprof_enc_leave(&b, t.acyc_bits, &t.ops[e_mf], y[0]);
        y[0] = ctxprof_enc_enter(&b, t.acyc_bits, &t.ops[e_mg]); /* main g: another context */
        CHECK_NE(ctxprof_enc_hash(&b, t.acyc_bits, pcce_node(&g, "g")), ha);
        {
            /* the hash feeds a PCC context set: trained with a's context,
               the set knows it and reports b's new one */
            ctxprof_pcc_set set;
            ctxprof_pcc_set_desc sd;
            memset(&sd, 0, sizeof sd);
            sd.mode = CTXPROF_PCC_TRAIN;
            REQUIRE_EQ(ctxprof_pcc_set_init(&set, &sd), CTXPROF_OK);
            CHECK_EQ(ctxprof_pcc_set_check(&set, ha, CTXPROF_PCC_LOC), 0);
            ctxprof_pcc_set_mode(&set, CTXPROF_PCC_CHECK);
            CHECK_EQ(ctxprof_pcc_set_check(&set, hb, CTXPROF_PCC_LOC), 1);
            CHECK_EQ(ctxprof_pcc_set_check(&set,
                                           ctxprof_enc_hash(&b, t.acyc_bits, pcce_node(&g, "g")),
                                           CTXPROF_PCC_LOC),
                     0);
            ctxprof_pcc_set_deinit(&set);
        }
        ctxprof_enc_deinit(&a);
        ctxprof_enc_deinit(&b);
        ctxprof_enc_tables_free(&t, NULL);
    }
    ctxprof_graph_deinit(&g);
}

/* The per-thread states: two threads recurse to different depths through
   the TLS state and each decodes its own path. */
typedef struct pcce_thread_arg {
    const ctxprof_enc_tables *t;
    uint32_t e_entry, e_rec, node;
    unsigned depth;
    int ok;
} pcce_thread_arg;

static void *pcce_thread_main(void *p)
{
    pcce_thread_arg *A = (pcce_thread_arg *)p;
    ctxprof_enc *st = &ctxprof_val_auto_tls;
    uint32_t path[200];
    uint64_t saved[200];
    unsigned i, round;
    A->ok = 1;
    for (round = 0; round < 50; round++) {
        path[0] = A->e_entry;
        saved[0] = ctxprof_enc_enter(st, A->t->acyc_bits, &A->t->ops[A->e_entry]);
        for (i = 1; i < A->depth; i++) {
            path[i] = A->e_rec;
            saved[i] = ctxprof_enc_enter(st, A->t->acyc_bits, &A->t->ops[A->e_rec]);
        }
        if (!pcce_decodes_to(A->t, st, A->node, path, A->depth))
            A->ok = 0;
        for (i = A->depth; i-- > 0;)
            ctxprof_enc_leave(st, A->t->acyc_bits, &A->t->ops[path[i]], saved[i]);
    }
    ctxprof_enc_deinit(st);
    return NULL;
}

static void pcce_threads(void)
{
    ctxprof_graph g;
    ctxprof_enc_tables t;
    ctxprof_error err;
    pthread_t th[2];
    pcce_thread_arg A[2];
    int i;
    REQUIRE(pcce_graph_text(&g, "ctxprof-callgraph 1\nroot main\ncall main f\ncall f f\n"
                                "call f g\ncall g f\n") == 0);
    REQUIRE_EQ(ctxprof_enc_build(&g, CTXPROF_ENC_AUTO, &t, &err), CTXPROF_OK);
    for (i = 0; i < 2; i++) {
        A[i].t = &t;
        A[i].e_entry = pcce_edge(&g, "main", "f", 0);
        A[i].e_rec = pcce_edge(&g, "f", "f", 0);
        A[i].node = pcce_node(&g, "f");
        A[i].depth = i ? 150 : 3;
        REQUIRE_EQ(pthread_create(&th[i], NULL, pcce_thread_main, &A[i]), 0);
    }
    for (i = 0; i < 2; i++) {
        pthread_join(th[i], NULL);
        CHECK(A[i].ok);
    }
    ctxprof_enc_tables_free(&t, NULL);
    ctxprof_graph_deinit(&g);
}

/* Decoder errors: bad arguments, a path longer than the buffer, a query
   point the encoding does not lead to, words that are not an encoding. */
static void pcce_decode_errors(void)
{
    ctxprof_graph g;
    ctxprof_enc_tables t;
    ctxprof_error err;
    ctxprof_enc st;
    ctxprof_enc_view v;
    uint32_t out[16];
    size_t n;
    uint64_t saved[3];
    int s;
    REQUIRE(pcce_graph_file(&g, "tests/data/fig1.txt") == 0);
    for (s = 1; s < CTXPROF_ENC_NSCHEMES; s++) {
        REQUIRE_EQ(ctxprof_enc_build(&g, s, &t, &err), CTXPROF_OK);
        ctxprof_enc_init(&st, NULL);
        saved[0] = ctxprof_enc_enter(&st, t.acyc_bits, &t.ops[pcce_edge(&g, "A", "C", 0)]);
        saved[1] = ctxprof_enc_enter(&st, t.acyc_bits, &t.ops[pcce_edge(&g, "C", "E", 0)]);
        saved[2] = ctxprof_enc_enter(&st, t.acyc_bits, &t.ops[pcce_edge(&g, "E", "G", 0)]);
        ctxprof_enc_query(&st, t.acyc_bits, &v);
        CHECK_EQ(ctxprof_enc_decode(&t, v.words, v.n_bits, pcce_node(&g, "G"), out, 16, &n, &err),
                 CTXPROF_OK);
        CHECK_EQ(n, 3);
        CHECK_EQ(ctxprof_enc_decode(&t, v.words, v.n_bits, pcce_node(&g, "G"), out, 2, &n, &err),
                 CTXPROF_ERR_FULL);
        CHECK_EQ(ctxprof_enc_decode(&t, v.words, v.n_bits, 99, out, 16, &n, &err),
                 CTXPROF_ERR_INVAL);
        CHECK_EQ(ctxprof_enc_decode(&t, v.words, 0, pcce_node(&g, "G"), out, 16, &n, &err),
                 t.acyc_bits ? CTXPROF_ERR_INVAL : CTXPROF_OK);
        /* the same words read at B: B has one context and the numbered id
           (2) is out of its range; Valence's bits there spell A -> B */
        if (s == CTXPROF_ENC_VALENCE) {
            CHECK_EQ(ctxprof_enc_decode(&t, v.words, v.n_bits, pcce_node(&g, "B"), out, 16, &n,
                                        &err),
                     CTXPROF_OK);
            CHECK_EQ(n, 1);
        } else {
            CHECK_EQ(ctxprof_enc_decode(&t, v.words, v.n_bits, pcce_node(&g, "B"), out, 16, &n,
                                        &err),
                     CTXPROF_ERR_CORRUPT);
            CHECK_CONTAINS(err.detail, "not an encoding of a path to 'B'");
        }
        {
            char buf[64];
            CHECK_EQ(ctxprof_enc_decode(&t, v.words, v.n_bits, pcce_node(&g, "G"), out, 16, &n,
                                        &err),
                     CTXPROF_OK);
            CHECK_EQ(ctxprof_enc_format(&t, g.root, out, n, buf, sizeof buf),
                     strlen("A -> C -> E -> G"));
            CHECK_STR(buf, "A -> C -> E -> G");
            CHECK_EQ(ctxprof_enc_format(&t, g.root, out, n, buf, 6), strlen("A -> C -> E -> G"));
            CHECK_STR(buf, "A -> ");
            out[1] = t.n_edges; /* not an edge: named, not read */
            out[2] = UINT32_MAX;
            CHECK_EQ(ctxprof_enc_format(&t, g.root, out, n, buf, sizeof buf),
                     strlen("A -> C -> ?(edge 00) -> ?(edge 4294967295)") - 2 +
                         (size_t)snprintf(NULL, 0, "%u", (unsigned)t.n_edges));
            CHECK_CONTAINS(buf, " -> ?(edge 4294967295)");
            out[0] = UINT32_MAX;
            CHECK_EQ(ctxprof_enc_format(&t, g.root, out, 1, buf, sizeof buf),
                     strlen("A -> ?(edge 4294967295)"));
            CHECK_STR(buf, "A -> ?(edge 4294967295)");
        }
        ctxprof_enc_leave(&st, t.acyc_bits, &t.ops[pcce_edge(&g, "E", "G", 0)], saved[2]);
        ctxprof_enc_leave(&st, t.acyc_bits, &t.ops[pcce_edge(&g, "C", "E", 0)], saved[1]);
        ctxprof_enc_leave(&st, t.acyc_bits, &t.ops[pcce_edge(&g, "A", "C", 0)], saved[0]);
        ctxprof_enc_deinit(&st);
        ctxprof_enc_tables_free(&t, NULL);
    }
    /* garbage words never crash nor loop: each is decoded or refused */
    {
        uint64_t rng = 5, w[4];
        int k;
        for (s = 1; s < CTXPROF_ENC_NSCHEMES; s++) {
            REQUIRE_EQ(ctxprof_enc_build(&g, s, &t, &err), CTXPROF_OK);
            for (k = 0; k < 2000; k++) {
                int rc;
                w[0] = ctxprof_test_rand(&rng) >> (ctxprof_test_rand(&rng) % 64);
                w[1] = ctxprof_test_rand(&rng);
                rc = ctxprof_enc_decode(&t, w, t.acyc_bits, (uint32_t)(k % 10), out, 16, &n, &err);
                CHECK(rc == CTXPROF_OK || rc == CTXPROF_ERR_CORRUPT);
            }
            ctxprof_enc_tables_free(&t, NULL);
        }
    }
    CHECK_EQ(ctxprof_enc_build(&g, 9, &t, &err), CTXPROF_ERR_INVAL);
    ctxprof_graph_deinit(&g);
}


/* An error argument describes its call alone: build, stats and check
   clear a failure that an earlier call left in it. */
static void pcce_err_arg_cleared(void)
{
    ctxprof_graph g;
    ctxprof_enc_tables t;
    ctxprof_enc_stats st;
    ctxprof_enc_check_result cr;
    ctxprof_error err;
    REQUIRE(pcce_graph_file(&g, "tests/data/fig1.txt") == 0);
    CHECK_EQ(ctxprof_enc_build(&g, 99, &t, &err), CTXPROF_ERR_INVAL);
    REQUIRE_EQ(ctxprof_enc_build(&g, CTXPROF_ENC_PCCE, &t, &err), CTXPROF_OK);
    CHECK_EQ(err.status, CTXPROF_OK);
    CHECK_STR(err.detail, "");
    ctxprof_enc_tables_free(&t, NULL);
    CHECK_EQ(ctxprof_enc_build(&g, 99, &t, &err), CTXPROF_ERR_INVAL);
    REQUIRE_EQ(ctxprof_enc_stats_compute(&g, &st, &err), CTXPROF_OK);
    CHECK_EQ(err.status, CTXPROF_OK);
    CHECK_EQ(ctxprof_enc_build(&g, 99, &t, &err), CTXPROF_ERR_INVAL);
    REQUIRE_EQ(ctxprof_enc_check(&g, NULL, &cr, &err), CTXPROF_OK);
    CHECK_EQ(err.status, CTXPROF_OK);
    ctxprof_graph_deinit(&g);
}

/* The decoders' bad arguments, NULL ones included, fail with
   CTXPROF_ERR_INVAL and say which (in a child: the old code crashed), and
   err describes each call alone (a success after a failure clears it). */
typedef struct pcce_bad_args {
    const ctxprof_enc_tables *t;
    const ctxprof_enc_view *v;
    uint32_t node;
} pcce_bad_args;

static int pcce_decode_null_child(void *arg, void *shared)
{
    const pcce_bad_args *a = (const pcce_bad_args *)arg;
    ctxprof_error err;
    uint32_t out[16];
    size_t n = 7;
    int bad = 0;
    (void)shared;
    bad |= ctxprof_enc_decode_view(a->t, NULL, a->node, out, 16, &n, &err) != CTXPROF_ERR_INVAL;
    bad |= n != 0 || !strstr(err.detail, "view is NULL");
    bad |= ctxprof_enc_decode_view(NULL, a->v, a->node, out, 16, &n, &err) != CTXPROF_ERR_INVAL;
    bad |= !strstr(err.detail, "tables are NULL");
    bad |= ctxprof_enc_decode_view(a->t, a->v, a->node, out, 16, NULL, &err) != CTXPROF_ERR_INVAL;
    bad |= !strstr(err.detail, "out_n is NULL");
    bad |= ctxprof_enc_decode(a->t, a->v->words, a->v->n_bits, a->node, out, 16, NULL, NULL) !=
           CTXPROF_ERR_INVAL;
    bad |= ctxprof_enc_decode(a->t, a->v->words, a->v->n_bits, a->node, NULL, 16, &n, &err) !=
           CTXPROF_ERR_INVAL;
    bad |= !strstr(err.detail, "out is NULL with cap 16");
    bad |= ctxprof_enc_decode(a->t, NULL, a->v->n_bits, a->node, out, 16, &n, &err) !=
           CTXPROF_ERR_INVAL;
    bad |= !strstr(err.detail, "words is NULL");
    return bad;
}

static void pcce_decode_bad_args(void)
{
    ctxprof_graph g;
    ctxprof_enc_tables t;
    ctxprof_error err;
    ctxprof_enc st;
    ctxprof_enc_view v;
    pcce_bad_args a;
    uint32_t out[16];
    size_t n;
    int sig = 0;
    REQUIRE(pcce_graph_file(&g, "tests/data/fig1.txt") == 0);
    REQUIRE_EQ(ctxprof_enc_build(&g, CTXPROF_ENC_PCCE, &t, &err), CTXPROF_OK);
    ctxprof_enc_init(&st, NULL);
    ctxprof_enc_enter(&st, t.acyc_bits, &t.ops[pcce_edge(&g, "A", "C", 0)]);
    ctxprof_enc_query(&st, t.acyc_bits, &v);
    a.t = &t;
    a.v = &v;
    a.node = pcce_node(&g, "C");
    CHECK_EQ(ctxprof_test_child(pcce_decode_null_child, &a, NULL, 60, &sig), 0);
    CHECK_EQ(sig, 0);
    CHECK_EQ(ctxprof_enc_decode_view(&t, &v, 999, out, 16, &n, &err), CTXPROF_ERR_INVAL);
    {
        char want[120];
        snprintf(want, sizeof want, "node 999 out of range: the tables have %u functions",
                 (unsigned)t.n_nodes);
        CHECK_CONTAINS(err.detail, want);
    }
    CHECK_EQ(ctxprof_enc_decode_view(&t, &v, a.node, out, 16, &n, &err), CTXPROF_OK);
    CHECK_EQ(n, 1);
    CHECK_EQ(err.status, CTXPROF_OK);
    CHECK_STR(err.detail, "");
    CHECK_EQ(ctxprof_enc_decode_view(&t, &v, a.node, NULL, 0, &n, &err), CTXPROF_ERR_FULL);
    ctxprof_enc_deinit(&st);
    ctxprof_enc_tables_free(&t, NULL);
    ctxprof_graph_deinit(&g);
}

/* Words that are no encoding, found by tests/fuzz/fuzz_enc.c: each was
   decoded to a path whose encoding is other words. */
static void pcce_decode_not_encodings(void)
{
    ctxprof_graph g;
    ctxprof_enc_tables t;
    ctxprof_error err;
    ctxprof_enc st;
    ctxprof_enc_view v;
    uint32_t out[8];
    uint64_t w[2];
    size_t n;
    /* AUTO: main calls itself, so its frames push a 1-bit code (0 =
       entered from outside) except the thread's bottom frame; a spare 0
       at main read as an entry code, and the start of the thread then
       matched */
    REQUIRE(pcce_graph_text(&g, "ctxprof-callgraph 1\nroot main\ncall main main\ncall main a\n") ==
            0);
    REQUIRE_EQ(ctxprof_enc_build(&g, CTXPROF_ENC_AUTO, &t, &err), CTXPROF_OK);
    ctxprof_enc_init(&st, NULL);
    (void)ctxprof_enc_enter(&st, t.acyc_bits, &t.ops[pcce_edge(&g, "main", "a", 0)]);
    ctxprof_enc_query(&st, t.acyc_bits, &v);
    REQUIRE(v.n_bits < 63);
    w[0] = v.words[0];
    w[1] = 0;
    CHECK_EQ(ctxprof_enc_decode(&t, w, v.n_bits, pcce_node(&g, "a"), out, 8, &n, &err), CTXPROF_OK);
    CHECK_EQ(n, 1);
    CHECK_EQ(ctxprof_enc_decode(&t, w, v.n_bits + 1, pcce_node(&g, "a"), out, 8, &n, &err),
             CTXPROF_ERR_CORRUPT);
    CHECK_CONTAINS(err.detail, "start of a thread at 'main'");
    w[0] |= UINT64_C(1) << v.n_bits; /* code 1: main -> main, then the bottom frame */
    CHECK_EQ(ctxprof_enc_decode(&t, w, v.n_bits + 1, pcce_node(&g, "a"), out, 8, &n, &err),
             CTXPROF_OK);
    CHECK_EQ(n, 2);
    ctxprof_enc_deinit(&st);
    ctxprof_enc_tables_free(&t, NULL);
    ctxprof_graph_deinit(&g);
    /* and the converse: main (2-bit codes, b calls it from two sites) is
       also called by t, another entry point, which pushes the entry code;
       with the code missing, main was taken for the thread's bottom frame
       (empty stack) and the id still led on to t */
    REQUIRE(pcce_graph_text(&g, "ctxprof-callgraph 1\nroot main\ncall main b\ncall b main site=1\n"
                                "call b main site=2\ncall t main\n") == 0);
    REQUIRE_EQ(ctxprof_enc_build(&g, CTXPROF_ENC_AUTO, &t, &err), CTXPROF_OK);
    REQUIRE(t.node_rec_bits != NULL);
    CHECK_EQ(t.node_rec_bits[pcce_node(&g, "main")], 2);
    ctxprof_enc_init(&st, NULL);
    (void)ctxprof_enc_enter(&st, t.acyc_bits, &t.ops[pcce_edge(&g, "t", "main", 0)]);
    ctxprof_enc_query(&st, t.acyc_bits, &v);
    REQUIRE_EQ(v.n_bits, t.acyc_bits + 2);
    w[0] = v.words[0];
    CHECK_EQ(ctxprof_enc_decode(&t, w, v.n_bits, pcce_node(&g, "main"), out, 8, &n, &err),
             CTXPROF_OK);
    CHECK_EQ(n, 1);
    CHECK_EQ(ctxprof_enc_decode(&t, w, t.acyc_bits, pcce_node(&g, "main"), out, 8, &n, &err),
             CTXPROF_ERR_CORRUPT);
    CHECK_CONTAINS(err.detail, "no stack code at 'main'");
    ctxprof_enc_deinit(&st);
    ctxprof_enc_tables_free(&t, NULL);
    ctxprof_graph_deinit(&g);
    /* Valence: x is called by c0 (level 0) and by c20 (level 40, four
       sites a call), so the edge code of c0 -> x fills bits 0-39; the
       decoder read 32 of them and ignored ones in bits 32-39 */
    {
        char text[4096];
        size_t len = 0;
        uint32_t x;
        int i, k, bad = 0;
        len += (size_t)snprintf(text + len, sizeof text - len, "ctxprof-callgraph 1\nroot c0\n");
        for (i = 0; i < 20; i++)
            for (k = 0; k < 4; k++)
                len += (size_t)snprintf(text + len, sizeof text - len, "call c%d c%d site=s%d\n", i,
                                        i + 1, k);
        snprintf(text + len, sizeof text - len, "call c0 x\ncall c20 x\n");
        REQUIRE(pcce_graph_text(&g, text) == 0);
        REQUIRE_EQ(ctxprof_enc_build(&g, CTXPROF_ENC_VALENCE, &t, &err), CTXPROF_OK);
        x = pcce_node(&g, "x");
        REQUIRE_EQ(t.lv_level[t.scc_of_node[x]], 41);
        ctxprof_enc_init(&st, NULL);
        (void)ctxprof_enc_enter(&st, t.acyc_bits, &t.ops[pcce_edge(&g, "c0", "x", 0)]);
        ctxprof_enc_query(&st, t.acyc_bits, &v);
        REQUIRE_EQ(v.n_bits, 41);
        CHECK_EQ(ctxprof_enc_decode(&t, v.words, v.n_bits, x, out, 8, &n, &err), CTXPROF_OK);
        for (i = 0; i < 40; i++) { /* every bit of the field counts */
            w[0] = v.words[0] ^ UINT64_C(1) << i;
            if (ctxprof_enc_decode(&t, w, v.n_bits, x, out, 8, &n, &err) != CTXPROF_ERR_CORRUPT)
                bad++;
        }
        CHECK_EQ(bad, 0);
        ctxprof_enc_deinit(&st);
        ctxprof_enc_tables_free(&t, NULL);
        ctxprof_graph_deinit(&g);
    }
    /* HCCE: a chain of 40 calls, four sites each, overflows 64 bits, so
       calls deep in it are coded push edges (a stack code, the caller's
       id saved, the callee's id restarted at 0); decoding one popped the
       saved id and ignored the id it replaced */
    {
        char text[8192];
        size_t len = 0;
        uint32_t path[64], got[64], e = UINT32_MAX, d = 0;
        uint64_t saved2[64];
        int i, j;
        len += (size_t)snprintf(text + len, sizeof text - len, "ctxprof-callgraph 1\nroot c0\n");
        for (i = 0; i < 40; i++)
            for (j = 0; j < 4; j++)
                len += (size_t)snprintf(text + len, sizeof text - len, "call c%d c%d site=s%d\n", i,
                                        i + 1, j);
        REQUIRE(pcce_graph_text(&g, text) == 0);
        REQUIRE_EQ(ctxprof_enc_build(&g, CTXPROF_ENC_HCCE, &t, &err), CTXPROF_OK);
        for (i = 0; i < 40 && e == UINT32_MAX; i++) { /* c0 -> c1 -> ... -> the first push edge */
            char a[16], b[16];
            snprintf(a, sizeof a, "c%d", i);
            snprintf(b, sizeof b, "c%d", i + 1);
            path[d] = pcce_edge(&g, a, b, 0);
            if (t.ops[path[d]].id_push && t.ops[path[d]].push_bits)
                e = path[d];
            d++;
        }
        REQUIRE(e != UINT32_MAX);
        CHECK_EQ(t.ops[e].id_new + t.ops[e].add, 0);
        ctxprof_enc_init(&st, NULL);
        pcce_enter_path(&t, &st, path, d, saved2);
        CHECK(pcce_decodes_to(&t, &st, t.edge_callee[e], path, d));
        ctxprof_enc_query(&st, t.acyc_bits, &v);
        {
            uint64_t *w2 = (uint64_t *)malloc(v.n_words * 8);
            REQUIRE(w2 != NULL);
            memcpy(w2, v.words, v.n_words * 8);
            w2[0] ^= 1; /* the callee's id: 1, not 0 */
            CHECK_EQ(ctxprof_enc_decode(&t, w2, v.n_bits, t.edge_callee[e], got, 64, &n, &err),
                     CTXPROF_ERR_CORRUPT);
            CHECK_CONTAINS(err.detail, "push edge");
            free(w2);
        }
        ctxprof_enc_deinit(&st);
        ctxprof_enc_tables_free(&t, NULL);
        ctxprof_graph_deinit(&g);
    }
}

/* Stack growth publishes the new block before it frees the old one: a
   query in a signal handler landing in between wrote into freed memory.
   The program's free hook checks that the state no longer points at the
   block it frees, and raises a signal whose handler queries. */
static void pcce_grow_signal_safe(void)
{
    const char *d = ctxprof_test_tmpdir();
    char path[600], cwd[512];
    FILE *f;
    PLAIN_BUILD_ONLY();
    REQUIRE(getcwd(cwd, sizeof cwd) != NULL);
    snprintf(path, sizeof path, "%s/grow.c", d);
    REQUIRE((f = fopen(path, "w")) != NULL);
    fputs("#include <signal.h>\n#include <stdlib.h>\n"
          "static void grow_free(void *p);\n"
          "#define CTXPROF_MALLOC(sz, ud) ((void)(ud), malloc(sz))\n"
          "#define CTXPROF_FREE(p, ud) ((void)(ud), grow_free(p))\n"
          "#define CTXPROF_IMPLEMENTATION\n#include \"ctxprof.h\"\n"
          "static ctxprof_enc st;\nstatic volatile int bad, freed;\n"
          "static volatile ctxprof_ctx sink;\n"
          "static void on_prof(int sig)\n{\n    (void)sig;\n"
          "    sink = ctxprof_enc_hash(&st, 64, 1);\n}\n"
          "static void grow_free(void *p)\n{\n    if (p == st.buf)\n        bad = 1;\n"
          "    freed++;\n    free(p);\n    raise(SIGPROF);\n}\n"
          "int main(void)\n{\n    uint64_t i;\n    signal(SIGPROF, on_prof);\n"
          "    for (i = 0; i < 200; i++)\n        ctxprof_enc_push(&st, 64, 64, i);\n"
          "    ctxprof_enc_deinit(&st);\n    return bad || freed < 4;\n}\n",
          f);
    REQUIRE(fclose(f) == 0);
    CHECK_EQ(ctxprof_test_sh("cd %s && %s -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -I%s "
                             "grow.c -o grow > grow.log 2>&1 && ./grow",
                             d, CTXPROF_TEST_CC, cwd),
             0);
}

/* Hand-made decode tables: tables reach the decoder from ctxprof_enc_build
   or as static arrays written by ctxprof-gen (maybe edited, maybe stale),
   so the decoder checks them as it goes. */
static const char *const pcce_hand_names[2] = {"main", "f"};
static const ctxprof_enc_op pcce_hand_ops[2];

/* t zeroed, then the graph of hand-made tables (every edge's site 0 and op
   empty, the names from pcce_hand_names + first). */
static void pcce_hand_graph(ctxprof_enc_tables *t, int scheme, uint32_t n_nodes, uint32_t n_edges,
                            size_t first, const uint32_t *caller, const uint32_t *callee,
                            const uint32_t *zero, const uint8_t *flags)
{
    memset(t, 0, sizeof *t);
    t->scheme = scheme;
    t->n_nodes = n_nodes;
    t->n_edges = n_edges;
    t->node_names = pcce_hand_names + first;
    t->edge_caller = caller;
    t->edge_callee = callee;
    t->edge_site = zero;
    t->ops = pcce_hand_ops;
    t->node_flags = flags;
}

/* The numbering of hand-made tables (PCCE, HCCE, AUTO): n_num numbered
   nodes, the ranges of each. */
static void pcce_hand_ranges(ctxprof_enc_tables *t, uint32_t n_num, const uint32_t *num_of_node,
                             const uint32_t *first, const uint64_t *lo, const uint32_t *ref,
                             const uint64_t *cc)
{
    t->n_num = n_num;
    t->num_of_node = num_of_node;
    t->range_first = first;
    t->range_lo = lo;
    t->range_ref = ref;
    t->num_cc = cc;
}

/* One node f that calls itself, with a range, a level group and no code:
   every step takes f -> f and consumes no bits. The decoder says so
   (a loop, CTXPROF_ERR_CORRUPT) long before the output buffer is full. */
static void pcce_decode_loop(void)
{
    static const uint32_t caller[1] = {0}, callee[1] = {0}, zero[1] = {0}, one_first[2] = {0, 1};
    static const uint64_t lo[1] = {0}, cc[1] = {1};
    static const uint8_t flags[1] = {0}, lvlen[1] = {0};
    static const int schemes[4] = {CTXPROF_ENC_PCCE, CTXPROF_ENC_HCCE, CTXPROF_ENC_AUTO,
                                   CTXPROF_ENC_VALENCE};
    static uint32_t out[4096];
    ctxprof_enc_tables t;
    ctxprof_error err;
    size_t n, i;
    for (i = 0; i < 4; i++) {
        pcce_hand_graph(&t, schemes[i], 1, 1, 1, caller, callee, zero, flags);
        t.node_rec_bits = lvlen;
        if (t.scheme == CTXPROF_ENC_VALENCE) {
            t.n_scc = 1;
            t.scc_of_node = zero;
            t.lv_level = zero;
            t.lv_len = lvlen;
            t.lv_first = one_first;
            t.grp_plevel = zero;
            t.grp_first = one_first;
            t.grp_edge = zero;
        } else {
            pcce_hand_ranges(&t, 1, zero, one_first, lo, zero, cc);
        }
        memset(&err, 0, sizeof err);
        n = 0;
        CHECK_EQ(ctxprof_enc_decode(&t, NULL, 0, 0, out, 4096, &n, &err), CTXPROF_ERR_CORRUPT);
        CHECK_CONTAINS(err.detail, "a loop at 'f'");
        CHECK_LT(n, 64); /* (0 stack bits + 2) * (1 node + 1), and one step more */
    }
}

/* PCCE: the range of a thread's start holds one id (ctxprof_enc_build makes
   it [0, 1)); one that the tables make wider holds just that one start. */
static void pcce_decode_root_range(void)
{
    static const uint32_t zero[1] = {0}, first[2] = {0, 1}, ref[1] = {CTXPROF_ENC_REF_ROOT};
    static const uint64_t lo[1] = {0}, cc[1] = {3};
    static const uint8_t flags[1] = {CTXPROF_ENC_NODE_ROOT};
    ctxprof_enc_tables t;
    ctxprof_error err;
    uint32_t out[8];
    uint64_t w;
    size_t n;
    pcce_hand_graph(&t, CTXPROF_ENC_PCCE, 1, 0, 0, zero, zero, zero, flags);
    pcce_hand_ranges(&t, 1, zero, first, lo, ref, cc);
    t.acyc_bits = 2;
    t.acyc_words = 1;
    for (w = 0; w < 4; w++) {
        memset(&err, 0, sizeof err);
        n = 99;
        if (w == 0) {
            CHECK_EQ(ctxprof_enc_decode(&t, &w, 2, 0, out, 8, &n, &err), CTXPROF_OK);
            CHECK_EQ(n, 0);
        } else {
            CHECK_EQ(ctxprof_enc_decode(&t, &w, 2, 0, out, 8, &n, &err), CTXPROF_ERR_CORRUPT);
            CHECK_CONTAINS(err.detail, w < 3 ? "start of a thread at 'main'"
                                             : "id outside the node's range at 'main'");
        }
    }
}

/* AUTO per-target codes: f is a coded entry point (2-bit codes: 0 entered
   from main, 1 from itself by f -> f); codes 2 and 3 are past f's one
   cyclic in-edge. cyc_edge holds one more edge past f's slice (main -> f),
   as the slice of a following node would: a code one past the slice must
   not read it. */
static void pcce_decode_target_code(void)
{
    static const uint32_t caller[2] = {0, 1}, callee[2] = {1, 1}, zero[2] = {0, 0};
    static const uint32_t num_of_node[2] = {0, 1}, rfirst[3] = {0, 1, 2};
    static const uint32_t rref[2] = {CTXPROF_ENC_REF_ROOT, 0};
    static const uint64_t rlo[2] = {0, 0}, cc[2] = {1, 1};
    static const uint8_t flags[2] = {CTXPROF_ENC_NODE_ROOT,
                                     CTXPROF_ENC_NODE_CODED | CTXPROF_ENC_NODE_ENTRY};
    static const uint8_t rec_bits[2] = {0, 2};
    static const uint32_t cyc_first[3] = {0, 0, 1}, cyc_edge[2] = {1, 0};
    ctxprof_enc_tables t;
    ctxprof_error err;
    uint32_t out[8];
    uint64_t w;
    size_t n;
    pcce_hand_graph(&t, CTXPROF_ENC_AUTO, 2, 2, 0, caller, callee, zero, flags);
    pcce_hand_ranges(&t, 2, num_of_node, rfirst, rlo, rref, cc);
    t.node_rec_bits = rec_bits;
    t.cyc_first = cyc_first;
    t.cyc_edge = cyc_edge;
    /* the tables decode: f entered from main (code 0), then f -> f (1) */
    w = 0;
    REQUIRE_EQ(ctxprof_enc_decode(&t, &w, 2, 1, out, 8, &n, &err), CTXPROF_OK);
    REQUIRE_EQ(n, 1);
    CHECK_EQ(out[0], 0);
    w = 1; /* top code 1 (low bits), below it 0 */
    REQUIRE_EQ(ctxprof_enc_decode(&t, &w, 4, 1, out, 8, &n, &err), CTXPROF_OK);
    REQUIRE_EQ(n, 2);
    CHECK_EQ(out[0], 0);
    CHECK_EQ(out[1], 1);
    for (w = 2; w < 4; w++) {
        memset(&err, 0, sizeof err);
        CHECK_EQ(ctxprof_enc_decode(&t, &w, 2, 1, out, 8, &n, &err), CTXPROF_ERR_CORRUPT);
        CHECK_CONTAINS(err.detail, "stack code at 'f'");
    }
}

static const ctxprof_test_case ctxprof_tests_pcce[] = {
    {"pcce_paper_figure1", pcce_paper_figure1},
    {"pcce_exhaustive_dags", pcce_exhaustive_dags},
    {"pcce_roundtrip_random", pcce_roundtrip_random},
    {"pcce_exhaustive_recursive", pcce_exhaustive_recursive},
    {"pcce_walks_many_sccs", pcce_walks_many_sccs},
    {"pcce_overflow", pcce_overflow},
    {"pcce_bitstack_reference", pcce_bitstack_reference},
    {"pcce_stack_limit", pcce_stack_limit},
    {"pcce_query_hash", pcce_query_hash},
    {"pcce_grow_signal_safe", pcce_grow_signal_safe},
    {"pcce_threads", pcce_threads},
    {"pcce_decode_errors", pcce_decode_errors},
    {"pcce_decode_bad_args", pcce_decode_bad_args},
    {"pcce_err_arg_cleared", pcce_err_arg_cleared},
    {"pcce_decode_not_encodings", pcce_decode_not_encodings},
    {"pcce_decode_loop", pcce_decode_loop},
    {"pcce_decode_root_range", pcce_decode_root_range},
    {"pcce_decode_target_code", pcce_decode_target_code},
    {0, 0}};
