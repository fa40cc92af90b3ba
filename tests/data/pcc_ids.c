/* Prints the call-site ids of three sites; built twice from different
   directories by test_pcc.c, which checks the ids agree across builds,
   processes and ASLR, and with ctxprof_pcc_site_id. */
#include <stdio.h>
#include "ctxprof.h"

int main(void)
{
    printf("%llu\n", (unsigned long long)CTXPROF_PCC_SITE());
    printf("%llu\n", (unsigned long long)CTXPROF_PCC_SITE_D(1));
    printf("%llu %p\n", (unsigned long long)CTXPROF_PCC_SITE(), (void *)&main);
    return 0;
}
