#!/bin/sh
# The audit writer's resident memory after 10,000 and 100,000 jobs (JOBS),
# this tree side by side with BASE, a revision from before the Merkle tree's
# hashes moved to disk (by default the parent of the commit that added
# agent/audit/merkle_store.c). bench_audit_rss.c appends each job's records
# straight to a log and signs a checkpoint per job; it uses only the
# writer's API that both versions have, so the same file is built against
# each tree's own audit library (release build, no sanitizers).
# Environment: JOBS; BASE (a revision, or "none": this tree alone);
# MAI_BENCH_BUILD, a build directory of this tree whose bench_audit_rss is
# used as it is (tests/bench/smoke.sh: the suite's); TIMEOUT_S (600) the
# deadline of each run.
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
scratch=$(mktemp -d "${TMPDIR:-/tmp}/mai-bench-rss.XXXXXX")
trap 'rm -rf "$scratch"' EXIT INT TERM
jobs=${JOBS:-10000 100000}
if [ -z "${BASE:-}" ]; then
	added=$(git -C "$src" log --diff-filter=A --format=%H -- agent/audit/merkle_store.c | tail -n1)
	BASE=$added^
fi

# build TREE BUILD_DIR OUT: the benchmark against TREE's libraries.
build() {
	meson setup "$2" "$1" --buildtype=release -Db_sanitize=none -Dtests=disabled > "$2.log" 2>&1 ||
		{ cat "$2.log" >&2; exit 1; }
	ninja -C "$2" agent/audit/libmaiaudit.a agent/base/libmaibase.a > "$2.log" 2>&1 ||
		{ cat "$2.log" >&2; exit 1; }
	# shellcheck disable=SC2046
	cc -O2 -std=c11 -D_GNU_SOURCE -I"$1/agent/audit" -I"$1/agent/base" "$src/tests/bench/bench_audit_rss.c" \
		"$2/agent/audit/libmaiaudit.a" "$2/agent/base/libmaibase.a" \
		$(pkg-config --cflags --libs jansson libcrypto yaml-0.1) -lpthread -o "$3"
}

versions="base new"
if [ "$BASE" = none ]; then
	versions=new
else
	mkdir -p "$scratch/base"
	git -C "$src" archive "$BASE" | tar -x -C "$scratch/base"
	build "$scratch/base" "$scratch/base-build" "$scratch/rss-base"
fi
if [ -n "${MAI_BENCH_BUILD:-}" ]; then
	ninja -C "$MAI_BENCH_BUILD" tests/bench/bench_audit_rss > /dev/null
	ln -s "$(cd "$MAI_BENCH_BUILD" && pwd)/tests/bench/bench_audit_rss" "$scratch/rss-new"
else
	build "$src" "$scratch/new-build" "$scratch/rss-new"
fi
for v in $versions; do
	# The writer makes the signing key at its first start.
	mkdir -p "$scratch/run-$v"
	# shellcheck disable=SC2086
	timeout "${TIMEOUT_S:-600}" "$scratch/rss-$v" "$scratch/run-$v" "$scratch/run-$v/k.key" $jobs \
		> "$scratch/out-$v" || { echo "the $v run failed or ran past ${TIMEOUT_S:-600} s" >&2; exit 1; }
	rm -rf "$scratch/run-$v"
done
if [ "$BASE" = none ]; then
	echo "audit writer RSS by jobs (4 records and a signed checkpoint a job); this tree alone"
	printf '%10s %10s %14s %10s\n' jobs records "this RSS KiB" "this s"
	awk '/^jobs / { printf "%10s %10s %14s %10s\n", $2, $4, $6, $8 }' "$scratch/out-new"
	printf 'start RSS KiB: this %s\n' "$(awk '/^start/ { print $3 }' "$scratch/out-new")"
	exit 0
fi
echo "audit writer RSS by jobs (4 records and a signed checkpoint a job); base $(git -C "$src" rev-parse --short "$BASE")"
printf '%10s %10s %14s %14s %10s %10s\n' jobs records "base RSS KiB" "this RSS KiB" "base s" "this s"
awk '/^jobs / { print $2, $4, $6, $8 }' "$scratch/out-base" > "$scratch/b"
awk '/^jobs / { print $6, $8 }' "$scratch/out-new" > "$scratch/n"
paste -d' ' "$scratch/b" "$scratch/n" | while read -r j r b bs n ns; do
	printf '%10s %10s %14s %14s %10s %10s\n' "$j" "$r" "$b" "$n" "$bs" "$ns"
done
printf 'start RSS KiB: base %s, this %s\n' "$(awk '/^start/ { print $3 }' "$scratch/out-base")" \
	"$(awk '/^start/ { print $3 }' "$scratch/out-new")"
