/* zipfwalk v1 workers (../shared/workloads/zipfwalk.md, section 1): 256
   instrumented workers f0..f255 with one indirect call site each, and the
   instrumented driver of phase 2 (id 0, "main" of the workload).

   This file is compiled three times by the Makefile with different
   prefixes: plain (uninstrumented), -finstrument-functions with the
   library's hooks, and -finstrument-functions with the hook symbols
   renamed to empty functions (objcopy), so that all configurations run in
   one process. Every helper is no_instrument_function and inlined. */
#include <stddef.h>
#include <stdint.h>

#ifndef ZW_PFX
#error "define ZW_PFX (the symbol prefix of this copy)"
#endif
#define ZW_CAT2(a, b) a##b
#define ZW_CAT(a, b) ZW_CAT2(a, b)
#define ZW(name) ZW_CAT(ZW_PFX, name)

#define ZW_HELPER static inline __attribute__((always_inline, no_instrument_function))
/* noclone is gcc's (clang does not clone functions for constant arguments) */
#if defined(__clang__)
#define ZW_NOINLINE __attribute__((noinline))
#else
#define ZW_NOINLINE __attribute__((noinline, noclone))
#endif

struct zw_state {
    uint64_t q;
    unsigned lvl, D;
    uint64_t acc, calls;
};

typedef void (*zw_fn)(struct zw_state *);

ZW_HELPER uint64_t zw_mix64(uint64_t z)
{
    z += 0x9E3779B97F4A7C15u;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

ZW_HELPER unsigned zw_digit(uint64_t q, unsigned l)
{
    if (l <= 10)
        return (unsigned)((q >> (2 * (10 - l))) & 3);
    return (unsigned)(zw_mix64((q << 5) | l) >> 61);
}

extern const zw_fn ZW(F)[256];

/* One worker; hex digits h, l give the id 0xhl and the name f_hl. */
#define ZW_WORKER(h, l) ZW_WORKER_(ZW_CAT(ZW(f_), ZW_CAT(h, l)), ZW_CAT(0x, ZW_CAT(h, l)))
#define ZW_WORKER_(name, id)                                                                       \
    ZW_NOINLINE void name(struct zw_state *w);                                                     \
    ZW_NOINLINE void name(struct zw_state *w)                                                      \
    {                                                                                              \
        unsigned l, next;                                                                          \
        w->calls += 1;                                                                             \
        w->acc = (w->acc ^ (uint64_t)(id)) * 0x100000001B3u;                                       \
        if (w->lvl == w->D)                                                                        \
            return;                                                                                \
        l = w->lvl + 1;                                                                            \
        next = ((unsigned)(id)*31u + zw_digit(w->q, l) * 7u + l) & 255u;                           \
        w->lvl = l;                                                                                \
        ZW(F)[next](w);                                                                            \
        w->lvl = l - 1;                                                                            \
        w->acc = w->acc + (uint64_t)(id);                                                          \
    }
#define ZW_W16(h)                                                                                  \
    ZW_WORKER(h, 0) ZW_WORKER(h, 1) ZW_WORKER(h, 2) ZW_WORKER(h, 3) ZW_WORKER(h, 4)                \
        ZW_WORKER(h, 5) ZW_WORKER(h, 6) ZW_WORKER(h, 7) ZW_WORKER(h, 8) ZW_WORKER(h, 9)            \
            ZW_WORKER(h, a) ZW_WORKER(h, b) ZW_WORKER(h, c) ZW_WORKER(h, d) ZW_WORKER(h, e)        \
                ZW_WORKER(h, f)
ZW_W16(0)
ZW_W16(1)
ZW_W16(2)
ZW_W16(3)
ZW_W16(4)
ZW_W16(5)
ZW_W16(6)
ZW_W16(7)
ZW_W16(8)
ZW_W16(9)
ZW_W16(a)
ZW_W16(b)
ZW_W16(c)
ZW_W16(d)
ZW_W16(e)
ZW_W16(f)

#define ZW_REF(h, l) ZW_CAT(ZW(f_), ZW_CAT(h, l)),
#define ZW_R16(h)                                                                                  \
    ZW_REF(h, 0) ZW_REF(h, 1) ZW_REF(h, 2) ZW_REF(h, 3) ZW_REF(h, 4) ZW_REF(h, 5) ZW_REF(h, 6)     \
        ZW_REF(h, 7) ZW_REF(h, 8) ZW_REF(h, 9) ZW_REF(h, a) ZW_REF(h, b) ZW_REF(h, c)              \
            ZW_REF(h, d) ZW_REF(h, e) ZW_REF(h, f)
const zw_fn ZW(F)[256] = {ZW_R16(0) ZW_R16(1) ZW_R16(2) ZW_R16(3) ZW_R16(4) ZW_R16(5)
                              ZW_R16(6) ZW_R16(7) ZW_R16(8) ZW_R16(9) ZW_R16(a) ZW_R16(b)
                                  ZW_R16(c) ZW_R16(d) ZW_R16(e) ZW_R16(f)};

/* Phase 2 (section 2): one walk per stored rank; from walk `change` on the
   permutation multiplier is `mult2` (the phase-change variant; change = n
   for the original workload). Instrumented: this is the workload's main. */
void ZW(run)(const uint32_t *ranks, size_t n, size_t change, uint64_t mult2, struct zw_state *w);
void ZW(run)(const uint32_t *ranks, size_t n, size_t change, uint64_t mult2, struct zw_state *w)
{
    size_t i;
    uint64_t mult = 0x9E3779B1u;
    for (i = 0; i < n; i++) {
        uint64_t q;
        if (i == change)
            mult = mult2;
        q = ((uint64_t)ranks[i] * mult) & ((1u << 20) - 1);
        w->q = q;
        w->D = 10 + (unsigned)(zw_mix64(q) % 21);
        w->lvl = 1;
        ZW(F)[(0u * 31u + zw_digit(q, 1) * 7u + 1u) & 255u](w);
    }
}
