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
#     separate run profiled with it; and what the hooks build costs over it.
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
echo "   run time of the hooks build (training off) over the plain build: 7 alternating"
echo "   runs of 100 rounds each, median CPU time per round"
r=0
: > $B/times
while [ $r -lt 7 ]; do
    echo "plain $($B/calc_pebs_plain rounds 100 | cut -d' ' -f1)" >> $B/times
    echo "hooks $($B/calc_pebs rounds 100 | cut -d' ' -f1)" >> $B/times
    r=$((r + 1))
done
awk '{ t[$1, ++n[$1]] = $2 }
     function med(v,   i, j, a, k, x) { k = n[v]; for (i = 1; i <= k; i++) a[i] = t[v, i];
         for (i = 2; i <= k; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--)
             a[j + 1] = a[j]; a[j + 1] = x }
         return a[(k + 1) / 2] }
     END { p = med("plain"); h = med("hooks");
           printf "   plain %.0f us/round, hooks %.0f us/round: ratio %.3f\n",
                  p / 1000, h / 1000, h / p }' $B/times
