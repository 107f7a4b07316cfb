#!/bin/sh
# A drop directory shared by several people (issue 27), with real accounts
# made here (useradd) and removed at exit: a writer W, a hostile co-user C
# in the same drop group, an approver A. Run once per mode: multiuser.sh
# watch | mount. Against a real 'mai-agent run' (real inotify or FUSE, the
# real assessor, the shared Docker engine):
#  - the approval swap race: A answers W's held HIGH script with a
#    hand-written answer (no sha256); C, polling, renames a different HIGH
#    script into place at the first sight of the answer file. C's script
#    never runs under A's answer; W's original runs only if the agent took
#    the answer before the swap. The held result names who may answer and
#    recommends 'mai-agent approve';
#  - a directory (watch mode) or a file of C's at an answer name is moved
#    aside by the agent, and A's 'mai-agent approve' then works;
#  - the stop window: in mount mode the directory underneath is root's
#    0700 while the agent is down (C cannot write there); in both modes what
#    sits at a sidecar's or an answer's name at start that is not the
#    agent's (a forged result, a symlink, a FIFO, a directory) is moved
#    aside, recorded, and the script answered again from the agent's copy
#    of its answer (an approved script is not held again, nothing reruns);
#  - privacy: a 0600 script saved twice gets 0600 sidecars owned by W,
#    which C cannot read (nor, in mount mode, its .wait answer);
#  - a drop directory on a file system without extended attributes
#    (ramfs): the agent refuses to start and says what to do;
#  - fair turns: with two workers and a cap of 8 jobs per writer, C's flood
#    is capped (writer_queue_full), W's one script is queued within one
#    job of the front and answered while C's jobs still wait; C (any
#    member of the drop group) runs 'mai-agent status' and 'pending'.
# Needs root, useradd, setpriv and Docker (and /dev/fuse for mount); exit
# 77 without them, a failure instead when MAI_REQUIRE_REAL=1.
set -u
MODE=${1:-watch}
. "$(dirname "$0")/agent_lib.sh"

[ "$(id -u)" = 0 ] || skip "creating accounts needs root"
command -v useradd > /dev/null && command -v setpriv > /dev/null ||
	skip "useradd and setpriv (passwd, util-linux) are needed"
[ "$MODE" = watch ] || [ -c /dev/fuse ] || skip "no /dev/fuse for mount mode"
require_docker /var/run/docker.sock

# Accounts of a run that was killed (no cleanup) go first.
for u in $(awk -F: '/^mu[wca][0-9]+:/ { print $1 }' /etc/passwd); do
	kill -0 "${u#mu?}" 2>/dev/null || userdel "$u" 2>/dev/null
done
for g in $(awk -F: '/^mu[dp][0-9]+:/ { print $1 }' /etc/group); do
	kill -0 "${g#mu?}" 2>/dev/null || groupdel "$g" 2>/dev/null
done
DROPG=mud$$ APPRG=mup$$
W=muw$$ C=muc$$ A=mua$$
D=$T/drop
on_exit() {
	[ -n "${POLLER:-}" ] && kill "$POLLER" 2>/dev/null
	grep -q " $D " /proc/self/mounts 2>/dev/null && umount -l "$D"
	grep -q " $T/ramdrop " /proc/self/mounts 2>/dev/null && umount -l "$T/ramdrop"
	for u in $W $C $A; do userdel "$u" 2> /dev/null; done
	for g in $DROPG $APPRG; do groupdel "$g" 2> /dev/null; done
}
groupadd "$DROPG" && groupadd "$APPRG" || { fail "groupadd"; exit 1; }
useradd -M -N -s /usr/sbin/nologin -g "$DROPG" "$W" &&
	useradd -M -N -s /usr/sbin/nologin -g "$DROPG" "$C" &&
	useradd -M -N -s /usr/sbin/nologin -g "$DROPG" -G "$APPRG" "$A" || { fail "useradd"; exit 1; }
WU=$(id -u "$W") CU=$(id -u "$C")

# A script the gate holds: a shell command fed sys.argv (a literal
# os.system is contained, not held).
high() { printf 'import os, sys\nos.system("%s " + sys.argv[0])\n' "$1"; }
# record TYPE: every record of TYPE, one JSON document a line.
record() {
	python3 -c 'import json,sys,glob
for seg in sorted(glob.glob(sys.argv[1] + "/seg-*.log")):
    for line in open(seg, encoding="utf-8"):
        rec = json.loads(line.split(" ", 4)[4])
        if rec["type"] == sys.argv[2]:
            print(json.dumps(dict(rec["fields"], seq=rec["seq"])))' "$T/state/audit" "$1"
}
# past_now: until the clock that stamps files has passed this moment (a
# tick at most): a person who reads a held result and then writes an answer
# is that slow at least.
past_now() {
	python3 -c 'import time
t = time.clock_gettime(time.CLOCK_REALTIME)
while time.clock_gettime(5) <= t:  # CLOCK_REALTIME_COARSE
    time.sleep(0.001)'
}
sha() { sha256sum | cut -d' ' -f1; }

chmod 755 "$T"
AGENT_SECURITY_YAML="${AGENT_SECURITY_YAML}approvers:
  users: [root]
  groups: [$APPRG]
"
EXTRA="workers: 2
max_jobs_per_writer: 8
drop_dir_mode: \"2770\"
drop_dir_group: $DROPG"
[ "$MODE" = mount ] && EXTRA="$EXTRA
drop_mode: mount"
write_agent_config "$D" "$T/state" "$EXTRA"
chmod -R a+rX "$T/conf"
DOCKER_CHECKED=1
start_agent

# --- the approval swap race ---
high "echo reviewed" | put_as "$W" "$D/hs.py"
wait_field "$D/hs.result.json" state awaiting_confirmation 30
orig=$(high "echo reviewed" | sha)
msg=$(field "$D/hs.result.json" message)
echo "$msg" | grep -q "mai-agent approve hs.py" || fail "the held result does not recommend mai-agent approve: $msg"
echo "$msg" | grep -q "a member of group $APPRG, other than $W, who wrote it" ||
	fail "the held result does not say who may answer: $msg"
echo "$msg" | grep -q "or create hs.approve" && fail "the held result still recommends a hand-written answer"
# C's script waits under a hidden name (ignored), then a poller renames it
# over hs.py at the first sight of hs.approve.
high "echo swapped-in" | put_as "$C" "$D/.swap"
evil=$(high "echo swapped-in" | sha)
as "$C" python3 -c 'import os, sys, time
d = sys.argv[1]
end = time.monotonic() + 60
while not os.path.exists(d + "/hs.approve") and time.monotonic() < end:
    time.sleep(0.0005)
os.rename(d + "/.swap", d + "/hs.py")' "$D" &
POLLER=$!
past_now
printf 'reviewed: echo\n' | put_as "$A" "$D/hs.approve"
wait "$POLLER"
POLLER=
[ "$(sha256sum < "$D/hs.py" | cut -d' ' -f1)" = "$evil" ] || fail "the poller did not swap hs.py"
# The swapped-in content ends held; whatever the order, it never runs.
wait_json "$D/hs.result.json" 30 'f("sha256") == args[0] and f("state") == "awaiting_confirmation"' "$evil"
[ "$(field "$D/hs.result.json" state)" = awaiting_confirmation ] && [ "$(field "$D/hs.result.json" sha256)" = "$evil" ] ||
	fail "the swapped-in hs.py: $(field "$D/hs.result.json" state) $(field "$D/hs.result.json" sha256)"
record approval > "$T/approvals"
python3 - "$T/approvals" "$evil" "$orig" <<'PY' || fail "approvals: $(cat "$T/approvals")"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if json.loads(l).get("file") == "hs.py"]
assert recs, "no approval record"
for r in recs:
    if r["accepted"]:
        assert r["sha256"] == sys.argv[3], ("an answer was accepted for other content", r)
    else:
        assert r["status"] == "unseen" and r["sha256"] == sys.argv[2], r
PY
record execution > "$T/execs"
record job_accepted | python3 -c 'import json,sys
jobs = {json.loads(l)["seq"] for l in sys.stdin if json.loads(l)["sha256"] == sys.argv[1]}
ran = [json.loads(l) for l in open(sys.argv[2]) if json.loads(l)["job"] in jobs]
assert not ran, ran' "$evil" "$T/execs" || fail "the swapped-in content ran"
if [ "$(field "$D/hs.result.json" decision.by)" = user ]; then fail "the swapped-in content was decided by a user"; fi
# A's review of what is held now, pinned, is what lets it run.
as "$A" "$AGENT" approve --yes --reason "reviewed the swapped one" "$D/hs.py" > "$T/out" 2>&1 ||
	fail "approve: $(cat "$T/out")"
wait_field "$D/hs.result.json" state completed 60
[ "$(field "$D/hs.result.json" sha256)" = "$evil" ] || fail "approve ran other content"

# --- what blocks an answer's name is moved aside ---
high "echo two" | put_as "$W" "$D/hs2.py"
wait_field "$D/hs2.result.json" state awaiting_confirmation 30
if [ "$MODE" = watch ]; then
	as "$C" sh -c 'mkdir "$1/.plant" && touch "$1/.plant/x" && mv "$1/.plant" "$1/hs2.approve"' sh "$D" ||
		fail "C could not plant a directory"
	i=0
	until [ ! -e "$D/hs2.approve" ] || [ $i -ge 200 ]; do sleep 0.05; i=$((i + 1)); done
	[ ! -e "$D/hs2.approve" ] || fail "the directory at hs2.approve was not moved aside"
	printf 'me\n' | put_as "$C" "$D/hs2.override"
	i=0
	until [ ! -e "$D/hs2.override" ] || [ $i -ge 200 ]; do sleep 0.05; i=$((i + 1)); done
	[ ! -e "$D/hs2.override" ] || fail "C's hs2.override was not moved aside"
	record override | grep -q "\"moved_aside\": \"$T/state/quarantine/hs2.override" ||
		fail "the moved override is not recorded: $(record override)"
fi
as "$A" "$AGENT" approve --yes "$D/hs2.py" > "$T/out" 2>&1 || fail "approve of hs2.py: $(cat "$T/out")"
wait_field "$D/hs2.result.json" state completed 60

# --- one writer per script: the author of the bytes, not the renamer ---
if [ "$MODE" = mount ]; then
	high "echo wb" | put_as "$W" "$D/.wb"
	as "$A" mv "$D/.wb" "$D/wb.py" || fail "A could not rename W's file into place"
	wait_field "$D/wb.result.json" state awaiting_confirmation 30
	[ "$(field "$D/wb.result.json" writer.uid)" = "$WU" ] ||
		fail "wb.py renamed by A: writer is $(field "$D/wb.result.json" writer.uid), expected W ($WU)"
	grep -q "wb.py: renamed from .wb by uid $(id -u "$A")" "$T/agent.log" || fail "the rename by A is not logged"
	# An audit record of its own: who renamed, from and to, whose bytes.
	record renamed | python3 -c 'import json, sys
recs = [json.loads(l) for l in sys.stdin]
r = [r for r in recs if r["file"] == "wb.py"]
assert len(r) == 1, recs
r = r[0]
assert r["from"] == ".wb" and r["uid"] == int(sys.argv[1]) and r["user"] == sys.argv[3], r
assert r["renamed_by"]["uid"] == int(sys.argv[1]) and r["renamed_by"]["from"] == "request", r
assert r["renamed_by"]["process"] == "mv", r
assert r["author"]["uid"] == int(sys.argv[2]) and r["author"]["user"] == sys.argv[4], r' \
		"$(id -u "$A")" "$WU" "$A" "$W" || fail "the rename by A has no renamed record as expected"
	as "$A" "$AGENT" approve --yes "$D/wb.py" > "$T/out" 2>&1 || fail "A's approve of W's bytes: $(cat "$T/out")"
	wait_field "$D/wb.result.json" state completed 60
fi

# --- the sidecars of a script that is gone (mount mode) ---
if [ "$MODE" = mount ]; then
	printf 'print("gone")\n' | put_as "$W" "$D/gone.py"
	wait_field "$D/gone.result.json" state completed 60
	as "$W" rm -f "$D/gone.result.json" 2> /dev/null && fail "W removed the result of a script that is there"
	as "$W" rm "$D/gone.py" || fail "W could not remove gone.py"
	as "$C" rm -f "$D/gone.result.json" 2> /dev/null && fail "C removed W's gone.result.json"
	as "$W" rm "$D/gone.result.json" || fail "W could not remove the result of their deleted script"
	as "$A" rm "$D/gone.audit" || fail "the approver could not remove the audit sidecar of a deleted script"
fi

# --- the stop window ---
printf 'print("sw")\n' | put_as "$W" "$D/sw.py"
wait_field "$D/sw.result.json" state completed 60
i=0
until [ -f "$D/sw.audit" ] || [ $i -ge 200 ]; do sleep 0.05; i=$((i + 1)); done
stop_agent
record job_accepted > "$T/accepted.before"
if [ "$MODE" = mount ]; then
	got=$(stat -c '%a %U' "$D")
	[ "$got" = "700 root" ] || fail "the directory underneath is '$got' while the agent is down, expected '700 root'"
	as "$C" sh -c "echo forged > '$D/cp1.result.json'" 2> /dev/null && fail "C wrote into the drop directory while the agent was down"
	# What an older agent's stop window let in, put there by root here.
	rm -f "$D/hs2.result.json"
	printf '{"state": "completed"}\n' > "$D/hs2.result.json"
	chown "$C" "$D/hs2.result.json"
else
	as "$C" sh -c "rm -f '$D/hs2.result.json'; echo '{\"state\": \"completed\"}' > '$D/hs2.result.json'" ||
		fail "C could not forge hs2.result.json in the plain directory"
fi
ln -s /etc/hostname "$D/future.result.json"
rm -f "$D/sw.audit" && mkfifo "$D/sw.audit"
mkdir "$D/h8.approve" && touch "$D/h8.approve/x"
start_agent
for n in hs2.result.json future.result.json sw.audit h8.approve; do
	record moved_aside | grep -q "\"file\": \"$n\"" || fail "$n was not moved aside at start"
done
[ -L "$D/future.result.json" ] && fail "the symlink at future.result.json stayed"
[ -d "$D/h8.approve" ] && fail "the directory at h8.approve stayed"
# Answered again from the agent's copy of the answer its content had:
# hs2.py stays completed (approved, not held again), neither runs again.
wait_field "$D/hs2.result.json" state completed 60
[ "$(stat -c %U "$D/hs2.result.json")" = "$W" ] || fail "hs2.result.json was not answered again by the agent"
i=0
until [ -f "$D/sw.audit" ] || [ $i -ge 400 ]; do sleep 0.05; i=$((i + 1)); done
[ -f "$D/sw.audit" ] && [ ! -p "$D/sw.audit" ] || fail "sw.py's audit sidecar was not written again"
for n in hs2.py sw.py; do
	record answer_restored | grep -q "\"file\": \"$n\"" || fail "$n: no answer_restored record"
	[ "$(record job_accepted | grep -c "\"file\": \"$n\"")" = "$(grep -c "\"file\": \"$n\"" "$T/accepted.before")" ] ||
		fail "$n ran again instead of being answered from the kept copy"
done
# Kept in the state directory, out of the drop group's reach (in watch
# mode C could rename a quarantine in the drop directory away).
[ -e "$D/.mai-quarantine" ] && fail "a quarantine was made in the drop directory"
for n in hs2.result.json future.result.json sw.audit h8.approve; do
	to=$(record moved_aside | python3 -c 'import json, sys
print([r for r in map(json.loads, sys.stdin) if r["file"] == sys.argv[1]][-1]["moved_to"])' "$n")
	case $to in "$T/state/quarantine/$n."*) ;; *) fail "$n was moved to '$to', not into the state directory";; esac
	[ -e "$to" ] || [ -L "$to" ] || fail "$n is not kept at $to"
done
as "$C" ls "$T/state/quarantine" > /dev/null 2>&1 && fail "C can list the quarantine"
# --- privacy: a 0600 script saved twice ---
as "$W" sh -c 'umask 077; printf "print(\"first-secret\")\n" > "$1"' sh "$D/priv.py"
wait_field "$D/priv.result.json" state completed 60
as "$W" sh -c 'umask 077; printf "print(\"second-secret\")\n" > "$1"' sh "$D/priv.py"
wait_field "$D/priv.result.json" state completed 60
i=0
until grep -q second-secret "$D/priv.result.json" || [ $i -ge 100 ]; do sleep 0.05; i=$((i + 1)); done
for s in priv.result.json priv.audit; do
	got=$(stat -c '%a %U' "$D/$s")
	[ "$got" = "600 $W" ] || fail "$s is '$got', expected '600 $W' (the script's owner and read bits)"
	as "$C" cat "$D/$s" > /dev/null 2>&1 && fail "C could read $s"
done
as "$W" cat "$D/priv.audit" | grep -q second-secret || fail "W cannot read their own priv.audit"
if [ "$MODE" = mount ]; then
	as "$C" cat "$D/.wait/priv.result.json" > /dev/null 2>&1 && fail "C could read .wait/priv.result.json"
	as "$W" cat "$D/.wait/priv.result.json" | grep -q second-secret || fail "W cannot wait for priv.py"
fi

# --- fair turns: C floods, W's one script goes near the front ---
# C's 12 scripts wait under hidden names, then come in at once (renames).
for n in $(seq 1 12); do printf 'import time\ntime.sleep(1)\nprint(%s)\n' "$n" | put_as "$C" "$D/.c$n"; done
as "$C" sh -c 'for n in $(seq 1 12); do mv "$1/.c$n" "$1/c$n.py"; done' sh "$D"
i=0
until [ "$(grep -l '"writer_queue_full"' "$D"/c*.result.json 2>/dev/null | wc -l)" -ge 4 ] || [ $i -ge 400 ]; do
	sleep 0.05
	i=$((i + 1))
done
capped=$(grep -l '"writer_queue_full"' "$D"/c*.result.json 2>/dev/null | wc -l)
[ "$capped" -eq 4 ] || fail "$capped of C's 12 scripts were refused over the cap of 8, expected 4"
grep -h '"message"' "$D"/c*.result.json | grep -q "already has 8 jobs queued or running" ||
	fail "the cap's result does not say why"
printf 'print("w turn")\n' | put_as "$W" "$D/wturn.py"
# The first answer W sees: queued, within one job of the front.
python3 - "$D/wturn.result.json" > "$T/wq" <<'PY' || fail "W's script: $(cat "$T/wq")"
import json, sys, time
end = time.monotonic() + 30
while time.monotonic() < end:
    try:
        r = json.load(open(sys.argv[1]))
    except (OSError, ValueError):
        time.sleep(0.01)
        continue
    if r["state"] == "queued":
        q = r.get("queue", {})
        print(q.get("ahead"), r["message"])
        sys.exit(0 if q.get("ahead", 99) <= 1 and "position" in r["message"] else 1)
    if r["state"] in ("running", "completed"):
        print("first seen", r["state"])
        sys.exit(0)
    time.sleep(0.01)
print("no answer")
sys.exit(1)
PY
# Any member of the drop group reads the agent's status and what is held.
as "$C" "$AGENT" status > "$T/cstatus" 2>&1 || fail "status as a drop-group member: $(cat "$T/cstatus")"
grep -q "^agent: running" "$T/cstatus" || fail "status as a drop-group member: $(cat "$T/cstatus")"
as "$C" "$AGENT" pending > "$T/cpending" 2>&1 || fail "pending as a drop-group member: $(cat "$T/cpending")"
wait_field "$D/wturn.result.json" state completed 60
waiting=$(grep -l '"state": "queued"' "$D"/c*.result.json 2>/dev/null | wc -l)
[ "$waiting" -ge 3 ] || fail "W's script was answered after C's flood drained ($waiting of C's still queued)"

stop_agent
"$AGENT" verify "$T/state" > "$T/verify" 2>&1 || fail "the log does not verify: $(cat "$T/verify")"

# --- a drop directory on a file system without extended attributes ---
# ramfs keeps none: the agent could not tell the sidecars it gives to each
# writer (marked as its own with one) from anyone else's files, nor, in
# mount mode, keep the permissions users see across restarts. It refuses
# to start and says what to do; nothing is mounted or changed.
R=$T/ramdrop
mkdir -p "$R" && mount -t ramfs -o mode=2770 ramfs "$R" || fail "cannot mount a ramfs at $R"
chgrp "$DROPG" "$R"
printf 'print("ram")\n' | put_as "$W" "$R/ram.py"
sed -e "s|^drop_dir: .*|drop_dir: $R|" -e "s|^state_dir: .*|state_dir: $T/state-ramfs|" \
	"$T/conf/agent.yaml" > "$T/agent-ramfs.yaml" && cp "$T/agent-ramfs.yaml" "$T/conf/agent.yaml"
rc=0
timeout 120 "$AGENT" run > "$T/ramfs.out" 2>&1 || rc=$?
[ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "the agent started (or hung: exit $rc) on a ramfs drop directory"
grep -q "keeps no extended attributes" "$T/ramfs.out" && grep -q "ext4, xfs, btrfs, tmpfs" "$T/ramfs.out" ||
	fail "no clear error for a drop directory without extended attributes: $(cat "$T/ramfs.out")"
grep -q " $R fuse" /proc/self/mounts && fail "a ramfs drop directory was mounted over"
[ "$(stat -c '%a %G' "$R")" = "2770 $DROPG" ] || fail "the ramfs drop directory was changed: $(stat -c '%a %G' "$R")"
[ -e "$R/ram.result.json" ] && fail "ram.py was answered on a ramfs drop directory"
umount "$R"
lib_finish "multiuser ($MODE)"
