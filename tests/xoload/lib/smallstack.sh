# smallstack.sh - sourced by kernel.sh and kernel_plans.sh, which define XO
# and ok: small_stack_row FLAG (--kernel or --kernel-plans).
#
# A small stack (review s43b): the early path, whose buffers are on the
# stack, died where the full path ran; it now leaves such a limit to it.
# linux64 -R (ADDR_NO_RANDOMIZE) takes the kernel's random offset of up to
# 8 KiB off the stack's top, so that a limit is one number; the full path
# itself runs from some 12-16 KiB on, where a few bytes more of arguments
# or environment decide, so the row asks for a page more than it needs
# (the early path needed 8-12 KiB more).
small_stack() { sh -c "ulimit -s $1 && exec busybox linux64 -R $XO $2 /usr/bin/true" >/dev/null 2>&1; echo $?; }

small_stack_row() {
	local s min= full= early=
	for s in 12 14 16 18 20 24 28; do
		full=$(small_stack $s "$1 --")
		echo "#   ulimit -s $s: the full path $full"
		if [ "$full" = 0 ]; then min=$s; break; fi
	done
	if [ -n "$min" ]; then
		s=$((min + 4)); full=$(small_stack $s "$1 --"); early=$(small_stack $s "$1")
	fi
	[ -n "$min" ] && [ "$full" = 0 ] && [ "$early" = 0 ]
	ok $? "$1 with a page more stack than the full path needs (${min:-more than 28} + 4 KiB) runs PROG as it does (status ${early:-none}, the full path's ${full:-none}; review s43b: the early path died there)"
}
