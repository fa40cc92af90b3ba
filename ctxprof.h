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

   CONFIGURATION (define before including)

     CTXPROF_CTX_BITS       64    32 or 64: width of ctxprof_ctx (global)
     CTXPROF_SITE_SEED      0     build seed mixed into every call-site id
     CTXPROF_SITE_BITS      32    width of call-site ids: 32 fits a lea displacement
                                  (4 instructions a site); 64 with 64-bit values: 6 (pcc)
     CTXPROF_MALLOC/FREE    libc  allocator hooks (implementation TU; both or none)
     CTXPROF_TLS            auto  storage class for per-thread state
     CTXPROF_TLS_INITIAL_EXEC off use initial-exec TLS in executables too (see THREADS)
     CTXPROF_TLS_DYNAMIC    off   use the general-dynamic TLS model (see THREADS)
     CTXPROF_NO_TLS         off   single-threaded build: per-thread state is static
     CTXPROF_DEBUG          off   asserts on internal invariants
     CTXPROF_ICPP_HOOKS     off   define the -finstrument-functions hooks for ICPP
                                  training (implementation TU; implies ICPP_ENV)
     CTXPROF_ICPP_ENV       off   honour CTXPROF_ICPP_TRAIN=FILE without the hooks
                                  (hand-written CTXPROF_ICPP_FUNC entries)
     CTXPROF_ICPP_FRAMES    8     frames a sample saves and a partial walk reads
                                  (ABI: the same in every TU; 64 for deep walks)
     CTXPROF_ENC_ACYC_WORDS 8     words of acyclic id an encoder state holds (ABI:
                                  the same in every TU; a generated header says
                                  when its graph needs more)
     CTXPROF_ENC_MAX_WORDS  2^17  words an encoder's stack may grow to per thread
     CTXPROF_API/DEF/STATIC/INLINE    linkage (STATIC embeds a private copy: each
                                  file that includes a header also includes its
                                  implementation; API sets visibility, e.g.
                                  extern __attribute__((visibility("default"))))

   THREADS AND SIGNALS

     All run-time state is per thread. In code built for an executable (no
     -fPIC, or -fPIE) the thread-local variables use the local-exec TLS
     model: an access is one %fs-relative instruction and a call site needs
     no register for the variable's address. In -fPIC code they use
     initial-exec: one more load of the address per function, still no
     function call. If the executable is annotated but ctxprof's
     implementation (CTXPROF_IMPLEMENTATION) lives in a shared library, the
     link fails (x86-64: "unresolvable R_X86_64_TPOFF32 relocation against
     symbol `ctxprof_pcc_tls'"): build the executable's annotated code with
     -DCTXPROF_TLS_INITIAL_EXEC. A shared library that is dlopen()ed after
     program start draws its initial-exec TLS from glibc's small static-TLS
     surplus; if dlopen fails with "cannot allocate memory in static TLS
     block", build that library with -DCTXPROF_TLS_DYNAMIC (a __tls_get_addr
     call per access instead).
     Every function also exists over an explicit state struct, so the TLS
     variables are only a convenience. Functions marked "signal-safe" may be
     called from a signal handler; the others may not. A PCC context set's
     writers (training, reports, save, merge) take a spin lock; a child of
     fork() takes over one that another thread held at the fork.

   ERRORS

     Cold-path functions return ctxprof_status (0 = CTXPROF_OK, errors < 0);
     ctxprof_strerror() turns one into text and never returns NULL. A
     ctxprof_error holds the status, the saved errno and a one-line detail
     ("file.txt:12: unknown keyword 'cal'"). Two kinds of record, two rules:
       - a function that takes a `ctxprof_error *err` argument (may be NULL)
         clears it on entry: afterwards it describes that call alone (status
         0 and an empty detail on success), so check each call's result;
       - an object's own record (ctxprof_pcc_set_last_error, ctxprof_pebs's
         pb.error, ctxprof_graph_last_error) holds its most recent failure:
         its init (or open) resets it, later successes leave it.
     Hot-path functions never fail: they saturate or drop and count it. The
     library never exits or aborts, and prints only where a program asked
     for it through the environment and has no other channel: the
     CTXPROF_HCCT= and CTXPROF_ICPP_TRAIN= sessions the hooks start write
     their failures to stderr.
*/
#ifndef CTXPROF_H_INCLUDED
#define CTXPROF_H_INCLUDED
#if !defined(__cplusplus) && (!defined(__STDC_VERSION__) || __STDC_VERSION__ < 199901L)
#error "ctxprof: needs C99 or later (or C++11): compile with -std=c99, gnu99 or newer"
#endif

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
#ifndef CTXPROF_SITE_BITS
#define CTXPROF_SITE_BITS 32
#endif
#if CTXPROF_SITE_BITS != 32 && !(CTXPROF_SITE_BITS == 64 && CTXPROF_CTX_BITS == 64)
#error "ctxprof: CTXPROF_SITE_BITS must be 32, or 64 with CTXPROF_CTX_BITS 64"
#endif

#define CTXPROF_VERSION_MAJOR 0
#define CTXPROF_VERSION_MINOR 1
#define CTXPROF_VERSION_PATCH 0
#define CTXPROF_VERSION_STRING "0.1.0"

/* CTXPROF_STATIC: every function is static to the file that includes the
   implementation (a private copy), and those it does not call raise no
   warning. */
#if defined(CTXPROF_STATIC) && (defined(__GNUC__) || defined(__clang__))
#define CTXPROF__STATIC static __attribute__((unused))
#else
#define CTXPROF__STATIC static
#endif
#ifndef CTXPROF_API
#if defined(CTXPROF_STATIC)
#define CTXPROF_API CTXPROF__STATIC
#else
#define CTXPROF_API extern
#endif
#endif
#ifndef CTXPROF_DEF
#if defined(CTXPROF_STATIC)
#define CTXPROF_DEF CTXPROF__STATIC
#else
#define CTXPROF_DEF
#endif
#endif
/* CTXPROF_STATIC in C++: the API's declarations of variables (static) are
   their definitions, and the implementation's would be a second one (C
   takes the declaration as tentative). */
#if defined(CTXPROF_STATIC) && defined(__cplusplus)
#define CTXPROF__DECL_DEFINES 1
#endif
#ifndef CTXPROF_INLINE
#if defined(__GNUC__) || defined(__clang__)
/* never instrumented: under -finstrument-functions, the hooks would see
   the library's helpers as calls of the program's */
#define CTXPROF_INLINE static inline __attribute__((always_inline, no_instrument_function))
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
/* TLS model (see THREADS above): local-exec in code built for an executable
   (no -fPIC, or -fPIE), initial-exec in -fPIC code or when forced. */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(CTXPROF_TLS_DYNAMIC) &&                  \
    !defined(CTXPROF_NO_TLS)
#if (!defined(__PIC__) || defined(__PIE__)) && !defined(CTXPROF_TLS_INITIAL_EXEC)
#define CTXPROF__TLS_MODEL __attribute__((tls_model("local-exec")))
#else
#define CTXPROF__TLS_MODEL __attribute__((tls_model("initial-exec")))
#endif
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

/* C++: the library's own code is C, its casts C casts; a C++ program's
   stricter warnings (-Wold-style-cast and the like) stay off inside the
   headers' declarations and implementation (the macros a program expands
   in its own code use C++ casts: CTXPROF__CAST). */
#if defined(__cplusplus) && defined(__clang__)
#define CTXPROF__CXX_QUIET_BEGIN                                                                   \
    _Pragma("clang diagnostic push") _Pragma("clang diagnostic ignored \"-Wold-style-cast\"")    \
        _Pragma("clang diagnostic ignored \"-Wzero-as-null-pointer-constant\"")                  \
            _Pragma("clang diagnostic ignored \"-Wcomma\"")
#define CTXPROF__CXX_QUIET_END _Pragma("clang diagnostic pop")
#elif defined(__cplusplus) && defined(__GNUC__)
#define CTXPROF__CXX_QUIET_BEGIN                                                                   \
    _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wold-style-cast\"")        \
        _Pragma("GCC diagnostic ignored \"-Wuseless-cast\"")                                     \
            _Pragma("GCC diagnostic ignored \"-Wzero-as-null-pointer-constant\"")
#define CTXPROF__CXX_QUIET_END _Pragma("GCC diagnostic pop")
#else
#define CTXPROF__CXX_QUIET_BEGIN
#define CTXPROF__CXX_QUIET_END
#endif
/* A cast in a macro that expands in the program's code: static_cast in
   C++, and reinterpret_cast between pointers and integers; the null
   pointer, which generated headers use too. */
#if defined(__cplusplus)
#define CTXPROF__CAST(T, x) static_cast<T>(x)
#define CTXPROF__UINTPTR(p) reinterpret_cast<uintptr_t>(p)
#define CTXPROF__PTR(T, p) reinterpret_cast<T>(p)
#define CTXPROF__NULL nullptr
#else
#define CTXPROF__CAST(T, x) ((T)(x))
#define CTXPROF__UINTPTR(p) ((uintptr_t)(p))
#define CTXPROF__PTR(T, p) ((T)(p))
#define CTXPROF__NULL NULL
#endif

#ifdef __cplusplus
extern "C" {
CTXPROF__CXX_QUIET_BEGIN
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
    X(CTXPROF_ERR_CORRUPT, -8, "data truncated or corrupt")                                        \
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
    size_t stale;   /* of those, objects whose file was replaced or deleted on disk since
                       it was loaded, and could not be read otherwise: no names (never
                       another file's) */
    /* private: */
    struct ctxprof__sym *syms;    /* sorted by start address */
    struct ctxprof__symobj *objs; /* object table */
    char *names;                  /* name pool: function names and object paths */
    size_t syms_cap, objs_cap, names_len, names_cap;
    uint64_t dl_changes; /* the dynamic linker's loads + unloads when read */
    unsigned char build_id[40]; /* the executable's GNU build id (path maps name it) */
    size_t build_id_len;
    uintptr_t live; /* from init to deinit: its address, mixed (see init) */
} ctxprof_symtab;

/* Loads the function symbols (.symtab, else .dynsym; a separate debug file
   found by build id under /usr/lib/debug when one is installed) of the
   executable and of every loaded object (dl_iterate_phdr), with load bias
   applied; sorted for binary search. Corrupt or unreadable objects are
   skipped and counted. An object whose file was replaced on disk since it
   was loaded (another build id) or deleted is read through
   /proc/self/map_files (privileged) or, the executable, /proc/self/exe;
   failing that it is counted in stale and gets no names. Fails (state
   zeroed) only when out of memory or when no object at all had symbols.
   *st may hold anything but a live table: zeroed, garbage (a stack object
   never initialised) or deinited. A table initialised at this address and
   not deinited is refused with CTXPROF_ERR_INVAL ("already initialised")
   and left as it was (init would leak it): deinit first, or use
   ctxprof_symtab_reload. A table may be copied elsewhere (the copy is the
   table now), but the place it was initialised at still counts as holding
   it: zero that place (memset) before initialising a table there again.
   Allocates; not signal-safe. */
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
/* A C++ symbol name (Itanium-mangled, "_Z...") as source spells it, in buf
   ("ns::Widget::work(int)"), when the process has the C++ runtime's
   demangler (any program with libstdc++ or libc++ loaded); otherwise, and
   for other names, name itself. A name longer than cap is cut. For display
   only: path maps and the tables keep the symbol's own name. Allocates;
   not signal-safe. */
CTXPROF_API const char *ctxprof_demangle(const char *name, char *buf, size_t cap);

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
   At -O1 and above the whole hash folds into one immediate. The base
   name's length and its first and last 32 characters are hashed (names
   longer than 64 characters that differ only in the middle share ids).

   Ids are 32 bits by default, sign-extended into 64-bit values, so lea
   carries the id as its displacement: a site costs 4 instructions (load,
   lea cs(V,V,2), store, restore). Contexts stay 64-bit, but two of N sites
   share an id with probability about N^2 / 2^33 (10,000 sites: 1.2%);
   such sites are one site to PCC. A context d calls deep spreads over
   about 32 + 1.6d bits, not 64, yet two contexts that collide would also
   collide with 32-bit values (the values agree modulo 2^32).
   CTXPROF_SITE_BITS=64 (with 64-bit values) gives full-width ids, which
   need their own instruction (movabs) at each site: 6 instructions. Set
   files record the choice (site_version 4: 32-bit ids in 64-bit values; 3:
   full width, or 32-bit values) and refuse a set trained with the other. */

typedef struct ctxprof_pcc {
    ctxprof_ctx v; /* current context value */
} ctxprof_pcc;

/* The calling thread's context (TLS; see THREADS above). */
CTXPROF_API CTXPROF_TLS ctxprof_pcc ctxprof_pcc_tls CTXPROF__TLS_MODEL;

/* Multiplicative inverse of 3 modulo 2^bits: undoes an update even after V
   wrapped (dividing by 3 would not). */
#if CTXPROF_CTX_BITS == 64
#define CTXPROF_PCC_INV3 CTXPROF__CAST(ctxprof_ctx, 0xAAAAAAAAAAAAAAABu)
#else
#define CTXPROF_PCC_INV3 CTXPROF__CAST(ctxprof_ctx, 0xAAAAAAABu)
#endif

/* Composition of a chain of sites (paper 3.3, inlined call sites): two
   updates f(f(V, a), b) equal one update by 3^2 with constant 3a + b. The
   result is an integer constant expression when a and b are (literal or
   enum ids: static initializers, case labels, static asserts).
   CTXPROF_PCC_SITE() calls an inline function, so a composition of such
   ids is not one, though at -O1 and above it folds to one immediate. */
#define CTXPROF_PCC_COMPOSE(a, b)                                                                  \
    CTXPROF__CAST(ctxprof_ctx, CTXPROF__CAST(ctxprof_ctx, 3u) * CTXPROF__CAST(ctxprof_ctx, a) +    \
                                   CTXPROF__CAST(ctxprof_ctx, b))
#define CTXPROF_PCC_COMPOSE3(a, b, c) CTXPROF_PCC_COMPOSE(CTXPROF_PCC_COMPOSE(a, b), c)
#define CTXPROF_PCC_COMPOSE4(a, b, c, d) CTXPROF_PCC_COMPOSE(CTXPROF_PCC_COMPOSE3(a, b, c), d)

/* --- call-site ids (compile-time) ------------------------------------- */

#if defined(__FILE_NAME__)
#define CTXPROF__BASE_FILE __FILE_NAME__
#else
#define CTXPROF__BASE_FILE __FILE__
#endif
/* FNV-1a over the first 32 and the last 32 bytes of a string literal
   (NUL-padded after its end, then before its start), seeded with its size:
   two long names that differ only after their 32nd character, or only
   before their last 32, get different ids. C(s, i) is the i-th byte. */
#define CTXPROF__FC(s, i)                                                                          \
    CTXPROF__CAST(uint64_t,                                                                        \
                  CTXPROF__CAST(unsigned char, (s)[(i) < sizeof(s) ? (i) : sizeof(s) - 1]))
#define CTXPROF__FT(s, i)                                                                          \
    CTXPROF__CAST(uint64_t,                                                                        \
                  CTXPROF__CAST(unsigned char,                                                     \
                                (s)[(i) + sizeof(s) > 32 ? (i) + sizeof(s) - 33 : sizeof(s) - 1]))
#define CTXPROF__F1(C, s, i, h) (((h) ^ C(s, i)) * UINT64_C(0x100000001B3))
#define CTXPROF__F4(C, s, i, h)                                                                    \
    CTXPROF__F1(C, s, i + 3,                                                                       \
                CTXPROF__F1(C, s, i + 2, CTXPROF__F1(C, s, i + 1, CTXPROF__F1(C, s, i, h))))
#define CTXPROF__F32(C, s, h)                                                                      \
    CTXPROF__F4(C, s, 28, CTXPROF__F4(C, s, 24, CTXPROF__F4(C, s, 20, CTXPROF__F4(C, s, 16,       \
        CTXPROF__F4(C, s, 12, CTXPROF__F4(C, s, 8,                                                 \
            CTXPROF__F4(C, s, 4, CTXPROF__F4(C, s, 0, h))))))))
#define CTXPROF__FNAME(s)                                                                          \
    CTXPROF__F32(CTXPROF__FT, s, CTXPROF__F32(CTXPROF__FC, s, CTXPROF__CAST(uint64_t, sizeof(s))))

/* The id of a site from the hash of its file name, its line, a
   discriminator and the build seed; ctxprof_pcc_site_id computes the same
   value at run time. */
CTXPROF_INLINE ctxprof_ctx ctxprof_pcc_site_mix(uint64_t file_hash, unsigned long line,
                                                unsigned long disc, uint64_t seed)
{
    uint64_t h = ctxprof_mix64(file_hash ^ ctxprof_mix64(seed));
    h = ctxprof_mix64(h ^ ((uint64_t)line << 20) ^ (uint64_t)disc);
#if CTXPROF_SITE_BITS == 32 && CTXPROF_CTX_BITS == 64
    /* a sign-extended 32-bit immediate (two's complement, no signed overflow) */
    h = (h & 0xFFFFFFFFu) - ((h & 0x80000000u) << 1);
#endif
    return (ctxprof_ctx)h;
}
#define CTXPROF_PCC_SITE_D(disc)                                                                   \
    ctxprof_pcc_site_mix(                                                                          \
        CTXPROF__FNAME(CTXPROF__BASE_FILE), CTXPROF__CAST(unsigned long, __LINE__),                \
        CTXPROF__CAST(unsigned long, disc), CTXPROF__CAST(uint64_t, CTXPROF_SITE_SEED))
#define CTXPROF_PCC_SITE() CTXPROF_PCC_SITE_D(0)
/* Source location passed to the checking functions (cold path only). */
#define CTXPROF_PCC_LOC CTXPROF__BASE_FILE, CTXPROF__CAST(unsigned, __LINE__)

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

/* The local may go unused (a function whose only annotation is the entry,
   or a scope whose calls are all compiled out): no -Wunused-variable. */
#if defined(__GNUC__) || defined(__clang__)
#define CTXPROF__PCC_UNUSED __attribute__((unused))
#define CTXPROF__PCC_DTOR __attribute__((always_inline, no_instrument_function))
#else
#define CTXPROF__PCC_UNUSED
#define CTXPROF__PCC_DTOR
#endif
/* The local of an annotated function, and a restore in a call's statement,
   may hide those of an enclosing one (an annotated lambda, a nested call):
   no -Wshadow for them. C++ ends the pragma with a declaration that takes
   the statement's semicolon. */
#if defined(__cplusplus) && (defined(__GNUC__) || defined(__clang__))
#define CTXPROF__PCC_NOSHADOW_BEGIN                                                                \
    _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wshadow\"")
#define CTXPROF__PCC_NOSHADOW_END _Pragma("GCC diagnostic pop")
#define CTXPROF__PCC_LOCAL(decl)                                                                   \
    CTXPROF__PCC_NOSHADOW_BEGIN decl;                                                              \
    CTXPROF__PCC_NOSHADOW_END static_assert(1, "")
#else
#define CTXPROF__PCC_NOSHADOW_BEGIN
#define CTXPROF__PCC_NOSHADOW_END
#define CTXPROF__PCC_LOCAL(decl) decl
#endif
#define CTXPROF_PCC_FUNC()                                                                         \
    CTXPROF__PCC_LOCAL(ctxprof_ctx const ctxprof__pcc_here CTXPROF__PCC_UNUSED = ctxprof_pcc_tls.v)
/* The statement may contain commas (template arguments). In C++ the value
   is also restored when it throws, so that code after a catch sees its
   function's context again; in C, after a longjmp, CTXPROF_PCC_RESYNC(). */
#if defined(__cplusplus)
struct ctxprof__pcc_restore {
    ctxprof_ctx v;
    CTXPROF__PCC_DTOR ~ctxprof__pcc_restore() { ctxprof_pcc_tls.v = v; }
};
#define CTXPROF_PCC_CALL(site, ...)                                                                \
    do {                                                                                           \
        CTXPROF__PCC_NOSHADOW_BEGIN                                                                \
        ctxprof__pcc_restore const ctxprof__pcc_r = {ctxprof__pcc_here};                           \
        CTXPROF__PCC_NOSHADOW_END                                                                  \
        ctxprof_pcc_tls.v = ctxprof_pcc_next(ctxprof__pcc_here, (site));                           \
        __VA_ARGS__;                                                                               \
        (void)ctxprof__pcc_r;                                                                      \
    } while (0)
#else
#define CTXPROF_PCC_CALL(site, ...)                                                                \
    do {                                                                                           \
        ctxprof_pcc_tls.v = ctxprof_pcc_next(ctxprof__pcc_here, (site));                           \
        __VA_ARGS__;                                                                               \
        ctxprof_pcc_tls.v = ctxprof__pcc_here;                                                     \
    } while (0)
#endif
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
    CTXPROF__PCC_LOCAL(ctxprof_ctx const ctxprof__pcc_here CTXPROF__PCC_UNUSED                     \
                           __attribute__((cleanup(ctxprof__pcc_scope_exit))) = ctxprof_pcc_tls.v)
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
   doubling up to a bound. Lookups take no lock and no fence (an acquire
   load of the table, then of the slot); inserts serialize on a spin lock.

   Memory: a set allocates its table on the first insert or load (an empty
   set shares one static empty table). A table replaced by growth, load or
   merge is retired, not freed, since a reader may still be probing it:
   growth retires less than the current table in all (the sizes halve), but
   each load or merge over a non-empty set retires the whole previous table.
   Reports read the process's symbol table once, and again only when a
   dlopen or dlclose changed what is loaded (an object loaded and unloaded
   again between two reports changes nothing): the table replaced then is
   retired too, since another report may still be reading it.
   ctxprof_pcc_set_reclaim frees the retired tables at a quiescent point;
   deinit frees everything; stats.retired_bytes says what is waiting.

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
    const char *backtrace;    /* frames symbolized, one whole line each (nframes lines),
                                 "#0 0x.. fn+0x1a (obj)\n"; C++ names demangled, a name
                                 over 1024 characters cut to end in "..." */
    uint64_t index;           /* 1 for the first report of this set, 2 for the next... */
} ctxprof_pcc_report;
typedef void (*ctxprof_pcc_report_fn)(void *user, const ctxprof_pcc_report *report);

typedef struct ctxprof_pcc_set_desc {
    size_t expected;          /* expected distinct contexts: sizes the table (0: 1024) */
    size_t max_contexts;      /* bound on stored contexts, then inserts are dropped (0: 2^26) */
    int mode;                 /* CTXPROF_PCC_OFF (0, the default: checks do nothing) /
                                 _TRAIN / _CHECK */
    ctxprof_pcc_report_fn report; /* called for each new context in CHECK mode, or NULL */
    void *report_user;
    unsigned reports_per_sec; /* rate limit of report calls (0: 16; burst the same) */
    unsigned backtrace_depth; /* frames per report (0: 32, at most 64) */
    size_t max_reported;      /* new contexts remembered to report once (0: 65536); beyond
                                 it a new context is not reported, only counted in
                                 dropped at each check */
    void *alloc_user;         /* passed to CTXPROF_MALLOC/FREE */
} ctxprof_pcc_set_desc;

/* Counters; ctxprof_pcc_set_stats sums them. */
typedef struct ctxprof_pcc_stats {
    uint64_t queries;    /* calls of ctxprof_pcc_set_check (any mode but OFF); exact for
                            the first 64 threads of the process that check, then may
                            undercount (see ctxprof_pcc_set_check) */
    uint64_t distinct;   /* values in the set */
    uint64_t new_seen;   /* distinct new contexts seen in CHECK mode */
    uint64_t reported;   /* report callbacks made */
    uint64_t suppressed; /* report callbacks refused by the rate limit */
    uint64_t dropped;    /* values not stored: a bound was reached */
    uint64_t retired_bytes; /* replaced tables (contexts, symbols) waiting for
                               ctxprof_pcc_set_reclaim */
    /* The paper's model (3.2): ctxprof_pcc_expected_conflicts(distinct,
       CTXPROF_CTX_BITS), the contexts expected to be lost to conflicts
       (k - 1 when k share a value) if `distinct` contexts drew uniform
       random CTXPROF_CTX_BITS-bit values. The set holds values, not
       contexts, so n is its distinct values. The model assumes ids of that
       width: with 32-bit ids in 64-bit values (CTXPROF_SITE_BITS 32, the
       default) two of N sites share an id with probability about
       N^2 / 2^33 ("Call-site ids" above), and contexts that differ only at
       those sites collide; the figure leaves that out, so it understates
       conflicts in programs with many sites. */
    double expected_conflicts;
} ctxprof_pcc_stats;

#define CTXPROF__PCC_STRIPES 64
typedef struct ctxprof__pcc_table {
    ctxprof_ctx *slots; /* 0 = empty */
    size_t mask;        /* slots - 1 (a power of two) */
    size_t count;       /* values in slots */
    int has_zero;       /* the value 0 is in the set: published with the table (atomic) */
    struct ctxprof__pcc_table *retired; /* next in the set's list of retired tables */
    size_t gen; /* 1 + gen of the table it replaced (iteration cursors see a replacement) */
} ctxprof__pcc_table;

typedef struct ctxprof_pcc_set {
    ctxprof_pcc_set_desc desc;
    ctxprof_error err;
    /* private: */
    ctxprof__pcc_table *table;     /* current table (atomic pointer) */
    ctxprof__pcc_table *reported;  /* CHECK mode: new values already reported (atomic pointer) */
    ctxprof__pcc_table *retired;   /* replaced tables, freed by reclaim or deinit (lock) */
    uint64_t retired_bytes;
    int mode;                      /* atomic copy of the mode */
    int lock;                      /* spin lock for inserts, loads and reports: 0, or the
                                      holder's process generation * 2 + 1 */
    uint64_t tokens_ns;            /* rate limiter: time when the bucket was last full */
    uint64_t new_seen, reported_count, suppressed, dropped;
    void *symtab;                  /* symbol tables for backtraces: loaded on the first report,
                                      again when a dlopen or dlclose changed the loaded
                                      objects (replaced ones retired, freed by reclaim) */
    uintptr_t live;                /* CTXPROF__LIVE_TAG(set) from init to deinit */
    struct {
        uint64_t n;
        char pad[56];
    } queries[CTXPROF__PCC_STRIPES]; /* per-thread stripes, one cache line each */
} ctxprof_pcc_set;

/* Sets the set up empty; desc may be NULL: all defaults, so mode OFF (every
   check returns 1 and records nothing until ctxprof_pcc_set_mode, or a load
   or add, gives it contexts: pass a desc with mode TRAIN to train from the
   start). The table, sized from desc.expected, is allocated by the first
   insert or load. *set may hold anything but a live set: zeroed, garbage
   (a stack object never initialised) or deinited. A set initialised at
   this address and not deinited is refused with CTXPROF_ERR_INVAL
   ("already initialised: deinit first") and left as it was; init would
   otherwise discard its contents and leak its tables. A set must stay where
   it was initialised (threads and the tag that tells a live set from
   garbage know it by address): never copy or move one. An unknown mode is
   refused (CTXPROF_ERR_INVAL) and leaves the set not initialised. The
   set's error record (ctxprof_pcc_set_last_error) holds its most recent
   failure; init resets it, later successes leave it. */
CTXPROF_API int ctxprof_pcc_set_init(ctxprof_pcc_set *set, const ctxprof_pcc_set_desc *desc);
/* Frees everything; no thread may use the set any more. */
CTXPROF_API void ctxprof_pcc_set_deinit(ctxprof_pcc_set *set);
/* Frees the tables retired by growth, load and merge, and the symbol
   tables that reports replaced after a dlopen or dlclose; returns the bytes
   freed. Call it only at a quiescent point, when no thread is inside a
   function on this set (check, contains, count, next, stats, add, save,
   load, merge): e.g. right after a load made while the checking threads
   were parked, or between requests of an event loop. Lookups publish no
   hazard pointers (that would cost a fence per check), so the set cannot
   tell by itself. */
CTXPROF_API size_t ctxprof_pcc_set_reclaim(ctxprof_pcc_set *set);
/* Switches mode; safe while other threads check. An unknown mode, or a set
   not initialised, is refused: the mode stays, and the set's error record
   (ctxprof_pcc_set_last_error) says why. */
CTXPROF_API void ctxprof_pcc_set_mode(ctxprof_pcc_set *set, int mode);
/* Adds a value (training without the check path); 1 if added, 0 if present,
   CTXPROF_ERR_FULL when the bound is reached, CTXPROF_ERR_NOMEM. Thread-safe. */
CTXPROF_API int ctxprof_pcc_set_add(ctxprof_pcc_set *set, ctxprof_ctx value);
/* 1 if the value is in the set. Thread-safe, lock-free. */
CTXPROF_API int ctxprof_pcc_set_contains(const ctxprof_pcc_set *set, ctxprof_ctx value);
/* Values in the set. */
CTXPROF_API size_t ctxprof_pcc_set_count(const ctxprof_pcc_set *set);
/* Iteration in table order: start with *pos = 0; returns 1 with a value in
   *out_value, 0 when done. Values inserted meanwhile may or may not be
   seen. The table is replaced when it grows (an insert by any thread, the
   caller's own add or check too), and by a load or merge; *pos holds the
   generation of the table it walks, and a call that finds another table
   starts over on it. So every value present from the first call to the
   last is returned at least once, never skipped, but values returned
   before a replacement can come again (detected modulo 2^24 replacements
   between two calls; 4 where size_t has 32 bits). Exactly once: no adds,
   loads or merges on the set until the iteration is done. Thread-safe,
   lock-free. */
CTXPROF_API int ctxprof_pcc_set_next(const ctxprof_pcc_set *set, size_t *pos,
                                     ctxprof_ctx *out_value);
CTXPROF_API void ctxprof_pcc_set_stats(const ctxprof_pcc_set *set, ctxprof_pcc_stats *out);
/* Saves the set atomically (temporary file + rename): versioned binary with
   bit width, site seed, hash version and checksum. "-" is standard output
   (file descriptor 1, written directly: flush stdio first). */
CTXPROF_API int ctxprof_pcc_set_save(ctxprof_pcc_set *set, const char *path);
/* Replaces the set's contents with a file's (load) or adds them (merge: the
   union of runs or hosts). A truncated, corrupt or mismatched file is
   refused with a message in set->err and the set left unchanged. Safe while
   other threads check; the previous table is retired (see reclaim) unless
   the set was empty. */
CTXPROF_API int ctxprof_pcc_set_load(ctxprof_pcc_set *set, const char *path);
CTXPROF_API int ctxprof_pcc_set_merge(ctxprof_pcc_set *set, const char *path);
/* The text of the set's most recent failure, "ok" when none (never NULL).
   Init resets it; later successes do not clear it (the set is shared by
   threads: one's success must not hide another's failure). */
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
/* Reads and validates a set file ("-": standard input) into *f, zeroed
   (but for alloc_user) or holding a file read before; on failure *f is
   unchanged. The 64-byte header is checked first and no more is read than
   it announces, so a device or a false length fails without reading on. */
CTXPROF_API int ctxprof_pcc_file_read(ctxprof_pcc_file *f, const char *path, ctxprof_error *err);
/* Writes atomically ("-": standard output, as ctxprof_pcc_set_save); values
   must be sorted and unique, and below 2^32 when bits is 32 (else
   CTXPROF_ERR_INVAL: nothing is cut or written). */
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
    /* Stripe counters: plain load and store (no lock prefix), exact while
       each stripe has one writing thread. Stripes go to threads in order of
       their first check of any set and are never given back: the first 64
       such threads of the process count exactly; later ones (even after
       earlier ones exited) share stripes round-robin, and two threads
       counting on one stripe at the same instant can lose a count. */
    q = &set->queries[stripe % CTXPROF__PCC_STRIPES].n;
    __atomic_store_n(q, __atomic_load_n(q, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
    t = __atomic_load_n(&set->table, __ATOMIC_ACQUIRE);
    if (CTXPROF__LIKELY(__atomic_load_n(&t->slots[(size_t)value & t->mask], __ATOMIC_RELAXED) ==
                            value &&
                        value != 0))
        return 1;
    return ctxprof__pcc_set_slow(set, value, file, line);
}

/* ==== graph: declarations ====

   The call-graph model shared by ctxprof-gen and the run time: nodes are
   functions, edges are call sites (caller, callee, site). Inputs:

   - the ctxprof-callgraph 1 text format (docs/ctxprof-gen.md):
         ctxprof-callgraph 1
         root main
         func NAME [frame=BYTES]
         call CALLER CALLEE [site=LABEL]
   - gcc's -fcallgraph-info=su output (.ci files, VCG): one per translation
     unit; node titles, "file:line:col" edge labels and frame sizes are kept;
     calls through function pointers (gcc's "__indirect_call" placeholder)
     are counted and dropped: merge a dynamic call graph (the text format,
     written by a training run) to add their real targets.

   Several files load into one graph (ctxprof_graph_load per file): nodes
   merge by name; an edge already present merges (an unlabelled edge matches
   any edge of the same caller and callee, so a dynamic graph without site
   labels merges with gcc's labelled one). ctxprof_graph_finish() then picks
   the root, numbers the sites and analyses the graph: strongly connected
   components (iterative Tarjan, no recursion depth limit), cyclic edges
   (caller and callee in one SCC), depth-first back edges (PCCE), and extra
   entry points: every function not reachable from the root (thread start
   routines, callbacks) is reached from the entry of a source SCC, which
   becomes an extra root, so its contexts still encode and decode.

   Cold code: allocates, not signal-safe, one graph per thread at a time. */

#define CTXPROF_GRAPH_NONE UINT32_MAX

enum {
    CTXPROF_GRAPH_NODE_DEFINED = 1u,     /* declared by a func line or a gcc node */
    CTXPROF_GRAPH_NODE_EXTERN = 2u,      /* gcc: a declaration only (no body, no frame size) */
    CTXPROF_GRAPH_NODE_ROOT = 4u,        /* the root or an extra entry point */
    CTXPROF_GRAPH_NODE_UNREACHABLE = 8u, /* not reachable from the root */
    CTXPROF_GRAPH_NODE_COMPLEX = 16u     /* member of an SCC with a cyclic edge */
};
enum {
    CTXPROF_GRAPH_EDGE_CYCLIC = 1u, /* caller and callee are in the same SCC */
    CTXPROF_GRAPH_EDGE_BACK = 2u,   /* back edge of the depth-first search from the roots */
    CTXPROF_GRAPH_EDGE_GCC = 4u,    /* read from a gcc .ci file */
    CTXPROF_GRAPH_EDGE_TEXT = 8u    /* read from a ctxprof-callgraph file or added by the API */
};

typedef struct ctxprof_graph_node {
    const char *name;  /* as read: "parse", or gcc's "file.c:helper" for a static function */
    const char *cname; /* C identifier used in generated names (set by finish) */
    const char *where; /* definition: gcc "file:line:col", a func line "file:line"; or NULL */
    uint64_t frame;    /* activation record bytes, 0 = unknown */
    uint32_t flags;    /* CTXPROF_GRAPH_NODE_* */
    uint32_t scc;      /* component id (finish); ids are in reverse topological order */
} ctxprof_graph_node;

typedef struct ctxprof_graph_edge {
    uint32_t caller, callee;
    uint32_t site;     /* 0, 1, ... among the edges caller -> callee, in input order (finish) */
    uint32_t flags;    /* CTXPROF_GRAPH_EDGE_* */
    const char *label; /* site label (gcc: "file:line:col"), NULL if none */
    const char *file;  /* input that first gave the edge */
    uint32_t line;     /* its line there */
    uint32_t reserved;
} ctxprof_graph_edge;

typedef struct ctxprof_graph_desc {
    const char *root;   /* root function; NULL: the inputs' root line, else "main" */
    ctxprof_log_fn log; /* warnings and notes (unreachable functions, indirect calls) */
    void *log_user;
    void *alloc_user; /* passed to CTXPROF_MALLOC/FREE */
} ctxprof_graph_desc;

typedef struct ctxprof_graph {
    ctxprof_graph_node *nodes; /* n_nodes, in first-seen order */
    size_t n_nodes;
    ctxprof_graph_edge *edges; /* n_edges, in input order */
    size_t n_edges;
    uint32_t root; /* node id (finish), CTXPROF_GRAPH_NONE before */
    /* Filled by ctxprof_graph_finish: */
    uint32_t *roots; /* n_roots entry points: root first, then one per other source SCC */
    size_t n_roots;
    uint32_t *out_first, *out_edge; /* CSR: out_edge[out_first[v] .. out_first[v+1]) */
    uint32_t *in_first, *in_edge;   /* CSR: in_edge[in_first[v] .. in_first[v+1]) */
    size_t n_sccs, n_complex_sccs, n_cyclic_edges, n_back_edges;
    size_t n_unreachable;   /* nodes not reachable from the root */
    size_t n_indirect;      /* gcc __indirect_call sites dropped */
    size_t n_indirect_open; /* of those, in callers no text input added an edge to */
    int finished;
    ctxprof_error error; /* its most recent failure: init resets it, later successes leave it */
    /* private: */
    void *priv;
} ctxprof_graph;

/* Prepares an empty graph; desc may be NULL. Returns 0, CTXPROF_ERR_NOMEM or
   CTXPROF_ERR_INVAL (a desc root name that is no valid name, see below). */
CTXPROF_API int ctxprof_graph_init(ctxprof_graph *g, const ctxprof_graph_desc *desc);
/* Frees everything the graph owns; safe on a zeroed or failed-init graph. */
CTXPROF_API void ctxprof_graph_deinit(ctxprof_graph *g);
/* Reads one file ("-" = stdin), either format (detected from the content),
   and merges it. On error the graph is unchanged and g->error says
   "path:line:col: what". */
CTXPROF_API int ctxprof_graph_load(ctxprof_graph *g, const char *path);
/* Same for text in memory; name is used in messages. */
CTXPROF_API int ctxprof_graph_parse(ctxprof_graph *g, const char *text, size_t len,
                                    const char *name);
/* Function names and site labels, however they come in (these calls, a
   text or gcc input), are not empty and hold no control character (byte
   below 0x20 or 0x7f): CTXPROF_ERR_INVAL here, CTXPROF_ERR_PARSE from an
   input. Any other byte is fine: ctxprof_graph_write escapes blank, '#'
   and '%' (%20, %23, %25) and reads back the same graph.
   Adds (or finds) a function; frame 0 = unknown. Returns its id or -1. */
CTXPROF_API long ctxprof_graph_add_node(ctxprof_graph *g, const char *name, uint64_t frame);
/* Adds a call edge (merging like a second input would); label may be NULL.
   Returns the edge id or -1 (see g->error). */
CTXPROF_API long ctxprof_graph_add_edge(ctxprof_graph *g, const char *caller, const char *callee,
                                        const char *label);
/* Sets the root by name (overrides the inputs' root line). */
CTXPROF_API int ctxprof_graph_set_root(ctxprof_graph *g, const char *name);
/* Picks the root, numbers sites, names nodes for C and analyses the graph
   (SCCs, cyclic and back edges, entry points). May be called again after
   more inputs. Errors: missing root, a root that is not a function. */
CTXPROF_API int ctxprof_graph_finish(ctxprof_graph *g);
/* Id of the function with this name (or C name), -1 if none. */
CTXPROF_API long ctxprof_graph_find(const ctxprof_graph *g, const char *name);
/* The detail of the graph's most recent failure, "ok" when none. Init
   resets it; later successes (a load, parse or finish) do not clear it. */
CTXPROF_API const char *ctxprof_graph_last_error(const ctxprof_graph *g);
/* Writes the graph in the ctxprof-callgraph 1 format into a buffer from
   CTXPROF_MALLOC (free with ctxprof_graph_free_buffer). Parsing the text
   gives a graph that writes the same text. */
CTXPROF_API int ctxprof_graph_write(const ctxprof_graph *g, char **out, size_t *out_len);
/* Frees a buffer returned by ctxprof_graph_write or ctxprof_enc_emit. */
CTXPROF_API void ctxprof_graph_free_buffer(void *p, void *alloc_user);

/* ==== pcce: declarations ====

   Precise calling-context encodings: an exact, decodable id of the current
   call path, kept up to date by a few instructions at each instrumented
   call site. Four schemes share one run-time state and one decoder:

     PCCE     Sumner et al. as described in the Valence paper, sec. 2.1: one
              64-bit id, id += En(e) before a call and -= after; a
              depth-first back edge (recursion) pushes the id (64 bits) and
              restarts it at the value of its dummy-root edge.
     VALENCE  Zhou et al., CC'19, Alg. 1-4: each acyclic call writes a level
              and edge code into a fixed bit range of a multi-word id; each
              cyclic edge (caller and callee in one SCC) pushes a code of
              ceil(log2 C) bits (C = cyclic edges of the program).
     HCCE     the paper's hybrid (sec. 3.3): PCCE numbering of the graph with
              each SCC condensed, Valence codes for the cyclic edges.
     AUTO     ctxprof's hybrid: PCCE numbering of the condensed graph, and
              recursion codes sized per target function: a cyclic edge into f
              pushes ceil(log2(k)) bits where k counts f's cyclic callers
              (plus one "entered from outside" code when f has callers
              outside its SCC); a function with one cyclic caller and no
              outside caller costs no bits at all. Entering an SCC from
              outside pushes that entry code, once per SCC on the path.
              When its numbering overflows 64 bits, AUTO takes Valence's
              multi-word levels instead if they are shorter (whole program).

   Ids that would overflow 64 bits (PCCE, HCCE and AUTO numbering) are cut
   the way PCCE cuts recursion: at a function whose count would overflow,
   the generator turns its incoming call edges into push edges, which save
   the caller's id on the stack, and the count restarts small, so each
   saved id carries about 64 bits of context. So every scheme handles
   every graph; Valence's acyclic id simply grows.

   THE ENCODING is one bit string: the acyclic part (acyc_bits, from the
   tables; 64 for PCCE), then the recursion stack. In memory:

       words[0 .. a)   the acyclic words, a = acyc_bits / 64
       words[a]        low acyc_bits % 64 bits: the rest of the acyclic part;
                       the bits above it: the oldest stack bits
       words[a+1 ..]   stack words; the newest bits are in the last word,
                       in its n_bits-determined low bits

   Within a stack word the older bits are the higher ones (a push shifts the
   word left and ORs the code in), and a code may straddle two words; so
   the layout depends only on the pushes, and equal contexts give equal
   words. ctxprof_enc_query() returns a pointer to it and its length.

   THE RUN TIME is a ctxprof_enc per thread (zero-initialised is valid), the
   call-site macros CTXPROF_PCCE_CALL_*, CTXPROF_VAL_CALL_* (statement form:
   the call goes inside), and the same operations as inline functions over
   an explicit state. The stack lives in memory from CTXPROF_MALLOC, grown
   on demand (an out-of-line slow path) up to max_words; beyond that the
   pushes still count but their words are lost: ctxprof_enc_query reports
   the encoding as truncated and the dropped count says how many words
   were lost. Nothing ever crashes on deep recursion.

   Hot path: no allocation except the slow path that grows the stack, no
   locks, no syscalls. ctxprof_enc_query, _hash and the decoders are
   signal-safe (they allocate nothing and never crash), but a signal
   handler on the thread itself that interrupts a call site between the
   stores of a push or pop sees the state half-updated: its view may then
   decode to nothing or, rarely, to another context (a few percent of
   timer samples in a call-heavy loop). Query at query points, or treat
   values taken in a handler as samples that can be wrong. */

#ifndef CTXPROF_ENC_ACYC_WORDS
#define CTXPROF_ENC_ACYC_WORDS 8 /* words of acyclic id a state holds (Valence may need > 1) */
#endif
#ifndef CTXPROF_ENC_MAX_WORDS
#define CTXPROF_ENC_MAX_WORDS (1u << 17) /* default stack limit per thread: 1 MiB */
#endif

/* Schemes (ctxprof_enc_tables.scheme). */
enum {
    CTXPROF_ENC_PCCE = 1,
    CTXPROF_ENC_VALENCE = 2,
    CTXPROF_ENC_HCCE = 3,
    CTXPROF_ENC_AUTO = 4,
    CTXPROF_ENC_NSCHEMES = 5 /* one past the last; index 0 unused */
};

/* Run-time state of one thread (or one explicit test state). Zero is a valid
   initial state (the root's context); ctxprof_enc_init sets a limit. */
typedef struct ctxprof_enc {
    uint64_t cur;   /* newest stack word: its n bits, newest at the low end */
    uint32_t n;     /* bits in cur */
    uint32_t room;  /* bits cur holds before it spills (0 = not set up yet) */
    uint64_t acyc[CTXPROF_ENC_ACYC_WORDS]; /* acyclic id; acyc[0] is the PCCE-style id */
    uint64_t depth;     /* words spilled below cur */
    uint64_t *buf;      /* [acyclic words][spilled words][cur, written by query] */
    uint64_t capw;      /* words allocated in buf */
    uint64_t max_words; /* stack words kept at most (0 = CTXPROF_ENC_MAX_WORDS) */
    uint64_t dropped;   /* stack words lost at the limit (saturating count) */
    void *alloc_user;   /* passed to CTXPROF_MALLOC/FREE */
    int zeroed;         /* cur came back from a word lost at the limit: not decodable */
} ctxprof_enc;

typedef struct ctxprof_enc_desc {
    uint64_t max_words; /* stack limit in 64-bit words (0 = CTXPROF_ENC_MAX_WORDS) */
    void *alloc_user;
} ctxprof_enc_desc;

/* What an instrumented call does (one per edge and scheme): before the call
   apply in this order, after it undo in reverse. */
typedef struct ctxprof_enc_op {
    uint64_t add;        /* acyc[0] += add */
    uint64_t xor_val[4]; /* acyc[xor_word[i]] ^= xor_val[i], i < n_xor (Valence set/reset) */
    uint16_t xor_word[4];
    uint8_t n_xor;
    uint8_t id_bits;  /* != 0 or id_push: push acyc[0] (id_bits bits), then acyc[0] = id_new */
    uint8_t id_push;  /* 1 = push edge (id_bits may be 0: a one-context caller) */
    uint8_t push_bits; /* push push_code (push_bits bits) */
    uint64_t id_new;
    uint64_t push_code;
} ctxprof_enc_op;

/* Decode tables of one scheme. Built by ctxprof_enc_build (owned, freed by
   ctxprof_enc_tables_free) or emitted by ctxprof-gen as static const data
   in a generated header. Arrays a scheme does not use are NULL. */
typedef struct ctxprof_enc_tables {
    int scheme;                /* CTXPROF_ENC_* */
    uint32_t n_nodes, n_edges;
    uint32_t acyc_bits;        /* length of the acyclic part (the "base" of the stack) */
    uint32_t acyc_words;       /* words the acyclic part spans (ceil(acyc_bits / 64)) */
    uint32_t rec_bits;         /* VALENCE/HCCE: width of the global cyclic-edge codes */
    const char *const *node_names;
    const uint32_t *edge_caller, *edge_callee, *edge_site;
    const ctxprof_enc_op *ops; /* per edge */
    const uint8_t *node_flags; /* CTXPROF_ENC_NODE_* */
    /* numbering (PCCE, HCCE, AUTO): numbering node = the node, or its SCC */
    uint32_t n_num;
    const uint32_t *num_of_node;  /* n_nodes */
    const uint32_t *range_first;  /* n_num + 1: ranges of a numbering node */
    const uint64_t *range_lo;     /* ascending within a numbering node */
    const uint32_t *range_ref;    /* edge id, | CTXPROF_ENC_REF_PUSH, or CTXPROF_ENC_REF_ROOT */
    const uint64_t *num_cc;       /* n_num: contexts of the numbering node (end of its ranges) */
    /* Valence levels (VALENCE): per SCC */
    uint32_t n_scc;
    const uint32_t *scc_of_node;  /* n_nodes */
    const uint32_t *lv_level;     /* n_scc */
    const uint8_t *lv_len;        /* n_scc: bits of the level code */
    const uint32_t *lv_first;     /* n_scc + 1: level groups */
    const uint32_t *grp_plevel;   /* callers' level = low bit of the edge code */
    const uint32_t *grp_first;    /* n_groups + 1 */
    const uint32_t *grp_edge;     /* edge by edge code, or CTXPROF_ENC_REF_ROOT */
    /* recursion codes: VALENCE/HCCE global (code -> edge), AUTO per target */
    uint32_t n_rec;
    const uint32_t *rec_edge;     /* n_rec */
    const uint8_t *node_rec_bits; /* AUTO: code width per node */
    const uint32_t *cyc_first;    /* AUTO: n_nodes + 1 */
    const uint32_t *cyc_edge;     /* AUTO: cyclic in-edges by code (minus the entry code) */
} ctxprof_enc_tables;

#define CTXPROF_ENC_REF_PUSH 0x80000000u /* range of a push edge: pop the saved id */
#define CTXPROF_ENC_REF_ROOT 0xFFFFFFFFu /* the start of a thread at an entry point */
enum {
    CTXPROF_ENC_NODE_ROOT = 1,   /* entry point: decoding may stop here */
    CTXPROF_ENC_NODE_CODED = 2,  /* AUTO: frames of this node push a code (maybe 0 bits) */
    CTXPROF_ENC_NODE_ENTRY = 4,  /* AUTO: code 0 means "entered from outside its SCC" */
    CTXPROF_ENC_NODE_COMPLEX = 8 /* member of a complex SCC */
};

/* A view of the current encoding (see ctxprof_enc_query). */
typedef struct ctxprof_enc_view {
    const uint64_t *words; /* the encoding (valid until the state changes) */
    size_t n_words;
    uint64_t n_bits; /* exact length: acyclic bits + stack bits */
    int truncated;   /* stack words were lost at the limit: not decodable */
    /* private: */
    uint64_t inl[CTXPROF_ENC_ACYC_WORDS + 2];
} ctxprof_enc_view;

/* Prepares a state (zeroing it); desc may be NULL. Never fails. */
CTXPROF_API void ctxprof_enc_init(ctxprof_enc *st, const ctxprof_enc_desc *desc);
/* Frees the state's stack and zeroes it (the limit and allocator are kept). */
CTXPROF_API void ctxprof_enc_deinit(ctxprof_enc *st);
/* Returns the state to the root's context, keeping its stack memory. */
CTXPROF_API void ctxprof_enc_reset(ctxprof_enc *st);
/* Slow paths of push/pop (stack set-up, spills, growth); called by the inline code. */
CTXPROF_API void ctxprof_enc_push_slow(ctxprof_enc *st, uint32_t base, uint32_t k, uint64_t v);
CTXPROF_API void ctxprof_enc_pop_slow(ctxprof_enc *st, uint32_t base, uint32_t k);

/* Builds the tables of a scheme for a finished graph. CTXPROF_ERR_RANGE
   (nothing built) when its acyclic part needs more than the
   CTXPROF_ENC_ACYC_WORDS words a state holds (Valence on a deep DAG: a
   2,000-function ladder needs 16); err names the -DCTXPROF_ENC_ACYC_WORDS=N
   to build with. ctxprof_enc_stats_compute, _check and _emit take graphs
   of any width. */
CTXPROF_API int ctxprof_enc_build(const ctxprof_graph *g, int scheme, ctxprof_enc_tables *out,
                                  ctxprof_error *err);
/* Frees tables from ctxprof_enc_build (not static generated ones). */
CTXPROF_API void ctxprof_enc_tables_free(ctxprof_enc_tables *t, void *alloc_user);
/* Short name of a scheme ("pcce", "valence", "hcce", "auto"), "?" if unknown. */
CTXPROF_API const char *ctxprof_enc_scheme_name(int scheme);
/* Scheme by name, or 0. */
CTXPROF_API int ctxprof_enc_scheme_parse(const char *name);

/* Decodes an encoding taken at a point in function `node`: writes the path
   as edge ids, root first, into out[0 .. *out_n). Returns CTXPROF_OK,
   CTXPROF_ERR_FULL (cap too small; *out_n = edges decoded so far),
   CTXPROF_ERR_CORRUPT (not an encoding of a path to node) or
   CTXPROF_ERR_RANGE (truncated encoding), or CTXPROF_ERR_INVAL for bad
   arguments (err says which: NULL tables or out_n, a node out of range,
   fewer bits than the acyclic id, NULL words or out with a length). PCCE:
   range walk; VALENCE: Algorithms 2 and 4; HCCE and AUTO: range walk plus
   stack codes. Reads only the tables and the words: no allocation,
   signal-safe. */
CTXPROF_API int ctxprof_enc_decode(const ctxprof_enc_tables *t, const uint64_t *words,
                                   uint64_t n_bits, uint32_t node, uint32_t *out, size_t cap,
                                   size_t *out_n, ctxprof_error *err);
/* ctxprof_enc_decode of a view from ctxprof_enc_query; CTXPROF_ERR_RANGE
   when the view is truncated (the stack limit was hit), CTXPROF_ERR_INVAL
   for a NULL view. ctxprof_enc_decode itself needs ceil(n_bits / 64)
   readable words. */
CTXPROF_API int ctxprof_enc_decode_view(const ctxprof_enc_tables *t, const ctxprof_enc_view *v,
                                        uint32_t node, uint32_t *out, size_t cap, size_t *out_n,
                                        ctxprof_error *err);
/* Writes "main -> parse -> term#1" (callee#site when site > 0) for a decoded
   path from the entry point `start` (the caller of path[0], or the node when
   n == 0). An id that is not an edge of t is written "?(edge N)". Returns the
   length it needed, like snprintf. */
CTXPROF_API size_t ctxprof_enc_format(const ctxprof_enc_tables *t, uint32_t start,
                                      const uint32_t *path, size_t n, char *buf, size_t size);

/* ---- graph statistics (ctxprof-gen stats) and self-check (ctxprof-gen check) ---- */

typedef struct ctxprof_enc_stats {
    size_t nodes, edges, sccs, complex_sccs, cyclic_edges, back_edges, roots;
    uint32_t pcce_bits;    /* max ceil(log2 numCC) with back edges removed (any size) */
    uint32_t valence_bits; /* max Valence level on the condensed graph */
    uint32_t hcce_bits;    /* max ceil(log2 numCC) on the condensed graph (any size) */
    uint32_t auto_bits;    /* AUTO's acyclic bits (<= 64 after push edges) */
    uint32_t valence_rec_bits; /* ceil(log2 C) */
    uint32_t auto_rec_bits_max; /* widest AUTO per-target code */
    size_t pcce_push_edges, hcce_push_edges, auto_push_edges; /* added by 64-bit overflow */
    uint32_t pcce_widest, hcce_widest; /* a function with the most contexts in each numbering */
} ctxprof_enc_stats;

/* Table 1 columns of the Valence paper for a finished graph. */
CTXPROF_API int ctxprof_enc_stats_compute(const ctxprof_graph *g, ctxprof_enc_stats *out,
                                          ctxprof_error *err);

typedef struct ctxprof_enc_check_desc {
    uint64_t walks; /* random walks (0 = 100) */
    uint64_t seed;
    uint32_t depth;     /* maximum call depth (0 = 64) */
    uint32_t max_steps; /* steps per walk before it unwinds (0 = 8 * depth) */
    uint32_t schemes;   /* bit mask of 1u << CTXPROF_ENC_* (0 = all four) */
    uint32_t full_depth; /* decode every step up to this depth (0 = 256), deeper a sample */
} ctxprof_enc_check_desc;

typedef struct ctxprof_enc_check_result {
    uint64_t steps;   /* calls and returns; the length is measured at each */
    uint64_t checked; /* steps decoded (all of them when no walk went past full_depth) */
    uint64_t sampled; /* of those, steps deeper than full_depth */
    uint64_t calls, max_depth;
    uint64_t decoded[CTXPROF_ENC_NSCHEMES];   /* checked steps decoded to the true path */
    uint64_t words_sum[CTXPROF_ENC_NSCHEMES]; /* sum of encoding lengths (words) */
    uint64_t max_words[CTXPROF_ENC_NSCHEMES];
    uint64_t bits_sum[CTXPROF_ENC_NSCHEMES];
    uint64_t max_bits[CTXPROF_ENC_NSCHEMES];
    char failure[200]; /* first mismatch, "" if none */
} ctxprof_enc_check_result;

/* Random call/return walks through the run-time encoders. Each walk
   descends toward a target depth (depth, or for every other walk one
   between depth / 2 and depth), preferring cyclic edges and callees that
   call further, then unwinds with detours.
   Every step is measured; steps up to full_depth are all decoded, deeper
   ones a deterministic sample whose decoding work is bounded per step (a
   decode costs the depth). Acyclic ids wider than CTXPROF_ENC_ACYC_WORDS
   live in words sized per graph on the heap. */
CTXPROF_API int ctxprof_enc_check(const ctxprof_graph *g, const ctxprof_enc_check_desc *desc,
                                  ctxprof_enc_check_result *out, ctxprof_error *err);

/* ---- generated headers (ctxprof-gen) ---- */

typedef struct ctxprof_enc_emit_desc {
    const char *prefix; /* table and macro prefix (NULL = "ctxprof_gen_"): an identifier's start,
                           not ctxprof_... or CTXPROF_... other than the default */
    const char *guard;  /* include guard, an identifier (NULL = from the prefix) */
    const char *const *inputs; /* input names for the banner */
    size_t n_inputs;
    uint32_t ctx_bits;  /* CTXPROF_CTX_BITS the header requires (0 = 64) */
    uint32_t schemes;   /* bit mask of 1u << CTXPROF_ENC_* to emit (0 = default only) */
    int default_scheme; /* scheme of CTXPROF_CALL (0 = AUTO) */
    /* When set, the header goes through write() in pieces of about 1 MiB
       instead of into a buffer (*out = NULL, *out_len = bytes written):
       a gcc-sized header with every scheme is over 100 MB of text. write
       returns 0, or nonzero to stop (ctxprof_enc_emit then fails with
       CTXPROF_ERR_SYS). */
    int (*write)(void *user, const char *data, size_t len);
    void *write_user;
} ctxprof_enc_emit_desc;

/* Writes the generated header into a buffer from CTXPROF_MALLOC (free with
   ctxprof_graph_free_buffer), or through desc->write: per-edge call
   macros, widths, node ids and, under an implementation guard, the decode
   tables. Byte-identical output for the same graph and desc. */
CTXPROF_API int ctxprof_enc_emit(const ctxprof_graph *g, const ctxprof_enc_emit_desc *desc,
                                 char **out, size_t *out_len, ctxprof_error *err);

/* ---- hot path ---- */

/* Pushes the k low bits of v (k <= 64, v < 2^k) on the recursion stack.
   base = the scheme's acyc_bits (a constant of the generated header). */
CTXPROF_INLINE void ctxprof_enc_push(ctxprof_enc *st, uint32_t base, uint32_t k, uint64_t v)
{
    if (k < 64) {
        if (CTXPROF__LIKELY(st->n + k <= st->room)) {
            st->cur = (st->cur << k) | v;
            st->n += k;
            return;
        }
    } else if (st->n == 64 && st->room == 64 && CTXPROF__LIKELY(st->capw > base / 64 + st->depth + 1)) {
        /* a whole word on a word boundary (PCCE) */
        st->buf[base / 64 + st->depth] = st->cur;
        st->depth++;
        st->cur = v;
        return;
    }
    ctxprof_enc_push_slow(st, base, k, v);
}

/* Pops k bits (the width of the matching push). */
CTXPROF_INLINE void ctxprof_enc_pop(ctxprof_enc *st, uint32_t base, uint32_t k)
{
    if (k < 64) {
        if (CTXPROF__LIKELY(st->n >= k)) {
            st->cur >>= k;
            st->n -= k;
            return;
        }
    } else if (st->n == 64 && st->depth > (base % 64 ? 1u : 0u) &&
               CTXPROF__LIKELY(st->capw > base / 64 + st->depth)) {
        st->depth--;
        st->cur = st->buf[base / 64 + st->depth];
        return;
    }
    ctxprof_enc_pop_slow(st, base, k);
}

/* XOR of a whole acyclic word (Valence set and reset: the field is zero
   before the call and holds the code during it, so one XOR does both). An
   asm statement keeps it a 64-bit read-modify-write: clang narrows a plain
   `w ^= const` to a byte op and the next full-word load stalls. */
CTXPROF_INLINE void ctxprof_enc_xor(ctxprof_enc *st, uint32_t word, uint64_t v)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    __asm__("xorq %1, %0" : "+m"(st->acyc[word]) : "er"(v));
#else
    st->acyc[word] ^= v;
#endif
}

/* Applies an edge's op before the call; returns the value leave needs.
   An XOR into a word past the state's CTXPROF_ENC_ACYC_WORDS (tables built
   for wider states; ctxprof_enc_build refuses such graphs) is skipped, and
   ctxprof_enc_query of that base reports the view truncated. */
CTXPROF_INLINE uint64_t ctxprof_enc_enter(ctxprof_enc *st, uint32_t base,
                                          const ctxprof_enc_op *op)
{
    uint64_t saved = st->acyc[0];
    uint32_t i;
    if (op->id_push) {
        ctxprof_enc_push(st, base, op->id_bits, saved);
        st->acyc[0] = op->id_new;
    }
    st->acyc[0] += op->add;
    for (i = 0; i < op->n_xor; i++)
        if (CTXPROF__LIKELY(op->xor_word[i] < CTXPROF_ENC_ACYC_WORDS))
            ctxprof_enc_xor(st, op->xor_word[i], op->xor_val[i]);
    if (op->push_bits)
        ctxprof_enc_push(st, base, op->push_bits, op->push_code);
    return saved;
}

/* Undoes ctxprof_enc_enter after the call returns. */
CTXPROF_INLINE void ctxprof_enc_leave(ctxprof_enc *st, uint32_t base, const ctxprof_enc_op *op,
                                      uint64_t saved)
{
    uint32_t i;
    if (op->push_bits)
        ctxprof_enc_pop(st, base, op->push_bits);
    for (i = op->n_xor; i-- > 0;)
        if (CTXPROF__LIKELY(op->xor_word[i] < CTXPROF_ENC_ACYC_WORDS))
            ctxprof_enc_xor(st, op->xor_word[i], op->xor_val[i]);
    st->acyc[0] -= op->add;
    if (op->id_push) {
        st->acyc[0] = saved;
        ctxprof_enc_pop(st, base, op->id_bits);
    }
}

/* ctxprof_enc_query with the acyclic part read from acyc (acyc_words
   words), and inl (at least base / 64 + 1 words) holding the view when
   nothing is spilled: ctxprof_enc_check keeps acyclic ids wider than a
   state holds in words of its own. */
CTXPROF_INLINE void ctxprof__enc_query_at(ctxprof_enc *st, const uint64_t *acyc, uint32_t base,
                                          uint64_t *inl, ctxprof_enc_view *v)
{
    uint32_t a = base / 64, r = base % 64, i;
    uint64_t low = r ? (UINT64_C(1) << r) - 1 : 0, *w;
    if (st->depth == 0 || !st->buf) {
        /* (depth > 0 without a stack: every spilled word was lost) */
        w = inl;
        v->n_bits = st->depth ? (uint64_t)base + (64 - r) + (st->depth - 1) * 64 + st->n
                              : (uint64_t)base + st->n;
        v->truncated = st->depth != 0 || (st->zeroed && st->n != 0);
        for (i = 0; i < a; i++)
            w[i] = acyc[i];
        w[a] = (st->cur << r) | (r ? acyc[a] & low : 0);
        if (st->depth) {
            v->n_words = a; /* the acyclic words alone */
            v->words = w;
            return;
        }
    } else {
        w = st->buf;
        v->n_bits = (uint64_t)base + (64 - r) + (st->depth - 1) * 64 + st->n;
        v->truncated = (uint64_t)a + st->depth + 1 > st->capw || st->zeroed;
        for (i = 0; i < a; i++)
            w[i] = acyc[i];
        if (r)
            w[a] = (w[a] & ~low) | (acyc[a] & low);
        if (!v->truncated)
            w[a + st->depth] = st->cur;
    }
    v->n_words = (size_t)((v->n_bits + 63) / 64);
    if (v->truncated)
        v->n_words = (size_t)st->capw - 1; /* the words still stored */
    v->words = w;
}

/* The current encoding as one array of words: copies the acyclic part (and
   the newest stack word) next to the spilled stack words, or into the view
   when nothing is spilled. No allocation; signal-safe with respect to the
   thread's own call sites. A base over 64 * CTXPROF_ENC_ACYC_WORDS (tables
   a state of this build cannot hold, see ctxprof_enc_build) gives an empty
   view, truncated, with n_bits = base: its decode fails. */
CTXPROF_INLINE void ctxprof_enc_query(ctxprof_enc *st, uint32_t base, ctxprof_enc_view *v)
{
    if (base > 64u * CTXPROF_ENC_ACYC_WORDS) {
        v->words = v->inl;
        v->n_words = 0;
        v->n_bits = base;
        v->truncated = 1;
        return;
    }
    ctxprof__enc_query_at(st, st->acyc, base, v->inl, v);
}

/* 64-bit hash of the encoding at a query point: equal for equal contexts at
   the same site (mix in what identifies the query point, e.g. the node id).
   Usable as a PCC context value for the context sets. */
CTXPROF_INLINE ctxprof_ctx ctxprof_enc_hash(ctxprof_enc *st, uint32_t base, uint64_t site)
{
    ctxprof_enc_view v;
    uint64_t h;
    ctxprof_enc_query(st, base, &v);
    h = ctxprof_hash_words(v.words, v.n_words);
    return (ctxprof_ctx)ctxprof_mix64(h ^ ctxprof_mix64(v.n_bits + (site << 16)));
}

/* ---- call-site macros (statement form: the call is the last argument;
   commas in it, as in f<int, 2>(x), need no parentheses) ----

   `st` is a pointer expression without side effects (it is evaluated more
   than once), e.g. &ctxprof_pcce_tls. The generated header picks the right
   macro and constants for every edge; these are its building blocks. */

/* In C++ each call's undo is a destructor, so an exception that leaves the
   call restores the thread's encoding too and code after a catch decodes
   its own context. (In C a longjmp out of a call leaves it changed: decodes
   then fail or name another path until the thread's calls return past the
   setjmp.) Member names differ from the macros' parameters, and the
   locals are built by constructors: a brace list's commas would split
   the arguments of a macro whose statement holds this one. */
#if defined(__cplusplus)
struct ctxprof__enc_undo_add { /* PCCE acyclic edge */
    ctxprof_enc *s;
    uint64_t d;
    CTXPROF__PCC_DTOR ctxprof__enc_undo_add(ctxprof_enc *s0, uint64_t d0) : s(s0), d(d0) {}
    CTXPROF__PCC_DTOR ~ctxprof__enc_undo_add() { s->acyc[0] -= d; }
};
struct ctxprof__enc_undo_push { /* PCCE push edge */
    ctxprof_enc *s;
    uint64_t saved;
    uint32_t b, n;
    CTXPROF__PCC_DTOR ctxprof__enc_undo_push(ctxprof_enc *s0, uint64_t saved0, uint32_t b0,
                                             uint32_t n0)
        : s(s0), saved(saved0), b(b0), n(n0)
    {
    }
    CTXPROF__PCC_DTOR ~ctxprof__enc_undo_push()
    {
        s->acyc[0] = saved;
        ctxprof_enc_pop(s, b, n);
    }
};
struct ctxprof__enc_undo_xor { /* Valence acyclic edge, one or two words */
    ctxprof_enc *s;
    uint32_t i0, i1;
    uint64_t x0, x1;
    CTXPROF__PCC_DTOR ctxprof__enc_undo_xor(ctxprof_enc *s0, uint32_t i00, uint32_t i10,
                                            uint64_t x00, uint64_t x10)
        : s(s0), i0(i00), i1(i10), x0(x00), x1(x10)
    {
    }
    CTXPROF__PCC_DTOR ~ctxprof__enc_undo_xor()
    {
        ctxprof_enc_xor(s, i1, x1);
        ctxprof_enc_xor(s, i0, x0);
    }
};
struct ctxprof__enc_undo_pop { /* cyclic edge */
    ctxprof_enc *s;
    uint32_t b, n;
    CTXPROF__PCC_DTOR ctxprof__enc_undo_pop(ctxprof_enc *s0, uint32_t b0, uint32_t n0)
        : s(s0), b(b0), n(n0)
    {
    }
    CTXPROF__PCC_DTOR ~ctxprof__enc_undo_pop() { ctxprof_enc_pop(s, b, n); }
};
#define CTXPROF__ENC_UNDO(type, ...)                                                               \
    CTXPROF__PCC_NOSHADOW_BEGIN                                                                    \
    ctxprof__enc_undo_##type const ctxprof__enc_u(__VA_ARGS__);                                    \
    CTXPROF__PCC_NOSHADOW_END
#define CTXPROF_PCCE_CALL_ADD(st, c, ...)                                                          \
    do {                                                                                           \
        CTXPROF__ENC_UNDO(add, (st), CTXPROF__CAST(uint64_t, c))                                   \
        ctxprof__enc_u.s->acyc[0] += ctxprof__enc_u.d;                                             \
        __VA_ARGS__;                                                                               \
    } while (0)
#define CTXPROF_PCCE_CALL_PUSH(st, base, w, id, ...)                                               \
    do {                                                                                           \
        CTXPROF__ENC_UNDO(push, (st), (st)->acyc[0], CTXPROF__CAST(uint32_t, base),                \
                          CTXPROF__CAST(uint32_t, w))                                              \
        ctxprof_enc_push(ctxprof__enc_u.s, ctxprof__enc_u.b, ctxprof__enc_u.n,                     \
                         ctxprof__enc_u.saved);                                                    \
        ctxprof__enc_u.s->acyc[0] = CTXPROF__CAST(uint64_t, id);                                   \
        __VA_ARGS__;                                                                               \
    } while (0)
#else
/* PCCE acyclic edge: id += c before the call, id -= c after. */
#define CTXPROF_PCCE_CALL_ADD(st, c, ...)                                                          \
    do {                                                                                           \
        (st)->acyc[0] += CTXPROF__CAST(uint64_t, c);                                               \
        __VA_ARGS__;                                                                               \
        (st)->acyc[0] -= CTXPROF__CAST(uint64_t, c);                                               \
    } while (0)

/* PCCE push edge (recursion): push the id (w bits), restart it at `id`;
   restore both after the call. */
#define CTXPROF_PCCE_CALL_PUSH(st, base, w, id, ...)                                               \
    do {                                                                                           \
        uint64_t ctxprof__saved_id = (st)->acyc[0];                                                \
        ctxprof_enc_push((st), (base), (w), ctxprof__saved_id);                                    \
        (st)->acyc[0] = CTXPROF__CAST(uint64_t, id);                                               \
        __VA_ARGS__;                                                                               \
        (st)->acyc[0] = ctxprof__saved_id;                                                         \
        ctxprof_enc_pop((st), (base), (w));                                                        \
    } while (0)

#endif

/* A call that needs no instrumentation (the one zero-code edge of a node). */
#define CTXPROF_ENC_CALL_PLAIN(st, ...)                                                            \
    do {                                                                                           \
        __VA_ARGS__;                                                                               \
    } while (0)

/* ==== valence: declarations ====

   Valence (Zhou et al., CC'19), the HCCE hybrid and ctxprof's AUTO hybrid
   use the run time of the pcce section: the acyclic id lives in
   ctxprof_enc.acyc[] (Valence: bit fields of several words), recursion
   codes go on the bit stack with ctxprof_enc_push/pop. */

#if defined(__cplusplus) /* undo in destructors: see CTXPROF_PCCE_CALL_ADD */
#define CTXPROF_VAL_CALL_SET(st, word, val, ...)                                                   \
    do {                                                                                           \
        CTXPROF__ENC_UNDO(xor, (st), CTXPROF__CAST(uint32_t, word), CTXPROF__CAST(uint32_t, word), \
                          CTXPROF__CAST(uint64_t, val), 0)                                         \
        ctxprof_enc_xor(ctxprof__enc_u.s, ctxprof__enc_u.i0, ctxprof__enc_u.x0);                   \
        __VA_ARGS__;                                                                               \
    } while (0)
#define CTXPROF_VAL_CALL_SET2(st, w0, v0, w1, v1, ...)                                             \
    do {                                                                                           \
        CTXPROF__ENC_UNDO(xor, (st), CTXPROF__CAST(uint32_t, w0), CTXPROF__CAST(uint32_t, w1),     \
                          CTXPROF__CAST(uint64_t, v0), CTXPROF__CAST(uint64_t, v1))                \
        ctxprof_enc_xor(ctxprof__enc_u.s, ctxprof__enc_u.i0, ctxprof__enc_u.x0);                   \
        ctxprof_enc_xor(ctxprof__enc_u.s, ctxprof__enc_u.i1, ctxprof__enc_u.x1);                   \
        __VA_ARGS__;                                                                               \
    } while (0)
#define CTXPROF_VAL_CALL_PUSH(st, base, k, code, ...)                                              \
    do {                                                                                           \
        CTXPROF__ENC_UNDO(pop, (st), CTXPROF__CAST(uint32_t, base), CTXPROF__CAST(uint32_t, k))    \
        ctxprof_enc_push(ctxprof__enc_u.s, ctxprof__enc_u.b, ctxprof__enc_u.n,                     \
                         CTXPROF__CAST(uint64_t, code));                                           \
        __VA_ARGS__;                                                                               \
    } while (0)
#else
/* Valence acyclic edge, code in one word: set before the call, reset after
   (whole-word XOR, see ctxprof_enc_xor). */
#define CTXPROF_VAL_CALL_SET(st, word, val, ...)                                                   \
    do {                                                                                           \
        ctxprof_enc_xor((st), (word), CTXPROF__CAST(uint64_t, val));                               \
        __VA_ARGS__;                                                                               \
        ctxprof_enc_xor((st), (word), CTXPROF__CAST(uint64_t, val));                               \
    } while (0)

/* Valence acyclic edge whose level and edge codes lie in two words. */
#define CTXPROF_VAL_CALL_SET2(st, w0, v0, w1, v1, ...)                                             \
    do {                                                                                           \
        ctxprof_enc_xor((st), (w0), CTXPROF__CAST(uint64_t, v0));                                  \
        ctxprof_enc_xor((st), (w1), CTXPROF__CAST(uint64_t, v1));                                  \
        __VA_ARGS__;                                                                               \
        ctxprof_enc_xor((st), (w1), CTXPROF__CAST(uint64_t, v1));                                  \
        ctxprof_enc_xor((st), (w0), CTXPROF__CAST(uint64_t, v0));                                  \
    } while (0)

/* Cyclic edge (Valence, HCCE, AUTO): push k bits of code before the call,
   pop them after. Also AUTO's entry code on an edge into an SCC. */
#define CTXPROF_VAL_CALL_PUSH(st, base, k, code, ...)                                              \
    do {                                                                                           \
        ctxprof_enc_push((st), (base), (k), CTXPROF__CAST(uint64_t, code));                        \
        __VA_ARGS__;                                                                               \
        ctxprof_enc_pop((st), (base), (k));                                                        \
    } while (0)

#endif

/* Per-thread states, one per scheme; a generated header's CTXPROF_CALL uses
   the one of its scheme. A thread that recursed deeply may free its stack
   with ctxprof_enc_deinit(&ctxprof_..._tls) before it exits. */
#if !defined(CTXPROF_STATIC)
CTXPROF_API CTXPROF_TLS ctxprof_enc ctxprof_pcce_tls CTXPROF__TLS_MODEL;
CTXPROF_API CTXPROF_TLS ctxprof_enc ctxprof_val_tls CTXPROF__TLS_MODEL;
CTXPROF_API CTXPROF_TLS ctxprof_enc ctxprof_val_hcce_tls CTXPROF__TLS_MODEL;
CTXPROF_API CTXPROF_TLS ctxprof_enc ctxprof_val_auto_tls CTXPROF__TLS_MODEL;
#else
CTXPROF__PRIV CTXPROF_TLS ctxprof_enc ctxprof_pcce_tls CTXPROF__TLS_MODEL;
CTXPROF__PRIV CTXPROF_TLS ctxprof_enc ctxprof_val_tls CTXPROF__TLS_MODEL;
CTXPROF__PRIV CTXPROF_TLS ctxprof_enc ctxprof_val_hcce_tls CTXPROF__TLS_MODEL;
CTXPROF__PRIV CTXPROF_TLS ctxprof_enc ctxprof_val_auto_tls CTXPROF__TLS_MODEL;
#endif

/* The calling thread's state of a scheme's call macros (CTXPROF_ENC_*),
   NULL for another value. */
CTXPROF_INLINE ctxprof_enc *ctxprof_enc_thread_state(int scheme)
{
    switch (scheme) {
    case CTXPROF_ENC_PCCE:
        return &ctxprof_pcce_tls;
    case CTXPROF_ENC_VALENCE:
        return &ctxprof_val_tls;
    case CTXPROF_ENC_HCCE:
        return &ctxprof_val_hcce_tls;
    case CTXPROF_ENC_AUTO:
        return &ctxprof_val_auto_tls;
    default:
        return NULL;
    }
}

/* ==== icpp: declarations ====

   Inferred call path profiling (Mytkowicz, Coughlin & Diwan, OOPSLA'09):
   the pair (function, stack height) - the context identifier, CID - names
   the call path most of the time, with nothing recorded at run time (the
   build sampled is the build trained: trained with the hooks, they stay
   in, switched off, at the cost bench/icpp_bench.sh measures; trained
   from perf_event callchains, the build is a plain one). The paper's
   four steps (sec. 3) and where they are here:

     1. path map (sec. 4.2): a training run records every distinct call path
        with its height, from ctxprof_icpp_enter/exit (hand-written
        CTXPROF_ICPP_FUNC) or the -finstrument-functions hooks
        (CTXPROF_ICPP_HOOKS), and saves a ctxprof-paths file; or, with no
        instrumentation, ctxprof_pebs_train (ctxprof_pebs.h) counts the
        paths and leaf heights of callchain samples of a plain build with
        frame pointers (beyond the paper, which trained with icc's
        -finstrument-functions hooks: sec. 4.2, 8.1).
     2. disambiguation (sec. 5): ctxprof_icpp_pad_compute picks per-function
        frame padding (activation record resizing, 5.1) under a stack
        growth cap - the paper's random search (5.1.1) or ours (sweeps, local
        search and annealing on an exact incremental evaluator) - reports a cap-aware
        upper bound, and
        names the pairs only call-site wrapping (5.2) or cloning (5.3) can
        separate;
        CTXPROF_ICPP_PAD / CTXPROF_ICPP_CALL apply them in the source.
     3. capture (sec. 6): CTXPROF_ICPP_CID at a query point (6.1), the
        SIGPROF timer sampler (6.2), or perf_event samples (6.3,
        ctxprof_pebs.h) - all measure height = thread base - SP.
     4. paths (sec. 7): ctxprof_icpp_resolve maps (PC, SP) to candidate
        paths in constant time and, when the CID is ambiguous, reads just
        the frames that separate them (sec. 6.4): the return address at
        each height where the candidates' ancestors differ, or the
        frame-pointer chain; ctxprof_icpp_map_walk_cost tells the cost.

   Heights. Each thread's base is the caller's SP at its first
   ctxprof_icpp_thread_begin() (with the hooks, a thread's first
   instrumented function records it); the main thread's is its initial SP,
   where the kernel put argc, recorded before main by a constructor. Heights are therefore identical from run to run (ASLR and
   the environment size do not matter) as long as the binary is the same:
   train and sample the same build. Training records a function's body
   SP; a sample's height is the same, taken from its CFA (the .eh_frame
   rules bind reads) wherever it interrupted the function - prologue,
   epilogue and argument pushes included - or from its SP where the rules
   are unknown (then a sample in a prologue or epilogue may be "missing";
   ctxprof_icpp_map_height).

   Threads. Training keeps one calling-context tree per thread; saving
   merges them and must run when the other threads are quiescent;
   ctxprof_icpp_train_path, train_key and train_get_stats may run in any
   thread while the others train. Lookups
   and resolution on a loaded map are read-only (any thread, and signal
   handlers). */

#if defined(CTXPROF_ICPP_HOOKS) && defined(CTXPROF_HCCT_HOOKS)
#error "ctxprof: CTXPROF_ICPP_HOOKS and CTXPROF_HCCT_HOOKS both define the -finstrument-functions hooks __cyg_profile_func_enter/exit; define only one of them per program (train ICPP and profile the HCCT in separate builds)"
#endif

/* --- stack base and context identifiers ------------------------------ */

#define CTXPROF_ICPP_NO_HEIGHT UINT64_MAX /* SP above the base, or no base yet */

/* A context identifier: function id (its start address, as
   ctxprof_symtab_func gives for a PC) and stack height in bytes. */
typedef struct ctxprof_icpp_cid {
    uintptr_t func;
    uint64_t height;
} ctxprof_icpp_cid;

/* The calling thread's stack base (0 = not recorded). */
CTXPROF_API CTXPROF_TLS uintptr_t ctxprof__icpp_base CTXPROF__TLS_MODEL;
/* Training: SP inside a CTXPROF_ICPP_CALL wrap, where its call leaves (0:
   none), and the SP of the trained frame the wrap is in (a note made in
   another frame is not used: one a longjmp left). */
CTXPROF_API CTXPROF_TLS uintptr_t ctxprof__icpp_wrap_sp CTXPROF__TLS_MODEL;
CTXPROF_API CTXPROF_TLS uintptr_t ctxprof__icpp_wrap_frame CTXPROF__TLS_MODEL;

/* Records the calling thread's base, the caller's SP at this call (the
   main thread's: its initial SP, where /proc gives it), unless one is
   recorded already; returns the base. Call it first thing in a
   thread's start routine (not needed with the hooks, nor on the main
   thread), and at the same place in the runs that train and sample: the
   SP at the call depends on what the compiler has pushed by then, and
   every height is measured from it. Registers the thread id for
   ctxprof_icpp_base_of_tid. */
CTXPROF_API uintptr_t ctxprof_icpp_thread_begin(void);
/* Forgets the calling thread's base (done at thread exit otherwise). */
CTXPROF_API void ctxprof_icpp_thread_end(void);
/* Base of the thread with this kernel thread id, 0 if it has none: for
   samples read from another thread (perf_event). Signal-safe. */
CTXPROF_API uintptr_t ctxprof_icpp_base_of_tid(long tid);

/* The calling thread's base (0 if none). */
CTXPROF_INLINE uintptr_t ctxprof_icpp_thread_base(void)
{
    return ctxprof__icpp_base;
}

/* The current stack pointer of the calling function (inlined: no frame of
   its own). */
CTXPROF_INLINE uintptr_t ctxprof_icpp_sp(void)
{
    uintptr_t sp;
#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
    __asm__("mov %%rsp, %0" : "=r"(sp));
#elif (defined(__GNUC__) || defined(__clang__)) && defined(__aarch64__)
    __asm__("mov %0, sp" : "=r"(sp));
#else
    volatile char probe = 0; /* approximate: a local's address */
    sp = (uintptr_t)&probe;
#endif
    return sp;
}

/* Height of sp over base, or CTXPROF_ICPP_NO_HEIGHT. */
CTXPROF_INLINE uint64_t ctxprof_icpp_height(uintptr_t sp, uintptr_t base)
{
    return base && sp <= base ? (uint64_t)(base - sp) : CTXPROF_ICPP_NO_HEIGHT;
}

/* The CID at this point of the calling function (paper 6.1): two loads and
   a subtraction, nothing written. func: the function's id, normally its
   address: CTXPROF_ICPP_CID(my_function). */
CTXPROF_INLINE ctxprof_icpp_cid ctxprof_icpp_cid_here(uintptr_t func)
{
    ctxprof_icpp_cid c;
    c.func = func;
    c.height = ctxprof_icpp_height(ctxprof_icpp_sp(), ctxprof__icpp_base);
    return c;
}
#define CTXPROF_ICPP_CID(fn) ctxprof_icpp_cid_here(CTXPROF__UINTPTR(fn))

/* --- training: path maps from a shadow stack (paper 4.2) -------------- */

typedef struct ctxprof_icpp_train_desc {
    size_t max_paths; /* calling-context tree nodes per thread, its root included: at most
                         max_paths - 1 paths (stats.nodes) per thread, more are dropped
                         (default 1 << 20; 1, room for the root alone, is refused) */
    size_t max_depth; /* shadow stack entries per thread (default 16384); deeper frames dropped */
    uint64_t max_save_bytes; /* bytes ctxprof_icpp_train_save may write (default 1 GiB): the
                                longest paths are left out first (stats.dropped_save). The
                                map writes each path whole, so one recursion D deep makes
                                paths of 1..D functions: about D^2/2 names (D = 16384:
                                134M names, over 1 GB with 8-byte names; more threads'
                                recursions each add theirs) */
} ctxprof_icpp_train_desc;

typedef struct ctxprof_icpp_train_stats {
    size_t threads;         /* threads that entered an instrumented function */
    size_t nodes;           /* (path, height) nodes, summed over the threads' trees (a
                               path two threads took counts twice; the saved map
                               merges them) */
    uint64_t entries;       /* function entries recorded */
    uint64_t dropped_paths; /* entries not recorded: a thread's max_paths reached */
    uint64_t dropped_depth; /* entries not recorded: max_depth reached */
    uint64_t no_base;       /* entries above the thread's base or on another stack (a
                               coroutine's): not recorded */
    uint64_t dropped_signal; /* entries inside signal handlers (not recorded: recording may
                                allocate, and the interrupted code may be inside malloc) */
    uint64_t dropped_save;   /* paths the last ctxprof_icpp_train_save left out of the map to
                                stay within max_save_bytes (the longest first) */
} ctxprof_icpp_train_stats;

/* Starts recording (process-wide switch). The limits desc sets apply to
   every thread from then on; its zero fields, or a NULL desc, keep those in
   force (the defaults until a start sets others: they stay across stop
   and reset). While training is on (a start not yet stopped, or
   CTXPROF_ICPP_TRAIN in the environment) a start that asks for other
   limits is refused with CTXPROF_ERR_INVAL and changes nothing (stop
   first); one that asks for none, or for those in force, returns
   CTXPROF_OK. Not concurrently with another start or a stop. Not
   signal-safe. */
CTXPROF_API int ctxprof_icpp_train_start(const ctxprof_icpp_train_desc *desc, ctxprof_error *err);
/* Stops recording; the data stays until reset. */
CTXPROF_API void ctxprof_icpp_train_stop(void);
/* Writes the merged paths of every thread as a path map (function names
   from the process's symbols; the ctxprof-paths format; atomic replace). Run it
   when other training threads are quiescent. With no path recorded (training
   never started since the last reset, or no instrumented function ran while
   it was on) it writes nothing and fails with CTXPROF_ERR_INVAL: a map without
   paths resolves nothing and ctxprof-gen pad refuses it. The text is written
   in 64 KiB chunks as it is made: the memory it takes grows with the paths
   (the merged tree), not with the file. At most max_save_bytes: paths are
   left out longest first, all those of one length at a time (the map keeps
   every path of up to N functions, N the most that fits), and counted in
   stats.dropped_save; CTXPROF_ERR_RANGE when not even the one-function paths
   fit (nothing written). Not signal-safe (it allocates); the
   CTXPROF_ICPP_TRAIN save runs from atexit. */
CTXPROF_API int ctxprof_icpp_train_save(const char *path, ctxprof_error *err);
/* Frees all training data (no thread may be inside instrumented code, nor
   in ctxprof_icpp_train_path, train_key or train_get_stats). */
CTXPROF_API void ctxprof_icpp_train_reset(void);
/* Counts summed over every thread's tree. Any thread, while others train
   (each thread's counts are read as they stand, not all at one instant);
   not concurrently with ctxprof_icpp_train_reset. */
CTXPROF_API void ctxprof_icpp_train_get_stats(ctxprof_icpp_train_stats *out);
/* The calling thread's current training node (a path), 0 when none: the
   true path of a sample, for evaluation. Signal-safe. */
CTXPROF_API uint64_t ctxprof_icpp_train_current(void);
/* Function ids of a node's path, root first, into funcs[max]; returns the
   path length (may exceed max), 0 for an unknown node. *out_height gets
   its height. Any thread, while the node's thread trains on (its tree's
   arrays stay readable until no reader is left: they move when the tree
   grows); not concurrently with ctxprof_icpp_train_reset. Signal-safe. */
CTXPROF_API size_t ctxprof_icpp_train_path(uint64_t node, uintptr_t *funcs, size_t max,
                                           uint64_t *out_height);
/* ctxprof_icpp_path_key of a node's path (names from st), with root, when
   not NULL, put first (the functions entered before training started, e.g.
   "main"): the true path of a sample, comparable with any map's paths.
   0 when the node is unknown, a name is missing or the path is longer than
   1024 functions. Threads: as ctxprof_icpp_train_path. */
CTXPROF_API uint64_t ctxprof_icpp_train_key(uint64_t node, const ctxprof_symtab *st,
                                            const char *root);

/* Slow paths of the entry and exit operations (use the inline forms). The
   SP they record is their own CFA: the caller's SP at a call, after its
   prologue (an inline read of SP could be scheduled before it). */
CTXPROF_API void ctxprof__icpp_enter_here(uintptr_t func, uintptr_t site, int paired);
CTXPROF_API void ctxprof__icpp_exit_here(uintptr_t func, uintptr_t site);
CTXPROF_API uintptr_t ctxprof__icpp_frame_at(uintptr_t sp);
CTXPROF_API void ctxprof__icpp_enter_slow(uintptr_t func, uintptr_t site, uintptr_t sp,
                                          uint32_t point, int paired);
CTXPROF_API void ctxprof__icpp_exit_slow(uintptr_t func, uintptr_t site, uintptr_t sp,
                                         int tail);
CTXPROF_API int ctxprof__icpp_training; /* read relaxed on every entry */

CTXPROF_INLINE int ctxprof__icpp_is_training(void)
{
#if defined(__GNUC__) || defined(__clang__)
    return __atomic_load_n(&ctxprof__icpp_training, __ATOMIC_RELAXED) != 0;
#else
    return ctxprof__icpp_training != 0;
#endif
}

/* An instrumented frame: its function and call site (return address). */
typedef struct ctxprof_icpp_scope {
    uintptr_t func, site;
} ctxprof_icpp_scope;

/* Records entry into func called from site (an instrumented function calls
   it first; when not training: one load and a branch). site: the frame's
   return address (__builtin_return_address(0)), or 0; training finds its
   slot on the stack, which measures the frame's body offset (the "body"
   lines of a path map). paired:
   ctxprof_icpp_exit will be called at every return (then an inlined callee
   is recognised by its equal SP); unpaired entries pop returned frames by
   SP alone. */
CTXPROF_INLINE ctxprof_icpp_scope ctxprof_icpp_enter(uintptr_t func, uintptr_t site, int paired)
{
    ctxprof_icpp_scope sc;
    sc.func = func;
    sc.site = site;
    if (CTXPROF__UNLIKELY(ctxprof__icpp_is_training()))
        ctxprof__icpp_enter_here(func, site, paired);
    return sc;
}
/* Records the return of the frame ctxprof_icpp_enter recorded. */
CTXPROF_INLINE void ctxprof_icpp_exit(const ctxprof_icpp_scope *sc)
{
    if (CTXPROF__UNLIKELY(ctxprof__icpp_is_training()))
        ctxprof__icpp_exit_here(sc->func, sc->site);
}
CTXPROF_INLINE void ctxprof__icpp_scope_end(ctxprof_icpp_scope *sc)
{
    ctxprof_icpp_exit(sc);
}

/* --- frame padding and call-site wrapping (paper 5.1, 5.2) -------------

   `ctxprof-gen pad` writes a header of lines

       #define CTXPROF_PAD_parse_expr ~, 2      (2 units of 16 bytes)
       #define CTXPROF_WRAP_term__factor ~, 1   (call-site wrap of term -> factor)

   (the "~," makes absent names read as 0, so functions the training never
   saw need no entry). Include it before the functions that use: */

/* Pad units of function f (0 when the table has no entry for it). */
#define CTXPROF_ICPP_PAD_UNITS(f) CTXPROF__ICPP_ARG2(CTXPROF_PAD_##f, 0, ~)
#define CTXPROF_ICPP_WRAP_UNITS(caller, callee)                                                    \
    CTXPROF__ICPP_ARG2(CTXPROF_WRAP_##caller##__##callee, 0, ~)
#define CTXPROF__ICPP_ARG2(...) CTXPROF__ICPP_ARG2_(__VA_ARGS__)
#define CTXPROF__ICPP_ARG2_(a, b, ...) b

#if defined(__GNUC__) || defined(__clang__)
#define CTXPROF__ICPP_ALIGN16 __attribute__((aligned(16)))
#define CTXPROF__ICPP_KEEP(p) __asm__ volatile("" : : "r"(p))
#else
#define CTXPROF__ICPP_ALIGN16
#define CTXPROF__ICPP_KEEP(p) ((void)(*CTXPROF__PTR(volatile char *, p)))
#endif

/* Grows f's frame by its table amount (activation record resizing, 5.1):
   a 16-byte-aligned local array whose address escapes into an empty asm,
   so the optimizer must keep it; with 0 units nothing. A declaration: put
   it first in f's body, once per function; the table's amounts are
   integer literals, as ctxprof-gen writes them.
   In a leaf that calls nothing (not even the training hooks: a plain
   build), x86-64 compilers keep up to 128 bytes of locals in the red zone
   below SP without moving SP, so a small pad there does not move the
   leaf's SP. That costs no precision: a leaf's pad moves every path
   ending in it alike, so it never separates two of them, and a leaf has
   no callees to move; train and sample the same build, as always. */
#define CTXPROF_ICPP_PAD(f) CTXPROF__ICPP_PAD_N(CTXPROF_ICPP_PAD_UNITS(f))
/* 0 units declare no object at all, so that an unpadded frame is the same
   at -O0 (where an unused array would keep a 16-byte slot) */
#define CTXPROF__ICPP_PAD_N(n)                                                                     \
    CTXPROF__ICPP_CAT(CTXPROF__ICPP_PAD_IF,                                                        \
                      CTXPROF__ICPP_ARG2(CTXPROF__ICPP_CAT(CTXPROF__ICPP_IS0_, n), 0, ~))(n)
#define CTXPROF__ICPP_IS0_0 ~, 1
#define CTXPROF__ICPP_CAT(a, b) CTXPROF__ICPP_CAT_(a, b) /* a and b expanded first */
#define CTXPROF__ICPP_CAT_(a, b) a##b
#define CTXPROF__ICPP_PAD_IF1(n) enum { ctxprof__icpp_pad_none }
#define CTXPROF__ICPP_PAD_IF0(n)                                                                   \
    char ctxprof__icpp_pad[16 * (n)] CTXPROF__ICPP_ALIGN16;                                        \
    CTXPROF__ICPP_KEEP(ctxprof__icpp_pad)

/* Call-site wrapping (5.2): runs stmt (a call of callee from caller) with
   the stack lowered by the table's amount for this edge only, so paths
   with the same functions in another order get different heights. The
   frame has the same shape whatever the amount: a variable-length array of
   16 * (units + 1) bytes whose size the optimizer cannot see (so it stays
   a run-time allocation, rounded to 16 bytes by both gcc and clang; the
   size is materialized at the site, inside an asm on x86, so that equal
   amounts are never kept in one register), and the caller's fixed frame
   is the same for every amount. So put the macro
   at the edge's call sites before training: a site wrapped with 0 units
   lowers its callee by 16 bytes in the training build too, and a table's
   u units lower it by exactly 16 * u more, as the generator predicts
   (precise_after_wrap). Wrap every call site of the edge, and not as a
   tail call (`return f(x)` may be emitted as a jump past the array; write
   `r = f(x)` and return after). C only (in C++ and without VLAs it runs
   stmt unwrapped). Training notes the SP inside the wrap, so the map
   knows the callee's body offset ("body" lines) and partial walks
   (ctxprof_icpp_resolve) read a wrapped call's return address at the
   callee's CFA, below the array, and not at the caller's height. */
#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 199901L &&          \
    !defined(__STDC_NO_VLA__)
#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
/* the constant is materialized inside the asm, so that no register
   holds it across the function whatever its value */
#define CTXPROF__ICPP_SIZE(var, k) __asm__ volatile("mov %1, %0" : "=r"(var) : "i"(k))
#elif defined(__GNUC__) || defined(__clang__)
#define CTXPROF__ICPP_SIZE(var, k)                                                                 \
    do {                                                                                           \
        (var) = (k);                                                                               \
        __asm__ volatile("" : "+r"(var));                                                          \
    } while (0)
#else
#define CTXPROF__ICPP_SIZE(var, k)                                                                 \
    do {                                                                                           \
        volatile size_t ctxprof__icpp_v = (k);                                                     \
        (var) = ctxprof__icpp_v;                                                                   \
    } while (0)
#endif
#if defined(__GNUC__) || defined(__clang__)
/* Training notes the SP inside the wrap, where the search for a callee's
   return address (its body offset) starts: the wrap's array, whose stale
   words could hold an old copy of it, is skipped. The note names the
   trained frame it was made in and is put back at the scope's end; a
   longjmp out of stmt leaves it behind, but only calls from that frame
   use it, so a longjmp into a caller loses nothing (one into the same
   frame, around the wrap, leaves it until the frame's next wrap: a search
   from it starts below the slot, so it finds nothing and the steps
   between heights decide, or it finds a stale copy and measures too
   small). */
typedef struct ctxprof__icpp_wrapnote { /* 16 bytes, as the frames the tests measure expect */
    uintptr_t prev, prev_frame; /* prev_frame | 1 while training (frame SPs are even), 0 off */
} ctxprof__icpp_wrapnote;
CTXPROF_INLINE ctxprof__icpp_wrapnote ctxprof__icpp_wrap_begin(void)
{
    ctxprof__icpp_wrapnote w;
    w.prev = w.prev_frame = 0;
    if (CTXPROF__UNLIKELY(ctxprof__icpp_is_training())) {
        uintptr_t sp = ctxprof_icpp_sp();
        w.prev = ctxprof__icpp_wrap_sp;
        w.prev_frame = ctxprof__icpp_wrap_frame | 1;
        ctxprof__icpp_wrap_sp = sp;
        ctxprof__icpp_wrap_frame = ctxprof__icpp_frame_at(sp);
    }
    return w;
}
CTXPROF_INLINE void ctxprof__icpp_wrap_end(ctxprof__icpp_wrapnote *w)
{
    if (CTXPROF__UNLIKELY(w->prev_frame)) {
        ctxprof__icpp_wrap_sp = w->prev;
        ctxprof__icpp_wrap_frame = w->prev_frame & ~(uintptr_t)1;
    }
}
#define CTXPROF__ICPP_WRAP_NOTE                                                                    \
    ctxprof__icpp_wrapnote ctxprof__icpp_note                                                      \
        __attribute__((cleanup(ctxprof__icpp_wrap_end), unused)) = ctxprof__icpp_wrap_begin()
#else
#define CTXPROF__ICPP_WRAP_NOTE (void)0
#endif
#define CTXPROF_ICPP_CALL(caller, callee, ...)                                                     \
    do {                                                                                           \
        size_t ctxprof__icpp_n;                                                                    \
        CTXPROF__ICPP_SIZE(ctxprof__icpp_n,                                                        \
                           16 * ((size_t)CTXPROF_ICPP_WRAP_UNITS(caller, callee) + 1));            \
        {                                                                                          \
            char ctxprof__icpp_wrap[ctxprof__icpp_n];                                              \
            CTXPROF__ICPP_KEEP(ctxprof__icpp_wrap);                                                \
            {                                                                                      \
                CTXPROF__ICPP_WRAP_NOTE;                                                           \
                __VA_ARGS__;                                                                       \
            }                                                                                      \
        }                                                                                          \
    } while (0)
#else
#define CTXPROF_ICPP_CALL(caller, callee, ...)                                                     \
    do {                                                                                           \
        __VA_ARGS__;                                                                               \
    } while (0)
#endif

/* Function entry for training by hand: frame padding, then entry (and, with
   GCC/Clang, exit at every return via __attribute__((cleanup))). A
   declaration; first in f's body:

       static int term(parser *p) { CTXPROF_ICPP_FUNC(term); ... }

   The frame is the same whether training is on or off (only a flag is
   tested), so one binary serves for training and for sampling. */
#if defined(__GNUC__) || defined(__clang__)
#define CTXPROF_ICPP_FUNC(f)                                                                       \
    CTXPROF_ICPP_PAD(f);                                                                           \
    ctxprof_icpp_scope ctxprof__icpp_scope                                                         \
        __attribute__((cleanup(ctxprof__icpp_scope_end), unused)) = ctxprof_icpp_enter(            \
            CTXPROF__UINTPTR(f), CTXPROF__UINTPTR(__builtin_return_address(0)), 1)
#else
#define CTXPROF_ICPP_FUNC(f)                                                                       \
    CTXPROF_ICPP_PAD(f);                                                                           \
    ctxprof_icpp_scope ctxprof__icpp_scope = ctxprof_icpp_enter(CTXPROF__UINTPTR(f), 0, 0)
#endif

/* --- path maps and lookup (paper 4, 7) --------------------------------- */

/* A loaded path map. Read-only after load (and bind): thread-safe,
   signal-safe lookups. Build it with ctxprof_icpp_map_load/parse. */
struct ctxprof__icpp_mapdata;
typedef struct ctxprof_icpp_map {
    size_t paths;        /* path entries (distinct path and height) */
    size_t funcs;        /* distinct function names */
    size_t nodes;        /* distinct call paths, prefixes included */
    size_t cids;         /* distinct context identifiers */
    uint64_t max_height; /* largest height */
    size_t cfa_funcs;    /* after bind: functions whose heights come from the CFA (below) */
    /* private: */
    struct ctxprof__icpp_mapdata *d;
} ctxprof_icpp_map;

/* Loads a ctxprof-paths file ("-" = stdin) into m, which must be zeroed
   ({0}, memset) or hold a map (replaced and freed on success). On error m
   is untouched and err says "file:line: what". Allocates; not signal-safe. */
CTXPROF_API int ctxprof_icpp_map_load(ctxprof_icpp_map *m, const char *path, ctxprof_error *err);
/* Same from text in memory (name is used in messages). */
CTXPROF_API int ctxprof_icpp_map_parse(ctxprof_icpp_map *m, const char *text, size_t len,
                                       const char *name, ctxprof_error *err);
/* Writes m as a ctxprof-paths file (atomic replace; "-" = stdout). */
CTXPROF_API int ctxprof_icpp_map_save(const ctxprof_icpp_map *m, const char *path,
                                      ctxprof_error *err);
CTXPROF_API void ctxprof_icpp_map_deinit(ctxprof_icpp_map *m);

/* Function id of a name (dense 0..funcs-1), or -1. */
CTXPROF_API long ctxprof_icpp_map_func(const ctxprof_icpp_map *m, const char *name);
CTXPROF_API const char *ctxprof_icpp_map_func_name(const ctxprof_icpp_map *m, uint32_t func);
/* Candidate paths of the CID (func, height): their number, and *out_paths
   points at their ids. Constant time. Signal-safe. */
CTXPROF_API size_t ctxprof_icpp_map_lookup(const ctxprof_icpp_map *m, uint32_t func,
                                           uint64_t height, const uint32_t **out_paths);

typedef struct ctxprof_icpp_path_info {
    uint64_t count;  /* times entered in training */
    uint64_t height; /* stack height at its last function */
    uint32_t len;    /* functions on the path */
    uint32_t leaf;   /* its last function */
    uint32_t degree; /* paths sharing its CID, itself included (1 = precise) */
    uint64_t key;    /* ctxprof_icpp_path_key of its function names */
} ctxprof_icpp_path_info;
CTXPROF_API int ctxprof_icpp_map_path(const ctxprof_icpp_map *m, uint32_t path,
                                      ctxprof_icpp_path_info *out);
/* Function ids of a path, root first, into out[max]; returns its length. */
CTXPROF_API size_t ctxprof_icpp_map_path_funcs(const ctxprof_icpp_map *m, uint32_t path,
                                               uint32_t *out, size_t max);
/* "main>parse>expr" into buf (truncated, NUL-terminated); returns the full
   length. The names as the map has them: a C++ function's mangled symbol
   ("_ZN4calc4evalEPKNS_4NodeE"), the map's identity for it. Signal-safe. */
CTXPROF_API size_t ctxprof_icpp_map_path_str(const ctxprof_icpp_map *m, uint32_t path, char *buf,
                                             size_t size);
/* The same for display, C++ names as source spells them, through
   ctxprof_demangle ("calc::eval(calc::Node const*)>..."; other names, and
   all of them without the C++ runtime's demangler, as they are). The map
   keeps its names mangled. Allocates; not signal-safe. */
CTXPROF_API size_t ctxprof_icpp_map_path_str_demangled(const ctxprof_icpp_map *m, uint32_t path,
                                                       char *buf, size_t size);
/* A 64-bit identity of a call path by its function names (root first),
   the same in every map and process: for comparing paths across runs. */
CTXPROF_API uint64_t ctxprof_icpp_path_key(const char *const *names, size_t n);

/* Binds the map to this process's symbols so that PCs map to its
   functions (f.cold parts and every same-named static function included).
   Call again after ctxprof_symtab_reload, also while the sampler resolves
   with m (desc.map): the new tables replace the old at once, and the old
   are freed when no sampler handler can still read them. Other lookups
   in m must not overlap a bind. Allocates; not signal-safe. */
CTXPROF_API int ctxprof_icpp_map_bind(ctxprof_icpp_map *m, const ctxprof_symtab *st,
                                      ctxprof_error *err);
/* Map function id of the function containing pc (bound map), or -1. Signal-safe. */
CTXPROF_API long ctxprof_icpp_map_func_of_pc(const ctxprof_icpp_map *m, uintptr_t pc);
/* A sample's height, as ctxprof_icpp_resolve takes it. bind reads the CFA
   rules of the map's functions (DWARF call frame information, .eh_frame of
   the loaded objects), and a sample in such a function has the height
   base - CFA + the function's body offset (CFA - SP where training
   measured it: the smallest step from a caller's height in the map, or
   its "body" line, measured from a CTXPROF_ICPP_CALL wrap),
   exact at every instruction: prologue, epilogue and argument pushes
   included. Elsewhere (no rules, no body offset, or CFA use turned off)
   it is base - SP, the paper's, right only in the body.
   CTXPROF_ICPP_NO_HEIGHT without a base. Signal-safe. */
CTXPROF_API uint64_t ctxprof_icpp_map_height(const ctxprof_icpp_map *m, uintptr_t pc,
                                             uintptr_t sp, uintptr_t fp, uintptr_t base);
/* Heights from the CFA (on, the default after bind) or base - SP (0). */
CTXPROF_API void ctxprof_icpp_map_use_cfa(ctxprof_icpp_map *m, int on);

/* --- resolving samples (paper 7, partial walks of 6.4) ----------------- */

enum {
    CTXPROF_ICPP_PRECISE = 0,   /* one path: result.path */
    CTXPROF_ICPP_AMBIGUOUS = 1, /* several candidates remain (result.remaining) */
    CTXPROF_ICPP_MISSING = 2,   /* no path has this CID (the paper's missing) */
    CTXPROF_ICPP_OUTSIDE = 3,   /* the PC is in no function of the map */
    CTXPROF_ICPP_NOBASE = 4,    /* no height: the thread had no base, or SP above it */
    CTXPROF_ICPP_INCORRECT = 5  /* the CID has paths, the sample's is none of them (the
                                   paper's incorrect): the walk ruled all out, or
                                   ctxprof_icpp_evaluate knows the true path */
};

#ifndef CTXPROF_ICPP_FRAMES /* ABI: the same value in every TU of a program */
#define CTXPROF_ICPP_FRAMES 8
#endif
/* Frame words saved at sample time for resolving later: return address
   and canonical frame address (caller's SP) of the first frames of the
   frame-pointer chain, innermost first. */
typedef struct ctxprof_icpp_frames {
    uint32_t n;
    uintptr_t ra[CTXPROF_ICPP_FRAMES];
    uintptr_t cfa[CTXPROF_ICPP_FRAMES];
} ctxprof_icpp_frames;

typedef struct ctxprof_icpp_result {
    int kind;           /* CTXPROF_ICPP_PRECISE ... */
    uint32_t path;      /* the path when PRECISE */
    uint32_t func;      /* map function of the PC (OUTSIDE: UINT32_MAX) */
    uint64_t height;    /* the CID's height */
    uint32_t degree;    /* candidates of the CID */
    uint32_t remaining; /* candidates left after walking */
    uint32_t walked;    /* frames read (walked, or read at a known height) */
    const uint32_t *candidates; /* the CID's candidates (degree of them) */
} ctxprof_icpp_result;

/* Maps one sample to its path: (pc, sp) over the thread's base give the
   CID; when it has several candidates, reads up to max_walk frames just
   until one candidate is left (paper 6.4). On the live stack (frames NULL)
   it reads only where the candidates differ: the first frame up where
   their ancestors' functions differ has a height the map knows, and the
   return address just below it names the function (below its callee's
   CFA: the callee's height minus its body offset, once bound, which is
   lower than the caller's height when the caller pushed something for the
   call, a CTXPROF_ICPP_CALL wrap or stack arguments; one read per deciding
   frame, inside [sp, base]; with unknown heights it walks the chain from
   the frame pointer fp, bounds-checked the same way). From saved words
   (frames, when not NULL) see below. A targeted read trusts
   the map for the frames it skips: a path missing from the map may then
   come out as a wrong candidate where a full walk would say INCORRECT.
   A walk that rules out every candidate proves the sample's path is none
   of the CID's: CTXPROF_ICPP_INCORRECT (remaining 0), the paper's
   "incorrect" (8.4); MISSING only when no path has the CID.
   max_walk = 0: PC and SP alone. From saved words (frames, when not NULL)
   the targeted reads look up the word saved at each deciding height (its
   cfa = base - height: the sampler's save_targeted words, or frames of a
   saved chain), then it walks the words in order. Signal-safe,
   thread-safe; returns result->kind. The map must be bound: with an
   unbound (or NULL) map it returns CTXPROF_ERR_INVAL and sets result->kind
   to CTXPROF_ICPP_OUTSIDE (no candidates); with a NULL result,
   CTXPROF_ERR_INVAL. */
CTXPROF_API int ctxprof_icpp_resolve(const ctxprof_icpp_map *m, uintptr_t pc, uintptr_t sp,
                                     uintptr_t base, uintptr_t fp,
                                     const ctxprof_icpp_frames *frames, unsigned max_walk,
                                     ctxprof_icpp_result *result);
/* Frames a partial walk (paper 6.4) reads to single out `path` among the
   candidates of its CID, simulated on the map with that path as the truth:
   *out_sequential for a frame-by-frame walk of the frame-pointer chain
   (mapped frames only: library frames between them add to a live walk),
   *out_targeted for ctxprof_icpp_resolve's targeted reads. Both 0 for a
   precise path. Returns 1 when the walk singles the path out, 0 when
   candidates remain (the same functions and heights all the way up, or
   more than 256 candidates), CTXPROF_ERR_RANGE for a bad path. */
CTXPROF_API int ctxprof_icpp_map_walk_cost(const ctxprof_icpp_map *m, uint32_t path,
                                          uint32_t *out_sequential, uint32_t *out_targeted);
/* Evaluation (the paper's metrics, sec. 8): classifies r, a result of
   ctxprof_icpp_resolve, against the sample's true call path given by its
   key (ctxprof_icpp_path_key of its names, root first: ctxprof_icpp_train_key
   in a run that trains while it samples, or any other source). The map may
   come from another run or another input (the paper's online scenario).
   Returns CTXPROF_ICPP_PRECISE when r names the true path;
   CTXPROF_ICPP_AMBIGUOUS when the true path is among the CID's candidates
   and several remain (*out_degree, when not NULL, gets r->remaining, the
   degree of ambiguity; else 1 or 0); CTXPROF_ICPP_MISSING when no path of
   the map has the CID; CTXPROF_ICPP_INCORRECT when the CID has paths and r
   names another path, the true path is not a candidate, or the walk ruled
   every candidate out (r->kind INCORRECT, kept even if a bad frame made
   it rule out the true path: the answer is wrong either way); r->kind for
   OUTSIDE and NOBASE. A true path outside the CID's paths is INCORRECT
   with or without a walk. Signal-safe. */
CTXPROF_API int ctxprof_icpp_evaluate(const ctxprof_icpp_map *m, const ctxprof_icpp_result *r,
                                      uint64_t true_key, uint32_t *out_degree);
/* Fills frames from a live frame-pointer chain (at most CTXPROF_ICPP_FRAMES,
   and max), reading only inside [sp, base]. Signal-safe. */
CTXPROF_API void ctxprof_icpp_save_frames(uintptr_t sp, uintptr_t base, uintptr_t fp,
                                          unsigned max, ctxprof_icpp_frames *frames);

/* --- padding search (paper 5.1.1 and ours) ------------------------------ */

enum {
    CTXPROF_ICPP_SEARCH_OURS = 0,   /* ours: sweeps, local search, annealing; exact gains */
    CTXPROF_ICPP_SEARCH_GREEDY = 0, /* the former name of OURS */
    CTXPROF_ICPP_SEARCH_RANDOM = 1, /* the paper's random search (sec. 5.1.1) */
    CTXPROF_ICPP_SEARCH_NONE = 2    /* no padding: report only */
};

typedef struct ctxprof_icpp_pad_desc {
    int search;          /* CTXPROF_ICPP_SEARCH_* (default ours) */
    double max_growth;   /* largest padded height <= this x largest unpadded; default 1.2 for
                            ours, none for random (the paper's); >= 1e6 or inf: none */
    double target;       /* stop at this share of precise paths (default: 1 ours, 0.97 random) */
    uint64_t seed;       /* random choices (default 1); the result is deterministic */
    unsigned max_units;  /* largest pad of one function, 16-byte units (default 256:
                            4 KiB; at most 65536; the paper's random search has no such
                            bound: 65536 comes closest, and can run for hours on maps of
                            10^4 paths); above 256 a sweep scans a function's values as
                            far as its share of the budget reaches, at least 256 */
    unsigned long max_iterations; /* random: iterations without progress (default 2000, paper) */
    int wrap;            /* also choose call-site wraps for pairs padding cannot separate */
    uint64_t budget;     /* ours: unit moves evaluated (default 1.2e9, seconds) */
    size_t max_pairs;    /* inseparable pairs kept as examples (default 32): permutations first */
} ctxprof_icpp_pad_desc;

typedef struct ctxprof_icpp_pad_report {
    size_t paths;               /* path entries in the map */
    double precise_before;      /* share of paths with a unique CID, unpadded */
    double precise_after;       /* the same with the padding */
    double ambiguity_le2_after; /* share sharing their CID with at most one other path */
    double max_stack_growth;    /* largest padded height / largest unpadded height */
    double inseparable;         /* share no padding can make unique (same functions, height) */
    double precise_bound;       /* 1 - inseparable: the most padding can reach */
    double precise_after_wrap;  /* with the call-site wraps too (when desc.wrap) */
    size_t functions_padded;    /* functions with a pad > 0 */
    size_t sites_wrapped;       /* edges with a wrap > 0 */
    size_t pairs_permutation;   /* inseparable pairs with other edges: call-site wrapping fixes */
    size_t pairs_identical_edges; /* inseparable pairs with the same edges: cloning needed */
    size_t walk_depth_max;      /* frames a sequential partial walk needs at most, after padding */
    double walk_depth_mean;     /* mean over the ambiguous paths a walk separates */
    uint64_t max_height_before, max_height_after;
    unsigned long moves;        /* search moves evaluated */
    double seconds;             /* search time, CPU seconds */
    size_t walk_reads_max;      /* frames targeted reads (ctxprof_icpp_resolve) need at most */
    double walk_reads_mean;     /* mean over the ambiguous paths a walk separates */
    double walk_separable;      /* share of the ambiguous paths a walk separates */
    double precise_bound_capped; /* the most padding can reach within the cap and max_units
                                    (<= precise_bound; a bound, not always reachable) */
} ctxprof_icpp_pad_report;

struct ctxprof__icpp_padres;
typedef struct ctxprof_icpp_pads {
    ctxprof_icpp_pad_report report;
    /* private: */
    struct ctxprof__icpp_padres *d;
} ctxprof_icpp_pads;

/* Computes the padding of a map's functions. A function's clones
   (f.constprop.0, f.isra.0, f.cold) share f's pad: the macro pads them
   all. Deterministic for a given map and desc. Allocates. */
CTXPROF_API int ctxprof_icpp_pad_compute(const ctxprof_icpp_map *m,
                                         const ctxprof_icpp_pad_desc *desc,
                                         ctxprof_icpp_pads *out, ctxprof_error *err);
CTXPROF_API void ctxprof_icpp_pads_deinit(ctxprof_icpp_pads *p);
/* Pad of a function (by source name), in 16-byte units. */
CTXPROF_API unsigned ctxprof_icpp_pads_units(const ctxprof_icpp_pads *p, const char *func);
/* Wrap of the edge caller -> callee, in 16-byte units. */
CTXPROF_API unsigned ctxprof_icpp_pads_wrap_units(const ctxprof_icpp_pads *p, const char *caller,
                                                  const char *callee);
/* The report as "key=value" lines (then "# pair ..." comment lines naming
   up to max_pairs of the desc.max_pairs example pairs: the permutations
   first, each with an edge whose call sites a wrap separates them by, then
   identical edges; the common prefix of the two paths is written once,
   elided in the middle) into buf; returns the full length (snprintf-like). */
CTXPROF_API size_t ctxprof_icpp_pads_report_text(const ctxprof_icpp_pads *p, size_t max_pairs,
                                                 char *buf, size_t size);
/* The C header of CTXPROF_PAD_<function> / CTXPROF_WRAP_<caller>__<callee>
   lines; *out from CTXPROF_MALLOC (free with free() unless overridden). */
CTXPROF_API int ctxprof_icpp_pads_emit(const ctxprof_icpp_pads *p, const char *input_name,
                                       const char *output_name, char **out, size_t *out_len,
                                       ctxprof_error *err);

/* --- timer sampler (paper 6.2) ------------------------------------------ */

typedef struct ctxprof_icpp_sample {
    uintptr_t pc, sp, fp; /* interrupted registers */
    uint64_t height;      /* base - sp, or CTXPROF_ICPP_NO_HEIGHT (no base, or SP off the
                             thread's stack: a coroutine's, sigaltstack). Resolve again with
                             base = sp + height and this fp: the CFA height needs fp */
    uint64_t truth;       /* ctxprof_icpp_train_current() then (0 when not training) */
    int32_t tid;          /* kernel thread id */
    uint32_t weight;      /* timer periods this sample stands for (1 + overruns) */
    int32_t kind;         /* with desc.map: the resolution's kind, else -1 */
    uint32_t path;        /* with desc.map: the path when PRECISE */
    uint32_t degree, walked;
    ctxprof_icpp_frames frames; /* desc.save_frames frames of the frame-pointer chain, or
                                   with desc.save_targeted the words the resolution read */
    uint32_t ready;       /* 1 once written */
} ctxprof_icpp_sample;

/* The sampler's highest rate. Each period is one signal, and a signal costs
   2-25 us (ctxprof_pebs.h's signal mode measured the same): at 50 us periods
   a thread spends up to half its time in the handler, and at 200 kHz it never
   leaves it. */
#define CTXPROF_ICPP_SAMPLER_MAX_HZ 20000u

typedef struct ctxprof_icpp_sampler_desc {
    unsigned hz;             /* per thread rate (default 1000, at most
                                CTXPROF_ICPP_SAMPLER_MAX_HZ); CPU-time timers fire on
                                kernel ticks (often 250 Hz): missed periods go in weight */
    int wall;                /* 1: wall-clock timer (CLOCK_MONOTONIC, exact rate, counts
                                blocked time too) instead of the thread's CPU time */
    size_t capacity;         /* samples kept (default 65536); later ones dropped and counted */
    unsigned save_frames;    /* frames copied per sample, <= CTXPROF_ICPP_FRAMES (default 0) */
    const ctxprof_icpp_map *map; /* bound map: resolve in the handler (walks <= max_walk) */
    unsigned max_walk;       /* frames the handler may read (default 64) */
    int signo;               /* default SIGPROF */
    int save_targeted;       /* with map: save the words the handler's targeted reads read (at
                                most save_frames, default CTXPROF_ICPP_FRAMES): the few frames
                                where the candidates differ, enough for ctxprof_icpp_resolve
                                to resolve the sample again offline; the first frames of the
                                chain when the handler had to walk it */
} ctxprof_icpp_sampler_desc;

typedef struct ctxprof_icpp_sampler {
    ctxprof_icpp_sample *samples; /* the first ctxprof_icpp_sampler_count() are written */
    size_t capacity;
    /* private: */
    ctxprof_icpp_sampler_desc desc;
    uint64_t next, dropped, nobase;
    int installed;
} ctxprof_icpp_sampler;

/* Allocates the buffer and installs the signal handler (process-wide; one
   sampler at a time). Then every thread to sample calls attach. The
   handler takes the signals the sampler's timers raise; others (the
   program's own timer, kill) go to the handler the program had installed
   for the signal, if any, else are samples too. Setting another
   disposition while a sampler is active loses its samples. While one is
   active, init is refused with CTXPROF_ERR_INVAL (on that sampler too:
   "initialised and active already"); deinit it first. */
CTXPROF_API int ctxprof_icpp_sampler_init(ctxprof_icpp_sampler *s,
                                          const ctxprof_icpp_sampler_desc *desc,
                                          ctxprof_error *err);
/* Starts a CPU-time timer for the calling thread (timer_create with
   CLOCK_THREAD_CPUTIME_ID, signal directed to this thread). */
CTXPROF_API int ctxprof_icpp_sampler_attach(ctxprof_icpp_sampler *s, ctxprof_error *err);
/* Stops the calling thread's timer. A thread that exits without it leaves
   a timer that the next attach or deinit deletes (or the attach of a new
   thread that reuses its id). */
CTXPROF_API void ctxprof_icpp_sampler_detach(ctxprof_icpp_sampler *s);
/* Samples written so far (ready ones; the buffer never wraps). */
CTXPROF_API size_t ctxprof_icpp_sampler_count(const ctxprof_icpp_sampler *s);
/* Samples dropped because the buffer was full. */
CTXPROF_API uint64_t ctxprof_icpp_sampler_dropped(const ctxprof_icpp_sampler *s);
/* Deactivates and frees: deletes every thread's timer (detach the live
   ones first; a thread that did not attaches anew to the next sampler),
   discards the signals they left pending (other pending instances of the
   signal too) and puts back the disposition that init replaced, unless
   the program has set another since. Does nothing unless s is the active
   sampler (e.g. one whose init was refused). */
CTXPROF_API void ctxprof_icpp_sampler_deinit(ctxprof_icpp_sampler *s);

#ifdef __cplusplus
CTXPROF__CXX_QUIET_END
}
#endif

#endif /* CTXPROF_H_INCLUDED */

/* ======================================================================== */
/*                              IMPLEMENTATION                              */
/* ======================================================================== */

#if (defined(CTXPROF_IMPLEMENTATION) || defined(CTXPROF_CORE_IMPLEMENTATION)) &&                   \
    !defined(CTXPROF__CORE_IMPL_DONE)
#define CTXPROF__CORE_IMPL_DONE

#if (defined(__STRICT_ANSI__) && !defined(_POSIX_C_SOURCE) && !defined(_XOPEN_SOURCE) &&         \
     !defined(_GNU_SOURCE) && !defined(_DEFAULT_SOURCE)) ||                                        \
    (defined(_POSIX_C_SOURCE) && _POSIX_C_SOURCE < 200809L && !defined(_GNU_SOURCE)) ||             \
    (defined(_XOPEN_SOURCE) && _XOPEN_SOURCE < 700 && !defined(_GNU_SOURCE))
#error "ctxprof: the implementation needs POSIX.1-2008; compile this TU with -std=gnu11 (or gnu99), or define _POSIX_C_SOURCE 200809L before any #include"
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Outside -finstrument-functions: code the hooks call. */
#if defined(__GNUC__) || defined(__clang__)
#define CTXPROF__NOINSTR __attribute__((no_instrument_function))
#else
#define CTXPROF__NOINSTR
#endif

#if defined(__GLIBC__)
#include <execinfo.h>
#endif

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
CTXPROF__CXX_QUIET_BEGIN
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

/* qsort order of uint64_t values, ascending. */
CTXPROF__PRIV int ctxprof__u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
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

/* Writes all of len bytes to fd; 0, or the errno of the failure (ENOSPC
   when the writer makes no progress). */
CTXPROF__PRIV int ctxprof__write_all(int fd, const unsigned char *p, size_t len)
{
    while (len > 0) {
        long n = ctxprof__io_write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? errno : ENOSPC;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Atomic replace, in two halves so that a writer can stream: open makes a
   temporary file beside path (fd), commit fsyncs it and renames it over
   path. On any failure path is untouched and the temporary removed. A new
   file gets 0666 less the umask; a replaced one keeps its mode. A symbolic
   link is followed (its target is replaced, the link kept). An existing
   path that is not a regular file (/dev/null, a FIFO, a terminal) is
   written in place: there is nothing to replace atomically; so are
   /dev/stdout and /dev/stderr, through the process's own descriptor. */
typedef struct ctxprof__atomic_file {
    int fd;
    char tmp[4096]; /* empty when writing in place */
    char dst[4096];
} ctxprof__atomic_file;

CTXPROF__PRIV int ctxprof__atomic_open(ctxprof__atomic_file *af, const char *path,
                                       ctxprof_error *err)
{
    char link[4096];
    static unsigned seq;
    struct stat sb;
    int e = 0, tries, hops;
    mode_t mode = 0666; /* narrowed by the umask, like any new file */
    af->fd = -1;
    af->tmp[0] = '\0';
    if (!path || !*path)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "no file name");
    if (strlen(path) >= sizeof af->dst)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "%s: path too long", path);
    strcpy(af->dst, path);
    if (strcmp(path, "/dev/stdout") == 0 || strcmp(path, "/dev/stderr") == 0) {
        /* the process's own stream, whatever it is (a pipe's link leads to
           "pipe:[...]", and a file must not be replaced under its shell) */
        af->fd = dup(strcmp(path, "/dev/stdout") == 0 ? 1 : 2);
        return af->fd < 0 ? ctxprof__fail(err, CTXPROF_ERR_SYS, errno, "%s: write failed", path)
                          : CTXPROF_OK;
    }
    for (hops = 0; hops < 16 && lstat(af->dst, &sb) == 0 && S_ISLNK(sb.st_mode); hops++) {
        ssize_t n = readlink(af->dst, link, sizeof link - 1);
        char *slash = strrchr(af->dst, '/');
        if (n <= 0)
            break;
        link[n] = '\0';
        if (link[0] == '/' || !slash) /* absolute, or relative to the cwd's dir */
            snprintf(af->dst, sizeof af->dst, "%s", link);
        else if ((size_t)(slash - af->dst) + 1 + (size_t)n < sizeof af->dst)
            memcpy(slash + 1, link, (size_t)n + 1); /* relative to the link's directory */
        else
            return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "%s: path too long", path);
    }
    if (stat(af->dst, &sb) == 0 && !S_ISREG(sb.st_mode)) {
        af->fd = open(af->dst, O_WRONLY | O_CLOEXEC);
        return af->fd < 0 ? ctxprof__fail(err, CTXPROF_ERR_SYS, errno, "%s: write failed", path)
                          : CTXPROF_OK;
    }
    if (stat(af->dst, &sb) == 0)
        mode = sb.st_mode & 07777; /* a replaced file keeps its permissions */
    for (tries = 0; tries < 100 && af->fd < 0; tries++) {
        unsigned n = __atomic_add_fetch(&seq, 1u, __ATOMIC_RELAXED);
        if ((size_t)snprintf(af->tmp, sizeof af->tmp, "%s.tmp%ld.%u", af->dst, (long)getpid(),
                             n) >= sizeof af->tmp)
            return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "%s: path too long", path);
        af->fd = open(af->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
        e = errno;
        if (af->fd < 0 && e != EEXIST)
            break;
    }
    if (af->fd < 0)
        return ctxprof__fail(err, CTXPROF_ERR_SYS, e, "%s: cannot create temporary file",
                             path);
    if (mode != 0666)
        fchmod(af->fd, mode);
    return CTXPROF_OK;
}

/* Finishes what open began; e is the errno that writing met (0: all was
   written), and path the name to report. */
CTXPROF__PRIV int ctxprof__atomic_commit(ctxprof__atomic_file *af, int e, const char *path,
                                         ctxprof_error *err)
{
    int in_place = af->tmp[0] == '\0';
    if (!e && !in_place && fsync(af->fd) != 0)
        e = errno;
    if (close(af->fd) != 0 && !e)
        e = errno;
    af->fd = -1;
    if (in_place)
        return e ? ctxprof__fail(err, CTXPROF_ERR_SYS, e, "%s: write failed", path) : CTXPROF_OK;
    if (!e && rename(af->tmp, af->dst) != 0)
        e = errno;
    if (e)
        unlink(af->tmp);
    return e ? ctxprof__fail(err, CTXPROF_ERR_SYS, e, "%s: write failed, file left unchanged", path)
             : CTXPROF_OK;
}

CTXPROF__PRIV int ctxprof__write_file_atomic(const char *path, const void *data, size_t len,
                                             ctxprof_error *err)
{
    ctxprof__atomic_file af;
    int rc = ctxprof__atomic_open(&af, path, err);
    if (rc != CTXPROF_OK)
        return rc;
    return ctxprof__atomic_commit(&af, ctxprof__write_all(af.fd, (const unsigned char *)data, len),
                                  path, err);
}

/* Writes a buffer to path, "-" meaning standard output (the tools' -o -);
   a file is replaced atomically. */
CTXPROF__PRIV int ctxprof__write_out(const char *path, const void *data, size_t len,
                                     ctxprof_error *err)
{
    if (path && strcmp(path, "-") == 0) {
        int e = ctxprof__write_all(1, (const unsigned char *)data, len);
        return e ? ctxprof__fail(err, CTXPROF_ERR_SYS, e, "<stdout>: write failed") : CTXPROF_OK;
    }
    return ctxprof__write_file_atomic(path, data, len, err);
}

/* Reads a whole file ("-": standard input) into a NUL-terminated buffer
   from CTXPROF_MALLOC. A file is closed after, standard input is not; they
   are told apart by the name, not by the descriptor: with standard input
   closed (a daemon), open may return 0 for the file. */
CTXPROF__PRIV int ctxprof__read_file(const char *path, char **out, size_t *out_len, void *ud,
                              ctxprof_error *err)
{
    int fd, is_stdin;
    char *buf = NULL;
    size_t cap = 0, len = 0;
    *out = NULL;
    *out_len = 0;
    if (!path)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "no file name");
    is_stdin = strcmp(path, "-") == 0;
    fd = is_stdin ? 0 : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return ctxprof__fail(err, CTXPROF_ERR_SYS, errno, "%s", path);
    for (;;) {
        ssize_t n;
        if (cap - len < 2 &&
            ctxprof__reserve((void **)&buf, &cap, len, len + 65536, 1, ud) != CTXPROF_OK) {
            if (!is_stdin)
                close(fd);
            ctxprof__free(buf, ud);
            return ctxprof__fail(err, CTXPROF_ERR_NOMEM, 0, "%s: out of memory", path);
        }
        n = read(fd, buf + len, cap - len - 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int e = errno;
            if (!is_stdin)
                close(fd);
            ctxprof__free(buf, ud);
            return ctxprof__fail(err, CTXPROF_ERR_SYS, e, "%s: read failed", path);
        }
        if (n == 0)
            break;
        len += (size_t)n;
    }
    if (!is_stdin)
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

/* Reads up to len bytes; the count read (short only at end of file), or -1
   with errno set. */
CTXPROF__PRIV long ctxprof__read_full(int fd, unsigned char *p, size_t len)
{
    size_t got = 0;
    while (got < len) {
        ssize_t n = read(fd, p + got, len - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        if (n == 0)
            break;
        got += (size_t)n;
    }
    return (long)got;
}

/* Reads a container file image (*out from CTXPROF_MALLOC, *size bytes):
   the 64-byte header first, so that what is no ctxprof file (a device such
   as /dev/zero, a text file) is refused after 64 bytes and a header that
   announces another size than a regular file has is refused before the
   payload is read; then exactly the announced payload, and one byte more
   to see that the input ends there. From a pipe the buffer grows with
   what arrives, so a false length costs no more memory than the data
   sent. The caller then checks the whole image with ctxprof__blob_open.
   "-" is standard input, which is left open (see ctxprof__read_file). */
CTXPROF__PRIV int ctxprof__blob_read(const char *path, void *ud, unsigned char **out, size_t *size,
                                     ctxprof_error *err)
{
    unsigned char hdr[CTXPROF__BLOB_HDR], *buf = NULL, extra;
    uint64_t plen = 0, have = 0;
    size_t got = 0, cap;
    const char *more = "";
    struct stat sb;
    long n;
    int fd, e = 0, reg, huge, is_stdin, rc = CTXPROF_OK;
    *out = NULL;
    *size = 0;
    if (!path)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "no file name");
    is_stdin = strcmp(path, "-") == 0;
    fd = is_stdin ? 0 : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return ctxprof__fail(err, CTXPROF_ERR_SYS, errno, "%s", path);
    n = ctxprof__read_full(fd, hdr, sizeof hdr);
    if (n < 0) {
        rc = ctxprof__fail(err, CTXPROF_ERR_SYS, errno, "%s: read failed", path);
        goto done;
    }
    if ((size_t)n < sizeof hdr || memcmp(hdr, "CTXPROF", 8) != 0) {
        rc = ctxprof__fail(err, CTXPROF_ERR_CORRUPT, 0,
                           (size_t)n < sizeof hdr ? "%s: truncated header"
                                                  : "%s: not a ctxprof file (bad magic)",
                           path);
        goto done;
    }
    plen = ctxprof__get64(hdr + 48);
    reg = fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode);
    have = plen;
    if (reg) /* the size check of blob_open, before anything is allocated */
        have = sb.st_size >= (off_t)sizeof hdr ? (uint64_t)sb.st_size - sizeof hdr : 0;
    /* a length no buffer can hold: refused unread (with the real size of a
       regular file in the message, else with the length alone) */
    huge = plen > (uint64_t)(SIZE_MAX / 2 - sizeof hdr);
    if (have == plen && !huge) {
        cap = reg || plen < 65536 ? (size_t)plen : 65536;
        for (;;) {
            unsigned char *nb = (unsigned char *)ctxprof__alloc(sizeof hdr + cap, 1, ud);
            if (!nb) {
                rc = ctxprof__fail(err, CTXPROF_ERR_NOMEM, 0, "%s: out of memory", path);
                goto done;
            }
            memcpy(nb, buf ? buf : hdr, sizeof hdr + got);
            ctxprof__free(buf, ud);
            buf = nb;
            n = ctxprof__read_full(fd, buf + sizeof hdr + got, cap - got);
            if (n < 0) {
                e = errno;
                break;
            }
            got += (size_t)n;
            if (got < cap || got == plen)
                break; /* the end of the input, or all that was announced */
            cap = plen - cap < cap ? (size_t)plen : 2 * cap;
        }
        have = got;
        if (!e && got == plen && ctxprof__read_full(fd, &extra, 1) > 0) {
            have = plen + 1; /* a device, a pipe, or a file growing under us */
            more = "at least ";
        }
    }
    if (e)
        rc = ctxprof__fail(err, CTXPROF_ERR_SYS, e, "%s: read failed", path);
    else if (huge && (!reg || have == plen))
        rc = ctxprof__fail(err, CTXPROF_ERR_CORRUPT, 0,
                           "%s: header says the payload is %llu bytes, more than can be read", path,
                           (unsigned long long)plen);
    else if (have != plen)
        rc = ctxprof__fail(err, CTXPROF_ERR_CORRUPT, 0,
                           "%s: payload is %s%llu bytes, header says %llu (%s)", path, more,
                           (unsigned long long)have, (unsigned long long)plen,
                           have < plen ? "truncated?" : "data after it");
done:
    if (!is_stdin)
        close(fd);
    if (rc) {
        ctxprof__free(buf, ud);
        return rc;
    }
    *out = buf;
    *size = sizeof hdr + (size_t)plen;
    return CTXPROF_OK;
}

/* ==== core: text input ====

   Line reader shared by every text format (call graphs, path maps): '#'
   starts a comment, blank lines are skipped, tokens are separated by blanks.
   The buffer is modified in place (tokens are NUL-terminated). */

/* A NUL byte in a text input (which C string functions would silently
   cut the line at): CTXPROF_ERR_PARSE with its place, saying that the
   input is not a `what`. */
CTXPROF__PRIV int ctxprof__text_nul(const char *buf, size_t len, const char *path,
                                    const char *what, ctxprof_error *err)
{
    const char *nul = (const char *)memchr(buf, '\0', len), *s;
    unsigned line = 1, col = 1;
    if (!nul)
        return CTXPROF_OK;
    for (s = buf; s < nul; s++, col++)
        if (*s == '\n') {
            line++;
            col = 0;
        }
    return ctxprof__fail(err, CTXPROF_ERR_PARSE, 0, "%s:%u:%u: NUL byte in the input (not %s)",
                         path, line, col, what);
}

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

/* ==== core: the process's mappings ==== */

typedef struct ctxprof__mapping {
    uintptr_t start, end; /* [start, end) */
    uintptr_t prev_end;   /* end of the mapping listed before it (0: none) */
    int stack;            /* the main thread's "[stack]" */
    int deleted;          /* its file was deleted or replaced since ("(deleted)") */
} ctxprof__mapping;

CTXPROF__NOINSTR CTXPROF__PRIV uintptr_t ctxprof__hex_prefix(const char **c)
{
    uintptr_t v = 0;
    for (; (**c >= '0' && **c <= '9') || (**c >= 'a' && **c <= 'f'); (*c)++)
        v = v * 16 + (uintptr_t)(**c <= '9' ? **c - '0' : **c - 'a' + 10);
    return v;
}

/* The mapping holding addr, from /proc/self/maps, and (path, cap bytes,
   when not NULL) the file mapped there: "" when anonymous or longer than
   cap; the path it had when deleted. Read with open/read into stack
   buffers: signal-safe, no allocation. 1 when found, 0 when not (or no
   /proc). */
CTXPROF__NOINSTR CTXPROF__PRIV int ctxprof__mapping_at(uintptr_t addr, ctxprof__mapping *m,
                                                       char *path, size_t cap)
{
    char buf[512], line[4096 + 128];
    size_t ln = 0;
    uintptr_t prev_end = 0;
    ssize_t n, j;
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC), found = 0;
    if (path && cap)
        path[0] = '\0';
    if (fd < 0)
        return 0;
    while (!found && (n = read(fd, buf, sizeof buf)) > 0) {
        for (j = 0; j < n && !found; j++) {
            const char *c = line, *file;
            int field;
            if (buf[j] != '\n') {
                if (ln < sizeof line - 1)
                    line[ln++] = buf[j];
                continue;
            }
            line[ln] = '\0';
            ln = 0;
            m->start = ctxprof__hex_prefix(&c);
            if (*c++ != '-')
                continue;
            m->end = ctxprof__hex_prefix(&c);
            m->prev_end = prev_end;
            prev_end = m->end;
            if (addr < m->start || addr >= m->end)
                continue;
            found = 1;
            for (field = 0; field < 4 && *c; field++) { /* perms, offset, device, inode */
                while (*c == ' ')
                    c++;
                while (*c && *c != ' ')
                    c++;
            }
            while (*c == ' ')
                c++;
            file = c;
            m->stack = strcmp(file, "[stack]") == 0;
            {
                size_t fl = strlen(file), dl = sizeof " (deleted)" - 1;
                m->deleted = fl > dl && strcmp(file + fl - dl, " (deleted)") == 0;
                if (m->deleted)
                    fl -= dl;
                if (path && file[0] == '/' && fl < cap) {
                    memcpy(path, file, fl);
                    path[fl] = '\0';
                }
            }
        }
    }
    close(fd);
    return found;
}

/* The lowest address a stack in mapping m can reach: its start; for the
   main thread's "[stack]", which grows down on demand, the end of the
   mapping below it. */
CTXPROF__NOINSTR CTXPROF__PRIV uintptr_t ctxprof__mapping_stack_lo(const ctxprof__mapping *m)
{
    return m->stack ? m->prev_end : m->start;
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
    uintptr_t cap;        /* sizeless: where its section ends (0 unknown) */
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
   function symbols), or CTXPROF_ERR_NOMEM. Section headers that describe
   a table already read (same symbols, same strings) are skipped. What one
   image adds is bounded by its size: more than CTXPROF__ELF_MAX_SYMTABS
   distinct symbol tables, more symbol entries than the image holds, or
   names adding up to more than twice its size (one long name shared by
   many symbols) make the image corrupt, and nothing of it is kept. */
#define CTXPROF__ELF_MAX_SYMTABS 8
CTXPROF__PRIV long ctxprof__symtab_add_elf(ctxprof_symtab *st, const ctxprof__elfsrc *src,
                                           uintptr_t bias, const uintptr_t *xr, size_t nx,
                                           uint32_t obj)
{
    unsigned char eh[64], *sh = NULL, *strs = NULL, *chunk = NULL;
    uint64_t shoff, shnum, i, entries = 0, seen[CTXPROF__ELF_MAX_SYMTABS][4];
    size_t count0 = st->count, names0 = st->names_len, nseen = 0, q;
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
            for (q = 0; q < nseen; q++)
                if (seen[q][0] == off && seen[q][1] == size && seen[q][2] == stroff &&
                    seen[q][3] == strsize)
                    break;
            if (q < nseen)
                continue; /* another header of a table already read */
            entries += size / 24;
            if (nseen == CTXPROF__ELF_MAX_SYMTABS || entries > src->size / 24)
                goto corrupt;
            seen[nseen][0] = off;
            seen[nseen][1] = size;
            seen[nseen][2] = stroff;
            seen[nseen++][3] = strsize;
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
                    uint64_t sec = ctxprof__get16(y + 6);
                    e->start = addr;
                    e->end = sz && sz <= (uint64_t)(UINTPTR_MAX - addr) ? addr + (uintptr_t)sz : 0;
                    e->cap = 0;
                    if (!e->end && sec < shnum) { /* e.g. _init: .init, not the .plt after it */
                        uint64_t sa = ctxprof__get64(sh + sec * 64 + 16);
                        uint64_t ss = ctxprof__get64(sh + sec * 64 + 32);
                        if (value >= sa && value - sa < ss && ss <= UINT64_MAX - sa &&
                            sa + ss <= UINTPTR_MAX - bias)
                            e->cap = (uintptr_t)(sa + ss) + bias;
                    }
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
                if ((st->names_len - names0) / 2 > src->size)
                    goto corrupt;
            }
        }
    }
    goto done;
corrupt:
    st->count = count0;
    st->names_len = names0;
    added = 0;
done:
    ctxprof__free(sh, NULL);
    ctxprof__free(strs, NULL);
    ctxprof__free(chunk, NULL);
    return added;
}

/* The GNU build id among the notes [q, end) into out[40]: its length, 0 if none. */
CTXPROF__PRIV size_t ctxprof__note_build_id(const unsigned char *q, const unsigned char *end,
                                            unsigned char *out)
{
    while (end - q >= 12) {
        uint32_t namesz = ctxprof__get32(q), descsz = ctxprof__get32(q + 4);
        uint32_t type = ctxprof__get32(q + 8);
        size_t na = ((size_t)namesz + 3) & ~(size_t)3, da = ((size_t)descsz + 3) & ~(size_t)3;
        if (na > (size_t)(end - q - 12) || da > (size_t)(end - q - 12) - na)
            break;
        if (type == 3 && namesz == 4 && memcmp(q + 12, "GNU", 4) == 0 && descsz > 0 &&
            descsz <= 40) {
            memcpy(out, q + 12 + na, descsz);
            return descsz;
        }
        q += 12 + na + da;
    }
    return 0;
}

/* The build id in an ELF file's PT_NOTE segments (out[40]): its length, 0 if none. */
CTXPROF__PRIV size_t ctxprof__elf_build_id(const ctxprof__elfsrc *src, unsigned char *out)
{
    unsigned char eh[64], ph[56], note[4096];
    uint64_t phoff;
    unsigned i, phnum;
    if (ctxprof__elf_read(src, 0, eh, sizeof eh) || memcmp(eh, "\177ELF", 4) != 0 || eh[4] != 2 ||
        eh[5] != 1 || ctxprof__get16(eh + 54) != sizeof ph)
        return 0;
    phoff = ctxprof__get64(eh + 32);
    phnum = ctxprof__get16(eh + 56);
    if (phoff > src->size)
        return 0;
    for (i = 0; i < phnum; i++) {
        size_t len;
        if (ctxprof__elf_read(src, phoff + (uint64_t)i * sizeof ph, ph, sizeof ph))
            return 0;
        if (ctxprof__get32(ph) != 4) /* PT_NOTE */
            continue;
        len = ctxprof__get64(ph + 32) < sizeof note ? (size_t)ctxprof__get64(ph + 32) : sizeof note;
        if (ctxprof__elf_read(src, ctxprof__get64(ph + 8), note, len) == 0 &&
            (len = ctxprof__note_build_id(note, note + len, out)) != 0)
            return len;
    }
    return 0;
}

/* Adds the symbols of an ELF file (see ctxprof__symtab_add_elf); 0 when the
   file cannot be opened. With id (the loaded object's build id), a file
   with another build id is another build: a library replaced on disk
   while loaded (an upgrade renames a new file over it), whose symbols
   would name the wrong code. It is not read, and *stale is set. */
CTXPROF__PRIV long ctxprof__symtab_add_file(ctxprof_symtab *st, const char *path, uintptr_t bias,
                                            const uintptr_t *xr, size_t nx, uint32_t obj,
                                            const unsigned char *id, size_t id_len, int *stale)
{
    ctxprof__elfsrc src;
    struct stat sb;
    unsigned char fid[40];
    size_t fid_len;
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
    if (id_len && (fid_len = ctxprof__elf_build_id(&src, fid)) != 0 &&
        (fid_len != id_len || memcmp(fid, id, id_len) != 0)) {
        close(src.fd);
        *stale = 1;
        return 0;
    }
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
   sizeless symbols the extent up to the next one (or their section's end,
   if that comes first), and points each gcc cold
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
            if (st->syms[i].cap > st->syms[n - 1].cap)
                st->syms[n - 1].cap = st->syms[i].cap;
            continue;
        }
        st->syms[n++] = st->syms[i];
    }
    st->count = n;
    for (i = 0; i < n; i++)
        if (!st->syms[i].end) {
            st->syms[i].end = i + 1 < n && st->syms[i + 1].obj == st->syms[i].obj
                                  ? st->syms[i + 1].start
                                  : st->syms[i].start + 1;
            if (st->syms[i].cap && st->syms[i].cap < st->syms[i].end)
                st->syms[i].end = st->syms[i].cap; /* not past its section */
        }
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
    uintptr_t at;               /* its first PT_LOAD */
    int deleted;                /* its file is no longer at its path (/proc/self/maps) */
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
        if ((o->build_id_len = ctxprof__note_build_id(q, end, o->build_id)) != 0)
            return;
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
    for (i = 0; i < in->phnum && !o->at; i++)
        if (in->phdr[i].type == 1)
            o->at = in->addr + (uintptr_t)in->phdr[i].vaddr;
    if (!path || !*path) { /* the executable: dl_iterate_phdr lists it first, unnamed */
        ssize_t n = -1;
        ctxprof__mapping mp;
        /* the file mapped at its first PT_LOAD: /proc/self/exe names the
           loader when the program is run as "/lib64/ld-linux-x86-64.so.2 ./prog" */
        if (L->n == 0 && o->at && ctxprof__mapping_at(o->at, &mp, exe, sizeof exe) && exe[0]) {
            n = (ssize_t)strlen(exe);
            o->deleted = mp.deleted; /* the path names another file, or none */
        } else if (L->n == 0) {
            n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        }
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

/* The symbols of the file object o is mapped from, when its path names
   another file or none (deleted, or replaced by a rename): through
   /proc/self/map_files (which needs CAP_SYS_ADMIN or, since Linux 5.9,
   CAP_CHECKPOINT_RESTORE), and for the executable /proc/self/exe (the
   running file, unless the program was started through the loader: the
   build ids tell). *stale says whether the loaded file was not found. */
CTXPROF__PRIV long ctxprof__symtab_add_mapped(ctxprof_symtab *st, const ctxprof__loadobj *o,
                                              int exe, int *stale)
{
    ctxprof__mapping mp;
    char p[64];
    long got;
    int other = 0;
    if (!o->at || !ctxprof__mapping_at(o->at, &mp, NULL, 0))
        return 0;
    snprintf(p, sizeof p, "/proc/self/map_files/%lx-%lx", (unsigned long)mp.start,
             (unsigned long)mp.end);
    got = ctxprof__symtab_add_file(st, p, o->bias, o->xr, o->nx, o->obj, o->build_id,
                                   o->build_id_len, &other);
    if (got == 0 && exe)
        got = ctxprof__symtab_add_file(st, "/proc/self/exe", o->bias, o->xr, o->nx, o->obj,
                                       o->build_id, o->build_id_len, &other);
    if (got != 0)
        *stale = 0;
    else if (mp.deleted)
        *stale = 1;
    return got;
}

/* Loads every object of the process into st (zeroed by the caller). */
CTXPROF__PRIV uint64_t ctxprof__dl_changes(void);

CTXPROF__PRIV int ctxprof__symtab_load(ctxprof_symtab *st, ctxprof_error *err)
{
    ctxprof__loadlist L;
    size_t i;
    int rc = CTXPROF_OK;
    memset(&L, 0, sizeof L);
    L.st = st;
    st->dl_changes = ctxprof__dl_changes(); /* before: a change during the walk shows later */
    ctxprof__dl_iterate_phdr(ctxprof__symtab_collect, &L);
    if (L.n && L.v[0].build_id_len) { /* the executable is listed first */
        memcpy(st->build_id, L.v[0].build_id, L.v[0].build_id_len);
        st->build_id_len = L.v[0].build_id_len;
    }
    if (L.nomem) {
        rc = ctxprof__fail(err, CTXPROF_ERR_NOMEM, 0, "symbol table: out of memory");
        goto done;
    }
    for (i = 0; i < L.n; i++) {
        ctxprof__loadobj *o = &L.v[i];
        const char *path = st->names + st->objs[o->obj].path;
        long got = 0;
        int stale = o->deleted;
        if (o->build_id_len >= 2) { /* a detached debug file has the static functions */
            char dbg[128];
            size_t k, n = (size_t)snprintf(dbg, sizeof dbg, "/usr/lib/debug/.build-id/%02x/",
                                           o->build_id[0]);
            for (k = 1; k < o->build_id_len && n + 8 < sizeof dbg; k++)
                n += (size_t)snprintf(dbg + n, sizeof dbg - n, "%02x", o->build_id[k]);
            snprintf(dbg + n, sizeof dbg - n, ".debug");
            got = ctxprof__symtab_add_file(st, dbg, o->bias, o->xr, o->nx, o->obj, NULL, 0, NULL);
        }
        if (got == 0 && *path && !o->deleted)
            got = ctxprof__symtab_add_file(st, path, o->bias, o->xr, o->nx, o->obj, o->build_id,
                                           o->build_id_len, &stale);
        if (got == 0 && *path) /* not there, or not what is loaded */
            got = ctxprof__symtab_add_mapped(st, o, i == 0, &stale);
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
        if (got == 0) {
            st->skipped++;
            st->stale += (size_t)stale;
        }
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

#if defined(CTXPROF__HAVE_SYMTAB)
struct ctxprof__span {
    uintptr_t a, end;
    int found;
};

CTXPROF__PRIV int ctxprof__span_in(struct ctxprof__dl_info *in, size_t size, void *data)
{
    struct ctxprof__span *q = (struct ctxprof__span *)data;
    uint16_t i;
    (void)size;
    for (i = 0; i < in->phnum; i++) {
        const ctxprof__phdr *h = &in->phdr[i];
        uintptr_t lo = in->addr + (uintptr_t)h->vaddr;
        if (h->type == 1 /* PT_LOAD */ && q->a >= lo && q->end <= lo + (uintptr_t)h->memsz)
            return q->found = 1;
    }
    return 0;
}
#endif

#if defined(__linux__) && (defined(__GNUC__) || defined(__clang__))
/* syscall(2) is declared only under _DEFAULT_SOURCE; this is its symbol. */
extern long ctxprof__syscall(long number, ...) __asm__("syscall");
#if defined(__x86_64__)
#define CTXPROF__SYS_PROCESS_VM_READV 310
#elif defined(__aarch64__)
#define CTXPROF__SYS_PROCESS_VM_READV 270
#endif
#endif

/* Copies n bytes at src, which may not be mapped, to dst: returns the
   bytes copied (fewer from the first unmapped one), or -1 where that
   cannot be checked (process_vm_readv(2) on the process itself refused). */
CTXPROF__PRIV long ctxprof__copy_checked(void *dst, uintptr_t src, size_t n)
{
#if defined(CTXPROF__SYS_PROCESS_VM_READV)
    struct {
        void *base;
        size_t len;
    } l, r; /* struct iovec */
    long got;
    l.base = dst;
    l.len = n;
    r.base = (void *)src;
    r.len = n;
    got = ctxprof__syscall(CTXPROF__SYS_PROCESS_VM_READV, (long)getpid(), &l, 1L, &r, 1L, 0L);
    if (got >= 0)
        return got;
    return errno == EFAULT ? 0 : -1;
#else
    (void)dst;
    (void)src;
    (void)n;
    return -1;
#endif
}

/* Whether [a, a + len) lies in a segment of a loaded object: a pointer
   into a library that dlclose unloaded does not (1 where that cannot be
   known). Takes the dynamic linker's lock; not signal-safe. */
CTXPROF__PRIV int ctxprof__addr_loaded(uintptr_t a, size_t len)
{
#if defined(CTXPROF__HAVE_SYMTAB)
    struct ctxprof__span q;
    q.a = a;
    q.end = a + len;
    q.found = 0;
    if (q.end < a)
        return 0;
    ctxprof__dl_iterate_phdr(ctxprof__span_in, &q);
    return q.found;
#else
    (void)a;
    (void)len;
    return 1;
#endif
}

#if defined(CTXPROF__HAVE_SYMTAB)
struct ctxprof__dl_info_counts { /* struct dl_phdr_info up to dlpi_subs */
    struct ctxprof__dl_info head;
    unsigned long long adds, subs;
};

CTXPROF__PRIV int ctxprof__dl_count(struct ctxprof__dl_info *in, size_t size, void *data)
{
    const struct ctxprof__dl_info_counts *c = (const struct ctxprof__dl_info_counts *)in;
    if (size >= sizeof *c)
        *(uint64_t *)data = (uint64_t)(c->adds + c->subs);
    return 1; /* every entry has the same counts */
}
#endif

/* The dynamic linker's count of objects loaded and unloaded so far: a
   symbol table read at another count may name addresses wrongly.
   UINT64_MAX when unknown. Takes the dynamic linker's lock. */
CTXPROF__PRIV uint64_t ctxprof__dl_changes(void)
{
    uint64_t n = UINT64_MAX;
#if defined(CTXPROF__HAVE_SYMTAB)
    ctxprof__dl_iterate_phdr(ctxprof__dl_count, &n);
#endif
    return n;
}

/* What a live object's `live` field holds (symbol tables, PCC sets, HCCT
   trees): its own address, mixed, so that neither a zeroed object nor
   garbage plausibly matches it: odd, so never 0 (pointers are aligned);
   other bytes match by chance with probability 2^-64 (2^-32 with 32-bit
   pointers). */
#define CTXPROF__LIVE_TAG(p) (CTXPROF__UINTPTR(p) ^ (uintptr_t)0x9E3779B97F4A7C15u)

CTXPROF_DEF int ctxprof_symtab_init(ctxprof_symtab *st, ctxprof_error *err)
{
    int rc;
    ctxprof__error_clear(err);
    if (!st)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "symbol table: NULL argument");
    if (st->live == CTXPROF__LIVE_TAG(st))
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0,
                             "symbol table: already initialised: ctxprof_symtab_deinit first "
                             "(or ctxprof_symtab_reload)");
    memset(st, 0, sizeof *st);
#if defined(CTXPROF__HAVE_SYMTAB)
    rc = ctxprof__symtab_load(st, err);
#else
    rc = ctxprof__fail(err, CTXPROF_ERR_UNSUPPORTED, 0,
                       "symbol table: needs 64-bit little-endian Linux with gcc or clang");
#endif
    if (rc)
        ctxprof_symtab_deinit(st);
    else
        st->live = CTXPROF__LIVE_TAG(st);
    return rc;
}

CTXPROF_DEF int ctxprof_symtab_reload(ctxprof_symtab *st, ctxprof_error *err)
{
    ctxprof_symtab fresh;
    int rc;
    ctxprof__error_clear(err);
    if (!st)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "symbol table: NULL argument");
    memset(&fresh, 0, sizeof fresh); /* a stack slot a former reload's table moved from */
    rc = ctxprof_symtab_init(&fresh, err);
    if (rc)
        return rc;
    ctxprof_symtab_deinit(st);
    *st = fresh;
    st->live = CTXPROF__LIVE_TAG(st);
    *(volatile uintptr_t *)&fresh.live = 0; /* moved: the slot holds no table (kept store) */
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

/* The C++ runtime's demangler, if the process has one (weak: a C program
   links without it). Under its own name, so no declaration of <cxxabi.h>
   can clash. */
#if defined(__GNUC__) || defined(__clang__)
extern char *ctxprof__cxa_demangle(const char *mangled, char *out, size_t *len, int *status)
    __asm__("__cxa_demangle") __attribute__((weak));
#define CTXPROF__HAVE_DEMANGLER() (ctxprof__cxa_demangle != NULL)
#else
#define CTXPROF__HAVE_DEMANGLER() 0
#define ctxprof__cxa_demangle(m, o, l, s) ((char *)NULL)
#endif

/* A C++ name as source spells it, whole (a template's runs to kilobytes),
   from the C++ runtime's allocator (release with free); NULL for a name that
   is not mangled or without a demangler. */
CTXPROF__PRIV char *ctxprof__demangle_alloc(const char *name)
{
    char *d;
    int status = -1;
    if (name[0] != '_' || name[1] != 'Z' || !CTXPROF__HAVE_DEMANGLER())
        return NULL;
    d = ctxprof__cxa_demangle(name, NULL, NULL, &status);
    if (d && status != 0) {
        free(d);
        d = NULL;
    }
    return d;
}

CTXPROF_DEF const char *ctxprof_demangle(const char *name, char *buf, size_t cap)
{
    char *d = name && cap ? ctxprof__demangle_alloc(name) : NULL;
    if (!d)
        return name;
    snprintf(buf, cap, "%s", d);
    free(d);
    return buf;
}

/* ==== pcc: implementation ==== */

#ifndef CTXPROF__DECL_DEFINES
CTXPROF_DEF CTXPROF_TLS ctxprof_pcc ctxprof_pcc_tls CTXPROF__TLS_MODEL;
CTXPROF_DEF CTXPROF_TLS unsigned ctxprof__pcc_stripe CTXPROF__TLS_MODEL;
#endif
static unsigned ctxprof__pcc_stripes_given;

CTXPROF_DEF unsigned ctxprof__pcc_stripe_assign(void)
{
    unsigned s = __atomic_add_fetch(&ctxprof__pcc_stripes_given, 1u, __ATOMIC_RELAXED);
    if (s == 0) /* wrapped after 2^32 threads */
        s = __atomic_add_fetch(&ctxprof__pcc_stripes_given, 1u, __ATOMIC_RELAXED);
    ctxprof__pcc_stripe = s;
    return s;
}

/* Of the call-site hash; stored in set files. 1 and 2 hashed only the first
   32 characters of the file name (1: full-width ids, 2: 32-bit ids in 64-bit
   values); 3 and 4 hash the last 32 too (3: full-width, 4: 32-bit ids in
   64-bit values). */
#if CTXPROF_SITE_BITS == 32 && CTXPROF_CTX_BITS == 64
#define CTXPROF_PCC_SITE_VERSION 4
#else
#define CTXPROF_PCC_SITE_VERSION 3
#endif

CTXPROF_DEF ctxprof_ctx ctxprof_pcc_site_id(const char *file, unsigned long line,
                                            unsigned long disc, uint64_t seed)
{
    /* Same arithmetic as CTXPROF__FNAME and ctxprof_pcc_site_mix. */
    size_t len = strlen(file), i;
    uint64_t h = (uint64_t)(len + 1);
    for (i = 0; i < 32; i++)
        h = (h ^ (uint64_t)(unsigned char)(i < len ? file[i] : 0)) * (uint64_t)0x100000001B3u;
    for (i = 0; i < 32; i++)
        h = (h ^ (uint64_t)(unsigned char)(i + len >= 32 ? file[i + len - 32] : 0)) *
            (uint64_t)0x100000001B3u;
    return ctxprof_pcc_site_mix(h, line, disc, seed);
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

/* The set's symbol table, loaded on the first report, outside the lock: a
   thread that loses the race frees its copy. After a dlopen or dlclose
   (the dynamic linker's count of loads and unloads moved) it is read again
   only if the loaded objects differ from those it was read from: a
   library loaded and unloaded again between two reports (a plugin probed,
   a dlopen/dlclose per request) costs no new table. A replaced table hangs
   on `older` of the current one, counted in retired_bytes, until
   ctxprof_pcc_set_reclaim (another report may still read it: the same
   quiescence rule as for retired context tables) or deinit. NULL if none
   can be read. */
typedef struct ctxprof__pcc_syms {
    ctxprof_symtab st;
    uint64_t changes; /* dl count at which the objects were last seen as read (atomic) */
    uint64_t objects; /* ctxprof__pcc_objects() when read */
    struct ctxprof__pcc_syms *older;
} ctxprof__pcc_syms;

/* Bytes of a symbol table, as retired_bytes counts them. */
CTXPROF__PRIV uint64_t ctxprof__pcc_syms_bytes(const ctxprof__pcc_syms *y)
{
    return (uint64_t)sizeof *y + (uint64_t)y->st.syms_cap * sizeof(struct ctxprof__sym) +
           (uint64_t)y->st.objs_cap * sizeof(struct ctxprof__symobj) + (uint64_t)y->st.names_cap;
}

/* Frees a chain of symbol tables; returns their bytes. */
CTXPROF__PRIV size_t ctxprof__pcc_syms_free(ctxprof__pcc_syms *y, void *ud)
{
    size_t bytes = 0;
    while (y) {
        ctxprof__pcc_syms *older = y->older;
        bytes += (size_t)ctxprof__pcc_syms_bytes(y);
        ctxprof_symtab_deinit(&y->st);
        ctxprof__free(y, ud);
        y = older;
    }
    return bytes;
}

#if defined(CTXPROF__HAVE_SYMTAB)
CTXPROF__PRIV int ctxprof__pcc_object_hash(struct ctxprof__dl_info *in, size_t size, void *data)
{
    uint64_t *h = (uint64_t *)data;
    ctxprof__loadobj o;
    unsigned i;
    if (size < sizeof *in)
        return 0;
    *h = ctxprof_mix64(*h ^ (uint64_t)in->addr);
    if (in->name)
        *h = ctxprof_hash_bytes(in->name, strlen(in->name), *h);
    for (i = 0; i < in->phnum; i++)
        if (in->phdr[i].type == 1) /* PT_LOAD */
            *h = ctxprof_mix64(*h ^ in->phdr[i].vaddr ^ ctxprof_mix64(in->phdr[i].memsz));
    o.build_id_len = 0;
    ctxprof__symtab_build_id(&o, in);
    *h = ctxprof_hash_bytes(o.build_id, o.build_id_len, *h);
    return 0;
}
#endif

/* A hash of the loaded objects: each one's load address, name, segments
   and build id (what the symbol table depends on; reads no file). */
CTXPROF__PRIV uint64_t ctxprof__pcc_objects(void)
{
    uint64_t h = 0x6A09E667F3BCC908u;
#if defined(CTXPROF__HAVE_SYMTAB)
    ctxprof__dl_iterate_phdr(ctxprof__pcc_object_hash, &h);
#endif
    return h;
}

CTXPROF__PRIV const ctxprof_symtab *ctxprof__pcc_symbols(ctxprof_pcc_set *set)
{
    ctxprof__pcc_syms *cur = (ctxprof__pcc_syms *)__atomic_load_n(&set->symtab, __ATOMIC_ACQUIRE);
    ctxprof__pcc_syms *y;
    void *expected = cur;
    uint64_t now = ctxprof__dl_changes(), objects;
    if (cur && (now == UINT64_MAX || now == __atomic_load_n(&cur->changes, __ATOMIC_RELAXED)))
        return cur->st.count ? &cur->st : NULL; /* (unknown: kept) */
    /* read after the count: a change after it shows at the next report */
    objects = ctxprof__pcc_objects();
    if (cur && objects == cur->objects) { /* loaded and unloaded again: still right */
        __atomic_store_n(&cur->changes, now, __ATOMIC_RELAXED);
        return cur->st.count ? &cur->st : NULL;
    }
    y = (ctxprof__pcc_syms *)ctxprof__zalloc(1, sizeof *y, set->desc.alloc_user);
    if (!y)
        return cur && cur->st.count ? &cur->st : NULL;
    /* objects from before the table's walk: a change in between makes
       them differ next time, and the table is read again (never kept
       stale) */
    if (ctxprof_symtab_init(&y->st, NULL) != CTXPROF_OK) {
        memset(&y->st, 0, sizeof y->st); /* remembered as "no symbols" */
        y->st.dl_changes = now;
    }
    y->changes = y->st.dl_changes;
    y->objects = objects;
    y->older = cur;
    if (!__atomic_compare_exchange_n(&set->symtab, &expected, (void *)y, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE)) {
        y->older = NULL;
        ctxprof__pcc_syms_free(y, set->desc.alloc_user);
        y = (ctxprof__pcc_syms *)expected;
    } else if (cur) {
        __atomic_add_fetch(&set->retired_bytes, ctxprof__pcc_syms_bytes(cur), __ATOMIC_RELAXED);
    }
    return y->st.count ? &y->st : NULL;
}

CTXPROF__PRIV void ctxprof__pcc_symtab_free(ctxprof_pcc_set *set)
{
    ctxprof__pcc_syms_free((ctxprof__pcc_syms *)set->symtab, set->desc.alloc_user);
    set->symtab = NULL;
}

/* Renders frames one per line: "#i 0xADDR function+0xOFF (object)\n". The
   text grows to fit, so every frame gets its whole line; a name longer than
   CTXPROF__PCC_NAME_MAX (a C++ template's demangled name runs to tens of
   kilobytes) is cut and ends in "...", so a report stays readable and its
   text bounded. A return address points after the call, so it is looked
   up at addr - 1. Returns a string from CTXPROF_MALLOC, or NULL when out
   of memory. */
#define CTXPROF__PCC_NAME_MAX 1024
CTXPROF__PRIV char *ctxprof__pcc_symbolize(ctxprof_pcc_set *set, void *const *frames, size_t n)
{
    const ctxprof_symtab *st = ctxprof__pcc_symbols(set);
    void *ud = set->desc.alloc_user;
    size_t i, used = 0, cap = 0;
    char *out = NULL;
    if (ctxprof__reserve((void **)&out, &cap, 0, 64 + n * 128, 1, ud) != CTXPROF_OK)
        return NULL;
    out[0] = '\0';
    for (i = 0; i < n; i++) {
        uintptr_t pc = (uintptr_t)frames[i], off = 0;
        const char *obj = NULL, *fn = st && pc ? ctxprof_symtab_lookup(st, pc - 1, &off, &obj) : NULL;
        const char *base = obj ? strrchr(obj, '/') : NULL;
        char *dm = fn ? ctxprof__demangle_alloc(fn) : NULL;
        const char *name = dm ? dm : fn;
        size_t len = name ? strlen(name) : 0;
        int keep = (int)(len > CTXPROF__PCC_NAME_MAX ? CTXPROF__PCC_NAME_MAX - 3 : len), w;
        for (;;) { /* at most twice: the second time the line fits */
            if (name)
                w = snprintf(out + used, cap - used, "#%zu 0x%lx %.*s%s+0x%lx (%s)\n", i,
                             (unsigned long)pc, keep, name,
                             len > CTXPROF__PCC_NAME_MAX ? "..." : "", (unsigned long)(off + 1),
                             base ? base + 1 : obj ? obj : "?");
            else
                w = snprintf(out + used, cap - used, "#%zu 0x%lx ?\n", i, (unsigned long)pc);
            if (w < 0 || (size_t)w < cap - used)
                break;
            if (ctxprof__reserve((void **)&out, &cap, used, used + (size_t)w + 1, 1, ud) !=
                CTXPROF_OK) {
                free(dm);
                ctxprof__free(out, ud);
                return NULL;
            }
        }
        free(dm);
        if (w < 0) {
            out[used] = '\0';
            break;
        }
        used += (size_t)w;
    }
    return out;
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

/* The table of every empty set: probing it finds nothing, and it is never
   written (the first insert replaces it), freed or retired. */
static ctxprof_ctx ctxprof__pcc_empty_slot;
static ctxprof__pcc_table ctxprof__pcc_empty = {&ctxprof__pcc_empty_slot, 0, 0, 0, NULL, 0};

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
    t->has_zero = 0;
    t->retired = NULL;
    t->gen = 0; /* set when published */
    return CTXPROF_OK;
}

/* Slots for `values` entries at most half full. */
CTXPROF__PRIV size_t ctxprof__pcc_slots_for(size_t values)
{
    return values > SIZE_MAX / 4 ? SIZE_MAX / 2 : 2 * values + 2;
}

/* 1 if v is in table t. Lock-free. */
CTXPROF__PRIV int ctxprof__pcc_table_has(const ctxprof__pcc_table *t, ctxprof_ctx v)
{
    if (v == 0)
        return __atomic_load_n(&t->has_zero, __ATOMIC_ACQUIRE);
    return __atomic_load_n(&t->slots[ctxprof__pcc_probe(t, v)], __ATOMIC_ACQUIRE) == v;
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

/* fork(): a set's lock held by another thread at the fork would be held
   for ever in the child, where that thread does not exist. The lock word
   holds its holder's process generation (+1 in each child), and a child
   takes over a lock of an older one. What the holder left half done is
   safe to take over: readers never lock, so every table is consistent at
   every instant (at worst a count one short, or a table being built
   aside, leaked). */
static unsigned ctxprof__pcc_forkgen;
static pthread_once_t ctxprof__pcc_fork_once = PTHREAD_ONCE_INIT;

CTXPROF__PRIV void ctxprof__pcc_fork_child(void)
{
    __atomic_add_fetch(&ctxprof__pcc_forkgen, 1, __ATOMIC_RELAXED);
}

CTXPROF__PRIV void ctxprof__pcc_fork_init(void)
{
    pthread_atfork(NULL, NULL, ctxprof__pcc_fork_child);
}

CTXPROF__PRIV void ctxprof__pcc_lock(ctxprof_pcc_set *set)
{
    int mine, held;
    pthread_once(&ctxprof__pcc_fork_once, ctxprof__pcc_fork_init);
    mine = (int)(((__atomic_load_n(&ctxprof__pcc_forkgen, __ATOMIC_RELAXED) & 0x3fffffffu) << 1) |
                 1u);
    for (;;) {
        held = 0;
        if (__atomic_compare_exchange_n(&set->lock, &held, mine, 0, __ATOMIC_ACQUIRE,
                                        __ATOMIC_RELAXED))
            return;
        if (held != mine && __atomic_compare_exchange_n(&set->lock, &held, mine, 0,
                                                        __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
            return; /* held in the parent at the fork */
        sched_yield();
    }
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
    if (from) {
        for (i = 0; i <= from->mask; i++)
            if (from->slots[i])
                ctxprof__pcc_table_put(to, from->slots[i]);
        to->has_zero = from->has_zero;
    }
    return CTXPROF_OK;
}

CTXPROF__PRIV uint64_t ctxprof__pcc_table_bytes(const ctxprof__pcc_table *t)
{
    return (uint64_t)(t->mask + 1) * sizeof(ctxprof_ctx) + sizeof *t;
}

/* Publishes *fresh at *where (the set's table or its reported table) and
   retires the table it replaces: readers may still be probing that one,
   so only ctxprof_pcc_set_reclaim or deinit frees it. Caller holds the lock. */
CTXPROF__PRIV int ctxprof__pcc_publish(ctxprof_pcc_set *set, ctxprof__pcc_table **where,
                                       const ctxprof__pcc_table *fresh)
{
    ctxprof__pcc_table *old = *where;
    ctxprof__pcc_table *nt =
        (ctxprof__pcc_table *)ctxprof__alloc(1, sizeof *nt, set->desc.alloc_user);
    if (!nt)
        return CTXPROF_ERR_NOMEM;
    *nt = *fresh;
    nt->retired = NULL;
    nt->gen = old->gen + 1;
    __atomic_store_n(where, nt, __ATOMIC_RELEASE);
    if (old != &ctxprof__pcc_empty) {
        old->retired = set->retired;
        set->retired = old;
        /* an add: reports retire symbol tables without the lock */
        __atomic_add_fetch(&set->retired_bytes, ctxprof__pcc_table_bytes(old), __ATOMIC_RELAXED);
    }
    return CTXPROF_OK;
}

/* Adds v to the table at *where under the lock unless it holds `bound`
   values already, replacing the table by one twice as large when it would
   be more than half full (the shared empty table by one of `first` slots).
   1 added, 0 present, CTXPROF_ERR_FULL or CTXPROF_ERR_NOMEM. */
CTXPROF__PRIV int ctxprof__pcc_table_add(ctxprof_pcc_set *set, ctxprof__pcc_table **where,
                                         size_t first, size_t bound, ctxprof_ctx v)
{
    ctxprof__pcc_table *t = *where;
    if (ctxprof__pcc_table_has(t, v))
        return 0;
    if (t->count + (size_t)t->has_zero >= bound)
        return CTXPROF_ERR_FULL;
    if (t == &ctxprof__pcc_empty || (v != 0 && 2 * (t->count + 1) > t->mask + 1)) {
        ctxprof__pcc_table fresh;
        if (ctxprof__pcc_table_copy(&fresh, t, t == &ctxprof__pcc_empty ? first : 2 * (t->mask + 1),
                                    set->desc.alloc_user))
            return CTXPROF_ERR_NOMEM;
        if (ctxprof__pcc_publish(set, where, &fresh)) {
            ctxprof__free(fresh.slots, set->desc.alloc_user);
            return CTXPROF_ERR_NOMEM;
        }
        t = *where;
    }
    if (v == 0)
        __atomic_store_n(&t->has_zero, 1, __ATOMIC_RELEASE);
    else
        ctxprof__pcc_table_put(t, v);
    return 1;
}

/* Adds to the set under the lock, refusing past max_contexts. 1 added, 0
   present, or an error (counted as dropped). */
CTXPROF__PRIV int ctxprof__pcc_insert_locked(ctxprof_pcc_set *set, ctxprof_ctx v)
{
    int r = ctxprof__pcc_table_add(set, &set->table, ctxprof__pcc_slots_for(set->desc.expected),
                                   set->desc.max_contexts, v);
    if (r < 0)
        __atomic_add_fetch(&set->dropped, 1, __ATOMIC_RELAXED);
    return r;
}

CTXPROF_DEF int ctxprof_pcc_set_init(ctxprof_pcc_set *set, const ctxprof_pcc_set_desc *desc)
{
    if (!set)
        return CTXPROF_ERR_INVAL;
    if (__atomic_load_n(&set->live, __ATOMIC_ACQUIRE) == CTXPROF__LIVE_TAG(set))
        return ctxprof__fail(&set->err, CTXPROF_ERR_INVAL, 0,
                             "pcc set: already initialised: ctxprof_pcc_set_deinit first");
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
        return ctxprof__fail(&set->err, CTXPROF_ERR_INVAL, 0,
                             "pcc set: unknown mode %d (CTXPROF_PCC_OFF, _TRAIN or _CHECK)",
                             set->desc.mode);
    set->mode = set->desc.mode;
    set->table = set->reported = &ctxprof__pcc_empty;
    __atomic_store_n(&set->live, CTXPROF__LIVE_TAG(set), __ATOMIC_RELEASE);
    return CTXPROF_OK;
}

/* Frees a chain of retired tables; returns their bytes. */
CTXPROF__PRIV size_t ctxprof__pcc_free_chain(ctxprof__pcc_table *t, void *ud)
{
    size_t bytes = 0;
    while (t) {
        ctxprof__pcc_table *next = t->retired;
        bytes += (size_t)ctxprof__pcc_table_bytes(t);
        ctxprof__free(t->slots, ud);
        ctxprof__free(t, ud);
        t = next;
    }
    return bytes;
}

CTXPROF_DEF void ctxprof_pcc_set_deinit(ctxprof_pcc_set *set)
{
    if (!set)
        return;
    if (set->table && set->table != &ctxprof__pcc_empty)
        ctxprof__pcc_free_chain(set->table, set->desc.alloc_user);
    if (set->reported && set->reported != &ctxprof__pcc_empty)
        ctxprof__pcc_free_chain(set->reported, set->desc.alloc_user);
    ctxprof__pcc_free_chain(set->retired, set->desc.alloc_user);
    ctxprof__pcc_symtab_free(set);
    memset(set, 0, sizeof *set);
}

/* A set never initialised (all zero: a static one before its init) has no
   table: it reads as empty and refuses changes. */
CTXPROF__PRIV const ctxprof__pcc_table *ctxprof__pcc_cur(const ctxprof_pcc_set *set)
{
    const ctxprof__pcc_table *t = __atomic_load_n(&set->table, __ATOMIC_ACQUIRE);
    return t ? t : &ctxprof__pcc_empty;
}

CTXPROF__PRIV int ctxprof__pcc_uninit(ctxprof_pcc_set *set)
{
    if (__atomic_load_n(&set->table, __ATOMIC_ACQUIRE))
        return 0;
    ctxprof__fail(&set->err, CTXPROF_ERR_INVAL, 0,
                  "pcc set: not initialised (ctxprof_pcc_set_init first)");
    return 1;
}

CTXPROF_DEF size_t ctxprof_pcc_set_reclaim(ctxprof_pcc_set *set)
{
    ctxprof__pcc_table *chain;
    ctxprof__pcc_syms *syms, *old_syms = NULL;
    ctxprof__pcc_lock(set);
    chain = set->retired;
    set->retired = NULL;
    syms = (ctxprof__pcc_syms *)__atomic_load_n(&set->symtab, __ATOMIC_ACQUIRE);
    if (syms) {
        old_syms = syms->older;
        syms->older = NULL;
    }
    __atomic_store_n(&set->retired_bytes, 0, __ATOMIC_RELAXED);
    ctxprof__pcc_unlock(set);
    return ctxprof__pcc_free_chain(chain, set->desc.alloc_user) +
           ctxprof__pcc_syms_free(old_syms, set->desc.alloc_user);
}

CTXPROF_DEF void ctxprof_pcc_set_mode(ctxprof_pcc_set *set, int mode)
{
    if (!set || ctxprof__pcc_uninit(set))
        return;
    if (mode < CTXPROF_PCC_OFF || mode > CTXPROF_PCC_CHECK)
        ctxprof__fail(&set->err, CTXPROF_ERR_INVAL, 0,
                      "pcc set: unknown mode %d (CTXPROF_PCC_OFF, _TRAIN or _CHECK): mode "
                      "unchanged",
                      mode);
    else
        __atomic_store_n(&set->mode, mode, __ATOMIC_RELAXED);
}

CTXPROF_DEF int ctxprof_pcc_set_contains(const ctxprof_pcc_set *set, ctxprof_ctx v)
{
    return ctxprof__pcc_table_has(ctxprof__pcc_cur(set), v);
}

CTXPROF_DEF size_t ctxprof_pcc_set_count(const ctxprof_pcc_set *set)
{
    const ctxprof__pcc_table *t = ctxprof__pcc_cur(set);
    return __atomic_load_n(&t->count, __ATOMIC_RELAXED) +
           (size_t)__atomic_load_n(&t->has_zero, __ATOMIC_ACQUIRE);
}

CTXPROF_DEF int ctxprof_pcc_set_add(ctxprof_pcc_set *set, ctxprof_ctx v)
{
    int r;
    if (ctxprof_pcc_set_contains(set, v))
        return 0;
    if (ctxprof__pcc_uninit(set))
        return CTXPROF_ERR_INVAL;
    ctxprof__pcc_lock(set);
    r = ctxprof__pcc_insert_locked(set, v);
    ctxprof__pcc_unlock(set);
    return r;
}

/* The iteration cursor: 0 at the start, else the low bits of the walked
   table's generation above the next slot + 1:

       | gen mod 2^(width - CTXPROF__PCC_POS_BITS) | slot + 1 (POS_BITS) |

   A table cannot have 2^POS_BITS slots: it would fill the address space. */
#if SIZE_MAX > 0xFFFFFFFFu
#define CTXPROF__PCC_POS_BITS 40
#else
#define CTXPROF__PCC_POS_BITS 30
#endif

CTXPROF_DEF int ctxprof_pcc_set_next(const ctxprof_pcc_set *set, size_t *pos, ctxprof_ctx *out)
{
    const ctxprof__pcc_table *t = ctxprof__pcc_cur(set);
    const size_t low = ((size_t)1 << CTXPROF__PCC_POS_BITS) - 1;
    const size_t gen = (size_t)(t->gen << CTXPROF__PCC_POS_BITS);
    size_t i = *pos & low;
    if ((*pos & ~low) != gen)
        i = 0; /* the table was replaced since the last call: start over */
    if (i == 0) {
        i = 1;
        if (__atomic_load_n(&t->has_zero, __ATOMIC_ACQUIRE)) {
            *pos = gen | i;
            *out = 0;
            return 1;
        }
    }
    while (i - 1 <= t->mask) {
        ctxprof_ctx v = __atomic_load_n(&t->slots[i - 1], __ATOMIC_ACQUIRE);
        i++;
        if (v) {
            *pos = gen | i;
            *out = v;
            return 1;
        }
    }
    *pos = gen | i;
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
    out->retired_bytes = __atomic_load_n(&set->retired_bytes, __ATOMIC_RELAXED);
    out->expected_conflicts = ctxprof_pcc_expected_conflicts((double)out->distinct,
                                                             CTXPROF_CTX_BITS);
}

CTXPROF_DEF const char *ctxprof_pcc_set_last_error(const ctxprof_pcc_set *set)
{
    return ctxprof_error_message(set ? &set->err : NULL);
}

/* ---- pcc: reports ---- */

/* The rate limiter's clock (monotonic ns). Replaceable so tests can drive
   the limit deterministically, as ctxprof__io_write is for writes. */
typedef uint64_t (*ctxprof__clock_fn)(void);
CTXPROF__PRIV uint64_t ctxprof__now_ns_default(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
static ctxprof__clock_fn ctxprof__pcc_clock = ctxprof__now_ns_default;

/* Rate limit as a virtual schedule (GCRA): each report takes 1/rate s of
   the schedule, which may run at most one second (rate reports) ahead of
   now. Caller holds the lock. */
CTXPROF__PRIV int ctxprof__pcc_rate_ok(ctxprof_pcc_set *set)
{
    uint64_t now = ctxprof__pcc_clock(), step = 1000000000u / set->desc.reports_per_sec;
    uint64_t tat = set->tokens_ns > now ? set->tokens_ns : now;
    if (tat + step > now + 1000000000u + step / 2)
        return 0;
    set->tokens_ns = tat + step;
    return 1;
}

/* Return addresses of the calling frames, innermost first. */
#if defined(__GLIBC__)
#define ctxprof__backtrace backtrace
#else
/* musl has no backtrace(), and its static libgcc_eh may need glibc: the
   frame-pointer chain, read only inside the stack's mapping and strictly
   upward (code built without frame pointers ends it early). */
CTXPROF__NOINSTR CTXPROF__PRIV CTXPROF__NOINLINE int ctxprof__backtrace(void **frames, int cap)
{
    const uintptr_t *fp = (const uintptr_t *)__builtin_frame_address(0);
    ctxprof__mapping m;
    int n = 0;
    if (!ctxprof__mapping_at((uintptr_t)fp, &m, NULL, 0))
        return 0;
    while (n < cap && (uintptr_t)fp % sizeof *fp == 0 && (uintptr_t)fp >= m.start &&
           (uintptr_t)fp < m.end - 2 * sizeof *fp && fp[1]) {
        frames[n++] = (void *)fp[1];
        if (fp[0] <= (uintptr_t)fp)
            break;
        fp = (const uintptr_t *)fp[0];
    }
    return n;
}
#endif

CTXPROF__PRIV CTXPROF__NOINLINE void ctxprof__pcc_report(ctxprof_pcc_set *set, ctxprof_ctx v,
                                                         const char *file, unsigned line,
                                                         uint64_t index, void *caller)
{
    void *frames[64 + 4];
    int n = ctxprof__backtrace(frames, (int)set->desc.backtrace_depth + 4), skip = 0, i;
    char *text;
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
    text = ctxprof__pcc_symbolize(set, r.frames, r.nframes);
    r.backtrace = text ? text : "(out of memory for the backtrace)";
    set->desc.report(set->desc.report_user, &r);
    ctxprof__free(text, set->desc.alloc_user);
}

CTXPROF_DEF CTXPROF__NOINLINE int ctxprof__pcc_set_slow(ctxprof_pcc_set *set, ctxprof_ctx v,
                                                        const char *file, unsigned line)
{
    int mode = __atomic_load_n(&set->mode, __ATOMIC_RELAXED), call = 0, added;
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
    /* A new context seen before: lock-free, like the trained values, so a
       context checked again and again costs two lookups, not the lock. */
    if (ctxprof__pcc_table_has(__atomic_load_n(&set->reported, __ATOMIC_ACQUIRE), v))
        return 0;
    ctxprof__pcc_lock(set);
    if (ctxprof_pcc_set_contains(set, v)) { /* trained meanwhile (mode switch, merge) */
        ctxprof__pcc_unlock(set);
        return 1;
    }
    /* the reported table holds new_seen values: its bound is max_reported */
    added = ctxprof__pcc_table_add(set, &set->reported, 64, set->desc.max_reported, v);
    if (added == 0) { /* another thread was first */
        ctxprof__pcc_unlock(set);
        return 0;
    }
    if (added < 0) {
        __atomic_add_fetch(&set->dropped, 1, __ATOMIC_RELAXED);
    } else {
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
    ctxprof__pcc_unlock(set);
    if (call)
        ctxprof__pcc_report(set, v, file, line, index, CTXPROF__RETURN_ADDRESS());
    return 0;
}

/* ---- pcc: files ---- */

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
    ctxprof__error_clear(err);
    if ((f->bits != 32 && f->bits != 64) || (f->count && !f->values))
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "%s: bad set description", path);
    for (i = 1; i < f->count; i++)
        if (f->values[i] <= f->values[i - 1])
            return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "%s: values not sorted and unique",
                                 path);
    /* sorted: only the last can be too wide (cut, it would be another value) */
    if (width == 4 && f->count && f->values[f->count - 1] > 0xFFFFFFFFu)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0,
                             "%s: value %#llx does not fit in 32 bits (bits = 32)", path,
                             (unsigned long long)f->values[f->count - 1]);
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
    st = ctxprof__write_out(path, img, CTXPROF__BLOB_HDR + f->count * width, err);
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
    if (params[2] > (unsigned)-1) /* kept as an unsigned: cut, it could pass for this build's */
        return ctxprof__fail(err, CTXPROF_ERR_CORRUPT, 0, "%s: site hash version %llu", name,
                             (unsigned long long)params[2]);
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

/* Reads a set file through the container reader (header first: what is
   no ctxprof file, or promises another size than it has, is refused before
   its payload is read), then ctxprof__pcc_file_parse checks it all. */
CTXPROF_DEF int ctxprof_pcc_file_read(ctxprof_pcc_file *f, const char *path, ctxprof_error *err)
{
    unsigned char *buf;
    size_t size;
    int st;
    ctxprof__error_clear(err);
    st = ctxprof__blob_read(path, f->alloc_user, &buf, &size, err);
    if (st)
        return st;
    st = ctxprof__pcc_file_parse(f, buf, size, path, err);
    ctxprof__free(buf, f->alloc_user);
    return st;
}

CTXPROF_DEF int ctxprof_pcc_set_save(ctxprof_pcc_set *set, const char *path)
{
    ctxprof_pcc_file f;
    size_t n, i = 0, pos = 0;
    ctxprof_ctx v;
    int st;
    if (ctxprof__pcc_uninit(set))
        return CTXPROF_ERR_INVAL;
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
    qsort(f.values, n, sizeof *f.values, ctxprof__u64_cmp);
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
    int st;
    if (ctxprof__pcc_uninit(set))
        return CTXPROF_ERR_INVAL;
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
    /* the value 0 travels in the table: a reader sees the old set or the
       new one, never the new table with the old zero */
    for (i = 0; i < f.count; i++) {
        if (f.values[i] == 0)
            fresh.has_zero = 1;
        else
            ctxprof__pcc_table_put(&fresh, (ctxprof_ctx)f.values[i]);
    }
    if (fresh.count + (size_t)fresh.has_zero > set->desc.max_contexts) {
        st = ctxprof__fail(&set->err, CTXPROF_ERR_FULL, 0,
                           "%s: the set would hold %zu contexts, its bound is %zu", path,
                           fresh.count + (size_t)fresh.has_zero, set->desc.max_contexts);
        goto done;
    }
    if (ctxprof__pcc_publish(set, &set->table, &fresh)) {
        st = ctxprof__fail(&set->err, CTXPROF_ERR_NOMEM, 0, "%s: out of memory", path);
        goto done;
    }
    fresh.slots = NULL; /* owned by the set now */
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

/* --- growable text buffer (generated headers, graph output) --- */

typedef struct ctxprof__sbuf {
    char *p;
    size_t len, cap;
    int failed; /* 1: an allocation failed, 2: the sink failed; everything after is dropped */
    void *ud;
    int (*sink)(void *user, const char *data, size_t len); /* NULL: keep it all */
    void *sink_user;
    size_t flushed; /* bytes given to the sink */
} ctxprof__sbuf;

/* Gives the buffered text to the sink (when there is one). */
CTXPROF__PRIV void ctxprof__sbuf_flush(ctxprof__sbuf *b)
{
    if (!b->sink || b->failed || !b->len)
        return;
    if (b->sink(b->sink_user, b->p, b->len) != 0)
        b->failed = 2;
    b->flushed += b->len;
    b->len = 0;
}

CTXPROF__PRIV void ctxprof__sbuf_put(ctxprof__sbuf *b, const char *s, size_t n)
{
    if (b->failed)
        return;
    if (ctxprof__reserve((void **)&b->p, &b->cap, b->len, b->len + n + 1, 1, b->ud)) {
        b->failed = 1;
        return;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
    if (b->sink && b->len >= ((size_t)1 << 20))
        ctxprof__sbuf_flush(b);
}

CTXPROF__PRIV CTXPROF__PRINTF(2, 3) void ctxprof__sbuf_printf(ctxprof__sbuf *b, const char *fmt,
                                                              ...)
{
    char small[256];
    va_list ap;
    int n;
    if (b->failed) /* keep the first failure: the sink's (2) is no out of memory */
        return;
    va_start(ap, fmt);
    n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->failed = 1;
        return;
    }
    if ((size_t)n < sizeof small) {
        ctxprof__sbuf_put(b, small, (size_t)n);
        return;
    }
    if (ctxprof__reserve((void **)&b->p, &b->cap, b->len, b->len + (size_t)n + 1, 1, b->ud)) {
        b->failed = 1;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    if (b->sink && b->len >= ((size_t)1 << 20))
        ctxprof__sbuf_flush(b);
}

/* --- 64-bit key -> 32-bit value map (open addressing, no removal) --- */

typedef struct ctxprof__map {
    uint64_t *keys;
    uint32_t *vals; /* value + 1, 0 = empty slot */
    size_t mask, n;
    void *ud;
} ctxprof__map;

CTXPROF__PRIV void ctxprof__map_free(ctxprof__map *m)
{
    ctxprof__free(m->keys, m->ud);
    ctxprof__free(m->vals, m->ud);
    m->keys = NULL;
    m->vals = NULL;
    m->mask = 0;
    m->n = 0;
}

CTXPROF__PRIV size_t ctxprof__map_slot(const ctxprof__map *m, uint64_t key)
{
    size_t i = (size_t)ctxprof_mix64(key) & m->mask;
    while (m->vals[i] && m->keys[i] != key)
        i = (i + 1) & m->mask;
    return i;
}

/* Value for key, or UINT32_MAX. */
CTXPROF__PRIV uint32_t ctxprof__map_get(const ctxprof__map *m, uint64_t key)
{
    size_t i;
    if (!m->vals)
        return UINT32_MAX;
    i = ctxprof__map_slot(m, key);
    return m->vals[i] ? m->vals[i] - 1 : UINT32_MAX;
}

/* Sets key (replacing its value). 0 or CTXPROF_ERR_NOMEM (map unchanged). */
CTXPROF__PRIV int ctxprof__map_put(ctxprof__map *m, uint64_t key, uint32_t val)
{
    size_t i;
    if (!m->vals || 2 * (m->n + 1) > m->mask + 1) {
        size_t nsize = m->vals ? 2 * (m->mask + 1) : 64, k;
        uint64_t *nk = (uint64_t *)ctxprof__alloc(nsize, sizeof *nk, m->ud);
        uint32_t *nv = (uint32_t *)ctxprof__zalloc(nsize, sizeof *nv, m->ud);
        ctxprof__map old = *m;
        if (!nk || !nv) {
            ctxprof__free(nk, m->ud);
            ctxprof__free(nv, m->ud);
            return CTXPROF_ERR_NOMEM;
        }
        m->keys = nk;
        m->vals = nv;
        m->mask = nsize - 1;
        for (k = 0; old.vals && k <= old.mask; k++)
            if (old.vals[k]) {
                size_t j = ctxprof__map_slot(m, old.keys[k]);
                m->keys[j] = old.keys[k];
                m->vals[j] = old.vals[k];
            }
        ctxprof__free(old.keys, m->ud);
        ctxprof__free(old.vals, m->ud);
    }
    i = ctxprof__map_slot(m, key);
    if (!m->vals[i])
        m->n++;
    m->keys[i] = key;
    m->vals[i] = val + 1;
    return CTXPROF_OK;
}

/* --- graph private state --- */

typedef struct ctxprof__gundo {
    int kind;   /* 0 = node, 1 = edge */
    uint32_t id;
    uint32_t disp;
    ctxprof_graph_node node;
    ctxprof_graph_edge edge;
} ctxprof__gundo;

typedef struct ctxprof__graph_priv {
    ctxprof__strtab names;  /* node name -> id (same ids as nodes[]) */
    ctxprof__strtab strs;   /* labels, file names, gcc locations, display names */
    ctxprof__strtab cnames; /* C names (finish) */
    ctxprof__map exact;     /* (caller, callee, label id + 1 or 0) -> edge */
    ctxprof__map pair;      /* (caller, callee) -> first edge */
    uint32_t *disp;         /* node -> strs id of gcc's display name + 1, 0 = none */
    size_t disp_cap;
    size_t nodes_cap, edges_cap;
    uint32_t *edge_file; /* edge -> input number that gave it */
    size_t edge_file_cap;
    uint32_t *ind_caller; /* dropped __indirect_call sites: caller */
    const char **ind_label;
    size_t n_ind, ind_cap, ind_label_cap;
    ctxprof__gundo *undo; /* changes to existing entries during the current input */
    size_t n_undo, undo_cap;
    uint32_t input;          /* number of the current input, 1-based */
    const char *root_name;   /* strs copy: desc root, set_root or an input's root line */
    int root_fixed;          /* root given by desc / set_root: inputs do not override */
    uint32_t root_input;     /* input that gave root_name */
    const char *root_where;  /* "file:line" of that root line */
    int have_gcc;            /* a gcc .ci input was read: text names resolve against it */
    ctxprof__map statics;    /* gcc static "file.c:name[.clone]" by name: node, or AMBIG */
    size_t statics_nodes;    /* nodes indexed in statics */
    ctxprof_log_fn log;
    void *log_user;
    void *ud;
} ctxprof__graph_priv;

#define CTXPROF__GP(g) ((ctxprof__graph_priv *)(g)->priv)

CTXPROF__PRIV const char *ctxprof__graph_str(ctxprof_graph *g, const char *s)
{
    long id;
    if (!s)
        return NULL;
    id = ctxprof__strtab_intern(&CTXPROF__GP(g)->strs, s);
    return id < 0 ? NULL : CTXPROF__GP(g)->strs.names[id];
}

/* Why s cannot be a function name or a site label of a graph, or NULL when
   it can: the one rule of every way in (the text and gcc readers, the API).
   A name is not empty and holds no control character (a byte below 0x20,
   or 0x7f: a line break would end a line of the text format, a tab or CR
   splits a token). Any other byte is kept; the text format writes the
   three that its tokens cannot hold, blank, '#' and '%', as %20, %23 and
   %25 (ctxprof__graph_put_name), so ctxprof_graph_write reads back as it
   was. */
CTXPROF__PRIV const char *ctxprof__graph_name_bad(const char *s)
{
    if (!*s)
        return "is empty";
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return "holds a control character";
    return NULL;
}

/* s for a message: control characters as \n, \t, \r or \xHH, at most
   about 80 bytes ("..." when cut). size >= 9. Returns buf. */
CTXPROF__PRIV const char *ctxprof__graph_show(char *buf, size_t size, const char *s)
{
    size_t n = 0;
    for (; *s && n + 8 < size && n < 80; s++) {
        unsigned char c = (unsigned char)*s;
        if (c >= 0x20 && c != 0x7f) {
            buf[n++] = (char)c;
        } else if (c == '\n' || c == '\t' || c == '\r') {
            buf[n++] = '\\';
            buf[n++] = c == '\n' ? 'n' : c == '\t' ? 't' : 'r';
        } else {
            n += (size_t)snprintf(buf + n, size - n, "\\x%02x", c);
        }
    }
    if (*s && n + 4 <= size)
        memcpy(buf + n, "...", 4);
    else
        buf[n] = '\0';
    return buf;
}

/* The one name rule applied to name: 0, or status with the message
   "AT WHAT QnameQ why TAIL" (name shown by ctxprof__graph_show). */
CTXPROF__PRIV int ctxprof__graph_name_check(ctxprof_graph *g, int status, const char *at,
                                            const char *what, const char *q, const char *name,
                                            const char *tail)
{
    char show[100];
    const char *bad = ctxprof__graph_name_bad(name);
    if (!bad)
        return CTXPROF_OK;
    return ctxprof__fail(&g->error, status, 0, "%s%s %s%s%s %s%s", at, what, q,
                         ctxprof__graph_show(show, sizeof show, name), q, bad, tail);
}

/* A name given to the API: 0, or CTXPROF_ERR_INVAL ("what 'name' is empty"). */
CTXPROF__PRIV int ctxprof__graph_api_name(ctxprof_graph *g, const char *what, const char *name)
{
    return ctxprof__graph_name_check(g, CTXPROF_ERR_INVAL, "", what, "'", name, "");
}

CTXPROF__PRIV CTXPROF__PRINTF(3, 4) void ctxprof__graph_log(const ctxprof_graph *g, int level,
                                                            const char *fmt, ...)
{
    const ctxprof__graph_priv *P = (const ctxprof__graph_priv *)g->priv;
    char msg[512];
    va_list ap;
    if (!P->log)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    P->log(P->log_user, level, msg);
}

CTXPROF_DEF int ctxprof_graph_init(ctxprof_graph *g, const ctxprof_graph_desc *desc)
{
    ctxprof__graph_priv *P;
    void *ud = desc ? desc->alloc_user : NULL;
    memset(g, 0, sizeof *g);
    g->root = CTXPROF_GRAPH_NONE;
    P = (ctxprof__graph_priv *)ctxprof__zalloc(1, sizeof *P, ud);
    if (!P)
        return ctxprof__fail(&g->error, CTXPROF_ERR_NOMEM, 0, "out of memory");
    g->priv = P;
    P->ud = ud;
    ctxprof__strtab_init(&P->names, ud);
    ctxprof__strtab_init(&P->strs, ud);
    ctxprof__strtab_init(&P->cnames, ud);
    P->exact.ud = ud;
    P->pair.ud = ud;
    P->statics.ud = ud;
    if (desc) {
        P->log = desc->log;
        P->log_user = desc->log_user;
        if (desc->root) {
            if (ctxprof__graph_api_name(g, "root name", desc->root)) {
                ctxprof_graph_deinit(g); /* keeps g->error */
                return CTXPROF_ERR_INVAL;
            }
            P->root_name = ctxprof__graph_str(g, desc->root);
            if (!P->root_name) {
                ctxprof_graph_deinit(g);
                return ctxprof__fail(&g->error, CTXPROF_ERR_NOMEM, 0, "out of memory");
            }
            P->root_fixed = 1;
        }
    }
    return CTXPROF_OK;
}

CTXPROF__PRIV void ctxprof__graph_free_analysis(ctxprof_graph *g)
{
    void *ud = CTXPROF__GP(g)->ud;
    ctxprof__free(g->roots, ud);
    ctxprof__free(g->out_first, ud);
    ctxprof__free(g->out_edge, ud);
    ctxprof__free(g->in_first, ud);
    ctxprof__free(g->in_edge, ud);
    g->roots = g->out_first = g->out_edge = g->in_first = g->in_edge = NULL;
    g->n_roots = 0;
    g->finished = 0;
}

CTXPROF_DEF void ctxprof_graph_deinit(ctxprof_graph *g)
{
    ctxprof__graph_priv *P = CTXPROF__GP(g);
    if (!P)
        return;
    ctxprof__graph_free_analysis(g);
    ctxprof__free(g->nodes, P->ud);
    ctxprof__free(g->edges, P->ud);
    ctxprof__strtab_deinit(&P->names);
    ctxprof__strtab_deinit(&P->strs);
    ctxprof__strtab_deinit(&P->cnames);
    ctxprof__map_free(&P->exact);
    ctxprof__map_free(&P->pair);
    ctxprof__map_free(&P->statics);
    ctxprof__free(P->disp, P->ud);
    ctxprof__free(P->edge_file, P->ud);
    ctxprof__free(P->ind_caller, P->ud);
    ctxprof__free((void *)P->ind_label, P->ud);
    ctxprof__free(P->undo, P->ud);
    ctxprof__free(P, P->ud);
    g->priv = NULL;
    g->nodes = NULL;
    g->edges = NULL;
    g->n_nodes = g->n_edges = 0;
}

CTXPROF_DEF const char *ctxprof_graph_last_error(const ctxprof_graph *g)
{
    return ctxprof_error_message(&g->error);
}

CTXPROF_DEF void ctxprof_graph_free_buffer(void *p, void *alloc_user)
{
    ctxprof__free(p, alloc_user);
}

/* Saves an existing node or edge before the current input changes it. */
CTXPROF__PRIV int ctxprof__graph_save(ctxprof_graph *g, int kind, uint32_t id)
{
    ctxprof__graph_priv *P = CTXPROF__GP(g);
    ctxprof__gundo *u;
    if (ctxprof__reserve((void **)&P->undo, &P->undo_cap, P->n_undo, P->n_undo + 1,
                         sizeof *P->undo, P->ud))
        return CTXPROF_ERR_NOMEM;
    u = &P->undo[P->n_undo++];
    memset(u, 0, sizeof *u);
    u->kind = kind;
    u->id = id;
    if (kind == 0) {
        u->node = g->nodes[id];
        u->disp = P->disp[id];
    } else
        u->edge = g->edges[id];
    return CTXPROF_OK;
}

CTXPROF__PRIV uint64_t ctxprof__graph_pair_key(uint32_t a, uint32_t b)
{
    return ((uint64_t)a << 32) | b;
}

CTXPROF__PRIV uint64_t ctxprof__graph_exact_key(uint32_t a, uint32_t b, uint32_t label1)
{
    return ctxprof_mix64(((uint64_t)a << 32) | b) ^ ((uint64_t)label1 * 0x9E3779B97F4A7C15u);
}

/* Rebuilds the edge maps from the edge array (after a rollback). */
CTXPROF__PRIV int ctxprof__graph_reindex(ctxprof_graph *g)
{
    ctxprof__graph_priv *P = CTXPROF__GP(g);
    size_t e;
    ctxprof__map_free(&P->exact);
    ctxprof__map_free(&P->pair);
    for (e = 0; e < g->n_edges; e++) {
        const ctxprof_graph_edge *E = &g->edges[e];
        long lid = E->label ? ctxprof__strtab_find(&P->strs, E->label) : -1;
        uint64_t pk = ctxprof__graph_pair_key(E->caller, E->callee);
        if (ctxprof__map_put(&P->exact,
                             ctxprof__graph_exact_key(E->caller, E->callee, (uint32_t)(lid + 1)),
                             (uint32_t)e))
            return CTXPROF_ERR_NOMEM;
        if (ctxprof__map_get(&P->pair, pk) == UINT32_MAX &&
            ctxprof__map_put(&P->pair, pk, (uint32_t)e))
            return CTXPROF_ERR_NOMEM;
    }
    return CTXPROF_OK;
}

/* Undoes everything the current input added or changed. */
CTXPROF__PRIV void ctxprof__graph_rollback(ctxprof_graph *g, size_t n_nodes, size_t n_edges,
                                           size_t n_ind, const char *root_name,
                                           uint32_t root_input, const char *root_where)
{
    ctxprof__graph_priv *P = CTXPROF__GP(g);
    size_t i;
    while (P->n_undo > 0) {
        ctxprof__gundo *u = &P->undo[--P->n_undo];
        if (u->kind == 0) {
            g->nodes[u->id] = u->node;
            P->disp[u->id] = u->disp;
        } else
            g->edges[u->id] = u->edge;
    }
    /* forget the names the input introduced: rebuild the name table */
    for (i = n_nodes; i < P->names.n; i++)
        ctxprof__free(P->names.names[i], P->ud);
    P->names.n = n_nodes;
    ctxprof__free(P->names.slots, P->ud);
    P->names.slots = NULL;
    P->names.mask = 0;
    {
        ctxprof__strtab t;
        ctxprof__strtab_init(&t, P->ud);
        /* re-interning in id order keeps ids; on failure find() degrades to a miss */
        for (i = 0; i < n_nodes; i++)
            if (ctxprof__strtab_intern(&t, P->names.names[i]) < 0)
                break;
        if (i == n_nodes) {
            size_t k;
            for (k = 0; k < t.n; k++)
                ctxprof__free(t.names[k], P->ud);
            ctxprof__free(t.names, P->ud);
            P->names.slots = t.slots;
            P->names.mask = t.mask;
        } else {
            ctxprof__strtab_deinit(&t);
        }
    }
    for (i = 0; i < n_nodes; i++)
        g->nodes[i].name = P->names.names[i];
    g->n_nodes = n_nodes;
    g->n_edges = n_edges;
    P->n_ind = n_ind;
    P->root_name = root_name;
    P->root_input = root_input;
    P->root_where = root_where;
    if (P->statics_nodes > n_nodes) { /* it indexed removed nodes: rebuilt when next needed */
        ctxprof__map_free(&P->statics);
        P->statics_nodes = 0;
    }
    (void)ctxprof__graph_reindex(g);
}

/* Finds or creates the node called name; -1 when out of memory. */
CTXPROF__PRIV long ctxprof__graph_node(ctxprof_graph *g, const char *name)
{
    ctxprof__graph_priv *P = CTXPROF__GP(g);
    long id = ctxprof__strtab_find(&P->names, name);
    ctxprof_graph_node *n;
    if (id >= 0)
        return id;
    if (ctxprof__reserve((void **)&g->nodes, &P->nodes_cap, g->n_nodes, g->n_nodes + 1,
                         sizeof *g->nodes, P->ud) ||
        ctxprof__reserve((void **)&P->disp, &P->disp_cap, g->n_nodes, g->n_nodes + 1,
                         sizeof *P->disp, P->ud))
        return -1;
    id = ctxprof__strtab_intern(&P->names, name);
    if (id < 0)
        return -1;
    n = &g->nodes[id];
    memset(n, 0, sizeof *n);
    n->name = P->names.names[id];
    n->scc = CTXPROF_GRAPH_NONE;
    P->disp[id] = 0;
    g->n_nodes = (size_t)id + 1;
    return id;
}

/* Adds or merges one call edge from input `input` (kind = EDGE_GCC or
   EDGE_TEXT). Duplicates inside one text input are errors; gcc repeats an
   edge once per inlined copy of a call, so those merge silently. Returns the
   edge id, -1 on out of memory, -2 on a duplicate (*dup = first edge). */
CTXPROF__PRIV long ctxprof__graph_edge(ctxprof_graph *g, uint32_t a, uint32_t b, const char *label,
                                       uint32_t kind, const char *file, uint32_t line,
                                       uint32_t *dup)
{
    ctxprof__graph_priv *P = CTXPROF__GP(g);
    long lid = -1;
    uint32_t e, input = P->input;
    uint64_t pk = ctxprof__graph_pair_key(a, b);
    ctxprof_graph_edge *E;
    if (label) {
        lid = ctxprof__strtab_intern(&P->strs, label);
        if (lid < 0)
            return -1;
        label = P->strs.names[lid];
    }
    e = ctxprof__map_get(&P->exact, ctxprof__graph_exact_key(a, b, (uint32_t)(lid + 1)));
    if (e == UINT32_MAX && (e = ctxprof__map_get(&P->pair, pk)) != UINT32_MAX) {
        /* a matching pair: merge when labels do not contradict */
        const ctxprof_graph_edge *F = &g->edges[e];
        if (P->edge_file[e] == input || (label && F->label))
            e = UINT32_MAX;
        else if (label) { /* adopt the label (once; later labels are new sites) */
            if (ctxprof__graph_save(g, 1, e))
                return -1;
            g->edges[e].label = label;
            if (ctxprof__map_put(&P->exact, ctxprof__graph_exact_key(a, b, (uint32_t)(lid + 1)),
                                 e))
                return -1;
        }
    }
    if (e != UINT32_MAX) {
        if (P->edge_file[e] == input && kind == CTXPROF_GRAPH_EDGE_TEXT) {
            *dup = e;
            return -2;
        }
        if (!(g->edges[e].flags & kind)) {
            if (ctxprof__graph_save(g, 1, e))
                return -1;
            g->edges[e].flags |= kind;
        }
        return (long)e;
    }
    if (g->n_edges >= UINT32_MAX - 1 ||
        ctxprof__reserve((void **)&g->edges, &P->edges_cap, g->n_edges, g->n_edges + 1,
                         sizeof *g->edges, P->ud) ||
        ctxprof__reserve((void **)&P->edge_file, &P->edge_file_cap, g->n_edges, g->n_edges + 1,
                         sizeof *P->edge_file, P->ud))
        return -1;
    e = (uint32_t)g->n_edges;
    if (ctxprof__map_put(&P->exact, ctxprof__graph_exact_key(a, b, (uint32_t)(lid + 1)), e))
        return -1;
    if (ctxprof__map_get(&P->pair, pk) == UINT32_MAX && ctxprof__map_put(&P->pair, pk, e))
        return -1;
    E = &g->edges[e];
    memset(E, 0, sizeof *E);
    E->caller = a;
    E->callee = b;
    E->label = label;
    E->flags = kind;
    E->file = file;
    E->line = line;
    P->edge_file[e] = input;
    g->n_edges++;
    return (long)e;
}

/* Records a node declaration (func line, gcc node). A body seen anywhere
   wins over a declaration; the largest frame size wins. */
CTXPROF__PRIV int ctxprof__graph_declare(ctxprof_graph *g, uint32_t id, uint64_t frame, int body,
                                         const char *where, const char *disp)
{
    ctxprof__graph_priv *P = CTXPROF__GP(g);
    ctxprof_graph_node *n = &g->nodes[id];
    uint64_t nf = frame > n->frame ? frame : n->frame;
    uint32_t nflags = n->flags | CTXPROF_GRAPH_NODE_DEFINED;
    if (body)
        nflags &= ~(uint32_t)CTXPROF_GRAPH_NODE_EXTERN;
    else if (!(n->flags & CTXPROF_GRAPH_NODE_DEFINED))
        nflags |= CTXPROF_GRAPH_NODE_EXTERN;
    if (where && !(where = ctxprof__graph_str(g, where)))
        return CTXPROF_ERR_NOMEM;
    if (nf == n->frame && nflags == n->flags && (!where || n->where) && (!disp || P->disp[id]))
        return CTXPROF_OK;
    if (ctxprof__graph_save(g, 0, id))
        return CTXPROF_ERR_NOMEM;
    n->frame = nf;
    n->flags = nflags;
    if (where && !n->where)
        n->where = where;
    if (disp && !P->disp[id]) {
        long d = ctxprof__strtab_intern(&P->strs, disp);
        if (d < 0)
            return CTXPROF_ERR_NOMEM;
        P->disp[id] = (uint32_t)d + 1;
    }
    return CTXPROF_OK;
}

/* Sets the root named by an input; inputs must agree unless the root was
   fixed by the desc or ctxprof_graph_set_root. */
CTXPROF__PRIV int ctxprof__graph_input_root(ctxprof_graph *g, const char *name, const char *path,
                                            unsigned line)
{
    ctxprof__graph_priv *P = CTXPROF__GP(g);
    char where[300];
    if (P->root_fixed)
        return CTXPROF_OK;
    if (P->root_name && strcmp(P->root_name, name) != 0)
        return ctxprof__fail(&g->error, CTXPROF_ERR_PARSE, 0,
                             "%s:%u: root '%s' conflicts with root '%s' (%s)", path, line, name,
                             P->root_name, P->root_where ? P->root_where : "earlier input");
    if (P->root_name)
        return CTXPROF_OK;
    snprintf(where, sizeof where, "%s:%u", path, line);
    P->root_name = ctxprof__graph_str(g, name);
    P->root_where = ctxprof__graph_str(g, where);
    P->root_input = P->input;
    if (!P->root_name || !P->root_where)
        return ctxprof__fail(&g->error, CTXPROF_ERR_NOMEM, 0, "out of memory");
    return CTXPROF_OK;
}

#define CTXPROF__GRAPH_AMBIG (UINT32_MAX - 1)

/* Indexes gcc's static functions ("file.c:name", maybe "file.c:name.part.0")
   by "name" and by "name.part.0": node id, or CTXPROF__GRAPH_AMBIG when two
   files define one. 0 or CTXPROF_ERR_NOMEM. */
CTXPROF__PRIV int ctxprof__graph_index_statics(ctxprof_graph *g)
{
    ctxprof__graph_priv *P = CTXPROF__GP(g);
    size_t v;
    for (v = P->statics_nodes; v < g->n_nodes; v++) {
        const char *name = g->nodes[v].name, *s = strrchr(name, ':');
        size_t k;
        if (!s || s == name || !s[1])
            continue;
        s++;
        for (k = 0; k < 2; k++) {
            size_t n = k ? strcspn(s, ".") : strlen(s);
            uint64_t key = ctxprof_hash_bytes(s, n, 11);
            uint32_t old = ctxprof__map_get(&P->statics, key);
            if ((k && !s[n]) || old == (uint32_t)v)
                continue;
            if (ctxprof__map_put(&P->statics, key,
                                 old == UINT32_MAX ? (uint32_t)v : CTXPROF__GRAPH_AMBIG))
                return CTXPROF_ERR_NOMEM;
        }
    }
    P->statics_nodes = g->n_nodes;
    return CTXPROF_OK;
}

/* A function name of a text input. Merged with gcc's graphs, a name that
   is not a node resolves to the static function of that name (gcc titles
   it "file.c:name"); a name two files define as static, or one no input
   defines, is warned about with path:line. Returns the node id, -1 on out
   of memory, -2 when ambiguous (the line is skipped). */
CTXPROF__PRIV long ctxprof__graph_text_node(ctxprof_graph *g, const char *name, const char *path,
                                            unsigned line)
{
    ctxprof__graph_priv *P = CTXPROF__GP(g);
    long id;
    uint32_t st;
    if (!P->have_gcc)
        return ctxprof__graph_node(g, name);
    if ((id = ctxprof__strtab_find(&P->names, name)) >= 0)
        return id;
    if (ctxprof__graph_index_statics(g))
        return -1;
    st = ctxprof__map_get(&P->statics, ctxprof_hash_bytes(name, strlen(name), 11));
    if (st == CTXPROF__GRAPH_AMBIG) {
        char list[200];
        size_t used = 0, v;
        list[0] = '\0';
        for (v = 0; v < g->n_nodes && used + 60 < sizeof list; v++) {
            const char *s = strrchr(g->nodes[v].name, ':');
            if (s && (strcmp(s + 1, name) == 0 ||
                      (strncmp(s + 1, name, strlen(name)) == 0 && s[1 + strlen(name)] == '.')))
                used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "",
                                         g->nodes[v].name);
        }
        ctxprof__graph_log(g, CTXPROF_LOG_WARN,
                           "%s:%u: '%s' is ambiguous: static in more than one file (%s); "
                           "call line skipped (write FILE:NAME as gcc titles it)",
                           path, line, name, list);
        return -2;
    }
    if (st != UINT32_MAX)
        return (long)st;
    ctxprof__graph_log(g, CTXPROF_LOG_WARN,
                       "%s:%u: '%s' is not a function of the static call graph (no gcc input "
                       "defines it); added as a new function",
                       path, line, name);
    return ctxprof__graph_node(g, name);
}

/* A name or site label token of the text format, in place: %20, %23 and
   %25 become the blank, '#' and '%' that a token cannot hold (any other
   '%' is itself, as before those three were escapes). Then the one name
   rule; 0, or CTXPROF_ERR_PARSE naming the token. */
CTXPROF__PRIV int ctxprof__graph_text_name(ctxprof_graph *g, char *tok, const char *what,
                                           const char *path, unsigned line)
{
    char *r = tok, *w = tok, at[300];
    for (; *r; r++) {
        if (r[0] == '%' && r[1] == '2' && (r[2] == '0' || r[2] == '3' || r[2] == '5')) {
            *w++ = r[2] == '0' ? ' ' : r[2] == '3' ? '#' : '%';
            r += 2;
        } else {
            *w++ = *r;
        }
    }
    *w = '\0';
    snprintf(at, sizeof at, "%s:%u: ", path, line);
    return ctxprof__graph_name_check(g, CTXPROF_ERR_PARSE, at, what, "'", tok, "");
}

/* The ctxprof-callgraph 1 text format. */
CTXPROF__PRIV int ctxprof__graph_parse_text(ctxprof_graph *g, char *buf, size_t len,
                                            const char *path)
{
    ctxprof__lines L;
    char *tok, where[300];
    unsigned root_line = 0;
    const char *file = ctxprof__graph_str(g, path);
    size_t i;
    if (!file)
        return ctxprof__fail(&g->error, CTXPROF_ERR_NOMEM, 0, "out of memory");
    /* Lines end in LF (a CR before it is a blank). A CR followed by more
       text on the first line is a file with CR line ends (classic Mac
       OS): said as such, not as "unsupported version '1'". */
    for (i = 0; i < len && buf[i] != '\n'; i++)
        if (buf[i] == '\r' && i + 1 < len && buf[i + 1] != '\n' && buf[i + 1] != '\r' &&
            buf[i + 1] != ' ' && buf[i + 1] != '\t')
            return ctxprof__fail(&g->error, CTXPROF_ERR_PARSE, 0,
                                 "%s:1: lines end in CR alone (old Mac OS line ends): convert "
                                 "them to LF or CR LF",
                                 path);
    ctxprof__lines_init(&L, buf, len, path);
    if (!ctxprof__lines_next(&L))
        return ctxprof__fail(&g->error, CTXPROF_ERR_PARSE, 0,
                             "%s: empty input (expected 'ctxprof-callgraph 1')", path);
    tok = ctxprof__lines_tok(&L);
    if (strcmp(tok, "ctxprof-callgraph") != 0)
        return ctxprof__fail(&g->error, CTXPROF_ERR_PARSE, 0,
                             "%s:%u: not a call graph: the first line must be "
                             "'ctxprof-callgraph 1' or a gcc .ci graph",
                             path, L.line);
    tok = ctxprof__lines_tok(&L);
    if (!tok || strcmp(tok, "1") != 0)
        return ctxprof__fail(&g->error, CTXPROF_ERR_MISMATCH, 0,
                             "%s:%u: unsupported call graph version '%s' (this library reads 1)",
                             path, L.line, tok ? tok : "");
    if ((tok = ctxprof__lines_tok(&L)) != NULL)
        return ctxprof__fail(&g->error, CTXPROF_ERR_PARSE, 0,
                             "%s:%u: unexpected '%s' after 'ctxprof-callgraph 1' (the first "
                             "line is the magic and the version only)",
                             path, L.line, tok);
    while (ctxprof__lines_next(&L)) {
        char *kw = ctxprof__lines_tok(&L), *a, *b, *opt;
        if (strcmp(kw, "root") == 0) {
            a = ctxprof__lines_tok(&L);
            if (!a)
                return ctxprof__fail(&g->error, CTXPROF_ERR_PARSE, 0,
                                     "%s:%u: root needs a function name", path, L.line);
            if ((opt = ctxprof__lines_tok(&L)) != NULL)
                return ctxprof__fail(&g->error, CTXPROF_ERR_PARSE, 0,
                                     "%s:%u: unexpected '%s' after the root name", path, L.line,
                                     opt);
            if (root_line)
                return ctxprof__fail(&g->error, CTXPROF_ERR_PARSE, 0,
                                     "%s:%u: second root line (the first is line %u)", path,
                                     L.line, root_line);
            root_line = L.line;
            if (ctxprof__graph_text_name(g, a, "function name", path, L.line) ||
                ctxprof__graph_input_root(g, a, path, L.line))
                return g->error.status;
        } else if (strcmp(kw, "func") == 0) {
            uint64_t frame = 0;
            long id;
            a = ctxprof__lines_tok(&L);
            if (!a)
                return ctxprof__fail(&g->error, CTXPROF_ERR_PARSE, 0,
                                     "%s:%u: func needs a function name", path, L.line);
            while ((opt = ctxprof__lines_tok(&L)) != NULL) {
                if (strncmp(opt, "frame=", 6) == 0) {
                    if (ctxprof__parse_u64(opt + 6, &frame))
                        return ctxprof__fail(&g->error, CTXPROF_ERR_PARSE, 0,
                                             "%s:%u: bad frame size '%s' (expected bytes)", path,
                                             L.line, opt + 6);
                } else {
                    return ctxprof__fail(&g->error, CTXPROF_ERR_PARSE, 0,
                                         "%s:%u: unknown attribute '%s' (func takes frame=BYTES)",
                                         path, L.line, opt);
                }
            }
            if (ctxprof__graph_text_name(g, a, "function name", path, L.line))
                return g->error.status;
            snprintf(where, sizeof where, "%s:%u", path, L.line);
            if ((id = ctxprof__graph_text_node(g, a, path, L.line)) == -2)
                continue;
            if (id < 0 || ctxprof__graph_declare(g, (uint32_t)id, frame, 1, where, NULL))
                return ctxprof__fail(&g->error, CTXPROF_ERR_NOMEM, 0, "out of memory");
        } else if (strcmp(kw, "call") == 0) {
            const char *label = NULL;
            long ia, ib, e;
            uint32_t dup = 0;
            a = ctxprof__lines_tok(&L);
            b = a ? ctxprof__lines_tok(&L) : NULL;
            if (!b)
                return ctxprof__fail(&g->error, CTXPROF_ERR_PARSE, 0,
                                     "%s:%u: call needs a caller and a callee", path, L.line);
            while ((opt = ctxprof__lines_tok(&L)) != NULL) {
                if (strcmp(opt, "site=") == 0)
                    return ctxprof__fail(&g->error, CTXPROF_ERR_PARSE, 0,
                                         "%s:%u: empty site label (site= takes a label: "
                                         "site=LABEL)",
                                         path, L.line);
                if (strncmp(opt, "site=", 5) == 0) {
                    if (label)
                        return ctxprof__fail(&g->error, CTXPROF_ERR_PARSE, 0,
                                             "%s:%u: second site= ('%s' after site=%s): a call "
                                             "line is one call site",
                                             path, L.line, opt + 5, label);
                    if (ctxprof__graph_text_name(g, opt + 5, "site label", path, L.line))
                        return g->error.status;
                    label = opt + 5;
                } else {
                    return ctxprof__fail(&g->error, CTXPROF_ERR_PARSE, 0,
                                         "%s:%u: unknown attribute '%s' (call takes site=LABEL)",
                                         path, L.line, opt);
                }
            }
            if (ctxprof__graph_text_name(g, a, "function name", path, L.line) ||
                ctxprof__graph_text_name(g, b, "function name", path, L.line))
                return g->error.status;
            ia = ctxprof__graph_text_node(g, a, path, L.line);
            ib = ia == -1 ? -1 : ctxprof__graph_text_node(g, b, path, L.line);
            if (ia == -1 || ib == -1)
                return ctxprof__fail(&g->error, CTXPROF_ERR_NOMEM, 0, "out of memory");
            if (ia == -2 || ib == -2)
                continue;
            e = ctxprof__graph_edge(g, (uint32_t)ia, (uint32_t)ib, label, CTXPROF_GRAPH_EDGE_TEXT,
                                    file, L.line, &dup);
            if (e == -2)
                return ctxprof__fail(&g->error, CTXPROF_ERR_PARSE, 0,
                                     "%s:%u: duplicate edge %s -> %s%s%s (first at line %u; "
                                     "tell call sites apart with site=LABEL)",
                                     path, L.line, a, b, label ? " site=" : "",
                                     label ? label : "", g->edges[dup].line);
            if (e < 0)
                return ctxprof__fail(&g->error, CTXPROF_ERR_NOMEM, 0, "out of memory");
        } else {
            return ctxprof__fail(&g->error, CTXPROF_ERR_PARSE, 0,
                                 "%s:%u: unknown keyword '%s' (expected root, func or call)",
                                 path, L.line, kw);
        }
    }
    return CTXPROF_OK;
}

/* --- gcc -fcallgraph-info output (VCG) --- */

enum { CTXPROF__VCG_EOF, CTXPROF__VCG_WORD, CTXPROF__VCG_STR, CTXPROF__VCG_PUNCT };

typedef struct ctxprof__vcg {
    char *p, *end;
    const char *path;
    unsigned line, col;         /* position of p */
    int type;                   /* last token */
    char *text;                 /* its text (NUL-terminated in place) */
    char punct;                 /* ':', '{' or '}' */
    unsigned tline, tcol;       /* its position */
    ctxprof_error *err;
    char word[256];             /* text of the last word token */
} ctxprof__vcg;

/* Next token; 0 or CTXPROF_ERR_PARSE. Strings are unescaped in place. */
CTXPROF__PRIV int ctxprof__vcg_next(ctxprof__vcg *V)
{
    for (;;) {
        while (V->p < V->end && (*V->p == ' ' || *V->p == '\t' || *V->p == '\r' || *V->p == '\n')) {
            if (*V->p == '\n') {
                V->line++;
                V->col = 1;
            } else {
                V->col++;
            }
            V->p++;
        }
        /* VCG comments: C and C++ style */
        if (V->p + 1 < V->end && V->p[0] == '/' && V->p[1] == '/') {
            while (V->p < V->end && *V->p != '\n')
                V->p++;
            continue;
        }
        if (V->p + 1 < V->end && V->p[0] == '/' && V->p[1] == '*') {
            V->p += 2;
            V->col += 2;
            while (V->p + 1 < V->end && !(V->p[0] == '*' && V->p[1] == '/')) {
                if (*V->p == '\n') {
                    V->line++;
                    V->col = 0;
                }
                V->p++;
                V->col++;
            }
            if (V->p + 1 >= V->end)
                return ctxprof__fail(V->err, CTXPROF_ERR_PARSE, 0, "%s:%u:%u: unterminated comment",
                                     V->path, V->line, V->col);
            V->p += 2;
            V->col += 2;
            continue;
        }
        break;
    }
    V->tline = V->line;
    V->tcol = V->col;
    if (V->p >= V->end || *V->p == '\0') {
        V->type = CTXPROF__VCG_EOF;
        V->text = NULL;
        return CTXPROF_OK;
    }
    if (*V->p == ':' || *V->p == '{' || *V->p == '}') {
        V->type = CTXPROF__VCG_PUNCT;
        V->punct = *V->p++;
        V->col++;
        return CTXPROF_OK;
    }
    if (*V->p == '"') {
        char *out = ++V->p;
        V->text = out;
        V->col++;
        while (V->p < V->end && *V->p != '"') {
            char c = *V->p++;
            V->col++;
            if (c == '\n') {
                V->line++;
                V->col = 1;
            }
            if (c == '\\' && V->p < V->end) {
                c = *V->p++;
                V->col++;
                if (c == 'n')
                    c = '\n';
                else if (c == 't')
                    c = '\t';
            }
            *out++ = c;
        }
        if (V->p >= V->end)
            return ctxprof__fail(V->err, CTXPROF_ERR_PARSE, 0, "%s:%u:%u: unterminated string",
                                 V->path, V->tline, V->tcol);
        *out = '\0'; /* out <= p: the closing quote's slot or earlier */
        V->p++;
        V->col++;
        V->type = CTXPROF__VCG_STR;
        return CTXPROF_OK;
    }
    {
        const char *s = V->p;
        size_t n;
        while (V->p < V->end && *V->p && !strchr(" \t\r\n:{}\"", *V->p)) {
            V->p++;
            V->col++;
        }
        n = (size_t)(V->p - s);
        if (n == 0)
            return ctxprof__fail(V->err, CTXPROF_ERR_PARSE, 0, "%s:%u:%u: unexpected character",
                                 V->path, V->tline, V->tcol);
        if (n >= sizeof V->word)
            return ctxprof__fail(V->err, CTXPROF_ERR_PARSE, 0, "%s:%u:%u: word too long",
                                 V->path, V->tline, V->tcol);
        memcpy(V->word, s, n);
        V->word[n] = '\0';
        V->text = V->word;
        V->type = CTXPROF__VCG_WORD;
        return CTXPROF_OK;
    }
}

CTXPROF__PRIV const char *ctxprof__vcg_what(const ctxprof__vcg *V, char *buf, size_t size)
{
    if (V->type == CTXPROF__VCG_EOF)
        return "end of input";
    if (V->type == CTXPROF__VCG_STR)
        return "a string";
    if (V->type == CTXPROF__VCG_PUNCT)
        snprintf(buf, size, "'%c'", V->punct);
    else
        snprintf(buf, size, "'%.60s'", V->text);
    return buf;
}

enum { CTXPROF__VCG_TOP, CTXPROF__VCG_GRAPH, CTXPROF__VCG_NODE, CTXPROF__VCG_EDGE };

typedef struct ctxprof__vcg_obj {
    const char *title, *label, *src, *dst;
    int ellipse;
    unsigned line, col;
} ctxprof__vcg_obj;

/* The one name rule (ctxprof__graph_name_bad) for the value of a node's or
   edge's attribute `key` (NULL: absent, fine); 0 or CTXPROF_ERR_PARSE. */
CTXPROF__PRIV int ctxprof__vcg_name(ctxprof_graph *g, const ctxprof__vcg *V,
                                    const ctxprof__vcg_obj *o, const char *key, const char *val)
{
    char at[300], tail[80];
    if (!val)
        return CTXPROF_OK;
    snprintf(at, sizeof at, "%s:%u:%u: ", V->path, o->line, o->col);
    snprintf(tail, sizeof tail, " (a %s is not empty and holds no control character)",
             strcmp(key, "label") == 0 ? "call site label" : "function name");
    return ctxprof__graph_name_check(g, CTXPROF_ERR_PARSE, at, key, "\"", val, tail);
}

CTXPROF__PRIV int ctxprof__vcg_node(ctxprof_graph *g, ctxprof__vcg *V, const ctxprof__vcg_obj *o)
{
    char buf[512];
    const char *disp = NULL, *where = NULL;
    uint64_t frame = 0;
    int body = !o->ellipse;
    long id;
    if (!o->title)
        return ctxprof__fail(&g->error, CTXPROF_ERR_PARSE, 0, "%s:%u:%u: node without a title",
                             V->path, o->line, o->col);
    if (ctxprof__vcg_name(g, V, o, "title", o->title))
        return g->error.status;
    if (strcmp(o->title, "__indirect_call") == 0)
        return CTXPROF_OK; /* gcc's placeholder: the calls to it are counted, not kept */
    if (o->label) {
        /* "name\nfile:line:col\nN bytes (static)" */
        const char *s = o->label;
        int k = 0;
        while (*s) {
            const char *e = strchr(s, '\n');
            size_t n = e ? (size_t)(e - s) : strlen(s);
            if (n >= sizeof buf)
                n = sizeof buf - 1;
            memcpy(buf, s, n);
            buf[n] = '\0';
            if (k == 0 && n > 0)
                disp = ctxprof__graph_str(g, buf);
            else if (k == 1 && strchr(buf, ':'))
                where = ctxprof__graph_str(g, buf);
            else if (k >= 1 && strstr(buf, " bytes")) {
                uint64_t v = 0;
                const char *q = buf;
                while (*q >= '0' && *q <= '9' && v < UINT64_MAX / 10)
                    v = v * 10 + (uint64_t)(*q++ - '0');
                frame = v;
            }
            k++;
            s += n;
            if (*s == '\n')
                s++;
            else if (*s) /* truncated line: skip its rest */
                s = strchr(s, '\n') ? strchr(s, '\n') + 1 : s + strlen(s);
        }
    }
    if ((id = ctxprof__graph_node(g, o->title)) < 0 ||
        ctxprof__graph_declare(g, (uint32_t)id, frame, body, where, disp))
        return ctxprof__fail(&g->error, CTXPROF_ERR_NOMEM, 0, "out of memory");
    return CTXPROF_OK;
}

CTXPROF__PRIV int ctxprof__vcg_edge(ctxprof_graph *g, ctxprof__vcg *V, const ctxprof__vcg_obj *o,
                                    const char *file)
{
    ctxprof__graph_priv *P = CTXPROF__GP(g);
    long a, b, e;
    uint32_t dup;
    if (!o->src || !o->dst)
        return ctxprof__fail(&g->error, CTXPROF_ERR_PARSE, 0,
                             "%s:%u:%u: edge without %s", V->path, o->line, o->col,
                             !o->src ? "sourcename" : "targetname");
    if (ctxprof__vcg_name(g, V, o, "sourcename", o->src) ||
        ctxprof__vcg_name(g, V, o, "targetname", o->dst) ||
        ctxprof__vcg_name(g, V, o, "label", o->label))
        return g->error.status;
    if ((a = ctxprof__graph_node(g, o->src)) < 0)
        return ctxprof__fail(&g->error, CTXPROF_ERR_NOMEM, 0, "out of memory");
    if (strcmp(o->dst, "__indirect_call") == 0) {
        const char *lab = o->label ? ctxprof__graph_str(g, o->label) : NULL;
        if (ctxprof__reserve((void **)&P->ind_caller, &P->ind_cap, P->n_ind, P->n_ind + 1,
                             sizeof *P->ind_caller, P->ud) ||
            ctxprof__reserve((void **)&P->ind_label, &P->ind_label_cap, P->n_ind, P->n_ind + 1,
                             sizeof *P->ind_label, P->ud) ||
            (o->label && !lab))
            return ctxprof__fail(&g->error, CTXPROF_ERR_NOMEM, 0, "out of memory");
        P->ind_caller[P->n_ind] = (uint32_t)a;
        P->ind_label[P->n_ind] = lab;
        P->n_ind++;
        return CTXPROF_OK;
    }
    if ((b = ctxprof__graph_node(g, o->dst)) < 0)
        return ctxprof__fail(&g->error, CTXPROF_ERR_NOMEM, 0, "out of memory");
    e = ctxprof__graph_edge(g, (uint32_t)a, (uint32_t)b, o->label, CTXPROF_GRAPH_EDGE_GCC, file,
                            o->line, &dup);
    if (e < 0)
        return ctxprof__fail(&g->error, CTXPROF_ERR_NOMEM, 0, "out of memory");
    return CTXPROF_OK;
}

/* One block: the top level (graphs), a graph (attributes, nodes, edges,
   subgraphs) or a node/edge (attributes). */
CTXPROF__PRIV int ctxprof__vcg_block(ctxprof_graph *g, ctxprof__vcg *V, int kind, int depth,
                                     const char *file)
{
    ctxprof__vcg_obj o;
    char what[80];
    memset(&o, 0, sizeof o);
    o.line = V->tline;
    o.col = V->tcol;
    if (depth > 64)
        return ctxprof__fail(&g->error, CTXPROF_ERR_PARSE, 0, "%s:%u:%u: graphs nested too deeply",
                             V->path, V->tline, V->tcol);
    for (;;) {
        char key[64];
        unsigned kl, kc;
        if (ctxprof__vcg_next(V))
            return g->error.status;
        if (V->type == CTXPROF__VCG_EOF) {
            if (kind == CTXPROF__VCG_TOP)
                return CTXPROF_OK;
            return ctxprof__fail(&g->error, CTXPROF_ERR_PARSE, 0,
                                 "%s:%u:%u: unexpected end of input (missing '}' for the block "
                                 "at line %u)",
                                 V->path, V->tline, V->tcol, o.line);
        }
        if (V->type == CTXPROF__VCG_PUNCT && V->punct == '}' && kind != CTXPROF__VCG_TOP)
            break;
        if (V->type != CTXPROF__VCG_WORD)
            return ctxprof__fail(&g->error, CTXPROF_ERR_PARSE, 0, "%s:%u:%u: unexpected %s",
                                 V->path, V->tline, V->tcol,
                                 ctxprof__vcg_what(V, what, sizeof what));
        snprintf(key, sizeof key, "%s", V->text);
        kl = V->tline;
        kc = V->tcol;
        if (kind == CTXPROF__VCG_TOP && strcmp(key, "graph") != 0)
            return ctxprof__fail(&g->error, CTXPROF_ERR_PARSE, 0,
                                 "%s:%u:%u: unknown keyword '%s' (expected graph)", V->path,
                                 V->tline, V->tcol, key);
        if (ctxprof__vcg_next(V))
            return g->error.status;
        if (V->type != CTXPROF__VCG_PUNCT || V->punct != ':')
            return ctxprof__fail(&g->error, CTXPROF_ERR_PARSE, 0,
                                 "%s:%u:%u: expected ':' after '%s', got %s", V->path, V->tline,
                                 V->tcol, key, ctxprof__vcg_what(V, what, sizeof what));
        if (ctxprof__vcg_next(V))
            return g->error.status;
        if (V->type == CTXPROF__VCG_PUNCT && V->punct == '{') {
            int sub;
            if (kind == CTXPROF__VCG_NODE || kind == CTXPROF__VCG_EDGE)
                return ctxprof__fail(&g->error, CTXPROF_ERR_PARSE, 0,
                                     "%s:%u:%u: unexpected '{' inside a node or edge", V->path,
                                     V->tline, V->tcol);
            if (strcmp(key, "graph") == 0)
                sub = CTXPROF__VCG_GRAPH;
            else if (strcmp(key, "node") == 0)
                sub = CTXPROF__VCG_NODE;
            else if (strcmp(key, "edge") == 0 || strcmp(key, "nearedge") == 0 ||
                     strcmp(key, "bentnearedge") == 0 || strcmp(key, "backedge") == 0)
                sub = CTXPROF__VCG_EDGE;
            else
                return ctxprof__fail(&g->error, CTXPROF_ERR_PARSE, 0,
                                     "%s:%u:%u: unknown keyword '%s' (expected graph, node or "
                                     "edge)",
                                     V->path, kl, kc, key);
            if (ctxprof__vcg_block(g, V, sub, depth + 1, file))
                return g->error.status;
            continue;
        }
        if (V->type != CTXPROF__VCG_STR && V->type != CTXPROF__VCG_WORD)
            return ctxprof__fail(&g->error, CTXPROF_ERR_PARSE, 0,
                                 "%s:%u:%u: expected a value after '%s:', got %s", V->path,
                                 V->tline, V->tcol, key, ctxprof__vcg_what(V, what, sizeof what));
        if (kind == CTXPROF__VCG_NODE || kind == CTXPROF__VCG_EDGE) {
            /* strings live in the buffer; words are copied (the next token reuses V->word) */
            const char *val = V->type == CTXPROF__VCG_STR ? V->text : ctxprof__graph_str(g, V->text);
            if (!val)
                return ctxprof__fail(&g->error, CTXPROF_ERR_NOMEM, 0, "out of memory");
            if (strcmp(key, "title") == 0)
                o.title = val;
            else if (strcmp(key, "label") == 0)
                o.label = val;
            else if (strcmp(key, "sourcename") == 0)
                o.src = val;
            else if (strcmp(key, "targetname") == 0)
                o.dst = val;
            else if (strcmp(key, "shape") == 0)
                o.ellipse = strcmp(val, "ellipse") == 0;
            /* other VCG attributes (color, ...) do not matter here */
        }
    }
    if (kind == CTXPROF__VCG_NODE)
        return ctxprof__vcg_node(g, V, &o);
    if (kind == CTXPROF__VCG_EDGE)
        return ctxprof__vcg_edge(g, V, &o, file);
    return CTXPROF_OK;
}

CTXPROF__PRIV int ctxprof__graph_parse_vcg(ctxprof_graph *g, char *buf, size_t len,
                                           const char *path)
{
    ctxprof__vcg V;
    const char *file = ctxprof__graph_str(g, path);
    if (!file)
        return ctxprof__fail(&g->error, CTXPROF_ERR_NOMEM, 0, "out of memory");
    memset(&V, 0, sizeof V);
    V.p = buf;
    V.end = buf + len;
    V.path = path;
    V.line = 1;
    V.col = 1;
    V.err = &g->error;
    return ctxprof__vcg_block(g, &V, CTXPROF__VCG_TOP, 0, file);
}

/* Parses one input (buf is modified) with rollback on failure. */
CTXPROF__PRIV int ctxprof__graph_input(ctxprof_graph *g, char *buf, size_t len, const char *path)
{
    ctxprof__graph_priv *P = CTXPROF__GP(g);
    size_t nn = g->n_nodes, ne = g->n_edges, ni = P->n_ind;
    const char *rn = P->root_name, *rw = P->root_where;
    uint32_t ri = P->root_input;
    const char *s = buf;
    int st;
    P->n_undo = 0;
    P->input++;
    if (ctxprof__text_nul(buf, len, path, "a text call graph", &g->error))
        return g->error.status;
    while (s < buf + len && (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n'))
        s++;
    /* VCG starts with "graph" or a C/C++ comment; the text format with its
       magic or a '#' comment */
    if ((len - (size_t)(s - buf) >= 5 && memcmp(s, "graph", 5) == 0) ||
        (len - (size_t)(s - buf) >= 2 && s[0] == '/' && (s[1] == '/' || s[1] == '*'))) {
        st = ctxprof__graph_parse_vcg(g, buf, len, path);
        if (st == CTXPROF_OK)
            P->have_gcc = 1;
    } else {
        st = ctxprof__graph_parse_text(g, buf, len, path);
    }
    if (st != CTXPROF_OK) {
        ctxprof__graph_rollback(g, nn, ne, ni, rn, ri, rw);
        return st;
    }
    P->n_undo = 0;
    ctxprof__graph_free_analysis(g);
    return CTXPROF_OK;
}

CTXPROF_DEF int ctxprof_graph_parse(ctxprof_graph *g, const char *text, size_t len,
                                    const char *name)
{
    ctxprof__graph_priv *P = CTXPROF__GP(g);
    char *buf;
    int st;
    if (!P || !text)
        return ctxprof__fail(&g->error, CTXPROF_ERR_INVAL, 0, "no graph or no text");
    buf = (char *)ctxprof__alloc(len + 1, 1, P->ud);
    if (!buf)
        return ctxprof__fail(&g->error, CTXPROF_ERR_NOMEM, 0, "out of memory");
    memcpy(buf, text, len);
    buf[len] = '\0';
    st = ctxprof__graph_input(g, buf, len, name ? name : "<input>");
    ctxprof__free(buf, P->ud);
    return st;
}

CTXPROF_DEF int ctxprof_graph_load(ctxprof_graph *g, const char *path)
{
    ctxprof__graph_priv *P = CTXPROF__GP(g);
    char *buf;
    size_t len;
    int st;
    if (!P)
        return ctxprof__fail(&g->error, CTXPROF_ERR_INVAL, 0, "graph not initialised");
    if ((st = ctxprof__read_file(path, &buf, &len, P->ud, &g->error)) != CTXPROF_OK)
        return st;
    st = ctxprof__graph_input(g, buf, len, strcmp(path, "-") == 0 ? "<stdin>" : path);
    ctxprof__free(buf, P->ud);
    return st;
}

CTXPROF_DEF long ctxprof_graph_add_node(ctxprof_graph *g, const char *name, uint64_t frame)
{
    long id;
    if (!g->priv || !name)
        return ctxprof__fail(&g->error, CTXPROF_ERR_INVAL, 0, "no function name"), -1;
    if (ctxprof__graph_api_name(g, "function name", name))
        return -1;
    CTXPROF__GP(g)->n_undo = 0;
    id = ctxprof__graph_node(g, name);
    if (id < 0 || ctxprof__graph_declare(g, (uint32_t)id, frame, 1, NULL, NULL))
        return ctxprof__fail(&g->error, CTXPROF_ERR_NOMEM, 0, "out of memory"), -1;
    CTXPROF__GP(g)->n_undo = 0;
    ctxprof__graph_free_analysis(g);
    return id;
}

CTXPROF_DEF long ctxprof_graph_add_edge(ctxprof_graph *g, const char *caller, const char *callee,
                                        const char *label)
{
    ctxprof__graph_priv *P = CTXPROF__GP(g);
    long a, b, e;
    uint32_t dup;
    if (!P || !caller || !callee)
        return ctxprof__fail(&g->error, CTXPROF_ERR_INVAL, 0, "no caller or callee"), -1;
    if (ctxprof__graph_api_name(g, "caller", caller) ||
        ctxprof__graph_api_name(g, "callee", callee) ||
        (label && ctxprof__graph_api_name(g, "site label", label)))
        return -1;
    P->n_undo = 0;
    P->input++; /* each API edge is its own input: repeats merge */
    if ((a = ctxprof__graph_node(g, caller)) < 0 || (b = ctxprof__graph_node(g, callee)) < 0)
        return ctxprof__fail(&g->error, CTXPROF_ERR_NOMEM, 0, "out of memory"), -1;
    e = ctxprof__graph_edge(g, (uint32_t)a, (uint32_t)b, label, CTXPROF_GRAPH_EDGE_TEXT, NULL, 0,
                            &dup);
    P->n_undo = 0;
    if (e < 0)
        return ctxprof__fail(&g->error, CTXPROF_ERR_NOMEM, 0, "out of memory"), -1;
    ctxprof__graph_free_analysis(g);
    return e;
}

CTXPROF_DEF int ctxprof_graph_set_root(ctxprof_graph *g, const char *name)
{
    ctxprof__graph_priv *P = CTXPROF__GP(g);
    const char *s;
    if (!P || !name)
        return ctxprof__fail(&g->error, CTXPROF_ERR_INVAL, 0, "no root name");
    if (ctxprof__graph_api_name(g, "root name", name))
        return g->error.status;
    if (!(s = ctxprof__graph_str(g, name)))
        return ctxprof__fail(&g->error, CTXPROF_ERR_NOMEM, 0, "out of memory");
    P->root_name = s;
    P->root_fixed = 1;
    ctxprof__graph_free_analysis(g);
    return CTXPROF_OK;
}

CTXPROF_DEF long ctxprof_graph_find(const ctxprof_graph *g, const char *name)
{
    const ctxprof__graph_priv *P = (const ctxprof__graph_priv *)g->priv;
    long id;
    size_t i;
    if (!P || !name)
        return -1;
    id = ctxprof__strtab_find(&P->names, name);
    if (id >= 0)
        return id;
    for (i = 0; i < g->n_nodes; i++)
        if (g->nodes[i].cname && strcmp(g->nodes[i].cname, name) == 0)
            return (long)i;
    return -1;
}

/* Copies name into out as a C identifier: other characters become '_'. */
CTXPROF__PRIV void ctxprof__cident(const char *name, char *out, size_t size)
{
    size_t i = 0;
    if ((*name >= '0' && *name <= '9') || !*name)
        out[i++] = '_';
    for (; *name && i + 1 < size; name++) {
        char c = *name;
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '_';
        out[i++] = ok ? c : '_';
    }
    out[i] = '\0';
}

/* C names: gcc's display name (or the name) made an identifier; when two
   functions would share one, the full name, then a numeric suffix. */
CTXPROF__PRIV int ctxprof__graph_cnames(ctxprof_graph *g)
{
    ctxprof__graph_priv *P = CTXPROF__GP(g);
    ctxprof__strtab cand;
    uint32_t *cid = NULL, *count = NULL;
    char buf[512];
    size_t v, n = g->n_nodes;
    int pass, st = CTXPROF_ERR_NOMEM;
    ctxprof__strtab_deinit(&P->cnames);
    ctxprof__strtab_init(&P->cnames, P->ud);
    ctxprof__strtab_init(&cand, P->ud);
    cid = (uint32_t *)ctxprof__alloc(n, sizeof *cid, P->ud);
    count = (uint32_t *)ctxprof__zalloc(n, sizeof *count, P->ud);
    if (!cid || !count)
        goto out;
    for (v = 0; v < n; v++)
        g->nodes[v].cname = NULL;
    for (v = 0; v < n; v++) {
        long id;
        const char *pref = P->disp[v] ? P->strs.names[P->disp[v] - 1] : g->nodes[v].name;
        ctxprof__cident(pref, buf, sizeof buf);
        if ((id = ctxprof__strtab_intern(&cand, buf)) < 0)
            goto out;
        cid[v] = (uint32_t)id;
        count[id]++;
    }
    /* pass 0: unique candidates; 1: names that are already this identifier;
       2: the rest, with the full name and then a numeric suffix */
    for (pass = 0; pass < 3; pass++)
        for (v = 0; v < n; v++) {
            long id;
            unsigned k = 2;
            const char *cn = cand.names[cid[v]];
            if (g->nodes[v].cname && pass > 0)
                continue;
            if ((count[cid[v]] == 1) != (pass == 0))
                continue;
            if (pass == 1 && (strcmp(cn, g->nodes[v].name) != 0 ||
                              ctxprof__strtab_find(&P->cnames, cn) >= 0))
                continue;
            if (pass < 2) {
                snprintf(buf, sizeof buf, "%s", cn);
            } else {
                ctxprof__cident(g->nodes[v].name, buf, sizeof buf);
                while (ctxprof__strtab_find(&P->cnames, buf) >= 0 ||
                       (ctxprof__strtab_find(&cand, buf) >= 0 &&
                        count[ctxprof__strtab_find(&cand, buf)] == 1)) {
                    char base[480];
                    ctxprof__cident(g->nodes[v].name, base, sizeof base);
                    snprintf(buf, sizeof buf, "%s_%u", base, k++);
                }
            }
            if ((id = ctxprof__strtab_intern(&P->cnames, buf)) < 0)
                goto out;
            g->nodes[v].cname = P->cnames.names[id];
        }
    st = CTXPROF_OK;
out:
    ctxprof__strtab_deinit(&cand);
    ctxprof__free(cid, P->ud);
    ctxprof__free(count, P->ud);
    return st;
}

/* Builds first[]/list[] (CSR) of edge ids grouped by key (caller or callee). */
CTXPROF__PRIV int ctxprof__graph_csr(const ctxprof_graph *g, int by_callee, uint32_t **first,
                                     uint32_t **list, void *ud)
{
    size_t v, e, n = g->n_nodes, m = g->n_edges;
    uint32_t *f = (uint32_t *)ctxprof__zalloc(n + 1, sizeof *f, ud);
    uint32_t *l = (uint32_t *)ctxprof__alloc(m, sizeof *l, ud);
    if (!f || !l) {
        ctxprof__free(f, ud);
        ctxprof__free(l, ud);
        return CTXPROF_ERR_NOMEM;
    }
    for (e = 0; e < m; e++)
        f[(by_callee ? g->edges[e].callee : g->edges[e].caller) + 1]++;
    for (v = 0; v < n; v++)
        f[v + 1] += f[v];
    for (e = 0; e < m; e++) /* stable: input order within a group */
        l[f[by_callee ? g->edges[e].callee : g->edges[e].caller]++] = (uint32_t)e;
    for (v = n; v > 0; v--)
        f[v] = f[v - 1];
    f[0] = 0;
    *first = f;
    *list = l;
    return CTXPROF_OK;
}

/* Iterative Tarjan: component ids in completion order, which is a reverse
   topological order of the condensation (a component completes after every
   component it reaches). Returns the number of components, 0 on NOMEM. */
CTXPROF__PRIV size_t ctxprof__graph_tarjan(ctxprof_graph *g, void *ud)
{
    size_t n = g->n_nodes, v0, nscc = 0, top = 0, sp = 0;
    uint32_t counter = 0;
    uint32_t *idx = (uint32_t *)ctxprof__alloc(n, sizeof *idx, ud);
    uint32_t *low = (uint32_t *)ctxprof__alloc(n, sizeof *low, ud);
    uint32_t *stk = (uint32_t *)ctxprof__alloc(n, sizeof *stk, ud);
    uint32_t *cs = (uint32_t *)ctxprof__alloc(n, sizeof *cs, ud);
    uint32_t *cur = (uint32_t *)ctxprof__alloc(n, sizeof *cur, ud);
    unsigned char *on = (unsigned char *)ctxprof__zalloc(n, 1, ud);
    if (!idx || !low || !stk || !cs || !cur || !on)
        goto out;
    for (v0 = 0; v0 < n; v0++)
        idx[v0] = UINT32_MAX;
    for (v0 = 0; v0 < n; v0++) {
        if (idx[v0] != UINT32_MAX)
            continue;
        idx[v0] = low[v0] = counter++;
        stk[sp++] = (uint32_t)v0;
        on[v0] = 1;
        cs[0] = (uint32_t)v0;
        cur[0] = g->out_first[v0];
        top = 1;
        while (top > 0) {
            uint32_t v = cs[top - 1];
            if (cur[top - 1] < g->out_first[v + 1]) {
                uint32_t w = g->edges[g->out_edge[cur[top - 1]++]].callee;
                if (idx[w] == UINT32_MAX) {
                    idx[w] = low[w] = counter++;
                    stk[sp++] = w;
                    on[w] = 1;
                    cs[top] = w;
                    cur[top] = g->out_first[w];
                    top++;
                } else if (on[w] && idx[w] < low[v]) {
                    low[v] = idx[w];
                }
                continue;
            }
            top--;
            if (low[v] == idx[v]) {
                uint32_t w;
                do {
                    w = stk[--sp];
                    on[w] = 0;
                    g->nodes[w].scc = (uint32_t)nscc;
                } while (w != v);
                nscc++;
            }
            if (top > 0 && low[v] < low[cs[top - 1]])
                low[cs[top - 1]] = low[v];
        }
    }
out:
    ctxprof__free(idx, ud);
    ctxprof__free(low, ud);
    ctxprof__free(stk, ud);
    ctxprof__free(cs, ud);
    ctxprof__free(cur, ud);
    ctxprof__free(on, ud);
    return nscc;
}

/* " at FILE:LINE" for messages about function v: its definition (gcc
   node, func line), else the input line of its first call edge; "" when
   the graph has neither. */
CTXPROF__PRIV void ctxprof__graph_where(const ctxprof_graph *g, uint32_t v, char *out,
                                        size_t size)
{
    size_t e;
    out[0] = '\0';
    if (g->nodes[v].where) {
        snprintf(out, size, " at %s", g->nodes[v].where);
        return;
    }
    for (e = 0; e < g->n_edges; e++)
        if ((g->edges[e].caller == v || g->edges[e].callee == v) && g->edges[e].file) {
            snprintf(out, size, " at %s:%u", g->edges[e].file, (unsigned)g->edges[e].line);
            return;
        }
}

CTXPROF_DEF int ctxprof_graph_finish(ctxprof_graph *g)
{
    ctxprof__graph_priv *P = CTXPROF__GP(g);
    size_t n, m, v, e, k, nr = 0;
    uint32_t *queue = NULL, *cur = NULL;
    unsigned char *flag = NULL, *color = NULL;
    ctxprof__map pairs;
    long root;
    int st = CTXPROF_ERR_NOMEM;
    if (!P)
        return ctxprof__fail(&g->error, CTXPROF_ERR_INVAL, 0, "graph not initialised");
    ctxprof__graph_free_analysis(g);
    n = g->n_nodes;
    m = g->n_edges;
    if (n == 0)
        return ctxprof__fail(&g->error, CTXPROF_ERR_PARSE, 0, "empty call graph: no functions");

    /* sites: per (caller, callee), in input order */
    memset(&pairs, 0, sizeof pairs);
    pairs.ud = P->ud;
    for (e = 0; e < m; e++) {
        ctxprof_graph_edge *E = &g->edges[e];
        uint64_t key = ctxprof__graph_pair_key(E->caller, E->callee);
        uint32_t c = ctxprof__map_get(&pairs, key);
        E->site = c == UINT32_MAX ? 0 : c + 1;
        if (ctxprof__map_put(&pairs, key, E->site)) {
            ctxprof__map_free(&pairs);
            goto fail;
        }
    }
    ctxprof__map_free(&pairs);
    if (ctxprof__graph_cnames(g))
        goto fail;
    root = ctxprof__strtab_find(&P->names, P->root_name ? P->root_name : "main");
    if (root < 0 && P->root_name) /* a C name given on the command line */
        for (v = 0; v < n && root < 0; v++)
            if (g->nodes[v].cname && strcmp(g->nodes[v].cname, P->root_name) == 0)
                root = (long)v;
    if (root < 0) {
        if (P->root_name && P->root_where)
            return ctxprof__fail(&g->error, CTXPROF_ERR_PARSE, 0,
                                 "%s: root '%s' is not a function of the call graph", P->root_where,
                                 P->root_name);
        if (P->root_name)
            return ctxprof__fail(&g->error, CTXPROF_ERR_PARSE, 0,
                                 "root '%s' is not a function of the call graph", P->root_name);
        return ctxprof__fail(&g->error, CTXPROF_ERR_PARSE, 0,
                             "missing root: no 'root' line and no function named 'main' "
                             "(name one with a root line or --root NAME)");
    }
    g->root = (uint32_t)root;
    if (ctxprof__graph_csr(g, 0, &g->out_first, &g->out_edge, P->ud) ||
        ctxprof__graph_csr(g, 1, &g->in_first, &g->in_edge, P->ud))
        goto fail;

    /* components, cyclic edges */
    for (v = 0; v < n; v++)
        g->nodes[v].flags &= ~(uint32_t)(CTXPROF_GRAPH_NODE_ROOT | CTXPROF_GRAPH_NODE_UNREACHABLE |
                                         CTXPROF_GRAPH_NODE_COMPLEX);
    if ((g->n_sccs = ctxprof__graph_tarjan(g, P->ud)) == 0)
        goto fail;
    flag = (unsigned char *)ctxprof__zalloc(g->n_sccs, 1, P->ud); /* 1 complex, 2 has entry */
    color = (unsigned char *)ctxprof__zalloc(n, 1, P->ud);
    queue = (uint32_t *)ctxprof__alloc(n, sizeof *queue, P->ud);
    cur = (uint32_t *)ctxprof__alloc(n, sizeof *cur, P->ud);
    g->roots = (uint32_t *)ctxprof__alloc(n, sizeof *g->roots, P->ud);
    if (!flag || !color || !queue || !cur || !g->roots)
        goto fail;
    g->n_complex_sccs = g->n_cyclic_edges = g->n_back_edges = 0;
    for (e = 0; e < m; e++) {
        ctxprof_graph_edge *E = &g->edges[e];
        uint32_t a = g->nodes[E->caller].scc, b = g->nodes[E->callee].scc;
        E->flags &= ~(uint32_t)(CTXPROF_GRAPH_EDGE_CYCLIC | CTXPROF_GRAPH_EDGE_BACK);
        if (a == b) {
            E->flags |= CTXPROF_GRAPH_EDGE_CYCLIC;
            g->n_cyclic_edges++;
            if (!(flag[a] & 1))
                g->n_complex_sccs++;
            flag[a] |= 1;
        } else {
            flag[b] |= 2;
        }
    }
    for (v = 0; v < n; v++)
        if (flag[g->nodes[v].scc] & 1)
            g->nodes[v].flags |= CTXPROF_GRAPH_NODE_COMPLEX;

    /* entry points: the root, then the first node of every other source component */
    g->roots[nr++] = g->root;
    flag[g->nodes[g->root].scc] |= 4;
    for (v = 0; v < n; v++) {
        uint32_t s = g->nodes[v].scc;
        if (!(flag[s] & 6)) {
            flag[s] |= 4;
            g->roots[nr++] = (uint32_t)v;
        }
    }
    g->n_roots = nr;
    for (k = 0; k < nr; k++)
        g->nodes[g->roots[k]].flags |= CTXPROF_GRAPH_NODE_ROOT;

    /* reachability from the root (breadth first) */
    {
        size_t qh = 0, qt = 0;
        queue[qt++] = g->root;
        color[g->root] = 1;
        while (qh < qt) {
            uint32_t u = queue[qh++], i;
            for (i = g->out_first[u]; i < g->out_first[u + 1]; i++) {
                uint32_t w = g->edges[g->out_edge[i]].callee;
                if (!color[w]) {
                    color[w] = 1;
                    queue[qt++] = w;
                }
            }
        }
        g->n_unreachable = n - qt;
        for (v = 0; v < n; v++)
            if (!color[v])
                g->nodes[v].flags |= CTXPROF_GRAPH_NODE_UNREACHABLE;
    }

    /* depth-first back edges from the entry points (PCCE's recursive calls) */
    memset(color, 0, n);
    for (k = 0; k < nr; k++) {
        size_t top = 0;
        uint32_t r = g->roots[k];
        if (color[r])
            continue;
        color[r] = 1;
        queue[top] = r;
        cur[top++] = g->out_first[r];
        while (top > 0) {
            uint32_t u = queue[top - 1];
            if (cur[top - 1] < g->out_first[u + 1]) {
                uint32_t ei = g->out_edge[cur[top - 1]++], w = g->edges[ei].callee;
                if (color[w] == 0) {
                    color[w] = 1;
                    queue[top] = w;
                    cur[top++] = g->out_first[w];
                } else if (color[w] == 1) {
                    g->edges[ei].flags |= CTXPROF_GRAPH_EDGE_BACK;
                    g->n_back_edges++;
                }
            } else {
                color[u] = 2;
                top--;
            }
        }
    }

    /* notes for the user */
    if (g->n_unreachable) {
        char list[300];
        size_t used = 0;
        list[0] = '\0';
        for (k = 1; k < nr && used + 80 < sizeof list; k++) {
            char at[120];
            ctxprof__graph_where(g, g->roots[k], at, sizeof at);
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%s%s",
                                     k > 1 ? ", " : "", g->nodes[g->roots[k]].name, at);
        }
        ctxprof__graph_log(g, CTXPROF_LOG_WARN,
                           "%lu function%s not reachable from the root '%s'; treated as reached "
                           "from %lu extra entry point%s (%s%s)",
                           (unsigned long)g->n_unreachable, g->n_unreachable == 1 ? " is" : "s are",
                           g->nodes[g->root].name, (unsigned long)(nr - 1), nr - 1 == 1 ? "" : "s",
                           list, k < nr ? ", ..." : "");
    }
    g->n_indirect = P->n_ind;
    g->n_indirect_open = 0;
    if (P->n_ind) {
        char list[240];
        size_t used = 0, i;
        list[0] = '\0';
        for (i = 0; i < P->n_ind; i++) {
            uint32_t c = P->ind_caller[i], j, resolved = 0;
            for (j = g->out_first[c]; j < g->out_first[c + 1]; j++)
                if (g->edges[g->out_edge[j]].flags & CTXPROF_GRAPH_EDGE_TEXT)
                    resolved = 1;
            if (resolved)
                continue;
            g->n_indirect_open++;
            if (used + 60 < sizeof list)
                used += (size_t)snprintf(list + used, sizeof list - used, "%s%s%s%s%s",
                                         used ? ", " : "", g->nodes[c].name,
                                         P->ind_label[i] ? " (" : "",
                                         P->ind_label[i] ? P->ind_label[i] : "",
                                         P->ind_label[i] ? ")" : "");
        }
        ctxprof__graph_log(g, g->n_indirect_open ? CTXPROF_LOG_WARN : CTXPROF_LOG_INFO,
                           "%lu indirect call site%s (gcc __indirect_call) dropped; %lu in "
                           "callers without edges from a dynamic call graph%s%s",
                           (unsigned long)P->n_ind, P->n_ind == 1 ? "" : "s",
                           (unsigned long)g->n_indirect_open, used ? ": " : "", list);
    }
    g->finished = 1;
    st = CTXPROF_OK;
fail:
    ctxprof__free(flag, P->ud);
    ctxprof__free(color, P->ud);
    ctxprof__free(queue, P->ud);
    ctxprof__free(cur, P->ud);
    if (st != CTXPROF_OK) {
        ctxprof__graph_free_analysis(g);
        return ctxprof__fail(&g->error, st, 0, "out of memory");
    }
    return CTXPROF_OK;
}

/* Writes pre, then name (a function name or site label) as a token of the
   text format: blank, '#' and '%' as %20, %23 and %25, which
   ctxprof__graph_text_name turns back (ctxprof__graph_name_bad keeps the
   other bytes a token cannot hold, tab, CR and line breaks, out of
   graphs). */
CTXPROF__PRIV void ctxprof__graph_put_name(ctxprof__sbuf *b, const char *pre, const char *name)
{
    const char *s = name;
    ctxprof__sbuf_put(b, pre, strlen(pre));
    for (;;) {
        size_t n = strcspn(s, " #%");
        ctxprof__sbuf_put(b, s, n);
        s += n;
        if (!*s)
            break;
        ctxprof__sbuf_put(b, *s == ' ' ? "%20" : *s == '#' ? "%23" : "%25", 3);
        s++;
    }
}

CTXPROF_DEF int ctxprof_graph_write(const ctxprof_graph *g, char **out, size_t *out_len)
{
    const ctxprof__graph_priv *P = (const ctxprof__graph_priv *)g->priv;
    ctxprof__sbuf b;
    size_t v, e;
    *out = NULL;
    *out_len = 0;
    if (!P)
        return CTXPROF_ERR_INVAL;
    memset(&b, 0, sizeof b);
    b.ud = P->ud;
    ctxprof__sbuf_printf(&b, "ctxprof-callgraph 1\n");
    if (g->root != CTXPROF_GRAPH_NONE || P->root_name) {
        ctxprof__graph_put_name(&b, "root ",
                                g->root != CTXPROF_GRAPH_NONE ? g->nodes[g->root].name
                                                              : P->root_name);
        ctxprof__sbuf_put(&b, "\n", 1);
    }
    for (v = 0; v < g->n_nodes; v++) {
        const ctxprof_graph_node *N = &g->nodes[v];
        ctxprof__graph_put_name(&b, "func ", N->name);
        if (N->frame)
            ctxprof__sbuf_printf(&b, " frame=%llu", (unsigned long long)N->frame);
        ctxprof__sbuf_put(&b, "\n", 1);
    }
    for (e = 0; e < g->n_edges; e++) {
        const ctxprof_graph_edge *E = &g->edges[e];
        ctxprof__graph_put_name(&b, "call ", g->nodes[E->caller].name);
        ctxprof__graph_put_name(&b, " ", g->nodes[E->callee].name);
        if (E->label)
            ctxprof__graph_put_name(&b, " site=", E->label);
        ctxprof__sbuf_put(&b, "\n", 1);
    }
    if (b.failed) {
        ctxprof__free(b.p, b.ud);
        return CTXPROF_ERR_NOMEM;
    }
    *out = b.p;
    *out_len = b.len;
    return CTXPROF_OK;
}

/* ==== pcce: implementation ==== */

#if !defined(CTXPROF_STATIC)
CTXPROF_TLS ctxprof_enc ctxprof_pcce_tls CTXPROF__TLS_MODEL;
CTXPROF_TLS ctxprof_enc ctxprof_val_tls CTXPROF__TLS_MODEL;
CTXPROF_TLS ctxprof_enc ctxprof_val_hcce_tls CTXPROF__TLS_MODEL;
CTXPROF_TLS ctxprof_enc ctxprof_val_auto_tls CTXPROF__TLS_MODEL;
#endif

/* Bits needed to write the values 0 .. x: 0 for x = 0. */
CTXPROF__PRIV uint32_t ctxprof__bits(uint64_t x)
{
    uint32_t b = 0;
    while (x) {
        b++;
        x >>= 1;
    }
    return b;
}

CTXPROF_DEF void ctxprof_enc_init(ctxprof_enc *st, const ctxprof_enc_desc *desc)
{
    memset(st, 0, sizeof *st);
    if (desc) {
        st->max_words = desc->max_words;
        st->alloc_user = desc->alloc_user;
    }
}

CTXPROF_DEF void ctxprof_enc_deinit(ctxprof_enc *st)
{
    uint64_t max = st->max_words, *buf = st->buf;
    void *ud = st->alloc_user;
    /* unpublish before the free, as in ctxprof__enc_spill */
    memset(st, 0, sizeof *st);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    ctxprof__free(buf, ud);
    st->max_words = max;
    st->alloc_user = ud;
}

CTXPROF_DEF void ctxprof_enc_reset(ctxprof_enc *st)
{
    memset(st->acyc, 0, sizeof st->acyc);
    st->cur = 0;
    st->n = 0;
    st->room = 0;
    st->depth = 0;
    st->zeroed = 0;
}

/* Moves the full newest word below it: stores it at buf[a + depth] when
   there is room (growing buf up to the limit), else counts it as dropped.
   The word holding the tail of the acyclic part is stored shifted by r so
   that the query can put the tail in its low bits. */
CTXPROF__PRIV void ctxprof__enc_spill(ctxprof_enc *st, uint32_t a, uint32_t r)
{
    uint64_t need = (uint64_t)a + st->depth + 2;
    if (need > st->capw) {
        /* at most max_words stack words: max_words - 1 spilled, and the
           newest (the query's slot) */
        uint64_t max = (st->max_words ? st->max_words : CTXPROF_ENC_MAX_WORDS) + a;
        uint64_t ncap = st->capw ? st->capw * 2 : (uint64_t)a + 16;
        if (ncap < need)
            ncap = need;
        if (ncap > max)
            ncap = max;
        if (ncap >= need && ncap <= SIZE_MAX / 8) {
            uint64_t *nb = (uint64_t *)ctxprof__alloc((size_t)ncap, 8, st->alloc_user);
            if (nb) {
                uint64_t *old = st->buf;
                if (st->capw)
                    memcpy(nb, old, (size_t)st->capw * 8);
                /* A query in a signal handler on this thread may write into
                   st->buf: publish the new block, then its size, and only
                   then free the old one. The handler runs on this thread
                   and returns before this code resumes, so keeping the
                   compiler from moving the stores (a signal fence) is
                   enough: once free runs, no query still holds the old
                   block. (A handler that itself runs instrumented calls
                   into a query interrupted here is not covered.) */
                st->buf = nb;
                __atomic_signal_fence(__ATOMIC_SEQ_CST);
                st->capw = ncap;
                __atomic_signal_fence(__ATOMIC_SEQ_CST);
                ctxprof__free(old, st->alloc_user);
            } else {
                st->max_words = st->capw > a ? st->capw - a : 1; /* freeze */
            }
        }
    }
    if (need <= st->capw)
        st->buf[a + st->depth] = st->depth == 0 && r ? st->cur << r : st->cur;
    else if (st->dropped < UINT64_MAX)
        st->dropped++;
    st->depth++;
    st->room = 64;
}

CTXPROF_DEF void ctxprof_enc_push_slow(ctxprof_enc *st, uint32_t base, uint32_t k, uint64_t v)
{
    uint32_t a = base / 64, r = base % 64, room, j, rest;
    if (k > 64)
        return;
    if (st->room == 0) { /* first push on this state */
        st->room = 64 - r;
        st->n = 0;
        st->cur = 0;
    }
    room = st->room;
    if (st->n + k <= room) {
        st->cur = k == 64 ? v : (st->cur << k) | v;
        st->n += k;
        return;
    }
    /* the code straddles: its high j bits fill this word, the rest start the next */
    j = room - st->n;
    rest = k - j;
    if (j)
        st->cur = (st->cur << j) | (v >> rest);
    ctxprof__enc_spill(st, a, r);
    st->cur = rest == 64 ? v : v & ((UINT64_C(1) << rest) - 1);
    st->n = rest;
}

CTXPROF_DEF void ctxprof_enc_pop_slow(ctxprof_enc *st, uint32_t base, uint32_t k)
{
    uint32_t a = base / 64, r = base % 64, need;
    uint64_t w;
    if (st->room == 0 || k > 64)
        return; /* nothing was pushed */
    if (k <= st->n) {
        st->cur = k == 64 ? 0 : st->cur >> k;
        st->n -= k;
        return;
    }
    if (st->depth == 0) { /* more pops than pushes: clamp */
        st->cur = 0;
        st->n = 0;
        return;
    }
    need = k - st->n;
    st->depth--;
    /* a word that was dropped at the limit comes back as zeros, and the
       query says so until a stored word comes back */
    st->zeroed = !((uint64_t)a + st->depth + 2 <= st->capw);
    w = st->zeroed ? 0 : st->buf[a + st->depth];
    if (st->depth == 0) {
        st->room = 64 - r;
        st->cur = r ? w >> r : w;
    } else {
        st->room = 64;
        st->cur = w;
    }
    st->n = st->room;
    st->cur = need >= 64 ? 0 : st->cur >> need;
    st->n -= need < st->n ? need : st->n;
}

CTXPROF_DEF const char *ctxprof_enc_scheme_name(int scheme)
{
    switch (scheme) {
    case CTXPROF_ENC_PCCE:
        return "pcce";
    case CTXPROF_ENC_VALENCE:
        return "valence";
    case CTXPROF_ENC_HCCE:
        return "hcce";
    case CTXPROF_ENC_AUTO:
        return "auto";
    default:
        return "?";
    }
}

CTXPROF_DEF int ctxprof_enc_scheme_parse(const char *name)
{
    int s;
    for (s = 1; s < CTXPROF_ENC_NSCHEMES; s++)
        if (name && strcmp(name, ctxprof_enc_scheme_name(s)) == 0)
            return s;
    return 0;
}

CTXPROF_DEF void ctxprof_enc_tables_free(ctxprof_enc_tables *t, void *ud)
{
    /* the builder allocated every array; the tables only expose them as const */
    ctxprof__free((void *)(uintptr_t)t->node_names, ud);
    ctxprof__free((void *)(uintptr_t)t->edge_caller, ud);
    ctxprof__free((void *)(uintptr_t)t->edge_callee, ud);
    ctxprof__free((void *)(uintptr_t)t->edge_site, ud);
    ctxprof__free((void *)(uintptr_t)t->ops, ud);
    ctxprof__free((void *)(uintptr_t)t->node_flags, ud);
    ctxprof__free((void *)(uintptr_t)t->num_of_node, ud);
    ctxprof__free((void *)(uintptr_t)t->range_first, ud);
    ctxprof__free((void *)(uintptr_t)t->range_lo, ud);
    ctxprof__free((void *)(uintptr_t)t->range_ref, ud);
    ctxprof__free((void *)(uintptr_t)t->num_cc, ud);
    ctxprof__free((void *)(uintptr_t)t->scc_of_node, ud);
    ctxprof__free((void *)(uintptr_t)t->lv_level, ud);
    ctxprof__free((void *)(uintptr_t)t->lv_len, ud);
    ctxprof__free((void *)(uintptr_t)t->lv_first, ud);
    ctxprof__free((void *)(uintptr_t)t->grp_plevel, ud);
    ctxprof__free((void *)(uintptr_t)t->grp_first, ud);
    ctxprof__free((void *)(uintptr_t)t->grp_edge, ud);
    ctxprof__free((void *)(uintptr_t)t->rec_edge, ud);
    ctxprof__free((void *)(uintptr_t)t->node_rec_bits, ud);
    ctxprof__free((void *)(uintptr_t)t->cyc_first, ud);
    ctxprof__free((void *)(uintptr_t)t->cyc_edge, ud);
    memset(t, 0, sizeof *t);
}

/* ---- building the tables ---- */

/* An overflow cut keeps in-edges whose callers have this many contexts in all. */
#define CTXPROF__CUT_KEEP 256u

/* Edge classes during numbering. */
enum {
    CTXPROF__NUM_SKIP = 0, /* not numbered (cyclic edge of a condensed SCC) */
    CTXPROF__NUM_DAG = 1,  /* id += En(e) */
    CTXPROF__NUM_PUSH = 2  /* push edge: saves the id, restarts it in a dummy range */
};

typedef struct ctxprof__eb {
    const ctxprof_graph *g;
    ctxprof_enc_tables *t;
    ctxprof_enc_op *ops;
    uint8_t *node_flags;
    uint8_t *cls;     /* per edge: CTXPROF__NUM_* */
    uint8_t *coded;   /* per edge: HCCE push edge that gets a stack code (overflow) */
    uint8_t *pmode;   /* AUTO, per SCC: 1 = numbered PCCE-style (back edges push), 0 = coded */
    size_t n_pushed;  /* edges turned into push edges by overflow */
    void *ud;
    ctxprof_error *err;
} ctxprof__eb;

CTXPROF__PRIV int ctxprof__eb_nomem(ctxprof__eb *B)
{
    return ctxprof__fail(B->err, CTXPROF_ERR_NOMEM, 0, "out of memory building the %s tables",
                         ctxprof_enc_scheme_name(B->t->scheme));
}

/* Sorts ids[0..n) with their keys ascending by key, ties by id (a stable
   merge sort through the n-entry buffers tid and tkey). */
CTXPROF__PRIV void ctxprof__sort_by_key(uint32_t *ids, uint64_t *key, size_t n, uint32_t *tid,
                                        uint64_t *tkey)
{
    size_t width, i;
    for (width = 1; width < n; width *= 2) {
        for (i = 0; i < n; i += 2 * width) {
            size_t mid = i + width < n ? i + width : n;
            size_t hi = i + 2 * width < n ? i + 2 * width : n, a = i, b = mid, o = i;
            while (a < mid || b < hi) {
                int take_a = b >= hi || (a < mid && (key[a] < key[b] ||
                                                     (key[a] == key[b] && ids[a] < ids[b])));
                if (take_a) {
                    tid[o] = ids[a];
                    tkey[o++] = key[a++];
                } else {
                    tid[o] = ids[b];
                    tkey[o++] = key[b++];
                }
            }
        }
        memcpy(ids, tid, n * sizeof *ids);
        memcpy(key, tkey, n * sizeof *key);
    }
}

/* Topological order of the numbering nodes over the DAG edges (Kahn, FIFO
   from the lowest id: deterministic). 0, CTXPROF_ERR_NOMEM, or
   CTXPROF_ERR_CORRUPT if the DAG edges have a cycle (cannot happen for the
   classes the builders make). */
CTXPROF__PRIV int ctxprof__num_topo(const ctxprof_graph *g, const uint32_t *num_of_node,
                                    uint32_t n_num, const uint8_t *cls, uint32_t *order, void *ud)
{
    size_t n = g->n_nodes, m = g->n_edges, v, e, qh = 0, qt = 0, i;
    uint32_t *indeg = (uint32_t *)ctxprof__zalloc((size_t)n_num + 1, sizeof *indeg, ud);
    uint32_t *mfirst = (uint32_t *)ctxprof__zalloc((size_t)n_num + 2, sizeof *mfirst, ud);
    uint32_t *mem = (uint32_t *)ctxprof__alloc(n + 1, sizeof *mem, ud);
    int st = CTXPROF_ERR_NOMEM;
    if (!indeg || !mfirst || !mem)
        goto out;
    for (e = 0; e < m; e++)
        if (cls[e] == CTXPROF__NUM_DAG)
            indeg[num_of_node[g->edges[e].callee]]++;
    for (v = 0; v < n; v++)
        mfirst[num_of_node[v] + 1]++;
    for (i = 0; i < n_num; i++)
        mfirst[i + 1] += mfirst[i];
    for (v = 0; v < n; v++)
        mem[mfirst[num_of_node[v]]++] = (uint32_t)v;
    for (i = n_num; i > 0; i--)
        mfirst[i] = mfirst[i - 1];
    mfirst[0] = 0;
    for (i = 0; i < n_num; i++)
        if (!indeg[i])
            order[qt++] = (uint32_t)i;
    while (qh < qt) {
        uint32_t u = order[qh++], k;
        for (k = mfirst[u]; k < mfirst[u + 1]; k++) {
            uint32_t x = mem[k], j;
            for (j = g->out_first[x]; j < g->out_first[x + 1]; j++) {
                uint32_t ei = g->out_edge[j], w = num_of_node[g->edges[ei].callee];
                if (cls[ei] == CTXPROF__NUM_DAG && --indeg[w] == 0)
                    order[qt++] = w;
            }
        }
    }
    st = qt == n_num ? CTXPROF_OK : CTXPROF_ERR_CORRUPT;
out:
    ctxprof__free(indeg, ud);
    ctxprof__free(mfirst, ud);
    ctxprof__free(mem, ud);
    return st;
}

/* PCCE numbering (Valence paper sec. 2.1) over numbering nodes: a dummy
   root with a ROOT range into every entry point's numbering node, one
   dummy range per push edge into its target, then the DAG edges in input
   order: numCC(u) = sum of the ranges, En(e) = start of e's range.
   Numbering nodes are processed in topological order (Kahn, FIFO, by id).
   When numCC(u) would not fit in 64 bits, u is a cut: its DAG in-edges
   become push edges (PCCE's own remedy for recursion), except those from
   callers with a handful of contexts, so numCC(u) restarts small: with
   dummy ranges (dummy_push) or, for HCCE, with a stack code (no range).
   push_bits64: push edges save 64 bits (PCCE), else just the bits of the
   caller's numCC. */
CTXPROF__PRIV int ctxprof__eb_number(ctxprof__eb *B, const uint32_t *num_of_node, uint32_t n_num,
                                     int dummy_push, int push_bits64)
{
    const ctxprof_graph *g = B->g;
    ctxprof_enc_tables *t = B->t;
    size_t m = g->n_edges, i, e;
    uint32_t *indeg = NULL, *order = NULL, *first = NULL, *in = NULL, *dag = NULL, *tid = NULL;
    uint32_t *rfirst = NULL, *rref = NULL, *rcount = NULL;
    uint64_t *cc = NULL, *keys = NULL, *tkey = NULL, *rlo = NULL;
    uint8_t *has_root = NULL;
    size_t nr = 0, qh = 0, qt = 0;
    int st = CTXPROF_ERR_NOMEM;
    indeg = (uint32_t *)ctxprof__zalloc((size_t)n_num + 1, sizeof *indeg, B->ud);
    order = (uint32_t *)ctxprof__alloc((size_t)n_num + 1, sizeof *order, B->ud);
    first = (uint32_t *)ctxprof__zalloc((size_t)n_num + 2, sizeof *first, B->ud);
    in = (uint32_t *)ctxprof__alloc(m + 1, sizeof *in, B->ud);
    dag = (uint32_t *)ctxprof__alloc(m + 1, sizeof *dag, B->ud);
    tid = (uint32_t *)ctxprof__alloc(m + 1, sizeof *tid, B->ud);
    keys = (uint64_t *)ctxprof__alloc(m + 1, sizeof *keys, B->ud);
    tkey = (uint64_t *)ctxprof__alloc(m + 1, sizeof *tkey, B->ud);
    cc = (uint64_t *)ctxprof__zalloc((size_t)n_num + 1, sizeof *cc, B->ud);
    has_root = (uint8_t *)ctxprof__zalloc((size_t)n_num + 1, 1, B->ud);
    rfirst = (uint32_t *)ctxprof__zalloc((size_t)n_num + 1, sizeof *rfirst, B->ud);
    rlo = (uint64_t *)ctxprof__alloc(m + g->n_roots + 1, sizeof *rlo, B->ud);
    rref = (uint32_t *)ctxprof__alloc(m + g->n_roots + 1, sizeof *rref, B->ud);
    rcount = (uint32_t *)ctxprof__zalloc((size_t)n_num + 1, sizeof *rcount, B->ud);
    if (!rcount || !indeg || !order || !first || !in || !dag || !tid || !keys || !tkey || !cc || !has_root || !rfirst ||
        !rlo || !rref)
        goto out;
    for (i = 0; i < g->n_roots; i++)
        has_root[num_of_node[g->roots[i]]] = 1;
    /* in-edges per numbering node (DAG and push edges), by edge id */
    for (e = 0; e < m; e++)
        if (B->cls[e] != CTXPROF__NUM_SKIP)
            first[num_of_node[g->edges[e].callee] + 1]++;
    for (i = 0; i < n_num; i++)
        first[i + 1] += first[i];
    for (e = 0; e < m; e++)
        if (B->cls[e] != CTXPROF__NUM_SKIP)
            in[first[num_of_node[g->edges[e].callee]]++] = (uint32_t)e;
    for (i = n_num; i > 0; i--)
        first[i] = first[i - 1];
    first[0] = 0;
    if ((st = ctxprof__num_topo(g, num_of_node, n_num, B->cls, order, B->ud)) != CTXPROF_OK) {
        if (st != CTXPROF_ERR_NOMEM)
            st = ctxprof__fail(B->err, st, 0, "internal error: the numbering graph has a cycle");
        goto out;
    }
    st = CTXPROF_ERR_NOMEM;
    qt = n_num;
    for (qh = 0; qh < qt; qh++) {
        uint32_t u = order[qh], k, nd = 0, nk = 0;
        uint64_t total, off;
        /* dummy ranges first: ROOT, then push edges (given or made below) */
        total = has_root[u];
        for (k = first[u]; k < first[u + 1]; k++) {
            uint32_t ei = in[k];
            if (B->cls[ei] == CTXPROF__NUM_PUSH)
                total += dummy_push ? 1 : 0;
            else
                dag[nd++] = ei;
        }
        {
            /* 64-bit overflow: cut here. Keep only the edges whose callers
               have few contexts (at most CTXPROF__CUT_KEEP together) and
               make the rest push edges, so u's count restarts small and
               each pushed id carries its caller's ~64 bits of context.
               (Keeping the largest sum that fits would leave u near 2^64
               and make every later node overflow again.) */
            uint64_t sum = 0;
            int over = 0;
            for (k = 0; k < nd && !over; k++) {
                uint64_t c = cc[num_of_node[g->edges[dag[k]].caller]];
                if (c > UINT64_MAX - 1 - total - sum)
                    over = 1;
                else
                    sum += c;
            }
            if (over) {
                uint64_t keep = 0;
                for (k = 0; k < nd; k++)
                    keys[k] = cc[num_of_node[g->edges[dag[k]].caller]];
                ctxprof__sort_by_key(dag, keys, nd, tid, tkey);
                /* dag is ascending by contexts: keep a prefix */
                for (nk = 0; nk < nd && keep + keys[nk] <= CTXPROF__CUT_KEEP; nk++)
                    keep += keys[nk];
                for (k = nk; k < nd; k++) {
                    B->cls[dag[k]] = CTXPROF__NUM_PUSH;
                    if (!dummy_push)
                        B->coded[dag[k]] = 1;
                    B->n_pushed++;
                    total += dummy_push ? 1 : 0;
                }
                /* the kept ones back in input order */
                for (k = 1; k < nk; k++) {
                    uint32_t x = dag[k];
                    uint32_t j = k;
                    while (j > 0 && dag[j - 1] > x) {
                        dag[j] = dag[j - 1];
                        j--;
                    }
                    dag[j] = x;
                }
                nd = nk;
            }
        }
        /* ranges: ROOT, dummies by edge id, DAG edges by edge id */
        rfirst[u] = (uint32_t)nr;
        off = 0;
        if (has_root[u]) {
            rlo[nr] = 0;
            rref[nr++] = CTXPROF_ENC_REF_ROOT;
            off = 1;
        }
        for (k = first[u]; k < first[u + 1]; k++) {
            uint32_t ei = in[k];
            ctxprof_enc_op *op = &B->ops[ei];
            if (B->cls[ei] != CTXPROF__NUM_PUSH)
                continue;
            op->id_push = 1;
            op->id_bits = push_bits64 ? 64 : 0; /* set below from the caller's numCC */
            if (dummy_push) {
                op->id_new = off;
                rlo[nr] = off++;
                rref[nr++] = ei | CTXPROF_ENC_REF_PUSH;
            } else {
                op->id_new = 0;
            }
        }
        for (k = 0; k < nd; k++) {
            uint32_t ei = dag[k];
            B->ops[ei].add = off;
            rlo[nr] = off;
            rref[nr++] = ei;
            off += cc[num_of_node[g->edges[ei].caller]];
        }
        cc[u] = off ? off : 1; /* HCCE: a node entered only by coded push edges */
        rcount[u] = (uint32_t)(nr - rfirst[u]);
    }
    /* push widths: the caller's contexts */
    for (e = 0; e < m; e++) {
        ctxprof_enc_op *op = &B->ops[e];
        if (B->cls[e] == CTXPROF__NUM_PUSH && !push_bits64)
            op->id_bits = (uint8_t)ctxprof__bits(cc[num_of_node[g->edges[e].caller]] - 1);
    }
    {
        uint64_t maxcc = 1;
        for (i = 0; i < n_num; i++)
            if (cc[i] > maxcc)
                maxcc = cc[i];
        t->acyc_bits = push_bits64 ? 64 : ctxprof__bits(maxcc - 1);
    }
    /* ranges in numbering-node order (they were appended in topological order) */
    {
        uint64_t *lo2 = (uint64_t *)ctxprof__alloc(nr + 1, sizeof *lo2, B->ud);
        uint32_t *ref2 = (uint32_t *)ctxprof__alloc(nr + 1, sizeof *ref2, B->ud);
        uint32_t *rf2 = (uint32_t *)ctxprof__alloc((size_t)n_num + 1, sizeof *rf2, B->ud);
        size_t o = 0;
        if (!lo2 || !ref2 || !rf2) {
            ctxprof__free(lo2, B->ud);
            ctxprof__free(ref2, B->ud);
            ctxprof__free(rf2, B->ud);
            goto out;
        }
        for (i = 0; i < n_num; i++) {
            rf2[i] = (uint32_t)o;
            memcpy(lo2 + o, rlo + rfirst[i], rcount[i] * sizeof *lo2);
            memcpy(ref2 + o, rref + rfirst[i], rcount[i] * sizeof *ref2);
            o += rcount[i];
        }
        rf2[n_num] = (uint32_t)o;
        ctxprof__free(rlo, B->ud);
        ctxprof__free(rref, B->ud);
        ctxprof__free(rfirst, B->ud);
        rlo = lo2;
        rref = ref2;
        rfirst = rf2;
    }
    st = CTXPROF_OK;
out:
    ctxprof__free(indeg, B->ud);
    ctxprof__free(order, B->ud);
    ctxprof__free(first, B->ud);
    ctxprof__free(in, B->ud);
    ctxprof__free(dag, B->ud);
    ctxprof__free(tid, B->ud);
    ctxprof__free(keys, B->ud);
    ctxprof__free(tkey, B->ud);
    ctxprof__free(has_root, B->ud);
    ctxprof__free(rcount, B->ud);
    if (st == CTXPROF_ERR_NOMEM)
        ctxprof__eb_nomem(B);
    if (st == CTXPROF_OK) {
        t->n_num = n_num;
        t->num_cc = cc;
        t->range_lo = rlo;
        t->range_ref = rref;
        t->range_first = rfirst;
    } else {
        ctxprof__free(cc, B->ud);
        ctxprof__free(rlo, B->ud);
        ctxprof__free(rref, B->ud);
        ctxprof__free(rfirst, B->ud);
    }
    return st;
}

/* Common tables: names, edges, empty ops, root and complex flags. */
CTXPROF__PRIV int ctxprof__eb_begin(ctxprof__eb *B, const ctxprof_graph *g, int scheme,
                                    ctxprof_enc_tables *t, ctxprof_error *err)
{
    size_t v, e, n = g->n_nodes, m = g->n_edges;
    const char **names;
    uint32_t *caller, *callee, *site;
    memset(B, 0, sizeof *B);
    memset(t, 0, sizeof *t);
    B->g = g;
    B->t = t;
    B->err = err;
    B->ud = g->priv ? ((ctxprof__graph_priv *)g->priv)->ud : NULL;
    t->scheme = scheme;
    if (!g->finished)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0,
                             "call graph not finished (call ctxprof_graph_finish)");
    if (n >= CTXPROF_ENC_REF_PUSH || m >= CTXPROF_ENC_REF_PUSH)
        return ctxprof__fail(err, CTXPROF_ERR_RANGE, 0, "call graph too large (2^31 edges)");
    t->n_nodes = (uint32_t)n;
    t->n_edges = (uint32_t)m;
    names = (const char **)ctxprof__alloc(n + 1, sizeof *names, B->ud);
    caller = (uint32_t *)ctxprof__alloc(m + 1, sizeof *caller, B->ud);
    callee = (uint32_t *)ctxprof__alloc(m + 1, sizeof *callee, B->ud);
    site = (uint32_t *)ctxprof__alloc(m + 1, sizeof *site, B->ud);
    t->node_names = names;
    t->edge_caller = caller;
    t->edge_callee = callee;
    t->edge_site = site;
    B->ops = (ctxprof_enc_op *)ctxprof__zalloc(m + 1, sizeof *B->ops, B->ud);
    t->ops = B->ops;
    B->node_flags = (uint8_t *)ctxprof__zalloc(n + 1, 1, B->ud);
    t->node_flags = B->node_flags;
    B->cls = (uint8_t *)ctxprof__zalloc(m + 1, 1, B->ud);
    B->coded = (uint8_t *)ctxprof__zalloc(m + 1, 1, B->ud);
    if (!names || !caller || !callee || !site || !B->ops || !B->node_flags || !B->cls ||
        !B->coded)
        return ctxprof__eb_nomem(B);
    for (v = 0; v < n; v++) {
        names[v] = g->nodes[v].name;
        if (g->nodes[v].flags & CTXPROF_GRAPH_NODE_ROOT)
            B->node_flags[v] |= CTXPROF_ENC_NODE_ROOT;
        if (g->nodes[v].flags & CTXPROF_GRAPH_NODE_COMPLEX)
            B->node_flags[v] |= CTXPROF_ENC_NODE_COMPLEX;
    }
    for (e = 0; e < m; e++) {
        caller[e] = g->edges[e].caller;
        callee[e] = g->edges[e].callee;
        site[e] = g->edges[e].site;
    }
    return CTXPROF_OK;
}

/* Node -> its SCC id (the numbering of condensed schemes). */
CTXPROF__PRIV uint32_t *ctxprof__eb_scc_map(ctxprof__eb *B)
{
    size_t v;
    uint32_t *map = (uint32_t *)ctxprof__alloc(B->g->n_nodes + 1, sizeof *map, B->ud);
    if (map)
        for (v = 0; v < B->g->n_nodes; v++)
            map[v] = B->g->nodes[v].scc;
    return map;
}

/* Global cyclic-edge codes (Valence Alg. 3): every cyclic edge that is not
   numbered (all of them, except in AUTO's PCCE-style SCCs), then every
   coded push edge (HCCE, global AUTO), numbered in edge order. */
CTXPROF__PRIV int ctxprof__eb_global_codes(ctxprof__eb *B)
{
    const ctxprof_graph *g = B->g;
    size_t e, m = g->n_edges, c = 0;
    uint32_t *rec = (uint32_t *)ctxprof__alloc(m + 1, sizeof *rec, B->ud), bits;
    if (!rec)
        return ctxprof__eb_nomem(B);
    B->t->rec_edge = rec;
    for (e = 0; e < m; e++)
        if ((g->edges[e].flags & CTXPROF_GRAPH_EDGE_CYCLIC) && B->cls[e] == CTXPROF__NUM_SKIP)
            rec[c++] = (uint32_t)e;
    for (e = 0; e < m; e++)
        if (B->coded[e])
            rec[c++] = (uint32_t)e;
    bits = c ? ctxprof__bits(c - 1) : 0;
    if (c && bits == 0)
        bits = 1; /* a non-empty stack must be visible */
    B->t->n_rec = (uint32_t)c;
    B->t->rec_bits = bits;
    for (e = 0; e < c; e++) {
        B->ops[rec[e]].push_bits = (uint8_t)bits;
        B->ops[rec[e]].push_code = e;
    }
    return CTXPROF_OK;
}

/* Valence Alg. 1 on the graph with each SCC condensed (sec. 3.2): levels,
   level codes and edge codes; an SCC that holds an entry point and has
   callers gets a virtual first caller at level 0 (code 0) for "started
   here". */
CTXPROF__PRIV int ctxprof__eb_levels(ctxprof__eb *B)
{
    const ctxprof_graph *g = B->g;
    ctxprof_enc_tables *t = B->t;
    size_t ns = g->n_sccs, m = g->n_edges, e, i, ng = 0, ne = 0, maxlevel = 0;
    uint32_t *first = NULL, *in = NULL, *level = NULL, *lfirst = NULL, *gplevel = NULL;
    uint32_t *gfirst = NULL, *gedge = NULL, *l2g = NULL, *gcount = NULL, *ecode = NULL;
    uint32_t *egroup = NULL, *ngs_of = NULL;
    uint8_t *lvlen = NULL, *has_root = NULL;
    size_t l2g_cap = 0;
    int st = CTXPROF_ERR_NOMEM;
    first = (uint32_t *)ctxprof__zalloc(ns + 2, sizeof *first, B->ud);
    in = (uint32_t *)ctxprof__alloc(m + 1, sizeof *in, B->ud);
    level = (uint32_t *)ctxprof__zalloc(ns + 1, sizeof *level, B->ud);
    lfirst = (uint32_t *)ctxprof__zalloc(ns + 1, sizeof *lfirst, B->ud); /* by processing */
    lvlen = (uint8_t *)ctxprof__zalloc(ns + 1, 1, B->ud);
    has_root = (uint8_t *)ctxprof__zalloc(ns + 1, 1, B->ud);
    gplevel = (uint32_t *)ctxprof__alloc(m + g->n_roots + 1, sizeof *gplevel, B->ud);
    gfirst = (uint32_t *)ctxprof__alloc(m + g->n_roots + 2, sizeof *gfirst, B->ud);
    gedge = (uint32_t *)ctxprof__alloc(m + g->n_roots + 1, sizeof *gedge, B->ud);
    gcount = (uint32_t *)ctxprof__alloc(m + g->n_roots + 1, sizeof *gcount, B->ud);
    ecode = (uint32_t *)ctxprof__alloc(m + 1, sizeof *ecode, B->ud);
    egroup = (uint32_t *)ctxprof__alloc(m + 1, sizeof *egroup, B->ud);
    ngs_of = (uint32_t *)ctxprof__zalloc(ns + 1, sizeof *ngs_of, B->ud);
    if (!ngs_of || !first || !in || !level || !lfirst || !lvlen || !has_root || !gplevel || !gfirst ||
        !gedge || !gcount || !ecode || !egroup)
        goto out;
    for (i = 0; i < g->n_roots; i++)
        has_root[g->nodes[g->roots[i]].scc] = 1;
    for (e = 0; e < m; e++)
        if (!(g->edges[e].flags & CTXPROF_GRAPH_EDGE_CYCLIC))
            first[g->nodes[g->edges[e].callee].scc + 1]++;
    for (i = 0; i < ns; i++)
        first[i + 1] += first[i];
    for (e = 0; e < m; e++)
        if (!(g->edges[e].flags & CTXPROF_GRAPH_EDGE_CYCLIC))
            in[first[g->nodes[g->edges[e].callee].scc]++] = (uint32_t)e;
    for (i = ns; i > 0; i--)
        first[i] = first[i - 1];
    first[0] = 0;
    /* Tarjan ids are a reverse topological order: callers' SCCs have larger ids */
    for (i = ns; i-- > 0;) {
        uint32_t k, s = (uint32_t)i, g0 = (uint32_t)ng, maxlen = 0, ngs;
        size_t n_in = first[s + 1] - first[s];
        lfirst[s] = g0;
        if (n_in == 0) { /* a source: level 0, no codes */
            level[s] = 0;
            continue;
        }
        for (k = (has_root[s] ? 0u : 1u); k <= n_in; k++) {
            uint32_t ei = k == 0 ? CTXPROF_ENC_REF_ROOT : in[first[s] + k - 1];
            uint32_t pl = k == 0 ? 0 : level[g->nodes[g->edges[ei].caller].scc], gi;
            if (pl >= l2g_cap) { /* l2g: level -> group + 1 for this SCC */
                size_t old = l2g_cap;
                if (ctxprof__reserve((void **)&l2g, &l2g_cap, old, (size_t)pl + 1, sizeof *l2g,
                                     B->ud))
                    goto out;
                memset(l2g + old, 0, (l2g_cap - old) * sizeof *l2g);
            }
            if (!l2g[pl]) { /* Alg. 1 lines 10-16: a new level code */
                gplevel[ng] = pl;
                gcount[ng] = 0;
                l2g[pl] = (uint32_t)(++ng - g0);
            }
            gi = g0 + l2g[pl] - 1;
            if (k > 0) { /* lines 18-20: edge code within the level */
                ecode[ei] = gcount[gi];
                egroup[ei] = gi;
            }
            gcount[gi]++;
        }
        ngs = (uint32_t)ng - g0;
        ngs_of[s] = ngs;
        for (k = g0; k < ng; k++) { /* lines 22-28 */
            uint32_t len = gplevel[k] + ctxprof__bits(gcount[k] - 1);
            if (len > maxlen)
                maxlen = len;
            l2g[gplevel[k]] = 0;
        }
        lvlen[s] = (uint8_t)ctxprof__bits(ngs - 1);
        level[s] = maxlen + lvlen[s];
        if (level[s] > maxlevel)
            maxlevel = level[s];
        if (maxlevel > (1u << 24)) {
            st = ctxprof__fail(B->err, CTXPROF_ERR_RANGE, 0,
                               "Valence levels exceed 2^24 bits: graph too deep");
            goto out;
        }
    }
    /* groups were made in topological order: move them to component order */
    {
        uint32_t *nl = (uint32_t *)ctxprof__zalloc(ns + 1, sizeof *nl, B->ud);
        uint32_t *p2 = (uint32_t *)ctxprof__alloc(ng + 1, sizeof *p2, B->ud);
        uint32_t *c2 = (uint32_t *)ctxprof__alloc(ng + 1, sizeof *c2, B->ud);
        if (!nl || !p2 || !c2) {
            ctxprof__free(nl, B->ud);
            ctxprof__free(p2, B->ud);
            ctxprof__free(c2, B->ud);
            goto out;
        }
        for (i = 0; i < ns; i++)
            nl[i + 1] = nl[i] + ngs_of[i];
        for (i = 0; i < ns; i++) {
            uint32_t j;
            for (j = 0; j < ngs_of[i]; j++) {
                p2[nl[i] + j] = gplevel[lfirst[i] + j];
                c2[nl[i] + j] = gcount[lfirst[i] + j];
            }
        }
        for (e = 0; e < m; e++)
            if (!(g->edges[e].flags & CTXPROF_GRAPH_EDGE_CYCLIC)) {
                uint32_t s = g->nodes[g->edges[e].callee].scc;
                egroup[e] = nl[s] + (egroup[e] - lfirst[s]);
            }
        ctxprof__free(lfirst, B->ud);
        ctxprof__free(gplevel, B->ud);
        ctxprof__free(gcount, B->ud);
        lfirst = nl;
        gplevel = p2;
        gcount = c2;
    }
    /* group edge lists by edge code; the virtual root entry is code 0 of level 0 */
    gfirst[0] = 0;
    for (i = 0; i < ng; i++)
        gfirst[i + 1] = gfirst[i] + gcount[i];
    ne = gfirst[ng];
    for (i = 0; i < ns; i++)
        if (has_root[i] && first[i + 1] > first[i])
            gedge[gfirst[lfirst[i]]] = CTXPROF_ENC_REF_ROOT; /* level 0 is group 0 */
    for (e = 0; e < m; e++) {
        const ctxprof_graph_edge *E = &g->edges[e];
        uint32_t s, gi, nl, pl, lvcode, w, b;
        uint64_t words[2][4];
        uint32_t nw = 0, j;
        ctxprof_enc_op *op = &B->ops[e];
        if (E->flags & CTXPROF_GRAPH_EDGE_CYCLIC)
            continue;
        s = g->nodes[E->callee].scc;
        gi = egroup[e];
        gedge[gfirst[gi] + ecode[e]] = (uint32_t)e;
        nl = level[s];
        pl = gplevel[gi];
        lvcode = gi - lfirst[s];
        /* Alg. 1 lines 32-35: cc = edge code . level code in id[p.level, n.level) */
        for (b = 0; b < 32; b++) {
            uint32_t bits[2], nb = 0, q;
            if (ecode[e] >> b & 1)
                bits[nb++] = pl + b;
            if (b < lvlen[s] && (lvcode >> b & 1))
                bits[nb++] = nl - lvlen[s] + b;
            for (q = 0; q < nb; q++) {
                w = bits[q] / 64;
                for (j = 0; j < nw && words[0][j] != w; j++)
                    ;
                if (j == nw) {
                    if (nw == 4) {
                        st = ctxprof__fail(B->err, CTXPROF_ERR_RANGE, 0,
                                           "internal error: Valence code in more than 4 words");
                        goto out;
                    }
                    words[0][nw] = w;
                    words[1][nw++] = 0;
                }
                words[1][j] |= UINT64_C(1) << (bits[q] % 64);
            }
        }
        op->n_xor = (uint8_t)nw;
        for (j = 0; j < nw; j++) {
            op->xor_word[j] = (uint16_t)words[0][j];
            op->xor_val[j] = words[1][j];
        }
    }
    (void)ne;
    t->n_scc = (uint32_t)ns;
    t->lv_level = level;
    t->lv_len = lvlen;
    t->lv_first = lfirst;
    t->grp_plevel = gplevel;
    t->grp_first = gfirst;
    t->grp_edge = gedge;
    t->acyc_bits = (uint32_t)maxlevel;
    level = NULL;
    lvlen = NULL;
    lfirst = NULL;
    gplevel = gfirst = gedge = NULL;
    st = CTXPROF_OK;
out:
    if (st == CTXPROF_ERR_NOMEM)
        ctxprof__eb_nomem(B);
    ctxprof__free(first, B->ud);
    ctxprof__free(in, B->ud);
    ctxprof__free(level, B->ud);
    ctxprof__free(lfirst, B->ud);
    ctxprof__free(lvlen, B->ud);
    ctxprof__free(has_root, B->ud);
    ctxprof__free(gplevel, B->ud);
    ctxprof__free(gfirst, B->ud);
    ctxprof__free(gedge, B->ud);
    ctxprof__free(gcount, B->ud);
    ctxprof__free(ecode, B->ud);
    ctxprof__free(egroup, B->ud);
    ctxprof__free(ngs_of, B->ud);
    ctxprof__free(l2g, B->ud);
    return st;
}

/* AUTO recursion codes, per target function f: code 0 = "entered from
   outside f's SCC" when f can be (an entry point, or a non-cyclic caller),
   then one code per cyclic edge into f; width = bits of the largest code.
   Non-cyclic edges into a coded f push the entry code (zeros). */
CTXPROF__PRIV int ctxprof__eb_target_codes(ctxprof__eb *B)
{
    const ctxprof_graph *g = B->g;
    size_t n = g->n_nodes, m = g->n_edges, v, e;
    uint32_t *cfirst = (uint32_t *)ctxprof__zalloc(n + 2, sizeof *cfirst, B->ud);
    uint32_t *fill = (uint32_t *)ctxprof__alloc(n + 2, sizeof *fill, B->ud);
    uint32_t *cedge = (uint32_t *)ctxprof__alloc(m + 1, sizeof *cedge, B->ud);
    uint8_t *kbits = (uint8_t *)ctxprof__zalloc(n + 1, 1, B->ud);
    if (!cfirst || !fill || !cedge || !kbits) {
        ctxprof__free(cfirst, B->ud);
        ctxprof__free(fill, B->ud);
        ctxprof__free(cedge, B->ud);
        ctxprof__free(kbits, B->ud);
        return ctxprof__eb_nomem(B);
    }
#define CTXPROF__CODED(v)                                                                          \
    ((g->nodes[v].flags & CTXPROF_GRAPH_NODE_COMPLEX) && !(B->pmode && B->pmode[g->nodes[v].scc]))
    for (e = 0; e < m; e++) {
        uint32_t f = g->edges[e].callee;
        if (!CTXPROF__CODED(f))
            continue;
        if (g->edges[e].flags & CTXPROF_GRAPH_EDGE_CYCLIC)
            cfirst[f + 1]++;
        else
            B->node_flags[f] |= CTXPROF_ENC_NODE_ENTRY;
    }
    for (v = 0; v < n; v++) {
        uint32_t count = cfirst[v + 1];
        cfirst[v + 1] += cfirst[v];
        if (!CTXPROF__CODED(v))
            continue;
        if (g->nodes[v].flags & CTXPROF_GRAPH_NODE_ROOT)
            B->node_flags[v] |= CTXPROF_ENC_NODE_ENTRY;
        B->node_flags[v] |= CTXPROF_ENC_NODE_CODED;
        if (B->node_flags[v] & CTXPROF_ENC_NODE_ENTRY)
            count++;
        kbits[v] = (uint8_t)ctxprof__bits(count - 1);
    }
    memcpy(fill, cfirst, (n + 1) * sizeof *fill);
    for (e = 0; e < m; e++) {
        const ctxprof_graph_edge *E = &g->edges[e];
        ctxprof_enc_op *op = &B->ops[e];
        uint32_t f = E->callee;
        uint64_t code = 0; /* the entry code */
        if (!(B->node_flags[f] & CTXPROF_ENC_NODE_CODED))
            continue;
        if (E->flags & CTXPROF_GRAPH_EDGE_CYCLIC) {
            code = ((B->node_flags[f] & CTXPROF_ENC_NODE_ENTRY) ? 1u : 0u) + (fill[f] - cfirst[f]);
            cedge[fill[f]++] = (uint32_t)e;
        }
        if (kbits[f]) {
            op->push_bits = kbits[f];
            op->push_code = code;
        }
    }
#undef CTXPROF__CODED
    ctxprof__free(fill, B->ud);
    B->t->node_rec_bits = kbits;
    B->t->cyc_first = cfirst;
    B->t->cyc_edge = cedge;
    return CTXPROF_OK;
}

/* AUTO with the given SCC modes: numbering nodes are the SCCs, except that
   the members of a PCCE-mode SCC are numbered one by one (their back edges
   push the id); the other complex SCCs' cyclic edges push per-target codes
   (with entry codes) or, when global, codes unique in the program as in
   Valence and HCCE (then push edges push a code too). */
CTXPROF__PRIV int ctxprof__eb_auto_pass(ctxprof__eb *B, uint32_t **pmap, int global, int levels)
{
    const ctxprof_graph *g = B->g;
    size_t n = g->n_nodes, m = g->n_edges, v, e;
    uint32_t n_num = (uint32_t)g->n_sccs, *map = *pmap;
    ctxprof_enc_tables *t = B->t;
    ctxprof_enc_tables keep;
    /* undo a previous pass: free every table but those ctxprof__eb_begin made */
    memset(&keep, 0, sizeof keep);
    keep.scheme = t->scheme;
    keep.n_nodes = t->n_nodes;
    keep.n_edges = t->n_edges;
    keep.node_names = t->node_names;
    keep.edge_caller = t->edge_caller;
    keep.edge_callee = t->edge_callee;
    keep.edge_site = t->edge_site;
    keep.ops = t->ops;
    keep.node_flags = t->node_flags;
    t->node_names = NULL;
    t->edge_caller = t->edge_callee = t->edge_site = NULL;
    t->ops = NULL;
    t->node_flags = NULL;
    ctxprof_enc_tables_free(t, B->ud);
    *t = keep;
    memset(B->coded, 0, m);
    memset(B->ops, 0, m * sizeof *B->ops);
    B->n_pushed = 0;
    for (v = 0; v < n; v++) {
        B->node_flags[v] &= (uint8_t)(CTXPROF_ENC_NODE_ROOT | CTXPROF_ENC_NODE_COMPLEX);
        map[v] = g->nodes[v].scc;
        if (B->pmode[g->nodes[v].scc])
            map[v] = n_num++;
    }
    for (e = 0; e < m; e++) {
        const ctxprof_graph_edge *E = &g->edges[e];
        if (!(E->flags & CTXPROF_GRAPH_EDGE_CYCLIC))
            B->cls[e] = CTXPROF__NUM_DAG;
        else if (!B->pmode[g->nodes[E->caller].scc])
            B->cls[e] = CTXPROF__NUM_SKIP;
        else
            B->cls[e] = (E->flags & CTXPROF_GRAPH_EDGE_BACK) ? CTXPROF__NUM_PUSH : CTXPROF__NUM_DAG;
    }
    if (levels) { /* Valence's levels for the acyclic part (no PCCE-style SCCs) */
        if (ctxprof__eb_levels(B))
            return B->err->status;
    } else if (ctxprof__eb_number(B, map, n_num, !global, 0)) {
        return B->err->status;
    }
    if (!global)
        return ctxprof__eb_target_codes(B);
    /* every push edge also pushes its global code, like HCCE's */
    for (e = 0; e < m; e++)
        if (B->cls[e] == CTXPROF__NUM_PUSH)
            B->coded[e] = 1;
    return ctxprof__eb_global_codes(B);
}

/* AUTO's recursion codes: per target (the passes' default) against codes
   unique in the program: bits summed over the coded cyclic edges and the
   entries into coded functions (each edge equally likely), against one
   global width on the coded cyclic edges and every push edge. Binary self
   recursion in a small program (fib) prefers the global codes; with
   levels, global codes make AUTO exactly Valence. */
CTXPROF__PRIV int ctxprof__eb_auto_global(ctxprof__eb *B, uint32_t **pmap, int levels)
{
    const ctxprof_graph *g = B->g;
    uint64_t cost_t = 0, n_code = 0, n_push = 0, kg;
    size_t e;
    for (e = 0; e < g->n_edges; e++) {
        const ctxprof_graph_edge *E = &g->edges[e];
        if (B->cls[e] == CTXPROF__NUM_PUSH && !levels)
            n_push++;
        if (!(B->node_flags[E->callee] & CTXPROF_ENC_NODE_CODED))
            continue;
        cost_t += B->t->node_rec_bits[E->callee];
        n_code += (E->flags & CTXPROF_GRAPH_EDGE_CYCLIC) ? 1 : 0;
    }
    kg = n_code + n_push ? ctxprof__bits(n_code + n_push - 1) : 0;
    if (n_code + n_push && kg == 0)
        kg = 1;
    if (kg * (n_code + n_push) < cost_t)
        return ctxprof__eb_auto_pass(B, pmap, 1, levels);
    return CTXPROF_OK;
}

/* Words of the longest acyclic encoding of the current tables (the
   acyclic part plus what the non-cyclic edges of one path push: ids saved
   at overflow cuts, entry codes), at most and summed over the functions.
   Component ids are a reverse topological order, so edges taken by
   decreasing caller component see final lengths. */
CTXPROF__PRIV int ctxprof__eb_path_words(ctxprof__eb *B, uint64_t *out_max, uint64_t *out_sum)
{
    const ctxprof_graph *g = B->g;
    size_t ns = g->n_sccs, m = g->n_edges, e, i;
    uint64_t *len = (uint64_t *)ctxprof__zalloc(ns + 1, sizeof *len, B->ud);
    uint32_t *first = (uint32_t *)ctxprof__zalloc(ns + 2, sizeof *first, B->ud);
    uint32_t *by = (uint32_t *)ctxprof__alloc(m + 1, sizeof *by, B->ud);
    int st = CTXPROF_OK;
    *out_max = *out_sum = 0;
    if (!len || !first || !by) {
        st = ctxprof__eb_nomem(B);
        goto out;
    }
    for (e = 0; e < m; e++)
        first[g->nodes[g->edges[e].caller].scc + 1]++;
    for (i = 0; i < ns; i++)
        first[i + 1] += first[i];
    for (e = 0; e < m; e++)
        by[first[g->nodes[g->edges[e].caller].scc]++] = (uint32_t)e;
    for (i = ns; i-- > 0;) { /* first[i] is now the end of component i's edges */
        uint32_t k;
        for (k = i ? first[i - 1] : 0; k < first[i]; k++) {
            const ctxprof_graph_edge *E = &g->edges[by[k]];
            const ctxprof_enc_op *op = &B->ops[by[k]];
            uint32_t c = g->nodes[E->callee].scc;
            uint64_t l = len[i] + op->push_bits + (op->id_push ? op->id_bits : 0u);
            if (!(E->flags & CTXPROF_GRAPH_EDGE_CYCLIC) && l > len[c])
                len[c] = l;
        }
    }
    for (i = 0; i < g->n_nodes; i++) {
        uint64_t words = (len[g->nodes[i].scc] + B->t->acyc_bits + 63) / 64;
        *out_sum += words;
        if (words > *out_max)
            *out_max = words;
    }
out:
    ctxprof__free(len, B->ud);
    ctxprof__free(first, B->ud);
    ctxprof__free(by, B->ud);
    return st;
}

/* The condensed numbering overflowed 64 bits and was cut: the ids saved at
   the cuts may make paths longer than Valence's multi-word acyclic id,
   whose length is fixed. Whole program: AUTO takes Valence's levels for
   its acyclic part (with its own recursion codes) when their encodings are
   shorter at the longest and no longer on average over the functions;
   otherwise the numbering stays (shallow contexts keep one word). */
CTXPROF__PRIV int ctxprof__eb_auto_cuts(ctxprof__eb *B, uint32_t **pmap)
{
    size_t ns = B->g->n_sccs;
    uint64_t max_num, sum_num, max_val, sum_val;
    int global = B->t->rec_edge != NULL, st;
    uint8_t *keep = (uint8_t *)ctxprof__alloc(ns + 1, 1, B->ud);
    if (!keep)
        return ctxprof__eb_nomem(B);
    memcpy(keep, B->pmode, ns);
    if ((st = ctxprof__eb_path_words(B, &max_num, &sum_num)) != CTXPROF_OK)
        goto out;
    memset(B->pmode, 0, ns);
    if ((st = ctxprof__eb_auto_pass(B, pmap, 0, 1)) != CTXPROF_OK ||
        (st = ctxprof__eb_path_words(B, &max_val, &sum_val)) != CTXPROF_OK)
        goto out;
    if (max_val < max_num && sum_val <= sum_num) {
        st = ctxprof__eb_auto_global(B, pmap, 1);
        goto out;
    }
    memcpy(B->pmode, keep, ns);
    st = ctxprof__eb_auto_pass(B, pmap, global, 0);
out:
    ctxprof__free(keep, B->ud);
    return st;
}

/* Chooses, per complex SCC, between per-target codes (a few bits per
   cyclic edge) and PCCE-style numbering inside the SCC (nothing on its
   forward edges, bits(numCC(caller)) on each back edge), by the bits per
   cyclic edge each costs when every edge is equally likely; PCCE-style
   wins on long cycles entered from many places. The first pass (all
   coded) gives the contexts entering each SCC. */
CTXPROF__PRIV int ctxprof__eb_auto(ctxprof__eb *B, uint32_t **pmap)
{
    const ctxprof_graph *g = B->g;
    size_t n = g->n_nodes, m = g->n_edges, ns = g->n_sccs, v, e, chosen = 0;
    uint64_t *cc = NULL, *sum_code = NULL, *sum_pcce = NULL;
    uint32_t *indeg = NULL, *queue = NULL, a0;
    uint8_t *sat = NULL;
    size_t qh = 0, qt = 0;
    int st;
    *pmap = (uint32_t *)ctxprof__alloc(n + 1, sizeof **pmap, B->ud);
    B->pmode = (uint8_t *)ctxprof__zalloc(ns + 1, 1, B->ud);
    if (!*pmap || !B->pmode)
        return ctxprof__eb_nomem(B);
    if ((st = ctxprof__eb_auto_pass(B, pmap, 0, 0)) != CTXPROF_OK)
        return st;
    if (!g->n_complex_sccs)
        return B->n_pushed ? ctxprof__eb_auto_cuts(B, pmap) : CTXPROF_OK;
    a0 = B->t->acyc_bits;
    cc = (uint64_t *)ctxprof__zalloc(n + 1, sizeof *cc, B->ud);
    sum_code = (uint64_t *)ctxprof__zalloc(ns + 1, sizeof *sum_code, B->ud);
    sum_pcce = (uint64_t *)ctxprof__zalloc(ns + 1, sizeof *sum_pcce, B->ud);
    indeg = (uint32_t *)ctxprof__zalloc(n + 1, sizeof *indeg, B->ud);
    queue = (uint32_t *)ctxprof__alloc(n + 1, sizeof *queue, B->ud);
    sat = (uint8_t *)ctxprof__zalloc(ns + 1, 1, B->ud);
    if (!cc || !sum_code || !sum_pcce || !indeg || !queue || !sat) {
        st = ctxprof__eb_nomem(B);
        goto out;
    }
    /* contexts of each member if its SCC were numbered: entries, dummies, then
       its forward in-edges inside the SCC (in topological order) */
    for (v = 0; v < g->n_roots; v++)
        cc[g->roots[v]] = 1;
    for (e = 0; e < m; e++) {
        const ctxprof_graph_edge *E = &g->edges[e];
        uint64_t add;
        if (!(E->flags & CTXPROF_GRAPH_EDGE_CYCLIC))
            add = B->t->num_cc[(*pmap)[E->caller]];
        else if (E->flags & CTXPROF_GRAPH_EDGE_BACK)
            add = 1;
        else {
            indeg[E->callee]++;
            continue;
        }
        cc[E->callee] = add > UINT64_MAX - cc[E->callee] ? UINT64_MAX : cc[E->callee] + add;
    }
    for (v = 0; v < n; v++)
        if (!indeg[v])
            queue[qt++] = (uint32_t)v;
    while (qh < qt) {
        uint32_t u = queue[qh++], j;
        for (j = g->out_first[u]; j < g->out_first[u + 1]; j++) {
            const ctxprof_graph_edge *E = &g->edges[g->out_edge[j]];
            if ((E->flags & CTXPROF_GRAPH_EDGE_CYCLIC) && !(E->flags & CTXPROF_GRAPH_EDGE_BACK)) {
                cc[E->callee] =
                    cc[u] > UINT64_MAX - cc[E->callee] ? UINT64_MAX : cc[E->callee] + cc[u];
                if (--indeg[E->callee] == 0)
                    queue[qt++] = E->callee;
            }
        }
    }
    for (v = 0; v < n; v++)
        if (cc[v] >= (UINT64_C(1) << 62))
            sat[g->nodes[v].scc] = 1;
    for (e = 0; e < m; e++) {
        const ctxprof_graph_edge *E = &g->edges[e];
        uint32_t s = g->nodes[E->callee].scc;
        if (!(E->flags & CTXPROF_GRAPH_EDGE_CYCLIC))
            continue;
        sum_code[s] += B->t->node_rec_bits[E->callee];
        if (E->flags & CTXPROF_GRAPH_EDGE_BACK)
            sum_pcce[s] += ctxprof__bits(cc[E->caller] - 1);
    }
    for (v = 0; v < ns; v++)
        if (!sat[v] && sum_code[v] && 2 * sum_pcce[v] < sum_code[v]) {
            B->pmode[v] = 1;
            chosen++;
        }
    st = CTXPROF_OK;
    if (chosen) {
        st = ctxprof__eb_auto_pass(B, pmap, 0, 0);
        /* keep the choice only if the acyclic part stays within its words */
        if (st == CTXPROF_OK && (B->t->acyc_bits + 63) / 64 > (a0 + 63) / 64) {
            memset(B->pmode, 0, ns);
            st = ctxprof__eb_auto_pass(B, pmap, 0, 0);
        }
    }
    if (st == CTXPROF_OK)
        st = ctxprof__eb_auto_global(B, pmap, 0);
    if (st == CTXPROF_OK && B->n_pushed)
        st = ctxprof__eb_auto_cuts(B, pmap);
out:
    ctxprof__free(cc, B->ud);
    ctxprof__free(sum_code, B->ud);
    ctxprof__free(sum_pcce, B->ud);
    ctxprof__free(indeg, B->ud);
    ctxprof__free(queue, B->ud);
    ctxprof__free(sat, B->ud);
    return st;
}

/* ctxprof_enc_build for tables of any width: ctxprof_enc_check keeps
   acyclic ids wider than a state holds on the heap, and ctxprof_enc_emit
   writes the #error that asks for more words. */
CTXPROF__PRIV int ctxprof__enc_build(const ctxprof_graph *g, int scheme, ctxprof_enc_tables *out,
                                     ctxprof_error *err)
{
    ctxprof__eb B;
    uint32_t *map = NULL;
    size_t e, v;
    int st;
    ctxprof__error_clear(err);
    if (scheme < CTXPROF_ENC_PCCE || scheme > CTXPROF_ENC_AUTO) {
        memset(out, 0, sizeof *out);
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "unknown encoding scheme %d", scheme);
    }
    if ((st = ctxprof__eb_begin(&B, g, scheme, out, err)) != CTXPROF_OK)
        goto fail;
    switch (scheme) {
    case CTXPROF_ENC_PCCE: /* sec. 2.1: back edges push, the rest is numbered */
        map = (uint32_t *)ctxprof__alloc(g->n_nodes + 1, sizeof *map, B.ud);
        if (!map) {
            st = ctxprof__eb_nomem(&B);
            goto fail;
        }
        for (v = 0; v < g->n_nodes; v++)
            map[v] = (uint32_t)v;
        for (e = 0; e < g->n_edges; e++)
            B.cls[e] = (g->edges[e].flags & CTXPROF_GRAPH_EDGE_BACK) ? CTXPROF__NUM_PUSH
                                                                      : CTXPROF__NUM_DAG;
        st = ctxprof__eb_number(&B, map, (uint32_t)g->n_nodes, 1, 1);
        break;
    case CTXPROF_ENC_VALENCE:
        st = ctxprof__eb_levels(&B);
        if (st == CTXPROF_OK)
            st = ctxprof__eb_global_codes(&B);
        break;
    case CTXPROF_ENC_HCCE: /* sec. 3.3: PCCE numbering of the condensed graph */
        if (!(map = ctxprof__eb_scc_map(&B))) {
            st = ctxprof__eb_nomem(&B);
            goto fail;
        }
        for (e = 0; e < g->n_edges; e++)
            B.cls[e] = (g->edges[e].flags & CTXPROF_GRAPH_EDGE_CYCLIC) ? CTXPROF__NUM_SKIP
                                                                        : CTXPROF__NUM_DAG;
        st = ctxprof__eb_number(&B, map, (uint32_t)g->n_sccs, 0, 0);
        if (st == CTXPROF_OK)
            st = ctxprof__eb_global_codes(&B);
        break;
    case CTXPROF_ENC_AUTO:
        st = ctxprof__eb_auto(&B, &map);
        break;
    }
    if (st != CTXPROF_OK)
        goto fail;
    if (map && !out->lv_level) {
        out->num_of_node = map;
        map = NULL;
    }
    if (out->lv_level) { /* Valence, or AUTO with Valence's levels */
        uint32_t *sm = ctxprof__eb_scc_map(&B);
        if (!sm) {
            st = ctxprof__eb_nomem(&B);
            goto fail;
        }
        out->scc_of_node = sm;
    }
    out->acyc_words = (out->acyc_bits + 63) / 64;
    ctxprof__free(B.cls, B.ud);
    ctxprof__free(B.coded, B.ud);
    ctxprof__free(B.pmode, B.ud);
    ctxprof__free(map, B.ud);
    return CTXPROF_OK;
fail:
    ctxprof__free(B.cls, B.ud);
    ctxprof__free(B.coded, B.ud);
    ctxprof__free(B.pmode, B.ud);
    ctxprof__free(map, B.ud);
    ctxprof_enc_tables_free(out, B.ud);
    return st;
}

CTXPROF_DEF int ctxprof_enc_build(const ctxprof_graph *g, int scheme, ctxprof_enc_tables *out,
                                  ctxprof_error *err)
{
    uint32_t bits, words;
    int st = ctxprof__enc_build(g, scheme, out, err);
    if (st != CTXPROF_OK || out->acyc_words <= CTXPROF_ENC_ACYC_WORDS)
        return st;
    /* the run-time encoders XOR into st->acyc[word]: refuse what a state
       cannot hold, in the words of a generated header's #error */
    bits = out->acyc_bits;
    words = out->acyc_words;
    ctxprof_enc_tables_free(out, g->priv ? ((ctxprof__graph_priv *)g->priv)->ud : NULL);
    return ctxprof__fail(err, CTXPROF_ERR_RANGE, 0,
                         "the %s encoding of this call graph needs -DCTXPROF_ENC_ACYC_WORDS=%u "
                         "(acyclic part: %u bits; a state of this build holds %u words)",
                         ctxprof_enc_scheme_name(scheme), (unsigned)words, (unsigned)bits,
                         (unsigned)CTXPROF_ENC_ACYC_WORDS);
}

/* ---- decoding ---- */

/* Bits [lo, lo + k) of the acyclic part, k <= 64. */
CTXPROF__PRIV uint64_t ctxprof__enc_acyc_read(const uint64_t *w, uint64_t lo, uint32_t k)
{
    uint64_t v = 0;
    uint32_t got = 0;
    while (got < k) {
        uint64_t i = (lo + got) / 64, part;
        uint32_t off = (uint32_t)((lo + got) % 64), take = 64 - off;
        if (take > k - got)
            take = k - got;
        part = w[i] >> off;
        if (take < 64)
            part &= (UINT64_C(1) << take) - 1;
        v |= got < 64 ? part << got : 0;
        got += take;
    }
    return v;
}

/* The stack as the decoder sees it: R bits after the acyclic part. */
typedef struct ctxprof__stk {
    const uint64_t *w;
    uint32_t a, r; /* acyclic words, and bits of the acyclic part in word a */
    uint64_t R;    /* stack bits */
    uint64_t top;  /* undecoded stack bits [0, top) */
} ctxprof__stk;

/* Pops the newest k bits (k <= 64) as a number; the stack is read as one
   bit string, oldest first, each word holding its bits high to low. */
CTXPROF__PRIV uint64_t ctxprof__stk_pop(ctxprof__stk *S, uint32_t k)
{
    uint64_t cap0 = 64 - S->r, p = S->top - k, v = 0;
    while (p < S->top) {
        uint64_t j = p < cap0 ? 0 : 1 + (p - cap0) / 64;
        uint64_t s = j == 0 ? 0 : cap0 + 64 * (j - 1);
        uint64_t cnt = (j == 0 ? cap0 : 64), end;
        uint32_t off = j == 0 ? S->r : 0, len;
        uint64_t chunk;
        if (cnt > S->R - s)
            cnt = S->R - s;
        end = S->top < s + cnt ? S->top : s + cnt;
        len = (uint32_t)(end - p);
        chunk = S->w[S->a + j] >> (off + cnt - (end - s));
        if (len < 64)
            chunk &= (UINT64_C(1) << len) - 1;
        v = len < 64 ? (v << len) | chunk : chunk;
        p = end;
    }
    S->top -= k;
    return v;
}

typedef struct ctxprof__dec {
    const ctxprof_enc_tables *t;
    uint32_t node; /* the query point */
    uint32_t *out;
    size_t cap, n;
    ctxprof_error *err;
} ctxprof__dec;

CTXPROF__PRIV int ctxprof__dec_emit(ctxprof__dec *D, uint32_t e)
{
    if (D->n >= D->cap)
        return ctxprof__fail(D->err, CTXPROF_ERR_FULL, 0,
                             "path longer than the %lu edges the caller provided",
                             (unsigned long)D->cap);
    D->out[D->n++] = e;
    return CTXPROF_OK;
}

CTXPROF__PRIV int ctxprof__dec_bad(ctxprof__dec *D, const char *what, uint32_t node)
{
    return ctxprof__fail(D->err, CTXPROF_ERR_CORRUPT, 0,
                         "not an encoding of a path to '%s': %s at '%s'",
                         D->t->node_names[D->node], what,
                         node < D->t->n_nodes ? D->t->node_names[node] : "?");
}

/* One PCCE range-walk step (Valence paper sec. 2.1, decoding): the range of
   numbering node num(*m) that holds the id gives the incoming edge. Sets
   *done at the start of the thread. */
CTXPROF__PRIV int ctxprof__dec_range(ctxprof__dec *D, ctxprof__stk *S, uint64_t *id, uint32_t *m,
                                     int *done)
{
    const ctxprof_enc_tables *t = D->t;
    uint32_t u = t->num_of_node[*m], lo = t->range_first[u], hi = t->range_first[u + 1], ref, e;
    if (lo == hi || *id >= t->num_cc[u])
        return ctxprof__dec_bad(D, "id outside the node's range", *m);
    while (hi - lo > 1) { /* last range whose start <= id */
        uint32_t mid = lo + (hi - lo) / 2;
        if (t->range_lo[mid] <= *id)
            lo = mid;
        else
            hi = mid;
    }
    ref = t->range_ref[lo];
    if (ref == CTXPROF_ENC_REF_ROOT) {
        if (!(t->node_flags[*m] & CTXPROF_ENC_NODE_ROOT) || S->top != 0 || *id != t->range_lo[lo])
            return ctxprof__dec_bad(D, "start of a thread", *m);
        *done = 1;
        return CTXPROF_OK;
    }
    e = ref & ~CTXPROF_ENC_REF_PUSH;
    if (t->edge_callee[e] != *m)
        return ctxprof__dec_bad(D, "edge into another function", *m);
    if (ref & CTXPROF_ENC_REF_PUSH) { /* a push edge: the saved id is on the stack */
        uint32_t w = t->ops[e].id_bits;
        if (*id != t->range_lo[lo] || S->top < w)
            return ctxprof__dec_bad(D, "push edge", *m);
        *id = w ? ctxprof__stk_pop(S, w) : 0;
    } else {
        *id -= t->range_lo[lo];
    }
    *m = t->edge_caller[e];
    return ctxprof__dec_emit(D, e);
}

/* Valence Alg. 2, one step: level code, then edge code, then the edge. */
CTXPROF__PRIV int ctxprof__dec_levels(ctxprof__dec *D, const uint64_t *w, const ctxprof__stk *S,
                                      uint32_t *m, int *done)
{
    const ctxprof_enc_tables *t = D->t;
    uint32_t s = t->scc_of_node[*m], g0 = t->lv_first[s], ng = t->lv_first[s + 1] - g0;
    uint32_t hi = t->lv_level[s], lvlen = t->lv_len[s], lvlow = hi - lvlen, gi, pl, e, b;
    uint64_t lvcode, ecode;
    if (ng == 0) { /* a source component: only an entry point starts here */
        if ((t->node_flags[*m] & CTXPROF_ENC_NODE_ROOT) && S->top == 0) {
            *done = 1;
            return CTXPROF_OK;
        }
        return ctxprof__dec_bad(D, "no caller", *m);
    }
    lvcode = lvlen ? ctxprof__enc_acyc_read(w, lvlow, lvlen) : 0;
    if (lvcode >= ng)
        return ctxprof__dec_bad(D, "level code", *m);
    gi = g0 + (uint32_t)lvcode;
    pl = t->grp_plevel[gi];
    ecode = lvlow > pl ? ctxprof__enc_acyc_read(w, pl, lvlow - pl < 32 ? lvlow - pl : 32) : 0;
    for (b = pl + 32; b < lvlow && ecode != UINT64_MAX; b += 64) /* the rest of the field: zeros */
        if (ctxprof__enc_acyc_read(w, b, lvlow - b < 64 ? lvlow - b : 64) != 0)
            ecode = UINT64_MAX;
    if (ecode >= t->grp_first[gi + 1] - t->grp_first[gi])
        return ctxprof__dec_bad(D, "edge code", *m);
    e = t->grp_edge[t->grp_first[gi] + (uint32_t)ecode];
    if (e == CTXPROF_ENC_REF_ROOT) {
        if (!(t->node_flags[*m] & CTXPROF_ENC_NODE_ROOT) || S->top != 0)
            return ctxprof__dec_bad(D, "start of a thread", *m);
        *done = 1;
        return CTXPROF_OK;
    }
    if (t->edge_callee[e] != *m)
        return ctxprof__dec_bad(D, "edge into another function", *m);
    *m = t->edge_caller[e];
    return ctxprof__dec_emit(D, e);
}

/* Valence Alg. 4, lines 4-9: when the stack's top code is an edge into *m,
   that edge is the next one (and a coded push edge's saved id follows). */
CTXPROF__PRIV int ctxprof__dec_global(ctxprof__dec *D, ctxprof__stk *S, uint64_t *id, uint32_t *m,
                                      int *taken)
{
    const ctxprof_enc_tables *t = D->t;
    ctxprof__stk peek = *S;
    uint64_t code;
    uint32_t e;
    *taken = 0;
    if (S->top == 0)
        return CTXPROF_OK;
    if (S->top < t->rec_bits)
        return ctxprof__dec_bad(D, "short stack", *m);
    code = ctxprof__stk_pop(&peek, t->rec_bits);
    if (code >= t->n_rec)
        return ctxprof__dec_bad(D, "stack code", *m);
    e = t->rec_edge[code];
    if (t->edge_callee[e] != *m)
        return CTXPROF_OK; /* the top belongs to an earlier frame */
    *S = peek;
    if (t->ops[e].id_push) {
        uint32_t w = t->ops[e].id_bits;
        if (S->top < w)
            return ctxprof__dec_bad(D, "short stack", *m);
        if (*id != t->ops[e].id_new + t->ops[e].add) /* the id the push edge started */
            return ctxprof__dec_bad(D, "push edge", *m);
        *id = w ? ctxprof__stk_pop(S, w) : 0;
    }
    *m = t->edge_caller[e];
    *taken = 1;
    return ctxprof__dec_emit(D, e);
}

/* AUTO's per-target codes: a frame of a coded function popped its code;
   code 0 of an entry function means "entered from outside its SCC". The
   bottom frame of a thread pushed nothing. */
CTXPROF__PRIV int ctxprof__dec_target(ctxprof__dec *D, ctxprof__stk *S, uint32_t *m, int *taken)
{
    const ctxprof_enc_tables *t = D->t;
    uint8_t fl = t->node_flags[*m];
    uint32_t k = t->node_rec_bits[*m], entry = (fl & CTXPROF_ENC_NODE_ENTRY) ? 1u : 0u, e;
    uint64_t code;
    *taken = 0;
    if (!(fl & CTXPROF_ENC_NODE_CODED) || ((fl & CTXPROF_ENC_NODE_ROOT) && S->top == 0))
        return CTXPROF_OK;
    if (S->top < k)
        return ctxprof__dec_bad(D, "short stack", *m);
    code = k ? ctxprof__stk_pop(S, k) : 0;
    if (entry && code == 0)
        return CTXPROF_OK;
    if (code - entry >= t->cyc_first[*m + 1] - t->cyc_first[*m])
        return ctxprof__dec_bad(D, "stack code", *m);
    e = t->cyc_edge[t->cyc_first[*m] + (uint32_t)(code - entry)];
    *m = t->edge_caller[e];
    *taken = 1;
    return ctxprof__dec_emit(D, e);
}

CTXPROF_DEF int ctxprof_enc_decode(const ctxprof_enc_tables *t, const uint64_t *words,
                                   uint64_t n_bits, uint32_t node, uint32_t *out, size_t cap,
                                   size_t *out_n, ctxprof_error *err)
{
    ctxprof__dec D;
    ctxprof__stk S;
    uint64_t id = 0;
    uint32_t m = node;
    int done = 0, st = CTXPROF_OK;
    size_t i;
    D.t = t;
    D.node = node;
    D.out = out;
    D.cap = cap;
    D.n = 0;
    D.err = err;
    ctxprof__error_clear(err);
    if (!out_n)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "ctxprof_enc_decode: out_n is NULL");
    *out_n = 0;
    if (!t)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "ctxprof_enc_decode: tables are NULL");
    if (node >= t->n_nodes)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0,
                             "ctxprof_enc_decode: node %lu out of range: the tables have %lu "
                             "functions",
                             (unsigned long)node, (unsigned long)t->n_nodes);
    if (n_bits < t->acyc_bits)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0,
                             "ctxprof_enc_decode: %llu bits, fewer than the %lu of the "
                             "tables' acyclic id",
                             (unsigned long long)n_bits, (unsigned long)t->acyc_bits);
    if (n_bits && !words)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0,
                             "ctxprof_enc_decode: words is NULL with %llu bits",
                             (unsigned long long)n_bits);
    if (cap && !out)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0,
                             "ctxprof_enc_decode: out is NULL with cap %zu", cap);
    S.w = words;
    S.a = t->acyc_bits / 64;
    S.r = t->acyc_bits % 64;
    S.R = n_bits - t->acyc_bits;
    S.top = S.R;
    if (t->acyc_bits)
        id = ctxprof__enc_acyc_read(words, 0, t->acyc_bits < 64 ? t->acyc_bits : 64);
    while (!done && st == CTXPROF_OK) {
        int taken = 0;
        /* between two steps that consume bits, a valid path descends the
           numbering DAG or takes zero-bit codes around one SCC */
        if (D.n > (S.R + 2) * ((uint64_t)t->n_nodes + 1))
            return ctxprof__dec_bad(&D, "a loop", m);
        switch (t->scheme) {
        case CTXPROF_ENC_PCCE:
            st = ctxprof__dec_range(&D, &S, &id, &m, &done);
            break;
        case CTXPROF_ENC_VALENCE:
        case CTXPROF_ENC_HCCE:
            if ((st = ctxprof__dec_global(&D, &S, &id, &m, &taken)) != CTXPROF_OK || taken)
                break;
            if (t->scheme == CTXPROF_ENC_VALENCE)
                st = ctxprof__dec_levels(&D, words, &S, &m, &done);
            else
                st = ctxprof__dec_range(&D, &S, &id, &m, &done);
            break;
        case CTXPROF_ENC_AUTO: {
            uint64_t top0 = S.top;
            uint32_t m0 = m;
            if (t->rec_edge) /* global codes: decodes like HCCE */
                st = ctxprof__dec_global(&D, &S, &id, &m, &taken);
            else
                st = ctxprof__dec_target(&D, &S, &m, &taken);
            if (st == CTXPROF_OK && !taken)
                st = t->lv_level ? ctxprof__dec_levels(&D, words, &S, &m, &done)
                                 : ctxprof__dec_range(&D, &S, &id, &m, &done);
            /* a frame of a coded entry point popped its code (at least one
               bit: code 0 is "entered from outside") unless it is the
               bottom frame of a thread, which pushed nothing */
            if (st == CTXPROF_OK && !t->rec_edge &&
                (t->node_flags[m0] & (CTXPROF_ENC_NODE_CODED | CTXPROF_ENC_NODE_ROOT)) ==
                    (CTXPROF_ENC_NODE_CODED | CTXPROF_ENC_NODE_ROOT) &&
                done == (S.top != top0))
                st = ctxprof__dec_bad(&D, done ? "start of a thread" : "no stack code", m0);
            break;
        }
        default:
            return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "unknown scheme %d", t->scheme);
        }
    }
    if (st != CTXPROF_OK) {
        *out_n = D.n;
        return st;
    }
    for (i = 0; i < D.n / 2; i++) { /* root first */
        uint32_t x = out[i];
        out[i] = out[D.n - 1 - i];
        out[D.n - 1 - i] = x;
    }
    *out_n = D.n;
    return CTXPROF_OK;
}

CTXPROF_DEF int ctxprof_enc_decode_view(const ctxprof_enc_tables *t, const ctxprof_enc_view *v,
                                        uint32_t node, uint32_t *out, size_t cap, size_t *out_n,
                                        ctxprof_error *err)
{
    ctxprof__error_clear(err);
    if (!out_n)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "ctxprof_enc_decode: out_n is NULL");
    *out_n = 0;
    if (!v)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "ctxprof_enc_decode_view: view is NULL");
    if (v->truncated && v->n_words == 0 && t && v->n_bits == t->acyc_bits &&
        t->acyc_words > CTXPROF_ENC_ACYC_WORDS) /* (from ctxprof_enc_query) */
        return ctxprof__fail(err, CTXPROF_ERR_RANGE, 0,
                             "the acyclic part (%u bits) is wider than a state holds: build "
                             "with -DCTXPROF_ENC_ACYC_WORDS=%u",
                             (unsigned)t->acyc_bits, (unsigned)t->acyc_words);
    if (v->truncated)
        return ctxprof__fail(err, CTXPROF_ERR_RANGE, 0,
                             "encoding truncated: the recursion stack limit was reached");
    return ctxprof_enc_decode(t, v->words, v->n_bits, node, out, cap, out_n, err);
}

CTXPROF_DEF size_t ctxprof_enc_format(const ctxprof_enc_tables *t, uint32_t start,
                                      const uint32_t *path, size_t n, char *buf, size_t size)
{
    size_t used = 0, i;
    const char *name;
    if (n > 0 && path[0] < t->n_edges)
        start = t->edge_caller[path[0]];
    name = start < t->n_nodes ? t->node_names[start] : "?";
    used += (size_t)snprintf(buf, size, "%s", name);
    for (i = 0; i < n; i++) {
        uint32_t e = path[i];
        char *p = used < size ? buf + used : NULL;
        size_t room = used < size ? size - used : 0;
        if (e >= t->n_edges) /* not an edge of t: shown, never read */
            used += (size_t)snprintf(p, room, " -> ?(edge %u)", (unsigned)e);
        else if (t->edge_site[e])
            used += (size_t)snprintf(p, room, " -> %s#%u", t->node_names[t->edge_callee[e]],
                                     (unsigned)t->edge_site[e]);
        else
            used += (size_t)snprintf(p, room, " -> %s", t->node_names[t->edge_callee[e]]);
    }
    return used;
}

/* ---- statistics ---- */

/* Counts of any size as m * 2^e with the top bit of m set (m = 0: zero):
   exact below 2^64, then rounded down; enough for bit counts. */
typedef struct ctxprof__big {
    uint64_t m;
    int32_t e;
} ctxprof__big;

CTXPROF__PRIV ctxprof__big ctxprof__big_add(ctxprof__big a, ctxprof__big b)
{
    uint32_t sh;
    uint64_t bm, sum;
    if (!b.m)
        return a;
    if (!a.m)
        return b;
    if (a.e < b.e) {
        ctxprof__big x = a;
        a = b;
        b = x;
    }
    sh = (uint32_t)(a.e - b.e);
    bm = sh >= 64 ? 0 : b.m >> sh;
    sum = a.m + bm;
    if (sum < a.m) { /* carry: renormalise */
        a.m = (sum >> 1) | (UINT64_C(1) << 63);
        a.e++;
    } else {
        a.m = sum;
    }
    return a;
}

CTXPROF__PRIV ctxprof__big ctxprof__big_one(void)
{
    ctxprof__big one;
    one.m = UINT64_C(1) << 63;
    one.e = -63;
    return one;
}

/* Bits of the largest id of a count, i.e. bits(count - 1). */
CTXPROF__PRIV uint32_t ctxprof__big_bits(ctxprof__big c)
{
    int32_t top = c.e + 63; /* c = 2^top * (m / 2^63) */
    if (!c.m || top < 0)
        return 0;
    return (uint32_t)(c.m == (UINT64_C(1) << 63) ? top : top + 1);
}

/* Largest bits(numCC - 1) of a numbering without the 64-bit cut. */
CTXPROF__PRIV int ctxprof__num_log_bits(const ctxprof_graph *g, const uint32_t *num_of_node,
                                        uint32_t n_num, const uint8_t *cls, uint32_t *out_bits,
                                        uint32_t *out_widest, void *ud)
{
    size_t m = g->n_edges, e, i;
    uint32_t *order = (uint32_t *)ctxprof__alloc((size_t)n_num + 1, sizeof *order, ud);
    ctxprof__big *cc = (ctxprof__big *)ctxprof__zalloc((size_t)n_num + 1, sizeof *cc, ud);
    uint32_t *first = (uint32_t *)ctxprof__zalloc((size_t)n_num + 2, sizeof *first, ud);
    uint32_t *in = (uint32_t *)ctxprof__alloc(m + 1, sizeof *in, ud);
    uint32_t best = 0, widest = 0;
    int st = CTXPROF_ERR_NOMEM;
    if (!order || !cc || !first || !in)
        goto out;
    if ((st = ctxprof__num_topo(g, num_of_node, n_num, cls, order, ud)) != CTXPROF_OK)
        goto out;
    for (e = 0; e < m; e++)
        if (cls[e] != CTXPROF__NUM_SKIP)
            first[num_of_node[g->edges[e].callee] + 1]++;
    for (i = 0; i < n_num; i++)
        first[i + 1] += first[i];
    for (e = 0; e < m; e++)
        if (cls[e] != CTXPROF__NUM_SKIP)
            in[first[num_of_node[g->edges[e].callee]]++] = (uint32_t)e;
    for (i = n_num; i > 0; i--)
        first[i] = first[i - 1];
    first[0] = 0;
    for (i = 0; i < g->n_roots; i++)
        cc[num_of_node[g->roots[i]]] = ctxprof__big_one();
    for (i = 0; i < n_num; i++) {
        uint32_t u = order[i], k, b;
        for (k = first[u]; k < first[u + 1]; k++) {
            uint32_t ei = in[k];
            cc[u] = ctxprof__big_add(cc[u], cls[ei] == CTXPROF__NUM_PUSH
                                                 ? ctxprof__big_one()
                                                 : cc[num_of_node[g->edges[ei].caller]]);
        }
        if ((b = ctxprof__big_bits(cc[u])) > best) {
            best = b;
            widest = u;
        }
    }
    for (i = 0; i < g->n_nodes; i++) /* the numbering node's first function */
        if (num_of_node[i] == widest) {
            widest = (uint32_t)i;
            break;
        }
    st = CTXPROF_OK;
out:
    ctxprof__free(order, ud);
    ctxprof__free(cc, ud);
    ctxprof__free(first, ud);
    ctxprof__free(in, ud);
    *out_bits = best;
    *out_widest = widest;
    return st;
}

/* The graph counts and the unbounded PCCE and HCCE bits (no tables). */
CTXPROF__PRIV int ctxprof__enc_stats_counts(const ctxprof_graph *g, ctxprof_enc_stats *o,
                                            ctxprof_error *err)
{
    void *ud = g->priv ? ((ctxprof__graph_priv *)g->priv)->ud : NULL;
    size_t n = g->n_nodes, m = g->n_edges, v, e;
    uint32_t *map = NULL, *smap = NULL;
    uint8_t *cls = NULL;
    int st = CTXPROF_ERR_NOMEM;
    memset(o, 0, sizeof *o);
    if (!g->finished)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "call graph not finished");
    o->nodes = n;
    o->edges = m;
    o->sccs = g->n_sccs;
    o->complex_sccs = g->n_complex_sccs;
    o->cyclic_edges = g->n_cyclic_edges;
    o->back_edges = g->n_back_edges;
    o->roots = g->n_roots;
    map = (uint32_t *)ctxprof__zalloc(n + 1, sizeof *map, ud);
    smap = (uint32_t *)ctxprof__zalloc(n + 1, sizeof *smap, ud);
    cls = (uint8_t *)ctxprof__zalloc(m + 1, 1, ud);
    if (!map || !smap || !cls)
        goto out;
    for (v = 0; v < n; v++) {
        map[v] = (uint32_t)v;
        smap[v] = g->nodes[v].scc;
    }
    for (e = 0; e < m; e++)
        cls[e] = (g->edges[e].flags & CTXPROF_GRAPH_EDGE_BACK) ? CTXPROF__NUM_PUSH
                                                                : CTXPROF__NUM_DAG;
    if ((st = ctxprof__num_log_bits(g, map, (uint32_t)n, cls, &o->pcce_bits, &o->pcce_widest,
                                    ud)) != CTXPROF_OK)
        goto out;
    for (e = 0; e < m; e++)
        cls[e] = (g->edges[e].flags & CTXPROF_GRAPH_EDGE_CYCLIC) ? CTXPROF__NUM_SKIP
                                                                  : CTXPROF__NUM_DAG;
    st = ctxprof__num_log_bits(g, smap, (uint32_t)g->n_sccs, cls, &o->hcce_bits, &o->hcce_widest,
                               ud);
out:
    if (st == CTXPROF_ERR_NOMEM)
        ctxprof__fail(err, st, 0, "out of memory");
    ctxprof__free(map, ud);
    ctxprof__free(smap, ud);
    ctxprof__free(cls, ud);
    return st;
}

/* The counts, and Valence's bits (its levels are cheap to build). */
CTXPROF__PRIV int ctxprof__enc_stats_bits(const ctxprof_graph *g, ctxprof_enc_stats *o)
{
    ctxprof_error err;
    ctxprof_enc_tables t;
    int st = ctxprof__enc_stats_counts(g, o, &err);
    if (st == CTXPROF_OK && (st = ctxprof__enc_build(g, CTXPROF_ENC_VALENCE, &t, &err)) == 0) {
        o->valence_bits = t.acyc_bits;
        o->valence_rec_bits = t.rec_bits;
        ctxprof_enc_tables_free(&t, g->priv ? ((ctxprof__graph_priv *)g->priv)->ud : NULL);
    }
    return st;
}

/* Call edges an overflow cut made push edges (back edges push anyway). */
CTXPROF__PRIV size_t ctxprof__enc_cut_edges(const ctxprof_graph *g, const ctxprof_enc_tables *t)
{
    size_t e, pushed = 0;
    for (e = 0; e < g->n_edges; e++)
        if (t->ops[e].id_push && !(g->edges[e].flags & CTXPROF_GRAPH_EDGE_BACK))
            pushed++;
    return pushed;
}

/* Warns (through the graph's logger) that scheme s cut its 64-bit id into
   `pushed` push edges: which function has the most contexts, where it is,
   and the bits its ids would need. st: the graph's counts and Valence's
   bits (ctxprof__enc_stats_bits). */
CTXPROF__PRIV void ctxprof__enc_overflow_warn(const ctxprof_graph *g, int s, size_t pushed,
                                              const ctxprof_enc_stats *st)
{
    uint32_t widest = s == CTXPROF_ENC_PCCE ? st->pcce_widest : st->hcce_widest;
    char at[120];
    ctxprof__graph_where(g, widest, at, sizeof at);
    ctxprof__graph_log(g, CTXPROF_LOG_WARN,
                       "%s: '%s'%s has too many acyclic contexts for a 64-bit id (ids of %u "
                       "bits; at most 2^64 - 1 contexts fit): %lu call edges push the id "
                       "instead, like recursion (Valence's multi-word id has no such limit: "
                       "%u bits)",
                       ctxprof_enc_scheme_name(s), g->nodes[widest].name, at,
                       (unsigned)(s == CTXPROF_ENC_PCCE ? st->pcce_bits : st->hcce_bits),
                       (unsigned long)pushed, (unsigned)st->valence_bits);
}

/* The warning for tables t if they were cut. *have: st already holds the
   statistics, which are computed here once for all of a caller's schemes. */
CTXPROF__PRIV void ctxprof__enc_overflow_note(const ctxprof_graph *g, const ctxprof_enc_tables *t,
                                              ctxprof_enc_stats *st, int *have)
{
    size_t pushed = ctxprof__enc_cut_edges(g, t);
    if (!pushed || (!*have && ctxprof__enc_stats_bits(g, st) != CTXPROF_OK))
        return;
    *have = 1;
    ctxprof__enc_overflow_warn(g, t->scheme, pushed, st);
}

CTXPROF_DEF int ctxprof_enc_stats_compute(const ctxprof_graph *g, ctxprof_enc_stats *o,
                                          ctxprof_error *err)
{
    void *ud = g->priv ? ((ctxprof__graph_priv *)g->priv)->ud : NULL;
    size_t n = g->n_nodes, v;
    ctxprof_enc_tables t;
    int st, s;
    ctxprof__error_clear(err);
    if ((st = ctxprof__enc_stats_counts(g, o, err)) != CTXPROF_OK)
        return st;
    for (s = CTXPROF_ENC_PCCE; s <= CTXPROF_ENC_AUTO; s++) {
        size_t pushed;
        if ((st = ctxprof__enc_build(g, s, &t, err)) != CTXPROF_OK)
            return st;
        pushed = ctxprof__enc_cut_edges(g, &t);
        if (s == CTXPROF_ENC_PCCE) {
            o->pcce_push_edges = pushed;
        } else if (s == CTXPROF_ENC_VALENCE) {
            o->valence_bits = t.acyc_bits;
            o->valence_rec_bits = t.rec_bits;
        } else if (s == CTXPROF_ENC_HCCE) {
            o->hcce_push_edges = pushed;
        } else {
            o->auto_bits = t.acyc_bits;
            o->auto_push_edges = pushed;
            o->auto_rec_bits_max = t.rec_bits; /* global codes, or the widest per target */
            for (v = 0; t.node_rec_bits && v < n; v++)
                if (t.node_rec_bits[v] > o->auto_rec_bits_max)
                    o->auto_rec_bits_max = t.node_rec_bits[v];
        }
        ctxprof_enc_tables_free(&t, ud);
    }
    /* o holds all that the overflow warnings name */
    if (o->pcce_push_edges)
        ctxprof__enc_overflow_warn(g, CTXPROF_ENC_PCCE, o->pcce_push_edges, o);
    if (o->hcce_push_edges)
        ctxprof__enc_overflow_warn(g, CTXPROF_ENC_HCCE, o->hcce_push_edges, o);
    if (o->auto_push_edges)
        ctxprof__enc_overflow_warn(g, CTXPROF_ENC_AUTO, o->auto_push_edges, o);
    return CTXPROF_OK;
}

/* ---- self-check: random walks through the encoders, decoding every step ---- */

/* ctxprof_enc_enter / ctxprof_enc_leave for an acyclic id wider than a
   state holds: the XORs go to `wide` (acyc_words words on the heap), the
   rest of the op to the state as usual; ctxprof__enc_query_at reads it. */
CTXPROF__PRIV uint64_t ctxprof__check_enter(ctxprof_enc *st, uint64_t *wide, uint32_t base,
                                            const ctxprof_enc_op *op)
{
    ctxprof_enc_op o = *op;
    uint32_t i;
    if (!wide)
        return ctxprof_enc_enter(st, base, op);
    for (i = 0; i < op->n_xor; i++)
        wide[op->xor_word[i]] ^= op->xor_val[i];
    o.n_xor = 0;
    return ctxprof_enc_enter(st, base, &o);
}

CTXPROF__PRIV void ctxprof__check_leave(ctxprof_enc *st, uint64_t *wide, uint32_t base,
                                        const ctxprof_enc_op *op, uint64_t saved)
{
    ctxprof_enc_op o = *op;
    uint32_t i;
    if (!wide) {
        ctxprof_enc_leave(st, base, op, saved);
        return;
    }
    o.n_xor = 0;
    ctxprof_enc_leave(st, base, &o, saved);
    for (i = 0; i < op->n_xor; i++)
        wide[op->xor_word[i]] ^= op->xor_val[i];
}

/* Out-edges of every node, those into a cyclic edge or a non-leaf callee
   first (a walk prefers them on the way down): pref[v] of them. */
CTXPROF__PRIV void ctxprof__check_prefs(const ctxprof_graph *g, uint32_t *order, uint32_t *ncyc,
                                        uint32_t *npref)
{
    size_t v;
    for (v = 0; v < g->n_nodes; v++) {
        uint32_t j, lo = g->out_first[v], hi = g->out_first[v + 1], k = lo, pass;
        for (pass = 0; pass < 3; pass++) {
            for (j = lo; j < hi; j++) {
                uint32_t e = g->out_edge[j], c = g->edges[e].callee;
                int cyc = (g->edges[e].flags & CTXPROF_GRAPH_EDGE_CYCLIC) != 0;
                int leaf = g->out_first[c + 1] == g->out_first[c];
                if ((pass == 0 && cyc) || (pass == 1 && !cyc && !leaf) ||
                    (pass == 2 && !cyc && leaf))
                    order[k++] = e;
            }
            if (pass == 0)
                ncyc[v] = k - lo;
            else if (pass == 1)
                npref[v] = k - lo;
        }
    }
}

CTXPROF_DEF int ctxprof_enc_check(const ctxprof_graph *g, const ctxprof_enc_check_desc *desc,
                                  ctxprof_enc_check_result *out, ctxprof_error *err)
{
    void *ud = g->priv ? ((ctxprof__graph_priv *)g->priv)->ud : NULL;
    ctxprof_enc_tables tabs[CTXPROF_ENC_NSCHEMES];
    ctxprof_enc st[CTXPROF_ENC_NSCHEMES];
    uint64_t *wide[CTXPROF_ENC_NSCHEMES];
    uint64_t walks = desc && desc->walks ? desc->walks : 100, rng, w, credit = 0, wcap = 0;
    uint32_t depth = desc && desc->depth ? desc->depth : 64;
    uint32_t max_steps = desc && desc->max_steps ? desc->max_steps : 8 * depth;
    uint32_t full = desc && desc->full_depth ? desc->full_depth : 256;
    uint32_t mask = desc && desc->schemes ? desc->schemes : 0x1Eu;
    uint32_t *stack = NULL, *path = NULL, *order = NULL, *ncyc = NULL, *npref = NULL;
    uint64_t *saved = NULL, *words = NULL;
    ctxprof_enc_stats gst; /* for the overflow warnings */
    int s, rc = CTXPROF_OK, have_gst = 0;
    ctxprof__error_clear(err);
    memset(out, 0, sizeof *out);
    memset(tabs, 0, sizeof tabs);
    memset(st, 0, sizeof st);
    memset(wide, 0, sizeof wide);
    if (!g->finished)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "call graph not finished");
    rng = desc ? desc->seed : 0;
    for (s = 1; s < CTXPROF_ENC_NSCHEMES; s++) {
        ctxprof_enc_desc ed;
        if (!(mask >> s & 1))
            continue;
        if ((rc = ctxprof__enc_build(g, s, &tabs[s], err)) != CTXPROF_OK)
            goto out;
        ctxprof__enc_overflow_note(g, &tabs[s], &gst, &have_gst);
        if (tabs[s].acyc_words > CTXPROF_ENC_ACYC_WORDS) {
            wide[s] = (uint64_t *)ctxprof__zalloc((size_t)tabs[s].acyc_words + 1, 8, ud);
            if (!wide[s])
                goto nomem;
        }
        if (tabs[s].acyc_words + 1 > wcap)
            wcap = tabs[s].acyc_words + 1;
        /* at most two words a call (HCCE: a saved id and a code) */
        memset(&ed, 0, sizeof ed);
        ed.max_words = 2 * (uint64_t)depth + 64;
        ed.alloc_user = ud;
        ctxprof_enc_init(&st[s], &ed);
    }
    stack = (uint32_t *)ctxprof__alloc((size_t)depth + 1, sizeof *stack, ud);
    path = (uint32_t *)ctxprof__alloc((size_t)depth + 1, sizeof *path, ud);
    saved = (uint64_t *)ctxprof__alloc(((size_t)depth + 1) * CTXPROF_ENC_NSCHEMES, sizeof *saved,
                                       ud);
    words = (uint64_t *)ctxprof__alloc((size_t)wcap, 8, ud); /* a wide view with no stack */
    order = (uint32_t *)ctxprof__alloc(g->n_edges + 1, sizeof *order, ud);
    ncyc = (uint32_t *)ctxprof__alloc(g->n_nodes + 1, sizeof *ncyc, ud);
    npref = (uint32_t *)ctxprof__alloc(g->n_nodes + 1, sizeof *npref, ud);
    if (!stack || !path || !saved || !words || !order || !ncyc || !npref)
        goto nomem;
    ctxprof__check_prefs(g, order, ncyc, npref);
    for (w = 0; w < walks; w++) {
        uint32_t d = 0, node = g->root, steps = 0, target;
        int unwinding = 0;
        if (w % 8 == 7 && g->n_roots > 1) /* now and then start a thread elsewhere */
            node = g->roots[1 + ctxprof_mix64(rng++) % (g->n_roots - 1)];
        /* every other walk to the full depth, the others to depth / 2 .. depth */
        target = depth - (uint32_t)(w % 2 ? 0 : ctxprof_mix64(rng++) % ((uint64_t)depth / 2 + 1));
        for (s = 1; s < CTXPROF_ENC_NSCHEMES; s++)
            if (mask >> s & 1) {
                ctxprof_enc_reset(&st[s]);
                if (wide[s])
                    memset(wide[s], 0, ((size_t)tabs[s].acyc_words + 1) * 8);
            }
        for (;;) {
            uint32_t lo = g->out_first[node], deg = g->out_first[node + 1] - lo, e;
            uint64_t r = ctxprof_mix64(rng++);
            int call;
            if (!unwinding && (steps >= max_steps || d >= target))
                unwinding = 1;
            /* down: 7 calls in 8 toward the target; back up: 1 in 4 */
            call = deg > 0 && d < depth && (d == 0 || r % 8 < (unwinding ? 2u : 7u));
            if (call) {
                uint32_t pick = (uint32_t)(r >> 8), c = ncyc[node], p = npref[node];
                if (unwinding || p == 0)
                    e = order[lo + pick % deg];
                else if (c > 0 && (r >> 40) % 2 == 0)
                    e = order[lo + pick % c];
                else
                    e = order[lo + pick % p];
                for (s = 1; s < CTXPROF_ENC_NSCHEMES; s++)
                    if (mask >> s & 1)
                        saved[(size_t)d * CTXPROF_ENC_NSCHEMES + (size_t)s] = ctxprof__check_enter(
                            &st[s], wide[s], tabs[s].acyc_bits, &tabs[s].ops[e]);
                stack[d++] = e;
                node = g->edges[e].callee;
                out->calls++;
                if (d > out->max_depth)
                    out->max_depth = d;
            } else if (d > 0) {
                e = stack[--d];
                for (s = CTXPROF_ENC_NSCHEMES - 1; s >= 1; s--)
                    if (mask >> s & 1)
                        ctxprof__check_leave(&st[s], wide[s], tabs[s].acyc_bits, &tabs[s].ops[e],
                                             saved[(size_t)d * CTXPROF_ENC_NSCHEMES + (size_t)s]);
                node = g->edges[e].caller;
            } else {
                break;
            }
            steps++;
            out->steps++;
            /* decode every step up to full depth; deeper, a decode (which
               costs d) when a credit of 16 per step covers it */
            {
                int decode = d <= full || (credit += 16) >= d;
                if (decode && d > full)
                    credit = 0;
                if (decode)
                    out->checked++;
                if (decode && d > full)
                    out->sampled++;
                for (s = 1; s < CTXPROF_ENC_NSCHEMES; s++) {
                    ctxprof_enc_view v;
                    ctxprof_error derr;
                    size_t n = 0;
                    int drc;
                    if (!(mask >> s & 1))
                        continue;
                    if (wide[s])
                        ctxprof__enc_query_at(&st[s], wide[s], tabs[s].acyc_bits, words, &v);
                    else
                        ctxprof_enc_query(&st[s], tabs[s].acyc_bits, &v);
                    out->words_sum[s] += v.n_words;
                    out->bits_sum[s] += v.n_bits;
                    if (v.n_words > out->max_words[s])
                        out->max_words[s] = v.n_words;
                    if (v.n_bits > out->max_bits[s])
                        out->max_bits[s] = v.n_bits;
                    if (!decode)
                        continue;
                    derr.detail[0] = '\0';
                    drc = ctxprof_enc_decode_view(&tabs[s], &v, node, path, (size_t)depth + 1, &n,
                                                  &derr);
                    if (drc == CTXPROF_OK && n == d && memcmp(path, stack, d * sizeof *path) == 0) {
                        out->decoded[s]++;
                    } else if (!out->failure[0]) {
                        char want[80], got[80];
                        ctxprof_enc_format(&tabs[s], node, stack, d, want, sizeof want);
                        if (drc == CTXPROF_OK)
                            ctxprof_enc_format(&tabs[s], node, path, n, got, sizeof got);
                        snprintf(out->failure, sizeof out->failure,
                                 "%s, step %llu: %.80s; expected %s", ctxprof_enc_scheme_name(s),
                                 (unsigned long long)out->steps,
                                 drc == CTXPROF_OK ? got : derr.detail, want);
                    }
                }
            }
            if (d == 0 && (unwinding || steps > 1))
                break;
        }
    }
    goto out;
nomem:
    rc = ctxprof__fail(err, CTXPROF_ERR_NOMEM, 0, "out of memory");
out:
    for (s = 1; s < CTXPROF_ENC_NSCHEMES; s++) {
        ctxprof_enc_deinit(&st[s]);
        ctxprof_enc_tables_free(&tabs[s], ud);
        ctxprof__free(wide[s], ud);
    }
    ctxprof__free(stack, ud);
    ctxprof__free(path, ud);
    ctxprof__free(saved, ud);
    ctxprof__free(words, ud);
    ctxprof__free(order, ud);
    ctxprof__free(ncyc, ud);
    ctxprof__free(npref, ud);
    return rc;
}

/* ---- generated headers ---- */

CTXPROF__PRIV void ctxprof__emit_u64(ctxprof__sbuf *b, uint64_t v)
{
    if (v < 0x80000000u)
        ctxprof__sbuf_printf(b, "%lluu", (unsigned long long)v);
    else
        ctxprof__sbuf_printf(b, "0x%llxull", (unsigned long long)v);
}

/* The call macro of one edge: the innermost statement is the call
   (__VA_ARGS__: commas in it need no parentheses). */
CTXPROF__PRIV void ctxprof__emit_call(ctxprof__sbuf *b, const ctxprof_enc_op *op,
                                      const char *base)
{
    int close = 0, i;
    if (op->id_push) {
        ctxprof__sbuf_printf(b, "CTXPROF_PCCE_CALL_PUSH(st, %s, %u, ", base, (unsigned)op->id_bits);
        ctxprof__emit_u64(b, op->id_new);
        ctxprof__sbuf_put(b, ", ", 2);
        close++;
    }
    if (op->add) {
        ctxprof__sbuf_printf(b, "CTXPROF_PCCE_CALL_ADD(st, ");
        ctxprof__emit_u64(b, op->add);
        ctxprof__sbuf_put(b, ", ", 2);
        close++;
    }
    for (i = 0; i + 1 < op->n_xor; i += 2) {
        ctxprof__sbuf_printf(b, "CTXPROF_VAL_CALL_SET2(st, %u, ", (unsigned)op->xor_word[i]);
        ctxprof__emit_u64(b, op->xor_val[i]);
        ctxprof__sbuf_printf(b, ", %u, ", (unsigned)op->xor_word[i + 1]);
        ctxprof__emit_u64(b, op->xor_val[i + 1]);
        ctxprof__sbuf_put(b, ", ", 2);
        close++;
    }
    if (i < op->n_xor) {
        ctxprof__sbuf_printf(b, "CTXPROF_VAL_CALL_SET(st, %u, ", (unsigned)op->xor_word[i]);
        ctxprof__emit_u64(b, op->xor_val[i]);
        ctxprof__sbuf_put(b, ", ", 2);
        close++;
    }
    if (op->push_bits) {
        ctxprof__sbuf_printf(b, "CTXPROF_VAL_CALL_PUSH(st, %s, %u, ", base,
                             (unsigned)op->push_bits);
        ctxprof__emit_u64(b, op->push_code);
        ctxprof__sbuf_put(b, ", ", 2);
        close++;
    }
    if (!close)
        ctxprof__sbuf_printf(b, "CTXPROF_ENC_CALL_PLAIN(st, __VA_ARGS__)");
    else
        ctxprof__sbuf_put(b, "__VA_ARGS__", 11);
    while (close-- > 0)
        ctxprof__sbuf_put(b, ")", 1);
}

CTXPROF__PRIV void ctxprof__emit_u32s(ctxprof__sbuf *b, const char *P, const char *sch,
                                      const char *name, const uint32_t *a, size_t n)
{
    size_t i;
    ctxprof__sbuf_printf(b, "static const uint32_t %s%s%s[] = {", P, sch, name);
    for (i = 0; i < n; i++)
        ctxprof__sbuf_printf(b, "%s%lu", !i ? "\n    " : i % 16 ? ", " : ",\n    ",
                             (unsigned long)a[i]);
    ctxprof__sbuf_printf(b, "%s};\n", n ? "\n" : "0");
}

CTXPROF__PRIV void ctxprof__emit_u8s(ctxprof__sbuf *b, const char *P, const char *sch,
                                     const char *name, const uint8_t *a, size_t n)
{
    size_t i;
    ctxprof__sbuf_printf(b, "static const uint8_t %s%s%s[] = {", P, sch, name);
    for (i = 0; i < n; i++)
        ctxprof__sbuf_printf(b, "%s%u", !i ? "\n    " : i % 24 ? ", " : ",\n    ",
                             (unsigned)a[i]);
    ctxprof__sbuf_printf(b, "%s};\n", n ? "\n" : "0");
}

CTXPROF__PRIV void ctxprof__emit_u64s(ctxprof__sbuf *b, const char *P, const char *sch,
                                      const char *name, const uint64_t *a, size_t n)
{
    size_t i;
    ctxprof__sbuf_printf(b, "static const uint64_t %s%s%s[] = {", P, sch, name);
    for (i = 0; i < n; i++) {
        ctxprof__sbuf_printf(b, "%s", !i ? "\n    " : i % 8 ? ", " : ",\n    ");
        ctxprof__emit_u64(b, a[i]);
    }
    ctxprof__sbuf_printf(b, "%s};\n", n ? "\n" : "0");
}

/* Decode tables of one scheme as static const data plus the initializer of
   its ctxprof_enc_tables (fields in declaration order). */
CTXPROF__PRIV void ctxprof__emit_tables(ctxprof__sbuf *b, const ctxprof_enc_tables *t,
                                        const char *P)
{
    char sch[24];
    size_t n = t->n_nodes, m = t->n_edges, i;
    snprintf(sch, sizeof sch, "%s_", ctxprof_enc_scheme_name(t->scheme));
    ctxprof__sbuf_printf(b, "\n/* %s */\n", ctxprof_enc_scheme_name(t->scheme));
    ctxprof__sbuf_printf(b, "static const ctxprof_enc_op %s%sops[] = {", P, sch);
    for (i = 0; i < m; i++) {
        const ctxprof_enc_op *o = &t->ops[i];
        int k;
        ctxprof__sbuf_printf(b, "\n    {");
        ctxprof__emit_u64(b, o->add);
        ctxprof__sbuf_put(b, ", {", 3);
        for (k = 0; k < 4; k++) {
            ctxprof__emit_u64(b, o->xor_val[k]);
            ctxprof__sbuf_put(b, k < 3 ? ", " : "}, {", k < 3 ? 2 : 4);
        }
        ctxprof__sbuf_printf(b, "%u, %u, %u, %u}, %u, %u, %u, %u, ", (unsigned)o->xor_word[0],
                             (unsigned)o->xor_word[1], (unsigned)o->xor_word[2],
                             (unsigned)o->xor_word[3], (unsigned)o->n_xor, (unsigned)o->id_bits,
                             (unsigned)o->id_push, (unsigned)o->push_bits);
        ctxprof__emit_u64(b, o->id_new);
        ctxprof__sbuf_put(b, ", ", 2);
        ctxprof__emit_u64(b, o->push_code);
        ctxprof__sbuf_put(b, "},", 2);
    }
    if (!m)
        ctxprof__sbuf_printf(b, "{0, {0, 0, 0, 0}, {0, 0, 0, 0}, 0, 0, 0, 0, 0, 0}");
    ctxprof__sbuf_printf(b, "\n};\n");
    ctxprof__emit_u8s(b, P, sch, "node_flags", t->node_flags, n);
    if (t->num_of_node) {
        size_t nr = t->range_first[t->n_num];
        ctxprof__emit_u32s(b, P, sch, "num_of_node", t->num_of_node, n);
        ctxprof__emit_u32s(b, P, sch, "range_first", t->range_first, (size_t)t->n_num + 1);
        ctxprof__emit_u64s(b, P, sch, "range_lo", t->range_lo, nr);
        ctxprof__emit_u32s(b, P, sch, "range_ref", t->range_ref, nr);
        ctxprof__emit_u64s(b, P, sch, "num_cc", t->num_cc, t->n_num);
    }
    if (t->lv_level) {
        size_t ng = t->lv_first[t->n_scc];
        ctxprof__emit_u32s(b, P, sch, "scc_of_node", t->scc_of_node, n);
        ctxprof__emit_u32s(b, P, sch, "lv_level", t->lv_level, t->n_scc);
        ctxprof__emit_u8s(b, P, sch, "lv_len", t->lv_len, t->n_scc);
        ctxprof__emit_u32s(b, P, sch, "lv_first", t->lv_first, (size_t)t->n_scc + 1);
        ctxprof__emit_u32s(b, P, sch, "grp_plevel", t->grp_plevel, ng);
        ctxprof__emit_u32s(b, P, sch, "grp_first", t->grp_first, ng + 1);
        ctxprof__emit_u32s(b, P, sch, "grp_edge", t->grp_edge, t->grp_first[ng]);
    }
    if (t->rec_edge)
        ctxprof__emit_u32s(b, P, sch, "rec_edge", t->rec_edge, t->n_rec);
    if (t->node_rec_bits) {
        ctxprof__emit_u8s(b, P, sch, "node_rec_bits", t->node_rec_bits, n);
        ctxprof__emit_u32s(b, P, sch, "cyc_first", t->cyc_first, n + 1);
        ctxprof__emit_u32s(b, P, sch, "cyc_edge", t->cyc_edge, t->cyc_first[n]);
    }
#define CTXPROF__EMIT_PTR(cond, name)                                                              \
    do {                                                                                           \
        if (cond)                                                                                  \
            ctxprof__sbuf_printf(b, ",\n    %s%s%s", P, sch, name);                                \
        else                                                                                       \
            ctxprof__sbuf_printf(b, ",\n    CTXPROF__NULL");                                       \
    } while (0)
    ctxprof__sbuf_printf(b,
                         "static const ctxprof_enc_tables %s%stables = {\n    %d, %lu, %lu, %u, "
                         "%u, %u,\n    %snames, %sedge_caller, %sedge_callee, %sedge_site",
                         P, sch, t->scheme, (unsigned long)n, (unsigned long)m,
                         (unsigned)t->acyc_bits, (unsigned)t->acyc_words, (unsigned)t->rec_bits,
                         P, P, P, P);
    CTXPROF__EMIT_PTR(1, "ops");
    CTXPROF__EMIT_PTR(1, "node_flags");
    ctxprof__sbuf_printf(b, ",\n    %lu", (unsigned long)t->n_num);
    CTXPROF__EMIT_PTR(t->num_of_node, "num_of_node");
    CTXPROF__EMIT_PTR(t->num_of_node, "range_first");
    CTXPROF__EMIT_PTR(t->num_of_node, "range_lo");
    CTXPROF__EMIT_PTR(t->num_of_node, "range_ref");
    CTXPROF__EMIT_PTR(t->num_of_node, "num_cc");
    ctxprof__sbuf_printf(b, ",\n    %lu", (unsigned long)t->n_scc);
    CTXPROF__EMIT_PTR(t->lv_level, "scc_of_node");
    CTXPROF__EMIT_PTR(t->lv_level, "lv_level");
    CTXPROF__EMIT_PTR(t->lv_level, "lv_len");
    CTXPROF__EMIT_PTR(t->lv_level, "lv_first");
    CTXPROF__EMIT_PTR(t->lv_level, "grp_plevel");
    CTXPROF__EMIT_PTR(t->lv_level, "grp_first");
    CTXPROF__EMIT_PTR(t->lv_level, "grp_edge");
    ctxprof__sbuf_printf(b, ",\n    %lu", (unsigned long)t->n_rec);
    CTXPROF__EMIT_PTR(t->rec_edge, "rec_edge");
    CTXPROF__EMIT_PTR(t->node_rec_bits, "node_rec_bits");
    CTXPROF__EMIT_PTR(t->node_rec_bits, "cyc_first");
    CTXPROF__EMIT_PTR(t->node_rec_bits, "cyc_edge");
#undef CTXPROF__EMIT_PTR
    ctxprof__sbuf_printf(b, "};\n");
}

/* Text inside a generated comment: no comment can end or start in it
   ("* /", "/ *"), and no trigraph ("? ?"). */
CTXPROF__PRIV void ctxprof__emit_comment(ctxprof__sbuf *b, const char *s)
{
    for (; *s; s++) {
        ctxprof__sbuf_put(b, s, 1);
        if ((s[0] == '*' && s[1] == '/') || (s[0] == '/' && s[1] == '*') ||
            (s[0] == '?' && s[1] == '?'))
            ctxprof__sbuf_put(b, " ", 1);
    }
}

/* A C string literal of s: '"', '\\' and '?' (trigraphs) escaped, other
   bytes below 0x20 and 0x7f in octal. */
CTXPROF__PRIV void ctxprof__emit_cstr(ctxprof__sbuf *b, const char *s)
{
    ctxprof__sbuf_put(b, "\"", 1);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\' || c == '?') {
            ctxprof__sbuf_put(b, "\\", 1);
            ctxprof__sbuf_put(b, s, 1);
        } else if (c < 0x20 || c == 0x7f) {
            ctxprof__sbuf_printf(b, "\\%03o", (unsigned)c);
        } else {
            ctxprof__sbuf_put(b, s, 1);
        }
    }
    ctxprof__sbuf_put(b, "\"", 1);
}

/* The longest string literal C99 and C11 promise (5.2.4.1: 4095 characters),
   which -pedantic enforces: a longer function name (a C++ template's
   runs to thousands) goes into the names table as a char array instead,
   which has no such limit. */
#define CTXPROF__EMIT_LITERAL_MAX 4095

/* s as the initializer of a char array, '\0' last, 16 to a line; bytes
   other than printable ASCII, '\'' and '\\' in octal. */
CTXPROF__PRIV void ctxprof__emit_chars(ctxprof__sbuf *b, const char *s)
{
    size_t i;
    ctxprof__sbuf_put(b, "{", 1);
    for (i = 0;; i++) {
        unsigned char c = (unsigned char)s[i];
        ctxprof__sbuf_put(b, i % 16 ? " " : "\n    ", i % 16 ? 1 : 5);
        if (!c)
            break;
        if (c >= 0x20 && c < 0x7f && c != '\'' && c != '\\')
            ctxprof__sbuf_printf(b, "'%c',", (char)c);
        else
            ctxprof__sbuf_printf(b, "'\\%03o',", (unsigned)c);
    }
    ctxprof__sbuf_put(b, "0\n}", 3);
}

/* Edge e's generated name, caller SEP callee SEP site, as the whole text
   of b (SEP "__": main__parse__0). */
CTXPROF__PRIV void ctxprof__enc_ename(ctxprof__sbuf *b, const ctxprof_graph *g, size_t e,
                                      const char *sep)
{
    const ctxprof_graph_edge *E = &g->edges[e];
    b->len = 0;
    ctxprof__sbuf_printf(b, "%s%s%s%s%u", g->nodes[E->caller].cname, sep, g->nodes[E->callee].cname,
                         sep, (unsigned)E->site);
}

/* Whether the edge names with sep are all different: 0, 1 with the first
   two equal ones in *ea < *eb, -1 when out of memory. Compared whole (a
   64-bit hash, the next key probed when two different names share one). */
CTXPROF__PRIV int ctxprof__enc_enames_clash(const ctxprof_graph *g, const char *sep,
                                            ctxprof__map *seen, ctxprof__sbuf *nb,
                                            ctxprof__sbuf *ob, uint32_t *ea, uint32_t *eb)
{
    size_t e;
    ctxprof__map_free(seen);
    for (e = 0; e < g->n_edges; e++) {
        uint32_t prev;
        uint64_t key;
        ctxprof__enc_ename(nb, g, e, sep);
        if (nb->failed)
            return -1;
        key = ctxprof_hash_bytes(nb->p, nb->len, 7);
        while ((prev = ctxprof__map_get(seen, key)) != UINT32_MAX) {
            ctxprof__enc_ename(ob, g, prev, sep);
            if (ob->failed)
                return -1;
            if (ob->len == nb->len && memcmp(ob->p, nb->p, nb->len) == 0) {
                *ea = prev;
                *eb = (uint32_t)e;
                return 1;
            }
            key = ctxprof_mix64(key + 1);
        }
        if (ctxprof__map_put(seen, key, (uint32_t)e))
            return -1;
    }
    return 0;
}

/* Whether s is a C identifier (at least one character). */
CTXPROF__PRIV int ctxprof__enc_is_ident(const char *s)
{
    size_t i;
    for (i = 0; s[i]; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || s[i] == '_' ||
              (i && s[i] >= '0' && s[i] <= '9')))
            return 0;
    return i > 0;
}

/* A header's prefix: the start of a C identifier, of any length (the
   names it starts are as long as the function names anyway), and outside
   the library's names: ctxprof_... and CTXPROF_... in any case, except
   the default "ctxprof_gen_" (-p ctxprof_ redefined CTXPROF_TLS, -p
   ctxprof_enc_ redeclared ctxprof_enc_tables). "ctxprof" alone is out
   too: its macros are CTXPROF_CAT3, CTXPROF_EID, ... 0 or
   CTXPROF_ERR_INVAL. */
CTXPROF__PRIV int ctxprof__enc_prefix_check(const char *P, ctxprof_error *err)
{
    static const char lib[] = "ctxprof";
    size_t i;
    if (!*P)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0,
                             "empty prefix: it starts every name of the header");
    if (!ctxprof__enc_is_ident(P))
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0,
                             "prefix '%.100s' is not the start of a C identifier (letters, digits "
                             "and '_', not first a digit)",
                             P);
    for (i = 0; i < 7 && (P[i] | 0x20) == lib[i]; i++)
        ;
    if (i == 7 && (P[7] == '\0' || P[7] == '_') && strcmp(P, "ctxprof_gen_") != 0)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0,
                             "prefix '%.100s' is in ctxprof.h's namespace (ctxprof_..., "
                             "CTXPROF_...); take another (the default is ctxprof_gen_)",
                             P);
    return CTXPROF_OK;
}

/* An include guard: a C identifier. 0 or CTXPROF_ERR_INVAL. */
CTXPROF__PRIV int ctxprof__enc_guard_check(const char *G, ctxprof_error *err)
{
    return ctxprof__enc_is_ident(G)
               ? CTXPROF_OK
               : ctxprof__fail(err, CTXPROF_ERR_INVAL, 0,
                               "include guard '%.100s' is not a C identifier", G);
}

/* The per-thread state of a header's scheme s, into buf (room for P and
   32 bytes): the library's shared one for the default prefix, else the
   header's own, P<scheme>_tls. Headers generated one by one for one
   program (an application's, a library's) compose: with a shared state
   the library's calls inside an application call changed the
   application's encoding, and both decoded each other's paths. */
CTXPROF__PRIV const char *ctxprof__enc_state(char *buf, const char *P, int s)
{
    static const char *const tls[CTXPROF_ENC_NSCHEMES] = {
        "", "ctxprof_pcce_tls", "ctxprof_val_tls", "ctxprof_val_hcce_tls", "ctxprof_val_auto_tls"};
    if (strcmp(P, "ctxprof_gen_") == 0)
        return tls[s];
    sprintf(buf, "%s%s_tls", P, ctxprof_enc_scheme_name(s));
    return buf;
}

/* A scheme's name in capitals ("VALENCE"): up to 15 letters. */
CTXPROF__PRIV void ctxprof__enc_scheme_upper(int scheme, char out[16])
{
    const char *name = ctxprof_enc_scheme_name(scheme);
    size_t i, len = strlen(name);
    for (i = 0; i < len && i < 15; i++)
        out[i] = (char)(name[i] - 'a' + 'A');
    out[i] = '\0';
}

CTXPROF_DEF int ctxprof_enc_emit(const ctxprof_graph *g, const ctxprof_enc_emit_desc *desc,
                                 char **out, size_t *out_len, ctxprof_error *err)
{
    void *ud = g->priv ? ((ctxprof__graph_priv *)g->priv)->ud : NULL;
    const char *P = desc && desc->prefix ? desc->prefix : "ctxprof_gen_";
    int def = desc && desc->default_scheme ? desc->default_scheme : CTXPROF_ENC_AUTO, s;
    uint32_t mask = (desc && desc->schemes ? desc->schemes : 0) | (1u << def);
    uint32_t bits = desc && desc->ctx_bits ? desc->ctx_bits : 64;
    ctxprof_enc_tables tabs[CTXPROF_ENC_NSCHEMES];
    char *U = NULL, *guard = NULL, *base = NULL; /* P in capitals, the guard, a BASE macro */
    char *stn = NULL;                            /* a state's name (ctxprof__enc_state) */
    size_t i, v, e, n = g->n_nodes, m = g->n_edges;
    ctxprof__sbuf b, nb, ob; /* the header; two edge names */
    ctxprof__map seen;
    ctxprof_enc_stats gst; /* for the overflow warnings */
    int rc = CTXPROF_OK, have_gst = 0, own = 0; /* own: the header has its own states */
    unsigned k;
    char sep[16]; /* between the parts of an edge's name */
    *out = NULL;
    *out_len = 0;
    memset(tabs, 0, sizeof tabs);
    memset(&b, 0, sizeof b);
    memset(&nb, 0, sizeof nb);
    memset(&ob, 0, sizeof ob);
    memset(&seen, 0, sizeof seen);
    b.ud = nb.ud = ob.ud = seen.ud = ud;
    if (desc && desc->write) {
        b.sink = desc->write;
        b.sink_user = desc->write_user;
    }
    if (!g->finished)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "call graph not finished");
    if (def < CTXPROF_ENC_PCCE || def > CTXPROF_ENC_AUTO || (mask & ~0x1Eu) ||
        (bits != 32 && bits != 64))
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "bad scheme or bit width");
    if (ctxprof__enc_prefix_check(P, err) ||
        (desc && desc->guard && ctxprof__enc_guard_check(desc->guard, err)))
        return CTXPROF_ERR_INVAL;
    i = strlen(P);
    U = (char *)ctxprof__zalloc(i + 1, 1, ud);
    guard =
        (char *)ctxprof__zalloc((desc && desc->guard ? strlen(desc->guard) : i + 10) + 1, 1, ud);
    base = (char *)ctxprof__zalloc(i + 32, 1, ud);
    stn = (char *)ctxprof__zalloc(i + 32, 1, ud);
    own = strcmp(P, "ctxprof_gen_") != 0;
    if (!U || !guard || !base || !stn) {
        rc = ctxprof__fail(err, CTXPROF_ERR_NOMEM, 0, "out of memory");
        goto out;
    }
    for (i = 0; P[i]; i++)
        U[i] = (char)(P[i] >= 'a' && P[i] <= 'z' ? P[i] - 'a' + 'A' : P[i]);
    if (desc && desc->guard)
        strcpy(guard, desc->guard);
    else
        sprintf(guard, "%sH_INCLUDED", U);
    /* Edge names (the enum's e_..., the call macros' c_...) must be
       unique, and CTXPROF_EDGE makes them by pasting its arguments, so the
       separator is the one thing to choose: "__" (main__parse__0) unless
       function names with "__" or an edge '_' make two equal (a__b calling
       c, a calling b__c: a__b__c__0 twice), then the first of _1_, _2_,
       ... that keeps them all apart (a__b_1_c_1_0, a_1_b__c_1_0). The
       macros take the same separator, so CTXPROF_EDGE(a__b, c, 0) stays
       as it is written. */
    for (k = 0;; k++) {
        uint32_t ea = 0, eb = 0;
        int c;
        if (k == 0)
            strcpy(sep, "__");
        else
            snprintf(sep, sizeof sep, "_%u_", k);
        if ((c = ctxprof__enc_enames_clash(g, sep, &seen, &nb, &ob, &ea, &eb)) < 0) {
            rc = ctxprof__fail(err, CTXPROF_ERR_NOMEM, 0, "out of memory");
            goto out;
        }
        if (c == 0)
            break;
        if (k == 1000) { /* not seen: the C names of the functions are unique */
            rc = ctxprof__fail(
                err, CTXPROF_ERR_INVAL, 0,
                "call edges %.40s -> %.40s and %.40s -> %.40s get the same name "
                "with every separator tried: rename one of the functions",
                g->nodes[g->edges[ea].caller].name, g->nodes[g->edges[ea].callee].name,
                g->nodes[g->edges[eb].caller].name, g->nodes[g->edges[eb].callee].name);
            goto out;
        }
    }
    for (s = 1; s < CTXPROF_ENC_NSCHEMES; s++) {
        if (!(mask >> s & 1))
            continue;
        if ((rc = ctxprof__enc_build(g, s, &tabs[s], err)) != CTXPROF_OK)
            goto out;
        ctxprof__enc_overflow_note(g, &tabs[s], &gst, &have_gst);
    }

    ctxprof__sbuf_printf(&b, "/* Generated by ctxprof-gen %s from ", CTXPROF_VERSION_STRING);
    for (i = 0; desc && i < desc->n_inputs; i++) {
        ctxprof__sbuf_put(&b, ", ", i ? 2 : 0);
        ctxprof__emit_comment(&b, desc->inputs[i]);
    }
    if (!desc || !desc->n_inputs)
        ctxprof__sbuf_printf(&b, "a call graph");
    ctxprof__sbuf_printf(&b,
                         ". Do not edit: regenerate.\n\n"
                         "   %lu functions, %lu call edges, %lu SCCs (%lu with recursion), root ",
                         (unsigned long)n, (unsigned long)m, (unsigned long)g->n_sccs,
                         (unsigned long)g->n_complex_sccs);
    ctxprof__emit_comment(&b, g->nodes[g->root].name);
    ctxprof__sbuf_printf(&b,
                         ".\n"
                         "   Call sites:  %sCALL(%sEDGE(caller, callee, site), call statement);\n"
                         "   (site: 0, 1, ... among the calls from caller to callee, in input "
                         "order).\n"
                         "   Decode tables: in the TU that defines CTXPROF_IMPLEMENTATION or\n"
                         "   %sIMPLEMENTATION; %stables(scheme) returns them. */\n",
                         U, U, U, P);
    ctxprof__sbuf_printf(&b, "#ifndef %s\n#define %s\n\n#include \"ctxprof.h\"\n\n", guard, guard);
    ctxprof__sbuf_printf(&b,
                         "#if CTXPROF_CTX_BITS != %u\n#error \"this header was generated for "
                         "CTXPROF_CTX_BITS %u: build with -DCTXPROF_CTX_BITS=%u or regenerate "
                         "with --bits %u\"\n#endif\n",
                         (unsigned)bits, (unsigned)bits, (unsigned)bits,
                         (unsigned)(bits == 64 ? 32 : 64));
    for (s = 1; s < CTXPROF_ENC_NSCHEMES; s++) {
        const ctxprof_enc_tables *t = &tabs[s];
        const char *sn = ctxprof_enc_scheme_name(s);
        char SN[16];
        if (!(mask >> s & 1))
            continue;
        ctxprof__enc_scheme_upper(s, SN);
        if (t->acyc_words > 1) /* a state always holds one word */
            ctxprof__sbuf_printf(&b,
                                 "#if CTXPROF_ENC_ACYC_WORDS < %u\n#error \"the %s encoding of "
                                 "this call graph needs -DCTXPROF_ENC_ACYC_WORDS=%u (acyclic "
                                 "part: %u bits)\"\n#endif\n",
                                 (unsigned)t->acyc_words, sn, (unsigned)t->acyc_words,
                                 (unsigned)t->acyc_bits);
        ctxprof__sbuf_printf(&b,
                             "#define %s%s_BASE %uu /* acyclic bits: where the stack starts */\n",
                             U, SN, (unsigned)t->acyc_bits);
    }
    /* Names from the graph only follow P "n_", "e_" and "c_"; the counts
       and tables use other spellings, so no function name can clash. */
    ctxprof__sbuf_printf(&b, "\n/* functions: %sNODE(name) */\nenum {", U);
    for (v = 0; v < n; v++)
        ctxprof__sbuf_printf(&b, "\n    %sn_%s = %lu,", P, g->nodes[v].cname, (unsigned long)v);
    ctxprof__sbuf_printf(&b, "\n    %snode_count = %lu\n};\n", P, (unsigned long)n);
    ctxprof__sbuf_printf(&b, "\n/* call edges: %sEDGE_ID(caller, callee, site) */\nenum {", U);
    for (e = 0; e < m; e++) {
        const ctxprof_graph_edge *E = &g->edges[e];
        ctxprof__sbuf_printf(&b, "\n    %se_%s%s%s%s%u = %lu,", P, g->nodes[E->caller].cname, sep,
                             g->nodes[E->callee].cname, sep, (unsigned)E->site, (unsigned long)e);
        if (E->label) {
            ctxprof__sbuf_put(&b, " /* ", 4);
            ctxprof__emit_comment(&b, E->label);
            ctxprof__sbuf_put(&b, " */", 3);
        }
    }
    ctxprof__sbuf_printf(&b, "\n    %sedge_count = %lu\n};\n", P, (unsigned long)m);
    for (s = 1; s < CTXPROF_ENC_NSCHEMES; s++) {
        const char *sn = ctxprof_enc_scheme_name(s);
        char SN[16];
        if (!(mask >> s & 1))
            continue;
        ctxprof__enc_scheme_upper(s, SN);
        sprintf(base, "%s%s_BASE", U, SN);
        ctxprof__sbuf_printf(&b, "\n/* %s call macros, one per edge */\n", sn);
        for (e = 0; e < m; e++) {
            const ctxprof_graph_edge *E = &g->edges[e];
            ctxprof__sbuf_printf(&b, "#define %sc_%s%s%s%s%u_%s(st, ...) ", P,
                                 g->nodes[E->caller].cname, sep, g->nodes[E->callee].cname, sep,
                                 (unsigned)E->site, sn);
            ctxprof__emit_call(&b, &tabs[s].ops[e], base);
            ctxprof__sbuf_put(&b, "\n", 1);
        }
        ctxprof__sbuf_printf(&b,
                             "#define %sCALL_%s_ST(st, e, ...) %s_CALL_(e, _%s, st, __VA_ARGS__)\n"
                             "#define %sCALL_%s(e, ...) %sCALL_%s_ST(&%s, e, __VA_ARGS__)\n",
                             U, SN, U, sn, U, SN, U, SN, ctxprof__enc_state(stn, P, s));
    }
    {
        const char *dn = ctxprof_enc_scheme_name(def);
        char DN[16];
        ctxprof__enc_scheme_upper(def, DN);
        ctxprof__sbuf_printf(
            &b,
            "\n/* %s is the scheme of %sCALL */\n"
            "#define %sEDGE(caller, callee, site) caller##%s##callee##%s##site\n"
            "#define %s_CAT3(a, b, c) a##b##c\n"
            "#define %s_CALL_(e, s, st, ...) %s_CAT3(%sc_, e, s)(((void)%s_EID(e), st), "
            "__VA_ARGS__)\n"
            "#define %s_EID(e) %s_CAT3(%se_, e, )\n"
            "#define %sEDGE_ID(caller, callee, site) %s_EID(caller##%s##callee##%s##site)\n"
            "#define %sNODE(f) %sn_##f\n"
            "#define %sSCHEME CTXPROF_ENC_%s\n"
            "#define %sBASE %s%s_BASE\n"
            "#define %sTLS (&%s)\n"
            "#define %sCALL_ST(st, e, ...) %sCALL_%s_ST(st, e, __VA_ARGS__)\n"
            "#define %sCALL(e, ...) %sCALL_%s(e, __VA_ARGS__)\n",
            dn, U, U, sep, sep, U, U, U, P, U, U, U, P, U, U, sep, sep, U, P, U, DN, U, U, DN, U,
            ctxprof__enc_state(stn, P, def), U, U, DN, U, U, DN);
        ctxprof__sbuf_printf(&b,
                             "#ifndef CTXPROF_EDGE /* short names, for the first generated "
                             "header included */\n"
                             "#define CTXPROF_EDGE %sEDGE\n#define CTXPROF_CALL %sCALL\n"
                             "#define CTXPROF_NODE %sNODE\n#define CTXPROF_EDGE_ID %sEDGE_ID\n"
                             "#endif\n",
                             U, U, U, U);
    }
    ctxprof__sbuf_printf(&b,
                         "\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n"
                         "/* decode tables of a scheme (CTXPROF_ENC_*), NULL if not generated */\n"
                         "const ctxprof_enc_tables *%stables(int scheme);\n",
                         P);
    if (own) {
        ctxprof__sbuf_printf(&b, "/* per-thread states of the call macros, this header's own (a "
                                 "header made with\n   another prefix has others) */\n");
        for (s = 1; s < CTXPROF_ENC_NSCHEMES; s++)
            if (mask >> s & 1)
                ctxprof__sbuf_printf(&b,
                                     "CTXPROF_API CTXPROF_TLS ctxprof_enc %s CTXPROF__TLS_MODEL;\n",
                                     ctxprof__enc_state(stn, P, s));
    }
    ctxprof__sbuf_printf(&b, "#ifdef __cplusplus\n}\n#endif\n\n#endif /* %s */\n", guard);
    ctxprof__sbuf_printf(&b,
                         "\n#if (defined(CTXPROF_IMPLEMENTATION) || defined(%sIMPLEMENTATION)) && "
                         "!defined(%s_TABLES_DONE)\n#define %s_TABLES_DONE\n",
                         U, U, U);
    if (own) {
        ctxprof__sbuf_printf(&b,
                             "#if !defined(CTXPROF_STATIC)\n#ifdef __cplusplus\nextern \"C\" {\n"
                             "#endif\n");
        for (s = 1; s < CTXPROF_ENC_NSCHEMES; s++)
            if (mask >> s & 1)
                ctxprof__sbuf_printf(&b, "CTXPROF_TLS ctxprof_enc %s CTXPROF__TLS_MODEL;\n",
                                     ctxprof__enc_state(stn, P, s));
        ctxprof__sbuf_printf(&b, "#ifdef __cplusplus\n}\n#endif\n#endif\n");
    }
    for (v = 0; v < n; v++)
        if (strlen(g->nodes[v].name) > CTXPROF__EMIT_LITERAL_MAX) {
            ctxprof__sbuf_printf(&b, "static const char %slong_name_%lu[] = ", P, (unsigned long)v);
            ctxprof__emit_chars(&b, g->nodes[v].name);
            ctxprof__sbuf_put(&b, ";\n", 2);
        }
    ctxprof__sbuf_printf(&b, "static const char *const %snames[] = {", P);
    for (v = 0; v < n; v++) {
        ctxprof__sbuf_put(&b, "\n    ", 5);
        if (strlen(g->nodes[v].name) > CTXPROF__EMIT_LITERAL_MAX)
            ctxprof__sbuf_printf(&b, "%slong_name_%lu", P, (unsigned long)v);
        else
            ctxprof__emit_cstr(&b, g->nodes[v].name);
        ctxprof__sbuf_put(&b, ",", 1);
    }
    ctxprof__sbuf_printf(&b, "%s\n};\n", n ? "" : "0");
    {
        uint32_t *tmp = (uint32_t *)ctxprof__zalloc(m + 1, sizeof *tmp, ud);
        if (!tmp) {
            rc = ctxprof__fail(err, CTXPROF_ERR_NOMEM, 0, "out of memory");
            goto out;
        }
        for (e = 0; e < m; e++)
            tmp[e] = g->edges[e].caller;
        ctxprof__emit_u32s(&b, P, "", "edge_caller", tmp, m);
        for (e = 0; e < m; e++)
            tmp[e] = g->edges[e].callee;
        ctxprof__emit_u32s(&b, P, "", "edge_callee", tmp, m);
        for (e = 0; e < m; e++)
            tmp[e] = g->edges[e].site;
        ctxprof__emit_u32s(&b, P, "", "edge_site", tmp, m);
        ctxprof__free(tmp, ud);
    }
    for (s = 1; s < CTXPROF_ENC_NSCHEMES; s++)
        if (mask >> s & 1)
            ctxprof__emit_tables(&b, &tabs[s], P);
    ctxprof__sbuf_printf(&b, "\n#ifdef __cplusplus\nextern \"C\"\n#endif\n"
                             "const ctxprof_enc_tables *%stables(int scheme)\n{\n"
                             "    switch (scheme) {\n",
                         P);
    for (s = 1; s < CTXPROF_ENC_NSCHEMES; s++)
        if (mask >> s & 1)
            ctxprof__sbuf_printf(&b, "    case CTXPROF_ENC_%s:\n        return &%s%s_tables;\n",
                                 s == 1   ? "PCCE"
                                 : s == 2 ? "VALENCE"
                                 : s == 3 ? "HCCE"
                                          : "AUTO",
                                 P, ctxprof_enc_scheme_name(s));
    ctxprof__sbuf_printf(&b, "    default:\n        return CTXPROF__NULL;\n    }\n}\n#endif\n");
    ctxprof__sbuf_flush(&b);
    if (b.failed == 2)
        rc = ctxprof__fail(err, CTXPROF_ERR_SYS, 0, "writing the header failed");
    else if (b.failed)
        rc = ctxprof__fail(err, CTXPROF_ERR_NOMEM, 0, "out of memory writing the header");
out:
    for (s = 1; s < CTXPROF_ENC_NSCHEMES; s++)
        ctxprof_enc_tables_free(&tabs[s], ud);
    ctxprof__map_free(&seen);
    ctxprof__free(nb.p, ud);
    ctxprof__free(ob.p, ud);
    ctxprof__free(U, ud);
    ctxprof__free(guard, ud);
    ctxprof__free(base, ud);
    ctxprof__free(stn, ud);
    if (rc != CTXPROF_OK) {
        ctxprof__free(b.p, ud);
        return rc;
    }
    if (b.sink) {
        ctxprof__free(b.p, ud);
        *out_len = b.flushed;
        return CTXPROF_OK;
    }
    *out = b.p;
    *out_len = b.len;
    return CTXPROF_OK;
}

/* ==== valence: implementation ==== */

/* ==== icpp: implementation ==== */

#ifdef __cplusplus
CTXPROF__CXX_QUIET_END
}
#endif
#include <signal.h>
#include <time.h>
#include <ucontext.h>
#ifdef __cplusplus
extern "C" {
CTXPROF__CXX_QUIET_BEGIN
#endif

#if defined(__GNUC__) || defined(__clang__)
#define CTXPROF__ICPP_CFA() ((uintptr_t)__builtin_dwarf_cfa())
/* The entry point of a hook or of ctxprof__icpp_enter_here: its return
   address, read under its CFA (also from a function it calls), 0 where
   unknown. */
#if defined(__x86_64__) || defined(__i386__)
#define CTXPROF__ICPP_RA(cfa) (((const uintptr_t *)(cfa))[-1])
#define CTXPROF__ICPP_POINT(cfa) ((cfa) ? (uint32_t)CTXPROF__ICPP_RA(cfa) : 0u)
#else
#define CTXPROF__ICPP_RA(cfa) ((uintptr_t)0)
#define CTXPROF__ICPP_POINT(cfa) 0u
#endif
/* Functions that read their own CFA must stay out of line and unchanged
   (gcc would inline or clone hooks defined in the instrumented TU). */
#if defined(__clang__)
#define CTXPROF__ICPP_OWNFRAME __attribute__((noinline))
#else
#define CTXPROF__ICPP_OWNFRAME __attribute__((noinline, noclone))
#endif
#else
#define CTXPROF__ICPP_CFA() ((uintptr_t)0)
#define CTXPROF__ICPP_RA(cfa) ((uintptr_t)0)
#define CTXPROF__ICPP_POINT(cfa) 0u
#define CTXPROF__ICPP_OWNFRAME
#endif
#define CTXPROF__ICPP_NONE UINT32_MAX

#ifndef CTXPROF__DECL_DEFINES
CTXPROF_DEF CTXPROF_TLS uintptr_t ctxprof__icpp_base CTXPROF__TLS_MODEL;
CTXPROF_DEF CTXPROF_TLS uintptr_t ctxprof__icpp_wrap_sp CTXPROF__TLS_MODEL;
CTXPROF_DEF CTXPROF_TLS uintptr_t ctxprof__icpp_wrap_frame CTXPROF__TLS_MODEL;
CTXPROF_DEF int ctxprof__icpp_training;
#endif

/* --- thread ids and the tid -> base registry --------------------------- */

#if defined(__linux__) && (defined(__GNUC__) || defined(__clang__))
#if defined(__x86_64__)
#define CTXPROF__SYS_GETTID 186
#define CTXPROF__SYS_TGKILL 234
#define CTXPROF__SYS_SIGALTSTACK 131
#elif defined(__aarch64__)
#define CTXPROF__SYS_GETTID 178
#define CTXPROF__SYS_TGKILL 131
#define CTXPROF__SYS_SIGALTSTACK 132
#endif
#endif

/* Whether the calling thread runs on its alternate signal stack, so in a
   handler (sigaltstack(2)'s SS_ONSTACK; the system call itself, as POSIX
   declares sigaltstack only for XSI). Signal-safe. */
CTXPROF__NOINSTR CTXPROF__PRIV int ctxprof__on_altstack(void)
{
#if defined(CTXPROF__SYS_SIGALTSTACK)
    struct {
        void *sp;
        int flags; /* SS_ONSTACK: 1 */
        size_t size;
    } ss;
    return ctxprof__syscall(CTXPROF__SYS_SIGALTSTACK, (void *)0, &ss) == 0 && (ss.flags & 1);
#else
    return 0;
#endif
}

CTXPROF__NOINSTR CTXPROF__PRIV long ctxprof__gettid(void)
{
#if defined(CTXPROF__SYS_GETTID)
    return ctxprof__syscall(CTXPROF__SYS_GETTID);
#else
    return (long)getpid();
#endif
}

/* Open addressing on tid (linear probing). Writers - a thread adding or
   removing its own entry - hold a spin lock; readers (signal handlers) take
   none: an entry never moves, and a slot inside a live entry's probe run
   never becomes empty. Removal leaves a tombstone (tid -1) that insertion
   reuses; a run of tombstones just before an empty slot is emptied, so
   probe runs stay short under thread churn. Every thread that records a
   base also sets a thread-specific key whose destructor removes the entry
   at thread exit, so threads that never call ctxprof_icpp_thread_end (the
   hooks) do not fill the table, nor leave a base for a thread that reuses
   their id. */
#define CTXPROF__ICPP_TIDS 4096
#define CTXPROF__ICPP_TID_DEAD (-1L)
static struct {
    long tid;
    uintptr_t base;
    unsigned seq; /* odd while a writer changes tid or base (ctxprof_icpp_base_of_tid) */
} ctxprof__icpp_tids[CTXPROF__ICPP_TIDS];
static int ctxprof__icpp_tidlock;
static pthread_key_t ctxprof__icpp_tidkey;
static int ctxprof__icpp_tidkey_ok;
static pthread_once_t ctxprof__icpp_tidkey_once = PTHREAD_ONCE_INIT;

CTXPROF__NOINSTR CTXPROF__PRIV void ctxprof__icpp_tid_lock(int lock)
{
    if (!lock) {
        __atomic_store_n(&ctxprof__icpp_tidlock, 0, __ATOMIC_RELEASE);
        return;
    }
    while (__atomic_exchange_n(&ctxprof__icpp_tidlock, 1, __ATOMIC_ACQUIRE))
        sched_yield();
}

/* Sets (base != 0) or removes (base == 0) tid's entry. */
CTXPROF__NOINSTR CTXPROF__PRIV void ctxprof__icpp_tid_set(long tid, uintptr_t base)
{
    size_t h = (size_t)ctxprof_mix64((uint64_t)tid) % CTXPROF__ICPP_TIDS, i = h, k;
    size_t tomb = CTXPROF__ICPP_TIDS, at = CTXPROF__ICPP_TIDS, empty = CTXPROF__ICPP_TIDS;
    if (tid <= 0)
        return;
    ctxprof__icpp_tid_lock(1);
    for (k = 0; k < CTXPROF__ICPP_TIDS; k++, i = (i + 1) % CTXPROF__ICPP_TIDS) {
        long cur = __atomic_load_n(&ctxprof__icpp_tids[i].tid, __ATOMIC_RELAXED);
        if (cur == tid) {
            at = i;
            break;
        }
        if (cur == 0) {
            empty = i;
            break;
        }
        if (cur == CTXPROF__ICPP_TID_DEAD && tomb == CTXPROF__ICPP_TIDS)
            tomb = i;
    }
    if (base) {
        if (at == CTXPROF__ICPP_TIDS)
            at = tomb != CTXPROF__ICPP_TIDS ? tomb : empty;
        if (at != CTXPROF__ICPP_TIDS) { /* else full: that many live threads */
            unsigned seq = ctxprof__icpp_tids[at].seq;
            __atomic_store_n(&ctxprof__icpp_tids[at].seq, seq + 1, __ATOMIC_RELAXED);
            __atomic_store_n(&ctxprof__icpp_tids[at].base, (uintptr_t)0, __ATOMIC_RELEASE);
            __atomic_store_n(&ctxprof__icpp_tids[at].tid, tid, __ATOMIC_RELEASE);
            __atomic_store_n(&ctxprof__icpp_tids[at].base, base, __ATOMIC_RELEASE);
            __atomic_store_n(&ctxprof__icpp_tids[at].seq, seq + 2, __ATOMIC_RELEASE);
        }
    } else if (at != CTXPROF__ICPP_TIDS) {
        unsigned seq = ctxprof__icpp_tids[at].seq;
        __atomic_store_n(&ctxprof__icpp_tids[at].seq, seq + 1, __ATOMIC_RELAXED);
        __atomic_store_n(&ctxprof__icpp_tids[at].base, (uintptr_t)0, __ATOMIC_RELEASE);
        __atomic_store_n(&ctxprof__icpp_tids[at].tid, CTXPROF__ICPP_TID_DEAD, __ATOMIC_RELEASE);
        __atomic_store_n(&ctxprof__icpp_tids[at].seq, seq + 2, __ATOMIC_RELEASE);
        /* tombstones that end a run: no live entry's run passes them */
        i = (at + 1) % CTXPROF__ICPP_TIDS;
        if (__atomic_load_n(&ctxprof__icpp_tids[i].tid, __ATOMIC_RELAXED) == 0)
            for (i = at; __atomic_load_n(&ctxprof__icpp_tids[i].tid, __ATOMIC_RELAXED) ==
                         CTXPROF__ICPP_TID_DEAD;
                 i = (i + CTXPROF__ICPP_TIDS - 1) % CTXPROF__ICPP_TIDS)
                __atomic_store_n(&ctxprof__icpp_tids[i].tid, 0L, __ATOMIC_RELEASE);
    }
    ctxprof__icpp_tid_lock(0);
}

/* A slot's tid and base are read under its sequence number (a seqlock):
   the writer makes it odd before it changes them (release stores, so a
   reader that sees a new value sees the odd number on its recheck) and
   even after. A base read while the slot changed hands (even twice: the
   tid again ours) comes with another number, and the search starts over
   (a few times: each retry means the entry changed). */
CTXPROF_DEF uintptr_t ctxprof_icpp_base_of_tid(long tid)
{
    size_t h = (size_t)ctxprof_mix64((uint64_t)tid) % CTXPROF__ICPP_TIDS, i, k;
    int tries;
    if (tid <= 0)
        return 0;
    for (tries = 0; tries < 8; tries++)
        for (k = 0, i = h; k < CTXPROF__ICPP_TIDS; k++, i = (i + 1) % CTXPROF__ICPP_TIDS) {
            unsigned seq = __atomic_load_n(&ctxprof__icpp_tids[i].seq, __ATOMIC_ACQUIRE);
            long cur = __atomic_load_n(&ctxprof__icpp_tids[i].tid, __ATOMIC_ACQUIRE);
            uintptr_t base;
            if (cur == 0)
                return 0;
            if (cur != tid)
                continue;
            base = __atomic_load_n(&ctxprof__icpp_tids[i].base, __ATOMIC_ACQUIRE);
            if (!(seq & 1u) && __atomic_load_n(&ctxprof__icpp_tids[i].seq, __ATOMIC_RELAXED) == seq)
                return base;
            break; /* the slot is changing or changed hands: again */
        }
    return 0;
}

/* At thread exit: a thread that did not call thread_end. */
CTXPROF__NOINSTR static void ctxprof__icpp_tid_dtor(void *p)
{
    (void)p;
    ctxprof_icpp_thread_end();
}

/* fork(): another thread may have held the lock. */
CTXPROF__NOINSTR static void ctxprof__icpp_tid_fork_child(void)
{
    __atomic_store_n(&ctxprof__icpp_tidlock, 0, __ATOMIC_RELEASE);
}

CTXPROF__NOINSTR static void ctxprof__icpp_tidkey_init(void)
{
    ctxprof__icpp_tidkey_ok = pthread_key_create(&ctxprof__icpp_tidkey, ctxprof__icpp_tid_dtor) == 0;
    pthread_atfork(NULL, NULL, ctxprof__icpp_tid_fork_child);
}

/* The lowest address the calling thread's stack can reach and the end of
   its mapping (0 unknown): SP outside is on another stack (a coroutine's,
   sigaltstack), where [SP, base] spans unmapped memory
   (ctxprof__mapping_stack_lo of the mapping holding base). */
static CTXPROF_TLS uintptr_t ctxprof__icpp_stack_lo CTXPROF__TLS_MODEL;
static CTXPROF_TLS uintptr_t ctxprof__icpp_stack_hi CTXPROF__TLS_MODEL;

CTXPROF__NOINSTR CTXPROF__PRIV uintptr_t ctxprof__icpp_stack_low(uintptr_t addr)
{
    ctxprof__mapping mp;
    return ctxprof__mapping_at(addr, &mp, NULL, 0) ? ctxprof__mapping_stack_lo(&mp) : 0;
}

CTXPROF__NOINSTR CTXPROF__PRIV int ctxprof__icpp_off_stack(uintptr_t sp)
{
    return sp < ctxprof__icpp_stack_lo || (ctxprof__icpp_stack_hi && sp >= ctxprof__icpp_stack_hi);
}

/* The main thread's initial SP, where the kernel put argc (/proc/self/stat
   field 28), when it lies at or above sp in sp's mapping (*mp, which then
   holds it too); else 0 (no /proc, or another stack: valgrind's). Heights measured from it do not depend on
   how libc's start-up reaches main (musl runs constructors deeper than
   main) or on where the implementation was loaded (a dlopen'd plugin).
   Signal-safe (open/read). */
CTXPROF__NOINSTR CTXPROF__PRIV uintptr_t ctxprof__icpp_main_start(uintptr_t sp,
                                                                ctxprof__mapping *mp)
{
    char buf[1024];
    const char *c;
    size_t got = 0;
    ssize_t n;
    uintptr_t v = 0;
    int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC), field;
    if (fd < 0)
        return 0;
    while (got < sizeof buf - 1 && (n = read(fd, buf + got, sizeof buf - 1 - got)) > 0)
        got += (size_t)n;
    close(fd);
    buf[got] = '\0';
    c = strrchr(buf, ')'); /* the end of the command name, which may hold ") " */
    for (field = 2; field < 28 && c; field++)
        c = strchr(c + 1, ' ');
    if (!c)
        return 0;
    for (c++; *c >= '0' && *c <= '9'; c++)
        v = v * 10 + (uintptr_t)(*c - '0');
    if (*c != ' ' || v < sp || !ctxprof__mapping_at(sp, mp, NULL, 0) || v >= mp->end)
        return 0;
    return v;
}

/* Records base as the calling thread's; the main thread's is its initial
   SP where known. */
CTXPROF__NOINSTR CTXPROF__PRIV uintptr_t ctxprof__icpp_set_base(uintptr_t base)
{
    ctxprof__mapping mp;
    long tid = ctxprof__gettid();
    uintptr_t start = tid == (long)getpid() ? ctxprof__icpp_main_start(base, &mp) : 0;
    int mapped = start != 0 || ctxprof__mapping_at(base, &mp, NULL, 0);
    if (start)
        base = start;
    ctxprof__icpp_base = base;
    ctxprof__icpp_stack_lo = mapped ? ctxprof__mapping_stack_lo(&mp) : 0;
    ctxprof__icpp_stack_hi = mapped ? mp.end : 0;
    ctxprof__icpp_tid_set(tid, base);
    pthread_once(&ctxprof__icpp_tidkey_once, ctxprof__icpp_tidkey_init);
    if (ctxprof__icpp_tidkey_ok)
        pthread_setspecific(ctxprof__icpp_tidkey, (void *)&ctxprof__icpp_tidkey);
    return base;
}

CTXPROF__NOINSTR CTXPROF__ICPP_OWNFRAME CTXPROF_DEF uintptr_t ctxprof_icpp_thread_begin(void)
{
    if (!ctxprof__icpp_base) {
        uintptr_t cfa = CTXPROF__ICPP_CFA();
        if (!cfa)
            cfa = ctxprof_icpp_sp();
        ctxprof__icpp_set_base(cfa);
    }
    return ctxprof__icpp_base;
}

CTXPROF_DEF void ctxprof_icpp_thread_end(void)
{
    if (ctxprof__icpp_base)
        ctxprof__icpp_tid_set(ctxprof__gettid(), 0);
    ctxprof__icpp_base = 0;
    ctxprof__icpp_stack_lo = ctxprof__icpp_stack_hi = 0;
    if (ctxprof__icpp_tidkey_ok)
        pthread_setspecific(ctxprof__icpp_tidkey, NULL);
}

/* --- training: one calling-context tree per thread ----------------------

   Node 0 is the root (no function). A node is keyed by (parent, function,
   height): a path whose frames vary in size yields one node per height.
   The shadow stack holds (node, SP) per active instrumented frame; frames
   are popped by SP (a returned frame's SP is <= a later entry's SP), which
   also repairs longjmp (Froyd et al., as in paper 4.2), and, for an entry
   deeper than frames a longjmp left, by where its return address lies
   (ctxprof__icpp_find_cfa). With paired exits
   an entry at the same SP and call site as the top is a callee inlined
   into it and gets no node of its own (ctxprof__icpp_top_dead). */

typedef struct ctxprof__icpp_sframe {
    uint32_t node;  /* node, or NONE when not recorded */
    uint32_t point; /* low bits of the entry point (see ctxprof__icpp_top_dead), 0 unknown */
    uintptr_t sp;   /* SP at entry */
    uintptr_t func, site;
    uintptr_t callee_cfa; /* the CFA last found for a callee (0: none), tried first */
    uintptr_t sig_clean;  /* a callee's CFA with no signal frame above it (0: none) */
} ctxprof__icpp_sframe;

/* The node arrays other threads read (ctxprof_icpp_train_path): each
   node's function, height and parent, in one block that the owner
   replaces by one twice its size when it is full. Layout:

     +------+-----+----------------------+---------------------+---------------------+
     | next | cap | func[cap]: uintptr_t | height[cap]: uint64 | parent[cap]: uint32 |
     +------+-----+----------------------+---------------------+---------------------+

   A reader counts itself in (ts->readers), loads ts->nn (acquire: the
   nodes below it are written) and then the block. The owner stores the
   new block, then loads the count: both sides sequentially consistent, so
   either the owner sees the reader, or the reader sees the new block.
   Seeing readers, the owner keeps the old block on its retired list
   (next), freed by the next growth that sees none, or by reset; a node's
   three fields never change once nn covers it. The retired blocks add up
   to less than the current one (each is half the next). */
typedef struct ctxprof__icpp_nblk {
    struct ctxprof__icpp_nblk *next; /* retired: the next one (the owner's list) */
    size_t cap;
} ctxprof__icpp_nblk;

typedef struct ctxprof__icpp_ts {
    ctxprof__icpp_sframe *stack; /* shadow stack */
    size_t depth, scap;
    uintptr_t *nfunc;            /* node -> function (in nblk) */
    uint32_t *nparent;           /* node -> parent (in nblk) */
    uint64_t *nheight, *ncount;  /* node -> height (in nblk), entries */
    uint32_t *nbody;             /* node -> smallest CFA - SP its entries found, 0 none,
                                    UINT32_MAX not measured (no entry below a frame yet) */
    size_t nn, ncap;             /* nn: stored with release by the owner */
    ctxprof__icpp_nblk *nblk;    /* the block nfunc, nheight and nparent lie in */
    ctxprof__icpp_nblk *retired; /* blocks replaced while a reader was in */
    int readers;                 /* ctxprof_icpp_train_path calls reading this tree */
    uint32_t *slots;             /* (parent, func, height) -> node + 1 */
    size_t mask;
    uint64_t entries, dropped_paths, dropped_depth, no_base; /* owner: relaxed stores */
    uint32_t cur;                /* current node, read by the sampler */
    uint32_t slot;               /* registry index + 1 */
    int busy;                    /* reentrancy guard (hooks in library code) */
    struct ctxprof__icpp_ts *next;
    uintptr_t roots[128][2][4];  /* entries with no frame below, (sp, site, func) -> CFA:
                                    128 sets of 2, the last used first */
} ctxprof__icpp_ts;

static CTXPROF_TLS ctxprof__icpp_ts *ctxprof__icpp_tls_ts CTXPROF__TLS_MODEL;
static ctxprof__icpp_ts *ctxprof__icpp_ts_head;
static uint32_t ctxprof__icpp_ts_count;
static size_t ctxprof__icpp_max_paths = (size_t)1 << 20, ctxprof__icpp_max_depth = 16384;
static uint64_t ctxprof__icpp_max_save = (uint64_t)1 << 30; /* max_save_bytes */
static uint64_t ctxprof__icpp_save_dropped;                 /* stats.dropped_save */
static int ctxprof__icpp_started; /* a train_start since the last reset (for train_save) */

CTXPROF__NOINSTR CTXPROF__PRIV void *ctxprof__icpp_grow(void *p, size_t n, size_t elem)
{
    void *q;
    if (elem && n > SIZE_MAX / elem)
        return NULL;
    q = CTXPROF_MALLOC(n * elem, NULL);
    if (q && p)
        memcpy(q, p, n / 2 * elem);
    if (q)
        CTXPROF_FREE(p, NULL);
    return q;
}

CTXPROF__NOINSTR CTXPROF__PRIV uintptr_t *ctxprof__icpp_nblk_func(ctxprof__icpp_nblk *b)
{
    return (uintptr_t *)(void *)(b + 1);
}

CTXPROF__NOINSTR CTXPROF__PRIV uint64_t *ctxprof__icpp_nblk_height(ctxprof__icpp_nblk *b)
{
    return (uint64_t *)(void *)(ctxprof__icpp_nblk_func(b) + b->cap);
}

CTXPROF__NOINSTR CTXPROF__PRIV uint32_t *ctxprof__icpp_nblk_parent(ctxprof__icpp_nblk *b)
{
    return (uint32_t *)(void *)(ctxprof__icpp_nblk_height(b) + b->cap);
}

/* A block for cap nodes holding copies of t's n nodes, or NULL. */
CTXPROF__NOINSTR CTXPROF__PRIV ctxprof__icpp_nblk *ctxprof__icpp_nblk_new(const ctxprof__icpp_ts *t,
                                                                          size_t cap, size_t n)
{
    const size_t per = sizeof(uintptr_t) + sizeof(uint64_t) + sizeof(uint32_t);
    ctxprof__icpp_nblk *b;
    if (cap > (SIZE_MAX - sizeof *b) / per)
        return NULL;
    b = (ctxprof__icpp_nblk *)CTXPROF_MALLOC(sizeof *b + cap * per, NULL);
    if (!b)
        return NULL;
    b->next = NULL;
    b->cap = cap;
    if (n) {
        memcpy(ctxprof__icpp_nblk_func(b), t->nfunc, n * sizeof *t->nfunc);
        memcpy(ctxprof__icpp_nblk_height(b), t->nheight, n * sizeof *t->nheight);
        memcpy(ctxprof__icpp_nblk_parent(b), t->nparent, n * sizeof *t->nparent);
    }
    return b;
}

/* Frees blocks from b on. */
CTXPROF__NOINSTR CTXPROF__PRIV void ctxprof__icpp_nblk_free(ctxprof__icpp_nblk *b)
{
    while (b) {
        ctxprof__icpp_nblk *next = b->next;
        CTXPROF_FREE(b, NULL);
        b = next;
    }
}

/* Owner: publishes b as t's node block (see ctxprof__icpp_nblk). */
CTXPROF__NOINSTR CTXPROF__PRIV void ctxprof__icpp_nblk_publish(ctxprof__icpp_ts *t,
                                                               ctxprof__icpp_nblk *b)
{
    ctxprof__icpp_nblk *old = t->nblk;
    t->nfunc = ctxprof__icpp_nblk_func(b);
    t->nheight = ctxprof__icpp_nblk_height(b);
    t->nparent = ctxprof__icpp_nblk_parent(b);
    __atomic_store_n(&t->nblk, b, __ATOMIC_SEQ_CST);
    if (old) {
        old->next = t->retired;
        t->retired = old;
    }
    if (__atomic_load_n(&t->readers, __ATOMIC_SEQ_CST) == 0) {
        /* a reader that comes now sees b; none that saw another is left */
        ctxprof__icpp_nblk_free(t->retired);
        t->retired = NULL;
    }
}

CTXPROF__NOINSTR CTXPROF__PRIV ctxprof__icpp_ts *ctxprof__icpp_ts_get(void)
{
    ctxprof__icpp_ts *t = ctxprof__icpp_tls_ts;
    if (t)
        return t;
    t = (ctxprof__icpp_ts *)CTXPROF_MALLOC(sizeof *t, NULL);
    if (!t)
        return NULL;
    memset(t, 0, sizeof *t);
    t->slot = __atomic_add_fetch(&ctxprof__icpp_ts_count, 1, __ATOMIC_RELAXED);
    t->next = __atomic_load_n(&ctxprof__icpp_ts_head, __ATOMIC_ACQUIRE);
    while (!__atomic_compare_exchange_n(&ctxprof__icpp_ts_head, &t->next, t, 1, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE))
        ;
    ctxprof__icpp_tls_ts = t;
    return t;
}

CTXPROF__NOINSTR CTXPROF__PRIV size_t ctxprof__icpp_node_hash(uint32_t parent, uintptr_t func,
                                                              uint64_t height)
{
    return (size_t)ctxprof_mix64(((uint64_t)parent << 32) ^ (uint64_t)func ^
                                 ctxprof_mix64(height));
}

/* Node for (parent, func, height), created when absent; NONE when full. */
CTXPROF__NOINSTR CTXPROF__PRIV uint32_t ctxprof__icpp_ts_node(ctxprof__icpp_ts *t, uint32_t parent,
                                                              uintptr_t func, uint64_t height)
{
    size_t i;
    uint32_t n;
    /* at max_paths the table stops growing (it is at most half full) but
       still finds the paths it holds */
    if (t->ncap == 0 || (2 * (t->nn + 1) > t->mask + 1 && t->nn < ctxprof__icpp_max_paths)) {
        size_t nsz = t->mask ? 2 * (t->mask + 1) : 1024, k;
        uint32_t *ns;
        ns = (uint32_t *)CTXPROF_MALLOC(nsz * sizeof *ns, NULL);
        if (!ns)
            goto full;
        memset(ns, 0, nsz * sizeof *ns);
        for (k = 1; k < t->nn; k++) {
            size_t j = ctxprof__icpp_node_hash(t->nparent[k], t->nfunc[k], t->nheight[k]) & (nsz - 1);
            while (ns[j])
                j = (j + 1) & (nsz - 1);
            ns[j] = (uint32_t)k + 1;
        }
        CTXPROF_FREE(t->slots, NULL);
        t->slots = ns;
        t->mask = nsz - 1;
    }
    i = ctxprof__icpp_node_hash(parent, func, height) & t->mask;
    while (t->slots[i]) {
        n = t->slots[i] - 1;
        if (t->nparent[n] == parent && t->nfunc[n] == func && t->nheight[n] == height)
            return n;
        i = (i + 1) & t->mask;
    }
    if (t->nn >= ctxprof__icpp_max_paths)
        goto full;
    if (t->nn >= t->ncap) {
        size_t nc = t->ncap ? 2 * t->ncap : 512;
        ctxprof__icpp_nblk *nb = ctxprof__icpp_nblk_new(t, nc, t->nn);
        uint64_t *c = nb ? (uint64_t *)ctxprof__icpp_grow(t->ncount, nc, sizeof *c) : NULL;
        uint32_t *b = c ? (uint32_t *)ctxprof__icpp_grow(t->nbody, nc, sizeof *b) : NULL;
        /* each array moved only on success; on failure keep what moved */
        if (c)
            t->ncount = c;
        if (b)
            t->nbody = b;
        if (!b) {
            CTXPROF_FREE(nb, NULL);
            goto full; /* arrays that grew keep the old contents: capacity unchanged */
        }
        ctxprof__icpp_nblk_publish(t, nb);
        t->ncap = nc;
    }
    n = (uint32_t)t->nn;
    t->nfunc[n] = func;
    t->nparent[n] = parent;
    t->nheight[n] = height;
    t->ncount[n] = 0;
    t->nbody[n] = UINT32_MAX; /* not measured yet */
    t->slots[i] = n + 1;
    __atomic_store_n(&t->nn, (size_t)n + 1, __ATOMIC_RELEASE); /* for train_path */
    return n;
full:
    return CTXPROF__ICPP_NONE;
}

/* Owner: one more in a counter that ctxprof_icpp_train_get_stats reads. */
CTXPROF__NOINSTR CTXPROF__PRIV void ctxprof__icpp_count(uint64_t *c)
{
    __atomic_store_n(c, *c + 1, __ATOMIC_RELAXED);
}

CTXPROF__NOINSTR CTXPROF__PRIV int ctxprof__icpp_ts_ready(ctxprof__icpp_ts *t)
{
    if (t->nn == 0) { /* the root */
        if (ctxprof__icpp_ts_node(t, CTXPROF__ICPP_NONE, 0, 0) != 0)
            return 0;
    }
    return 1;
}

/* Signal handlers. An instrumented function run as a signal handler is
   called from the kernel's signal trampoline: its return address (the
   hooks' site) is the sigreturn sequence (glibc's __restore_rt), which
   unwinders recognise by its code. Its frame and every frame below it are
   not recorded, only counted: recording may allocate (a new thread's
   tree, a growing table), and the interrupted code may be inside malloc.
   sig_sp is the handler frame's SP until it returns (its exit, or an
   entry above it after a longjmp out of it). */
static CTXPROF_TLS uintptr_t ctxprof__icpp_sig_sp CTXPROF__TLS_MODEL;
static uint64_t ctxprof__icpp_sig_dropped;
/* The trampoline's address, 0 until known (ctxprof__icpp_sig_between). */
static uintptr_t ctxprof__icpp_sigret;

CTXPROF__NOINSTR CTXPROF__PRIV int ctxprof__icpp_is_sigreturn(uintptr_t site)
{
#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__))
#if defined(__x86_64__)
    static const unsigned char code[] = {0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05};
#else
    static const unsigned char code[] = {0x68, 0x11, 0x80, 0xd2, 0x01, 0x00, 0x00, 0xd4};
#endif
    size_t i;
    if (!site)
        return 0;
    for (i = 0; i < sizeof code; i++) /* byte by byte: read on only while it matches */
        if (((const volatile unsigned char *)site)[i] != code[i])
            return 0;
    return 1;
#else
    (void)site;
    return 0;
#endif
}

/* An uninstrumented handler that calls instrumented functions has no
   entry of its own to recognise: on x86-64 the kernel put the
   trampoline's address as the handler's return address (rt_sigframe's
   pretcode), with the interrupted registers above it, so the signal frame
   lies on the stack between the first instrumented function's CFA and
   the frame on top. The trampoline's address is learned from an
   instrumented handler's entry or, when training starts, from the
   installed handlers' restorer or from libc's code (the one
   rt_sigreturn sequence there: glibc's libc.so, musl's ld-musl), else
   from the executable's (linked statically). Not signal-safe
   (dl_iterate_phdr). */
#if defined(CTXPROF__HAVE_SYMTAB) && defined(__x86_64__)
struct ctxprof__sigret_find {
    uintptr_t at;
    int exe; /* 0: libc's objects; 1: the executable (named "") */
};

CTXPROF__NOINSTR CTXPROF__PRIV int ctxprof__icpp_sigret_scan(struct ctxprof__dl_info *in,
                                                             size_t size, void *data)
{
    struct ctxprof__sigret_find *f = (struct ctxprof__sigret_find *)data;
    const char *b = in->name ? strrchr(in->name, '/') : NULL;
    uint16_t i;
    (void)size;
    b = b ? b + 1 : in->name ? in->name : "";
    if (f->exe ? *b != '\0'
               : strncmp(b, "libc.so", 7) != 0 && strncmp(b, "libc-", 5) != 0 &&
                     strncmp(b, "ld-musl-", 8) != 0)
        return 0;
    for (i = 0; i < in->phnum; i++) {
        const ctxprof__phdr *h = &in->phdr[i];
        const unsigned char *c = (const unsigned char *)(in->addr + (uintptr_t)h->vaddr), *end;
        if (h->type != 1 /* PT_LOAD */ || !(h->flags & 1 /* PF_X */) || h->filesz < 16)
            continue;
        for (end = c + h->filesz - 16; c < end; c++)
            if (*c == 0x48 && ctxprof__icpp_is_sigreturn((uintptr_t)c)) {
                f->at = (uintptr_t)c;
                return 1;
            }
    }
    return f->exe; /* the executable comes first: no other is "" */
}
#endif

CTXPROF__NOINSTR CTXPROF__PRIV void ctxprof__icpp_sigret_learn(void)
{
#if defined(CTXPROF__HAVE_SYMTAB) && defined(__x86_64__)
    struct ctxprof__sigret_find f = {0, 0};
    f.at = __atomic_load_n(&ctxprof__icpp_sigret, __ATOMIC_RELAXED);
#if defined(__GLIBC__)
    {
        int sig;
        for (sig = 1; sig < 65 && !f.at; sig++) {
            struct sigaction sa;
            if (sigaction(sig, NULL, &sa) == 0 && (sa.sa_flags & 0x04000000) /* SA_RESTORER */ &&
                sa.sa_restorer && ctxprof__icpp_is_sigreturn((uintptr_t)sa.sa_restorer))
                f.at = (uintptr_t)sa.sa_restorer;
        }
    }
#endif
    for (; !f.at && f.exe < 2; f.exe++)
        ctxprof__dl_iterate_phdr(ctxprof__icpp_sigret_scan, &f);
    if (f.at)
        __atomic_store_n(&ctxprof__icpp_sigret, f.at, __ATOMIC_RELAXED);
#endif
}

#define CTXPROF__ICPP_FIND_MAX (256u * 1024u) /* bytes read up the stack past the top frame */

/* The CFA of a frame with no recorded frame below it (a thread's first
   function, or one called from uninstrumented code): its return address's
   slot is a word equal to site read up from sp, inside the thread's stack
   mapping (at most CTXPROF__ICPP_FIND_MAX bytes). The function's own code
   may have copied site below the slot (a spill, at -O0 or under a
   sanitizer), and nothing above it holds site, so the highest copy is
   taken: the scan goes on for CTXPROF__ICPP_ROOT_PAST bytes past each one.
   0: not found, or the mapping is unknown. */
#define CTXPROF__ICPP_ROOT_PAST 256u
#if defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 5)
__attribute__((no_sanitize_address))
#endif
CTXPROF__NOINSTR CTXPROF__PRIV uintptr_t ctxprof__icpp_root_cfa(uintptr_t sp, uintptr_t site)
{
    uintptr_t hi = ctxprof__icpp_stack_hi, a, found = 0;
    if (!site || !hi || sp >= hi)
        return 0;
    if (hi - sp > CTXPROF__ICPP_FIND_MAX)
        hi = sp + CTXPROF__ICPP_FIND_MAX;
    for (a = (sp + 7) & ~(uintptr_t)7; a + 8 <= hi; a += 8) {
        if (found && a - found >= CTXPROF__ICPP_ROOT_PAST)
            break;
        if (*(const volatile uintptr_t *)a == site)
            found = a + 8;
    }
    return found;
}
#define CTXPROF__ICPP_SIGFRAME_MIN 1024u /* rt_sigframe, FPU state, red zone: more */
#define CTXPROF__ICPP_ROOT_SIG 4096u      /* read above a root's CFA for a signal frame */

/* The handler's entry SP (its return address's slot, holding the
   trampoline) when the frame of a signal being handled lies in [lo, top),
   read up from lo (at most CTXPROF__ICPP_FIND_MAX bytes); 0 if none. A
   frame stays in the stack's memory after its handler returned, so a
   candidate must show a handler still running: the interrupted SP saved
   in it lies above the frame and below base, and a signal unblocked in
   the mask it saved is blocked now (the handler's own signal, unless
   SA_NODEFER, and its sa_mask; the siginfo, which would name the signal,
   is written only for SA_SIGINFO). Offsets are the kernel's struct
   rt_sigframe: pretcode, then a ucontext (its mcontext's gregs at 40, the
   64-bit sigmask at 296). */
#if defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 5)
__attribute__((no_sanitize_address))
#endif
CTXPROF__NOINSTR CTXPROF__PRIV uintptr_t ctxprof__icpp_sig_between(uintptr_t lo, uintptr_t top,
                                                                 uintptr_t base)
{
#if defined(__x86_64__) && defined(__linux__)
    const uintptr_t rsp_at = 8 + 40 + 15 * 8, mask_at = 8 + 296;
    uintptr_t r = __atomic_load_n(&ctxprof__icpp_sigret, __ATOMIC_RELAXED), a;
    if (!r || top <= lo || top - lo < CTXPROF__ICPP_SIGFRAME_MIN)
        return 0;
    if (top - lo > CTXPROF__ICPP_FIND_MAX)
        top = lo + CTXPROF__ICPP_FIND_MAX;
    for (a = (lo + 7) & ~(uintptr_t)7; a + 8 <= top; a += 8) {
        uintptr_t isp;
        uint64_t saved;
        sigset_t now;
        int sig;
        if (*(const volatile uintptr_t *)a != r || base - a < mask_at + 8)
            continue;
        isp = *(const volatile uintptr_t *)(a + rsp_at);
        saved = *(const volatile uint64_t *)(a + mask_at);
        if (isp < a + CTXPROF__ICPP_SIGFRAME_MIN || isp > base ||
            pthread_sigmask(SIG_BLOCK, NULL, &now) != 0)
            continue;
        for (sig = 1; sig <= 64; sig++)
            if (!(saved >> (sig - 1) & 1) && sigismember(&now, sig) == 1)
                return a;
    }
#else
    (void)lo;
    (void)top;
    (void)base;
#endif
    return 0;
}

/* An entry with no live instrumented frame below it: its CFA into *cfa,
   and 1 when a signal frame lies in the CFA's next CTXPROF__ICPP_ROOT_SIG
   bytes (a handler's call while none is live: an uninstrumented main in
   poll). The same function entered from the same site at the same SP has
   the same CFA and caller, so a clean answer is kept (t->roots, by SP: an
   uninstrumented recursion calls its instrumented callees at every
   depth); a handler's is not, so that its next call is read again. */
CTXPROF__NOINSTR CTXPROF__PRIV int ctxprof__icpp_root(ctxprof__icpp_ts *t, uintptr_t sp,
                                                      uintptr_t site, uintptr_t func,
                                                      uintptr_t *cfa)
{
    uintptr_t(*set)[4] = t->roots[(sp >> 4) & 127];
    uintptr_t hi = ctxprof__icpp_stack_hi, lo, top;
    int w;
    for (w = 0; w < 2; w++)
        if (set[w][0] == sp && set[w][1] == site && set[w][2] == func) {
            *cfa = set[w][3];
            return 0;
        }
    *cfa = ctxprof__icpp_root_cfa(sp, site);
    lo = *cfa ? *cfa : sp;
    top = hi > lo && hi - lo > CTXPROF__ICPP_ROOT_SIG ? lo + CTXPROF__ICPP_ROOT_SIG : hi;
    if (ctxprof__icpp_sig_between(lo, top, hi))
        return 1;
    memcpy(set[1], set[0], sizeof set[0]); /* the older one goes */
    set[0][0] = sp;
    set[0][1] = site;
    set[0][2] = func;
    set[0][3] = *cfa;
    return 0;
}

/* Whether the top frame cannot be live when func is entered at (sp, site,
   point) with paired exits. One recorded deeper than sp is dead. At the
   same SP, a live frame is one that func was inlined into: both were
   entered from the same machine frame, with its call site (gcc and clang
   pass the caller's return address for inlined callees). A different
   call site means a sibling call after a longjmp back into the caller; so
   does an entry point that a frame of that machine frame already has (the
   very same entry again: recursion inlined into itself enters from
   another place), and the frames above it are dead with it. */
CTXPROF__NOINSTR CTXPROF__PRIV int ctxprof__icpp_top_dead(const ctxprof__icpp_ts *t, uintptr_t func,
                                                          uintptr_t site, uintptr_t sp,
                                                          uint32_t point)
{
    size_t i = t->depth;
    const ctxprof__icpp_sframe *g = &t->stack[i - 1];
    if (g->sp != sp)
        return g->sp < sp;
    if (g->site != site)
        return 1;
    if (point == 0)
        return 0;
    for (; i > 0 && t->stack[i - 1].sp == sp && t->stack[i - 1].site == site; i--)
        if (t->stack[i - 1].func == func && t->stack[i - 1].point == point)
            return 1;
    return 0;
}

/* The body offset (CFA - SP) of a frame entered at sp with return address
   site: its slot is the first word equal to site read down from start,
   the SP of the frame below it (or of a wrap in that frame), since the
   call pushed it at CFA - 8 under whatever its caller put there (stack
   arguments, a wrap's array). A stale copy of site above the slot can
   only make the result larger than the frame's, so the smallest result
   over a function's entries is kept (as with the steps between heights,
   ctxprof__icpp_body_offsets). 0: not found. The words read are live
   stack between two frames of this thread, but the caller's, so a
   sanitizer's redzones may lie among them. */
#if defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 5)
__attribute__((no_sanitize_address))
#endif
CTXPROF__NOINSTR CTXPROF__PRIV uint32_t ctxprof__icpp_body_at(uintptr_t start, uintptr_t sp,
                                                            uintptr_t site)
{
    uintptr_t a = start & ~(uintptr_t)7;
    if (!site || start <= sp || start - sp >= UINT32_MAX)
        return 0;
    for (; a >= sp + 8; a -= 8)
        if (*(const volatile uintptr_t *)(a - 8) == site)
            return (uint32_t)(a - sp);
    return 0;
}

/* The CFA of a frame entered at sp, below the frame on top: the slot
   holding its return address site is read down from the top frame's SP
   (from its wrap's when the call is inside one: the wrap's array is
   skipped). Not there, it is looked for between the frames above, one
   frame at a time (at most CTXPROF__ICPP_FIND_MAX bytes): a live caller's
   SP is at or above its callee's CFA, so frames below the slot found are
   dead, left by a longjmp to a caller that then called deeper than they
   were, and are popped. 0: not found (no site, or not a return address). */
CTXPROF__NOINSTR CTXPROF__PRIV uintptr_t ctxprof__icpp_find_cfa(ctxprof__icpp_ts *t, uintptr_t sp,
                                                              uintptr_t site)
{
    ctxprof__icpp_sframe *g = &t->stack[t->depth - 1];
    uintptr_t top = g->sp, w = ctxprof__icpp_wrap_sp, lo = top, c = g->callee_cfa;
    uint32_t b;
    size_t i;
    if (w <= sp || w >= top || ctxprof__icpp_wrap_frame != top)
        w = top;
    if (!site)
        return 0;
    /* the top's last callee's CFA first: one read where a loop calls from
       below an alloca or a variable-length array */
    if (c > sp && c <= w && ctxprof__icpp_body_at(c, c - 8, site))
        return c;
    if ((b = ctxprof__icpp_body_at(w, sp, site)) != 0)
        return g->callee_cfa = sp + b;
    if (w != top && (b = ctxprof__icpp_body_at(top, w, site)) != 0)
        return g->callee_cfa = w + b; /* a longjmp around the wrap, in this frame */
    for (i = t->depth - 1; i > 0; i--) {
        uintptr_t hi = t->stack[i - 1].sp;
        if (hi - top > CTXPROF__ICPP_FIND_MAX)
            break;
        if (hi > lo && (b = ctxprof__icpp_body_at(hi, lo, site)) != 0) {
            t->depth = i;
            return t->stack[i - 1].callee_cfa = lo + b;
        }
        if (hi > lo)
            lo = hi;
    }
    return 0;
}

/* point: the entry's place in its machine frame (the return address of
   the hook or of ctxprof__icpp_enter_here), 0 if unknown. */
CTXPROF__NOINSTR CTXPROF_DEF void ctxprof__icpp_enter_slow(uintptr_t func, uintptr_t site,
                                                           uintptr_t sp, uint32_t point, int paired)
{
    ctxprof__icpp_ts *t;
    uintptr_t base, cfa = 0;
    uint32_t parent, node;
    if (CTXPROF__UNLIKELY(ctxprof__icpp_sig_sp) && sp > ctxprof__icpp_sig_sp)
        ctxprof__icpp_sig_sp = 0; /* the handler is gone */
    if (!ctxprof__icpp_sig_sp && ctxprof__icpp_is_sigreturn(site)) {
        ctxprof__icpp_sig_sp = sp;
        __atomic_store_n(&ctxprof__icpp_sigret, site, __ATOMIC_RELAXED);
    }
    if (CTXPROF__UNLIKELY(ctxprof__icpp_sig_sp)) {
        __atomic_add_fetch(&ctxprof__icpp_sig_dropped, 1, __ATOMIC_RELAXED);
        return;
    }
    t = ctxprof__icpp_ts_get();
    if (!t || t->busy)
        return;
    t->busy = 1;
    base = ctxprof__icpp_base ? ctxprof__icpp_base : ctxprof__icpp_set_base(sp);
    if (sp > base || ctxprof__icpp_off_stack(sp) || !ctxprof__icpp_ts_ready(t)) {
        ctxprof__icpp_count(&t->no_base);
        goto out;
    }
    if (paired)
        while (t->depth && ctxprof__icpp_top_dead(t, func, site, sp, point))
            t->depth--;
    else /* returned frames, by SP alone */
        while (t->depth && t->stack[t->depth - 1].sp <= sp)
            t->depth--;
    if (t->depth && t->stack[t->depth - 1].sp != sp) {
        ctxprof__icpp_sframe *g;
        uintptr_t lo;
        cfa = ctxprof__icpp_find_cfa(t, sp, site);
        g = &t->stack[t->depth - 1];
        lo = cfa ? cfa : sp;
        /* an uninstrumented handler's call; a handler's frames would put
           the CFA below a gap read clean before */
        if (lo != g->sig_clean && g->sp - lo >= CTXPROF__ICPP_SIGFRAME_MIN) {
            if (ctxprof__icpp_sig_between(lo, g->sp, base)) {
                g->callee_cfa = 0;
                goto handler;
            }
            g->sig_clean = lo;
        }
    } else if (!t->depth && ctxprof__icpp_root(t, sp, site, func, &cfa)) {
        goto handler;
    }
    if (t->depth >= ctxprof__icpp_max_depth) {
        ctxprof__icpp_count(&t->dropped_depth);
        goto out;
    }
    if (t->depth >= t->scap) {
        size_t nc = t->scap ? 2 * t->scap : 256;
        ctxprof__icpp_sframe *st =
            (ctxprof__icpp_sframe *)ctxprof__icpp_grow(t->stack, nc, sizeof *st);
        if (!st) {
            ctxprof__icpp_count(&t->dropped_depth);
            goto out;
        }
        t->stack = st;
        t->scap = nc;
    }
    parent = t->depth ? t->stack[t->depth - 1].node : 0;
    if (paired && t->depth && t->stack[t->depth - 1].sp == sp) {
        node = parent; /* inlined into the frame on top */
    } else {
        node = parent == CTXPROF__ICPP_NONE
                   ? CTXPROF__ICPP_NONE
                   : ctxprof__icpp_ts_node(t, parent, func, (uint64_t)(base - sp));
        if (node == CTXPROF__ICPP_NONE) {
            ctxprof__icpp_count(&t->dropped_paths);
        } else {
            t->ncount[node]++;
            ctxprof__icpp_count(&t->entries);
            if (cfa) { /* the smallest found (a stale copy reads larger) */
                uint32_t b = (uint32_t)(cfa - sp), *nb = &t->nbody[node];
                if (*nb == UINT32_MAX || *nb == 0 || b < *nb)
                    *nb = b;
            } else if (t->nbody[node] == UINT32_MAX && t->depth) {
                t->nbody[node] = 0; /* measured, not found */
            }
        }
    }
    t->stack[t->depth].node = node;
    t->stack[t->depth].point = point;
    t->stack[t->depth].sp = sp;
    t->stack[t->depth].func = func;
    t->stack[t->depth].site = site;
    t->stack[t->depth].callee_cfa = 0;
    t->stack[t->depth].sig_clean = 0;
    t->depth++;
    __atomic_store_n(&t->cur, node == CTXPROF__ICPP_NONE ? 0 : node, __ATOMIC_RELAXED);
    goto out;
handler: /* an uninstrumented handler's call: dropped until its own exit */
    ctxprof__icpp_sig_sp = sp;
    __atomic_add_fetch(&ctxprof__icpp_sig_dropped, 1, __ATOMIC_RELAXED);
out:
    t->busy = 0;
}

/* Frames deeper than sp are gone. tail: the exit was called as a tail
   call, after the exiting frame was torn down (its return address is the
   call site), so sp is the caller's SP, and the exiting frame is among
   those below it; a frame at sp is the caller's, even when it is the same
   function called from the same site (recursion). Otherwise the exiting
   frame is the top one with this function and call site, at sp or above
   it; frames above it at its SP are callees inlined into it that a
   longjmp left. */
CTXPROF__NOINSTR CTXPROF_DEF void ctxprof__icpp_exit_slow(uintptr_t func, uintptr_t site,
                                                          uintptr_t sp, int tail)
{
    ctxprof__icpp_ts *t = ctxprof__icpp_tls_ts;
    uint32_t cur;
    size_t i;
    if (CTXPROF__UNLIKELY(ctxprof__icpp_sig_sp)) { /* in a handler: nothing of it recorded */
        if (sp >= ctxprof__icpp_sig_sp)
            ctxprof__icpp_sig_sp = 0; /* its own exit */
        return;
    }
    if (!t || t->busy || ctxprof__icpp_off_stack(sp)) /* a coroutine's frame: not recorded */
        return;
    while (t->depth && t->stack[t->depth - 1].sp < sp)
        t->depth--;
    if (!tail && t->depth) {
        /* the top's SP, which may lie above sp: a variable-length array
           (a CTXPROF_ICPP_CALL wrap) or alloca still allocated at the exit */
        uintptr_t top = t->stack[t->depth - 1].sp;
        for (i = t->depth; i > 0 && t->stack[i - 1].sp == top; i--)
            if (t->stack[i - 1].func == func && t->stack[i - 1].site == site) {
                t->depth = i - 1;
                break;
            }
    }
    cur = t->depth ? t->stack[t->depth - 1].node : 0;
    __atomic_store_n(&t->cur, cur == CTXPROF__ICPP_NONE ? 0 : cur, __ATOMIC_RELAXED);
}

CTXPROF__NOINSTR CTXPROF__ICPP_OWNFRAME CTXPROF_DEF void
ctxprof__icpp_enter_here(uintptr_t func, uintptr_t site, int paired)
{
    uintptr_t sp = CTXPROF__ICPP_CFA();
    ctxprof__icpp_enter_slow(func, site, sp ? sp : ctxprof_icpp_sp(), CTXPROF__ICPP_POINT(sp),
                             paired);
}

CTXPROF__NOINSTR CTXPROF__ICPP_OWNFRAME CTXPROF_DEF void ctxprof__icpp_exit_here(uintptr_t func,
                                                                              uintptr_t site)
{
    uintptr_t sp = CTXPROF__ICPP_CFA();
    ctxprof__icpp_exit_slow(func, site, sp ? sp : ctxprof_icpp_sp(),
                            sp && CTXPROF__ICPP_RA(sp) == site);
}

/* The SP of the trained frame live at sp (the top one at or above it; a
   longjmp leaves dead ones below), 0 if none or the stack is changing. */
CTXPROF__NOINSTR CTXPROF_DEF uintptr_t ctxprof__icpp_frame_at(uintptr_t sp)
{
    const ctxprof__icpp_ts *t = ctxprof__icpp_tls_ts;
    size_t i;
    if (!t || t->busy)
        return 0;
    i = t->depth;
    while (i && t->stack[i - 1].sp < sp)
        i--;
    return i ? t->stack[i - 1].sp : 0;
}

CTXPROF__NOINSTR CTXPROF_DEF int ctxprof_icpp_train_start(const ctxprof_icpp_train_desc *desc, ctxprof_error *err)
{
    ctxprof__error_clear(err);
    if (__atomic_load_n(&ctxprof__icpp_training, __ATOMIC_ACQUIRE)) {
        if (desc && ((desc->max_paths && desc->max_paths != ctxprof__icpp_max_paths) ||
                     (desc->max_depth && desc->max_depth != ctxprof__icpp_max_depth) ||
                     (desc->max_save_bytes && desc->max_save_bytes != ctxprof__icpp_max_save)))
            return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0,
                                 "icpp: training is on already, with max_paths %zu and "
                                 "max_depth %zu: ctxprof_icpp_train_stop first to change them, "
                                 "or max_save_bytes (%llu)",
                                 ctxprof__icpp_max_paths, ctxprof__icpp_max_depth,
                                 (unsigned long long)ctxprof__icpp_max_save);
        return CTXPROF_OK; /* on, with what was asked for */
    }
    if (desc && desc->max_paths) {
        if (desc->max_paths > (size_t)UINT32_MAX - 2)
            return ctxprof__fail(err, CTXPROF_ERR_RANGE, 0, "icpp: max_paths %zu too large",
                                 desc->max_paths);
        if (desc->max_paths == 1)
            return ctxprof__fail(err, CTXPROF_ERR_RANGE, 0,
                                 "icpp: max_paths 1 holds only the tree's root: no path could "
                                 "be recorded (it counts the root: 2 for one path)");
    }
    if (desc && desc->max_paths)
        ctxprof__icpp_max_paths = desc->max_paths;
    if (desc && desc->max_depth)
        ctxprof__icpp_max_depth = desc->max_depth;
    if (desc && desc->max_save_bytes)
        ctxprof__icpp_max_save = desc->max_save_bytes;
    ctxprof__icpp_started = 1;
    ctxprof__icpp_sigret_learn();
    __atomic_store_n(&ctxprof__icpp_training, 1, __ATOMIC_RELEASE);
    return CTXPROF_OK;
}

CTXPROF__NOINSTR CTXPROF_DEF void ctxprof_icpp_train_stop(void)
{
    __atomic_store_n(&ctxprof__icpp_training, 0, __ATOMIC_RELEASE);
}

CTXPROF__NOINSTR CTXPROF_DEF void ctxprof_icpp_train_reset(void)
{
    ctxprof__icpp_ts *t;
    for (t = __atomic_load_n(&ctxprof__icpp_ts_head, __ATOMIC_ACQUIRE); t; t = t->next) {
        /* the struct stays (threads keep a pointer to it); its data goes */
        CTXPROF_FREE(t->stack, NULL);
        ctxprof__icpp_nblk_free(t->nblk);
        ctxprof__icpp_nblk_free(t->retired);
        CTXPROF_FREE(t->ncount, NULL);
        CTXPROF_FREE(t->nbody, NULL);
        CTXPROF_FREE(t->slots, NULL);
        t->stack = NULL;
        t->nblk = t->retired = NULL;
        t->nfunc = NULL;
        t->nparent = t->nbody = NULL;
        t->nheight = t->ncount = NULL;
        t->slots = NULL;
        t->depth = t->scap = t->nn = t->ncap = t->mask = 0;
        t->entries = t->dropped_paths = t->dropped_depth = t->no_base = 0;
        t->cur = 0;
    }
    __atomic_store_n(&ctxprof__icpp_sig_dropped, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&ctxprof__icpp_save_dropped, 0, __ATOMIC_RELAXED);
    ctxprof__icpp_started = __atomic_load_n(&ctxprof__icpp_training, __ATOMIC_RELAXED);
}

CTXPROF_DEF void ctxprof_icpp_train_get_stats(ctxprof_icpp_train_stats *out)
{
    ctxprof__icpp_ts *t;
    memset(out, 0, sizeof *out);
    for (t = __atomic_load_n(&ctxprof__icpp_ts_head, __ATOMIC_ACQUIRE); t; t = t->next) {
        size_t nn = __atomic_load_n(&t->nn, __ATOMIC_ACQUIRE);
        out->threads += nn > 0;
        out->nodes += nn > 1 ? nn - 1 : 0;
        out->entries += __atomic_load_n(&t->entries, __ATOMIC_RELAXED);
        out->dropped_paths += __atomic_load_n(&t->dropped_paths, __ATOMIC_RELAXED);
        out->dropped_depth += __atomic_load_n(&t->dropped_depth, __ATOMIC_RELAXED);
        out->no_base += __atomic_load_n(&t->no_base, __ATOMIC_RELAXED);
    }
    out->dropped_signal = __atomic_load_n(&ctxprof__icpp_sig_dropped, __ATOMIC_RELAXED);
    out->dropped_save = __atomic_load_n(&ctxprof__icpp_save_dropped, __ATOMIC_RELAXED);
}

CTXPROF__NOINSTR CTXPROF_DEF uint64_t ctxprof_icpp_train_current(void)
{
    ctxprof__icpp_ts *t = ctxprof__icpp_tls_ts;
    uint32_t cur;
    if (!t)
        return 0;
    cur = __atomic_load_n(&t->cur, __ATOMIC_RELAXED);
    return cur ? (uint64_t)t->slot << 32 | cur : 0;
}

CTXPROF_DEF size_t ctxprof_icpp_train_path(uint64_t node, uintptr_t *funcs, size_t max,
                                           uint64_t *out_height)
{
    ctxprof__icpp_ts *t;
    ctxprof__icpp_nblk *b;
    uint32_t slot = (uint32_t)(node >> 32), n = (uint32_t)node, k;
    size_t len = 0, i;
    if (out_height)
        *out_height = 0;
    for (t = __atomic_load_n(&ctxprof__icpp_ts_head, __ATOMIC_ACQUIRE); t; t = t->next)
        if (t->slot == slot)
            break;
    if (!t || n == 0)
        return 0;
    /* the owner may be growing the tree: see ctxprof__icpp_nblk */
    __atomic_add_fetch(&t->readers, 1, __ATOMIC_SEQ_CST);
    if (n < __atomic_load_n(&t->nn, __ATOMIC_ACQUIRE) &&
        (b = __atomic_load_n(&t->nblk, __ATOMIC_SEQ_CST)) != NULL) {
        const uintptr_t *fn = ctxprof__icpp_nblk_func(b);
        const uint32_t *par = ctxprof__icpp_nblk_parent(b);
        if (out_height)
            *out_height = ctxprof__icpp_nblk_height(b)[n];
        for (k = n; k != 0; k = par[k]) /* a parent precedes its children */
            len++;
        for (k = n, i = len; k != 0; k = par[k]) {
            i--;
            if (i < max)
                funcs[i] = fn[k];
        }
    }
    __atomic_sub_fetch(&t->readers, 1, __ATOMIC_SEQ_CST);
    return len;
}

#if defined(__GNUC__) || defined(__clang__)
/* The main thread's base, before main: its initial SP, else the same
   point of libc's start-up in every run, so heights do not depend on ASLR
   or the environment. Run by dlopen on another thread: that thread's base
   is its own start routine's business. */
CTXPROF__NOINSTR CTXPROF__ICPP_OWNFRAME __attribute__((constructor)) static void
ctxprof__icpp_ctor(void)
{
    if (!ctxprof__icpp_base && ctxprof__gettid() == (long)getpid())
        ctxprof__icpp_set_base(CTXPROF__ICPP_CFA());
}
#endif

/* --- path maps -----------------------------------------------------------

   A map is a trie of call paths (node 0 is the root, no function) plus
   path entries (node, height, count). After building, nodes are renumbered
   in preorder with children sorted by name, so that a node's subtree is
   the range [v, nend[v]) and the output is deterministic. */

typedef struct ctxprof__icpp_cidrec {
    uint32_t func, first, n, pad;
    uint64_t height;
} ctxprof__icpp_cidrec;

typedef struct ctxprof__icpp_pcrange {
    uintptr_t start, end;
    uint32_t func;
} ctxprof__icpp_pcrange;

typedef struct ctxprof__icpp_cfa { /* a CFA rule (below: call frame information) */
    uintptr_t pc; /* from pc until the next row */
    int32_t off;  /* CFA = reg + off */
    uint32_t reg; /* CTXPROF__CFA_SP, _FP or _NONE */
} ctxprof__icpp_cfa;

/* What bind computes. A map's are published by one pointer: a rebind
   builds new tables, swaps them in and frees the old ones once no sampler
   handler can still read them (ctxprof__icpp_sync). */
typedef struct ctxprof__icpp_bound {
    ctxprof__icpp_pcrange *pcs; /* PC ranges -> function */
    size_t npcs;
    ctxprof__icpp_cfa *cfa; /* CFA rules of the functions' code, by pc */
    size_t ncfa;
    uint32_t *fbody; /* function -> body offset (CFA - SP), 0 unknown */
} ctxprof__icpp_bound;

CTXPROF__PRIV void ctxprof__icpp_bound_free(ctxprof__icpp_bound *b)
{
    if (!b)
        return;
    ctxprof__free(b->pcs, NULL);
    ctxprof__free(b->cfa, NULL);
    ctxprof__free(b->fbody, NULL);
    ctxprof__free(b, NULL);
}

/* Grace periods for what the sampler's handler reads (the active sampler,
   a map's bound tables). A handler counts itself in under the epoch's
   parity; a writer publishes the new pointer, flips the epoch and waits
   until the old parity's count is 0. A handler that counted in under the
   new parity read the epoch after the flip, so after the publication. The
   recheck in read_begin keeps one that read the epoch before a flip from
   counting in under a parity the writer has already seen drained.
   Handlers never wait; writers (bind, deinit) are serialized by a lock. */
static unsigned ctxprof__icpp_epoch;
static int ctxprof__icpp_readers[2];
static int ctxprof__icpp_synclock;

CTXPROF__NOINSTR CTXPROF__PRIV unsigned ctxprof__icpp_read_begin(void)
{
    for (;;) {
        unsigned e = __atomic_load_n(&ctxprof__icpp_epoch, __ATOMIC_SEQ_CST) & 1u;
        __atomic_add_fetch(&ctxprof__icpp_readers[e], 1, __ATOMIC_SEQ_CST);
        if ((__atomic_load_n(&ctxprof__icpp_epoch, __ATOMIC_SEQ_CST) & 1u) == e)
            return e;
        __atomic_sub_fetch(&ctxprof__icpp_readers[e], 1, __ATOMIC_SEQ_CST);
    }
}

CTXPROF__NOINSTR CTXPROF__PRIV void ctxprof__icpp_read_end(unsigned e)
{
    __atomic_sub_fetch(&ctxprof__icpp_readers[e], 1, __ATOMIC_SEQ_CST);
}

/* Returns once every handler that may have read a pointer before the
   caller replaced it has returned. Not from a handler. */
CTXPROF__PRIV void ctxprof__icpp_sync(void)
{
    unsigned e;
    while (__atomic_exchange_n(&ctxprof__icpp_synclock, 1, __ATOMIC_ACQUIRE))
        sched_yield();
    e = __atomic_fetch_add(&ctxprof__icpp_epoch, 1u, __ATOMIC_SEQ_CST) & 1u;
    while (__atomic_load_n(&ctxprof__icpp_readers[e], __ATOMIC_SEQ_CST))
        sched_yield();
    __atomic_store_n(&ctxprof__icpp_synclock, 0, __ATOMIC_RELEASE);
}

struct ctxprof__icpp_mapdata {
    ctxprof__strtab names;      /* function id <-> name */
    uint32_t *nfunc, *nparent;  /* trie */
    size_t nn, ncap;
    uint32_t *nslots;           /* build: (parent, func) -> node + 1 */
    size_t nmask;
    uint32_t *pnode;            /* path entries */
    uint64_t *pheight, *pcount;
    size_t np, pcap;
    uint32_t *pslots;           /* build: (node, height) -> path + 1 */
    size_t pmask;
    /* after finishing */
    uint32_t *nend, *ndepth, *nfirst; /* subtree end, path length, first path (paths sorted by node) */
    uint64_t *nheight;          /* height of the node's only path entry, or NO_HEIGHT */
    uint64_t *pkey;             /* path -> ctxprof_icpp_path_key */
    uint32_t *pcid;             /* path -> CID record */
    ctxprof__icpp_cidrec *cids;
    size_t ncid;
    uint32_t *cand;             /* paths grouped by CID */
    uint32_t *cslots;           /* (func, height) -> CID + 1 */
    size_t cmask;
    struct ctxprof__icpp_bound *bound; /* bind's tables (ctxprof__icpp_bound_of), or NULL */
    uint32_t *rbody;            /* function -> "body" line: offset training measured, 0 none */
    size_t rbcap;
    int no_cfa;                 /* ctxprof_icpp_map_use_cfa(m, 0) */
    char build[81];             /* the training executable's build id in hex, or "" */
};

/* A map's bound tables as a reader sees them (NULL: not bound). */
CTXPROF__NOINSTR CTXPROF__PRIV const ctxprof__icpp_bound *
ctxprof__icpp_bound_of(const struct ctxprof__icpp_mapdata *d)
{
    return __atomic_load_n(&d->bound, __ATOMIC_ACQUIRE);
}

/* The executable's build id as the hex a path map's "build" line holds. */
CTXPROF__PRIV void ctxprof__icpp_build_hex(const ctxprof_symtab *st, char *out)
{
    size_t k;
    out[0] = '\0';
    for (k = 0; st && k < st->build_id_len && k < 40; k++)
        snprintf(out + 2 * k, 3, "%02x", st->build_id[k]);
}

CTXPROF__PRIV void ctxprof__icpp_md_free(struct ctxprof__icpp_mapdata *d)
{
    if (!d)
        return;
    ctxprof__strtab_deinit(&d->names);
    ctxprof__free(d->nfunc, NULL);
    ctxprof__free(d->nparent, NULL);
    ctxprof__free(d->nslots, NULL);
    ctxprof__free(d->pnode, NULL);
    ctxprof__free(d->pheight, NULL);
    ctxprof__free(d->pcount, NULL);
    ctxprof__free(d->pslots, NULL);
    ctxprof__free(d->nend, NULL);
    ctxprof__free(d->ndepth, NULL);
    ctxprof__free(d->nfirst, NULL);
    ctxprof__free(d->nheight, NULL);
    ctxprof__free(d->pkey, NULL);
    ctxprof__free(d->pcid, NULL);
    ctxprof__free(d->cids, NULL);
    ctxprof__free(d->cand, NULL);
    ctxprof__free(d->cslots, NULL);
    ctxprof__icpp_bound_free(d->bound);
    ctxprof__free(d->rbody, NULL);
    ctxprof__free(d, NULL);
}

/* A body offset training measured for function f (a "body" line): the
   smallest is kept. 0 or CTXPROF_ERR_NOMEM. */
CTXPROF__PRIV int ctxprof__icpp_md_body(struct ctxprof__icpp_mapdata *d, uint32_t f, uint32_t bytes)
{
    size_t old = d->rbcap;
    void *p = d->rbody;
    if (ctxprof__reserve(&p, &d->rbcap, old, (size_t)f + 1, sizeof *d->rbody, NULL))
        return CTXPROF_ERR_NOMEM;
    d->rbody = (uint32_t *)p;
    if (d->rbcap > old)
        memset(d->rbody + old, 0, (d->rbcap - old) * sizeof *d->rbody);
    if (!d->rbody[f] || bytes < d->rbody[f])
        d->rbody[f] = bytes;
    return CTXPROF_OK;
}

CTXPROF__PRIV struct ctxprof__icpp_mapdata *ctxprof__icpp_md_new(void)
{
    struct ctxprof__icpp_mapdata *d =
        (struct ctxprof__icpp_mapdata *)ctxprof__zalloc(1, sizeof *d, NULL);
    if (!d)
        return NULL;
    ctxprof__strtab_init(&d->names, NULL);
    /* the root */
    if (ctxprof__reserve((void **)&d->nfunc, &d->ncap, 0, 1, sizeof *d->nfunc, NULL) ||
        !(d->nparent = (uint32_t *)ctxprof__alloc(d->ncap, sizeof *d->nparent, NULL))) {
        ctxprof__icpp_md_free(d);
        return NULL;
    }
    d->nfunc[0] = CTXPROF__ICPP_NONE;
    d->nparent[0] = CTXPROF__ICPP_NONE;
    d->nn = 1;
    return d;
}

/* Rehashes an open-addressing table of id + 1 entries to twice its size
   (at least 64), keeping it at most half full. hash(i) gives entry i's hash. */
CTXPROF__PRIV int ctxprof__icpp_rehash(uint32_t **slots, size_t *mask, size_t used,
                                       uint64_t (*hash)(const struct ctxprof__icpp_mapdata *,
                                                        size_t),
                                       const struct ctxprof__icpp_mapdata *d, size_t first)
{
    size_t nsz = *slots ? 2 * (*mask + 1) : 64, k;
    uint32_t *ns;
    while (nsz < 2 * (used + 1))
        nsz *= 2;
    ns = (uint32_t *)ctxprof__zalloc(nsz, sizeof *ns, NULL);
    if (!ns)
        return CTXPROF_ERR_NOMEM;
    for (k = first; k < used; k++) {
        size_t j = (size_t)hash(d, k) & (nsz - 1);
        while (ns[j])
            j = (j + 1) & (nsz - 1);
        ns[j] = (uint32_t)k + 1;
    }
    ctxprof__free(*slots, NULL);
    *slots = ns;
    *mask = nsz - 1;
    return CTXPROF_OK;
}

CTXPROF__PRIV uint64_t ctxprof__icpp_nkey(uint32_t parent, uint32_t func)
{
    return ctxprof_mix64(((uint64_t)parent << 32) | func);
}
CTXPROF__PRIV uint64_t ctxprof__icpp_nhash(const struct ctxprof__icpp_mapdata *d, size_t i)
{
    return ctxprof__icpp_nkey(d->nparent[i], d->nfunc[i]);
}
CTXPROF__PRIV uint64_t ctxprof__icpp_pkeyh(uint32_t node, uint64_t height)
{
    return ctxprof_mix64(((uint64_t)node << 32) ^ ctxprof_mix64(height));
}
CTXPROF__PRIV uint64_t ctxprof__icpp_phash(const struct ctxprof__icpp_mapdata *d, size_t i)
{
    return ctxprof__icpp_pkeyh(d->pnode[i], d->pheight[i]);
}
CTXPROF__PRIV uint64_t ctxprof__icpp_ckey(uint32_t func, uint64_t height)
{
    return ctxprof_mix64(((uint64_t)func << 32) ^ ctxprof_mix64(height ^ 0x5bd1e995u));
}

/* Child of parent with function func, created when absent; NONE when out of memory. */
CTXPROF__PRIV uint32_t ctxprof__icpp_md_child(struct ctxprof__icpp_mapdata *d, uint32_t parent,
                                              uint32_t func)
{
    size_t i;
    if (!d->nslots || 2 * (d->nn + 1) > d->nmask + 1) {
        if (d->nn >= UINT32_MAX - 2 ||
            ctxprof__icpp_rehash(&d->nslots, &d->nmask, d->nn, ctxprof__icpp_nhash, d, 1))
            return CTXPROF__ICPP_NONE;
    }
    i = (size_t)ctxprof__icpp_nkey(parent, func) & d->nmask;
    while (d->nslots[i]) {
        uint32_t n = d->nslots[i] - 1;
        if (d->nparent[n] == parent && d->nfunc[n] == func)
            return n;
        i = (i + 1) & d->nmask;
    }
    if (d->nn >= d->ncap) {
        size_t cap = d->ncap;
        if (ctxprof__reserve((void **)&d->nfunc, &cap, d->nn, d->nn + 1, sizeof *d->nfunc, NULL))
            return CTXPROF__ICPP_NONE;
        cap = d->ncap;
        if (ctxprof__reserve((void **)&d->nparent, &cap, d->nn, d->nn + 1, sizeof *d->nparent,
                             NULL))
            return CTXPROF__ICPP_NONE; /* nfunc grew, nparent did not: retried next time */
        d->ncap = cap;
    }
    d->nfunc[d->nn] = func;
    d->nparent[d->nn] = parent;
    d->nslots[i] = (uint32_t)d->nn + 1;
    return (uint32_t)d->nn++;
}

/* Adds count to the entry (node, height); 0 or CTXPROF_ERR_NOMEM. */
CTXPROF__PRIV int ctxprof__icpp_md_path(struct ctxprof__icpp_mapdata *d, uint32_t node,
                                        uint64_t height, uint64_t count)
{
    size_t i;
    if (!d->pslots || 2 * (d->np + 1) > d->pmask + 1) {
        if (d->np >= UINT32_MAX - 2 ||
            ctxprof__icpp_rehash(&d->pslots, &d->pmask, d->np, ctxprof__icpp_phash, d, 0))
            return CTXPROF_ERR_NOMEM;
    }
    i = (size_t)ctxprof__icpp_pkeyh(node, height) & d->pmask;
    while (d->pslots[i]) {
        uint32_t p = d->pslots[i] - 1;
        if (d->pnode[p] == node && d->pheight[p] == height) {
            d->pcount[p] = d->pcount[p] > UINT64_MAX - count ? UINT64_MAX : d->pcount[p] + count;
            return CTXPROF_OK;
        }
        i = (i + 1) & d->pmask;
    }
    if (d->np >= d->pcap) {
        size_t cap = d->pcap, c2;
        if (ctxprof__reserve((void **)&d->pnode, &cap, d->np, d->np + 1, sizeof *d->pnode, NULL))
            return CTXPROF_ERR_NOMEM;
        c2 = d->pcap;
        if (ctxprof__reserve((void **)&d->pheight, &c2, d->np, d->np + 1, sizeof *d->pheight,
                             NULL))
            return CTXPROF_ERR_NOMEM;
        c2 = d->pcap;
        if (ctxprof__reserve((void **)&d->pcount, &c2, d->np, d->np + 1, sizeof *d->pcount, NULL))
            return CTXPROF_ERR_NOMEM;
        d->pcap = cap;
    }
    d->pnode[d->np] = node;
    d->pheight[d->np] = height;
    d->pcount[d->np] = count;
    d->pslots[i] = (uint32_t)d->np + 1;
    d->np++;
    return CTXPROF_OK;
}

/* Path keys: the empty path's key, then one step per function name, from
   the root (ctxprof_icpp_path_key, the map's pkey, ctxprof_icpp_train_key). */
#define CTXPROF__ICPP_KEY0 0x9AE16A3B2F90404Fu

CTXPROF__PRIV uint64_t ctxprof__icpp_key_step(uint64_t key, const char *name)
{
    return ctxprof_mix64(key ^ ctxprof_hash_bytes(name, strlen(name), 0x1CBB));
}

CTXPROF_DEF uint64_t ctxprof_icpp_path_key(const char *const *names, size_t n)
{
    uint64_t k = CTXPROF__ICPP_KEY0;
    size_t i;
    for (i = 0; i < n; i++)
        k = ctxprof__icpp_key_step(k, names[i]);
    return k;
}

CTXPROF_DEF uint64_t ctxprof_icpp_train_key(uint64_t node, const ctxprof_symtab *st,
                                            const char *root)
{
    uintptr_t fs[1024];
    size_t n = ctxprof_icpp_train_path(node, fs, 1024, NULL), k;
    uint64_t key = CTXPROF__ICPP_KEY0;
    if (n == 0 || n > 1024 || !st)
        return 0;
    if (root)
        key = ctxprof__icpp_key_step(key, root);
    for (k = 0; k < n; k++) {
        const char *nm = ctxprof_symtab_name(st, fs[k]);
        if (!nm)
            return 0;
        key = ctxprof__icpp_key_step(key, nm);
    }
    return key;
}

/* Sorting children by name while renumbering. */
typedef struct ctxprof__icpp_kid {
    const char *name;
    uint32_t node;
} ctxprof__icpp_kid;

CTXPROF__PRIV int ctxprof__icpp_kid_cmp(const void *a, const void *b)
{
    const ctxprof__icpp_kid *x = (const ctxprof__icpp_kid *)a, *y = (const ctxprof__icpp_kid *)b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->node < y->node ? -1 : x->node > y->node);
}

typedef struct ctxprof__icpp_pe {
    uint32_t node;
    uint64_t height, count;
} ctxprof__icpp_pe;

CTXPROF__PRIV int ctxprof__icpp_pe_cmp(const void *a, const void *b)
{
    const ctxprof__icpp_pe *x = (const ctxprof__icpp_pe *)a, *y = (const ctxprof__icpp_pe *)b;
    if (x->node != y->node)
        return x->node < y->node ? -1 : 1;
    return x->height < y->height ? -1 : x->height > y->height;
}

/* Renumbers in preorder, sorts paths, builds the CID index. 0 or NOMEM. */
CTXPROF__PRIV int ctxprof__icpp_md_finish(struct ctxprof__icpp_mapdata *d)
{
    size_t nn = d->nn, np = d->np, i, top, next = 0;
    uint32_t *kstart = NULL, *order = NULL, *newid = NULL, *stack = NULL;
    ctxprof__icpp_kid *kids = NULL;
    ctxprof__icpp_pe *pe = NULL;
    uint32_t *nf = NULL, *npar = NULL;
    int rc = CTXPROF_ERR_NOMEM;
    kstart = (uint32_t *)ctxprof__zalloc(nn + 1, sizeof *kstart, NULL);
    kids = (ctxprof__icpp_kid *)ctxprof__alloc(nn, sizeof *kids, NULL);
    newid = (uint32_t *)ctxprof__alloc(nn, sizeof *newid, NULL);
    /* stack doubles as per-CID scratch below: CIDs can outnumber nodes when
       one path was trained at several heights */
    stack = (uint32_t *)ctxprof__alloc(nn > np ? nn : np, sizeof *stack, NULL);
    order = (uint32_t *)ctxprof__alloc(nn, sizeof *order, NULL);
    nf = (uint32_t *)ctxprof__alloc(nn, sizeof *nf, NULL);
    npar = (uint32_t *)ctxprof__alloc(nn, sizeof *npar, NULL);
    d->nend = (uint32_t *)ctxprof__alloc(nn, sizeof *d->nend, NULL);
    d->ndepth = (uint32_t *)ctxprof__alloc(nn, sizeof *d->ndepth, NULL);
    d->nfirst = (uint32_t *)ctxprof__alloc(nn + 1, sizeof *d->nfirst, NULL);
    d->nheight = (uint64_t *)ctxprof__alloc(nn, sizeof *d->nheight, NULL);
    pe = (ctxprof__icpp_pe *)ctxprof__alloc(np, sizeof *pe, NULL);
    d->pkey = (uint64_t *)ctxprof__alloc(np, sizeof *d->pkey, NULL);
    d->pcid = (uint32_t *)ctxprof__alloc(np, sizeof *d->pcid, NULL);
    d->cand = (uint32_t *)ctxprof__alloc(np, sizeof *d->cand, NULL);
    if (!kstart || !kids || !newid || !stack || !order || !nf || !npar || !d->nend ||
        !d->ndepth || !d->nfirst || !d->nheight || !pe || !d->pkey || !d->pcid || !d->cand)
        goto done;
    /* children grouped by parent (counting sort), each group sorted by name */
    for (i = 1; i < nn; i++)
        kstart[d->nparent[i] + 1]++;
    for (i = 0; i < nn; i++)
        kstart[i + 1] += kstart[i];
    for (i = 1; i < nn; i++) {
        uint32_t at = kstart[d->nparent[i]]++;
        kids[at].node = (uint32_t)i;
        kids[at].name = d->names.names[d->nfunc[i]];
    }
    for (i = nn; i > 0; i--) /* restore the starts */
        kstart[i] = kstart[i - 1];
    kstart[0] = 0;
    for (i = 0; i < nn; i++)
        if (kstart[i + 1] - kstart[i] > 1)
            qsort(kids + kstart[i], kstart[i + 1] - kstart[i], sizeof *kids,
                  ctxprof__icpp_kid_cmp);
    /* iterative preorder; children pushed in reverse so the first comes first */
    top = 0;
    stack[top++] = 0;
    while (top) {
        uint32_t v = stack[--top];
        size_t k;
        newid[v] = (uint32_t)next;
        order[next++] = v;
        for (k = kstart[v + 1]; k > kstart[v]; k--)
            stack[top++] = kids[k - 1].node;
    }
    for (i = 0; i < nn; i++) {
        uint32_t v = order[i];
        nf[i] = d->nfunc[v];
        npar[i] = v == 0 ? CTXPROF__ICPP_NONE : newid[d->nparent[v]];
    }
    ctxprof__free(d->nfunc, NULL);
    ctxprof__free(d->nparent, NULL);
    d->nfunc = nf;
    d->nparent = npar;
    nf = npar = NULL;
    d->ncap = nn;
    for (i = 0; i < nn; i++)
        d->nend[i] = (uint32_t)(i + 1);
    d->ndepth[0] = 0;
    for (i = 1; i < nn; i++)
        d->ndepth[i] = d->ndepth[d->nparent[i]] + 1;
    for (i = nn; i-- > 1;) /* a parent's end is its last descendant's end */
        if (d->nend[i] > d->nend[d->nparent[i]])
            d->nend[d->nparent[i]] = d->nend[i];
    /* paths sorted by (node, height) */
    for (i = 0; i < np; i++) {
        pe[i].node = newid[d->pnode[i]];
        pe[i].height = d->pheight[i];
        pe[i].count = d->pcount[i];
    }
    qsort(pe, np, sizeof *pe, ctxprof__icpp_pe_cmp);
    for (i = 0; i <= nn; i++)
        d->nfirst[i] = 0;
    for (i = 0; i < np; i++) {
        d->pnode[i] = pe[i].node;
        d->pheight[i] = pe[i].height;
        d->pcount[i] = pe[i].count;
        d->nfirst[pe[i].node + 1]++;
    }
    for (i = 0; i < nn; i++)
        d->nfirst[i + 1] += d->nfirst[i];
    for (i = 0; i < nn; i++)
        d->nheight[i] = d->nfirst[i + 1] - d->nfirst[i] == 1 ? d->pheight[d->nfirst[i]]
                                                              : CTXPROF_ICPP_NO_HEIGHT;
    ctxprof__free(d->nslots, NULL); /* node ids changed; the build tables are done */
    ctxprof__free(d->pslots, NULL);
    d->nslots = d->pslots = NULL;
    d->nmask = d->pmask = 0;
    /* path keys, by name hashes down the trie (newid as scratch: node keys) */
    {
        uint64_t *nk = (uint64_t *)ctxprof__alloc(nn, sizeof *nk, NULL);
        if (!nk)
            goto done;
        nk[0] = CTXPROF__ICPP_KEY0;
        for (i = 1; i < nn; i++)
            nk[i] = ctxprof__icpp_key_step(nk[d->nparent[i]], d->names.names[d->nfunc[i]]);
        for (i = 0; i < np; i++)
            d->pkey[i] = nk[d->pnode[i]];
        ctxprof__free(nk, NULL);
    }
    /* CID index: (leaf function, height) -> candidates */
    {
        size_t csz = 64, c;
        uint32_t *cnt;
        while (csz < 2 * (np + 1))
            csz *= 2;
        d->cslots = (uint32_t *)ctxprof__zalloc(csz, sizeof *d->cslots, NULL);
        d->cids = (ctxprof__icpp_cidrec *)ctxprof__alloc(np ? np : 1, sizeof *d->cids, NULL);
        if (!d->cslots || !d->cids)
            goto done;
        d->cmask = csz - 1;
        d->ncid = 0;
        for (i = 0; i < np; i++) {
            uint32_t f = d->nfunc[d->pnode[i]];
            uint64_t h = d->pheight[i];
            size_t j = (size_t)ctxprof__icpp_ckey(f, h) & d->cmask;
            while (d->cslots[j] &&
                   !(d->cids[d->cslots[j] - 1].func == f && d->cids[d->cslots[j] - 1].height == h))
                j = (j + 1) & d->cmask;
            if (!d->cslots[j]) {
                d->cids[d->ncid].func = f;
                d->cids[d->ncid].height = h;
                d->cids[d->ncid].n = 0;
                d->cids[d->ncid].pad = 0;
                d->cslots[j] = (uint32_t)++d->ncid;
            }
            c = d->cslots[j] - 1;
            d->pcid[i] = (uint32_t)c;
            d->cids[c].n++;
        }
        cnt = stack; /* scratch: next free slot per CID */
        for (c = 0, i = 0; c < d->ncid; c++) {
            d->cids[c].first = (uint32_t)i;
            cnt[c] = (uint32_t)i;
            i += d->cids[c].n;
        }
        for (i = 0; i < np; i++)
            d->cand[cnt[d->pcid[i]]++] = (uint32_t)i;
    }
    rc = CTXPROF_OK;
done:
    ctxprof__free(kstart, NULL);
    ctxprof__free(kids, NULL);
    ctxprof__free(newid, NULL);
    ctxprof__free(stack, NULL);
    ctxprof__free(order, NULL);
    ctxprof__free(nf, NULL);
    ctxprof__free(npar, NULL);
    ctxprof__free(pe, NULL);
    return rc;
}

/* Installs finished data into m (after freeing what m held). */
CTXPROF__PRIV void ctxprof__icpp_map_take(ctxprof_icpp_map *m, struct ctxprof__icpp_mapdata *d)
{
    size_t i;
    ctxprof_icpp_map_deinit(m);
    m->d = d;
    m->paths = d->np;
    m->funcs = d->names.n;
    m->nodes = d->nn - 1;
    m->cids = d->ncid;
    m->max_height = 0;
    for (i = 0; i < d->np; i++)
        if (d->pheight[i] > m->max_height)
            m->max_height = d->pheight[i];
}

CTXPROF_DEF void ctxprof_icpp_map_deinit(ctxprof_icpp_map *m)
{
    if (!m)
        return;
    ctxprof__icpp_md_free(m->d);
    memset(m, 0, sizeof *m);
}

#define CTXPROF__ICPP_MAX_HEIGHT ((uint64_t)1 << 40)

/* Parses text in place (it is modified). */
CTXPROF__PRIV int ctxprof__icpp_map_parse_buf(ctxprof_icpp_map *m, char *buf, size_t len,
                                              const char *name, ctxprof_error *err)
{
    ctxprof__lines L;
    struct ctxprof__icpp_mapdata *d;
    char *tok;
    int rc = CTXPROF_OK;
    ctxprof__error_clear(err);
    if (ctxprof__text_nul(buf, len, name, "a path map", err))
        return CTXPROF_ERR_PARSE;
    ctxprof__lines_init(&L, buf, len, name);
    if (!ctxprof__lines_next(&L) || !(tok = ctxprof__lines_tok(&L)) ||
        strcmp(tok, "ctxprof-paths") != 0)
        return ctxprof__fail(err, CTXPROF_ERR_PARSE, 0,
                             "%s:%u: not a path map: expected 'ctxprof-paths 1'", L.path,
                             L.line ? L.line : 1);
    tok = ctxprof__lines_tok(&L);
    if (!tok || strcmp(tok, "1") != 0 || ctxprof__lines_tok(&L))
        return ctxprof__fail(err, tok && strcmp(tok, "1") ? CTXPROF_ERR_MISMATCH : CTXPROF_ERR_PARSE,
                             0, "%s:%u: path map version '%s'; this library reads version 1",
                             L.path, L.line, tok ? tok : "");
    d = ctxprof__icpp_md_new();
    if (!d)
        return ctxprof__fail(err, CTXPROF_ERR_NOMEM, 0, "%s: out of memory", L.path);
    while (ctxprof__lines_next(&L)) {
        uint64_t count, height;
        uint32_t node = 0;
        char *c, *h;
        tok = ctxprof__lines_tok(&L);
        if (strcmp(tok, "build") == 0) { /* the training executable's build id */
            char *id = ctxprof__lines_tok(&L);
            size_t k, n = id ? strlen(id) : 0;
            for (k = 0; k < n && ((id[k] >= '0' && id[k] <= '9') ||
                                  (id[k] >= 'a' && id[k] <= 'f') || (id[k] >= 'A' && id[k] <= 'F'));
                 k++)
                ;
            if (!id || n == 0 || n % 2 || n >= sizeof d->build || k < n || d->build[0] ||
                ctxprof__lines_tok(&L)) {
                rc = ctxprof__fail(err, CTXPROF_ERR_PARSE, 0,
                                   "%s:%u: expected one 'build HEX' line (an even number of "
                                   "hex digits, at most 80)",
                                   L.path, L.line);
                goto fail;
            }
            for (k = 0; k < n; k++)
                d->build[k] = (char)(id[k] >= 'A' && id[k] <= 'F' ? id[k] - 'A' + 'a' : id[k]);
            d->build[n] = '\0';
            continue;
        }
        if (strcmp(tok, "body") == 0) { /* a body offset training measured */
            char *nm = ctxprof__lines_tok(&L), *v = ctxprof__lines_tok(&L);
            uint64_t bytes;
            long f;
            if (!nm || !v || ctxprof__parse_u64(v, &bytes) || bytes == 0 || bytes > UINT32_MAX ||
                ctxprof__lines_tok(&L)) {
                rc = ctxprof__fail(err, CTXPROF_ERR_PARSE, 0,
                                   "%s:%u: expected 'body FUNCTION BYTES' (1 to 4294967295)",
                                   L.path, L.line);
                goto fail;
            }
            if ((f = ctxprof__strtab_intern(&d->names, nm)) < 0 ||
                ctxprof__icpp_md_body(d, (uint32_t)f, (uint32_t)bytes)) {
                rc = ctxprof__fail(err, CTXPROF_ERR_NOMEM, 0, "%s:%u: out of memory", L.path,
                                   L.line);
                goto fail;
            }
            continue;
        }
        if (strcmp(tok, "path") != 0) {
            rc = ctxprof__fail(err, CTXPROF_ERR_PARSE, 0, "%s:%u: unknown keyword '%.40s'",
                               L.path, L.line, tok);
            goto fail;
        }
        c = ctxprof__lines_tok(&L);
        h = ctxprof__lines_tok(&L);
        if (!c || !h) {
            rc = ctxprof__fail(err, CTXPROF_ERR_PARSE, 0,
                               "%s:%u: expected 'path COUNT HEIGHT F1 ... Fn'", L.path, L.line);
            goto fail;
        }
        if (ctxprof__parse_u64(c, &count)) {
            rc = ctxprof__fail(err, CTXPROF_ERR_PARSE, 0, "%s:%u: bad count '%.40s'", L.path,
                               L.line, c);
            goto fail;
        }
        if (ctxprof__parse_u64(h, &height) || height >= CTXPROF__ICPP_MAX_HEIGHT) {
            rc = ctxprof__fail(err, CTXPROF_ERR_PARSE, 0, "%s:%u: bad height '%.40s'", L.path,
                               L.line, h);
            goto fail;
        }
        while ((tok = ctxprof__lines_tok(&L)) != NULL) {
            long f = ctxprof__strtab_intern(&d->names, tok);
            if (f < 0 || (node = ctxprof__icpp_md_child(d, node, (uint32_t)f)) ==
                             CTXPROF__ICPP_NONE) {
                rc = ctxprof__fail(err, CTXPROF_ERR_NOMEM, 0, "%s:%u: out of memory", L.path,
                                   L.line);
                goto fail;
            }
        }
        if (node == 0) {
            rc = ctxprof__fail(err, CTXPROF_ERR_PARSE, 0, "%s:%u: path without functions",
                               L.path, L.line);
            goto fail;
        }
        if (ctxprof__icpp_md_path(d, node, height, count)) {
            rc = ctxprof__fail(err, CTXPROF_ERR_NOMEM, 0, "%s:%u: out of memory", L.path, L.line);
            goto fail;
        }
    }
    if (ctxprof__icpp_md_finish(d)) {
        rc = ctxprof__fail(err, CTXPROF_ERR_NOMEM, 0, "%s: out of memory", L.path);
        goto fail;
    }
    ctxprof__icpp_map_take(m, d);
    return CTXPROF_OK;
fail:
    ctxprof__icpp_md_free(d);
    return rc;
}

CTXPROF_DEF int ctxprof_icpp_map_parse(ctxprof_icpp_map *m, const char *text, size_t len,
                                       const char *name, ctxprof_error *err)
{
    char *buf;
    int rc;
    if (!m || (!text && len))
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "icpp: NULL argument");
    buf = (char *)ctxprof__alloc(len + 1, 1, NULL);
    if (!buf)
        return ctxprof__fail(err, CTXPROF_ERR_NOMEM, 0, "out of memory");
    if (len)
        memcpy(buf, text, len);
    buf[len] = '\0';
    rc = ctxprof__icpp_map_parse_buf(m, buf, len, name ? name : "<paths>", err);
    ctxprof__free(buf, NULL);
    return rc;
}

CTXPROF_DEF int ctxprof_icpp_map_load(ctxprof_icpp_map *m, const char *path, ctxprof_error *err)
{
    char *buf;
    size_t len;
    int rc;
    if (!m || !path)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "icpp: NULL argument");
    rc = ctxprof__read_file(path, &buf, &len, NULL, err);
    if (rc)
        return rc;
    if (len && buf[len - 1] != '\n') { /* a file cut short: its last path would be wrong */
        rc = ctxprof__fail(err, CTXPROF_ERR_CORRUPT, 0,
                           "%s: truncated: the last line has no end of line (training writes "
                           "whole lines)",
                           strcmp(path, "-") ? path : "<stdin>");
        ctxprof__free(buf, NULL);
        return rc;
    }
    rc = ctxprof__icpp_map_parse_buf(m, buf, len, strcmp(path, "-") ? path : "<stdin>", err);
    ctxprof__free(buf, NULL);
    return rc;
}

/* Path map text goes out in chunks of this many bytes (and a name). */
#define CTXPROF__ICPP_CHUNK ((size_t)64 << 10)

/* The map as ctxprof-paths text, paths of at most keep functions. With a
   sink, b is flushed every CTXPROF__ICPP_CHUNK bytes and at the end. 0,
   CTXPROF_ERR_NOMEM, or CTXPROF_ERR_SYS (the sink failed). */
CTXPROF__PRIV int ctxprof__icpp_map_text_upto(const struct ctxprof__icpp_mapdata *d, size_t keep,
                                              ctxprof__sbuf *b)
{
    uint32_t *stack;
    size_t v, maxd = 1, p;
    for (v = 0; v < d->nn; v++)
        if (d->ndepth[v] > maxd)
            maxd = d->ndepth[v];
    stack = (uint32_t *)ctxprof__alloc(maxd + 1, sizeof *stack, NULL);
    if (!stack)
        return CTXPROF_ERR_NOMEM;
    ctxprof__sbuf_printf(b, "ctxprof-paths 1\n");
    if (d->build[0])
        ctxprof__sbuf_printf(b, "build %s\n", d->build);
    for (v = 0; v < d->rbcap && v < d->names.n; v++)
        if (d->rbody[v])
            ctxprof__sbuf_printf(b, "body %s %u\n", d->names.names[v], d->rbody[v]);
    for (v = 1; v < d->nn && !b->failed; v++) {
        stack[d->ndepth[v] - 1] = d->nfunc[v];
        if (d->ndepth[v] > keep)
            continue;
        for (p = d->nfirst[v]; p < d->nfirst[v + 1]; p++) {
            size_t k;
            ctxprof__sbuf_printf(b, "path %llu %llu", (unsigned long long)d->pcount[p],
                                 (unsigned long long)d->pheight[p]);
            for (k = 0; k < d->ndepth[v]; k++) {
                const char *nm = d->names.names[stack[k]];
                ctxprof__sbuf_put(b, " ", 1);
                ctxprof__sbuf_put(b, nm, strlen(nm));
                if (b->sink && b->len >= CTXPROF__ICPP_CHUNK)
                    ctxprof__sbuf_flush(b);
            }
            ctxprof__sbuf_put(b, "\n", 1);
        }
    }
    ctxprof__sbuf_flush(b);
    ctxprof__free(stack, NULL);
    return b->failed == 1 ? CTXPROF_ERR_NOMEM : b->failed ? CTXPROF_ERR_SYS : CTXPROF_OK;
}

/* The whole map as ctxprof-paths text (in b, or to its sink). */
CTXPROF__PRIV int ctxprof__icpp_map_text(const struct ctxprof__icpp_mapdata *d, ctxprof__sbuf *b)
{
    return ctxprof__icpp_map_text_upto(d, SIZE_MAX, b);
}

/* Decimal digits of v. */
CTXPROF__PRIV uint64_t ctxprof__icpp_digits(uint64_t v)
{
    uint64_t n = 1;
    while (v >= 10) {
        v /= 10;
        n++;
    }
    return n;
}

/* What a map's text will take, for max_save_bytes: *keep gets the longest
   path length (in functions) up to which every path fits in limit bytes
   (SIZE_MAX: the whole map fits; 0: not even the one-function paths),
   *dropped the paths longer than that, *need1 the bytes of the header and
   the one-function paths. Counts what ctxprof__icpp_map_text writes. 0 or
   CTXPROF_ERR_NOMEM. */
CTXPROF__PRIV int ctxprof__icpp_map_keep(const struct ctxprof__icpp_mapdata *d, uint64_t limit,
                                         size_t *keep, uint64_t *dropped, uint64_t *need1)
{
    uint64_t *nb, *lb, *lp, total;
    size_t v, p, maxd = 0;
    for (v = 0; v < d->nn; v++)
        if (d->ndepth[v] > maxd)
            maxd = d->ndepth[v];
    nb = (uint64_t *)ctxprof__alloc(d->nn ? d->nn : 1, sizeof *nb, NULL); /* names of a path */
    lb = (uint64_t *)ctxprof__zalloc(maxd + 1, sizeof *lb, NULL); /* bytes of paths by length */
    lp = (uint64_t *)ctxprof__zalloc(maxd + 1, sizeof *lp, NULL); /* paths by length */
    if (!nb || !lb || !lp) {
        ctxprof__free(nb, NULL);
        ctxprof__free(lb, NULL);
        ctxprof__free(lp, NULL);
        return CTXPROF_ERR_NOMEM;
    }
    total = sizeof "ctxprof-paths 1\n" - 1;
    if (d->build[0])
        total += sizeof "build \n" - 1 + strlen(d->build);
    for (v = 0; v < d->rbcap && v < d->names.n; v++)
        if (d->rbody[v])
            total += sizeof "body  \n" - 1 + strlen(d->names.names[v]) +
                     ctxprof__icpp_digits(d->rbody[v]);
    nb[0] = 0;
    for (v = 1; v < d->nn; v++) { /* preorder: a parent comes before its children */
        nb[v] = nb[d->nparent[v]] + 1 + strlen(d->names.names[d->nfunc[v]]);
        for (p = d->nfirst[v]; p < d->nfirst[v + 1]; p++) {
            lb[d->ndepth[v]] += sizeof "path  \n" - 1 + ctxprof__icpp_digits(d->pcount[p]) +
                                ctxprof__icpp_digits(d->pheight[p]) + nb[v];
            lp[d->ndepth[v]]++;
        }
    }
    *need1 = total + (maxd >= 1 ? lb[1] : 0);
    *keep = 0;
    while (*keep < maxd && total + lb[*keep + 1] <= limit)
        total += lb[++*keep];
    *dropped = 0;
    if (*keep == maxd)
        *keep = SIZE_MAX;
    else
        for (v = *keep + 1; v <= maxd; v++)
            *dropped += lp[v];
    ctxprof__free(nb, NULL);
    ctxprof__free(lb, NULL);
    ctxprof__free(lp, NULL);
    return CTXPROF_OK;
}

/* The sink that streams a map's text to a file: the errno of a failed write. */
typedef struct ctxprof__icpp_out {
    int fd, err;
} ctxprof__icpp_out;

CTXPROF__PRIV int ctxprof__icpp_out_write(void *user, const char *data, size_t len)
{
    ctxprof__icpp_out *o = (ctxprof__icpp_out *)user;
    o->err = ctxprof__write_all(o->fd, (const unsigned char *)data, len);
    return o->err;
}

/* Writes the map (paths of at most keep functions) to path ("-": standard
   output) as it is made, a chunk at a time; a file is replaced atomically
   (ctxprof__atomic_open): on any failure it is left as it was. */
CTXPROF__PRIV int ctxprof__icpp_map_write(const struct ctxprof__icpp_mapdata *d, size_t keep,
                                          const char *path, ctxprof_error *err)
{
    ctxprof__atomic_file af;
    ctxprof__icpp_out o;
    ctxprof__sbuf b;
    int rc, out = strcmp(path, "-") == 0;
    if (out)
        o.fd = 1;
    else if ((rc = ctxprof__atomic_open(&af, path, err)) != CTXPROF_OK)
        return rc;
    else
        o.fd = af.fd;
    o.err = 0;
    memset(&b, 0, sizeof b);
    b.sink = ctxprof__icpp_out_write;
    b.sink_user = &o;
    rc = ctxprof__icpp_map_text_upto(d, keep, &b);
    ctxprof__free(b.p, NULL);
    if (out)
        return rc == CTXPROF_ERR_NOMEM ? ctxprof__fail(err, rc, 0, "<stdout>: out of memory")
               : rc ? ctxprof__fail(err, CTXPROF_ERR_SYS, o.err, "<stdout>: write failed")
                    : CTXPROF_OK;
    if (rc == CTXPROF_ERR_NOMEM) {
        ctxprof__atomic_commit(&af, ENOMEM, path, NULL); /* removes the temporary file */
        return ctxprof__fail(err, rc, 0, "%s: out of memory, file left unchanged", path);
    }
    return ctxprof__atomic_commit(&af, o.err, path, err);
}

CTXPROF_DEF int ctxprof_icpp_map_save(const ctxprof_icpp_map *m, const char *path,
                                      ctxprof_error *err)
{
    ctxprof__error_clear(err);
    if (!m || !m->d || !path)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "icpp: empty map or no file name");
    return ctxprof__icpp_map_write(m->d, SIZE_MAX, path, err);
}

CTXPROF_DEF long ctxprof_icpp_map_func(const ctxprof_icpp_map *m, const char *name)
{
    return m && m->d && name ? ctxprof__strtab_find(&m->d->names, name) : -1;
}

CTXPROF_DEF const char *ctxprof_icpp_map_func_name(const ctxprof_icpp_map *m, uint32_t func)
{
    return m && m->d && func < m->d->names.n ? m->d->names.names[func] : NULL;
}

CTXPROF_DEF size_t ctxprof_icpp_map_lookup(const ctxprof_icpp_map *m, uint32_t func,
                                           uint64_t height, const uint32_t **out_paths)
{
    const struct ctxprof__icpp_mapdata *d = m ? m->d : NULL;
    size_t j;
    if (out_paths)
        *out_paths = NULL;
    if (!d || !d->cslots)
        return 0;
    j = (size_t)ctxprof__icpp_ckey(func, height) & d->cmask;
    while (d->cslots[j]) {
        const ctxprof__icpp_cidrec *c = &d->cids[d->cslots[j] - 1];
        if (c->func == func && c->height == height) {
            if (out_paths)
                *out_paths = d->cand + c->first;
            return c->n;
        }
        j = (j + 1) & d->cmask;
    }
    return 0;
}

CTXPROF_DEF int ctxprof_icpp_map_path(const ctxprof_icpp_map *m, uint32_t path,
                                      ctxprof_icpp_path_info *out)
{
    const struct ctxprof__icpp_mapdata *d = m ? m->d : NULL;
    if (!d || path >= d->np || !out)
        return CTXPROF_ERR_RANGE;
    out->count = d->pcount[path];
    out->height = d->pheight[path];
    out->len = d->ndepth[d->pnode[path]];
    out->leaf = d->nfunc[d->pnode[path]];
    out->degree = d->cids[d->pcid[path]].n;
    out->key = d->pkey[path];
    return CTXPROF_OK;
}

/* ctxprof_icpp_map_path_funcs of a valid path. */
CTXPROF__PRIV size_t ctxprof__icpp_path_funcs(const struct ctxprof__icpp_mapdata *d, uint32_t path,
                                              uint32_t *out, size_t max)
{
    uint32_t v = d->pnode[path];
    size_t len = d->ndepth[v], i;
    for (i = len; v != 0; v = d->nparent[v]) {
        i--;
        if (i < max)
            out[i] = d->nfunc[v];
    }
    return len;
}

CTXPROF_DEF size_t ctxprof_icpp_map_path_funcs(const ctxprof_icpp_map *m, uint32_t path,
                                               uint32_t *out, size_t max)
{
    const struct ctxprof__icpp_mapdata *d = m ? m->d : NULL;
    return d && path < d->np ? ctxprof__icpp_path_funcs(d, path, out, max) : 0;
}

/* A path's names, root first, joined by '>' into buf (cut to fit size,
   NUL-terminated; the whole length is returned). Written from the end
   backwards after a pass that sums the lengths, so nothing is allocated
   unless demangle asks for C++ names as source spells them
   (ctxprof__demangle_alloc, once per name and pass). */
CTXPROF__PRIV size_t ctxprof__icpp_path_write(const struct ctxprof__icpp_mapdata *d, uint32_t path,
                                              char *buf, size_t size, int demangle)
{
    size_t total = 0, at = 0;
    int pass;
    for (pass = 0; pass < 2; pass++) {
        uint32_t v;
        for (v = d->pnode[path]; v != 0; v = d->nparent[v]) {
            const char *nm = d->names.names[d->nfunc[v]];
            char *dm = demangle ? ctxprof__demangle_alloc(nm) : NULL;
            const char *w = dm ? dm : nm;
            size_t n = strlen(w), k;
            if (pass == 0) {
                total += n + 1;
            } else {
                if (v != d->pnode[path]) {
                    at--;
                    if (at < size)
                        buf[at] = '>';
                }
                at -= n;
                for (k = 0; k < n; k++)
                    if (at + k < size)
                        buf[at + k] = w[k];
            }
            free(dm);
        }
        if (pass == 0)
            at = --total; /* separators: one fewer than names */
    }
    if (size)
        buf[total < size ? total : size - 1] = '\0';
    return total;
}

CTXPROF_DEF size_t ctxprof_icpp_map_path_str(const ctxprof_icpp_map *m, uint32_t path, char *buf,
                                             size_t size)
{
    const struct ctxprof__icpp_mapdata *d = m ? m->d : NULL;
    if (size)
        buf[0] = '\0';
    return d && path < d->np ? ctxprof__icpp_path_write(d, path, buf, size, 0) : 0;
}

CTXPROF_DEF size_t ctxprof_icpp_map_path_str_demangled(const ctxprof_icpp_map *m, uint32_t path,
                                                       char *buf, size_t size)
{
    const struct ctxprof__icpp_mapdata *d = m ? m->d : NULL;
    if (size)
        buf[0] = '\0';
    return d && path < d->np ? ctxprof__icpp_path_write(d, path, buf, size, 1) : 0;
}

/* --- call frame information: the CFA at every instruction --------------

   A function's SP is its body's only between its prologue and its
   epilogue, and not while it pushes arguments; its CFA (the caller's SP at
   the call) is the same at every instruction. bind reads the CFA rules of
   the map's functions (ctxprof_pebs.h's training: of those it records)
   from the loaded objects' .eh_frame, in memory (PT_GNU_EH_FRAME; every
   read bounded by the segment that holds it, so a malformed entry ends
   that object's table, never reads outside it), as rows "from pc on,
   CFA = SP or FP + off" (DWARF 5 sec. 6.4, the subset compilers emit for
   x86-64; a CFA expression or another register leaves the rule unknown).
   A sample's height is then base - CFA + its function's body offset
   (CFA - SP where training measured), whatever instruction it
   interrupted. */

#define CTXPROF__CFA_NONE 0u /* unknown, or past a function's end */
#define CTXPROF__CFA_FP 6u   /* DWARF register numbers, x86-64 */
#define CTXPROF__CFA_SP 7u

typedef struct ctxprof__cfi_rd { /* a reader that never passes end */
    const unsigned char *p, *end;
    int bad;
} ctxprof__cfi_rd;

CTXPROF__PRIV uint64_t ctxprof__cfi_u(ctxprof__cfi_rd *r, unsigned n)
{
    uint64_t v = 0;
    unsigned i;
    if (r->bad || (size_t)(r->end - r->p) < n) {
        r->bad = 1;
        return 0;
    }
    for (i = 0; i < n; i++)
        v |= (uint64_t)r->p[i] << (8 * i);
    r->p += n;
    return v;
}

/* LEB128, signed when sign is set. */
CTXPROF__PRIV uint64_t ctxprof__cfi_leb(ctxprof__cfi_rd *r, int sign)
{
    uint64_t v = 0;
    unsigned sh = 0, b;
    do {
        if (r->bad || r->p >= r->end) {
            r->bad = 1;
            return 0;
        }
        b = *r->p++;
        if (sh < 64)
            v |= (uint64_t)(b & 0x7fu) << sh;
        sh += 7;
    } while (b & 0x80u);
    if (sign && sh < 64 && (b & 0x40u))
        v |= ~(uint64_t)0 << sh;
    return v;
}

/* Skips a block: a ULEB128 length and that many bytes. */
CTXPROF__PRIV void ctxprof__cfi_skip(ctxprof__cfi_rd *r)
{
    uint64_t n = ctxprof__cfi_leb(r, 0);
    if (r->bad || n > (uint64_t)(r->end - r->p))
        r->bad = 1;
    else
        r->p += n;
}

/* A pointer in DW_EH_PE encoding enc: absolute, relative to where it is
   stored (pcrel) or to data (datarel: the .eh_frame_hdr). */
CTXPROF__PRIV uintptr_t ctxprof__cfi_ptr(ctxprof__cfi_rd *r, unsigned enc, uintptr_t data)
{
    uintptr_t at = (uintptr_t)r->p;
    uint64_t v;
    switch (enc & 0x0fu) {
    case 0x00: case 0x04: case 0x0c: v = ctxprof__cfi_u(r, 8); break;
    case 0x01: v = ctxprof__cfi_leb(r, 0); break;
    case 0x02: v = ctxprof__cfi_u(r, 2); break;
    case 0x03: v = ctxprof__cfi_u(r, 4); break;
    case 0x09: v = ctxprof__cfi_leb(r, 1); break;
    case 0x0a: v = (uint64_t)(int64_t)(int16_t)(uint16_t)ctxprof__cfi_u(r, 2); break;
    case 0x0b: v = (uint64_t)(int64_t)(int32_t)(uint32_t)ctxprof__cfi_u(r, 4); break;
    default: r->bad = 1; return 0;
    }
    if ((enc & 0x70u) == 0x10u)
        v += at;
    else if ((enc & 0x70u) == 0x30u)
        v += data;
    else if (enc & 0xf0u) /* text- or function-relative, indirect: not for code ranges */
        r->bad = 1;
    return (uintptr_t)v;
}

typedef struct ctxprof__cfi_cie {
    uint64_t code_align;
    int64_t data_align;
    unsigned fde_enc;
    int aug_z;
    const unsigned char *insn, *end; /* initial instructions */
} ctxprof__cfi_cie;

/* The CIE at p (inside [lo, hi)); 0, or -1 when malformed or unknown. */
CTXPROF__PRIV int ctxprof__cfi_cie_at(const unsigned char *p, const unsigned char *hi,
                                      ctxprof__cfi_cie *c)
{
    ctxprof__cfi_rd r;
    uint64_t len;
    const unsigned char *aug;
    unsigned ver;
    r.p = p;
    r.end = hi;
    r.bad = 0;
    len = ctxprof__cfi_u(&r, 4);
    if (len == 0xffffffffu)
        len = ctxprof__cfi_u(&r, 8);
    if (r.bad || len < 4 || len > (uint64_t)(hi - r.p))
        return -1;
    r.end = r.p + len;
    if (ctxprof__cfi_u(&r, 4) != 0)
        return -1; /* not a CIE */
    ver = (unsigned)ctxprof__cfi_u(&r, 1);
    aug = r.p;
    while (r.p < r.end && *r.p)
        r.p++;
    if (r.p >= r.end || (ver != 1 && ver != 3) || (aug[0] && aug[0] != 'z'))
        return -1; /* an "eh" augmentation (pre-2000 gcc) or another version */
    r.p++;
    c->code_align = ctxprof__cfi_leb(&r, 0);
    c->data_align = (int64_t)ctxprof__cfi_leb(&r, 1);
    if (ver == 1)
        ctxprof__cfi_u(&r, 1); /* return address register */
    else
        ctxprof__cfi_leb(&r, 0);
    c->fde_enc = 0;
    c->aug_z = aug[0] == 'z';
    if (c->aug_z) {
        uint64_t alen = ctxprof__cfi_leb(&r, 0);
        const unsigned char *aend;
        size_t k;
        if (r.bad || alen > (uint64_t)(r.end - r.p))
            return -1;
        aend = r.p + alen;
        for (k = 1; aug[k] && !r.bad; k++) {
            if (aug[k] == 'R')
                c->fde_enc = (unsigned)ctxprof__cfi_u(&r, 1);
            else if (aug[k] == 'P') /* personality: its size only */
                ctxprof__cfi_ptr(&r, (unsigned)ctxprof__cfi_u(&r, 1) & 0x0fu, 0);
            else if (aug[k] == 'L')
                ctxprof__cfi_u(&r, 1);
            else if (aug[k] != 'S' && aug[k] != 'B')
                break; /* unknown: the length skips its data */
        }
        if (r.bad || r.p > aend)
            return -1;
        r.p = aend;
    }
    c->insn = r.p;
    c->end = r.end;
    return r.bad || c->code_align == 0 ? -1 : 0;
}

typedef struct ctxprof__cfi_rows {
    ctxprof__icpp_cfa *row;
    size_t n, cap, first; /* first: the current FDE's first row */
    int nomem;
    void *user; /* passed to CTXPROF_MALLOC/FREE */
} ctxprof__cfi_rows;

/* The rule reg + off from pc on (replacing a row of the same FDE at the
   same pc; nothing when the rule does not change). */
CTXPROF__PRIV void ctxprof__cfi_emit(ctxprof__cfi_rows *o, uintptr_t pc, uint32_t reg, int64_t off)
{
    ctxprof__icpp_cfa *last = o->n > o->first ? &o->row[o->n - 1] : NULL;
    if (reg == CTXPROF__CFA_NONE || off < INT32_MIN || off > INT32_MAX) {
        reg = CTXPROF__CFA_NONE;
        off = 0;
    }
    if (last && last->pc == pc) {
        last->reg = reg;
        last->off = (int32_t)off;
        return;
    }
    if (last && last->reg == reg && last->off == off)
        return;
    if (ctxprof__reserve((void **)&o->row, &o->cap, o->n, o->n + 1, sizeof *o->row, o->user)) {
        o->nomem = 1;
        return;
    }
    o->row[o->n].pc = pc;
    o->row[o->n].reg = reg;
    o->row[o->n].off = (int32_t)off;
    o->n++;
}

/* A factored offset (an SLEB128 v times the data alignment); out of every
   rule's range (INT64_MAX) where it would overflow. */
CTXPROF__PRIV int64_t ctxprof__cfi_scale(uint64_t v, int64_t align)
{
    int64_t x = (int64_t)v;
    if (x > INT32_MAX || x < INT32_MIN || align > INT32_MAX || align < INT32_MIN)
        return INT64_MAX;
    return x * align;
}

CTXPROF__PRIV uint32_t ctxprof__cfi_reg(uint64_t dwarf)
{
    return dwarf == CTXPROF__CFA_SP || dwarf == CTXPROF__CFA_FP ? (uint32_t)dwarf
                                                                  : CTXPROF__CFA_NONE;
}

/* Runs CFA instructions (the CIE's initial ones with o NULL: the rule
   only); with o, emits a row at each advance of *loc. Returns 0, or -1
   at an instruction it cannot follow. */
CTXPROF__PRIV int ctxprof__cfi_run(ctxprof__cfi_rd *r, const ctxprof__cfi_cie *c, uintptr_t data,
                                   uintptr_t *loc, uint32_t *reg, int64_t *off,
                                   ctxprof__cfi_rows *o)
{
    uint32_t sreg[8];
    int64_t soff[8];
    unsigned ns = 0;
    while (r->p < r->end && !r->bad) {
        unsigned op = *r->p++;
        uint64_t adv;
        if (op >> 6 == 1u) {
            adv = op & 0x3fu; /* advance_loc */
        } else if (op >> 6 == 2u) {
            ctxprof__cfi_leb(r, 0); /* offset: where a register is saved */
            continue;
        } else if (op >> 6 == 3u) {
            continue; /* restore a register's rule */
        } else {
            switch (op) {
            case 0x00: continue; /* nop */
            case 0x01: { /* set_loc */
                uintptr_t to = ctxprof__cfi_ptr(r, c->fde_enc, data);
                if (o)
                    ctxprof__cfi_emit(o, *loc, *reg, *off);
                *loc = to;
                continue;
            }
            case 0x02: adv = ctxprof__cfi_u(r, 1); break; /* advance_loc1..4 */
            case 0x03: adv = ctxprof__cfi_u(r, 2); break;
            case 0x04: adv = ctxprof__cfi_u(r, 4); break;
            case 0x05: case 0x09: case 0x14: case 0x2f: /* register rules: two ULEB128 */
                ctxprof__cfi_leb(r, 0);
                ctxprof__cfi_leb(r, 0);
                continue;
            case 0x11: case 0x15: /* offset_extended_sf, val_offset_sf */
                ctxprof__cfi_leb(r, 0);
                ctxprof__cfi_leb(r, 1);
                continue;
            case 0x06: case 0x07: case 0x08: case 0x2e: /* one ULEB128; GNU_args_size */
                ctxprof__cfi_leb(r, 0);
                continue;
            case 0x10: case 0x16: /* (val_)expression: a register and a block */
                ctxprof__cfi_leb(r, 0);
                ctxprof__cfi_skip(r);
                continue;
            case 0x0a: /* remember_state */
                if (ns == 8)
                    return -1;
                sreg[ns] = *reg;
                soff[ns++] = *off;
                continue;
            case 0x0b: /* restore_state */
                if (ns == 0)
                    return -1;
                *reg = sreg[--ns];
                *off = soff[ns];
                continue;
            case 0x0c: /* def_cfa */
                *reg = ctxprof__cfi_reg(ctxprof__cfi_leb(r, 0));
                *off = (int64_t)ctxprof__cfi_leb(r, 0);
                continue;
            case 0x12: /* def_cfa_sf */
                *reg = ctxprof__cfi_reg(ctxprof__cfi_leb(r, 0));
                *off = ctxprof__cfi_scale(ctxprof__cfi_leb(r, 1), c->data_align);
                continue;
            case 0x0d: /* def_cfa_register */
                *reg = ctxprof__cfi_reg(ctxprof__cfi_leb(r, 0));
                continue;
            case 0x0e: /* def_cfa_offset */
                *off = (int64_t)ctxprof__cfi_leb(r, 0);
                continue;
            case 0x13: /* def_cfa_offset_sf */
                *off = ctxprof__cfi_scale(ctxprof__cfi_leb(r, 1), c->data_align);
                continue;
            case 0x0f: /* def_cfa_expression: computed, unknown here */
                *reg = CTXPROF__CFA_NONE;
                ctxprof__cfi_skip(r);
                continue;
            default:
                return -1;
            }
        }
        if (o)
            ctxprof__cfi_emit(o, *loc, *reg, *off);
        *loc += (uintptr_t)(adv * c->code_align);
    }
    return r->bad ? -1 : 0;
}

typedef struct ctxprof__cfi_ctx {
    const ctxprof__icpp_pcrange *pcs; /* the functions wanted (a map's), by start */
    size_t npcs;
    ctxprof__cfi_rows out;
} ctxprof__cfi_ctx;

/* Whether [lo, hi) overlaps a wanted function. */
CTXPROF__PRIV int ctxprof__cfi_wanted(const ctxprof__cfi_ctx *x, uintptr_t lo, uintptr_t hi)
{
    size_t a = 0, b = x->npcs;
    while (a < b) {
        size_t mid = a + (b - a) / 2;
        if (x->pcs[mid].end <= lo)
            a = mid + 1;
        else
            b = mid;
    }
    return a < x->npcs && x->pcs[a].start < hi;
}

/* The rows of the FDEs in .eh_frame at p, inside [lo, hi), that cover a
   wanted function; hdr: the .eh_frame_hdr (datarel base). */
CTXPROF__PRIV void ctxprof__cfi_eh_frame(ctxprof__cfi_ctx *x, const unsigned char *p,
                                         const unsigned char *lo, const unsigned char *hi,
                                         uintptr_t hdr)
{
    while ((size_t)(hi - p) >= 8 && !x->out.nomem) {
        ctxprof__cfi_rd r;
        ctxprof__cfi_cie c;
        uint64_t len, id;
        const unsigned char *idp;
        uintptr_t begin, range, loc;
        uint32_t reg = CTXPROF__CFA_NONE;
        int64_t off = 0;
        r.p = p;
        r.end = hi;
        r.bad = 0;
        len = ctxprof__cfi_u(&r, 4);
        if (len == 0)
            break; /* the terminator */
        if (len == 0xffffffffu)
            len = ctxprof__cfi_u(&r, 8);
        if (r.bad || len < 4 || len > (uint64_t)(hi - r.p))
            break;
        p = r.p + len;
        r.end = p;
        idp = r.p;
        id = ctxprof__cfi_u(&r, 4);
        if (id == 0 || id > (uint64_t)(idp - lo) || ctxprof__cfi_cie_at(idp - id, hi, &c))
            continue; /* a CIE, or an FDE without a usable one */
        begin = ctxprof__cfi_ptr(&r, c.fde_enc, hdr);
        range = ctxprof__cfi_ptr(&r, c.fde_enc & 0x0fu, 0);
        if (r.bad || range == 0 || begin + range < begin ||
            !ctxprof__cfi_wanted(x, begin, begin + range))
            continue;
        if (c.aug_z)
            ctxprof__cfi_skip(&r);
        {
            ctxprof__cfi_rd ci;
            ci.p = c.insn;
            ci.end = c.end;
            ci.bad = 0;
            loc = begin;
            if (ctxprof__cfi_run(&ci, &c, hdr, &loc, &reg, &off, NULL))
                continue;
        }
        x->out.first = x->out.n;
        if (ctxprof__cfi_run(&r, &c, hdr, &loc, &reg, &off, &x->out) == 0 && loc < begin + range)
            ctxprof__cfi_emit(&x->out, loc, reg, off);
        else if (loc < begin + range) /* rules unknown from where they stopped */
            ctxprof__cfi_emit(&x->out, loc, CTXPROF__CFA_NONE, 0);
        ctxprof__cfi_emit(&x->out, begin + range, CTXPROF__CFA_NONE, 0);
    }
}

#if defined(CTXPROF__HAVE_SYMTAB)
/* The readable loaded segment of object `in` holding a: [*lo, *hi). */
CTXPROF__PRIV int ctxprof__cfi_segment(const struct ctxprof__dl_info *in, uintptr_t a,
                                       const unsigned char **lo, const unsigned char **hi)
{
    uint16_t i;
    for (i = 0; i < in->phnum; i++) {
        const ctxprof__phdr *ph = &in->phdr[i];
        uintptr_t s = in->addr + (uintptr_t)ph->vaddr;
        if (ph->type == 1 && (ph->flags & 4u) && a >= s && a - s < ph->memsz) { /* PT_LOAD, PF_R */
            *lo = (const unsigned char *)s;
            *hi = (const unsigned char *)(s + (uintptr_t)ph->memsz);
            return 1;
        }
    }
    return 0;
}

CTXPROF__PRIV int ctxprof__cfi_object(struct ctxprof__dl_info *in, size_t size, void *data)
{
    ctxprof__cfi_ctx *x = (ctxprof__cfi_ctx *)data;
    const unsigned char *lo, *hi;
    ctxprof__cfi_rd r;
    uintptr_t hdr = 0, eh;
    uint16_t i;
    (void)size;
    for (i = 0; i < in->phnum; i++)
        if (in->phdr[i].type == 0x6474e550u) /* PT_GNU_EH_FRAME: the .eh_frame_hdr */
            hdr = in->addr + (uintptr_t)in->phdr[i].vaddr;
    if (!hdr || !ctxprof__cfi_segment(in, hdr, &lo, &hi))
        return 0;
    r.p = (const unsigned char *)hdr;
    r.end = hi;
    r.bad = 0;
    if (ctxprof__cfi_u(&r, 1) != 1)
        return 0; /* version */
    {
        unsigned enc = (unsigned)ctxprof__cfi_u(&r, 1);
        ctxprof__cfi_u(&r, 2); /* the table's encodings: its search table is not used */
        eh = ctxprof__cfi_ptr(&r, enc, hdr);
    }
    if (!r.bad && ctxprof__cfi_segment(in, eh, &lo, &hi))
        ctxprof__cfi_eh_frame(x, (const unsigned char *)eh, lo, hi, hdr);
    return x->out.nomem;
}
#endif

CTXPROF__PRIV int ctxprof__cfa_cmp(const void *a, const void *b)
{
    const ctxprof__icpp_cfa *x = (const ctxprof__icpp_cfa *)a, *y = (const ctxprof__icpp_cfa *)b;
    if (x->pc != y->pc)
        return x->pc < y->pc ? -1 : 1;
    /* a function's end before the next one's start at the same address */
    return (x->reg != CTXPROF__CFA_NONE) - (y->reg != CTXPROF__CFA_NONE);
}

/* The CFA rules of the loaded objects' code that covers the functions
   pcs[n] (sorted by start), sorted by pc, into *rows[*nrows] (allocated
   with user; the caller frees them). An object without PT_GNU_EH_FRAME
   gives none. 0, or CTXPROF_ERR_NOMEM (then nothing is left allocated). */
CTXPROF__PRIV int ctxprof__cfi_load(const ctxprof__icpp_pcrange *pcs, size_t n, void *user,
                                    ctxprof__icpp_cfa **rows, size_t *nrows)
{
    ctxprof__cfi_ctx x;
    memset(&x, 0, sizeof x);
    x.pcs = pcs;
    x.npcs = n;
    x.out.user = user;
#if defined(CTXPROF__HAVE_SYMTAB)
    ctxprof__dl_iterate_phdr(ctxprof__cfi_object, &x);
#endif
    *rows = NULL;
    *nrows = 0;
    if (x.out.nomem) {
        ctxprof__free(x.out.row, user);
        return CTXPROF_ERR_NOMEM;
    }
    if (x.out.n > 1)
        qsort(x.out.row, x.out.n, sizeof *x.out.row, ctxprof__cfa_cmp);
    *rows = x.out.row;
    *nrows = x.out.n;
    return CTXPROF_OK;
}

/* The CFA rule at pc among rows[n] (sorted by pc): the last row at or
   before it (NULL: none). */
CTXPROF__PRIV const ctxprof__icpp_cfa *ctxprof__icpp_cfa_at(const ctxprof__icpp_cfa *rows,
                                                            size_t n, uintptr_t pc)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (rows[mid].pc <= pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? &rows[lo - 1] : NULL;
}

/* --- binding to the process's symbols, and resolving samples ------------ */

/* Each function's body offset, CFA - SP where training measured its
   heights: its "body" line (training found its return address's slot,
   ctxprof__icpp_body_at) or the smallest difference between the height of
   one of its nodes and its parent's, whichever is smaller. A caller's SP
   only goes down from where its own height was measured to its calls
   (pads, wraps, stack arguments, alloca), so every difference is the body
   offset plus what the caller put there, and the smallest is exact once
   one caller calls it with nothing below (the most common one is not,
   when most callers are padded or wrapped); neither is ever too small.
   0 when neither is known. */
CTXPROF__PRIV void ctxprof__icpp_body_offsets(const struct ctxprof__icpp_mapdata *d, uint32_t *fbody)
{
    size_t n;
    for (n = 0; n < d->rbcap && n < d->names.n; n++)
        fbody[n] = d->rbody[n];
    for (n = 1; n < d->nn; n++) {
        uint32_t par = d->nparent[n], f = d->nfunc[n];
        uint64_t h = d->nheight[n], hp = par ? d->nheight[par] : CTXPROF_ICPP_NO_HEIGHT;
        if (h != CTXPROF_ICPP_NO_HEIGHT && hp != CTXPROF_ICPP_NO_HEIGHT && h > hp &&
            h - hp <= UINT32_MAX && (!fbody[f] || h - hp < fbody[f]))
            fbody[f] = (uint32_t)(h - hp);
    }
}

/* Reads the CFA rules and body offsets of the bound functions b->pcs into
   b; 0 or CTXPROF_ERR_NOMEM. */
CTXPROF__PRIV int ctxprof__icpp_bind_cfa(const struct ctxprof__icpp_mapdata *d,
                                         ctxprof__icpp_bound *b, size_t *out_funcs)
{
    uint32_t *fbody = (uint32_t *)ctxprof__zalloc(d->names.n + 1, sizeof *fbody, NULL);
    uint8_t *seen = (uint8_t *)ctxprof__zalloc(d->names.n + 1, 1, NULL);
    const ctxprof__icpp_pcrange *pcs = b->pcs;
    size_t i, n = b->npcs;
    if (!fbody || !seen || ctxprof__cfi_load(pcs, n, NULL, &b->cfa, &b->ncfa)) {
        ctxprof__free(fbody, NULL);
        ctxprof__free(seen, NULL);
        return CTXPROF_ERR_NOMEM;
    }
    ctxprof__icpp_body_offsets(d, fbody);
    b->fbody = fbody;
    *out_funcs = 0;
    for (i = 0; i < n; i++) { /* functions with a body offset and a rule at their entry */
        const ctxprof__icpp_cfa *c = ctxprof__icpp_cfa_at(b->cfa, b->ncfa, pcs[i].start);
        if (fbody[pcs[i].func] && c && c->reg != CTXPROF__CFA_NONE && !seen[pcs[i].func]++)
            ++*out_funcs;
    }
    ctxprof__free(seen, NULL);
    return CTXPROF_OK;
}

/* A sample's height in map function f: base - CFA + the body offset where
   both are known, else base - SP. */
CTXPROF__PRIV uint64_t ctxprof__icpp_height_at(const struct ctxprof__icpp_mapdata *d, uint32_t f,
                                               uintptr_t pc, uintptr_t sp, uintptr_t fp,
                                               uintptr_t base)
{
    uint64_t h = ctxprof_icpp_height(sp, base);
    const ctxprof__icpp_bound *b = ctxprof__icpp_bound_of(d);
    const ctxprof__icpp_cfa *c;
    uintptr_t cfa;
    if (h == CTXPROF_ICPP_NO_HEIGHT || d->no_cfa || !b || !b->fbody || !b->fbody[f])
        return h;
    c = ctxprof__icpp_cfa_at(b->cfa, b->ncfa, pc);
    if (!c || c->reg == CTXPROF__CFA_NONE)
        return h;
    if (c->reg == CTXPROF__CFA_FP && (fp < sp || fp >= base))
        return h; /* no frame of this stack in FP */
    cfa = (c->reg == CTXPROF__CFA_SP ? sp : fp) + (uintptr_t)(intptr_t)c->off;
    if (cfa <= sp || cfa > base)
        return h;
    return (uint64_t)(base - cfa) + b->fbody[f];
}


CTXPROF_DEF int ctxprof_icpp_map_bind(ctxprof_icpp_map *m, const ctxprof_symtab *st,
                                      ctxprof_error *err)
{
    struct ctxprof__icpp_mapdata *d = m ? m->d : NULL;
    ctxprof__icpp_bound *b, *old;
    ctxprof__icpp_pcrange *r;
    size_t i, n = 0, funcs;
    char here[81];
    ctxprof__error_clear(err);
    if (!d || !st)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "icpp: bind needs a loaded map and symbols");
    ctxprof__icpp_build_hex(st, here);
    if (d->build[0] && here[0] && strcmp(d->build, here) != 0)
        return ctxprof__fail(err, CTXPROF_ERR_MISMATCH, 0,
                             "icpp: the path map was trained by another build (build id "
                             "%.12s..., this executable %.12s...): heights belong to one "
                             "build; retrain this one",
                             d->build, here);
    r = (ctxprof__icpp_pcrange *)ctxprof__alloc(st->count ? st->count : 1, sizeof *r, NULL);
    if (!r)
        return ctxprof__fail(err, CTXPROF_ERR_NOMEM, 0, "icpp: out of memory");
    for (i = 0; i < st->count; i++) { /* sorted by start already */
        const struct ctxprof__sym *e = &st->syms[i];
        const char *nm = ctxprof_symtab_name(st, e->func);
        long f = nm ? ctxprof__strtab_find(&d->names, nm) : -1;
        if (f < 0)
            continue;
        r[n].start = e->start;
        r[n].end = e->end;
        r[n].func = (uint32_t)f;
        n++;
    }
    if (n == 0 && d->names.n > 0) {
        ctxprof__free(r, NULL);
        return ctxprof__fail(err, CTXPROF_ERR_MISMATCH, 0,
                             "icpp: none of the path map's %zu functions is in this process "
                             "(a map of another program?)",
                             d->names.n);
    }
    b = (ctxprof__icpp_bound *)ctxprof__zalloc(1, sizeof *b, NULL);
    if (b) {
        b->pcs = r;
        b->npcs = n;
    }
    if (!b || ctxprof__icpp_bind_cfa(d, b, &funcs)) {
        if (b)
            ctxprof__icpp_bound_free(b);
        else
            ctxprof__free(r, NULL);
        return ctxprof__fail(err, CTXPROF_ERR_NOMEM, 0, "icpp: out of memory");
    }
    /* the sampler's handler may be reading the old tables (desc.map) */
    old = __atomic_exchange_n(&d->bound, b, __ATOMIC_SEQ_CST);
    if (old) {
        ctxprof__icpp_sync();
        ctxprof__icpp_bound_free(old);
    }
    m->cfa_funcs = funcs;
    return CTXPROF_OK;
}

CTXPROF_DEF void ctxprof_icpp_map_use_cfa(ctxprof_icpp_map *m, int on)
{
    if (m && m->d)
        m->d->no_cfa = !on;
}

CTXPROF_DEF uint64_t ctxprof_icpp_map_height(const ctxprof_icpp_map *m, uintptr_t pc, uintptr_t sp,
                                             uintptr_t fp, uintptr_t base)
{
    long f = ctxprof_icpp_map_func_of_pc(m, pc);
    return f < 0 ? ctxprof_icpp_height(sp, base)
                 : ctxprof__icpp_height_at(m->d, (uint32_t)f, pc, sp, fp, base);
}

CTXPROF_DEF long ctxprof_icpp_map_func_of_pc(const ctxprof_icpp_map *m, uintptr_t pc)
{
    const ctxprof__icpp_bound *b = m && m->d ? ctxprof__icpp_bound_of(m->d) : NULL;
    size_t lo = 0, hi;
    if (!b || !b->npcs)
        return -1;
    hi = b->npcs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (b->pcs[mid].start <= pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo && pc < b->pcs[lo - 1].end ? (long)b->pcs[lo - 1].func : -1;
}

/* Next frame of a walk: live from the frame-pointer chain (bounds-checked
   against [sp, base], strictly upward) or from saved words. Returns 1 with
   *ra and *cfa, 0 when the chain ends or looks corrupt. */
typedef struct ctxprof__icpp_walk {
    uintptr_t fp, sp, base;
    const ctxprof_icpp_frames *saved;
    unsigned k;
} ctxprof__icpp_walk;

CTXPROF__PRIV int ctxprof__icpp_walk_next(ctxprof__icpp_walk *w, uintptr_t *ra, uintptr_t *cfa)
{
    if (w->saved) {
        if (w->k >= w->saved->n || w->k >= CTXPROF_ICPP_FRAMES)
            return 0;
        *ra = w->saved->ra[w->k];
        *cfa = w->saved->cfa[w->k];
        w->k++;
        return 1;
    }
    if (w->fp < w->sp || w->fp % sizeof(uintptr_t) != 0 || w->base < 2 * sizeof(uintptr_t) ||
        w->fp > w->base - 2 * sizeof(uintptr_t))
        return 0;
    *ra = ((const uintptr_t *)w->fp)[1];
    *cfa = w->fp + 2 * sizeof(uintptr_t);
    {
        uintptr_t up = ((const uintptr_t *)w->fp)[0];
        w->sp = w->fp + 1; /* the next frame must be strictly above */
        w->fp = up;
    }
    w->k++;
    return 1;
}

CTXPROF_DEF void ctxprof_icpp_save_frames(uintptr_t sp, uintptr_t base, uintptr_t fp,
                                          unsigned max, ctxprof_icpp_frames *frames)
{
    ctxprof__icpp_walk w;
    uintptr_t ra, cfa;
    frames->n = 0;
    if (max > CTXPROF_ICPP_FRAMES)
        max = CTXPROF_ICPP_FRAMES;
    w.fp = fp;
    w.sp = sp;
    w.base = base;
    w.saved = NULL;
    w.k = 0;
    while (frames->n < max && ctxprof__icpp_walk_next(&w, &ra, &cfa)) {
        frames->ra[frames->n] = ra;
        frames->cfa[frames->n] = cfa;
        frames->n++;
        if (cfa > base)
            break;
    }
}

#define CTXPROF__ICPP_WALK_MAX 256 /* candidates a walk can follow */

/* Where a walk's frames come from: the live stack (the frame-pointer chain,
   and targeted reads of return addresses at heights the map knows), saved
   frame words (in order, and looked up by height for targeted reads), or
   - to measure walks offline - the map itself, with one of its paths as
   the truth. nh: the heights of the nodes (the map's, or padded ones). */
typedef struct ctxprof__icpp_src {
    const ctxprof_icpp_map *m;
    const uint64_t *nh;
    ctxprof__icpp_walk w;
    int targeted;   /* targeted reads allowed (live stack, saved words, or simulated) */
    uint32_t truth; /* simulation: the true path's node, else NONE */
    uint32_t tnode; /* simulation: where the sequential walk is on it */
    ctxprof_icpp_frames *rec; /* live: the words targeted reads read go here (at most rec_max) */
    unsigned rec_max;
} ctxprof__icpp_src;

/* Sequential: the next frame's map function (-1: not in the map) and
   height; 1, or 2 when the frame is past the base (the stack's end), or 0
   when the chain ends. */
CTXPROF__PRIV int ctxprof__icpp_src_next(ctxprof__icpp_src *src, long *g, uint64_t *height)
{
    const struct ctxprof__icpp_mapdata *d = src->m->d;
    uintptr_t ra, cfa;
    if (src->truth != CTXPROF__ICPP_NONE) {
        if (src->tnode == 0)
            return 0;
        src->tnode = d->nparent[src->tnode];
        if (src->tnode == 0)
            return 2;
        *g = (long)d->nfunc[src->tnode];
        *height = src->nh[src->tnode];
        return 1;
    }
    if (!ctxprof__icpp_walk_next(&src->w, &ra, &cfa))
        return 0;
    if (cfa > src->w.base)
        return 2;
    *g = ctxprof_icpp_map_func_of_pc(src->m, ra - 1);
    *height = (uint64_t)(src->w.base - cfa);
    return 1;
}

/* Targeted: the map function of the frame whose caller-side SP is at
   height h, `level` frames above the sampled one, from the return address
   the call pushed just below it (base - h - 8, read only inside [sp,
   base]; from saved words, the word whose cfa is base - h). 1 with *g (-1:
   not a mapped function), 0 when it cannot read. */
CTXPROF__PRIV int ctxprof__icpp_src_at(const ctxprof__icpp_src *src, uint64_t h, unsigned level,
                                       long *g)
{
    const struct ctxprof__icpp_mapdata *d = src->m->d;
    uintptr_t slot;
    if (src->truth != CTXPROF__ICPP_NONE) {
        uint32_t n = src->truth;
        unsigned k;
        for (k = 0; k < level && n != 0; k++)
            n = d->nparent[n];
        *g = n != 0 && (src->nh[n] == h || src->nh[n] == CTXPROF_ICPP_NO_HEIGHT)
                 ? (long)d->nfunc[n]
                 : -1;
        return 1;
    }
    if (!src->targeted || h > (uint64_t)src->w.base)
        return 0;
    if (src->w.saved) {
        const ctxprof_icpp_frames *fr = src->w.saved;
        uint32_t k, n = fr->n < CTXPROF_ICPP_FRAMES ? fr->n : CTXPROF_ICPP_FRAMES;
        for (k = 0; k < n; k++)
            if (fr->cfa[k] == src->w.base - (uintptr_t)h) {
                *g = ctxprof_icpp_map_func_of_pc(src->m, fr->ra[k] - 1);
                return 1;
            }
        return 0;
    }
    if (h > (uint64_t)(src->w.base - src->w.sp) ||
        (uint64_t)(src->w.base - src->w.sp) - h < sizeof(uintptr_t))
        return 0;
    slot = src->w.base - (uintptr_t)h - sizeof(uintptr_t);
    if (slot < src->w.sp || slot % sizeof(uintptr_t) != 0)
        return 0;
    if (src->rec && src->rec->n < src->rec_max) {
        src->rec->ra[src->rec->n] = *(const uintptr_t *)slot;
        src->rec->cfa[src->rec->n] = slot + sizeof(uintptr_t);
        src->rec->n++;
    }
    *g = ctxprof_icpp_map_func_of_pc(src->m, *(const uintptr_t *)slot - 1);
    return 1;
}

/* The height of the CFA of node u's frame (its return address lies just
   below): its caller's height hp when the caller pushed nothing below it
   for the call; u's height minus its body offset when that is known, so
   that a call from inside a CTXPROF_ICPP_CALL wrap (or with stack
   arguments) is read where it pushed its return address. Frames read from
   a stack only (a simulation reads the map's heights). */
CTXPROF__PRIV uint64_t ctxprof__icpp_cfa_height(const ctxprof__icpp_src *src, uint32_t u,
                                                uint64_t hp)
{
    const struct ctxprof__icpp_mapdata *d = src->m->d;
    const ctxprof__icpp_bound *bd = ctxprof__icpp_bound_of(d);
    uint64_t h = src->nh[u], b;
    if (src->truth != CTXPROF__ICPP_NONE || src->nh != d->nheight || !bd || !bd->fbody ||
        h == CTXPROF_ICPP_NO_HEIGHT)
        return hp;
    b = bd->fbody[d->nfunc[u]];
    return b && h >= b && h - b > hp ? h - b : hp;
}

/* Paper 6.4: narrows the candidates cand[0..n) of a CID (n <= WALK_MAX) by
   reading as few frames as it can, at most max_walk; the survivors go to
   alive[], their number is returned, *walked gets the frames read.

   Targeted reads first: candidates with the same leaf and height have the
   same ancestors' heights until their functions differ (frames are fixed
   per function), so no frame below the first level where their ancestors
   differ can tell them apart, and the map knows that level's height: one
   read of the return address there keeps the candidates whose ancestor is
   that function; repeat on the survivors. When the heights are not known
   (or not live), a sequential walk from the first frame: each frame whose
   function is in the map must be every surviving candidate's next
   ancestor, with its height when the map knows it; unmapped frames
   (library code between mapped functions) are skipped. */
CTXPROF__PRIV size_t ctxprof__icpp_narrow(ctxprof__icpp_src *src, const uint32_t *cand, size_t n,
                                          unsigned max_walk, uint32_t *alive, uint32_t *walked)
{
    const struct ctxprof__icpp_mapdata *d = src->m->d;
    const uint64_t *nh = src->nh;
    uint32_t anc[CTXPROF__ICPP_WALK_MAX];
    size_t na = n, i, keep;
    unsigned level = 0;
    for (i = 0; i < n; i++) {
        alive[i] = cand[i];
        anc[i] = d->pnode[cand[i]];
    }
    *walked = 0;
    while (src->targeted && na > 1 && *walked < max_walk) {
        uint32_t u0, f0;
        uint64_t rh;
        int same, measured;
        long g;
        for (;;) { /* climb while every candidate's ancestor is the same */
            u0 = d->nparent[anc[0]];
            same = 1;
            for (i = 1; i < na && same; i++) {
                uint32_t ui = d->nparent[anc[i]];
                same = (ui == 0) == (u0 == 0) &&
                       (u0 == 0 || (d->nfunc[ui] == d->nfunc[u0] && nh[ui] == nh[u0]));
            }
            if (!same || u0 == 0)
                break;
            for (i = 0; i < na; i++)
                anc[i] = d->nparent[anc[i]];
            level++;
        }
        if (same)
            break;
        /* one known height to read at: the CFA of this level's frames (one
           function at one height in every candidate), where their callers
           share a height or, once training measured the function's body
           offset (its "body" line: a step's may be too large), where
           callers at different heights called it from one depth (stack
           arguments, wraps) */
        f0 = d->nfunc[anc[0]];
        measured = d->rbody && f0 < d->rbcap && d->rbody[f0] != 0;
        rh = nh[u0] == CTXPROF_ICPP_NO_HEIGHT ? CTXPROF_ICPP_NO_HEIGHT
                                              : ctxprof__icpp_cfa_height(src, anc[0], nh[u0]);
        for (i = 0; i < na; i++) {
            uint32_t ui = d->nparent[anc[i]];
            if (ui == 0 || nh[ui] == CTXPROF_ICPP_NO_HEIGHT ||
                (nh[ui] != nh[u0] &&
                 (!measured || ctxprof__icpp_cfa_height(src, anc[i], nh[ui]) != rh)))
                break;
        }
        if (i < na || !ctxprof__icpp_src_at(src, rh, level + 1, &g))
            break;
        (*walked)++;
        level++;
        for (i = 0, keep = 0; i < na; i++) {
            uint32_t ui = d->nparent[anc[i]];
            if ((long)d->nfunc[ui] == g) {
                alive[keep] = alive[i];
                anc[keep] = ui;
                keep++;
            }
        }
        na = keep;
    }
    if (na <= 1 || *walked >= max_walk)
        return na;
    for (i = 0; i < na; i++)
        anc[i] = d->pnode[alive[i]];
    while (na > 1 && *walked < max_walk) {
        long g = -1;
        uint64_t height = CTXPROF_ICPP_NO_HEIGHT;
        int r = ctxprof__icpp_src_next(src, &g, &height);
        if (r == 0)
            break;
        (*walked)++;
        if (r == 1 && g < 0)
            continue;
        for (i = 0, keep = 0; i < na; i++) {
            uint32_t up = d->nparent[anc[i]];
            int ok = r == 2 ? up == 0
                            : up != 0 && (long)d->nfunc[up] == g &&
                                  (nh[up] == CTXPROF_ICPP_NO_HEIGHT ||
                                   height == CTXPROF_ICPP_NO_HEIGHT ||
                                   ctxprof__icpp_cfa_height(src, anc[i], nh[up]) == height);
            if (ok) {
                alive[keep] = alive[i];
                anc[keep] = up;
                keep++;
            }
        }
        na = keep;
        if (r == 2)
            break;
    }
    return na;
}

/* ctxprof_icpp_resolve; the words its targeted reads read on the live
   stack go to rec (when not NULL, at most rec_max of them). */
CTXPROF__PRIV int ctxprof__icpp_resolve(const ctxprof_icpp_map *m, uintptr_t pc, uintptr_t sp,
                                        uintptr_t base, uintptr_t fp,
                                        const ctxprof_icpp_frames *frames, unsigned max_walk,
                                        ctxprof_icpp_result *r, ctxprof_icpp_frames *rec,
                                        unsigned rec_max)
{
    uint32_t alive[CTXPROF__ICPP_WALK_MAX];
    ctxprof__icpp_src src;
    size_t n, na;
    long f;
    memset(r, 0, sizeof *r);
    r->func = CTXPROF__ICPP_NONE;
    r->path = CTXPROF__ICPP_NONE;
    f = ctxprof_icpp_map_func_of_pc(m, pc);
    if (f < 0)
        return r->kind = CTXPROF_ICPP_OUTSIDE;
    r->func = (uint32_t)f;
    r->height = ctxprof__icpp_height_at(m->d, (uint32_t)f, pc, sp, fp, base);
    if (r->height == CTXPROF_ICPP_NO_HEIGHT)
        return r->kind = CTXPROF_ICPP_NOBASE;
    n = ctxprof_icpp_map_lookup(m, (uint32_t)f, r->height, &r->candidates);
    if (n == 0 && r->height != ctxprof_icpp_height(sp, base)) { /* a body offset off (below) */
        r->height = ctxprof_icpp_height(sp, base);
        n = ctxprof_icpp_map_lookup(m, (uint32_t)f, r->height, &r->candidates);
    }
    r->degree = r->remaining = (uint32_t)n;
    if (n == 0)
        return r->kind = CTXPROF_ICPP_MISSING;
    if (n == 1) {
        r->path = r->candidates[0];
        return r->kind = CTXPROF_ICPP_PRECISE;
    }
    if (n > CTXPROF__ICPP_WALK_MAX || max_walk == 0)
        return r->kind = CTXPROF_ICPP_AMBIGUOUS;
    src.m = m;
    src.nh = m->d->nheight;
    src.w.fp = fp;
    src.w.sp = sp;
    src.w.base = base;
    src.w.saved = frames;
    src.w.k = 0;
    src.targeted = 1;
    src.truth = src.tnode = CTXPROF__ICPP_NONE;
    src.rec = frames ? NULL : rec;
    src.rec_max = rec_max < CTXPROF_ICPP_FRAMES ? rec_max : CTXPROF_ICPP_FRAMES;
    na = ctxprof__icpp_narrow(&src, r->candidates, n, max_walk, alive, &r->walked);
    r->remaining = (uint32_t)na;
    if (na == 1) {
        r->path = alive[0];
        return r->kind = CTXPROF_ICPP_PRECISE;
    }
    /* none left: the sample's path is none of the CID's (paper 8.4) */
    return r->kind = na ? CTXPROF_ICPP_AMBIGUOUS : CTXPROF_ICPP_INCORRECT;
}

CTXPROF_DEF int ctxprof_icpp_resolve(const ctxprof_icpp_map *m, uintptr_t pc, uintptr_t sp,
                                     uintptr_t base, uintptr_t fp,
                                     const ctxprof_icpp_frames *frames, unsigned max_walk,
                                     ctxprof_icpp_result *r)
{
    if (!r)
        return CTXPROF_ERR_INVAL;
    if (!m || !m->d || !ctxprof__icpp_bound_of(m->d)) {
        /* no PC maps to a function yet: OUTSIDE for code that reads the
           kind (it has no candidates), an error for code that checks */
        memset(r, 0, sizeof *r);
        r->func = r->path = CTXPROF__ICPP_NONE;
        r->kind = CTXPROF_ICPP_OUTSIDE;
        return CTXPROF_ERR_INVAL;
    }
    return ctxprof__icpp_resolve(m, pc, sp, base, fp, frames, max_walk, r, NULL, 0);
}

CTXPROF_DEF int ctxprof_icpp_evaluate(const ctxprof_icpp_map *m, const ctxprof_icpp_result *r,
                                      uint64_t true_key, uint32_t *out_degree)
{
    const struct ctxprof__icpp_mapdata *d = m ? m->d : NULL;
    uint32_t k, deg = 0;
    int kind = r->kind, in = 0;
    if (kind == CTXPROF_ICPP_PRECISE) {
        deg = 1;
        kind = d && r->path < d->np && d->pkey[r->path] == true_key ? CTXPROF_ICPP_PRECISE
                                                                     : CTXPROF_ICPP_INCORRECT;
    } else if (kind == CTXPROF_ICPP_AMBIGUOUS) {
        for (k = 0; d && r->candidates && k < r->degree && !in; k++)
            in = r->candidates[k] < d->np && d->pkey[r->candidates[k]] == true_key;
        deg = r->remaining;
        kind = in ? CTXPROF_ICPP_AMBIGUOUS : CTXPROF_ICPP_INCORRECT;
    } /* INCORRECT (the walk ruled all out), MISSING, OUTSIDE, NOBASE: as they are */
    if (out_degree)
        *out_degree = deg;
    return kind;
}

/* The frames each kind of walk reads to single out path among cand[0..n)
   (which holds it), on the map with heights nh: 1 when it does. */
CTXPROF__PRIV int ctxprof__icpp_walk_cost(const ctxprof_icpp_map *m, const uint64_t *nh,
                                          uint32_t path, const uint32_t *cand, size_t n,
                                          uint32_t *out_seq, uint32_t *out_tgt)
{
    uint32_t alive[CTXPROF__ICPP_WALK_MAX];
    ctxprof__icpp_src src;
    size_t a, b;
    *out_seq = *out_tgt = 0;
    if (n <= 1)
        return 1;
    if (n > CTXPROF__ICPP_WALK_MAX)
        return 0;
    memset(&src, 0, sizeof src);
    src.m = m;
    src.nh = nh;
    src.truth = src.tnode = m->d->pnode[path];
    src.targeted = 1;
    a = ctxprof__icpp_narrow(&src, cand, n, UINT32_MAX, alive, out_tgt);
    src.truth = src.tnode = m->d->pnode[path];
    src.targeted = 0;
    b = ctxprof__icpp_narrow(&src, cand, n, UINT32_MAX, alive, out_seq);
    return a == 1 && b == 1;
}

CTXPROF_DEF int ctxprof_icpp_map_walk_cost(const ctxprof_icpp_map *m, uint32_t path,
                                          uint32_t *out_sequential, uint32_t *out_targeted)
{
    const struct ctxprof__icpp_mapdata *d = m ? m->d : NULL;
    const ctxprof__icpp_cidrec *c;
    uint32_t seq, tgt;
    int ok;
    if (!d || path >= d->np)
        return CTXPROF_ERR_RANGE;
    c = &d->cids[d->pcid[path]];
    ok = ctxprof__icpp_walk_cost(m, d->nheight, path, d->cand + c->first, c->n, &seq, &tgt);
    if (out_sequential)
        *out_sequential = seq;
    if (out_targeted)
        *out_targeted = tgt;
    return ok;
}

/* --- frame padding search (paper 5.1) -----------------------------------

   Variables are source functions: a map function's name up to its first
   '.' (f, f.constprop.0, f.isra.0 and f.cold are compiled from one body
   and get one pad). Pads are in 16-byte units; a path's height grows by
   16 * (sum over its nodes of its function's pad), and with call-site
   wraps by the wraps of its edges too.

   Units. Paths with the same leaf function, the same height and the same
   multiset of variables move together under any padding: the search keeps
   one unit per such group, weighted by its number of paths (a unit of two
   or more paths is inseparable: never precise). Each variable lists its
   units with their multiplicities, so changing variable v by delta moves
   exactly those units, each by 16 * delta * multiplicity. A multiset of
   CIDs weighted by paths keeps the number of precise paths (CIDs holding
   one path) exact after every change, and a count of units above the
   height limit keeps the growth cap exact. Only units whose leaf function
   has other paths can collide ("relevant"); the others are always precise
   and only their heights are followed (they count for the growth).

   A hash table holds the CIDs. Under a height limit, those at or below
   it are a dense array of counts instead: heights move in steps of 16,
   so each (leaf, height mod 16) class gets a row of 16-byte buckets from
   its lowest height (pads only add) up to the limit, and only the few
   heights a search tries above the limit go to the hash table (all of
   them without a limit, or when the rows would be too large). The counts
   are the same either way, and so are the searches' results.

   Every search runs on this evaluator: the paper's random search (5.1.1)
   and ours (coordinate sweeps, iterated local search kicking variables
   that separate colliding pairs, simulated annealing on such moves, then a
   last sweep). */

struct ctxprof__icpp_padres {
    ctxprof__strtab vars;   /* source function names */
    uint32_t *units;        /* var -> pad units */
    uint32_t *ecaller, *ecallee, *eunits; /* wrapped edges (var ids) */
    size_t nedges;
    char **pairs;           /* "# pair ..." lines */
    size_t npairs, pcap;
};

typedef struct ctxprof__icpp_cent {
    uint64_t height;
    uint32_t leaf, count; /* count: paths with this CID; UINT32_MAX: an empty slot */
} ctxprof__icpp_cent;

typedef struct ctxprof__icpp_unit {
    uint64_t h;    /* current height */
    uint32_t leaf; /* leaf function */
    uint32_t w;    /* paths in the unit; 0: not relevant (one path, alone with its leaf) */
    uint32_t row;  /* dense table: count of height h at row + h / 16 (mod 2^32) */
} ctxprof__icpp_unit;

typedef struct ctxprof__icpp_ps {
    const struct ctxprof__icpp_mapdata *d;
    size_t np, nu, nv;
    const uint32_t *nvar;             /* trie node -> variable */
    uint32_t *punit;                  /* path -> unit */
    ctxprof__icpp_unit *u;            /* unit -> height, leaf, paths */
    uint32_t *urep;                   /* unit -> one of its paths */
    uint32_t *vfirst, *vunit, *vmul;  /* variable -> (unit, multiplicity), by unit */
    uint32_t *ufirst, *uvar, *umul;   /* unit -> (variable, multiplicity), leaf first */
    uint8_t *frozen;                  /* variable -> never changed */
    int32_t *x;                       /* variable -> padding units */
    int32_t *cnt;                     /* scratch per variable, kept zero */
    uint32_t *list;                   /* scratch, 2 per variable */
    ctxprof__icpp_cent *tab;          /* CIDs of relevant units (hash table)... */
    uint32_t *dense;                  /* ...or their counts by row (under a limit) */
    size_t tmask;
    unsigned tshift;
    size_t uniq;                      /* CIDs holding exactly one path */
    size_t fixed;                     /* paths of irrelevant units: always precise */
    size_t over;                      /* units above the limit */
    uint64_t limit;
    uint64_t work;                    /* unit moves so far: the searches' budget */
    unsigned max_units;
    unsigned long moves;
    int nomem;
} ctxprof__icpp_ps;

/* The table's home slot of a CID (Fibonacci hashing: the table is private
   and one multiply mixes enough). */
CTXPROF__PRIV size_t ctxprof__icpp_tab_home(const ctxprof__icpp_ps *s, uint32_t leaf, uint64_t h)
{
    return (size_t)(((h ^ ((uint64_t)leaf << 44)) * 0x9E3779B97F4A7C15u) >> s->tshift);
}

CTXPROF__PRIV size_t ctxprof__icpp_tab_slot(const ctxprof__icpp_ps *s, uint32_t leaf, uint64_t h)
{
    size_t j = ctxprof__icpp_tab_home(s, leaf, h);
    while (s->tab[j].count != UINT32_MAX && !(s->tab[j].leaf == leaf && s->tab[j].height == h))
        j = (j + 1) & s->tmask;
    return j;
}

/* Counts a change of the CIDs holding exactly one path (c paths before,
   nc after). */
#define CTXPROF__ICPP_UNIQ(s, c, nc) ((s)->uniq += (size_t)((nc) == 1) - (size_t)((c) == 1))

/* The dense table's count of unit un's class at height h (under the
   limit). */
#define CTXPROF__ICPP_CELL(s, un, h) (&(s)->dense[(uint32_t)((un)->row + (uint32_t)((h) >> 4))])

/* tab_move on the dense table (h at most the limit). */
CTXPROF__PRIV void ctxprof__icpp_dense_move(ctxprof__icpp_ps *s, const ctxprof__icpp_unit *un,
                                            uint64_t h, int add)
{
    uint32_t *cell = CTXPROF__ICPP_CELL(s, un, h), c;
    uint32_t nc;
    c = *cell;
    *cell = nc = add ? c + un->w : c - un->w;
    CTXPROF__ICPP_UNIQ(s, c, nc);
}

/* Adds (add = 1) or removes unit un's paths at the CID (its leaf, h). A
   hashed CID left with no path is deleted by shifting the entries of its
   probe run back (linear probing without tombstones), so the load stays
   that of the live CIDs however long the search runs. */
CTXPROF__PRIV void ctxprof__icpp_tab_move(ctxprof__icpp_ps *s, const ctxprof__icpp_unit *un,
                                          uint64_t h, int add)
{
    size_t j, k;
    uint32_t c, nc;
    if (s->dense && h <= s->limit) {
        ctxprof__icpp_dense_move(s, un, h, add);
        return;
    }
    j = ctxprof__icpp_tab_slot(s, un->leaf, h);
    c = s->tab[j].count;
    if (c == UINT32_MAX) {
        if (!add)
            return; /* cannot happen: a relevant unit's CID is present */
        s->tab[j].leaf = un->leaf;
        s->tab[j].height = h;
        c = 0;
    }
    nc = add ? c + un->w : c - un->w;
    CTXPROF__ICPP_UNIQ(s, c, nc);
    s->tab[j].count = nc;
    if (nc != 0)
        return;
    for (k = (j + 1) & s->tmask; s->tab[k].count != UINT32_MAX; k = (k + 1) & s->tmask) {
        size_t home = ctxprof__icpp_tab_home(s, s->tab[k].leaf, s->tab[k].height);
        if (((k - home) & s->tmask) >= ((k - j) & s->tmask)) { /* j is on k's probe run */
            s->tab[j] = s->tab[k];
            j = k;
        }
    }
    s->tab[j].count = UINT32_MAX;
}

typedef struct ctxprof__icpp_cls {
    uint32_t leaf, res, unit;
} ctxprof__icpp_cls;

CTXPROF__PRIV int ctxprof__icpp_cls_cmp(const void *a, const void *b)
{
    const ctxprof__icpp_cls *x = (const ctxprof__icpp_cls *)a;
    const ctxprof__icpp_cls *y = (const ctxprof__icpp_cls *)b;
    if (x->leaf != y->leaf)
        return x->leaf < y->leaf ? -1 : 1;
    return x->res < y->res ? -1 : x->res > y->res;
}

/* The dense table's rows (under a limit): each relevant unit's row, from
   the lowest height of its class. Returns 0 when they would hold more
   than 64 Ki counts and 128 per unit (the hash table then holds every
   CID), 1 when built, -1 out of memory. */
CTXPROF__PRIV int ctxprof__icpp_dense_build(ctxprof__icpp_ps *s)
{
    ctxprof__icpp_cls *cl;
    size_t n = 0, i, j, total = 0, most = ((size_t)1 << 16) + 128 * s->nu;
    uint64_t top = s->limit >> 4;
    if (s->limit >= ((uint64_t)1 << 40))
        return 0;
    if (most > UINT32_MAX / 2)
        most = UINT32_MAX / 2; /* rows are indexed in 32 bits */
    cl = (ctxprof__icpp_cls *)ctxprof__alloc(s->nu + 1, sizeof *cl, NULL);
    if (!cl)
        return -1;
    for (i = 0; i < s->nu; i++)
        if (s->u[i].w) {
            cl[n].leaf = s->u[i].leaf;
            cl[n].res = (uint32_t)(s->u[i].h & 15);
            cl[n++].unit = (uint32_t)i;
        }
    qsort(cl, n, sizeof *cl, ctxprof__icpp_cls_cmp);
    for (i = 0; i < n && total <= most; i = j) { /* one row per class */
        uint64_t low = s->u[cl[i].unit].h >> 4;
        for (j = i; j < n && cl[j].leaf == cl[i].leaf && cl[j].res == cl[i].res; j++)
            if (s->u[cl[j].unit].h >> 4 < low)
                low = s->u[cl[j].unit].h >> 4;
        for (; i < j; i++)
            s->u[cl[i].unit].row = (uint32_t)(total - low);
        total += (size_t)(top - low + 1);
    }
    ctxprof__free(cl, NULL);
    if (total > most)
        return 0;
    s->dense = (uint32_t *)ctxprof__zalloc(total + 1, sizeof *s->dense, NULL);
    return s->dense ? 1 : -1;
}

/* Builds the CID multiset from the units' heights. */
CTXPROF__PRIV int ctxprof__icpp_tab_build(ctxprof__icpp_ps *s)
{
    size_t sz = 64, u;
    while (sz < 4 * (s->nu + 1))
        sz *= 2;
    s->tab = (ctxprof__icpp_cent *)ctxprof__alloc(sz, sizeof *s->tab, NULL);
    if (!s->tab || ctxprof__icpp_dense_build(s) < 0)
        return s->nomem = 1, CTXPROF_ERR_NOMEM;
    for (u = 0; u < sz; u++)
        s->tab[u].count = UINT32_MAX; /* empty */
    s->tmask = sz - 1;
    for (s->tshift = 64; sz > 1; sz /= 2)
        s->tshift--;
    s->uniq = 0;
    for (u = 0; u < s->nu; u++)
        if (s->u[u].w)
            ctxprof__icpp_tab_move(s, &s->u[u], s->u[u].h, 1);
    return CTXPROF_OK;
}

/* Paths at unit un's CID (a relevant unit). */
CTXPROF__PRIV uint32_t ctxprof__icpp_tab_count(const ctxprof__icpp_ps *s,
                                               const ctxprof__icpp_unit *un)
{
    size_t j;
    if (s->dense && un->h <= s->limit)
        return *CTXPROF__ICPP_CELL(s, un, un->h);
    j = ctxprof__icpp_tab_slot(s, un->leaf, un->h);
    return s->tab[j].count == UINT32_MAX ? 0 : s->tab[j].count;
}

/* Changes variable v by delta units (paper 5.1: every path through v moves). */
CTXPROF__PRIV void ctxprof__icpp_apply(ctxprof__icpp_ps *s, uint32_t v, int32_t delta)
{
    size_t k, end = s->vfirst[v + 1];
    s->moves++;
    s->x[v] += delta;
    s->work += end - s->vfirst[v];
    for (k = s->vfirst[v]; k < end; k++) {
        ctxprof__icpp_unit *un = &s->u[s->vunit[k]];
#if defined(__GNUC__) || defined(__clang__)
        if (k + 8 < end) { /* the table slots of a later unit: a cache miss each */
            const ctxprof__icpp_unit *ahead = &s->u[s->vunit[k + 8]];
            if (s->dense) { /* its unit first, then its count */
                if (k + 16 < end)
                    __builtin_prefetch(&s->u[s->vunit[k + 16]]);
                if (ahead->h <= s->limit)
                    __builtin_prefetch(CTXPROF__ICPP_CELL(s, ahead, ahead->h));
            } else {
                __builtin_prefetch(&s->tab[ctxprof__icpp_tab_home(s, ahead->leaf, ahead->h)]);
                __builtin_prefetch(&s->tab[ctxprof__icpp_tab_home(
                    s, ahead->leaf,
                    (uint64_t)((int64_t)ahead->h + (int64_t)delta * 16 * (int64_t)s->vmul[k + 8]))]);
            }
        }
#endif
        uint64_t oldh = un->h;
        uint64_t newh = (uint64_t)((int64_t)oldh + (int64_t)delta * 16 * (int64_t)s->vmul[k]);
        if (un->w) { /* the dense table's moves inline, the rest out of line */
            if (s->dense && oldh <= s->limit)
                ctxprof__icpp_dense_move(s, un, oldh, 0);
            else
                ctxprof__icpp_tab_move(s, un, oldh, 0);
            if (s->dense && newh <= s->limit)
                ctxprof__icpp_dense_move(s, un, newh, 1);
            else
                ctxprof__icpp_tab_move(s, un, newh, 1);
        }
        un->h = newh;
        if (oldh <= s->limit && newh > s->limit)
            s->over++;
        else if (oldh > s->limit && newh <= s->limit)
            s->over--;
    }
}

/* Node -> variable for the function kind (source function of the node).
   A clone of a long name (a C++ symbol) is cut in a heap copy: it shares
   its function's pad like any other. */
CTXPROF__PRIV int ctxprof__icpp_var_of(ctxprof__strtab *vars, const char *name, uint32_t *out)
{
    char tmp[256], *buf = tmp;
    const char *dot = name[0] ? strchr(name + 1, '.') : NULL;
    size_t n = dot ? (size_t)(dot - name) : strlen(name);
    long v;
    if (dot) {
        if (n >= sizeof tmp && !(buf = (char *)ctxprof__alloc(n + 1, 1, NULL)))
            return CTXPROF_ERR_NOMEM;
        memcpy(buf, name, n);
        buf[n] = '\0';
        v = ctxprof__strtab_intern(vars, buf);
        if (buf != tmp)
            ctxprof__free(buf, NULL);
    } else {
        v = ctxprof__strtab_intern(vars, name);
    }
    if (v < 0)
        return CTXPROF_ERR_NOMEM;
    *out = (uint32_t)v;
    return CTXPROF_OK;
}

CTXPROF__PRIV uint64_t ctxprof__icpp_zvar(uint64_t v, uint64_t salt)
{
    return ctxprof_mix64(v * 0x2545F4914F6CDD1Du ^ salt) | 1u;
}

CTXPROF__PRIV void ctxprof__icpp_ps_free(ctxprof__icpp_ps *s)
{
    ctxprof__free(s->punit, NULL);
    ctxprof__free(s->urep, NULL);
    ctxprof__free(s->u, NULL);
    ctxprof__free(s->vfirst, NULL);
    ctxprof__free(s->vunit, NULL);
    ctxprof__free(s->vmul, NULL);
    ctxprof__free(s->ufirst, NULL);
    ctxprof__free(s->uvar, NULL);
    ctxprof__free(s->umul, NULL);
    ctxprof__free(s->frozen, NULL);
    ctxprof__free(s->x, NULL);
    ctxprof__free(s->cnt, NULL);
    ctxprof__free(s->list, NULL);
    ctxprof__free(s->tab, NULL);
    ctxprof__free(s->dense, NULL);
    memset(s, 0, sizeof *s);
}

/* Sets the height limit, recounting the units above it. */
CTXPROF__PRIV void ctxprof__icpp_set_limit(ctxprof__icpp_ps *s, uint64_t limit)
{
    size_t u;
    s->limit = limit;
    s->over = 0;
    for (u = 0; u < s->nu; u++)
        s->over += s->u[u].h > limit;
}

/* Builds s for map d with node -> variable nvar (nv variables) and path
   heights h0: the units, each variable's unit list, the CID multiset.
   Two paths share a unit only when their leaf, height and variable
   multiplicities are equal (compared exactly, not by hash). */
CTXPROF__PRIV int ctxprof__icpp_ps_build(ctxprof__icpp_ps *s, const struct ctxprof__icpp_mapdata *d,
                                         const uint32_t *nvar, size_t nv, const uint64_t *h0,
                                         uint64_t limit, unsigned max_units)
{
    size_t np = d->np, p, i, tsz = 64, nent = 0, ecap = 0;
    uint32_t *slots = NULL, *leafn = NULL, *ufirst, *evar = NULL, *emul = NULL;
    uint64_t *usig = NULL;
    int built = 0;
    memset(s, 0, sizeof *s);
    s->d = d;
    s->np = np;
    s->nv = nv;
    s->nvar = nvar;
    s->limit = limit;
    s->max_units = max_units;
    while (tsz < 2 * (np + 1))
        tsz *= 2;
    s->punit = (uint32_t *)ctxprof__alloc(np + 1, sizeof *s->punit, NULL);
    s->urep = (uint32_t *)ctxprof__alloc(np + 1, sizeof *s->urep, NULL);
    s->u = (ctxprof__icpp_unit *)ctxprof__alloc(np + 1, sizeof *s->u, NULL);
    s->vfirst = (uint32_t *)ctxprof__zalloc(nv + 2, sizeof *s->vfirst, NULL);
    s->frozen = (uint8_t *)ctxprof__zalloc(nv + 1, 1, NULL);
    s->x = (int32_t *)ctxprof__zalloc(nv + 1, sizeof *s->x, NULL);
    s->cnt = (int32_t *)ctxprof__zalloc(nv + 1, sizeof *s->cnt, NULL);
    s->list = (uint32_t *)ctxprof__alloc(2 * nv + 2, sizeof *s->list, NULL);
    slots = (uint32_t *)ctxprof__zalloc(tsz, sizeof *slots, NULL);
    leafn = (uint32_t *)ctxprof__zalloc(d->names.n + 1, sizeof *leafn, NULL);
    ufirst = s->ufirst = (uint32_t *)ctxprof__alloc(np + 2, sizeof *ufirst, NULL);
    usig = (uint64_t *)ctxprof__alloc(np + 1, sizeof *usig, NULL);
    if (!s->punit || !s->urep || !s->u || !s->vfirst ||
        !s->frozen || !s->x || !s->cnt || !s->list || !slots || !leafn || !ufirst || !usig)
        goto out;
    for (p = 0; p < np; p++)
        leafn[d->nfunc[d->pnode[p]]]++;
    ufirst[0] = 0;
    for (p = 0; p < np; p++) {
        uint32_t n, leaf = d->nfunc[d->pnode[p]], u = CTXPROF__ICPP_NONE;
        size_t k = 0, j;
        uint64_t sig = ctxprof_mix64(((uint64_t)leaf << 32) ^ ctxprof_mix64(h0[p]));
        for (n = d->pnode[p]; n != 0; n = d->nparent[n])
            if (s->cnt[nvar[n]]++ == 0)
                s->list[k++] = nvar[n]; /* in the order met, leaf first */
        for (i = 0; i < k; i++)
            sig += ctxprof__icpp_zvar(s->list[i], 0x51) * (uint64_t)s->cnt[s->list[i]];
        for (j = (size_t)ctxprof_mix64(sig) & (tsz - 1); slots[j]; j = (j + 1) & (tsz - 1)) {
            uint32_t c = slots[j] - 1;
            if (usig[c] != sig || s->u[c].leaf != leaf || s->u[c].h != h0[p] ||
                ufirst[c + 1] - ufirst[c] != k)
                continue;
            /* k variables each: equal when each of c's has its multiplicity here */
            for (i = ufirst[c]; i < ufirst[c + 1]; i++)
                if (emul[i] != (uint32_t)s->cnt[evar[i]])
                    break;
            if (i == ufirst[c + 1]) {
                u = c;
                break;
            }
        }
        if (u == CTXPROF__ICPP_NONE) {
            size_t c2 = ecap;
            if (ctxprof__reserve((void **)&evar, &c2, nent, nent + k + 1, sizeof *evar, NULL))
                goto out;
            c2 = ecap;
            if (ctxprof__reserve((void **)&emul, &c2, nent, nent + k + 1, sizeof *emul, NULL))
                goto out;
            ecap = c2;
            for (i = 0; i < k; i++) {
                evar[nent + i] = s->list[i];
                emul[nent + i] = (uint32_t)s->cnt[s->list[i]];
            }
            nent += k;
            u = (uint32_t)s->nu++;
            ufirst[u + 1] = (uint32_t)nent;
            usig[u] = sig;
            s->u[u].leaf = leaf;
            s->u[u].h = h0[p];
            s->u[u].w = 0;
            s->urep[u] = (uint32_t)p;
            slots[j] = u + 1;
        }
        if (leafn[leaf] >= 2)
            s->u[u].w++;
        else
            s->fixed++;
        s->punit[p] = u;
        for (i = 0; i < k; i++)
            s->cnt[s->list[i]] = 0;
    }
    /* variable -> units, by counting sort (units come out in order) */
    s->vunit = (uint32_t *)ctxprof__alloc(nent + 1, sizeof *s->vunit, NULL);
    s->vmul = (uint32_t *)ctxprof__alloc(nent + 1, sizeof *s->vmul, NULL);
    if (!s->vunit || !s->vmul)
        goto out;
    for (i = 0; i < nent; i++)
        s->vfirst[evar[i] + 2]++;
    for (i = 0; i < nv; i++)
        s->vfirst[i + 2] += s->vfirst[i + 1];
    for (p = 0; p < s->nu; p++)
        for (i = ufirst[p]; i < ufirst[p + 1]; i++) {
            uint32_t at = s->vfirst[evar[i] + 1]++;
            s->vunit[at] = (uint32_t)p;
            s->vmul[at] = emul[i];
        }
    ctxprof__icpp_set_limit(s, limit); /* counts the units above it */
    s->uvar = evar;
    s->umul = emul;
    built = 1;
out: /* temporaries freed on every path */
    ctxprof__free(slots, NULL);
    ctxprof__free(leafn, NULL);
    ctxprof__free(usig, NULL);
    if (built)
        return ctxprof__icpp_tab_build(s);
    ctxprof__free(evar, NULL);
    ctxprof__free(emul, NULL);
    ctxprof__icpp_ps_free(s);
    return CTXPROF_ERR_NOMEM;
}

/* Precise paths now. */
CTXPROF__PRIV size_t ctxprof__icpp_precise(const ctxprof__icpp_ps *s)
{
    return s->uniq + s->fixed;
}

CTXPROF__PRIV int ctxprof__icpp_reached(const ctxprof__icpp_ps *s, double target)
{
    return (double)ctxprof__icpp_precise(s) >= target * (double)s->np;
}

/* Adds sign x (multiplicity of each variable on unit u) into s->cnt,
   appending newly touched variables to s->list at nlist (a variable that
   comes back to 0 may be listed twice: callers reset cnt as they go). */
CTXPROF__PRIV size_t ctxprof__icpp_unit_vars(ctxprof__icpp_ps *s, uint32_t u, size_t nlist,
                                             int sign)
{
    uint32_t i;
    for (i = s->ufirst[u]; i < s->ufirst[u + 1]; i++) {
        uint32_t v = s->uvar[i];
        if (s->cnt[v] == 0)
            s->list[nlist++] = v;
        s->cnt[v] += sign * (int32_t)s->umul[i];
    }
    return nlist;
}

/* The variables (not frozen) whose multiplicities differ
   between units a and b, in the order met walking a then b from the leaf
   up; at most max into out. */
CTXPROF__PRIV size_t ctxprof__icpp_diff(ctxprof__icpp_ps *s, uint32_t a, uint32_t b,
                                        uint32_t *out, size_t max)
{
    size_t nl = ctxprof__icpp_unit_vars(s, a, 0, 1), k, no = 0;
    nl = ctxprof__icpp_unit_vars(s, b, nl, -1);
    for (k = 0; k < nl; k++) {
        uint32_t v = s->list[k];
        if (s->cnt[v] != 0 && !s->frozen[v] && no < max)
            out[no++] = v;
        s->cnt[v] = 0;
    }
    return no;
}

CTXPROF__PRIV uint64_t ctxprof__icpp_rng(uint64_t *state)
{
    return ctxprof_mix64(*state += 0x9E3779B97F4A7C15u);
}

typedef struct ctxprof__icpp_member {
    uint32_t leaf;
    uint64_t height;
    uint32_t unit;
} ctxprof__icpp_member;

CTXPROF__PRIV int ctxprof__icpp_member_cmp(const void *a, const void *b)
{
    const ctxprof__icpp_member *x = (const ctxprof__icpp_member *)a;
    const ctxprof__icpp_member *y = (const ctxprof__icpp_member *)b;
    if (x->leaf != y->leaf)
        return x->leaf < y->leaf ? -1 : 1;
    if (x->height != y->height)
        return x->height < y->height ? -1 : 1;
    return x->unit < y->unit ? -1 : x->unit > y->unit;
}

/* Relevant units sharing their CID with another unit (those a change can
   separate), into out sorted by CID; per_path: each unit once per path. */
CTXPROF__PRIV size_t ctxprof__icpp_conflicts(ctxprof__icpp_ps *s, ctxprof__icpp_member *out,
                                             int per_path)
{
    size_t u, n = 0;
    for (u = 0; u < s->nu; u++) {
        uint32_t k;
        if (!s->u[u].w || ctxprof__icpp_tab_count(s, &s->u[u]) <= s->u[u].w)
            continue;
        for (k = 0; k < (per_path ? s->u[u].w : 1u); k++) {
            out[n].leaf = s->u[u].leaf;
            out[n].height = s->u[u].h;
            out[n].unit = (uint32_t)u;
            n++;
        }
    }
    qsort(out, n, sizeof *out, ctxprof__icpp_member_cmp);
    return n;
}

/* Another unit than a still at a's CID, among the members of the (sorted,
   possibly stale) list that had that CID when it was made; NONE if none. */
CTXPROF__PRIV uint32_t ctxprof__icpp_partner(const ctxprof__icpp_ps *s,
                                             const ctxprof__icpp_member *mem, size_t nm, uint32_t a)
{
    ctxprof__icpp_member key;
    size_t lo = 0, hi = nm;
    key.leaf = s->u[a].leaf;
    key.height = s->u[a].h;
    key.unit = 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ctxprof__icpp_member_cmp(&mem[mid], &key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < nm && mem[lo].leaf == key.leaf && mem[lo].height == key.height; lo++)
        if (mem[lo].unit != a && s->u[mem[lo].unit].h == key.height)
            return mem[lo].unit;
    return CTXPROF__ICPP_NONE;
}

/* A variable whose change can move a relevant unit. */
CTXPROF__PRIV int ctxprof__icpp_useful(const ctxprof__icpp_ps *s, uint32_t v)
{
    size_t k;
    if (s->frozen[v])
        return 0;
    for (k = s->vfirst[v]; k < s->vfirst[v + 1]; k++)
        if (s->u[s->vunit[k]].w)
            return 1;
    return 0;
}

/* Ours, part 1: coordinate ascent. For each variable that can move a
   relevant unit, scan its values 0..max_units (above 256, as far as its
   share of the budget reaches, at least 256; one incremental step each,
   stopping at the first value that breaks the height limit: heights only
   grow with a pad) and keep the value with the most precise paths (ties:
   the smaller pad), in the order `order` (NULL: by id). Sweeps repeat
   until one improves nothing or the work count reaches `until`. */
CTXPROF__PRIV void ctxprof__icpp_sweep(ctxprof__icpp_ps *s, const uint32_t *order, double target,
                                       uint64_t until)
{
    size_t i;
    int sweep;
    for (sweep = 0; sweep < 32 && !s->nomem && s->work < until; sweep++) {
        size_t gained = 0;
        for (i = 0; i < s->nv && !s->nomem && s->work < until; i++) {
            uint32_t v = order ? order[i] : (uint32_t)i;
            int32_t cur = s->x[v], val, best_val = 0, most = (int32_t)s->max_units;
            size_t best, start = s->uniq;
            uint64_t share = (uint64_t)(s->vfirst[v + 1] - s->vfirst[v]) * 4 * s->nv;
            if (!ctxprof__icpp_useful(s, v))
                continue;
            if (ctxprof__icpp_reached(s, target))
                return;
            /* a large max_units: values up to a quarter of the budget's
               share of each variable (never fewer than the default 256) */
            if (most > 256 && share && (until - s->work) / share < (uint64_t)most)
                most = (int32_t)((until - s->work) / share > 256 ? (until - s->work) / share : 256);
            if (cur)
                ctxprof__icpp_apply(s, v, -cur);
            best = s->uniq;
            for (val = 1; val <= most; val++) {
                ctxprof__icpp_apply(s, v, 1);
                if (s->over)
                    break;
                if (s->uniq > best) {
                    best = s->uniq;
                    best_val = val;
                }
            }
            ctxprof__icpp_apply(s, v, best_val - s->x[v]);
            if (s->uniq > start)
                gained += s->uniq - start;
        }
        if (!gained)
            break;
    }
}

#define CTXPROF__ICPP_DIFF 64 /* differing variables considered per pair */

/* A colliding pair to work on: a random member a of the conflict list mem
   (rebuilt when *nm is 0 or every 256 calls; per_path: paths equally
   likely, else units), a partner b at its CID, and the variables that
   differ between them into diff. Returns how many (0: try again), or -1
   when nothing collides. A rebuild counts nu unit moves of work. */
CTXPROF__PRIV long ctxprof__icpp_pick(ctxprof__icpp_ps *s, ctxprof__icpp_member *mem, size_t *nm,
                                      unsigned long *calls, int per_path, uint64_t *rng,
                                      uint32_t *a, uint32_t *b, uint32_t *diff)
{
    if (*nm == 0 || ++*calls % 256 == 0) {
        *nm = ctxprof__icpp_conflicts(s, mem, per_path);
        s->work += s->nu;
    }
    if (*nm == 0)
        return -1;
    *a = mem[ctxprof__icpp_rng(rng) % *nm].unit;
    *b = ctxprof__icpp_partner(s, mem, *nm, *a);
    if (*b == CTXPROF__ICPP_NONE) {
        *nm = 0; /* a stale list */
        return 0;
    }
    return (long)ctxprof__icpp_diff(s, *a, *b, diff, CTXPROF__ICPP_DIFF);
}

/* exp(x) for x <= 0 without libm: (Taylor polynomial of e^(x/64))^64. */
CTXPROF__PRIV double ctxprof__icpp_expneg(double x)
{
    double y = x / 64, e;
    int k;
    if (x < -40)
        return 0;
    e = 1 + y * (1 + y / 2 * (1 + y / 3 * (1 + y / 4 * (1 + y / 5))));
    for (k = 0; k < 6; k++)
        e *= e;
    return e;
}

CTXPROF__PRIV double ctxprof__icpp_unit01(uint64_t *rng)
{
    return (double)(ctxprof__icpp_rng(rng) >> 11) / 9007199254740992.0;
}

/* Copies every variable's value into out (nv entries). */
CTXPROF__PRIV void ctxprof__icpp_save(const ctxprof__icpp_ps *s, int32_t *out)
{
    memcpy(out, s->x, s->nv * sizeof *out);
}

/* Puts every variable back to the values in best_x. */
CTXPROF__PRIV void ctxprof__icpp_restore(ctxprof__icpp_ps *s, const int32_t *best_x)
{
    size_t v;
    for (v = 0; v < s->nv; v++)
        if (s->x[v] != best_x[v])
            ctxprof__icpp_apply(s, (uint32_t)v, best_x[v] - s->x[v]);
}

/* Ours, part 2: simulated annealing from the state reached. A move takes
   a random unit that shares its CID with another unit, one such partner,
   and a variable whose multiplicity differs between the two (cheap ones -
   few units moved - more often), and changes it by -3..+3 units. Moves
   that break the height limit are refused; a move losing g precise paths is taken with
   probability exp(-g / T). T starts at half the mean loss of the first 64
   losing moves and cools geometrically a hundredfold over a budget of
   unit moves (so the result does not depend on the machine). Ends in the
   best state seen. */
CTXPROF__PRIV void ctxprof__icpp_anneal(ctxprof__icpp_ps *s, double target, uint64_t budget,
                                        uint64_t seed, ctxprof__icpp_member *mem, int32_t *best_x)
{
    size_t best = s->uniq, nm = 0, nwarm = 0;
    uint64_t rng = seed, start = s->work, steps = 0;
    unsigned long calls = 0;
    uint32_t diff[CTXPROF__ICPP_DIFF];
    double lost = 0;
    ctxprof__icpp_save(s, best_x);
    while (s->work - start + steps < budget && !s->nomem && !ctxprof__icpp_reached(s, target)) {
        double done = (double)(s->work - start + steps) / (double)budget;
        double t0 = nwarm >= 64 ? 0.5 * lost / (double)nwarm : 1e-9; /* greedy while warming */
        double temp = t0 * ctxprof__icpp_expneg(-4.605170186 * done); /* ln(1/100) */
        size_t before;
        long nd;
        uint32_t a, b, var;
        int32_t dl;
        steps += 64; /* a move's own cost beside its unit moves */
        nd = ctxprof__icpp_pick(s, mem, &nm, &calls, 0, &rng, &a, &b, diff);
        if (nd < 0)
            break;
        if (nd == 0)
            continue;
        { /* cheap variables (few units moved) more often: weight 1 / units */
            double tot = 0, pick;
            size_t q;
            for (q = 0; q < (size_t)nd; q++)
                tot += 1.0 / (double)(s->vfirst[diff[q] + 1] - s->vfirst[diff[q]]);
            pick = ctxprof__icpp_unit01(&rng) * tot;
            for (q = 0; q + 1 < (size_t)nd; q++) {
                pick -= 1.0 / (double)(s->vfirst[diff[q] + 1] - s->vfirst[diff[q]]);
                if (pick < 0)
                    break;
            }
            var = diff[q];
        }
        dl = (int32_t)(1 + ctxprof__icpp_rng(&rng) % 3);
        if (s->x[var] > 0 &&
            ((ctxprof__icpp_rng(&rng) & 1) || s->x[var] + dl > (int32_t)s->max_units))
            dl = s->x[var] >= dl ? -dl : -s->x[var];
        else if (s->x[var] + dl > (int32_t)s->max_units)
            dl = (int32_t)s->max_units - s->x[var];
        if (dl == 0)
            continue;
        before = s->uniq;
        ctxprof__icpp_apply(s, var, dl);
        if (!s->over && s->uniq < before && nwarm < 64) {
            lost += (double)(before - s->uniq);
            nwarm++;
        }
        if (s->over || (s->uniq < before &&
                        ctxprof__icpp_unit01(&rng) >=
                            ctxprof__icpp_expneg(((double)s->uniq - (double)before) / temp))) {
            ctxprof__icpp_apply(s, var, -dl);
            continue;
        }
        if (s->uniq > best) {
            best = s->uniq;
            ctxprof__icpp_save(s, best_x);
        }
    }
    ctxprof__icpp_restore(s, best_x);
}

#define CTXPROF__ICPP_KICK_MAX 32 /* variables one kick of the local search resets at most */

/* Ours, part 2: iterated local search (Lourenco, Martin and Stutzle). A
   kick resets k variables, each one that differs between a random pair of
   units sharing a CID, to a random value (uniform up to max_units, divided
   by 1..8: small pads more often; one that breaks the height limit is not
   taken), then sweeps. The result stays unless it has fewer precise paths
   (equal ones stay: a walk along the plateau, and the sweep's tie rule
   takes pads down, giving back room under the cap); else the kick is
   undone. k starts at 1, doubles (to KICK_MAX) after 4 kicks without a
   gain, and is 1 again after one. Ends in the best state seen. */
CTXPROF__PRIV void ctxprof__icpp_ils(ctxprof__icpp_ps *s, double target, uint64_t until,
                                     uint64_t seed, ctxprof__icpp_member *mem, int32_t *best_x,
                                     int32_t *saved)
{
    size_t best = s->uniq;
    uint64_t rng = seed;
    unsigned long calls = 0;
    unsigned k = 1, stall = 0;
    uint32_t diff[CTXPROF__ICPP_DIFF], a, b;
    ctxprof__icpp_save(s, best_x);
    while (s->work < until && !s->nomem && !ctxprof__icpp_reached(s, target)) {
        size_t before = s->uniq, nm = 0;
        unsigned j;
        ctxprof__icpp_save(s, saved);
        for (j = 0; j < k; j++) { /* the kick */
            long nd = ctxprof__icpp_pick(s, mem, &nm, &calls, 1, &rng, &a, &b, diff);
            uint32_t var;
            int32_t val;
            if (nd < 0) /* nothing collides */
                goto done;
            if (nd == 0)
                continue;
            var = diff[ctxprof__icpp_rng(&rng) % (uint64_t)nd];
            val = (int32_t)(ctxprof__icpp_rng(&rng) % ((uint64_t)s->max_units + 1)) /
                  (int32_t)(1 + ctxprof__icpp_rng(&rng) % 8);
            val -= s->x[var];
            ctxprof__icpp_apply(s, var, val);
            if (s->over)
                ctxprof__icpp_apply(s, var, -val);
        }
        ctxprof__icpp_sweep(s, NULL, target, until);
        if (s->uniq > before) {
            k = 1;
            stall = 0;
        } else if (++stall >= 4) {
            k = k * 2 < CTXPROF__ICPP_KICK_MAX ? k * 2 : CTXPROF__ICPP_KICK_MAX;
            stall = 0;
        }
        if (s->uniq < before) {
            ctxprof__icpp_restore(s, saved);
        } else if (s->uniq > best) {
            best = s->uniq;
            ctxprof__icpp_save(s, best_x);
        }
    }
done:
    ctxprof__icpp_restore(s, best_x);
}

/* The paper's random search (sec. 5.1.1): pick a random ambiguous path and
   another path with its CID, grow the functions that differ between them -
   the first by 16 bytes, the second by 32, ... - until the pair separates;
   keep the change if the number of precise paths grew, else undo it,
   except that after 100 failures in a row one change is kept anyway (to
   leave local optima). Stops at the target share or after max_iter
   iterations without progress. The paper has no stack limit; under one
   (s->limit), a step that would break it is not taken. We keep the best
   state seen, which can only help it. */
CTXPROF__PRIV void ctxprof__icpp_random(ctxprof__icpp_ps *s, double target,
                                        unsigned long max_iter, uint64_t seed,
                                        ctxprof__icpp_member *mem, int32_t *best_x)
{
    size_t best = s->uniq, nm = 0;
    unsigned long since = 0, fails = 0, calls = 0;
    uint64_t rng = seed;
    uint32_t diff[CTXPROF__ICPP_DIFF], a, b;
    int32_t steps[CTXPROF__ICPP_DIFF];
    ctxprof__icpp_save(s, best_x);
    while (since < max_iter && !s->nomem && !ctxprof__icpp_reached(s, target)) {
        size_t before = s->uniq, k;
        long nd = ctxprof__icpp_pick(s, mem, &nm, &calls, 1, &rng, &a, &b, diff);
        if (nd < 0)
            break;
        for (k = 0; k < (size_t)nd; k++) {
            steps[k] = 0;
            if (s->x[diff[k]] + (int32_t)(k + 1) > (int32_t)s->max_units)
                continue;
            ctxprof__icpp_apply(s, diff[k], (int32_t)(k + 1));
            if (s->over) { /* under a growth cap: a step breaking it is not taken */
                ctxprof__icpp_apply(s, diff[k], -(int32_t)(k + 1));
                continue;
            }
            steps[k] = (int32_t)(k + 1);
            if (s->u[a].h != s->u[b].h) {
                k++;
                break;
            }
        }
        if (s->uniq > before) {
            since = 0;
            fails = 0;
        } else if (++fails >= 100) {
            fails = 0;
            since++;
        } else {
            while (k-- > 0)
                if (steps[k])
                    ctxprof__icpp_apply(s, diff[k], -steps[k]);
            since++;
        }
        if (s->uniq > best) {
            best = s->uniq;
            ctxprof__icpp_save(s, best_x);
        }
    }
    ctxprof__icpp_restore(s, best_x);
}

/* CPU seconds of the calling thread: search times that do not depend on
   what else the machine runs. */
CTXPROF__PRIV double ctxprof__icpp_cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

CTXPROF_DEF void ctxprof_icpp_pads_deinit(ctxprof_icpp_pads *p)
{
    struct ctxprof__icpp_padres *r = p ? p->d : NULL;
    size_t i;
    if (r) {
        ctxprof__strtab_deinit(&r->vars);
        ctxprof__free(r->units, NULL);
        ctxprof__free(r->ecaller, NULL);
        ctxprof__free(r->ecallee, NULL);
        ctxprof__free(r->eunits, NULL);
        for (i = 0; i < r->npairs; i++)
            ctxprof__free(r->pairs[i], NULL);
        ctxprof__free(r->pairs, NULL);
        ctxprof__free(r, NULL);
    }
    if (p)
        memset(p, 0, sizeof *p);
}

/* Partial walks (paper 6.4) for the paths the padding leaves ambiguous:
   frames read by a sequential walk and by targeted reads to single each
   one out among the paths of its padded CID (ctxprof__icpp_walk_cost on
   the padded heights). */
CTXPROF__PRIV int ctxprof__icpp_walk_stats(ctxprof__icpp_ps *s, const ctxprof_icpp_map *m,
                                           ctxprof__icpp_member *mem, ctxprof_icpp_pad_report *rep)
{
    const struct ctxprof__icpp_mapdata *d = s->d;
    uint64_t *nh = (uint64_t *)ctxprof__alloc(d->nn + 1, sizeof *nh, NULL);
    uint32_t *cand = (uint32_t *)ctxprof__alloc(CTXPROF__ICPP_WALK_MAX, sizeof *cand, NULL);
    size_t nm = 0, i, n, p, amb = 0, sep = 0;
    double seq = 0, tgt = 0;
    if (!nh || !cand) {
        ctxprof__free(nh, NULL);
        ctxprof__free(cand, NULL);
        return CTXPROF_ERR_NOMEM;
    }
    for (n = 0; n < d->nn; n++)
        nh[n] = d->nheight[n] == CTXPROF_ICPP_NO_HEIGHT ? CTXPROF_ICPP_NO_HEIGHT
                                                        : s->u[s->punit[d->nfirst[n]]].h;
    for (p = 0; p < s->np; p++) {
        const ctxprof__icpp_unit *un = &s->u[s->punit[p]];
        if (un->w && ctxprof__icpp_tab_count(s, un) >= 2) {
            mem[nm].leaf = un->leaf;
            mem[nm].height = un->h;
            mem[nm].unit = (uint32_t)p; /* a path here */
            nm++;
        }
    }
    qsort(mem, nm, sizeof *mem, ctxprof__icpp_member_cmp);
    rep->walk_depth_max = rep->walk_reads_max = 0;
    for (i = 0; i < nm;) {
        size_t j = i, k;
        while (j < nm && mem[j].leaf == mem[i].leaf && mem[j].height == mem[i].height)
            j++;
        amb += j - i;
        for (k = i; k < j && j - i <= CTXPROF__ICPP_WALK_MAX; k++)
            cand[k - i] = mem[k].unit;
        for (k = i; k < j && j - i <= CTXPROF__ICPP_WALK_MAX; k++) {
            uint32_t sq, tg;
            if (!ctxprof__icpp_walk_cost(m, nh, mem[k].unit, cand, j - i, &sq, &tg))
                continue;
            sep++;
            seq += sq;
            tgt += tg;
            if (sq > rep->walk_depth_max)
                rep->walk_depth_max = sq;
            if (tg > rep->walk_reads_max)
                rep->walk_reads_max = tg;
        }
        i = j;
    }
    rep->walk_depth_mean = sep ? seq / (double)sep : 0;
    rep->walk_reads_mean = sep ? tgt / (double)sep : 0;
    rep->walk_separable = amb ? (double)sep / (double)amb : 1;
    ctxprof__free(nh, NULL);
    ctxprof__free(cand, NULL);
    return CTXPROF_OK;
}

/* Inseparable paths are the units of two or more paths (same leaf, same
   unpadded height, same multiset of functions: function padding adds the
   same to all of them). Pairs among them are "permutation" when their
   edges differ (call-site wrapping separates them) or "identical edges"
   (cloning needed, 5.3). Fills the share, the pair counts and up to
   max_pairs example pairs, the permutations first. */
typedef struct ctxprof__icpp_sig {
    uint32_t unit, path;
    uint64_t esig;
} ctxprof__icpp_sig;

CTXPROF__PRIV int ctxprof__icpp_sig_cmp(const void *a, const void *b)
{
    const ctxprof__icpp_sig *x = (const ctxprof__icpp_sig *)a, *y = (const ctxprof__icpp_sig *)b;
    if (x->unit != y->unit)
        return x->unit < y->unit ? -1 : 1;
    if (x->esig != y->esig)
        return x->esig < y->esig ? -1 : 1;
    return x->path < y->path ? -1 : x->path > y->path;
}

/* Times the edge (caller var, callee var) occurs on the path f[0..n). */
CTXPROF__PRIV size_t ctxprof__icpp_edge_count(const uint32_t *f, size_t n, const uint32_t *fvar,
                                              uint32_t cv, uint32_t ev)
{
    size_t i, c = 0;
    for (i = 1; i < n; i++)
        c += fvar[f[i - 1]] == cv && fvar[f[i]] == ev;
    return c;
}

/* The "# pair" text of paths pa and pb of one unit: the kind; for a
   permutation the first edge (from the root) that one path takes more
   often than the other, so wrapping its call sites separates them; the
   common prefix once (first and last function when longer than 3), then
   both tails. NULL when out of memory. */
CTXPROF__PRIV char *ctxprof__icpp_pair_line(const struct ctxprof__icpp_mapdata *d,
                                            const uint32_t *fvar, const ctxprof__strtab *vars,
                                            uint32_t pa, uint32_t pb, int same_edges)
{
    size_t la = d->ndepth[d->pnode[pa]], lb = d->ndepth[d->pnode[pb]], c = 0, i, k, lf;
    const char *caller = NULL, *callee = NULL;
    uint32_t *fa, *fb, *f;
    ctxprof__sbuf b;
    fa = (uint32_t *)ctxprof__alloc(la + lb + 1, sizeof *fa, NULL);
    if (!fa)
        return NULL;
    fb = fa + la;
    ctxprof__icpp_path_funcs(d, pa, fa, la);
    ctxprof__icpp_path_funcs(d, pb, fb, lb);
    while (c < la && c < lb && fa[c] == fb[c])
        c++;
    for (k = 0; !same_edges && !caller && k < 2; k++) {
        f = k ? fb : fa;
        lf = k ? lb : la;
        for (i = 1; i < lf && !caller; i++) {
            uint32_t cv = fvar[f[i - 1]], ev = fvar[f[i]];
            if (ctxprof__icpp_edge_count(fa, la, fvar, cv, ev) !=
                ctxprof__icpp_edge_count(fb, lb, fvar, cv, ev)) {
                caller = vars->names[cv];
                callee = vars->names[ev];
            }
        }
    }
    memset(&b, 0, sizeof b);
    if (same_edges)
        ctxprof__sbuf_printf(&b, "identical-edges (clone, 5.3): ");
    else if (caller)
        ctxprof__sbuf_printf(&b, "permutation (wrap %s -> %s, 5.2): ", caller, callee);
    else
        ctxprof__sbuf_printf(&b, "permutation (wrap a call site, 5.2): ");
    for (i = 0; i < c; i++) {
        if (c > 3 && i == 1) {
            ctxprof__sbuf_printf(&b, ">[%zu]", c - 2);
            i = c - 2;
            continue;
        }
        ctxprof__sbuf_printf(&b, "%s%s", i ? ">" : "", d->names.names[fa[i]]);
    }
    for (k = 0; k < 2; k++) {
        f = k ? fb : fa;
        lf = k ? lb : la;
        ctxprof__sbuf_printf(&b, "%s", k ? " | " : c ? ": " : "");
        for (i = c; i < lf; i++)
            ctxprof__sbuf_printf(&b, "%s%s", i > c ? ">" : "", d->names.names[f[i]]);
    }
    ctxprof__free(fa, NULL);
    if (b.failed) {
        ctxprof__free(b.p, NULL);
        return NULL;
    }
    return b.p;
}

CTXPROF__PRIV int ctxprof__icpp_inseparable(ctxprof__icpp_ps *s, const uint32_t *fvar,
                                            struct ctxprof__icpp_padres *r,
                                            ctxprof_icpp_pad_report *rep, size_t max_pairs)
{
    const struct ctxprof__icpp_mapdata *d = s->d;
    uint64_t *es = (uint64_t *)ctxprof__alloc(d->nn, sizeof *es, NULL);
    ctxprof__icpp_sig *sg = (ctxprof__icpp_sig *)ctxprof__alloc(s->np + 1, sizeof *sg, NULL);
    size_t n, p, ns = 0, i, j, a, b, e, insep = 0;
    int rc = CTXPROF_ERR_NOMEM, pass;
    if (!es || !sg)
        goto done;
    es[0] = 0;
    for (n = 1; n < d->nn; n++) {
        uint32_t par = d->nparent[n];
        uint32_t pv = par ? fvar[d->nfunc[par]] : CTXPROF__ICPP_NONE;
        es[n] = es[par] + ctxprof__icpp_zvar(((uint64_t)pv << 32) | fvar[d->nfunc[n]], 0xE7);
    }
    for (p = 0; p < s->np; p++) {
        if (s->u[s->punit[p]].w < 2)
            continue;
        sg[ns].unit = s->punit[p];
        sg[ns].path = (uint32_t)p;
        sg[ns].esig = es[d->pnode[p]];
        ns++;
    }
    qsort(sg, ns, sizeof *sg, ctxprof__icpp_sig_cmp);
    rep->pairs_permutation = rep->pairs_identical_edges = 0;
    for (i = 0; i < ns; i = j) {
        size_t k, same = 0;
        for (j = i; j < ns && sg[j].unit == sg[i].unit; j++)
            ;
        k = j - i;
        insep += k;
        for (a = i; a < j; a = e) { /* runs of equal edge signatures */
            for (e = a; e < j && sg[e].esig == sg[a].esig; e++)
                ;
            same += (e - a) * (e - a - 1) / 2;
        }
        rep->pairs_identical_edges += same;
        rep->pairs_permutation += k * (k - 1) / 2 - same;
    }
    /* examples: permutations (pass 0: a path with one of another run of
       its unit), then identical edges (pass 1: two of one run) */
    for (pass = 0; pass < 2; pass++)
        for (i = 0; i < ns && r->npairs < max_pairs; i = j) {
            for (j = i; j < ns && sg[j].unit == sg[i].unit; j++)
                ;
            for (a = i; a < j && r->npairs < max_pairs; a = e) {
                size_t x;
                for (e = a; e < j && sg[e].esig == sg[a].esig; e++)
                    ;
                for (x = a; x < e && r->npairs < max_pairs; x++)
                    for (b = pass ? x + 1 : e; b < (pass ? e : j) && r->npairs < max_pairs; b++) {
                        char *line;
                        if (ctxprof__reserve((void **)&r->pairs, &r->pcap, r->npairs,
                                             r->npairs + 1, sizeof *r->pairs, NULL))
                            goto done;
                        line = ctxprof__icpp_pair_line(d, fvar, &r->vars, sg[x].path, sg[b].path,
                                                       pass);
                        if (!line)
                            goto done;
                        r->pairs[r->npairs++] = line;
                    }
            }
        }
    rep->inseparable = s->np ? (double)insep / (double)s->np : 0;
    /* from the counts, as the other shares: 1 - inseparable can round one
       ulp off (np - insep) / np and break precise_after,
       precise_bound_capped <= precise_bound */
    rep->precise_bound = s->np ? (double)(s->np - insep) / (double)s->np : 1;
    rc = CTXPROF_OK;
done:
    ctxprof__free(es, NULL);
    ctxprof__free(sg, NULL);
    return rc;
}

/* The cap-aware bound (below): the padded heights a unit can reach. */
typedef struct ctxprof__icpp_span {
    uint32_t leaf, res, one; /* one: a single path (counts when alone) */
    uint64_t lo, hi;         /* slots: heights / 16 */
} ctxprof__icpp_span;

CTXPROF__PRIV int ctxprof__icpp_span_cmp(const void *a, const void *b)
{
    const ctxprof__icpp_span *x = (const ctxprof__icpp_span *)a;
    const ctxprof__icpp_span *y = (const ctxprof__icpp_span *)b;
    if (x->leaf != y->leaf)
        return x->leaf < y->leaf ? -1 : 1;
    if (x->res != y->res)
        return x->res < y->res ? -1 : 1;
    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    return x->hi < y->hi ? -1 : x->hi > y->hi;
}

/* Min-heap of interval ends. */
CTXPROF__PRIV void ctxprof__icpp_heap_push(uint64_t *hp, size_t *n, uint64_t v)
{
    size_t i = (*n)++;
    while (i > 0 && hp[(i - 1) / 2] > v) {
        hp[i] = hp[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    hp[i] = v;
}

CTXPROF__PRIV void ctxprof__icpp_heap_pop(uint64_t *hp, size_t *n)
{
    uint64_t v = hp[--*n];
    size_t i = 0, c;
    while ((c = 2 * i + 1) < *n) {
        if (c + 1 < *n && hp[c + 1] < hp[c])
            c++;
        if (hp[c] >= v)
            break;
        hp[i] = hp[c];
        i = c;
    }
    hp[i] = v;
}

/* The most spans of sp[0..n) (sorted by lo; only those with `one` set
   when only_one) that get distinct slots inside their ranges: a maximum
   matching of intervals to points, exact by sweeping the slots upwards and
   giving each slot the waiting span that ends first. */
CTXPROF__PRIV size_t ctxprof__icpp_span_match(const ctxprof__icpp_span *sp, size_t n, int only_one,
                                              uint64_t *hp)
{
    size_t nh = 0, k = 0, matched = 0;
    uint64_t at = 0;
    while (k < n || nh) {
        if (!nh) {
            while (k < n && only_one && !sp[k].one)
                k++;
            if (k == n)
                break;
            if (at < sp[k].lo)
                at = sp[k].lo;
        }
        for (; k < n && sp[k].lo <= at; k++)
            if (sp[k].one || !only_one)
                ctxprof__icpp_heap_push(hp, &nh, sp[k].hi);
        while (nh && hp[0] < at)
            ctxprof__icpp_heap_pop(hp, &nh);
        if (nh) {
            ctxprof__icpp_heap_pop(hp, &nh);
            matched++;
            at++;
        }
    }
    return matched;
}

/* The most precise paths any padding within the cap (s->limit) and
   max_units can give: a cap-aware upper bound (the report's
   precise_bound_capped). Padding only adds, in 16-byte steps, so a unit
   unpadded at h0 ends at h0 + 16k (k >= 0) and keeps its residue mod 16.
   Two limits on k follow from the cap: a path q below p in the trie (p's
   path a prefix of q's) pads at least as much as p, so p's padded height
   is at most limit - (h0[q] - h0[p]); and a variable of multiplicity m on
   a path of height h0 pads at most (limit - h0) / 16 / m units (and
   max_units), so p pads at most the sum of those over its nodes. Units of
   one leaf function and residue share one set of slots: with M the most
   of them that get distinct slots and M1 the same for the single-path
   units, the precise paths there are at most M1, and at most M - 1 when
   there are more units than M (some slot then holds two). Each unit's
   range is checked alone, so the bound is not always reachable. */
CTXPROF__PRIV int ctxprof__icpp_capped_bound(ctxprof__icpp_ps *s, double *out)
{
    const struct ctxprof__icpp_mapdata *d = s->d;
    uint64_t *maxh = (uint64_t *)ctxprof__alloc(d->nn + 1, sizeof *maxh, NULL);
    uint64_t *room = (uint64_t *)ctxprof__alloc(d->nn + 1, sizeof *room, NULL);
    uint64_t *vmax = (uint64_t *)ctxprof__alloc(s->nv + 1, sizeof *vmax, NULL);
    uint64_t *hp = (uint64_t *)ctxprof__alloc(s->nu + 1, sizeof *hp, NULL);
    ctxprof__icpp_span *sp = (ctxprof__icpp_span *)ctxprof__alloc(s->nu + 1, sizeof *sp, NULL);
    size_t n, p, v, u, ns = 0, i, j, precise = s->fixed;
    int rc = CTXPROF_ERR_NOMEM;
    if (!maxh || !room || !vmax || !hp || !sp)
        goto done;
    /* the deepest path at or below each node */
    for (n = 0; n < d->nn; n++)
        maxh[n] = 0;
    for (p = 0; p < s->np; p++)
        if (d->pheight[p] > maxh[d->pnode[p]])
            maxh[d->pnode[p]] = d->pheight[p];
    for (n = d->nn; n-- > 1;) /* preorder: children after their parent */
        if (maxh[n] > maxh[d->nparent[n]])
            maxh[d->nparent[n]] = maxh[n];
    /* each variable's largest pad: the units through it must fit */
    for (v = 0; v < s->nv; v++) {
        vmax[v] = s->frozen[v] ? 0 : s->max_units;
        for (i = s->vfirst[v]; i < s->vfirst[v + 1]; i++) {
            uint64_t h0 = d->pheight[s->urep[s->vunit[i]]];
            uint64_t most = s->limit >= h0 ? (s->limit - h0) / 16 / s->vmul[i] : 0;
            if (most < vmax[v])
                vmax[v] = most;
        }
    }
    /* room[n]: the most a path ending at n can pad, summed down the trie */
    room[0] = 0;
    for (n = 1; n < d->nn; n++)
        room[n] = room[d->nparent[n]] + vmax[s->nvar[n]];
    for (u = 0; u < s->nu; u++) {
        uint64_t h0, top;
        if (!s->u[u].w)
            continue; /* alone with its leaf: always precise (in s->fixed) */
        p = s->urep[u];
        n = d->pnode[p];
        h0 = d->pheight[p];
        top = s->limit >= maxh[n] ? s->limit - (maxh[n] - h0) : h0;
        if (room[n] < (top - h0) / 16)
            top = h0 + 16 * room[n];
        sp[ns].leaf = s->u[u].leaf;
        sp[ns].res = (uint32_t)(h0 & 15);
        sp[ns].one = s->u[u].w == 1;
        sp[ns].lo = h0 >> 4;
        sp[ns].hi = (h0 >> 4) + (top - h0) / 16;
        ns++;
    }
    qsort(sp, ns, sizeof *sp, ctxprof__icpp_span_cmp);
    for (i = 0; i < ns; i = j) { /* one leaf and residue */
        size_t all, ones;
        for (j = i; j < ns && sp[j].leaf == sp[i].leaf && sp[j].res == sp[i].res; j++)
            ;
        all = ctxprof__icpp_span_match(sp + i, j - i, 0, hp);
        ones = ctxprof__icpp_span_match(sp + i, j - i, 1, hp);
        if (all < j - i && all > 0 && ones > all - 1)
            ones = all - 1;
        precise += ones;
    }
    *out = s->np ? (double)precise / (double)s->np : 1;
    rc = CTXPROF_OK;
done:
    ctxprof__free(maxh, NULL);
    ctxprof__free(room, NULL);
    ctxprof__free(vmax, NULL);
    ctxprof__free(hp, NULL);
    ctxprof__free(sp, NULL);
    return rc;
}

/* Share of paths with at most `most` paths on their CID. */
CTXPROF__PRIV double ctxprof__icpp_share_le(const ctxprof__icpp_ps *s, uint32_t most)
{
    size_t u, n = 0;
    for (u = 0; u < s->nu; u++)
        if (!s->u[u].w)
            n++;
        else if (ctxprof__icpp_tab_count(s, &s->u[u]) <= most)
            n += s->u[u].w;
    return s->np ? (double)n / (double)s->np : 1;
}

/* Edge variables for call-site wrapping: node -> (caller var, callee var)
   into evar; *nedges of them. Edges from the root (calls from outside the
   map) cannot be wrapped: frozen[e]. */
CTXPROF__PRIV int ctxprof__icpp_edges(const struct ctxprof__icpp_mapdata *d, const uint32_t *fvar,
                                      struct ctxprof__icpp_padres *r, uint32_t *evar,
                                      uint8_t *frozen)
{
    size_t sz = 64, n, ne = 0;
    uint64_t *keys;
    uint32_t *ids;
    while (sz < 2 * d->nn)
        sz *= 2;
    keys = (uint64_t *)ctxprof__alloc(sz, sizeof *keys, NULL);
    ids = (uint32_t *)ctxprof__alloc(sz, sizeof *ids, NULL);
    r->ecaller = (uint32_t *)ctxprof__alloc(d->nn + 1, sizeof *r->ecaller, NULL);
    r->ecallee = (uint32_t *)ctxprof__alloc(d->nn + 1, sizeof *r->ecallee, NULL);
    if (!keys || !ids || !r->ecaller || !r->ecallee) {
        ctxprof__free(keys, NULL);
        ctxprof__free(ids, NULL);
        return CTXPROF_ERR_NOMEM;
    }
    memset(keys, 0xff, sz * sizeof *keys);
    evar[0] = 0;
    for (n = 1; n < d->nn; n++) {
        uint32_t par = d->nparent[n];
        uint32_t pv = par ? fvar[d->nfunc[par]] : CTXPROF__ICPP_NONE, v = fvar[d->nfunc[n]];
        uint64_t key = ((uint64_t)pv << 32) | v;
        size_t j = (size_t)ctxprof_mix64(key) & (sz - 1);
        while (keys[j] != UINT64_MAX && keys[j] != key)
            j = (j + 1) & (sz - 1);
        if (keys[j] == UINT64_MAX) {
            keys[j] = key;
            ids[j] = (uint32_t)ne;
            r->ecaller[ne] = pv;
            r->ecallee[ne] = v;
            frozen[ne] = par == 0;
            ne++;
        }
        evar[n] = ids[j];
    }
    ctxprof__free(keys, NULL);
    ctxprof__free(ids, NULL);
    r->nedges = ne;
    return CTXPROF_OK;
}

/* Ours, within `budget` unit moves: coordinate sweeps (they bring most of
   the gain, the first one most of all), iterated local search with 70% of
   what is left, annealing with the rest, then one more sweep if the budget
   allows. The local search gains most where the sweeps' optimum is far
   from the best (synthetic maps, the C parser), annealing's small moves
   where it is close (calc, zipfwalk). (A second pass, sweeps from a looser
   cap tightened back in steps, was dropped: on the corrected synthetic
   maps and the trained ones it lost to this one on 14 of 15 map and cap
   pairs, and it doubled the time.) best_x and saved: nv each. */
CTXPROF__PRIV void ctxprof__icpp_ours(ctxprof__icpp_ps *s, double target, uint64_t budget,
                                      uint64_t seed, ctxprof__icpp_member *mem, int32_t *best_x,
                                      int32_t *saved)
{
    uint64_t end = s->work + budget;
    ctxprof__icpp_sweep(s, NULL, target, end);
    if (s->work < end)
        ctxprof__icpp_ils(s, target, s->work + (end - s->work) / 10 * 7, seed, mem, best_x, saved);
    if (s->work < end)
        ctxprof__icpp_anneal(s, target, end - s->work, seed, mem, best_x);
    ctxprof__icpp_sweep(s, NULL, target, end);
}

CTXPROF_DEF int ctxprof_icpp_pad_compute(const ctxprof_icpp_map *m,
                                         const ctxprof_icpp_pad_desc *desc,
                                         ctxprof_icpp_pads *out, ctxprof_error *err)
{
    ctxprof_icpp_pad_desc dd;
    ctxprof_icpp_pad_report *rep;
    struct ctxprof__icpp_padres *r = NULL;
    const struct ctxprof__icpp_mapdata *d = m ? m->d : NULL;
    ctxprof__icpp_ps s, e;
    uint32_t *fvar = NULL, *nvar = NULL, *evar = NULL;
    uint64_t *hh = NULL;
    int32_t *best_x = NULL, *saved = NULL;
    ctxprof__icpp_member *mem = NULL;
    uint8_t *frozen = NULL;
    size_t p, n, f, v;
    uint64_t maxh = 0, limit;
    double t0 = ctxprof__icpp_cpu_seconds();
    ctxprof__error_clear(err);
    memset(&s, 0, sizeof s);
    memset(&e, 0, sizeof e);
    if (!d || !out)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "icpp: pad needs a loaded map");
    memset(out, 0, sizeof *out);
    memset(&dd, 0, sizeof dd);
    if (desc)
        dd = *desc;
    if (dd.search < CTXPROF_ICPP_SEARCH_GREEDY || dd.search > CTXPROF_ICPP_SEARCH_NONE)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "icpp: unknown search %d", dd.search);
    if (dd.max_growth == 0 && dd.search == CTXPROF_ICPP_SEARCH_GREEDY)
        dd.max_growth = 1.2;
    if (dd.max_growth != 0 && !(dd.max_growth >= 1))
        return ctxprof__fail(err, CTXPROF_ERR_RANGE, 0, "icpp: max_growth %g < 1", dd.max_growth);
    if (dd.max_units > 65536) /* the searches keep pads in int32_t */
        return ctxprof__fail(err, CTXPROF_ERR_RANGE, 0, "icpp: max_units %u > 65536",
                             dd.max_units);
    if (dd.target == 0)
        dd.target = dd.search == CTXPROF_ICPP_SEARCH_RANDOM ? 0.97 : 1.0;
    if (dd.seed == 0)
        dd.seed = 1;
    if (dd.max_units == 0)
        dd.max_units = 256;
    if (dd.max_iterations == 0)
        dd.max_iterations = 2000;
    if (dd.budget == 0)
        dd.budget = 1200000000u;
    r = (struct ctxprof__icpp_padres *)ctxprof__zalloc(1, sizeof *r, NULL);
    if (!r)
        goto nomem;
    ctxprof__strtab_init(&r->vars, NULL);
    out->d = r;
    rep = &out->report;
    /* variables: source functions */
    fvar = (uint32_t *)ctxprof__alloc(d->names.n + 1, sizeof *fvar, NULL);
    nvar = (uint32_t *)ctxprof__alloc(d->nn + 1, sizeof *nvar, NULL);
    hh = (uint64_t *)ctxprof__alloc(d->np + 1, sizeof *hh, NULL);
    mem = (ctxprof__icpp_member *)ctxprof__alloc(d->np + 1, sizeof *mem, NULL);
    if (!fvar || !nvar || !hh || !mem)
        goto nomem;
    for (f = 0; f < d->names.n; f++)
        if (ctxprof__icpp_var_of(&r->vars, d->names.names[f], &fvar[f]))
            goto nomem;
    nvar[0] = 0;
    for (n = 1; n < d->nn; n++)
        nvar[n] = fvar[d->nfunc[n]];
    for (p = 0; p < d->np; p++)
        if (d->pheight[p] > maxh)
            maxh = d->pheight[p];
    limit = dd.max_growth > 0 && dd.max_growth < 1e6 ? (uint64_t)(dd.max_growth * (double)maxh)
                                                     : UINT64_MAX;
    if (ctxprof__icpp_ps_build(&s, d, nvar, r->vars.n, d->pheight, limit, dd.max_units))
        goto nomem;
    best_x = (int32_t *)ctxprof__alloc(d->nn + s.nv + 1, sizeof *best_x, NULL);
    saved = (int32_t *)ctxprof__alloc(d->nn + s.nv + 1, sizeof *saved, NULL);
    if (!best_x || !saved)
        goto nomem;
    rep->paths = s.np;
    rep->max_height_before = maxh;
    rep->precise_before = s.np ? (double)ctxprof__icpp_precise(&s) / (double)s.np : 1;
    if (ctxprof__icpp_capped_bound(&s, &rep->precise_bound_capped))
        goto nomem;
    if (dd.search == CTXPROF_ICPP_SEARCH_GREEDY)
        ctxprof__icpp_ours(&s, dd.target, dd.budget, dd.seed, mem, best_x, saved);
    else if (dd.search == CTXPROF_ICPP_SEARCH_RANDOM)
        ctxprof__icpp_random(&s, dd.target, dd.max_iterations, dd.seed, mem, best_x);
    if (s.nomem)
        goto nomem;
    r->units = (uint32_t *)ctxprof__alloc(s.nv + 1, sizeof *r->units, NULL);
    if (!r->units)
        goto nomem;
    for (v = 0; v < s.nv; v++) {
        r->units[v] = s.x[v] > 0 ? (uint32_t)s.x[v] : 0;
        rep->functions_padded += r->units[v] > 0;
    }
    rep->precise_after = s.np ? (double)ctxprof__icpp_precise(&s) / (double)s.np : 1;
    rep->ambiguity_le2_after = ctxprof__icpp_share_le(&s, 2);
    rep->max_height_after = 0;
    for (p = 0; p < s.nu; p++)
        if (s.u[p].h > rep->max_height_after)
            rep->max_height_after = s.u[p].h;
    rep->max_stack_growth = maxh ? (double)rep->max_height_after / (double)maxh : 1;
    rep->precise_after_wrap = rep->precise_after;
    if (ctxprof__icpp_inseparable(&s, fvar, r, rep, dd.max_pairs ? dd.max_pairs : 32))
        goto nomem;
    if (ctxprof__icpp_walk_stats(&s, m, mem, rep))
        goto nomem;
    rep->moves = s.moves;
    if (dd.wrap && dd.search == CTXPROF_ICPP_SEARCH_GREEDY) {
        /* call-site wrapping for what padding left: edge variables over the
           padded heights, the same search */
        frozen = (uint8_t *)ctxprof__zalloc(d->nn + 1, 1, NULL);
        evar = (uint32_t *)ctxprof__alloc(d->nn + 1, sizeof *evar, NULL);
        if (!frozen || !evar || ctxprof__icpp_edges(d, fvar, r, evar, frozen))
            goto nomem;
        for (p = 0; p < d->np; p++)
            hh[p] = s.u[s.punit[p]].h;
        if (ctxprof__icpp_ps_build(&e, d, evar, r->nedges, hh, limit, dd.max_units))
            goto nomem;
        memcpy(e.frozen, frozen, r->nedges);
        ctxprof__icpp_ours(&e, dd.target, dd.budget, dd.seed, mem, best_x, saved);
        if (e.nomem)
            goto nomem;
        r->eunits = (uint32_t *)ctxprof__alloc(e.nv + 1, sizeof *r->eunits, NULL);
        if (!r->eunits)
            goto nomem;
        for (v = 0; v < e.nv; v++) {
            r->eunits[v] = e.x[v] > 0 ? (uint32_t)e.x[v] : 0;
            rep->sites_wrapped += r->eunits[v] > 0;
        }
        rep->precise_after_wrap = e.np ? (double)ctxprof__icpp_precise(&e) / (double)e.np : 1;
        for (p = 0; p < e.nu; p++)
            if (e.u[p].h > rep->max_height_after)
                rep->max_height_after = e.u[p].h;
        rep->max_stack_growth = maxh ? (double)rep->max_height_after / (double)maxh : 1;
        rep->moves += e.moves;
    }
    rep->seconds = ctxprof__icpp_cpu_seconds() - t0;
    ctxprof__icpp_ps_free(&s);
    ctxprof__icpp_ps_free(&e);
    ctxprof__free(fvar, NULL);
    ctxprof__free(nvar, NULL);
    ctxprof__free(evar, NULL);
    ctxprof__free(hh, NULL);
    ctxprof__free(mem, NULL);
    ctxprof__free(best_x, NULL);
    ctxprof__free(saved, NULL);
    ctxprof__free(frozen, NULL);
    return CTXPROF_OK;
nomem:
    ctxprof__icpp_ps_free(&s);
    ctxprof__icpp_ps_free(&e);
    ctxprof__free(fvar, NULL);
    ctxprof__free(nvar, NULL);
    ctxprof__free(evar, NULL);
    ctxprof__free(hh, NULL);
    ctxprof__free(mem, NULL);
    ctxprof__free(best_x, NULL);
    ctxprof__free(saved, NULL);
    ctxprof__free(frozen, NULL);
    ctxprof_icpp_pads_deinit(out);
    return ctxprof__fail(err, CTXPROF_ERR_NOMEM, 0, "icpp: out of memory computing padding");
}

CTXPROF_DEF unsigned ctxprof_icpp_pads_units(const ctxprof_icpp_pads *p, const char *func)
{
    long v = p && p->d && func ? ctxprof__strtab_find(&p->d->vars, func) : -1;
    return v >= 0 && p->d->units ? p->d->units[v] : 0;
}

CTXPROF_DEF unsigned ctxprof_icpp_pads_wrap_units(const ctxprof_icpp_pads *p, const char *caller,
                                                  const char *callee)
{
    long a, b;
    size_t e;
    if (!p || !p->d || !p->d->eunits || !caller || !callee)
        return 0;
    a = ctxprof__strtab_find(&p->d->vars, caller);
    b = ctxprof__strtab_find(&p->d->vars, callee);
    for (e = 0; a >= 0 && b >= 0 && e < p->d->nedges; e++)
        if (p->d->ecaller[e] == (uint32_t)a && p->d->ecallee[e] == (uint32_t)b)
            return p->d->eunits[e];
    return 0;
}

CTXPROF_DEF size_t ctxprof_icpp_pads_report_text(const ctxprof_icpp_pads *p, size_t max_pairs,
                                                 char *buf, size_t size)
{
    ctxprof__sbuf b;
    const ctxprof_icpp_pad_report *r = &p->report;
    size_t i, len;
    memset(&b, 0, sizeof b);
    ctxprof__sbuf_printf(&b, "paths=%zu\n", r->paths);
    ctxprof__sbuf_printf(&b, "precise_before=%.4f\n", r->precise_before);
    ctxprof__sbuf_printf(&b, "precise_after=%.4f\n", r->precise_after);
    ctxprof__sbuf_printf(&b, "ambiguity_le2_after=%.4f\n", r->ambiguity_le2_after);
    ctxprof__sbuf_printf(&b, "max_stack_growth=%.4f\n", r->max_stack_growth);
    ctxprof__sbuf_printf(&b, "inseparable=%.4f\n", r->inseparable);
    ctxprof__sbuf_printf(&b, "precise_bound=%.4f\n", r->precise_bound);
    ctxprof__sbuf_printf(&b, "precise_bound_capped=%.4f\n", r->precise_bound_capped);
    ctxprof__sbuf_printf(&b, "functions_padded=%zu\n", r->functions_padded);
    ctxprof__sbuf_printf(&b, "max_height_before=%llu\n", (unsigned long long)r->max_height_before);
    ctxprof__sbuf_printf(&b, "max_height_after=%llu\n", (unsigned long long)r->max_height_after);
    ctxprof__sbuf_printf(&b, "pairs_permutation=%zu\n", r->pairs_permutation);
    ctxprof__sbuf_printf(&b, "pairs_identical_edges=%zu\n", r->pairs_identical_edges);
    ctxprof__sbuf_printf(&b, "walk_depth_max=%zu\n", r->walk_depth_max);
    ctxprof__sbuf_printf(&b, "walk_depth_mean=%.3f\n", r->walk_depth_mean);
    ctxprof__sbuf_printf(&b, "walk_reads_max=%zu\n", r->walk_reads_max);
    ctxprof__sbuf_printf(&b, "walk_reads_mean=%.3f\n", r->walk_reads_mean);
    ctxprof__sbuf_printf(&b, "walk_separable=%.4f\n", r->walk_separable);
    if (p->d && p->d->eunits) {
        ctxprof__sbuf_printf(&b, "precise_after_wrap=%.4f\n", r->precise_after_wrap);
        ctxprof__sbuf_printf(&b, "sites_wrapped=%zu\n", r->sites_wrapped);
    }
    ctxprof__sbuf_printf(&b, "moves=%lu\n", r->moves);
    ctxprof__sbuf_printf(&b, "seconds=%.3f\n", r->seconds);
    for (i = 0; p->d && i < p->d->npairs && i < max_pairs; i++)
        ctxprof__sbuf_printf(&b, "# pair %s\n", p->d->pairs[i]);
    len = b.failed ? 0 : b.len;
    if (size) {
        size_t n = len < size ? len : size - 1;
        if (n)
            memcpy(buf, b.p, n);
        buf[n] = '\0';
    }
    ctxprof__free(b.p, NULL);
    return len;
}

CTXPROF__PRIV int ctxprof__icpp_is_ident(const char *s)
{
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_' ||
              (*s >= '0' && *s <= '9')))
            return 0;
    return 1;
}

typedef struct ctxprof__icpp_named {
    const char *a, *b;
    uint32_t units;
} ctxprof__icpp_named;

CTXPROF__PRIV int ctxprof__icpp_named_cmp(const void *x, const void *y)
{
    const ctxprof__icpp_named *a = (const ctxprof__icpp_named *)x;
    const ctxprof__icpp_named *b = (const ctxprof__icpp_named *)y;
    int c = strcmp(a->a, b->a);
    return c ? c : strcmp(a->b, b->b);
}

CTXPROF_DEF int ctxprof_icpp_pads_emit(const ctxprof_icpp_pads *p, const char *input_name,
                                       const char *output_name, char **out, size_t *out_len,
                                       ctxprof_error *err)
{
    const struct ctxprof__icpp_padres *r = p ? p->d : NULL;
    ctxprof__sbuf b;
    ctxprof__icpp_named *list = NULL;
    char guard[128];
    size_t i, n = 0, k, skipped = 0;
    const char *base;
    ctxprof__error_clear(err);
    *out = NULL;
    *out_len = 0;
    if (!r || !r->units)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "icpp: no padding computed");
    memset(&b, 0, sizeof b);
    /* include guard from the output's base name */
    base = output_name && strcmp(output_name, "-") ? output_name : "ctxprof_pads.h";
    if (strrchr(base, '/'))
        base = strrchr(base, '/') + 1;
    k = (size_t)snprintf(guard, sizeof guard, "CTXPROF_GEN_");
    for (i = 0; base[i] && k + 2 < sizeof guard; i++) {
        char c = base[i];
        guard[k++] = (char)((c >= 'a' && c <= 'z') ? c - 'a' + 'A'
                            : ((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) ? c
                                                                                   : '_');
    }
    guard[k] = '\0';
    list = (ctxprof__icpp_named *)ctxprof__alloc(r->vars.n + r->nedges + 1, sizeof *list, NULL);
    if (!list)
        return ctxprof__fail(err, CTXPROF_ERR_NOMEM, 0, "icpp: out of memory");
    ctxprof__sbuf_printf(&b,
                         "/* Frame padding for ICPP (activation record resizing, Mytkowicz et al.,\n"
                         "   OOPSLA'09 sec. 5). Generated by ctxprof-gen %s from %s; do not edit.\n",
                         CTXPROF_VERSION_STRING, input_name ? input_name : "<paths>");
    ctxprof__sbuf_printf(&b,
                         "   paths=%zu precise_before=%.4f precise_after=%.4f "
                         "max_stack_growth=%.4f inseparable=%.4f\n",
                         p->report.paths, p->report.precise_before, p->report.precise_after,
                         p->report.max_stack_growth, p->report.inseparable);
    ctxprof__sbuf_printf(&b,
                         "   Values are 16-byte units after \"~,\" (ctxprof.h reads absent names "
                         "as 0):\n   put CTXPROF_ICPP_PAD(f) or CTXPROF_ICPP_FUNC(f) first in f, "
                         "and wrap\n   listed calls as CTXPROF_ICPP_CALL(caller, callee, stmt). */\n");
    ctxprof__sbuf_printf(&b, "#ifndef %s\n#define %s\n\n", guard, guard);
    for (i = 0; i < r->vars.n; i++)
        if (r->units[i]) {
            if (!ctxprof__icpp_is_ident(r->vars.names[i])) {
                skipped++;
                continue;
            }
            list[n].a = r->vars.names[i];
            list[n].b = "";
            list[n].units = r->units[i];
            n++;
        }
    qsort(list, n, sizeof *list, ctxprof__icpp_named_cmp);
    for (i = 0; i < n; i++)
        ctxprof__sbuf_printf(&b, "#define CTXPROF_PAD_%s ~, %u /* +%u bytes */\n", list[i].a,
                             list[i].units, 16 * list[i].units);
    if (skipped)
        ctxprof__sbuf_printf(&b, "/* %zu padded names are not C identifiers (left out) */\n",
                             skipped);
    n = 0;
    for (i = 0; r->eunits && i < r->nedges; i++)
        if (r->eunits[i] && ctxprof__icpp_is_ident(r->vars.names[r->ecaller[i]]) &&
            ctxprof__icpp_is_ident(r->vars.names[r->ecallee[i]])) {
            list[n].a = r->vars.names[r->ecaller[i]];
            list[n].b = r->vars.names[r->ecallee[i]];
            list[n].units = r->eunits[i];
            n++;
        }
    qsort(list, n, sizeof *list, ctxprof__icpp_named_cmp);
    if (n)
        ctxprof__sbuf_printf(&b, "\n/* call-site wraps: each takes effect where the training build "
                                 "already had\n   CTXPROF_ICPP_CALL(caller, callee, ...) at every "
                                 "call site of its edge; the\n   precision predicted assumes all "
                                 "of them (drop a line whose sites are plain\n   calls, or wrap "
                                 "them, and retrain) */\n");
    for (i = 0; i < n; i++)
        ctxprof__sbuf_printf(&b, "#define CTXPROF_WRAP_%s__%s ~, %u\n", list[i].a, list[i].b,
                             list[i].units);
    if (r->npairs) {
        ctxprof__sbuf_printf(&b,
                             "\n/* Paths no padding can separate (same functions, same height): %zu "
                             "pairs\n   need call-site wrapping (permutation), %zu cloning "
                             "(identical edges). Examples:\n",
                             p->report.pairs_permutation, p->report.pairs_identical_edges);
        for (i = 0; i < r->npairs; i++) {
            const char *s;
            ctxprof__sbuf_put(&b, "     ", 5);
            for (s = r->pairs[i]; *s; s++) /* no comment terminators inside */
                ctxprof__sbuf_put(&b, (*s == '*' || *s == '/') ? "_" : s, 1);
            ctxprof__sbuf_put(&b, "\n", 1);
        }
        ctxprof__sbuf_printf(&b, "*/\n");
    }
    ctxprof__sbuf_printf(&b, "\n#endif\n");
    ctxprof__free(list, NULL);
    if (b.failed) {
        ctxprof__free(b.p, NULL);
        return ctxprof__fail(err, CTXPROF_ERR_NOMEM, 0, "icpp: out of memory");
    }
    *out = b.p;
    *out_len = b.len;
    return CTXPROF_OK;
}

/* --- saving training data -------------------------------------------------- */

CTXPROF__NOINSTR CTXPROF_DEF int ctxprof_icpp_train_save(const char *path, ctxprof_error *err)
{
    ctxprof_symtab st;
    int have_st, rc = CTXPROF_OK;
    struct ctxprof__icpp_mapdata *d;
    ctxprof__icpp_ts *t, *self = ctxprof__icpp_tls_ts;
    size_t keep;
    uint64_t dropped, need1;
    int self_busy = self ? self->busy : 0;
    ctxprof__error_clear(err);
    if (!path)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "icpp: no file name");
    for (t = __atomic_load_n(&ctxprof__icpp_ts_head, __ATOMIC_ACQUIRE); t; t = t->next)
        if (t->nn > 1)
            break;
    if (!t) { /* a map without paths: refused by ctxprof-gen pad, resolves nothing */
        ctxprof_icpp_train_stats ts;
        if (!ctxprof__icpp_started)
            return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0,
                                 "icpp: %s: nothing to save: training never started "
                                 "(ctxprof_icpp_train_start first)",
                                 path);
        ctxprof_icpp_train_get_stats(&ts);
        if (!ts.dropped_paths && !ts.dropped_depth && !ts.no_base && !ts.dropped_signal)
            return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0,
                                 "icpp: %s: nothing to save: no instrumented function ran "
                                 "while training was on",
                                 path);
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0,
                             "icpp: %s: nothing to save: no path recorded (entries dropped: "
                             "%llu past max_paths, %llu past max_depth, %llu without a base, "
                             "%llu in signal handlers)",
                             path, (unsigned long long)ts.dropped_paths,
                             (unsigned long long)ts.dropped_depth, (unsigned long long)ts.no_base,
                             (unsigned long long)ts.dropped_signal);
    }
    if (self)
        self->busy = 1; /* library code compiled with the hooks must not record now */
    memset(&st, 0, sizeof st); /* a stack slot: garbage may look like a live table */
    have_st = ctxprof_symtab_init(&st, NULL) == CTXPROF_OK;
    d = ctxprof__icpp_md_new();
    if (!d) {
        rc = ctxprof__fail(err, CTXPROF_ERR_NOMEM, 0, "%s: out of memory", path);
        goto done;
    }
    if (have_st)
        ctxprof__icpp_build_hex(&st, d->build);
    for (t = __atomic_load_n(&ctxprof__icpp_ts_head, __ATOMIC_ACQUIRE); t; t = t->next) {
        uint32_t *bn;
        size_t k, nn = t->nn;
        if (nn <= 1)
            continue;
        bn = (uint32_t *)ctxprof__alloc(nn, sizeof *bn, NULL);
        if (!bn) {
            rc = ctxprof__fail(err, CTXPROF_ERR_NOMEM, 0, "%s: out of memory", path);
            goto done;
        }
        bn[0] = 0;
        for (k = 1; k < nn; k++) {
            char tmp[40];
            const char *nm = have_st ? ctxprof_symtab_name(&st, t->nfunc[k]) : NULL;
            long f;
            if (!nm) {
                snprintf(tmp, sizeof tmp, "?%#llx", (unsigned long long)t->nfunc[k]);
                nm = tmp;
            }
            f = ctxprof__strtab_intern(&d->names, nm);
            bn[k] = f < 0 ? CTXPROF__ICPP_NONE
                          : ctxprof__icpp_md_child(d, bn[t->nparent[k]], (uint32_t)f);
            if (bn[k] == CTXPROF__ICPP_NONE ||
                ctxprof__icpp_md_path(d, bn[k], t->nheight[k], t->ncount[k]) ||
                (t->nbody[k] && t->nbody[k] != UINT32_MAX &&
                 ctxprof__icpp_md_body(d, (uint32_t)f, t->nbody[k]))) {
                ctxprof__free(bn, NULL);
                rc = ctxprof__fail(err, CTXPROF_ERR_NOMEM, 0, "%s: out of memory", path);
                goto done;
            }
        }
        ctxprof__free(bn, NULL);
    }
    if (ctxprof__icpp_md_finish(d) ||
        ctxprof__icpp_map_keep(d, ctxprof__icpp_max_save, &keep, &dropped, &need1)) {
        rc = ctxprof__fail(err, CTXPROF_ERR_NOMEM, 0, "%s: out of memory", path);
        goto done;
    }
    __atomic_store_n(&ctxprof__icpp_save_dropped, dropped, __ATOMIC_RELAXED);
    if (!keep) {
        rc = ctxprof__fail(err, CTXPROF_ERR_RANGE, 0,
                           "icpp: %s: nothing saved: max_save_bytes %llu is less than the %llu "
                           "bytes of the map's header and one-function paths",
                           path, (unsigned long long)ctxprof__icpp_max_save,
                           (unsigned long long)need1);
        goto done;
    }
    rc = ctxprof__icpp_map_write(d, keep, path, err);
done:
    ctxprof__icpp_md_free(d);
    if (have_st)
        ctxprof_symtab_deinit(&st);
    if (self)
        self->busy = self_busy;
    return rc;
}

/* --- -finstrument-functions hooks ------------------------------------------ */

#if defined(CTXPROF_ICPP_HOOKS) && (defined(__GNUC__) || defined(__clang__))
CTXPROF__NOINSTR void __cyg_profile_func_enter(void *fn, void *site);
CTXPROF__NOINSTR void __cyg_profile_func_exit(void *fn, void *site);

/* The hook's CFA is the instrumented function's SP at the call: its body
   SP. With training off (a build sampled after training) every call of an
   instrumented function still pays both hooks; their fast paths are one
   TLS load, one global load and the branches: everything else sits behind
   one tail call, and the CFA is computed only there (gcc then builds no
   frame on the fast path; clang still pushes the frame pointer). */
CTXPROF__NOINSTR __attribute__((noinline)) static void
ctxprof__icpp_hook_enter_slow(uintptr_t fn, uintptr_t site, uintptr_t sp)
{
    if (!ctxprof__icpp_base) /* a new thread: same rule in every run */
        ctxprof__icpp_set_base(sp);
    if (__atomic_load_n(&ctxprof__icpp_training, __ATOMIC_RELAXED))
        ctxprof__icpp_enter_slow(fn, site, sp, CTXPROF__ICPP_POINT(sp), 1);
}

CTXPROF__NOINSTR CTXPROF__ICPP_OWNFRAME void __cyg_profile_func_enter(void *fn, void *site)
{
    if (CTXPROF__UNLIKELY(!ctxprof__icpp_base ||
                          __atomic_load_n(&ctxprof__icpp_training, __ATOMIC_RELAXED)))
        ctxprof__icpp_hook_enter_slow((uintptr_t)fn, (uintptr_t)site, CTXPROF__ICPP_CFA());
}

CTXPROF__NOINSTR CTXPROF__ICPP_OWNFRAME void __cyg_profile_func_exit(void *fn, void *site)
{
    if (CTXPROF__UNLIKELY(__atomic_load_n(&ctxprof__icpp_training, __ATOMIC_RELAXED)))
        ctxprof__icpp_exit_slow((uintptr_t)fn, (uintptr_t)site, CTXPROF__ICPP_CFA(),
                                __builtin_return_address(0) == site);
}
#endif

#if (defined(CTXPROF_ICPP_HOOKS) || defined(CTXPROF_ICPP_ENV)) &&                                  \
    (defined(__GNUC__) || defined(__clang__))
/* CTXPROF_ICPP_TRAIN=FILE in the environment: train from start-up and save
   the path map at exit. The one place the library writes to stderr (one
   line, only when that save fails): the user asked for a file. */
static char ctxprof__icpp_env_path[4096];

/* The opt-in variable's one channel for errors: a line on stderr. */
CTXPROF__NOINSTR static void ctxprof__icpp_env_error(const char *what)
{
    char line[300];
    int n = snprintf(line, sizeof line, "ctxprof: CTXPROF_ICPP_TRAIN: %s\n", what);
    if (n > 0 && write(2, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1) < 0)
        return;
}

CTXPROF__NOINSTR static void ctxprof__icpp_env_save(void)
{
    ctxprof_error e;
    ctxprof_icpp_train_stop();
    if (ctxprof_icpp_train_save(ctxprof__icpp_env_path, &e) != CTXPROF_OK)
        ctxprof__icpp_env_error(ctxprof_error_message(&e));
}

CTXPROF__NOINSTR __attribute__((constructor)) static void ctxprof__icpp_env_ctor(void)
{
    const char *p = getenv("CTXPROF_ICPP_TRAIN");
    ctxprof_error e;
    if (!p || !*p)
        return;
    if (strlen(p) >= sizeof ctxprof__icpp_env_path) {
        ctxprof__icpp_env_error("the path is longer than 4095 bytes; not training");
        return;
    }
    memcpy(ctxprof__icpp_env_path, p, strlen(p) + 1);
    if (ctxprof_icpp_train_start(NULL, &e) == CTXPROF_OK)
        atexit(ctxprof__icpp_env_save);
    else
        ctxprof__icpp_env_error(ctxprof_error_message(&e));
}
#endif

/* --- timer sampler (paper 6.2) ---------------------------------------------- */

static ctxprof_icpp_sampler *ctxprof__icpp_active;
static CTXPROF_TLS timer_t ctxprof__icpp_timer CTXPROF__TLS_MODEL;
static CTXPROF_TLS int ctxprof__icpp_has_timer CTXPROF__TLS_MODEL;
static CTXPROF_TLS long ctxprof__icpp_timer_tid CTXPROF__TLS_MODEL; /* no syscall per sample */
/* Deinits so far, and the count when the calling thread's timer was made:
   a deinit deletes every thread's timer, so one from before it is gone
   (its id may be another's by now: not to be deleted again). */
static unsigned ctxprof__icpp_tmrgen;
static CTXPROF_TLS unsigned ctxprof__icpp_timer_gen CTXPROF__TLS_MODEL;
/* The signal's disposition before the sampler's handler replaced it:
   signals that the sampler's timers did not raise go on to it. Set by
   init before it installs the handler, restored by deinit. */
static struct sigaction ctxprof__icpp_old_sa;

/* Every thread's timer, so that those of threads that exited without a
   detach (their timer_t was in their TLS) are deleted: at the next
   attach and at deinit. Under a spin lock (attach and detach are rare). */
static struct ctxprof__icpp_tmr {
    long tid;
    timer_t tm;
} *ctxprof__icpp_tmrs;
static size_t ctxprof__icpp_ntmr, ctxprof__icpp_tmrcap;
static int ctxprof__icpp_tmrlock;

CTXPROF__NOINSTR CTXPROF__PRIV void ctxprof__icpp_tmr_lock(int lock)
{
    if (!lock) {
        __atomic_store_n(&ctxprof__icpp_tmrlock, 0, __ATOMIC_RELEASE);
        return;
    }
    while (__atomic_exchange_n(&ctxprof__icpp_tmrlock, 1, __ATOMIC_ACQUIRE))
        sched_yield();
}

/* fork(): the child has none of the parent's timers (timers are not
   inherited) and only the forking thread, so it forgets them all, and the
   locks, which another thread may have held, and handlers that other
   threads were running. */
static pthread_once_t ctxprof__icpp_fork_once = PTHREAD_ONCE_INIT;

CTXPROF__NOINSTR CTXPROF__PRIV void ctxprof__icpp_fork_child(void)
{
    ctxprof__icpp_ntmr = 0;
    ctxprof__icpp_has_timer = 0;
    ctxprof__icpp_timer_tid = 0;
    __atomic_store_n(&ctxprof__icpp_readers[0], 0, __ATOMIC_RELAXED);
    __atomic_store_n(&ctxprof__icpp_readers[1], 0, __ATOMIC_RELAXED);
    __atomic_store_n(&ctxprof__icpp_synclock, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&ctxprof__icpp_tmrlock, 0, __ATOMIC_RELEASE);
}

CTXPROF__NOINSTR CTXPROF__PRIV void ctxprof__icpp_fork_init(void)
{
    pthread_atfork(NULL, NULL, ctxprof__icpp_fork_child);
}

/* Removes entry i (deleting its timer when del). Locked. */
CTXPROF__NOINSTR CTXPROF__PRIV void ctxprof__icpp_tmr_drop(size_t i, int del)
{
    if (del)
        timer_delete(ctxprof__icpp_tmrs[i].tm);
    ctxprof__icpp_tmrs[i] = ctxprof__icpp_tmrs[--ctxprof__icpp_ntmr];
}

/* Whether thread tid of this process has exited: tgkill(pid, tid, 0)
   says ESRCH. Its ids are the caller's pid namespace's, like gettid's;
   /proc/self/task may be another namespace's (one that kept its parent's
   /proc) and name none of our threads. */
CTXPROF__NOINSTR CTXPROF__PRIV int ctxprof__icpp_thread_gone(long tid)
{
#if defined(CTXPROF__SYS_TGKILL)
    return ctxprof__syscall(CTXPROF__SYS_TGKILL, (long)getpid(), tid, 0L) != 0 && errno == ESRCH;
#else
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%ld", tid);
    return access(path, F_OK) != 0;
#endif
}

/* Deletes the timers of threads that are gone (all with everyone). */
CTXPROF__NOINSTR CTXPROF__PRIV void ctxprof__icpp_tmr_reap(int everyone)
{
    size_t i = 0;
    while (i < ctxprof__icpp_ntmr) {
        if (everyone || ctxprof__icpp_thread_gone(ctxprof__icpp_tmrs[i].tid))
            ctxprof__icpp_tmr_drop(i, 1);
        else
            i++;
    }
}

/* Registers of the interrupted context. The layout is the kernel's signal
   frame ABI; glibc names the register array only under _GNU_SOURCE, so we
   index it ourselves. */
CTXPROF__NOINSTR CTXPROF__PRIV int ctxprof__icpp_regs(const void *uc, uintptr_t *pc, uintptr_t *sp,
                                                      uintptr_t *fp)
{
    const unsigned char *mc = (const unsigned char *)uc + offsetof(ucontext_t, uc_mcontext);
#if defined(__x86_64__)
    /* gregs[]: ... REG_RBP = 10, REG_RSP = 15, REG_RIP = 16 */
    const uint64_t *g = (const uint64_t *)(const void *)mc;
    *fp = (uintptr_t)g[10];
    *sp = (uintptr_t)g[15];
    *pc = (uintptr_t)g[16];
    return 1;
#elif defined(__aarch64__)
    /* fault_address, regs[31] (x29 = frame pointer), sp, pc */
    const uint64_t *g = (const uint64_t *)(const void *)mc;
    *fp = (uintptr_t)g[1 + 29];
    *sp = (uintptr_t)g[1 + 31];
    *pc = (uintptr_t)g[1 + 32];
    return 1;
#else
    (void)mc;
    *pc = *sp = *fp = 0;
    return 0;
#endif
}

/* The sigev_value of the sampler's timers, which tells their signals from
   the program's (the same signal from its own timer, kill, raise). */
CTXPROF__NOINSTR CTXPROF__PRIV void *ctxprof__icpp_timer_cookie(void)
{
    return (void *)&ctxprof__icpp_old_sa;
}

/* The program's handler that a saved disposition names, to chain a signal
   to (both samplers', ICPP's and ctxprof_pebs.h's): none when it was the
   default or ignored. Signal-safe. */
CTXPROF__NOINSTR CTXPROF__PRIV int ctxprof__sig_has_handler(const struct sigaction *sa)
{
    if (sa->sa_flags & SA_SIGINFO)
        return sa->sa_sigaction != NULL;
    return sa->sa_handler != SIG_DFL && sa->sa_handler != SIG_IGN && sa->sa_handler != NULL;
}

/* Calls that handler (ctxprof__sig_has_handler(sa) first). */
CTXPROF__NOINSTR CTXPROF__PRIV void ctxprof__sig_call(const struct sigaction *sa, int sig,
                                                      siginfo_t *si, void *uc)
{
    if (sa->sa_flags & SA_SIGINFO)
        sa->sa_sigaction(sig, si, uc);
    else
        sa->sa_handler(sig);
}

/* Puts back the disposition old of signo after discarding every pending
   instance of the signal in every thread (ignoring a signal does that,
   POSIX): one that a deleted timer or closed event raised would otherwise
   reach old, and SIGPROF's and SIGIO's default actions terminate. */
CTXPROF__NOINSTR CTXPROF__PRIV void ctxprof__sig_restore_flushed(int signo,
                                                                 const struct sigaction *old)
{
    struct sigaction ign;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    sigaction(signo, &ign, NULL);
    sigaction(signo, old, NULL);
}

/* A signal the sampler's timers did not raise goes to the handler that
   the program had installed before the sampler's (ctxprof__icpp_old_sa),
   and only there; with none (default or ignored) it is a sample, as one
   sent with pthread_kill to sample a thread now. The handler is copied in
   the grace period (deinit restores the disposition, then waits, before
   the next init may overwrite it) and called after it: it may not return
   (siglongjmp), and it may take any time. */
CTXPROF__NOINSTR static void ctxprof__icpp_on_signal(int sig, siginfo_t *si, void *uc)
{
    int saved = errno;
    ctxprof_icpp_sampler *s;
    unsigned rd = ctxprof__icpp_read_begin();
    if (!si || si->si_code != SI_TIMER || si->si_value.sival_ptr != ctxprof__icpp_timer_cookie()) {
        struct sigaction prev = ctxprof__icpp_old_sa;
        if (ctxprof__sig_has_handler(&prev)) {
            ctxprof__icpp_read_end(rd);
            errno = saved;
            ctxprof__sig_call(&prev, sig, si, uc);
            errno = saved;
            return;
        }
    }
    s = __atomic_load_n(&ctxprof__icpp_active, __ATOMIC_SEQ_CST);
    if (s && uc) {
        uint64_t i = __atomic_fetch_add(&s->next, 1, __ATOMIC_RELAXED);
        if (i >= s->capacity) {
            __atomic_fetch_add(&s->dropped, 1, __ATOMIC_RELAXED);
        } else {
            ctxprof_icpp_sample *o = &s->samples[i];
            uintptr_t base = ctxprof__icpp_base;
            ctxprof__icpp_regs(uc, &o->pc, &o->sp, &o->fp);
            if (ctxprof__icpp_off_stack(o->sp)) /* on another stack: no height, no reads */
                base = 0;
            o->height = ctxprof_icpp_height(o->sp, base);
            o->truth = ctxprof_icpp_train_current();
            o->tid = (int32_t)(ctxprof__icpp_timer_tid ? ctxprof__icpp_timer_tid
                                                       : ctxprof__gettid());
            o->weight = 1u + (si && si->si_code == SI_TIMER && si->si_overrun > 0
                                  ? (uint32_t)si->si_overrun
                                  : 0u);
            o->kind = -1;
            o->frames.n = 0;
            if (o->height == CTXPROF_ICPP_NO_HEIGHT)
                __atomic_fetch_add(&s->nobase, 1, __ATOMIC_RELAXED);
            else if (s->desc.save_frames && !s->desc.save_targeted)
                ctxprof_icpp_save_frames(o->sp, base, o->fp, s->desc.save_frames, &o->frames);
            if (s->desc.map) {
                ctxprof_icpp_result r;
                int rec = s->desc.save_targeted; /* (no height: nothing is read) */
                ctxprof__icpp_resolve(s->desc.map, o->pc, o->sp, base, o->fp, NULL,
                                      s->desc.max_walk, &r, rec ? &o->frames : NULL,
                                      s->desc.save_frames);
                if (rec && r.walked > o->frames.n) /* it walked the chain: save that */
                    ctxprof_icpp_save_frames(o->sp, base, o->fp, s->desc.save_frames, &o->frames);
                o->kind = r.kind;
                o->path = r.path;
                o->degree = r.degree;
                o->walked = r.walked;
            }
            __atomic_store_n(&o->ready, 1, __ATOMIC_RELEASE);
        }
    }
    ctxprof__icpp_read_end(rd);
    errno = saved;
}

CTXPROF_DEF int ctxprof_icpp_sampler_init(ctxprof_icpp_sampler *s,
                                          const ctxprof_icpp_sampler_desc *desc,
                                          ctxprof_error *err)
{
    ctxprof_icpp_sampler_desc dd;
    struct sigaction old;
    ctxprof__error_clear(err);
    ctxprof_icpp_sample *buf;
    if (!s)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "icpp: NULL sampler");
    memset(&dd, 0, sizeof dd);
    if (desc)
        dd = *desc;
    if (!dd.hz)
        dd.hz = 1000;
    if (!dd.capacity)
        dd.capacity = 65536;
    if (!dd.signo)
        dd.signo = SIGPROF;
    if (!dd.max_walk)
        dd.max_walk = 64;
    if (dd.save_targeted && !dd.save_frames)
        dd.save_frames = CTXPROF_ICPP_FRAMES;
    if (dd.save_targeted && !dd.map)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "icpp: save_targeted needs desc.map");
    if (dd.save_frames > CTXPROF_ICPP_FRAMES)
        return ctxprof__fail(err, CTXPROF_ERR_RANGE, 0, "icpp: save_frames %u > %d",
                             dd.save_frames, CTXPROF_ICPP_FRAMES);
    if (dd.hz > CTXPROF_ICPP_SAMPLER_MAX_HZ) /* a signal per period: 2-25 us each */
        return ctxprof__fail(err, CTXPROF_ERR_RANGE, 0,
                             "icpp: rate %u Hz too high: at most %u Hz (each sample is a signal "
                             "costing up to 25 us; faster, a thread lives in the handler)",
                             dd.hz, CTXPROF_ICPP_SAMPLER_MAX_HZ);
    if (dd.signo <= 0 || dd.signo > 64)
        return ctxprof__fail(err, CTXPROF_ERR_RANGE, 0, "icpp: bad signal %d", dd.signo);
    if (dd.map && (!dd.map->d || !dd.map->d->bound))
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0,
                             "icpp: the sampler's map must be bound (ctxprof_icpp_map_bind)");
    if (__atomic_load_n(&ctxprof__icpp_active, __ATOMIC_ACQUIRE) == s)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0,
                             "icpp: this sampler is initialised and active already: "
                             "ctxprof_icpp_sampler_deinit first");
    if (__atomic_load_n(&ctxprof__icpp_active, __ATOMIC_ACQUIRE))
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0,
                             "icpp: another sampler is active (one at a time: deinit it first)");
    pthread_once(&ctxprof__icpp_fork_once, ctxprof__icpp_fork_init);
    /* zeroed now, so the handler never faults in fresh pages */
    buf = (ctxprof_icpp_sample *)ctxprof__zalloc(dd.capacity, sizeof *buf, NULL);
    if (!buf)
        return ctxprof__fail(err, CTXPROF_ERR_NOMEM, 0, "icpp: %zu samples: out of memory",
                             dd.capacity);
    /* asked each time: since the last init the program or a library may
       have set its own disposition (SIG_IGN, say), and every sample would
       be lost. Kept for the signals that are not the sampler's, and for
       deinit to put back; none when ours is installed already (a fork
       child's, say: the one saved then stays). */
    if (sigaction(dd.signo, NULL, &old) != 0 || !(old.sa_flags & SA_SIGINFO) ||
        old.sa_sigaction != ctxprof__icpp_on_signal) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = ctxprof__icpp_on_signal;
        sa.sa_flags = SA_SIGINFO | SA_RESTART;
        sigemptyset(&sa.sa_mask);
        if (sigaction(dd.signo, NULL, &ctxprof__icpp_old_sa) != 0 ||
            sigaction(dd.signo, &sa, NULL) != 0) {
            int e = errno;
            ctxprof__free(buf, NULL);
            return ctxprof__fail(err, CTXPROF_ERR_SYS, e, "icpp: sigaction(%d)", dd.signo);
        }
    }
    memset(s, 0, sizeof *s);
    s->samples = buf;
    s->capacity = dd.capacity;
    s->desc = dd;
    s->installed = 1;
    __atomic_store_n(&ctxprof__icpp_active, s, __ATOMIC_SEQ_CST);
    return CTXPROF_OK;
}

CTXPROF_DEF int ctxprof_icpp_sampler_attach(ctxprof_icpp_sampler *s, ctxprof_error *err)
{
    struct sigevent sev;
    struct itimerspec its;
    timer_t tm;
    long ns;
    ctxprof__error_clear(err);
    if (!s || !s->installed)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "icpp: sampler not initialised");
    if (ctxprof__icpp_has_timer) {
        if (ctxprof__icpp_timer_gen == __atomic_load_n(&ctxprof__icpp_tmrgen, __ATOMIC_ACQUIRE))
            return CTXPROF_OK;
        ctxprof__icpp_has_timer = 0; /* an earlier sampler's, deleted by its deinit */
    }
    memset(&sev, 0, sizeof sev);
    sev.sigev_notify = 4; /* SIGEV_THREAD_ID: to this thread, not the process */
    sev.sigev_signo = s->desc.signo;
    sev.sigev_value.sival_ptr = ctxprof__icpp_timer_cookie();
#if defined(sigev_notify_thread_id)
    sev.sigev_notify_thread_id = (pid_t)ctxprof__gettid();
#elif defined(__GLIBC__)
    sev._sigev_un._tid = (pid_t)ctxprof__gettid();
#else
    return ctxprof__fail(err, CTXPROF_ERR_UNSUPPORTED, 0,
                         "icpp: per-thread timer signals need Linux SIGEV_THREAD_ID");
#endif
    if (timer_create(s->desc.wall ? CLOCK_MONOTONIC : CLOCK_THREAD_CPUTIME_ID, &sev, &tm) != 0)
        return ctxprof__fail(err, errno == ENOTSUP || errno == EINVAL ? CTXPROF_ERR_UNSUPPORTED
                                                                      : CTXPROF_ERR_SYS,
                             errno, "icpp: timer_create(%s)",
                             s->desc.wall ? "CLOCK_MONOTONIC" : "CLOCK_THREAD_CPUTIME_ID");
    ns = 1000000000L / (long)s->desc.hz;
    its.it_interval.tv_sec = ns / 1000000000L;
    its.it_interval.tv_nsec = ns % 1000000000L;
    its.it_value = its.it_interval;
    if (timer_settime(tm, 0, &its, NULL) != 0) {
        int e = errno;
        timer_delete(tm);
        return ctxprof__fail(err, CTXPROF_ERR_SYS, e, "icpp: timer_settime");
    }
    ctxprof__icpp_tmr_lock(1);
    ctxprof__icpp_tmr_reap(0);
    {
        /* an entry under our id is a dead thread's whose id we reuse (we
           have no timer): its timer goes, or it leaks and keeps firing */
        size_t i = 0;
        long me = ctxprof__gettid();
        while (i < ctxprof__icpp_ntmr)
            if (ctxprof__icpp_tmrs[i].tid == me)
                ctxprof__icpp_tmr_drop(i, 1);
            else
                i++;
    }
    if (ctxprof__reserve((void **)&ctxprof__icpp_tmrs, &ctxprof__icpp_tmrcap, ctxprof__icpp_ntmr,
                         ctxprof__icpp_ntmr + 1, sizeof *ctxprof__icpp_tmrs, NULL)) {
        ctxprof__icpp_tmr_lock(0);
        timer_delete(tm);
        return ctxprof__fail(err, CTXPROF_ERR_NOMEM, 0, "icpp: out of memory");
    }
    ctxprof__icpp_timer = tm;
    ctxprof__icpp_has_timer = 1;
    ctxprof__icpp_timer_gen = ctxprof__icpp_tmrgen;
    ctxprof__icpp_timer_tid = ctxprof__gettid();
    ctxprof__icpp_tmrs[ctxprof__icpp_ntmr].tid = ctxprof__icpp_timer_tid;
    ctxprof__icpp_tmrs[ctxprof__icpp_ntmr++].tm = tm;
    ctxprof__icpp_tmr_lock(0);
    return CTXPROF_OK;
}

CTXPROF_DEF void ctxprof_icpp_sampler_detach(ctxprof_icpp_sampler *s)
{
    size_t i;
    int live;
    (void)s;
    if (ctxprof__icpp_has_timer) {
        ctxprof__icpp_tmr_lock(1);
        /* else a deinit since our attach deleted it: its id may be reused */
        live = ctxprof__icpp_timer_gen == ctxprof__icpp_tmrgen;
        for (i = 0; live && i < ctxprof__icpp_ntmr; i++) /* our own timer, not just our id */
            if (memcmp(&ctxprof__icpp_tmrs[i].tm, &ctxprof__icpp_timer, sizeof(timer_t)) == 0) {
                ctxprof__icpp_tmr_drop(i, 0);
                break;
            }
        ctxprof__icpp_tmr_lock(0);
        if (live)
            timer_delete(ctxprof__icpp_timer);
        ctxprof__icpp_has_timer = 0;
    }
}

CTXPROF_DEF size_t ctxprof_icpp_sampler_count(const ctxprof_icpp_sampler *s)
{
    size_t n, i;
    if (!s || !s->samples)
        return 0;
    n = (size_t)__atomic_load_n(&s->next, __ATOMIC_ACQUIRE);
    if (n > s->capacity)
        n = s->capacity;
    for (i = 0; i < n; i++) /* the ready prefix */
        if (!__atomic_load_n(&s->samples[i].ready, __ATOMIC_ACQUIRE))
            break;
    return i;
}

CTXPROF_DEF uint64_t ctxprof_icpp_sampler_dropped(const ctxprof_icpp_sampler *s)
{
    return s ? __atomic_load_n(&s->dropped, __ATOMIC_RELAXED) : 0;
}

/* Puts back the disposition init replaced, unless the program has set
   another since. Every timer is deleted, but a signal one raised may still
   be pending in some thread: discarded first (the program's too). */
CTXPROF__NOINSTR CTXPROF__PRIV void ctxprof__icpp_sig_restore(int signo)
{
    struct sigaction cur;
    if (sigaction(signo, NULL, &cur) != 0 || !(cur.sa_flags & SA_SIGINFO) ||
        cur.sa_sigaction != ctxprof__icpp_on_signal)
        return;
    ctxprof__sig_restore_flushed(signo, &ctxprof__icpp_old_sa);
}

CTXPROF_DEF void ctxprof_icpp_sampler_deinit(ctxprof_icpp_sampler *s)
{
    /* only the active sampler owns the timers: deinit of another (one whose
       init was refused, or never made) must not touch them */
    if (!s || !s->installed || __atomic_load_n(&ctxprof__icpp_active, __ATOMIC_SEQ_CST) != s)
        return;
    ctxprof_icpp_sampler_detach(s);
    ctxprof__icpp_tmr_lock(1); /* threads that did not detach */
    ctxprof__icpp_tmr_reap(1);
    ctxprof__free(ctxprof__icpp_tmrs, NULL);
    ctxprof__icpp_tmrs = NULL;
    ctxprof__icpp_tmrcap = 0;
    __atomic_store_n(&ctxprof__icpp_tmrgen, ctxprof__icpp_tmrgen + 1, __ATOMIC_RELEASE);
    ctxprof__icpp_tmr_lock(0);
    ctxprof__icpp_sig_restore(s->desc.signo);
    if (__atomic_load_n(&ctxprof__icpp_active, __ATOMIC_SEQ_CST) == s) {
        __atomic_store_n(&ctxprof__icpp_active, (ctxprof_icpp_sampler *)NULL, __ATOMIC_SEQ_CST);
        ctxprof__icpp_sync(); /* a handler that saw s finishes before we free */
    }
    ctxprof__free(s->samples, NULL);
    memset(s, 0, sizeof *s);
}

#ifdef __cplusplus
CTXPROF__CXX_QUIET_END
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
