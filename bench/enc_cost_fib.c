/* The instrumented functions of bench/enc_cost.c, one copy per variant;
   compiled in their own TU with -fno-optimize-sibling-calls (see
   MEASURING.md: gcc turns naive fib into a loop, and callees in the same TU
   let the compiler delete instrumentation). */
#include "enc_cost_ctx.h"

#include "enc_cost.h"

#define NOTHING() ((void)0)
#define PLAIN(e, stmt) stmt
/* PCC, the pcc module's own macros: the caller's value kept in a local at
   entry (Bond & McKinley), V = 3V + cs before the call, restored after.
   The sites of one macro expansion share a line: discriminators 1, 2. */
#define PCC_L(e, stmt) CTXPROF_PCC_CALL(CTXPROF_PCC_SITE_D(1), stmt)
#define PCC_R(e, stmt) CTXPROF_PCC_CALL(CTXPROF_PCC_SITE_D(2), stmt)

#define FIB(name, ENTER, LEFT, RIGHT)                                                              \
    long name(int n)                                                                               \
    {                                                                                              \
        long a, b;                                                                                 \
        ENTER();                                                                                   \
        if (n < 2)                                                                                 \
            return leaf(n);                                                                        \
        LEFT(CTXPROF_EDGE(fib, fib, 0), a = name(n - 1));                                          \
        RIGHT(CTXPROF_EDGE(fib, fib, 1), b = name(n - 2));                                         \
        return a + b;                                                                              \
    }
FIB(fib_plain, NOTHING, PLAIN, PLAIN)
FIB(fib_pcc, CTXPROF_PCC_FUNC, PCC_L, PCC_R)
FIB(fib_pcce, NOTHING, CTXPROF_GEN_CALL_PCCE, CTXPROF_GEN_CALL_PCCE)
FIB(fib_valence, NOTHING, CTXPROF_GEN_CALL_VALENCE, CTXPROF_GEN_CALL_VALENCE)
FIB(fib_hcce, NOTHING, CTXPROF_GEN_CALL_HCCE, CTXPROF_GEN_CALL_HCCE)
FIB(fib_auto, NOTHING, CTXPROF_GEN_CALL_AUTO, CTXPROF_GEN_CALL_AUTO)

#define OUTER(name, ENTER, CALL)                                                                   \
    int name(int x)                                                                                \
    {                                                                                              \
        int r;                                                                                     \
        ENTER();                                                                                   \
        CALL(CTXPROF_EDGE(outer, inner, 0), r = inner(x));                                         \
        return r + 1;                                                                              \
    }
OUTER(outer_plain, NOTHING, PLAIN)
OUTER(outer_pcc, CTXPROF_PCC_FUNC, PCC_L)
OUTER(outer_pcce, NOTHING, CTXPROF_GEN_CALL_PCCE)
OUTER(outer_valence, NOTHING, CTXPROF_GEN_CALL_VALENCE)
OUTER(outer_hcce, NOTHING, CTXPROF_GEN_CALL_HCCE)
OUTER(outer_auto, NOTHING, CTXPROF_GEN_CALL_AUTO)
