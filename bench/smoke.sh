#!/bin/sh
# Smoke runs of the benchmarks (`make bench-smoke`, which `make test` runs):
# each program below once with its smallest arguments, a few seconds in
# all. The numbers mean nothing; a benchmark that cannot start any more (a
# rate or size the library now refuses, a missing symbol) fails here rather
# than at the end of `make bench`. The programs' own checks stay on: a
# nonzero exit, or a "MISMATCH" or "reports dropped" that a program prints
# without exiting (zipfwalk's validation values, pcc_query's set size
# table), fails the run. One line per run: "ok NAME", "skip NAME (why)"
# (exit status 77: the machine lacks what it measures) or "FAIL NAME (exit
# N)" followed by the failed checks and the end of its stderr and stdout;
# the exit status is 1 if any failed.
# Every program run here is in the Makefile's BENCH_SMOKE, which builds it.
B=${B:-build}
failed=0
d=$B/bench/smoke
out=$d/stdout
err=$d/stderr
selfcheck='MISMATCH|reports dropped'
rm -rf "$d"
mkdir -p "$d" || exit 1
# name, then the command
smoke() {
    name=$1
    shift
    "$@" >"$out" 2>"$err"
    rc=$?
    if [ "$rc" -eq 0 ] && grep -q -E "$selfcheck" "$out" "$err"; then
        rc="0, but a self-check failed"
    fi
    case $rc in
    0) echo "ok bench-smoke-$name" ;;
    77)
        why=$(tail -n 1 "$err")
        [ -n "$why" ] || why=$(tail -n 1 "$out")
        echo "skip bench-smoke-$name ($why)"
        ;;
    *)
        echo "FAIL bench-smoke-$name (exit $rc: $*)"
        { grep -h -E "$selfcheck" "$out" "$err" | head -n 5; tail -n 5 "$err"; tail -n 3 "$out"; } |
            sed 's/^/  /'
        failed=1
        ;;
    esac
}

# pcc: fib(20) once per variant (each checked against the uninstrumented
# result); the query cost at its --quick size (every timed check must find
# its trained context); the libunwind build where libunwind-dev was found
smoke pcc_calls env LD_BIND_NOW=1 "$B/bench/pcc_calls_gcc_64" --n 20 --rounds 1
smoke pcc_query "$B/bench/pcc_query_gcc" --quick
if [ -x "$B/bench/pcc_query_unwind" ]; then
    smoke pcc_query_unwind "$B/bench/pcc_query_unwind" --quick
else
    echo "skip bench-smoke-pcc_query_unwind (not built: no libunwind-dev)"
fi

# encodings: a 40-function graph, the generator's four phases on it (5
# runs each), the per-call cost after its cross-check and the query cost
# (one round each), one callgrind-style run
smoke enc_synth "$B/bench/enc_synth" --nodes 40 --edges 80 --complex 2 --cyclic 10 --giant 4 \
    --levels 4 -o "$d/graph.txt"
smoke enc_gen_speed "$B/bench/enc_gen_speed" "$B/ctxprof-gen" "$d/graph.txt"
smoke enc_cost-time "$B/bench/enc_cost" time --quick
smoke enc_cost-query "$B/bench/enc_cost" query --quick
smoke enc_cost-run "$B/bench/enc_cost" run auto fib 1

# icpp: maps trained from 20 zipf walks and from one small C file, a
# 200-path synthetic map, the padding searches on two of them, the CID and
# sampler tables at their --quick size
smoke icpp_train-zipf env CTXPROF_ICPP_TRAIN="$d/zipf.paths" "$B/bench/icpp_train" zipf 20
smoke icpp_train-cparse env CTXPROF_ICPP_TRAIN="$d/cparse.paths" "$B/bench/icpp_train" cparse \
    examples/hotpaths/cparse.h
smoke icpp_bench-synth "$B/bench/icpp_bench" synth dag 1 200 "$d/syn.paths"
smoke icpp_bench-pad "$B/bench/icpp_bench" pad "$d/syn.paths" "$d/zipf.paths"
smoke icpp_bench-cid "$B/bench/icpp_bench" cid --quick
smoke icpp_bench-sampler "$B/bench/icpp_bench" sampler --quick

# hcct: every configuration on 10,000 walks (events against the trees'
# totals checked); the workload's validation values (worker calls and acc,
# defined for the full 5 M walks) on the uninstrumented copy alone; one
# round of 1,000 walks through every copy of zw_layout; the parser once
# over one file
smoke zipfwalk "$B/bench/zipfwalk" --walks 10000 --rounds 1
smoke zipfwalk-validate "$B/bench/zipfwalk" --rounds 1 --only plain
smoke zw_layout "$B/bench/zw_layout" --rounds 1 --walks-per-round 1000
smoke cparse_bench "$B/bench/cparse_bench" --rounds 1 -p 1 examples/hotpaths/cparse.c

# pebs: the drain and pipeline tables (synthetic rings; the pipeline's
# sample count is checked); every variant once at its rate, 3 rounds of
# 1 fib(32) call per run
smoke pebs_drain "$B/bench/pebs_drain"
smoke pebs_overhead "$B/bench/pebs_overhead" 3 1
exit $failed
