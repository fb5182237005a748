# xonly - execute-only memory for Linux x86-64.  `make help` lists targets.
#
# Everything that touches pkeys runs inside QEMU on the patched kernel:
# host-side targets only build.  Kernel trees and kernel builds live
# outside the repo (scripts/build-kernel); user-space objects in build/.

KVER    ?= 6.1
KVERS   ?= 6.1 6.12
PATCHES ?= kernel/patches
BUILD   ?= build

CC      := gcc
CFLAGS  := -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror \
           -Ikernel/include -Itests/lib -I/usr/include/capstone
# Guest programs are static: the initramfs has no libc of its own.
LDFLAGS := -static -pthread

.DEFAULT_GOAL := help
.PHONY: help deps guest kernel initramfs check check-all demo shell bench checkpatch \
        series-build clean

help:
	@echo 'xonly: execute-only memory for Linux x86-64 (see README.md)'
	@echo
	@echo '  make check        build the patched kernel (KVER=$(KVER)), boot it in QEMU, run all tests'
	@echo '  make check-all    the same for each of: $(KVERS)'
	@echo '  make demo         boot the VM and run the demo'
	@echo '  make shell        boot the VM into an interactive shell (exit with: reboot -f)'
	@echo '  make bench        boot the VM and run the benchmarks (ratios measured side by side)'
	@echo '  make kernel       only build (or find cached) the kernel for KVER'
	@echo '  make initramfs    only build the initramfs for KVER'
	@echo '  make guest        only build the guest programs into $(BUILD)/guest'
	@echo '  make checkpatch   run checkpatch.pl --strict on every patch of the series'
	@echo '  make series-build build each kernel of KVERS after each patch of the series in turn'
	@echo '  make clean        remove $(BUILD) (the kernel cache stays; see README.md)'
	@echo
	@echo 'variables: KVER=6.1|6.12  PATCHES=kernel/patches|none  KSRC=tree-or-tarball'
	@echo '           T=pattern (run only tests whose path matches)'

deps:
	@scripts/deps

# --- guest programs -----------------------------------------------------------
# tests/lib/*.c       -> libxotest.a, linked into every guest program
# tests/DIR/NAME.c    -> /xonly/tests/DIR/NAME, one test program per file
# demo/NAME.c         -> /xonly/bin/NAME
# jit-demo/*.c        -> /xonly/bin/jit-demo (main.c has main(); the rest
#                        is libjit.a, which tests/jit/ programs link too)
LDLIBS       := -lcapstone
TEST_LIB     := $(BUILD)/obj/libxotest.a
JIT_LIB      := $(BUILD)/obj/libjit.a
TEST_LIB_OBJ := $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard tests/lib/*.c))
JIT_LIB_OBJ  := $(patsubst %.c,$(BUILD)/obj/%.o,$(filter-out jit-demo/main.c,$(wildcard jit-demo/*.c)))
TEST_SRC     := $(wildcard tests/*/*.c)
TEST_SRC     := $(filter-out tests/lib/%,$(TEST_SRC))
TEST_BIN     := $(patsubst tests/%.c,$(BUILD)/guest/tests/%,$(TEST_SRC))
DEMO_BIN     := $(patsubst demo/%.c,$(BUILD)/guest/bin/%,$(wildcard demo/*.c))
JIT_BIN      := $(if $(wildcard jit-demo/main.c),$(BUILD)/guest/bin/jit-demo)
HDRS         := $(wildcard tests/lib/*.h kernel/include/xonly/*.h jit-demo/*.h)

$(BUILD)/obj/%.o: %.c $(HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c -o $@ $<

$(TEST_LIB): $(TEST_LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(JIT_LIB): $(JIT_LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

# Every guest program may use the JIT library and capstone; static linking
# keeps what it does not use out.
GUEST_LIBS := $(if $(JIT_LIB_OBJ),$(JIT_LIB)) $(TEST_LIB)

$(BUILD)/guest/tests/%: tests/%.c $(GUEST_LIBS) $(HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Ijit-demo -o $@ $< $(GUEST_LIBS) $(LDFLAGS) $(LDLIBS)

$(BUILD)/guest/bin/%: demo/%.c $(GUEST_LIBS) $(HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< $(GUEST_LIBS) $(LDFLAGS) $(LDLIBS)

$(BUILD)/guest/bin/jit-demo: $(BUILD)/obj/jit-demo/main.o $(GUEST_LIBS)
	@mkdir -p $(@D)
	$(CC) -o $@ $^ $(LDFLAGS) $(LDLIBS)

guest: $(TEST_BIN) $(DEMO_BIN) $(JIT_BIN)

# --- kernel, image, VM -----------------------------------------------------------
kernel: deps
	@scripts/build-kernel --patches $(PATCHES) $(KVER) >/dev/null

initramfs: deps guest
	@scripts/mkinitramfs --kernel "$$(scripts/build-kernel --patches $(PATCHES) $(KVER))" \
		--guest $(BUILD)/guest -o $(BUILD)/initramfs-$(KVER).cpio.gz

check: deps guest
	@scripts/check --patches $(PATCHES) $(KVER)

check-all: deps guest
	@scripts/check --patches $(PATCHES) $(KVERS)

demo: deps guest
	@scripts/check --patches $(PATCHES) --mode demo $(KVER)

shell: deps guest
	@scripts/check --patches $(PATCHES) --mode shell $(KVER)

bench: deps guest
	@scripts/check --patches $(PATCHES) --mode bench $(KVER)

checkpatch: deps
	@scripts/checkpatch $(KVERS)

series-build: deps
	@scripts/series-build $(KVERS)

clean:
	rm -rf $(BUILD)
