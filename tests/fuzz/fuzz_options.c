/* libFuzzer target: the option and name parsers - the CTXPROF_HCCT
   environment variable (ctxprof_hcct.h HOOKS), perf event names
   (ctxprof_pebs_encode_event) and encoding scheme names. The input is the
   string. A refused option string must say why; an accepted one must give
   a descriptor that the tree's own validation either refuses with a reason
   or fills into sane values. A refused event name must leave the
   attributes untouched. */
#define CTXPROF_IMPLEMENTATION
#define CTXPROF_HCCT_HOOKS
#include "../../ctxprof_pebs.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void hcct_env(char *s)
{
    ctxprof_hcct_desc d;
    ctxprof_error e;
    memset(&d, 0, sizeof d);
    memset(&e, 0, sizeof e);
    if (ctxprof__hcct_auto_parse(s, &d, &e) != CTXPROF_OK) {
        if (!e.detail[0])
            abort();
        return;
    }
    if (ctxprof__hcct_desc_fill(&d, &e) != CTXPROF_OK) {
        if (!e.detail[0])
            abort();
        return;
    }
    if (!(d.phi > 0 && d.phi < 1) || d.max_depth < 2 || d.max_bytes == 0 ||
        d.burst_length_us > d.burst_period_us)
        abort();
    if (d.mode == CTXPROF_HCCT_LSS && /* the exact tree has no counters */
        (!(d.epsilon > 0 && d.epsilon <= 1) || d.counters < 1 || d.counters > ((size_t)1 << 30)))
        abort();
}

static void event_name(const char *s)
{
    struct perf_event_attr a, before;
    ctxprof_error e;
    memset(&a, 0x5A, sizeof a);
    before = a;
    memset(&e, 0, sizeof e);
    if (ctxprof_pebs_encode_event(s, &a, &e) != CTXPROF_OK) {
        if (!e.detail[0] || memcmp(&a, &before, sizeof a) != 0)
            abort();
    } else if (a.type != PERF_TYPE_HARDWARE && a.type != PERF_TYPE_SOFTWARE &&
               a.type != PERF_TYPE_RAW) {
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = (char *)malloc(size + 1);
    int scheme;
    if (!s)
        return 0;
    memcpy(s, data, size);
    s[size] = '\0';
    event_name(s);
    scheme = ctxprof_enc_scheme_parse(s);
    if (scheme < 0 || scheme >= CTXPROF_ENC_NSCHEMES ||
        (scheme && strcmp(ctxprof_enc_scheme_name(scheme), s) != 0))
        abort();
    hcct_env(s); /* last: it cuts the string up */
    free(s);
    return 0;
}
