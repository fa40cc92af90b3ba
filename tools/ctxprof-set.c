/* ctxprof-set: inspect, merge and compare trained context-set files.

   Build: make (gives build/ctxprof-set). Works on files from any build: the
   bit width, site seed and site-hash version come from each file, and files
   are only combined when those agree.

     ctxprof-set info FILE...             parameters, size and expected conflicts
     ctxprof-set list FILE                the values, one per line
     ctxprof-set merge -o OUT IN...       OUT = union of the inputs (atomic write;
                                          "-": standard output)
     ctxprof-set diff A B [--list]        contexts only in A, only in B, in both

   Exit status: info, list, merge: 0 ok, 1 bad input, 2 usage or I/O error.
   diff, like cmp(1): 0 the sets are equal, 1 they differ, 2 trouble (usage,
   a bad or incompatible file, a failed write). Output that cannot be written
   (a full disk, /dev/full) is an I/O error. A FILE of "-" is standard input. */
#define CTXPROF_IMPLEMENTATION
#include "../ctxprof.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: ctxprof-set info FILE...\n"
    "       ctxprof-set list FILE\n"
    "       ctxprof-set merge -o OUT IN...\n"
    "       ctxprof-set diff A B [--list]\n"
    "       ctxprof-set --help | --version\n";
static const char details[] =
    "\n"
    "Trained context sets are the files written by ctxprof_pcc_set_save(): a\n"
    "64-byte header (magic \"CTXPROF\", container version, kind 1, bit width,\n"
    "call-site seed, site-hash version, value count, payload length, checksum)\n"
    "and the values, sorted, 4 or 8 bytes each, little-endian. Files from builds\n"
    "with another bit width, seed or site-hash version are never combined.\n"
    "\n"
    "info   prints key=value lines per file: file bits seed site_version contexts\n"
    "       expected_conflicts (E = n - m + m((m-1)/m)^n, m = 2^bits, n = values:\n"
    "       contexts lost to conflicts, k - 1 when k share a value, had they\n"
    "       random values; Bond & McKinley 3.2; with 32-bit site ids, site_version\n"
    "       4, contexts that differ only at sites sharing an id collide too, which\n"
    "       E leaves out)\n"
    "list   prints the values in hexadecimal, one per line, ascending\n"
    "merge  writes the union of the inputs to OUT (temporary file + rename);\n"
    "       OUT \"-\" is standard output, and the summary line goes to standard error\n"
    "diff   prints only_a only_b common; --list adds the values, one per line,\n"
    "       prefixed '<' (only in A) or '>' (only in B)\n"
    "\n"
    "Exit status: 0 ok; 1 bad input (info, list, merge) or the sets differ\n"
    "(diff); 2 usage or I/O error (standard output too), and for diff any bad\n"
    "or incompatible file.\n"
    "FILE \"-\" is standard input.\n";

static int load(ctxprof_pcc_file *f, const char *path)
{
    ctxprof_error err;
    memset(f, 0, sizeof *f);
    if (ctxprof_pcc_file_read(f, path, &err) != CTXPROF_OK) {
        fprintf(stderr, "ctxprof-set: %s\n", ctxprof_error_message(&err));
        return -1;
    }
    return 0;
}

static int same_params(const ctxprof_pcc_file *a, const char *pa, const ctxprof_pcc_file *b,
                       const char *pb)
{
    if (a->bits == b->bits && a->seed == b->seed && a->site_version == b->site_version)
        return 1;
    fprintf(stderr,
            "ctxprof-set: %s (%u-bit, seed %#llx, site hash v%u) and %s (%u-bit, seed %#llx, "
            "site hash v%u) come from incompatible builds\n",
            pa, a->bits, (unsigned long long)a->seed, a->site_version, pb, b->bits,
            (unsigned long long)b->seed, b->site_version);
    return 0;
}

/* Usage errors: what is wrong, then the usage; exit status 2. */
static int usage_error(const char *what, const char *arg)
{
    fprintf(stderr, "ctxprof-set: %s%s\n", what, arg ? arg : "");
    fputs(usage, stderr);
    return 2;
}

static int cmd_info(int argc, char **argv)
{
    int i, rc = 0;
    if (argc < 1)
        return usage_error("info: no file", NULL);
    for (i = 0; i < argc; i++) {
        ctxprof_pcc_file f;
        if (load(&f, argv[i])) {
            rc = 1;
            continue;
        }
        printf("file=%s bits=%u seed=%#llx site_version=%u contexts=%zu expected_conflicts=%.3g\n",
               argv[i], f.bits, (unsigned long long)f.seed, f.site_version, f.count,
               ctxprof_pcc_expected_conflicts((double)f.count, f.bits));
        ctxprof_pcc_file_free(&f);
    }
    return rc;
}

static int cmd_list(int argc, char **argv)
{
    ctxprof_pcc_file f;
    size_t i;
    if (argc != 1)
        return usage_error("list takes one file", NULL);
    if (load(&f, argv[0]))
        return 1;
    for (i = 0; i < f.count; i++)
        printf("0x%llx\n", (unsigned long long)f.values[i]);
    ctxprof_pcc_file_free(&f);
    return 0;
}

/* Merges two sorted unique arrays into out (room for na + nb); returns its length. */
static size_t sorted_union(const uint64_t *a, size_t na, const uint64_t *b, size_t nb,
                           uint64_t *out)
{
    size_t i = 0, j = 0, n = 0;
    while (i < na || j < nb) {
        if (j == nb || (i < na && a[i] < b[j]))
            out[n++] = a[i++];
        else if (i == na || b[j] < a[i])
            out[n++] = b[j++];
        else {
            out[n++] = a[i++];
            j++;
        }
    }
    return n;
}

static int cmd_merge(int argc, char **argv)
{
    const char *out = NULL;
    ctxprof_pcc_file acc, in;
    ctxprof_error err;
    int i, first = -1;
    memset(&acc, 0, sizeof acc);
    for (i = 0; i < argc; i++) { /* options first: "a.set -o" is no input named -o */
        if (strcmp(argv[i], "-o") == 0) {
            if (i + 1 == argc || out)
                return usage_error(out ? "merge: -o given twice" : "merge: -o needs a file",
                                   NULL);
            out = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return usage_error("merge: unknown option ", argv[i]);
        }
    }
    if (!out)
        return usage_error("merge: no output: -o OUT (- for standard output)", NULL);
    for (i = 0; i < argc; i++) {
        if (strcmp(argv[i], "-o") == 0) {
            i++;
            continue;
        }
        if (load(&in, argv[i]))
            goto fail;
        if (first < 0) {
            acc = in;
            first = i;
            continue;
        }
        if (!same_params(&acc, argv[first], &in, argv[i])) {
            ctxprof_pcc_file_free(&in);
            goto fail;
        } else {
            uint64_t *u = (uint64_t *)malloc((acc.count + in.count + 1) * sizeof *u);
            if (!u) {
                fprintf(stderr, "ctxprof-set: out of memory\n");
                ctxprof_pcc_file_free(&in);
                goto fail;
            }
            acc.count = sorted_union(acc.values, acc.count, in.values, in.count, u);
            free(acc.values);
            acc.values = u;
            ctxprof_pcc_file_free(&in);
        }
    }
    if (first < 0) {
        ctxprof_pcc_file_free(&acc);
        return usage_error("merge: no input file", NULL);
    }
    if (ctxprof_pcc_file_write(&acc, out, &err) != CTXPROF_OK) {
        /* standard output fails in the words of every other command */
        if (strcmp(out, "-") == 0 && err.status == CTXPROF_ERR_SYS && err.sys_errno)
            fprintf(stderr, "ctxprof-set: writing standard output: %s\n", strerror(err.sys_errno));
        else
            fprintf(stderr, "ctxprof-set: %s\n", ctxprof_error_message(&err));
        ctxprof_pcc_file_free(&acc);
        return 2;
    }
    /* with -o -, standard output holds the set: the summary goes beside it */
    fprintf(strcmp(out, "-") == 0 ? stderr : stdout, "file=%s contexts=%zu\n", out, acc.count);
    ctxprof_pcc_file_free(&acc);
    return 0;
fail:
    ctxprof_pcc_file_free(&acc);
    return 1;
}

static int cmd_diff(int argc, char **argv)
{
    ctxprof_pcc_file a, b;
    size_t i = 0, j = 0, only_a = 0, only_b = 0, common = 0;
    int list = argc == 3 && strcmp(argv[2], "--list") == 0;
    if (argc != 2 && !list)
        return usage_error("diff takes two files (and --list)", NULL);
    if (load(&a, argv[0]))
        return 2; /* like cmp: 1 means "they differ" only */
    if (load(&b, argv[1]) || !same_params(&a, argv[0], &b, argv[1])) {
        ctxprof_pcc_file_free(&a);
        ctxprof_pcc_file_free(&b);
        return 2;
    }
    while (i < a.count || j < b.count) {
        if (j == b.count || (i < a.count && a.values[i] < b.values[j])) {
            if (list)
                printf("< 0x%llx\n", (unsigned long long)a.values[i]);
            only_a++;
            i++;
        } else if (i == a.count || b.values[j] < a.values[i]) {
            if (list)
                printf("> 0x%llx\n", (unsigned long long)b.values[j]);
            only_b++;
            j++;
        } else {
            common++;
            i++;
            j++;
        }
    }
    printf("only_a=%zu only_b=%zu common=%zu\n", only_a, only_b, common);
    ctxprof_pcc_file_free(&a);
    ctxprof_pcc_file_free(&b);
    return only_a || only_b ? 1 : 0;
}

static int run(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "--version") == 0) {
        printf("ctxprof-set %s\n", CTXPROF_VERSION_STRING);
        return 0;
    }
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        fputs(usage, stdout);
        fputs(details, stdout);
        return 0;
    }
    if (argc >= 2 && strcmp(argv[1], "info") == 0)
        return cmd_info(argc - 2, argv + 2);
    if (argc >= 2 && strcmp(argv[1], "list") == 0)
        return cmd_list(argc - 2, argv + 2);
    if (argc >= 2 && strcmp(argv[1], "merge") == 0)
        return cmd_merge(argc - 2, argv + 2);
    if (argc >= 2 && strcmp(argv[1], "diff") == 0)
        return cmd_diff(argc - 2, argv + 2);
    return usage_error(argc >= 2 ? "unknown command " : "no command", argc >= 2 ? argv[1] : NULL);
}

/* Output lost to a full disk would pass for results (an empty list, diff's
   "they differ"): any failed write of standard output makes the status 2. */
int main(int argc, char **argv)
{
    int rc = run(argc, argv), bad = ferror(stdout), e = 0;
    if (fflush(stdout) != 0) {
        bad = 1;
        e = errno;
    }
    if (fclose(stdout) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    if (bad) {
        fprintf(stderr, "ctxprof-set: writing standard output: %s\n",
                e ? strerror(e) : "write error");
        return 2;
    }
    return rc;
}
