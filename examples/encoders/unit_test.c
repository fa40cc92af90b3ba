/* unit_test: an encoder tested in isolation. No instrumented code and no
   thread-local state: an explicit ctxprof_enc, the tables of expr_ctx.h,
   and the property "after the calls main -> run -> parse_expr -> ... the
   encoding decodes to exactly that path, and returning undoes it", for
   every scheme the header was generated with (make uses --all-schemes).

       make build/examples/encoders/unit_test && build/examples/encoders/unit_test */
#define _GNU_SOURCE
#define CTXPROF_IMPLEMENTATION
#include "expr_ctx.h"

#include <stdio.h>
#include <string.h>

static int failures;

#define EXPECT(cond, what)                                                                         \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            printf("FAIL %s: %s\n", name, what);                                                   \
            failures++;                                                                            \
            return;                                                                                \
        }                                                                                          \
    } while (0)

/* Calls along path[0..n), checks the decoded context, returns all the way. */
static void check_path(int scheme, const char *name, const uint32_t *path, size_t n)
{
    const ctxprof_enc_tables *t = ctxprof_gen_tables(scheme);
    ctxprof_enc st;
    ctxprof_enc_view v;
    ctxprof_error err;
    uint64_t saved[256];
    uint32_t out[256];
    size_t i, got;
    int rc;
    char text[1024];
    EXPECT(t != NULL, "no tables for this scheme");
    ctxprof_enc_init(&st, NULL);
    for (i = 0; i < n; i++)
        saved[i] = ctxprof_enc_enter(&st, t->acyc_bits, &t->ops[path[i]]);
    ctxprof_enc_query(&st, t->acyc_bits, &v);
    rc = ctxprof_enc_decode_view(t, &v, t->edge_callee[path[n - 1]], out, 256, &got, &err);
    if (rc != CTXPROF_OK)
        printf("  %s: %s\n", ctxprof_strerror(rc), err.detail);
    EXPECT(rc == CTXPROF_OK, "decoding failed");
    EXPECT(got == n && memcmp(out, path, n * sizeof *path) == 0, "decoded another path");
    ctxprof_enc_format(t, 0, out, got, text, sizeof text);
    for (i = n; i-- > 0;)
        ctxprof_enc_leave(&st, t->acyc_bits, &t->ops[path[i]], saved[i]);
    EXPECT(st.acyc[0] == 0 && st.n == 0 && st.depth == 0, "returning did not undo the calls");
    printf("ok %-8s %-9s %3lu calls in %4lu bits: %.70s%s\n", ctxprof_enc_scheme_name(scheme),
           name, (unsigned long)n, (unsigned long)v.n_bits, text, strlen(text) > 70 ? "..." : "");
    ctxprof_enc_deinit(&st);
}

int main(void)
{
    static const uint32_t nested[] = {
        CTXPROF_EDGE_ID(main, run, 0),          CTXPROF_EDGE_ID(run, parse_expr, 0),
        CTXPROF_EDGE_ID(parse_expr, parse_term, 1), CTXPROF_EDGE_ID(parse_term, parse_factor, 1),
        CTXPROF_EDGE_ID(parse_factor, parse_call, 0), CTXPROF_EDGE_ID(parse_call, parse_expr, 0),
        CTXPROF_EDGE_ID(parse_expr, parse_term, 0), CTXPROF_EDGE_ID(parse_term, parse_factor, 0),
        CTXPROF_EDGE_ID(parse_factor, parse_number, 0),
        CTXPROF_EDGE_ID(parse_number, where_am_i, 0)};
    uint32_t deep[200];
    size_t i;
    int s, schemes = 0;
    deep[0] = CTXPROF_EDGE_ID(main, run, 0);
    deep[1] = CTXPROF_EDGE_ID(run, eval, 0);
    for (i = 2; i < 198; i += 2) { /* eval -> apply -> eval ... a deep recursion */
        deep[i] = CTXPROF_EDGE_ID(eval, apply, 0);
        deep[i + 1] = CTXPROF_EDGE_ID(apply, eval, 0);
    }
    deep[198] = CTXPROF_EDGE_ID(eval, eval, 1);
    deep[199] = CTXPROF_EDGE_ID(eval, eval, 0);
    for (s = CTXPROF_ENC_PCCE; s <= CTXPROF_ENC_AUTO; s++) {
        if (!ctxprof_gen_tables(s))
            continue;
        schemes++;
        check_path(s, "nested", nested, sizeof nested / sizeof nested[0]);
        check_path(s, "recursion", deep, 200);
    }
    if (schemes == 0) { /* nothing tested is no pass */
        printf("FAIL: expr_ctx.h has tables for no scheme\n");
        failures++;
    }
    printf("%d scheme%s tested\n", schemes, schemes == 1 ? "" : "s");
    printf("%s\n", failures ? "unit test FAILED" : "unit test passed");
    return failures ? 1 : 0;
}
