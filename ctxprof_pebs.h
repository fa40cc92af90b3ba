/* ctxprof_pebs.h - v0.1.0 - perf_event sampling of (PC, SP), PEBS where present
   SPDX-License-Identifier: MIT

   Samples the running program's program counter and stack pointer with
   minimal perturbation, as Inferred Call Path Profiling did with Intel PEBS
   (Mytkowicz, Coughlin, Diwan, OOPSLA'09, sec. 6.3 and 8: "sample every one
   million cycles" with pfmon). The pair (function of PC, stack height) is an
   ICPP context identifier; ctxprof.h maps it to call paths and an HCCT
   (ctxprof_hcct.h) aggregates them. Linux only; elsewhere every function
   returns CTXPROF_ERR_UNSUPPORTED.

   USAGE

     In exactly one .c file (it also implements ctxprof.h when that header
     gets CTXPROF_IMPLEMENTATION in the same TU):

         #define CTXPROF_IMPLEMENTATION
         #include "ctxprof_pebs.h"

     Link with -lpthread (glibc < 2.34). With libpfm4 event names: define
     CTXPROF_HAVE_LIBPFM (or CTXPROF_PEBS_WITH_LIBPFM) in that TU and link
     -lpfm (Debian: libpfm4-dev). This header includes <linux/perf_event.h>
     and must come before any libpfm header.

   CONTENTS

     pebs: declarations      levels, descriptor, sample, stats, API
     pebs: paths             sample -> CID -> call path -> weights (HCCT)
     pebs: training          callchain samples -> path map (no hooks)
     pebs: implementation    probing and messages, ring reader, reader
                             thread, signals, libpfm glue, paths, training

   SAMPLING LEVELS (tried in this order unless one is forced)

     PEBS      Intel precise sampling: cycles with precise_ip=1 and the
               registers of the PEBS record (PERF_SAMPLE_REGS_INTR): PC and
               SP are one architectural state, the state right after the
               sampled instruction retired. Only on Intel x86 with
               cpu/caps/max_precise >= 1.
     hardware  cycles, non-precise, registers of the interrupted user state
               (PERF_SAMPLE_REGS_USER): consistent, but with skid.
     software  task-clock (thread CPU time, hrtimer), REGS_USER; works in
               VMs without a PMU. Period in nanoseconds.

     The level is probed once at open on the calling thread and reused for
     every thread. A level is forced with desc.level or the environment
     variable CTXPROF_PEBS_LEVEL=pebs|hw|sw. ctxprof_pebs_explain() says what
     each level did: "PEBS: no hardware PMU (ENOENT); hardware: no hardware
     PMU (ENOENT); software task-clock: ok (period 1000000 ns)".

   CONFIGURATION

     CTXPROF_HAVE_LIBPFM          off  libpfm4 event names (implementation TU,
     CTXPROF_PEBS_WITH_LIBPFM          link -lpfm); either name works
     CTXPROF_PEBS_IMPLEMENTATION  off  with CTXPROF_CORE_IMPLEMENTATION in the same
                                       file: implement the core and this header, not
                                       ctxprof_hcct.h (CTXPROF_IMPLEMENTATION: all)

   EXAMPLE

       static void on_sample(void *user, const ctxprof_pebs_sample *s) { ... }

       ctxprof_pebs pb;
       ctxprof_pebs_desc d = {0};
       d.on_sample = on_sample;                      (or d.samples/samples_cap)
       if (ctxprof_pebs_open(&pb, &d) != CTXPROF_OK)
           fprintf(stderr, "%s\n", ctxprof_error_message(&pb.error));
       ctxprof_pebs_attach(&pb, 0, 0);              (this thread; others too)
       ... work ...
       ctxprof_pebs_close(&pb);                      (final drain, then free)
       fprintf(stderr, "%s\n", ctxprof_pebs_explain(&pb));  (also after close)

   CONSUMPTION MODES (desc.mode)

     CTXPROF_PEBS_READER (default)  an internal reader thread (all signals
               blocked, named "ctxprof-rd", never sampled) polls every ring fd
               and an eventfd for control. The kernel wakes it when a ring
               holds desc.watermark bytes; a thread's exit (POLLHUP) triggers
               its final drain. Sinks run on the reader thread only.
     CTXPROF_PEBS_MANUAL  no thread: rings are read by ctxprof_pebs_drain()
               and at detach/close (short single-threaded runs; size the ring
               for the run or drain periodically). Sinks run on the caller.
     CTXPROF_PEBS_SIGNAL  opt-in: desc.signo (default SIGIO) is raised on
               the sampled thread, whose handler drains its own ring. With a
               software period of 1 ms or more each sample raises it (the
               kernel ignores wakeup batching for fasync); with a shorter one,
               and at the hardware levels, a per-thread ticker (a second
               task-clock event, one more fd per thread) raises it once per
               1 ms of the thread's CPU time (a quarter of the hardware
               period in ns if longer) and the handler drains the batch:
               a signal costs up to 25 us in a VM, and one per sample at
               10 us would keep the thread in its handler for good.
               explain() says when the ticker is used. EINTR in the
               program's syscalls: use it only where no thread can be
               hosted. Sinks run in signal handlers on any thread and must
               be async-signal-safe and thread-safe. Close restores the
               signal's previous disposition, after discarding the
               instances of it still pending in any thread.

     In every mode a sink must not call back into its own sampler (attach,
     detach, drain, stats_get, explain, close): at detach, at close, at a
     thread's exit and in manual drains it runs with the sampler's lock held,
     and the call would deadlock. Count in the sink; read stats afterwards.

   TRAINING WITHOUT INSTRUMENTATION (ctxprof_pebs_train_*)

     ICPP's path map can be trained on the build that will be sampled, a
     plain one with no hooks (beyond the paper, which trained with
     compiler-inserted -finstrument-functions hooks, sec. 4.2 and 8.1):
     build with -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer,
     sample with CTXPROF_PEBS_CALLCHAIN and desc.stack_bytes (16 at least,
     a few KiB to train the callers' heights too), and give
     ctxprof_pebs_train_sample as on_sample. Each sample's callchain
     (user part; kernel frames and PERF_CONTEXT_* markers skipped; return
     addresses mapped by ctxprof_symtab, functions of the executable only
     by default) is its call path, sample.height its leaf height; the
     frame-pointer chain in the stack copy gives each caller's height (its
     SP at the call), so a sample trains its callers' paths too, as the
     hooks do at every entry. (path, height) -> samples goes to a bounded
     table (nothing allocates per sample; what does not fit is counted).
     ctxprof_pebs_train_save writes a ctxprof-paths map whose counts are
     samples with the path's leaf running (0: seen only as a caller).
     Samples outside the leaf's body:
       - rbp still the caller's (a function's first instructions, its
         return, and leaves built without a frame: gcc 12 and clang 14
         omit it where no stack is needed, -mno-omit-leaf-frame-pointer
         or not): the callchain lacks the caller, and it is put back;
       - saved registers being pushed or popped: right path, other SP.
     The leaf's CFA rule at the sample's PC says which: init reads the
     rules of the functions it records from the loaded objects'
     .eh_frame (PT_GNU_EH_FRAME, as ctxprof_icpp_map_bind does). CFA =
     rbp + 16: the frame is set up; CFA = SP + 8k: rbp is the caller's,
     the return address is the stack copy's k-th word (past the copy, the
     caller is lost; rbp below that CFA is no frame pointer, the chain
     from it garbage: both counted as frameless). Where no rule is known
     (no .eh_frame entry, a CFA expression; none at all when init could
     not read them: t->cfa_funcs 0) the top words guess: a return address
     on top, or rbp just pushed under one. A guess only (stats.guessed):
     a set-up frame's top word can hold a code address too (clang's
     realigning `push %rax`), and a frameless leaf's saved registers hide
     its return address under them. Entries are kept apart by the leaf's
     frame size at the sample (CFA - SP); the map gets, per leaf function,
     the entries at the most sampled size (the body's: for a frameless
     leaf, 8). A sample at another size whose CFA is exact (its rule's) is
     counted at the body's height, height - its size + the body's, where
     the profile side's CFA heights put such samples (stats.folded); the
     rest is counted as unsettled.
     A leaf that uses rbp as a register gives garbage chains: counted as
     frameless when rbp is no stack address, else mostly unsettled.
     A function with alloca or variable-length arrays has several body
     frame sizes; only the most sampled is kept, the samples at the others
     moved to its height (their CFA rule, rbp + 16, is exact). Threads
     need an ICPP base: the main thread has one (a constructor); another
     thread of a plain build calls ctxprof_icpp_thread_begin() first
     thing, else its samples count as nobase. The map then resolves
     samples of that same build (ctxprof_pebs_paths): no run-time
     instrumentation at all.

   THREADS AND SIGNALS

     ctxprof_pebs_attach/detach/drain/stats may be called from any thread;
     open and close from one thread while no other call is running. The drain
     path (ring parsing and the array sink) allocates nothing, takes no lock
     and is async-signal-safe. ctxprof_pebs_close() after fork() in the child
     only frees memory: the child never touches the parent's events. In
     signal mode the child gets the signal's previous disposition back at
     fork() (or at that close, if no atfork handler ran) and may open a
     signal-mode sampler of its own.

   ERRORS

     Functions return ctxprof_status; pb.error has the detail and the errno.
     Causes named in messages: kernel.perf_event_paranoid (with its value),
     seccomp (with /proc/self/status's Seccomp value, for EPERM, and for
     EACCES and ENOSYS when a filter is installed and paranoid allows it), the locked-memory
     budget (the ring is halved down to 8 pages before giving up), no PMU,
     RLIMIT_NOFILE, kernel.perf_event_max_stack (open lowers desc.max_stack
     to it rather than fail; pb.max_stack has the depth in use). Counted,
     not failed: lost samples (PERF_RECORD_LOST and LOST_SAMPLES),
     throttling, malformed records, ring desyncs (resumed at the kernel's
     head), a full sample array.

   REFERENCES

     Mytkowicz et al., Inferred call path profiling, OOPSLA 2009, sec. 6.3, 8.
     perf_event_open(2); kernel/events/ring_buffer.c (barrier pairing);
     include/uapi/linux/perf_event.h (record layouts); docs/pebs-notes-errata.md
     for what the research notes behind it got wrong, with the evidence.
*/
#ifndef CTXPROF_PEBS_H_INCLUDED
#define CTXPROF_PEBS_H_INCLUDED

#include "ctxprof.h"
#include "ctxprof_hcct.h" /* the end of the sample -> hot call paths pipeline */

#include <stddef.h>
#include <stdint.h>
#if defined(__linux__)
#if defined(__PERFMON_PERF_EVENT_H__) && !defined(_UAPI_LINUX_PERF_EVENT_H) &&                     \
    !defined(_LINUX_PERF_EVENT_H)
#error "ctxprof_pebs.h: include it (or <linux/perf_event.h>) before libpfm's headers"
#endif
#include <linux/perf_event.h>
#else
struct perf_event_attr;
#endif

/* Version of this header. A release's headers go together: this one
   refuses a ctxprof.h of another release. */
#define CTXPROF_PEBS_VERSION_MAJOR 0
#define CTXPROF_PEBS_VERSION_MINOR 1
#define CTXPROF_PEBS_VERSION_PATCH 0
#define CTXPROF_PEBS_VERSION_STRING "0.1.0"
#if CTXPROF_PEBS_VERSION_MAJOR != CTXPROF_VERSION_MAJOR ||                                        \
    CTXPROF_PEBS_VERSION_MINOR != CTXPROF_VERSION_MINOR ||                                        \
    CTXPROF_PEBS_VERSION_PATCH != CTXPROF_VERSION_PATCH
#error "ctxprof: ctxprof_pebs.h 0.1.0 needs the ctxprof.h of the same release: copy the headers of one release together"
#endif

#ifdef __cplusplus
extern "C" {
CTXPROF__CXX_QUIET_BEGIN
#endif

/* ==== pebs: declarations ==== */

/* Sampling levels, best first. 0 in a descriptor means "try in order". */
typedef enum ctxprof_pebs_level {
    CTXPROF_PEBS_AUTO = 0,
    CTXPROF_PEBS_LEVEL_PEBS = 1, /* Intel PEBS, precise_ip >= 1, REGS_INTR */
    CTXPROF_PEBS_LEVEL_HW = 2,   /* hardware cycles, non-precise, REGS_USER */
    CTXPROF_PEBS_LEVEL_SW = 3    /* software task-clock, REGS_USER */
} ctxprof_pebs_level;

/* How rings are consumed (see CONSUMPTION MODES above). */
typedef enum ctxprof_pebs_mode {
    CTXPROF_PEBS_READER = 0, /* internal reader thread with poll() (default) */
    CTXPROF_PEBS_MANUAL = 1, /* ctxprof_pebs_drain() and detach/close only */
    CTXPROF_PEBS_SIGNAL = 2  /* opt-in: a signal per sample or batch drains the thread ring */
} ctxprof_pebs_mode;

/* desc.flags */
#define CTXPROF_PEBS_TIME 0x1u      /* record perf timestamps (sample.time) */
#define CTXPROF_PEBS_CALLCHAIN 0x2u /* kernel frame-pointer callchain per sample (ground truth) */
#define CTXPROF_PEBS_KERNEL 0x4u    /* also sample in the kernel (paranoid <= 1 or CAP_PERFMON) */
#define CTXPROF_PEBS_NO_ENV 0x8u    /* ignore the CTXPROF_PEBS_LEVEL environment variable */

/* sample.flags */
#define CTXPROF_PEBS_SAMPLE_EXACT_IP 0x1u   /* the PMU marked the IP exact (precise_ip >= 2) */
#define CTXPROF_PEBS_SAMPLE_PRECISE 0x2u    /* ip/sp from the PEBS record (REGS_INTR) */
#define CTXPROF_PEBS_SAMPLE_SKID 0x4u       /* ip/sp of the interrupted user state (skid) */
#define CTXPROF_PEBS_SAMPLE_NO_REGS 0x8u    /* no registers (abi 0): ip = event_ip, sp = 0 */
#define CTXPROF_PEBS_SAMPLE_KERNEL 0x10u    /* the event fired in kernel mode */
#define CTXPROF_PEBS_SAMPLE_STACK_TOP 0x20u /* height from the stack-mapping top (no ICPP base) */

/* One sample. ip/sp/bp are one register state (see the level); height is the
   thread's stack base minus sp, the ICPP stack height, 0 when unknown: no
   base, or sp off the thread's stack (stats.off_stack; see attach). */
typedef struct ctxprof_pebs_sample {
    uint64_t ip;                /* program counter (from the register block) */
    uint64_t sp;                /* stack pointer, 0 with CTXPROF_PEBS_SAMPLE_NO_REGS */
    uint64_t bp;                /* frame pointer (x86 rbp, arm64 x29) */
    uint64_t height;            /* stack base - sp; 0 when the base is unknown or sp is off
                                   the thread's stack */
    uint64_t event_ip;          /* PERF_SAMPLE_IP (may be a kernel address with skid) */
    uint64_t time;              /* perf clock, ns, with CTXPROF_PEBS_TIME; else 0 */
    uint64_t period;            /* weight: events (hardware) or ns (software) per sample */
    const uint64_t *callchain;  /* with CTXPROF_PEBS_CALLCHAIN, only during on_sample */
    const unsigned char *stack; /* with desc.stack_bytes: user stack copy, only during on_sample */
    uint64_t stack_addr;        /* address of stack[0] (the user-mode SP) */
    uint32_t stack_size;        /* bytes in stack (up to desc.stack_bytes) */
    uint32_t callchain_nr;      /* entries in callchain (context markers included) */
    uint32_t pid, tid;          /* process and thread of the sample */
    uint16_t misc;              /* perf_event_header.misc */
    uint16_t flags;             /* CTXPROF_PEBS_SAMPLE_* */
} ctxprof_pebs_sample;

/* A sink called once per sample (see CONSUMPTION MODES for the thread); it
   must not call its own sampler's functions (they would deadlock). */
typedef void (*ctxprof_pebs_sample_fn)(void *user, const ctxprof_pebs_sample *s);

/* Configuration; zero means default everywhere. */
typedef struct ctxprof_pebs_desc {
    int level;            /* ctxprof_pebs_level; AUTO = env CTXPROF_PEBS_LEVEL, else in order */
    int mode;             /* ctxprof_pebs_mode; default CTXPROF_PEBS_READER */
    unsigned flags;       /* CTXPROF_PEBS_TIME | _CALLCHAIN | _KERNEL | _NO_ENV */
    const char *event;    /* NULL = "cycles"; "instructions", "task-clock", "cpu-clock",
                             "rHEX" (raw), or a libpfm4 name with CTXPROF_HAVE_LIBPFM (its
                             u/k/h privilege modifiers are overridden: user mode only unless
                             flags has CTXPROF_PEBS_KERNEL; a name libpfm cannot encode on
                             this machine fails the hardware levels like a PMU that refuses
                             it: task-clock stands in unless a hardware level is forced) */
    uint64_t period;      /* hardware levels: events per sample; default 1000003 */
    uint64_t period_ns;   /* software level: ns of thread CPU time per sample; default 1000000
                             (1 kHz: a software sample is a timer interrupt, 13-18 us each in
                             a VM, so ICPP's 3 kHz would cost ~5% there); below the kernel's
                             minimum of 10000 it is raised to 10000 (explain() says so) */
    int precise;          /* PEBS precise_ip 1..3; default 1 (PC and SP consistent) */
    unsigned ring_pages;  /* data pages per thread, a power of two up to 2^20; default 64
                             (256 KiB) */
    unsigned watermark;   /* reader wakeup after this many bytes; default ring/4 */
    unsigned max_threads; /* threads attached at once; default 256, at most 2^20 (each needs
                             a perf fd; open allocates a slot for each) */
    unsigned max_stack;   /* callchain depth with CTXPROF_PEBS_CALLCHAIN; default 127, max 192;
                             lowered at open to kernel.perf_event_max_stack (127 unless
                             raised; the kernel refuses deeper ones): pb.max_stack has the
                             depth in use, explain() says when it was lowered */
    unsigned stack_bytes; /* copy this many bytes of user stack above SP per sample (a multiple
                             of 8, at most 4096; 0 = none): frame words for partial walks */
    int signo;            /* CTXPROF_PEBS_SIGNAL: the signal; default SIGIO */
    ctxprof_pebs_sample_fn on_sample; /* sink 1: callback (may be NULL) */
    void *user;                       /* its first argument */
    ctxprof_pebs_sample *samples;     /* sink 2: caller's array (may be NULL; then
                                         samples_cap must be 0, and the other way round:
                                         else open fails with CTXPROF_ERR_INVAL). With
                                         neither sink samples are only counted (stats) */
    size_t samples_cap;               /* its capacity; samples beyond are counted */
    ctxprof_log_fn log;               /* optional: one line per fallback and warning */
    void *log_user;
    void *alloc_user; /* passed to CTXPROF_MALLOC/FREE */
} ctxprof_pebs_desc;

/* Counters, summed over all threads (live and detached). */
#define CTXPROF_PEBS_STATS_LIST(X)                                                                 \
    X(samples, "samples delivered to the sinks")                                                   \
    X(lost, "samples the kernel dropped for a full ring (PERF_RECORD_LOST)")                       \
    X(lost_samples, "samples the PMU dropped (PERF_RECORD_LOST_SAMPLES)")                          \
    X(kernel_lost, "lost samples counted by the kernel (read() with PERF_FORMAT_LOST)")            \
    X(throttles, "times the kernel throttled sampling (PERF_RECORD_THROTTLE)")                     \
    X(unthrottles, "times it resumed (PERF_RECORD_UNTHROTTLE)")                                    \
    X(desyncs, "ring reads that lost sync and resumed at the kernel's head")                       \
    X(bad_records, "sample records whose fields overran their size (skipped)")                     \
    X(other_records, "records of other types (skipped)")                                           \
    X(no_regs, "samples without a register block (abi 0)")                                         \
    X(off_stack, "samples with SP outside the thread's stack [low end, base]: height 0")           \
    X(array_full, "samples not stored because the sample array was full")                          \
    X(bytes, "ring bytes consumed")                                                                \
    X(drains, "ring reads that found data")                                                        \
    X(wakeups, "reader-thread or signal wakeups")                                                  \
    X(threads, "threads attached")                                                                 \
    X(threads_exited, "attached threads whose exit was seen")                                      \
    X(time_enabled, "ns the events were enabled, over detached threads")                           \
    X(time_running, "ns the events were counting, over detached threads")                          \
    X(never_ran, "detached threads whose event was enabled but never counted")                     \
    X(attach_failed, "attach calls that failed (but for threads that had exited)")

#define CTXPROF__PEBS_STATS_FIELD(name, text) uint64_t name;
typedef struct ctxprof_pebs_stats {
    CTXPROF_PEBS_STATS_LIST(CTXPROF__PEBS_STATS_FIELD)
} ctxprof_pebs_stats;
#undef CTXPROF__PEBS_STATS_FIELD

/* The sampler. Caller-owned; ctxprof_pebs_open() initialises every field.
   The explanation and the counters stay readable after close. */
typedef struct ctxprof_pebs {
    int level;           /* ctxprof_pebs_level in use after a successful open */
    unsigned max_stack;  /* callchain depth in use after a successful open (desc.max_stack,
                            lowered to kernel.perf_event_max_stack); 0 without callchains */
    ctxprof_error error; /* its most recent failure: open resets it, later successes (an
                            attach after a failed one, a drain) leave it */
    /* private: */
    struct ctxprof__pebs_impl *impl;      /* live state between open and close */
    char explain_text[768];               /* the probe's story (final one after close) */
    ctxprof_pebs_stats final_stats;       /* counters at close */
    const ctxprof_pebs_sample *final_arr; /* the caller's array, kept after close */
    size_t final_n;                       /* entries filled in it */
} ctxprof_pebs;

/* Probes the sampling level on the calling thread, allocates the per-thread
   slots and starts the reader thread. Attaches nothing. On failure pb->error
   and ctxprof_pebs_explain() say why (explain: each level's reason when no
   level works, else "ctxprof_pebs: open failed: " and the error, with what
   the probe had found); close is still safe. Not signal-safe.
   *pb may hold anything but an open sampler: open writes every field and
   reads none, so a handle never initialised, zeroed, closed or whose open
   failed is fine (as for ctxprof_icpp_sampler_init). On a handle open in
   this process (or inherited open through fork()) it fails with
   CTXPROF_ERR_INVAL, sets only pb->error and leaves the sampler running:
   close it first. An open handle must stay where it was opened (the
   registry of open samplers knows it by address): never copy or move it. */
CTXPROF_API int ctxprof_pebs_open(ctxprof_pebs *pb, const ctxprof_pebs_desc *desc);

/* Starts sampling thread tid of this process (0 = the calling thread) into
   its own ring. A tid of another process is refused (CTXPROF_ERR_INVAL),
   checked at the call (a thread that exits and whose id another process
   takes before the event opens is not caught). stack_base is the address heights are measured from; 0 =
   the thread's ICPP base (ctxprof_icpp_thread_base / _base_of_tid: the base
   training used). A thread that has no ICPP base yet (attached before its
   first instrumented function or ctxprof_icpp_thread_begin) is measured,
   until a read of its ring finds its ICPP base registered, from the top of
   its stack mapping when it attaches itself, those samples flagged
   CTXPROF_PEBS_SAMPLE_STACK_TOP (the paths pipeline ignores their heights),
   or not at all (height 0) when attached by id; from then on from the ICPP
   base, unflagged: each sample says which base its height used.
   The thread's stack is [low end, base]: the low end is that of the mapping
   holding the base (for the main thread's "[stack]", which grows on demand,
   the end of the mapping below it), found with the base, as ICPP's timer
   sampler finds it; 0 when the base is in no mapping. A sample whose SP is
   outside it, on another stack (a makecontext coroutine's, a sigaltstack)
   or above the base, has height 0, as the sampler's have no height: base -
   SP would span unmapped memory and resolve to a wrong path, and its stack
   copy is no part of the thread's stack. Counted in stats.off_stack.
   Attaching an attached thread is a no-op. Thread ids are reused, and the
   ring of an exited thread stays until the next drain (manual and signal
   modes) or the reader's next pass: a ring under tid whose thread has
   exited is not taken for the new thread's, but gets its final drain and
   is closed (counted in threads_exited), and tid is attached anew (an
   exited tid then fails, ESRCH in pb->error.sys_errno). Retries with a
   smaller ring when the locked-memory budget refuses the mapping. When
   desc.max_threads threads hold a slot, first reaps those that exited
   (final drain; counted in threads_exited), as ctxprof_pebs_drain() does,
   so slots are reused. */
CTXPROF_API int ctxprof_pebs_attach(ctxprof_pebs *pb, int tid, uint64_t stack_base);

/* Attaches every thread of the process (from /proc/self/task) except the
   reader; *out_n (may be NULL) gets how many were newly attached. In a pid
   namespace that kept its parent's /proc, /proc names threads by the
   parent's ids, which perf_event would take for others:
   CTXPROF_ERR_UNSUPPORTED (attach each thread itself, with tid 0). */
CTXPROF_API int ctxprof_pebs_attach_all(ctxprof_pebs *pb, size_t *out_n);

/* Stops sampling thread tid (0 = calling thread) after a final drain. */
CTXPROF_API int ctxprof_pebs_detach(ctxprof_pebs *pb, int tid);

/* Delivers every sample written so far to the sinks and returns when done
   (reader mode: asks the reader thread and waits). Reaps exited threads. */
CTXPROF_API int ctxprof_pebs_drain(ctxprof_pebs *pb);

/* Stops all sampling, drains every ring a last time, joins the reader and
   frees everything. Safe on a zeroed or failed object; idempotent. */
CTXPROF_API void ctxprof_pebs_close(ctxprof_pebs *pb);

/* Counters so far (live rings included). Samples count once read from
   their ring: by the reader thread at its wakeup (a quarter of the ring),
   by a drain, at a thread's exit or at close; call ctxprof_pebs_drain()
   first for an up-to-date count. */
CTXPROF_API void ctxprof_pebs_stats_get(const ctxprof_pebs *pb, ctxprof_pebs_stats *out);

/* The probe's story, one line: each level tried and why it failed or what
   it uses, plus warnings (smaller ring, lost samples, never-running event).
   Never NULL; valid until the next call on pb. */
CTXPROF_API const char *ctxprof_pebs_explain(const ctxprof_pebs *pb);

/* The caller's sample array and how many entries hold samples. */
CTXPROF_API const ctxprof_pebs_sample *ctxprof_pebs_samples(const ctxprof_pebs *pb, size_t *out_n);

/* Name of a level: "PEBS", "hardware", "software"; "auto" for 0. */
CTXPROF_API const char *ctxprof_pebs_level_name(int level);

/* ==== pebs: paths (sample -> CID -> call path -> weights) ==== */

#if defined(CTXPROF_ICPP_NO_HEIGHT) /* ctxprof.h has the ICPP API */

/* What the pipeline does with a CID that has several candidate paths. */
enum {
    CTXPROF_PEBS_AMBIG_SPLIT = 0,     /* weight shared by training counts (default) */
    CTXPROF_PEBS_AMBIG_LIKELIEST = 1, /* all to the candidate most seen in training */
    CTXPROF_PEBS_AMBIG_DROP = 2       /* counted only */
};

/* Where resolved paths go: funcs are map function ids, root first. */
typedef void (*ctxprof_pebs_path_fn)(void *user, const uint32_t *funcs, size_t n, uint64_t weight);

typedef struct ctxprof_pebs_paths_desc {
    const ctxprof_icpp_map *map;  /* path map, bound to this process (ctxprof_icpp_map_bind) */
    unsigned max_walk;            /* frames walked in the sample's stack copy when a CID is
                                     ambiguous (ICPP sec. 6.4; needs desc.stack_bytes); 0 = none */
    int ambiguous;                /* CTXPROF_PEBS_AMBIG_* */
    int unit_weight;              /* 1: each sample weighs 1; 0: its period (ns or events) */
    ctxprof_pebs_path_fn on_path; /* optional: every weighted path */
    void *user;
    void *alloc_user; /* passed to CTXPROF_MALLOC/FREE */
} ctxprof_pebs_paths_desc;

/* Counters of the pipeline (ICPP's sample kinds, sec. 9.2, and the check
   against the kernel's callchain when samples carry one). */
typedef struct ctxprof_pebs_paths_stats {
    uint64_t samples;   /* samples seen */
    uint64_t no_regs;   /* without registers */
    uint64_t outside;   /* PC in no function of the map */
    uint64_t nobase;    /* no stack base for the thread (or only STACK_TOP), or SP off its
                           stack (above the base, or another stack: sample.height 0) */
    uint64_t missing;   /* no trained path has the CID (the paper's missing) */
    uint64_t precise;   /* one path (after the walk, if any) */
    uint64_t ambiguous; /* several candidates remain */
    uint64_t walked;    /* samples that needed a walk */
    uint64_t frames;    /* frames walked in total */
    uint64_t weight;    /* total weight given to paths */
    uint64_t checked;   /* resolved samples with a usable callchain */
    uint64_t correct;   /* precise, and the path is the callchain's */
    uint64_t incorrect; /* precise, but the callchain says otherwise */
    uint64_t truth_in;  /* ambiguous, and the callchain's path is a candidate */
    uint64_t untrained; /* missing or ruled out, and the callchain's path is not in the
                           map at all */
    uint64_t ruled_out; /* the CID has paths, the walk ruled all out: the sample's path is
                           none of them (CTXPROF_ICPP_INCORRECT, the paper's incorrect) */
} ctxprof_pebs_paths_stats;

/* The pipeline; caller-owned. */
typedef struct ctxprof_pebs_paths {
    ctxprof_pebs_paths_desc d;
    ctxprof_pebs_paths_stats st;
    uint64_t *path_weight; /* weight per map path (map->paths entries) */
    /* private: */
    void *alloc_user;
} ctxprof_pebs_paths;

/* Prepares a pipeline for a bound map. Use ctxprof_pebs_paths_sample as the
   sampler's on_sample with the pipeline as user. Allocates (one counter per
   map path). */
CTXPROF_API int ctxprof_pebs_paths_init(ctxprof_pebs_paths *p, const ctxprof_pebs_paths_desc *d,
                                        ctxprof_error *err);
/* One sample through the pipeline (a ctxprof_pebs_sample_fn). Allocation-
   free; calls are serialized by the sampler (reader thread) except in
   signal mode, where one pipeline per thread is needed. */
CTXPROF_API void ctxprof_pebs_paths_sample(void *pipeline, const ctxprof_pebs_sample *s);
CTXPROF_API void ctxprof_pebs_paths_deinit(ctxprof_pebs_paths *p);

#define CTXPROF_PEBS_PATH_MAX 512 /* functions per path the pipeline handles */

#if defined(CTXPROF_HCCT_NAMED) /* ctxprof_hcct.h has the HCCT API */
/* The HCCT end: as paths desc.on_path with desc.user = the tree, every
   resolved path becomes a weighted ctxprof_hcct_add_path(). Routine ids are
   map function ids + 1; give the tree's desc.namer = ctxprof_pebs_paths_namer
   and namer_user = the map to print names. The tree belongs to the thread
   that runs the pipeline (the reader thread). */
CTXPROF_INLINE void ctxprof_pebs_paths_to_hcct(void *tree, const uint32_t *funcs, size_t n,
                                               uint64_t weight)
{
    uintptr_t r[CTXPROF_PEBS_PATH_MAX];
    size_t i;
    if (n > CTXPROF_PEBS_PATH_MAX)
        return;
    for (i = 0; i < n; i++)
        r[i] = (uintptr_t)funcs[i] + 1;
    ctxprof_hcct_add_path((ctxprof_hcct *)tree, r, NULL, n, weight);
}

/* Names HCCT routines made by ctxprof_pebs_paths_to_hcct (a ctxprof_hcct_namer). */
CTXPROF_INLINE const char *ctxprof_pebs_paths_namer(void *map, uintptr_t routine, char *buf,
                                                    size_t cap)
{
    (void)buf;
    (void)cap;
    if (routine == 0 || routine > (uintptr_t)UINT32_MAX)
        return NULL;
    return ctxprof_icpp_map_func_name((const ctxprof_icpp_map *)map, (uint32_t)(routine - 1));
}
#endif

/* ==== pebs: training (callchain samples -> path map) ====

   ICPP's path map (paper sec. 4.2) trained on the program as it runs in
   production, a plain build with frame pointers and no hooks: each sample
   carrying the kernel's callchain (CTXPROF_PEBS_CALLCHAIN) gives a call
   path (its return addresses mapped to functions) and the leaf's height
   (sample.height, against the thread's ICPP base). See TRAINING above. */

typedef struct ctxprof_pebs_train_desc {
    const ctxprof_symtab *symtab; /* required: PCs -> functions; kept until deinit */
    size_t max_nodes;             /* distinct call paths and their prefixes; default 65536 */
    size_t max_entries;           /* distinct (path, height, frame offset) entries; default 65536 */
    unsigned max_stack;           /* the sampler's depth, pb.max_stack after its open (default
                                     127): a callchain of that many frames may be cut short,
                                     its sample is dropped */
    uint64_t min_count;           /* map/save: entries with fewer samples are left out; default 1 */
    int all_objects;              /* 1: frames of every object; 0: the executable's functions only
                                     (what -finstrument-functions training sees) */
    void *alloc_user;             /* passed to CTXPROF_MALLOC/FREE */
} ctxprof_pebs_train_desc;

/* Why samples were used or not; filled by the sink (unsettled, folded and
   rare by ctxprof_pebs_train_map/_save). */
typedef struct ctxprof_pebs_train_stats {
    uint64_t samples;   /* samples seen */
    uint64_t used;      /* counted in the table */
    uint64_t no_chain;  /* no user callchain (flag off, or a kernel-only chain) */
    uint64_t nobase;    /* no ICPP base for the thread (or only STACK_TOP), or SP off its
                           stack (sample.height 0) */
    uint64_t outside;   /* leaf PC in no selected function */
    uint64_t mismatch;  /* the callchain's leaf is not the registers' function (PEBS) */
    uint64_t frameless; /* rbp no frame pointer (below SP or 1 MiB above) and no caller on
                           top; or the leaf's CFA rule (CFA = SP + 8k) says rbp is its
                           caller's but puts its return address past the stack copy (or
                           there is no copy), or rbp is below that CFA or 1 MiB above */
    uint64_t truncated; /* callchain max_stack frames long, or a path over CTXPROF_PEBS_PATH_MAX */
    uint64_t full;      /* dropped: the node or entry table is full */
    uint64_t guessed;   /* used, but no CFA rule known at the leaf's PC (no .eh_frame entry,
                           a CFA expression, or none read: cfa_funcs 0): its frame size,
                           and whether rbp was its caller's, guessed from rbp and the top
                           words of the stack copy */
    uint64_t unsettled; /* samples of entries left out: not the leaf's body frame offset,
                           and no exact CFA (guessed) to move them to the body's height */
    uint64_t folded;    /* samples at another frame offset than the body's, with an exact
                           CFA: counted at the body's height (height - offset + the body's
                           offset), as the profile side's CFA heights see them */
    uint64_t rare;      /* samples of entries left out by min_count */
} ctxprof_pebs_train_stats;

/* The training sink; caller-owned. */
typedef struct ctxprof_pebs_train {
    ctxprof_pebs_train_desc d;
    ctxprof_pebs_train_stats st;
    size_t nodes, entries; /* table entries in use */
    size_t cfa_funcs;      /* recorded functions (symbols) with a CFA rule at their entry,
                              read from .eh_frame at init; 0: none could be read (no
                              PT_GNU_EH_FRAME, out of memory), every frame is guessed */
    /* private: */
    uintptr_t *nfunc;           /* node -> function id (node 0: the root) */
    uint32_t *nparent;          /* node -> parent node */
    uint32_t *nslots;           /* (parent, function) -> node + 1 */
    uint32_t *enode, *eoff;     /* entry -> node, frame offset (CFA - SP) */
    uint64_t *eheight, *ecount; /* ecount: samples with the path's leaf running */
    uint64_t *eexact;           /* of those, samples whose CFA the leaf's rule gave */
    uint64_t *eseen;            /* samples with the path on the stack as a caller */
    uint32_t *eslots;           /* (node, height, offset) -> entry + 1 */
    size_t nmask, emask;
    struct ctxprof__icpp_cfa *cfa; /* CFA rules of the recorded functions, by pc */
    size_t ncfa;
} ctxprof_pebs_train;

/* Prepares a training sink. Allocates its bounded tables once, and reads
   the CFA rules of the functions it records (.eh_frame of the loaded
   objects; none when that fails: t->cfa_funcs 0, not an error); nothing
   else allocates until map/save. */
CTXPROF_API int ctxprof_pebs_train_init(ctxprof_pebs_train *t, const ctxprof_pebs_train_desc *d,
                                        ctxprof_error *err);
/* One sample (a ctxprof_pebs_sample_fn with the sink as user): counts its
   (call path, leaf height, frame offset). The leaf's CFA rule at its PC
   (read at init) says where its frame is: set up (rbp + 16), or not yet
   (SP + 8k: the return address, the caller the kernel's chain lacks, is
   the stack copy's k-th word); where no rule is known, rbp and the copy's
   top words guess (counted as guessed). Allocation-free (a binary search
   in the rules), async-signal-safe; calls must be serialized (one sink
   per thread in signal mode). */
CTXPROF_API void ctxprof_pebs_train_sample(void *train, const ctxprof_pebs_sample *s);
/* The trained path map (replacing *out; bind it before resolving). Per leaf
   function only the entries at its body's frame offset (the most sampled
   one) are kept, with the samples at another offset whose CFA was exact
   moved to the body's height, and with at least min_count samples (after
   that move). Allocates. Fails
   (CTXPROF_ERR_INVAL, the counts of why in err) when samples came but
   none trained a path: e.g. a stripped binary, whose PCs are in no
   function of the symbol table; *out is then left alone. */
CTXPROF_API int ctxprof_pebs_train_map(ctxprof_pebs_train *t, ctxprof_icpp_map *out,
                                       ctxprof_error *err);
/* The same, written as a ctxprof-paths file ("-" = stdout; atomic replace);
   nothing is written when the map fails. */
CTXPROF_API int ctxprof_pebs_train_save(ctxprof_pebs_train *t, const char *path,
                                        ctxprof_error *err);
CTXPROF_API void ctxprof_pebs_train_deinit(ctxprof_pebs_train *t);

#endif /* ICPP */

/* Fills type, config (config1/2) and, for libpfm names with modifiers,
   precise_ip, sample_period and the exclude bits of *attr from an event
   name (see desc.event). Other fields are left alone. Without libpfm a
   libpfm-style name fails with a message saying how to enable it. */
CTXPROF_API int ctxprof_pebs_encode_event(const char *name, struct perf_event_attr *attr,
                                          ctxprof_error *err);

#ifdef __cplusplus
CTXPROF__CXX_QUIET_END
}
#endif

#endif /* CTXPROF_PEBS_H_INCLUDED */

/* ======================================================================== */
/*                              IMPLEMENTATION                              */
/* ======================================================================== */

#if (defined(CTXPROF_IMPLEMENTATION) || defined(CTXPROF_PEBS_IMPLEMENTATION)) &&                   \
    !defined(CTXPROF__PEBS_IMPL_DONE)
#define CTXPROF__PEBS_IMPL_DONE

#include "ctxprof.h" /* emits the core implementation here if it is still missing */
#if !defined(CTXPROF__CORE_IMPL_DONE)
#error                                                                                             \
    "ctxprof_pebs.h: its implementation uses the core's private helpers: define CTXPROF_IMPLEMENTATION (or CTXPROF_CORE_IMPLEMENTATION too) in this TU"
#endif

#if defined(CTXPROF_HAVE_LIBPFM) || defined(CTXPROF_PEBS_WITH_LIBPFM)
#define CTXPROF__PEBS_LIBPFM 1
#endif

#if defined(__linux__)

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
/* syscall() is hidden by strict POSIX modes of glibc and musl; the
   prototype is fixed. (libpfm's header calls it too, so this comes first.) */
#if !defined(__cplusplus) && !defined(__USE_MISC)
extern long int syscall(long int sysno, ...);
#endif
#if defined(CTXPROF__PEBS_LIBPFM)
#include <perfmon/pfmlib_perf_event.h>
#endif

#ifdef __cplusplus
extern "C" {
CTXPROF__CXX_QUIET_BEGIN
#endif

/* ==== pebs: implementation ==== */

/* Constants newer than some distributions' headers, and the GNU-only fcntl
   commands (same values on every Linux architecture). */
#define CTXPROF__PEBS_FORMAT_LOST (1u << 4)   /* PERF_FORMAT_LOST, 6.0+ */
#define CTXPROF__PEBS_RECORD_LOST_SAMPLES 13u /* PERF_RECORD_LOST_SAMPLES */
#define CTXPROF__PEBS_F_SETSIG 10             /* F_SETSIG */
#define CTXPROF__PEBS_F_SETOWN_EX 15          /* F_SETOWN_EX */
#define CTXPROF__PEBS_F_OWNER_TID 0           /* F_OWNER_TID */
struct ctxprof__pebs_owner {                  /* struct f_owner_ex */
    int type;
    int pid;
};

/* Register numbers of the sample_regs_* masks (asm/perf_regs.h). Samples
   carry the masked registers in ascending bit order. */
#if defined(__x86_64__) || defined(__i386__)
#define CTXPROF__PEBS_X86 1
#define CTXPROF__PEBS_REG_BP 6 /* PERF_REG_X86_BP */
#define CTXPROF__PEBS_REG_SP 7 /* PERF_REG_X86_SP */
#define CTXPROF__PEBS_REG_IP 8 /* PERF_REG_X86_IP */
#elif defined(__aarch64__)
#define CTXPROF__PEBS_REG_BP 29 /* PERF_REG_ARM64_X29 (frame pointer) */
#define CTXPROF__PEBS_REG_SP 31 /* PERF_REG_ARM64_SP */
#define CTXPROF__PEBS_REG_IP 32 /* PERF_REG_ARM64_PC */
#endif
#if defined(CTXPROF__PEBS_REG_SP)
#define CTXPROF__PEBS_REGS                                                                         \
    ((1ull << CTXPROF__PEBS_REG_BP) | (1ull << CTXPROF__PEBS_REG_SP) |                             \
     (1ull << CTXPROF__PEBS_REG_IP))
#else
#define CTXPROF__PEBS_REGS 0ull /* no known layout: open() reports UNSUPPORTED */
#endif

/* Sample fields this reader decodes, in the kernel's output order (not the
   bit order; perf_output_sample() in kernel/events/core.c). */
#define CTXPROF__PEBS_SUPPORTED                                                                    \
    (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |                \
     PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |                 \
     PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER | \
     PERF_SAMPLE_REGS_INTR)

/* Largest record copied out of the ring when it straddles the end: every
   field above with a callchain of CTXPROF__PEBS_MAX_STACK frames plus its
   context markers, two register blocks of 64 registers and a user stack
   copy of CTXPROF__PEBS_MAX_STACK_BYTES fit (7 KiB of the drainer's stack). */
#define CTXPROF__PEBS_MAX_STACK 192u
#define CTXPROF__PEBS_MAX_STACK_BYTES 4096u
#define CTXPROF__PEBS_SCRATCH_WORDS (400u + CTXPROF__PEBS_MAX_STACK_BYTES / 8u)

/* desc.ring_pages: 4 GiB of 4 KiB pages; ring/4, the default watermark, fits 32 bits */
#define CTXPROF__PEBS_MAX_RING_PAGES (1u << 20)
/* desc.max_threads: fs.nr_open's default, the most fds a process may hold; a
   thread needs one, and open zero-fills a slot per thread (~300 MiB at this) */
#define CTXPROF__PEBS_MAX_THREADS (1u << 20)

/* The shortest software period the kernel honours, ns: perf_swevent_init_hrtimer()
   and perf_swevent_hrtimer() (kernel/events/core.c) use max(10000, period). */
#define CTXPROF__PEBS_MIN_NS 10000u

/* Signal mode: the shortest interval between two signals to a thread, ns of
   its CPU time. The kernel raises the fasync signal at every overflow
   (__perf_event_overflow() ignores wakeup_events and watermark for it), and
   a signal costs 2-25 us: one per sample at 10 us kept a thread in its
   handler for good. Shorter periods (and hardware levels, whose period is
   in events) get a per-thread ticker: a task-clock event of this period,
   without ring, that raises the signal instead; its handler drains the
   batch of samples the ring gathered meanwhile. At most 1000 signals per
   second of CPU time: 25 us each is 2.5%. */
#define CTXPROF__PEBS_SIG_TICK_NS 1000000u

enum {
    CTXPROF__PEBS_FREE = 0,   /* slot unused */
    CTXPROF__PEBS_ACTIVE = 1, /* ring mapped and enabled */
    CTXPROF__PEBS_DETACH = 2  /* reader mode: detach requested, the reader closes it */
};

/* How samples of the chosen level are laid out and interpreted. */
typedef struct ctxprof__pebs_fmt {
    uint64_t sample_type;
    uint64_t regs_user, regs_intr; /* sample_regs_user / sample_regs_intr */
    unsigned nregs_user, nregs_intr;
    int use_intr;               /* ip/sp from REGS_INTR (PEBS) instead of REGS_USER */
    int ip_idx, sp_idx, bp_idx; /* register positions in the chosen block, -1 absent */
    int user_sp_idx;            /* SP in the REGS_USER block (anchors STACK_USER), -1 absent */
    uint16_t sflags;            /* CTXPROF_PEBS_SAMPLE_* every sample of the level has */
    uint64_t period;            /* sample.period */
} ctxprof__pebs_fmt;

/* Where samples go. */
typedef struct ctxprof__pebs_sink {
    ctxprof_pebs_sample_fn fn;
    void *user;
    ctxprof_pebs_sample *arr;
    size_t cap;
    size_t *len; /* atomic: entries claimed (may exceed cap; the excess is counted) */
} ctxprof__pebs_sink;

/* One thread's event and ring. The consumer that holds `busy` is the only
   reader of the ring and the only writer of data_tail. */
typedef struct ctxprof__pebs_ring {
    int fd;
    int tick_fd; /* signal mode: the ticker event that raises the signal, or -1 */
    int state;   /* CTXPROF__PEBS_*, atomic */
    int busy;    /* atomic consumer flag */
    int tid;
    uint64_t stack_base;
    uint64_t stack_lo; /* low end of the thread's stack (ctxprof__pebs_stack_lo), 0 unknown:
                          SP outside [stack_lo, stack_base] gets no height (off_stack) */
    int base_pending;  /* waiting for the thread's ICPP base; a nonzero stack_base
                          meanwhile is the stack-mapping top (samples flagged STACK_TOP) */
    unsigned char *map;
    size_t map_len;
    struct perf_event_mmap_page *meta;
    unsigned char *data; /* data area: size bytes, a power of two */
    uint64_t size, mask;
    unsigned pages;
    ctxprof_pebs_stats st; /* this ring's counters (relaxed atomic adds) */
} ctxprof__pebs_ring;

struct ctxprof__pebs_impl {
    ctxprof_pebs_desc d; /* the descriptor with defaults filled in */
    int level;
    struct perf_event_attr attr; /* template of the chosen level */
    ctxprof__pebs_fmt fmt;
    uint64_t asked_ns; /* desc.period_ns when raised to the kernel's minimum, else 0 */
    unsigned asked_stack; /* desc.max_stack when lowered to kernel.perf_event_max_stack, else 0 */
    uint64_t tick_ns;  /* signal mode: ticker period (ns of thread CPU time), 0 = none */
    ctxprof__pebs_sink sink;
    size_t nsamples;
    ctxprof__pebs_ring *rings;
    unsigned nrings;
    unsigned min_pages_used; /* smallest ring after budget retries, 0 = none reduced */
    struct pollfd *pfd;
    unsigned *pidx;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int sync_init;
    int efd;
    pthread_t reader;
    int reader_started;
    int reader_tid;
    int stop;
    uint64_t drain_req, drain_done;
    ctxprof_pebs_stats closed; /* counters of closed rings, failed attaches (under mu) */
    char attach_err[200];      /* why the last failed attach failed */
    pid_t owner;               /* getpid() at open: another pid is a forked child */
    int forked;                /* set in the child by the atfork handler */
    int sig_installed;
    struct sigaction old_sa;
    char probe[512];       /* per-level story of the probe */
    char fail_name[4][40]; /* the levels that failed, in probe order, */
    char fail_why[4][240]; /* and why: "no level works" merges equal reasons */
    unsigned nfail;
    char text[768];                  /* explain() output while open */
    const ctxprof_pebs *pb;          /* the handle it was opened in */
    struct ctxprof__pebs_impl *next; /* fork registry */
};

/* ---- pebs: small helpers ---- */

CTXPROF__PRIV int ctxprof__pebs_gettid(void)
{
    return (int)syscall(SYS_gettid);
}

CTXPROF__PRIV unsigned ctxprof__pebs_popcount(uint64_t x)
{
    unsigned n = 0;
    while (x) {
        x &= x - 1;
        n++;
    }
    return n;
}

/* Reads the first integer of a small file (sysctls, sysfs); 0 on success. */
CTXPROF__PRIV int ctxprof__pebs_read_long(const char *path, long *out)
{
    char buf[64];
    ssize_t n;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    return sscanf(buf, "%ld", out) == 1 ? 0 : -1;
}

/* The deepest callchain the kernel gives, kernel.perf_event_max_stack (read
   from path): deeper sample_max_stack fails perf_event_open with EOVERFLOW
   (get_callchain_buffers()). 127, the kernel's default, when unreadable. */
CTXPROF__PRIV unsigned ctxprof__pebs_max_stack_limit(const char *path)
{
    long v;
    if (ctxprof__pebs_read_long(path, &v) != 0 || v < 0)
        return 127;
    return v > 65535 ? 65535u : (unsigned)v;
}

/* The Seccomp: mode of this process (0 none, 1 strict, 2 filter), -1 unknown. */
CTXPROF__PRIV int ctxprof__pebs_seccomp_mode(void)
{
    char buf[4096];
    const char *s;
    ssize_t n, len = 0;
    int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    while (len < (ssize_t)sizeof buf - 1 &&
           (n = read(fd, buf + len, sizeof buf - 1 - (size_t)len)) > 0)
        len += n;
    close(fd);
    buf[len] = '\0';
    s = strstr(buf, "\nSeccomp:");
    if (!s)
        return -1;
    return atoi(s + 9);
}

/* Whether a hardware PMU driver is registered (x86 "cpu", hybrid
   "cpu_core"/"cpu_atom", arm "armv8_..."/"armv7_..."). */
CTXPROF__PRIV int ctxprof__pebs_have_pmu(void)
{
    DIR *dir = opendir("/sys/bus/event_source/devices");
    struct dirent *e;
    int found = 0;
    if (!dir)
        return -1;
    while ((e = readdir(dir)) != NULL) {
        const char *n = e->d_name;
        if (strcmp(n, "cpu") == 0 || strncmp(n, "cpu_", 4) == 0 || strncmp(n, "armv", 4) == 0)
            found = 1;
    }
    closedir(dir);
    return found;
}

#if defined(CTXPROF__PEBS_X86)
/* CPUID vendor check: PEBS is Intel's; AMD's precise mode (IBS) reports an
   interrupt-time SP with a precise IP, which breaks the ICPP pair. */
CTXPROF__PRIV int ctxprof__pebs_is_intel(void)
{
    unsigned a = 0, b, c, d;
    __asm__ __volatile__("cpuid" : "+a"(a), "=b"(b), "=c"(c), "=d"(d));
    return b == 0x756e6547u && d == 0x49656e69u && c == 0x6c65746eu; /* "Genu" "ineI" "ntel" */
}
#endif

CTXPROF__PRIV const char *ctxprof__pebs_errname(int e)
{
    static const struct {
        int e;
        const char *name;
    } tab[] = {{EPERM, "EPERM"},   {ENOENT, "ENOENT"},       {ESRCH, "ESRCH"},
               {EINTR, "EINTR"},   {E2BIG, "E2BIG"},         {EBADF, "EBADF"},
               {ENOMEM, "ENOMEM"}, {EACCES, "EACCES"},       {EFAULT, "EFAULT"},
               {EBUSY, "EBUSY"},   {ENODEV, "ENODEV"},       {EINVAL, "EINVAL"},
               {ENFILE, "ENFILE"}, {EMFILE, "EMFILE"},       {ENOSPC, "ENOSPC"},
               {ENOSYS, "ENOSYS"}, {EOVERFLOW, "EOVERFLOW"}, {EOPNOTSUPP, "EOPNOTSUPP"}};
    size_t i;
    for (i = 0; i < sizeof tab / sizeof tab[0]; i++)
        if (tab[i].e == e)
            return tab[i].name;
    return "errno";
}

/* What a failure message needs to know about the system; gathered once per
   failure so the message texts are testable with any values. */
typedef struct ctxprof__pebs_facts {
    long paranoid;             /* kernel.perf_event_paranoid, -100 unknown */
    int seccomp;               /* Seccomp: of /proc/self/status, -1 unknown */
    int have_pmu;              /* hardware PMU registered: 1, 0, -1 unknown */
    unsigned long long nofile; /* RLIMIT_NOFILE soft limit */
    int kernel;                /* CTXPROF_PEBS_KERNEL was asked for */
} ctxprof__pebs_facts;

CTXPROF__PRIV void ctxprof__pebs_facts_get(ctxprof__pebs_facts *f, int kernel)
{
    struct rlimit rl;
    long v;
    f->paranoid =
        ctxprof__pebs_read_long("/proc/sys/kernel/perf_event_paranoid", &v) == 0 ? v : -100;
    f->seccomp = ctxprof__pebs_seccomp_mode();
    f->have_pmu = ctxprof__pebs_have_pmu();
    f->nofile = getrlimit(RLIMIT_NOFILE, &rl) == 0 ? (unsigned long long)rl.rlim_cur : 0;
    f->kernel = kernel;
}

/* Whether an open failure with errno e stops the whole probe (it would fail
   the same way at every level) rather than moving to the next level. */
CTXPROF__PRIV int ctxprof__pebs_errno_global(int e)
{
    return e == EACCES || e == EPERM || e == ENOSYS || e == EMFILE || e == ENFILE || e == ENOMEM;
}

/* One-line cause of a failed perf_event_open for explain() and pb->error.
   hw: the event was a hardware one. Returns buf. */
CTXPROF__PRIV const char *ctxprof__pebs_reason(char *buf, size_t n, int e, int hw,
                                               const ctxprof__pebs_facts *f)
{
    const char *en = ctxprof__pebs_errname(e);
    switch (e) {
    case ENOENT:
    case ENODEV:
    case EOPNOTSUPP:
        if (hw && f->have_pmu == 0)
            snprintf(buf, n, "no hardware PMU (%s)", en);
        else
            snprintf(buf, n, "event not supported by this PMU (%s)", en);
        break;
    case EINVAL:
        snprintf(buf, n, "attributes refused by this PMU or kernel (EINVAL)");
        break;
    case E2BIG:
        snprintf(buf, n, "kernel older than these headers (E2BIG)");
        break;
    case EOVERFLOW:
        snprintf(buf, n,
                 "callchain depth (desc.max_stack) above kernel.perf_event_max_stack (EOVERFLOW)");
        break;
    case EACCES:
        if (f->kernel && f->paranoid >= 2)
            snprintf(buf, n,
                     "kernel samples (CTXPROF_PEBS_KERNEL) need kernel.perf_event_paranoid <= 1, "
                     "it is %ld, or CAP_PERFMON (EACCES)",
                     f->paranoid);
        else if (f->paranoid >= 3)
            snprintf(buf, n,
                     "kernel.perf_event_paranoid=%ld forbids unprivileged perf_event_open; "
                     "sysctl kernel.perf_event_paranoid=2 suffices, or CAP_SYS_ADMIN (EACCES)",
                     f->paranoid);
        else if (f->seccomp > 0 && f->paranoid != -100)
            snprintf(buf, n,
                     "denied although kernel.perf_event_paranoid=%ld allows it: a seccomp filter "
                     "(Seccomp: %d in /proc/self/status) or an LSM (EACCES)",
                     f->paranoid, f->seccomp);
        else
            snprintf(buf, n,
                     "denied at kernel.perf_event_paranoid=%ld: an LSM, or a thread of another "
                     "user (EACCES)",
                     f->paranoid);
        break;
    case EPERM:
        if (f->seccomp > 0)
            snprintf(buf, n,
                     "perf_event_open blocked by seccomp (Seccomp: %d in /proc/self/status); "
                     "allow it in the sandbox's seccomp profile (EPERM)",
                     f->seccomp);
        else
            snprintf(buf, n, "perf_event_open refused by an LSM or kernel lockdown (EPERM)");
        break;
    case ENOSYS:
        /* the sysctl exists: the kernel has perf events, the filter said no */
        if (f->seccomp > 0 && f->paranoid != -100)
            snprintf(buf, n,
                     "perf_event_open blocked by seccomp (Seccomp: %d in /proc/self/status); "
                     "allow it in the sandbox's seccomp profile (ENOSYS)",
                     f->seccomp);
        else
            snprintf(buf, n,
                     "perf_event_open not available: kernel without CONFIG_PERF_EVENTS "
                     "or a sandbox without the syscall (ENOSYS)");
        break;
    case EMFILE:
    case ENFILE:
        snprintf(buf, n, "out of file descriptors, one per sampled thread (%s, RLIMIT_NOFILE=%llu)",
                 en, f->nofile);
        break;
    case ESRCH:
        snprintf(buf, n, "no such thread (ESRCH)");
        break;
    case EBUSY:
        snprintf(buf, n, "PMU busy: another user holds the counters exclusively (EBUSY)");
        break;
    default:
        snprintf(buf, n, "perf_event_open failed (%s %d)", en, e);
        break;
    }
    return buf;
}

/* ctxprof__fail for texts that may exceed err->detail (200 bytes): a
   text too long is cut at its last "; " clause that fits (else at a space)
   and says where the rest is, rather than ending mid-word. */
CTXPROF__PRIV CTXPROF__PRINTF(3, 4) int ctxprof__pebs_fail_fit(ctxprof_error *err, int status,
                                                               const char *fmt, ...)
{
    static const char more[] = " ... (more in ctxprof_pebs_explain())";
    char big[1024];
    size_t len, cut = 0, i;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(big, sizeof big, fmt, ap);
    va_end(ap);
    len = strlen(big);
    if (len >= sizeof err->detail) {
        /* the last "; " (kept: "...(E2); ...") that leaves room, else a space */
        for (i = 0; i + sizeof more < sizeof err->detail && i < len; i++)
            if (big[i] == ';' && big[i + 1] == ' ')
                cut = i + 1;
        for (i = 0; cut == 0 && i + sizeof more <= sizeof err->detail && i < len; i++)
            if (big[i] == ' ')
                cut = i;
        snprintf(big + cut, sizeof big - cut, "%s", more);
    }
    return ctxprof__fail(err, status, 0, "%s", big);
}

/* Appends to a fixed buffer, truncating; never overflows. */
CTXPROF__PRIV CTXPROF__PRINTF(3, 4) void ctxprof__pebs_cat(char *buf, size_t n, const char *fmt,
                                                           ...)
{
    size_t len = strlen(buf);
    va_list ap;
    if (len + 1 >= n)
        return;
    va_start(ap, fmt);
    vsnprintf(buf + len, n - len, fmt, ap);
    va_end(ap);
}

CTXPROF__PRIV void ctxprof__pebs_log(const struct ctxprof__pebs_impl *I, int level, const char *msg)
{
    if (I && I->d.log)
        I->d.log(I->d.log_user, level, msg);
}

/* ---- pebs: statistics ---- */

#define CTXPROF__PEBS_STAT_ADD(name, text)                                                         \
    if (src->name)                                                                                 \
        __atomic_fetch_add(&dst->name, src->name, __ATOMIC_RELAXED);
/* dst += src, atomically per field (dst is read concurrently by stats). */
CTXPROF__PRIV void ctxprof__pebs_stats_add(ctxprof_pebs_stats *dst, const ctxprof_pebs_stats *src){
    CTXPROF_PEBS_STATS_LIST(CTXPROF__PEBS_STAT_ADD)}
#undef CTXPROF__PEBS_STAT_ADD

#define CTXPROF__PEBS_STAT_LOAD(name, text)                                                        \
    dst->name += __atomic_load_n(&src->name, __ATOMIC_RELAXED);
CTXPROF__PRIV void ctxprof__pebs_stats_load(ctxprof_pebs_stats *dst, const ctxprof_pebs_stats *src)
{
    CTXPROF_PEBS_STATS_LIST(CTXPROF__PEBS_STAT_LOAD)
}
#undef CTXPROF__PEBS_STAT_LOAD

/* ---- pebs: record parsing ----

   PERF_RECORD_SAMPLE body, in the order the kernel writes it, for the
   fields this reader accepts (include/uapi/linux/perf_event.h):

     { u64 id;          } IDENTIFIER      { u64 stream_id;   } STREAM_ID
     { u64 ip;          } IP              { u32 cpu, res;    } CPU
     { u32 pid, tid;    } TID             { u64 period;      } PERIOD
     { u64 time;        } TIME            { u64 nr; u64 ips[nr]; } CALLCHAIN
     { u64 addr;        } ADDR            { u64 abi; u64 regs[weight(mask)]; } REGS_USER
     { u64 id;          } ID              { u64 size; char data[size];
                                            u64 dyn_size (if size); } STACK_USER
                                          { u64 abi; u64 regs[weight(mask)]; } REGS_INTR

   A register block has no registers at all when abi == 0 (kernel thread,
   or no user state). Every field is checked against the record size. */

/* Sets up f for a sample_type and register masks; -1 if a bit cannot be
   decoded or the chosen block lacks IP or SP. */
CTXPROF__PRIV int ctxprof__pebs_fmt_init(ctxprof__pebs_fmt *f, uint64_t sample_type,
                                         uint64_t regs_user, uint64_t regs_intr, int use_intr)
{
    uint64_t mask = use_intr ? regs_intr : regs_user;
    memset(f, 0, sizeof *f);
    if (sample_type & ~(uint64_t)CTXPROF__PEBS_SUPPORTED)
        return -1;
    if (!(sample_type & (use_intr ? PERF_SAMPLE_REGS_INTR : PERF_SAMPLE_REGS_USER)))
        return -1;
    f->sample_type = sample_type;
    f->regs_user = (sample_type & PERF_SAMPLE_REGS_USER) ? regs_user : 0;
    f->regs_intr = (sample_type & PERF_SAMPLE_REGS_INTR) ? regs_intr : 0;
    f->nregs_user = ctxprof__pebs_popcount(f->regs_user);
    f->nregs_intr = ctxprof__pebs_popcount(f->regs_intr);
    f->use_intr = use_intr;
    f->user_sp_idx = -1;
#if defined(CTXPROF__PEBS_REG_SP)
    if (!(mask >> CTXPROF__PEBS_REG_SP & 1) || !(mask >> CTXPROF__PEBS_REG_IP & 1))
        return -1;
    if (f->regs_user >> CTXPROF__PEBS_REG_SP & 1)
        f->user_sp_idx =
            (int)ctxprof__pebs_popcount(f->regs_user & ((1ull << CTXPROF__PEBS_REG_SP) - 1));
    if ((sample_type & PERF_SAMPLE_STACK_USER) && f->user_sp_idx < 0)
        return -1; /* a stack copy is useless without the SP it starts at */
    f->sp_idx = (int)ctxprof__pebs_popcount(mask & ((1ull << CTXPROF__PEBS_REG_SP) - 1));
    f->ip_idx = (int)ctxprof__pebs_popcount(mask & ((1ull << CTXPROF__PEBS_REG_IP) - 1));
    f->bp_idx = (mask >> CTXPROF__PEBS_REG_BP & 1)
                    ? (int)ctxprof__pebs_popcount(mask & ((1ull << CTXPROF__PEBS_REG_BP) - 1))
                    : -1;
    return 0;
#else
    (void)mask;
    return -1;
#endif
}

CTXPROF__PRIV uint64_t ctxprof__pebs_word(const unsigned char *rec, size_t i)
{
    uint64_t w;
    memcpy(&w, rec + 8 * i, sizeof w);
    return w;
}

/* Decodes one PERF_RECORD_SAMPLE of size bytes (header included, 8-byte
   aligned) into *s. Returns 0, or -1 when a field runs past the record. */
CTXPROF__PRIV int ctxprof__pebs_parse(const ctxprof__pebs_fmt *f, const unsigned char *rec,
                                      size_t size, ctxprof_pebs_sample *s)
{
    const uint64_t st = f->sample_type;
    const size_t n = size / 8;
    size_t i = 1, user = 0, intr = 0, blk;
    struct perf_event_header h;
    uint32_t u32[2];
    memcpy(&h, rec, sizeof h);
    memset(s, 0, sizeof *s);
    s->misc = h.misc;
    s->period = f->period;
#define CTXPROF__PEBS_NEED(k)                                                                      \
    do {                                                                                           \
        if (n - i < (size_t)(k))                                                                   \
            return -1;                                                                             \
    } while (0)
    if (st & PERF_SAMPLE_IDENTIFIER) {
        CTXPROF__PEBS_NEED(1);
        i++;
    }
    if (st & PERF_SAMPLE_IP) {
        CTXPROF__PEBS_NEED(1);
        s->event_ip = ctxprof__pebs_word(rec, i++);
    }
    if (st & PERF_SAMPLE_TID) {
        CTXPROF__PEBS_NEED(1);
        memcpy(u32, rec + 8 * i++, sizeof u32);
        s->pid = u32[0];
        s->tid = u32[1];
    }
    if (st & PERF_SAMPLE_TIME) {
        CTXPROF__PEBS_NEED(1);
        s->time = ctxprof__pebs_word(rec, i++);
    }
    { /* ADDR, ID, STREAM_ID, CPU: one word each, not used */
        size_t skip = ctxprof__pebs_popcount(
            st & (PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU));
        CTXPROF__PEBS_NEED(skip);
        i += skip;
    }
    if (st & PERF_SAMPLE_PERIOD) {
        CTXPROF__PEBS_NEED(1);
        s->period = ctxprof__pebs_word(rec, i++);
    }
    if (st & PERF_SAMPLE_CALLCHAIN) {
        uint64_t nr;
        CTXPROF__PEBS_NEED(1);
        nr = ctxprof__pebs_word(rec, i++);
        if (nr > n - i || nr > UINT32_MAX)
            return -1;
        s->callchain_nr = (uint32_t)nr;
        s->callchain = nr ? (const uint64_t *)(const void *)(rec + 8 * i) : NULL;
        i += (size_t)nr;
    }
    if (st & PERF_SAMPLE_REGS_USER) {
        CTXPROF__PEBS_NEED(1);
        if (ctxprof__pebs_word(rec, i++)) {
            CTXPROF__PEBS_NEED(f->nregs_user);
            user = i;
            i += f->nregs_user;
        }
    }
    if (st & PERF_SAMPLE_STACK_USER) {
        uint64_t ssize, dyn;
        CTXPROF__PEBS_NEED(1);
        ssize = ctxprof__pebs_word(rec, i++);
        if (ssize) {
            if ((ssize & 7) != 0 || ssize / 8 > n - i || n - i - (size_t)(ssize / 8) < 1)
                return -1;
            dyn = ctxprof__pebs_word(rec, i + (size_t)(ssize / 8));
            if (dyn > ssize)
                return -1;
            if (dyn && user) {
                s->stack = rec + 8 * i;
                s->stack_size = (uint32_t)dyn;
                s->stack_addr = ctxprof__pebs_word(rec, user + (size_t)f->user_sp_idx);
            }
            i += (size_t)(ssize / 8) + 1;
        }
    }
    if (st & PERF_SAMPLE_REGS_INTR) {
        CTXPROF__PEBS_NEED(1);
        if (ctxprof__pebs_word(rec, i++)) {
            CTXPROF__PEBS_NEED(f->nregs_intr);
            intr = i;
            i += f->nregs_intr;
        }
    }
#undef CTXPROF__PEBS_NEED
    blk = f->use_intr ? intr : user;
    if (blk) {
        s->ip = ctxprof__pebs_word(rec, blk + (size_t)f->ip_idx);
        s->sp = ctxprof__pebs_word(rec, blk + (size_t)f->sp_idx);
        if (f->bp_idx >= 0)
            s->bp = ctxprof__pebs_word(rec, blk + (size_t)f->bp_idx);
        s->flags = f->sflags;
    } else {
        s->ip = s->event_ip;
        s->flags = CTXPROF_PEBS_SAMPLE_NO_REGS;
    }
    if (h.misc & PERF_RECORD_MISC_EXACT_IP)
        s->flags |= CTXPROF_PEBS_SAMPLE_EXACT_IP;
    if ((h.misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL)
        s->flags |= CTXPROF_PEBS_SAMPLE_KERNEL;
    return 0;
}

/* Hands one sample to the sinks. Async-signal-safe (no lock, no malloc). */
CTXPROF__PRIV void ctxprof__pebs_emit(const ctxprof__pebs_sink *sk, const ctxprof_pebs_sample *s,
                                      ctxprof_pebs_stats *st)
{
    st->samples++;
    if (sk->fn)
        sk->fn(sk->user, s);
    if (sk->arr) {
        size_t k = __atomic_fetch_add(sk->len, (size_t)1, __ATOMIC_RELAXED);
        if (k < sk->cap) {
            sk->arr[k] = *s;
            sk->arr[k].callchain = NULL;
            sk->arr[k].stack = NULL;
        } else {
            st->array_full++;
        }
    }
}

/* ---- pebs: ring reading ----

   The ring is PROT_WRITE (non-overwrite): the kernel never writes past
   data_tail and drops (and counts) samples when full. The barrier pairing
   of kernel/events/ring_buffer.c, perf_output_put_handle():

     kernel                               reader (here)
     if (LOAD ->data_tail) {  (A)         LOAD ->data_head      acquire (C)
        STORE $data                       LOAD $data
        smp_wmb()             (B)         STORE ->data_tail     release (D)
        STORE ->data_head
     }

   (B) pairs with our acquire load of data_head (C): records below head are
   complete when we read them. Our release store of data_tail (D) orders our
   reads of the records before it, pairing with the kernel's control
   dependency (A): it cannot overwrite bytes we are still reading. The tail
   is ours alone, so it stays in a local and is stored once per pass.

   Records are 8-byte aligned and the data area a power of two, so a header
   never straddles the end; a body may, and is then copied into a scratch
   buffer on the stack. A head more than the ring size ahead, a misaligned
   tail, or a record size that is 0, unaligned or beyond the head is a
   desync: counted, and reading resumes at the head (a record boundary). */

/* The low end of the stack whose base (an ICPP base, or a mapping's top) is
   base: that of the mapping holding the word below base, by the timer
   sampler's rule (ctxprof__icpp_stack_low: for the main thread's "[stack]"
   the end of the mapping below it); 0 when base is in no mapping. A read of
   /proc/self/maps, once per base: async-signal-safe, allocation-free. */
CTXPROF__PRIV uint64_t ctxprof__pebs_stack_lo(uint64_t base)
{
    return base ? (uint64_t)ctxprof__icpp_stack_low((uintptr_t)(base - 1)) : 0;
}

/* Drains ring r into sk. Allocation-free and async-signal-safe; the caller
   holds r->busy. Returns the number of samples delivered. */
CTXPROF__PRIV uint64_t ctxprof__pebs_ring_read(ctxprof__pebs_ring *r, const ctxprof__pebs_fmt *f,
                                               const ctxprof__pebs_sink *sk)
{
    uint64_t scratch[CTXPROF__PEBS_SCRATCH_WORDS];
    struct perf_event_mmap_page *pc = r->meta;
    ctxprof_pebs_stats st;
    uint64_t tail = pc->data_tail, head;
    int pass;
    memset(&st, 0, sizeof st);
#if defined(CTXPROF_ICPP_NO_HEIGHT)
    if (r->base_pending) { /* the ICPP base training uses, once the thread has one */
        uint64_t b = (uint64_t)ctxprof_icpp_base_of_tid(r->tid);
        if (b) {
            r->stack_lo = ctxprof__pebs_stack_lo(b);
            r->stack_base = b;
            r->base_pending = 0;
        }
    }
#endif
    /* a few passes catch records written while we parsed; bounded so that a
       thread sampling at a high rate cannot keep its consumer here forever */
    for (pass = 0; pass < 4; pass++) {
        head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE); /* (C) */
        if (head == tail)
            break;
        st.drains++;
        if (head - tail > r->size || (tail & 7) != 0) {
            st.desyncs++;
            st.bytes += head - tail;
            tail = head;
        }
        while (tail != head) {
            uint64_t avail = head - tail;
            size_t off = (size_t)(tail & r->mask);
            const unsigned char *rec = r->data + off;
            struct perf_event_header h;
            memcpy(&h, rec, sizeof h);
            if (h.size < sizeof h || (h.size & 7) != 0 || h.size > avail) {
                st.desyncs++;
                st.bytes += avail;
                tail = head;
                break;
            }
            if (off + h.size > r->size && h.type != PERF_RECORD_SAMPLE &&
                h.type != PERF_RECORD_LOST && h.type != CTXPROF__PEBS_RECORD_LOST_SAMPLES) {
                rec = NULL; /* straddles, and we do not look inside: skip it */
            } else if (off + h.size > r->size) {
                size_t first = (size_t)(r->size - off);
                if (h.size > sizeof scratch) {
                    rec = NULL;
                } else {
                    memcpy(scratch, r->data + off, first);
                    memcpy((unsigned char *)scratch + first, r->data, h.size - first);
                    rec = (const unsigned char *)scratch;
                }
            }
            switch (h.type) {
            case PERF_RECORD_SAMPLE: {
                ctxprof_pebs_sample s;
                if (!rec || ctxprof__pebs_parse(f, rec, h.size, &s) != 0) {
                    st.bad_records++;
                    break;
                }
                if (s.flags & CTXPROF_PEBS_SAMPLE_NO_REGS) {
                    st.no_regs++;
                } else if (r->stack_base && s.sp <= r->stack_base && s.sp >= r->stack_lo) {
                    s.height = r->stack_base - s.sp;
                    if (r->base_pending)
                        s.flags |= CTXPROF_PEBS_SAMPLE_STACK_TOP;
                } else if (r->stack_base) {
                    st.off_stack++; /* another stack, or above the base: no height */
                }
                ctxprof__pebs_emit(sk, &s, &st);
                break;
            }
            case PERF_RECORD_LOST: /* u64 id, lost */
                if (rec && h.size >= 24)
                    st.lost += ctxprof__pebs_word(rec, 2);
                else
                    st.bad_records++;
                break;
            case CTXPROF__PEBS_RECORD_LOST_SAMPLES: /* u64 lost */
                if (rec && h.size >= 16)
                    st.lost_samples += ctxprof__pebs_word(rec, 1);
                else
                    st.bad_records++;
                break;
            case PERF_RECORD_THROTTLE:
                st.throttles++;
                break;
            case PERF_RECORD_UNTHROTTLE:
                st.unthrottles++;
                break;
            default:
                st.other_records++;
                break;
            }
            st.bytes += h.size;
            tail += h.size;
        }
        __atomic_store_n(&pc->data_tail, tail, __ATOMIC_RELEASE); /* (D) */
    }
    ctxprof__pebs_stats_add(&r->st, &st);
    return st.samples;
}

/* Takes the consumer flag of r; wait = spin (yielding) until free. */
CTXPROF__PRIV int ctxprof__pebs_ring_acquire(ctxprof__pebs_ring *r, int wait)
{
    for (;;) {
        int expect = 0;
        if (__atomic_compare_exchange_n(&r->busy, &expect, 1, 0, __ATOMIC_ACQUIRE,
                                        __ATOMIC_RELAXED))
            return 1;
        if (!wait)
            return 0;
        sched_yield();
    }
}

CTXPROF__PRIV void ctxprof__pebs_ring_release(ctxprof__pebs_ring *r)
{
    __atomic_store_n(&r->busy, 0, __ATOMIC_RELEASE);
}

CTXPROF__PRIV void ctxprof__pebs_consume(struct ctxprof__pebs_impl *I, ctxprof__pebs_ring *r,
                                         int wait)
{
    if (ctxprof__pebs_ring_acquire(r, wait)) {
        ctxprof__pebs_ring_read(r, &I->fmt, &I->sink);
        ctxprof__pebs_ring_release(r);
    }
}

/* ---- pebs: event names ---- */

#if defined(CTXPROF__PEBS_LIBPFM)
static pthread_once_t ctxprof__pebs_pfm_once = PTHREAD_ONCE_INIT;
static int ctxprof__pebs_pfm_status;
static void ctxprof__pebs_pfm_init(void)
{
    ctxprof__pebs_pfm_status = pfm_initialize();
}

/* libpfm4 encoding (pfm_get_os_event_encoding(3)): user level only unless the
   name says otherwise; libpfm overwrites type/config/exclude_* and applies
   modifiers such as precise= and period=. */
CTXPROF__PRIV int ctxprof__pebs_pfm_encode(const char *name, struct perf_event_attr *attr,
                                           ctxprof_error *err)
{
    pfm_perf_encode_arg_t arg;
    int rc;
    pthread_once(&ctxprof__pebs_pfm_once, ctxprof__pebs_pfm_init);
    if (ctxprof__pebs_pfm_status != PFM_SUCCESS)
        return ctxprof__fail(err, CTXPROF_ERR_UNSUPPORTED, 0, "libpfm: cannot initialize: %s",
                             pfm_strerror(ctxprof__pebs_pfm_status));
    memset(&arg, 0, sizeof arg);
    arg.attr = attr;
    arg.size = sizeof arg;
    rc = pfm_get_os_event_encoding(name, PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
    if (rc != PFM_SUCCESS)
        return ctxprof__fail(err,
                             rc == PFM_ERR_NOTFOUND ? CTXPROF_ERR_UNSUPPORTED : CTXPROF_ERR_INVAL,
                             0, "libpfm: event '%s': %s", name, pfm_strerror(rc));
    return CTXPROF_OK;
}
#endif

CTXPROF_DEF int ctxprof_pebs_encode_event(const char *name, struct perf_event_attr *attr,
                                          ctxprof_error *err)
{
    static const struct {
        const char *name;
        uint32_t type;
        uint64_t config;
    } builtin[] = {
        {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
        {"cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
        {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
        {"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
        {"cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK},
    };
    size_t i;
    ctxprof__error_clear(err);
    if (!name || !*name || !attr)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "no event name");
    for (i = 0; i < sizeof builtin / sizeof builtin[0]; i++)
        if (strcmp(name, builtin[i].name) == 0) {
            attr->type = builtin[i].type;
            attr->config = builtin[i].config;
            return CTXPROF_OK;
        }
    if (name[0] == 'r' && name[1]) { /* raw: r<hex>, as perf spells it */
        uint64_t v = 0;
        const char *p;
        for (p = name + 1; *p; p++) {
            int d = (*p >= '0' && *p <= '9')   ? *p - '0'
                    : (*p >= 'a' && *p <= 'f') ? *p - 'a' + 10
                    : (*p >= 'A' && *p <= 'F') ? *p - 'A' + 10
                                               : -1;
            if (d < 0 || v >> 60)
                break;
            v = v << 4 | (uint64_t)d;
        }
        if (!*p) {
            attr->type = PERF_TYPE_RAW;
            attr->config = v;
            return CTXPROF_OK;
        }
    }
#if defined(CTXPROF__PEBS_LIBPFM)
    return ctxprof__pebs_pfm_encode(name, attr, err);
#else
    return ctxprof__fail(err, CTXPROF_ERR_UNSUPPORTED, 0,
                         "event '%s' needs libpfm: build with -DCTXPROF_HAVE_LIBPFM and link "
                         "-lpfm (Debian: libpfm4-dev); built in: cycles, instructions, "
                         "task-clock, cpu-clock, rHEX",
                         name);
#endif
}

/* ---- pebs: attributes and probing ---- */

CTXPROF_DEF const char *ctxprof_pebs_level_name(int level)
{
    switch (level) {
    case CTXPROF_PEBS_AUTO:
        return "auto";
    case CTXPROF_PEBS_LEVEL_PEBS:
        return "PEBS";
    case CTXPROF_PEBS_LEVEL_HW:
        return "hardware";
    case CTXPROF_PEBS_LEVEL_SW:
        return "software";
    default:
        return "unknown level";
    }
}

CTXPROF__PRIV long ctxprof__pebs_page(void)
{
    long pg = sysconf(_SC_PAGESIZE);
    return pg > 0 ? pg : 4096;
}

/* The attributes of one level. ev holds the encoded event (type, config,
   and from libpfm possibly precise_ip, sample_period, exclude bits). */
CTXPROF__PRIV void ctxprof__pebs_attr(const struct ctxprof__pebs_impl *I,
                                      const struct perf_event_attr *ev, int level, unsigned precise,
                                      int use_intr, struct perf_event_attr *a)
{
    const ctxprof_pebs_desc *d = &I->d;
    memset(a, 0, sizeof *a);
    a->size = (uint32_t)sizeof *a;
    if (level == CTXPROF_PEBS_LEVEL_SW && ev->type != PERF_TYPE_SOFTWARE) {
        a->type = PERF_TYPE_SOFTWARE;
        a->config = PERF_COUNT_SW_TASK_CLOCK;
    } else {
        a->type = ev->type;
        a->config = ev->config;
        a->config1 = ev->config1;
        a->config2 = ev->config2;
    }
    if (level == CTXPROF_PEBS_LEVEL_SW)
        a->sample_period = d->period_ns;
    else
        a->sample_period = ev->sample_period && !ev->freq ? ev->sample_period : d->period;
    a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
    if (d->flags & CTXPROF_PEBS_TIME)
        a->sample_type |= PERF_SAMPLE_TIME;
    if (d->flags & CTXPROF_PEBS_CALLCHAIN) {
        a->sample_type |= PERF_SAMPLE_CALLCHAIN;
        a->exclude_callchain_kernel = 1;
        a->sample_max_stack = (uint16_t)d->max_stack;
    }
    if (use_intr) {
        a->sample_type |= PERF_SAMPLE_REGS_INTR;
        a->sample_regs_intr = CTXPROF__PEBS_REGS;
    }
    if (!use_intr || d->stack_bytes) {
        a->sample_type |= PERF_SAMPLE_REGS_USER;
        a->sample_regs_user = CTXPROF__PEBS_REGS;
    }
    if (d->stack_bytes) {
        a->sample_type |= PERF_SAMPLE_STACK_USER;
        a->sample_stack_user = d->stack_bytes;
    }
    a->read_format =
        PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING | CTXPROF__PEBS_FORMAT_LOST;
    a->precise_ip = precise & 3u;
    a->disabled = 1;
    if (!(d->flags & CTXPROF_PEBS_KERNEL))
        a->exclude_kernel = 1;
    a->exclude_hv = 1;
    /* wakeups by bytes: keeps PEBS "large" (many records per interrupt) */
    a->watermark = 1;
    a->wakeup_watermark = d->watermark;
}

CTXPROF__PRIV int ctxprof__pebs_sys_open(struct perf_event_attr *a, int tid)
{
    return (int)syscall(__NR_perf_event_open, a, tid, -1, -1, (unsigned long)PERF_FLAG_FD_CLOEXEC);
}

/* perf_event_open with the two compatibility retries: PERF_FORMAT_LOST is
   6.0+ (EINVAL before: dropped), and E2BIG means the kernel's attr is
   smaller (it writes its size back; our extra fields are zero unless used). */
CTXPROF__PRIV int ctxprof__pebs_open_event(struct perf_event_attr *a, int tid, int *out_errno)
{
    int fd, tries;
    for (tries = 0; tries < 3; tries++) {
        uint32_t size = a->size;
        fd = ctxprof__pebs_sys_open(a, tid);
        if (fd >= 0) {
            *out_errno = 0;
            return fd;
        }
        *out_errno = errno;
        if (errno == EINVAL && (a->read_format & CTXPROF__PEBS_FORMAT_LOST)) {
            a->read_format &= ~(uint64_t)CTXPROF__PEBS_FORMAT_LOST;
            continue;
        }
        if (errno == E2BIG && a->size && a->size < size && a->size >= PERF_ATTR_SIZE_VER4 &&
            !(a->sample_type & PERF_SAMPLE_CALLCHAIN))
            continue; /* retry at the kernel's size: fields past it are zero */
        a->size = size;
        break;
    }
    return -1;
}

/* Guards the registry of open samplers (pebs: fork) and the numbers of
   their fds: fork() holds it from the prepare handler on, and a ring's fd
   (and ticker fd) and a sampler's eventfd are opened and stored, and closed
   and set to -1, under it; a probe's event lives under it only. So the
   child handler, which closes every such fd that is not -1, sees each fd
   either not open yet, open and stored, or closed and -1: never open but
   not stored yet (the child would keep an event counting on the parent's
   thread) nor stored but closed meanwhile (perhaps another file's number
   by then, which it would close in the child). Taken after I->mu, never
   before; no signal handler takes it. */
static pthread_mutex_t ctxprof__pebs_reg_mu = PTHREAD_MUTEX_INITIALIZER;

/* Opens an event (ctxprof__pebs_open_event) into *fdp, -1 if it fails, in
   one step as fork() sees it. Returns *fdp. */
CTXPROF__PRIV int ctxprof__pebs_open_fd(int *fdp, struct perf_event_attr *a, int tid,
                                        int *out_errno)
{
    int fd;
    pthread_mutex_lock(&ctxprof__pebs_reg_mu);
    fd = ctxprof__pebs_open_event(a, tid, out_errno);
    __atomic_store_n(fdp, fd, __ATOMIC_RELAXED); /* signal handlers compare it */
    pthread_mutex_unlock(&ctxprof__pebs_reg_mu);
    return fd;
}

/* Whether an event opens (ctxprof__pebs_open_event), closed at once: its
   fd exists only under ctxprof__pebs_reg_mu, so no fork() sees it. */
CTXPROF__PRIV int ctxprof__pebs_try_event(struct perf_event_attr *a, int tid, int *out_errno)
{
    int fd;
    pthread_mutex_lock(&ctxprof__pebs_reg_mu);
    fd = ctxprof__pebs_open_event(a, tid, out_errno);
    if (fd >= 0)
        close(fd);
    pthread_mutex_unlock(&ctxprof__pebs_reg_mu);
    return fd >= 0;
}

/* Closes a ring's fd and sets it to -1 in one step as fork() sees it. */
CTXPROF__PRIV void ctxprof__pebs_close_fd(int *fdp)
{
    pthread_mutex_lock(&ctxprof__pebs_reg_mu);
    close(*fdp);
    __atomic_store_n(fdp, -1, __ATOMIC_RELAXED); /* signal handlers compare it */
    pthread_mutex_unlock(&ctxprof__pebs_reg_mu);
}

/* The level the user forces: desc.level, else CTXPROF_PEBS_LEVEL. */
CTXPROF__PRIV int ctxprof__pebs_forced(ctxprof_pebs *pb, const ctxprof_pebs_desc *d, int *out)
{
    const char *env;
    *out = d->level;
    if (d->level || (d->flags & CTXPROF_PEBS_NO_ENV))
        return CTXPROF_OK;
    env = getenv("CTXPROF_PEBS_LEVEL");
    if (!env || !*env || strcmp(env, "auto") == 0)
        return CTXPROF_OK;
    if (strcmp(env, "pebs") == 0)
        *out = CTXPROF_PEBS_LEVEL_PEBS;
    else if (strcmp(env, "hw") == 0 || strcmp(env, "hardware") == 0)
        *out = CTXPROF_PEBS_LEVEL_HW;
    else if (strcmp(env, "sw") == 0 || strcmp(env, "software") == 0)
        *out = CTXPROF_PEBS_LEVEL_SW;
    else
        return ctxprof__fail(&pb->error, CTXPROF_ERR_INVAL, 0,
                             "CTXPROF_PEBS_LEVEL='%.40s': expected pebs, hw, sw or auto", env);
    return CTXPROF_OK;
}

/* Records the successful level in I (template attr, fmt). */
CTXPROF__PRIV int ctxprof__pebs_choose(struct ctxprof__pebs_impl *I, int level,
                                       const struct perf_event_attr *a, int use_intr)
{
    ctxprof__pebs_fmt *f = &I->fmt;
    if (ctxprof__pebs_fmt_init(f, a->sample_type, a->sample_regs_user, a->sample_regs_intr,
                               use_intr) != 0)
        return -1;
    f->period = a->sample_period;
    if (level == CTXPROF_PEBS_LEVEL_PEBS)
        f->sflags = use_intr ? CTXPROF_PEBS_SAMPLE_PRECISE : CTXPROF_PEBS_SAMPLE_SKID;
    else if (level == CTXPROF_PEBS_LEVEL_HW)
        f->sflags = CTXPROF_PEBS_SAMPLE_SKID;
    I->attr = *a;
    I->level = level;
    return 0;
}

/* Records in the probe's story that levels `name` do not work, and why. */
CTXPROF__PRIV void ctxprof__pebs_probe_fail(struct ctxprof__pebs_impl *I, const char *name,
                                            const char *why)
{
    ctxprof__pebs_cat(I->probe, sizeof I->probe, "%s%s: %s", I->probe[0] ? "; " : "", name, why);
    if (I->nfail < 4) {
        /* (cut to the field: the story above has them whole) */
        snprintf(I->fail_name[I->nfail], sizeof I->fail_name[0], "%.*s",
                 (int)sizeof I->fail_name[0] - 1, name);
        snprintf(I->fail_why[I->nfail], sizeof I->fail_why[0], "%.*s",
                 (int)sizeof I->fail_why[0] - 1, why);
        I->nfail++;
    }
}

/* Tries one level on the calling thread: 1 = works (chosen), 0 = try the
   next level, <0 = a cause that no level can avoid (pb->error set). */
CTXPROF__PRIV int ctxprof__pebs_try_level(ctxprof_pebs *pb, struct ctxprof__pebs_impl *I,
                                          const struct perf_event_attr *ev, int level,
                                          const char *evname)
{
    char why[240];
    ctxprof__pebs_facts facts;
    struct perf_event_attr a;
    const char *name = level == CTXPROF_PEBS_LEVEL_PEBS ? "PEBS"
                       : level == CTXPROF_PEBS_LEVEL_HW ? "hardware"
                       : ev->type == PERF_TYPE_SOFTWARE ? evname
                                                        : "task-clock";
    unsigned precise = 0;
    int use_intr = 0, e = 0, hw = level != CTXPROF_PEBS_LEVEL_SW;
    const char *sep = I->probe[0] ? "; " : "";
    if (level == CTXPROF_PEBS_LEVEL_PEBS) {
#if defined(CTXPROF__PEBS_X86)
        long maxp = -1;
        int pmu = ctxprof__pebs_have_pmu();
        if (ctxprof__pebs_read_long("/sys/bus/event_source/devices/cpu/caps/max_precise", &maxp) !=
            0)
            ctxprof__pebs_read_long("/sys/bus/event_source/devices/cpu_core/caps/max_precise",
                                    &maxp);
        if (pmu == 1 && !ctxprof__pebs_is_intel()) {
            ctxprof__pebs_probe_fail(I, "PEBS",
                                     "not an Intel CPU (AMD IBS gives an interrupt-time SP)");
            return 0;
        }
        if (pmu == 1 && maxp == 0) {
            ctxprof__pebs_probe_fail(I, "PEBS",
                                     "PMU without precise sampling (caps/max_precise=0)");
            return 0;
        }
        precise = ev->precise_ip ? ev->precise_ip : (unsigned)I->d.precise;
        if (maxp > 0 && precise > (unsigned long)maxp)
            precise = (unsigned)maxp;
        use_intr = 1;
#else
        ctxprof__pebs_probe_fail(I, "PEBS", "Intel x86 only");
        return 0;
#endif
    }
    for (;;) {
        ctxprof__pebs_attr(I, ev, level, precise, use_intr, &a);
        if (level == CTXPROF_PEBS_LEVEL_PEBS && !use_intr) {
            a.watermark = 0; /* REGS_USER with large PEBS would give garbage SPs */
            a.wakeup_events = 1;
        }
        if (ctxprof__pebs_try_event(&a, 0, &e))
            break;
        if (level == CTXPROF_PEBS_LEVEL_PEBS && e == EOPNOTSUPP && precise > 1) {
            precise--; /* above the PMU's max_precise */
            continue;
        }
        if (level == CTXPROF_PEBS_LEVEL_PEBS && e == EPERM && use_intr) {
            use_intr = 0; /* REGS_INTR refused under lockdown=confidentiality */
            continue;
        }
        ctxprof__pebs_facts_get(&facts, (I->d.flags & CTXPROF_PEBS_KERNEL) != 0);
        ctxprof__pebs_reason(why, sizeof why, e, hw, &facts);
        {
            char full[48];
            snprintf(full, sizeof full, "%s%s", level == CTXPROF_PEBS_LEVEL_SW ? "software " : "",
                     name);
            ctxprof__pebs_probe_fail(I, full, why);
        }
        if (ctxprof__pebs_errno_global(e)) {
            ctxprof__fail(&pb->error,
                          e == EMFILE || e == ENFILE || e == ENOMEM ? CTXPROF_ERR_SYS
                                                                    : CTXPROF_ERR_UNSUPPORTED,
                          0, "ctxprof_pebs: %s", why);
            pb->error.sys_errno = e;
            return -1;
        }
        return 0;
    }
    if (ctxprof__pebs_choose(I, level, &a, use_intr) != 0) {
        ctxprof__pebs_probe_fail(I, name, "no register layout for this CPU");
        return 0;
    }
    if (level == CTXPROF_PEBS_LEVEL_SW) {
        ctxprof__pebs_cat(I->probe, sizeof I->probe, "%ssoftware %s: ok (period %llu ns)", sep,
                          name, (unsigned long long)a.sample_period);
        if (I->asked_ns)
            ctxprof__pebs_cat(I->probe, sizeof I->probe,
                              " [period_ns=%llu raised to the kernel's minimum]",
                              (unsigned long long)I->asked_ns);
    } else
        ctxprof__pebs_cat(I->probe, sizeof I->probe, "%s%s: ok (period %llu events%s%s)", sep, name,
                          (unsigned long long)a.sample_period,
                          level == CTXPROF_PEBS_LEVEL_PEBS ? ", precise_ip=" : "",
                          level == CTXPROF_PEBS_LEVEL_PEBS ? (precise == 1   ? "1"
                                                              : precise == 2 ? "2"
                                                                             : "3")
                                                           : "");
    if (level == CTXPROF_PEBS_LEVEL_PEBS && !use_intr)
        ctxprof__pebs_cat(I->probe, sizeof I->probe,
                          " [REGS_INTR refused (kernel lockdown?): SP has skid]");
    if (I->asked_stack)
        ctxprof__pebs_cat(I->probe, sizeof I->probe,
                          " [max_stack=%u lowered to kernel.perf_event_max_stack=%u]",
                          I->asked_stack, I->d.max_stack);
    return 1;
}

/* Fails the probe: every level's reason, once for levels that failed the
   same way ("PEBS, hardware, software task-clock: ... (EINVAL)"), fitted
   to pb->error.detail; explain() has the whole story. */
CTXPROF__PRIV int ctxprof__pebs_no_level(ctxprof_pebs *pb, const struct ctxprof__pebs_impl *I)
{
    char text[1024];
    unsigned k, j;
    snprintf(text, sizeof text, "ctxprof_pebs: no level works: ");
    for (k = 0; k < I->nfail; k = j) {
        ctxprof__pebs_cat(text, sizeof text, "%s%s", k ? "; " : "", I->fail_name[k]);
        for (j = k + 1; j < I->nfail && strcmp(I->fail_why[j], I->fail_why[k]) == 0; j++)
            ctxprof__pebs_cat(text, sizeof text, ", %s", I->fail_name[j]);
        ctxprof__pebs_cat(text, sizeof text, ": %s", I->fail_why[k]);
    }
    if (I->nfail == 0)
        ctxprof__pebs_cat(text, sizeof text, "%s", I->probe);
    return ctxprof__pebs_fail_fit(&pb->error, CTXPROF_ERR_UNSUPPORTED, "%s", text);
}

/* Probes the levels in order (or the forced one). */
CTXPROF__PRIV int ctxprof__pebs_probe(ctxprof_pebs *pb, struct ctxprof__pebs_impl *I, int forced)
{
    struct perf_event_attr ev;
    const char *evname = I->d.event ? I->d.event : "cycles";
    int first, last, lv, rc;
    memset(&ev, 0, sizeof ev);
    rc = ctxprof_pebs_encode_event(evname, &ev, &pb->error);
#if defined(CTXPROF__PEBS_LIBPFM)
    if (rc == CTXPROF_ERR_UNSUPPORTED) {
        /* libpfm cannot encode it here (not in its tables for this PMU, or
           no such event): a hardware level that does not work, like a PMU
           that refuses an event; the software level stands in unless the
           caller forced a hardware level */
        if (forced && forced != CTXPROF_PEBS_LEVEL_SW) {
            char why[sizeof pb->error.detail];
            snprintf(why, sizeof why, "%s", pb->error.detail);
            ctxprof__pebs_cat(I->probe, sizeof I->probe, "%s: %s", ctxprof_pebs_level_name(forced),
                              why);
            return ctxprof__fail(&pb->error, CTXPROF_ERR_UNSUPPORTED, 0,
                                 "ctxprof_pebs: level %s forced, but %.150s",
                                 ctxprof_pebs_level_name(forced), why);
        }
        if (!forced)
            ctxprof__pebs_probe_fail(I, "PEBS, hardware", pb->error.detail);
        ctxprof__error_clear(&pb->error);
        memset(&ev, 0, sizeof ev);
        ev.type = PERF_TYPE_HARDWARE; /* the software level uses task-clock instead */
        first = last = CTXPROF_PEBS_LEVEL_SW;
        goto levels;
    }
#endif
    if (rc != CTXPROF_OK)
        return rc;
    if (ev.type == PERF_TYPE_SOFTWARE) {
        if (forced && forced != CTXPROF_PEBS_LEVEL_SW)
            return ctxprof__fail(&pb->error, CTXPROF_ERR_INVAL, 0,
                                 "event '%s' is a software event but level %s was forced", evname,
                                 ctxprof_pebs_level_name(forced));
        first = last = CTXPROF_PEBS_LEVEL_SW;
    } else {
        first = forced ? forced : CTXPROF_PEBS_LEVEL_PEBS;
        last = forced ? forced : CTXPROF_PEBS_LEVEL_SW;
    }
#if defined(CTXPROF__PEBS_LIBPFM)
levels:
#endif
    for (lv = first; lv <= last; lv++) {
        rc = ctxprof__pebs_try_level(pb, I, &ev, lv, evname);
        if (rc < 0)
            return pb->error.status;
        if (rc > 0) {
            if (forced)
                ctxprof__pebs_cat(I->probe, sizeof I->probe, " [forced]");
            return CTXPROF_OK;
        }
    }
    return ctxprof__pebs_no_level(pb, I);
}

/* ---- pebs: per-thread rings ---- */

/* Default stack base of the calling thread: the top of the mapping that
   holds its stack (the "[stack]" end for the main thread); *lo its low end
   (ctxprof__pebs_stack_lo's), from the same read. */
CTXPROF__PRIV uint64_t ctxprof__pebs_self_base(uint64_t *lo)
{
    ctxprof__mapping mp;
    uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
    if (!ctxprof__mapping_at(sp, &mp, NULL, 0))
        return *lo = 0;
    *lo = (uint64_t)ctxprof__mapping_stack_lo(&mp);
    return (uint64_t)mp.end;
}

/* Counters of the event itself: read() with our read_format. */
CTXPROF__PRIV void ctxprof__pebs_read_counts(const struct ctxprof__pebs_impl *I, int fd,
                                             ctxprof_pebs_stats *st)
{
    uint64_t v[4] = {0, 0, 0, 0};
    size_t want = (I->attr.read_format & CTXPROF__PEBS_FORMAT_LOST) ? 32u : 24u;
    if (read(fd, v, want) == (ssize_t)want) {
        st->time_enabled += v[1];
        st->time_running += v[2];
        if (want == 32)
            st->kernel_lost += v[3];
        if (v[1] > 0 && v[2] == 0)
            st->never_ran++;
    }
}

/* Opens the event of thread tid and maps its ring, halving the ring while
   the locked-memory budget refuses it. Caller holds I->mu; r is FREE. The
   fds are stored in r as they are opened (ctxprof__pebs_open_fd: a fork
   meanwhile closes them in the child); on failure r->fd and r->tick_fd
   are -1 again. The mapping needs no such care: perf_mmap() makes it
   VM_DONTCOPY, a child never has it. */
CTXPROF__PRIV int ctxprof__pebs_ring_open(ctxprof_pebs *pb, struct ctxprof__pebs_impl *I,
                                          ctxprof__pebs_ring *r, int tid)
{
    const long page = ctxprof__pebs_page();
    unsigned pages = I->d.ring_pages, min_pages = I->d.ring_pages < 8 ? I->d.ring_pages : 8;
    ctxprof__pebs_facts facts;
    char why[240];
    int fd, e;
    void *map;
    for (;;) {
        struct perf_event_attr a = I->attr;
        uint64_t bytes = (uint64_t)pages * (uint64_t)page;
        if (a.watermark && a.wakeup_watermark > bytes / 2)
            a.wakeup_watermark = (uint32_t)(bytes / 2);
        fd = ctxprof__pebs_open_fd(&r->fd, &a, tid, &e);
        if (fd < 0) {
            ctxprof__pebs_facts_get(&facts, (I->d.flags & CTXPROF_PEBS_KERNEL) != 0);
            ctxprof__pebs_reason(why, sizeof why, e, I->level != CTXPROF_PEBS_LEVEL_SW, &facts);
            ctxprof__fail(&pb->error,
                          e == EMFILE || e == ENFILE || e == ENOMEM ? CTXPROF_ERR_SYS
                          : e == ESRCH                              ? CTXPROF_ERR_INVAL
                                                                    : CTXPROF_ERR_UNSUPPORTED,
                          0, "ctxprof_pebs: thread %d: %s", tid, why);
            pb->error.sys_errno = e;
            return pb->error.status;
        }
        map = mmap(NULL, (size_t)(pages + 1) * (size_t)page, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
                   0);
        if (map != MAP_FAILED)
            break;
        e = errno;
        ctxprof__pebs_close_fd(&r->fd);
        if ((e == EPERM || e == ENOMEM) && pages > min_pages) {
            pages /= 2; /* over perf_event_mlock_kb * CPUs + RLIMIT_MEMLOCK */
            continue;
        }
        {
            struct rlimit rl;
            long mlock_kb = -1;
            unsigned long long lim =
                getrlimit(RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY
                    ? (unsigned long long)rl.rlim_cur / 1024
                    : 0;
            ctxprof__pebs_read_long("/proc/sys/kernel/perf_event_mlock_kb", &mlock_kb);
            if (e == EPERM || e == ENOMEM)
                ctxprof__fail(&pb->error, CTXPROF_ERR_SYS, e,
                              "ctxprof_pebs: thread %d: a %llu KiB ring exceeds the locked-memory "
                              "budget (perf_event_mlock_kb=%ld per CPU, ulimit -l %llu KiB)",
                              tid,
                              (unsigned long long)(pages + 1) * (unsigned long long)page / 1024,
                              mlock_kb, lim);
            else
                ctxprof__fail(&pb->error, CTXPROF_ERR_SYS, e,
                              "ctxprof_pebs: thread %d: mmap of the ring failed", tid);
            return pb->error.status;
        }
    }
    /* every field but state and busy, which the reader and signal handlers
       read concurrently (the slot is FREE until the release store) */
    memset(&r->st, 0, sizeof r->st);
    r->stack_base = 0;
    r->stack_lo = 0;
    r->base_pending = 0;
    r->tid = tid;
    r->map = (unsigned char *)map;
    r->map_len = (size_t)(pages + 1) * (size_t)page;
    r->meta = (struct perf_event_mmap_page *)map;
    r->pages = pages;
    {
        /* data_offset/data_size since Linux 4.1; before, data follows page 0 */
        uint64_t off = r->meta->data_offset ? r->meta->data_offset : (uint64_t)page;
        uint64_t size = r->meta->data_size ? r->meta->data_size : (uint64_t)pages * (uint64_t)page;
        if (off + size > r->map_len || (size & (size - 1)) != 0 || size < 8) {
            munmap(map, r->map_len);
            ctxprof__pebs_close_fd(&r->fd);
            return ctxprof__fail(&pb->error, CTXPROF_ERR_SYS, 0,
                                 "ctxprof_pebs: ring layout not understood (data %llu+%llu)",
                                 (unsigned long long)off, (unsigned long long)size);
        }
        r->data = r->map + off;
        r->size = size;
        r->mask = size - 1;
    }
    if (pages < I->d.ring_pages && (I->min_pages_used == 0 || pages < I->min_pages_used))
        I->min_pages_used = pages;
    if (I->d.mode == CTXPROF_PEBS_SIGNAL) {
        struct ctxprof__pebs_owner own;
        int sfd = fd; /* the event that raises the signal */
        if (I->tick_ns) {
            struct perf_event_attr t;
            memset(&t, 0, sizeof t);
            t.size = (uint32_t)sizeof t;
            t.type = PERF_TYPE_SOFTWARE;
            t.config = PERF_COUNT_SW_TASK_CLOCK;
            t.sample_period = I->tick_ns;
            t.disabled = 1;
            t.exclude_kernel = 1;
            t.exclude_hv = 1;
            sfd = ctxprof__pebs_open_fd(&r->tick_fd, &t, tid, &e);
            if (sfd < 0) {
                munmap(map, r->map_len);
                ctxprof__pebs_close_fd(&r->fd);
                ctxprof__pebs_facts_get(&facts, 0);
                ctxprof__pebs_reason(why, sizeof why, e, 0, &facts);
                ctxprof__fail(&pb->error, e == ESRCH ? CTXPROF_ERR_INVAL : CTXPROF_ERR_SYS, 0,
                              "ctxprof_pebs: thread %d: signal ticker: %s", tid, why);
                pb->error.sys_errno = e;
                return pb->error.status;
            }
        }
        own.type = CTXPROF__PEBS_F_OWNER_TID;
        own.pid = tid;
        if (fcntl(sfd, CTXPROF__PEBS_F_SETOWN_EX, &own) != 0 ||
            fcntl(sfd, CTXPROF__PEBS_F_SETSIG, I->d.signo) != 0 ||
            fcntl(sfd, F_SETFL, fcntl(sfd, F_GETFL) | O_ASYNC) != 0) {
            e = errno;
            munmap(map, r->map_len);
            ctxprof__pebs_close_fd(&r->fd);
            if (r->tick_fd >= 0)
                ctxprof__pebs_close_fd(&r->tick_fd);
            return ctxprof__fail(&pb->error, CTXPROF_ERR_SYS, e,
                                 "ctxprof_pebs: thread %d: signal delivery setup failed", tid);
        }
    }
    if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) != 0 ||
        (r->tick_fd >= 0 && ioctl(r->tick_fd, PERF_EVENT_IOC_ENABLE, 0) != 0)) {
        e = errno;
        munmap(map, r->map_len);
        ctxprof__pebs_close_fd(&r->fd);
        if (r->tick_fd >= 0)
            ctxprof__pebs_close_fd(&r->tick_fd);
        return ctxprof__fail(&pb->error, CTXPROF_ERR_SYS, e,
                             "ctxprof_pebs: thread %d: cannot enable the event", tid);
    }
    r->st.threads = 1;
    return CTXPROF_OK;
}

/* Final drain and release of a ring. The caller is its consumer and holds
   I->mu; exited: the thread is gone (no disable needed). */
CTXPROF__PRIV void ctxprof__pebs_ring_close(struct ctxprof__pebs_impl *I, ctxprof__pebs_ring *r,
                                            int exited)
{
    ctxprof_pebs_stats tot;
    int tfd = r->tick_fd;
    if (!exited) {
        if (I->d.mode == CTXPROF_PEBS_SIGNAL) {
            int sfd = tfd >= 0 ? tfd : r->fd;
            fcntl(sfd, F_SETFL, fcntl(sfd, F_GETFL) & ~O_ASYNC);
        }
        ioctl(r->fd, PERF_EVENT_IOC_DISABLE, 0);
    }
    if (tfd >= 0)
        ctxprof__pebs_close_fd(&r->tick_fd);
    ctxprof__pebs_ring_acquire(r, 1);
    if (!exited && I->d.mode == CTXPROF_PEBS_SIGNAL)
        ioctl(r->fd, PERF_EVENT_IOC_DISABLE, 0); /* a handler may have re-enabled it */
    ctxprof__pebs_ring_read(r, &I->fmt, &I->sink);
    memset(&tot, 0, sizeof tot);
    ctxprof__pebs_stats_load(&tot, &r->st);
    ctxprof__pebs_read_counts(I, r->fd, &tot);
    if (exited)
        tot.threads_exited++;
    ctxprof__pebs_stats_add(&I->closed, &tot);
    munmap(r->map, r->map_len);
    ctxprof__pebs_close_fd(&r->fd);
    r->map = NULL;
    __atomic_store_n(&r->state, CTXPROF__PEBS_FREE, __ATOMIC_RELEASE);
    ctxprof__pebs_ring_release(r);
}

/* Whether the thread of an active ring has exited: from the thread's exit
   on its event reports POLLHUP (perf_poll() once perf_event_exit_task() set
   it to PERF_EVENT_STATE_EXIT, which happens before the thread is released
   and its id can be reused); POLLERR or POLLNVAL: no usable event either.
   One poll() with no wait. */
CTXPROF__PRIV int ctxprof__pebs_ring_dead(const ctxprof__pebs_ring *r)
{
    struct pollfd p;
    p.fd = r->fd;
    p.events = POLLIN;
    p.revents = 0;
    return poll(&p, 1, 0) > 0 && (p.revents & (POLLHUP | POLLERR | POLLNVAL)) != 0;
}

/* Closes the rings whose thread has exited (POLLHUP), after their final
   drain, and with drain also drains every other ring. Caller holds I->mu
   (manual and signal modes: the reader thread does this in reader mode). */
CTXPROF__PRIV void ctxprof__pebs_reap_locked(struct ctxprof__pebs_impl *I, int drain)
{
    unsigned i, n = 0;
    for (i = 0; i < I->nrings; i++)
        if (__atomic_load_n(&I->rings[i].state, __ATOMIC_ACQUIRE) == CTXPROF__PEBS_ACTIVE) {
            I->pfd[n].fd = I->rings[i].fd;
            I->pfd[n].events = POLLIN;
            I->pfd[n].revents = 0;
            I->pidx[n++] = i;
        }
    if (n && poll(I->pfd, (nfds_t)n, 0) < 0)
        for (i = 0; i < n; i++)
            I->pfd[i].revents = 0;
    for (i = 0; i < n; i++) {
        ctxprof__pebs_ring *r = &I->rings[I->pidx[i]];
        if (I->pfd[i].revents & (POLLHUP | POLLERR | POLLNVAL))
            ctxprof__pebs_ring_close(I, r, 1);
        else if (drain)
            ctxprof__pebs_consume(I, r, 1);
    }
}

/* ---- pebs: reader thread ---- */

CTXPROF__PRIV void ctxprof__pebs_wake(struct ctxprof__pebs_impl *I)
{
    uint64_t one = 1;
    if (I->efd >= 0 && write(I->efd, &one, sizeof one) < 0) {
        /* the counter is saturated: the reader is awake anyway */
    }
}

/* The reader: poll() on the eventfd and every ring; drains on POLLIN
   (watermark), final drain and close on POLLHUP (thread exit), serves drain
   and detach requests, drains everything at stop. The only consumer of the
   rings in reader mode, so sinks run on this thread only. */
CTXPROF__PRIV void *ctxprof__pebs_reader_main(void *arg)
{
    struct ctxprof__pebs_impl *I = (struct ctxprof__pebs_impl *)arg;
    prctl(PR_SET_NAME, "ctxprof-rd", 0, 0, 0);
    pthread_mutex_lock(&I->mu);
    I->reader_tid = ctxprof__pebs_gettid();
    pthread_cond_broadcast(&I->cv);
    pthread_mutex_unlock(&I->mu);
    for (;;) {
        unsigned i, n = 1;
        int stop;
        uint64_t req;
        I->pfd[0].fd = I->efd;
        I->pfd[0].events = POLLIN;
        I->pfd[0].revents = 0;
        for (i = 0; i < I->nrings; i++)
            if (__atomic_load_n(&I->rings[i].state, __ATOMIC_ACQUIRE) == CTXPROF__PEBS_ACTIVE) {
                I->pfd[n].fd = I->rings[i].fd;
                I->pfd[n].events = POLLIN;
                I->pfd[n].revents = 0;
                I->pidx[n++] = i;
            }
        if (poll(I->pfd, (nfds_t)n, -1) < 0) {
            struct timespec ms = {0, 1000000};
            nanosleep(&ms, NULL); /* cannot happen (n fds are open); never spin */
            continue;
        }
        if (I->pfd[0].revents & POLLIN) {
            uint64_t v;
            if (read(I->efd, &v, sizeof v) < 0) {
                /* EAGAIN: nothing pending */
            }
        }
        for (i = 1; i < n; i++) {
            ctxprof__pebs_ring *r = &I->rings[I->pidx[i]];
            short ev = I->pfd[i].revents;
            if (ev & (POLLHUP | POLLERR | POLLNVAL)) {
                pthread_mutex_lock(&I->mu);
                ctxprof__pebs_ring_close(I, r, 1);
                pthread_mutex_unlock(&I->mu);
            } else if (ev & POLLIN) {
                ctxprof__pebs_consume(I, r, 1);
                __atomic_fetch_add(&r->st.wakeups, (uint64_t)1, __ATOMIC_RELAXED);
            }
        }
        pthread_mutex_lock(&I->mu);
        stop = I->stop;
        req = I->drain_req;
        for (i = 0; i < I->nrings; i++)
            if (I->rings[i].state == CTXPROF__PEBS_DETACH)
                ctxprof__pebs_ring_close(I, &I->rings[i], 0);
        pthread_mutex_unlock(&I->mu);
        if (req != I->drain_done || stop) {
            for (i = 0; i < I->nrings; i++)
                if (__atomic_load_n(&I->rings[i].state, __ATOMIC_ACQUIRE) == CTXPROF__PEBS_ACTIVE)
                    ctxprof__pebs_consume(I, &I->rings[i], 1);
        }
        pthread_mutex_lock(&I->mu);
        if (stop)
            for (i = 0; i < I->nrings; i++)
                if (I->rings[i].state != CTXPROF__PEBS_FREE)
                    ctxprof__pebs_ring_close(I, &I->rings[i], 0);
        I->drain_done = req;
        pthread_cond_broadcast(&I->cv);
        pthread_mutex_unlock(&I->mu);
        if (stop)
            return NULL;
    }
}

/* ---- pebs: signal mode ---- */

static struct ctxprof__pebs_impl *ctxprof__pebs_sig_owner;
static int ctxprof__pebs_sig_active; /* handlers running: close waits for 0 */

/* SIGIO-style handler: drains the ring whose fd raised the signal. Only
   async-signal-safe work: atomics, the ring parser, the sinks. The state is
   checked again once the ring is held: close may have released it between. */
CTXPROF__PRIV void ctxprof__pebs_sig_handler(int sig, siginfo_t *si, void *uc)
{
    struct ctxprof__pebs_impl *I;
    int saved = errno, handled = 0;
    unsigned i;
    __atomic_fetch_add(&ctxprof__pebs_sig_active, 1, __ATOMIC_SEQ_CST);
    I = __atomic_load_n(&ctxprof__pebs_sig_owner, __ATOMIC_SEQ_CST);
    if (I && si) {
        for (i = 0; i < I->nrings; i++) {
            ctxprof__pebs_ring *r = &I->rings[i];
            if (__atomic_load_n(&r->state, __ATOMIC_ACQUIRE) == CTXPROF__PEBS_ACTIVE &&
                (__atomic_load_n(&r->fd, __ATOMIC_RELAXED) == si->si_fd ||
                 __atomic_load_n(&r->tick_fd, __ATOMIC_RELAXED) == si->si_fd)) {
                if (ctxprof__pebs_ring_acquire(r, 0)) {
                    if (__atomic_load_n(&r->state, __ATOMIC_ACQUIRE) == CTXPROF__PEBS_ACTIVE) {
                        /* The handler's own time is not sampled: its samples
                           would be the profiler's, and with a drain costing
                           about a period per sample (sanitizers, a slow sink)
                           each batch would make the next one as large. */
                        int fd = __atomic_load_n(&r->fd, __ATOMIC_RELAXED);
                        int off = ioctl(fd, PERF_EVENT_IOC_DISABLE, 0) == 0;
                        ctxprof__pebs_ring_read(r, &I->fmt, &I->sink);
                        __atomic_fetch_add(&r->st.wakeups, (uint64_t)1, __ATOMIC_RELAXED);
                        if (off)
                            ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
                    }
                    ctxprof__pebs_ring_release(r);
                }
                handled = 1;
                break;
            }
        }
        if (!handled && ctxprof__sig_has_handler(&I->old_sa))
            ctxprof__sig_call(&I->old_sa, sig, si, uc);
    }
    __atomic_fetch_sub(&ctxprof__pebs_sig_active, 1, __ATOMIC_SEQ_CST);
    errno = saved;
}

/* ---- pebs: fork ----

   A child of fork() shares the parent's event fds: holding them would keep
   the parent's threads sampled into rings nobody reads. The child handler
   closes them (never ioctl: that would disable the parent's events; the
   rings themselves are VM_DONTCOPY, absent from the child) and marks the
   object; the child can only close it, which then frees memory only. A
   signal-mode sampler also gives the child back the signal's previous
   disposition and the signal-mode slot at once: the handler inherited with
   the address space would otherwise serve an object the child cannot use
   (and frees at close), swallowing the signal, and keep the child from
   opening a signal-mode sampler of its own. The prepare handler holds
   ctxprof__pebs_reg_mu until the fork is done, and a ring's fds are opened
   and stored, and closed and set to -1, under it (ctxprof__pebs_open_fd,
   ctxprof__pebs_close_fd), as is the eventfd of a registered sampler
   (registered before it is created, unregistered as it is closed): a
   sampler or ring opening or closing in another thread at the fork leaves
   the child each fd either stored or not open, and -1 only once closed. */

/* In a process that is not the opener (a forked child): restores the
   previous disposition of I's signal and frees the signal-mode slot, when
   I holds them. Async-signal-safe (sigaction and atomics only). */
CTXPROF__PRIV void ctxprof__pebs_sig_forget(struct ctxprof__pebs_impl *I)
{
    struct ctxprof__pebs_impl *mine = I;
    if (!I->sig_installed)
        return;
    I->sig_installed = 0;
    if (__atomic_load_n(&ctxprof__pebs_sig_owner, __ATOMIC_SEQ_CST) != I)
        return;
    sigaction(I->d.signo, &I->old_sa, NULL); /* nothing is pending: a child starts with none */
    __atomic_compare_exchange_n(&ctxprof__pebs_sig_owner, &mine, (struct ctxprof__pebs_impl *)NULL,
                                0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

static struct ctxprof__pebs_impl *ctxprof__pebs_reg_head; /* under ctxprof__pebs_reg_mu */
static pthread_once_t ctxprof__pebs_reg_once = PTHREAD_ONCE_INIT;

CTXPROF__PRIV void ctxprof__pebs_fork_prepare(void)
{
    pthread_mutex_lock(&ctxprof__pebs_reg_mu);
}

CTXPROF__PRIV void ctxprof__pebs_fork_parent(void)
{
    pthread_mutex_unlock(&ctxprof__pebs_reg_mu);
}

CTXPROF__PRIV void ctxprof__pebs_fork_child(void)
{
    struct ctxprof__pebs_impl *I;
    for (I = ctxprof__pebs_reg_head; I; I = I->next) {
        unsigned i;
        for (i = 0; i < I->nrings; i++) {
            /* -1: not open yet, or closed before the fork; a FREE ring
               with an fd was being opened (ctxprof__pebs_ring_open) */
            if (I->rings[i].fd >= 0)
                close(I->rings[i].fd);
            if (I->rings[i].tick_fd >= 0)
                close(I->rings[i].tick_fd);
            I->rings[i].fd = I->rings[i].tick_fd = -1;
            I->rings[i].state = CTXPROF__PEBS_FREE;
        }
        if (I->efd >= 0)
            close(I->efd);
        I->efd = -1;
        I->forked = 1;
        ctxprof__pebs_sig_forget(I);
    }
    /* handlers that ran in the parent's other threads do not exist here */
    __atomic_store_n(&ctxprof__pebs_sig_active, 0, __ATOMIC_SEQ_CST);
    pthread_mutex_unlock(&ctxprof__pebs_reg_mu);
}

CTXPROF__PRIV void ctxprof__pebs_reg_init(void)
{
    pthread_atfork(ctxprof__pebs_fork_prepare, ctxprof__pebs_fork_parent, ctxprof__pebs_fork_child);
}

/* Adds I to the registry and makes it pb's, in one step as fork() sees
   it: a child has pb->impl and the registry entry both (its handler closes
   I's fds; it can close pb) or neither. Before I opens an fd. */
CTXPROF__PRIV void ctxprof__pebs_register(struct ctxprof__pebs_impl *I, ctxprof_pebs *pb)
{
    pthread_once(&ctxprof__pebs_reg_once, ctxprof__pebs_reg_init);
    pthread_mutex_lock(&ctxprof__pebs_reg_mu);
    I->pb = pb;
    I->next = ctxprof__pebs_reg_head;
    ctxprof__pebs_reg_head = I;
    pb->impl = I;
    pthread_mutex_unlock(&ctxprof__pebs_reg_mu);
}

/* Removes I from the registry, closes its eventfd and clears pb->impl, in
   one step as fork() sees it: a child forked before has I to close (its
   handler closed the eventfd), one forked after has neither I nor the fd.
   Every ring is closed already. */
CTXPROF__PRIV void ctxprof__pebs_unregister(struct ctxprof__pebs_impl *I, ctxprof_pebs *pb)
{
    struct ctxprof__pebs_impl **pp;
    pthread_mutex_lock(&ctxprof__pebs_reg_mu);
    for (pp = &ctxprof__pebs_reg_head; *pp; pp = &(*pp)->next)
        if (*pp == I) {
            *pp = I->next;
            break;
        }
    if (I->efd >= 0)
        close(I->efd);
    I->efd = -1;
    pb->impl = NULL;
    pthread_mutex_unlock(&ctxprof__pebs_reg_mu);
}

/* Whether pb is the handle of a sampler open in this process (or inherited
   open through fork(), until closed): the registry holds every open one.
   Only addresses are compared, so an uninitialised handle is never read. */
CTXPROF__PRIV int ctxprof__pebs_is_open(const ctxprof_pebs *pb)
{
    struct ctxprof__pebs_impl *I;
    int found = 0;
    pthread_mutex_lock(&ctxprof__pebs_reg_mu);
    for (I = ctxprof__pebs_reg_head; I && !found; I = I->next)
        found = I->pb == pb;
    pthread_mutex_unlock(&ctxprof__pebs_reg_mu);
    return found;
}

/* ---- pebs: public API ---- */

CTXPROF__PRIV void ctxprof__pebs_free(struct ctxprof__pebs_impl *I)
{
    void *ud = I->d.alloc_user;
    if (I->sync_init) {
        pthread_mutex_destroy(&I->mu);
        pthread_cond_destroy(&I->cv);
    }
    if (I->efd >= 0)
        close(I->efd);
    ctxprof__free(I->rings, ud);
    ctxprof__free(I->pfd, ud);
    ctxprof__free(I->pidx, ud);
    ctxprof__free(I, ud);
}

/* Checks that pb is open and usable from this process. */
CTXPROF__PRIV int ctxprof__pebs_live(ctxprof_pebs *pb, struct ctxprof__pebs_impl **out)
{
    struct ctxprof__pebs_impl *I = pb ? pb->impl : NULL;
    *out = I; /* set on every path (gcc -O3 -Wmaybe-uninitialized otherwise) */
    if (!I)
        return pb ? ctxprof__fail(&pb->error, CTXPROF_ERR_INVAL, 0, "ctxprof_pebs: not open")
                  : CTXPROF_ERR_INVAL;
    if (I->forked || getpid() != I->owner)
        return ctxprof__fail(&pb->error, CTXPROF_ERR_INVAL, 0,
                             "ctxprof_pebs: opened by process %d, this is a forked child",
                             (int)I->owner);
    *out = I;
    return CTXPROF_OK;
}

/* ctxprof_pebs_open without the explanation of a failure; *out_told = 1
   when a failed probe left in pb->explain_text each level's reason. */
CTXPROF__PRIV int ctxprof__pebs_open(ctxprof_pebs *pb, const ctxprof_pebs_desc *desc, int *out_told)
{
    struct ctxprof__pebs_impl *I;
    ctxprof_pebs_desc d;
    uint64_t asked_ns = 0;
    int forced, rc;
    unsigned i, asked_stack = 0;
    if (desc)
        d = *desc;
    else
        memset(&d, 0, sizeof d);
    /* defaults and validation */
    if (!d.period)
        d.period = 1000003; /* ICPP's 1M cycles; a prime avoids lock-step with loops */
    if (!d.period_ns)
        d.period_ns = 1000000;
    if (d.period_ns < CTXPROF__PEBS_MIN_NS) {
        /* the kernel's hrtimer never fires sooner (perf_swevent_init_hrtimer)
           but samples would still report the asked period as their weight */
        asked_ns = d.period_ns;
        d.period_ns = CTXPROF__PEBS_MIN_NS;
    }
    if (!d.precise)
        d.precise = 1;
    if (!d.ring_pages)
        d.ring_pages = 64;
    if (!d.max_threads)
        d.max_threads = 256;
    if (!d.max_stack)
        d.max_stack = 127;
    if (!d.signo)
        d.signo = SIGIO;
    if (!d.watermark)
        d.watermark = (unsigned)((uint64_t)d.ring_pages * (uint64_t)ctxprof__pebs_page() / 4);
    if (d.level < CTXPROF_PEBS_AUTO || d.level > CTXPROF_PEBS_LEVEL_SW)
        return ctxprof__fail(&pb->error, CTXPROF_ERR_INVAL, 0, "ctxprof_pebs: level %d unknown",
                             d.level);
    if (d.mode < CTXPROF_PEBS_READER || d.mode > CTXPROF_PEBS_SIGNAL)
        return ctxprof__fail(&pb->error, CTXPROF_ERR_INVAL, 0, "ctxprof_pebs: mode %d unknown",
                             d.mode);
    if ((d.ring_pages & (d.ring_pages - 1)) != 0)
        return ctxprof__fail(&pb->error, CTXPROF_ERR_INVAL, 0,
                             "ctxprof_pebs: ring_pages=%u must be a power of two", d.ring_pages);
    if (d.ring_pages > CTXPROF__PEBS_MAX_RING_PAGES)
        return ctxprof__fail(&pb->error, CTXPROF_ERR_INVAL, 0,
                             "ctxprof_pebs: ring_pages=%u above %u", d.ring_pages,
                             CTXPROF__PEBS_MAX_RING_PAGES);
    if (d.max_threads > CTXPROF__PEBS_MAX_THREADS)
        return ctxprof__fail(&pb->error, CTXPROF_ERR_RANGE, 0,
                             "ctxprof_pebs: max_threads=%u above %u", d.max_threads,
                             CTXPROF__PEBS_MAX_THREADS);
    if (d.precise < 0 || d.precise > 3)
        return ctxprof__fail(&pb->error, CTXPROF_ERR_INVAL, 0,
                             "ctxprof_pebs: precise=%d must be 1..3", d.precise);
    if (d.max_stack > CTXPROF__PEBS_MAX_STACK)
        return ctxprof__fail(&pb->error, CTXPROF_ERR_INVAL, 0,
                             "ctxprof_pebs: max_stack=%u above %u", d.max_stack,
                             CTXPROF__PEBS_MAX_STACK);
    if ((d.stack_bytes & 7) != 0 || d.stack_bytes > CTXPROF__PEBS_MAX_STACK_BYTES)
        return ctxprof__fail(&pb->error, CTXPROF_ERR_INVAL, 0,
                             "ctxprof_pebs: stack_bytes=%u must be a multiple of 8, at most %u",
                             d.stack_bytes, CTXPROF__PEBS_MAX_STACK_BYTES);
    if ((d.period | d.period_ns) >> 63)
        return ctxprof__fail(&pb->error, CTXPROF_ERR_INVAL, 0, "ctxprof_pebs: period too large");
    if (d.samples_cap && !d.samples) /* an array promised, none given: all samples lost */
        return ctxprof__fail(&pb->error, CTXPROF_ERR_INVAL, 0,
                             "ctxprof_pebs: samples_cap %zu but samples is NULL: no array to "
                             "store them in",
                             d.samples_cap);
    if (d.samples && !d.samples_cap)
        return ctxprof__fail(&pb->error, CTXPROF_ERR_INVAL, 0,
                             "ctxprof_pebs: samples given with samples_cap 0: no sample could "
                             "be stored");
    if (d.flags &
        ~(CTXPROF_PEBS_TIME | CTXPROF_PEBS_CALLCHAIN | CTXPROF_PEBS_KERNEL | CTXPROF_PEBS_NO_ENV))
        return ctxprof__fail(&pb->error, CTXPROF_ERR_INVAL, 0, "ctxprof_pebs: unknown flags %#x",
                             d.flags);
    if (d.mode == CTXPROF_PEBS_SIGNAL &&
        (d.signo <= 0 || d.signo >= 65 || d.signo == SIGKILL || d.signo == SIGSTOP))
        return ctxprof__fail(&pb->error, CTXPROF_ERR_INVAL, 0, "ctxprof_pebs: signal %d unusable",
                             d.signo);
    if (CTXPROF__PEBS_REGS == 0)
        return ctxprof__fail(&pb->error, CTXPROF_ERR_UNSUPPORTED, 0,
                             "ctxprof_pebs: no register layout for this architecture");
    if (d.flags & CTXPROF_PEBS_CALLCHAIN) {
        /* the kernel refuses a callchain deeper than its sysctl (EOVERFLOW,
           at every level): use the deepest it gives */
        unsigned lim = ctxprof__pebs_max_stack_limit("/proc/sys/kernel/perf_event_max_stack");
        if (d.max_stack > lim) {
            asked_stack = d.max_stack;
            d.max_stack = lim;
        }
    }
    rc = ctxprof__pebs_forced(pb, &d, &forced);
    if (rc != CTXPROF_OK)
        return rc;

    I = (struct ctxprof__pebs_impl *)ctxprof__zalloc(1, sizeof *I, d.alloc_user);
    if (!I)
        return ctxprof__fail(&pb->error, CTXPROF_ERR_NOMEM, 0, "ctxprof_pebs: out of memory");
    I->d = d;
    I->asked_ns = asked_ns;
    I->asked_stack = asked_stack;
    I->efd = -1;
    I->owner = getpid();
    I->nrings = d.max_threads;
    I->rings = (ctxprof__pebs_ring *)ctxprof__zalloc(d.max_threads, sizeof *I->rings, d.alloc_user);
    I->pfd =
        (struct pollfd *)ctxprof__zalloc((size_t)d.max_threads + 1, sizeof *I->pfd, d.alloc_user);
    I->pidx = (unsigned *)ctxprof__zalloc((size_t)d.max_threads + 1, sizeof *I->pidx, d.alloc_user);
    if (!I->rings || !I->pfd || !I->pidx) {
        ctxprof__pebs_free(I);
        return ctxprof__fail(&pb->error, CTXPROF_ERR_NOMEM, 0, "ctxprof_pebs: out of memory");
    }
    for (i = 0; i < I->nrings; i++)
        I->rings[i].fd = I->rings[i].tick_fd = -1;
    I->sink.fn = d.on_sample;
    I->sink.user = d.user;
    I->sink.arr = d.samples;
    I->sink.cap = d.samples ? d.samples_cap : 0;
    I->sink.len = &I->nsamples;

    rc = ctxprof__pebs_probe(pb, I, forced);
    snprintf(pb->explain_text, sizeof pb->explain_text, "%s", I->probe);
    if (rc != CTXPROF_OK) {
        *out_told = I->probe[0] != '\0';
        ctxprof__pebs_log(I, CTXPROF_LOG_ERROR, pb->error.detail);
        ctxprof__pebs_free(I);
        return rc;
    }
    ctxprof__pebs_log(I, CTXPROF_LOG_INFO, I->probe);
    if (d.mode == CTXPROF_PEBS_SIGNAL) {
        /* a period in ns of at least the tick signals per sample, as often
           as a ticker would; a hardware period (events) is at least a
           quarter as many ns at up to 4 GHz: no need to tick faster */
        if (I->level != CTXPROF_PEBS_LEVEL_SW)
            I->tick_ns = I->attr.sample_period / 4 > CTXPROF__PEBS_SIG_TICK_NS
                             ? I->attr.sample_period / 4
                             : CTXPROF__PEBS_SIG_TICK_NS;
        else if (I->attr.sample_period < CTXPROF__PEBS_SIG_TICK_NS)
            I->tick_ns = CTXPROF__PEBS_SIG_TICK_NS;
    }

    if (pthread_mutex_init(&I->mu, NULL) != 0 || pthread_cond_init(&I->cv, NULL) != 0) {
        ctxprof__pebs_free(I);
        return ctxprof__fail(&pb->error, CTXPROF_ERR_SYS, 0, "ctxprof_pebs: mutex init failed");
    }
    I->sync_init = 1;
    /* registered from before its first fd on (the fork handler closes
       them), so each failure below unregisters */
    ctxprof__pebs_register(I, pb);
    if (d.mode == CTXPROF_PEBS_READER) {
        sigset_t all, old;
        int e;
        pthread_mutex_lock(&ctxprof__pebs_reg_mu); /* created and stored as fork() sees it */
        I->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        e = errno;
        pthread_mutex_unlock(&ctxprof__pebs_reg_mu);
        if (I->efd < 0) {
            ctxprof__pebs_unregister(I, pb);
            ctxprof__pebs_free(I);
            return ctxprof__fail(&pb->error, CTXPROF_ERR_SYS, e, "ctxprof_pebs: eventfd");
        }
        /* the reader inherits a full mask: process signals never land on it */
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        e = pthread_create(&I->reader, NULL, ctxprof__pebs_reader_main, I);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (e != 0) {
            ctxprof__pebs_unregister(I, pb);
            ctxprof__pebs_free(I);
            return ctxprof__fail(&pb->error, CTXPROF_ERR_SYS, e,
                                 "ctxprof_pebs: cannot start the reader thread");
        }
        I->reader_started = 1;
        pthread_mutex_lock(&I->mu);
        while (!I->reader_tid)
            pthread_cond_wait(&I->cv, &I->mu);
        pthread_mutex_unlock(&I->mu);
    } else if (d.mode == CTXPROF_PEBS_SIGNAL) {
        struct sigaction sa;
        struct ctxprof__pebs_impl *none = NULL;
        int e = 0, taken;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = ctxprof__pebs_sig_handler;
        sa.sa_flags = SA_SIGINFO | SA_RESTART;
        sigemptyset(&sa.sa_mask);
        /* the slot, the handler and sig_installed in one step as fork()
           sees them: the child handler gives back what sig_installed says */
        pthread_mutex_lock(&ctxprof__pebs_reg_mu);
        taken = !__atomic_compare_exchange_n(&ctxprof__pebs_sig_owner, &none, I, 0,
                                             __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
        if (!taken) {
            if (sigaction(d.signo, &sa, &I->old_sa) == 0) {
                I->sig_installed = 1;
            } else {
                e = errno;
                __atomic_store_n(&ctxprof__pebs_sig_owner, (struct ctxprof__pebs_impl *)NULL,
                                 __ATOMIC_RELEASE);
            }
        }
        pthread_mutex_unlock(&ctxprof__pebs_reg_mu);
        if (taken || e) {
            ctxprof__pebs_unregister(I, pb);
            ctxprof__pebs_free(I);
            return taken ? ctxprof__fail(&pb->error, CTXPROF_ERR_INVAL, 0,
                                         "ctxprof_pebs: another sampler already uses signal mode")
                         : ctxprof__fail(&pb->error, CTXPROF_ERR_SYS, e, "ctxprof_pebs: sigaction");
        }
    }
    pb->level = I->level;
    pb->max_stack = (d.flags & CTXPROF_PEBS_CALLCHAIN) ? d.max_stack : 0;
    return CTXPROF_OK;
}

/* One pass of the reader thread (reader mode), which reaps the rings whose
   thread exited (it sees their POLLHUP) and drains the others. Caller holds
   I->mu; waits for the pass. */
CTXPROF__PRIV void ctxprof__pebs_reader_pass_locked(struct ctxprof__pebs_impl *I)
{
    uint64_t req = ++I->drain_req;
    ctxprof__pebs_wake(I);
    while (I->drain_done < req && !I->stop)
        pthread_cond_wait(&I->cv, &I->mu);
}

/* Closes the rings whose thread has exited, after their final drain: the
   caller in manual and signal modes, the reader in reader mode. Caller holds
   I->mu. */
CTXPROF__PRIV void ctxprof__pebs_reap_exited_locked(struct ctxprof__pebs_impl *I)
{
    if (I->d.mode != CTXPROF_PEBS_READER)
        ctxprof__pebs_reap_locked(I, 0);
    else
        ctxprof__pebs_reader_pass_locked(I);
}

CTXPROF_DEF int ctxprof_pebs_open(ctxprof_pebs *pb, const ctxprof_pebs_desc *desc)
{
    int rc, told = 0;
    if (!pb)
        return CTXPROF_ERR_INVAL;
    if (ctxprof__pebs_is_open(pb)) /* wiping it would lose its thread, rings and handler */
        return ctxprof__fail(&pb->error, CTXPROF_ERR_INVAL, 0,
                             "ctxprof_pebs: this sampler is open: close it first");
    memset(pb, 0, sizeof *pb);
    rc = ctxprof__pebs_open(pb, desc, &told);
    if (rc != CTXPROF_OK && !told) {
        /* explain() says why this open failed, not "not open" nor the story
           of a probe that worked before something else failed */
        char probe[sizeof pb->explain_text];
        const char *why = ctxprof_error_message(&pb->error);
        snprintf(probe, sizeof probe, "%s", pb->explain_text);
        if (strncmp(why, "ctxprof_pebs: ", 14) == 0)
            why += 14;
        snprintf(pb->explain_text, sizeof pb->explain_text, "ctxprof_pebs: open failed: %s", why);
        if (probe[0])
            ctxprof__pebs_cat(pb->explain_text, sizeof pb->explain_text,
                              " (the probe had found: %s)", probe);
    }
    return rc;
}

CTXPROF_DEF int ctxprof_pebs_attach(ctxprof_pebs *pb, int tid, uint64_t stack_base)
{
    struct ctxprof__pebs_impl *I;
    ctxprof__pebs_ring *slot = NULL;
    uint64_t stack_lo;
    int self, rc, pending = 0, pass;
    unsigned i;
    if ((rc = ctxprof__pebs_live(pb, &I)) != CTXPROF_OK)
        return rc;
    if (tid < 0) {
        rc = ctxprof__fail(&pb->error, CTXPROF_ERR_INVAL, 0, "ctxprof_pebs: tid %d", tid);
        goto failed;
    }
    self = tid == 0 || tid == ctxprof__pebs_gettid();
    if (tid == 0)
        tid = ctxprof__pebs_gettid();
    /* perf_event samples another process's thread as readily: not a thread
       of ours (ctxprof__icpp_thread_gone: tgkill in our pid namespace) but
       a live one (kill) is another process's; one that exited is left to
       the open below (ESRCH too) */
    if (!self && ctxprof__icpp_thread_gone((long)tid) &&
        (kill((pid_t)tid, 0) == 0 || errno != ESRCH)) {
        rc = ctxprof__fail(&pb->error, CTXPROF_ERR_INVAL, 0,
                           "ctxprof_pebs: thread %d is not a thread of this process (pid %ld)",
                           tid, (long)getpid());
        goto failed;
    }
#if defined(CTXPROF_ICPP_NO_HEIGHT)
    /* heights against the same base as ICPP training; a thread without one
       yet gets it at a later drain (the ring reader looks it up) */
    if (!stack_base) {
        stack_base =
            self ? (uint64_t)ctxprof_icpp_thread_base() : (uint64_t)ctxprof_icpp_base_of_tid(tid);
        pending = stack_base == 0;
    }
#endif
    /* before the lock: these read /proc/self/maps */
    if (!stack_base && self)
        stack_base = ctxprof__pebs_self_base(&stack_lo);
    else
        stack_lo = ctxprof__pebs_stack_lo(stack_base);
    pthread_mutex_lock(&I->mu);
    if (tid == I->reader_tid) {
        pthread_mutex_unlock(&I->mu);
        rc = ctxprof__fail(&pb->error, CTXPROF_ERR_INVAL, 0,
                           "ctxprof_pebs: thread %d is the reader thread", tid);
        goto failed;
    }
    for (pass = 0; pass < 2 && !slot; pass++) {
        int rescan;
        if (pass == 1) /* the table is full: reap the threads that exited */
            ctxprof__pebs_reap_exited_locked(I);
        do {
            rescan = 0;
            slot = NULL;
            for (i = 0; i < I->nrings && !rescan; i++) {
                ctxprof__pebs_ring *r = &I->rings[i];
                if (r->state == CTXPROF__PEBS_ACTIVE && r->tid == tid) {
                    if (!ctxprof__pebs_ring_dead(r) || I->stop) {
                        pthread_mutex_unlock(&I->mu);
                        return CTXPROF_OK; /* already sampled */
                    }
                    /* That ring's thread has exited and tid is another
                       thread's now (ids are reused): a ring stays active
                       until a drain reaps it (manual and signal modes) or
                       the reader's next pass. Reap it (final drain; counted
                       in threads_exited), then attach anew. */
                    if (I->d.mode != CTXPROF_PEBS_READER) {
                        ctxprof__pebs_ring_close(I, r, 1);
                    } else {
                        /* the reader closes it: a pass whose poll() came
                           after the death sees it; I->mu was released, so
                           the table is read again */
                        ctxprof__pebs_reader_pass_locked(I);
                        rescan = 1;
                    }
                }
                if (!slot && r->state == CTXPROF__PEBS_FREE && !r->busy)
                    slot = r;
            }
        } while (rescan);
    }
    if (!slot) {
        pthread_mutex_unlock(&I->mu);
        rc = ctxprof__fail(&pb->error, CTXPROF_ERR_FULL, 0,
                           "ctxprof_pebs: %u threads already attached (desc.max_threads)",
                           I->nrings);
        goto failed;
    }
    rc = ctxprof__pebs_ring_open(pb, I, slot, tid);
    if (rc == CTXPROF_OK) {
        slot->stack_base = stack_base;
        slot->stack_lo = stack_lo;
        slot->base_pending = pending;
        __atomic_store_n(&slot->state, CTXPROF__PEBS_ACTIVE, __ATOMIC_RELEASE);
        ctxprof__pebs_wake(I); /* the reader polls the new ring from now on */
    }
    pthread_mutex_unlock(&I->mu);
    if (rc == CTXPROF_OK)
        return rc;
    ctxprof__pebs_log(I, CTXPROF_LOG_WARN, pb->error.detail);
failed:
    /* counted for explain(), which otherwise tells only the probe's story */
    if (pb->error.sys_errno != ESRCH) {
        pthread_mutex_lock(&I->mu);
        I->closed.attach_failed++;
        snprintf(I->attach_err, sizeof I->attach_err, "%s", pb->error.detail);
        pthread_mutex_unlock(&I->mu);
    }
    return rc;
}

CTXPROF_DEF int ctxprof_pebs_attach_all(ctxprof_pebs *pb, size_t *out_n)
{
    struct ctxprof__pebs_impl *I;
    DIR *dir;
    struct dirent *e;
    size_t n = 0;
    int rc, first = CTXPROF_OK, self = ctxprof__pebs_gettid();
    if (out_n)
        *out_n = 0;
    if ((rc = ctxprof__pebs_live(pb, &I)) != CTXPROF_OK)
        return rc;
    { /* /proc of our pid namespace: its "self" is our pid */
        char self_link[32];
        ssize_t k = readlink("/proc/self", self_link, sizeof self_link - 1);
        if (k > 0 && (self_link[k] = '\0', atol(self_link) != (long)getpid()))
            return ctxprof__fail(&pb->error, CTXPROF_ERR_UNSUPPORTED, 0,
                                 "ctxprof_pebs: /proc is another pid namespace's (it says this "
                                 "process is %s, getpid() %ld): its thread ids are not ours; "
                                 "attach each thread from itself (tid 0)",
                                 self_link, (long)getpid());
    }
    dir = opendir("/proc/self/task");
    if (!dir)
        return ctxprof__fail(&pb->error, CTXPROF_ERR_SYS, errno, "ctxprof_pebs: /proc/self/task");
    while ((e = readdir(dir)) != NULL) {
        int tid = atoi(e->d_name), known = 0;
        unsigned i;
        if (tid <= 0 || tid == I->reader_tid)
            continue;
        pthread_mutex_lock(&I->mu);
        for (i = 0; i < I->nrings; i++) /* a ring of an exited thread of that id: attach reaps it */
            if (I->rings[i].state == CTXPROF__PEBS_ACTIVE && I->rings[i].tid == tid &&
                !ctxprof__pebs_ring_dead(&I->rings[i]))
                known = 1;
        pthread_mutex_unlock(&I->mu);
        if (known)
            continue;
        rc = ctxprof_pebs_attach(pb, tid == self ? 0 : tid, 0);
        if (rc == CTXPROF_OK)
            n++;
        else if (pb->error.sys_errno != ESRCH && first == CTXPROF_OK)
            first = rc; /* a thread that exited meanwhile is not an error */
    }
    closedir(dir);
    if (out_n)
        *out_n = n;
    return first;
}

CTXPROF_DEF int ctxprof_pebs_detach(ctxprof_pebs *pb, int tid)
{
    struct ctxprof__pebs_impl *I;
    ctxprof__pebs_ring *r = NULL;
    unsigned i;
    int rc;
    if ((rc = ctxprof__pebs_live(pb, &I)) != CTXPROF_OK)
        return rc;
    if (tid == 0)
        tid = ctxprof__pebs_gettid();
    pthread_mutex_lock(&I->mu);
    for (i = 0; i < I->nrings; i++)
        if (I->rings[i].state == CTXPROF__PEBS_ACTIVE && I->rings[i].tid == tid)
            r = &I->rings[i];
    if (!r) {
        pthread_mutex_unlock(&I->mu);
        return ctxprof__fail(&pb->error, CTXPROF_ERR_INVAL, 0,
                             "ctxprof_pebs: thread %d is not attached", tid);
    }
    if (I->d.mode == CTXPROF_PEBS_READER) {
        __atomic_store_n(&r->state, CTXPROF__PEBS_DETACH, __ATOMIC_RELEASE);
        ctxprof__pebs_wake(I);
        while (r->state == CTXPROF__PEBS_DETACH)
            pthread_cond_wait(&I->cv, &I->mu);
    } else {
        ctxprof__pebs_ring_close(I, r, 0);
    }
    pthread_mutex_unlock(&I->mu);
    return CTXPROF_OK;
}

CTXPROF_DEF int ctxprof_pebs_drain(ctxprof_pebs *pb)
{
    struct ctxprof__pebs_impl *I;
    int rc;
    if ((rc = ctxprof__pebs_live(pb, &I)) != CTXPROF_OK)
        return rc;
    pthread_mutex_lock(&I->mu);
    if (I->d.mode == CTXPROF_PEBS_READER) {
        uint64_t req = ++I->drain_req;
        ctxprof__pebs_wake(I);
        while (I->drain_done < req && !I->stop)
            pthread_cond_wait(&I->cv, &I->mu);
    } else {
        ctxprof__pebs_reap_locked(I, 1);
    }
    pthread_mutex_unlock(&I->mu);
    return CTXPROF_OK;
}

/* Sums closed and live counters; caller holds I->mu (or is the only user). */
CTXPROF__PRIV void ctxprof__pebs_stats_sum(const struct ctxprof__pebs_impl *I,
                                           ctxprof_pebs_stats *out)
{
    unsigned i;
    memset(out, 0, sizeof *out);
    ctxprof__pebs_stats_load(out, &I->closed);
    for (i = 0; i < I->nrings; i++)
        if (__atomic_load_n(&I->rings[i].state, __ATOMIC_ACQUIRE) != CTXPROF__PEBS_FREE) {
            ctxprof_pebs_stats live;
            memset(&live, 0, sizeof live);
            ctxprof__pebs_stats_load(out, &I->rings[i].st);
            ctxprof__pebs_read_counts(I, I->rings[i].fd, &live);
            out->kernel_lost += live.kernel_lost; /* times are totals of detached threads */
        }
}

CTXPROF_DEF void ctxprof_pebs_stats_get(const ctxprof_pebs *pb, ctxprof_pebs_stats *out)
{
    struct ctxprof__pebs_impl *I;
    if (!out)
        return;
    memset(out, 0, sizeof *out);
    if (!pb)
        return;
    I = pb->impl;
    if (!I) {
        *out = pb->final_stats;
        return;
    }
    if (I->forked || getpid() != I->owner) {
        ctxprof__pebs_stats_load(out, &I->closed);
        return;
    }
    pthread_mutex_lock(&I->mu);
    ctxprof__pebs_stats_sum(I, out);
    pthread_mutex_unlock(&I->mu);
}

/* probe story + warnings from the counters */
CTXPROF__PRIV void ctxprof__pebs_compose(const struct ctxprof__pebs_impl *I,
                                         const ctxprof_pebs_stats *st, char *buf, size_t n)
{
    snprintf(buf, n, "%s", I->probe);
    if (I->tick_ns)
        ctxprof__pebs_cat(buf, n,
                          "; signal mode: one signal per %llu ns of a thread's CPU time drains "
                          "its samples (one per sample would livelock at short periods)",
                          (unsigned long long)I->tick_ns);
    if (I->min_pages_used)
        ctxprof__pebs_cat(buf, n, "; ring reduced to %u pages by the locked-memory budget",
                          I->min_pages_used);
    if (st->lost || st->kernel_lost)
        ctxprof__pebs_cat(
            buf, n,
            "; WARNING: %llu samples lost to full rings (raise ring_pages or "
            "the period)",
            (unsigned long long)(st->lost > st->kernel_lost ? st->lost : st->kernel_lost));
    if (st->lost_samples)
        ctxprof__pebs_cat(buf, n, "; WARNING: the PMU dropped %llu samples",
                          (unsigned long long)st->lost_samples);
    if (st->throttles) {
        long rate = -1;
        ctxprof__pebs_read_long("/proc/sys/kernel/perf_event_max_sample_rate", &rate);
        ctxprof__pebs_cat(buf, n,
                          "; WARNING: the kernel throttled sampling %llu times "
                          "(perf_event_max_sample_rate=%ld): raise the period",
                          (unsigned long long)st->throttles, rate);
    }
    if (st->never_ran)
        ctxprof__pebs_cat(buf, n,
                          "; WARNING: %llu threads' events never ran (PMU counters busy: NMI "
                          "watchdog or another profiler)",
                          (unsigned long long)st->never_ran);
    if (st->desyncs)
        ctxprof__pebs_cat(buf, n, "; %llu ring desyncs recovered", (unsigned long long)st->desyncs);
    if (st->bad_records)
        ctxprof__pebs_cat(buf, n, "; %llu malformed records skipped",
                          (unsigned long long)st->bad_records);
    if (st->array_full)
        ctxprof__pebs_cat(buf, n, "; %llu samples beyond the array's capacity",
                          (unsigned long long)st->array_full);
    if (st->attach_failed)
        ctxprof__pebs_cat(buf, n, "; WARNING: %llu attach%s failed (the last: %s)",
                          (unsigned long long)st->attach_failed,
                          st->attach_failed == 1 ? "" : "es", I->attach_err);
}

CTXPROF_DEF const char *ctxprof_pebs_explain(const ctxprof_pebs *pb)
{
    struct ctxprof__pebs_impl *I;
    ctxprof_pebs_stats st;
    if (!pb)
        return "ctxprof_pebs: no sampler";
    I = pb->impl;
    if (!I || I->forked || getpid() != I->owner)
        return pb->explain_text[0] ? pb->explain_text : "ctxprof_pebs: not open";
    pthread_mutex_lock(&I->mu);
    ctxprof__pebs_stats_sum(I, &st);
    ctxprof__pebs_compose(I, &st, I->text, sizeof I->text);
    pthread_mutex_unlock(&I->mu);
    return I->text;
}

CTXPROF_DEF const ctxprof_pebs_sample *ctxprof_pebs_samples(const ctxprof_pebs *pb, size_t *out_n)
{
    size_t n = 0;
    const ctxprof_pebs_sample *arr = NULL;
    if (pb && pb->impl) {
        n = __atomic_load_n(&pb->impl->nsamples, __ATOMIC_ACQUIRE);
        arr = pb->impl->sink.arr;
        if (n > pb->impl->sink.cap)
            n = pb->impl->sink.cap;
    } else if (pb) {
        arr = pb->final_arr;
        n = pb->final_n;
    }
    if (out_n)
        *out_n = n;
    return arr;
}

CTXPROF_DEF void ctxprof_pebs_close(ctxprof_pebs *pb)
{
    struct ctxprof__pebs_impl *I = pb ? pb->impl : NULL;
    unsigned i;
    if (!I)
        return;
    if (I->forked || getpid() != I->owner) {
        /* forked child: the events are the parent's and their rings are not
           mapped here (VM_DONTCOPY; the address may hold something else by
           now). Only free memory: the mutex may have been held by a thread
           that does not exist here. */
        ctxprof__pebs_unregister(I, pb); /* closes the eventfd, unless the atfork handler did */
        ctxprof__pebs_sig_forget(I); /* done at fork already, unless no atfork handler ran */
        if (!I->forked) /* no atfork handler ran (raw clone): the fds are still ours */
            for (i = 0; i < I->nrings; i++) {
                if (I->rings[i].fd >= 0)
                    close(I->rings[i].fd);
                if (I->rings[i].tick_fd >= 0)
                    close(I->rings[i].tick_fd);
            }
        I->sync_init = 0;
        ctxprof__pebs_free(I);
        return;
    }
    if (I->reader_started) {
        pthread_mutex_lock(&I->mu);
        I->stop = 1;
        pthread_mutex_unlock(&I->mu);
        ctxprof__pebs_wake(I);
        pthread_join(I->reader, NULL);
    }
    pthread_mutex_lock(&I->mu);
    if (!I->reader_started)
        ctxprof__pebs_reap_locked(I, 0); /* exited threads count as such */
    for (i = 0; i < I->nrings; i++)
        if (I->rings[i].state != CTXPROF__PEBS_FREE)
            ctxprof__pebs_ring_close(I, &I->rings[i], 0);
    ctxprof__pebs_stats_sum(I, &pb->final_stats);
    pb->final_arr = I->sink.arr;
    pb->final_n = I->nsamples < I->sink.cap ? I->nsamples : I->sink.cap;
    ctxprof__pebs_compose(I, &pb->final_stats, pb->explain_text, sizeof pb->explain_text);
    pthread_mutex_unlock(&I->mu);
    if (I->sig_installed) {
        /* Every ring is closed (O_ASYNC cleared first): no new signal can be
           raised. One raised earlier may still be pending in some thread,
           and with SIGIO's default action (terminate) restored it would kill
           the process: discarded first. */
        ctxprof__sig_restore_flushed(I->d.signo, &I->old_sa);
        __atomic_store_n(&ctxprof__pebs_sig_owner, (struct ctxprof__pebs_impl *)NULL,
                         __ATOMIC_SEQ_CST);
        while (__atomic_load_n(&ctxprof__pebs_sig_active, __ATOMIC_SEQ_CST) != 0)
            sched_yield(); /* a handler still reads I */
    }
    ctxprof__pebs_unregister(I, pb);
    ctxprof__pebs_free(I);
}

/* ---- pebs: paths ---- */

#if defined(CTXPROF_ICPP_NO_HEIGHT)

#define CTXPROF__PEBS_PATH_MAX CTXPROF_PEBS_PATH_MAX
#define CTXPROF__PEBS_MAX_FRAME (1u << 20) /* larger bp - sp: rbp is no frame pointer */

CTXPROF_DEF int ctxprof_pebs_paths_init(ctxprof_pebs_paths *p, const ctxprof_pebs_paths_desc *d,
                                        ctxprof_error *err)
{
    ctxprof__error_clear(err);
    if (!p)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "ctxprof_pebs_paths: no pipeline");
    memset(p, 0, sizeof *p);
    if (!d || !d->map || !d->map->d)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "ctxprof_pebs_paths: no loaded path map");
    if (d->ambiguous < CTXPROF_PEBS_AMBIG_SPLIT || d->ambiguous > CTXPROF_PEBS_AMBIG_DROP)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "ctxprof_pebs_paths: ambiguous=%d unknown",
                             d->ambiguous);
    p->d = *d;
    p->alloc_user = d->alloc_user;
    p->path_weight = (uint64_t *)ctxprof__zalloc(d->map->paths ? d->map->paths : 1,
                                                 sizeof(uint64_t), d->alloc_user);
    if (!p->path_weight)
        return ctxprof__fail(err, CTXPROF_ERR_NOMEM, 0, "ctxprof_pebs_paths: out of memory");
    return CTXPROF_OK;
}

CTXPROF_DEF void ctxprof_pebs_paths_deinit(ctxprof_pebs_paths *p)
{
    if (p) {
        ctxprof__free(p->path_weight, p->alloc_user);
        memset(p, 0, sizeof *p);
    }
}

/* Whether ra can be a return address: ra - 1 (inside the call) lies in a
   function st knows, else one of the bound map m. */
CTXPROF__PRIV int ctxprof__pebs_is_code(const ctxprof_symtab *st, const ctxprof_icpp_map *m,
                                        uint64_t ra)
{
    if (ra < 2)
        return 0;
    return st ? ctxprof_symtab_func(st, (uintptr_t)ra - 1) != 0
              : ctxprof_icpp_map_func_of_pc(m, (uintptr_t)ra - 1) >= 0;
}

/* The CFA rule at pc among rows[n] (.eh_frame's: a bound map's, read by
   bind, or training's, read at its init); NULL when none is known there. */
CTXPROF__PRIV const ctxprof__icpp_cfa *ctxprof__pebs_rule(const ctxprof__icpp_cfa *rows, size_t n,
                                                          uintptr_t pc)
{
    const ctxprof__icpp_cfa *c = rows ? ctxprof__icpp_cfa_at(rows, n, pc) : NULL;
    return c && c->reg != CTXPROF__CFA_NONE ? c : NULL;
}

/* Whether rbp is still the caller's at the sample: a function's first
   instructions, its return, a leaf built without a frame (gcc 12 and
   clang 14 omit it where no stack is needed, -mno-omit-leaf-frame-pointer
   or not). Returns k > 0 when it is: the leaf's CFA is sp + 8 * k and its
   return address, the word just below, goes to *ra; 0 otherwise, or
   without the words. Where the leaf's CFA rule c at the PC is known
   (ctxprof__pebs_rule: the profile side's from its bound map, training's
   from its own table) the rule decides: CFA = rbp + off, the frame is set
   up (0); CFA = SP + 8k, the return address is the k-th word (whatever
   code it returns to: a caller outside the map too; 0 when it is past
   the copy). Else (c NULL) the top words guess: a return address (1), or
   rbp just pushed under one (2). A guess only: a set-up frame's top word
   can hold a code address too (clang's `push %rax` that realigns the
   stack after the saved registers stores whatever rax held, such as the
   address of a switch's jump-table target in the caller), and taken for
   a return address it put a bogus caller in the path and the walk; and
   a frameless leaf's saved registers hide the return address under them.
   Code is what st knows, else the bound map m. */
CTXPROF__PRIV unsigned ctxprof__pebs_top_ra(const ctxprof_symtab *st, const ctxprof_icpp_map *m,
                                            const ctxprof__icpp_cfa *c,
                                            const ctxprof_pebs_sample *s, uint64_t *ra)
{
    uint64_t w[2];
    if (!s->stack || s->stack_size < 16 || s->stack_addr != s->sp)
        return 0;
    if (c && c->reg == CTXPROF__CFA_FP)
        return 0;
    if (c && c->reg == CTXPROF__CFA_SP) {
        uint64_t k = c->off >= 8 && c->off % 8 == 0 ? (uint64_t)c->off / 8 : 0;
        if (k == 0 || k > s->stack_size / 8)
            return 0;
        memcpy(w, s->stack + 8 * (k - 1), 8); /* the rule's: not checked against m */
        *ra = w[0];
        return (unsigned)k;
    }
    memcpy(w, s->stack, 16);
    if (ctxprof__pebs_is_code(st, m, w[0])) {
        *ra = w[0];
        return 1;
    }
    if (w[0] == s->bp && ctxprof__pebs_is_code(st, m, w[1])) {
        *ra = w[1];
        return 2;
    }
    return 0;
}

/* Whether a frame record (saved rbp, return address) at fp lies inside the
   sample's stack copy, 8-aligned. fp is any word (rbp may be a general
   register): the bound is written without fp + 16, which wraps near 2^64. */
CTXPROF__PRIV int ctxprof__pebs_in_copy(const ctxprof_pebs_sample *s, uint64_t fp)
{
    uint64_t lo = s->stack_addr;
    return s->stack && s->stack_size >= 16 && fp >= lo && fp % 8 == 0 &&
           fp - lo <= (uint64_t)s->stack_size - 16;
}

/* Frames of the sample's user-stack copy: the frame-pointer chain from bp,
   read only inside the copy (strictly upward), as ICPP's saved words.
   When rbp is still the caller's (top, top_ra: ctxprof__pebs_top_ra's
   result for s) the leaf's own frame comes first from those top words. */
CTXPROF__PRIV void ctxprof__pebs_copy_frames(const ctxprof_pebs_sample *s, unsigned top,
                                             uint64_t top_ra, unsigned max, ctxprof_icpp_frames *fr)
{
    uint64_t fp = s->bp, lo = s->stack_addr;
    fr->n = 0;
    if (max > CTXPROF_ICPP_FRAMES)
        max = CTXPROF_ICPP_FRAMES;
    if (max && top) {
        fr->ra[0] = (uintptr_t)top_ra;
        fr->cfa[0] = (uintptr_t)(s->sp + 8 * top);
        fr->n = 1;
    }
    while (fr->n < max && ctxprof__pebs_in_copy(s, fp)) {
        uint64_t up, ra;
        memcpy(&up, s->stack + (fp - lo), 8);
        memcpy(&ra, s->stack + (fp - lo) + 8, 8);
        fr->ra[fr->n] = (uintptr_t)ra;
        fr->cfa[fr->n] = (uintptr_t)(fp + 16);
        fr->n++;
        if (up <= fp)
            break;
        fp = up;
    }
}

/* The user part of a sample's callchain as PCs, leaf first (return
   addresses minus one: inside their call instruction), into pcs[max]. The
   kernel unwinds from rbp, so while rbp is still the caller's the chain
   lacks the leaf's caller: ctxprof__pebs_top_ra finds it (top, top_ra: its
   result for s), and it is put back. *cfa_off gets CFA - SP, the size of
   the leaf's frame at the sample (its body's is the same in every call), 0
   when rbp is no frame pointer; *frames the chain's entries (markers
   excluded); *cut 1 when pcs was too small. Returns the count, 0 without a
   user part. */
CTXPROF__PRIV size_t ctxprof__pebs_user_chain(const ctxprof_pebs_sample *s, unsigned top,
                                              uint64_t top_ra, uintptr_t *pcs, size_t max,
                                              uint32_t *frames, uint64_t *cfa_off, int *cut)
{
    uint64_t ctx = 0;
    size_t n = 0;
    uint32_t k;
    *frames = 0;
    *cut = 0;
    if (top)
        *cfa_off = 8 * top;
    else if (s->bp >= s->sp && s->bp - s->sp < CTXPROF__PEBS_MAX_FRAME)
        *cfa_off = s->bp + 16 - s->sp;
    else
        *cfa_off = 0;
    if (!s->callchain)
        return 0;
    for (k = 0; k < s->callchain_nr; k++) {
        uint64_t ip = s->callchain[k];
        if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
            ctx = ip; /* PERF_CONTEXT_KERNEL, _USER, ...: whose frames follow */
            continue;
        }
        ++*frames;
        if (ctx != (uint64_t)PERF_CONTEXT_USER)
            continue;
        if (n + 2 > max) {
            *cut = 1;
            return n;
        }
        pcs[n] = (uintptr_t)(n ? ip - 1 : ip);
        if (++n == 1 && top)
            pcs[n++] = (uintptr_t)(top_ra - 1);
    }
    return n;
}

/* The callchain's path as map function ids, root first (frames outside
   the map skipped, as training never sees them); 0 when unusable. top,
   top_ra: ctxprof__pebs_top_ra's result for s. */
CTXPROF__PRIV size_t ctxprof__pebs_truth(const ctxprof_icpp_map *m, const ctxprof_pebs_sample *s,
                                         unsigned top, uint64_t top_ra, uint32_t *out, size_t max)
{
    uintptr_t pcs[CTXPROF__PEBS_PATH_MAX + 8];
    uint64_t cfa_off;
    uint32_t frames;
    size_t n = 0, i, np;
    long leaf;
    int cut;
    np = ctxprof__pebs_user_chain(s, top, top_ra, pcs, CTXPROF__PEBS_PATH_MAX + 8, &frames,
                                  &cfa_off, &cut);
    if (cut || np == 0 || (leaf = ctxprof_icpp_map_func_of_pc(m, pcs[0])) < 0)
        return 0;
    for (i = np; i-- > 1;) { /* root first; the leaf, looked up above, last */
        long f = ctxprof_icpp_map_func_of_pc(m, pcs[i]);
        if (f >= 0) {
            if (n == max)
                return 0;
            out[n++] = (uint32_t)f;
        }
    }
    if (n == max)
        return 0;
    out[n++] = (uint32_t)leaf;
    return n;
}

CTXPROF__PRIV int ctxprof__pebs_same_path(const ctxprof_icpp_map *m, uint32_t path,
                                          const uint32_t *truth, size_t nt, uint32_t *buf)
{
    size_t n = ctxprof_icpp_map_path_funcs(m, path, buf, CTXPROF__PEBS_PATH_MAX);
    return n == nt && n <= CTXPROF__PEBS_PATH_MAX && memcmp(buf, truth, n * sizeof *buf) == 0;
}

CTXPROF__PRIV void ctxprof__pebs_give(ctxprof_pebs_paths *p, uint32_t path, uint64_t w,
                                      uint32_t *buf)
{
    size_t n;
    if (!w)
        return;
    p->path_weight[path] += w;
    p->st.weight += w;
    if (p->d.on_path) {
        n = ctxprof_icpp_map_path_funcs(p->d.map, path, buf, CTXPROF__PEBS_PATH_MAX);
        if (n <= CTXPROF__PEBS_PATH_MAX)
            p->d.on_path(p->d.user, buf, n, w);
    }
}

CTXPROF_DEF void ctxprof_pebs_paths_sample(void *pipeline, const ctxprof_pebs_sample *s)
{
    ctxprof_pebs_paths *p = (ctxprof_pebs_paths *)pipeline;
    const ctxprof_icpp_map *m = p->d.map;
    uint32_t truth[CTXPROF__PEBS_PATH_MAX], buf[CTXPROF__PEBS_PATH_MAX];
    ctxprof_icpp_frames fr;
    ctxprof_icpp_result r;
    uint64_t w = p->d.unit_weight ? 1 : (s->period ? s->period : 1), top_ra = 0;
    unsigned top = 0;
    size_t nt, i;
    p->st.samples++;
    if (s->flags & CTXPROF_PEBS_SAMPLE_NO_REGS) {
        p->st.no_regs++;
        return;
    }
    if (s->flags & CTXPROF_PEBS_SAMPLE_STACK_TOP) {
        p->st.nobase++; /* not the base training used: the CID would be wrong */
        return;
    }
    /* the stack copy's top words, once: the walk's and the check's. Without
       a height (no base, or SP off the thread's stack: a coroutine's, a
       sigaltstack) the copy is no part of the thread's stack: never read */
    if (s->stack && s->height && (p->d.max_walk || s->callchain)) {
        const ctxprof__icpp_bound *b = ctxprof__icpp_bound_of(m->d);
        const ctxprof__icpp_cfa *c =
            b ? ctxprof__pebs_rule(b->cfa, b->ncfa, (uintptr_t)s->ip) : NULL;
        top = ctxprof__pebs_top_ra(NULL, m, c, s, &top_ra);
    }
    fr.n = 0;
    if (p->d.max_walk && s->stack && s->height)
        ctxprof__pebs_copy_frames(s, top, top_ra, p->d.max_walk, &fr);
    /* height against the thread's base, as in training: sample.height */
    ctxprof_icpp_resolve(m, (uintptr_t)s->ip, (uintptr_t)s->sp,
                         s->height ? (uintptr_t)(s->sp + s->height) : 0, (uintptr_t)s->bp, &fr,
                         p->d.max_walk && s->stack ? p->d.max_walk : 0, &r);
    if (r.walked) {
        p->st.walked++;
        p->st.frames += r.walked;
    }
    nt = (r.kind == CTXPROF_ICPP_PRECISE || r.kind == CTXPROF_ICPP_AMBIGUOUS ||
          r.kind == CTXPROF_ICPP_MISSING || r.kind == CTXPROF_ICPP_INCORRECT)
             ? ctxprof__pebs_truth(m, s, top, top_ra, truth, CTXPROF__PEBS_PATH_MAX)
             : 0;
    if (nt)
        p->st.checked++;
    switch (r.kind) {
    case CTXPROF_ICPP_OUTSIDE:
        p->st.outside++;
        return;
    case CTXPROF_ICPP_NOBASE:
        p->st.nobase++;
        return;
    case CTXPROF_ICPP_MISSING:
    case CTXPROF_ICPP_INCORRECT: /* no path to give the weight to */
        if (r.kind == CTXPROF_ICPP_MISSING)
            p->st.missing++;
        else
            p->st.ruled_out++;
        if (nt) {
            int known = 0;
            /* is the true path in the map at all, at any height? (a scan of
               the map: evaluation mode only, with callchains) */
            for (i = 0; i < m->paths && !known; i++) {
                ctxprof_icpp_path_info pi;
                if (ctxprof_icpp_map_path(m, (uint32_t)i, &pi) == CTXPROF_OK &&
                    pi.leaf == truth[nt - 1] && pi.len == nt &&
                    ctxprof__pebs_same_path(m, (uint32_t)i, truth, nt, buf))
                    known = 1;
            }
            if (!known)
                p->st.untrained++;
        }
        return;
    case CTXPROF_ICPP_PRECISE:
        p->st.precise++;
        if (nt) {
            if (ctxprof__pebs_same_path(m, r.path, truth, nt, buf))
                p->st.correct++;
            else
                p->st.incorrect++;
        }
        ctxprof__pebs_give(p, r.path, w, buf);
        return;
    default: /* ambiguous */
        p->st.ambiguous++;
        if (nt)
            for (i = 0; i < r.degree; i++)
                if (ctxprof__pebs_same_path(m, r.candidates[i], truth, nt, buf)) {
                    p->st.truth_in++;
                    break;
                }
        if (p->d.ambiguous == CTXPROF_PEBS_AMBIG_DROP)
            return;
        {
            /* The counts are any u64 (the map parser takes them as they
               are): their sum is taken in double, which cannot wrap, and
               each share is w * (count / total) clamped to what is left,
               so the shares never exceed w and a double out of the u64
               range is never converted. The rounding remainder goes to the
               likeliest candidate: the parts sum to w exactly. */
            double total = 0;
            uint64_t best = 0, given = 0;
            uint32_t bi = r.candidates[0];
            for (i = 0; i < r.degree; i++) {
                ctxprof_icpp_path_info pi;
                ctxprof_icpp_map_path(m, r.candidates[i], &pi);
                total += (double)pi.count;
                if (pi.count > best) {
                    best = pi.count;
                    bi = r.candidates[i];
                }
            }
            if (p->d.ambiguous == CTXPROF_PEBS_AMBIG_LIKELIEST || total == 0) {
                ctxprof__pebs_give(p, bi, w, buf);
                return;
            }
            for (i = 0; i < r.degree; i++) { /* shares by training count */
                ctxprof_icpp_path_info pi;
                uint64_t share, left = w - given;
                double part;
                ctxprof_icpp_map_path(m, r.candidates[i], &pi);
                part = (double)pi.count / total;
                part = (double)w * (part < 1 ? part : 1);
                /* part < (double)left implies part <= left (a double below
                   the rounding of left is at most left), so the conversion
                   is in range */
                share = part < (double)left ? (uint64_t)part : left;
                given += share;
                ctxprof__pebs_give(p, r.candidates[i], share, buf);
            }
            ctxprof__pebs_give(p, bi, w - given, buf); /* rounding remainder */
        }
        return;
    }
}

/* ---- pebs: training ----

   Two bounded open-addressing tables, allocated at init: a trie of call
   paths (node = (parent, function id), node 0 the root) and the entries
   (node, height, frame offset) -> samples. The frame offset, CFA - SP,
   is the leaf's frame size at the sample (ctxprof__pebs_user_chain, which
   also puts back the caller a frameless state hides, where the leaf's
   CFA rule, read at init, or else the stack copy's top words say): in
   the body it is the same in every call, while prologue and epilogue
   states (entry, pushes and pops of saved registers, the return) share
   the body's path but not its SP. Only each leaf function's most sampled
   offset - its body's - is written to the map, with the samples at other
   offsets whose CFA was exact moved to the body's height (eexact). */

CTXPROF__PRIV uint64_t ctxprof__pebs_tn_hash(uint32_t parent, uintptr_t func)
{
    return ctxprof_mix64((uint64_t)func ^ ((uint64_t)parent << 40) ^ ((uint64_t)parent >> 24));
}

CTXPROF__PRIV uint64_t ctxprof__pebs_te_hash(uint32_t node, uint64_t height, uint32_t off)
{
    return ctxprof_mix64(ctxprof_mix64(height) ^ ((uint64_t)node << 20) ^ off);
}

/* Smallest power of two >= 2 * n (tables at most half full). */
CTXPROF__PRIV size_t ctxprof__pebs_pow2(size_t n)
{
    size_t c = 64;
    while (c < 2 * n)
        c *= 2;
    return c;
}

/* Whether the function of symbol e is one the map records. */
CTXPROF__PRIV int ctxprof__pebs_train_sel(const ctxprof_pebs_train *t, const struct ctxprof__sym *e)
{
    return e && (t->d.all_objects || e->obj == 0); /* object 0: the executable */
}

/* Reads the CFA rules of the functions training records (their PC ranges
   from the symbol table) into t->cfa; none when that fails (the frames
   are guessed then), with t->cfa_funcs 0. */
CTXPROF__PRIV void ctxprof__pebs_train_cfa(ctxprof_pebs_train *t)
{
    const ctxprof_symtab *st = t->d.symtab;
    ctxprof__icpp_pcrange *r;
    size_t i, n = 0;
    r = (ctxprof__icpp_pcrange *)ctxprof__alloc(st->count, sizeof *r, t->d.alloc_user);
    if (!r)
        return;
    for (i = 0; i < st->count; i++) /* sorted by start already */
        if (ctxprof__pebs_train_sel(t, &st->syms[i])) {
            r[n].start = st->syms[i].start;
            r[n].end = st->syms[i].end;
            r[n].func = 0;
            n++;
        }
    if (n && ctxprof__cfi_load(r, n, t->d.alloc_user, &t->cfa, &t->ncfa) == CTXPROF_OK)
        for (i = 0; i < n; i++)
            if (ctxprof__pebs_rule(t->cfa, t->ncfa, r[i].start))
                t->cfa_funcs++;
    ctxprof__free(r, t->d.alloc_user);
}

CTXPROF_DEF int ctxprof_pebs_train_init(ctxprof_pebs_train *t, const ctxprof_pebs_train_desc *d,
                                        ctxprof_error *err)
{
    size_t ns, es;
    ctxprof__error_clear(err);
    if (!t)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "ctxprof_pebs_train: no sink");
    memset(t, 0, sizeof *t);
    if (!d || !d->symtab || !d->symtab->count)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0,
                             "ctxprof_pebs_train: no symbol table (ctxprof_symtab_init)");
    t->d = *d;
    if (!t->d.max_nodes)
        t->d.max_nodes = 65536;
    if (!t->d.max_entries)
        t->d.max_entries = 65536;
    if (!t->d.max_stack)
        t->d.max_stack = 127;
    if (!t->d.min_count)
        t->d.min_count = 1;
    if (t->d.max_nodes > UINT32_MAX / 4 || t->d.max_entries > UINT32_MAX / 4)
        return ctxprof__fail(err, CTXPROF_ERR_RANGE, 0, "ctxprof_pebs_train: tables too large");
    ns = ctxprof__pebs_pow2(t->d.max_nodes);
    es = ctxprof__pebs_pow2(t->d.max_entries);
    t->nfunc = (uintptr_t *)ctxprof__alloc(t->d.max_nodes + 1, sizeof *t->nfunc, d->alloc_user);
    t->nparent = (uint32_t *)ctxprof__alloc(t->d.max_nodes + 1, sizeof *t->nparent, d->alloc_user);
    t->nslots = (uint32_t *)ctxprof__zalloc(ns, sizeof *t->nslots, d->alloc_user);
    t->enode = (uint32_t *)ctxprof__alloc(t->d.max_entries, sizeof *t->enode, d->alloc_user);
    t->eoff = (uint32_t *)ctxprof__alloc(t->d.max_entries, sizeof *t->eoff, d->alloc_user);
    t->eheight = (uint64_t *)ctxprof__alloc(t->d.max_entries, sizeof *t->eheight, d->alloc_user);
    t->ecount = (uint64_t *)ctxprof__alloc(t->d.max_entries, sizeof *t->ecount, d->alloc_user);
    t->eexact = (uint64_t *)ctxprof__alloc(t->d.max_entries, sizeof *t->eexact, d->alloc_user);
    t->eseen = (uint64_t *)ctxprof__alloc(t->d.max_entries, sizeof *t->eseen, d->alloc_user);
    t->eslots = (uint32_t *)ctxprof__zalloc(es, sizeof *t->eslots, d->alloc_user);
    if (!t->nfunc || !t->nparent || !t->nslots || !t->enode || !t->eoff || !t->eheight ||
        !t->ecount || !t->eexact || !t->eseen || !t->eslots) {
        ctxprof_pebs_train_deinit(t);
        return ctxprof__fail(err, CTXPROF_ERR_NOMEM, 0, "ctxprof_pebs_train: out of memory");
    }
    t->nmask = ns - 1;
    t->emask = es - 1;
    t->nfunc[0] = 0;
    t->nparent[0] = 0;
    t->nodes = 1;
    ctxprof__pebs_train_cfa(t);
    return CTXPROF_OK;
}

CTXPROF_DEF void ctxprof_pebs_train_deinit(ctxprof_pebs_train *t)
{
    void *ud;
    if (!t)
        return;
    ud = t->d.alloc_user;
    ctxprof__free(t->nfunc, ud);
    ctxprof__free(t->nparent, ud);
    ctxprof__free(t->nslots, ud);
    ctxprof__free(t->enode, ud);
    ctxprof__free(t->eoff, ud);
    ctxprof__free(t->eheight, ud);
    ctxprof__free(t->ecount, ud);
    ctxprof__free(t->eexact, ud);
    ctxprof__free(t->eseen, ud);
    ctxprof__free(t->eslots, ud);
    ctxprof__free(t->cfa, ud);
    memset(t, 0, sizeof *t);
}

/* Child of parent for func, created when absent; 0 when the table is full. */
CTXPROF__PRIV uint32_t ctxprof__pebs_train_child(ctxprof_pebs_train *t, uint32_t parent,
                                                 uintptr_t func)
{
    size_t i = (size_t)ctxprof__pebs_tn_hash(parent, func) & t->nmask;
    while (t->nslots[i]) {
        uint32_t v = t->nslots[i] - 1;
        if (t->nparent[v] == parent && t->nfunc[v] == func)
            return v;
        i = (i + 1) & t->nmask;
    }
    if (t->nodes > t->d.max_nodes)
        return 0;
    t->nfunc[t->nodes] = func;
    t->nparent[t->nodes] = parent;
    t->nslots[i] = (uint32_t)t->nodes + 1;
    return (uint32_t)t->nodes++;
}

/* Counts a sample (leaf 1; 2: its CFA exact, from its rule) or a caller
   on its stack (leaf 0) in the entry (node, height, frame size); -1 when
   the table is full (counted). */
CTXPROF__PRIV int ctxprof__pebs_train_add(ctxprof_pebs_train *t, uint32_t node, uint64_t height,
                                          uint64_t off, int leaf)
{
    uint32_t o = (uint32_t)off;
    size_t j = (size_t)ctxprof__pebs_te_hash(node, height, o) & t->emask;
    while (t->eslots[j]) {
        uint32_t e = t->eslots[j] - 1;
        if (t->enode[e] == node && t->eheight[e] == height && t->eoff[e] == o) {
            (leaf ? t->ecount : t->eseen)[e]++;
            t->eexact[e] += leaf == 2;
            return 0;
        }
        j = (j + 1) & t->emask;
    }
    if (t->entries >= t->d.max_entries) {
        t->st.full++;
        return -1;
    }
    t->enode[t->entries] = node;
    t->eheight[t->entries] = height;
    t->eoff[t->entries] = o;
    t->ecount[t->entries] = leaf != 0;
    t->eexact[t->entries] = leaf == 2;
    t->eseen[t->entries] = leaf == 0;
    t->eslots[j] = (uint32_t)t->entries + 1;
    t->entries++;
    return 0;
}

CTXPROF_DEF void ctxprof_pebs_train_sample(void *train, const ctxprof_pebs_sample *s)
{
    ctxprof_pebs_train *t = (ctxprof_pebs_train *)train;
    const ctxprof_symtab *st = t->d.symtab;
    const struct ctxprof__sym *leaf;
    const ctxprof__icpp_cfa *rule;
    uintptr_t pcs[CTXPROF__PEBS_PATH_MAX + 8];
    uint32_t nodes[CTXPROF__PEBS_PATH_MAX + 8];
    uint64_t off, top_ra = 0;
    uint32_t frames, node = 0;
    size_t np, n = 0, i;
    unsigned top;
    int cut, exact;
    t->st.samples++;
    if ((s->flags & (CTXPROF_PEBS_SAMPLE_NO_REGS | CTXPROF_PEBS_SAMPLE_STACK_TOP)) || !s->height) {
        t->st.nobase++;
        return;
    }
    leaf = ctxprof__symtab_find(st, (uintptr_t)s->ip);
    if (!ctxprof__pebs_train_sel(t, leaf)) {
        t->st.outside++;
        return;
    }
    /* the leaf's CFA rule decides where its frame is; without one, the
       stack copy's top words guess */
    rule = ctxprof__pebs_rule(t->cfa, t->ncfa, (uintptr_t)s->ip);
    top = ctxprof__pebs_top_ra(st, NULL, rule, s, &top_ra);
    np = ctxprof__pebs_user_chain(s, top, top_ra, pcs, CTXPROF__PEBS_PATH_MAX + 8, &frames, &off,
                                  &cut);
    /* the rule says rbp is the caller's: the return address must be in the
       copy (else the caller is lost), and rbp at or above the leaf's CFA
       (else it is a register of code built without frame pointers, and
       the kernel's chain from it garbage) */
    if (rule && rule->reg == CTXPROF__CFA_SP &&
        (!top || s->bp < s->sp + off || s->bp - s->sp >= CTXPROF__PEBS_MAX_FRAME))
        off = 0;
    exact = 0;
    if (rule && off) { /* the frame size is the rule's CFA - SP: exact */
        uint64_t at = rule->reg == CTXPROF__CFA_SP ? s->sp : s->bp;
        exact = at + (uint64_t)(int64_t)rule->off - s->sp == off;
    }
    if (np == 0) {
        t->st.no_chain++;
        return;
    }
    /* PEBS: the chain is unwound from the interrupt's registers, a few
       instructions after the record's: the same function only (at the
       other levels it is the sampled IP itself) */
    if (pcs[0] != (uintptr_t)s->ip && ctxprof_symtab_func(st, pcs[0]) != leaf->func) {
        t->st.mismatch++;
        return;
    }
    if (cut || frames >= t->d.max_stack) {
        t->st.truncated++; /* the root may be cut off */
        return;
    }
    if (off == 0) {
        t->st.frameless++;
        return;
    }
    for (i = np; i-- > 0;) { /* root first; other objects invisible, as to the hooks */
        const struct ctxprof__sym *e = i ? ctxprof__symtab_find(st, pcs[i]) : leaf;
        nodes[i] = 0;
        if (!ctxprof__pebs_train_sel(t, e))
            continue;
        node = ctxprof__pebs_train_child(t, node, e->func);
        if (!node) {
            t->st.full++;
            return;
        }
        nodes[i] = node;
        n++;
    }
    if (n > CTXPROF__PEBS_PATH_MAX) {
        t->st.truncated++;
        return;
    }
    if (ctxprof__pebs_train_add(t, node, s->height, off, exact ? 2 : 1))
        return;
    t->st.used++;
    if (!exact)
        t->st.guessed++;
    /* the callers' heights and frame sizes, from the frame-pointer chain in
       the stack copy (the words the kernel's unwinder read): a caller's SP
       at the call is its callee's CFA; its own CFA is its frame + 16 */
    {
        uint64_t cfa = s->sp + off, fp = s->bp, lo = s->stack_addr, base = s->sp + s->height;
        for (i = 1; i < np && s->stack && s->stack_addr == s->sp; i++) {
            uint64_t up, ra, ccfa;
            if (i > 1 || !top) { /* fp: this caller's callee's frame */
                if (!ctxprof__pebs_in_copy(s, fp))
                    break;
                memcpy(&up, s->stack + (fp - lo), 8);
                memcpy(&ra, s->stack + (fp - lo) + 8, 8);
                if (ra - 1 != pcs[i] || up <= fp)
                    break; /* not the chain the kernel read */
                fp = up;
            }
            ccfa = fp + 16; /* fp is now the caller's own frame */
            if (cfa > base || ccfa <= cfa || ccfa - cfa >= CTXPROF__PEBS_MAX_FRAME)
                break;
            if (nodes[i] && ctxprof__pebs_train_add(t, nodes[i], base - cfa, ccfa - cfa, 0))
                break;
            cfa = ccfa;
        }
    }
}

/* Entries sorted by leaf function and frame offset, to find each
   function's body offset. */
typedef struct ctxprof__pebs_tsort {
    uintptr_t func;
    uint32_t off, entry;
} ctxprof__pebs_tsort;

CTXPROF__PRIV int ctxprof__pebs_tsort_cmp(const void *a, const void *b)
{
    const ctxprof__pebs_tsort *x = (const ctxprof__pebs_tsort *)a;
    const ctxprof__pebs_tsort *y = (const ctxprof__pebs_tsort *)b;
    if (x->func != y->func)
        return x->func < y->func ? -1 : 1;
    if (x->off != y->off)
        return x->off < y->off ? -1 : 1;
    return x->entry < y->entry ? -1 : x->entry > y->entry;
}

/* What goes to the map: an entry at its function's body offset, or the
   exact part of one at another offset moved to the body's height; cnt:
   its samples as leaf and as caller (for min_count), count: as leaf.
   Sorted by (node, height) to merge them. */
typedef struct ctxprof__pebs_tkeep {
    uint64_t height, cnt, count;
    uint32_t node;
} ctxprof__pebs_tkeep;

CTXPROF__PRIV int ctxprof__pebs_tkeep_cmp(const void *a, const void *b)
{
    const ctxprof__pebs_tkeep *x = (const ctxprof__pebs_tkeep *)a;
    const ctxprof__pebs_tkeep *y = (const ctxprof__pebs_tkeep *)b;
    if (x->node != y->node)
        return x->node < y->node ? -1 : 1;
    return x->height < y->height ? -1 : x->height > y->height;
}

CTXPROF_DEF int ctxprof_pebs_train_map(ctxprof_pebs_train *t, ctxprof_icpp_map *out,
                                       ctxprof_error *err)
{
    ctxprof__pebs_tsort *v = NULL;
    ctxprof__pebs_tkeep *keep = NULL;
    struct ctxprof__icpp_mapdata *md = NULL;
    size_t ne, nk = 0, a, b, c;
    int rc = CTXPROF_OK;
    ctxprof__error_clear(err);
    if (!t || !t->nfunc || !out)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "ctxprof_pebs_train: no sink or map");
    if (t->st.samples > 0 && t->st.used == 0) /* an empty map would look like a trained one */
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0,
                             "ctxprof_pebs_train: none of the %llu samples trained a path: %llu "
                             "outside the symbol table's functions (a stripped binary?), %llu "
                             "without callchain, %llu without ICPP base",
                             (unsigned long long)t->st.samples, (unsigned long long)t->st.outside,
                             (unsigned long long)t->st.no_chain, (unsigned long long)t->st.nobase);
    ne = t->entries;
    v = (ctxprof__pebs_tsort *)ctxprof__alloc(ne ? ne : 1, sizeof *v, t->d.alloc_user);
    keep = (ctxprof__pebs_tkeep *)ctxprof__alloc(ne ? ne : 1, sizeof *keep, t->d.alloc_user);
    md = ctxprof__icpp_md_new();
    if (!v || !keep || !md)
        goto nomem;
    ctxprof__icpp_build_hex(t->d.symtab, md->build);
    for (a = 0; a < ne; a++) {
        v[a].func = t->nfunc[t->enode[a]];
        v[a].off = t->eoff[a];
        v[a].entry = (uint32_t)a;
    }
    qsort(v, ne, sizeof *v, ctxprof__pebs_tsort_cmp);
    t->st.unsettled = t->st.folded = t->st.rare = 0;
    for (a = 0; a < ne; a = b) { /* one leaf function: v[a, b) */
        uint64_t best = 0, sum;
        uint32_t boff = 0;
        for (b = a; b < ne && v[b].func == v[a].func; b = c) {
            for (sum = 0, c = b; c < ne && v[c].func == v[a].func && v[c].off == v[b].off; c++)
                sum += t->ecount[v[c].entry] + t->eseen[v[c].entry];
            if (sum >= best) { /* ties: the larger offset, the deeper SP of the body */
                best = sum;
                boff = v[b].off;
            }
        }
        for (c = a; c < b; c++) {
            uint32_t e = v[c].entry;
            uint64_t h = t->eheight[e], cnt = t->ecount[e] + t->eseen[e], count = t->ecount[e];
            if (v[c].off != boff) {
                /* a push/pop state: its samples whose CFA was exact are the
                   body's, at base - CFA + the body's offset; the others
                   (their CFA guessed) are left out */
                cnt = count = h >= v[c].off ? t->eexact[e] : 0;
                t->st.unsettled += t->ecount[e] - count;
                t->st.folded += count;
                if (!count)
                    continue;
                h = h - v[c].off + boff;
            }
            keep[nk].node = t->enode[e];
            keep[nk].height = h;
            keep[nk].cnt = cnt;
            keep[nk].count = count;
            nk++;
        }
    }
    if (nk > 1)
        qsort(keep, nk, sizeof *keep, ctxprof__pebs_tkeep_cmp);
    for (a = 0; a < nk; a = b) { /* one (node, height): keep[a, b) */
        uintptr_t fs[CTXPROF__PEBS_PATH_MAX];
        uint64_t cnt = 0, count = 0;
        uint32_t x, mn = 0;
        size_t len = 0;
        for (b = a; b < nk && keep[b].node == keep[a].node && keep[b].height == keep[a].height;
             b++) {
            cnt += keep[b].cnt;
            count += keep[b].count;
        }
        if (cnt < t->d.min_count) {
            t->st.rare += count;
            continue;
        }
        for (x = keep[a].node; x != 0 && len < CTXPROF__PEBS_PATH_MAX; x = t->nparent[x])
            fs[len++] = t->nfunc[x];
        while (len--) { /* root first */
            char tmp[40];
            const char *nm = ctxprof_symtab_name(t->d.symtab, fs[len]);
            long f;
            if (!nm) {
                snprintf(tmp, sizeof tmp, "?%#llx", (unsigned long long)fs[len]);
                nm = tmp;
            }
            f = ctxprof__strtab_intern(&md->names, nm);
            if (f < 0 || (mn = ctxprof__icpp_md_child(md, mn, (uint32_t)f)) == CTXPROF__ICPP_NONE)
                goto nomem;
        }
        if (ctxprof__icpp_md_path(md, mn, keep[a].height, count))
            goto nomem;
    }
    if (ctxprof__icpp_md_finish(md))
        goto nomem;
    ctxprof__icpp_map_take(out, md);
    md = NULL;
    goto done;
nomem:
    rc = ctxprof__fail(err, CTXPROF_ERR_NOMEM, 0, "ctxprof_pebs_train: out of memory");
done:
    ctxprof__icpp_md_free(md);
    ctxprof__free(v, t->d.alloc_user);
    ctxprof__free(keep, t->d.alloc_user);
    return rc;
}

CTXPROF_DEF int ctxprof_pebs_train_save(ctxprof_pebs_train *t, const char *path, ctxprof_error *err)
{
    ctxprof_icpp_map m;
    int rc;
    if (!path)
        return ctxprof__fail(err, CTXPROF_ERR_INVAL, 0, "ctxprof_pebs_train: no file name");
    memset(&m, 0, sizeof m);
    rc = ctxprof_pebs_train_map(t, &m, err);
    if (rc == CTXPROF_OK)
        rc = ctxprof_icpp_map_save(&m, path, err);
    ctxprof_icpp_map_deinit(&m);
    return rc;
}

#endif /* ICPP */

#ifdef __cplusplus
CTXPROF__CXX_QUIET_END
}
#endif

#else /* !__linux__ */

#ifdef __cplusplus
extern "C" {
CTXPROF__CXX_QUIET_BEGIN
#endif

/* ==== pebs: implementation (not Linux: every call is unsupported) ==== */

#define CTXPROF__PEBS_NOT_LINUX "ctxprof_pebs: perf_event sampling needs Linux"

CTXPROF_DEF int ctxprof_pebs_open(ctxprof_pebs *pb, const ctxprof_pebs_desc *desc)
{
    (void)desc;
    if (pb) {
        memset(pb, 0, sizeof *pb);
        snprintf(pb->explain_text, sizeof pb->explain_text, "%s", CTXPROF__PEBS_NOT_LINUX);
        return ctxprof__fail(&pb->error, CTXPROF_ERR_UNSUPPORTED, 0, CTXPROF__PEBS_NOT_LINUX);
    }
    return CTXPROF_ERR_UNSUPPORTED;
}
CTXPROF_DEF int ctxprof_pebs_attach(ctxprof_pebs *pb, int tid, uint64_t stack_base)
{
    (void)pb, (void)tid, (void)stack_base;
    return CTXPROF_ERR_UNSUPPORTED;
}
CTXPROF_DEF int ctxprof_pebs_attach_all(ctxprof_pebs *pb, size_t *out_n)
{
    (void)pb;
    if (out_n)
        *out_n = 0;
    return CTXPROF_ERR_UNSUPPORTED;
}
CTXPROF_DEF int ctxprof_pebs_detach(ctxprof_pebs *pb, int tid)
{
    (void)pb, (void)tid;
    return CTXPROF_ERR_UNSUPPORTED;
}
CTXPROF_DEF int ctxprof_pebs_drain(ctxprof_pebs *pb)
{
    (void)pb;
    return CTXPROF_ERR_UNSUPPORTED;
}
CTXPROF_DEF void ctxprof_pebs_close(ctxprof_pebs *pb)
{
    (void)pb;
}
CTXPROF_DEF void ctxprof_pebs_stats_get(const ctxprof_pebs *pb, ctxprof_pebs_stats *out)
{
    (void)pb;
    if (out)
        memset(out, 0, sizeof *out);
}
CTXPROF_DEF const char *ctxprof_pebs_explain(const ctxprof_pebs *pb)
{
    (void)pb;
    return CTXPROF__PEBS_NOT_LINUX;
}
CTXPROF_DEF const ctxprof_pebs_sample *ctxprof_pebs_samples(const ctxprof_pebs *pb, size_t *out_n)
{
    (void)pb;
    if (out_n)
        *out_n = 0;
    return NULL;
}
CTXPROF_DEF const char *ctxprof_pebs_level_name(int level)
{
    (void)level;
    return "unsupported";
}
CTXPROF_DEF int ctxprof_pebs_encode_event(const char *name, struct perf_event_attr *attr,
                                          ctxprof_error *err)
{
    (void)name, (void)attr;
    return ctxprof__fail(err, CTXPROF_ERR_UNSUPPORTED, 0, CTXPROF__PEBS_NOT_LINUX);
}

#ifdef __cplusplus
CTXPROF__CXX_QUIET_END
}
#endif

#endif /* __linux__ */

#endif /* CTXPROF_PEBS_IMPLEMENTATION */

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
