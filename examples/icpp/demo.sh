#!/bin/sh
# ICPP end to end on calc (a recursive-descent interpreter, thousands of call
# paths): train unpadded, generate pads, rebuild, retrain (the measured
# precision must equal the predicted one), then sample the padded build with
# the timer sampler and recover the call paths from (PC, SP) alone, with
# partial walks in the handler (targeted reads), and afterwards from the frame
# words saved per sample, against the true paths (ctxprof_icpp_evaluate):
# on the map's own input (offline scenario) and on two others (online).
# Every program's output goes to a file first: a failing one ends the demo
# with its status instead of leaving a formatted nothing (or numbers of an
# earlier run) behind.
set -e
B=build/examples/icpp
GEN=build/ctxprof-gen
CC=${CC:-gcc}
mkdir -p "$B"
T=$(mktemp -d "${TMPDIR:-/tmp}/ctxprof-icpp.XXXXXX")
trap 'rm -rf "$T"' EXIT
FLAGS="-std=gnu11 -O2 -fno-omit-frame-pointer -finstrument-functions -DCTXPROF_ICPP_HOOKS"
case "$CC" in *clang*) ;; *) FLAGS="$FLAGS -finstrument-functions-exclude-file-list=ctxprof.h" ;; esac

# run OUT CMD...: runs CMD with its output in OUT; a failure shows that
# output and ends the demo with CMD's status.
run() {
    o=$1
    shift
    rc=0
    "$@" > "$o" || rc=$?
    [ "$rc" -eq 0 ] && return 0
    sed 's/^/   /' "$o"
    echo "   FAILED: $* (exit status $rc)"
    exit "$rc"
}

# the maps, pads and results of an earlier run must not stand in for this one's
rm -f $B/train0.paths $B/train1.paths $B/pads.h $B/random.txt $B/ours.txt $B/calc_padded

echo "1. train the unpadded build (whole program, -finstrument-functions hooks)"
run "$T/out" env CTXPROF_ICPP_TRAIN=$B/train0.paths $B/calc run 0.5
[ -s $B/train0.paths ] || { echo "   FAILED: the training run wrote no $B/train0.paths"; exit 1; }
echo "   $(grep -c '^path' $B/train0.paths) distinct call paths"

echo "2. ctxprof-gen pad: the paper's random search (no stack limit, then capped at"
echo "   1.2x), then ours (default cap 1.2x), and ours at the random search's growth"
keys='^(precise_before|precise_after|max_stack_growth|seconds)='
run "$T/out" $GEN pad --search random $B/train0.paths
grep -E "$keys" "$T/out" > $B/random.txt || true
sed 's/^/   random:       /' $B/random.txt
run "$T/out" $GEN pad --search random --max-growth 1.2 $B/train0.paths
grep -E "$keys" "$T/out" | sed 's/^/   random, 1.2x: /' || true
run $B/ours.txt $GEN pad --pairs 2 -o $B/pads.h $B/train0.paths
sed 's/^/   ours:         /' $B/ours.txt
g=$(sed -n 's/.*max_stack_growth=//p' $B/random.txt)
[ -n "$g" ] || { echo "   FAILED: the random search printed no max_stack_growth"; exit 1; }
run "$T/out" $GEN pad --max-growth "$g" $B/train0.paths
grep -E "$keys" "$T/out" | sed "s/^/   ours, $(printf %.1f "$g")x: /" || true

echo "3. rebuild with the pads and retrain"
$CC $FLAGS -include $B/pads.h examples/icpp/calc.c -o $B/calc_padded -lpthread -ldl -lrt
run "$T/out" env CTXPROF_ICPP_TRAIN=$B/train1.paths $B/calc_padded run 0.5
[ -s $B/train1.paths ] || { echo "   FAILED: the training run wrote no $B/train1.paths"; exit 1; }
predicted=$(sed -n "s/^precise_after=//p" $B/ours.txt)
run "$T/out" $GEN pad --search none $B/train1.paths
measured=$(sed -n 's/^precise_before=//p' "$T/out")
echo "   precise share predicted=$predicted measured=$measured"
if [ -z "$predicted" ] || [ "$predicted" != "$measured" ]; then echo "   MISMATCH"; exit 1; fi

echo "4. sample the padded build at 1 kHz for 2 s, offline scenario (the map's own input;"
echo "   training on only for the true paths, so many samples land in the training hooks)"
run "$T/out" $B/calc_padded sample $B/train1.paths 2
sed 's/^/   /' "$T/out"

echo "5. the same, saving the first 8 frames of the chain instead of the targeted words"
run "$T/out" $B/calc_padded sample $B/train1.paths 1 a chain
grep '^saved_words' "$T/out" | sed 's/^/   /' || true

echo "6. online scenario: the map of input a, samples of inputs b (other arguments) and c"
echo "   (another entry expression: mostly call paths the map has never seen)"
for in in b c; do
    run "$T/out" $B/calc_padded sample $B/train1.paths 1 $in
    grep -E '^(samples|pc_sp|partial|saved)' "$T/out" | sed "s/^/   input $in: /" || true
done

echo "7. every instruction of one parse and one evaluation as a sample (single-stepped,"
echo "   examples/icpp/step.h): heights from SP alone miss prologues and epilogues;"
echo "   heights from the CFA (the .eh_frame rules, the default) are exact there too"
run "$T/out" $B/calc_padded step $B/train1.paths
sed 's/^/   /' "$T/out"
