#!/usr/bin/env bash
# Sandbox benchmark, side by side in one run (issue #4 point 9):
#  - latency p50/p95 of a trivial script: warm pool, cold path, and the
#    baseline `docker run --rm` with the same hardening; then the warm pool
#    again with the end of a run learnt from the kernel's process events (as
#    on kernels before 6.15) and from Docker alone, for comparison;
#  - throughput of N trivial runs with W workers through sandbox_run against
#    a bare Engine API create/start/wait/remove loop (the churn limit).
# Targets (issue #30): warm p50 <= 10 ms; cold path <= 35% of docker run;
# throughput >= 95% of the churn limit (tests/bench/targets.sh has the
# agent's own). Uses its own build directory without sanitizers
# (build-bench), or MAI_BENCH_BUILD when set (tests/bench/smoke.sh: the
# suite's). Percentiles: nearest rank (pct.py), as every benchmark here.
#   tests/bench/bench_sandbox.sh [LATENCY_RUNS (30)] [THROUGHPUT_RUNS (200)] [WORKERS (2)]
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
. "$root/tests/bench/bench_lib.sh"
n_lat=${1:-30}
n_thr=${2:-200}
workers=${3:-2}
image=${MAI_SANDBOX_IMAGE:-mai-sandbox:latest}
build=${MAI_BENCH_BUILD:-$root/build-bench}

if [ ! -f "$build/build.ninja" ]; then
	meson setup "$build" "$root" --buildtype=release -Db_sanitize=none -Dtests=enabled >/dev/null
fi
ninja -C "$build" tests/bench/bench_sandbox >/dev/null
bench=$build/tests/bench/bench_sandbox

ms() { date +%s%3N; }

# The baseline: the docker CLI with the sandbox's hardening (the benchmark is
# the one place where the CLI is the thing measured).
docker_run_latency() {
	local times=() t
	for _ in $(seq 1 "$n_lat"); do
		t=$(ms)
		echo "print('ok')" | timeout 120 docker run --rm -i --label mai.bench=1 --user 1000:1000 \
			--read-only --tmpfs /tmp:rw,noexec,nosuid,nodev,size=32m --cap-drop ALL \
			--security-opt no-new-privileges --network none --memory 256m \
			--memory-swap 256m --cpus 1 --pids-limit 64 --ulimit nofile=128:128 \
			--ulimit fsize=16777216:16777216 --ulimit core=0:0 --init --log-driver none \
			"$image" python3 -I -u -B - >/dev/null
		times+=($(( $(ms) - t )))
	done
	echo "docker_run_latency_ms samples ${times[*]}"
}

echo "bench: $n_lat latency runs each, $n_thr throughput runs, $workers workers, image $image"
warm=$("$bench" latency warm "$n_lat")
warm_events=$(MAI_BENCH_END=events "$bench" latency warm "$n_lat")
warm_docker=$(MAI_BENCH_END=docker "$bench" latency warm "$n_lat")
cold=$("$bench" latency cold "$n_lat")
base=$(docker_run_latency)
thr=$("$bench" throughput "$n_thr" "$workers")
churn=$("$bench" churn "$n_thr" "$workers")

field() { echo "$1" | awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'; }
# The p50 and p95 of a line's samples.
pcts() { echo "$1" | head -n1 | sed 's/.* samples //' | tr ' ' '\n' | bench_pct 50 95; }
# The p50 of each stage the sandbox timed (stagetime.h) in a latency run.
stages() {
	echo "$1" | sed -n 's/^[a-z]*_stage_ms \([a-z]*\) samples \(.*\)/\1 \2/p' | while read -r name rest; do
		printf '%s %s, ' "$name" "$(echo "$rest" | tr ' ' '\n' | bench_pct 50)"
	done | sed 's/, $//'
}
read -r wp50 wp95 <<< "$(pcts "$warm")"
read -r cp50 cp95 <<< "$(pcts "$cold")"
read -r ep50 ep95 <<< "$(pcts "$warm_events")"
read -r dp50 dp95 <<< "$(pcts "$warm_docker")"
read -r bp50 bp95 <<< "$(pcts "$base")"
trate=$(echo "$thr" | awk '{ print $2 }'); crate=$(echo "$churn" | awk '{ print $2 }')

printf '\n%-28s %8s %8s %12s\n' "latency (trivial script)" "p50 ms" "p95 ms" "p50 vs base"
printf '%-28s %8s %8s %11s%%\n' "warm pool" "$wp50" "$wp95" "$(awk -v a="$wp50" -v b="$bp50" 'BEGIN { printf "%.1f", 100 * a / b }')"
printf '%-28s %8s %8s %11s%%\n' "cold path" "$cp50" "$cp95" "$(awk -v a="$cp50" -v b="$bp50" 'BEGIN { printf "%.1f", 100 * a / b }')"
printf '%-28s %8s %8s %11s%%\n' "warm, end from proc events" "$ep50" "$ep95" "$(awk -v a="$ep50" -v b="$bp50" 'BEGIN { printf "%.1f", 100 * a / b }')"
printf '%-28s %8s %8s %11s%%\n' "warm, end from Docker only" "$dp50" "$dp95" "$(awk -v a="$dp50" -v b="$bp50" 'BEGIN { printf "%.1f", 100 * a / b }')"
printf '%-28s %8s %8s %12s\n' "docker run --rm (baseline)" "$bp50" "$bp95" "100%"
echo "stages p50 ms, warm: $(stages "$warm")"
echo "stages p50 ms, cold: $(stages "$cold")"
echo "runs that ended on the kernel's word: warm $(field "$warm" kernel_end)/$n_lat, cold $(field "$cold" kernel_end)/$n_lat, proc events $(field "$warm_events" kernel_end)/$n_lat"
echo "(the first two rows learn a run's end the way this kernel allows: pidfd on Linux 6.15+,"
echo " process events before; the last two force one way, for comparison)"
printf '\n%-28s %10s\n' "throughput ($n_thr runs)" "runs/s"
printf '%-28s %10s\n' "sandbox_run, $workers workers" "$trate"
printf '%-28s %10s\n' "bare API churn, $workers workers" "$crate"
printf '%-28s %9s%%\n' "ratio" "$(awk -v a="$trate" -v b="$crate" 'BEGIN { printf "%.1f", 100 * a / b }')"
printf '\ntargets: warm p50 <= 10 ms; cold p50 <= 35%% of baseline; throughput >= 95%% of churn\n'
