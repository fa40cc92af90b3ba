/* A small JSON reader for call-site wrapping (tests/test_icpp.c,
   icpp_wrap_predicted): every call between its functions goes through
   CTXPROF_ICPP_CALL, so any wraps that `ctxprof-gen pad --wrap` chooses
   take effect, several in one function and in loops. Trained with the
   -finstrument-functions hooks. Usage: icpp_wrap ROUNDS */
#define CTXPROF_IMPLEMENTATION
#include "../../ctxprof.h"

#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

static const char *p;
static volatile long sink;

NOINLINE static void ws(void)
{
    CTXPROF_ICPP_PAD(ws);
    while (*p == ' ' || *p == '\n')
        p++;
}

NOINLINE static long value(int depth);

NOINLINE static long number(void)
{
    CTXPROF_ICPP_PAD(number);
    long v = 0;
    CTXPROF_ICPP_CALL(number, ws, ws());
    while (*p >= '0' && *p <= '9')
        v = v * 10 + (*p++ - '0');
    return v;
}

NOINLINE static long string(void)
{
    CTXPROF_ICPP_PAD(string);
    long h = 0;
    p++;
    while (*p && *p != '"')
        h = h * 31 + *p++;
    if (*p)
        p++;
    return h;
}

NOINLINE static long array(int d)
{
    CTXPROF_ICPP_PAD(array);
    long s = 0;
    p++;
    CTXPROF_ICPP_CALL(array, ws, ws());
    if (*p == ']') {
        p++;
        return 0;
    }
    for (;;) {
        CTXPROF_ICPP_CALL(array, value, s += value(d + 1));
        CTXPROF_ICPP_CALL(array, ws, ws());
        if (*p == ',') {
            p++;
            continue;
        }
        if (*p == ']')
            p++;
        return s;
    }
}

NOINLINE static long member(int d)
{
    CTXPROF_ICPP_PAD(member);
    long k, v;
    CTXPROF_ICPP_CALL(member, ws, ws());
    CTXPROF_ICPP_CALL(member, string, k = string());
    CTXPROF_ICPP_CALL(member, ws, ws());
    if (*p == ':')
        p++;
    CTXPROF_ICPP_CALL(member, value, v = value(d + 1));
    return k ^ v;
}

NOINLINE static long object(int d)
{
    CTXPROF_ICPP_PAD(object);
    long s = 0;
    p++;
    CTXPROF_ICPP_CALL(object, ws, ws());
    if (*p == '}') {
        p++;
        return 0;
    }
    for (;;) {
        CTXPROF_ICPP_CALL(object, member, s += member(d));
        CTXPROF_ICPP_CALL(object, ws, ws());
        if (*p == ',') {
            p++;
            continue;
        }
        if (*p == '}')
            p++;
        return s;
    }
}

NOINLINE static long value(int d)
{
    CTXPROF_ICPP_PAD(value);
    long r;
    CTXPROF_ICPP_CALL(value, ws, ws());
    if (*p == '{')
        CTXPROF_ICPP_CALL(value, object, r = object(d));
    else if (*p == '[')
        CTXPROF_ICPP_CALL(value, array, r = array(d));
    else if (*p == '"')
        CTXPROF_ICPP_CALL(value, string, r = string());
    else
        CTXPROF_ICPP_CALL(value, number, r = number());
    sink += r;
    return r;
}

static const char *const docs[] = {
    "{\"a\":[1,2,{\"b\":[3,[4,[5,{\"c\":6}]]]}],\"d\":\"x\",\"e\":{\"f\":{\"g\":[7,8,[9]]}}}",
    "[[[[[1]]]],{\"x\":{\"y\":{\"z\":[1,\"s\",{\"q\":2}]}}},3]",
    "{\"k\":[{\"a\":1},{\"b\":[2,3]},[[{\"c\":[4]}]]]}",
};

NOINLINE static long run(int n)
{
    long t = 0;
    int i;
    for (i = 0; i < n; i++) {
        p = docs[i % 3];
        CTXPROF_ICPP_CALL(run, value, t += value(0));
    }
    return t;
}

int main(int argc, char **argv)
{
    printf("%ld\n", run(argc > 1 ? atoi(argv[1]) : 300));
    return 0;
}
