/* Packaging: make install / uninstall into a temporary prefix, and a program
   built against the installed headers three ways (include path, pkg-config,
   CMake find_package). Included by test_main.c. */

static void package_install(void)
{
    const char *d = ctxprof_test_tmpdir();
    PLAIN_BUILD_ONLY();
    REQUIRE_EQ(ctxprof_test_sh("make -s install PREFIX=%s/prefix > %s/install.log 2>&1", d, d), 0);
    CHECK_EQ(ctxprof_test_sh("test -f %s/prefix/include/ctxprof.h && test -f "
                             "%s/prefix/include/ctxprof_hcct.h && test -f "
                             "%s/prefix/include/ctxprof_pebs.h && test -x %s/prefix/bin/ctxprof-set && "
                             "test -f %s/prefix/lib/pkgconfig/ctxprof.pc && "
                             "test -f %s/prefix/lib/cmake/ctxprof/ctxprofConfig.cmake",
                             d, d, d, d, d, d),
             0);
    /* a consumer outside the source tree: only the installed headers exist */
    REQUIRE_EQ(ctxprof_test_sh("mkdir -p %s/consumer && cp examples/anomaly/minikv.c "
                               "tests/data/cmake/CMakeLists.txt examples/anomaly/train1.txt %s/consumer/",
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
    /* asking for a newer version than installed fails */
    CHECK_NE(ctxprof_test_sh("cd %s/consumer && sed -i 's/ctxprof 0.1/ctxprof 0.2/' CMakeLists.txt && "
                             "cmake -S . -B cm2 -DCMAKE_PREFIX_PATH=%s/prefix > /dev/null 2>&1",
                             d, d),
             0);
    REQUIRE_EQ(ctxprof_test_sh("make -s uninstall PREFIX=%s/prefix > /dev/null 2>&1", d), 0);
    CHECK_EQ(ctxprof_test_sh("test -z \"$(find %s/prefix -type f)\"", d), 0);
    /* DESTDIR stages under another root with the final paths inside */
    REQUIRE_EQ(ctxprof_test_sh("make -s install DESTDIR=%s/stage PREFIX=/opt/cp > /dev/null 2>&1",
                               d),
               0);
    CHECK_EQ(ctxprof_test_sh("grep -qx 'prefix=/opt/cp' %s/stage/opt/cp/lib/pkgconfig/ctxprof.pc", d),
             0);
}

/* Every tool answers --version with the header's version and --help with
   its usage. */
static void package_tools(void)
{
    const char *tools[] = {"build/ctxprof-set", "build/ctxprof-gen", NULL};
    int i;
    for (i = 0; tools[i]; i++) {
        CHECK_EQ(ctxprof_test_sh("%s --version | grep -q ' %s$'", tools[i], CTXPROF_VERSION_STRING),
                 0);
        CHECK_EQ(ctxprof_test_sh("%s --help | grep -q usage", tools[i]), 0);
    }
    CHECK_EQ(ctxprof_test_sh("grep -q '## Unreleased (%s)' CHANGELOG.md", CTXPROF_VERSION_STRING), 0);
}

static const ctxprof_test_case ctxprof_tests_package[] = {
    {"package_install", package_install},
    {"package_tools", package_tools},
    {0, 0}};
