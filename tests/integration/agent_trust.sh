#!/bin/sh
# The drop directory as hostile ground, with real accounts (issue 15
# [trust]): the test creates a drop group, a writer, an approver and an
# ordinary member with useradd/groupadd, acts as each of them with setpriv,
# and removes them at the end. Against a real 'mai-agent run' (real inotify,
# the real assessor, the shared Docker engine, where gVisor is registered):
#  - the writer drops a HIGH script; 'pending' lists it with its writer;
#  - a member who is no approver is refused by 'mai-agent approve' at once,
#    and the answer file they write by hand is refused, recorded with uid,
#    name and reason, and moved aside (kept); the approver's answer runs it;
#  - an approver's answer to their own script is refused (self-approval),
#    then taken once allow_self_approval is set;
#  - a hard-linked script and a hard-linked answer are rejected unread;
#  - as an unprivileged member: FIFOs, symlinks and hard links at every name
#    the agent writes (both sidecars, the old predictable temporary names)
#    block nothing and are never written through; the answer is in the
#    audit view; the agent stops on SIGTERM as ever;
#  - runtime auto picks runsc here (agent_dockerd.sh: runc where dockerd
#    has no runsc), named in status, status.json, the result and the record.
# Needs root, useradd and Docker; exit 77 without them, a failure instead
# when MAI_REQUIRE_REAL=1.
set -u

. "$(dirname "$0")/agent_lib.sh"

[ "$(id -u)" = 0 ] || skip "creating accounts needs root"
command -v useradd > /dev/null && command -v setpriv > /dev/null ||
	skip "useradd and setpriv (passwd, util-linux) are needed"
require_docker /var/run/docker.sock

# Short unique names: a test that runs twice at once does not collide.
SUF=$$
DROPG=maidrop$SUF APPRG=maiappr$SUF
W=maiw$SUF A=maia$SUF O=maio$SUF
on_exit() {
	if grep -q " $T/mnt " /proc/mounts 2>/dev/null; then
		fusermount3 -u -z "$T/mnt" 2>/dev/null || umount -l "$T/mnt"
	fi
	for u in $W $A $O; do userdel "$u" 2> /dev/null; done
	for g in $DROPG $APPRG; do groupdel "$g" 2> /dev/null; done
}
groupadd "$DROPG" && groupadd "$APPRG" || { fail "groupadd"; exit 1; }
useradd -M -N -s /usr/sbin/nologin -g "$DROPG" "$W" &&
	useradd -M -N -s /usr/sbin/nologin -g "$DROPG" -G "$APPRG" "$A" &&
	useradd -M -N -s /usr/sbin/nologin -g "$DROPG" "$O" || { fail "useradd"; exit 1; }
WU=$(id -u "$W") AU=$(id -u "$A") OU=$(id -u "$O")


# The drop directory of the two-person flow: the drop group writes it.
chmod 755 "$T"
AGENT_SECURITY_YAML="${AGENT_SECURITY_YAML}approvers:
  users: [root]
  groups: [$APPRG]
"
write_agent_config "$T/drop" "$T/state" "workers: 2"
chgrp "$DROPG" "$T/drop" && chmod 2770 "$T/drop"
chmod -R a+rX "$T/conf"
mkdir -p "$T/mnt" "$T/src"
DOCKER_CHECKED=1
start_agent --mount="$T/mnt"
D=$T/drop

# record TYPE FILE: the fields and seq of every record of TYPE about FILE,
# one JSON document a line, read straight from the log's segments.
record() {
	audit_records "$T/state/audit" "$1" "$2"
}
# keep_case NAME RESULT TYPE FILE: the result's message and the last record
# of TYPE about FILE, kept in $T/refusals.txt (read it with MAI_ITEST_KEEP=1).
keep_case() {
	{ echo "== $1"; echo "message: $(field "$2" message)"; echo "record: $(record "$3" "$4" | tail -1)"
	  echo; } >> "$T/refusals.txt"
}
# keep_said NAME FILE: what a command said, in the same file; a sanitizer's
# report in it fails the test (a refusal must not end in a crash).
keep_said() {
	{ echo "== $1"; cat "$2"; echo; } >> "$T/refusals.txt"
	! grep -q "Sanitizer" "$2" || fail "$1: the command crashed: $(grep -m3 Sanitizer "$2")"
}
# wait_message FILE TEXT: until the result's message holds TEXT.
wait_message() {
	wait_json "$1" 10 'args[0] in f("message")' "$2" ||
		fail "$1: the message never said '$2': $(field "$1" message)"
}

# --- runtime auto: runsc, since this engine has gVisor registered ---
[ "$(field "$T/state/status.json" runtimes.untrusted)" = runsc ] ||
	fail "status.json: untrusted runs with '$(field "$T/state/status.json" runtimes.untrusted)', expected runsc (auto, gVisor registered)"
[ "$(field "$T/state/status.json" runtimes.trusted)" = runc ] || fail "status.json: trusted is not runc"
[ "$(field "$T/state/status.json" warnings.0)" = "" ] || fail "status.json: a warning although runsc is there"
"$AGENT" status > "$T/status" 2>&1
grep -q "^runtimes: .*untrusted runsc" "$T/status" || fail "status does not name the runtimes: $(cat "$T/status")"

# --- the writer drops a HIGH script; pending lists it ---
printf 'import os, sys\nos.system("true")\nos.system("true " + sys.argv[0])\n' | put_as "$W" "$D/high.py"
wait_field "$D/high.result.json" state awaiting_confirmation 30
[ "$(field "$D/high.result.json" writer.uid)" = "$WU" ] || fail "high.py: writer.uid is not $WU"
[ "$(field "$D/high.result.json" writer.user)" = "$W" ] || fail "high.py: writer.user is not $W"
as "$A" "$AGENT" pending > "$T/pending" 2>&1 || fail "pending as the approver failed: $(cat "$T/pending")"
grep -q "^high.py  HIGH, awaiting_confirmation, written by $W (uid $WU), waiting" "$T/pending" ||
	fail "pending does not list high.py with its writer: $(cat "$T/pending")"
grep -q "answer with: mai-agent approve $D/high.py" "$T/pending" ||
	fail "pending does not give the command: $(cat "$T/pending")"
as "$O" "$AGENT" pending --json > "$T/pending.json" 2> "$T/err" || fail "pending --json failed"
python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
p = [e for e in d["pending"] if e["file"] == "high.py"]
assert len(p) == 1, d
e = p[0]
assert e["level"] == "HIGH" and e["state"] == "awaiting_confirmation", e
assert e["writer"] == {"uid": int(sys.argv[2]), "user": sys.argv[3]}, e
assert e["command"] == "mai-agent approve " + sys.argv[4], e
assert e["findings"] and e["findings"][0]["rule_id"], e
assert e["age_s"] >= 0 and e["you_may_answer"] is False, e
assert d["you_approve"] is False and sys.argv[5] in d["approvers"], d' \
	"$T/pending.json" "$WU" "$W" "$D/high.py" "$APPRG" 2> "$T/err" ||
	fail "pending --json: $(cat "$T/err")"

# --- a member who is no approver: refused by the command, then by the agent ---
as "$O" "$AGENT" approve --yes "$D/high.py" > "$T/out" 2> "$T/err"
rc=$?
[ $rc -eq 1 ] || fail "approve as a non-approver exited $rc, expected 1"
grep -q "refused: you, $O (uid $OU), are not an approver" "$T/err" ||
	fail "approve as a non-approver: no early refusal: $(cat "$T/err")"
[ ! -e "$D/high.approve" ] || fail "the refused approve wrote high.approve"
keep_said "mai-agent approve by a non-approver" "$T/err"
printf 'looks fine to me\n' | put_as "$O" "$D/high.approve"
wait_message "$D/high.result.json" "written by $O (uid $OU), who is not an approver"
[ "$(field "$D/high.result.json" state)" = awaiting_confirmation ] || fail "a non-approver's answer let high.py go"
[ ! -e "$D/high.approve" ] || fail "the refused high.approve still blocks the name"
record approval high.py | tail -1 > "$T/rec"
python3 -c 'import json, os, sys
r = json.load(open(sys.argv[1]))
assert r["uid"] == int(sys.argv[2]) and r["user"] == sys.argv[3], r
assert r["accepted"] is False and r["consumed"] == "refused: not an approver", r
assert r["moved_aside"].startswith(sys.argv[4] + "/quarantine/high.approve.") and r["explanation"] == "", r
assert os.stat(r["moved_aside"]).st_uid == int(sys.argv[2]), r' "$T/rec" "$OU" "$O" "$T/state" 2> "$T/err" ||
	fail "the non-approver's answer is not recorded as refused: $(cat "$T/err") $(cat "$T/rec")"
keep_case "high.approve written by a non-approver" "$D/high.result.json" approval high.py

# --- the approver: no terminal, no answer; --yes writes it and it runs ---
as "$A" "$AGENT" approve "$D/high.py" < /dev/null > "$T/out" 2> "$T/err"
rc=$?
[ $rc -eq 2 ] || fail "approve without a terminal or --yes exited $rc, expected 2"
grep -q "not confirmed: standard input is not a terminal" "$T/err" || fail "approve without --yes: $(cat "$T/err")"
keep_said "mai-agent approve without a terminal or --yes" "$T/err"
grep -q "os.system" "$T/out" || grep -q "MAI" "$T/out" || fail "approve did not show the findings: $(cat "$T/out")"
grep -q "this name has not run before" "$T/out" || fail "approve did not say high.py never ran: $(cat "$T/out")"
# On a terminal it asks; "n" writes nothing.
printf 'n\n' | as "$A" script -qec "$AGENT approve $D/high.py" /dev/null > "$T/out" 2>&1
grep -q "Approve this content of high.py? \[y/N\]" "$T/out" || fail "approve on a terminal did not ask: $(cat "$T/out")"
grep -q "not approved: nothing was written" "$T/out" || fail "approve: 'n' was not a no: $(cat "$T/out")"
as "$A" "$AGENT" approve --yes --reason "reviewed by the approver" "$D/high.py" > "$T/out" 2>&1 ||
	fail "approve --yes as the approver failed: $(cat "$T/out")"
wait_field "$D/high.result.json" state completed 60
[ "$(field "$D/high.result.json" decision.uid)" = "$AU" ] || fail "high.py: decision.uid is not the approver's"
[ "$(field "$D/high.result.json" decision.user)" = "$A" ] || fail "high.py: decision.user is not the approver"
[ "$(field "$D/high.result.json" execution.runtime)" = runsc ] ||
	fail "high.py ran untrusted with '$(field "$D/high.result.json" execution.runtime)', expected runsc"
record execution high.py | tail -1 | grep -q '"runtime": "runsc"' || fail "the execution record does not name runsc"
[ ! -e "$D/high.approve" ] || fail "the used answer was not consumed"

# --- approve shows what changed since the version of the name that ran ---
printf 'print("v1")\n' | put_as "$W" "$D/lib.py"
wait_field "$D/lib.result.json" state completed 60
printf 'import os, sys\nos.system("true")\nos.system("true " + sys.argv[0])\nprint("v2")\n' | put_as "$W" "$D/lib.py"
wait_field "$D/lib.result.json" state awaiting_confirmation 30
v1=$(printf 'print("v1")\n' | sha256sum | cut -c1-64)
[ "$(field "$D/lib.result.json" since_last_run.previous_sha256)" = "$v1" ] ||
	fail "lib.py: since_last_run does not name the version that ran"
as "$A" "$AGENT" approve "$D/lib.py" < /dev/null > "$T/out" 2>&1
grep -q "changes since the version that ran last (sha256 $(echo "$v1" | cut -c1-12))" "$T/out" &&
	grep -q '^-print("v1")' "$T/out" && grep -q '^+os.system("true")' "$T/out" ||
	fail "approve does not show the diff against the version that ran: $(cat "$T/out")"
[ ! -e "$D/lib.approve" ] || fail "approve without --yes wrote lib.approve"

# --- self-approval: refused at once and by the agent, then allowed ---
printf 'import os, sys\nos.system("true")\nos.system("true " + sys.argv[0])\n' | put_as "$A" "$D/own.py"
wait_field "$D/own.result.json" state awaiting_confirmation 30
as "$A" "$AGENT" approve --yes "$D/own.py" > "$T/out" 2> "$T/err"
[ $? -eq 1 ] || fail "approving one's own script did not exit 1"
grep -q "wrote $D/own.py yourself" "$T/err" || fail "no early self-approval refusal: $(cat "$T/err")"
keep_said "mai-agent approve of one's own script" "$T/err"
printf 'mine, and fine\n' | put_as "$A" "$D/own.approve"
wait_message "$D/own.result.json" "who also wrote own.py"
field "$D/own.result.json" message | grep -q "allow_self_approval: true in security.yaml" ||
	fail "the self-approval refusal does not name the setting"
record approval own.py | tail -1 | grep -q '"consumed": "refused: self-approval"' ||
	fail "the self-approval is not recorded as refused"
keep_case "own.approve written by the script's own writer" "$D/own.result.json" approval own.py
printf 'allow_self_approval: true\n' >> "$T/conf/security.yaml"
n=$(grep -c "configuration reloaded" "$T/agent.log")
kill -HUP "$PID"
i=0
until [ "$(grep -c 'configuration reloaded' "$T/agent.log")" -gt "$n" ] || [ $i -ge 100 ]; do sleep 0.05; i=$((i + 1)); done
as "$A" "$AGENT" approve --yes "$D/own.py" > "$T/out" 2>&1 || fail "approve with allow_self_approval: $(cat "$T/out")"
wait_field "$D/own.result.json" state completed 60
[ "$(field "$D/own.result.json" decision.uid)" = "$AU" ] || fail "own.py: not run on its writer's word"

# --- hard links: a script and an answer, never read ---
printf 'print("SECRET-%s")\n' "$SUF" > "$T/secret.py"
chmod 600 "$T/secret.py"
ln "$T/secret.py" "$D/linked.py"
wait_field "$D/linked.result.json" state rejected 20
[ "$(field "$D/linked.result.json" reason)" = hard_link ] || fail "linked.py: reason is not hard_link"
field "$D/linked.result.json" message | grep -q "more than one link (a hard link" || fail "linked.py: no clear message"
record intake_rejected linked.py | grep -q '"reason": "hard_link"' || fail "linked.py: no intake_rejected record"
keep_case "linked.py, a hard link to a root-only file" "$D/linked.result.json" intake_rejected linked.py
grep -rqs --exclude=linked.py "SECRET-$SUF" "$D" "$T/state" && fail "the hard-linked file's content reached a result, the log or the store"
printf 'print(1)\n' > "$T/src/mine.py"
chown "$W" "$T/src/mine.py"
as "$W" ln "$T/src/mine.py" "$D/wlinked.py" || fail "the writer could not link their own file"
wait_field "$D/wlinked.result.json" state rejected 20
printf 'import os, sys\nos.system("true")\nos.system("true " + sys.argv[0])\n' | put_as "$W" "$D/held2.py"
wait_field "$D/held2.result.json" state awaiting_confirmation 30
printf 'linked answer\n' > "$T/src/answer"
chown "$A" "$T/src/answer"
as "$A" ln "$T/src/answer" "$D/held2.approve" || fail "the approver could not link their answer"
wait_message "$D/held2.result.json" "held2.approve has 2 links (a hard link)"
record approval held2.py | tail -1 | grep -q '"consumed": "refused: hard link"' || fail "the hard-linked answer is not recorded"
keep_case "held2.approve, a hard link" "$D/held2.result.json" approval held2.py
[ "$(field "$D/held2.result.json" state)" = awaiting_confirmation ] || fail "a hard-linked answer let held2.py go"

# --- what an unprivileged member puts at the names the agent writes ---
# A root-only file of the test's own stands for /etc/shadow: the tests that
# run beside this one add and remove accounts, which changes the real one.
printf 'root:secret:19000:0:99999:7:::\n' > "$T/shadow"
chmod 600 "$T/shadow"
sha_shadow=$(sha256sum "$T/shadow")
as "$O" mkfifo "$D/victim.result.json"
as "$O" ln -s "$T/shadow" "$D/victim.audit"
printf 'theirs\n' > "$T/src/theirs"
chown "$O" "$T/src/theirs"
as "$O" ln "$T/src/theirs" "$D/v2.result.json"
for name in v3.result.json v3.audit; do as "$O" mkfifo "$D/$name.tmp.$PID"; done
as "$O" mkfifo "$D/.mai-tmp.0000000000000000"
# A root-only file linked in where a sidecar goes (what fs.protected_hardlinks=0
# would let anyone do): the name is replaced, the file never written.
printf 'root only\n' > "$T/rootonly"
chmod 600 "$T/rootonly"
ln "$T/rootonly" "$D/v4.result.json"
for v in victim v2 v3 v4; do printf 'print("%s ran")\n' "$v" | put_as "$W" "$D/$v.py"; done
wait_field "$D/v3.result.json" state completed 30
wait_field "$D/v4.result.json" state completed 30
i=0
until [ -f "$T/state/unplaced/victim.result.json" ] && [ -f "$T/state/unplaced/v2.result.json" ] ||
	[ $i -ge 200 ]; do sleep 0.05; i=$((i + 1)); done
[ -p "$D/victim.result.json" ] || fail "the FIFO at victim.result.json was replaced or removed"
[ -L "$D/victim.audit" ] || fail "the symlink at victim.audit was replaced"
[ "$(sha256sum "$T/shadow")" = "$sha_shadow" ] || fail "the root-only file behind the symlink at victim.audit changed"
[ "$(cat "$T/src/theirs")" = theirs ] || fail "the member's linked file was written through"
[ "$(cat "$T/rootonly")" = "root only" ] && [ "$(stat -c %a "$T/rootonly")" = 600 ] ||
	fail "the root-only file linked at v4.result.json was written through or made $(stat -c %a "$T/rootonly")"
grep -q "refused to write $D/victim.result.json: a FIFO owned by $O (uid $OU)" "$T/agent.log" ||
	fail "the refused FIFO is not in the agent's log"
grep "refused to write" "$T/agent.log" > "$T/refused.log"
keep_said "names others prepared: the agent's log" "$T/refused.log"
keep_case "victim.py, answered through the view" "$T/mnt/runs/victim/result.json" execution victim.py
[ "$(field "$T/mnt/runs/victim/result.json" state)" = completed ] ||
	fail "the view does not answer victim.py: $(cat "$T/mnt/runs/victim/result.json" 2>&1)"
grep -q "victim ran" "$T/mnt/runs/victim/result.json" || fail "the view's victim result lacks its output"
[ "$(field "$T/mnt/runs/v2/result.json" state)" = completed ] ||
	fail "the view shows the member's own file as v2's result"
[ -p "$D/.mai-tmp.0000000000000000" ] || fail "the member's FIFO at a temporary name was removed"

# --- a name too long for its sidecars; a directory named like a script ---
long=$(python3 -c 'print("l" * 247 + ".py")')
printf 'print(1)\n' | put_as "$W" "$D/$long"
short=$(python3 -c 'import hashlib,sys; n=sys.argv[1]; print("." + n[:200] + "~" + hashlib.sha256(n.encode()).hexdigest()[:16] + ".result.json")' "$long")
wait_field "$D/$short" state rejected 20
[ "$(field "$D/$short" reason)" = name_too_long ] || fail "the long name: reason is not name_too_long"
grep -q "too long for its sidecars; rejected (name_too_long), answered as $short" "$T/agent.log" ||
	fail "the long name is not in the agent's log"
keep_case "a 250-byte name" "$D/$short" intake_rejected "$long"
as "$W" mkdir "$D/folder.py"
i=0
until grep -q "$D/folder.py is a directory, not a script" "$T/agent.log" || [ $i -ge 100 ]; do sleep 0.05; i=$((i + 1)); done
grep -q "$D/folder.py is a directory, not a script" "$T/agent.log" || fail "a directory named folder.py got no log line"

# --- a crash's temporary is cleared at the next start; SIGTERM still stops ---
stop_agent
printf '{"half' > "$D/.mai-tmp.0123456789abcdef"
start_agent --mount="$T/mnt"
[ ! -e "$D/.mai-tmp.0123456789abcdef" ] || fail "the agent's leftover temporary survived a restart"
[ -p "$D/.mai-tmp.0000000000000000" ] || fail "the restart removed the member's FIFO"
stop_agent
"$AGENT" verify "$T/state" > "$T/verify" 2>&1 || fail "the log does not verify: $(cat "$T/verify")"
lib_finish agent_trust
