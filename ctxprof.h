/* ctxprof.h - v0.1.0 - calling-context profiling in one header
   SPDX-License-Identifier: MIT

   Knowing *how* a program reached a point (the chain of calls), cheaply
   enough to leave on in production. This is the core header; the hot calling
   context tree lives in ctxprof_hcct.h and the perf_event sampler in
   ctxprof_pebs.h (both include this one).

   USAGE

     Copy the header next to your sources. In exactly one .c file:

         #define CTXPROF_IMPLEMENTATION
         #include "ctxprof.h"

     Everywhere else include it plainly. The per-call primitives are static
     inline functions and macros available in every translation unit (TU).

   CONTENTS (greppable section markers "==== name ====")

     core       configuration, versions, status codes, hashing, allocation
     pcc        probabilistic calling context (Bond & McKinley, OOPSLA'07)
     pcce       precise calling context encoding (Valence paper, sec. 2.1)
     valence    variable-length encoding and HCCE (Zhou et al., CC'19)
     icpp       inferred call path profiling (Mytkowicz et al., OOPSLA'09)

   CONFIGURATION (define before including; see STYLE.md section 3)

     CTXPROF_CTX_BITS       64    32 or 64: width of ctxprof_ctx (global)
     CTXPROF_SITE_SEED      0     build seed mixed into every call-site id
     CTXPROF_MALLOC/FREE    libc  allocator hooks (implementation TU; both or none)
     CTXPROF_TLS            auto  storage class for per-thread state
     CTXPROF_TLS_DYNAMIC    off   use the general-dynamic TLS model (see THREADS)
     CTXPROF_NO_TLS         off   single-threaded build: per-thread state is static
     CTXPROF_DEBUG          off   asserts on internal invariants
     CTXPROF_API/DEF/STATIC/INLINE    linkage (STATIC embeds a private copy)

   THREADS AND SIGNALS

     All run-time state is per thread. The thread-local variables use the
     initial-exec TLS model, which is one instruction per access even in -fPIC
     code. A shared library that is dlopen()ed after program start draws its
     initial-exec TLS from glibc's small static-TLS surplus; if dlopen fails
     with "cannot allocate memory in static TLS block", build that library with
     -DCTXPROF_TLS_DYNAMIC (a __tls_get_addr call per access instead).
     Every function also exists over an explicit state struct, so the TLS
     variables are only a convenience. Functions marked "signal-safe" may be
     called from a signal handler; the others may not.

   ERRORS

     Cold-path functions return ctxprof_status (0 = CTXPROF_OK, errors < 0);
     ctxprof_strerror() turns one into text and never returns NULL. Objects
     that parse input or talk to the OS keep a ctxprof_error with the saved
     errno and a one-line detail ("file.txt:12: unknown keyword 'cal'").
     Hot-path functions never fail: they saturate or drop and count it. The
     library never prints, exits or aborts.
*/
#ifndef CTXPROF_H_INCLUDED
#define CTXPROF_H_INCLUDED

#include <stddef.h>
#include <stdint.h>

/* ==== core: configuration ==== */

#ifndef CTXPROF_CTX_BITS
#define CTXPROF_CTX_BITS 64
#endif
#if CTXPROF_CTX_BITS != 64 && CTXPROF_CTX_BITS != 32
#error "ctxprof: CTXPROF_CTX_BITS must be 32 or 64"
#endif

#ifndef CTXPROF_SITE_SEED
#define CTXPROF_SITE_SEED 0
#endif

#define CTXPROF_VERSION_MAJOR 0
#define CTXPROF_VERSION_MINOR 1
#define CTXPROF_VERSION_PATCH 0
#define CTXPROF_VERSION_STRING "0.1.0"

#ifndef CTXPROF_API
#if defined(CTXPROF_STATIC)
#define CTXPROF_API static
#else
#define CTXPROF_API extern
#endif
#endif
#ifndef CTXPROF_DEF
#if defined(CTXPROF_STATIC)
#define CTXPROF_DEF static
#else
#define CTXPROF_DEF
#endif
#endif
#ifndef CTXPROF_INLINE
#if defined(__GNUC__) || defined(__clang__)
#define CTXPROF_INLINE static inline __attribute__((always_inline))
#else
#define CTXPROF_INLINE static inline
#endif
#endif

/* Thread-local storage. __thread under GCC/Clang in C and C++ alike: C++'s
   thread_local on an extern variable goes through a wrapper function. */
#if defined(CTXPROF_NO_TLS)
#undef CTXPROF_TLS
#define CTXPROF_TLS
#elif !defined(CTXPROF_TLS)
#if defined(__GNUC__) || defined(__clang__)
#define CTXPROF_TLS __thread
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define CTXPROF_TLS _Thread_local
#else
#error "ctxprof: no thread-local storage keyword; define CTXPROF_TLS or CTXPROF_NO_TLS"
#endif
#endif
#if (defined(__GNUC__) || defined(__clang__)) && !defined(CTXPROF_TLS_DYNAMIC) &&                  \
    !defined(CTXPROF_NO_TLS)
#define CTXPROF__TLS_MODEL __attribute__((tls_model("initial-exec")))
#else
#define CTXPROF__TLS_MODEL
#endif

#if defined(__GNUC__) || defined(__clang__)
#define CTXPROF__LIKELY(x) __builtin_expect(!!(x), 1)
#define CTXPROF__UNLIKELY(x) __builtin_expect(!!(x), 0)
#define CTXPROF__NOINLINE __attribute__((noinline))
#define CTXPROF__PRINTF(f, a) __attribute__((format(printf, f, a)))
#define CTXPROF__PRIV static __attribute__((unused))
#else
#define CTXPROF__PRIV static
#define CTXPROF__LIKELY(x) (x)
#define CTXPROF__UNLIKELY(x) (x)
#define CTXPROF__NOINLINE
#define CTXPROF__PRINTF(f, a)
#endif

#if defined(__cplusplus) && __cplusplus >= 201103L
#define CTXPROF__STATIC_ASSERT(c, msg) static_assert(c, msg)
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define CTXPROF__STATIC_ASSERT(c, msg) _Static_assert(c, msg)
#else
#define CTXPROF__STATIC_ASSERT(c, msg) typedef char ctxprof__static_assert_##msg[(c) ? 1 : -1]
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ==== core: types ==== */

#if CTXPROF_CTX_BITS == 64
typedef uint64_t ctxprof_ctx; /* a calling-context value */
#else
typedef uint32_t ctxprof_ctx;
#endif

/* One list makes both the enum and the message table (they cannot drift).
   New codes go at the end only. */
#define CTXPROF__STATUS_LIST(X)                                                                    \
    X(CTXPROF_OK, 0, "ok")                                                                         \
    X(CTXPROF_ERR_INVAL, -1, "invalid argument")                                                   \
    X(CTXPROF_ERR_NOMEM, -2, "out of memory")                                                      \
    X(CTXPROF_ERR_RANGE, -3, "value out of range")                                                 \
    X(CTXPROF_ERR_FULL, -4, "table full")                                                          \
    X(CTXPROF_ERR_PARSE, -5, "malformed input")                                                    \
    X(CTXPROF_ERR_SYS, -6, "system call failed")                                                   \
    X(CTXPROF_ERR_UNSUPPORTED, -7, "not supported on this system")                                 \
    X(CTXPROF_ERR_CORRUPT, -8, "file truncated or corrupt")                                        \
    X(CTXPROF_ERR_MISMATCH, -9, "file made with other parameters or version")

#define CTXPROF__STATUS_ENUM(name, value, text) name = value,
typedef enum ctxprof_status { CTXPROF__STATUS_LIST(CTXPROF__STATUS_ENUM) } ctxprof_status;
#undef CTXPROF__STATUS_ENUM

/* Error detail kept by objects that parse input or talk to the OS. */
typedef struct ctxprof_error {
    int status;       /* last ctxprof_status, 0 if none */
    int sys_errno;    /* errno saved when status is CTXPROF_ERR_SYS, else 0 */
    char detail[200]; /* one line, e.g. "graph.txt:12: unknown keyword 'cal'" */
} ctxprof_error;

/* Optional logger carried in *_desc structs; with none the library is silent. */
typedef void (*ctxprof_log_fn)(void *user, int level, const char *message);
enum { CTXPROF_LOG_ERROR = 0, CTXPROF_LOG_WARN = 1, CTXPROF_LOG_INFO = 2 };

/* ==== core: declarations ==== */

/* Text for a status code; never NULL ("unknown status" for other values). */
CTXPROF_API const char *ctxprof_strerror(int status);
/* The detail of an error record, or the status text when there is no detail. */
CTXPROF_API const char *ctxprof_error_message(const ctxprof_error *err);
/* 64-bit hash of a byte string (stable across versions with the same
   CTXPROF_HASH_VERSION; used in file checksums and context hashes). */
CTXPROF_API uint64_t ctxprof_hash_bytes(const void *data, size_t len, uint64_t seed);
#define CTXPROF_HASH_VERSION 1

/* ==== core: inline helpers ==== */

/* splitmix64 finaliser: a bijective 64-bit mix. */
CTXPROF_INLINE uint64_t ctxprof_mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15u;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9u;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBu;
    return x ^ (x >> 31);
}

/* 64-bit hash of n 64-bit words (e.g. a precise encoding). */
CTXPROF_INLINE uint64_t ctxprof_hash_words(const uint64_t *w, size_t n)
{
    uint64_t h = 0x243F6A8885A308D3u ^ (uint64_t)n;
    size_t i;
    for (i = 0; i < n; i++)
        h = ctxprof_mix64(h ^ w[i]);
    return h;
}

/* ==== core: symbols: declarations ==== */

/* ==== pcc: declarations ==== */

/* ==== graph: declarations ==== */

/* ==== pcce: declarations ==== */

/* ==== valence: declarations ==== */

/* ==== icpp: declarations ==== */

#ifdef __cplusplus
}
#endif

#endif /* CTXPROF_H_INCLUDED */

/* ======================================================================== */
/*                              IMPLEMENTATION                              */
/* ======================================================================== */

#if (defined(CTXPROF_IMPLEMENTATION) || defined(CTXPROF_CORE_IMPLEMENTATION)) &&                   \
    !defined(CTXPROF__CORE_IMPL_DONE)
#define CTXPROF__CORE_IMPL_DONE

#if defined(__STRICT_ANSI__) && !defined(_POSIX_C_SOURCE) && !defined(_XOPEN_SOURCE) &&          \
    !defined(_GNU_SOURCE) && !defined(_DEFAULT_SOURCE)
#error "ctxprof: the implementation needs POSIX.1-2008; compile this TU with -std=gnu11 (or gnu99), or define _POSIX_C_SOURCE 200809L before any #include"
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(CTXPROF_MALLOC) != defined(CTXPROF_FREE)
#error "ctxprof: define both CTXPROF_MALLOC and CTXPROF_FREE, or neither"
#endif
#ifndef CTXPROF_MALLOC
#define CTXPROF_MALLOC(sz, ud) ((void)(ud), malloc(sz))
#define CTXPROF_FREE(p, ud) ((void)(ud), free(p))
#endif
#ifndef CTXPROF_ASSERT
#if defined(CTXPROF_DEBUG)
#include <assert.h>
#define CTXPROF_ASSERT(c) assert(c)
#else
#define CTXPROF_ASSERT(c) ((void)0)
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ==== core: status and errors ==== */

#define CTXPROF__STATUS_CASE(name, value, text)                                                    \
    case value:                                                                                    \
        return text;
CTXPROF_DEF const char *ctxprof_strerror(int status)
{
    switch (status) {
        CTXPROF__STATUS_LIST(CTXPROF__STATUS_CASE)
    default:
        return "unknown status";
    }
}
#undef CTXPROF__STATUS_CASE

CTXPROF_DEF const char *ctxprof_error_message(const ctxprof_error *err)
{
    if (!err)
        return "no error record";
    if (err->detail[0])
        return err->detail;
    return ctxprof_strerror(err->status);
}

/* Records a status with a formatted detail; returns the status. sys_errno is
   stored and, when non-zero, its text appended ("...: No such file"). */
CTXPROF__PRIV CTXPROF__PRINTF(4, 5) int ctxprof__fail(ctxprof_error *err, int status, int sys_errno,
                                               const char *fmt, ...)
{
    va_list ap;
    size_t n;
    if (!err)
        return status;
    err->status = status;
    err->sys_errno = sys_errno;
    va_start(ap, fmt);
    vsnprintf(err->detail, sizeof err->detail, fmt, ap);
    va_end(ap);
    n = strlen(err->detail);
    if (sys_errno && n + 3 < sizeof err->detail)
        snprintf(err->detail + n, sizeof err->detail - n, ": %s", strerror(sys_errno));
    return status;
}

CTXPROF__PRIV void ctxprof__error_clear(ctxprof_error *err)
{
    if (err) {
        err->status = 0;
        err->sys_errno = 0;
        err->detail[0] = '\0';
    }
}

/* ==== core: allocation ==== */

/* n * size bytes, NULL on overflow or exhaustion. */
CTXPROF__PRIV void *ctxprof__alloc(size_t n, size_t size, void *ud)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    return CTXPROF_MALLOC(n * size > 0 ? n * size : 1, ud);
}

CTXPROF__PRIV void *ctxprof__zalloc(size_t n, size_t size, void *ud)
{
    void *p = ctxprof__alloc(n, size, ud);
    if (p)
        memset(p, 0, n * size);
    return p;
}

CTXPROF__PRIV void ctxprof__free(void *p, void *ud)
{
    if (p)
        CTXPROF_FREE(p, ud);
}

/* Grows *arr (elem bytes each, *cap slots, *len used) to hold need slots;
   doubles. Keeps *arr intact on failure. Returns 0 or CTXPROF_ERR_NOMEM. */
CTXPROF__PRIV int ctxprof__reserve(void **arr, size_t *cap, size_t len, size_t need, size_t elem,
                            void *ud)
{
    size_t ncap;
    void *p;
    if (need <= *cap)
        return CTXPROF_OK;
    ncap = *cap ? *cap : 16;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2)
            return CTXPROF_ERR_NOMEM;
        ncap *= 2;
    }
    p = ctxprof__alloc(ncap, elem, ud);
    if (!p)
        return CTXPROF_ERR_NOMEM;
    if (len)
        memcpy(p, *arr, len * elem);
    ctxprof__free(*arr, ud);
    *arr = p;
    *cap = ncap;
    return CTXPROF_OK;
}

/* ==== core: hashing ==== */

CTXPROF_DEF uint64_t ctxprof_hash_bytes(const void *data, size_t len, uint64_t seed)
{
    const unsigned char *p = (const unsigned char *)data;
    uint64_t h = ctxprof_mix64(seed ^ (uint64_t)len);
    while (len >= 8) {
        uint64_t w = 0;
        int i;
        for (i = 7; i >= 0; i--)
            w = (w << 8) | p[i];
        h = ctxprof_mix64(h ^ w);
        p += 8;
        len -= 8;
    }
    if (len) {
        uint64_t w = 0;
        size_t i = len;
        while (i--)
            w = (w << 8) | p[i];
        h = ctxprof_mix64(h ^ w ^ 0x8000000000000000u);
    }
    return h;
}

/* ==== core: little-endian encoding ==== */

CTXPROF__PRIV void ctxprof__put64(unsigned char *p, uint64_t v)
{
    int i;
    for (i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

CTXPROF__PRIV uint64_t ctxprof__get64(const unsigned char *p)
{
    uint64_t v = 0;
    int i;
    for (i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

/* ==== core: files ==== */

/* Writes len bytes to fd. Replaceable so tests can simulate short writes,
   interrupted writes and a full disk. */
typedef long (*ctxprof__write_fn)(int fd, const void *buf, size_t len);
CTXPROF__PRIV long ctxprof__write_default(int fd, const void *buf, size_t len)
{
    return (long)write(fd, buf, len);
}
static ctxprof__write_fn ctxprof__io_write = ctxprof__write_default;

/* Atomic replace: writes a temporary file beside path, fsyncs it and renames
   it over path. On any failure path is untouched and the temporary removed. */
CTXPROF__PRIV int ctxprof__write_file_atomic(const char *path, const void *data, size_t len,
                                      ctxprof_error *err)
{
    char tmp[4096];
    const unsigned char *p = (const unsigned char *)data;
    int fd, e;
    if (!path || !*path)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "no file name");
    if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmpXXXXXX", path) >= sizeof tmp)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "%s: path too long", path);
    fd = mkstemp(tmp);
    if (fd < 0)
        return ctxprof__fail(err, CTXPROF_ERR_SYS, errno, "%s: cannot create temporary file",
                             path);
    while (len > 0) {
        long n = ctxprof__io_write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            e = n < 0 ? errno : ENOSPC;
            goto fail;
        }
        p += n;
        len -= (size_t)n;
    }
    if (fsync(fd) != 0) {
        e = errno;
        goto fail;
    }
    if (close(fd) != 0) {
        e = errno;
        fd = -1;
        goto fail;
    }
    if (rename(tmp, path) != 0) {
        e = errno;
        unlink(tmp);
        return ctxprof__fail(err, CTXPROF_ERR_SYS, e, "%s: cannot replace", path);
    }
    return CTXPROF_OK;
fail:
    if (fd >= 0)
        close(fd);
    unlink(tmp);
    return ctxprof__fail(err, CTXPROF_ERR_SYS, e, "%s: write failed, file left unchanged", path);
}

/* Reads a whole file into a NUL-terminated buffer from CTXPROF_MALLOC. */
CTXPROF__PRIV int ctxprof__read_file(const char *path, char **out, size_t *out_len, void *ud,
                              ctxprof_error *err)
{
    int fd;
    char *buf = NULL;
    size_t cap = 0, len = 0;
    *out = NULL;
    *out_len = 0;
    if (!path)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "no file name");
    fd = strcmp(path, "-") == 0 ? 0 : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return ctxprof__fail(err, CTXPROF_ERR_SYS, errno, "%s", path);
    for (;;) {
        ssize_t n;
        if (cap - len < 2 &&
            ctxprof__reserve((void **)&buf, &cap, len, len + 65536, 1, ud) != CTXPROF_OK) {
            if (fd)
                close(fd);
            ctxprof__free(buf, ud);
            return ctxprof__fail(err, CTXPROF_ERR_NOMEM, 0, "%s: out of memory", path);
        }
        n = read(fd, buf + len, cap - len - 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int e = errno;
            if (fd)
                close(fd);
            ctxprof__free(buf, ud);
            return ctxprof__fail(err, CTXPROF_ERR_SYS, e, "%s: read failed", path);
        }
        if (n == 0)
            break;
        len += (size_t)n;
    }
    if (fd)
        close(fd);
    if (!buf && ctxprof__reserve((void **)&buf, &cap, 0, 1, 1, ud) != CTXPROF_OK)
        return ctxprof__fail(err, CTXPROF_ERR_NOMEM, 0, "%s: out of memory", path);
    buf[len] = '\0';
    *out = buf;
    *out_len = len;
    return CTXPROF_OK;
}

/* ==== core: binary container ====

   Every binary file (trained context sets, profiles) has this 64-byte header,
   little-endian, then the payload:

     0  magic    "CTXPROF\0"            8 bytes
     8  format   container version (1)  u32 | kind (what the payload is) u32
    16  params   four u64 the payload depends on (bit width, seed, ...)
    48  length   payload bytes          u64
    56  checksum ctxprof_hash_bytes over bytes 0..55 and the payload, seed = kind

   A loader refuses a file whose magic, version, kind, length or checksum is
   wrong (CTXPROF_ERR_CORRUPT / _MISMATCH) before it touches any state. */

#define CTXPROF__BLOB_HDR 64
#define CTXPROF__BLOB_VERSION 1
enum { CTXPROF__KIND_PCC_SET = 1, CTXPROF__KIND_HCCT_PROFILE = 2 };

CTXPROF__PRIV uint64_t ctxprof__blob_sum(const unsigned char *hdr, const unsigned char *payload,
                                  size_t len, uint32_t kind)
{
    return ctxprof_hash_bytes(payload, len, ctxprof_hash_bytes(hdr, 56, kind));
}

/* Fills the header in front of a payload: buf holds CTXPROF__BLOB_HDR bytes
   then len payload bytes. */
CTXPROF__PRIV void ctxprof__blob_seal(unsigned char *buf, uint32_t kind, const uint64_t params[4],
                               size_t len)
{
    int i;
    memcpy(buf, "CTXPROF", 8);
    ctxprof__put64(buf + 8, (uint64_t)CTXPROF__BLOB_VERSION | ((uint64_t)kind << 32));
    for (i = 0; i < 4; i++)
        ctxprof__put64(buf + 16 + 8 * i, params[i]);
    ctxprof__put64(buf + 48, (uint64_t)len);
    ctxprof__put64(buf + 56, ctxprof__blob_sum(buf, buf + CTXPROF__BLOB_HDR, len, kind));
}

/* Validates a whole file image; on success payload and len point into buf. */
CTXPROF__PRIV int ctxprof__blob_open(const unsigned char *buf, size_t size, uint32_t kind,
                              uint64_t params[4], const unsigned char **payload, size_t *len,
                              const char *path, ctxprof_error *err)
{
    uint64_t vk, plen;
    int i;
    if (size < CTXPROF__BLOB_HDR || memcmp(buf, "CTXPROF", 8) != 0)
        return ctxprof__fail(err, CTXPROF_ERR_CORRUPT, 0,
                             size < CTXPROF__BLOB_HDR ? "%s: truncated header"
                                                      : "%s: not a ctxprof file (bad magic)",
                             path);
    vk = ctxprof__get64(buf + 8);
    if ((uint32_t)vk != CTXPROF__BLOB_VERSION)
        return ctxprof__fail(err, CTXPROF_ERR_MISMATCH, 0,
                             "%s: container version %u, this library reads %u", path,
                             (unsigned)(uint32_t)vk, (unsigned)CTXPROF__BLOB_VERSION);
    if ((uint32_t)(vk >> 32) != kind)
        return ctxprof__fail(err, CTXPROF_ERR_MISMATCH, 0, "%s: file holds kind %u, expected %u",
                             path, (unsigned)(vk >> 32), (unsigned)kind);
    plen = ctxprof__get64(buf + 48);
    if (plen != (uint64_t)(size - CTXPROF__BLOB_HDR))
        return ctxprof__fail(err, CTXPROF_ERR_CORRUPT, 0,
                             "%s: payload is %llu bytes, header says %llu (truncated?)", path,
                             (unsigned long long)(size - CTXPROF__BLOB_HDR),
                             (unsigned long long)plen);
    if (ctxprof__get64(buf + 56) != ctxprof__blob_sum(buf, buf + CTXPROF__BLOB_HDR, size -
                                                      CTXPROF__BLOB_HDR, kind))
        return ctxprof__fail(err, CTXPROF_ERR_CORRUPT, 0, "%s: checksum mismatch", path);
    for (i = 0; i < 4; i++)
        params[i] = ctxprof__get64(buf + 16 + 8 * i);
    *payload = buf + CTXPROF__BLOB_HDR;
    *len = size - CTXPROF__BLOB_HDR;
    return CTXPROF_OK;
}

/* ==== core: text input ====

   Line reader shared by every text format (call graphs, path maps): '#'
   starts a comment, blank lines are skipped, tokens are separated by blanks.
   The buffer is modified in place (tokens are NUL-terminated). */

typedef struct ctxprof__lines {
    char *p, *end;    /* unread part of the buffer */
    const char *path; /* for messages */
    unsigned line;    /* number of the line last returned, 1-based */
    char *cur;        /* tokenizer position in the current line */
} ctxprof__lines;

CTXPROF__PRIV void ctxprof__lines_init(ctxprof__lines *L, char *buf, size_t len, const char *path)
{
    L->p = buf;
    L->end = buf + len;
    L->path = path ? path : "<input>";
    L->line = 0;
    L->cur = NULL;
}

/* Advances to the next line that has a token; returns 0 at end of input. */
CTXPROF__PRIV int ctxprof__lines_next(ctxprof__lines *L)
{
    while (L->p < L->end) {
        char *s = L->p, *e = s, *q;
        while (e < L->end && *e != '\n')
            e++;
        L->p = e < L->end ? e + 1 : e;
        L->line++;
        for (q = s; q < e; q++)
            if (*q == '#' || *q == '\0')
                break;
        *q = '\0'; /* q < L->end here, or q == e == L->end, which holds the terminating NUL */
        while (s < q && (*s == ' ' || *s == '\t' || *s == '\r'))
            s++;
        if (s < q) {
            L->cur = s;
            return 1;
        }
    }
    return 0;
}

/* Next token of the current line, or NULL at its end. */
CTXPROF__PRIV char *ctxprof__lines_tok(ctxprof__lines *L)
{
    char *s = L->cur, *e;
    if (!s)
        return NULL;
    while (*s == ' ' || *s == '\t' || *s == '\r')
        s++;
    if (!*s) {
        L->cur = NULL;
        return NULL;
    }
    e = s;
    while (*e && *e != ' ' && *e != '\t' && *e != '\r')
        e++;
    if (*e) {
        *e = '\0';
        L->cur = e + 1;
    } else {
        L->cur = e;
    }
    return s;
}

/* Parses a decimal unsigned integer token; 0 on success. */
CTXPROF__PRIV int ctxprof__parse_u64(const char *s, uint64_t *out)
{
    uint64_t v = 0;
    if (!s || !*s)
        return -1;
    for (; *s; s++) {
        unsigned d = (unsigned)(*s - '0');
        if (d > 9 || v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

/* ==== core: string interning ====

   Names (functions, call-site labels) to dense ids 0..n-1, in first-seen
   order so that output built from ids is deterministic. */

typedef struct ctxprof__strtab {
    char **names;    /* id -> name (owned copies) */
    size_t n, cap;   /* ids used, names[] capacity */
    uint32_t *slots; /* open addressing: id + 1, 0 = empty */
    size_t mask;     /* slots size - 1 */
    void *ud;        /* allocator user data */
} ctxprof__strtab;

CTXPROF__PRIV void ctxprof__strtab_init(ctxprof__strtab *t, void *ud)
{
    memset(t, 0, sizeof *t);
    t->ud = ud;
}

CTXPROF__PRIV void ctxprof__strtab_deinit(ctxprof__strtab *t)
{
    size_t i;
    for (i = 0; i < t->n; i++)
        ctxprof__free(t->names[i], t->ud);
    ctxprof__free(t->names, t->ud);
    ctxprof__free(t->slots, t->ud);
    memset(t, 0, sizeof *t);
}

CTXPROF__PRIV size_t ctxprof__strtab_slot(const ctxprof__strtab *t, const char *s, size_t len)
{
    size_t i = (size_t)ctxprof_hash_bytes(s, len, 0) & t->mask;
    while (t->slots[i]) {
        const char *name = t->names[t->slots[i] - 1];
        if (strncmp(name, s, len) == 0 && name[len] == '\0')
            break;
        i = (i + 1) & t->mask;
    }
    return i;
}

/* Id of a name, or -1 when absent. */
CTXPROF__PRIV long ctxprof__strtab_find(const ctxprof__strtab *t, const char *s)
{
    size_t i;
    if (!t->slots)
        return -1;
    i = ctxprof__strtab_slot(t, s, strlen(s));
    return t->slots[i] ? (long)t->slots[i] - 1 : -1;
}

/* Id of a name, added when absent; -1 when out of memory. */
CTXPROF__PRIV long ctxprof__strtab_intern(ctxprof__strtab *t, const char *s)
{
    size_t len = strlen(s), i;
    char *copy;
    if (t->n >= UINT32_MAX - 1)
        return -1;
    if (!t->slots || 2 * (t->n + 1) > t->mask + 1) { /* keep at most half full */
        size_t nsize = t->slots ? 2 * (t->mask + 1) : 64, k;
        uint32_t *old = t->slots;
        uint32_t *ns = (uint32_t *)ctxprof__zalloc(nsize, sizeof *ns, t->ud);
        if (!ns)
            return -1;
        t->slots = ns;
        t->mask = nsize - 1;
        for (k = 0; k < t->n; k++) {
            size_t j = ctxprof__strtab_slot(t, t->names[k], strlen(t->names[k]));
            t->slots[j] = (uint32_t)(k + 1);
        }
        ctxprof__free(old, t->ud);
    }
    i = ctxprof__strtab_slot(t, s, len);
    if (t->slots[i])
        return (long)t->slots[i] - 1;
    if (ctxprof__reserve((void **)&t->names, &t->cap, t->n, t->n + 1, sizeof *t->names, t->ud))
        return -1;
    copy = (char *)ctxprof__alloc(len + 1, 1, t->ud);
    if (!copy)
        return -1;
    memcpy(copy, s, len + 1);
    t->names[t->n] = copy;
    t->slots[i] = (uint32_t)(++t->n);
    return (long)t->n - 1;
}

/* ==== core: symbols: implementation ==== */

/* ==== pcc: implementation ==== */

/* ==== graph: implementation ==== */

/* ==== pcce: implementation ==== */

/* ==== valence: implementation ==== */

/* ==== icpp: implementation ==== */

#ifdef __cplusplus
}
#endif

#endif /* CTXPROF_IMPLEMENTATION */

/*
------------------------------------------------------------------------------
MIT License

Copyright (c) 2026 the ctxprof authors

Permission is hereby granted, free of charge, to any person obtaining a copy of
this software and associated documentation files (the "Software"), to deal in
the Software without restriction, including without limitation the rights to
use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies
of the Software, and to permit persons to whom the Software is furnished to do
so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
------------------------------------------------------------------------------
*/
