# Sourced by the benchmarks in tests/bench/ (POSIX sh and bash): waits that
# give up, and the percentiles of pct.py, the benchmarks' one definition.
# BENCH_DIR is this directory.
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)

# bench_wait SECONDS WHAT COMMAND [ARG...]: runs COMMAND every
# BENCH_POLL_S (0.05) seconds until it succeeds; after SECONDS says on stderr
# that WHAT did not happen and returns 1 (the caller exits: set -e does, or
# '|| exit 1').
bench_wait() {
	_bw_s=$1
	_bw_end=$(($(date +%s) + $1))
	_bw_what=$2
	shift 2
	until "$@"; do
		if [ "$(date +%s)" -ge "$_bw_end" ]; then
			echo "gave up after $_bw_s s waiting for $_bw_what" >&2
			return 1
		fi
		sleep "${BENCH_POLL_S:-0.05}"
	done
}

# bench_pct P [P...] < SAMPLES: the percentiles (nearest rank), on one line.
bench_pct() {
	python3 "$BENCH_DIR/pct.py" "$@"
}

# bench_agent_up PID STATE_DIR LOG [SECONDS (60)]: until the agent PID has
# written its status.json; fails at once when the agent is gone, with the
# end of its log (why it stopped).
bench_agent_up() {
	bench_wait "${4:-60}" "agent $1 to write $2/status.json" _bench_agent_wrote "$1" "$2" "$3"
}
_bench_agent_wrote() {
	if ! kill -0 "$1" 2>/dev/null; then
		echo "the agent (pid $1) exited before it was up; the end of its log $3:" >&2
		tail -n 5 "$3" >&2 || true
		exit 1
	fi
	grep -q "\"pid\": $1," "$2/status.json" 2>/dev/null
}

# bench_stop PID...: SIGTERM, then SIGKILL for what is still there after 30 s
# (an agent removes its containers as it stops); reaps the children.
bench_stop() {
	for _bs in "$@"; do
		[ -n "$_bs" ] && kill -TERM "$_bs" 2>/dev/null
	done
	for _bs in "$@"; do
		[ -n "$_bs" ] || continue
		bench_wait 30 "process $_bs to end after SIGTERM" _bench_gone "$_bs" ||
			kill -KILL "$_bs" 2>/dev/null
		# Its status is that of a killed process: not a failure (set -e).
		wait "$_bs" 2>/dev/null || true
	done
	return 0
}
_bench_gone() {
	! kill -0 "$1" 2>/dev/null || { [ -r "/proc/$1/stat" ] && [ "$(cut -d' ' -f3 "/proc/$1/stat")" = Z ]; }
}
