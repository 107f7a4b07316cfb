#!/bin/sh
# Drops by the hundred through a real 'mai-agent run' (real inotify, the real
# assessor, a real audit log): 1,000 scripts moved in at once are each
# answered exactly once, and an agent killed with SIGKILL in the middle of
# 300 more answers every one of them after a restart, with whole result
# files and an audit log that verifies. The scripts are HIGH (a shell fed sys.argv),
# so they are held for a person and no container runs: this is the intake,
# assessment and audit path under load. Exit 77 when Docker or the sandbox
# image is not usable, a failure instead when MAI_REQUIRE_REAL=1.
set -u

. "$(dirname "$0")/agent_lib.sh"

require_docker /var/run/docker.sock
# One writer's 1,000 drops at once, each answered exactly once: no cap on
# a writer's jobs here (max_jobs_per_writer, 500 by default, would refuse
# some; multiuser.sh tests the cap).
write_agent_config "$T/drop" "$T/state" "workers: 2
max_jobs_per_writer: 0"
start_agent

# answered PREFIX N SECONDS: until N results PREFIX*.result.json say
# awaiting_confirmation; prints how many did. Every half second: each look
# reads every result file, and the agent needs the CPU.
answered() {
	i=0
	while [ $i -lt $(($3 * 2)) ]; do
		n=$(grep -l '"awaiting_confirmation"' "$T"/drop/"$1"*.result.json 2>/dev/null | wc -l)
		[ "$n" -eq "$2" ] && break
		sleep 0.5
		i=$((i + 1))
	done
	echo "$n"
}

# drops PREFIX N: N HIGH scripts PREFIX0.py... written aside, then moved in
# with one mv, as fast as the file system takes them.
drops() {
	mkdir "$T/$1"
	i=0
	while [ $i -lt "$2" ]; do
		printf 'import os, sys\nos.system("%s%d " + sys.argv[0])\n' "$1" $i > "$T/$1/$1$i.py"
		i=$((i + 1))
	done
	mv "$T/$1"/*.py "$T/drop/"
}

# --- 1000 drops at once: each answered exactly once ---
drops m 1000
n=$(answered m 1000 120)
[ "$n" -eq 1000 ] || fail "1000 drops: $n answered in 120 s"
dup=$(grep -E 'm[0-9]+\.py: awaiting_confirmation' "$T/agent.log" | sort | uniq -d | wc -l)
[ "$dup" -eq 0 ] || fail "1000 drops: $dup answered more than once"

# --- kill -9 in the middle of 300 drops, then a restart: all answered ---
drops k 300
sleep 0.3
kill -KILL "$PID"; wait "$PID" 2>/dev/null; PID=
start_agent
n=$(answered k 300 120)
[ "$n" -eq 300 ] || fail "after kill -9 and a restart: $n of 300 answered in 120 s"
python3 -c 'import json,sys
bad=[f for f in sys.argv[1:] if not isinstance(json.load(open(f)),dict)]
sys.exit(1 if bad else 0)' "$T"/drop/k*.result.json 2>/dev/null || fail "a result is not whole JSON after kill -9"
stop_agent

# --- the audit log verifies, kill -9 included; the sidecars match schemas/ ---
"$AGENT" verify "$T/state" > "$T/verify" 2>&1 || fail "the audit log does not verify: $(cat "$T/verify")"
grep -q '^OK ' "$T/verify" || fail "verify did not say OK: $(cat "$T/verify")"
python3 "$(dirname "$0")/../tools/validate_sidecars.py" "$T/drop" >&2 ||
	fail "sidecars in the drop directory do not match schemas/ (see above)"

lib_finish agent_burst
