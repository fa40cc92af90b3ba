# ctxprof - one Makefile, no configure step; outputs go to build/.
#
#   make            tools, examples and benchmarks (gcc, -O2)
#   make test       every test: gcc and clang, plain and with ASan+UBSan, the
#                   header compile checks (C99, C11, C++11); last line "N passed, N failed"
#   make demo       builds the examples and runs each on its workload
#   make bench      builds and runs every benchmark (ratio tables on stdout)
#   make check      alias of test;  make format: clang-format in place;  make clean
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
LDLIBS  := -lpthread -ldl -lrt

B := build
HEADERS := ctxprof.h ctxprof_hcct.h ctxprof_pebs.h
# The strict set of STYLE.md section 6, for library, tools and examples.
STRICT  := -Wall -Wextra -Werror -pedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
           -Wconversion -Wsign-conversion -Wundef
CXXSTRICT := -Wall -Wextra -Werror -pedantic -Wshadow -Wconversion -Wsign-conversion -Wundef
# Tests: the library is compiled inside the test TU; its strictness is
# covered by the compile checks, the test code itself by this set.
TESTWARN := -Wall -Wextra -Werror -Wshadow -Wundef
SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

.PHONY: all tool tools examples bench bench-build demo test check format clean
all: tools examples bench-build

# Filled by the module blocks below.
TOOLS :=
EXAMPLES :=
DEMOS :=
BENCHES :=
BENCH_RUNS :=

# ---- modules ---------------------------------------------------------------
# Each module appends to TOOLS, EXAMPLES, DEMOS (shell scripts run by `make demo`),
# BENCHES and BENCH_RUNS (shell scripts run by `make bench`) in its own block.

# ---- module: pcc ----

# ---- module: encodings (pcce, valence, ctxprof-gen) ----

# ---- module: icpp ----

# ---- module: hcct ----
# zipfwalk (../shared/workloads/zipfwalk.md): the workers are compiled three
# times (plain; -finstrument-functions with the library's hooks; the same
# with the hook symbols renamed to empty functions) so that every
# configuration runs in one process.
HCCT_BFLAGS := -O2 -g -std=gnu11
$(B)/bench/zw_plain.o: bench/zipfwalk_workers.c
	@mkdir -p $(@D)
	$(CC) $(HCCT_BFLAGS) $(STRICT) -DZW_PFX=zwp_ -c $< -o $@
$(B)/bench/zw_inst.o: bench/zipfwalk_workers.c
	@mkdir -p $(@D)
	$(CC) $(HCCT_BFLAGS) $(STRICT) -finstrument-functions -DZW_PFX=zwi_ -c $< -o $@
$(B)/bench/zw_empty.o: bench/zipfwalk_workers.c
	@mkdir -p $(@D)
	$(CC) $(HCCT_BFLAGS) $(STRICT) -finstrument-functions -DZW_PFX=zwe_ -c $< -o $@.tmp.o
	objcopy --redefine-sym __cyg_profile_func_enter=zw_empty_enter \
	    --redefine-sym __cyg_profile_func_exit=zw_empty_exit $@.tmp.o $@
	@rm -f $@.tmp.o
$(B)/bench/zipfwalk: bench/zipfwalk.c $(B)/bench/zw_plain.o $(B)/bench/zw_inst.o \
                     $(B)/bench/zw_empty.o ctxprof.h ctxprof_hcct.h
	$(CC) $(HCCT_BFLAGS) $(STRICT) $< $(B)/bench/zw_plain.o $(B)/bench/zw_inst.o \
	    $(B)/bench/zw_empty.o -o $@ $(LDFLAGS) $(LDLIBS)
BENCHES += $(B)/bench/zipfwalk
BENCH_RUNS += bench/zipfwalk.sh

# ---- module: pebs ----

# ---- aggregate targets -------------------------------------------------------

tool tools: $(TOOLS)
examples: $(EXAMPLES)
bench-build: $(BENCHES)

demo: $(EXAMPLES) $(TOOLS)
	@set -e; for d in $(DEMOS); do echo; echo "==== demo: $$d ===="; sh $$d; done

bench: $(BENCHES) $(TOOLS)
	@set -e; for r in $(BENCH_RUNS); do echo; echo "==== bench: $$r ===="; sh $$r; done

# ---- tests -----------------------------------------------------------------
TEST_DEPS := $(HEADERS) $(wildcard tests/*.c tests/*.h)
TEST_CONFIGS := gcc clang gcc-san clang-san
TEST_BINS := $(foreach c,$(TEST_CONFIGS),$(B)/test/$(c)/test_ctxprof)

cc_of = $(if $(findstring clang,$(1)),$(CLANG),$(CC))
san_of = $(if $(findstring san,$(1)),$(SAN),)

$(B)/test/%/test_ctxprof: $(TEST_DEPS)
	@mkdir -p $(@D)
	$(call cc_of,$*) -std=gnu11 -O1 -g $(TESTWARN) $(call san_of,$*) \
	    -DCTXPROF_TEST_CC='"$(call cc_of,$*)"' -DCTXPROF_TEST_CONFIG='"$*"' \
	    tests/test_main.c -o $@ $(LDFLAGS) $(LDLIBS)

test check: $(TOOLS)
	@CC="$(CC)" CXX="$(CXX)" CLANG="$(CLANG)" CLANGXX="$(CLANGXX)" \
	 STRICT="$(STRICT)" CXXSTRICT="$(CXXSTRICT)" MAKE="$(MAKE)" \
	 TEST_BINS="$(TEST_BINS)" sh tests/run.sh

format:
	clang-format -i $(HEADERS) $(wildcard tests/*.c tests/*.h tools/*.c bench/*.c examples/*/*.c)

clean:
	rm -rf $(B)
