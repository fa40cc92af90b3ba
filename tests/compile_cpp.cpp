// Compile check: every header twice (declarations, then implementation) as C++11,
// and the macros a program expands in its own functions, under the strict C++
// warnings too (-Wold-style-cast and the like: the Makefile's CXXSTRICT).
#include "../ctxprof.h"
#include "../ctxprof_hcct.h"
#include "../ctxprof_pebs.h"
#define CTXPROF_IMPLEMENTATION
#include "../ctxprof.h"
#include "../ctxprof_hcct.h"
#include "../ctxprof_pebs.h"

static ctxprof_pcc_set guard;

static int pcc_leaf(int x)
{
    CTXPROF_PCC_FUNC();
    ctxprof_pcc_set_check(&guard, CTXPROF_PCC_HERE(CTXPROF_PCC_SITE()), CTXPROF_PCC_LOC);
    return x + 1;
}

static int pcc_caller(int x)
{
    CTXPROF_PCC_FUNC();
    int r;
    CTXPROF_PCC_CALL(CTXPROF_PCC_SITE(), r = pcc_leaf(x));
    r += CTXPROF_PCC_ARG(CTXPROF_PCC_SITE_D(1), pcc_leaf(r));
    CTXPROF_PCC_RESYNC();
    return r + static_cast<int>(CTXPROF_PCC_COMPOSE3(1, 2, 3) & 1u);
}

#if defined(CTXPROF_PCC_HAVE_SCOPE)
static int pcc_scoped(int x)
{
    CTXPROF_PCC_SCOPE();
    int r;
    CTXPROF_PCC_CALL(CTXPROF_PCC_SITE(), r = pcc_leaf(x));
    return r;
}
#else
static int pcc_scoped(int x)
{
    return pcc_leaf(x);
}
#endif

static int icpp_leaf(int x)
{
    CTXPROF_ICPP_FUNC(icpp_leaf);
    return x + static_cast<int>(CTXPROF_ICPP_CID(icpp_leaf).height & 1u);
}

static int icpp_caller(int x)
{
    CTXPROF_ICPP_FUNC(icpp_caller);
    int r;
    CTXPROF_ICPP_CALL(icpp_caller, icpp_leaf, r = icpp_leaf(x));
    return r;
}

static int hcct_leaf(int x)
{
    CTXPROF_HCCT_SCOPE("hcct_leaf");
    return x + 1;
}

static int hcct_caller(int x)
{
    int r;
    CTXPROF_HCCT_ENTER(scope, "hcct_caller");
    r = hcct_leaf(x);
    CTXPROF_HCCT_EXIT(scope);
    return r;
}

int main()
{
    int r = pcc_caller(1) + pcc_scoped(2) + icpp_caller(3) + hcct_caller(4);
    return ctxprof_strerror(CTXPROF_OK)[0] == 'o' && r > 0 ? 0 : 1;
}
