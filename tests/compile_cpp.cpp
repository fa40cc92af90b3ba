// Compile check: every header twice (declarations, then implementation) as C++11.
#include "../ctxprof.h"
#include "../ctxprof_hcct.h"
#include "../ctxprof_pebs.h"
#define CTXPROF_IMPLEMENTATION
#include "../ctxprof.h"
#include "../ctxprof_hcct.h"
#include "../ctxprof_pebs.h"

int main()
{
    return ctxprof_strerror(CTXPROF_OK)[0] == 'o' ? 0 : 1;
}
