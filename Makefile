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
           -Ikernel/include -Itests/lib
# Guest programs are static: the initramfs has no libc of its own.
LDFLAGS := -static -pthread

.DEFAULT_GOAL := help
.PHONY: help deps guest kernel initramfs check check-all demo shell checkpatch \
        series-build clean

help:
	@echo 'xonly: execute-only memory for Linux x86-64 (see README.md)'
	@echo
	@echo '  make check        build the patched kernel (KVER=$(KVER)), boot it in QEMU, run all tests'
	@echo '  make check-all    the same for each of: $(KVERS)'
	@echo '  make demo         boot the VM and run the demo'
	@echo '  make shell        boot the VM into an interactive shell (exit with: reboot -f)'
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
TEST_LIB_SRC := $(wildcard tests/lib/*.c)
TEST_LIB_OBJ := $(patsubst %.c,$(BUILD)/obj/%.o,$(TEST_LIB_SRC))
TEST_LIB     := $(BUILD)/obj/libxotest.a
TEST_SRC     := $(wildcard tests/kernel/*.c)
TEST_BIN     := $(patsubst tests/%.c,$(BUILD)/guest/tests/%,$(TEST_SRC))
DEMO_BIN     := $(patsubst demo/%.c,$(BUILD)/guest/bin/%,$(wildcard demo/*.c))
HDRS         := $(wildcard tests/lib/*.h kernel/include/xonly/*.h)

$(BUILD)/obj/%.o: %.c $(HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c -o $@ $<

$(TEST_LIB): $(TEST_LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/guest/tests/%: tests/%.c $(TEST_LIB) $(HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< $(TEST_LIB) $(LDFLAGS)

$(BUILD)/guest/bin/%: demo/%.c $(TEST_LIB) $(HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< $(TEST_LIB) $(LDFLAGS)

guest: $(TEST_BIN) $(DEMO_BIN)

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

checkpatch: deps
	@scripts/checkpatch $(KVERS)

series-build: deps
	@scripts/series-build $(KVERS)

clean:
	rm -rf $(BUILD)
