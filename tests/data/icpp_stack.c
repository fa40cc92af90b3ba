/* Training's shadow stack at its edges (tests/test_icpp.c,
   icpp_train_shadow_stack), with the -finstrument-functions hooks and
   with CTXPROF_ICPP_FUNC:
   - longjmp: gcc -O2 inlines fibj into itself and once into jumps, so the
     frames a longjmp leaves include callees inlined into a live frame, at
     its SP;
   - recursion through one call site whose exit is a tail call (gcc and
     clang -O2 end rec and recm with a jump to the exit hook, which then
     sees the caller's SP, where the caller's frame has the same function
     and call site).
   Usage: icpp_stack MAP */
#define CTXPROF_IMPLEMENTATION
#define CTXPROF_ICPP_HOOKS
#include "../../ctxprof.h"

#include <setjmp.h>
#include <stdio.h>

static jmp_buf jb;
static volatile int sink;
static unsigned leaves, trigger;

static int fibj(int n)
{
    if (n < 2) {
        if (++leaves == trigger)
            longjmp(jb, 1);
        return n;
    }
    return fibj(n - 1) + fibj(n - 2);
}

/* more iterations than the default depth bound, each left by a longjmp */
__attribute__((noinline)) void jumps(int k)
{
    volatile int i;
    for (i = 0; i < k; i++) {
        trigger = leaves + 1 + (unsigned)(i * 7) % 89; /* fibj(10) has 89 leaves */
        if (setjmp(jb) == 0)
            sink += fibj(10);
    }
}

__attribute__((noinline)) void thrower(int x)
{
    sink += x;
    if (x)
        longjmp(jb, 1);
}

/* thrower again, from another site, at the SP its dead frame had */
__attribute__((noinline)) void sib(void)
{
    if (setjmp(jb) == 0)
        thrower(1);
    thrower(0);
}

__attribute__((noinline)) static void rec(int n)
{
    if (n > 0)
        rec(n - 1);
    if (n > 0)
        rec(n - 1);
}

__attribute__((noinline, no_instrument_function)) static void recm(int n)
{
    CTXPROF_ICPP_FUNC(recm);
    if (n > 0)
        recm(n - 1);
    if (n > 0)
        recm(n - 1);
}

int main(int argc, char **argv)
{
    ctxprof_icpp_train_stats st;
    ctxprof_error e;
    if (argc != 2 || ctxprof_icpp_train_start(NULL, &e) != CTXPROF_OK)
        return 2;
    jumps(20000);
    sib();
    rec(3);
    recm(3);
    ctxprof_icpp_train_stop();
    ctxprof_icpp_train_get_stats(&st);
    printf("dropped_depth %llu dropped_paths %llu\n", (unsigned long long)st.dropped_depth,
           (unsigned long long)st.dropped_paths);
    return ctxprof_icpp_train_save(argv[1], &e) == CTXPROF_OK ? 0 : 1;
}
