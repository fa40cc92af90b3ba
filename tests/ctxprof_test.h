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

/* Comparisons print both values. Numbers compare by value as long double
 * (exact for every 64-bit integer, so -1 < 0 and 0.7 > 0.5); anything else
 * (pointers) compares as unsigned long long. Each operand is evaluated once. */
#define CTXPROF_TEST_NUM(x)                                                                        \
    _Generic((x), _Bool: 1, char: 1, signed char: 1, unsigned char: 1, short: 1,                   \
             unsigned short: 1, int: 1, unsigned: 1, long: 1, unsigned long: 1, long long: 1,      \
             unsigned long long: 1, float: 1, double: 1, long double: 1, default: 0)
#define CTXPROF_TEST_VAL(x)                                                                        \
    _Generic((x), _Bool: (x), char: (x), signed char: (x), unsigned char: (x), short: (x),         \
             unsigned short: (x), int: (x), unsigned: (x), long: (x), unsigned long: (x),          \
             long long: (x), unsigned long long: (x), float: (x), double: (x),                     \
             long double: (x), default: 0)
#define CTXPROF_TEST_RAW(x) _Generic((x), float: 0, double: 0, long double: 0, default: (x))
#define CTXPROF_TEST_CMP(a, op, b, ret)                                                            \
    do {                                                                                           \
        __typeof__((a) + 0) ctxprof_test_ea = (a);                                                 \
        __typeof__((b) + 0) ctxprof_test_eb = (b);                                                 \
        int ctxprof_test_num = CTXPROF_TEST_NUM(ctxprof_test_ea) && CTXPROF_TEST_NUM(ctxprof_test_eb); \
        long double ctxprof_test_x = CTXPROF_TEST_VAL(ctxprof_test_ea);                            \
        long double ctxprof_test_y = CTXPROF_TEST_VAL(ctxprof_test_eb);                            \
        unsigned long long ctxprof_test_a = (unsigned long long)CTXPROF_TEST_RAW(ctxprof_test_ea); \
        unsigned long long ctxprof_test_b = (unsigned long long)CTXPROF_TEST_RAW(ctxprof_test_eb); \
        if (ctxprof_test_num ? !(ctxprof_test_x op ctxprof_test_y)                                 \
                             : !(ctxprof_test_a op ctxprof_test_b)) {                              \
            char ctxprof_test_v[128];                                                              \
            if (ctxprof_test_num)                                                                  \
                snprintf(ctxprof_test_v, sizeof ctxprof_test_v, "(a=%.21Lg, b=%.21Lg)",            \
                         ctxprof_test_x, ctxprof_test_y);                                          \
            else                                                                                   \
                snprintf(ctxprof_test_v, sizeof ctxprof_test_v, "(a=%#llx, b=%#llx)",              \
                         ctxprof_test_a, ctxprof_test_b);                                          \
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
/* Under valgrind (make memcheck) too: valgrind does not follow the programs,
   and its LD_PRELOAD, which they inherit, breaks their allocator. */
#define PLAIN_BUILD_ONLY()                                                                         \
    do {                                                                                           \
        if (ctxprof_test_under_valgrind())                                                         \
            SKIP("builds separate programs, which valgrind does not follow");                      \
    } while (0)
#endif

#define SKIP(why)                                                                                  \
    do {                                                                                           \
        fprintf(stderr, "  skip: %s\n", (why));                                                    \
        ctxprof_test_skipped = 1;                                                                  \
        return;                                                                                    \
    } while (0)

/* Skips a case run by ctxprof_test_in_pid_ns (releasing its results r)
   when no pid namespace could be made here. */
#define SKIP_NO_PID_NS(r, what)                                                                    \
    do {                                                                                           \
        if ((r)->ns.skipped) {                                                                     \
            static char ctxprof_test_why[sizeof(r)->ns.why + 64];                                  \
            snprintf(ctxprof_test_why, sizeof ctxprof_test_why, "%s: %s", (what), (r)->ns.why);    \
            munmap((r), sizeof *(r));                                                              \
            SKIP(ctxprof_test_why);                                                                \
        }                                                                                          \
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

/* Under valgrind the CPU runs valgrind's translation of the program, so a
   program counter sampled by perf_event lies in valgrind's code cache, not
   in the program (a signal's context, which valgrind builds itself, is
   fine). Cases that check where such samples land call this first. */
static inline int ctxprof_test_under_valgrind(void)
{
    const char *p = getenv("LD_PRELOAD");
    return p && strstr(p, "vgpreload") != NULL;
}
#define HARDWARE_PC_CHECKS()                                                                       \
    do {                                                                                           \
        if (ctxprof_test_under_valgrind())                                                         \
            SKIP("under valgrind sampled PCs are in its translated code");                         \
    } while (0)

/* A fresh directory under $TMPDIR (or /tmp) for this run; path in static memory. */
const char *ctxprof_test_tmpdir(void);
/* Runs a shell command, returns its exit status (or -1). */
int ctxprof_test_sh(const char *fmt, ...);
/* Installs a seccomp filter in the calling process (a forked child) that
   fails system call nr with errno err; 0, or -1 with errno set. */
int ctxprof_test_deny_syscall(long nr, int err);

/* ---- fault injection (robustness cases of each module) ----

   ctxprof_test_in_child: a case's work in a forked child under an alarm,
   results in memory shared with the parent. ctxprof_test_storm_run: a storm
   of queued signals. ctxprof_test_torn_writes: a truncating writer at every
   byte offset. ctxprof_test_disk_full: a real full file system (a private
   tmpfs). ctxprof_test_heap_bytes: the heap in use, for bounds. */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

/* musl declares the ucontext functions but defines none (libucontext
   does): weak there, so the coroutine cases can skip where they are
   missing. */
#if defined(__GLIBC__)
#define CTXPROF_TEST_UCONTEXT() 1
#else
#pragma weak getcontext
#pragma weak makecontext
#pragma weak swapcontext
#define CTXPROF_TEST_UCONTEXT() (getcontext != NULL && swapcontext != NULL)
#endif
#define SKIP_NO_UCONTEXT()                                                                         \
    do {                                                                                           \
        if (!CTXPROF_TEST_UCONTEXT())                                                              \
            SKIP("no makecontext/swapcontext in this libc (musl)");                                \
    } while (0)

/* Runs fn(arg, shared) in a forked child that is killed by SIGALRM after
   timeout_s seconds (a deadlock fails instead of hanging the suite);
   shared is memory both processes see (ctxprof_test_shared). Returns fn's
   return value (0..255), or -1 when the child died of a signal (*out_sig
   gets it, e.g. SIGALRM on a timeout). */
static inline int ctxprof_test_child(int (*fn)(void *arg, void *shared), void *arg, void *shared,
                                     unsigned timeout_s, int *out_sig)
{
    pid_t pid;
    int st;
    *out_sig = 0;
    fflush(NULL);
    pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        alarm(timeout_s);
        _exit(fn(arg, shared) & 255); /* no atexit handlers: they belong to the parent */
    }
    if (waitpid(pid, &st, 0) != pid)
        return -1;
    if (WIFSIGNALED(st))
        *out_sig = WTERMSIG(st);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* A storm of queued real-time signals (queued ones never merge): a thread
   function that sends n signals to targets[] round-robin with
   pthread_sigqueue, the first half one at a time (each waits up to 20 us
   for *handled, which the handler increments, to catch up, or 5 us when
   handled is NULL: so each lands wherever its target happens to be), the
   rest in one burst. Sends the kernel refuses (a full queue) are counted,
   not retried; sent[] are exact. done is set (release) at the end. */
typedef struct ctxprof_test_storm {
    pthread_t targets[8];
    int ntargets, signo;
    unsigned n;
    int vary_value; /* sigval = i % 64 (a plausible file descriptor) instead of 0 */
    uint64_t *handled;
    uint64_t sent[8], refused;
    int done;
} ctxprof_test_storm;

/* Signals per storm: 40,000, a tenth under valgrind (which delivers each
   one slowly: a storm would take minutes there). */
#define CTXPROF_TEST_STORM_SIGNALS (ctxprof_test_under_valgrind() ? 4000u : 40000u)

static inline void *ctxprof_test_storm_run(void *arg)
{
    ctxprof_test_storm *s = (ctxprof_test_storm *)arg;
    uint64_t total = 0;
    union sigval v;
    unsigned i;
    memset(&v, 0, sizeof v); /* all of it: the kernel copies the whole union */
    for (i = 0; i < s->n; i++) {
        int k = (int)(i % (unsigned)s->ntargets);
        long wait_ns = i >= s->n / 2 ? 0 : s->handled ? 20000 : 5000;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (;;) {
            clock_gettime(CLOCK_MONOTONIC, &t1);
            if ((t1.tv_sec - t0.tv_sec) * 1000000000L + (t1.tv_nsec - t0.tv_nsec) >= wait_ns ||
                (s->handled && __atomic_load_n(s->handled, __ATOMIC_ACQUIRE) >= total))
                break;
        }
        v.sival_int = s->vary_value ? (int)(i % 64) : 0;
#if defined(__GLIBC__)
        if (pthread_sigqueue(s->targets[k], s->signo, v) == 0) {
#else /* musl has no pthread_sigqueue: signals without a value */
        if (pthread_kill(s->targets[k], s->signo) == 0) {
#endif
            s->sent[k]++;
            total++;
        } else {
            s->refused++;
        }
    }
    __atomic_store_n(&s->done, 1, __ATOMIC_RELEASE);
    return NULL;
}

/* Memory shared with forked children (zeroed), or NULL. */
static inline void *ctxprof_test_shared(size_t size)
{
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

/* Runs fn(arg, shared) in a forked child under a 120 s alarm with `size`
   zeroed bytes of shared memory for its results, and checks that it exited
   with status 0 (killed by SIGALRM: a deadlock). Returns the memory, to
   release with munmap, or NULL. */
static inline void *ctxprof_test_in_child(int (*fn)(void *arg, void *shared), void *arg,
                                          size_t size)
{
    void *r = ctxprof_test_shared(size);
    int sig = 0;
    if (!r) {
        CHECK(!"no shared memory for the child");
        return NULL;
    }
    CHECK_EQ(ctxprof_test_child(fn, arg, r, 120, &sig), 0);
    if (sig)
        fprintf(stderr, "  child killed by signal %d%s\n", sig,
                sig == SIGALRM ? " (the alarm: a deadlock)" : "");
    CHECK_EQ(sig, 0);
    return r;
}

/* Thread-id reuse on purpose: the next id this pid namespace hands out
   becomes `next` (writes ns_last_pid). 0, or -1 with why (cap bytes) set. */
static inline int ctxprof_test_set_next_tid(long next, char *why, size_t cap)
{
    char v[32];
    int fd, ok;
    snprintf(v, sizeof v, "%ld", next - 1);
    fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY | O_CLOEXEC);
    ok = fd >= 0 && write(fd, v, strlen(v)) == (ssize_t)strlen(v);
    if (fd >= 0)
        close(fd);
    if (!ok)
        snprintf(why, cap, "cannot set ns_last_pid: %s", strerror(errno));
    return ok ? 0 : -1;
}

/* The head (first member) of a pid-namespace case's shared results. */
typedef struct ctxprof_test_ns {
    int skipped;   /* no pid namespace, /proc or ns_last_pid here */
    char why[200];
} ctxprof_test_ns;

typedef struct ctxprof_test_ns_run {
    int (*fn)(void *shared);
    int mount_proc;
} ctxprof_test_ns_run;

static inline int ctxprof_test_ns_child(void *arg, void *shared)
{
    const ctxprof_test_ns_run *run = (const ctxprof_test_ns_run *)arg;
    ctxprof_test_ns *h = (ctxprof_test_ns *)shared;
    int flags = CLONE_NEWPID | (run->mount_proc ? CLONE_NEWNS : 0), st;
    pid_t pid;
    if (unshare(flags) != 0 && unshare(CLONE_NEWUSER | flags) != 0) {
        h->skipped = 1;
        snprintf(h->why, sizeof h->why, "no pid namespace here (%s)", strerror(errno));
        return 0;
    }
    pid = fork(); /* the first process of the namespace */
    if (pid < 0)
        return 1;
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* the alarm kills it through its parent */
        if (run->mount_proc && (mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
                                mount("proc", "/proc", "proc", 0, NULL) != 0)) {
            h->skipped = 1;
            snprintf(h->why, sizeof h->why, "cannot mount a /proc (%s)", strerror(errno));
            _exit(0);
        }
        _exit(run->fn(shared));
    }
    return waitpid(pid, &st, 0) == pid && WIFEXITED(st) ? WEXITSTATUS(st) : 2;
}

/* ctxprof_test_in_child with fn(shared) run as the first process of a new
   pid namespace (a user namespace too where that is what it takes), with
   its own /proc when mount_proc is set. The shared results (size bytes)
   start with a ctxprof_test_ns, set when no namespace can be made here. */
static inline void *ctxprof_test_in_pid_ns(int (*fn)(void *shared), int mount_proc, size_t size)
{
    ctxprof_test_ns_run run;
    run.fn = fn;
    run.mount_proc = mount_proc;
    return ctxprof_test_in_child(ctxprof_test_ns_child, &run, size);
}

/* Ends a save callback of ctxprof_test_torn_writes / _disk_full: the error
   text (read after the call) into msg; returns rc. */
static inline int ctxprof_test_saved(int rc, const char *text, char *msg, size_t cap)
{
    snprintf(msg, cap, "%s", text);
    return rc;
}

/* Writes text to path: 0, or -1 when it cannot. */
static inline int ctxprof_test_put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs(text, f);
    return fclose(f) == 0 ? 0 : -1;
}

/* The whole file at path, malloc'd (NUL-terminated), *len bytes; NULL if unreadable. */
static inline unsigned char *ctxprof_test_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf = NULL;
    size_t cap = 0, n = 0, got;
    *len = 0;
    if (!f)
        return NULL;
    do {
        if (cap - n < 4096) {
            unsigned char *nb = (unsigned char *)realloc(buf, cap = cap * 2 + 8192);
            if (!nb) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
        }
        got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
    } while (got > 0);
    fclose(f);
    buf[n] = 0;
    *len = n;
    return buf;
}

/* 1 when the file at path holds exactly len bytes equal to want. */
static inline int ctxprof_test_file_is(const char *path, const unsigned char *want, size_t len)
{
    size_t n;
    unsigned char *now = ctxprof_test_slurp(path, &n);
    int same = now && n == len && memcmp(now, want, len) == 0;
    free(now);
    return same;
}

/* Files left beside path by an atomic writer: names "<base>.tmp...". */
static inline size_t ctxprof_test_temps(const char *path)
{
    char dir[4096];
    const char *base = strrchr(path, '/');
    size_t blen, n = 0;
    struct dirent *de;
    DIR *d;
    if (!base || (size_t)(base - path) >= sizeof dir)
        return 0;
    memcpy(dir, path, (size_t)(base - path));
    dir[base - path] = '\0';
    base++;
    blen = strlen(base);
    if (!(d = opendir(dir)))
        return 0;
    while ((de = readdir(d)) != NULL)
        if (strncmp(de->d_name, base, blen) == 0 && strncmp(de->d_name + blen, ".tmp", 4) == 0)
            n++;
    closedir(d);
    return n;
}

/* A save operation under test: writes arg's state to path; 0 or an error
   status, with the error's text in msg. */
typedef int (*ctxprof_test_save_fn)(void *arg, const char *path, char *msg, size_t cap);

/* The truncating writer: path holds a file; save(arg) would replace it with
   a file of N bytes. For every offset 0 .. N-1 the save runs with the
   process's file size limit at that offset (RLIMIT_FSIZE: the kernel cuts
   the write there and fails the next one with EFBIG; SIGXFSZ ignored
   meanwhile) and must fail, name the cause, and leave exactly the old bytes
   at path and no temporary file; then an uncut save must write the N new
   bytes. Returns N (offsets tried). Nothing may print while a limit is set:
   the test's own output is a file too. */
static inline size_t ctxprof_test_torn_writes(const char *path, ctxprof_test_save_fn save,
                                              void *arg)
{
    char ref[4096], msg[512] = "";
    unsigned char *old, *want;
    size_t oldlen, wantlen = 0, off, saved_ok = 0, changed = 0;
    struct rlimit rl, cut;
    void (*prev)(int);
    snprintf(ref, sizeof ref, "%s.reference", path);
    old = ctxprof_test_slurp(path, &oldlen);
    want = old && save(arg, ref, msg, sizeof msg) == 0 ? ctxprof_test_slurp(ref, &wantlen) : NULL;
    if (!want || getrlimit(RLIMIT_FSIZE, &rl) != 0) {
        CHECK(!"torn writes: no old file, or the reference save failed");
        free(old);
        return 0;
    }
    prev = signal(SIGXFSZ, SIG_IGN);
    for (off = 0; off < wantlen; off++) {
        int st;
        cut = rl;
        cut.rlim_cur = (rlim_t)off;
        setrlimit(RLIMIT_FSIZE, &cut);
        st = save(arg, path, msg, sizeof msg);
        setrlimit(RLIMIT_FSIZE, &rl);
        saved_ok += st == 0;
        changed += !ctxprof_test_file_is(path, old, oldlen);
    }
    signal(SIGXFSZ, prev);
    CHECK_EQ(saved_ok, 0);
    CHECK_EQ(changed, 0);
    CHECK_EQ(ctxprof_test_temps(path), 0);
    CHECK_CONTAINS(msg, path);
    CHECK_CONTAINS(msg, strerror(EFBIG));
    CHECK_EQ(save(arg, path, msg, sizeof msg), 0);
    CHECK(ctxprof_test_file_is(path, want, wantlen));
    unlink(ref);
    free(old);
    free(want);
    return wantlen;
}

/* Bytes of C heap in use (glibc's main arena plus its mmapped blocks), or
   SIZE_MAX where that cannot be measured: under a sanitizer or valgrind
   (their allocators are not glibc's) and outside glibc. Counts the calling
   thread's allocations only while no other thread allocates. */
static inline size_t ctxprof_test_heap_bytes(void)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 33) &&                              \
    !defined(CTXPROF_TEST_SANITIZED)
    struct mallinfo2 mi;
    if (ctxprof_test_under_valgrind())
        return SIZE_MAX;
    mi = mallinfo2();
    return mi.uordblks + mi.hblkhd;
#else
    return SIZE_MAX;
#endif
}
#define CHECK_HEAP_GREW_AT_MOST(before, bound)                                                     \
    do {                                                                                           \
        size_t ctxprof_test_now = ctxprof_test_heap_bytes();                                       \
        if ((before) != SIZE_MAX && ctxprof_test_now != SIZE_MAX)                                  \
            CHECK_LE(ctxprof_test_now > (before) ? ctxprof_test_now - (before) : 0, (bound));                                        \
    } while (0)

/* What ctxprof_test_disk_full's child reports. */
typedef struct ctxprof_test_full {
    int skipped;        /* no private mount namespace or tmpfs here (needs CAP_SYS_ADMIN) */
    int setup_failed;   /* the tmpfs could not be prepared */
    unsigned attempts;  /* saves tried, the space freed one page more each time */
    unsigned refused;   /* of them, failed with ENOSPC named in the message */
    unsigned damaged;   /* failed saves after which the old file had changed */
    unsigned temps;     /* temporary files left by failed saves */
    int saved;          /* a save succeeded once the space sufficed */
    int correct;        /* and wrote exactly the reference bytes */
} ctxprof_test_full;

typedef struct ctxprof_test_full_job {
    const char *dir; /* where to mount the tmpfs */
    ctxprof_test_save_fn save;
    void *arg;
    const unsigned char *old, *want;
    size_t oldlen, wantlen;
} ctxprof_test_full_job;

static inline int ctxprof_test_full_child(void *arg, void *shared)
{
    ctxprof_test_full_job *j = (ctxprof_test_full_job *)arg;
    ctxprof_test_full *r = (ctxprof_test_full *)shared;
    char path[4096], filler[4096], msg[512];
    static const char zero[4096];
    off_t fill = 0;
    int fd;
    if (unshare(CLONE_NEWNS) != 0 || mount("none", "/", "", MS_REC | MS_PRIVATE, NULL) != 0 ||
        mount("tmpfs", j->dir, "tmpfs", 0, "size=64k") != 0) {
        r->skipped = 1;
        return 0;
    }
    snprintf(path, sizeof path, "%s/file", j->dir);
    snprintf(filler, sizeof filler, "%s/filler", j->dir);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || write(fd, j->old, j->oldlen) != (ssize_t)j->oldlen || close(fd) != 0) {
        r->setup_failed = 1;
        return 0;
    }
    fd = open(filler, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    while (fd >= 0 && write(fd, zero, sizeof zero) == (ssize_t)sizeof zero)
        fill += (off_t)sizeof zero;
    if (fd < 0 || fill == 0) {
        r->setup_failed = 1;
        return 0;
    }
    for (;;) {
        r->attempts++;
        if (j->save(j->arg, path, msg, sizeof msg) == 0) {
            r->saved = 1;
            r->correct = ctxprof_test_file_is(path, j->want, j->wantlen);
            break;
        }
        r->refused += strstr(msg, strerror(ENOSPC)) != NULL;
        r->damaged += !ctxprof_test_file_is(path, j->old, j->oldlen);
        r->temps += (unsigned)ctxprof_test_temps(path);
        if (fill == 0)
            break; /* all the space is free and it still fails */
        fill = fill > (off_t)sizeof zero ? fill - (off_t)sizeof zero : 0;
        if (ftruncate(fd, fill) != 0)
            break;
    }
    close(fd);
    return 0;
}

/* A real full disk: in a forked child with a private mount namespace, a
   64 KiB tmpfs at dir holds the old file (the bytes at old_path) and a
   filler that takes every free page; save(arg) must fail with ENOSPC and
   leave the old file alone, again with one more page freed each time,
   until it succeeds and writes what it writes elsewhere. Skips (returns 0)
   where a tmpfs cannot be mounted. Returns the saves refused. */
static inline unsigned ctxprof_test_disk_full(const char *dir, const char *old_path,
                                              ctxprof_test_save_fn save, void *arg)
{
    char ref[4096], msg[512];
    ctxprof_test_full *r = NULL;
    ctxprof_test_full_job j;
    unsigned refused = 0;
    memset(&j, 0, sizeof j);
    snprintf(ref, sizeof ref, "%s.reference", old_path);
    j.dir = dir;
    j.save = save;
    j.arg = arg;
    j.old = ctxprof_test_slurp(old_path, &j.oldlen);
    if (save(arg, ref, msg, sizeof msg) == 0)
        j.want = ctxprof_test_slurp(ref, &j.wantlen);
    if (!j.old || !j.want || mkdir(dir, 0700) != 0)
        CHECK(!"disk full: setup failed");
    else if ((r = (ctxprof_test_full *)ctxprof_test_in_child(ctxprof_test_full_child, &j,
                                                             sizeof *r)) != NULL) {
        if (r->skipped) {
            fprintf(stderr, "  (no private tmpfs here: a full disk needs CAP_SYS_ADMIN)\n");
        } else {
            CHECK(!r->setup_failed);
            CHECK(r->saved && r->correct);
            CHECK_GE(r->attempts, 2);
            CHECK_EQ(r->refused, r->attempts - 1);
            CHECK_EQ(r->damaged, 0);
            CHECK_EQ(r->temps, 0);
            refused = r->refused;
        }
        munmap(r, sizeof *r);
    }
    rmdir(dir);
    unlink(ref);
    free((void *)j.old);
    free((void *)j.want);
    return refused;
}
#endif
