#!/bin/sh
# ICPP end to end on calc (a recursive-descent interpreter, thousands of call
# paths): train unpadded, generate pads, rebuild, retrain (the measured
# precision must equal the predicted one), then sample the padded build with
# the timer sampler and recover the call paths from (PC, SP) alone, with
# partial walks in the handler (targeted reads), and afterwards from the frame
# words saved per sample, against the true paths (ctxprof_icpp_evaluate):
# on the map's own input (offline scenario) and on two others (online).
set -e
B=build/examples/icpp
GEN=build/ctxprof-gen
CC=${CC:-gcc}
mkdir -p "$B"
FLAGS="-std=gnu11 -O2 -fno-omit-frame-pointer -finstrument-functions -DCTXPROF_ICPP_HOOKS"
case "$CC" in *clang*) ;; *) FLAGS="$FLAGS -finstrument-functions-exclude-file-list=ctxprof.h" ;; esac

echo "1. train the unpadded build (whole program, -finstrument-functions hooks)"
CTXPROF_ICPP_TRAIN=$B/train0.paths $B/calc run 0.5 >/dev/null
echo "   $(grep -c '^path' $B/train0.paths) distinct call paths"

echo "2. ctxprof-gen pad: the paper's random search (no stack limit, then capped at"
echo "   1.2x), then ours (default cap 1.2x), and ours at the random search's growth"
keys='^(precise_before|precise_after|max_stack_growth|seconds)='
$GEN pad --search random $B/train0.paths | grep -E "$keys" | sed 's/^/   random:       /' |
    tee $B/random.txt
$GEN pad --search random --max-growth 1.2 $B/train0.paths | grep -E "$keys" |
    sed 's/^/   random, 1.2x: /'
$GEN pad --pairs 2 -o $B/pads.h $B/train0.paths | tee $B/ours.txt | sed 's/^/   ours:         /'
g=$(sed -n 's/.*max_stack_growth=//p' $B/random.txt)
$GEN pad --max-growth "$g" $B/train0.paths | grep -E "$keys" |
    sed "s/^/   ours, $(printf %.1f "$g")x: /"

echo "3. rebuild with the pads and retrain"
$CC $FLAGS -include $B/pads.h examples/icpp/calc.c -o $B/calc_padded -lpthread -ldl -lrt
CTXPROF_ICPP_TRAIN=$B/train1.paths $B/calc_padded run 0.5 >/dev/null
predicted=$(sed -n "s/^precise_after=//p" $B/ours.txt)
measured=$($GEN pad --search none $B/train1.paths | sed -n 's/^precise_before=//p')
echo "   precise share predicted=$predicted measured=$measured"
[ "$predicted" = "$measured" ] || { echo "   MISMATCH"; exit 1; }

echo "4. sample the padded build at 1 kHz for 2 s, offline scenario (the map's own input;"
echo "   training on only for the true paths, so many samples land in the training hooks)"
$B/calc_padded sample $B/train1.paths 2 | sed 's/^/   /'

echo "5. the same, saving the first 8 frames of the chain instead of the targeted words"
$B/calc_padded sample $B/train1.paths 1 a chain | grep '^saved_words' | sed 's/^/   /'

echo "6. online scenario: the map of input a, samples of inputs b (other arguments) and c"
echo "   (another entry expression: mostly call paths the map has never seen)"
for in in b c; do
    $B/calc_padded sample $B/train1.paths 1 $in | grep -E '^(samples|pc_sp|partial|saved)' |
        sed "s/^/   input $in: /"
done

echo "7. every instruction of one parse and one evaluation as a sample (single-stepped,"
echo "   examples/icpp/step.h): heights from SP alone miss prologues and epilogues;"
echo "   heights from the CFA (the .eh_frame rules, the default) are exact there too"
$B/calc_padded step $B/train1.paths | sed 's/^/   /'
