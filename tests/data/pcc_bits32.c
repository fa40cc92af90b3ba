/* Built by test_pcc.c with -DCTXPROF_CTX_BITS=32: the 32-bit build trains,
   saves and reloads a set, and refuses the 64-bit file given as argv[2].
   Prints "ok" or the first failure. */
#define CTXPROF_IMPLEMENTATION
#include "ctxprof.h"
#include <stdio.h>

#define FAIL(msg)                                                                                  \
    do {                                                                                           \
        printf("fail: %s (%s)\n", msg, ctxprof_pcc_set_last_error(&s));                            \
        return 1;                                                                                  \
    } while (0)

int main(int argc, char **argv)
{
    ctxprof_pcc_set s, t;
    ctxprof_pcc_set_desc d = {0};
    ctxprof_ctx v = 0;
    unsigned i;
    if (argc < 3 || sizeof(ctxprof_ctx) != 4)
        return 2;
    d.mode = CTXPROF_PCC_TRAIN;
    if (ctxprof_pcc_set_init(&s, &d) || ctxprof_pcc_set_init(&t, &d))
        FAIL("init");
    for (i = 0; i < 1000; i++) { /* contexts along a path, wrapping modulo 2^32 */
        v = ctxprof_pcc_next(v, ctxprof_pcc_site_id("bits32.c", i, 0, 0));
        ctxprof_pcc_set_check(&s, v, CTXPROF_PCC_LOC);
        if (ctxprof_pcc_prev(v, ctxprof_pcc_site_id("bits32.c", i, 0, 0)) * 3u +
                ctxprof_pcc_site_id("bits32.c", i, 0, 0) != v)
            FAIL("inverse");
    }
    if (ctxprof_pcc_set_count(&s) != 1000)
        FAIL("count");
    if (ctxprof_pcc_set_save(&s, argv[1]) || ctxprof_pcc_set_load(&t, argv[1]))
        FAIL("save/load");
    if (ctxprof_pcc_set_count(&t) != 1000 || !ctxprof_pcc_set_contains(&t, v))
        FAIL("roundtrip");
    if (ctxprof_pcc_set_load(&t, argv[2]) != CTXPROF_ERR_MISMATCH)
        FAIL("64-bit file accepted");
    puts("ok");
    return 0;
}
