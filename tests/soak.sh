#!/usr/bin/env bash
# Does the suite flake? Runs the README's test command again and again and
# says how each run went:
#
#   tests/soak.sh [--hog] runs N            # ./run-tests N times in a row
#   tests/soak.sh [--hog] test NAME N       # one test N times (./run-tests NAME --repeat N)
#
# --hog keeps every CPU busy beside it (one spinning process per CPU at
# the same priority), for "on a loaded machine". Prints one line per run of
# the suite (its number, wall time, result, the failed tests) or, for one
# test, the count of runs and failures, and exits non-zero when anything
# failed. Each run's full output is kept in build-soak/ (run-N.log).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
hog=0
if [ "${1:-}" = --hog ]; then
	hog=1
	shift
fi
usage() {
	echo "usage: tests/soak.sh [--hog] runs N | tests/soak.sh [--hog] test NAME N" >&2
	exit 2
}
[ $# -ge 2 ] || usage
out=$root/build-soak
mkdir -p "$out"

hogs=()
stop_hogs() {
	for p in "${hogs[@]}"; do kill "$p" 2>/dev/null || true; done
	wait "${hogs[@]}" 2>/dev/null || true
}
trap stop_hogs EXIT
if [ $hog = 1 ]; then
	for _ in $(seq "$(nproc)"); do
		sh -c 'while :; do :; done' &
		hogs+=($!)
	done
	echo "soak: ${#hogs[@]} CPU hog(s) running beside the tests"
fi

failed=0
case "$1" in
runs)
	n=$2
	[[ $n =~ ^[0-9]+$ ]] || usage
	for i in $(seq "$n"); do
		log=$out/run-$i.log
		t0=$(date +%s.%N)
		rc=0
		"$root/run-tests" > "$log" 2>&1 || rc=$?
		t1=$(date +%s.%N)
		bad=$(grep -E '^ *[0-9]+/[0-9]+ .* (FAIL|TIMEOUT) ' "$log" | awk '{print $4}' | paste -sd, - || true)
		counts=$(grep -E '^(Ok|Fail|Timeout|Skipped): ' "$log" | tr -s ' ' | paste -sd' ' - || true)
		printf 'run %2d: %6.1f s  exit %d  %s%s\n' "$i" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" \
			"$rc" "$counts" \
			"${bad:+  failed: $bad}"
		[ $rc = 0 ] || failed=$((failed + 1))
	done
	echo "soak: $n run(s) of ./run-tests, $failed failed (logs: build-soak/run-N.log)"
	;;
test)
	[ $# = 3 ] || usage
	name=$2 n=$3
	[[ $n =~ ^[0-9]+$ ]] || usage
	log=$out/test-$name.log
	rc=0
	"$root/run-tests" "$name" --repeat "$n" > "$log" 2>&1 || rc=$?
	runs=$(grep -cE "^ *[0-9]+/[0-9]+ .*/ $name +(OK|FAIL|TIMEOUT)" "$log" || true)
	fails=$(grep -cE "^ *[0-9]+/[0-9]+ .*/ $name +(FAIL|TIMEOUT)" "$log" || true)
	echo "soak: $name ran $runs time(s), $fails failed, exit $rc (log: build-soak/test-$name.log)"
	[ "$rc" = 0 ] && [ "$runs" = "$n" ] || failed=1
	;;
*)
	usage
	;;
esac
[ $failed = 0 ]
