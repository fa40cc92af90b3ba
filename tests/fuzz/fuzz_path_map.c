/* libFuzzer target: ICPP path maps (ctxprof-paths 1). A map already loaded
   parses the input: on failure it must say why and keep its contents; on
   success the counts must be consistent, every path must be among the
   candidates of its own CID with the degree it reports, and the map's text
   must parse back to a map with the same text (a round trip). */
#define CTXPROF_IMPLEMENTATION
#include "../../ctxprof.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char base[] = "ctxprof-paths 1\npath 5 96 main f\npath 3 160 main g f\n";

/* Each path (the first 256) is a candidate of its own CID, as many times
   as its degree says paths share it. */
static void check_paths(const ctxprof_icpp_map *m)
{
    uint32_t p;
    for (p = 0; p < m->paths && p < 256; p++) {
        ctxprof_icpp_path_info pi;
        const uint32_t *cand;
        size_t n, k, seen = 0;
        if (ctxprof_icpp_map_path(m, p, &pi) != CTXPROF_OK || pi.len == 0)
            abort();
        n = ctxprof_icpp_map_lookup(m, pi.leaf, pi.height, &cand);
        for (k = 0; k < n; k++)
            seen += cand[k] == p;
        if (seen != 1 || n != pi.degree)
            abort();
    }
}

static void round_trip(const ctxprof_icpp_map *m)
{
    ctxprof__sbuf a, b;
    ctxprof_icpp_map again;
    ctxprof_error err;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    memset(&again, 0, sizeof again);
    if (ctxprof__icpp_map_text(m->d, &a) != CTXPROF_OK)
        goto out; /* out of memory */
    if (ctxprof_icpp_map_parse(&again, a.p, a.len, "again", &err) != CTXPROF_OK)
        abort(); /* the map's own text refused */
    if (again.paths != m->paths || again.funcs != m->funcs || again.cids != m->cids ||
        ctxprof__icpp_map_text(again.d, &b) != CTXPROF_OK || a.len != b.len ||
        memcmp(a.p, b.p, a.len) != 0)
        abort();
out:
    ctxprof__free(a.p, NULL);
    ctxprof__free(b.p, NULL);
    ctxprof_icpp_map_deinit(&again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ctxprof_icpp_map m;
    ctxprof_error err;
    size_t paths, funcs, nodes, cids;
    memset(&m, 0, sizeof m);
    memset(&err, 0, sizeof err);
    if (ctxprof_icpp_map_parse(&m, base, sizeof base - 1, "base", &err) != CTXPROF_OK)
        abort();
    paths = m.paths;
    funcs = m.funcs;
    nodes = m.nodes;
    cids = m.cids;
    if (ctxprof_icpp_map_parse(&m, (const char *)data, size, "fuzz", &err) != CTXPROF_OK) {
        if (!err.detail[0] || m.paths != paths || m.funcs != funcs || m.nodes != nodes ||
            m.cids != cids || ctxprof_icpp_map_func(&m, "g") < 0)
            abort();
    } else if (m.cids > m.paths || (m.paths && !m.funcs)) {
        abort();
    } else {
        check_paths(&m);
        round_trip(&m);
    }
    ctxprof_icpp_map_deinit(&m);
    return 0;
}
