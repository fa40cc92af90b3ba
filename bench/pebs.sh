#!/bin/sh
# Issue 6: what sampling costs and whose cost it is (pebs_overhead), what the
# drain path and the pipeline behind it cost per sample (pebs_drain, timed,
# and counted by callgrind). Timing runs are meant for normal priority.
set -e
B=${B:-build}
"$B/bench/pebs_overhead" ${PEBS_ROUNDS:-11}
echo
"$B/bench/pebs_drain"
if command -v valgrind >/dev/null 2>&1; then
    # instructions per sample inside one function: $1 = function, rest = arguments
    per_sample() {
        fn=$1; shift
        out=$B/bench/pebs_drain.callgrind
        valgrind --tool=callgrind --toggle-collect=$fn --callgrind-out-file="$out" \
            "$B/bench/pebs_drain" "$@" >"$out.log" 2>&1
        n=$(sed -n 's/^samples \([0-9]*\).*/\1/p' "$out.log")
        ir=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$out.log")
        echo "$((ir / n)) instructions per sample ($ir for $n)"
    }
    echo
    echo "callgrind, drain to a callback: $(per_sample pebs_bench_drain callgrind)"
    echo "callgrind, paths pipeline:      $(per_sample pebs_bench_paths callgrind-paths 0)"
    echo "callgrind, paths + HCCT:        $(per_sample pebs_bench_paths callgrind-paths 1)"
fi
