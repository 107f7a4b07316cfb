#!/bin/sh
# drop_mode: mount end to end: a real agent mounts its drop directory with
# FUSE, real users (a drop group of two writers, made here and removed at
# exit) save into it with vim, neovim and emacs, cp, mv, rsync (default and
# --inplace), tee and shell redirection, two at once and 1,000 files at
# once; every save is taken exactly once, with the writer's uid and process
# in the result; what a writer may not do is refused at the call (and a
# refused answer file is an audit record); .wait returns the final result;
# SIGHUP keeps the mount; kill -9 leaves a stale mount that the next start
# clears; while the agent is down the directory underneath is root's 0700
# (no writer can plant anything), and what root put there is answered at
# start; SIGTERM unmounts. HIGH scripts throughout, so no
# container has to run (the levels and verdicts of mount mode are
# examples_run_mount's). Exit 77 without Docker, root, FUSE or an editor,
# unless MAI_REQUIRE_REAL=1.
set -u
. "$(dirname "$0")/agent_lib.sh"
SRC=${MAI_SOURCE_ROOT:?MAI_SOURCE_ROOT must name the source tree}

[ "$(id -u)" -eq 0 ] || skip "needs root (users, a FUSE mount with allow_other)"
[ -c /dev/fuse ] || skip "no /dev/fuse"
for p in vim nvim emacs rsync useradd runuser; do
	command -v $p > /dev/null || skip "$p is not installed (packaging/install-deps.sh installs it)"
done
require_docker /var/run/docker.sock

# Accounts named after this process; those of a run that was killed
# (meson's timeout sends SIGKILL: no cleanup) go first.
for u in $(awk -F: '/^mdw[12][0-9]+:/ { print $1 }' /etc/passwd); do
	kill -0 "${u#mdw?}" 2>/dev/null || userdel "$u" 2>/dev/null
done
for g in $(awk -F: '/^mdg[0-9]+:/ { print $1 }' /etc/group); do
	kill -0 "${g#mdg}" 2>/dev/null || groupdel "$g" 2>/dev/null
done
GROUP=mdg$$
W1=mdw1$$
W2=mdw2$$
on_exit() {
	userdel "$W1" 2>/dev/null
	userdel "$W2" 2>/dev/null
	groupdel "$GROUP" 2>/dev/null
	# A mount left by a failed step (the agent is stopped by now).
	grep -q " $T/drop " /proc/self/mounts && umount -l "$T/drop"
}
groupadd "$GROUP" && useradd -M -N -g "$GROUP" -s /bin/sh "$W1" &&
	useradd -M -N -g "$GROUP" -s /bin/sh "$W2" || { fail "cannot create users"; exit 1; }
U1=$(id -u "$W1")
U2=$(id -u "$W2")
chmod 755 "$T"
mkdir -p "$T/home1" "$T/home2" "$T/src"
chown "$W1" "$T/home1"
chown "$W2" "$T/home2"
chmod 755 "$T/src"

write_agent_config "$T/drop" "$T/state" "drop_mode: mount
drop_dir_mode: \"2770\"
drop_dir_group: $GROUP
workers: 4
max_jobs_per_writer: 0"
# (No cap on a writer's jobs: one writer's 1,000 files are each taken
# exactly once below; multiuser.sh tests the cap.)
DOCKER_CHECKED=1
start_agent

mounted() { awk -v m="$T/drop" '$2 == m { print $3 }' /proc/self/mounts; }
[ "$(mounted)" = fuse.maidrop ] || fail "drop directory not mounted (mounts: $(mounted))"
st=$(stat -c '%a %G' "$T/drop")
[ "$st" = "2770 $GROUP" ] || fail "the mount shows '$st', expected '2770 $GROUP' (drop_dir_mode, drop_dir_group)"

as1() { runuser -u "$W1" -- env HOME="$T/home1" "$@"; }
as2() { runuser -u "$W2" -- env HOME="$T/home2" "$@"; }
# high N: a HIGH script, different for each N.
high() { printf 'import os, sys\nos.system("%s " + sys.argv[0])\n' "$1"; }
# takes NAME: how many times the agent took NAME (each completion once).
takes() {
	grep -cE "debug: $1: (queued|replaced|after_running|duplicate|already_final) \(" "$T/agent.log"
}
# answer NAME...: waits (60 s at most) until each NAME.result.json holds a
# final state for NAME.py's current content; prints for each "NAME STATE
# UID FROM PROCESS OWNER" (the writer's uid, how it is known and its
# process; NAME.py's owner). Both files are read through the mount again
# when inotify reports one of them changed in the directory underneath (the
# agent's, through its descriptor: inotify on the mount does not see the
# agent's own writes), and all of them every second. It read every
# pending script and result every 50 ms: for the 1,000 scripts below, most
# of this test's CPU time, Python's and the agent's serving threads'.
answer() {
	python3 - "$(dirname "$0")/../tools" "$T/drop" "$PID" "$@" <<'PY'
import hashlib, json, os, sys, time
sys.path.insert(0, sys.argv[1])
import fswait
drop, names = sys.argv[2], sys.argv[4:]
end = time.monotonic() + 60
done = {}


def answered(n):
    base = os.path.join(drop, n)
    try:
        sha = hashlib.sha256(open(base + ".py", "rb").read()).hexdigest()
        r = json.load(open(base + ".result.json"))
    except (OSError, ValueError):
        return None
    return r if r.get("sha256") == sha and r.get("state") not in ("queued", "running") else None


def script(name):
    for suffix in (".result.json", ".py"):
        if name.endswith(suffix):
            return name[:-len(suffix)]
    return None


under = fswait.underneath(drop, int(sys.argv[3]))
watch = fswait.watch(under) if under else None
pending, todo, all_at = set(names), set(names), time.monotonic()
while True:
    for n in todo & pending:
        r = answered(n)
        if r:
            done[n] = r
            pending.discard(n)
    now = time.monotonic()
    if not pending or now >= end:
        break
    if not watch:  # no descriptor of the agent's, or no inotify: a poll
        time.sleep(0.05)
        todo = pending
        continue
    changed = watch.changes(max(0, min(end, all_at + 1) - now))
    if fswait.DirWatch.ANY in changed or time.monotonic() >= all_at + 1:
        todo, all_at = set(pending), time.monotonic()
    else:
        todo = {script(c) for c in changed}
for n in names:
    r = done.get(n, {})
    w = r.get("writer") or {}
    print(n, r.get("state"), w.get("uid"), w.get("from"), w.get("process"),
          os.stat(os.path.join(drop, n + ".py")).st_uid)
PY
}
# takes NAME...: "NAME COUNT" for each, how many times the agent took
# NAME.py (each completion must be taken once).
takes() {
	for n in "$@"; do
		printf '%s %s\n' "$n" "$(grep -cE "debug: $n\.py: (queued|replaced|after_running|duplicate|already_final) \(" "$T/agent.log")"
	done
}
# expect UID PROCESS TAKES WHAT NAME...: each NAME.py answered for its
# content, taken TAKES times in all, written last by UID through PROCESS,
# and owned by UID.
expect() {
	uid=$1 proc=$2 count=$3 what=$4
	shift 4
	answer "$@" | while read -r n got; do
		[ "$got" = "awaiting_confirmation $uid request $proc $uid" ] ||
			echo "FAIL: $what: $n.py: got '$got', expected 'awaiting_confirmation $uid request $proc $uid'"
	done > "$T/expect.out"
	takes "$@" | while read -r n c; do
		[ "$c" -eq "$count" ] || echo "FAIL: $what: $n.py taken $c times, expected $count"
	done >> "$T/expect.out"
	if [ -s "$T/expect.out" ]; then
		cat "$T/expect.out" >&2
		fails=$((fails + 1))
	fi
}

# --- editors, saving in the mount itself ---
high ed0 > "$T/src/ed.py"
as1 cp "$T/src/ed.py" "$T/drop/ed.py"
expect "$U1" cp 1 "cp" ed
sleep 1.1 # a later mtime for the editors' change checks
(cd "$T/drop" && as1 timeout 60 vim -Nu NONE -i NONE -Es -c 'normal! Go# vim' -c write -c 'qall!' ed.py < /dev/null)
sleep 0.5
expect "$U1" vim 2 "vim" ed
(cd "$T/drop" && as1 timeout 60 nvim --headless -u NONE -i NONE -c 'normal! Go# nvim' -c write -c 'qall!' ed.py < /dev/null > /dev/null 2>&1)
sleep 0.5
expect "$U1" nvim 3 "neovim" ed
(cd "$T/drop" && as1 timeout 60 emacs --batch -Q ed.py --eval '(progn (goto-char (point-max)) (insert "# emacs\n") (save-buffer))' > /dev/null 2>&1)
sleep 0.5
expect "$U1" emacs 4 "emacs" ed
grep -q '# vim' "$T/drop/ed.py" && grep -q '# nvim' "$T/drop/ed.py" && grep -q '# emacs' "$T/drop/ed.py" ||
	fail "the editors' saves are not all in ed.py: $(cat "$T/drop/ed.py")"
ls -a "$T/drop" | grep -E 'sw[px]$|^\.#|^4913$' && fail "an editor left a swap, lock or probe file behind"

# --- tools ---
high cp > "$T/src/t_cp.py"; as2 cp "$T/src/t_cp.py" "$T/drop/"
expect "$U2" cp 1 "cp" t_cp
high mv > "$T/home2/t_mv.py"; chown "$W2" "$T/home2/t_mv.py"
as2 sh -c "cat '$T/home2/t_mv.py' > '$T/drop/.t_mv.tmp' && mv '$T/drop/.t_mv.tmp' '$T/drop/t_mv.py'"
expect "$U2" mv 1 "mv (a rename into place)" t_mv
high rsync > "$T/src/t_rsync.py"; as2 rsync "$T/src/t_rsync.py" "$T/drop/"
expect "$U2" rsync 1 "rsync (a temporary file renamed into place)" t_rsync
high rsync2 > "$T/src/t_rsync.py"; as2 rsync --inplace "$T/src/t_rsync.py" "$T/drop/"
expect "$U2" rsync 2 "rsync --inplace" t_rsync
high tee | as2 tee "$T/drop/t_tee.py" > /dev/null
expect "$U2" tee 1 "tee" t_tee
as2 sh -c "printf 'import os, sys\nos.system(\"sh \" + sys.argv[0])\n' > '$T/drop/t_sh.py'"
expect "$U2" sh 1 "shell redirection" t_sh
as2 sh -c "printf '# appended\n' >> '$T/drop/t_sh.py'"
expect "$U2" sh 2 "shell append" t_sh

# --- two writers at once ---
as1 sh -c "i=0; while [ \$i -lt 20 ]; do printf 'import os, sys\nos.system(\"a%d \" + sys.argv[0])\n' \$i > '$T/drop/two_a'\$i.py; i=\$((i+1)); done" &
a=$!
as2 sh -c "i=0; while [ \$i -lt 20 ]; do printf 'import os, sys\nos.system(\"b%d \" + sys.argv[0])\n' \$i > '$T/drop/two_b'\$i.py; i=\$((i+1)); done" &
b=$!
wait $a; wait $b
expect "$U1" sh 1 "two writers" $(seq -f 'two_a%g' 0 19)
expect "$U2" sh 1 "two writers" $(seq -f 'two_b%g' 0 19)
# 'pending' lists every held script once, in the order of their names.
"$AGENT" pending --json > "$T/pending.json" 2> "$T/err" || fail "pending --json: $(cat "$T/err")"
python3 -c 'import json, sys
files = [e["file"] for e in json.load(open(sys.argv[1]))["pending"]]
two = [f for f in files if f.startswith("two_")]
assert files == sorted(files), files[:12]
assert len(two) == 40 and len(set(two)) == 40, two' "$T/pending.json" ||
	fail "pending does not list the held scripts once each, in name order: $(head -c 600 "$T/pending.json")"

# --- 1,000 files at once (cp), each answered exactly once ---
mkdir "$T/many"
i=0
while [ $i -lt 1000 ]; do
	high m$i > "$T/many/m$i.py"
	i=$((i + 1))
done
chmod -R a+rX "$T/many"
as1 cp "$T"/many/*.py "$T/drop/"
n=$(answer $(seq -f 'm%g' 0 999) | grep -c ' awaiting_confirmation ')
[ "$n" -eq 1000 ] || fail "1000 files: $n answered"
n=$(grep -cE 'debug: m[0-9]+\.py: queued \(' "$T/agent.log")
[ "$n" -eq 1000 ] || fail "1000 files: taken $n times, expected 1000"

# --- refused at the call ---
as1 sh -c "echo x > '$T/drop/ed.result.json'" 2> "$T/err" && fail "a writer overwrote ed.result.json"
grep -q 'Permission denied' "$T/err" || fail "overwriting a result: $(cat "$T/err")"
as1 rm -f "$T/drop/ed.audit" 2> "$T/err" && fail "a writer removed ed.audit"
as1 mv "$T/drop/ed.result.json" "$T/drop/x.json" 2> /dev/null && fail "a writer renamed ed.result.json"
as1 mv "$T/drop/t_tee.py" "$T/drop/x.audit" 2> /dev/null && fail "a writer renamed a script to an .audit name"
[ -f "$T/drop/ed.result.json" ] && [ -f "$T/drop/ed.audit" ] || fail "a refused call removed a sidecar"
as1 mkdir "$T/drop/sub" 2> /dev/null && fail "mkdir allowed with recursive: false"
as1 sh -c "echo ok > '$T/drop/ed.approve'" 2> "$T/err" && fail "a writer approved ed.py"
grep -q 'Operation not permitted' "$T/err" || fail "a writer's approval: $(cat "$T/err")"
grep -q "ed.approve: create refused (Operation not permitted) for uid $U1" "$T/agent.log" ||
	fail "no log line for the refused approval"
"$AGENT" verify "$T/state" > /dev/null || fail "the audit log does not verify"
rec=$(grep -h '"refused_at":"call"' "$T/state/audit/"seg-*.log | grep '"file":"ed.py"' | tail -1)
for want in '"accepted":false' "\"uid\":$U1" '"status":"not_approver"' '"type":"approval"' \
	"\"sha256\":\"$(sha256sum < "$T/drop/ed.py" | cut -d' ' -f1)\""; do
	case $rec in *"$want"*) ;; *) fail "the refused approval's record lacks $want: $rec" ;; esac
done
# An approver (root) may: the script runs.
"$AGENT" approve --yes "$T/drop/t_cp.py" --reason "reviewed" > "$T/approve.out" 2>&1 ||
	fail "root could not approve: $(cat "$T/approve.out")"
wait_field "$T/drop/t_cp.result.json" decision.by user 60

# --- .wait: the final result, without polling ---
as2 cat "$T/drop/.wait/t_sh.result.json" > "$T/waited" || fail ".wait/t_sh.result.json could not be read"
[ "$(field "$T/waited" state)" = awaiting_confirmation ] || fail ".wait gave: $(head -c 300 "$T/waited")"
exec 3> "$T/drop/pending.py"   # open for writing: not complete, no final result
as2 timeout -s INT 1 cat "$T/drop/.wait/pending.result.json" > /dev/null 2>&1
[ $? -eq 124 ] || fail "a signal did not end a wait on .wait/pending.result.json"
high pending >&3
exec 3>&-
as2 cat "$T/drop/.wait/pending.result.json" > "$T/waited"
[ "$(field "$T/waited" sha256)" = "$(sha256sum < "$T/drop/pending.py" | cut -d' ' -f1)" ] ||
	fail ".wait gave a result for other content"

# --- SIGHUP keeps the mount ---
# The reload is over when the log says so; the mount must still be there.
hup_wait || fail "SIGHUP: no reload in the log within 30 s"
[ "$(mounted)" = fuse.maidrop ] || fail "SIGHUP: the mount went away"
high hup | as1 tee "$T/drop/after_hup.py" > /dev/null
expect "$U1" tee 1 "after SIGHUP" after_hup

# --- kill -9: a stale mount, cleared at the next start ---
# The root's attributes are fresh in the kernel's cache (1 s): its stat()
# still answers from there after the kill, and the start must not take
# that for a live agent's mount.
stat "$T/drop" > /dev/null
kill -9 "$PID"
wait "$PID" 2> /dev/null
PID=
ls "$T/drop" > /dev/null 2>&1 && fail "the mount of a killed agent still answers"
start_agent
grep -q "not connected: an agent that was killed ended without unmounting" "$T/agent.log" ||
	fail "the stale mount was not reported as cleared"
[ "$(mounted)" = fuse.maidrop ] || fail "not mounted again after kill -9"
# While the agent is down the directory underneath is root's 0700: writers
# cannot put anything there. What root puts there (a restored backup) is
# answered at start, with the files' owners as writers.
kill -9 "$PID"
wait "$PID" 2> /dev/null
PID=
umount -l "$T/drop"
st=$(stat -c '%a %U' "$T/drop")
[ "$st" = "700 root" ] || fail "the directory underneath is '$st' while the agent is down, expected '700 root'"
high down0 | as1 tee "$T/drop/down0.py" > /dev/null 2>&1 && fail "a writer wrote into the drop directory while the agent was down"
high down1 > "$T/drop/down1.py" && chown "$W1:$GROUP" "$T/drop/down1.py"
high down2 > "$T/drop/down2.py" && chown "$W2:$GROUP" "$T/drop/down2.py"
start_agent
st=$(stat -c '%a %G' "$T/drop")
[ "$st" = "2770 $GROUP" ] || fail "after the restart the mount shows '$st', expected '2770 $GROUP'"
got=$(answer down1 down2 | tr '\n' ' ')
[ "$got" = "down1 awaiting_confirmation $U1 file_owner None $U1 down2 awaiting_confirmation $U2 file_owner None $U2 " ] ||
	fail "written while the agent was down: $got"

# The restarted agent refuses at the call as the first did: a writer's
# override of another's script (logged), a result overwritten.
as2 sh -c "echo because > '$T/drop/down1.override'" 2> "$T/err" && fail "a writer overrode down1.py"
grep -q 'Operation not permitted' "$T/err" || fail "a writer's override: $(cat "$T/err")"
grep -q "down1.override: create refused (Operation not permitted) for uid $U2" "$T/agent.log" ||
	fail "no log line for the refused override"
as2 sh -c "echo x > '$T/drop/down2.result.json'" 2> "$T/err" && fail "a writer overwrote down2.result.json"
grep -q 'Permission denied' "$T/err" || fail "overwriting a result after the restart: $(cat "$T/err")"

# --- SIGTERM unmounts; what was served stays in the directory ---
stop_agent
[ -z "$(mounted)" ] || fail "still mounted after SIGTERM"
[ -f "$T/drop/ed.py" ] && [ -f "$T/drop/ed.result.json" ] && [ -f "$T/drop/m999.result.json" ] ||
	fail "the directory underneath lacks what was served"
lib_finish "mount_mode"
