/* Test program for ICPP (tests/test_icpp.c builds it several ways):

     -DICPP_HOOKS   train with -finstrument-functions hooks (no annotations)
     otherwise      train with CTXPROF_ICPP_FUNC annotations
     -include pads.h  frame padding (and call-site wraps) from a table
     -DICPP_PLAIN_CALLS  the wrapped calls below as plain calls

   Usage: icpp_prog train OUT.paths | cid | step MAP
   step: every instruction of a run as a sample (examples/icpp/step.h),
   heights from SP alone then from the CFA; prints per pass the counts of
   instructions in the map's functions, precise, ambiguous, missing,
   incorrect and lost.
   A small recursive-descent evaluator: expr -> term -> factor -> (expr),
   plus two leaves reached by different paths of equal length, and a
   function every call of which passes stack arguments (spread, its
   callers' steps to it are all larger than its body offset). The calls
   factor -> left/right and term -> factor go through CTXPROF_ICPP_CALL
   (call-site wrapping), the others are plain calls. */
#define CTXPROF_IMPLEMENTATION
#include "../../ctxprof.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../examples/icpp/step.h"

#if defined(ICPP_HOOKS)
#define FUNC(f) CTXPROF_ICPP_PAD(f)
#else
#define FUNC(f) CTXPROF_ICPP_FUNC(f)
#endif
#define NOINLINE __attribute__((noinline))
#if defined(ICPP_PLAIN_CALLS) /* no call-site wrapping: every call a plain call */
#undef CTXPROF_ICPP_CALL
#define CTXPROF_ICPP_CALL(caller, callee, stmt) stmt
#endif

static const char *src;
static volatile long sink;
static ctxprof_icpp_cid leaf_cid;

NOINLINE static long leaf(long x)
{
    FUNC(leaf);
    leaf_cid = CTXPROF_ICPP_CID(leaf);
    sink += x;
    return x + 1;
}

/* External, so that no compiler drops or folds its arguments: the seventh
   and eighth go on the stack at every call. */
long spread(long a, long b, long c, long d, long e, long f, long g, long h);
NOINLINE long spread(long a, long b, long c, long d, long e, long f, long g, long h)
{
    FUNC(spread);
    volatile long buf[4];
    buf[0] = a ^ h;
    buf[1] = b + g;
    return leaf(buf[0] + buf[1] + c - d + e - f);
}

NOINLINE static long left(long x)
{
    FUNC(left);
    volatile char buf[32];
    buf[0] = (char)x;
    return spread(x, x + buf[0], 2 * x, x, 3 * x, 3 * x, x - buf[0], x) - 1;
}

NOINLINE static long right(long x)
{
    FUNC(right);
    volatile char buf[32];
    buf[0] = (char)x;
    return leaf(x - buf[0]);
}

static long expr(int depth);

NOINLINE static long factor(int depth)
{
    FUNC(factor);
    if (*src == '(') {
        long v;
        src++;
        v = expr(depth + 1);
        if (*src == ')')
            src++;
        return v;
    }
    if (*src >= '0' && *src <= '9') {
        long v, d = *src++ - '0';
        if (depth % 2)
            CTXPROF_ICPP_CALL(factor, left, v = left(d));
        else
            CTXPROF_ICPP_CALL(factor, right, v = right(d));
        return v;
    }
    src++;
    return 0;
}

NOINLINE static long term(int depth)
{
    FUNC(term);
    long v, w;
    CTXPROF_ICPP_CALL(term, factor, v = factor(depth));
    while (*src == '*') {
        src++;
        CTXPROF_ICPP_CALL(term, factor, w = factor(depth));
        v *= w;
    }
    return v;
}

NOINLINE static long expr(int depth)
{
    FUNC(expr);
    long v = term(depth);
    while (*src == '+') {
        src++;
        v += term(depth);
    }
    return v;
}

NOINLINE static long run(const char *s)
{
    FUNC(run);
    src = s;
    return expr(0);
}

int main(int argc, char **argv)
{
    ctxprof_error err;
    long v = 0;
    int i;
    if (argc < 2)
        return 2;
    if (strcmp(argv[1], "train") == 0 && argc == 3) {
#if !defined(ICPP_HOOKS)
        if (ctxprof_icpp_train_start(NULL, &err)) {
            fprintf(stderr, "%s\n", ctxprof_error_message(&err));
            return 1;
        }
#endif
        for (i = 0; i < 3; i++)
            v += run("1+2*(3+(4*5+(6)))*7+((8))");
#if !defined(ICPP_HOOKS)
        ctxprof_icpp_train_stop();
        if (ctxprof_icpp_train_save(argv[2], &err)) {
            fprintf(stderr, "%s\n", ctxprof_error_message(&err));
            return 1;
        }
#endif
        printf("%ld\n", v);
        return 0;
    }
    if (strcmp(argv[1], "step") == 0 && argc == 3) {
        static ctxprof_icpp_map m;
        static ctxprof_symtab st;
        if (ctxprof_icpp_map_load(&m, argv[2], &err) || ctxprof_symtab_init(&st, &err) ||
            ctxprof_icpp_map_bind(&m, &st, &err)) {
            fprintf(stderr, "%s\n", ctxprof_error_message(&err));
            return 1;
        }
        for (i = 0; i < 2; i++) {
            step_tally t;
            ctxprof_icpp_map_use_cfa(&m, i);
            step_begin(&m, "main", 64);
            v += run("1+2*(3+(4*5+(6)))*7+((8))");
            step_end(&t);
            printf("%ld %ld %ld %ld %ld %ld\n", t.in_map, t.kind[CTXPROF_ICPP_PRECISE],
                   t.kind[CTXPROF_ICPP_AMBIGUOUS], t.kind[CTXPROF_ICPP_MISSING],
                   t.kind[CTXPROF_ICPP_INCORRECT], t.lost);
        }
        return 0;
    }
    if (strcmp(argv[1], "cid") == 0) {
        v = run("(1)");
        printf("%llu\n", (unsigned long long)leaf_cid.height);
        return v == 3 ? 0 : 1;
    }
    return 2;
}
