/* ICPP and the symbol table: included by test_main.c (one TU, so every
   static name here starts with icpp_). */

#include <dlfcn.h>
#include <pthread.h>

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

static const ctxprof_test_case ctxprof_tests_icpp[] = {{"icpp_symtab_self", icpp_symtab_self},
                                                       {"icpp_symtab_libc", icpp_symtab_libc},
                                                       {"icpp_symtab_unknown", icpp_symtab_unknown},
                                                       {"icpp_symtab_threads", icpp_symtab_threads},
                                                       {"icpp_symtab_crafted", icpp_symtab_crafted},
                                                       {"icpp_symtab_corrupt", icpp_symtab_corrupt},
                                                       {0, 0}};
