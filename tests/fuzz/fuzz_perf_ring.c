/* libFuzzer target: the perf_event ring-buffer reader (ctxprof_pebs.h).
   The input chooses the sample layout (which optional fields, which extra
   registers, user or interrupt registers for IP and SP) and the ring's
   head and tail, and fills the ring's data area: records of any type and
   size, truncated, straddling the end, or garbage. The ring (16 KiB) is
   larger than the reader's scratch buffer, and a selector bit tiles the
   input over all of it, so a straddling record may be too big to copy.
   The reader must not read outside the ring, must consume exactly up to
   the head, and every sample it delivers must lie within the record
   sizes, its callchain and stack copy inside the ring or the scratch copy
   of a straddling record. */
#define CTXPROF_IMPLEMENTATION
#include "../../ctxprof_pebs.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define RING 16384u

static uint64_t delivered;
static const unsigned char *ring_lo; /* the data area of the ring being read */

/* [p, p + len) lies inside the ring, or in a buffer on the reader's stack:
   between this frame and the scratch buffer's size (and the reader's frame)
   above it. */
static void within(const void *p, size_t len, const void *frame)
{
    const unsigned char *b = (const unsigned char *)p, *f = (const unsigned char *)frame;
    if (b >= ring_lo && b <= ring_lo + RING && len <= (size_t)(ring_lo + RING - b))
        return;
    if (b > f && b - f < 65536 && len <= 8 * CTXPROF__PEBS_SCRATCH_WORDS &&
        (size_t)(b - f) + len < 65536)
        return;
    abort();
}

static void on_sample(void *user, const ctxprof_pebs_sample *s)
{
    volatile unsigned char here = 0;
    (void)user;
    if (s->callchain_nr) {
        if (!s->callchain)
            abort();
        within(s->callchain, 8 * (size_t)s->callchain_nr, (const void *)&here);
    }
    if (s->stack) {
        if (!s->stack_size)
            abort();
        within(s->stack, s->stack_size, (const void *)&here);
    }
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
    uint64_t head, got, fill;
    int use_intr = (int)((sel >> 42) & 1);
    uint64_t st = (use_intr ? PERF_SAMPLE_REGS_INTR : PERF_SAMPLE_REGS_USER) |
                  (sel & (uint64_t)CTXPROF__PEBS_SUPPORTED);
    uint64_t need = (1ull << CTXPROF__PEBS_REG_SP) | (1ull << CTXPROF__PEBS_REG_IP);
    uint64_t mask = need | (regs & 0xFFFFFFull), imask = need | ((regs >> 24) & 0xFFFFFFull);
    size_t k;
    if (ctxprof__pebs_fmt_init(&f, st, mask, imask, use_intr) != 0)
        return 0;
    meta = (struct perf_event_mmap_page *)calloc(1, sizeof *meta);
    ring = (unsigned char *)calloc(1, RING);
    if (!meta || !ring)
        abort();
    /* tail anywhere (often 8-aligned), head a little ahead (sometimes far);
       the input written from the tail on (wrapping at the end, as the
       kernel writes), once or (bit 41) over and over, filling the ring */
    tail = (sel >> 48) & 1 ? tail : tail & ~7ull;
    fill = size < RING ? size : RING;
    if (((sel >> 41) & 1) && size)
        fill = RING;
    for (k = 0; k < fill; k++)
        ring[(tail + k) & (RING - 1)] = data[k % size];
    head = tail + fill;
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
    ring_lo = ring;
    got = ctxprof__pebs_ring_read(&r, &f, &sk);
    if (meta->data_tail != head || got != delivered || got > (head - tail) / 16 + 1)
        abort();
    free(meta);
    free(ring);
    return 0;
}
