#!/bin/sh
# ctxprof_pebs demos.
#  1. hotfuncs: three threads sampled with no instrumentation; where the time
#     goes by function and, for one leaf, by stack height (recursion depth).
#  2. calc (the ICPP example program, when built): its path map trained once
#     with the -finstrument-functions hooks, then the same binary profiled
#     with the hooks off and nothing else added: the kernel samples (PC, SP)
#     at 1 kHz, ctxprof_pebs turns each sample into a call path (CID lookup,
#     then a walk of a few frames in the sample's stack copy when the CID is
#     ambiguous) and the HCCT aggregates them; the kernel's frame-pointer
#     callchain of each sample checks the result.
#  3. calc built plain (no hooks, frame pointers): its path map trained from
#     the kernel's callchains of its own samples (ctxprof_pebs_train), then a
#     separate run profiled with it (what the hooks build costs over the
#     plain one is measured by bench/icpp_bench.sh).
set -e
B=build/examples/pebs
echo "1. hotfuncs: sample three threads for 1 s"
$B/hotfuncs 1 | sed 's/^/   /'
if [ ! -x $B/calc_pebs ]; then
    echo "2. (calc_pebs not built: it needs examples/icpp/calc.c)"; exit 0
fi
echo "2. calc: train every distinct call path with its stack height"
CTXPROF_ICPP_TRAIN=$B/calc.paths $B/calc_pebs run 0.5 >/dev/null
echo "   $(grep -c '^path' $B/calc.paths) call paths in $B/calc.paths"
echo "   profile 2 s with perf_event sampling (no instrumentation active)"
$B/calc_pebs profile $B/calc.paths 2 | sed 's/^/   /'
echo "3. calc with no instrumentation at all: a plain build (no hooks, frame pointers)"
echo "   trained from the kernel's callchains of its own samples, then profiled"
$B/calc_pebs_plain train $B/calc_plain.paths 3 | sed 's/^/   /'
echo "   $(grep -c '^path' $B/calc_plain.paths) call paths in $B/calc_plain.paths (3 s at 10 kHz)"
echo "   profile 2 s at 1 kHz, a separate run (the callchain only checks the result)"
$B/calc_pebs_plain profile $B/calc_plain.paths 2 | sed -n '1p;4,8p' | sed 's/^/   /'
