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

int main(void)
{
    return ctxprof_strerror(CTXPROF_OK)[0] == 'o' ? 0 : 1;
}
