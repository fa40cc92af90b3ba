/* libFuzzer target: the ELF symbol reader behind ctxprof_symtab (it reads
   every loaded object's file and a debug file found by build id, any of
   which may be truncated or corrupt). The input is an ELF image in memory,
   loaded at a fixed bias with (input bit 0 of the first byte) or without an
   executable range. Whatever it holds, every symbol taken must be a
   well-formed function inside the range, the count must match, and after
   sorting every symbol must be found again by address. What one image adds
   is bounded by its size: no more symbols than it holds entries, no more
   name bytes than twice its size (many headers over one table once gave
   headers x symbols). */
#define CTXPROF_IMPLEMENTATION
#include "../../ctxprof.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define BIAS ((uintptr_t)0x10000000u)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ctxprof_symtab st;
    ctxprof__elfsrc src;
    uintptr_t xr[2] = {BIAS + 0x200, BIAS + 0x10000};
    size_t nx = size && (data[0] & 1) ? 1 : 0, i;
    uint32_t obj;
    long n;
    memset(&st, 0, sizeof st);
    src.fd = -1;
    src.mem = data;
    src.size = size;
    obj = ctxprof__symtab_obj(&st, "fuzz.so");
    if (obj == UINT32_MAX)
        return 0;
    n = ctxprof__symtab_add_elf(&st, &src, BIAS, xr, nx, obj);
    if (n < 0 || (size_t)n != st.count)
        abort(); /* out of memory is impossible here: every size is bounded by the input */
    if ((size_t)n > size / 24 || (st.names_len - sizeof "fuzz.so") / 2 > size)
        abort();
    for (i = 0; i < st.count; i++) {
        const struct ctxprof__sym *y = &st.syms[i];
        if (y->start < BIAS || (nx && (y->start < xr[0] || y->start >= xr[1])) ||
            (y->end && y->end <= y->start) || y->name >= st.names_len ||
            strlen(st.names + y->name) != y->len || y->len == 0 || y->obj != obj)
            abort();
    }
    if (ctxprof__symtab_finish(&st) != 0)
        abort();
    for (i = 0; i < st.count; i++) {
        uintptr_t off = 1;
        const char *obj_path = NULL;
        if (!ctxprof_symtab_lookup(&st, st.syms[i].start, &off, &obj_path) || off != 0 ||
            !obj_path || strcmp(obj_path, "fuzz.so") != 0 ||
            ctxprof_symtab_func(&st, st.syms[i].start) == 0)
            abort();
    }
    ctxprof_symtab_deinit(&st);
    return 0;
}
