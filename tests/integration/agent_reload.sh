#!/bin/sh
# SIGHUP applies a changed configuration to the jobs that start afterwards,
# with a real 'mai-agent run' on real inotify, the real assessor, the real
# sandbox (Docker) and a real audit log: a new rule in security.yaml makes a
# LOW script BLOCKED, a shorter timeout in sandbox.yaml ends a sleeper in
# "timeout", invalid rules are refused (the running ones stay), and a changed
# drop_dir is named as needing a restart while the old drop directory keeps
# working. Also the service manager's readiness protocol (NOTIFY_SOCKET). Exit 77 when Docker is not usable, a failure when MAI_REQUIRE_REAL=1.
set -u
# A warm pool: limits changed by a reload replace its containers.
AGENT_POOL=1
. "$(dirname "$0")/agent_lib.sh"

require_docker /var/run/docker.sock
write_agent_config "$T/drop" "$T/state" "workers: 1"
printf 'trusted:\n  timeout: 30s\n' >> "$T/conf/sandbox.yaml"

# --- readiness for a Type=notify service: READY=1 once the agent watches,
#     STOPPING=1 when it stops, as datagrams to $NOTIFY_SOCKET ---
NOTIFY_PID=
on_exit() {
	[ -n "$NOTIFY_PID" ] && kill "$NOTIFY_PID" 2>/dev/null
}
python3 - "$T/notify" "$T/notify.log" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
s.settimeout(300)
with open(sys.argv[2], "a") as out:
    while True:
        m = s.recv(4096)
        out.write(m.decode() + "\n")
        out.flush()
        if b"STOPPING=1" in m:
            break
PY
NOTIFY_PID=$!
i=0
until [ -S "$T/notify" ] || [ $i -ge 100 ]; do sleep 0.05; i=$((i + 1)); done
NOTIFY_SOCKET=$T/notify
export NOTIFY_SOCKET
start_agent
unset NOTIFY_SOCKET
i=0
until grep -qx 'READY=1' "$T/notify.log" 2>/dev/null || [ $i -ge 100 ]; do sleep 0.05; i=$((i + 1)); done
grep -qx 'READY=1' "$T/notify.log" 2>/dev/null ||
	fail "no READY=1 on NOTIFY_SOCKET after the start: $(cat "$T/notify.log" 2>/dev/null)"

# reload N: SIGHUP, then wait until the log says the reload (number N) is done.
reload() {
	hup_wait || fail "reload $1: not over within 30 s"
}

# --- thresholds and rules: LOW before, BLOCKED after adding a rule ---
printf 'print("hi")\n' > "$T/drop/hello.py"
wait_field "$T/drop/hello.result.json" state completed 60
[ "$(field "$T/drop/hello.result.json" assessment.level)" = LOW ] ||
	fail "hello.py is not LOW under the shipped rules"
{ printf '%s' "$AGENT_SECURITY_YAML"; cat <<'YAML'; } > "$T/conf/security.yaml"
rules:
  - id: LOCAL001
    match: {call: [builtins.print]}
    severity: HIGH
    block: true
    message: "prints"
YAML
reload 1
printf 'print("hi again")\n' > "$T/drop/hello2.py"
wait_field "$T/drop/hello2.result.json" state blocked 30
grep -q LOCAL001 "$T/drop/hello2.result.json" || fail "hello2.py: the new rule's finding is not in the result"

# --- invalid rules are refused; the rules of the last good reload stay ---
cp "$T/conf/security.yaml" "$T/security.good"
printf '%srules:\n  - id: LOCAL002\n    severity: BOGUS\n' "$AGENT_SECURITY_YAML" > "$T/conf/security.yaml"
reload 2
grep -q "SIGHUP: the new configuration is refused.*security.yaml" "$T/agent.log" ||
	fail "invalid rules: the refusal does not name security.yaml"
printf 'print("third")\n' > "$T/drop/hello3.py"
wait_field "$T/drop/hello3.result.json" state blocked 30
cp "$T/security.good" "$T/conf/security.yaml"

# --- lower thresholds: a MEDIUM script (a file write, score 40) becomes HIGH ---
printf '%s' "$AGENT_SECURITY_YAML" > "$T/conf/security.yaml" # the shipped rules
reload 3
printf 'open("/tmp/x", "w").write("1")\n' > "$T/drop/write.py"
wait_field "$T/drop/write.result.json" state completed 60
[ "$(field "$T/drop/write.result.json" assessment.level)" = MEDIUM ] ||
	fail "write.py is not MEDIUM under the shipped thresholds"
# (and approvers that name a group no account has: said at the reload)
printf '%sthresholds:\n  medium: 10\n  high: 30\n  blocked: 9999\napprovers:\n  groups: [mai-nogroup-%s]\n' \
	"$AGENT_SECURITY_YAML" $$ > "$T/conf/security.yaml"
reload 4
grep -q "approvers: group mai-nogroup-$$ does not exist: nobody approves through it until it does" "$T/agent.log" ||
	fail "a reload with approvers naming no group does not say so: $(grep approvers "$T/agent.log" | tail -3)"
printf 'open("/tmp/x", "w").write("2")\n' > "$T/drop/write2.py"
wait_field "$T/drop/write2.result.json" state awaiting_confirmation 30

# --- a shorter timeout: a sleeper started afterwards ends in timeout ---
printf '%s' "$AGENT_SECURITY_YAML" > "$T/conf/security.yaml" # the shipped rules
printf '%strusted:\n  timeout: 1s\n  scale: false\n' "$AGENT_SANDBOX_YAML" > "$T/conf/sandbox.yaml"
grep -q "sandbox limits changed" "$T/agent.log" &&
	fail "the warm pool was replaced by a reload that did not change the limits"
reload 5
grep -q "sandbox limits changed: replacing the warm pool's containers" "$T/agent.log" ||
	fail "a reload that changed the limits did not replace the warm pool's containers"
printf 'import time\ntime.sleep(8)\nprint("slept")\n' > "$T/drop/sleeper.py"
wait_field "$T/drop/sleeper.result.json" state completed 60
[ "$(field "$T/drop/sleeper.result.json" verdict)" = timeout ] ||
	fail "sleeper.py: verdict '$(field "$T/drop/sleeper.result.json" verdict)' after the timeout was lowered, expected timeout"
[ "$(field "$T/drop/sleeper.result.json" execution.limits.timeout_ms)" = 1000 ] ||
	fail "sleeper.py: the limits applied are not the reloaded ones: $(field "$T/drop/sleeper.result.json" execution.limits)"

# --- drop_dir needs a restart: warned, audited, the old one keeps working ---
mkdir -p "$T/drop2"
sed -i "s|^drop_dir: .*|drop_dir: $T/drop2|" "$T/conf/agent.yaml"
reload 6
grep -q "SIGHUP: agent.drop_dir changed in .*takes effect at the next start" "$T/agent.log" ||
	fail "a changed drop_dir is not named as needing a restart"
grep "SIGHUP:.*next start" "$T/agent.log" | grep -v agent.drop_dir >&2 &&
	fail "keys that did not change are named as needing a restart"
# new.py goes into the new directory first, then after.py into the old one:
# once after.py is answered, the agent has taken every event before it, and
# new.py's would have been one had it watched drop2.
printf 'print("new dir")\n' > "$T/drop2/new.py"
printf 'print("still here")\n' > "$T/drop/after.py"
wait_field "$T/drop/after.result.json" state completed 60
[ ! -e "$T/drop2/new.result.json" ] || fail "the new drop_dir is watched before a restart"
grep -q "new\.py" "$T/agent.log" && fail "the agent log names drop2/new.py: $(grep "new\.py" "$T/agent.log" | head -3)"
python3 -c 'import json,sys,glob
recs = []
for seg in sorted(glob.glob(sys.argv[1] + "/seg-*.log")):
    for line in open(seg, encoding="utf-8"):
        rec = json.loads(line[156:])
        if rec["type"] == "config_loaded" and rec["fields"].get("reload"):
            recs.append(rec["fields"])
assert len(recs) == 5, "%d reload records, expected 5 (the refused one is not one)" % len(recs)
assert recs[-1]["restart_required"] == ["agent.drop_dir"], recs[-1]
assert all(r["restart_required"] == [] for r in recs[:-1]), recs' "$T/state/audit" ||
	fail "the audit log's config_loaded records of the reloads are not as expected"

stop_agent
i=0
until grep -qx 'STOPPING=1' "$T/notify.log" 2>/dev/null || [ $i -ge 100 ]; do sleep 0.05; i=$((i + 1)); done
grep -qx 'STOPPING=1' "$T/notify.log" 2>/dev/null ||
	fail "no STOPPING=1 on NOTIFY_SOCKET at the stop: $(cat "$T/notify.log" 2>/dev/null)"
lib_finish agent_reload
