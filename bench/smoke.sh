#!/bin/sh
# Smoke runs of the benchmarks (`make bench-smoke`, which `make test` runs):
# each program below once with its smallest arguments, a second or two in
# all. The numbers mean nothing; a benchmark that cannot start any more (a
# rate or size the library now refuses, a missing symbol) fails here rather
# than at the end of `make bench`. One line per program: "ok NAME",
# "skip NAME (why)" (exit status 77: the machine lacks what it measures) or
# "FAIL NAME (exit N)" followed by the end of its output; the exit status
# is 1 if any failed.
B=${B:-build}
failed=0
out=$B/bench/smoke.out
# name, then the command
smoke() {
    name=$1
    shift
    "$@" >"$out" 2>&1
    rc=$?
    case $rc in
    0) echo "ok bench-smoke-$name" ;;
    77) echo "skip bench-smoke-$name ($(tail -n 1 "$out"))" ;;
    *)
        echo "FAIL bench-smoke-$name (exit $rc: $*)"
        tail -n 5 "$out" | sed 's/^/  /'
        failed=1
        ;;
    esac
}
# every variant once at its rate, 3 rounds of 1 fib(32) call per run
smoke pebs_overhead "$B/bench/pebs_overhead" 3 1
exit $failed
