#!/bin/sh
# Line coverage of the whole suite, per source folder and per file.
#
#   tests/coverage.sh [--doc] [BUILD_DIR]     (default: build-coverage)
#
# Configures a separate build directory with meson's b_coverage (no
# sanitizers: their instrumentation skews the counts), runs the unit, assess
# and integration suites against it exactly as ./run-tests does (real
# Docker, FUSE and inotify, MAI_REQUIRE_REAL=1: nothing may skip), so that
# every mai-agent and maiaudit process the tests start adds its counts, and
# prints the covered lines of agent/ and fs/ per folder. It leaves in
# BUILD_DIR:
#   coverage.txt           the report per file (gcovr)
#   coverage.json          line by line (gcovr), for tests/coverage_report.py
#   coverage.md            per folder, per file, and every uncovered block of
#                          lines with the reason it stays uncovered
#   per-test.json          the lines each test ran (tests/coverage_per_test.py),
#                          which tests/mutate.py runs a mutant's tests from
# With --doc, coverage.md is also copied to tests/COVERAGE.md.
# Environment: COVERAGE_SUITES (default "unit assess integration"),
# MESON_TESTTHREADS (tests at a time, default four per CPU).
# Needs root, Docker and FUSE like ./run-tests; run that once first (it sets
# up the packages and the sandbox images).
set -eu

cd "$(dirname "$0")/.."
root=$(pwd)
doc=0
if [ "${1:-}" = --doc ]; then
	doc=1
	shift
fi
build=${1:-build-coverage}
suites=${COVERAGE_SUITES:-unit assess integration}

for tool in meson ninja gcovr python3; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "coverage.sh: $tool not found; install it (apt-get install meson ninja-build gcovr python3)" >&2
		exit 2
	fi
done

if [ ! -f "$build/build.ninja" ]; then
	meson setup "$build" -Db_coverage=true -Dbuildtype=debug >"$build.setup.log" 2>&1 || {
		echo "coverage.sh: meson setup failed; see $build.setup.log" >&2
		exit 1
	}
	rm -f "$build.setup.log"
fi
ninja -C "$build" >/dev/null
# Outputs of sources that no longer exist (a file removed or renamed since
# the directory was set up): their notes would name missing sources.
ninja -C "$build" -t cleandead >/dev/null
find "$build" -name '*.gcno' | while read -r note; do
	[ -f "${note%.gcno}.o" ] || rm -f "$note" "${note%.gcno}.gcda"
done
# Counters from an earlier run would add up with this one.
find "$build" -name '*.gcda' -delete
# Some tests run mai-agent and maiaudit as accounts they create (setpriv,
# runuser): those processes cannot create a counts file in root's build
# directory, and the daemon's own umask makes the files it creates readable
# only by root, so their counts would be lost. Every object gets an empty
# counts file that anyone may write (an empty one is taken as "no counts
# yet"); only these files are opened up, and they are closed again below.
find "$build" -name '*.gcno' | while read -r note; do
	: >"${note%.gcno}.gcda"
	chmod 666 "${note%.gcno}.gcda"
done

# Each test's processes count into a directory of their own
# (tests/coverage_wrap.sh), so that tests/coverage_per_test.py can say which
# tests ran each line (build-coverage/per-test.json, for tests/mutate.py);
# their counts are added up again before gcovr reads them.
python3 "$root/tests/coverage_per_test.py" prepare "$build" "$root"
COVERAGE_PER_TEST_DIR=$(cd "$build" && pwd)/per-test
COVERAGE_PREFIX_STRIP=$(printf '%s' "$(cd "$build" && pwd)" | tr -cd / | wc -c)
COVERAGE_ENV_KEYS=$(meson introspect --tests "$build" |
	python3 -c 'import json, sys; print(" ".join(sorted({k for t in json.load(sys.stdin) for k in t["env"]} - {"PATH"})))')
export COVERAGE_PER_TEST_DIR COVERAGE_PREFIX_STRIP COVERAGE_ENV_KEYS

set -- --wrapper "$root/tests/coverage_wrap.sh"
for s in $suites; do
	set -- "$@" --suite "$s"
done
export MAI_REQUIRE_REAL=1
export MESON_TESTTHREADS="${MESON_TESTTHREADS:-$(($(nproc) * 4))}"
status=0
meson test -C "$build" --print-errorlogs "$@" >"$build/tests.log" 2>&1 || status=$?
if [ $status -ne 0 ]; then
	echo "coverage.sh: some tests failed (their lines count as not covered); see $build/tests.log:" >&2
	grep -E '^ *[0-9]+/[0-9]+ .* (FAIL|TIMEOUT)' "$build/tests.log" >&2 || true
fi

# The objects no process ran keep an empty file, which gcov takes for a
# damaged one; the others are root's again.
find "$build" -name '*.gcda' -empty -delete
find "$build" -name '*.gcda' -exec chmod 644 {} +
python3 "$root/tests/coverage_per_test.py" collect "$build" "$root"
rm -rf "$build/per-test"

gcovr --root "$root" --filter "$root/agent/" --filter "$root/fs/" \
	--txt "$build/coverage.txt" --json "$build/coverage.json" "$build" >"$build/gcovr.log" 2>&1 || {
	echo "coverage.sh: gcovr failed (a source changed during the run?); see $build/gcovr.log" >&2
	exit 1
}
# (A clean tree makes the grep fail: not an error.)
COVERAGE_COMMIT=$(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)$(git -C "$root" status --porcelain --untracked-files=no -- agent fs 2>/dev/null | grep -q . && echo " (agent/ or fs/ changed since)" || true)
export COVERAGE_COMMIT
python3 "$root/tests/coverage_report.py" "$build/coverage.json" "$root/tests/coverage-reasons.txt" \
	"$suites" >"$build/coverage.md"
[ $doc = 0 ] || cp "$build/coverage.md" "$root/tests/COVERAGE.md"

# The per-folder table of coverage.md on the terminal.
sed -n '/^## Per folder/,/^## Per file/p' "$build/coverage.md" | sed '1d;$d'
echo "per file and every uncovered block: $build/coverage.md (gcovr's own report: $build/coverage.txt)"
exit $status
