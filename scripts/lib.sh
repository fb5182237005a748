# Shell helpers shared by scripts/: messages go to stderr, so that a
# script's stdout stays for the one thing it returns.

xonly_t0=$(date +%s)

say() { printf '%s\n' "$*" >&2; }
warn() { printf 'warning: %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# A progress line with the seconds elapsed since the script started.
step() { printf '[%4ds] %s\n' "$(($(date +%s) - xonly_t0))" "$*" >&2; }

# Fail with the tail of a log that holds the full output of a step.
fail_log() {
	local log=$1; shift
	printf 'error: %s; last lines of %s:\n' "$*" "$log" >&2
	tail -n 40 "$log" | sed 's/^/  | /' >&2
	exit 1
}

# The patch series for one tree: DIR/*.patch, which apply to every tree,
# merged by file name with DIR/KVER/*.patch, which apply to that tree only
# (a change whose context differs between trees, such as the end of
# syscall_32.tbl).  One path a line, in the order they are applied.
series_files() {
	local dir=$1 kver=$2 p
	for p in "$dir"/*.patch "$dir/$kver"/*.patch; do
		[ -f "$p" ] && printf '%s\t%s\n' "${p##*/}" "$p"
	done | sort -t "$(printf '\t')" -k1,1 | cut -f2
}
