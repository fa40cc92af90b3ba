/* minikv: a tiny key-value command interpreter guarded by PCC anomaly checks.

   Shows ctxprof's probabilistic calling context at work: every handler is
   annotated, and each "system call" (open, read, write of a file) is a query
   point. A training run records the calling contexts that reach the system
   calls; a checking run reports, once and with a backtrace, any context that
   training never saw - for instance a legacy feature reached by input no
   test exercised.

     minikv --train SETFILE [INPUT]   run, then save the contexts seen
     minikv --check SETFILE [INPUT]   load the contexts, report new ones

   Commands, one per line: set KEY VALUE | get KEY | del KEY | count |
   save FILE | load FILE. A value "@PATH" is a legacy indirect value: `get`
   returns the contents of PATH. Build: make examples, or cc -O2 -I../.. minikv.c; see demo.sh. */
#define CTXPROF_IMPLEMENTATION
#include "ctxprof.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SITE CTXPROF_PCC_SITE()
#define MAXKEYS 256

static struct {
    char key[64], val[256];
} store[MAXKEYS];
static int nkeys;
static ctxprof_pcc_set guard_set;

/* The query point: the context of this system call, checked (or trained). */
#define GUARD() ctxprof_pcc_set_check(&guard_set, CTXPROF_PCC_HERE(SITE), CTXPROF_PCC_LOC)

static int sys_open(const char *path, int flags)
{
    CTXPROF_PCC_FUNC();
    GUARD();
    return open(path, flags | O_CLOEXEC, 0644);
}

static long sys_read(int fd, char *buf, size_t n)
{
    CTXPROF_PCC_FUNC();
    GUARD();
    return (long)read(fd, buf, n);
}

static long sys_write(int fd, const char *buf, size_t n)
{
    CTXPROF_PCC_FUNC();
    GUARD();
    return (long)write(fd, buf, n);
}

static int find(const char *key)
{
    int i;
    for (i = 0; i < nkeys; i++)
        if (strcmp(store[i].key, key) == 0)
            return i;
    return -1;
}

/* Reads a whole file into out, NUL-terminated (`load`); returns its size,
   or -1 with errno set (EFBIG: it needs more than cap - 1 bytes). One read
   may return less than the file: read until the end. */
static long read_file(const char *path, char *out, size_t cap)
{
    CTXPROF_PCC_FUNC();
    int fd, err = 0;
    size_t n = 0;
    long got = 0;
    CTXPROF_PCC_CALL(SITE, fd = sys_open(path, O_RDONLY));
    if (fd < 0)
        return -1;
    while (n < cap) {
        CTXPROF_PCC_CALL(SITE, got = sys_read(fd, out + n, cap - n));
        if (got <= 0)
            break;
        n += (size_t)got;
    }
    if (got < 0)
        err = errno;
    else if (n == cap) /* no room left for the NUL: too large */
        err = EFBIG;
    close(fd);
    if (err) {
        errno = err;
        return -1;
    }
    out[n] = '\0';
    return (long)n;
}

/* Legacy indirect values ("@path"), read with stdio. */
static const char *resolve_indirect(const char *val, char *buf, size_t cap)
{
    CTXPROF_PCC_FUNC();
    int fd;
    FILE *f;
    CTXPROF_PCC_CALL(SITE, fd = sys_open(val + 1, O_RDONLY));
    if (fd < 0)
        return "(unreadable)";
    if (!(f = fdopen(fd, "r"))) {
        close(fd);
        return "(unreadable)";
    }
    if (!fgets(buf, (int)cap, f))
        buf[0] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    fclose(f);
    return buf;
}

static void cmd_set(const char *key, const char *val)
{
    int i = find(key);
    if (i < 0) {
        if (nkeys == MAXKEYS) {
            puts("error: store full");
            return;
        }
        i = nkeys++;
        snprintf(store[i].key, sizeof store[i].key, "%s", key);
    }
    snprintf(store[i].val, sizeof store[i].val, "%s", val);
    puts("ok");
}

static void cmd_get(const char *key)
{
    CTXPROF_PCC_FUNC();
    char buf[256];
    const char *v;
    int i = find(key);
    if (i < 0) {
        puts("(nil)");
        return;
    }
    v = store[i].val;
    if (v[0] == '@')
        CTXPROF_PCC_CALL(SITE, v = resolve_indirect(v, buf, sizeof buf));
    printf("%.60s\n", v);
}

static void cmd_del(const char *key)
{
    int i = find(key);
    if (i >= 0)
        store[i] = store[--nkeys];
    puts(i >= 0 ? "ok" : "(nil)");
}

static void cmd_save(const char *path)
{
    CTXPROF_PCC_FUNC();
    char line[400];
    int fd, i, err = 0;
    CTXPROF_PCC_CALL(SITE, fd = sys_open(path, O_WRONLY | O_CREAT | O_TRUNC));
    if (fd < 0) {
        printf("error: cannot save: %s\n", strerror(errno));
        return;
    }
    for (i = 0; i < nkeys && !err; i++) {
        size_t n = (size_t)snprintf(line, sizeof line, "%s %s\n", store[i].key, store[i].val), off;
        long w = 0;
        for (off = 0; off < n; off += (size_t)w) { /* a write may take part of it */
            CTXPROF_PCC_CALL(SITE, w = sys_write(fd, line + off, n - off));
            if (w <= 0) {
                err = w < 0 ? errno : EIO;
                break;
            }
        }
    }
    if (close(fd) != 0 && !err)
        err = errno; /* NFS and the like report write errors here */
    if (err)
        printf("error: cannot save: %s\n", strerror(err));
    else
        puts("ok");
}

static void cmd_load(const char *path)
{
    CTXPROF_PCC_FUNC();
    /* what `save` writes of a full store fits: "KEY VALUE\n" per key */
    static char buf[MAXKEYS * (sizeof store[0].key + sizeof store[0].val) + 1];
    char *line, *save = NULL;
    long n;
    CTXPROF_PCC_CALL(SITE, n = read_file(path, buf, sizeof buf));
    if (n < 0) {
        printf("error: cannot load: %s\n", strerror(errno));
        return;
    }
    nkeys = 0;
    for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *sp = strchr(line, ' ');
        if (sp && nkeys < MAXKEYS) {
            *sp = '\0';
            snprintf(store[nkeys].key, sizeof store[nkeys].key, "%s", line);
            snprintf(store[nkeys].val, sizeof store[nkeys].val, "%s", sp + 1);
            nkeys++;
        }
    }
    printf("ok %d keys\n", nkeys);
}

static void dispatch(char *line)
{
    CTXPROF_PCC_FUNC();
    char *cmd = strtok(line, " \t\n"), *a = strtok(NULL, " \t\n"), *b = strtok(NULL, "\n");
    if (!cmd)
        return;
    if (strcmp(cmd, "set") == 0 && a && b)
        cmd_set(a, b);
    else if (strcmp(cmd, "get") == 0 && a)
        CTXPROF_PCC_CALL(SITE, cmd_get(a));
    else if (strcmp(cmd, "del") == 0 && a)
        cmd_del(a);
    else if (strcmp(cmd, "count") == 0)
        printf("%d\n", nkeys);
    else if (strcmp(cmd, "save") == 0 && a)
        CTXPROF_PCC_CALL(SITE, cmd_save(a));
    else if (strcmp(cmd, "load") == 0 && a)
        CTXPROF_PCC_CALL(SITE, cmd_load(a));
    else
        printf("error: bad command '%s'\n", cmd);
}

static void on_new_context(void *user, const ctxprof_pcc_report *r)
{
    (void)user;
    fprintf(stderr,
            "ANOMALY: calling context %#llx at %s:%u was never seen in training\n%s",
            (unsigned long long)r->value, r->file, r->line, r->backtrace);
}

int main(int argc, char **argv)
{
    CTXPROF_PCC_FUNC();
    ctxprof_pcc_set_desc desc;
    ctxprof_pcc_stats st;
    char line[512];
    FILE *in = stdin;
    int train;
    if (argc < 3 || (strcmp(argv[1], "--train") && strcmp(argv[1], "--check"))) {
        fprintf(stderr, "usage: %s --train|--check SETFILE [INPUT]\n", argv[0]);
        return 2;
    }
    train = strcmp(argv[1], "--train") == 0;
    memset(&desc, 0, sizeof desc);
    desc.mode = train ? CTXPROF_PCC_TRAIN : CTXPROF_PCC_CHECK;
    desc.report = on_new_context;
    if (ctxprof_pcc_set_init(&guard_set, &desc) != CTXPROF_OK) {
        fprintf(stderr, "minikv: %s\n", ctxprof_pcc_set_last_error(&guard_set));
        return 1;
    }
    if (!train && ctxprof_pcc_set_load(&guard_set, argv[2]) != CTXPROF_OK) {
        fprintf(stderr, "minikv: %s\n", ctxprof_pcc_set_last_error(&guard_set));
        return 1;
    }
    if (argc > 3 && !(in = fopen(argv[3], "r"))) {
        perror(argv[3]);
        return 1;
    }
    while (fgets(line, sizeof line, in)) {
        size_t len = strlen(line);
        int c;
        /* a longer line is one bad command, not two commands */
        if (len == sizeof line - 1 && line[len - 1] != '\n' && (c = getc(in)) != EOF && c != '\n') {
            while ((c = getc(in)) != EOF && c != '\n')
                ;
            printf("error: line longer than %d bytes (ignored)\n", (int)sizeof line - 1);
            continue;
        }
        CTXPROF_PCC_CALL(SITE, dispatch(line));
    }
    if (ferror(in)) { /* a directory, an I/O error: not an empty input */
        fprintf(stderr, "minikv: %s: %s\n", argc > 3 ? argv[3] : "stdin", strerror(errno));
        return 1;
    }
    if (in != stdin)
        fclose(in);
    ctxprof_pcc_set_stats(&guard_set, &st);
    fprintf(stderr,
            "minikv: %s: %llu checks, %llu trained contexts, %llu new, %llu reported\n",
            train ? "trained" : "checked", (unsigned long long)st.queries,
            (unsigned long long)st.distinct, (unsigned long long)st.new_seen,
            (unsigned long long)st.reported);
    if (train && ctxprof_pcc_set_save(&guard_set, argv[2]) != CTXPROF_OK) {
        fprintf(stderr, "minikv: %s\n", ctxprof_pcc_set_last_error(&guard_set));
        return 1;
    }
    ctxprof_pcc_set_deinit(&guard_set);
    return 0;
}
