/* ctxprof_hcct.h - v0.1.0 - hot calling context tree (lazy Space Saving) and exact CCT
   SPDX-License-Identifier: MIT

   The hot calling contexts of a run, with counts and guaranteed error bounds,
   in memory proportional to 1/epsilon instead of the whole calling context
   tree (CCT). Implements D'Elia, Demetrescu, Finocchi, "Mining hot calling
   contexts in small space", Software: Practice and Experience 2016 (SPE'16):
   the monitored CCT (MCCT) kept by Space Saving over the stream of calling
   contexts, on-line pruning (Alg. 1) and the lazy priority queue (Alg. 2).

   USAGE

     Include ctxprof_hcct.h (it includes ctxprof.h). In exactly one .c file:

         #define CTXPROF_IMPLEMENTATION
         #include "ctxprof_hcct.h"

     To profile a whole program without annotations, also define
     CTXPROF_HCCT_HOOKS in that file, compile the other files with
     -finstrument-functions (not the implementation file), and either call
     ctxprof_hcct_start() or run with CTXPROF_HCCT="out=prof.svg" (see HOOKS).

   CONTENTS (greppable section markers "==== hcct: name ====")

     types, declarations, hot path          enter/exit/push/pop inline functions
     implementation: tree, space saving, pruning, bursting, snapshot and
     query, profiles (prune, merge, compare), output (text, collapsed, JSON,
     SVG flame graph, binary), session (threads, hooks, CTXPROF_HCCT env)

   CONFIGURATION (besides the core macros of ctxprof.h)

     CTXPROF_HCCT_HOOKS           off  define __cyg_profile_func_enter/exit in the
                                       implementation TU (an #error if CTXPROF_ICPP_HOOKS
                                       is defined too: a program has one pair of hooks)
     CTXPROF_HCCT_IMPLEMENTATION  off  with CTXPROF_CORE_IMPLEMENTATION in the same
                                       file: implement the core and this header, not
                                       ctxprof_pebs.h (CTXPROF_IMPLEMENTATION: all)

   API OVERVIEW

     A tree (ctxprof_hcct) belongs to one thread. Its descriptor picks the
     mode: CTXPROF_HCCT_LSS (default; lazy Space Saving with |M| = 1/epsilon
     counters) or CTXPROF_HCCT_CCT (the exact calling context tree, same API,
     the reference for tests). Events:

       ctxprof_hcct_enter(t, routine, site, sp) / ctxprof_hcct_exit(t, routine, sp)
       ctxprof_hcct_push(t, routine, site)      / ctxprof_hcct_pop(t)
       ctxprof_hcct_add(t, weight)              weight on the current context
       ctxprof_hcct_add_path(t, ids, sites, n, weight)   a whole path, root first
                                                 (samples, e.g. from ctxprof_pebs.h)

     enter/exit take the stack pointer so that a longjmp (or an exception
     whose unwinding runs no exit hooks) is detected and the frames it
     skipped are discarded; push/pop are the same without that check.
     Limits of that recovery: a callee inlined into the frame that a
     longjmp returns to, entered after its setjmp, stays on the shadow
     stack (nothing in the hooks' arguments tells it from a live one:
     calls after the jump appear under it); and coroutines that switch
     stacks (swapcontext) share one shadow stack per thread, so their
     contexts mix (counts stay exact). Bind one tree per coroutine
     (ctxprof_hcct_bind) at each switch for separate profiles. Queries return a
     ctxprof_hcct_profile: the (phi, epsilon)-HCCT of SPE'16 sec. 3.2, each
     node with its count, its error bound and whether it was monitored.

         static const ctxprof_hcct_routine parse = {"parse", __FILE__, __LINE__};
         ctxprof_hcct t;
         ctxprof_hcct_profile p;
         ctxprof_error e = {0};
         ctxprof_hcct_init(&t, &(ctxprof_hcct_desc){.phi = 1e-4, .epsilon = 2e-5}, &e);
         ctxprof_hcct_push(&t, (uintptr_t)&parse | CTXPROF_HCCT_NAMED, 0);  ... pop ...
         ctxprof_hcct_query(&t, 0, &p, &e);      (phi 0 = the descriptor's phi)
         ctxprof_hcct_profile_write(&p, "hot.svg", &(ctxprof_hcct_write_desc){
                                        .format = CTXPROF_HCCT_SVG}, &e);

     The session (ctxprof_hcct_start/stop/snapshot) gives every thread its
     own tree on its first event, whoever created the thread, and merges the
     tree of a thread that exits (pthread key destructor): no special link
     flags. In LSS mode the exited threads' merged profile keeps the |M|
     largest counts and their ancestors (a Space Saving summary; the
     contexts cut are under its absent bound), so its size does not grow
     with thread churn. Hand-written instrumentation: CTXPROF_HCCT_SCOPE("name") at the
     top of a function (GCC/Clang restore at scope exit), or the portable
     CTXPROF_HCCT_ENTER(var, "name") ... CTXPROF_HCCT_EXIT(var).

   NAMES

     A routine id is named, when a profile is made, by desc.namer if set;
     else, with CTXPROF_HCCT_NAMED set, by the ctxprof_hcct_routine it points
     to (what the macros pass); else, with CTXPROF_HCCT_CODE_ADDRESSES (on in
     sessions), from the process's symbols (ctxprof_symtab, read again by a
     query when objects were loaded or unloaded since); else in hex. The
     profile keeps the names, so it can be written and read elsewhere.
     Names are read when the profile is made: a descriptor in a library
     that dlclose unloaded before that is not read ("[unloaded 0x...]"), and
     a code address there is named after what is loaded there now, if
     anything (take a snapshot before a dlclose to keep its names). C++
     symbols are demangled (ctxprof_demangle). An empty name becomes "?",
     and "<root>" (the root's) "[<root>]". JSON and SVG output put U+FFFD
     for each byte of a name that is not UTF-8.

   GUARANTEES (LSS mode, per tree; N = total of the metric)

     Every context whose true count exceeds floor(phi*N) is reported (no
     false negatives); each reported count c has error e with
     c - e <= true <= c and e <= min counter <= epsilon*N; a context that is
     not reported has true count <= profile.absent. Merged profiles keep these
     bounds (counts and errors add). With bursting the guarantees hold for
     the sampled events; counts are scaled by events/sampled and flagged.

   THREADS AND SIGNALS

     A tree is used by one thread. ctxprof_hcct_query() may be called from
     any thread at any time: it copies the tree without stopping its owner
     (hot contexts are never evicted, so they are exact in the copy; cold
     parts may be a few events old, and a cold node that Space Saving
     replaced while it was copied is left out, under the absent bound).
     Every path of the copy existed in the tree. ctxprof_hcct_stats_get()
     may also be called from any thread (exact from the owner; from another
     thread each counter as the owner last stored it). The session functions
     are thread-safe.
     Events from a signal handler that interrupts the profiler (a slow path,
     or the fast path between its lookup and its push) are dropped and
     counted in the thread's tree (stats.reentrant) and in its profiles
     (profile.reentrant, summed when trees merge, shown in every output:
     a handler that runs often over call-heavy code can lose most of its
     events); the others are counted exactly. A thread's first event
     in a session creates its tree (malloc): one from a signal handler
     (found on x86-64 Linux by the signal frame on the stack, as ICPP
     finds handlers) is dropped and counted in the snapshots'
     profile.reentrant instead, since the handler may have interrupted
     malloc. Nothing is async-signal-safe except that the tree never
     crashes or corrupts itself on such re-entry (stats.events may then
     miss a few events).
     Queries and stats_get read the live tree with relaxed atomic loads,
     and its owner stores what they read with relaxed atomic stores (on
     x86-64 and aarch64 the same instructions as plain ones): no data race,
     nothing for ThreadSanitizer to report. A query synchronizes with nothing by
     itself: for data the owner wrote before some events to be visible
     once a query saw their counts, the owner issues a release fence
     between the two (atomic_thread_fence(memory_order_release)) and the
     querying thread an acquire fence after the query.
     After fork() the child keeps copies of the parent's trees (fork waits
     for a merge, snapshot or query naming code addresses in progress);
     with the environment variable, use %p in out= for one profile per
     process.

   BOUNDS

     desc.max_bytes bounds the node memory (48 bytes a node in LSS mode, 36
     in CCT mode; default 16 |M| + 65536 nodes, and 1.25 GiB for the CCT;
     the LSS lazy queue adds 4.3 bytes a counter, allocated at init):
     an event that would need a node beyond it is counted on a node named
     "[dropped: node bound]" under the root, and so are the events below it,
     so totals stay right and the loss shows in every output
     (stats.dropped_nodes). desc.max_depth bounds the shadow stack (frames
     deeper are counted in stats.dropped_depth, not tracked, and never
     crash). Storage is reserved once at init and never moves (with glibc,
     untouched pages cost no memory); the frame array grows on demand. A
     session thread whose tree cannot be allocated (the CCT's reservation
     under strict overcommit, vm.overcommit_memory = 2) is not profiled; it
     is counted in profile.lost_threads and shown in every output. So is a
     thread whose tree could not be merged into the session's profile when
     it exited (out of memory): its counts are not in the profile.

   COST

     A known, monitored context costs an enter (tick countdown, stack-address
     check, a scan of the parent's children, the counter, a prefetch of its
     first child, a 32-byte frame) and an exit (frame check, pop): with gcc's
     hooks about 55 instructions in all (callgrind, zipfwalk), where empty
     hooks take 8. A context that is not monitored costs a Space Saving
     replacement (find-min in the lazy queue, which prefetches the victims
     of the next replacements; the victim pruned; its node reused): about
     230 instructions. See README.md for measured tables.

   HOOKS (CTXPROF_HCCT_HOOKS)

     __cyg_profile_func_enter/exit use the calling thread's tree: the one
     bound with ctxprof_hcct_bind(), or the session's. With the environment
     variable CTXPROF_HCCT set, a constructor starts the session and writes
     the profile at exit. Comma-separated options: out=FILE (%p = pid; the
     extension picks the format: .txt .folded .json .svg .hcct (binary),
     none for text; another one is refused),
     mode=lss|cct, phi=, eps=, counters=, burst=PERIOD_US:LENGTH_US,
     sites=0 (routine-only contexts), depth=MAX_FRAMES, mem=MAX_BYTES.

   ERRORS

     Cold-path functions return ctxprof_status and fill a ctxprof_error
     (err may be NULL), which each clears first: it describes that call
     only. A NULL tree, profile or file name is CTXPROF_ERR_INVAL.
     Hot-path functions never fail: they drop and count (ctxprof_hcct_stats).

   LIFETIMES

     A tree is initialized once (a second init is CTXPROF_ERR_INVAL), used
     where init put it, and deinitialized, which leaves it zeroed. A zeroed
     tree (never initialized, deinitialized) is safe with every function
     but ctxprof_hcct_exit: query fails, stats are zero, bind binds none,
     and enter, push, pop, add and add_path do nothing (exit's fast path
     reads the top frame unchecked: one more test on every exit). A bound
     tree is unbound by its deinit on the binding thread, and must outlive
     every instrumented function active while it is bound (see bind).
     The functions that fill a profile (query, snapshot, copy, read) write
     it without reading it: deinitialize a profile that still holds one
     before it is filled again, or its memory leaks. (Profiles are values,
     returned and copied by value: the bytes a moved profile left behind
     look like a live profile, so a filling function cannot know whether
     what it finds is its to free.)

   REFERENCES

     SPE'16 sec. 3.2 (phi, epsilon)-HCCT, sec. 3.3 Alg. 1 (on-line pruning),
     sec. 4.1 (first-child/next-sibling nodes), sec. 4.2 Alg. 2 and
     Theorem 4.1 (lazy priority queue). Static bursting: Zhuang et al.,
     "Accurate, efficient, and adaptive calling context profiling", PLDI'06.
     Space Saving: Metwally et al., ICDT'05. Mergeable summaries: Agarwal et
     al., PODS'12 (the bounds used by profile merging).
*/
#ifndef CTXPROF_HCCT_H_INCLUDED
#define CTXPROF_HCCT_H_INCLUDED

#include <stddef.h>
#include <stdint.h>

#include "ctxprof.h"

#if defined(CTXPROF_HCCT_HOOKS) && defined(CTXPROF_ICPP_HOOKS)
#error "ctxprof: CTXPROF_HCCT_HOOKS and CTXPROF_ICPP_HOOKS both define __cyg_profile_func_enter/exit; a program can have only one pair of -finstrument-functions hooks: define one of the two"
#endif

/* Version of this header. A release's headers go together: this one
   refuses a ctxprof.h of another release. */
#define CTXPROF_HCCT_VERSION_MAJOR 0
#define CTXPROF_HCCT_VERSION_MINOR 1
#define CTXPROF_HCCT_VERSION_PATCH 0
#define CTXPROF_HCCT_VERSION_STRING "0.1.0"
#if CTXPROF_HCCT_VERSION_MAJOR != CTXPROF_VERSION_MAJOR ||                                        \
    CTXPROF_HCCT_VERSION_MINOR != CTXPROF_VERSION_MINOR ||                                        \
    CTXPROF_HCCT_VERSION_PATCH != CTXPROF_VERSION_PATCH
#error "ctxprof: ctxprof_hcct.h 0.1.0 needs the ctxprof.h of the same release: copy the headers of one release together"
#endif

/* Every function of this header, inline ones included, is excluded from
   -finstrument-functions: a hook that called an instrumented function
   would recurse forever. */
#if defined(__GNUC__) || defined(__clang__)
#define CTXPROF__HCCT_NOINSTR __attribute__((no_instrument_function))
#define CTXPROF__HCCT_FENCE() __atomic_signal_fence(__ATOMIC_SEQ_CST)
#define CTXPROF__HCCT_PREFETCH(p) __builtin_prefetch(p)
#define CTXPROF__HCCT_WR(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#else
#define CTXPROF__HCCT_NOINSTR
#define CTXPROF__HCCT_FENCE() ((void)0)
#define CTXPROF__HCCT_PREFETCH(p) ((void)(p))
#define CTXPROF__HCCT_WR(x, v) ((x) = (v))
#endif
/* The owner's stores of the fields that queries from other threads read
   (a relaxed atomic store: on x86-64 and aarch64 the same mov / str as a
   plain store, so the hot path's code does not change; see the RD macros
   of the implementation). */
#define CTXPROF__HCCT_INLINE CTXPROF_INLINE CTXPROF__HCCT_NOINSTR

#ifdef __cplusplus
extern "C" {
CTXPROF__CXX_QUIET_BEGIN
#endif

/* ==== hcct: types ==== */

enum {
    CTXPROF_HCCT_LSS = 0, /* lazy Space Saving: the MCCT in O(1/epsilon) space (default) */
    CTXPROF_HCCT_CCT = 1  /* the exact calling context tree */
};

/* What a count measures. With CTXPROF_HCCT_CALLS every enter counts 1; with
   any other metric enters count 0 and weights come from ctxprof_hcct_add(). */
enum {
    CTXPROF_HCCT_CALLS = 0,
    CTXPROF_HCCT_NANOSECONDS = 1,
    CTXPROF_HCCT_CYCLES = 2,
    CTXPROF_HCCT_SAMPLES = 3,
    CTXPROF_HCCT_BYTES = 4,
    CTXPROF_HCCT_OTHER = 5
};

/* desc.flags */
enum {
    CTXPROF_HCCT_ROUTINE_ONLY = 1,  /* ignore call sites: a context is a chain of routines */
    CTXPROF_HCCT_CODE_ADDRESSES = 2 /* routine ids are code addresses: name them from the
                                       process's symbols (ctxprof_symtab); on by default in
                                       sessions (the hooks) */
};

/* Output formats (ctxprof_hcct_write_desc.format). */
enum {
    CTXPROF_HCCT_TEXT = 0,      /* indented tree: counts, percentages, error bounds */
    CTXPROF_HCCT_COLLAPSED = 1, /* "a;b;c COUNT" lines (flamegraph.pl, speedscope, pprof tools) */
    CTXPROF_HCCT_JSON = 2,      /* flat node list with parent indices */
    CTXPROF_HCCT_SVG = 3,       /* self-contained flame graph */
    CTXPROF_HCCT_BINARY = 4,    /* lossless; read back by ctxprof_hcct_profile_read() */
    CTXPROF_HCCT_TOP = 5        /* the hottest contexts, one full path per line */
};

/* Profile node flags. */
enum {
    CTXPROF_HCCT_MONITORED = 1, /* counted (in M for LSS; always for CCT) */
    CTXPROF_HCCT_HOT = 2,       /* count > threshold in a pruned profile */
    CTXPROF_HCCT_IS_ROOT = 4    /* the dummy root above the first routines */
};

/* Profile flags. */
enum {
    CTXPROF_HCCT_PRUNED = 1, /* pruned to the (phi, epsilon)-HCCT */
    CTXPROF_HCCT_SCALED = 2, /* counts scaled by events/sampled (bursting) */
    CTXPROF_HCCT_BY_NAME = 4 /* merged by routine name (sites ignored) */
};

#define CTXPROF_HCCT_NONE 0xFFFFFFFFu /* no index */

/* Routine ids with the top bit set point to a ctxprof_hcct_routine (the
   macros use these); other ids are code addresses or user-defined. */
#define CTXPROF_HCCT_NAMED (CTXPROF__CAST(uintptr_t, 1) << (sizeof(uintptr_t) * 8 - 1))
typedef struct ctxprof_hcct_routine {
    const char *name;
    const char *file;
    int line;
} ctxprof_hcct_routine;

/* Names a routine id for output: return a NUL-terminated name (buf, of cap
   bytes, may be used) or NULL for the default (descriptor name, else hex). */
typedef const char *(*ctxprof_hcct_namer)(void *user, uintptr_t routine, char *buf, size_t cap);

/* Configuration; zero fields take the defaults shown. */
typedef struct ctxprof_hcct_desc {
    int mode;                 /* CTXPROF_HCCT_LSS or CTXPROF_HCCT_CCT */
    int metric;               /* CTXPROF_HCCT_CALLS ... (label + whether enters count) */
    double phi;               /* hotness threshold of queries: 1e-4 */
    double epsilon;           /* Space Saving error: phi / 5; |M| = ceil(1/epsilon) */
    size_t counters;          /* |M| directly (overrides epsilon; then 1/|M| may exceed
                                 phi, and contexts above phi N may be missed) */
    size_t max_bytes;         /* node memory: LSS 48 B * (16 |M| + 65536), CCT 1.25 GiB */
    size_t max_depth;         /* shadow-stack frames, the root's included: 1 << 20 */
    uint32_t burst_period_us; /* static bursting: a burst starts every period... */
    uint32_t burst_length_us; /* ...and lasts this long; 0 = always on */
    unsigned flags;           /* CTXPROF_HCCT_ROUTINE_ONLY, CTXPROF_HCCT_CODE_ADDRESSES */
    ctxprof_hcct_namer namer; /* names at query time (NULL: descriptor, symbols or hex) */
    void *namer_user;
    void *alloc_user; /* passed to CTXPROF_MALLOC/FREE */
} ctxprof_hcct_desc;

/* One shadow-stack frame. sp is a stack address at entry: deeper frames
   have smaller values, which is how skipped frames are recognized. site is
   the call site as given (the node key masks it in routine-only mode).
   point tells apart activations entered at the same sp (see
   ctxprof__hcct_enter_at). */
typedef struct ctxprof_hcct_frame {
    uintptr_t sp;
    uintptr_t routine;
    uintptr_t site;
    uint32_t node;  /* tree node, 0 = not tracked (outside a burst, or dropped) */
    uint32_t point; /* low bits of the entry point: the hook's return address, the scope */
} ctxprof_hcct_frame;

/* A tree node, first-child/next-sibling (SPE'16 sec. 4.1): the 32 bytes an
   event reads, so a lookup touches one cache line per node scanned. What
   only pruning and replacement need lives in a parallel array. */
typedef struct ctxprof_hcct_node {
    uintptr_t routine;
    uintptr_t site;   /* call site (0 in routine-only mode) */
    uint64_t count;   /* bit 63: monitored (always, in CCT mode); bits 0-62: the counter */
    uint32_t child;   /* first child, 0 = none */
    uint32_t sibling; /* next sibling (next free node on the free list) */
} ctxprof_hcct_node;

/* Per-node data of LSS trees besides the node (private). */
typedef struct ctxprof_hcct_aux {
    uint32_t parent; /* 0 above the root; a marker for free nodes */
    uint32_t gen;    /* reuse generation: + 1 each time the node is freed (live queries) */
    uint64_t err;    /* error bound of the count while monitored */
} ctxprof_hcct_aux;

/* Counters of a tree (ctxprof_hcct_stats()). */
typedef struct ctxprof_hcct_stats {
    uint64_t events;        /* enter events seen, in and out of bursts */
    uint64_t sampled;       /* enter events counted in the tree (in bursts) */
    uint64_t total;         /* N: sum of all counters */
    uint64_t min;           /* smallest counter (LSS, once |M| is full), else 0 */
    uint64_t replaced;      /* Space Saving replacements */
    uint64_t rescans;       /* full rescans of the lazy priority queue */
    uint64_t pruned;        /* nodes removed by on-line pruning */
    uint64_t dropped_nodes; /* contexts not recorded: node bound reached */
    uint64_t dropped_depth; /* frames not tracked: max_depth reached */
    uint64_t unwound;       /* frames discarded by stack-pointer recovery (longjmp) */
    uint64_t unmatched;     /* exits that matched no frame (ignored) */
    uint64_t reentrant;     /* events dropped: they interrupted the profiler */
    uint64_t bursts;        /* bursts started */
    size_t nodes;           /* nodes in the tree now, root included */
    size_t leaves;          /* nodes without children now (the root excluded) */
    size_t nodes_peak;      /* most nodes ever used */
    size_t counters;        /* |M| (LSS) or counters in use (CCT) */
    size_t depth;           /* frames on the shadow stack now */
    size_t depth_peak;      /* deepest stack seen at slow-path events and ticks */
    size_t bytes;       /* memory in use: nodes up to the peak, counters, frames */
    size_t bytes_bound; /* memory the bounds allow */
} ctxprof_hcct_stats;

/* A calling context tree of one thread. Caller-owned; init/deinit. */
typedef struct ctxprof_hcct {
    /* read by the inline hot path */
    ctxprof_hcct_frame *top;  /* current frame; frames[0] is the root frame */
    ctxprof_hcct_node *nodes; /* node 0 is a dummy, node 1 the root */
    int64_t countdown;        /* enters before the next slow-path tick */
    uintptr_t site_mask;      /* ~0, or 0 for routine-only contexts */
    uint64_t unit;            /* what an enter adds: 1 (calls) or 0 */
    uint32_t excess;          /* frames beyond max_depth, not pushed */
    uint32_t nslots;          /* |M| (LSS) */
    ctxprof_hcct_frame *frames;
    /* private: */
    size_t frame_cap;
    ctxprof_hcct_aux *aux;   /* LSS: per node */
    void *nodes_raw, *aux_raw, *qslot_raw;
    uint32_t *par;           /* CCT: parent of each node */
    uint32_t *qslot;         /* LSS: lazy queue storage, blocks of CTXPROF__HCCT_QB slots */
    uint32_t *qhead, *qtail; /* LSS: per bucket, slot of its first id and after its last */
    uint32_t qfree, qblocks; /* LSS: first free block; blocks in all */
    uint64_t qbase, qend;    /* lazy queue window: minimum candidate, end */
    int qradix;              /* LSS: the queue is a radix heap (weights other than 1) */
    uint32_t used;    /* LSS: monitored nodes (|M| once full) */
    int lean;         /* LSS, unit counts, M full: enters replace through the short path */
    uint32_t n_nodes; /* nodes ever used (high-water mark) */
    uint32_t max_nodes;
    uint32_t free_head;
    size_t drop_at; /* hint: index of the first frame on "[dropped]" (cursor) */
    int busy, sampling, paused, session; /* session: 1 a session tree, 2 left by a shutdown */
    uintptr_t excess_sp;
    int64_t cd_assigned;
    uint64_t events_base, sampled;
    uint64_t tick_period, period_ns, length_ns, next_burst_ns, burst_end_ns, last_tick_ns;
    uint64_t gen;
    ctxprof_hcct_desc desc;
    /* Stored by the owner with relaxed atomic stores (WR), read field by
       field by ctxprof_hcct_stats_get() from any thread; nodes and leaves
       are counted from the nodes, events, sampled, total and min from the
       countdown and the counters. */
    ctxprof_hcct_stats st;
    struct ctxprof_hcct *next_thread;
    uintptr_t live; /* while initialized: the tree's own address ^ a constant (init refuses
                       a tree that holds it: see ctxprof_hcct_init) */
} ctxprof_hcct;

/* A profile node. Index 0 is the root; parents come before children. */
typedef struct ctxprof_hcct_pnode {
    uint64_t count;    /* estimate: an upper bound of the true count */
    uint64_t err;      /* the true count lies in [count - err, count] */
    uintptr_t routine; /* id as recorded (addresses are from the profiled process) */
    uintptr_t site;
    uint32_t parent;  /* CTXPROF_HCCT_NONE for the root */
    uint32_t name;    /* index of the name (ctxprof_hcct_profile_name) */
    uint32_t flags;   /* CTXPROF_HCCT_MONITORED | _HOT | _IS_ROOT */
    uint32_t depth;   /* 0 for the root */
    uint32_t child;   /* first child, by decreasing count; 0 = none */
    uint32_t sibling; /* next sibling; 0 = none */
} ctxprof_hcct_pnode;

/* A snapshot: what queries return, files hold and writers print. */
typedef struct ctxprof_hcct_profile {
    ctxprof_hcct_pnode *nodes;
    size_t n;
    uint64_t total;     /* N: total of the metric */
    uint64_t threshold; /* hot: count > threshold = floor(phi * total) */
    uint64_t absent;    /* contexts not in the profile have true count <= absent (what
                           the node and depth bounds kept out included) */
    uint64_t events;    /* enter events seen */
    uint64_t sampled;   /* enter events counted (bursting: fewer than events) */
    uint64_t dropped;   /* events lost to the node or depth bound */
    uint64_t reentrant; /* events dropped: they interrupted the profiler (signal handlers);
                           in no count, total or bound */
    double phi, epsilon;
    size_t counters;
    int mode, metric;
    unsigned flags;   /* CTXPROF_HCCT_PRUNED | _SCALED | _BY_NAME */
    uint32_t threads; /* trees merged into this profile */
    uint32_t lost_threads; /* session threads not profiled: no memory for their tree, or to
                              merge it when the thread exited */
    /* private: */
    void *alloc_user;
    void *names_; /* interned names */
    size_t cap;
} ctxprof_hcct_profile;

/* Output options; zero fields take the defaults shown. */
typedef struct ctxprof_hcct_write_desc {
    int format;         /* CTXPROF_HCCT_TEXT ... */
    size_t top;         /* CTXPROF_HCCT_TOP: contexts listed (20) */
    unsigned max_depth; /* frames printed per path (1024); deeper ones are folded */
    unsigned width;     /* SVG width in pixels (1200) */
    const char *title;  /* SVG title */
} ctxprof_hcct_write_desc;

/* Accuracy of an approximate profile against an exact one (tests, benches). */
typedef struct ctxprof_hcct_accuracy {
    size_t hot;              /* exact contexts with count > floor(phi * N) */
    size_t reported;         /* approximate contexts with count > its threshold */
    size_t missed;           /* hot contexts not reported (false negatives) */
    size_t false_positives;  /* reported contexts that are not hot */
    size_t exact_hcct_nodes; /* size of the exact HCCT (hot nodes + ancestors + root) */
    size_t approx_hcct_nodes;
    size_t bound_violations; /* counts outside [true, true + err] (unmonitored: below true),
                                and exact contexts absent from approx above its absent */
    size_t unknown;          /* approximate contexts absent from the exact profile */
    uint64_t max_error;      /* max (count - true) over reported contexts */
    double max_rel_error;    /* max (count - true) / true over hot contexts */
    int equal;               /* same contexts reported as hot, and no missed */
} ctxprof_hcct_accuracy;

/* Hand-written instrumentation state (CTXPROF_HCCT_SCOPE and friends). */
typedef struct ctxprof_hcct_scope {
    ctxprof_hcct *t;
    uintptr_t routine;
    uintptr_t sp;
} ctxprof_hcct_scope;

/* ==== hcct: declarations ==== */

/* Initializes a tree. Pass a tree that is zeroed, deinitialized or never
   used (a local variable as it comes); desc may be NULL (defaults).
   Allocates; not thread-safe for t. CTXPROF_ERR_INVAL for a NULL t and
   for a tree that is already initialized (init again would leak it):
   init recognizes a tree it initialized at that address and that was not
   deinitialized since, by a field holding the address mixed with a
   constant, which other contents match by chance with probability 2^-64.
   So an initialized tree stays where init put it (bindings, sessions and
   queries from other threads hold its address too): moved elsewhere by
   value, the bytes left behind look initialized to a later init at that
   address (zero them). On other failures t is left zeroed (deinit is
   harmless). */
CTXPROF_API int ctxprof_hcct_init(ctxprof_hcct *t, const ctxprof_hcct_desc *desc,
                                  ctxprof_error *err);
/* Frees a tree and leaves it zeroed (a zeroed, failed or deinitialized
   tree is fine). When t is the calling thread's bound tree
   (ctxprof_hcct_bind) it is unbound first, as by ctxprof_hcct_bind(NULL):
   the thread's later events go to no tree, or to its session tree while a
   session runs. A tree bound in another thread must be unbound there
   before it is freed (bindings are per thread: this one cannot see it;
   that thread's next event would use freed memory). A session's tree
   (ctxprof_hcct_thread) belongs to the session: deinit leaves it alone. */
CTXPROF_API void ctxprof_hcct_deinit(ctxprof_hcct *t);
/* Adds weight to the current context (a Space Saving update when it is not
   monitored). Owner thread only. Counts saturate at 2^63 - 1. Nothing on a
   NULL or zeroed (never initialized, deinitialized) tree; so with add_path. */
CTXPROF_API void ctxprof_hcct_add(ctxprof_hcct *t, uint64_t weight);
/* Adds weight to the context routines[0] -> ... -> routines[n-1] (root
   first), with sites[i] the call site of routines[i] (sites may be NULL).
   Does not touch the shadow stack: for samples (ctxprof_pebs.h). */
CTXPROF_API void ctxprof_hcct_add_path(ctxprof_hcct *t, const uintptr_t *routines,
                                       const uintptr_t *sites, size_t n, uint64_t weight);
/* Counters and memory of a tree. Any thread: from the owner (or after
   synchronizing with it, e.g. pthread_join) the values are exact; from
   another thread while the owner runs, each field is read as the owner last
   stored it (events up to the owner's current tick period, nodes and leaves
   counted while the tree changes), so the fields may be a few events apart.
   O(nodes); does not allocate. All zero for a NULL or zeroed tree. */
CTXPROF_API void ctxprof_hcct_stats_get(const ctxprof_hcct *t, ctxprof_hcct_stats *out);
/* The (phi, epsilon)-HCCT of a tree: phi 0 = desc.phi, phi < 0 = the whole
   MCCT (CCT). Any thread, any time. *out is filled without being read
   (as by every function that fills a profile: query, snapshot, copy,
   read): pass a zeroed, deinitialized or never used profile; one that
   still holds a profile is not freed (deinit it first, or it leaks).
   CTXPROF_ERR_INVAL for a NULL or zeroed tree. From another thread
   while the owner runs, the copy leaves out nodes replaced during it,
   and the total is summed while the owner counts (a count moved by a
   replacement meanwhile may be missed or seen twice): two such queries'
   totals can differ either way. */
CTXPROF_API int ctxprof_hcct_query(ctxprof_hcct *t, double phi, ctxprof_hcct_profile *out,
                                   ctxprof_error *err);

/* Frees a profile (a zeroed one is fine). */
CTXPROF_API void ctxprof_hcct_profile_deinit(ctxprof_hcct_profile *p);
/* Name of node i ("<root>" for the root). */
CTXPROF_API const char *ctxprof_hcct_profile_name(const ctxprof_hcct_profile *p, size_t i);
/* Keeps the nodes with count > floor(phi * total) and their ancestors (a
   zeroed profile stays empty). */
CTXPROF_API int ctxprof_hcct_profile_prune(ctxprof_hcct_profile *p, double phi,
                                           ctxprof_error *err);
/* dst += src: counts and error bounds add; a context missing on one side
   counts that side's absent bound. Contexts match by (routine, site), or
   by name with CTXPROF_HCCT_BY_NAME (profiles of different runs) or when
   either profile was merged by name: a context is then its path of names,
   and siblings of one name (calls from several sites) become one. A zeroed
   dst is an empty accumulator, a zeroed src adds nothing. On failure dst
   is unchanged. Merges in place, but each call indexes dst and sorts its
   children again: O(dst log dst + src), so N profiles merged one by one
   into one cost O(N x their nodes) (64 of 112k nodes: minutes). Snapshots
   and the exits of session threads merge in O(their nodes). */
CTXPROF_API int ctxprof_hcct_profile_merge(ctxprof_hcct_profile *dst,
                                           const ctxprof_hcct_profile *src, unsigned flags,
                                           ctxprof_error *err);
/* A deep copy. *dst is filled without being read, as by query: a zeroed,
   deinitialized or never used profile (deinit one still in use first). */
CTXPROF_API int ctxprof_hcct_profile_copy(ctxprof_hcct_profile *dst,
                                          const ctxprof_hcct_profile *src, ctxprof_error *err);
/* Compares an approximate profile with the exact (unpruned CCT) one;
   contexts match by name when either was merged by name. */
CTXPROF_API int ctxprof_hcct_profile_compare(const ctxprof_hcct_profile *approx,
                                             const ctxprof_hcct_profile *exact, double phi,
                                             ctxprof_hcct_accuracy *out, ctxprof_error *err);
/* Renders a profile into *out (from CTXPROF_MALLOC; free with
   ctxprof_hcct_text_free). d may be NULL (text). CTXPROF_ERR_INVAL for an
   empty (zeroed or deinitialized) profile. */
CTXPROF_API int ctxprof_hcct_profile_format(const ctxprof_hcct_profile *p,
                                            const ctxprof_hcct_write_desc *d, char **out,
                                            size_t *len, ctxprof_error *err);
/* Frees what ctxprof_hcct_profile_format returned. */
CTXPROF_API void ctxprof_hcct_text_free(const ctxprof_hcct_profile *p, char *text);
/* Writes a profile to path ("-" = stdout), atomically (temp file + rename).
   d NULL: the format that path's extension names, as with CTXPROF_HCCT's
   out= (HOOKS): .txt, .folded or .collapsed, .json, .svg, .hcct (binary);
   text for no extension ("-") or another one. */
CTXPROF_API int ctxprof_hcct_profile_write(const ctxprof_hcct_profile *p, const char *path,
                                           const ctxprof_hcct_write_desc *d, ctxprof_error *err);
/* Reads a binary profile; on any error *p is unchanged. alloc_user is for
   the new profile's memory. *p is filled without being read, as by query:
   a zeroed, deinitialized or never used profile (deinit one still in use
   first, or it leaks). */
CTXPROF_API int ctxprof_hcct_profile_read(ctxprof_hcct_profile *p, const char *path,
                                          void *alloc_user, ctxprof_error *err);

/* Session: one tree per thread, created on the thread's first event.
   Starts profiling with desc (NULL: resume after ctxprof_hcct_stop). */
CTXPROF_API int ctxprof_hcct_start(const ctxprof_hcct_desc *desc, ctxprof_error *err);
/* Pauses every session tree (each thread notices within ~65536 events). */
CTXPROF_API void ctxprof_hcct_stop(void);
/* Merged profile of all session threads, live and exited, pruned at phi
   (0 = desc.phi, < 0 = unpruned). Thread-safe; does not stop the threads.
   *out is filled without being read, as by query: a zeroed, deinitialized
   or never used profile (to take snapshots into one profile periodically,
   deinit it before each, or it leaks). */
CTXPROF_API int ctxprof_hcct_snapshot(double phi, ctxprof_hcct_profile *out, ctxprof_error *err);
/* Frees the session. Another thread that runs or is parked inside
   instrumented code (a pool waiting for work) keeps its tree, counting in
   no session, until one of its next 65536 enters (its next tick) or its
   exit frees it; its later events count in a new session, if one was
   started. */
CTXPROF_API void ctxprof_hcct_shutdown(void);
/* The calling thread's tree (created if the session runs), or NULL. */
CTXPROF_API ctxprof_hcct *ctxprof_hcct_thread(void);
/* Makes t the calling thread's tree for hooks and macros; returns the
   previous one. The caller keeps ownership of t. NULL, or a tree that is
   not initialized (zeroed, deinitialized), binds none: the thread's
   events then go to no tree, or to its session tree while a session runs
   (the one it had before a tree of its own was bound). While bound, the
   tree is read by the exit of every instrumented function, those active
   when bind was called included (main's, when main binds it): keep it
   alive and in place until it is unbound (bind(NULL), or its deinit on
   this thread). A tree local to main that is still bound when main
   returns is read by main's exit hook after main's locals are gone:
   make it static, or deinit it before main returns. */
CTXPROF_API ctxprof_hcct *ctxprof_hcct_bind(ctxprof_hcct *t);

/* Slow paths of the inline functions (private). */
CTXPROF_API void ctxprof__hcct_enter_slow(ctxprof_hcct *t, uintptr_t routine, uintptr_t site,
                                          uintptr_t sp, uint32_t point);
CTXPROF_API void ctxprof__hcct_enter_miss(ctxprof_hcct *t, int64_t cd);
CTXPROF_API void ctxprof__hcct_exit_slow(ctxprof_hcct *t, uintptr_t routine, uintptr_t sp);
CTXPROF_API void ctxprof__hcct_exit_prune(ctxprof_hcct *t, uint32_t node);
CTXPROF_API void ctxprof__hcct_pop_slow(ctxprof_hcct *t);
CTXPROF_API void ctxprof__hcct_push_slow(ctxprof_hcct *t, uintptr_t routine, uintptr_t site);
CTXPROF_API ctxprof_hcct *ctxprof__hcct_attach(void);
/* The calling thread's tree for hooks and macros (private; see bind). */
CTXPROF_API CTXPROF_TLS ctxprof_hcct *ctxprof__hcct_tls CTXPROF__TLS_MODEL;

/* ==== hcct: hot path ==== */

#define CTXPROF__HCCT_CD_BUSY (INT64_MIN / 2) /* countdown while the profiler updates */

/* The entry point given to ctxprof__hcct_enter_at: CTXPROF__HCCT_PT_CFA
   says that sp is a hook's canonical frame address, with the hook's
   return address under it, read where it is used (so that it holds no
   register on the fast path). */
#define CTXPROF__HCCT_PT_CFA 1u
CTXPROF__HCCT_INLINE uint32_t ctxprof__hcct_pt(uintptr_t sp, uint32_t point)
{
    return point == CTXPROF__HCCT_PT_CFA ? (uint32_t)((const uintptr_t *)sp)[-1] : point;
}

/* ctxprof_hcct_enter with the activation's entry point: the place of the
   enter event within its machine frame (the hook's return address, the
   scope variable's address). A callee inlined into its caller is entered
   at the caller's sp with the caller's site; when it is the same routine
   (recursion the compiler inlined into itself) only the point tells it
   from a new call of the routine at the same place after a longjmp out of
   the old one: a different point nests, the same point replaces. */
CTXPROF__HCCT_INLINE void ctxprof__hcct_enter_at(ctxprof_hcct *t, uintptr_t routine, uintptr_t site,
                                                 uintptr_t sp, uint32_t point)
{
    ctxprof_hcct_frame *f = t->top;
    ctxprof_hcct_node *n;
    uintptr_t key = site & t->site_mask;
    int64_t cd = t->countdown - 1;
    uint32_t c;
    /* every other case is a tail call, so the fast path saves no registers */
    if (CTXPROF__UNLIKELY(cd < 0 || sp >= f->sp)) {
        /* the same stack address: a callee inlined into the top frame's
           function (same call site, another routine or entry point) stays
           here; anything else may be a frame left by a longjmp, and
           deeper inlining is checked in full by the slow path */
        if (cd < 0 || sp != f->sp || site != f->site ||
            (routine == f->routine && ctxprof__hcct_pt(sp, point) == f->point) ||
            f == t->frames || f[-1].sp == sp)
            goto slow;
    }
    /* Parked for the lookup, the count and the frame's writes (the busy
       protocol, below): a signal handler's events in between go to the slow
       path and are dropped, so that it can evict neither the node found nor
       write the frame being written. */
    CTXPROF__HCCT_WR(t->countdown, CTXPROF__HCCT_CD_BUSY);
    CTXPROF__HCCT_FENCE();
    f[1].point = ctxprof__hcct_pt(sp, point); /* first: then it holds no register */
    n = t->nodes;
    c = f->node;
    if (CTXPROF__LIKELY(c != 0)) { /* tracked: find the child */
        uint32_t p = c;
        for (c = n[p].child; c != 0; c = n[c].sibling)
            if (n[c].routine == routine && n[c].site == key)
                break;
        if (CTXPROF__UNLIKELY(c == 0 || !(n[c].count >> 63)))
            goto miss; /* a new context, or one Space Saving does not monitor */
        CTXPROF__HCCT_WR(n[c].count, n[c].count + t->unit);
        /* the next lookup, if this routine calls, starts at the first child:
           fetch it while the routine runs */
        CTXPROF__HCCT_PREFETCH(&n[n[c].child]);
    }
    /* (stored one at a time: paired into a vector store, gcc would build
       the pair on every path) */
    f[1].site = site;
    f[1].routine = routine;
    f[1].node = c;
    f[1].sp = sp;
    CTXPROF__HCCT_FENCE();
    CTXPROF__HCCT_WR(t->top, f + 1);
    CTXPROF__HCCT_FENCE();
    CTXPROF__HCCT_WR(t->countdown, cd);
    return;
miss:
    /* the frame goes up untracked; the slow path sets its node */
    f[1].site = site;
    f[1].routine = routine;
    f[1].node = 0;
    f[1].sp = sp;
    CTXPROF__HCCT_FENCE();
    CTXPROF__HCCT_WR(t->top, f + 1);
    ctxprof__hcct_enter_miss(t, cd);
    return;
slow:
    CTXPROF__HCCT_WR(t->countdown, cd);
    ctxprof__hcct_enter_slow(t, routine, site, sp, ctxprof__hcct_pt(sp, point));
}

/* Enters routine, called from site (the return address: hooks and macros
   pass it), at stack address sp (the same at the matching exit, lower for
   deeper frames: a frame address). Never fails; O(children scanned) when
   the context is known. A second entry of the same routine at the same sp
   and site is taken for a new call after a longjmp (the hooks and the
   macros also tell recursion inlined into itself apart).
   Worst case: the children of the current context are a list searched in
   order (no index, no move to the front: both measured slower for usual
   fan-outs), so an enter scans up to all c distinct (routine, site)
   callees seen from that context, and a new callee scans all c. One
   caller with c distinct callees thus costs O(c^2) over its first calls:
   10^5 callees of one context measured about 280 us per enter (CCT mode).
   In LSS mode memory stays bounded but a context may keep up to the node
   bound's children, so the same holds (a dispatch site of an interpreter
   or event loop, add_path samples under one root). */
CTXPROF__HCCT_INLINE void ctxprof_hcct_enter(ctxprof_hcct *t, uintptr_t routine, uintptr_t site,
                                             uintptr_t sp)
{
    ctxprof__hcct_enter_at(t, routine, site, sp, 0);
}

/* Exits routine; sp as given to the matching enter. Frames above it that
   never exited (longjmp) are discarded first. The one hot-path function
   that needs an initialized tree (LIFETIMES). */
CTXPROF__HCCT_INLINE void ctxprof_hcct_exit(ctxprof_hcct *t, uintptr_t routine, uintptr_t sp)
{
    ctxprof_hcct_frame *f = t->top;
    uint32_t c;
    if (CTXPROF__UNLIKELY(f->sp != sp || f->routine != routine)) {
        ctxprof__hcct_exit_slow(t, routine, sp);
        return;
    }
    c = f->node;
    CTXPROF__HCCT_WR(t->top, f - 1);
    /* A node evicted while active is removed when it is left as a leaf, so
       that only the current context can be an unmonitored leaf (Alg. 1). */
    if (CTXPROF__UNLIKELY(!(t->nodes[c].count >> 63)))
        ctxprof__hcct_exit_prune(t, c);
}

/* enter without stack-pointer checks: for explicit event streams. */
CTXPROF__HCCT_INLINE void ctxprof_hcct_push(ctxprof_hcct *t, uintptr_t routine, uintptr_t site)
{
    /* A tick due (the enter's slow path anyway), frames beyond max_depth
       (the top frame's address is parked: see excess) or a tree not
       initialized (countdown 0, no top frame): out of line, before the top
       frame is read. Otherwise the enter's own check of the countdown is
       folded into this one. */
    uintptr_t sp;
    if (CTXPROF__UNLIKELY(t->countdown <= 0 || t->excess != 0)) {
        ctxprof__hcct_push_slow(t, routine, site);
        return;
    }
    /* (a top frame at address 0 - entered so - goes to the slow path as
       before; tested here, it spares the enter its own comparison) */
    sp = t->top->sp;
    if (CTXPROF__UNLIKELY(sp == 0)) {
        ctxprof__hcct_push_slow(t, routine, site);
        return;
    }
    ctxprof_hcct_enter(t, routine, site, sp - 1);
}

/* Exits the current frame (pairs with push). */
CTXPROF__HCCT_INLINE void ctxprof_hcct_pop(ctxprof_hcct *t)
{
    /* countdown < 0: also a pop that interrupted the profiler, whose top
       frame is not its own (busy protocol) */
    if (CTXPROF__UNLIKELY(t->excess != 0 || t->top == t->frames || t->countdown < 0)) {
        ctxprof__hcct_pop_slow(t);
        return;
    }
    ctxprof_hcct_exit(t, t->top->routine, t->top->sp);
}

/* Hand-written instrumentation over the calling thread's tree. */
CTXPROF__HCCT_INLINE void ctxprof_hcct_scope_begin(ctxprof_hcct_scope *s, uintptr_t routine,
                                                   uintptr_t site, uintptr_t sp)
{
    ctxprof_hcct *t = ctxprof__hcct_tls;
    if (CTXPROF__UNLIKELY(t == NULL))
        t = ctxprof__hcct_attach();
    s->t = t;
    s->routine = routine;
    s->sp = sp;
    if (t)
        ctxprof__hcct_enter_at(t, routine, site, sp, (uint32_t)(uintptr_t)s);
}

CTXPROF__HCCT_INLINE void ctxprof_hcct_scope_end(ctxprof_hcct_scope *s)
{
    if (s->t && s->t == ctxprof__hcct_tls)
        ctxprof_hcct_exit(s->t, s->routine, s->sp);
}

#define CTXPROF__HCCT_CAT2(a, b) a##b
#define CTXPROF__HCCT_CAT(a, b) CTXPROF__HCCT_CAT2(a, b)
#if defined(__GNUC__) || defined(__clang__)
#define CTXPROF__HCCT_SP(var) CTXPROF__UINTPTR(__builtin_frame_address(0))
#define CTXPROF__HCCT_RA() CTXPROF__UINTPTR(__builtin_return_address(0))
#else
#define CTXPROF__HCCT_SP(var) CTXPROF__UINTPTR(&(var))
#define CTXPROF__HCCT_RA() CTXPROF__CAST(uintptr_t, 0)
#endif

/* Portable form: CTXPROF_HCCT_ENTER(s, "name") at the top of a function and
   CTXPROF_HCCT_EXIT(s) before every return. */
#define CTXPROF_HCCT_ENTER(var, name)                                                              \
    static const ctxprof_hcct_routine CTXPROF__HCCT_CAT(var, _routine) = {name, __FILE__,          \
                                                                          __LINE__};               \
    ctxprof_hcct_scope var;                                                                        \
    ctxprof_hcct_scope_begin(&var,                                                                 \
                             CTXPROF__UINTPTR(&CTXPROF__HCCT_CAT(var, _routine)) |                \
                                 CTXPROF_HCCT_NAMED,                                               \
                             CTXPROF__HCCT_RA(), CTXPROF__HCCT_SP(var))
#define CTXPROF_HCCT_EXIT(var) ctxprof_hcct_scope_end(&(var))

/* CTXPROF_HCCT_SCOPE("name"): enter now, exit when the scope ends (GCC and
   Clang, through the cleanup attribute; elsewhere use ENTER/EXIT). The call
   site is the function's return address, as with the hooks; trees with
   CTXPROF_HCCT_ROUTINE_ONLY ignore it. Mark instrumented functions noinline
   when per-function contexts matter (an inlined one shares its caller's
   frame and call site, and is still a separate context). */
#if defined(__GNUC__) || defined(__clang__)
#define CTXPROF_HCCT_SCOPE(name)                                                                   \
    static const ctxprof_hcct_routine CTXPROF__HCCT_CAT(ctxprof__hcct_r, __LINE__) = {             \
        name, __FILE__, __LINE__};                                                                 \
    ctxprof_hcct_scope CTXPROF__HCCT_CAT(ctxprof__hcct_s, __LINE__)                                \
        __attribute__((cleanup(ctxprof_hcct_scope_end)));                                          \
    ctxprof_hcct_scope_begin(&CTXPROF__HCCT_CAT(ctxprof__hcct_s, __LINE__),                        \
                             CTXPROF__UINTPTR(&CTXPROF__HCCT_CAT(ctxprof__hcct_r, __LINE__)) |     \
                                 CTXPROF_HCCT_NAMED,                                               \
                             CTXPROF__UINTPTR(__builtin_return_address(0)),                        \
                             CTXPROF__UINTPTR(__builtin_frame_address(0)))
#endif

#ifdef __cplusplus
CTXPROF__CXX_QUIET_END
}
#endif

#endif /* CTXPROF_HCCT_H_INCLUDED */

/* ======================================================================== */
/*                              IMPLEMENTATION                              */
/* ======================================================================== */

#if (defined(CTXPROF_IMPLEMENTATION) || defined(CTXPROF_HCCT_IMPLEMENTATION)) &&                   \
    !defined(CTXPROF__HCCT_IMPL_DONE)
#define CTXPROF__HCCT_IMPL_DONE

#include "ctxprof.h" /* emits the core implementation here if it is still missing */
#if !defined(CTXPROF__CORE_IMPL_DONE)
#error "ctxprof: CTXPROF_HCCT_IMPLEMENTATION needs the core implementation in the same file: define CTXPROF_IMPLEMENTATION (or also CTXPROF_CORE_IMPLEMENTATION)"
#endif

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef __cplusplus
extern "C" {
CTXPROF__CXX_QUIET_BEGIN
#endif

#define CTXPROF__HCCT_FN CTXPROF__PRIV CTXPROF__HCCT_NOINSTR
#define CTXPROF__HCCT_DEF CTXPROF_DEF CTXPROF__HCCT_NOINSTR

#define CTXPROF__HCCT_FREE 0xFFFFFFFEu /* parent link of a node on the free list */
#define CTXPROF__HCCT_ROOT 1u
#define CTXPROF__HCCT_DROP 2u /* "[dropped]": counts what the node bound kept out */
#define CTXPROF__HCCT_TICK 65536              /* enters between ticks without bursting */
#define CTXPROF__HCCT_MON ((uint64_t)1 << 63) /* node.count: monitored */
#define CTXPROF__HCCT_CMASK (CTXPROF__HCCT_MON - 1)
#define CTXPROF__HCCT_W 256u /* lazy queue window (count values) */
/* the victim prefetched, places ahead (< 15): of 8, 10, 12 and 14, 12 measured fastest */
#define CTXPROF__HCCT_AHEAD 12u
#define CTXPROF__HCCT_QB 16u /* lazy queue block: 15 node ids, then the next block */
/* Blocks the lazy queue can need: every node of M listed at most once, 15 to
   a block, plus per bucket a partly consumed head block and a tail block
   with room. */
#define CTXPROF__HCCT_QBLOCKS(m) ((uint32_t)((m) / 15 + 2 * CTXPROF__HCCT_W + 2))
#define CTXPROF__HCCT_NODE_BYTES(lss)                                                              \
    (sizeof(ctxprof_hcct_node) + ((lss) ? sizeof(ctxprof_hcct_aux) : sizeof(uint32_t)))
#define CTXPROF__HCCT_PARENT(t, v) (*((t)->aux ? &(t)->aux[v].parent : &(t)->par[v]))

/* A tree is read by queries from other threads while its owner updates it
   (THREADS AND SIGNALS): every field a query reads is loaded with RD (or
   ACQ) and stored by the owner with WR (or REL), so that the pair is a
   relaxed atomic access, not a data race (WR is defined above the hot
   path, which uses it). Fields only the owner reads stay plain.
   ctxprof_hcct_stats_get() reads the same way: the counters of st, the
   child links (leaves), top, frames, frame_cap and excess (depth, bytes)
   are stored with WR; the owner keeps no count of the nodes in the tree
   (stats_get counts them from the parent links, like queries). */
#if defined(__GNUC__) || defined(__clang__)
#define CTXPROF__HCCT_RD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define CTXPROF__HCCT_ACQ(x) __atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define CTXPROF__HCCT_REL(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELEASE)
#if defined(__SANITIZE_THREAD__) && (defined(__x86_64__) || defined(__i386__))
/* gcc's ThreadSanitizer does not support thread fences (-Wtsan); on x86
   an acquire or release fence only orders the compiler, as these do */
#define CTXPROF__HCCT_FENCE_ACQ() __atomic_signal_fence(__ATOMIC_ACQUIRE)
#define CTXPROF__HCCT_FENCE_REL() __atomic_signal_fence(__ATOMIC_RELEASE)
#else
#define CTXPROF__HCCT_FENCE_ACQ() __atomic_thread_fence(__ATOMIC_ACQUIRE)
#define CTXPROF__HCCT_FENCE_REL() __atomic_thread_fence(__ATOMIC_RELEASE)
#endif
#else
#define CTXPROF__HCCT_RD(x) (x)
#define CTXPROF__HCCT_ACQ(x) (x)
#define CTXPROF__HCCT_REL(x, v) ((x) = (v))
#define CTXPROF__HCCT_FENCE_ACQ() ((void)0)
#define CTXPROF__HCCT_FENCE_REL() ((void)0)
#endif

#ifndef CTXPROF__DECL_DEFINES
CTXPROF_DEF CTXPROF_TLS ctxprof_hcct *ctxprof__hcct_tls CTXPROF__TLS_MODEL = NULL;
#endif

/* ==== hcct: tree ==== */

CTXPROF__HCCT_FN uint64_t ctxprof__hcct_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static const ctxprof_hcct_routine ctxprof__hcct_dropped_routine = {
    "[dropped: node bound]", __FILE__, __LINE__};

/* The burst clock; replaceable so that tests can drive bursts. */
typedef uint64_t (*ctxprof__hcct_clock_fn)(void);
static ctxprof__hcct_clock_fn ctxprof__hcct_clock = ctxprof__hcct_now_ns;

CTXPROF__HCCT_FN uint64_t ctxprof__hcct_sat_add(uint64_t a, uint64_t b)
{
    return b > UINT64_MAX - a ? UINT64_MAX : a + b;
}

/* The nodes that a filled descriptor's max_bytes holds. */
CTXPROF__HCCT_FN size_t ctxprof__hcct_max_nodes(const ctxprof_hcct_desc *d)
{
    size_t maxn = d->max_bytes / CTXPROF__HCCT_NODE_BYTES(d->mode == CTXPROF_HCCT_LSS);
    return maxn > 0xFFFFFFF0u ? 0xFFFFFFF0u : maxn;
}

/* Fills the defaults of a descriptor and validates it (also that
   max_bytes holds the counters' nodes). */
CTXPROF__HCCT_FN int ctxprof__hcct_desc_fill(ctxprof_hcct_desc *d, ctxprof_error *err)
{
    double m;
    size_t maxn;
    int given = d->counters != 0, lss;
    if (d->mode != CTXPROF_HCCT_LSS && d->mode != CTXPROF_HCCT_CCT)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "hcct: unknown mode %d", d->mode);
    if (d->metric < CTXPROF_HCCT_CALLS || d->metric > CTXPROF_HCCT_OTHER)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "hcct: unknown metric %d", d->metric);
    if (d->phi == 0)
        d->phi = 1e-4;
    if (!(d->phi > 0 && d->phi < 1))
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "hcct: phi must be in (0, 1), got %g",
                             d->phi);
    if (d->mode == CTXPROF_HCCT_CCT) {
        /* no counters: epsilon and counters are not used */
    } else if (d->counters == 0) {
        if (d->epsilon == 0)
            d->epsilon = d->phi / 5;
        if (!(d->epsilon > 0 && d->epsilon < 1))
            return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0,
                                 "hcct: epsilon must be in (0, 1), got %g", d->epsilon);
        m = 1.0 / d->epsilon;
        if (m > (double)(1u << 30))
            return ctxprof__fail(err, CTXPROF_ERR_RANGE, 0,
                                 "hcct: epsilon %g needs more than 2^30 counters", d->epsilon);
        d->counters = (size_t)m;
        if ((double)d->counters < m - 1e-6)
            d->counters++;
    } else {
        if (d->counters > ((size_t)1 << 30))
            return ctxprof__fail(err, CTXPROF_ERR_RANGE, 0, "hcct: %zu counters, at most 2^30",
                                 d->counters);
        d->epsilon = 1.0 / (double)d->counters;
    }
    if (d->mode == CTXPROF_HCCT_LSS && d->epsilon > d->phi && !given)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0,
                             "hcct: epsilon (%g) must not exceed phi (%g)", d->epsilon, d->phi);
    if (d->max_depth == 0)
        d->max_depth = (size_t)1 << 20;
    if (d->max_depth < 2 || d->max_depth > ((size_t)1 << 31))
        return ctxprof__fail(err, CTXPROF_ERR_RANGE, 0, "hcct: max_depth %zu out of range",
                             d->max_depth);
    if ((d->burst_period_us == 0) != (d->burst_length_us == 0) ||
        d->burst_length_us > d->burst_period_us)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0,
                             "hcct: bursting needs 0 < length (%u us) <= period (%u us)",
                             (unsigned)d->burst_length_us, (unsigned)d->burst_period_us);
    if (d->max_bytes == 0) /* reserved, not used: pages are touched as nodes are */
        d->max_bytes = d->mode == CTXPROF_HCCT_CCT
                           ? (size_t)1280 << 20
                           : (d->counters * 16 + 65536) * CTXPROF__HCCT_NODE_BYTES(1);
    lss = d->mode == CTXPROF_HCCT_LSS;
    maxn = ctxprof__hcct_max_nodes(d);
    if (maxn < 16 || (lss && maxn < d->counters + 3))
        return ctxprof__fail(err, CTXPROF_ERR_RANGE, 0,
                             "hcct: max_bytes %zu leaves room for %zu nodes (need %zu)",
                             d->max_bytes, maxn,
                             lss && d->counters + 3 > 16 ? d->counters + 3 : (size_t)16);
    return CTXPROF_OK;
}

CTXPROF__HCCT_FN void ctxprof__hcct_q_reset(ctxprof_hcct *t);

/* n * size bytes aligned to a cache line (*raw is what to free): malloc
   aligns large blocks to 16 bytes, and then every other 32-byte node
   would straddle two lines. */
CTXPROF__HCCT_FN void *ctxprof__hcct_alloc_lines(size_t n, size_t size, void *ud, void **raw)
{
    char *p = NULL;
    if (size == 0 || n <= (SIZE_MAX - 64) / size)
        p = (char *)ctxprof__alloc(n * size + 64, 1, ud);
    *raw = p;
    return p ? (void *)(((uintptr_t)p + 63) & ~(uintptr_t)63) : NULL;
}

/* Frees a tree's memory and zeroes it (the library's own trees: session
   trees, failed inits). */
CTXPROF__HCCT_FN void ctxprof__hcct_free_tree(ctxprof_hcct *t)
{
    void *ud = t->desc.alloc_user;
    ctxprof__free(t->nodes_raw, ud);
    ctxprof__free(t->aux_raw, ud);
    ctxprof__free(t->par, ud);
    ctxprof__free(t->qhead, ud);
    ctxprof__free(t->qslot_raw, ud);
    ctxprof__free(t->frames, ud);
    memset(t, 0, sizeof *t);
}

CTXPROF__HCCT_DEF int ctxprof_hcct_init(ctxprof_hcct *t, const ctxprof_hcct_desc *desc,
                                        ctxprof_error *err)
{
    ctxprof_hcct_desc d;
    size_t maxn;
    int rc, lss;
    void *ud;
    ctxprof__error_clear(err);
    if (!t)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "hcct: init of a NULL tree");
    if (t->live == CTXPROF__LIVE_TAG(t))
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0,
                             "hcct: init of an initialized tree (ctxprof_hcct_deinit it first)");
    memset(t, 0, sizeof *t);
    if (desc)
        d = *desc;
    else
        memset(&d, 0, sizeof d);
    rc = ctxprof__hcct_desc_fill(&d, err);
    if (rc)
        return rc;
    ud = d.alloc_user;
    lss = d.mode == CTXPROF_HCCT_LSS;
    maxn = ctxprof__hcct_max_nodes(&d);
    t->desc = d;
    t->max_nodes = (uint32_t)maxn;
    /* Reserved once and never moved, so that other threads can read the
       tree while it grows; untouched pages cost nothing with glibc. */
    t->nodes = (ctxprof_hcct_node *)ctxprof__hcct_alloc_lines(maxn, sizeof(ctxprof_hcct_node), ud,
                                                              &t->nodes_raw);
    if (lss) {
        t->nslots = (uint32_t)d.counters;
        t->aux = (ctxprof_hcct_aux *)ctxprof__hcct_alloc_lines(maxn, sizeof(ctxprof_hcct_aux), ud,
                                                               &t->aux_raw);
        t->qblocks = CTXPROF__HCCT_QBLOCKS(t->nslots);
        t->qslot = (uint32_t *)ctxprof__hcct_alloc_lines(
            (size_t)(t->qblocks + 1) * CTXPROF__HCCT_QB, sizeof(uint32_t), ud, &t->qslot_raw);
        if (t->qslot) /* zeros: node 0 and block 0 are valid targets for the lookahead */
            memset(t->qslot, 0, (size_t)(t->qblocks + 1) * CTXPROF__HCCT_QB * 4);
        t->qhead = (uint32_t *)ctxprof__alloc(2 * CTXPROF__HCCT_W, sizeof(uint32_t), ud);
        t->qtail = t->qhead + CTXPROF__HCCT_W;
    } else {
        t->par = (uint32_t *)ctxprof__alloc(maxn, sizeof(uint32_t), ud);
    }
    t->frame_cap = d.max_depth < 1024 ? d.max_depth : 1024;
    t->frames = (ctxprof_hcct_frame *)ctxprof__zalloc(t->frame_cap, sizeof(ctxprof_hcct_frame), ud);
    if (!t->nodes || !t->frames || (lss ? !t->aux || !t->qhead || !t->qslot : !t->par)) {
        ctxprof__hcct_free_tree(t);
        return ctxprof__fail(err, CTXPROF_ERR_NOMEM, 0,
                             "hcct: cannot reserve %zu bytes (lower desc.max_bytes)",
                             d.max_bytes);
    }
    if (lss)
        ctxprof__hcct_q_reset(t);
    if (lss && d.metric != CTXPROF_HCCT_CALLS)
        t->qradix = 1; /* weighted from the start (q_radix); qbase = qend = 0 */
    /* node 0: dummy target of untracked frames (marked monitored so that
       leaving one never prunes); node 1: the root */
    memset(t->nodes, 0, 3 * sizeof(ctxprof_hcct_node));
    if (lss)
        memset(t->aux, 0, 3 * sizeof(ctxprof_hcct_aux));
    else
        t->par[0] = t->par[1] = t->par[2] = 0;
    t->nodes[0].count = CTXPROF__HCCT_MON;
    t->nodes[CTXPROF__HCCT_ROOT].count = lss ? 0 : CTXPROF__HCCT_MON;
    /* node 2, "[dropped]", is linked under the root when first needed */
    t->nodes[CTXPROF__HCCT_DROP].routine =
        (uintptr_t)&ctxprof__hcct_dropped_routine | CTXPROF_HCCT_NAMED;
    t->nodes[CTXPROF__HCCT_DROP].count = lss ? 0 : CTXPROF__HCCT_MON;
    CTXPROF__HCCT_PARENT(t, CTXPROF__HCCT_DROP) = CTXPROF__HCCT_FREE;
    t->n_nodes = 3;
    t->st.nodes_peak = 1; /* the root */
    t->site_mask = (d.flags & CTXPROF_HCCT_ROUTINE_ONLY) ? 0 : ~(uintptr_t)0;
    t->unit = d.metric == CTXPROF_HCCT_CALLS ? 1 : 0;
    t->top = t->frames;
    t->frames[0].sp = UINTPTR_MAX;
    t->frames[0].node = CTXPROF__HCCT_ROOT;
    t->sampling = 1;
    t->tick_period = CTXPROF__HCCT_TICK;
    if (d.burst_period_us) {
        t->period_ns = (uint64_t)d.burst_period_us * 1000u;
        t->length_ns = (uint64_t)d.burst_length_us * 1000u;
        t->last_tick_ns = ctxprof__hcct_clock();
        t->burst_end_ns = t->last_tick_ns + t->length_ns;
        t->next_burst_ns = t->last_tick_ns + t->period_ns;
        t->tick_period = 256;
        t->st.bursts = 1;
    }
    t->cd_assigned = (int64_t)t->tick_period;
    if (t->cd_assigned > (int64_t)t->frame_cap - 2)
        t->cd_assigned = (int64_t)t->frame_cap - 2;
    t->countdown = t->cd_assigned;
    t->live = CTXPROF__LIVE_TAG(t);
    return CTXPROF_OK;
}

CTXPROF__HCCT_DEF void ctxprof_hcct_deinit(ctxprof_hcct *t)
{
    if (!t || CTXPROF__HCCT_RD(t->session) != 0)
        return; /* a session's tree is the session's to free */
    /* the calling thread's hooks and macros stop using it: its events after
       this go where they went before it was bound (bind(NULL)) */
    if (ctxprof__hcct_tls == t)
        ctxprof__hcct_tls = NULL;
    ctxprof__hcct_free_tree(t);
}

/* st.nodes_peak after the tree grew. No count of the nodes in the tree is
   kept (it would cost two updates per replacement; stats_get counts them):
   a new peak comes only from a node taken past n_nodes, when the free list
   is empty (a node from the free list cannot make one: when it was freed,
   one more node was in the tree), or from linking "[dropped]". Then every
   node below n_nodes is in the tree but node 0, the free ones (nfree) and
   "[dropped]" while it is unlinked. */
CTXPROF__HCCT_FN void ctxprof__hcct_peak(ctxprof_hcct *t, uint32_t nfree)
{
    size_t in = (size_t)t->n_nodes - 1 - nfree -
                (CTXPROF__HCCT_PARENT(t, CTXPROF__HCCT_DROP) == CTXPROF__HCCT_FREE);
    if (in > t->st.nodes_peak)
        CTXPROF__HCCT_WR(t->st.nodes_peak, in);
}

/* A free node id, or 0 when the node bound is reached. The free list is
   LIFO: a replacement that prunes its victim reuses that node, still in
   cache, for the next new context. Most victims have children and free
   nothing, so most new contexts take older free nodes, whose lines have
   left the caches: the next one's node and aux lines are fetched now,
   while the program runs until the next replacement (zipfwalk: -1.0 ns a
   call, 7 of 7 alternating runs). */
CTXPROF__HCCT_INLINE uint32_t ctxprof__hcct_alloc_node(ctxprof_hcct *t)
{
    uint32_t v = t->free_head;
    if (CTXPROF__LIKELY(v != 0)) {
        uint32_t next = t->nodes[v].sibling;
        t->free_head = next;
        CTXPROF__HCCT_PREFETCH(&t->nodes[next]);
        if (t->aux)
            CTXPROF__HCCT_PREFETCH(&t->aux[next]);
        return v;
    }
    if (t->n_nodes >= t->max_nodes)
        return 0;
    v = t->n_nodes;
    if (t->aux) /* a fresh node's reuse generation starts at 0 (live queries compare it) */
        CTXPROF__HCCT_WR(t->aux[v].gen, 0);
    CTXPROF__HCCT_PARENT(t, v) = CTXPROF__HCCT_FREE; /* invisible to readers until filled */
    CTXPROF__HCCT_REL(t->n_nodes, v + 1);
    ctxprof__hcct_peak(t, 0);
    return v;
}

/* Unlinks the leaf v from its parent's children and frees it (LSS);
   returns the parent. The caller counts it in st.pruned (a relaxed atomic store). */
CTXPROF__HCCT_INLINE uint32_t ctxprof__hcct_free_leaf(ctxprof_hcct *t, uint32_t v)
{
    ctxprof_hcct_node *n = t->nodes;
    uint32_t p = t->aux[v].parent, *link = &n[p].child;
    /* pruning goes on to p when it is left an unmonitored leaf: its parent
       link (a line apart from its node's) is fetched with the node's line
       (callgrind's cache model: half of these reads missed the last level;
       zipfwalk paired runs: bursting 1.44x -> 1.33x, 6 of 6 pairs) */
    CTXPROF__HCCT_PREFETCH(&t->aux[p]);
    while (*link != v && *link != 0)
        link = &n[*link].sibling;
    if (*link == v)
        CTXPROF__HCCT_WR(*link, n[v].sibling);
    /* a live query that read this node before checks the generation
       after its copy: seqlock-like, the bump precedes the reuse's writes */
    CTXPROF__HCCT_WR(t->aux[v].gen, t->aux[v].gen + 1);
    CTXPROF__HCCT_FENCE_REL();
    CTXPROF__HCCT_REL(t->aux[v].parent, CTXPROF__HCCT_FREE);
    n[v].sibling = t->free_head;
    t->free_head = v;
    return p;
}

/* Removes unmonitored leaves from v upwards, stopping at keep (the current
   context), at keep2 (0, or the end of a path being built) and at the
   root: SPE'16 Alg. 1. Only LSS trees prune. */
CTXPROF__HCCT_FN void ctxprof__hcct_prune(ctxprof_hcct *t, uint32_t v, uint32_t keep,
                                          uint32_t keep2)
{
    const ctxprof_hcct_node *n = t->nodes;
    uint64_t k = 0;
    while (v > CTXPROF__HCCT_DROP && v != keep && v != keep2 && n[v].child == 0 &&
           !(n[v].count & CTXPROF__HCCT_MON) && t->aux[v].parent != CTXPROF__HCCT_FREE) {
        v = ctxprof__hcct_free_leaf(t, v);
        k++;
    }
    if (k)
        CTXPROF__HCCT_WR(t->st.pruned, t->st.pruned + k);
}

/* The current context: the deepest tracked frame's node that is not
   "[dropped]". Every node of a live frame must stay in the tree; each is
   the parent of the next one up, so only this one can be a leaf, and
   pruning spares it (Alg. 1 spares the current context). The frames on
   "[dropped]" lie on top of the others (what they call is dropped too):
   the first of them is remembered, and checked before use (exits pop
   frames without looking), so that events under a deep run of them do
   not walk it. */
CTXPROF__HCCT_FN uint32_t ctxprof__hcct_cursor(ctxprof_hcct *t)
{
    const ctxprof_hcct_frame *f = t->top, *g;
    while (f > t->frames && f->node == 0)
        f--;
    if (f->node != CTXPROF__HCCT_DROP)
        return f->node;
    /* the root frame is never on "[dropped]": g[-1] is a frame where read */
    g = t->frames + t->drop_at;
    if (g > f || g->node != CTXPROF__HCCT_DROP || g[-1].node == CTXPROF__HCCT_DROP) {
        for (g = f; g[-1].node == CTXPROF__HCCT_DROP; g--)
            ;
        t->drop_at = (size_t)(g - t->frames);
    }
    return g[-1].node;
}

/* ==== hcct: space saving ==== */

/* The lazy priority queue of SPE'16 sec. 4.2 (Alg. 2), generalized from one
   count value to a window of W values. Alg. 2 keeps the last minimum and
   scans for an entry equal to it, rescanning all |M| counters when none is
   left: with counters in the nodes each rescan would be |M| cache misses,
   once per distinct minimum. Here the monitored nodes whose count was in
   [qbase, qend) when they were listed sit in W FIFO buckets (bucket = count
   mod W); a counter that grew since is moved when it is met, and all
   monitored nodes are rescanned only when the window is used up.
   Invariant: a monitored node that is not listed has count >= qend, and a
   listed node's count is at least the value of its bucket; so when the
   lowest non-empty bucket has a node whose count equals qbase, it is a
   minimum. Counters never decrease, which is what makes this exact (the
   argument of Theorem 4.1). FIFO order among equal counts evicts a cold
   path top-down, so the parents that pruning touches were just touched.

   A bucket is a chain of 64-byte blocks of node ids (15 ids, then the
   index of the next block), not a list through the nodes: the victims of
   the next replacements can then be read, and prefetched, without
   touching the cold nodes in between (q_drop). Each monitored node is
   listed at most once, so QBLOCKS blocks always suffice. */
CTXPROF__HCCT_FN void ctxprof__hcct_q_reset(ctxprof_hcct *t)
{
    uint32_t b, k;
    for (b = 0; b < CTXPROF__HCCT_W; b++) /* bucket b starts empty in block b */
        t->qhead[b] = t->qtail[b] = b * CTXPROF__HCCT_QB;
    /* the list ends at the spare block qblocks, never reached (QBLOCKS) */
    t->qfree = t->qblocks;
    for (k = t->qblocks; k-- > CTXPROF__HCCT_W;) {
        t->qslot[k * CTXPROF__HCCT_QB + CTXPROF__HCCT_QB - 1] = t->qfree;
        t->qfree = k;
    }
}

/* Radix mode: the bucket of a count, 0 for qbase, else 1 + the highest
   bit where it differs from qbase (counts are >= qbase and below 2^63). */
CTXPROF__HCCT_INLINE uint32_t ctxprof__hcct_q_rbucket(const ctxprof_hcct *t, uint64_t value)
{
    uint64_t x = value ^ t->qbase;
#if defined(__GNUC__) || defined(__clang__)
    return x ? 64u - (uint32_t)__builtin_clzll(x) : 0u;
#else
    return ctxprof__bits(x);
#endif
}

CTXPROF__HCCT_INLINE void ctxprof__hcct_q_push(ctxprof_hcct *t, uint32_t x, uint64_t value)
{
    uint32_t b, s;
    if (value >= t->qend) { /* qend is 0 in radix mode */
        if (!t->qradix)
            return; /* beyond the window: found again by the next rescan */
        b = ctxprof__hcct_q_rbucket(t, value);
    } else {
        b = (uint32_t)(value & (CTXPROF__HCCT_W - 1));
    }
    s = t->qtail[b];
    t->qslot[s++] = x;
    if ((s & (CTXPROF__HCCT_QB - 1)) == CTXPROF__HCCT_QB - 1) { /* full: link a free block */
        uint32_t k = t->qfree;
        CTXPROF_ASSERT(k != t->qblocks);
        t->qfree = t->qslot[k * CTXPROF__HCCT_QB + CTXPROF__HCCT_QB - 1];
        t->qslot[s] = k;
        s = k * CTXPROF__HCCT_QB;
    }
    t->qtail[b] = s;
}

/* Post-order traversal (children before parents): the first node, and the
   successor of v (0 after the root). */
CTXPROF__HCCT_FN uint32_t ctxprof__hcct_leftmost(const ctxprof_hcct *t, uint32_t v)
{
    while (t->nodes[v].child)
        v = t->nodes[v].child;
    return v;
}

CTXPROF__HCCT_FN uint32_t ctxprof__hcct_postorder(const ctxprof_hcct *t, uint32_t v)
{
    if (v == CTXPROF__HCCT_ROOT)
        return 0;
    if (t->nodes[v].sibling)
        return ctxprof__hcct_leftmost(t, t->nodes[v].sibling);
    return CTXPROF__HCCT_PARENT(t, v);
}

/* Lists every monitored node afresh from base (window mode: those below
   end), a walk of the whole tree counted in st.rescans. Nodes are listed
   in post-order: with FIFO buckets, among equal counts a child is evicted
   before its parent, so pruning does not leave unmonitored ancestors
   behind (listed in node order, the MCCT of zipfwalk grows by a third
   after each rescan). */
CTXPROF__HCCT_FN void ctxprof__hcct_q_list(ctxprof_hcct *t, uint64_t base, uint64_t end)
{
    const ctxprof_hcct_node *n = t->nodes;
    uint32_t v;
    ctxprof__hcct_q_reset(t);
    t->qbase = base;
    t->qend = end;
    for (v = ctxprof__hcct_leftmost(t, CTXPROF__HCCT_ROOT); v; v = ctxprof__hcct_postorder(t, v))
        if (n[v].count & CTXPROF__HCCT_MON)
            ctxprof__hcct_q_push(t, v, n[v].count & CTXPROF__HCCT_CMASK);
    CTXPROF__HCCT_WR(t->st.rescans, t->st.rescans + 1);
}

/* Rebuilds the window from the minimum. */
CTXPROF__HCCT_FN void ctxprof__hcct_q_rescan(ctxprof_hcct *t)
{
    const ctxprof_hcct_node *n = t->nodes;
    uint64_t m = CTXPROF__HCCT_CMASK;
    uint32_t v;
    for (v = ctxprof__hcct_leftmost(t, CTXPROF__HCCT_ROOT); v; v = ctxprof__hcct_postorder(t, v))
        if ((n[v].count & CTXPROF__HCCT_MON) && (n[v].count & CTXPROF__HCCT_CMASK) < m)
            m = n[v].count & CTXPROF__HCCT_CMASK;
    ctxprof__hcct_q_list(t, m, m + CTXPROF__HCCT_W); /* counters stay below 2^63: no overflow */
}

/* Removes the first id of bucket b, whose first slot is s, and prefetches
   a later victim: the next victims are known (SPE'16 sec. 4.2 finds them
   one by one), so the node and aux lines of the one CTXPROF__HCCT_AHEAD
   places on are fetched while the program runs the calls in between (its
   parent's lines too gained nothing: README). */
CTXPROF__HCCT_INLINE void ctxprof__hcct_q_drop(ctxprof_hcct *t, uint32_t b, uint32_t s)
{
    const uint32_t qb = CTXPROF__HCCT_QB;
    uint32_t y;
    if ((++s & (qb - 1)) == qb - 1) { /* block used up: free it, go to the next */
        uint32_t k = t->qslot[s];
        t->qslot[s] = t->qfree;
        t->qfree = s / qb;
        s = k * qb;
    }
    t->qhead[b] = s;
    /* Past the tail, slots hold node ids that are stale or 0 and the link
       slot a block index: harmless to prefetch. */
    y = s + CTXPROF__HCCT_AHEAD;
    if ((s & (qb - 1)) + CTXPROF__HCCT_AHEAD >= qb - 1)
        y = t->qslot[s | (qb - 1)] * qb + (s & (qb - 1)) + CTXPROF__HCCT_AHEAD - (qb - 1);
    y = t->qslot[y];
    CTXPROF__HCCT_PREFETCH(&t->nodes[y]);
    CTXPROF__HCCT_PREFETCH(&t->aux[y]);
}

/* Weights other than 1 (a metric other than calls, weighted add and
   add_path) spread the counts: new ones at min + w leave the window of W
   values, which is then used up after a few replacements, and each rescan
   walks the whole tree (|M| = 20,000 and weights up to 10^6: a rescan per
   11 replacements). Such trees switch for good to a radix heap (Ahuja,
   Mehlhorn, Orlin, Tarjan, J. ACM 1990) in the same buckets and blocks:
   every monitored node is listed, bucket 0 at qbase, bucket b > 0 where
   the listed count first differs from qbase in bit b - 1. It is lazy like
   the window: counts only grow, and so does a node's bucket, so a node met
   below where it belongs moves up; when bucket 0 is empty, the minimum of
   the lowest non-empty bucket becomes qbase and its nodes move down. A
   node moves down at most 63 times per listing: find-min is amortized
   O(log C), with no rescans. The switch itself is one rescan. */
CTXPROF__HCCT_FN void ctxprof__hcct_q_radix(ctxprof_hcct *t)
{
    t->qradix = 1;
    /* qbase 0: below any count, also of nodes M takes in before it is full */
    ctxprof__hcct_q_list(t, 0, 0);
}

/* Takes the first node of the non-empty bucket b: the node if its count
   is qbase, else 0 after listing it where its count now belongs (it grew
   since it was listed). Node 0 is never listed. */
CTXPROF__HCCT_INLINE uint32_t ctxprof__hcct_q_take(ctxprof_hcct *t, uint32_t b)
{
    uint32_t s = t->qhead[b], x = t->qslot[s];
    uint64_t c;
    ctxprof__hcct_q_drop(t, b, s);
    c = t->nodes[x].count & CTXPROF__HCCT_CMASK;
    if (c == t->qbase)
        return x;
    ctxprof__hcct_q_push(t, x, c);
    return 0;
}

/* find-min in radix mode (see q_radix). */
CTXPROF__HCCT_FN uint32_t ctxprof__hcct_q_pop_radix(ctxprof_hcct *t)
{
    for (;;) {
        uint32_t b, s, x, end;
        uint64_t c, m = 0;
        int found = 0;
        if (t->qhead[0] != t->qtail[0]) {
            x = ctxprof__hcct_q_take(t, 0);
            if (x)
                return x;
            continue;
        }
        for (b = 1; b < 64 && t->qhead[b] == t->qtail[b]; b++)
            ;
        CTXPROF_ASSERT(b < 64);
        if (b == 64)
            return 0; /* nothing monitored: the callers never ask */
        /* nodes that grew up to their buckets, the others back to b (after
           end), with their minimum */
        end = t->qtail[b];
        while ((s = t->qhead[b]) != end) {
            x = t->qslot[s];
            ctxprof__hcct_q_drop(t, b, s);
            c = t->nodes[x].count & CTXPROF__HCCT_CMASK;
            if (ctxprof__hcct_q_rbucket(t, c) == b && (!found || c < m)) {
                m = c;
                found = 1;
            }
            ctxprof__hcct_q_push(t, x, c);
        }
        if (!found)
            continue;
        /* the new base shares the bits above b - 1 with every count left in
           b, and has bit b - 1 set like them: they all move down */
        t->qbase = m;
        end = t->qtail[b];
        while ((s = t->qhead[b]) != end) {
            x = t->qslot[s];
            ctxprof__hcct_q_drop(t, b, s);
            ctxprof__hcct_q_push(t, x, t->nodes[x].count & CTXPROF__HCCT_CMASK);
        }
    }
}

/* find-min, the general case: skips empty buckets, rescans when the window
   is used up, moves counters that grew since they were listed. */
CTXPROF__HCCT_FN CTXPROF__NOINLINE uint32_t ctxprof__hcct_q_pop_slow(ctxprof_hcct *t)
{
    if (t->qradix)
        return ctxprof__hcct_q_pop_radix(t);
    for (;;) {
        uint32_t x;
        while (t->qbase < t->qend && t->qhead[t->qbase & (CTXPROF__HCCT_W - 1)] ==
                                         t->qtail[t->qbase & (CTXPROF__HCCT_W - 1)])
            t->qbase++;
        if (t->qbase >= t->qend) {
            ctxprof__hcct_q_rescan(t);
            continue;
        }
        x = ctxprof__hcct_q_take(t, (uint32_t)(t->qbase & (CTXPROF__HCCT_W - 1)));
        if (x)
            return x;
    }
}

/* find-min: a monitored node whose count is the minimum (now t->qbase),
   removed from its bucket. Needs at least one monitored node. The common
   case, inline: the first id of the bucket of qbase still has that count. */
CTXPROF__HCCT_INLINE uint32_t ctxprof__hcct_q_pop_min(ctxprof_hcct *t)
{
    uint32_t b = (uint32_t)(t->qbase & (CTXPROF__HCCT_W - 1)), s = t->qhead[b], x;
    if (CTXPROF__LIKELY(s != t->qtail[b] && t->qbase < t->qend)) {
        x = t->qslot[s];
        if (CTXPROF__LIKELY((t->nodes[x].count & CTXPROF__HCCT_CMASK) == t->qbase)) {
            ctxprof__hcct_q_drop(t, b, s);
            return x;
        }
    }
    return ctxprof__hcct_q_pop_slow(t);
}

CTXPROF__HCCT_FN uint64_t ctxprof__hcct_cadd(uint64_t a, uint64_t b)
{
    return b > CTXPROF__HCCT_CMASK - a ? CTXPROF__HCCT_CMASK : a + b;
}

/* Space Saving update of an unmonitored node x with weight w > 0: x takes
   the place of the minimum (count min + w, error min); the victim becomes
   unmonitored and is pruned when it is a leaf (SPE'16 sec. 4.2, Alg. 1). */
CTXPROF__HCCT_FN void ctxprof__hcct_ss_update(ctxprof_hcct *t, uint32_t x, uint64_t w, uint32_t keep)
{
    ctxprof_hcct_node *n = t->nodes;
    uint32_t v;
    uint64_t m;
    if (t->used < t->nslots) {
        CTXPROF__HCCT_WR(t->used, t->used + 1);
        t->lean = t->used == t->nslots && t->unit != 0;
        CTXPROF__HCCT_WR(t->aux[x].err, 0);
        w = ctxprof__hcct_cadd(0, w); /* saturates like every count */
        CTXPROF__HCCT_REL(n[x].count, CTXPROF__HCCT_MON | w);
        ctxprof__hcct_q_push(t, x, w);
        return;
    }
    v = ctxprof__hcct_q_pop_min(t);
    m = t->qbase;
    CTXPROF__HCCT_WR(n[v].count, 0);
    CTXPROF__HCCT_WR(t->aux[x].err, m);
    CTXPROF__HCCT_REL(n[x].count, CTXPROF__HCCT_MON | ctxprof__hcct_cadd(m, w));
    ctxprof__hcct_q_push(t, x, ctxprof__hcct_cadd(m, w));
    CTXPROF__HCCT_WR(t->st.replaced, t->st.replaced + 1);
    ctxprof__hcct_prune(t, v, keep, 0);
}

/* Adds w to node c (monitored or not). */
CTXPROF__HCCT_FN void ctxprof__hcct_count(ctxprof_hcct *t, uint32_t c, uint64_t w, uint32_t keep)
{
    uint64_t v;
    if (w == 0 || c == 0)
        return;
    if (w > 1 && t->aux && !t->qradix)
        ctxprof__hcct_q_radix(t);
    v = t->nodes[c].count;
    if (v & CTXPROF__HCCT_MON)
        CTXPROF__HCCT_WR(t->nodes[c].count,
                         CTXPROF__HCCT_MON | ctxprof__hcct_cadd(v & CTXPROF__HCCT_CMASK, w));
    else if (CTXPROF__HCCT_PARENT(t, c) != CTXPROF__HCCT_FREE)
        ctxprof__hcct_ss_update(t, c, w, keep);
}

/* Child of p for (routine, site), created (unmonitored in LSS, counter 0 in
   CCT) when missing; 0 when the node bound is reached. */
CTXPROF__HCCT_FN uint32_t ctxprof__hcct_child(ctxprof_hcct *t, uint32_t p, uintptr_t routine,
                                              uintptr_t site)
{
    ctxprof_hcct_node *n = t->nodes;
    uint32_t c, last = 0, x;
    for (c = n[p].child; c != 0; last = c, c = n[c].sibling)
        if (n[c].routine == routine && n[c].site == site)
            return c;
    x = ctxprof__hcct_alloc_node(t);
    if (x == 0)
        return 0;
    /* a query may still read a reused node's fields (and then drop it:
       its generation moved) */
    CTXPROF__HCCT_WR(n[x].routine, routine);
    CTXPROF__HCCT_WR(n[x].site, site);
    CTXPROF__HCCT_WR(n[x].count, t->aux ? 0 : CTXPROF__HCCT_MON);
    CTXPROF__HCCT_WR(n[x].child, 0);
    n[x].sibling = 0;
    CTXPROF__HCCT_REL(CTXPROF__HCCT_PARENT(t, x), p);
    /* appended: children seen first (usually the hot ones) stay in front */
    if (last)
        n[last].sibling = x;
    else
        CTXPROF__HCCT_WR(n[p].child, x);
    return x;
}

/* An event that needs a node beyond the bound is counted on "[dropped]",
   and so are the events below it (its frame points there). keep is the
   current context (cursor): "[dropped]" is not on the path of the live
   frames, whose deepest node its Space Saving update must not prune. */
CTXPROF__HCCT_FN uint32_t ctxprof__hcct_dropped(ctxprof_hcct *t, uint64_t w, uint32_t keep)
{
    ctxprof_hcct_node *n = t->nodes;
    const uint32_t x = CTXPROF__HCCT_DROP;
    CTXPROF__HCCT_WR(t->st.dropped_nodes, t->st.dropped_nodes + 1);
    if (CTXPROF__HCCT_PARENT(t, x) == CTXPROF__HCCT_FREE) {
        uint32_t *link = &n[CTXPROF__HCCT_ROOT].child;
        while (*link)
            link = &n[*link].sibling;
        n[x].sibling = 0;
        CTXPROF__HCCT_WR(n[x].child, 0);
        CTXPROF__HCCT_REL(CTXPROF__HCCT_PARENT(t, x), CTXPROF__HCCT_ROOT);
        CTXPROF__HCCT_WR(*link, x);
        {
            uint32_t v, nfree = 0; /* once per tree */
            for (v = t->free_head; v; v = n[v].sibling)
                nfree++;
            ctxprof__hcct_peak(t, nfree);
        }
    }
    ctxprof__hcct_count(t, x, w, keep);
    return x;
}

/* The context p -> (routine, site) occurs with weight w: find or create
   its node and count it. keep is the current context, 0 when it is p.
   When the node bound is reached in LSS mode, the Space Saving replacement
   is done victim-first: if the minimum is a leaf, pruning it (sparing p,
   which may be a leaf too) frees the node the new context needs. Returns
   "[dropped]" (and counts a drop) when no node can be had. */
CTXPROF__HCCT_FN uint32_t ctxprof__hcct_occur(ctxprof_hcct *t, uint32_t p, uintptr_t routine,
                                              uintptr_t site, uint64_t w, uint32_t keep)
{
    ctxprof_hcct_node *n = t->nodes;
    uint32_t x = ctxprof__hcct_child(t, p, routine, site), v;
    uint64_t m;
    if (w > 1 && t->aux && !t->qradix)
        ctxprof__hcct_q_radix(t);
    if (x) {
        ctxprof__hcct_count(t, x, w, keep ? keep : x);
        return x;
    }
    if (t->aux && w > 0 && t->used == t->nslots) {
        v = ctxprof__hcct_q_pop_min(t);
        m = t->qbase;
        if (v > CTXPROF__HCCT_DROP && n[v].child == 0 && v != p && v != keep) {
            CTXPROF__HCCT_WR(n[v].count, 0);
            ctxprof__hcct_prune(t, v, p, keep);
            x = ctxprof__hcct_child(t, p, routine, site); /* reuses v's node */
            CTXPROF_ASSERT(x != 0);
            CTXPROF__HCCT_WR(t->aux[x].err, m);
            CTXPROF__HCCT_REL(n[x].count, CTXPROF__HCCT_MON | ctxprof__hcct_cadd(m, w));
            ctxprof__hcct_q_push(t, x, ctxprof__hcct_cadd(m, w));
            CTXPROF__HCCT_WR(t->st.replaced, t->st.replaced + 1);
            return x;
        }
        ctxprof__hcct_q_push(t, v, m); /* not a leaf: it stays monitored */
    }
    return ctxprof__hcct_dropped(t, w, keep ? keep : p);
}

/* The busy protocol: a slow path parks the countdown very negative, then
   marks the tree busy, so that an instrumented signal handler that
   interrupts it goes to the slow path too, finds the tree busy (or the
   countdown parked: a handler between the two stores) and drops its
   events instead of modifying the tree half-way through an update. END
   restores the countdown before it clears busy: a handler between the two
   takes the fast path (the update is done) or drops. A handler between
   BEGIN's read of the countdown and its parking runs to completion before
   the update starts; only its countdown decrements are lost (a tick may
   come a few events late). */
#define CTXPROF__HCCT_BEGIN(t, saved)                                                              \
    do {                                                                                           \
        (saved) = (t)->countdown;                                                                  \
        CTXPROF__HCCT_WR((t)->countdown, CTXPROF__HCCT_CD_BUSY);                                   \
        CTXPROF__HCCT_FENCE();                                                                     \
        (t)->busy = 1;                                                                             \
        CTXPROF__HCCT_FENCE();                                                                     \
    } while (0)
/* An event that interrupted the profiler: a slow path (between BEGIN and
   END) or the fast path while it holds the countdown parked. */
#define CTXPROF__HCCT_REENTERED(t) ((t)->busy || (t)->countdown <= CTXPROF__HCCT_CD_BUSY / 2)
/* In a void slow path: an event that interrupted the profiler is dropped. */
#define CTXPROF__HCCT_BEGIN_OR_DROP(t, saved)                                                      \
    do {                                                                                           \
        if (CTXPROF__HCCT_REENTERED(t)) {                                                          \
            CTXPROF__HCCT_WR((t)->st.reentrant, (t)->st.reentrant + 1);                            \
            return;                                                                                \
        }                                                                                          \
        CTXPROF__HCCT_BEGIN(t, saved);                                                             \
    } while (0)
#define CTXPROF__HCCT_END(t, saved)                                                                \
    do {                                                                                           \
        CTXPROF__HCCT_FENCE();                                                                     \
        CTXPROF__HCCT_WR((t)->countdown, (saved));                                                 \
        CTXPROF__HCCT_FENCE();                                                                     \
        (t)->busy = 0;                                                                             \
    } while (0)

CTXPROF__HCCT_FN int ctxprof__hcct_bury(ctxprof_hcct *t);

/* Pushes a frame (room is guaranteed by the countdown). */
CTXPROF__HCCT_FN void ctxprof__hcct_push_frame(ctxprof_hcct *t, uintptr_t routine, uintptr_t site,
                                               uintptr_t sp, uint32_t point, uint32_t node)
{
    ctxprof_hcct_frame *f = t->top + 1;
    size_t d;
    f->sp = sp;
    f->routine = routine;
    f->site = site;
    f->node = node;
    f->point = point;
    CTXPROF__HCCT_WR(t->top, f);
    d = (size_t)(f - t->frames);
    if (d > t->st.depth_peak)
        CTXPROF__HCCT_WR(t->st.depth_peak, d);
}

/* The common Space Saving replacement of an enter event (SPE'16 sec. 4.2),
   done victim first: the minimum is evicted and pruned (Alg. 1), so that
   when it was a leaf the new context reuses its node, still in cache. x is
   the unmonitored node of the context, or 0 to create it under p after
   last (the tail of p's children as the fast path saw it). Returns the
   node, monitored with count min + unit and error min. Written out rather
   than composed from the general functions: it is a third of zipfwalk's
   events, and each of their checks that cannot fail here costs. */
CTXPROF__HCCT_INLINE uint32_t ctxprof__hcct_replace(ctxprof_hcct *t, uint32_t p, uint32_t last,
                                                uint32_t x, uintptr_t routine, uintptr_t key)
{
    ctxprof_hcct_node *n = t->nodes;
    ctxprof_hcct_aux *a = t->aux;
    uint32_t v = ctxprof__hcct_q_pop_min(t), keep = x ? x : p;
    uint64_t m = t->qbase, c = m + t->unit; /* unit counts cannot reach 2^63 */
    CTXPROF__HCCT_WR(n[v].count, 0);
    CTXPROF__HCCT_WR(t->st.replaced, t->st.replaced + 1);
    /* Alg. 1: v and then its unmonitored ancestors, while they are leaves;
       v was monitored until now, so it is in the tree. Most victims are
       not leaves (FIFO among equal counts evicts a cold path top-down);
       the leaf at its end then frees the whole path. */
    if (n[v].child == 0 && v != keep && v > CTXPROF__HCCT_DROP) {
        uint64_t k = 0;
        do {
            v = ctxprof__hcct_free_leaf(t, v);
            k++;
        } while (!(n[v].count & CTXPROF__HCCT_MON) && n[v].child == 0 && v != keep &&
                 v > CTXPROF__HCCT_DROP);
        CTXPROF__HCCT_WR(t->st.pruned, t->st.pruned + k);
    }
    if (!x) {
        /* the victim may have been p's last child */
        if (last && (a[last].parent != p || n[last].sibling != 0))
            for (last = n[p].child; last && n[last].sibling; last = n[last].sibling)
                ;
        x = ctxprof__hcct_alloc_node(t); /* the caller checked that there is one */
        CTXPROF__HCCT_WR(n[x].routine, routine);
        CTXPROF__HCCT_WR(n[x].site, key);
        CTXPROF__HCCT_WR(n[x].child, 0);
        n[x].sibling = 0;
        CTXPROF__HCCT_REL(a[x].parent, p); /* publishes the fields (live queries) */
        if (last)
            n[last].sibling = x;
        else
            CTXPROF__HCCT_WR(n[p].child, x);
    }
    CTXPROF__HCCT_WR(a[x].err, m);
    CTXPROF__HCCT_REL(n[x].count, CTXPROF__HCCT_MON | c);
    ctxprof__hcct_q_push(t, x, c);
    return x;
}

/* ==== hcct: shadow stack ==== */

CTXPROF__HCCT_FN uintptr_t ctxprof__hcct_top_sp(const ctxprof_hcct *t)
{
    return t->excess ? t->excess_sp : t->top->sp;
}

/* Pops the top frame; a node left as an unmonitored leaf is pruned. */
CTXPROF__HCCT_FN void ctxprof__hcct_pop_frame(ctxprof_hcct *t)
{
    uint32_t c = t->top->node;
    CTXPROF__HCCT_WR(t->top, t->top - 1);
    if (c > CTXPROF__HCCT_ROOT && !(t->nodes[c].count & CTXPROF__HCCT_MON))
        ctxprof__hcct_prune(t, c, ctxprof__hcct_cursor(t), 0);
}

/* Frames beyond max_depth are counted in excess instead of pushed; while
   any are, the top frame's sp is parked at 0 (real value in excess_sp) so
   that every exit takes the slow path. */
CTXPROF__HCCT_FN void ctxprof__hcct_excess_clear(ctxprof_hcct *t, int dead)
{
    if (!t->excess)
        return;
    if (dead)
        CTXPROF__HCCT_WR(t->st.unwound, t->st.unwound + t->excess);
    CTXPROF__HCCT_WR(t->excess, 0);
    t->top->sp = t->excess_sp;
}

/* An exit while frames are beyond max_depth: when deeper says it is one of
   them, it leaves (returns 1); otherwise they are gone (longjmp). */
CTXPROF__HCCT_FN int ctxprof__hcct_excess_exit(ctxprof_hcct *t, int deeper)
{
    if (!t->excess)
        return 0;
    if (deeper) {
        CTXPROF__HCCT_WR(t->excess, t->excess - 1);
        if (t->excess == 0)
            t->top->sp = t->excess_sp;
        return 1;
    }
    ctxprof__hcct_excess_clear(t, 1);
    return 0;
}

CTXPROF__HCCT_FN size_t ctxprof__hcct_room(const ctxprof_hcct *t)
{
    return t->frame_cap - 1 - (size_t)(t->top - t->frames);
}

/* Doubles the frame array up to max_depth; 0 when it cannot grow. */
CTXPROF__HCCT_FN int ctxprof__hcct_grow(ctxprof_hcct *t)
{
    size_t used = (size_t)(t->top - t->frames) + 1, ncap = t->frame_cap * 2;
    ctxprof_hcct_frame *nf;
    if (t->frame_cap >= t->desc.max_depth)
        return 0;
    if (ncap > t->desc.max_depth)
        ncap = t->desc.max_depth;
    nf = (ctxprof_hcct_frame *)ctxprof__alloc(ncap, sizeof *nf, t->desc.alloc_user);
    if (!nf)
        return 0;
    memcpy(nf, t->frames, used * sizeof *nf);
    ctxprof__free(t->frames, t->desc.alloc_user);
    CTXPROF__HCCT_WR(t->frames, nf);
    CTXPROF__HCCT_WR(t->top, nf + used - 1);
    CTXPROF__HCCT_WR(t->frame_cap, ncap);
    return 1;
}

/* Marks every frame untracked (end of a burst, pause); the former current
   context is pruned if it is an unmonitored leaf. */
CTXPROF__HCCT_FN void ctxprof__hcct_untrack(ctxprof_hcct *t)
{
    uint32_t c = ctxprof__hcct_cursor(t);
    ctxprof_hcct_frame *f;
    for (f = t->frames; f <= t->top; f++)
        f->node = 0;
    CTXPROF__HCCT_WR(t->sampling, 0);
    if (c > CTXPROF__HCCT_ROOT && !(t->nodes[c].count & CTXPROF__HCCT_MON))
        ctxprof__hcct_prune(t, c, 0, 0);
}

/* Resolves the node of every frame from the root (start of a burst): the
   walk creates missing ancestors but counts nothing. */
CTXPROF__HCCT_FN void ctxprof__hcct_track(ctxprof_hcct *t)
{
    ctxprof_hcct_frame *f;
    uint32_t c = CTXPROF__HCCT_ROOT;
    t->frames[0].node = c;
    for (f = t->frames + 1; f <= t->top; f++) {
        if (c != CTXPROF__HCCT_DROP &&
            (c = ctxprof__hcct_child(t, c, f->routine, f->site & t->site_mask)) == 0) {
            c = CTXPROF__HCCT_DROP; /* the bound: this part of the stack goes to [dropped] */
            if (CTXPROF__HCCT_PARENT(t, c) == CTXPROF__HCCT_FREE) {
                ctxprof__hcct_dropped(t, 0, 0);
                CTXPROF__HCCT_WR(t->st.dropped_nodes, t->st.dropped_nodes - 1);
            }
        }
        f->node = c;
    }
    CTXPROF__HCCT_WR(t->sampling, 1);
}

CTXPROF__HCCT_FN void ctxprof__hcct_session_poll(ctxprof_hcct *t);

/* Runs every tick_period enters (and when the frame array is nearly
   full): event accounting, session requests, burst schedule. Returns the
   new countdown. */
CTXPROF__HCCT_FN int64_t ctxprof__hcct_tick(ctxprof_hcct *t, int64_t cd)
{
    uint64_t consumed = (uint64_t)(t->cd_assigned - cd);
    uint64_t next;
    size_t room;
    CTXPROF__HCCT_WR(t->events_base, t->events_base + consumed);
    if (t->sampling)
        CTXPROF__HCCT_WR(t->sampled, t->sampled + consumed);
    if ((size_t)(t->top - t->frames) + t->excess > t->st.depth_peak)
        CTXPROF__HCCT_WR(t->st.depth_peak, (size_t)(t->top - t->frames) + t->excess);
    if (CTXPROF__HCCT_RD(t->session))
        ctxprof__hcct_session_poll(t);
    next = t->tick_period;
    if (t->period_ns && !t->paused) {
        uint64_t now = ctxprof__hcct_clock(), until, dt = now - t->last_tick_ns;
        if (t->sampling && now >= t->burst_end_ns) {
            ctxprof__hcct_untrack(t);
            if (t->next_burst_ns <= now)
                t->next_burst_ns = now + (t->period_ns - t->length_ns);
        } else if (!t->sampling && now >= t->next_burst_ns) {
            ctxprof__hcct_track(t);
            CTXPROF__HCCT_WR(t->st.bursts, t->st.bursts + 1);
            t->burst_end_ns = now + t->length_ns;
            t->next_burst_ns += t->period_ns;
            if (t->next_burst_ns <= now)
                t->next_burst_ns = now + t->period_ns;
        }
        /* next check near the next boundary, at most length/4 away */
        until = t->sampling ? t->burst_end_ns - now : t->next_burst_ns - now;
        if (until > t->length_ns / 4)
            until = t->length_ns / 4;
        if (dt > 0 && consumed > 0) {
            double k = (double)consumed * (double)until / (double)dt;
            next = k < 16 ? 16 : k > 65536 ? 65536 : (uint64_t)k;
        } else {
            next = 256;
        }
        t->last_tick_ns = now;
    }
    room = ctxprof__hcct_room(t);
    if (room < 2 && ctxprof__hcct_grow(t))
        room = ctxprof__hcct_room(t);
    if (next > room)
        next = room;
    CTXPROF__HCCT_WR(t->cd_assigned, (int64_t)next);
    return (int64_t)next;
}

/* The node of the context p -> (routine, site), counted. */
CTXPROF__HCCT_INLINE uint32_t ctxprof__hcct_resolve(ctxprof_hcct *t, uint32_t p,
                                                    uintptr_t routine, uintptr_t site)
{
    ctxprof_hcct_node *n = t->nodes;
    uintptr_t key = site & t->site_mask;
    uint32_t c, last = 0;
    if (p == CTXPROF__HCCT_DROP)
        return ctxprof__hcct_dropped(t, t->unit, ctxprof__hcct_cursor(t));
    if (p == 0)
        return 0; /* outside a burst, or under a dropped frame */
    for (c = n[p].child; c != 0; last = c, c = n[c].sibling)
        if (n[c].routine == routine && n[c].site == key)
            break;
    if (c && (n[c].count & CTXPROF__HCCT_MON))
        CTXPROF__HCCT_WR(n[c].count,
                         CTXPROF__HCCT_MON |
                             ctxprof__hcct_cadd(n[c].count & CTXPROF__HCCT_CMASK, t->unit));
    else if (CTXPROF__LIKELY(t->lean && (c || t->free_head || t->n_nodes < t->max_nodes)))
        c = ctxprof__hcct_replace(t, p, last, c, routine, key); /* the common case */
    else
        c = ctxprof__hcct_occur(t, p, routine, key, t->unit, 0);
    return c;
}

/* The fast path found no monitored node for the context under a tracked
   frame, and pushed the frame untracked with the countdown parked (cd is
   the value to restore): resolve its node. */
CTXPROF__HCCT_DEF void ctxprof__hcct_enter_miss(ctxprof_hcct *t, int64_t cd)
{
    ctxprof_hcct_frame *f = t->top;
    size_t d = (size_t)(f - t->frames);
    /* never busy here: the countdown has been parked since the lookup */
    CTXPROF_ASSERT(!t->busy);
    t->busy = 1;
    CTXPROF__HCCT_FENCE();
    if (d > t->st.depth_peak)
        CTXPROF__HCCT_WR(t->st.depth_peak, d);
    f->node = ctxprof__hcct_resolve(t, f[-1].node, f->routine, f->site);
    CTXPROF__HCCT_END(t, cd);
}

/* Whether the top frame cannot be live when routine is entered at (sp,
   site, point). One recorded deeper than sp is dead. At the same address,
   a live frame is one that the new routine was inlined into: then both
   were entered from the same machine frame and have the same call site
   (gcc and clang pass the caller's return address for inlined callees).
   A different call site means a sibling call after a longjmp back into
   the caller; so does an entry point that a frame of that machine frame
   already has (the very same entry again), and the frames above it are
   dead with it. An unknown point (0) is checked against the top only. */
CTXPROF__HCCT_FN int ctxprof__hcct_top_dead(const ctxprof_hcct *t, uintptr_t routine,
                                            uintptr_t site, uintptr_t sp, uint32_t point)
{
    const ctxprof_hcct_frame *g = t->top;
    if (g->sp != sp)
        return g->sp < sp;
    if (g->site != site)
        return 1;
    if (point == 0)
        return g->routine == routine;
    for (; g > t->frames && g->sp == sp && g->site == site; g--)
        if (g->routine == routine && g->point == point)
            return 1;
    return 0;
}

/* Enter events the fast path cannot take: tick due, a frame above that
   looks dead (longjmp), the frame array full, re-entry. */
CTXPROF__HCCT_DEF void ctxprof__hcct_enter_slow(ctxprof_hcct *t, uintptr_t routine, uintptr_t site,
                                                uintptr_t sp, uint32_t point)
{
    int64_t cd;
    size_t room;
    if (CTXPROF__UNLIKELY(t->frames == NULL))
        return; /* not initialized: its countdown (0) sent every enter here */
    CTXPROF__HCCT_BEGIN_OR_DROP(t, cd);
    /* a shutdown left it: let it go with the event, unless the event
       interrupted the profiler (dropped above: the interrupted code still
       writes the tree) or ctxprof__hcct_bury may not run here */
    if (CTXPROF__UNLIKELY(CTXPROF__HCCT_RD(t->session) == 2) && ctxprof__hcct_bury(t))
        return;
    if (cd < 0)
        cd = ctxprof__hcct_tick(t, cd);
    if (t->excess) {
        /* deeper than the deepest pushed frame: still beyond the bound */
        if (sp < t->excess_sp) {
            CTXPROF__HCCT_WR(t->excess, t->excess + 1);
            CTXPROF__HCCT_WR(t->st.dropped_depth, t->st.dropped_depth + 1);
            goto out;
        }
        ctxprof__hcct_excess_clear(t, 1);
    }
    while (t->top > t->frames && ctxprof__hcct_top_dead(t, routine, site, sp, point)) {
        ctxprof__hcct_pop_frame(t);
        CTXPROF__HCCT_WR(t->st.unwound, t->st.unwound + 1);
    }
    room = ctxprof__hcct_room(t);
    if (room == 0 && !ctxprof__hcct_grow(t)) {
        CTXPROF__HCCT_WR(t->excess, 1);
        t->excess_sp = t->top->sp;
        t->top->sp = 0;
        CTXPROF__HCCT_WR(t->st.dropped_depth, t->st.dropped_depth + 1);
        goto out;
    }
    ctxprof__hcct_push_frame(t, routine, site, sp, point,
                             ctxprof__hcct_resolve(t, t->top->node, routine, site));
out:
    room = ctxprof__hcct_room(t);
    if (cd > (int64_t)room) {
        CTXPROF__HCCT_WR(t->cd_assigned, t->cd_assigned - (cd - (int64_t)room));
        cd = (int64_t)room;
    }
    CTXPROF__HCCT_END(t, cd);
}

CTXPROF__HCCT_DEF void ctxprof__hcct_exit_slow(ctxprof_hcct *t, uintptr_t routine, uintptr_t sp)
{
    int64_t cd;
    CTXPROF__HCCT_BEGIN_OR_DROP(t, cd);
    if (ctxprof__hcct_excess_exit(t, sp < t->excess_sp ||
                                         (sp == t->excess_sp && routine != t->top->routine)))
        goto out;
    while (t->top > t->frames && t->top->sp < sp) {
        ctxprof__hcct_pop_frame(t);
        CTXPROF__HCCT_WR(t->st.unwound, t->st.unwound + 1);
    }
    if (t->top > t->frames && t->top->sp == sp && t->top->routine != routine) {
        /* callees inlined into the exiting routine that a longjmp left:
           the frames above its own at the same address */
        const ctxprof_hcct_frame *g = t->top;
        while (g > t->frames && g->sp == sp && g->routine != routine)
            g--;
        while (g > t->frames && g->sp == sp && t->top > g) {
            ctxprof__hcct_pop_frame(t);
            CTXPROF__HCCT_WR(t->st.unwound, t->st.unwound + 1);
        }
    }
    if (t->top > t->frames && t->top->routine == routine)
        ctxprof__hcct_pop_frame(t); /* top->sp > sp: alloca moved the stack pointer */
    else
        CTXPROF__HCCT_WR(t->st.unmatched, t->st.unmatched + 1);
out:
    CTXPROF__HCCT_END(t, cd);
}

CTXPROF__HCCT_DEF void ctxprof__hcct_exit_prune(ctxprof_hcct *t, uint32_t c)
{
    int64_t cd;
    if (CTXPROF__HCCT_REENTERED(t) || c <= CTXPROF__HCCT_ROOT)
        return;
    CTXPROF__HCCT_BEGIN(t, cd);
    ctxprof__hcct_prune(t, c, ctxprof__hcct_cursor(t), 0);
    CTXPROF__HCCT_END(t, cd);
}

CTXPROF__HCCT_DEF void ctxprof__hcct_pop_slow(ctxprof_hcct *t)
{
    int64_t cd;
    if (CTXPROF__UNLIKELY(t->frames == NULL))
        return; /* not initialized (top == frames == NULL sent it here) */
    CTXPROF__HCCT_BEGIN_OR_DROP(t, cd);
    if (!ctxprof__hcct_excess_exit(t, 1)) {
        if (t->top > t->frames)
            ctxprof__hcct_pop_frame(t);
        else
            CTXPROF__HCCT_WR(t->st.unmatched, t->st.unmatched + 1);
    }
    CTXPROF__HCCT_END(t, cd);
}

/* ctxprof_hcct_push's other cases. */
CTXPROF__HCCT_DEF void ctxprof__hcct_push_slow(ctxprof_hcct *t, uintptr_t routine, uintptr_t site)
{
    if (CTXPROF__UNLIKELY(t->frames == NULL))
        return; /* not initialized */
    ctxprof_hcct_enter(t, routine, site,
                       t->excess != 0 ? t->excess_sp - 1 - t->excess : t->top->sp - 1);
}

CTXPROF__HCCT_DEF void ctxprof_hcct_add(ctxprof_hcct *t, uint64_t weight)
{
    int64_t cd;
    uint32_t c;
    if (!t || t->frames == NULL)
        return; /* not initialized */
    if (CTXPROF__HCCT_REENTERED(t)) {
        CTXPROF__HCCT_WR(t->st.reentrant, t->st.reentrant + 1);
        return;
    }
    c = t->top->node;
    if (c == 0 || weight == 0)
        return; /* outside a burst, or a dropped context */
    CTXPROF__HCCT_BEGIN(t, cd);
    ctxprof__hcct_count(t, c, weight, ctxprof__hcct_cursor(t));
    CTXPROF__HCCT_END(t, cd);
}

CTXPROF__HCCT_DEF void ctxprof_hcct_add_path(ctxprof_hcct *t, const uintptr_t *routines,
                                             const uintptr_t *sites, size_t n, uint64_t weight)
{
    int64_t cd;
    uint32_t c = CTXPROF__HCCT_ROOT, x = c, keep;
    size_t i;
    if (!t || t->frames == NULL)
        return; /* not initialized */
    if (CTXPROF__HCCT_REENTERED(t)) {
        CTXPROF__HCCT_WR(t->st.reentrant, t->st.reentrant + 1);
        return;
    }
    if (weight == 0 || (n > 0 && !routines))
        return;
    CTXPROF__HCCT_BEGIN(t, cd);
    keep = ctxprof__hcct_cursor(t);
    /* the ancestors, created (unmonitored) when missing: c is the deepest */
    for (i = 0; i + 1 < n; i++) {
        x = ctxprof__hcct_child(t, c, routines[i], sites ? sites[i] & t->site_mask : 0);
        if (x == 0 || x == CTXPROF__HCCT_DROP)
            break;
        c = x;
    }
    if (i + 1 < n) /* the node bound, or a path through "[dropped]" */
        x = ctxprof__hcct_dropped(t, weight, keep);
    else if (n == 0)
        ctxprof__hcct_count(t, c, weight, keep);
    else
        x = ctxprof__hcct_occur(t, c, routines[n - 1], sites ? sites[n - 1] & t->site_mask : 0,
                                weight, keep);
    if (x == CTXPROF__HCCT_DROP)
        ctxprof__hcct_prune(t, c, keep, 0); /* ancestors created for nothing */
    CTXPROF__HCCT_END(t, cd);
}

/* N (sum of all counters) and the minimum counter (0 until |M| is full):
   racy reads when another thread owns the tree. */
CTXPROF__HCCT_FN void ctxprof__hcct_total(const ctxprof_hcct *t, uint64_t *total, uint64_t *min)
{
    uint64_t sum = 0, mn = CTXPROF__HCCT_CMASK;
    uint32_t i, n = CTXPROF__HCCT_ACQ(t->n_nodes);
    for (i = CTXPROF__HCCT_ROOT; i < n; i++) {
        uint64_t v = CTXPROF__HCCT_RD(t->nodes[i].count);
        if ((v & CTXPROF__HCCT_MON) &&
            CTXPROF__HCCT_RD(CTXPROF__HCCT_PARENT(t, i)) != CTXPROF__HCCT_FREE) {
            sum = ctxprof__hcct_cadd(sum, v & CTXPROF__HCCT_CMASK); /* saturates like counts */
            if ((v & CTXPROF__HCCT_CMASK) < mn)
                mn = v & CTXPROF__HCCT_CMASK;
        }
    }
    *total = sum;
    /* only a full M bounds the contexts it does not hold */
    *min = t->aux && CTXPROF__HCCT_RD(t->used) >= t->nslots ? mn : 0;
}

/* The countdown as another thread reads it. Its owner parks it for a few
   nanoseconds at every enter (the busy protocol): wait that out. A slow
   path may keep it parked longer; the caller then counts none of the
   current period. */
CTXPROF__HCCT_FN int64_t ctxprof__hcct_cd_read(const ctxprof_hcct *t)
{
    int64_t cd = CTXPROF__HCCT_RD(t->countdown);
    int i;
    for (i = 0; i < 1024 && cd <= CTXPROF__HCCT_CD_BUSY / 2; i++)
        cd = CTXPROF__HCCT_RD(t->countdown);
    return cd;
}

/* The depth of the shadow stack, from any thread: top and frames are read
   apart, and the frame array may have moved in between (grow); a new array
   never overlaps the old one, so a mixed pair puts top outside the frames
   read, and is read again. */
CTXPROF__HCCT_FN size_t ctxprof__hcct_depth(const ctxprof_hcct *t)
{
    int i;
    for (i = 0; i < 64; i++) {
        uintptr_t f = (uintptr_t)CTXPROF__HCCT_RD(t->frames);
        uintptr_t top = (uintptr_t)CTXPROF__HCCT_RD(t->top);
        size_t cap = CTXPROF__HCCT_RD(t->frame_cap);
        if (top >= f && (top - f) / sizeof(ctxprof_hcct_frame) < cap &&
            f == (uintptr_t)CTXPROF__HCCT_RD(t->frames))
            return (top - f) / sizeof(ctxprof_hcct_frame) + CTXPROF__HCCT_RD(t->excess);
    }
    return 0;
}

CTXPROF__HCCT_DEF void ctxprof_hcct_stats_get(const ctxprof_hcct *t, ctxprof_hcct_stats *out)
{
    const ctxprof_hcct_stats *st;
    size_t i, n, peak, qbytes;
    int64_t cd, as;
    if (!out)
        return;
    memset(out, 0, sizeof *out);
    if (!t || CTXPROF__HCCT_RD(t->frames) == NULL)
        return; /* NULL or not initialized: all zero */
    st = &t->st;
    cd = ctxprof__hcct_cd_read(t);
    as = CTXPROF__HCCT_RD(t->cd_assigned);
    if (cd < 0 && cd <= CTXPROF__HCCT_CD_BUSY / 2)
        cd = as;
    out->events = CTXPROF__HCCT_RD(t->events_base) + (uint64_t)(as > cd ? as - cd : 0);
    out->sampled = CTXPROF__HCCT_RD(t->sampled) +
                   (CTXPROF__HCCT_RD(t->sampling) ? (uint64_t)(as > cd ? as - cd : 0) : 0);
    ctxprof__hcct_total(t, &out->total, &out->min);
    /* field by field: the owner stores each with WR, the others change */
    out->rescans = CTXPROF__HCCT_RD(st->rescans);
    out->pruned = CTXPROF__HCCT_RD(st->pruned);
    out->dropped_nodes = CTXPROF__HCCT_RD(st->dropped_nodes);
    out->dropped_depth = CTXPROF__HCCT_RD(st->dropped_depth);
    out->unwound = CTXPROF__HCCT_RD(st->unwound);
    out->unmatched = CTXPROF__HCCT_RD(st->unmatched);
    out->reentrant = CTXPROF__HCCT_RD(st->reentrant);
    out->bursts = CTXPROF__HCCT_RD(st->bursts);
    out->nodes_peak = CTXPROF__HCCT_RD(st->nodes_peak);
    out->depth_peak = CTXPROF__HCCT_RD(st->depth_peak);
    out->replaced = CTXPROF__HCCT_RD(st->replaced);
    out->counters = t->desc.mode == CTXPROF_HCCT_LSS ? t->nslots : 0;
    /* the nodes in the tree, from the parent links (as queries read them:
       the owner's count of live nodes is its own) and the leaves among them */
    n = CTXPROF__HCCT_ACQ(t->n_nodes);
    out->nodes = 1; /* the root */
    for (i = 2; i < n; i++)
        if (CTXPROF__HCCT_RD(CTXPROF__HCCT_PARENT(t, i)) != CTXPROF__HCCT_FREE) {
            out->nodes++;
            out->leaves += CTXPROF__HCCT_RD(t->nodes[i].child) == 0;
        }
    out->depth = ctxprof__hcct_depth(t);
    peak = n; /* nodes ever touched */
    /* the lazy queue: bucket ends and every block (zeroed at init) */
    qbytes = t->aux ? (2 * CTXPROF__HCCT_W + ((size_t)t->qblocks + 1) * CTXPROF__HCCT_QB) *
                          sizeof(uint32_t)
                    : 0;
    out->bytes = peak * CTXPROF__HCCT_NODE_BYTES(t->aux != NULL) +
                 CTXPROF__HCCT_RD(t->frame_cap) * sizeof(ctxprof_hcct_frame) + qbytes;
    out->bytes_bound =
        t->desc.max_bytes + t->desc.max_depth * sizeof(ctxprof_hcct_frame) + qbytes;
}

/* ==== hcct: utilities ==== */

/* Growable output buffer; a failed allocation sets oom and drops output. */
typedef struct ctxprof__hcct_sb {
    char *p;
    size_t len, cap;
    void *ud;
    int oom;
} ctxprof__hcct_sb;

CTXPROF__HCCT_FN void ctxprof__hcct_sb_add(ctxprof__hcct_sb *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (ctxprof__reserve((void **)&b->p, &b->cap, b->len, b->len + n + 1, 1, b->ud)) {
        b->oom = 1;
        return;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

CTXPROF__HCCT_FN void ctxprof__hcct_sb_puts(ctxprof__hcct_sb *b, const char *s)
{
    ctxprof__hcct_sb_add(b, s, strlen(s));
}

CTXPROF__HCCT_FN CTXPROF__PRINTF(2, 3) void ctxprof__hcct_sb_printf(ctxprof__hcct_sb *b,
                                                                  const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof tmp) {
        ctxprof__hcct_sb_add(b, tmp, (size_t)n);
        return;
    }
    if (b->oom ||
        ctxprof__reserve((void **)&b->p, &b->cap, b->len, b->len + (size_t)n + 1, 1, b->ud)) {
        b->oom = 1;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

/* Stable merge sort of indices with a context comparator (qsort has no
   context argument in C99). */
typedef int (*ctxprof__hcct_cmp)(const void *ctx, uint32_t a, uint32_t b);
CTXPROF__HCCT_FN void ctxprof__hcct_sort(uint32_t *a, uint32_t *tmp, size_t n,
                                         ctxprof__hcct_cmp cmp, const void *ctx)
{
    size_t w, i;
    uint32_t *src = a, *dst = tmp;
    for (w = 1; w < n; w *= 2) {
        for (i = 0; i < n; i += 2 * w) {
            size_t l = i, m = i + w < n ? i + w : n, r = i + 2 * w < n ? i + 2 * w : n;
            size_t x = l, y = m, k = l;
            while (x < m && y < r)
                dst[k++] = cmp(ctx, src[y], src[x]) < 0 ? src[y++] : src[x++];
            while (x < m)
                dst[k++] = src[x++];
            while (y < r)
                dst[k++] = src[y++];
        }
        {
            uint32_t *s = src;
            src = dst;
            dst = s;
        }
    }
    if (src != a)
        memcpy(a, src, n * sizeof *a);
}

/* Open-addressing index of uint32 values by a 64-bit hash; the caller
   compares the candidates (keys are not stored). */
typedef struct ctxprof__hcct_ix {
    uint64_t *h;
    uint32_t *v; /* value + 1, 0 = empty */
    size_t mask, n;
    void *ud;
} ctxprof__hcct_ix;

CTXPROF__HCCT_FN void ctxprof__hcct_ix_free(ctxprof__hcct_ix *x)
{
    ctxprof__free(x->h, x->ud);
    ctxprof__free(x->v, x->ud);
    x->h = NULL;
    x->v = NULL;
    x->mask = x->n = 0;
}

/* Room for extra more values: ix_add then does not allocate (or fail). */
CTXPROF__HCCT_FN int ctxprof__hcct_ix_reserve(ctxprof__hcct_ix *x, size_t extra)
{
    size_t ns = x->v ? x->mask + 1 : 64;
    if (extra > SIZE_MAX / 4 - x->n)
        return CTXPROF_ERR_NOMEM;
    if (x->v && 2 * (x->n + extra) <= ns)
        return CTXPROF_OK;
    while (ns < 2 * (x->n + extra))
        ns *= 2;
    {
        size_t k;
        uint64_t *nh = (uint64_t *)ctxprof__alloc(ns, sizeof *nh, x->ud);
        uint32_t *nv = (uint32_t *)ctxprof__zalloc(ns, sizeof *nv, x->ud);
        if (!nh || !nv) {
            ctxprof__free(nh, x->ud);
            ctxprof__free(nv, x->ud);
            return CTXPROF_ERR_NOMEM;
        }
        for (k = 0; x->v && k <= x->mask; k++)
            if (x->v[k]) {
                size_t j = (size_t)x->h[k] & (ns - 1);
                while (nv[j])
                    j = (j + 1) & (ns - 1);
                nh[j] = x->h[k];
                nv[j] = x->v[k];
            }
        ctxprof__free(x->h, x->ud);
        ctxprof__free(x->v, x->ud);
        x->h = nh;
        x->v = nv;
        x->mask = ns - 1;
    }
    return CTXPROF_OK;
}

CTXPROF__HCCT_FN int ctxprof__hcct_ix_add(ctxprof__hcct_ix *x, uint64_t h, uint32_t val)
{
    size_t i;
    if ((!x->v || 2 * (x->n + 1) > x->mask + 1) && ctxprof__hcct_ix_reserve(x, 1))
        return CTXPROF_ERR_NOMEM;
    i = (size_t)h & x->mask;
    while (x->v[i])
        i = (i + 1) & x->mask;
    x->h[i] = h;
    x->v[i] = val + 1;
    x->n++;
    return CTXPROF_OK;
}

/* Iterates the values stored under hash h: start with *pos = SIZE_MAX. */
CTXPROF__HCCT_FN uint32_t ctxprof__hcct_ix_next(const ctxprof__hcct_ix *x, uint64_t h, size_t *pos)
{
    size_t i;
    if (!x->v)
        return CTXPROF_HCCT_NONE;
    i = *pos == SIZE_MAX ? (size_t)h & x->mask : (*pos + 1) & x->mask;
    while (x->v[i]) {
        if (x->h[i] == h) {
            *pos = i;
            return x->v[i] - 1;
        }
        i = (i + 1) & x->mask;
    }
    *pos = i;
    return CTXPROF_HCCT_NONE;
}

CTXPROF__HCCT_FN uint64_t ctxprof__hcct_key(uint32_t parent, uintptr_t routine, uintptr_t site)
{
    return ctxprof_mix64(ctxprof_mix64((uint64_t)routine ^ ((uint64_t)parent << 32)) ^
                         (uint64_t)site);
}

/* ==== hcct: profiles ==== */

CTXPROF__HCCT_FN ctxprof__strtab *ctxprof__hcct_names(const ctxprof_hcct_profile *p)
{
    return (ctxprof__strtab *)p->names_;
}

/* An empty profile: the root only. */
CTXPROF__HCCT_FN int ctxprof__hcct_prof_init(ctxprof_hcct_profile *p, void *ud, size_t cap)
{
    ctxprof__strtab *st;
    memset(p, 0, sizeof *p);
    p->alloc_user = ud;
    st = (ctxprof__strtab *)ctxprof__alloc(1, sizeof *st, ud);
    if (!st)
        return CTXPROF_ERR_NOMEM;
    ctxprof__strtab_init(st, ud);
    p->names_ = st;
    if (ctxprof__strtab_intern(st, "<root>") != 0)
        return CTXPROF_ERR_NOMEM;
    p->cap = cap < 16 ? 16 : cap;
    p->nodes = (ctxprof_hcct_pnode *)ctxprof__zalloc(p->cap, sizeof *p->nodes, ud);
    if (!p->nodes)
        return CTXPROF_ERR_NOMEM;
    p->n = 1;
    p->nodes[0].parent = CTXPROF_HCCT_NONE;
    p->nodes[0].flags = CTXPROF_HCCT_IS_ROOT;
    p->threads = 0;
    return CTXPROF_OK;
}

CTXPROF__HCCT_DEF void ctxprof_hcct_profile_deinit(ctxprof_hcct_profile *p)
{
    if (!p)
        return;
    if (p->names_) {
        ctxprof__strtab_deinit(ctxprof__hcct_names(p));
        ctxprof__free(p->names_, p->alloc_user);
    }
    ctxprof__free(p->nodes, p->alloc_user);
    memset(p, 0, sizeof *p);
}

CTXPROF__HCCT_DEF const char *ctxprof_hcct_profile_name(const ctxprof_hcct_profile *p, size_t i)
{
    const ctxprof__strtab *st = p ? ctxprof__hcct_names(p) : NULL;
    if (!st || i >= p->n || p->nodes[i].name >= st->n)
        return "?";
    return st->names[p->nodes[i].name];
}

/* Appends a node; returns its index or CTXPROF_HCCT_NONE (no memory). */
CTXPROF__HCCT_FN uint32_t ctxprof__hcct_prof_push(ctxprof_hcct_profile *p)
{
    if (p->n >= 0xFFFFFFF0u ||
        ctxprof__reserve((void **)&p->nodes, &p->cap, p->n, p->n + 1, sizeof *p->nodes,
                         p->alloc_user))
        return CTXPROF_HCCT_NONE;
    memset(&p->nodes[p->n], 0, sizeof p->nodes[0]);
    return (uint32_t)p->n++;
}

typedef struct ctxprof__hcct_sortctx {
    const ctxprof_hcct_pnode *nd;
    const ctxprof__strtab *names;
} ctxprof__hcct_sortctx;

/* Children order: by parent, decreasing count, name, ids (deterministic). */
CTXPROF__HCCT_FN int ctxprof__hcct_cmp_child(const void *ctx, uint32_t a, uint32_t b)
{
    const ctxprof__hcct_sortctx *c = (const ctxprof__hcct_sortctx *)ctx;
    const ctxprof_hcct_pnode *x = &c->nd[a], *y = &c->nd[b];
    int s;
    if (x->parent != y->parent)
        return x->parent < y->parent ? -1 : 1;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    s = strcmp(c->names->names[x->name], c->names->names[y->name]);
    if (s)
        return s;
    if (x->routine != y->routine)
        return x->routine < y->routine ? -1 : 1;
    if (x->site != y->site)
        return x->site < y->site ? -1 : 1;
    return a < b ? -1 : a > b;
}

/* Recomputes depth and the sorted child/sibling links. buf, when not
   NULL, holds 2 * (n - 1) entries: then it cannot fail. */
CTXPROF__HCCT_FN int ctxprof__hcct_prof_finish_in(ctxprof_hcct_profile *p, uint32_t *buf)
{
    size_t i, m = p->n > 1 ? p->n - 1 : 0;
    uint32_t *ord, *tmp;
    ctxprof__hcct_sortctx sc;
    ctxprof_hcct_pnode *nd = p->nodes;
    for (i = 0; i < p->n; i++)
        nd[i].child = nd[i].sibling = 0;
    nd[0].depth = 0;
    for (i = 1; i < p->n; i++)
        nd[i].depth = nd[nd[i].parent].depth + 1;
    if (m == 0)
        return CTXPROF_OK;
    ord = buf ? buf : (uint32_t *)ctxprof__alloc(m, sizeof *ord, p->alloc_user);
    tmp = buf ? buf + m : (uint32_t *)ctxprof__alloc(m, sizeof *tmp, p->alloc_user);
    if (!ord || !tmp) {
        ctxprof__free(ord, p->alloc_user);
        ctxprof__free(tmp, p->alloc_user);
        /* still a walkable tree (children in index order, not by count) */
        for (i = m; i > 0; i--) {
            nd[i].sibling = nd[nd[i].parent].child;
            nd[nd[i].parent].child = (uint32_t)i;
        }
        return CTXPROF_ERR_NOMEM;
    }
    for (i = 0; i < m; i++)
        ord[i] = (uint32_t)(i + 1);
    sc.nd = nd;
    sc.names = ctxprof__hcct_names(p);
    ctxprof__hcct_sort(ord, tmp, m, ctxprof__hcct_cmp_child, &sc);
    for (i = m; i-- > 0;) {
        uint32_t x = ord[i], par = nd[x].parent;
        nd[x].sibling = nd[par].child;
        nd[par].child = x;
    }
    if (!buf) {
        ctxprof__free(ord, p->alloc_user);
        ctxprof__free(tmp, p->alloc_user);
    }
    return CTXPROF_OK;
}

CTXPROF__HCCT_FN int ctxprof__hcct_prof_finish(ctxprof_hcct_profile *p)
{
    return ctxprof__hcct_prof_finish_in(p, NULL);
}

/* Default names: a ctxprof_hcct_routine for NAMED ids, else hex. */
CTXPROF__HCCT_FN const char *ctxprof__hcct_default_name(uintptr_t r, char *buf, size_t cap)
{
    if (r & CTXPROF_HCCT_NAMED) {
        const ctxprof_hcct_routine *d = (const ctxprof_hcct_routine *)(r & ~CTXPROF_HCCT_NAMED);
        if (d && !ctxprof__addr_loaded((uintptr_t)d, sizeof *d)) {
            /* on the heap, or in a library that dlclose unloaded: copied
               with checks where the system can check */
            ctxprof_hcct_routine c;
            long got = ctxprof__copy_checked(&c, (uintptr_t)d, sizeof c);
            if (got >= 0 && got < (long)sizeof c) {
                snprintf(buf, cap, "[unloaded 0x%llx]", (unsigned long long)(uintptr_t)d);
                return buf;
            }
            if (got > 0 && cap > 1) {
                got = c.name ? ctxprof__copy_checked(buf, (uintptr_t)c.name, cap - 1) : 0;
                if (got >= 0) {
                    buf[got] = '\0';
                    return buf[0] ? buf : "?";
                }
            }
        }
        return d && d->name && d->name[0] ? d->name : "?";
    }
    snprintf(buf, cap, "0x%llx", (unsigned long long)r);
    return buf;
}

/* Symbols of the process for CTXPROF_HCCT_CODE_ADDRESSES, loaded on first
   use and shared; the mutex covers loading, reloading and copying names
   out (a reload frees the old names). */
static pthread_mutex_t ctxprof__hcct_symmu = PTHREAD_MUTEX_INITIALIZER;
static ctxprof_symtab ctxprof__hcct_syms;
static int ctxprof__hcct_syms_state; /* 0 not loaded, 1 loaded, -1 unavailable */
/* fork() waits for the mutex (the session's fork handlers), registered on
   first use: queries of plain trees may take it with no session. */
static pthread_once_t ctxprof__hcct_fork_once = PTHREAD_ONCE_INIT;
CTXPROF__HCCT_FN void ctxprof__hcct_fork_init(void);

CTXPROF__HCCT_FN const char *ctxprof__hcct_symbol(uintptr_t r, char *buf, size_t cap,
                                                  int *reloaded)
{
    const char *name = NULL;
    uintptr_t off = 0;
    pthread_once(&ctxprof__hcct_fork_once, ctxprof__hcct_fork_init);
    pthread_mutex_lock(&ctxprof__hcct_symmu);
    if (ctxprof__hcct_syms_state == 0)
        ctxprof__hcct_syms_state = ctxprof_symtab_init(&ctxprof__hcct_syms, NULL) ? -1 : 1;
    if (ctxprof__hcct_syms_state == 1) {
        if (!*reloaded) { /* objects loaded or unloaded since (dlopen, dlclose)? once per query */
            uint64_t now = ctxprof__dl_changes();
            *reloaded = 1;
            if (now == UINT64_MAX || now != ctxprof__hcct_syms.dl_changes)
                ctxprof_symtab_reload(&ctxprof__hcct_syms, NULL);
        }
        name = ctxprof_symtab_lookup(&ctxprof__hcct_syms, r, &off, NULL);
        if (name) {
            char dm[1024];
            name = ctxprof_demangle(name, dm, sizeof dm);
            if (off) /* (a name cut to leave room for the offset) */
                snprintf(buf, cap, "%.*s+0x%llx", (int)(cap > 24 ? cap - 24 : 0), name,
                         (unsigned long long)off);
            else
                snprintf(buf, cap, "%s", name);
            name = buf;
        }
    }
    pthread_mutex_unlock(&ctxprof__hcct_symmu);
    return name;
}

/* Name id of routine r (cached per snapshot). */
typedef struct ctxprof__hcct_namecache {
    ctxprof__hcct_ix ix;
    uintptr_t *rid;
    uint32_t *nid;
    size_t n, cap, cap2;
    int reloaded;
} ctxprof__hcct_namecache;

CTXPROF__HCCT_FN long ctxprof__hcct_name_of(ctxprof_hcct_profile *p, ctxprof__hcct_namecache *nc,
                                           const ctxprof_hcct_desc *d, uintptr_t r)
{
    uint64_t h = ctxprof_mix64((uint64_t)r);
    size_t pos = SIZE_MAX;
    uint32_t v;
    char buf[1024];
    const char *name = NULL;
    long id;
    while ((v = ctxprof__hcct_ix_next(&nc->ix, h, &pos)) != CTXPROF_HCCT_NONE)
        if (nc->rid[v] == r)
            return (long)nc->nid[v];
    if (d && d->namer)
        name = d->namer(d->namer_user, r, buf, sizeof buf);
    if (!name && d && (d->flags & CTXPROF_HCCT_CODE_ADDRESSES) && !(r & CTXPROF_HCCT_NAMED))
        name = ctxprof__hcct_symbol(r, buf, sizeof buf, &nc->reloaded);
    if (!name)
        name = ctxprof__hcct_default_name(r, buf, sizeof buf);
    /* a name the binary format holds and reads back: not empty, and not
       the root's (name 0) */
    if (!*name)
        name = "?";
    else if (strcmp(name, "<root>") == 0)
        name = "[<root>]";
    id = ctxprof__strtab_intern(ctxprof__hcct_names(p), name);
    if (id < 0 ||
        ctxprof__reserve((void **)&nc->rid, &nc->cap, nc->n, nc->n + 1, sizeof *nc->rid,
                         nc->ix.ud) ||
        ctxprof__reserve((void **)&nc->nid, &nc->cap2, nc->n, nc->n + 1, sizeof *nc->nid,
                         nc->ix.ud) ||
        ctxprof__hcct_ix_add(&nc->ix, h, (uint32_t)nc->n))
        return -1;
    nc->rid[nc->n] = r;
    nc->nid[nc->n] = (uint32_t)id;
    nc->n++;
    return id;
}

CTXPROF__HCCT_FN void ctxprof__hcct_namecache_free(ctxprof__hcct_namecache *nc)
{
    ctxprof__hcct_ix_free(&nc->ix);
    ctxprof__free(nc->rid, nc->ix.ud);
    ctxprof__free(nc->nid, nc->ix.ud);
}

/* ==== hcct: snapshot and query ==== */

/* Copies a tree into a profile, keeping the nodes with count > floor(phi*N)
   and their ancestors (all nodes when phi < 0). Safe while the owner
   thread runs: the structure is rebuilt from one read of each parent link,
   and only nodes connected to the root are kept. An LSS node can be freed
   and reused for another context between the read of its parent and the
   reads of its routine: each node's reuse generation is read before its
   parent and again after the whole copy, and a node whose generation
   moved is left out with its subtree. A node unchanged over its reads was
   one context all along, and so were its kept ancestors, whose reads
   started before and were checked after: every path of the copy existed
   in the tree (at the end of the copy), with counts a few events old. */
CTXPROF__HCCT_FN int ctxprof__hcct_snapshot(ctxprof_hcct *t, double phi, ctxprof_hcct_profile *out,
                                            ctxprof_error *err)
{
    void *ud = t->desc.alloc_user;
    uint32_t n = CTXPROF__HCCT_ACQ(t->n_nodes), i, nsl = t->nslots;
    uint32_t *par = NULL, *head = NULL, *next = NULL, *queue = NULL, *gen = NULL;
    unsigned char *mark = NULL;
    uint64_t total = 0, mn = 0, thr = 0, events, sampled, late_min;
    int64_t cd, as;
    ctxprof_hcct_profile p;
    ctxprof__hcct_namecache nc;
    size_t qh, qt;
    int lss = t->desc.mode == CTXPROF_HCCT_LSS, rc = CTXPROF_ERR_NOMEM;
    double scale = 1.0;

    memset(&nc, 0, sizeof nc);
    nc.ix.ud = ud;
    if (ctxprof__hcct_prof_init(&p, ud, 16))
        goto fail;
    par = (uint32_t *)ctxprof__alloc(n, sizeof *par, ud);
    head = (uint32_t *)ctxprof__zalloc(n, sizeof *head, ud);
    next = (uint32_t *)ctxprof__alloc(n, sizeof *next, ud);
    queue = (uint32_t *)ctxprof__alloc(n, sizeof *queue, ud);
    mark = (unsigned char *)ctxprof__zalloc(n, 1, ud);
    if (lss)
        gen = (uint32_t *)ctxprof__alloc(n, sizeof *gen, ud);
    if (!par || !head || !next || !queue || !mark || (lss && !gen))
        goto fail;

    /* N = sum of counters; the minimum bounds every unmonitored context */
    ctxprof__hcct_total(t, &total, &mn);
    if (phi >= 0)
        thr = (uint64_t)(phi * (double)total);

    /* one read of each parent link and the selection */
    for (i = 0; i < n; i++) {
        uint32_t q;
        uint64_t cv;
        if (gen) /* before anything else of the node */
            gen[i] = CTXPROF__HCCT_ACQ(t->aux[i].gen);
        q = i >= 2 ? CTXPROF__HCCT_ACQ(CTXPROF__HCCT_PARENT(t, i)) : 0;
        cv = CTXPROF__HCCT_RD(t->nodes[i].count);
        par[i] = CTXPROF_HCCT_NONE;
        if (i == CTXPROF__HCCT_ROOT) {
            par[i] = 0;
            mark[i] = 1;
            continue;
        }
        if (i == 0 || q < CTXPROF__HCCT_ROOT || q >= n || q == i)
            continue;
        par[i] = q;
        if (phi < 0) {
            mark[i] = 1;
        } else if (cv & CTXPROF__HCCT_MON) {
            if ((cv & CTXPROF__HCCT_CMASK) > thr)
                mark[i] = 1;
        } else if (mn > thr) {
            mark[i] = 1; /* unmonitored but possibly hot: the bound allows it */
        }
    }
    for (i = 2; i < n; i++) /* ancestors of selected nodes */
        if (mark[i] == 1) {
            uint32_t q = par[i];
            while (q != CTXPROF_HCCT_NONE && q >= CTXPROF__HCCT_ROOT && !mark[q]) {
                mark[q] = 2;
                q = par[q];
            }
        }
    /* children lists from the parent links read above, then BFS from the
       root: parents come before children and nothing unreachable is kept */
    for (i = n; i-- > 2;)
        if (mark[i] && par[i] != CTXPROF_HCCT_NONE) {
            next[i] = head[par[i]];
            head[par[i]] = i;
        }
    qh = qt = 0;
    queue[qt++] = CTXPROF__HCCT_ROOT;
    par[CTXPROF__HCCT_ROOT] = CTXPROF_HCCT_NONE;
    while (qh < qt) {
        uint32_t x = queue[qh++], c;
        for (c = head[x]; c; c = next[c])
            queue[qt++] = c;
    }
    events = CTXPROF__HCCT_RD(t->events_base);
    sampled = CTXPROF__HCCT_RD(t->sampled);
    cd = ctxprof__hcct_cd_read(t);
    as = CTXPROF__HCCT_RD(t->cd_assigned);
    if (cd >= 0 && as > cd) {
        events += (uint64_t)(as - cd);
        if (CTXPROF__HCCT_RD(t->sampling))
            sampled += (uint64_t)(as - cd);
    }
    if (t->period_ns && sampled > 0 && sampled < events)
        scale = (double)events / (double)sampled;

    /* profile nodes in BFS order; head[] is reused as the index map */
    for (qh = 0; qh < qt; qh++) {
        uint32_t x = queue[qh], k;
        uint64_t cv;
        ctxprof_hcct_pnode *pn;
        long nm;
        if (x == CTXPROF__HCCT_ROOT) {
            k = 0;
        } else {
            k = ctxprof__hcct_prof_push(&p);
            if (k == CTXPROF_HCCT_NONE)
                goto fail;
        }
        head[x] = k;
        pn = &p.nodes[k];
        pn->routine = CTXPROF__HCCT_RD(t->nodes[x].routine);
        pn->site = CTXPROF__HCCT_RD(t->nodes[x].site);
        pn->parent = x == CTXPROF__HCCT_ROOT ? CTXPROF_HCCT_NONE : head[par[x]];
        cv = CTXPROF__HCCT_RD(t->nodes[x].count);
        if (cv & CTXPROF__HCCT_MON) {
            pn->count = cv & CTXPROF__HCCT_CMASK;
            pn->err = lss ? CTXPROF__HCCT_RD(t->aux[x].err) : 0;
            if (pn->err > pn->count) /* a racing replacement: only the count bounds it */
                pn->err = pn->count;
            pn->flags |= CTXPROF_HCCT_MONITORED;
        } else {
            pn->count = mn;
            pn->err = mn;
        }
        if (scale != 1.0) {
            pn->count = (uint64_t)((double)pn->count * scale + 0.5);
            pn->err = (uint64_t)((double)pn->err * scale + 0.5);
        }
        if (x == CTXPROF__HCCT_ROOT) {
            pn->flags |= CTXPROF_HCCT_IS_ROOT;
            pn->name = 0;
        } else {
            nm = ctxprof__hcct_name_of(&p, &nc, &t->desc, pn->routine);
            if (nm < 0)
                goto fail;
            pn->name = (uint32_t)nm;
        }
    }
    if (gen) {
        /* the generations again: nodes reused since their first read go,
           and their subtrees with them (parents come first); mark and next
           now map profile indices (= queue positions) */
        size_t k = 0;
        CTXPROF__HCCT_FENCE_ACQ();
        for (qh = 0; qh < qt; qh++) {
            uint32_t x = queue[qh], pp = p.nodes[qh].parent;
            mark[qh] = CTXPROF__HCCT_RD(t->aux[x].gen) == gen[x] &&
                       (qh == 0 || mark[pp]);
            if (mark[qh]) {
                next[qh] = (uint32_t)k;
                p.nodes[k] = p.nodes[qh];
                if (k)
                    p.nodes[k].parent = next[pp];
                k++;
            }
        }
        p.n = k;
    }
    /* N again, after the copy: counters only grow, so every count copied
       is part of it and a live copy never holds more than its total */
    ctxprof__hcct_total(t, &total, &late_min);
    p.mode = t->desc.mode;
    p.metric = t->desc.metric;
    p.phi = phi >= 0 ? phi : 0;
    p.epsilon = lss ? t->desc.epsilon : 0;
    p.counters = lss ? nsl : 0;
    p.total = scale != 1.0 ? (uint64_t)((double)total * scale + 0.5) : total;
    p.threshold = phi >= 0 ? (uint64_t)(phi * (double)p.total) : 0;
    /* what the copy leaves out: contexts below the minimum counter (read
       again after the copy: it only grows, and a context evicted during the
       copy was at most that), and with phi, every count <= thr */
    if (late_min > mn) {
        uint64_t v = scale != 1.0 ? (uint64_t)((double)late_min * scale + 0.5) : late_min;
        mn = late_min;
        for (i = 1; i < p.n; i++)
            if (!(p.nodes[i].flags & CTXPROF_HCCT_MONITORED))
                p.nodes[i].count = p.nodes[i].err = v;
    }
    if (thr > mn)
        mn = thr;
    {
        /* a context left out may also have counts in "[dropped]" (the node
           bound) or in frames deeper than max_depth, which no node holds */
        uint64_t lost = CTXPROF__HCCT_RD(t->st.dropped_depth) * t->unit;
        if (CTXPROF__HCCT_RD(CTXPROF__HCCT_PARENT(t, CTXPROF__HCCT_DROP)) != CTXPROF__HCCT_FREE)
            lost = ctxprof__hcct_sat_add(
                lost, CTXPROF__HCCT_RD(t->nodes[CTXPROF__HCCT_DROP].count) & CTXPROF__HCCT_CMASK);
        mn = ctxprof__hcct_sat_add(mn, lost);
    }
    p.absent = scale != 1.0 ? (uint64_t)((double)mn * scale + 0.5) : mn;
    p.events = events;
    p.sampled = sampled;
    p.dropped = CTXPROF__HCCT_RD(t->st.dropped_nodes) + CTXPROF__HCCT_RD(t->st.dropped_depth);
    p.reentrant = CTXPROF__HCCT_RD(t->st.reentrant);
    p.flags = (phi >= 0 ? (unsigned)CTXPROF_HCCT_PRUNED : 0u) |
              (scale != 1.0 ? (unsigned)CTXPROF_HCCT_SCALED : 0u);
    p.threads = 1;
    for (i = 1; phi >= 0 && i < p.n; i++)
        if (p.nodes[i].count > p.threshold)
            p.nodes[i].flags |= CTXPROF_HCCT_HOT;
    if (ctxprof__hcct_prof_finish(&p))
        goto fail;
    rc = CTXPROF_OK;
    *out = p;
    memset(&p, 0, sizeof p);
fail:
    ctxprof_hcct_profile_deinit(&p);
    ctxprof__hcct_namecache_free(&nc);
    ctxprof__free(par, ud);
    ctxprof__free(head, ud);
    ctxprof__free(next, ud);
    ctxprof__free(queue, ud);
    ctxprof__free(mark, ud);
    ctxprof__free(gen, ud);
    if (rc)
        return ctxprof__fail(err, rc, 0, "hcct: out of memory copying a tree of %u nodes",
                             (unsigned)n);
    return CTXPROF_OK;
}

CTXPROF__HCCT_DEF int ctxprof_hcct_query(ctxprof_hcct *t, double phi, ctxprof_hcct_profile *out,
                                         ctxprof_error *err)
{
    ctxprof__error_clear(err);
    if (!out)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0,
                             "hcct: query without an output profile (out is NULL)");
    if (!t)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "hcct: query of a NULL tree");
    if (!t->nodes)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "hcct: query of an uninitialized tree");
    if (phi == 0)
        phi = t->desc.phi;
    if (phi >= 1 || phi != phi)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "hcct: phi must be below 1, got %g", phi);
    return ctxprof__hcct_snapshot(t, phi, out, err);
}

/* Keeps the nodes with count > thr (flagged hot if hot) and their
   ancestors. A context cut had count <= thr: absent covers it. */
CTXPROF__HCCT_FN int ctxprof__hcct_keep_above(ctxprof_hcct_profile *p, uint64_t thr, int hot)
{
    unsigned char *keep;
    uint32_t *map;
    size_t i, k;
    keep = (unsigned char *)ctxprof__zalloc(p->n, 1, p->alloc_user);
    map = (uint32_t *)ctxprof__alloc(p->n, sizeof *map, p->alloc_user);
    if (!keep || !map) {
        ctxprof__free(keep, p->alloc_user);
        ctxprof__free(map, p->alloc_user);
        return CTXPROF_ERR_NOMEM;
    }
    keep[0] = 1;
    for (i = p->n; i-- > 1;) {
        p->nodes[i].flags &= ~(uint32_t)CTXPROF_HCCT_HOT;
        if (p->nodes[i].count > thr) {
            keep[i] = 1;
            if (hot)
                p->nodes[i].flags |= CTXPROF_HCCT_HOT;
        }
        if (keep[i])
            keep[p->nodes[i].parent] = 1; /* parents have smaller indices */
    }
    for (i = k = 0; i < p->n; i++)
        if (keep[i]) {
            map[i] = (uint32_t)k;
            p->nodes[k] = p->nodes[i];
            if (k)
                p->nodes[k].parent = map[p->nodes[k].parent];
            k++;
        }
    p->n = k;
    if (thr > p->absent)
        p->absent = thr;
    ctxprof__free(keep, p->alloc_user);
    ctxprof__free(map, p->alloc_user);
    return ctxprof__hcct_prof_finish(p);
}

CTXPROF__HCCT_DEF int ctxprof_hcct_profile_prune(ctxprof_hcct_profile *p, double phi,
                                                 ctxprof_error *err)
{
    uint64_t thr;
    ctxprof__error_clear(err);
    if (!p)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "hcct: prune of a NULL profile");
    if (!(phi > 0 && phi < 1))
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "hcct: phi must be in (0, 1), got %g",
                             phi);
    if (p->n == 0)
        return CTXPROF_OK; /* a zeroed profile: nothing to keep */
    thr = (uint64_t)(phi * (double)p->total);
    p->phi = phi;
    p->threshold = thr;
    p->flags |= CTXPROF_HCCT_PRUNED;
    if (ctxprof__hcct_keep_above(p, thr, 1))
        return ctxprof__fail(err, CTXPROF_ERR_NOMEM, 0, "hcct: out of memory pruning");
    return CTXPROF_OK;
}

CTXPROF__HCCT_FN int ctxprof__hcct_cmp_desc(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* Keeps the k largest counts and their ancestors: what a Space Saving
   summary of k counters keeps of a merge (mergeable summaries, Agarwal et
   al., PODS'12). A context cut had count <= the (k+1)-th largest count,
   which absent covers; the counts and error bounds kept stay as they are. */
CTXPROF__HCCT_FN int ctxprof__hcct_reduce(ctxprof_hcct_profile *p, size_t k)
{
    uint64_t *c, thr;
    size_t i;
    if (p->n <= k + 1)
        return CTXPROF_OK;
    c = (uint64_t *)ctxprof__alloc(p->n - 1, sizeof *c, p->alloc_user);
    if (!c)
        return CTXPROF_ERR_NOMEM;
    for (i = 1; i < p->n; i++)
        c[i - 1] = p->nodes[i].count;
    qsort(c, p->n - 1, sizeof *c, ctxprof__hcct_cmp_desc);
    thr = c[k];
    ctxprof__free(c, p->alloc_user);
    return ctxprof__hcct_keep_above(p, thr, 0);
}

CTXPROF__HCCT_DEF int ctxprof_hcct_profile_copy(ctxprof_hcct_profile *dst,
                                                const ctxprof_hcct_profile *src,
                                                ctxprof_error *err)
{
    ctxprof_hcct_profile p;
    const ctxprof__strtab *st;
    size_t i;
    ctxprof__error_clear(err);
    if (!dst || !src)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "hcct: copy %s a NULL profile",
                             dst ? "of" : "into");
    st = ctxprof__hcct_names(src);
    if (src->n == 0) { /* a zeroed profile */
        memset(dst, 0, sizeof *dst);
        dst->alloc_user = src->alloc_user;
        return CTXPROF_OK;
    }
    if (ctxprof__hcct_prof_init(&p, src->alloc_user, src->n))
        goto nomem;
    for (i = 1; st && i < st->n; i++)
        if (ctxprof__strtab_intern(ctxprof__hcct_names(&p), st->names[i]) != (long)i)
            goto nomem;
    memcpy(p.nodes, src->nodes, src->n * sizeof *p.nodes);
    p.n = src->n;
    p.total = src->total;
    p.threshold = src->threshold;
    p.absent = src->absent;
    p.events = src->events;
    p.sampled = src->sampled;
    p.dropped = src->dropped;
    p.reentrant = src->reentrant;
    p.phi = src->phi;
    p.epsilon = src->epsilon;
    p.counters = src->counters;
    p.mode = src->mode;
    p.metric = src->metric;
    p.flags = src->flags;
    p.threads = src->threads;
    p.lost_threads = src->lost_threads;
    *dst = p;
    return CTXPROF_OK;
nomem:
    ctxprof_hcct_profile_deinit(&p);
    return ctxprof__fail(err, CTXPROF_ERR_NOMEM, 0, "hcct: out of memory copying a profile");
}

CTXPROF__HCCT_FN uint64_t ctxprof__hcct_node_key(const ctxprof_hcct_profile *p, uint32_t parent,
                                                 uint32_t i, int by_name)
{
    const ctxprof_hcct_pnode *x = &p->nodes[i];
    if (by_name) {
        const char *s = ctxprof_hcct_profile_name(p, i);
        return ctxprof__hcct_key(parent, (uintptr_t)ctxprof_hash_bytes(s, strlen(s), 7), 0);
    }
    return ctxprof__hcct_key(parent, x->routine, x->site);
}

/* Index of every node of p by (parent, routine, site) or (parent, name). */
CTXPROF__HCCT_FN int ctxprof__hcct_index(const ctxprof_hcct_profile *p, ctxprof__hcct_ix *ix,
                                         int by_name)
{
    size_t i;
    for (i = 1; i < p->n; i++)
        if (ctxprof__hcct_ix_add(ix, ctxprof__hcct_node_key(p, p->nodes[i].parent, (uint32_t)i,
                                                            by_name),
                                 (uint32_t)i))
            return CTXPROF_ERR_NOMEM;
    return CTXPROF_OK;
}

/* The node of p under parent that matches node j of q, or NONE. */
CTXPROF__HCCT_FN uint32_t ctxprof__hcct_find(const ctxprof_hcct_profile *p,
                                             const ctxprof__hcct_ix *ix, uint32_t parent,
                                             const ctxprof_hcct_profile *q, uint32_t j,
                                             int by_name)
{
    uint64_t h = ctxprof__hcct_node_key(q, parent, j, by_name);
    size_t pos = SIZE_MAX;
    uint32_t v;
    while ((v = ctxprof__hcct_ix_next(ix, h, &pos)) != CTXPROF_HCCT_NONE) {
        const ctxprof_hcct_pnode *a = &p->nodes[v], *b = &q->nodes[j];
        if (a->parent != parent)
            continue;
        if (by_name ? strcmp(ctxprof_hcct_profile_name(p, v), ctxprof_hcct_profile_name(q, j)) == 0
                    : (a->routine == b->routine && a->site == b->site))
            return v;
    }
    return CTXPROF_HCCT_NONE;
}

/* The bound of the contexts a profile does not hold: a pruned one also
   left out every count <= its threshold (files written before absent
   said so). */
CTXPROF__HCCT_FN uint64_t ctxprof__hcct_absent(const ctxprof_hcct_profile *p)
{
    return (p->flags & CTXPROF_HCCT_PRUNED) && p->threshold > p->absent ? p->threshold
                                                                         : p->absent;
}

/* A profile that others are merged into (a snapshot's, the exited threads'
   of a session, one merge's): in place, with the index of its nodes kept
   from one merge to the next, and the absent bounds of the merges added to
   the nodes lazily, so that merging N profiles costs O(their nodes), not
   O(N x nodes). pend sums the absent bounds merged since the counts were
   settled, base[i] the part of pend that node i's count and error already
   hold (base NULL: none). The counts, children and HOT flags are final
   after acc_finish. */
typedef struct ctxprof__hcct_acc {
    ctxprof_hcct_profile p;
    ctxprof__hcct_ix ix; /* every node but the root (when ix_ok) */
    uint64_t *base;
    size_t base_cap;
    uint64_t pend;
    int ix_ok, ix_by_name;
    uint32_t merged; /* merges since the children were last sorted */
} ctxprof__hcct_acc;

CTXPROF__HCCT_FN void ctxprof__hcct_acc_free(ctxprof__hcct_acc *a)
{
    ctxprof__hcct_ix_free(&a->ix);
    ctxprof__free(a->base, a->p.alloc_user);
    a->base = NULL;
    a->base_cap = 0;
    a->pend = 0;
    a->ix_ok = 0;
}

/* Adds the pending absent bounds to the counts and error bounds. */
CTXPROF__HCCT_FN void ctxprof__hcct_acc_settle(ctxprof__hcct_acc *a)
{
    size_t i;
    if (!a->base)
        return; /* (pend is 0: the first merge allocates base) */
    for (i = 1; a->pend && i < a->p.n; i++) {
        uint64_t d = a->pend - a->base[i];
        a->p.nodes[i].count = ctxprof__hcct_sat_add(a->p.nodes[i].count, d);
        a->p.nodes[i].err = ctxprof__hcct_sat_add(a->p.nodes[i].err, d);
    }
    memset(a->base, 0, a->p.n * sizeof *a->base);
    a->pend = 0;
}

/* Final counts, no HOT flags and sorted children after merges; buf as in
   prof_finish_in (2 * (n - 1) entries, or NULL). */
CTXPROF__HCCT_FN int ctxprof__hcct_acc_finish(ctxprof__hcct_acc *a, uint32_t *buf)
{
    size_t i;
    ctxprof__hcct_acc_settle(a);
    if (!a->merged)
        return CTXPROF_OK;
    for (i = 1; i < a->p.n; i++)
        a->p.nodes[i].flags &= ~(uint32_t)CTXPROF_HCCT_HOT;
    if (ctxprof__hcct_prof_finish_in(&a->p, buf))
        return CTXPROF_ERR_NOMEM;
    a->merged = 0;
    return CTXPROF_OK;
}

/* Room in t for k more names: interning them then allocates only their
   copies. */
CTXPROF__HCCT_FN int ctxprof__hcct_strtab_reserve(ctxprof__strtab *t, size_t k)
{
    size_t ns = t->slots ? t->mask + 1 : 64, i;
    uint32_t *sl;
    if (k >= UINT32_MAX - 1 - t->n ||
        ctxprof__reserve((void **)&t->names, &t->cap, t->n, t->n + k, sizeof *t->names, t->ud))
        return CTXPROF_ERR_NOMEM;
    if (t->slots && 2 * (t->n + k) <= ns)
        return CTXPROF_OK;
    while (ns < 2 * (t->n + k))
        ns *= 2;
    sl = (uint32_t *)ctxprof__zalloc(ns, sizeof *sl, t->ud);
    if (!sl)
        return CTXPROF_ERR_NOMEM;
    ctxprof__free(t->slots, t->ud);
    t->slots = sl;
    t->mask = ns - 1;
    for (i = 0; i < t->n; i++)
        t->slots[ctxprof__strtab_slot(t, t->names[i], strlen(t->names[i]))] = (uint32_t)(i + 1);
    return CTXPROF_OK;
}

/* a += src, as ctxprof_hcct_profile_merge does (the caller checked the
   metrics and that by_name needs no conversion of a). Everything that can
   fail is done first: on failure a holds what it held (its arrays may have
   grown). With sortbuf, *sortbuf gets acc_finish's buffer (free it). */
CTXPROF__HCCT_FN int ctxprof__hcct_acc_add(ctxprof__hcct_acc *a, const ctxprof_hcct_profile *src,
                                           int by_name, uint32_t **sortbuf)
{
    ctxprof_hcct_profile *p = &a->p;
    void *ud = p->alloc_user;
    const ctxprof__strtab *sst = ctxprof__hcct_names(src);
    ctxprof__strtab *st = ctxprof__hcct_names(p), *nst = NULL;
    size_t nsn = sst ? sst->n : 0, i, k = 0, n0 = p->n, m = src->n;
    char **pre = NULL; /* copies of src's names that p lacks, by src's name id */
    unsigned char *seen = NULL;
    uint32_t *map = NULL;
    uint64_t dabs = ctxprof__hcct_absent(p), sabs = ctxprof__hcct_absent(src), P;
    int rc = CTXPROF_ERR_NOMEM;
    if (sortbuf)
        *sortbuf = NULL;
    if (m > 0xFFFFFFF0u - n0)
        return CTXPROF_ERR_NOMEM;
    if (!st) {
        nst = (ctxprof__strtab *)ctxprof__alloc(1, sizeof *nst, ud);
        if (!nst)
            return CTXPROF_ERR_NOMEM;
        ctxprof__strtab_init(nst, ud);
        st = nst;
        if (ctxprof__strtab_intern(st, "<root>") != 0)
            goto done;
    }
    pre = (char **)ctxprof__zalloc(nsn + 1, sizeof *pre, ud);
    seen = (unsigned char *)ctxprof__zalloc(nsn + 1, 1, ud);
    map = (uint32_t *)ctxprof__alloc(m, sizeof *map, ud);
    if (!pre || !seen || !map)
        goto done;
    for (i = 1; i < m; i++) {
        uint32_t id = src->nodes[i].name < nsn ? src->nodes[i].name : (uint32_t)nsn;
        const char *s = ctxprof_hcct_profile_name(src, i);
        size_t len = strlen(s);
        if (seen[id])
            continue;
        seen[id] = 1;
        if (ctxprof__strtab_find(st, s) >= 0)
            continue;
        if ((pre[id] = (char *)ctxprof__alloc(len + 1, 1, ud)) == NULL)
            goto done;
        memcpy(pre[id], s, len + 1);
        k++;
    }
    if (ctxprof__hcct_strtab_reserve(st, k) ||
        ctxprof__reserve((void **)&p->nodes, &p->cap, n0, n0 + m, sizeof *p->nodes, ud))
        goto done;
    if (!a->base || a->base_cap < n0 + m) {
        size_t nc = a->base_cap * 2 > n0 + m ? a->base_cap * 2 : n0 + m;
        uint64_t *nb = (uint64_t *)ctxprof__zalloc(nc, sizeof *nb, ud);
        if (!nb)
            goto done;
        if (a->base)
            memcpy(nb, a->base, n0 * sizeof *nb);
        ctxprof__free(a->base, ud);
        a->base = nb;
        a->base_cap = nc;
    }
    if (!a->ix_ok || a->ix_by_name != by_name) {
        ctxprof__hcct_ix_free(&a->ix);
        a->ix.ud = ud;
        a->ix_ok = 0;
        if (ctxprof__hcct_ix_reserve(&a->ix, n0 + m) || ctxprof__hcct_index(p, &a->ix, by_name))
            goto done;
        a->ix_ok = 1;
        a->ix_by_name = by_name;
    } else if (ctxprof__hcct_ix_reserve(&a->ix, m)) {
        goto done;
    }
    if (sortbuf &&
        (*sortbuf = (uint32_t *)ctxprof__alloc(2 * (n0 + m), sizeof **sortbuf, ud)) == NULL)
        goto done;
    /* nothing below fails */
    if (nst) {
        p->names_ = nst;
        nst = NULL;
    }
    if (sabs > UINT64_MAX - a->pend)
        ctxprof__hcct_acc_settle(a);
    P = a->pend + sabs; /* pend after this merge */
    map[0] = 0;
    for (i = 1; i < m; i++) {
        const ctxprof_hcct_pnode *s = &src->nodes[i];
        uint32_t pd = map[s->parent];
        uint32_t d = ctxprof__hcct_find(p, &a->ix, pd, src, (uint32_t)i, by_name);
        ctxprof_hcct_pnode *x;
        if (d == CTXPROF_HCCT_NONE) {
            const char *nm = ctxprof_hcct_profile_name(src, i);
            size_t slot = ctxprof__strtab_slot(st, nm, strlen(nm));
            if (!st->slots[slot]) { /* reserved: a copy and room */
                uint32_t id = s->name < nsn ? s->name : (uint32_t)nsn;
                st->names[st->n] = pre[id];
                pre[id] = NULL;
                st->slots[slot] = (uint32_t)(++st->n);
            }
            d = (uint32_t)p->n++;
            x = &p->nodes[d];
            *x = *s;
            x->parent = pd;
            x->name = st->slots[slot] - 1;
            /* absent from dst: dst's bound applies */
            x->count = ctxprof__hcct_sat_add(s->count, dabs);
            x->err = ctxprof__hcct_sat_add(s->err, dabs);
            (void)ctxprof__hcct_ix_add(&a->ix, ctxprof__hcct_node_key(p, pd, d, by_name), d);
        } else {
            x = &p->nodes[d];
            if (a->base[d] < a->pend) { /* absent from the merges since its last */
                x->count = ctxprof__hcct_sat_add(x->count, a->pend - a->base[d]);
                x->err = ctxprof__hcct_sat_add(x->err, a->pend - a->base[d]);
            }
            x->count = ctxprof__hcct_sat_add(x->count, s->count);
            x->err = ctxprof__hcct_sat_add(x->err, s->err);
            x->flags |= s->flags & (uint32_t)CTXPROF_HCCT_MONITORED;
        }
        a->base[d] = P; /* the nodes not seen get src's bound (sabs) when settled */
        map[i] = d;
    }
    a->pend = P;
    p->nodes[0].count = ctxprof__hcct_sat_add(p->nodes[0].count, src->nodes[0].count);
    p->nodes[0].err = ctxprof__hcct_sat_add(p->nodes[0].err, src->nodes[0].err);
    p->nodes[0].flags |= src->nodes[0].flags & (uint32_t)CTXPROF_HCCT_MONITORED;
    p->total = ctxprof__hcct_sat_add(p->total, src->total);
    p->absent = ctxprof__hcct_sat_add(dabs, sabs);
    p->events = ctxprof__hcct_sat_add(p->events, src->events);
    p->sampled = ctxprof__hcct_sat_add(p->sampled, src->sampled);
    p->dropped = ctxprof__hcct_sat_add(p->dropped, src->dropped);
    p->reentrant = ctxprof__hcct_sat_add(p->reentrant, src->reentrant);
    p->threads += src->threads;
    p->lost_threads += src->lost_threads;
    if (src->epsilon > p->epsilon)
        p->epsilon = src->epsilon;
    if (src->mode == CTXPROF_HCCT_LSS)
        p->mode = CTXPROF_HCCT_LSS;
    if (src->counters > p->counters)
        p->counters = src->counters;
    p->flags |= src->flags & (unsigned)CTXPROF_HCCT_SCALED;
    p->flags &= ~(unsigned)CTXPROF_HCCT_PRUNED; /* thresholds must be recomputed */
    if (by_name)
        p->flags |= CTXPROF_HCCT_BY_NAME;
    a->merged++;
    rc = CTXPROF_OK;
done:
    for (i = 0; pre && i <= nsn; i++)
        ctxprof__free(pre[i], ud);
    ctxprof__free(pre, ud);
    ctxprof__free(seen, ud);
    ctxprof__free(map, ud);
    if (nst) {
        ctxprof__strtab_deinit(nst);
        ctxprof__free(nst, ud);
    }
    if (rc && sortbuf) {
        ctxprof__free(*sortbuf, ud);
        *sortbuf = NULL;
    }
    return rc;
}

CTXPROF__HCCT_FN int ctxprof__hcct_merge(ctxprof_hcct_profile *dst, const ctxprof_hcct_profile *src,
                                         unsigned flags, ctxprof_error *err);

/* a += src with ctxprof_hcct_profile_merge's checks and errors, without
   sorting the children (acc_finish does). On failure a is unchanged. */
CTXPROF__HCCT_FN int ctxprof__hcct_acc_merge(ctxprof__hcct_acc *a, const ctxprof_hcct_profile *src,
                                             unsigned flags, ctxprof_error *err)
{
    /* a profile merged by name has lost its sites (its siblings may share a
       routine and site, never a name): it merges by name, so that no merge
       gives it two siblings of one name or joins two names into one */
    int by_name = ((flags | src->flags | a->p.flags) & (unsigned)CTXPROF_HCCT_BY_NAME) != 0;
    if (src->n == 0) /* a zeroed profile: nothing to add */
        return CTXPROF_OK;
    if (a->p.metric != src->metric)
        return ctxprof__fail(err, CTXPROF_ERR_MISMATCH, 0,
                             "hcct: cannot merge profiles of metrics %d and %d", a->p.metric,
                             src->metric);
    if (by_name && !(a->p.flags & CTXPROF_HCCT_BY_NAME)) {
        /* a's own siblings of one name (several call sites) become one
           context first: each of src's contexts then has one match */
        ctxprof_hcct_profile c;
        int rc;
        memset(&c, 0, sizeof c);
        c.alloc_user = a->p.alloc_user;
        ctxprof__hcct_acc_settle(a);
        rc = ctxprof__hcct_merge(&c, &a->p, CTXPROF_HCCT_BY_NAME, err);
        if (!rc)
            rc = ctxprof__hcct_merge(&c, src, CTXPROF_HCCT_BY_NAME, err);
        if (rc) {
            ctxprof_hcct_profile_deinit(&c);
            return rc;
        }
        ctxprof__hcct_acc_free(a);
        ctxprof_hcct_profile_deinit(&a->p);
        a->p = c;
        a->merged = 0; /* c is finished */
        return CTXPROF_OK;
    }
    if (ctxprof__hcct_acc_add(a, src, by_name, NULL))
        return ctxprof__fail(err, CTXPROF_ERR_NOMEM, 0, "hcct: out of memory merging profiles");
    return CTXPROF_OK;
}

CTXPROF__HCCT_FN int ctxprof__hcct_merge(ctxprof_hcct_profile *dst, const ctxprof_hcct_profile *src,
                                         unsigned flags, ctxprof_error *err)
{
    ctxprof__hcct_acc a;
    uint32_t *buf = NULL;
    int by_name = ((flags | src->flags | (dst->n ? dst->flags : 0u)) &
                   (unsigned)CTXPROF_HCCT_BY_NAME) != 0,
        rc;
    if (src->n == 0) /* a zeroed profile: nothing to add */
        return CTXPROF_OK;
    if (dst->n && dst->metric != src->metric)
        return ctxprof__fail(err, CTXPROF_ERR_MISMATCH, 0,
                             "hcct: cannot merge profiles of metrics %d and %d", dst->metric,
                             src->metric);
    if (by_name && dst->n && !(dst->flags & CTXPROF_HCCT_BY_NAME)) {
        /* dst's own siblings of one name (several call sites) become one
           context first: each of src's contexts then has one match */
        ctxprof_hcct_profile c;
        memset(&c, 0, sizeof c);
        c.alloc_user = dst->alloc_user;
        rc = ctxprof__hcct_merge(&c, dst, CTXPROF_HCCT_BY_NAME, err);
        if (!rc)
            rc = ctxprof__hcct_merge(&c, src, CTXPROF_HCCT_BY_NAME, err);
        if (rc) {
            ctxprof_hcct_profile_deinit(&c);
            return rc;
        }
        ctxprof_hcct_profile_deinit(dst);
        *dst = c;
        return CTXPROF_OK;
    }
    /* in place: acc_add changes nothing before it cannot fail; a zeroed
       dst is an empty accumulator of src's kind */
    memset(&a, 0, sizeof a);
    if (dst->n) {
        a.p = *dst;
    } else if (ctxprof__hcct_prof_init(&a.p, dst->alloc_user, src->n)) {
        ctxprof_hcct_profile_deinit(&a.p);
        return ctxprof__fail(err, CTXPROF_ERR_NOMEM, 0, "hcct: out of memory merging profiles");
    } else {
        a.p.metric = src->metric;
        a.p.mode = src->mode;
    }
    rc = ctxprof__hcct_acc_add(&a, src, by_name, &buf);
    if (!rc)
        (void)ctxprof__hcct_acc_finish(&a, buf); /* cannot fail with buf */
    ctxprof__free(buf, a.p.alloc_user);
    ctxprof__hcct_acc_free(&a);
    if (dst->n)
        *dst = a.p; /* the same profile, its arrays perhaps moved */
    else if (rc)
        ctxprof_hcct_profile_deinit(&a.p);
    else
        *dst = a.p;
    if (rc)
        return ctxprof__fail(err, CTXPROF_ERR_NOMEM, 0, "hcct: out of memory merging profiles");
    return CTXPROF_OK;
}

CTXPROF__HCCT_DEF int ctxprof_hcct_profile_merge(ctxprof_hcct_profile *dst,
                                                 const ctxprof_hcct_profile *src, unsigned flags,
                                                 ctxprof_error *err)
{
    ctxprof__error_clear(err);
    if (!dst || !src)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "hcct: merge with a NULL profile");
    return ctxprof__hcct_merge(dst, src, flags, err);
}

CTXPROF__HCCT_FN int ctxprof__hcct_compare(const ctxprof_hcct_profile *approx,
                                           const ctxprof_hcct_profile *exact, double phi,
                                           ctxprof_hcct_accuracy *out, ctxprof_error *err)
{
    ctxprof__hcct_ix ix;
    uint32_t *map = NULL;
    unsigned char *eh = NULL, *ah = NULL, *rep = NULL;
    uint64_t te, ta;
    size_t i;
    int scaled = (approx->flags & CTXPROF_HCCT_SCALED) != 0;
    /* contexts of a profile merged by name are paths of names */
    int by_name = ((approx->flags | exact->flags) & CTXPROF_HCCT_BY_NAME) != 0;
    memset(out, 0, sizeof *out);
    if (!(phi > 0 && phi < 1))
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "hcct: phi must be in (0, 1), got %g",
                             phi);
    memset(&ix, 0, sizeof ix);
    ix.ud = exact->alloc_user;
    map = (uint32_t *)ctxprof__alloc(approx->n, sizeof *map, exact->alloc_user);
    eh = (unsigned char *)ctxprof__zalloc(exact->n, 1, exact->alloc_user);
    ah = (unsigned char *)ctxprof__zalloc(approx->n, 1, exact->alloc_user);
    rep = (unsigned char *)ctxprof__zalloc(exact->n, 1, exact->alloc_user);
    if (!map || !eh || !ah || !rep || ctxprof__hcct_index(exact, &ix, by_name)) {
        ctxprof__hcct_ix_free(&ix);
        ctxprof__free(map, exact->alloc_user);
        ctxprof__free(eh, exact->alloc_user);
        ctxprof__free(ah, exact->alloc_user);
        ctxprof__free(rep, exact->alloc_user);
        return ctxprof__fail(err, CTXPROF_ERR_NOMEM, 0, "hcct: out of memory comparing");
    }
    te = (uint64_t)(phi * (double)exact->total);
    ta = (uint64_t)(phi * (double)approx->total);
    /* the exact HCCT: hot nodes, their ancestors and the root */
    eh[0] = 1;
    for (i = exact->n; i-- > 1;) {
        if (exact->nodes[i].count > te) {
            eh[i] = 1;
            out->hot++;
        }
        if (eh[i])
            eh[exact->nodes[i].parent] = 1;
    }
    for (i = 0; i < exact->n; i++)
        out->exact_hcct_nodes += eh[i];
    map[0] = 0;
    ah[0] = 1;
    for (i = 1; i < approx->n; i++) {
        const ctxprof_hcct_pnode *a = &approx->nodes[i];
        uint32_t pe = map[a->parent];
        uint32_t e = pe == CTXPROF_HCCT_NONE
                         ? CTXPROF_HCCT_NONE
                         : ctxprof__hcct_find(exact, &ix, pe, approx, (uint32_t)i, by_name);
        uint64_t tv;
        map[i] = e;
        if (e != CTXPROF_HCCT_NONE)
            eh[e] |= 2; /* in approx */
        if (e == CTXPROF_HCCT_NONE) {
            out->unknown++;
            if (a->count > ta) {
                out->reported++;
                out->false_positives++;
            }
            continue;
        }
        tv = exact->nodes[e].count;
        if (!scaled && (a->flags & CTXPROF_HCCT_MONITORED) &&
            (a->count < tv || a->count - a->err > tv))
            out->bound_violations++;
        if (!scaled && !(a->flags & CTXPROF_HCCT_MONITORED) && tv > a->count)
            out->bound_violations++; /* the absent bound must hold too */
        if (a->count > ta) {
            uint64_t d = a->count > tv ? a->count - tv : tv - a->count;
            out->reported++;
            rep[e] = 1;
            if (tv <= te)
                out->false_positives++;
            if (d > out->max_error)
                out->max_error = d;
            if (tv > te && tv > 0 && (double)d / (double)tv > out->max_rel_error)
                out->max_rel_error = (double)d / (double)tv;
        }
    }
    for (i = approx->n; i-- > 1;) {
        if (approx->nodes[i].count > ta)
            ah[i] = 1;
        if (ah[i])
            ah[approx->nodes[i].parent] = 1;
    }
    for (i = 0; i < approx->n; i++)
        out->approx_hcct_nodes += ah[i];
    for (i = 1; i < exact->n; i++) {
        if (exact->nodes[i].count > te && !rep[i])
            out->missed++;
        if (!scaled && !(eh[i] & 2) && exact->nodes[i].count > ctxprof__hcct_absent(approx))
            out->bound_violations++; /* left out, yet above the bound of what is left out */
    }
    out->equal = out->missed == 0 && out->false_positives == 0;
    ctxprof__hcct_ix_free(&ix);
    ctxprof__free(map, exact->alloc_user);
    ctxprof__free(eh, exact->alloc_user);
    ctxprof__free(ah, exact->alloc_user);
    ctxprof__free(rep, exact->alloc_user);
    return CTXPROF_OK;
}

CTXPROF__HCCT_DEF int ctxprof_hcct_profile_compare(const ctxprof_hcct_profile *approx,
                                                   const ctxprof_hcct_profile *exact, double phi,
                                                   ctxprof_hcct_accuracy *out, ctxprof_error *err)
{
    ctxprof__error_clear(err);
    if (!approx || !exact || !out)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "hcct: compare with a NULL %s",
                             out ? "profile" : "result (out)");
    return ctxprof__hcct_compare(approx, exact, phi, out, err);
}

/* ==== hcct: output ==== */

CTXPROF__HCCT_FN const char *ctxprof__hcct_metric_name(int m)
{
    static const char *const names[] = {"calls", "ns", "cycles", "samples", "bytes", "units"};
    return m >= 0 && m <= CTXPROF_HCCT_OTHER ? names[m] : "units";
}

/* Preorder successor in the sorted child/sibling links (0 = done). */
CTXPROF__HCCT_FN uint32_t ctxprof__hcct_dfs_next(const ctxprof_hcct_profile *p, uint32_t i,
                                                 int descend)
{
    const ctxprof_hcct_pnode *nd = p->nodes;
    if (descend && nd[i].child)
        return nd[i].child;
    while (i != 0 && nd[i].sibling == 0)
        i = nd[i].parent;
    return i == 0 ? 0 : nd[i].sibling;
}

CTXPROF__HCCT_FN double ctxprof__hcct_pct(const ctxprof_hcct_profile *p, uint64_t v)
{
    return p->total ? 100.0 * (double)v / (double)p->total : 0.0;
}

/* Whether a sibling of i has the same name (then the site is printed). */
CTXPROF__HCCT_FN int ctxprof__hcct_dup_name(const ctxprof_hcct_profile *p, uint32_t i)
{
    uint32_t c = p->nodes[p->nodes[i].parent].child;
    int k = 0;
    for (; c && k < 256; c = p->nodes[c].sibling, k++)
        if (c != i && p->nodes[c].name == p->nodes[i].name)
            return 1;
    return 0;
}

/* " @caller+0x12" after a name that a sibling shares: the call site,
   relative to the caller when routines are code addresses. */
CTXPROF__HCCT_FN void ctxprof__hcct_w_site(ctxprof__hcct_sb *b, const ctxprof_hcct_profile *p,
                                           uint32_t i)
{
    const ctxprof_hcct_pnode *x = &p->nodes[i], *c = &p->nodes[x->parent];
    if (!ctxprof__hcct_dup_name(p, i))
        return;
    if (x->parent && x->site > c->routine && x->site - c->routine < ((uintptr_t)1 << 20))
        ctxprof__hcct_sb_printf(b, " @%s+0x%llx", ctxprof_hcct_profile_name(p, x->parent),
                                (unsigned long long)(x->site - c->routine));
    else
        ctxprof__hcct_sb_printf(b, " @0x%llx", (unsigned long long)x->site);
}

/* The header of the text outputs; shown: the contexts the output lists. */
CTXPROF__HCCT_FN void ctxprof__hcct_w_header(ctxprof__hcct_sb *b, const ctxprof_hcct_profile *p,
                                             const char *lead, size_t shown)
{
    const char *m = ctxprof__hcct_metric_name(p->metric);
    if (p->mode == CTXPROF_HCCT_LSS)
        ctxprof__hcct_sb_printf(b, "%sctxprof hcct: lazy Space Saving, %zu counters (epsilon %g)",
                                lead, p->counters, p->epsilon);
    else
        ctxprof__hcct_sb_printf(b, "%sctxprof hcct: exact calling context tree", lead);
    ctxprof__hcct_sb_printf(b, ", %u thread%s, %zu of %zu contexts shown\n",
                            (unsigned)p->threads, p->threads == 1 ? "" : "s", shown, p->n - 1);
    ctxprof__hcct_sb_printf(b, "%stotal %llu %s", lead, (unsigned long long)p->total, m);
    if (p->flags & CTXPROF_HCCT_PRUNED)
        ctxprof__hcct_sb_printf(b, "; hot: count > %llu (phi %g)",
                                (unsigned long long)p->threshold, p->phi);
    if (p->mode == CTXPROF_HCCT_LSS || (p->flags & CTXPROF_HCCT_PRUNED))
        ctxprof__hcct_sb_printf(b, "; contexts not shown: count <= %llu",
                                (unsigned long long)ctxprof__hcct_absent(p));
    ctxprof__hcct_sb_puts(b, "\n");
    if (p->flags & CTXPROF_HCCT_SCALED)
        ctxprof__hcct_sb_printf(
            b, "%sbursting: %llu of %llu calls sampled (%.2f%%); counts scaled by %.3f\n", lead,
            (unsigned long long)p->sampled, (unsigned long long)p->events,
            p->events ? 100.0 * (double)p->sampled / (double)p->events : 0.0,
            p->sampled ? (double)p->events / (double)p->sampled : 0.0);
    if (p->dropped)
        ctxprof__hcct_sb_printf(b, "%s%llu events lost to the node or depth bound\n", lead,
                                (unsigned long long)p->dropped);
    if (p->reentrant)
        ctxprof__hcct_sb_printf(b,
                                "%s%llu events dropped: signal handlers interrupted the "
                                "profiler (not in any count)\n",
                                lead, (unsigned long long)p->reentrant);
    if (p->lost_threads)
        ctxprof__hcct_sb_printf(b,
                                "%s%u thread%s not profiled: no memory for a tree (desc.max_bytes "
                                "is reserved per thread; lower it) or to merge it at exit\n",
                                lead, (unsigned)p->lost_threads, p->lost_threads == 1 ? "" : "s");
}

/* The contexts (the root aside) at most maxd deep. */
CTXPROF__HCCT_FN size_t ctxprof__hcct_within(const ctxprof_hcct_profile *p, unsigned maxd)
{
    size_t i, n = 0;
    for (i = 1; i < p->n; i++)
        n += p->nodes[i].depth <= maxd;
    return n;
}

CTXPROF__HCCT_FN void ctxprof__hcct_w_text(ctxprof__hcct_sb *b, const ctxprof_hcct_profile *p,
                                           unsigned maxd)
{
    uint32_t i;
    ctxprof__hcct_w_header(b, p, "# ", ctxprof__hcct_within(p, maxd));
    if (p->flags & CTXPROF_HCCT_SCALED)
        ctxprof__hcct_sb_puts(b, "# count: an estimate (the bursts' count, scaled); err: the "
                                 "bound on the bursts' count, scaled (not a bound on the true "
                                 "count)\n");
    else
        ctxprof__hcct_sb_puts(b, "# count: an upper bound; the true count lies in [count - err, "
                                 "count]\n");
    ctxprof__hcct_sb_puts(b, "#         count          err        %  context\n");
    ctxprof__hcct_sb_printf(b, "%15llu %12s %8.4f  all\n", (unsigned long long)p->total, "0",
                            100.0);
    for (i = ctxprof__hcct_dfs_next(p, 0, 1); i; ) {
        const ctxprof_hcct_pnode *x = &p->nodes[i];
        unsigned d = x->depth, ind = d > 40 ? 40 : d;
        char cbuf[32];
        if (x->flags & CTXPROF_HCCT_MONITORED)
            snprintf(cbuf, sizeof cbuf, "%llu", (unsigned long long)x->count);
        else
            snprintf(cbuf, sizeof cbuf, "<=%llu", (unsigned long long)x->count);
        ctxprof__hcct_sb_printf(b, "%15s %12llu %8.4f  %*s", cbuf, (unsigned long long)x->err,
                                ctxprof__hcct_pct(p, x->count), (int)(2 * ind), "");
        if (d > 40)
            ctxprof__hcct_sb_printf(b, "[%u] ", d);
        ctxprof__hcct_sb_puts(b, ctxprof_hcct_profile_name(p, i));
        ctxprof__hcct_w_site(b, p, i);
        if (!(x->flags & CTXPROF_HCCT_MONITORED))
            ctxprof__hcct_sb_puts(b, "  (not monitored)");
        ctxprof__hcct_sb_puts(b, "\n");
        if (d >= maxd && x->child)
            ctxprof__hcct_sb_printf(b, "%15s %12s %8s  %*s... deeper contexts not shown "
                                       "(max_depth %u)\n",
                                    "", "", "", (int)(2 * ind + 2), "", maxd);
        i = ctxprof__hcct_dfs_next(p, i, d < maxd);
    }
}

/* Self value of a node for flame graphs and collapsed stacks. */
CTXPROF__HCCT_FN uint64_t ctxprof__hcct_self(const ctxprof_hcct_pnode *x)
{
    return (x->flags & CTXPROF_HCCT_MONITORED) ? x->count : 0;
}

/* Inclusive values (self + descendants); parents precede children. */
CTXPROF__HCCT_FN uint64_t *ctxprof__hcct_incl(const ctxprof_hcct_profile *p)
{
    uint64_t *v = (uint64_t *)ctxprof__alloc(p->n, sizeof *v, p->alloc_user);
    size_t i;
    if (!v)
        return NULL;
    for (i = 0; i < p->n; i++)
        v[i] = ctxprof__hcct_self(&p->nodes[i]);
    for (i = p->n; i-- > 1;)
        v[p->nodes[i].parent] = ctxprof__hcct_sat_add(v[p->nodes[i].parent], v[i]);
    return v;
}

CTXPROF__HCCT_FN void ctxprof__hcct_collapsed_name(ctxprof__hcct_sb *b, const char *s)
{
    for (; *s; s++) {
        char c = *s == ';' ? ':' : (*s == '\n' || *s == '\r') ? ' ' : *s;
        ctxprof__hcct_sb_add(b, &c, 1);
    }
}

CTXPROF__HCCT_FN int ctxprof__hcct_w_collapsed(ctxprof__hcct_sb *b, const ctxprof_hcct_profile *p,
                                               unsigned maxd)
{
    ctxprof__hcct_sb path;
    size_t *len = NULL, cap = 0;
    uint64_t *incl = ctxprof__hcct_incl(p);
    uint32_t i;
    memset(&path, 0, sizeof path);
    path.ud = p->alloc_user;
    if (!incl)
        return CTXPROF_ERR_NOMEM;
    if (ctxprof__hcct_self(&p->nodes[0]))
        ctxprof__hcct_sb_printf(b, "[root] %llu\n",
                                (unsigned long long)ctxprof__hcct_self(&p->nodes[0]));
    for (i = ctxprof__hcct_dfs_next(p, 0, 1); i;) {
        const ctxprof_hcct_pnode *x = &p->nodes[i];
        unsigned d = x->depth;
        if (ctxprof__reserve((void **)&len, &cap, cap, (size_t)d + 1, sizeof *len, p->alloc_user)) {
            b->oom = 1;
            break;
        }
        path.len = d > 1 ? len[d - 1] : 0;
        if (d > 1)
            ctxprof__hcct_sb_add(&path, ";", 1);
        ctxprof__hcct_collapsed_name(&path, ctxprof_hcct_profile_name(p, i));
        len[d] = path.len;
        if (path.oom) {
            b->oom = 1;
            break;
        }
        if (ctxprof__hcct_self(x)) {
            ctxprof__hcct_sb_add(b, path.p, path.len);
            ctxprof__hcct_sb_printf(b, " %llu\n", (unsigned long long)ctxprof__hcct_self(x));
        }
        if (d >= maxd && incl[i] > ctxprof__hcct_self(x)) {
            ctxprof__hcct_sb_add(b, path.p, path.len);
            ctxprof__hcct_sb_printf(b, ";[deeper] %llu\n",
                                    (unsigned long long)(incl[i] - ctxprof__hcct_self(x)));
        }
        i = ctxprof__hcct_dfs_next(p, i, d < maxd);
    }
    ctxprof__free(path.p, p->alloc_user);
    ctxprof__free(len, p->alloc_user);
    ctxprof__free(incl, p->alloc_user);
    return CTXPROF_OK;
}

/* Names are bytes from symbols, descriptors or a namer, not always UTF-8;
   JSON and XML must be. The length of the UTF-8 character at s (1 to 4)
   and its code point, or 0 when the bytes there are not one (RFC 3629: no
   overlong forms, surrogates or code points above U+10FFFF). Both writers
   put U+FFFD, the replacement character, for each byte that starts none. */
#define CTXPROF__HCCT_FFFD "\xEF\xBF\xBD"
CTXPROF__HCCT_FN size_t ctxprof__hcct_utf8(const char *s, uint32_t *cp)
{
    const unsigned char *u = (const unsigned char *)s;
    uint32_t c = u[0], min;
    size_t n, i;
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
        c &= 0x1F;
        min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
        n = 3;
        c &= 0x0F;
        min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        c &= 0x07;
        min = 0x10000;
    } else {
        return 0;
    }
    for (i = 1; i < n; i++) { /* a NUL ends it too */
        if ((u[i] & 0xC0) != 0x80)
            return 0;
        c = c << 6 | (uint32_t)(u[i] & 0x3F);
    }
    if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return 0;
    *cp = c;
    return n;
}

CTXPROF__HCCT_FN void ctxprof__hcct_json_str(ctxprof__hcct_sb *b, const char *s)
{
    size_t n;
    ctxprof__hcct_sb_add(b, "\"", 1);
    for (; *s; s += n) {
        uint32_t c = 0;
        n = ctxprof__hcct_utf8(s, &c);
        if (n == 0) {
            ctxprof__hcct_sb_puts(b, CTXPROF__HCCT_FFFD);
            n = 1;
        } else if (c == '"' || c == '\\') {
            char e[2] = {'\\', (char)c};
            ctxprof__hcct_sb_add(b, e, 2);
        } else if (c < 0x20) {
            ctxprof__hcct_sb_printf(b, "\\u%04x", (unsigned)c);
        } else {
            ctxprof__hcct_sb_add(b, s, n);
        }
    }
    ctxprof__hcct_sb_add(b, "\"", 1);
}

CTXPROF__HCCT_FN void ctxprof__hcct_w_json(ctxprof__hcct_sb *b, const ctxprof_hcct_profile *p)
{
    size_t i;
    ctxprof__hcct_sb_printf(
        b,
        "{\"format\":\"ctxprof-hcct\",\"version\":1,\"mode\":\"%s\",\"metric\":\"%s\",\n"
        " \"total\":%llu,\"threshold\":%llu,\"absent\":%llu,\"events\":%llu,\"sampled\":%llu,"
        "\"dropped\":%llu,\"reentrant\":%llu,\n \"phi\":%.17g,\"epsilon\":%.17g,\"counters\":%zu,\"threads\":%u,"
        "\"lost_threads\":%u,\"pruned\":%s,\"scaled\":%s,\n \"nodes\":[\n",
        p->mode == CTXPROF_HCCT_LSS ? "lss" : "cct", ctxprof__hcct_metric_name(p->metric),
        (unsigned long long)p->total, (unsigned long long)p->threshold,
        (unsigned long long)p->absent, (unsigned long long)p->events,
        (unsigned long long)p->sampled, (unsigned long long)p->dropped,
        (unsigned long long)p->reentrant, p->phi, p->epsilon,
        p->counters, (unsigned)p->threads, (unsigned)p->lost_threads,
        (p->flags & CTXPROF_HCCT_PRUNED) ? "true" : "false",
        (p->flags & CTXPROF_HCCT_SCALED) ? "true" : "false");
    for (i = 0; i < p->n; i++) {
        const ctxprof_hcct_pnode *x = &p->nodes[i];
        ctxprof__hcct_sb_printf(b, "  {\"id\":%zu,\"parent\":%lld,\"name\":", i,
                                i ? (long long)x->parent : -1LL);
        ctxprof__hcct_json_str(b, ctxprof_hcct_profile_name(p, i));
        ctxprof__hcct_sb_printf(
            b,
            ",\"count\":%llu,\"err\":%llu,\"monitored\":%s,\"hot\":%s,\"routine\":\"0x%llx\","
            "\"site\":\"0x%llx\"}%s\n",
            (unsigned long long)x->count, (unsigned long long)x->err,
            (x->flags & CTXPROF_HCCT_MONITORED) ? "true" : "false",
            (x->flags & CTXPROF_HCCT_HOT) ? "true" : "false", (unsigned long long)x->routine,
            (unsigned long long)x->site, i + 1 < p->n ? "," : "");
    }
    ctxprof__hcct_sb_puts(b, " ]}\n");
}

/* s escaped for XML, cut after maxc characters (never inside one); the
   characters XML 1.0 does not allow are left out (controls) or replaced
   (U+FFFE, U+FFFF, bytes that are not UTF-8). */
CTXPROF__HCCT_FN void ctxprof__hcct_xml(ctxprof__hcct_sb *b, const char *s, size_t maxc)
{
    size_t k = 0, n;
    for (; *s && k < maxc; s += n, k++) {
        uint32_t c = 0;
        n = ctxprof__hcct_utf8(s, &c);
        if (n == 0 || c == 0xFFFE || c == 0xFFFF) {
            ctxprof__hcct_sb_puts(b, CTXPROF__HCCT_FFFD);
            n = n ? n : 1;
            continue;
        }
        switch (c) {
        case '&':
            ctxprof__hcct_sb_puts(b, "&amp;");
            break;
        case '<':
            ctxprof__hcct_sb_puts(b, "&lt;");
            break;
        case '>':
            ctxprof__hcct_sb_puts(b, "&gt;");
            break;
        case '"':
            ctxprof__hcct_sb_puts(b, "&quot;");
            break;
        default:
            if (c >= 0x20)
                ctxprof__hcct_sb_add(b, s, n);
        }
    }
    if (*s)
        ctxprof__hcct_sb_puts(b, "..");
}

/* Flame graph: the root at the bottom, one row per depth, widths
   proportional to inclusive counts (of N: the space right of the root's
   children is the cold part that the HCCT does not show). */
CTXPROF__HCCT_FN int ctxprof__hcct_w_svg(ctxprof__hcct_sb *b, const ctxprof_hcct_profile *p,
                                         const ctxprof_hcct_write_desc *d, unsigned maxd)
{
    uint64_t *incl = ctxprof__hcct_incl(p);
    double *x0;
    double width = d->width ? (double)d->width : 1200.0, fh = 16.0, pad = 10.0, scale;
    unsigned depth = 0, rows;
    double height;
    uint64_t whole;
    uint32_t i;
    size_t drawn = 0;
    if (!incl)
        return CTXPROF_ERR_NOMEM;
    x0 = (double *)ctxprof__alloc(p->n, sizeof *x0, p->alloc_user);
    if (!x0) {
        ctxprof__free(incl, p->alloc_user);
        return CTXPROF_ERR_NOMEM;
    }
    whole = incl[0] > p->total ? incl[0] : p->total;
    scale = whole ? (width - 2 * pad) / (double)whole : 0.0;
    for (i = 0; i < p->n; i++) {
        if ((double)incl[i] * scale < 0.1)
            continue; /* too narrow to draw */
        if (p->nodes[i].depth > depth)
            depth = p->nodes[i].depth;
        drawn += i && p->nodes[i].depth <= maxd;
    }
    rows = (depth > maxd ? maxd : depth) + 1;
    height = (double)rows * fh + 70.0;
    ctxprof__hcct_sb_printf(
        b,
        "<?xml version=\"1.0\" standalone=\"no\"?>\n"
        "<svg version=\"1.1\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
        "xmlns=\"http://www.w3.org/2000/svg\">\n"
        "<style>text{font-family:monospace;font-size:11px;fill:#000}"
        "g:hover rect{stroke:#000;stroke-width:0.5}</style>\n"
        "<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"100%%\" fill=\"#f8f8f0\"/>\n"
        "<text x=\"%.0f\" y=\"20\" style=\"font-size:15px\" text-anchor=\"middle\">",
        width, height, width, height, width / 2);
    ctxprof__hcct_xml(b, d->title ? d->title : "ctxprof hot calling context tree", 200);
    ctxprof__hcct_sb_printf(b, "</text>\n<text x=\"%.0f\" y=\"38\" text-anchor=\"middle\">", width / 2);
    {
        ctxprof__hcct_sb sub;
        memset(&sub, 0, sizeof sub);
        sub.ud = p->alloc_user;
        ctxprof__hcct_w_header(&sub, p, "", drawn);
        if (sub.p) {
            char *nl;
            for (nl = sub.p; (nl = strchr(nl, '\n')) != NULL;)
                *nl = ' ';
            ctxprof__hcct_xml(b, sub.p, 400);
        }
        ctxprof__free(sub.p, p->alloc_user);
    }
    ctxprof__hcct_sb_puts(b, "</text>\n");
    x0[0] = pad;
    for (i = 0; i < p->n; i++) {
        const ctxprof_hcct_pnode *x = &p->nodes[i];
        double w = (double)incl[i] * scale, y;
        uint32_t c;
        double cx = x0[i];
        unsigned h = (unsigned)ctxprof_hash_bytes(ctxprof_hcct_profile_name(p, i),
                                                  strlen(ctxprof_hcct_profile_name(p, i)), 3);
        for (c = x->child; c; c = p->nodes[c].sibling) { /* children left to right */
            x0[c] = cx;
            cx += (double)incl[c] * scale;
        }
        if (x->depth > maxd || w < 0.1)
            continue;
        if (i == 0)
            w = (double)whole * scale;
        y = height - 20.0 - (double)(x->depth + 1) * fh;
        ctxprof__hcct_sb_puts(b, "<g><title>");
        ctxprof__hcct_xml(b, i ? ctxprof_hcct_profile_name(p, i) : "all", 2000);
        ctxprof__hcct_sb_printf(b, " (%s%llu %s, %.2f%%, err %llu%s)</title>",
                                (x->flags & CTXPROF_HCCT_MONITORED) || !i ? "" : "&lt;=",
                                (unsigned long long)(i ? x->count : p->total),
                                ctxprof__hcct_metric_name(p->metric),
                                ctxprof__hcct_pct(p, i ? incl[i] : p->total),
                                (unsigned long long)(i ? x->err : 0),
                                i && !(x->flags & CTXPROF_HCCT_MONITORED) ? ", not monitored"
                                                                          : "");
        if (i && !(x->flags & CTXPROF_HCCT_MONITORED))
            ctxprof__hcct_sb_puts(b, "<rect fill=\"rgb(190,190,190)\"");
        else
            ctxprof__hcct_sb_printf(b, "<rect fill=\"rgb(%u,%u,%u)\"", 205 + h % 50,
                                    (h >> 8) % 200, (h >> 16) % 55);
        ctxprof__hcct_sb_printf(b, " x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" rx=\"2\"/>",
                                x0[i], y, w, fh - 1);
        if (w > 24) {
            ctxprof__hcct_sb_printf(b, "<text x=\"%.2f\" y=\"%.1f\">", x0[i] + 3, y + fh - 4.5);
            ctxprof__hcct_xml(b, i ? ctxprof_hcct_profile_name(p, i) : "all",
                              (size_t)((w - 6) / 6.6));
            ctxprof__hcct_sb_puts(b, "</text>");
        }
        ctxprof__hcct_sb_puts(b, "</g>\n");
    }
    if (whole > incl[0] && (double)(whole - incl[0]) * scale >= 0.1) {
        /* what the profile does not show: cold contexts (and their share) */
        double w = (double)(whole - incl[0]) * scale, y = height - 20.0 - 2 * fh;
        ctxprof__hcct_sb_printf(b,
                                "<g><title>other contexts, not shown (%llu %s, %.2f%%)</title>"
                                "<rect fill=\"rgb(225,225,225)\" x=\"%.2f\" y=\"%.1f\" "
                                "width=\"%.2f\" height=\"%.1f\" rx=\"2\"/>",
                                (unsigned long long)(whole - incl[0]),
                                ctxprof__hcct_metric_name(p->metric),
                                ctxprof__hcct_pct(p, whole - incl[0]), pad + (double)incl[0] * scale, y,
                                w, fh - 1);
        if (w > 60)
            ctxprof__hcct_sb_printf(b, "<text x=\"%.2f\" y=\"%.1f\">[other contexts]</text>",
                                    pad + (double)incl[0] * scale + 3, y + fh - 4.5);
        ctxprof__hcct_sb_puts(b, "</g>\n");
    }
    if (depth > maxd)
        ctxprof__hcct_sb_printf(b, "<text x=\"%.0f\" y=\"56\">frames deeper than %u not drawn</text>\n",
                                pad, maxd);
    ctxprof__hcct_sb_puts(b, "</svg>\n");
    ctxprof__free(incl, p->alloc_user);
    ctxprof__free(x0, p->alloc_user);
    return CTXPROF_OK;
}

CTXPROF__HCCT_FN int ctxprof__hcct_cmp_count(const void *ctx, uint32_t a, uint32_t b)
{
    const ctxprof_hcct_pnode *nd = (const ctxprof_hcct_pnode *)ctx;
    if (nd[a].count != nd[b].count)
        return nd[a].count > nd[b].count ? -1 : 1;
    return a < b ? -1 : a > b;
}

/* The hottest contexts with their full paths (root first). */
CTXPROF__HCCT_FN int ctxprof__hcct_w_top(ctxprof__hcct_sb *b, const ctxprof_hcct_profile *p,
                                         size_t top, unsigned maxd)
{
    uint32_t *ord, *tmp, *path = NULL;
    size_t i, m = 0, pcap = 0;
    ord = (uint32_t *)ctxprof__alloc(p->n, sizeof *ord, p->alloc_user);
    tmp = (uint32_t *)ctxprof__alloc(p->n, sizeof *tmp, p->alloc_user);
    if (!ord || !tmp) {
        ctxprof__free(ord, p->alloc_user);
        ctxprof__free(tmp, p->alloc_user);
        return CTXPROF_ERR_NOMEM;
    }
    for (i = 1; i < p->n; i++)
        if ((p->nodes[i].flags & CTXPROF_HCCT_MONITORED) &&
            (!(p->flags & CTXPROF_HCCT_PRUNED) || (p->nodes[i].flags & CTXPROF_HCCT_HOT)))
            ord[m++] = (uint32_t)i;
    ctxprof__hcct_sort(ord, tmp, m, ctxprof__hcct_cmp_count, p->nodes);
    ctxprof__hcct_w_header(b, p, "# ", m < top ? m : top);
    ctxprof__hcct_sb_puts(b, "#         count          err        %  context (caller > callee)\n");
    for (i = 0; i < m && i < top; i++) {
        uint32_t x = ord[i], k = 0, j;
        const ctxprof_hcct_pnode *nd = &p->nodes[x];
        ctxprof__hcct_sb_printf(b, "%15llu %12llu %8.4f  ", (unsigned long long)nd->count,
                                (unsigned long long)nd->err, ctxprof__hcct_pct(p, nd->count));
        for (j = x; j; j = p->nodes[j].parent) {
            if (ctxprof__reserve((void **)&path, &pcap, k, (size_t)k + 1, sizeof *path,
                                 p->alloc_user)) {
                b->oom = 1;
                break;
            }
            path[k++] = j;
        }
        for (j = k; j-- > 0;) {
            if (k > maxd && j < k - maxd / 2 && j >= maxd / 2) {
                if (j == k - maxd / 2 - 1)
                    ctxprof__hcct_sb_printf(b, "... %u frames ... > ", k - 2 * (maxd / 2));
                continue;
            }
            ctxprof__hcct_sb_puts(b, ctxprof_hcct_profile_name(p, path[j]));
            ctxprof__hcct_w_site(b, p, path[j]);
            if (j)
                ctxprof__hcct_sb_puts(b, " > ");
        }
        ctxprof__hcct_sb_puts(b, "\n");
    }
    ctxprof__free(path, p->alloc_user);
    ctxprof__free(ord, p->alloc_user);
    ctxprof__free(tmp, p->alloc_user);
    return CTXPROF_OK;
}

/* Binary profile (container kind CTXPROF__KIND_HCCT_PROFILE), little-endian:
     header  17 u64: nodes, names, total, threshold, absent, events, sampled,
             dropped, phi bits, epsilon bits, counters, mode, metric, flags,
             threads, lost_threads, reentrant (version 1: the first 16; it
             had no reentrant field, read as 0)
     names   u64 length + bytes, for names 1..names-1 (name 0 is "<root>")
     nodes   7 u64 each: count, err, routine, site, parent, name, flags
   Parents precede children (checked when reading). */
#define CTXPROF__HCCT_BIN_VERSION 2
#define CTXPROF__HCCT_BIN_HDR 17

CTXPROF__HCCT_FN uint64_t ctxprof__hcct_dbits(double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}

CTXPROF__HCCT_FN double ctxprof__hcct_bitsd(uint64_t u)
{
    double v;
    memcpy(&v, &u, sizeof v);
    return v;
}

CTXPROF__HCCT_FN void ctxprof__hcct_sb_u64(ctxprof__hcct_sb *b, uint64_t v)
{
    unsigned char w[8];
    ctxprof__put64(w, v);
    ctxprof__hcct_sb_add(b, (const char *)w, 8);
}

CTXPROF__HCCT_FN void ctxprof__hcct_w_binary(ctxprof__hcct_sb *b, const ctxprof_hcct_profile *p)
{
    const ctxprof__strtab *st = ctxprof__hcct_names(p);
    uint64_t hdr[CTXPROF__HCCT_BIN_HDR];
    uint64_t params[4] = {CTXPROF__HCCT_BIN_VERSION, sizeof(uintptr_t) * 8, 0, 0};
    size_t i;
    unsigned char blank[CTXPROF__BLOB_HDR];
    memset(blank, 0, sizeof blank);
    ctxprof__hcct_sb_add(b, (const char *)blank, sizeof blank);
    memset(hdr, 0, sizeof hdr);
    hdr[0] = p->n;
    hdr[1] = st ? st->n : 0;
    hdr[2] = p->total;
    hdr[3] = p->threshold;
    hdr[4] = p->absent;
    hdr[5] = p->events;
    hdr[6] = p->sampled;
    hdr[7] = p->dropped;
    hdr[8] = ctxprof__hcct_dbits(p->phi);
    hdr[9] = ctxprof__hcct_dbits(p->epsilon);
    hdr[10] = p->counters;
    hdr[11] = (uint64_t)p->mode;
    hdr[12] = (uint64_t)p->metric;
    hdr[13] = p->flags;
    hdr[14] = p->threads;
    hdr[15] = p->lost_threads;
    hdr[16] = p->reentrant;
    for (i = 0; i < CTXPROF__HCCT_BIN_HDR; i++)
        ctxprof__hcct_sb_u64(b, hdr[i]);
    for (i = 1; st && i < st->n; i++) {
        size_t l = strlen(st->names[i]);
        ctxprof__hcct_sb_u64(b, l);
        ctxprof__hcct_sb_add(b, st->names[i], l);
    }
    for (i = 0; i < p->n; i++) {
        const ctxprof_hcct_pnode *x = &p->nodes[i];
        ctxprof__hcct_sb_u64(b, x->count);
        ctxprof__hcct_sb_u64(b, x->err);
        ctxprof__hcct_sb_u64(b, x->routine);
        ctxprof__hcct_sb_u64(b, x->site);
        ctxprof__hcct_sb_u64(b, x->parent);
        ctxprof__hcct_sb_u64(b, x->name);
        ctxprof__hcct_sb_u64(b, x->flags);
    }
    if (!b->oom)
        ctxprof__blob_seal((unsigned char *)b->p, CTXPROF__KIND_HCCT_PROFILE, params,
                           b->len - CTXPROF__BLOB_HDR);
}

CTXPROF__HCCT_DEF int ctxprof_hcct_profile_format(const ctxprof_hcct_profile *p,
                                                  const ctxprof_hcct_write_desc *d, char **out,
                                                  size_t *len, ctxprof_error *err)
{
    ctxprof_hcct_write_desc dd;
    ctxprof__hcct_sb b;
    unsigned maxd;
    int rc = CTXPROF_OK;
    ctxprof__error_clear(err);
    if (!out || !len)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "hcct: format without a place for the "
                                                        "text (out or len is NULL)");
    *out = NULL;
    *len = 0;
    if (!p)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "hcct: NULL profile");
    if (!p->nodes || p->n == 0)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0,
                             "hcct: empty profile (zeroed or deinitialized)");
    if (d)
        dd = *d;
    else
        memset(&dd, 0, sizeof dd);
    maxd = dd.max_depth ? dd.max_depth : 1024;
    memset(&b, 0, sizeof b);
    b.ud = p->alloc_user;
    switch (dd.format) {
    case CTXPROF_HCCT_TEXT:
        ctxprof__hcct_w_text(&b, p, maxd);
        break;
    case CTXPROF_HCCT_COLLAPSED:
        rc = ctxprof__hcct_w_collapsed(&b, p, maxd);
        break;
    case CTXPROF_HCCT_JSON:
        ctxprof__hcct_w_json(&b, p);
        break;
    case CTXPROF_HCCT_SVG:
        rc = ctxprof__hcct_w_svg(&b, p, &dd, maxd);
        break;
    case CTXPROF_HCCT_BINARY:
        ctxprof__hcct_w_binary(&b, p);
        break;
    case CTXPROF_HCCT_TOP:
        rc = ctxprof__hcct_w_top(&b, p, dd.top ? dd.top : 20, maxd);
        break;
    default:
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "hcct: unknown output format %d",
                             dd.format);
    }
    if (!rc && !b.oom && !b.p)
        ctxprof__hcct_sb_add(&b, "", 0);
    if (rc || b.oom) {
        ctxprof__free(b.p, b.ud);
        return ctxprof__fail(err, CTXPROF_ERR_NOMEM, 0, "hcct: out of memory formatting");
    }
    *out = b.p;
    *len = b.len;
    return CTXPROF_OK;
}

CTXPROF__HCCT_DEF void ctxprof_hcct_text_free(const ctxprof_hcct_profile *p, char *text)
{
    ctxprof__free(text, p ? p->alloc_user : NULL);
}

/* The output format a file name's extension names (*dot: the extension,
   NULL when there is none): .txt, .folded or .collapsed, .json, .svg,
   .hcct (binary); text without an extension; -1 for another one. What
   CTXPROF_HCCT's out= and ctxprof_hcct_profile_write without a
   descriptor go by. */
CTXPROF__HCCT_FN int ctxprof__hcct_format_of(const char *path, const char **dot)
{
    const char *base = strrchr(path, '/');
    const char *x = strrchr(base ? base : path, '.');
    *dot = x;
    if (!x || strcmp(x, ".txt") == 0)
        return CTXPROF_HCCT_TEXT;
    if (strcmp(x, ".svg") == 0)
        return CTXPROF_HCCT_SVG;
    if (strcmp(x, ".json") == 0)
        return CTXPROF_HCCT_JSON;
    if (strcmp(x, ".folded") == 0 || strcmp(x, ".collapsed") == 0)
        return CTXPROF_HCCT_COLLAPSED;
    if (strcmp(x, ".hcct") == 0)
        return CTXPROF_HCCT_BINARY;
    return -1;
}

CTXPROF__HCCT_DEF int ctxprof_hcct_profile_write(const ctxprof_hcct_profile *p, const char *path,
                                                 const ctxprof_hcct_write_desc *d,
                                                 ctxprof_error *err)
{
    ctxprof_hcct_write_desc byext;
    char *buf;
    size_t len;
    int rc;
    ctxprof__error_clear(err);
    if (!p)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "hcct: NULL profile");
    if (!path || !*path)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "hcct: no output file name");
    if (!d) { /* the extension's format; text for another one */
        const char *dot;
        memset(&byext, 0, sizeof byext);
        byext.format = ctxprof__hcct_format_of(path, &dot);
        if (byext.format < 0)
            byext.format = CTXPROF_HCCT_TEXT;
        d = &byext;
    }
    rc = ctxprof_hcct_profile_format(p, d, &buf, &len, err);
    if (rc)
        return rc;
    rc = ctxprof__write_out(path, buf, len, err); /* "-": standard output */
    ctxprof_hcct_text_free(p, buf);
    return rc;
}

CTXPROF__HCCT_DEF int ctxprof_hcct_profile_read(ctxprof_hcct_profile *out, const char *path,
                                                void *alloc_user, ctxprof_error *err)
{
    unsigned char *buf = NULL;
    size_t size = 0, len = 0, off, i;
    const unsigned char *pl = NULL;
    uint64_t params[4], hdr[CTXPROF__HCCT_BIN_HDR], nn, nnames;
    size_t nh;
    ctxprof_hcct_profile p;
    ctxprof__hcct_ix ix;
    int rc, by_name;
    ctxprof__error_clear(err);
    if (!out)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "hcct: read into a NULL profile");
    if (!path || !*path)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "hcct: no input file name");
    memset(&p, 0, sizeof p);
    memset(&ix, 0, sizeof ix);
    ix.ud = alloc_user;
    rc = ctxprof__blob_read(path, alloc_user, &buf, &size, err);
    if (rc)
        return rc;
    rc = ctxprof__blob_open(buf, size, CTXPROF__KIND_HCCT_PROFILE, params, &pl, &len, path, err);
    if (rc)
        goto done;
    if (params[0] < 1 || params[0] > CTXPROF__HCCT_BIN_VERSION ||
        params[1] != sizeof(uintptr_t) * 8) {
        rc = ctxprof__fail(err, CTXPROF_ERR_MISMATCH, 0,
                           "%s: hcct profile version %llu for %llu-bit addresses; this library "
                           "reads versions 1-%d, %d-bit",
                           path, (unsigned long long)params[0], (unsigned long long)params[1],
                           CTXPROF__HCCT_BIN_VERSION, (int)(sizeof(uintptr_t) * 8));
        goto done;
    }
    rc = CTXPROF_ERR_CORRUPT;
    nh = params[0] == 1 ? CTXPROF__HCCT_BIN_HDR - 1 : CTXPROF__HCCT_BIN_HDR;
    if (len < 8 * nh) {
        ctxprof__fail(err, rc, 0, "%s: truncated hcct header", path);
        goto done;
    }
    hdr[CTXPROF__HCCT_BIN_HDR - 1] = 0;
    for (i = 0; i < nh; i++)
        hdr[i] = ctxprof__get64(pl + 8 * i);
    off = 8 * nh;
    nn = hdr[0];
    nnames = hdr[1];
    if (nn < 1 || nn > (len - off) / 56 || nnames < 1 || nnames > len) {
        ctxprof__fail(err, rc, 0, "%s: bad node or name count (%llu, %llu)", path,
                      (unsigned long long)nn, (unsigned long long)nnames);
        goto done;
    }
    if (ctxprof__hcct_prof_init(&p, alloc_user, (size_t)nn)) {
        rc = ctxprof__fail(err, CTXPROF_ERR_NOMEM, 0, "%s: out of memory", path);
        goto done;
    }
    for (i = 1; i < nnames; i++) {
        uint64_t l;
        char tmp[1];
        char *s;
        if (len - off < 8 || (l = ctxprof__get64(pl + off)) > len - off - 8) {
            ctxprof__fail(err, rc, 0, "%s: name %zu runs past the end", path, i);
            goto done;
        }
        off += 8;
        s = l ? (char *)ctxprof__alloc((size_t)l + 1, 1, alloc_user) : tmp;
        if (!s) {
            rc = ctxprof__fail(err, CTXPROF_ERR_NOMEM, 0, "%s: out of memory", path);
            goto done;
        }
        memcpy(s, pl + off, (size_t)l);
        s[l] = '\0';
        off += (size_t)l;
        if (l == 0 || strlen(s) != l || ctxprof__strtab_intern(ctxprof__hcct_names(&p), s) != (long)i) {
            if (s != tmp)
                ctxprof__free(s, alloc_user);
            ctxprof__fail(err, rc, 0, "%s: name %zu is empty, duplicated or has a NUL", path, i);
            goto done;
        }
        if (s != tmp)
            ctxprof__free(s, alloc_user);
    }
    if ((len - off) != nn * 56) {
        ctxprof__fail(err, rc, 0, "%s: %zu bytes of nodes, expected %llu", path, len - off,
                      (unsigned long long)(nn * 56));
        goto done;
    }
    p.n = (size_t)nn;
    for (i = 0; i < nn; i++, off += 56) {
        ctxprof_hcct_pnode *x = &p.nodes[i];
        uint64_t par = ctxprof__get64(pl + off + 32), nm = ctxprof__get64(pl + off + 40);
        uint64_t fl = ctxprof__get64(pl + off + 48);
        x->count = ctxprof__get64(pl + off);
        x->err = ctxprof__get64(pl + off + 8);
        x->routine = (uintptr_t)ctxprof__get64(pl + off + 16);
        x->site = (uintptr_t)ctxprof__get64(pl + off + 24);
        if ((i == 0 ? par != CTXPROF_HCCT_NONE : par >= i) || nm >= nnames || (i && nm == 0) ||
            fl > 7 || x->err > x->count || ((fl & CTXPROF_HCCT_IS_ROOT) != 0) != (i == 0)) {
            ctxprof__fail(err, rc, 0, "%s: node %zu is inconsistent (parent %llu, name %llu)",
                          path, i, (unsigned long long)par, (unsigned long long)nm);
            goto done;
        }
        x->parent = (uint32_t)par;
        x->name = (uint32_t)nm;
        x->flags = (uint32_t)fl;
    }
    if (hdr[11] > CTXPROF_HCCT_CCT || hdr[12] > CTXPROF_HCCT_OTHER || hdr[13] > 7 ||
        hdr[14] > UINT32_MAX || hdr[15] > UINT32_MAX) {
        ctxprof__fail(err, rc, 0, "%s: bad mode, metric or flags", path);
        goto done;
    }
    p.total = hdr[2];
    p.threshold = hdr[3];
    p.absent = hdr[4];
    p.events = hdr[5];
    p.sampled = hdr[6];
    p.dropped = hdr[7];
    p.phi = ctxprof__hcct_bitsd(hdr[8]);
    p.epsilon = ctxprof__hcct_bitsd(hdr[9]);
    p.counters = (size_t)hdr[10];
    p.mode = (int)hdr[11];
    p.metric = (int)hdr[12];
    p.flags = (unsigned)hdr[13];
    p.threads = (uint32_t)hdr[14];
    p.lost_threads = (uint32_t)hdr[15];
    p.reentrant = hdr[16];
    /* siblings are distinct contexts: merge and compare find a context by
       (parent, routine, site), or by (parent, name) in a profile merged by
       name (where siblings of different names may share a routine and site) */
    by_name = (p.flags & CTXPROF_HCCT_BY_NAME) != 0;
    for (i = 1; i < p.n; i++) {
        uint32_t par = p.nodes[i].parent,
                 dup = ctxprof__hcct_find(&p, &ix, par, &p, (uint32_t)i, by_name);
        if (dup != CTXPROF_HCCT_NONE) {
            ctxprof__fail(err, rc, 0, "%s: node %zu repeats its sibling %u (%s under node %u)",
                          path, i, (unsigned)dup,
                          by_name ? "same name" : "same routine and call site", (unsigned)par);
            goto done;
        }
        if (ctxprof__hcct_ix_add(&ix, ctxprof__hcct_node_key(&p, par, (uint32_t)i, by_name),
                                 (uint32_t)i)) {
            rc = ctxprof__fail(err, CTXPROF_ERR_NOMEM, 0, "%s: out of memory", path);
            goto done;
        }
    }
    if (ctxprof__hcct_prof_finish(&p)) {
        rc = ctxprof__fail(err, CTXPROF_ERR_NOMEM, 0, "%s: out of memory", path);
        goto done;
    }
    *out = p;
    memset(&p, 0, sizeof p);
    rc = CTXPROF_OK;
done:
    ctxprof__hcct_ix_free(&ix);
    ctxprof_hcct_profile_deinit(&p);
    ctxprof__free(buf, alloc_user);
    return rc;
}

/* ==== hcct: session ==== */

/* Global state of the session; ctxprof__hcct_mu guards the list, the
   retired profile and the descriptor. state and gen are read by the
   threads' ticks without the lock. */
static pthread_mutex_t ctxprof__hcct_mu = PTHREAD_MUTEX_INITIALIZER;
static int ctxprof__hcct_state; /* 0 never started, 1 running, 2 stopped */
static uint64_t ctxprof__hcct_gen;
static ctxprof_hcct_desc ctxprof__hcct_sdesc;
static ctxprof_hcct *ctxprof__hcct_list;
static ctxprof_hcct *ctxprof__hcct_left; /* trees of live threads a shutdown left (freed
                                            by the thread's next slow path or its exit) */
static ctxprof__hcct_acc ctxprof__hcct_retired; /* children sorted in the snapshots only */
static int ctxprof__hcct_have_retired;
static uint32_t ctxprof__hcct_lost; /* threads whose tree could not be allocated or merged */
static pthread_key_t ctxprof__hcct_tkey;
static int ctxprof__hcct_tkey_ok;
static CTXPROF_TLS int ctxprof__hcct_tstate CTXPROF__TLS_MODEL; /* 1 attaching, 2 retired */
/* The calling thread holds ctxprof__hcct_mu: an instrumented signal
   handler that interrupts it must not attach (it would lock it again).
   Set before the lock is taken and cleared after it is released, so that
   it covers the instructions of pthread_mutex_lock/unlock that run with
   the lock held. */
static CTXPROF_TLS int ctxprof__hcct_holding CTXPROF__TLS_MODEL;
/* Events of threads without a tree dropped because they interrupted the
   profiler or code that may hold its locks or malloc's (a signal
   handler's): counted in the snapshots' reentrant. */
static uint64_t ctxprof__hcct_sig_dropped;

CTXPROF__HCCT_FN void ctxprof__hcct_lock(void)
{
    ctxprof__hcct_holding = 1;
    CTXPROF__HCCT_FENCE();
    pthread_mutex_lock(&ctxprof__hcct_mu);
}

CTXPROF__HCCT_FN void ctxprof__hcct_unlock(void)
{
    pthread_mutex_unlock(&ctxprof__hcct_mu);
    CTXPROF__HCCT_FENCE();
    ctxprof__hcct_holding = 0;
}

/* Whether the calling thread may be running a signal handler, whose
   interrupted code may hold malloc's locks: a signal frame on the stack
   above the caller's frame, found as ICPP finds an uninstrumented
   handler's (ctxprof__icpp_sig_between: the sigreturn trampoline's
   address, a signal blocked now that the frame's saved mask did not
   block), or running on the alternate signal stack (sigaltstack says so;
   the frame found there saved an SP on another stack). No signal blocked
   on the thread's own stack: none (unless SA_NODEFER with an empty
   sa_mask, which is not seen). The frame search is x86-64 Linux only.
   Signal-safe: sigaltstack, sigprocmask, /proc/self/maps read with
   open/read. */
CTXPROF__HCCT_FN int ctxprof__hcct_in_handler(void)
{
    ctxprof__mapping mp;
    sigset_t now;
    uintptr_t sp = (uintptr_t)&mp;
    int sig;
    if (ctxprof__on_altstack())
        return 1;
    if (pthread_sigmask(SIG_BLOCK, NULL, &now) != 0)
        return 0;
    for (sig = 1; sig <= 64 && sigismember(&now, sig) != 1; sig++)
        ;
    return sig <= 64 && ctxprof__mapping_at(sp, &mp, NULL, 0) &&
           ctxprof__icpp_sig_between(sp, mp.end, mp.end) != 0;
}

#if defined(__GNUC__) || defined(__clang__)
#define CTXPROF__HCCT_LOAD_STATE() __atomic_load_n(&ctxprof__hcct_state, __ATOMIC_ACQUIRE)
/* under the lock; pairs with the lock-free load of attach */
#define CTXPROF__HCCT_SET_STATE(v) __atomic_store_n(&ctxprof__hcct_state, (v), __ATOMIC_RELEASE)
#define CTXPROF__HCCT_BUMP_GEN() __atomic_add_fetch(&ctxprof__hcct_gen, 1, __ATOMIC_RELEASE)
#define CTXPROF__HCCT_COUNT_DROP()                                                                 \
    __atomic_add_fetch(&ctxprof__hcct_sig_dropped, 1, __ATOMIC_RELAXED)
#else
#define CTXPROF__HCCT_LOAD_STATE() (ctxprof__hcct_state)
#define CTXPROF__HCCT_SET_STATE(v) (ctxprof__hcct_state = (v))
#define CTXPROF__HCCT_BUMP_GEN() (++ctxprof__hcct_gen)
#define CTXPROF__HCCT_COUNT_DROP() (++ctxprof__hcct_sig_dropped)
#endif

/* In a tick of a session tree: follow stop/resume requests. */
CTXPROF__HCCT_FN void ctxprof__hcct_session_poll(ctxprof_hcct *t)
{
    uint64_t g = CTXPROF__HCCT_ACQ(ctxprof__hcct_gen);
    int running;
    if (g == t->gen)
        return;
    t->gen = g;
    running = CTXPROF__HCCT_LOAD_STATE() == 1;
    if (!running && !t->paused) {
        if (t->sampling)
            ctxprof__hcct_untrack(t);
        t->paused = 1;
    } else if (running && t->paused) {
        t->paused = 0;
        if (t->period_ns)
            t->next_burst_ns = ctxprof__hcct_clock();
        else
            ctxprof__hcct_track(t);
    }
}

/* Merges a full snapshot of t into the retired profile (lock held), in
   place: O(t's nodes), the index of the retired profile kept from one exit
   to the next (children are sorted by the snapshots that read it). In
   LSS mode the result is cut back to the |M| largest counts and their
   ancestors, so that the session's memory does not grow with every thread
   that exits (400 threads with |M| = 1000 kept 400,001 nodes); each exit
   then costs O(|M|) more (the cut and a new index). When memory runs out for
   the copy or the merge, the thread's counts cannot be kept: it is counted
   in lost_threads (with the threads whose tree could not be allocated), so
   that every profile says that threads are missing; the retired profile
   stays as it was. (Not in dropped: that counts events the [dropped] node
   holds, inside the total.) A failed reduction loses nothing. */
CTXPROF__HCCT_FN void ctxprof__hcct_retire(ctxprof_hcct *t)
{
    ctxprof_hcct_profile p;
    if (ctxprof__hcct_snapshot(t, -1, &p, NULL)) {
        ctxprof__hcct_lost++;
        return;
    }
    if (!ctxprof__hcct_have_retired) {
        memset(&ctxprof__hcct_retired, 0, sizeof ctxprof__hcct_retired);
        ctxprof__hcct_retired.p = p;
        ctxprof__hcct_have_retired = 1;
    } else {
        if (ctxprof__hcct_acc_merge(&ctxprof__hcct_retired, &p, 0, NULL))
            ctxprof__hcct_lost++; /* the retired profile is unchanged */
        ctxprof_hcct_profile_deinit(&p);
    }
    if (ctxprof__hcct_sdesc.mode == CTXPROF_HCCT_LSS &&
        ctxprof__hcct_retired.p.n > ctxprof__hcct_sdesc.counters + 1) {
        ctxprof__hcct_acc_settle(&ctxprof__hcct_retired); /* the cut reads the counts */
        ctxprof__hcct_retired.ix_ok = 0;                  /* it moves the nodes */
        ctxprof__hcct_reduce(&ctxprof__hcct_retired.p, ctxprof__hcct_sdesc.counters);
    }
}

/* Frees the calling thread's tree t that a shutdown left (unmerged: its
   session is gone), from a slow path that interrupted no other; the
   thread's next event may attach to a new session. 0 (t kept, for a
   later event) in a signal handler (it may have interrupted malloc, or
   the thread holding the lock) or while the thread holds the lock. */
CTXPROF__HCCT_FN int ctxprof__hcct_bury(ctxprof_hcct *t)
{
    ctxprof_hcct **pp;
    void *ud = t->desc.alloc_user;
    if (ctxprof__hcct_holding || ctxprof__hcct_in_handler())
        return 0;
    ctxprof__hcct_lock();
    for (pp = &ctxprof__hcct_left; *pp && *pp != t; pp = &(*pp)->next_thread)
        ;
    if (*pp)
        *pp = t->next_thread;
    if (ctxprof__hcct_tkey_ok) /* (kept while a tree is left) */
        pthread_setspecific(ctxprof__hcct_tkey, NULL);
    ctxprof__hcct_unlock();
    if (ctxprof__hcct_tls == t)
        ctxprof__hcct_tls = NULL;
    ctxprof__hcct_free_tree(t);
    ctxprof__free(t, ud);
    return 1;
}

/* pthread key destructor: the thread exits; its tree is merged and freed,
   or only freed when a shutdown left it (the key stays while trees are
   left, so that this runs for them too). */
CTXPROF__HCCT_FN void ctxprof__hcct_thread_exit(void *arg)
{
    ctxprof_hcct *t = (ctxprof_hcct *)arg, **pp;
    if (ctxprof__hcct_tls == t)
        ctxprof__hcct_tls = NULL;
    ctxprof__hcct_tstate = 2; /* events after this (other destructors) are ignored */
    ctxprof__hcct_lock();
    for (pp = &ctxprof__hcct_list; *pp && *pp != t; pp = &(*pp)->next_thread)
        ;
    if (*pp)
        ctxprof__hcct_retire(t);
    else
        for (pp = &ctxprof__hcct_left; *pp && *pp != t; pp = &(*pp)->next_thread)
            ;
    if (*pp)
        *pp = t->next_thread;
    else
        t = NULL; /* not a tree of the library's lists (never expected) */
    ctxprof__hcct_unlock();
    if (t) {
        void *ud = t->desc.alloc_user;
        ctxprof__hcct_free_tree(t);
        ctxprof__free(t, ud);
    }
}

CTXPROF__HCCT_DEF ctxprof_hcct *ctxprof__hcct_attach(void)
{
    ctxprof_hcct *t;
    ctxprof_hcct_desc d;
    if (ctxprof__hcct_tstate == 2 || CTXPROF__HCCT_LOAD_STATE() != 1)
        return NULL;
    /* The thread's own events while it attaches or holds the lock, and a
       signal handler's (it may have interrupted malloc, which attaching
       calls): dropped, and counted. */
    if (ctxprof__hcct_tstate || ctxprof__hcct_holding || ctxprof__hcct_in_handler()) {
        CTXPROF__HCCT_COUNT_DROP();
        return NULL;
    }
    ctxprof__hcct_tstate = 1; /* allocation below may run instrumented code */
    ctxprof__hcct_lock();
    d = ctxprof__hcct_sdesc;
    /* The thread's session tree, unbound by bind(NULL) or by the deinit of
       a tree bound over it: bound again, not replaced (the key has room
       for one tree per thread, which its exit merges). */
    t = ctxprof__hcct_tkey_ok ? (ctxprof_hcct *)pthread_getspecific(ctxprof__hcct_tkey) : NULL;
    if (t && t->session == 1) {
        ctxprof__hcct_unlock();
        ctxprof__hcct_tls = t;
        ctxprof__hcct_tstate = 0;
        return t;
    }
    ctxprof__hcct_unlock();
    if (t) /* left by a shutdown: freed before a new one is made */
        ctxprof__hcct_bury(t);
    /* zeroed: a block that held a tree freed without deinit would look
       initialized to init */
    t = (ctxprof_hcct *)ctxprof__zalloc(1, sizeof *t, d.alloc_user);
    if (!t || ctxprof_hcct_init(t, &d, NULL)) {
        /* typically the node reservation (1.25 GiB in CCT mode) under
           strict overcommit: counted, and shown in every profile */
        ctxprof__free(t, d.alloc_user);
        ctxprof__hcct_tstate = 2; /* give up for this thread */
        ctxprof__hcct_lock();
        ctxprof__hcct_lost++;
        ctxprof__hcct_unlock();
        return NULL;
    }
    t->session = 1;
    ctxprof__hcct_lock();
    t->gen = CTXPROF__HCCT_ACQ(ctxprof__hcct_gen);
    if (ctxprof__hcct_state != 1) {
        ctxprof__hcct_unlock();
        ctxprof__hcct_free_tree(t);
        ctxprof__free(t, d.alloc_user);
        ctxprof__hcct_tstate = 0;
        return NULL;
    }
    t->next_thread = ctxprof__hcct_list;
    ctxprof__hcct_list = t;
    if (ctxprof__hcct_tkey_ok)
        pthread_setspecific(ctxprof__hcct_tkey, t);
    ctxprof__hcct_unlock();
    ctxprof__hcct_tls = t;
    ctxprof__hcct_tstate = 0;
    return t;
}

/* fork(): a thread that held the session's locks (a thread exiting, its
   tree being merged; a snapshot) does not exist in the child, which would
   wait for them forever (at its exit, writing CTXPROF_HCCT's profile).
   fork waits until they are free, in the order snapshots take them. */

CTXPROF__HCCT_FN void ctxprof__hcct_fork_prepare(void)
{
    ctxprof__hcct_lock();
    pthread_mutex_lock(&ctxprof__hcct_symmu);
}

CTXPROF__HCCT_FN void ctxprof__hcct_fork_done(void)
{
    pthread_mutex_unlock(&ctxprof__hcct_symmu);
    ctxprof__hcct_unlock();
}

CTXPROF__HCCT_FN void ctxprof__hcct_fork_init(void)
{
    pthread_atfork(ctxprof__hcct_fork_prepare, ctxprof__hcct_fork_done, ctxprof__hcct_fork_done);
}

CTXPROF__HCCT_DEF int ctxprof_hcct_start(const ctxprof_hcct_desc *desc, ctxprof_error *err)
{
    ctxprof_hcct_desc d;
    int rc = CTXPROF_OK;
    ctxprof__error_clear(err);
    pthread_once(&ctxprof__hcct_fork_once, ctxprof__hcct_fork_init);
    ctxprof__icpp_sigret_learn(); /* for ctxprof__hcct_in_handler (not signal-safe) */
    ctxprof__hcct_lock();
    if (!desc) {
        if (ctxprof__hcct_state == 0)
            rc = ctxprof__fail(err, CTXPROF_ERR_INVAL, 0,
                               "hcct: the session was never started (give a descriptor)");
        else
            CTXPROF__HCCT_SET_STATE(1);
    } else if (ctxprof__hcct_state != 0) {
        rc = ctxprof__fail(err, CTXPROF_ERR_INVAL, 0,
                           "hcct: the session is already started (pass NULL to resume)");
    } else {
        d = *desc;
        d.flags |= CTXPROF_HCCT_CODE_ADDRESSES; /* fed by the hooks and the macros */
        rc = ctxprof__hcct_desc_fill(&d, err);
        if (!rc && !ctxprof__hcct_tkey_ok) {
            int e = pthread_key_create(&ctxprof__hcct_tkey, ctxprof__hcct_thread_exit);
            if (e)
                rc = ctxprof__fail(err, CTXPROF_ERR_SYS, e, "hcct: pthread_key_create");
            else
                ctxprof__hcct_tkey_ok = 1;
        }
        if (!rc) {
            ctxprof__hcct_sdesc = d;
            CTXPROF__HCCT_SET_STATE(1);
        }
    }
    if (!rc)
        CTXPROF__HCCT_BUMP_GEN();
    ctxprof__hcct_unlock();
    return rc;
}

CTXPROF__HCCT_DEF void ctxprof_hcct_stop(void)
{
    ctxprof__hcct_lock();
    if (ctxprof__hcct_state == 1) {
        CTXPROF__HCCT_SET_STATE(2);
        CTXPROF__HCCT_BUMP_GEN();
    }
    ctxprof__hcct_unlock();
}

CTXPROF__HCCT_DEF int ctxprof_hcct_snapshot(double phi, ctxprof_hcct_profile *out,
                                            ctxprof_error *err)
{
    ctxprof__hcct_acc acc;
    ctxprof_hcct_profile p;
    ctxprof_hcct *t;
    int rc = CTXPROF_OK;
    ctxprof__error_clear(err);
    memset(&acc, 0, sizeof acc);
    if (!out)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0,
                             "hcct: snapshot without an output profile (out is NULL)");
    ctxprof__hcct_lock();
    if (ctxprof__hcct_state == 0) {
        ctxprof__hcct_unlock();
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "hcct: no session (never started, or shut down)");
    }
    if (phi == 0)
        phi = ctxprof__hcct_sdesc.phi;
    /* the exited threads' profile and every live thread's tree merged in
       one accumulator: O(their nodes) under the lock; the children are
       sorted after it */
    if (ctxprof__hcct_have_retired) {
        ctxprof__hcct_acc_settle(&ctxprof__hcct_retired);
        rc = ctxprof_hcct_profile_copy(&acc.p, &ctxprof__hcct_retired.p, err);
        acc.merged = ctxprof__hcct_retired.merged;
    } else if (ctxprof__hcct_prof_init(&acc.p, ctxprof__hcct_sdesc.alloc_user, 16)) {
        rc = ctxprof__fail(err, CTXPROF_ERR_NOMEM, 0, "hcct: out of memory");
    }
    if (!rc && !ctxprof__hcct_have_retired) {
        acc.p.mode = ctxprof__hcct_sdesc.mode;
        acc.p.metric = ctxprof__hcct_sdesc.metric;
        acc.p.epsilon = acc.p.mode == CTXPROF_HCCT_LSS ? ctxprof__hcct_sdesc.epsilon : 0;
        acc.p.counters = acc.p.mode == CTXPROF_HCCT_LSS ? ctxprof__hcct_sdesc.counters : 0;
    }
    for (t = ctxprof__hcct_list; !rc && t; t = t->next_thread) {
        rc = ctxprof__hcct_snapshot(t, -1, &p, err);
        if (!rc) {
            rc = ctxprof__hcct_acc_merge(&acc, &p, 0, err);
            ctxprof_hcct_profile_deinit(&p);
        }
    }
    if (!rc) {
        acc.p.lost_threads = ctxprof__hcct_lost;
        acc.p.reentrant =
            ctxprof__hcct_sat_add(acc.p.reentrant, CTXPROF__HCCT_RD(ctxprof__hcct_sig_dropped));
    }
    ctxprof__hcct_unlock();
    if (!rc && ctxprof__hcct_acc_finish(&acc, NULL))
        rc = ctxprof__fail(err, CTXPROF_ERR_NOMEM, 0, "hcct: out of memory merging profiles");
    ctxprof__hcct_acc_free(&acc);
    if (!rc && phi > 0)
        rc = ctxprof_hcct_profile_prune(&acc.p, phi, err);
    if (rc) {
        ctxprof_hcct_profile_deinit(&acc.p);
        return rc;
    }
    *out = acc.p;
    return CTXPROF_OK;
}

CTXPROF__HCCT_DEF void ctxprof_hcct_shutdown(void)
{
    ctxprof_hcct *t, *next, *own;
    ctxprof__hcct_lock();
    /* the calling thread's tree, also while a tree of its own is bound */
    own = ctxprof__hcct_tkey_ok ? (ctxprof_hcct *)pthread_getspecific(ctxprof__hcct_tkey) : NULL;
    for (t = ctxprof__hcct_list; t; t = next) {
        void *ud = t->desc.alloc_user;
        next = t->next_thread;
        if (ctxprof__hcct_tls == t || own == t) {
            if (ctxprof__hcct_tls == t)
                ctxprof__hcct_tls = NULL;
            ctxprof__hcct_free_tree(t);
            ctxprof__free(t, ud);
            continue;
        }
        /* Another live thread's: it may run or be parked inside
           instrumented code, so the tree stays until that thread's next
           slow path frees it (its next tick at the latest, within 65536
           enters; events until then count in no session). The flag is
           all that is written here: the countdown and busy are the
           owner's (the busy protocol), and freeing the tree from a
           handler's event that interrupted the owner in the fast path
           freed it under that fast path's writes. */
        CTXPROF__HCCT_WR(t->session, 2);
        t->next_thread = ctxprof__hcct_left;
        ctxprof__hcct_left = t;
    }
    ctxprof__hcct_list = NULL;
    if (ctxprof__hcct_have_retired) {
        ctxprof__hcct_acc_free(&ctxprof__hcct_retired);
        ctxprof_hcct_profile_deinit(&ctxprof__hcct_retired.p);
    }
    ctxprof__hcct_have_retired = 0;
    ctxprof__hcct_lost = 0;
    CTXPROF__HCCT_WR(ctxprof__hcct_sig_dropped, 0);
    if (ctxprof__hcct_tkey_ok) {
        pthread_setspecific(ctxprof__hcct_tkey, NULL);
        /* kept while trees are left: their threads free them at exit */
        if (!ctxprof__hcct_left) {
            pthread_key_delete(ctxprof__hcct_tkey);
            ctxprof__hcct_tkey_ok = 0;
        }
    }
    CTXPROF__HCCT_SET_STATE(0);
    CTXPROF__HCCT_BUMP_GEN();
    ctxprof__hcct_unlock();
    ctxprof__hcct_tstate = 0;
    pthread_mutex_lock(&ctxprof__hcct_symmu);
    if (ctxprof__hcct_syms_state == 1)
        ctxprof_symtab_deinit(&ctxprof__hcct_syms);
    ctxprof__hcct_syms_state = 0;
    pthread_mutex_unlock(&ctxprof__hcct_symmu);
}

CTXPROF__HCCT_DEF ctxprof_hcct *ctxprof_hcct_thread(void)
{
    ctxprof_hcct *t = ctxprof__hcct_tls;
    return t ? t : ctxprof__hcct_attach();
}

CTXPROF__HCCT_DEF ctxprof_hcct *ctxprof_hcct_bind(ctxprof_hcct *t)
{
    ctxprof_hcct *prev = ctxprof__hcct_tls;
    /* not initialized (zeroed, deinitialized, or moved from where init put
       it): none, rather than hooks that would read it */
    ctxprof__hcct_tls = t && t->live == CTXPROF__LIVE_TAG(t) ? t : NULL;
    return prev;
}

/* ==== hcct: hooks ==== */

#if defined(CTXPROF_HCCT_HOOKS)
void __cyg_profile_func_enter(void *fn, void *site) CTXPROF__HCCT_NOINSTR CTXPROF__NOINLINE;
void __cyg_profile_func_exit(void *fn, void *site) CTXPROF__HCCT_NOINSTR CTXPROF__NOINLINE;

/* The stack address is the hook's canonical frame address (CFA): the
   caller's stack pointer before the call, the same in both hooks. gcc
   computes it from the stack pointer, with no frame set up (a frame
   address would cost a push, a move and a pop in each hook). */
#define CTXPROF__HCCT_HOOK_SP() ((uintptr_t)__builtin_dwarf_cfa())

CTXPROF__HCCT_FN CTXPROF__NOINLINE void ctxprof__hcct_hook_first(uintptr_t fn, uintptr_t site,
                                                                 uintptr_t sp, uint32_t point)
{
    ctxprof_hcct *t = ctxprof__hcct_attach();
    if (t)
        ctxprof__hcct_enter_at(t, fn, site, sp, point);
}

/* The entry point is the hook's return address: each inlined copy of a
   routine calls the hook from its own place. On x86-64 it lies just under
   the CFA. */
#if defined(__x86_64__) || defined(__i386__)
#define CTXPROF__HCCT_HOOK_POINT() CTXPROF__HCCT_PT_CFA
#else
#define CTXPROF__HCCT_HOOK_POINT() ((uint32_t)(uintptr_t)__builtin_return_address(0))
#endif

void __cyg_profile_func_enter(void *fn, void *site)
{
    ctxprof_hcct *t = ctxprof__hcct_tls;
    uintptr_t sp = CTXPROF__HCCT_HOOK_SP();
    if (CTXPROF__UNLIKELY(t == NULL))
        ctxprof__hcct_hook_first((uintptr_t)fn, (uintptr_t)site, sp, CTXPROF__HCCT_HOOK_POINT());
    else
        ctxprof__hcct_enter_at(t, (uintptr_t)fn, (uintptr_t)site, sp, CTXPROF__HCCT_HOOK_POINT());
}

/* gcc may emit the exit hook as a tail call, after the epilogue: the hook
   then runs with the caller's frame already popped, so its CFA is the
   caller's (the return address slot is its own), above the address
   recorded at entry and possibly equal to the parent's. It is
   recognized by its return address being the call site. The exiting frame
   is then the shallowest one recorded below that address; deeper ones
   below it were skipped by a longjmp. */
CTXPROF__HCCT_FN CTXPROF__NOINLINE void ctxprof__hcct_exit_tail_slow(ctxprof_hcct *t,
                                                                    uintptr_t routine,
                                                                    uintptr_t sp)
{
    int64_t cd;
    CTXPROF__HCCT_BEGIN_OR_DROP(t, cd);
    if (ctxprof__hcct_excess_exit(t, sp <= t->excess_sp))
        goto out;
    while (t->top > t->frames && t->top->sp < sp && t->top[-1].sp < sp) {
        ctxprof__hcct_pop_frame(t);
        CTXPROF__HCCT_WR(t->st.unwound, t->st.unwound + 1);
    }
    if (t->top > t->frames && t->top->sp < sp && t->top->routine == routine)
        ctxprof__hcct_pop_frame(t);
    else
        CTXPROF__HCCT_WR(t->st.unmatched, t->st.unmatched + 1);
out:
    CTXPROF__HCCT_END(t, cd);
}

void __cyg_profile_func_exit(void *fn, void *site)
{
    ctxprof_hcct *t = ctxprof__hcct_tls;
    ctxprof_hcct_frame *f;
    uintptr_t sp = CTXPROF__HCCT_HOOK_SP();
    uint32_t c;
    if (CTXPROF__UNLIKELY(t == NULL))
        return;
    if (CTXPROF__LIKELY(__builtin_return_address(0) != site)) {
        ctxprof_hcct_exit(t, (uintptr_t)fn, sp);
        return;
    }
    f = t->top;
    if (CTXPROF__UNLIKELY(f->routine != (uintptr_t)fn || f->sp >= sp || f[-1].sp < sp)) {
        ctxprof__hcct_exit_tail_slow(t, (uintptr_t)fn, sp);
        return;
    }
    c = f->node;
    CTXPROF__HCCT_WR(t->top, f - 1);
    if (CTXPROF__UNLIKELY(!(t->nodes[c].count >> 63)))
        ctxprof__hcct_exit_prune(t, c);
}

/* CTXPROF_HCCT=out=FILE,... : start at load time, write at exit. This
   opt-in mode reports its errors on stderr (nothing else in the library
   prints). */
static char ctxprof__hcct_auto_out[1024];
static int ctxprof__hcct_auto_fmt;

CTXPROF__HCCT_FN void ctxprof__hcct_auto_write(void)
{
    ctxprof_hcct_profile p;
    ctxprof_hcct_write_desc wd;
    ctxprof_error e;
    char path[1100];
    const char *s = ctxprof__hcct_auto_out;
    size_t k = 0;
    memset(&e, 0, sizeof e);
    memset(&wd, 0, sizeof wd);
    wd.format = ctxprof__hcct_auto_fmt;
    for (; *s && k + 24 < sizeof path; s++) {
        if (s[0] == '%' && s[1] == 'p') {
            k += (size_t)snprintf(path + k, sizeof path - k, "%ld", (long)getpid());
            s++;
        } else {
            path[k++] = *s;
        }
    }
    path[k] = '\0';
    ctxprof__hcct_tls = NULL; /* no more events from this thread */
    ctxprof__hcct_tstate = 2;
    if (ctxprof_hcct_snapshot(0, &p, &e) || ctxprof_hcct_profile_write(&p, path, &wd, &e))
        fprintf(stderr, "ctxprof: %s\n", ctxprof_error_message(&e));
    ctxprof_hcct_profile_deinit(&p);
}

CTXPROF__HCCT_FN int ctxprof__hcct_opt_num(const char *v, double *out)
{
    char *end;
    double x = strtod(v, &end);
    /* NaN, negative and >= 2^64 are no option's value (and the size_t
       conversions of counters, depth and mem must not overflow) */
    if (end == v || *end || !(x >= 0 && x < 18446744073709551616.0))
        return -1;
    *out = x;
    return 0;
}

/* Decimal digits [v, stop) only (no sign, space or exponent), at most max. */
CTXPROF__HCCT_FN int ctxprof__hcct_opt_dec(const char *v, const char *stop, uint64_t max,
                                           uint64_t *out)
{
    uint64_t x = 0;
    if (v == stop)
        return -1;
    for (; v < stop; v++) {
        uint64_t digit = (uint64_t)(unsigned char)*v - '0';
        if (digit > 9 || x > (max - digit) / 10)
            return -1;
        x = x * 10 + digit;
    }
    *out = x;
    return 0;
}

/* A whole number of at least min: decimal digits (exact) or a number such
   as 4e8 that is whole and at most 2^53 (where doubles are still exact).
   2.5, -1 or 1e20 is refused, not truncated, wrapped or clamped. */
CTXPROF__HCCT_FN int ctxprof__hcct_opt_whole(const char *v, size_t min, size_t *out)
{
    uint64_t n;
    double x;
    if (*v && v[strspn(v, "0123456789")] == '\0') {
        if (ctxprof__hcct_opt_dec(v, v + strlen(v), SIZE_MAX, &n))
            return -1;
    } else {
        if (ctxprof__hcct_opt_num(v, &x) || x > 9007199254740992.0 || (double)(uint64_t)x != x)
            return -1;
        n = (uint64_t)x;
    }
    if (n < min || n > SIZE_MAX)
        return -1;
    *out = (size_t)n;
    return 0;
}

CTXPROF__HCCT_FN int ctxprof__hcct_auto_parse(char *s, ctxprof_hcct_desc *d, ctxprof_error *e)
{
    char *tok, *save = NULL;
    double x;
    strcpy(ctxprof__hcct_auto_out, "ctxprof-hcct.%p.txt");
    for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *v = strchr(tok, '=');
        if (!v)
            return ctxprof__fail(e, CTXPROF_ERR_PARSE, 0, "CTXPROF_HCCT: '%s' is not key=value",
                                 tok);
        *v++ = '\0';
        if (strcmp(tok, "out") == 0) {
            snprintf(ctxprof__hcct_auto_out, sizeof ctxprof__hcct_auto_out, "%s", v);
        } else if (strcmp(tok, "mode") == 0 && (strcmp(v, "lss") == 0 || strcmp(v, "cct") == 0)) {
            d->mode = strcmp(v, "cct") == 0 ? CTXPROF_HCCT_CCT : CTXPROF_HCCT_LSS;
        } else if (strcmp(tok, "phi") == 0 && !ctxprof__hcct_opt_num(v, &x)) {
            d->phi = x;
        } else if (strcmp(tok, "eps") == 0 && !ctxprof__hcct_opt_num(v, &x)) {
            d->epsilon = x;
        } else if (strcmp(tok, "counters") == 0 || strcmp(tok, "depth") == 0 ||
                   strcmp(tok, "mem") == 0) {
            size_t min = *tok == 'd' ? 2 : 1, n;
            if (ctxprof__hcct_opt_whole(v, min, &n))
                return ctxprof__fail(e, CTXPROF_ERR_PARSE, 0,
                                     "CTXPROF_HCCT: bad option '%s=%s' (a whole number, %zu or "
                                     "more)",
                                     tok, v, min);
            *(*tok == 'c' ? &d->counters : *tok == 'd' ? &d->max_depth : &d->max_bytes) = n;
        } else if (strcmp(tok, "sites") == 0 && (strcmp(v, "0") == 0 || strcmp(v, "1") == 0)) {
            d->flags = *v == '0' ? (unsigned)CTXPROF_HCCT_ROUTINE_ONLY : 0u;
        } else if (strcmp(tok, "burst") == 0) {
            const char *colon = strchr(v, ':');
            uint64_t per, len;
            if (!colon || ctxprof__hcct_opt_dec(v, colon, 0xFFFFFFFFu, &per) ||
                ctxprof__hcct_opt_dec(colon + 1, colon + strlen(colon), 0xFFFFFFFFu, &len) ||
                (per == 0) != (len == 0) || len > per)
                return ctxprof__fail(e, CTXPROF_ERR_PARSE, 0,
                                     "CTXPROF_HCCT: burst=PERIOD_US:LENGTH_US with 0 < LENGTH_US "
                                     "<= PERIOD_US <= 4294967295, got '%s'",
                                     v);
            d->burst_period_us = (uint32_t)per;
            d->burst_length_us = (uint32_t)len;
        } else {
            return ctxprof__fail(e, CTXPROF_ERR_PARSE, 0,
                                 "CTXPROF_HCCT: bad option '%s=%s' (out mode phi eps counters "
                                 "depth mem sites burst)",
                                 tok, v);
        }
    }
    {
        const char *dot;
        ctxprof__hcct_auto_fmt = ctxprof__hcct_format_of(ctxprof__hcct_auto_out, &dot);
        if (ctxprof__hcct_auto_fmt < 0)
            return ctxprof__fail(e, CTXPROF_ERR_PARSE, 0,
                                 "CTXPROF_HCCT: out=%s: unknown format '%s' (.txt .folded "
                                 ".collapsed .json .svg .hcct, or no extension for text)",
                                 ctxprof__hcct_auto_out, dot);
    }
    return CTXPROF_OK;
}

__attribute__((constructor)) CTXPROF__HCCT_FN void ctxprof__hcct_auto(void)
{
    const char *env = getenv("CTXPROF_HCCT");
    char buf[2048];
    ctxprof_hcct_desc d;
    ctxprof_error e;
    if (!env || !*env)
        return;
    memset(&d, 0, sizeof d);
    memset(&e, 0, sizeof e);
    snprintf(buf, sizeof buf, "%s", env);
    if (ctxprof__hcct_auto_parse(buf, &d, &e) || ctxprof_hcct_start(&d, &e)) {
        fprintf(stderr, "ctxprof: %s\n", ctxprof_error_message(&e));
        return;
    }
    atexit(ctxprof__hcct_auto_write);
}
#endif /* CTXPROF_HCCT_HOOKS */

#ifdef __cplusplus
CTXPROF__CXX_QUIET_END
}
#endif

#endif /* CTXPROF_HCCT_IMPLEMENTATION */

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
