#!/usr/bin/env bash
# check_early.sh - scripts/check-early, which the Makefile runs on every
# link of xoload, passes xoload and refuses each kind of read before
# relocation it claims to find, in small static-pies built like xoload:
# a pointer table read through a lea, a load relative to %rip, a call out
# of the early list, an indirect jump, and a binary without the early
# function at all.  Runs on the host; needs make guest.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
tap_init check-early
CE=$top/scripts/check-early
xo=$top/build/guest/bin/xoload
[ -x "$xo" ] || tap_bail "no $xo (make guest)"
tmp=$(mktemp -d /tmp/xo-check-early.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

out=$("$CE" "$xo" 2>&1); st=$?
ok $st "xoload passes ($out)"

# NAME WANT C-BODY: a static-pie whose run_kernel_early() is BODY; check-early must refuse it saying WANT.
refused() {
	printf '%s\n' "$3" 'void _start(void) { run_kernel_early(0, 0, 0); }' >"$tmp/$1.c"
	gcc -O2 -nostdlib -ffreestanding -fno-stack-protector -fPIE -static-pie -fvisibility=hidden \
		-o "$tmp/$1" "$tmp/$1.c" 2>"$tmp/$1.err" || { ok 1 "$1: builds ($(head -c 200 "$tmp/$1.err"))"; return; }
	out=$("$CE" "$tmp/$1" 2>&1); st=$?
	[ "$st" != 0 ] && [[ $out == *"$2"* ]]
	ok $? "$1: refused, '$2' (status $st: $out)"
}
refused table "takes the address of data that relocation changes" '
static const char *const dirs[] = { "/a", "/b" };
void run_kernel_early(int i, char **argv, char **envp) { (void)envp; argv[0] = (char *)dirs[i & 1]; }'
refused load "reads data before relocation" '
char *volatile where = "/x";
void run_kernel_early(int i, char **argv, char **envp) { (void)i; (void)envp; argv[0] = where; }'
refused call "which is not in the early list" '
__attribute__((noinline)) void elsewhere(char **a) { a[0] = 0; __asm__ volatile("" ::: "memory"); }
void run_kernel_early(int i, char **argv, char **envp) { (void)i; (void)envp; elsewhere(argv); }'
refused indirect "an indirect call or jump" '
void run_kernel_early(int i, char **argv, char **envp) { (void)argv; (void)envp; ((void (*)(void))(long)i)(); }'
refused missing "run_kernel_early not found" '
#define run_kernel_early renamed_early
void run_kernel_early(int i, char **argv, char **envp) { (void)i; (void)argv; (void)envp; }'
tap_done
