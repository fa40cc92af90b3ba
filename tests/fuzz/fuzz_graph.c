/* libFuzzer target: call graphs, both formats the parser detects from the
   content (ctxprof-callgraph text and gcc -fcallgraph-info VCG). Built twice
   with different seed corpora (graph_text, graph_ci). A graph already holding
   a few edges parses the input: on success it must still finish, write and
   build the tables of every scheme (or refuse with a reason), and what it
   writes must read back (into a fresh graph) as a graph that writes the same
   text; on failure it must say why and be exactly as before. */
#define CTXPROF_IMPLEMENTATION
#include "../../ctxprof.h"

#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char base[] = "ctxprof-callgraph 1\nroot main\ncall main a\ncall a b site=x\n"
                           "call b a\n";

/* The round trip: text that ctxprof_graph_write wrote parses and writes
   itself again. */
static void roundtrip(const char *text, size_t len)
{
    ctxprof_graph g2;
    char *again = NULL;
    size_t n = 0;
    if (ctxprof_graph_init(&g2, NULL) != CTXPROF_OK)
        return;
    if (ctxprof_graph_parse(&g2, text, len, "written") != CTXPROF_OK) {
        fprintf(stderr, "written graph refused: %s\n", ctxprof_graph_last_error(&g2));
        abort();
    }
    if (ctxprof_graph_write(&g2, &again, &n) != CTXPROF_OK || n != len ||
        memcmp(again, text, len) != 0)
        abort(); /* read back as another graph */
    ctxprof_graph_free_buffer(again, NULL);
    ctxprof_graph_deinit(&g2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ctxprof_graph g;
    char *before = NULL, *after = NULL;
    size_t blen = 0, alen = 0;
    if (ctxprof_graph_init(&g, NULL) != CTXPROF_OK)
        return 0;
    if (ctxprof_graph_parse(&g, base, sizeof base - 1, "base") != CTXPROF_OK ||
        ctxprof_graph_write(&g, &before, &blen) != CTXPROF_OK)
        abort();
    if (ctxprof_graph_parse(&g, (const char *)data, size, "fuzz") == CTXPROF_OK) {
        int finished = ctxprof_graph_finish(&g) == CTXPROF_OK;
        if (ctxprof_graph_write(&g, &after, &alen) != CTXPROF_OK)
            abort();
        roundtrip(after, alen);
        if (finished) {
            int scheme;
            for (scheme = CTXPROF_ENC_PCCE; scheme <= CTXPROF_ENC_AUTO; scheme++) {
                ctxprof_enc_tables t;
                ctxprof_error err;
                memset(&err, 0, sizeof err);
                if (ctxprof_enc_build(&g, scheme, &t, &err) == CTXPROF_OK)
                    ctxprof_enc_tables_free(&t, NULL);
                else if (!err.detail[0])
                    abort(); /* refused without a reason */
            }
        }
    } else {
        if (!ctxprof_graph_last_error(&g)[0])
            abort();
        if (ctxprof_graph_write(&g, &after, &alen) != CTXPROF_OK || alen != blen ||
            memcmp(before, after, blen) != 0)
            abort(); /* a refused input changed the graph */
    }
    ctxprof_graph_free_buffer(before, NULL);
    ctxprof_graph_free_buffer(after, NULL);
    ctxprof_graph_deinit(&g);
    return 0;
}
