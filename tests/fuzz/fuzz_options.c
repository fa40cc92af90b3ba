/* libFuzzer target: the option and name parsers - the CTXPROF_HCCT
   environment variable (ctxprof_hcct.h HOOKS), the CTXPROF_PEBS_LEVEL
   variable, perf event names (ctxprof_pebs_encode_event) and encoding
   scheme names. The input is the string. A level is one of the names the
   documentation gives (exactly those), or refused with a reason. A refused
   option string must say why (one short option: quoting the value as
   written); an accepted one must give a descriptor that the tree's own
   validation either refuses with a reason or fills into sane values, and
   a burst the tree takes. A refused event name must leave the attributes
   untouched. */
#define CTXPROF_IMPLEMENTATION
#define CTXPROF_HCCT_HOOKS
#include "../../ctxprof_pebs.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void hcct_env(char *s)
{
    ctxprof_hcct_desc d;
    ctxprof_error e;
    char one[48];
    const char *v;
    /* one short option: a refusal quotes the value as written */
    one[0] = '\0';
    if (!strchr(s, ',') && strlen(s) < sizeof one)
        strcpy(one, s);
    memset(&d, 0, sizeof d);
    memset(&e, 0, sizeof e);
    if (ctxprof__hcct_auto_parse(s, &d, &e) != CTXPROF_OK) {
        v = strchr(one, '=');
        if (!e.detail[0] || (one[0] && !strstr(e.detail, v ? v + 1 : one)))
            abort();
        return;
    }
    /* bursting is both lengths or neither, the length within the period */
    if ((d.burst_period_us == 0) != (d.burst_length_us == 0) ||
        d.burst_length_us > d.burst_period_us)
        abort();
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

/* The documented names: pebs, hw or hardware, sw or software, auto (or
   empty): the level, else -1. */
static int level_of(const char *s)
{
    if (!*s || strcmp(s, "auto") == 0)
        return 0;
    if (strcmp(s, "pebs") == 0)
        return CTXPROF_PEBS_LEVEL_PEBS;
    if (strcmp(s, "hw") == 0 || strcmp(s, "hardware") == 0)
        return CTXPROF_PEBS_LEVEL_HW;
    if (strcmp(s, "sw") == 0 || strcmp(s, "software") == 0)
        return CTXPROF_PEBS_LEVEL_SW;
    return -1;
}

static void pebs_level(const char *s)
{
    ctxprof_pebs pb;
    ctxprof_pebs_desc d;
    int lvl = -2, rc, want = level_of(s);
    memset(&pb, 0, sizeof pb);
    memset(&d, 0, sizeof d);
    if (setenv("CTXPROF_PEBS_LEVEL", s, 1) != 0)
        return;
    rc = ctxprof__pebs_forced(&pb, &d, &lvl);
    if (want >= 0 ? rc != CTXPROF_OK || lvl != want
                  : rc != CTXPROF_ERR_INVAL || !strstr(pb.error.detail, "CTXPROF_PEBS_LEVEL='"))
        abort();
    d.flags = CTXPROF_PEBS_NO_ENV; /* not read at all */
    if (ctxprof__pebs_forced(&pb, &d, &lvl) != CTXPROF_OK || lvl != 0)
        abort();
    unsetenv("CTXPROF_PEBS_LEVEL");
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
    pebs_level(s);
    scheme = ctxprof_enc_scheme_parse(s);
    if (scheme < 0 || scheme >= CTXPROF_ENC_NSCHEMES ||
        (scheme && strcmp(ctxprof_enc_scheme_name(scheme), s) != 0))
        abort();
    hcct_env(s); /* last: it cuts the string up */
    free(s);
    return 0;
}
