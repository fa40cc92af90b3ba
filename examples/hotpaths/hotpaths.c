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

#include <errno.h>
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

/* Every pass of both runs (the profile's and the exact tree's) goes
   through this one function, called from one site in main: cparse_run's
   call site, the root of every context the hooks record, is then the same
   in both runs whatever the compiler inlines or unrolls, and the contexts
   of the two trees can match. */
__attribute__((noinline)) static void parse_all(const input *in, size_t n, int passes,
                                                struct cparse_stats *st)
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

/* Writes prefix + ext; returns nonzero on failure (said: the library's
   message names the file). */
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
    if (snprintf(path, sizeof path, "%s%s", prefix, ext) >= (int)sizeof path) {
        fprintf(stderr, "hotpaths: -o %s: the name is too long\n", prefix);
        return 1;
    }
    if (failed(ctxprof_hcct_profile_write(p, path, &w, &e), &e, "write"))
        return 1;
    printf("  wrote %s\n", path);
    return 0;
}

static const char usage[] =
    "usage: hotpaths [-o PREFIX] [-p PASSES] [--phi P] [--eps E] FILE...\n"
    "  -o PREFIX  writes PREFIX.txt, .folded, .json and .svg (default hotpaths)\n"
    "  -p PASSES  passes over the files, 1 to 1000 (default 2)\n"
    "  --phi P    hot: more than P of all calls, 0 < P < 1 (default 0.001)\n"
    "  --eps E    the Space Saving error, 0 < E <= P; 0: P / 5 (default 0.0001)\n";

/* arg, whole, as a number in *out; nonzero when it is not one. */
static int not_number(const char *arg, double *out)
{
    char *end;
    errno = 0;
    *out = strtod(arg, &end);
    return end == arg || *end || errno || *out != *out;
}

int main(int argc, char **argv)
{
    const char *prefix = "hotpaths", *bad = NULL;
    double phi = 1e-3, eps = 1e-4, x;
    int passes = 2, i, k, rc = 1, ok;
    input *in;
    size_t nin = 0, bytes = 0;
    struct cparse_stats st[2];
    ctxprof_hcct_desc d;
    ctxprof_hcct_profile hot, exact;
    ctxprof_hcct_accuracy acc;
    ctxprof_hcct_stats ts, xs;
    ctxprof_hcct cct, *mine = NULL;
    ctxprof_error e;
    ctxprof_hcct_write_desc top;

    memset(&e, 0, sizeof e);
    memset(&hot, 0, sizeof hot); /* zeroed: the cleanup at the end takes them on any path */
    memset(&exact, 0, sizeof exact);
    memset(&cct, 0, sizeof cct);
    in = (input *)calloc((size_t)argc, sizeof *in);
    if (!in) {
        fprintf(stderr, "hotpaths: out of memory\n");
        return 1;
    }
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        int valued = strcmp(a, "-o") == 0 || strcmp(a, "-p") == 0 || strcmp(a, "--phi") == 0 ||
                     strcmp(a, "--eps") == 0;
        if (a[0] == '-' && a[1] && (!valued || i + 1 == argc)) {
            fprintf(stderr, "hotpaths: %s: %s\n%s", a, valued ? "needs a value" : "unknown option",
                    usage);
            rc = 2;
            goto done;
        }
        if (valued)
            i++;
        if (strcmp(a, "-o") == 0) {
            prefix = argv[i];
        } else if (strcmp(a, "-p") == 0) {
            if (not_number(argv[i], &x) || !(x >= 1 && x <= 1000) || x != (double)(int)x)
                bad = "a whole number from 1 to 1000";
            else
                passes = (int)x;
        } else if (strcmp(a, "--phi") == 0) {
            if (not_number(argv[i], &x) || !(x > 0 && x < 1))
                bad = "a number above 0 and below 1";
            else
                phi = x;
        } else if (strcmp(a, "--eps") == 0) {
            if (not_number(argv[i], &x) || !(x >= 0 && x < 1))
                bad = "a number from 0 (phi / 5) to below 1";
            else
                eps = x;
        } else if (cparse_load(a, &in[nin].text, &in[nin].len) >= 0) {
            bytes += in[nin++].len - (sizeof cparse_prelude - 1);
        } else {
            fprintf(stderr, "hotpaths: %s: %s (skipped)\n", a, strerror(errno));
        }
        if (bad) {
            fprintf(stderr, "hotpaths: %s %s: expected %s\n%s", a, argv[i], bad, usage);
            rc = 2;
            goto done;
        }
    }
    if (nin == 0) {
        fprintf(stderr, "hotpaths: no file to parse\n%s", usage);
        rc = 2;
        goto done;
    }
    cparse_run_init(); /* the parser's setup, before the profile */

    for (k = 0; k < 2; k++) {
        memset(&d, 0, sizeof d);
        if (k == 0) {
            /* 1. the whole program, profiled through the -finstrument-functions
                  hooks: a lazy Space Saving tree per thread (|M| = 1/eps) */
            d.phi = phi;
            d.epsilon = eps;
            if (failed(ctxprof_hcct_start(&d, &e), &e, "start"))
                goto done;
        } else {
            /* 2. the same work under the exact calling context tree, bound to
                  this thread instead of the session's tree, to check the HCCT */
            d.mode = CTXPROF_HCCT_CCT;
            d.flags = CTXPROF_HCCT_CODE_ADDRESSES;
            if (failed(ctxprof_hcct_init(&cct, &d, &e), &e, "exact tree"))
                goto done;
            ctxprof_hcct_bind(&cct);
        }
        parse_all(in, nin, passes, &st[k]); /* the one call of both runs */
        if (k == 0) {
            ctxprof_hcct_stop();
            mine = ctxprof_hcct_thread();
            if (!mine) {
                fprintf(stderr, "hotpaths: the session has no tree for this thread "
                                "(the parser reported no call)\n");
                goto done;
            }
        } else {
            ctxprof_hcct_bind(mine);
        }
    }

    ctxprof_hcct_stats_get(mine, &ts);
    if (failed(ctxprof_hcct_snapshot(phi, &hot, &e), &e, "snapshot"))
        goto done;
    eps = hot.epsilon; /* what the library used (--eps 0: phi / 5) */
    printf("parsed %zu files (%zu bytes) %d times: %llu tokens, %llu declarations, %llu "
           "functions, %llu statements, %llu expressions, %llu recovered errors\n",
           nin, bytes, passes, (unsigned long long)st[0].tokens, (unsigned long long)st[0].decls,
           (unsigned long long)st[0].functions, (unsigned long long)st[0].statements,
           (unsigned long long)st[0].expressions, (unsigned long long)st[0].errors);
    printf("profiled %llu calls with %zu counters (epsilon %g): the tree peaked at %zu nodes "
           "(%.2f MiB), %llu Space Saving replacements\n\n",
           (unsigned long long)hot.total, ts.counters, eps, ts.nodes_peak,
           (double)ts.bytes / 1048576.0, (unsigned long long)ts.replaced);

    memset(&top, 0, sizeof top);
    top.format = CTXPROF_HCCT_TOP;
    top.top = 12;
    top.max_depth = 8;
    printf("the %zu hottest calling contexts (phi %g: count > %llu):\n", top.top, phi,
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

    /* the check: the HCCT against the exact tree of the same work */
    ctxprof_hcct_stats_get(&cct, &xs);
    if (failed(ctxprof_hcct_query(&cct, phi - eps, &exact, &e), &e, "exact query") ||
        failed(ctxprof_hcct_profile_compare(&hot, &exact, phi, &acc, &e), &e, "compare"))
        goto done;
    ok = st[0].checksum == st[1].checksum && !acc.missed && !acc.bound_violations;
    printf("\nagainst the exact CCT of the same work (%zu nodes, %.1f MiB; the MCCT is %.2f%% "
           "of it):\n  %zu hot contexts, %zu reported, %zu missed, %zu false positives, "
           "%zu counts out of bounds, largest overestimate %llu (epsilon N = %.0f): %s\n",
           xs.nodes, (double)xs.bytes / 1048576.0, 100.0 * (double)ts.nodes_peak / (double)xs.nodes,
           acc.hot, acc.reported, acc.missed, acc.false_positives, acc.bound_violations,
           (unsigned long long)acc.max_error, eps * (double)exact.total,
           !ok         ? "the check FAILED"
           : acc.equal ? "the same HCCT"
                       : "within the guarantees");
    if (!ok)
        fprintf(
            stderr, "hotpaths: the check failed: %s\n",
            st[0].checksum != st[1].checksum
                ? "the two runs parsed differently"
                : "the HCCT broke its guarantees (missed hot contexts or counts out of bounds)");
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
