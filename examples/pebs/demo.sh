#!/bin/sh
# ctxprof_pebs on the ICPP example program (calc, a recursive-descent
# interpreter with thousands of call paths): train its path map once with
# the -finstrument-functions hooks, then profile the same binary with the
# hooks off and nothing else added: the kernel samples (PC, SP) at 1 kHz,
# ctxprof_pebs turns each sample into a call path (CID lookup, then a walk
# of a few frames in the sample's stack copy when the CID is ambiguous),
# and the kernel's frame-pointer callchain of each sample checks the result.
set -e
B=build/examples/pebs
if [ ! -x $B/calc_pebs ]; then
    echo "calc_pebs not built (needs examples/icpp/calc.c)"; exit 0
fi
echo "1. train: every distinct call path of calc with its stack height"
CTXPROF_ICPP_TRAIN=$B/calc.paths $B/calc_pebs run 0.5 >/dev/null
echo "   $(grep -c '^path' $B/calc.paths) call paths in $B/calc.paths"
echo "2. profile 2 s with perf_event sampling (no instrumentation active)"
$B/calc_pebs profile $B/calc.paths 2 | sed 's/^/   /'
