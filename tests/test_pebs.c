/* ctxprof_pebs.h: the ring parser on synthetic buffers (no kernel), then
   live tests with whatever sampling level this machine has (software
   task-clock on a VM without PMU), the failure messages in sandboxed
   children (seccomp, paranoid, locked memory, file descriptors), a
   cross-check against `perf record`, and libpfm when built with it.
   Included by test_main.c. */

#include <dirent.h>
#include <link.h>
#include <grp.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>

/* ---- helpers ---- */

static uint64_t pebs_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t pebs_wall_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Hot functions in named sections: the linker gives each one's bounds. */
#define PEBS_IN(sec) __attribute__((noinline, used, section(sec)))
extern const char __start_ctxprof_pebs_hot[], __stop_ctxprof_pebs_hot[];
extern const char __start_ctxprof_pebs_leaf[], __stop_ctxprof_pebs_leaf[];
extern const char __start_ctxprof_pebs_t0[], __stop_ctxprof_pebs_t0[];
extern const char __start_ctxprof_pebs_t1[], __stop_ctxprof_pebs_t1[];
extern const char __start_ctxprof_pebs_t2[], __stop_ctxprof_pebs_t2[];
extern const char __start_ctxprof_pebs_t3[], __stop_ctxprof_pebs_t3[];
static __thread volatile uint64_t pebs_sink_v; /* per thread: no shared writes */

static int pebs_in_range(uint64_t ip, const char *lo, const char *hi)
{
    return ip >= (uintptr_t)lo && ip < (uintptr_t)hi;
}

/* Spins for cpu_ns of this thread's CPU time (independent of load). */
#define PEBS_SPIN_BODY(cpu_ns)                                                                     \
    do {                                                                                           \
        uint64_t end_ = pebs_cpu_ns() + (cpu_ns);                                                  \
        while (pebs_cpu_ns() < end_) {                                                             \
            unsigned i_;                                                                           \
            for (i_ = 0; i_ < 20000; i_++)                                                         \
                pebs_sink_v += i_;                                                                 \
        }                                                                                          \
    } while (0)

PEBS_IN("ctxprof_pebs_hot") static void pebs_hot(uint64_t cpu_ns)
{
    PEBS_SPIN_BODY(cpu_ns);
}
PEBS_IN("ctxprof_pebs_t0") static void pebs_hot_t0(uint64_t cpu_ns)
{
    PEBS_SPIN_BODY(cpu_ns);
}
PEBS_IN("ctxprof_pebs_t1") static void pebs_hot_t1(uint64_t cpu_ns)
{
    PEBS_SPIN_BODY(cpu_ns);
}
PEBS_IN("ctxprof_pebs_t2") static void pebs_hot_t2(uint64_t cpu_ns)
{
    PEBS_SPIN_BODY(cpu_ns);
}
PEBS_IN("ctxprof_pebs_t3") static void pebs_hot_t3(uint64_t cpu_ns)
{
    PEBS_SPIN_BODY(cpu_ns);
}

/* Runs fn in a forked child; what the child writes to fd goes to out.
   Returns the child's exit status, -1 when it did not exit normally. */
static int pebs_in_child(void (*fn)(int fd, void *arg), void *arg, char *out, size_t cap)
{
    int p[2], st;
    size_t len = 0;
    pid_t pid;
    out[0] = '\0';
    if (pipe(p) != 0)
        return -1;
    fflush(NULL);
    pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        close(p[0]);
        fn(p[1], arg);
        _exit(0);
    }
    close(p[1]);
    for (;;) {
        ssize_t n = read(p[0], out + len, cap - 1 - len);
        if (n <= 0)
            break;
        len += (size_t)n;
        if (len + 1 >= cap)
            break;
    }
    out[len] = '\0';
    close(p[0]);
    if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
        return -1;
    return WEXITSTATUS(st);
}

static void pebs_put(int fd, const char *fmt, ...) CTXPROF__PRINTF(2, 3);
static void pebs_put(int fd, const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n > 0 && write(fd, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1) < 0)
        _exit(3);
}

/* CHECK_CONTAINS for the long outputs of children (any length). */
#define PEBS_HAS(text, needle)                                                                     \
    do {                                                                                           \
        if (!strstr((text), (needle))) {                                                           \
            fprintf(stderr, "  output was: %s\n", (text));                                         \
            ctxprof_test_fail(__FILE__, __LINE__, #text " contains " #needle, "");                 \
        }                                                                                          \
    } while (0)

/* In a child: become nobody when root (0 = done or already unprivileged). */
static int pebs_drop_to_nobody(void)
{
    if (geteuid() != 0)
        return 0;
    if (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0)
        return -1;
    return 0;
}

/* A descriptor for the live tests: mode, period (0 = default), the
   environment ignored. The hardware period is in cycles, so its rate
   follows the clock speed: no case assumes a rate (see PEBS_UNTIL). */
static void pebs_desc_fill(ctxprof_pebs_desc *d, int mode, uint64_t period_ns)
{
    memset(d, 0, sizeof *d);
    d->mode = mode;
    d->period_ns = period_ns;
    d->period = 200003;
    d->flags = CTXPROF_PEBS_NO_ENV;
}

/* Whether perf_event sampling works here at all (a software-level sampler
   opens); if not, why says why, for a SKIP. */
static int pebs_usable(char *why, size_t n)
{
    ctxprof_pebs pb;
    ctxprof_pebs_desc d;
    int rc;
    pebs_desc_fill(&d, CTXPROF_PEBS_MANUAL, 0);
    d.level = CTXPROF_PEBS_LEVEL_SW;
    rc = ctxprof_pebs_open(&pb, &d);
    if (rc != CTXPROF_OK)
        snprintf(why, n, "perf_event unusable here: %s", ctxprof_error_message(&pb.error));
    ctxprof_pebs_close(&pb);
    return rc == CTXPROF_OK;
}

/* Skips the case, saying why, where perf_event sampling does not work. */
#define PEBS_USABLE_OR_SKIP()                                                                      \
    do {                                                                                           \
        static char why_[400];                                                                     \
        if (!pebs_usable(why_, sizeof why_))                                                       \
            SKIP(why_);                                                                            \
    } while (0)

/* The live cases work until they have the samples they check, never for a
   fixed time or amount of work: how many samples a CPU second yields
   depends on the level (cycles at the machine's clock rate, or ns), the
   load and the VM. A loop gives up after PEBS_CAP_NS of the calling
   thread's CPU time (a machine that samples at all gets there long
   before); the case's thresholds then fail. */
#define PEBS_CAP_NS 8000000000ull
#define PEBS_UNTIL(cond, work)                                                                     \
    do {                                                                                           \
        uint64_t pebs_cap_ = pebs_cpu_ns() + PEBS_CAP_NS;                                          \
        while (!(cond) && pebs_cpu_ns() < pebs_cap_) {                                             \
            work;                                                                                  \
        }                                                                                          \
    } while (0)

/* The ring of thread tid (NULL when it has none): the tests read its
   data_head to see what the kernel wrote without draining it. */
static const ctxprof__pebs_ring *pebs_ring_of(const ctxprof_pebs *pb, int tid)
{
    unsigned i;
    for (i = 0; i < pb->impl->nrings; i++) {
        const ctxprof__pebs_ring *r = &pb->impl->rings[i];
        if (__atomic_load_n(&r->state, __ATOMIC_ACQUIRE) == CTXPROF__PEBS_ACTIVE && r->tid == tid)
            return r;
    }
    return NULL;
}

/* Bytes the kernel has written so far into thread tid's ring. */
static uint64_t pebs_ring_head(const ctxprof_pebs *pb, int tid)
{
    const ctxprof__pebs_ring *r = pebs_ring_of(pb, tid);
    return r ? __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE) : 0;
}

/* Bytes of one sample of this sampler (without a callchain or stack copy). */
static uint64_t pebs_rec_bytes(const ctxprof_pebs *pb)
{
    const ctxprof__pebs_fmt *f = &pb->impl->fmt;
    uint64_t w =
        1 + ctxprof__pebs_popcount(f->sample_type &
                                   (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
                                    PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
                                    PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD));
    if (f->sample_type & PERF_SAMPLE_REGS_USER)
        w += 1 + f->nregs_user;
    if (f->sample_type & PERF_SAMPLE_REGS_INTR)
        w += 1 + f->nregs_intr;
    return 8 * w;
}

/* Until thread tid's ring holds n more samples than at head h0 (no drain). */
#define PEBS_UNTIL_WRITTEN(pb, tid, h0, n, work)                                                   \
    PEBS_UNTIL(pebs_ring_head((pb), (tid)) - (h0) >= (uint64_t)(n)*pebs_rec_bytes(pb), work)

static uint64_t pebs_samples_so_far(const ctxprof_pebs *pb)
{
    ctxprof_pebs_stats st;
    ctxprof_pebs_stats_get(pb, &st);
    return st.samples;
}

/* ---- synthetic rings: a writer that follows the kernel's layout ---- */

typedef struct pebs_fake {
    struct perf_event_mmap_page *meta;
    unsigned char *data;
    uint64_t size, head;
    ctxprof__pebs_ring ring;
} pebs_fake;

static void pebs_fake_init(pebs_fake *f, uint64_t size)
{
    memset(f, 0, sizeof *f);
    f->meta = (struct perf_event_mmap_page *)calloc(1, sizeof *f->meta);
    f->data = (unsigned char *)calloc(1, (size_t)size);
    f->size = size;
    f->ring.fd = -1;
    f->ring.meta = f->meta;
    f->ring.data = f->data;
    f->ring.size = size;
    f->ring.mask = size - 1;
}

static void pebs_fake_free(pebs_fake *f)
{
    free(f->meta);
    free(f->data);
}

/* Free bytes as the kernel sees them (it reads data_tail). */
static uint64_t pebs_fake_room(const pebs_fake *f)
{
    return f->size - (f->head - __atomic_load_n(&f->meta->data_tail, __ATOMIC_ACQUIRE));
}

static void pebs_fake_write(pebs_fake *f, const void *rec, size_t len)
{
    const unsigned char *b = (const unsigned char *)rec;
    size_t i;
    for (i = 0; i < len; i++)
        f->data[(f->head + i) & (f->size - 1)] = b[i];
    f->head += len;
}

static void pebs_fake_publish(pebs_fake *f)
{
    __atomic_store_n(&f->meta->data_head, f->head, __ATOMIC_RELEASE);
}

/* Record builder: words appended to w[], header filled at the end. */
typedef struct pebs_rec {
    uint64_t w[512];
    size_t n;
} pebs_rec;

static void pebs_rec_begin(pebs_rec *r)
{
    r->n = 1;
}
static void pebs_rec_u64(pebs_rec *r, uint64_t v)
{
    r->w[r->n++] = v;
}
static void pebs_rec_u32x2(pebs_rec *r, uint32_t a, uint32_t b)
{
    uint32_t two[2];
    two[0] = a;
    two[1] = b;
    memcpy(&r->w[r->n++], two, 8);
}
static size_t pebs_rec_end(pebs_rec *r, uint32_t type, uint16_t misc)
{
    struct perf_event_header h;
    h.type = type;
    h.misc = misc;
    h.size = (uint16_t)(r->n * 8);
    memcpy(&r->w[0], &h, sizeof h);
    return r->n * 8;
}

/* What a test expects of one sample. */
typedef struct pebs_want {
    uint64_t ip, sp, bp, event_ip, time, period, id, cpu, stream;
    uint32_t pid, tid;
    uint64_t chain[8];
    uint32_t chain_nr;
    int user_abi, intr_abi; /* 0 = block written with abi 0 (no registers) */
    int truth_intr;         /* which block holds ip/sp/bp; the other holds decoys */
} pebs_want;

/* Writes a sample with the fields of sample_type in the kernel's order.
   regs[] of a block hold reg_val(bit) for every set bit, ascending. */
static uint64_t pebs_reg_val(const pebs_want *w, unsigned bit, int intr)
{
#if defined(CTXPROF__PEBS_REG_SP)
    uint64_t decoy = intr == w->truth_intr ? 0 : 0x1000; /* the blocks differ */
    if (bit == CTXPROF__PEBS_REG_SP)
        return w->sp + decoy;
    if (bit == CTXPROF__PEBS_REG_IP)
        return w->ip + decoy;
    if (bit == CTXPROF__PEBS_REG_BP)
        return w->bp + decoy;
#endif
    return 0xdead0000u + bit + (intr ? 0x100u : 0u);
}

static size_t pebs_make_sample(pebs_rec *r, uint64_t st, uint64_t mu, uint64_t mi,
                               const pebs_want *w, uint16_t misc)
{
    unsigned b;
    uint32_t k;
    pebs_rec_begin(r);
    if (st & PERF_SAMPLE_IDENTIFIER)
        pebs_rec_u64(r, w->id);
    if (st & PERF_SAMPLE_IP)
        pebs_rec_u64(r, w->event_ip);
    if (st & PERF_SAMPLE_TID)
        pebs_rec_u32x2(r, w->pid, w->tid);
    if (st & PERF_SAMPLE_TIME)
        pebs_rec_u64(r, w->time);
    if (st & PERF_SAMPLE_ADDR)
        pebs_rec_u64(r, 0xadd7);
    if (st & PERF_SAMPLE_ID)
        pebs_rec_u64(r, w->id);
    if (st & PERF_SAMPLE_STREAM_ID)
        pebs_rec_u64(r, w->stream);
    if (st & PERF_SAMPLE_CPU)
        pebs_rec_u32x2(r, (uint32_t)w->cpu, 0);
    if (st & PERF_SAMPLE_PERIOD)
        pebs_rec_u64(r, w->period);
    if (st & PERF_SAMPLE_CALLCHAIN) {
        pebs_rec_u64(r, w->chain_nr);
        for (k = 0; k < w->chain_nr; k++)
            pebs_rec_u64(r, w->chain[k]);
    }
    if (st & PERF_SAMPLE_REGS_USER) {
        pebs_rec_u64(r, (uint64_t)w->user_abi);
        if (w->user_abi)
            for (b = 0; b < 64; b++)
                if (mu >> b & 1)
                    pebs_rec_u64(r, pebs_reg_val(w, b, 0));
    }
    if (st & PERF_SAMPLE_REGS_INTR) {
        pebs_rec_u64(r, (uint64_t)w->intr_abi);
        if (w->intr_abi)
            for (b = 0; b < 64; b++)
                if (mi >> b & 1)
                    pebs_rec_u64(r, pebs_reg_val(w, b, 1));
    }
    return pebs_rec_end(r, PERF_RECORD_SAMPLE, misc);
}

/* Collecting sink for the synthetic tests. */
typedef struct pebs_got {
    ctxprof_pebs_sample s[4096];
    uint64_t chain[4096][8];
    size_t n;
} pebs_got;

static void pebs_got_fn(void *user, const ctxprof_pebs_sample *s)
{
    pebs_got *g = (pebs_got *)user;
    if (g->n < 4096) {
        uint32_t k;
        g->s[g->n] = *s;
        for (k = 0; k < s->callchain_nr && k < 8; k++)
            g->chain[g->n][k] = s->callchain[k];
        g->n++;
    }
}

static void pebs_sink_init(ctxprof__pebs_sink *sk, pebs_got *g)
{
    memset(sk, 0, sizeof *sk);
    sk->fn = pebs_got_fn;
    sk->user = g;
    g->n = 0;
}

#if defined(CTXPROF__PEBS_REG_SP)
#define PEBS_MASK CTXPROF__PEBS_REGS
#else
#define PEBS_MASK 0ull
#endif

/* ---- parser ---- */

/* Every subset of the optional fields, both register sources, random
   extra registers: the decoded sample equals what was written. */
static void pebs_parse_fields(void)
{
    static const uint64_t opt[] = {PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_IP,   PERF_SAMPLE_TID,
                                   PERF_SAMPLE_TIME,       PERF_SAMPLE_ADDR, PERF_SAMPLE_ID,
                                   PERF_SAMPLE_STREAM_ID,  PERF_SAMPLE_CPU,  PERF_SAMPLE_PERIOD,
                                   PERF_SAMPLE_CALLCHAIN};
    static pebs_rec r;
    uint64_t seed = 42, sub;
    unsigned cases = 0;
    if (!PEBS_MASK)
        SKIP("no register layout for this architecture");
    for (sub = 0; sub < (1u << 10); sub++) {
        int intr;
        for (intr = 0; intr < 2; intr++) {
            ctxprof__pebs_fmt f;
            ctxprof_pebs_sample s;
            pebs_want w;
            uint64_t st = 0, mu, mi, extra;
            unsigned k;
            size_t len;
            for (k = 0; k < 10; k++)
                if (sub >> k & 1)
                    st |= opt[k];
            /* random extra registers below and above the three we read */
            extra = ctxprof_test_rand(&seed) & 0x00ff003full;
            mu = PEBS_MASK | extra;
            mi = PEBS_MASK | (ctxprof_test_rand(&seed) & 0x00ff003full);
            st |= intr ? PERF_SAMPLE_REGS_INTR : PERF_SAMPLE_REGS_USER;
            if (ctxprof_test_rand(&seed) & 1) /* sometimes both blocks */
                st |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_REGS_INTR;
            REQUIRE_EQ(ctxprof__pebs_fmt_init(&f, st, mu, mi, intr), 0);
            f.period = 777;
            memset(&w, 0, sizeof w);
            w.ip = ctxprof_test_rand(&seed);
            w.sp = ctxprof_test_rand(&seed);
            w.bp = ctxprof_test_rand(&seed);
            w.event_ip = ctxprof_test_rand(&seed);
            w.time = ctxprof_test_rand(&seed);
            w.period = ctxprof_test_rand(&seed);
            w.id = 5;
            w.cpu = 3;
            w.pid = (uint32_t)ctxprof_test_rand(&seed);
            w.tid = (uint32_t)ctxprof_test_rand(&seed);
            w.chain_nr = (uint32_t)(ctxprof_test_rand(&seed) % 8);
            for (k = 0; k < w.chain_nr; k++)
                w.chain[k] = ctxprof_test_rand(&seed);
            w.user_abi = w.intr_abi = 2;
            w.truth_intr = intr;
            len = pebs_make_sample(&r, st, mu, mi, &w, PERF_RECORD_MISC_USER);
            REQUIRE_EQ(ctxprof__pebs_parse(&f, (const unsigned char *)r.w, len, &s), 0);
            CHECK_EQ(s.ip, w.ip);
            CHECK_EQ(s.sp, w.sp);
            CHECK_EQ(s.bp, w.bp);
            CHECK_EQ(s.event_ip, (st & PERF_SAMPLE_IP) ? w.event_ip : 0);
            CHECK_EQ(s.time, (st & PERF_SAMPLE_TIME) ? w.time : 0);
            CHECK_EQ(s.period, (st & PERF_SAMPLE_PERIOD) ? w.period : 777);
            CHECK_EQ(s.pid, (st & PERF_SAMPLE_TID) ? w.pid : 0);
            CHECK_EQ(s.tid, (st & PERF_SAMPLE_TID) ? w.tid : 0);
            CHECK_EQ(s.flags & CTXPROF_PEBS_SAMPLE_NO_REGS, 0);
            CHECK_EQ(s.misc, PERF_RECORD_MISC_USER);
            if (st & PERF_SAMPLE_CALLCHAIN) {
                REQUIRE_EQ(s.callchain_nr, w.chain_nr);
                for (k = 0; k < w.chain_nr; k++)
                    CHECK_EQ(s.callchain[k], w.chain[k]);
            } else {
                CHECK_EQ(s.callchain_nr, 0);
            }
            cases++;
            if (ctxprof_test_failed)
                return;
        }
    }
    CHECK_EQ(cases, 2048);
}

/* A record cut at every length: the parser refuses each cut without reading
   past it (the buffer is exactly that long, so ASan would see an overrun). */
static void pebs_parse_bounds(void)
{
    static pebs_rec r;
    ctxprof__pebs_fmt f;
    pebs_want w;
    size_t len, cut;
    uint64_t st = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                  PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN |
                  PERF_SAMPLE_REGS_USER | PERF_SAMPLE_REGS_INTR;
    if (!PEBS_MASK)
        SKIP("no register layout for this architecture");
    REQUIRE_EQ(ctxprof__pebs_fmt_init(&f, st, PEBS_MASK, PEBS_MASK, 1), 0);
    memset(&w, 0, sizeof w);
    w.chain_nr = 5;
    w.user_abi = w.intr_abi = 2;
    len = pebs_make_sample(&r, st, PEBS_MASK, PEBS_MASK, &w, 0);
    for (cut = 8; cut <= len; cut += 8) {
        ctxprof_pebs_sample s;
        unsigned char *buf = (unsigned char *)malloc(cut);
        struct perf_event_header h;
        memcpy(buf, r.w, cut);
        memcpy(&h, buf, sizeof h);
        h.size = (uint16_t)cut;
        memcpy(buf, &h, sizeof h);
        CHECK_EQ(ctxprof__pebs_parse(&f, buf, cut, &s), cut == len ? 0 : -1);
        free(buf);
    }
    /* a callchain length that claims more than the record holds */
    {
        ctxprof_pebs_sample s;
        ctxprof__pebs_fmt g;
        REQUIRE_EQ(ctxprof__pebs_fmt_init(&g, PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER,
                                          PEBS_MASK, 0, 0),
                   0);
        w.chain_nr = 3;
        len = pebs_make_sample(&r, PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER, PEBS_MASK, 0, &w,
                               0);
        r.w[1] = 1000000; /* nr */
        CHECK_EQ(ctxprof__pebs_parse(&g, (const unsigned char *)r.w, len, &s), -1);
        r.w[1] = ~0ull;
        CHECK_EQ(ctxprof__pebs_parse(&g, (const unsigned char *)r.w, len, &s), -1);
    }
    /* sample types the reader cannot decode are refused at setup */
    CHECK_EQ(ctxprof__pebs_fmt_init(&f, PERF_SAMPLE_READ | PERF_SAMPLE_REGS_USER, PEBS_MASK, 0, 0),
             -1);
    CHECK_EQ(ctxprof__pebs_fmt_init(&f, PERF_SAMPLE_RAW | PERF_SAMPLE_REGS_USER, PEBS_MASK, 0, 0),
             -1);
    CHECK_EQ(ctxprof__pebs_fmt_init(&f, PERF_SAMPLE_IP, 0, 0, 0), -1);        /* no registers */
    CHECK_EQ(ctxprof__pebs_fmt_init(&f, PERF_SAMPLE_REGS_USER, 1, 0, 0), -1); /* no SP in mask */
}

/* abi 0: the block has no registers; the sample falls back to the event IP,
   flags NO_REGS, and the block after it is still decoded at the right place. */
static void pebs_parse_abi0(void)
{
    static pebs_rec r;
    ctxprof__pebs_fmt f;
    ctxprof_pebs_sample s;
    pebs_want w;
    size_t len;
    uint64_t st = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_REGS_INTR;
    if (!PEBS_MASK)
        SKIP("no register layout for this architecture");
    memset(&w, 0, sizeof w);
    w.ip = 0x401000;
    w.sp = 0x7ff000;
    w.bp = 0x7ff100;
    w.event_ip = 0xffffffff81000000ull;
    w.user_abi = 0;
    w.intr_abi = 2;
    w.truth_intr = 1;
    len = pebs_make_sample(&r, st, PEBS_MASK, PEBS_MASK, &w, PERF_RECORD_MISC_KERNEL);
    CHECK_EQ(len, 8 * (1 + 1 + 1 + 1 + 1 + 3));
    REQUIRE_EQ(ctxprof__pebs_fmt_init(&f, st, PEBS_MASK, PEBS_MASK, 1), 0);
    REQUIRE_EQ(ctxprof__pebs_parse(&f, (const unsigned char *)r.w, len, &s), 0);
    CHECK_EQ(s.ip, w.ip); /* from REGS_INTR, found after the empty user block */
    CHECK_EQ(s.sp, w.sp);
    CHECK(s.flags & CTXPROF_PEBS_SAMPLE_KERNEL);
    REQUIRE_EQ(ctxprof__pebs_fmt_init(&f, st, PEBS_MASK, PEBS_MASK, 0), 0);
    REQUIRE_EQ(ctxprof__pebs_parse(&f, (const unsigned char *)r.w, len, &s), 0);
    CHECK(s.flags & CTXPROF_PEBS_SAMPLE_NO_REGS);
    CHECK_EQ(s.ip, w.event_ip);
    CHECK_EQ(s.sp, 0);
}

/* STACK_USER: { u64 size; char data[size]; u64 dyn_size } between the two
   register blocks, anchored at the user SP; bad sizes are refused. */
static void pebs_parse_stack(void)
{
    static pebs_rec r;
    ctxprof__pebs_fmt f;
    ctxprof_pebs_sample s;
    uint64_t st =
        PERF_SAMPLE_IP | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER | PERF_SAMPLE_REGS_INTR;
    unsigned b, k;
    size_t len, at_size, at_dyn;
    if (!PEBS_MASK)
        SKIP("no register layout for this architecture");
    REQUIRE_EQ(ctxprof__pebs_fmt_init(&f, st, PEBS_MASK, PEBS_MASK, 1), 0);
    pebs_rec_begin(&r);
    pebs_rec_u64(&r, 0x1111); /* IP */
    pebs_rec_u64(&r, 2);      /* REGS_USER */
    for (b = 0; b < 64; b++)
        if (PEBS_MASK >> b & 1)
            pebs_rec_u64(&r, 0x7000 + b); /* user sp is 0x7000 + SP bit */
    at_size = r.n;
    pebs_rec_u64(&r, 64); /* STACK_USER size */
    for (k = 0; k < 8; k++)
        pebs_rec_u64(&r, 0xabc0 + k);
    at_dyn = r.n;
    pebs_rec_u64(&r, 40); /* dyn_size: 5 words valid */
    pebs_rec_u64(&r, 2);  /* REGS_INTR */
    for (b = 0; b < 64; b++)
        if (PEBS_MASK >> b & 1)
            pebs_rec_u64(&r, 0x9000 + b);
    len = pebs_rec_end(&r, PERF_RECORD_SAMPLE, 0);
    REQUIRE_EQ(ctxprof__pebs_parse(&f, (const unsigned char *)r.w, len, &s), 0);
#if defined(CTXPROF__PEBS_REG_SP)
    CHECK_EQ(s.sp, 0x9000 + CTXPROF__PEBS_REG_SP);         /* PEBS block */
    CHECK_EQ(s.stack_addr, 0x7000 + CTXPROF__PEBS_REG_SP); /* the copy's own anchor */
#endif
    CHECK_EQ(s.stack_size, 40);
    REQUIRE(s.stack != NULL);
    {
        uint64_t w4;
        memcpy(&w4, s.stack + 32, 8);
        CHECK_EQ(w4, 0xabc4);
    }
    r.w[at_dyn] = 72; /* dyn_size above size */
    CHECK_EQ(ctxprof__pebs_parse(&f, (const unsigned char *)r.w, len, &s), -1);
    r.w[at_dyn] = 40;
    r.w[at_size] = 60; /* not a multiple of 8 */
    CHECK_EQ(ctxprof__pebs_parse(&f, (const unsigned char *)r.w, len, &s), -1);
    r.w[at_size] = 1u << 20; /* beyond the record */
    CHECK_EQ(ctxprof__pebs_parse(&f, (const unsigned char *)r.w, len, &s), -1);
    r.w[at_size] = 64;
    CHECK_EQ(ctxprof__pebs_parse(&f, (const unsigned char *)r.w, len, &s), 0);
    /* a stack copy without a user SP to anchor it is refused at setup */
    CHECK_EQ(
        ctxprof__pebs_fmt_init(&f, PERF_SAMPLE_STACK_USER | PERF_SAMPLE_REGS_INTR, 0, PEBS_MASK, 1),
        -1);
}

/* ---- ring reading ---- */

static ctxprof__pebs_fmt pebs_std_fmt(void)
{
    ctxprof__pebs_fmt f;
    ctxprof__pebs_fmt_init(
        &f, PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_REGS_USER, PEBS_MASK,
        0, 0);
    f.period = 1;
    return f;
}

static size_t pebs_std_sample(pebs_rec *r, uint64_t seq)
{
    pebs_want w;
    memset(&w, 0, sizeof w);
    w.ip = 0x400000 + seq;
    w.sp = 0x7fff0000 - 16 * (seq % 100);
    w.bp = seq;
    w.event_ip = w.ip;
    w.time = seq;
    w.pid = 1;
    w.tid = 2;
    w.user_abi = 2;
    return pebs_make_sample(
        r, PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_REGS_USER, PEBS_MASK,
        0, &w, PERF_RECORD_MISC_USER);
}

/* Records wrap the end of a small ring, one straddles it; every sample comes
   out once, in order, with its fields; the tail follows the head. */
static void pebs_ring_wrap(void)
{
    static pebs_rec r;
    static pebs_got g;
    pebs_fake fk;
    ctxprof__pebs_fmt f = pebs_std_fmt();
    ctxprof__pebs_sink sk;
    uint64_t seq = 0, straddled = 0, round;
    size_t i;
    if (!PEBS_MASK)
        SKIP("no register layout for this architecture");
    pebs_fake_init(&fk, 256); /* 64-byte samples: 4 per lap; start offsets move below */
    pebs_sink_init(&sk, &g);
    fk.ring.stack_base = 0x80000000;
    for (round = 0; round < 50; round++) {
        unsigned k, burst = 1 + (unsigned)(round % 4);
        uint64_t first = seq;
        /* a LOST record of odd size first shifts the alignment each round */
        pebs_rec_begin(&r);
        pebs_rec_u64(&r, 0);
        pebs_rec_u64(&r, 1);
        if (round & 1)
            pebs_rec_u64(&r, 0); /* sample_id trailer of another shape */
        {
            size_t len = pebs_rec_end(&r, PERF_RECORD_LOST, 0);
            REQUIRE(pebs_fake_room(&fk) >= len);
            pebs_fake_write(&fk, r.w, len);
        }
        for (k = 0; k < burst; k++) {
            size_t len = pebs_std_sample(&r, seq);
            if (pebs_fake_room(&fk) < len)
                break;
            if ((fk.head & (fk.size - 1)) + len > fk.size)
                straddled++;
            pebs_fake_write(&fk, r.w, len);
            seq++;
        }
        pebs_fake_publish(&fk);
        g.n = 0;
        CHECK_EQ(ctxprof__pebs_ring_read(&fk.ring, &f, &sk), seq - first);
        CHECK_EQ(fk.meta->data_tail, fk.head);
        REQUIRE_EQ(g.n, seq - first);
        for (i = 0; i < g.n; i++) {
            uint64_t want = first + i;
            CHECK_EQ(g.s[i].ip, 0x400000 + want);
            CHECK_EQ(g.s[i].time, want);
            CHECK_EQ(g.s[i].bp, want);
            CHECK_EQ(g.s[i].height, 0x80000000 - (0x7fff0000 - 16 * (want % 100)));
            CHECK_EQ(g.s[i].tid, 2);
        }
    }
    CHECK_GE(straddled, 10);
    CHECK_EQ(fk.ring.st.samples, seq);
    CHECK_EQ(fk.ring.st.lost, 50);
    CHECK_EQ(fk.ring.st.desyncs, 0);
    CHECK_EQ(fk.ring.st.bad_records, 0);
    pebs_fake_free(&fk);
}

/* LOST, LOST_SAMPLES, THROTTLE/UNTHROTTLE, unknown types and a malformed
   sample among good ones: counted, skipped, and the good ones delivered. */
static void pebs_ring_records(void)
{
    static pebs_rec r;
    static pebs_got g;
    pebs_fake fk;
    ctxprof__pebs_fmt f = pebs_std_fmt();
    ctxprof__pebs_sink sk;
    size_t len;
    if (!PEBS_MASK)
        SKIP("no register layout for this architecture");
    pebs_fake_init(&fk, 4096);
    pebs_sink_init(&sk, &g);
    len = pebs_std_sample(&r, 1);
    pebs_fake_write(&fk, r.w, len);
    pebs_rec_begin(&r); /* LOST: id, lost */
    pebs_rec_u64(&r, 7);
    pebs_rec_u64(&r, 1234);
    pebs_fake_write(&fk, r.w, pebs_rec_end(&r, PERF_RECORD_LOST, 0));
    pebs_rec_begin(&r); /* LOST_SAMPLES: lost */
    pebs_rec_u64(&r, 55);
    pebs_fake_write(&fk, r.w, pebs_rec_end(&r, PERF_RECORD_LOST_SAMPLES, 0));
    pebs_rec_begin(&r); /* THROTTLE: time, id, stream_id */
    pebs_rec_u64(&r, 1);
    pebs_rec_u64(&r, 2);
    pebs_rec_u64(&r, 3);
    pebs_fake_write(&fk, r.w, pebs_rec_end(&r, PERF_RECORD_THROTTLE, 0));
    pebs_fake_write(&fk, r.w, pebs_rec_end(&r, PERF_RECORD_UNTHROTTLE, 0));
    pebs_rec_begin(&r); /* unknown and uninteresting types */
    pebs_rec_u64(&r, 0);
    pebs_fake_write(&fk, r.w, pebs_rec_end(&r, 999, 0));
    pebs_fake_write(&fk, r.w, pebs_rec_end(&r, PERF_RECORD_MMAP, 0));
    len = pebs_std_sample(&r, 2); /* a sample one word short of its registers */
    {
        struct perf_event_header h;
        memcpy(&h, r.w, sizeof h);
        h.size = (uint16_t)(h.size - 8);
        memcpy(r.w, &h, sizeof h);
        pebs_fake_write(&fk, r.w, len - 8);
    }
    pebs_rec_begin(&r); /* a LOST record too short to hold its count */
    pebs_fake_write(&fk, r.w, pebs_rec_end(&r, PERF_RECORD_LOST, 0));
    len = pebs_std_sample(&r, 3);
    pebs_fake_write(&fk, r.w, len);
    pebs_fake_publish(&fk);
    CHECK_EQ(ctxprof__pebs_ring_read(&fk.ring, &f, &sk), 2);
    REQUIRE_EQ(g.n, 2);
    CHECK_EQ(g.s[0].ip, 0x400001);
    CHECK_EQ(g.s[1].ip, 0x400003);
    CHECK_EQ(fk.ring.st.lost, 1234);
    CHECK_EQ(fk.ring.st.lost_samples, 55);
    CHECK_EQ(fk.ring.st.throttles, 1);
    CHECK_EQ(fk.ring.st.unthrottles, 1);
    CHECK_EQ(fk.ring.st.other_records, 2);
    CHECK_EQ(fk.ring.st.bad_records, 2);
    CHECK_EQ(fk.ring.st.desyncs, 0);
    CHECK_EQ(fk.ring.st.bytes, fk.head);
    CHECK_EQ(fk.meta->data_tail, fk.head);
    /* nothing new: a second read delivers nothing and changes nothing */
    CHECK_EQ(ctxprof__pebs_ring_read(&fk.ring, &f, &sk), 0);
    CHECK_EQ(fk.ring.st.drains, 1);
    pebs_fake_free(&fk);
}

/* Desyncs: a head more than the ring ahead, a zero-size record, an
   unaligned size, a size beyond the head. Each is counted once, reading
   resumes at the head, and records written after it are read normally. */
static void pebs_ring_desync(void)
{
    static pebs_rec r;
    static pebs_got g;
    pebs_fake fk;
    ctxprof__pebs_fmt f = pebs_std_fmt();
    ctxprof__pebs_sink sk;
    int kind;
    if (!PEBS_MASK)
        SKIP("no register layout for this architecture");
    pebs_fake_init(&fk, 1024);
    pebs_sink_init(&sk, &g);
    for (kind = 0; kind < 4; kind++) {
        uint64_t before = fk.ring.st.desyncs;
        size_t len;
        if (kind == 0) {
            fk.head += 5 * fk.size; /* the head jumps far ahead */
        } else {
            struct perf_event_header h;
            memset(&h, 0, sizeof h);
            h.type = PERF_RECORD_SAMPLE;
            h.size = kind == 1 ? 0 : kind == 2 ? 20 : 512;
            pebs_fake_write(&fk, &h, sizeof h);
            len = pebs_std_sample(&r, 9); /* valid bytes after the bad header */
            pebs_fake_write(&fk, r.w, len);
        }
        pebs_fake_publish(&fk);
        g.n = 0;
        CHECK_EQ(ctxprof__pebs_ring_read(&fk.ring, &f, &sk), 0);
        CHECK_EQ(fk.ring.st.desyncs, before + 1);
        CHECK_EQ(fk.meta->data_tail, fk.head);
        /* recovery: the next record is read */
        len = pebs_std_sample(&r, 100 + (uint64_t)kind);
        pebs_fake_write(&fk, r.w, len);
        pebs_fake_publish(&fk);
        CHECK_EQ(ctxprof__pebs_ring_read(&fk.ring, &f, &sk), 1);
        REQUIRE_EQ(g.n, 1);
        CHECK_EQ(g.s[0].ip, 0x400000 + 100 + (uint64_t)kind);
    }
    /* a misaligned tail (corrupted by someone else) */
    fk.meta->data_tail = fk.head - 4;
    CHECK_EQ(ctxprof__pebs_ring_read(&fk.ring, &f, &sk), 0);
    CHECK_EQ(fk.ring.st.desyncs, 5);
    CHECK_EQ(fk.meta->data_tail, fk.head);
    pebs_fake_free(&fk);
}

/* Heights only on the thread's stack [stack_lo, stack_base]: a sample whose
   SP is below its low end (a coroutine's stack, a sigaltstack) or above the
   base gets height 0 and is counted in off_stack, never flagged STACK_TOP;
   with no low end known (0) only the base bounds the stack; with no base
   no sample has a height and none is counted. */
static void pebs_ring_off_stack(void)
{
    /* in, the low end itself, just below it, far below (a heap), above the
       base, the base itself (height 0, on the stack), in */
    static const uint64_t sps[] = {0x7fff0000, 0x7ffe0000, 0x7ffdfff8, 0x10000,
                                   0x80000008, 0x80000000, 0x7ffffff0};
    static const uint64_t bases[] = {0x80000000, 0x80000000, 0x80000000, 0};
    static const uint64_t los[] = {0x7ffe0000, 0x7ffe0000, 0, 0};
    static pebs_rec r;
    static pebs_got g;
    pebs_fake fk;
    ctxprof__pebs_fmt f = pebs_std_fmt();
    ctxprof__pebs_sink sk;
    unsigned pass, i;
    if (!PEBS_MASK)
        SKIP("no register layout for this architecture");
    pebs_fake_init(&fk, 4096);
    pebs_sink_init(&sk, &g);
    for (pass = 0; pass < 4; pass++) {
        uint64_t base = bases[pass], lo = los[pass], off = 0, off0 = fk.ring.st.off_stack;
        fk.ring.stack_base = base;
        fk.ring.stack_lo = lo;
        fk.ring.base_pending = pass == 1; /* a stack-mapping top: in-stack heights flagged */
        for (i = 0; i < sizeof sps / sizeof sps[0]; i++) {
            pebs_want w;
            size_t len;
            memset(&w, 0, sizeof w);
            w.ip = w.event_ip = 0x400000 + i;
            w.sp = sps[i];
            w.pid = 1;
            w.tid = 2;
            w.user_abi = 2;
            len = pebs_make_sample(
                &r, PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_REGS_USER,
                PEBS_MASK, 0, &w, PERF_RECORD_MISC_USER);
            pebs_fake_write(&fk, r.w, len);
        }
        pebs_fake_publish(&fk);
        g.n = 0;
        CHECK_EQ(ctxprof__pebs_ring_read(&fk.ring, &f, &sk), sizeof sps / sizeof sps[0]);
        REQUIRE_EQ(g.n, sizeof sps / sizeof sps[0]);
        for (i = 0; i < g.n; i++) {
            uint64_t sp = sps[i];
            int in = base && sp >= lo && sp <= base;
            CHECK_EQ(g.s[i].sp, sp);
            CHECK_EQ(g.s[i].height, in ? base - sp : 0);
            CHECK_EQ((g.s[i].flags & CTXPROF_PEBS_SAMPLE_STACK_TOP) != 0, in && pass == 1);
            off += base && !in;
        }
        CHECK_EQ(off, pass < 2 ? 3 : pass == 2 ? 1 : 0);
        CHECK_EQ(fk.ring.st.off_stack - off0, off);
    }
    CHECK_EQ(fk.ring.st.samples, 4 * (sizeof sps / sizeof sps[0]));
    CHECK_EQ(fk.ring.st.desyncs, 0);
    pebs_fake_free(&fk);
}

/* A producer thread plays the kernel (waits for room by reading data_tail
   with acquire, publishes data_head with release) while this thread drains:
   200,000 samples with sequence numbers arrive complete and in order. */
typedef struct pebs_prod {
    pebs_fake *fk;
    uint64_t n;
} pebs_prod;

static void *pebs_producer(void *arg)
{
    pebs_prod *p = (pebs_prod *)arg;
    static pebs_rec r;
    uint64_t seq;
    for (seq = 0; seq < p->n; seq++) {
        size_t len = pebs_std_sample(&r, seq);
        while (pebs_fake_room(p->fk) < len)
            sched_yield();
        pebs_fake_write(p->fk, r.w, len);
        if ((seq & 7) == 7 || seq + 1 == p->n)
            pebs_fake_publish(p->fk);
    }
    return NULL;
}

typedef struct pebs_order {
    uint64_t next, errors, count;
} pebs_order;

static void pebs_order_fn(void *user, const ctxprof_pebs_sample *s)
{
    pebs_order *o = (pebs_order *)user;
    if (s->time != o->next || s->ip != 0x400000 + o->next)
        o->errors++;
    o->next = s->time + 1;
    o->count++;
}

static void pebs_ring_concurrent(void)
{
    pebs_fake fk;
    ctxprof__pebs_fmt f = pebs_std_fmt();
    ctxprof__pebs_sink sk;
    pebs_order o;
    pebs_prod p;
    pthread_t th;
    if (!PEBS_MASK)
        SKIP("no register layout for this architecture");
    pebs_fake_init(&fk, 2048);
    memset(&sk, 0, sizeof sk);
    memset(&o, 0, sizeof o);
    sk.fn = pebs_order_fn;
    sk.user = &o;
    p.fk = &fk;
    p.n = 200000;
    REQUIRE_EQ(pthread_create(&th, NULL, pebs_producer, &p), 0);
    while (o.count < p.n) /* on errors too, or the producer would wait forever */
        if (ctxprof__pebs_ring_read(&fk.ring, &f, &sk) == 0)
            sched_yield();
    pthread_join(th, NULL);
    CHECK_EQ(o.errors, 0);
    CHECK_EQ(o.next, p.n);
    CHECK_EQ(fk.ring.st.desyncs, 0);
    CHECK_EQ(fk.ring.st.bad_records, 0);
    pebs_fake_free(&fk);
}

/* ---- messages and encodings ---- */

static void pebs_messages(void)
{
    char buf[300];
    ctxprof__pebs_facts f;
    memset(&f, 0, sizeof f);
    f.paranoid = 3;
    f.seccomp = 0;
    f.have_pmu = 0;
    f.nofile = 64;
    CHECK_STR(ctxprof__pebs_reason(buf, sizeof buf, ENOENT, 1, &f), "no hardware PMU (ENOENT)");
    CHECK_CONTAINS(ctxprof__pebs_reason(buf, sizeof buf, EACCES, 0, &f),
                   "kernel.perf_event_paranoid=3 forbids unprivileged perf_event_open");
    CHECK_CONTAINS(buf, "(EACCES)");
    f.paranoid = 2;
    f.kernel = 1;
    CHECK_CONTAINS(ctxprof__pebs_reason(buf, sizeof buf, EACCES, 0, &f),
                   "need kernel.perf_event_paranoid <= 1, it is 2");
    f.seccomp = 2;
    CHECK_CONTAINS(ctxprof__pebs_reason(buf, sizeof buf, EPERM, 0, &f),
                   "blocked by seccomp (Seccomp: 2 in /proc/self/status)");
    f.seccomp = 0;
    CHECK_CONTAINS(ctxprof__pebs_reason(buf, sizeof buf, EPERM, 0, &f), "LSM or kernel lockdown");
    CHECK_CONTAINS(ctxprof__pebs_reason(buf, sizeof buf, EMFILE, 0, &f),
                   "out of file descriptors, one per sampled thread (EMFILE, RLIMIT_NOFILE=64)");
    CHECK_CONTAINS(ctxprof__pebs_reason(buf, sizeof buf, ENOSYS, 0, &f), "(ENOSYS)");
    CHECK_CONTAINS(buf, "kernel without CONFIG_PERF_EVENTS");
    f.seccomp = 2; /* a filter, and the kernel has perf events (paranoid is known) */
    CHECK_STR(ctxprof__pebs_reason(buf, sizeof buf, ENOSYS, 0, &f),
              "perf_event_open blocked by seccomp (Seccomp: 2 in /proc/self/status); allow it in "
              "the sandbox's seccomp profile (ENOSYS)");
    f.paranoid = 2;
    f.kernel = 0;
    CHECK_STR(ctxprof__pebs_reason(buf, sizeof buf, EACCES, 0, &f),
              "denied although kernel.perf_event_paranoid=2 allows it: a seccomp filter "
              "(Seccomp: 2 in /proc/self/status) or an LSM (EACCES)");
    f.paranoid = -100; /* no perf events in this kernel: its ENOSYS is not the filter's */
    CHECK_CONTAINS(ctxprof__pebs_reason(buf, sizeof buf, ENOSYS, 0, &f),
                   "kernel without CONFIG_PERF_EVENTS");
    f.paranoid = 3;
    f.seccomp = 0;
    f.have_pmu = 1;
    CHECK_STR(ctxprof__pebs_reason(buf, sizeof buf, EOPNOTSUPP, 1, &f),
              "event not supported by this PMU (EOPNOTSUPP)");
    CHECK_STR(ctxprof__pebs_reason(buf, sizeof buf, EOVERFLOW, 0, &f),
              "callchain depth (desc.max_stack) above kernel.perf_event_max_stack (EOVERFLOW)");
    CHECK(ctxprof__pebs_errno_global(EACCES) && ctxprof__pebs_errno_global(EPERM) &&
          ctxprof__pebs_errno_global(EMFILE) && ctxprof__pebs_errno_global(ENOSYS));
    CHECK(!ctxprof__pebs_errno_global(ENOENT) && !ctxprof__pebs_errno_global(EOPNOTSUPP) &&
          !ctxprof__pebs_errno_global(EINVAL));
    CHECK_STR(ctxprof_pebs_level_name(CTXPROF_PEBS_LEVEL_PEBS), "PEBS");
    CHECK_STR(ctxprof_pebs_level_name(CTXPROF_PEBS_LEVEL_SW), "software");
    CHECK_STR(ctxprof_pebs_level_name(42), "unknown level");
}

/* The attributes of each level, as the notes' table gives them: PEBS =
   cycles, precise_ip 1, registers of the PEBS record (REGS_INTR); hardware
   = the same event non-precise with the user registers; software =
   task-clock with a period in ns. All user-only, disabled at open, byte
   watermark wakeups. */
static void pebs_attr_levels(void)
{
    static struct ctxprof__pebs_impl I; /* only I.d is read */
    struct perf_event_attr ev, a;
    ctxprof_error e;
    memset(&I, 0, sizeof I);
    I.d.period = 1000003;
    I.d.period_ns = 333333;
    I.d.watermark = 65536;
    I.d.max_stack = 127;
    memset(&ev, 0, sizeof ev);
    REQUIRE_EQ(ctxprof_pebs_encode_event("cycles", &ev, &e), CTXPROF_OK);
    ctxprof__pebs_attr(&I, &ev, CTXPROF_PEBS_LEVEL_PEBS, 1, 1, &a);
    CHECK_EQ(a.type, PERF_TYPE_HARDWARE);
    CHECK_EQ(a.config, PERF_COUNT_HW_CPU_CYCLES);
    CHECK_EQ(a.precise_ip, 1);
    CHECK_EQ(a.sample_type, PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_REGS_INTR);
    CHECK_EQ(a.sample_regs_intr, PEBS_MASK);
    CHECK_EQ(a.sample_regs_user, 0);
    CHECK_EQ(a.sample_period, 1000003);
    CHECK_EQ(a.freq, 0); /* a fixed period: large PEBS needs it */
    CHECK(a.exclude_kernel && a.exclude_hv && !a.exclude_user && a.disabled && a.watermark);
    CHECK_EQ(a.wakeup_watermark, 65536);
    CHECK_EQ(a.inherit, 0);
    CHECK_EQ(a.size, sizeof a);
    ctxprof__pebs_attr(&I, &ev, CTXPROF_PEBS_LEVEL_HW, 0, 0, &a);
    CHECK_EQ(a.type, PERF_TYPE_HARDWARE);
    CHECK_EQ(a.precise_ip, 0);
    CHECK_EQ(a.sample_type, PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_REGS_USER);
    CHECK_EQ(a.sample_regs_user, PEBS_MASK);
    CHECK_EQ(a.sample_period, 1000003);
    ctxprof__pebs_attr(&I, &ev, CTXPROF_PEBS_LEVEL_SW, 0, 0, &a);
    CHECK_EQ(a.type, PERF_TYPE_SOFTWARE);
    CHECK_EQ(a.config, PERF_COUNT_SW_TASK_CLOCK);
    CHECK_EQ(a.sample_type, PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_REGS_USER);
    CHECK_EQ(a.sample_period, 333333);
    CHECK(a.exclude_kernel && a.exclude_hv);
    /* options: timestamps, the callchain (user part only), a stack copy */
    I.d.flags = CTXPROF_PEBS_TIME | CTXPROF_PEBS_CALLCHAIN;
    I.d.stack_bytes = 512;
    ctxprof__pebs_attr(&I, &ev, CTXPROF_PEBS_LEVEL_PEBS, 1, 1, &a);
    CHECK_EQ(a.sample_type, PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                                PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_INTR |
                                PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER);
    CHECK_EQ(a.sample_stack_user, 512);
    CHECK_EQ(a.exclude_callchain_kernel, 1);
    CHECK_EQ(a.sample_max_stack, 127);
}

static void pebs_encode_builtin(void)
{
    struct perf_event_attr a;
    ctxprof_error e;
    memset(&a, 0, sizeof a);
    memset(&e, 0, sizeof e);
    REQUIRE_EQ(ctxprof_pebs_encode_event("cycles", &a, &e), CTXPROF_OK);
    CHECK_EQ(a.type, PERF_TYPE_HARDWARE);
    CHECK_EQ(a.config, PERF_COUNT_HW_CPU_CYCLES);
    REQUIRE_EQ(ctxprof_pebs_encode_event("task-clock", &a, &e), CTXPROF_OK);
    CHECK_EQ(a.type, PERF_TYPE_SOFTWARE);
    CHECK_EQ(a.config, PERF_COUNT_SW_TASK_CLOCK);
    REQUIRE_EQ(ctxprof_pebs_encode_event("r88000c0", &a, &e), CTXPROF_OK);
    CHECK_EQ(a.type, PERF_TYPE_RAW);
    CHECK_EQ(a.config, 0x88000c0);
    CHECK_EQ(ctxprof_pebs_encode_event("", &a, &e), CTXPROF_ERR_INVAL);
#if !defined(CTXPROF__PEBS_LIBPFM)
    CHECK_EQ(ctxprof_pebs_encode_event("INST_RETIRED:ANY_P:c=8:i", &a, &e),
             CTXPROF_ERR_UNSUPPORTED);
    CHECK_CONTAINS(e.detail, "needs libpfm: build with -DCTXPROF_HAVE_LIBPFM");
#endif
}

#if defined(CTXPROF__PEBS_LIBPFM)
/* With libpfm's Skylake tables forced, the ICPP paper's cycle-counting
   event (INST_RETIRED with cmask=8, inv) encodes to the raw config the SDM
   gives: event 0xC0 | inv (bit 23) | cmask 8 (bits 24-31). In a child,
   since libpfm reads LIBPFM_FORCE_PMU at initialisation. */
static void pebs_pfm_child(int fd, void *arg)
{
    struct perf_event_attr a;
    ctxprof_error e;
    int rc;
    (void)arg;
    setenv("LIBPFM_FORCE_PMU", "skl", 1);
    pfm_terminate();
    if (pfm_initialize() != PFM_SUCCESS)
        _exit(4);
    memset(&a, 0, sizeof a);
    rc = ctxprof_pebs_encode_event("INST_RETIRED:ANY_P:c=8:i:u:precise=1:period=1000003", &a, &e);
    pebs_put(fd, "rc=%d type=%u config=%#llx precise=%u period=%llu exk=%u\n", rc, a.type,
             (unsigned long long)a.config, (unsigned)a.precise_ip,
             (unsigned long long)a.sample_period, (unsigned)a.exclude_kernel);
    rc = ctxprof_pebs_encode_event("NO_SUCH_EVENT_XYZ", &a, &e);
    pebs_put(fd, "rc2=%d %s\n", rc, e.detail);
    { /* the paper's event as the sampler's event: the levels that need a PMU
         are tried with it, the software level stands in on a machine without */
        ctxprof_pebs pb;
        ctxprof_pebs_desc d;
        pebs_desc_fill(&d, CTXPROF_PEBS_MANUAL, 0);
        d.event = "INST_RETIRED:ANY_P:c=8:i";
        rc = ctxprof_pebs_open(&pb, &d);
        pebs_put(fd, "open=%d level=%d\nexplain=%s\n", rc, pb.level, ctxprof_pebs_explain(&pb));
        ctxprof_pebs_close(&pb);
    }
}

static void pebs_libpfm(void)
{
    char out[1024];
    struct perf_event_attr a;
    ctxprof_error e;
    REQUIRE_EQ(pebs_in_child(pebs_pfm_child, NULL, out, sizeof out), 0);
    PEBS_HAS(out, "rc=0 type=4 config=0x88000c0 precise=1 period=1000003 exk=1");
    PEBS_HAS(out, "libpfm: event 'NO_SUCH_EVENT_XYZ': ");
    PEBS_HAS(out, pfm_strerror(PFM_ERR_NOTFOUND));
    /* a libpfm software event encodes on any machine */
    memset(&a, 0, sizeof a);
    REQUIRE_EQ(ctxprof_pebs_encode_event("perf::TASK-CLOCK", &a, &e), CTXPROF_OK);
    CHECK_EQ(a.type, PERF_TYPE_SOFTWARE);
    CHECK_EQ(a.config, PERF_COUNT_SW_TASK_CLOCK);
#if defined(CTXPROF_TEST_CC)
    /* the libpfm path under the strict warning set, as C99 and C++ */
    CHECK_EQ(ctxprof_test_sh("%s -std=c99 -Wall -Wextra -Werror -pedantic -Wshadow "
                             "-Wstrict-prototypes -Wmissing-prototypes -Wconversion "
                             "-Wsign-conversion -Wundef -DCTXPROF_HAVE_LIBPFM -c "
                             "tests/compile_c99.c -o %s/pfm_c99.o",
                             CTXPROF_TEST_CC, ctxprof_test_tmpdir()),
             0);
#endif
    /* the sampler with the paper's event: only where perf_event works at all */
    PEBS_USABLE_OR_SKIP();
    if (ctxprof__pebs_have_pmu() == 0) {
        PEBS_HAS(out, "open=0 level=3\n");
        PEBS_HAS(out, "explain=PEBS: no hardware PMU (ENOENT); hardware: no hardware PMU "
                      "(ENOENT); software task-clock: ok (period 1000000 ns)\n");
    } else {
        PEBS_HAS(out, "open=0 level=");
    }
}

/* An event libpfm cannot encode on this machine (not in the tables of its
   PMU, or no such event) is a hardware level that does not work: the probe
   says why and the software level stands in, as it does when the PMU
   refuses an event; only a forced hardware level fails, saying why. */
static void pebs_libpfm_degrade(void)
{
    ctxprof_pebs pb;
    ctxprof_pebs_desc d;
    struct perf_event_attr a;
    ctxprof_error e;
    char want[200];
    PEBS_USABLE_OR_SKIP();
    pebs_desc_fill(&d, CTXPROF_PEBS_MANUAL, 0);
    d.event = "NO_SUCH_EVENT_XYZ";
    REQUIRE_EQ(ctxprof_pebs_open(&pb, &d), CTXPROF_OK);
    CHECK_EQ(pb.level, CTXPROF_PEBS_LEVEL_SW);
    snprintf(want, sizeof want, "PEBS, hardware: libpfm: event 'NO_SUCH_EVENT_XYZ': %s; ",
             pfm_strerror(PFM_ERR_NOTFOUND));
    CHECK_CONTAINS(ctxprof_pebs_explain(&pb), want);
    CHECK_CONTAINS(ctxprof_pebs_explain(&pb), "software task-clock: ok (period 1000000 ns)");
    ctxprof_pebs_close(&pb);
    d.level = CTXPROF_PEBS_LEVEL_SW;
    CHECK_EQ(ctxprof_pebs_open(&pb, &d), CTXPROF_OK);
    ctxprof_pebs_close(&pb);
    d.level = CTXPROF_PEBS_LEVEL_HW; /* the hardware level only: fail, clearly */
    CHECK_EQ(ctxprof_pebs_open(&pb, &d), CTXPROF_ERR_UNSUPPORTED);
    CHECK_CONTAINS(ctxprof_error_message(&pb.error),
                   "level hardware forced, but libpfm: event 'NO_SUCH_EVENT_XYZ': ");
    CHECK_CONTAINS(ctxprof_pebs_explain(&pb), "libpfm: event 'NO_SUCH_EVENT_XYZ': ");
    /* the README's example, where this machine's libpfm tables lack it */
    memset(&a, 0, sizeof a);
    if (ctxprof_pebs_encode_event("INST_RETIRED:ANY_P:c=8:i", &a, &e) != CTXPROF_OK) {
        d.level = CTXPROF_PEBS_AUTO;
        d.event = "INST_RETIRED:ANY_P:c=8:i";
        CHECK_EQ(ctxprof_pebs_open(&pb, &d), CTXPROF_OK);
        CHECK_EQ(pb.level, CTXPROF_PEBS_LEVEL_SW);
        CHECK_CONTAINS(ctxprof_pebs_explain(&pb), "PEBS, hardware: libpfm: event "
                                                  "'INST_RETIRED:ANY_P:c=8:i': ");
        ctxprof_pebs_close(&pb);
    }
}
#else
static void pebs_libpfm(void)
{
    SKIP("built without libpfm (install libpfm4-dev; the Makefile detects it)");
}
static void pebs_libpfm_degrade(void)
{
    SKIP("built without libpfm (install libpfm4-dev; the Makefile detects it)");
}
#endif

/* ---- live tests ---- */

/* Opens a sampler or skips the case with the reason (no perf_event). */
#define PEBS_OPEN_OR_SKIP(pb, d)                                                                   \
    do {                                                                                           \
        int rc_ = ctxprof_pebs_open((pb), (d));                                                    \
        if (rc_ == CTXPROF_ERR_UNSUPPORTED) {                                                      \
            static char why_[300];                                                                 \
            snprintf(why_, sizeof why_, "perf_event unusable here: %s",                            \
                     ctxprof_error_message(&(pb)->error));                                         \
            SKIP(why_);                                                                            \
        }                                                                                          \
        REQUIRE_EQ(rc_, CTXPROF_OK);                                                               \
    } while (0)

/* Which levels this machine has; on a PMU-less one the explanation names the
   cause for each hardware level, and forcing them fails cleanly. */
static void pebs_live_explain(void)
{
    ctxprof_pebs pb;
    ctxprof_pebs_desc d;
    const char *why;
    pebs_desc_fill(&d, CTXPROF_PEBS_MANUAL, 0);
    PEBS_OPEN_OR_SKIP(&pb, &d);
    why = ctxprof_pebs_explain(&pb);
    if (ctxprof__pebs_have_pmu() == 0) {
        CHECK_EQ(pb.level, CTXPROF_PEBS_LEVEL_SW);
        CHECK_STR(why, "PEBS: no hardware PMU (ENOENT); hardware: no hardware PMU (ENOENT); "
                       "software task-clock: ok (period 1000000 ns)");
    } else {
        CHECK(pb.level >= CTXPROF_PEBS_LEVEL_PEBS && pb.level <= CTXPROF_PEBS_LEVEL_SW);
        CHECK_CONTAINS(why, ": ok (period ");
    }
    ctxprof_pebs_close(&pb);
    CHECK(pb.impl == NULL);
    CHECK_CONTAINS(ctxprof_pebs_explain(&pb), "ok (period"); /* kept after close */
    ctxprof_pebs_close(&pb);                                 /* idempotent */

    /* forced levels */
    d.level = CTXPROF_PEBS_LEVEL_HW;
    if (ctxprof__pebs_have_pmu() == 0) {
        CHECK_EQ(ctxprof_pebs_open(&pb, &d), CTXPROF_ERR_UNSUPPORTED);
        CHECK_CONTAINS(ctxprof_error_message(&pb.error), "no level works");
        CHECK_STR(ctxprof_pebs_explain(&pb), "hardware: no hardware PMU (ENOENT)");
        CHECK(pb.impl == NULL);
        ctxprof_pebs_close(&pb);
        d.level = CTXPROF_PEBS_LEVEL_PEBS;
        CHECK_EQ(ctxprof_pebs_open(&pb, &d), CTXPROF_ERR_UNSUPPORTED);
#if defined(CTXPROF__PEBS_X86)
        CHECK_STR(ctxprof_pebs_explain(&pb), "PEBS: no hardware PMU (ENOENT)");
#else
        CHECK_STR(ctxprof_pebs_explain(&pb), "PEBS: Intel x86 only");
#endif
        ctxprof_pebs_close(&pb);
    }
    d.level = CTXPROF_PEBS_LEVEL_SW;
    REQUIRE_EQ(ctxprof_pebs_open(&pb, &d), CTXPROF_OK);
    CHECK_EQ(pb.level, CTXPROF_PEBS_LEVEL_SW);
    CHECK_STR(ctxprof_pebs_explain(&pb), "software task-clock: ok (period 1000000 ns) [forced]");
    ctxprof_pebs_close(&pb);

    /* the environment variable, and a bad value of it */
    d.level = 0;
    d.flags = 0;
    setenv("CTXPROF_PEBS_LEVEL", "sw", 1);
    REQUIRE_EQ(ctxprof_pebs_open(&pb, &d), CTXPROF_OK);
    CHECK_EQ(pb.level, CTXPROF_PEBS_LEVEL_SW);
    ctxprof_pebs_close(&pb);
    setenv("CTXPROF_PEBS_LEVEL", "fast", 1);
    CHECK_EQ(ctxprof_pebs_open(&pb, &d), CTXPROF_ERR_INVAL);
    CHECK_CONTAINS(ctxprof_error_message(&pb.error), "CTXPROF_PEBS_LEVEL='fast'");
    unsetenv("CTXPROF_PEBS_LEVEL");
    /* a software event with a hardware level forced */
    d.event = "cpu-clock";
    d.level = CTXPROF_PEBS_LEVEL_HW;
    CHECK_EQ(ctxprof_pebs_open(&pb, &d), CTXPROF_ERR_INVAL);
    d.level = 0;
    REQUIRE_EQ(ctxprof_pebs_open(&pb, &d), CTXPROF_OK);
    CHECK_STR(ctxprof_pebs_explain(&pb), "software cpu-clock: ok (period 1000000 ns)");
    ctxprof_pebs_close(&pb);
}

static void pebs_desc_checks(void)
{
    ctxprof_pebs pb;
    ctxprof_pebs_desc d;
    memset(&pb, 0, sizeof pb);
    CHECK_EQ(ctxprof_pebs_attach(&pb, 0, 0), CTXPROF_ERR_INVAL); /* not open */
    CHECK_EQ(ctxprof_pebs_drain(&pb), CTXPROF_ERR_INVAL);
    ctxprof_pebs_close(&pb);
    CHECK_EQ(ctxprof_pebs_open(NULL, NULL), CTXPROF_ERR_INVAL);
    pebs_desc_fill(&d, 0, 0);
    d.ring_pages = 3;
    CHECK_EQ(ctxprof_pebs_open(&pb, &d), CTXPROF_ERR_INVAL);
    CHECK_CONTAINS(pb.error.detail, "power of two");
    pebs_desc_fill(&d, 7, 0);
    CHECK_EQ(ctxprof_pebs_open(&pb, &d), CTXPROF_ERR_INVAL);
    pebs_desc_fill(&d, 0, 0);
    d.precise = 4;
    CHECK_EQ(ctxprof_pebs_open(&pb, &d), CTXPROF_ERR_INVAL);
    pebs_desc_fill(&d, 0, 0);
    d.flags |= 0x100;
    CHECK_EQ(ctxprof_pebs_open(&pb, &d), CTXPROF_ERR_INVAL);
    pebs_desc_fill(&d, 0, 0);
    d.max_stack = 1000;
    CHECK_EQ(ctxprof_pebs_open(&pb, &d), CTXPROF_ERR_INVAL);
    pebs_desc_fill(&d, 0, 0);
    /* a known event with a modifier it lacks: an error in the name, not an
       event this machine lacks (which degrades: pebs_libpfm_degrade) */
    d.event = "perf::TASK-CLOCK:nosuchmod";
    CHECK(ctxprof_pebs_open(&pb, &d) != CTXPROF_OK);
    CHECK(pb.impl == NULL);
    ctxprof_pebs_close(&pb);
}

/* A descriptor field past its limit is refused naming the limit: 2^21
   ring pages are a power of two, so the message must not say otherwise;
   max_threads above 2^20 fails before open allocates a slot per thread
   (600 GB at 2^31). */
static void pebs_desc_limits(void)
{
    ctxprof_pebs pb;
    ctxprof_pebs_desc d;
    int rc;
    pebs_desc_fill(&d, CTXPROF_PEBS_MANUAL, 0);
    d.max_threads = (1u << 20) + 1;
    rc = ctxprof_pebs_open(&pb, &d);
    if (rc == CTXPROF_OK)
        ctxprof_pebs_close(&pb);
    REQUIRE_EQ(rc, CTXPROF_ERR_RANGE); /* before the larger ones would allocate */
    CHECK_CONTAINS(pb.error.detail, "max_threads=1048577 above 1048576");
    CHECK(pb.impl == NULL);
    d.max_threads = 1u << 31;
    CHECK_EQ(ctxprof_pebs_open(&pb, &d), CTXPROF_ERR_RANGE);
    CHECK_CONTAINS(pb.error.detail, "max_threads=2147483648 above 1048576");
    CHECK(pb.impl == NULL);
    d.max_threads = ~0u;
    CHECK_EQ(ctxprof_pebs_open(&pb, &d), CTXPROF_ERR_RANGE);
    CHECK(pb.impl == NULL);
    ctxprof_pebs_close(&pb);

    pebs_desc_fill(&d, CTXPROF_PEBS_MANUAL, 0);
    d.ring_pages = 1u << 21;
    CHECK_EQ(ctxprof_pebs_open(&pb, &d), CTXPROF_ERR_INVAL);
    CHECK_CONTAINS(pb.error.detail, "ring_pages=2097152 above 1048576");
    CHECK(strstr(pb.error.detail, "power of two") == NULL);
    d.ring_pages = 1u << 30;
    CHECK_EQ(ctxprof_pebs_open(&pb, &d), CTXPROF_ERR_INVAL);
    CHECK_CONTAINS(ctxprof_pebs_explain(&pb), "ring_pages=1073741824 above 1048576");
    ctxprof_pebs_close(&pb);
}

/* An array promised but not given (samples_cap without samples), or given
   without room, is refused: every sample would have been lost. With no
   sink at all samples are counted (not a mistake: probes, overhead). */
static void pebs_desc_sinks(void)
{
    static ctxprof_pebs_sample arr[4];
    ctxprof_pebs pb;
    ctxprof_pebs_desc d;
    pebs_desc_fill(&d, CTXPROF_PEBS_MANUAL, 0);
    d.samples_cap = 10;
    CHECK_EQ(ctxprof_pebs_open(&pb, &d), CTXPROF_ERR_INVAL);
    CHECK_CONTAINS(pb.error.detail, "samples_cap 10 but samples is NULL");
    CHECK_CONTAINS(ctxprof_pebs_explain(&pb), "samples_cap 10 but samples is NULL");
    CHECK(pb.impl == NULL);
    d.samples_cap = 0;
    d.samples = arr;
    CHECK_EQ(ctxprof_pebs_open(&pb, &d), CTXPROF_ERR_INVAL);
    CHECK_CONTAINS(pb.error.detail, "samples given with samples_cap 0");
    d.samples_cap = 4;
    PEBS_OPEN_OR_SKIP(&pb, &d);
    ctxprof_pebs_close(&pb);
    d.samples = NULL;
    d.samples_cap = 0;
    REQUIRE_EQ(ctxprof_pebs_open(&pb, &d), CTXPROF_OK); /* counts only */
    ctxprof_pebs_close(&pb);
}

/* A thread id of another process is refused (perf_event would sample it),
   and the handle's record keeps that failure across later successes; an
   exited thread still fails with ESRCH. */
static void pebs_attach_other_process(void)
{
    ctxprof_pebs pb;
    ctxprof_pebs_desc d;
    ctxprof_pebs_stats st;
    pid_t child;
    int status;
    char want[80];
    pebs_desc_fill(&d, CTXPROF_PEBS_MANUAL, 0);
    PEBS_OPEN_OR_SKIP(&pb, &d);
    fflush(NULL);
    child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        for (;;)
            pause();
    }
    CHECK_EQ(ctxprof_pebs_attach(&pb, (int)child, 0), CTXPROF_ERR_INVAL);
    snprintf(want, sizeof want, "thread %d is not a thread of this process", (int)child);
    CHECK_CONTAINS(pb.error.detail, want);
    CHECK_EQ(ctxprof_pebs_attach(&pb, 0, 0), CTXPROF_OK);
    CHECK_CONTAINS(pb.error.detail, "is not a thread of this process"); /* kept */
    kill(child, SIGKILL);
    CHECK_EQ(waitpid(child, &status, 0), child);
    CHECK_EQ(ctxprof_pebs_attach(&pb, (int)child, 0), CTXPROF_ERR_INVAL); /* gone: as before */
    CHECK_CONTAINS(pb.error.detail, "no such thread");
    CHECK_EQ(pb.error.sys_errno, ESRCH);
    ctxprof_pebs_stats_get(&pb, &st);
    CHECK_EQ(st.threads, 1);
    CHECK_EQ(st.attach_failed, 1);
    ctxprof_pebs_close(&pb);
}

typedef struct pebs_hits {
    uint64_t all, in, tid_wrong;
    int tid;
} pebs_hits;

static void pebs_hits_fn(void *user, const ctxprof_pebs_sample *s)
{
    pebs_hits *h = (pebs_hits *)user;
    h->all++;
    if (pebs_in_range(s->ip, __start_ctxprof_pebs_hot, __stop_ctxprof_pebs_hot))
        h->in++;
    if ((int)s->tid != h->tid)
        h->tid_wrong++;
}

/* >= 95% of the samples of a thread spinning in one function land in it;
   in every consumer mode. */
static void pebs_live_hot_mode(int mode)
{
    ctxprof_pebs pb;
    ctxprof_pebs_desc d;
    ctxprof_pebs_stats st;
    pebs_hits h;
    memset(&h, 0, sizeof h);
    h.tid = ctxprof__pebs_gettid();
    pebs_desc_fill(&d, mode, 100000);
    d.on_sample = pebs_hits_fn;
    d.user = &h;
    HARDWARE_PC_CHECKS();
    PEBS_OPEN_OR_SKIP(&pb, &d);
    REQUIRE_EQ(ctxprof_pebs_attach(&pb, 0, 0), CTXPROF_OK);
    CHECK_EQ(ctxprof_pebs_attach(&pb, 0, 0), CTXPROF_OK); /* again: no-op */
    /* drains make the reader's count visible; the signal handler counts here */
    PEBS_UNTIL(__atomic_load_n(&h.all, __ATOMIC_RELAXED) >= 500, {
        pebs_hot(20000000);
        if (mode != CTXPROF_PEBS_SIGNAL)
            ctxprof_pebs_drain(&pb);
    });
    REQUIRE_EQ(ctxprof_pebs_drain(&pb), CTXPROF_OK);
    CHECK_GE(h.all, 500);
    CHECK_GE(h.in * 100, h.all * 95);
    CHECK_EQ(h.tid_wrong, 0);
    REQUIRE_EQ(ctxprof_pebs_detach(&pb, 0), CTXPROF_OK);
    CHECK_EQ(ctxprof_pebs_detach(&pb, 0), CTXPROF_ERR_INVAL); /* not attached now */
    ctxprof_pebs_stats_get(&pb, &st);
    CHECK_EQ(st.samples, h.all);
    CHECK_EQ(st.threads, 1);
    CHECK_EQ(st.lost, 0);
    CHECK_EQ(st.desyncs, 0);
    CHECK_EQ(st.bad_records, 0);
    CHECK(st.time_running > 0);
    if (pb.level == CTXPROF_PEBS_LEVEL_SW) /* at most one sample per period of running */
        CHECK_GE(st.time_running * 2, (h.all - 1) * 100000);
    if (mode == CTXPROF_PEBS_SIGNAL && pb.impl->tick_ns == 0)
        CHECK_GE(st.wakeups, h.all / 2); /* a signal (almost) per sample */
    if (mode == CTXPROF_PEBS_SIGNAL && pb.level == CTXPROF_PEBS_LEVEL_SW) {
        /* 100 us is under the 1 ms tick: a signal per batch of about 10 */
        CHECK_EQ(pb.impl->tick_ns, CTXPROF__PEBS_SIG_TICK_NS);
        CHECK_GE(st.wakeups, 1);
        CHECK_LE(st.wakeups * 3, h.all);
    }
    ctxprof_pebs_close(&pb);
}

static void pebs_live_hot_reader(void)
{
    pebs_live_hot_mode(CTXPROF_PEBS_READER);
}
static void pebs_live_hot_manual(void)
{
    pebs_live_hot_mode(CTXPROF_PEBS_MANUAL);
}
static void pebs_live_hot_signal(void)
{
    pebs_live_hot_mode(CTXPROF_PEBS_SIGNAL);
}

/* SP heights track a recursion depth exactly: the leaf records its own SP;
   samples in the leaf carry exactly that SP, and their heights against the
   attach-time base differ by the frames between the depths. */
static volatile uint64_t pebs_leaf_sp[32], pebs_leaf_cookie_at[32];

PEBS_IN("ctxprof_pebs_leaf") static void pebs_leaf(int depth, uint64_t cpu_ns)
{
    volatile uint64_t cookie = 0xC00C1E0000000000ull + (uint64_t)depth;
    uint64_t sp = 0;
    __atomic_store_n(&pebs_leaf_cookie_at[depth], (uint64_t)(uintptr_t)&cookie, __ATOMIC_RELEASE);
#if defined(__x86_64__)
    __asm__ __volatile__("mov %%rsp, %0" : "=r"(sp));
#elif defined(__aarch64__)
    __asm__ __volatile__("mov %0, sp" : "=r"(sp));
#endif
    __atomic_store_n(&pebs_leaf_sp[depth], sp, __ATOMIC_RELEASE);
    PEBS_SPIN_BODY(cpu_ns);
}

static __attribute__((noinline)) void pebs_recurse(int d, int depth, uint64_t cpu_ns)
{
    volatile char pad[200];
    pad[0] = (char)d;
    if (d == 0)
        pebs_leaf(depth, cpu_ns);
    else
        pebs_recurse(d - 1, depth, cpu_ns);
    pad[1] = pad[0];
}

/* The user-stack copy of a leaf sample holds the leaf's cookie at the
   cookie's offset from SP: the copy starts exactly at the sampled SP. */
typedef struct pebs_cookiechk {
    uint64_t leaf, found, size_ok, at[32]; /* at[k]: samples at the leaf's SP of depth k */
} pebs_cookiechk;

static void pebs_cookie_fn(void *user, const ctxprof_pebs_sample *s)
{
    pebs_cookiechk *c = (pebs_cookiechk *)user;
    int k;
    if (!pebs_in_range(s->ip, __start_ctxprof_pebs_leaf, __stop_ctxprof_pebs_leaf))
        return;
    c->leaf++;
    if (s->stack && s->stack_size == 512 && s->stack_addr == s->sp)
        c->size_ok++;
    for (k = 0; k < 32; k++) {
        uint64_t sp = __atomic_load_n(&pebs_leaf_sp[k], __ATOMIC_ACQUIRE);
        uint64_t at = __atomic_load_n(&pebs_leaf_cookie_at[k], __ATOMIC_ACQUIRE);
        c->at[k] += s->sp == sp;
        if (s->sp == sp && s->stack && at >= s->stack_addr &&
            at + 8 <= s->stack_addr + s->stack_size) {
            uint64_t v;
            memcpy(&v, s->stack + (at - s->stack_addr), 8);
            if (v == 0xC00C1E0000000000ull + (uint64_t)k)
                c->found++;
        }
    }
}

static void pebs_live_depth(void)
{
    pebs_cookiechk ck;
    static ctxprof_pebs_sample arr[8192];
    static const int depths[] = {3, 7, 12};
    ctxprof_pebs pb;
    ctxprof_pebs_desc d;
    const ctxprof_pebs_sample *s;
    size_t n, i, in = 0, exact = 0;
    uint64_t per[3] = {0, 0, 0}, height[3] = {0, 0, 0};
    int k;
#if !defined(__x86_64__) && !defined(__aarch64__)
    SKIP("reads the SP with x86_64/aarch64 inline assembly");
#endif
    pebs_desc_fill(&d, CTXPROF_PEBS_READER, 100000);
    d.on_sample = pebs_cookie_fn;
    d.user = &ck;
    d.samples = arr;
    d.samples_cap = 8192;
    d.stack_bytes = 512;
    memset(&ck, 0, sizeof ck);
    HARDWARE_PC_CHECKS();
    PEBS_OPEN_OR_SKIP(&pb, &d);
    REQUIRE_EQ(ctxprof_pebs_attach(&pb, 0, 0x7fffffffffffull), CTXPROF_OK);
    PEBS_UNTIL(ck.at[3] >= 80 && ck.at[7] >= 80 && ck.at[12] >= 80, {
        for (k = 0; k < 3; k++)
            pebs_recurse(depths[k], depths[k], 10000000);
        ctxprof_pebs_drain(&pb);
    });
    ctxprof_pebs_close(&pb);
    s = ctxprof_pebs_samples(&pb, &n);
    REQUIRE(s == arr);
    for (i = 0; i < n; i++) {
        if (!pebs_in_range(s[i].ip, __start_ctxprof_pebs_leaf, __stop_ctxprof_pebs_leaf))
            continue;
        in++;
        for (k = 0; k < 3; k++)
            if (s[i].sp == pebs_leaf_sp[depths[k]]) {
                exact++;
                per[k]++;
                height[k] = s[i].height;
                CHECK_EQ(s[i].height, 0x7fffffffffffull - s[i].sp);
            }
    }
    CHECK_GE(in, 200);
    CHECK_GE(exact * 100, in * 99);
    CHECK_EQ(ck.leaf, in);
    CHECK_GE(ck.size_ok * 100, ck.leaf * 99);
    CHECK_GE(ck.found * 100, ck.leaf * 99);
    for (i = 0; i < n; i++)
        CHECK(s[i].stack == NULL); /* not kept in the array */
    for (k = 0; k < 3; k++)
        CHECK_GE(per[k], 30);
    /* the frame of pebs_rec, measured from the recorded SPs, explains the
       height differences exactly */
    {
        uint64_t frame = (pebs_leaf_sp[3] - pebs_leaf_sp[7]) / 4;
        CHECK_EQ(pebs_leaf_sp[3] - pebs_leaf_sp[7], 4 * frame);
        CHECK_EQ(pebs_leaf_sp[7] - pebs_leaf_sp[12], 5 * frame);
        CHECK_EQ(height[1] - height[0], 4 * frame);
        CHECK_EQ(height[2] - height[1], 5 * frame);
        CHECK_GE(frame, 16);
    }
}

/* A one-page ring left undrained overflows: the kernel writes LOST records
   once there is room again, and read() (PERF_FORMAT_LOST) agrees. */
static void pebs_live_lost(void)
{
    ctxprof_pebs pb;
    ctxprof_pebs_desc d;
    ctxprof_pebs_stats st;
    pebs_hits h;
    memset(&h, 0, sizeof h);
    h.tid = ctxprof__pebs_gettid();
    pebs_desc_fill(&d, CTXPROF_PEBS_MANUAL, 20000);
    d.ring_pages = 1;
    d.on_sample = pebs_hits_fn;
    d.user = &h;
    PEBS_OPEN_OR_SKIP(&pb, &d);
    REQUIRE_EQ(ctxprof_pebs_attach(&pb, 0, 0), CTXPROF_OK);
    /* undrained until the kernel has dropped 1000 samples; it counts them
       for read() with PERF_FORMAT_LOST (6.0+), before that 100 ms of CPU */
    if (pb.impl->attr.read_format & CTXPROF__PEBS_FORMAT_LOST)
        PEBS_UNTIL((ctxprof_pebs_stats_get(&pb, &st), st.kernel_lost >= 1000), pebs_hot(5000000));
    else
        pebs_hot(100000000);
    REQUIRE_EQ(ctxprof_pebs_drain(&pb), CTXPROF_OK);
    /* now there is room: the kernel writes its LOST record before its next sample */
    PEBS_UNTIL((ctxprof_pebs_stats_get(&pb, &st), st.lost > 0), {
        pebs_hot(1000000);
        ctxprof_pebs_drain(&pb);
    });
    ctxprof_pebs_stats_get(&pb, &st);
    CHECK_GE(st.lost, 1000);
    CHECK_GE(st.samples, 40);
    if (pb.impl->attr.read_format & CTXPROF__PEBS_FORMAT_LOST)
        CHECK_GE(st.kernel_lost, st.lost); /* the counter includes not yet reported ones */
    ctxprof_pebs_close(&pb);
    CHECK_CONTAINS(ctxprof_pebs_explain(&pb), "samples lost to full rings");
}

/* Reader mode with no drain call at all: the kernel wakes the reader at
   each watermark (a quarter of the ring) and it keeps up, so a run that
   writes more than the ring holds (1.5 rings) loses nothing, and by the end
   of the run (before close drains the rest) the reader has delivered most
   samples. */
static void pebs_live_watermark(void)
{
    ctxprof_pebs pb;
    ctxprof_pebs_desc d;
    ctxprof_pebs_stats mid, st;
    uint64_t ring;
    pebs_hits h;
    memset(&h, 0, sizeof h);
    h.tid = ctxprof__pebs_gettid();
    pebs_desc_fill(&d, CTXPROF_PEBS_READER, 50000); /* 20 kHz, default ring and watermark */
    d.on_sample = pebs_hits_fn;
    d.user = &h;
    HARDWARE_PC_CHECKS();
    PEBS_OPEN_OR_SKIP(&pb, &d);
    REQUIRE_EQ(ctxprof_pebs_attach(&pb, 0, 0), CTXPROF_OK);
    ring = pebs_ring_of(&pb, h.tid)->size; /* smaller than asked when the mlock budget is low */
    PEBS_UNTIL((ctxprof_pebs_stats_get(&pb, &mid), mid.bytes >= ring * 3 / 2), pebs_hot(10000000));
    ctxprof_pebs_close(&pb);
    ctxprof_pebs_stats_get(&pb, &st);
    CHECK_GE(mid.bytes, ring * 3 / 2); /* 1.5 rings went through during the run */
    CHECK_EQ(st.lost, 0);
    CHECK_EQ(st.kernel_lost, 0);
    CHECK_GE(mid.wakeups, 3);
    CHECK_GE(mid.samples * 2, st.samples); /* delivered during the run, not at close */
    CHECK_EQ(st.samples, h.all);
    CHECK_GE(h.in * 100, h.all * 95);
}

/* Heights are measured from the base ICPP training uses: the calling
   thread's ctxprof_icpp_thread_base(), and, for a thread attached from
   elsewhere before it had one, the base it records afterwards with
   ctxprof_icpp_thread_begin() (looked up when its ring is read). */
typedef struct pebs_basechk {
    ctxprof_pebs *pb;
    pthread_barrier_t bar;
    uint64_t base;
    int tid;
} pebs_basechk;

static void *pebs_base_main(void *arg)
{
    pebs_basechk *b = (pebs_basechk *)arg;
    b->tid = ctxprof__pebs_gettid();
    pthread_barrier_wait(&b->bar); /* the main thread attaches this one */
    pthread_barrier_wait(&b->bar);
    b->base = (uint64_t)ctxprof_icpp_thread_begin();
    PEBS_UNTIL_WRITTEN(b->pb, b->tid, 0, 400, pebs_recurse(5, 5, 10000000));
    pthread_barrier_wait(&b->bar); /* a drain while the base is registered */
    pthread_barrier_wait(&b->bar);
    ctxprof_icpp_thread_end();
    return NULL;
}

static void pebs_live_base(void)
{
    static ctxprof_pebs_sample arr[8192];
    pebs_basechk b;
    ctxprof_pebs pb;
    ctxprof_pebs_desc d;
    const ctxprof_pebs_sample *s;
    pthread_t th;
    uint64_t mine = (uint64_t)ctxprof_icpp_thread_base();
    size_t n, i, other = 0, other_ok = 0, self = 0, self_ok = 0;
    unsigned k;
#if !defined(__x86_64__) && !defined(__aarch64__)
    SKIP("reads the SP with x86_64/aarch64 inline assembly");
#endif
    REQUIRE(mine != 0); /* the main thread's base, recorded before main */
    pebs_desc_fill(&d, CTXPROF_PEBS_READER, 100000);
    d.samples = arr;
    d.samples_cap = 8192;
    HARDWARE_PC_CHECKS();
    PEBS_OPEN_OR_SKIP(&pb, &d);
    REQUIRE_EQ(ctxprof_pebs_attach(&pb, 0, 0), CTXPROF_OK);
    for (k = 0; k < pb.impl->nrings; k++)
        if (pb.impl->rings[k].state == CTXPROF__PEBS_ACTIVE)
            CHECK_EQ(pb.impl->rings[k].stack_base, mine);
    memset(&b, 0, sizeof b);
    b.pb = &pb;
    pthread_barrier_init(&b.bar, NULL, 2);
    REQUIRE_EQ(pthread_create(&th, NULL, pebs_base_main, &b), 0);
    pthread_barrier_wait(&b.bar);
    CHECK_EQ(ctxprof_icpp_base_of_tid(b.tid), 0); /* no base yet */
    REQUIRE_EQ(ctxprof_pebs_attach(&pb, b.tid, 0), CTXPROF_OK);
    pthread_barrier_wait(&b.bar);
    pthread_barrier_wait(&b.bar);
    REQUIRE_EQ(ctxprof_pebs_drain(&pb), CTXPROF_OK);
    pthread_barrier_wait(&b.bar);
    pthread_join(th, NULL);
    pthread_barrier_destroy(&b.bar);
    {
        int me = ctxprof__pebs_gettid();
        uint64_t h0 = pebs_ring_head(&pb, me);
        PEBS_UNTIL_WRITTEN(&pb, me, h0, 250, pebs_recurse(2, 2, 10000000));
    }
    ctxprof_pebs_close(&pb);
    REQUIRE(b.base != 0);
    s = ctxprof_pebs_samples(&pb, &n);
    for (i = 0; i < n; i++) {
        if (!pebs_in_range(s[i].ip, __start_ctxprof_pebs_leaf, __stop_ctxprof_pebs_leaf))
            continue;
        if ((int)s[i].tid == b.tid && s[i].sp == pebs_leaf_sp[5]) {
            other++;
            other_ok += s[i].height == b.base - s[i].sp;
        } else if ((int)s[i].tid != b.tid && s[i].sp == pebs_leaf_sp[2]) {
            self++;
            self_ok += s[i].height == mine - s[i].sp;
        }
    }
    CHECK_GE(other, 300);
    CHECK_EQ(other_ok, other);
    CHECK_GE(self, 150);
    CHECK_EQ(self_ok, self);
}

/* A thread that attaches itself before it has an ICPP base: its heights are
   from the top of its stack mapping, flagged STACK_TOP, until a read of its
   ring finds the base it registers later; from then on from that base,
   unflagged. Within one run each sample says which base it used. */
typedef struct pebs_switchchk {
    ctxprof_pebs *pb;
    uint64_t top, base;
    size_t first; /* samples delivered before the base existed */
    int tid, rc, had_base;
} pebs_switchchk;

static void *pebs_switch_main(void *arg)
{
    pebs_switchchk *c = (pebs_switchchk *)arg;
    c->tid = ctxprof__pebs_gettid();
    c->had_base = ctxprof_icpp_thread_base() != 0 || ctxprof_icpp_base_of_tid(c->tid) != 0;
    c->rc = ctxprof_pebs_attach(c->pb, 0, 0);
    if (c->rc != CTXPROF_OK || c->had_base)
        return NULL;
    c->top = pebs_ring_of(c->pb, c->tid)->stack_base;
    PEBS_UNTIL_WRITTEN(c->pb, c->tid, 0, 200, pebs_recurse(3, 3, 5000000));
    ctxprof_pebs_drain(c->pb); /* read while the thread has no base */
    c->first = __atomic_load_n(&c->pb->impl->nsamples, __ATOMIC_ACQUIRE);
    c->base = (uint64_t)ctxprof_icpp_thread_begin();
    {
        uint64_t h0 = pebs_ring_head(c->pb, c->tid);
        PEBS_UNTIL_WRITTEN(c->pb, c->tid, h0, 200, pebs_recurse(3, 3, 5000000));
    }
    ctxprof_pebs_drain(c->pb); /* finds the base */
    ctxprof_icpp_thread_end();
    return NULL;
}

static void pebs_live_base_switch(void)
{
    static ctxprof_pebs_sample arr[4096];
    pebs_switchchk c;
    ctxprof_pebs pb;
    ctxprof_pebs_desc d;
    const ctxprof_pebs_sample *s;
    pthread_t th;
    size_t n, i, before = 0, before_ok = 0, after = 0, after_ok = 0;
#if !defined(CTXPROF_ICPP_NO_HEIGHT)
    SKIP("the ICPP section of ctxprof.h is not in this build");
#endif
    HARDWARE_PC_CHECKS(); /* heights: the sampled SP is valgrind's own there */
    pebs_desc_fill(&d, CTXPROF_PEBS_READER, 100000);
    d.samples = arr;
    d.samples_cap = 4096;
    PEBS_OPEN_OR_SKIP(&pb, &d);
    memset(&c, 0, sizeof c);
    c.pb = &pb;
    REQUIRE_EQ(pthread_create(&th, NULL, pebs_switch_main, &c), 0);
    pthread_join(th, NULL);
    ctxprof_pebs_close(&pb);
    REQUIRE_EQ(c.rc, CTXPROF_OK);
    REQUIRE(!c.had_base);
    REQUIRE(c.top != 0 && c.base != 0 && c.base < c.top);
    s = ctxprof_pebs_samples(&pb, &n);
    for (i = 0; i < n; i++) {
        int top = (s[i].flags & CTXPROF_PEBS_SAMPLE_STACK_TOP) != 0;
        if ((int)s[i].tid != c.tid || (s[i].flags & CTXPROF_PEBS_SAMPLE_NO_REGS))
            continue;
        if (i < c.first) {
            before++;
            before_ok += top && s[i].height == c.top - s[i].sp;
        } else {
            after++;
            after_ok += !top && s[i].height == (s[i].sp <= c.base ? c.base - s[i].sp : 0);
        }
    }
    CHECK_GE(before, 150);
    CHECK_EQ(before_ok, before);
    CHECK_GE(after, 150);
    CHECK_EQ(after_ok, after);
}

/* A thread that runs on a stack of its own making, a makecontext coroutine
   on a malloc'd stack, and on its own stack in turns: the samples whose SP
   is in the coroutine's stack have no height (base - SP would span memory
   that is no part of the thread's stack) and are counted in off_stack;
   those on the thread's stack keep their heights against its ICPP base.
   ICPP's timer sampler does the same (icpp_sampler_altstack). */
typedef struct pebs_cochk {
    uint64_t lo, hi, base; /* the coroutine's stack [lo, hi); the thread's ICPP base */
    uint64_t co, co_bad, co_hot, own, own_bad, own_hot, no_regs;
} pebs_cochk;

static ucontext_t pebs_co_main, pebs_co_ctx;

static void pebs_co_fn(void)
{
    for (;;) { /* never returns: the test leaves it suspended */
        pebs_hot_t0(2000000);
        swapcontext(&pebs_co_ctx, &pebs_co_main);
    }
}

static void pebs_co_sample(void *user, const ctxprof_pebs_sample *s)
{
    pebs_cochk *c = (pebs_cochk *)user;
    if (s->flags & CTXPROF_PEBS_SAMPLE_NO_REGS) {
        c->no_regs++;
    } else if (s->sp >= c->lo && s->sp < c->hi) {
        c->co++;
        c->co_bad += s->height != 0;
        c->co_hot += pebs_in_range(s->ip, __start_ctxprof_pebs_t0, __stop_ctxprof_pebs_t0);
    } else {
        c->own++;
        c->own_bad += s->sp > c->base || s->height != c->base - s->sp;
        c->own_hot += pebs_in_range(s->ip, __start_ctxprof_pebs_t1, __stop_ctxprof_pebs_t1);
    }
}

static void pebs_live_coroutine(void)
{
    const size_t size = (size_t)1 << 18;
    unsigned char *stk;
    pebs_cochk c;
    ctxprof_pebs pb;
    ctxprof_pebs_desc d;
    ctxprof_pebs_stats st;
    HARDWARE_PC_CHECKS(); /* heights: the sampled SP is valgrind's own there */
    SKIP_NO_UCONTEXT();
    memset(&c, 0, sizeof c);
    c.base = (uint64_t)ctxprof_icpp_thread_base();
    REQUIRE(c.base != 0); /* the main thread's base, recorded before main */
    stk = (unsigned char *)malloc(size);
    REQUIRE(stk != NULL);
    c.lo = (uint64_t)(uintptr_t)stk;
    c.hi = c.lo + size;
    REQUIRE(getcontext(&pebs_co_ctx) == 0);
    pebs_co_ctx.uc_stack.ss_sp = stk;
    pebs_co_ctx.uc_stack.ss_size = size;
    pebs_co_ctx.uc_link = NULL;
    makecontext(&pebs_co_ctx, pebs_co_fn, 0);
    /* manual drains: the sink runs on this thread, between the turns */
    pebs_desc_fill(&d, CTXPROF_PEBS_MANUAL, 100000);
    d.on_sample = pebs_co_sample;
    d.user = &c;
    d.stack_bytes = 256; /* a copy of whichever stack SP is on */
    PEBS_OPEN_OR_SKIP(&pb, &d);
    REQUIRE_EQ(ctxprof_pebs_attach(&pb, 0, 0), CTXPROF_OK);
    PEBS_UNTIL(c.co_hot >= 100 && c.own_hot >= 100, {
        REQUIRE(swapcontext(&pebs_co_main, &pebs_co_ctx) == 0); /* 2 ms on the coroutine */
        pebs_hot_t1(2000000);                                   /* 2 ms on this stack */
        ctxprof_pebs_drain(&pb);
    });
    ctxprof_pebs_close(&pb);
    ctxprof_pebs_stats_get(&pb, &st);
    free(stk);
    CHECK_GE(c.co_hot, 100);
    CHECK_GE(c.own_hot, 100);
    CHECK_EQ(c.co_bad, 0);  /* no height on the coroutine's stack */
    CHECK_EQ(c.own_bad, 0); /* heights on the thread's own */
    CHECK_EQ(st.off_stack, c.co);
    CHECK_EQ(st.samples, c.co + c.own + c.no_regs);
    CHECK_EQ(st.no_regs, c.no_regs);
}

/* Wraparound on a live one-page ring drained every 0.3 ms of CPU time:
   every record parses, timestamps never go back, every IP is in the text of
   a loaded object, no desync. */
typedef struct pebs_wrapchk {
    uint64_t last_time, back, n, in;
} pebs_wrapchk;

/* Executable segments of every loaded object (vDSO included). */
static uint64_t pebs_text_lo[64], pebs_text_hi[64];
static int pebs_ntext;

static int pebs_text_cb(struct dl_phdr_info *info, size_t size, void *data)
{
    int i;
    (void)size;
    (void)data;
    for (i = 0; i < info->dlpi_phnum && pebs_ntext < 64; i++)
        if (info->dlpi_phdr[i].p_type == PT_LOAD && (info->dlpi_phdr[i].p_flags & PF_X)) {
            pebs_text_lo[pebs_ntext] = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
            pebs_text_hi[pebs_ntext] = pebs_text_lo[pebs_ntext] + info->dlpi_phdr[i].p_memsz;
            pebs_ntext++;
        }
    return 0;
}

static void pebs_wrap_fn(void *user, const ctxprof_pebs_sample *s)
{
    pebs_wrapchk *w = (pebs_wrapchk *)user;
    int i;
    if (s->time < w->last_time)
        w->back++;
    w->last_time = s->time;
    w->n++;
    for (i = 0; i < pebs_ntext; i++)
        if (s->ip >= pebs_text_lo[i] && s->ip < pebs_text_hi[i]) {
            w->in++;
            break;
        }
}

static void pebs_live_wrap(void)
{
    ctxprof_pebs pb;
    ctxprof_pebs_desc d;
    ctxprof_pebs_stats st;
    pebs_wrapchk w;
    memset(&w, 0, sizeof w);
    pebs_ntext = 0;
    dl_iterate_phdr(pebs_text_cb, NULL);
    pebs_desc_fill(&d, CTXPROF_PEBS_MANUAL, 20000);
    d.ring_pages = 1;
    d.flags |= CTXPROF_PEBS_TIME;
    d.on_sample = pebs_wrap_fn;
    d.user = &w;
    HARDWARE_PC_CHECKS();
    PEBS_OPEN_OR_SKIP(&pb, &d);
    REQUIRE_EQ(ctxprof_pebs_attach(&pb, 0, 0), CTXPROF_OK);
    PEBS_UNTIL(w.n >= 3000, {
        pebs_hot(300000); /* ~15 samples of 64 bytes at 20 us: the 4 KiB ring holds 64 */
        REQUIRE_EQ(ctxprof_pebs_drain(&pb), CTXPROF_OK);
    });
    ctxprof_pebs_close(&pb);
    ctxprof_pebs_stats_get(&pb, &st);
    CHECK_GE(st.bytes, 20 * 4096); /* the ring wrapped many times */
    CHECK_EQ(st.desyncs, 0);
    CHECK_EQ(st.bad_records, 0);
    CHECK_EQ(w.back, 0);
    CHECK_EQ(st.samples, w.n);
    CHECK_EQ(w.in, w.n); /* every IP inside the text of a loaded object */
    CHECK_GE(w.n, 3000);
    /* no assertion on st.lost: on a loaded VM, steal time counts as this
       thread's CPU time and bursts can overrun 64 samples between drains */
}

/* Four threads, each in its own function, attached by themselves, exiting
   without detaching: each sample carries its thread's tid and lands in its
   function; the reader reaps every exit (POLLHUP) and is never sampled. */
#define PEBS_NTHR 4
typedef struct pebs_thr {
    ctxprof_pebs *pb;
    int idx, tid, rc;
} pebs_thr;

typedef struct pebs_tsamp {
    uint64_t ip;
    int tid;
} pebs_tsamp;
static pebs_tsamp pebs_tsamples[20000];
static size_t pebs_ntsamples;

static void pebs_thr_fn(void *user, const ctxprof_pebs_sample *s)
{
    (void)user;
    if (pebs_ntsamples < 20000) {
        pebs_tsamples[pebs_ntsamples].ip = s->ip;
        pebs_tsamples[pebs_ntsamples].tid = (int)s->tid;
        pebs_ntsamples++;
    }
}

static void *pebs_thr_main(void *arg)
{
    static void (*const hot[PEBS_NTHR])(uint64_t) = {pebs_hot_t0, pebs_hot_t1, pebs_hot_t2,
                                                     pebs_hot_t3};
    pebs_thr *t = (pebs_thr *)arg;
    t->tid = ctxprof__pebs_gettid();
    t->rc = ctxprof_pebs_attach(t->pb, 0, 0);
    if (t->rc == CTXPROF_OK)
        PEBS_UNTIL_WRITTEN(t->pb, t->tid, 0, 400, hot[t->idx](10000000));
    return NULL;
}

static void pebs_live_threads(void)
{
    const char *lo[PEBS_NTHR] = {__start_ctxprof_pebs_t0, __start_ctxprof_pebs_t1,
                                 __start_ctxprof_pebs_t2, __start_ctxprof_pebs_t3};
    const char *hi[PEBS_NTHR] = {__stop_ctxprof_pebs_t0, __stop_ctxprof_pebs_t1,
                                 __stop_ctxprof_pebs_t2, __stop_ctxprof_pebs_t3};
    ctxprof_pebs pb;
    ctxprof_pebs_desc d;
    ctxprof_pebs_stats st;
    pebs_thr t[PEBS_NTHR];
    pthread_t th[PEBS_NTHR];
    uint64_t per[PEBS_NTHR] = {0}, right[PEBS_NTHR] = {0}, foreign = 0;
    uint64_t deadline;
    size_t i;
    int k;
    pebs_ntsamples = 0;
    pebs_desc_fill(&d, CTXPROF_PEBS_READER, 100000);
    d.on_sample = pebs_thr_fn;
    HARDWARE_PC_CHECKS();
    PEBS_OPEN_OR_SKIP(&pb, &d);
    CHECK_EQ(ctxprof_pebs_attach(&pb, pb.impl->reader_tid, 0), CTXPROF_ERR_INVAL);
    for (k = 0; k < PEBS_NTHR; k++) {
        t[k].pb = &pb;
        t[k].idx = k;
        t[k].rc = -100;
        REQUIRE_EQ(pthread_create(&th[k], NULL, pebs_thr_main, &t[k]), 0);
    }
    for (k = 0; k < PEBS_NTHR; k++) {
        pthread_join(th[k], NULL);
        CHECK_EQ(t[k].rc, CTXPROF_OK);
    }
    /* the exits reach the reader as POLLHUP shortly after join returns */
    deadline = pebs_wall_ns() + 5000000000ull;
    do {
        ctxprof_pebs_drain(&pb);
        ctxprof_pebs_stats_get(&pb, &st);
    } while (st.threads_exited < PEBS_NTHR && pebs_wall_ns() < deadline);
    CHECK_EQ(st.threads_exited, PEBS_NTHR);
    CHECK_EQ(st.threads, PEBS_NTHR);
    ctxprof_pebs_close(&pb);
    for (i = 0; i < pebs_ntsamples; i++) {
        int owner = -1;
        for (k = 0; k < PEBS_NTHR; k++)
            if (pebs_tsamples[i].tid == t[k].tid)
                owner = k;
        if (owner < 0) {
            foreign++;
            continue;
        }
        per[owner]++;
        if (pebs_in_range(pebs_tsamples[i].ip, lo[owner], hi[owner]))
            right[owner]++;
    }
    CHECK_EQ(foreign, 0); /* nobody else, the reader included, was sampled */
    for (k = 0; k < PEBS_NTHR; k++) {
        CHECK_GE(per[k], 300);
        CHECK_GE(right[k] * 100, per[k] * 95);
    }
}

/* A thread's exit alone delivers its samples: fewer bytes than the
   watermark and no drain call; the reader sees POLLHUP, reads the ring a
   last time and closes it. */
static void *pebs_exit_main(void *arg)
{
    pebs_thr *t = (pebs_thr *)arg;
    t->tid = ctxprof__pebs_gettid();
    t->rc = ctxprof_pebs_attach(t->pb, 0, 0);
    if (t->rc == CTXPROF_OK) /* 400 samples of 56 bytes: 22 KB, below the 64 KiB watermark */
        PEBS_UNTIL_WRITTEN(t->pb, t->tid, 0, 400, pebs_hot_t0(5000000));
    return NULL;
}

static void pebs_live_exit_drain(void)
{
    ctxprof_pebs pb;
    ctxprof_pebs_desc d;
    ctxprof_pebs_stats st;
    pebs_thr t;
    pthread_t th;
    uint64_t deadline, in = 0;
    size_t i;
    pebs_ntsamples = 0;
    pebs_desc_fill(&d, CTXPROF_PEBS_READER, 100000);
    d.on_sample = pebs_thr_fn;
    HARDWARE_PC_CHECKS();
    PEBS_OPEN_OR_SKIP(&pb, &d);
    memset(&t, 0, sizeof t);
    t.pb = &pb;
    REQUIRE_EQ(pthread_create(&th, NULL, pebs_exit_main, &t), 0);
    pthread_join(th, NULL);
    REQUIRE_EQ(t.rc, CTXPROF_OK);
    deadline = pebs_wall_ns() + 5000000000ull;
    do
        ctxprof_pebs_stats_get(&pb, &st); /* counters only: no drain */
    while (st.threads_exited < 1 && pebs_wall_ns() < deadline);
    CHECK_EQ(st.threads_exited, 1);
    CHECK_EQ(st.wakeups, 0); /* no watermark was reached: the exit delivered them */
    CHECK_GE(pebs_ntsamples, 300);
    CHECK_EQ(st.samples, pebs_ntsamples);
    for (i = 0; i < pebs_ntsamples; i++) {
        CHECK_EQ(pebs_tsamples[i].tid, t.tid);
        in += pebs_in_range(pebs_tsamples[i].ip, __start_ctxprof_pebs_t0, __stop_ctxprof_pebs_t0);
    }
    CHECK_GE(in * 100, pebs_ntsamples * 95);
    ctxprof_pebs_close(&pb);
}

/* Signal mode closed while three threads keep raising signals: close waits
   for running handlers, discards late signals, nothing crashes. */
typedef struct pebs_sigthr {
    ctxprof_pebs *pb;
    volatile int *stop;
    int rc;
} pebs_sigthr;

static void *pebs_sig_main(void *arg)
{
    pebs_sigthr *t = (pebs_sigthr *)arg;
    __atomic_store_n(&t->rc, ctxprof_pebs_attach(t->pb, 0, 0), __ATOMIC_RELEASE);
    while (!__atomic_load_n(t->stop, __ATOMIC_ACQUIRE))
        pebs_hot(2000000);
    return NULL;
}

static void pebs_live_signal_close(void)
{
    ctxprof_pebs pb;
    ctxprof_pebs_desc d;
    ctxprof_pebs_stats st;
    pebs_sigthr t[3];
    pthread_t th[3];
    volatile int stop = 0;
    struct sigaction before, now;
    int k;
    sigaction(SIGIO, NULL, &before);
    /* 1 kHz under valgrind: at 50 kHz its scheduler never started a thread */
    pebs_desc_fill(&d, CTXPROF_PEBS_SIGNAL, ctxprof_test_under_valgrind() ? 1000000 : 20000);
    PEBS_OPEN_OR_SKIP(&pb, &d);
    for (k = 0; k < 3; k++) {
        t[k].pb = &pb;
        t[k].stop = &stop;
        t[k].rc = -100;
        REQUIRE_EQ(pthread_create(&th[k], NULL, pebs_sig_main, &t[k]), 0);
    }
    for (k = 0; k < 3; k++) /* close must not run while an attach does */
        while (__atomic_load_n(&t[k].rc, __ATOMIC_ACQUIRE) == -100)
            sched_yield();
    PEBS_UNTIL(pebs_samples_so_far(&pb) >= 100, pebs_hot(5000000)); /* the threads sample */
    ctxprof_pebs_close(&pb);                                        /* while they still run */
    pebs_hot(20000000);
    __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
    for (k = 0; k < 3; k++) {
        pthread_join(th[k], NULL);
        CHECK_EQ(t[k].rc, CTXPROF_OK);
    }
    ctxprof_pebs_stats_get(&pb, &st);
    CHECK_EQ(st.threads, 3);
    CHECK_GE(st.samples, 100);
    CHECK_EQ(st.desyncs + st.bad_records, 0);
    sigaction(SIGIO, NULL, &now);
    CHECK(now.sa_handler == before.sa_handler); /* restored; late SIGIOs were discarded */
}

/* Close restores the signal's previous disposition: SIG_DFL (terminate),
   although a SIGIO raised by a sample is still pending (the thread blocks
   it), which close discards; and a handler of the program's own. In a
   child: a pending SIGIO left behind would kill it. */
static volatile sig_atomic_t pebs_user_sigio;
static void pebs_user_handler(int sig)
{
    (void)sig;
    pebs_user_sigio++;
}

typedef struct pebs_restore {
    int skipped, pending, dfl_after, alive, user_after, user_calls;
} pebs_restore;

static int pebs_restore_child(void *arg, void *shared)
{
    pebs_restore *r = (pebs_restore *)shared;
    ctxprof_pebs pb;
    ctxprof_pebs_desc d;
    struct sigaction now, user;
    sigset_t io, old, pend;
    (void)arg;
    sigemptyset(&io);
    sigaddset(&io, SIGIO);
    sigemptyset(&pend);
    pebs_desc_fill(&d, CTXPROF_PEBS_SIGNAL, 100000);
    if (ctxprof_pebs_open(&pb, &d) == CTXPROF_ERR_UNSUPPORTED) {
        r->skipped = 1;
        return 0;
    }
    pthread_sigmask(SIG_BLOCK, &io, &old);
    if (ctxprof_pebs_attach(&pb, 0, 0) != CTXPROF_OK)
        return 1;
    PEBS_UNTIL((sigpending(&pend), sigismember(&pend, SIGIO)), pebs_hot(1000000));
    r->pending = sigismember(&pend, SIGIO);
    ctxprof_pebs_close(&pb);
    sigaction(SIGIO, NULL, &now);
    r->dfl_after = now.sa_handler == SIG_DFL;
    pthread_sigmask(SIG_SETMASK, &old, NULL); /* a SIGIO still pending would kill us here */
    r->alive = 1;
    memset(&user, 0, sizeof user);
    user.sa_handler = pebs_user_handler;
    sigemptyset(&user.sa_mask);
    sigaction(SIGIO, &user, NULL);
    if (ctxprof_pebs_open(&pb, &d) != CTXPROF_OK || ctxprof_pebs_attach(&pb, 0, 0) != CTXPROF_OK)
        return 2;
    PEBS_UNTIL(pebs_samples_so_far(&pb) >= 20, pebs_hot(1000000));
    ctxprof_pebs_close(&pb);
    sigaction(SIGIO, NULL, &now);
    r->user_after = now.sa_handler == pebs_user_handler;
    raise(SIGIO);
    r->user_calls = pebs_user_sigio;
    return 0;
}

static void pebs_signal_restore(void)
{
    pebs_restore *r =
        (pebs_restore *)ctxprof_test_in_child(pebs_restore_child, NULL, sizeof(pebs_restore));
    REQUIRE(r != NULL);
    if (r->skipped) {
        munmap(r, sizeof *r);
        SKIP("perf_event unusable here");
    }
    CHECK_EQ(r->pending, 1);
    CHECK_EQ(r->dfl_after, 1);
    CHECK_EQ(r->alive, 1);
    CHECK_EQ(r->user_after, 1);
    CHECK_EQ(r->user_calls, 1); /* only our raise(): the sampler's signals went to its handler */
    munmap(r, sizeof *r);
}

/* Signal mode and fork(): the child gets the signal's previous disposition
   back (the sampler's handler would read the object the child frees at
   close), closing the parent's sampler there only frees memory, and the
   child can open a signal-mode sampler of its own. After that one's close
   the signal's default action (terminate) works in the child again. The
   parent, in a child of the test under an alarm, keeps sampling. */
typedef struct pebs_sigfork {
    int skipped, parent_rc, child_sig, child_rc;
    int dfl_at_fork, closed, dfl_after_close, open_rc, attach_rc, dfl_after_own;
    uint64_t child_samples, parent_samples;
    char err[200];
} pebs_sigfork;

static int pebs_sigfork_child(void *arg, void *shared)
{
    ctxprof_pebs *pb = (ctxprof_pebs *)arg, own;
    pebs_sigfork *r = (pebs_sigfork *)shared;
    ctxprof_pebs_desc d;
    struct sigaction now;
    sigaction(SIGIO, NULL, &now);
    r->dfl_at_fork = now.sa_handler == SIG_DFL;
    ctxprof_pebs_close(pb);
    r->closed = pb->impl == NULL;
    sigaction(SIGIO, NULL, &now);
    r->dfl_after_close = now.sa_handler == SIG_DFL;
    pebs_desc_fill(&d, CTXPROF_PEBS_SIGNAL, 100000);
    r->open_rc = ctxprof_pebs_open(&own, &d);
    snprintf(r->err, sizeof r->err, "%s", ctxprof_error_message(&own.error));
    if (r->open_rc == CTXPROF_OK) {
        r->attach_rc = ctxprof_pebs_attach(&own, 0, 0);
        if (r->attach_rc == CTXPROF_OK)
            PEBS_UNTIL(pebs_samples_so_far(&own) >= 20, pebs_hot(1000000));
        ctxprof_pebs_close(&own);
        r->child_samples = own.final_stats.samples;
    }
    sigaction(SIGIO, NULL, &now);
    r->dfl_after_own = now.sa_handler == SIG_DFL;
    raise(SIGIO); /* the default action: the child ends here */
    return 0;
}

static int pebs_sigfork_parent(void *arg, void *shared)
{
    pebs_sigfork *r = (pebs_sigfork *)shared;
    ctxprof_pebs pb;
    ctxprof_pebs_desc d;
    (void)arg;
    pebs_desc_fill(&d, CTXPROF_PEBS_SIGNAL, 100000);
    if (ctxprof_pebs_open(&pb, &d) == CTXPROF_ERR_UNSUPPORTED) {
        r->skipped = 1;
        return 0;
    }
    if (ctxprof_pebs_attach(&pb, 0, 0) != CTXPROF_OK)
        return 1;
    PEBS_UNTIL(pebs_samples_so_far(&pb) >= 5, pebs_hot(1000000));
    r->child_rc = ctxprof_test_child(pebs_sigfork_child, &pb, r, 60, &r->child_sig);
    PEBS_UNTIL(pebs_samples_so_far(&pb) >= 50, pebs_hot(1000000));
    ctxprof_pebs_close(&pb);
    r->parent_samples = pb.final_stats.samples;
    return 0;
}

static void pebs_signal_fork(void)
{
    pebs_sigfork *r =
        (pebs_sigfork *)ctxprof_test_in_child(pebs_sigfork_parent, NULL, sizeof(pebs_sigfork));
    REQUIRE(r != NULL);
    if (r->skipped) {
        munmap(r, sizeof *r);
        SKIP("perf_event unusable here");
    }
    CHECK_EQ(r->dfl_at_fork, 1);
    CHECK_EQ(r->closed, 1);
    CHECK_EQ(r->dfl_after_close, 1);
    CHECK_EQ(r->open_rc, CTXPROF_OK);
    if (r->open_rc != CTXPROF_OK)
        fprintf(stderr, "  child's open: %s\n", r->err);
    CHECK_EQ(r->attach_rc, CTXPROF_OK);
    CHECK_GE(r->child_samples, 20);
    CHECK_EQ(r->dfl_after_own, 1);
    CHECK_EQ(r->child_rc, -1);
    CHECK_EQ(r->child_sig, SIGIO); /* not swallowed by a handler left behind */
    CHECK_GE(r->parent_samples, 50);
    munmap(r, sizeof *r);
}

/* fork() while another thread closes its ring: the child's atfork handler
   closes the fds of the rings that are open at the fork, so it must see a
   ring's fd only while the fd is the ring's. A cycler thread attaches and
   detaches itself; the test's thread wakes at varied moments (both on one
   CPU: the thread that slept preempts the busy cycler wherever it is, e.g.
   on its way out of close() of the ring's fd; at normal priority, since a
   lower one starved the cycler holding the fork lock on a loaded machine),
   opens sentinels (the lowest free fd numbers: the ring's just closed one
   among them) and forks, at most 1,500 times or 10 s. Each child checks
   that its sentinels are still open; before the fix a child closed the
   ring's old fd number, by then a sentinel. Manual mode (one fd per ring)
   and signal mode (plus the ticker's fd).

   The same forks while a ring opens: each child also looks for an fd of
   the library's left open (a perf_event or an eventfd: the test opens
   neither itself), which would keep an event counting on the parent's
   thread for the child's lifetime; before the fix a fork between
   perf_event_open() and the store of the fd in the ring left the child
   the fd (and the ticker's): about half the children of manual and signal
   runs. pebs_fork_open_reader cycles whole samplers in reader mode (open
   with its probe and eventfd, attach, detach by the reader thread, close):
   before, 30-40% of the children kept the probe's event, a ring's or the
   eventfd. At most 500 and 300 forks: the test's limit of 10 s holds too. */
#define PEBS_FORKFD_FORKS 1500
#define PEBS_FORKFD_SENTINELS 8
#define PEBS_FORKFD_MAXFD 1024 /* above every fd of the test's (lowest free numbers) */

typedef struct pebs_forkfd {
    ctxprof_pebs *pb;
    const ctxprof_pebs_desc *d; /* cycle whole samplers of d, else attach/detach in pb */
    int stop, rc;
    uint64_t cycles;
} pebs_forkfd;

typedef struct pebs_forkfd_arg {
    int mode, cycle_open, scan, forks; /* scan: children look for library fds */
    int min_forks;                      /* forks before the deadline may stop it */
    int secs;                           /* the deadline */
} pebs_forkfd_arg;

typedef struct pebs_forkfd_res {
    int skipped, rc, forks, lost, leaked, leaked_efd;
    uint64_t cycles;
} pebs_forkfd_res;

static void *pebs_forkfd_cycler(void *arg)
{
    pebs_forkfd *c = (pebs_forkfd *)arg;
    while (!__atomic_load_n(&c->stop, __ATOMIC_ACQUIRE)) {
        int rc = c->d ? ctxprof_pebs_open(c->pb, c->d) : CTXPROF_OK;
        if (rc == CTXPROF_OK)
            rc = ctxprof_pebs_attach(c->pb, 0, 0);
        if (rc == CTXPROF_OK)
            rc = ctxprof_pebs_detach(c->pb, 0);
        if (c->d)
            ctxprof_pebs_close(c->pb);
        if (rc != CTXPROF_OK) {
            c->rc = rc;
            break;
        }
        __atomic_fetch_add(&c->cycles, (uint64_t)1, __ATOMIC_RELAXED);
    }
    return NULL;
}

/* In a forked child: 2 if an fd of a perf_event is open, plus 4 if one of
   an eventfd is. Only fcntl() and readlink() (the parent has threads). */
static int pebs_forkfd_leaked(void)
{
    int fd, bad = 0;
    for (fd = 0; fd < PEBS_FORKFD_MAXFD; fd++) {
        char path[32], link[64];
        ssize_t n;
        if (fcntl(fd, F_GETFD) == -1)
            continue;
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        n = readlink(path, link, sizeof link - 1);
        if (n <= 0)
            continue;
        link[n] = '\0';
        if (strcmp(link, "anon_inode:[perf_event]") == 0)
            bad |= 2;
        else if (strcmp(link, "anon_inode:[eventfd]") == 0)
            bad |= 4;
    }
    return bad;
}

static int pebs_forkfd_run(void *arg, void *shared)
{
    pebs_forkfd_res *r = (pebs_forkfd_res *)shared;
    const pebs_forkfd_arg *a = (const pebs_forkfd_arg *)arg;
    int i, k, cpu = 0, rc;
    ctxprof_pebs pb;
    ctxprof_pebs_desc d;
    pebs_forkfd c;
    pthread_t th;
    cpu_set_t set;
    struct timespec t0, now;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return 1;
    while (cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &set))
        cpu++;
    if (cpu == CPU_SETSIZE)
        return 2;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0)
        return 2;
    pebs_desc_fill(&d, a->mode, 100000); /* signal mode: a ticker too (1 ms) */
    d.level = CTXPROF_PEBS_LEVEL_SW;
    rc = ctxprof_pebs_open(&pb, &d);
    if (rc == CTXPROF_ERR_UNSUPPORTED) {
        r->skipped = 1;
        return 0;
    }
    if (rc != CTXPROF_OK)
        return 4;
    memset(&c, 0, sizeof c);
    c.pb = &pb;
    if (a->cycle_open) {
        ctxprof_pebs_close(&pb); /* the cycler opens it anew each time */
        c.d = &d;
    }
    if (pthread_create(&th, NULL, pebs_forkfd_cycler, &c) != 0)
        return 3;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (i = 0; i < a->forks; i++) {
        struct timespec ts = {0, 0};
        int s[PEBS_FORKFD_SENTINELS], st;
        pid_t pid;
        ts.tv_nsec = 5000 + (long)(((unsigned)i * 7919u) % 60000u);
        nanosleep(&ts, NULL); /* the cycler runs meanwhile */
        for (k = 0; k < PEBS_FORKFD_SENTINELS; k++)
            s[k] = open("/dev/null", O_RDONLY | O_CLOEXEC);
        pid = fork();
        if (pid == 0) {
            int bad = a->scan ? pebs_forkfd_leaked() : 0; /* nobody closed those */
            for (k = 0; k < PEBS_FORKFD_SENTINELS; k++)
                if (s[k] >= 0 && fcntl(s[k], F_GETFD) == -1)
                    bad |= 1; /* the atfork handler closed it */
            _exit(bad);
        }
        if (pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st)) {
            r->lost += (WEXITSTATUS(st) & 1) != 0;
            r->leaked += (WEXITSTATUS(st) & 2) != 0;
            r->leaked_efd += (WEXITSTATUS(st) & 4) != 0;
        }
        for (k = 0; k < PEBS_FORKFD_SENTINELS; k++)
            if (s[k] >= 0)
                close(s[k]);
        r->forks++;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec - t0.tv_sec > (r->forks < a->min_forks ? 60 : a->secs))
            break; /* a loaded machine: fewer forks, the same check */
    }
    __atomic_store_n(&c.stop, 1, __ATOMIC_RELEASE);
    pthread_join(th, NULL);
    r->rc = c.rc;
    r->cycles = c.cycles;
    if (!a->cycle_open)
        ctxprof_pebs_close(&pb);
    return 0;
}

/* The fork-vs-cycler run of mode, at most forks forks; open: the children
   must keep none of the library's fds (else only their sentinels are
   checked, as before the scan: the same fork rate). */
static void pebs_fork_mode(int mode, int cycle_open, int open, int forks)
{
    pebs_forkfd_arg a;
    pebs_forkfd_res *r;
    a.mode = mode;
    a.cycle_open = cycle_open;
    a.scan = open;
    a.forks = forks;
    /* the close race hit 2-3% of the children, the open race a third to
       two thirds: 30 forks find that one. A VM slowed by other jobs (load
       6 on 2 cores) forked 66-114 times in 10 s under the sanitizers, and
       34 under a heavier load: the run goes on past 10 s until it has
       forked that many (60 s at most). The sanitizers' builds fork ten
       times slower and find nothing more (the checks are of fds): 3 s
       there (and those 30-50 forks), the plain builds' 500-1,500 forks
       being the real search */
    a.min_forks = open ? 30 : 50;
#if defined(CTXPROF_TEST_SANITIZED)
    a.secs = 3;
#else
    a.secs = 10;
#endif
    r = (pebs_forkfd_res *)ctxprof_test_in_child(pebs_forkfd_run, &a, sizeof(pebs_forkfd_res));
    REQUIRE(r != NULL);
    if (r->skipped) {
        munmap(r, sizeof *r);
        SKIP("perf_event unusable here");
    }
    fprintf(stderr, "  pebs: %d forks against %llu %s cycles: %d children lost a sentinel fd",
            r->forks, (unsigned long long)r->cycles,
            cycle_open ? "open/attach/detach/close" : "attach/detach", r->lost);
    if (open)
        fprintf(stderr, ", %d kept a perf_event fd, %d an eventfd", r->leaked, r->leaked_efd);
    fprintf(stderr, "\n");
    CHECK_GE(r->forks, a.min_forks);
    CHECK_EQ(r->rc, CTXPROF_OK);
    CHECK_GE(r->cycles, 1);
    CHECK_EQ(r->lost, 0);
    if (open) {
        CHECK_EQ(r->leaked, 0);
        CHECK_EQ(r->leaked_efd, 0);
    }
    munmap(r, sizeof *r);
}

static void pebs_fork_close_manual(void)
{
    pebs_fork_mode(CTXPROF_PEBS_MANUAL, 0, 0, PEBS_FORKFD_FORKS);
}

static void pebs_fork_close_signal(void)
{
    pebs_fork_mode(CTXPROF_PEBS_SIGNAL, 0, 0, PEBS_FORKFD_FORKS);
}

static void pebs_fork_open_manual(void)
{
    pebs_fork_mode(CTXPROF_PEBS_MANUAL, 0, 1, PEBS_FORKFD_FORKS / 3);
}

static void pebs_fork_open_signal(void)
{
    pebs_fork_mode(CTXPROF_PEBS_SIGNAL, 0, 1, PEBS_FORKFD_FORKS / 3);
}

static void pebs_fork_open_reader(void)
{
    pebs_fork_mode(CTXPROF_PEBS_READER, 1, 1, PEBS_FORKFD_FORKS / 5); /* slower forks */
}

/* Signal mode at the shortest period (10 us) cannot livelock the program: a
   signal costs more than that in a VM (about 25 us), and one signal per
   sample kept every thread in the handler for good. The same fixed CPU work
   of two sampled threads finishes, and yields samples; the alarm of the
   child catches a livelock. Its cost (thread CPU time, handlers included)
   stays within a small factor of the same run in reader mode, which pays
   for the sampling alone: a 10 us timer interrupt costs about as much as
   its period in a VM, so sampling there multiplies any program's CPU time
   whatever the mode. */
#define PEBS_FIXED_ROUNDS 1500u
static void pebs_fixed_work(void)
{
    unsigned k, i;
    for (k = 0; k < PEBS_FIXED_ROUNDS; k++)
        for (i = 0; i < 20000; i++)
            pebs_sink_v += i;
}

typedef struct pebs_fast {
    ctxprof_pebs *pb;
    int rc;
    uint64_t cpu_ns;
} pebs_fast;

static void *pebs_fast_main(void *arg)
{
    pebs_fast *t = (pebs_fast *)arg;
    uint64_t t0;
    t->rc = t->pb ? ctxprof_pebs_attach(t->pb, 0, 0) : CTXPROF_OK;
    t0 = pebs_cpu_ns();
    pebs_fixed_work();
    t->cpu_ns = pebs_cpu_ns() - t0;
    if (t->pb && t->rc == CTXPROF_OK)
        ctxprof_pebs_detach(t->pb, 0);
    return NULL;
}

typedef struct pebs_fastres {
    int skipped, failed_at;
    uint64_t base_ns[2], reader_ns[2], sampled_ns[2], samples, sunk;
    char explain[768];
} pebs_fastres;

static uint64_t pebs_fast_sunk;
static void pebs_fast_sink(void *user, const ctxprof_pebs_sample *s)
{
    (void)user;
    (void)s;
    __atomic_fetch_add(&pebs_fast_sunk, (uint64_t)1, __ATOMIC_RELAXED);
}

static int pebs_fast_run(ctxprof_pebs *pb, uint64_t *ns)
{
    pebs_fast t[2];
    pthread_t th[2];
    int k;
    for (k = 0; k < 2; k++) {
        t[k].pb = pb;
        t[k].rc = -100;
        if (pthread_create(&th[k], NULL, pebs_fast_main, &t[k]) != 0)
            return -1;
    }
    for (k = 0; k < 2; k++) {
        pthread_join(th[k], NULL);
        ns[k] = t[k].cpu_ns;
        if (t[k].rc != CTXPROF_OK)
            return -2;
    }
    return 0;
}

static int pebs_fast_child(void *arg, void *shared)
{
    pebs_fastres *r = (pebs_fastres *)shared;
    ctxprof_pebs pb;
    ctxprof_pebs_desc d;
    (void)arg;
    pebs_desc_fill(&d, CTXPROF_PEBS_READER, 10000);
    if (pebs_fast_run(NULL, r->base_ns) != 0)
        return r->failed_at = 1;
    if (ctxprof_pebs_open(&pb, &d) == CTXPROF_ERR_UNSUPPORTED) {
        r->skipped = 1;
        return 0;
    }
    if (pebs_fast_run(&pb, r->reader_ns) != 0)
        return r->failed_at = 2;
    ctxprof_pebs_close(&pb);
    pebs_desc_fill(&d, CTXPROF_PEBS_SIGNAL, 10000);
    d.on_sample = pebs_fast_sink;
    if (ctxprof_pebs_open(&pb, &d) != CTXPROF_OK)
        return r->failed_at = 3;
    if (pebs_fast_run(&pb, r->sampled_ns) != 0)
        return r->failed_at = 4;
    ctxprof_pebs_close(&pb);
    r->samples = pb.final_stats.samples;
    r->sunk = __atomic_load_n(&pebs_fast_sunk, __ATOMIC_RELAXED);
    snprintf(r->explain, sizeof r->explain, "%s", ctxprof_pebs_explain(&pb));
    return 0;
}

static void pebs_signal_fast(void)
{
    pebs_fastres *r = (pebs_fastres *)ctxprof_test_shared(sizeof *r);
    int sig = 0, rc;
    REQUIRE(r != NULL);
    /* the alarm is wall time: the child needs seconds of CPU (about 1 s per
       thread in reader mode at 10 us under ASan), which a loaded machine
       stretches many times; a livelock never ends, whatever the limit */
    rc = ctxprof_test_child(pebs_fast_child, NULL, r, ctxprof_test_under_valgrind() ? 300 : 120,
                            &sig);
    if (sig == SIGALRM)
        fprintf(stderr, "  the sampled work never finished in 120 s: signal mode livelocked\n");
    CHECK_EQ(sig, 0);
    CHECK_EQ(rc, 0);
    if (r->skipped) {
        munmap(r, sizeof *r);
        SKIP("perf_event unusable here");
    }
    CHECK_EQ(r->failed_at, 0);
    /* both threads together: the kernel throttles a 10 us event by its
       interrupts' cost, unevenly between threads (one reader-mode thread
       measured 519 ms of CPU beside the other's 1,320) */
    CHECK(r->base_ns[0] > 0 && r->base_ns[1] > 0);
    CHECK_LE(r->sampled_ns[0] + r->sampled_ns[1],
             3 * (r->reader_ns[0] + r->reader_ns[1]) + 100000000u);
    CHECK_GE(r->samples, 100);
    CHECK_EQ(r->sunk, r->samples);
    CHECK_CONTAINS(r->explain, "; signal mode: one signal per 1000000 ns of a thread's CPU time");
    printf("  pebs: 10 us period, ms of CPU per thread: signal mode %.0f/%.0f, reader mode "
           "%.0f/%.0f, unsampled %.0f/%.0f; %llu samples\n",
           (double)r->sampled_ns[0] / 1e6, (double)r->sampled_ns[1] / 1e6,
           (double)r->reader_ns[0] / 1e6, (double)r->reader_ns[1] / 1e6,
           (double)r->base_ns[0] / 1e6, (double)r->base_ns[1] / 1e6,
           (unsigned long long)r->samples);
    munmap(r, sizeof *r);
}

/* Threads that exited give their slot back: with max_threads = 2, six
   short-lived threads attach one after another (each exits before the next
   starts, none detaches); every attach succeeds and every exit is counted,
   in each mode. No drain is called: attach reaps when the table is full. */
typedef struct pebs_churn {
    ctxprof_pebs *pb;
    int rc;
    char msg[200];
} pebs_churn;

static void *pebs_churn_main(void *arg)
{
    pebs_churn *c = (pebs_churn *)arg;
    c->rc = ctxprof_pebs_attach(c->pb, 0, 0);
    if (c->rc != CTXPROF_OK)
        snprintf(c->msg, sizeof c->msg, "%s", ctxprof_error_message(&c->pb->error));
    pebs_hot(2000000);
    return NULL;
}

static void pebs_slots_reuse_mode(int mode)
{
    ctxprof_pebs pb;
    ctxprof_pebs_desc d;
    ctxprof_pebs_stats st;
    pebs_churn c;
    pthread_t th;
    int k, ok = 0;
    pebs_desc_fill(&d, mode, 100000);
    d.max_threads = 2;
    PEBS_OPEN_OR_SKIP(&pb, &d);
    for (k = 0; k < 6; k++) {
        c.pb = &pb;
        c.rc = -100;
        c.msg[0] = '\0';
        REQUIRE_EQ(pthread_create(&th, NULL, pebs_churn_main, &c), 0);
        pthread_join(th, NULL);
        if (c.rc != CTXPROF_OK)
            fprintf(stderr, "  mode %d, thread %d: %s\n", mode, k, c.msg);
        ok += c.rc == CTXPROF_OK;
    }
    /* the kernel marks a thread's event exited after pthread_join may
       return (perf_event_exit_task runs after the tid is cleared): wait
       for the last one to be seen, as a drain reaps it */
    for (k = 0; k < 400; k++) {
        ctxprof_pebs_drain(&pb);
        ctxprof_pebs_stats_get(&pb, &st);
        if (st.threads_exited == 6)
            break;
        usleep(5000);
    }
    ctxprof_pebs_close(&pb);
    ctxprof_pebs_stats_get(&pb, &st);
    CHECK_EQ(ok, 6);
    CHECK_EQ(st.threads, 6);
    CHECK_EQ(st.threads_exited, 6);
    CHECK_EQ(st.attach_failed, 0);
    CHECK(st.samples > 0);
}

static void pebs_slots_reuse(void)
{
    pebs_slots_reuse_mode(CTXPROF_PEBS_MANUAL);
    pebs_slots_reuse_mode(CTXPROF_PEBS_SIGNAL);
    pebs_slots_reuse_mode(CTXPROF_PEBS_READER);
}

/* A thread id is reused once its thread has exited, and until a drain (manual
   and signal modes) or the reader's next pass (reader mode) the exited
   thread's ring is still active under that id. Attach must see that the
   ring's thread is gone (its event reports POLLHUP) and attach anew, not
   take the new thread for one it already samples. */
static int pebs_reuse_tid;      /* the thread whose samples are counted */
static uint64_t pebs_reuse_n;   /* its samples */
static pebs_churn pebs_reuse_a; /* the thread that attaches and exits */
static int pebs_reuse_a_tid;

static void pebs_reuse_fn(void *user, const ctxprof_pebs_sample *s)
{
    (void)user;
    if ((int)s->tid == __atomic_load_n(&pebs_reuse_tid, __ATOMIC_RELAXED))
        __atomic_fetch_add(&pebs_reuse_n, 1, __ATOMIC_RELAXED);
}

static void *pebs_reuse_exit_main(void *arg)
{
    pebs_churn *c = (pebs_churn *)arg;
    pebs_reuse_a_tid = ctxprof__pebs_gettid();
    c->rc = ctxprof_pebs_attach(c->pb, 0, 0);
    return NULL; /* exits without a detach: its ring stays active */
}

/* Runs a thread that attaches and exits, and waits until its id is free
   (the kernel marked its event exited before: perf_event_exit_task() runs
   before the thread is released). Returns its id, 0 on failure. */
static int pebs_reuse_attach_and_exit(ctxprof_pebs *pb)
{
    pthread_t th;
    uint64_t deadline = pebs_wall_ns() + 5000000000ull;
    pebs_reuse_a.pb = pb;
    pebs_reuse_a.rc = -100;
    pebs_reuse_a_tid = 0;
    if (pthread_create(&th, NULL, pebs_reuse_exit_main, &pebs_reuse_a) != 0)
        return 0;
    pthread_join(th, NULL); /* returns before the thread is released */
    while (syscall(SYS_tgkill, getpid(), pebs_reuse_a_tid, 0) == 0 && pebs_wall_ns() < deadline)
        sched_yield();
    return pebs_reuse_a.rc == CTXPROF_OK ? pebs_reuse_a_tid : 0;
}

static void *pebs_reuse_main(void *arg)
{
    pebs_churn *c = (pebs_churn *)arg;
    int tid = ctxprof__pebs_gettid();
    c->rc = ctxprof_pebs_attach(c->pb, 0, 0);
    __atomic_store_n(&pebs_reuse_tid, tid, __ATOMIC_RELAXED);
    PEBS_UNTIL(__atomic_load_n(&pebs_reuse_n, __ATOMIC_RELAXED) >= 20, {
        pebs_hot(1000000);
        ctxprof_pebs_drain(c->pb);
    });
    snprintf(c->msg, sizeof c->msg, "%d", tid);
    return NULL;
}

typedef struct pebs_reuse {
    ctxprof_test_ns ns;
    int tid_a[3], tid_b[3], rc_b[3];
    uint64_t samples_b[3], threads[3];
} pebs_reuse;

static const int pebs_reuse_modes[3] = {CTXPROF_PEBS_MANUAL, CTXPROF_PEBS_SIGNAL,
                                        CTXPROF_PEBS_READER};

/* In a new pid namespace (nothing else takes ids there): thread A attaches
   and exits, ns_last_pid is set so that the next thread, B, gets A's id. */
static int pebs_reuse_ns_run(void *shared)
{
    pebs_reuse *r = (pebs_reuse *)shared;
    int k;
    for (k = 0; k < 3; k++) {
        ctxprof_pebs pb;
        ctxprof_pebs_desc d;
        pebs_churn b;
        pthread_t th;
        pebs_desc_fill(&d, pebs_reuse_modes[k], 100000);
        d.on_sample = pebs_reuse_fn;
        if (ctxprof_pebs_open(&pb, &d) != CTXPROF_OK) {
            r->ns.skipped = 1;
            snprintf(r->ns.why, sizeof r->ns.why, "perf_event unusable here: %s",
                     ctxprof_error_message(&pb.error));
            return 0;
        }
        __atomic_store_n(&pebs_reuse_tid, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&pebs_reuse_n, 0, __ATOMIC_RELAXED);
        r->tid_a[k] = pebs_reuse_attach_and_exit(&pb);
        if (ctxprof_test_set_next_tid(r->tid_a[k], r->ns.why, sizeof r->ns.why) != 0) {
            r->ns.skipped = 1;
            ctxprof_pebs_close(&pb);
            return 0;
        }
        memset(&b, 0, sizeof b);
        b.pb = &pb;
        b.rc = -100;
        if (pthread_create(&th, NULL, pebs_reuse_main, &b) == 0) {
            pthread_join(th, NULL);
            r->tid_b[k] = atoi(b.msg);
        }
        r->rc_b[k] = b.rc;
        r->samples_b[k] = __atomic_load_n(&pebs_reuse_n, __ATOMIC_RELAXED);
        ctxprof_pebs_close(&pb);
        r->threads[k] = pb.final_stats.threads;
    }
    return 0;
}

static void pebs_tid_reuse(void)
{
    pebs_reuse *r;
    int k;
    PEBS_USABLE_OR_SKIP();
    /* Everywhere: the id of a thread that exited, its ring still active
       (nothing drained it), is no thread any more. Attaching it by id must
       fail (ESRCH), not report it sampled; its ring is reaped meanwhile. */
    for (k = 0; k < 3; k++) {
        ctxprof_pebs pb;
        ctxprof_pebs_desc d;
        ctxprof_pebs_stats st;
        int tid;
        pebs_desc_fill(&d, pebs_reuse_modes[k], 100000);
        REQUIRE_EQ(ctxprof_pebs_open(&pb, &d), CTXPROF_OK);
        REQUIRE_EQ(ctxprof_pebs_attach(&pb, 0, 0), CTXPROF_OK); /* a live ring beside */
        tid = pebs_reuse_attach_and_exit(&pb);
        REQUIRE(tid > 0);
        CHECK(!ctxprof__pebs_ring_dead(pebs_ring_of(&pb, ctxprof__pebs_gettid())));
        if (pebs_reuse_modes[k] != CTXPROF_PEBS_READER) { /* (the reader may have reaped it) */
            const ctxprof__pebs_ring *gone = pebs_ring_of(&pb, tid);
            REQUIRE(gone != NULL); /* nothing drained it: still active */
            CHECK(ctxprof__pebs_ring_dead(gone));
        }
        CHECK_EQ(ctxprof_pebs_attach(&pb, tid, 0), CTXPROF_ERR_INVAL);
        CHECK_EQ(pb.error.sys_errno, ESRCH);
        CHECK(pebs_ring_of(&pb, tid) == NULL);
        ctxprof_pebs_stats_get(&pb, &st);
        CHECK_EQ(st.threads_exited, 1);
        ctxprof_pebs_close(&pb);
    }
    /* Where a pid namespace can be made: a real reuse, in each mode */
    r = (pebs_reuse *)ctxprof_test_in_pid_ns(pebs_reuse_ns_run, 0, sizeof *r);
    REQUIRE(r != NULL);
    SKIP_NO_PID_NS(r, "tid reuse");
    for (k = 0; k < 3; k++) {
        CHECK(r->tid_a[k] > 0);
        CHECK_EQ(r->tid_b[k], r->tid_a[k]); /* the id was reused */
        CHECK_EQ(r->rc_b[k], CTXPROF_OK);
        CHECK_GE(r->samples_b[k], 20); /* the new thread is sampled */
        CHECK_EQ(r->threads[k], 2);
    }
    munmap(r, sizeof *r);
}

/* Open on a handle that is open is refused (CTXPROF_ERR_INVAL) and leaves
   the sampler as it was: it wiped the handle, losing the reader thread and
   the rings (never closed), and in signal mode the handler, which stayed
   installed so that no signal-mode sampler could open again. Any other
   handle is fine, even one never initialised: open reads none of it. In
   each mode the first sampler still samples and closes cleanly (no thread
   or descriptor left), and opens again once closed. */
static int pebs_count_dir(const char *path);

static void pebs_open_twice(void)
{
    static const int modes[3] = {CTXPROF_PEBS_READER, CTXPROF_PEBS_MANUAL, CTXPROF_PEBS_SIGNAL};
    ctxprof_pebs pb, other;
    ctxprof_pebs_desc d;
    struct sigaction before, now;
    int threads0, fds0, k;
    PEBS_USABLE_OR_SKIP();
    threads0 = pebs_count_dir("/proc/self/task");
    fds0 = pebs_count_dir("/proc/self/fd");
    sigaction(SIGIO, NULL, &before);
    for (k = 0; k < 3; k++) {
        struct ctxprof__pebs_impl *impl;
        pebs_desc_fill(&d, modes[k], 100000);
        memset(&pb, 0xa5, sizeof pb); /* never initialised */
        REQUIRE_EQ(ctxprof_pebs_open(&pb, &d), CTXPROF_OK);
        impl = pb.impl;
        REQUIRE_EQ(ctxprof_pebs_attach(&pb, 0, 0), CTXPROF_OK);
        CHECK_EQ(ctxprof_pebs_open(&pb, &d), CTXPROF_ERR_INVAL);
        CHECK_CONTAINS(ctxprof_error_message(&pb.error), "is open: close it");
        REQUIRE(pb.impl == impl); /* untouched */
        PEBS_UNTIL(pebs_samples_so_far(&pb) >= 20, {
            pebs_hot(1000000);
            ctxprof_pebs_drain(&pb);
        });
        CHECK_GE(pebs_samples_so_far(&pb), 20);
        ctxprof_pebs_close(&pb);
        CHECK(pb.impl == NULL);
        CHECK_EQ(pebs_count_dir("/proc/self/task"), threads0); /* the reader was joined */
        CHECK_EQ(pebs_count_dir("/proc/self/fd"), fds0);
        sigaction(SIGIO, NULL, &now); /* signal mode: restored */
        CHECK(now.sa_handler == before.sa_handler);
        REQUIRE_EQ(ctxprof_pebs_open(&pb, &d), CTXPROF_OK); /* closed: opens again */
        ctxprof_pebs_close(&pb);
    }
    /* signal mode is free again for another handle */
    pebs_desc_fill(&d, CTXPROF_PEBS_SIGNAL, 100000);
    CHECK_EQ(ctxprof_pebs_open(&other, &d), CTXPROF_OK);
    ctxprof_pebs_close(&other);
}

/* explain() after a failed open says why that open failed, whatever failed:
   a bad CTXPROF_PEBS_LEVEL, a descriptor field, a software event with a
   hardware level forced, and signal mode already taken (whose probe had
   worked: its "ok" alone would contradict the failure). */
static void pebs_explain_failed(void)
{
    ctxprof_pebs pb, other;
    ctxprof_pebs_desc d;
    const char *old = getenv("CTXPROF_PEBS_LEVEL");
    char saved[64];
    snprintf(saved, sizeof saved, "%s", old ? old : "");
    pebs_desc_fill(&d, CTXPROF_PEBS_MANUAL, 0);
    d.flags = 0; /* read the environment */
    setenv("CTXPROF_PEBS_LEVEL", "foo", 1);
    CHECK_EQ(ctxprof_pebs_open(&pb, &d), CTXPROF_ERR_INVAL);
    if (old)
        setenv("CTXPROF_PEBS_LEVEL", saved, 1);
    else
        unsetenv("CTXPROF_PEBS_LEVEL");
    CHECK_CONTAINS(ctxprof_pebs_explain(&pb), "CTXPROF_PEBS_LEVEL='foo': expected pebs, hw, sw");
    CHECK_CONTAINS(ctxprof_pebs_explain(&pb), "open failed");
    ctxprof_pebs_close(&pb);
    CHECK_CONTAINS(ctxprof_pebs_explain(&pb), "CTXPROF_PEBS_LEVEL='foo'"); /* also after close */

    pebs_desc_fill(&d, CTXPROF_PEBS_MANUAL, 0);
    d.ring_pages = 3;
    CHECK_EQ(ctxprof_pebs_open(&pb, &d), CTXPROF_ERR_INVAL);
    CHECK_CONTAINS(ctxprof_pebs_explain(&pb), "ring_pages=3 must be a power of two");

    pebs_desc_fill(&d, CTXPROF_PEBS_MANUAL, 0);
    d.event = "task-clock";
    d.level = CTXPROF_PEBS_LEVEL_HW;
    CHECK_EQ(ctxprof_pebs_open(&pb, &d), CTXPROF_ERR_INVAL);
    CHECK_CONTAINS(ctxprof_pebs_explain(&pb),
                   "event 'task-clock' is a software event but level hardware was forced");

    PEBS_USABLE_OR_SKIP();
    pebs_desc_fill(&d, CTXPROF_PEBS_SIGNAL, 0);
    REQUIRE_EQ(ctxprof_pebs_open(&other, &d), CTXPROF_OK);
    CHECK_EQ(ctxprof_pebs_open(&pb, &d), CTXPROF_ERR_INVAL);
    CHECK_CONTAINS(ctxprof_error_message(&pb.error), "another sampler already uses signal mode");
    CHECK_CONTAINS(ctxprof_pebs_explain(&pb),
                   "open failed: another sampler already uses signal mode");
    CHECK(strncmp(ctxprof_pebs_explain(&pb), "ctxprof_pebs: open failed", 25) == 0);
    ctxprof_pebs_close(&pb);
    ctxprof_pebs_close(&other);
}

/* attach_all picks up every thread of the process but the reader. */
typedef struct pebs_park {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int go, ready;
} pebs_park;

static void *pebs_park_main(void *arg)
{
    pebs_park *p = (pebs_park *)arg;
    pthread_mutex_lock(&p->mu);
    p->ready++;
    pthread_cond_broadcast(&p->cv);
    while (!p->go)
        pthread_cond_wait(&p->cv, &p->mu);
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

static void pebs_live_attach_all(void)
{
    ctxprof_pebs pb;
    ctxprof_pebs_desc d;
    pebs_park park;
    pthread_t th[2];
    size_t n = 0, again = 9;
    int k, ntask = 0;
    DIR *dir;
    struct dirent *e;
    pebs_desc_fill(&d, CTXPROF_PEBS_READER, 0);
    PEBS_OPEN_OR_SKIP(&pb, &d);
    memset(&park, 0, sizeof park);
    pthread_mutex_init(&park.mu, NULL);
    pthread_cond_init(&park.cv, NULL);
    for (k = 0; k < 2; k++)
        REQUIRE_EQ(pthread_create(&th[k], NULL, pebs_park_main, &park), 0);
    pthread_mutex_lock(&park.mu);
    while (park.ready < 2)
        pthread_cond_wait(&park.cv, &park.mu);
    pthread_mutex_unlock(&park.mu);
    dir = opendir("/proc/self/task");
    REQUIRE(dir != NULL);
    while ((e = readdir(dir)) != NULL)
        if (atoi(e->d_name) > 0)
            ntask++;
    closedir(dir);
    CHECK_EQ(ctxprof_pebs_attach_all(&pb, &n), CTXPROF_OK);
    CHECK_EQ(n, (size_t)ntask - 1); /* all but the reader */
    CHECK_EQ(ctxprof_pebs_attach_all(&pb, &again), CTXPROF_OK);
    CHECK_EQ(again, 0);
    pthread_mutex_lock(&park.mu);
    park.go = 1;
    pthread_cond_broadcast(&park.cv);
    pthread_mutex_unlock(&park.mu);
    for (k = 0; k < 2; k++)
        pthread_join(th[k], NULL);
    ctxprof_pebs_close(&pb);
    pthread_mutex_destroy(&park.mu);
    pthread_cond_destroy(&park.cv);
}

/* attach_all in a pid namespace: with its own /proc it attaches the
   threads by the namespace's ids (the main thread is 1 there); with its
   parent's /proc, whose ids perf_event would take for other threads, it
   refuses and attaches nothing. */
typedef struct pebs_nsall {
    ctxprof_test_ns ns;
    int rc, n, rings;
    char msg[200];
} pebs_nsall;

static int pebs_nsall_run(void *shared)
{
    pebs_nsall *r = (pebs_nsall *)shared;
    ctxprof_pebs pb;
    ctxprof_pebs_desc d;
    ctxprof_pebs_stats st;
    size_t n = 0;
    pebs_desc_fill(&d, CTXPROF_PEBS_MANUAL, 0);
    if (ctxprof_pebs_open(&pb, &d) != CTXPROF_OK) {
        r->ns.skipped = 1;
        snprintf(r->ns.why, sizeof r->ns.why, "perf_event unusable here: %s",
                 ctxprof_error_message(&pb.error));
        return 0;
    }
    r->rc = ctxprof_pebs_attach_all(&pb, &n);
    r->n = (int)n;
    snprintf(r->msg, sizeof r->msg, "%s", pb.error.detail);
    ctxprof_pebs_stats_get(&pb, &st);
    r->rings = (int)st.threads;
    ctxprof_pebs_close(&pb);
    return 0;
}

static void pebs_attach_all_pid_ns(void)
{
    int own;
    PEBS_USABLE_OR_SKIP();
    for (own = 1; own >= 0; own--) {
        pebs_nsall *r = (pebs_nsall *)ctxprof_test_in_pid_ns(pebs_nsall_run, own, sizeof *r);
        REQUIRE(r != NULL);
        SKIP_NO_PID_NS(r, "attach_all in a pid namespace");
        if (own) {
            CHECK_EQ(r->rc, CTXPROF_OK);
            CHECK_EQ(r->n, 1); /* the one thread */
            CHECK_EQ(r->rings, 1);
        } else {
            CHECK_EQ(r->rc, CTXPROF_ERR_UNSUPPORTED);
            CHECK_CONTAINS(r->msg, "/proc is another pid namespace's");
            CHECK_EQ(r->n, 0);
            CHECK_EQ(r->rings, 0);
        }
        munmap(r, sizeof *r);
    }
}

/* The caller's array: filled up to its capacity, the rest counted. */
static void pebs_live_array(void)
{
    static ctxprof_pebs_sample arr[10];
    ctxprof_pebs pb;
    ctxprof_pebs_desc d;
    ctxprof_pebs_stats st;
    const ctxprof_pebs_sample *s;
    size_t n, i;
    pebs_desc_fill(&d, CTXPROF_PEBS_MANUAL, 100000);
    d.samples = arr;
    d.samples_cap = 10;
    PEBS_OPEN_OR_SKIP(&pb, &d);
    REQUIRE_EQ(ctxprof_pebs_attach(&pb, 0, 0), CTXPROF_OK);
    PEBS_UNTIL(pebs_samples_so_far(&pb) >= 20, {
        pebs_hot(5000000);
        ctxprof_pebs_drain(&pb);
    });
    ctxprof_pebs_close(&pb);
    ctxprof_pebs_stats_get(&pb, &st);
    s = ctxprof_pebs_samples(&pb, &n);
    CHECK(s == arr);
    CHECK_EQ(n, 10);
    CHECK_GE(st.samples, 20); /* more than the array holds */
    CHECK_EQ(st.array_full, st.samples - 10);
    for (i = 0; i < n; i++) {
        CHECK(s[i].sp != 0);
        CHECK(s[i].callchain == NULL);
        CHECK(s[i].height > 0); /* default base: the top of this thread's stack */
    }
    CHECK_CONTAINS(ctxprof_pebs_explain(&pb), "beyond the array's capacity");
}

/* A software period below the kernel's 10 us floor (the hrtimer never
   fires sooner) is raised to it at open, so that sample weights are the
   period the kernel uses; explain() says so. */
static void pebs_period_floor(void)
{
    static ctxprof_pebs_sample arr[256];
    ctxprof_pebs pb;
    ctxprof_pebs_desc d;
    ctxprof_pebs_stats st;
    const ctxprof_pebs_sample *s;
    size_t n, i, wrong = 0;
    pebs_desc_fill(&d, CTXPROF_PEBS_MANUAL, 2000);
    d.level = CTXPROF_PEBS_LEVEL_SW;
    d.samples = arr;
    d.samples_cap = 256;
    PEBS_OPEN_OR_SKIP(&pb, &d);
    CHECK_EQ(pb.impl->attr.sample_period, 10000);
    CHECK_STR(ctxprof_pebs_explain(&pb),
              "software task-clock: ok (period 10000 ns) [period_ns=2000 "
              "raised to the kernel's minimum] [forced]");
    REQUIRE_EQ(ctxprof_pebs_attach(&pb, 0, 0), CTXPROF_OK);
    PEBS_UNTIL(pebs_samples_so_far(&pb) >= 100, {
        pebs_hot(2000000);
        ctxprof_pebs_drain(&pb);
    });
    REQUIRE_EQ(ctxprof_pebs_detach(&pb, 0), CTXPROF_OK);
    ctxprof_pebs_stats_get(&pb, &st);
    ctxprof_pebs_close(&pb);
    s = ctxprof_pebs_samples(&pb, &n);
    CHECK_GE(n, 100);
    for (i = 0; i < n; i++)
        wrong += s[i].period != 10000;
    CHECK_EQ(wrong, 0);
    /* the kernel's floor: at most one sample per 10 us of the event's time */
    CHECK_GE(st.time_running * 2, (st.samples - 1) * 10000);
    /* at the floor itself nothing changes */
    d.period_ns = 10000;
    REQUIRE_EQ(ctxprof_pebs_open(&pb, &d), CTXPROF_OK);
    CHECK_STR(ctxprof_pebs_explain(&pb), "software task-clock: ok (period 10000 ns) [forced]");
    ctxprof_pebs_close(&pb);
}

/* The kernel's frame-pointer callchain as ground truth: it starts with the
   user context marker and the sampled IP. */
typedef struct pebs_chainchk {
    uint64_t n, ok;
} pebs_chainchk;

static void pebs_chain_fn(void *user, const ctxprof_pebs_sample *s)
{
    pebs_chainchk *c = (pebs_chainchk *)user;
    c->n++;
    if (s->callchain_nr >= 2 && s->callchain[0] == (uint64_t)PERF_CONTEXT_USER &&
        s->callchain[1] == s->ip)
        c->ok++;
}

static void pebs_live_callchain(void)
{
    ctxprof_pebs pb;
    ctxprof_pebs_desc d;
    pebs_chainchk c;
    memset(&c, 0, sizeof c);
    pebs_desc_fill(&d, CTXPROF_PEBS_MANUAL, 100000);
    d.flags |= CTXPROF_PEBS_CALLCHAIN;
    d.max_stack = 32;
    d.on_sample = pebs_chain_fn;
    d.user = &c;
    PEBS_OPEN_OR_SKIP(&pb, &d);
    REQUIRE_EQ(ctxprof_pebs_attach(&pb, 0, 0), CTXPROF_OK);
    PEBS_UNTIL(c.n >= 100, {
        pebs_hot(10000000);
        ctxprof_pebs_drain(&pb);
    });
    ctxprof_pebs_close(&pb);
    CHECK_GE(c.n, 100);
    CHECK_GE(c.ok * 100, c.n * 99);
}

/* desc.max_stack may be up to 192, but the kernel refuses a callchain
   deeper than kernel.perf_event_max_stack (127 unless raised) with
   EOVERFLOW, which made open fail with "perf_event_open failed (EOVERFLOW
   75)" at every level. Open lowers max_stack to the sysctl instead, says so
   in explain() and reports the depth in use in pb.max_stack (training's
   desc.max_stack needs it); callchains still arrive. */
static void pebs_max_stack(void)
{
    ctxprof_pebs pb;
    ctxprof_pebs_desc d;
    pebs_chainchk c;
    long lim = 127;
    unsigned want;
    char note[120];
    if (ctxprof__pebs_read_long("/proc/sys/kernel/perf_event_max_stack", &lim) != 0)
        lim = 127;
    want = lim < 192 ? (unsigned)lim : 192;
    memset(&c, 0, sizeof c);
    pebs_desc_fill(&d, CTXPROF_PEBS_MANUAL, 100000);
    d.level = CTXPROF_PEBS_LEVEL_SW;
    d.flags |= CTXPROF_PEBS_CALLCHAIN;
    d.max_stack = 192;
    d.on_sample = pebs_chain_fn;
    d.user = &c;
    PEBS_USABLE_OR_SKIP(); /* then a refusal is this case's failure, not a skip */
    REQUIRE_EQ(ctxprof_pebs_open(&pb, &d), CTXPROF_OK);
    CHECK_EQ(pb.max_stack, want);
    CHECK_EQ(pb.impl->attr.sample_max_stack, want);
    snprintf(note, sizeof note, " [max_stack=192 lowered to kernel.perf_event_max_stack=%u]", want);
    if (want < 192)
        CHECK_CONTAINS(ctxprof_pebs_explain(&pb), note);
    else
        CHECK(strstr(ctxprof_pebs_explain(&pb), "lowered") == NULL);
    REQUIRE_EQ(ctxprof_pebs_attach(&pb, 0, 0), CTXPROF_OK);
    PEBS_UNTIL(c.n >= 20, {
        pebs_hot(2000000);
        ctxprof_pebs_drain(&pb);
    });
    ctxprof_pebs_close(&pb);
    CHECK_GE(c.n, 20);
    CHECK_EQ(c.ok, c.n);
    CHECK_EQ(pb.max_stack, want); /* still readable after close */
    /* the default (127) when the sysctl allows it; none without callchains */
    d.max_stack = 0;
    REQUIRE_EQ(ctxprof_pebs_open(&pb, &d), CTXPROF_OK);
    CHECK_EQ(pb.max_stack, want < 127 ? want : 127);
    ctxprof_pebs_close(&pb);
    d.flags &= ~CTXPROF_PEBS_CALLCHAIN;
    REQUIRE_EQ(ctxprof_pebs_open(&pb, &d), CTXPROF_OK);
    CHECK_EQ(pb.max_stack, 0);
    ctxprof_pebs_close(&pb);
    /* above the reader's bound is still an error; an unreadable sysctl counts as 127 */
    d.max_stack = 193;
    CHECK_EQ(ctxprof_pebs_open(&pb, &d), CTXPROF_ERR_INVAL);
    CHECK_EQ(ctxprof__pebs_max_stack_limit("/nonexistent/perf_event_max_stack"), 127);
}

/* fork(): the child cannot use the parent's sampler and does not keep the
   parent's events open; the parent goes on sampling. */
static void pebs_fork_child(int fd, void *arg)
{
    ctxprof_pebs *pb = (ctxprof_pebs *)arg;
    int rc = ctxprof_pebs_attach(pb, 0, 0);
    int ringfd = pb->impl->rings[0].fd;
    pebs_put(fd, "attach=%d forked=%d fdopen=%d\n", rc, pb->impl->forked,
             fcntl(ringfd, F_GETFD) >= 0);
    rc = ctxprof_pebs_open(pb, NULL); /* still open here: close it first */
    pebs_put(fd, "reopen=%d kept=%d\n", rc, pb->impl != NULL);
    ctxprof_pebs_close(pb);
    pebs_put(fd, "closed=%d\n", pb->impl == NULL);
}

static void pebs_live_fork(void)
{
    ctxprof_pebs pb;
    ctxprof_pebs_desc d;
    ctxprof_pebs_stats st;
    char out[512];
    pebs_desc_fill(&d, CTXPROF_PEBS_READER, 100000);
    PEBS_OPEN_OR_SKIP(&pb, &d);
    REQUIRE_EQ(ctxprof_pebs_attach(&pb, 0, 0), CTXPROF_OK);
    REQUIRE_EQ(pebs_in_child(pebs_fork_child, &pb, out, sizeof out), 0);
    PEBS_HAS(out, "attach=-1 forked=1 fdopen=0");
    PEBS_HAS(out, "reopen=-1 kept=1");
    PEBS_HAS(out, "closed=1");
    PEBS_UNTIL(pebs_samples_so_far(&pb) >= 100, {
        pebs_hot(10000000);
        ctxprof_pebs_drain(&pb);
    });
    ctxprof_pebs_stats_get(&pb, &st);
    CHECK_GE(st.samples, 100);
    ctxprof_pebs_close(&pb);
}

/* ---- the open matrix (PEBS-NOTES 6.1, and 6.2 item 2) ----

   perf_event_open, and mmap of its ring, with the attribute combinations
   the notes probed, each against the errno expected here: the attributes
   of each level (PEBS and hardware fail with ENOENT without a PMU and open
   with one, software always opens), the software event with every option,
   malformed attributes (the same errno whatever the privileges), and the
   privileged ones, predicted from kernel.perf_event_paranoid. Run as this
   user and, when root, as nobody in a forked child. */
typedef struct pebs_mrow {
    const char *name;
    int want, alt; /* errno expected (0: opens, and maps when mapped); alt is accepted
                      too; want -1: depends on this machine's PMU, not checked */
    int got;
} pebs_mrow;

#define PEBS_MROWS 40

/* perf_event_open (then mmap of pages data pages when pages >= 0): 0 or the errno. */
static int pebs_mtry(struct perf_event_attr *a, int pid, int cpu, int pages)
{
    size_t len = (size_t)(pages + 1) * (size_t)ctxprof__pebs_page();
    int fd = (int)syscall(__NR_perf_event_open, a, pid, cpu, -1,
                          (unsigned long)PERF_FLAG_FD_CLOEXEC),
        e = 0;
    void *m;
    if (fd < 0)
        return errno;
    if (pages >= 0) {
        m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (m == MAP_FAILED)
            e = errno;
        else
            munmap(m, len);
    }
    close(fd);
    return e;
}

/* The software level's attributes: the base every row changes. */
static void pebs_mbase(struct perf_event_attr *a)
{
    memset(a, 0, sizeof *a);
    a->size = sizeof *a;
    a->type = PERF_TYPE_SOFTWARE;
    a->config = PERF_COUNT_SW_TASK_CLOCK;
    a->sample_period = 100000;
    a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_REGS_USER;
    a->sample_regs_user = PEBS_MASK;
    a->disabled = 1;
    a->exclude_kernel = 1;
    a->exclude_hv = 1;
}

/* Fills rows; priv: root (or CAP_PERFMON/CAP_SYS_ADMIN). Returns how many. */
static size_t pebs_matrix(pebs_mrow *rows, int priv)
{
    static struct ctxprof__pebs_impl I; /* only I.d is read by ctxprof__pebs_attr */
    struct perf_event_attr a, cyc;
    struct rlimit rl;
    long par = 2, rate = 100000, mlock_kb = 516, maxp = -1, ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int pmu = ctxprof__pebs_have_pmu(), intel = 0, hw, p;
    unsigned long long budget_kb;
    size_t n = 0;
    ctxprof_error e;
    ctxprof__pebs_read_long("/proc/sys/kernel/perf_event_paranoid", &par);
    ctxprof__pebs_read_long("/proc/sys/kernel/perf_event_max_sample_rate", &rate);
    ctxprof__pebs_read_long("/proc/sys/kernel/perf_event_mlock_kb", &mlock_kb);
    budget_kb = (unsigned long long)mlock_kb * (unsigned long long)(ncpu > 0 ? ncpu : 1);
    if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0)
        budget_kb +=
            rl.rlim_cur == RLIM_INFINITY ? 1ull << 40 : (unsigned long long)rl.rlim_cur / 1024;
#if defined(CTXPROF__PEBS_X86)
    intel = pmu == 1 && ctxprof__pebs_is_intel();
    if (ctxprof__pebs_read_long("/sys/bus/event_source/devices/cpu/caps/max_precise", &maxp) != 0)
        ctxprof__pebs_read_long("/sys/bus/event_source/devices/cpu_core/caps/max_precise", &maxp);
#endif
    hw = pmu == 0 ? ENOENT : pmu == 1 ? 0 : -1;
#define PEBS_M(label, w, al, pid, cpu, pages, setup)                                               \
    do {                                                                                           \
        pebs_mbase(&a);                                                                            \
        setup;                                                                                     \
        rows[n].name = (label);                                                                    \
        rows[n].want = (w);                                                                        \
        rows[n].alt = (al);                                                                        \
        rows[n].got = pebs_mtry(&a, (pid), (cpu), (pages));                                        \
        n++;                                                                                       \
    } while (0)
    /* each level's attributes, as ctxprof__pebs_attr makes them */
    memset(&I, 0, sizeof I);
    I.d.period = 1000003;
    I.d.period_ns = 1000000;
    I.d.watermark = 65536;
    memset(&cyc, 0, sizeof cyc);
    ctxprof_pebs_encode_event("cycles", &cyc, &e);
    PEBS_M("level PEBS (cycles, precise_ip=1, REGS_INTR)",
           pmu == 0             ? ENOENT
           : intel && maxp >= 1 ? 0
                                : -1,
           -1, 0, -1, 0, ctxprof__pebs_attr(&I, &cyc, CTXPROF_PEBS_LEVEL_PEBS, 1, 1, &a));
    PEBS_M("level hardware (cycles, REGS_USER)", hw, -1, 0, -1, 0,
           ctxprof__pebs_attr(&I, &cyc, CTXPROF_PEBS_LEVEL_HW, 0, 0, &a));
    PEBS_M("level software (task-clock, REGS_USER)", 0, -1, 0, -1, 0,
           ctxprof__pebs_attr(&I, &cyc, CTXPROF_PEBS_LEVEL_SW, 0, 0, &a));
    /* hardware events */
    for (p = 0; p <= 3; p++) {
        static const char *const nm[4] = {"cycles precise_ip=0", "cycles precise_ip=1",
                                          "cycles precise_ip=2", "cycles precise_ip=3"};
        PEBS_M(nm[p],
               pmu == 0             ? ENOENT
               : p == 0             ? hw
               : intel && maxp >= 0 ? (p <= maxp ? 0 : EOPNOTSUPP)
                                    : -1,
               -1, 0, -1, -1, a.type = PERF_TYPE_HARDWARE;
               a.config = PERF_COUNT_HW_CPU_CYCLES; a.precise_ip = (unsigned)p & 3u);
    }
    PEBS_M("raw 0x108000c0", pmu == 0 ? ENOENT : -1, -1, 0, -1, -1, a.type = PERF_TYPE_RAW;
           a.config = 0x108000c0);
    /* the software events, with every option the sampler may set */
    PEBS_M("task-clock", 0, -1, 0, -1, -1, (void)0);
    PEBS_M("cpu-clock", 0, -1, 0, -1, -1, a.config = PERF_COUNT_SW_CPU_CLOCK);
    PEBS_M("task-clock precise_ip=1 (accepted, meaningless)", 0, -1, 0, -1, -1, a.precise_ip = 1);
    PEBS_M("task-clock precise_ip=2", 0, -1, 0, -1, -1, a.precise_ip = 2);
    PEBS_M("task-clock precise_ip=3", 0, -1, 0, -1, -1, a.precise_ip = 3);
    PEBS_M("task-clock REGS_INTR", 0, -1, 0, -1, -1, a.sample_type |= PERF_SAMPLE_REGS_INTR;
           a.sample_regs_intr = PEBS_MASK);
    PEBS_M("task-clock CALLCHAIN", 0, -1, 0, -1, -1, a.sample_type |= PERF_SAMPLE_CALLCHAIN;
           a.exclude_callchain_kernel = 1);
    PEBS_M("task-clock TIME, STACK_USER 4096", 0, -1, 0, -1, -1,
           a.sample_type |= PERF_SAMPLE_TIME | PERF_SAMPLE_STACK_USER;
           a.sample_stack_user = 4096);
    PEBS_M("task-clock read_format LOST", 0, -1, 0, -1, -1,
           a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |
                           CTXPROF__PEBS_FORMAT_LOST);
    PEBS_M("task-clock watermark 64 KiB", 0, -1, 0, -1, 0, a.watermark = 1;
           a.wakeup_watermark = 65536);
    /* malformed: the same errno for everyone */
    PEBS_M("regs mask 0", EINVAL, -1, 0, -1, -1, a.sample_regs_user = 0);
#if defined(CTXPROF__PEBS_X86)
    PEBS_M("regs mask with DS", EINVAL, -1, 0, -1, -1, a.sample_regs_user |= 1ull << 12);
    PEBS_M("regs mask bit 40 (XMM)", EOPNOTSUPP, -1, 0, -1, -1, a.sample_regs_user |= 1ull << 40);
#endif
    PEBS_M("freq=1 MHz", 1000000 > rate ? EINVAL : 0, -1, 0, -1, -1, a.freq = 1;
           a.sample_freq = 1000000);
    PEBS_M("period with bit 63", EINVAL, -1, 0, -1, -1, a.sample_period = 1ull << 63);
    /* the ring */
    PEBS_M("inherit=1 cpu=-1, mmap", EINVAL, -1, 0, -1, 1, a.inherit = 1);
    PEBS_M("3 data pages", EINVAL, -1, 0, -1, 3, (void)0);
    PEBS_M("0 data pages", 0, -1, 0, -1, 0, (void)0);
    PEBS_M("1024 data pages", priv || budget_kb >= 1025ull * 4 ? 0 : EPERM, priv ? -1 : EPERM, 0,
           -1, 1024, (void)0);
    PEBS_M("pid=0 cpu=0 inherit=1, mmap", 0, -1, 0, 0, 1, a.inherit = 1);
    /* privileges (kernel/events/core.c: perf_allow_kernel, perf_allow_cpu, ptrace) */
    PEBS_M("exclude_kernel=0", priv || par < 2 ? 0 : EACCES, -1, 0, -1, -1, a.exclude_kernel = 0);
    PEBS_M("pid=-1 cpu=0 (CPU-wide)", priv || par < 1 ? 0 : EACCES, -1, -1, 0, -1, (void)0);
    PEBS_M("pid=1 (another user's process)",
           priv             ? 0
           : geteuid() != 0 ? EACCES
                            : -1,
           -1, 1, -1, -1, (void)0);
#undef PEBS_M
    return n;
}

static const char *pebs_mname(int e)
{
    return e == 0 ? "ok" : e < 0 ? "-" : ctxprof__pebs_errname(e);
}

/* Checks the rows; *out_n gets how many were checked. */
static void pebs_matrix_check(const pebs_mrow *rows, size_t n, const char *who, size_t *out_n)
{
    size_t i;
    *out_n = 0;
    for (i = 0; i < n; i++) {
        char v[240];
        if (rows[i].want < 0)
            continue;
        ++*out_n;
        if (rows[i].got == rows[i].want || rows[i].got == rows[i].alt)
            continue;
        snprintf(v, sizeof v, "(as %s: %s gave %s, expected %s)", who, rows[i].name,
                 pebs_mname(rows[i].got), pebs_mname(rows[i].want));
        ctxprof_test_fail(__FILE__, __LINE__, "open matrix row", v);
    }
}

typedef struct pebs_mres {
    int dropped, usable;
    size_t n;
    pebs_mrow rows[PEBS_MROWS];
} pebs_mres;

static int pebs_matrix_child(void *arg, void *shared)
{
    pebs_mres *r = (pebs_mres *)shared;
    char why[300];
    (void)arg;
    if (pebs_drop_to_nobody() != 0)
        return 0;
    r->dropped = 1;
    r->usable = pebs_usable(why, sizeof why);
    if (r->usable)
        r->n = pebs_matrix(r->rows, 0);
    return 0;
}

static void pebs_open_matrix(void)
{
    pebs_mrow rows[PEBS_MROWS];
    size_t n, checked, checked_nobody = 0;
    pebs_mres *r;
    PEBS_USABLE_OR_SKIP();
    n = pebs_matrix(rows, geteuid() == 0);
    REQUIRE(n <= PEBS_MROWS);
    pebs_matrix_check(rows, n, geteuid() == 0 ? "root" : "this user", &checked);
    CHECK_GE(checked, 20);
    if (geteuid() == 0) {
        r = (pebs_mres *)ctxprof_test_in_child(pebs_matrix_child, NULL, sizeof *r);
        REQUIRE(r != NULL);
        if (r->dropped && r->usable)
            pebs_matrix_check(r->rows, r->n, "nobody", &checked_nobody);
        else
            printf("  pebs: open matrix not run as nobody: %s\n",
                   r->dropped ? "perf_event unusable for nobody" : "cannot become nobody");
        munmap(r, sizeof *r);
    }
    printf("  pebs: open matrix: %zu rows checked as %s, %zu as nobody\n", checked,
           geteuid() == 0 ? "root" : "this user", checked_nobody);
}

/* The core live cases, run as they are (ctxprof_tests_pebs) and again as
   nobody (in a forked child that drops root): what an unprivileged program
   gets at kernel.perf_event_paranoid=2. One list for both tables. */
#define PEBS_LIVE_CORE(X)                                                                          \
    X(pebs_live_hot_reader)                                                                        \
    X(pebs_live_hot_manual)                                                                        \
    X(pebs_live_hot_signal)                                                                        \
    X(pebs_live_depth)                                                                             \
    X(pebs_live_lost)                                                                              \
    X(pebs_live_watermark)                                                                         \
    X(pebs_live_exit_drain)                                                                        \
    X(pebs_live_base)                                                                              \
    X(pebs_live_base_switch)                                                                       \
    X(pebs_live_wrap)                                                                              \
    X(pebs_live_threads)                                                                           \
    X(pebs_live_callchain)                                                                         \
    X(pebs_live_fork)
#define PEBS_CASE(fn) {#fn, fn},

static const ctxprof_test_case pebs_nobody_cases[] = {PEBS_LIVE_CORE(PEBS_CASE){0, 0}};

typedef struct pebs_nobody {
    int dropped;
    int failed[sizeof pebs_nobody_cases / sizeof pebs_nobody_cases[0]];
    int skipped[sizeof pebs_nobody_cases / sizeof pebs_nobody_cases[0]];
} pebs_nobody;

static int pebs_nobody_child(void *arg, void *shared)
{
    pebs_nobody *r = (pebs_nobody *)shared;
    int k;
    (void)arg;
    if (pebs_drop_to_nobody() != 0)
        return 0;
    r->dropped = 1;
    for (k = 0; pebs_nobody_cases[k].name; k++) {
        ctxprof_test_failed = ctxprof_test_skipped = 0;
        pebs_nobody_cases[k].fn();
        r->failed[k] = ctxprof_test_failed;
        r->skipped[k] = ctxprof_test_skipped;
        if (ctxprof_test_failed || ctxprof_test_skipped)
            fprintf(stderr, "  as nobody: %s %s\n", ctxprof_test_failed ? "FAIL" : "skip",
                    pebs_nobody_cases[k].name);
    }
    return 0;
}

static void pebs_live_nobody(void)
{
    pebs_nobody *r;
    int k, ran = 0;
    HARDWARE_PC_CHECKS(); /* it reruns the live cases that check where samples land */
    if (geteuid() != 0)
        SKIP("not root: the live cases above already ran unprivileged");
    r = (pebs_nobody *)ctxprof_test_in_child(pebs_nobody_child, NULL, sizeof *r);
    REQUIRE(r != NULL);
    if (!r->dropped) {
        munmap(r, sizeof *r);
        SKIP("cannot become nobody (setgid/setuid refused)");
    }
    for (k = 0; pebs_nobody_cases[k].name; k++) {
        CHECK_EQ(r->failed[k], 0);
        ran += !r->skipped[k];
    }
    munmap(r, sizeof *r);
    if (ran == 0)
        SKIP("every case skipped as nobody (perf_event unusable for an unprivileged user)");
    printf("  pebs: %d of %d live cases ran as nobody\n", ran, k);
}

/* ---- sandboxed failures, each in a forked child ---- */

static void pebs_report_open(int fd, const ctxprof_pebs_desc *d)
{
    ctxprof_pebs pb;
    int rc = ctxprof_pebs_open(&pb, d);
    pebs_put(fd, "rc=%d errno=%d\nerror=%s\nexplain=%s\n", rc, pb.error.sys_errno,
             ctxprof_error_message(&pb.error), ctxprof_pebs_explain(&pb));
    ctxprof_pebs_close(&pb);
}

/* Entries of a /proc directory (fds, tasks). */
static int pebs_count_dir(const char *path)
{
    DIR *dir = opendir(path);
    struct dirent *e;
    int n = 0;
    if (!dir)
        return -1;
    while ((e = readdir(dir)) != NULL)
        n += e->d_name[0] != '.';
    closedir(dir);
    return n;
}

static void pebs_seccomp_child(int fd, void *arg)
{
    ctxprof_pebs_desc d;
    (void)arg;
    if (ctxprof_test_deny_syscall(__NR_perf_event_open, EPERM) != 0) {
        pebs_put(fd, "no seccomp: %s\n", strerror(errno));
        return;
    }
    pebs_desc_fill(&d, CTXPROF_PEBS_READER, 0);
    {
        /* a clean failure: no fd, thread or object left behind, later calls refused */
        ctxprof_pebs pb;
        int fds = pebs_count_dir("/proc/self/fd"), tasks = pebs_count_dir("/proc/self/task");
        int rc = ctxprof_pebs_open(&pb, &d);
        pebs_put(fd, "rc=%d errno=%d\nerror=%s\nexplain=%s\n", rc, pb.error.sys_errno,
                 ctxprof_error_message(&pb.error), ctxprof_pebs_explain(&pb));
        pebs_put(fd, "impl=%d fds=%d tasks=%d attach=%d\n", pb.impl != NULL,
                 pebs_count_dir("/proc/self/fd") - fds, pebs_count_dir("/proc/self/task") - tasks,
                 ctxprof_pebs_attach(&pb, 0, 0));
        ctxprof_pebs_close(&pb);
        ctxprof_pebs_close(&pb);
    }
}

static void pebs_seccomp(void)
{
    char out[2048];
    REQUIRE_EQ(pebs_in_child(pebs_seccomp_child, NULL, out, sizeof out), 0);
    if (strstr(out, "no seccomp"))
        SKIP("seccomp filters unavailable here");
    PEBS_HAS(out, "rc=-7 errno=1\n"); /* CTXPROF_ERR_UNSUPPORTED, EPERM */
    PEBS_HAS(out, "error=ctxprof_pebs: perf_event_open blocked by seccomp (Seccomp: 2 in "
                  "/proc/self/status)");
    /* the probe stops at the first level: the cause is not the level's */
    PEBS_HAS(out, "explain=PEBS: perf_event_open blocked by seccomp (Seccomp: 2 in "
                  "/proc/self/status); allow it in the sandbox's seccomp profile (EPERM)\n");
    PEBS_HAS(out, "impl=0 fds=0 tasks=0 attach=-1\n"); /* CTXPROF_ERR_INVAL: not open */
}

static void pebs_seccomp_errno_child(int fd, void *arg)
{
    ctxprof_pebs_desc d;
    if (ctxprof_test_deny_syscall(__NR_perf_event_open, *(const int *)arg) != 0) {
        pebs_put(fd, "no seccomp: %s\n", strerror(errno));
        return;
    }
    pebs_desc_fill(&d, CTXPROF_PEBS_MANUAL, 0);
    pebs_report_open(fd, &d);
}

/* Seccomp filters answer EACCES or ENOSYS too (EPERM: pebs_seccomp): with a
   filter installed (Seccomp: 2) and a kernel that has perf events, the
   message names seccomp rather than only paranoid, an LSM or the kernel. */
static void pebs_seccomp_errnos(void)
{
    char out[2048];
    int err = ENOSYS;
    long par = -100;
    REQUIRE_EQ(pebs_in_child(pebs_seccomp_errno_child, &err, out, sizeof out), 0);
    if (strstr(out, "no seccomp"))
        SKIP("seccomp filters unavailable here");
    PEBS_HAS(out, "rc=-7 errno=38\n");
    PEBS_HAS(out, "error=ctxprof_pebs: perf_event_open blocked by seccomp (Seccomp: 2 in "
                  "/proc/self/status)");
    PEBS_HAS(out, "(ENOSYS)\n");
    ctxprof__pebs_read_long("/proc/sys/kernel/perf_event_paranoid", &par);
    err = EACCES;
    REQUIRE_EQ(pebs_in_child(pebs_seccomp_errno_child, &err, out, sizeof out), 0);
    PEBS_HAS(out, "rc=-7 errno=13\n");
    if (par < 3)
        PEBS_HAS(out, "a seccomp filter (Seccomp: 2 in /proc/self/status) or an LSM (EACCES)\n");
}

/* pb.error.detail holds 200 bytes: the story of a failed open fits whole.
   A filter failing perf_event_open with EINVAL fails every level the same
   way, said once for all of them; a story too long for any merging is cut
   at a clause, and says where the rest is. */
static void pebs_error_fits(void)
{
    static const char want[] = "ctxprof_pebs: no level works: PEBS, hardware, software "
                               "task-clock: attributes refused by this PMU or kernel (EINVAL)\n";
    ctxprof_error e;
    char out[2048], *err;
    int inval = EINVAL;
    size_t len;
    REQUIRE_EQ(pebs_in_child(pebs_seccomp_errno_child, &inval, out, sizeof out), 0);
    if (strstr(out, "no seccomp"))
        SKIP("seccomp filters unavailable here");
    PEBS_HAS(out, "rc=-7 errno=0\n");
    err = strstr(out, "error=");
    REQUIRE(err != NULL);
    CHECK(strncmp(err + 6, want, sizeof want - 1) == 0);
    if (strncmp(err + 6, want, sizeof want - 1) != 0)
        fprintf(stderr, "  output was: %s\n", out);
    /* no merging helps: three long, different reasons */
    memset(&e, 0, sizeof e);
    ctxprof__pebs_fail_fit(&e, CTXPROF_ERR_UNSUPPORTED,
                           "ctxprof_pebs: no level works: PEBS: %s; hardware: %s; software: %s",
                           "first reason, long enough to fill the detail (E1)",
                           "second reason, long enough to fill the detail (E2)",
                           "third reason, long enough to fill the detail (E3)");
    len = strlen(e.detail);
    CHECK_LT(len, sizeof e.detail - 1); /* not cut by the buffer */
    CHECK_CONTAINS(e.detail, "hardware: second reason, long enough to fill the detail (E2); ...");
    CHECK(len > 32 && strcmp(e.detail + len - 32, "(more in ctxprof_pebs_explain())") == 0);
    CHECK_EQ(e.status, CTXPROF_ERR_UNSUPPORTED);
}

static void pebs_paranoid_child(int fd, void *arg)
{
    ctxprof_pebs_desc d;
    (void)arg;
    if (pebs_drop_to_nobody() != 0) {
        pebs_put(fd, "cannot drop privileges\n");
        return;
    }
    pebs_desc_fill(&d, CTXPROF_PEBS_MANUAL, 0);
    d.flags |= CTXPROF_PEBS_KERNEL;
    pebs_report_open(fd, &d);
}

/* Kernel samples as an unprivileged user at paranoid >= 2: EACCES, with the
   sysctl and its value in the message. */
static void pebs_paranoid(void)
{
    char out[2048], want[160];
    long par = -100;
    PEBS_USABLE_OR_SKIP();
    ctxprof__pebs_read_long("/proc/sys/kernel/perf_event_paranoid", &par);
    if (par < 2)
        SKIP("kernel.perf_event_paranoid < 2: kernel samples are allowed here");
    REQUIRE_EQ(pebs_in_child(pebs_paranoid_child, NULL, out, sizeof out), 0);
    if (strstr(out, "cannot drop"))
        SKIP("cannot become an unprivileged user");
    PEBS_HAS(out, "rc=-7 errno=13\n");
    snprintf(want, sizeof want, "need kernel.perf_event_paranoid <= 1, it is %ld", par);
    PEBS_HAS(out, want);
}

/* Locked memory: as an unprivileged user without RLIMIT_MEMLOCK, a ring
   over the per-user budget is halved until it fits (and the explanation
   says so); once the budget is used up the error names it. */
static void pebs_mlock_child(int fd, void *arg)
{
    struct rlimit rl;
    ctxprof_pebs pbs[64];
    ctxprof_pebs_desc d;
    int k, rc = 0;
    (void)arg;
    rl.rlim_cur = rl.rlim_max = 0;
    if (pebs_drop_to_nobody() != 0 || setrlimit(RLIMIT_MEMLOCK, &rl) != 0) {
        pebs_put(fd, "cannot drop privileges\n");
        return;
    }
    pebs_desc_fill(&d, CTXPROF_PEBS_MANUAL, 0);
    d.ring_pages = 1u << 16; /* 256 MiB: over any budget */
    if (ctxprof_pebs_open(&pbs[0], &d) != CTXPROF_OK) {
        pebs_put(fd, "open: %s\n", ctxprof_error_message(&pbs[0].error));
        return;
    }
    rc = ctxprof_pebs_attach(&pbs[0], 0, 0);
    pebs_put(fd, "first=%d pages=%u\nexplain=%s\n", rc, pbs[0].impl->rings[0].pages,
             ctxprof_pebs_explain(&pbs[0]));
    d.ring_pages = 64;
    for (k = 1; k < 64 && rc == CTXPROF_OK; k++) {
        if (ctxprof_pebs_open(&pbs[k], &d) != CTXPROF_OK)
            break;
        rc = ctxprof_pebs_attach(&pbs[k], 0, 0);
        if (rc != CTXPROF_OK)
            pebs_put(fd, "later=%d errno=%d\nerror=%s\n", rc, pbs[k].error.sys_errno,
                     ctxprof_error_message(&pbs[k].error));
    }
}

static void pebs_mlock(void)
{
    char out[4096];
    REQUIRE_EQ(pebs_in_child(pebs_mlock_child, NULL, out, sizeof out), 0);
    if (strstr(out, "cannot drop"))
        SKIP("cannot become an unprivileged user (needs root to test the budget)");
    if (strstr(out, "open: "))
        SKIP("perf_event unusable for an unprivileged user here");
    PEBS_HAS(out, "first=0 pages=");
    PEBS_HAS(out, "by the locked-memory budget");
    PEBS_HAS(out, "later=-6 errno=1\n");
    PEBS_HAS(out, "ring exceeds the locked-memory budget (perf_event_mlock_kb=");
    PEBS_HAS(out, "a 36 KiB ring"); /* halved down to 8 data pages first */
}

/* Out of file descriptors: the attach fails with EMFILE and the limit,
   and explain() says so (before and after close), with the count. */
static void pebs_emfile_child(int fd, void *arg)
{
    ctxprof_pebs pb;
    ctxprof_pebs_desc d;
    struct rlimit rl;
    int lowest, rc;
    (void)arg;
    pebs_desc_fill(&d, CTXPROF_PEBS_MANUAL, 0);
    if (ctxprof_pebs_open(&pb, &d) != CTXPROF_OK) {
        pebs_put(fd, "open: %s\n", ctxprof_error_message(&pb.error));
        return;
    }
    lowest = dup(0);
    close(lowest);
    rl.rlim_cur = rl.rlim_max = (rlim_t)lowest;
    setrlimit(RLIMIT_NOFILE, &rl);
    rc = ctxprof_pebs_attach(&pb, 0, 0);
    pebs_put(fd, "rc=%d errno=%d\nerror=%s\n", rc, pb.error.sys_errno,
             ctxprof_error_message(&pb.error));
    ctxprof_pebs_attach(&pb, 0, 0);
    {
        ctxprof_pebs_stats st;
        ctxprof_pebs_stats_get(&pb, &st);
        pebs_put(fd, "failed=%llu\nexplain=%s\n", (unsigned long long)st.attach_failed,
                 ctxprof_pebs_explain(&pb));
    }
    ctxprof_pebs_close(&pb);
    pebs_put(fd, "closed=%s\n", ctxprof_pebs_explain(&pb));
}

static void pebs_emfile(void)
{
    char out[2048];
    if (ctxprof_test_under_valgrind())
        SKIP("under valgrind RLIMIT_NOFILE is virtual: the kernel does not enforce it");
    REQUIRE_EQ(pebs_in_child(pebs_emfile_child, NULL, out, sizeof out), 0);
    if (strstr(out, "open: "))
        SKIP("perf_event unusable here");
    PEBS_HAS(out, "rc=-6 errno=24\n"); /* CTXPROF_ERR_SYS, EMFILE */
    PEBS_HAS(out, "out of file descriptors, one per sampled thread (EMFILE, RLIMIT_NOFILE=");
    PEBS_HAS(out, "failed=2\n");
    PEBS_HAS(out, "; WARNING: 2 attaches failed (the last: ctxprof_pebs: thread ");
    CHECK(strstr(strstr(out, "explain="), "out of file descriptors") != NULL);
    PEBS_HAS(out, "closed=");
    CHECK(strstr(strstr(out, "closed="), "; WARNING: 2 attaches failed") != NULL);
}

/* ---- cross-check against perf ---- */

/* Stack-pointer modes (values with >= 5% of the samples), as offsets from
   the largest; returns how many. */
static int pebs_modes(uint64_t *sp, size_t n, uint64_t *out, int cap)
{
    size_t i, j;
    int m = 0;
    for (i = 1; i < n; i++) /* insertion sort: n is a few thousand */
        for (j = i; j > 0 && sp[j - 1] > sp[j]; j--) {
            uint64_t t = sp[j];
            sp[j] = sp[j - 1];
            sp[j - 1] = t;
        }
    for (i = 0; i < n;) {
        j = i;
        while (j < n && sp[j] == sp[i])
            j++;
        if ((j - i) * 20 >= n && m < cap)
            out[m++] = sp[i];
        i = j;
    }
    for (i = 0; i < (size_t)m; i++)
        out[i] = out[m - 1] - out[i];
    return m;
}

/* SPs of function fn's samples: perf script lines "IP SYM ABI:2 SP:0x..."
   (perf_fmt) or the workload's "sp SYM 0x..." lines. */
static size_t pebs_read_sps(const char *path, int perf_fmt, const char *fn, uint64_t *sp,
                            size_t cap)
{
    char line[512];
    size_t n = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    while (n < cap && fgets(line, sizeof line, f)) {
        unsigned long long ip, v;
        char sym[128];
        int abi;
        if (perf_fmt) {
            if (sscanf(line, "%llx %127s ABI:%d SP:%llx", &ip, sym, &abi, &v) == 4 &&
                strcmp(sym, fn) == 0)
                sp[n++] = v;
        } else if (sscanf(line, "sp %127s %llx", sym, &v) == 2 && strcmp(sym, fn) == 0) {
            sp[n++] = v;
        }
    }
    fclose(f);
    return n;
}

/* Builds tests/pebs_workload.c once per run (0 on success). */
static int pebs_build_workload(void)
{
    static int built = -1;
#if defined(CTXPROF_TEST_CC)
    if (built < 0)
        built = ctxprof_test_sh("%s -std=gnu11 -O1 -fno-omit-frame-pointer "
                                "-mno-omit-leaf-frame-pointer -fno-inline "
                                "-fno-optimize-sibling-calls tests/pebs_workload.c -o %s/pebs_wl "
                                "-lpthread -ldl",
                                CTXPROF_TEST_CC, ctxprof_test_tmpdir());
#endif
    return built;
}

/* The same workload under `perf record -e task-clock:u --user-regs=sp,ip`
   and under ctxprof_pebs: per leaf function, the same set of stack-pointer
   modes (offsets from the highest, to the byte: ASLR moves the stack), one
   per recursion depth the workload uses. */
static void pebs_perf_crosscheck(void)
{
    static uint64_t a[20000], b[20000];
    static const struct {
        const char *fn;
        int depths;
    } leaf[2] = {{"pebs_wl_hot", 4}, {"pebs_wl_hot2", 2}};
    const char *dir = ctxprof_test_tmpdir();
    char pa[300], pbuf[300];
    int f;
    PLAIN_BUILD_ONLY();
#if !defined(CTXPROF_TEST_CC)
    SKIP("no compiler configured");
#else
    if (ctxprof_test_sh("command -v perf >/dev/null 2>&1") != 0)
        SKIP("perf is not installed");
    REQUIRE_EQ(pebs_build_workload(), 0);
    if (ctxprof_test_sh("perf record -q -e task-clock:u -c 100000 --user-regs=sp,ip -o %s/p.data "
                        "%s/pebs_wl perf >%s/perf.log 2>&1",
                        dir, dir, dir) != 0)
        SKIP("perf record cannot sample here (see perf.log in the test directory)");
    REQUIRE_EQ(
        ctxprof_test_sh("perf script -i %s/p.data -F ip,sym,uregs >%s/p.txt 2>/dev/null", dir, dir),
        0);
    REQUIRE_EQ(ctxprof_test_sh("%s/pebs_wl self >%s/s.txt", dir, dir), 0);
    snprintf(pa, sizeof pa, "%s/p.txt", dir);
    snprintf(pbuf, sizeof pbuf, "%s/s.txt", dir);
    for (f = 0; f < 2; f++) {
        uint64_t ma[8], mb[8];
        size_t na = pebs_read_sps(pa, 1, leaf[f].fn, a, 20000);
        size_t nb = pebs_read_sps(pbuf, 0, leaf[f].fn, b, 20000);
        int k, ka, kb;
        CHECK_GE(na, 100);
        CHECK_GE(nb, 100);
        ka = pebs_modes(a, na, ma, 8);
        kb = pebs_modes(b, nb, mb, 8);
        CHECK_EQ(ka, leaf[f].depths); /* one mode per depth */
        REQUIRE_EQ(kb, ka);
        for (k = 0; k < ka; k++)
            CHECK_EQ(mb[k], ma[k]); /* the same modes, to the byte */
        if (f == 0)
            CHECK_EQ(ma[1] - ma[0], ma[2] - ma[1]); /* depths 0, 5, 10: five frames apart */
    }
#endif
}

/* ---- the pipeline: sample -> CID -> call path ---- */

#if defined(CTXPROF_ICPP_NO_HEIGHT)
typedef struct pebs_pathrec {
    uint32_t funcs[8];
    size_t n;
    uint64_t weight;
} pebs_pathrec;
static pebs_pathrec pebs_got_paths[16];
static size_t pebs_ngot_paths;

static void pebs_path_fn(void *user, const uint32_t *funcs, size_t n, uint64_t weight)
{
    (void)user;
    if (pebs_ngot_paths < 16 && n <= 8) {
        memcpy(pebs_got_paths[pebs_ngot_paths].funcs, funcs, n * sizeof *funcs);
        pebs_got_paths[pebs_ngot_paths].n = n;
        pebs_got_paths[pebs_ngot_paths].weight = weight;
        pebs_ngot_paths++;
    }
}

/* A sample at (function f + 1, height h) with the given period. */
static ctxprof_pebs_sample pebs_mk(uintptr_t f, uint64_t h, uint64_t period)
{
    ctxprof_pebs_sample s;
    memset(&s, 0, sizeof s);
    s.ip = f + 1;
    s.sp = 0x7f0000000000ull - h;
    s.height = h;
    s.bp = 0;
    s.period = period;
    return s;
}
#endif

/* The pipeline on synthetic samples against a parsed map bound to this
   process's symbols: each ICPP kind, the three policies for ambiguous CIDs,
   a partial walk in a stack copy, and the check against a callchain. */
static void pebs_paths_unit(void)
{
#if !defined(CTXPROF_ICPP_NO_HEIGHT)
    SKIP("the ICPP section of ctxprof.h is not in this build");
#else
    static const char text[] = "ctxprof-paths 1\n"
                               "path 1 100 pebs_hot_t1 pebs_hot_t0\n"
                               "path 3 100 pebs_hot_t2 pebs_hot_t0\n"
                               "path 5 200 pebs_hot_t0\n";
    ctxprof_icpp_map m;
    ctxprof_symtab st;
    ctxprof_pebs_paths pp;
    ctxprof_pebs_paths_desc pd;
    ctxprof_pebs_sample s;
    ctxprof_error err;
    uintptr_t t0 = (uintptr_t)pebs_hot_t0, t1 = (uintptr_t)pebs_hot_t1, t2 = (uintptr_t)pebs_hot_t2;
    uint64_t chain[4], words[2];
    long f0, f1, f2;
    const uint32_t *cand;
    uint32_t pa, pb, pc; /* paths t1>t0 (count 1), t2>t0 (count 3), t0 (height 200) */
    int policy;
    memset(&m, 0, sizeof m);
    memset(&st, 0, sizeof st);
    REQUIRE_EQ(ctxprof_icpp_map_parse(&m, text, sizeof text - 1, "t.paths", &err), CTXPROF_OK);
    REQUIRE_EQ(ctxprof_symtab_init(&st, &err), CTXPROF_OK);
    REQUIRE_EQ(ctxprof_icpp_map_bind(&m, &st, &err), CTXPROF_OK);
    f0 = ctxprof_icpp_map_func(&m, "pebs_hot_t0");
    f1 = ctxprof_icpp_map_func(&m, "pebs_hot_t1");
    f2 = ctxprof_icpp_map_func(&m, "pebs_hot_t2");
    REQUIRE(f0 >= 0 && f1 >= 0 && f2 >= 0);
    REQUIRE_EQ(ctxprof_icpp_map_func_of_pc(&m, t0 + 1), f0);
    REQUIRE_EQ(ctxprof_icpp_map_lookup(&m, (uint32_t)f0, 200, &cand), 1);
    pc = cand[0];
    REQUIRE_EQ(ctxprof_icpp_map_lookup(&m, (uint32_t)f0, 100, &cand), 2);
    {
        uint32_t fs[2];
        REQUIRE_EQ(ctxprof_icpp_map_path_funcs(&m, cand[0], fs, 2), 2);
        pa = fs[0] == (uint32_t)f1 ? cand[0] : cand[1];
        pb = fs[0] == (uint32_t)f1 ? cand[1] : cand[0];
    }
    for (policy = CTXPROF_PEBS_AMBIG_SPLIT; policy <= CTXPROF_PEBS_AMBIG_DROP; policy++) {
        memset(&pd, 0, sizeof pd);
        pd.map = &m;
        pd.ambiguous = policy;
        pd.on_path = pebs_path_fn;
        REQUIRE_EQ(ctxprof_pebs_paths_init(&pp, &pd, &err), CTXPROF_OK);
        pebs_ngot_paths = 0;
        s = pebs_mk(t0, 100, 1000); /* ambiguous: paths 0 (count 1) and 1 (count 3) */
        ctxprof_pebs_paths_sample(&pp, &s);
        CHECK_EQ(pp.st.ambiguous, 1);
        if (policy == CTXPROF_PEBS_AMBIG_SPLIT) {
            CHECK_EQ(pp.path_weight[pa], 250);
            CHECK_EQ(pp.path_weight[pb], 750);
            CHECK_EQ(pebs_ngot_paths, 2);
        } else if (policy == CTXPROF_PEBS_AMBIG_LIKELIEST) {
            CHECK_EQ(pp.path_weight[pa], 0);
            CHECK_EQ(pp.path_weight[pb], 1000);
            REQUIRE_EQ(pebs_ngot_paths, 1);
            REQUIRE_EQ(pebs_got_paths[0].n, 2); /* root first */
            CHECK_EQ(pebs_got_paths[0].funcs[0], f2);
            CHECK_EQ(pebs_got_paths[0].funcs[1], f0);
            CHECK_EQ(pebs_got_paths[0].weight, 1000);
        } else {
            CHECK_EQ(pp.path_weight[pa] + pp.path_weight[pb], 0);
            CHECK_EQ(pebs_ngot_paths, 0);
        }
        ctxprof_pebs_paths_deinit(&pp);
    }
    memset(&pd, 0, sizeof pd);
    pd.map = &m;
    pd.max_walk = 4;
    pd.unit_weight = 1;
    REQUIRE_EQ(ctxprof_pebs_paths_init(&pp, &pd, &err), CTXPROF_OK);
    s = pebs_mk(t0, 200, 7); /* precise, and the callchain agrees */
    chain[0] = (uint64_t)PERF_CONTEXT_USER;
    chain[1] = s.ip;
    s.callchain = chain;
    s.callchain_nr = 2;
    ctxprof_pebs_paths_sample(&pp, &s);
    CHECK_EQ(pp.st.precise, 1);
    CHECK_EQ(pp.st.correct, 1);
    CHECK_EQ(pp.path_weight[pc], 1); /* unit weight */
    chain[2] = t1 + 5;               /* now the callchain says t1 called t0: not path 2 */
    s.callchain_nr = 3;
    ctxprof_pebs_paths_sample(&pp, &s);
    CHECK_EQ(pp.st.incorrect, 1);
    s = pebs_mk(t0, 100, 7);          /* ambiguous; a stack copy with one frame: its RA is in t2 */
    words[0] = 0x7f0000000000ull - 8; /* saved frame pointer, above (below the base) */
    words[1] = t2 + 9;                /* return address into t2 */
    s.bp = 0x7f0000000000ull - 64;
    s.stack_addr = s.bp;
    s.stack = (const unsigned char *)words;
    s.stack_size = sizeof words;
    chain[1] = s.ip;
    chain[2] = t2 + 9;
    s.callchain = chain;
    s.callchain_nr = 3;
    ctxprof_pebs_paths_sample(&pp, &s);
    CHECK_EQ(pp.st.precise, 3);
    CHECK_EQ(pp.st.walked, 1);
    CHECK_EQ(pp.st.frames, 1);
    CHECK_EQ(pp.st.correct, 2); /* the walk found the callchain's path */
    CHECK_EQ(pp.path_weight[pb], 1);
    /* the walk finds t0 as the caller, which no candidate has: the paper's
       incorrect (the CID has paths, the sample's is none), not missing;
       no weight given, and the callchain's path is in no path of the map */
    words[1] = t0 + 9;
    chain[2] = t0 + 9;
    ctxprof_pebs_paths_sample(&pp, &s);
    CHECK_EQ(pp.st.ruled_out, 1);
    CHECK_EQ(pp.st.missing, 0);
    CHECK_EQ(pp.st.ambiguous, 0);
    CHECK_EQ(pp.st.precise, 3);
    CHECK_EQ(pp.st.untrained, 1);
    CHECK_EQ(pp.st.checked, 4);
    CHECK_EQ(pp.path_weight[pa] + pp.path_weight[pb], 1);
    s = pebs_mk(t0, 300, 7); /* a height no path has */
    ctxprof_pebs_paths_sample(&pp, &s);
    CHECK_EQ(pp.st.missing, 1);
    CHECK_EQ(pp.st.ruled_out, 1);
    s = pebs_mk(0x10, 100, 7); /* no function of the map */
    ctxprof_pebs_paths_sample(&pp, &s);
    CHECK_EQ(pp.st.outside, 1);
    s = pebs_mk(t0, 0, 7); /* no base: height unknown */
    ctxprof_pebs_paths_sample(&pp, &s);
    CHECK_EQ(pp.st.nobase, 1);
    { /* SP off the thread's stack (height 0: a coroutine's, a sigaltstack):
         its stack copy is another stack's and is never read; a page that
         faults when read stands in for it */
        void *pg = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        REQUIRE(pg != MAP_FAILED);
        s = pebs_mk(t0, 0, 7);
        s.stack = (const unsigned char *)pg;
        s.stack_size = 4096;
        s.stack_addr = s.sp;
        s.bp = s.sp + 64;
        chain[1] = s.ip;
        chain[2] = t2 + 9;
        s.callchain = chain;
        s.callchain_nr = 3;
        ctxprof_pebs_paths_sample(&pp, &s);
        CHECK_EQ(pp.st.nobase, 2);
        CHECK_EQ(pp.st.walked, 2);
        CHECK_EQ(pp.st.checked, 4);
        munmap(pg, 4096);
    }
    s = pebs_mk(t0, 100, 7);
    s.flags = CTXPROF_PEBS_SAMPLE_NO_REGS;
    ctxprof_pebs_paths_sample(&pp, &s);
    CHECK_EQ(pp.st.no_regs, 1);
    s = pebs_mk(t0, 200, 7); /* a height from the stack-mapping top: not training's base */
    s.flags = CTXPROF_PEBS_SAMPLE_STACK_TOP;
    ctxprof_pebs_paths_sample(&pp, &s);
    CHECK_EQ(pp.st.nobase, 3);
    CHECK_EQ(pp.st.samples, 10);
    CHECK_EQ(pp.st.weight, 3);
    ctxprof_pebs_paths_deinit(&pp);
    pd.alloc_user = &pd; /* handed to CTXPROF_MALLOC/FREE */
    REQUIRE_EQ(ctxprof_pebs_paths_init(&pp, &pd, &err), CTXPROF_OK);
    CHECK(pp.alloc_user == &pd);
    ctxprof_pebs_paths_deinit(&pp);
    pd.alloc_user = NULL;
#if defined(CTXPROF_HCCT_NAMED)
    { /* the HCCT end: resolved paths arrive as weighted contexts, named */
        ctxprof_hcct tree;
        ctxprof_hcct_desc hd;
        ctxprof_hcct_profile prof;
        size_t i, found = 0;
        memset(&hd, 0, sizeof hd);
        hd.mode = CTXPROF_HCCT_CCT;
        hd.metric = CTXPROF_HCCT_SAMPLES;
        hd.namer = ctxprof_pebs_paths_namer;
        hd.namer_user = &m;
        REQUIRE_EQ(ctxprof_hcct_init(&tree, &hd, &err), CTXPROF_OK);
        memset(&pd, 0, sizeof pd);
        pd.map = &m;
        pd.ambiguous = CTXPROF_PEBS_AMBIG_SPLIT;
        pd.on_path = ctxprof_pebs_paths_to_hcct;
        pd.user = &tree;
        REQUIRE_EQ(ctxprof_pebs_paths_init(&pp, &pd, &err), CTXPROF_OK);
        s = pebs_mk(t0, 100, 1000); /* 250 to t1>t0, 750 to t2>t0 */
        ctxprof_pebs_paths_sample(&pp, &s);
        s = pebs_mk(t0, 200, 40); /* 40 to t0 */
        ctxprof_pebs_paths_sample(&pp, &s);
        memset(&prof, 0, sizeof prof);
        REQUIRE_EQ(ctxprof_hcct_query(&tree, -1, &prof, &err), CTXPROF_OK);
        CHECK_EQ(prof.total, 1040);
        for (i = 1; i < prof.n; i++) {
            const ctxprof_hcct_pnode *nd = &prof.nodes[i];
            const char *nm = ctxprof_hcct_profile_name(&prof, i);
            const char *up = nd->parent != CTXPROF_HCCT_NONE && nd->parent != 0
                                 ? ctxprof_hcct_profile_name(&prof, nd->parent)
                                 : "";
            if (strcmp(nm, "pebs_hot_t0") == 0 && strcmp(up, "pebs_hot_t2") == 0)
                found += nd->count == 750;
            if (strcmp(nm, "pebs_hot_t0") == 0 && strcmp(up, "pebs_hot_t1") == 0)
                found += nd->count == 250;
            if (strcmp(nm, "pebs_hot_t0") == 0 && !up[0])
                found += nd->count == 40;
        }
        CHECK_EQ(found, 3);
        ctxprof_hcct_profile_deinit(&prof);
        ctxprof_pebs_paths_deinit(&pp);
        ctxprof_hcct_deinit(&tree);
    }
#endif
    pd.map = NULL;
    CHECK_EQ(ctxprof_pebs_paths_init(&pp, &pd, &err), CTXPROF_ERR_INVAL);
    ctxprof_icpp_map_deinit(&m);
    ctxprof_symtab_deinit(&st);
#endif
}

/* The split of an ambiguous sample's weight by training counts, at the
   extremes: the path map accepts any u64 count, and the sum of the counts
   wrapped (2^64 - 1 + 2 = 1), after which a share of w * count / total
   overflowed its double -> u64 conversion (undefined; UBSan under clang);
   shares could also sum past 2^64 when w is that large. Every split now
   gives the candidates exactly the sample's weight, in proportion. */
static void pebs_paths_split_extremes(void)
{
#if !defined(CTXPROF_ICPP_NO_HEIGHT)
    SKIP("the ICPP section of ctxprof.h is not in this build");
#else
    static const struct {
        const char *counts[3]; /* t1>t0, t2>t0, t3>t0 (NULL: no such path) */
        uint64_t w, want[3], tol;
    } cases[] = {
        /* the reviewer's map (t_split.c): all to the path seen 2^64 - 1 times */
        {{"18446744073709551615", "2", NULL}, 1000000, {1000000, 0, 0}, 0},
        {{"2", "18446744073709551615", NULL}, 1000000, {0, 1000000, 0}, 0},
        /* counts summing to 2^64 and more: halves, the odd unit to the likeliest */
        {{"9223372036854775808", "9223372036854775807", NULL}, 1000001, {500001, 500000, 0}, 0},
        {{"9223372036854775808", "9223372036854775807", "1"}, 11, {6, 5, 0}, 0},
        /* a weight of 2^64 - 1: a quarter and three quarters (to the unit, as
           2^64 - 1 has no double), and exactly 2^64 - 1 in all */
        {{"1", "3", NULL}, UINT64_MAX, {1ull << 62, 3ull << 62, 0}, 1},
        {{"1", "3", NULL}, 1000, {250, 750, 0}, 0},
    };
    static const char *const names[3] = {"pebs_hot_t1", "pebs_hot_t2", "pebs_hot_t3"};
    ctxprof_symtab st;
    ctxprof_error err;
    size_t c;
    memset(&st, 0, sizeof st);
    REQUIRE_EQ(ctxprof_symtab_init(&st, &err), CTXPROF_OK);
    for (c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char text[400];
        ctxprof_icpp_map m;
        ctxprof_pebs_paths pp;
        ctxprof_pebs_paths_desc pd;
        ctxprof_pebs_sample s;
        uint64_t sum = 0;
        size_t k, n = 0;
        snprintf(text, sizeof text, "ctxprof-paths 1\n");
        for (k = 0; k < 3 && cases[c].counts[k]; k++, n++)
            snprintf(text + strlen(text), sizeof text - strlen(text),
                     "path %s 100 %s pebs_hot_t0\n", cases[c].counts[k], names[k]);
        memset(&m, 0, sizeof m);
        REQUIRE_EQ(ctxprof_icpp_map_parse(&m, text, strlen(text), "t.paths", &err), CTXPROF_OK);
        REQUIRE_EQ(ctxprof_icpp_map_bind(&m, &st, &err), CTXPROF_OK);
        memset(&pd, 0, sizeof pd);
        pd.map = &m;
        pd.on_path = pebs_path_fn;
        REQUIRE_EQ(ctxprof_pebs_paths_init(&pp, &pd, &err), CTXPROF_OK);
        pebs_ngot_paths = 0;
        s = pebs_mk((uintptr_t)pebs_hot_t0, 100, cases[c].w);
        ctxprof_pebs_paths_sample(&pp, &s);
        CHECK_EQ(pp.st.ambiguous, 1);
        CHECK_EQ(pp.st.weight, cases[c].w);
        for (k = 0; k < n; k++) {
            uint32_t fs[2], path = UINT32_MAX, i;
            long f = ctxprof_icpp_map_func(&m, names[k]);
            for (i = 0; i < m.paths; i++)
                if (ctxprof_icpp_map_path_funcs(&m, i, fs, 2) == 2 && fs[0] == (uint32_t)f)
                    path = i;
            REQUIRE(path != UINT32_MAX);
            if (cases[c].tol == 0)
                CHECK_EQ(pp.path_weight[path], cases[c].want[k]);
            else
                CHECK_LE(pp.path_weight[path] > cases[c].want[k]
                             ? pp.path_weight[path] - cases[c].want[k]
                             : cases[c].want[k] - pp.path_weight[path],
                         cases[c].tol);
        }
        for (k = 0; k < pebs_ngot_paths; k++) {
            CHECK_LE(pebs_got_paths[k].weight, cases[c].w - sum); /* no wrap in the sum */
            sum += pebs_got_paths[k].weight;
        }
        CHECK_EQ(sum, cases[c].w);
        ctxprof_pebs_paths_deinit(&pp);
        ctxprof_icpp_map_deinit(&m);
    }
    ctxprof_symtab_deinit(&st);
#endif
}

/* The partial walk reads frames only inside the sample's stack copy, whatever
   its words hold: rbp is a general register in code built without frame
   pointers, so a saved "rbp" (or rbp itself) may be any value. Near 2^64
   the bound fp + 16 <= end of copy wrapped, and the walk read 16 EiB away
   from the copy (a crash under ASan). The walk stops at such a word, and a
   chain that fits the copy exactly is still walked to its end. */
static void pebs_copy_frames_bounds(void)
{
#if !defined(CTXPROF_ICPP_NO_HEIGHT)
    SKIP("the ICPP section of ctxprof.h is not in this build");
#else
    static const uint64_t wild[] = {0xfffffffffffffff0ull, 0xfffffffffffffff8ull,
                                    0xffffffffffffffe8ull, 0x8000000000000000ull};
    static const char text[] = "ctxprof-paths 1\npath 1 64 main\n";
    uint64_t words[8];
    ctxprof_pebs_sample s;
    ctxprof_icpp_frames fr;
    ctxprof_icpp_map m;
    ctxprof_pebs_paths pp;
    ctxprof_pebs_paths_desc pd;
    ctxprof_error err;
    size_t k;
    memset(&s, 0, sizeof s);
    s.sp = s.stack_addr = 0x7ffc00001000ull;
    s.stack = (const unsigned char *)words;
    s.stack_size = sizeof words;
    s.ip = 0x1234;
    s.height = 0x100;
    for (k = 0; k < sizeof wild / sizeof wild[0]; k++) {
        memset(words, 0, sizeof words);
        s.bp = s.sp + 16; /* one good frame, whose saved rbp is wild */
        words[2] = wild[k];
        words[3] = 0x4242;
        ctxprof__pebs_copy_frames(&s, 0, 0, 8, &fr);
        CHECK_EQ(fr.n, 1);
        CHECK_EQ(fr.ra[0], 0x4242);
        CHECK_EQ(fr.cfa[0], s.sp + 32);
        s.bp = wild[k]; /* rbp itself wild: no frame */
        ctxprof__pebs_copy_frames(&s, 0, 0, 8, &fr);
        CHECK_EQ(fr.n, 0);
    }
    /* two frames, the second in the copy's last 16 bytes, then one past it */
    memset(words, 0, sizeof words);
    s.bp = s.sp + 16;
    words[2] = s.sp + 48;
    words[3] = 0x4242;
    words[6] = s.sp + 64; /* the end of the copy */
    words[7] = 0x4343;
    ctxprof__pebs_copy_frames(&s, 0, 0, 8, &fr);
    CHECK_EQ(fr.n, 2);
    CHECK_EQ(fr.ra[1], 0x4343);
    s.stack_size = 8; /* a copy smaller than a frame */
    s.bp = s.sp;
    ctxprof__pebs_copy_frames(&s, 0, 0, 8, &fr);
    CHECK_EQ(fr.n, 0);
    /* the same wild word through the pipeline (the reviewer's reproducer) */
    s.stack_size = sizeof words;
    s.bp = s.sp + 16;
    words[2] = 0xfffffffffffffff0ull;
    words[3] = 0x4242;
    memset(&m, 0, sizeof m);
    REQUIRE_EQ(ctxprof_icpp_map_parse(&m, text, sizeof text - 1, "t.paths", &err), CTXPROF_OK);
    memset(&pd, 0, sizeof pd);
    pd.map = &m;
    pd.max_walk = 8;
    REQUIRE_EQ(ctxprof_pebs_paths_init(&pp, &pd, &err), CTXPROF_OK);
    ctxprof_pebs_paths_sample(&pp, &s);
    CHECK_EQ(pp.st.samples, 1);
    ctxprof_pebs_paths_deinit(&pp);
    ctxprof_icpp_map_deinit(&m);
#endif
}

/* A frame set up with rbp at any optimization level, by gcc and clang (a
   variable-length array needs one): its body's CFA rule is rbp + 16. */
long pebs_fp_leaf(long n);
__attribute__((noinline)) long pebs_fp_leaf(long n)
{
    volatile char a[n + 1];
    a[n] = (char)n;
    return a[n] + 1;
}
static long (*volatile pebs_fp_leaf_p)(long) = pebs_fp_leaf;

/* Whether rbp is still the caller's (a prologue, a frameless leaf) was
   guessed from the stack copy's top word alone: a code address there was
   taken for the leaf's return address. In a set-up frame that word is a
   local or a realignment slot, and clang's `push %rax` stores whatever rax
   held: with -finstrument-functions, eval_leaf of examples/icpp/calc.c
   keeps the address of its caller's jump-table target there, and 95% of
   calc_pebs's samples went to a wrong path (a bogus caller first in the
   walk; the callchain "truth" got it as an extra frame). The leaf's CFA
   rule (.eh_frame, read by bind) decides now. */
static void pebs_paths_frame_set_up(void)
{
#if !defined(CTXPROF_ICPP_NO_HEIGHT) || !defined(__x86_64__)
    SKIP("the ICPP section of ctxprof.h or x86-64 is not in this build");
#else
    static const char text[] = "ctxprof-paths 1\n"
                               "path 1 128 pebs_hot_t1 pebs_fp_leaf\n"
                               "path 3 128 pebs_hot_t2 pebs_fp_leaf\n";
    uintptr_t leaf = (uintptr_t)pebs_fp_leaf, t1 = (uintptr_t)pebs_hot_t1,
              t2 = (uintptr_t)pebs_hot_t2, body = 0;
    const ctxprof__icpp_bound *b;
    ctxprof_icpp_map m;
    ctxprof_symtab st;
    ctxprof_pebs_paths pp;
    ctxprof_pebs_paths_desc pd;
    ctxprof_pebs_sample s;
    ctxprof_error err;
    uint64_t words[8], chain[3];
    uint32_t fs[2];
    long f;
    size_t i;
    CHECK_EQ(pebs_fp_leaf_p(5), 6);
    memset(&m, 0, sizeof m);
    memset(&st, 0, sizeof st);
    REQUIRE_EQ(ctxprof_icpp_map_parse(&m, text, sizeof text - 1, "t.paths", &err), CTXPROF_OK);
    REQUIRE_EQ(ctxprof_symtab_init(&st, &err), CTXPROF_OK);
    REQUIRE_EQ(ctxprof_icpp_map_bind(&m, &st, &err), CTXPROF_OK);
    f = ctxprof_icpp_map_func(&m, "pebs_fp_leaf");
    REQUIRE(f >= 0 && ctxprof_icpp_map_func_of_pc(&m, leaf) == f);
    b = ctxprof__icpp_bound_of(m.d);
    REQUIRE(b != NULL);
    for (i = 0; i < b->ncfa && !body; i++) /* a PC of the body: CFA = rbp + 16 */
        if (b->cfa[i].reg == CTXPROF__CFA_FP && b->cfa[i].off == 16 &&
            ctxprof_icpp_map_func_of_pc(&m, b->cfa[i].pc) == f)
            body = b->cfa[i].pc;
    REQUIRE(body != 0);
    memset(&pd, 0, sizeof pd);
    pd.map = &m;
    pd.max_walk = 8;
    pd.unit_weight = 1;
    pd.ambiguous = CTXPROF_PEBS_AMBIG_DROP;
    REQUIRE_EQ(ctxprof_pebs_paths_init(&pp, &pd, &err), CTXPROF_OK);
    /* in the body, called from t1: rbp is the leaf's (its record at sp + 32
       holds the return address into t1), and the top word is a stale code
       address in t2 */
    memset(&s, 0, sizeof s);
    memset(words, 0, sizeof words);
    s.ip = body;
    s.sp = s.stack_addr = 0x7f0000000000ull - 128;
    s.height = 128; /* no body offset in the map: base - SP */
    s.bp = s.sp + 32;
    s.period = 1;
    words[0] = t2 + 9;
    words[4] = s.sp + 96; /* saved rbp: the caller's frame, past the copy */
    words[5] = t1 + 5;
    s.stack = (const unsigned char *)words;
    s.stack_size = sizeof words;
    chain[0] = (uint64_t)PERF_CONTEXT_USER; /* the kernel's walk from rbp */
    chain[1] = s.ip;
    chain[2] = t1 + 5;
    s.callchain = chain;
    s.callchain_nr = 3;
    ctxprof_pebs_paths_sample(&pp, &s);
    CHECK_EQ(pp.st.precise, 1);
    CHECK_EQ(pp.st.correct, 1);
    CHECK_EQ(pp.st.incorrect, 0);
    for (i = 0; i < m.paths; i++)
        if (pp.path_weight[i]) {
            CHECK_EQ(ctxprof_icpp_map_path_funcs(&m, (uint32_t)i, fs, 2), 2);
            CHECK_EQ(fs[0], ctxprof_icpp_map_func(&m, "pebs_hot_t1"));
        }
    /* at the leaf's first instruction (CFA = SP + 8) rbp is t1's, and the
       top word is the return address into t1, missing from the callchain */
    s.ip = leaf;
    words[0] = t1 + 5;
    words[5] = 0x10; /* t1's caller: no function of the map */
    chain[1] = s.ip;
    chain[2] = 0x10;
    ctxprof_pebs_paths_sample(&pp, &s);
    CHECK_EQ(pp.st.precise, 2);
    CHECK_EQ(pp.st.correct, 2);
    CHECK_EQ(pp.st.incorrect, 0);
    ctxprof_pebs_paths_deinit(&pp);
    ctxprof_icpp_map_deinit(&m);
    ctxprof_symtab_deinit(&st);
#endif
}

/* End to end in a separate program (frame pointers on): ICPP training of a
   leaf reached through two same-sized recursions, then sampling through the
   pipeline. (PC, SP) alone cannot tell the recursions apart; one frame of
   the sample's stack copy can, and the kernel's callchain agrees. */
static int pebs_kv(const char *text, const char *key, uint64_t *out)
{
    char pat[64];
    const char *p;
    snprintf(pat, sizeof pat, "\n%s=", key);
    p = strstr(text, pat);
    if (!p)
        return -1;
    *out = strtoull(p + strlen(pat), NULL, 10);
    return 0;
}

/* Runs the workload with args; its output (stdout and stderr) goes to out
   after a newline, for pebs_kv. Returns the exit status, -1 on failure. */
static int pebs_run_wl(const char *args, char *out, size_t cap)
{
    const char *dir = ctxprof_test_tmpdir();
    FILE *f;
    size_t n;
    int rc;
    out[0] = '\n';
    out[1] = '\0';
    rc = ctxprof_test_sh("cd %s && ./pebs_wl %s > wl_out.txt 2>&1", dir, args);
    {
        char path[300];
        snprintf(path, sizeof path, "%s/wl_out.txt", dir);
        f = fopen(path, "r");
    }
    if (!f)
        return -1;
    n = fread(out + 1, 1, cap - 2, f);
    fclose(f);
    out[n + 1] = '\0';
    return rc;
}

/* Trains the workload's path map (wl.paths in the test directory) once;
   0 when it is there, 1 when this build has no ICPP, -1 on failure. */
static int pebs_train_map(void)
{
    static int trained = -1;
    char out[512];
    if (trained < 0 && pebs_build_workload() == 0 &&
        pebs_run_wl("train wl.paths", out, sizeof out) == 0)
        trained = strstr(out, "no-icpp") ? 1 : 0;
    return trained;
}

static void pebs_paths_e2e(void)
{
    char out0[2048], out1[2048];
    uint64_t prec, amb, miss, rout, tin, cor, inc, walked, frames, wa, wb, in;
    int trained = pebs_train_map();
    if (trained == 1)
        SKIP("the ICPP section of ctxprof.h is not in this build");
    PEBS_USABLE_OR_SKIP();
    REQUIRE_EQ(trained, 0);
    REQUIRE_EQ(pebs_run_wl("paths wl.paths 0", out0, sizeof out0), 0);
    REQUIRE_EQ(pebs_run_wl("paths wl.paths 4", out1, sizeof out1), 0);
    /* (PC, SP) alone: the leaf's CIDs are all ambiguous, the truth a candidate */
    REQUIRE(pebs_kv(out0, "precise", &prec) == 0 && pebs_kv(out0, "ambiguous", &amb) == 0 &&
            pebs_kv(out0, "missing", &miss) == 0 && pebs_kv(out0, "truth_in", &tin) == 0 &&
            pebs_kv(out0, "ruled_out", &rout) == 0);
    in = prec + amb + miss + rout;
    CHECK_GE(in, 300);
    CHECK_GE(amb * 100, in * 90);
    CHECK_GE(tin * 100, amb * 95);
    /* one frame of walk resolves them, correctly */
    REQUIRE(pebs_kv(out1, "precise", &prec) == 0 && pebs_kv(out1, "ambiguous", &amb) == 0 &&
            pebs_kv(out1, "missing", &miss) == 0 && pebs_kv(out1, "correct", &cor) == 0 &&
            pebs_kv(out1, "incorrect", &inc) == 0 && pebs_kv(out1, "walked", &walked) == 0 &&
            pebs_kv(out1, "frames", &frames) == 0 && pebs_kv(out1, "weight_a", &wa) == 0 &&
            pebs_kv(out1, "weight_b", &wb) == 0 && pebs_kv(out1, "ruled_out", &rout) == 0);
    in = prec + amb + miss + rout;
    CHECK_GE(in, 300);
    CHECK_GE(prec * 100, in * 95);
    CHECK_GE(cor * 100, in * 95);
    CHECK_LE(inc * 100, in);
    CHECK_LE(frames, 2 * walked);
    CHECK_GE(wb * 10, wa * 14); /* wl_b does twice wl_a's work */
    CHECK_LE(wb * 10, wa * 32);
}

/* ---- training without instrumentation (ctxprof_pebs_train) ---- */

#if defined(CTXPROF_ICPP_NO_HEIGHT)
/* Training as where no .eh_frame could be read: no CFA rule anywhere,
   every frame guessed from rbp and the stack copy's top words. */
static void pebs_train_no_cfa(ctxprof_pebs_train *t)
{
    ctxprof__free(t->cfa, t->d.alloc_user);
    t->cfa = NULL;
    t->ncfa = 0;
    t->cfa_funcs = 0;
}
#endif

/* The training sink on synthetic samples of this program's functions,
   without CFA rules (pebs_train_cfa_* has them): the callchain's user
   part after its context marker becomes the path (kernel frames skipped),
   the caller a frameless state hides is put back from the stack copy's
   top words, the leaf's most sampled frame size is its body's, and each
   kind of unusable sample is counted, not trained. */
static void pebs_train_unit(void)
{
#if !defined(CTXPROF_ICPP_NO_HEIGHT)
    SKIP("the ICPP section of ctxprof.h is not in this build");
#else
    static const char want[] = "ctxprof-paths 1\n"
                               "path 1 100 pebs_hot_t1 pebs_hot_t0\n"
                               "path 0 184 pebs_hot_t2 pebs_hot_t1\n"
                               "path 3 200 pebs_hot_t2 pebs_hot_t1 pebs_hot_t0\n";
    uintptr_t t0 = (uintptr_t)pebs_hot_t0, t1 = (uintptr_t)pebs_hot_t1, t2 = (uintptr_t)pebs_hot_t2;
    ctxprof_pebs_train t;
    ctxprof_pebs_train_desc td;
    ctxprof_symtab st;
    ctxprof_pebs_sample s, body;
    ctxprof_error err;
    ctxprof_icpp_map m;
    uint64_t chain[8], word[2] = {0, 0}, kchain[7];
    char path[300], *text = NULL;
    size_t len = 0;
    int i;
    memset(&st, 0, sizeof st);
    memset(&td, 0, sizeof td);
    CHECK_EQ(ctxprof_pebs_train_init(&t, &td, &err), CTXPROF_ERR_INVAL); /* no symbols */
    REQUIRE_EQ(ctxprof_symtab_init(&st, &err), CTXPROF_OK);
    td.symtab = &st;
    td.max_stack = 5;
    REQUIRE_EQ(ctxprof_pebs_train_init(&t, &td, &err), CTXPROF_OK);
    pebs_train_no_cfa(&t);
    /* t2 > t1 > t0 in t0's body: CFA - SP = 48, plain words on top */
    body = pebs_mk(t0, 200, 1);
    body.bp = body.sp + 32;
    body.stack = (const unsigned char *)word;
    body.stack_size = 16;
    body.stack_addr = body.sp;
    chain[0] = (uint64_t)PERF_CONTEXT_USER;
    chain[1] = body.ip;
    chain[2] = t1 + 5;
    for (i = 0; i < (int)st.count && st.syms[i].obj == 0; i++)
        ;
    REQUIRE(i < (int)st.count); /* a function of a library (sanitizers are in the executable) */
    chain[3] = st.syms[i].start + 1; /* a library frame between: invisible */
    chain[4] = t2 + 5;
    body.callchain = chain;
    body.callchain_nr = 5;
    for (i = 0; i < 3; i++)
        ctxprof_pebs_train_sample(&t, &body);
    s = body; /* an epilogue state: same path, the SP of a popped register */
    s.sp += 16;
    s.height -= 16;
    s.stack_addr = s.sp;
    ctxprof_pebs_train_sample(&t, &s);
    /* t0's first instruction, called from t1 (which t2 called): rbp is t1's,
       so the chain says t2 > t0; the return address on top puts t1 back */
    s = body;
    s.sp = s.bp - 40;
    s.height = 200 - 40 + 32;
    s.stack_addr = s.sp;
    word[0] = t1 + 5;
    chain[2] = t2 + 5;
    s.callchain_nr = 3;
    ctxprof_pebs_train_sample(&t, &s);
    word[0] = s.bp; /* after push %rbp: rbp on top, the return address above */
    word[1] = t1 + 5;
    s.sp -= 8;
    s.height += 8;
    s.stack_addr = s.sp;
    ctxprof_pebs_train_sample(&t, &s);
    word[0] = word[1] = 0;
    chain[2] = t1 + 5;
    CHECK_EQ(t.st.used, 6);
    /* the four frame sizes of one path (48, 32, 8, 16), and its caller t1
       at its SP at the call, the leaf's CFA (from the top words) */
    CHECK_EQ(t.entries, 5);
    s = body;
    s.bp = s.sp - 8; /* rbp below SP: not a frame pointer */
    ctxprof_pebs_train_sample(&t, &s);
    CHECK_EQ(t.st.frameless, 1);
    /* kernel part first (CTXPROF_PEBS_KERNEL): skipped; t1 > t0 at 100 */
    s = pebs_mk(t0, 100, 1);
    s.bp = s.sp + 32;
    kchain[0] = (uint64_t)PERF_CONTEXT_KERNEL;
    kchain[1] = 0xffffffff81000000ull;
    kchain[2] = 0xffffffff81000100ull;
    kchain[3] = (uint64_t)PERF_CONTEXT_USER;
    kchain[4] = s.ip;
    kchain[5] = t1 + 5;
    s.callchain = kchain;
    s.callchain_nr = 6;
    ctxprof_pebs_train_sample(&t, &s);
    CHECK_EQ(t.st.used, 7);
    s.callchain_nr = 3; /* the kernel part only */
    ctxprof_pebs_train_sample(&t, &s);
    s.callchain = NULL;
    ctxprof_pebs_train_sample(&t, &s);
    CHECK_EQ(t.st.no_chain, 2);
    s = body;
    chain[1] = t1 + 1; /* the chain's leaf in another function (PEBS skid) */
    ctxprof_pebs_train_sample(&t, &s);
    CHECK_EQ(t.st.mismatch, 1);
    chain[1] = body.ip;
    s.flags = CTXPROF_PEBS_SAMPLE_STACK_TOP;
    ctxprof_pebs_train_sample(&t, &s);
    s = body;
    s.height = 0;
    ctxprof_pebs_train_sample(&t, &s);
    CHECK_EQ(t.st.nobase, 2);
    s = body;
    s.ip = 16;
    ctxprof_pebs_train_sample(&t, &s);
    CHECK_EQ(t.st.outside, 1);
    s = body; /* max_stack frames: maybe cut short */
    chain[5] = t2 + 5;
    s.callchain_nr = 6;
    ctxprof_pebs_train_sample(&t, &s);
    CHECK_EQ(t.st.truncated, 1);
    CHECK_EQ(t.st.samples, 15);
    CHECK_EQ(t.st.used, 7);
    CHECK_EQ(t.st.guessed, 7);
    CHECK_EQ(t.nodes, 6); /* root, t2, t2>t1, t2>t1>t0, t1, t1>t0 */
    snprintf(path, sizeof path, "%s/train_unit.paths", ctxprof_test_tmpdir());
    REQUIRE_EQ(ctxprof_pebs_train_save(&t, path, &err), CTXPROF_OK);
    CHECK_EQ(t.st.unsettled, 3);
    REQUIRE_EQ(ctxprof__read_file(path, &text, &len, NULL, &err), CTXPROF_OK);
    { /* the map names the executable's build after its first line */
        char hex[81], full[1024];
        ctxprof__icpp_build_hex(&st, hex);
        CHECK(hex[0] != '\0'); /* gcc and clang link with a build id on Debian */
        snprintf(full, sizeof full, "ctxprof-paths 1\n%s%s%s%s", hex[0] ? "build " : "", hex,
                 hex[0] ? "\n" : "", want + strlen("ctxprof-paths 1\n"));
        CHECK_STR(text, full);
    }
    ctxprof__free(text, NULL);
    /* min_count leaves out the rare entry; the map is usable in memory */
    t.d.min_count = 2;
    memset(&m, 0, sizeof m);
    REQUIRE_EQ(ctxprof_pebs_train_map(&t, &m, &err), CTXPROF_OK);
    CHECK_EQ(m.paths, 2);
    CHECK_EQ(t.st.rare, 1);
    ctxprof_icpp_map_deinit(&m);
    ctxprof_pebs_train_deinit(&t);
    /* a full table drops and counts */
    td.max_nodes = 2;
    REQUIRE_EQ(ctxprof_pebs_train_init(&t, &td, &err), CTXPROF_OK);
    s = body;
    s.callchain_nr = 5;
    ctxprof_pebs_train_sample(&t, &s);
    CHECK_EQ(t.st.full, 1);
    CHECK_EQ(t.st.used, 0);
    ctxprof_pebs_train_deinit(&t);
    ctxprof_symtab_deinit(&st);
#endif
}

/* Training a plain build (no hooks, frame pointers) from its callchain
   samples (tests/pebs_workload.c's plain part): the map holds exactly the
   program's real paths, at the heights the program measures itself from
   its own SP; and a fresh sampling run of the same build, resolved with
   that map, gets at least 95% of its samples right against the kernel's
   callchain. */
/* Samples of a binary without a symbol table (stripped) fall in no known
   function: training from them gives no path at all. Map and save fail and
   say why, instead of writing an empty map; nothing is written. */
static void pebs_train_stripped(void)
{
#if !defined(CTXPROF_ICPP_NO_HEIGHT)
    SKIP("the ICPP section of ctxprof.h is not in this build");
#else
    ctxprof_pebs_train t;
    ctxprof_pebs_train_desc td;
    ctxprof_symtab st;
    ctxprof_pebs_sample s;
    ctxprof_error err;
    ctxprof_icpp_map m;
    uint64_t chain[4];
    char path[300];
    int i;
    memset(&td, 0, sizeof td);
    REQUIRE_EQ(ctxprof_symtab_init(&st, &err), CTXPROF_OK);
    td.symtab = &st;
    REQUIRE_EQ(ctxprof_pebs_train_init(&t, &td, &err), CTXPROF_OK);
    s = pebs_mk((uintptr_t)pebs_hot_t0, 200, 1);
    s.ip = 0x1230; /* no function there: what every PC of a stripped binary looks like */
    chain[0] = (uint64_t)PERF_CONTEXT_USER;
    chain[1] = s.ip;
    chain[2] = 0x4560;
    s.callchain = chain;
    s.callchain_nr = 3;
    for (i = 0; i < 10; i++)
        ctxprof_pebs_train_sample(&t, &s);
    CHECK_EQ(t.st.samples, 10);
    CHECK_EQ(t.st.used, 0);
    CHECK_EQ(t.st.outside, 10);
    memset(&m, 0, sizeof m);
    CHECK(ctxprof_pebs_train_map(&t, &m, &err) != CTXPROF_OK);
    CHECK_CONTAINS(err.detail, "none of the 10 samples trained a path: 10 outside the symbol "
                               "table's functions (a stripped binary?)");
    ctxprof_icpp_map_deinit(&m);
    snprintf(path, sizeof path, "%s/pebs_stripped.paths", ctxprof_test_tmpdir());
    unlink(path);
    CHECK(ctxprof_pebs_train_save(&t, path, &err) != CTXPROF_OK);
    CHECK_CONTAINS(err.detail, "a stripped binary?");
    CHECK(access(path, F_OK) != 0); /* nothing written */
    ctxprof_pebs_train_deinit(&t);
    ctxprof_symtab_deinit(&st);
#endif
}

/* The count of the path str (root first, '>' between) at height in m; -1
   when m has no such path. */
static long long pebs_map_count(const ctxprof_icpp_map *m, const char *str, uint64_t height)
{
    size_t i;
    for (i = 0; i < m->paths; i++) {
        ctxprof_icpp_path_info pi;
        char buf[512];
        ctxprof_icpp_map_path_str(m, (uint32_t)i, buf, sizeof buf);
        if (ctxprof_icpp_map_path(m, (uint32_t)i, &pi) == CTXPROF_OK && pi.height == height &&
            strcmp(buf, str) == 0)
            return (long long)pi.count;
    }
    return -1;
}

static int pebs_map_has(const ctxprof_icpp_map *m, const char *str, uint64_t height)
{
    return pebs_map_count(m, str, height) >= 0;
}

#if defined(__x86_64__)
/* Two functions whose code and call frame information (.eh_frame, from
   the assembler's .cfi directives) are known whatever the compiler and
   its flags. Never called. pebs_cfa_fp sets its frame up with rbp, then
   pushes rax (as clang's realigning `push %rax` does: whatever rax held,
   a code address too): at +4 CFA = rbp + 16 = SP + 16, in its body at +5
   CFA = rbp + 16 = SP + 24. pebs_cfa_push, a leaf without a frame, saves
   rbx: at +1 CFA = SP + 16, its return address the second word. */
__asm__(".pushsection .text\n"
        ".globl pebs_cfa_fp\n"
        ".type pebs_cfa_fp, @function\n"
        "pebs_cfa_fp:\n"
        ".cfi_startproc\n"
        "push %rbp\n"
        ".cfi_def_cfa_offset 16\n"
        ".cfi_offset %rbp, -16\n"
        "mov %rsp, %rbp\n"
        ".cfi_def_cfa_register %rbp\n"
        "push %rax\n"
        "nop\n"
        "pop %rax\n"
        "pop %rbp\n"
        ".cfi_def_cfa %rsp, 8\n"
        "ret\n"
        ".cfi_endproc\n"
        ".size pebs_cfa_fp, .-pebs_cfa_fp\n"
        ".globl pebs_cfa_push\n"
        ".type pebs_cfa_push, @function\n"
        "pebs_cfa_push:\n"
        ".cfi_startproc\n"
        "push %rbx\n"
        ".cfi_adjust_cfa_offset 8\n"
        ".cfi_offset %rbx, -16\n"
        "nop\n"
        "pop %rbx\n"
        ".cfi_adjust_cfa_offset -8\n"
        "ret\n"
        ".cfi_endproc\n"
        ".size pebs_cfa_push, .-pebs_cfa_push\n"
        ".popsection\n");
void pebs_cfa_fp(void);
void pebs_cfa_push(void);
#define PEBS_CFA_FP_CODE "\x55\x48\x89\xe5\x50\x90" /* push, mov, push, nop */
#define PEBS_CFA_PUSH_CODE "\x53\x90"               /* push %rbx, nop */

/* A sample at pc with SP sp (height h), rbp bp, the stack copy words[n]
   at SP and the user callchain pc, chain[0..nc) (return addresses). */
static ctxprof_pebs_sample pebs_cfa_sample(uintptr_t pc, uint64_t sp, uint64_t h, uint64_t bp,
                                           const uint64_t *words, size_t n, uint64_t *chain,
                                           const uint64_t *ras, uint32_t nc)
{
    ctxprof_pebs_sample s;
    uint32_t k;
    memset(&s, 0, sizeof s);
    s.ip = pc;
    s.sp = s.stack_addr = sp;
    s.height = h;
    s.bp = bp;
    s.period = 1;
    s.stack = (const unsigned char *)words;
    s.stack_size = (uint32_t)(n * sizeof *words);
    chain[0] = (uint64_t)PERF_CONTEXT_USER;
    chain[1] = pc;
    for (k = 0; k < nc; k++)
        chain[2 + k] = ras[k];
    s.callchain = chain;
    s.callchain_nr = nc + 2;
    return s;
}

/* pebs_cfa_fp in its body (+5) at SP sp, height 200, called from t1
   called from t2: rbp sp + 8 (its own), t1's frame record at sp + 48
   (40 bytes under t1's CFA), t2's at sp + 96 (48 bytes), past the
   copy (words[12], chain[4]); top: the stack's top word (rax pushed). */
static ctxprof_pebs_sample pebs_cfa_fp_body(uint64_t *words, uint64_t *chain, uint64_t sp,
                                            uint64_t top)
{
    uint64_t ras[2];
    memset(words, 0, 12 * sizeof *words);
    words[0] = top;
    words[1] = sp + 48;
    words[2] = ras[0] = (uintptr_t)pebs_hot_t1 + 5;
    words[6] = sp + 96;
    words[7] = ras[1] = (uintptr_t)pebs_hot_t2 + 5;
    return pebs_cfa_sample((uintptr_t)pebs_cfa_fp + 5, sp, 200, sp + 8, words, 12, chain, ras, 2);
}

/* A training sink with this program's symbols st (and their CFA rules); 0,
   or -1 when pebs_cfa_fp and pebs_cfa_push are not the code the samples
   describe, or on an error. */
static int pebs_cfa_train_init(ctxprof_pebs_train *t, ctxprof_symtab *st)
{
    ctxprof_pebs_train_desc td;
    ctxprof_error err;
    memset(&td, 0, sizeof td);
    td.symtab = st;
    if (memcmp((const void *)(uintptr_t)pebs_cfa_fp, PEBS_CFA_FP_CODE, 6) != 0 ||
        memcmp((const void *)(uintptr_t)pebs_cfa_push, PEBS_CFA_PUSH_CODE, 2) != 0 ||
        ctxprof_symtab_init(st, &err) != CTXPROF_OK)
        return -1;
    if (ctxprof_pebs_train_init(t, &td, &err) != CTXPROF_OK) {
        ctxprof_symtab_deinit(st);
        return -1;
    }
    return 0;
}
#endif

/* Training reads the CFA rules of the functions it records (.eh_frame) at
   init, and the leaf's rule at the sample's PC says whether rbp is still
   its caller's and which word is the return address the kernel's chain
   lacks. Guessed from the stack copy's top words, a set-up frame whose
   top word holds a code address (clang's `push %rax` realignment slot)
   got that address as a bogus caller, and a leaf without a frame that
   saved a register holding a code address got the register for its
   return address: wrong paths, at wrong frame sizes. Where the rule says
   rbp is the caller's but the return address is past the copy, or rbp is
   no frame pointer, the caller is lost: counted as frameless. */
static void pebs_train_cfa_caller(void)
{
#if !defined(CTXPROF_ICPP_NO_HEIGHT) || !defined(__x86_64__)
    SKIP("the ICPP section of ctxprof.h or x86-64 is not in this build");
#else
    uintptr_t t1 = (uintptr_t)pebs_hot_t1, t2 = (uintptr_t)pebs_hot_t2;
    uint64_t words[12], chain[4], sp = 0x7f0000000000ull - 200;
    ctxprof_pebs_train t;
    ctxprof_pebs_train_desc td;
    ctxprof_symtab st;
    ctxprof_pebs_sample s;
    ctxprof_icpp_map m;
    ctxprof_error err;
    size_t k;
    memset(&m, 0, sizeof m);
    REQUIRE_EQ(pebs_cfa_train_init(&t, &st), 0);
    CHECK(t.cfa_funcs >= 2);
    /* pebs_cfa_fp's body: the top word a stale code address in t2 */
    s = pebs_cfa_fp_body(words, chain, sp, t2 + 9);
    for (k = 0; k < 3; k++)
        ctxprof_pebs_train_sample(&t, &s);
    /* pebs_cfa_push after its push, called from t1: rbp is t1's, so the
       chain lacks t1; the top word is the saved rbx, a code address in t2,
       the return address is under it */
    memset(words, 0, sizeof words);
    words[0] = t2 + 9;
    words[1] = t1 + 5;
    words[5] = sp + 88; /* t1's frame record at sp + 40, t2's at sp + 88 */
    words[6] = t2 + 5;
    /* the kernel's chain, from rbp: t1's return address (into t2) only */
    s = pebs_cfa_sample((uintptr_t)pebs_cfa_push + 1, sp, 200, sp + 40, words, 12, chain, words + 6,
                        1);
    for (k = 0; k < 2; k++)
        ctxprof_pebs_train_sample(&t, &s);
    /* the same with rbp no frame pointer (a register of code built without
       them: the kernel's chain from it is garbage), or with the return
       address past the stack copy: the caller is lost, nothing trained */
    s.bp = 0x1234;
    ctxprof_pebs_train_sample(&t, &s);
    s.bp = sp + 8; /* below the CFA, sp + 16 */
    ctxprof_pebs_train_sample(&t, &s);
    s.bp = sp + 40;
    s.stack_size = 8;
    ctxprof_pebs_train_sample(&t, &s);
    CHECK_EQ(t.st.frameless, 3);
    CHECK_EQ(t.st.used, 5);
    CHECK_EQ(t.st.guessed, 0);
    REQUIRE_EQ(ctxprof_pebs_train_map(&t, &m, &err), CTXPROF_OK);
    /* the true paths, with their callers at their SP at the call (the
       leaf's CFA: sp + 24 and sp + 16) */
    CHECK_EQ(pebs_map_count(&m, "pebs_hot_t2>pebs_hot_t1>pebs_cfa_fp", 200), 3);
    CHECK_EQ(pebs_map_count(&m, "pebs_hot_t2>pebs_hot_t1>pebs_cfa_push", 200), 2);
    CHECK_EQ(pebs_map_count(&m, "pebs_hot_t2>pebs_hot_t1", 176), 0);
    CHECK_EQ(pebs_map_count(&m, "pebs_hot_t2>pebs_hot_t1", 184), 0);
    CHECK_EQ(pebs_map_count(&m, "pebs_hot_t2", 136), 0);
    CHECK_EQ(pebs_map_count(&m, "pebs_hot_t2", 144), 0);
    CHECK_EQ(m.paths, 6);
    for (k = 0; k < m.paths; k++) { /* and no bogus caller t2 under the leaf */
        char buf[512];
        ctxprof_icpp_map_path_str(&m, (uint32_t)k, buf, sizeof buf);
        CHECK(strstr(buf, "pebs_hot_t2>pebs_cfa") == NULL);
    }
    ctxprof_icpp_map_deinit(&m);
    ctxprof_pebs_train_deinit(&t);
    /* all_objects: the rules of the libraries' functions too */
    {
        size_t own;
        memset(&td, 0, sizeof td);
        td.symtab = &st;
        REQUIRE_EQ(ctxprof_pebs_train_init(&t, &td, &err), CTXPROF_OK);
        own = t.cfa_funcs;
        ctxprof_pebs_train_deinit(&t);
        td.all_objects = 1;
        REQUIRE_EQ(ctxprof_pebs_train_init(&t, &td, &err), CTXPROF_OK);
        CHECK_LT(own, t.cfa_funcs);
        ctxprof_pebs_train_deinit(&t);
    }
    ctxprof_symtab_deinit(&st);
#endif
}

/* A sample in a push/pop state (pebs_cfa_fp before it pushes rax) has its
   body's path but not its SP; with its CFA exact (the rule's), its height
   at the body is height - its frame size + the body's: training counts it
   there instead of leaving it out, where the profile side's CFA heights
   put such samples. A path sampled only in such states (here t1 >
   pebs_cfa_fp) was missing from the map, and its samples resolved to
   nothing. */
static void pebs_train_cfa_fold(void)
{
#if !defined(CTXPROF_ICPP_NO_HEIGHT) || !defined(__x86_64__)
    SKIP("the ICPP section of ctxprof.h or x86-64 is not in this build");
#else
    uintptr_t fp = (uintptr_t)pebs_cfa_fp, t1 = (uintptr_t)pebs_hot_t1;
    uint64_t sp = 0x7f0000000000ull - 200, sp2 = 0x7f0000000000ull - 504;
    uint64_t words[12], chain[4], ras[2];
    ctxprof_pebs_train t;
    ctxprof_symtab st;
    ctxprof_pebs_sample s, s2;
    ctxprof_icpp_map m;
    ctxprof_pebs_paths pp;
    ctxprof_pebs_paths_desc pd;
    ctxprof_error err;
    size_t k;
    memset(&m, 0, sizeof m);
    REQUIRE_EQ(pebs_cfa_train_init(&t, &st), 0);
    /* t2 > t1 > pebs_cfa_fp: three samples in its body (nothing code-like
       on top: guessed or not, the same), one before it pushes rax (the
       same stack without its top word) */
    s = pebs_cfa_fp_body(words, chain, sp, 0);
    for (k = 0; k < 3; k++)
        ctxprof_pebs_train_sample(&t, &s);
    ras[0] = chain[2];
    ras[1] = chain[3];
    s = pebs_cfa_sample(fp + 4, sp + 8, 192, sp + 8, words + 1, 11, chain, ras, 2);
    ctxprof_pebs_train_sample(&t, &s);
    /* t1 > pebs_cfa_fp (t1 called from outside the program), only before
       the push: rbp = SP, t1's frame record at sp2 + 40 */
    memset(words, 0, sizeof words);
    words[0] = sp2 + 40;
    words[1] = t1 + 5;
    words[5] = sp2 + 200;
    words[6] = 0x10;
    ras[1] = 0x10;
    s2 = pebs_cfa_sample(fp + 4, sp2, 504, sp2, words, 12, chain, ras, 2);
    ctxprof_pebs_train_sample(&t, &s2);
    CHECK_EQ(t.st.used, 5);
    REQUIRE_EQ(ctxprof_pebs_train_map(&t, &m, &err), CTXPROF_OK);
    CHECK_EQ(t.st.folded, 2);
    CHECK_EQ(t.st.unsettled, 0);
    /* at the body's height (CFA - SP 24 there, 16 before the push) */
    CHECK_EQ(pebs_map_count(&m, "pebs_hot_t2>pebs_hot_t1>pebs_cfa_fp", 200), 4);
    CHECK_EQ(pebs_map_count(&m, "pebs_hot_t1>pebs_cfa_fp", 512), 1);
    CHECK_EQ(pebs_map_count(&m, "pebs_hot_t1", 488), 0); /* t1 as the caller */
    CHECK_EQ(m.paths, 5);
    /* the profile side puts the same sample there: base - CFA + 24 */
    REQUIRE_EQ(ctxprof_icpp_map_bind(&m, &st, &err), CTXPROF_OK);
    CHECK_EQ(ctxprof_icpp_map_height(&m, fp + 4, sp2, sp2, sp2 + 504), 512);
    memset(&pd, 0, sizeof pd);
    pd.map = &m;
    pd.max_walk = 8;
    pd.unit_weight = 1;
    REQUIRE_EQ(ctxprof_pebs_paths_init(&pp, &pd, &err), CTXPROF_OK);
    ctxprof_pebs_paths_sample(&pp, &s2);
    CHECK_EQ(pp.st.precise, 1);
    CHECK_EQ(pp.st.correct, 1);
    CHECK_EQ(pp.st.missing, 0);
    ctxprof_pebs_paths_deinit(&pp);
    ctxprof_icpp_map_deinit(&m);
    ctxprof_pebs_train_deinit(&t);
    ctxprof_symtab_deinit(&st);
#endif
}

static void pebs_train_plain(void)
{
#if !defined(CTXPROF_ICPP_NO_HEIGHT)
    SKIP("the ICPP section of ctxprof.h is not in this build");
#else
    static char why[400], out[4096];
    ctxprof_icpp_map tm, truth;
    ctxprof_error err;
    char path[300];
    uint64_t used, nochain, prec, amb, miss, rout, cor, inc, in;
    size_t i, real = 0, hot = 0;
    PLAIN_BUILD_ONLY();
    PEBS_USABLE_OR_SKIP();
    REQUIRE_EQ(pebs_build_workload(), 0);
    if (pebs_run_wl("plain-train plain.paths truth.paths", out, sizeof out) != 0 &&
        strstr(out, "pebs_workload: ")) {
        snprintf(why, sizeof why, "callchain sampling unusable here: %s",
                 strstr(out, "pebs_workload: "));
        SKIP(why);
    }
    REQUIRE(pebs_kv(out, "used", &used) == 0 && pebs_kv(out, "no_chain", &nochain) == 0);
    if (used == 0 && nochain > 0)
        SKIP("the kernel gives no user callchains here");
    CHECK_GE(used, 4000);
    memset(&tm, 0, sizeof tm);
    memset(&truth, 0, sizeof truth);
    snprintf(path, sizeof path, "%s/plain.paths", ctxprof_test_tmpdir());
    REQUIRE_EQ(ctxprof_icpp_map_load(&tm, path, &err), CTXPROF_OK);
    snprintf(path, sizeof path, "%s/truth.paths", ctxprof_test_tmpdir());
    REQUIRE_EQ(ctxprof_icpp_map_load(&truth, path, &err), CTXPROF_OK);
    CHECK_GE(truth.paths, 16);
    for (i = 0; i < tm.paths; i++) { /* every trained path of the plain part is real */
        ctxprof_icpp_path_info pi;
        char buf[512];
        ctxprof_icpp_map_path_str(&tm, (uint32_t)i, buf, sizeof buf);
        REQUIRE_EQ(ctxprof_icpp_map_path(&tm, (uint32_t)i, &pi), CTXPROF_OK);
        if (!strstr(buf, ">pl_"))
            continue;
        real++;
        if (!pebs_map_has(&truth, buf, pi.height))
            fprintf(stderr, "  trained, not real: %s at %llu\n", buf,
                    (unsigned long long)pi.height);
        CHECK(pebs_map_has(&truth, buf, pi.height));
    }
    for (i = 0; i < truth.paths; i++) { /* every real path that works is trained */
        ctxprof_icpp_path_info pi;
        char buf[512];
        ctxprof_icpp_map_path_str(&truth, (uint32_t)i, buf, sizeof buf);
        REQUIRE_EQ(ctxprof_icpp_map_path(&truth, (uint32_t)i, &pi), CTXPROF_OK);
        hot++; /* pl_run only calls: trained as the caller on the stack */
        if (!pebs_map_has(&tm, buf, pi.height))
            fprintf(stderr, "  real, not trained: %s at %llu\n", buf,
                    (unsigned long long)pi.height);
        CHECK(pebs_map_has(&tm, buf, pi.height));
    }
    CHECK_EQ(real, hot);
    ctxprof_icpp_map_deinit(&tm);
    ctxprof_icpp_map_deinit(&truth);
    /* fresh samples of the same build, resolved with the trained map */
    REQUIRE_EQ(pebs_run_wl("plain-paths plain.paths 4", out, sizeof out), 0);
    REQUIRE(pebs_kv(out, "precise", &prec) == 0 && pebs_kv(out, "ambiguous", &amb) == 0 &&
            pebs_kv(out, "missing", &miss) == 0 && pebs_kv(out, "correct", &cor) == 0 &&
            pebs_kv(out, "incorrect", &inc) == 0 && pebs_kv(out, "ruled_out", &rout) == 0);
    in = prec + amb + miss + rout;
    CHECK_GE(in, 1000);
    CHECK_GE(cor * 100, in * 95);
    CHECK_LE(inc * 100, in);
#endif
}

/* The workload's count mode (malloc and syscall() interposed, see
   tests/pebs_workload.c), run once; its key=value output. */
static const char *pebs_count_output(void)
{
    static char out[4096];
    static int done = -1;
    if (done < 0) {
        int trained = pebs_train_map();
        done = pebs_build_workload() == 0 &&
               pebs_run_wl(trained == 0 ? "count wl.paths" : "count", out, sizeof out) == 0;
    }
    return done ? out : NULL;
}

/* Sets out to that output, or skips the case saying why. */
#define PEBS_COUNT_OUTPUT_OR_SKIP(out)                                                             \
    do {                                                                                           \
        PLAIN_BUILD_ONLY();                                                                        \
        PEBS_USABLE_OR_SKIP();                                                                     \
        (out) = pebs_count_output();                                                               \
        if ((out) && strstr((out), "pebs_workload: "))                                             \
            SKIP("perf_event unusable here (see the workload's message)");                         \
        REQUIRE((out) != NULL);                                                                    \
    } while (0)

/* Nothing on the drain path allocates: the reader thread (watermark
   wakeups, drain requests, the final drain of three threads that exit),
   explicit drains, the signal handler, and the paths pipeline behind them
   (CID lookup and walks). A positive control shows the counting sees
   libc's own allocations. */
static void pebs_drain_noalloc(void)
{
    const char *out;
    uint64_t v;
    PEBS_COUNT_OUTPUT_OR_SKIP(out);
    REQUIRE(pebs_kv(out, "control_allocs", &v) == 0);
    CHECK_GE(v, 1);
    PEBS_HAS(out, "\nreader_allocs=0\n");
    PEBS_HAS(out, "\nreader_exited=3\n");
    PEBS_HAS(out, "\nmanual_allocs=0\n");
    PEBS_HAS(out, "\nsignal_allocs=0\n");
    REQUIRE(pebs_kv(out, "reader_samples", &v) == 0);
    CHECK_GE(v, 500);
    REQUIRE(pebs_kv(out, "manual_samples", &v) == 0);
    CHECK_GE(v, 100);
    REQUIRE(pebs_kv(out, "signal_samples", &v) == 0);
    CHECK_GE(v, 100);
    if (pebs_train_map() == 0) {
        REQUIRE(pebs_kv(out, "paths_resolved", &v) == 0);
        CHECK_GE(v, 100);
        REQUIRE(pebs_kv(out, "paths_walked", &v) == 0);
        CHECK_GE(v, 50);
    }
}

/* The level is probed once, at open: attaching threads afterwards opens
   exactly one event each, with the chosen level's attributes. */
static void pebs_probe_once(void)
{
    const char *out;
    uint64_t v;
    PEBS_COUNT_OUTPUT_OR_SKIP(out);
    REQUIRE(pebs_kv(out, "probe_opens", &v) == 0);
    CHECK_GE(v, 1);
    if (ctxprof__pebs_have_pmu() == 0)
        CHECK_EQ(v, 3); /* PEBS and hardware fail (ENOENT), software opens */
    PEBS_HAS(out, "\nreader_attach_opens=4\n"); /* the main thread and three others */
    PEBS_HAS(out, "\nmanual_attach_opens=1\n");
}

/* ---- hardware PMU only ---- */

/* PEBS samples: registers of the PEBS record (flag PRECISE), the record's
   IP also given as the sample IP, user mode. */
typedef struct pebs_precchk {
    uint64_t all, in, precise, same_ip, user;
} pebs_precchk;

static void pebs_prec_fn(void *user, const ctxprof_pebs_sample *s)
{
    pebs_precchk *c = (pebs_precchk *)user;
    c->all++;
    c->in += pebs_in_range(s->ip, __start_ctxprof_pebs_hot, __stop_ctxprof_pebs_hot);
    c->precise += (s->flags & CTXPROF_PEBS_SAMPLE_PRECISE) != 0;
    c->same_ip += s->event_ip == s->ip;
    c->user += (s->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_USER;
}

static void pebs_hardware(void)
{
    ctxprof_pebs pb;
    ctxprof_pebs_desc d;
    pebs_hits h;
    if (ctxprof__pebs_have_pmu() != 1)
        SKIP("no hardware PMU on this machine (VM without vPMU): the PEBS and hardware "
             "levels are checked only on real hardware");
    memset(&h, 0, sizeof h);
    h.tid = ctxprof__pebs_gettid();
    pebs_desc_fill(&d, CTXPROF_PEBS_MANUAL, 0);
    d.level = CTXPROF_PEBS_LEVEL_HW;
    d.on_sample = pebs_hits_fn;
    d.user = &h;
    PEBS_OPEN_OR_SKIP(&pb, &d);
    REQUIRE_EQ(ctxprof_pebs_attach(&pb, 0, 0), CTXPROF_OK);
    PEBS_UNTIL(h.all >= 50, {
        pebs_hot(10000000);
        ctxprof_pebs_drain(&pb);
    });
    ctxprof_pebs_close(&pb);
    CHECK_GE(h.all, 50);
    CHECK_GE(h.in * 100, h.all * 90); /* skid moves a few samples */
#if defined(CTXPROF__PEBS_X86)
    {
        long maxp = -1;
        int intr;
        pebs_precchk c;
        if (ctxprof__pebs_read_long("/sys/bus/event_source/devices/cpu/caps/max_precise", &maxp) !=
            0)
            ctxprof__pebs_read_long("/sys/bus/event_source/devices/cpu_core/caps/max_precise",
                                    &maxp);
        if (maxp < 1 || !ctxprof__pebs_is_intel())
            SKIP("hardware level checked; no Intel PEBS here (caps/max_precise < 1)");
        memset(&c, 0, sizeof c);
        pebs_desc_fill(&d, CTXPROF_PEBS_MANUAL, 0);
        d.level = CTXPROF_PEBS_LEVEL_PEBS;
        d.on_sample = pebs_prec_fn;
        d.user = &c;
        REQUIRE_EQ(ctxprof_pebs_open(&pb, &d), CTXPROF_OK);
        CHECK_CONTAINS(ctxprof_pebs_explain(&pb), "PEBS: ok (period 200003 events, precise_ip=1)");
        intr = strstr(ctxprof_pebs_explain(&pb), "REGS_INTR refused") == NULL; /* lockdown */
        REQUIRE_EQ(ctxprof_pebs_attach(&pb, 0, 0), CTXPROF_OK);
        PEBS_UNTIL(c.all >= 50, {
            pebs_hot(10000000);
            ctxprof_pebs_drain(&pb);
        });
        ctxprof_pebs_close(&pb);
        CHECK_GE(c.all, 50);
        CHECK_GE(c.in * 100, c.all * 95);
        CHECK_EQ(c.precise, intr ? c.all : 0);
        CHECK_GE(c.same_ip * 100, c.all * 95);
        CHECK_EQ(c.user, c.all);
    }
#endif
}

/* ---- robustness: signal storms and bounds ---- */

/* Signal mode under a storm of SIGIO that did not come from a ring (some
   carrying the descriptor of one: another thread's handler then drains it)
   while two sampled threads call malloc and write through one stdio stream.
   In a forked child under an alarm: no deadlock, every sample delivered
   once to both sinks, nothing malformed. */
typedef struct pebs_storm {
    int skipped, failed_at;
    uint64_t samples, sunk, stored, array_full, bad, desyncs, wrong_tid, sent, wakeups;
} pebs_storm;

static uint64_t pebs_storm_sunk;
static pid_t pebs_storm_tids[2];

static void pebs_storm_sink(void *user, const ctxprof_pebs_sample *s)
{
    (void)user;
    (void)s;
    __atomic_add_fetch(&pebs_storm_sunk, 1, __ATOMIC_RELAXED);
}

typedef struct pebs_storm_worker {
    ctxprof_pebs *pb;
    FILE *out;
    int k, rc, stop;
} pebs_storm_worker;

static void *pebs_storm_work(void *arg)
{
    pebs_storm_worker *w = (pebs_storm_worker *)arg;
    uint64_t rng = 11 + (uint64_t)w->k, n = 0;
    pebs_storm_tids[w->k] = gettid();
    __atomic_store_n(&w->rc, ctxprof_pebs_attach(w->pb, 0, 0) + 1000, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE)) {
        char *m = (char *)malloc(8 + ctxprof_test_rand(&rng) % 2048);
        if (m)
            fprintf(w->out, "%p %llu\n", (void *)m, (unsigned long long)n++);
        free(m);
    }
    ctxprof_pebs_detach(w->pb, 0);
    return NULL;
}

static int pebs_storm_child(void *arg, void *shared)
{
    static ctxprof_pebs_sample arr[256];
    pebs_storm *r = (pebs_storm *)shared;
    ctxprof_pebs pb;
    ctxprof_pebs_desc d;
    ctxprof_pebs_stats st;
    ctxprof_test_storm storm;
    pebs_storm_worker w[2];
    pthread_t th[2], snd;
    FILE *out = fopen("/dev/null", "w");
    size_t n, i;
    int k;
    (void)arg;
    /* 50 kHz of CPU time per thread; 1 kHz under valgrind, whose signals are slow */
    pebs_desc_fill(&d, CTXPROF_PEBS_SIGNAL, ctxprof_test_under_valgrind() ? 1000000 : 20000);
    d.on_sample = pebs_storm_sink;
    d.samples = arr;
    d.samples_cap = 256;
    if (!out)
        return r->failed_at = 1;
    if (ctxprof_pebs_open(&pb, &d) == CTXPROF_ERR_UNSUPPORTED) {
        r->skipped = 1;
        return 0;
    }
    memset(&storm, 0, sizeof storm);
    for (k = 0; k < 2; k++) {
        w[k].pb = &pb;
        w[k].out = out;
        w[k].k = k;
        w[k].rc = 0;
        w[k].stop = 0;
        if (pthread_create(&th[k], NULL, pebs_storm_work, &w[k]) != 0)
            return r->failed_at = 2;
        while (!__atomic_load_n(&w[k].rc, __ATOMIC_ACQUIRE))
            sched_yield();
        if (w[k].rc != 1000 + CTXPROF_OK)
            return r->failed_at = 3;
        storm.targets[k] = th[k];
    }
    storm.ntargets = 2;
    storm.signo = SIGIO;
    storm.n = CTXPROF_TEST_STORM_SIGNALS;
    storm.vary_value = 1;
    if (pthread_create(&snd, NULL, ctxprof_test_storm_run, &storm) != 0)
        return r->failed_at = 4;
    pthread_join(snd, NULL);
    /* sampling goes on until 200 samples are in (30 s at most: valgrind) */
    for (k = 0; k < 30000 && __atomic_load_n(&pebs_storm_sunk, __ATOMIC_RELAXED) < 200; k++)
        usleep(1000);
    for (k = 0; k < 2; k++) {
        __atomic_store_n(&w[k].stop, 1, __ATOMIC_RELEASE);
        pthread_join(th[k], NULL);
    }
    ctxprof_pebs_close(&pb);
    ctxprof_pebs_stats_get(&pb, &st);
    ctxprof_pebs_samples(&pb, &n);
    for (i = 0; i < n; i++)
        r->wrong_tid += (pid_t)arr[i].tid != pebs_storm_tids[0] &&
                        (pid_t)arr[i].tid != pebs_storm_tids[1];
    r->samples = st.samples;
    r->sunk = __atomic_load_n(&pebs_storm_sunk, __ATOMIC_RELAXED);
    r->stored = n;
    r->array_full = st.array_full;
    r->bad = st.bad_records;
    r->desyncs = st.desyncs;
    r->wakeups = st.wakeups;
    r->sent = storm.sent[0] + storm.sent[1];
    fclose(out);
    return 0;
}

static void pebs_robust_signals(void)
{
    pebs_storm *r = (pebs_storm *)ctxprof_test_in_child(pebs_storm_child, NULL, sizeof *r);
    REQUIRE(r != NULL);
    if (r->skipped) {
        munmap(r, sizeof *r);
        SKIP("perf_event unusable here");
    }
    CHECK_EQ(r->failed_at, 0);
    CHECK_GE(r->samples, 200);
    CHECK_EQ(r->sunk, r->samples);
    CHECK_EQ(r->stored, r->samples < 256 ? r->samples : 256);
    CHECK_EQ(r->array_full, r->samples - r->stored);
    CHECK_EQ(r->bad + r->desyncs, 0);
    CHECK_EQ(r->wrong_tid, 0);
    printf("  pebs: signal mode, %llu stray SIGIOs sent; %llu samples in %llu wakeups, each "
           "delivered once\n",
           (unsigned long long)r->sent, (unsigned long long)r->samples,
           (unsigned long long)r->wakeups);
    munmap(r, sizeof *r);
}

/* The per-thread slots and the sample array are bounds: an attach past
   max_threads is refused with the reason, samples past the array's
   capacity are counted, and the explanation says so. */
typedef struct pebs_slot {
    ctxprof_pebs *pb;
    int rc, stop;
    char msg[200];
} pebs_slot;

static void *pebs_slot_main(void *arg)
{
    pebs_slot *s = (pebs_slot *)arg;
    int rc = ctxprof_pebs_attach(s->pb, 0, 0);
    if (rc != CTXPROF_OK)
        snprintf(s->msg, sizeof s->msg, "%s", ctxprof_error_message(&s->pb->error));
    __atomic_store_n(&s->rc, rc + 1000, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE))
        pebs_hot(2000000);
    if (rc == CTXPROF_OK)
        ctxprof_pebs_detach(s->pb, 0);
    return NULL;
}

static void pebs_robust_bounds(void)
{
    static ctxprof_pebs_sample arr[64];
    ctxprof_pebs pb;
    ctxprof_pebs_desc d;
    ctxprof_pebs_stats st;
    pebs_slot s[2];
    pthread_t th[2];
    size_t n;
    int k;
    pebs_desc_fill(&d, CTXPROF_PEBS_READER, 100000);
    d.max_threads = 2;
    d.samples = arr;
    d.samples_cap = 64;
    PEBS_OPEN_OR_SKIP(&pb, &d);
    REQUIRE_EQ(ctxprof_pebs_attach(&pb, 0, 0), CTXPROF_OK);
    for (k = 0; k < 2; k++) { /* the first takes the last slot, the second finds none */
        s[k].pb = &pb;
        s[k].rc = s[k].stop = 0;
        s[k].msg[0] = '\0';
        REQUIRE_EQ(pthread_create(&th[k], NULL, pebs_slot_main, &s[k]), 0);
        while (!__atomic_load_n(&s[k].rc, __ATOMIC_ACQUIRE))
            sched_yield();
    }
    PEBS_UNTIL(pebs_samples_so_far(&pb) >= 200, {
        pebs_hot(10000000);
        ctxprof_pebs_drain(&pb);
    });
    for (k = 0; k < 2; k++) {
        __atomic_store_n(&s[k].stop, 1, __ATOMIC_RELEASE);
        pthread_join(th[k], NULL);
    }
    CHECK_EQ(s[0].rc, 1000 + CTXPROF_OK);
    CHECK_EQ(s[1].rc, 1000 + CTXPROF_ERR_FULL);
    CHECK_CONTAINS(s[1].msg, "max_threads");
    ctxprof_pebs_close(&pb);
    ctxprof_pebs_stats_get(&pb, &st);
    ctxprof_pebs_samples(&pb, &n);
    CHECK_EQ(st.threads, 2);
    CHECK_EQ(n, 64);
    CHECK_GE(st.samples, 200);
    CHECK_EQ(st.array_full, st.samples - 64);
    CHECK_CONTAINS(ctxprof_pebs_explain(&pb), "beyond the array's capacity");
}

/* A sample of IP | CALLCHAIN | REGS_USER that is words long: a callchain
   of 0xc0de0000 + k fills it (w: at least words). */
static size_t pebs_chain_sample(uint64_t *w, size_t words, uint64_t ip)
{
    struct perf_event_header h;
    size_t n = 1, nregs = (size_t)ctxprof__pebs_popcount(PEBS_MASK), nr = words - 4 - nregs, k;
    unsigned b;
    w[n++] = ip;
    w[n++] = nr;
    for (k = 0; k < nr; k++)
        w[n++] = 0xc0de0000u + k;
    w[n++] = 2; /* REGS_USER: 64-bit ABI */
    for (b = 0; b < 64; b++)
        if (PEBS_MASK >> b & 1)
            w[n++] = 0x7000 + b;
    h.type = PERF_RECORD_SAMPLE;
    h.misc = PERF_RECORD_MISC_USER;
    h.size = (uint16_t)(n * 8);
    memcpy(w, &h, sizeof h);
    return n * 8;
}

typedef struct pebs_chain_got {
    uint64_t ips[4];
    size_t n, bad;
} pebs_chain_got;

/* Counts the samples and the callchain entries that are not 0xc0de0000 + k. */
static void pebs_chain_got_fn(void *user, const ctxprof_pebs_sample *s)
{
    pebs_chain_got *g = (pebs_chain_got *)user;
    uint32_t k;
    for (k = 0; k < s->callchain_nr; k++)
        g->bad += s->callchain[k] != 0xc0de0000u + k;
    if (g->n < 4)
        g->ips[g->n] = s->event_ip;
    g->n++;
}

/* A sample too big for the reader's scratch buffer (7296 bytes) straddles
   the end of a 16 KiB ring: it is not copied (counted as bad), and the
   sample after it is read. One that fits the buffer exactly, or does not
   straddle, is read whole. */
static void pebs_ring_straddle_big(void)
{
    static uint64_t w[1024];
    static const struct {
        size_t words;
        uint64_t start; /* where the big sample begins (mod 16 KiB) */
        int read;       /* read whole (1) or refused (0) */
    } cases[] = {{1024, 16384 - 4096, 0},
                 {1024, 2 * 16384 - 8, 0}, /* its header is the ring's last word */
                 {CTXPROF__PEBS_SCRATCH_WORDS, 16384 - 4096, 1},
                 {CTXPROF__PEBS_SCRATCH_WORDS + 1, 16384 - 4096, 0},
                 {1024, 0, 1},
                 {1024, 8192, 1}};
    ctxprof__pebs_fmt f;
    ctxprof__pebs_sink sk;
    size_t c;
    if (!PEBS_MASK)
        SKIP("no register layout for this architecture");
    REQUIRE_EQ(8 * CTXPROF__PEBS_SCRATCH_WORDS, 7296);
    REQUIRE_EQ(ctxprof__pebs_fmt_init(&f, PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN |
                                             PERF_SAMPLE_REGS_USER, PEBS_MASK, 0, 0),
               0);
    for (c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        pebs_fake fk;
        pebs_chain_got g;
        size_t len;
        memset(&g, 0, sizeof g);
        memset(&sk, 0, sizeof sk);
        sk.fn = pebs_chain_got_fn;
        sk.user = &g;
        pebs_fake_init(&fk, 16384);
        fk.head = cases[c].start;
        fk.meta->data_tail = fk.head;
        len = pebs_chain_sample(w, cases[c].words, 0x401000);
        REQUIRE_EQ(len, 8 * cases[c].words);
        pebs_fake_write(&fk, w, len);
        len = pebs_chain_sample(w, 16, 0x402000);
        pebs_fake_write(&fk, w, len);
        pebs_fake_publish(&fk);
        CHECK_EQ(ctxprof__pebs_ring_read(&fk.ring, &f, &sk), 1u + (unsigned)cases[c].read);
        CHECK_EQ(fk.meta->data_tail, fk.head);
        CHECK_EQ(fk.ring.st.bad_records, 1u - (unsigned)cases[c].read);
        CHECK_EQ(fk.ring.st.desyncs, 0);
        CHECK_EQ(fk.ring.st.bytes, 8 * cases[c].words + 128);
        CHECK_EQ(g.bad, 0);
        REQUIRE_EQ(g.n, 1u + (unsigned)cases[c].read);
        if (cases[c].read)
            CHECK_EQ(g.ips[0], 0x401000);
        CHECK_EQ(g.ips[g.n - 1], 0x402000);
        pebs_fake_free(&fk);
    }
}

/* A LOST record is {id, lost}: one of 16 bytes has no count (bad, nothing
   counted, not the next record's first word). */
static void pebs_ring_lost_short(void)
{
    static pebs_rec r;
    static pebs_got g;
    pebs_fake fk;
    ctxprof__pebs_fmt f = pebs_std_fmt();
    ctxprof__pebs_sink sk;
    size_t len;
    if (!PEBS_MASK)
        SKIP("no register layout for this architecture");
    pebs_fake_init(&fk, 4096);
    pebs_sink_init(&sk, &g);
    pebs_rec_begin(&r); /* LOST with its id only */
    pebs_rec_u64(&r, 7);
    REQUIRE_EQ(pebs_rec_end(&r, PERF_RECORD_LOST, 0), 16);
    pebs_fake_write(&fk, r.w, 16);
    len = pebs_std_sample(&r, 1);
    pebs_fake_write(&fk, r.w, len);
    pebs_rec_begin(&r); /* and one of 24 bytes counts */
    pebs_rec_u64(&r, 7);
    pebs_rec_u64(&r, 5);
    pebs_fake_write(&fk, r.w, pebs_rec_end(&r, PERF_RECORD_LOST, 0));
    pebs_fake_write(&fk, r.w, 8); /* LOST_SAMPLES {lost} of 8 bytes: no count either */
    {
        struct perf_event_header h;
        h.type = CTXPROF__PEBS_RECORD_LOST_SAMPLES;
        h.misc = 0;
        h.size = 8;
        memcpy(fk.data + ((fk.head - 8) & (fk.size - 1)), &h, sizeof h);
    }
    len = pebs_std_sample(&r, 2);
    pebs_fake_write(&fk, r.w, len);
    pebs_fake_publish(&fk);
    CHECK_EQ(ctxprof__pebs_ring_read(&fk.ring, &f, &sk), 2);
    CHECK_EQ(fk.ring.st.lost, 5);
    CHECK_EQ(fk.ring.st.lost_samples, 0);
    CHECK_EQ(fk.ring.st.bad_records, 2);
    CHECK_EQ(fk.ring.st.desyncs, 0);
    REQUIRE_EQ(g.n, 2);
    CHECK_EQ(g.s[0].ip, 0x400001);
    CHECK_EQ(g.s[1].ip, 0x400002);
    pebs_fake_free(&fk);
}

/* A stack copy's size is a multiple of 8 (the kernel pads it): one of 12
   bytes is refused even when a dyn_size that fits follows its first word. */
static void pebs_parse_stack_unaligned(void)
{
    static pebs_rec r;
    ctxprof__pebs_fmt f;
    ctxprof_pebs_sample s;
    uint64_t st = PERF_SAMPLE_IP | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
    unsigned b;
    size_t len, at_size;
    if (!PEBS_MASK)
        SKIP("no register layout for this architecture");
    REQUIRE_EQ(ctxprof__pebs_fmt_init(&f, st, PEBS_MASK, 0, 0), 0);
    pebs_rec_begin(&r);
    pebs_rec_u64(&r, 0x1111); /* IP */
    pebs_rec_u64(&r, 2);      /* REGS_USER */
    for (b = 0; b < 64; b++)
        if (PEBS_MASK >> b & 1)
            pebs_rec_u64(&r, 0x7000 + b);
    at_size = r.n;
    pebs_rec_u64(&r, 8); /* STACK_USER size: 8 bytes */
    pebs_rec_u64(&r, 0xabc0);
    pebs_rec_u64(&r, 8); /* dyn_size */
    len = pebs_rec_end(&r, PERF_RECORD_SAMPLE, 0);
    REQUIRE_EQ(ctxprof__pebs_parse(&f, (const unsigned char *)r.w, len, &s), 0);
    CHECK_EQ(s.stack_size, 8);
    for (b = 9; b < 16; b++) { /* 9 .. 15: the same words, read as 8 bytes and some */
        r.w[at_size] = b;
        CHECK_EQ(ctxprof__pebs_parse(&f, (const unsigned char *)r.w, len, &s), -1);
    }
    r.w[at_size] = 4; /* and less than a word */
    CHECK_EQ(ctxprof__pebs_parse(&f, (const unsigned char *)r.w, len, &s), -1);
}

/* CTXPROF_PEBS_LEVEL names a level (or auto); a level in the descriptor,
   or CTXPROF_PEBS_NO_ENV, wins over it. */
static void pebs_level_env(void)
{
    static const struct {
        const char *env;
        int rc, level;
    } cases[] = {{"pebs", CTXPROF_OK, CTXPROF_PEBS_LEVEL_PEBS},
                 {"hw", CTXPROF_OK, CTXPROF_PEBS_LEVEL_HW},
                 {"hardware", CTXPROF_OK, CTXPROF_PEBS_LEVEL_HW},
                 {"sw", CTXPROF_OK, CTXPROF_PEBS_LEVEL_SW},
                 {"software", CTXPROF_OK, CTXPROF_PEBS_LEVEL_SW},
                 {"auto", CTXPROF_OK, 0},
                 {"", CTXPROF_OK, 0},
                 {NULL, CTXPROF_OK, 0},
                 {"HW", CTXPROF_ERR_INVAL, 0},
                 {"hw ", CTXPROF_ERR_INVAL, 0},
                 {"pebs2", CTXPROF_ERR_INVAL, 0},
                 {"s", CTXPROF_ERR_INVAL, 0}};
    const char *old = getenv("CTXPROF_PEBS_LEVEL");
    char saved[256];
    size_t c;
    int lvl;
    snprintf(saved, sizeof saved, "%s", old ? old : "");
    for (c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        ctxprof_pebs pb;
        ctxprof_pebs_desc d;
        memset(&pb, 0, sizeof pb);
        memset(&d, 0, sizeof d);
        if (cases[c].env)
            setenv("CTXPROF_PEBS_LEVEL", cases[c].env, 1);
        else
            unsetenv("CTXPROF_PEBS_LEVEL");
        lvl = -1;
        CHECK_EQ(ctxprof__pebs_forced(&pb, &d, &lvl), cases[c].rc);
        if (cases[c].rc == CTXPROF_OK) {
            CHECK_EQ(lvl, cases[c].level);
        } else {
            CHECK_CONTAINS(ctxprof_error_message(&pb.error), "expected pebs, hw, sw or auto");
        }
        if (ctxprof_test_failed)
            fprintf(stderr, "  CTXPROF_PEBS_LEVEL='%s'\n", cases[c].env ? cases[c].env : "(unset)");
        /* the descriptor's level, or no environment: the variable is not read */
        d.level = CTXPROF_PEBS_LEVEL_SW;
        CHECK_EQ(ctxprof__pebs_forced(&pb, &d, &lvl), CTXPROF_OK);
        CHECK_EQ(lvl, CTXPROF_PEBS_LEVEL_SW);
        d.level = 0;
        d.flags = CTXPROF_PEBS_NO_ENV;
        CHECK_EQ(ctxprof__pebs_forced(&pb, &d, &lvl), CTXPROF_OK);
        CHECK_EQ(lvl, 0);
    }
    if (old)
        setenv("CTXPROF_PEBS_LEVEL", saved, 1);
    else
        unsetenv("CTXPROF_PEBS_LEVEL");
}

static const ctxprof_test_case ctxprof_tests_pebs[] = {
    {"pebs_parse_fields", pebs_parse_fields},
    {"pebs_parse_bounds", pebs_parse_bounds},
    {"pebs_parse_abi0", pebs_parse_abi0},
    {"pebs_parse_stack", pebs_parse_stack},
    {"pebs_ring_wrap", pebs_ring_wrap},
    {"pebs_ring_records", pebs_ring_records},
    {"pebs_ring_desync", pebs_ring_desync},
    {"pebs_ring_off_stack", pebs_ring_off_stack},
    {"pebs_ring_concurrent", pebs_ring_concurrent},
    {"pebs_messages", pebs_messages},
    {"pebs_attr_levels", pebs_attr_levels},
    {"pebs_encode_builtin", pebs_encode_builtin},
    {"pebs_libpfm", pebs_libpfm},
    {"pebs_libpfm_degrade", pebs_libpfm_degrade},
    {"pebs_desc_checks", pebs_desc_checks},
    {"pebs_desc_sinks", pebs_desc_sinks},
    {"pebs_attach_other_process", pebs_attach_other_process},
    {"pebs_desc_limits", pebs_desc_limits},
    {"pebs_live_explain", pebs_live_explain},
    PEBS_LIVE_CORE(PEBS_CASE) /* run again as nobody by pebs_live_nobody */
    {"pebs_live_coroutine", pebs_live_coroutine},
    {"pebs_live_signal_close", pebs_live_signal_close},
    {"pebs_signal_restore", pebs_signal_restore},
    {"pebs_signal_fork", pebs_signal_fork},
    {"pebs_fork_close_manual", pebs_fork_close_manual},
    {"pebs_fork_close_signal", pebs_fork_close_signal},
    {"pebs_fork_open_manual", pebs_fork_open_manual},
    {"pebs_fork_open_signal", pebs_fork_open_signal},
    {"pebs_fork_open_reader", pebs_fork_open_reader},
    {"pebs_signal_fast", pebs_signal_fast},
    {"pebs_slots_reuse", pebs_slots_reuse},
    {"pebs_tid_reuse", pebs_tid_reuse},
    {"pebs_open_twice", pebs_open_twice},
    {"pebs_explain_failed", pebs_explain_failed},
    {"pebs_live_attach_all", pebs_live_attach_all},
    {"pebs_attach_all_pid_ns", pebs_attach_all_pid_ns},
    {"pebs_live_array", pebs_live_array},
    {"pebs_period_floor", pebs_period_floor},
    {"pebs_max_stack", pebs_max_stack},
    {"pebs_open_matrix", pebs_open_matrix},
    {"pebs_live_nobody", pebs_live_nobody},
    {"pebs_seccomp", pebs_seccomp},
    {"pebs_seccomp_errnos", pebs_seccomp_errnos},
    {"pebs_error_fits", pebs_error_fits},
    {"pebs_paranoid", pebs_paranoid},
    {"pebs_mlock", pebs_mlock},
    {"pebs_emfile", pebs_emfile},
    {"pebs_perf_crosscheck", pebs_perf_crosscheck},
    {"pebs_paths_unit", pebs_paths_unit},
    {"pebs_paths_split_extremes", pebs_paths_split_extremes},
    {"pebs_copy_frames_bounds", pebs_copy_frames_bounds},
    {"pebs_paths_frame_set_up", pebs_paths_frame_set_up},
    {"pebs_paths_e2e", pebs_paths_e2e},
    {"pebs_train_unit", pebs_train_unit},
    {"pebs_train_stripped", pebs_train_stripped},
    {"pebs_train_cfa_caller", pebs_train_cfa_caller},
    {"pebs_train_cfa_fold", pebs_train_cfa_fold},
    {"pebs_train_plain", pebs_train_plain},
    {"pebs_drain_noalloc", pebs_drain_noalloc},
    {"pebs_probe_once", pebs_probe_once},
    {"pebs_hardware", pebs_hardware},
    {"pebs_robust_signals", pebs_robust_signals},
    {"pebs_robust_bounds", pebs_robust_bounds},
    {"pebs_ring_straddle_big", pebs_ring_straddle_big},
    {"pebs_ring_lost_short", pebs_ring_lost_short},
    {"pebs_parse_stack_unaligned", pebs_parse_stack_unaligned},
    {"pebs_level_env", pebs_level_env},
    {0, 0}};
