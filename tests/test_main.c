/* The test runner: one translation unit with the implementation and every
   module's test file, so cases may call private helpers. Usage:

       test_ctxprof [SUBSTRING]    run the cases whose name contains SUBSTRING

   Prints "ok NAME" / "FAIL NAME" / "skip NAME" per case and ends with the line
   "N passed, N failed" (", N skipped" appended when something skipped).
   A case that runs longer than CTXPROF_TEST_CASE_SECONDS (default 900; 0:
   no limit, as under valgrind) is a hang: the binary says which and exits 1. */
#define _GNU_SOURCE
#define CTXPROF_IMPLEMENTATION
#include "../ctxprof.h"
#include "../ctxprof_hcct.h"
#include "../ctxprof_pebs.h"
#include "ctxprof_test.h"

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char ctxprof_test_dir[256];

static void ctxprof_test_cleanup(void)
{
    char cmd[300];
    if (ctxprof_test_dir[0] && !getenv("CTXPROF_TEST_KEEP")) {
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", ctxprof_test_dir);
        if (system(cmd) != 0)
            fprintf(stderr, "could not remove %s\n", ctxprof_test_dir);
    }
}

/* Removed at exit unless CTXPROF_TEST_KEEP is set. */
const char *ctxprof_test_tmpdir(void)
{
    char *dir = ctxprof_test_dir;
    if (!dir[0]) {
        const char *base = getenv("TMPDIR");
        snprintf(dir, sizeof ctxprof_test_dir, "%s/ctxprof-test-XXXXXX",
                 base && *base ? base : "/tmp");
        if (!mkdtemp(dir)) {
            perror("mkdtemp");
            exit(2);
        }
        atexit(ctxprof_test_cleanup);
    }
    return dir;
}

int ctxprof_test_deny_syscall(long nr, int err)
{
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (uint32_t)offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((uint32_t)err & SECCOMP_RET_DATA)),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog;
    prog.len = (unsigned short)(sizeof f / sizeof f[0]);
    prog.filter = f;
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0)
        return -1;
    return 0;
}

int ctxprof_test_sh(const char *fmt, ...)
{
    char cmd[4096];
    va_list ap;
    int rc;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    fflush(NULL);
    rc = system(cmd);
    if (rc == -1 || !WIFEXITED(rc))
        return -1;
    return WEXITSTATUS(rc);
}

/* The watchdog of a case: SIGALRM in this process names the case and ends
   the run (the case may hold locks: nothing else is safe). A forked child
   inherits the handler but not the alarm: there SIGALRM is its own (the
   timeouts of ctxprof_test_child), so it dies of it as if unhandled. */
static const char *volatile ctxprof_test_current;
static pid_t ctxprof_test_pid;

static void ctxprof_test_put_str(const char *s)
{
    size_t n = strlen(s);
    while (n) {
        ssize_t w = write(1, s, n);
        if (w <= 0)
            return;
        s += w;
        n -= (size_t)w;
    }
}

static void ctxprof_test_on_alarm(int sig)
{
    if (getpid() != ctxprof_test_pid) {
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    ctxprof_test_put_str("FAIL ");
    ctxprof_test_put_str(ctxprof_test_current ? ctxprof_test_current : "?");
    ctxprof_test_put_str(" (still running at the per-case limit, CTXPROF_TEST_CASE_SECONDS: a "
                         "hang?)\n");
    _exit(1);
}

#include "test_core.c"
#include "test_pcc.c"
#include "test_icpp.c"
#include "test_package.c"
#include "test_pcce.c"
#include "test_valence.c"
#include "test_gen.c"
#include "test_hcct.c"
#include "test_pebs.c"

static const struct {
    const char *module;
    const ctxprof_test_case *cases;
} ctxprof_test_tables[] = {
    {"core", ctxprof_tests_core},
    {"pcc", ctxprof_tests_pcc},
    {"icpp", ctxprof_tests_icpp},
    {"package", ctxprof_tests_package},
    {"pcce", ctxprof_tests_pcce},
    {"valence", ctxprof_tests_valence},
    {"gen", ctxprof_tests_gen},
    {"hcct", ctxprof_tests_hcct},
    {"pebs", ctxprof_tests_pebs},
};

int main(int argc, char **argv)
{
    int passed = 0, failed = 0, skipped = 0, k;
    unsigned limit = 900;
    const char *env = getenv("CTXPROF_TEST_CASE_SECONDS");
    size_t t;
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (env && *env)
        limit = (unsigned)strtoul(env, NULL, 10);
    if (ctxprof_test_under_valgrind())
        limit = 0;
    ctxprof_test_pid = getpid();
    signal(SIGALRM, ctxprof_test_on_alarm);
    for (t = 0; t < sizeof ctxprof_test_tables / sizeof ctxprof_test_tables[0]; t++) {
        const ctxprof_test_case *c;
        for (c = ctxprof_test_tables[t].cases; c->name; c++) {
            for (k = 1; k < argc && !strstr(c->name, argv[k]); k++) /* any of the filters */
                ;
            if (argc > 1 && k == argc)
                continue;
            struct timespec t0, t1;
            double secs;
            ctxprof_test_failed = 0;
            ctxprof_test_skipped = 0;
            ctxprof_test_current = c->name;
            clock_gettime(CLOCK_MONOTONIC, &t0);
            alarm(limit);
            c->fn();
            alarm(0);
            clock_gettime(CLOCK_MONOTONIC, &t1);
            secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
            if (secs >= 2)
                printf("  (%s took %.1f s)\n", c->name, secs);
            if (ctxprof_test_failed) {
                printf("FAIL %s\n", c->name);
                failed++;
            } else if (ctxprof_test_skipped) {
                printf("skip %s\n", c->name);
                skipped++;
            } else {
                printf("ok %s\n", c->name);
                passed++;
            }
        }
    }
    if (skipped)
        printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
    else
        printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
