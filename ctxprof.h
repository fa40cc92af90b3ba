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
#define CTXPROF__RETURN_ADDRESS() __builtin_return_address(0)
#define CTXPROF__PRINTF(f, a) __attribute__((format(printf, f, a)))
#define CTXPROF__PRIV static __attribute__((unused))
#else
#define CTXPROF__PRIV static
#define CTXPROF__LIKELY(x) (x)
#define CTXPROF__UNLIKELY(x) (x)
#define CTXPROF__NOINLINE
#define CTXPROF__RETURN_ADDRESS() ((void *)0)
#define CTXPROF__PRINTF(f, a)
#endif

#if defined(__cplusplus) && __cplusplus >= 201103L
#define CTXPROF__STATIC_ASSERT(c, msg) static_assert(c, #msg)
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define CTXPROF__STATIC_ASSERT(c, msg) _Static_assert(c, #msg)
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

/* Function symbols of the running process, for mapping sampled program
   counters to functions. Built once (init), then read-only: lookups are safe
   from any number of threads at once and from signal handlers (no allocation,
   no locks, no system calls). */
struct ctxprof__sym;
struct ctxprof__symobj;
typedef struct ctxprof_symtab {
    size_t count;   /* function symbols loaded (after merging aliases) */
    size_t objects; /* objects scanned: the executable and every loaded library */
    size_t skipped; /* objects whose symbols could not be read (no file, corrupt) */
    /* private: */
    struct ctxprof__sym *syms;    /* sorted by start address */
    struct ctxprof__symobj *objs; /* object table */
    char *names;                  /* name pool: function names and object paths */
    size_t syms_cap, objs_cap, names_len, names_cap;
} ctxprof_symtab;

/* Loads the function symbols (.symtab, else .dynsym; a separate debug file
   found by build id under /usr/lib/debug when one is installed) of the
   executable and of every loaded object (dl_iterate_phdr), with load bias
   applied; sorted for binary search. Corrupt or unreadable objects are
   skipped and counted. Fails (state zeroed) only when out of memory or when
   no object at all had symbols. Allocates; not signal-safe. */
CTXPROF_API int ctxprof_symtab_init(ctxprof_symtab *st, ctxprof_error *err);
/* Frees the table; st may be zeroed or already deinited. */
CTXPROF_API void ctxprof_symtab_deinit(ctxprof_symtab *st);
/* Rebuilds the table (e.g. after dlopen). On failure st is unchanged. Must not
   run concurrently with lookups on st. */
CTXPROF_API int ctxprof_symtab_reload(ctxprof_symtab *st, ctxprof_error *err);
/* Function containing pc, or NULL; optional outputs: offset from its start,
   object path. Signal-safe, thread-safe. */
CTXPROF_API const char *ctxprof_symtab_lookup(const ctxprof_symtab *st, uintptr_t pc,
                                              uintptr_t *out_offset, const char **out_object);
/* Start address of the function containing pc (0 if unknown): a stable
   function id. A gcc cold part ("f.cold") maps to its parent f, since it
   runs in f's frame. Signal-safe, thread-safe. */
CTXPROF_API uintptr_t ctxprof_symtab_func(const ctxprof_symtab *st, uintptr_t pc);
/* Name of the function whose id (start address) is func, or NULL. Signal-safe. */
CTXPROF_API const char *ctxprof_symtab_name(const ctxprof_symtab *st, uintptr_t func);

/* ==== pcc: declarations ====

   Probabilistic calling context (Bond & McKinley, OOPSLA'07). Each thread
   keeps one value V for its current calling context; every annotated call
   site updates it with V' = 3*V + cs (paper 3.3) where cs is a compile-time
   constant for the site. Distinct contexts get distinct values with high
   probability (expected conflicts: ctxprof_pcc_expected_conflicts).

   Annotating code (portable C, no statement expressions):

       int handler(request *r)
       {
           CTXPROF_PCC_FUNC();                         // keep the caller's V in a local
           CTXPROF_PCC_CALL(CTXPROF_PCC_SITE(), n = parse(r));   // statement form
           y = g(CTXPROF_PCC_ARG(CTXPROF_PCC_SITE(), f(x)));     // call nested in an expression
           ctxprof_pcc_set_check(&set, CTXPROF_PCC_HERE(CTXPROF_PCC_SITE()), CTXPROF_PCC_LOC);
           write(fd, buf, n);                          // the action the query guards
       }

   CTXPROF_PCC_FUNC() must come where declarations may (C99: anywhere before
   use). CTXPROF_PCC_CALL sets V for the callee and restores the caller's V
   from the local afterwards, so unannotated code between annotated
   functions is transparent (the paper's "library methods are black boxes").
   CTXPROF_PCC_ARG sets V but cannot restore (the call's value is the
   expression's value); V is restored by the next CTXPROF_PCC_CALL, or at
   every return when the function starts with CTXPROF_PCC_SCOPE() instead of
   CTXPROF_PCC_FUNC() (GCC/Clang: __attribute__((cleanup))).

   setjmp/longjmp: queries use the local copy (CTXPROF_PCC_HERE), so a
   function that catches a longjmp computes correct values for its queries
   and its annotated calls right away. Only the thread's V itself stays at
   the value of the frame that jumped until the next annotated call site of
   the catching function; call CTXPROF_PCC_RESYNC() right after setjmp
   returns non-zero if unannotated callees must see the right V at once.

   Call-site ids: CTXPROF_PCC_SITE() hashes the base name of the source file
   (__FILE_NAME__ where the compiler has it, else __FILE__: then pass
   -fmacro-prefix-map so build directories do not leak in), the line, an
   optional discriminator (CTXPROF_PCC_SITE_D(n), for two sites on one line)
   and CTXPROF_SITE_SEED (a per-build secret defeats engineered conflicts).
   At -O1 and above the whole hash folds into one immediate. The first 32
   characters of the base name and its length are hashed. */

typedef struct ctxprof_pcc {
    ctxprof_ctx v; /* current context value */
} ctxprof_pcc;

/* The calling thread's context (initial-exec TLS; see THREADS above). */
CTXPROF_API CTXPROF_TLS ctxprof_pcc ctxprof_pcc_tls CTXPROF__TLS_MODEL;

/* Multiplicative inverse of 3 modulo 2^bits: undoes an update even after V
   wrapped (dividing by 3 would not). */
#if CTXPROF_CTX_BITS == 64
#define CTXPROF_PCC_INV3 ((ctxprof_ctx)0xAAAAAAAAAAAAAAABu)
#else
#define CTXPROF_PCC_INV3 ((ctxprof_ctx)0xAAAAAAABu)
#endif

/* Composition of a chain of sites (paper 3.3, inlined call sites): two
   updates f(f(V, a), b) equal one update by 3^2 with constant 3a + b. The
   result is an integer constant expression when a and b are. */
#define CTXPROF_PCC_COMPOSE(a, b) ((ctxprof_ctx)((ctxprof_ctx)3u * (ctxprof_ctx)(a) + (ctxprof_ctx)(b)))
#define CTXPROF_PCC_COMPOSE3(a, b, c) CTXPROF_PCC_COMPOSE(CTXPROF_PCC_COMPOSE(a, b), c)
#define CTXPROF_PCC_COMPOSE4(a, b, c, d) CTXPROF_PCC_COMPOSE(CTXPROF_PCC_COMPOSE3(a, b, c), d)

/* --- call-site ids (compile-time) ------------------------------------- */

#if defined(__FILE_NAME__)
#define CTXPROF__BASE_FILE __FILE_NAME__
#else
#define CTXPROF__BASE_FILE __FILE__
#endif
/* FNV-1a over the first 32 bytes of a string literal (NUL-padded). */
#define CTXPROF__FC(s, i) ((uint64_t)(unsigned char)(s)[(i) < sizeof(s) ? (i) : sizeof(s) - 1])
#define CTXPROF__F1(s, i, h) (((h) ^ CTXPROF__FC(s, i)) * (uint64_t)0x100000001B3u)
#define CTXPROF__F4(s, i, h)                                                                       \
    CTXPROF__F1(s, i + 3, CTXPROF__F1(s, i + 2, CTXPROF__F1(s, i + 1, CTXPROF__F1(s, i, h))))
#define CTXPROF__F32(s)                                                                            \
    CTXPROF__F4(s, 28, CTXPROF__F4(s, 24, CTXPROF__F4(s, 20, CTXPROF__F4(s, 16, CTXPROF__F4(     \
        s, 12, CTXPROF__F4(s, 8, CTXPROF__F4(s, 4, CTXPROF__F4(s, 0, (uint64_t)sizeof(s)))))))))

/* The id of a site from the hash of its file name, its line and a
   discriminator; ctxprof_pcc_site_id computes the same value at run time. */
CTXPROF_INLINE ctxprof_ctx ctxprof_pcc_site_mix(uint64_t file_hash, unsigned long line,
                                                unsigned long disc)
{
    uint64_t h = ctxprof_mix64(file_hash ^ ctxprof_mix64((uint64_t)CTXPROF_SITE_SEED));
    h = ctxprof_mix64(h ^ ((uint64_t)line << 20) ^ (uint64_t)disc);
    return (ctxprof_ctx)h;
}
#define CTXPROF_PCC_SITE_D(disc)                                                                   \
    ctxprof_pcc_site_mix(CTXPROF__F32(CTXPROF__BASE_FILE), (unsigned long)__LINE__,               \
                         (unsigned long)(disc))
#define CTXPROF_PCC_SITE() CTXPROF_PCC_SITE_D(0)
/* Source location passed to the checking functions (cold path only). */
#define CTXPROF_PCC_LOC CTXPROF__BASE_FILE, (unsigned)__LINE__

/* Run-time twin of CTXPROF_PCC_SITE_D for tools and tests: file is the base
   name (e.g. "server.c"); seed must be the build's CTXPROF_SITE_SEED. */
CTXPROF_API ctxprof_ctx ctxprof_pcc_site_id(const char *file, unsigned long line,
                                            unsigned long disc, uint64_t seed);

/* --- updates over an explicit state (no TLS) -------------------------- */

/* f(V, cs) = 3V + cs (paper 3.3). */
CTXPROF_INLINE ctxprof_ctx ctxprof_pcc_next(ctxprof_ctx v, ctxprof_ctx site)
{
    return (ctxprof_ctx)((ctxprof_ctx)3u * v + site);
}
/* Inverse of ctxprof_pcc_next: the value before the update. */
CTXPROF_INLINE ctxprof_ctx ctxprof_pcc_prev(ctxprof_ctx v, ctxprof_ctx site)
{
    return (ctxprof_ctx)((ctxprof_ctx)(v - site) * CTXPROF_PCC_INV3);
}
/* 3^k modulo 2^bits, to apply a composed chain of k sites:
   V' = ctxprof_pcc_pow3(k) * V + CTXPROF_PCC_COMPOSE...(sites). */
CTXPROF_INLINE ctxprof_ctx ctxprof_pcc_pow3(unsigned k)
{
    ctxprof_ctx r = 1, b = 3;
    for (; k; k >>= 1, b = (ctxprof_ctx)(b * b))
        if (k & 1u)
            r = (ctxprof_ctx)(r * b);
    return r;
}
/* Enters a call at site: returns the value to restore with ctxprof_pcc_pop. */
CTXPROF_INLINE ctxprof_ctx ctxprof_pcc_push(ctxprof_pcc *s, ctxprof_ctx site)
{
    ctxprof_ctx saved = s->v;
    s->v = ctxprof_pcc_next(saved, site);
    return saved;
}
CTXPROF_INLINE void ctxprof_pcc_pop(ctxprof_pcc *s, ctxprof_ctx saved)
{
    s->v = saved;
}
/* Leaves a call without a saved copy (multiplies by the inverse of 3). */
CTXPROF_INLINE void ctxprof_pcc_pop_site(ctxprof_pcc *s, ctxprof_ctx site)
{
    s->v = ctxprof_pcc_prev(s->v, site);
}

/* --- annotation macros over the thread's state ------------------------ */

#define CTXPROF_PCC_FUNC() ctxprof_ctx const ctxprof__pcc_here = ctxprof_pcc_tls.v
#define CTXPROF_PCC_CALL(site, stmt)                                                               \
    do {                                                                                           \
        ctxprof_pcc_tls.v = ctxprof_pcc_next(ctxprof__pcc_here, (site));                           \
        stmt;                                                                                      \
        ctxprof_pcc_tls.v = ctxprof__pcc_here;                                                     \
    } while (0)
#define CTXPROF_PCC_ARG(site, expr)                                                                \
    ((void)(ctxprof_pcc_tls.v = ctxprof_pcc_next(ctxprof__pcc_here, (site))), (expr))
#define CTXPROF_PCC_HERE(site) ctxprof_pcc_next(ctxprof__pcc_here, (site))
#define CTXPROF_PCC_RESYNC() ((void)(ctxprof_pcc_tls.v = ctxprof__pcc_here))
#if defined(__GNUC__) || defined(__clang__)
CTXPROF_INLINE void ctxprof__pcc_scope_exit(const ctxprof_ctx *saved)
{
    ctxprof_pcc_tls.v = *saved;
}
#define CTXPROF_PCC_SCOPE()                                                                        \
    ctxprof_ctx const ctxprof__pcc_here __attribute__((cleanup(ctxprof__pcc_scope_exit))) =       \
        ctxprof_pcc_tls.v
#define CTXPROF_PCC_HAVE_SCOPE 1
#endif
/* Query point outside an annotated function: f(V, site) with the thread's V. */
CTXPROF_INLINE ctxprof_ctx ctxprof_pcc_query(ctxprof_ctx site)
{
    return ctxprof_pcc_next(ctxprof_pcc_tls.v, site);
}

/* Expected number of conflicts among n random values of `bits` bits (32 or
   64): E = n - m + m((m-1)/m)^n, m = 2^bits (paper 3.2), computed without
   cancellation. */
CTXPROF_API double ctxprof_pcc_expected_conflicts(double n, unsigned bits);

/* --- context sets: train and check ------------------------------------

   A set of context values shared by all threads: open addressing with
   double hashing (paper section 4) that never gives up (the prototype
   dropped a value after 3 probes), kept at most half full and grown by
   doubling up to a bound. Lookups take no lock (an acquire load of the
   table, then of the slot); inserts serialize on a spin lock. Tables
   replaced by growth are kept until deinit, so a reader never touches freed
   memory (total memory stays below twice the final table).

   Modes: OFF (checks return at once), TRAIN (new values are inserted),
   CHECK (a value absent from the set is a new context: the report callback
   runs once per new context, with a symbolized backtrace taken only on this
   rare path, at most reports_per_sec times a second; a new context refused
   by the rate limit is counted in `suppressed` and not reported later, so a
   flood of new contexts costs a few reports and a counter). */

enum { CTXPROF_PCC_OFF = 0, CTXPROF_PCC_TRAIN = 1, CTXPROF_PCC_CHECK = 2 };

/* What the callback receives for a new context. Pointers are valid during
   the callback only. */
typedef struct ctxprof_pcc_report {
    ctxprof_ctx value;        /* the new context's value, f(V, query site) */
    const char *file;         /* query point: file base name, or NULL */
    unsigned line;            /* query point: line */
    void *const *frames;      /* return addresses, innermost first */
    size_t nframes;           /* entries in frames */
    const char *backtrace;    /* frames symbolized, one per line, "#0 0x.. fn+0x1a (obj)" */
    uint64_t index;           /* 1 for the first report of this set, 2 for the next... */
} ctxprof_pcc_report;
typedef void (*ctxprof_pcc_report_fn)(void *user, const ctxprof_pcc_report *report);

typedef struct ctxprof_pcc_set_desc {
    size_t expected;          /* expected distinct contexts: sizes the table (0: 1024) */
    size_t max_contexts;      /* bound on stored contexts, then inserts are dropped (0: 2^26) */
    int mode;                 /* CTXPROF_PCC_OFF / _TRAIN / _CHECK */
    ctxprof_pcc_report_fn report; /* called for each new context in CHECK mode, or NULL */
    void *report_user;
    unsigned reports_per_sec; /* rate limit of report calls (0: 16; burst the same) */
    unsigned backtrace_depth; /* frames per report (0: 32, at most 64) */
    size_t max_reported;      /* new contexts remembered to report once (0: 65536) */
    void *alloc_user;         /* passed to CTXPROF_MALLOC/FREE */
} ctxprof_pcc_set_desc;

/* Counters; ctxprof_pcc_set_stats sums them. */
typedef struct ctxprof_pcc_stats {
    uint64_t queries;    /* calls of ctxprof_pcc_set_check (any mode but OFF) */
    uint64_t distinct;   /* values in the set */
    uint64_t new_seen;   /* distinct new contexts seen in CHECK mode */
    uint64_t reported;   /* report callbacks made */
    uint64_t suppressed; /* report callbacks refused by the rate limit */
    uint64_t dropped;    /* values not stored: a bound was reached */
} ctxprof_pcc_stats;

#define CTXPROF__PCC_STRIPES 64
typedef struct ctxprof__pcc_table {
    ctxprof_ctx *slots; /* 0 = empty; the value 0 itself is kept in has_zero */
    size_t mask;        /* slots - 1 (a power of two) */
    size_t count;       /* values stored */
    struct ctxprof__pcc_table *retired; /* older tables, freed at deinit */
} ctxprof__pcc_table;

typedef struct ctxprof_pcc_set {
    ctxprof_pcc_set_desc desc;
    ctxprof_error err;
    /* private: */
    ctxprof__pcc_table *table;     /* current table (atomic pointer) */
    int mode;                      /* atomic copy of the mode */
    int has_zero;                  /* the value 0 is in the set (atomic) */
    int lock;                      /* spin lock for inserts and reports */
    ctxprof__pcc_table reported;   /* CHECK mode: new values already reported */
    int reported_zero;
    uint64_t tokens_ns;            /* rate limiter: time when the bucket was last full */
    uint64_t new_seen, reported_count, suppressed, dropped;
    void *symtab;                  /* symbol table for backtraces, loaded on first report */
    struct {
        uint64_t n;
        char pad[56];
    } queries[CTXPROF__PCC_STRIPES]; /* per-thread stripes, one cache line each */
} ctxprof_pcc_set;

/* Sizes and allocates the set; desc may be NULL (all defaults). */
CTXPROF_API int ctxprof_pcc_set_init(ctxprof_pcc_set *set, const ctxprof_pcc_set_desc *desc);
/* Frees everything; no thread may use the set any more. */
CTXPROF_API void ctxprof_pcc_set_deinit(ctxprof_pcc_set *set);
/* Switches mode; safe while other threads check. */
CTXPROF_API void ctxprof_pcc_set_mode(ctxprof_pcc_set *set, int mode);
/* Adds a value (training without the check path); 1 if added, 0 if present,
   CTXPROF_ERR_FULL when the bound is reached, CTXPROF_ERR_NOMEM. Thread-safe. */
CTXPROF_API int ctxprof_pcc_set_add(ctxprof_pcc_set *set, ctxprof_ctx value);
/* 1 if the value is in the set. Thread-safe, lock-free. */
CTXPROF_API int ctxprof_pcc_set_contains(const ctxprof_pcc_set *set, ctxprof_ctx value);
/* Values in the set. */
CTXPROF_API size_t ctxprof_pcc_set_count(const ctxprof_pcc_set *set);
/* Iteration in table order: start with *pos = 0; returns 0 when done. Not
   safe against concurrent inserts (they may or may not be seen). */
CTXPROF_API int ctxprof_pcc_set_next(const ctxprof_pcc_set *set, size_t *pos,
                                     ctxprof_ctx *out_value);
CTXPROF_API void ctxprof_pcc_set_stats(const ctxprof_pcc_set *set, ctxprof_pcc_stats *out);
/* Saves the set atomically (temporary file + rename): versioned binary with
   bit width, site seed, hash version and checksum. */
CTXPROF_API int ctxprof_pcc_set_save(ctxprof_pcc_set *set, const char *path);
/* Replaces the set's contents with a file's (load) or adds them (merge: the
   union of runs or hosts). A truncated, corrupt or mismatched file is
   refused with a message in set->err and the set left unchanged. */
CTXPROF_API int ctxprof_pcc_set_load(ctxprof_pcc_set *set, const char *path);
CTXPROF_API int ctxprof_pcc_set_merge(ctxprof_pcc_set *set, const char *path);
/* The last error's text (never NULL). */
CTXPROF_API const char *ctxprof_pcc_set_last_error(const ctxprof_pcc_set *set);

/* A set file's contents independent of this build's parameters (for tools
   that inspect, merge or compare files from any build). */
typedef struct ctxprof_pcc_file {
    unsigned bits;         /* 32 or 64 */
    unsigned site_version; /* version of the call-site hash */
    uint64_t seed;         /* CTXPROF_SITE_SEED of the build that wrote it */
    size_t count;          /* values */
    uint64_t *values;      /* sorted ascending, unique; from CTXPROF_MALLOC */
    void *alloc_user;      /* set before reading; passed to CTXPROF_MALLOC/FREE */
} ctxprof_pcc_file;
/* Reads and validates a set file; on failure *f is unchanged. */
CTXPROF_API int ctxprof_pcc_file_read(ctxprof_pcc_file *f, const char *path, ctxprof_error *err);
/* Writes atomically; values must be sorted and unique. */
CTXPROF_API int ctxprof_pcc_file_write(const ctxprof_pcc_file *f, const char *path,
                                       ctxprof_error *err);
CTXPROF_API void ctxprof_pcc_file_free(ctxprof_pcc_file *f);

/* Out-of-line part of ctxprof_pcc_set_check: probing, inserting, reporting. */
CTXPROF_API int ctxprof__pcc_set_slow(ctxprof_pcc_set *set, ctxprof_ctx value, const char *file,
                                      unsigned line);
/* The query stripe of the calling thread, 0 until assigned on first use. */
CTXPROF_API CTXPROF_TLS unsigned ctxprof__pcc_stripe CTXPROF__TLS_MODEL;
CTXPROF_API unsigned ctxprof__pcc_stripe_assign(void);

/* Checks a context at a query point; file and line (CTXPROF_PCC_LOC) name
   the point in reports. Returns 1 when the context is known (or the mode is
   OFF), 0 when it is new (CHECK: reported; TRAIN: inserted now). Thread-safe;
   no lock and no call when the value is in its first slot. Not signal-safe
   (a new context may allocate). */
CTXPROF_INLINE int ctxprof_pcc_set_check(ctxprof_pcc_set *set, ctxprof_ctx value,
                                         const char *file, unsigned line)
{
    const ctxprof__pcc_table *t;
    uint64_t *q;
    unsigned stripe = ctxprof__pcc_stripe;
    if (__atomic_load_n(&set->mode, __ATOMIC_RELAXED) == CTXPROF_PCC_OFF)
        return 1;
    if (CTXPROF__UNLIKELY(stripe == 0))
        stripe = ctxprof__pcc_stripe_assign();
    /* Stripe counters: plain load and store (no lock prefix); exact while
       each stripe has one writing thread, i.e. up to 64 live threads. */
    q = &set->queries[stripe % CTXPROF__PCC_STRIPES].n;
    __atomic_store_n(q, __atomic_load_n(q, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
    t = __atomic_load_n(&set->table, __ATOMIC_ACQUIRE);
    if (CTXPROF__LIKELY(__atomic_load_n(&t->slots[(size_t)value & t->mask], __ATOMIC_RELAXED) ==
                            value &&
                        value != 0))
        return 1;
    return ctxprof__pcc_set_slow(set, value, file, line);
}

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
#include <execinfo.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
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
   it over path. On any failure path is untouched and the temporary removed.
   A new file gets 0666 less the umask; a replaced one keeps its mode. */
CTXPROF__PRIV int ctxprof__write_file_atomic(const char *path, const void *data, size_t len,
                                      ctxprof_error *err)
{
    char tmp[4096];
    const unsigned char *p = (const unsigned char *)data;
    static unsigned seq;
    struct stat sb;
    int fd = -1, e = 0, tries;
    mode_t mode = 0666; /* narrowed by the umask, like any new file */
    if (!path || !*path)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "no file name");
    if (stat(path, &sb) == 0)
        mode = sb.st_mode & 07777; /* a replaced file keeps its permissions */
    for (tries = 0; tries < 100 && fd < 0; tries++) {
        unsigned n = __atomic_add_fetch(&seq, 1u, __ATOMIC_RELAXED);
        if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp%ld.%u", path, (long)getpid(), n) >=
            sizeof tmp)
            return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "%s: path too long", path);
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
        e = errno;
        if (fd < 0 && e != EEXIST)
            break;
    }
    if (fd < 0)
        return ctxprof__fail(err, CTXPROF_ERR_SYS, e, "%s: cannot create temporary file",
                             path);
    if (mode != 0666)
        fchmod(fd, mode);
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

/* ==== core: symbols: implementation ====

   ELF files are parsed byte by byte at explicit offsets (no <elf.h>, no
   alignment assumptions). Every offset and size read from a file is checked
   against the file's size before use, so a truncated or corrupt object is
   skipped (and counted), never trusted. The objects come from
   dl_iterate_phdr, which glibc declares only under _GNU_SOURCE: we declare
   our own view of it (the first four fields of struct dl_phdr_info are
   fixed ABI since its introduction) under the assembler name. */

struct ctxprof__sym {
    uintptr_t start, end; /* [start, end) in this process */
    uintptr_t func;       /* function id: start, or the parent's start for "f.cold" */
    uint32_t name;        /* offset in the name pool */
    uint32_t obj;         /* index in objs */
    uint32_t rank;        /* alias preference while building, lower wins */
    uint32_t len;         /* name length, alias tie-break */
};

struct ctxprof__symobj {
    uint32_t path; /* offset in the name pool */
};

#if defined(__linux__) && (defined(__GNUC__) || defined(__clang__)) &&                             \
    UINTPTR_MAX == UINT64_MAX && defined(__BYTE_ORDER__) &&                                        \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define CTXPROF__HAVE_SYMTAB 1
typedef struct ctxprof__phdr { /* Elf64_Phdr */
    uint32_t type, flags;
    uint64_t offset, vaddr, paddr, filesz, memsz, align;
} ctxprof__phdr;
struct ctxprof__dl_info { /* the fixed head of struct dl_phdr_info */
    uintptr_t addr;
    const char *name;
    const ctxprof__phdr *phdr;
    uint16_t phnum;
};
extern int ctxprof__dl_iterate_phdr(int (*cb)(struct ctxprof__dl_info *, size_t, void *),
                                    void *data) __asm__("dl_iterate_phdr");
#endif

/* Where an ELF image is read from: a file descriptor or memory (the vDSO). */
typedef struct ctxprof__elfsrc {
    int fd;
    const unsigned char *mem;
    uint64_t size;
} ctxprof__elfsrc;

CTXPROF__PRIV uint32_t ctxprof__get32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

CTXPROF__PRIV unsigned ctxprof__get16(const unsigned char *p)
{
    return (unsigned)p[0] | (unsigned)p[1] << 8;
}

/* Reads len bytes at off; 0 on success, -1 when outside the image or on I/O error. */
CTXPROF__PRIV int ctxprof__elf_read(const ctxprof__elfsrc *s, uint64_t off, void *dst, size_t len)
{
    unsigned char *d = (unsigned char *)dst;
    if (off > s->size || (uint64_t)len > s->size - off)
        return -1;
    if (s->mem) {
        memcpy(d, s->mem + off, len);
        return 0;
    }
    while (len) {
        ssize_t n = pread(s->fd, d, len, (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        d += n;
        off += (uint64_t)n;
        len -= (size_t)n;
    }
    return 0;
}

/* Appends a NUL-terminated string of len bytes to the name pool; its offset,
   or UINT32_MAX when out of memory or past the pool's 4 GiB limit. */
CTXPROF__PRIV uint32_t ctxprof__symtab_str(ctxprof_symtab *st, const char *s, size_t len)
{
    uint32_t off = (uint32_t)st->names_len;
    if (st->names_len + len + 1 >= UINT32_MAX ||
        ctxprof__reserve((void **)&st->names, &st->names_cap, st->names_len,
                         st->names_len + len + 1, 1, NULL))
        return UINT32_MAX;
    memcpy(st->names + st->names_len, s, len);
    st->names[st->names_len + len] = '\0';
    st->names_len += len + 1;
    return off;
}

/* Registers an object by path; its index, or UINT32_MAX when out of memory. */
CTXPROF__PRIV uint32_t ctxprof__symtab_obj(ctxprof_symtab *st, const char *path)
{
    uint32_t name = ctxprof__symtab_str(st, path, strlen(path));
    if (name == UINT32_MAX || st->objects >= UINT32_MAX - 1 ||
        ctxprof__reserve((void **)&st->objs, &st->objs_cap, st->objects, st->objects + 1,
                         sizeof *st->objs, NULL))
        return UINT32_MAX;
    st->objs[st->objects].path = name;
    return (uint32_t)st->objects++;
}

/* Alias preference: fewer leading underscores, then global over weak over local. */
CTXPROF__PRIV uint32_t ctxprof__sym_rank(const char *name, unsigned bind)
{
    uint32_t u = 0;
    while (name[u] == '_' && u < 3)
        u++;
    return u * 4 + (bind == 1 ? 0u : bind == 2 ? 1u : bind == 0 ? 2u : 3u);
}

/* Adds the function symbols of one ELF image. Addresses are value + bias and
   must fall in one of the nx executable ranges xr[2i]..xr[2i+1] (any address
   when nx == 0). Returns the number added (0: not ELF, corrupt, or no
   function symbols), or CTXPROF_ERR_NOMEM. */
CTXPROF__PRIV long ctxprof__symtab_add_elf(ctxprof_symtab *st, const ctxprof__elfsrc *src,
                                           uintptr_t bias, const uintptr_t *xr, size_t nx,
                                           uint32_t obj)
{
    unsigned char eh[64], *sh = NULL, *strs = NULL, *chunk = NULL;
    uint64_t shoff, shnum, i;
    long added = 0;
    int pass;
    if (ctxprof__elf_read(src, 0, eh, sizeof eh) || memcmp(eh, "\177ELF", 4) != 0 || eh[4] != 2 ||
        eh[5] != 1 || ctxprof__get16(eh + 58) != 64)
        return 0;
    shoff = ctxprof__get64(eh + 40);
    shnum = ctxprof__get16(eh + 60);
    if (shnum == 0 && shoff != 0) { /* extended numbering: the count is in section 0 */
        unsigned char s0[64];
        if (ctxprof__elf_read(src, shoff, s0, sizeof s0))
            return 0;
        shnum = ctxprof__get64(s0 + 32);
    }
    if (shnum == 0 || shoff > src->size || shnum > (src->size - shoff) / 64)
        return 0;
    sh = (unsigned char *)ctxprof__alloc((size_t)shnum, 64, NULL);
    chunk = (unsigned char *)ctxprof__alloc(1024, 24, NULL);
    if (!sh || !chunk) {
        added = CTXPROF_ERR_NOMEM;
        goto done;
    }
    if (ctxprof__elf_read(src, shoff, sh, (size_t)shnum * 64))
        goto done;
    /* .symtab first (it has the static functions); .dynsym only without it */
    for (pass = 0; pass < 2 && added == 0; pass++) {
        uint32_t want = pass == 0 ? 2u : 11u; /* SHT_SYMTAB, SHT_DYNSYM */
        for (i = 0; i < shnum; i++) {
            const unsigned char *s = sh + i * 64, *l;
            uint64_t off = ctxprof__get64(s + 24), size = ctxprof__get64(s + 32);
            uint64_t link = ctxprof__get32(s + 40), stroff, strsize, k;
            if (ctxprof__get32(s + 4) != want || ctxprof__get64(s + 56) != 24 || link >= shnum)
                continue;
            l = sh + link * 64;
            stroff = ctxprof__get64(l + 24);
            strsize = ctxprof__get64(l + 32);
            if (ctxprof__get32(l + 4) != 3 || strsize == 0 || strsize > src->size ||
                size > src->size)
                continue;
            ctxprof__free(strs, NULL);
            strs = (unsigned char *)ctxprof__alloc((size_t)strsize, 1, NULL);
            if (!strs) {
                added = CTXPROF_ERR_NOMEM;
                goto done;
            }
            if (ctxprof__elf_read(src, stroff, strs, (size_t)strsize))
                continue;
            for (k = 0; k < size / 24; k++) {
                const unsigned char *y;
                uint64_t value, name;
                unsigned type, bind;
                uintptr_t addr;
                const char *nm, *nul;
                size_t j;
                if (k % 1024 == 0 &&
                    ctxprof__elf_read(src, off + k * 24, chunk,
                                      (size_t)(size / 24 - k < 1024 ? size / 24 - k : 1024) * 24))
                    break;
                y = chunk + (k % 1024) * 24;
                name = ctxprof__get32(y);
                type = y[4] & 15u;
                bind = y[4] >> 4;
                value = ctxprof__get64(y + 8);
                if ((type != 2 && type != 10) || ctxprof__get16(y + 6) == 0 || value == 0 ||
                    name >= strsize || value > (uint64_t)(UINTPTR_MAX - bias))
                    continue; /* not a defined function (FUNC or GNU_IFUNC) */
                nm = (const char *)strs + name;
                nul = (const char *)memchr(nm, 0, (size_t)(strsize - name));
                if (!nul || nul == nm)
                    continue;
                for (j = 0; nm + j < nul; j++) /* "f@@GLIBC_2.2.5": keep "f" */
                    if (nm[j] == '@' && j > 0) {
                        nul = nm + j;
                        break;
                    }
                addr = (uintptr_t)value + bias;
                for (j = 0; j < nx; j++)
                    if (addr >= xr[2 * j] && addr < xr[2 * j + 1])
                        break;
                if (nx && j == nx)
                    continue;
                if (ctxprof__reserve((void **)&st->syms, &st->syms_cap, st->count, st->count + 1,
                                     sizeof *st->syms, NULL)) {
                    added = CTXPROF_ERR_NOMEM;
                    goto done;
                }
                {
                    struct ctxprof__sym *e = &st->syms[st->count];
                    uint64_t sz = ctxprof__get64(y + 16);
                    e->start = addr;
                    e->end = sz && sz <= (uint64_t)(UINTPTR_MAX - addr) ? addr + (uintptr_t)sz : 0;
                    e->name = ctxprof__symtab_str(st, nm, (size_t)(nul - nm));
                    e->obj = obj;
                    e->rank = ctxprof__sym_rank(nm, bind);
                    e->len = (uint32_t)(nul - nm);
                    e->func = addr;
                    if (e->name == UINT32_MAX) {
                        added = CTXPROF_ERR_NOMEM;
                        goto done;
                    }
                }
                st->count++;
                added++;
            }
        }
    }
done:
    ctxprof__free(sh, NULL);
    ctxprof__free(strs, NULL);
    ctxprof__free(chunk, NULL);
    return added;
}

/* Adds the symbols of an ELF file (see ctxprof__symtab_add_elf); 0 when the
   file cannot be opened. */
CTXPROF__PRIV long ctxprof__symtab_add_file(ctxprof_symtab *st, const char *path, uintptr_t bias,
                                            const uintptr_t *xr, size_t nx, uint32_t obj)
{
    ctxprof__elfsrc src;
    struct stat sb;
    long r;
    src.mem = NULL;
    src.fd = open(path, O_RDONLY | O_CLOEXEC);
    if (src.fd < 0)
        return 0;
    if (fstat(src.fd, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size < 64) {
        close(src.fd);
        return 0;
    }
    src.size = (uint64_t)sb.st_size;
    r = ctxprof__symtab_add_elf(st, &src, bias, xr, nx, obj);
    close(src.fd);
    return r;
}

CTXPROF__PRIV int ctxprof__sym_cmp(const void *a, const void *b)
{
    const struct ctxprof__sym *x = (const struct ctxprof__sym *)a;
    const struct ctxprof__sym *y = (const struct ctxprof__sym *)b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    if (x->obj != y->obj)
        return x->obj < y->obj ? -1 : 1;
    return x->name < y->name ? -1 : x->name > y->name;
}

typedef struct ctxprof__symname {
    const char *name;
    size_t len; /* compared length: the base name of a cold part */
    uint32_t obj;
    size_t idx;
} ctxprof__symname;

CTXPROF__PRIV int ctxprof__symname_cmp(const void *a, const void *b)
{
    const ctxprof__symname *x = (const ctxprof__symname *)a, *y = (const ctxprof__symname *)b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c;
    if (x->obj != y->obj)
        return x->obj < y->obj ? -1 : 1;
    c = memcmp(x->name, y->name, n);
    if (c)
        return c;
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Sorts, merges aliases (one entry per address, the preferred name), gives
   sizeless symbols the extent up to the next one, and points each gcc cold
   part "f.cold[.N]" at its parent f. Returns 0 or CTXPROF_ERR_NOMEM. */
CTXPROF__PRIV int ctxprof__symtab_finish(ctxprof_symtab *st)
{
    size_t i, n = 0, ncold = 0;
    ctxprof__symname *ix;
    if (!st->count)
        return CTXPROF_OK;
    qsort(st->syms, st->count, sizeof *st->syms, ctxprof__sym_cmp);
    for (i = 0; i < st->count; i++) {
        if (n && st->syms[n - 1].start == st->syms[i].start) {
            if (st->syms[i].end > st->syms[n - 1].end)
                st->syms[n - 1].end = st->syms[i].end;
            continue;
        }
        st->syms[n++] = st->syms[i];
    }
    st->count = n;
    for (i = 0; i < n; i++)
        if (!st->syms[i].end)
            st->syms[i].end = i + 1 < n && st->syms[i + 1].obj == st->syms[i].obj
                                  ? st->syms[i + 1].start
                                  : st->syms[i].start + 1;
    for (i = 0; i < n; i++)
        if (strstr(st->names + st->syms[i].name, ".cold"))
            ncold++;
    if (!ncold)
        return CTXPROF_OK;
    ix = (ctxprof__symname *)ctxprof__alloc(n, sizeof *ix, NULL);
    if (!ix)
        return CTXPROF_ERR_NOMEM;
    for (i = 0; i < n; i++) {
        ix[i].name = st->names + st->syms[i].name;
        ix[i].len = st->syms[i].len;
        ix[i].obj = st->syms[i].obj;
        ix[i].idx = i;
    }
    qsort(ix, n, sizeof *ix, ctxprof__symname_cmp);
    for (i = 0; i < n; i++) {
        const char *nm = st->names + st->syms[i].name, *c = strstr(nm, ".cold");
        ctxprof__symname key;
        size_t lo = 0, hi = n;
        if (!c || (c[5] != '\0' && c[5] != '.') || c == nm)
            continue;
        key.name = nm;
        key.len = (size_t)(c - nm);
        key.obj = st->syms[i].obj;
        key.idx = 0;
        while (lo < hi) { /* first entry >= key */
            size_t mid = lo + (hi - lo) / 2;
            if (ctxprof__symname_cmp(&ix[mid], &key) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < n && ix[lo].obj == key.obj && ix[lo].len == key.len &&
            memcmp(ix[lo].name, nm, key.len) == 0)
            st->syms[i].func = st->syms[ix[lo].idx].start;
    }
    ctxprof__free(ix, NULL);
    return CTXPROF_OK;
}

#if defined(CTXPROF__HAVE_SYMTAB)
typedef struct ctxprof__loadobj {
    uintptr_t bias;
    uint32_t obj;               /* index in st->objs */
    size_t nx;                  /* executable ranges used in xr */
    uintptr_t xr[16];           /* up to 8 executable PT_LOAD ranges */
    const unsigned char *image; /* mapped file image (offset 0), for the vDSO */
    uint64_t image_size;
    unsigned char build_id[40];
    size_t build_id_len;
} ctxprof__loadobj;

typedef struct ctxprof__loadlist {
    ctxprof_symtab *st;
    ctxprof__loadobj *v;
    size_t n, cap;
    int nomem;
} ctxprof__loadlist;

/* Build id from the object's PT_NOTE segments (mapped, within a PT_LOAD). */
CTXPROF__PRIV void ctxprof__symtab_build_id(ctxprof__loadobj *o, const struct ctxprof__dl_info *in)
{
    unsigned i, j;
    for (i = 0; i < in->phnum; i++) {
        const ctxprof__phdr *p = &in->phdr[i];
        const unsigned char *q, *end;
        int mapped = 0;
        if (p->type != 4 || p->filesz < 12) /* PT_NOTE */
            continue;
        for (j = 0; j < in->phnum; j++) { /* must lie inside a loaded, file-backed range */
            const ctxprof__phdr *l = &in->phdr[j];
            if (l->type == 1 && p->vaddr >= l->vaddr && p->filesz <= l->filesz &&
                p->vaddr - l->vaddr <= l->filesz - p->filesz)
                mapped = 1;
        }
        if (!mapped)
            continue;
        q = (const unsigned char *)(in->addr + (uintptr_t)p->vaddr);
        end = q + p->filesz;
        while (end - q >= 12) {
            uint32_t namesz = ctxprof__get32(q), descsz = ctxprof__get32(q + 4);
            uint32_t type = ctxprof__get32(q + 8);
            size_t na = ((size_t)namesz + 3) & ~(size_t)3, da = ((size_t)descsz + 3) & ~(size_t)3;
            if (na > (size_t)(end - q - 12) || da > (size_t)(end - q - 12) - na)
                break;
            if (type == 3 && namesz == 4 && memcmp(q + 12, "GNU", 4) == 0 && descsz > 0 &&
                descsz <= sizeof o->build_id) {
                memcpy(o->build_id, q + 12 + na, descsz);
                o->build_id_len = descsz;
                return;
            }
            q += 12 + na + da;
        }
    }
}

CTXPROF__PRIV int ctxprof__symtab_collect(struct ctxprof__dl_info *in, size_t size, void *data)
{
    ctxprof__loadlist *L = (ctxprof__loadlist *)data;
    ctxprof__loadobj *o;
    char exe[4096];
    const char *path = in->name;
    unsigned i;
    if (size < sizeof *in)
        return 0;
    if (ctxprof__reserve((void **)&L->v, &L->cap, L->n, L->n + 1, sizeof *L->v, NULL)) {
        L->nomem = 1;
        return 1;
    }
    o = &L->v[L->n];
    memset(o, 0, sizeof *o);
    if (!path || !*path) { /* the executable: dl_iterate_phdr lists it first, unnamed */
        ssize_t n = L->n == 0 ? readlink("/proc/self/exe", exe, sizeof exe - 1) : -1;
        if (n > 0) {
            exe[n] = '\0';
            path = exe;
        } else {
            path = L->n == 0 ? "/proc/self/exe" : "";
        }
    }
    o->obj = ctxprof__symtab_obj(L->st, path);
    if (o->obj == UINT32_MAX) {
        L->nomem = 1;
        return 1;
    }
    o->bias = in->addr;
    for (i = 0; i < in->phnum; i++) {
        const ctxprof__phdr *p = &in->phdr[i];
        if (p->type != 1) /* PT_LOAD */
            continue;
        if ((p->flags & 1u) && o->nx < 8) { /* PF_X */
            o->xr[2 * o->nx] = in->addr + (uintptr_t)p->vaddr;
            o->xr[2 * o->nx + 1] = in->addr + (uintptr_t)(p->vaddr + p->memsz);
            o->nx++;
        }
        if (p->offset == 0 && !o->image) { /* readable up to the end of its last page */
            long pg = sysconf(_SC_PAGESIZE);
            uint64_t ps = pg > 0 ? (uint64_t)pg : 4096;
            o->image = (const unsigned char *)(in->addr + (uintptr_t)p->vaddr);
            o->image_size = p->filesz <= UINT64_MAX - ps ? (p->filesz + ps - 1) / ps * ps : 0;
        }
    }
    ctxprof__symtab_build_id(o, in);
    L->n++;
    return 0;
}

/* Loads every object of the process into st (zeroed by the caller). */
CTXPROF__PRIV int ctxprof__symtab_load(ctxprof_symtab *st, ctxprof_error *err)
{
    ctxprof__loadlist L;
    size_t i;
    int rc = CTXPROF_OK;
    memset(&L, 0, sizeof L);
    L.st = st;
    ctxprof__dl_iterate_phdr(ctxprof__symtab_collect, &L);
    if (L.nomem) {
        rc = ctxprof__fail(err, CTXPROF_ERR_NOMEM, 0, "symbol table: out of memory");
        goto done;
    }
    for (i = 0; i < L.n; i++) {
        ctxprof__loadobj *o = &L.v[i];
        const char *path = st->names + st->objs[o->obj].path;
        long got = 0;
        if (o->build_id_len >= 2) { /* a detached debug file has the static functions */
            char dbg[128];
            size_t k, n = (size_t)snprintf(dbg, sizeof dbg, "/usr/lib/debug/.build-id/%02x/",
                                           o->build_id[0]);
            for (k = 1; k < o->build_id_len && n + 8 < sizeof dbg; k++)
                n += (size_t)snprintf(dbg + n, sizeof dbg - n, "%02x", o->build_id[k]);
            snprintf(dbg + n, sizeof dbg - n, ".debug");
            got = ctxprof__symtab_add_file(st, dbg, o->bias, o->xr, o->nx, o->obj);
        }
        if (got == 0 && *path)
            got = ctxprof__symtab_add_file(st, path, o->bias, o->xr, o->nx, o->obj);
        if (got == 0 && o->image && o->image_size >= 64) { /* no file: the vDSO */
            ctxprof__elfsrc src;
            src.fd = -1;
            src.mem = o->image;
            src.size = o->image_size;
            got = ctxprof__symtab_add_elf(st, &src, o->bias, o->xr, o->nx, o->obj);
        }
        if (got < 0) {
            rc = ctxprof__fail(err, CTXPROF_ERR_NOMEM, 0, "symbol table: out of memory");
            goto done;
        }
        if (got == 0)
            st->skipped++;
    }
    if (ctxprof__symtab_finish(st)) {
        rc = ctxprof__fail(err, CTXPROF_ERR_NOMEM, 0, "symbol table: out of memory");
        goto done;
    }
    if (!st->count)
        rc = ctxprof__fail(err, CTXPROF_ERR_UNSUPPORTED, 0,
                           "symbol table: no function symbols in any of %zu objects", st->objects);
done:
    ctxprof__free(L.v, NULL);
    return rc;
}
#endif

CTXPROF_DEF void ctxprof_symtab_deinit(ctxprof_symtab *st)
{
    if (!st)
        return;
    ctxprof__free(st->syms, NULL);
    ctxprof__free(st->objs, NULL);
    ctxprof__free(st->names, NULL);
    memset(st, 0, sizeof *st);
}

CTXPROF_DEF int ctxprof_symtab_init(ctxprof_symtab *st, ctxprof_error *err)
{
    int rc;
    ctxprof__error_clear(err);
    if (!st)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "symbol table: NULL argument");
    memset(st, 0, sizeof *st);
#if defined(CTXPROF__HAVE_SYMTAB)
    rc = ctxprof__symtab_load(st, err);
#else
    rc = ctxprof__fail(err, CTXPROF_ERR_UNSUPPORTED, 0,
                       "symbol table: needs 64-bit little-endian Linux with gcc or clang");
#endif
    if (rc)
        ctxprof_symtab_deinit(st);
    return rc;
}

CTXPROF_DEF int ctxprof_symtab_reload(ctxprof_symtab *st, ctxprof_error *err)
{
    ctxprof_symtab fresh;
    int rc;
    if (!st)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "symbol table: NULL argument");
    rc = ctxprof_symtab_init(&fresh, err);
    if (rc)
        return rc;
    ctxprof_symtab_deinit(st);
    *st = fresh;
    return CTXPROF_OK;
}

/* Entry containing pc, or NULL. Checks a few earlier entries too, for a
   symbol nested inside a larger one. Signal-safe. */
CTXPROF__PRIV const struct ctxprof__sym *ctxprof__symtab_find(const ctxprof_symtab *st,
                                                              uintptr_t pc)
{
    size_t lo = 0, hi, k;
    if (!st || !st->count)
        return NULL;
    hi = st->count;
    while (lo < hi) { /* first entry with start > pc */
        size_t mid = lo + (hi - lo) / 2;
        if (st->syms[mid].start <= pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (k = 0; k < 4 && lo > k; k++) {
        const struct ctxprof__sym *e = &st->syms[lo - 1 - k];
        if (pc < e->end)
            return e;
    }
    return NULL;
}

CTXPROF_DEF const char *ctxprof_symtab_lookup(const ctxprof_symtab *st, uintptr_t pc,
                                              uintptr_t *out_offset, const char **out_object)
{
    const struct ctxprof__sym *e = ctxprof__symtab_find(st, pc);
    if (out_offset)
        *out_offset = e ? pc - e->start : 0;
    if (out_object)
        *out_object = e ? st->names + st->objs[e->obj].path : NULL;
    return e ? st->names + e->name : NULL;
}

CTXPROF_DEF uintptr_t ctxprof_symtab_func(const ctxprof_symtab *st, uintptr_t pc)
{
    const struct ctxprof__sym *e = ctxprof__symtab_find(st, pc);
    return e ? e->func : 0;
}

CTXPROF_DEF const char *ctxprof_symtab_name(const ctxprof_symtab *st, uintptr_t func)
{
    const struct ctxprof__sym *e = ctxprof__symtab_find(st, func);
    return e && e->start == func ? st->names + e->name : NULL;
}

/* ==== pcc: implementation ==== */

CTXPROF_DEF CTXPROF_TLS ctxprof_pcc ctxprof_pcc_tls CTXPROF__TLS_MODEL;
CTXPROF_DEF CTXPROF_TLS unsigned ctxprof__pcc_stripe CTXPROF__TLS_MODEL;
static unsigned ctxprof__pcc_stripes_given;

CTXPROF_DEF unsigned ctxprof__pcc_stripe_assign(void)
{
    unsigned s = __atomic_add_fetch(&ctxprof__pcc_stripes_given, 1u, __ATOMIC_RELAXED);
    if (s == 0) /* wrapped after 2^32 threads */
        s = __atomic_add_fetch(&ctxprof__pcc_stripes_given, 1u, __ATOMIC_RELAXED);
    ctxprof__pcc_stripe = s;
    return s;
}

#define CTXPROF_PCC_SITE_VERSION 1 /* of the call-site hash; stored in set files */

CTXPROF_DEF ctxprof_ctx ctxprof_pcc_site_id(const char *file, unsigned long line,
                                            unsigned long disc, uint64_t seed)
{
    /* Same arithmetic as CTXPROF__F32 and ctxprof_pcc_site_mix. */
    size_t len = strlen(file), i;
    uint64_t h = (uint64_t)(len + 1);
    for (i = 0; i < 32; i++)
        h = (h ^ (uint64_t)(unsigned char)(i < len ? file[i] : 0)) * (uint64_t)0x100000001B3u;
    h = ctxprof_mix64(h ^ ctxprof_mix64(seed));
    return (ctxprof_ctx)ctxprof_mix64(h ^ ((uint64_t)line << 20) ^ (uint64_t)disc);
}

CTXPROF_DEF double ctxprof_pcc_expected_conflicts(double n, unsigned bits)
{
    double m = bits >= 64 ? 18446744073709551616.0 : (double)((uint64_t)1 << bits);
    double sum = 0, term, k;
    if (n < 2)
        return 0;
    if (n < m * 1e-3) {
        /* E = sum_{k>=2} (-1)^k C(n,k) / m^(k-1): the closed form cancels
           catastrophically when n << m. */
        term = n * (n - 1) / (2 * m);
        for (k = 2; k < 200 && term > sum * 1e-17; k += 1) {
            sum += ((long)k % 2 == 0) ? term : -term;
            term = term * (n - k) / ((k + 1) * m);
        }
        return sum;
    }
    {
        /* E = n - m(1 - q), q = ((m-1)/m)^n = exp(L), L = n log1p(-1/m) =
           -n/m - n/(2m^2) to double precision (m >= 2^32). 1 - q comes from
           the Taylor series of expm1 on L / 2^j, squared back j times:
           plain doubles, no libm, no reliance on long double. */
        double L = -(n / m) - n / (2 * m * m), r = L, e, t;
        int j = 0;
        while (r < -0.5) {
            r /= 2;
            j++;
        }
        for (e = 0, t = r, k = 1; k < 60 && (t > 1e-18 || t < -1e-18); k += 1) {
            e += t; /* e = expm1(r) */
            t = t * r / (k + 1);
        }
        while (j-- > 0)
            e = e * (e + 2); /* expm1(2x) = expm1(x) (expm1(x) + 2) */
        return n + m * e;
    }
}

/* ---- pcc: the open-addressing table ---- */

/* The set's symbol table, loaded on the first report (outside the lock;
   a thread that loses the race frees its copy). NULL if none can be read. */
CTXPROF__PRIV const ctxprof_symtab *ctxprof__pcc_symbols(ctxprof_pcc_set *set)
{
    ctxprof_symtab *st = (ctxprof_symtab *)__atomic_load_n(&set->symtab, __ATOMIC_ACQUIRE);
    void *expected = NULL;
    if (st)
        return st->count ? st : NULL;
    st = (ctxprof_symtab *)ctxprof__zalloc(1, sizeof *st, set->desc.alloc_user);
    if (!st)
        return NULL;
    if (ctxprof_symtab_init(st, NULL) != CTXPROF_OK)
        memset(st, 0, sizeof *st); /* remembered as "no symbols" */
    if (!__atomic_compare_exchange_n(&set->symtab, &expected, (void *)st, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE)) {
        ctxprof_symtab_deinit(st);
        ctxprof__free(st, set->desc.alloc_user);
        st = (ctxprof_symtab *)expected;
    }
    return st->count ? st : NULL;
}

CTXPROF__PRIV void ctxprof__pcc_symtab_free(ctxprof_pcc_set *set)
{
    ctxprof_symtab *st = (ctxprof_symtab *)set->symtab;
    if (st) {
        ctxprof_symtab_deinit(st);
        ctxprof__free(st, set->desc.alloc_user);
        set->symtab = NULL;
    }
}

/* Renders frames one per line: "#i 0xADDR function+0xOFF (object)". A
   return address points after the call, so it is looked up at addr - 1. */
CTXPROF__PRIV void ctxprof__pcc_symbolize(ctxprof_pcc_set *set, void *const *frames, size_t n,
                                          char *out, size_t cap)
{
    const ctxprof_symtab *st = ctxprof__pcc_symbols(set);
    size_t i, used = 0;
    out[0] = '\0';
    for (i = 0; i < n && used + 1 < cap; i++) {
        uintptr_t pc = (uintptr_t)frames[i], off = 0;
        const char *obj = NULL, *fn = st && pc ? ctxprof_symtab_lookup(st, pc - 1, &off, &obj) : NULL;
        const char *base = obj ? strrchr(obj, '/') : NULL;
        int w;
        if (fn)
            w = snprintf(out + used, cap - used, "#%zu 0x%lx %s+0x%lx (%s)\n", i,
                         (unsigned long)pc, fn, (unsigned long)(off + 1),
                         base ? base + 1 : obj ? obj : "?");
        else
            w = snprintf(out + used, cap - used, "#%zu 0x%lx ?\n", i, (unsigned long)pc);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

CTXPROF__PRIV size_t ctxprof__pcc_probe(const ctxprof__pcc_table *t, ctxprof_ctx v)
{
    size_t i = (size_t)v & t->mask;
    size_t step = (size_t)ctxprof_mix64((uint64_t)v) | 1u;
    for (;;) {
        ctxprof_ctx s = __atomic_load_n(&t->slots[i], __ATOMIC_ACQUIRE);
        if (s == v || s == 0)
            return i;
        i = (i + step) & t->mask;
    }
}

CTXPROF__PRIV int ctxprof__pcc_table_alloc(ctxprof__pcc_table *t, size_t want, void *ud)
{
    size_t n = 64;
    while (n < want && n <= SIZE_MAX / 4)
        n *= 2;
    t->slots = (ctxprof_ctx *)ctxprof__zalloc(n, sizeof(ctxprof_ctx), ud);
    if (!t->slots)
        return CTXPROF_ERR_NOMEM;
    t->mask = n - 1;
    t->count = 0;
    t->retired = NULL;
    return CTXPROF_OK;
}

/* Slots for `values` entries at most half full. */
CTXPROF__PRIV size_t ctxprof__pcc_slots_for(size_t values)
{
    return values > SIZE_MAX / 4 ? SIZE_MAX / 2 : 2 * values + 2;
}

/* Inserts into a table that is not published (or under the set lock with
   room checked); returns 1 if added, 0 if present. */
CTXPROF__PRIV int ctxprof__pcc_table_put(ctxprof__pcc_table *t, ctxprof_ctx v)
{
    size_t i = ctxprof__pcc_probe(t, v);
    if (t->slots[i] == v)
        return 0;
    __atomic_store_n(&t->slots[i], v, __ATOMIC_RELEASE);
    __atomic_store_n(&t->count, t->count + 1, __ATOMIC_RELAXED); /* only lock holders write */
    return 1;
}

CTXPROF__PRIV void ctxprof__pcc_lock(ctxprof_pcc_set *set)
{
    while (__atomic_exchange_n(&set->lock, 1, __ATOMIC_ACQUIRE))
        while (__atomic_load_n(&set->lock, __ATOMIC_RELAXED))
            sched_yield();
}

CTXPROF__PRIV void ctxprof__pcc_unlock(ctxprof_pcc_set *set)
{
    __atomic_store_n(&set->lock, 0, __ATOMIC_RELEASE);
}

/* Builds a table of `want` slots holding the values of `from` (may be NULL). */
CTXPROF__PRIV int ctxprof__pcc_table_copy(ctxprof__pcc_table *to, const ctxprof__pcc_table *from,
                                          size_t want, void *ud)
{
    size_t i;
    if (ctxprof__pcc_table_alloc(to, want, ud) != CTXPROF_OK)
        return CTXPROF_ERR_NOMEM;
    if (from)
        for (i = 0; i <= from->mask; i++)
            if (from->slots[i])
                ctxprof__pcc_table_put(to, from->slots[i]);
    return CTXPROF_OK;
}

/* Publishes a new current table and retires the old one (readers may still
   be probing it; it is freed at deinit). Caller holds the lock. */
CTXPROF__PRIV int ctxprof__pcc_publish(ctxprof_pcc_set *set, const ctxprof__pcc_table *fresh)
{
    ctxprof__pcc_table *nt =
        (ctxprof__pcc_table *)ctxprof__alloc(1, sizeof *nt, set->desc.alloc_user);
    if (!nt)
        return CTXPROF_ERR_NOMEM;
    *nt = *fresh;
    nt->retired = set->table;
    __atomic_store_n(&set->table, nt, __ATOMIC_RELEASE);
    return CTXPROF_OK;
}

/* Adds under the lock: grows by doubling when more than half full, refuses
   past max_contexts. 1 added, 0 present, or an error. */
CTXPROF__PRIV int ctxprof__pcc_insert_locked(ctxprof_pcc_set *set, ctxprof_ctx v)
{
    ctxprof__pcc_table *t = set->table;
    size_t i;
    if (v == 0) {
        if (set->has_zero)
            return 0;
    } else {
        i = ctxprof__pcc_probe(t, v);
        if (t->slots[i] == v)
            return 0;
    }
    if (ctxprof_pcc_set_count(set) >= set->desc.max_contexts) {
        __atomic_add_fetch(&set->dropped, 1, __ATOMIC_RELAXED);
        return CTXPROF_ERR_FULL;
    }
    if (v == 0) {
        __atomic_store_n(&set->has_zero, 1, __ATOMIC_RELEASE);
        return 1;
    }
    if (2 * (t->count + 1) > t->mask + 1) {
        ctxprof__pcc_table fresh;
        if (ctxprof__pcc_table_copy(&fresh, t, 2 * (t->mask + 1), set->desc.alloc_user) ||
            ctxprof__pcc_publish(set, &fresh)) {
            ctxprof__free(fresh.slots, set->desc.alloc_user);
            __atomic_add_fetch(&set->dropped, 1, __ATOMIC_RELAXED);
            return CTXPROF_ERR_NOMEM;
        }
        t = set->table;
    }
    ctxprof__pcc_table_put(t, v);
    return 1;
}

CTXPROF_DEF int ctxprof_pcc_set_init(ctxprof_pcc_set *set, const ctxprof_pcc_set_desc *desc)
{
    ctxprof__pcc_table first;
    if (!set)
        return CTXPROF_ERR_INVAL;
    memset(set, 0, sizeof *set);
    if (desc)
        set->desc = *desc;
    if (!set->desc.expected)
        set->desc.expected = 1024;
    if (!set->desc.max_contexts)
        set->desc.max_contexts = (size_t)1 << 26;
    if (!set->desc.reports_per_sec)
        set->desc.reports_per_sec = 16;
    if (!set->desc.backtrace_depth)
        set->desc.backtrace_depth = 32;
    if (set->desc.backtrace_depth > 64)
        set->desc.backtrace_depth = 64;
    if (!set->desc.max_reported)
        set->desc.max_reported = 65536;
    if (set->desc.mode < CTXPROF_PCC_OFF || set->desc.mode > CTXPROF_PCC_CHECK)
        return ctxprof__fail(&set->err, CTXPROF_ERR_INVAL, 0, "pcc set: unknown mode %d",
                             set->desc.mode);
    set->mode = set->desc.mode;
    if (ctxprof__pcc_table_copy(&first, NULL, ctxprof__pcc_slots_for(set->desc.expected),
                                set->desc.alloc_user) ||
        ctxprof__pcc_table_alloc(&set->reported, 64, set->desc.alloc_user) ||
        ctxprof__pcc_publish(set, &first)) {
        ctxprof__free(first.slots, set->desc.alloc_user);
        ctxprof__free(set->reported.slots, set->desc.alloc_user);
        set->table = NULL;
        set->reported.slots = NULL;
        return ctxprof__fail(&set->err, CTXPROF_ERR_NOMEM, 0, "pcc set: out of memory");
    }
    return CTXPROF_OK;
}

CTXPROF_DEF void ctxprof_pcc_set_deinit(ctxprof_pcc_set *set)
{
    ctxprof__pcc_table *t, *next;
    if (!set)
        return;
    for (t = set->table; t; t = next) {
        next = t->retired;
        ctxprof__free(t->slots, set->desc.alloc_user);
        ctxprof__free(t, set->desc.alloc_user);
    }
    ctxprof__free(set->reported.slots, set->desc.alloc_user);
    ctxprof__pcc_symtab_free(set);
    memset(set, 0, sizeof *set);
}

CTXPROF_DEF void ctxprof_pcc_set_mode(ctxprof_pcc_set *set, int mode)
{
    if (mode >= CTXPROF_PCC_OFF && mode <= CTXPROF_PCC_CHECK)
        __atomic_store_n(&set->mode, mode, __ATOMIC_RELAXED);
}

CTXPROF_DEF int ctxprof_pcc_set_contains(const ctxprof_pcc_set *set, ctxprof_ctx v)
{
    const ctxprof__pcc_table *t;
    if (v == 0)
        return __atomic_load_n(&set->has_zero, __ATOMIC_ACQUIRE);
    t = __atomic_load_n(&set->table, __ATOMIC_ACQUIRE);
    return __atomic_load_n(&t->slots[ctxprof__pcc_probe(t, v)], __ATOMIC_ACQUIRE) == v;
}

CTXPROF_DEF size_t ctxprof_pcc_set_count(const ctxprof_pcc_set *set)
{
    const ctxprof__pcc_table *t = __atomic_load_n(&set->table, __ATOMIC_ACQUIRE);
    return __atomic_load_n(&t->count, __ATOMIC_RELAXED) +
           (size_t)__atomic_load_n(&set->has_zero, __ATOMIC_ACQUIRE);
}

CTXPROF_DEF int ctxprof_pcc_set_add(ctxprof_pcc_set *set, ctxprof_ctx v)
{
    int r;
    if (ctxprof_pcc_set_contains(set, v))
        return 0;
    ctxprof__pcc_lock(set);
    r = ctxprof__pcc_insert_locked(set, v);
    ctxprof__pcc_unlock(set);
    return r;
}

CTXPROF_DEF int ctxprof_pcc_set_next(const ctxprof_pcc_set *set, size_t *pos, ctxprof_ctx *out)
{
    const ctxprof__pcc_table *t = __atomic_load_n(&set->table, __ATOMIC_ACQUIRE);
    if (*pos == 0) {
        *pos = 1;
        if (__atomic_load_n(&set->has_zero, __ATOMIC_ACQUIRE)) {
            *out = 0;
            return 1;
        }
    }
    while (*pos - 1 <= t->mask) {
        ctxprof_ctx v = __atomic_load_n(&t->slots[*pos - 1], __ATOMIC_ACQUIRE);
        (*pos)++;
        if (v) {
            *out = v;
            return 1;
        }
    }
    return 0;
}

CTXPROF_DEF void ctxprof_pcc_set_stats(const ctxprof_pcc_set *set, ctxprof_pcc_stats *out)
{
    size_t i;
    memset(out, 0, sizeof *out);
    for (i = 0; i < CTXPROF__PCC_STRIPES; i++)
        out->queries += __atomic_load_n(&set->queries[i].n, __ATOMIC_RELAXED);
    out->distinct = ctxprof_pcc_set_count(set);
    out->new_seen = __atomic_load_n(&set->new_seen, __ATOMIC_RELAXED);
    out->reported = __atomic_load_n(&set->reported_count, __ATOMIC_RELAXED);
    out->suppressed = __atomic_load_n(&set->suppressed, __ATOMIC_RELAXED);
    out->dropped = __atomic_load_n(&set->dropped, __ATOMIC_RELAXED);
}

CTXPROF_DEF const char *ctxprof_pcc_set_last_error(const ctxprof_pcc_set *set)
{
    return ctxprof_error_message(set ? &set->err : NULL);
}

/* ---- pcc: reports ---- */

CTXPROF__PRIV uint64_t ctxprof__now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Rate limit as a virtual schedule (GCRA): each report takes 1/rate s of
   the schedule, which may run at most one second (rate reports) ahead of
   now. Caller holds the lock. */
CTXPROF__PRIV int ctxprof__pcc_rate_ok(ctxprof_pcc_set *set)
{
    uint64_t now = ctxprof__now_ns(), step = 1000000000u / set->desc.reports_per_sec;
    uint64_t tat = set->tokens_ns > now ? set->tokens_ns : now;
    if (tat + step > now + 1000000000u + step / 2)
        return 0;
    set->tokens_ns = tat + step;
    return 1;
}

CTXPROF__PRIV CTXPROF__NOINLINE void ctxprof__pcc_report(ctxprof_pcc_set *set, ctxprof_ctx v,
                                                         const char *file, unsigned line,
                                                         uint64_t index, void *caller)
{
    void *frames[64 + 4];
    int n = backtrace(frames, (int)set->desc.backtrace_depth + 4), skip = 0, i;
    size_t cap = 64 + (size_t)(n > 0 ? n : 0) * 256;
    char *text = (char *)ctxprof__alloc(cap, 1, set->desc.alloc_user);
    ctxprof_pcc_report r;
    /* Start at the frame that called the check: the slow path's return
       address (sanitizer interceptors add frames of their own). */
    for (i = 0; i < n && i < 4; i++)
        if (frames[i] == caller) {
            skip = i;
            break;
        }
    memset(&r, 0, sizeof r);
    r.value = v;
    r.file = file;
    r.line = line;
    r.frames = frames + skip;
    r.nframes = n > skip ? (size_t)(n - skip) : 0;
    if (r.nframes > set->desc.backtrace_depth)
        r.nframes = set->desc.backtrace_depth;
    r.index = index;
    if (text) {
        ctxprof__pcc_symbolize(set, r.frames, r.nframes, text, cap);
        r.backtrace = text;
    } else {
        r.backtrace = "(out of memory for the backtrace)";
    }
    set->desc.report(set->desc.report_user, &r);
    ctxprof__free(text, set->desc.alloc_user);
}

CTXPROF_DEF CTXPROF__NOINLINE int ctxprof__pcc_set_slow(ctxprof_pcc_set *set, ctxprof_ctx v,
                                                        const char *file, unsigned line)
{
    int mode = __atomic_load_n(&set->mode, __ATOMIC_RELAXED), call = 0;
    uint64_t index = 0;
    if (ctxprof_pcc_set_contains(set, v))
        return 1;
    if (mode == CTXPROF_PCC_TRAIN) {
        ctxprof__pcc_lock(set);
        ctxprof__pcc_insert_locked(set, v);
        ctxprof__pcc_unlock(set);
        return 0;
    }
    if (mode != CTXPROF_PCC_CHECK)
        return 1;
    ctxprof__pcc_lock(set);
    if (ctxprof_pcc_set_contains(set, v)) { /* trained meanwhile (mode switch, merge) */
        ctxprof__pcc_unlock(set);
        return 1;
    }
    /* The reported table is only touched under the lock. */
    if (v == 0 ? set->reported_zero
               : set->reported.slots[ctxprof__pcc_probe(&set->reported, v)] == v) {
        ctxprof__pcc_unlock(set);
        return 0;
    }
    if (set->new_seen >= set->desc.max_reported) {
        __atomic_add_fetch(&set->dropped, 1, __ATOMIC_RELAXED);
    } else {
        int room = 1;
        if (v == 0) {
            set->reported_zero = 1;
        } else if (2 * (set->reported.count + 1) > set->reported.mask + 1) {
            ctxprof__pcc_table bigger;
            room = ctxprof__pcc_table_copy(&bigger, &set->reported, 2 * (set->reported.mask + 1),
                                           set->desc.alloc_user) == CTXPROF_OK;
            if (room) {
                ctxprof__free(set->reported.slots, set->desc.alloc_user);
                set->reported = bigger;
            }
        }
        if (!room) {
            __atomic_add_fetch(&set->dropped, 1, __ATOMIC_RELAXED);
        } else {
            if (v != 0)
                ctxprof__pcc_table_put(&set->reported, v);
            __atomic_add_fetch(&set->new_seen, 1, __ATOMIC_RELAXED);
            if (!set->desc.report) {
                /* nothing to call */
            } else if (ctxprof__pcc_rate_ok(set)) {
                index = __atomic_add_fetch(&set->reported_count, 1, __ATOMIC_RELAXED);
                call = 1;
            } else {
                __atomic_add_fetch(&set->suppressed, 1, __ATOMIC_RELAXED);
            }
        }
    }
    ctxprof__pcc_unlock(set);
    if (call)
        ctxprof__pcc_report(set, v, file, line, index, CTXPROF__RETURN_ADDRESS());
    return 0;
}

/* ---- pcc: files ---- */

CTXPROF__PRIV int ctxprof__pcc_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

CTXPROF_DEF void ctxprof_pcc_file_free(ctxprof_pcc_file *f)
{
    if (f) {
        ctxprof__free(f->values, f->alloc_user);
        f->values = NULL;
        f->count = 0;
    }
}

CTXPROF_DEF int ctxprof_pcc_file_write(const ctxprof_pcc_file *f, const char *path,
                                       ctxprof_error *err)
{
    size_t width = f->bits == 32 ? 4 : 8, i, k;
    uint64_t params[4];
    unsigned char *img;
    int st;
    if ((f->bits != 32 && f->bits != 64) || (f->count && !f->values))
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "%s: bad set description", path);
    for (i = 1; i < f->count; i++)
        if (f->values[i] <= f->values[i - 1])
            return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "%s: values not sorted and unique",
                                 path);
    if (f->count > (SIZE_MAX - CTXPROF__BLOB_HDR) / width)
        return ctxprof__fail(err, CTXPROF_ERR_NOMEM, 0, "%s: too many values", path);
    img = (unsigned char *)ctxprof__alloc(CTXPROF__BLOB_HDR + f->count * width, 1, f->alloc_user);
    if (!img)
        return ctxprof__fail(err, CTXPROF_ERR_NOMEM, 0, "%s: out of memory", path);
    for (i = 0; i < f->count; i++)
        for (k = 0; k < width; k++)
            img[CTXPROF__BLOB_HDR + i * width + k] = (unsigned char)(f->values[i] >> (8 * k));
    params[0] = f->bits;
    params[1] = f->seed;
    params[2] = f->site_version;
    params[3] = f->count;
    ctxprof__blob_seal(img, CTXPROF__KIND_PCC_SET, params, f->count * width);
    st = ctxprof__write_file_atomic(path, img, CTXPROF__BLOB_HDR + f->count * width, err);
    ctxprof__free(img, f->alloc_user);
    return st;
}

/* Validates a set file image in memory (name is for messages); on success
   f holds its values, else f is unchanged. Also the fuzzing entry point. */
CTXPROF__PRIV int ctxprof__pcc_file_parse(ctxprof_pcc_file *f, const unsigned char *buf,
                                          size_t size, const char *name, ctxprof_error *err)
{
    size_t len = 0, i, k, width;
    const unsigned char *p = NULL;
    uint64_t params[4], *vals;
    int st = ctxprof__blob_open(buf, size, CTXPROF__KIND_PCC_SET, params, &p, &len, name, err);
    if (st)
        return st;
    if (params[0] != 32 && params[0] != 64)
        return ctxprof__fail(err, CTXPROF_ERR_CORRUPT, 0, "%s: %llu-bit values", name,
                             (unsigned long long)params[0]);
    width = params[0] == 32 ? 4 : 8;
    if (params[3] > len / width || params[3] * width != len)
        return ctxprof__fail(err, CTXPROF_ERR_CORRUPT, 0,
                             "%s: %llu values do not fill %llu bytes", name,
                             (unsigned long long)params[3], (unsigned long long)len);
    vals = (uint64_t *)ctxprof__alloc((size_t)params[3], sizeof *vals, f->alloc_user);
    if (!vals)
        return ctxprof__fail(err, CTXPROF_ERR_NOMEM, 0, "%s: out of memory", name);
    for (i = 0; i < (size_t)params[3]; i++) {
        uint64_t v = 0;
        for (k = width; k-- > 0;)
            v = (v << 8) | p[i * width + k];
        vals[i] = v;
        if (i && v <= vals[i - 1]) {
            ctxprof__free(vals, f->alloc_user);
            return ctxprof__fail(err, CTXPROF_ERR_CORRUPT, 0, "%s: values out of order at %zu",
                                 name, i);
        }
    }
    ctxprof_pcc_file_free(f);
    f->bits = (unsigned)params[0];
    f->seed = params[1];
    f->site_version = (unsigned)params[2];
    f->count = (size_t)params[3];
    f->values = vals;
    return CTXPROF_OK;
}

CTXPROF_DEF int ctxprof_pcc_file_read(ctxprof_pcc_file *f, const char *path, ctxprof_error *err)
{
    char *buf;
    size_t size;
    int st = ctxprof__read_file(path, &buf, &size, f->alloc_user, err);
    if (st)
        return st;
    st = ctxprof__pcc_file_parse(f, (const unsigned char *)buf, size, path, err);
    ctxprof__free(buf, f->alloc_user);
    return st;
}

CTXPROF_DEF int ctxprof_pcc_set_save(ctxprof_pcc_set *set, const char *path)
{
    ctxprof_pcc_file f;
    size_t n, i = 0, pos = 0;
    ctxprof_ctx v;
    int st;
    memset(&f, 0, sizeof f);
    f.alloc_user = set->desc.alloc_user;
    ctxprof__pcc_lock(set); /* a consistent snapshot */
    n = ctxprof_pcc_set_count(set);
    f.values = (uint64_t *)ctxprof__alloc(n, sizeof *f.values, f.alloc_user);
    if (!f.values) {
        ctxprof__pcc_unlock(set);
        return ctxprof__fail(&set->err, CTXPROF_ERR_NOMEM, 0, "%s: out of memory", path);
    }
    while (i < n && ctxprof_pcc_set_next(set, &pos, &v))
        f.values[i++] = v;
    ctxprof__pcc_unlock(set);
    /* Sorted, so that equal sets give byte-identical files. */
    qsort(f.values, n, sizeof *f.values, ctxprof__pcc_cmp);
    f.bits = CTXPROF_CTX_BITS;
    f.seed = (uint64_t)CTXPROF_SITE_SEED;
    f.site_version = CTXPROF_PCC_SITE_VERSION;
    f.count = n;
    st = ctxprof_pcc_file_write(&f, path, &set->err);
    ctxprof_pcc_file_free(&f);
    return st;
}

/* Replaces (merge == 0) or extends the contents with a file's; the new table
   is built aside and published only when complete. */
CTXPROF__PRIV int ctxprof__pcc_load(ctxprof_pcc_set *set, const char *path, int merge)
{
    ctxprof_pcc_file f;
    size_t i, total;
    ctxprof__pcc_table fresh;
    int zero, st;
    memset(&f, 0, sizeof f);
    f.alloc_user = set->desc.alloc_user;
    st = ctxprof_pcc_file_read(&f, path, &set->err);
    if (st)
        return st;
    if (f.bits != CTXPROF_CTX_BITS || f.seed != (uint64_t)CTXPROF_SITE_SEED ||
        f.site_version != CTXPROF_PCC_SITE_VERSION) {
        st = ctxprof__fail(&set->err, CTXPROF_ERR_MISMATCH, 0,
                           "%s: made with %u-bit contexts, site seed %#llx, site hash v%u; "
                           "this build uses %d-bit, %#llx, v%d",
                           path, f.bits, (unsigned long long)f.seed, f.site_version,
                           CTXPROF_CTX_BITS, (unsigned long long)CTXPROF_SITE_SEED,
                           CTXPROF_PCC_SITE_VERSION);
        ctxprof_pcc_file_free(&f);
        return st;
    }
    ctxprof__pcc_lock(set);
    total = f.count + (merge ? ctxprof_pcc_set_count(set) : 0);
    fresh.slots = NULL;
    if (ctxprof__pcc_table_copy(&fresh, merge ? set->table : NULL,
                                ctxprof__pcc_slots_for(total > set->desc.expected
                                                           ? total : set->desc.expected),
                                set->desc.alloc_user)) {
        st = ctxprof__fail(&set->err, CTXPROF_ERR_NOMEM, 0, "%s: out of memory", path);
        goto done;
    }
    zero = merge && set->has_zero;
    for (i = 0; i < f.count; i++) {
        if (f.values[i] == 0)
            zero = 1;
        else
            ctxprof__pcc_table_put(&fresh, (ctxprof_ctx)f.values[i]);
    }
    if (fresh.count + (size_t)zero > set->desc.max_contexts) {
        st = ctxprof__fail(&set->err, CTXPROF_ERR_FULL, 0,
                           "%s: the set would hold %zu contexts, its bound is %zu", path,
                           fresh.count + (size_t)zero, set->desc.max_contexts);
        goto done;
    }
    if (ctxprof__pcc_publish(set, &fresh)) {
        st = ctxprof__fail(&set->err, CTXPROF_ERR_NOMEM, 0, "%s: out of memory", path);
        goto done;
    }
    fresh.slots = NULL; /* owned by the set now */
    __atomic_store_n(&set->has_zero, zero, __ATOMIC_RELEASE);
done:
    ctxprof__pcc_unlock(set);
    ctxprof__free(fresh.slots, set->desc.alloc_user);
    ctxprof_pcc_file_free(&f);
    return st;
}

CTXPROF_DEF int ctxprof_pcc_set_load(ctxprof_pcc_set *set, const char *path)
{
    return ctxprof__pcc_load(set, path, 0);
}

CTXPROF_DEF int ctxprof_pcc_set_merge(ctxprof_pcc_set *set, const char *path)
{
    return ctxprof__pcc_load(set, path, 1);
}

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
