#!/bin/sh
# The agent end to end through its commands: a real 'mai-agent run' process
# on real inotify with the real assessor, driven by 'submit', 'approve',
# 'status' and by hostile drops, signals and a restart. Drops by the
# hundred are agent_burst.sh's.
#
# Runs go to the real sandbox (Docker), records to a real audit log. Exit 77 when Docker or the sandbox image is not usable, a
# failure instead when MAI_REQUIRE_REAL=1.
set -u

. "$(dirname "$0")/agent_lib.sh"

on_exit() {
	unmount_view "$T/mnt"
}

# The agent starts without Docker (it waits for it), so ask the engine first.
require_docker /var/run/docker.sock
# One account (root) drops and approves here; two people approving is
# agent_trust.sh's case.
AGENT_SECURITY_YAML="${AGENT_SECURITY_YAML}allow_self_approval: true
"
mkdir -p "$T/src"
write_agent_config "$T/drop" "$T/state" "workers: 2
max_file_size: 1m"
# Longer than the 6 s sleeper of the SIGTERM case, at every level.
printf 'trusted:\n  timeout: 60s\nstandard:\n  timeout: 60s\nuntrusted:\n  timeout: 60s\n' \
	>> "$T/conf/sandbox.yaml"
# Diffs of edited scripts are capped at 2 KiB (the v3 case below).
echo 'diff_max: 2k' >> "$T/conf/audit.yaml"

start_agent

# --- submit: exit status by outcome ---
printf 'print("hello from the sandbox")\n' > "$T/src/ok.py"
"$AGENT" submit --timeout 60 "$T/src/ok.py" > "$T/out" 2>/dev/null
rc=$?
[ $rc -eq 0 ] || fail "submit of a clean LOW script exited $rc, expected 0"
grep -q "hello from the sandbox" "$T/drop/ok.result.json" || fail "ok.py: its stdout is not in the result"
[ -f "$T/drop/ok.audit" ] || fail "ok.py: no ok.audit sidecar"
"$AGENT" verify --pubkey "$T/keys/audit.key.pub" "$T/drop/ok.audit" > /dev/null 2>&1 ||
	fail "ok.audit does not verify against the public key"
# The result cites where its records stand: the last one's entry hash and the
# size of the checkpoint that ok.audit proves them against.
python3 -c 'import json,sys
res = json.load(open(sys.argv[1]))["audit"]
side = json.load(open(sys.argv[2]))
last = side["records"][-1]
assert res["seqs"][-1] == last["seq"], (res, last["seq"])
assert res["entry_hash"] == last["record"][:64], res
assert "\n%d\n" % res["checkpoint_size"] in side["checkpoint"], res' \
	"$T/drop/ok.result.json" "$T/drop/ok.audit" 2> "$T/err" ||
	fail "ok.result.json's audit position does not match ok.audit: $(cat "$T/err")"
printf 'import sys\nsys.exit(3)\n' > "$T/src/three.py"
"$AGENT" submit --timeout 60 "$T/src/three.py" > "$T/out" 2>/dev/null
rc=$?
[ $rc -eq 1 ] || fail "submit of a script exiting 3 exited $rc, expected 1"
[ "$(field "$T/drop/three.result.json" exit_code)" = 3 ] || fail "three.py: exit_code is not 3"
# --json: the result document itself on stdout, for scripts that read it.
printf 'print("as json")\n' > "$T/src/asjson.py"
"$AGENT" submit --json --timeout 60 "$T/src/asjson.py" > "$T/out" 2>/dev/null
rc=$?
[ $rc -eq 0 ] || fail "submit --json of a clean LOW script exited $rc, expected 0"
python3 -c 'import json,sys
res = json.load(open(sys.argv[1]))
assert res["file"] == "asjson.py" and res["exit_code"] == 0, res
assert "as json" in res["execution"]["stdout"]["text"], res' "$T/out" 2> "$T/err" ||
	fail "submit --json did not print the result document: $(cat "$T/err") $(head -c 500 "$T/out")"

# --- a new version of a known name: its diff is in the audit log ---
# log_records TYPE [FILE]: the fields and seq of every record of TYPE about
# FILE (default hist.py), one JSON document a line, read straight from the
# segments; with FILE.audit instead of a name, from that job's sidecar.
log_records() {
	python3 -c 'import json,sys,glob
def lines():
    if sys.argv[3].endswith(".audit"):
        for r in json.load(open(sys.argv[3], encoding="utf-8"))["records"]:
            yield r["record"]
        return
    for seg in sorted(glob.glob(sys.argv[1] + "/seg-*.log")):
        yield from open(seg, encoding="utf-8")
for line in lines():
    rec = json.loads(line[156:])
    name = sys.argv[3].rsplit("/", 1)[-1].replace(".audit", ".py")
    if rec["type"] == sys.argv[2] and rec["fields"].get("file") == name:
        print(json.dumps(dict(rec["fields"], seq=rec["seq"])))' "$T/state/audit" "$1" "${2:-hist.py}"
}
# check_answers FILE EXPR [ARG]: EXPR (Python) holds for recs, the fields of
# FILE's approval and override records in log order, and dec, its decision
# records (uid is the user's; ARG is sys.argv[5]).
check_answers() {
	{ log_records approval "$1"; log_records override "$1"; } > "$T/answers"
	log_records decision "$1" > "$T/decisions"
	python3 -c 'import json,sys
recs = sorted((json.loads(l) for l in open(sys.argv[1])), key=lambda r: r["seq"])
dec = [json.loads(l) for l in open(sys.argv[2])]
uid = int(sys.argv[4])
assert eval("(" + sys.argv[3] + ")"), json.dumps(recs + dec)' "$T/answers" "$T/decisions" "$2" "$(id -u)" "${3:-}" 2> "$T/err"
}
printf 'x = 1\nprint("version", x)\n' > "$T/src/hist.py"
"$AGENT" submit --timeout 60 "$T/src/hist.py" > /dev/null 2>&1 || fail "hist.py v1: submit failed"
log_records job_accepted | grep -q '"history": "new"' || fail "hist.py v1: job_accepted does not say the name is new"
printf 'x = 2\nprint("version", x)\n' > "$T/src/hist.py"
"$AGENT" submit --timeout 60 "$T/src/hist.py" > /dev/null 2>&1 || fail "hist.py v2: submit failed"
log_records job_accepted | tail -1 | grep -q '"history": "changed"' || fail "hist.py v2: job_accepted does not say changed"
log_records script_diff > "$T/diffs"
python3 -c 'import json,sys
d = json.loads(open(sys.argv[1]).readline())
assert "-x = 1\n+x = 2\n" in d["diff"] and d["diff"].startswith("--- a/hist.py\n+++ b/hist.py\n"), d
assert not d["truncated"]' "$T/diffs" || fail "hist.py v2: no script_diff with the changed lines: $(cat "$T/diffs")"
grep -q 'script_diff' "$T/drop/hist.audit" || fail "hist.py v2: hist.audit does not carry the script_diff record"
"$AGENT" verify --pubkey "$T/keys/audit.key.pub" "$T/drop/hist.audit" > "$T/verify" 2>&1 ||
	fail "hist.audit with its diff does not verify: $(cat "$T/verify")"
# v3 rewrites 300 lines: the diff is cut at diff_max (2k in audit.yaml).
python3 -c 'import sys; sys.stdout.write("".join("y%d = %d\n" % (i, i) for i in range(300)))' > "$T/src/hist.py"
"$AGENT" submit --timeout 60 "$T/src/hist.py" > /dev/null 2>&1 || fail "hist.py v3: submit failed"
log_records script_diff | tail -1 > "$T/diffs"
python3 -c 'import json,sys
d = json.loads(open(sys.argv[1]).readline())
assert d["truncated"] and len(d["diff"].encode()) <= 2048 and "+y0 = 0\n" in d["diff"], d' "$T/diffs" ||
	fail "hist.py v3: the diff is not capped at audit.diff_max: $(head -c 300 "$T/diffs")"
"$AGENT" verify "$T/state" > "$T/verify" 2>&1 || fail "the log with script diffs does not verify: $(cat "$T/verify")"

printf 'import os, sys\nos.system("ls " + sys.argv[0])\n' > "$T/src/high.py"
"$AGENT" submit --timeout 20 "$T/src/high.py" > "$T/out" 2>/dev/null
rc=$?
[ $rc -eq 6 ] || fail "submit of a HIGH script exited $rc, expected 6"
grep -q "mai-agent approve high.py" "$T/out" || fail "submit did not print the next step"

printf 'x = 1\000\n' > "$T/src/nul.py"
"$AGENT" submit --timeout 20 "$T/src/nul.py" > /dev/null 2>&1
rc=$?
[ $rc -eq 7 ] || fail "submit of a file with a NUL byte exited $rc, expected 7"
[ "$(field "$T/drop/nul.result.json" reason)" = "not_text" ] || fail "nul.py: reason not not_text"

# --- approve: the decision is the user's, the answer is consumed ---
"$AGENT" approve --yes --reason "reviewed" "$T/drop/high.py" > /dev/null 2>&1 || fail "approve failed"
wait_field "$T/drop/high.result.json" decision.by user
[ "$(field "$T/drop/high.result.json" decision.reason)" = "reviewed" ] || fail "approve: reason lost"
[ ! -e "$T/drop/high.approve" ] || fail "high.approve was not consumed"
# The approval is a record of its own, in the log and in high.audit, and the
# decision cites it.
wait_field "$T/drop/high.result.json" state completed 60
check_answers high.py 'len(recs) == 1 and recs[0]["accepted"] is True and recs[0]["uid"] == uid
    and recs[0]["explanation"] == "reviewed" and recs[0]["consumed"] == "removed"
    and dec[-1]["answer_seq"] == recs[0]["seq"] and dec[-1]["job"] == recs[0]["job"]' ||
	fail "approve: no approval record with the reason and uid in the log: $(cat "$T/err")"
log_records approval "$T/drop/high.audit" | grep -q '"explanation": "reviewed"' ||
	fail "approve: high.audit does not carry the approval record"

# --- override needs a reason; an edit needs a new one ---
printf 'import base64\nexec(base64.b64decode("cHJpbnQoMSk="))\n' > "$T/drop/evil.py"
wait_field "$T/drop/evil.result.json" state blocked
# approve shows what it would answer, and says when the answer is not the
# one needed: a BLOCKED script needs an override; a script no longer held
# (high.py ran) is not changed by any answer. Without --yes and without a
# terminal to ask on, nothing is written (exit 2).
"$AGENT" approve "$T/drop/evil.py" < /dev/null > "$T/out" 2> "$T/err"
[ $? -eq 2 ] || fail "approve without --yes and without a terminal did not exit 2"
grep -q "note: it is BLOCKED: an approval does not let it run; it needs 'mai-agent override'" "$T/out" ||
	fail "approve of a BLOCKED script does not say it needs an override: $(cat "$T/out")"
grep -q "not confirmed: standard input is not a terminal" "$T/err" ||
	fail "approve without a terminal does not say why nothing was written: $(cat "$T/err")"
[ ! -e "$T/drop/evil.approve" ] || fail "approve without confirmation wrote evil.approve"
"$AGENT" approve "$T/drop/high.py" < /dev/null > "$T/out" 2> /dev/null
grep -q "note: the agent does not hold this content (state completed): an answer changes nothing" "$T/out" ||
	fail "approve of a script that ran does not say it is not held: $(cat "$T/out")"
"$AGENT" override "$T/drop/evil.py" > /dev/null 2>&1
[ $? -eq 2 ] || fail "override without --reason did not exit 2"
printf '\n' > "$T/drop/evil.override"
wait_field "$T/drop/evil.result.json" state blocked
i=0
until grep -q "evil.override was empty" "$T/drop/evil.result.json" || [ $i -ge 100 ]; do sleep 0.05; i=$((i + 1)); done
grep -q "evil.override was empty" "$T/drop/evil.result.json" || fail "empty override not explained"
check_answers evil.py 'len(recs) == 1 and recs[0]["accepted"] is False and recs[0]["explanation"] == ""
    and recs[0]["consumed"] == "refused: empty" and recs[0]["uid"] == uid' ||
	fail "the empty override is not recorded as refused: $(cat "$T/err")"
log_records override "$T/drop/evil.audit" | grep -q '"consumed": "refused: empty"' ||
	fail "evil.audit does not carry the refused override"
evil_v1_sha=$(sha256sum "$T/drop/evil.py" | cut -d' ' -f1)
"$AGENT" override --yes --reason "lab demo" "$T/drop/evil.py" > /dev/null 2>&1 || fail "override failed"
wait_field "$T/drop/evil.result.json" decision.by user
wait_field "$T/drop/evil.result.json" state completed 60
check_answers evil.py 'len(recs) == 2 and recs[1]["accepted"] is True and recs[1]["explanation"] == "lab demo"
    and recs[1]["consumed"] == "removed" and recs[1]["uid"] == uid and recs[1]["pinned_sha256"] == sys.argv[5]
    and dec[-1]["answer_seq"] == recs[1]["seq"]' "$evil_v1_sha" ||
	fail "override: no override record with the explanation and uid: $(cat "$T/err")"
log_records override "$T/drop/evil.audit" | grep -q '"explanation": "lab demo"' ||
	fail "evil.audit does not carry the override record"
printf 'import base64\nexec(base64.b64decode("cHJpbnQoMik="))\n' > "$T/drop/evil.py"
wait_field "$T/drop/evil.result.json" decision.by policy
[ "$(field "$T/drop/evil.result.json" state)" = blocked ] || fail "an edited override script was not blocked again"
# An override written for the first version is consumed and recorded as
# refused: the edited script needs a new one.
printf 'sha256: %s\nlab demo, again\n' "$evil_v1_sha" > "$T/drop/evil.override"
i=0
until grep -q "evil.override was for other content" "$T/drop/evil.result.json" || [ $i -ge 200 ]; do sleep 0.05; i=$((i + 1)); done
[ "$(field "$T/drop/evil.result.json" state)" = blocked ] || fail "a stale override let the edited script run"
check_answers evil.py 'len(recs) == 3 and recs[2]["accepted"] is False
    and recs[2]["consumed"] == "refused: stale content" and recs[2]["pinned_sha256"] == sys.argv[5]
    and recs[2]["sha256"] != sys.argv[5] and recs[2]["explanation"] == "lab demo, again"' "$evil_v1_sha" ||
	fail "the stale override is not recorded as refused: $(cat "$T/err")"
log_records override "$T/drop/evil.audit" | grep -q '"consumed": "refused: stale content"' ||
	fail "evil.audit does not carry the refused stale override"
"$AGENT" verify --pubkey "$T/keys/audit.key.pub" "$T/drop/evil.audit" > "$T/verify" 2>&1 ||
	fail "evil.audit with its override record does not verify: $(cat "$T/verify")"

# --- hostile drops ---
ln -s /etc/shadow "$T/drop/x.py"
mkfifo "$T/drop/pipe.py"
truncate -s 50M "$T/drop/huge.py"
printf 'print(1)\n' > "$T/drop/with space.py"
printf 'print(1)\n' > "$T/drop/-dash.py"
printf 'print(1)\n' > "$T/drop/caf$(printf '\303\251').py"
printf 'print(1)\n' > "$T/drop/new
line.py"
printf 'print(1)\n' > "$T/drop/gone.py"; rm "$T/drop/gone.py"
# A drop after gone.py: once it is answered, the agent has dealt with every
# event that came before it, gone.py's too.
printf 'print(1)\n' > "$T/drop/after_gone.py"
wait_field "$T/drop/x.result.json" reason symlink
wait_field "$T/drop/pipe.result.json" reason not_regular
wait_field "$T/drop/huge.result.json" reason too_large
for n in "with space" "-dash" "caf$(printf '\303\251')" "new
line"; do
	wait_field "$T/drop/$n.result.json" assessment.level LOW
done
wait_final "$T/drop/after_gone.result.json" 60
[ ! -e "$T/drop/gone.result.json" ] || fail "a file deleted before it was read got a result"

# --- editor save styles: one job each ---
printf 'import os, sys\nos.system("a " + sys.argv[0])\n' > "$T/drop/ed.py"
wait_field "$T/drop/ed.result.json" state awaiting_confirmation
jobs_of_ed() { grep -c 'info: ed.py: queued$' "$T/agent.log"; }
# saved_once HOW: the save made one job. A marker dropped after the save
# (its own name, a new one each time) is answered only once the agent has
# taken every event before it, the save's included: a second job of the
# save would be queued by then.
saves=0
saved_once() {
	saves=$((saves + 1))
	printf 'print(%d)\n' $saves > "$T/drop/mark$saves.py"
	wait_final "$T/drop/mark$saves.result.json" 60
	[ $(($(jobs_of_ed) - before)) -eq 1 ] || fail "$1 made $(($(jobs_of_ed) - before)) jobs, expected 1"
}
before=$(jobs_of_ed)
printf 'x' > "$T/drop/4913"; rm "$T/drop/4913"                       # vim's probe
mv "$T/drop/ed.py" "$T/drop/ed.py~"                                   # vim's backup
printf 'import os, sys\nos.system("b " + sys.argv[0])\n' > "$T/drop/ed.py"
rm "$T/drop/ed.py~"
saved_once "a vim save"
before=$(jobs_of_ed)
printf 'import os, sys\nos.system("c " + sys.argv[0])\n' > "$T/drop/.ed.py.tmp"            # temp + rename
mv "$T/drop/.ed.py.tmp" "$T/drop/ed.py"
saved_once "a temp+rename save"
before=$(jobs_of_ed)
printf 'import os, sys\nos.system("d " + sys.argv[0])\n' > "$T/drop/ed.py"               # in place
saved_once "an in-place save"
grep -q 'ignoring 4913: vim write probe' "$T/agent.log" || fail "the vim probe was not logged as ignored"

# --- SIGHUP: a bad config is refused, the agent goes on ---
# logged TEXT: until the agent log has TEXT (up to 10 s).
logged() {
	i=0
	until grep -q "$1" "$T/agent.log" || [ $i -ge 200 ]; do sleep 0.05; i=$((i + 1)); done
	grep -q "$1" "$T/agent.log"
}
cp "$T/conf/agent.yaml" "$T/agent.yaml.good"
echo 'workers: lots' >> "$T/conf/agent.yaml"
kill -HUP "$PID"
logged "SIGHUP: the new configuration is refused" || fail "bad reload not refused"
kill -0 "$PID" || fail "the agent died on a bad reload"
cp "$T/agent.yaml.good" "$T/conf/agent.yaml"
kill -HUP "$PID"
logged "configuration reloaded" || fail "good reload not logged"

# --- Bandit, turned on by a reload: its findings join the native ones ---
# The one place the agent's tests pay for Bandit (AGENT_SECURITY_YAML keeps
# it off elsewhere). hup_reloaded: SIGHUP, then wait for the next
# "configuration reloaded".
hup_reloaded() {
	n=$(grep -c 'configuration reloaded' "$T/agent.log")
	kill -HUP "$PID"
	i=0
	until [ "$(grep -c 'configuration reloaded' "$T/agent.log")" -gt "$n" ] || [ $i -ge 100 ]; do
		sleep 0.05
		i=$((i + 1))
	done
}
if command -v bandit > /dev/null 2>&1; then
	printf 'analyzers:\n  bandit:\n    enabled: true\n    timeout: 60s\n' > "$T/conf/security.yaml"
	hup_reloaded
	printf 'import subprocess, sys\nsubprocess.run("ls", shell=True)\nassert subprocess\nsubprocess.run("ls " + sys.argv[0], shell=True)\n' > "$T/drop/shell.py"
	wait_field "$T/drop/shell.result.json" state awaiting_confirmation 60
	# Native MAI005 and Bandit's B602 on lines 2 and 4 are one finding each,
	# the native one (B607, a partial executable path, too: MAI091); what
	# only Bandit sees (B101, an assert) is added as evidence; a note says
	# how Bandit's findings were weighed. Line 4's shell fed sys.argv holds it.
	python3 -c 'import json,sys
a = json.load(open(sys.argv[1]))["assessment"]
f = a["findings"]
b602 = [(x["source"], x["line"]) for x in f if x["bandit_id"] == "B602"]
assert b602 == [("mai", 2), ("mai", 4)], ("B602 not one native finding per line", b602, f)
assert [(x["rule_id"], x["source"]) for x in f if x["bandit_id"] == "B607"] == [("MAI091", "mai")], f
assert [(x["rule_id"], x["line"], x.get("weighed")) for x in f if x["source"] == "bandit"] == [("B101", 3, "evidence")], f
assert len(a["notes"]) == 1 and a["notes"][0].startswith("Bandit\x27s findings, "), a["notes"]
assert a["reason"].startswith("line 4: "), a' "$T/drop/shell.result.json" 2> "$T/err" ||
		fail "shell.py: Bandit's findings are not merged into the native ones: $(cat "$T/err")"
else
	skip_part "the Bandit merge: bandit is not installed (packaging/install-deps.sh installs it)"
fi
printf 'analyzers:\n  bandit:\n    enabled: true\n    path: %s/no-bandit\n' "$T" > "$T/conf/security.yaml"
hup_reloaded
printf 'import subprocess, sys\nsubprocess.run("pwd " + sys.argv[0], shell=True)\n' > "$T/drop/shell2.py"
wait_field "$T/drop/shell2.result.json" state awaiting_confirmation 60
grep -q "bandit: not installed ('$T/no-bandit' not found" "$T/drop/shell2.result.json" ||
	fail "shell2.py: the result does not say Bandit is missing: $(field "$T/drop/shell2.result.json" assessment.notes)"
python3 -c 'import json,sys
f = json.load(open(sys.argv[1]))["assessment"]["findings"]
assert "B602" in [x["bandit_id"] for x in f if x["source"] == "mai"], f
assert all(x["source"] == "mai" for x in f), f' "$T/drop/shell2.result.json" 2> "$T/err" ||
	fail "shell2.py: not the native findings alone when Bandit is missing: $(cat "$T/err")"
printf '%s' "$AGENT_SECURITY_YAML" > "$T/conf/security.yaml"
hup_reloaded

"$AGENT" status > "$T/status" 2>&1 || fail "status exited $? while the agent runs"
grep -q "agent: running" "$T/status" || fail "status does not say running"
# The sandbox's self-test, on its own containers while the agent runs.
"$AGENT" status --self-test > "$T/selftest" 2>&1 ||
	fail "status --self-test exited $? with Docker up: $(cat "$T/selftest")"
grep -q "^self-test: passed (root read-only, no network, no capabilities, " "$T/selftest" ||
	fail "status --self-test does not say what passed: $(cat "$T/selftest")"
grep -Eq '^docker: reachable \(checked [0-9]+ s ago\)$' "$T/status" ||
	fail "status does not say Docker is reachable and when it was checked: $(cat "$T/status")"
[ "$(field "$T/state/status.json" docker_reachable)" = True ] ||
	fail "status.json: docker_reachable is not true: $(cat "$T/state/status.json")"

# --- restart: content with a final result is not taken again ---
stop_agent
grep -q "stopped" "$T/agent.log" || fail "no clean stop in the log"
m1=$(stat -c %Y.%y "$T/drop/evil.result.json")
logged_before=$(wc -l < "$T/agent.log")
start_agent
# The rescan at the start takes up evil.py and logs what became of it; a
# drop after the start is answered once the rescan's jobs are queued
# before it.
printf 'print("after the restart")\n' > "$T/drop/restarted.py"
wait_final "$T/drop/restarted.result.json" 60
took=$(tail -n +$((logged_before + 1)) "$T/agent.log" | grep -a "debug: evil.py: " | tail -1)
case $took in
*"evil.py: already_final "*) ;;
*) fail "the rescan after a restart did not find evil.py's result final: '$took'" ;;
esac
m2=$(stat -c %Y.%y "$T/drop/evil.result.json")
[ "$m1" = "$m2" ] || fail "a final result was rewritten after a restart"
"$AGENT" status > /dev/null 2>&1 || fail "status after restart"

# --- SIGTERM while a script runs: killed, recorded, no container left, run again ---
# The script sleeps until 30 s after it was dropped (the clock of a
# container is the host's): a stop that came before then did not wait for
# it (the result must also say agent_stopped), and the run after the restart
# only sleeps what is left. Docker's kill and the removals of the run's and
# the warm pool's containers take about a second on an idle machine, 5 s
# under a load of 18 and 15 s under a load of 57.
end=$(($(date +%s) + 30))
printf 'import time\ntime.sleep(max(0, %d - time.time()))\nprint("slept")\n' $end > "$T/src/sleeper.py"
cp "$T/src/sleeper.py" "$T/drop/sleeper.py"
wait_field "$T/drop/sleeper.result.json" state running
sleep 1
t0=$(date +%s%N)
kill -TERM "$PID"
wait "$PID"
rc=$?
t1=$(date +%s%N)
PID=
[ $rc -eq 0 ] || fail "SIGTERM during a run: the agent exited $rc, expected 0"
ms=$(( (t1 - t0) / 1000000 ))
left=$(( end * 1000 - t0 / 1000000 ))
[ $ms -lt $left ] ||
	fail "SIGTERM during a run: the agent took $ms ms to stop, and the script had $left ms left: it waited for the script?"
[ "$(field "$T/drop/sleeper.result.json" state)" = error ] ||
	fail "SIGTERM during a run: state is '$(field "$T/drop/sleeper.result.json" state)', expected error"
[ "$(field "$T/drop/sleeper.result.json" reason)" = agent_stopped ] ||
	fail "SIGTERM during a run: reason is '$(field "$T/drop/sleeper.result.json" reason)'"
msg=$(field "$T/drop/sleeper.result.json" message)
case "$msg" in
*"runs again when the agent next starts"*"start it ('mai-agent run'"*) ;;
*) fail "SIGTERM during a run: the message does not say it runs at the next start and how: $msg" ;;
esac
case "$msg" in
*"retries on its own"*) fail "SIGTERM during a run: the message says the stopped agent retries: $msg" ;;
esac
n=$(containers_of_instance)
[ "$n" = 0 ] || fail "SIGTERM during a run: $n container(s) of this agent left"
"$AGENT" verify "$T/state" > "$T/verify" 2>&1 || fail "the audit log does not verify after SIGTERM"
start_agent
wait_field "$T/drop/sleeper.result.json" state completed 90 ||
	echo "after SIGTERM and a restart, sleeper.py has no final result: $(cat "$T/drop/sleeper.result.json")" >&2
[ "$(field "$T/drop/sleeper.result.json" exit_code)" = 0 ] ||
	fail "after a restart, sleeper.py did not exit 0: $(cat "$T/drop/sleeper.result.json")"

stop_agent
"$AGENT" status > "$T/status" 2> "$T/status.err"
[ $? -eq 1 ] || fail "status of a stopped agent did not exit 1"
grep -Eq '^agent: not running \(last seen [0-9T:.-]+Z, [0-9]+ s ago, as pid [0-9]+\)$' "$T/status" ||
	fail "status of a stopped agent does not say it is not running and when it was last seen: $(cat "$T/status")"
! grep -Eq '^(docker|pool):' "$T/status" ||
	fail "status of a stopped agent shows Docker or the pool as if live: $(cat "$T/status")"
grep -q "start it with 'mai-agent run'" "$T/status.err" ||
	fail "status of a stopped agent does not say how to start it: $(cat "$T/status.err")"
# A live pid whose status.json was not rewritten for minutes (a stuck agent,
# or a pid reused by another process: this shell's stands in for it).
python3 -c 'import json,sys
p=sys.argv[1]; d=json.load(open(p)); d["pid"]=int(sys.argv[2]); json.dump(d,open(p,"w"))' \
	"$T/state/status.json" $$
touch -d '3 minutes ago' "$T/state/status.json"
"$AGENT" status > "$T/status" 2> "$T/status.err"
[ $? -eq 1 ] || fail "status with a stale status.json and a live pid did not exit 1"
grep -Eq "^agent: NOT answering \(last seen .*, 3 min ago, as pid $$, which is still alive\)$" "$T/status" ||
	fail "status with a stale status.json and a live pid: $(cat "$T/status")"
grep -q "stuck or is not the agent" "$T/status.err" ||
	fail "status with a stale status.json does not say why: $(cat "$T/status.err")"
# Days ago, and the usage mistakes: an unknown --format, an argument.
touch -d '3 days ago' "$T/state/status.json"
"$AGENT" status > "$T/status" 2> /dev/null
grep -Eq "^agent: NOT answering \(last seen .*, 3 d ago, as pid $$, which is still alive\)$" "$T/status" ||
	fail "status of an agent last seen days ago: $(cat "$T/status")"
"$AGENT" status --format xml > "$T/status" 2> "$T/status.err"
[ $? -eq 2 ] || fail "status --format xml did not exit 2"
grep -q "unknown --format 'xml'; use text, json or prometheus" "$T/status.err" ||
	fail "status --format xml does not name the formats: $(cat "$T/status.err")"
"$AGENT" status now > "$T/status" 2> "$T/status.err"
[ $? -eq 2 ] || fail "status with an argument did not exit 2"
grep -q "status takes no arguments ('now')" "$T/status.err" ||
	fail "status with an argument does not say so: $(cat "$T/status.err")"

# --- the audit log verifies after all of it ---
"$AGENT" verify "$T/state" > "$T/verify" 2>&1 || fail "the audit log does not verify: $(cat "$T/verify")"
grep -q '^OK ' "$T/verify" || fail "verify did not say OK: $(cat "$T/verify")"

# --- run --mount: the audit view beside the agent, gone when it stops ---
if [ -e /dev/fuse ] && command -v fusermount3 > /dev/null; then
	start_agent --mount="$T/mnt"
	i=0
	until [ -f "$T/mnt/verify" ] || [ $i -ge 100 ]; do sleep 0.05; i=$((i + 1)); done
	"$AGENT" verify "$T/state" > "$T/verify" 2>&1
	head -c 3 "$T/mnt/verify" | grep -q '^OK ' || fail "cat verify on the mount: $(cat "$T/mnt/verify")"
	cmp -s "$T/mnt/runs/evil/result.json" "$T/drop/evil.result.json" ||
		fail "runs/evil/result.json differs from the sidecar in the drop directory"
	stop_agent
	! grep -q " $T/mnt " /proc/mounts || fail "the audit view is still mounted after the agent stopped"
else
	skip_part "run --mount: /dev/fuse or fusermount3 is missing"
fi

# Every sidecar this run produced must match schemas/ (issue 8).
python3 "$(dirname "$0")/../tools/validate_sidecars.py" "$T/drop" >&2 ||
	fail "sidecars in the drop directory do not match schemas/ (see above)"

lib_finish agent_cli
