#!/bin/sh
# Runs every test and prints, last, one line "N passed, N failed".
# Called by `make test` with the compilers and flag sets in the environment.
# Cases: the header compile checks (each header set as C99 -pedantic, C11 and
# C++11, with gcc and clang, and musl-gcc where installed), then the
# unit-test binary of each configuration (gcc, clang, each plain and with
# ASan+UBSan; musl).
# Scratch files on tmpfs where there is one: the file tests fsync a lot.
if [ -z "$TMPDIR" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
    TMPDIR=/dev/shm
    export TMPDIR
fi
passed=0
failed=0
skipped=0
log=build/test/log
mkdir -p build/test
: > "$log"

ok()   { passed=$((passed + 1)); echo "ok $1"; }
bad()  { failed=$((failed + 1)); echo "FAIL $1"; }

compile_case() { # name, command...
    name=$1; shift
    if "$@" >>"$log" 2>&1; then ok "$name"; else bad "$name"; echo "  (see $log)"; fi
}

# Build the unit-test binaries first, two at a time; a failed build is
# reported below as a failed case of its configuration.
# The benchmarks of the smoke runs (BENCH_SMOKE, below) build alongside.
$MAKE -s -k -j2 $TEST_BINS $BENCH_SMOKE >>"$log" 2>&1

for cc in "$CC" "$CLANG"; do
    compile_case "headers-c99-$cc" $cc -std=c99 $STRICT -c tests/compile_c99.c -o build/test/c99.o
    compile_case "headers-c11-$cc" $cc -std=c11 $STRICT -c tests/compile_c99.c -o build/test/c11.o
    compile_case "headers-c11-32bit-$cc" $cc -std=c11 $STRICT -DCTXPROF_CTX_BITS=32 \
        -c tests/compile_c99.c -o build/test/c11-32.o
    compile_case "headers-c11-notls-$cc" $cc -std=c11 $STRICT -DCTXPROF_NO_TLS \
        -c tests/compile_c99.c -o build/test/c11-notls.o
    compile_case "headers-c11-site64-$cc" $cc -std=c11 $STRICT -DCTXPROF_SITE_BITS=64 \
        -c tests/compile_c99.c -o build/test/c11-site64.o
    compile_case "headers-c11-O3-$cc" $cc -std=c11 $STRICT -O3 \
        -c tests/compile_c99.c -o build/test/c11-o3.o
    compile_case "headers-c11-static-$cc" $cc -std=c11 $STRICT -DCTXPROF_STATIC \
        -c tests/compile_c99.c -o build/test/c11-static.o
done
# ctxprof_pebs.h alone, declarations then implementation (it emits the core's)
printf '%s\n' '#define _POSIX_C_SOURCE 200809L' '#include "../../ctxprof_pebs.h"' \
    '#define CTXPROF_IMPLEMENTATION' '#include "../../ctxprof_pebs.h"' >build/test/pebs_twice.c
compile_case "headers-c11-pebs-twice-$CC" $CC -std=c11 $STRICT -c build/test/pebs_twice.c \
    -o build/test/pebs_twice.o
if [ -n "$MUSL_CC" ]; then # the kernel's headers through build/musl-include
    for std in c99 c11; do
        compile_case "headers-$std-musl" $MUSL_CC -std=$std $STRICT -isystem build/musl-include \
            -c tests/compile_c99.c -o build/test/$std-musl.o
    done
fi
for cxx in "$CXX" "$CLANGXX"; do
    compile_case "headers-c++11-$cxx" $cxx -std=c++11 $CXXSTRICT -c tests/compile_cpp.cpp \
        -o build/test/cpp.o
    compile_case "headers-c++11-static-$cxx" $cxx -std=c++11 $CXXSTRICT -DCTXPROF_STATIC \
        -c tests/compile_cpp.cpp -o build/test/cpp-static.o
done

# Run the unit-test binaries TEST_JOBS at a time (default 2: the CI machine
# has two cores): each lane takes the next binary nobody has claimed (mkdir
# is atomic), so a lane that finishes early takes more; the results are read
# back in the order of TEST_BINS. A binary that was not built leaves no exit
# code, reported as its build failure below. (Each binary keeps its scratch
# files in its own temporary directory.)
run_bin() { # bin, cfg
    ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0} \
    UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1} "$1" >"build/test/$2.out" 2>&1
    echo $? >"build/test/$2.rc"
}
jobs=${TEST_JOBS:-2}
rm -rf build/test/claim
mkdir -p build/test/claim
lane=0
while [ "$lane" -lt "$jobs" ]; do
    (
        for bin in $TEST_BINS; do
            cfg=$(basename "$(dirname "$bin")")
            mkdir "build/test/claim/$cfg" 2>/dev/null || continue
            rm -f "build/test/$cfg.out" "build/test/$cfg.rc"
            if $MAKE -s "$bin" >>"$log.$cfg" 2>&1; then run_bin "$bin" "$cfg"; fi
        done
    ) &
    lane=$((lane + 1))
done
wait
rm -rf build/test/claim

for bin in $TEST_BINS; do
    cfg=$(basename "$(dirname "$bin")")
    echo "== unit tests: $cfg"
    out=build/test/$cfg.out
    if [ -f "$log.$cfg" ]; then cat "$log.$cfg" >>"$log"; rm -f "$log.$cfg"; fi
    if [ ! -f "build/test/$cfg.rc" ]; then
        bad "build-$cfg"; echo "  (see $log)"; continue
    fi
    rc=$(cat "build/test/$cfg.rc")
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

# Smoke runs of the benchmarks (make bench-smoke, bench/smoke.sh): each once
# with its smallest arguments, a few seconds, so a benchmark that can no
# longer start fails here and not at the end of `make bench`.
if [ -n "$BENCH_SMOKE" ]; then
    $MAKE -s bench-smoke >build/test/bench-smoke.out 2>>"$log"
    rc=$?
    n=0
    while read -r word name rest; do
        case $word in
        ok) ok "$name"; n=$((n + 1)) ;;
        skip) echo "skip $name $rest"; skipped=$((skipped + 1)); n=$((n + 1)) ;;
        FAIL) bad "$name $rest"; n=$((n + 1)) ;;
        *) echo "$word $name $rest" ;;
        esac
    done <build/test/bench-smoke.out
    if [ "$rc" -ne 0 ] && [ "$n" -eq 0 ]; then bad "bench-smoke (build; see $log)"; fi
fi

# Replay the fuzzing seeds and regression inputs (tests/data/fuzz/<target>)
# through each libFuzzer target: a crash found once stays fixed.
for t in $FUZZ_TARGETS; do
    if ! $MAKE -s "build/fuzz/fuzz_$t" >>"$log" 2>&1; then
        bad "fuzz-replay-$t (build; see $log)"; continue
    fi
    if "build/fuzz/fuzz_$t" -runs=0 tests/data/fuzz/$t >>"$log" 2>&1; then
        ok "fuzz-replay-$t"
    else
        bad "fuzz-replay-$t (see $log)"
    fi
done

[ "$skipped" -gt 0 ] && echo "($skipped skipped: no PMU here, or builds covered by the plain configuration; see above)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
