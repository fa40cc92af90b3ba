/* libFuzzer target: trained context-set files (ctxprof_pcc_file_read's parser).
   Each input is parsed twice: as a raw file image (header, checksum and all)
   and, so the fuzzer reaches the payload checks behind the checksum, as
   header fields plus payload sealed with a valid checksum. Accepted files
   must satisfy the format's invariants; refused ones must leave the output
   untouched and say why. */
#define CTXPROF_IMPLEMENTATION
#include "../../ctxprof.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const unsigned char *img, size_t size)
{
    ctxprof_pcc_file f;
    ctxprof_error err;
    size_t i;
    memset(&f, 0, sizeof f);
    memset(&err, 0, sizeof err);
    if (ctxprof__pcc_file_parse(&f, img, size, "fuzz", &err) == CTXPROF_OK) {
        if (f.bits != 32 && f.bits != 64)
            abort();
        for (i = 1; i < f.count; i++)
            if (f.values[i] <= f.values[i - 1])
                abort();
        if (f.count * (f.bits / 8) + CTXPROF__BLOB_HDR != size)
            abort();
        ctxprof_pcc_file_free(&f);
    } else if (f.values || f.count || !err.detail[0]) {
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned char *img;
    uint64_t params[4] = {0, 0, 0, 0};
    size_t i, len;
    check(data, size);
    /* sealed variant: up to 32 bytes of params, the rest payload */
    for (i = 0; i < 32 && i < size; i++)
        params[i / 8] |= (uint64_t)data[i] << (8 * (i % 8));
    params[0] = params[0] & 1 ? 64 : 32;
    len = size > 32 ? size - 32 : 0;
    img = (unsigned char *)malloc(CTXPROF__BLOB_HDR + len + 1);
    if (!img)
        return 0;
    if (len)
        memcpy(img + CTXPROF__BLOB_HDR, data + 32, len);
    ctxprof__blob_seal(img, CTXPROF__KIND_PCC_SET, params, len);
    check(img, CTXPROF__BLOB_HDR + len);
    free(img);
    return 0;
}
