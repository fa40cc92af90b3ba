/* calc - ICPP end to end on a recursive program (examples/icpp/demo.sh).

   A tiny language, parsed by recursive descent and run by a recursive AST
   walk: thousands of distinct call paths, most of them through recursion.
   The whole program is trained without annotations (-finstrument-functions
   with CTXPROF_ICPP_HOOKS); each function starts with CTXPROF_ICPP_PAD so a
   generated table can grow its frame.

     calc rounds N            N rounds of work (parse + 8 evaluations): CPU ns per round
     calc run [SECS] [INPUT]  work; with CTXPROF_ICPP_TRAIN=out.paths saves the path map
     calc step MAP            every instruction of one parse and one evaluation as a
                              sample (step.h): resolved with heights from the CFA
                              (the default) and from SP alone, against the true paths
     calc sample MAP [SECS] [INPUT] [chain]
                              samples itself with the timer sampler (training on,
                              for the true paths) and reports how (PC, SP) alone,
                              partial frame walks in the handler, and the frame words
                              saved per sample (resolved afterwards) recover the call
                              paths of MAP. The handler saves the words its targeted
                              reads read; with "chain", the first CTXPROF_ICPP_FRAMES
                              frames of the frame-pointer chain instead.
     INPUT: a (default); b, other arguments for the same program; c, another
     entry expression. Sampling input b or c against a map trained on input
     a is the paper's online scenario.

   Build (see the Makefile): -O2 -fno-omit-frame-pointer -finstrument-functions
   -DCTXPROF_ICPP_HOOKS [-include pads.h]. */
#define CTXPROF_IMPLEMENTATION
#include "../../ctxprof.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(CALC_FUNC) /* hand-annotated entries (icpp_bench.sh measures their cost) */
#define FN(f) CTXPROF_ICPP_FUNC(f)
#else
#define FN(f) CTXPROF_ICPP_PAD(f)
#endif
#define NOINLINE __attribute__((noinline))

/* ---- the language ----------------------------------------------------------

   fn NAME(x) = expr;  ...   then one expression to run.
   expr: cond ? expr : expr | sum < sum | sum;  sum: prod (+|- prod)*;
   prod: unary (*|% unary)*;  unary: -unary | atom;  atom: NUM | x | NAME(expr) | (expr) */

enum { N_NUM, N_ARG, N_NEG, N_ADD, N_SUB, N_MUL, N_MOD, N_LT, N_COND, N_CALL };
typedef struct node {
    int kind, a, b, c; /* children (node ids) or value / function */
} node;

static node nodes[20000];
static int nnodes, fbody[16], nfuncs;
static const char *src;
static volatile long sink;

NOINLINE static void skip(void)
{
    FN(skip);
    while (*src == ' ' || *src == '\n')
        src++;
}

NOINLINE static int mk(int kind, int a, int b, int c)
{
    FN(mk);
    node *n = &nodes[nnodes];
    if (nnodes >= (int)(sizeof nodes / sizeof nodes[0]) - 1) {
        fprintf(stderr, "calc: program too large\n");
        exit(1);
    }
    n->kind = kind;
    n->a = a;
    n->b = b;
    n->c = c;
    return nnodes++;
}

NOINLINE static int eat(char c)
{
    FN(eat);
    skip();
    if (*src == c) {
        src++;
        return 1;
    }
    return 0;
}

static int parse_expr(void);

NOINLINE static int parse_num(void)
{
    FN(parse_num);
    int v = 0;
    while (*src >= '0' && *src <= '9')
        v = v * 10 + (*src++ - '0');
    return mk(N_NUM, v, 0, 0);
}

NOINLINE static int parse_call(void)
{
    FN(parse_call);
    int f = *src++ - 'a', arg;
    eat('(');
    arg = parse_expr();
    eat(')');
    return mk(N_CALL, f, arg, 0);
}

NOINLINE static int parse_atom(void)
{
    FN(parse_atom);
    int e;
    skip();
    if (*src >= '0' && *src <= '9')
        return parse_num();
    if (*src == 'x') {
        src++;
        return mk(N_ARG, 0, 0, 0);
    }
    if (*src >= 'a' && *src <= 'p')
        return parse_call();
    if (!eat('(')) { /* not an expression: skip the character */
        if (*src)
            src++;
        return mk(N_NUM, 0, 0, 0);
    }
    e = parse_expr();
    eat(')');
    return e;
}

NOINLINE static int parse_unary(void)
{
    FN(parse_unary);
    if (eat('-'))
        return mk(N_NEG, parse_unary(), 0, 0);
    return parse_atom();
}

NOINLINE static int parse_prod(void)
{
    FN(parse_prod);
    int l = parse_unary();
    for (;;) {
        if (eat('*'))
            l = mk(N_MUL, l, parse_unary(), 0);
        else if (eat('%'))
            l = mk(N_MOD, l, parse_unary(), 0);
        else
            return l;
    }
}

NOINLINE static int parse_sum(void)
{
    FN(parse_sum);
    int l = parse_prod();
    for (;;) {
        if (eat('+'))
            l = mk(N_ADD, l, parse_prod(), 0);
        else if (eat('-'))
            l = mk(N_SUB, l, parse_prod(), 0);
        else
            return l;
    }
}

NOINLINE static int parse_expr(void)
{
    FN(parse_expr);
    int l = parse_sum();
    if (eat('<'))
        l = mk(N_LT, l, parse_sum(), 0);
    if (eat('?')) {
        int t = parse_expr(), e;
        eat(':');
        e = parse_expr();
        return mk(N_COND, l, t, e);
    }
    return l;
}

NOINLINE static void parse_program(const char *text)
{
    FN(parse_program);
    src = text;
    nnodes = nfuncs = 0;
    for (skip(); strncmp(src, "fn ", 3) == 0; skip()) { /* "fn a(x) = expr;" */
        src += 3;
        skip();
        src++; /* the name: functions are a, b, c, ... in order */
        eat('(');
        eat('x');
        eat(')');
        eat('=');
        fbody[nfuncs++] = parse_expr();
        eat(';');
    }
}

/* ---- evaluation ----------------------------------------------------------- */

static long eval(int n, long x, int fuel);

NOINLINE static long eval_arith(int n, long x, int fuel)
{
    FN(eval_arith);
    long a = eval(nodes[n].a, x, fuel), b = eval(nodes[n].b, x, fuel);
    switch (nodes[n].kind) {
    case N_ADD:
        return a + b;
    case N_SUB:
        return a - b;
    case N_MUL:
        return (a * b) % 1000003;
    default:
        return b ? a % b : a;
    }
}

NOINLINE static long eval_cmp(int n, long x, int fuel)
{
    FN(eval_cmp);
    return eval(nodes[n].a, x, fuel) < eval(nodes[n].b, x, fuel);
}

NOINLINE static long eval_cond(int n, long x, int fuel)
{
    FN(eval_cond);
    return eval(nodes[n].a, x, fuel) ? eval(nodes[n].b, x, fuel) : eval(nodes[n].c, x, fuel);
}

NOINLINE static long eval_neg(int n, long x, int fuel)
{
    FN(eval_neg);
    return -eval(nodes[n].a, x, fuel);
}

NOINLINE static long eval_call(int n, long x, int fuel)
{
    FN(eval_call);
    long arg = eval(nodes[n].b, x, fuel);
    if (fuel <= 0 || nodes[n].a >= nfuncs)
        return arg;
    return eval(fbody[nodes[n].a], arg % 64, fuel - 1);
}

NOINLINE static long eval_leaf(int n, long x)
{
    FN(eval_leaf);
    long i, v = nodes[n].kind == N_NUM ? nodes[n].a : x;
    for (i = 0; i < 24; i++) /* some work in the leaves, where samples land */
        v = (v * 31 + i) % 1000003;
    sink += v;
    return nodes[n].kind == N_NUM ? nodes[n].a : x;
}

NOINLINE static long eval(int n, long x, int fuel)
{
    FN(eval);
    switch (nodes[n].kind) {
    case N_NUM:
    case N_ARG:
        return eval_leaf(n, x);
    case N_NEG:
        return eval_neg(n, x, fuel);
    case N_LT:
        return eval_cmp(n, x, fuel);
    case N_COND:
        return eval_cond(n, x, fuel);
    case N_CALL:
        return eval_call(n, x, fuel);
    default:
        return eval_arith(n, x, fuel);
    }
}

/* A fixed program: functions call earlier ones and themselves (bounded by fuel). */
static const char program[] =
    "fn a(x) = x < 2 ? 1 : x * a(x - 1) % 97;\n"
    "fn b(x) = x < 3 ? x : b(x - 1) + b(x - 2) % 13;\n"
    "fn c(x) = (a(x % 5) + -b(x % 7)) * 3 + x;\n"
    "fn d(x) = x < 1 ? c(x) : d(x - 2) + a(x % 4) - (x % 3 < 1 ? b(x % 5) : -c(x));\n"
    "fn e(x) = -(d(x % 6) * (c(x % 3) + 1)) % 101 + (x < 4 ? a(x) : e(x - 4));\n"
    "fn f(x) = e(x % 9) + d(x % 8) * -(b(x % 6) < a(x % 5) ? c(x) : 2);\n";
static const char entry[] = "f(x) + e(x + 1) - (d(x) < c(x + 2) ? a(x % 7) : -b(x % 9))";
/* input b: the same program run on other arguments (x = 37 ... 84 instead
   of 0 ... 39); input c: another entry expression (a parse tree of another
   shape: most of its call paths are new) */
static const char entry_c[] = "e(x % 7) - (f(x) < d(x + 1) ? c(x % 5) : -a(x % 8)) + b(x % 6)";
static int input_b, input_c;

/* Runs for `seconds`, or work_rounds rounds when that is > 0 (a fixed
   amount of work, for instruction counts). */
static long work_rounds, work_evals = 8;

NOINLINE static long work(double seconds)
{
    FN(work);
    struct timespec t0, t;
    long total = 0, x = 0, round = 0;
    char text[sizeof program + sizeof entry + sizeof entry_c + 8];
    int root;
    snprintf(text, sizeof text, "%s%s", program, input_c ? entry_c : entry);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do {
        int k;
        parse_program(text);
        root = parse_expr();
        for (k = 0; k < work_evals; k++)
            total += eval(root, input_b ? 37 + x++ % 48 : x++ % 40, 7);
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while (work_rounds > 0 ? ++round < work_rounds
                       : (double)(t.tv_sec - t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - t0.tv_nsec) <
                             seconds);
    return total;
}

/* The `rounds N` mode: N rounds of fixed work, printing the CPU
   nanoseconds per round (benchmarks compare builds with it). */
static int work_rounds_main(const char *arg)
{
    struct timespec t0, t1;
    long n = atol(arg), r;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
    work_rounds = n > 0 ? n : 1;
    r = work(0);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
    printf("%.1f ns/round (result %ld)\n",
           ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) /
               (double)work_rounds,
           r);
    return 0;
}

/* The SECS argument: a number of seconds from 0 to 86400 (0: one round);
   -1 (said) otherwise, where atof made a negative or huge one a sample
   capacity that wrapped around. */
static double parse_secs(const char *arg)
{
    char *end;
    double v = strtod(arg, &end);
    if (end == arg || *end || !(v >= 0 && v <= 86400)) {
        fprintf(stderr, "SECS %s: expected a number of seconds from 0 to 86400\n", arg);
        return -1;
    }
    return v;
}

/* ---- sampling and the report ----------------------------------------------- */

#include "step.h"

typedef struct tally {
    uint64_t key;
    long truth, alone, walked;
    char name[160];
} tally;

static int tally_cmp(const void *a, const void *b)
{
    const tally *x = (const tally *)a, *y = (const tally *)b;
    return x->truth < y->truth ? 1 : x->truth > y->truth ? -1 : (x->key > y->key) - (x->key < y->key);
}

static ctxprof_icpp_map m;
static ctxprof_symtab st;
static ctxprof_icpp_sampler s;
static int save_chain;

/* Loads the map and starts sampling (training on: the true paths). */
static int sample_start(const char *mapfile, double seconds)
{
    ctxprof_icpp_sampler_desc desc;
    ctxprof_error err;
    if (ctxprof_icpp_map_load(&m, mapfile, &err) || ctxprof_symtab_init(&st, &err) ||
        ctxprof_icpp_map_bind(&m, &st, &err)) {
        fprintf(stderr, "calc: %s\n", ctxprof_error_message(&err));
        return 1;
    }
    memset(&desc, 0, sizeof desc);
    desc.hz = 1000;
    desc.wall = 1; /* exact 1 kHz (CPU-time timers fire on kernel ticks) */
    desc.capacity = (size_t)(seconds * 1000) + 1000;
    desc.map = &m; /* resolve in the handler, reading frames when ambiguous */
    desc.max_walk = 64;
    desc.save_frames = CTXPROF_ICPP_FRAMES; /* words to resolve again afterwards: */
    desc.save_targeted = !save_chain;       /* the ones the handler read, or the chain's first */
    if (ctxprof_icpp_sampler_init(&s, &desc, &err) || ctxprof_icpp_train_start(NULL, &err) ||
        ctxprof_icpp_sampler_attach(&s, &err)) {
        fprintf(stderr, "calc: %s\n", ctxprof_error_message(&err));
        return 1;
    }
    return 0;
}

/* One way of resolving: ctxprof_icpp_evaluate's verdicts. */
typedef struct verdicts {
    long n[6]; /* by CTXPROF_ICPP_PRECISE ... CTXPROF_ICPP_INCORRECT */
} verdicts;

static void print_verdicts(const char *what, const verdicts *v, long usable, long all)
{
    double u = usable ? (double)usable : 1;
    printf("%s: correct=%.4f ambiguous=%.4f missing=%.4f incorrect=%.4f (of usable), "
           "correct=%.4f (of all %ld samples)\n",
           what, v->n[CTXPROF_ICPP_PRECISE] / u, v->n[CTXPROF_ICPP_AMBIGUOUS] / u,
           v->n[CTXPROF_ICPP_MISSING] / u, v->n[CTXPROF_ICPP_INCORRECT] / u,
           all ? (double)v->n[CTXPROF_ICPP_PRECISE] / (double)all : 0, all);
}

static int sample_report(void)
{
    static const int ks[] = {0, 1, 2, 3, 4, 6, 8, 12, 16};
    size_t n, i, ntal = 0, k;
    long usable = 0, outside = 0, moving = 0, walked = 0, depth = 0, words = 0;
    long by_reads[66];
    verdicts alone_v, live_v, saved_v;
    tally *tal;
    ctxprof_icpp_sampler_detach(&s);
    ctxprof_icpp_train_stop();
    n = ctxprof_icpp_sampler_count(&s);
    tal = (tally *)calloc(n + 1, sizeof *tal);
    if (!tal) {
        fprintf(stderr, "calc: out of memory for %zu samples\n", n);
        ctxprof_icpp_sampler_deinit(&s);
        ctxprof_icpp_map_deinit(&m);
        ctxprof_symtab_deinit(&st);
        return 1;
    }
    memset(by_reads, 0, sizeof by_reads);
    memset(&alone_v, 0, sizeof alone_v);
    memset(&live_v, 0, sizeof live_v);
    memset(&saved_v, 0, sizeof saved_v);
    for (i = 0; i < n; i++) {
        const ctxprof_icpp_sample *o = &s.samples[i];
        ctxprof_icpp_result alone, live, saved;
        uintptr_t all[1024];
        size_t len = ctxprof_icpp_train_path(o->truth, all, 1024, NULL);
        /* training started inside main: main is the root of every trained path */
        uint64_t tk = ctxprof_icpp_train_key(o->truth, &st, "main");
        int va, v;
        if (ctxprof_icpp_map_func_of_pc(&m, o->pc) < 0) { /* in the hooks, libc, ... */
            outside++;
            continue;
        }
        /* the true path must end in the sampled function (not in a prologue before the hook) */
        if (!tk || len == 0 || len > 1024 || all[len - 1] != ctxprof_symtab_func(&st, o->pc)) {
            moving++;
            continue;
        }
        usable++;
        depth += (long)len + 1;
        /* (PC, SP) alone */
        ctxprof_icpp_resolve(&m, o->pc, o->sp, o->sp + o->height, o->fp, NULL, 0, &alone);
        va = ctxprof_icpp_evaluate(&m, &alone, tk, NULL);
        alone_v.n[va]++;
        /* the handler's partial walk (targeted reads on the live stack) */
        live = alone;
        live.kind = o->kind;
        live.path = o->path;
        v = ctxprof_icpp_evaluate(&m, &live, tk, NULL);
        live_v.n[v]++;
        walked += o->walked;
        if (v == CTXPROF_ICPP_PRECISE)
            by_reads[o->walked < 65 ? o->walked : 65]++;
        /* afterwards, from the words saved with the sample */
        ctxprof_icpp_resolve(&m, o->pc, o->sp, o->sp + o->height, o->fp, &o->frames, 64, &saved);
        saved_v.n[ctxprof_icpp_evaluate(&m, &saved, tk, NULL)]++;
        words += o->frames.n;
        /* per-path tallies for the hottest paths */
        for (k = 0; k < ntal && tal[k].key != tk; k++)
            ;
        if (k == ntal) {
            tal[ntal].key = tk;
            ntal++;
        }
        tal[k].truth++;
        if (va == CTXPROF_ICPP_PRECISE)
            tal[k].alone++;
        if (v == CTXPROF_ICPP_PRECISE) {
            tal[k].walked++;
            if (!tal[k].name[0])
                ctxprof_icpp_map_path_str(&m, o->path, tal[k].name, sizeof tal[k].name);
        }
    }
    printf("samples=%zu dropped=%llu outside_instrumented=%ld in_transition=%ld usable=%ld\n", n,
           (unsigned long long)ctxprof_icpp_sampler_dropped(&s), outside, moving, usable);
    if (usable) {
        double u = (double)usable;
        char what[80];
        print_verdicts("pc_sp_alone", &alone_v, usable, (long)n);
        print_verdicts("partial_walk", &live_v, usable, (long)n);
        snprintf(what, sizeof what, "saved_words (%s, %.2f words/sample, resolved afterwards)",
                 save_chain ? "first frames of the chain" : "targeted", (double)words / u);
        print_verdicts(what, &saved_v, usable, (long)n);
        printf("walk: mean_frames=%.3f mean_depth=%.2f ratio=%.4f (targeted reads)\n", walked / u,
               depth / u, depth ? (double)walked / (double)depth : 0);
        /* samples on their true path when reads stop at k frames (paper 6.4) */
        {
            long cum = 0, upto = 0;
            printf("correct within k reads (targeted, measured in the handler):");
            for (k = 0; k < sizeof ks / sizeof ks[0]; k++) {
                for (; upto <= ks[k]; upto++)
                    cum += by_reads[upto];
                printf(" %d:%.3f", ks[k], (double)cum / u);
            }
            printf("\n");
        }
    }
    qsort(tal, ntal, sizeof *tal, tally_cmp);
    printf("hottest call paths (true samples | recovered by PC/SP alone | with walks):\n");
    for (k = 0; k < ntal && k < 10; k++) {
        const char *nm = tal[k].name[0] ? tal[k].name : "(never recovered)";
        size_t l = strlen(nm);
        printf("  %5ld %5ld %5ld  %s%s\n", tal[k].truth, tal[k].alone, tal[k].walked,
               l > 90 ? "..." : "", l > 90 ? nm + l - 90 : nm);
    }
    free(tal);
    ctxprof_icpp_sampler_deinit(&s);
    ctxprof_icpp_map_deinit(&m);
    ctxprof_symtab_deinit(&st);
    return 0;
}

/* The `step` mode's setup: the map, bound; one parse and one evaluation. */
static int step_setup(const char *mapfile)
{
    ctxprof_error err;
    if (ctxprof_icpp_map_load(&m, mapfile, &err) || ctxprof_symtab_init(&st, &err) ||
        ctxprof_icpp_map_bind(&m, &st, &err)) {
        fprintf(stderr, "calc: %s\n", ctxprof_error_message(&err));
        return 1;
    }
    work_rounds = 1;
    work_evals = 1;
    printf("functions with CFA rules and a body offset: %zu of %zu\n", m.cfa_funcs, m.funcs);
    return 0;
}

static void step_report(int cfa, const step_tally *t)
{
    double n = t->in_map ? (double)t->in_map : 1;
    printf("heights from %s: %ld instructions in calc's functions: correct=%.4f ambiguous=%.4f "
           "missing=%.4f incorrect=%.4f (stack lost: %ld)\n",
           cfa ? "the CFA" : "SP alone", t->in_map, t->kind[CTXPROF_ICPP_PRECISE] / n,
           t->kind[CTXPROF_ICPP_AMBIGUOUS] / n, t->kind[CTXPROF_ICPP_MISSING] / n,
           t->kind[CTXPROF_ICPP_INCORRECT] / n, t->lost);
}

int main(int argc, char **argv)
{
    int sampling = argc >= 3 && strcmp(argv[1], "sample") == 0, a = sampling ? 3 : 2;
    double secs = 1.0;
    long r;
    if (argc == 3 && strcmp(argv[1], "rounds") == 0) /* fixed work: CPU ns per round */
        return work_rounds_main(argv[2]);
    if (argc == 3 && strcmp(argv[1], "step") == 0) { /* work called from main, as trained */
        int cfa;
        if (step_setup(argv[2]))
            return 1;
        for (cfa = 0; cfa < 2; cfa++) {
            step_tally t;
            ctxprof_icpp_map_use_cfa(&m, cfa);
            step_begin(&m, "main", 64);
            work(0);
            step_end(&t);
            step_report(cfa, &t);
        }
        return 0;
    }
    if (!sampling && !(argc >= 2 && strcmp(argv[1], "run") == 0)) {
        fprintf(stderr, "usage: calc run [SECS] [a|b|c] | calc sample MAP [SECS] [a|b|c] [chain] | "
                        "calc step MAP | calc rounds N\n");
        return 2;
    }
    if (argc > a && (secs = parse_secs(argv[a])) < 0)
        return 2;
    input_b = argc > a + 1 && strcmp(argv[a + 1], "b") == 0;
    input_c = argc > a + 1 && strcmp(argv[a + 1], "c") == 0;
    save_chain = argc > a + 2 && strcmp(argv[a + 2], "chain") == 0;
    if (sampling && sample_start(argv[2], secs))
        return 1;
    r = work(secs); /* called from main in both modes: the same paths and heights */
    if (sampling)
        return sample_report();
    printf("result %ld\n", r);
    return 0;
}
