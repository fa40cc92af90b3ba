#!/bin/sh
# make bench, encodings: generator speed on a gcc-sized graph, encoding
# lengths of PCCE / Valence / HCCE / AUTO on several program shapes (random
# call/return walks through the real encoders, every step decoded), the
# per-call cost against no instrumentation and PCC (time and callgrind
# instructions), and the query cost.
set -e
B=${B:-build}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# quiet CMD...: runs CMD with its stderr (ctxprof-gen's warnings about the
# large graphs, valgrind's banner) held back; if CMD fails, shows it and stops
quiet() {
    "$@" 2>"$T/err" || {
        st=$?
        cat "$T/err" >&2
        echo "enc_bench.sh: exit status $st: $*" >&2
        exit "$st"
    }
}
"$B/bench/enc_synth" -o "$T/gcc.txt"

echo "== generator"
"$B/bench/enc_gen_speed" "$B/ctxprof-gen" "$T/gcc.txt"

# an interpreter: eval calls 300 operators that call eval back (600 cyclic edges)
awk 'BEGIN { print "ctxprof-callgraph 1\nroot main\ncall main eval\ncall main parse\ncall parse parse";
             for (i = 0; i < 300; i++) printf "call eval op%d\ncall op%d eval\ncall op%d gc\n", i, i, i }' \
    > "$T/interp.txt"
# deep recursive descent: the example's parser
cp examples/encoders/expr.callgraph "$T/rdp.txt"
cp tests/data/fig3.txt "$T/fig3.txt"
# ids past 64 bits: 200 layers of two functions each calling both of the next
# (2^200 contexts); 100 functions each calling the next from 8 sites and itself
awk 'BEGIN { print "ctxprof-callgraph 1\nroot main\ncall main a0\ncall main b0";
             for (i = 1; i < 200; i++) printf "call a%d a%d\ncall a%d b%d\ncall b%d a%d\ncall b%d b%d\n",
                 i - 1, i, i - 1, i, i - 1, i, i - 1, i }' > "$T/layers.txt"
awk 'BEGIN { print "ctxprof-callgraph 1\nroot main\ncall main f0";
             for (i = 1; i < 100; i++) for (s = 0; s < 8; s++) printf "call f%d f%d site=%d\n", i - 1, i, s;
             for (i = 0; i < 100; i++) printf "call f%d f%d site=self\n", i, i }' > "$T/sites.txt"

# one row: name, walk depth
row() {
    quiet "$B/ctxprof-gen" check "$T/$1.txt" --walks 1000 --depth "$2" --seed 1 > "$T/out"
    awk -v name="$1" -F= '{ v[$1] = $2 }
        END { bad = v["decoded_pcce"] != v["checked"] || v["decoded_valence"] != v["checked"] ||
                    v["decoded_hcce"] != v["checked"] || v["decoded_auto"] != v["checked"];
              printf "%-14s %10.2f (%3d) %10.2f (%3d) %10.2f (%3d) %10.2f (%3d)\n", name (bad ? "(FAIL)" : ""),
                v["avg_words_pcce"], v["max_words_pcce"], v["avg_words_valence"], v["max_words_valence"],
                v["avg_words_hcce"], v["max_words_hcce"], v["avg_words_auto"], v["max_words_auto"];
              exit bad }' "$T/out"
}

echo
echo "== encoding length, words per context (mean over every step of 1000 walks"
echo "   descending to depth 64, max in parentheses); every step decoded in every scheme"
printf "%-14s %16s %16s %16s %16s\n" graph pcce valence hcce auto
for g in gcc rdp interp fig3; do
    row $g 64
done
echo "   ids past 64 bits, walks to depth 300 (every step to depth 256 decoded, deeper sampled):"
for g in layers sites; do
    row $g 300
done

echo
echo "== per-call cost"
"$B/bench/enc_cost" time
"$B/bench/enc_cost" query

if command -v valgrind >/dev/null 2>&1; then
    echo
    echo "== callgrind: extra instructions per instrumented call (Ir, deterministic)"
    printf "%-9s %10s %10s %10s %10s %10s %10s\n" workload plain pcc pcce valence hcce auto
    for w in acyclic fib; do
        n=200000; [ $w = fib ] && n=4
        printf "%-9s" $w
        base=""
        for v in plain pcc pcce valence hcce auto; do
            quiet valgrind --tool=callgrind --callgrind-out-file="$T/cg" \
                "$B/bench/enc_cost" run $v $w $n > "$T/calls"
            ir=$(grep -E '^(summary|totals):' "$T/cg" | head -1 | awk '{ print $2 }')
            calls=$(sed -n 's/^calls=//p' "$T/calls")
            [ -z "$base" ] && base=$ir
            awk -v ir="$ir" -v b="$base" -v c="$calls" 'BEGIN { printf " %10.2f", (ir - b) / c }'
        done
        echo
    done
    echo "(plain = 0 by definition; PCC: the pcc module's CTXPROF_PCC_FUNC + CTXPROF_PCC_CALL in the"
    echo " library's default configuration: 64-bit contexts, 32-bit call-site ids; CTXPROF_SITE_BITS=64"
    echo " adds 2 Ir per acyclic site, 1 per fib call)"
fi
