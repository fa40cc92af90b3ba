#!/bin/sh
# PCC anomaly detection on minikv: train on two runs, merge the trained sets,
# check a normal run (silent) and a run that reaches a legacy feature (one
# report, with the backtrace of the new calling context).
set -e
B=build/examples/anomaly
D=examples/anomaly
T=${TMPDIR:-/tmp}/ctxprof-anomaly.$$
mkdir -p "$T"
trap 'rm -rf "$T" /tmp/minikv-demo.db' EXIT

echo "-- training: two runs of the test inputs, one set file each"
$B/minikv --train "$T/run1.set" $D/train1.txt > /dev/null
$B/minikv --train "$T/run2.set" $D/train2.txt > /dev/null
echo "-- the union of the runs is the trained set"
build/ctxprof-set merge -o "$T/trained.set" "$T/run1.set" "$T/run2.set"
build/ctxprof-set info "$T/trained.set"
echo "-- production, normal input: different data, same code paths, nothing to report"
$B/minikv --check "$T/trained.set" $D/normal.txt > /dev/null
echo "-- production, input that uses a legacy indirect value (set x @/etc/hostname; get x twice)"
$B/minikv --check "$T/trained.set" $D/attack.txt > /dev/null
