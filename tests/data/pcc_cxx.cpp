// PCC from C++ (built and run by tests/test_pcc.c, pcc_cxx): trains on a
// run in which nothing throws, then checks a run with the same calling
// contexts in which a callee throws and is caught. Prints the new contexts
// each part saw: a context value left stale by the unwinding shows up as
// new. Also compiles an annotated lambda inside an annotated function
// (-Wshadow) and a template call with a comma in CTXPROF_PCC_CALL, and
// prints whether a report's backtrace names functions as C++ spells them.
#define CTXPROF_IMPLEMENTATION
#include "ctxprof.h"
#include <cstdio>
#include <cstring>
#include <stdexcept>

#define SITE CTXPROF_PCC_SITE()

static ctxprof_pcc_set set;
static int demangled = -1;
static volatile int checks;

static void on_report(void *, const ctxprof_pcc_report *r)
{
    demangled = std::strstr(r->backtrace, " seen()+0x") && std::strstr(r->backtrace, " main+0x") &&
                !std::strstr(r->backtrace, "_ZL4seenv");
}

template <typename A, typename B> static B conv(A a)
{
    return static_cast<B>(a) + 1;
}

__attribute__((noinline)) static void seen()
{
    CTXPROF_PCC_FUNC();
    checks += ctxprof_pcc_set_check(&set, CTXPROF_PCC_HERE(SITE), CTXPROF_PCC_LOC); /* no tail call */
}

static void thrower(bool thr)
{
    CTXPROF_PCC_FUNC();
    if (thr)
        throw std::runtime_error("thrown");
    CTXPROF_PCC_CALL(SITE, seen());
}

static void mid(bool thr)
{
    CTXPROF_PCC_SCOPE();
    CTXPROF_PCC_CALL(SITE, thrower(thr));
}

// an unannotated call after the catch reads the thread's value as it is
static long after_call(bool thr)
{
    CTXPROF_PCC_FUNC();
    long r = 0;
    try {
        CTXPROF_PCC_CALL(SITE, mid(thr));
    } catch (const std::exception &) {
    }
    seen();
    CTXPROF_PCC_CALL(SITE, r = conv<int, long>(41));
    auto twice = [](long v) {
        CTXPROF_PCC_FUNC();
        long out = 0;
        CTXPROF_PCC_CALL(SITE, out = conv<long, long>(v) * 2);
        seen();
        return out;
    };
    CTXPROF_PCC_CALL(SITE, r += twice(r));
    return r;
}

// the same with a scope: it restores the value at its own exit only
static long after_scope(bool thr)
{
    CTXPROF_PCC_SCOPE();
    try {
        CTXPROF_PCC_CALL(SITE, mid(thr));
    } catch (const std::exception &) {
    }
    seen();
    return 1;
}

static unsigned long long new_contexts()
{
    ctxprof_pcc_stats st;
    ctxprof_pcc_set_stats(&set, &st);
    return static_cast<unsigned long long>(st.new_seen);
}

int main()
{
    CTXPROF_PCC_FUNC();
    ctxprof_pcc_set_desc d = ctxprof_pcc_set_desc();
    long sum = 0;
    unsigned long long base;
    d.mode = CTXPROF_PCC_TRAIN;
    d.report = on_report;
    if (ctxprof_pcc_set_init(&set, &d) != CTXPROF_OK)
        return 2;
    sum += after_call(false) + after_scope(false);
    ctxprof_pcc_set_mode(&set, CTXPROF_PCC_CHECK);
    sum += after_call(false) + after_scope(false);
    base = new_contexts();
    sum += after_call(true);
    std::printf("call %llu\n", new_contexts() - base);
    base = new_contexts();
    sum += after_scope(true);
    std::printf("scope %llu\n", new_contexts() - base);
    std::printf("sum %ld\n", sum);
    CTXPROF_PCC_CALL(SITE, seen()); /* a context not trained: reported */
    std::printf("demangled %d\n", demangled);
    ctxprof_pcc_set_deinit(&set);
    return 0;
}
