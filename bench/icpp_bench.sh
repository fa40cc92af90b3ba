#!/bin/sh
# make bench: ICPP (issue 4). The cost of a CID at a query point, the timer
# sampler's overhead, then the padding searches on path maps trained from
# real programs with the -finstrument-functions hooks (calc, the C parser of
# examples/hotpaths over C headers, zipfwalk's workers, examples/encoders'
# expr, the test program) and on synthetic ones (non-recursive "dag" and
# recursive "rec", 2k to 300k paths). Maps are made once in $B/bench/icpp.
set -e
B=${B:-build}
D=$B/bench/icpp
CC=${CC:-gcc}
mkdir -p "$D"

"$B/bench/icpp_bench" cid
if command -v objdump >/dev/null; then
    echo
    echo "The CID capture as compiled (the query point q_cid; the two stores are its result):"
    objdump -d --no-show-raw-insn "$B/bench/icpp_bench" | awk '/<q_cid>:/,/ret/' | sed 's/^/    /'
fi
echo
"$B/bench/icpp_bench" sampler
echo

# What instrumentation costs with training off: a program trained with the
# -finstrument-functions hooks is sampled in that same build (heights are the
# build's), so its run time is what sampling "with no instrumentation" pays.
# calc: plain build, the hooks build with training off, hand-written
# CTXPROF_ICPP_FUNC entries with training off; 11 rounds of 150 rounds of
# work each, the builds alternating, medians [min-max] of CPU ns per round.
echo "calc with training off (11 alternating rounds, CPU time per round of work):"
echo "| build | us/round | ratio to plain |"
echo "|---|---|---|"
r=0
: > "$D/hooks_times"
while [ $r -lt 11 ]; do
    for v in plain hooks func; do
        case $v in hooks) bin=$B/examples/icpp/calc ;; *) bin=$B/bench/calc_$v ;; esac
        echo "$v $("$bin" rounds 150 | cut -d' ' -f1)" >> "$D/hooks_times"
    done
    r=$((r + 1))
done
awk '{ t[$1, ++n[$1]] = $2 }
     function med(v,   i, j, a, k, x) { k = n[v]; for (i = 1; i <= k; i++) a[i] = t[v, i];
         for (i = 2; i <= k; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--)
             a[j + 1] = a[j]; a[j + 1] = x }
         lo[v] = a[1]; hi[v] = a[k]; return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2 }
     END { p = med("plain");
           split("plain hooks func", vs, " ");
           name["plain"] = "plain (no instrumentation)";
           name["hooks"] = "-finstrument-functions hooks, training off";
           name["func"] = "CTXPROF_ICPP_FUNC entries, training off";
           for (i = 1; i <= 3; i++) { m = med(vs[i]);
               printf "| %s | %.0f [%.0f-%.0f] | %.3f |\n", name[vs[i]], m / 1000,
                      lo[vs[i]] / 1000, hi[vs[i]] / 1000, m / p } }' "$D/hooks_times"
if command -v valgrind >/dev/null; then
    echo
    echo "Instructions per round (callgrind, rounds 10 minus rounds 5, over 5):"
    for v in plain hooks func; do
        case $v in hooks) bin=$B/examples/icpp/calc ;; *) bin=$B/bench/calc_$v ;; esac
        i5=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" rounds 5 2>&1 |
             sed -n 's/.*Collected : //p')
        i10=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" rounds 10 2>&1 |
              sed -n 's/.*Collected : //p')
        echo "$v $(( (i10 - i5) / 5 ))"
    done | awk '{ n[NR] = $1; v[NR] = $2 } END { for (i = 1; i <= NR; i++)
                 printf "  %-6s %d (%.3f x plain)\n", n[i], v[i], v[i] / v[1] }'
fi
echo

train() { # NAME COMMAND...: the path map of one run
    out=$D/$1.paths
    shift
    [ -s "$out" ] || CTXPROF_ICPP_TRAIN=$out "$@" >/dev/null
}
train calc "$B/examples/icpp/calc" run 0.5
train cparse13k "$B/bench/icpp_train" cparse tools/ctxprof-gen.c
headers=$(grep -L -E '^[[:space:]]*(class|namespace|template)[[:space:]<]' \
          /usr/include/std*.h /usr/include/string.h /usr/include/signal.h 2>/dev/null || true)
# shellcheck disable=SC2086
train cparse68k "$B/bench/icpp_train" cparse ctxprof.h tools/ctxprof-gen.c $headers
train zipf2k "$B/bench/icpp_train" zipf 2000
train zipf20k "$B/bench/icpp_train" zipf 20000
if [ ! -s "$D/expr.paths" ]; then
    $CC -std=gnu11 -O2 -fno-omit-frame-pointer -finstrument-functions -DCTXPROF_ICPP_HOOKS \
        -I. -I"$B/examples/encoders" examples/encoders/expr.c -o "$D/expr_hooks" \
        $(case "$CC" in *clang*) ;; *) echo "-finstrument-functions-exclude-file-list=ctxprof.h,expr_ctx.h" ;; esac) \
        -lpthread -ldl -lrt -lm
    # 400 random expressions, 2 to 6 levels deep, with max(), unary minus, parentheses
    exprs=$(awk 'function e(d,  r) { r = rand();
                   if (d <= 0 || r < 0.2) return int(rand() * 90) + 1;
                   if (r < 0.35) return "max(" e(d - 1) ", " e(d - 1) ")";
                   if (r < 0.45) return "-(" e(d - 1) ")";
                   if (r < 0.6) return "(" e(d - 1) ")";
                   return e(d - 1) substr("+-*/", int(rand() * 4) + 1, 1) e(d - 1) }
                 BEGIN { srand(4); for (i = 0; i < 400; i++) print e(2 + i % 5) }')
    echo "$exprs" | tr '\n' '\0' |
        CTXPROF_ICPP_TRAIN=$D/expr.paths xargs -0 "$D/expr_hooks" >/dev/null || true
fi
if [ ! -s "$D/icpp_prog.paths" ]; then
    $CC -std=gnu11 -O2 -fno-omit-frame-pointer tests/data/icpp_prog.c -o "$D/icpp_prog" \
        -lpthread -ldl -lrt
    "$D/icpp_prog" train "$D/icpp_prog.paths" >/dev/null
fi
for s in "dag 3 2000" "rec 4 2000" "dag 1 20000" "rec 1 20000" "dag 7 300000"; do
    set -- $s
    [ -s "$D/syn_$1$(($3 / 1000))k.paths" ] ||
        "$B/bench/icpp_bench" synth "$1" "$2" "$3" "$D/syn_$1$(($3 / 1000))k.paths"
done

"$B/bench/icpp_bench" pad "$D/icpp_prog.paths" "$D/expr.paths" "$D/calc.paths" \
    "$D/cparse13k.paths" "$D/zipf2k.paths" "$D/syn_dag2k.paths" "$D/syn_rec2k.paths" \
    "$D/syn_dag20k.paths" "$D/syn_rec20k.paths"
echo
echo "Large maps (the paper's random search would take too long: ours alone):"
"$B/bench/icpp_bench" pad --ours-only "$D/cparse68k.paths" "$D/zipf20k.paths" \
    "$D/syn_dag300k.paths"
