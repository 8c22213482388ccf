# Builds mdlc, compiles every machines/*.mdl into generated/, and runs the tests.
# `make help` lists the targets. Missing Debian packages are installed first (or named).

CC      ?= gcc
# -O3 and link-time optimisation: the model's step inlines across modules (blocks 7%, all
# sensitivity lanes 11% faster than -O2 alone). Objects keep their machine code too, for the
# test runner: Criterion finds its tests in a section that link-time optimisation drops.
CFLAGS  ?= -O3 -g -flto=auto -ffat-lto-objects
WARN    := -Wall -Wextra -Wshadow -Werror
CPPFLAGS_ALL := -Imdl -Imdlc -Iprobe -Iruntime -Ifrontends -Ifrontends/isa -Ifrontends/static -Ifrontends/qemu -Ifrontends/host -Ifrontends/analysis -Ifrontends/views -Igenerated -Ibuild -D_GNU_SOURCE
CFLAGS_ALL   := -std=c11 $(WARN) $(CFLAGS)
B       := build
O       := build/obj

PKGS_BUILD := gcc make flex bison libjansson-dev libcapstone-dev libdw-dev libelf-dev binutils
PKGS_TEST  := $(PKGS_BUILD) libcriterion-dev qemu-user gcc-aarch64-linux-gnu python3 python3-jsonschema chromium
PKGS_BENCH := $(PKGS_BUILD) llvm-19 python3 qemu-user
PKGS_DEMO  := $(PKGS_BUILD) qemu-user

MDL_SRC   := mdl/alloc.c mdl/arena.c mdl/source.c mdl/diag.c mdl/ast.c mdl/map.c mdl/parse.c mdl/safefile.c mdl/sha256.c \
             mdl/formkey.c mdl/isainfo.c mdl/utf8.c mdl/suggest.c
MDLC_SRC  := mdlc/driver.c mdlc/resolve.c mdlc/check.c mdlc/lower.c mdlc/emit_c.c mdlc/emit_json.c mdlc/emit_text.c \
             mdlc/output.c mdlc/qemu_cpu.c mdlc/formcheck.c
IMPORT_SRC := mdlc/import_uops.c
RUNTIME_SRC := runtime/model.c runtime/lanes.c runtime/prep.c runtime/kernel.c runtime/topdown.c runtime/ports.c runtime/station.c runtime/taint.c runtime/shadow.c runtime/fills.c runtime/classify.c runtime/cache.c runtime/bp.c runtime/uopcache.c \
             $(wildcard runtime/policy/*.c) $(wildcard runtime/predictor/*.c)
FRONT_SRC := frontends/decode.c $(wildcard frontends/isa/*.c) frontends/static/block.c frontends/static/batch.c frontends/static/asm.c frontends/static/elfsym.c \
             frontends/static/loops.c frontends/static/periods.c \
             frontends/qemu/run.c frontends/qemu/pace.c frontends/qemu/tee.c frontends/qemu/feed.c frontends/qemu/stage.c frontends/qemu/sample.c frontends/qemu/transport.c frontends/qemu/launch.c frontends/host/proc.c frontends/host/cpus.c frontends/host/fdio.c \
             frontends/qemu/trace.c \
             frontends/qemu/console.c \
             frontends/analysis/result.c frontends/analysis/analysis.c frontends/analysis/robust.c \
             frontends/views/view_text.c frontends/views/view_json.c frontends/views/view_html.c \
             frontends/views/view_callgrind.c frontends/symbols.c
# mdlprobe: the x86-64 nano-benchmarks and the draft writer; it reads the base machine with mdlc's
# resolve and check passes and writes through mdlc's staged outputs.
PROBE_SRC := probe/x86.c probe/emulator.c probe/timer.c probe/nano.c probe/forms.c probe/calib.c probe/chase.c probe/xray.c \
             probe/core.c probe/findings.c probe/sysfs.c probe/base.c probe/plan.c probe/draft.c probe/rawjson.c
TEST_SRC  := $(wildcard tests/test_*.c) tests/scratch.c

MDL_OBJ   := $(MDL_SRC:%.c=$(O)/%.o) $(O)/parser.o $(O)/lexer.o
MDLC_OBJ  := $(MDLC_SRC:%.c=$(O)/%.o)
IMPORT_OBJ := $(IMPORT_SRC:%.c=$(O)/%.o)
SIM_OBJ   := $(RUNTIME_SRC:%.c=$(O)/%.o) $(FRONT_SRC:%.c=$(O)/%.o)
PROBE_OBJ := $(PROBE_SRC:%.c=$(O)/%.o) $(O)/mdlc/resolve.o $(O)/mdlc/check.o $(O)/mdlc/output.o $(O)/mdlc/formcheck.o

MACHINES  := $(wildcard machines/*.mdl)
MACHINE_NAMES := $(notdir $(MACHINES:.mdl=))
STAMPS    := $(MACHINE_NAMES:%=$(B)/gen/%.stamp)
GEN_OBJ   := $(MACHINE_NAMES:%=$(B)/gen/%.o)
UOPS_CSV  := $(wildcard machines/uops/*.csv)

.PHONY: all deps deps-test test check-generated demo bench crosscheck coverage import help clean sanitize fuzz
.DEFAULT_GOAL := all

all: $(B)/.deps-build $(B)/mdlc $(B)/uops2mdl $(GEN_OBJ) $(B)/mdlsim $(B)/libmdlplugin.so $(B)/wiredump $(B)/mdlprobe

help:
	@echo "make              build mdlc, mdlsim and mdlprobe; compile machines/*.mdl into generated/"
	@echo "make test         unit tests, golden diagnostics, freshness of generated/ and machines/uops/,"
	@echo "                  mdlprobe on this host (build/mdlprobe -o draft.mdl: measure the core, draft its .mdl)"
	@echo "make demo         compile the bundled machines and show what mdlc reports"
	@echo "make bench        mdlc compile times; mdlsim vs llvm-mca-19 on the BHive blocks (speed, accuracy)"
	@echo "make crosscheck   icelake/alderlake/skylake vs llvm-mca-19 on the BHive blocks, single forms vs uops.info"
	@echo "                  and cortex-a72 vs its data set (the numbers of machines/VALIDATION.md)"
	@echo "make coverage     forms per machine; share of instructions falling to a class default"
	@echo "make import       regenerate machines/uops/*.mdl from the uops.info tables"
	@echo "make sanitize     the whole suite under ASan+UBSan (build-san/)"
	@echo "make fuzz         the libFuzzer harnesses, FUZZ_SECONDS each (default 60), in build-fuzz/"
	@echo "make clean        remove build/, build-san/, build-fuzz/ (generated/ is kept: it is part of the sources)"

# Package checks run once per build tree; the stamp is refreshed when the lists change.
$(B)/.deps-build: Makefile | $(B)
	@.ci/ensure-deps $(PKGS_BUILD)
	@touch $@
$(B)/.deps-test: Makefile | $(B)
	@.ci/ensure-deps $(PKGS_TEST)
	@touch $@

BUILD_DIRS := $(O)/mdl $(O)/mdlc $(O)/tests/fuzz $(O)/runtime/policy $(O)/runtime/predictor $(O)/frontends/static \
              $(O)/frontends/isa $(O)/frontends/qemu $(O)/frontends/host $(B)/gen $(B)/deps $(B)/tests
$(B):
	@mkdir -p $(BUILD_DIRS)

# ---- the language library ----------------------------------------------------------------
# One bison run makes both (a grouped target: with two, make -j2 ran bison twice at once, each
# writing the same files).
$(B)/parser.c $(B)/parser.h &: mdl/parser.y $(B)/.deps-build
	bison -Wall -Werror -o $(B)/parser.c --header=$(B)/parser.h $<
$(B)/lexer.c $(B)/lexer.gen.h &: mdl/lexer.l $(B)/parser.h
	flex --header-file=$(B)/lexer.gen.h -o $(B)/lexer.c $<

# -MMD: the headers they include (diag.h's bounds, ast.h) rebuild them as they do every object
$(O)/parser.o: $(B)/parser.c | $(B)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -MMD -MP -c -o $@ $<
# flex's skeleton has unused helpers and signed/unsigned comparisons we do not control.
$(O)/lexer.o: $(B)/lexer.c | $(B)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -MMD -MP -Wno-unused-function -Wno-sign-compare -c -o $@ $<

# The kernel's passes take the cycle of a time (floor): GCC vectorises floor only where no
# floating-point trap is to be kept, and the model reads no trap flags (the values are the same).
$(O)/runtime/kernel.o: CFLAGS_ALL += -fno-trapping-math

$(O)/%.o: %.c $(B)/parser.h $(B)/lexer.gen.h | $(B)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -MMD -MP -c -o $@ $<

-include $(shell find $(O) -name '*.d' 2>/dev/null)


# mdlc links Capstone, the decoder's library, to check that a description's form keys are ones
# the decoder can spell (mdl/formkey.c): the same shared library mdlsim decodes with at run time,
# so the check follows an upgrade of it without a table to regenerate.
$(B)/mdlc: $(O)/mdlc/main.o $(MDLC_OBJ) $(MDL_OBJ)
	$(CC) $(CFLAGS_ALL) -o $@ $^ -lcapstone -ljansson -lm

# The importer checks each row's form as mdlc does (mdlc/formcheck.c), hence mdlc's objects.
$(B)/uops2mdl: $(O)/mdlc/uops2mdl.o $(IMPORT_OBJ) $(MDLC_OBJ) $(MDL_OBJ)
	$(CC) $(CFLAGS_ALL) -o $@ $^ -lcapstone -ljansson -lm

# ---- machines -> generated/ ---------------------------------------------------------------
# mdlc rewrites a generated file only when its content changes and lists the .mdl files it
# read in a depfile; the stamp records that the check was done, so a second make does nothing.
# The bundled machines give a source for every number (spec.md §7): a value without one fails.
# A user's description dropped into machines/ builds too, whatever its file name (the outputs are
# named after the file); a value without a source is a warning for it.
BUNDLED_MACHINES   := skylake icelake alderlake cortex-a72
MDLC_MACHINE_FLAGS := -Wmissing-source --Werror
MDLC_USER_FLAGS    := -Wmissing-source
$(B)/gen/%.stamp: machines/%.mdl $(B)/mdlc | $(B)
	$(B)/mdlc -I machines $(if $(filter $*,$(BUNDLED_MACHINES)),$(MDLC_MACHINE_FLAGS),$(MDLC_USER_FLAGS)) \
	    -o generated --basename $* --depfile $(B)/deps/$*.d --deptarget $@ $<
	@touch $@
-include $(wildcard $(B)/deps/*.d)

generated/%.c generated/%.h: $(B)/gen/%.stamp ;
.SECONDARY: $(STAMPS)

# Proves the emitted C builds with -Werror; mdlsim links these objects.
$(B)/gen/%.o: $(B)/gen/%.stamp runtime/mdl_machine.h mdl/isa_enum.h mdl/class.def mdl/depend.def mdl/param.def
	$(CC) $(CPPFLAGS_ALL) -Igenerated $(CFLAGS_ALL) -c -o $@ generated/$*.c

# The list of machines compiled into mdlsim: wiring only, from the tables the generated headers
# declare (a machine's name need not be its file's). Two files declaring one machine are refused.
# machines.list changes (and only then) when a description is added or removed.
MACHINE_LIST := $(B)/gen/machines.list
# (the whole tree: $(B) then exists before make looks at it, and its rule never runs)
$(shell mkdir -p $(BUILD_DIRS) && { echo '$(MACHINE_NAMES)' | cmp -s - $(MACHINE_LIST) || echo '$(MACHINE_NAMES)' > $(MACHINE_LIST); })
# --version names the commit built (mdl/version.h); rewritten only when that changes, so that
# the three mains recompile then and only then. From a tarball (no .git) it is never written.
GIT_VERSION := $(shell test -e .git && git describe --always --dirty 2>/dev/null)
ifneq ($(GIT_VERSION),)
$(shell echo '#define MDL_GIT_VERSION "$(GIT_VERSION)"' | cmp -s - $(B)/git_version.h || \
        echo '#define MDL_GIT_VERSION "$(GIT_VERSION)"' > $(B)/git_version.h)
endif
$(B)/gen/registry.c: Makefile $(MACHINE_LIST) $(STAMPS) | $(B)
	@syms=$$(sed -n 's/^extern const struct mdl_machine \(mdl_machine_[A-Za-z0-9_]*\);$$/\1/p' \
	        $(MACHINE_NAMES:%=generated/%.h)); \
	 dup=$$(printf '%s\n' $$syms | sort | uniq -d); \
	 if [ -n "$$dup" ]; then echo "make: error: machines/ holds two descriptions of $$dup" >&2; exit 1; fi; \
	 { echo '/* Generated by make: the machines compiled into mdlsim. */'; \
	   echo '#include "mdl_machine.h"'; \
	   for m in $$syms; do echo "extern const struct mdl_machine $$m;"; done; \
	   echo 'const struct mdl_machine *const mdl_machines[] = {'; \
	   for m in $$syms; do echo "    &$$m,"; done; \
	   echo '    0,'; echo '};'; } > $@.tmp && mv $@.tmp $@
$(B)/gen/registry.o: $(B)/gen/registry.c runtime/mdl_machine.h mdl/isa_enum.h mdl/param.def
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -c -o $@ $<

# --mdl FILE: mdlsim runs mdlc and the C compiler, and loads the result (frontends/mdlfile.c);
# the headers that result is compiled against are inside mdlsim (mdlfile_abi.S). --set writes such
# a description itself (frontends/mdlset.c).
$(O)/frontends/mdlfile_abi.o: frontends/mdlfile_abi.S runtime/mdl_machine.h mdl/isa_enum.h mdl/class.def mdl/depend.def mdl/isa.def mdl/param.def | $(B)
	$(CC) -c -o $@ $<
MDLFILE_OBJ := $(O)/frontends/mdlfile.o $(O)/frontends/mdlfile_abi.o $(O)/frontends/mdlset.o
# What the simulator's objects use of the language library.
SIM_LIB := $(O)/mdl/alloc.o $(O)/mdl/safefile.o $(O)/mdl/sha256.o $(O)/mdl/formkey.o $(O)/mdl/isainfo.o $(O)/mdl/utf8.o $(O)/mdl/suggest.o

$(B)/mdlsim: $(O)/frontends/mdlsim.o $(SIM_OBJ) $(SIM_LIB) $(MDLFILE_OBJ) $(GEN_OBJ) $(B)/gen/registry.o
	$(CC) $(CFLAGS_ALL) -pthread -o $@ $^ -lcapstone -ljansson -ldw -lelf -lm

$(B)/mdlprobe: $(O)/probe/mdlprobe.o $(PROBE_OBJ) $(MDL_OBJ)
	$(CC) $(CFLAGS_ALL) -o $@ $^ -lcapstone -ljansson -lm

# The QEMU plugin is loaded by qemu-user, so it is a shared object beside mdlsim.
$(B)/libmdlplugin.so: frontends/qemu/plugin.c frontends/qemu/wire.h | $(B)
	$(CC) $(CFLAGS_ALL) -fPIC -shared -Ifrontends/qemu -o $@ $<
$(B)/wiredump: frontends/qemu/wiredump.c frontends/qemu/wire.h | $(B)
	$(CC) $(CFLAGS_ALL) -Ifrontends/qemu -o $@ $<

# ---- the uops.info importer ---------------------------------------------------------------
import: $(B)/uops2mdl
	for f in $(UOPS_CSV); do $(B)/uops2mdl $$f $${f%.csv}.mdl || exit 1; done

# ---- tests -------------------------------------------------------------------------------
# Guest programs for `mdlsim run`: x86-64 without PIE (so symbols are run-time addresses) and
# static AArch64 binaries for qemu-aarch64. With debug information, for symbols and source lines
# at run-time addresses: x86-64 PIE (mapped anywhere) and dynamically linked AArch64 (libraries
# from the cross compiler's sysroot).
PROGRAMS := $(notdir $(basename $(wildcard tests/programs/*.c)))
PROGRAM_HEADERS := $(wildcard tests/programs/*.h)
# A static x86-64 build of exact, for a golden report whose whole run must not depend on the
# host's dynamic loader and its cache (/etc/ld.so.cache changes with the packages installed).
PROGRAM_BINS := $(PROGRAMS:%=$(B)/programs/%.x86) $(PROGRAMS:%=$(B)/programs/%.a64) \
                $(PROGRAMS:%=$(B)/programs/%.pie) $(PROGRAMS:%=$(B)/programs/%.a64dyn) \
                $(B)/programs/exact.x86static
$(B)/programs/%.x86: tests/programs/%.c $(PROGRAM_HEADERS) | $(B)/.deps-build
	@mkdir -p $(dir $@)
	$(CC) -O2 -no-pie -pthread -o $@ $<
$(B)/programs/%.x86static: tests/programs/%.c $(PROGRAM_HEADERS) | $(B)/.deps-build
	@mkdir -p $(dir $@)
	$(CC) -O2 -static -pthread -o $@ $<
$(B)/programs/%.a64: tests/programs/%.c $(PROGRAM_HEADERS) | $(B)/.deps-test
	@mkdir -p $(dir $@)
	aarch64-linux-gnu-gcc -O2 -static -pthread -o $@ $<
$(B)/programs/%.pie: tests/programs/%.c $(PROGRAM_HEADERS) | $(B)/.deps-build
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -pie -fPIE -pthread -o $@ $<
$(B)/programs/%.a64dyn: tests/programs/%.c $(PROGRAM_HEADERS) | $(B)/.deps-test
	@mkdir -p $(dir $@)
	aarch64-linux-gnu-gcc -O2 -g -pthread -o $@ $<

# A region inside a shared library: uselib calls lib_kernel_exact in libkexact.so, found beside it
# ($ORIGIN), for each ISA.
LIB_BINS := $(B)/programs/uselib.x86dyn $(B)/programs/uselib.lib64dyn
$(B)/programs/libkexact-x86.so: tests/programs/lib/kexact.c | $(B)/.deps-build
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -shared -fPIC -Wl,-soname,$(notdir $@) -o $@ $<
$(B)/programs/libkexact-a64.so: tests/programs/lib/kexact.c | $(B)/.deps-test
	@mkdir -p $(dir $@)
	aarch64-linux-gnu-gcc -O2 -g -shared -fPIC -Wl,-soname,$(notdir $@) -o $@ $<
$(B)/programs/uselib.x86dyn: tests/programs/lib/uselib.c $(B)/programs/libkexact-x86.so
	$(CC) -O2 -g -o $@ $< $(B)/programs/libkexact-x86.so -Wl,-rpath,'$$ORIGIN'
$(B)/programs/uselib.lib64dyn: tests/programs/lib/uselib.c $(B)/programs/libkexact-a64.so
	aarch64-linux-gnu-gcc -O2 -g -o $@ $< $(B)/programs/libkexact-a64.so -Wl,-rpath,'$$ORIGIN'

$(B)/tests/run: $(TEST_SRC:%.c=$(O)/%.o) $(MDLC_OBJ) $(MDL_OBJ) $(IMPORT_OBJ) $(SIM_OBJ) $(GEN_OBJ) \
               $(PROBE_SRC:%.c=$(O)/%.o) | $(B)/.deps-test
	$(CC) $(CFLAGS_ALL) -fno-lto -pthread -o $@ $^ -lcriterion -lcapstone -ljansson -ldw -lelf -lm

check-generated: $(B)/mdlc $(B)/uops2mdl
	@tests/check-generated.sh $(B)

# The Criterion suite first: the shell tests after it measure this host and run QEMU, and must not
# keep the unit tests from running when one of them fails.
test: $(B)/.deps-test all $(B)/tests/run $(PROGRAM_BINS) $(LIB_BINS) check-generated
	@cd tests && ../$(B)/tests/run --jobs 2
	@tests/qemu/run-plugin-test.sh > $(B)/plugin-test.log 2>&1 || { cat $(B)/plugin-test.log; exit 1; }
	@tail -n 1 $(B)/plugin-test.log
	@tests/dropin.sh $(B)
	@tests/probe/run-probe-test.sh > $(B)/probe-test.log 2>&1 || { cat $(B)/probe-test.log; exit 1; }
	@tail -n 1 $(B)/probe-test.log

# The tools and the whole suite under AddressSanitizer and UndefinedBehaviorSanitizer, LTO off, in
# build-san/. The QEMU plugin is the plain build's: QEMU cannot load a sanitized shared object.
# (-Wno-format-truncation: GCC 12 takes arena_printf's vsnprintf(NULL, 0) for a null format under
# the sanitizers' instrumentation. -DSTAGE_CHECK: the caches' stage checks that each level the
# reader takes is its access's; the fuzzers' build checks it too.)
SAN := build-san
SAN_CFLAGS := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer \
              -Wno-format-truncation -DSTAGE_CHECK
sanitize: all $(B)/.deps-test
	$(MAKE) --no-print-directory B=$(SAN) O=$(SAN)/obj CFLAGS="$(SAN_CFLAGS)" $(SAN)/mdlc $(SAN)/mdlsim $(SAN)/mdlprobe \
	    $(SAN)/wiredump $(SAN)/tests/run $(subst $(B)/,$(SAN)/,$(PROGRAM_BINS) $(LIB_BINS))
	cp $(B)/libmdlplugin.so $(SAN)/libmdlplugin.so
	@tests/sanitize.sh $(SAN)

# libFuzzer harnesses (Debian's clang): a description through every pass of mdlc, a block through
# decoding and analysis on every machine. Built with clang in build-fuzz/ (warnings are gcc's to
# stop on), run for FUZZ_SECONDS each; CI runs them briefly.
FUZZ := build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_CFLAGS := -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -DSTAGE_CHECK
PKGS_FUZZ := $(PKGS_BUILD) clang xxd
$(B)/fuzz_mdl: $(O)/tests/fuzz/fuzz_mdl.o $(MDLC_OBJ) $(MDL_OBJ)
	$(CC) $(CFLAGS_ALL) -fsanitize=fuzzer -o $@ $^ -lcapstone -ljansson -lm
$(B)/fuzz_block: $(O)/tests/fuzz/fuzz_block.o $(SIM_OBJ) $(SIM_LIB) $(GEN_OBJ) $(B)/gen/registry.o
	$(CC) $(CFLAGS_ALL) -fsanitize=fuzzer -pthread -o $@ $^ -lcapstone -ljansson -ldw -lelf -lm
$(B)/fuzz_trace: $(O)/tests/fuzz/fuzz_trace.o $(SIM_OBJ) $(SIM_LIB) $(GEN_OBJ)
	$(CC) $(CFLAGS_ALL) -fsanitize=fuzzer -pthread -o $@ $^ -lcapstone -ljansson -ldw -lelf -lm
ISA_OBJ := $(O)/frontends/decode.o $(patsubst %.c,$(O)/%.o,$(wildcard frontends/isa/*.c)) $(O)/mdl/formkey.o \
           $(O)/mdl/isainfo.o $(O)/mdl/alloc.o
$(B)/fuzz_elf: $(O)/tests/fuzz/fuzz_elf.o $(O)/frontends/static/elfsym.o $(O)/frontends/symbols.o $(ISA_OBJ) \
           $(O)/mdl/safefile.o $(O)/mdl/suggest.o
	$(CC) $(CFLAGS_ALL) -fsanitize=fuzzer -o $@ $^ -lcapstone -ldw -lelf
$(B)/.deps-fuzz: Makefile | $(B)
	@.ci/ensure-deps $(PKGS_FUZZ)
	@touch $@
fuzz: all $(B)/.deps-fuzz
	$(MAKE) --no-print-directory B=$(FUZZ) O=$(FUZZ)/obj CC=clang WARN="-Wall -Wextra -Wno-unused-command-line-argument" \
	    CFLAGS="$(FUZZ_CFLAGS)" $(FUZZ)/fuzz_mdl $(FUZZ)/fuzz_block $(FUZZ)/fuzz_trace $(FUZZ)/fuzz_elf
	@tests/fuzz/run.sh $(FUZZ) $(FUZZ_SECONDS)

$(B)/.deps-demo: Makefile | $(B)
	@.ci/ensure-deps $(PKGS_DEMO)
	@touch $@

demo: all $(B)/.deps-demo $(B)/programs/gemm.x86
	@tests/demo.sh $(B)

$(B)/.deps-bench: Makefile | $(B)
	@.ci/ensure-deps $(PKGS_BENCH)
	@touch $@

bench: all $(B)/.deps-bench
	@tests/bench.sh $(B)

# The machines without a block reference (Ice Lake, Alder Lake) checked against llvm-mca-19 and
# uops.info's single-instruction facts; machines/VALIDATION.md explains the differences.
crosscheck: all $(B)/.deps-bench
	@python3 tests/crosscheck.py --mdlsim $(B)/mdlsim

coverage: all $(B)/.deps-bench $(B)/.deps-test $(PROGRAM_BINS)
	@python3 tests/coverage.py $(B)

clean:
	rm -rf $(B) $(SAN) $(FUZZ)
