# tare: plain Makefile. `make`, `make check`, `make demo`, `make bench`, `make install`.
# `make help` lists the targets: the text after "## " on each target's line.
# Quiet unless V=1. Sources are found by wildcard, so adding a module is adding a file.

PREFIX  ?= /usr/local
DESTDIR ?=
BUILD   ?= build
CC      ?= cc
# The one place the version is written: `make man-version` copies it into doc/*.1.
VERSION := 0.1.0

WARN     := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wvla
CFLAGS   ?= -O2 -g
ALL_CFLAGS := -std=gnu11 $(WARN) $(CFLAGS) $(EXTRA_CFLAGS) -Isrc -Iinclude -DTARE_VERSION='"$(VERSION)"' -MMD -MP
LDLIBS   := -lm -pthread
# The tare binary is linked statically: the dynamic loader's work for libm and libc
# is a quarter of a millisecond of every start (a 27 MB profile read 2% faster). Not under the
# sanitizers (their runtimes are shared libraries); `make STATIC=` links it dynamically.
STATIC   ?= $(if $(findstring -fsanitize,$(CFLAGS) $(LDFLAGS)),,-static)

ifeq ($(V),1)
Q :=
else
Q := @
endif

CORE_SRC := $(wildcard src/core/*/*.c)
CLI_SRC  := $(wildcard src/cli/*.c)
UNIT_SRC := $(wildcard tests/unit/test_*.c)
FIX_SRC  := $(wildcard tests/fixtures/*.c)
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)
EX_SRC   := $(wildcard examples/*.c)

CORE_OBJ := $(CORE_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/%.o)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/unit/%)
FIX_BIN  := $(FIX_SRC:tests/fixtures/%.c=$(BUILD)/fixtures/%)
EX_BIN   := $(EX_SRC:examples/%.c=$(BUILD)/examples/%)
REPLAY_BIN := $(FUZZ_SRC:tests/fuzz/fuzz_%.c=$(BUILD)/tests/replay/fuzz_%)

TARE     := $(BUILD)/tare
LIBCORE  := $(BUILD)/libtare-core.a

# libtare-alloc.so, the LD_PRELOAD counting allocator: never sanitized (it is loaded into
# the measured program), -fno-builtin so the compiler does not fold or drop allocation
# calls inside the wrappers. The ASan check build reuses the plain one (SO_BUILD).
SO_BUILD     ?= $(BUILD)
ALLOC_SO     := $(SO_BUILD)/libtare-alloc.so
PRELOAD_SRC  := $(wildcard src/preload/*.c)
SO_CFLAGS    := -std=gnu11 $(WARN) \
                $(filter-out -fsanitize%,$(CFLAGS)) -fPIC -fno-builtin \
                -fvisibility=hidden -fno-semantic-interposition -ftls-model=initial-exec \
                -Isrc -Iinclude

.PHONY: all check check-clang check-plain check-asan checkstyle demo bench install deps clean fuzz help
all: $(TARE) $(ALLOC_SO)  ## build tare and libtare-alloc.so (the default)

$(ALLOC_SO): $(PRELOAD_SRC) include/tare/scope.h
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  SO      $@")
	$(Q)$(CC) $(SO_CFLAGS) -shared -Wl,-soname,libtare-alloc.so -o $@ $(PRELOAD_SRC) -ldl -lpthread

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@

# the page's script and style are put into tare by cg_page.c (.incbin)
$(BUILD)/src/cli/cg_page.o: src/cli/cg_page.js src/cli/cg_page.css

$(LIBCORE): $(CORE_OBJ)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $^

$(TARE): $(CLI_OBJ) $(LIBCORE)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $(CLI_OBJ) $(LIBCORE) $(STATIC) $(LDFLAGS) $(LDLIBS)

$(BUILD)/tests/unit/%: tests/unit/%.c $(LIBCORE) tests/unit/unit.h
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  TEST    $@")
	$(Q)$(CC) $(ALL_CFLAGS) -Itests/unit -o $@ $< $(LIBCORE) $(LDFLAGS) $(LDLIBS)

# Each fuzz target linked with the plain replay driver: `make check` replays its corpus
# (tests/fuzz/corpus/NAME/) under the sanitizers; `make fuzz` runs libFuzzer itself.
$(BUILD)/tests/replay/%: tests/fuzz/%.c tests/fuzz/replay.c tests/fuzz/fuzz.h $(LIBCORE)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  REPLAY  $@")
	$(Q)$(CC) $(ALL_CFLAGS) -include tests/fuzz/fuzz.h -o $@ $< tests/fuzz/replay.c $(LIBCORE) \
	  $(LDFLAGS) $(LDLIBS)

FUZZ_TIME ?= 60
fuzz:  ## run each libFuzzer target FUZZ_TIME seconds (clang), corpus in tests/fuzz/corpus-out
	$(Q)for f in $(FUZZ_SRC); do n=$$(basename $$f .c); \
	  mkdir -p build/fuzz tests/fuzz/corpus-out/$$n; \
	  clang -std=gnu11 -g -O1 -Isrc -Iinclude -fsanitize=fuzzer,address,undefined \
	    -o build/fuzz/$$n $$f $(CORE_SRC) $(LDLIBS) || exit 1; \
	  build/fuzz/$$n -max_total_time=$(FUZZ_TIME) tests/fuzz/corpus-out/$$n tests/fuzz/corpus/$${n#fuzz_} || exit 1; \
	done

# tare self-test carries the known-answer program's source, made into a C array here.
$(BUILD)/gen/allocmix.inc: tests/fixtures/allocmix.c
	@mkdir -p $(dir $@)
	$(Q)od -An -v -tx1 $< | sed -e 's/ \([0-9a-f][0-9a-f]\)/0x\1,/g' > $@
$(BUILD)/src/cli/cmd_selftest.o: $(BUILD)/gen/allocmix.inc
$(BUILD)/src/cli/cmd_selftest.o: ALL_CFLAGS += -I$(BUILD)/gen
# main.c prints VERSION (-DTARE_VERSION): a new version in this file rebuilds it.
$(BUILD)/src/cli/main.o: Makefile
# The callgrind lexer is most of tare cg's time: at -O3 the whole read measured 4% faster.
$(BUILD)/src/core/profile/cg_lex.o: ALL_CFLAGS += -O3

# Fixtures are the known-answer programs the tests measure; always built plainly
# (no sanitizers), since their cost and allocations are what the tests check.
$(BUILD)/fixtures/%: tests/fixtures/%.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  FIXTURE $@")
	$(Q)$(FIXTURE_CC) -std=gnu11 -O1 -g -o $@ $< $(FIXTURE_LDFLAGS_$*) -lm

$(BUILD)/examples/%: examples/%.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  EXAMPLE $@")
	$(Q)$(FIXTURE_CC) -std=gnu11 -O2 -g -o $@ $< -lm

FIXTURE_CC ?= cc
FIXTURE_LDFLAGS_static_hello := -static
FIXTURE_LDFLAGS_seeded := -static
# Fixtures with allocation scopes turned on (they run under libtare-alloc).
FIXTURE_LDFLAGS_alloc_scopes := -DTARE_ALLOC_STATS -Iinclude
FIXTURE_LDFLAGS_alloc_nopie := -fno-pie -no-pie
$(BUILD)/fixtures/alloc_scopes: include/tare/scope.h
# Known stacks: without frame pointers (-O1 omits them) and with them.
FIXTURE_LDFLAGS_alloc_stacks := -DTARE_ALLOC_STATS -Iinclude -pthread
FIXTURE_LDFLAGS_alloc_stacks_fp := -DTARE_ALLOC_STATS -Iinclude -pthread -fno-omit-frame-pointer
$(BUILD)/fixtures/alloc_stacks $(BUILD)/fixtures/alloc_stacks_fp: include/tare/scope.h \
    tests/fixtures/alloc_stacks.c
# Count regions: the same program with its marks off and on (<valgrind/callgrind.h>).
FIXTURE_LDFLAGS_region := -Iinclude
FIXTURE_LDFLAGS_region_marks := -Iinclude
# The program's own counters, one way through <tare/scope.h>'s TARE_METRIC.
FIXTURE_LDFLAGS_vmstats := -Iinclude
$(BUILD)/fixtures/vmstats: include/tare/scope.h
$(BUILD)/fixtures/region $(BUILD)/fixtures/region_marks: include/tare/scope.h tests/fixtures/region.c

deps:  ## check the Debian packages the tests need are installed (scripts/install-deps)
	$(Q)scripts/install-deps check

# The whole suite: the house rules, then three builds at once (plain, clang -Werror, ASan+UBSan),
# then the plain and the ASan suites in one run of tests/run, their files side by side on every
# CPU (TEST_JOBS=N to choose how many at once); one summary of both decides.
NPROC      := $(shell nproc 2> /dev/null || echo 1)
TEST_JOBS  ?=
RUN_TESTS  := FIXTURES=$(BUILD)/fixtures tests/run $(if $(TEST_JOBS),-j $(TEST_JOBS))
ASAN_BUILD := build/asan
# The sanitizers' runtimes linked in statically, and the programs not position-independent:
# a third less of each start and exit, and then a sixth less (the suite starts tare thousands
# of times; doc/PERFORMANCE.md "make check").
ASAN_RT    := $(if $(findstring clang,$(CC)),-static-libsan,-static-libasan -static-libubsan)
ASAN_MAKE  := BUILD=$(ASAN_BUILD) SO_BUILD=$(SO_BUILD) \
  EXTRA_CFLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" \
  LDFLAGS="-fsanitize=address,undefined $(ASAN_RT) -no-pie"
# The ASan suite's word for tests/run: its build, and its environment (one word: no blanks).
ASAN_SUITE := 'asan=$(ASAN_BUILD) ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
  UBSAN_OPTIONS=print_stacktrace=1 TARE_ALLOC_LIB=$(abspath $(ALLOC_SO)) TARE_TEST_SANITIZED=1'
TEST_BINS  := $(TARE) $(ALLOC_SO) $(UNIT_BIN) $(FIX_BIN) $(REPLAY_BIN)

check: deps checkstyle  ## house rules; plain, clang -Werror, ASan+UBSan builds; both suites
	$(Q)t=$$(date +%s); $(MAKE) --no-print-directory -j$(NPROC) check-builds && \
	  echo "make check: the three builds took $$(($$(date +%s) - t)) s"
	$(Q)$(RUN_TESTS) plain=$(BUILD) $(ASAN_SUITE)
	$(Q)tests/summary $(BUILD)/results-plain.txt $(ASAN_BUILD)/results-asan.txt

.PHONY: check-builds asan-builds test test-asan test-bins
check-builds: $(TEST_BINS) asan-builds check-clang
asan-builds: $(FIX_BIN) $(ALLOC_SO)
	$(Q)$(MAKE) --no-print-directory $(ASAN_MAKE) all $(ASAN_BUILD)/.unit $(ASAN_BUILD)/.replay

check-plain: $(TEST_BINS)  ## the suite, plain build
	$(Q)$(RUN_TESTS) plain=$(BUILD)
	$(Q)tests/summary $(BUILD)/results-plain.txt

# The build must stay warning-free under a second compiler.
check-clang:  ## build with clang -Werror under build/clang
	$(Q)$(MAKE) --no-print-directory BUILD=build/clang CC=clang EXTRA_CFLAGS=-Werror all

check-asan: asan-builds  ## the suite built with ASan+UBSan under build/asan
	$(Q)$(RUN_TESTS) $(ASAN_SUITE)
	$(Q)tests/summary $(ASAN_BUILD)/results-asan.txt

# One test file or a few, after building what they run: T names them (test_cg.sh, cg,
# test_words, fuzz_words, tests/unit/test_words.c; a bare name is every file of that name:
# the unit test, the script and the fuzz replay). Without T, the whole plain suite.
T_BASES := $(foreach t,$(T),$(patsubst fuzz_%,%,$(patsubst test_%,%,$(basename $(notdir $(t))))))
T_BINS   = $(if $(T),$(filter $(foreach b,$(T_BASES),%/test_$(b) %/fuzz_$(b)),$(UNIT_BIN) \
             $(REPLAY_BIN)),$(UNIT_BIN) $(REPLAY_BIN))
test: $(TARE) $(ALLOC_SO) $(FIX_BIN) test-bins  ## make test T=NAME: one test file (cg, fuzz_words)
	$(Q)$(RUN_TESTS) plain=$(BUILD) $(if $(T),-- $(T))
	$(Q)tests/summary $(BUILD)/results-plain.txt
test-asan: $(FIX_BIN) $(ALLOC_SO)  ## make test-asan T=NAME: the same under ASan+UBSan
	$(Q)$(MAKE) --no-print-directory $(ASAN_MAKE) T="$(T)" all test-bins
	$(Q)$(RUN_TESTS) $(ASAN_SUITE) $(if $(T),-- $(T))
	$(Q)tests/summary $(ASAN_BUILD)/results-asan.txt
test-bins: $(T_BINS)

# The golden files (tests/golden/): `make check UPDATE=1` rewrites them as the suite runs (the
# variable reaches tests/cli/test_golden.sh through the environment); this runs that test alone.
GOLDEN_FIX := $(addprefix $(BUILD)/fixtures/,allocmix envwork crash exit3)
.PHONY: golden-update
golden-update: $(TARE) $(ALLOC_SO) $(GOLDEN_FIX)  ## rewrite tests/golden/ (as `make check UPDATE=1` does)
	$(Q)UPDATE=1 TARE=$(TARE) BUILD=$(BUILD) FIXTURES=$(BUILD)/fixtures TARE_ROOT=$(CURDIR) \
	  bash tests/cli/test_golden.sh

$(BUILD)/.unit: $(UNIT_BIN)
	@touch $@
$(BUILD)/.replay: $(REPLAY_BIN)
	@touch $@

demo: deps all $(EX_BIN)  ## run scripts/demo on the examples
	$(Q)scripts/demo $(TARE) $(BUILD)

bench: $(TARE) $(FIX_BIN) $(EX_BIN)  ## the benchmarks in bench/ (bench/run)
	$(Q)scripts/install-deps bench
	$(Q)TARE=$(TARE) BUILD=$(BUILD) bench/run

MAN1 := $(wildcard doc/*.1)
# VERSION above is the version's one source: the binary gets it by -DTARE_VERSION, the
# pkg-config file at install, and the man pages' .TH lines from this (tests/cli/test_version.sh
# fails when a page or the binary says another).
.PHONY: man-version
man-version:  ## write VERSION into the .TH line of every man page in doc/
	$(Q)sed -i 's/^\(\.TH [^"]*\)"tare [^"]*"/\1"tare $(VERSION)"/' $(MAN1)

install: $(TARE) $(ALLOC_SO)  ## install tare, libtare-alloc, scope.h, man pages under PREFIX
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(TARE) $(DESTDIR)$(PREFIX)/bin/tare
	install -m 644 $(MAN1) $(DESTDIR)$(PREFIX)/share/man/man1/
	install -d $(DESTDIR)$(PREFIX)/lib/tare $(DESTDIR)$(PREFIX)/include/tare $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 755 $(ALLOC_SO) $(DESTDIR)$(PREFIX)/lib/tare/libtare-alloc.so
	install -m 644 include/tare/scope.h $(DESTDIR)$(PREFIX)/include/tare/scope.h
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' tare-alloc.pc.in \
	  > $(DESTDIR)$(PREFIX)/lib/pkgconfig/tare-alloc.pc

clean:  ## remove build/
	rm -rf build

# The house rules (HACKING.md, "The rules"): FILE:LINE: RULE: what is wrong, for each break.
checkstyle:  ## check the house rules on src/, include/, tests/, examples/, bench/ (scripts/check-style)
	$(Q)scripts/check-style

help:  ## list these targets
	@sed -n 's/^\([a-z-]*\):.*## \(.*\)/  \1\t\2/p' $(firstword $(MAKEFILE_LIST)) | expand -t 16

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
