/* Packaging: make install / uninstall into a temporary prefix, and a program
   built against the installed headers three ways (include path, pkg-config,
   CMake find_package). Included by test_main.c. */

static void package_install(void)
{
    const char *d = ctxprof_test_tmpdir();
    PLAIN_BUILD_ONLY();
#if !defined(__GLIBC__)
    SKIP("the glibc configurations check the package (CMake takes no flags in CC)");
#endif
    REQUIRE_EQ(ctxprof_test_sh("make -s install PREFIX=%s/prefix > %s/install.log 2>&1", d, d), 0);
    CHECK_EQ(ctxprof_test_sh("test -f %s/prefix/include/ctxprof.h && test -f "
                             "%s/prefix/include/ctxprof_hcct.h && test -f "
                             "%s/prefix/include/ctxprof_pebs.h && test -x %s/prefix/bin/ctxprof-set && "
                             "test -f %s/prefix/lib/pkgconfig/ctxprof.pc && "
                             "test -f %s/prefix/lib/cmake/ctxprof/ctxprofConfig.cmake && "
                             "test -f %s/prefix/share/doc/ctxprof/docs/ctxprof-gen.md && "
                             "test -f %s/prefix/share/doc/ctxprof/docs/ctxprof-set.md",
                             d, d, d, d, d, d, d, d),
             0);
    /* the installed README's relative links reach the installed files */
    CHECK_EQ(ctxprof_test_sh("cd %s/prefix/share/doc/ctxprof && n=0 && for l in $(grep -o "
                             "']([^):# ]*)' README.md | sed 's/^](//; s/)$//'); do "
                             "test -f \"$l\" || exit 1; n=$((n + 1)); done && test $n -ge 2",
                             d),
             0);
    /* a consumer outside the source tree: only the installed headers exist */
    REQUIRE_EQ(ctxprof_test_sh("mkdir -p %s/consumer && cp examples/anomaly/minikv.c "
                               "tests/data/cmake/CMakeLists.txt tests/data/consumer_all.c "
                               "examples/anomaly/train1.txt %s/consumer/",
                               d, d),
               0);
    CHECK_EQ(ctxprof_test_sh("cd %s/consumer && %s -O2 -I%s/prefix/include minikv.c -o kv-plain "
                             "&& ./kv-plain --train plain.set train1.txt >/dev/null 2>&1 && "
                             "test -s plain.set",
                             d, CTXPROF_TEST_CC, d),
             0);
    CHECK_EQ(ctxprof_test_sh("cd %s/consumer && PKG_CONFIG_PATH=%s/prefix/lib/pkgconfig && "
                             "export PKG_CONFIG_PATH && pkg-config --modversion ctxprof | grep -qx %s "
                             "&& %s -O2 $(pkg-config --cflags ctxprof) minikv.c -o kv-pc "
                             "$(pkg-config --libs ctxprof) && ./kv-pc --train pc.set train1.txt "
                             ">/dev/null 2>&1 && cmp -s plain.set pc.set",
                             d, d, CTXPROF_VERSION_STRING, CTXPROF_TEST_CC),
             0);
    CHECK_EQ(ctxprof_test_sh("cd %s/consumer && CC=%s cmake -S . -B cm -DCMAKE_PREFIX_PATH=%s/prefix "
                             "> cmake.log 2>&1 && cmake --build cm >> cmake.log 2>&1 && "
                             "./cm/minikv --train cm.set train1.txt >/dev/null 2>&1 && "
                             "cmp -s plain.set cm.set",
                             d, CTXPROF_TEST_CC, d),
             0);
    /* all three headers in one program, the same three ways; with libpfm
       also the ctxprof-pfm variants (the program encodes a libpfm name) */
    CHECK_EQ(ctxprof_test_sh("cd %s/consumer && %s -O2 -I%s/prefix/include consumer_all.c -o all "
                             "-pthread -lrt && ./all | grep -qx ok",
                             d, CTXPROF_TEST_CC, d),
             0);
    CHECK_EQ(ctxprof_test_sh("cd %s/consumer && PKG_CONFIG_PATH=%s/prefix/lib/pkgconfig && "
                             "export PKG_CONFIG_PATH && %s -O2 $(pkg-config --cflags ctxprof) "
                             "consumer_all.c -o all-pc $(pkg-config --libs ctxprof) && "
                             "./all-pc | grep -qx ok",
                             d, d, CTXPROF_TEST_CC),
             0);
    CHECK_EQ(ctxprof_test_sh("cd %s/consumer && ./cm/consumer_all | grep -qx ok", d), 0);
#ifdef CTXPROF_HAVE_LIBPFM /* the Makefile's probe found libpfm (as for pebs_libpfm) */
    CHECK_EQ(ctxprof_test_sh("cd %s/consumer && PKG_CONFIG_PATH=%s/prefix/lib/pkgconfig && "
                             "export PKG_CONFIG_PATH && %s -O2 $(pkg-config --cflags ctxprof-pfm) "
                             "consumer_all.c -o all-pfm $(pkg-config --libs ctxprof-pfm) && "
                             "./all-pfm | grep -qx libpfm",
                             d, d, CTXPROF_TEST_CC),
             0);
    CHECK_EQ(ctxprof_test_sh("cd %s/consumer && ./cm/consumer_pfm | grep -qx libpfm", d), 0);
#else
    printf("  (libpfm4-dev not installed: the ctxprof-pfm variants are not built)\n");
#endif
    /* asking for a newer version than installed fails */
    CHECK_NE(ctxprof_test_sh("cd %s/consumer && sed -i 's/ctxprof 0.1/ctxprof 0.2/' CMakeLists.txt && "
                             "cmake -S . -B cm2 -DCMAKE_PREFIX_PATH=%s/prefix > /dev/null 2>&1",
                             d, d),
             0);
    REQUIRE_EQ(ctxprof_test_sh("make -s uninstall PREFIX=%s/prefix > /dev/null 2>&1", d), 0);
    CHECK_EQ(ctxprof_test_sh("test -z \"$(find %s/prefix -type f)\"", d), 0);
    CHECK_EQ(ctxprof_test_sh("test ! -e %s/prefix/lib/cmake/ctxprof && "
                             "test ! -e %s/prefix/share/doc/ctxprof",
                             d, d),
             0);
    /* DESTDIR stages under another root with the final paths inside */
    REQUIRE_EQ(ctxprof_test_sh("make -s install DESTDIR=%s/stage PREFIX=/opt/cp > /dev/null 2>&1",
                               d),
               0);
    CHECK_EQ(ctxprof_test_sh("grep -qx 'prefix=/opt/cp' %s/stage/opt/cp/lib/pkgconfig/ctxprof.pc", d),
             0);
}

/* Every tool answers --version with the header's version and --help with
   its usage and every input format it reads; its manual page in docs/
   names every option the help names. */
static void package_tools(void)
{
    static const struct {
        const char *tool, *formats[6];
    } tools[] = {
        {"ctxprof-set", {"64-byte header", "little-endian", NULL}},
        {"ctxprof-gen",
         {"ctxprof-callgraph 1", "-fcallgraph-info", "ctxprof-paths 1", "-fstack-usage",
          "frame=BYTES", NULL}},
    };
    size_t i, k;
    for (i = 0; i < sizeof tools / sizeof tools[0]; i++) {
        const char *t = tools[i].tool;
        CHECK_EQ(ctxprof_test_sh("build/%s --version | grep -qx '%s %s'", t, t,
                                 CTXPROF_VERSION_STRING),
                 0);
        CHECK_EQ(ctxprof_test_sh("build/%s --help | grep -q usage", t), 0);
        for (k = 0; tools[i].formats[k]; k++)
            CHECK_EQ(ctxprof_test_sh("build/%s --help | grep -q -e '%s'", t, tools[i].formats[k]),
                     0);
        CHECK_EQ(ctxprof_test_sh("grep -q '^# %s(1)' docs/%s.md && grep -q '^## SYNOPSIS' "
                                 "docs/%s.md && grep -q '^## EXIT STATUS' docs/%s.md",
                                 t, t, t, t),
                 0);
        CHECK_EQ(ctxprof_test_sh("for o in $(build/%s --help | grep -o -e ' --[a-z][a-z-]*' -e "
                                 "' -[a-z] '); do grep -q -e \"$o\" docs/%s.md || "
                                 "{ echo \"docs/%s.md lacks $o\"; exit 1; }; done",
                                 t, t, t),
                 0);
    }
    CHECK_EQ(ctxprof_test_sh("grep -q '## Unreleased (%s)' CHANGELOG.md", CTXPROF_VERSION_STRING), 0);
}

/* Each header carries its version, the same as ctxprof.h's and as its doc
   block's; a header next to a ctxprof.h of another release refuses to
   compile and says why. */
static void package_versions(void)
{
    const char *d = ctxprof_test_tmpdir();
    CHECK_STR(CTXPROF_HCCT_VERSION_STRING, CTXPROF_VERSION_STRING);
    CHECK_STR(CTXPROF_PEBS_VERSION_STRING, CTXPROF_VERSION_STRING);
    CHECK_EQ(ctxprof_test_sh("for h in ctxprof.h ctxprof_hcct.h ctxprof_pebs.h; do "
                             "head -n 1 $h | grep -q ' - v%s - ' || exit 1; done",
                             CTXPROF_VERSION_STRING),
             0);
    PLAIN_BUILD_ONLY();
    REQUIRE_EQ(ctxprof_test_sh("mkdir -p %s/mixed && sed 's/define CTXPROF_VERSION_MINOR .*/define "
                               "CTXPROF_VERSION_MINOR 99/' ctxprof.h > %s/mixed/ctxprof.h && "
                               "cp ctxprof_hcct.h ctxprof_pebs.h %s/mixed/",
                               d, d, d),
               0);
    CHECK_EQ(ctxprof_test_sh("cd %s/mixed && echo '#include \"ctxprof.h\"' | %s -fsyntax-only "
                             "-x c -I. - 2>/dev/null",
                             d, CTXPROF_TEST_CC),
             0);
    CHECK_NE(ctxprof_test_sh("cd %s/mixed && echo '#include \"ctxprof_hcct.h\"' | %s "
                             "-fsyntax-only -x c -I. - 2>hcct.err",
                             d, CTXPROF_TEST_CC),
             0);
    CHECK_EQ(ctxprof_test_sh("grep -q 'needs the ctxprof.h of the same release' %s/mixed/hcct.err",
                             d),
             0);
    CHECK_NE(ctxprof_test_sh("cd %s/mixed && echo '#include \"ctxprof_pebs.h\"' | %s "
                             "-fsyntax-only -x c -I. - 2>/dev/null",
                             d, CTXPROF_TEST_CC),
             0);
}

/* Runs a command in dir under a file size limit of `blocks` (ulimit -f,
   512-byte blocks; SIGXFSZ ignored, so writes fail with EFBIG); its exit
   status and standard error go to msg as "rc=N ..." (through a pipe: the
   limit would cut a file). */
static void package_limited(const char *dir, int blocks, const char *cmd, char *msg, size_t cap)
{
    char path[600];
    FILE *f;
    size_t n = 0;
    ctxprof_test_sh("cd %s && { (trap '' XFSZ; ulimit -f %d; exec %s) 2>&1 >/dev/null; "
                    "echo \"rc=$?\"; } | cat > limited.out",
                    dir, blocks, cmd);
    snprintf(path, sizeof path, "%s/limited.out", dir);
    if ((f = fopen(path, "r")) != NULL) {
        n = fread(msg, 1, cap - 1, f);
        fclose(f);
    }
    msg[n] = '\0';
}

/* The tools write through the same atomic writer: under a file size limit
   at every 512-byte block ctxprof-gen -o and ctxprof-set merge -o fail with
   exit status 2 and the cause, and the old output stays whole. */
static void package_robust_tools(void)
{
    const char *d = ctxprof_test_tmpdir();
    char msg[1024], cmd[2048], cwd[512], dir[600];
    int cut, tried = 0;
    PLAIN_BUILD_ONLY();
    REQUIRE(getcwd(cwd, sizeof cwd) != NULL);
    snprintf(cmd, sizeof cmd, "%s/build/ctxprof-gen -o tool.h %s/examples/encoders/expr.callgraph",
             cwd, cwd);
    REQUIRE_EQ(ctxprof_test_sh("mkdir -p %s/tf/ref && cd %s/tf && echo '/* old */' > tool.h && "
                               "cp tool.h tool.old && cd ref && %s",
                               d, d, cmd),
               0);
    snprintf(dir, sizeof dir, "%s/tf", d);
    for (cut = 0; ctxprof_test_sh("test $(wc -c < %s/ref/tool.h) -gt %d", dir, cut * 512) == 0;
         cut++) {
        package_limited(dir, cut, cmd, msg, sizeof msg);
        CHECK_CONTAINS(msg, "rc=2");
        CHECK_CONTAINS(msg, "File too large");
        CHECK_EQ(ctxprof_test_sh("cmp -s %s/tool.h %s/tool.old", dir, dir), 0);
        tried++;
    }
    CHECK_GE(tried, 2);
    CHECK_EQ(ctxprof_test_sh("ls %s | grep -c 'tool.h.tmp' > /dev/null", dir), 1);
    package_limited(dir, cut, cmd, msg, sizeof msg);
    CHECK_CONTAINS(msg, "rc=0");
    CHECK_EQ(ctxprof_test_sh("cmp -s %s/tool.h %s/ref/tool.h", dir, dir), 0);
    /* ctxprof-set merge -o over an existing set */
    REQUIRE_EQ(ctxprof_test_sh("cd %s && printf 'set a 1\\nget a\\n' > one.txt && "
                               "%s/build/examples/anomaly/minikv --train one.set one.txt "
                               ">/dev/null 2>&1; printf 'x' > merged.set",
                               dir, cwd),
               0);
    snprintf(cmd, sizeof cmd, "%s/build/ctxprof-set merge -o merged.set one.set one.set", cwd);
    package_limited(dir, 0, cmd, msg, sizeof msg);
    CHECK_CONTAINS(msg, "rc=2");
    CHECK_CONTAINS(msg, "File too large");
    CHECK_EQ(ctxprof_test_sh("test \"$(cat %s/merged.set)\" = x", dir), 0);
    package_limited(dir, 8, cmd, msg, sizeof msg);
    CHECK_CONTAINS(msg, "rc=0");
    CHECK_EQ(ctxprof_test_sh("cmp -s %s/one.set %s/merged.set", dir, dir), 0);
    printf("  tools: ctxprof-gen -o cut at %d limits (every 512 bytes), ctxprof-set merge -o "
           "at 1: exit status 2, old file kept\n",
           tried);
}

static const ctxprof_test_case ctxprof_tests_package[] = {
    {"package_install", package_install},
    {"package_tools", package_tools},
    {"package_versions", package_versions},
    {"package_robust_tools", package_robust_tools},
    {0, 0}};
