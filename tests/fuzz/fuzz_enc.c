/* libFuzzer target: the precise encodings' decoders (PCCE, Valence, HCCE,
   AUTO) on hostile words, and the encoders' round trip.

   The input is a small call graph, then a tail of bytes. The graph is either
   ctxprof-callgraph text up to the first NUL byte (an input that starts with
   '#' or 'c', as the text does), or compact: a node count, the root, an edge count,
   then three bytes an edge (caller, callee, and 1-4 sites with labels), so
   that every mutation is a graph. Graphs are capped (FE_MAX_NODES,
   FE_MAX_EDGES) to keep each input fast. For every scheme that builds, the
   same tail drives:

   1. a random walk from an entry point (calls and returns, recursion
      included), through ctxprof_enc_enter/_leave on a state whose stack
      limit may be a few words: at every step (deeper than 64 calls, the
      steps the input picks) the view either says truncated
      (and ctxprof_enc_decode_view says CTXPROF_ERR_RANGE) or decodes to the
      walk's stack, has the words and hash of the same path entered on a
      fresh state (equal contexts, equal words), and formats right;
   2. decodes of hostile words, raw or the walk's last encoding with bits
      flipped and its length changed, at any node, with output buffers of
      any size (each of exactly its size, so ASan sees an overrun): a decode
      fails with a reason or gives a path of real edges from an entry point
      to the node, which, entered on a fresh state, gives the same bits (all
      of them; Valence-style levels: those below the node's level, the only
      ones its decoding reads, and zeros above) and decodes to itself; a
      path too long for the buffer gives its last edges;
   3. ctxprof_enc_format with buffers of every size up to the length;
   4. now and then ctxprof_enc_check on the graph, which must decode all. */
#define CTXPROF_IMPLEMENTATION
#include "../../ctxprof.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FE_MAX_NODES 48
#define FE_MAX_EDGES 192
#define FE_MAX_DEPTH 128
#define FE_MAX_STEPS 255
#define FE_CAP 8192 /* decode output, edges */

#define FE_CHECK(c)                                                                                \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            fprintf(stderr, "fuzz_enc.c:%d: %s (scheme %s)\n", __LINE__, #c, fe_scheme);           \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

static const char *fe_scheme = "?";

typedef struct fe_in {
    const uint8_t *p;
    size_t n;
} fe_in;

static unsigned fe_byte(fe_in *in)
{
    if (!in->n)
        return 0;
    in->n--;
    return *in->p++;
}

/* A run-time state, with the acyclic part in words of its own when it is
   wider than a state holds (as ctxprof_enc_check does). */
typedef struct fe_state {
    ctxprof_enc st;
    uint64_t *wide;
    uint64_t inl[4096 / 64 + 2];
    const ctxprof_enc_tables *t;
} fe_state;

static void fe_state_init(fe_state *s, const ctxprof_enc_tables *t, uint64_t max_words)
{
    ctxprof_enc_desc d;
    memset(&d, 0, sizeof d);
    d.max_words = max_words;
    ctxprof_enc_init(&s->st, &d);
    s->t = t;
    s->wide = NULL;
    if (t->acyc_words > CTXPROF_ENC_ACYC_WORDS) {
        FE_CHECK(t->acyc_words < sizeof s->inl / 8);
        s->wide = (uint64_t *)calloc((size_t)t->acyc_words + 1, 8);
        if (!s->wide)
            abort();
    }
}

static void fe_state_deinit(fe_state *s)
{
    ctxprof_enc_deinit(&s->st);
    free(s->wide);
}

static uint64_t fe_enter(fe_state *s, uint32_t e)
{
    return ctxprof__check_enter(&s->st, s->wide, s->t->acyc_bits, &s->t->ops[e]);
}

static void fe_leave(fe_state *s, uint32_t e, uint64_t saved)
{
    ctxprof__check_leave(&s->st, s->wide, s->t->acyc_bits, &s->t->ops[e], saved);
}

static void fe_query(fe_state *s, ctxprof_enc_view *v)
{
    if (s->wide)
        ctxprof__enc_query_at(&s->st, s->wide, s->t->acyc_bits, s->inl, v);
    else
        ctxprof_enc_query(&s->st, s->t->acyc_bits, v);
}

static int fe_bit(const uint64_t *w, uint64_t i)
{
    return (int)(w[i / 64] >> (i % 64) & 1);
}

/* ctxprof_enc_format: the exact text, its length for every buffer size, a
   NUL-terminated prefix in any buffer that is too small. */
static void fe_format(const ctxprof_enc_tables *t, uint32_t start, const uint32_t *path, size_t n,
                      unsigned sel)
{
    char *want, *buf;
    size_t len, i, cap, got, sz;
    uint32_t from = n ? t->edge_caller[path[0]] : start;
    cap = strlen(from < t->n_nodes ? t->node_names[from] : "?") + 1;
    for (i = 0; i < n; i++)
        cap += strlen(t->node_names[t->edge_callee[path[i]]]) + 16;
    want = (char *)malloc(cap);
    if (!want)
        abort();
    len = (size_t)snprintf(want, cap, "%s", from < t->n_nodes ? t->node_names[from] : "?");
    for (i = 0; i < n; i++) {
        uint32_t e = path[i];
        len += (size_t)snprintf(want + len, cap - len, " -> %s", t->node_names[t->edge_callee[e]]);
        if (t->edge_site[e])
            len += (size_t)snprintf(want + len, cap - len, "#%u", (unsigned)t->edge_site[e]);
    }
    FE_CHECK(len < cap);
    FE_CHECK(ctxprof_enc_format(t, start, path, n, NULL, 0) == len);
    /* the full size, and one smaller size picked by the input */
    for (i = 0; i < 2; i++) {
        sz = i == 0 ? len + 1 : sel % (len + 1);
        buf = (char *)malloc(sz ? sz : 1);
        if (!buf)
            abort();
        got = ctxprof_enc_format(t, start, path, n, sz ? buf : NULL, sz);
        FE_CHECK(got == len);
        if (sz) {
            FE_CHECK(strlen(buf) == (len < sz ? len : sz - 1));
            FE_CHECK(memcmp(buf, want, strlen(buf)) == 0);
        }
        free(buf);
    }
    free(want);
}

/* The path is real: edges of the graph, each from where the last one went,
   from an entry point to node. */
static void fe_valid_path(const ctxprof_graph *g, const ctxprof_enc_tables *t, uint32_t node,
                          const uint32_t *path, size_t n)
{
    size_t i;
    uint32_t at;
    if (n == 0) {
        FE_CHECK(t->node_flags[node] & CTXPROF_ENC_NODE_ROOT);
        FE_CHECK(g->nodes[node].flags & CTXPROF_GRAPH_NODE_ROOT);
        return;
    }
    FE_CHECK(path[0] < t->n_edges);
    at = t->edge_caller[path[0]];
    FE_CHECK(t->node_flags[at] & CTXPROF_ENC_NODE_ROOT);
    FE_CHECK(g->nodes[at].flags & CTXPROF_GRAPH_NODE_ROOT);
    for (i = 0; i < n; i++) {
        uint32_t e = path[i];
        FE_CHECK(e < t->n_edges && e < g->n_edges);
        FE_CHECK(t->edge_caller[e] == at && g->edges[e].caller == at);
        FE_CHECK(t->edge_callee[e] == g->edges[e].callee);
        at = t->edge_callee[e];
    }
    FE_CHECK(at == node);
}

/* Enters path on a fresh state, queries it and hands the view to the
   caller's check; the state is left for fe_state_deinit. */
static void fe_encode(fe_state *s, const ctxprof_enc_tables *t, const uint32_t *path, size_t n,
                      ctxprof_enc_view *v)
{
    size_t i;
    fe_state_init(s, t, 0);
    for (i = 0; i < n; i++)
        (void)fe_enter(s, path[i]);
    fe_query(s, v);
    FE_CHECK(!v->truncated);
}

/* Decodes words (n_bits) at node into a buffer of exactly cap edges. */
static void fe_decode(const ctxprof_graph *g, const ctxprof_enc_tables *t, const uint64_t *words,
                      uint64_t n_bits, uint32_t node, size_t cap)
{
    uint32_t *out = (uint32_t *)malloc(cap ? cap * sizeof *out : 1);
    size_t n = 7777;
    ctxprof_error err;
    int rc;
    if (!out)
        abort();
    memset(&err, 0, sizeof err);
    rc = ctxprof_enc_decode(t, words, n_bits, node, out, cap, &n, &err);
    FE_CHECK(n <= cap);
    if (node >= t->n_nodes || n_bits < t->acyc_bits) {
        FE_CHECK(rc == CTXPROF_ERR_INVAL && n == 0 && err.detail[0]);
        free(out);
        return;
    }
    FE_CHECK(rc == CTXPROF_OK || rc == CTXPROF_ERR_CORRUPT || rc == CTXPROF_ERR_FULL);
    if (rc != CTXPROF_OK)
        FE_CHECK(err.detail[0] && err.status == rc);
    if (rc == CTXPROF_ERR_FULL) {
        FE_CHECK(n == cap);
        if (cap < FE_CAP) { /* the whole path ends in the edges decoded so far */
            uint32_t *all = (uint32_t *)malloc(FE_CAP * sizeof *all);
            size_t na = 0, i;
            int rc2;
            if (!all)
                abort();
            rc2 = ctxprof_enc_decode(t, words, n_bits, node, all, FE_CAP, &na, &err);
            if (rc2 == CTXPROF_OK) {
                FE_CHECK(na > cap);
                for (i = 0; i < cap; i++)
                    FE_CHECK(out[i] == all[na - 1 - i]); /* newest first */
            } else {
                FE_CHECK(na >= cap);
            }
            free(all);
        }
    } else if (rc == CTXPROF_OK) {
        fe_state s;
        ctxprof_enc_view v;
        uint64_t i, keep = t->acyc_bits;
        uint32_t *again;
        size_t n2 = 0;
        fe_valid_path(g, t, node, out, n);
        fe_encode(&s, t, out, n, &v);
        /* Valence levels: decoding at node reads the bits below its level
           only (the path's fields fill them); the rest of a real encoding
           at node is zeros */
        if (t->lv_level)
            keep = t->lv_level[t->scc_of_node[node]];
        FE_CHECK(keep <= t->acyc_bits);
        FE_CHECK(v.n_bits == n_bits);
        for (i = 0; i < n_bits; i++) {
            if (i < keep || i >= t->acyc_bits)
                FE_CHECK(fe_bit(v.words, i) == fe_bit(words, i));
            else
                FE_CHECK(fe_bit(v.words, i) == 0);
        }
        again = (uint32_t *)malloc((n ? n : 1) * sizeof *again);
        if (!again)
            abort();
        FE_CHECK(ctxprof_enc_decode_view(t, &v, node, again, n, &n2, &err) == CTXPROF_OK);
        FE_CHECK(n2 == n && memcmp(again, out, n * sizeof *out) == 0);
        free(again);
        fe_state_deinit(&s);
        fe_format(t, node, out, n, (unsigned)n_bits);
    }
    free(out);
}

/* Checks the walk's current view against its stack. */
static void fe_walk_check(const ctxprof_graph *g, const ctxprof_enc_tables *t, fe_state *w,
                          uint32_t node, const uint32_t *stack, size_t d, int limited, unsigned sel)
{
    ctxprof_enc_view v, fv;
    ctxprof_error err;
    uint32_t *out = (uint32_t *)malloc((d + 1) * sizeof *out);
    size_t n = 0;
    int rc;
    if (!out)
        abort();
    fe_query(w, &v);
    memset(&err, 0, sizeof err);
    rc = ctxprof_enc_decode_view(t, &v, node, out, d + 1, &n, &err);
    if (v.truncated) {
        FE_CHECK(limited);
        FE_CHECK(rc == CTXPROF_ERR_RANGE && err.detail[0] && n == 0);
    } else {
        fe_state f;
        FE_CHECK(rc == CTXPROF_OK);
        FE_CHECK(n == d && memcmp(out, stack, d * sizeof *out) == 0);
        /* equal contexts give equal words: the same path on a fresh state */
        fe_encode(&f, t, stack, d, &fv);
        FE_CHECK(fv.n_bits == v.n_bits && fv.n_words == v.n_words);
        FE_CHECK(v.n_words == (v.n_bits + 63) / 64);
        FE_CHECK(memcmp(fv.words, v.words, v.n_words * 8) == 0);
        if (!w->wide)
            FE_CHECK(ctxprof_enc_hash(&w->st, t->acyc_bits, 5) ==
                     ctxprof_enc_hash(&f.st, t->acyc_bits, 5));
        fe_state_deinit(&f);
        if (sel % 8 == 0)
            fe_format(t, node, out, n, sel / 8);
    }
    (void)g;
    free(out);
}

static void fe_scheme_run(const ctxprof_graph *g, const ctxprof_enc_tables *t, fe_in in)
{
    fe_state w;
    uint32_t stack[FE_MAX_DEPTH], node, start;
    uint64_t saved[FE_MAX_DEPTH];
    uint64_t *last = NULL, last_bits = 0;
    uint32_t last_node = 0;
    size_t d = 0, steps, nsteps, k, last_words = 0;
    unsigned f = fe_byte(&in);
    uint64_t limit = f % 4 == 0 ? 1 + (f >> 2) % 6 : 0; /* stack words kept, 0 = default */
    start = g->roots[fe_byte(&in) % g->n_roots];
    nsteps = fe_byte(&in) % (FE_MAX_STEPS + 1);
    node = start;
    fe_state_init(&w, t, limit);
    fe_walk_check(g, t, &w, node, stack, 0, limit != 0, 1);
    /* 1. the walk: a byte a step, 1 in 4 a return */
    for (steps = 0; steps < nsteps && in.n; steps++) {
        unsigned b = fe_byte(&in);
        uint32_t lo = g->out_first[node], deg = g->out_first[node + 1] - lo;
        if (d > 0 && (b % 4 == 0 || deg == 0 || d == FE_MAX_DEPTH)) {
            uint32_t e = stack[--d];
            fe_leave(&w, e, saved[d]);
            node = t->edge_caller[e];
        } else if (deg > 0 && d < FE_MAX_DEPTH) {
            uint32_t e = g->out_edge[lo + (b / 4) % deg];
            saved[d] = fe_enter(&w, e);
            stack[d++] = e;
            node = t->edge_callee[e];
        } else {
            continue;
        }
        if (d <= 64 || b / 16 % 4 == 0) /* deeper, 1 step in 4 (a check costs d) */
            fe_walk_check(g, t, &w, node, stack, d, limit != 0, b);
    }
    /* keep the last encoding (of the full state) for the hostile decodes */
    {
        fe_state f;
        ctxprof_enc_view v;
        fe_encode(&f, t, stack, d, &v);
        last_words = v.n_words;
        last_bits = v.n_bits;
        last_node = node;
        last = (uint64_t *)malloc((last_words + 1) * 8);
        if (!last)
            abort();
        memcpy(last, v.words, last_words * 8);
        fe_state_deinit(&f);
    }
    while (d > 0) { /* back to the start: the empty encoding again */
        uint32_t e = stack[--d];
        fe_leave(&w, e, saved[d]);
        node = t->edge_caller[e];
    }
    FE_CHECK(node == start);
    {
        ctxprof_enc_view v;
        size_t i;
        fe_query(&w, &v);
        FE_CHECK(!v.truncated && v.n_bits == t->acyc_bits);
        for (i = 0; i < v.n_words; i++)
            FE_CHECK(v.words[i] == 0);
    }
    fe_walk_check(g, t, &w, node, stack, 0, limit != 0, 0);
    fe_state_deinit(&w);
    /* 2. hostile words: raw from the input, or the last encoding changed */
    for (k = 0; k < 6 && in.n; k++) {
        unsigned mode = fe_byte(&in), c = fe_byte(&in);
        uint32_t at = fe_byte(&in) % (t->n_nodes + 1);
        size_t cap = c % 4 == 0 ? c / 4 % 8 : FE_CAP, nw, i;
        uint64_t n_bits, *words;
        if (mode % 2 == 0) { /* raw: a stack of up to 1023 bits */
            unsigned lo = fe_byte(&in), hi = fe_byte(&in);
            n_bits = mode % 16 == 2 ? (uint64_t)lo % (t->acyc_bits + 1)
                                    : t->acyc_bits + ((lo | hi << 8) % 1024);
            nw = (size_t)((n_bits + 63) / 64);
            words = nw ? (uint64_t *)malloc(nw * 8) : NULL;
            if (nw && !words)
                abort();
            for (i = 0; i < nw * 8; i++)
                ((uint8_t *)words)[i] = (uint8_t)fe_byte(&in);
        } else { /* the last encoding, its length changed and some bits flipped */
            int delta = (int)(fe_byte(&in) % 33) - 16;
            unsigned flips = mode / 2 % 8;
            n_bits = (int64_t)last_bits + delta < 0 ? 0 : (uint64_t)((int64_t)last_bits + delta);
            if (mode / 16 % 2)
                n_bits = last_bits;
            if (mode / 32 % 2)
                at = last_node;
            nw = (size_t)((n_bits + 63) / 64);
            words = nw ? (uint64_t *)calloc(nw, 8) : NULL;
            if (nw && !words)
                abort();
            if (nw)
                memcpy(words, last, (nw < last_words ? nw : last_words) * 8);
            for (i = 0; i < flips && nw; i++) {
                unsigned x = fe_byte(&in), y = fe_byte(&in);
                uint64_t bit = (x | (uint64_t)y << 8) % (nw * 64);
                words[bit / 64] ^= UINT64_C(1) << (bit % 64);
            }
        }
        fe_decode(g, t, words, n_bits, at, cap);
        free(words);
    }
    free(last);
}

/* The compact graph: node count, root, edge count, three bytes an edge. */
static int fe_graph_compact(ctxprof_graph *g, fe_in *in)
{
    char a[16], b[16], l[16];
    unsigned n = 1 + fe_byte(in) % FE_MAX_NODES, root = fe_byte(in) % n, m = fe_byte(in), i, j;
    for (i = 0; i < n; i++) {
        snprintf(a, sizeof a, "f%u", i);
        if (ctxprof_graph_add_node(g, a, 0) < 0)
            return -1;
    }
    snprintf(a, sizeof a, "f%u", root);
    if (ctxprof_graph_set_root(g, a) != CTXPROF_OK)
        return -1;
    for (i = 0; i < m && in->n; i++) {
        unsigned x = fe_byte(in), y = fe_byte(in), fl = fe_byte(in);
        snprintf(a, sizeof a, "f%u", x % n);
        snprintf(b, sizeof b, "f%u", y % n);
        /* sites 1-4; one unlabelled site merges with any edge a -> b */
        for (j = 0; j <= fl % 4; j++) {
            snprintf(l, sizeof l, "s%u", fl / 4 + j);
            if (ctxprof_graph_add_edge(g, a, b, fl % 4 == 0 && fl / 4 == 0 ? NULL : l) < 0)
                return -1;
        }
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ctxprof_graph g;
    fe_in in;
    int s;
    in.p = data;
    in.n = size;
    if (ctxprof_graph_init(&g, NULL) != CTXPROF_OK)
        return 0;
    if (size > 0 && (data[0] == '#' || data[0] == 'c')) {
        const uint8_t *nul = (const uint8_t *)memchr(data, 0, size);
        size_t len = nul ? (size_t)(nul - data) : size;
        if (ctxprof_graph_parse(&g, (const char *)data, len, "fuzz") != CTXPROF_OK)
            goto out;
        in.p = data + len + (nul ? 1 : 0);
        in.n = size - len - (nul ? 1 : 0);
    } else if (fe_graph_compact(&g, &in) != 0) {
        goto out;
    }
    if (g.n_nodes > FE_MAX_NODES || g.n_edges > FE_MAX_EDGES ||
        ctxprof_graph_finish(&g) != CTXPROF_OK)
        goto out;
    for (s = CTXPROF_ENC_PCCE; s < CTXPROF_ENC_NSCHEMES; s++) {
        ctxprof_enc_tables t;
        ctxprof_error err;
        memset(&err, 0, sizeof err);
        fe_scheme = ctxprof_enc_scheme_name(s);
        if (ctxprof_enc_build(&g, s, &t, &err) != CTXPROF_OK) {
            FE_CHECK(err.detail[0]);
            continue;
        }
        FE_CHECK(t.scheme == s && t.n_nodes == g.n_nodes && t.n_edges == g.n_edges);
        FE_CHECK(t.acyc_words == (t.acyc_bits + 63) / 64);
        FE_CHECK(!t.lv_level || t.scc_of_node);
        fe_scheme_run(&g, &t, in);
        ctxprof_enc_tables_free(&t, NULL);
    }
    fe_scheme = "check";
    if (in.n && in.p[in.n - 1] % 8 == 0) { /* the library's own check, now and then */
        ctxprof_enc_check_desc d;
        ctxprof_enc_check_result r;
        ctxprof_error err;
        memset(&d, 0, sizeof d);
        d.walks = 4;
        d.depth = 24;
        d.seed = in.p[0];
        memset(&err, 0, sizeof err);
        FE_CHECK(ctxprof_enc_check(&g, &d, &r, &err) == CTXPROF_OK);
        FE_CHECK(r.checked == r.steps && !r.failure[0]);
        for (s = CTXPROF_ENC_PCCE; s < CTXPROF_ENC_NSCHEMES; s++)
            FE_CHECK(r.decoded[s] == r.checked);
    }
out:
    ctxprof_graph_deinit(&g);
    return 0;
}
