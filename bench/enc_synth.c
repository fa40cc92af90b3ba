/* enc_synth: writes a synthetic call graph (ctxprof-callgraph 1) shaped like
   gcc's in the Valence paper's Table 1: by default 19,011 functions,
   131,388 call edges, 459 complex SCCs holding 28,330 cyclic edges (one
   large SCC, like gcc's mutually recursive expression folders, plus
   hundreds of small ones, many of them self-recursive).

     enc_synth [--nodes N] [--edges E] [--complex C] [--cyclic K]
               [--giant G] [--seed S] [-o FILE]

   Construction: functions are numbered by call depth level (main = 0 is
   level 0; --levels L, default 32). Every function of level l > 0 is
   called by one of level l - 1 (a spanning tree: all reachable); the other
   forward edges go one to three levels down, or to a "utility" in the
   last 5% (large fan-in). Each complex SCC is a contiguous range of
   numbers closed by a cycle through it plus random edges inside it; all
   other edges go from a lower to a higher number, so no other cycle exists
   and the SCC count is exact. The cyclic edges (an SCC's closing cycle,
   the tree edges that fall inside it, the random ones) number exactly
   --cyclic: no other edge is drawn inside an SCC. Deterministic for a seed. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t synth_state;

static uint64_t synth_rand(void)
{
    uint64_t z = (synth_state += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

static unsigned long synth_below(unsigned long n)
{
    return n ? (unsigned long)(synth_rand() % n) : 0;
}

/* level l holds functions [SYNTH_FIRST(l), SYNTH_FIRST(l + 1)); main alone on level 0 */
#define SYNTH_FIRST(l) ((l) == 0 ? 0ul : 1ul + ((l) - 1) * (nodes - 1) / (levels - 1))
#define SYNTH_LEVEL(i) ((i) == 0 ? 0ul : 1ul + ((i) - 1) * (levels - 1) / (nodes - 1))

static int synth_arg(const char *s, unsigned long *v)
{
    char *end;
    *v = strtoul(s, &end, 10);
    return *s && !*end;
}

int main(int argc, char **argv)
{
    unsigned long nodes = 19011, edges = 131388, complex = 459, cyclic = 28330, giant = 1200;
    unsigned long seed = 1, i, k, site = 0, left_cyc, placed, levels = 32, fixed_cyc = 0;
    const char *out = NULL;
    unsigned long *start, *len, *scc, *parent;
    FILE *f = stdout;
    for (i = 1; i < (unsigned long)argc; i++) {
        unsigned long *dst = NULL;
        if (strcmp(argv[i], "--nodes") == 0)
            dst = &nodes;
        else if (strcmp(argv[i], "--edges") == 0)
            dst = &edges;
        else if (strcmp(argv[i], "--complex") == 0)
            dst = &complex;
        else if (strcmp(argv[i], "--cyclic") == 0)
            dst = &cyclic;
        else if (strcmp(argv[i], "--giant") == 0)
            dst = &giant;
        else if (strcmp(argv[i], "--seed") == 0)
            dst = &seed;
        else if (strcmp(argv[i], "--levels") == 0)
            dst = &levels;
        else if (strcmp(argv[i], "-o") == 0 && i + 1 < (unsigned long)argc) {
            out = argv[++i];
            continue;
        }
        if (!dst || i + 1 >= (unsigned long)argc || !synth_arg(argv[++i], dst)) {
            fprintf(stderr, "usage: enc_synth [--nodes N] [--edges E] [--complex C] "
                            "[--cyclic K] [--giant G] [--levels L] [--seed S] [-o FILE]\n");
            return 2;
        }
    }
    if (nodes < 16 || complex * 3 + giant + 2 > nodes || edges < nodes + cyclic || levels < 2 ||
        levels > nodes / 4) {
        fprintf(stderr, "enc_synth: inconsistent sizes\n");
        return 2;
    }
    if (complex == 0 && cyclic != 0) {
        fprintf(stderr, "enc_synth: --complex 0 makes an acyclic graph: it needs --cyclic 0\n");
        return 2;
    }
    synth_state = seed;
    start = (unsigned long *)calloc(complex + 1, sizeof *start);
    len = (unsigned long *)calloc(complex + 1, sizeof *len);
    scc = (unsigned long *)calloc(nodes, sizeof *scc);
    parent = (unsigned long *)calloc(nodes, sizeof *parent);
    if (!start || !len || !scc || !parent)
        return 2;
    /* SCC sizes: one giant, about half self-recursive singletons, the rest
       small cycles of 2..8; ranges placed left to right over the middle */
    for (k = 0; k < complex; k++)
        len[k] = k == 0 ? giant : (k % 2 ? 1 : 2 + synth_below(7));
    {
        unsigned long pos = nodes / 10, span = nodes - nodes / 10 - nodes / 20, need = 0, gap;
        for (k = 0; k < complex; k++)
            need += len[k];
        gap = need < span ? (span - need) / (complex + 1) : 0;
        for (k = 0; k < complex; k++) {
            pos += synth_below(2 * gap + 1);
            if (pos + len[k] >= nodes)
                pos = nodes - len[k] - 1;
            start[k] = pos;
            for (i = pos; i < pos + len[k]; i++)
                scc[i] = k + 1; /* 0: in no complex SCC */
            pos += len[k];
            fixed_cyc += len[k]; /* the cycle closing it (a self-call for one function) */
        }
    }
    /* spanning tree: a caller one level up; its edges inside an SCC are cyclic too */
    for (i = 1; i < nodes; i++) {
        unsigned long l = SYNTH_LEVEL(i), p;
        p = l == 0 ? 0 : SYNTH_FIRST(l - 1) + synth_below(SYNTH_FIRST(l) - SYNTH_FIRST(l - 1));
        parent[i] = p < i ? p : 0;
        if (scc[i] && scc[parent[i]] == scc[i])
            fixed_cyc++;
    }
    if (fixed_cyc > cyclic) {
        fprintf(stderr,
                "enc_synth: the SCCs' cycles and the tree edges inside them are %lu cyclic "
                "edges, more than --cyclic %lu\n",
                fixed_cyc, cyclic);
        return 2;
    }
    if (out && !(f = fopen(out, "w"))) {
        perror(out);
        return 2;
    }
    fprintf(f, "# synthetic call graph: %lu functions, %lu edges, %lu complex SCCs, %lu cyclic "
               "edges, seed %lu\nctxprof-callgraph 1\nroot f0\n",
            nodes, edges, complex, cyclic, seed);
    for (i = 1; i < nodes; i++)
        fprintf(f, "call f%lu f%lu site=s%lu\n", parent[i], i, site++);
    /* SCCs: close each range with a cycle, then fill with random inside edges */
    left_cyc = cyclic - fixed_cyc;
    for (k = 0; k < complex; k++) {
        unsigned long a = start[k], n = len[k];
        if (n == 1) {
            fprintf(f, "call f%lu f%lu site=s%lu\n", a, a, site++);
            continue;
        }
        /* the tree already gives a -> a+1 ... for most; close with the back edge,
           and add the forward chain explicitly so the range is one SCC */
        for (i = a; i + 1 < a + n; i++)
            fprintf(f, "call f%lu f%lu site=s%lu\n", i, i + 1, site++);
        fprintf(f, "call f%lu f%lu site=s%lu\n", a + n - 1, a, site++);
    }
    placed = 0;
    while (left_cyc > 0 && placed < 100 * cyclic) {
        /* extra cyclic edges: mostly in the giant SCC, some in the others */
        unsigned long kk = synth_below(10) < 8 || complex == 1 ? 0 : 1 + synth_below(complex - 1);
        unsigned long a = start[kk], n = len[kk];
        placed++;
        if (n < 2 && synth_below(4))
            continue;
        fprintf(f, "call f%lu f%lu site=s%lu\n", a + synth_below(n), a + synth_below(n), site++);
        left_cyc--;
    }
    /* forward edges: one to three levels down, or a utility; none inside an
       SCC (that would be one more cyclic edge) */
    while (site < edges) {
        unsigned long u = synth_below(nodes - 1), v, l = SYNTH_LEVEL(u);
        if (synth_below(100) < 30) {
            unsigned long util = nodes - nodes / 20;
            v = util + synth_below(nodes / 20);
        } else {
            unsigned long lv = l + 1 + synth_below(3);
            if (lv >= levels)
                continue;
            v = SYNTH_FIRST(lv) + synth_below(SYNTH_FIRST(lv + 1) - SYNTH_FIRST(lv));
        }
        if (v >= nodes || v <= u || (scc[u] && scc[u] == scc[v]))
            continue;
        fprintf(f, "call f%lu f%lu site=s%lu\n", u, v, site++);
    }
    if (f != stdout && fclose(f) != 0) {
        perror(out);
        return 2;
    }
    free(start);
    free(len);
    free(scc);
    free(parent);
    return 0;
}
