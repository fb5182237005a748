# xonly - execute-only memory for Linux x86-64.  `make help` lists targets.
#
# Everything that touches pkeys runs inside QEMU on the patched kernel:
# host-side targets only build.  Kernel trees and kernel builds live
# outside the repo (scripts/build-kernel); user-space objects in build/.

KVER    ?= 6.1
KVERS   ?= 6.1 6.12
PATCHES ?= kernel/patches
BUILD   ?= build

# The version of the tools (--version) and of the package: the changelog's.
XO_VERSION := $(shell awk 'NR == 1 { gsub(/[()]/, "", $$2); print $$2 }' packaging/debian/changelog)

CC      := gcc
CFLAGS  := -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror \
           -Ikernel/include -Itests/lib -I/usr/include/capstone -DXONLY_VERSION='"$(XO_VERSION)"'
# Guest programs are static: the initramfs has no libc of its own.
LDFLAGS := -static -pthread

.DEFAULT_GOAL := help
.PHONY: help deps guest host-tools kernel initramfs check check-all check-host demo shell bench bench-host survey fuzz \
        checkpatch series-build clean install uninstall install-list deb check-hw

help:
	@echo 'xonly: execute-only memory for Linux x86-64 (see README.md)'
	@echo
	@echo '  make check        build the patched kernel (KVER=$(KVER)), boot it in QEMU, run all tests'
	@echo '  make check-all    the same for each of: $(KVERS)'
	@echo '  make check-host   only the host-side tests (tests/host/*.sh): no kernel, no VM'
	@echo '  make check-hw     where the CPU and host kernel have PKU: the tests of tests/hw.run on the host'"'"'s'
	@echo '                    own kernel, no VM (elsewhere: all reported skipped, exit 0)'
	@echo '  make demo         boot the VM and run the demo'
	@echo '  make shell        boot the VM into an interactive shell (exit with: reboot -f)'
	@echo '  make bench        xosurvey of /usr and the survey by rule of Debian'"'"'s packages on the host, then boot the VM and run'
	@echo '                    the benchmarks (ratios side by side;'
	@echo '                    the header names the accelerator and CPU: KVM where PKU is there, else TCG)'
	@echo '  make bench-host   xoload'"'"'s startup on this machine'"'"'s own CPU, no VM (a build that does not check for'
	@echo '                    protection keys: timing only, never installed); make bench runs it first'
	@echo '  make survey       only the host survey of make bench (SURVEY_DIRS=$(SURVEY_DIRS)): no VM'
	@echo '  make fuzz         fuzz xoload'"'"'s ELF parsing on the host (FUZZ_N=$(FUZZ_N) mutants, FUZZ_SEED=$(FUZZ_SEED))'
	@echo '  make kernel       only build (or find cached) the kernel for KVER'
	@echo '  make initramfs    only build the initramfs for KVER'
	@echo '  make guest        only build the guest programs into $(BUILD)/guest'
	@echo '  make checkpatch   run checkpatch.pl --strict on every patch of the series'
	@echo '  make series-build build each kernel of KVERS after each patch of the series in turn'
	@echo '  make install      install the user-space tools under DESTDIR/PREFIX (PREFIX=$(PREFIX))'
	@echo '  make uninstall    remove what make install installed'
	@echo '  make install-list the files make install installs (INSTALL_TABLE), with their modes'
	@echo '  make deb          a Debian binary package of the user-space tools, checked with lintian'
	@echo '  make clean        remove $(BUILD) (the kernel cache stays; see README.md)'
	@echo '  make help         this text'
	@echo
	@echo 'variables: KVER=6.1|6.12  PATCHES=kernel/patches|none  KSRC=tree-or-tarball'
	@echo '           XONLY_ACCEL=tcg|kvm (default: kvm -cpu host where /dev/kvm and PKU are there and a probe boot'
	@echo '           shows the guest has PKU, else tcg -cpu max)  XONLY_KVM_PROBE_TIMEOUT=20 (seconds for that probe)'
	@echo '           XONLY_HW=0 (make check: leave out the tests of tests/hw.run on a PKU host'"'"'s own kernel)'
	@echo '           T=pattern (run only tests whose path matches)'
	@echo '           XONLY_ON=0 XONLY_STRICT=0 XONLY_LEARN=0 NOPKU=0 XOLOAD_MODULE_BOOT=0 (make check: leave the'
	@echo '           xonly=on, the xonly=strict, the xonly=learn, the nopku, the xonly.hook=0 boot out)'
	@echo '           PREFIX DESTDIR BINDIR LIBDIR LIBEXECDIR MANDIR INCLUDEDIR (make install)'
	@echo '           SURVEY_DIRS=$(SURVEY_DIRS) (make survey, make bench)  FUZZ_N FUZZ_SEED (make fuzz)'
	@echo 'environment: XONLY_CACHE (kernel cache, ~/.cache/xonly)  XONLY_WORK (unpacked trees,'
	@echo '           /var/tmp/xonly-work)  XONLY_REBUILD=1 (ignore the kernel cache)'
	@echo '           XONLY_CPUINFO XONLY_KVM_DEV (stand-ins for /proc/cpuinfo and /dev/kvm in the'
	@echo '           accelerator choice, for tests)  XONLY_KVM_PROBE_CACHE (the probe'"'"'s verdicts,'
	@echo '           ~/.cache/xonly/kvm-probe: remove it to probe again)'

deps:
	@scripts/deps

# --- guest programs -----------------------------------------------------------
# tests/lib/*.c       -> libxotest.a, linked into every guest program
#                        (compiled with -Ijit-demo: xomap.c has a JIT kind)
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
TEST_SRC     := $(filter-out tests/lib/% tests/compat32/% tests/bench/%,$(TEST_SRC))
TEST_BIN     := $(patsubst tests/%.c,$(BUILD)/guest/tests/%,$(TEST_SRC))
DEMO_BIN     := $(patsubst demo/%.c,$(BUILD)/guest/bin/%,$(wildcard demo/*.c))
JIT_BIN      := $(if $(wildcard jit-demo/main.c),$(BUILD)/guest/bin/jit-demo)
HDRS         := $(wildcard tests/*/*.h kernel/include/xonly/*.h jit-demo/*.h)

$(BUILD)/obj/%.o: %.c $(HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Ijit-demo -c -o $@ $<

$(TEST_LIB): $(TEST_LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(JIT_LIB): $(JIT_LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

# Every guest program may use the JIT library and capstone; static linking
# keeps what it does not use out.  libxotest.a comes first: its mapping
# kinds (xomap.c) use the JIT's code memory.
GUEST_LIBS := $(TEST_LIB) $(if $(JIT_LIB_OBJ),$(JIT_LIB))

$(BUILD)/guest/tests/%: tests/%.c $(GUEST_LIBS) $(HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Ijit-demo -o $@ $< $(GUEST_LIBS) $(LDFLAGS) $(LDLIBS)

$(BUILD)/guest/bin/%: demo/%.c $(GUEST_LIBS) $(HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< $(GUEST_LIBS) $(LDFLAGS) $(LDLIBS)

$(BUILD)/guest/bin/jit-demo: $(BUILD)/obj/jit-demo/main.o $(GUEST_LIBS)
	@mkdir -p $(@D)
	$(CC) -o $@ $^ $(LDFLAGS) $(LDLIBS)

# --- xoloader (issue 4) ------------------------------------------------------------
# xoloader/ in layers (xoloader/README.md): rule/ (the plan type and the rule's
# byte-level pieces) at the bottom; run/ (the run path) and ref/ (the libelf
# reference) above it; tools/ on top.  tests/host/layout.sh checks the includes.
# xoloader/run/*.c    -> /xonly/bin/xoload (static-pie: it must not sit where a
#                        non-PIE PROG wants to be mapped) and /xonly/lib/xoaudit.so
#                        (the LD_AUDIT module: freestanding, no libc, no DT_NEEDED,
#                        no relocations; both plan with the minimal reader run/rtplan.c,
#                        which xoplandiff checks against ref/elfplan.c, the libelf one)
# xoloader/tools/xoscan.c -> /xonly/bin/xoscan, the --scan helper (static: capstone
#                        stays out of the programs it scans, see xoscan.c; it
#                        admits files with the planners' admission check)
# tests/xoload/dyn/NAME.c -> /xonly/tests/xoload/NAME, dynamically linked
# tests/xoload/NAME.sh    -> /xonly/tests/xoload/NAME (shell tests)
# tests/xoload/lib/*      -> /xonly/lib/xoload/: helpers the tests run under xoload
# xoloader/tools/bench.c  -> /xonly/bench.d/xoload (make bench)
XO_CFLAGS  := $(CFLAGS) -Wno-format-truncation
# Every xoloader program depends on all of these: runpath.c takes the syscall
# numbers and prctl options from kernel/include/xonly/uapi.h.
XO_HDRS    := $(wildcard xoloader/*/*.h kernel/include/xonly/*.h)
# ... and on the proven rule's sources: the run path's reader carries its
# id (XO_PROVEN_RULE_ID below).
XO_HDRS    += xoloader/tools/proven.c xoloader/tools/decode.c xoloader/tools/fdes.c xoloader/ref/elfplan.c
# The rule: the admission check and the byte-level pieces, which both readers link.
XO_RULE    := xoloader/rule/admit.c xoloader/rule/ehframe.c xoloader/rule/fill.c
XO_RT      := xoloader/run/rtplan.c xoloader/run/plancache.c xoloader/run/report.c xoloader/run/fmt.c $(XO_RULE)
# The plan cache's rule id (run/plancache.h): a hash of every source a plan
# depends on, so that an entry written by another planner is a miss.
XO_RULE_ID := $(shell cat xoloader/rule/*.c xoloader/rule/*.h xoloader/run/rtplan.c xoloader/run/rtplan.h | \
              sha256sum | cut -c1-24)
XO_CFLAGS  += -DXO_RULE_ID='"$(XO_RULE_ID)"'
# The proven-code rule's id (issue 26): its planner (tools/proven.c, the
# libelf planner it builds on, the rule) and its decoder, LLVM 14 and its
# version: xoplan-proven writes entries of it, the run path reads them.
XO_PROVEN_SRC := xoloader/tools/proven.c xoloader/tools/proven.h xoloader/tools/decode.c xoloader/tools/decode.h \
                 xoloader/tools/fdes.c xoloader/tools/fdes.h xoloader/ref/elfplan.c xoloader/ref/elfplan.h
XO_PROVEN_RULE_ID := proven-llvm14-$(shell { cat xoloader/rule/*.c xoloader/rule/*.h $(XO_PROVEN_SRC); \
                     llvm-config-14 --version 2>/dev/null; } | sha256sum | cut -c1-16)
XO_CFLAGS  += -DXO_PROVEN_RULE_ID='"$(XO_PROVEN_RULE_ID)"'
# The libelf planner (the reference; analysis tools): elfplan.c admits files
# with rule/admit.c, reads .eh_frame with ehframe.c and tells padding from
# data with fill.c, as rtplan.c does (the tools print with run/report.c).
XO_PLAN    := xoloader/ref/elfplan.c $(XO_RT)
# The run path (runpath.c, load.c, the reader) is in both: xoload
# (run/preload.c) without a libc, xoplan (tools/xoplan.c: --plan, --report,
# --scan) with one.
XO_RUN     := xoloader/run/runpath.c xoloader/run/load.c xoloader/run/carve.c xoloader/run/net.c xoloader/run/hook.c \
              xoloader/run/objprotect.c xoloader/run/dynsym.c xoloader/run/sameobj.c xoloader/run/origin.c $(XO_RT)
XO_LOADER  := xoloader/run/preload.c $(XO_RUN)
XO_XOPLAN  := xoloader/tools/xoplan.c xoloader/tools/deps.c xoloader/tools/apply.c xoloader/tools/cachewrite.c \
	      xoloader/tools/xattr.c xoloader/tools/fromlog.c $(XO_RUN)
# xoload has no libc: its own _start and system calls, no TLS, and only
# R_X86_64_RELATIVE relocations, which it applies itself (preload.c);
# -fno-tree-loop-distribute-patterns: no memset() call made of its memset().
XO_FREE_FLAGS := -nostdlib -ffreestanding -fno-builtin -fno-stack-protector -fPIE -static-pie \
              -fvisibility=hidden -fno-tree-loop-distribute-patterns -fno-asynchronous-unwind-tables \
              -Wl,-z,separate-code -Wl,--no-undefined -Wl,-z,norelro -Wl,--build-id=none \
              -Wl,-z,nopack-relative-relocs
# check_free FILE: what XO_FREE_FLAGS promise, checked on the linked file.
check_free = ! readelf -lW $(1) | grep -q INTERP || { echo "$(1): has PT_INTERP" >&2; exit 1; }; \
	! readelf -d $(1) | grep -q NEEDED || { echo "$(1): has DT_NEEDED" >&2; exit 1; }; \
	! readelf -rW $(1) | grep '^0' | grep -v R_X86_64_RELATIVE || { echo "$(1): relocations other than R_X86_64_RELATIVE" >&2; exit 1; }; \
	! readelf -lW $(1) | grep -q ' TLS ' || { echo "$(1): has TLS" >&2; exit 1; }
# $(call link_xoload,FLAGS): xoload's recipe, every build of it alike: the
# link, then what XO_FREE_FLAGS promise and scripts/check-early, checked
# before the file takes the target's name.
define link_xoload
@mkdir -p $(@D)
$(CC) $(XO_CFLAGS) $(1) $(XO_FREE_FLAGS) -o $@.tmp $(XO_LOADER)
@$(call check_free,$@.tmp)
@scripts/check-early $@.tmp
mv $@.tmp $@
endef
XO_AUDIT   := xoloader/run/audit.c xoloader/run/sameobj.c $(XO_RT) xoloader/run/carve.c xoloader/run/net.c \
              xoloader/run/objprotect.c xoloader/run/dynsym.c
# The module must not need a libc: nothing but its own code in its namespace,
# no constructors, nothing ld.so relocates but (at most) data pointers.
XO_AUDIT_FLAGS := -nostdlib -ffreestanding -fno-builtin -fno-stack-protector -fPIC \
              -fvisibility=hidden -shared -Wl,-z,now -Wl,-z,separate-code -Wl,--no-undefined
XO_GUEST   := $(BUILD)/guest/bin/xoload $(BUILD)/guest/lib/xoplan $(BUILD)/guest/lib/xoplan-proven \
              $(BUILD)/guest/lib/xoaudit.so $(BUILD)/guest/bin/xoscan \
              $(patsubst tests/xoload/dyn/%.c,$(BUILD)/guest/tests/xoload/%,$(wildcard tests/xoload/dyn/*.c)) \
              $(patsubst tests/xoload/%.sh,$(BUILD)/guest/tests/xoload/%,$(wildcard tests/xoload/*.sh))
XO_LIBDIR  := $(BUILD)/guest/lib/xoload
# tests/xoload/origin.sh's programs (their rules below): before XO_HELPERS, which takes its value now.
XO_ORIGIN  := $(addprefix $(XO_LIBDIR)/origin/,bin/runpath bin/rpath bin/needed bin/runpath-nosep bin/runpath-long \
              bin/audit lib/libxoorigin.so lib/libxoorigin-needed.so lib/libxoorigin-audit.so \
              decoy/libxoorigin.so decoy/libxoorigin-audit.so)
# xoload where nobody runs it by hand, its command a symlink to it
# (XO_SELF_PRIVATE, runpath.c's names_private_self()): bin/xoload ->
# ../libexec/xoload, the module in lib/.  The guest's copy for
# tests/xoload/private.sh, the bench-host build's (no protection keys) for
# tests/host/xoload_private.sh.
XO_PRIVATE := $(XO_LIBDIR)/private
HB_PRIVATE := $(BUILD)/hostbench-private
XO_PRIVATE_LAYOUT := $(XO_PRIVATE)/bin/xoload $(XO_PRIVATE)/libexec/xoload $(XO_PRIVATE)/lib/xoaudit.so
HB_PRIVATE_LAYOUT := $(HB_PRIVATE)/bin/xoload $(HB_PRIVATE)/libexec/xoload $(HB_PRIVATE)/lib/xoaudit.so
XO_HELPERS := $(XO_LIBDIR)/libxoprobe.so $(XO_LIBDIR)/libnullaudit.so $(XO_LIBDIR)/libtimeaudit.so $(XO_LIBDIR)/libswapaudit.so $(XO_LIBDIR)/hello $(XO_LIBDIR)/hello-nosep \
              $(XO_LIBDIR)/libgap.so $(XO_LIBDIR)/gapuser \
              $(XO_LIBDIR)/hello-static $(XO_LIBDIR)/libtextrel.so $(XO_LIBDIR)/textrel-user \
              $(XO_LIBDIR)/libpkrugadgets.so $(XO_LIBDIR)/datatext $(XO_LIBDIR)/libdatatext.so \
              $(XO_LIBDIR)/selfexec $(XO_LIBDIR)/cryptoprobe $(XO_LIBDIR)/programs.sh $(XO_LIBDIR)/badprogs.sh $(XO_LIBDIR)/smallstack.sh $(XO_LIBDIR)/fork.js $(XO_LIBDIR)/execthrough $(XO_LIBDIR)/nullload $(XO_LIBDIR)/sweep \
              $(XO_LIBDIR)/netprobe $(XO_LIBDIR)/netprobe-static $(XO_LIBDIR)/xocachetest \
              $(XO_LIBDIR)/xoaudit-othernet.so $(XO_LIBDIR)/hookprobe $(XO_LIBDIR)/ldpatch $(XO_LIBDIR)/hello-ldtmp \
              $(XO_LIBDIR)/libtextrel-nobid.so $(XO_LIBDIR)/textrel-nobid-user $(XO_LIBDIR)/libcodecopy.so \
              $(XO_LIBDIR)/codecopy $(XO_LIBDIR)/denyexecmod \
              $(XO_LIBDIR)/hookthreads $(XO_LIBDIR)/libhookctor.so $(XO_LIBDIR)/hookctor \
              $(XO_LIBDIR)/hookreenter $(XO_LIBDIR)/bigtext $(XO_LIBDIR)/libbigtls.so $(XO_LIBDIR)/bigtls $(XO_LIBDIR)/smallthread \
              $(XO_LIBDIR)/libfarcode.so $(XO_LIBDIR)/libfarcode-dl.so $(XO_LIBDIR)/farcodeuser \
              $(XO_LIBDIR)/libfarhash.so $(XO_LIBDIR)/farhashuser $(XO_LIBDIR)/libfarprop.so $(XO_LIBDIR)/farpropuser \
              $(XO_LIBDIR)/hello-static-nosep \
              $(XO_ORIGIN) $(XO_PRIVATE_LAYOUT)
$(XO_PRIVATE)/libexec/xoload $(HB_PRIVATE)/libexec/xoload: $(XO_LOADER) $(XO_HDRS) scripts/check-early
	$(call link_xoload,$(if $(filter $(HB_PRIVATE)/%,$@),-DXOLOAD_BENCH_NO_PKEYS) -DXO_SELF_PRIVATE='"/libexec/xoload"')

$(XO_PRIVATE)/lib/xoaudit.so $(HB_PRIVATE)/lib/xoaudit.so: $(XO_AUDIT) $(XO_HDRS)
	@mkdir -p $(@D)
	$(CC) $(XO_CFLAGS) $(if $(filter $(HB_PRIVATE)/%,$@),-DXOLOAD_BENCH_NO_PKEYS) \
		-DXO_XOLOAD_FROM_AUDIT='"../libexec/xoload"' $(XO_AUDIT_FLAGS) -o $@.tmp $(XO_AUDIT)
	mv $@.tmp $@

$(XO_PRIVATE)/bin/xoload $(HB_PRIVATE)/bin/xoload: %/bin/xoload: | %/libexec/xoload
	@mkdir -p $(@D)
	ln -sfn ../libexec/xoload $@

# Dynamically linked guest programs: the image has glibc's ld.so and libc.
XO_DYN     := -Wl,-Bstatic -lcapstone -Wl,-Bdynamic

$(BUILD)/guest/bin/xoload: $(XO_LOADER) $(XO_HDRS) scripts/check-early
	$(call link_xoload,)

$(BUILD)/guest/lib/xoplan: $(XO_XOPLAN) $(XO_HDRS)
	@mkdir -p $(@D)
	$(CC) $(XO_CFLAGS) -static-pie -o $@ $(XO_XOPLAN)

# xoplan-proven (tools/provenwrite.c): `xoload --update-cache --rule=proven`,
# the proven-code rule's cache writer, with LLVM 14's X86 disassembler
# linked statically (13 MB: the package does not depend on libllvm14 for
# it, and the VM has no libLLVM); xoplan executes it.  The same file is
# installed.
XO_PWRITE  := xoloader/tools/provenwrite.c xoloader/tools/cachewrite.c xoloader/tools/proven.c xoloader/tools/decode.c \
              xoloader/tools/fdes.c xoloader/ref/elfplan.c $(XO_RT)
XO_LLVM_STATIC := -L/usr/lib/llvm-14/lib -lLLVMX86Desc -lLLVMX86Disassembler -lLLVMX86Info -lLLVMMCDisassembler \
              -lLLVMMC -lLLVMDebugInfoCodeView -lLLVMBinaryFormat -lLLVMSupport -lLLVMDemangle -ltinfo
$(BUILD)/guest/lib/xoplan-proven: $(XO_PWRITE) $(XO_HDRS)
	@mkdir -p $(@D) $(BUILD)/obj/xoplan-proven
	for f in $(XO_PWRITE); do \
		$(CC) $(XO_CFLAGS) $(XO_LLVM_CFLAGS) -c -o $(BUILD)/obj/xoplan-proven/$$(basename $$f .c).o $$f || exit 1; \
	done
	$(CXX) -static -o $@.tmp $(addprefix $(BUILD)/obj/xoplan-proven/,$(notdir $(XO_PWRITE:.c=.o))) -lelf -lcapstone $(XO_LLVM_STATIC) -lz -lpthread
	strip $@.tmp && mv $@.tmp $@

$(BUILD)/guest/bin/xoscan: xoloader/tools/xoscan.c xoloader/tools/decode.c $(XO_RT) $(XO_HDRS)
	@mkdir -p $(@D)
	$(CC) $(XO_CFLAGS) -static -o $@ $< xoloader/tools/decode.c $(XO_RT) -lcapstone -lelf -lz

$(BUILD)/guest/lib/xoaudit.so: $(XO_AUDIT) $(XO_HDRS)
	@mkdir -p $(@D)
	$(CC) $(XO_CFLAGS) $(XO_AUDIT_FLAGS) -o $@.tmp $(XO_AUDIT)
	@! readelf -d $@.tmp | grep -q NEEDED || { echo "$@: has DT_NEEDED" >&2; exit 1; }
	@! readelf -rW $@.tmp | grep '^0' | grep -v R_X86_64_RELATIVE || { echo "$@: relocations other than R_X86_64_RELATIVE" >&2; exit 1; }
	@! readelf -SW $@.tmp | grep -q 'init_array\|\.ctors\| \.init ' || { echo "$@: has constructors" >&2; exit 1; }
	mv $@.tmp $@

$(BUILD)/guest/tests/xoload/%: tests/xoload/dyn/%.c $(TEST_LIB) $(HDRS) $(XO_HELPERS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< $(TEST_LIB) $(XO_DYN)

# xo_scan: the gadgets in its own code (-z noseparate-code: .rodata is
# executable too) and in its DT_NEEDED libpkrugadgets.so.
$(BUILD)/guest/tests/xoload/xo_scan: tests/xoload/dyn/xo_scan.c tests/xoload/lib/pkrugadgets.S $(TEST_LIB) $(HDRS) $(XO_HELPERS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Wl,-z,noseparate-code -o $@ $< tests/xoload/lib/pkrugadgets.S $(TEST_LIB) \
		-L$(XO_LIBDIR) -Wl,--no-as-needed -lpkrugadgets -Wl,--as-needed -Wl,-rpath,/xonly/lib/xoload $(XO_DYN)

$(BUILD)/guest/tests/xoload/%: tests/xoload/%.sh $(XO_HELPERS)
	@mkdir -p $(@D)
	install -m 755 $< $@

# An audit module that does nothing, built as xoaudit.so is (make bench);
# libtimeaudit.so, the same printing its clock at each callback (the
# baseline of make bench's phases).
$(XO_LIBDIR)/libnullaudit.so: tests/xoload/lib/nullaudit.c
	@mkdir -p $(@D)
	$(CC) $(XO_CFLAGS) $(XO_AUDIT_FLAGS) -o $@ $<
$(XO_LIBDIR)/libtimeaudit.so: tests/xoload/lib/nullaudit.c xoloader/run/report.c $(XO_HDRS)
	@mkdir -p $(@D)
	$(CC) $(XO_CFLAGS) $(XO_AUDIT_FLAGS) -DTIME_MARKS -o $@ tests/xoload/lib/nullaudit.c xoloader/run/report.c

# Freestanding static programs of make bench: execthrough, which only
# execve()s its argument (the floor of a command in front of PROG), and the
# sweep after each timed run (what a run leaves for the next one under TCG).
$(XO_LIBDIR)/execthrough $(XO_LIBDIR)/sweep: $(XO_LIBDIR)/%: tests/xoload/lib/%.c kernel/include/xonly/uapi.h \
                                               xoloader/run/sys.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -nostdlib -ffreestanding -fno-stack-protector -fno-pie -no-pie -static -o $@ $<

# A preloader that maps PROG and ld.so and protects nothing: the floor of
# xoload's design (a static-pie, as xoload: a non-PIE program at 0x400000
# would lie where an ET_EXEC PROG such as python3 goes); make bench and
# make bench-host time it.
NULLLOAD_FLAGS := -nostdlib -ffreestanding -fno-builtin -fno-stack-protector -fPIE -static-pie -Wl,--no-undefined \
                  -Wl,-z,norelro
$(XO_LIBDIR)/nullload: tests/xoload/lib/nullload.c xoloader/run/sys.h xoloader/rule/str.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(NULLLOAD_FLAGS) -o $@.tmp $<
	@if readelf -rW $@.tmp | grep -q 'R_X86_64'; then echo "$@: has relocations, and nothing applies them" >&2; exit 1; fi
	mv $@.tmp $@

# An audit module that swaps a library's file under ld.so (tests/xoload/sameobj.sh).
$(XO_LIBDIR)/libswapaudit.so: tests/xoload/lib/swapaudit.c
	@mkdir -p $(@D)
	$(CC) $(XO_CFLAGS) $(XO_AUDIT_FLAGS) -o $@ $<

$(XO_LIBDIR)/libxoprobe.so: tests/xoload/lib/xoprobe.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -shared -fPIC -o $@ $<

$(XO_LIBDIR)/libpkrugadgets.so: tests/xoload/lib/pkrugadgets.S
	@mkdir -p $(@D)
	$(CC) -shared -Wl,-soname,libpkrugadgets.so -o $@ $<

# Programs that find their library through $ORIGIN (tests/xoload/origin.sh):
# DT_RUNPATH (also -z noseparate-code: .dynstr in the code segment),
# DT_RPATH (--disable-new-dtags) and a DT_NEEDED name with $ORIGIN in it
# (the library's soname), and a decoy of the library's name.
$(XO_LIBDIR)/origin/lib/libxoorigin.so: tests/xoload/lib/liborigin.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fPIC -shared -DWHICH='"lib/libxoorigin.so"' -o $@ $<
$(XO_LIBDIR)/origin/decoy/libxoorigin.so: tests/xoload/lib/liborigin.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fPIC -shared -DWHICH='"a decoy of the same name"' -o $@ $<
$(XO_LIBDIR)/origin/lib/libxoorigin-needed.so: tests/xoload/lib/liborigin.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fPIC -shared -DWHICH='"lib/libxoorigin-needed.so"' \
		-Wl,-soname,'$$ORIGIN/../lib/libxoorigin-needed.so' -o $@ $<
$(XO_LIBDIR)/origin/bin/runpath: tests/xoload/lib/origin.c $(XO_LIBDIR)/origin/lib/libxoorigin.so
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< -L$(XO_LIBDIR)/origin/lib -lxoorigin -Wl,--enable-new-dtags,-rpath,'$$ORIGIN/../lib'
$(XO_LIBDIR)/origin/bin/rpath: tests/xoload/lib/origin.c $(XO_LIBDIR)/origin/lib/libxoorigin.so
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< -L$(XO_LIBDIR)/origin/lib -lxoorigin -Wl,--disable-new-dtags,-rpath,'$${ORIGIN}/../lib'
$(XO_LIBDIR)/origin/bin/runpath-nosep: tests/xoload/lib/origin.c $(XO_LIBDIR)/origin/lib/libxoorigin.so
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< -L$(XO_LIBDIR)/origin/lib -lxoorigin -Wl,-z,noseparate-code \
		-Wl,--enable-new-dtags,-rpath,'$$ORIGIN/../lib'
$(XO_LIBDIR)/origin/lib/libxoorigin-audit.so: tests/xoload/lib/liboriginaudit.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fPIC -shared -DWHICH='"lib/libxoorigin-audit.so"' -o $@ $<
$(XO_LIBDIR)/origin/decoy/libxoorigin-audit.so: tests/xoload/lib/liboriginaudit.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fPIC -shared -DWHICH='"a decoy of the same name"' -o $@ $<
# DT_AUDIT through $ORIGIN (review s44b: a decoy next to xoload was loaded and run).
$(XO_LIBDIR)/origin/bin/audit: tests/xoload/lib/origin.c $(XO_LIBDIR)/origin/lib/libxoorigin.so \
			      $(XO_LIBDIR)/origin/lib/libxoorigin-audit.so
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< -L$(XO_LIBDIR)/origin/lib -lxoorigin -Wl,--enable-new-dtags,-rpath,'$$ORIGIN/../lib' \
		-Wl,--audit,'$$ORIGIN/../lib/libxoorigin-audit.so'
# A DT_RUNPATH of about 7.5 KB, $ORIGIN last (review s44: strings past 4 KiB were not read).
ORIGIN_LONG := $(shell i=0; while [ $$i -lt 300 ]; do printf '/nonexistent/xoorigin%03d:' $$i; i=$$((i + 1)); done)
$(XO_LIBDIR)/origin/bin/runpath-long: tests/xoload/lib/origin.c $(XO_LIBDIR)/origin/lib/libxoorigin.so
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< -L$(XO_LIBDIR)/origin/lib -lxoorigin \
		-Wl,--enable-new-dtags,-rpath,'$(ORIGIN_LONG)$$ORIGIN/../lib'
$(XO_LIBDIR)/origin/bin/needed: tests/xoload/lib/origin.c $(XO_LIBDIR)/origin/lib/libxoorigin-needed.so
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< $(XO_LIBDIR)/origin/lib/libxoorigin-needed.so

# A table in .text between two CFI-covered functions (tests/xoload/datatext.sh).
$(XO_LIBDIR)/libdatatext.so: tests/xoload/lib/datatext.S
	@mkdir -p $(@D)
	$(CC) -shared -o $@ $<

$(XO_LIBDIR)/datatext: tests/xoload/lib/datatext.c tests/xoload/lib/datatext.S $(TEST_LIB) $(HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< tests/xoload/lib/datatext.S $(TEST_LIB) $(XO_DYN)

# The hook's tests (tests/xoload/hook.sh): a probe, an ld.so patcher, and
# hello with its interpreter in /tmp, where hook.sh puts a patched ld.so.
$(XO_LIBDIR)/hookprobe: tests/xoload/lib/hookprobe.c $(TEST_LIB) $(HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< $(TEST_LIB)

$(XO_LIBDIR)/ldpatch: tests/xoload/lib/ldpatch.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -static -o $@ $<

$(XO_LIBDIR)/hello-ldtmp: tests/xoload/lib/hello.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Wl,--dynamic-linker=/tmp/xo-hook-ld.so -o $@ $<

# A library whose code the identity check compares through a buffer (no
# build-id), and a program that looks for a copy of that code.
$(XO_LIBDIR)/libcodecopy.so: tests/xoload/lib/libcodecopy.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -shared -fPIC -Wl,--build-id=none -o $@ $<

$(XO_LIBDIR)/codecopy: tests/xoload/lib/codecopy.c $(XO_LIBDIR)/libcodecopy.so
	$(CC) $(CFLAGS) -o $@ $< -L$(XO_LIBDIR) -lcodecopy -Wl,-rpath,/xonly/lib/xoload

# mprotect(4096, PROT_READ|PROT_EXEC) refused, as SELinux without execmod refuses it.
# --self-of PATH: mprotect(PROT_EXEC) of PATH's code refused (tests/xoload/selfprotect.sh).
$(XO_LIBDIR)/denyexecmod: tests/xoload/lib/denyexecmod.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -static -o $@ $<

# tests/xoload/hook_edges.sh: threads that dlopen() and dlclose() at once, and
# a program whose preinit_array entry, constructors (its own and its
# DT_NEEDED library's) and IFUNC resolver read libc's code.  hookctor's
# resolver runs before hookctor's relocation is done: no stack protector
# (nothing it may call through the PLT either).
$(XO_LIBDIR)/hookthreads: tests/xoload/lib/hookthreads.c $(TEST_LIB) $(HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -pthread -o $@ $< $(TEST_LIB)

# tests/xoload/hook_edges.sh: a SIGUSR1 handler, the signal sent by a tracer inside the hook, that calls r_brk.
$(XO_LIBDIR)/hookreenter: tests/xoload/lib/hookreenter.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $<

# tests/xoload/children.sh: 256 KiB of code where ld.so has its own, run as "ld.so bigtext".
$(XO_LIBDIR)/bigtext: tests/xoload/lib/bigtext.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -pie -fPIE -Wl,-z,separate-code -o $@ $<

$(XO_LIBDIR)/libhookctor.so: tests/xoload/lib/hookctorlib.c tests/xoload/lib/hookctor.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -shared -fPIC -Wl,-soname,libhookctor.so -o $@ $<

$(XO_LIBDIR)/hookctor: tests/xoload/lib/hookctor.c tests/xoload/lib/hookctor.h $(XO_LIBDIR)/libhookctor.so $(TEST_LIB) $(HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fno-stack-protector -o $@ $< $(TEST_LIB) -L$(XO_LIBDIR) -lhookctor -Wl,-rpath,/xonly/lib/xoload

# The safety net's deliberately wrong plans (tests/xoload/net.sh): a table
# in .text read by the program's own code, and xocachetest to forge them.
$(XO_LIBDIR)/netprobe: tests/xoload/lib/netprobe.c tests/xoload/lib/datatext.S
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< tests/xoload/lib/datatext.S

$(XO_LIBDIR)/netprobe-static: tests/xoload/lib/netprobe.c tests/xoload/lib/datatext.S
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -DNETPROBE_STATIC -static -o $@ $< tests/xoload/lib/datatext.S

# The audit module of another build, as far as the safety net's table goes
# (another XONET_VERSION): it must refuse the preloader's (net.sh).
$(XO_LIBDIR)/xoaudit-othernet.so: $(XO_AUDIT) $(XO_HDRS)
	@mkdir -p $(@D)
	$(CC) $(XO_CFLAGS) $(XO_AUDIT_FLAGS) -DXONET_VERSION=0x74656e01u -o $@ $(XO_AUDIT)

$(XO_LIBDIR)/xocachetest: xoloader/tools/cachetest.c $(XO_RT) $(XO_HDRS)
	@mkdir -p $(@D)
	$(CC) $(XO_CFLAGS) -static -o $@ xoloader/tools/cachetest.c $(XO_RT)

# tests/xoload/programs.sh: a /proc/self/exe re-exec, libcrypto from inside.
$(XO_LIBDIR)/selfexec: tests/xoload/lib/selfexec.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $<

$(XO_LIBDIR)/programs.sh: tests/xoload/lib/programs.sh
	@mkdir -p $(@D)
	install -m 755 $< $@

# Sourced or read by the tests, not run.
$(XO_LIBDIR)/badprogs.sh $(XO_LIBDIR)/smallstack.sh $(XO_LIBDIR)/fork.js: $(XO_LIBDIR)/%: tests/xoload/lib/%
	@mkdir -p $(@D)
	install -m 644 $< $@

$(XO_LIBDIR)/cryptoprobe: tests/xoload/lib/cryptoprobe.c $(TEST_LIB) $(HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< $(TEST_LIB) $(XO_DYN)

$(XO_LIBDIR)/hello: tests/xoload/lib/hello.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $<

$(XO_LIBDIR)/hello-nosep: tests/xoload/lib/hello.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Wl,-z,noseparate-code -o $@ $<

# An R+X first segment and a hole after it (-z noseparate-code, 64 KiB pages).
$(XO_LIBDIR)/libgap.so: tests/xoload/lib/gap.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -shared -fPIC -Wl,-z,noseparate-code -Wl,-z,max-page-size=0x10000 -o $@ $<

$(XO_LIBDIR)/gapuser: tests/xoload/lib/gapuser.c $(XO_LIBDIR)/libgap.so
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< -L$(XO_LIBDIR) -lgap -Wl,-rpath,/xonly/lib/xoload

# Program headers in a code segment, as BOLT leaves librustc_driver
# (tests/xoload/kernel_headers.sh): a plain build, then movephdrs (a
# build-time tool, run here) moves its headers.
$(BUILD)/testtools/movephdrs: tests/xoload/lib/movephdrs.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $<

$(XO_LIBDIR)/libfarcode.so $(XO_LIBDIR)/libfarcode-dl.so: tests/xoload/lib/farcode.c $(BUILD)/testtools/movephdrs
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -shared -fPIC -Wl,-soname,$(@F) -o $@.plain $<
	$(BUILD)/testtools/movephdrs $@.plain $@.tmp
	rm -f $@.plain
	mv $@.tmp $@

$(XO_LIBDIR)/farcodeuser: tests/xoload/lib/farcodeuser.c $(XO_LIBDIR)/libfarcode.so
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< -L$(XO_LIBDIR) -lfarcode -Wl,-rpath,/xonly/lib/xoload

$(XO_LIBDIR)/libfarhash.so: tests/xoload/lib/farhash.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -shared -fPIC -Wl,-z,noseparate-code -Wl,--section-start=.gnu.hash=0x3000 -o $@ $<

$(XO_LIBDIR)/farhashuser: tests/xoload/lib/farhash.c $(XO_LIBDIR)/libfarhash.so
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -DUSER -o $@ $< -L$(XO_LIBDIR) -lfarhash -Wl,-rpath,/xonly/lib/xoload

# Headers and its GNU property note (-z ibt makes one) moved into a code segment, a page each.
$(XO_LIBDIR)/libfarprop.so: tests/xoload/lib/farhash.c $(BUILD)/testtools/movephdrs
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -shared -fPIC -Wl,-z,ibt -o $@.plain $<
	$(BUILD)/testtools/movephdrs $@.plain $@.tmp --property
	rm -f $@.plain
	mv $@.tmp $@

$(XO_LIBDIR)/farpropuser: tests/xoload/lib/farhash.c $(XO_LIBDIR)/libfarprop.so
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -DUSER -o $@ $< -L$(XO_LIBDIR) -lfarprop -Wl,-rpath,/xonly/lib/xoload

# A static program whose headers lie in its code (kernel_headers.sh: --kernel does not refuse it).
$(XO_LIBDIR)/hello-static-nosep: tests/xoload/lib/hello.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -static -Wl,-z,noseparate-code -o $@ $<

# Initial-exec TLS beyond glibc's surplus under LD_AUDIT (tests/xoload/tls.sh).
$(XO_LIBDIR)/libbigtls.so: tests/xoload/lib/libbigtls.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -shared -fPIC -o $@ $<

$(XO_LIBDIR)/bigtls: tests/xoload/lib/bigtls.c $(XO_LIBDIR)/libbigtls.so
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< -L$(XO_LIBDIR) -lbigtls -Wl,-rpath,/xonly/lib/xoload

# A thread with a 32 KiB stack, as node makes: its TLS comes out of it (tests/xoload/tls.sh).
$(XO_LIBDIR)/smallthread: tests/xoload/lib/smallthread.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -pthread -o $@ $<

$(XO_LIBDIR)/hello-static: tests/xoload/lib/hello.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -static -o $@ $<

# Text relocations: non-PIC code in a shared object, linked with -z notext.
$(XO_LIBDIR)/libtextrel.so: tests/xoload/lib/textrel.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fno-pic -mcmodel=large -shared -Wl,-z,notext -o $@ $<

$(XO_LIBDIR)/textrel-user: tests/xoload/lib/textrel-user.c $(XO_LIBDIR)/libtextrel.so
	$(CC) $(CFLAGS) -o $@ $< -L$(XO_LIBDIR) -ltextrel -Wl,-rpath,/xonly/lib/xoload

# The same without build-id: the identity check would compare its relocated
# code with the file (hook.sh).
$(XO_LIBDIR)/libtextrel-nobid.so: tests/xoload/lib/textrel.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fno-pic -mcmodel=large -shared -Wl,-z,notext -Wl,--build-id=none -o $@ $<

$(XO_LIBDIR)/textrel-nobid-user: tests/xoload/lib/textrel-user.c $(XO_LIBDIR)/libtextrel-nobid.so
	$(CC) $(CFLAGS) -o $@ $< -L$(XO_LIBDIR) -ltextrel-nobid -Wl,-rpath,/xonly/lib/xoload

# make bench: startup and steady-state ratios, native vs under xoload.
XO_BENCH   := $(BUILD)/guest/bench.d/xoload
$(XO_BENCH): xoloader/tools/bench.c xoloader/tools/benchrun.c $(XO_HDRS)
	@mkdir -p $(@D)
	$(CC) $(XO_CFLAGS) -static -o $@ $< xoloader/tools/benchrun.c

# Host tools: xofuzz (xoloader/tools/fuzz.c) links xoplan.c's main() under another
# name, to run it in a forked child per mutant (tests/host/xoload_fuzz.sh).
XO_FUZZ    := $(BUILD)/host/xofuzz
XO_SEEDS   := $(XO_LIBDIR)/hello $(XO_LIBDIR)/hello-nosep $(XO_LIBDIR)/hello-static \
              $(XO_LIBDIR)/textrel-user $(XO_LIBDIR)/libtextrel.so $(XO_LIBDIR)/libpkrugadgets.so \
              $(BUILD)/guest/tests/xoload/xo_scan
FUZZ_N     ?= 50000
FUZZ_SEED  ?= 1

$(BUILD)/host/xoload-main.o: xoloader/tools/xoplan.c $(XO_HDRS)
	@mkdir -p $(@D)
	$(CC) $(XO_CFLAGS) -Dmain=xoload_main -c -o $@ $<

$(XO_FUZZ): xoloader/tools/fuzz.c $(BUILD)/host/xoload-main.o $(XO_RUN) \
	    xoloader/tools/deps.c xoloader/ref/elfplan.c xoloader/tools/apply.c xoloader/tools/cachewrite.c \
	    xoloader/tools/xattr.c xoloader/tools/fromlog.c xoloader/ref/plancmp.c $(XO_HDRS)
	$(CC) $(XO_CFLAGS) -o $@ xoloader/tools/fuzz.c $(BUILD)/host/xoload-main.o $(XO_RUN) \
		xoloader/tools/deps.c xoloader/ref/elfplan.c xoloader/tools/apply.c xoloader/tools/cachewrite.c \
		xoloader/tools/xattr.c xoloader/tools/fromlog.c xoloader/ref/plancmp.c -lelf

# The analysis tools' decoder (xoloader/tools/decode.c, issue 26): capstone 4
# in every build; on the host also LLVM 14's C disassembler (llvm-14-dev,
# libLLVM-14.so), which knows the AVX2/AVX-512 encodings capstone 4 rejects.
# Host tools built with it use LLVM unless told --decoder=capstone; the
# guest's static xoscan has capstone only (statically, LLVM's disassembler
# would add 7 MB to it: xoloader/README.md).
XO_DEC     := xoloader/tools/decode.c
XO_FDES    := xoloader/tools/fdes.c xoloader/tools/files.c
XO_PROVEN  := xoloader/tools/proven.c
# The code-byte measure of a plan: xosurvey's headline and xoproven's columns.
XO_CODEBYTES := xoloader/tools/codebytes.c
XO_LLVM_CFLAGS := -DXO_DECODE_LLVM -I/usr/lib/llvm-14/include
XO_LLVM_LIBS   := -lLLVM-14

# planproof: the data-in-text rule checked against what the code reads
# (the decoder above), over every ELF under /usr (tests/host/xoplan_proof.sh).
XO_PROOF   := $(BUILD)/host/planproof
$(XO_PROOF): xoloader/tools/planproof.c xoloader/tools/proven.c $(XO_DEC) $(XO_FDES) $(XO_PLAN) xoloader/tools/apply.c $(XO_HDRS)
	@mkdir -p $(@D)
	$(CC) $(XO_CFLAGS) $(XO_LLVM_CFLAGS) -o $@ xoloader/tools/planproof.c xoloader/tools/proven.c $(XO_DEC) $(XO_FDES) \
		$(XO_PLAN) xoloader/tools/apply.c \
		-lelf -lcapstone $(XO_LLVM_LIBS)

# xodeccov: how many FDE-covered bytes each decoder cannot decode (issue 26).
XO_DECCOV  := $(BUILD)/host/xodeccov
$(XO_DECCOV): xoloader/tools/deccov.c $(XO_DEC) $(XO_FDES) xoloader/rule/ehframe.c $(XO_HDRS)
	@mkdir -p $(@D)
	$(CC) $(XO_CFLAGS) $(XO_LLVM_CFLAGS) -o $@ xoloader/tools/deccov.c $(XO_DEC) $(XO_FDES) xoloader/rule/ehframe.c \
		-lelf -lcapstone $(XO_LLVM_LIBS)

# xoproven: the proven-code rule (xoloader/tools/proven.c, issue 26 step 2)
# against the FDE rule, per object; offline only, the run path never links it.
XO_XOPROVEN := $(BUILD)/host/xoproven
$(XO_XOPROVEN): xoloader/tools/xoproven.c $(XO_PROVEN) $(XO_DEC) $(XO_FDES) $(XO_PLAN) xoloader/tools/apply.c \
		$(XO_CODEBYTES) $(XO_HDRS)
	@mkdir -p $(@D)
	$(CC) $(XO_CFLAGS) $(XO_LLVM_CFLAGS) -o $@ xoloader/tools/xoproven.c $(XO_PROVEN) $(XO_DEC) $(XO_FDES) $(XO_PLAN) \
		xoloader/tools/apply.c $(XO_CODEBYTES) -lelf -lcapstone $(XO_LLVM_LIBS)

# The host's xoscan: the same source with both decoders (--decoder=), for the
# before/after of issue 26; the installed and guest xoscan stay capstone-only.
XO_HSCAN   := $(BUILD)/host/xoscan
$(XO_HSCAN): xoloader/tools/xoscan.c $(XO_DEC) $(XO_RT) $(XO_HDRS)
	@mkdir -p $(@D)
	$(CC) $(XO_CFLAGS) $(XO_LLVM_CFLAGS) -o $@ $< $(XO_DEC) $(XO_RT) -lcapstone -lelf $(XO_LLVM_LIBS)

# xoplandiff: ref/elfplan.c (libelf) against run/rtplan.c (tests/host/xoload_plandiff.sh).
XO_PLANDIFF := $(BUILD)/host/xoplandiff
$(XO_PLANDIFF): xoloader/tools/plandiff.c xoloader/ref/plancmp.c xoloader/ref/elfplan.c $(XO_RT) $(XO_HDRS)
	@mkdir -p $(@D)
	$(CC) $(XO_CFLAGS) -o $@ xoloader/tools/plandiff.c xoloader/ref/plancmp.c xoloader/ref/elfplan.c $(XO_RT) -lelf

# xosurvey (xoloader/tools/survey.c): elfplan over every ELF object under some
# directories, on the host (make bench runs it on /usr).
XO_SURVEY  := $(BUILD)/host/xosurvey
$(XO_SURVEY): xoloader/tools/survey.c $(XO_PLAN) xoloader/tools/apply.c $(XO_CODEBYTES) $(XO_HDRS)
	@mkdir -p $(@D)
	$(CC) $(XO_CFLAGS) -D_FORTIFY_SOURCE=2 -fstack-protector-strong -Wl,-z,relro,-z,now -o $@ \
		xoloader/tools/survey.c $(XO_PLAN) xoloader/tools/apply.c $(XO_CODEBYTES) -lelf

# xocachetest: the plan cache through the run path's lookup (tests/host/plancache.sh).
XO_CACHETEST := $(BUILD)/host/xocachetest
$(XO_CACHETEST): xoloader/tools/cachetest.c $(XO_RT) $(XO_HDRS)
	@mkdir -p $(@D)
	$(CC) $(XO_CFLAGS) -o $@ xoloader/tools/cachetest.c $(XO_RT)

# xosametest: the audit module's identity check (tests/host/sameobj.sh).
XO_SAMETEST := $(BUILD)/host/xosametest
$(XO_SAMETEST): xoloader/tools/sametest.c xoloader/run/sameobj.c $(XO_HDRS)
	@mkdir -p $(@D)
	$(CC) $(XO_CFLAGS) -o $@ xoloader/tools/sametest.c xoloader/run/sameobj.c

host-tools: $(BUILD)/hostbench/lib/xoaudit.so $(BUILD)/hostbench/bin/xoload $(HB_PRIVATE_LAYOUT) $(XO_CACHETEST) $(XO_SAMETEST) $(XO_FUZZ) $(XO_PLANDIFF) $(XO_PROOF) $(XO_SURVEY) $(XO_DECCOV) $(XO_HSCAN) $(XO_XOPROVEN)

# The long run: the real xoload binary executed for each mutant (-x), xoscan
# on every 4th.  Failures are saved under build/fuzz-failures/.  xoload
# --plan plans the seeds' libraries too: LD_LIBRARY_PATH finds those that
# live in the VM's /xonly/lib/xoload (their RUNPATH) here.
fuzz: guest host-tools
	LD_LIBRARY_PATH=$(XO_LIBDIR) $(XO_FUZZ) -x -n $(FUZZ_N) -s $(FUZZ_SEED) -S 4 -o $(BUILD)/fuzz-failures \
		$(BUILD)/guest/bin/xoload $(BUILD)/guest/bin/xoscan $(XO_SEEDS)

# tests/compat32/NAME.c -> /xonly/tests/compat32/NAME: -m32 static programs
# (gcc-multilib) that test the i386 ABI, linked with 32-bit builds of the
# tests/lib files they use
CC32       := $(CC) -m32
TEST32_OBJ := $(patsubst %.c,$(BUILD)/obj32/%.o,tests/lib/tap.c tests/lib/fault.c tests/lib/mapping.c)
COMPAT32   := $(patsubst tests/compat32/%.c,$(BUILD)/guest/tests/compat32/%,$(wildcard tests/compat32/*.c))

$(BUILD)/obj32/%.o: %.c $(HDRS)
	@mkdir -p $(@D)
	$(CC32) $(CFLAGS) -c -o $@ $<

$(COMPAT32): $(BUILD)/guest/tests/compat32/%: tests/compat32/%.c $(TEST32_OBJ) $(HDRS)
	@mkdir -p $(@D)
	$(CC32) $(CFLAGS) -o $@ $< $(TEST32_OBJ) $(LDFLAGS)

# tests/bench/NAME.c -> /xonly/bench.d/NAME: static benchmarks of the kernel
# series (make bench), with the test headers
KERN_BENCH := $(patsubst tests/bench/%.c,$(BUILD)/guest/bench.d/%,$(wildcard tests/bench/*.c))

$(KERN_BENCH): $(BUILD)/guest/bench.d/%: tests/bench/%.c $(HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -static -o $@ $<

# tests/kernel/lib/NAME.c -> /xonly/lib/kernel/NAME: dynamically linked helpers
# that kernel tests exec (not tests themselves: the runner does not start them)
KERN_HELPERS := $(patsubst tests/kernel/lib/%.c,$(BUILD)/guest/lib/kernel/%,$(wildcard tests/kernel/lib/*.c))

$(BUILD)/guest/lib/kernel/%: tests/kernel/lib/%.c $(TEST_LIB) $(HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< $(TEST_LIB) -ldl
# --- end of xoloader ---------------------------------------------------------------

# --- the test runner's own pieces ----------------------------------------------------
# initramfs/run-one.c   -> /xonly/bin/run-one: runs one test so that nothing it
#                          starts outlives it (initramfs/run-tests)
# tests/lib/tap.sh      -> /xonly/lib/tap.sh: the TAP printer of shell tests
# tests/harness/NAME.sh -> /xonly/tests/harness/NAME: tests of the runner
HARNESS := $(BUILD)/guest/bin/run-one $(BUILD)/guest/lib/tap.sh \
           $(patsubst tests/harness/%.sh,$(BUILD)/guest/tests/harness/%,$(wildcard tests/harness/*.sh))

$(BUILD)/guest/bin/run-one: initramfs/run-one.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -static -o $@ $<

$(BUILD)/guest/lib/tap.sh: tests/lib/tap.sh
	@mkdir -p $(@D)
	install -m 644 $< $@

$(BUILD)/guest/tests/harness/%: tests/harness/%.sh
	@mkdir -p $(@D)
	install -m 755 $< $@

# --- make install, make uninstall (GNU conventions) -------------------------------
# Every directory can be overridden; DESTDIR is prepended to each at install
# time only (staged installs, packages).  xoload and its audit module find
# each other and xoscan by relative paths (xoloader/run/xoload.h), so they are
# built again for the layout below into $(BUILD)/inst/LAYOUT/, whose paths.h
# holds the relative paths (LAYOUT: a hash of BINDIR and the module's dir).
PREFIX      ?= /usr/local
EXEC_PREFIX ?= $(PREFIX)
BINDIR      ?= $(EXEC_PREFIX)/bin
LIBDIR      ?= $(EXEC_PREFIX)/lib
LIBEXECDIR  ?= $(EXEC_PREFIX)/libexec
DATAROOTDIR ?= $(PREFIX)/share
MANDIR      ?= $(DATAROOTDIR)/man
INCLUDEDIR  ?= $(PREFIX)/include
DESTDIR     ?=
XO_MODDIR   := $(LIBDIR)/xonly
# Where the real xoload and xoscan go: the relative paths below follow.
# xoload lies in $(LIBEXECDIR)/xonly, its command in BINDIR is a symlink to
# it: a process's /proc/self/exe names the real file, a name nobody types,
# so that xoload can tell a program re-executing itself by that name
# (clang, node's child_process.fork) from a user running xoload
# (XO_SELF_PRIVATE in paths.h; xoloader/README.md, "Re-exec through
# /proc/self/exe").  XOLOAD_DIR=$(BINDIR) puts the file there instead,
# without that.
XOLOAD_DIR  := $(LIBEXECDIR)/xonly
# Not BINDIR (compared as realpath -m gives them, as relpath does:
# "$(BINDIR)/" and a BINDIR reached through a symlink are BINDIR): the end
# of the real file's name, its last two directories, which only a re-exec
# uses (runpath.c's names_private_self()).
xo_real      = $(shell realpath -m '$(1)')
XO_SELF_TAIL := $(if $(filter-out $(call xo_real,$(BINDIR)),$(call xo_real,$(XOLOAD_DIR))),$(subst //,/,$(subst //,/,$(strip \
                /$(notdir $(patsubst %/,%,$(dir $(call xo_real,$(XOLOAD_DIR)))))/$(notdir $(call xo_real,$(XOLOAD_DIR)))/xoload))))
XOSCAN_DIR  := $(BINDIR)
# xoplan: what xoload executes for --plan, --report and --scan; no command.
XOPLAN_DIR  := $(LIBEXECDIR)/xonly
# One build directory per layout: switching PREFIX back and forth rebuilds
# nothing that is already built for the layout.
XO_LAYOUT   := $(shell printf '%s\n' '$(XOLOAD_DIR)' '$(XOSCAN_DIR)' '$(XO_MODDIR)' '$(XOPLAN_DIR)' | md5sum | cut -c1-12)
INST        := $(BUILD)/inst/$(XO_LAYOUT)

# The relative path from directory $(1) to file $(2).
relpath = $(shell realpath -m --relative-to='$(1)' '$(2)')

# THE list of installed files, one a line: MODE SOURCE DESTINATION.  MODE is
# an octal mode for `install -m`, "link" for a symlink DESTINATION ->
# SOURCE (SOURCE relative to DESTINATION's directory), or "so" for a man
# page ".so SOURCE" (SOURCE relative to MANDIR: man/pkey_set.2 is a symlink
# in the tree, so that `man -l man/pkey_set.2` works there, and a .so link
# where it is installed).  install, uninstall,
# `make install-list` (tests/host/install.sh) and `make deb` all read it.
INSTALL_TABLE := \
  755  $(INST)/xoload                $(XOLOAD_DIR)/xoload \
  $(if $(XO_SELF_TAIL),link $(call relpath,$(BINDIR),$(XOLOAD_DIR)/xoload) $(BINDIR)/xoload) \
  755  $(INST)/xoplan                $(XOPLAN_DIR)/xoplan \
  755  $(BUILD)/guest/lib/xoplan-proven $(XOPLAN_DIR)/xoplan-proven \
  755  $(BUILD)/guest/bin/xoscan     $(XOSCAN_DIR)/xoscan \
  755  $(BUILD)/host/xosurvey        $(BINDIR)/xosurvey \
  755  $(INST)/jit-demo              $(BINDIR)/jit-demo \
  644  $(INST)/xoaudit.so            $(XO_MODDIR)/xoaudit.so \
  644  kernel/include/xonly/uapi.h   $(INCLUDEDIR)/xonly/uapi.h \
  644  xoloader/xoload.1             $(MANDIR)/man1/xoload.1 \
  644  xoloader/xoscan.1             $(MANDIR)/man1/xoscan.1 \
  644  xoloader/xosurvey.1           $(MANDIR)/man1/xosurvey.1 \
  644  jit-demo/jit-demo.1           $(MANDIR)/man1/jit-demo.1 \
  644  man/pkey_get.2                $(MANDIR)/man2/pkey_get.2 \
  so   man2/pkey_get.2               $(MANDIR)/man2/pkey_set.2 \
  644  man/xonly.7                   $(MANDIR)/man7/xonly.7
# The SOURCEs of the table's file rows (every third word from the second).
install_srcs = $(if $(1),$(if $(filter link so,$(word 1,$(1))),,$(word 2,$(1))) \
               $(call install_srcs,$(wordlist 4,$(words $(1)),$(1))))
INSTALL_SRC := $(call install_srcs,$(INSTALL_TABLE))
MAN_PAGES   := $(filter %.1 %.2 %.7,$(INSTALL_SRC))

$(INST)/paths.h: Makefile
	@mkdir -p $(@D)
	@{ echo '#define XO_AUDIT_FROM_XOLOAD "$(call relpath,$(XOLOAD_DIR),$(XO_MODDIR)/xoaudit.so)"'; \
	   echo '#define XO_XOSCAN_FROM_XOLOAD "$(call relpath,$(XOLOAD_DIR),$(XOSCAN_DIR)/xoscan)"'; \
	   echo '#define XO_XOLOAD_FROM_AUDIT "$(call relpath,$(XO_MODDIR),$(XOLOAD_DIR)/xoload)"'; \
	   echo '#define XO_XOSCAN_FROM_AUDIT "$(call relpath,$(XO_MODDIR),$(XOSCAN_DIR)/xoscan)"'; \
	   echo '#define XO_XOPLAN_FROM_XOLOAD "$(call relpath,$(XOLOAD_DIR),$(XOPLAN_DIR)/xoplan)"'; \
	   echo '#define XO_AUDIT_FROM_XOPLAN "$(call relpath,$(XOPLAN_DIR),$(XO_MODDIR)/xoaudit.so)"'; \
	   echo '#define XO_XOSCAN_FROM_XOPLAN "$(call relpath,$(XOPLAN_DIR),$(XOSCAN_DIR)/xoscan)"'; \
	   echo '#define XOLOAD_XOPLAN_DEFAULT "$(XOPLAN_DIR)/xoplan"'; \
	   echo '#define XOLOAD_AUDIT_DEFAULT "$(XO_MODDIR)/xoaudit.so"'; \
	   echo '#define XOLOAD_XOSCAN_DEFAULT "$(XOSCAN_DIR)/xoscan"'; \
	   $(if $(XO_SELF_TAIL),echo '#define XO_SELF_PRIVATE "$(XO_SELF_TAIL)"';) } >$@

# Installed builds get Debian's hardening flags (dpkg-buildflags).
HARDEN_CFLAGS  := -D_FORTIFY_SOURCE=2 -fstack-protector-strong
HARDEN_LDFLAGS := -Wl,-z,relro,-z,now

# xoload has no libc, so no fortify or stack protector (both call into libc).
$(INST)/xoload: $(XO_LOADER) $(XO_HDRS) $(INST)/paths.h scripts/check-early
	$(call link_xoload,-include $(INST)/paths.h)

$(INST)/xoplan: $(XO_XOPLAN) $(XO_HDRS) $(INST)/paths.h
	$(CC) $(XO_CFLAGS) $(HARDEN_CFLAGS) -include $(INST)/paths.h -static-pie $(HARDEN_LDFLAGS) -o $@ \
		$(XO_XOPLAN)

# The module has no libc, so no fortify or stack protector (both call into
# libc); -z now and relro it already has (XO_AUDIT_FLAGS).
$(INST)/xoaudit.so: $(XO_AUDIT) $(XO_HDRS) $(INST)/paths.h
	$(CC) $(XO_CFLAGS) -include $(INST)/paths.h $(XO_AUDIT_FLAGS) -Wl,-z,relro -o $@ $(XO_AUDIT)

# Installed, jit-demo links capstone dynamically (libcapstone4); the VM
# image's copy is static, as every guest program.
$(INST)/jit-demo: $(BUILD)/obj/jit-demo/main.o $(GUEST_LIBS)
	@mkdir -p $(@D)
	$(CC) $(HARDEN_LDFLAGS) -o $@ $^ -pthread -lcapstone

# The programs that print XONLY_VERSION (--version) are rebuilt when it changes.
$(BUILD)/guest/bin/xoload $(INST)/xoload $(BUILD)/guest/lib/xoplan $(INST)/xoplan $(BUILD)/guest/bin/xoscan \
$(XO_HSCAN) $(XO_SURVEY) $(BUILD)/host/xoload-main.o $(BUILD)/obj/jit-demo/main.o: packaging/debian/changelog

# make check-host installs into a temporary DESTDIR (tests/host/install.sh):
# what it installs is built beforehand.
host-tools: $(INSTALL_SRC)

install: $(INSTALL_SRC)
	@scripts/install-files install '$(DESTDIR)' $(INSTALL_TABLE)

uninstall:
	@scripts/install-files uninstall '$(DESTDIR)' $(INSTALL_TABLE)

# The table as installed: "MODE DESTINATION" lines (link rows: "link DEST -> SRC").
install-list:
	@scripts/install-files list '$(DESTDIR)' $(INSTALL_TABLE)

# --- make deb: a Debian binary package of the same files ------------------------
# make install PREFIX=/usr into $(DEB_ROOT) (xoload and its module built for
# that layout in $(BUILD)/inst/), then scripts/mkdeb: stripped binaries,
# compressed man pages, /usr/share/doc, DEBIAN/control with dpkg-shlibdeps'
# Depends.  `make deb` also runs lintian on it (errors and warnings fail).
# The package is part of the VM image too (build/guest/deb/, unpacked at /
# by scripts/mkinitramfs): tests/deb/installed.sh runs the installed tools.
DEB_VERSION := $(XO_VERSION)
DEB_NAME    := xonly-tools_$(DEB_VERSION)_amd64.deb
DEB         := $(BUILD)/deb/$(DEB_NAME)
DEB_ROOT    := $(BUILD)/deb/root
DEB_GUEST   := $(BUILD)/guest/deb/$(DEB_NAME)
DEB_TESTS   := $(patsubst tests/deb/%.sh,$(BUILD)/guest/tests/deb/%,$(wildcard tests/deb/*.sh))

# The package's files are built from the same sources as $(INSTALL_SRC),
# for another layout: when one of these is rebuilt, so is the package.
$(DEB): $(INSTALL_SRC) $(wildcard packaging/debian/*) scripts/mkdeb scripts/install-files Makefile
	@rm -rf $(DEB_ROOT)
	@$(MAKE) --no-print-directory install PREFIX=/usr DESTDIR=$(CURDIR)/$(DEB_ROOT) >/dev/null
	@scripts/mkdeb --root $(DEB_ROOT) --version $(DEB_VERSION) -o $@

$(DEB_GUEST): $(DEB)
	@mkdir -p $(@D)
	@rm -f $(@D)/*.deb
	cp $< $@

$(BUILD)/guest/tests/deb/%: tests/deb/%.sh
	@mkdir -p $(@D)
	install -m 755 $< $@

deb: deps $(DEB)
	lintian --fail-on error,warning --display-info $(DEB)


# --- make guest: every program of the VM image, from the lists above ---------
guest: $(TEST_BIN) $(COMPAT32) $(DEMO_BIN) $(JIT_BIN) $(XO_GUEST) $(XO_BENCH) $(KERN_BENCH) $(KERN_HELPERS) $(HARNESS) \
       $(DEB_GUEST) $(DEB_TESTS)


# --- kernel, image, VM -----------------------------------------------------------
kernel: deps
	@scripts/build-kernel --patches $(PATCHES) $(KVER) >/dev/null

initramfs: deps guest
	@scripts/mkinitramfs --kernel "$$(scripts/build-kernel --patches $(PATCHES) $(KVER))" \
		--guest $(BUILD)/guest -o $(BUILD)/initramfs-$(KVER).cpio.gz

check: deps guest host-tools
	@scripts/check --patches $(PATCHES) $(KVER)

check-all: deps guest host-tools
	@scripts/check --patches $(PATCHES) $(KVERS)

check-host: deps guest host-tools
	@scripts/check --mode host

# The user-space tests that need no patched kernel, on the host's own kernel
# (scripts/check-hw): built only where the host has PKU and they can run.
check-hw: deps
	@if scripts/check-hw --probe >/dev/null; then $(MAKE) --no-print-directory guest; fi
	@scripts/check-hw

demo: deps guest
	@scripts/check --patches $(PATCHES) --mode demo $(KVER)

shell: deps guest
	@scripts/check --patches $(PATCHES) --mode shell $(KVER)

# The survey of /usr runs on the host first (SURVEY_DIRS): how much of this
# system's code xoload makes execute-only, what stays readable and why.
# xosurvey looks for xoscan next to itself or on PATH; the build's is in
# $(BUILD)/guest/bin/, so it is named (and built: a clean clone has none).
# tests/host/bench_survey.sh runs this step from a clean copy.
# Then the same directories by rule (scripts/survey-rules, issue 26): the
# objects Debian's packages own, under the FDE rule, the proven-code rule and
# the proven rule with relocation roots (xoproven); a failure there is
# printed and the bench goes on.
SURVEY_DIRS ?= /usr
survey: deps $(XO_SURVEY) $(BUILD)/guest/bin/xoscan $(XO_XOPROVEN)
	@echo '--- xosurvey $(SURVEY_DIRS) (host; chart: $(BUILD)/survey.svg) ---'
	@$(XO_SURVEY) --xoscan $(BUILD)/guest/bin/xoscan --totals --svg $(BUILD)/survey.svg $(SURVEY_DIRS)
	@echo '--- survey by rule: the code of Debian packages under $(SURVEY_DIRS) (host, xoproven) ---'
	@scripts/survey-rules --xoproven $(XO_XOPROVEN) $(SURVEY_DIRS) || echo 'survey by rule: FAILED (above)'

bench: deps guest host-tools survey
	@$(MAKE) --no-print-directory bench-host || echo 'bench-host: FAILED (above); the VM benchmarks go on'
	@scripts/check --patches $(PATCHES) --mode bench $(KVER)

# xoload's startup on this machine's own CPU (xoloader/tools/hostbench.c):
# in the VM under TCG a start is mostly code translation; on a CPU it is
# xoload's exec, system calls and page faults.  Runs a build of xoload that
# does not check for protection keys (-DXOLOAD_BENCH_NO_PKEYS: PROT_EXEC
# stays readable on a CPU without PKU; timing only), made here and never
# installed, with its module and xoplan beside it as in an installation.
HB         := $(BUILD)/hostbench
$(HB)/bin/xoload: $(XO_LOADER) $(XO_HDRS) scripts/check-early
	$(call link_xoload,-DXOLOAD_BENCH_NO_PKEYS)

# The module too: it checks for protection keys before it protects a child
# in place (run/audit.c).  tests/host/sameobj.sh runs it on this host.
$(HB)/lib/xoaudit.so: $(XO_AUDIT) $(XO_HDRS)
	@mkdir -p $(@D)
	$(CC) $(XO_CFLAGS) -DXOLOAD_BENCH_NO_PKEYS $(XO_AUDIT_FLAGS) -o $@.tmp $(XO_AUDIT)
	mv $@.tmp $@

$(HB)/lib/xoplan: $(BUILD)/guest/lib/xoplan
	@mkdir -p $(@D)
	cp $< $@

$(HB)/bin/hello: tests/xoload/lib/hello.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $<

$(HB)/bin/execthrough: $(XO_LIBDIR)/execthrough
	@mkdir -p $(@D)
	cp $< $@

$(HB)/bin/nullload: $(XO_LIBDIR)/nullload
	@mkdir -p $(@D)
	cp $< $@

$(HB)/bin/hostbench: xoloader/tools/hostbench.c xoloader/tools/benchrun.c $(XO_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< xoloader/tools/benchrun.c

bench-host: deps $(HB)/bin/xoload $(HB)/lib/xoaudit.so $(HB)/lib/xoplan $(HB)/bin/hello $(HB)/bin/execthrough \
            $(HB)/bin/nullload $(HB)/bin/hostbench
	@scripts/bench-host $(HB)

checkpatch: deps
	@scripts/checkpatch $(KVERS)

series-build: deps
	@scripts/series-build $(KVERS)

clean:
	rm -rf $(BUILD)
