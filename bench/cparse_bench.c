/* cparse_bench: the HCCT on a realistic workload, the recursive-descent C
   parser of examples/hotpaths/cparse.c over real C text (the files given:
   `make bench` passes the system headers and this repository's sources),
   every configuration in one process (see hcct_bench.h).

   Usage: cparse_bench [-p PASSES] [common options] FILE...
   Build: make build/bench/cparse_bench. */
#define _GNU_SOURCE
#define CTXPROF_IMPLEMENTATION
#define CTXPROF_HCCT_HOOKS
#include "../ctxprof_hcct.h"
#include "hcct_bench.h"

#include "../examples/hotpaths/cparse.h"

typedef int (*cp_fn)(const char *text, size_t len, struct cparse_stats *st);
int cparse_plain(const char *text, size_t len, struct cparse_stats *st);
int cparse_inst(const char *text, size_t len, struct cparse_stats *st);
int cparse_empty(const char *text, size_t len, struct cparse_stats *st);
void cparse_plain_init(void);
void cparse_inst_init(void);
void cparse_empty_init(void);

typedef struct cp_ctx {
    char **text;
    size_t *len, n, bytes;
    int passes;
    struct cparse_stats first;
    hb_bench *b;
} cp_ctx;

static int cp_run(void *arg, int copy, int first)
{
    cp_ctx *c = (cp_ctx *)arg;
    cp_fn run = copy == HB_COPY_PLAIN ? cparse_plain : copy == HB_COPY_EMPTY ? cparse_empty
                                                                             : cparse_inst;
    struct cparse_stats st;
    size_t i;
    int p;
    memset(&st, 0, sizeof st);
    for (p = 0; p < c->passes; p++)
        for (i = 0; i < c->n; i++)
            run(c->text[i], c->len[i], &st);
    if (first) {
        c->first = st;
        return 0;
    }
    return st.checksum != c->first.checksum || st.tokens != c->first.tokens;
}

static int cp_load(cp_ctx *c, const char *path)
{
    long n = cparse_load(path, &c->text[c->n], &c->len[c->n]);
    if (n < 0)
        return -1;
    c->bytes += (size_t)n;
    c->n++;
    return 0;
}

int main(int argc, char **argv)
{
    static hb_bench b;
    cp_ctx c;
    ctxprof_hcct t;
    ctxprof_hcct_desc d;
    ctxprof_hcct_stats st;
    ctxprof_error e;
    size_t k;
    int i, rc = 2; /* usage */
    memset(&c, 0, sizeof c);
    memset(&e, 0, sizeof e);
    c.passes = 4;
    c.text = (char **)calloc((size_t)argc, sizeof *c.text);
    c.len = (size_t *)calloc((size_t)argc, sizeof *c.len);
    if (!c.text || !c.len) {
        rc = 1;
        goto done;
    }
    b.rounds = 3;
    b.phi = 1e-4;
    b.eps = 2e-5;
    b.burst_period_us = 20000;
    b.burst_length_us = 2000;
    for (i = 1; i < argc;) {
        i = hb_options(&b, argc, argv, i);
        if (i >= argc)
            break;
        if (strcmp(argv[i], "-p") == 0 && i + 1 < argc) {
            c.passes = atoi(argv[i + 1]);
            i += 2;
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "usage: cparse_bench [-p PASSES] %s FILE...\n", hb_usage);
            goto done;
        } else {
            if (cp_load(&c, argv[i]) != 0)
                fprintf(stderr, "cparse_bench: cannot read %s (skipped)\n", argv[i]);
            i++;
        }
    }
    if (c.n == 0 || b.rounds < 1 || b.rounds > 64 || c.passes < 1) {
        fprintf(stderr, "usage: cparse_bench [-p PASSES] %s FILE...\n", hb_usage);
        goto done;
    }
    /* the parsers' setup, outside every timed and profiled run */
    cparse_plain_init();
    cparse_inst_init();
    cparse_empty_init();
    /* calls per run: counted once with an exact tree */
    memset(&d, 0, sizeof d);
    d.mode = CTXPROF_HCCT_CCT;
    if (ctxprof_hcct_init(&t, &d, &e))
        hb_die("init", &e);
    ctxprof_hcct_bind(&t);
    cp_run(&c, HB_COPY_HOOKS, 1);
    ctxprof_hcct_bind(NULL);
    ctxprof_hcct_stats_get(&t, &st);
    ctxprof_hcct_deinit(&t);
    b.calls = st.events;
    b.run = cp_run;
    b.ctx = &c;
    c.b = &b;
    printf("cparse: %zu files, %zu bytes of C, %d passes: %llu calls, %llu tokens, %llu "
           "declarations, %llu function bodies, %llu statements, %llu expressions, %llu "
           "recovered errors per run\nepsilon %g, phi %g; %d rounds, medians (min-max) of "
           "process CPU time\n",
           c.n, c.bytes, c.passes, (unsigned long long)b.calls,
           (unsigned long long)c.first.tokens, (unsigned long long)c.first.decls,
           (unsigned long long)c.first.functions, (unsigned long long)c.first.statements,
           (unsigned long long)c.first.expressions, (unsigned long long)c.first.errors, b.eps,
           b.phi, b.rounds);
    rc = hb_run_all(&b);
    if (!rc) {
        hb_table(&b);
        hb_accuracy(&b);
    }
    hb_free(&b);
done:
    for (k = 0; k < c.n; k++)
        free(c.text[k]);
    free(c.text);
    free(c.len);
    return rc;
}
