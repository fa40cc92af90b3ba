/* icpp_train: trains ICPP path maps of real workloads for bench/icpp_bench.sh
   (the pad search's inputs), with the library's -finstrument-functions
   hooks. This driver is built with -DCTXPROF_ICPP_HOOKS and without
   instrumentation; the workloads are linked in from objects compiled with
   -finstrument-functions, so their functions are the paths' functions:

     icpp_train cparse FILE...   examples/hotpaths/cparse.c over C text
                                 (a recursive-descent parser, deeply recursive)
     icpp_train zipf WALKS       bench/zipfwalk_workers.c: WALKS walks of
                                 depth 10..30 through 256 workers of one
                                 frame size called through a table (few
                                 permutations, many equal heights)

   Run with CTXPROF_ICPP_TRAIN=OUT.paths: the map is saved at exit. */
#define CTXPROF_IMPLEMENTATION
#include "../ctxprof.h"
#include "../examples/hotpaths/cparse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct zw_state {
    uint64_t q;
    unsigned lvl, D;
    uint64_t acc, calls;
};

int cparse_icpp(const char *text, size_t len, struct cparse_stats *st);
void zwt_run(const uint32_t *ranks, size_t n, size_t change, uint64_t mult2, struct zw_state *w);

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "cparse") == 0) {
        struct cparse_stats st;
        int i;
        memset(&st, 0, sizeof st);
        for (i = 2; i < argc; i++) {
            char *text;
            size_t len;
            if (cparse_load(argv[i], &text, &len) < 0) {
                fprintf(stderr, "icpp_train: cannot read %s (skipped)\n", argv[i]);
                continue;
            }
            cparse_icpp(text, len, &st);
            free(text);
        }
        printf("cparse: %llu tokens, %llu functions\n", (unsigned long long)st.tokens,
               (unsigned long long)st.functions);
        return 0;
    }
    if (argc == 3 && strcmp(argv[1], "zipf") == 0) {
        size_t n = (size_t)strtoul(argv[2], NULL, 10), i;
        uint32_t *ranks = (uint32_t *)malloc((n ? n : 1) * sizeof *ranks);
        struct zw_state w;
        if (!ranks)
            return 1;
        for (i = 0; i < n; i++) /* distinct ranks: distinct walks */
            ranks[i] = (uint32_t)(i + 1);
        memset(&w, 0, sizeof w);
        zwt_run(ranks, n, n, 0, &w);
        printf("zipf: %zu walks, %llu calls\n", n, (unsigned long long)w.calls);
        free(ranks);
        return 0;
    }
    fprintf(stderr, "usage: icpp_train cparse FILE... | icpp_train zipf WALKS\n");
    return 2;
}
