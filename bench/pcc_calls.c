/* Per-call cost of maintaining the PCC value (issue 2, benchmark 1).

   A doubly recursive fib split across two TUs (pcc_fib.c) built once per
   variant into this one binary; the variants run alternately in each round
   and the table gives medians over the rounds and the median of the
   per-round ratios against the uninstrumented build of the same kind: the
   executable's for the executable's variants, the uninstrumented -fPIC .so
   (whose calls between the two TUs go through the PLT, as the instrumented
   .so's do) for the .so variants. With --only NAME a
   single variant runs once inside run_variant(), for callgrind:
     valgrind --tool=callgrind --toggle-collect=run_variant ./pcc_calls --only pcc --n 20 */
#define CTXPROF_IMPLEMENTATION
#include "../ctxprof.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

long plain_fib0(int n);
long pcc_fib0(int n);
long pccinv_fib0(int n);
long finstr_fib0(int n);
long plainso_fib0(int n);
long pccso_fib0(int n);
long pccsodyn_fib0(int n);

typedef struct variant {
    const char *name, *what;
    long (*fn)(int);
    int base; /* the variant its ratio is against (its uninstrumented build) */
} variant;

enum { V_PLAIN = 0, V_PLAINSO = 4 };
static const variant variants[] = {
    {"plain", "uninstrumented", plain_fib0, V_PLAIN},
    {"pcc", "PCC, restore from local", pcc_fib0, V_PLAIN},
    {"pccinv", "PCC, restore by inverse of 3", pccinv_fib0, V_PLAIN},
    {"finstr", "-finstrument-functions, empty hooks", finstr_fib0, V_PLAIN},
    {"plainso", "uninstrumented, in a -fPIC .so (vs plain: the PLT)", plainso_fib0, V_PLAIN},
    {"pccso", "PCC in a -fPIC .so, initial-exec TLS (vs plainso)", pccso_fib0, V_PLAINSO},
    {"pccsodyn", "PCC in a -fPIC .so, CTXPROF_TLS_DYNAMIC (vs plainso)", pccsodyn_fib0, V_PLAINSO},
};
#define NV (sizeof variants / sizeof variants[0])

__attribute__((noinline)) long run_variant(const variant *v, int n);
__attribute__((noinline)) long run_variant(const variant *v, int n)
{
    return v->fn(n);
}

int main(int argc, char **argv)
{
    int n = 30, rounds = 11, r, i;
    const char *only = NULL;
    double calls, t[NV][256], ratio[NV][256];
    long expect = -1;
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
            only = argv[++i];
        else if (strcmp(argv[i], "--n") == 0 && i + 1 < argc)
            n = atoi(argv[++i]);
        else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc)
            rounds = atoi(argv[++i]);
    }
    if (strcmp(variants[V_PLAINSO].name, "plainso") != 0) {
        fprintf(stderr, "pcc_calls: V_PLAINSO does not name plainso\n");
        return 2;
    }
    if (rounds < 1 || rounds > 256)
        rounds = 11;
    if (only) {
        for (i = 0; i < (int)NV; i++)
            if (strcmp(variants[i].name, only) == 0)
                return run_variant(&variants[i], n) > 0 ? 0 : 1;
        fprintf(stderr, "unknown variant %s\n", only);
        return 2;
    }
    {
        double a = 1, b = 1, c;
        for (i = 2; i <= n + 1; i++) { /* calls(n) = 2 fib(n+1) - 1 */
            c = a + b;
            a = b;
            b = c;
        }
        calls = 2 * a - 1;
    }
    for (r = 0; r < rounds; r++)
        for (i = 0; i < (int)NV; i++) {
            const variant *v = &variants[(i + r) % (int)NV];
            double t0 = bench_now_ns();
            long got = run_variant(v, n);
            t[(i + r) % (int)NV][r] = bench_now_ns() - t0;
            if (expect < 0)
                expect = got;
            if (got != expect) {
                fprintf(stderr, "%s computed %ld, expected %ld\n", v->name, got, expect);
                return 1;
            }
        }
    for (r = 0; r < rounds; r++)
        for (i = 0; i < (int)NV; i++)
            ratio[i][r] = t[i][r] / t[variants[i].base][r];
    printf("%s, %d-bit contexts, %d-bit site ids, fib(%d) = %.0f calls per run, %d rounds\n",
           __VERSION__, CTXPROF_CTX_BITS, CTXPROF_SITE_BITS, n, calls, rounds);
    printf("| variant | ns/call (median) | min-max | ratio vs its uninstrumented build |\n");
    printf("|---|---|---|---|\n");
    for (i = 0; i < (int)NV; i++) {
        double lo, hi, med, rat;
        med = bench_median(t[i], rounds);
        lo = t[i][0];
        hi = t[i][rounds - 1];
        rat = bench_median(ratio[i], rounds);
        printf("| %s | %.2f | %.2f-%.2f | %.2fx |\n", variants[i].what, med / calls, lo / calls,
               hi / calls, rat);
    }
    return 0;
}
