#define _POSIX_C_SOURCE 200809L /* strict -std=c99 hides POSIX; see the header's #error */
/* Compile check: every header twice, first declarations only, then with the
   implementation, as C99 -pedantic and as C11 with the strict warning set. */
#include "../ctxprof.h"
#include "../ctxprof_hcct.h"
#include "../ctxprof_pebs.h"
#define CTXPROF_IMPLEMENTATION
#include "../ctxprof.h"
#include "../ctxprof_hcct.h"
#include "../ctxprof_pebs.h"

/* the ICPP macros a user expands in their own functions, under the same
   warnings */
static int leaf(int x)
{
    CTXPROF_ICPP_FUNC(leaf);
    return x + 1;
}

static int caller(int x)
{
    CTXPROF_ICPP_FUNC(caller);
    int r;
    CTXPROF_ICPP_CALL(caller, leaf, r = leaf(x));
    return r;
}

int main(void)
{
    return ctxprof_strerror(CTXPROF_OK)[0] == 'o' && caller(1) == 2 ? 0 : 1;
}
