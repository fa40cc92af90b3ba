#!/bin/sh
# Runs every test and prints, last, one line "N passed, N failed".
# Called by `make test` with the compilers and flag sets in the environment.
# Jobs: the unit-test binary of each configuration (gcc, clang, each plain
# and with ASan+UBSan; musl), the replay of the fuzzing inputs, the smoke
# runs of the benchmarks and the header compile checks (each header set as
# C99 -pedantic, C11 and C++11, with gcc and clang, and musl-gcc where
# installed). They run TEST_JOBS at a time (default 2: the CI machine has
# two cores), each lane taking the next job nobody has claimed (mkdir is
# atomic), the slowest first; their results are printed in a fixed order.
# Scratch files on tmpfs where there is one: the file tests fsync a lot.
if [ -z "$TMPDIR" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
    TMPDIR=/dev/shm
    export TMPDIR
fi
passed=0
failed=0
skipped=0
t=build/test
log=$t/log
mkdir -p $t
: > "$log"

ok()   { passed=$((passed + 1)); echo "ok $1"; }
bad()  { failed=$((failed + 1)); echo "FAIL $1"; }

# Build the unit-test binaries first, two at a time; a failed build is
# reported below as a failed case of its configuration.
# The benchmarks of the smoke runs (BENCH_SMOKE) build alongside.
$MAKE -s -k -j2 $TEST_BINS $BENCH_SMOKE >>"$log" 2>&1

# The jobs other than the test binaries write one line per case to
# $t/JOB.res: "ok NAME", "skip NAME (why)" or "FAIL NAME (why)"; each job
# logs to $log.JOB.
compile_case() { # name, command...
    name=$1; shift
    if "$@" >>"$log.headers" 2>&1; then echo "ok $name"; else echo "FAIL $name (see $log)"; fi
}

job_headers() {
    for cc in "$CC" "$CLANG"; do
        compile_case "headers-c99-$cc" $cc -std=c99 $STRICT -c tests/compile_c99.c -o $t/c99.o
        compile_case "headers-c11-$cc" $cc -std=c11 $STRICT -c tests/compile_c99.c -o $t/c11.o
        compile_case "headers-c11-32bit-$cc" $cc -std=c11 $STRICT -DCTXPROF_CTX_BITS=32 \
            -c tests/compile_c99.c -o $t/c11-32.o
        compile_case "headers-c11-notls-$cc" $cc -std=c11 $STRICT -DCTXPROF_NO_TLS \
            -c tests/compile_c99.c -o $t/c11-notls.o
        compile_case "headers-c11-site64-$cc" $cc -std=c11 $STRICT -DCTXPROF_SITE_BITS=64 \
            -c tests/compile_c99.c -o $t/c11-site64.o
        compile_case "headers-c11-O3-$cc" $cc -std=c11 $STRICT -O3 \
            -c tests/compile_c99.c -o $t/c11-o3.o
        compile_case "headers-c11-static-$cc" $cc -std=c11 $STRICT -DCTXPROF_STATIC \
            -c tests/compile_c99.c -o $t/c11-static.o
    done
    # ctxprof_pebs.h alone, declarations then implementation (it emits the core's)
    printf '%s\n' '#define _POSIX_C_SOURCE 200809L' '#include "../../ctxprof_pebs.h"' \
        '#define CTXPROF_IMPLEMENTATION' '#include "../../ctxprof_pebs.h"' >$t/pebs_twice.c
    compile_case "headers-c11-pebs-twice-$CC" $CC -std=c11 $STRICT -c $t/pebs_twice.c \
        -o $t/pebs_twice.o
    if [ -n "$MUSL_CC" ]; then # the kernel's headers through build/musl-include
        for std in c99 c11; do
            compile_case "headers-$std-musl" $MUSL_CC -std=$std $STRICT -isystem build/musl-include \
                -c tests/compile_c99.c -o $t/$std-musl.o
        done
    fi
    for cxx in "$CXX" "$CLANGXX"; do
        compile_case "headers-c++11-$cxx" $cxx -std=c++11 $CXXSTRICT -c tests/compile_cpp.cpp \
            -o $t/cpp.o
        compile_case "headers-c++11-static-$cxx" $cxx -std=c++11 $CXXSTRICT -DCTXPROF_STATIC \
            -c tests/compile_cpp.cpp -o $t/cpp-static.o
    done
}

# Smoke runs of the benchmarks (make bench-smoke, bench/smoke.sh): each once
# with its smallest arguments, so a benchmark that can no longer start fails
# here and not at the end of `make bench`.
job_smoke() {
    $MAKE -s bench-smoke 2>>"$log.smoke" || grep -q '^FAIL' $t/smoke.res 2>/dev/null ||
        echo "FAIL bench-smoke (build; see $log)"
}

# Replay the fuzzing seeds and regression inputs (tests/data/fuzz/<target>)
# through each libFuzzer target: a crash found once stays fixed.
job_fuzz() {
    for f in $FUZZ_TARGETS; do
        if ! $MAKE -s "build/fuzz/fuzz_$f" >>"$log.fuzz" 2>&1; then
            echo "FAIL fuzz-replay-$f (build; see $log)"
        elif "build/fuzz/fuzz_$f" -runs=0 tests/data/fuzz/$f >>"$log.fuzz" 2>&1; then
            echo "ok fuzz-replay-$f"
        else
            echo "FAIL fuzz-replay-$f (see $log)"
        fi
    done
}

# A test binary: built if the first build failed (its log then says why),
# run with its output in $t/CFG.out and exit code in $t/CFG.rc; no .rc
# when it was not built. Each keeps its scratch files in its own directory.
job_bin() { # bin, cfg
    if $MAKE -s "$1" >>"$log.$2" 2>&1; then
        ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0} \
        UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1} "$1" >"$t/$2.out" 2>&1
        echo $? >"$t/$2.rc"
    fi
}

cfgs=""
for bin in $TEST_BINS; do cfgs="$cfgs $(basename "$(dirname "$bin")")"; done
extra="headers"
[ -n "$BENCH_SMOKE" ] && extra="smoke $extra"
[ -n "$FUZZ_TARGETS" ] && extra="fuzz $extra"
jobs=${TEST_JOBS:-2}
rm -rf $t/claim
mkdir -p $t/claim
lane=0
while [ "$lane" -lt "$jobs" ]; do
    (
        for job in $cfgs $extra; do
            mkdir "$t/claim/$job" 2>/dev/null || continue
            rm -f "$t/$job.out" "$t/$job.rc" "$t/$job.res"
            case " $extra " in
            *" $job "*) "job_$job" >"$t/$job.res" ;;
            *) job_bin "build/test/$job/test_ctxprof" "$job" ;;
            esac
        done
    ) &
    lane=$((lane + 1))
done
wait
rm -rf $t/claim
for job in headers $cfgs smoke fuzz; do
    if [ -f "$log.$job" ]; then cat "$log.$job" >>"$log"; rm -f "$log.$job"; fi
done

# The cases of a job's .res file, counted.
read_res() { # job
    [ -f "$t/$1.res" ] || return 0
    while read -r word name rest; do
        case $word in
        ok) ok "$name" ;;
        skip) echo "skip $name $rest"; skipped=$((skipped + 1)) ;;
        FAIL) bad "$name $rest" ;;
        *) echo "$word $name $rest" ;;
        esac
    done <"$t/$1.res"
}

read_res headers
for cfg in $cfgs; do
    echo "== unit tests: $cfg"
    out=$t/$cfg.out
    if [ ! -f "$t/$cfg.rc" ]; then
        bad "build-$cfg"; echo "  (see $log)"; continue
    fi
    rc=$(cat "$t/$cfg.rc")
    grep -E '^(FAIL|skip) ' "$out"
    last=$(tail -n 1 "$out")
    p=$(echo "$last" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed.*/\1/p')
    f=$(echo "$last" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed.*/\2/p')
    s=$(echo "$last" | sed -n 's/.*, \([0-9]*\) skipped$/\1/p')
    if [ -z "$p" ]; then
        bad "run-$cfg (crashed, exit $rc; see $out)"; tail -n 20 "$out"; continue
    fi
    if [ "$f" -ne 0 ] || [ "$rc" -ne 0 ]; then
        grep -v -E '^(ok|skip) ' "$out" | tail -n 40
        [ "$f" -eq 0 ] && f=1
    fi
    echo "   $last"
    passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + ${s:-0}))
done
read_res smoke
read_res fuzz

[ "$skipped" -gt 0 ] && echo "($skipped skipped: no PMU here, or builds covered by the plain configuration; see above)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
