/* Built by test_pcc.c (pcc_set_reclaim): counts the set's memory through
   the allocator hooks while a 200,000-value file is loaded and merged 50
   times. Prints, one per line:

     table B            live bytes after the first load into a new set
     retired0 B         stats.retired_bytes after that load (nothing to retire)
     grow B             live bytes after 10 more loads without reclaim, minus table
     retired B          stats.retired_bytes then
     freed B            what ctxprof_pcc_set_reclaim returned
     drop B             live bytes the allocator saw freed by it
     max B              the most live bytes after any of 50 load/merge + reclaim
     peak B             the most live bytes at any moment of those 50
     after B            stats.retired_bytes after the last reclaim
     count N            contexts in the set at the end

   Usage: pcc_reclaim FILE (written first). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

static size_t live, peak;

static void *count_malloc(size_t n)
{
    size_t *p = (size_t *)malloc(n + 16);
    if (!p)
        return NULL;
    p[0] = n;
    live += n;
    if (live > peak)
        peak = live;
    return (char *)p + 16;
}

static void count_free(void *q)
{
    size_t *p = (size_t *)((char *)q - 16);
    live -= p[0];
    free(p);
}

#define CTXPROF_MALLOC(sz, ud) ((void)(ud), count_malloc(sz))
#define CTXPROF_FREE(p, ud) ((void)(ud), count_free(p))
#define CTXPROF_IMPLEMENTATION
#include "ctxprof.h"

#include <stdio.h>

#define N 200000

int main(int argc, char **argv)
{
    ctxprof_pcc_set set, src;
    ctxprof_pcc_set_desc desc = {0};
    ctxprof_pcc_stats st;
    size_t base, max = 0, before, freed;
    int i;
    if (argc != 2)
        return 2;
    desc.mode = CTXPROF_PCC_TRAIN;
    desc.expected = N;
    if (ctxprof_pcc_set_init(&src, &desc))
        return 1;
    for (i = 0; i < N; i++)
        ctxprof_pcc_set_add(&src, (ctxprof_ctx)ctxprof_mix64((uint64_t)i + 1));
    if (ctxprof_pcc_set_save(&src, argv[1]))
        return 1;
    ctxprof_pcc_set_deinit(&src);

    desc.mode = CTXPROF_PCC_CHECK;
    base = live;
    if (ctxprof_pcc_set_init(&set, &desc) || ctxprof_pcc_set_load(&set, argv[1]))
        return 1;
    ctxprof_pcc_set_stats(&set, &st);
    printf("table %zu\nretired0 %llu\n", live - base, (unsigned long long)st.retired_bytes);
    base = live;
    for (i = 0; i < 10; i++)
        if (ctxprof_pcc_set_load(&set, argv[1]))
            return 1;
    ctxprof_pcc_set_stats(&set, &st);
    printf("grow %zu\nretired %llu\n", live - base, (unsigned long long)st.retired_bytes);
    before = live;
    freed = ctxprof_pcc_set_reclaim(&set);
    printf("freed %zu\ndrop %zu\n", freed, before - live);
    peak = live;
    for (i = 0; i < 50; i++) {
        if ((i % 2 ? ctxprof_pcc_set_merge : ctxprof_pcc_set_load)(&set, argv[1]))
            return 1;
        ctxprof_pcc_set_reclaim(&set);
        if (live > max)
            max = live;
    }
    ctxprof_pcc_set_stats(&set, &st);
    printf("max %zu\npeak %zu\nafter %llu\ncount %zu\n", max, peak,
           (unsigned long long)st.retired_bytes, ctxprof_pcc_set_count(&set));
    ctxprof_pcc_set_deinit(&set);
    return live == 0 ? 0 : 3;
}
