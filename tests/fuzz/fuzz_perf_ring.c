/* libFuzzer target: the perf_event ring-buffer reader (ctxprof_pebs.h).
   The input chooses the sample layout (which optional fields, which extra
   registers) and the ring's head and tail, and fills the ring's data area:
   records of any type and size, truncated, straddling the end, or garbage.
   The reader must not read outside the ring, must consume exactly up to the
   head, and every sample it delivers must lie within the record sizes. */
#define CTXPROF_IMPLEMENTATION
#include "../../ctxprof_pebs.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define RING 4096u

static uint64_t delivered;

static void on_sample(void *user, const ctxprof_pebs_sample *s)
{
    (void)user;
    (void)s;
    delivered++;
}

static uint64_t take(const uint8_t **p, size_t *n)
{
    uint64_t v = 0;
    size_t i;
    for (i = 0; i < 8 && *n; i++, (*p)++, (*n)--)
        v |= (uint64_t)**p << (8 * i);
    return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ctxprof__pebs_fmt f;
    ctxprof__pebs_ring r;
    ctxprof__pebs_sink sk;
    struct perf_event_mmap_page *meta;
    unsigned char *ring;
    uint64_t sel = take(&data, &size), regs = take(&data, &size), tail = take(&data, &size);
    uint64_t head, got;
    uint64_t st = PERF_SAMPLE_REGS_USER | (sel & (uint64_t)CTXPROF__PEBS_SUPPORTED);
    uint64_t mask = (1ull << CTXPROF__PEBS_REG_SP) | (1ull << CTXPROF__PEBS_REG_IP) |
                    (regs & 0xFFFFFFull);
    st &= ~(uint64_t)PERF_SAMPLE_REGS_INTR;
    if (ctxprof__pebs_fmt_init(&f, st, mask, 0, 0) != 0)
        return 0;
    meta = (struct perf_event_mmap_page *)calloc(1, sizeof *meta);
    ring = (unsigned char *)calloc(1, RING);
    if (!meta || !ring)
        abort();
    memcpy(ring, data, size < RING ? size : RING);
    /* tail anywhere (often 8-aligned), head a little ahead (sometimes far) */
    tail = (sel >> 48) & 1 ? tail : tail & ~7ull;
    head = tail + (size < RING ? size : RING);
    if ((sel >> 56) == 0xFF)
        head += RING * 2; /* a head beyond the ring: desync */
    meta->data_tail = tail;
    meta->data_head = head;
    memset(&r, 0, sizeof r);
    r.fd = -1;
    r.meta = meta;
    r.data = ring;
    r.size = RING;
    r.mask = RING - 1;
    r.stack_base = (sel >> 40) & 1 ? 0x7fff00000000ull : 0;
    memset(&sk, 0, sizeof sk);
    sk.fn = on_sample;
    delivered = 0;
    got = ctxprof__pebs_ring_read(&r, &f, &sk);
    if (meta->data_tail != head || got != delivered || got > (head - tail) / 16 + 1)
        abort();
    free(meta);
    free(ring);
    return 0;
}
