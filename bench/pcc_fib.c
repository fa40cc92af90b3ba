/* Workload for bench/pcc_calls.c: a doubly recursive fib whose two halves
   live in two translation units (SIDE 0 and 1), so every call crosses a TU
   boundary and the context update cannot be optimized away. Compiled once
   per variant (VARIANT names the symbol prefix):
     plain     no instrumentation (plainso: the same -fPIC in a .so, the .so variants' base)
     pcc       CTXPROF_PCC_FUNC + CTXPROF_PCC_CALL (restore from a local)
     pccinv    update before, restore by multiplying by the inverse of 3
     finstr    -finstrument-functions with empty hooks (flag set by the Makefile)
     pccso     pcc, built -fPIC into a shared library (initial-exec TLS)
     pccsodyn  the same with -DCTXPROF_TLS_DYNAMIC (a __tls_get_addr call per access) */
#include "../ctxprof.h"

#define CAT(a, b) a##b
#define XCAT(a, b) CAT(a, b)
#define FIB(side) XCAT(VARIANT, XCAT(_fib, side))
#if SIDE == 0
#define OTHER 1
#else
#define OTHER 0
#endif

long FIB(OTHER)(int n);
long FIB(SIDE)(int n);

#if defined(USE_PCC)
#define ENTER() CTXPROF_PCC_FUNC()
#define CALL(stmt) CTXPROF_PCC_CALL(CTXPROF_PCC_SITE(), stmt)
#elif defined(USE_PCC_INV)
#define ENTER() ((void)0)
#define CALL(stmt)                                                                                 \
    do {                                                                                           \
        ctxprof_pcc_push(&ctxprof_pcc_tls, CTXPROF_PCC_SITE());                                    \
        stmt;                                                                                      \
        ctxprof_pcc_pop_site(&ctxprof_pcc_tls, CTXPROF_PCC_SITE());                                \
    } while (0)
#else
#define ENTER() ((void)0)
#define CALL(stmt) stmt
#endif

long FIB(SIDE)(int n)
{
    long a, b;
    ENTER();
    if (n < 2)
        return n;
    CALL(a = FIB(OTHER)(n - 1));
    CALL(b = FIB(OTHER)(n - 2));
    return a + b;
}
