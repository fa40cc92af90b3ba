/* libFuzzer target: binary HCCT profiles (ctxprof_hcct_profile_read). The
   input is read as a whole file, and - to get past the checksum - as a
   payload sealed with a valid header, of the current version and of
   version 1 (one header word fewer). Accepted profiles must render in every
   format, copy, prune, merge into a copy of themselves (doubling the total
   and every count, with no node added: siblings are distinct contexts),
   merge by name, and compare with themselves; they must hold the format's
   invariants (error <= count, a parent before its child, known flags and
   mode) and be written back in the binary format to a file that reads as
   the same profile. Refused ones must leave the output profile untouched. */
#define CTXPROF_IMPLEMENTATION
#include "../../ctxprof_hcct.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../hcct_same.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64], again[64];


/* What the reader promises of a profile it accepts. */
static void check_invariants(const ctxprof_hcct_profile *p)
{
    size_t i;
    if (p->n < 1 || p->nodes[0].parent != CTXPROF_HCCT_NONE ||
        !(p->nodes[0].flags & CTXPROF_HCCT_IS_ROOT) ||
        (p->mode != CTXPROF_HCCT_LSS && p->mode != CTXPROF_HCCT_CCT) || p->metric < 0 ||
        p->metric > CTXPROF_HCCT_OTHER || p->flags > 7)
        abort();
    for (i = 0; i < p->n; i++) {
        const ctxprof_hcct_pnode *x = &p->nodes[i];
        if (x->err > x->count || x->flags > 7 || (i && (x->parent >= i || x->name == 0)) ||
            (i && (x->flags & CTXPROF_HCCT_IS_ROOT)) ||
            (i && x->depth != p->nodes[x->parent].depth + 1))
            abort();
    }
}

/* Written in the binary format and read back, the same profile; written
   again, the same bytes. */
static void check_roundtrip(const ctxprof_hcct_profile *p)
{
    ctxprof_hcct_write_desc d;
    ctxprof_hcct_profile q;
    ctxprof_error err;
    char *a = NULL, *b = NULL;
    size_t alen = 0, blen = 0;
    memset(&d, 0, sizeof d);
    d.format = CTXPROF_HCCT_BINARY;
    if (ctxprof_hcct_profile_format(p, &d, &a, &alen, &err) != CTXPROF_OK)
        return; /* out of memory */
    if (ctxprof_hcct_profile_write(p, again, &d, &err) != CTXPROF_OK ||
        ctxprof_hcct_profile_read(&q, again, NULL, &err) != CTXPROF_OK)
        abort();
    if (!hcct_same_profile(p, &q))
        abort();
    if (ctxprof_hcct_profile_format(&q, &d, &b, &blen, &err) == CTXPROF_OK) {
        if (blen != alen || memcmp(a, b, alen) != 0)
            abort();
        ctxprof_hcct_text_free(&q, b);
    }
    ctxprof_hcct_text_free(p, a);
    ctxprof_hcct_profile_deinit(&q);
}

static void check(const unsigned char *img, size_t size)
{
    ctxprof_hcct_profile p, before;
    ctxprof_error err;
    FILE *f = fopen(path, "wb");
    int fmt;
    if (!f)
        abort();
    if (size && fwrite(img, 1, size, f) != size)
        abort();
    fclose(f);
    memset(&p, 0xA5, sizeof p);
    before = p;
    memset(&err, 0, sizeof err);
    if (ctxprof_hcct_profile_read(&p, path, NULL, &err) != CTXPROF_OK) {
        if (!err.detail[0] || memcmp(&p, &before, sizeof p) != 0)
            abort();
        return;
    }
    check_invariants(&p);
    check_roundtrip(&p);
    for (fmt = CTXPROF_HCCT_TEXT; fmt <= CTXPROF_HCCT_TOP; fmt++) {
        ctxprof_hcct_write_desc d;
        char *out = NULL;
        size_t len = 0;
        memset(&d, 0, sizeof d);
        d.format = fmt;
        if (ctxprof_hcct_profile_format(&p, &d, &out, &len, &err) == CTXPROF_OK)
            ctxprof_hcct_text_free(&p, out);
    }
    if (ctxprof_hcct_profile_copy(&before, &p, &err) == CTXPROF_OK) {
        ctxprof_hcct_accuracy acc;
        uint64_t total = before.total;
        if (before.n != p.n)
            abort();
        if (ctxprof_hcct_profile_compare(&before, &p, 0.01, &acc, &err) == CTXPROF_OK &&
            acc.missed != 0)
            abort(); /* a profile misses its own hot contexts */
        if (ctxprof_hcct_profile_merge(&before, &p, 0, &err) == CTXPROF_OK) {
            size_t i;
            if (before.n != p.n || (total <= UINT64_MAX / 2 && before.total != 2 * total))
                abort(); /* a context matched twice, or not at all */
            for (i = 0; i < p.n; i++)
                if (p.nodes[i].count <= UINT64_MAX / 2 &&
                    before.nodes[i].count != 2 * p.nodes[i].count)
                    abort();
        }
        ctxprof_hcct_profile_prune(&before, 0.01, &err);
        ctxprof_hcct_profile_deinit(&before);
    }
    if (ctxprof_hcct_profile_copy(&before, &p, &err) == CTXPROF_OK) {
        uint64_t total = before.total;
        if (ctxprof_hcct_profile_merge(&before, &p, CTXPROF_HCCT_BY_NAME, &err) == CTXPROF_OK &&
            (!(before.flags & CTXPROF_HCCT_BY_NAME) || before.n > p.n ||
             (total <= UINT64_MAX / 2 && before.total != 2 * total)))
            abort();
        ctxprof_hcct_profile_deinit(&before);
    }
    ctxprof_hcct_profile_deinit(&p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned char *img = (unsigned char *)malloc(CTXPROF__BLOB_HDR + size + 1);
    uint64_t params[4] = {CTXPROF__HCCT_BIN_VERSION, sizeof(uintptr_t) * 8, 0, 0};
    uint64_t params1[4] = {1, sizeof(uintptr_t) * 8, 0, 0}; /* no reentrant word */
    if (!path[0]) {
        fuzz_temp_path(path, sizeof path, "fuzz_hcct_profile");
        fuzz_temp_path(again, sizeof again, "fuzz_hcct_profile_again");
    }
    if (!img)
        return 0;
    check(data, size);
    if (size)
        memcpy(img + CTXPROF__BLOB_HDR, data, size);
    ctxprof__blob_seal(img, CTXPROF__KIND_HCCT_PROFILE, params, size);
    check(img, CTXPROF__BLOB_HDR + size);
    ctxprof__blob_seal(img, CTXPROF__KIND_HCCT_PROFILE, params1, size);
    check(img, CTXPROF__BLOB_HDR + size);
    free(img);
    return 0;
}
