/* libFuzzer target: trained context-set files. Each input is parsed three
   ways: as a raw file image (header, checksum and all); as header fields
   plus payload sealed with a valid checksum (so the fuzzer reaches the
   payload checks behind it); and as a payload sealed with this build's own
   parameters, which ctxprof_pcc_set_load and _merge may accept. Accepted
   files must satisfy the format's invariants, load exactly their values
   and be written back byte for byte; refused ones must leave the output
   untouched, the loaded set unchanged, and say why. */
#define CTXPROF_IMPLEMENTATION
#include "../../ctxprof.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64], again[64];
static uint64_t own[4]; /* this build's header parameters */
static const ctxprof_ctx base[3] = {1, 0x1234, (ctxprof_ctx)0xFEEDFACECAFEBEEFull};

/* sealed: img carries a valid magic, version, kind and checksum, so only
   its parameters and payload can be wrong: refused, it is corrupt. Else the
   container may also be another version or kind (mismatch). Never out of
   memory: an accepted count of values fills the payload, at most size. */
static void check(const unsigned char *img, size_t size, int sealed)
{
    ctxprof_pcc_file f;
    ctxprof_error err;
    size_t i;
    int st;
    memset(&f, 0, sizeof f);
    memset(&err, 0, sizeof err);
    st = ctxprof__pcc_file_parse(&f, img, size, "fuzz", &err);
    if (st != CTXPROF_OK && st != CTXPROF_ERR_CORRUPT && (sealed || st != CTXPROF_ERR_MISMATCH))
        abort();
    if (st != CTXPROF_OK && err.status != st)
        abort();
    if (st == CTXPROF_OK) {
        if (f.bits != 32 && f.bits != 64)
            abort();
        for (i = 1; i < f.count; i++)
            if (f.values[i] <= f.values[i - 1])
                abort();
        if (f.count * (f.bits / 8) + CTXPROF__BLOB_HDR != size)
            abort();
        { /* what was read is what the file said: written back, the same bytes */
            char *buf;
            size_t blen;
            if (ctxprof_pcc_file_write(&f, again, &err) ||
                ctxprof__read_file(again, &buf, &blen, NULL, NULL))
                abort();
            if (blen != size || memcmp(buf, img, size) != 0)
                abort();
            ctxprof__free(buf, NULL);
        }
        ctxprof_pcc_file_free(&f);
    } else if (f.values || f.count || !err.detail[0]) {
        abort();
    }
}

static int has_value(const uint64_t *v, size_t n, uint64_t x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) { /* v is sorted */
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] == x)
            return 1;
        if (v[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

/* A set holding base[], loaded (merge 0) or merged (1) with the file. */
static void load(const unsigned char *img, size_t size, int merge)
{
    ctxprof_pcc_set s;
    ctxprof_pcc_file f;
    ctxprof_error err;
    FILE *out = fopen(path, "wb");
    size_t i;
    int rc, parsed;
    if (!out || (size && fwrite(img, 1, size, out) != size) || fclose(out) != 0)
        abort();
    if (ctxprof_pcc_set_init(&s, NULL) != CTXPROF_OK)
        return;
    for (i = 0; i < 3; i++)
        ctxprof_pcc_set_add(&s, base[i]);
    memset(&f, 0, sizeof f);
    memset(&err, 0, sizeof err);
    parsed = ctxprof__pcc_file_parse(&f, img, size, "fuzz", &err) == CTXPROF_OK;
    rc = merge ? ctxprof_pcc_set_merge(&s, path) : ctxprof_pcc_set_load(&s, path);
    if (rc != CTXPROF_OK) {
        if (ctxprof_pcc_set_count(&s) != 3 || !ctxprof_pcc_set_last_error(&s)[0])
            abort(); /* a refused file changed the set */
        for (i = 0; i < 3; i++)
            if (!ctxprof_pcc_set_contains(&s, base[i]))
                abort();
    } else {
        size_t extra = 0;
        if (!parsed)
            abort(); /* the set took a file the parser refuses */
        for (i = 0; i < f.count; i++) {
            if (!ctxprof_pcc_set_contains(&s, (ctxprof_ctx)f.values[i]))
                abort();
        }
        for (i = 0; merge && i < 3; i++) {
            if (!ctxprof_pcc_set_contains(&s, base[i]))
                abort();
            extra += !has_value(f.values, f.count, (uint64_t)base[i]);
        }
        if (ctxprof_pcc_set_count(&s) != f.count + extra)
            abort();
    }
    ctxprof_pcc_file_free(&f);
    ctxprof_pcc_set_deinit(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned char *img;
    uint64_t params[4] = {0, 0, 0, 0};
    size_t i, len;
    if (!path[0]) {
        ctxprof_pcc_set s;
        char *buf;
        size_t blen;
        const unsigned char *payload;
        fuzz_temp_path(path, sizeof path, "fuzz_pcc_set");
        fuzz_temp_path(again, sizeof again, "fuzz_pcc_set_again");
        if (ctxprof_pcc_set_init(&s, NULL) != CTXPROF_OK || ctxprof_pcc_set_save(&s, path) ||
            ctxprof__read_file(path, &buf, &blen, NULL, NULL) ||
            ctxprof__blob_open((const unsigned char *)buf, blen, CTXPROF__KIND_PCC_SET, own,
                               &payload, &len, "own", NULL))
            abort();
        ctxprof__free(buf, NULL);
        ctxprof_pcc_set_deinit(&s);
    }
    check(data, size, 0);
    /* sealed variant: up to 32 bytes of params, the rest payload */
    for (i = 0; i < 32 && i < size; i++)
        params[i / 8] |= (uint64_t)data[i] << (8 * (i % 8));
    params[0] = params[0] & 1 ? 64 : 32;
    len = size > 32 ? size - 32 : 0;
    img = (unsigned char *)malloc(CTXPROF__BLOB_HDR + size + 1);
    if (!img)
        return 0;
    if (len)
        memcpy(img + CTXPROF__BLOB_HDR, data + 32, len);
    ctxprof__blob_seal(img, CTXPROF__KIND_PCC_SET, params, len);
    check(img, CTXPROF__BLOB_HDR + len, 1);
    /* this build's parameters: what the set itself loads and merges */
    memcpy(params, own, sizeof params);
    params[3] = size / (own[0] / 8);
    len = (size_t)params[3] * (own[0] / 8);
    if (len)
        memcpy(img + CTXPROF__BLOB_HDR, data, len);
    ctxprof__blob_seal(img, CTXPROF__KIND_PCC_SET, params, len);
    load(img, CTXPROF__BLOB_HDR + len, 0);
    load(img, CTXPROF__BLOB_HDR + len, 1);
    load(data, size, (int)(size & 1));
    free(img);
    return 0;
}
