/* Shared by tests/test_hcct.c and tests/fuzz/fuzz_hcct_profile.c: whether
   two HCCT profiles are the same, every header field and node. */
#ifndef CTXPROF_TEST_HCCT_SAME_H
#define CTXPROF_TEST_HCCT_SAME_H

#include <string.h>

/* Field by field (doubles by their bits: NaN is a value a file may hold). */
static inline int hcct_same_profile(const ctxprof_hcct_profile *a, const ctxprof_hcct_profile *b)
{
    size_t i;
    if (a->n != b->n || a->total != b->total || a->threshold != b->threshold ||
        a->absent != b->absent || a->events != b->events || a->sampled != b->sampled ||
        a->dropped != b->dropped || memcmp(&a->phi, &b->phi, sizeof a->phi) != 0 ||
        memcmp(&a->epsilon, &b->epsilon, sizeof a->epsilon) != 0 ||
        a->counters != b->counters || a->mode != b->mode || a->metric != b->metric ||
        a->flags != b->flags || a->threads != b->threads || a->lost_threads != b->lost_threads ||
        a->reentrant != b->reentrant)
        return 0;
    for (i = 0; i < a->n; i++) {
        const ctxprof_hcct_pnode *x = &a->nodes[i], *y = &b->nodes[i];
        if (x->count != y->count || x->err != y->err || x->routine != y->routine ||
            x->site != y->site || x->parent != y->parent || x->flags != y->flags ||
            x->depth != y->depth || x->child != y->child || x->sibling != y->sibling ||
            strcmp(ctxprof_hcct_profile_name(a, i), ctxprof_hcct_profile_name(b, i)) != 0)
            return 0;
    }
    return 1;
}

#endif
