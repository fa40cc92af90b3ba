/* Built by test_pcc.c with -DCTXPROF_SITE_BITS=64 (full-width ids): prints
   the ids of two sites (line 12), whether the run-time twin agrees, and
   saves a set of one context to argv[1]. */
#define CTXPROF_IMPLEMENTATION
#include <stdio.h>
#include "ctxprof.h"

int main(int argc, char **argv)
{
    ctxprof_pcc_set set;
    ctxprof_pcc_set_desc desc = {0};
    ctxprof_ctx a = CTXPROF_PCC_SITE(), b = CTXPROF_PCC_SITE_D(1);
    if (argc != 2)
        return 2;
    printf("%llu %llu %d\n", (unsigned long long)a, (unsigned long long)b,
           a == ctxprof_pcc_site_id("pcc_site64.c", 12, 0, CTXPROF_SITE_SEED) &&
               b == ctxprof_pcc_site_id("pcc_site64.c", 12, 1, CTXPROF_SITE_SEED));
    desc.mode = CTXPROF_PCC_TRAIN;
    if (ctxprof_pcc_set_init(&set, &desc) || ctxprof_pcc_set_add(&set, ctxprof_pcc_next(0, a)) != 1 ||
        ctxprof_pcc_set_save(&set, argv[1]))
        return 1;
    ctxprof_pcc_set_deinit(&set);
    return 0;
}
