/* PCC: context values, call-site ids, annotation macros, context sets and
   their files. Included by test_main.c. */
#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>

/* ---- values ---- */

static void pcc_noncommutative(void)
{
    uint64_t rng = 1;
    int i;
    for (i = 0; i < 1000; i++) {
        ctxprof_ctx a = (ctxprof_ctx)ctxprof_test_rand(&rng);
        ctxprof_ctx b = (ctxprof_ctx)ctxprof_test_rand(&rng);
        ctxprof_ctx c = (ctxprof_ctx)ctxprof_test_rand(&rng);
        ctxprof_ctx v = (ctxprof_ctx)ctxprof_test_rand(&rng);
        ctxprof_ctx abc = ctxprof_pcc_next(ctxprof_pcc_next(ctxprof_pcc_next(v, a), b), c);
        ctxprof_ctx cab = ctxprof_pcc_next(ctxprof_pcc_next(ctxprof_pcc_next(v, c), a), b);
        ctxprof_ctx acb = ctxprof_pcc_next(ctxprof_pcc_next(ctxprof_pcc_next(v, a), c), b);
        CHECK_NE(abc, cab);
        CHECK_NE(abc, acb);
        CHECK_NE(cab, acb);
    }
}

/* The composed constant is a constant expression and equals the updates. */
static const ctxprof_ctx pcc_composed_const = CTXPROF_PCC_COMPOSE3(11, 22, 33);
CTXPROF__STATIC_ASSERT(CTXPROF_PCC_COMPOSE(1, 2) == 5, compose_is_constant);

static void pcc_compose(void)
{
    uint64_t rng = 2;
    int i;
    CHECK_EQ(pcc_composed_const, 9 * 11 + 3 * 22 + 33);
    CHECK_EQ(ctxprof_pcc_pow3(0), 1);
    CHECK_EQ(ctxprof_pcc_pow3(5), 243);
    for (i = 0; i < 1000; i++) {
        ctxprof_ctx a = (ctxprof_ctx)ctxprof_test_rand(&rng);
        ctxprof_ctx b = (ctxprof_ctx)ctxprof_test_rand(&rng);
        ctxprof_ctx c = (ctxprof_ctx)ctxprof_test_rand(&rng);
        ctxprof_ctx d = (ctxprof_ctx)ctxprof_test_rand(&rng);
        ctxprof_ctx v = (ctxprof_ctx)ctxprof_test_rand(&rng);
        ctxprof_ctx two = ctxprof_pcc_next(ctxprof_pcc_next(v, a), b);
        ctxprof_ctx four = ctxprof_pcc_next(ctxprof_pcc_next(two, c), d);
        CHECK_EQ(two, (ctxprof_ctx)(ctxprof_pcc_pow3(2) * v + CTXPROF_PCC_COMPOSE(a, b)));
        CHECK_EQ(four, (ctxprof_ctx)(ctxprof_pcc_pow3(4) * v + CTXPROF_PCC_COMPOSE4(a, b, c, d)));
    }
}

/* Restoring by the inverse of 3 is exact even after wrapping; division by 3
   (a known bug of a public PCC runtime) is not. */
static void pcc_inverse(void)
{
    uint64_t rng = 3;
    int i, div_wrong = 0;
    ctxprof_pcc st = {0};
    for (i = 0; i < 10000; i++) {
        ctxprof_ctx site = (ctxprof_ctx)ctxprof_test_rand(&rng);
        ctxprof_ctx before = (ctxprof_ctx)ctxprof_test_rand(&rng);
        ctxprof_ctx after = ctxprof_pcc_next(before, site);
        CHECK_EQ(ctxprof_pcc_prev(after, site), before);
        div_wrong += (ctxprof_ctx)((after - site) / 3) != before;
    }
    /* dividing is right only when 3V did not wrap: about a third of random V */
    CHECK_GE(div_wrong, 6000);
    {
        ctxprof_ctx s1 = 0x1234, s2 = (ctxprof_ctx)0xFEDCBA9876543210u;
        ctxprof_ctx saved = ctxprof_pcc_push(&st, s1);
        ctxprof_ctx saved2 = ctxprof_pcc_push(&st, s2);
        CHECK_EQ(st.v, ctxprof_pcc_next(ctxprof_pcc_next(0, s1), s2));
        ctxprof_pcc_pop_site(&st, s2);
        CHECK_EQ(st.v, saved2);
        ctxprof_pcc_pop(&st, saved);
        CHECK_EQ(st.v, 0);
    }
}

/* Paper Table 1 from the formula, to the paper's rounding. */
static void pcc_expected_formula(void)
{
    CHECK_NEAR(ctxprof_pcc_expected_conflicts(1e5, 32), 1.16, 0.01);
    CHECK_NEAR(ctxprof_pcc_expected_conflicts(1e6, 32), 116.4, 0.5);
    CHECK_NEAR(ctxprof_pcc_expected_conflicts(1e7, 32), 11632, 1);
    CHECK_NEAR(ctxprof_pcc_expected_conflicts(1e8, 32), 1155170, 1);
    CHECK_NEAR(ctxprof_pcc_expected_conflicts(1e9, 32), 107882641, 2);
    CHECK_NEAR(ctxprof_pcc_expected_conflicts(1e10, 32), 6123623065.0, 10);
    CHECK_NEAR(ctxprof_pcc_expected_conflicts(1e7, 64), 2.7e-6, 1e-7);
    CHECK_NEAR(ctxprof_pcc_expected_conflicts(1e10, 64), 2.71, 0.01);
    CHECK_EQ(ctxprof_pcc_expected_conflicts(1, 32), 0);
}

/* ---- call-site ids ---- */

static void pcc_site_ids(void)
{
    /* Each CTXPROF_PCC_SITE() below sits on its own line. */
    unsigned long l1 = __LINE__ + 1;
    ctxprof_ctx a = CTXPROF_PCC_SITE();
    ctxprof_ctx b = CTXPROF_PCC_SITE();
    ctxprof_ctx c = CTXPROF_PCC_SITE_D(1);
    CHECK_NE(a, b);
    CHECK_EQ(a, ctxprof_pcc_site_id("test_pcc.c", l1, 0, CTXPROF_SITE_SEED));
    CHECK_EQ(b, ctxprof_pcc_site_id("test_pcc.c", l1 + 1, 0, CTXPROF_SITE_SEED));
    CHECK_EQ(c, ctxprof_pcc_site_id("test_pcc.c", l1 + 2, 1, CTXPROF_SITE_SEED));
    CHECK_NE(c, ctxprof_pcc_site_id("test_pcc.c", l1 + 2, 0, CTXPROF_SITE_SEED));
    CHECK_NE(a, ctxprof_pcc_site_id("test_pcc.c", l1, 0, 1));
    CHECK_NE(a, ctxprof_pcc_site_id("test_pcd.c", l1, 0, CTXPROF_SITE_SEED));
    /* Long names differ by length, and by their last 32 characters. */
    CHECK_NE(ctxprof_pcc_site_id("a_very_long_file_name_that_goes_on.c", 1, 0, 0),
             ctxprof_pcc_site_id("a_very_long_file_name_that_goes_on_.c", 1, 0, 0));
    CHECK_NE(ctxprof_pcc_site_id("payment_service_request_handler_a.c", 1, 0, 0),
             ctxprof_pcc_site_id("payment_service_request_handler_b.c", 1, 0, 0));
}

/* Two files whose base names differ only after their 32nd character, built
   into one program: the compile-time ids of sites on the same line differ
   (they used to be equal on every line), and each equals the run-time twin. */
static void pcc_site_ids_long_names(void)
{
    const char *d = ctxprof_test_tmpdir();
    static const char *const names[2] = {"payment_service_request_handler_a.c",
                                         "payment_service_request_handler_b.c"};
    char root[1024], out[600];
    unsigned long long id[2][2];
    FILE *f;
    int k;
    PLAIN_BUILD_ONLY();
    REQUIRE(getcwd(root, sizeof root));
    for (k = 0; k < 2; k++)
        REQUIRE_EQ(ctxprof_test_sh("printf '#include \"ctxprof.h\"\\n"
                                   "ctxprof_ctx site_%c(int i);\\n"
                                   "ctxprof_ctx site_%c(int i) { return i ? CTXPROF_PCC_SITE_D(1)"
                                   " : CTXPROF_PCC_SITE(); }\\n' > %s/%s",
                                   'a' + k, 'a' + k, d, names[k]),
                   0);
    REQUIRE_EQ(ctxprof_test_sh("printf '#include <stdio.h>\\n#include \"ctxprof.h\"\\n"
                               "ctxprof_ctx site_a(int), site_b(int);\\n"
                               "int main(void) { printf(\"%%%%llu %%%%llu %%%%llu %%%%llu\\\\n\", "
                               "(unsigned long long)site_a(0), (unsigned long long)site_a(1), "
                               "(unsigned long long)site_b(0), (unsigned long long)site_b(1)); "
                               "return 0; }\\n' > %s/long_main.c",
                               d),
               0);
    snprintf(out, sizeof out, "%s/long.out", d);
    REQUIRE_EQ(ctxprof_test_sh("cd %s && %s -std=gnu11 -O2 -I%s long_main.c %s %s -o long && "
                               "./long > %s",
                               d, CTXPROF_TEST_CC, root, names[0], names[1], out),
               0);
    f = fopen(out, "r");
    REQUIRE(f);
    REQUIRE_EQ(fscanf(f, "%llu %llu %llu %llu", &id[0][0], &id[0][1], &id[1][0], &id[1][1]), 4);
    fclose(f);
    CHECK_NE(id[0][0], id[1][0]);
    CHECK_NE(id[0][1], id[1][1]);
    for (k = 0; k < 2; k++) {
        CHECK_EQ(id[k][0], ctxprof_pcc_site_id(names[k], 3, 0, CTXPROF_SITE_SEED));
        CHECK_EQ(id[k][1], ctxprof_pcc_site_id(names[k], 3, 1, CTXPROF_SITE_SEED));
    }
}

/* PCC from C++ (tests/data/pcc_cxx.cpp, built with the C++ compiler of this
   configuration's C compiler, -Wshadow -Werror, at -O0 and -O2): a callee
   that throws through CTXPROF_PCC_CALL and CTXPROF_PCC_SCOPE, caught, leaves
   no stale context behind (the program sees no new context where it
   trained on the same contexts without the throw); an annotated lambda in
   an annotated function compiles; a template call with a comma runs; a
   report's backtrace names "seen()", not "_ZL4seenv". */
static void pcc_cxx(void)
{
    const char *d = ctxprof_test_tmpdir();
    const char *cxx = strstr(CTXPROF_TEST_CC, "clang") ? "clang++" : "g++";
    char root[1024], out[600], *txt;
    size_t len;
    int opt;
    PLAIN_BUILD_ONLY();
    REQUIRE(getcwd(root, sizeof root));
    snprintf(out, sizeof out, "%s/pcc_cxx.out", d);
    for (opt = 0; opt <= 2; opt += 2) {
        REQUIRE_EQ(ctxprof_test_sh("%s -std=c++11 -O%d -Wall -Wextra -Werror -Wshadow -pedantic -I%s "
                                   "tests/data/pcc_cxx.cpp -o %s/pcc_cxx && %s/pcc_cxx > %s",
                                   cxx, opt, root, d, d, out),
                   0);
        REQUIRE_EQ(ctxprof__read_file(out, &txt, &len, NULL, NULL), CTXPROF_OK);
        CHECK_CONTAINS(txt, "call 0\n");
        CHECK_CONTAINS(txt, "scope 0\n");
        CHECK_CONTAINS(txt, "sum 387\n"); /* (42 + 86 + 1) * 3 */
        CHECK_CONTAINS(txt, "demangled 1\n");
        ctxprof__free(txt, NULL);
    }
}

/* A report's backtrace after dlclose of a library and dlopen of another
   (often at the same address) names the new library's function: the
   set's symbol table is read again when objects were loaded or unloaded
   (it named the unloaded library's function, or nothing). */
static ctxprof_pcc_set pcc_dl_set;
static char pcc_dl_bt[4096];
static ctxprof_ctx pcc_dl_next = 1000;

static void pcc_dl_report(void *user, const ctxprof_pcc_report *r)
{
    (void)user;
    snprintf(pcc_dl_bt, sizeof pcc_dl_bt, "%s", r->backtrace);
}

static __attribute__((noinline)) void pcc_dl_check(void)
{
    ctxprof_pcc_set_check(&pcc_dl_set, pcc_dl_next++, CTXPROF_PCC_LOC);
    __asm__ volatile("");
}

static void pcc_dl_reports(void)
{
    const char *d = ctxprof_test_tmpdir();
    static const char *const names[2] = {"a", "b"};
    ctxprof_pcc_set_desc desc;
    int k;
    PLAIN_BUILD_ONLY();
    memset(&desc, 0, sizeof desc);
    desc.mode = CTXPROF_PCC_CHECK;
    desc.report = pcc_dl_report;
    REQUIRE_EQ(ctxprof_pcc_set_init(&pcc_dl_set, &desc), CTXPROF_OK);
    for (k = 0; k < 2; k++) {
        char src[600], so[600], sym[64];
        void (*handler)(void (*)(void));
        void *h;
        FILE *f;
        snprintf(src, sizeof src, "%s/plug_%s.c", d, names[k]);
        snprintf(so, sizeof so, "%s/libplug_%s.so", d, names[k]);
        snprintf(sym, sizeof sym, "plugin_%s_handler", names[k]);
        f = fopen(src, "w");
        REQUIRE(f);
        fprintf(f, "__attribute__((noinline)) void %s(void (*cb)(void)) { cb(); "
                   "__asm__ volatile(\"\"); }\n", sym);
        fclose(f);
        REQUIRE_EQ(ctxprof_test_sh("%s -O2 -shared -fPIC %s -o %s", CTXPROF_TEST_CC, src, so), 0);
        h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
        REQUIRE(h != NULL);
        *(void **)&handler = dlsym(h, sym);
        REQUIRE(handler != NULL);
        pcc_dl_bt[0] = '\0';
        handler(pcc_dl_check);
        CHECK_CONTAINS(pcc_dl_bt, sym);
        CHECK(strstr(pcc_dl_bt, k ? "plugin_a_handler" : "plugin_b_handler") == NULL);
        dlclose(h);
    }
    ctxprof_pcc_set_deinit(&pcc_dl_set);
}

/* A library that dlopen loads and dlclose unloads again (not loaded now,
   not kept): its name, or NULL when there is none here. */
static const char *pcc_unloadable_lib(void)
{
    static const char *const libs[] = {"libz.so.1", "libBrokenLocale.so.1", "libthread_db.so.1",
                                       "libanl.so.1"};
    size_t k;
    for (k = 0; k < sizeof libs / sizeof libs[0]; k++) {
        void *h = dlopen(libs[k], RTLD_NOW | RTLD_NOLOAD);
        if (h) { /* loaded already */
            dlclose(h);
            continue;
        }
        if (!(h = dlopen(libs[k], RTLD_NOW)))
            continue;
        dlclose(h);
        if ((h = dlopen(libs[k], RTLD_NOW | RTLD_NOLOAD)) != NULL) { /* kept */
            dlclose(h);
            continue;
        }
        return libs[k];
    }
    return NULL;
}

/* Symbol tables a set holds: the current one and those it replaced. */
static size_t pcc_syms_held(const ctxprof_pcc_set *s)
{
    const ctxprof__pcc_syms *y = (const ctxprof__pcc_syms *)s->symtab;
    size_t n = 0;
    for (; y; y = y->older)
        n++;
    return n;
}

static unsigned pcc_syms_calls;
static void pcc_syms_report(void *user, const ctxprof_pcc_report *r)
{
    (void)user;
    pcc_syms_calls++;
    snprintf(pcc_dl_bt, sizeof pcc_dl_bt, "%s", r->backtrace);
}

/* A checker that reports new contexts while libraries come and go: each
   report after a dlopen/dlclose read a new symbol table and kept the old
   one until deinit (about 128 KiB a report), which neither reclaim nor
   retired_bytes saw. A library loaded and unloaded again between reports
   costs no new table now; the tables replaced when the objects did change
   are counted in retired_bytes and freed by reclaim. */
static void pcc_report_symbols_bounded(void)
{
    const char *lib = pcc_unloadable_lib();
    ctxprof_pcc_set s;
    ctxprof_pcc_set_desc desc;
    ctxprof_pcc_stats st;
    const void *first;
    uint64_t before;
    void *h = NULL;
    size_t freed;
    int i;
    if (!lib)
        SKIP("no library here that dlopen loads and dlclose unloads");
    memset(&desc, 0, sizeof desc);
    desc.mode = CTXPROF_PCC_CHECK;
    desc.report = pcc_syms_report;
    desc.reports_per_sec = 1000000;
    pcc_syms_calls = 0;
    REQUIRE_EQ(ctxprof_pcc_set_init(&s, &desc), CTXPROF_OK);
    ctxprof_pcc_set_check(&s, 1, CTXPROF_PCC_LOC);
    first = s.symtab;
    REQUIRE(first != NULL);
    /* loaded and unloaded between two reports: the same objects */
    for (i = 0; i < 50; i++) {
        h = dlopen(lib, RTLD_NOW);
        REQUIRE(h != NULL);
        dlclose(h);
        ctxprof_pcc_set_check(&s, (ctxprof_ctx)(100 + i), CTXPROF_PCC_LOC);
    }
    CHECK_EQ(pcc_syms_calls, 51);
    CHECK(s.symtab == first);
    CHECK_EQ(pcc_syms_held(&s), 1);
    ctxprof_pcc_set_stats(&s, &st);
    before = st.retired_bytes; /* the reported values' tables that grew */
    /* loaded for one report, unloaded for the next: a table each time */
    for (i = 0; i < 10; i++) {
        if (i % 2 == 0) {
            h = dlopen(lib, RTLD_NOW);
            REQUIRE(h != NULL);
        } else {
            dlclose(h);
        }
        ctxprof_pcc_set_check(&s, (ctxprof_ctx)(200 + i), CTXPROF_PCC_LOC);
    }
    CHECK_EQ(pcc_syms_calls, 61);
    CHECK_EQ(pcc_syms_held(&s), 11);
    ctxprof_pcc_set_stats(&s, &st);
    CHECK_GE(st.retired_bytes, before + 10 * (sizeof(ctxprof__pcc_syms) + 1000));
    freed = ctxprof_pcc_set_reclaim(&s);
    CHECK_EQ(freed, st.retired_bytes);
    CHECK_EQ(pcc_syms_held(&s), 1);
    ctxprof_pcc_set_stats(&s, &st);
    CHECK_EQ(st.retired_bytes, 0);
    /* the table kept still names the frames */
    pcc_dl_bt[0] = '\0';
    ctxprof_pcc_set_check(&s, 300, CTXPROF_PCC_LOC);
    CHECK_CONTAINS(pcc_dl_bt, " pcc_report_symbols_bounded+0x");
    ctxprof_pcc_set_deinit(&s);
}

/* Two builds from different directories (different __FILE__ paths), each
   run as its own PIE process under ASLR, print the same ids, and so does a
   build by the other compiler; a different seed gives different ids. */
static void pcc_site_ids_across_builds(void)
{
    const char *d = ctxprof_test_tmpdir();
    char out1[512], out2[512], out3[512];
    FILE *f;
    unsigned long long ids[3][3];
    char addr[3][64];
    int k;
    char root[1024];
    PLAIN_BUILD_ONLY();
    REQUIRE(getcwd(root, sizeof root));
    REQUIRE_EQ(ctxprof_test_sh("mkdir -p %s/b1/deep/er %s/b2 && cp tests/data/pcc_ids.c %s/b1/deep/er/"
                               " && cp tests/data/pcc_ids.c %s/b2/",
                               d, d, d, d),
               0);
    REQUIRE_EQ(ctxprof_test_sh("cd %s/b1 && %s -O2 -fPIE -pie -I%s deep/er/pcc_ids.c -o p1", d,
                               CTXPROF_TEST_CC, root),
               0);
    REQUIRE_EQ(ctxprof_test_sh("%s -O0 -fPIE -pie -I%s %s/b2/pcc_ids.c -o %s/b2/p2", CTXPROF_TEST_CC,
                               root, d, d),
               0);
    REQUIRE_EQ(ctxprof_test_sh("cd %s/b2 && %s -O1 -DCTXPROF_SITE_SEED=42 -I%s pcc_ids.c -o p3", d,
                               CTXPROF_TEST_CC, root),
               0);
    snprintf(out1, sizeof out1, "%s/ids1", d);
    snprintf(out2, sizeof out2, "%s/ids2", d);
    snprintf(out3, sizeof out3, "%s/ids3", d);
    REQUIRE_EQ(ctxprof_test_sh("%s/b1/p1 > %s && %s/b2/p2 > %s && %s/b2/p3 > %s", d, out1, d, out2,
                               d, out3),
               0);
    for (k = 0; k < 3; k++) {
        f = fopen(k == 0 ? out1 : k == 1 ? out2 : out3, "r");
        REQUIRE(f);
        REQUIRE_EQ(fscanf(f, "%llu %llu %llu %63s", &ids[k][0], &ids[k][1], &ids[k][2], addr[k]), 4);
        fclose(f);
    }
    CHECK_EQ(ids[0][0], ids[1][0]);
    CHECK_EQ(ids[0][1], ids[1][1]);
    CHECK_EQ(ids[0][2], ids[1][2]);
    CHECK_EQ(ids[0][0], ctxprof_pcc_site_id("pcc_ids.c", 9, 0, 0));
    CHECK_EQ(ids[0][1], ctxprof_pcc_site_id("pcc_ids.c", 10, 1, 0));
    CHECK_NE(ids[0][0], ids[0][2]);
    CHECK_NE(ids[0][0], ids[2][0]);
    CHECK_EQ(ids[2][0], ctxprof_pcc_site_id("pcc_ids.c", 9, 0, 42));
    /* the processes really were loaded at different addresses */
    CHECK(strcmp(addr[0], addr[1]) != 0);
    {
        /* the other compiler (gcc <-> clang) computes the same ids */
        const char *other = strstr(CTXPROF_TEST_CC, "clang") ? "gcc" : "clang";
        unsigned long long o[3];
        if (ctxprof_test_sh("cd %s/b2 && %s -O2 -I%s pcc_ids.c -o p4 2>/dev/null", d, other,
                            root) != 0) {
            fprintf(stderr, "  (no %s: cross-compiler ids not compared)\n", other);
            return;
        }
        REQUIRE_EQ(ctxprof_test_sh("%s/b2/p4 > %s", d, out3), 0);
        f = fopen(out3, "r");
        REQUIRE(f);
        REQUIRE_EQ(fscanf(f, "%llu %llu %llu", &o[0], &o[1], &o[2]), 3);
        fclose(f);
        CHECK_EQ(o[0], ids[0][0]);
        CHECK_EQ(o[1], ids[0][1]);
        CHECK_EQ(o[2], ids[0][2]);
    }
}

/* The default 32-bit ids are the low 32 bits, sign-extended (a lea
   displacement), of the full-width ids of a CTXPROF_SITE_BITS=64 build of
   the same source; that build's run-time twin agrees with its macro, and a
   set it saved (site_version 3) is refused by this build (v4). */
static void pcc_site_bits64(void)
{
    const char *d = ctxprof_test_tmpdir();
    char root[1024], path[600], out[600];
    unsigned long long full[2];
    int twin = 0;
    FILE *f;
    ctxprof_pcc_set set;
    ctxprof_pcc_set_desc desc;
    int k;
    PLAIN_BUILD_ONLY();
    REQUIRE(getcwd(root, sizeof root));
    snprintf(path, sizeof path, "%s/site64.set", d);
    snprintf(out, sizeof out, "%s/site64.out", d);
    REQUIRE_EQ(ctxprof_test_sh("cp tests/data/pcc_site64.c %s/ && cd %s && %s -std=gnu11 -O2 "
                               "-DCTXPROF_SITE_BITS=64 -I%s pcc_site64.c -o site64 -lpthread -ldl "
                               "&& ./site64 %s > %s",
                               d, d, CTXPROF_TEST_CC, root, path, out),
               0);
    f = fopen(out, "r");
    REQUIRE(f);
    REQUIRE_EQ(fscanf(f, "%llu %llu %d", &full[0], &full[1], &twin), 3);
    fclose(f);
    CHECK_EQ(twin, 1);
    CHECK_NE(full[0], full[1]);
    for (k = 0; k < 2; k++) {
        uint64_t lo = full[k] & 0xFFFFFFFFu;
        uint64_t want = lo < 0x80000000u ? lo : lo | 0xFFFFFFFF00000000u;
        CHECK_NE(full[k], want); /* a full-width id, not a sign-extended one */
        CHECK_EQ(ctxprof_pcc_site_id("pcc_site64.c", 12, (unsigned long)k, CTXPROF_SITE_SEED),
                 want);
    }
    memset(&desc, 0, sizeof desc);
    desc.mode = CTXPROF_PCC_CHECK;
    REQUIRE_EQ(ctxprof_pcc_set_init(&set, &desc), CTXPROF_OK);
    CHECK_EQ(ctxprof_pcc_set_load(&set, path), CTXPROF_ERR_MISMATCH);
    CHECK_CONTAINS(ctxprof_error_message(&set.err), "site hash v3; this build uses 64-bit, 0, v4");
    CHECK_EQ(ctxprof_pcc_set_count(&set), 0);
    ctxprof_pcc_set_deinit(&set);
}

/* At -O1 and -O2 a call-site id is one immediate: no hashing at run time. */
static void pcc_site_folds(void)
{
    const char *d = ctxprof_test_tmpdir();
    static const char *const opts[2] = {"-O1", "-O2"};
    char path[512], line[256], imm[64];
    int k;
    REQUIRE_EQ(
        ctxprof_test_sh("printf '#include \"ctxprof.h\"\\nctxprof_ctx site(void);\\n"
                        "ctxprof_ctx site(void) { return CTXPROF_PCC_SITE(); }\\n' > %s/fold.c",
                        d),
        0);
    snprintf(imm, sizeof imm, "$%lld",
             (long long)(int64_t)ctxprof_pcc_site_id("fold.c", 3, 0, CTXPROF_SITE_SEED));
    for (k = 0; k < 2; k++) {
        FILE *f;
        int in_fn = 0, insns = 0, found = 0;
        REQUIRE_EQ(ctxprof_test_sh("%s %s -S -fno-asynchronous-unwind-tables -I. %s/fold.c -o "
                                   "%s/fold.s",
                                   CTXPROF_TEST_CC, opts[k], d, d),
                   0);
        snprintf(path, sizeof path, "%s/fold.s", d);
        f = fopen(path, "r");
        REQUIRE(f);
        while (fgets(line, sizeof line, f)) {
            if (strncmp(line, "site:", 5) == 0) {
                in_fn = 1;
                continue;
            }
            if (!in_fn || line[0] != '\t' || line[1] == '.')
                continue;
            insns++;
            if (strstr(line, imm))
                found = 1;
            if (strstr(line, "ret"))
                break;
        }
        fclose(f);
        CHECK_EQ(insns, 2); /* mov $imm, %rax (a sign-extended 32-bit id); ret */
        CHECK(found);
    }
}

/* Instructions of function fn in an assembly listing (directives, labels
   and comments excluded), and how many of them mention `needle`. */
static int pcc_asm_count(const char *as, const char *fn, const char *needle, int *hits)
{
    char head[64];
    const char *p;
    int n = 0;
    snprintf(head, sizeof head, "\n%s:", fn);
    p = strstr(as, head);
    *hits = 0;
    if (!p)
        return -1;
    for (p = strchr(p + 1, '\n'); p && p[1];) {
        const char *line = p + 1, *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line) : strlen(line);
        char buf[256];
        snprintf(buf, sizeof buf, "%.*s", (int)(len < 255 ? len : 255), line);
        if (buf[0] != '\t' && buf[0] != ' ' && buf[0] != '#' && strchr(buf, ':'))
            break; /* the next label: the function ended */
        if (buf[0] == '\t' && buf[1] != '.' && buf[1] != '#') {
            n++;
            if (needle && strstr(buf, needle))
                (*hits)++;
        }
        p = eol;
    }
    return n;
}

/* The issue's floor, in the compiler's own output at -O2: an annotated
   call site adds the load of V, 3V + cs (gcc: one lea, the default 32-bit
   id its displacement; a 64-bit id, CTXPROF_SITE_BITS=64, needs movabs +
   add), the store and the
   restore; the local copy lives in a callee-saved register whose push and
   pop replace the plain function's stack adjustment. No hashing, no call.
   -fPIC code uses initial-exec TLS (the address costs up to five more
   instructions per function: its load and a second saved register); code
   for an executable uses local-exec. */
static void pcc_call_site_floor(void)
{
    const char *d = ctxprof_test_tmpdir();
    int clang = strstr(CTXPROF_TEST_CC, "clang") != NULL, cfg;
    static const char *const cfgs[3] = {"-DCTXPROF_CTX_BITS=32", "", "-DCTXPROF_SITE_BITS=64"};
    static const char *const cfg_names[3] = {"32-bit", "64-bit (default)", "64-bit, 64-bit ids"};
    char cwd[512], path[600], *as = NULL;
    size_t len;
    ctxprof_error err;
    REQUIRE(getcwd(cwd, sizeof cwd) != NULL);
    snprintf(path, sizeof path, "%s/floor.c", d);
    {
        FILE *f = fopen(path, "w");
        REQUIRE(f);
        fputs("#include \"ctxprof.h\"\nint g(int);\nint plain(int x);\nint one(int x);\n"
              "int plain(int x) { return g(x) + 1; }\n"
              "int one(int x)\n{\n    int r;\n    CTXPROF_PCC_FUNC();\n"
              "    CTXPROF_PCC_CALL(CTXPROF_PCC_SITE(), r = g(x));\n    return r + 1;\n}\n",
              f);
        fclose(f);
    }
    /* 32-bit values; the default (64-bit values, 32-bit ids): gcc 4; 64-bit
       values with 64-bit ids (movabs + add: 6) */
    for (cfg = 0; cfg < 3; cfg++) {
        int pic, np, n1, tls, mul, shr, calls;
        int limit = cfg == 2 ? 6 : clang ? 5 : 4;
        for (pic = 0; pic < 2; pic++) {
            REQUIRE_EQ(ctxprof_test_sh("cd %s && %s -std=gnu11 -O2 %s -S "
                                       "-fno-asynchronous-unwind-tables %s -I%s floor.c -o floor.s",
                                       d, CTXPROF_TEST_CC, pic ? "-fPIC" : "-fPIE", cfgs[cfg], cwd),
                       0);
            snprintf(path, sizeof path, "%s/floor.s", d);
            REQUIRE_EQ(ctxprof__read_file(path, &as, &len, NULL, &err), CTXPROF_OK);
            np = pcc_asm_count(as, "plain", NULL, &tls);
            n1 = pcc_asm_count(as, "one", "ctxprof_pcc_tls", &tls);
            pcc_asm_count(as, "one", "mul", &mul);
            pcc_asm_count(as, "one", "shr", &shr);
            pcc_asm_count(as, "one", "call", &calls);
            REQUIRE(np > 0 && n1 > 0);
            if (!pic) {
                /* load, store, restore: each one %fs-relative instruction */
                CHECK_EQ(tls, 3);
                CHECK_LE(n1 - np, limit);
                CHECK(strstr(as, "@tpoff") || strstr(as, "@TPOFF"));
            } else {
                /* plus the variable's address: loaded once, kept in a
                   second callee-saved register (push, pop) */
                CHECK_EQ(tls, 1);
                CHECK_LE(n1 - np, limit + 5);
                CHECK(strstr(as, "@gottpoff") || strstr(as, "@GOTTPOFF"));
            }
            CHECK_EQ(mul, 0);
            CHECK_EQ(shr, 0);
            CHECK_EQ(calls, 1);
            if (ctxprof_test_failed)
                fprintf(stderr, "  %s %s:\n%s\n", cfg_names[cfg], pic ? "-fPIC" : "-fPIE", as);
            free(as);
            as = NULL;
            if (ctxprof_test_failed)
                return;
        }
    }
}

/* ---- annotation macros ---- */

static ctxprof_ctx pcc_seen[16];
static int pcc_nseen;
static jmp_buf pcc_jb;

static void pcc_leaf(int depth, int jump)
{
    CTXPROF_PCC_FUNC();
    pcc_seen[pcc_nseen++] = CTXPROF_PCC_HERE(777);
    if (depth > 0)
        CTXPROF_PCC_CALL(1000 + (ctxprof_ctx)depth, pcc_leaf(depth - 1, jump));
    else if (jump)
        longjmp(pcc_jb, 1);
}

/* Nested annotated calls see 3V+cs composed along the path and the caller's
   value is restored after each call; unannotated code is transparent. */
static void pcc_macros(void)
{
    ctxprof_ctx v;
    ctxprof_pcc_tls.v = 5;
    {
        CTXPROF_PCC_FUNC();
        pcc_nseen = 0;
        CTXPROF_PCC_CALL(99, pcc_leaf(2, 0));
        CHECK_EQ(ctxprof_pcc_tls.v, 5);
        v = ctxprof_pcc_next(5, 99);
        CHECK_EQ(pcc_seen[0], ctxprof_pcc_next(v, 777));
        v = ctxprof_pcc_next(v, 1002);
        CHECK_EQ(pcc_seen[1], ctxprof_pcc_next(v, 777));
        v = ctxprof_pcc_next(v, 1001);
        CHECK_EQ(pcc_seen[2], ctxprof_pcc_next(v, 777));
        CHECK_EQ(pcc_nseen, 3);
        /* expression form sets V before the call */
        pcc_nseen = 0;
        CHECK_EQ((CTXPROF_PCC_ARG(42, pcc_leaf(0, 0)), pcc_nseen), 1);
        CHECK_EQ(pcc_seen[0], ctxprof_pcc_next(ctxprof_pcc_next(5, 42), 777));
        CHECK_EQ(CTXPROF_PCC_HERE(7), ctxprof_pcc_next(5, 7));
        CHECK_EQ(ctxprof_pcc_query(7), ctxprof_pcc_next(ctxprof_pcc_tls.v, 7));
        CTXPROF_PCC_RESYNC();
        CHECK_EQ(ctxprof_pcc_tls.v, 5);
    }
    ctxprof_pcc_tls.v = 0;
}

/* longjmp out of nested annotated calls: the catching function's queries
   and calls are right at once; V itself is right after RESYNC. */
static void pcc_longjmp(void)
{
    ctxprof_ctx before;
    volatile int jumped = 0;
    ctxprof_pcc_tls.v = 11;
    {
        CTXPROF_PCC_FUNC();
        before = CTXPROF_PCC_HERE(5);
        pcc_nseen = 0;
        if (setjmp(pcc_jb) == 0) {
            CTXPROF_PCC_CALL(99, pcc_leaf(4, 1));
        } else {
            jumped = 1;
            CHECK_NE(ctxprof_pcc_tls.v, 11); /* the jumping frame's value */
            CHECK_EQ(CTXPROF_PCC_HERE(5), before);
            CTXPROF_PCC_RESYNC();
            CHECK_EQ(ctxprof_pcc_tls.v, 11);
            pcc_nseen = 0;
            CTXPROF_PCC_CALL(99, pcc_leaf(0, 0));
            CHECK_EQ(pcc_seen[0], ctxprof_pcc_next(ctxprof_pcc_next(11, 99), 777));
            CHECK_EQ(ctxprof_pcc_tls.v, 11);
        }
        CHECK(jumped);
        CHECK_EQ(pcc_nseen, 1);
    }
    ctxprof_pcc_tls.v = 0;
}

#if defined(CTXPROF_PCC_HAVE_SCOPE)
static int pcc_scoped(int how)
{
    CTXPROF_PCC_SCOPE();
    (void)CTXPROF_PCC_ARG(3, pcc_leaf(0, 0));
    if (how == 0)
        return 10;
    (void)CTXPROF_PCC_ARG(4, pcc_leaf(0, 0));
    if (how == 1)
        return 11;
    return 12;
}
#endif

/* The scope form restores V at every return. */
static void pcc_scope(void)
{
#if defined(CTXPROF_PCC_HAVE_SCOPE)
    int how;
    for (how = 0; how < 3; how++) {
        ctxprof_pcc_tls.v = 77;
        CHECK_EQ(pcc_scoped(how), 10 + how);
        CHECK_EQ(ctxprof_pcc_tls.v, 77);
    }
    ctxprof_pcc_tls.v = 0;
#else
    SKIP("no __attribute__((cleanup)) in this compiler");
#endif
}

/* An annotated function whose only annotation is its entry (the local is
   then unused), and a scope with no call, compile warning-free with
   -Wall -Wextra -Werror as C99 -pedantic and as C++11. */
static void pcc_func_alone(void)
{
    const char *d = ctxprof_test_tmpdir();
    const char *cxx = strstr(CTXPROF_TEST_CC, "clang") ? "clang++" : "g++";
    char root[1024];
    REQUIRE(getcwd(root, sizeof root));
    REQUIRE_EQ(ctxprof_test_sh("printf '#include \"ctxprof.h\"\\nint f(void);\\n"
                               "int f(void)\\n{\\n    CTXPROF_PCC_FUNC();\\n    return 1;\\n}\\n"
                               "#if defined(CTXPROF_PCC_HAVE_SCOPE)\\nint h(void);\\n"
                               "int h(void)\\n{\\n    CTXPROF_PCC_SCOPE();\\n    return 2;\\n}\\n"
                               "#endif\\n' > %s/alone.c && cp %s/alone.c %s/alone.cpp",
                               d, d, d),
               0);
    CHECK_EQ(ctxprof_test_sh("%s -std=c99 -pedantic -Wall -Wextra -Werror -I%s -c %s/alone.c -o "
                             "%s/alone.o",
                             CTXPROF_TEST_CC, root, d, d),
             0);
    CHECK_EQ(ctxprof_test_sh("%s -std=c++11 -Wall -Wextra -Werror -I%s -c %s/alone.cpp -o "
                             "%s/alone.o",
                             cxx, root, d, d),
             0);
}

/* ---- threads ---- */

#define PCC_NTHREADS 8
static pthread_barrier_t pcc_barrier;

static void pcc_thread_rec(ctxprof_ctx expect, int depth, unsigned id, int *bad)
{
    CTXPROF_PCC_FUNC();
    if (ctxprof__pcc_here != expect)
        (*bad)++;
    if (depth == 0)
        return;
    sched_yield();
    CTXPROF_PCC_CALL(id * 100 + (unsigned)depth,
                     pcc_thread_rec(ctxprof_pcc_next(expect, id * 100 + (unsigned)depth), depth - 1,
                                    id, bad));
    if (ctxprof_pcc_tls.v != expect)
        (*bad)++;
}

static void *pcc_thread_main(void *arg)
{
    unsigned id = (unsigned)(uintptr_t)arg;
    int round, *bad = (int *)calloc(1, sizeof(int));
    ctxprof_pcc_tls.v = id; /* each thread starts from its own value */
    pthread_barrier_wait(&pcc_barrier);
    for (round = 0; round < 200; round++)
        pcc_thread_rec(id, 12, id, bad);
    return bad;
}

/* Threads with interleaved annotated calls never see each other's values. */
static void pcc_threads(void)
{
    pthread_t th[PCC_NTHREADS];
    unsigned i;
    pthread_barrier_init(&pcc_barrier, NULL, PCC_NTHREADS);
    for (i = 0; i < PCC_NTHREADS; i++)
        REQUIRE_EQ(pthread_create(&th[i], NULL, pcc_thread_main, (void *)(uintptr_t)(i + 1)), 0);
    for (i = 0; i < PCC_NTHREADS; i++) {
        void *bad;
        pthread_join(th[i], &bad);
        CHECK_EQ(*(int *)bad, 0);
        free(bad);
    }
    pthread_barrier_destroy(&pcc_barrier);
}

/* ctxprof's implementation in a shared library, annotated code in a PIE:
   built with CTXPROF_TLS_INITIAL_EXEC, the executable and the library use
   one ctxprof_pcc_tls per thread (the library sees the value an annotated
   call set, in two threads); without it the link fails, as THREADS in
   ctxprof.h says. */
static void pcc_tls_shared_lib(void)
{
    const char *d = ctxprof_test_tmpdir();
    char root[1024], out[600];
    unsigned long long seen[2];
    int ok[2];
    FILE *f;
    PLAIN_BUILD_ONLY();
    REQUIRE(getcwd(root, sizeof root));
    snprintf(out, sizeof out, "%s/tls.out", d);
    REQUIRE_EQ(ctxprof_test_sh("%s -std=gnu11 -O2 -fPIC -shared -Wall -Wextra -Werror -I%s "
                               "tests/data/pcc_tls_lib.c -o %s/libpcc_tls.so",
                               CTXPROF_TEST_CC, root, d),
               0);
    REQUIRE_EQ(ctxprof_test_sh("%s -std=gnu11 -O2 -fPIE -pie -Wall -Wextra -Werror "
                               "-DCTXPROF_TLS_INITIAL_EXEC -I%s tests/data/pcc_tls_main.c "
                               "-o %s/tls_main -L%s -lpcc_tls -Wl,-rpath,%s -lpthread && "
                               "%s/tls_main > %s",
                               CTXPROF_TEST_CC, root, d, d, d, d, out),
               0);
    f = fopen(out, "r");
    REQUIRE(f);
    REQUIRE_EQ(fscanf(f, "%llu %d %llu %d", &seen[0], &ok[0], &seen[1], &ok[1]), 4);
    fclose(f);
    CHECK_EQ(seen[0], ctxprof_pcc_next(3, 77));
    CHECK_EQ(seen[1], ctxprof_pcc_next(5, 77));
    CHECK_EQ(ok[0], 1);
    CHECK_EQ(ok[1], 1);
    CHECK_EQ(ctxprof_test_sh("%s -std=gnu11 -O2 -fPIE -pie -I%s tests/data/pcc_tls_main.c "
                             "-o %s/tls_le -L%s -lpcc_tls -lpthread 2>&1 | grep -q TPOFF32",
                             CTXPROF_TEST_CC, root, d, d),
             0);
}

/* ---- conflicts ---- */

static int pcc_cmp32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}
static int pcc_cmp64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* n distinct contexts from random call trees over a pool of 4096 call
   sites (roots use distinct sites, children of one node use distinct
   sites, so every node is a distinct context), then conflicts = n -
   distinct values. The 32-bit
   values are the low halves: 3V+cs modulo 2^32 depends only on them. */
static void pcc_measure_conflicts(size_t n, uint64_t seed, size_t *c32, size_t *c64)
{
    ctxprof_ctx pool[4096];
    uint64_t *v64 = (uint64_t *)malloc(n * sizeof *v64);
    uint32_t *v32 = (uint32_t *)malloc(n * sizeof *v32);
    struct {
        uint64_t v;
        int depth;
    } *stack = malloc(64 * 8 * sizeof *stack);
    size_t count = 0, sp = 0, i, d32 = 0, d64 = 0, roots = 0;
    uint64_t rng = seed;
    for (i = 0; i < 4096; i++)
        pool[i] = ctxprof_pcc_site_id("conflicts.c", (unsigned long)i + 1, 0, seed);
    while (count < n) {
        uint64_t v;
        int depth, k, nchild;
        unsigned used[8];
        if (sp == 0) { /* a new root: a thread start at a site no other root uses */
            stack[sp].v = ctxprof_pcc_site_id("roots.c", (unsigned long)roots++, 0, seed);
            stack[sp++].depth = 1;
        }
        v = stack[--sp].v;
        depth = stack[sp].depth;
        v64[count] = v;
        v32[count++] = (uint32_t)v;
        nchild = depth >= 30 ? 0 : (int)(ctxprof_test_rand(&rng) % 8);
        for (k = 0; k < nchild; k++) {
            int j, dup;
            do {
                used[k] = (unsigned)(ctxprof_test_rand(&rng) % 4096);
                for (dup = 0, j = 0; j < k; j++)
                    dup |= used[j] == used[k];
            } while (dup);
            stack[sp].v = ctxprof_pcc_next((ctxprof_ctx)v, pool[used[k]]);
            stack[sp++].depth = depth + 1;
        }
    }
    qsort(v32, n, sizeof *v32, pcc_cmp32);
    qsort(v64, n, sizeof *v64, pcc_cmp64);
    for (i = 1; i < n; i++) {
        d32 += v32[i] == v32[i - 1];
        d64 += v64[i] == v64[i - 1];
    }
    *c32 = d32;
    *c64 = d64;
    free(v64);
    free(v32);
    free(stack);
}

/* Measured conflicts match E = n - m + m((m-1)/m)^n within 5 standard
   deviations (the count is close to Poisson): paper Table 1. */
static void pcc_conflicts(void)
{
    size_t sizes[2] = {1000000, 10000000}, k, c32, c64;
    for (k = 0; k < 2; k++) {
        double e = ctxprof_pcc_expected_conflicts((double)sizes[k], 32), tol;
        pcc_measure_conflicts(sizes[k], 7 + k, &c32, &c64);
        tol = 5 * __builtin_sqrt(e) + 3;
        printf("  %zu contexts: %zu conflicts in 32 bits (expected %.0f), %zu in 64 bits\n",
               sizes[k], c32, e, c64);
        CHECK_NEAR((double)c32, e, tol);
        CHECK_EQ(c64, 0);
    }
}

/* ---- context sets ---- */

static void pcc_set_basic(void)
{
    ctxprof_pcc_set set;
    ctxprof_pcc_set_desc desc;
    ctxprof_pcc_stats st;
    size_t pos = 0, n = 0;
    ctxprof_ctx v, sum = 0;
    memset(&desc, 0, sizeof desc);
    desc.mode = CTXPROF_PCC_TRAIN;
    REQUIRE_EQ(ctxprof_pcc_set_init(&set, &desc), CTXPROF_OK);
    CHECK_EQ(ctxprof_pcc_set_check(&set, 10, CTXPROF_PCC_LOC), 0); /* new: inserted */
    CHECK_EQ(ctxprof_pcc_set_check(&set, 10, CTXPROF_PCC_LOC), 1);
    CHECK_EQ(ctxprof_pcc_set_check(&set, 0, CTXPROF_PCC_LOC), 0); /* zero is a value too */
    CHECK_EQ(ctxprof_pcc_set_check(&set, 0, CTXPROF_PCC_LOC), 1);
    CHECK_EQ(ctxprof_pcc_set_add(&set, 20), 1);
    CHECK_EQ(ctxprof_pcc_set_add(&set, 20), 0);
    CHECK(ctxprof_pcc_set_contains(&set, 0));
    CHECK(ctxprof_pcc_set_contains(&set, 20));
    CHECK(!ctxprof_pcc_set_contains(&set, 30));
    CHECK_EQ(ctxprof_pcc_set_count(&set), 3);
    while (ctxprof_pcc_set_next(&set, &pos, &v)) {
        n++;
        sum += v;
    }
    CHECK_EQ(n, 3);
    CHECK_EQ(sum, 30);
    ctxprof_pcc_set_mode(&set, CTXPROF_PCC_OFF);
    CHECK_EQ(ctxprof_pcc_set_check(&set, 30, CTXPROF_PCC_LOC), 1);
    CHECK(!ctxprof_pcc_set_contains(&set, 30));
    ctxprof_pcc_set_mode(&set, CTXPROF_PCC_CHECK);
    CHECK_EQ(ctxprof_pcc_set_check(&set, 30, CTXPROF_PCC_LOC), 0);
    CHECK_EQ(ctxprof_pcc_set_check(&set, 30, CTXPROF_PCC_LOC), 0);
    CHECK(!ctxprof_pcc_set_contains(&set, 30)); /* checking never trains */
    ctxprof_pcc_set_stats(&set, &st);
    CHECK_EQ(st.queries, 6);
    CHECK_EQ(st.distinct, 3);
    CHECK_EQ(st.new_seen, 1);
    CHECK_EQ(st.reported, 0); /* no callback installed */
    ctxprof_pcc_set_deinit(&set);
    desc.mode = 7;
    CHECK_EQ(ctxprof_pcc_set_init(&set, &desc), CTXPROF_ERR_INVAL);
    CHECK_CONTAINS(ctxprof_pcc_set_last_error(&set), "mode");
}

/* Growth keeps the table at most half full and every value findable; the
   bound refuses more and counts the drops; the stats carry the expected
   conflicts; a set sized for its expected count never grows. */
static void pcc_set_capacity(void)
{
    ctxprof_pcc_set set;
    ctxprof_pcc_set_desc desc;
    ctxprof_pcc_stats st;
    uint64_t rng = 5;
    ctxprof_ctx vals[5000];
    size_t i;
    memset(&desc, 0, sizeof desc);
    desc.expected = 10;
    desc.max_contexts = 4000;
    desc.mode = CTXPROF_PCC_TRAIN;
    REQUIRE_EQ(ctxprof_pcc_set_init(&set, &desc), CTXPROF_OK);
    for (i = 0; i < 5000; i++) {
        int r;
        vals[i] = (ctxprof_ctx)ctxprof_test_rand(&rng);
        r = ctxprof_pcc_set_add(&set, vals[i]);
        CHECK_EQ(r, i < 4000 ? 1 : CTXPROF_ERR_FULL);
        CHECK_LE(2 * set.table->count, set.table->mask + 1);
    }
    for (i = 0; i < 5000; i++)
        CHECK_EQ(ctxprof_pcc_set_contains(&set, vals[i]), i < 4000);
    /* the check path drops and counts too */
    CHECK_EQ(ctxprof_pcc_set_check(&set, 12345, CTXPROF_PCC_LOC), 0);
    CHECK(!ctxprof_pcc_set_contains(&set, 12345));
    ctxprof_pcc_set_stats(&set, &st);
    CHECK_EQ(st.distinct, 4000);
    CHECK_EQ(st.dropped, 1001);
    /* E = n - m + m((m-1)/m)^n = n(n-1)/2m to a relative 1e-6 for n << m */
    CHECK_NEAR(st.expected_conflicts / (4000.0 * 3999 / 2 / ((double)((ctxprof_ctx)-1) + 1)), 1,
               1e-6);
    ctxprof_pcc_set_deinit(&set);
    /* sized from the expected count: 100,000 values fit at most half full
       without growing (the first table is the only one; the shared empty
       table it replaced is not retired) */
    desc.expected = 100000;
    desc.max_contexts = 0;
    REQUIRE_EQ(ctxprof_pcc_set_init(&set, &desc), CTXPROF_OK);
    for (i = 0; i < 100000; i++) {
        ctxprof_pcc_set_add(&set, (ctxprof_ctx)ctxprof_mix64(i + 1));
        if (i == 0) {
            CHECK_GE(set.table->mask + 1, 200000);
            CHECK_LE(set.table->mask + 1, 4 * 100000);
        }
    }
    ctxprof_pcc_set_stats(&set, &st);
    CHECK_EQ(st.retired_bytes, 0);
    CHECK(set.retired == NULL);
    CHECK_EQ(ctxprof_pcc_set_count(&set), 100000);
    ctxprof_pcc_set_deinit(&set);
}

/* Loads and merges retire the table they replace; ctxprof_pcc_set_reclaim
   frees them. Counted by the allocator hooks of a separate program: a load
   into a new set retires nothing; 10 loads without reclaim keep 10 tables of
   at least 2N slots, exactly what stats.retired_bytes says and reclaim
   returns and frees; with a reclaim after each of 50 loads and merges the
   set never holds more than the largest table (a merge sizes its table for
   the sum of both counts: twice the load's). */
static void pcc_set_reclaim(void)
{
    const char *d = ctxprof_test_tmpdir();
    static const char *const keys[10] = {"table", "retired0", "grow",  "retired", "freed",
                                         "drop",  "max",      "peak",  "after",   "count"};
    unsigned long long v[10];
    const double n = 200000, min_table = 2 * n * sizeof(ctxprof_ctx);
    char root[1024], out[600], key[32];
    FILE *f;
    int k;
    PLAIN_BUILD_ONLY();
    REQUIRE(getcwd(root, sizeof root));
    snprintf(out, sizeof out, "%s/reclaim.out", d);
    REQUIRE_EQ(ctxprof_test_sh("%s -std=gnu11 -O1 -Wall -Wextra -Werror -I%s "
                               "tests/data/pcc_reclaim.c -o %s/reclaim -lpthread -ldl && "
                               "%s/reclaim %s/reclaim.set > %s",
                               CTXPROF_TEST_CC, root, d, d, d, out),
               0);
    f = fopen(out, "r");
    REQUIRE(f);
    for (k = 0; k < 10; k++) {
        REQUIRE_EQ(fscanf(f, "%31s %llu", key, &v[k]), 2);
        REQUIRE(strcmp(key, keys[k]) == 0);
    }
    fclose(f);
    CHECK_GE((double)v[0], min_table);
    CHECK_EQ(v[1], 0);                       /* the empty set's table is not retired */
    CHECK_GE((double)v[2], 10 * min_table); /* without reclaim: 10 old tables kept */
    CHECK_EQ(v[3], v[2]);
    CHECK_EQ(v[4], v[2]);
    CHECK_EQ(v[5], v[2]);                    /* the allocator saw them freed */
    CHECK_LE(v[6], 2 * v[0] + 4096);         /* bounded across 50 loads and merges */
    CHECK_LE(v[7], 4 * v[0] + 4096);
    CHECK_EQ(v[8], 0);
    CHECK_EQ(v[9], 200000);
    printf("  pcc: 50 loads/merges of a 200,000-context file with reclaim: at most %llu KiB "
           "live (peak %llu KiB); 10 loads without: %llu KiB retired\n",
           v[6] / 1024, v[7] / 1024, v[2] / 1024);
}

/* ---- concurrency ---- */

typedef struct pcc_worker {
    ctxprof_pcc_set *set;
    unsigned id;
    int misses; /* trained values a checker did not find */
} pcc_worker;

#define PCC_PER_THREAD 20000
static ctxprof_ctx pcc_value(unsigned thread, unsigned i)
{
    /* overlapping ranges: thread t adds t*10000 .. t*10000+19999 (mixed) */
    return (ctxprof_ctx)ctxprof_mix64((uint64_t)thread * 10000 + i + 1);
}

/* Values inserted before the threads start must be found by a lock-free
   reader at every moment, while the trainers grow the table under it. */
#define PCC_PRELOADED 1000
static void *pcc_reader(void *arg)
{
    pcc_worker *w = (pcc_worker *)arg;
    unsigned i, k;
    pthread_barrier_wait(&pcc_barrier);
    for (k = 0; k < 40; k++)
        for (i = 0; i < PCC_PRELOADED; i++)
            if (!ctxprof_pcc_set_contains(w->set, (ctxprof_ctx)ctxprof_mix64(~(uint64_t)i)))
                w->misses++;
    return NULL;
}

static void *pcc_trainer(void *arg)
{
    pcc_worker *w = (pcc_worker *)arg;
    unsigned i;
    pthread_barrier_wait(&pcc_barrier);
    for (i = 0; i < PCC_PER_THREAD; i++) {
        ctxprof_pcc_set_check(w->set, pcc_value(w->id, i), CTXPROF_PCC_LOC);
        /* what this thread trained is visible to it at once */
        if (!ctxprof_pcc_set_contains(w->set, pcc_value(w->id, i / 2)))
            w->misses++;
    }
    return NULL;
}

/* 8 threads train overlapping ranges at once, through several growths:
   the result is exactly the union, and no thread misses its own values. */
static void pcc_set_concurrent(void)
{
    ctxprof_pcc_set set;
    ctxprof_pcc_set_desc desc;
    ctxprof_pcc_stats st;
    pthread_t th[PCC_NTHREADS];
    pcc_worker w[PCC_NTHREADS + 1];
    pthread_t reader;
    unsigned i, t;
    memset(&desc, 0, sizeof desc);
    desc.expected = 16;
    desc.mode = CTXPROF_PCC_TRAIN;
    REQUIRE_EQ(ctxprof_pcc_set_init(&set, &desc), CTXPROF_OK);
    for (i = 0; i < PCC_PRELOADED; i++)
        ctxprof_pcc_set_add(&set, (ctxprof_ctx)ctxprof_mix64(~(uint64_t)i));
    pthread_barrier_init(&pcc_barrier, NULL, PCC_NTHREADS + 1);
    for (t = 0; t <= PCC_NTHREADS; t++) {
        w[t].set = &set;
        w[t].id = t;
        w[t].misses = 0;
        if (t < PCC_NTHREADS)
            pthread_create(&th[t], NULL, pcc_trainer, &w[t]);
        else
            pthread_create(&reader, NULL, pcc_reader, &w[t]);
    }
    for (t = 0; t < PCC_NTHREADS; t++) {
        pthread_join(th[t], NULL);
        CHECK_EQ(w[t].misses, 0);
    }
    pthread_join(reader, NULL);
    CHECK_EQ(w[PCC_NTHREADS].misses, 0);
    pthread_barrier_destroy(&pcc_barrier);
    CHECK_EQ(ctxprof_pcc_set_count(&set),
             PCC_PRELOADED + 10000 * (PCC_NTHREADS - 1) + PCC_PER_THREAD);
    for (t = 0; t < PCC_NTHREADS; t++)
        for (i = 0; i < PCC_PER_THREAD; i++)
            if (!ctxprof_pcc_set_contains(&set, pcc_value(t, i)))
                CHECK(!"value lost");
    ctxprof_pcc_set_stats(&set, &st);
    CHECK_EQ(st.queries, (uint64_t)PCC_NTHREADS * PCC_PER_THREAD);
    ctxprof_pcc_set_deinit(&set);
}

/* ---- reports ---- */

typedef struct pcc_reports {
    pthread_mutex_t mu;
    int calls;
    ctxprof_ctx values[256];
    char first_bt[4096];
    unsigned line;
} pcc_reports;

static void pcc_on_report(void *user, const ctxprof_pcc_report *r)
{
    pcc_reports *rep = (pcc_reports *)user;
    pthread_mutex_lock(&rep->mu);
    if (rep->calls < 256)
        rep->values[rep->calls] = r->value;
    if (rep->calls == 0) {
        snprintf(rep->first_bt, sizeof rep->first_bt, "%s", r->backtrace);
        rep->line = r->line;
    }
    rep->calls++;
    pthread_mutex_unlock(&rep->mu);
}

typedef struct pcc_checker {
    ctxprof_pcc_set *set;
    unsigned id;
} pcc_checker;

static void *pcc_checker_main(void *arg)
{
    pcc_checker *c = (pcc_checker *)arg;
    unsigned i, k;
    pthread_barrier_wait(&pcc_barrier);
    for (k = 0; k < 50; k++)
        for (i = 0; i < 64; i++) /* 32 trained, 32 new, all threads the same */
            ctxprof_pcc_set_check(c->set, pcc_value(0, (i + c->id + k) % 64), CTXPROF_PCC_LOC);
    return NULL;
}

/* The callback fires exactly once per new context, even when 8 threads hit
   the same new contexts many times at once; trained contexts never. */
static void pcc_report_once(void)
{
    ctxprof_pcc_set set;
    ctxprof_pcc_set_desc desc;
    ctxprof_pcc_stats st;
    pcc_reports rep;
    pthread_t th[PCC_NTHREADS];
    pcc_checker c[PCC_NTHREADS];
    unsigned i, t;
    int j, k;
    memset(&rep, 0, sizeof rep);
    pthread_mutex_init(&rep.mu, NULL);
    memset(&desc, 0, sizeof desc);
    desc.mode = CTXPROF_PCC_TRAIN;
    desc.report = pcc_on_report;
    desc.report_user = &rep;
    desc.reports_per_sec = 1000;
    REQUIRE_EQ(ctxprof_pcc_set_init(&set, &desc), CTXPROF_OK);
    for (i = 0; i < 32; i++)
        ctxprof_pcc_set_add(&set, pcc_value(0, i));
    ctxprof_pcc_set_mode(&set, CTXPROF_PCC_CHECK);
    pthread_barrier_init(&pcc_barrier, NULL, PCC_NTHREADS);
    for (t = 0; t < PCC_NTHREADS; t++) {
        c[t].set = &set;
        c[t].id = t;
        pthread_create(&th[t], NULL, pcc_checker_main, &c[t]);
    }
    for (t = 0; t < PCC_NTHREADS; t++)
        pthread_join(th[t], NULL);
    pthread_barrier_destroy(&pcc_barrier);
    CHECK_EQ(rep.calls, 32);
    for (j = 0; j < rep.calls && j < 256; j++) {
        int found = 0;
        for (i = 32; i < 64; i++)
            found += rep.values[j] == pcc_value(0, i);
        CHECK_EQ(found, 1);
        for (k = 0; k < j; k++)
            CHECK_NE(rep.values[j], rep.values[k]);
    }
    ctxprof_pcc_set_stats(&set, &st);
    CHECK_EQ(st.new_seen, 32);
    CHECK_EQ(st.reported, 32);
    CHECK_EQ(st.suppressed, 0);
    CHECK_EQ(st.queries, (uint64_t)PCC_NTHREADS * 50 * 64);
    /* frame #0 is the function that called the (inline) check */
    CHECK_CONTAINS(rep.first_bt, "#0 0x");
    CHECK_CONTAINS(rep.first_bt, " pcc_checker_main+0x");
    CHECK(strstr(rep.first_bt, "pcc_checker_main") < strstr(rep.first_bt, "#1 "));
    ctxprof_pcc_set_deinit(&set);
    pthread_mutex_destroy(&rep.mu);
}

/* Functions with names of 400 and 1600 characters (C++ template names run
   longer still): a report's text held 256 bytes a frame, so it was cut in
   the middle of a line and lost the outer frames while nframes claimed
   them all. Every frame gets its whole line now; a name over 1024
   characters is cut to end in "...". */
#define PCC_CAT(a, b) a##b
#define PCC_XCAT(a, b) PCC_CAT(a, b)
#define PCC_STR(a) #a
#define PCC_XSTR(a) PCC_STR(a)
#define PCC_N50 abcdefghijklmnopqrstuvwxyz_ABCDEFGHIJKLMNOPQRSTUVW
#define PCC_N100 PCC_XCAT(PCC_N50, PCC_N50)
#define PCC_N200 PCC_XCAT(PCC_N100, PCC_N100)
#define PCC_N400 PCC_XCAT(PCC_N200, PCC_N200)
#define PCC_N800 PCC_XCAT(PCC_N400, PCC_N400)
#define PCC_N1600 PCC_XCAT(PCC_N800, PCC_N800)
#define PCC_LONG(k) PCC_XCAT(pcc_long_##k##_, PCC_N400)
#define PCC_HUGE PCC_XCAT(pcc_huge_, PCC_N1600)

static ctxprof_pcc_set pcc_long_set;
static char *pcc_long_bt;
static size_t pcc_long_nframes;

static void pcc_long_report(void *user, const ctxprof_pcc_report *r)
{
    (void)user;
    free(pcc_long_bt);
    pcc_long_bt = strdup(r->backtrace);
    pcc_long_nframes = r->nframes;
}

static __attribute__((noinline)) void PCC_HUGE(void)
{
    ctxprof_pcc_set_check(&pcc_long_set, 4242, CTXPROF_PCC_LOC);
    __asm__ volatile("");
}
#define PCC_LONG_FN(k, callee)                                                                     \
    static __attribute__((noinline)) void PCC_LONG(k)(void)                                        \
    {                                                                                              \
        callee();                                                                                  \
        __asm__ volatile("");                                                                      \
    }
PCC_LONG_FN(7, PCC_HUGE)
PCC_LONG_FN(6, PCC_LONG(7))
PCC_LONG_FN(5, PCC_LONG(6))
PCC_LONG_FN(4, PCC_LONG(5))
PCC_LONG_FN(3, PCC_LONG(4))
PCC_LONG_FN(2, PCC_LONG(3))
PCC_LONG_FN(1, PCC_LONG(2))
PCC_LONG_FN(0, PCC_LONG(1))

static void pcc_report_long_names(void)
{
    static const char *const names[8] = {
        PCC_XSTR(PCC_LONG(0)), PCC_XSTR(PCC_LONG(1)), PCC_XSTR(PCC_LONG(2)), PCC_XSTR(PCC_LONG(3)),
        PCC_XSTR(PCC_LONG(4)), PCC_XSTR(PCC_LONG(5)), PCC_XSTR(PCC_LONG(6)), PCC_XSTR(PCC_LONG(7))};
    const char *huge = PCC_XSTR(PCC_HUGE), *p, *prev;
    char want[1100];
    ctxprof_pcc_set_desc desc;
    size_t lines = 0, len, k;
    memset(&desc, 0, sizeof desc);
    desc.mode = CTXPROF_PCC_CHECK;
    desc.report = pcc_long_report;
    REQUIRE_EQ(strlen(huge), 1609);
    REQUIRE_EQ(ctxprof_pcc_set_init(&pcc_long_set, &desc), CTXPROF_OK);
    PCC_LONG(0)();
    ctxprof_pcc_set_deinit(&pcc_long_set);
    REQUIRE(pcc_long_bt != NULL);
    len = strlen(pcc_long_bt);
    for (p = pcc_long_bt; *p; p++)
        lines += *p == '\n';
    CHECK_EQ(lines, pcc_long_nframes);
    CHECK_GE(pcc_long_nframes, 10);
    CHECK(len > 0 && pcc_long_bt[len - 1] == '\n');
    /* innermost first: the huge name cut, then the chain outward, then the
       case itself */
    snprintf(want, sizeof want, "#0 0x");
    CHECK(strncmp(pcc_long_bt, want, strlen(want)) == 0);
    snprintf(want, sizeof want, " %.1021s...+0x", huge);
    prev = strstr(pcc_long_bt, want);
    CHECK(prev != NULL);
    for (k = 8; prev && k-- > 0;) {
        snprintf(want, sizeof want, " %s+0x", names[k]);
        p = strstr(pcc_long_bt, want);
        CHECK(p != NULL && p > prev);
        prev = p;
    }
    p = strstr(pcc_long_bt, " pcc_report_long_names+0x");
    CHECK(p != NULL && prev && p > prev);
    free(pcc_long_bt);
    pcc_long_bt = NULL;
}

/* In a forked child that holds the set's lock as a loader or a reporter
   would: checks of a trained context, and of new contexts (one of them 0)
   that were reported before, answer without the lock. A check that took
   it would spin until the child's alarm. */
static int pcc_locked_checks(void *arg, void *shared)
{
    ctxprof_pcc_set *set = (ctxprof_pcc_set *)arg;
    int *seen = (int *)shared, i;
    ctxprof__pcc_lock(set); /* held by this process: not taken over */
    for (i = 0; i < 1000; i++) {
        seen[0] += ctxprof_pcc_set_check(set, 42, CTXPROF_PCC_LOC) == 1;
        seen[1] += ctxprof_pcc_set_check(set, 43, CTXPROF_PCC_LOC) == 0;
        seen[2] += ctxprof_pcc_set_check(set, 0, CTXPROF_PCC_LOC) == 0;
    }
    return 0;
}

static void pcc_check_new_lock_free(void)
{
    ctxprof_pcc_set set;
    ctxprof_pcc_set_desc desc;
    ctxprof_pcc_stats st;
    int *seen = (int *)ctxprof_test_shared(3 * sizeof(int)), sig, rc;
    REQUIRE(seen != NULL);
    memset(&desc, 0, sizeof desc);
    desc.mode = CTXPROF_PCC_CHECK;
    REQUIRE_EQ(ctxprof_pcc_set_init(&set, &desc), CTXPROF_OK);
    REQUIRE_EQ(ctxprof_pcc_set_add(&set, 42), 1);
    CHECK_EQ(ctxprof_pcc_set_check(&set, 43, CTXPROF_PCC_LOC), 0);
    CHECK_EQ(ctxprof_pcc_set_check(&set, 0, CTXPROF_PCC_LOC), 0);
    rc = ctxprof_test_child(pcc_locked_checks, &set, seen, 20, &sig);
    CHECK_EQ(rc, 0);
    CHECK_EQ(sig, 0);
    CHECK_EQ(seen[0], 1000);
    CHECK_EQ(seen[1], 1000);
    CHECK_EQ(seen[2], 1000);
    ctxprof_pcc_set_stats(&set, &st);
    CHECK_EQ(st.new_seen, 2);
    ctxprof_pcc_set_deinit(&set);
    munmap(seen, 3 * sizeof(int));
}

/* fork() while another thread holds the set's lock (an insert, a load, a
   save in progress): the child takes the lock over and trains, saves and
   loads; the parent's holder still owns it in the parent. A child that
   waited for the holder, which does not exist in it, would spin until its
   alarm. */
typedef struct pcc_holder {
    ctxprof_pcc_set *set;
    int held, release;
} pcc_holder;

static void *pcc_hold_lock(void *arg)
{
    pcc_holder *h = (pcc_holder *)arg;
    ctxprof__pcc_lock(h->set);
    __atomic_store_n(&h->held, 1, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&h->release, __ATOMIC_ACQUIRE))
        sched_yield();
    ctxprof__pcc_unlock(h->set);
    return NULL;
}

static int pcc_fork_child_trains(void *arg, void *shared)
{
    ctxprof_pcc_set *set = (ctxprof_pcc_set *)arg;
    char path[256];
    int *out = (int *)shared;
    (void)snprintf(path, sizeof path, "%s/pcc_fork.set", ctxprof_test_tmpdir());
    out[0] = ctxprof_pcc_set_add(set, 43);                                  /* 1: added */
    out[1] = ctxprof_pcc_set_check(set, 44, CTXPROF_PCC_LOC);               /* 0: trained */
    out[2] = ctxprof_pcc_set_save(set, path);                               /* 0: ok */
    out[3] = ctxprof_pcc_set_load(set, path);                               /* 0: ok */
    out[4] = (int)ctxprof_pcc_set_count(set);                               /* 3 */
    return 0;
}

static void pcc_fork_takes_over_lock(void)
{
    ctxprof_pcc_set set;
    ctxprof_pcc_set_desc desc;
    pcc_holder h;
    pthread_t th;
    int *out = (int *)ctxprof_test_shared(5 * sizeof(int)), sig, rc;
    REQUIRE(out != NULL);
    memset(&desc, 0, sizeof desc);
    desc.mode = CTXPROF_PCC_TRAIN;
    REQUIRE_EQ(ctxprof_pcc_set_init(&set, &desc), CTXPROF_OK);
    REQUIRE_EQ(ctxprof_pcc_set_add(&set, 42), 1);
    memset(&h, 0, sizeof h);
    h.set = &set;
    REQUIRE_EQ(pthread_create(&th, NULL, pcc_hold_lock, &h), 0);
    while (!__atomic_load_n(&h.held, __ATOMIC_ACQUIRE))
        sched_yield();
    memset(out, -1, 5 * sizeof(int));
    rc = ctxprof_test_child(pcc_fork_child_trains, &set, out, 20, &sig);
    CHECK_EQ(rc, 0);
    CHECK_EQ(sig, 0);
    CHECK_EQ(out[0], 1);
    CHECK_EQ(out[1], 0);
    CHECK_EQ(out[2], CTXPROF_OK);
    CHECK_EQ(out[3], CTXPROF_OK);
    CHECK_EQ(out[4], 3);
    /* the parent's lock is still the holder's; the child's values are not here */
    CHECK(__atomic_load_n(&set.lock, __ATOMIC_RELAXED) != 0);
    __atomic_store_n(&h.release, 1, __ATOMIC_RELEASE);
    pthread_join(th, NULL);
    CHECK_EQ(ctxprof_pcc_set_count(&set), 1);
    CHECK_EQ(ctxprof_pcc_set_add(&set, 43), 1);
    ctxprof_pcc_set_deinit(&set);
    munmap(out, 5 * sizeof(int));
}

/* While one thread replaces the set again and again, alternately from a
   file of 10 values and 0 (11 contexts) and a file of 20 values without 0,
   readers always see one set or the other, never the new table with the
   old set's 0 (10 or 21 contexts). Probabilistic against the old order,
   which stored the value 0's flag after publishing the table. */
static void pcc_set_fill(ctxprof_pcc_set *set, uint64_t seed, int n, int zero);
typedef struct pcc_swap {
    ctxprof_pcc_set *set;
    const char *files[2];
    int done, loads_failed;
    long odd, reads;
} pcc_swap;

static void *pcc_swap_loader(void *arg)
{
    pcc_swap *w = (pcc_swap *)arg;
    int i;
    for (i = 0; i < 2000; i++)
        w->loads_failed += ctxprof_pcc_set_load(w->set, w->files[i % 2]) != CTXPROF_OK;
    __atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
    return NULL;
}

static void pcc_zero_with_table(void)
{
    const char *d = ctxprof_test_tmpdir();
    char pa[512], pb[512];
    ctxprof_pcc_set a, b, set;
    pcc_swap w;
    pthread_t th;
    unsigned i;
    snprintf(pa, sizeof pa, "%s/zero_a.set", d);
    snprintf(pb, sizeof pb, "%s/zero_b.set", d);
    pcc_set_fill(&a, 0, 0, 1);
    pcc_set_fill(&b, 0, 0, 0);
    for (i = 1; i <= 20; i++) {
        if (i <= 10)
            ctxprof_pcc_set_add(&a, i);
        ctxprof_pcc_set_add(&b, 100 + i);
    }
    REQUIRE_EQ(ctxprof_pcc_set_save(&a, pa), CTXPROF_OK);
    REQUIRE_EQ(ctxprof_pcc_set_save(&b, pb), CTXPROF_OK);
    pcc_set_fill(&set, 0, 0, 0);
    memset(&w, 0, sizeof w);
    w.set = &set;
    w.files[0] = pa;
    w.files[1] = pb;
    REQUIRE_EQ(pthread_create(&th, NULL, pcc_swap_loader, &w), 0);
    do { /* at least once, even if the loader ran to its end before this thread did */
        size_t n = ctxprof_pcc_set_count(&set);
        w.odd += n != 0 && n != 11 && n != 20;
        w.reads++;
    } while (!__atomic_load_n(&w.done, __ATOMIC_ACQUIRE));
    pthread_join(th, NULL);
    CHECK_EQ(w.loads_failed, 0);
    CHECK_EQ(w.odd, 0);
    CHECK_GE(w.reads, 1);
    CHECK_EQ(ctxprof_pcc_set_count(&set), 20);
    ctxprof_pcc_set_deinit(&a);
    ctxprof_pcc_set_deinit(&b);
    ctxprof_pcc_set_deinit(&set);
}

/* Training and checking at once: in CHECK mode, two threads add values
   (ctxprof_pcc_set_add, growing the table several times) and one merges a
   set file again and again (each merge publishes a new table) while four
   threads check. A trained context is found at every moment, each of the
   never-trained contexts is reported exactly once, and at the end the set
   is exactly the union. */
#define PCC_TWC_PRE 2000  /* trained before the threads start */
#define PCC_TWC_ADD 20000 /* added by each of the two trainers */
#define PCC_TWC_FILE 5000 /* in the merged file */
#define PCC_TWC_NEW 200   /* never trained: checked by every checker */
typedef struct pcc_twc {
    ctxprof_pcc_set *set;
    const char *file;
    unsigned id;
    int role; /* 0 checker, 1 trainer, 2 merger */
    int misses, bad_rc;
} pcc_twc;

static ctxprof_ctx pcc_twc_value(unsigned kind, unsigned i)
{
    return (ctxprof_ctx)ctxprof_mix64(((uint64_t)kind << 32) + i + 1);
}

static void *pcc_twc_main(void *arg)
{
    pcc_twc *w = (pcc_twc *)arg;
    unsigned i, k;
    pthread_barrier_wait(&pcc_barrier);
    if (w->role == 1) {
        for (i = 0; i < PCC_TWC_ADD; i++)
            if (ctxprof_pcc_set_add(w->set, pcc_twc_value(w->id - 3, i)) != 1) /* kinds 1, 2 */
                w->bad_rc++;
    } else if (w->role == 2) {
        for (k = 0; k < 6; k++)
            if (ctxprof_pcc_set_merge(w->set, w->file) != CTXPROF_OK)
                w->bad_rc++;
    } else {
        for (k = 0; k < 30; k++) {
            for (i = 0; i < PCC_TWC_PRE; i++)
                if (ctxprof_pcc_set_check(w->set, pcc_twc_value(0, i), CTXPROF_PCC_LOC) != 1)
                    w->misses++;
            for (i = 0; i < PCC_TWC_NEW; i++)
                if (ctxprof_pcc_set_check(w->set, pcc_twc_value(9, (i + w->id * 7) % PCC_TWC_NEW),
                                          CTXPROF_PCC_LOC) != 0)
                    w->bad_rc++;
        }
    }
    return NULL;
}

static void pcc_train_while_checking(void)
{
    ctxprof_pcc_set set, file_set;
    ctxprof_pcc_set_desc desc;
    ctxprof_pcc_stats st;
    pcc_reports rep;
    pthread_t th[7];
    pcc_twc w[7];
    char path[512];
    unsigned i, t;
    int j, k;
    snprintf(path, sizeof path, "%s/twc.set", ctxprof_test_tmpdir());
    pcc_set_fill(&file_set, 0, 0, 0);
    for (i = 0; i < PCC_TWC_FILE; i++)
        ctxprof_pcc_set_add(&file_set, pcc_twc_value(5, i));
    REQUIRE_EQ(ctxprof_pcc_set_save(&file_set, path), CTXPROF_OK);
    ctxprof_pcc_set_deinit(&file_set);
    memset(&rep, 0, sizeof rep);
    pthread_mutex_init(&rep.mu, NULL);
    memset(&desc, 0, sizeof desc);
    desc.expected = 64;
    desc.mode = CTXPROF_PCC_CHECK;
    desc.report = pcc_on_report;
    desc.report_user = &rep;
    desc.reports_per_sec = 1000000;
    REQUIRE_EQ(ctxprof_pcc_set_init(&set, &desc), CTXPROF_OK);
    for (i = 0; i < PCC_TWC_PRE; i++)
        ctxprof_pcc_set_add(&set, pcc_twc_value(0, i));
    pthread_barrier_init(&pcc_barrier, NULL, 7);
    for (t = 0; t < 7; t++) {
        memset(&w[t], 0, sizeof w[t]);
        w[t].set = &set;
        w[t].file = path;
        w[t].id = t;
        w[t].role = t < 4 ? 0 : t < 6 ? 1 : 2;
        REQUIRE_EQ(pthread_create(&th[t], NULL, pcc_twc_main, &w[t]), 0);
    }
    for (t = 0; t < 7; t++) {
        pthread_join(th[t], NULL);
        CHECK_EQ(w[t].misses, 0);
        CHECK_EQ(w[t].bad_rc, 0);
    }
    pthread_barrier_destroy(&pcc_barrier);
    CHECK_EQ(rep.calls, PCC_TWC_NEW);
    for (j = 0; j < rep.calls && j < 256; j++) {
        int found = 0;
        for (i = 0; i < PCC_TWC_NEW; i++)
            found += rep.values[j] == pcc_twc_value(9, i);
        CHECK_EQ(found, 1);
        for (k = 0; k < j; k++)
            CHECK_NE(rep.values[j], rep.values[k]);
    }
    CHECK_EQ(ctxprof_pcc_set_count(&set), PCC_TWC_PRE + 2 * PCC_TWC_ADD + PCC_TWC_FILE);
    for (t = 1; t <= 2; t++)
        for (i = 0; i < PCC_TWC_ADD; i++)
            if (!ctxprof_pcc_set_contains(&set, pcc_twc_value(t, i)))
                CHECK(!"trained value lost");
    for (i = 0; i < PCC_TWC_NEW; i++)
        CHECK(!ctxprof_pcc_set_contains(&set, pcc_twc_value(9, i))); /* checking never trains */
    ctxprof_pcc_set_stats(&set, &st);
    CHECK_EQ(st.new_seen, PCC_TWC_NEW);
    CHECK_EQ(st.reported, PCC_TWC_NEW);
    CHECK_EQ(st.queries, 4ull * 30 * (PCC_TWC_PRE + PCC_TWC_NEW));
    CHECK_LE(2 * set.table->count, set.table->mask + 1);
    ctxprof_pcc_set_deinit(&set);
    pthread_mutex_destroy(&rep.mu);
}

/* The rate limiter's clock, driven by the test. */
static uint64_t pcc_fake_ns;
static uint64_t pcc_fake_clock(void)
{
    return pcc_fake_ns;
}

/* Checks `n` never-seen contexts from `first` on; returns how many of them
   were reported. */
static int pcc_new_contexts(ctxprof_pcc_set *set, pcc_reports *rep, unsigned first, unsigned n)
{
    int before = rep->calls;
    unsigned i;
    for (i = 0; i < n; i++)
        CHECK_EQ(ctxprof_pcc_set_check(set, first + i, CTXPROF_PCC_LOC), 0);
    return rep->calls - before;
}

/* The rate limit at 5 reports a second, on a clock the test drives: a
   burst of 5 goes through at one instant and the rest is counted as
   suppressed and never reported later; a stopped clock refills nothing;
   450 ms refill 2.25 reports' worth (2 reports); a long pause refills one
   burst, not more. */
static void pcc_report_rate_limit(void)
{
    ctxprof_pcc_set set;
    ctxprof_pcc_set_desc desc;
    ctxprof_pcc_stats st;
    pcc_reports rep;
    memset(&rep, 0, sizeof rep);
    pthread_mutex_init(&rep.mu, NULL);
    memset(&desc, 0, sizeof desc);
    desc.mode = CTXPROF_PCC_CHECK;
    desc.report = pcc_on_report;
    desc.report_user = &rep;
    desc.reports_per_sec = 5;
    REQUIRE_EQ(ctxprof_pcc_set_init(&set, &desc), CTXPROF_OK);
    pcc_fake_ns = 1000 * 1000000000ull;
    ctxprof__pcc_clock = pcc_fake_clock;
    CHECK_EQ(pcc_new_contexts(&set, &rep, 1000, 100), 5);
    CHECK_EQ((unsigned)rep.values[0], 1000);
    CHECK_EQ((unsigned)rep.values[4], 1004);
    CHECK_EQ(pcc_new_contexts(&set, &rep, 1000, 100), 0); /* seen: not reported again */
    CHECK_EQ(pcc_new_contexts(&set, &rep, 4000, 1), 0);   /* no time passed, no budget */
    pcc_fake_ns += 450 * 1000000ull;
    CHECK_EQ(pcc_new_contexts(&set, &rep, 5000, 3), 2);
    CHECK_EQ((unsigned)rep.values[rep.calls - 2], 5000);
    CHECK_EQ((unsigned)rep.values[rep.calls - 1], 5001);
    /* the refilled budget does not resurrect the suppressed contexts */
    pcc_fake_ns += 450 * 1000000ull;
    CHECK_EQ(pcc_new_contexts(&set, &rep, 1000, 100), 0);
    CHECK_EQ(pcc_new_contexts(&set, &rep, 5000, 3), 0);
    pcc_fake_ns += 10 * 1000000000ull; /* ten seconds' worth: still one burst */
    CHECK_EQ(pcc_new_contexts(&set, &rep, 6000, 10), 5);
    ctxprof_pcc_set_stats(&set, &st);
    CHECK_EQ(st.new_seen, 100 + 1 + 3 + 10);
    CHECK_EQ(st.reported, 5 + 2 + 5);
    CHECK_EQ(st.suppressed, 95 + 1 + 1 + 5);
    CHECK_EQ(st.reported, (uint64_t)rep.calls);
    ctxprof__pcc_clock = ctxprof__now_ns_default;
    ctxprof_pcc_set_deinit(&set);
    pthread_mutex_destroy(&rep.mu);
}

/* ---- files ---- */

static void pcc_set_fill(ctxprof_pcc_set *set, uint64_t seed, int n, int zero)
{
    ctxprof_pcc_set_desc desc;
    uint64_t rng = seed;
    int i;
    memset(&desc, 0, sizeof desc);
    desc.mode = CTXPROF_PCC_TRAIN;
    ctxprof_pcc_set_init(set, &desc);
    for (i = 0; i < n; i++)
        ctxprof_pcc_set_add(set, (ctxprof_ctx)ctxprof_test_rand(&rng));
    if (zero)
        ctxprof_pcc_set_add(set, 0);
}

/* ctxprof_pcc_set_next across a replacement of the table (growth by an
   add, a load): the walk went on in the new table at the old position, so
   values present all along were skipped or returned twice. It starts over
   on the new table now: after the change, every value of the set comes
   exactly once, so none present throughout is missed. */
static void pcc_set_next_growth(void)
{
    static const size_t at[4] = {0, 1, 15, 29};
    char path[512];
    size_t a;
    snprintf(path, sizeof path, "%s/next.set", ctxprof_test_tmpdir());
    for (a = 0; a < 5; a++) {
        ctxprof_pcc_set s, f;
        ctxprof_pcc_set_desc desc;
        ctxprof_ctx v, vals[71];
        unsigned char after[71];
        size_t pos = 0, k = 0, n = 30, i, missed = 0, twice = 0, stray = 0;
        memset(&desc, 0, sizeof desc);
        desc.expected = 16; /* 64 slots: 30 values fit, 70 make it grow */
        REQUIRE_EQ(ctxprof_pcc_set_init(&s, &desc), CTXPROF_OK);
        for (i = 0; i < 30; i++)
            ctxprof_pcc_set_add(&s, vals[i] = (ctxprof_ctx)ctxprof_mix64(i + 1));
        if (a == 4) { /* a load: other values, the same zero */
            pcc_set_fill(&f, 77, 40, 1);
            REQUIRE_EQ(ctxprof_pcc_set_save(&f, path), CTXPROF_OK);
            ctxprof_pcc_set_add(&s, 0);
        }
        memset(after, 0, sizeof after);
        while (ctxprof_pcc_set_next(&s, &pos, &v)) {
            int found = 0;
            if (k > (a < 4 ? at[a] : 10)) {
                for (i = 0; i < n; i++)
                    if (vals[i] == v) {
                        after[i]++;
                        found = 1;
                    }
                stray += !found;
            }
            if (k++ == (a < 4 ? at[a] : 10)) {
                if (a < 4) {
                    for (i = 30; i < 70; i++)
                        ctxprof_pcc_set_add(&s, vals[i] = (ctxprof_ctx)ctxprof_mix64(i + 1000));
                    n = 70;
                } else {
                    size_t p2 = 0;
                    REQUIRE_EQ(ctxprof_pcc_set_load(&s, path), CTXPROF_OK);
                    for (n = 0; n < 71 && ctxprof_pcc_set_next(&f, &p2, &v); n++)
                        vals[n] = v;
                    REQUIRE_EQ(n, 41);
                }
            }
            REQUIRE(k < 1000);
        }
        for (i = 0; i < n; i++) {
            missed += after[i] == 0;
            twice += after[i] > 1;
        }
        CHECK_EQ(missed, 0);
        CHECK_EQ(twice, 0);
        CHECK_EQ(stray, 0);
        CHECK_EQ(k, (a < 4 ? at[a] : 10) + 1 + n);
        ctxprof_pcc_set_deinit(&s);
        if (a == 4)
            ctxprof_pcc_set_deinit(&f);
    }
}

/* Same contents as a reference set, value by value. */
static int pcc_set_equal(const ctxprof_pcc_set *a, const ctxprof_pcc_set *b)
{
    size_t pos = 0;
    ctxprof_ctx v;
    if (ctxprof_pcc_set_count(a) != ctxprof_pcc_set_count(b))
        return 0;
    while (ctxprof_pcc_set_next(a, &pos, &v))
        if (!ctxprof_pcc_set_contains(b, v))
            return 0;
    return 1;
}

static void pcc_set_files(void)
{
    ctxprof_pcc_set a, b, c, ref;
    char pa[512], pb[512], pm[512];
    const char *d = ctxprof_test_tmpdir();
    ctxprof_ctx v;
    size_t pos = 0;
    snprintf(pa, sizeof pa, "%s/a.set", d);
    snprintf(pb, sizeof pb, "%s/b.set", d);
    snprintf(pm, sizeof pm, "%s/m.set", d);
    pcc_set_fill(&a, 1, 3000, 1);
    pcc_set_fill(&b, 2, 2000, 0);
    ctxprof_pcc_set_add(&b, 77); /* shared with c below */
    REQUIRE_EQ(ctxprof_pcc_set_save(&a, pa), CTXPROF_OK);
    REQUIRE_EQ(ctxprof_pcc_set_save(&b, pb), CTXPROF_OK);
    /* load replaces */
    pcc_set_fill(&c, 3, 10, 0);
    REQUIRE_EQ(ctxprof_pcc_set_load(&c, pa), CTXPROF_OK);
    CHECK(pcc_set_equal(&c, &a));
    /* merge adds: the union */
    REQUIRE_EQ(ctxprof_pcc_set_merge(&c, pb), CTXPROF_OK);
    CHECK_EQ(ctxprof_pcc_set_count(&c), 3001 + 2001);
    while (ctxprof_pcc_set_next(&a, &pos, &v))
        CHECK(ctxprof_pcc_set_contains(&c, v));
    pos = 0;
    while (ctxprof_pcc_set_next(&b, &pos, &v))
        CHECK(ctxprof_pcc_set_contains(&c, v));
    /* equal sets give byte-identical files whatever their history */
    REQUIRE_EQ(ctxprof_pcc_set_save(&c, pm), CTXPROF_OK);
    pcc_set_fill(&ref, 2, 2000, 0);
    ctxprof_pcc_set_add(&ref, 77);
    REQUIRE_EQ(ctxprof_pcc_set_merge(&ref, pa), CTXPROF_OK);
    REQUIRE_EQ(ctxprof_pcc_set_save(&ref, pa), CTXPROF_OK);
    CHECK_EQ(ctxprof_test_sh("cmp -s %s %s", pa, pm), 0);
    ctxprof_pcc_set_deinit(&ref);
    ctxprof_pcc_set_deinit(&a);
    ctxprof_pcc_set_deinit(&b);
    ctxprof_pcc_set_deinit(&c);
}

/* Writes a damaged file as is (no fsync: hundreds of them per test). */
static int pcc_write_raw(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    if (len && fwrite(data, 1, len, f) != len) {
        fclose(f);
        return -1;
    }
    return fclose(f);
}

/* Every truncation, every flipped byte, another bit width or seed, and a
   missing file are refused with a message; the set keeps its contents. */
/* A set used before its init (a zeroed static one): reads as empty,
   refuses every change with a message, never crashes. */
static void pcc_set_uninit(void)
{
    static ctxprof_pcc_set s;
    ctxprof_pcc_stats st;
    ctxprof_ctx v = 0;
    size_t pos = 0;
    char path[600];
    snprintf(path, sizeof path, "%s/uninit.set", ctxprof_test_tmpdir());
    CHECK_EQ(ctxprof_pcc_set_add(&s, 42), CTXPROF_ERR_INVAL);
    CHECK_CONTAINS(ctxprof_pcc_set_last_error(&s), "not initialised");
    CHECK_EQ(ctxprof_pcc_set_save(&s, path), CTXPROF_ERR_INVAL);
    CHECK_NE(access(path, F_OK), 0);
    CHECK_EQ(ctxprof_pcc_set_load(&s, path), CTXPROF_ERR_INVAL);
    CHECK_EQ(ctxprof_pcc_set_merge(&s, path), CTXPROF_ERR_INVAL);
    ctxprof_pcc_set_mode(&s, CTXPROF_PCC_CHECK); /* refused: stays OFF */
    CHECK_EQ(ctxprof_pcc_set_check(&s, 42, "x.c", 1), 1);
    CHECK_EQ(ctxprof_pcc_set_contains(&s, 42), 0);
    CHECK_EQ(ctxprof_pcc_set_count(&s), 0);
    CHECK_EQ(ctxprof_pcc_set_next(&s, &pos, &v), 0);
    ctxprof_pcc_set_stats(&s, &st);
    CHECK_EQ(st.distinct, 0);
    CHECK_EQ(st.queries, 0);
    CHECK_EQ(ctxprof_pcc_set_reclaim(&s), 0);
    ctxprof_pcc_set_deinit(&s);
    /* then initialised: works */
    REQUIRE_EQ(ctxprof_pcc_set_init(&s, NULL), CTXPROF_OK);
    CHECK_EQ(ctxprof_pcc_set_add(&s, 42), 1);
    CHECK_EQ(ctxprof_pcc_set_save(&s, path), CTXPROF_OK);
    ctxprof_pcc_set_deinit(&s);
}

/* A second init of a live set is refused and keeps its contents (it
   would drop them and leak the tables); garbage (a stack set never
   initialised), a zeroed, a deinited and a failed-init set all initialise. */
static void pcc_set_double_init(void)
{
    static ctxprof_pcc_set s;
    ctxprof_pcc_set g;
    ctxprof_pcc_set_desc desc;
    ctxprof_ctx i;
    uint64_t rng = 11;
    size_t k;
    REQUIRE_EQ(ctxprof_pcc_set_init(&s, NULL), CTXPROF_OK);
    for (i = 1; i < 5000; i++)
        CHECK_EQ(ctxprof_pcc_set_add(&s, i), 1);
    CHECK_EQ(ctxprof_pcc_set_init(&s, NULL), CTXPROF_ERR_INVAL);
    CHECK_CONTAINS(ctxprof_pcc_set_last_error(&s), "already initialised: ctxprof_pcc_set_deinit");
    CHECK_EQ(ctxprof_pcc_set_count(&s), 4999);
    CHECK(ctxprof_pcc_set_contains(&s, 4999));
    CHECK_EQ(ctxprof_pcc_set_add(&s, 5000), 1); /* still live */
    ctxprof_pcc_set_deinit(&s);
    REQUIRE_EQ(ctxprof_pcc_set_init(&s, NULL), CTXPROF_OK); /* deinited: fine */
    CHECK_EQ(ctxprof_pcc_set_count(&s), 0);
    ctxprof_pcc_set_deinit(&s);
    for (k = 0; k < 3; k++) { /* garbage */
        size_t j;
        for (j = 0; j < sizeof g; j++)
            ((unsigned char *)&g)[j] =
                k == 0 ? 0xA5 : k == 1 ? 0xFF : (unsigned char)ctxprof_test_rand(&rng);
        REQUIRE_EQ(ctxprof_pcc_set_init(&g, NULL), CTXPROF_OK);
        CHECK_EQ(ctxprof_pcc_set_count(&g), 0);
        CHECK_EQ(ctxprof_pcc_set_add(&g, 7), 1);
        ctxprof_pcc_set_deinit(&g);
    }
    /* a failed init leaves the set not initialised: init again works */
    memset(&desc, 0, sizeof desc);
    desc.mode = 7;
    CHECK_EQ(ctxprof_pcc_set_init(&s, &desc), CTXPROF_ERR_INVAL);
    CHECK_CONTAINS(ctxprof_pcc_set_last_error(&s), "unknown mode 7");
    CHECK_EQ(ctxprof_pcc_set_add(&s, 1), CTXPROF_ERR_INVAL);
    CHECK_CONTAINS(ctxprof_pcc_set_last_error(&s), "not initialised");
    desc.mode = CTXPROF_PCC_TRAIN;
    REQUIRE_EQ(ctxprof_pcc_set_init(&s, &desc), CTXPROF_OK);
    CHECK_STR(ctxprof_pcc_set_last_error(&s), "ok"); /* init resets the record */
    CHECK_EQ(ctxprof_pcc_set_check(&s, 3, "x.c", 1), 0);
    CHECK_EQ(ctxprof_pcc_set_count(&s), 1);
    ctxprof_pcc_set_deinit(&s);
}

/* An unknown mode is refused: the mode stays and the set's error record
   says so; a later success leaves that record (the set's most recent
   failure). */
static void pcc_set_mode_unknown(void)
{
    ctxprof_pcc_set s;
    ctxprof_pcc_set_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.mode = CTXPROF_PCC_TRAIN;
    REQUIRE_EQ(ctxprof_pcc_set_init(&s, &desc), CTXPROF_OK);
    CHECK_STR(ctxprof_pcc_set_last_error(&s), "ok");
    ctxprof_pcc_set_mode(&s, 7);
    CHECK_CONTAINS(ctxprof_pcc_set_last_error(&s), "unknown mode 7");
    CHECK_EQ(s.err.status, CTXPROF_ERR_INVAL);
    CHECK_EQ(s.mode, CTXPROF_PCC_TRAIN);
    CHECK_EQ(ctxprof_pcc_set_check(&s, 5, "x.c", 1), 0); /* still training */
    CHECK(ctxprof_pcc_set_contains(&s, 5));
    ctxprof_pcc_set_mode(&s, -1);
    CHECK_CONTAINS(ctxprof_pcc_set_last_error(&s), "unknown mode -1");
    ctxprof_pcc_set_mode(&s, CTXPROF_PCC_CHECK);
    CHECK_EQ(s.mode, CTXPROF_PCC_CHECK);
    CHECK_CONTAINS(ctxprof_pcc_set_last_error(&s), "unknown mode -1"); /* kept */
    ctxprof_pcc_set_deinit(&s);
    /* NULL desc: every default, mode OFF: checks record nothing */
    REQUIRE_EQ(ctxprof_pcc_set_init(&s, NULL), CTXPROF_OK);
    CHECK_EQ(s.mode, CTXPROF_PCC_OFF);
    CHECK_EQ(ctxprof_pcc_set_check(&s, 5, "x.c", 1), 1);
    CHECK_EQ(ctxprof_pcc_set_count(&s), 0);
    ctxprof_pcc_set_deinit(&s);
}

static void pcc_set_bad_files(void)
{
    ctxprof_pcc_set s, ref;
    char path[512], bad[512];
    const char *d = ctxprof_test_tmpdir();
    char *img;
    size_t len, i;
    ctxprof_error e;
    snprintf(path, sizeof path, "%s/good.set", d);
    snprintf(bad, sizeof bad, "%s/bad.set", d);
    pcc_set_fill(&s, 9, 40, 0);
    REQUIRE_EQ(ctxprof_pcc_set_save(&s, path), CTXPROF_OK);
    REQUIRE_EQ(ctxprof__read_file(path, &img, &len, NULL, &e), CTXPROF_OK);
    pcc_set_fill(&ref, 10, 25, 1);
    ctxprof_pcc_set_deinit(&s);
    pcc_set_fill(&s, 10, 25, 1);
    for (i = 0; i < len; i++) { /* truncated at every length */
        int st;
        REQUIRE_EQ(pcc_write_raw(bad, img, i), 0);
        st = ctxprof_pcc_set_load(&s, bad);
        CHECK_EQ(st, CTXPROF_ERR_CORRUPT);
        st = ctxprof_pcc_set_merge(&s, bad);
        CHECK_EQ(st, CTXPROF_ERR_CORRUPT);
    }
    CHECK_CONTAINS(ctxprof_pcc_set_last_error(&s), "bad.set");
    for (i = 0; i < len; i++) { /* one byte flipped anywhere */
        int st;
        img[i] = (char)(img[i] ^ 0x40);
        REQUIRE_EQ(pcc_write_raw(bad, img, len), 0);
        st = ctxprof_pcc_set_load(&s, bad);
        CHECK(st == CTXPROF_ERR_CORRUPT || st == CTXPROF_ERR_MISMATCH);
        img[i] = (char)(img[i] ^ 0x40);
    }
    CHECK(pcc_set_equal(&s, &ref));
    {
        /* a well-formed file made with 32-bit values, another seed, a
           newer hash: each refused as a mismatch, naming the cause */
        unsigned char blob[CTXPROF__BLOB_HDR + 8];
        uint64_t params[3][4] = {{32, CTXPROF_SITE_SEED, 1, 2},
                                 {64, (uint64_t)CTXPROF_SITE_SEED + 1, 1, 1},
                                 {64, CTXPROF_SITE_SEED, 2, 1}};
        int k;
        memset(blob, 0, sizeof blob);
        blob[CTXPROF__BLOB_HDR] = 1;
        blob[CTXPROF__BLOB_HDR + 4] = 2;
        for (k = 0; k < 3; k++) {
            ctxprof__blob_seal(blob, CTXPROF__KIND_PCC_SET, params[k], 8);
            REQUIRE_EQ(pcc_write_raw(bad, blob, sizeof blob), 0);
            CHECK_EQ(ctxprof_pcc_set_load(&s, bad), CTXPROF_ERR_MISMATCH);
            CHECK_CONTAINS(ctxprof_pcc_set_last_error(&s), "this build uses");
        }
    }
    {
        /* well-formed containers (checksum right) whose contents are wrong */
        static const struct {
            uint32_t kind, version;
            uint64_t params[4]; /* bits, seed, site version, count */
            unsigned width, n;  /* payload: n values of `width` bytes */
            uint64_t vals[3];
            int status;
            const char *msg;
        } cases[] = {
            {1, 1, {64, CTXPROF_SITE_SEED, 1, 3}, 8, 3, {5, 3, 9}, CTXPROF_ERR_CORRUPT,
             "values out of order at 1"},
            {1, 1, {64, CTXPROF_SITE_SEED, 1, 2}, 8, 2, {5, 5, 0}, CTXPROF_ERR_CORRUPT,
             "values out of order at 1"},
            {1, 1, {64, CTXPROF_SITE_SEED, 1, 3}, 8, 2, {1, 2, 0}, CTXPROF_ERR_CORRUPT,
             "3 values do not fill 16 bytes"},
            {1, 1, {64, CTXPROF_SITE_SEED, 1, 1}, 8, 2, {1, 2, 0}, CTXPROF_ERR_CORRUPT,
             "1 values do not fill 16 bytes"},
            {1, 1, {64, CTXPROF_SITE_SEED, 1, 2}, 4, 3, {1, 2, 3}, CTXPROF_ERR_CORRUPT,
             "2 values do not fill 12 bytes"},
            {1, 1, {16, CTXPROF_SITE_SEED, 1, 2}, 2, 2, {1, 2, 0}, CTXPROF_ERR_CORRUPT,
             "16-bit values"},
            /* a version past 32 bits whose low half is this build's */
            {1, 1, {64, CTXPROF_SITE_SEED, (1ull << 32) | CTXPROF_PCC_SITE_VERSION, 1}, 8, 1,
             {1, 0, 0}, CTXPROF_ERR_CORRUPT, "site hash version 4294967"},
            {1, 2, {64, CTXPROF_SITE_SEED, 1, 1}, 8, 1, {1, 0, 0}, CTXPROF_ERR_MISMATCH,
             "container version 2, this library reads 1"},
            {2, 1, {64, CTXPROF_SITE_SEED, 1, 1}, 8, 1, {1, 0, 0}, CTXPROF_ERR_MISMATCH,
             "file holds kind 2, expected 1"},
        };
        size_t k;
        for (k = 0; k < sizeof cases / sizeof cases[0]; k++) {
            unsigned char blob[CTXPROF__BLOB_HDR + 24];
            size_t plen = (size_t)cases[k].width * cases[k].n, j, b;
            memset(blob, 0, sizeof blob);
            for (j = 0; j < cases[k].n; j++)
                for (b = 0; b < cases[k].width; b++)
                    blob[CTXPROF__BLOB_HDR + j * cases[k].width + b] =
                        (unsigned char)(cases[k].vals[j] >> (8 * b));
            ctxprof__blob_seal(blob, cases[k].kind, cases[k].params, plen);
            if (cases[k].version != CTXPROF__BLOB_VERSION) { /* a newer writer, sealed right */
                ctxprof__put64(blob + 8, cases[k].version | (uint64_t)cases[k].kind << 32);
                ctxprof__put64(blob + 56, ctxprof__blob_sum(blob, blob + CTXPROF__BLOB_HDR, plen,
                                                            cases[k].kind));
            }
            REQUIRE_EQ(pcc_write_raw(bad, blob, CTXPROF__BLOB_HDR + plen), 0);
            CHECK_EQ(ctxprof_pcc_set_load(&s, bad), cases[k].status);
            CHECK_CONTAINS(ctxprof_pcc_set_last_error(&s), cases[k].msg);
            CHECK_CONTAINS(ctxprof_pcc_set_last_error(&s), "bad.set");
            CHECK_EQ(ctxprof_pcc_set_merge(&s, bad), cases[k].status);
        }
    }
    /* a byte after the payload the header announces */
    {
        FILE *f = fopen(bad, "wb");
        REQUIRE(f);
        REQUIRE_EQ(fwrite(img, 1, len, f), len);
        fputc(0, f);
        fclose(f);
        CHECK_EQ(ctxprof_pcc_set_load(&s, bad), CTXPROF_ERR_CORRUPT);
        CHECK_CONTAINS(ctxprof_pcc_set_last_error(&s), "(data after it)");
    }
    /* an empty file, a directory */
    REQUIRE_EQ(pcc_write_raw(bad, "", 0), 0);
    CHECK_EQ(ctxprof_pcc_set_load(&s, bad), CTXPROF_ERR_CORRUPT);
    CHECK_CONTAINS(ctxprof_pcc_set_last_error(&s), "bad.set: truncated header");
    CHECK_EQ(ctxprof_pcc_set_load(&s, d), CTXPROF_ERR_SYS);
    CHECK_CONTAINS(ctxprof_pcc_set_last_error(&s), "read failed: Is a directory");
    CHECK_EQ(ctxprof_pcc_set_load(&s, "/nonexistent.set"), CTXPROF_ERR_SYS);
    CHECK_CONTAINS(ctxprof_pcc_set_last_error(&s), "No such file");
    CHECK_EQ(ctxprof_pcc_set_load(&s, "Makefile"), CTXPROF_ERR_CORRUPT);
    CHECK_CONTAINS(ctxprof_pcc_set_last_error(&s), "not a ctxprof file");
    CHECK(pcc_set_equal(&s, &ref));
    /* a file larger than the set's bound */
    {
        ctxprof_pcc_set small;
        ctxprof_pcc_set_desc desc;
        memset(&desc, 0, sizeof desc);
        desc.max_contexts = 10;
        REQUIRE_EQ(ctxprof_pcc_set_init(&small, &desc), CTXPROF_OK);
        ctxprof_pcc_set_add(&small, 5);
        CHECK_EQ(ctxprof_pcc_set_load(&small, path), CTXPROF_ERR_FULL);
        CHECK_CONTAINS(ctxprof_pcc_set_last_error(&small), "bound is 10");
        CHECK_EQ(ctxprof_pcc_set_count(&small), 1);
        CHECK(ctxprof_pcc_set_contains(&small, 5));
        ctxprof_pcc_set_deinit(&small);
    }
    free(img);
    ctxprof_pcc_set_deinit(&s);
    ctxprof_pcc_set_deinit(&ref);
}

/* A 32-bit file cannot hold a value of 2^32 or more: the writer refuses it
   (it cut such values: the file had other values, or was refused as out of
   order) and writes nothing; values that fit go through. */
static void pcc_file_write_bits32(void)
{
    uint64_t wide[2] = {0x100000005ull, 0x200000003ull}, one = 0xdeadbeef00000001ull;
    uint64_t fit[2] = {5, 0xFFFFFFFFull};
    ctxprof_pcc_file f, g;
    ctxprof_error e;
    char path[512];
    snprintf(path, sizeof path, "%s/w32.set", ctxprof_test_tmpdir());
    memset(&f, 0, sizeof f);
    memset(&g, 0, sizeof g);
    memset(&e, 0, sizeof e);
    f.bits = 32;
    f.site_version = 3;
    f.count = 2;
    f.values = wide;
    CHECK_EQ(ctxprof_pcc_file_write(&f, path, &e), CTXPROF_ERR_INVAL);
    CHECK_CONTAINS(ctxprof_error_message(&e), "w32.set: value 0x200000003 does not fit in 32 bits");
    CHECK_NE(access(path, F_OK), 0);
    f.count = 1;
    f.values = &one;
    CHECK_EQ(ctxprof_pcc_file_write(&f, path, &e), CTXPROF_ERR_INVAL);
    CHECK_CONTAINS(ctxprof_error_message(&e), "0xdeadbeef00000001 does not fit");
    CHECK_NE(access(path, F_OK), 0);
    f.count = 2;
    f.values = fit;
    REQUIRE_EQ(ctxprof_pcc_file_write(&f, path, &e), CTXPROF_OK);
    CHECK_EQ(e.status, CTXPROF_OK); /* an argument record describes its call alone */
    CHECK_STR(e.detail, "");
    CHECK_EQ(ctxprof_pcc_file_read(&g, "/nonexistent/x.set", &e), CTXPROF_ERR_SYS);
    REQUIRE_EQ(ctxprof_pcc_file_read(&g, path, &e), CTXPROF_OK);
    CHECK_EQ(e.status, CTXPROF_OK);
    CHECK_EQ(e.sys_errno, 0);
    CHECK_STR(e.detail, "");
    CHECK_EQ(g.bits, 32);
    REQUIRE_EQ(g.count, 2);
    CHECK_EQ(g.values[0], 5);
    CHECK_EQ(g.values[1], 0xFFFFFFFFull);
    ctxprof_pcc_file_free(&g);
}

/* With standard input closed (a daemon), the file a load opens gets fd 0:
   it was taken for standard input and never closed. Every reader closes
   what it opened, and still leaves a real standard input open. */
static void pcc_set_load_fd0(void)
{
    ctxprof_pcc_set s, t;
    ctxprof_pcc_file f;
    ctxprof_error e;
    char path[512], *text = NULL;
    size_t len = 0;
    int saved;
    snprintf(path, sizeof path, "%s/fd0.set", ctxprof_test_tmpdir());
    pcc_set_fill(&s, 41, 10, 0);
    REQUIRE_EQ(ctxprof_pcc_set_save(&s, path), CTXPROF_OK);
    REQUIRE_EQ(ctxprof_pcc_set_init(&t, NULL), CTXPROF_OK);
    memset(&f, 0, sizeof f);
    saved = dup(0); /* -1 if the tests run without standard input */
    close(0);
    CHECK_EQ(ctxprof_pcc_set_load(&t, path), CTXPROF_OK);
    CHECK_EQ(fcntl(0, F_GETFD), -1); /* closed again */
    CHECK_EQ(ctxprof_pcc_set_merge(&t, path), CTXPROF_OK);
    CHECK_EQ(fcntl(0, F_GETFD), -1);
    CHECK_EQ(ctxprof_pcc_file_read(&f, path, &e), CTXPROF_OK);
    CHECK_EQ(fcntl(0, F_GETFD), -1);
    CHECK_EQ(ctxprof_pcc_set_load(&t, "Makefile"), CTXPROF_ERR_CORRUPT); /* an error path */
    CHECK_EQ(fcntl(0, F_GETFD), -1);
    CHECK_EQ(ctxprof__read_file("Makefile", &text, &len, NULL, &e), CTXPROF_OK);
    CHECK_EQ(fcntl(0, F_GETFD), -1);
    free(text);
    text = NULL;
    /* "-" with standard input open: read, and left open */
    close(0); /* (what a reader left open) */
    CHECK_EQ(open(path, O_RDONLY), 0);
    CHECK_EQ(ctxprof_pcc_set_load(&t, "-"), CTXPROF_OK);
    CHECK_NE(fcntl(0, F_GETFD), -1);
    CHECK_EQ(lseek(0, 0, SEEK_SET), 0);
    CHECK_EQ(ctxprof__read_file("-", &text, &len, NULL, &e), CTXPROF_OK);
    CHECK_NE(fcntl(0, F_GETFD), -1);
    free(text);
    if (saved >= 0) {
        dup2(saved, 0);
        close(saved);
    } else {
        close(0);
    }
    CHECK(pcc_set_equal(&t, &s));
    CHECK_EQ(f.count, 10);
    ctxprof_pcc_file_free(&f);
    ctxprof_pcc_set_deinit(&s);
    ctxprof_pcc_set_deinit(&t);
}

/* A header that announces a payload no buffer can hold: refused unread,
   with the size the file really has (the message said 0 bytes), or from a
   pipe with the announced length alone. */
static void pcc_set_huge_length(void)
{
    ctxprof_pcc_set s;
    ctxprof_pcc_file f;
    ctxprof_error e;
    char path[512], out[512], want[200];
    unsigned char *img;
    size_t len;
    const char *d = ctxprof_test_tmpdir();
    snprintf(path, sizeof path, "%s/huge.set", d);
    snprintf(out, sizeof out, "%s/huge.out", d);
    pcc_set_fill(&s, 42, 10, 0);
    REQUIRE_EQ(ctxprof_pcc_set_save(&s, path), CTXPROF_OK);
    img = ctxprof_test_slurp(path, &len);
    REQUIRE(img != NULL);
    REQUIRE_EQ(len, CTXPROF__BLOB_HDR + 80);
    ctxprof__put64(img + 48, 0x7fffffffffffffffull);
    REQUIRE_EQ(pcc_write_raw(path, img, len), 0);
    memset(&f, 0, sizeof f);
    memset(&e, 0, sizeof e);
    CHECK_EQ(ctxprof_pcc_file_read(&f, path, &e), CTXPROF_ERR_CORRUPT);
    CHECK_CONTAINS(ctxprof_error_message(&e),
                   "huge.set: payload is 80 bytes, header says 9223372036854775807 (truncated?)");
    CHECK_EQ(ctxprof_pcc_set_load(&s, path), CTXPROF_ERR_CORRUPT);
    CHECK_CONTAINS(ctxprof_pcc_set_last_error(&s), "payload is 80 bytes");
    CHECK_EQ(ctxprof_pcc_set_count(&s), 10);
    /* from a pipe: its size is unknown */
    CHECK_EQ(ctxprof_test_sh("cat %s | build/ctxprof-set info - 2> %s", path, out), 1);
    snprintf(want, sizeof want,
             "ctxprof-set: -: header says the payload is 9223372036854775807 bytes, more than "
             "can be read");
    CHECK_EQ(ctxprof_test_sh("grep -qxF '%s' %s", want, out), 0);
    free(img);
    ctxprof_pcc_set_deinit(&s);
}

/* The ctxprof-set tool reports, merges and compares files as the library
   sees them; incompatible files are refused. */
static void pcc_tool(void)
{
    ctxprof_pcc_set a, b, u;
    char pa[512], pb[512], pu[512], out[512], line[256], want[128];
    const char *d = ctxprof_test_tmpdir();
    FILE *f;
    size_t pos = 0, common = 0;
    ctxprof_ctx v;
    unsigned long long only_a, only_b, comm;
    snprintf(pa, sizeof pa, "%s/ta.set", d);
    snprintf(pb, sizeof pb, "%s/tb.set", d);
    snprintf(pu, sizeof pu, "%s/tu.set", d);
    snprintf(out, sizeof out, "%s/tool.out", d);
    pcc_set_fill(&a, 21, 500, 1);
    pcc_set_fill(&b, 22, 300, 0);
    for (pos = 0; pos < 40; pos++) /* 40 shared values */
        ctxprof_pcc_set_add(&b, (ctxprof_ctx)ctxprof_mix64(pos + 100));
    for (pos = 0; pos < 40; pos++)
        ctxprof_pcc_set_add(&a, (ctxprof_ctx)ctxprof_mix64(pos + 100));
    REQUIRE_EQ(ctxprof_pcc_set_save(&a, pa), CTXPROF_OK);
    REQUIRE_EQ(ctxprof_pcc_set_save(&b, pb), CTXPROF_OK);
    pos = 0;
    while (ctxprof_pcc_set_next(&a, &pos, &v))
        common += (size_t)ctxprof_pcc_set_contains(&b, v);
    CHECK_EQ(ctxprof_test_sh("build/ctxprof-set info %s > %s", pa, out), 0);
    f = fopen(out, "r");
    REQUIRE(f);
    REQUIRE(fgets(line, sizeof line, f));
    fclose(f);
    snprintf(want, sizeof want, "bits=64 seed=0 site_version=%d contexts=541 ",
             CTXPROF_PCC_SITE_VERSION);
    CHECK_CONTAINS(line, want);
    {
        /* E = n(n-1)/2m to many digits when n << m (m = 2^64) */
        const char *e = strstr(line, "expected_conflicts=");
        double got = 0, exact = 541.0 * 540 / 2 / 18446744073709551616.0;
        REQUIRE(e != NULL);
        REQUIRE_EQ(sscanf(e, "expected_conflicts=%lf", &got), 1);
        CHECK_NEAR(got / exact, 1, 0.01);
    }
    /* list: every value, ascending, each in the set that was saved */
    CHECK_EQ(ctxprof_test_sh("build/ctxprof-set list %s > %s", pa, out), 0);
    f = fopen(out, "r");
    REQUIRE(f);
    {
        unsigned long long x, prev = 0;
        size_t n = 0;
        while (fscanf(f, "%llx", &x) == 1) {
            CHECK(ctxprof_pcc_set_contains(&a, (ctxprof_ctx)x));
            CHECK(n == 0 || x > prev);
            prev = x;
            n++;
        }
        CHECK_EQ(n, ctxprof_pcc_set_count(&a));
    }
    fclose(f);
    CHECK_EQ(ctxprof_test_sh("build/ctxprof-set diff %s %s > %s", pa, pb, out), 1);
    f = fopen(out, "r");
    REQUIRE(f);
    REQUIRE_EQ(fscanf(f, "only_a=%llu only_b=%llu common=%llu", &only_a, &only_b, &comm), 3);
    fclose(f);
    CHECK_EQ(comm, common);
    CHECK_EQ(only_a, ctxprof_pcc_set_count(&a) - common);
    CHECK_EQ(only_b, ctxprof_pcc_set_count(&b) - common);
    CHECK_EQ(ctxprof_test_sh("build/ctxprof-set merge -o %s %s %s > /dev/null", pu, pa, pb), 0);
    pcc_set_fill(&u, 23, 0, 0);
    REQUIRE_EQ(ctxprof_pcc_set_load(&u, pu), CTXPROF_OK);
    CHECK_EQ(ctxprof_pcc_set_count(&u), only_a + only_b + comm);
    REQUIRE_EQ(ctxprof_pcc_set_merge(&a, pb), CTXPROF_OK);
    CHECK(pcc_set_equal(&u, &a));
    CHECK_EQ(ctxprof_test_sh("build/ctxprof-set diff %s %s > /dev/null", pu, pu), 0);
    /* a file from another build (other seed) is refused by merge and diff */
    {
        ctxprof_pcc_file pf;
        ctxprof_error e;
        memset(&pf, 0, sizeof pf);
        REQUIRE_EQ(ctxprof_pcc_file_read(&pf, pb, &e), CTXPROF_OK);
        pf.seed = 99;
        REQUIRE_EQ(ctxprof_pcc_file_write(&pf, pb, &e), CTXPROF_OK);
        ctxprof_pcc_file_free(&pf);
    }
    CHECK_EQ(ctxprof_test_sh("build/ctxprof-set merge -o %s %s %s 2> %s", pu, pa, pb, out), 1);
    CHECK_EQ(ctxprof_test_sh("grep -q 'incompatible builds' %s", out), 0);
    /* diff, like cmp: 1 only for "they differ", 2 for trouble */
    CHECK_EQ(ctxprof_test_sh("build/ctxprof-set diff %s %s > /dev/null 2> %s", pa, pb, out), 2);
    CHECK_EQ(ctxprof_test_sh("grep -q 'incompatible builds' %s", out), 0);
    CHECK_EQ(ctxprof_test_sh("build/ctxprof-set diff %s %s/missing.set 2> /dev/null", pa, d), 2);
    CHECK_EQ(ctxprof_test_sh("build/ctxprof-set diff %s 2> /dev/null", pa), 2);
    CHECK_EQ(ctxprof_test_sh("build/ctxprof-set info Makefile 2> %s", out), 1);
    CHECK_EQ(ctxprof_test_sh("grep -q 'Makefile: not a ctxprof file' %s", out), 0);
    { /* usage errors say what is wrong, then the usage */
        static const char *const cases[][2] = {
            {"bogus", "unknown command bogus"},
            {"", "no command"},
            {"merge %s", "merge: no output: -o OUT (- for standard output)"},
            {"merge -o x.set", "merge: no input file"},
            {"info", "info: no file"},
            {"list %s %s", "list takes one file"},
            {"diff %s", "diff takes two files (and --list)"},
        };
        size_t k;
        for (k = 0; k < sizeof cases / sizeof cases[0]; k++) {
            char args[1200];
            snprintf(args, sizeof args, cases[k][0], pa, pa);
            CHECK_EQ(ctxprof_test_sh("build/ctxprof-set %s > /dev/null 2> %s", args, out), 2);
            CHECK_EQ(ctxprof_test_sh("head -n 1 %s | grep -qxF 'ctxprof-set: %s' && "
                                     "grep -q '^usage:' %s",
                                     out, cases[k][1], out),
                     0);
        }
    }
    /* "-o" at the end is a usage error, not an input named -o */
    CHECK_EQ(ctxprof_test_sh("build/ctxprof-set merge %s -o > /dev/null 2> %s", pa, out), 2);
    CHECK_EQ(ctxprof_test_sh("grep -q -- '-o needs a file' %s", out), 0);
    /* endless input is refused after its header, in bounded memory (the
       old reader took /dev/zero until it ran out) */
    CHECK_EQ(ctxprof_test_sh("(ulimit -v 400000; build/ctxprof-set info /dev/zero) 2> %s", out), 1);
    CHECK_EQ(ctxprof_test_sh("grep -q '/dev/zero: not a ctxprof file' %s", out), 0);
    CHECK_EQ(ctxprof_test_sh("(ulimit -v 400000; cat %s /dev/zero | build/ctxprof-set info -) "
                             "2> %s",
                             pa, out),
             1);
    CHECK_EQ(ctxprof_test_sh("grep -q -- '-: payload is at least' %s", out), 0);
    CHECK_EQ(ctxprof_test_sh("build/ctxprof-set info - < %s | grep -q 'contexts=541 '", pa), 0);
    CHECK_EQ(ctxprof_test_sh("build/ctxprof-set --help | grep -q 'list FILE'"), 0);
    CHECK_EQ(ctxprof_test_sh("build/ctxprof-set --help | grep -q 'expected_conflicts'"), 0);
    /* output lost to a full disk is an I/O error, not a result: diff's 1
       would read as "they differ", info's and list's 0 as a whole listing */
    CHECK_EQ(ctxprof_test_sh("build/ctxprof-set info %s > /dev/full 2> %s", pa, out), 2);
    CHECK_EQ(ctxprof_test_sh("grep -qx 'ctxprof-set: writing standard output: No space left on "
                             "device' %s",
                             out),
             0);
    CHECK_EQ(ctxprof_test_sh("build/ctxprof-set list %s > /dev/full 2> /dev/null", pa), 2);
    CHECK_EQ(ctxprof_test_sh("build/ctxprof-set diff %s %s --list > /dev/full 2> /dev/null", pa, pu),
             2);
    CHECK_EQ(ctxprof_test_sh("build/ctxprof-set diff %s %s --list > /dev/null", pa, pu), 1);
    ctxprof_pcc_set_deinit(&a);
    ctxprof_pcc_set_deinit(&b);
    ctxprof_pcc_set_deinit(&u);
}

/* "-" as an output is standard output, as it is standard input to the
   readers and stdout to ctxprof-gen -o: ctxprof_pcc_set_save, and
   ctxprof-set merge -o - (its summary then on standard error). Both made a
   file named "-". */
static void pcc_set_save_stdout(void)
{
    ctxprof_pcc_set a, b, back;
    char pa[512], pb[512], po[512], err[512], dash[512], root[1024];
    const char *d = ctxprof_test_tmpdir();
    int saved, fd;
    REQUIRE(getcwd(root, sizeof root) != NULL);
    snprintf(pa, sizeof pa, "%s/sa.set", d);
    snprintf(pb, sizeof pb, "%s/sb.set", d);
    snprintf(po, sizeof po, "%s/sout.set", d);
    snprintf(err, sizeof err, "%s/sout.err", d);
    snprintf(dash, sizeof dash, "%s/-", d);
    pcc_set_fill(&a, 51, 100, 1);
    pcc_set_fill(&b, 52, 50, 0);
    REQUIRE_EQ(ctxprof_pcc_set_save(&a, pa), CTXPROF_OK);
    REQUIRE_EQ(ctxprof_pcc_set_save(&b, pb), CTXPROF_OK);
    /* the library, in a directory where a file "-" would land */
    fflush(stdout);
    saved = dup(1);
    fd = open(po, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    REQUIRE(saved >= 0 && fd >= 0);
    dup2(fd, 1);
    close(fd);
    if (chdir(d) == 0) {
        CHECK_EQ(ctxprof_pcc_set_save(&a, "-"), CTXPROF_OK);
        CHECK_EQ(chdir(root), 0);
    }
    dup2(saved, 1);
    close(saved);
    CHECK_NE(access(dash, F_OK), 0);
    pcc_set_fill(&back, 53, 3, 0);
    CHECK_EQ(ctxprof_pcc_set_load(&back, po), CTXPROF_OK);
    CHECK(pcc_set_equal(&back, &a));
    /* the tool: the union on stdout, the summary on stderr */
    unlink(po);
    CHECK_EQ(ctxprof_test_sh("cd %s && %s/build/ctxprof-set merge -o - sa.set sb.set > sout.set "
                             "2> sout.err",
                             d, root),
             0);
    CHECK_NE(access(dash, F_OK), 0);
    CHECK_EQ(ctxprof_pcc_set_merge(&a, pb), CTXPROF_OK);
    CHECK_EQ(ctxprof_pcc_set_load(&back, po), CTXPROF_OK);
    CHECK(pcc_set_equal(&back, &a));
    CHECK_EQ(ctxprof_test_sh("grep -qx 'file=- contexts=%zu' %s", ctxprof_pcc_set_count(&a), err),
             0);
    CHECK_EQ(ctxprof_test_sh("cd %s && %s/build/ctxprof-set merge -o - sa.set > /dev/full 2> %s", d,
                             root, err),
             2);
    /* in the words the EXIT STATUS section gives (it said "<stdout>: write failed") */
    CHECK_EQ(ctxprof_test_sh("grep -qx 'ctxprof-set: writing standard output: No space left on "
                             "device' %s",
                             err),
             0);
    ctxprof_pcc_set_deinit(&a);
    ctxprof_pcc_set_deinit(&b);
    ctxprof_pcc_set_deinit(&back);
}

/* The anomaly example: silent on normal input, exactly one report (with
   the handler chain in its backtrace) on input reaching the legacy path.
   The runs work in the test's directory (they save minikv-demo.db there). */
static void pcc_example(void)
{
    const char *d = ctxprof_test_tmpdir();
    char kv[700], ex[700], set_tool[700], cwd[512];
    REQUIRE(getcwd(cwd, sizeof cwd) != NULL);
    snprintf(kv, sizeof kv, "%s/build/examples/anomaly/minikv", cwd);
    snprintf(ex, sizeof ex, "%s/examples/anomaly", cwd);
    snprintf(set_tool, sizeof set_tool, "%s/build/ctxprof-set", cwd);
    REQUIRE_EQ(ctxprof_test_sh("cd %s && %s --train kv1.set %s/train1.txt > /dev/null 2>&1 && "
                               "%s --train kv2.set %s/train2.txt > /dev/null 2>&1 && "
                               "%s merge -o kv.set kv1.set kv2.set > /dev/null",
                               d, kv, ex, kv, ex, set_tool),
               0);
    CHECK_EQ(ctxprof_test_sh("cd %s && %s --check kv.set %s/normal.txt 2>&1 >/dev/null | "
                             "grep -c ANOMALY > n0; grep -qx 0 n0",
                             d, kv, ex),
             0);
    CHECK_EQ(ctxprof_test_sh("cd %s && %s --check kv.set %s/attack.txt 2> rep > /dev/null && "
                             "grep -c ANOMALY rep | grep -qx 1",
                             d, kv, ex),
             0);
    CHECK_EQ(ctxprof_test_sh("cd %s && grep -q ' resolve_indirect' rep && grep -q ' cmd_get+' rep "
                             "&& grep -q 'minikv.c:41 was never seen' rep",
                             d),
             0);
    /* without the merged second run, `load` is new as well */
    CHECK_EQ(ctxprof_test_sh("cd %s && %s --check kv1.set %s/normal.txt 2>&1 >/dev/null | "
                             "grep -c ANOMALY | grep -qx 2",
                             d, kv, ex),
             0);
    /* the demo script runs as `make demo` runs it */
    CHECK_EQ(ctxprof_test_sh("sh examples/anomaly/demo.sh > %s/demo.out 2>&1 && "
                             "grep -c ANOMALY %s/demo.out | grep -qx 1",
                             d, d),
             0);
}

/* A 32-bit build trains, saves and reloads, and refuses a 64-bit file. */
static void pcc_bits32(void)
{
    const char *d = ctxprof_test_tmpdir();
    ctxprof_pcc_set s;
    char p64[512];
    PLAIN_BUILD_ONLY();
    snprintf(p64, sizeof p64, "%s/w64.set", d);
    pcc_set_fill(&s, 31, 10, 0);
    REQUIRE_EQ(ctxprof_pcc_set_save(&s, p64), CTXPROF_OK);
    ctxprof_pcc_set_deinit(&s);
    REQUIRE_EQ(ctxprof_test_sh("%s -std=gnu11 -O1 -Wall -Wextra -Werror -DCTXPROF_CTX_BITS=32 -I. "
                               "tests/data/pcc_bits32.c -o %s/bits32 -lpthread",
                               CTXPROF_TEST_CC, d),
               0);
    CHECK_EQ(ctxprof_test_sh("%s/bits32 %s/w32.set %s | grep -qx ok", d, d, p64), 0);
    CHECK_EQ(ctxprof_test_sh("build/ctxprof-set info %s/w32.set | grep -q 'bits=32 .*contexts=1000'",
                             d),
             0);
    /* 1000 * 999 / 2 / 2^32 = 0.0001163 expected conflicts */
    CHECK_EQ(ctxprof_test_sh("build/ctxprof-set info %s/w32.set | grep -q "
                             "'expected_conflicts=0.000116$'",
                             d),
             0);
}

/* ---- robustness: file faults and bounds ---- */

static int pcc_fault_save(void *arg, const char *path, char *msg, size_t cap)
{
    ctxprof_pcc_set *s = (ctxprof_pcc_set *)arg;
    return ctxprof_test_saved(ctxprof_pcc_set_save(s, path), s->err.detail, msg, cap);
}

static int pcc_fault_file_write(void *arg, const char *path, char *msg, size_t cap)
{
    ctxprof_error e;
    memset(&e, 0, sizeof e);
    return ctxprof_test_saved(ctxprof_pcc_file_write((const ctxprof_pcc_file *)arg, path, &e),
                              e.detail, msg, cap);
}

/* Saving a set (and the raw writer ctxprof-set uses) over an existing file:
   cut at every byte offset, on a full disk, into /dev/full. Every failure
   says why and leaves the old file whole; it still loads. */
static void pcc_robust_files(void)
{
    ctxprof_pcc_set old, next, back;
    ctxprof_pcc_file f;
    ctxprof_error e;
    char path[512], fs[512];
    const char *d = ctxprof_test_tmpdir();
    size_t cut;
    unsigned full;
    snprintf(path, sizeof path, "%s/fault.set", d);
    snprintf(fs, sizeof fs, "%s/fault-fs", d);
    memset(&e, 0, sizeof e);
    memset(&f, 0, sizeof f);
    pcc_set_fill(&old, 11, 40, 0);
    pcc_set_fill(&next, 12, 300, 1);
    REQUIRE_EQ(ctxprof_pcc_set_save(&old, path), CTXPROF_OK);
    cut = ctxprof_test_torn_writes(path, pcc_fault_save, &next);
    CHECK_EQ(cut, CTXPROF__BLOB_HDR + 301 * 8);
    pcc_set_fill(&back, 13, 5, 0);
    REQUIRE_EQ(ctxprof_pcc_set_load(&back, path), CTXPROF_OK);
    CHECK(pcc_set_equal(&back, &next));
    REQUIRE_EQ(ctxprof_pcc_file_read(&f, path, &e), CTXPROF_OK);
    REQUIRE_EQ(ctxprof_pcc_set_save(&old, path), CTXPROF_OK);
    cut += ctxprof_test_torn_writes(path, pcc_fault_file_write, &f);
    CHECK_EQ(cut, 2 * (CTXPROF__BLOB_HDR + 301 * 8));
    /* a full disk, with a new file of two pages: an in-place writer would
       free the old file's page and fail half-way through */
    ctxprof_pcc_set_deinit(&next);
    pcc_set_fill(&next, 14, 1000, 0);
    REQUIRE_EQ(ctxprof_pcc_set_save(&old, path), CTXPROF_OK);
    full = ctxprof_test_disk_full(fs, path, pcc_fault_save, &next);
    REQUIRE_EQ(ctxprof_pcc_set_load(&back, path), CTXPROF_OK);
    CHECK(pcc_set_equal(&back, &old));
    printf("  pcc: set file writes cut at %zu offsets, %u saves refused by a full disk\n", cut,
           full);
    CHECK_EQ(ctxprof_pcc_set_save(&next, "/dev/full"), CTXPROF_ERR_SYS);
    CHECK_CONTAINS(ctxprof_pcc_set_last_error(&next), "/dev/full");
    CHECK_CONTAINS(ctxprof_pcc_set_last_error(&next), strerror(ENOSPC));
    ctxprof_pcc_file_free(&f);
    ctxprof_pcc_set_deinit(&old);
    ctxprof_pcc_set_deinit(&next);
    ctxprof_pcc_set_deinit(&back);
}

static void pcc_flood_report(void *user, const ctxprof_pcc_report *r)
{
    (void)r;
    (*(unsigned *)user)++;
}

/* An adversarial stream where every context is new: training stops at
   max_contexts, checking remembers at most max_reported new contexts (each
   reported once), everything refused is counted, and the heap stops
   growing at the bounds. */
static void pcc_robust_bounds(void)
{
    ctxprof_pcc_set s;
    ctxprof_pcc_set_desc desc;
    ctxprof_pcc_stats st;
    uint64_t rng = 99, first;
    unsigned calls = 0;
    size_t heap, i;
    memset(&desc, 0, sizeof desc);
    desc.expected = 16;
    desc.max_contexts = 5000;
    desc.max_reported = 300;
    desc.mode = CTXPROF_PCC_TRAIN;
    desc.report = pcc_flood_report;
    desc.report_user = &calls;
    desc.reports_per_sec = 1000000;
    REQUIRE_EQ(ctxprof_pcc_set_init(&s, &desc), CTXPROF_OK);
    heap = ctxprof_test_heap_bytes();
    for (i = 0; i < 200000; i++)
        ctxprof_pcc_set_check(&s, (ctxprof_ctx)ctxprof_test_rand(&rng), CTXPROF_PCC_LOC);
    ctxprof_pcc_set_stats(&s, &st);
    CHECK_EQ(st.queries, 200000);
    CHECK_EQ(st.distinct, 5000);
    CHECK_EQ(st.dropped, 195000);
    /* at most half full: 16384 slots for 5000, and the tables it replaced */
    CHECK_HEAP_GREW_AT_MOST(heap, 2 * 16384 * sizeof(ctxprof_ctx) + 8192);
    ctxprof_pcc_set_mode(&s, CTXPROF_PCC_CHECK);
    first = rng;
    ctxprof_pcc_set_check(&s, (ctxprof_ctx)ctxprof_test_rand(&rng), CTXPROF_PCC_LOC);
    heap = ctxprof_test_heap_bytes(); /* after the symbol table of the first report */
    for (i = 1; i < 100000; i++)
        ctxprof_pcc_set_check(&s, (ctxprof_ctx)ctxprof_test_rand(&rng), CTXPROF_PCC_LOC);
    rng = first; /* the same stream again: nothing new is remembered or reported */
    for (i = 0; i < 100000; i++)
        ctxprof_pcc_set_check(&s, (ctxprof_ctx)ctxprof_test_rand(&rng), CTXPROF_PCC_LOC);
    ctxprof_pcc_set_stats(&s, &st);
    CHECK_EQ(st.distinct, 5000);
    CHECK_EQ(st.new_seen, 300);
    CHECK_EQ(calls, 300);
    CHECK_EQ(st.reported, 300);
    CHECK_EQ(st.dropped, 195000 + 2 * (100000 - 300));
    CHECK_HEAP_GREW_AT_MOST(heap, 2 * 1024 * sizeof(ctxprof_ctx) + 4096);
    printf("  pcc: 200000 new contexts trained, 100000 checked twice: %llu stored (max_contexts "
           "5000), %llu remembered to report (max_reported 300), %llu dropped and counted\n",
           (unsigned long long)st.distinct, (unsigned long long)st.new_seen,
           (unsigned long long)st.dropped);
    ctxprof_pcc_set_deinit(&s);
}

/* A value count so large that count * width wraps to the payload's length
   is corrupt, not a request for memory: 2^61 + 1 eight-byte values "fill"
   8 bytes modulo 2^64, 2^62 + 1 four-byte ones 4 bytes. */
static void pcc_set_count_wraps(void)
{
    static const struct {
        uint64_t bits, count;
        size_t len;
    } cases[] = {{64, (1ull << 61) + 1, 8}, {32, (1ull << 62) + 1, 4}, {64, 1ull << 61, 0}};
    size_t c;
    char path[512];
    snprintf(path, sizeof path, "%s/wrap.set", ctxprof_test_tmpdir());
    for (c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        unsigned char img[CTXPROF__BLOB_HDR + 8];
        uint64_t params[4];
        ctxprof_pcc_file f;
        ctxprof_error e;
        params[0] = cases[c].bits;
        params[1] = 7;
        params[2] = CTXPROF_PCC_SITE_VERSION;
        params[3] = cases[c].count;
        memset(img, 0, sizeof img);
        img[CTXPROF__BLOB_HDR] = 1;
        ctxprof__blob_seal(img, CTXPROF__KIND_PCC_SET, params, cases[c].len);
        memset(&f, 0, sizeof f);
        memset(&e, 0, sizeof e);
        CHECK_EQ(ctxprof__pcc_file_parse(&f, img, CTXPROF__BLOB_HDR + cases[c].len, "wrap", &e),
                 CTXPROF_ERR_CORRUPT);
        CHECK_CONTAINS(ctxprof_error_message(&e), "values do not fill");
        CHECK(f.values == NULL);
        CHECK_EQ(f.count, 0);
        REQUIRE_EQ(pcc_write_raw(path, img, CTXPROF__BLOB_HDR + cases[c].len), 0);
        memset(&e, 0, sizeof e);
        CHECK_EQ(ctxprof_pcc_file_read(&f, path, &e), CTXPROF_ERR_CORRUPT);
        CHECK_CONTAINS(ctxprof_error_message(&e), "values do not fill");
    }
}

/* The writer refuses what the reader would: a repeated or descending value
   (strictly ascending only), and writes nothing. */
static void pcc_file_write_duplicates(void)
{
    static const uint64_t dup[2] = {1, 1}, desc[3] = {1, 3, 2}, ok[2] = {1, 2};
    ctxprof_pcc_file f;
    ctxprof_error e;
    char path[512];
    snprintf(path, sizeof path, "%s/dup.set", ctxprof_test_tmpdir());
    memset(&f, 0, sizeof f);
    f.bits = 64;
    f.site_version = CTXPROF_PCC_SITE_VERSION;
    f.values = (uint64_t *)dup;
    f.count = 2;
    memset(&e, 0, sizeof e);
    unlink(path);
    CHECK_EQ(ctxprof_pcc_file_write(&f, path, &e), CTXPROF_ERR_INVAL);
    CHECK_CONTAINS(ctxprof_error_message(&e), "values not sorted and unique");
    CHECK_EQ(access(path, F_OK), -1);
    f.values = (uint64_t *)desc;
    f.count = 3;
    CHECK_EQ(ctxprof_pcc_file_write(&f, path, &e), CTXPROF_ERR_INVAL);
    CHECK_EQ(access(path, F_OK), -1);
    f.bits = 32;
    f.values = (uint64_t *)dup;
    f.count = 2;
    CHECK_EQ(ctxprof_pcc_file_write(&f, path, &e), CTXPROF_ERR_INVAL);
    CHECK_EQ(access(path, F_OK), -1);
    /* and what it accepts reads back */
    f.values = (uint64_t *)ok;
    REQUIRE_EQ(ctxprof_pcc_file_write(&f, path, &e), CTXPROF_OK);
    {
        ctxprof_pcc_file g;
        memset(&g, 0, sizeof g);
        REQUIRE_EQ(ctxprof_pcc_file_read(&g, path, &e), CTXPROF_OK);
        CHECK_EQ(g.count, 2);
        CHECK_EQ(g.bits, 32);
        if (g.count == 2) {
            CHECK_EQ(g.values[0], 1);
            CHECK_EQ(g.values[1], 2);
        }
        ctxprof_pcc_file_free(&g);
    }
}

/* Sets of two site-hash versions (their ids hash other strings) are as
   incompatible as two seeds: merge and diff refuse them, the same files with
   one version are merged. */
static void pcc_tool_site_version(void)
{
    static const uint64_t va[2] = {1, 5}, vb[2] = {2, 5};
    ctxprof_pcc_file f;
    ctxprof_error e;
    char pa[512], pb[512], pu[512], out[512];
    const char *d = ctxprof_test_tmpdir();
    snprintf(pa, sizeof pa, "%s/sva.set", d);
    snprintf(pb, sizeof pb, "%s/svb.set", d);
    snprintf(pu, sizeof pu, "%s/svu.set", d);
    snprintf(out, sizeof out, "%s/sv.out", d);
    memset(&f, 0, sizeof f);
    f.bits = 64;
    f.seed = 0x1234;
    f.site_version = 1;
    f.values = (uint64_t *)va;
    f.count = 2;
    REQUIRE_EQ(ctxprof_pcc_file_write(&f, pa, &e), CTXPROF_OK);
    f.values = (uint64_t *)vb;
    REQUIRE_EQ(ctxprof_pcc_file_write(&f, pb, &e), CTXPROF_OK);
    CHECK_EQ(ctxprof_test_sh("build/ctxprof-set merge -o %s %s %s > /dev/null 2>&1", pu, pa, pb), 0);
    memset(&f, 0, sizeof f);
    REQUIRE_EQ(ctxprof_pcc_file_read(&f, pu, &e), CTXPROF_OK);
    CHECK_EQ(f.count, 3);
    CHECK_EQ(f.site_version, 1);
    ctxprof_pcc_file_free(&f);
    /* b again, one version on */
    f.bits = 64;
    f.seed = 0x1234;
    f.site_version = 2;
    f.values = (uint64_t *)vb;
    f.count = 2;
    REQUIRE_EQ(ctxprof_pcc_file_write(&f, pb, &e), CTXPROF_OK);
    unlink(pu);
    CHECK_EQ(ctxprof_test_sh("build/ctxprof-set merge -o %s %s %s > /dev/null 2> %s", pu, pa, pb,
                             out), 1);
    CHECK_EQ(ctxprof_test_sh("grep -q 'site hash v1) and .* site hash v2) come from "
                             "incompatible builds' %s", out), 0);
    CHECK_EQ(access(pu, F_OK), -1);
    CHECK_EQ(ctxprof_test_sh("build/ctxprof-set diff %s %s > /dev/null 2> %s", pa, pb, out), 2);
    CHECK_EQ(ctxprof_test_sh("grep -q 'incompatible builds' %s", out), 0);
}

static const ctxprof_test_case ctxprof_tests_pcc[] = {
    {"pcc_noncommutative", pcc_noncommutative},
    {"pcc_set_uninit", pcc_set_uninit},
    {"pcc_set_double_init", pcc_set_double_init},
    {"pcc_set_mode_unknown", pcc_set_mode_unknown},
    {"pcc_compose", pcc_compose},
    {"pcc_inverse", pcc_inverse},
    {"pcc_expected_formula", pcc_expected_formula},
    {"pcc_site_ids", pcc_site_ids},
    {"pcc_site_ids_across_builds", pcc_site_ids_across_builds},
    {"pcc_cxx", pcc_cxx},
    {"pcc_dl_reports", pcc_dl_reports},
    {"pcc_report_symbols_bounded", pcc_report_symbols_bounded},
    {"pcc_site_ids_long_names", pcc_site_ids_long_names},
    {"pcc_site_folds", pcc_site_folds},
    {"pcc_call_site_floor", pcc_call_site_floor},
    {"pcc_site_bits64", pcc_site_bits64},
    {"pcc_macros", pcc_macros},
    {"pcc_longjmp", pcc_longjmp},
    {"pcc_scope", pcc_scope},
    {"pcc_func_alone", pcc_func_alone},
    {"pcc_threads", pcc_threads},
    {"pcc_tls_shared_lib", pcc_tls_shared_lib},
    {"pcc_conflicts", pcc_conflicts},
    {"pcc_set_basic", pcc_set_basic},
    {"pcc_set_capacity", pcc_set_capacity},
    {"pcc_set_next_growth", pcc_set_next_growth},
    {"pcc_set_reclaim", pcc_set_reclaim},
    {"pcc_set_concurrent", pcc_set_concurrent},
    {"pcc_report_once", pcc_report_once},
    {"pcc_report_long_names", pcc_report_long_names},
    {"pcc_check_new_lock_free", pcc_check_new_lock_free},
    {"pcc_fork_takes_over_lock", pcc_fork_takes_over_lock},
    {"pcc_zero_with_table", pcc_zero_with_table},
    {"pcc_train_while_checking", pcc_train_while_checking},
    {"pcc_report_rate_limit", pcc_report_rate_limit},
    {"pcc_set_files", pcc_set_files},
    {"pcc_set_bad_files", pcc_set_bad_files},
    {"pcc_file_write_bits32", pcc_file_write_bits32},
    {"pcc_set_load_fd0", pcc_set_load_fd0},
    {"pcc_set_huge_length", pcc_set_huge_length},
    {"pcc_tool", pcc_tool},
    {"pcc_set_save_stdout", pcc_set_save_stdout},
    {"pcc_example", pcc_example},
    {"pcc_bits32", pcc_bits32},
    {"pcc_robust_files", pcc_robust_files},
    {"pcc_robust_bounds", pcc_robust_bounds},
    {"pcc_set_count_wraps", pcc_set_count_wraps},
    {"pcc_file_write_duplicates", pcc_file_write_duplicates},
    {"pcc_tool_site_version", pcc_tool_site_version},
    {0, 0}};
