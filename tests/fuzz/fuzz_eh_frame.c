/* libFuzzer target: the .eh_frame reader behind ICPP's heights from the
   CFA (ctxprof_icpp_map_bind reads it from loaded objects in memory). The
   input is the section, in a heap block of exactly its size, so a read
   past it is an ASan report; the rows it gives hold known registers only
   and end with an unknown rule. */
#define CTXPROF_IMPLEMENTATION
#include "../../ctxprof.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const ctxprof__icpp_pcrange all = {0, UINTPTR_MAX, 0};
    unsigned char *b = (unsigned char *)malloc(size ? size : 1);
    ctxprof__cfi_ctx x;
    size_t i;
    if (!b)
        return 0;
    memcpy(b, data, size);
    memset(&x, 0, sizeof x);
    x.pcs = &all;
    x.npcs = 1;
    ctxprof__cfi_eh_frame(&x, b, b, b + size, (uintptr_t)b);
    if (x.out.n && x.out.row[x.out.n - 1].reg != CTXPROF__CFA_NONE)
        abort();
    for (i = 0; i < x.out.n; i++)
        if (x.out.row[i].reg != CTXPROF__CFA_SP && x.out.row[i].reg != CTXPROF__CFA_FP &&
            (x.out.row[i].reg != CTXPROF__CFA_NONE || x.out.row[i].off != 0))
            abort();
    free(x.out.row);
    free(b);
    return 0;
}
