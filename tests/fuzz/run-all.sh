#!/usr/bin/env bash
# Runs every libFuzzer target for DURATION seconds each, side by side, with
# AddressSanitizer and UndefinedBehaviorSanitizer (any report is a crash).
#
#   tests/fuzz/run-all.sh [DURATION] [BUILD_DIR]
#       DURATION   seconds per target (default 600: ten minutes)
#       BUILD_DIR  default build-fuzz; configured here when missing with
#                  CC=clang -Dfuzz=true -Db_sanitize=address,undefined
# Environment: FUZZ_JOBS (targets run at once, default: all of them),
#              FUZZ_NICE (nice level, default 10), FUZZ_TARGETS (names to
#              run, default all).
#
# Each target starts from its seed directories in the repository and from
# the corpus it grew in earlier runs (BUILD_DIR/fuzz-corpus/TARGET, kept).
# A crash, leak or sanitizer report is written to
# BUILD_DIR/fuzz-artifacts/TARGET/ (crash-*, leak-*, timeout-*); to keep it
# as a regression input, copy it into the target's seed directory below
# (the suite's fuzz-replay tests replay those on every run) and fix the
# product. The summary gives per target the minutes fuzzed, the inputs run,
# the corpus size and the crashes; the exit status is 1 when any target
# crashed or did not run for its whole duration.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
duration=${1:-600}
build=${2:-$root/build-fuzz}
jobs=${FUZZ_JOBS:-0}
nice_level=${FUZZ_NICE:-10}

case $duration in
'' | *[!0-9]*) echo "run-all.sh: DURATION must be a whole number of seconds, not '$duration'" >&2; exit 2 ;;
esac

# target name, then its seed directories (relative to the repository).
declare -A seeds=(
	[fuzz-assess]="tests/fuzz/seeds tests/assess/corpus"
	[fuzz-audit-parsers]="tests/fuzz/audit-seeds"
)
targets=${FUZZ_TARGETS:-"fuzz-assess fuzz-audit-parsers"}

command -v clang >/dev/null || {
	echo "run-all.sh: clang is missing; apt-get install clang libclang-rt-14-dev" >&2
	exit 2
}
if [ ! -f "$build/build.ninja" ]; then
	CC=clang meson setup "$build" "$root" -Dfuzz=true -Db_sanitize=address,undefined \
		-Db_lundef=false >"$build.setup.log" 2>&1 || {
		echo "run-all.sh: meson setup failed; see $build.setup.log" >&2
		exit 1
	}
	rm -f "$build.setup.log"
fi
for t in $targets; do
	[ -n "${seeds[$t]:-}" ] || { echo "run-all.sh: unknown target '$t' (known: ${!seeds[*]})" >&2; exit 2; }
done
# shellcheck disable=SC2086 # target names without spaces
ninja -C "$build" $(for t in $targets; do echo "tests/fuzz/$t"; done) >/dev/null || {
	echo "run-all.sh: the build failed; run ninja -C $build for the messages" >&2
	exit 1
}

# Any UBSan report stops the target (by default UBSan reports and goes on,
# which libFuzzer would not count); leaks are reported by ASan.
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:allocator_may_return_null=0

run_one() {
	local t=$1 corpus=$build/fuzz-corpus/$1 art=$build/fuzz-artifacts/$1 log=$build/fuzz-$1.log
	local -a dirs=()
	mkdir -p "$corpus" "$art"
	touch "$build/fuzz-$t.start"
	for d in ${seeds[$t]}; do dirs+=("$root/$d"); done
	# -timeout: an input that takes longer than 10 s is a hang (a report).
	local rc=0
	nice -n "$nice_level" "$build/tests/fuzz/$t" -max_total_time="$duration" -timeout=10 \
		-rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$art/" \
		"$corpus" "${dirs[@]}" >"$log" 2>&1 || rc=$?
	# How long it fuzzed: a crash stops it before its duration.
	echo $(($(date +%s) - $(stat -c %Y "$build/fuzz-$t.start"))) >"$build/fuzz-$t.seconds"
	return $rc
}

echo "run-all.sh: $targets for $duration s each (logs: $build/fuzz-TARGET.log)"
declare -A pids=() status=()
running=0
for t in $targets; do
	if [ "$jobs" -gt 0 ] && [ "$running" -ge "$jobs" ]; then
		wait -n || true
		running=$((running - 1))
	fi
	run_one "$t" &
	pids[$t]=$!
	running=$((running + 1))
done
for t in $targets; do
	rc=0
	wait "${pids[$t]}" || rc=$?
	status[$t]=$rc
done

failed=0
printf '\n%-20s %8s %12s %8s %8s  %s\n' target minutes inputs corpus crashes result
for t in $targets; do
	log=$build/fuzz-$t.log
	art=$build/fuzz-artifacts/$t
	secs=$(cat "$build/fuzz-$t.seconds" 2>/dev/null || echo 0)
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)
	corpus=$(find "$build/fuzz-corpus/$t" -type f | wc -l)
	crashes=$(find "$art" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) -newer "$build/fuzz-$t.start" 2>/dev/null | wc -l)
	result=ok
	if [ "${status[$t]}" -ne 0 ] || [ "$crashes" -gt 0 ]; then
		result="CRASH (exit ${status[$t]}; see $log and $art)"
		failed=1
	elif [ "$secs" -lt "$duration" ]; then
		result="stopped early after $secs s; see $log"
		failed=1
	fi
	printf '%-20s %8.1f %12s %8d %8d  %s\n' "$t" "$(awk -v s="$secs" 'BEGIN { print s / 60 }')" "${execs:-?}" \
		"$corpus" "$crashes" "$result"
done
exit $failed
