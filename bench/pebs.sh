#!/bin/sh
# Issue 6: what sampling costs (pebs_overhead) and what the drain path costs
# per sample (pebs_drain, timed and counted by callgrind).
set -e
B=build/bench
$B/pebs_overhead ${PEBS_ROUNDS:-11}
echo
$B/pebs_drain
if command -v valgrind >/dev/null 2>&1; then
    out=$B/pebs_drain.callgrind
    valgrind --tool=callgrind --toggle-collect=pebs_bench_drain --callgrind-out-file=$out \
        $B/pebs_drain callgrind >$out.log 2>&1
    n=$(sed -n 's/^samples \([0-9]*\) .*/\1/p' $out.log)
    ir=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' $out.log)
    echo
    echo "callgrind: $ir instructions for $n samples: $((ir / n)) instructions per sample"
fi
