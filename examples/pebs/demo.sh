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
# Where perf_event sampling is not available (the programs exit with 77:
# kernel.perf_event_paranoid, a container's seccomp policy, no perf_event at
# all), the steps that need it say SKIPPED and the demo still succeeds; any
# other failure fails it, and so does a profile in which more than 10% of the
# samples were resolved to a wrong call path.
set -e
B=build/examples/pebs
T=$(mktemp -d "${TMPDIR:-/tmp}/ctxprof-pebs.XXXXXX")
trap 'rm -rf "$T"' EXIT
status=0

# step CMD...: runs CMD, its output in $T/out (shown by the caller). Returns 0
# when it worked, 1 when it could not sample here (said); any other failure
# shows the output and ends the demo with CMD's status.
step() {
    rc=0
    "$@" > "$T/out" || rc=$?
    [ "$rc" -eq 0 ] && return 0
    if [ "$rc" -eq 77 ]; then
        echo "   SKIPPED: perf_event sampling is not available here (the program said why)"
        return 1
    fi
    sed 's/^/   /' "$T/out"
    echo "   FAILED: $* (exit status $rc)"
    exit "$rc"
}

# incorrect: the share of each pipeline's samples that went to a wrong call
# path (checked against the kernel's callchain), on a line of its own; sets
# status=1 when one is above 10%.
incorrect() {
    sed -n 's/^  \([^ ].*[^ ]\) *precise .*incorrect *\([0-9.]*\)%).*/\1: \2%/p' "$T/out" > "$T/inc"
    if [ ! -s "$T/inc" ]; then
        echo "   FAILED: the profile has no precision lines"
        status=1
        return 0
    fi
    echo "   incorrect (a wrong call path): $(tr '\n' ';' < "$T/inc" | sed 's/;$//; s/;/, /g')"
    if sed 's/.*: //; s/%//' "$T/inc" | awk '$1 > 10 { bad = 1 } END { exit !bad }'; then
        echo "   FAILED: more than 10% of the samples were resolved to a wrong call path"
        status=1
    fi
}

echo "1. hotfuncs: sample three threads for 1 s"
if step $B/hotfuncs 1; then
    sed 's/^/   /' "$T/out"
fi
if [ ! -x $B/calc_pebs ]; then
    echo "2. (calc_pebs not built: it needs examples/icpp/calc.c)"; exit 0
fi

echo "2. calc: train every distinct call path with its stack height"
rm -f $B/calc.paths # a map of an earlier run must not stand in for this one's
CTXPROF_ICPP_TRAIN=$B/calc.paths $B/calc_pebs run 0.5 >/dev/null
[ -s $B/calc.paths ] || { echo "   FAILED: the training run wrote no $B/calc.paths"; exit 1; }
echo "   $(grep -c '^path' $B/calc.paths) call paths in $B/calc.paths"
echo "   profile 2 s with perf_event sampling (no instrumentation active)"
if step $B/calc_pebs profile $B/calc.paths 2; then
    sed 's/^/   /' "$T/out"
    incorrect
fi

echo "3. calc with no instrumentation at all: a plain build (no hooks, frame pointers)"
echo "   trained from the kernel's callchains of its own samples, then profiled"
rm -f $B/calc_plain.paths
if step $B/calc_pebs_plain train $B/calc_plain.paths 3; then
    sed 's/^/   /' "$T/out"
    [ -s $B/calc_plain.paths ] || { echo "   FAILED: training wrote no $B/calc_plain.paths"; exit 1; }
    echo "   $(grep -c '^path' $B/calc_plain.paths) call paths in $B/calc_plain.paths (3 s at 10 kHz)"
    echo "   profile 2 s at 1 kHz, a separate run (the callchain only checks the result)"
    if step $B/calc_pebs_plain profile $B/calc_plain.paths 2; then
        sed -n '1p;4,8p' "$T/out" | sed 's/^/   /'
        incorrect
    fi
fi
exit $status
