/* Core: status texts, hashing, the binary container, atomic writes, the line
   reader and string interning. Included by test_main.c. */

static void core_strerror(void)
{
    CHECK_STR(ctxprof_strerror(CTXPROF_OK), "ok");
    /* files, and encodings that are no path */
    CHECK_STR(ctxprof_strerror(CTXPROF_ERR_CORRUPT), "data truncated or corrupt");
    CHECK_STR(ctxprof_strerror(12345), "unknown status");
    CHECK_STR(ctxprof_error_message(NULL), "no error record");
    {
        ctxprof_error e;
        memset(&e, 0, sizeof e);
        e.status = CTXPROF_ERR_NOMEM;
        CHECK_STR(ctxprof_error_message(&e), "out of memory");
        ctxprof__fail(&e, CTXPROF_ERR_SYS, ENOENT, "%s:%d: open", "x.txt", 3);
        CHECK_EQ(e.sys_errno, ENOENT);
        CHECK_CONTAINS(ctxprof_error_message(&e), "x.txt:3: open: ");
    }
}

/* ctxprof_demangle leaves alone what is not a C++ symbol, and what the
   demangler refuses (pcc_cxx and hcct_hooks_cxx check real C++ names in
   C++ programs). */
static void core_demangle(void)
{
    char buf[64];
    const char *c = "sys_open", *bad = "_Z!!", *cxx = "_ZN2ns6Widget4workEi";
    const char *d = ctxprof_demangle(cxx, buf, sizeof buf);
    CHECK(ctxprof_demangle(c, buf, sizeof buf) == c);
    CHECK(ctxprof_demangle(bad, buf, sizeof buf) == bad);
    CHECK(ctxprof_demangle(cxx, buf, 0) == cxx);
    CHECK(ctxprof_demangle(NULL, buf, sizeof buf) == NULL);
    CHECK(d == cxx || strcmp(d, "ns::Widget::work(int)") == 0); /* with a C++ runtime here */
    CHECK(ctxprof_demangle(cxx, buf, 8) == cxx || strcmp(buf, "ns::Wid") == 0);
}

/* The hash must depend on every byte, the length and the seed. */
static void core_hash(void)
{
    unsigned char buf[37];
    uint64_t h0, seen[37 * 8];
    size_t i, j, n = 0;
    memset(buf, 0xA5, sizeof buf);
    h0 = ctxprof_hash_bytes(buf, sizeof buf, 0);
    CHECK_EQ(h0, ctxprof_hash_bytes(buf, sizeof buf, 0));
    CHECK_NE(h0, ctxprof_hash_bytes(buf, sizeof buf, 1));
    CHECK_NE(h0, ctxprof_hash_bytes(buf, sizeof buf - 1, 0));
    for (i = 0; i < sizeof buf; i++)
        for (j = 0; j < 8; j++) {
            buf[i] ^= (unsigned char)(1u << j);
            seen[n++] = ctxprof_hash_bytes(buf, sizeof buf, 0);
            buf[i] ^= (unsigned char)(1u << j);
        }
    for (i = 0; i < n; i++) {
        CHECK_NE(seen[i], h0);
        for (j = i + 1; j < n; j++)
            CHECK_NE(seen[i], seen[j]);
    }
    {
        uint64_t w[3] = {1, 2, 3}, v[3] = {2, 1, 3};
        CHECK_NE(ctxprof_hash_words(w, 3), ctxprof_hash_words(v, 3));
        CHECK_NE(ctxprof_hash_words(w, 2), ctxprof_hash_words(w, 3));
    }
}

static void core_lines(void)
{
    char text[] = "# comment\n\n  magic 1  \ncall a  b\t site=x # trailing\n\r\nlast";
    ctxprof__lines L;
    ctxprof__lines_init(&L, text, strlen(text), "f.txt");
    REQUIRE(ctxprof__lines_next(&L));
    CHECK_EQ(L.line, 3);
    CHECK_STR(ctxprof__lines_tok(&L), "magic");
    CHECK_STR(ctxprof__lines_tok(&L), "1");
    CHECK(ctxprof__lines_tok(&L) == NULL);
    REQUIRE(ctxprof__lines_next(&L));
    CHECK_EQ(L.line, 4);
    CHECK_STR(ctxprof__lines_tok(&L), "call");
    CHECK_STR(ctxprof__lines_tok(&L), "a");
    CHECK_STR(ctxprof__lines_tok(&L), "b");
    CHECK_STR(ctxprof__lines_tok(&L), "site=x");
    CHECK(ctxprof__lines_tok(&L) == NULL);
    REQUIRE(ctxprof__lines_next(&L));
    CHECK_EQ(L.line, 6);
    CHECK_STR(ctxprof__lines_tok(&L), "last");
    CHECK(!ctxprof__lines_next(&L));
    {
        uint64_t v = 0;
        CHECK_EQ(ctxprof__parse_u64("18446744073709551615", &v), 0);
        CHECK_EQ(v, UINT64_MAX);
        CHECK_EQ(ctxprof__parse_u64("18446744073709551616", &v), -1);
        CHECK_EQ(ctxprof__parse_u64("12a", &v), -1);
        CHECK_EQ(ctxprof__parse_u64("", &v), -1);
    }
}

static void core_strtab(void)
{
    ctxprof__strtab t;
    char name[32];
    long i;
    ctxprof__strtab_init(&t, NULL);
    CHECK_EQ(ctxprof__strtab_find(&t, "x"), -1);
    for (i = 0; i < 5000; i++) {
        snprintf(name, sizeof name, "fn%ld", i);
        CHECK_EQ(ctxprof__strtab_intern(&t, name), i);
    }
    for (i = 4999; i >= 0; i--) {
        snprintf(name, sizeof name, "fn%ld", i);
        CHECK_EQ(ctxprof__strtab_intern(&t, name), i);
        CHECK_EQ(ctxprof__strtab_find(&t, name), i);
        CHECK_STR(t.names[i], name);
    }
    CHECK_EQ(ctxprof__strtab_find(&t, "fn"), -1);
    CHECK_EQ(ctxprof__strtab_find(&t, "fn50000"), -1);
    CHECK_EQ(t.n, 5000);
    ctxprof__strtab_deinit(&t);
}

/* Every truncation and every single-byte corruption of a sealed file is
   refused before any parameter is returned. */
static void core_blob(void)
{
    unsigned char img[CTXPROF__BLOB_HDR + 40];
    const unsigned char *payload;
    uint64_t params[4] = {64, 7, 1, 0}, got[4] = {0, 0, 0, 0};
    size_t len, i;
    ctxprof_error e;
    for (i = 0; i < 40; i++)
        img[CTXPROF__BLOB_HDR + i] = (unsigned char)(i * 7);
    ctxprof__blob_seal(img, CTXPROF__KIND_PCC_SET, params, 40);
    REQUIRE_EQ(ctxprof__blob_open(img, sizeof img, CTXPROF__KIND_PCC_SET, got, &payload, &len,
                                  "f", &e),
               CTXPROF_OK);
    CHECK_EQ(len, 40);
    CHECK_EQ(got[1], 7);
    CHECK(payload == img + CTXPROF__BLOB_HDR);
    CHECK_EQ(ctxprof__blob_open(img, sizeof img, CTXPROF__KIND_HCCT_PROFILE, got, &payload, &len,
                                "f", &e),
             CTXPROF_ERR_MISMATCH);
    CHECK_CONTAINS(e.detail, "kind");
    for (i = 0; i < sizeof img; i++) {
        int st = ctxprof__blob_open(img, i, CTXPROF__KIND_PCC_SET, got, &payload, &len, "f", &e);
        CHECK_EQ(st, CTXPROF_ERR_CORRUPT);
    }
    for (i = 0; i < sizeof img; i++) {
        int st;
        img[i] ^= 0x10;
        st = ctxprof__blob_open(img, sizeof img, CTXPROF__KIND_PCC_SET, got, &payload, &len, "f",
                                &e);
        CHECK(st == CTXPROF_ERR_CORRUPT || st == CTXPROF_ERR_MISMATCH);
        img[i] ^= 0x10;
    }
}

/* A writer that fails after core_write_budget bytes, like a full disk. */
static long core_write_budget;
static long core_write_limited(int fd, const void *buf, size_t len)
{
    long n = (long)len < core_write_budget ? (long)len : core_write_budget;
    if (n <= 0) {
        errno = ENOSPC;
        return -1;
    }
    core_write_budget -= n;
    return (long)write(fd, buf, (size_t)n);
}

/* An interrupted write at any byte offset leaves the old file intact. */
static void core_atomic_write(void)
{
    char path[512], *buf;
    size_t len, off;
    ctxprof_error e;
    const char *old = "old contents", *next = "new contents, longer than the old ones";
    snprintf(path, sizeof path, "%s/atomic.bin", ctxprof_test_tmpdir());
    REQUIRE_EQ(ctxprof__write_file_atomic(path, old, strlen(old), &e), CTXPROF_OK);
    for (off = 0; off < strlen(next); off++) {
        core_write_budget = (long)off;
        ctxprof__io_write = core_write_limited;
        CHECK_EQ(ctxprof__write_file_atomic(path, next, strlen(next), &e), CTXPROF_ERR_SYS);
        ctxprof__io_write = ctxprof__write_default;
        CHECK_EQ(e.sys_errno, ENOSPC);
        REQUIRE_EQ(ctxprof__read_file(path, &buf, &len, NULL, &e), CTXPROF_OK);
        CHECK_STR(buf, old);
        free(buf);
    }
    CHECK_EQ(ctxprof_test_sh("ls %s | grep -c tmp >/dev/null", ctxprof_test_tmpdir()), 1);
    REQUIRE_EQ(ctxprof__write_file_atomic(path, next, strlen(next), &e), CTXPROF_OK);
    REQUIRE_EQ(ctxprof__read_file(path, &buf, &len, NULL, &e), CTXPROF_OK);
    CHECK_STR(buf, next);
    CHECK_EQ(len, strlen(next));
    free(buf);
    {
        /* a new file gets 0666 less the umask; a replaced one keeps its mode */
        struct stat sb;
        mode_t um = umask(022);
        char fresh[512];
        snprintf(fresh, sizeof fresh, "%s/fresh.bin", ctxprof_test_tmpdir());
        REQUIRE_EQ(ctxprof__write_file_atomic(fresh, "x", 1, &e), CTXPROF_OK);
        REQUIRE_EQ(stat(fresh, &sb), 0);
        CHECK_EQ(sb.st_mode & 0777, 0644);
        chmod(fresh, 0600);
        REQUIRE_EQ(ctxprof__write_file_atomic(fresh, "y", 1, &e), CTXPROF_OK);
        REQUIRE_EQ(stat(fresh, &sb), 0);
        CHECK_EQ(sb.st_mode & 0777, 0600);
        umask(um);
    }
    {
        /* a symbolic link keeps pointing at the replaced file; a path that is
           not a regular file (a FIFO here, /dev/null for users) is written in
           place and never replaced by a regular file */
        char link[512], fifo[512];
        struct stat sb;
        snprintf(link, sizeof link, "%s/link.bin", ctxprof_test_tmpdir());
        snprintf(fifo, sizeof fifo, "%s/fifo", ctxprof_test_tmpdir());
        REQUIRE_EQ(symlink(path, link), 0);
        REQUIRE_EQ(ctxprof__write_file_atomic(link, "via link", 8, &e), CTXPROF_OK);
        REQUIRE_EQ(lstat(link, &sb), 0);
        CHECK(S_ISLNK(sb.st_mode));
        REQUIRE_EQ(ctxprof__read_file(path, &buf, &len, NULL, &e), CTXPROF_OK);
        CHECK_STR(buf, "via link");
        free(buf);
        REQUIRE_EQ(mkfifo(fifo, 0600), 0);
        CHECK_EQ(ctxprof_test_sh("(cat %s > %s.out &) ; sleep 0.2", fifo, fifo), 0);
        CHECK_EQ(ctxprof__write_file_atomic(fifo, "piped", 5, &e), CTXPROF_OK);
        REQUIRE_EQ(lstat(fifo, &sb), 0);
        CHECK(S_ISFIFO(sb.st_mode));
        CHECK_EQ(ctxprof_test_sh("sleep 0.2; grep -qx piped %s.out", fifo), 0);
        CHECK_EQ(ctxprof__write_file_atomic("/dev/null", "x", 1, &e), CTXPROF_OK);
        REQUIRE_EQ(stat("/dev/null", &sb), 0);
        CHECK(S_ISCHR(sb.st_mode));
    }
    {
        /* /dev/stdout is the process's stdout: a pipe (its link names no
           file), or a file that goes on at its offset, never replaced */
        int pfd[2], st;
        char got[32], out[512];
        ssize_t n;
        pid_t pid;
        REQUIRE_EQ(pipe(pfd), 0);
        pid = fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {
            dup2(pfd[1], 1);
            _exit(ctxprof__write_file_atomic("/dev/stdout", "through", 7, &e) == CTXPROF_OK ? 0
                                                                                           : 1);
        }
        close(pfd[1]);
        n = read(pfd[0], got, sizeof got - 1);
        close(pfd[0]);
        REQUIRE_EQ(waitpid(pid, &st, 0), pid);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        CHECK_EQ(n, 7);
        got[n > 0 ? n : 0] = '\0';
        CHECK_STR(got, "through");
        snprintf(out, sizeof out, "%s/stdout.txt", ctxprof_test_tmpdir());
        pid = fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {
            int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
            if (fd < 0 || dup2(fd, 1) < 0 || write(1, "A", 1) != 1)
                _exit(2);
            _exit(ctxprof__write_file_atomic("/dev/stdout", "B", 1, &e) == CTXPROF_OK ? 0 : 1);
        }
        REQUIRE_EQ(waitpid(pid, &st, 0), pid);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        REQUIRE_EQ(ctxprof__read_file(out, &buf, &len, NULL, &e), CTXPROF_OK);
        CHECK_STR(buf, "AB");
        free(buf);
    }
    CHECK_EQ(ctxprof__read_file("/nonexistent/x", &buf, &len, NULL, &e), CTXPROF_ERR_SYS);
    CHECK_EQ(e.sys_errno, ENOENT);
    CHECK_CONTAINS(e.detail, "/nonexistent/x");
    CHECK_EQ(ctxprof__write_file_atomic("/nonexistent/dir/x", "a", 1, &e), CTXPROF_ERR_SYS);
}

/* The text buffer with a sink: a failed sink sticks as status 2 (a write
   failure), whatever is printed after it, short or long. */
static int core_sbuf_fail_sink(void *user, const char *data, size_t len)
{
    (void)data;
    *(size_t *)user += len;
    return -1;
}

static void core_sbuf(void)
{
    ctxprof__sbuf b;
    size_t seen = 0, i;
    char big[2000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    memset(&b, 0, sizeof b);
    b.sink = core_sbuf_fail_sink;
    b.sink_user = &seen;
    ctxprof__sbuf_printf(&b, "%s %d", "short", 1);
    CHECK_EQ(b.failed, 0);
    ctxprof__sbuf_flush(&b);
    CHECK_EQ(b.failed, 2);
    CHECK_EQ(seen, 7u);
    for (i = 0; i < 2; i++) { /* a short, then a long (past the stack buffer) printf */
        ctxprof__sbuf_printf(&b, "%s", i ? big : "a");
        CHECK_EQ(b.failed, 2);
    }
    ctxprof__sbuf_put(&b, "b", 1);
    CHECK_EQ(b.failed, 2);
    CHECK_EQ(b.len, 0u);
    ctxprof__free(b.p, NULL);
}

/* A second init of a live symbol table is refused and keeps the table (it
   would leak it, a megabyte or more); a zeroed, garbage or deinited one
   initialises, reload works again and again, and a table copied elsewhere
   leaves its old place looking live until that place is zeroed. */
static void core_symtab_double_init(void)
{
    ctxprof_symtab st, g, moved;
    ctxprof_error err;
    size_t count, heap, j;
    uintptr_t me = (uintptr_t)&core_symtab_double_init;
    memset(&err, 0, sizeof err);
    memset(&st, 0, sizeof st);
    if (ctxprof_symtab_init(&st, &err) == CTXPROF_ERR_UNSUPPORTED)
        SKIP("no symbol tables on this system");
    REQUIRE_EQ(err.status, CTXPROF_OK);
    count = st.count;
    REQUIRE(count > 0);
    heap = ctxprof_test_heap_bytes();
    CHECK_EQ(ctxprof_symtab_init(&st, &err), CTXPROF_ERR_INVAL);
    CHECK_HEAP_GREW_AT_MOST(heap, 0);
    CHECK_CONTAINS(err.detail, "already initialised: ctxprof_symtab_deinit first");
    CHECK_EQ(st.count, count);
    CHECK_EQ(ctxprof_symtab_func(&st, me), me);
    CHECK_EQ(ctxprof_symtab_reload(&st, &err), CTXPROF_OK); /* the way to read it again */
    CHECK_EQ(err.status, CTXPROF_OK);
    CHECK_EQ(ctxprof_symtab_reload(&st, &err), CTXPROF_OK);
    CHECK_EQ(ctxprof_symtab_init(&st, &err), CTXPROF_ERR_INVAL); /* reloaded: live */
    CHECK_EQ(ctxprof_symtab_func(&st, me), me);
    ctxprof_symtab_deinit(&st);
    CHECK_EQ(ctxprof_symtab_init(&st, &err), CTXPROF_OK);
    /* copied: the copy is the table; the old place is zeroed to reuse it */
    moved = st;
    CHECK_EQ(ctxprof_symtab_func(&moved, me), me);
    CHECK_EQ(ctxprof_symtab_init(&st, &err), CTXPROF_ERR_INVAL);
    memset(&st, 0, sizeof st);
    CHECK_EQ(ctxprof_symtab_init(&st, &err), CTXPROF_OK);
    ctxprof_symtab_deinit(&st);
    ctxprof_symtab_deinit(&moved);
    for (j = 0; j < sizeof g; j++) /* a stack table never initialised */
        ((unsigned char *)&g)[j] = (unsigned char)(0xA5 ^ j);
    CHECK_EQ(ctxprof_symtab_init(&g, &err), CTXPROF_OK);
    CHECK_EQ(ctxprof_symtab_func(&g, me), me);
    ctxprof_symtab_deinit(&g);
    CHECK_EQ(ctxprof_symtab_init(NULL, &err), CTXPROF_ERR_INVAL);
}

/* An object's own error record (here a graph's) holds its most recent
   failure: later successes leave it, init resets it. */
static void core_graph_error_kept(void)
{
    static const char bad[] = "ctxprof-callgraph 1\nroot main\nbogus a b\n";
    static const char good[] = "ctxprof-callgraph 1\nroot main\ncall main a\n";
    ctxprof_graph g;
    REQUIRE_EQ(ctxprof_graph_init(&g, NULL), CTXPROF_OK);
    CHECK_STR(ctxprof_graph_last_error(&g), "ok");
    CHECK_EQ(ctxprof_graph_parse(&g, bad, sizeof bad - 1, "bad.txt"), CTXPROF_ERR_PARSE);
    CHECK_CONTAINS(ctxprof_graph_last_error(&g), "bad.txt:3: unknown keyword 'bogus'");
    CHECK_EQ(ctxprof_graph_parse(&g, good, sizeof good - 1, "good.txt"), CTXPROF_OK);
    CHECK_EQ(ctxprof_graph_finish(&g), CTXPROF_OK);
    CHECK_EQ(g.error.status, CTXPROF_ERR_PARSE); /* kept */
    CHECK_CONTAINS(ctxprof_graph_last_error(&g), "bad.txt:3: unknown keyword 'bogus'");
    ctxprof_graph_deinit(&g);
    REQUIRE_EQ(ctxprof_graph_init(&g, NULL), CTXPROF_OK);
    CHECK_EQ(g.error.status, CTXPROF_OK);
    ctxprof_graph_deinit(&g);
}

/* An ELF64 image for core_symtab_elf_tables: header, .strtab at 64 (strs,
   strsize bytes), nsym FUNC symbols (symbol i named at name_at(i), at
   0x1000 + 16 i) after a null entry, then section headers: null, .strtab
   and the symbol-table headers, header j covering the entries from skip[j]
   (0: all of them). Returns the image (free it) and its size in *size. */
static unsigned char *core_elf_image(const char *strs, size_t strsize, size_t nsym,
                                     uint32_t (*name_at)(size_t), const size_t *skip, size_t nhdr,
                                     size_t *size)
{
    size_t symoff = (64 + strsize + 7) & ~(size_t)7, shoff = symoff + 24 * (nsym + 1);
    size_t total = shoff + 64 * (2 + nhdr), i, b;
    unsigned char *img = (unsigned char *)calloc(1, total);
    if (!img)
        return NULL;
#define CORE_PUT(p, v, n)                                                                          \
    for (b = 0; b < (n); b++)                                                                      \
        (p)[b] = (unsigned char)((uint64_t)(v) >> (8 * b));
    memcpy(img, "\177ELF", 4);
    img[4] = 2;
    img[5] = 1;
    img[6] = 1;
    CORE_PUT(img + 40, shoff, 8)
    CORE_PUT(img + 58, 64, 2)
    CORE_PUT(img + 60, 2 + nhdr, 2)
    memcpy(img + 64, strs, strsize);
    for (i = 0; i < nsym; i++) {
        unsigned char *y = img + symoff + 24 * (i + 1);
        CORE_PUT(y, name_at(i), 4)
        y[4] = 0x12; /* GLOBAL FUNC */
        CORE_PUT(y + 6, 1, 2)
        CORE_PUT(y + 8, 0x1000 + 16 * i, 8)
        CORE_PUT(y + 16, 16, 8)
    }
    CORE_PUT(img + shoff + 64 + 4, 3, 4) /* SHT_STRTAB */
    CORE_PUT(img + shoff + 64 + 24, 64, 8)
    CORE_PUT(img + shoff + 64 + 32, strsize, 8)
    for (i = 0; i < nhdr; i++) {
        unsigned char *h = img + shoff + 64 * (2 + i);
        CORE_PUT(h + 4, 2, 4) /* SHT_SYMTAB, linked to .strtab */
        CORE_PUT(h + 24, symoff + 24 * skip[i], 8)
        CORE_PUT(h + 32, 24 * (nsym + 1 - skip[i]), 8)
        CORE_PUT(h + 40, 1, 4)
        CORE_PUT(h + 56, 24, 8)
    }
#undef CORE_PUT
    *size = total;
    return img;
}

static uint32_t core_elf_name_own(size_t i)
{
    return (uint32_t)(1 + 5 * i); /* "f000", "f001", ... */
}

static uint32_t core_elf_name_shared(size_t i)
{
    (void)i;
    return 1;
}

/* Loads an ELF image from memory into a fresh table (test_icpp.c uses it
   too): the symbols added, or -1. */
static long core_elf_load(ctxprof_symtab *st, const unsigned char *img, size_t size)
{
    ctxprof__elfsrc src;
    memset(st, 0, sizeof *st);
    src.fd = -1;
    src.mem = img;
    src.size = size;
    if (ctxprof__symtab_obj(st, "mem") == UINT32_MAX)
        return -1;
    return ctxprof__symtab_add_elf(st, &src, 0x100000, NULL, 0, 0);
}

/* Section headers that all describe one symbol table (a corrupt or hostile
   file: 1000 headers over 5000 symbols once made 5 million symbols and
   400 MB) are read once; what is left beyond that, tables overlapping each
   other or one long name shared by every symbol, is bounded by the image:
   past the bound the image is corrupt and adds nothing. */
static void core_symtab_elf_tables(void)
{
    enum { NSYM = 300, NDUP = 400 };
    static size_t skip[NDUP];
    char *strs = (char *)calloc(1, 1 + 5 * NSYM);
    unsigned char *img;
    ctxprof_symtab one, dup;
    size_t size, i;
    REQUIRE(strs != NULL);
    for (i = 0; i < NSYM; i++)
        snprintf(strs + 1 + 5 * i, 5, "f%03u", (unsigned)i);
    img = core_elf_image(strs, 1 + 5 * NSYM, NSYM, core_elf_name_own, skip, 1, &size);
    REQUIRE(img != NULL);
    REQUIRE_EQ(core_elf_load(&one, img, size), NSYM);
    free(img);
    img = core_elf_image(strs, 1 + 5 * NSYM, NSYM, core_elf_name_own, skip, NDUP, &size);
    REQUIRE(img != NULL);
    CHECK_EQ(core_elf_load(&dup, img, size), NSYM); /* not NDUP * NSYM */
    free(img);
    REQUIRE_EQ(dup.count, one.count);
    CHECK_EQ(dup.names_len, one.names_len);
    for (i = 0; i < one.count; i++) {
        CHECK_EQ(dup.syms[i].start, one.syms[i].start);
        CHECK_STR(dup.names + dup.syms[i].name, one.names + one.syms[i].name);
    }
    REQUIRE_EQ(ctxprof__symtab_finish(&dup), 0);
    CHECK_STR(ctxprof_symtab_lookup(&dup, 0x100000 + 0x1000 + 16 * 7, NULL, NULL), "f007");
    ctxprof_symtab_deinit(&dup);
    ctxprof_symtab_deinit(&one);

    /* tables overlapping by all but a few entries: each is another table,
       but together they hold more entries than the image */
    for (i = 0; i < NDUP; i++)
        skip[i] = i % (NSYM / 2);
    img = core_elf_image(strs, 1 + 5 * NSYM, NSYM, core_elf_name_own, skip, 3, &size);
    REQUIRE(img != NULL);
    CHECK_EQ(core_elf_load(&one, img, size), 0);
    CHECK_EQ(one.count, 0);
    CHECK_EQ(one.names_len, 4); /* "mem" only */
    ctxprof_symtab_deinit(&one);
    free(img);
    /* small tables, but more of them than an image has: 8 are read (the
       last 1, 2, ..., 8 entries), 9 are not */
    for (i = 0; i < 9; i++)
        skip[i] = NSYM - i;
    img = core_elf_image(strs, 1 + 5 * NSYM, NSYM, core_elf_name_own, skip, 8, &size);
    REQUIRE(img != NULL);
    CHECK_EQ(core_elf_load(&one, img, size), 36);
    ctxprof_symtab_deinit(&one);
    free(img);
    img = core_elf_image(strs, 1 + 5 * NSYM, NSYM, core_elf_name_own, skip, 9, &size);
    REQUIRE(img != NULL);
    CHECK_EQ(core_elf_load(&one, img, size), 0);
    ctxprof_symtab_deinit(&one);
    free(img);

    /* every symbol named by one name longer than 48 bytes: the names copied
       would outgrow twice the image */
    free(strs);
    skip[0] = 0;
    strs = (char *)calloc(1, 2 + 400);
    REQUIRE(strs != NULL);
    memset(strs + 1, 'x', 400);
    img = core_elf_image(strs, 2 + 400, NSYM, core_elf_name_shared, skip, 1, &size);
    REQUIRE(img != NULL);
    CHECK_EQ(core_elf_load(&one, img, size), 0);
    CHECK_EQ(one.count, 0);
    CHECK_EQ(one.names_len, 4);
    ctxprof_symtab_deinit(&one);
    free(img);
    /* the same name on a few symbols is fine */
    img = core_elf_image(strs, 2 + 400, 3, core_elf_name_shared, skip, 1, &size);
    REQUIRE(img != NULL);
    CHECK_EQ(core_elf_load(&one, img, size), 3);
    ctxprof_symtab_deinit(&one);
    free(img);
    free(strs);
}

static const ctxprof_test_case ctxprof_tests_core[] = {
    {"core_strerror", core_strerror},
    {"core_demangle", core_demangle},
    {"core_hash", core_hash},
    {"core_lines", core_lines},
    {"core_strtab", core_strtab},
    {"core_blob", core_blob},
    {"core_atomic_write", core_atomic_write},
    {"core_sbuf", core_sbuf},
    {"core_symtab_double_init", core_symtab_double_init},
    {"core_symtab_elf_tables", core_symtab_elf_tables},
    {"core_graph_error_kept", core_graph_error_kept},
    {0, 0}};
