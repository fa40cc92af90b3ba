/* hotpaths: profile a real program without changing its code, and show
   its hot calling contexts.

   The profiled program is cparse.c, a recursive-descent C parser, compiled
   with -finstrument-functions; this file holds the library (with the
   CTXPROF_HCCT_HOOKS) and is compiled without it. The session gives the
   thread a lazy Space Saving tree on its first event; the parser runs over
   real C text (the headers and sources given, with a prelude of predefined
   macros); then the program prints the hottest contexts, writes the
   (phi, epsilon)-HCCT as an indented tree, collapsed stacks, JSON and an SVG
   flame graph, and checks the HCCT against the exact calling context tree
   of the same run (a second pass under an exact tree bound to the thread).

   Build and run:  make build/examples/hotpaths && sh examples/hotpaths/demo.sh
   Usage: hotpaths [-o PREFIX] [-p PASSES] [--phi P] [--eps E] FILE... */
#define _GNU_SOURCE
#define CTXPROF_IMPLEMENTATION
#define CTXPROF_HCCT_HOOKS
#include "../../ctxprof_hcct.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cparse.h"

int cparse_run(const char *text, size_t len, struct cparse_stats *st);
void cparse_run_init(void);

typedef struct {
    char *text;
    size_t len;
} input;

static void parse_all(const input *in, size_t n, int passes, struct cparse_stats *st)
{
    int p;
    size_t i;
    memset(st, 0, sizeof *st);
    for (p = 0; p < passes; p++)
        for (i = 0; i < n; i++)
            cparse_run(in[i].text, in[i].len, st);
}

/* Whether rc is an error (then says so). */
static int failed(int rc, const ctxprof_error *e, const char *what)
{
    if (rc)
        fprintf(stderr, "hotpaths: %s: %s (%s)\n", what, ctxprof_error_message(e),
                ctxprof_strerror(rc));
    return rc != 0;
}

/* Writes prefix + ext; returns nonzero on failure (said). */
static int write_as(const ctxprof_hcct_profile *p, const char *prefix, const char *ext, int format,
                    const char *title)
{
    ctxprof_hcct_write_desc w;
    ctxprof_error e;
    char path[1024];
    memset(&w, 0, sizeof w);
    memset(&e, 0, sizeof e);
    w.format = format;
    w.title = title;
    snprintf(path, sizeof path, "%s%s", prefix, ext);
    if (failed(ctxprof_hcct_profile_write(p, path, &w, &e), &e, path))
        return 1;
    printf("  wrote %s\n", path);
    return 0;
}

int main(int argc, char **argv)
{
    const char *prefix = "hotpaths";
    double phi = 1e-3, eps = 1e-4;
    int passes = 2, i, rc = 1;
    input *in;
    size_t nin = 0, bytes = 0;
    struct cparse_stats st, st2;
    ctxprof_hcct_desc d;
    ctxprof_hcct_profile hot, exact;
    ctxprof_hcct_accuracy acc;
    ctxprof_hcct_stats ts, xs;
    ctxprof_hcct cct, *mine;
    ctxprof_error e;
    ctxprof_hcct_write_desc top;

    memset(&e, 0, sizeof e);
    memset(&hot, 0, sizeof hot); /* zeroed: the cleanup at the end takes them on any path */
    memset(&exact, 0, sizeof exact);
    memset(&cct, 0, sizeof cct);
    in = (input *)calloc((size_t)argc, sizeof *in);
    if (!in)
        return 1;
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
            prefix = argv[++i];
        else if (strcmp(argv[i], "-p") == 0 && i + 1 < argc)
            passes = atoi(argv[++i]);
        else if (strcmp(argv[i], "--phi") == 0 && i + 1 < argc)
            phi = atof(argv[++i]);
        else if (strcmp(argv[i], "--eps") == 0 && i + 1 < argc)
            eps = atof(argv[++i]);
        else if (cparse_load(argv[i], &in[nin].text, &in[nin].len) >= 0)
            bytes += in[nin++].len - (sizeof cparse_prelude - 1);
        else
            fprintf(stderr, "hotpaths: cannot read %s (skipped)\n", argv[i]);
    }
    if (nin == 0) {
        fprintf(stderr, "usage: hotpaths [-o PREFIX] [-p PASSES] [--phi P] [--eps E] FILE...\n");
        rc = 2;
        goto done;
    }
    cparse_run_init(); /* the parser's setup, before the profile */

    /* 1. the whole program, profiled through the -finstrument-functions
          hooks: a lazy Space Saving tree per thread (|M| = 1/eps) */
    memset(&d, 0, sizeof d);
    d.phi = phi;
    d.epsilon = eps;
    if (failed(ctxprof_hcct_start(&d, &e), &e, "start"))
        goto done;
    parse_all(in, nin, passes, &st);
    ctxprof_hcct_stop();
    mine = ctxprof_hcct_thread();
    ctxprof_hcct_stats_get(mine, &ts);
    if (failed(ctxprof_hcct_snapshot(phi, &hot, &e), &e, "snapshot"))
        goto done;
    printf("parsed %zu files (%zu bytes) %d times: %llu tokens, %llu declarations, %llu "
           "functions, %llu statements, %llu expressions, %llu recovered errors\n",
           nin, bytes, passes, (unsigned long long)st.tokens, (unsigned long long)st.decls,
           (unsigned long long)st.functions, (unsigned long long)st.statements,
           (unsigned long long)st.expressions, (unsigned long long)st.errors);
    printf("profiled %llu calls with %zu counters (epsilon %g): the tree peaked at %zu nodes "
           "(%.2f MiB), %llu Space Saving replacements\n\n",
           (unsigned long long)hot.total, ts.counters, eps, ts.nodes_peak,
           (double)ts.bytes / 1048576.0, (unsigned long long)ts.replaced);

    memset(&top, 0, sizeof top);
    top.format = CTXPROF_HCCT_TOP;
    top.top = 12;
    top.max_depth = 8;
    printf("the hottest calling contexts (phi %g: count > %llu):\n", phi,
           (unsigned long long)hot.threshold);
    fflush(stdout); /* the library writes "-" with write(2) */
    if (failed(ctxprof_hcct_profile_write(&hot, "-", &top, &e), &e, "stdout"))
        goto done;
    printf("\n");
    if (write_as(&hot, prefix, ".txt", CTXPROF_HCCT_TEXT, NULL) ||
        write_as(&hot, prefix, ".folded", CTXPROF_HCCT_COLLAPSED, NULL) ||
        write_as(&hot, prefix, ".json", CTXPROF_HCCT_JSON, NULL) ||
        write_as(&hot, prefix, ".svg", CTXPROF_HCCT_SVG, "cparse: hot calling contexts"))
        goto done;

    /* 2. the same work under the exact calling context tree, bound to
          this thread instead of the session's tree, to check the HCCT */
    memset(&d, 0, sizeof d);
    d.mode = CTXPROF_HCCT_CCT;
    d.flags = CTXPROF_HCCT_CODE_ADDRESSES;
    if (failed(ctxprof_hcct_init(&cct, &d, &e), &e, "exact tree"))
        goto done;
    ctxprof_hcct_bind(&cct);
    parse_all(in, nin, passes, &st2);
    ctxprof_hcct_bind(mine);
    ctxprof_hcct_stats_get(&cct, &xs);
    if (failed(ctxprof_hcct_query(&cct, phi - eps, &exact, &e), &e, "exact query") ||
        failed(ctxprof_hcct_profile_compare(&hot, &exact, phi, &acc, &e), &e, "compare"))
        goto done;
    printf("\nagainst the exact CCT of the same work (%zu nodes, %.1f MiB; the MCCT is %.2f%% "
           "of it):\n  %zu hot contexts, %zu reported, %zu missed, %zu false positives, "
           "largest overestimate %llu (epsilon N = %.0f): %s\n",
           xs.nodes, (double)xs.bytes / 1048576.0, 100.0 * (double)ts.nodes_peak / (double)xs.nodes,
           acc.hot, acc.reported, acc.missed, acc.false_positives,
           (unsigned long long)acc.max_error, eps * (double)exact.total,
           acc.equal ? "the same HCCT" : "within the guarantees");
    if (st.checksum != st2.checksum || acc.missed || acc.bound_violations)
        fprintf(stderr, "hotpaths: the check failed\n");
    else
        rc = 0;
done:
    ctxprof_hcct_profile_deinit(&hot);
    ctxprof_hcct_profile_deinit(&exact);
    ctxprof_hcct_deinit(&cct);
    ctxprof_hcct_bind(NULL);
    ctxprof_hcct_shutdown();
    for (i = 0; i < (int)nin; i++)
        free(in[i].text);
    free(in);
    return rc;
}
