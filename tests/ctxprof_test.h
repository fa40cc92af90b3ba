/* ctxprof_test.h - the test harness (about 100 lines, no dependencies).

   Each tests/test_<module>.c defines static case functions and one table
   ending in a zero entry:

       static void pcc_noncommutative(void) { CHECK_NE(a, b); }
       const ctxprof_test_case ctxprof_tests_pcc[] = {
           {"pcc_noncommutative", pcc_noncommutative},
           {0, 0}};

   tests/test_main.c includes every test file into one translation unit
   together with the implementation (so cases may use private helpers) and
   runs the tables in order. A failed check prints file:line, the expression
   and the values, marks the case failed and goes on; REQUIRE returns from
   the case. SKIP marks the case skipped (hardware-dependent cases only). */
#ifndef CTXPROF_TEST_H_INCLUDED
#define CTXPROF_TEST_H_INCLUDED

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

typedef struct ctxprof_test_case {
    const char *name;
    void (*fn)(void);
} ctxprof_test_case;

static int ctxprof_test_failed;  /* checks failed in the current case */
static int ctxprof_test_skipped; /* current case called SKIP */

static void ctxprof_test_fail(const char *file, int line, const char *expr, const char *vals)
{
    fprintf(stderr, "%s:%d: check failed: %s%s%s\n", file, line, expr, vals[0] ? " " : "",
            vals);
    ctxprof_test_failed++;
}

#define CHECK(c)                                                                                   \
    do {                                                                                           \
        if (!(c))                                                                                  \
            ctxprof_test_fail(__FILE__, __LINE__, #c, "");                                         \
    } while (0)

/* Integer comparisons print both values. */
#define CTXPROF_TEST_CMP(a, op, b, ret)                                                            \
    do {                                                                                           \
        unsigned long long ctxprof_test_a = (unsigned long long)(a);                               \
        unsigned long long ctxprof_test_b = (unsigned long long)(b);                               \
        if (!(ctxprof_test_a op ctxprof_test_b)) {                                                 \
            char ctxprof_test_v[96];                                                               \
            snprintf(ctxprof_test_v, sizeof ctxprof_test_v, "(a=%llu [%#llx], b=%llu)",            \
                     ctxprof_test_a, ctxprof_test_a, ctxprof_test_b);                              \
            ctxprof_test_fail(__FILE__, __LINE__, #a " " #op " " #b, ctxprof_test_v);              \
            ret;                                                                                   \
        }                                                                                          \
    } while (0)
#define CHECK_EQ(a, b) CTXPROF_TEST_CMP(a, ==, b, (void)0)
#define CHECK_NE(a, b) CTXPROF_TEST_CMP(a, !=, b, (void)0)
#define CHECK_LE(a, b) CTXPROF_TEST_CMP(a, <=, b, (void)0)
#define CHECK_LT(a, b) CTXPROF_TEST_CMP(a, <, b, (void)0)
#define CHECK_GE(a, b) CTXPROF_TEST_CMP(a, >=, b, (void)0)
#define REQUIRE(c)                                                                                 \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            ctxprof_test_fail(__FILE__, __LINE__, #c, "(required)");                               \
            return;                                                                                \
        }                                                                                          \
    } while (0)
#define REQUIRE_EQ(a, b) CTXPROF_TEST_CMP(a, ==, b, return)

/* Floating-point comparison within an absolute tolerance. */
#define CHECK_NEAR(a, b, tol)                                                                      \
    do {                                                                                           \
        double ctxprof_test_x = (double)(a), ctxprof_test_y = (double)(b);                         \
        double ctxprof_test_d = ctxprof_test_x - ctxprof_test_y;                                   \
        if (ctxprof_test_d < 0)                                                                    \
            ctxprof_test_d = -ctxprof_test_d;                                                      \
        if (!(ctxprof_test_d <= (double)(tol))) {                                                  \
            char ctxprof_test_v[96];                                                               \
            snprintf(ctxprof_test_v, sizeof ctxprof_test_v, "(a=%g, b=%g, tol=%g)",                \
                     ctxprof_test_x, ctxprof_test_y, (double)(tol));                               \
            ctxprof_test_fail(__FILE__, __LINE__, #a " ~ " #b, ctxprof_test_v);                    \
        }                                                                                          \
    } while (0)

#define CHECK_STR(a, b)                                                                            \
    do {                                                                                           \
        const char *ctxprof_test_s = (a), *ctxprof_test_t = (b);                                   \
        if (!ctxprof_test_s || !ctxprof_test_t || strcmp(ctxprof_test_s, ctxprof_test_t) != 0) {   \
            char ctxprof_test_v[512];                                                              \
            snprintf(ctxprof_test_v, sizeof ctxprof_test_v, "(a=\"%.240s\", b=\"%.240s\")",                \
                     ctxprof_test_s ? ctxprof_test_s : "(null)",                                   \
                     ctxprof_test_t ? ctxprof_test_t : "(null)");                                  \
            ctxprof_test_fail(__FILE__, __LINE__, #a " == " #b, ctxprof_test_v);                   \
        }                                                                                          \
    } while (0)

/* Substring check, for error messages. */
#define CHECK_CONTAINS(hay, needle)                                                                \
    do {                                                                                           \
        const char *ctxprof_test_h = (hay);                                                        \
        if (!ctxprof_test_h || !strstr(ctxprof_test_h, (needle))) {                                \
            char ctxprof_test_v[512];                                                              \
            snprintf(ctxprof_test_v, sizeof ctxprof_test_v, "(text=\"%.480s\")",                       \
                     ctxprof_test_h ? ctxprof_test_h : "(null)");                                  \
            ctxprof_test_fail(__FILE__, __LINE__, #hay " contains " #needle, ctxprof_test_v);      \
        }                                                                                          \
    } while (0)

/* For cases that build and run separate programs: what they test does not
   depend on how the test binary itself was built, so they run in the plain
   configuration of each compiler and are skipped (and said so) under the
   sanitizers, which the programs they build do not use anyway. */
#if defined(__SANITIZE_ADDRESS__)
#define CTXPROF_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CTXPROF_TEST_SANITIZED 1
#endif
#endif
#if defined(CTXPROF_TEST_SANITIZED)
#define PLAIN_BUILD_ONLY() SKIP("builds separate programs; run in the plain configuration")
#else
#define PLAIN_BUILD_ONLY() ((void)0)
#endif

#define SKIP(why)                                                                                  \
    do {                                                                                           \
        fprintf(stderr, "  skip: %s\n", (why));                                                    \
        ctxprof_test_skipped = 1;                                                                  \
        return;                                                                                    \
    } while (0)

#endif

#ifndef CTXPROF_TEST_UTIL_H_INCLUDED
#define CTXPROF_TEST_UTIL_H_INCLUDED
#include <stdint.h>
#include <stdlib.h>

/* Deterministic generator for test data (splitmix64). */
static inline uint64_t ctxprof_test_rand(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

/* A fresh directory under $TMPDIR (or /tmp) for this run; path in static memory. */
const char *ctxprof_test_tmpdir(void);
/* Runs a shell command, returns its exit status (or -1). */
int ctxprof_test_sh(const char *fmt, ...);
#endif
