/* Built by tests/test_package.c against an installed ctxprof: all three
   headers in one program, implemented here. Exits 0 when each part works:
   a PCC value, an HCCT count, an event name encoded (a libpfm name when
   built with CTXPROF_HAVE_LIBPFM, which also proves -lpfm linked). */
#define _GNU_SOURCE
#define CTXPROF_IMPLEMENTATION
#include "ctxprof_hcct.h"
#include "ctxprof_pebs.h"

#include <stdio.h>
#include <string.h>

int main(void)
{
    static const ctxprof_hcct_routine f = {"f", __FILE__, __LINE__};
    struct perf_event_attr attr;
    ctxprof_error e = {0};
    ctxprof_hcct_profile p;
    ctxprof_hcct t;
    int k;
    if (ctxprof_pcc_next(1, 7) != 10) /* 3V + cs */
        return 1;
    if (ctxprof_hcct_init(&t, NULL, &e) != CTXPROF_OK)
        return 2;
    for (k = 0; k < 5; k++) {
        ctxprof_hcct_push(&t, (uintptr_t)&f | CTXPROF_HCCT_NAMED, 0);
        ctxprof_hcct_pop(&t);
    }
    if (ctxprof_hcct_query(&t, -1, &p, &e) != CTXPROF_OK || p.total != 5)
        return 3;
    ctxprof_hcct_profile_deinit(&p);
    ctxprof_hcct_deinit(&t);
    memset(&attr, 0, sizeof attr);
#ifdef CTXPROF_HAVE_LIBPFM
    /* libpfm's generic perf PMU is there on any CPU */
    if (ctxprof_pebs_encode_event("perf::PERF_COUNT_SW_TASK_CLOCK", &attr, &e) != CTXPROF_OK ||
        attr.type != PERF_TYPE_SOFTWARE || attr.config != PERF_COUNT_SW_TASK_CLOCK) {
        fprintf(stderr, "%s\n", ctxprof_error_message(&e));
        return 4;
    }
    puts("libpfm");
#else
    if (ctxprof_pebs_encode_event("cycles", &attr, &e) != CTXPROF_OK)
        return 4;
#endif
    puts("ok");
    return 0;
}
