# Sourced by agent_latency.sh, agent_load.sh and bench_dropfs.sh (after
# bench_lib.sh): the agent's configuration
# for a benchmark run in $T (drop and state directories, a fresh signing key,
# the shipped defaults, with pool_size MAI_BENCH_POOL when it is set (else the
# shipped pool_size: auto), with MAI_BENCH_BANDIT=0 the Bandit pass off,
# and with MAI_BENCH_SELF_TEST=0 no start-time self-test (smoke.sh: a
# quicker start; the figures do not depend on it). Needs AGENT and T; exports MAI_CONFIG_DIR and sets ANALYSIS, a line
# that says how scripts are assessed.
bench_agent_config() {
	mkdir -p "$T/conf" "$T/drop" "$T/keys"
	"$AGENT" keygen "$T/keys/audit.key" > /dev/null 2>&1
	printf 'drop_dir: %s\nstate_dir: %s\nlog_level: warn\n' "$T/drop" "$T/state" > "$T/conf/agent.yaml"
	printf 'signing_key: %s\n' "$T/keys/audit.key" > "$T/conf/audit.yaml"
	# A uid range of the benchmark's own (1024 uids by the shell's pid; the
	# tests' agents take theirs below 2000000000): an agent refuses to start
	# when a process outside its engine's Mai containers runs in its range,
	# and a benchmark runs beside the suite's tests.
	_bench_uid=$((2050000000 + ($$ % 90000) * 1024))
	printf 'uid_range: %s-%s\n' "$_bench_uid" $((_bench_uid + 1023)) >> "$T/conf/sandbox.yaml"
	if [ -n "${MAI_BENCH_POOL:-}" ]; then
		printf 'pool_size: %s\n' "$MAI_BENCH_POOL" >> "$T/conf/sandbox.yaml"
	fi
	if [ "${MAI_BENCH_SELF_TEST:-1}" = 0 ]; then
		printf 'self_test: false\n' >> "$T/conf/sandbox.yaml"
	fi
	if [ "${MAI_BENCH_BANDIT:-1}" = 0 ]; then
		printf 'analyzers:\n  bandit:\n    enabled: false\n' > "$T/conf/security.yaml"
		ANALYSIS="native rules only (MAI_BENCH_BANDIT=0)"
	elif command -v bandit > /dev/null; then
		ANALYSIS="native rules + Bandit (shipped default: the resident Bandit worker)"
	else
		ANALYSIS="native rules (Bandit is not installed)"
	fi
	MAI_CONFIG_DIR="$T/conf"
	export MAI_CONFIG_DIR
}

# bench_pool_size: the warm pool's size per trust level that the running
# agent reports in status.json (pool_size: auto resolves it from the
# machine); waits (60 s at most) until the sandbox is set up. One python3
# reads status.json again at each rewrite inotify reports (it was a
# python3 started every 50 ms, tens of ms of CPU each). Needs T; call it
# as POOL=$(bench_pool_size) || exit 1.
bench_pool_size() {
	python3 - "$BENCH_DIR/../tools" "$T/state/status.json" "${MAI_BENCH_POOL:-x}" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[1])
import fswait
status, want = sys.argv[2], sys.argv[3]

def known():
    try:
        with open(status) as f:
            pool = json.load(f).get("pool_size")
    except (OSError, ValueError):
        return None
    if not isinstance(pool, int) or (pool <= 0 and want != "0"):
        return None
    return str(pool)

pool = fswait.until(status, known, 60)
if pool is None:
    sys.exit("gave up after 60 s waiting for the agent's sandbox to report its pool_size in "
             + status)
print(pool)
PY
}
