/* cparse.h: what the programs that run examples/hotpaths/cparse.c share:
   its statistics, the prelude of predefined macros its #if evaluation
   needs (what a compiler predefines), and a loader that puts the prelude in
   front of a file's text. Header-only; include it in one file. */
#ifndef CPARSE_H
#define CPARSE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifndef CPARSE_NO_LOADER
#include <errno.h>
#include <limits.h>
#include <sys/stat.h>
#endif

struct cparse_stats {
    uint64_t tokens, decls, functions, statements, expressions, directives, errors;
    uint64_t checksum; /* of every token kind and identifier hash: same input, same value */
};

#ifndef CPARSE_NO_LOADER
static const char cparse_prelude[] =
    "#define __GNUC__ 12\n#define __GNUC_MINOR__ 2\n#define __STDC__ 1\n"
    "#define __STDC_VERSION__ 201112L\n#define __STDC_HOSTED__ 1\n#define __x86_64__ 1\n"
    "#define __linux__ 1\n#define __CHAR_BIT__ 8\n#define __WORDSIZE 64\n"
    "#define __USE_MISC 1\n#define __USE_POSIX 1\n#define __USE_POSIX2 1\n"
    "#define __USE_POSIX199309 1\n#define __USE_POSIX199506 1\n#define __USE_XOPEN 1\n"
    "#define __USE_XOPEN_EXTENDED 1\n#define __USE_XOPEN2K 1\n#define __USE_XOPEN2K8 1\n"
    "#define __USE_ISOC99 1\n#define __USE_ISOC11 1\n#define __USE_GNU 1\n"
    "#define __USE_ATFILE 1\n#define __USE_LARGEFILE64 1\n#define CTXPROF_IMPLEMENTATION 1\n";

/* The prelude and the file's text in one malloc'ed buffer (*text, *len);
   returns the file's size, or -1 with errno set when it cannot be read.
   Only a regular file has a size to read: a directory (EISDIR) or a pipe
   or device (EINVAL) is refused, not taken for a file of its seek range. */
static long cparse_load(const char *path, char **text, size_t *len)
{
    FILE *f = fopen(path, "rb");
    struct stat sb;
    size_t n, got;
    int err = 0;
    if (!f)
        return -1;
    if (fstat(fileno(f), &sb) != 0)
        err = errno;
    else if (S_ISDIR(sb.st_mode))
        err = EISDIR;
    else if (!S_ISREG(sb.st_mode))
        err = EINVAL;
    else if (sb.st_size < 0 || (uintmax_t)sb.st_size > (uintmax_t)LONG_MAX - sizeof cparse_prelude)
        err = EFBIG;
    if (err) {
        fclose(f);
        errno = err;
        return -1;
    }
    n = (size_t)sb.st_size;
    *text = (char *)malloc(sizeof cparse_prelude + n);
    if (!*text) {
        fclose(f);
        errno = ENOMEM;
        return -1;
    }
    memcpy(*text, cparse_prelude, sizeof cparse_prelude - 1);
    got = fread(*text + sizeof cparse_prelude - 1, 1, n, f);
    err = ferror(f) ? (errno ? errno : EIO) : 0;
    fclose(f);
    if (err) {
        free(*text);
        *text = NULL;
        errno = err;
        return -1;
    }
    *len = sizeof cparse_prelude - 1 + got;
    return (long)got;
}
#endif

#endif
