# ctxprof - one Makefile, no configure step; outputs go to build/.
#
#   make            tools, examples and benchmarks (gcc, -O2)
#   make test       every test: gcc and clang, plain and with ASan+UBSan, the
#                   header compile checks (C99, C11, C++11); last line "N passed, N failed"
#   make demo       builds the examples and runs each on its workload
#   make bench      builds and runs every benchmark (ratio tables on stdout)
#   make check      alias of test;  make format: clang-format in place;  make clean
#   make stress, fuzz, memcheck, robustness: see docs/robustness.md
#   make install / uninstall PREFIX=... DESTDIR=...: headers, tools, pkg-config, CMake
#
# CC, CXX, CFLAGS and LDFLAGS are overridable.

ifeq ($(origin CC),default)
CC := gcc
endif
ifeq ($(origin CXX),default)
CXX := g++
endif
CLANG   ?= clang
CLANGXX ?= clang++
CFLAGS  ?= -O2 -g
LDFLAGS ?=
LDLIBS  := -lpthread -ldl -lrt -lm

B := build
HEADERS := ctxprof.h ctxprof_hcct.h ctxprof_pebs.h
# The strict warnings for library, tools and examples.
STRICT  := -Wall -Wextra -Werror -pedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
           -Wconversion -Wsign-conversion -Wundef
CXXSTRICT := -Wall -Wextra -Werror -pedantic -Wshadow -Wconversion -Wsign-conversion -Wundef \
             -Wold-style-cast -Wzero-as-null-pointer-constant
# Tests: the library is compiled inside the test TU; its strictness is
# covered by the compile checks, the test code itself by this set.
TESTWARN := -Wall -Wextra -Werror -Wshadow -Wundef
SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

.PHONY: all tool tools examples bench bench-build bench-smoke demo test check format clean install \
        uninstall deps test-tools fuzz fuzz-build memcheck stress robustness help
all: tools examples bench-build

help:
	@echo "make            tools, examples and benchmarks into build/"
	@echo "make demo       every capability at work on a real workload"
	@echo "make test       header checks, unit tests (gcc, clang, ASan+UBSan, musl), fuzz replays"
	@echo "make bench      the benchmark tables (minutes); make bench-smoke: each once, tiny"
	@echo "make stress     threads under ThreadSanitizer (STRESS_SECONDS, STRESS_THREADS)"
	@echo "make fuzz       libFuzzer on the parsers (FUZZ_SECONDS)"
	@echo "make robustness write faults, bounds and signal storms; make memcheck: valgrind"
	@echo "make install    PREFIX=... DESTDIR=...; make uninstall"
	@echo "make deps       what the optional builds need (libpfm4, libunwind, musl); make format; make clean"

# Filled by the module blocks below.
TEST_CFLAGS :=
TEST_LDLIBS :=
TOOLS :=
EXAMPLES :=
DEMOS :=
BENCHES :=
BENCH_RUNS :=
BENCH_SMOKE :=

# ---- modules ---------------------------------------------------------------
# Each module appends to TOOLS, EXAMPLES, DEMOS (shell scripts run by `make demo`),
# BENCHES, BENCH_RUNS (shell scripts run by `make bench`) and BENCH_SMOKE (benchmarks
# `make test` runs once with their smallest arguments) in its own block.

# ---- module: pcc ----
TOOLS += $(B)/ctxprof-set
$(B)/ctxprof-set: tools/ctxprof-set.c ctxprof.h
	@mkdir -p $(@D)
	$(CC) -std=gnu11 $(CFLAGS) $(STRICT) $< -o $@ $(LDFLAGS) $(LDLIBS)
EXAMPLES += $(B)/examples/anomaly/minikv
DEMOS += examples/anomaly/demo.sh
# -fno-inline only makes the report's backtrace show every handler; the
# context values come from the annotations and do not depend on inlining.
$(B)/examples/anomaly/minikv: examples/anomaly/minikv.c ctxprof.h
	@mkdir -p $(@D)
	$(CC) -std=gnu11 $(CFLAGS) -fno-inline $(STRICT) -I. $< -o $@ $(LDFLAGS) $(LDLIBS)

# Benchmark 1: per-call cost; one binary per compiler and context width
# (args: name, compiler, bits, binary suffix, extra flags). The .so variants
# (PCC with initial-exec or dynamic TLS) are measured against the same
# workload uninstrumented in a third -fPIC .so, built the same way: calls
# between a .so's two TUs go through the PLT in all three.
PCC_BFLAGS := -O2 -gdwarf-4 -fno-optimize-sibling-calls $(STRICT)
define pcc_calls_rule
BENCHES += $(B)/bench/pcc_calls_$(1)_$(4)
$(B)/bench/pcc_calls_$(1)_$(4): bench/pcc_calls.c bench/bench.h bench/pcc_fib.c bench/pcc_hooks.c ctxprof.h
	@set -e; o=$(B)/bench/obj/pcc_$(1)_$(4); mkdir -p $$$$o; \
	for s in 0 1; do \
	  $(2) -std=gnu11 $(PCC_BFLAGS) -DCTXPROF_CTX_BITS=$(3) $(5) -DSIDE=$$$$s -DVARIANT=plain \
	    -c bench/pcc_fib.c -o $$$$o/plain$$$$s.o; \
	  $(2) -std=gnu11 $(PCC_BFLAGS) -DCTXPROF_CTX_BITS=$(3) $(5) -DSIDE=$$$$s -DVARIANT=pcc -DUSE_PCC \
	    -c bench/pcc_fib.c -o $$$$o/pcc$$$$s.o; \
	  $(2) -std=gnu11 $(PCC_BFLAGS) -DCTXPROF_CTX_BITS=$(3) $(5) -DSIDE=$$$$s -DVARIANT=pccinv \
	    -DUSE_PCC_INV -c bench/pcc_fib.c -o $$$$o/pccinv$$$$s.o; \
	  $(2) -std=gnu11 $(PCC_BFLAGS) -DCTXPROF_CTX_BITS=$(3) $(5) -DSIDE=$$$$s -DVARIANT=finstr \
	    -finstrument-functions -c bench/pcc_fib.c -o $$$$o/finstr$$$$s.o; \
	  $(2) -std=gnu11 $(PCC_BFLAGS) -fPIC -DCTXPROF_CTX_BITS=$(3) $(5) -DSIDE=$$$$s -DVARIANT=plainso \
	    -c bench/pcc_fib.c -o $$$$o/so_plain$$$$s.pic; \
	  $(2) -std=gnu11 $(PCC_BFLAGS) -fPIC -DCTXPROF_CTX_BITS=$(3) $(5) -DSIDE=$$$$s -DVARIANT=pccso \
	    -DUSE_PCC -c bench/pcc_fib.c -o $$$$o/so_ie$$$$s.pic; \
	  $(2) -std=gnu11 $(PCC_BFLAGS) -fPIC -DCTXPROF_CTX_BITS=$(3) $(5) -DSIDE=$$$$s -DVARIANT=pccsodyn \
	    -DUSE_PCC -DCTXPROF_TLS_DYNAMIC -c bench/pcc_fib.c -o $$$$o/so_gd$$$$s.pic; \
	done; \
	$(2) -shared $$$$o/so_plain0.pic $$$$o/so_plain1.pic -o $(B)/bench/libpcc_$(1)_$(4)_plain.so; \
	$(2) -shared $$$$o/so_ie0.pic $$$$o/so_ie1.pic -o $(B)/bench/libpcc_$(1)_$(4)_ie.so; \
	$(2) -shared $$$$o/so_gd0.pic $$$$o/so_gd1.pic -o $(B)/bench/libpcc_$(1)_$(4)_gd.so; \
	$(2) -std=gnu11 $(PCC_BFLAGS) -c bench/pcc_hooks.c -o $$$$o/hooks.o; \
	$(2) -std=gnu11 $(PCC_BFLAGS) -DCTXPROF_CTX_BITS=$(3) $(5) bench/pcc_calls.c $$$$o/*.o -o $$@ \
	  -L$(B)/bench -lpcc_$(1)_$(4)_plain -lpcc_$(1)_$(4)_ie -lpcc_$(1)_$(4)_gd \
	  -Wl,-rpath,'$$$$ORIGIN' \
	  $(LDFLAGS) $(LDLIBS)
endef
$(eval $(call pcc_calls_rule,gcc,$(CC),64,64))
$(eval $(call pcc_calls_rule,gcc,$(CC),32,32))
$(eval $(call pcc_calls_rule,gcc,$(CC),64,64site64,-DCTXPROF_SITE_BITS=64))
$(eval $(call pcc_calls_rule,clang,$(CLANG),64,64))
$(eval $(call pcc_calls_rule,clang,$(CLANG),32,32))
$(eval $(call pcc_calls_rule,clang,$(CLANG),64,64site64,-DCTXPROF_SITE_BITS=64))
BENCH_RUNS += bench/pcc_calls.sh
BENCH_SMOKE += $(B)/bench/pcc_calls_gcc_64

# Benchmark 2: query cost. The libunwind build exists when libunwind-dev does.
PCC_QFLAGS := -O2 -gdwarf-4 -fno-omit-frame-pointer -fno-optimize-sibling-calls $(STRICT)
HAVE_LIBUNWIND := $(shell printf '\043include <libunwind.h>\nint main(void){return 0;}' | \
    $(CC) -x c - -o /dev/null -lunwind 2>/dev/null && echo 1)
BENCHES += $(B)/bench/pcc_query_gcc $(B)/bench/pcc_query_clang
$(B)/bench/pcc_query_gcc: bench/pcc_query.c bench/bench.h ctxprof.h
	@mkdir -p $(@D)
	$(CC) -std=gnu11 $(PCC_QFLAGS) $< -o $@ $(LDFLAGS) $(LDLIBS)
$(B)/bench/pcc_query_clang: bench/pcc_query.c bench/bench.h ctxprof.h
	@mkdir -p $(@D)
	$(CLANG) -std=gnu11 $(PCC_QFLAGS) $< -o $@ $(LDFLAGS) $(LDLIBS)
ifeq ($(HAVE_LIBUNWIND),1)
BENCHES += $(B)/bench/pcc_query_unwind
BENCH_SMOKE += $(B)/bench/pcc_query_unwind
$(B)/bench/pcc_query_unwind: bench/pcc_query.c bench/bench.h ctxprof.h
	@mkdir -p $(@D)
	$(CC) -std=gnu11 $(PCC_QFLAGS) -DWITH_LIBUNWIND $< -o $@ $(LDFLAGS) -lunwind $(LDLIBS)
endif
BENCH_RUNS += bench/pcc_query.sh
BENCH_SMOKE += $(B)/bench/pcc_query_gcc

# ---- module: encodings (pcce, valence, ctxprof-gen) ----
TOOLS += $(B)/ctxprof-gen

$(B)/ctxprof-gen: tools/ctxprof-gen.c ctxprof.h
	@mkdir -p $(@D)
	$(CC) -std=gnu11 $(CFLAGS) $(STRICT) tools/ctxprof-gen.c -o $@ $(LDFLAGS)

# examples/encoders: the header is generated from the call graph at build time
ENC_EX := $(B)/examples/encoders
EXAMPLES += $(ENC_EX)/expr $(ENC_EX)/unit_test
DEMOS += examples/encoders/demo.sh

$(ENC_EX)/expr_ctx.h: examples/encoders/expr.callgraph $(B)/ctxprof-gen
	@mkdir -p $(@D)
	$(B)/ctxprof-gen --all-schemes -o $@ examples/encoders/expr.callgraph

$(ENC_EX)/%: examples/encoders/%.c $(ENC_EX)/expr_ctx.h ctxprof.h
	$(CC) -std=gnu11 $(CFLAGS) $(STRICT) -I. -I$(ENC_EX) $< -o $@ $(LDFLAGS)

# bench: generator speed, encoding lengths, per-call and query cost
BENCHES += $(B)/bench/enc_synth $(B)/bench/enc_gen_speed $(B)/bench/enc_cost
BENCH_RUNS += bench/enc_bench.sh
# (enc_gen_speed's smoke run times the generator)
BENCH_SMOKE += $(B)/bench/enc_synth $(B)/bench/enc_gen_speed $(B)/bench/enc_cost $(B)/ctxprof-gen

$(B)/bench/enc_synth $(B)/bench/enc_gen_speed: $(B)/bench/%: bench/%.c
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 $(STRICT) $< -o $@ $(LDFLAGS)

$(B)/bench/enc_cost_ctx.h: bench/enc_cost.callgraph $(B)/ctxprof-gen
	@mkdir -p $(@D)
	$(B)/ctxprof-gen --all-schemes -o $@ bench/enc_cost.callgraph

# enc_cost's PCC column: the library's default configuration (64-bit
# contexts, 32-bit call-site ids), no CTXPROF_* flags.
$(B)/bench/enc_cost: bench/enc_cost.c bench/enc_cost_fib.c bench/enc_cost.h bench/bench.h $(B)/bench/enc_cost_ctx.h ctxprof.h
	$(CC) -std=gnu11 -O2 -g $(STRICT) -fno-optimize-sibling-calls -I. -I$(B)/bench \
	    bench/enc_cost.c bench/enc_cost_fib.c -o $@ $(LDFLAGS)

# ---- module: icpp ----
# (ctxprof-gen pad is built with the generator above.)

# calc: the end-to-end example, trained by -finstrument-functions hooks
# (whole program, no annotations); the demo rebuilds it with generated pads.
ICPP_HOOKFLAGS := -fno-omit-frame-pointer -finstrument-functions -DCTXPROF_ICPP_HOOKS \
    $(if $(findstring clang,$(CC)),,-finstrument-functions-exclude-file-list=ctxprof.h)
EXAMPLES += $(B)/examples/icpp/calc
DEMOS += examples/icpp/demo.sh
$(B)/examples/icpp/calc: examples/icpp/calc.c examples/icpp/step.h ctxprof.h
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 -g $(ICPP_HOOKFLAGS) -Wall -Wextra -Werror $< -o $@ $(LDFLAGS) $(LDLIBS)

# bench/icpp_bench: CID capture, the timer sampler, the padding searches;
# bench/icpp_train trains path maps of real workloads (compiled with the
# hooks, the driver without) for it. bench/icpp_bench.sh makes the maps.
ICPP_BFLAGS := -std=gnu11 -O2 -g -fno-omit-frame-pointer
$(B)/bench/icpp_bench: bench/icpp_bench.c bench/bench.h ctxprof.h
	@mkdir -p $(@D)
	$(CC) $(ICPP_BFLAGS) $(STRICT) $< -o $@ $(LDFLAGS) $(LDLIBS)
$(B)/bench/icpp_cparse.o: examples/hotpaths/cparse.c examples/hotpaths/cparse.h
	@mkdir -p $(@D)
	$(CC) $(ICPP_BFLAGS) $(STRICT) -finstrument-functions -DCPARSE_ENTRY=cparse_icpp -c $< -o $@
$(B)/bench/icpp_zw.o: bench/zipfwalk_workers.c
	@mkdir -p $(@D)
	$(CC) $(ICPP_BFLAGS) $(STRICT) -finstrument-functions -DZW_PFX=zwt_ -c $< -o $@
$(B)/bench/icpp_train: bench/icpp_train.c $(B)/bench/icpp_cparse.o $(B)/bench/icpp_zw.o \
                       examples/hotpaths/cparse.h ctxprof.h
	$(CC) $(ICPP_BFLAGS) $(STRICT) -DCTXPROF_ICPP_HOOKS $< $(B)/bench/icpp_cparse.o \
	    $(B)/bench/icpp_zw.o -o $@ $(LDFLAGS) $(LDLIBS)
# calc without the hooks (plain) and hand-annotated (CTXPROF_ICPP_FUNC): what
# the hooks build costs with training off (bench/icpp_bench.sh).
$(B)/bench/calc_plain: examples/icpp/calc.c examples/icpp/step.h ctxprof.h
	@mkdir -p $(@D)
	$(CC) $(ICPP_BFLAGS) -Wall -Wextra -Werror $< -o $@ $(LDFLAGS) $(LDLIBS)
$(B)/bench/calc_func: examples/icpp/calc.c examples/icpp/step.h ctxprof.h
	@mkdir -p $(@D)
	$(CC) $(ICPP_BFLAGS) -DCALC_FUNC -Wall -Wextra -Werror $< -o $@ $(LDFLAGS) $(LDLIBS)
BENCHES += $(B)/bench/icpp_bench $(B)/bench/icpp_train $(B)/examples/icpp/calc \
           $(B)/bench/calc_plain $(B)/bench/calc_func $(ENC_EX)/expr_ctx.h
BENCH_RUNS += bench/icpp_bench.sh
BENCH_SMOKE += $(B)/bench/icpp_bench $(B)/bench/icpp_train


# ---- module: hcct ----
# The HCCT benchmarks run every configuration in one process: the workload
# is compiled three times (plain; -finstrument-functions with the library's
# hooks; the same with the hook symbols renamed to empty functions).
HCCT_BFLAGS := -O2 -g -std=gnu11
HCCT_EMPTY := objcopy --redefine-sym __cyg_profile_func_enter=hb_empty_enter \
                      --redefine-sym __cyg_profile_func_exit=hb_empty_exit
$(B)/bench/zw_plain.o: bench/zipfwalk_workers.c
	@mkdir -p $(@D)
	$(CC) $(HCCT_BFLAGS) $(STRICT) -DZW_PFX=zwp_ -c $< -o $@
$(B)/bench/zw_inst.o: bench/zipfwalk_workers.c
	@mkdir -p $(@D)
	$(CC) $(HCCT_BFLAGS) $(STRICT) -finstrument-functions -DZW_PFX=zwi_ -c $< -o $@
$(B)/bench/zw_empty.o: bench/zipfwalk_workers.c
	@mkdir -p $(@D)
	$(CC) $(HCCT_BFLAGS) $(STRICT) -finstrument-functions -DZW_PFX=zwe_ -c $< -o $@.tmp.o
	$(HCCT_EMPTY) $@.tmp.o $@ && rm -f $@.tmp.o
# zw_layout: identical copies of the instrumented workers, only their
# addresses differ (what code placement alone moves)
ZWL_OBJS := $(foreach k,0 1 2 3 4 5,$(B)/bench/zwl$(k).o)
$(ZWL_OBJS): $(B)/bench/zwl%.o: bench/zipfwalk_workers.c
	@mkdir -p $(@D)
	$(CC) $(HCCT_BFLAGS) $(STRICT) -finstrument-functions -DZW_PFX=zwl$*_ -c $< -o $@
$(B)/bench/zw_layout: bench/zw_layout.c bench/zipfwalk.h bench/hb_empty.h bench/bench.h \
                      $(B)/bench/zw_plain.o $(B)/bench/zw_empty.o $(ZWL_OBJS) \
                      ctxprof.h ctxprof_hcct.h
	$(CC) $(HCCT_BFLAGS) $(STRICT) $< $(B)/bench/zw_plain.o $(B)/bench/zw_empty.o $(ZWL_OBJS) \
	    -o $@ $(LDFLAGS) $(LDLIBS)
$(B)/bench/zipfwalk: bench/zipfwalk.c bench/hcct_bench.h bench/bench.h bench/zipfwalk.h \
                     bench/hb_empty.h \
                     $(B)/bench/zw_plain.o \
                     $(B)/bench/zw_inst.o $(B)/bench/zw_empty.o ctxprof.h ctxprof_hcct.h
	$(CC) $(HCCT_BFLAGS) $(STRICT) $< $(B)/bench/zw_plain.o $(B)/bench/zw_inst.o \
	    $(B)/bench/zw_empty.o -o $@ $(LDFLAGS) $(LDLIBS)
$(B)/bench/cp_plain.o: examples/hotpaths/cparse.c examples/hotpaths/cparse.h
	@mkdir -p $(@D)
	$(CC) $(HCCT_BFLAGS) $(STRICT) -DCPARSE_ENTRY=cparse_plain -c $< -o $@
$(B)/bench/cp_inst.o: examples/hotpaths/cparse.c examples/hotpaths/cparse.h
	@mkdir -p $(@D)
	$(CC) $(HCCT_BFLAGS) $(STRICT) -finstrument-functions -DCPARSE_ENTRY=cparse_inst -c $< -o $@
$(B)/bench/cp_empty.o: examples/hotpaths/cparse.c examples/hotpaths/cparse.h
	@mkdir -p $(@D)
	$(CC) $(HCCT_BFLAGS) $(STRICT) -finstrument-functions -DCPARSE_ENTRY=cparse_empty \
	    -c $< -o $@.tmp.o
	$(HCCT_EMPTY) $@.tmp.o $@ && rm -f $@.tmp.o
$(B)/bench/cparse_bench: bench/cparse_bench.c bench/hcct_bench.h bench/bench.h bench/hb_empty.h \
                         examples/hotpaths/cparse.h \
                         $(B)/bench/cp_plain.o \
                         $(B)/bench/cp_inst.o $(B)/bench/cp_empty.o ctxprof.h ctxprof_hcct.h
	$(CC) $(HCCT_BFLAGS) $(STRICT) $< $(B)/bench/cp_plain.o $(B)/bench/cp_inst.o \
	    $(B)/bench/cp_empty.o -o $@ $(LDFLAGS) $(LDLIBS)
BENCHES += $(B)/bench/zipfwalk $(B)/bench/zw_layout $(B)/bench/cparse_bench
BENCH_RUNS += bench/hcct.sh
BENCH_SMOKE += $(B)/bench/zipfwalk $(B)/bench/zw_layout $(B)/bench/cparse_bench

# examples/hotpaths: a C parser profiled through the hooks (only the parser
# is compiled with -finstrument-functions; the library never is).
$(B)/examples/hotpaths: examples/hotpaths/hotpaths.c examples/hotpaths/cparse.c \
                        examples/hotpaths/cparse.h $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(HCCT_BFLAGS) $(STRICT) -finstrument-functions -c examples/hotpaths/cparse.c \
	    -o $(B)/examples/hotpaths_cparse.o
	$(CC) $(HCCT_BFLAGS) $(STRICT) examples/hotpaths/hotpaths.c $(B)/examples/hotpaths_cparse.o \
	    -o $@ $(LDFLAGS) $(LDLIBS)
EXAMPLES += $(B)/examples/hotpaths
DEMOS += examples/hotpaths/demo.sh

# ---- module: pebs ----
# libpfm4 is optional: a compile probe of its header decides (no configure
# step). With it, the test binaries build with CTXPROF_HAVE_LIBPFM and
# -lpfm; without it everything still builds and the libpfm test skips. The
# examples use built-in event names only and never need it. A stamp named
# after the result (pfm-1 or pfm-0) is a prerequisite of the test binaries,
# so installing or removing libpfm4-dev rebuilds them.
PFM_OK := $(shell printf '\043include <linux/perf_event.h>\n\043include <perfmon/pfmlib_perf_event.h>\nint main(void){return pfm_initialize();}\n' | \
            $(CC) -x c - -o /dev/null -lpfm >/dev/null 2>&1 && echo 1)
PFM_CFLAGS := $(if $(PFM_OK),-DCTXPROF_HAVE_LIBPFM,)
PFM_LIBS   := $(if $(PFM_OK),-lpfm,)
TEST_CFLAGS += $(PFM_CFLAGS)
TEST_LDLIBS += $(PFM_LIBS)
PFM_STAMP := $(B)/pfm-$(if $(PFM_OK),1,0).stamp
$(PFM_STAMP):
	@mkdir -p $(@D); rm -f $(B)/pfm-*.stamp; echo 'PFM_OK=$(PFM_OK)' > $@
$(foreach c,gcc clang gcc-san clang-san,$(B)/test/$(c)/test_ctxprof): $(PFM_STAMP)

# Benchmarks: sampling overhead (1/10/50 kHz vs unsampled and a SIGPROF
# timer) and the drain path's cost per sample.
PEBS_BFLAGS := -O2 -g -fno-optimize-sibling-calls $(STRICT)
BENCHES += $(B)/bench/pebs_overhead $(B)/bench/pebs_drain
$(B)/bench/pebs_overhead: bench/pebs_overhead.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) -std=gnu11 $(PEBS_BFLAGS) $< -o $@ $(LDFLAGS) $(LDLIBS)
$(B)/bench/pebs_drain: bench/pebs_drain.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) -std=gnu11 $(PEBS_BFLAGS) $< -o $@ $(LDFLAGS) $(LDLIBS)
BENCH_RUNS += bench/pebs.sh
BENCH_SMOKE += $(B)/bench/pebs_overhead $(B)/bench/pebs_drain

# Examples: hotfuncs (any machine), and the ICPP example program (calc)
# profiled by perf_event sampling when examples/icpp exists.
EXAMPLES += $(B)/examples/pebs/hotfuncs
DEMOS += examples/pebs/demo.sh
$(B)/examples/pebs/hotfuncs: examples/pebs/hotfuncs.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 -g -fno-omit-frame-pointer $(STRICT) $< -o $@ $(LDFLAGS) $(LDLIBS)

# calc_pebs: the ICPP example program (calc) profiled by perf_event sampling,
# built like calc (training hooks compiled in, off while sampling). Partial
# walks follow up to 64 frames of each sample's 4 KiB stack copy.
ifneq ($(wildcard examples/icpp/calc.c),)
EXAMPLES += $(B)/examples/pebs/calc_pebs
$(B)/examples/pebs/calc_pebs: examples/pebs/calc_pebs.c examples/icpp/calc.c examples/icpp/step.h ctxprof.h \
                              ctxprof_pebs.h
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 -g $(ICPP_HOOKFLAGS) -DCTXPROF_ICPP_FRAMES=64 \
	    $(if $(findstring clang,$(CC)),,-finstrument-functions-exclude-file-list=ctxprof_pebs.h) \
	    -Wall -Wextra -Werror $< -o $@ $(LDFLAGS) $(LDLIBS)
# and built plain (no hooks; frame pointers, leaves included): trained from
# the kernel's callchains of its own samples (ctxprof_pebs_train)
EXAMPLES += $(B)/examples/pebs/calc_pebs_plain
$(B)/examples/pebs/calc_pebs_plain: examples/pebs/calc_pebs.c examples/icpp/calc.c examples/icpp/step.h ctxprof.h \
                                    ctxprof_pebs.h
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer \
	    -DCTXPROF_ICPP_FRAMES=64 -Wall -Wextra -Werror $< -o $@ $(LDFLAGS) $(LDLIBS)
endif

# ---- packaging -----------------------------------------------------------------
# make install PREFIX=/usr/local DESTDIR= : headers, tools, pkg-config files
# (ctxprof.pc, and ctxprof-pfm.pc for the libpfm4 variant), a CMake package
# (find_package(ctxprof) -> INTERFACE targets ctxprof::ctxprof, ctxprof::pfm)
# and the documents (the tools' manual pages are docs/ctxprof-*.md).
PREFIX ?= /usr/local
DESTDIR ?=
VERSION := $(shell sed -n 's/^\#define CTXPROF_VERSION_STRING "\(.*\)"/\1/p' ctxprof.h)
SUBST = sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g'

install: $(TOOLS)
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/bin \
	    $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/lib/cmake/ctxprof \
	    $(DESTDIR)$(PREFIX)/share/doc/ctxprof/docs
	install -m 644 $(HEADERS) $(DESTDIR)$(PREFIX)/include/
	install -m 755 $(TOOLS) $(DESTDIR)$(PREFIX)/bin/
	for f in ctxprof.pc ctxprof-pfm.pc; do \
	    $(SUBST) tools/pkg/$$f.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/$$f; done
	for f in ctxprofConfig.cmake ctxprofConfigVersion.cmake; do \
	    $(SUBST) tools/pkg/$$f.in > $(DESTDIR)$(PREFIX)/lib/cmake/ctxprof/$$f; done
	install -m 644 README.md CHANGELOG.md LICENSE $(DESTDIR)$(PREFIX)/share/doc/ctxprof/
	install -m 644 docs/*.md $(DESTDIR)$(PREFIX)/share/doc/ctxprof/docs/

uninstall:
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/include/,$(HEADERS))
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/bin/,$(notdir $(TOOLS)))
	rm -f $(DESTDIR)$(PREFIX)/lib/pkgconfig/ctxprof.pc $(DESTDIR)$(PREFIX)/lib/pkgconfig/ctxprof-pfm.pc
	rm -rf $(DESTDIR)$(PREFIX)/lib/cmake/ctxprof $(DESTDIR)$(PREFIX)/share/doc/ctxprof

# Optional packages: libpfm4 (event names), libunwind (a benchmark baseline).
deps:
	@if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -q libpfm4-dev libunwind-dev musl-tools \
	        $(TEST_TOOLS) \
	        >/dev/null 2>&1 || echo "make deps: apt-get failed; optional parts are skipped"; \
	else echo "make deps: run as root on Debian, or install libpfm4-dev libunwind-dev musl-tools $(TEST_TOOLS)"; fi

# Stress: 16 threads doing everything at once under ThreadSanitizer, an
# observer thread querying while they run; counts must add up exactly
# (tests/stress.c). STRESS_SECONDS, STRESS_THREADS. No suppressions: any
# report fails.
STRESS_SECONDS ?= 10
STRESS_THREADS ?= 16
$(B)/stress/stress_tsan: tests/stress.c $(HEADERS)
	@mkdir -p $(@D)
	$(CLANG) -std=gnu11 -O1 -g -fsanitize=thread $(TESTWARN) $< -o $@ $(LDFLAGS) $(LDLIBS)
stress: $(B)/stress/stress_tsan
	TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
	    $(B)/stress/stress_tsan $(STRESS_SECONDS) $(STRESS_THREADS)

# The robustness cases of every module, with their figures (docs/robustness.md):
# writes cut at every byte offset and on a full disk, bounds under all-new
# contexts, signal storms, the tools under a file size limit.
robustness: $(B)/test/gcc/test_ctxprof $(TOOLS) $(EXAMPLES)
	$(B)/test/gcc/test_ctxprof _robust_

# Memcheck over the plain gcc unit tests (definite leaks and errors fail).
# --fair-sched: valgrind runs one thread at a time, and with its default lock
# two sampled threads starved a third for half an hour (pebs_live_signal_close).
# Cases that check where perf_event samples land skip under valgrind.
# Then the tools, on each kind of input they read.
VG := valgrind -q --error-exitcode=9 --leak-check=full --errors-for-leak-kinds=definite
memcheck: $(B)/test/gcc/test_ctxprof $(TOOLS) $(EXAMPLES)
	$(VG) --fair-sched=yes $(B)/test/gcc/test_ctxprof $(MEMCHECK_FILTER)
	@set -e; d=$(B)/memcheck; rm -rf $$d; mkdir -p $$d; \
	printf 'ctxprof-paths 1\npath 5 96 main f g\npath 3 96 main g f\npath 2 160 main f f g\n' \
	    > $$d/m.paths; \
	for k in 1 2; do (cd $$d && $(CURDIR)/$(B)/examples/anomaly/minikv --train t$$k.set \
	    $(CURDIR)/examples/anomaly/train$$k.txt > /dev/null 2>&1); done; \
	for c in "ctxprof-gen -o $$d/expr.h examples/encoders/expr.callgraph" \
	         "ctxprof-gen stats tests/data/fig3.txt" \
	         "ctxprof-gen check examples/encoders/expr.callgraph --walks 50" \
	         "ctxprof-gen pad -o $$d/pads.h $$d/m.paths" \
	         "ctxprof-set info $$d/t1.set" "ctxprof-set merge -o $$d/u.set $$d/t1.set $$d/t2.set"; do \
	    echo "memcheck: $$c"; $(VG) $(B)/$$c > /dev/null; done; \
	echo "memcheck: ctxprof-set diff $$d/t1.set $$d/t2.set"; \
	$(VG) $(B)/ctxprof-set diff $$d/t1.set $$d/t2.set > /dev/null || [ $$? -eq 1 ]

# ---- fuzzing -------------------------------------------------------------------
# libFuzzer targets in tests/fuzz/fuzz_<name>.c; seeds and regression inputs
# in tests/data/fuzz/<name>/. `make fuzz` runs each for FUZZ_SECONDS with a
# fixed seed; `make test` replays every input of tests/data/fuzz.
FUZZ_TARGETS := pcc_set graph_text graph_ci path_map hcct_profile perf_ring elf options eh_frame enc pad \
                gen_tool graph_multi path_str
FUZZ_SECONDS ?= 30
FUZZ_FLAGS := -std=gnu11 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
FUZZ_BINS = $(foreach t,$(FUZZ_TARGETS),$(B)/fuzz/fuzz_$(t))

$(B)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_util.h tests/hcct_same.h $(HEADERS)
	@mkdir -p $(@D)
	$(CLANG) $(FUZZ_FLAGS) $< -o $@ $(FUZZ_LIBS)
# the parsers inside ctxprof-gen: the tool's source, without its main
$(B)/fuzz/fuzz_gen_tool: tools/ctxprof-gen.c
# path strings demangled by __cxa_demangle (libstdc++)
$(B)/fuzz/fuzz_path_str: FUZZ_LIBS = -lstdc++
# both call-graph formats go through one parser: one source, two corpora
$(B)/fuzz/fuzz_graph_text $(B)/fuzz/fuzz_graph_ci: tests/fuzz/fuzz_graph.c $(HEADERS)
	@mkdir -p $(@D)
	$(CLANG) $(FUZZ_FLAGS) $< -o $@

fuzz-build: $(FUZZ_BINS)
fuzz: $(FUZZ_BINS)
	@set -e; for t in $(FUZZ_TARGETS); do \
	    rm -rf $(B)/fuzz/corpus/$$t; mkdir -p $(B)/fuzz/corpus/$$t $(B)/fuzz/crash/$$t; \
	    echo "== fuzz $$t: $(FUZZ_SECONDS) s"; \
	    if $(B)/fuzz/fuzz_$$t -seed=1 -max_total_time=$(FUZZ_SECONDS) -max_len=4096 \
	        -artifact_prefix=$(B)/fuzz/crash/$$t/ -print_final_stats=1 \
	        $(B)/fuzz/corpus/$$t tests/data/fuzz/$$t > $(B)/fuzz/$$t.log 2>&1; then \
	        grep -E '^stat::number_of_executed_units' $(B)/fuzz/$$t.log; \
	        echo "   corpus: $$(ls $(B)/fuzz/corpus/$$t | wc -l) inputs"; \
	    else \
	        grep -E 'ERROR|SUMMARY|#[0-9]+ ' $(B)/fuzz/$$t.log | head -20; \
	        echo "fuzz $$t: FAILED; the input is in $(B)/fuzz/crash/$$t/"; exit 1; \
	    fi; \
	done

# ---- aggregate targets -------------------------------------------------------

tool tools: $(TOOLS)
examples: $(EXAMPLES)
bench-build: $(BENCHES)

demo: $(EXAMPLES) $(TOOLS)
	@set -e; for d in $(DEMOS); do echo; echo "==== demo: $$d ===="; sh $$d; done

bench: $(BENCHES) $(TOOLS)
	@set -e; for r in $(BENCH_RUNS); do echo; echo "==== bench: $$r ===="; sh $$r; done

# The benchmarks of BENCH_SMOKE, each once with its smallest arguments
# (bench/smoke.sh; a few seconds): `make test` runs this, so a benchmark
# that can no longer start fails the tests, not the end of `make bench`.
bench-smoke: $(BENCH_SMOKE)
	@B=$(B) sh bench/smoke.sh

# ---- tests -----------------------------------------------------------------
TEST_DEPS := $(HEADERS) $(wildcard tests/*.c tests/*.h)
# The slowest first: tests/run.sh runs two at a time, each lane taking the next.
TEST_CONFIGS := gcc-san clang-san gcc clang
# musl (Alpine's libc), where Debian's musl-gcc is installed (make deps):
# its wrapper sees no kernel headers, so they come from a directory of links,
# and links without .eh_frame_hdr and build id, which Alpine's gcc adds.
MUSL_CC ?= musl-gcc
MUSL_LINK := -Wl,--eh-frame-hdr -Wl,--build-id
ifneq ($(shell command -v $(MUSL_CC) 2>/dev/null),)
TEST_CONFIGS += musl
endif
TEST_BINS := $(foreach c,$(TEST_CONFIGS),$(B)/test/$(c)/test_ctxprof)

cc_of = $(if $(findstring clang,$(1)),$(CLANG),$(CC))
san_of = $(if $(findstring san,$(1)),$(SAN),)

$(B)/test/%/test_ctxprof: $(TEST_DEPS)
	@mkdir -p $(@D)
	$(call cc_of,$*) -std=gnu11 -O1 -g $(TESTWARN) $(call san_of,$*) \
	    -DCTXPROF_TEST_CC='"$(call cc_of,$*)"' -DCTXPROF_TEST_CONFIG='"$*"' $(TEST_CFLAGS) \
	    tests/test_main.c -o $@ $(LDFLAGS) $(LDLIBS) $(TEST_LDLIBS)

$(B)/musl-include:
	@mkdir -p $@
	@for d in linux asm-generic; do ln -sfn /usr/include/$$d $@/$$d; done
	@ln -sfn /usr/include/$$($(CC) -dumpmachine)/asm $@/asm

$(B)/test/musl/test_ctxprof: $(TEST_DEPS) | $(B)/musl-include
	@mkdir -p $(@D)
	$(MUSL_CC) -std=gnu11 -O1 -g -fno-omit-frame-pointer $(TESTWARN) -isystem $(B)/musl-include \
	    -DCTXPROF_TEST_CC='"$(MUSL_CC) -isystem $(CURDIR)/$(B)/musl-include $(MUSL_LINK)"' \
	    -DCTXPROF_TEST_CONFIG='"musl"' tests/test_main.c -o $@ $(MUSL_LINK) $(LDLIBS)

# The tools some cases need besides gcc and clang (the C++ header checks and
# examples, the package test's pkg-config and CMake consumers): installed
# when missing, as root on Debian; otherwise named, and those cases fail.
TEST_TOOLS := g++ cmake pkg-config
test-tools:
	@missing=""; for t in $(TEST_TOOLS); do command -v $$t >/dev/null || missing="$$missing $$t"; done; \
	if [ -n "$$missing" ]; then \
	    if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	        echo "make test: installing$$missing"; \
	        DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing >/dev/null 2>&1 || \
	            echo "make test: apt-get failed: the cases that need$$missing will fail"; \
	    else echo "make test: missing$$missing (install them): the cases that need them fail"; fi; \
	fi

test check: test-tools $(TOOLS) $(EXAMPLES)
	@CC="$(CC)" CXX="$(CXX)" CLANG="$(CLANG)" CLANGXX="$(CLANGXX)" \
	 STRICT="$(STRICT)" CXXSTRICT="$(CXXSTRICT)" MAKE="$(MAKE)" \
	 TEST_BINS="$(TEST_BINS)" FUZZ_TARGETS="$(FUZZ_TARGETS)" BENCH_SMOKE="$(BENCH_SMOKE)" \
	 MUSL_CC="$(if $(filter musl,$(TEST_CONFIGS)),$(MUSL_CC))" sh tests/run.sh

format:
	clang-format -i $(HEADERS) $(wildcard tests/*.c tests/*.h tools/*.c bench/*.c examples/*/*.c)

clean:
	rm -rf $(B)
