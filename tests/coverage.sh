#!/bin/sh
# Line coverage of the unit suite, per source folder.
#
#   tests/coverage.sh [BUILD_DIR]     (default: build-coverage)
#
# Configures a separate build directory with meson's b_coverage (no
# sanitizers: their instrumentation skews the counts), runs the 'unit' suite
# and prints the covered lines of agent/ and fs/ per folder with gcovr. The
# full report per file is left in BUILD_DIR/coverage.txt.
set -eu

cd "$(dirname "$0")/.."
root=$(pwd)
build=${1:-build-coverage}

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

# Counters from an earlier run would add up with this one.
find "$build" -name '*.gcda' -delete

meson test -C "$build" --suite unit --print-errorlogs >"$build/unit-tests.log" 2>&1 || {
	echo "coverage.sh: the unit suite failed; see $build/unit-tests.log" >&2
	exit 1
}

gcovr --root "$root" --filter "$root/agent/" --filter "$root/fs/" \
	--txt "$build/coverage.txt" --json-summary "$build/coverage-summary.json" \
	"$build" >/dev/null

python3 - "$build/coverage-summary.json" <<'PY'
import json, os, sys

with open(sys.argv[1]) as f:
    summary = json.load(f)
folders = {}
for entry in summary["files"]:
    folder = os.path.dirname(entry["filename"]) or "."
    total, covered = folders.get(folder, (0, 0))
    folders[folder] = (total + entry["line_total"], covered + entry["line_covered"])

print("line coverage of the unit suite")
print("%-12s %8s %8s %7s" % ("folder", "lines", "covered", "cover"))
all_total = all_covered = 0
for folder in sorted(folders):
    total, covered = folders[folder]
    all_total += total
    all_covered += covered
    pct = 100.0 * covered / total if total else 100.0
    print("%-12s %8d %8d %6.1f%%" % (folder + "/", total, covered, pct))
pct = 100.0 * all_covered / all_total if all_total else 100.0
print("%-12s %8d %8d %6.1f%%" % ("total", all_total, all_covered, pct))
PY
echo "per file: $build/coverage.txt"
