/* Issue 6, benchmark 2: the cost per sample of the drain path.

   A ring laid out as the kernel writes it (one perf_event_mmap_page, then a
   256 KiB data area, the default ring) is filled with PERF_RECORD_SAMPLE
   records of the default layout (IP | TID | REGS_USER{bp,sp,ip}: 56 bytes)
   and drained by ctxprof__pebs_ring_read, the function the reader thread,
   ctxprof_pebs_drain() and the signal handler all use. Records start at a
   different offset each round, so some straddle the end and take the copy
   path, as in a live ring.

     pebs_drain                 table of ns per sample (monotonic clock),
                                medians of 31 rounds, min-max
     pebs_drain callgrind       one drain of one full ring, for
                                valgrind --tool=callgrind --toggle-collect=pebs_bench_drain
     pebs_drain callgrind-paths T   one pass of the pipeline (T = 0: paths, 1: + HCCT)
                                over its samples, for --toggle-collect=pebs_bench_paths

   Sinks: a callback that sums the IPs; the caller's array; the callback
   with heights (stack base set); the callback (no heights: read it against
   the first row) with the ring cold: every line of the ring and of its
   control page flushed to memory (clflush, then mfence) before each drain,
   the worst case of a ring the kernel wrote from another CPU. Off x86-64, a
   buffer twice the last-level cache's size (sysfs; 64 MiB if unknown) is
   walked instead.

   Then the pipeline's cost per sample (ctxprof_pebs_paths_sample, no ring):
   a map of 1,000 paths bound to this program's functions, samples that are
   precise, ambiguous (resolved by a one-frame walk in a stack copy), or
   outside the map, with and without an HCCT at the end. */
#define _GNU_SOURCE
#define CTXPROF_IMPLEMENTATION
#include "../ctxprof_pebs.h"

#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RING (256u * 1024u)
#define ROUNDS 31

static struct perf_event_mmap_page *meta;
static unsigned char *data;
static ctxprof__pebs_ring ring;
static ctxprof__pebs_fmt fmt;
static uint64_t head;
static ctxprof_pebs_sample *arr;
static size_t arr_len;
static volatile uint64_t ip_sum;
/* How the cold variant evicts the ring: clflush on x86-64 (-DPD_NO_CLFLUSH
   tries the other way), else by walking flush_buf. */
#if defined(__x86_64__) && defined(__SSE2__) && !defined(PD_NO_CLFLUSH)
#define PD_CLFLUSH 1
#else
#define PD_CLFLUSH 0
static unsigned char *flush_buf;
static size_t flush_len;
#endif

static void sum_fn(void *user, const ctxprof_pebs_sample *s)
{
    (void)user;
    ip_sum += s->ip + s->height;
}

/* Writes one sample record in the kernel's layout at the head. */
static void put_sample(uint64_t seq)
{
    uint64_t w[7];
    uint32_t tid[2] = {1000, 1001};
    struct perf_event_header h;
    size_t i;
    h.type = PERF_RECORD_SAMPLE;
    h.misc = PERF_RECORD_MISC_USER;
    h.size = (uint16_t)sizeof w;
    memcpy(&w[0], &h, sizeof h);
    w[1] = 0x401000 + (seq & 0xfff); /* IP */
    memcpy(&w[2], tid, sizeof tid);  /* TID */
    w[3] = 2;                        /* REGS_USER abi 64 */
    w[4] = 0x7ffd0000 + 64 * (seq & 63);
    w[5] = 0x7ffc0000 - 16 * (seq & 255); /* sp */
    w[6] = w[1];
    for (i = 0; i < sizeof w; i++)
        data[(head + i) & (RING - 1)] = ((const unsigned char *)w)[i];
    head += sizeof w;
}

/* Fills the ring (from the current tail) with n samples. */
static void fill(size_t n)
{
    size_t k;
    head = meta->data_tail;
    for (k = 0; k < n; k++)
        put_sample(k);
    __atomic_store_n(&meta->data_head, head, __ATOMIC_RELEASE);
}

__attribute__((noinline)) uint64_t pebs_bench_drain(const ctxprof__pebs_sink *sk);
uint64_t pebs_bench_drain(const ctxprof__pebs_sink *sk)
{
    return ctxprof__pebs_ring_read(&ring, &fmt, sk);
}

#if defined(CTXPROF_ICPP_NO_HEIGHT) && defined(CTXPROF_HCCT_NAMED)
/* Functions of this program for the map to bind to. */
__attribute__((noinline)) void pebs_bench_f0(void);
__attribute__((noinline)) void pebs_bench_f1(void);
__attribute__((noinline)) void pebs_bench_f2(void);
void pebs_bench_f0(void)
{
    ip_sum++;
}
void pebs_bench_f1(void)
{
    ip_sum += 2;
}
void pebs_bench_f2(void)
{
    ip_sum += 3;
}

#define NSMP 4096
static ctxprof_pebs_sample psmp[NSMP];
static uint64_t pwords[NSMP][2];

__attribute__((noinline)) void pebs_bench_paths(ctxprof_pebs_paths *pp);
void pebs_bench_paths(ctxprof_pebs_paths *pp)
{
    size_t i;
    for (i = 0; i < NSMP; i++)
        ctxprof_pebs_paths_sample(pp, &psmp[i]);
}
#endif

#if !PD_CLFLUSH
/* Bytes of the last-level cache (cpu0's highest cache index in sysfs), or 0. */
static size_t llc_bytes(void)
{
    char path[96], buf[32];
    size_t best = 0;
    int i;
    for (i = 0; i < 8; i++) {
        FILE *f;
        unsigned long v;
        char unit = 0;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        f = fopen(path, "r");
        if (!f)
            continue;
        if (fgets(buf, sizeof buf, f) && sscanf(buf, "%lu%c", &v, &unit) >= 1) {
            size_t b = (size_t)v * (unit == 'K' ? 1024u : unit == 'M' ? 1024u * 1024u : 1u);
            if (b > best)
                best = b;
        }
        fclose(f);
    }
    return best;
}
#endif

/* Evicts the ring (data and control page) from every cache level. */
static void evict_ring(void)
{
#if PD_CLFLUSH
    size_t k;
    for (k = 0; k < RING; k += 64)
        __builtin_ia32_clflush(data + k);
    for (k = 0; k < sizeof *meta; k += 64)
        __builtin_ia32_clflush((const unsigned char *)meta + k);
    __builtin_ia32_mfence(); /* the flushes complete before the drain reads */
#else
    size_t k;
    for (k = 0; k < flush_len; k += 64)
        flush_buf[k]++;
#endif
}

/* One drain of a full ring by a sink; ns per sample. */
typedef struct variant {
    const char *name;
    ctxprof__pebs_sink *sk;
    uint64_t base; /* stack base: heights computed when set */
    int cold;      /* the ring evicted from the caches first */
    double per[ROUNDS];
} variant;

static double drain_once(const variant *v, int r)
{
    double t0, t1;
    size_t n = (RING - 64) / 56;
    uint64_t got;
    ring.stack_base = v->base;
    /* move the start so records straddle the end in different places */
    meta->data_tail += 8 * (uint64_t)(r % 7);
    meta->data_head = meta->data_tail;
    fill(n);
    if (v->cold)
        evict_ring();
    arr_len = 0;
    t0 = bench_now_ns();
    got = pebs_bench_drain(v->sk);
    t1 = bench_now_ns();
    if (got != n) {
        fprintf(stderr, "pebs_drain: drained %llu of %zu samples\n", (unsigned long long)got, n);
        exit(1);
    }
    return (t1 - t0) / (double)n;
}

/* "| name | median | min-max |" of ROUNDS values (sorts them). */
static void row(const char *name, double *per)
{
    double med = bench_median(per, ROUNDS);
    printf("| %-34s | %7.1f | %5.1f-%-5.1f |\n", name, med, per[0], per[ROUNDS - 1]);
}

/* The drain table: the variants alternate, their order rotating per round. */
static void drain_table(ctxprof__pebs_sink *cb, ctxprof__pebs_sink *to_arr)
{
    variant vs[4] = {{"callback", NULL, 0, 0, {0}},
                     {"callback + heights", NULL, 0x7fff0000, 0, {0}},
                     {"caller's array", NULL, 0, 0, {0}},
                     {"callback, ring cold (flushed)", NULL, 0, 1, {0}}};
    int r, v;
    vs[0].sk = vs[1].sk = vs[3].sk = cb;
    vs[2].sk = to_arr;
    printf("drain cost per sample, %u KiB ring of 56-byte samples (%u per drain), "
           "median of %d drains, variants alternating\n\n",
           RING / 1024, (RING - 64) / 56, ROUNDS);
    printf("| %-34s | ns/smp  | min-max     |\n", "sink");
    printf("|------------------------------------|---------|-------------|\n");
    for (r = 0; r < ROUNDS; r++)
        for (v = 0; v < 4; v++)
            vs[(v + r) % 4].per[r] = drain_once(&vs[(v + r) % 4], r);
    for (v = 0; v < 4; v++)
        row(vs[v].name, vs[v].per);
}

#if defined(CTXPROF_ICPP_NO_HEIGHT) && defined(CTXPROF_HCCT_NAMED)
/* The pipeline behind the drain: two pipelines (plain, and feeding an
   HCCT) over the same samples, alternating; or, with cg = 0 or 1, one pass
   of that pipeline for callgrind. */
static int pipeline_table(int cg)
{
    static char text[1 << 18];
    ctxprof_icpp_map m;
    ctxprof_symtab st;
    ctxprof_error err;
    ctxprof_pebs_paths pp[2];
    ctxprof_pebs_paths_desc pd;
    ctxprof_hcct tree;
    ctxprof_hcct_desc hd;
    uintptr_t f0 = (uintptr_t)pebs_bench_f0, f2 = (uintptr_t)pebs_bench_f2;
    const uint64_t base = 0x7f0000000000ull;
    double per[2][ROUNDS];
    size_t len = 0, i;
    int k, t, r;
    /* 1,000 paths: a distinct f1/f2 sequence (the bits of k) then f0, at height
       16k + 16 (precise); and f2 f0 / f1 f0 at height 8 (ambiguous) */
    memset(&m, 0, sizeof m); /* parse replaces what m holds: start from empty */
    memset(&st, 0, sizeof st);
    len += (size_t)snprintf(text + len, sizeof text - len, "ctxprof-paths 1\n");
    len += (size_t)snprintf(text + len, sizeof text - len,
                            "path 3 8 pebs_bench_f2 pebs_bench_f0\npath 1 8 pebs_bench_f1 "
                            "pebs_bench_f0\n");
    for (k = 1; k < 999 && len < sizeof text - 400; k++) {
        int j;
        len += (size_t)snprintf(text + len, sizeof text - len, "path 1 %d", 16 * k + 16);
        for (j = 9; j >= 0; j--)
            if (k >> j)
                len += (size_t)snprintf(text + len, sizeof text - len, " pebs_bench_f%d",
                                        1 + (k >> j & 1));
        len += (size_t)snprintf(text + len, sizeof text - len, " pebs_bench_f0\n");
    }
    if (ctxprof_icpp_map_parse(&m, text, len, "bench", &err) || ctxprof_symtab_init(&st, &err) ||
        ctxprof_icpp_map_bind(&m, &st, &err)) {
        fprintf(stderr, "pebs_drain: %s\n", ctxprof_error_message(&err));
        return 1;
    }
    for (i = 0; i < NSMP; i++) {
        ctxprof_pebs_sample *x = &psmp[i];
        memset(x, 0, sizeof *x);
        x->period = 1;
        switch (i % 4) {
        case 0: /* precise */
        case 1:
            x->ip = f0 + 1;
            x->height = 16 * (i % 998 + 1) + 16;
            break;
        case 2: /* ambiguous, resolved by one frame of the stack copy */
            x->ip = f0 + 1;
            x->height = 8;
            pwords[i][0] = base - 8;
            pwords[i][1] = f2 + 1;
            x->bp = base - 64;
            x->stack_addr = x->bp;
            x->stack = (const unsigned char *)pwords[i];
            x->stack_size = 16;
            break;
        default: /* outside the map */
            x->ip = 0x10;
            x->height = 8;
        }
        x->sp = base - x->height;
    }
    memset(&hd, 0, sizeof hd);
    hd.metric = CTXPROF_HCCT_SAMPLES;
    hd.namer = ctxprof_pebs_paths_namer;
    hd.namer_user = &m;
    if (ctxprof_hcct_init(&tree, &hd, &err))
        return 1;
    for (t = 0; t < 2; t++) {
        memset(&pd, 0, sizeof pd);
        pd.map = &m;
        pd.max_walk = 4;
        if (t) {
            pd.on_path = ctxprof_pebs_paths_to_hcct;
            pd.user = &tree;
        }
        if (ctxprof_pebs_paths_init(&pp[t], &pd, &err))
            return 1;
    }
    if (cg >= 0) {
        pebs_bench_paths(&pp[cg]);
        printf("samples %d\n", NSMP);
    } else {
        printf("\npipeline cost per sample (ctxprof_pebs_paths_sample; 1,000-path map; 1/2 "
               "precise, 1/4 ambiguous + 1-frame walk, 1/4 outside; median of %d x %d, "
               "alternating)\n\n",
               ROUNDS, NSMP);
        printf("| %-34s | ns/smp  | min-max     |\n", "end of the pipeline");
        printf("|------------------------------------|---------|-------------|\n");
        for (r = 0; r < ROUNDS; r++)
            for (k = 0; k < 2; k++) {
                double t0;
                t = (k + r) % 2;
                t0 = bench_now_ns();
                pebs_bench_paths(&pp[t]);
                per[t][r] = (bench_now_ns() - t0) / NSMP;
            }
        for (t = 0; t < 2; t++) {
            if (pp[t].st.precise != (uint64_t)ROUNDS * NSMP * 3 / 4) {
                fprintf(stderr, "pebs_drain: %llu precise, expected %llu\n",
                        (unsigned long long)pp[t].st.precise,
                        (unsigned long long)ROUNDS * NSMP * 3 / 4);
                return 1;
            }
            row(t ? "paths + HCCT (lazy Space Saving)" : "paths (per-path weights)", per[t]);
        }
    }
    for (t = 0; t < 2; t++)
        ctxprof_pebs_paths_deinit(&pp[t]);
    ctxprof_hcct_deinit(&tree);
    ctxprof_icpp_map_deinit(&m);
    ctxprof_symtab_deinit(&st);
    return 0;
}
#endif

int main(int argc, char **argv)
{
    ctxprof__pebs_sink cb, to_arr;
    int rc = 0;
    meta = (struct perf_event_mmap_page *)calloc(1, sizeof *meta);
    data = (unsigned char *)calloc(1, RING);
#if !PD_CLFLUSH
    flush_len = 2 * llc_bytes();
    if (!flush_len)
        flush_len = (size_t)64 << 20;
    flush_buf = (unsigned char *)calloc(1, flush_len);
    if (!flush_buf)
        return 1;
#endif
    arr = (ctxprof_pebs_sample *)calloc(RING / 56 + 1, sizeof *arr);
    if (!meta || !data || !arr)
        return 1;
    ring.fd = -1;
    ring.meta = meta;
    ring.data = data;
    ring.size = RING;
    ring.mask = RING - 1;
    if (ctxprof__pebs_fmt_init(&fmt, PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_REGS_USER,
                               CTXPROF__PEBS_REGS, 0, 0) != 0)
        return 1;
    fmt.period = 333333;
    memset(&cb, 0, sizeof cb);
    cb.fn = sum_fn;
    memset(&to_arr, 0, sizeof to_arr);
    to_arr.arr = arr;
    to_arr.cap = RING / 56 + 1;
    to_arr.len = &arr_len;

    if (argc > 1 && strcmp(argv[1], "callgrind") == 0) {
        size_t n = (RING - 64) / 56;
        fill(n);
        printf("samples %zu drained %llu\n", n, (unsigned long long)pebs_bench_drain(&cb));
    } else if (argc > 2 && strcmp(argv[1], "callgrind-paths") == 0) {
#if defined(CTXPROF_ICPP_NO_HEIGHT) && defined(CTXPROF_HCCT_NAMED)
        rc = pipeline_table(atoi(argv[2]) ? 1 : 0);
#endif
    } else {
        drain_table(&cb, &to_arr);
#if defined(CTXPROF_ICPP_NO_HEIGHT) && defined(CTXPROF_HCCT_NAMED)
        rc = pipeline_table(-1);
#endif
    }
    free(meta);
    free(data);
#if !PD_CLFLUSH
    free(flush_buf);
#endif
    free(arr);
    return rc;
}
