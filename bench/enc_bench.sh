#!/bin/sh
# make bench, encodings: generator speed on a gcc-sized graph, encoding
# lengths of PCCE / Valence / HCCE / AUTO on several program shapes (random
# call/return walks through the real encoders, every step decoded), the
# per-call cost against no instrumentation and PCC (time and callgrind
# instructions), and the query cost.
set -e
B=build
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
$B/bench/enc_synth -o "$T/gcc.txt"

echo "== generator"
$B/bench/enc_gen_speed $B/ctxprof-gen "$T/gcc.txt"

# an interpreter: eval calls 300 operators that call eval back (600 cyclic edges)
awk 'BEGIN { print "ctxprof-callgraph 1\nroot main\ncall main eval\ncall main parse\ncall parse parse";
             for (i = 0; i < 300; i++) printf "call eval op%d\ncall op%d eval\ncall op%d gc\n", i, i, i }' \
    > "$T/interp.txt"
# deep recursive descent: the example's parser
cp examples/encoders/expr.callgraph "$T/rdp.txt"

echo
echo "== encoding length, words per context (mean over every step of 1000 walks, depth <= 64;"
echo "   max in parentheses); every step decoded in every scheme"
printf "%-14s %16s %16s %16s %16s\n" graph pcce valence hcce auto
for g in gcc rdp interp; do
    f="$T/$g.txt"
    $B/ctxprof-gen check "$f" --walks 1000 --depth 64 --seed 1 > "$T/out" 2>/dev/null
    awk -v name="$g" -F= '{ v[$1] = $2 }
        END { if (v["decoded_pcce"] != v["steps"] || v["decoded_valence"] != v["steps"] ||
                  v["decoded_hcce"] != v["steps"] || v["decoded_auto"] != v["steps"]) name = name "(FAIL)";
              printf "%-14s %10.2f (%3d) %10.2f (%3d) %10.2f (%3d) %10.2f (%3d)\n", name,
                v["avg_words_pcce"], v["max_words_pcce"], v["avg_words_valence"], v["max_words_valence"],
                v["avg_words_hcce"], v["max_words_hcce"], v["avg_words_auto"], v["max_words_auto"] }' "$T/out"
done
printf "%-14s" "fig3"
$B/ctxprof-gen check tests/data/fig3.txt --walks 1000 --depth 64 --seed 1 |
    awk -F= '{ v[$1] = $2 } END { printf " %10.2f (%3d) %10.2f (%3d) %10.2f (%3d) %10.2f (%3d)\n",
        v["avg_words_pcce"], v["max_words_pcce"], v["avg_words_valence"], v["max_words_valence"],
        v["avg_words_hcce"], v["max_words_hcce"], v["avg_words_auto"], v["max_words_auto"] }'

echo
echo "== per-call cost"
$B/bench/enc_cost time
$B/bench/enc_cost query

if command -v valgrind >/dev/null 2>&1; then
    echo
    echo "== callgrind: extra instructions per instrumented call (Ir, deterministic)"
    printf "%-9s %10s %10s %10s %10s %10s %10s\n" workload plain pcc pcce valence hcce auto
    for w in acyclic fib; do
        n=200000; [ $w = fib ] && n=4
        printf "%-9s" $w
        base=""
        for v in plain pcc pcce valence hcce auto; do
            valgrind --tool=callgrind --callgrind-out-file="$T/cg" $B/bench/enc_cost run $v $w $n \
                > "$T/calls" 2>"$T/vg" || { echo " valgrind failed"; break; }
            ir=$(grep -E '^(summary|totals):' "$T/cg" | head -1 | awk '{ print $2 }')
            calls=$(sed -n 's/^calls=//p' "$T/calls")
            [ -z "$base" ] && base=$ir
            awk -v ir="$ir" -v b="$base" -v c="$calls" 'BEGIN { printf " %10.2f", (ir - b) / c }'
        done
        echo
    done
    echo "(plain = 0 by definition; PCC: the pcc module's CTXPROF_PCC_FUNC + CTXPROF_PCC_CALL, 64-bit)"
fi
