#!/bin/sh
# Issue 2, benchmark 1: per-call cost of PCC vs uninstrumented and
# -finstrument-functions with empty hooks, gcc and clang, 64- and 32-bit
# contexts (with the default 32-bit call-site ids) and 64-bit contexts with
# full-width ids (CTXPROF_SITE_BITS=64): time ratios (medians of alternating
# rounds) and callgrind instructions per call (deterministic). PCC in a .so
# is compared with the same workload uninstrumented in a -fPIC .so (the PLT
# is in both), and that .so with the executable (the PLT alone).
set -e
B=${B:-build}
# The .so variants call through the PLT: bind every symbol at load time, or
# the first call of each resolves it lazily inside the measured region
# (callgrind's run_variant, the first timed round).
export LD_BIND_NOW=1
for bin in gcc_64 clang_64 gcc_32 clang_32 gcc_64site64 clang_64site64; do
    echo
    "$B/bench/pcc_calls_$bin" --n 25 --rounds 151
done
echo
echo "callgrind: extra instructions per call over the uninstrumented build of the same kind"
echo "(fib(20), 21891 calls): the executable's, or for the .so columns the uninstrumented"
echo "-fPIC .so (calls between its TUs go through the PLT too); 'plain .so' is that baseline"
echo "over the executable's, the PLT's own cost"
echo "| build | PCC, restore from local | PCC, restore by inverse | -finstrument-functions, empty hooks | plain .so over plain (PLT) | PCC in a .so, initial-exec | PCC in a .so, TLS_DYNAMIC |"
echo "|---|---|---|---|---|---|---|"
for bin in gcc_64 clang_64 gcc_32 clang_32 gcc_64site64 clang_64site64; do
    line="| $bin |"
    base=""
    sobase=""
    for v in plain pcc pccinv finstr plainso pccso pccsodyn; do
        ir=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null --toggle-collect=run_variant \
             "$B/bench/pcc_calls_$bin" --only $v --n 20 2>&1 | sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
        if [ -z "$ir" ]; then echo "pcc_calls.sh: callgrind gave no count for $bin $v" >&2; exit 1; fi
        if [ -z "$base" ]; then base=$ir; continue; fi
        b=$base
        case $v in pccso|pccsodyn) b=$sobase ;; esac
        line="$line $(awk -v a="$ir" -v b="$b" 'BEGIN { printf "%+.1f Ir", (a - b) / 21891 }') |"
        if [ "$v" = plainso ]; then sobase=$ir; fi
    done
    echo "$line"
done
