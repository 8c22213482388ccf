# Builds mdlc, compiles every machines/*.mdl into generated/, and runs the tests.
# `make help` lists the targets. Missing Debian packages are installed first (or named).

CC      ?= gcc
CFLAGS  ?= -O2 -g
WARN    := -Wall -Wextra -Werror
CPPFLAGS_ALL := -Imdl -Imdlc -Iruntime -Ibuild -D_GNU_SOURCE
CFLAGS_ALL   := -std=c11 $(WARN) $(CFLAGS)
B       := build
O       := build/obj

PKGS_BUILD := gcc make flex bison libjansson-dev
PKGS_TEST  := $(PKGS_BUILD) libcriterion-dev

MDL_SRC   := mdl/arena.c mdl/source.c mdl/diag.c mdl/ast.c mdl/map.c mdl/parse.c
MDLC_SRC  := mdlc/driver.c mdlc/resolve.c mdlc/check.c mdlc/lower.c mdlc/emit_c.c mdlc/emit_json.c mdlc/emit_text.c \
             mdlc/output.c
IMPORT_SRC := mdlc/import_uops.c
TEST_SRC  := $(wildcard tests/test_*.c)

MDL_OBJ   := $(MDL_SRC:%.c=$(O)/%.o) $(O)/parser.o $(O)/lexer.o
MDLC_OBJ  := $(MDLC_SRC:%.c=$(O)/%.o)
IMPORT_OBJ := $(IMPORT_SRC:%.c=$(O)/%.o)

MACHINES  := $(wildcard machines/*.mdl)
MACHINE_NAMES := $(notdir $(MACHINES:.mdl=))
STAMPS    := $(MACHINE_NAMES:%=$(B)/gen/%.stamp)
GEN_OBJ   := $(MACHINE_NAMES:%=$(B)/gen/%.o)
UOPS_CSV  := $(wildcard machines/uops/*.csv)

.PHONY: all deps deps-test test check-generated demo bench import help clean
.DEFAULT_GOAL := all

all: $(B)/.deps-build $(B)/mdlc $(B)/uops2mdl $(GEN_OBJ)

help:
	@echo "make              build mdlc and compile machines/*.mdl into generated/"
	@echo "make test         unit tests, golden diagnostics, freshness of generated/ and machines/uops/"
	@echo "make demo         compile the bundled machines and show what mdlc reports"
	@echo "make bench        time mdlc and the C compiler on every machine"
	@echo "make import       regenerate machines/uops/*.mdl from the uops.info tables"
	@echo "make clean        remove build/ (generated/ is kept: it is part of the sources)"

# Package checks run once per build tree; the stamp is refreshed when the lists change.
$(B)/.deps-build: Makefile | $(B)
	@.ci/ensure-deps $(PKGS_BUILD)
	@touch $@
$(B)/.deps-test: Makefile | $(B)
	@.ci/ensure-deps $(PKGS_TEST)
	@touch $@

$(B):
	@mkdir -p $(O)/mdl $(O)/mdlc $(O)/tests $(B)/gen $(B)/deps $(B)/tests

# ---- the language library ----------------------------------------------------------------
$(B)/parser.c $(B)/parser.h: mdl/parser.y $(B)/.deps-build
	bison -Wall -Werror -o $(B)/parser.c --header=$(B)/parser.h $<
$(B)/lexer.c $(B)/lexer.gen.h: mdl/lexer.l $(B)/parser.h
	flex --header-file=$(B)/lexer.gen.h -o $(B)/lexer.c $<

$(O)/parser.o: $(B)/parser.c | $(B)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -c -o $@ $<
# flex's skeleton has unused helpers and signed/unsigned comparisons we do not control.
$(O)/lexer.o: $(B)/lexer.c | $(B)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -Wno-unused-function -Wno-sign-compare -c -o $@ $<

$(O)/%.o: %.c $(B)/parser.h $(B)/lexer.gen.h | $(B)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -MMD -MP -c -o $@ $<

-include $(shell find $(O) -name '*.d' 2>/dev/null)

$(B)/mdlc: $(O)/mdlc/main.o $(MDLC_OBJ) $(MDL_OBJ)
	$(CC) $(CFLAGS_ALL) -o $@ $^ -ljansson -lm

$(B)/uops2mdl: $(O)/mdlc/uops2mdl.o $(IMPORT_OBJ)
	$(CC) $(CFLAGS_ALL) -o $@ $^

# ---- machines -> generated/ ---------------------------------------------------------------
# mdlc rewrites a generated file only when its content changes and lists the .mdl files it
# read in a depfile; the stamp records that the check was done, so a second make does nothing.
$(B)/gen/%.stamp: machines/%.mdl $(B)/mdlc | $(B)
	$(B)/mdlc -I machines -o generated --depfile $(B)/deps/$*.d --deptarget $@ $<
	@touch $@
-include $(wildcard $(B)/deps/*.d)

generated/%.c generated/%.h: $(B)/gen/%.stamp ;
.SECONDARY: $(STAMPS)

# Proves the emitted C builds with -Werror; mdlsim links these objects.
$(B)/gen/%.o: $(B)/gen/%.stamp runtime/mdl_machine.h
	$(CC) $(CPPFLAGS_ALL) -Igenerated $(CFLAGS_ALL) -c -o $@ generated/$*.c

# ---- the uops.info importer ---------------------------------------------------------------
import: $(B)/uops2mdl
	for f in $(UOPS_CSV); do $(B)/uops2mdl $$f $${f%.csv}.mdl || exit 1; done

# ---- tests -------------------------------------------------------------------------------
$(B)/tests/run: $(TEST_SRC:%.c=$(O)/%.o) $(MDLC_OBJ) $(MDL_OBJ) $(IMPORT_OBJ) | $(B)/.deps-test
	$(CC) $(CFLAGS_ALL) -o $@ $^ -lcriterion -ljansson -lm

check-generated: $(B)/mdlc $(B)/uops2mdl
	@tests/check-generated.sh $(B)

test: $(B)/.deps-test all $(B)/tests/run check-generated
	@cd tests && ../$(B)/tests/run --jobs 2

demo: all
	@tests/demo.sh $(B)

bench: all
	@tests/bench.sh $(B)

clean:
	rm -rf $(B)
