/* ICPP and the symbol table: included by test_main.c (one TU, so every
   static name here starts with icpp_). */

#include <dlfcn.h>
#include <pthread.h>

#define CHECK_GT_ICPP(a, b) CTXPROF_TEST_CMP(a, >, b, (void)0)

/* ---- symbol table ---------------------------------------------------- */

/* A static function the symbol table must find by its .symtab entry. */
__attribute__((noinline, used)) static int icpp_static_target(int x)
{
    __asm__ volatile("" : "+r"(x));
    return x * 3 + 1;
}
static int (*volatile icpp_static_target_ptr)(int) = icpp_static_target;
static int icpp_data_word = 42;

static void icpp_symtab_self(void)
{
    ctxprof_symtab st;
    ctxprof_error err;
    uintptr_t off = 99, pc = (uintptr_t)icpp_static_target_ptr;
    const char *obj = NULL, *name;
    REQUIRE_EQ(ctxprof_symtab_init(&st, &err), CTXPROF_OK);
    CHECK_GE(st.objects, 2);
    CHECK_GE(st.count, 100);
    CHECK_EQ(icpp_static_target_ptr(2), 7);
    name = ctxprof_symtab_lookup(&st, pc, &off, &obj);
    CHECK_STR(name, "icpp_static_target");
    CHECK_EQ(off, 0);
    CHECK_CONTAINS(obj, "test_ctxprof");
    name = ctxprof_symtab_lookup(&st, pc + 3, &off, NULL);
    CHECK_STR(name, "icpp_static_target");
    CHECK_EQ(off, 3);
    CHECK_EQ(ctxprof_symtab_func(&st, pc + 3), pc);
    CHECK_STR(ctxprof_symtab_name(&st, pc), "icpp_static_target");
    CHECK(ctxprof_symtab_name(&st, pc + 3) == NULL);
    CHECK_STR(ctxprof_symtab_lookup(&st, (uintptr_t)ctxprof_symtab_init, NULL, NULL),
              "ctxprof_symtab_init");
    CHECK_STR(ctxprof_symtab_lookup(&st, (uintptr_t)ctxprof_test_sh, NULL, NULL),
              "ctxprof_test_sh");
    ctxprof_symtab_deinit(&st);
    CHECK_EQ(st.count, 0);
    ctxprof_symtab_deinit(&st); /* twice is harmless */
}

/* libc's functions, cross-checked against the dynamic linker's own view. */
static void icpp_symtab_libc(void)
{
    static const char *const names[] = {"getpid",          "qsort",          "fopen",
                                        "strtol",          "pthread_create", "gettimeofday",
                                        "dl_iterate_phdr", "setvbuf"};
    ctxprof_symtab st;
    ctxprof_error err;
    void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
    size_t i;
    REQUIRE(libc != NULL);
    REQUIRE_EQ(ctxprof_symtab_init(&st, &err), CTXPROF_OK);
    for (i = 0; i < sizeof names / sizeof names[0]; i++) {
        void *f = dlsym(libc, names[i]);
        Dl_info di;
        const char *obj = NULL, *name;
        uintptr_t off = 1;
        if (!f)
            continue;
        name = ctxprof_symtab_lookup(&st, (uintptr_t)f, &off, &obj);
        REQUIRE(dladdr(f, &di) != 0);
        CHECK_STR(obj, di.dli_fname); /* libc, or the vDSO for gettimeofday */
        CHECK_EQ(off, 0);
        CHECK_EQ(ctxprof_symtab_func(&st, (uintptr_t)f + 1), (uintptr_t)f);
        /* the preferred alias is the plain public name, like dladdr's */
        if (i < 3)
            CHECK_STR(name, names[i]);
        else
            CHECK(name != NULL);
    }
    ctxprof_symtab_deinit(&st);
    dlclose(libc);
}

static void icpp_symtab_unknown(void)
{
    ctxprof_symtab st;
    ctxprof_error err;
    int local = 0;
    void *heap = malloc(64);
    uintptr_t probes[5], off = 7;
    const char *obj = "x";
    size_t i;
    probes[0] = 0;
    probes[1] = 1;
    probes[2] = (uintptr_t)&local;
    probes[3] = (uintptr_t)heap;
    probes[4] = (uintptr_t)&icpp_data_word;
    REQUIRE_EQ(ctxprof_symtab_init(&st, &err), CTXPROF_OK);
    for (i = 0; i < 5; i++) {
        CHECK(ctxprof_symtab_lookup(&st, probes[i], &off, &obj) == NULL);
        CHECK_EQ(off, 0);
        CHECK(obj == NULL);
        CHECK_EQ(ctxprof_symtab_func(&st, probes[i]), 0);
    }
    CHECK(ctxprof_symtab_lookup(&st, UINTPTR_MAX, NULL, NULL) == NULL);
    ctxprof_symtab_deinit(&st);
    /* a zeroed table answers nothing and does not crash */
    memset(&st, 0, sizeof st);
    CHECK(ctxprof_symtab_lookup(&st, (uintptr_t)ctxprof_test_sh, NULL, NULL) == NULL);
    CHECK(ctxprof_symtab_lookup(NULL, (uintptr_t)ctxprof_test_sh, NULL, NULL) == NULL);
    free(heap);
}

typedef struct icpp_symtab_job {
    const ctxprof_symtab *st;
    uintptr_t pcs[3];
    int bad;
} icpp_symtab_job;

static void *icpp_symtab_thread(void *arg)
{
    icpp_symtab_job *j = (icpp_symtab_job *)arg;
    int k;
    for (k = 0; k < 20000; k++) {
        uintptr_t pc = j->pcs[k % 3];
        if (ctxprof_symtab_func(j->st, pc + (uintptr_t)(k % 2)) != pc)
            j->bad++;
    }
    return NULL;
}

static void icpp_symtab_threads(void)
{
    ctxprof_symtab st;
    ctxprof_error err;
    pthread_t t[4];
    icpp_symtab_job jobs[4];
    int i;
    REQUIRE_EQ(ctxprof_symtab_init(&st, &err), CTXPROF_OK);
    for (i = 0; i < 4; i++) {
        jobs[i].st = &st;
        jobs[i].pcs[0] = (uintptr_t)icpp_static_target_ptr;
        jobs[i].pcs[1] = (uintptr_t)ctxprof_symtab_init;
        jobs[i].pcs[2] = (uintptr_t)ctxprof_symtab_func;
        jobs[i].bad = 0;
        REQUIRE_EQ(pthread_create(&t[i], NULL, icpp_symtab_thread, &jobs[i]), 0);
    }
    for (i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        CHECK_EQ(jobs[i].bad, 0);
    }
    ctxprof_symtab_deinit(&st);
}

/* A minimal ELF64 image: null section, .symtab, .strtab. Each symbol is
   {name offset, info, shndx, value, size}. */
typedef struct icpp_elfsym {
    uint32_t name;
    unsigned char info;
    uint16_t shndx;
    uint64_t value, size;
} icpp_elfsym;

static void icpp_put(unsigned char *p, uint64_t v, int bytes)
{
    int i;
    for (i = 0; i < bytes; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* Layout: header 0..63, strtab at 64, symbols after it (8-aligned), section
   headers last. Returns the image size. */
static size_t icpp_make_elf(unsigned char *buf, size_t cap, const char *strs, size_t strsize,
                            const icpp_elfsym *syms, size_t n)
{
    size_t stroff = 64, symoff = (64 + strsize + 7) & ~(size_t)7, shoff = symoff + 24 * (n + 1);
    size_t total = shoff + 3 * 64, i;
    if (total > cap)
        return 0;
    memset(buf, 0, total);
    memcpy(buf, "\177ELF", 4);
    buf[4] = 2;
    buf[5] = 1;
    buf[6] = 1;
    icpp_put(buf + 16, 3, 2);     /* ET_DYN */
    icpp_put(buf + 18, 62, 2);    /* x86-64 */
    icpp_put(buf + 40, shoff, 8); /* e_shoff */
    icpp_put(buf + 52, 64, 2);
    icpp_put(buf + 58, 64, 2); /* e_shentsize */
    icpp_put(buf + 60, 3, 2);  /* e_shnum */
    icpp_put(buf + 62, 2, 2);
    memcpy(buf + stroff, strs, strsize);
    for (i = 0; i < n; i++) {
        unsigned char *y = buf + symoff + 24 * (i + 1);
        icpp_put(y, syms[i].name, 4);
        y[4] = syms[i].info;
        icpp_put(y + 6, syms[i].shndx, 2);
        icpp_put(y + 8, syms[i].value, 8);
        icpp_put(y + 16, syms[i].size, 8);
    }
    /* section 1: .symtab, linked to 2 */
    icpp_put(buf + shoff + 64 + 4, 2, 4);
    icpp_put(buf + shoff + 64 + 24, symoff, 8);
    icpp_put(buf + shoff + 64 + 32, 24 * (n + 1), 8);
    icpp_put(buf + shoff + 64 + 40, 2, 4);
    icpp_put(buf + shoff + 64 + 56, 24, 8);
    /* section 2: .strtab */
    icpp_put(buf + shoff + 128 + 4, 3, 4);
    icpp_put(buf + shoff + 128 + 24, stroff, 8);
    icpp_put(buf + shoff + 128 + 32, strsize, 8);
    return total;
}

static long icpp_load_mem(ctxprof_symtab *st, const unsigned char *img, size_t size)
{
    ctxprof__elfsrc src;
    long r;
    memset(st, 0, sizeof *st);
    src.fd = -1;
    src.mem = img;
    src.size = size;
    if (ctxprof__symtab_obj(st, "mem") == UINT32_MAX)
        return -1;
    r = ctxprof__symtab_add_elf(st, &src, 0x100000, NULL, 0, 0);
    if (r >= 0 && ctxprof__symtab_finish(st))
        r = -1;
    return r;
}

/* Aliases, sizeless symbols, cold parts, and names that are not safe to use. */
static void icpp_symtab_crafted(void)
{
    /* offsets:          1       8         17   21        30   34 */
    static const char strs[] = "\0getpid\0__getpid\0foo\0foo.cold\0bar\0tail";
    icpp_elfsym syms[] = {
        {8, 0x12, 1, 0x1000, 16},  /* __getpid GLOBAL FUNC */
        {1, 0x22, 1, 0x1000, 16},  /* getpid WEAK FUNC: preferred name */
        {17, 0x02, 1, 0x2000, 32}, /* foo LOCAL FUNC */
        {21, 0x02, 1, 0x3000, 8},  /* foo.cold */
        {30, 0x12, 1, 0x4000, 0},  /* bar: no size, runs to the next symbol */
        {30, 0x11, 1, 0x4800, 8},  /* an OBJECT: ignored */
        {34, 0x12, 0, 0x6000, 8},  /* undefined: ignored */
        {200, 0x12, 1, 0x7000, 8}, /* name offset outside .strtab: ignored */
        {34, 0x12, 1, 0x5000, 4},  /* "tail": the name's NUL is the last strtab byte */
    };
    unsigned char img[1024];
    ctxprof_symtab st;
    uintptr_t b = 0x100000, off;
    size_t n = icpp_make_elf(img, sizeof img, strs, sizeof strs, syms, 9);
    REQUIRE(n > 0);
    REQUIRE_EQ(icpp_load_mem(&st, img, n), 6);
    CHECK_EQ(st.count, 5); /* the two aliases merged */
    CHECK_STR(ctxprof_symtab_lookup(&st, b + 0x1000, NULL, NULL), "getpid");
    CHECK_STR(ctxprof_symtab_lookup(&st, b + 0x2010, &off, NULL), "foo");
    CHECK_EQ(off, 0x10);
    CHECK(ctxprof_symtab_lookup(&st, b + 0x2020, NULL, NULL) == NULL);
    CHECK_STR(ctxprof_symtab_lookup(&st, b + 0x3004, NULL, NULL), "foo.cold");
    CHECK_EQ(ctxprof_symtab_func(&st, b + 0x3004), b + 0x2000); /* runs in foo's frame */
    CHECK_STR(ctxprof_symtab_name(&st, ctxprof_symtab_func(&st, b + 0x3004)), "foo");
    CHECK_STR(ctxprof_symtab_lookup(&st, b + 0x4fff, NULL, NULL), "bar");
    CHECK_STR(ctxprof_symtab_lookup(&st, b + 0x5003, NULL, NULL), "tail");
    CHECK(ctxprof_symtab_lookup(&st, b + 0x6000, NULL, NULL) == NULL);
    CHECK(ctxprof_symtab_lookup(&st, b + 0x7000, NULL, NULL) == NULL);
    ctxprof_symtab_deinit(&st);

    /* the last name runs off the end of .strtab (no NUL): skipped, not read past */
    n = icpp_make_elf(img, sizeof img, strs, sizeof strs - 1, syms, 9);
    REQUIRE_EQ(icpp_load_mem(&st, img, n), 5);
    CHECK(ctxprof_symtab_lookup(&st, b + 0x5000, NULL, NULL) == NULL);
    ctxprof_symtab_deinit(&st);
}

/* Truncated and corrupted copies of a real executable (this one): the
   loader must never read outside the image (ASan checks), never crash, and
   either add symbols or report none. */
static void icpp_symtab_corrupt(void)
{
    char *img = NULL;
    size_t size = 0, i;
    unsigned char *copy;
    ctxprof_symtab st;
    uint64_t seed = 4, shoff;
    long full;
    REQUIRE_EQ(ctxprof__read_file("/proc/self/exe", &img, &size, NULL, NULL), CTXPROF_OK);
    copy = (unsigned char *)malloc(size);
    REQUIRE(copy != NULL);
    full = icpp_load_mem(&st, (unsigned char *)img, size);
    CHECK_GE(full, 20);
    ctxprof_symtab_deinit(&st);
    shoff = ctxprof__get64((unsigned char *)img + 40);
    REQUIRE(shoff < size);
    /* truncations, including inside the section headers and the tables */
    for (i = 0; i < 40; i++) {
        size_t cut = i < 20 ? (size_t)(ctxprof_test_rand(&seed) % size)
                            : (size_t)shoff + (size - (size_t)shoff) * (i - 20) / 20;
        long r = icpp_load_mem(&st, (unsigned char *)img, cut);
        CHECK_GE(r, 0);
        CHECK_LE(r, full);
        ctxprof_symtab_deinit(&st);
    }
    /* random bytes over the header, the section headers and anywhere */
    for (i = 0; i < 150; i++) {
        int k, nflip = 1 + (int)(ctxprof_test_rand(&seed) % 8);
        long r;
        memcpy(copy, img, size);
        for (k = 0; k < nflip; k++) {
            uint64_t where = ctxprof_test_rand(&seed);
            size_t at = i % 3 == 0   ? (size_t)(where % 64)
                        : i % 3 == 1 ? (size_t)(shoff + where % (size - shoff))
                                     : (size_t)(where % size);
            copy[at] = (unsigned char)ctxprof_test_rand(&seed);
        }
        r = icpp_load_mem(&st, copy, size);
        CHECK_GE(r, 0);
        ctxprof_symtab_deinit(&st);
    }
    /* huge counts and offsets in the header */
    memcpy(copy, img, size);
    icpp_put(copy + 60, 0xffff, 2);
    CHECK_EQ(icpp_load_mem(&st, copy, size), 0);
    ctxprof_symtab_deinit(&st);
    memcpy(copy, img, size);
    icpp_put(copy + 40, UINT64_MAX - 10, 8);
    CHECK_EQ(icpp_load_mem(&st, copy, size), 0);
    ctxprof_symtab_deinit(&st);
    /* every section claiming a huge size, then a huge offset */
    for (i = 0; i < 2; i++) {
        uint64_t s, shnum = ctxprof__get16((unsigned char *)img + 60);
        memcpy(copy, img, size);
        for (s = 0; s < shnum; s++)
            icpp_put(copy + shoff + s * 64 + (i ? 24 : 32), UINT64_MAX - 100 * s, 8);
        CHECK_EQ(icpp_load_mem(&st, copy, size), 0);
        ctxprof_symtab_deinit(&st);
    }
    /* a file that is not ELF, and a missing file */
    memset(&st, 0, sizeof st);
    CHECK_EQ(ctxprof__symtab_add_file(&st, "tests/test_main.c", 0, NULL, 0, 0), 0);
    CHECK_EQ(ctxprof__symtab_add_file(&st, "/nonexistent/x", 0, NULL, 0, 0), 0);
    ctxprof_symtab_deinit(&st);
    free(copy);
    free(img);
}


/* ---- path maps --------------------------------------------------------- */

static const char icpp_map_text[] =
    "ctxprof-paths 1\n"
    "# a comment\n"
    "path 5 100 main\n"
    "path 3 180 main a\n"
    "path 2 180 main b\n"          /* same height as main>a but another leaf */
    "path 7 260 main a c\n"
    "path 1 260 main b c\n"        /* ambiguous with main>a>c */
    "path 4 300 main a c c\n"
    "path 2 260 main a c\n";       /* duplicate: counts add up */

static void icpp_map_basic(void)
{
    ctxprof_icpp_map m;
    ctxprof_error err;
    const uint32_t *cand;
    ctxprof_icpp_path_info pi;
    uint32_t funcs[8];
    char buf[64];
    long fc, fa;
    const char *names[] = {"main", "a", "c"};
    size_t n, i, found = 0;
    memset(&m, 0, sizeof m);
    REQUIRE_EQ(ctxprof_icpp_map_parse(&m, icpp_map_text, sizeof icpp_map_text - 1, "t.paths",
                                      &err),
               CTXPROF_OK);
    CHECK_EQ(m.paths, 6);
    CHECK_EQ(m.funcs, 4);
    CHECK_EQ(m.nodes, 6); /* main, main>a, main>b, main>a>c, main>b>c, main>a>c>c */
    CHECK_EQ(m.max_height, 300);
    fc = ctxprof_icpp_map_func(&m, "c");
    fa = ctxprof_icpp_map_func(&m, "a");
    REQUIRE(fc >= 0 && fa >= 0);
    CHECK_EQ(ctxprof_icpp_map_func(&m, "zz"), (unsigned long long)-1);
    CHECK_STR(ctxprof_icpp_map_func_name(&m, (uint32_t)fc), "c");
    n = ctxprof_icpp_map_lookup(&m, (uint32_t)fc, 260, &cand);
    REQUIRE_EQ(n, 2);
    for (i = 0; i < n; i++) {
        ctxprof_icpp_map_path_str(&m, cand[i], buf, sizeof buf);
        REQUIRE_EQ(ctxprof_icpp_map_path(&m, cand[i], &pi), CTXPROF_OK);
        CHECK_EQ(pi.degree, 2);
        CHECK_EQ(pi.height, 260);
        if (strcmp(buf, "main>a>c") == 0) {
            found++;
            CHECK_EQ(pi.count, 9);
            CHECK_EQ(pi.len, 3);
            CHECK_EQ(pi.key, ctxprof_icpp_path_key(names, 3));
            CHECK_EQ(ctxprof_icpp_map_path_funcs(&m, cand[i], funcs, 8), 3);
            CHECK_EQ(funcs[1], (uint32_t)fa);
            CHECK_EQ(funcs[2], (uint32_t)fc);
        } else {
            CHECK_STR(buf, "main>b>c");
            found++;
        }
    }
    CHECK_EQ(found, 2);
    CHECK_EQ(ctxprof_icpp_map_lookup(&m, (uint32_t)fc, 300, &cand), 1);
    CHECK_EQ(ctxprof_icpp_map_lookup(&m, (uint32_t)fc, 301, &cand), 0);
    CHECK(cand == NULL);
    CHECK_EQ(ctxprof_icpp_map_lookup(&m, (uint32_t)fa, 180, &cand), 1);
    /* truncated rendering */
    CHECK_EQ(ctxprof_icpp_map_path_str(&m, 0, buf, 3), 4); /* "main" */
    CHECK_STR(buf, "ma");
    ctxprof_icpp_map_deinit(&m);
}

/* Save, load, save again: byte-identical, and sorted deterministically. */
static void icpp_map_roundtrip(void)
{
    ctxprof_icpp_map m, m2;
    ctxprof_error err;
    char path[512], path2[512], *a = NULL, *b = NULL;
    size_t la, lb;
    memset(&m, 0, sizeof m);
    memset(&m2, 0, sizeof m2);
    snprintf(path, sizeof path, "%s/icpp_rt.paths", ctxprof_test_tmpdir());
    snprintf(path2, sizeof path2, "%s/icpp_rt2.paths", ctxprof_test_tmpdir());
    REQUIRE_EQ(ctxprof_icpp_map_parse(&m, icpp_map_text, sizeof icpp_map_text - 1, "t", &err),
               CTXPROF_OK);
    REQUIRE_EQ(ctxprof_icpp_map_save(&m, path, &err), CTXPROF_OK);
    REQUIRE_EQ(ctxprof_icpp_map_load(&m2, path, &err), CTXPROF_OK);
    REQUIRE_EQ(ctxprof_icpp_map_save(&m2, path2, &err), CTXPROF_OK);
    REQUIRE_EQ(ctxprof__read_file(path, &a, &la, NULL, NULL), CTXPROF_OK);
    REQUIRE_EQ(ctxprof__read_file(path2, &b, &lb, NULL, NULL), CTXPROF_OK);
    CHECK_EQ(la, lb);
    CHECK(la == lb && memcmp(a, b, la) == 0);
    CHECK_CONTAINS(a, "ctxprof-paths 1\npath 5 100 main\npath 3 180 main a\npath 9 260 main a c\n");
    CHECK_EQ(m2.paths, m.paths);
    free(a);
    free(b);
    ctxprof_icpp_map_deinit(&m);
    ctxprof_icpp_map_deinit(&m2);
}

/* Malformed input: a file:line error, and the map keeps what it had. */
static void icpp_map_errors(void)
{
    static const struct {
        const char *text, *msg;
        int status;
    } cases[] = {
        {"", "bad.paths:1: not a path map", CTXPROF_ERR_PARSE},
        {"# only a comment\n", "bad.paths:1: not a path map", CTXPROF_ERR_PARSE},
        {"ctxprof-callgraph 1\n", "bad.paths:1: not a path map", CTXPROF_ERR_PARSE},
        {"ctxprof-paths 2\npath 1 1 f\n", "bad.paths:1: path map version '2'",
         CTXPROF_ERR_MISMATCH},
        {"ctxprof-paths\n", "bad.paths:1: path map version ''", CTXPROF_ERR_PARSE},
        {"ctxprof-paths 1\npath 1 16 main\npaths 1 16 main\n",
         "bad.paths:3: unknown keyword 'paths'", CTXPROF_ERR_PARSE},
        {"ctxprof-paths 1\npath 1\n", "bad.paths:2: expected 'path COUNT HEIGHT",
         CTXPROF_ERR_PARSE},
        {"ctxprof-paths 1\n\npath x 16 main\n", "bad.paths:3: bad count 'x'", CTXPROF_ERR_PARSE},
        {"ctxprof-paths 1\npath 1 -16 main\n", "bad.paths:2: bad height '-16'",
         CTXPROF_ERR_PARSE},
        {"ctxprof-paths 1\npath 1 99999999999999999999 main\n", "bad.paths:2: bad height",
         CTXPROF_ERR_PARSE},
        {"ctxprof-paths 1\npath 1 2000000000000 main\n", "bad.paths:2: bad height",
         CTXPROF_ERR_PARSE},
        {"ctxprof-paths 1\npath 1 16\n", "bad.paths:2: path without functions",
         CTXPROF_ERR_PARSE},
        {"ctxprof-paths 1\npath 1 16 # main\n", "bad.paths:2: path without functions",
         CTXPROF_ERR_PARSE},
    };
    ctxprof_icpp_map m;
    ctxprof_error err;
    size_t i;
    memset(&m, 0, sizeof m);
    REQUIRE_EQ(ctxprof_icpp_map_parse(&m, icpp_map_text, sizeof icpp_map_text - 1, "good", &err),
               CTXPROF_OK);
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int rc = ctxprof_icpp_map_parse(&m, cases[i].text, strlen(cases[i].text), "bad.paths",
                                        &err);
        CHECK_EQ(rc, cases[i].status);
        CHECK_CONTAINS(err.detail, cases[i].msg);
        CHECK_EQ(m.paths, 6); /* unchanged */
    }
    CHECK_EQ(ctxprof_icpp_map_load(&m, "/nonexistent/x.paths", &err), CTXPROF_ERR_SYS);
    CHECK_CONTAINS(err.detail, "/nonexistent/x.paths");
    CHECK_EQ(m.paths, 6);
    ctxprof_icpp_map_deinit(&m);
}

/* ---- training with annotations, in this process ------------------------- */

static ctxprof_icpp_cid icpp_t_cid[3];
static uint64_t icpp_t_node;

__attribute__((noinline)) static int icpp_t_leaf(int k)
{
    CTXPROF_ICPP_FUNC(icpp_t_leaf);
    icpp_t_cid[k % 3] = CTXPROF_ICPP_CID(icpp_t_leaf);
    if (k == 2)
        icpp_t_node = ctxprof_icpp_train_current();
    return k + 1;
}

__attribute__((noinline)) static int icpp_t_rec(int n, int k)
{
    CTXPROF_ICPP_FUNC(icpp_t_rec);
    volatile int pad[8];
    pad[0] = n;
    if (n > 0)
        return icpp_t_rec(n - 1, k) + pad[0];
    return icpp_t_leaf(k);
}

static void icpp_train_recursion(void)
{
    ctxprof_icpp_map m;
    ctxprof_error err;
    ctxprof_icpp_train_stats st;
    char path[512], buf[256];
    uintptr_t funcs[16];
    uint64_t h;
    long fl, fr;
    size_t i, len;
    memset(&m, 0, sizeof m);
    snprintf(path, sizeof path, "%s/icpp_train.paths", ctxprof_test_tmpdir());
    ctxprof_icpp_train_reset();
    REQUIRE_EQ(ctxprof_icpp_train_start(NULL, &err), CTXPROF_OK);
    CHECK_EQ(icpp_t_rec(0, 0), 1);
    CHECK_EQ(icpp_t_rec(1, 1), 3);
    CHECK_EQ(icpp_t_rec(4, 2), 3 + 4 + 3 + 2 + 1);
    ctxprof_icpp_train_stop();
    ctxprof_icpp_train_get_stats(&st);
    CHECK_EQ(st.entries, 1 + 1 + 2 + 1 + 5 + 1);
    CHECK_EQ(st.nodes, 5 + 3); /* rec^1..rec^5, leaf below rec^1, rec^2, rec^5 */
    /* the sampler's ground truth: the node current in the leaf */
    len = ctxprof_icpp_train_path(icpp_t_node, funcs, 16, &h);
    REQUIRE_EQ(len, 6);
    for (i = 0; i < 5; i++)
        CHECK_EQ(funcs[i], (uintptr_t)icpp_t_rec);
    CHECK_EQ(funcs[5], (uintptr_t)icpp_t_leaf);
    CHECK_EQ(h, icpp_t_cid[2].height); /* the query point sees the trained height */
    REQUIRE_EQ(ctxprof_icpp_train_save(path, &err), CTXPROF_OK);
    REQUIRE_EQ(ctxprof_icpp_map_load(&m, path, &err), CTXPROF_OK);
    CHECK_EQ(m.paths, 8);
    fl = ctxprof_icpp_map_func(&m, "icpp_t_leaf");
    fr = ctxprof_icpp_map_func(&m, "icpp_t_rec");
    REQUIRE(fl >= 0 && fr >= 0);
    /* each leaf CID names exactly its path, and the heights grow with depth */
    for (i = 0; i < 3; i++) {
        const uint32_t *cand;
        ctxprof_icpp_path_info pi;
        REQUIRE_EQ(ctxprof_icpp_map_lookup(&m, (uint32_t)fl, icpp_t_cid[i].height, &cand), 1);
        ctxprof_icpp_map_path(&m, cand[0], &pi);
        CHECK_EQ(pi.len, i == 0 ? 2 : i == 1 ? 3 : 6);
        ctxprof_icpp_map_path_str(&m, cand[0], buf, sizeof buf);
        CHECK_CONTAINS(buf, "icpp_t_rec>icpp_t_leaf");
    }
    CHECK_LT(icpp_t_cid[0].height, icpp_t_cid[1].height);
    CHECK_LT(icpp_t_cid[1].height, icpp_t_cid[2].height);
    /* recursion: every rec level is one frame higher than the last, by the same amount */
    {
        uint64_t prev = 0, step = 0;
        uint32_t p;
        for (p = 0; p < m.paths; p++) {
            ctxprof_icpp_path_info pi;
            ctxprof_icpp_map_path(&m, p, &pi);
            if (pi.leaf != (uint32_t)fr)
                continue;
            if (pi.len >= 2) {
                CHECK_GT_ICPP(pi.height, prev);
                if (pi.len == 2)
                    step = pi.height - prev;
                else
                    CHECK_EQ(pi.height - prev, step);
            }
            prev = pi.height;
        }
    }
    ctxprof_icpp_map_deinit(&m);
    ctxprof_icpp_train_reset();
    ctxprof_icpp_train_get_stats(&st);
    CHECK_EQ(st.nodes, 0);
}

static void *icpp_tid_thread(void *arg)
{
    uintptr_t *out = (uintptr_t *)arg;
    out[0] = ctxprof_icpp_thread_begin();
    out[1] = ctxprof_icpp_base_of_tid((long)ctxprof__gettid());
    out[2] = ctxprof_icpp_thread_begin(); /* idempotent */
    out[3] = (uintptr_t)ctxprof__gettid();
    ctxprof_icpp_thread_end();
    out[4] = ctxprof_icpp_thread_base();
    return NULL;
}

static void icpp_thread_base(void)
{
    pthread_t t;
    uintptr_t out[5] = {0, 0, 0, 0, 0};
    ctxprof_icpp_cid c;
    /* the main thread's base was recorded before main, above this frame */
    CHECK_NE(ctxprof_icpp_thread_base(), 0);
    CHECK_EQ(ctxprof_icpp_base_of_tid((long)ctxprof__gettid()), ctxprof_icpp_thread_base());
    c = CTXPROF_ICPP_CID(icpp_thread_base);
    CHECK(c.height != CTXPROF_ICPP_NO_HEIGHT && c.height > 0 && c.height < 1u << 20);
    CHECK_EQ(c.func, (uintptr_t)icpp_thread_base);
    REQUIRE_EQ(pthread_create(&t, NULL, icpp_tid_thread, out), 0);
    pthread_join(t, NULL);
    CHECK_NE(out[0], 0);
    CHECK_EQ(out[1], out[0]);
    CHECK_EQ(out[2], out[0]);
    CHECK_EQ(out[4], 0);
    CHECK_EQ(ctxprof_icpp_base_of_tid((long)out[3]), 0); /* forgotten */
    CHECK_EQ(ctxprof_icpp_height(100, 0), CTXPROF_ICPP_NO_HEIGHT);
    CHECK_EQ(ctxprof_icpp_height(100, 99), CTXPROF_ICPP_NO_HEIGHT);
    CHECK_EQ(ctxprof_icpp_height(96, 160), 64);
}

static const ctxprof_test_case ctxprof_tests_icpp[] = {{"icpp_symtab_self", icpp_symtab_self},
                                                       {"icpp_symtab_libc", icpp_symtab_libc},
                                                       {"icpp_symtab_unknown", icpp_symtab_unknown},
                                                       {"icpp_symtab_threads", icpp_symtab_threads},
                                                       {"icpp_symtab_crafted", icpp_symtab_crafted},
                                                       {"icpp_symtab_corrupt", icpp_symtab_corrupt},
    {"icpp_map_basic", icpp_map_basic},
    {"icpp_map_roundtrip", icpp_map_roundtrip},
    {"icpp_map_errors", icpp_map_errors},
    {"icpp_train_recursion", icpp_train_recursion},
    {"icpp_thread_base", icpp_thread_base},
                                                       {0, 0}};
