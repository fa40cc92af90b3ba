/* libFuzzer target: several inputs merged into one call graph, as
   `ctxprof-gen a.ci b.ci extra.callgraph` reads them (gcc .ci files and
   text; the static names of text after gcc input are resolved among the
   gcc nodes). The input is split at NUL bytes into at most four parts,
   parsed in turn into one graph. A refused part must say why and leave the
   graph byte-identical (written before and after); a graph that finishes
   writes text that reads back into a fresh graph writing the same text. */
#define CTXPROF_IMPLEMENTATION
#include "../../ctxprof.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The graph's text, or NULL when it has none yet (write refuses). */
static char *text_of(ctxprof_graph *g, size_t *n)
{
    char *w = NULL;
    *n = 0;
    if (ctxprof_graph_write(g, &w, n) != CTXPROF_OK)
        return NULL;
    return w;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ctxprof_graph g, g2;
    char *w, *w2;
    size_t n, n2, i = 0;
    int k = 0;
    if (ctxprof_graph_init(&g, NULL) != CTXPROF_OK)
        return 0;
    while (i <= size && k < 4) {
        const uint8_t *z = (const uint8_t *)memchr(data + i, 0, size - i);
        size_t len = z ? (size_t)(z - (data + i)) : size - i;
        char *part = (char *)malloc(len + 1), name[16];
        size_t nb;
        char *before;
        if (!part)
            abort();
        memcpy(part, data + i, len);
        part[len] = '\0';
        snprintf(name, sizeof name, "in%d", k);
        before = text_of(&g, &nb);
        if (ctxprof_graph_parse(&g, part, len, name) != CTXPROF_OK) {
            char *after;
            size_t na;
            if (!ctxprof_graph_last_error(&g)[0])
                abort();
            after = text_of(&g, &na);
            if ((before == NULL) != (after == NULL) || na != nb ||
                (before && memcmp(before, after, nb) != 0))
                abort();
            ctxprof_graph_free_buffer(after, NULL);
        }
        ctxprof_graph_free_buffer(before, NULL);
        free(part);
        i += len + 1;
        k++;
    }
    if (ctxprof_graph_finish(&g) == CTXPROF_OK) {
        if (!(w = text_of(&g, &n)) || ctxprof_graph_init(&g2, NULL) != CTXPROF_OK)
            abort();
        if (ctxprof_graph_parse(&g2, w, n, "written") != CTXPROF_OK || !(w2 = text_of(&g2, &n2)) ||
            n2 != n || memcmp(w, w2, n) != 0)
            abort();
        ctxprof_graph_free_buffer(w2, NULL);
        ctxprof_graph_deinit(&g2);
        ctxprof_graph_free_buffer(w, NULL);
    } else if (!ctxprof_graph_last_error(&g)[0]) {
        abort();
    }
    ctxprof_graph_deinit(&g);
    return 0;
}
