/* The instrumented functions of bench/enc_cost.c, one copy per variant;
   compiled in their own TU with -fno-optimize-sibling-calls (see
   MEASURING.md: gcc turns naive fib into a loop, and callees in the same TU
   let the compiler delete instrumentation). */
#include "enc_cost_ctx.h"

/* PCC baseline as in MEASURING.md: V = 3 * V + cs at the call, restored
   after (a local copy; Bond & McKinley). Not the pcc module's code: the
   module is on another branch; this is the same two operations. */
__thread uint64_t enc_bench_pcc __attribute__((tls_model("initial-exec")));
#define PCC_CALL(cs, stmt)                                                                          \
    do {                                                                                           \
        uint64_t pcc_v = enc_bench_pcc;                                                            \
        enc_bench_pcc = 3 * pcc_v + (cs);                                                          \
        stmt;                                                                                      \
        enc_bench_pcc = pcc_v;                                                                     \
    } while (0)

#include "enc_cost.h"

#define PLAIN(e, stmt) stmt
/* call-site ids that fit lea's 32-bit displacement, as MEASURING.md assumes */
#define PCC_L(e, stmt) PCC_CALL(0x3779B1u, stmt)
#define PCC_R(e, stmt) PCC_CALL(0x4A7C15u, stmt)

#define FIB(name, LEFT, RIGHT)                                                                     \
    long name(int n)                                                                               \
    {                                                                                              \
        long a, b;                                                                                 \
        if (n < 2)                                                                                 \
            return leaf(n);                                                                        \
        LEFT(CTXPROF_EDGE(fib, fib, 0), a = name(n - 1));                                          \
        RIGHT(CTXPROF_EDGE(fib, fib, 1), b = name(n - 2));                                         \
        return a + b;                                                                              \
    }
FIB(fib_plain, PLAIN, PLAIN)
FIB(fib_pcc, PCC_L, PCC_R)
FIB(fib_pcce, CTXPROF_GEN_CALL_PCCE, CTXPROF_GEN_CALL_PCCE)
FIB(fib_valence, CTXPROF_GEN_CALL_VALENCE, CTXPROF_GEN_CALL_VALENCE)
FIB(fib_hcce, CTXPROF_GEN_CALL_HCCE, CTXPROF_GEN_CALL_HCCE)
FIB(fib_auto, CTXPROF_GEN_CALL_AUTO, CTXPROF_GEN_CALL_AUTO)

#define OUTER(name, CALL)                                                                          \
    int name(int x)                                                                                \
    {                                                                                              \
        int r;                                                                                     \
        CALL(CTXPROF_EDGE(outer, inner, 0), r = inner(x));                                         \
        return r + 1;                                                                              \
    }
OUTER(outer_plain, PLAIN)
OUTER(outer_pcc, PCC_L)
OUTER(outer_pcce, CTXPROF_GEN_CALL_PCCE)
OUTER(outer_valence, CTXPROF_GEN_CALL_VALENCE)
OUTER(outer_hcce, CTXPROF_GEN_CALL_HCCE)
OUTER(outer_auto, CTXPROF_GEN_CALL_AUTO)
