#!/bin/sh
# Every benchmark of tests/bench/ run once with tiny counts against the
# suite's build (MAI_BUILD_ROOT), so that a benchmark that no longer runs,
# hangs, or would print a figure of the wrong thing (a retry counted as an
# answer, a held script timed as a run) fails the suite instead of the next
# person who runs it. The figures themselves mean nothing here (sanitizer
# build, a handful of samples, a loaded machine) and are not checked; each
# benchmark's own deadlines are, and so is that it printed its figures.
# Needs Docker with the sandbox image, /dev/fuse and fusermount3, and Bandit
# (exit 77 without them; MAI_REQUIRE_REAL=1 makes that a failure).
set -u
B=${MAI_BUILD_ROOT:?MAI_BUILD_ROOT must name the build directory}
B=$(cd "$B" && pwd)
bench=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$bench/../.." && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/mai-bench-smoke.XXXXXX")
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
fails=0

# skip REASON: as tests/integration/agent_lib.sh's (which cannot be sourced
# from here: it sources its neighbours by its caller's directory).
skip() {
	if [ "${MAI_REQUIRE_REAL:-0}" = 1 ]; then
		echo "FAIL: $* (MAI_REQUIRE_REAL=1)" >&2
		exit 1
	fi
	echo "SKIP: $*" >&2
	exit 77
}
curl -sf --unix-socket /var/run/docker.sock http://localhost/_ping > /dev/null 2>&1 ||
	skip "the Docker engine does not answer"
curl -sf --unix-socket /var/run/docker.sock \
	"http://localhost/images/${MAI_SANDBOX_IMAGE:-mai-sandbox:latest}/json" > /dev/null 2>&1 ||
	skip "no sandbox image ${MAI_SANDBOX_IMAGE:-mai-sandbox:latest} (packaging/build-image.sh)"
[ -e /dev/fuse ] && command -v fusermount3 > /dev/null || skip "needs /dev/fuse and fusermount3"
command -v bandit > /dev/null || skip "Bandit is not installed"
[ "$(id -u)" = 0 ] || skip "bench_dropfs.sh mounts the drop directory: needs root"

# run NAME SECONDS PATTERN COMMAND [ARG...]: COMMAND must exit 0 within
# SECONDS (its own deadlines should end it long before) and print a line
# that matches PATTERN (grep -E).
run() {
	name=$1 limit=$2 pattern=$3
	shift 3
	t0=$(date +%s%N)
	timeout -k 10 "$limit" "$@" > "$T/$name.out" 2>&1
	rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	if [ $rc -ne 0 ]; then
		[ $rc -eq 124 ] && echo "FAIL: $name ran past $limit s: a wait without a deadline?" >&2 ||
			echo "FAIL: $name exited $rc" >&2
		sed 's/^/  | /' "$T/$name.out" >&2
		fails=$((fails + 1))
	elif ! grep -Eq "$pattern" "$T/$name.out"; then
		echo "FAIL: $name printed no line matching /$pattern/:" >&2
		sed 's/^/  | /' "$T/$name.out" >&2
		fails=$((fails + 1))
	else
		echo "ok: $name ($ms ms): $(grep -E "$pattern" "$T/$name.out" | head -n1)"
	fi
}

export MAI_BENCH_BUILD="$B"
# One warm container per trust level and no start-time self-test: a quicker
# start of each agent (the benchmarks run the shipped settings otherwise).
export MAI_BENCH_POOL=1 MAI_BENCH_SELF_TEST=0
num='[0-9]+(\.[0-9]+)?'

# targets.sh runs agent_latency.sh --stages, bench_sandbox.sh and
# agent_load.sh, and reads each one's figures.
run targets 300 "^burst of 4 >= 95% of the churn limit +$num%" \
	"$bench/targets.sh" "$B" 1 4 2
run bench_dropfs 180 "^mount in place / watch rename: p50 $num" \
	"$bench/bench_dropfs.sh" 1 5 1
run bench_audit 120 "^  verify MB/s +$num" \
	env THREADS=4 APPENDS=200 RECORDS=2000 OPENSSL_S=1 "$bench/bench_audit.sh"
run bench_audit_rss 120 "^ +50 +[0-9]+ +[0-9]+" \
	env BASE=none JOBS="20 50" "$bench/bench_audit_rss.sh"
run bench_maiaudit 120 "^cat entries/N.json, 1000 records: median $num ms" \
	"$bench/bench_maiaudit.sh" "$B" 200 1000
run assess-vs-bandit 120 "^one small file, whole process: median $num ms" \
	env SMALL_RUNS=3 "$bench/assess-vs-bandit.sh" "$B/agent/mai-agent" "$src/examples/scripts"
# A checkout of Bandit is not at hand: a stand-in with two examples and no
# setup.cfg, so that the script falls back to the installed bandit.
mkdir -p "$T/bandit/examples"
printf 'import subprocess\nsubprocess.call("ls " + input(), shell=True)\n' > "$T/bandit/examples/shell.py"
printf 'import pickle\npickle.loads(open("x", "rb").read())\n' > "$T/bandit/examples/pickle_load.py"
run bandit-examples 120 "^caught: [0-9]+ of [1-9][0-9]*" \
	"$bench/bandit-examples.sh" "$T/bandit" "$B/agent/mai-agent"

[ $fails -eq 0 ] || { echo "$fails benchmark(s) failed" >&2; exit 1; }
