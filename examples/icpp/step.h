/* step.h - every instruction a sample: ICPP's resolution checked against
   the true call path at each instruction of a region of code.

   step_begin() sets the x86 trap flag, so the CPU raises SIGTRAP after each
   instruction until step_end(). The handler follows the true call stack
   from what each instruction did (a call: SP down 8 with a return address
   just past the previous instruction on top; a return: SP up 8 after a
   `ret`; a jump to another function's first byte: a tail call), resolves
   the interrupted (PC, SP, FP) with ctxprof_icpp_resolve and classifies
   the result with ctxprof_icpp_evaluate against that path. Unlike a timer,
   it misses no instruction: prologues, epilogues and argument pushes
   count as much as they run.

   Used by examples/icpp/calc.c (`calc step`) and tests/test_icpp.c. Limits:
   one thread; no longjmp, coroutine switch or signal handler of the
   program's own inside the region (the tracker would lose the stack: such
   instructions are counted in `lost`); about 10 us per instruction (a
   signal each). Linux x86-64; the functions of this file are not
   instrumented, so -finstrument-functions builds may include it. */
#ifndef CTXPROF_EXAMPLE_STEP_H
#define CTXPROF_EXAMPLE_STEP_H

#include <signal.h>
#include <string.h>
#include <ucontext.h>

#define STEP_NI __attribute__((no_instrument_function))
#define STEP_MAX 4096 /* tracked frames */

typedef struct step_tally {
    long steps;   /* instructions run */
    long in_map;  /* of which in a map function that is the tracked path's leaf */
    long kind[6]; /* those by ctxprof_icpp_evaluate's verdict (CTXPROF_ICPP_PRECISE ...) */
    long lost;    /* in a map function that is not the tracked leaf: the stack was lost */
} step_tally;

static struct {
    const ctxprof_icpp_map *m;
    unsigned max_walk;
    uintptr_t base, prev_pc, prev_sp;
    long frame[STEP_MAX]; /* map function of each frame, -1 for others */
    int depth;
    step_tally t;
} step_s;

/* The tracker: what the instruction just run did to the call stack. */
STEP_NI static void step_track(uintptr_t pc, uintptr_t sp, long f)
{
    uintptr_t pp = step_s.prev_pc, top = *(const uintptr_t *)sp;
    if (!pp)
        return;
    if (sp == step_s.prev_sp - 8 && top > pp && top <= pp + 15 && pc != top) { /* call */
        if (step_s.depth < STEP_MAX)
            step_s.frame[step_s.depth++] = f;
    } else if (sp == step_s.prev_sp + 8 && (*(const unsigned char *)pp == 0xc3 ||
                                            (((const unsigned char *)pp)[0] == 0xf3 &&
                                             ((const unsigned char *)pp)[1] == 0xc3))) {
        if (step_s.depth > 0) /* ret, rep ret */
            step_s.depth--;
    } else if (step_s.depth > 0 && f != step_s.frame[step_s.depth - 1] && f >= 0 &&
               ctxprof_icpp_map_func_of_pc(step_s.m, pc - 1) != f) {
        step_s.frame[step_s.depth - 1] = f; /* a jump to a function's first byte: tail call */
    }
}

STEP_NI static void step_on_trap(int sig, siginfo_t *si, void *ucv)
{
    const ucontext_t *uc = (const ucontext_t *)ucv;
    /* gregs indices of the x86-64 ABI (REG_RIP, REG_RSP, REG_RBP) */
    uintptr_t pc = (uintptr_t)uc->uc_mcontext.gregs[16];
    uintptr_t sp = (uintptr_t)uc->uc_mcontext.gregs[15];
    uintptr_t fp = (uintptr_t)uc->uc_mcontext.gregs[10];
    long f = ctxprof_icpp_map_func_of_pc(step_s.m, pc);
    (void)sig;
    (void)si;
    step_s.t.steps++;
    step_track(pc, sp, f);
    step_s.prev_pc = pc;
    step_s.prev_sp = sp;
    if (f < 0)
        return;
    if (step_s.depth == 0 || step_s.frame[step_s.depth - 1] != f) {
        step_s.t.lost++;
        return;
    }
    {
        const char *names[STEP_MAX];
        size_t n = 0;
        int i;
        ctxprof_icpp_result r;
        for (i = 0; i < step_s.depth; i++)
            if (step_s.frame[i] >= 0)
                names[n++] = ctxprof_icpp_map_func_name(step_s.m, (uint32_t)step_s.frame[i]);
        ctxprof_icpp_resolve(step_s.m, pc, sp, step_s.base, fp, NULL, step_s.max_walk, &r);
        step_s.t.kind[ctxprof_icpp_evaluate(step_s.m, &r, ctxprof_icpp_path_key(names, n), NULL)]++;
        step_s.t.in_map++;
    }
}

/* Starts stepping: called from the function `root` of the map's paths
   (e.g. "main"), on a thread with an ICPP base; max_walk frames of
   partial walk per sample (0: PC and SP alone). */
STEP_NI __attribute__((noinline)) static void step_begin(const ctxprof_icpp_map *m,
                                                         const char *root, unsigned max_walk)
{
    struct sigaction sa;
    memset(&step_s, 0, sizeof step_s);
    step_s.m = m;
    step_s.max_walk = max_walk;
    step_s.base = ctxprof_icpp_thread_base();
    step_s.frame[0] = ctxprof_icpp_map_func(m, root);
    step_s.frame[1] = -1; /* step_begin, until it returns */
    step_s.depth = 2;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = step_on_trap;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTRAP, &sa, NULL);
    /* TF takes effect after the instruction that follows popf: the nops
       keep the first traps inside this function */
    __asm__ volatile("pushfq; orq $0x100, (%%rsp); popfq; nop; nop" ::: "memory", "cc");
}

/* Stops stepping; the counts into *out. */
STEP_NI __attribute__((noinline)) static void step_end(step_tally *out)
{
    __asm__ volatile("pushfq; andq $~0x100, (%%rsp); popfq" ::: "memory", "cc");
    signal(SIGTRAP, SIG_DFL);
    *out = step_s.t;
}

#endif
