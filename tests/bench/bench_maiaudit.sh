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
# Usage: bench_maiaudit.sh [BUILD_DIR]   (or MAIAUDIT and VIEW_AUDIT_TOOL set);
# BUILD_DIR configured with -Dbench=true, e.g. meson setup build-release
# --buildtype=release -Dbench=true
# Needs /dev/fuse and fusermount3; logs go to files under a temp dir.
set -u
B=${1:-${MAI_BUILD_ROOT:-build}}
MAIAUDIT=${MAIAUDIT:-$B/fs/maiaudit}
TOOL=${VIEW_AUDIT_TOOL:-$B/tests/integration/view_audit_tool}
LAT=${READ_LATENCY:-$B/tests/bench/read_latency}
[ -x "$MAIAUDIT" ] || { echo "no maiaudit at $MAIAUDIT: build first (ninja -C $B)" >&2; exit 2; }
[ -x "$LAT" ] || { echo "no read_latency at $LAT: configure $B with -Dbench=true" >&2; exit 2; }
[ -x "$TOOL" ] || { echo "no view_audit_tool at $TOOL: it is built once the audit library is in the tree" >&2; exit 2; }
[ -e /dev/fuse ] && command -v fusermount3 >/dev/null || { echo "SKIP: needs /dev/fuse and fusermount3" >&2; exit 77; }

T=$(mktemp -d "${TMPDIR:-/tmp}/maiaudit-bench.XXXXXX")
PID=
cleanup() {
	[ -n "$PID" ] && kill -TERM "$PID" 2>/dev/null && sleep 0.5
	grep -q " $T/mnt " /proc/self/mountinfo && fusermount3 -u -z "$T/mnt"
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir -p "$T/mnt" "$T/keys"

now_ns() { date +%s%N; }

# median of the numbers on stdin, printed as milliseconds with 2 decimals
median_ms() {
	sort -n | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.2f", m / 1e6 }'
}

mount_view() {
	"$MAIAUDIT" "$T/mnt" --foreground --state-dir "$1" --drop-dir "$T" \
		--log-file "$T/maiaudit.log" </dev/null >/dev/null 2>&1 &
	PID=$!
	i=0
	until grep -q " $T/mnt .* fuse.maiaudit " /proc/self/mountinfo; do
		i=$((i + 1)); [ $i -gt 100 ] && { echo "maiaudit did not mount" >&2; exit 1; }
		sleep 0.1
	done
}

unmount_view() {
	kill -TERM "$PID"; wait "$PID" 2>/dev/null; PID=
}

# ---- cat verify on 100,000 records -------------------------------------------
S1=$T/s100k
mkdir -p "$S1"
start=$(now_ns)
"$TOOL" fill "$S1/audit" "$T/keys/a.key" 100000 || exit 1
echo "built a 100,000-record log in $(( ($(now_ns) - start) / 1000000 )) ms"
PUB=$(ls "$S1"/audit/audit.pub "$S1"/audit/pubkey 2>/dev/null | head -1)
mount_view "$S1"
cat "$T/mnt/verify"
for i in 1 2 3 4 5 6 7; do
	s=$(now_ns); cat "$T/mnt/verify" >/dev/null; e=$(now_ns); echo $((e - s)) >>"$T/view.ns"
	s=$(now_ns); "$TOOL" verify "$S1/audit" "$PUB" >/dev/null; e=$(now_ns); echo $((e - s)) >>"$T/lib.ns"
done
echo "read of verify alone (100,000 records): $("$LAT" 5 "$T/mnt/verify")"
unmount_view
v=$(median_ms <"$T/view.ns"); l=$(median_ms <"$T/lib.ns")
echo "cat verify, 100,000 records: median $v ms (target < 150 ms); library alone (view_audit_tool verify) $l ms; ratio $(echo "$v $l" | awk '{ printf "%.2f", $1 / $2 }')"

# ---- cat entries/N.json on 1,000,000 records -----------------------------------
S2=$T/s1m
mkdir -p "$S2"
start=$(now_ns)
"$TOOL" fill "$S2/audit" "$T/keys/b.key" 1000000 || exit 1
echo "built a 1,000,000-record log in $(( ($(now_ns) - start) / 1000000 )) ms"
mount_view "$S2"
"$TOOL" get "$S2/audit" 777777 >"$T/plain.json"
for n in 0 1 499999 777777 999999 123456 654321 42 900001 333333 \
	 5 999998 250000 750000 100 1000 10000 100000 600000 888888; do
	f=$(printf '%s/mnt/entries/%012d.json' "$T" "$n")
	s=$(now_ns); cat "$f" >/dev/null; e=$(now_ns); echo $((e - s)) >>"$T/entry.ns"
	s=$(now_ns); cat "$T/plain.json" >/dev/null; e=$(now_ns); echo $((e - s)) >>"$T/plain.ns"
done
set --
for n in 3 17 499999 777777 999999 123456 654321 42 900001 333333; do
	set -- "$@" "$(printf '%s/mnt/entries/%012d.json' "$T" "$n")"
done
echo "read of entries/N.json alone (1,000,000 records): $("$LAT" 20 "$@")"
echo "read of the plain file alone:                    $("$LAT" 200 "$T/plain.json")"
unmount_view
v=$(median_ms <"$T/entry.ns"); p=$(median_ms <"$T/plain.ns")
echo "cat entries/N.json, 1,000,000 records: median $v ms (target < 5 ms); plain file $p ms; ratio $(echo "$v $p" | awk '{ printf "%.2f", $1 / $2 }')"
