/* libFuzzer target: ICPP path maps (ctxprof-paths 1). A map already loaded
   parses the input: on failure it must say why and keep its contents; on
   success the counts must be consistent and the map must resolve lookups. */
#define CTXPROF_IMPLEMENTATION
#include "../../ctxprof.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char base[] = "ctxprof-paths 1\npath 5 96 main f\npath 3 160 main g f\n";

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
    }
    ctxprof_icpp_map_deinit(&m);
    return 0;
}
