#!/bin/sh
# Benchmark of the maiaudit view (issue #7), each figure next to a baseline
# measured in the same run:
#   cat verify on a 100,000-record log      target < 150 ms
#       baseline: the same verification through the library, without FUSE
#   cat entries/N.json on 1,000,000 records target < 5 ms
#       baseline: cat of a plain file of the same size on local disk
# Each is given twice: as 'cat' (wall time of the process, which includes
# starting it) and as the read alone (open, read, close in one process:
# read_latency), both next to the same measure of the baseline.
# Usage: bench_maiaudit.sh [BUILD_DIR [SMALL (100000) [LARGE (1000000)]]]
#   (or MAIAUDIT and VIEW_AUDIT_TOOL set); BUILD_DIR e.g. from
#   meson setup build-release --buildtype=release
# SMALL and LARGE are the two logs' record counts (the targets are for the
# defaults). Medians: the p50 of pct.py, the benchmarks' one definition.
# Needs /dev/fuse and fusermount3; logs go to files under a temp dir.
set -u
B=${1:-${MAI_BUILD_ROOT:-build}}
SMALL=${2:-100000}
LARGE=${3:-1000000}
. "$(dirname "$0")/bench_lib.sh"
MAIAUDIT=${MAIAUDIT:-$B/fs/maiaudit}
TOOL=${VIEW_AUDIT_TOOL:-$B/tests/integration/view_audit_tool}
LAT=${READ_LATENCY:-$B/tests/bench/read_latency}
[ -x "$MAIAUDIT" ] || { echo "no maiaudit at $MAIAUDIT: build first (ninja -C $B)" >&2; exit 2; }
[ -x "$LAT" ] || { echo "no read_latency at $LAT: build first (ninja -C $B)" >&2; exit 2; }
[ -x "$TOOL" ] || { echo "no view_audit_tool at $TOOL: it is built once the audit library is in the tree" >&2; exit 2; }
[ -e /dev/fuse ] && command -v fusermount3 >/dev/null || { echo "SKIP: needs /dev/fuse and fusermount3" >&2; exit 77; }

T=$(mktemp -d "${TMPDIR:-/tmp}/maiaudit-bench.XXXXXX")
PID=
WATCHDOG=
cleanup() {
	bench_stop "$WATCHDOG" "$PID"
	grep -q " $T/mnt " /proc/self/mountinfo && fusermount3 -u -z "$T/mnt"
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir -p "$T/mnt" "$T/keys"

now_ns() { date +%s%N; }

# p50 of the nanoseconds on stdin, printed as milliseconds with 2 decimals
median_ms() {
	bench_pct 50 | awk '{ printf "%.2f", $1 / 1e6 }'
}

# read_latency's samples (ms, one a line) as "median X ms, max Y ms over N reads"
reads() {
	"$LAT" "$@" > "$T/lat" || return 1
	echo "median $(bench_pct 50 < "$T/lat") ms, max $(bench_pct 100 < "$T/lat") ms over $(wc -l < "$T/lat") reads"
}

mount_view() {
	"$MAIAUDIT" "$T/mnt" --foreground --state-dir "$1" --drop-dir "$T" \
		--log-file "$T/maiaudit.log" </dev/null >/dev/null 2>&1 &
	PID=$!
	bench_wait 10 "maiaudit to mount $T/mnt" grep -q " $T/mnt .* fuse.maiaudit " /proc/self/mountinfo ||
		exit 1
	# The reads below have a deadline: past it the view is killed, which
	# ends any read still waiting on it (ENOTCONN), and the script fails.
	( trap 'kill "$sl" 2>/dev/null; exit 0' TERM
	  sleep "${TIMEOUT_S:-600}" & sl=$!
	  wait "$sl"
	  echo "gave up after ${TIMEOUT_S:-600} s waiting for the reads of the view of $1" >&2
	  kill -KILL "$PID" ) &
	WATCHDOG=$!
}

unmount_view() {
	bench_stop "$WATCHDOG" "$PID"; PID= WATCHDOG=
}

# ---- cat verify on 100,000 records -------------------------------------------
S1=$T/s100k
mkdir -p "$S1"
start=$(now_ns)
"$TOOL" fill "$S1/audit" "$T/keys/a.key" "$SMALL" || exit 1
echo "built a $SMALL-record log in $(( ($(now_ns) - start) / 1000000 )) ms"
PUB=$(ls "$S1"/audit/audit.pub "$S1"/audit/pubkey 2>/dev/null | head -1)
mount_view "$S1"
cat "$T/mnt/verify"
for i in 1 2 3 4 5 6 7; do
	s=$(now_ns); cat "$T/mnt/verify" >/dev/null; e=$(now_ns); echo $((e - s)) >>"$T/view.ns"
	s=$(now_ns); "$TOOL" verify "$S1/audit" "$PUB" >/dev/null; e=$(now_ns); echo $((e - s)) >>"$T/lib.ns"
done
echo "read of verify alone ($SMALL records): $(reads 5 "$T/mnt/verify")"
unmount_view
v=$(median_ms <"$T/view.ns"); l=$(median_ms <"$T/lib.ns")
echo "cat verify, $SMALL records: median $v ms (target < 150 ms); library alone (view_audit_tool verify) $l ms; ratio $(echo "$v $l" | awk '{ printf "%.2f", $1 / $2 }')"

# ---- cat entries/N.json on 1,000,000 records -----------------------------------
S2=$T/s1m
mkdir -p "$S2"
start=$(now_ns)
"$TOOL" fill "$S2/audit" "$T/keys/b.key" "$LARGE" || exit 1
echo "built a $LARGE-record log in $(( ($(now_ns) - start) / 1000000 )) ms"
mount_view "$S2"
# The entries read (spread over a 1,000,000-record log; folded into a smaller one).
"$TOOL" get "$S2/audit" $((777777 % LARGE)) >"$T/plain.json"
for n in 0 1 499999 777777 999999 123456 654321 42 900001 333333 \
	 5 999998 250000 750000 100 1000 10000 100000 600000 888888; do
	f=$(printf '%s/mnt/entries/%012d.json' "$T" $((n % LARGE)))
	s=$(now_ns); cat "$f" >/dev/null; e=$(now_ns); echo $((e - s)) >>"$T/entry.ns"
	s=$(now_ns); cat "$T/plain.json" >/dev/null; e=$(now_ns); echo $((e - s)) >>"$T/plain.ns"
done
set --
for n in 3 17 499999 777777 999999 123456 654321 42 900001 333333; do
	set -- "$@" "$(printf '%s/mnt/entries/%012d.json' "$T" $((n % LARGE)))"
done
echo "read of entries/N.json alone ($LARGE records): $(reads 20 "$@")"
echo "read of the plain file alone:                    $(reads 200 "$T/plain.json")"
unmount_view
v=$(median_ms <"$T/entry.ns"); p=$(median_ms <"$T/plain.ns")
echo "cat entries/N.json, $LARGE records: median $v ms (target < 5 ms); plain file $p ms; ratio $(echo "$v $p" | awk '{ printf "%.2f", $1 / $2 }')"
