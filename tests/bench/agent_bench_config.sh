# Sourced by agent_latency.sh and agent_load.sh: the agent's configuration
# for a benchmark run in $T (drop and state directories, a fresh signing key,
# the shipped defaults but pool_size MAI_BENCH_POOL (default 2) and, with
# MAI_BENCH_BANDIT=0, the Bandit pass off). Needs AGENT and T; exports
# MAI_CONFIG_DIR and sets ANALYSIS, a line that says how scripts are assessed.
bench_agent_config() {
	mkdir -p "$T/conf" "$T/drop" "$T/keys"
	"$AGENT" keygen "$T/keys/audit.key" > /dev/null 2>&1
	printf 'drop_dir: %s\nstate_dir: %s\nlog_level: warn\n' "$T/drop" "$T/state" > "$T/conf/agent.yaml"
	printf 'signing_key: %s\n' "$T/keys/audit.key" > "$T/conf/audit.yaml"
	printf 'pool_size: %s\n' "${MAI_BENCH_POOL:-2}" > "$T/conf/sandbox.yaml"
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
