/* expr: a recursive-descent expression parser and evaluator whose call
   sites are annotated with precise calling-context encodings.

   Shows: the call graph file (expr.callgraph), the header ctxprof-gen makes
   from it (expr_ctx.h), CTXPROF_CALL at every call site of the recursive
   functions, and a query point: a '?' after a number asks "how did the
   parser get here?", answered by decoding the current encoding.

       make build/examples/encoders/expr
       build/examples/encoders/expr '1 + 2*(3 - max(4, -(5?)))'

   Build by hand:
       build/ctxprof-gen -o expr_ctx.h examples/encoders/expr.callgraph
       cc -I. -I<dir of expr_ctx.h> examples/encoders/expr.c -o expr */
#define _GNU_SOURCE
#define CTXPROF_IMPLEMENTATION
#include "expr_ctx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct node {
    char op; /* 'n' number, '+', '-', '*', '/', 'm' max(a, b), '~' negate */
    double value;
    struct node *a, *b;
} node;

/* Factors nest in factors ("(", "-", "max(") at most this deep: it bounds
   the recursion, and the deepest query's context (4 calls a level, plus
   main -> run and the query's own 2) fits where_am_i's path[256]. */
#define MAX_NEST 60
#define STR_(x) #x
#define STR(x) STR_(x)

static const char *cur;      /* parser position: never past the string's NUL */
static const char *err_at;   /* the first error's position, or NULL */
static const char *err_what; /* and what it was */
static int nest, undecoded;  /* factors open; queries that could not decode */

static node *mk(char op, double value, node *a, node *b)
{
    node *n = (node *)calloc(1, sizeof *n);
    if (!n) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    n->op = op;
    n->value = value;
    n->a = a;
    n->b = b;
    return n;
}

static void skip(void)
{
    while (*cur == ' ')
        cur++;
}

/* Notes an error at the current position (only the first one counts). */
static void fail(const char *what)
{
    if (!err_at) {
        err_at = cur;
        err_what = what;
    }
}

/* Consumes c if it is next; otherwise an error there (cur stays put, so
   it never steps over the string's end). */
static void expect(char c)
{
    if (*cur == c)
        cur++;
    else
        fail("syntax error");
}

/* The query point: decode the calling context of this thread's encoding. */
static int where_am_i(void)
{
    const ctxprof_enc_tables *t = ctxprof_gen_tables(CTXPROF_GEN_SCHEME);
    ctxprof_enc_view v;
    ctxprof_error err;
    uint32_t path[256];
    size_t n, need;
    char text[4096];
    int st;
    ctxprof_enc_query(CTXPROF_GEN_TLS, CTXPROF_GEN_BASE, &v);
    st = ctxprof_enc_decode_view(t, &v, CTXPROF_NODE(where_am_i), path,
                                 sizeof path / sizeof path[0], &n, &err);
    if (st != CTXPROF_OK) {
        fprintf(stderr, "expr: context not decoded: %s (%s)\n", ctxprof_strerror(st), err.detail);
        return 0;
    }
    need = ctxprof_enc_format(t, 0, path, n, text, sizeof text);
    printf("  context (%lu calls, encoded in %lu bits = %lu word%s, hash %016llx):\n    %s",
           (unsigned long)n, (unsigned long)v.n_bits, (unsigned long)v.n_words,
           v.n_words == 1 ? "" : "s",
           (unsigned long long)ctxprof_enc_hash(CTXPROF_GEN_TLS, CTXPROF_GEN_BASE,
                                                CTXPROF_NODE(where_am_i)),
           text);
    if (need >= sizeof text)
        printf(" [cut: %lu of %lu characters shown]", (unsigned long)(sizeof text - 1),
               (unsigned long)need);
    printf("\n");
    return 1;
}

static node *parse_expr(void);

static node *parse_number(void)
{
    char *end;
    double v = strtod(cur, &end);
    if (end == cur) {
        fail("syntax error");
        return mk('n', 0, NULL, NULL);
    }
    cur = end;
    skip();
    if (*cur == '?') {
        int ok;
        cur++;
        skip();
        if (!err_at) { /* a failed parse's contexts are not worth printing */
            CTXPROF_CALL(CTXPROF_EDGE(parse_number, where_am_i, 0), ok = where_am_i());
            if (!ok)
                undecoded++;
        }
    }
    return mk('n', v, NULL, NULL);
}

static node *parse_call(void)
{
    node *a, *b;
    cur += 3; /* "max", matched by the caller */
    skip();
    if (*cur != '(') {
        fail("syntax error");
        return mk('n', 0, NULL, NULL);
    }
    cur++;
    CTXPROF_CALL(CTXPROF_EDGE(parse_call, parse_expr, 0), a = parse_expr());
    if (*cur != ',') {
        fail("syntax error");
        return a;
    }
    cur++;
    CTXPROF_CALL(CTXPROF_EDGE(parse_call, parse_expr, 0), b = parse_expr());
    expect(')');
    skip();
    return mk('m', 0, a, b);
}

static node *parse_factor(void)
{
    node *r;
    skip();
    if (nest == MAX_NEST) {
        fail("nesting deeper than " STR(MAX_NEST) " levels");
        return mk('n', 0, NULL, NULL);
    }
    nest++;
    if (*cur == '(') {
        cur++;
        CTXPROF_CALL(CTXPROF_EDGE(parse_factor, parse_expr, 0), r = parse_expr());
        expect(')');
        skip();
    } else if (*cur == '-') {
        cur++;
        CTXPROF_CALL(CTXPROF_EDGE(parse_factor, parse_factor, 0), r = parse_factor());
        r = mk('~', 0, r, NULL);
    } else if (strncmp(cur, "max", 3) == 0) {
        CTXPROF_CALL(CTXPROF_EDGE(parse_factor, parse_call, 0), r = parse_call());
    } else {
        CTXPROF_CALL(CTXPROF_EDGE(parse_factor, parse_number, 0), r = parse_number());
    }
    nest--;
    return r;
}

static node *parse_term(void)
{
    node *r, *b;
    CTXPROF_CALL(CTXPROF_EDGE(parse_term, parse_factor, 0), r = parse_factor());
    while (*cur == '*' || *cur == '/') {
        char op = *cur++;
        CTXPROF_CALL(CTXPROF_EDGE(parse_term, parse_factor, 1), b = parse_factor());
        r = mk(op, 0, r, b);
    }
    return r;
}

static node *parse_expr(void)
{
    node *r, *b;
    CTXPROF_CALL(CTXPROF_EDGE(parse_expr, parse_term, 0), r = parse_term());
    while (*cur == '+' || *cur == '-') {
        char op = *cur++;
        CTXPROF_CALL(CTXPROF_EDGE(parse_expr, parse_term, 1), b = parse_term());
        r = mk(op, 0, r, b);
    }
    return r;
}

static double eval(const node *n);

static double apply(const node *n)
{
    double a, b;
    CTXPROF_CALL(CTXPROF_EDGE(apply, eval, 0), a = eval(n->a));
    CTXPROF_CALL(CTXPROF_EDGE(apply, eval, 0), b = eval(n->b));
    return a > b ? a : b;
}

static double eval(const node *n)
{
    double a, b;
    if (n->op == 'n')
        return n->value;
    if (n->op == 'm') {
        CTXPROF_CALL(CTXPROF_EDGE(eval, apply, 0), a = apply(n));
        return a;
    }
    CTXPROF_CALL(CTXPROF_EDGE(eval, eval, 0), a = eval(n->a));
    if (n->op == '~')
        return -a;
    CTXPROF_CALL(CTXPROF_EDGE(eval, eval, 1), b = eval(n->b));
    return n->op == '+' ? a + b : n->op == '-' ? a - b : n->op == '*' ? a * b : a / b;
}

static void free_tree(node *n)
{
    if (n) {
        free_tree(n->a);
        free_tree(n->b);
        free(n);
    }
}

static int run(const char *text)
{
    node *tree;
    double v;
    cur = text;
    err_at = NULL;
    nest = undecoded = 0;
    printf("%s\n", text);
    CTXPROF_CALL(CTXPROF_EDGE(run, parse_expr, 0), tree = parse_expr());
    if (!err_at && *cur)
        fail("syntax error");
    if (err_at) {
        printf("  %s at offset %ld\n", err_what, (long)(err_at - text));
        free_tree(tree);
        return 1;
    }
    CTXPROF_CALL(CTXPROF_EDGE(run, eval, 0), v = eval(tree));
    printf("  = %g\n", v);
    free_tree(tree);
    return undecoded != 0;
}

int main(int argc, char **argv)
{
    static const char *const dflt[] = {"1 + 2*(3 - max(4, -(5?)))", "((((7?))))*2",
                                       "max(1, max(2, max(3, 4?))) / 2"};
    int i, rc = 0, n = argc > 1 ? argc - 1 : 3, r;
    for (i = 0; i < n; i++) {
        CTXPROF_CALL(CTXPROF_EDGE(main, run, 0), r = run(argc > 1 ? argv[i + 1] : dflt[i]));
        rc |= r;
    }
    ctxprof_enc_deinit(CTXPROF_GEN_TLS);
    return rc;
}
